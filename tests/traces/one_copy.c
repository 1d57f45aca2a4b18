/*
 * tests/traces/one_copy.c - one peer copy of a known size, nothing else on
 * the bus, for tests/traces/cli.sh: a trace of it must carry exactly that
 * many bytes of writes on each link the copy crosses.
 *
 *   one_copy [BYTES]     (default 65536)
 *
 * GPU 0 copies BYTES to GPU 1 with cudaMemcpyPeer after enabling peer
 * access; no host copies, no memset. Exit status: 0 done, 1 a CUDA call
 * failed, 2 waived (fewer than two GPUs, or no peer access between 0 and
 * 1).
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "one_copy: %s: %s\n", #call,                      \
                    cudaGetErrorName(e_));                                    \
            return 1;                                                         \
        }                                                                     \
    } while (0)

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 0) : 65536;
    int n = 0, can = 0;
    CHECK(cudaGetDeviceCount(&n));
    if (n < 2) {
        printf("one_copy: %d GPU(s): waived\n", n);
        return 2;
    }
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
    if (!can) {
        printf("one_copy: no peer access from GPU 0 to GPU 1: waived\n");
        return 2;
    }
    void *src, *dst;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&dst, bytes));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaDeviceEnablePeerAccess(1, 0));
    CHECK(cudaMemcpyPeer(dst, 1, src, 0, bytes));
    CHECK(cudaDeviceSynchronize());
    printf("one_copy: %zu bytes from GPU 0 to GPU 1\n", bytes);
    return 0;
}
