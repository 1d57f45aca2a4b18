/*
 * cuda/include/p2psim_rt_graph.h - the CUDA 13.0 runtime's graphs and
 * stream capture, as served by p2psim (part of cuda_runtime_api.h, which
 * includes it; not to be included alone). Types and enum values are
 * CUDA's; tools/gen-dispatch.sh reads the declarations here as it reads
 * cuda_runtime_api.h's.
 */
#ifndef P2PSIM_CUDA_INCLUDE_P2PSIM_RT_GRAPH_H
#define P2PSIM_CUDA_INCLUDE_P2PSIM_RT_GRAPH_H

#ifndef P2PSIM_CUDA_INCLUDE_CUDA_RUNTIME_API_H
#error "p2psim_rt_graph.h is part of cuda_runtime_api.h: include that instead"
#endif

/* ---- handles ------------------------------------------------------------ */

typedef __device_builtin__ struct CUgraph_st *cudaGraph_t;
typedef __device_builtin__ struct CUgraphNode_st *cudaGraphNode_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef __device_builtin__ struct CUuserObject_st *cudaUserObject_t;

/*
 * Copies beyond one dimension: the pitched pointers and positions of a 3D
 * copy, which a graph's memcpy node takes. Guarded, because the part of
 * cuda_runtime_api.h for 2D and 3D copies (p2psim_rt_memcpy.h) needs the
 * same types: whichever part comes first defines them.
 */
#ifndef P2PSIM_RT_MEMCPY3D_TYPES
#define P2PSIM_RT_MEMCPY3D_TYPES
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;

/* Memory of pitch bytes per row, xsize elements wide, ysize rows. */
struct __device_builtin__ cudaPitchedPtr {
    void *ptr;
    size_t pitch;
    size_t xsize;
    size_t ysize;
};

/* A size: width in bytes for linear memory (elements for arrays). */
struct __device_builtin__ cudaExtent {
    size_t width;
    size_t height;
    size_t depth;
};

struct __device_builtin__ cudaPos {
    size_t x;
    size_t y;
    size_t z;
};

/* A 3D copy: from an array or a pitched pointer at a position, to one,
 * extent big. */
struct __device_builtin__ cudaMemcpy3DParms {
    cudaArray_t srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    struct cudaExtent extent;
    enum cudaMemcpyKind kind;
};
#endif /* P2PSIM_RT_MEMCPY3D_TYPES */

/* ---- nodes and their parameters ------------------------------------------ */

enum __device_builtin__ cudaGraphNodeType {
    cudaGraphNodeTypeKernel = 0x00,
    cudaGraphNodeTypeMemcpy = 0x01,
    cudaGraphNodeTypeMemset = 0x02,
    cudaGraphNodeTypeHost = 0x03,
    cudaGraphNodeTypeGraph = 0x04,      /* a child graph */
    cudaGraphNodeTypeEmpty = 0x05,
    cudaGraphNodeTypeWaitEvent = 0x06,
    cudaGraphNodeTypeEventRecord = 0x07,
    cudaGraphNodeTypeExtSemaphoreSignal = 0x08,
    cudaGraphNodeTypeExtSemaphoreWait = 0x09,
    cudaGraphNodeTypeMemAlloc = 0x0a,
    cudaGraphNodeTypeMemFree = 0x0b,
    cudaGraphNodeTypeConditional = 0x0d,
    cudaGraphNodeTypeCount
};

/* A kernel node: the kernel (its host stub), its configuration and its
 * arguments (copied when the node is made or set). */
struct __device_builtin__ cudaKernelNodeParams {
    void *func;
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
};

/* A memset node: height rows of width elements of elementSize (1, 2 or 4)
 * bytes, pitch bytes apart, set to value. */
struct __device_builtin__ cudaMemsetParams {
    void *dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;
    size_t width;
    size_t height;
};

struct __device_builtin__ cudaHostNodeParams {
    cudaHostFn_t fn;
    void *userData;
};

/* A memory allocation node: in, the pool's properties, the peers' access
 * and the size; out, the address the allocation has at every launch. */
struct __device_builtin__ cudaMemAllocNodeParams {
    struct cudaMemPoolProps poolProps;
    const struct cudaMemAccessDesc *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void *dptr;
};

enum __device_builtin__ cudaGraphMemAttributeType {
    cudaGraphMemAttrUsedMemCurrent = 0x0,
    cudaGraphMemAttrUsedMemHigh = 0x1,
    cudaGraphMemAttrReservedMemCurrent = 0x2,
    cudaGraphMemAttrReservedMemHigh = 0x3
};

/* ---- edges ----------------------------------------------------------------- */

typedef __device_builtin__ enum cudaGraphDependencyType_enum {
    cudaGraphDependencyTypeDefault = 0,
    cudaGraphDependencyTypeProgrammatic = 1
} cudaGraphDependencyType;

/* What an edge carries: ports (0: the whole node) and a
 * cudaGraphDependencyType; the rest is zero. */
typedef __device_builtin__ struct cudaGraphEdgeData_st {
    unsigned char from_port;
    unsigned char to_port;
    unsigned char type;
    unsigned char reserved[5];
} cudaGraphEdgeData;

/* Conditional nodes: a handle (created for a graph) holds the value a
 * kernel sets with the device builtin cudaGraphSetConditional; the node
 * reads it when it runs. IF runs body 0 when it is non-zero (and body 1,
 * with size 2, when it is zero); WHILE runs body 0 as long as it is
 * non-zero; SWITCH runs body n when it is n (none when >= size). */
typedef __device_builtin__ unsigned long long cudaGraphConditionalHandle;

enum __device_builtin__ cudaGraphConditionalHandleFlags {
    cudaGraphCondAssignDefault = 1  /* the default value at each launch */
};

enum __device_builtin__ cudaGraphConditionalNodeType {
    cudaGraphCondTypeIf = 0,
    cudaGraphCondTypeWhile = 1,
    cudaGraphCondTypeSwitch = 2
};

struct __device_builtin__ cudaConditionalNodeParams {
    cudaGraphConditionalHandle handle;
    enum cudaGraphConditionalNodeType type;
    unsigned int size;              /* bodies: 1 (WHILE), 1-2 (IF), n */
    cudaGraph_t *phGraph_out;       /* the runtime's: the body graphs */
};

/* The generic node parameters of cudaGraphAddNode: the type, then the
 * parameters of that type (the kernel's as cudaKernelNodeParams), in a
 * union of 232 bytes; 256 bytes in all. */
struct __device_builtin__ cudaKernelNodeParamsV2 {
    void *func;
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
};

struct __device_builtin__ cudaHostNodeParamsV2 {
    cudaHostFn_t fn;
    void *userData;
};

/* The other members of the union: each node type's parameters as
 * CUDA 13 lays them out (those of node types p2psim does not add through
 * cudaGraphAddNode are declared for the layout only). */
struct __device_builtin__ cudaMemcpyNodeParams {
    int flags;
    int reserved[3];
    struct cudaMemcpy3DParms copyParams;
};

struct __device_builtin__ cudaMemsetParamsV2 {
    void *dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;
    size_t width;
    size_t height;
};

enum __device_builtin__ cudaGraphChildGraphNodeOwnership {
    cudaGraphChildGraphOwnershipClone = 0,
    cudaGraphChildGraphOwnershipMove = 1
};

struct __device_builtin__ cudaChildGraphNodeParams {
    cudaGraph_t graph;
    enum cudaGraphChildGraphNodeOwnership ownership;
};

struct __device_builtin__ cudaEventRecordNodeParams {
    cudaEvent_t event;
};

struct __device_builtin__ cudaEventWaitNodeParams {
    cudaEvent_t event;
};

typedef __device_builtin__ struct CUexternalSemaphore_st
    *cudaExternalSemaphore_t;
/* An external semaphore's signal and wait parameters (p2psim imports no
 * external semaphores: the layout only). */
struct __device_builtin__ cudaExternalSemaphoreSignalParams {
    struct {
        struct {
            unsigned long long value;
        } fence;
        union {
            void *fence;
            unsigned long long reserved;
        } nvSciSync;
        struct {
            unsigned long long key;
        } keyedMutex;
        unsigned int reserved[12];
    } params;
    unsigned int flags;
    unsigned int reserved[16];
};

struct __device_builtin__ cudaExternalSemaphoreWaitParams {
    struct {
        struct {
            unsigned long long value;
        } fence;
        union {
            void *fence;
            unsigned long long reserved;
        } nvSciSync;
        struct {
            unsigned long long key;
            unsigned int timeoutMs;
        } keyedMutex;
        unsigned int reserved[10];
    } params;
    unsigned int flags;
    unsigned int reserved[16];
};

struct __device_builtin__ cudaExternalSemaphoreSignalNodeParamsV2 {
    cudaExternalSemaphore_t *extSemArray;
    const struct cudaExternalSemaphoreSignalParams *paramsArray;
    unsigned int numExtSems;
};

struct __device_builtin__ cudaExternalSemaphoreWaitNodeParamsV2 {
    cudaExternalSemaphore_t *extSemArray;
    const struct cudaExternalSemaphoreWaitParams *paramsArray;
    unsigned int numExtSems;
};

struct __device_builtin__ cudaMemAllocNodeParamsV2 {
    struct cudaMemPoolProps poolProps;
    const struct cudaMemAccessDesc *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void *dptr;
};

struct __device_builtin__ cudaMemFreeNodeParams {
    void *dptr;
};

struct __device_builtin__ cudaGraphNodeParams {
    enum cudaGraphNodeType type;
    int reserved0[3];
    union {
        long long reserved1[29];
#if defined(__cplusplus) && __cplusplus < 201103L
        /* C++98 allows no member with a constructor (dim3's) in a union:
         * the same bytes, the dimensions as plain structs */
        struct {
            void *func;
            struct { unsigned int x, y, z; } gridDim, blockDim;
            unsigned int sharedMemBytes;
            void **kernelParams;
            void **extra;
        } kernel;
#else
        struct cudaKernelNodeParamsV2 kernel;
#endif
        struct cudaMemcpyNodeParams memcpy;
        struct cudaMemsetParamsV2 memset;
        struct cudaHostNodeParamsV2 host;
        struct cudaChildGraphNodeParams graph;
        struct cudaEventWaitNodeParams eventWait;
        struct cudaEventRecordNodeParams eventRecord;
        struct cudaExternalSemaphoreSignalNodeParamsV2 extSemSignal;
        struct cudaExternalSemaphoreWaitNodeParamsV2 extSemWait;
        struct cudaMemAllocNodeParamsV2 alloc;
        struct cudaMemFreeNodeParams free;
        struct cudaConditionalNodeParams conditional;
    };
    long long reserved2;
};

#define cudaGraphKernelNodePortDefault 0
#define cudaGraphKernelNodePortProgrammatic 1
#define cudaGraphKernelNodePortLaunchCompletion 2

/* ---- executable graphs ------------------------------------------------------ */

enum __device_builtin__ cudaGraphInstantiateFlags {
    cudaGraphInstantiateFlagAutoFreeOnLaunch = 1,
    cudaGraphInstantiateFlagUpload = 2,
    cudaGraphInstantiateFlagDeviceLaunch = 4,
    cudaGraphInstantiateFlagUseNodePriority = 8
};

typedef __device_builtin__ enum cudaGraphInstantiateResult {
    cudaGraphInstantiateSuccess = 0,
    cudaGraphInstantiateError = 1,
    cudaGraphInstantiateInvalidStructure = 2,
    cudaGraphInstantiateNodeOperationNotSupported = 3,
    cudaGraphInstantiateMultipleDevicesNotSupported = 4,
    cudaGraphInstantiateConditionalHandleUnused = 5
} cudaGraphInstantiateResult;

typedef __device_builtin__ struct cudaGraphInstantiateParams_st {
    unsigned long long flags;
    cudaStream_t uploadStream;
    cudaGraphNode_t errNode_out;
    cudaGraphInstantiateResult result_out;
} cudaGraphInstantiateParams;

enum __device_builtin__ cudaGraphExecUpdateResult {
    cudaGraphExecUpdateSuccess = 0x0,
    cudaGraphExecUpdateError = 0x1,
    cudaGraphExecUpdateErrorTopologyChanged = 0x2,
    cudaGraphExecUpdateErrorNodeTypeChanged = 0x3,
    cudaGraphExecUpdateErrorFunctionChanged = 0x4,
    cudaGraphExecUpdateErrorParametersChanged = 0x5,
    cudaGraphExecUpdateErrorNotSupported = 0x6,
    cudaGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
    cudaGraphExecUpdateErrorAttributesChanged = 0x8
};

typedef __device_builtin__ struct cudaGraphExecUpdateResultInfo_st {
    enum cudaGraphExecUpdateResult result;
    cudaGraphNode_t errorNode;
    cudaGraphNode_t errorFromNode;
} cudaGraphExecUpdateResultInfo;

enum __device_builtin__ cudaGraphDebugDotFlags {
    cudaGraphDebugDotFlagsVerbose = 1 << 0,
    cudaGraphDebugDotFlagsKernelNodeParams = 1 << 2,
    cudaGraphDebugDotFlagsMemcpyNodeParams = 1 << 3,
    cudaGraphDebugDotFlagsMemsetNodeParams = 1 << 4,
    cudaGraphDebugDotFlagsHostNodeParams = 1 << 5,
    cudaGraphDebugDotFlagsEventNodeParams = 1 << 6,
    cudaGraphDebugDotFlagsExtSemasSignalNodeParams = 1 << 7,
    cudaGraphDebugDotFlagsExtSemasWaitNodeParams = 1 << 8,
    cudaGraphDebugDotFlagsKernelNodeAttributes = 1 << 9,
    cudaGraphDebugDotFlagsHandles = 1 << 10,
    cudaGraphDebugDotFlagsConditionalNodeParams = 1 << 15
};

/* ---- capture and user objects ------------------------------------------------- */

enum __device_builtin__ cudaStreamUpdateCaptureDependenciesFlags {
    cudaStreamAddCaptureDependencies = 0x0,
    cudaStreamSetCaptureDependencies = 0x1
};

enum __device_builtin__ cudaUserObjectFlags {
    cudaUserObjectNoDestructorSync = 0x1
};

enum __device_builtin__ cudaUserObjectRetainFlags {
    cudaGraphUserObjectMove = 0x1
};

/* ---- graphs ---------------------------------------------------------------- */

extern __host__ cudaError_t CUDARTAPI cudaGraphCreate(cudaGraph_t *pGraph,
                                                      unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaGraphDestroy(cudaGraph_t graph);
extern __host__ cudaError_t CUDARTAPI
cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph);
extern __host__ cudaError_t CUDARTAPI
cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
                         cudaGraph_t clonedGraph);
extern __host__ cudaError_t CUDARTAPI
cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path,
                       unsigned int flags);

/* nodes */
extern __host__ cudaError_t CUDARTAPI cudaGraphAddKernelNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    const struct cudaKernelNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphKernelNodeGetParams(
    cudaGraphNode_t node, struct cudaKernelNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphKernelNodeSetParams(
    cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddMemcpyNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    const struct cudaMemcpy3DParms *pCopyParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddMemcpyNode1D(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst,
    const void *src, size_t count, enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaGraphMemcpyNodeGetParams(
    cudaGraphNode_t node, struct cudaMemcpy3DParms *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphMemcpyNodeSetParams(
    cudaGraphNode_t node, const struct cudaMemcpy3DParms *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphMemcpyNodeSetParams1D(
    cudaGraphNode_t node, void *dst, const void *src, size_t count,
    enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddMemsetNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    const struct cudaMemsetParams *pMemsetParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphMemsetNodeGetParams(
    cudaGraphNode_t node, struct cudaMemsetParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphMemsetNodeSetParams(
    cudaGraphNode_t node, const struct cudaMemsetParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddHostNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    const struct cudaHostNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphHostNodeGetParams(
    cudaGraphNode_t node, struct cudaHostNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphHostNodeSetParams(
    cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddChildGraphNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    cudaGraph_t childGraph);
extern __host__ cudaError_t CUDARTAPI
cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddEmptyNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddEventRecordNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    cudaEvent_t event);
extern __host__ cudaError_t CUDARTAPI
cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out);
extern __host__ cudaError_t CUDARTAPI
cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddEventWaitNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    cudaEvent_t event);
extern __host__ cudaError_t CUDARTAPI
cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out);
extern __host__ cudaError_t CUDARTAPI
cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddMemAllocNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    struct cudaMemAllocNodeParams *nodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphMemAllocNodeGetParams(
    cudaGraphNode_t node, struct cudaMemAllocNodeParams *params_out);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddMemFreeNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    void *dptr);
extern __host__ cudaError_t CUDARTAPI
cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out);
extern __host__ cudaError_t CUDARTAPI cudaDeviceGraphMemTrim(int device);
extern __host__ cudaError_t CUDARTAPI cudaDeviceGetGraphMemAttribute(
    int device, enum cudaGraphMemAttributeType attr, void *value);
extern __host__ cudaError_t CUDARTAPI cudaDeviceSetGraphMemAttribute(
    int device, enum cudaGraphMemAttributeType attr, void *value);

/* structure */
extern __host__ cudaError_t CUDARTAPI
cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType);
extern __host__ cudaError_t CUDARTAPI cudaGraphGetNodes(cudaGraph_t graph,
                                                        cudaGraphNode_t *nodes,
                                                        size_t *numNodes);
extern __host__ cudaError_t CUDARTAPI
cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                      size_t *pNumRootNodes);
extern __host__ cudaError_t CUDARTAPI
cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from,
                  cudaGraphNode_t *to, cudaGraphEdgeData *edgeData,
                  size_t *numEdges);
extern __host__ cudaError_t CUDARTAPI cudaGraphNodeGetDependencies(
    cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
    cudaGraphEdgeData *edgeData, size_t *pNumDependencies);
extern __host__ cudaError_t CUDARTAPI cudaGraphNodeGetDependentNodes(
    cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
    cudaGraphEdgeData *edgeData, size_t *pNumDependentNodes);
extern __host__ cudaError_t CUDARTAPI cudaGraphAddDependencies(
    cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
    const cudaGraphEdgeData *edgeData, size_t numDependencies);
extern __host__ cudaError_t CUDARTAPI cudaGraphRemoveDependencies(
    cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
    const cudaGraphEdgeData *edgeData, size_t numDependencies);
extern __host__ cudaError_t CUDARTAPI cudaGraphDestroyNode(cudaGraphNode_t node);

/* executable graphs */
extern __host__ cudaError_t CUDARTAPI
cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                     unsigned long long flags P2PSIM_DEFAULT(0));
extern __host__ cudaError_t CUDARTAPI
cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                              unsigned long long flags P2PSIM_DEFAULT(0));
extern __host__ cudaError_t CUDARTAPI
cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                               cudaGraphInstantiateParams *instantiateParams);
extern __host__ cudaError_t CUDARTAPI
cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecKernelNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaKernelNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecMemcpyNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaMemcpy3DParms *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecMemcpyNodeSetParams1D(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst,
    const void *src, size_t count, enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecMemsetNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaMemsetParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecHostNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaHostNodeParams *pNodeParams);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecChildGraphNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node, cudaGraph_t childGraph);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecEventRecordNodeSetEvent(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, cudaEvent_t event);
extern __host__ cudaError_t CUDARTAPI cudaGraphExecEventWaitNodeSetEvent(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, cudaEvent_t event);
extern __host__ cudaError_t CUDARTAPI
cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                        unsigned int isEnabled);
extern __host__ cudaError_t CUDARTAPI
cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                        unsigned int *isEnabled);
extern __host__ cudaError_t CUDARTAPI
cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                    cudaGraphExecUpdateResultInfo *resultInfo);
extern __host__ cudaError_t CUDARTAPI cudaGraphUpload(cudaGraphExec_t graphExec,
                                                      cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaGraphLaunch(cudaGraphExec_t graphExec,
                                                      cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI
cudaGraphExecDestroy(cudaGraphExec_t graphExec);

/* conditional nodes and the generic form (graph_cond.c) */
extern __host__ cudaError_t CUDARTAPI cudaGraphConditionalHandleCreate(
    cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph,
    unsigned int defaultLaunchValue P2PSIM_DEFAULT(0),
    unsigned int flags P2PSIM_DEFAULT(0));
extern __host__ cudaError_t CUDARTAPI cudaGraphAddNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies,
    const cudaGraphEdgeData *dependencyData, size_t numDependencies,
    struct cudaGraphNodeParams *nodeParams);

/* stream capture */
extern __host__ cudaError_t CUDARTAPI
cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
extern __host__ cudaError_t CUDARTAPI cudaStreamBeginCaptureToGraph(
    cudaStream_t stream, cudaGraph_t graph,
    const cudaGraphNode_t *dependencies,
    const cudaGraphEdgeData *dependencyData, size_t numDependencies,
    enum cudaStreamCaptureMode mode);
extern __host__ cudaError_t CUDARTAPI cudaStreamEndCapture(cudaStream_t stream,
                                                           cudaGraph_t *pGraph);
extern __host__ cudaError_t CUDARTAPI cudaStreamGetCaptureInfo(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out P2PSIM_DEFAULT(0),
    cudaGraph_t *graph_out P2PSIM_DEFAULT(0),
    const cudaGraphNode_t **dependencies_out P2PSIM_DEFAULT(0),
    const cudaGraphEdgeData **edgeData_out P2PSIM_DEFAULT(0),
    size_t *numDependencies_out P2PSIM_DEFAULT(0));
extern __host__ cudaError_t CUDARTAPI cudaStreamUpdateCaptureDependencies(
    cudaStream_t stream, cudaGraphNode_t *dependencies,
    const cudaGraphEdgeData *dependencyData, size_t numDependencies,
    unsigned int flags P2PSIM_DEFAULT(0));

/* user objects */
extern __host__ cudaError_t CUDARTAPI
cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr,
                     cudaHostFn_t destroy, unsigned int initialRefcount,
                     unsigned int flags);
extern __host__ cudaError_t CUDARTAPI cudaUserObjectRetain(
    cudaUserObject_t object, unsigned int count P2PSIM_DEFAULT(1));
extern __host__ cudaError_t CUDARTAPI cudaUserObjectRelease(
    cudaUserObject_t object, unsigned int count P2PSIM_DEFAULT(1));
extern __host__ cudaError_t CUDARTAPI cudaGraphRetainUserObject(
    cudaGraph_t graph, cudaUserObject_t object,
    unsigned int count P2PSIM_DEFAULT(1), unsigned int flags P2PSIM_DEFAULT(0));
extern __host__ cudaError_t CUDARTAPI cudaGraphReleaseUserObject(
    cudaGraph_t graph, cudaUserObject_t object,
    unsigned int count P2PSIM_DEFAULT(1));

/* The per-thread default stream's twins (CUDA_API_PER_THREAD_DEFAULT_STREAM
 * selects them): stream 0 is the calling thread's own. */
extern __host__ cudaError_t CUDARTAPI cudaGraphInstantiateWithParams_ptsz(
    cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
    cudaGraphInstantiateParams *instantiateParams);
extern __host__ cudaError_t CUDARTAPI
cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI
cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaStreamBeginCapture_ptsz(
    cudaStream_t stream, enum cudaStreamCaptureMode mode);
extern __host__ cudaError_t CUDARTAPI cudaStreamBeginCaptureToGraph_ptsz(
    cudaStream_t stream, cudaGraph_t graph,
    const cudaGraphNode_t *dependencies,
    const cudaGraphEdgeData *dependencyData, size_t numDependencies,
    enum cudaStreamCaptureMode mode);
extern __host__ cudaError_t CUDARTAPI
cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph);
extern __host__ cudaError_t CUDARTAPI cudaStreamGetCaptureInfo_ptsz(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out, cudaGraph_t *graph_out,
    const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out);
extern __host__ cudaError_t CUDARTAPI cudaStreamUpdateCaptureDependencies_ptsz(
    cudaStream_t stream, cudaGraphNode_t *dependencies,
    const cudaGraphEdgeData *dependencyData, size_t numDependencies,
    unsigned int flags);

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cudaGraphInstantiateWithParams                                         \
    P2PSIM_PTSZ(cudaGraphInstantiateWithParams)
#define cudaGraphUpload P2PSIM_PTSZ(cudaGraphUpload)
#define cudaGraphLaunch P2PSIM_PTSZ(cudaGraphLaunch)
#define cudaStreamBeginCapture P2PSIM_PTSZ(cudaStreamBeginCapture)
#define cudaStreamBeginCaptureToGraph P2PSIM_PTSZ(cudaStreamBeginCaptureToGraph)
#define cudaStreamEndCapture P2PSIM_PTSZ(cudaStreamEndCapture)
#define cudaStreamGetCaptureInfo P2PSIM_PTSZ(cudaStreamGetCaptureInfo)
#define cudaStreamUpdateCaptureDependencies                                    \
    P2PSIM_PTSZ(cudaStreamUpdateCaptureDependencies)
#endif

#endif /* P2PSIM_CUDA_INCLUDE_P2PSIM_RT_GRAPH_H */
