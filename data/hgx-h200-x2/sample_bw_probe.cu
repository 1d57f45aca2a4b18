/*
 * data/hgx-h200-x2/sample_bw_probe.cu - where the 361-363 GB/s of the
 * unidirectional P2P matrix (bandwidth_latency.real.txt) comes from, when
 * the same copies run at 391 GB/s in peer_touch_probe. The measurement of
 * p2pBandwidthLatencyTest, (i, j) = (0, 1) and (1, 0): buffers of 40M ints
 * zeroed with cudaMemset, peer access enabled both ways, 5 x 160 MB
 * cudaMemcpyPeerAsync on a non-blocking stream of GPU i between two
 * events, peer access disabled. Three ways of holding the stream while the
 * work is queued:
 *   kernel  the sample's: a one-thread kernel spinning on a pinned flag
 *   none    no hold: the copies start as they are queued
 *   memset  tests/programs/bandwidth_latency's gate at its largest: the
 *           stream waits for an event behind host functions and memsets
 *           of a 256 MiB scratch buffer on another stream of GPU i
 * Each is run three times per pair, with a fresh enable each time. Then
 * the kernel way again with new buffers before each run (cudaFree,
 * cudaMalloc, cudaMemset, as the program does per matrix): both buffers
 * (new-both), only the destination (new-dst), only the source (new-src).
 *
 *   nvcc -O2 -arch=sm_90 -o sample_bw_probe sample_bw_probe.cu
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CK(x)                                                                \
    do {                                                                     \
        cudaError_t e_ = (x);                                                \
        if (e_ != cudaSuccess) {                                             \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));        \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define N_ELEMS 40000000
#define REPEAT 5
#define SCRATCH ((size_t)256 << 20)

__global__ void spin(volatile int *flag)
{
    while (*flag == 0) {
    }
}

static void noop(void *) {}

int main()
{
    int n_dev = 0;
    CK(cudaGetDeviceCount(&n_dev));
    if (n_dev < 2) {
        printf("# needs two GPUs\n");
        return 0;
    }
    int *f;
    CK(cudaHostAlloc(&f, sizeof(int), cudaHostAllocMapped |
                                          cudaHostAllocPortable));
    volatile int *flag = f;
    int *buf[2];
    char *scratch[2];
    cudaStream_t st[2], gate[2];
    cudaEvent_t start[2], stop[2], open[2];
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaMalloc(&buf[g], N_ELEMS * sizeof(int)));
        CK(cudaMemset(buf[g], 0, N_ELEMS * sizeof(int)));
        CK(cudaMalloc(&scratch[g], SCRATCH));
        CK(cudaStreamCreateWithFlags(&st[g], cudaStreamNonBlocking));
        CK(cudaStreamCreateWithFlags(&gate[g], cudaStreamNonBlocking));
        CK(cudaEventCreate(&start[g]));
        CK(cudaEventCreate(&stop[g]));
        CK(cudaEventCreate(&open[g]));
        CK(cudaDeviceSynchronize());
    }
    const char *ways[] = { "kernel", "none", "memset", "new-both",
                           "new-dst", "new-src" };
    printf("# way i->j run GB/s\n");
    for (int w = 0; w < 6; w++) {
        for (int i = 0; i < 2; i++) {
            int j = 1 - i;
            for (int run = 1; run <= 3; run++) {
                for (int g = 0; g < 2; g++) {
                    bool renew = (w == 3) || (w == 4 && g == j) ||
                                 (w == 5 && g == i);
                    if (renew) {
                        CK(cudaSetDevice(g));
                        CK(cudaFree(buf[g]));
                        CK(cudaMalloc(&buf[g], N_ELEMS * sizeof(int)));
                        CK(cudaMemset(buf[g], 0, N_ELEMS * sizeof(int)));
                        CK(cudaDeviceSynchronize());
                    }
                }
                CK(cudaSetDevice(i));
                CK(cudaDeviceEnablePeerAccess(j, 0));
                CK(cudaSetDevice(j));
                CK(cudaDeviceEnablePeerAccess(i, 0));
                CK(cudaSetDevice(i));
                CK(cudaStreamSynchronize(st[i]));
                if (w == 0 || w >= 3) {
                    *flag = 0;
                    spin<<<1, 1, 0, st[i]>>>(flag);
                } else if (w == 2) {
                    for (int k = 0; k < 8; k++) {
                        CK(cudaLaunchHostFunc(gate[i], noop, NULL));
                        CK(cudaMemsetAsync(scratch[i], k, SCRATCH, gate[i]));
                    }
                    CK(cudaEventRecord(open[i], gate[i]));
                    CK(cudaStreamWaitEvent(st[i], open[i], 0));
                }
                CK(cudaEventRecord(start[i], st[i]));
                for (int r = 0; r < REPEAT; r++) {
                    CK(cudaMemcpyPeerAsync(buf[j], j, buf[i], i,
                                           N_ELEMS * sizeof(int), st[i]));
                }
                CK(cudaEventRecord(stop[i], st[i]));
                *flag = 1;
                CK(cudaStreamSynchronize(st[i]));
                float ms = 0;
                CK(cudaEventElapsedTime(&ms, start[i], stop[i]));
                printf("%s %d->%d %d %.2f\n", ways[w], i, j, run,
                       (double)N_ELEMS * sizeof(int) * REPEAT / 1e9 /
                           (ms / 1e3));
                CK(cudaDeviceDisablePeerAccess(j));
                CK(cudaSetDevice(j));
                CK(cudaDeviceDisablePeerAccess(i));
            }
        }
    }
    return 0;
}
