/*
 * cuda/driver/drv_device.c - cuInit, versions, error names, devices and
 * contexts of p2psim's driver API.
 *
 * Contexts. The runtime has one context per device (its primary one);
 * cuCtxCreate makes a context object on the device that shares that state
 * (Model: memory, streams and modules of a created context are the
 * device's, and cuCtxDestroy frees none of them). Each host thread has a
 * stack of contexts (cuCtxPushCurrent/PopCurrent); its top is current,
 * and making a context current makes its device the runtime's current
 * device (cudaSetDevice), so a cudaMalloc after cuCtxSetCurrent lands on
 * that context's GPU. The other way, a thread that has used the runtime
 * on a device without a context of the driver has that device's primary
 * context current, as in CUDA.
 */
#include <config.h>

#include "cuda/driver/drv_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ----------------------------------------------------------------- */

static const struct {
    int code;
    const char *name;
} drv_errors[] = {
    { 0, "CUDA_SUCCESS" },
    { 1, "CUDA_ERROR_INVALID_VALUE" },
    { 2, "CUDA_ERROR_OUT_OF_MEMORY" },
    { 3, "CUDA_ERROR_NOT_INITIALIZED" },
    { 4, "CUDA_ERROR_DEINITIALIZED" },
    { 5, "CUDA_ERROR_PROFILER_DISABLED" },
    { 6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED" },
    { 7, "CUDA_ERROR_PROFILER_ALREADY_STARTED" },
    { 8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED" },
    { 34, "CUDA_ERROR_STUB_LIBRARY" },
    { 36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER" },
    { 46, "CUDA_ERROR_DEVICE_UNAVAILABLE" },
    { 100, "CUDA_ERROR_NO_DEVICE" },
    { 101, "CUDA_ERROR_INVALID_DEVICE" },
    { 102, "CUDA_ERROR_DEVICE_NOT_LICENSED" },
    { 200, "CUDA_ERROR_INVALID_IMAGE" },
    { 201, "CUDA_ERROR_INVALID_CONTEXT" },
    { 202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT" },
    { 205, "CUDA_ERROR_MAP_FAILED" },
    { 206, "CUDA_ERROR_UNMAP_FAILED" },
    { 207, "CUDA_ERROR_ARRAY_IS_MAPPED" },
    { 208, "CUDA_ERROR_ALREADY_MAPPED" },
    { 209, "CUDA_ERROR_NO_BINARY_FOR_GPU" },
    { 210, "CUDA_ERROR_ALREADY_ACQUIRED" },
    { 211, "CUDA_ERROR_NOT_MAPPED" },
    { 212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY" },
    { 213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER" },
    { 214, "CUDA_ERROR_ECC_UNCORRECTABLE" },
    { 215, "CUDA_ERROR_UNSUPPORTED_LIMIT" },
    { 216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE" },
    { 217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED" },
    { 218, "CUDA_ERROR_INVALID_PTX" },
    { 219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT" },
    { 220, "CUDA_ERROR_NVLINK_UNCORRECTABLE" },
    { 221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND" },
    { 222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION" },
    { 223, "CUDA_ERROR_JIT_COMPILATION_DISABLED" },
    { 224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY" },
    { 225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC" },
    { 226, "CUDA_ERROR_CONTAINED" },
    { 300, "CUDA_ERROR_INVALID_SOURCE" },
    { 301, "CUDA_ERROR_FILE_NOT_FOUND" },
    { 302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND" },
    { 303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED" },
    { 304, "CUDA_ERROR_OPERATING_SYSTEM" },
    { 400, "CUDA_ERROR_INVALID_HANDLE" },
    { 401, "CUDA_ERROR_ILLEGAL_STATE" },
    { 402, "CUDA_ERROR_LOSSY_QUERY" },
    { 500, "CUDA_ERROR_NOT_FOUND" },
    { 600, "CUDA_ERROR_NOT_READY" },
    { 700, "CUDA_ERROR_ILLEGAL_ADDRESS" },
    { 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" },
    { 702, "CUDA_ERROR_LAUNCH_TIMEOUT" },
    { 703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING" },
    { 704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED" },
    { 705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED" },
    { 708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE" },
    { 709, "CUDA_ERROR_CONTEXT_IS_DESTROYED" },
    { 710, "CUDA_ERROR_ASSERT" },
    { 711, "CUDA_ERROR_TOO_MANY_PEERS" },
    { 712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED" },
    { 713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED" },
    { 714, "CUDA_ERROR_HARDWARE_STACK_ERROR" },
    { 715, "CUDA_ERROR_ILLEGAL_INSTRUCTION" },
    { 716, "CUDA_ERROR_MISALIGNED_ADDRESS" },
    { 717, "CUDA_ERROR_INVALID_ADDRESS_SPACE" },
    { 718, "CUDA_ERROR_INVALID_PC" },
    { 719, "CUDA_ERROR_LAUNCH_FAILED" },
    { 720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE" },
    { 721, "CUDA_ERROR_TENSOR_MEMORY_LEAK" },
    { 800, "CUDA_ERROR_NOT_PERMITTED" },
    { 801, "CUDA_ERROR_NOT_SUPPORTED" },
    { 802, "CUDA_ERROR_SYSTEM_NOT_READY" },
    { 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" },
    { 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" },
    { 805, "CUDA_ERROR_MPS_CONNECTION_FAILED" },
    { 806, "CUDA_ERROR_MPS_RPC_FAILURE" },
    { 807, "CUDA_ERROR_MPS_SERVER_NOT_READY" },
    { 808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED" },
    { 809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED" },
    { 810, "CUDA_ERROR_MPS_CLIENT_TERMINATED" },
    { 811, "CUDA_ERROR_CDP_NOT_SUPPORTED" },
    { 812, "CUDA_ERROR_CDP_VERSION_MISMATCH" },
    { 900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED" },
    { 901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED" },
    { 902, "CUDA_ERROR_STREAM_CAPTURE_MERGE" },
    { 903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED" },
    { 904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED" },
    { 905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION" },
    { 906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT" },
    { 907, "CUDA_ERROR_CAPTURED_EVENT" },
    { 908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD" },
    { 909, "CUDA_ERROR_TIMEOUT" },
    { 910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE" },
    { 911, "CUDA_ERROR_EXTERNAL_DEVICE" },
    { 912, "CUDA_ERROR_INVALID_CLUSTER_SIZE" },
    { 913, "CUDA_ERROR_FUNCTION_NOT_LOADED" },
    { 914, "CUDA_ERROR_INVALID_RESOURCE_TYPE" },
    { 915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION" },
    { 916, "CUDA_ERROR_KEY_ROTATION" },
    { 999, "CUDA_ERROR_UNKNOWN" },
};
#define N_ERRORS (sizeof(drv_errors) / sizeof(drv_errors[0]))

static const char *error_name(int code)
{
    for (size_t i = 0; i < N_ERRORS; i++) {
        if (drv_errors[i].code == code) {
            return drv_errors[i].name;
        }
    }
    return NULL;
}

CUresult drv_result(cudaError_t e)
{
    switch ((int)e) {
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidHostPointer:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidMemcpyDirection:
    case cudaErrorMissingConfiguration:
        return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorInvalidDeviceFunction:
        return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorInvalidSymbol:
        return CUDA_ERROR_NOT_FOUND;
    case cudaErrorInsufficientDriver:
        return CUDA_ERROR_NOT_INITIALIZED;
    default:
        break;
    }
    return error_name((int)e) ? (CUresult)e : CUDA_ERROR_UNKNOWN;
}

CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    const char *n = error_name((int)error);
    if (!pStr) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pStr = n;
    return n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The runtime's description of the same number, which CUDA keeps equal
 * for the codes both APIs have. */
CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!error_name((int)error)) {
        *pStr = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pStr = cudaGetErrorString((cudaError_t)error);
    return CUDA_SUCCESS;
}

/* ---- initialization ------------------------------------------------------------ */

static pthread_mutex_t drv_lock = PTHREAD_MUTEX_INITIALIZER;
static bool drv_inited;
static int n_devices;
static struct CUctx_st *primary;    /* [n_devices] */

/* Created contexts, for drv_ctx_valid (few: a list). */
struct ctx_node {
    struct CUctx_st ctx;
    struct ctx_node *next;
};
static struct ctx_node *created;

CUresult cuInit(unsigned int Flags)
{
    if (Flags != 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&drv_lock);
    CUresult r = CUDA_SUCCESS;
    if (!drv_inited) {
        int n = 0;
        r = drv_result(cudaGetDeviceCount(&n));
        if (!r && n <= 0) {
            r = CUDA_ERROR_NO_DEVICE;
        }
        if (!r) {
            primary = calloc((size_t)n, sizeof(*primary));
            r = primary ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
        }
        if (!r) {
            for (int d = 0; d < n; d++) {
                primary[d].dev = d;
                primary[d].primary = true;
            }
            n_devices = n;
            drv_inited = true;
        }
    }
    pthread_mutex_unlock(&drv_lock);
    return r;
}

CUresult drv_ready(void)
{
    if (__atomic_load_n(&drv_inited, __ATOMIC_ACQUIRE)) {
        return CUDA_SUCCESS;
    }
    return p2psim_drv_runtime_started() ? cuInit(0)
                                        : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *driverVersion = CUDA_VERSION;
    return CUDA_SUCCESS;
}

/* ---- devices --------------------------------------------------------------------- */

static bool dev_ok(CUdevice dev)
{
    return dev >= 0 && dev < n_devices;
}

#define DRV_DEVICE(dev)                                                       \
    do {                                                                      \
        DRV_READY();                                                          \
        if (!dev_ok(dev)) {                                                   \
            return CUDA_ERROR_INVALID_DEVICE;                                 \
        }                                                                     \
    } while (0)

CUresult cuDeviceGetCount(int *count)
{
    DRV_READY();
    if (!count) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *count = n_devices;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    DRV_READY();
    if (!device) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!dev_ok(ordinal)) {
        return CUDA_ERROR_INVALID_DEVICE;
    }
    *device = ordinal;
    return CUDA_SUCCESS;
}

static CUresult props(CUdevice dev, struct cudaDeviceProp *p)
{
    DRV_DEVICE(dev);
    return drv_result(cudaGetDeviceProperties(p, dev));
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    struct cudaDeviceProp p;
    if (!name || len <= 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = props(dev, &p);
    if (!r) {
        snprintf(name, (size_t)len, "%s", p.name);
    }
    return r;
}

CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    struct cudaDeviceProp p;
    if (!uuid) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = props(dev, &p);
    if (!r) {
        memcpy(uuid->bytes, p.uuid.bytes, sizeof(uuid->bytes));
    }
    return r;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    struct cudaDeviceProp p;
    if (!bytes) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = props(dev, &p);
    if (!r) {
        *bytes = p.totalGlobalMem;
    }
    return r;
}

/* The attributes the driver has and the runtime does not: what p2psim's
 * machine offers (the virtual memory management API with POSIX file
 * descriptors is served; stream memory operations, multi-device
 * cooperative launches, fabric and Windows handles, hardware
 * decompression, multicast are not). Generic compression is the
 * runtime's (by number: the GPU's catalog). */
static bool driver_only_attribute(CUdevice_attribute a, CUdevice dev, int *v)
{
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER:
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED:
        *v = 1;
        return true;
    case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED:
        /* compute capability 9.0 and later */
        return cudaDeviceGetAttribute(v, cudaDevAttrComputeCapabilityMajor,
                                      dev) == cudaSuccess &&
               ((*v = *v >= 9), true);
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1:
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR:
    case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS:
    case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK:
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH:
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED:
        *v = 0;
        return true;
    default:
        return false;
    }
}

/* CU_DEVICE_ATTRIBUTE_* are cudaDevAttr* by number where both exist. */
CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib,
                              CUdevice dev)
{
    DRV_DEVICE(dev);
    if (!pi) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (driver_only_attribute(attrib, dev, pi)) {
        return CUDA_SUCCESS;
    }
    return drv_result(
        cudaDeviceGetAttribute(pi, (enum cudaDeviceAttr)attrib, dev));
}

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    if (!major || !minor) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = cuDeviceGetAttribute(
        major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    return r ? r : cuDeviceGetAttribute(
                       minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                       dev);
}

CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    DRV_DEVICE(dev);
    return drv_result(cudaDeviceGetPCIBusId(pciBusId, len, dev));
}

CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
    DRV_READY();
    return drv_result(cudaDeviceGetByPCIBusId(dev, pciBusId));
}

CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev,
                               CUdevice peerDev)
{
    DRV_DEVICE(dev);
    if (!dev_ok(peerDev)) {
        return CUDA_ERROR_INVALID_DEVICE;
    }
    return drv_result(cudaDeviceCanAccessPeer(canAccessPeer, dev, peerDev));
}

/* CU_DEVICE_P2P_ATTRIBUTE_* are cudaDevP2PAttr* by number. */
CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib,
                                 CUdevice srcDevice, CUdevice dstDevice)
{
    DRV_DEVICE(srcDevice);
    return drv_result(cudaDeviceGetP2PAttribute(
        value, (enum cudaDeviceP2PAttr)attrib, srcDevice, dstDevice));
}

/* ---- contexts -------------------------------------------------------------------- */

/* Per thread: the context stack; depth 0: nothing pushed. */
#define CTX_STACK_DEPTH 64
static _Thread_local CUcontext ctx_stack[CTX_STACK_DEPTH];
static _Thread_local unsigned ctx_depth;

bool drv_ctx_valid(CUcontext ctx)
{
    if (!ctx) {
        return false;
    }
    if (primary && ctx >= primary && ctx < primary + n_devices) {
        return true;
    }
    pthread_mutex_lock(&drv_lock);
    bool found = false;
    for (struct ctx_node *c = created; c && !found; c = c->next) {
        found = &c->ctx == ctx;
    }
    pthread_mutex_unlock(&drv_lock);
    return found;
}

CUcontext drv_ctx_current(void)
{
    int dev = -1;
    if (drv_ready() || cudaGetDevice(&dev) || !dev_ok(dev)) {
        return ctx_depth ? ctx_stack[ctx_depth - 1] : NULL;
    }
    if (ctx_depth) {
        CUcontext top = ctx_stack[ctx_depth - 1];
        /* cudaSetDevice since: the runtime's device's primary context
         * took the top's place, as in CUDA. */
        if (top->dev != dev) {
            ctx_stack[ctx_depth - 1] = top = &primary[dev];
        }
        return top;
    }
    return p2psim_drv_device_active(dev) ? &primary[dev] : NULL;
}

int drv_ctx_device(CUcontext ctx)
{
    if (!ctx) {
        ctx = drv_ctx_current();
    }
    return ctx ? ctx->dev : -1;
}

/* Make ctx's device the runtime's (NULL: nothing). */
static CUresult ctx_activate(CUcontext ctx)
{
    return ctx ? drv_result(cudaSetDevice(ctx->dev)) : CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    DRV_READY();
    if (ctx && !drv_ctx_valid(ctx)) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (!ctx) {
        if (ctx_depth) {
            ctx_depth--;
        }
        return CUDA_SUCCESS;
    }
    CUresult r = ctx_activate(ctx);
    if (!r) {
        if (!ctx_depth) {
            ctx_depth = 1;
        }
        ctx_stack[ctx_depth - 1] = ctx;
    }
    return r;
}

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    DRV_READY();
    if (!pctx) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pctx = drv_ctx_current();
    return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    DRV_READY();
    if (!drv_ctx_valid(ctx)) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (ctx_depth == CTX_STACK_DEPTH) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    CUresult r = ctx_activate(ctx);
    if (!r) {
        ctx_stack[ctx_depth++] = ctx;
    }
    return r;
}

CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    DRV_READY();
    CUcontext cur = drv_ctx_current();
    if (!ctx_depth) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    ctx_depth--;
    if (pctx) {
        *pctx = cur;
    }
    return ctx_depth ? ctx_activate(ctx_stack[ctx_depth - 1])
                     : CUDA_SUCCESS;
}

/* cuCtxCreate_v4's parameters (execution affinity, CIG) are not modelled:
 * only NULL or none are taken. */
CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params,
                        unsigned int flags, CUdevice dev)
{
    DRV_DEVICE(dev);
    if (!pctx || (params && (params->numExecAffinityParams ||
                             params->cigParams))) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct ctx_node *c = calloc(1, sizeof(*c));
    if (!c) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    c->ctx.dev = dev;
    c->ctx.flags = flags;
    CUresult r = cuCtxPushCurrent_v2(&primary[dev]);
    if (r) {
        free(c);
        return r;
    }
    pthread_mutex_lock(&drv_lock);
    c->next = created;
    created = c;
    pthread_mutex_unlock(&drv_lock);
    ctx_stack[ctx_depth - 1] = &c->ctx;
    *pctx = &c->ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v3(CUcontext *pctx, void *paramsArray, int numParams,
                        unsigned int flags, CUdevice dev)
{
    if (paramsArray && numParams) {
        return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
    }
    return cuCtxCreate_v4(pctx, NULL, flags, dev);
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    DRV_READY();
    if (!drv_ctx_valid(ctx) || ctx->primary) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    /* Off every level of this thread's stack (others' are theirs). */
    unsigned k = 0;
    for (unsigned i = 0; i < ctx_depth; i++) {
        if (ctx_stack[i] != ctx) {
            ctx_stack[k++] = ctx_stack[i];
        }
    }
    ctx_depth = k;
    pthread_mutex_lock(&drv_lock);
    struct ctx_node **pc = &created;
    while (*pc && &(*pc)->ctx != ctx) {
        pc = &(*pc)->next;
    }
    struct ctx_node *c = *pc;
    if (c) {
        *pc = c->next;
    }
    pthread_mutex_unlock(&drv_lock);
    free(c);
    return CUDA_SUCCESS;
}

/* The current context's device, or CUDA_ERROR_INVALID_CONTEXT. */
static CUresult current_dev(int *dev)
{
    DRV_READY();
    CUcontext c = drv_ctx_current();
    if (!c) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    *dev = c->dev;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *device)
{
    int dev;
    if (!device) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = current_dev(&dev);
    if (!r) {
        *device = dev;
    }
    return r;
}

CUresult cuCtxGetFlags(unsigned int *flags)
{
    int dev;
    CUresult r = flags ? current_dev(&dev) : CUDA_ERROR_INVALID_VALUE;
    if (!r) {
        *flags = drv_ctx_current()->flags;
    }
    return r;
}

CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    DRV_READY();
    if (!version || (ctx && !drv_ctx_valid(ctx))) {
        return version ? CUDA_ERROR_INVALID_CONTEXT
                       : CUDA_ERROR_INVALID_VALUE;
    }
    *version = 3020;            /* the API of the _v2 functions */
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
    int dev;
    CUresult r = current_dev(&dev);
    return r ? r : drv_result(cudaDeviceSynchronize());
}

/* CU_LIMIT_* are cudaLimit* by number, CU_FUNC_CACHE_* cudaFuncCache*. */
CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
    int dev;
    CUresult r = current_dev(&dev);
    return r ? r : drv_result(cudaDeviceGetLimit(pvalue,
                                                 (enum cudaLimit)limit));
}

CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
    int dev;
    CUresult r = current_dev(&dev);
    return r ? r : drv_result(cudaDeviceSetLimit((enum cudaLimit)limit,
                                                 value));
}

CUresult cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
    int dev;
    CUresult r = current_dev(&dev);
    return r ? r : drv_result(cudaDeviceGetCacheConfig(
                       (enum cudaFuncCache *)pconfig));
}

CUresult cuCtxSetCacheConfig(CUfunc_cache config)
{
    int dev;
    CUresult r = current_dev(&dev);
    return r ? r : drv_result(cudaDeviceSetCacheConfig(
                       (enum cudaFuncCache)config));
}

CUresult cuCtxGetStreamPriorityRange(int *leastPriority,
                                     int *greatestPriority)
{
    DRV_READY();
    return drv_result(
        cudaDeviceGetStreamPriorityRange(leastPriority, greatestPriority));
}

CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    int dev;
    CUresult r = current_dev(&dev);
    if (r) {
        return r;
    }
    if (!drv_ctx_valid(peerContext)) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    return drv_result(cudaDeviceEnablePeerAccess(peerContext->dev, Flags));
}

CUresult cuCtxDisablePeerAccess(CUcontext peerContext)
{
    int dev;
    CUresult r = current_dev(&dev);
    if (r) {
        return r;
    }
    if (!drv_ctx_valid(peerContext)) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    return drv_result(cudaDeviceDisablePeerAccess(peerContext->dev));
}

/* ---- primary contexts -------------------------------------------------------------- */

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    DRV_DEVICE(dev);
    if (!pctx) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = drv_result(cudaInitDevice(dev, 0, 0));
    if (!r) {
        __atomic_add_fetch(&primary[dev].retains, 1, __ATOMIC_RELAXED);
        *pctx = &primary[dev];
    }
    return r;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    DRV_DEVICE(dev);
    unsigned n = __atomic_load_n(&primary[dev].retains, __ATOMIC_RELAXED);
    while (n && !__atomic_compare_exchange_n(&primary[dev].retains, &n, n - 1,
                                             false, __ATOMIC_RELAXED,
                                             __ATOMIC_RELAXED)) {
    }
    return n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/* cudaDeviceReset on dev, whichever device is current. */
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    int cur = 0;
    DRV_DEVICE(dev);
    CUresult r = drv_result(cudaGetDevice(&cur));
    if (!r) {
        r = drv_result(cudaSetDevice(dev));
    }
    if (!r) {
        r = drv_result(cudaDeviceReset());
        cudaSetDevice(cur);
    }
    return r;
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags,
                                    int *active)
{
    DRV_DEVICE(dev);
    if (!flags || !active) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *flags = primary[dev].flags;
    *active = p2psim_drv_device_active(dev);
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    DRV_DEVICE(dev);
    if (flags & ~(unsigned)CU_CTX_FLAGS_MASK) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    primary[dev].flags = flags;
    return CUDA_SUCCESS;
}
