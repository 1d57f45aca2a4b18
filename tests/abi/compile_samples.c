/*
 * tests/abi/compile_samples.c - a peer-to-peer program in the style of the
 * cuda-samples (simpleP2P, p2pBandwidthLatencyTest, streamOrderedAllocationP2P,
 * simpleIPC), written to compile against p2psim's CUDA headers alone.
 *
 * It is compiled, never linked or run: tests/abi/compile.sh builds it with
 * gcc -std=c11 and g++ -std=c++17, both with -Wall -Werror, and
 * tests/abi/abi.sh builds it against our headers and the toolkit's and
 * compares the runtime symbols each object imports. Under C++ it also
 * exercises every convenience overload of cuda_runtime.h, so the C++
 * comparison shows which C entry point each overload reaches.
 *
 * The kernel is represented by a host function standing in for the stub
 * nvcc would generate; a plain host compiler has no <<<>>>.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t err_ = (call);                                             \
        if (err_ != cudaSuccess) {                                             \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, \
                    cudaGetErrorName(err_), cudaGetErrorString(err_));         \
            exit(EXIT_FAILURE);                                                \
        }                                                                      \
    } while (0)

#define N_FLOATS (16u * 1024u * 1024u)
#define N_BYTES (N_FLOATS * sizeof(float))
#define N_COPIES 100

/* Stand-in for nvcc's host stub of
 * __global__ void scale(float *dst, const float *src, int n). */
static void scale(float *dst, const float *src, int n)
{
    (void)dst;
    (void)src;
    (void)n;
}

static void CUDART_CB host_done(void *arg)
{
    *(int *)arg = 1;
}

static void CUDART_CB stream_done(cudaStream_t stream, cudaError_t status,
                                  void *arg)
{
    (void)stream;
    *(cudaError_t *)arg = status;
}

/* First ordered pair (a, b) where a can map b's memory; 0 if none. */
static int find_p2p_pair(int n, int *a, int *b)
{
    int i, j, can;

    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            if (i == j) {
                continue;
            }
            CHECK(cudaDeviceCanAccessPeer(&can, i, j));
            printf("> Peer access from GPU%d -> GPU%d : %s\n", i, j,
                   can ? "Yes" : "No");
            if (can && *a < 0) {
                *a = i;
                *b = j;
            }
        }
    }
    return *a >= 0;
}

/* Enable a -> b; tolerate "already enabled" and clear the recorded error,
 * as NCCL does. */
static void enable_peer(int a, int b)
{
    cudaError_t err;

    CHECK(cudaSetDevice(a));
    err = cudaDeviceEnablePeerAccess(b, 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();
    } else {
        CHECK(err);
    }
}

static void show_device(int d)
{
    struct cudaDeviceProp prop;
    int mode = 0, pools = 0;

    CHECK(cudaGetDeviceProperties(&prop, d));
    CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, d));
    CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, d));
    printf("> GPU%d = \"%s\" sm_%d%d, %d SMs, pci %04x:%02x:%02x, UVA %d, "
           "pools %d%s\n",
           d, prop.name, prop.major, prop.minor, prop.multiProcessorCount,
           prop.pciDomainID, prop.pciBusID, prop.pciDeviceID,
           prop.unifiedAddressing, pools,
           mode == cudaComputeModeProhibited ? " (prohibited)" : "");
}

static void peer_copies(int a, int b, float *buf_a, float *buf_b, float *host)
{
    cudaEvent_t start, stop;
    cudaStream_t s;
    float ms = 0.0f;
    int i, rank = 0, atomics = 0;

    CHECK(cudaSetDevice(a));
    CHECK(cudaEventCreateWithFlags(&start, cudaEventBlockingSync));
    CHECK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    CHECK(cudaEventRecord(start, 0));
    for (i = 0; i < N_COPIES; i++) {
        if (i % 2 == 0) {
            CHECK(cudaMemcpy(buf_b, buf_a, N_BYTES, cudaMemcpyDefault));
        } else {
            CHECK(cudaMemcpyPeer(buf_a, a, buf_b, b, N_BYTES));
        }
    }
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf(
        "cudaMemcpyPeer / cudaMemcpy between GPU%d and GPU%d: %.2fGB/s\n", a, b,
        (double)N_COPIES * N_BYTES / (1024.0 * 1024.0 * 1024.0) / (ms / 1e3));

    CHECK(cudaMemcpyPeerAsync(buf_b, b, buf_a, a, N_BYTES, s));
    CHECK(cudaStreamWaitEvent(s, stop, cudaEventWaitDefault));
    CHECK(cudaMemcpyAsync(host, buf_b, N_BYTES, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    if (cudaStreamQuery(s) == cudaErrorNotReady) {
        printf("stream still busy\n");
    }

    CHECK(
        cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, a, b));
    CHECK(cudaDeviceGetP2PAttribute(&atomics,
                                    cudaDevP2PAttrNativeAtomicSupported, a, b));
    printf("P2P rank %d, native atomics %d\n", rank, atomics);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
}

/* GPU b reads GPU a's buffer directly (the simpleP2P verification). */
static void peer_kernel(int b, float *dst, const float *src)
{
    dim3 grid, block;
    int n = (int)N_FLOATS;
    void *args[3];

    grid.x = N_FLOATS / 512u;
    block.x = 512u;
    grid.y = grid.z = block.y = block.z = 1;
    args[0] = &dst;
    args[1] = &src;
    args[2] = &n;
    CHECK(cudaSetDevice(b));
    CHECK(cudaProfilerStart());
    CHECK(cudaLaunchKernel((const void *)scale, grid, block, args, 0, 0));
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaProfilerStop());
}

static void describe(const void *p)
{
    struct cudaPointerAttributes attr;

    CHECK(cudaPointerGetAttributes(&attr, p));
    printf("%p: type %d device %d\n", p, (int)attr.type, attr.device);
}

/* streamOrderedAllocationP2P: grant b access to a's default pool. */
static void pool_access(int a, int b)
{
    cudaMemPool_t pool;
    struct cudaMemAccessDesc desc;
    cudaStream_t s;
    void *p = NULL;

    memset(&desc, 0, sizeof(desc));
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = b;
    desc.flags = cudaMemAccessFlagsProtReadWrite;

    CHECK(cudaSetDevice(a));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaDeviceGetDefaultMemPool(&pool, a));
    CHECK(cudaMemPoolSetAccess(pool, &desc, 1));
    CHECK(cudaMallocAsync(&p, 1 << 20, s));
    CHECK(cudaMemsetAsync(p, 0, 1 << 20, s));
    CHECK(cudaFreeAsync(p, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
}

/* simpleIPC: export a buffer and an interprocess event. */
static void ipc_export(void *dev_buf)
{
    cudaIpcMemHandle_t mem;
    cudaIpcEventHandle_t evh;
    cudaEvent_t ev;

    CHECK(cudaEventCreateWithFlags(&ev, cudaEventInterprocess |
                                            cudaEventDisableTiming));
    CHECK(cudaIpcGetMemHandle(&mem, dev_buf));
    CHECK(cudaIpcGetEventHandle(&evh, ev));
    printf("IPC handles: %zu + %zu bytes\n", sizeof(mem), sizeof(evh));
    CHECK(cudaEventDestroy(ev));
}

/* conjugateGradientMultiDeviceCG: managed memory with CUDA 13 locations. */
static void managed(int a)
{
    struct cudaMemLocation loc;
    float *m = NULL;
    int done = 0;
    cudaError_t cb_status = cudaErrorUnknown;

    loc.type = cudaMemLocationTypeDevice;
    loc.id = a;
    CHECK(cudaMallocManaged((void **)&m, N_BYTES, cudaMemAttachGlobal));
    CHECK(cudaMemAdvise(m, N_BYTES, cudaMemAdviseSetReadMostly, loc));
    CHECK(cudaMemAdvise(m, N_BYTES, cudaMemAdviseSetPreferredLocation, loc));
    CHECK(cudaMemPrefetchAsync(m, N_BYTES, loc, 0, 0));
    loc.type = cudaMemLocationTypeHost;
    loc.id = cudaCpuDeviceId;
    CHECK(cudaMemPrefetchAsync(m, N_BYTES, loc, 0, 0));
    CHECK(cudaLaunchHostFunc(0, host_done, &done));
    CHECK(cudaStreamAddCallback(0, stream_done, &cb_status, 0));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(m));
}

static void c_entry_points(void)
{
    int n = 0, a = -1, b = -1, drv = 0, rt = 0;
    float *buf_a = NULL, *buf_b = NULL, *host = NULL;
    char bus[32];

    CHECK(cudaDriverGetVersion(&drv));
    CHECK(cudaRuntimeGetVersion(&rt));
    printf("driver %d, runtime %d (headers %d)\n", drv, rt, CUDART_VERSION);
    CHECK(cudaGetDeviceCount(&n));
    if (n < 2) {
        printf("Two or more GPUs with Peer-to-Peer access capability are "
               "required, waiving.\n");
        exit(2);
    }
    for (a = 0; a < n; a++) {
        show_device(a);
        CHECK(cudaDeviceGetPCIBusId(bus, (int)sizeof(bus), a));
    }
    a = -1;
    if (!find_p2p_pair(n, &a, &b)) {
        printf("No two devices support P2P, waiving.\n");
        exit(2);
    }
    enable_peer(a, b);
    enable_peer(b, a);

    CHECK(cudaSetDevice(a));
    CHECK(cudaMalloc((void **)&buf_a, N_BYTES));
    CHECK(cudaMemset(buf_a, 0, N_BYTES));
    CHECK(cudaSetDevice(b));
    CHECK(cudaMalloc((void **)&buf_b, N_BYTES));
    CHECK(cudaHostAlloc((void **)&host, N_BYTES, cudaHostAllocPortable));

    peer_copies(a, b, buf_a, buf_b, host);
    peer_kernel(b, buf_b, buf_a);
    describe(buf_a);
    describe(host);
    pool_access(a, b);
    ipc_export(buf_a);
    managed(a);

    CHECK(cudaSetDevice(a));
    CHECK(cudaDeviceDisablePeerAccess(b));
    CHECK(cudaSetDevice(b));
    CHECK(cudaDeviceDisablePeerAccess(a));
    CHECK(cudaFreeHost(host));
    CHECK(cudaFree(buf_a));
    CHECK(cudaFree(buf_b));
    CHECK(cudaPeekAtLastError());
}

#if defined(__cplusplus)
/* Dynamic shared memory as a function of the block size. */
struct smem_per_thread {
    size_t operator()(int block) const { return (size_t)block * 4; }
};

/* Every overload of cuda_runtime.h, and the default arguments. */
static void cxx_overloads(void)
{
    float *d = NULL, *h = NULL, *hd = NULL, *m = NULL, *pa = NULL;
    void *v = NULL;
    cudaEvent_t e;
    cudaStream_t s;
    cudaMemPool_t pool;
    struct cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    dim3 grid(4), block(256, 1);
    uint3 u = grid;
    dim3 back(u);
    int blocks = 0, min_grid = 0, best = 0, nn = 4;
    size_t smem = 0;
    void *args[3] = {&d, &h, &nn};
    void *fn = NULL;

    CHECK(cudaMalloc(&d, N_BYTES));
    CHECK(cudaMallocHost(&h, N_BYTES));
    CHECK(cudaMallocHost(&h, N_BYTES, cudaHostAllocMapped));
    CHECK(cudaMallocHost(&v, N_BYTES, cudaHostAllocPortable));
    CHECK(cudaMallocHost(&v, N_BYTES));
    CHECK(cudaHostAlloc(&h, N_BYTES, cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(&hd, h, 0));
    CHECK(cudaMallocManaged(&m, N_BYTES));
    CHECK(cudaMallocManaged((void **)&m, N_BYTES));
    CHECK(cudaEventCreate(&e, cudaEventDisableTiming));
    CHECK(cudaEventCreate(&e));
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamAttachMemAsync(s, m));
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    CHECK(cudaMallocAsync(&pa, N_BYTES, s));
    CHECK(cudaMallocAsync(&pa, N_BYTES, pool, s));
    CHECK(cudaMallocAsync(&v, N_BYTES, pool, s));
    CHECK(cudaMallocFromPoolAsync(&pa, N_BYTES, pool, s));

    CHECK(cudaEventRecord(e));
    CHECK(cudaEventRecordWithFlags(e));
    CHECK(cudaStreamWaitEvent(s, e));
    CHECK(cudaMemcpyAsync(h, d, N_BYTES, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpyPeerAsync(d, 0, pa, 1, N_BYTES));
    CHECK(cudaMemsetAsync(d, 0, N_BYTES));
    CHECK(cudaMemPrefetchAsync(m, N_BYTES, loc, 0));
    CHECK(cudaGetDriverEntryPointByVersion("cuInit", &fn, CUDART_VERSION, 0));

    CHECK(cudaLaunchKernel(scale, grid, block, args));
    CHECK(cudaLaunchKernel(scale, back, block, args, 0, s));
    CHECK(cudaLaunchCooperativeKernel(scale, grid, block, args));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, (const void *)scale, 256, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        &blocks, (const void *)scale, 256, 0, cudaOccupancyDefault));
    CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&smem, scale, 1, 256));
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best,
                                             (const void *)scale));
    CHECK(cudaOccupancyMaxPotentialBlockSizeWithFlags(
        &min_grid, &best, (const void *)scale, 0, 0, cudaOccupancyDefault));
    CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
        &min_grid, &best, (const void *)scale, smem_per_thread()));
    CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        &min_grid, &best, (const void *)scale, smem_per_thread(), 512));
    printf("grid %d block %d, dim3 %u x %u x %u\n", min_grid, best, back.x,
           back.y, back.z);

    CHECK(cudaFreeAsync(pa, s));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaEventDestroy(e));
    CHECK(cudaFree(m));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
}
#endif /* __cplusplus */

int main(void)
{
    c_entry_points();
#if defined(__cplusplus)
    cxx_overloads();
#endif
    printf("Test passed\n");
    return 0;
}
