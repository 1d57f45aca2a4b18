/*
 * tests/abi/overloads.cpp - one call of one C++ convenience overload per
 * build, selected with -DPROBE=n (1 ... PROBE_COUNT).
 *
 * tests/abi/abi.sh compiles each probe against p2psim's headers and the
 * toolkit's and compares the symbols the object imports: that is exactly
 * the set of C entry points the overload reaches (cuda_runtime.h lists the
 * expected mapping). A whole program cannot show this, since it also calls
 * the C functions directly.
 */
#include <cuda_runtime.h>

#define PROBE_COUNT 35

/* Stand-in for the host stub of a kernel. */
static void stub(float *dst, const float *src, int n)
{
    (void)dst;
    (void)src;
    (void)n;
}

/* Stand-in for a __device__ variable's host shadow. */
static float symbol[4];

struct smem_of_block {
    size_t operator()(int block) const { return (size_t)block * 8; }
};

cudaError_t probe(cudaStream_t s, cudaMemPool_t pool, cudaEvent_t *e);

cudaError_t probe(cudaStream_t s, cudaMemPool_t pool, cudaEvent_t *e)
{
    float *p = 0;
    void *v = 0;
    int a = 0, b = 0, n = 1;
    size_t smem = 0;
    void *args[3] = {&p, &p, &n};
    dim3 grid(2), block(128);

    (void)stub;
    (void)symbol;
    (void)s;
    (void)pool;
    (void)e;
    (void)v;
    (void)a;
    (void)b;
    (void)smem;
    (void)args;
    (void)grid;
    (void)block;
#if PROBE == 1
    return cudaMalloc(&p, 4);
#elif PROBE == 2
    return cudaMallocHost(&p, 4);
#elif PROBE == 3
    return cudaMallocHost(&p, 4, cudaHostAllocPortable);
#elif PROBE == 4
    return cudaMallocHost(&v, 4, cudaHostAllocPortable);
#elif PROBE == 5
    return cudaMallocHost(&v, 4);
#elif PROBE == 6
    return cudaHostAlloc(&p, 4, cudaHostAllocMapped);
#elif PROBE == 7
    return cudaHostGetDevicePointer(&p, v, 0);
#elif PROBE == 8
    return cudaMallocManaged(&p, 4);
#elif PROBE == 9
    return cudaMallocManaged(&v, 4);
#elif PROBE == 10
    return cudaStreamAttachMemAsync(s, p);
#elif PROBE == 11
    return cudaMallocAsync(&p, 4, s);
#elif PROBE == 12
    return cudaMallocAsync(&p, 4, pool, s);
#elif PROBE == 13
    return cudaMallocAsync(&v, 4, pool, s);
#elif PROBE == 14
    return cudaMallocFromPoolAsync(&p, 4, pool, s);
#elif PROBE == 15
    return cudaEventCreate(e, cudaEventDisableTiming);
#elif PROBE == 16
    return cudaEventCreate(e);
#elif PROBE == 17
    return cudaLaunchKernel(stub, grid, block, args);
#elif PROBE == 18
    return cudaLaunchCooperativeKernel(stub, grid, block, args, 0, s);
#elif PROBE == 19
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&a, stub, 128, 0);
#elif PROBE == 20
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        &a, stub, 128, 0, cudaOccupancyDisableCachingOverride);
#elif PROBE == 21
    return cudaOccupancyAvailableDynamicSMemPerBlock(&smem, stub, 1, 128);
#elif PROBE == 22
    return cudaOccupancyMaxPotentialBlockSize(&a, &b, (const void *)stub);
#elif PROBE == 23
    return cudaOccupancyMaxPotentialBlockSizeWithFlags(
        &a, &b, (const void *)stub, 64, 256, cudaOccupancyDefault);
#elif PROBE == 24
    return cudaOccupancyMaxPotentialBlockSizeVariableSMem(
        &a, &b, (const void *)stub, smem_of_block());
#elif PROBE == 25
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        &a, &b, (const void *)stub, smem_of_block(), 0, cudaOccupancyDefault);
#elif PROBE == 26
    return cudaStreamWaitEvent(s, *e);
#elif PROBE == 27
    return cudaMallocPitch(&p, &smem, 100, 10);
#elif PROBE == 28
    return cudaMemcpyToSymbol(symbol, p, 4);
#elif PROBE == 29
    return cudaMemcpyToSymbolAsync(symbol, p, 4, 4, cudaMemcpyDefault, s);
#elif PROBE == 30
    return cudaMemcpyFromSymbol(p, symbol, 4);
#elif PROBE == 31
    return cudaMemcpyFromSymbolAsync(p, symbol, 4, 0, cudaMemcpyDefault, s);
#elif PROBE == 32
    return cudaGetSymbolAddress(&v, symbol);
#elif PROBE == 33
    return cudaGetSymbolSize(&smem, symbol);
#elif PROBE == 34
    {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = grid;
        cfg.blockDim = block;
        cfg.stream = s;
        return cudaLaunchKernelEx(&cfg, stub, p, p, 3);
    }
#elif PROBE == 35
    {
        cudaLaunchConfig_t cfg = {};
        return cudaLaunchKernelEx(&cfg, (cudaKernel_t)v, p, p, n);
    }
#else
#error "PROBE must be 1 ... PROBE_COUNT"
#endif
}
