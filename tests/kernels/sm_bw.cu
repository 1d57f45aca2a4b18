// sm_bw.cu - SM copy bandwidth between two GPUs, warm: a grid-stride int4
// copy kernel reading the peer's memory (pull) or writing into it (push),
// and a local copy for reference, at several sizes; each figure is the
// median of 5 timed launches after one warm-up launch on the same
// buffers. Runs unchanged on a real machine (nvcc -cudart shared) and
// under `p2psim run --single-process`.
//
//   sm_bw [BLOCKS [THREADS [MAX_MIB]]]   default 132 x 512 (one wave on an
//                                        H200), sizes 1 MiB to 64 MiB
//
// Output: "sm DIR BYTES B GB/s" lines (DIR: pull, push, local).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_ck.h"

__global__ void copy_kernel(int4 *dst, const int4 *src, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        dst[i] = src[i];
    }
}

static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static float run(int4 *dst, const int4 *src, size_t bytes, int blocks,
                 int threads, cudaStream_t s)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    size_t n = bytes / sizeof(int4);
    copy_kernel<<<blocks, threads, 0, s>>>(dst, src, n);   // warm-up
    CK(cudaGetLastError());
    float t[5];
    for (int r = 0; r < 5; r++) {
        CK(cudaEventRecord(e0, s));
        copy_kernel<<<blocks, threads, 0, s>>>(dst, src, n);
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&t[r], e0, e1));
    }
    qsort(t, 5, sizeof(float), cmp);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return (float)(bytes / (t[2] * 1e6));
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 132;
    int threads = argc > 2 ? atoi(argv[2]) : 512;
    int n;
    CK(cudaGetDeviceCount(&n));
    if (n < 2) {
        printf("sm_bw: needs two GPUs: waived\n");
        return 2;
    }
    const size_t max = (size_t)(argc > 3 ? atoi(argv[3]) : 64) << 20;
    if (blocks < 1 || threads < 32 || max < ((size_t)1 << 20)) {
        fprintf(stderr, "usage: sm_bw [BLOCKS [THREADS [MAX_MIB]]]\n");
        return 2;
    }
    int4 *a0, *b0, *a1;
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&a1, max));
    CK(cudaMemset(a1, 1, max));
    CK(cudaDeviceEnablePeerAccess(0, 0));
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&a0, max));
    CK(cudaMalloc(&b0, max));
    CK(cudaMemset(a0, 2, max));
    CK(cudaDeviceEnablePeerAccess(1, 0));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    printf("# sm_bw: %d x %d threads on GPU 0, peer GPU 1\n", blocks, threads);
    for (size_t bytes = (size_t)1 << 20; bytes <= max; bytes *= 4) {
        printf("sm pull %zu B %.2f GB/s\n", bytes,
               run(b0, a1, bytes, blocks, threads, s));
        printf("sm push %zu B %.2f GB/s\n", bytes,
               run(a1, a0, bytes, blocks, threads, s));
        printf("sm local %zu B %.2f GB/s\n", bytes,
               run(b0, a0, bytes, blocks, threads, s));
        fflush(stdout);
    }
    return 0;
}
