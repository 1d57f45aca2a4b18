/*
 * tests/abi/occupancy.cpp - the block-size search of
 * cudaOccupancyMaxPotentialBlockSize*() in cuda_runtime.h, run against a
 * fake runtime defined here, so that p2psim's implementation and the
 * toolkit's can be compared result by result (tests/abi/abi.sh builds this
 * file against both header sets and diffs the output).
 *
 * The fake runtime answers the four device attributes, the kernel's
 * maximum block size, and blocks per multiprocessor from a simple model
 * (thread, block-count and shared-memory limits). The program sweeps
 * devices, kernels, block-size limits and shared-memory functions.
 */
#include <stdio.h>

#include <cuda_runtime.h>

static int g_sm_threads, g_warp, g_dev_block, g_sm_count, g_func_block;
static size_t g_sm_smem;

extern "C" {
cudaError_t CUDARTAPI cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDeviceGetAttribute(int *value,
                                             enum cudaDeviceAttr attr,
                                             int device)
{
    (void)device;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerMultiProcessor:
        *value = g_sm_threads;
        return cudaSuccess;
    case cudaDevAttrWarpSize:
        *value = g_warp;
        return cudaSuccess;
    case cudaDevAttrMaxThreadsPerBlock:
        *value = g_dev_block;
        return cudaSuccess;
    case cudaDevAttrMultiProcessorCount:
        *value = g_sm_count;
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

cudaError_t CUDARTAPI cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
                                            const void *func)
{
    (void)func;
    attr->maxThreadsPerBlock = g_func_block;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize,
    unsigned int flags)
{
    int warps, by_threads, n;

    (void)func;
    (void)flags;
    if (blockSize <= 0) {
        return cudaErrorInvalidValue;
    }
    warps = (blockSize + g_warp - 1) / g_warp;
    by_threads = g_sm_threads / (warps * g_warp);
    n = by_threads < 32 ? by_threads : 32;
    if (dynamicSMemSize > 0 && (int)(g_sm_smem / dynamicSMemSize) < n) {
        n = (int)(g_sm_smem / dynamicSMemSize);
    }
    *numBlocks = n;
    return cudaSuccess;
}
}

struct smem_per_thread {
    size_t bytes;
    size_t operator()(int block) const { return bytes * (size_t)block; }
};

static void stub(void) {}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Every block-size limit and shared-memory choice for the current device
 * and kernel. */
static void sweep(void)
{
    static const int limits[] = {0, -5, 33, 200, 1000, 4096};
    static const size_t fixed_smem[] = {0, 1000, 30000};
    static const size_t per_thread[] = {0, 48, 200};
    const void *k = (const void *)stub;
    unsigned d, e;

    for (d = 0; d < COUNT(limits); d++) {
        for (e = 0; e < COUNT(fixed_smem); e++) {
            int grid = -1, block = -1;
            cudaError_t err = cudaOccupancyMaxPotentialBlockSize(
                &grid, &block, k, fixed_smem[e], limits[d]);
            printf("fixed %d %d %d %d %zu: %d %d %d\n", g_sm_threads,
                   g_dev_block, g_func_block, limits[d], fixed_smem[e],
                   (int)err, grid, block);
        }
        for (e = 0; e < COUNT(per_thread); e++) {
            int grid = -1, block = -1;
            smem_per_thread fn = {per_thread[e]};
            cudaError_t err =
                cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
                    &grid, &block, k, fn, limits[d], cudaOccupancyDefault);
            printf("variable %d %d %d %d %zu: %d %d %d\n", g_sm_threads,
                   g_dev_block, g_func_block, limits[d], per_thread[e],
                   (int)err, grid, block);
        }
    }
}

int main(void)
{
    static const int sm_threads[] = {1024, 1536, 2048};
    static const int dev_block[] = {512, 1024};
    static const int func_block[] = {96, 250, 640, 1024};
    unsigned a, b, c;
    int grid = -1, block = -1;
    cudaError_t err;

    g_warp = 32;
    g_sm_count = 132;
    g_sm_smem = 228 * 1024;
    for (a = 0; a < COUNT(sm_threads); a++) {
        for (b = 0; b < COUNT(dev_block); b++) {
            for (c = 0; c < COUNT(func_block); c++) {
                g_sm_threads = sm_threads[a];
                g_dev_block = dev_block[b];
                g_func_block = func_block[c];
                sweep();
            }
        }
    }
    err = cudaOccupancyMaxPotentialBlockSize(&grid, &block, (const void *)0);
    printf("null kernel: %d %d %d\n", (int)err, grid, block);
    return 0;
}
