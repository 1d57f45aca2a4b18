/*
 * cuda/cudart/memory.c - device memory (cudaMalloc, cudaFree), the
 * allocation table, pointer attributes, and the memory of the shim's
 * start-up and teardown. Pinned host memory is memory_host.c's, memset
 * memset.c's, pools and stream-ordered allocation memory_pool.c's
 * (memory_int.h is what they share).
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
 * The allocation table rt.allocs holds every allocation the program can
 * name (device, pinned, managed), sorted by base: lookups are a binary
 * search (O(log n)), insertions and removals O(n) moves.
 */
#include <config.h>

#include "cuda/cudart/memory_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda/cudart/managed.h"

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
bool mem_alloc_overlaps(uintptr_t p, uint64_t len)
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
        l.addr = (a->flags & RT_ALLOC_VMM
                      ? a->bus : a->base - rt.dev[a->device].va_base) + off;
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

/* ---- allocating and freeing device memory -------------------------------- */

/*
 * Device memory of size bytes on dev, from pool (NULL: plain cudaMalloc).
 * A pool's cached bytes are used first, so they do not count twice.
 */
cudaError_t mem_device_alloc(int dev, uint64_t size, cudaMemPool_t pool,
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
        mem_pool_note_high(pool);
    }
    *ptr = (void *)a->base;
    return cudaSuccess;
}

/* Undo an allocation of any kind: out of the table, its memory released. */
void mem_alloc_release(struct rt_alloc *a)
{
    rt_alloc_remove(a);
    if (a->flags & RT_ALLOC_VMM) {
        free(a);                /* the driver's physical memory stays */
        return;
    }
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
            mem_pool_trim(pool, pool->release_threshold);
            if (--pool->n_allocs == 0 && pool->destroyed) {
                mem_pool_free(pool);
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
struct rt_alloc *mem_freeable_at(const void *ptr, enum rt_mem_kind kind)
{
    struct rt_alloc *a = rt_alloc_at(ptr);
    if (!a || (a->flags & (MEM_FREEING | RT_ALLOC_IPC | RT_ALLOC_VMM |
                           RT_ALLOC_HEAP))) {
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

/*
 * The device heap of kernels' malloc and free on dev: made at the first
 * launch that needs it, of cudaLimitMallocHeapSize bytes, an allocation
 * like any other (the grid's resolver reaches it); a size set after that
 * takes effect at the next such launch, on a new, empty heap (the old one
 * stays until the device is reset, as blocks in it may still be in use).
 */
cudaError_t rt_device_heap(int dev, uint64_t *base, uint64_t *bytes)
{
    struct rt_device *d = &rt.dev[dev];
    uint64_t want = d->limits[cudaLimitMallocHeapSize];
    if (!d->heap || d->heap_bytes != want) {
        void *p;
        cudaError_t e = mem_device_alloc(dev, want ? want : 1, NULL, &p);
        if (e) {
            return e;
        }
        d->heap = rt_alloc_at(p);
        d->heap->flags |= RT_ALLOC_HEAP;
        d->heap_bytes = want;
    }
    *base = d->heap->base;
    *bytes = d->heap_bytes;
    return cudaSuccess;
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
        e = mem_device_alloc(dev, size, NULL, devPtr);
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
cudaError_t mem_free_synced(void *ptr, enum rt_mem_kind family)
{
    rt_charge_cost(RT_COST_MALLOC);
    if (!ptr) {
        return cudaSuccess;
    }
    struct rt_alloc *a = mem_freeable_at(ptr, family);
    if (!a) {
        return cudaErrorInvalidValue;
    }
    a->flags |= MEM_FREEING;
    /* cudaFree waits for the device as CUDA's does; pinned and managed
     * memory may be in use by any device. */
    cudaError_t e = rt_device_sync(a->kind == RT_MEM_DEVICE ? a->device : -1);
    mem_alloc_release(a);
    return e;
}

cudaError_t CUDARTAPI cudaFree(void *devPtr)
{
    RT_SERVE(RT_NO_COST, mem_free_synced(devPtr, RT_MEM_DEVICE));
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
            mem_alloc_release(rt.allocs[i]);
        }
    }
    struct rt_device *d = &rt.dev[dev];
    d->heap = NULL;             /* released with the rest */
    for (struct CUmemPoolHandle_st **pp = &mem_pools; *pp;) {
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
    mem_pool_trim(def, 0);
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
        cudaMemPool_t pool = mem_pool_new((int)d, &props);
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
            mem_alloc_release(a);
        }
    }
    if (rt.n_allocs == 0) {
        free(rt.allocs);
        rt.allocs = NULL;
        rt.cap_allocs = 0;
    }
    while (mem_pools) {
        struct CUmemPoolHandle_st *p = mem_pools;
        mem_pools = p->next;
        free(p->access);
        free(p);
    }
    windows_unmap();
    for (unsigned d = 0; d < rt.n_dev; d++) {
        struct rt_device *dev = &rt.dev[d];
        dev->mem_used = 0;
        dev->default_pool = dev->current_pool = NULL;
        dev->heap = NULL;
    }
}
