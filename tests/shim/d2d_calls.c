/*
 * tests/shim/d2d_calls.c - back-to-back small device-to-device copies, the
 * case bound by the host cost of each cudaMemcpyAsync call (issue 9):
 *
 *   d2d_calls [N]
 *
 * N (default 64) copies of 4 bytes within GPU 0 on a non-blocking stream,
 * between two events. Prints the events' elapsed time over N:
 *
 *   per copy: 5.7000 us
 *
 * When the GPU finishes each copy before the host has issued the next,
 * copy k starts when call k returns, so the time per copy is the host's
 * cost per call, plus the last copy's GPU time spread over N.
 * api-costs.sh runs it with different api-costs.memcpy-async-d2d.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            printf("%s: %s (%d)\n", #call, cudaGetErrorString(e_), (int)e_);  \
            return 1;                                                         \
        }                                                                     \
    } while (0)

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 64;
    if (n < 1 || n > 100000) {
        printf("usage: d2d_calls [N], N from 1 to 100000\n");
        return 2;
    }
    void *a, *b;
    cudaStream_t s;
    cudaEvent_t start, stop;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&a, 4));
    CHECK(cudaMalloc(&b, 4));
    CHECK(cudaMemset(a, 0x5a, 4));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(start, s));
    for (long i = 0; i < n; i++) {
        CHECK(cudaMemcpyAsync(b, a, 4, cudaMemcpyDeviceToDevice, s));
    }
    CHECK(cudaEventRecord(stop, s));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    unsigned char got[4];
    CHECK(cudaMemcpy(got, b, 4, cudaMemcpyDeviceToHost));
    if (got[0] != 0x5a || got[3] != 0x5a) {
        printf("copied bytes are wrong: %02x %02x\n", got[0], got[3]);
        return 1;
    }
    printf("copies: %ld\n", n);
    printf("per copy: %.4f us\n", (double)ms * 1000.0 / (double)n);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    return 0;
}
