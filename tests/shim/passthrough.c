/*
 * tests/shim/passthrough.c - calls through the shim with arguments a test
 * can recognise, printing what each call returned, for passthrough.sh:
 * under P2PSIM_BACKEND=cuda with the fake runtime (fake_cudart.c) the
 * fake logs what it received, and the script checks both sides.
 *
 * Output, one line per call: "NAME -> RESULT", then "NAME out NAME=VALUE"
 * for what a pointer parameter handed back. Values are chosen to be
 * distinct: device pointers 0x1000..., sizes 4096 + k, streams and events
 * 0x5100... (the fake never dereferences them).
 *
 * It also runs the launch protocol of nvcc-generated code by hand
 * (registration, push/pop of the configuration, the kernel handle, the
 * launch) and the per-thread-stream twins.
 */
#define CUDA_ENABLE_DEPRECATED
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define P(x) ((void *)(uintptr_t)(x))

/* Declared by p2psim_cudart_internal.h for the shim; a program built by
 * nvcc calls them from generated code. */
extern void **__cudaRegisterFatBinary(void *fatCubin);
extern void __cudaRegisterFatBinaryEnd(void **handle);
extern void __cudaUnregisterFatBinary(void **handle);
extern void __cudaRegisterFunction(void **handle, const char *hostFun,
                                   char *deviceFun, const char *deviceName,
                                   int thread_limit, uint3 *tid, uint3 *bid,
                                   dim3 *bDim, dim3 *gDim, int *wSize);
extern unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block,
                                            size_t shmem,
                                            struct CUstream_st *stream);
extern cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block,
                                              size_t *shmem, void *stream);
extern cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
extern cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid,
                                      dim3 block, void **args, size_t shmem,
                                      cudaStream_t stream);
extern cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src,
                                        size_t count,
                                        enum cudaMemcpyKind kind,
                                        cudaStream_t stream);
extern cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
                                   enum cudaMemcpyKind kind);

static void ret(const char *name, cudaError_t e)
{
    printf("%s -> %d\n", name, (int)e);
}

static void kernel_stub(void)
{
}

int main(void)
{
    int n = -1;
    ret("cudaGetDeviceCount", cudaGetDeviceCount(&n));
    printf("cudaGetDeviceCount out count=%d\n", n);
    ret("cudaSetDevice", cudaSetDevice(3));

    void *d = NULL;
    ret("cudaMalloc", cudaMalloc(&d, 4097));
    printf("cudaMalloc out devPtr=%p\n", d);
    ret("cudaMemcpy", cudaMemcpy(P(0x1000), P(0x2000), 4098,
                                 cudaMemcpyHostToDevice));
    ret("cudaMemcpyAsync", cudaMemcpyAsync(P(0x3000), P(0x4000), 4099,
                                           cudaMemcpyDeviceToHost,
                                           (cudaStream_t)P(0x5100)));
    ret("cudaMemcpyPeerAsync",
        cudaMemcpyPeerAsync(P(0x6000), 1, P(0x7000), 2, 4100,
                            (cudaStream_t)P(0x5200)));
    ret("cudaMemsetAsync", cudaMemsetAsync(P(0x8000), 0x5a, 4101,
                                           (cudaStream_t)P(0x5100)));
    ret("cudaMemcpyAsync_ptsz",
        cudaMemcpyAsync_ptsz(P(0x9000), P(0xa000), 4102, cudaMemcpyDefault,
                             (cudaStream_t)P(0x5300)));
    ret("cudaMemcpy_ptds", cudaMemcpy_ptds(P(0xb000), P(0xc000), 4103,
                                           cudaMemcpyDeviceToDevice));

    cudaStream_t s = NULL;
    ret("cudaStreamCreateWithFlags",
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    printf("cudaStreamCreateWithFlags out stream=%p\n", (void *)s);
    cudaEvent_t ev = NULL;
    ret("cudaEventCreateWithFlags",
        cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    ret("cudaEventRecord", cudaEventRecord((cudaEvent_t)P(0x5400),
                                           (cudaStream_t)P(0x5100)));
    ret("cudaStreamWaitEvent",
        cudaStreamWaitEvent((cudaStream_t)P(0x5200), (cudaEvent_t)P(0x5400),
                            0));
    float ms = 0;
    ret("cudaEventElapsedTime",
        cudaEventElapsedTime(&ms, (cudaEvent_t)P(0x5400),
                             (cudaEvent_t)P(0x5500)));
    printf("cudaEventElapsedTime out ms=%g\n", ms);
    ret("cudaStreamSynchronize",
        cudaStreamSynchronize((cudaStream_t)P(0x5100)));
    ret("cudaDeviceEnablePeerAccess", cudaDeviceEnablePeerAccess(5, 0));
    struct cudaMemLocation loc = { cudaMemLocationTypeDevice, 6 };
    ret("cudaMemPrefetchAsync",
        cudaMemPrefetchAsync(P(0xd000), 4104, loc, 0,
                             (cudaStream_t)P(0x5100)));

    /* The error calls, strings included, come from the real runtime. */
    ret("cudaGetLastError", cudaGetLastError());
    ret("cudaPeekAtLastError", cudaPeekAtLastError());
    printf("cudaGetErrorName -> %s\n", cudaGetErrorName((cudaError_t)717));
    printf("cudaGetErrorString -> %s\n",
           cudaGetErrorString((cudaError_t)718));
    cudaIpcMemHandle_t h;
    memset(&h, 0xab, sizeof(h));
    void *opened = NULL;
    ret("cudaIpcOpenMemHandle", cudaIpcOpenMemHandle(&opened, h, 1));

    /* nvcc's registration and launch protocol. */
    static unsigned long long fatbin[4];
    void **mod = __cudaRegisterFatBinary(fatbin);
    printf("__cudaRegisterFatBinary -> %p\n", (void *)mod);
    char name[] = "_Z6kernelPf";
    __cudaRegisterFunction(mod, (const char *)(uintptr_t)kernel_stub, name,
                           name, -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(mod);
    dim3 grid = { 7, 8, 9 }, block = { 32, 2, 1 };
    unsigned push = __cudaPushCallConfiguration(grid, block, 48,
                                                (struct CUstream_st *)
                                                    P(0x5100));
    printf("__cudaPushCallConfiguration -> %u\n", push);
    dim3 g2, b2;
    size_t shmem = 0;
    cudaStream_t st = NULL;
    ret("__cudaPopCallConfiguration",
        __cudaPopCallConfiguration(&g2, &b2, &shmem, &st));
    cudaKernel_t k = NULL;
    ret("__cudaGetKernel",
        __cudaGetKernel(&k, (const void *)(uintptr_t)kernel_stub));
    void *args[1] = { &d };
    ret("__cudaLaunchKernel",
        __cudaLaunchKernel((cudaKernel_t)P(0x7700), grid, block, args, 48,
                           (cudaStream_t)P(0x5100)));
    __cudaUnregisterFatBinary(mod);
    printf("done\n");
    return 0;
}
