/*
 * data/hgx-h200-x2/peer_enable_probe.cu - what the first copies after
 * cudaDeviceEnablePeerAccess cost. As p2pBandwidthLatencyTest does per
 * pair: enable peer access s -> d and d -> s, measure on a stream of GPU
 * s, disable both. Here the copies queue behind a spin kernel, with an
 * event after the first copy and after the tenth: "first" is the first
 * copy's time on the GPU, "next" the mean of the nine after it (us). Three
 * enable/disable cycles per direction and size (16 B, 4 MiB).
 *
 *   nvcc -O2 -arch=sm_90 -o peer_enable_probe peer_enable_probe.cu
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
    const size_t max = (size_t)4 << 20;
    void *buf[2];
    cudaStream_t st[2];
    cudaEvent_t ev[2][3];
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaMalloc(&buf[g], max));
        CK(cudaMemset(buf[g], g, max));
        CK(cudaStreamCreateWithFlags(&st[g], cudaStreamNonBlocking));
        for (int k = 0; k < 3; k++) {
            CK(cudaEventCreate(&ev[g][k]));
        }
    }
    const size_t sizes[] = { 16, max };
    printf("# s->d bytes cycle first_us next_us\n");
    for (int s = 0; s < 2; s++) {
        int d = 1 - s;
        for (size_t sz : sizes) {
            for (int cycle = 1; cycle <= 3; cycle++) {
                CK(cudaSetDevice(s));
                CK(cudaDeviceEnablePeerAccess(d, 0));
                CK(cudaSetDevice(d));
                CK(cudaDeviceEnablePeerAccess(s, 0));
                CK(cudaSetDevice(s));
                *flag = 0;
                spin<<<1, 1, 0, st[s]>>>(flag);
                CK(cudaEventRecord(ev[s][0], st[s]));
                CK(cudaMemcpyPeerAsync(buf[d], d, buf[s], s, sz, st[s]));
                CK(cudaEventRecord(ev[s][1], st[s]));
                for (int i = 0; i < 9; i++) {
                    CK(cudaMemcpyPeerAsync(buf[d], d, buf[s], s, sz, st[s]));
                }
                CK(cudaEventRecord(ev[s][2], st[s]));
                *flag = 1;
                CK(cudaEventSynchronize(ev[s][2]));
                float a = 0, b = 0;
                CK(cudaEventElapsedTime(&a, ev[s][0], ev[s][1]));
                CK(cudaEventElapsedTime(&b, ev[s][1], ev[s][2]));
                printf("%d->%d %zu %d %.3f %.3f\n", s, d, sz, cycle,
                       a * 1000.0, b * 1000.0 / 9);
                CK(cudaSetDevice(s));
                CK(cudaDeviceDisablePeerAccess(d));
                CK(cudaSetDevice(d));
                CK(cudaDeviceDisablePeerAccess(s));
            }
        }
    }
    return 0;
}
