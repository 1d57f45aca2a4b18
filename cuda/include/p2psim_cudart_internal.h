/*
 * cuda/include/p2psim_cudart_internal.h - entry points that nvcc-generated
 * code calls, and the per-thread-stream twins of the public calls: what
 * the shim (libcudart.so.13) must define beyond cuda_runtime_api.h.
 *
 * Programs never include this header. The shim does, to get the exact
 * signatures of the symbols it exports; tests/abi/ checks them against the
 * toolkit.
 *
 * How nvcc 13.0 output uses the registration and launch entry points
 * (shared/reference/cuda-api.md §3):
 *
 *   before main, per translation unit with device code:
 *     h = __cudaRegisterFatBinary(&wrapper)
 *     per kernel:   __cudaRegisterFunction(h, stub, name, name, -1, 0...0)
 *     per __device__ / __constant__ variable:  __cudaRegisterVar(h, ...)
 *     per __managed__ variable:  __cudaRegisterManagedVar(h, ...)
 *     __cudaRegisterFatBinaryEnd(h)
 *     atexit: __cudaUnregisterFatBinary(h)
 *   at a launch site  kernel<<<grid, block, smem, stream>>>(args...):
 *     if (__cudaPushCallConfiguration(grid, block, smem, stream) == 0)
 *         stub(args...)
 *   inside the stub:
 *     static cudaKernel_t k;  __cudaGetKernel(&k, stub)   (once)
 *     __cudaPopCallConfiguration(&grid, &block, &smem, &stream)
 *     __cudaLaunchKernel(k, grid, block, argv, smem, stream)
 *         (__cudaLaunchKernel_ptsz with --default-stream per-thread)
 *
 * The stub discards __cudaLaunchKernel's result, so a failed launch reaches
 * the program only as the thread's last error.
 */
#ifndef P2PSIM_CUDA_INCLUDE_P2PSIM_CUDART_INTERNAL_H
#define P2PSIM_CUDA_INCLUDE_P2PSIM_CUDART_INTERNAL_H

#include <stddef.h>

#include "cuda_runtime_api.h"
#include "cuda_profiler_api.h"

/* ---------------------------------------------------------------------- */
/* Fat binaries                                                            */
/* ---------------------------------------------------------------------- */

/*
 * What __cudaRegisterFatBinary receives: the 24-byte wrapper nvcc places
 * in section .nvFatBinSegment (8-byte aligned).
 *   magic    P2PSIM_FATBIN_WRAPPER_MAGIC
 *   version  1: whole-program image; 2: image linked with -rdc=true
 *   data     the fat binary: a container header (magic
 *            P2PSIM_FATBIN_CONTAINER_MAGIC) followed by PTX/ELF entries
 *   filename_or_fatbins  version 1: unused (NULL); version 2: the
 *            pre-linked fat binaries
 */
struct p2psim_fatbin_wrapper {
    int magic;
    int version;
    const unsigned long long *data;
    void *filename_or_fatbins;
};

#define P2PSIM_FATBIN_WRAPPER_MAGIC 0x466243B1
#define P2PSIM_FATBIN_WRAPPER_VERSION 1
#define P2PSIM_FATBIN_WRAPPER_VERSION_LINKED 2
#define P2PSIM_FATBIN_CONTAINER_MAGIC 0xBA55ED50u

#if defined(__cplusplus)
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* Registration (static constructors of nvcc output)                      */
/* ---------------------------------------------------------------------- */

/**
 * __cudaRegisterFatBinary() - register one translation unit's device code.
 * @fatCubin: a struct p2psim_fatbin_wrapper.
 *
 * Runs before main. Returns the module handle passed to every other
 * registration call: a pointer to valid, zeroed memory that the program
 * keeps until __cudaUnregisterFatBinary (nvcc's exit code touches it).
 */
extern void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin);

/* All registrations of the module are done. */
extern void CUDARTAPI __cudaRegisterFatBinaryEnd(void **fatCubinHandle);

/* Called at exit (atexit) for each registered module. */
extern void CUDARTAPI __cudaUnregisterFatBinary(void **fatCubinHandle);

/**
 * __cudaRegisterFunction() - bind a kernel's host stub to its device name.
 * @hostFun:    the host stub's address; the key later passed as func to
 *              cudaLaunchKernel, cudaFuncGetAttributes, occupancy calls and
 *              __cudaGetKernel.
 * @deviceFun:  mangled kernel name.
 * @deviceName: mangled kernel name (same string).
 * @thread_limit: -1. @tid, @bid, @bDim, @gDim, @wSize: NULL.
 */
extern void CUDARTAPI __cudaRegisterFunction(
    void **fatCubinHandle, const char *hostFun, char *deviceFun,
    const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
    dim3 *bDim, dim3 *gDim, int *wSize);

/**
 * __cudaRegisterVar() - bind a __device__ or __constant__ variable.
 * @hostVar:       address of the host shadow (the key for
 *                 cudaMemcpyToSymbol and friends).
 * @deviceAddress: variable name. @deviceName: variable name.
 * @ext:  1 if declared extern. @size: bytes. @constant: 1 for
 *        __constant__. @global: 0.
 * Each simulated device holds its own copy.
 */
extern void CUDARTAPI __cudaRegisterVar(void **fatCubinHandle, char *hostVar,
                                        char *deviceAddress,
                                        const char *deviceName, int ext,
                                        size_t size, int constant, int global);

/**
 * __cudaRegisterManagedVar() - bind a __managed__ variable.
 * @hostVarPtrAddress: where the shim stores the address of the variable's
 *                     managed allocation.
 * Other parameters as for __cudaRegisterVar().
 */
extern void CUDARTAPI __cudaRegisterManagedVar(
    void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
    const char *deviceName, int ext, size_t size, int constant, int global);

/* Called lazily before the host first touches a managed variable of the
 * module; returns nonzero on success. */
extern char CUDARTAPI __cudaInitModule(void **fatCubinHandle);

/* ---------------------------------------------------------------------- */
/* Launch (the <<<>>> protocol)                                            */
/* ---------------------------------------------------------------------- */

/**
 * __cudaPushCallConfiguration() - save a launch configuration.
 *
 * Evaluated at the <<<>>> site, before the arguments. Pushes onto a
 * per-thread stack (launches nest when an argument expression launches).
 * Return: 0 to let the site call the stub, nonzero to skip the launch.
 */
extern unsigned CUDARTAPI __cudaPushCallConfiguration(
    dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream);

/**
 * __cudaPopCallConfiguration() - take back the configuration inside the
 * stub. @stream really points at a cudaStream_t. A nonzero result makes
 * the stub return without launching.
 */
extern cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3 *gridDim,
                                                        dim3 *blockDim,
                                                        size_t *sharedMem,
                                                        void *stream);

/* The kernel handle for a host stub (the stub caches it); unknown stub:
 * cudaErrorInvalidDeviceFunction. */
extern cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t *kernel,
                                             const void *hostFun);

/**
 * __cudaLaunchKernel() - launch a kernel from its stub.
 * @args: args[i] points at the i-th argument in the stub's frame; sizes
 *        are not passed (they come from the kernel's parameter list), and
 *        the bytes must be copied before returning because the launch is
 *        asynchronous.
 * The _ptsz twin serves programs built for per-thread default streams.
 */
extern cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel,
                                                dim3 gridDim, dim3 blockDim,
                                                void **args, size_t sharedMem,
                                                cudaStream_t stream);
extern cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel,
                                                     dim3 gridDim,
                                                     dim3 blockDim, void **args,
                                                     size_t sharedMem,
                                                     cudaStream_t stream);

/* ---------------------------------------------------------------------- */
/* Per-thread default stream twins                                         */
/* ---------------------------------------------------------------------- */

/*
 * A program built with CUDA_API_PER_THREAD_DEFAULT_STREAM imports these
 * names instead of the plain ones (cuda_runtime_api.h maps them); stream 0
 * then means the calling thread's default stream. Signatures are those of
 * the plain calls. Declared here only when the program-side mapping is
 * off, since with it on cuda_runtime_api.h has declared them already.
 */
#if !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
extern cudaError_t CUDARTAPI cudaMemcpy_ptds(void *dst, const void *src,
                                             size_t count,
                                             enum cudaMemcpyKind kind);
extern cudaError_t CUDARTAPI cudaMemset_ptds(void *devPtr, int value,
                                             size_t count);

extern cudaError_t CUDARTAPI cudaMemcpyAsync_ptsz(void *dst, const void *src,
                                                  size_t count,
                                                  enum cudaMemcpyKind kind,
                                                  cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaMemsetAsync_ptsz(void *devPtr, int value,
                                                  size_t count,
                                                  cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaStreamQuery_ptsz(cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaStreamGetDevice_ptsz(cudaStream_t stream,
                                                      int *device);
extern cudaError_t CUDARTAPI cudaStreamGetFlags_ptsz(cudaStream_t stream,
                                                     unsigned int *flags);
extern cudaError_t CUDARTAPI cudaStreamGetId_ptsz(cudaStream_t stream,
                                                  unsigned long long *streamId);
extern cudaError_t CUDARTAPI cudaStreamGetPriority_ptsz(cudaStream_t stream,
                                                        int *priority);
extern cudaError_t CUDARTAPI cudaStreamSetAttribute_ptsz(
    cudaStream_t hStream, cudaLaunchAttributeID attr,
    const cudaLaunchAttributeValue *value);
extern cudaError_t CUDARTAPI cudaStreamGetAttribute_ptsz(
    cudaStream_t hStream, cudaLaunchAttributeID attr,
    cudaLaunchAttributeValue *value_out);
extern cudaError_t CUDARTAPI cudaStreamCopyAttributes_ptsz(cudaStream_t dst,
                                                           cudaStream_t src);
extern cudaError_t CUDARTAPI cudaEventRecord_ptsz(cudaEvent_t event,
                                                  cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaEventRecordWithFlags_ptsz(cudaEvent_t event,
                                                           cudaStream_t stream,
                                                           unsigned int flags);
extern cudaError_t CUDARTAPI cudaStreamWaitEvent_ptsz(cudaStream_t stream,
                                                      cudaEvent_t event,
                                                      unsigned int flags);
extern cudaError_t CUDARTAPI
cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                           void *userData, unsigned int flags);
extern cudaError_t CUDARTAPI cudaStreamAttachMemAsync_ptsz(cudaStream_t stream,
                                                           void *devPtr,
                                                           size_t length,
                                                           unsigned int flags);
extern cudaError_t CUDARTAPI cudaStreamSynchronize_ptsz(cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaStreamIsCapturing_ptsz(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus);
extern cudaError_t CUDARTAPI cudaLaunchKernel_ptsz(const void *func,
                                                   dim3 gridDim, dim3 blockDim,
                                                   void **args,
                                                   size_t sharedMem,
                                                   cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaLaunchCooperativeKernel_ptsz(
    const void *func, dim3 gridDim, dim3 blockDim, void **args,
    size_t sharedMem, cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaLaunchHostFunc_ptsz(cudaStream_t stream,
                                                     cudaHostFn_t fn,
                                                     void *userData);
extern cudaError_t CUDARTAPI cudaMemPrefetchAsync_ptsz(
    const void *devPtr, size_t count, struct cudaMemLocation location,
    unsigned int flags, cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void **devPtr, size_t size,
                                                  cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void *devPtr,
                                                cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaMallocFromPoolAsync_ptsz(void **ptr,
                                                          size_t size,
                                                          cudaMemPool_t memPool,
                                                          cudaStream_t stream);
extern cudaError_t CUDARTAPI cudaGetDriverEntryPoint_ptsz(
    const char *symbol, void **funcPtr, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus);
extern cudaError_t CUDARTAPI cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion,
    unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus);
#endif /* !CUDA_API_PER_THREAD_DEFAULT_STREAM */

#if defined(__cplusplus)
}
#endif

#endif /* P2PSIM_CUDA_INCLUDE_P2PSIM_CUDART_INTERNAL_H */
