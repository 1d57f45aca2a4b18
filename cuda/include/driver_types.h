/*
 * cuda/include/driver_types.h - the types, enumerations and flag values of
 * the CUDA runtime API (CUDA 13.0) that p2psim's runtime shim serves.
 *
 * Scope: what host programs doing multi-GPU and peer-to-peer work pass to
 * and get back from the runtime: error codes, copy kinds, stream/event/pool
 * handles, IPC handles, device properties and attributes, peer attributes,
 * pointer attributes, stream-ordered pool descriptors, managed-memory
 * advice, launch and occupancy parameters. Arrays, textures, surfaces,
 * graphs, external resources and graphics interop are not declared.
 *
 * Every name, numeric value, struct field, field order and size is a fact
 * of the CUDA 13.0 ABI; tests/abi/abi.sh compares each one with the
 * toolkit's headers. Enumerations are declared in full even where the shim
 * uses a few values, so a program's switch or table over them compiles.
 * Enumerators are written with explicit values, one per line.
 */
#ifndef P2PSIM_CUDA_INCLUDE_DRIVER_TYPES_H
#define P2PSIM_CUDA_INCLUDE_DRIVER_TYPES_H

#include <limits.h>
#include <stddef.h>

#include "host_defines.h"
#include "vector_types.h"

/* Presence macro: cuda-samples' helper_cuda.h defines its error-name
 * helpers only when it sees it. */
#ifndef __DRIVER_TYPES_H__
#define __DRIVER_TYPES_H__
#endif

/* Calling convention of callbacks the runtime calls back (host functions,
 * stream callbacks). */
#define CUDART_CB

/* ---------------------------------------------------------------------- */
/* Flag values                                                             */
/* ---------------------------------------------------------------------- */

/* cudaHostAlloc() flags. With unified addressing every pinned allocation
 * is portable and mapped at its host address anyway. */
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04

/* cudaHostRegister() flags. */
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08

/* cudaDeviceEnablePeerAccess() flags: none are defined besides 0. */
#define cudaPeerAccessDefault 0x00

/* Stream creation flags. NonBlocking: no implicit ordering with the legacy
 * default stream. */
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01

/* Special stream handles. 0 (NULL) is the legacy default stream of the
 * current device; cudaStreamLegacy names it explicitly even in programs
 * built for per-thread default streams; cudaStreamPerThread is the calling
 * thread's default stream. */
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

/* Event creation flags. Interprocess requires DisableTiming. */
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04

/* cudaEventRecordWithFlags() and cudaStreamWaitEvent() flags. */
#define cudaEventRecordDefault 0x00
#define cudaEventRecordExternal 0x01
#define cudaEventWaitDefault 0x00
#define cudaEventWaitExternal 0x01

/* cudaSetDeviceFlags() / cudaInitDevice() flags: how a host thread waits
 * for the device (low three bits), plus device behaviour bits. */
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04 /* older spelling of the one above */
#define cudaDeviceScheduleMask 0x07
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaDeviceSyncMemops 0x80
#define cudaDeviceMask 0xff

/* cudaIpcOpenMemHandle() flags: the only accepted value. */
#define cudaIpcMemLazyEnablePeerAccess 0x01

/* cudaMallocManaged() / cudaStreamAttachMemAsync() flags. */
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04

/* Occupancy calculator flags. */
#define cudaOccupancyDefault 0x00
#define cudaOccupancyDisableCachingOverride 0x01

/* Device ids with a special meaning (memory locations, advice). */
#define cudaCpuDeviceId ((int)-1)
#define cudaInvalidDeviceId ((int)-2)

/* cudaInitDevice() flags. */
#define cudaInitDeviceFlagsAreValid 0x01

/* cudaMemPoolProps.usage bit. */
#define cudaMemPoolCreateUsageHwDecompress 0x2

/* Bytes in an IPC memory or event handle. */
#define CUDA_IPC_HANDLE_SIZE 64

/* ---------------------------------------------------------------------- */
/* Error codes                                                             */
/* ---------------------------------------------------------------------- */

/*
 * Every runtime call returns one of these; a failing call also stores it as
 * the calling thread's last error (cudaGetLastError). Values marked
 * "sticky" leave the process unusable: every later call returns the same
 * code and it cannot be cleared.
 */
enum __device_builtin__ cudaError {
    cudaSuccess = 0,

    /* 1-99: bad arguments, configuration, and runtime/driver set-up */
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorCudartUnloading = 4,
    cudaErrorProfilerDisabled = 5,
    cudaErrorProfilerNotInitialized = 6,
    cudaErrorProfilerAlreadyStarted = 7,
    cudaErrorProfilerAlreadyStopped = 8,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidPitchValue = 12,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidHostPointer = 16,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidTexture = 18,
    cudaErrorInvalidTextureBinding = 19,
    cudaErrorInvalidChannelDescriptor = 20,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorAddressOfConstant = 22,
    cudaErrorTextureFetchFailed = 23,
    cudaErrorTextureNotBound = 24,
    cudaErrorSynchronizationError = 25,
    cudaErrorInvalidFilterSetting = 26,
    cudaErrorInvalidNormSetting = 27,
    cudaErrorMixedDeviceExecution = 28,
    cudaErrorNotYetImplemented = 31,
    cudaErrorMemoryValueTooLarge = 32,
    cudaErrorStubLibrary = 34,
    cudaErrorInsufficientDriver = 35,
    cudaErrorCallRequiresNewerDriver = 36,
    cudaErrorInvalidSurface = 37,
    cudaErrorDuplicateVariableName = 43,
    cudaErrorDuplicateTextureName = 44,
    cudaErrorDuplicateSurfaceName = 45,
    cudaErrorDevicesUnavailable = 46,
    cudaErrorIncompatibleDriverContext = 49,
    cudaErrorMissingConfiguration = 52,
    cudaErrorPriorLaunchFailure = 53,
    cudaErrorLaunchMaxDepthExceeded = 65,
    cudaErrorLaunchFileScopedTex = 66,
    cudaErrorLaunchFileScopedSurf = 67,
    cudaErrorSyncDepthExceeded = 68,
    cudaErrorLaunchPendingCountExceeded = 69,
    cudaErrorInvalidDeviceFunction = 98,

    /* 100-199: devices */
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorDeviceNotLicensed = 102,
    cudaErrorSoftwareValidityNotEstablished = 103,
    cudaErrorStartupFailure = 127,

    /* 200-299: images, contexts, mappings, peers */
    cudaErrorInvalidKernelImage = 200,
    cudaErrorDeviceUninitialized = 201,
    cudaErrorMapBufferObjectFailed = 205,
    cudaErrorUnmapBufferObjectFailed = 206,
    cudaErrorArrayIsMapped = 207,
    cudaErrorAlreadyMapped = 208,
    cudaErrorNoKernelImageForDevice = 209,
    cudaErrorAlreadyAcquired = 210,
    cudaErrorNotMapped = 211,
    cudaErrorNotMappedAsArray = 212,
    cudaErrorNotMappedAsPointer = 213,
    cudaErrorECCUncorrectable = 214,
    cudaErrorUnsupportedLimit = 215,
    cudaErrorDeviceAlreadyInUse = 216,
    cudaErrorPeerAccessUnsupported = 217,
    cudaErrorInvalidPtx = 218,
    cudaErrorInvalidGraphicsContext = 219,
    cudaErrorNvlinkUncorrectable = 220,
    cudaErrorJitCompilerNotFound = 221,
    cudaErrorUnsupportedPtxVersion = 222,
    cudaErrorJitCompilationDisabled = 223,
    cudaErrorUnsupportedExecAffinity = 224,
    cudaErrorUnsupportedDevSideSync = 225,
    cudaErrorContained = 226, /* sticky */

    /* 300-399: sources, files, shared objects */
    cudaErrorInvalidSource = 300,
    cudaErrorFileNotFound = 301,
    cudaErrorSharedObjectSymbolNotFound = 302,
    cudaErrorSharedObjectInitFailed = 303,
    cudaErrorOperatingSystem = 304,

    /* 400-499: handles and state */
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorIllegalState = 401,
    cudaErrorLossyQuery = 402,

    /* 500-599: lookups */
    cudaErrorSymbolNotFound = 500,

    /* 600-699: asynchronous work still pending (not a failure) */
    cudaErrorNotReady = 600,

    /* 700-799: faults while running work, peer access */
    cudaErrorIllegalAddress = 700, /* sticky */
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702, /* sticky */
    cudaErrorLaunchIncompatibleTexturing = 703,
    cudaErrorPeerAccessAlreadyEnabled = 704,
    cudaErrorPeerAccessNotEnabled = 705,
    cudaErrorSetOnActiveProcess = 708,
    cudaErrorContextIsDestroyed = 709,
    cudaErrorAssert = 710, /* sticky */
    cudaErrorTooManyPeers = 711,
    cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713,
    cudaErrorHardwareStackError = 714,  /* sticky */
    cudaErrorIllegalInstruction = 715,  /* sticky */
    cudaErrorMisalignedAddress = 716,   /* sticky */
    cudaErrorInvalidAddressSpace = 717, /* sticky */
    cudaErrorInvalidPc = 718,           /* sticky */
    cudaErrorLaunchFailure = 719,       /* sticky */
    cudaErrorCooperativeLaunchTooLarge = 720,
    cudaErrorTensorMemoryLeak = 721, /* sticky */

    /* 800-899: permissions, system, MPS, dynamic parallelism */
    cudaErrorNotPermitted = 800,
    cudaErrorNotSupported = 801,
    cudaErrorSystemNotReady = 802,
    cudaErrorSystemDriverMismatch = 803,
    cudaErrorCompatNotSupportedOnDevice = 804,
    cudaErrorMpsConnectionFailed = 805,
    cudaErrorMpsRpcFailure = 806,
    cudaErrorMpsServerNotReady = 807,
    cudaErrorMpsMaxClientsReached = 808,
    cudaErrorMpsMaxConnectionsReached = 809,
    cudaErrorMpsClientTerminated = 810, /* sticky */
    cudaErrorCdpNotSupported = 811,
    cudaErrorCdpVersionMismatch = 812,

    /* 900-999: stream capture, graphs, clusters, resources */
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureMerge = 902,
    cudaErrorStreamCaptureUnmatched = 903,
    cudaErrorStreamCaptureUnjoined = 904,
    cudaErrorStreamCaptureIsolation = 905,
    cudaErrorStreamCaptureImplicit = 906,
    cudaErrorCapturedEvent = 907,
    cudaErrorStreamCaptureWrongThread = 908,
    cudaErrorTimeout = 909,
    cudaErrorGraphExecUpdateFailure = 910,
    cudaErrorExternalDevice = 911, /* sticky */
    cudaErrorInvalidClusterSize = 912,
    cudaErrorFunctionNotLoaded = 913,
    cudaErrorInvalidResourceType = 914,
    cudaErrorInvalidResourceConfiguration = 915,
    cudaErrorUnknown = 999,

    /* Base of the range reserved for API-failure codes. */
    cudaErrorApiFailureBase = 10000
};

/* ---------------------------------------------------------------------- */
/* Memory and copies                                                       */
/* ---------------------------------------------------------------------- */

/* What cudaPointerGetAttributes() finds behind a pointer. Unregistered:
 * ordinary pageable host memory (not an error since CUDA 11). */
enum __device_builtin__ cudaMemoryType {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
    cudaMemoryTypeManaged = 3
};

/* Direction of a copy. Default: inferred from the pointers (unified
 * addressing). */
enum __device_builtin__ cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

/* cudaMemAdvise() advice for managed memory. */
enum __device_builtin__ cudaMemoryAdvise {
    cudaMemAdviseSetReadMostly = 1,
    cudaMemAdviseUnsetReadMostly = 2,
    cudaMemAdviseSetPreferredLocation = 3,
    cudaMemAdviseUnsetPreferredLocation = 4,
    cudaMemAdviseSetAccessedBy = 5,
    cudaMemAdviseUnsetAccessedBy = 6
};

/* Attributes of a managed range (cudaMemRangeGetAttribute). */
enum __device_builtin__ cudaMemRangeAttribute {
    cudaMemRangeAttributeReadMostly = 1,
    cudaMemRangeAttributePreferredLocation = 2,
    cudaMemRangeAttributeAccessedBy = 3,
    cudaMemRangeAttributeLastPrefetchLocation = 4,
    cudaMemRangeAttributePreferredLocationType = 5,
    cudaMemRangeAttributePreferredLocationId = 6,
    cudaMemRangeAttributeLastPrefetchLocationType = 7,
    cudaMemRangeAttributeLastPrefetchLocationId = 8
};

/* Kind of place a cudaMemLocation names; Invalid and None share 0. */
enum __device_builtin__ cudaMemLocationType {
    cudaMemLocationTypeInvalid = 0,
    cudaMemLocationTypeNone = 0,
    cudaMemLocationTypeDevice = 1,
    cudaMemLocationTypeHost = 2,
    cudaMemLocationTypeHostNuma = 3,
    cudaMemLocationTypeHostNumaCurrent = 4
};

/* A place memory can live in or be accessed from. id: the device ordinal
 * for Device, the NUMA node for HostNuma, ignored otherwise. 8 bytes; used
 * by value in cudaMemPrefetchAsync() and cudaMemAdvise() since CUDA 13. */
struct __device_builtin__ cudaMemLocation {
    enum cudaMemLocationType type;
    int id;
};

/* Access a location is granted to a pool's memory. */
enum __device_builtin__ cudaMemAccessFlags {
    cudaMemAccessFlagsProtNone = 0,
    cudaMemAccessFlagsProtRead = 1,
    cudaMemAccessFlagsProtReadWrite = 3
};

/* One grant for cudaMemPoolSetAccess(): 12 bytes. */
struct __device_builtin__ cudaMemAccessDesc {
    struct cudaMemLocation location;
    enum cudaMemAccessFlags flags;
};

/* Kind of memory a pool hands out. */
enum __device_builtin__ cudaMemAllocationType {
    cudaMemAllocationTypeInvalid = 0x0,
    cudaMemAllocationTypePinned = 0x1,
    cudaMemAllocationTypeManaged = 0x2,
    cudaMemAllocationTypeMax = 0x7FFFFFFF
};

/* OS handle kinds a pool can be exported as (bit mask). */
enum __device_builtin__ cudaMemAllocationHandleType {
    cudaMemHandleTypeNone = 0x0,
    cudaMemHandleTypePosixFileDescriptor = 0x1,
    cudaMemHandleTypeWin32 = 0x2,
    cudaMemHandleTypeWin32Kmt = 0x4,
    cudaMemHandleTypeFabric = 0x8
};

/* Properties of a pool made by cudaMemPoolCreate(). Unused bytes must be
 * zero. */
struct __device_builtin__ cudaMemPoolProps {
    enum cudaMemAllocationType allocType;
    enum cudaMemAllocationHandleType handleTypes;
    struct cudaMemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;       /* 0: no limit beyond the device's */
    unsigned short usage; /* cudaMemPoolCreateUsage* bits */
    unsigned char reserved[54];
};

/* Opaque description of one pool allocation, for sharing it with another
 * process (cudaMemPoolExportPointer / ImportPointer). */
struct __device_builtin__ cudaMemPoolPtrExportData {
    unsigned char reserved[64];
};

/* Pool attributes (cudaMemPoolGetAttribute / SetAttribute); value types
 * are int for the Reuse* flags, cuuint64_t-sized for the others. */
enum __device_builtin__ cudaMemPoolAttr {
    cudaMemPoolReuseFollowEventDependencies = 0x1,
    cudaMemPoolReuseAllowOpportunistic = 0x2,
    cudaMemPoolReuseAllowInternalDependencies = 0x3,
    cudaMemPoolAttrReleaseThreshold = 0x4,
    cudaMemPoolAttrReservedMemCurrent = 0x5,
    cudaMemPoolAttrReservedMemHigh = 0x6,
    cudaMemPoolAttrUsedMemCurrent = 0x7,
    cudaMemPoolAttrUsedMemHigh = 0x8
};

/* ---------------------------------------------------------------------- */
/* Pointer and kernel attributes                                           */
/* ---------------------------------------------------------------------- */

/* Result of cudaPointerGetAttributes(), 88 bytes. For device memory,
 * device is the owner and hostPointer is NULL; for pinned host memory both
 * pointers are the pointer itself (unified addressing). */
struct __device_builtin__ cudaPointerAttributes {
    enum cudaMemoryType type;
    int device;
    void *devicePointer;
    void *hostPointer;
    long reserved[8];
};

/* Result of cudaFuncGetAttributes(), 144 bytes. */
struct __device_builtin__ cudaFuncAttributes {
    size_t sharedSizeBytes; /* static shared memory */
    size_t constSizeBytes;
    size_t localSizeBytes; /* per thread */
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;    /* major * 10 + minor */
    int binaryVersion; /* major * 10 + minor */
    int cacheModeCA;
    int maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
    int clusterDimMustBeSet;
    int requiredClusterWidth;
    int requiredClusterHeight;
    int requiredClusterDepth;
    int clusterSchedulingPolicyPreference;
    int nonPortableClusterSizeAllowed;
    int reserved[16];
};

/* Settable kernel attributes (cudaFuncSetAttribute). Max counts them. */
enum __device_builtin__ cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
    cudaFuncAttributeClusterDimMustBeSet = 10,
    cudaFuncAttributeRequiredClusterWidth = 11,
    cudaFuncAttributeRequiredClusterHeight = 12,
    cudaFuncAttributeRequiredClusterDepth = 13,
    cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
    cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
    cudaFuncAttributeMax = 16
};

/* L1 / shared-memory split preference. */
enum __device_builtin__ cudaFuncCache {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3
};

/* Shared-memory bank size (deprecated settings). */
enum __device_builtin__ cudaSharedMemConfig {
    cudaSharedMemBankSizeDefault = 0,
    cudaSharedMemBankSizeFourByte = 1,
    cudaSharedMemBankSizeEightByte = 2
};

/* Atomic operations, and what a path can do for them
 * (cudaDeviceGetP2PAtomicCapabilities): bits. */
enum __device_builtin__ cudaAtomicOperation {
    cudaAtomicOperationIntegerAdd = 0,
    cudaAtomicOperationIntegerMin = 1,
    cudaAtomicOperationIntegerMax = 2,
    cudaAtomicOperationIntegerIncrement = 3,
    cudaAtomicOperationIntegerDecrement = 4,
    cudaAtomicOperationAnd = 5,
    cudaAtomicOperationOr = 6,
    cudaAtomicOperationXOR = 7,
    cudaAtomicOperationExchange = 8,
    cudaAtomicOperationCAS = 9,
    cudaAtomicOperationFloatAdd = 10,
    cudaAtomicOperationFloatMin = 11,
    cudaAtomicOperationFloatMax = 12
};
enum __device_builtin__ cudaAtomicOperationCapability {
    cudaAtomicCapabilitySigned = 1u << 0,
    cudaAtomicCapabilityUnsigned = 1u << 1,
    cudaAtomicCapabilityReduction = 1u << 2,
    cudaAtomicCapabilityScalar32 = 1u << 3,
    cudaAtomicCapabilityScalar64 = 1u << 4,
    cudaAtomicCapabilityScalar128 = 1u << 5,
    cudaAtomicCapabilityVector32x4 = 1u << 6
};

/* Per-device limits (cudaDeviceGetLimit / SetLimit). */
enum __device_builtin__ cudaLimit {
    cudaLimitStackSize = 0x00,
    cudaLimitPrintfFifoSize = 0x01,
    cudaLimitMallocHeapSize = 0x02,
    cudaLimitDevRuntimeSyncDepth = 0x03,
    cudaLimitDevRuntimePendingLaunchCount = 0x04,
    cudaLimitMaxL2FetchGranularity = 0x05,
    cudaLimitPersistingL2CacheSize = 0x06
};

/* ---------------------------------------------------------------------- */
/* Streams                                                                 */
/* ---------------------------------------------------------------------- */

/* Whether a stream is being captured into a graph. */
enum __device_builtin__ cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2
};

/* Which unsafe calls a capture forbids (NCCL sets Relaxed around its
 * allocations with cudaThreadExchangeStreamCaptureMode). */
enum __device_builtin__ cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
};

/* A host function queued with cudaLaunchHostFunc(). */
typedef void(CUDART_CB *cudaHostFn_t)(void *userData);

/* ---------------------------------------------------------------------- */
/* Devices                                                                 */
/* ---------------------------------------------------------------------- */

/* How many processes and threads may use a device. */
enum __device_builtin__ cudaComputeMode {
    cudaComputeModeDefault = 0,
    cudaComputeModeExclusive = 1,
    cudaComputeModeProhibited = 2,
    cudaComputeModeExclusiveProcess = 3
};

/* Bits of cudaDeviceProp.gpuDirectRDMAFlushWritesOptions. */
enum __device_builtin__ cudaFlushGPUDirectRDMAWritesOptions {
    cudaFlushGPUDirectRDMAWritesOptionHost = 1 << 0,
    cudaFlushGPUDirectRDMAWritesOptionMemOps = 1 << 1
};

/* Values of cudaDeviceProp.gpuDirectRDMAWritesOrdering. */
enum __device_builtin__ cudaGPUDirectRDMAWritesOrdering {
    cudaGPUDirectRDMAWritesOrderingNone = 0,
    cudaGPUDirectRDMAWritesOrderingOwner = 100,
    cudaGPUDirectRDMAWritesOrderingAllDevices = 200
};

/*
 * Device attributes (cudaDeviceGetAttribute). Every value of CUDA 13.0,
 * including the reserved slots; gaps in the numbering are attributes that
 * CUDA has retired. Max is one past the last.
 */
enum __device_builtin__ cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxPitch = 11,
    cudaDevAttrMaxRegistersPerBlock = 12,
    cudaDevAttrClockRate = 13, /* kHz */
    cudaDevAttrTextureAlignment = 14,
    cudaDevAttrGpuOverlap = 15,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrKernelExecTimeout = 17,
    cudaDevAttrIntegrated = 18,
    cudaDevAttrCanMapHostMemory = 19,
    cudaDevAttrComputeMode = 20,
    cudaDevAttrMaxTexture1DWidth = 21,
    cudaDevAttrMaxTexture2DWidth = 22,
    cudaDevAttrMaxTexture2DHeight = 23,
    cudaDevAttrMaxTexture3DWidth = 24,
    cudaDevAttrMaxTexture3DHeight = 25,
    cudaDevAttrMaxTexture3DDepth = 26,
    cudaDevAttrMaxTexture2DLayeredWidth = 27,
    cudaDevAttrMaxTexture2DLayeredHeight = 28,
    cudaDevAttrMaxTexture2DLayeredLayers = 29,
    cudaDevAttrSurfaceAlignment = 30,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrEccEnabled = 32,
    cudaDevAttrPciBusId = 33,
    cudaDevAttrPciDeviceId = 34,
    cudaDevAttrTccDriver = 35,
    cudaDevAttrMemoryClockRate = 36, /* kHz */
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrMaxTexture1DLayeredWidth = 42,
    cudaDevAttrMaxTexture1DLayeredLayers = 43,
    cudaDevAttrMaxTexture2DGatherWidth = 45,
    cudaDevAttrMaxTexture2DGatherHeight = 46,
    cudaDevAttrMaxTexture3DWidthAlt = 47,
    cudaDevAttrMaxTexture3DHeightAlt = 48,
    cudaDevAttrMaxTexture3DDepthAlt = 49,
    cudaDevAttrPciDomainId = 50,
    cudaDevAttrTexturePitchAlignment = 51,
    cudaDevAttrMaxTextureCubemapWidth = 52,
    cudaDevAttrMaxTextureCubemapLayeredWidth = 53,
    cudaDevAttrMaxTextureCubemapLayeredLayers = 54,
    cudaDevAttrMaxSurface1DWidth = 55,
    cudaDevAttrMaxSurface2DWidth = 56,
    cudaDevAttrMaxSurface2DHeight = 57,
    cudaDevAttrMaxSurface3DWidth = 58,
    cudaDevAttrMaxSurface3DHeight = 59,
    cudaDevAttrMaxSurface3DDepth = 60,
    cudaDevAttrMaxSurface1DLayeredWidth = 61,
    cudaDevAttrMaxSurface1DLayeredLayers = 62,
    cudaDevAttrMaxSurface2DLayeredWidth = 63,
    cudaDevAttrMaxSurface2DLayeredHeight = 64,
    cudaDevAttrMaxSurface2DLayeredLayers = 65,
    cudaDevAttrMaxSurfaceCubemapWidth = 66,
    cudaDevAttrMaxSurfaceCubemapLayeredWidth = 67,
    cudaDevAttrMaxSurfaceCubemapLayeredLayers = 68,
    cudaDevAttrMaxTexture1DLinearWidth = 69,
    cudaDevAttrMaxTexture2DLinearWidth = 70,
    cudaDevAttrMaxTexture2DLinearHeight = 71,
    cudaDevAttrMaxTexture2DLinearPitch = 72,
    cudaDevAttrMaxTexture2DMipmappedWidth = 73,
    cudaDevAttrMaxTexture2DMipmappedHeight = 74,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrMaxTexture1DMipmappedWidth = 77,
    cudaDevAttrStreamPrioritiesSupported = 78,
    cudaDevAttrGlobalL1CacheSupported = 79,
    cudaDevAttrLocalL1CacheSupported = 80,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxRegistersPerMultiprocessor = 82,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrIsMultiGpuBoard = 84,
    cudaDevAttrMultiGpuBoardGroupID = 85,
    cudaDevAttrHostNativeAtomicSupported = 86,
    cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
    cudaDevAttrPageableMemoryAccess = 88,
    cudaDevAttrConcurrentManagedAccess = 89,
    cudaDevAttrComputePreemptionSupported = 90,
    cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
    cudaDevAttrReserved92 = 92,
    cudaDevAttrReserved93 = 93,
    cudaDevAttrReserved94 = 94,
    cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrReserved96 = 96,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrCanFlushRemoteWrites = 98,
    cudaDevAttrHostRegisterSupported = 99,
    cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
    cudaDevAttrDirectManagedMemAccessFromHost = 101,
    cudaDevAttrMaxBlocksPerMultiprocessor = 106,
    cudaDevAttrMaxPersistingL2CacheSize = 108,
    cudaDevAttrMaxAccessPolicyWindowSize = 109,
    cudaDevAttrReservedSharedMemoryPerBlock = 111,
    cudaDevAttrSparseCudaArraySupported = 112,
    cudaDevAttrHostRegisterReadOnlySupported = 113,
    cudaDevAttrTimelineSemaphoreInteropSupported = 114,
    cudaDevAttrMemoryPoolsSupported = 115,
    cudaDevAttrGPUDirectRDMASupported = 116,
    cudaDevAttrGPUDirectRDMAFlushWritesOptions = 117,
    cudaDevAttrGPUDirectRDMAWritesOrdering = 118,
    cudaDevAttrMemoryPoolSupportedHandleTypes = 119,
    cudaDevAttrClusterLaunch = 120,
    cudaDevAttrDeferredMappingCudaArraySupported = 121,
    cudaDevAttrReserved122 = 122,
    cudaDevAttrReserved123 = 123,
    cudaDevAttrReserved124 = 124,
    cudaDevAttrIpcEventSupport = 125,
    cudaDevAttrMemSyncDomainCount = 126,
    cudaDevAttrReserved127 = 127,
    cudaDevAttrReserved128 = 128,
    cudaDevAttrReserved129 = 129,
    cudaDevAttrNumaConfig = 130,
    cudaDevAttrNumaId = 131,
    cudaDevAttrReserved132 = 132,
    cudaDevAttrMpsEnabled = 133,
    cudaDevAttrHostNumaId = 134,
    cudaDevAttrD3D12CigSupported = 135,
    cudaDevAttrVulkanCigSupported = 138,
    cudaDevAttrGpuPciDeviceId = 139,
    cudaDevAttrGpuPciSubsystemId = 140,
    cudaDevAttrReserved141 = 141,
    cudaDevAttrHostNumaMemoryPoolsSupported = 142,
    cudaDevAttrHostNumaMultinodeIpcSupported = 143,
    cudaDevAttrHostMemoryPoolsSupported = 144,
    cudaDevAttrReserved145 = 145,
    cudaDevAttrOnlyPartialHostNativeAtomicSupported = 147,
    cudaDevAttrMax = 148
};

/* Attributes of an ordered device pair (cudaDeviceGetP2PAttribute).
 * PerformanceRank: lower is better. */
enum __device_builtin__ cudaDeviceP2PAttr {
    cudaDevP2PAttrPerformanceRank = 1,
    cudaDevP2PAttrAccessSupported = 2,
    cudaDevP2PAttrNativeAtomicSupported = 3,
    cudaDevP2PAttrCudaArrayAccessSupported = 4,
    cudaDevP2PAttrOnlyPartialNativeAtomicSupported = 5
};

/* 16-byte device UUID. The guard is shared with the driver API's cuda.h,
 * so a program may include both. */
#ifndef CU_UUID_HAS_BEEN_DEFINED
#define CU_UUID_HAS_BEEN_DEFINED
struct __device_builtin__ CUuuid_st {
    char bytes[16];
};
typedef struct CUuuid_st CUuuid;
#endif
typedef struct CUuuid_st cudaUUID_t;

/*
 * Device properties (cudaGetDeviceProperties), CUDA 13.0 layout: 1008
 * bytes. CUDA 13 dropped fields that 12.x had (clockRate, memoryClockRate,
 * computeMode, kernelExecTimeoutEnabled, deviceOverlap, maxTexture1DLinear,
 * cooperativeMultiDeviceLaunch); read those through cudaDeviceGetAttribute.
 * Sizes are bytes unless noted; flags are 0 or 1.
 */
struct __device_builtin__ cudaDeviceProp {
    /* Identity */
    char name[256]; /* NUL-terminated product name */
    cudaUUID_t uuid;
    char luid[8];                    /* Windows only */
    unsigned int luidDeviceNodeMask; /* Windows only */

    /* Memory and execution limits */
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize; /* threads */
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    size_t totalConstMem;
    int major; /* compute capability */
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int multiProcessorCount;
    int integrated;
    int canMapHostMemory;

    /* Texture and surface limits (elements) */
    int maxTexture1D;
    int maxTexture1DMipmap;
    int maxTexture2D[2];
    int maxTexture2DMipmap[2];
    int maxTexture2DLinear[3];
    int maxTexture2DGather[2];
    int maxTexture3D[3];
    int maxTexture3DAlt[3];
    int maxTextureCubemap;
    int maxTexture1DLayered[2];
    int maxTexture2DLayered[3];
    int maxTextureCubemapLayered[2];
    int maxSurface1D;
    int maxSurface2D[2];
    int maxSurface3D[3];
    int maxSurface1DLayered[2];
    int maxSurface2DLayered[3];
    int maxSurfaceCubemap;
    int maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;

    /* Features, PCI location, memory system */
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int tccDriver;
    int asyncEngineCount; /* copy engines */
    int unifiedAddressing;
    int memoryBusWidth; /* bits */
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int hostNativeAtomicSupported;
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int computePreemptionSupported;
    int canUseHostPointerForRegisteredMem;
    int cooperativeLaunch;
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables;
    int directManagedMemAccessFromHost;
    int maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported;
    int sparseCudaArraySupported;
    int hostRegisterReadOnlySupported;
    int timelineSemaphoreInteropSupported;
    int memoryPoolsSupported;
    int gpuDirectRDMASupported;
    unsigned int gpuDirectRDMAFlushWritesOptions; /* cudaFlushGPUDirect... */
    int gpuDirectRDMAWritesOrdering; /* enum cudaGPUDirectRDMAWrites... */
    unsigned int memoryPoolSupportedHandleTypes; /* cudaMemHandleType* bits */
    int deferredMappingCudaArraySupported;
    int ipcEventSupported;
    int clusterLaunch;
    int unifiedFunctionPointers;
    int deviceNumaConfig;
    int deviceNumaId;
    int mpsEnabled;
    int hostNumaId;
    unsigned int gpuPciDeviceID;
    unsigned int gpuPciSubsystemID;
    int hostNumaMultinodeIpcSupported;
    int reserved[56];
};

/* ---------------------------------------------------------------------- */
/* Interprocess handles                                                    */
/* ---------------------------------------------------------------------- */

/* Opaque, 64 bytes each; programs copy them byte-wise between processes. */
typedef struct __device_builtin__ cudaIpcEventHandle_st {
    char reserved[CUDA_IPC_HANDLE_SIZE];
} cudaIpcEventHandle_t;

typedef struct __device_builtin__ cudaIpcMemHandle_st {
    char reserved[CUDA_IPC_HANDLE_SIZE];
} cudaIpcMemHandle_t;

/* ---------------------------------------------------------------------- */
/* Driver entry points                                                     */
/* ---------------------------------------------------------------------- */

/* Which variant of a driver symbol cudaGetDriverEntryPoint*() returns. */
enum __device_builtin__ cudaGetDriverEntryPointFlags {
    cudaEnableDefault = 0x0,
    cudaEnableLegacyStream = 0x1,
    cudaEnablePerThreadDefaultStream = 0x2
};

/* Outcome of a driver symbol lookup. (The misspelling is CUDA's.) */
enum __device_builtin__ cudaDriverEntryPointQueryResult {
    cudaDriverEntryPointSuccess = 0,
    cudaDriverEntryPointSymbolNotFound = 1,
    cudaDriverEntryPointVersionNotSufficent = 2
};

/* ---------------------------------------------------------------------- */
/* Handle types                                                            */
/* ---------------------------------------------------------------------- */

typedef enum cudaError cudaError_t;

/* Opaque handles; the struct tags are the driver API's, so a runtime
 * handle and its driver counterpart (CUstream, CUevent, ...) are the same
 * pointer type. */
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUfunc_st *cudaFunction_t;
typedef struct CUkern_st *cudaKernel_t;
typedef struct CUmemPoolHandle_st *cudaMemPool_t;

#endif /* P2PSIM_CUDA_INCLUDE_DRIVER_TYPES_H */
