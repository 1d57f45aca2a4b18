/*
 * cuda/cudart/kernel_attr.c - a kernel's limits (dynamic shared memory,
 * resident blocks per SM), cudaFuncGetAttributes, cudaFuncSetAttribute
 * and the occupancy calls.
 *
 * Limits of a kernel that only its binary knows (registers, static shared
 * and local memory, launch bounds) read as 0 or as the device maximum
 * until binaries are parsed: occupancy is then limited by threads, blocks
 * and dynamic shared memory per SM only.
 */
#include <config.h>

#include "cuda/cudart/launch_int.h"

#include <stdint.h>
#include <string.h>

/* ---- limits of a kernel, occupancy --------------------------------------- */

/* Dynamic shared memory a launch of k may ask for: what the program set,
 * else 48 KiB less the static part (CUDA's default). */
size_t kernel_max_dyn_smem(const struct CUkern_st *k,
                           const struct cudaDeviceProp *p)
{
    if (k->max_dyn_smem >= 0) {
        return (size_t)k->max_dyn_smem;
    }
    return p->sharedMemPerBlock > k->static_smem
               ? p->sharedMemPerBlock - k->static_smem
               : 0;
}

/*
 * Shared memory is handed to blocks in 128-byte units, each block also
 * holding the system's reserved part (reservedSharedMemPerBlock); the
 * CUDA occupancy calculator (cuda_occupancy.h) uses the same unit.
 */
#define SMEM_UNIT_BYTES 128
/* Registers are allocated per warp in units of 256 (cuda_occupancy.h). */
#define REG_UNIT 256

static size_t smem_per_block(const struct CUkern_st *k,
                             const struct cudaDeviceProp *p, size_t dyn)
{
    size_t b = k->static_smem + dyn + p->reservedSharedMemPerBlock;
    return (b + SMEM_UNIT_BYTES - 1) / SMEM_UNIT_BYTES * SMEM_UNIT_BYTES;
}

/*
 * Blocks of k with `threads` threads that one SM holds at once, ignoring
 * shared memory: the least of the warp slots (maxThreadsPerMultiProcessor
 * / warpSize), the block slots (maxBlocksPerMultiProcessor) and the
 * registers. 0 for a block larger than a block may be.
 */
static int blocks_by_threads(const struct CUkern_st *k,
                             const struct cudaDeviceProp *p, int threads)
{
    if (threads <= 0 || threads > p->maxThreadsPerBlock) {
        return 0;
    }
    int warps = (threads + p->warpSize - 1) / p->warpSize;
    int n = p->maxThreadsPerMultiProcessor / p->warpSize / warps;
    if (n > p->maxBlocksPerMultiProcessor) {
        n = p->maxBlocksPerMultiProcessor;
    }
    if (k->num_regs > 0) {
        int per_warp = (k->num_regs * p->warpSize + REG_UNIT - 1) / REG_UNIT *
                       REG_UNIT;
        int by_regs = p->regsPerMultiprocessor / (per_warp * warps);
        if (by_regs < n) {
            n = by_regs;
        }
    }
    return n;
}

/* As blocks_by_threads, with dyn bytes of dynamic shared memory each. */
int kernel_blocks_per_sm(const struct CUkern_st *k,
                         const struct cudaDeviceProp *p, int threads,
                         size_t dyn)
{
    int n = blocks_by_threads(k, p, threads);
    if (dyn > kernel_max_dyn_smem(k, p)) {
        return 0;
    }
    size_t per_block = smem_per_block(k, p, dyn);
    if (per_block == 0) {
        return n;               /* no shared memory at all: no limit */
    }
    size_t by_smem = p->sharedMemPerMultiprocessor / per_block;
    return by_smem < (size_t)n ? (int)by_smem : n;
}

/* ---- kernel attributes --------------------------------------------------- */

/* The kernel of host stub func (NULL if none), the registry lock taken
 * (SERVE_KERNEL drops it). */
static struct CUkern_st *kernel_of_stub_locked(const void *func)
{
    pthread_mutex_lock(&reg_lock);
    return reg_kernel_of_stub(func);
}

/*
 * Serve body (a cudaError_t expression) with the runtime lock, the
 * registry lock, and k, the kernel of host stub func (NULL if none).
 */
#define SERVE_KERNEL(func, body)                                              \
    do {                                                                      \
        struct CUkern_st *k;                                                  \
        cudaError_t ke_;                                                      \
        SERVE((k = kernel_of_stub_locked(func), ke_ = (body),                 \
               pthread_mutex_unlock(&reg_lock), ke_));                        \
    } while (0)

/*
 * Model: the binary's figures (registers, static/const/local memory) are
 * 0 and launch bounds absent until binaries are parsed. ptxVersion is the
 * virtual architecture the kernel's PTX was built for (its .target: what
 * the driver compiles for the device), binaryVersion the device's compute
 * capability, which that compilation targets; where the PTX cannot be
 * read (a C kernel), both are the device's. CUB and Thrust pick their
 * tuning by ptxVersion and refuse to run a kernel whose architecture the
 * program was not built for.
 */
static cudaError_t func_get_attributes(struct cudaFuncAttributes *a,
                                       const struct CUkern_st *k)
{
    struct cudaDeviceProp p;

    if (!a) {
        return cudaErrorInvalidValue;
    }
    if (!k) {
        return cudaErrorInvalidDeviceFunction;
    }
    rt_device_props(rt_current_device(), &p);
    memset(a, 0, sizeof(*a));
    a->sharedSizeBytes = k->static_smem;
    a->maxThreadsPerBlock = p.maxThreadsPerBlock;
    a->numRegs = k->num_regs;
    a->ptxVersion = a->binaryVersion = p.major * 10 + p.minor;
    struct ptx_module *mod = k->module ? rt_module_ptx(k->module) : NULL;
    unsigned sm = mod ? ptx_module_target_sm(mod) : 0;
    if (sm > 0 && sm < 1000) {
        a->ptxVersion = (int)sm;
    }
    a->maxDynamicSharedSizeBytes = (int)kernel_max_dyn_smem(k, &p);
    a->preferredShmemCarveout = k->carveout;
    a->requiredClusterWidth = k->cluster_dim[0];
    a->requiredClusterHeight = k->cluster_dim[1];
    a->requiredClusterDepth = k->cluster_dim[2];
    a->clusterSchedulingPolicyPreference = k->cluster_policy;
    a->nonPortableClusterSizeAllowed = k->non_portable_cluster;
    return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
                                  const void *func)
{
    SERVE_KERNEL(func, func_get_attributes(attr, k));
}

/*
 * The settable attributes (CUDA Runtime API, cudaFuncSetAttribute), each
 * checked against the current device: dynamic shared memory up to the
 * opt-in maximum less the static part; a carveout of -1 (none) to 100
 * percent; cluster sizes and policies where clusters exist (compute
 * capability 9.0). ClusterDimMustBeSet is read-only.
 */
static cudaError_t func_set_attribute(struct CUkern_st *k,
                                      enum cudaFuncAttribute attr, int value)
{
    struct cudaDeviceProp p;

    if (!k) {
        return cudaErrorInvalidDeviceFunction;
    }
    rt_device_props(rt_current_device(), &p);
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 ||
            (size_t)value + k->static_smem > p.sharedMemPerBlockOptin) {
            return cudaErrorInvalidValue;
        }
        k->max_dyn_smem = value;
        return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100) {
            return cudaErrorInvalidValue;
        }
        k->carveout = value;
        return cudaSuccess;
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
        if (!p.clusterLaunch) {
            return cudaErrorNotSupported;
        }
        if (value < 0 ||
            (attr == cudaFuncAttributeNonPortableClusterSizeAllowed &&
             value > 1) ||
            (attr == cudaFuncAttributeClusterSchedulingPolicyPreference &&
             value > 2)) {
            return cudaErrorInvalidValue;
        }
        if (attr == cudaFuncAttributeNonPortableClusterSizeAllowed) {
            k->non_portable_cluster = value;
        } else if (attr == cudaFuncAttributeClusterSchedulingPolicyPreference) {
            k->cluster_policy = value;
        } else {
            k->cluster_dim[attr - cudaFuncAttributeRequiredClusterWidth] =
                value;
        }
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

cudaError_t cudaFuncSetAttribute(const void *func,
                                 enum cudaFuncAttribute attr, int value)
{
    SERVE_KERNEL(func, func_set_attribute(k, attr, value));
}

/* Per-kernel cache and bank preferences: checked, then dropped (config.c
 * says why nothing reads them). */
static cudaError_t func_check_pref(const struct CUkern_st *k, int v, int max)
{
    return !k ? cudaErrorInvalidDeviceFunction
           : v < 0 || v > max ? cudaErrorInvalidValue
                              : cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void *func,
                                   enum cudaFuncCache cacheConfig)
{
    SERVE_KERNEL(func, func_check_pref(k, (int)cacheConfig,
                                       cudaFuncCachePreferEqual));
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func,
                                       enum cudaSharedMemConfig config)
{
    SERVE_KERNEL(func, func_check_pref(k, (int)config,
                                       cudaSharedMemBankSizeEightByte));
}

/* The kernel's device name as registered (mangled for C++). */
static cudaError_t func_name(const char **name, const struct CUkern_st *k)
{
    if (!name) {
        return cudaErrorInvalidValue;
    }
    if (!k) {
        return cudaErrorInvalidDeviceFunction;
    }
    *name = k->name;
    return cudaSuccess;
}

cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    SERVE_KERNEL(func, func_name(name, k));
}

/* The driver's function of a kernel is its host stub (the key p2psim's
 * driver API looks a CUfunction up by, drv_bridge.h). */
static cudaError_t func_by_symbol(cudaFunction_t *fn, const void *stub,
                                  const struct CUkern_st *k)
{
    if (!fn) {
        return cudaErrorInvalidValue;
    }
    if (!k) {
        return cudaErrorInvalidDeviceFunction;
    }
    *fn = (cudaFunction_t)(uintptr_t)stub;
    return cudaSuccess;
}

cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr,
                                const void *symbolPtr)
{
    SERVE_KERNEL(symbolPtr, func_by_symbol(functionPtr, symbolPtr, k));
}

/* ---- occupancy ----------------------------------------------------------- */

static cudaError_t max_active_blocks(int *n, const struct CUkern_st *k,
                                     int block_size, size_t dyn,
                                     unsigned flags)
{
    struct cudaDeviceProp p;

    if (!n || block_size <= 0 ||
        (flags & ~(unsigned)cudaOccupancyDisableCachingOverride)) {
        return cudaErrorInvalidValue;
    }
    if (!k) {
        return cudaErrorInvalidDeviceFunction;
    }
    rt_device_props(rt_current_device(), &p);
    *n = kernel_blocks_per_sm(k, &p, block_size, dyn);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize)
{
    SERVE_KERNEL(func, max_active_blocks(numBlocks, k, blockSize,
                                         dynamicSMemSize, 0));
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize,
    unsigned int flags)
{
    SERVE_KERNEL(func, max_active_blocks(numBlocks, k, blockSize,
                                         dynamicSMemSize, flags));
}

/*
 * The most dynamic shared memory each of n blocks of block_size threads
 * may have with all n on one SM: the SM's shared memory split n ways in
 * whole units, less each block's reserved and static part, capped at what
 * a launch of k may ask for; 0 when n such blocks cannot share an SM.
 */
static cudaError_t available_dyn_smem(size_t *out, const struct CUkern_st *k,
                                      int n, int block_size)
{
    struct cudaDeviceProp p;

    if (!out || n <= 0 || block_size <= 0) {
        return cudaErrorInvalidValue;
    }
    if (!k) {
        return cudaErrorInvalidDeviceFunction;
    }
    rt_device_props(rt_current_device(), &p);
    *out = 0;
    if (blocks_by_threads(k, &p, block_size) < n) {
        return cudaSuccess;
    }
    size_t share = p.sharedMemPerMultiprocessor / (size_t)n /
                   SMEM_UNIT_BYTES * SMEM_UNIT_BYTES;
    size_t fixed = p.reservedSharedMemPerBlock + k->static_smem;
    if (share > fixed) {
        size_t cap = kernel_max_dyn_smem(k, &p);
        *out = share - fixed < cap ? share - fixed : cap;
    }
    return cudaSuccess;
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                      const void *func,
                                                      int numBlocks,
                                                      int blockSize)
{
    SERVE_KERNEL(func, available_dyn_smem(dynamicSmemSize, k, numBlocks,
                                          blockSize));
}
