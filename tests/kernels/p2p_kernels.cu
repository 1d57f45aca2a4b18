// tests/kernels/p2p_kernels.cu - P2P kernels built by nvcc (-cudart shared)
// and run unmodified on the simulated machine (tests/kernels/run.sh):
//
//   p2p_kernels peer      GPU 1 reads GPU 0's memory in a kernel, verifies
//   p2p_kernels bwlat     p2pBandwidthLatencyTest-style: the "delay" kernel
//                         spins on a host-mapped flag while the timed work
//                         is queued behind it; an SM copy kernel's bandwidth
//                         and a pointer-chase kernel's latency over P2P
//   p2p_kernels pc N F    producer on GPU 0 / consumer on GPU 1 polling a
//                         flag, N rounds, with __threadfence_system if F=1;
//                         prints how many rounds read stale data
//   p2p_kernels atomic    GPU 0 and GPU 1 atomicAdd_system one counter
//   p2p_kernels var       a __device__ variable (with an initializer) in
//                         kernels: device memory of the launching GPU
//   p2p_kernels same      the nvcc xor kernel and the same kernel written
//                         in C (machine/include/p2psim_kernel.h) give the same
//                         results and the same simulated time
//
// Each prints "ok" lines the script greps, and exits non-zero on a wrong
// result.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#include "p2psim_kernel.h"

#include "cuda_ck.h"

__global__ void xor_kernel(const unsigned *in, unsigned *out, int n,
                           unsigned key)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] ^ key;
    }
}

// p2pBandwidthLatencyTest's delay: spin until the host releases the flag.
__global__ void delay(volatile int *flag)
{
    while (*flag == 0) {
    }
}

// An SM copy: a grid-stride loop of 16-byte loads and stores.
__global__ void copy_kernel(int4 *dst, const int4 *src, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        dst[i] = src[i];
    }
}

// One thread chasing `hops` pointers (indices) in remote memory.
__global__ void chase(const unsigned *next, int hops, unsigned *out)
{
    unsigned i = 0;
    for (int h = 0; h < hops; h++) {
        i = next[i];
    }
    *out = i;
}

__global__ void producer(volatile unsigned *data, volatile unsigned *flag,
                         volatile unsigned *host, unsigned round, int fence)
{
    // a round-dependent head start (reads of host and own memory, whose
    // latencies differ), so the rounds meet the consumer's polls at
    // different phases
    for (unsigned k = 0; k < 4 + round % 3; k++) {
        (void)host[0];
    }
    for (unsigned k = 0; k < round / 3 % 4; k++) {
        (void)flag[64];
    }
    for (int i = 0; i < 32; i++) {
        data[i * 32] = round * 100 + i;
    }
    if (fence) {
        __threadfence_system();
    }
    *flag = round;
    // go on working a little (local reads), as a real producer would
    for (int i = 0; i < 16; i++) {
        (void)flag[64];
    }
}

__global__ void consumer(volatile unsigned *data, volatile unsigned *flag,
                         unsigned round, unsigned *stale)
{
    while (*flag != round) {
    }
    unsigned bad = 0;
    // newest first: the producer's last writes are the ones still on
    // their way when the flag is seen
    for (int i = 31; i >= 0; i--) {
        bad += data[i * 32] != round * 100 + i;
    }
    if (bad) {
        *stale += 1;
    }
}

__global__ void add_system(unsigned long long *c, int times)
{
    for (int i = 0; i < times; i++) {
        atomicAdd_system(c, 1ULL);
    }
}

__device__ unsigned long long dev_counter = 1000;

__global__ void bump(void)
{
    atomicAdd(&dev_counter, 1ULL);
}

__global__ void read_counter(unsigned long long *out)
{
    *out = dev_counter;
}

static int var(void)
{
    unsigned long long *d, h = 0;
    CK(cudaMalloc(&d, 8));
    bump<<<2, 64>>>();
    read_counter<<<1, 1>>>(d);
    CK(cudaMemcpy(&h, d, 8, cudaMemcpyDeviceToHost));
    printf("__device__ counter: %llu (want 1128): %s\n", h,
           h == 1128 ? "ok" : "WRONG");
    return h == 1128 ? 0 : 1;
}

static int peer(void)
{
    const int n = 1 << 14;
    unsigned *h = (unsigned *)malloc(n * 4), *back = (unsigned *)malloc(n * 4);
    for (int i = 0; i < n; i++) {
        h[i] = i * 2654435761u;
    }
    unsigned *src, *dst;
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&src, n * 4));
    CK(cudaMemcpy(src, h, n * 4, cudaMemcpyHostToDevice));
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&dst, n * 4));
    CK(cudaDeviceEnablePeerAccess(0, 0));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    xor_kernel<<<n / 256, 256>>>(src, dst, n, 0x5a5a5a5a);
    CK(cudaGetLastError());
    CK(cudaEventRecord(b));
    CK(cudaMemcpy(back, dst, n * 4, cudaMemcpyDeviceToHost));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    for (int i = 0; i < n; i++) {
        if (back[i] != (h[i] ^ 0x5a5a5a5a)) {
            printf("peer read: mismatch at %d\n", i);
            return 1;
        }
    }
    printf("peer read: ok (%d words in %.3f us)\n", n, ms * 1000);
    return 0;
}

static int bwlat(void)
{
    const size_t bytes = 4 << 20;
    int4 *b0, *b1;
    unsigned *next, *out;
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&b0, bytes));
    CK(cudaMalloc(&next, 4096 * 4));
    unsigned *h = (unsigned *)malloc(4096 * 4);
    for (int i = 0; i < 4096; i++) {
        h[i] = (i * 97 + 13) % 4096;    // a permutation: hops go far apart
    }
    CK(cudaMemcpy(next, h, 4096 * 4, cudaMemcpyHostToDevice));
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&b1, bytes));
    CK(cudaMalloc(&out, 4));
    CK(cudaDeviceEnablePeerAccess(0, 0));
    int *flag;
    CK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
    *flag = 0;
    int *dflag;
    CK(cudaHostGetDevicePointer(&dflag, flag, 0));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t e0, e1, e2;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventCreate(&e2));
    delay<<<1, 1, 0, s>>>(dflag);
    CK(cudaGetLastError());
    CK(cudaEventRecord(e0, s));
    copy_kernel<<<132, 512, 0, s>>>(b1, b0, bytes / sizeof(int4));
    CK(cudaEventRecord(e1, s));
    const int hops = 100;
    chase<<<1, 1, 0, s>>>(next, hops, out);
    CK(cudaEventRecord(e2, s));
    *flag = 1;                          // release the queued work
    CK(cudaStreamSynchronize(s));
    float ms_copy, ms_chase;
    CK(cudaEventElapsedTime(&ms_copy, e0, e1));
    CK(cudaEventElapsedTime(&ms_chase, e1, e2));
    printf("sm copy gpu0->gpu1: %.2f GB/s\n", bytes / (ms_copy * 1e6));
    printf("p2p read latency: %.3f us\n", ms_chase * 1000 / hops);
    printf("bwlat: ok\n");
    return 0;
}

// The data lives with the consumer (GPU 1), the flag with the producer
// (GPU 0): the consumer polls the flag over PCIe and reads the data
// locally, so nothing orders the data write before the flag read's
// answer but the producer's fence (docs/memory-model.md).
static int pc(int rounds, int fence)
{
    unsigned *data, *flag, *stale, h = 0;
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&data, 8192));
    CK(cudaMalloc(&stale, 4));
    CK(cudaMemset(data, 0, 8192));
    CK(cudaMemset(stale, 0, 4));
    CK(cudaDeviceSynchronize());
    CK(cudaDeviceEnablePeerAccess(0, 0));
    cudaStream_t s1;
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&flag, 8192));
    CK(cudaMemset(flag, 0, 8192));
    CK(cudaDeviceSynchronize());
    CK(cudaDeviceEnablePeerAccess(1, 0));
    cudaStream_t s0;
    CK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    unsigned *host;
    CK(cudaHostAlloc(&host, 64, cudaHostAllocMapped | cudaHostAllocPortable));
    for (int r = 1; r <= rounds; r++) {
        CK(cudaSetDevice(1));
        consumer<<<1, 1, 0, s1>>>(data, flag, r, stale);
        CK(cudaSetDevice(0));
        producer<<<1, 1, 0, s0>>>(data, flag, host, r, fence);
        CK(cudaStreamSynchronize(s0));
        CK(cudaStreamSynchronize(s1));
    }
    CK(cudaMemcpy(&h, stale, 4, cudaMemcpyDeviceToHost));
    printf("producer/consumer %s fence: %u of %d rounds stale\n",
           fence ? "with" : "without", h, rounds);
    return fence && h ? 1 : 0;
}

static int atomic(void)
{
    unsigned long long *c, total = 0;
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&c, 8));
    CK(cudaMemset(c, 0, 8));
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(1));
    CK(cudaDeviceEnablePeerAccess(0, 0));
    add_system<<<4, 128>>>(c, 3);
    CK(cudaGetLastError());
    CK(cudaSetDevice(0));
    add_system<<<3, 64>>>(c, 5);
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(1));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&total, c, 8, cudaMemcpyDeviceToHost));
    unsigned long long want = 4ull * 128 * 3 + 3ull * 64 * 5;
    printf("atomicAdd_system total: %llu of %llu: %s\n", total, want,
           total == want ? "ok" : "WRONG");
    return total == want ? 0 : 1;
}

// xor_kernel, written per thread against the device API.
static void xor_c(void **args)
{
    const unsigned *in = *(const unsigned **)args[0];
    unsigned *out = *(unsigned **)args[1];
    int n = *(int *)args[2];
    unsigned key = *(unsigned *)args[3];
    int i = (int)devapi_global_id();
    if (i < n) {
        devapi_st_u32(&out[i], devapi_ld_u32(&in[i]) ^ key);
    }
}

static float timed(const void *k, bool c, void **args, int n)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    if (c) {
        CK(cudaLaunchKernel(k, dim3(n / 256), dim3(256), args, 0, 0));
    } else {
        xor_kernel<<<n / 256, 256>>>(*(const unsigned **)args[0],
                                     *(unsigned **)args[1], *(int *)args[2],
                                     *(unsigned *)args[3]);
    }
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

static int same(void)
{
    static const size_t sizes[] = { 8, 8, 4, 4 };
    const void *k = p2psim_kernel_register("xor_c", xor_c, 4, sizes);
    const int n = 1 << 14;
    unsigned *src, *d1, *d2, key = 0x1234567;
    unsigned *h1 = (unsigned *)malloc(n * 4), *h2 = (unsigned *)malloc(n * 4);
    for (int i = 0; i < n; i++) {
        h1[i] = i * 2246822519u;
    }
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&src, n * 4));
    CK(cudaMemcpy(src, h1, n * 4, cudaMemcpyHostToDevice));
    CK(cudaSetDevice(1));
    CK(cudaDeviceEnablePeerAccess(0, 0));
    CK(cudaMalloc(&d1, n * 4));
    CK(cudaMalloc(&d2, n * 4));
    int nn = n;
    void *a1[] = { &src, &d1, &nn, &key };
    void *a2[] = { &src, &d2, &nn, &key };
    float t_ptx = timed(NULL, false, a1, n);
    float t_c = timed(k, true, a2, n);
    CK(cudaMemcpy(h1, d1, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h2, d2, n * 4, cudaMemcpyDeviceToHost));
    int same_data = memcmp(h1, h2, n * 4) == 0;
    printf("ptx kernel: %.6f ms, C kernel: %.6f ms, results %s\n", t_ptx,
           t_c, same_data ? "equal" : "DIFFER");
    if (!same_data || t_ptx != t_c) {
        return 1;
    }
    printf("same: ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "peer";
    if (!strcmp(m, "peer")) {
        return peer();
    }
    if (!strcmp(m, "bwlat")) {
        return bwlat();
    }
    if (!strcmp(m, "pc")) {
        return pc(argc > 2 ? atoi(argv[2]) : 10, argc > 3 ? atoi(argv[3]) : 0);
    }
    if (!strcmp(m, "atomic")) {
        return atomic();
    }
    if (!strcmp(m, "var")) {
        return var();
    }
    if (!strcmp(m, "same")) {
        return same();
    }
    fprintf(stderr, "usage: p2p_kernels peer|bwlat|pc N F|atomic\n");
    return 2;
}
