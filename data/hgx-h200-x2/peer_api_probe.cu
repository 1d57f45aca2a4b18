/*
 * data/hgx-h200-x2/peer_api_probe.cu - does the API a peer copy is made
 * with change its time on the GPU? 100 copies of 16 bytes from GPU s to
 * GPU d (peer access on both ways) queued behind a spin kernel on a
 * non-blocking stream of GPU s, timed by events around them, as
 * p2pBandwidthLatencyTest's latency matrix does; per copy, us:
 *   async   cudaMemcpyAsync(dst, src, 16, cudaMemcpyDefault, stream)
 *   peer    cudaMemcpyPeerAsync(dst, d, src, s, 16, stream)
 * for s -> d = 0 -> 1 and 1 -> 0, three times each; then the same with
 * peer access disabled both ways (staged through host memory by the
 * driver: the P2P=Disabled latency matrix).
 *
 *   nvcc -O2 -arch=sm_90 -o peer_api_probe peer_api_probe.cu
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

__global__ void spin(volatile int *flag)
{
    while (*flag == 0) {
    }
}

static volatile int *flag;

static double per_copy(int s, int d, void *dst, void *src, bool peer,
                       cudaStream_t st, cudaEvent_t e0, cudaEvent_t e1)
{
    const int n = 100;
    CK(cudaSetDevice(s));
    *flag = 0;
    spin<<<1, 1, 0, st>>>(flag);
    CK(cudaEventRecord(e0, st));
    for (int i = 0; i < n; i++) {
        if (peer) {
            CK(cudaMemcpyPeerAsync(dst, d, src, s, 16, st));
        } else {
            CK(cudaMemcpyAsync(dst, src, 16, cudaMemcpyDefault, st));
        }
    }
    CK(cudaEventRecord(e1, st));
    *flag = 1;
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1000.0 / n;
}

int main()
{
    int n_dev = 0;
    CK(cudaGetDeviceCount(&n_dev));
    if (n_dev < 2) {
        printf("# needs two GPUs\n");
        return 0;
    }
    int *f;
    CK(cudaHostAlloc(&f, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
    flag = f;
    void *buf[2];
    cudaStream_t st[2];
    cudaEvent_t e0[2], e1[2];
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaDeviceEnablePeerAccess(1 - g, 0));
        CK(cudaMalloc(&buf[g], 1 << 20));
        CK(cudaStreamCreateWithFlags(&st[g], cudaStreamNonBlocking));
        CK(cudaEventCreate(&e0[g]));
        CK(cudaEventCreate(&e1[g]));
    }
    printf("# per copy, us: 100 x 16 B queued behind a spin kernel\n");
    printf("# dir api rep1 rep2 rep3\n");
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            for (int g = 0; g < 2; g++) {
                CK(cudaSetDevice(g));
                CK(cudaDeviceDisablePeerAccess(1 - g));
            }
            printf("# peer access disabled: staged\n");
        }
        for (int s = 0; s < 2; s++) {
            int d = 1 - s;
            for (int peer = 0; peer < 2; peer++) {
                /* a warm-up, then three */
                per_copy(s, d, buf[d], buf[s], peer, st[s], e0[s], e1[s]);
                printf("%d->%d %s", s, d, peer ? "peer " : "async");
                for (int r = 0; r < 3; r++) {
                    printf(" %.3f", per_copy(s, d, buf[d], buf[s], peer,
                                             st[s], e0[s], e1[s]));
                }
                printf("\n");
            }
        }
    }
    return 0;
}
