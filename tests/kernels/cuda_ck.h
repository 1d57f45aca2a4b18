// tests/kernels/cuda_ck.h - CK(call): a CUDA call that must succeed, else
// the program prints where and why and exits 2 (nvcc test programs).
#ifndef P2PSIM_TESTS_KERNELS_CUDA_CK_H
#define P2PSIM_TESTS_KERNELS_CUDA_CK_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                 \
    do {                                                                      \
        cudaError_t e_ = (x);                                                 \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,        \
                    cudaGetErrorString(e_));                                  \
            exit(2);                                                          \
        }                                                                     \
    } while (0)

#endif
