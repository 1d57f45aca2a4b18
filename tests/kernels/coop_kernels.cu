// tests/kernels/coop_kernels.cu - cooperative launches built by nvcc
// (-cudart shared) and run unmodified on the simulated machine
// (tests/kernels/coop.sh):
//
//   coop_kernels sync      every CTA writes its slot, grid.sync(), then
//                          reads every other CTA's slot; three rounds, so
//                          the grid barrier is used again after it opened
//   coop_kernels toolarge  a grid of one block more than
//                          cudaOccupancyMaxActiveBlocksPerMultiprocessor x
//                          SMs is refused with
//                          cudaErrorCooperativeLaunchTooLarge, the largest
//                          one that fits runs
//   coop_kernels plain     grid.sync() in a kernel launched with <<<>>>:
//                          the workspace is missing and the kernel traps
//
// Each prints "ok" lines the script greps, and exits non-zero on a wrong
// result.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#include "cuda_ck.h"

// Round r: CTA b writes slot[b] = b * 10 + r, the grid syncs, and thread 0
// of every CTA sums all slots; the next round overwrites them only after
// a second grid.sync(), so a barrier that opened early shows as a wrong
// sum. bad[b] counts the CTA's wrong sums.
__global__ void sync_kernel(unsigned *slot, unsigned *bad, int rounds)
{
    cg::grid_group grid = cg::this_grid();
    unsigned n = gridDim.x, b = blockIdx.x;
    for (int r = 0; r < rounds; r++) {
        if (threadIdx.x == 0) {
            slot[b] = b * 10 + (unsigned)r;
        }
        grid.sync();
        if (threadIdx.x == 0) {
            unsigned sum = 0;
            for (unsigned i = 0; i < n; i++) {
                sum += slot[i];
            }
            if (sum != 10 * (n * (n - 1) / 2) + n * (unsigned)r) {
                bad[b]++;
            }
        }
        grid.sync();
    }
}

static int do_sync(int blocks, int threads, int rounds)
{
    unsigned *slot, *bad;
    CK(cudaMalloc(&slot, blocks * sizeof(unsigned)));
    CK(cudaMalloc(&bad, blocks * sizeof(unsigned)));
    CK(cudaMemset(bad, 0, blocks * sizeof(unsigned)));
    void *args[] = {&slot, &bad, &rounds};
    CK(cudaLaunchCooperativeKernel((void *)sync_kernel, dim3(blocks),
                                   dim3(threads), args, 0, 0));
    CK(cudaDeviceSynchronize());
    unsigned *h = (unsigned *)calloc(blocks, sizeof(unsigned));
    CK(cudaMemcpy(h, bad, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned total = 0;
    for (int i = 0; i < blocks; i++) {
        total += h[i];
    }
    free(h);
    CK(cudaFree(slot));
    CK(cudaFree(bad));
    printf("grid.sync %d blocks x %d threads, %d rounds: %u wrong sums: %s\n",
           blocks, threads, rounds, total, total ? "FAILED" : "ok");
    return total ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "sync";
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    if (strcmp(what, "sync") == 0) {
        return do_sync(2 * sms, 64, 3);
    }
    if (strcmp(what, "toolarge") == 0) {
        int per_sm = 0, threads = 1024;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sync_kernel,
                                                         threads, 0));
        int max = per_sm * sms;
        unsigned *slot = NULL, *bad = NULL;
        int rounds = 1;
        void *args[] = {&slot, &bad, &rounds};
        cudaError_t e = cudaLaunchCooperativeKernel(
            (void *)sync_kernel, dim3(max + 1), dim3(threads), args, 0, 0);
        printf("%d blocks (at most %d x %d SMs): %s: %s\n", max + 1, per_sm,
               sms, cudaGetErrorName(e),
               e == cudaErrorCooperativeLaunchTooLarge ? "ok" : "FAILED");
        if (e != cudaErrorCooperativeLaunchTooLarge) {
            return 1;
        }
        return do_sync(max, threads, 1);
    }
    if (strcmp(what, "plain") == 0) {
        unsigned *slot, *bad;
        CK(cudaMalloc(&slot, 4 * sizeof(unsigned)));
        CK(cudaMalloc(&bad, 4 * sizeof(unsigned)));
        sync_kernel<<<4, 32>>>(slot, bad, 1);
        cudaError_t e = cudaDeviceSynchronize();
        printf("grid.sync without a cooperative launch: %s: %s\n",
               cudaGetErrorName(e), e != cudaSuccess ? "ok" : "FAILED");
        return e != cudaSuccess ? 0 : 1;
    }
    fprintf(stderr, "usage: coop_kernels sync|toolarge|plain\n");
    return 2;
}
