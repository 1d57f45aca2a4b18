/*
 * data/hgx-h200-x2/nvlink_rate_probe.cu - what limits a P2P copy over
 * NV18: the links or one copy engine? GPU 0 -> GPU 1 (peer access on),
 * 256 MiB in total per measurement, timed with events around the work
 * after a warm-up:
 *   ce N      N streams of GPU 0, each copying 256/N MiB with
 *             cudaMemcpyPeerAsync at once (N copy engines if the driver
 *             spreads the streams over them)
 *   pull N    the same from streams of GPU 1 (GPU 1's engines read GPU 0)
 *   bidir N   N streams of each GPU pushing to the other at once (rate
 *             per direction)
 *   sm B T    a grid-stride int4 copy kernel on GPU 0 writing GPU 1's
 *             memory with B blocks of T threads
 *
 *   nvcc -O2 -arch=sm_90 -o nvlink_rate_probe nvlink_rate_probe.cu
 *   ./nvlink_rate_probe > nvlink_rate_probe.txt
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                \
    do {                                                                     \
        cudaError_t e_ = (x);                                                \
        if (e_ != cudaSuccess) {                                             \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));        \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define TOTAL ((size_t)256 << 20)
#define MAXS 4

static char *buf[2][2];             /* [gpu][0: source, 1: destination] */
static cudaStream_t st[2][MAXS];
static cudaEvent_t ev[2][2];

__global__ void copy_kernel(int4 *dst, const int4 *src, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) {
        dst[i] = src[i];
    }
}

/*
 * GB/s of one direction's total bytes over the span of both events:
 * n_push streams of GPU 0 copy to GPU 1; n_b streams of GPU 1 copy
 * GPU 0 -> GPU 1 too (pull) or, with reverse, GPU 1 -> GPU 0.
 */
static double run(int n_push, int n_pull, bool reverse, int reps)
{
    for (int r = 0; r <= reps; r++) {
        if (r == 1) {
            CK(cudaSetDevice(0));
            CK(cudaDeviceSynchronize());
            CK(cudaSetDevice(1));
            CK(cudaDeviceSynchronize());
            CK(cudaSetDevice(0));
            CK(cudaEventRecord(ev[0][0], st[0][0]));
            for (int s = 1; s < n_push || s < n_pull; s++) {
                CK(cudaStreamWaitEvent(st[0][s], ev[0][0], 0));
            }
            for (int s = 0; s < n_pull; s++) {
                CK(cudaStreamWaitEvent(st[1][s], ev[0][0], 0));
            }
        }
        for (int s = 0; s < n_push; s++) {
            size_t part = TOTAL / n_push;
            CK(cudaMemcpyPeerAsync(buf[1][1] + s * part, 1,
                                   buf[0][0] + s * part, 0, part, st[0][s]));
        }
        for (int s = 0; s < n_pull; s++) {
            size_t part = TOTAL / n_pull;
            if (reverse) {
                CK(cudaMemcpyPeerAsync(buf[0][1] + s * part, 0,
                                       buf[1][0] + s * part, 1, part,
                                       st[1][s]));
            } else {
                CK(cudaMemcpyPeerAsync(buf[1][0] + s * part, 1,
                                       buf[0][1] + s * part, 0, part,
                                       st[1][s]));
            }
        }
    }
    /* the end: every stream's work joined into stream 0 of GPU 0 */
    CK(cudaSetDevice(0));
    for (int s = 1; s < n_push; s++) {
        CK(cudaEventRecord(ev[0][1], st[0][s]));
        CK(cudaStreamWaitEvent(st[0][0], ev[0][1], 0));
    }
    for (int s = 0; s < n_pull; s++) {
        CK(cudaSetDevice(1));
        CK(cudaEventRecord(ev[1][1], st[1][s]));
        CK(cudaSetDevice(0));
        CK(cudaStreamWaitEvent(st[0][0], ev[1][1], 0));
    }
    CK(cudaEventRecord(ev[0][1], st[0][0]));
    CK(cudaEventSynchronize(ev[0][1]));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, ev[0][0], ev[0][1]));
    return (double)TOTAL * reps / (ms * 1e-3) / 1e9;
}

static double run_sm(int blocks, int threads, int reps)
{
    CK(cudaSetDevice(0));
    size_t n = TOTAL / sizeof(int4);
    copy_kernel<<<blocks, threads, 0, st[0][0]>>>((int4 *)buf[1][1],
                                                   (const int4 *)buf[0][0], n);
    CK(cudaEventRecord(ev[0][0], st[0][0]));
    for (int r = 0; r < reps; r++) {
        copy_kernel<<<blocks, threads, 0, st[0][0]>>>(
            (int4 *)buf[1][1], (const int4 *)buf[0][0], n);
    }
    CK(cudaEventRecord(ev[0][1], st[0][0]));
    CK(cudaEventSynchronize(ev[0][1]));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, ev[0][0], ev[0][1]));
    return (double)TOTAL * reps / (ms * 1e-3) / 1e9;
}

int main()
{
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    if (n < 2) {
        printf("# needs two GPUs\n");
        return 0;
    }
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaDeviceEnablePeerAccess(1 - g, 0));
        for (int k = 0; k < 2; k++) {
            CK(cudaMalloc(&buf[g][k], TOTAL));
            CK(cudaMemset(buf[g][k], g + k, TOTAL));
        }
        for (int s = 0; s < MAXS; s++) {
            CK(cudaStreamCreateWithFlags(&st[g][s], cudaStreamNonBlocking));
        }
        CK(cudaEventCreate(&ev[g][0]));
        CK(cudaEventCreate(&ev[g][1]));
    }
    int props = 0;
    CK(cudaDeviceGetAttribute(&props, cudaDevAttrAsyncEngineCount, 0));
    printf("# GPU 0 -> GPU 1, 256 MiB per repetition; asyncEngineCount %d\n",
           props);
    for (int k = 1; k <= 3; k++) {
        printf("ce %d %.1f GB/s\n", k, run(k, 0, false, 5));
    }
    for (int k = 1; k <= 2; k++) {
        printf("pull %d %.1f GB/s\n", k, run(0, k, false, 5));
    }
    for (int k = 1; k <= 2; k++) {
        printf("bidir %d %.1f GB/s per direction\n", k, run(k, k, true, 5));
    }
    const int grid[][2] = { { 132, 1024 }, { 264, 1024 }, { 528, 1024 },
                            { 1056, 512 } };
    for (auto &gt : grid) {
        printf("sm %d %d %.1f GB/s\n", gt[0], gt[1],
               run_sm(gt[0], gt[1], 5));
    }
    return 0;
}
