/*
 * cuda/include/cuda_runtime.h - the CUDA runtime API for host programs:
 * the C interface (cuda_runtime_api.h) plus, in C++, CUDA's convenience
 * overloads.
 *
 * The overloads are inline and forward to C entry points, so they add no
 * symbol of their own; which C symbol each one reaches is part of the ABI
 * and matches the toolkit (tests/abi/abi.sh compares the symbols a C++
 * program imports):
 *
 *   cudaMalloc(T **, n) -> cudaMalloc; cudaHostAlloc(T **, n, flags) and
 *   cudaMallocHost(T **, n [, flags]), cudaMallocHost(void **, n, flags)
 *       -> cudaHostAlloc; cudaMallocHost(void **, n) -> the C call;
 *   cudaHostGetDevicePointer, cudaMallocManaged, cudaStreamAttachMemAsync,
 *   cudaMallocAsync(T **, n, stream), cudaMallocPitch(T **, ...), and the
 *   symbol calls taking the variable (cudaMemcpy{To,From}Symbol[Async],
 *   cudaGetSymbol{Address,Size}): the C call of the same name;
 *   cudaMallocAsync(p, n, pool, stream)      -> cudaMallocFromPoolAsync
 *   cudaMallocFromPoolAsync(T **, ...)       -> cudaMallocFromPoolAsync
 *   cudaEventCreate(&e, flags)               -> cudaEventCreateWithFlags
 *   cudaLaunchKernel(T *, ...)               -> cudaLaunchKernel
 *   cudaLaunchCooperativeKernel(T *, ...)    -> cudaLaunchCooperativeKernel
 *   cudaLaunchKernelEx(config, kernel, args...) -> cudaLaunchKernelExC
 *   cudaOccupancyMaxActiveBlocksPerMultiprocessor[WithFlags](n, T, ...)
 *       -> cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
 *   cudaOccupancyAvailableDynamicSMemPerBlock(s, T *, ...)
 *       -> cudaOccupancyAvailableDynamicSMemPerBlock
 *   cudaOccupancyMaxPotentialBlockSize[WithFlags|VariableSMem[WithFlags]]
 *       -> cudaGetDevice, cudaDeviceGetAttribute (four attributes),
 *          cudaFuncGetAttributes,
 *          cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags
 *
 * As with the toolkit and a host compiler, there is no typed overload of
 * cudaFuncGetAttributes or cudaFuncSetAttribute (nvcc-only there).
 */
#ifndef P2PSIM_CUDA_INCLUDE_CUDA_RUNTIME_H
#define P2PSIM_CUDA_INCLUDE_CUDA_RUNTIME_H

#include "host_defines.h"
#include "vector_types.h"
#include "driver_types.h"
#include "cuda_runtime_api.h"
#include "driver_functions.h"

/* Presence macro: cuda-samples' helper_cuda.h keys its runtime helpers
 * on it. */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__
#endif

#if defined(__cplusplus)

/* The toolkit's header brings <utility> into C++11 programs; so do we, so
 * that a program that builds here also builds against the toolkit and
 * vice versa. */
#if __cplusplus >= 201103L
#include <utility>
#endif

/* Kernels and their host stubs: T is the stub's function type. */
template <class T>
static __inline__ __host__ cudaError_t cudaLaunchKernel(T *func, dim3 gridDim,
                                                        dim3 blockDim,
                                                        void **args,
                                                        size_t sharedMem = 0,
                                                        cudaStream_t stream = 0)
{
    return ::cudaLaunchKernel((const void *)func, gridDim, blockDim, args,
                              sharedMem, stream);
}

template <class T>
static __inline__ __host__ cudaError_t
cudaLaunchCooperativeKernel(T *func, dim3 gridDim, dim3 blockDim, void **args,
                            size_t sharedMem = 0, cudaStream_t stream = 0)
{
    return ::cudaLaunchCooperativeKernel((const void *)func, gridDim, blockDim,
                                         args, sharedMem, stream);
}

#if __cplusplus >= 201103L
/* The extensible launch: the arguments are converted to the kernel's
 * parameter types, then passed by address. */
template <typename... ExpTypes, typename... ActTypes>
static __inline__ __host__ cudaError_t
cudaLaunchKernelEx(const cudaLaunchConfig_t *config,
                   void (*kernel)(ExpTypes...), ActTypes &&...args)
{
    return [&](ExpTypes... coerced) {
        void *argv[] = { &coerced... };
        return ::cudaLaunchKernelExC(config, (const void *)kernel, argv);
    }(std::forward<ActTypes>(args)...);
}

template <typename... ActTypes>
static __inline__ __host__ cudaError_t
cudaLaunchKernelEx(const cudaLaunchConfig_t *config, const cudaKernel_t kernel,
                   ActTypes &&...args)
{
    void *argv[] = { &args... };
    return ::cudaLaunchKernelExC(config, (const void *)kernel, argv);
}
#endif

/* Symbols: the variable itself names it (its address is the key). */
template <class T>
static __inline__ __host__ cudaError_t
cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                   size_t offset = 0,
                   enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return ::cudaMemcpyToSymbol((const void *)&symbol, src, count, offset,
                                kind);
}

template <class T>
static __inline__ __host__ cudaError_t
cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                        size_t offset = 0,
                        enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                        cudaStream_t stream = 0)
{
    return ::cudaMemcpyToSymbolAsync((const void *)&symbol, src, count,
                                     offset, kind, stream);
}

template <class T>
static __inline__ __host__ cudaError_t
cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                     size_t offset = 0,
                     enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return ::cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset,
                                  kind);
}

template <class T>
static __inline__ __host__ cudaError_t
cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count,
                          size_t offset = 0,
                          enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                          cudaStream_t stream = 0)
{
    return ::cudaMemcpyFromSymbolAsync(dst, (const void *)&symbol, count,
                                       offset, kind, stream);
}

template <class T>
static __inline__ __host__ cudaError_t cudaGetSymbolAddress(void **devPtr,
                                                            const T &symbol)
{
    return ::cudaGetSymbolAddress(devPtr, (const void *)&symbol);
}

template <class T>
static __inline__ __host__ cudaError_t cudaGetSymbolSize(size_t *size,
                                                         const T &symbol)
{
    return ::cudaGetSymbolSize(size, (const void *)&symbol);
}

/* Events */
static __inline__ __host__ cudaError_t cudaEventCreate(cudaEvent_t *event,
                                                       unsigned int flags)
{
    return ::cudaEventCreateWithFlags(event, flags);
}

/* Allocation through typed pointers: no (void **) cast needed. */
template <class T>
static __inline__ __host__ cudaError_t cudaMalloc(T **devPtr, size_t size)
{
    return ::cudaMalloc((void **)(void *)devPtr, size);
}

static __inline__ __host__ cudaError_t cudaMallocHost(void **ptr, size_t size,
                                                      unsigned int flags)
{
    return ::cudaHostAlloc(ptr, size, flags);
}

template <class T>
static __inline__ __host__ cudaError_t cudaMallocHost(T **ptr, size_t size,
                                                      unsigned int flags = 0)
{
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}

template <class T>
static __inline__ __host__ cudaError_t cudaHostAlloc(T **ptr, size_t size,
                                                     unsigned int flags)
{
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}

template <class T>
static __inline__ __host__ cudaError_t cudaMallocPitch(T **devPtr,
                                                       size_t *pitch,
                                                       size_t width,
                                                       size_t height)
{
    return ::cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}

template <class T>
static __inline__ __host__ cudaError_t
cudaHostGetDevicePointer(T **devPtr, void *hostPtr, unsigned int flags)
{
    return ::cudaHostGetDevicePointer((void **)(void *)devPtr, hostPtr, flags);
}

template <class T>
static __inline__ __host__ cudaError_t cudaMallocManaged(
    T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal)
{
    return ::cudaMallocManaged((void **)(void *)devPtr, size, flags);
}

template <class T>
static __inline__ __host__ cudaError_t
cudaStreamAttachMemAsync(cudaStream_t stream, T *devPtr, size_t length = 0,
                         unsigned int flags = cudaMemAttachSingle)
{
    return ::cudaStreamAttachMemAsync(stream, (void *)devPtr, length, flags);
}

/* Stream-ordered allocation; naming a pool selects the pool form. */
static __inline__ __host__ cudaError_t cudaMallocAsync(void **ptr, size_t size,
                                                       cudaMemPool_t memPool,
                                                       cudaStream_t stream)
{
    return ::cudaMallocFromPoolAsync(ptr, size, memPool, stream);
}

template <class T>
static __inline__ __host__ cudaError_t cudaMallocAsync(T **ptr, size_t size,
                                                       cudaMemPool_t memPool,
                                                       cudaStream_t stream)
{
    return ::cudaMallocFromPoolAsync((void **)(void *)ptr, size, memPool,
                                     stream);
}

template <class T>
static __inline__ __host__ cudaError_t cudaMallocAsync(T **ptr, size_t size,
                                                       cudaStream_t stream)
{
    return ::cudaMallocAsync((void **)(void *)ptr, size, stream);
}

template <class T>
static __inline__ __host__ cudaError_t cudaMallocFromPoolAsync(
    T **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
{
    return ::cudaMallocFromPoolAsync((void **)(void *)ptr, size, memPool,
                                     stream);
}

/* Occupancy for a kernel given as its host stub (any pointer type). */
template <class T>
static __inline__ __host__ cudaError_t
cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func,
                                              int blockSize,
                                              size_t dynamicSMemSize)
{
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, (const void *)func, blockSize, dynamicSMemSize,
        cudaOccupancyDefault);
}

template <class T>
static __inline__ __host__ cudaError_t
cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, T func,
                                                       int blockSize,
                                                       size_t dynamicSMemSize,
                                                       unsigned int flags)
{
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, (const void *)func, blockSize, dynamicSMemSize, flags);
}

template <class T>
static __inline__ __host__ cudaError_t
cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, T *func,
                                          int numBlocks, int blockSize)
{
    return ::cudaOccupancyAvailableDynamicSMemPerBlock(
        dynamicSmemSize, (const void *)func, numBlocks, blockSize);
}

/*
 * The block size that maximises resident threads per multiprocessor, and
 * the smallest grid that fills the device at that size.
 *
 * Candidates run from the largest allowed block size down in steps of one
 * warp; the allowed maximum is the smallest of blockSizeLimit (0: none),
 * the device's and the kernel's maximum block size, and the first
 * candidate is that maximum rounded up to a warp multiple (then capped at
 * the maximum itself). A candidate replaces the best so far only if it
 * keeps strictly more threads resident, so ties go to the larger block;
 * the search stops early once a candidate fills the multiprocessor.
 * smemOfBlockSize(b) gives the dynamic shared memory a block of b threads
 * needs. On return *blockSize is the chosen size and *minGridSize its
 * resident blocks per multiprocessor times the multiprocessor count.
 */
template <typename SmemFn, class T>
static __inline__ __host__ __device__ cudaError_t
cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(int *minGridSize,
                                                        int *blockSize, T func,
                                                        SmemFn smemOfBlockSize,
                                                        int blockSizeLimit = 0,
                                                        unsigned int flags = 0)
{
    cudaError_t err;
    struct cudaFuncAttributes fattr;
    int dev, sm_threads, warp, dev_block_max, sm_count;
    int limit, start, step, best_size = 0, best_blocks = 0, best_threads = 0;

    if (!minGridSize || !blockSize || !func) {
        return cudaErrorInvalidValue;
    }
    err = ::cudaGetDevice(&dev);
    if (err != cudaSuccess) {
        return err;
    }
    err = ::cudaDeviceGetAttribute(&sm_threads,
                                   cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    if (err == cudaSuccess) {
        err = ::cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev);
    }
    if (err == cudaSuccess) {
        err = ::cudaDeviceGetAttribute(&dev_block_max,
                                       cudaDevAttrMaxThreadsPerBlock, dev);
    }
    if (err == cudaSuccess) {
        err = ::cudaDeviceGetAttribute(&sm_count,
                                       cudaDevAttrMultiProcessorCount, dev);
    }
    if (err == cudaSuccess) {
        /* As with the toolkit under a host compiler, func must convert to
         * const void * by itself: pass a stub address, not a function. */
        err = ::cudaFuncGetAttributes(&fattr, func);
    }
    if (err != cudaSuccess) {
        return err;
    }
    if (warp <= 0) {
        /* The search steps by the warp size; refuse a device without one
         * (the toolkit would divide by zero). */
        return cudaErrorInvalidValue;
    }

    limit = blockSizeLimit;
    if (limit == 0 || limit > dev_block_max) {
        limit = dev_block_max;
    }
    if (limit > fattr.maxThreadsPerBlock) {
        limit = fattr.maxThreadsPerBlock;
    }
    start = (limit + warp - 1) / warp * warp;
    for (step = start; step > 0; step -= warp) {
        int size = step < limit ? step : limit;
        int blocks = 0;

        err = ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            &blocks, (const void *)func, size, smemOfBlockSize(size), flags);
        if (err != cudaSuccess) {
            return err;
        }
        if (size * blocks > best_threads) {
            best_size = size;
            best_blocks = blocks;
            best_threads = size * blocks;
        }
        if (best_threads == sm_threads) {
            break;
        }
    }
    *minGridSize = best_blocks * sm_count;
    *blockSize = best_size;
    return cudaSuccess;
}

/* A fixed amount of dynamic shared memory, whatever the block size. */
class p2psim_cudart_fixed_smem
{
    size_t bytes_;

  public:
    __host__ __device__ p2psim_cudart_fixed_smem(size_t bytes) : bytes_(bytes)
    {
    }
    __host__ __device__ size_t operator()(int) const { return bytes_; }
};

template <typename SmemFn, class T>
static __inline__ __host__ __device__ cudaError_t
cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *minGridSize, int *blockSize,
                                               T func, SmemFn smemOfBlockSize,
                                               int blockSizeLimit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, smemOfBlockSize, blockSizeLimit,
        cudaOccupancyDefault);
}

template <class T>
static __inline__ __host__ __device__ cudaError_t
cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                   size_t dynamicSMemSize = 0,
                                   int blockSizeLimit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, p2psim_cudart_fixed_smem(dynamicSMemSize),
        blockSizeLimit, cudaOccupancyDefault);
}

template <class T>
static __inline__ __host__ __device__ cudaError_t
cudaOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize,
                                            T func, size_t dynamicSMemSize = 0,
                                            int blockSizeLimit = 0,
                                            unsigned int flags = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, p2psim_cudart_fixed_smem(dynamicSMemSize),
        blockSizeLimit, flags);
}

#endif /* __cplusplus */

#endif /* P2PSIM_CUDA_INCLUDE_CUDA_RUNTIME_H */
