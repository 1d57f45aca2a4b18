/*
 * data/h200-x1/d2d_sync_probe.cu - does a synchronous cudaMemcpy between
 * two buffers of one GPU wait for the copy? A spin kernel on the legacy
 * stream holds the GPU until a host thread raises a flag 100 ms later;
 * the copy is queued behind it. If cudaMemcpy returns in microseconds it
 * did not wait for the copy (nor for the kernel before it); if it takes
 * ~100 ms it did. The same for host-to-device and device-to-host from
 * pinned memory, for comparison.
 *
 *   nvcc -O2 -arch=sm_90 -o d2d_sync_probe d2d_sync_probe.cu
 *   ./d2d_sync_probe > d2d_sync_probe.txt
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
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

static double ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - t0).count();
}

int main()
{
    int *f;
    void *a, *b, *h;
    const size_t n = 4096;
    CK(cudaHostAlloc(&f, sizeof(int), cudaHostAllocMapped));
    CK(cudaMalloc(&a, n));
    CK(cudaMalloc(&b, n));
    CK(cudaMallocHost(&h, n));
    CK(cudaMemset(a, 1, n));
    CK(cudaDeviceSynchronize());
    const char *names[] = { "D2D", "H2D", "D2H" };
    printf("# copy  call_ms  (gate released after 100 ms)\n");
    for (int k = 0; k < 3; k++) {
        void *dst = k == 0 ? b : k == 1 ? a : h;
        const void *src = k == 0 ? a : k == 1 ? h : a;
        *(volatile int *)f = 0;
        gate<<<1, 1>>>((volatile int *)f);
        std::thread t([f] {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            *(volatile int *)f = 1;
        });
        auto t0 = std::chrono::steady_clock::now();
        CK(cudaMemcpy(dst, src, n, cudaMemcpyDefault));
        double call = ms_since(t0);
        t.join();
        CK(cudaDeviceSynchronize());
        printf("%s %.3f\n", names[k], call);
    }
    return 0;
}
