/*
 * cuda/include/p2psim_rt_memcpy.h - the CUDA 13.0 runtime's copies beyond
 * one dimension (2D and 3D copies and sets, pitched allocations), symbols
 * (cudaMemcpyToSymbol ...), channel descriptors and the extensible launch
 * (cudaLaunchKernelExC), as served by p2psim (part of cuda_runtime_api.h,
 * which includes it; not to be included alone). Types and enum values are
 * CUDA's; tools/gen-dispatch.sh reads the declarations here as it reads
 * cuda_runtime_api.h's. make_cudaPitchedPtr, make_cudaPos and
 * make_cudaExtent are in driver_functions.h, as in the toolkit.
 */
#ifndef P2PSIM_CUDA_INCLUDE_P2PSIM_RT_MEMCPY_H
#define P2PSIM_CUDA_INCLUDE_P2PSIM_RT_MEMCPY_H

#ifndef P2PSIM_CUDA_INCLUDE_CUDA_RUNTIME_API_H
#error "p2psim_rt_memcpy.h is part of cuda_runtime_api.h: include that instead"
#endif

/* The format of one element of a CUDA array or texture: bits per channel
 * and how they are read. */
enum __device_builtin__ cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3,
    cudaChannelFormatKindNV12 = 4,
    cudaChannelFormatKindUnsignedNormalized8X1 = 5,
    cudaChannelFormatKindUnsignedNormalized8X2 = 6,
    cudaChannelFormatKindUnsignedNormalized8X4 = 7,
    cudaChannelFormatKindUnsignedNormalized16X1 = 8,
    cudaChannelFormatKindUnsignedNormalized16X2 = 9,
    cudaChannelFormatKindUnsignedNormalized16X4 = 10,
    cudaChannelFormatKindSignedNormalized8X1 = 11,
    cudaChannelFormatKindSignedNormalized8X2 = 12,
    cudaChannelFormatKindSignedNormalized8X4 = 13,
    cudaChannelFormatKindSignedNormalized16X1 = 14,
    cudaChannelFormatKindSignedNormalized16X2 = 15,
    cudaChannelFormatKindSignedNormalized16X4 = 16,
    cudaChannelFormatKindUnsignedBlockCompressed1 = 17,
    cudaChannelFormatKindUnsignedBlockCompressed1SRGB = 18,
    cudaChannelFormatKindUnsignedBlockCompressed2 = 19,
    cudaChannelFormatKindUnsignedBlockCompressed2SRGB = 20,
    cudaChannelFormatKindUnsignedBlockCompressed3 = 21,
    cudaChannelFormatKindUnsignedBlockCompressed3SRGB = 22,
    cudaChannelFormatKindUnsignedBlockCompressed4 = 23,
    cudaChannelFormatKindSignedBlockCompressed4 = 24,
    cudaChannelFormatKindUnsignedBlockCompressed5 = 25,
    cudaChannelFormatKindSignedBlockCompressed5 = 26,
    cudaChannelFormatKindUnsignedBlockCompressed6H = 27,
    cudaChannelFormatKindSignedBlockCompressed6H = 28,
    cudaChannelFormatKindUnsignedBlockCompressed7 = 29,
    cudaChannelFormatKindUnsignedBlockCompressed7SRGB = 30,
    cudaChannelFormatKindUnsignedNormalized1010102 = 31
};

struct __device_builtin__ cudaChannelFormatDesc {
    int x, y, z, w;
    enum cudaChannelFormatKind f;
};

extern __host__ struct cudaChannelFormatDesc CUDARTAPI cudaCreateChannelDesc(
    int x, int y, int z, int w, enum cudaChannelFormatKind f);


/* ---- per-thread default stream --------------------------------------------- */

/* With CUDA_API_PER_THREAD_DEFAULT_STREAM these calls bind to their _ptds
 * (synchronous) or _ptsz (stream) twins, as with the toolkit. */
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cudaMemcpyToSymbol P2PSIM_PTDS(cudaMemcpyToSymbol)
#define cudaMemcpyFromSymbol P2PSIM_PTDS(cudaMemcpyFromSymbol)
#define cudaMemcpy2D P2PSIM_PTDS(cudaMemcpy2D)
#define cudaMemcpy3D P2PSIM_PTDS(cudaMemcpy3D)
#define cudaMemcpy3DPeer P2PSIM_PTDS(cudaMemcpy3DPeer)
#define cudaMemset2D P2PSIM_PTDS(cudaMemset2D)
#define cudaMemset3D P2PSIM_PTDS(cudaMemset3D)
#define cudaMemcpyToSymbolAsync P2PSIM_PTSZ(cudaMemcpyToSymbolAsync)
#define cudaMemcpyFromSymbolAsync P2PSIM_PTSZ(cudaMemcpyFromSymbolAsync)
#define cudaMemcpy2DAsync P2PSIM_PTSZ(cudaMemcpy2DAsync)
#define cudaMemcpy3DAsync P2PSIM_PTSZ(cudaMemcpy3DAsync)
#define cudaMemcpy3DPeerAsync P2PSIM_PTSZ(cudaMemcpy3DPeerAsync)
#define cudaMemset2DAsync P2PSIM_PTSZ(cudaMemset2DAsync)
#define cudaMemset3DAsync P2PSIM_PTSZ(cudaMemset3DAsync)
#define cudaLaunchKernelExC P2PSIM_PTSZ(cudaLaunchKernelExC)
#endif

/* ---- types ------------------------------------------------------------------- */

/*
 * The pitched pointers, positions and parameters of a 3D copy
 * (cudaArray_t, cudaPitchedPtr, cudaExtent, cudaPos, cudaMemcpy3DParms)
 * are defined by p2psim_rt_graph.h, whose memcpy nodes take them and
 * which cuda_runtime_api.h includes before this part.
 */
#ifndef P2PSIM_RT_MEMCPY3D_TYPES
#error "p2psim_rt_memcpy.h needs the 3D copy types of p2psim_rt_graph.h"
#endif

/* A 3D copy between devices named explicitly (no kind: device to
 * device). */
struct __device_builtin__ cudaMemcpy3DPeerParms {
    cudaArray_t srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    int srcDevice;
    cudaArray_t dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    int dstDevice;
    struct cudaExtent extent;
};

/*
 * The extensible launch's configuration (cudaLaunchKernelExC) and its
 * attributes, which streams (cudaStreamSetAttribute, after this part in
 * cuda_runtime_api.h) and graph nodes share.
 */
typedef struct CUgraphDeviceUpdatableNode_st *cudaGraphDeviceNode_t;

enum __device_builtin__ cudaAccessProperty {
    cudaAccessPropertyNormal = 0,
    cudaAccessPropertyStreaming = 1,
    cudaAccessPropertyPersisting = 2
};

/* An L2 persistence hint for [base_ptr, base_ptr + num_bytes). */
struct __device_builtin__ cudaAccessPolicyWindow {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    enum cudaAccessProperty hitProp;
    enum cudaAccessProperty missProp;
};

enum __device_builtin__ cudaSynchronizationPolicy {
    cudaSyncPolicyAuto = 1,
    cudaSyncPolicySpin = 2,
    cudaSyncPolicyYield = 3,
    cudaSyncPolicyBlockingSync = 4
};

enum __device_builtin__ cudaClusterSchedulingPolicy {
    cudaClusterSchedulingPolicyDefault = 0,
    cudaClusterSchedulingPolicySpread = 1,
    cudaClusterSchedulingPolicyLoadBalancing = 2
};

typedef __device_builtin__ enum cudaLaunchMemSyncDomain {
    cudaLaunchMemSyncDomainDefault = 0,
    cudaLaunchMemSyncDomainRemote = 1
} cudaLaunchMemSyncDomain;

typedef __device_builtin__ struct cudaLaunchMemSyncDomainMap_st {
    unsigned char default_;
    unsigned char remote;
} cudaLaunchMemSyncDomainMap;

typedef __device_builtin__ enum cudaLaunchAttributeID {
    cudaLaunchAttributeIgnore = 0,
    cudaLaunchAttributeAccessPolicyWindow = 1,
    cudaLaunchAttributeCooperative = 2,
    cudaLaunchAttributeSynchronizationPolicy = 3,
    cudaLaunchAttributeClusterDimension = 4,
    cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
    cudaLaunchAttributeProgrammaticStreamSerialization = 6,
    cudaLaunchAttributeProgrammaticEvent = 7,
    cudaLaunchAttributePriority = 8,
    cudaLaunchAttributeMemSyncDomainMap = 9,
    cudaLaunchAttributeMemSyncDomain = 10,
    cudaLaunchAttributePreferredClusterDimension = 11,
    cudaLaunchAttributeLaunchCompletionEvent = 12,
    cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
    cudaLaunchAttributePreferredSharedMemoryCarveout = 14,
    cudaLaunchAttributeNvlinkUtilCentricScheduling = 16
} cudaLaunchAttributeID;

/* The value of an attribute, by its id; 64 bytes whatever the member. */
typedef __device_builtin__ union cudaLaunchAttributeValue {
    char pad[64];
    struct cudaAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    enum cudaSynchronizationPolicy syncPolicy;
    struct {
        unsigned int x;
        unsigned int y;
        unsigned int z;
    } clusterDim;
    enum cudaClusterSchedulingPolicy clusterSchedulingPolicyPreference;
    int programmaticStreamSerializationAllowed;
    struct {
        cudaEvent_t event;
        int flags;
        int triggerAtBlockStart;
    } programmaticEvent;
    int priority;
    cudaLaunchMemSyncDomainMap memSyncDomainMap;
    cudaLaunchMemSyncDomain memSyncDomain;
    struct {
        unsigned int x;
        unsigned int y;
        unsigned int z;
    } preferredClusterDim;
    struct {
        cudaEvent_t event;
        int flags;
    } launchCompletionEvent;
    struct {
        int deviceUpdatable;
        cudaGraphDeviceNode_t devNode;
    } deviceUpdatableKernelNode;
    unsigned int sharedMemCarveout;
    unsigned int nvlinkUtilCentricScheduling;
} cudaLaunchAttributeValue;

typedef __device_builtin__ struct cudaLaunchAttribute_st {
    cudaLaunchAttributeID id;
    char pad[8 - sizeof(cudaLaunchAttributeID)];
    cudaLaunchAttributeValue val;
} cudaLaunchAttribute;

typedef __device_builtin__ struct cudaLaunchConfig_st {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;     /* numAttrs of them; may be NULL if 0 */
    unsigned int numAttrs;
} cudaLaunchConfig_t;

/* ---- symbols --------------------------------------------------------------- */

/*
 * symbol: a __device__ or __constant__ variable, named by its host shadow
 * (what the program takes the address of). Copies of count bytes at
 * offset within it; not a registered variable: cudaErrorInvalidSymbol;
 * past its end: cudaErrorInvalidValue. The synchronous forms are ordered
 * as cudaMemcpy of the same direction.
 */
extern __host__ cudaError_t CUDARTAPI cudaMemcpyToSymbol(
    const void *symbol, const void *src, size_t count,
    size_t offset P2PSIM_DEFAULT(0),
    enum cudaMemcpyKind kind P2PSIM_DEFAULT(cudaMemcpyHostToDevice));
extern __host__ cudaError_t CUDARTAPI cudaMemcpyFromSymbol(
    void *dst, const void *symbol, size_t count,
    size_t offset P2PSIM_DEFAULT(0),
    enum cudaMemcpyKind kind P2PSIM_DEFAULT(cudaMemcpyDeviceToHost));
extern __host__ cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(
    const void *symbol, const void *src, size_t count, size_t offset,
    enum cudaMemcpyKind kind, cudaStream_t stream P2PSIM_DEFAULT(0));
extern __host__ cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(
    void *dst, const void *symbol, size_t count, size_t offset,
    enum cudaMemcpyKind kind, cudaStream_t stream P2PSIM_DEFAULT(0));
/* The variable's device address on the current device, and its size. */
extern __host__ cudaError_t CUDARTAPI cudaGetSymbolAddress(void **devPtr,
                                                           const void *symbol);
extern __host__ cudaError_t CUDARTAPI cudaGetSymbolSize(size_t *size,
                                                        const void *symbol);

/* ---- pitched memory, 2D and 3D copies and sets ------------------------------ */

/* height rows of width bytes; *pitch: the bytes from one row to the next
 * (cudaDevAttrTexturePitchAlignment's multiple p2psim chooses, 512). */
extern __host__ cudaError_t CUDARTAPI cudaMallocPitch(void **devPtr,
                                                      size_t *pitch,
                                                      size_t width,
                                                      size_t height);
/* extent.height x extent.depth rows of extent.width bytes, pitched. */
extern __host__ cudaError_t CUDARTAPI
cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent);

/* height rows of width bytes, dpitch and spitch bytes apart (each at
 * least width: else cudaErrorInvalidPitchValue). */
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2D(void *dst, size_t dpitch,
                                                   const void *src,
                                                   size_t spitch, size_t width,
                                                   size_t height,
                                                   enum cudaMemcpyKind kind);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaMemcpy2DAsync(
    void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
    size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream P2PSIM_DEFAULT(0));
/* Pitched pointers only: an array (srcArray, dstArray) is
 * cudaErrorNotSupported (arrays are not served). */
extern __host__ cudaError_t CUDARTAPI
cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaMemcpy3DAsync(
    const struct cudaMemcpy3DParms *p, cudaStream_t stream P2PSIM_DEFAULT(0));
extern __host__ cudaError_t CUDARTAPI
cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy3DPeerAsync(
    const struct cudaMemcpy3DPeerParms *p,
    cudaStream_t stream P2PSIM_DEFAULT(0));

extern __host__ cudaError_t CUDARTAPI cudaMemset2D(void *devPtr, size_t pitch,
                                                   int value, size_t width,
                                                   size_t height);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                  size_t height, cudaStream_t stream P2PSIM_DEFAULT(0));
extern __host__ cudaError_t CUDARTAPI cudaMemset3D(
    struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);
extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI
cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                  struct cudaExtent extent,
                  cudaStream_t stream P2PSIM_DEFAULT(0));

/* ---- the extensible launch ------------------------------------------------- */

/*
 * cudaLaunchKernel with a configuration: attributes honoured are
 * cooperative (as cudaLaunchCooperativeKernel), priority, cluster
 * dimension 1x1x1, and the hints (access policy window, scheduling
 * policy, memory sync domain, shared memory carveout, NVLink scheduling),
 * which are accepted and have no effect; any other is
 * cudaErrorNotSupported.
 */
extern __host__ cudaError_t CUDARTAPI cudaLaunchKernelExC(
    const cudaLaunchConfig_t *config, const void *func, void **args);

/* ---- the per-thread default stream's twins ---------------------------------- */

extern __host__ cudaError_t CUDARTAPI cudaMemcpyToSymbol_ptds(
    const void *symbol, const void *src, size_t count, size_t offset,
    enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaMemcpyFromSymbol_ptds(
    void *dst, const void *symbol, size_t count, size_t offset,
    enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync_ptsz(
    const void *symbol, const void *src, size_t count, size_t offset,
    enum cudaMemcpyKind kind, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync_ptsz(
    void *dst, const void *symbol, size_t count, size_t offset,
    enum cudaMemcpyKind kind, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2D_ptds(
    void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
    size_t height, enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2DAsync_ptsz(
    void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
    size_t height, enum cudaMemcpyKind kind, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI
cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p);
extern __host__ cudaError_t CUDARTAPI
cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI
cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy3DPeerAsync_ptsz(
    const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaMemset2D_ptds(void *devPtr,
                                                        size_t pitch,
                                                        int value,
                                                        size_t width,
                                                        size_t height);
extern __host__ cudaError_t CUDARTAPI
cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                       size_t height, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaMemset3D_ptds(
    struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);
extern __host__ cudaError_t CUDARTAPI
cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pitchedDevPtr, int value,
                       struct cudaExtent extent, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaLaunchKernelExC_ptsz(
    const cudaLaunchConfig_t *config, const void *func, void **args);

#endif /* P2PSIM_CUDA_INCLUDE_P2PSIM_RT_MEMCPY_H */
