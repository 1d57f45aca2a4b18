/*
 * cuda/cudart/memory.c - device memory, pinned host memory, pointer
 * attributes, memset, memory pools and stream-ordered allocation.
 *
 * Device memory. Each device owns a window of virtual addresses as large
 * as its HBM, reserved with mmap(PROT_NONE, MAP_NORESERVE) at start-up:
 * no host allocation can land there and a host dereference of a device
 * pointer faults, as on real CUDA. A device pointer is (device, HBM
 * offset = ptr - window base). HBM offsets come from the machine's HBM
 * space (rt_machine->hbm_alloc: first fit, shared by every process of a
 * program), aligned to RT_MEM_ALIGN_BYTES (512: CUDA promises 256 and
 * steps small allocations by 512). cudaMalloc(&p, 0) succeeds with
 * p = NULL, as CUDA's does.
 *
 *   rt.dev[0].va_base             rt.dev[1].va_base
 *   |<- window 0: mem_size ->|    |<- window 1 ->|       (separate mmaps)
 *   [alloc][  ][alloc]  ...       [alloc] ...
 *
 * Pinned host memory (cudaMallocHost, cudaHostAlloc, cudaHostRegister) is
 * the program's own memory (rt_machine->host_alloc, or the program's for
 * cudaHostRegister) registered with the machine in the DRAM of the
 * current device's socket (p2psim_gpu_socket), so copies move the
 * program's bytes.
 * With unified addressing it is mapped and portable whatever the flags.
 *
 * The allocation table rt.allocs holds every allocation the program can
 * name (device, pinned, managed), sorted by base: lookups are a binary
 * search (O(log n)), insertions and removals O(n) moves.
 *
 * Memset is an operation on a stream: on device memory a fill of the
 * owner's HBM (rt_machine->fill, p2psim_fill: a copy-engine operation
 * through the HBM);
 * on pinned memory a host write at the operation's time (Model: not
 * timed); on managed memory a fault of the range to the stream's device
 * (managed.c), then a fill of the device's copy and the host write.
 * CUDA's rule ("API synchronization
 * behavior"): cudaMemset is asynchronous with respect to the host except
 * when the target is pinned host memory or managed memory, where it is
 * synchronous; cudaMemsetAsync is always asynchronous.
 *
 * Pools. Every device has a default pool, created with the windows. A
 * pool's allocation is an ordinary device allocation that remembers its
 * pool; a freed one goes back to the HBM space, and the pool keeps its bytes
 * reserved (counted as used device memory) up to the release threshold.
 * Model: CUDA trims a pool to its threshold at synchronization points;
 * here a free trims at once. cudaMallocAsync's allocation exists from the
 * call (stream order makes it usable after the earlier work of the
 * stream, which needs nothing here); cudaFreeAsync frees it when the
 * stream reaches it, as an operation.
 *
 * This file is longer than the house size: the .mk lists one file for
 * device memory, pinned memory and pools, and splitting it would touch
 * the build.
 */
#include <config.h>

#include "cuda/cudart/memory.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda/cudart/managed.h"
#include "cuda/cudart/rt.h"
#include "sim/error.h"

/* rt_alloc.flags bit: a free of it is under way (cudaFree waiting for
 * the device, cudaFreeAsync queued); nobody else may free it. */
#define MEM_FREEING (1u << 31)

/* cudaHostAlloc and cudaHostRegister flags we accept. */
#define MEM_HOST_ALLOC_FLAGS                                                  \
    (cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined)
#define MEM_HOST_REGISTER_FLAGS                                               \
    (cudaHostRegisterPortable | cudaHostRegisterMapped |                      \
     cudaHostRegisterIoMemory | cudaHostRegisterReadOnly)

/* The per-thread variants (cuda_runtime_api.h declares them only for
 * programs built with CUDA_API_PER_THREAD_DEFAULT_STREAM). */
cudaError_t CUDARTAPI cudaMemset_ptds(void *devPtr, int value, size_t count);
cudaError_t CUDARTAPI cudaMemsetAsync_ptsz(void *devPtr, int value,
                                           size_t count, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void **devPtr, size_t size,
                                           cudaStream_t stream);
cudaError_t CUDARTAPI cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size,
                                                   cudaMemPool_t memPool,
                                                   cudaStream_t stream);
cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void *devPtr, cudaStream_t stream);

/* ---- state --------------------------------------------------------------- */

/*
 * A memory pool (cudaMemPool_t). Its bytes: used (live allocations) and
 * cached (freed, still reserved; reserved = used + cached). Both count in
 * the device's mem_used.
 */
struct CUmemPoolHandle_st {
    struct CUmemPoolHandle_st *next;    /* every live pool */
    int device;
    bool is_default;
    bool destroyed;             /* destroyed with allocations still out */
    struct cudaMemPoolProps props;
    enum cudaMemAccessFlags *access;    /* [n_dev]; owner: ReadWrite */
    int reuse[3];               /* cudaMemPoolReuse*, by attr - 1 */
    uint64_t release_threshold; /* bytes */
    uint64_t used, cached;      /* bytes */
    uint64_t used_high, reserved_high;
    unsigned n_allocs;
};

static struct CUmemPoolHandle_st *pools;

static void charge(enum rt_cost c)
{
    rt_charge(rt_costs[c]);
}

static uint64_t round_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

/* ---- the allocation table ------------------------------------------------ */

/* Index of the first allocation whose base is > p. */
static unsigned upper_bound(uintptr_t p)
{
    unsigned lo = 0, hi = rt.n_allocs;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (rt.allocs[mid]->base <= p) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

cudaError_t rt_alloc_insert(struct rt_alloc *a)
{
    if (rt.n_allocs == rt.cap_allocs) {
        unsigned cap = rt.cap_allocs ? rt.cap_allocs * 2 : 64;
        void *n = realloc(rt.allocs, cap * sizeof(*rt.allocs));
        if (!n) {
            return cudaErrorMemoryAllocation;
        }
        rt.allocs = n;
        rt.cap_allocs = cap;
    }
    unsigned i = upper_bound(a->base);
    memmove(&rt.allocs[i + 1], &rt.allocs[i],
            (rt.n_allocs - i) * sizeof(*rt.allocs));
    rt.allocs[i] = a;
    rt.n_allocs++;
    return cudaSuccess;
}

void rt_alloc_remove(struct rt_alloc *a)
{
    unsigned i = upper_bound(a->base);
    while (i > 0 && rt.allocs[i - 1] != a) {
        i--;
    }
    if (i == 0) {
        return;
    }
    i--;
    memmove(&rt.allocs[i], &rt.allocs[i + 1],
            (rt.n_allocs - i - 1) * sizeof(*rt.allocs));
    rt.n_allocs--;
}

/* The allocation holding byte p, or NULL. */
static struct rt_alloc *alloc_holding(uintptr_t p)
{
    unsigned i = upper_bound(p);
    if (i == 0) {
        return NULL;
    }
    struct rt_alloc *a = rt.allocs[i - 1];
    return p - a->base < a->size ? a : NULL;
}

struct rt_alloc *rt_alloc_at(const void *ptr)
{
    struct rt_alloc *a = alloc_holding((uintptr_t)ptr);
    return a && a->base == (uintptr_t)ptr ? a : NULL;
}

/* Whether any allocation overlaps [p, p + len). */
static bool alloc_overlaps(uintptr_t p, uint64_t len)
{
    unsigned i = upper_bound(p + len - 1);
    if (i == 0) {
        return false;
    }
    const struct rt_alloc *a = rt.allocs[i - 1];
    return a->base + a->size > p;
}

void rt_ptr_find(const void *ptr, struct rt_ptr *out)
{
    memset(out, 0, sizeof(*out));
    out->where = RT_WHERE_PAGEABLE;
    out->device = -1;
    struct rt_alloc *a = ptr ? alloc_holding((uintptr_t)ptr) : NULL;
    if (!a) {
        return;
    }
    static const enum rt_where where[] = {
        [RT_MEM_DEVICE] = RT_WHERE_DEVICE,
        [RT_MEM_HOST] = RT_WHERE_HOST,
        [RT_MEM_MANAGED] = RT_WHERE_MANAGED,
    };
    out->where = where[a->kind];
    out->alloc = a;
    out->device = a->kind == RT_MEM_DEVICE ? a->device : -1;
    out->off = (uintptr_t)ptr - a->base;
    out->avail = a->size - out->off;
}

int rt_ptr_window(const void *ptr)
{
    uintptr_t p = (uintptr_t)ptr;
    for (unsigned d = 0; d < rt.n_dev; d++) {
        uintptr_t base = rt.dev[d].va_base;
        if (p >= base && p - base < rt.dev[d].va_size) {
            return (int)d;
        }
    }
    return -1;
}

struct p2psim_loc rt_alloc_loc(const struct rt_alloc *a, uint64_t off)
{
    struct p2psim_loc l = { .kind = P2PSIM_HOST, .gpu = 0, .addr = 0 };
    if (a->kind == RT_MEM_DEVICE) {
        l.kind = P2PSIM_DEVICE;
        l.gpu = (unsigned)a->device;
        l.addr = a->base - rt.dev[a->device].va_base + off;
    } else {
        l.addr = a->bus + off;
    }
    return l;
}

/* ---- HBM space ----------------------------------------------------------- */

cudaError_t rt_window_reserve(int dev, uint64_t size, uint64_t *off)
{
    struct rt_device *d = &rt.dev[dev];
    uint64_t len = round_up(size ? size : 1, RT_MEM_ALIGN_BYTES);
    if (len > d->mem_size || d->mem_used > d->mem_size - len ||
        rt_machine->hbm_alloc((unsigned)dev, len, RT_MEM_ALIGN_BYTES,
                              off) < 0) {
        return cudaErrorMemoryAllocation;
    }
    if (*off > d->va_size || d->va_size - *off < len) {
        rt_machine->hbm_free((unsigned)dev, *off);  /* past a short window */
        return cudaErrorMemoryAllocation;
    }
    d->mem_used += len;
    return cudaSuccess;
}

void rt_window_release(int dev, uint64_t off, uint64_t size)
{
    if (rt_machine->hbm_free((unsigned)dev, off) == 0) {
        rt.dev[dev].mem_used -= round_up(size ? size : 1, RT_MEM_ALIGN_BYTES);
    }
}

/* ---- pools: bookkeeping -------------------------------------------------- */

static bool pool_valid(cudaMemPool_t pool)
{
    for (struct CUmemPoolHandle_st *p = pools; p; p = p->next) {
        if (p == pool && !p->destroyed) {
            return true;
        }
    }
    return false;
}

static cudaMemPool_t pool_new(int dev, const struct cudaMemPoolProps *props)
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
    p->next = pools;
    pools = p;
    return p;
}

static void pool_free(cudaMemPool_t pool)
{
    for (struct CUmemPoolHandle_st **pp = &pools; *pp; pp = &(*pp)->next) {
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
static void pool_trim(cudaMemPool_t pool, uint64_t keep)
{
    uint64_t max_cached = keep > pool->used ? keep - pool->used : 0;
    if (pool->cached > max_cached) {
        rt.dev[pool->device].mem_used -= pool->cached - max_cached;
        pool->cached = max_cached;
    }
}

static void pool_note_high(cudaMemPool_t pool)
{
    if (pool->used > pool->used_high) {
        pool->used_high = pool->used;
    }
    if (pool->used + pool->cached > pool->reserved_high) {
        pool->reserved_high = pool->used + pool->cached;
    }
}

/* ---- allocating and freeing device memory -------------------------------- */

/*
 * Device memory of size bytes on dev, from pool (NULL: plain cudaMalloc).
 * A pool's cached bytes are used first, so they do not count twice.
 */
static cudaError_t device_alloc(int dev, uint64_t size, cudaMemPool_t pool,
                                void **ptr)
{
    uint64_t len = round_up(size, RT_MEM_ALIGN_BYTES);
    uint64_t from_cache = 0;
    if (pool) {
        if (pool->props.maxSize && (len > pool->props.maxSize ||
                                    pool->used > pool->props.maxSize - len)) {
            return cudaErrorMemoryAllocation;
        }
        from_cache = pool->cached < len ? pool->cached : len;
        pool->cached -= from_cache;
        rt.dev[dev].mem_used -= from_cache;
    }
    uint64_t off;
    struct rt_alloc *a = calloc(1, sizeof(*a));
    cudaError_t e = a ? rt_window_reserve(dev, len, &off)
                      : cudaErrorMemoryAllocation;
    if (e == cudaSuccess) {
        a->kind = RT_MEM_DEVICE;
        a->base = rt.dev[dev].va_base + off;
        a->size = size;
        a->device = dev;
        a->pool = pool;
        e = rt_alloc_insert(a);
        if (e) {
            rt_window_release(dev, off, len);
        }
    }
    if (e) {
        free(a);
        if (pool) {
            pool->cached += from_cache;
            rt.dev[dev].mem_used += from_cache;
        }
        return e;
    }
    if (pool) {
        pool->used += len;
        pool->n_allocs++;
        pool_note_high(pool);
    }
    *ptr = (void *)a->base;
    return cudaSuccess;
}

/* Undo an allocation of any kind: out of the table, its memory released. */
static void alloc_release(struct rt_alloc *a)
{
    rt_alloc_remove(a);
    if (a->flags & RT_ALLOC_IPC) {
        /* Another process's memory (cudaDeviceReset): only unmapped. */
        rt_ipc_mem_released(a);
        free(a);
        return;
    }
    switch (a->kind) {
    case RT_MEM_DEVICE: {
        uint64_t off = a->base - rt.dev[a->device].va_base;
        rt_window_release(a->device, off, a->size);
        cudaMemPool_t pool = a->pool;
        if (pool) {
            uint64_t len = round_up(a->size, RT_MEM_ALIGN_BYTES);
            pool->used -= len;
            pool->cached += len;
            rt.dev[pool->device].mem_used += len;
            pool_trim(pool, pool->release_threshold);
            if (--pool->n_allocs == 0 && pool->destroyed) {
                pool_free(pool);
            }
        }
        break;
    }
    case RT_MEM_HOST:
        rt_machine->host_unregister(a->bus);
        if (!a->registered) {
            rt_machine->host_free((void *)a->base,
                                  round_up(a->size, (uint64_t)getpagesize()));
        }
        break;
    case RT_MEM_MANAGED:
        rt_managed_destroy(a);
        break;
    }
    free(a);
}

/* A device allocation (not pinned memory) that nobody is freeing. */
static struct rt_alloc *freeable_at(const void *ptr, enum rt_mem_kind kind)
{
    struct rt_alloc *a = rt_alloc_at(ptr);
    if (!a || (a->flags & (MEM_FREEING | RT_ALLOC_IPC))) {
        return NULL;            /* IPC: cudaIpcCloseMemHandle's (ipc.c) */
    }
    if ((kind == RT_MEM_HOST) != (a->kind == RT_MEM_HOST)) {
        return NULL;
    }
    if (a->kind == RT_MEM_HOST && a->registered) {
        return NULL;            /* cudaHostUnregister's */
    }
    return a;
}

static cudaError_t device_malloc(void **devPtr, size_t size)
{
    cudaError_t e = cudaSuccess;
    int dev = rt_current_device();
    if (!devPtr) {
        e = cudaErrorInvalidValue;
    } else if (size == 0) {
        /* CUDA: success, and a NULL pointer (cudaFree takes it back). */
        *devPtr = NULL;
    } else if ((e = rt_device_init(dev)) == cudaSuccess) {
        e = device_alloc(dev, size, NULL, devPtr);
    }
    return e;
}

cudaError_t CUDARTAPI cudaMalloc(void **devPtr, size_t size)
{
    RT_SERVE(RT_COST_MALLOC, device_malloc(devPtr, size));
}

/*
 * Free the allocation at ptr of the given family (device and managed, or
 * pinned) once the devices that may use it are idle.
 */
static cudaError_t free_synced(void *ptr, enum rt_mem_kind family)
{
    charge(RT_COST_MALLOC);
    if (!ptr) {
        return cudaSuccess;
    }
    struct rt_alloc *a = freeable_at(ptr, family);
    if (!a) {
        return cudaErrorInvalidValue;
    }
    a->flags |= MEM_FREEING;
    /* cudaFree waits for the device as CUDA's does; pinned and managed
     * memory may be in use by any device. */
    cudaError_t e = rt_device_sync(a->kind == RT_MEM_DEVICE ? a->device : -1);
    alloc_release(a);
    return e;
}

cudaError_t CUDARTAPI cudaFree(void *devPtr)
{
    RT_SERVE(RT_NO_COST, free_synced(devPtr, RT_MEM_DEVICE));
}

/* ---- pinned host memory -------------------------------------------------- */

/* Register [p, p + size) as pinned memory of the current device's socket
 * and enter it in the table. */
static cudaError_t host_add(void *p, uint64_t size, unsigned flags,
                            bool registered)
{
    int dev = rt_current_device();
    unsigned socket = p2psim_gpu_socket(rt.p, (unsigned)dev);
    struct rt_alloc *a = calloc(1, sizeof(*a));
    if (!a) {
        return cudaErrorMemoryAllocation;
    }
    a->kind = RT_MEM_HOST;
    a->base = (uintptr_t)p;
    a->size = size;
    a->device = dev;
    a->flags = flags;
    a->socket = socket;
    a->registered = registered;
    int rc = rt_machine->host_register(p, size, socket, &a->bus);
    if (rc < 0) {
        free(a);
        /* ENOTSUP: a server cannot share these pages (remote.c). */
        return rc == -SIM_ENOTSUP ? cudaErrorNotSupported
                                  : cudaErrorMemoryAllocation;
    }
    cudaError_t e = rt_alloc_insert(a);
    if (e) {
        rt_machine->host_unregister(a->bus);
        free(a);
    }
    return e;
}

static cudaError_t host_alloc(void **ptr, size_t size, unsigned flags)
{
    charge(RT_COST_MALLOC);
    if (!ptr || (flags & ~MEM_HOST_ALLOC_FLAGS)) {
        return cudaErrorInvalidValue;
    }
    if (size == 0) {
        *ptr = NULL;            /* as cudaMalloc */
        return cudaSuccess;
    }
    uint64_t len = round_up(size, (uint64_t)getpagesize());
    void *p = rt_machine->host_alloc(len);
    if (!p) {
        return cudaErrorMemoryAllocation;
    }
    cudaError_t e = host_add(p, size, flags, false);
    if (e) {
        rt_machine->host_free(p, len);
        return e;
    }
    *ptr = p;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size)
{
    RT_SERVE(RT_NO_COST, host_alloc(ptr, size, cudaHostAllocDefault));
}

cudaError_t CUDARTAPI cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    RT_SERVE(RT_NO_COST, host_alloc(ptr, size, flags));
}

cudaError_t CUDARTAPI cudaFreeHost(void *ptr)
{
    RT_SERVE(RT_NO_COST, free_synced(ptr, RT_MEM_HOST));
}

/* Whether [p, p + len) meets a device's window. */
static bool in_any_window(uintptr_t p, uint64_t len)
{
    for (unsigned d = 0; d < rt.n_dev; d++) {
        uintptr_t b = rt.dev[d].va_base;
        if (p < b + rt.dev[d].va_size && b < p + len) {
            return true;
        }
    }
    return false;
}

static cudaError_t host_register(void *ptr, size_t size, unsigned int flags)
{
    cudaError_t e = cudaSuccess;
    uintptr_t p = (uintptr_t)ptr;
    if (!ptr || size == 0 || (flags & ~MEM_HOST_REGISTER_FLAGS) ||
        p + size < p || in_any_window(p, size)) {
        e = cudaErrorInvalidValue;
    } else if (alloc_overlaps(p, size)) {
        e = cudaErrorHostMemoryAlreadyRegistered;
    } else {
        e = host_add(ptr, size, flags, true);
    }
    return e;
}

cudaError_t CUDARTAPI cudaHostRegister(void *ptr, size_t size,
                                       unsigned int flags)
{
    RT_SERVE(RT_COST_MALLOC, host_register(ptr, size, flags));
}

static cudaError_t host_unregister(void *ptr)
{
    cudaError_t e = cudaSuccess;
    struct rt_alloc *a = ptr ? rt_alloc_at(ptr) : NULL;
    if (!ptr) {
        e = cudaErrorInvalidValue;
    } else if (!a || a->kind != RT_MEM_HOST || !a->registered ||
               (a->flags & MEM_FREEING)) {
        e = cudaErrorHostMemoryNotRegistered;
    } else {
        /* Copies in flight may still move its bytes. */
        a->flags |= MEM_FREEING;
        e = rt_device_sync(-1);
        alloc_release(a);
    }
    return e;
}

cudaError_t CUDARTAPI cudaHostUnregister(void *ptr)
{
    RT_SERVE(RT_COST_MALLOC, host_unregister(ptr));
}

static cudaError_t host_device_pointer(void **devPtr, void *hostPtr,
                                       unsigned int flags)
{
    cudaError_t e = cudaSuccess;
    struct rt_ptr where;
    rt_ptr_find(hostPtr, &where);
    if (!devPtr || flags != 0 || where.where != RT_WHERE_HOST) {
        e = cudaErrorInvalidValue;
    } else {
        *devPtr = hostPtr;      /* unified addressing: the same address */
    }
    return e;
}

cudaError_t CUDARTAPI cudaHostGetDevicePointer(void **devPtr, void *hostPtr,
                                               unsigned int flags)
{
    SERVE(host_device_pointer(devPtr, hostPtr, flags));
}

static cudaError_t host_get_flags(unsigned int *flags, void *hostPtr)
{
    cudaError_t e = cudaSuccess;
    struct rt_ptr where;
    rt_ptr_find(hostPtr, &where);
    if (!flags || where.where != RT_WHERE_HOST) {
        e = cudaErrorInvalidValue;
    } else {
        /*
         * Model: with unified addressing all pinned memory is mapped and
         * portable, and the flags say so (as the driver's
         * cuMemHostGetFlags reports DEVICEMAP for cuMemAllocHost memory);
         * not checked on hardware.
         */
        *flags = (where.alloc->flags & ~MEM_FREEING) | cudaHostAllocMapped |
                 cudaHostAllocPortable;
    }
    return e;
}

cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int *flags, void *hostPtr)
{
    SERVE(host_get_flags(flags, hostPtr));
}

/* ---- pointer attributes -------------------------------------------------- */

static cudaError_t pointer_attributes(struct cudaPointerAttributes *attributes,
                                      const void *ptr)
{
    if (!attributes) {
        return cudaErrorInvalidValue;
    }
    struct rt_ptr w;
    rt_ptr_find(ptr, &w);
    memset(attributes, 0, sizeof(*attributes));
    /*
     * Ordinary host memory (and NULL, and unallocated addresses of a
     * window, which CUDA does not know either): success, type
     * Unregistered (since CUDA 11), no device (cudaInvalidDeviceId).
     */
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->device = cudaInvalidDeviceId;
    switch (w.where) {
    case RT_WHERE_DEVICE:
        attributes->type = cudaMemoryTypeDevice;
        attributes->device = w.device;
        attributes->devicePointer = (void *)ptr;
        break;
    case RT_WHERE_HOST:
        attributes->type = cudaMemoryTypeHost;
        attributes->device = w.alloc->device;
        attributes->devicePointer = (void *)ptr;
        attributes->hostPointer = (void *)ptr;
        break;
    case RT_WHERE_MANAGED:
        attributes->type = cudaMemoryTypeManaged;
        attributes->device = w.alloc->device;
        attributes->devicePointer = (void *)ptr;
        attributes->hostPointer = (void *)ptr;
        break;
    case RT_WHERE_PAGEABLE:
        break;
    }
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaPointerGetAttributes(
    struct cudaPointerAttributes *attributes, const void *ptr)
{
    SERVE(pointer_attributes(attributes, ptr));
}

/* ---- memset -------------------------------------------------------------- */

struct memset_op {
    struct rt_op op;            /* first */
    struct rt_alloc *a;
    uint64_t off, len;
    uint8_t value;
    int dev;                    /* the stream's device */
};

static void memset_filled(void *arg, const struct p2psim_copy_result *r)
{
    struct memset_op *m = arg;
    rt_op_done(&m->op, r->status ? cudaErrorUnknown : cudaSuccess);
}

/* The host write of a pinned or managed target, at the op's time. */
static void memset_host_now(void *arg)
{
    struct memset_op *m = arg;
    memset((void *)(m->a->base + m->off), m->value, m->len);
    rt_op_done(&m->op, cudaSuccess);
}

static void memset_managed_filled(void *arg,
                                  const struct p2psim_copy_result *r)
{
    struct memset_op *m = arg;
    if (r->status) {
        rt_op_done(&m->op, cudaErrorUnknown);
        return;
    }
    memset_host_now(m);
}

/*
 * The range is where the memset runs (or mapped there): pages on the
 * device are set in its HBM copy (the time of a device fill), then in the
 * host mapping, which holds the bytes.
 */
static void memset_faulted(void *arg, int status)
{
    struct memset_op *m = arg;
    if (status) {
        rt_op_done(&m->op, status);
        return;
    }
    struct rt_managed_span span;
    rt_managed_span_begin(m->a, m->off, m->len, false, &span);
    if (span.loc.kind != P2PSIM_DEVICE ||
        rt_machine->fill(span.loc.gpu, span.loc.addr, m->value, m->len,
                         rt_machine->now(), memset_managed_filled, m) < 0) {
        memset_host_now(m);
    }
}

static void memset_start(struct rt_op *op, sim_time_t at)
{
    struct memset_op *m = (struct memset_op *)op;
    struct rt_alloc *a = m->a;
    int rc = 0;
    switch (a->kind) {
    case RT_MEM_DEVICE: {
        struct p2psim_loc l = rt_alloc_loc(a, m->off);
        rc = rt_machine->fill(l.gpu, l.addr, m->value, m->len, at,
                              memset_filled, m);
        break;
    }
    case RT_MEM_HOST:
        rc = rt_machine->timer(at, memset_host_now, m);
        break;
    case RT_MEM_MANAGED: {
        /* A memset kernel on the stream's device touches the range. */
        cudaError_t e = rt_managed_touch(a, m->off, m->len, m->dev, at,
                                         memset_faulted, m);
        if (e) {
            rt_op_done(op, e);
        }
        return;
    }
    }
    if (rc < 0) {
        rt_op_done(op, rc == -SIM_ENOMEM ? cudaErrorMemoryAllocation
                                         : cudaErrorUnknown);
    }
}

static bool fence_done(void *arg)
{
    return ((const struct rt_fence *)arg)->done;
}

/*
 * Queue a memset of count bytes at ptr on stream h; sync: the synchronous
 * form (waits when the target is pinned or managed memory).
 */
static cudaError_t memset_queue(void *ptr, int value, size_t count,
                                cudaStream_t h, bool sync)
{
    /* [estimate] CUDA runs a memset as a kernel: a launch's host cost. */
    charge(RT_COST_LAUNCH);
    if (count == 0) {
        return cudaSuccess;
    }
    struct rt_ptr w;
    rt_ptr_find(ptr, &w);
    if (w.where == RT_WHERE_PAGEABLE || count > w.avail) {
        return cudaErrorInvalidValue;
    }
    struct rt_stream *s = rt_stream_resolve(h, -1);
    if (!s) {
        return cudaErrorInvalidResourceHandle;
    }
    struct memset_op *m = (struct memset_op *)rt_op_alloc(
        sizeof(*m), "memset", memset_start);
    if (!m) {
        return cudaErrorMemoryAllocation;
    }
    m->a = w.alloc;
    m->off = w.off;
    m->len = count;
    m->value = (uint8_t)value;
    m->dev = rt_stream_device(s);
    bool wait = sync && w.where != RT_WHERE_DEVICE;
    struct rt_fence *f = wait ? rt_fence_ref(m->op.fence) : NULL;
    cudaError_t e = rt_enqueue(s, &m->op);
    if (f) {
        if (e == cudaSuccess) {
            e = rt_wait(fence_done, f, SIM_TIME_MAX);
            if (e == cudaSuccess) {
                e = (cudaError_t)f->status;
            }
        }
        rt_fence_put(f);
    }
    return e;
}

static cudaError_t memset_call(void *ptr, int value, size_t count,
                               cudaStream_t h, bool sync)
{
    RT_SERVE(RT_NO_COST, memset_queue(ptr, value, count, h, sync));
}

cudaError_t CUDARTAPI cudaMemset(void *devPtr, int value, size_t count)
{
    return memset_call(devPtr, value, count, NULL, true);
}

cudaError_t CUDARTAPI cudaMemset_ptds(void *devPtr, int value, size_t count)
{
    return memset_call(devPtr, value, count, cudaStreamPerThread, true);
}

cudaError_t CUDARTAPI cudaMemsetAsync(void *devPtr, int value, size_t count,
                                      cudaStream_t stream)
{
    return memset_call(devPtr, value, count, stream, false);
}

cudaError_t CUDARTAPI cudaMemsetAsync_ptsz(void *devPtr, int value,
                                           size_t count, cudaStream_t stream)
{
    return memset_call(devPtr, value, count,
                       stream ? stream : cudaStreamPerThread, false);
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
    if (accessor < 0 || (unsigned)accessor >= rt.n_dev || !a->pool) {
        return false;
    }
    return a->pool->access[accessor] != cudaMemAccessFlagsProtNone;
}

static cudaError_t get_default_pool(cudaMemPool_t *memPool, int device)
{
    cudaError_t e = cudaSuccess;
    if (!memPool) {
        e = cudaErrorInvalidValue;
    } else if (!rt_device_valid(device)) {
        e = cudaErrorInvalidDevice;
    } else {
        *memPool = rt.dev[device].default_pool;
    }
    return e;
}

cudaError_t CUDARTAPI cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool,
                                                  int device)
{
    SERVE(get_default_pool(memPool, device));
}

static cudaError_t get_current_pool(cudaMemPool_t *memPool, int device)
{
    cudaError_t e = cudaSuccess;
    if (!memPool) {
        e = cudaErrorInvalidValue;
    } else if (!rt_device_valid(device)) {
        e = cudaErrorInvalidDevice;
    } else {
        *memPool = rt.dev[device].current_pool;
    }
    return e;
}

cudaError_t CUDARTAPI cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    SERVE(get_current_pool(memPool, device));
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
    cudaMemPool_t p = pool_new(props->location.id, props);
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
        pool_trim(memPool, 0);
        if (memPool->n_allocs) {
            memPool->destroyed = true;
        } else {
            pool_free(memPool);
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
        pool_trim(memPool, minBytesToKeep);
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
        pool_trim(p, p->release_threshold);
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
 * Sharing pools and their allocations with other processes is not served
 * yet (IPC serves cudaIpc* handles); the arguments are still checked as
 * CUDA checks them, so a program's mistakes show as CUDA's errors.
 */
static cudaError_t pool_share_check(cudaMemPool_t pool, const void *a,
                                    unsigned flags, bool need_types)
{
    if (!a || flags != 0) {
        return cudaErrorInvalidValue;
    }
    if (pool) {
        cudaError_t e = rt_enter();
        if (e) {
            return e;
        }
        bool ok = pool_valid(pool) &&
                  (!need_types || pool->props.handleTypes != 0);
        rt_leave();
        if (!ok) {
            return cudaErrorInvalidValue;
        }
    }
    return cudaErrorNotSupported;
}

cudaError_t CUDARTAPI cudaMemPoolExportToShareableHandle(
    void *shareableHandle, cudaMemPool_t memPool,
    enum cudaMemAllocationHandleType handleType, unsigned int flags)
{
    (void)handleType;
    if (!memPool) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    return cudart_error_return(
        pool_share_check(memPool, shareableHandle, flags, true));
}

cudaError_t CUDARTAPI cudaMemPoolImportFromShareableHandle(
    cudaMemPool_t *memPool, void *shareableHandle,
    enum cudaMemAllocationHandleType handleType, unsigned int flags)
{
    (void)handleType;
    if (!memPool) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    return cudart_error_return(
        pool_share_check(NULL, shareableHandle, flags, false));
}

static cudaError_t pool_export_pointer(const void *ptr)
{
    struct rt_ptr p;
    rt_ptr_find(ptr, &p);
    bool from_pool = p.where == RT_WHERE_DEVICE && p.alloc->pool && p.off == 0;
    return from_pool ? cudaErrorNotSupported : cudaErrorInvalidValue;
}

cudaError_t CUDARTAPI cudaMemPoolExportPointer(
    struct cudaMemPoolPtrExportData *exportData, void *ptr)
{
    if (!exportData || !ptr) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    RT_SERVE(RT_NO_COST, pool_export_pointer(ptr));
}

cudaError_t CUDARTAPI cudaMemPoolImportPointer(
    void **ptr, cudaMemPool_t memPool,
    struct cudaMemPoolPtrExportData *exportData)
{
    if (!ptr || !memPool || !exportData) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    return cudart_error_return(cudaErrorNotSupported);
}

/* ---- stream-ordered allocation ------------------------------------------- */

/* pool NULL: the current pool of the stream's device. */
static cudaError_t pool_malloc_async(void **ptr, size_t size,
                                     cudaMemPool_t pool, cudaStream_t h)
{
    cudaError_t e = cudaSuccess;
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
        if (size == 0) {
            *ptr = NULL;        /* as cudaMalloc */
        } else if ((e = rt_device_init(pool->device)) == cudaSuccess) {
            e = device_alloc(pool->device, size, pool, ptr);
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
    alloc_release(f->a);
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
    struct rt_alloc *a = ptr ? freeable_at(ptr, RT_MEM_DEVICE) : NULL;
    struct rt_stream *s = rt_stream_resolve(h, -1);
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

/* ---- start-up and teardown ----------------------------------------------- */

/* Whether a belongs to dev's context. */
static bool alloc_of_device(const struct rt_alloc *a, int dev)
{
    /* Another process's memory opened here is ipc.c's to release. */
    return a->device == dev && !(a->flags & RT_ALLOC_IPC);
}

void rt_memory_reset_device(int dev)
{
    for (unsigned i = rt.n_allocs; i-- > 0;) {
        if (i < rt.n_allocs && alloc_of_device(rt.allocs[i], dev)) {
            alloc_release(rt.allocs[i]);
        }
    }
    struct rt_device *d = &rt.dev[dev];
    for (struct CUmemPoolHandle_st **pp = &pools; *pp;) {
        struct CUmemPoolHandle_st *p = *pp;
        if (p->device != dev || p->is_default) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        d->mem_used -= p->cached;
        free(p->access);
        free(p);
    }
    cudaMemPool_t def = d->default_pool;
    pool_trim(def, 0);
    def->release_threshold = 0;
    def->used_high = def->reserved_high = 0;
    for (unsigned i = 0; i < 3; i++) {
        def->reuse[i] = 1;
    }
    for (unsigned o = 0; o < rt.n_dev; o++) {
        def->access[o] = (int)o == dev ? cudaMemAccessFlagsProtReadWrite
                                       : cudaMemAccessFlagsProtNone;
    }
    d->current_pool = def;
}

/* Smallest window worth running with, bytes. */
#define MEM_WINDOW_MIN_BYTES (UINT64_C(256) << 20)

static void windows_unmap(void)
{
    for (unsigned d = 0; d < rt.n_dev; d++) {
        if (rt.dev[d].va_size) {
            munmap((void *)rt.dev[d].va_base, rt.dev[d].va_size);
        }
        rt.dev[d].va_base = 0;
        rt.dev[d].va_size = 0;
    }
}

/*
 * Reserve every device's window, each min(its memory, cap) bytes. Returns
 * false (nothing reserved) if the address space cannot hold them.
 */
static bool windows_map(uint64_t cap)
{
    for (unsigned d = 0; d < rt.n_dev; d++) {
        struct rt_device *dev = &rt.dev[d];
        uint64_t size = round_up(dev->mem_size ? dev->mem_size : 1,
                                 UINT64_C(2) << 20);
        size = size < cap ? size : cap;
        void *w = mmap(NULL, size, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (w == MAP_FAILED) {
            windows_unmap();
            return false;
        }
        dev->va_base = (uintptr_t)w;
        dev->va_size = size;
    }
    return true;
}

cudaError_t rt_memory_init(void)
{
    uint64_t largest = 0;
    for (unsigned d = 0; d < rt.n_dev; d++) {
        rt.dev[d].mem_size = p2psim_hbm_size(rt.p, d);
        largest = rt.dev[d].mem_size > largest ? rt.dev[d].mem_size : largest;
    }
    /*
     * Model: where the address space cannot hold every window whole
     * (valgrind gives a process 128 GiB; one H200 has 141 GB), the
     * windows shrink alike, and so does what cudaMalloc can hand out;
     * cudaMemGetInfo still reports the GPU's memory.
     */
    uint64_t cap = UINT64_MAX;
    while (!windows_map(cap)) {
        cap = (cap < largest ? cap : largest) / 2;
        if (cap < MEM_WINDOW_MIN_BYTES) {
            return cudaErrorMemoryAllocation;
        }
    }
    if (cap != UINT64_MAX) {
        fprintf(stderr, "p2psim: the address space holds only %" PRIu64
                " MiB of each GPU's memory; allocations stop there\n",
                cap >> 20);
    }
    for (unsigned d = 0; d < rt.n_dev; d++) {
        struct cudaMemPoolProps props = {
            .allocType = cudaMemAllocationTypePinned,
            .location = { cudaMemLocationTypeDevice, (int)d },
        };
        cudaMemPool_t pool = pool_new((int)d, &props);
        if (!pool) {
            rt_memory_fini();
            return cudaErrorMemoryAllocation;
        }
        pool->is_default = true;
        rt.dev[d].default_pool = rt.dev[d].current_pool = pool;
    }
    return cudaSuccess;
}

void rt_memory_fini(void)
{
    /* Last first: removal from the end of the table moves nothing.
     * Another process's memory opened here (RT_ALLOC_IPC) is ipc.c's. */
    for (unsigned i = rt.n_allocs; i-- > 0;) {
        struct rt_alloc *a = rt.allocs[i];
        if (!(a->flags & RT_ALLOC_IPC)) {
            a->pool = NULL;     /* the pools go below */
            alloc_release(a);
        }
    }
    if (rt.n_allocs == 0) {
        free(rt.allocs);
        rt.allocs = NULL;
        rt.cap_allocs = 0;
    }
    while (pools) {
        struct CUmemPoolHandle_st *p = pools;
        pools = p->next;
        free(p->access);
        free(p);
    }
    windows_unmap();
    for (unsigned d = 0; d < rt.n_dev; d++) {
        struct rt_device *dev = &rt.dev[d];
        dev->mem_used = 0;
        dev->default_pool = dev->current_pool = NULL;
    }
}
