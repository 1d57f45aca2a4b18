/*
 * tools/bwlat_int.h - what bwlat.c (the measurements) and bwlat_job.c (the
 * child process that runs them) share: the CUDA runtime's entry points,
 * loaded with dlsym, typed from our CUDA headers (cuda/include).
 */
#ifndef P2PSIM_TOOLS_BWLAT_INT_H
#define P2PSIM_TOOLS_BWLAT_INT_H

#include <setjmp.h>

#include "cuda/include/cuda_runtime_api.h"
#include "machine/include/p2psim_kernel.h"

/* Every CUDA call the measurements make. */
#define BWLAT_CUDA_CALLS(X)                                                   \
    X(cudaGetDeviceCount)                                                     \
    X(cudaGetDeviceProperties)                                                \
    X(cudaSetDevice)                                                          \
    X(cudaMalloc)                                                             \
    X(cudaFree)                                                               \
    X(cudaMallocHost)                                                         \
    X(cudaFreeHost)                                                           \
    X(cudaStreamCreateWithFlags)                                              \
    X(cudaStreamDestroy)                                                      \
    X(cudaStreamSynchronize)                                                  \
    X(cudaStreamWaitEvent)                                                    \
    X(cudaEventCreate)                                                        \
    X(cudaEventCreateWithFlags)                                               \
    X(cudaEventDestroy)                                                       \
    X(cudaEventRecord)                                                        \
    X(cudaEventQuery)                                                         \
    X(cudaEventElapsedTime)                                                   \
    X(cudaDeviceCanAccessPeer)                                                \
    X(cudaDeviceEnablePeerAccess)                                             \
    X(cudaDeviceDisablePeerAccess)                                            \
    X(cudaMemcpyPeerAsync)                                                    \
    X(cudaMemcpyAsync)                                                        \
    X(cudaLaunchHostFunc)                                                     \
    X(cudaLaunchKernel)                                                       \
    X(cudaHostAlloc)                                                          \
    X(cudaDeviceGetAttribute)                                                 \
    X(cudaGetLastError)                                                       \
    X(cudaGetErrorString)

/* The device API of C kernels (machine/include/p2psim_kernel.h): p2psim's
 * runtime has it, NVIDIA's does not (then the table's members are NULL,
 * and --sm_copy is refused). */
#define BWLAT_DEVAPI_CALLS(X)                                                 \
    X(devapi_load)                                                            \
    X(devapi_store)                                                           \
    X(devapi_thread_idx)                                                      \
    X(devapi_block_idx)                                                       \
    X(devapi_block_dim)                                                       \
    X(devapi_grid_dim)                                                        \
    X(devapi_clock64)                                                         \
    X(p2psim_kernel_register)

/* The runtime, as a table of its functions (members named as the calls,
 * so that measuring code reads cu->cudaSetDevice(d)). */
struct bwlat_cuda {
#define BWLAT_CUDA_MEMBER(name) __typeof__(name) *name;
    BWLAT_CUDA_CALLS(BWLAT_CUDA_MEMBER)
    BWLAT_DEVAPI_CALLS(BWLAT_CUDA_MEMBER)
#undef BWLAT_CUDA_MEMBER
    /* Where a failed call goes: the child's handler, which sends the
     * error recorded in the result and exits. */
    jmp_buf *fail;
};

#endif /* P2PSIM_TOOLS_BWLAT_INT_H */
