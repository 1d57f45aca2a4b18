/*
 * cuda/include/cuda_runtime_api.h - the C interface of the CUDA runtime
 * (CUDA 13.0) as served by p2psim's shim, libcudart.so.13.
 *
 * A program compiled against this header and linked with the shim runs on a
 * simulated multi-GPU machine; linked with the real libcudart.so.13 it runs
 * on hardware. Either way the binary interface is CUDA's: every function
 * below has CUDA's exact name, C signature and linkage, and every symbol it
 * binds to is the one the toolkit's header binds to (tests/abi/abi.sh checks
 * both against the installed toolkit).
 *
 * Scope: the functions that multi-GPU and peer-to-peer programs call
 * (cuda-samples simpleP2P, p2pBandwidthLatencyTest, simpleIPC,
 * streamOrderedAllocationP2P/IPC, conjugateGradientMultiDeviceCG,
 * simpleMultiGPU; NCCL's P2P transport) plus their close relatives:
 * devices, peer access, errors, streams, events, memory, copies, pools,
 * managed memory, IPC, launches and occupancy. What each call must do is in
 * shared/reference/cuda-api.md.
 *
 * Conventions that hold for every function here:
 *  - The return value is a cudaError_t; a failure is also recorded as the
 *    calling host thread's last error. Successful calls leave it alone.
 *  - The "current device" is per host thread (cudaSetDevice).
 *  - Stream 0 is the legacy default stream of the current device.
 *  - In C++ some trailing parameters have defaults (usually stream 0).
 *
 * Per-thread default stream: when the program is built with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM defined (nvcc --default-stream
 * per-thread), the calls that take or imply a stream bind to their _ptds
 * (synchronous copies and sets) or _ptsz (everything else) symbol instead,
 * exactly as with the toolkit; the shim exports both names.
 */
#ifndef P2PSIM_CUDA_INCLUDE_CUDA_RUNTIME_API_H
#define P2PSIM_CUDA_INCLUDE_CUDA_RUNTIME_API_H

#include <limits.h>
#include <stddef.h>

#include "host_defines.h"
#include "driver_types.h"
#include "vector_types.h"

/* Presence macro, tested by some programs. */
#ifndef __CUDA_RUNTIME_API_H__
#define __CUDA_RUNTIME_API_H__
#endif

/* Runtime version these declarations describe: 1000 * major + 10 * minor.
 * cudaRuntimeGetVersion() reports the same number. */
#define CUDART_VERSION 13000

/* Default arguments, C++ only. */
#if defined(__cplusplus)
#define P2PSIM_DEFAULT(v) = v
#else
#define P2PSIM_DEFAULT(v)
#endif

/* Functions CUDA 13 marks deprecated warn on use, unless the program
 * defines CUDA_ENABLE_DEPRECATED. */
#if defined(CUDA_ENABLE_DEPRECATED)
#define P2PSIM_CUDART_DEPRECATED
#else
#define P2PSIM_CUDART_DEPRECATED __attribute__((deprecated))
#endif

/*
 * Symbol selection for the per-thread default stream. The list is the
 * subset of CUDA's that this header declares; cudaMemcpyPeer(Async) and
 * the allocation calls have a single symbol.
 */
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define __CUDART_API_PER_THREAD_DEFAULT_STREAM
#define P2PSIM_PTDS(name) name##_ptds
#define P2PSIM_PTSZ(name) name##_ptsz

#define cudaMemcpy P2PSIM_PTDS(cudaMemcpy)
#define cudaMemset P2PSIM_PTDS(cudaMemset)

#define cudaMemcpyAsync P2PSIM_PTSZ(cudaMemcpyAsync)
#define cudaMemsetAsync P2PSIM_PTSZ(cudaMemsetAsync)
#define cudaStreamQuery P2PSIM_PTSZ(cudaStreamQuery)
#define cudaStreamGetDevice P2PSIM_PTSZ(cudaStreamGetDevice)
#define cudaStreamGetFlags P2PSIM_PTSZ(cudaStreamGetFlags)
#define cudaStreamGetId P2PSIM_PTSZ(cudaStreamGetId)
#define cudaStreamGetPriority P2PSIM_PTSZ(cudaStreamGetPriority)
#define cudaEventRecord P2PSIM_PTSZ(cudaEventRecord)
#define cudaEventRecordWithFlags P2PSIM_PTSZ(cudaEventRecordWithFlags)
#define cudaStreamWaitEvent P2PSIM_PTSZ(cudaStreamWaitEvent)
#define cudaStreamAddCallback P2PSIM_PTSZ(cudaStreamAddCallback)
#define cudaStreamAttachMemAsync P2PSIM_PTSZ(cudaStreamAttachMemAsync)
#define cudaStreamSynchronize P2PSIM_PTSZ(cudaStreamSynchronize)
#define cudaStreamIsCapturing P2PSIM_PTSZ(cudaStreamIsCapturing)
#define cudaLaunchKernel P2PSIM_PTSZ(cudaLaunchKernel)
#define cudaLaunchCooperativeKernel P2PSIM_PTSZ(cudaLaunchCooperativeKernel)
#define cudaLaunchHostFunc P2PSIM_PTSZ(cudaLaunchHostFunc)
#define cudaMemPrefetchAsync P2PSIM_PTSZ(cudaMemPrefetchAsync)
#define cudaMallocAsync P2PSIM_PTSZ(cudaMallocAsync)
#define cudaFreeAsync P2PSIM_PTSZ(cudaFreeAsync)
#define cudaMallocFromPoolAsync P2PSIM_PTSZ(cudaMallocFromPoolAsync)
#define cudaGetDriverEntryPoint P2PSIM_PTSZ(cudaGetDriverEntryPoint)
#define cudaGetDriverEntryPointByVersion                                       \
    P2PSIM_PTSZ(cudaGetDriverEntryPointByVersion)
#endif /* CUDA_API_PER_THREAD_DEFAULT_STREAM */

#if defined(__cplusplus)
extern "C" {
#endif

/* A stream callback (cudaStreamAddCallback): the stream, the status of
 * the work before it, and the caller's pointer. */
typedef void(CUDART_CB *cudaStreamCallback_t)(cudaStream_t stream,
                                              cudaError_t status,
                                              void *userData);

/* ---------------------------------------------------------------------- */
/* Devices                                                                 */
/* ---------------------------------------------------------------------- */

/* Number of visible devices. No device and no driver: 100 / 35. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaGetDeviceCount(int *count);

/* Make device the calling thread's current device; out of range: 101. */
extern __host__ cudaError_t CUDARTAPI cudaSetDevice(int device);

/* The calling thread's current device (0 until it sets one). */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaGetDevice(int *device);

/* Initialise device's primary context without making it current. */
extern __host__ cudaError_t CUDARTAPI cudaInitDevice(int device,
                                                     unsigned int deviceFlags,
                                                     unsigned int flags);

/* Restrict the devices cudaSetDevice-less code may pick, in order. */
extern __host__ cudaError_t CUDARTAPI cudaSetValidDevices(int *deviceArr,
                                                          int len);

/* The device whose properties best match prop. */
extern __host__ cudaError_t CUDARTAPI
cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);

/* cudaDeviceSchedule* / cudaDeviceMapHost ... flags of the current device. */
extern __host__ cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int *flags);

/* All properties of device, in the CUDA 13.0 layout (1008 bytes). */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);

/* One property of device; bad attr: 1, bad device: 101. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);

/* PCI address "dddd:bb:dd.f" of device into a buffer of len bytes, and the
 * device at a given address. */
extern __host__ cudaError_t CUDARTAPI cudaDeviceGetPCIBusId(char *pciBusId,
                                                            int len,
                                                            int device);
extern __host__ cudaError_t CUDARTAPI
cudaDeviceGetByPCIBusId(int *device, const char *pciBusId);

/* Wait until all work on the current device has finished; reports
 * asynchronous errors of that work. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaDeviceSynchronize(void);

/* Destroy the current device's primary context and all its resources. */
extern __host__ cudaError_t CUDARTAPI cudaDeviceReset(void);

/* Per-device resource limits. */
extern __host__ cudaError_t CUDARTAPI cudaDeviceSetLimit(enum cudaLimit limit,
                                                         size_t value);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaDeviceGetLimit(size_t *value, enum cudaLimit limit);

/* The L1/shared-memory split and shared-memory bank size a program
 * prefers, for the device and per kernel (recorded; the simulated SMs do
 * not model the split or banks). Bank-size calls are deprecated. */
extern __host__ cudaError_t CUDARTAPI
cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig);
extern __host__ __cudart_builtin__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig);
extern __host__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
extern __host__ cudaError_t CUDARTAPI
cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig);
extern __host__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config);
/* Lines of L2 kept as persisting become normal (none are modelled). */
extern __host__ cudaError_t CUDARTAPI cudaCtxResetPersistingL2Cache(void);

/* Range of stream priorities; numerically lower is higher priority. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);

/* Free and total memory of the current device, bytes. */
extern __host__ cudaError_t CUDARTAPI cudaMemGetInfo(size_t *freeBytes,
                                                     size_t *totalBytes);

/* Version of the installed driver (0 without one) and of the runtime
 * (CUDART_VERSION). */
extern __host__ cudaError_t CUDARTAPI cudaDriverGetVersion(int *driverVersion);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaRuntimeGetVersion(int *runtimeVersion);

/* ---------------------------------------------------------------------- */
/* Peer access                                                             */
/* ---------------------------------------------------------------------- */

/* *canAccessPeer = 1 if device can map peerDevice's memory, else 0;
 * device == peerDevice yields 0. */
extern __host__ cudaError_t CUDARTAPI
cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);

/* Let the current device access peerDevice's memory (one direction).
 * flags must be 0. Already enabled: 704; no P2P path or peerDevice is the
 * current device: 217; too many peers: 711. */
extern __host__ cudaError_t CUDARTAPI
cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);

/* Undo cudaDeviceEnablePeerAccess; not enabled: 705. */
extern __host__ cudaError_t CUDARTAPI
cudaDeviceDisablePeerAccess(int peerDevice);

/* One attribute of the ordered pair srcDevice -> dstDevice;
 * srcDevice == dstDevice: 101. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr,
                          int srcDevice, int dstDevice);
/* For each of count atomic operations, the cudaAtomicCapability* bits
 * that hold from srcDevice to dstDevice's memory, or from device to host
 * memory. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaDeviceGetP2PAtomicCapabilities(unsigned int *capabilities,
                                   const enum cudaAtomicOperation *operations,
                                   unsigned int count, int srcDevice,
                                   int dstDevice);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaDeviceGetHostAtomicCapabilities(unsigned int *capabilities,
                                    const enum cudaAtomicOperation *operations,
                                    unsigned int count, int device);

/* ---------------------------------------------------------------------- */
/* Errors                                                                  */
/* ---------------------------------------------------------------------- */

/* Return the calling thread's last error and reset it to cudaSuccess
 * (sticky errors stay). */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaGetLastError(void);

/* Return the last error without resetting it. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaPeekAtLastError(void);

/* Static strings: the enumerator's name ("cudaErrorInvalidValue") and its
 * description ("invalid argument"). */
extern __host__ __cudart_builtin__ const char *CUDARTAPI
cudaGetErrorName(cudaError_t error);
extern __host__ __cudart_builtin__ const char *CUDARTAPI
cudaGetErrorString(cudaError_t error);

/* ---------------------------------------------------------------------- */
/* Streams                                                                 */
/* ---------------------------------------------------------------------- */

/* New stream on the current device: blocking, with flags
 * (cudaStreamDefault / cudaStreamNonBlocking), or also with a priority. */
extern __host__ cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *stream);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags,
                             int priority);

/* Queries of a stream's creation parameters, device and unique id. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaStreamGetPriority(cudaStream_t stream, int *priority);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaStreamGetId(cudaStream_t stream, unsigned long long *streamId);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaStreamGetDevice(cudaStream_t stream, int *device);

/* Release a stream once its queued work has finished. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaStreamDestroy(cudaStream_t stream);

/* Make later work in stream wait for the work event captured; the event
 * may belong to another device. flags: cudaEventWait*. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                    unsigned int flags P2PSIM_DEFAULT(0));

/* Call callback(stream, status, userData) once the work queued before it
 * is done; later work waits for it. flags must be 0. */
extern __host__ cudaError_t CUDARTAPI
cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                      void *userData, unsigned int flags);

/* Block until all work in stream has finished. */
extern __host__ cudaError_t CUDARTAPI
cudaStreamSynchronize(cudaStream_t stream);

/* cudaSuccess if all work in stream has finished, else cudaErrorNotReady
 * (which is not recorded as the last error). */
extern __host__ cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream);

/* Associate managed memory with a stream (cudaMemAttach* flags). */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaStreamAttachMemAsync(
    cudaStream_t stream, void *devPtr, size_t length P2PSIM_DEFAULT(0),
    unsigned int flags P2PSIM_DEFAULT(cudaMemAttachSingle));

/* Stream capture state: swap the calling thread's capture mode, and ask
 * whether a stream is capturing. */
extern __host__ cudaError_t CUDARTAPI
cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);
extern __host__ cudaError_t CUDARTAPI cudaStreamIsCapturing(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus);

/* ---------------------------------------------------------------------- */
/* Events                                                                  */
/* ---------------------------------------------------------------------- */

/* New event on the current device; flags: cudaEvent* bits. */
extern __host__ cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t *event);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);

/* Capture the work queued so far in stream; re-recording overwrites. The
 * event and the stream must belong to the same device. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaEventRecord(cudaEvent_t event, cudaStream_t stream P2PSIM_DEFAULT(0));
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaEventRecordWithFlags(cudaEvent_t event,
                         cudaStream_t stream P2PSIM_DEFAULT(0),
                         unsigned int flags P2PSIM_DEFAULT(0));

/* cudaSuccess if the captured work is done (or the event was never
 * recorded), else cudaErrorNotReady. */
extern __host__ cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event);

/* Block until the captured work is done. */
extern __host__ cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event);

extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaEventDestroy(cudaEvent_t event);

/* Milliseconds between two completed events of one device. Not recorded
 * or created with DisableTiming: 400; not complete: 600. */
extern __host__ cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms,
                                                           cudaEvent_t start,
                                                           cudaEvent_t end);

/* ---------------------------------------------------------------------- */
/* Launches, kernels and occupancy                                         */
/* ---------------------------------------------------------------------- */

/* Launch the kernel whose host stub is func; args[i] points at the i-th
 * argument. The kernel must be registered and the stream must belong to
 * the current device. */
extern __host__ cudaError_t CUDARTAPI
cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                 size_t sharedMem, cudaStream_t stream);

/* As cudaLaunchKernel, with all blocks co-resident (grid-wide sync);
 * too many blocks: 720. */
extern __host__ cudaError_t CUDARTAPI
cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                            void **args, size_t sharedMem, cudaStream_t stream);

/* Run fn(userData) on a host thread after the work queued before it in
 * stream; later work waits for it. fn must not call CUDA. */
extern __host__ cudaError_t CUDARTAPI cudaLaunchHostFunc(cudaStream_t stream,
                                                         cudaHostFn_t fn,
                                                         void *userData);

/* Static attributes of the kernel whose host stub is func. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
/* The kernel's device name (mangled, for C++). */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaFuncGetName(const char **name, const void *func);
/* The driver API's function (CUfunction) of the kernel whose host stub is
 * symbolPtr, for cuLaunchKernel and cuFuncGetAttribute. */
extern __host__ cudaError_t CUDARTAPI
cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr);

/* Blocks of func that fit on one multiprocessor at once; flags:
 * cudaOccupancy* bits. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                              int blockSize,
                                              size_t dynamicSMemSize);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
                                                       const void *func,
                                                       int blockSize,
                                                       size_t dynamicSMemSize,
                                                       unsigned int flags);

/* Dynamic shared memory per block left when numBlocks blocks of
 * blockSize threads share one multiprocessor. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                          const void *func, int numBlocks,
                                          int blockSize);

/* ---------------------------------------------------------------------- */
/* Memory                                                                  */
/* ---------------------------------------------------------------------- */

/* Device memory on the current device, 256-byte aligned. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaMalloc(void **devPtr, size_t size);

/* Free device memory (NULL is fine); unknown pointer: 1. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaFree(void *devPtr);

/* Pinned host memory, visible to every device at the same address. */
extern __host__ cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size);
extern __host__ cudaError_t CUDARTAPI cudaHostAlloc(void **ptr, size_t size,
                                                    unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaFreeHost(void *ptr);

/* Pin (and with cudaHostRegisterMapped, map) existing host memory. */
extern __host__ cudaError_t CUDARTAPI cudaHostRegister(void *ptr, size_t size,
                                                       unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaHostUnregister(void *ptr);

/* Device address of mapped pinned memory (flags must be 0), and the
 * flags it was allocated with. */
extern __host__ cudaError_t CUDARTAPI
cudaHostGetDevicePointer(void **devPtr, void *hostPtr, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int *flags,
                                                       void *hostPtr);

/* Managed memory, migrating between host and devices; flags:
 * cudaMemAttachGlobal (the C++ default) or cudaMemAttachHost. */
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaMallocManaged(void **devPtr, size_t size,
                  unsigned int flags P2PSIM_DEFAULT(cudaMemAttachGlobal));

/* Move managed memory to location ahead of use; flags must be 0. CUDA 13
 * takes a cudaMemLocation where 12.x took a device number. */
extern __host__ cudaError_t CUDARTAPI cudaMemPrefetchAsync(
    const void *devPtr, size_t count, struct cudaMemLocation location,
    unsigned int flags, cudaStream_t stream P2PSIM_DEFAULT(0));

/* Usage hints for managed memory; location as for cudaMemPrefetchAsync. */
extern __host__ cudaError_t CUDARTAPI
cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
              struct cudaMemLocation location);
/* What holds for every page of a managed range: dataSize 4 (an int or a
 * cudaMemLocationType), or for AccessedBy a multiple of 4 (a list of
 * devices padded with cudaInvalidDeviceId). */
extern __host__ cudaError_t CUDARTAPI
cudaMemRangeGetAttribute(void *data, size_t dataSize,
                         enum cudaMemRangeAttribute attribute,
                         const void *devPtr, size_t count);
extern __host__ cudaError_t CUDARTAPI
cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
                          enum cudaMemRangeAttribute *attributes,
                          size_t numAttributes, const void *devPtr,
                          size_t count);

/* What memory ptr points into (any pointer; ordinary host memory reports
 * cudaMemoryTypeUnregistered). */
extern __host__ cudaError_t CUDARTAPI cudaPointerGetAttributes(
    struct cudaPointerAttributes *attributes, const void *ptr);

/* ---------------------------------------------------------------------- */
/* Copies and sets                                                         */
/* ---------------------------------------------------------------------- */

/* Copy count bytes; with cudaMemcpyDefault the direction comes from the
 * pointers. Device-to-device copies do not wait for the host. */
extern __host__ cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src,
                                                 size_t count,
                                                 enum cudaMemcpyKind kind);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaMemcpyAsync(
    void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
    cudaStream_t stream P2PSIM_DEFAULT(0));

/* Copy between the memory of two devices; works without peer access
 * (staged through the host), directly with it. */
extern __host__ cudaError_t CUDARTAPI cudaMemcpyPeer(void *dst, int dstDevice,
                                                     const void *src,
                                                     int srcDevice,
                                                     size_t count);
extern __host__ cudaError_t CUDARTAPI
cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                    size_t count, cudaStream_t stream P2PSIM_DEFAULT(0));

/* Set count bytes of device memory to the byte value. */
extern __host__ cudaError_t CUDARTAPI cudaMemset(void *devPtr, int value,
                                                 size_t count);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaMemsetAsync(void *devPtr, int value, size_t count,
                cudaStream_t stream P2PSIM_DEFAULT(0));

/* ---------------------------------------------------------------------- */
/* Stream-ordered allocation and memory pools                              */
/* ---------------------------------------------------------------------- */

/* Allocate from the stream's device's current pool, or from memPool;
 * usable by work queued after it in stream. */
extern __host__ cudaError_t CUDARTAPI cudaMallocAsync(void **devPtr,
                                                      size_t size,
                                                      cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaMallocFromPoolAsync(
    void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);

/* Free once the work queued before it in stream is done. */
extern __host__ cudaError_t CUDARTAPI cudaFreeAsync(void *devPtr,
                                                    cudaStream_t stream);

/* The device's default pool, and its current pool (settable). */
extern __host__ cudaError_t CUDARTAPI
cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device);
extern __host__ cudaError_t CUDARTAPI
cudaDeviceSetMemPool(int device, cudaMemPool_t memPool);
extern __host__ cudaError_t CUDARTAPI
cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device);
/* The same by location (CUDA 13): a device's pools for
 * cudaMemAllocationTypePinned. */
extern __host__ cudaError_t CUDARTAPI
cudaMemGetDefaultMemPool(cudaMemPool_t *memPool,
                         struct cudaMemLocation *location,
                         enum cudaMemAllocationType type);
extern __host__ cudaError_t CUDARTAPI
cudaMemGetMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                  enum cudaMemAllocationType type);
extern __host__ cudaError_t CUDARTAPI
cudaMemSetMemPool(struct cudaMemLocation *location,
                  enum cudaMemAllocationType type, cudaMemPool_t memPool);

extern __host__ cudaError_t CUDARTAPI cudaMemPoolCreate(
    cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps);
extern __host__ cudaError_t CUDARTAPI cudaMemPoolDestroy(cudaMemPool_t memPool);

/* Release cached memory down to minBytesToKeep. */
extern __host__ cudaError_t CUDARTAPI cudaMemPoolTrimTo(cudaMemPool_t memPool,
                                                        size_t minBytesToKeep);

/* Pool attributes; value points at an int or a 64-bit unsigned integer
 * depending on attr. */
extern __host__ cudaError_t CUDARTAPI cudaMemPoolSetAttribute(
    cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
extern __host__ cudaError_t CUDARTAPI cudaMemPoolGetAttribute(
    cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);

/* Grant other devices access to the pool's memory (the P2P path of
 * stream-ordered allocation), and read one location's access. */
extern __host__ cudaError_t CUDARTAPI
cudaMemPoolSetAccess(cudaMemPool_t memPool,
                     const struct cudaMemAccessDesc *descList, size_t count);
extern __host__ cudaError_t CUDARTAPI
cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                     struct cudaMemLocation *location);

/* Share a pool with another process through an OS handle (for
 * cudaMemHandleTypePosixFileDescriptor, shareableHandle points at an int),
 * then individual allocations through export data. */
extern __host__ cudaError_t CUDARTAPI cudaMemPoolExportToShareableHandle(
    void *shareableHandle, cudaMemPool_t memPool,
    enum cudaMemAllocationHandleType handleType, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaMemPoolImportFromShareableHandle(
    cudaMemPool_t *memPool, void *shareableHandle,
    enum cudaMemAllocationHandleType handleType, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaMemPoolExportPointer(
    struct cudaMemPoolPtrExportData *exportData, void *ptr);
extern __host__ cudaError_t CUDARTAPI
cudaMemPoolImportPointer(void **ptr, cudaMemPool_t memPool,
                         struct cudaMemPoolPtrExportData *exportData);

/* ---------------------------------------------------------------------- */
/* Interprocess communication                                              */
/* ---------------------------------------------------------------------- */

/* Handle for an event created with cudaEventInterprocess |
 * cudaEventDisableTiming, and the event it names in another process. */
extern __host__ cudaError_t CUDARTAPI
cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event);
extern __host__ cudaError_t CUDARTAPI
cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle);

/* Handle for the cudaMalloc allocation at devPtr; mapping it in another
 * process (flags: cudaIpcMemLazyEnablePeerAccess; opening it in the
 * exporting process: 201); and unmapping it. */
extern __host__ cudaError_t CUDARTAPI
cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr);
extern __host__ cudaError_t CUDARTAPI cudaIpcOpenMemHandle(
    void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaIpcCloseMemHandle(void *devPtr);

/* ---------------------------------------------------------------------- */
/* Driver entry points                                                     */
/* ---------------------------------------------------------------------- */

/* Address of driver API function symbol ("cuMemAlloc"), for the runtime's
 * version or for cudaVersion; flags: cudaGetDriverEntryPointFlags. */
extern P2PSIM_CUDART_DEPRECATED __host__ cudaError_t CUDARTAPI
cudaGetDriverEntryPoint(
    const char *symbol, void **funcPtr, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus P2PSIM_DEFAULT(NULL));
extern __host__ cudaError_t CUDARTAPI cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion,
    unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus P2PSIM_DEFAULT(NULL));

/* The parts kept in headers of their own (each says what it covers). */
#include "p2psim_rt_graph.h"
#include "p2psim_rt_memcpy.h"
#include "p2psim_rt_texture.h"

/* Stream attributes: the launch attributes CUDA allows on a stream (the
 * types are p2psim_rt_memcpy.h's), by CUDA's names for them. */
#define cudaStreamAttrID cudaLaunchAttributeID
#define cudaStreamAttrValue cudaLaunchAttributeValue
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributeMemSyncDomainMap cudaLaunchAttributeMemSyncDomainMap
#define cudaStreamAttributeMemSyncDomain cudaLaunchAttributeMemSyncDomain
#define cudaStreamAttributePriority cudaLaunchAttributePriority
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cudaStreamSetAttribute P2PSIM_PTSZ(cudaStreamSetAttribute)
#define cudaStreamGetAttribute P2PSIM_PTSZ(cudaStreamGetAttribute)
#define cudaStreamCopyAttributes P2PSIM_PTSZ(cudaStreamCopyAttributes)
#endif
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaStreamSetAttribute(cudaStream_t hStream, cudaLaunchAttributeID attr,
                       const cudaLaunchAttributeValue *value);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaStreamGetAttribute(cudaStream_t hStream, cudaLaunchAttributeID attr,
                       cudaLaunchAttributeValue *value_out);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src);

/*
 * Per-thread builds: code that refers to the name cudaLaunchKernel after
 * #undef-ing the macro still reaches the per-thread entry point.
 */
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#undef cudaLaunchKernel
static __inline__ __host__ cudaError_t
cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                 size_t sharedMem, cudaStream_t stream)
{
    return cudaLaunchKernel_ptsz(func, gridDim, blockDim, args, sharedMem,
                                 stream);
}
#define cudaLaunchKernel P2PSIM_PTSZ(cudaLaunchKernel)
#endif

#if defined(__cplusplus)
}
#endif

#undef P2PSIM_DEFAULT
#undef P2PSIM_CUDART_DEPRECATED

#endif /* P2PSIM_CUDA_INCLUDE_CUDA_RUNTIME_API_H */
