/*
 * data/hgx-h200-x2/ce_pipeline_probe.cu - how a real GPU runs back-to-back
 * copies on one stream: the per-copy time with the copies queued behind a
 * spin kernel (the GPU's own pace, as p2pBandwidthLatencyTest measures
 * it), one copy alone behind the same gate (its full latency), and the
 * copies enqueued back to back without a gate (as copy_sweep measures),
 * with the host time per call.
 *
 *   nvcc -O2 -arch=sm_90 -o ce_pipeline_probe ce_pipeline_probe.cu
 *   ./ce_pipeline_probe > ce_pipeline_probe.txt
 *
 * Output: one line per direction and size,
 *   DIR BYTES queued_us single_us ungated_us host_call_us
 * DIR: H2D, D2H (pinned host memory), D2D (two buffers), D2Dsame (a
 * buffer onto itself, the diagonal of p2pBandwidthLatencyTest), and with
 * a second GPU, P2P (device 0 to device 1, peer access enabled).
 */
#include <chrono>
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

__global__ void gate(volatile int *flag)
{
    while (*flag == 0) {
    }
}

static cudaStream_t s;
static cudaEvent_t ev0, ev1;
static volatile int *flag;

/* Per copy, us, of n copies queued behind the gate (gated) or not. */
static double run(void *dst, const void *src, size_t n_bytes, int n,
                  bool gated, double *host_us)
{
    CK(cudaMemcpyAsync(dst, src, n_bytes, cudaMemcpyDefault, s));
    CK(cudaStreamSynchronize(s));
    if (gated) {
        *flag = 0;
        gate<<<1, 1, 0, s>>>(flag);
    }
    CK(cudaEventRecord(ev0, s));
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; i++) {
        CK(cudaMemcpyAsync(dst, src, n_bytes, cudaMemcpyDefault, s));
    }
    auto t1 = std::chrono::steady_clock::now();
    CK(cudaEventRecord(ev1, s));
    if (gated) {
        *flag = 1;
    }
    CK(cudaEventSynchronize(ev1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, ev0, ev1));
    if (host_us) {
        *host_us = std::chrono::duration<double, std::micro>(t1 - t0).count() /
                   n;
    }
    return ms * 1000.0 / n;
}

int main()
{
    const size_t max = (size_t)64 << 20;
    void *h, *a, *b, *c = NULL;
    int n_dev = 0;
    CK(cudaGetDeviceCount(&n_dev));
    if (n_dev > 1) {
        CK(cudaSetDevice(1));
        CK(cudaDeviceEnablePeerAccess(0, 0));
        CK(cudaMalloc(&c, max));
        CK(cudaSetDevice(0));
        CK(cudaDeviceEnablePeerAccess(1, 0));
    }
    int *f;
    CK(cudaSetDevice(0));
    CK(cudaHostAlloc(&f, sizeof(int), cudaHostAllocMapped));
    flag = f;
    CK(cudaMallocHost(&h, max));
    CK(cudaMalloc(&a, max));
    CK(cudaMalloc(&b, max));
    CK(cudaMemset(a, 1, max));
    CK(cudaMemset(b, 2, max));
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&ev0));
    CK(cudaEventCreate(&ev1));
    const size_t sizes[] = { 4, 4096, 65536, 262144, 1 << 20, 4 << 20,
                             16 << 20, 64 << 20 };
    const char *names[] = { "H2D", "D2H", "D2D", "D2Dsame", "P2P" };
    printf("# DIR BYTES queued_us single_us ungated_us host_call_us\n");
    for (int d = 0; d < (c ? 5 : 4); d++) {
        void *dst = d == 0 ? a : d == 1 ? h : d == 2 ? b : d == 3 ? a : c;
        const void *src = d == 0 ? h : a;
        for (size_t sz : sizes) {
            int n = sz >= (16 << 20) ? 20 : 100;
            double hu = 0;
            double q = run(dst, src, sz, n, true, NULL);
            double one = run(dst, src, sz, 1, true, NULL);
            double u = run(dst, src, sz, n, false, &hu);
            printf("%s %zu %.3f %.3f %.3f %.3f\n", names[d], sz, q, one, u,
                   hu);
            fflush(stdout);
        }
    }
    return 0;
}
