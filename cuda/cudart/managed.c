/*
 * cuda/cudart/managed.c - managed memory: cudaMallocManaged, residency per
 * 2 MiB page, migration by prefetch (cudaMemPrefetchAsync) and by fault
 * (rt_managed_touch), advice (cudaMemAdvise), and where copy engines find
 * managed bytes (managed.h).
 *
 * What is modelled. The bytes live in host memory of the program
 * (rt_machine->host_alloc), registered with the machine in the DRAM of
 * the current device's socket:
 * the program dereferences it at any time and copies move its bytes.
 * Each 2 MiB page (RT_MANAGED_PAGE_BYTES) has one home, the host or a
 * device; it starts on the host. A device that receives pages keeps them
 * in its own copy of the whole range, reserved in its UVA window (and
 * counted as used device memory, as resident managed memory is on real
 * CUDA) at the first migration there and kept until the allocation is
 * freed. A migration is real traffic (the migration section says how).
 *
 * A kernel reaches pages resident on its device in that device's copy
 * (local HBM); its loads, stores and atomics of other pages fault them
 * in (the faults section), except where advice maps them.
 *
 * Not modelled: host accesses do not fault pages back (the program reads
 * its mapping directly, for free); grids run by a p2psim server do not
 * fault (they reach such pages at the host mapping); a
 * page resident on another device is not mapped there for AccessedBy
 * (the access goes to the host mapping); ReadMostly is recorded but makes no
 * read-only duplicates (a read-mostly page moves like any other);
 * oversubscription (no eviction: a device without room for its copy
 * fails the migration with cudaErrorMemoryAllocation); advice and
 * residency at granularities finer than 2 MiB; cudaMemAttachHost's
 * visibility rules (the flag is kept, access is not restricted).
 */
#include <config.h>

#include "cuda/cudart/managed.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/cudart/memory.h"
#include "cuda/cudart/rt.h"

#define MANAGED_NO_COPY UINT64_MAX  /* a device has no copy of the range */
#define MANAGED_HOST (-1)           /* a page's home: the host mapping */
#define MANAGED_NONE (-2)           /* no preferred location */
#define MANAGED_HOST_BIT 63u        /* AccessedBy: the host's bit */

cudaError_t CUDARTAPI cudaMemPrefetchAsync_ptsz(const void *devPtr,
                                                size_t count,
                                                struct cudaMemLocation location,
                                                unsigned int flags,
                                                cudaStream_t stream);

struct fault_batch;

/* One 2 MiB page's state. */
struct mpage {
    int16_t home;               /* MANAGED_HOST or a device */
    int16_t preferred;          /* MANAGED_NONE, MANAGED_HOST or a device */
    int16_t last_prefetch;      /* MANAGED_NONE, MANAGED_HOST or a device */
    bool read_mostly;
    bool no_fault;              /* a kernel's fault failed: mapped access */
    struct fault_batch *batch;  /* a kernel's fault moving it, or NULL */
    uint64_t accessed_by;       /* bit d: device d; MANAGED_HOST_BIT: host */
};

/* What managed.c keeps for an allocation (rt_alloc.priv). */
struct managed {
    uint64_t map_len;           /* bytes mapped (whole host pages) */
    uint64_t n_pages;
    struct mpage *page;         /* [n_pages] */
    uint64_t *copy_off;         /* [rt.n_dev]: HBM offset of the device's
                                   copy, or MANAGED_NO_COPY */
};

static struct managed *mg(const struct rt_alloc *a)
{
    return a->priv;
}

static uint64_t page_of(uint64_t off)
{
    return off / RT_MANAGED_PAGE_BYTES;
}

/* ---- allocation ---------------------------------------------------------- */

static cudaError_t managed_alloc(void **ptr, size_t size, unsigned flags)
{
    if (!ptr || size == 0 ||
        (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)) {
        return cudaErrorInvalidValue;
    }
    /* Managed memory is mapped in this process: nothing larger than the
     * 47-bit user address space of x86-64 (128 TiB) can ever be. */
    if ((uint64_t)size > (UINT64_C(1) << 47)) {
        return cudaErrorMemoryAllocation;
    }
    int dev = rt_current_device();
    struct rt_alloc *a = calloc(1, sizeof(*a));
    struct managed *m = calloc(1, sizeof(*m));
    if (!a || !m) {
        goto fail_state;
    }
    m->map_len = (size + getpagesize() - 1) / getpagesize() * getpagesize();
    m->n_pages = (size + RT_MANAGED_PAGE_BYTES - 1) / RT_MANAGED_PAGE_BYTES;
    m->page = calloc(m->n_pages, sizeof(*m->page));
    m->copy_off = calloc(rt.n_dev ? rt.n_dev : 1, sizeof(*m->copy_off));
    if (!m->page || !m->copy_off) {
        goto fail_state;
    }
    for (uint64_t i = 0; i < m->n_pages; i++) {
        m->page[i].home = MANAGED_HOST;
        m->page[i].preferred = MANAGED_NONE;
        m->page[i].last_prefetch = MANAGED_NONE;
    }
    for (unsigned d = 0; d < rt.n_dev; d++) {
        m->copy_off[d] = MANAGED_NO_COPY;
    }
    void *p = rt_machine->host_alloc(m->map_len);
    if (!p) {
        goto fail_state;
    }
    a->kind = RT_MEM_MANAGED;
    a->base = (uintptr_t)p;
    a->size = size;
    a->device = dev;
    a->flags = flags;
    a->socket = p2psim_gpu_socket(rt.p, (unsigned)dev);
    a->priv = m;
    if (rt_machine->host_register(p, size, a->socket, &a->bus) < 0) {
        goto fail_map;
    }
    if (rt_alloc_insert(a) != cudaSuccess) {
        goto fail_register;
    }
    *ptr = p;
    return cudaSuccess;

fail_register:
    rt_machine->host_unregister(a->bus);
fail_map:
    rt_machine->host_free(p, m->map_len);
fail_state:
    if (m) {
        free(m->page);
        free(m->copy_off);
    }
    free(m);
    free(a);
    return cudaErrorMemoryAllocation;
}

cudaError_t CUDARTAPI cudaMallocManaged(void **devPtr, size_t size,
                                        unsigned int flags)
{
    RT_SERVE(RT_COST_MALLOC, managed_alloc(devPtr, size, flags));
}

void rt_managed_destroy(struct rt_alloc *a)
{
    struct managed *m = mg(a);
    rt_machine->host_unregister(a->bus);
    rt_machine->host_free((void *)a->base, m->map_len);
    for (unsigned d = 0; d < rt.n_dev; d++) {
        if (m->copy_off[d] != MANAGED_NO_COPY) {
            rt_window_release((int)d, m->copy_off[d], a->size);
        }
    }
    free(m->page);
    free(m->copy_off);
    free(m);
    a->priv = NULL;
}

int rt_managed_home(const struct rt_alloc *a, uint64_t off)
{
    return mg(a)->page[page_of(off)].home;
}

/* Device dev's copy of the range, reserved on first use. */
static cudaError_t device_copy(struct rt_alloc *a, int dev)
{
    struct managed *m = mg(a);
    if (m->copy_off[dev] != MANAGED_NO_COPY) {
        return cudaSuccess;
    }
    return rt_window_reserve(dev, a->size, &m->copy_off[dev]);
}

/* ---- migration ----------------------------------------------------------- */

/*
 * A migration is real traffic: one p2psim_copy per run of pages
 * with the same home:
 *
 *   host -> device d    d pulls from the host mapping into its copy
 *   device s -> host    s pushes its copy into the host mapping
 *   device s -> d       s's copy to d's, P2P when the pair supports it
 *                       (the UVM driver needs no cudaDeviceEnablePeerAccess)
 *                       else staged through host memory
 *
 * and the home changes when the copy lands. A fault (a kernel or memset
 * touching pages that live elsewhere) adds the fault-handling latency
 * RT_MANAGED_FAULT_PS once per touch (one fault batch).
 */

/* A migration of pages [first, last] of a to dst. */
struct migration {
    struct rt_alloc *a;
    uint64_t first, last;
    int dst;
    bool fault;                 /* a fault: pay the latency if anything moves */
    unsigned pending;           /* copies in flight */
    int status;
    rt_managed_done_fn *done;
    void *arg;
};

/* One copy of a migration: pages [first, first + n). */
struct migration_run {
    struct migration *mig;
    uint64_t first, n;
};

/* Whether page i must move for a migration to dst. */
static bool page_moves(const struct migration *mig, uint64_t i)
{
    const struct mpage *pg = &mg(mig->a)->page[i];
    if (pg->home == mig->dst) {
        return false;
    }
    /* AccessedBy: dst has it mapped wherever it is (no fault). */
    if (mig->fault && mig->dst != MANAGED_HOST &&
        (pg->accessed_by >> mig->dst & 1)) {
        return false;
    }
    /*
     * A fault from dst on a page that sits at its preferred location
     * elsewhere is resolved by mapping it, not by moving it (CUDA's
     * PreferredLocation; with AccessedBy the mapping exists beforehand).
     */
    return !(mig->fault && pg->preferred != MANAGED_NONE &&
             pg->home == pg->preferred);
}

static void migration_finish(struct migration *mig)
{
    if (mig->done) {
        mig->done(mig->arg, mig->status);
    }
    free(mig);
}

static void run_landed(void *arg, const struct p2psim_copy_result *r)
{
    struct migration_run *run = arg;
    struct migration *mig = run->mig;
    if (r->status) {
        mig->status = cudaErrorUnknown;
    } else {
        for (uint64_t i = 0; i < run->n; i++) {
            mg(mig->a)->page[run->first + i].home = (int16_t)mig->dst;
        }
    }
    free(run);
    if (--mig->pending == 0) {
        migration_finish(mig);
    }
}

/* Where the bytes of home h (host or a device copy) at offset off are. */
static struct p2psim_loc home_loc(const struct rt_alloc *a, int h,
                                  uint64_t off)
{
    if (h == MANAGED_HOST) {
        return rt_alloc_loc(a, off);
    }
    struct p2psim_loc l = { P2PSIM_DEVICE, (unsigned)h,
                            mg(a)->copy_off[h] + off };
    return l;
}

/* Copy pages [first, first + n), all at home src, to mig->dst. */
static int run_issue(struct migration *mig, int src, uint64_t first,
                     uint64_t n)
{
    struct rt_alloc *a = mig->a;
    uint64_t off = first * RT_MANAGED_PAGE_BYTES;
    uint64_t end = (first + n) * RT_MANAGED_PAGE_BYTES;
    uint64_t len = (end < a->size ? end : a->size) - off;
    struct migration_run *run = calloc(1, sizeof(*run));
    if (!run) {
        return -1;
    }
    run->mig = mig;
    run->first = first;
    run->n = n;
    if (src != MANAGED_HOST) {
        /* The device copy pushes the host mapping's own bytes. */
        rt_machine->hbm_write((unsigned)src, mg(a)->copy_off[src] + off,
                              (const void *)(a->base + off), len);
    }
    rt.n_managed_migrations++;
    rt.bytes_managed_migrated += len;
    unsigned flags = 0;
    struct p2psim_verdict v;
    if (src != MANAGED_HOST && mig->dst != MANAGED_HOST &&
        p2psim_p2p(rt.p, (unsigned)src, (unsigned)mig->dst, &v) == 0 &&
        v.allowed) {
        flags = P2PSIM_COPY_PEER;
    }
    struct p2psim_loc to = home_loc(a, mig->dst, off);
    struct p2psim_loc from = home_loc(a, src, off);
    mig->pending++;
    if (rt_machine->copy(&to, &from, len, flags, rt_machine->now(), 0,
                         run_landed, run, NULL) < 0) {
        mig->pending--;
        free(run);
        return -1;
    }
    return 0;
}

/* At the migration's time: one copy per run of pages with the same home. */
static void migration_issue(void *arg)
{
    struct migration *mig = arg;
    mig->pending = 1;           /* held until every run is issued */
    uint64_t i = mig->first;
    while (i <= mig->last) {
        if (!page_moves(mig, i)) {
            i++;
            continue;
        }
        int src = mg(mig->a)->page[i].home;
        uint64_t n = 1;
        while (i + n <= mig->last && page_moves(mig, i + n) &&
               mg(mig->a)->page[i + n].home == src) {
            n++;
        }
        if (run_issue(mig, src, i, n) < 0) {
            mig->status = cudaErrorUnknown;
        }
        i += n;
    }
    if (--mig->pending == 0) {
        migration_finish(mig);
    }
}

/* A fault: pay the latency only if some page has to move. */
static void migration_fault(void *arg)
{
    struct migration *mig = arg;
    bool any = false;
    for (uint64_t i = mig->first; i <= mig->last && !any; i++) {
        any = page_moves(mig, i);
    }
    if (!any) {
        migration_finish(mig);
        return;
    }
    rt.n_managed_faults++;
    sim_time_t t = sim_time_add(rt_machine->now(), RT_MANAGED_FAULT_PS);
    if (rt_machine->timer(t, migration_issue, mig) < 0) {
        mig->status = cudaErrorMemoryAllocation;
        migration_finish(mig);
    }
}

/* Start migrating [off, off + len) of a to dst at time at. */
static cudaError_t migrate(struct rt_alloc *a, uint64_t off, uint64_t len,
                           int dst, sim_time_t at, bool fault,
                           rt_managed_done_fn *done, void *arg)
{
    if (len == 0 || off > a->size || len > a->size - off) {
        return cudaErrorInvalidValue;
    }
    if (dst != MANAGED_HOST) {
        cudaError_t e = device_copy(a, dst);
        if (e) {
            return e;
        }
    }
    struct migration *mig = calloc(1, sizeof(*mig));
    if (!mig) {
        return cudaErrorMemoryAllocation;
    }
    mig->a = a;
    mig->first = page_of(off);
    mig->last = page_of(off + len - 1);
    mig->dst = dst;
    mig->fault = fault;
    mig->done = done;
    mig->arg = arg;
    if (rt_machine->timer(at, fault ? migration_fault : migration_issue,
                          mig) < 0) {
        free(mig);
        return cudaErrorMemoryAllocation;
    }
    return cudaSuccess;
}

cudaError_t rt_managed_touch(struct rt_alloc *a, uint64_t off, uint64_t len,
                             int dev, sim_time_t at, rt_managed_done_fn *done,
                             void *arg)
{
    return migrate(a, off, len, dev < 0 ? MANAGED_HOST : dev, at, true, done,
                   arg);
}

/* ---- faults of kernels (launch.c) ---------------------------------------- */

/*
 * A warp's access to pages resident elsewhere faults: the pages migrate
 * to its GPU as rt_managed_touch moves them (one fault latency, then the
 * copies) and the warp waits. Warps that fault on a page already moving
 * wait for the same migration (one batch).
 */

struct fault_waiter {
    void (*resume)(void *w);
    void *w;
};

struct fault_batch {
    struct rt_alloc *a;
    uint64_t first, last;
    unsigned n, cap;
    struct fault_waiter *wait;
};

static bool batch_wait(struct fault_batch *b, void (*resume)(void *w),
                       void *w)
{
    if (b->n == b->cap) {
        unsigned cap = b->cap ? 2 * b->cap : 8;
        struct fault_waiter *t = realloc(b->wait, cap * sizeof(*t));
        if (!t) {
            return false;
        }
        b->wait = t;
        b->cap = cap;
    }
    b->wait[b->n++] = (struct fault_waiter){ resume, w };
    return true;
}

static void batch_done(void *arg, int status)
{
    struct fault_batch *b = arg;
    struct managed *m = mg(b->a);
    for (uint64_t i = b->first; i <= b->last; i++) {
        m->page[i].batch = NULL;
        m->page[i].no_fault = m->page[i].no_fault || status != 0;
    }
    for (unsigned k = 0; k < b->n; k++) {
        b->wait[k].resume(b->wait[k].w);
    }
    free(b->wait);
    free(b);
}

int rt_managed_fault(struct rt_alloc *a, uint64_t off, uint64_t len,
                     unsigned gpu, void (*resume)(void *w), void *w)
{
    struct managed *m = mg(a);
    uint64_t first = page_of(off), last = page_of(off + (len ? len - 1 : 0));
    for (uint64_t i = first; i <= last; i++) {
        if (m->page[i].batch) {
            return batch_wait(m->page[i].batch, resume, w) ? 1 : 0;
        }
    }
    struct migration probe = { .a = a, .dst = (int)gpu, .fault = true };
    bool any = false;
    for (uint64_t i = first; i <= last && !any; i++) {
        any = !m->page[i].no_fault && page_moves(&probe, i);
    }
    struct fault_batch *b = any ? calloc(1, sizeof(*b)) : NULL;
    if (!b || !batch_wait(b, resume, w)) {
        free(b);
        return 0;               /* a mapped access */
    }
    b->a = a;
    b->first = first;
    b->last = last;
    uint64_t end = (last + 1) * RT_MANAGED_PAGE_BYTES;
    uint64_t moff = first * RT_MANAGED_PAGE_BYTES;
    if (migrate(a, moff, (end < a->size ? end : a->size) - moff, (int)gpu,
                rt_machine->now(), true, batch_done, b) != cudaSuccess) {
        free(b->wait);
        free(b);
        return 0;
    }
    for (uint64_t i = first; i <= last; i++) {
        m->page[i].batch = b;
    }
    return 1;
}

/* ---- copies of managed memory (copy.c) ----------------------------------- */

/*
 * The host mapping stays the truth: a device copy is refreshed from it
 * before hardware reads it (a push to the host then writes back the same
 * bytes), and what hardware writes into a device copy goes back to the
 * host mapping when it lands (rt_managed_span_end).
 */

void rt_managed_span_begin(struct rt_alloc *a, uint64_t off, uint64_t len,
                           bool read, struct rt_managed_span *out)
{
    struct managed *m = mg(a);
    int h = len ? m->page[page_of(off)].home : MANAGED_HOST;
    for (uint64_t i = page_of(off); len && i <= page_of(off + len - 1); i++) {
        if (m->page[i].home != h) {
            h = MANAGED_HOST;   /* split between homes: use the host */
            break;
        }
    }
    out->home = h;
    out->loc = home_loc(a, h, off);
    if (read && h != MANAGED_HOST) {
        rt_machine->hbm_write((unsigned)h, out->loc.addr,
                              (const void *)(a->base + off), len);
    }
}

void rt_managed_span_end(struct rt_alloc *a, uint64_t off, uint64_t len,
                         bool written, const struct rt_managed_span *s)
{
    if (written && s->home != MANAGED_HOST) {
        rt_machine->hbm_read((unsigned)s->home, s->loc.addr,
                             (void *)(a->base + off), len);
    }
}

/* ---- kernels (launch.c) -------------------------------------------------- */

/*
 * A kernel on a device reaches the pages resident there in that device's
 * copy (local HBM) and every other page at the host mapping (mapped
 * access over the path to host memory). The host mapping stays the
 * truth between kernels: when the first kernel of a device starts, its
 * copy's resident pages are refreshed from the host bytes (no simulated
 * cost), and when any kernel of the device ends they are written back
 * to the host mapping (no simulated cost: on real hardware the host's
 * later access would fault them back; here it reads its mapping).
 */

/* Whether pages [first, last] of m are all resident on dev. */
static bool pages_on(const struct managed *m, uint64_t first, uint64_t last,
                     int dev)
{
    for (uint64_t i = first; i <= last; i++) {
        if (m->page[i].home != dev) {
            return false;
        }
    }
    return true;
}

struct p2psim_loc rt_managed_kernel_loc(const struct rt_alloc *a,
                                        uint64_t off, uint64_t len,
                                        unsigned gpu)
{
    const struct managed *m = mg(a);
    uint64_t last = page_of(off + (len ? len - 1 : 0));
    if (m->copy_off[gpu] != MANAGED_NO_COPY &&
        pages_on(m, page_of(off), last, (int)gpu)) {
        return home_loc(a, (int)gpu, off);
    }
    return rt_alloc_loc(a, off);
}

unsigned rt_managed_kernel_ranges(const struct rt_alloc *a, unsigned gpu,
                                  struct rt_kernel_range *out)
{
    const struct managed *m = mg(a);
    unsigned k = 0;
    uint64_t i = 0;
    while (i < m->n_pages) {
        bool local = m->copy_off[gpu] != MANAGED_NO_COPY &&
                     m->page[i].home == (int)gpu;
        uint64_t n = 1;
        while (i + n < m->n_pages &&
               (m->copy_off[gpu] != MANAGED_NO_COPY &&
                m->page[i + n].home == (int)gpu) == local) {
            n++;
        }
        uint64_t off = i * RT_MANAGED_PAGE_BYTES;
        uint64_t end = (i + n) * RT_MANAGED_PAGE_BYTES;
        end = end < a->size ? end : a->size;
        out[k++] = (struct rt_kernel_range){
            .va = a->base + off, .len = end - off,
            .loc = local ? home_loc(a, (int)gpu, off) : rt_alloc_loc(a, off) };
        i += n;
    }
    return k;
}

unsigned rt_managed_n_pages(const struct rt_alloc *a)
{
    return (unsigned)mg(a)->n_pages;
}

/* Copy the pages of every managed range resident on gpu between the
 * host mapping and gpu's copy: to the copy (to_dev) or back. */
static void sync_resident(unsigned gpu, bool to_dev)
{
    for (unsigned j = 0; j < rt.n_allocs; j++) {
        const struct rt_alloc *a = rt.allocs[j];
        if (a->kind != RT_MEM_MANAGED ||
            mg(a)->copy_off[gpu] == MANAGED_NO_COPY) {
            continue;
        }
        const struct managed *m = mg(a);
        for (uint64_t i = 0; i < m->n_pages; i++) {
            if (m->page[i].home != (int)gpu) {
                continue;
            }
            uint64_t off = i * RT_MANAGED_PAGE_BYTES;
            uint64_t end = off + RT_MANAGED_PAGE_BYTES;
            uint64_t len = (end < a->size ? end : a->size) - off;
            uint64_t dev_off = m->copy_off[gpu] + off;
            if (to_dev) {
                rt_machine->hbm_write(gpu, dev_off,
                                      (const void *)(a->base + off), len);
            } else {
                rt_machine->hbm_read(gpu, dev_off, (void *)(a->base + off),
                                     len);
            }
        }
    }
}

void rt_managed_kernel_begin(unsigned gpu)
{
    if (rt.dev[gpu].managed_kernels++ == 0) {
        sync_resident(gpu, true);
    }
}

void rt_managed_kernel_end(unsigned gpu)
{
    rt.dev[gpu].managed_kernels--;
    sync_resident(gpu, false);
}

/* ---- cudaMemPrefetchAsync ------------------------------------------------ */

/*
 * The home a location names for prefetch and advice: a device, or the
 * host (Host, HostNuma and HostNumaCurrent alike: one host mapping).
 * Returns 0, cudaErrorInvalidValue (bad type) or cudaErrorInvalidDevice.
 */
static cudaError_t location_home(struct cudaMemLocation loc, int *home)
{
    switch (loc.type) {
    case cudaMemLocationTypeDevice:
        if (loc.id == cudaCpuDeviceId) {
            *home = MANAGED_HOST;   /* the CUDA 12 idiom, still accepted */
            return cudaSuccess;
        }
        if (!rt_device_valid(loc.id)) {
            return cudaErrorInvalidDevice;
        }
        *home = loc.id;
        return cudaSuccess;
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNuma:
    case cudaMemLocationTypeHostNumaCurrent:
        *home = MANAGED_HOST;
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

struct prefetch_op {
    struct rt_op op;            /* first */
    struct rt_alloc *a;
    uint64_t off, len;
    int dst;
};

static void prefetch_done(void *arg, int status)
{
    struct prefetch_op *p = arg;
    if (status == 0) {
        struct managed *m = mg(p->a);
        for (uint64_t i = page_of(p->off); i <= page_of(p->off + p->len - 1);
             i++) {
            m->page[i].last_prefetch = (int16_t)p->dst;
        }
    }
    rt_op_done(&p->op, status);
}

static void prefetch_start(struct rt_op *op, sim_time_t at)
{
    struct prefetch_op *p = (struct prefetch_op *)op;
    cudaError_t e = migrate(p->a, p->off, p->len, p->dst, at, false,
                            prefetch_done, p);
    if (e) {
        rt_op_done(op, e);
    }
}

static cudaError_t prefetch(const void *ptr, size_t count,
                            struct cudaMemLocation loc, unsigned flags,
                            cudaStream_t h)
{
    rt_charge(rt_costs[RT_COST_CALL]);
    struct rt_ptr w;
    rt_ptr_find(ptr, &w);
    int dst = MANAGED_HOST;
    cudaError_t e = location_home(loc, &dst);
    if (w.where != RT_WHERE_MANAGED || count > w.avail || flags != 0) {
        return cudaErrorInvalidValue;
    }
    if (e || count == 0) {
        return e;
    }
    struct rt_stream *s = rt_stream_resolve(h, -1);
    if (!s) {
        return cudaErrorInvalidResourceHandle;
    }
    if (dst != MANAGED_HOST && (e = device_copy(w.alloc, dst)) != 0) {
        return e;
    }
    struct prefetch_op *p = (struct prefetch_op *)rt_op_alloc(
        sizeof(*p), "prefetch", prefetch_start);
    if (!p) {
        return cudaErrorMemoryAllocation;
    }
    p->a = w.alloc;
    p->off = w.off;
    p->len = count;
    p->dst = dst;
    return rt_enqueue(s, &p->op);
}

cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                           struct cudaMemLocation location,
                                           unsigned int flags,
                                           cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, prefetch(devPtr, count, location, flags, stream));
}

cudaError_t CUDARTAPI cudaMemPrefetchAsync_ptsz(const void *devPtr,
                                                size_t count,
                                                struct cudaMemLocation location,
                                                unsigned int flags,
                                                cudaStream_t stream)
{
    return cudaMemPrefetchAsync(devPtr, count, location, flags,
                                stream ? stream : cudaStreamPerThread);
}

/* ---- cudaMemAdvise ------------------------------------------------------- */

static void advise_page(struct mpage *pg, enum cudaMemoryAdvise advice,
                        int home)
{
    uint64_t bit = UINT64_C(1) << (home == MANAGED_HOST ? MANAGED_HOST_BIT
                                                        : (unsigned)home);
    switch (advice) {
    case cudaMemAdviseSetReadMostly:
        pg->read_mostly = true;
        break;
    case cudaMemAdviseUnsetReadMostly:
        pg->read_mostly = false;
        break;
    case cudaMemAdviseSetPreferredLocation:
        pg->preferred = (int16_t)home;
        break;
    case cudaMemAdviseUnsetPreferredLocation:
        pg->preferred = MANAGED_NONE;
        break;
    case cudaMemAdviseSetAccessedBy:
        pg->accessed_by |= bit;
        break;
    case cudaMemAdviseUnsetAccessedBy:
        pg->accessed_by &= ~bit;
        break;
    }
}

static cudaError_t advise(const void *ptr, size_t count,
                          enum cudaMemoryAdvise advice,
                          struct cudaMemLocation loc)
{
    rt_charge(rt_costs[RT_COST_CALL]);
    struct rt_ptr w;
    rt_ptr_find(ptr, &w);
    if (w.where != RT_WHERE_MANAGED || count == 0 || count > w.avail ||
        advice < cudaMemAdviseSetReadMostly ||
        advice > cudaMemAdviseUnsetAccessedBy) {
        return cudaErrorInvalidValue;
    }
    int home = MANAGED_HOST;
    bool needs_loc = advice == cudaMemAdviseSetPreferredLocation ||
                     advice == cudaMemAdviseSetAccessedBy ||
                     advice == cudaMemAdviseUnsetAccessedBy;
    if (needs_loc) {
        cudaError_t e = location_home(loc, &home);
        if (e) {
            return e;
        }
        if (home != MANAGED_HOST && rt.n_dev > MANAGED_HOST_BIT) {
            return cudaErrorInvalidDevice;  /* beyond the AccessedBy mask */
        }
    }
    struct managed *m = mg(w.alloc);
    for (uint64_t i = page_of(w.off); i <= page_of(w.off + count - 1); i++) {
        advise_page(&m->page[i], advice, home);
    }
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemAdvise(const void *devPtr, size_t count,
                                    enum cudaMemoryAdvise advice,
                                    struct cudaMemLocation location)
{
    RT_SERVE(RT_NO_COST, advise(devPtr, count, advice, location));
}

/* ---- cudaMemRangeGetAttribute -------------------------------------------- */

/* A location of a page (MANAGED_NONE, MANAGED_HOST or a device) as the
 * cudaMemRangeGetAttribute device-id answer, and as a location type and
 * id (the host is one host mapping here, so it is reported as Host). */
static int range_device_id(int where)
{
    return where == MANAGED_HOST ? cudaCpuDeviceId
           : where == MANAGED_NONE ? cudaInvalidDeviceId
                                   : where;
}

static int range_loc_type(int where)
{
    return where == MANAGED_HOST ? cudaMemLocationTypeHost
           : where == MANAGED_NONE ? cudaMemLocationTypeInvalid
                                   : cudaMemLocationTypeDevice;
}

/*
 * One attribute of the pages of [off, off+count) of a managed range: a
 * value that holds for all of them, or "not the same" (cudaInvalidDeviceId
 * for ids, cudaMemLocationTypeInvalid for types, 0 for ReadMostly).
 * AccessedBy lists the devices (and the host, cudaCpuDeviceId) advised
 * on every page, then cudaInvalidDeviceId to the end of the array.
 */
static cudaError_t range_attribute(void *data, size_t size,
                                   enum cudaMemRangeAttribute attr,
                                   const void *ptr, size_t count)
{
    struct rt_ptr w;
    rt_ptr_find(ptr, &w);
    if (!data || w.where != RT_WHERE_MANAGED || count == 0 ||
        count > w.avail) {
        return cudaErrorInvalidValue;
    }
    bool is_list = attr == cudaMemRangeAttributeAccessedBy;
    if (attr < cudaMemRangeAttributeReadMostly ||
        attr > cudaMemRangeAttributeLastPrefetchLocationId ||
        (is_list ? size == 0 || size % 4 : size != 4)) {
        return cudaErrorInvalidValue;
    }
    struct managed *m = mg(w.alloc);
    uint64_t first = page_of(w.off), last = page_of(w.off + count - 1);
    bool read_mostly = true;
    int pref = m->page[first].preferred, pre = m->page[first].last_prefetch;
    uint64_t acc = ~UINT64_C(0);
    for (uint64_t i = first; i <= last; i++) {
        const struct mpage *pg = &m->page[i];
        read_mostly = read_mostly && pg->read_mostly;
        pref = pg->preferred == pref ? pref : MANAGED_NONE;
        pre = pg->last_prefetch == pre ? pre : MANAGED_NONE;
        acc &= pg->accessed_by;
    }
    int32_t *out = data;
    switch (attr) {
    case cudaMemRangeAttributeReadMostly:
        *out = read_mostly;
        break;
    case cudaMemRangeAttributePreferredLocation:
        *out = range_device_id(pref);
        break;
    case cudaMemRangeAttributeLastPrefetchLocation:
        *out = range_device_id(pre);
        break;
    case cudaMemRangeAttributePreferredLocationType:
        *out = range_loc_type(pref);
        break;
    case cudaMemRangeAttributeLastPrefetchLocationType:
        *out = range_loc_type(pre);
        break;
    case cudaMemRangeAttributePreferredLocationId:
        *out = pref >= 0 ? pref : 0;
        break;
    case cudaMemRangeAttributeLastPrefetchLocationId:
        *out = pre >= 0 ? pre : 0;
        break;
    case cudaMemRangeAttributeAccessedBy: {
        size_t n = size / 4, k = 0;
        for (unsigned d = 0; d < rt.n_dev && d < MANAGED_HOST_BIT; d++) {
            if ((acc >> d & 1) && k < n) {
                out[k++] = (int32_t)d;
            }
        }
        if ((acc >> MANAGED_HOST_BIT & 1) && k < n) {
            out[k++] = cudaCpuDeviceId;
        }
        while (k < n) {
            out[k++] = cudaInvalidDeviceId;
        }
        break;
    }
    }
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemRangeGetAttribute(void *data, size_t dataSize,
                                               enum cudaMemRangeAttribute attribute,
                                               const void *devPtr, size_t count)
{
    RT_SERVE(RT_COST_CALL,
             range_attribute(data, dataSize, attribute, devPtr, count));
}

static cudaError_t range_attributes(void **data, size_t *sizes,
                                    enum cudaMemRangeAttribute *attrs,
                                    size_t n, const void *ptr, size_t count)
{
    if (!data || !sizes || !attrs || n == 0) {
        return cudaErrorInvalidValue;
    }
    for (size_t i = 0; i < n; i++) {
        cudaError_t e = range_attribute(data[i], sizes[i], attrs[i], ptr,
                                        count);
        if (e) {
            return e;
        }
    }
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemRangeGetAttributes(
    void **data, size_t *dataSizes, enum cudaMemRangeAttribute *attributes,
    size_t numAttributes, const void *devPtr, size_t count)
{
    RT_SERVE(RT_COST_CALL, range_attributes(data, dataSizes, attributes,
                                            numAttributes, devPtr, count));
}
