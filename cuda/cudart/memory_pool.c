/*
 * cuda/cudart/memory_pool.c - memory pools (cudaMemPool*, the device's
 * default and current pool) and stream-ordered allocation
 * (cudaMallocAsync, cudaMallocFromPoolAsync, cudaFreeAsync).
 *
 * Every device has a default pool, created with the windows (memory.c). A
 * pool's allocation is an ordinary device allocation that remembers its
 * pool; a freed one goes back to the HBM space, and the pool keeps its
 * bytes reserved (counted as used device memory) up to the release
 * threshold. Model: CUDA trims a pool to its threshold at synchronization
 * points; here a free trims at once. cudaMallocAsync's allocation exists
 * from the call (stream order makes it usable after the earlier work of
 * the stream, which needs nothing here); cudaFreeAsync frees it when the
 * stream reaches it, as an operation. Sharing pools with other processes
 * is not served.
 */
#include <config.h>

#include "cuda/cudart/memory_int.h"

#include "cuda/cudart/graph_int.h"

#include <stdlib.h>
#include <string.h>

/* The per-thread variants (cuda_runtime_api.h declares them only for
 * programs built with CUDA_API_PER_THREAD_DEFAULT_STREAM). */
cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void **devPtr, size_t size,
                                           cudaStream_t stream);
cudaError_t CUDARTAPI cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size,
                                                   cudaMemPool_t memPool,
                                                   cudaStream_t stream);
cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void *devPtr, cudaStream_t stream);

struct CUmemPoolHandle_st *mem_pools;

/* ---- pools: bookkeeping -------------------------------------------------- */

static bool pool_valid(cudaMemPool_t pool)
{
    for (struct CUmemPoolHandle_st *p = mem_pools; p; p = p->next) {
        if (p == pool && !p->destroyed) {
            return true;
        }
    }
    return false;
}

cudaMemPool_t mem_pool_new(int dev, const struct cudaMemPoolProps *props)
{
    struct CUmemPoolHandle_st *p = calloc(1, sizeof(*p));
    if (!p) {
        return NULL;
    }
    p->access = calloc(rt.n_dev, sizeof(*p->access));
    if (!p->access) {
        free(p);
        return NULL;
    }
    p->device = dev;
    p->props = *props;
    p->access[dev] = cudaMemAccessFlagsProtReadWrite;
    for (unsigned i = 0; i < 3; i++) {
        p->reuse[i] = 1;        /* CUDA's defaults: every reuse allowed */
    }
    p->next = mem_pools;
    mem_pools = p;
    return p;
}

void mem_pool_free(cudaMemPool_t pool)
{
    for (struct CUmemPoolHandle_st **pp = &mem_pools; *pp; pp = &(*pp)->next) {
        if (*pp == pool) {
            *pp = pool->next;
            break;
        }
    }
    rt.dev[pool->device].mem_used -= pool->cached;
    free(pool->access);
    free(pool);
}

/* Give cached bytes back to the device until reserved <= keep (never below
 * what is in use). */
void mem_pool_trim(cudaMemPool_t pool, uint64_t keep)
{
    uint64_t max_cached = keep > pool->used ? keep - pool->used : 0;
    if (pool->cached > max_cached) {
        rt.dev[pool->device].mem_used -= pool->cached - max_cached;
        pool->cached = max_cached;
    }
}

void mem_pool_note_high(cudaMemPool_t pool)
{
    if (pool->used > pool->used_high) {
        pool->used_high = pool->used;
    }
    if (pool->used + pool->cached > pool->reserved_high) {
        pool->reserved_high = pool->used + pool->cached;
    }
}

/* ---- pools --------------------------------------------------------------- */

/*
 * rt.h: whether accessor reaches a directly without peer access enabled:
 * its owner, and devices a pool granted access (cudaMemPoolSetAccess).
 * Pinned and managed memory: any device. cudaDeviceEnablePeerAccess
 * covers the rest (copy.c asks it first); as in CUDA it says nothing
 * about pool memory, and a pool grant needs no peer access.
 */
bool rt_alloc_peer_ok(const struct rt_alloc *a, int accessor)
{
    if (a->kind != RT_MEM_DEVICE || accessor == a->device) {
        return true;
    }
    if (accessor < 0 || (unsigned)accessor >= rt.n_dev) {
        return false;
    }
    if (a->flags & RT_ALLOC_VMM) {
        return accessor < 64 && (a->vmm_access >> accessor & 1);
    }
    if (!a->pool) {
        return false;
    }
    return a->pool->access[accessor] != cudaMemAccessFlagsProtNone;
}

/* The device's default pool, or (current) the one it allocates from. */
static cudaError_t get_pool(cudaMemPool_t *memPool, int device, bool current)
{
    cudaError_t e = cudaSuccess;
    if (!memPool) {
        e = cudaErrorInvalidValue;
    } else if (!rt_device_valid(device)) {
        e = cudaErrorInvalidDevice;
    } else {
        *memPool = current ? rt.dev[device].current_pool
                           : rt.dev[device].default_pool;
    }
    return e;
}

cudaError_t CUDARTAPI cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool,
                                                  int device)
{
    SERVE(get_pool(memPool, device, false));
}

cudaError_t CUDARTAPI cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    SERVE(get_pool(memPool, device, true));
}

static cudaError_t set_current_pool(int device, cudaMemPool_t memPool)
{
    cudaError_t e = cudaSuccess;
    if (!rt_device_valid(device)) {
        e = cudaErrorInvalidDevice;
    } else if (!pool_valid(memPool) || memPool->device != device) {
        e = cudaErrorInvalidValue;
    } else {
        rt.dev[device].current_pool = memPool;
    }
    return e;
}

cudaError_t CUDARTAPI cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    SERVE(set_current_pool(device, memPool));
}

/*
 * The pools of a location (CUDA 13's cudaMemGetDefaultMemPool and
 * friends): a device's, for pinned allocations. Pools of host locations
 * and of managed memory are not served (cudaErrorNotSupported), as no
 * pool here lives outside a GPU.
 */
static cudaError_t location_device(const struct cudaMemLocation *loc,
                                   enum cudaMemAllocationType type, int *dev)
{
    if (!loc || (type != cudaMemAllocationTypePinned &&
                 type != cudaMemAllocationTypeManaged)) {
        return cudaErrorInvalidValue;
    }
    if (loc->type != cudaMemLocationTypeDevice ||
        type != cudaMemAllocationTypePinned) {
        return loc->type == cudaMemLocationTypeInvalid ? cudaErrorInvalidValue
                                                       : cudaErrorNotSupported;
    }
    *dev = loc->id;
    return cudaSuccess;
}

static cudaError_t get_location_pool(cudaMemPool_t *pool,
                                     const struct cudaMemLocation *loc,
                                     enum cudaMemAllocationType type,
                                     bool current)
{
    int dev = 0;
    cudaError_t e = location_device(loc, type, &dev);
    return e ? e : get_pool(pool, dev, current);
}

cudaError_t CUDARTAPI cudaMemGetDefaultMemPool(cudaMemPool_t *memPool,
                                               struct cudaMemLocation *location,
                                               enum cudaMemAllocationType type)
{
    SERVE(get_location_pool(memPool, location, type, false));
}

cudaError_t CUDARTAPI cudaMemGetMemPool(cudaMemPool_t *memPool,
                                        struct cudaMemLocation *location,
                                        enum cudaMemAllocationType type)
{
    SERVE(get_location_pool(memPool, location, type, true));
}

static cudaError_t set_location_pool(const struct cudaMemLocation *loc,
                                     enum cudaMemAllocationType type,
                                     cudaMemPool_t pool)
{
    int dev = 0;
    cudaError_t e = location_device(loc, type, &dev);
    return e ? e : set_current_pool(dev, pool);
}

cudaError_t CUDARTAPI cudaMemSetMemPool(struct cudaMemLocation *location,
                                        enum cudaMemAllocationType type,
                                        cudaMemPool_t memPool)
{
    SERVE(set_location_pool(location, type, memPool));
}

static cudaError_t pool_create(cudaMemPool_t *memPool,
                               const struct cudaMemPoolProps *props)
{
    if (!memPool || !props ||
        props->allocType != cudaMemAllocationTypePinned ||
        (props->usage & ~cudaMemPoolCreateUsageHwDecompress)) {
        return cudaErrorInvalidValue;
    }
    if (props->location.type == cudaMemLocationTypeHost ||
        props->location.type == cudaMemLocationTypeHostNuma ||
        props->location.type == cudaMemLocationTypeHostNumaCurrent) {
        return cudaErrorNotSupported;   /* host pools: not served yet */
    }
    if (props->location.type != cudaMemLocationTypeDevice) {
        return cudaErrorInvalidValue;
    }
    /* A location that is no device: the documented error of
     * cudaMemPoolCreate is cudaErrorInvalidValue, not InvalidDevice. */
    if (!rt_device_valid(props->location.id)) {
        return cudaErrorInvalidValue;
    }
    /* Only POSIX file descriptors exist on Linux (and fabric handles need
     * an IMEX channel we do not model). */
    if (props->handleTypes & ~cudaMemHandleTypePosixFileDescriptor) {
        return cudaErrorNotSupported;
    }
    cudaMemPool_t p = mem_pool_new(props->location.id, props);
    if (!p) {
        return cudaErrorMemoryAllocation;
    }
    *memPool = p;
    return cudaSuccess;
}

cudaError_t CUDARTAPI
cudaMemPoolCreate(cudaMemPool_t *memPool,
                  const struct cudaMemPoolProps *poolProps)
{
    SERVE(pool_create(memPool, poolProps));
}

static cudaError_t pool_destroy(cudaMemPool_t memPool)
{
    cudaError_t e = cudaSuccess;
    if (!pool_valid(memPool) || memPool->is_default) {
        e = cudaErrorInvalidValue;
    } else {
        struct rt_device *d = &rt.dev[memPool->device];
        if (d->current_pool == memPool) {
            d->current_pool = d->default_pool;
        }
        /* CUDA: with allocations still out, the pool goes when the last
         * one is freed. */
        mem_pool_trim(memPool, 0);
        if (memPool->n_allocs) {
            memPool->destroyed = true;
        } else {
            mem_pool_free(memPool);
        }
    }
    return e;
}

cudaError_t CUDARTAPI cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    SERVE(pool_destroy(memPool));
}

static cudaError_t pool_trim_to(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    cudaError_t e = cudaSuccess;
    if (!pool_valid(memPool)) {
        e = cudaErrorInvalidValue;
    } else {
        mem_pool_trim(memPool, minBytesToKeep);
    }
    return e;
}

cudaError_t CUDARTAPI cudaMemPoolTrimTo(cudaMemPool_t memPool,
                                        size_t minBytesToKeep)
{
    SERVE(pool_trim_to(memPool, minBytesToKeep));
}

static cudaError_t pool_set_attr(cudaMemPool_t p, enum cudaMemPoolAttr attr,
                                 const void *value)
{
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        p->reuse[attr - 1] = *(const int *)value != 0;
        return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
        p->release_threshold = *(const uint64_t *)value;
        mem_pool_trim(p, p->release_threshold);
        return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh:
        /* Only a reset to the current value (0) may be written. */
        if (*(const uint64_t *)value != 0) {
            return cudaErrorInvalidValue;
        }
        p->reserved_high = p->used + p->cached;
        return cudaSuccess;
    case cudaMemPoolAttrUsedMemHigh:
        if (*(const uint64_t *)value != 0) {
            return cudaErrorInvalidValue;
        }
        p->used_high = p->used;
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;   /* read-only or unknown */
    }
}

static cudaError_t pool_get_attr(cudaMemPool_t p, enum cudaMemPoolAttr attr,
                                 void *value)
{
    uint64_t v;
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        *(int *)value = p->reuse[attr - 1];
        return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
        v = p->release_threshold;
        break;
    case cudaMemPoolAttrReservedMemCurrent:
        v = p->used + p->cached;
        break;
    case cudaMemPoolAttrReservedMemHigh:
        v = p->reserved_high;
        break;
    case cudaMemPoolAttrUsedMemCurrent:
        v = p->used;
        break;
    case cudaMemPoolAttrUsedMemHigh:
        v = p->used_high;
        break;
    default:
        return cudaErrorInvalidValue;
    }
    *(uint64_t *)value = v;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemPoolSetAttribute(cudaMemPool_t memPool,
                                              enum cudaMemPoolAttr attr,
                                              void *value)
{
    SERVE(!pool_valid(memPool) || !value ? cudaErrorInvalidValue
                                         : pool_set_attr(memPool, attr, value));
}

cudaError_t CUDARTAPI cudaMemPoolGetAttribute(cudaMemPool_t memPool,
                                              enum cudaMemPoolAttr attr,
                                              void *value)
{
    SERVE(!pool_valid(memPool) || !value ? cudaErrorInvalidValue
                                         : pool_get_attr(memPool, attr, value));
}

/* One grant of cudaMemPoolSetAccess, checked before any is applied. */
static cudaError_t access_check(cudaMemPool_t p,
                                const struct cudaMemAccessDesc *d)
{
    if (d->location.type != cudaMemLocationTypeDevice) {
        return cudaErrorInvalidValue;
    }
    if (!rt_device_valid(d->location.id)) {
        return cudaErrorInvalidValue; /* as cudaMemPoolCreate */
    }
    if (d->flags != cudaMemAccessFlagsProtNone &&
        d->flags != cudaMemAccessFlagsProtRead &&
        d->flags != cudaMemAccessFlagsProtReadWrite) {
        return cudaErrorInvalidValue;
    }
    int dev = d->location.id;
    if (dev == p->device) {
        /* The owner's access cannot be changed. */
        return d->flags == cudaMemAccessFlagsProtReadWrite
                   ? cudaSuccess
                   : cudaErrorInvalidValue;
    }
    struct p2psim_verdict v;
    if (d->flags != cudaMemAccessFlagsProtNone &&
        (p2psim_p2p(rt.p, (unsigned)dev, (unsigned)p->device, &v) < 0 ||
         !v.allowed)) {
        /* No P2P path between the two (cudaDeviceCanAccessPeer says 0);
         * CUDA's exact code here is not verified. */
        return cudaErrorInvalidDevice;
    }
    return cudaSuccess;
}

static cudaError_t pool_set_access(cudaMemPool_t memPool,
                                   const struct cudaMemAccessDesc *descList,
                                   size_t count)
{
    cudaError_t e = cudaSuccess;
    if (!pool_valid(memPool) || (count && !descList)) {
        e = cudaErrorInvalidValue;
    }
    for (size_t i = 0; e == cudaSuccess && i < count; i++) {
        e = access_check(memPool, &descList[i]);
    }
    for (size_t i = 0; e == cudaSuccess && i < count; i++) {
        memPool->access[descList[i].location.id] = descList[i].flags;
    }
    return e;
}

cudaError_t CUDARTAPI
cudaMemPoolSetAccess(cudaMemPool_t memPool,
                     const struct cudaMemAccessDesc *descList, size_t count)
{
    SERVE(pool_set_access(memPool, descList, count));
}

static cudaError_t pool_get_access(enum cudaMemAccessFlags *flags,
                                   cudaMemPool_t memPool,
                                   struct cudaMemLocation *location)
{
    cudaError_t e = cudaSuccess;
    if (!flags || !location || !pool_valid(memPool) ||
        location->type != cudaMemLocationTypeDevice) {
        e = cudaErrorInvalidValue;
    } else if (!rt_device_valid(location->id)) {
        e = cudaErrorInvalidDevice;
    } else {
        *flags = memPool->access[location->id];
    }
    return e;
}

cudaError_t CUDARTAPI cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags,
                                           cudaMemPool_t memPool,
                                           struct cudaMemLocation *location)
{
    SERVE(pool_get_access(flags, memPool, location));
}

/*
 * Sharing a pool between processes (POSIX file descriptors only, as on
 * Linux): the exporter's pool, created with that handle type, is named by
 * a memfd (ipc.c, rt_ipc_pool_share); the importer gets a pool of its own
 * standing for it (imported: nothing may be allocated from it), with the
 * same device and share token, whose access it sets as for any pool.
 * Pointers travel as cudaMemPoolPtrExportData (ipc.c's handles of the
 * allocation, carrying the token).
 */
static cudaError_t pool_export(void *handle, cudaMemPool_t pool,
                               enum cudaMemAllocationHandleType type,
                               unsigned flags)
{
    if (!handle || !pool_valid(pool) || flags != 0 || pool->imported) {
        return cudaErrorInvalidValue;
    }
    if (type != cudaMemHandleTypePosixFileDescriptor) {
        return cudaErrorNotSupported;
    }
    if (!(pool->props.handleTypes & cudaMemHandleTypePosixFileDescriptor)) {
        return cudaErrorInvalidValue;   /* not asked for at creation */
    }
    if (!pool->share_token) {
        pool->share_token = rt_ipc_pool_token();
    }
    return rt_ipc_pool_share((int *)handle, pool->device, pool->share_token);
}

cudaError_t CUDARTAPI cudaMemPoolExportToShareableHandle(
    void *shareableHandle, cudaMemPool_t memPool,
    enum cudaMemAllocationHandleType handleType, unsigned int flags)
{
    SERVE(pool_export(shareableHandle, memPool, handleType, flags));
}

static cudaError_t pool_import(cudaMemPool_t *out, void *handle,
                               enum cudaMemAllocationHandleType type,
                               unsigned flags)
{
    if (!out || flags != 0) {
        return cudaErrorInvalidValue;
    }
    if (type != cudaMemHandleTypePosixFileDescriptor) {
        return cudaErrorNotSupported;
    }
    int dev = 0;
    uint64_t token = 0;
    cudaError_t e = rt_ipc_pool_open((int)(intptr_t)handle, &dev, &token);
    if (e) {
        return e;
    }
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof(props));
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t p = mem_pool_new(dev, &props);
    if (!p) {
        return cudaErrorMemoryAllocation;
    }
    p->imported = true;
    p->share_token = token;
    *out = p;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemPoolImportFromShareableHandle(
    cudaMemPool_t *memPool, void *shareableHandle,
    enum cudaMemAllocationHandleType handleType, unsigned int flags)
{
    SERVE(pool_import(memPool, shareableHandle, handleType, flags));
}

static cudaError_t pool_export_pointer(struct cudaMemPoolPtrExportData *d,
                                       void *ptr)
{
    struct rt_ptr p;
    rt_ptr_find(ptr, &p);
    if (!d || p.where != RT_WHERE_DEVICE || !p.alloc->pool || p.off != 0 ||
        !pool_valid(p.alloc->pool)) {
        return cudaErrorInvalidValue;
    }
    cudaMemPool_t pool = p.alloc->pool;
    if (!(pool->props.handleTypes & cudaMemHandleTypePosixFileDescriptor) ||
        pool->imported) {
        return cudaErrorInvalidValue;
    }
    if (!pool->share_token) {
        pool->share_token = rt_ipc_pool_token();
    }
    return rt_ipc_pool_export(d, ptr, pool->share_token);
}

cudaError_t CUDARTAPI cudaMemPoolExportPointer(
    struct cudaMemPoolPtrExportData *exportData, void *ptr)
{
    SERVE(pool_export_pointer(exportData, ptr));
}

static cudaError_t pool_import_pointer(void **ptr, cudaMemPool_t pool,
                                       struct cudaMemPoolPtrExportData *d)
{
    if (!ptr || !d || !pool_valid(pool) || !pool->imported) {
        return cudaErrorInvalidValue;
    }
    return rt_ipc_pool_import(ptr, d, pool->share_token);
}

cudaError_t CUDARTAPI cudaMemPoolImportPointer(
    void **ptr, cudaMemPool_t memPool,
    struct cudaMemPoolPtrExportData *exportData)
{
    SERVE(pool_import_pointer(ptr, memPool, exportData));
}

/* ---- stream-ordered allocation ------------------------------------------- */

/* pool NULL: the current pool of the stream's device. */
static cudaError_t pool_malloc_async(void **ptr, size_t size,
                                     cudaMemPool_t pool, cudaStream_t h)
{
    cudaError_t e = cudaSuccess;
    if (rt_capture_malloc(ptr, size, pool, h, &e)) {
        return e;
    }
    struct rt_stream *s = rt_stream_resolve(h, -1);
    if (!ptr || (pool && !pool_valid(pool))) {
        e = cudaErrorInvalidValue;
    } else if (!s) {
        e = cudaErrorInvalidResourceHandle;
    } else {
        int dev = rt_stream_device(s);
        if (!pool) {
            pool = rt.dev[dev].current_pool;
        }
        if (pool->imported) {
            e = cudaErrorInvalidValue;  /* an imported pool gives nothing */
        } else if (size == 0) {
            *ptr = NULL;        /* as cudaMalloc */
        } else if ((e = rt_device_init(pool->device)) == cudaSuccess) {
            e = mem_device_alloc(pool->device, size, pool, ptr);
        }
    }
    return e;
}

static cudaError_t malloc_async(void **ptr, size_t size, cudaMemPool_t pool,
                                cudaStream_t h)
{
    SERVE(pool_malloc_async(ptr, size, pool, h));
}

cudaError_t CUDARTAPI cudaMallocAsync(void **devPtr, size_t size,
                                      cudaStream_t stream)
{
    return malloc_async(devPtr, size, NULL, stream);
}

cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void **devPtr, size_t size,
                                           cudaStream_t stream)
{
    return malloc_async(devPtr, size, NULL,
                        stream ? stream : cudaStreamPerThread);
}

cudaError_t CUDARTAPI cudaMallocFromPoolAsync(void **ptr, size_t size,
                                              cudaMemPool_t memPool,
                                              cudaStream_t stream)
{
    if (!memPool) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    return malloc_async(ptr, size, memPool, stream);
}

cudaError_t CUDARTAPI cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size,
                                                   cudaMemPool_t memPool,
                                                   cudaStream_t stream)
{
    return cudaMallocFromPoolAsync(ptr, size, memPool,
                                   stream ? stream : cudaStreamPerThread);
}

struct free_op {
    struct rt_op op;            /* first */
    struct rt_alloc *a;
};

static void free_now(void *arg)
{
    struct free_op *f = arg;
    mem_alloc_release(f->a);
    rt_op_done(&f->op, cudaSuccess);
}

static void free_start(struct rt_op *op, sim_time_t at)
{
    if (rt_machine->timer(at, free_now, op) < 0) {
        free_now(op);           /* out of memory: free it now */
    }
}

static cudaError_t pool_free_async(void *ptr, cudaStream_t h)
{
    cudaError_t e = cudaSuccess;
    if (rt_capture_free(ptr, h, &e)) {
        return e;
    }
    struct rt_alloc *a = ptr ? mem_freeable_at(ptr, RT_MEM_DEVICE) : NULL;
    struct rt_stream *s = rt_stream_resolve(h, -1);
    /* An imported pointer of a shared pool: unmapped at once (not in
     * stream order: its memory is the exporter's, which frees it). */
    if (ptr && !a && s && rt_ipc_pool_release(ptr)) {
        return cudaSuccess;
    }
    if (!ptr) {
        e = cudaSuccess;
    } else if (!a || a->kind != RT_MEM_DEVICE) {
        e = cudaErrorInvalidValue;
    } else if (!s) {
        e = cudaErrorInvalidResourceHandle;
    } else {
        struct free_op *f = (struct free_op *)rt_op_alloc(
            sizeof(*f), "free", free_start);
        if (!f) {
            e = cudaErrorMemoryAllocation;
        } else {
            f->a = a;
            a->flags |= MEM_FREEING;
            e = rt_enqueue(s, &f->op);
        }
    }
    return e;
}

static cudaError_t free_async(void *ptr, cudaStream_t h)
{
    SERVE(pool_free_async(ptr, h));
}

cudaError_t CUDARTAPI cudaFreeAsync(void *devPtr, cudaStream_t stream)
{
    return free_async(devPtr, stream);
}

cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void *devPtr, cudaStream_t stream)
{
    return free_async(devPtr, stream ? stream : cudaStreamPerThread);
}
