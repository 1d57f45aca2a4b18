/*
 * cuda/cudart/ipc.c - CUDA IPC: memory handles (cudaIpcGetMemHandle,
 * cudaIpcOpenMemHandle, cudaIpcCloseMemHandle) and interprocess events
 * (cudaIpcGetEventHandle, cudaIpcOpenEventHandle), served by the p2psim
 * server that every process of the program shares (remote.c; `p2psim run`
 * starts it). shared/reference/cuda-api.md §2.5 has the facts.
 *
 * A handle (struct wire_ipc_handle) names the exporter's session, pid,
 * device, HBM offset and size, and a random nonce that the server keeps
 * with the export. Nothing in it is used before the server (or, without
 * one, this process's own table) confirms that all of it names a live
 * export; a handle is only ever copied and compared, never followed.
 *
 * Opening memory maps nothing new: device memory is not host-accessible,
 * so the importer gets an allocation (RT_MEM_DEVICE, flag RT_ALLOC_IPC)
 * in its own UVA window of the exporting device at the same HBM offset,
 * which the shared machine holds for every process. Opening it again
 * returns the same pointer and counts; cudaIpcCloseMemHandle drops one;
 * cudaFree refuses it (memory.c). With cudaIpcMemLazyEnablePeerAccess the
 * current device gets peer access to the exporting one, "as if the user
 * called cudaDeviceEnablePeerAccess" (CUDA's documentation of the flag).
 *
 * Model: when P2P between the current device and the exporting one is
 * impossible, the open still succeeds without peer access: copies to and
 * from the memory are staged through host memory, as cudaMemcpy does for
 * any device memory; a kernel cannot reach it (kernel_may_reach, launch.c).
 */
#define _GNU_SOURCE /* memfd_create */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cuda/cudart/memory.h"
#include "cuda/cudart/remote.h"
#include "cuda/cudart/rt.h"
#include "sim/error.h"

/* The most peers a device may have enabled (peer.c's limit, CUDA's). */
#define IPC_PEER_MAX 8

/* An export of this process when it has no server (for the 201 check). */
struct ipc_export {
    struct ipc_export *next;
    struct wire_ipc_handle h;
};

/* A handle this process has open. */
struct ipc_import {
    struct ipc_import *next;
    struct rt_alloc *a;
    struct wire_ipc_mem key;
    unsigned refs;
};

/* The interprocess side of an event (CUevent_st.ipc). */
struct rt_ipc_event {
    uint64_t id, nonce;
    bool owner;                 /* exported by this process */
    bool local_only;            /* no server: a normal event */
    uint64_t local_gen;         /* the last generation recorded here */
    struct rt_fence *local_f;   /* its fence */
    uint64_t wait_gen;          /* a generation awaited from the server */
    struct rt_fence *wait_f;
};

/* An event record in flight whose completion the server must learn. */
struct ipc_record {
    uint64_t id, nonce, gen;
};

static struct ipc_export *exports;
static struct ipc_import *imports;
static uint64_t own_session;    /* without a server */
static uint64_t next_local_event;

/* A token, not simulated randomness (see tools/cmd_server.c). */
static uint64_t random_u64(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v)) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^
            (uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_sec;
    }
    return v ? v : 1;
}

static uint64_t session(void)
{
    if (rt_remote_is_active()) {
        return rt_remote_session();
    }
    if (!own_session) {
        own_session = random_u64();
    }
    return own_session;
}

static cudaError_t from_sim(int rc)
{
    switch (rc) {
    case 0: return cudaSuccess;
    case -SIM_ENOMEM: return cudaErrorMemoryAllocation;
    case -SIM_EIO: return cudaErrorUnknown;       /* the server is gone */
    default: return cudaErrorInvalidResourceHandle;
    }
}

/* The handle's fields, if it is one of ours of kind magic. */
static bool handle_parse(const void *bytes, uint32_t magic,
                         struct wire_ipc_handle *h)
{
    memcpy(h, bytes, sizeof(*h));
    return h->magic == magic && h->version == WIRE_VERSION;
}

/* A handle that another process exported while we have no server. */
static cudaError_t foreign_without_server(void)
{
    static bool told;
    if (!told) {
        fprintf(stderr, "p2psim: an IPC handle of another process: "
                        "processes share a machine only under a p2psim "
                        "server (run the program with `p2psim run`)\n");
        told = true;
    }
    return cudaErrorNotSupported;
}

/* ---- memory ------------------------------------------------------------------- */

/*
 * Error codes (the documented set is 205, 400, 201, 711, 801, 1):
 *   flags other than cudaIpcMemLazyEnablePeerAccess, NULL   1
 *   opening a handle in the process that exported it       201, as the
 *     real runtime ("invalid device context": UCX #11600, DALI #4817);
 *     the same for event handles [assumption: not measured]
 *   not a handle (bad magic or version), another session's, a nonce the
 *     server does not know (forged), an allocation freed since (stale),
 *     an event destroyed since                             400: "a resource
 *     handle passed to the API call was not valid"
 *   a well-formed handle of another process while this one has no
 *     server (run without `p2psim run`): there is no shared machine to
 *     open it in                                           801, with a hint
 *   the range meets an allocation of this process (cannot happen while
 *     HBM offsets come from the server)                    205
 *   the current device has eight peers already             711
 * cudaIpcGetMemHandle: a pointer that is not the base of a cudaMalloc
 * allocation (pool, imported, host, interior) 1. cudaIpcGetEventHandle:
 * an event without cudaEventInterprocess | cudaEventDisableTiming 1
 * [assumption: CUDA's documentation requires the flags and lists 1 and
 * 400; 400 is for handles that are not events].
 */

/* pool: ptr must come from a pool (cudaMemPoolExportPointer), else
 * from none (cudaIpcGetMemHandle). */
static cudaError_t mem_handle(cudaIpcMemHandle_t *handle, void *ptr,
                              bool pool)
{
    struct rt_alloc *a = ptr ? rt_alloc_at(ptr) : NULL;
    if (!handle || !a || a->kind != RT_MEM_DEVICE || !a->pool != !pool ||
        (a->flags & RT_ALLOC_IPC)) {
        return cudaErrorInvalidValue;
    }
    struct wire_ipc_handle h = {
        .magic = WIRE_IPC_MAGIC_MEM,
        .version = WIRE_VERSION,
        .pid = (uint32_t)getpid(),
        .gpu = (uint32_t)a->device,
        .session = session(),
        .off = a->base - rt.dev[a->device].va_base,
        .size = a->size,
    };
    if (rt_remote_is_active()) {
        struct wire_ipc_mem m = { .gpu = h.gpu, .off = h.off,
                                  .size = h.size };
        struct wire_reply r;
        int rc = rt_remote_call(WIRE_IPC_MEM_EXPORT, &m, sizeof(m), &r);
        if (rc < 0) {
            return rc == -SIM_EIO ? cudaErrorUnknown : cudaErrorInvalidValue;
        }
        h.nonce = r.v[0];
    } else {
        struct ipc_export *x = exports;
        while (x && !(x->h.magic == h.magic && x->h.gpu == h.gpu &&
                      x->h.off == h.off && x->h.size == h.size)) {
            x = x->next;
        }
        if (!x) {
            x = calloc(1, sizeof(*x));
            if (!x) {
                return cudaErrorMemoryAllocation;
            }
            x->h = h;
            x->h.nonce = random_u64();
            x->next = exports;
            exports = x;
        }
        h.nonce = x->h.nonce;
    }
    memset(handle, 0, sizeof(*handle));
    memcpy(handle->reserved, &h, sizeof(h));
    return cudaSuccess;
}

cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
    SERVE(mem_handle(handle, devPtr, false));
}

/* Without a server: 201 for our own export (memory or event), else
 * refused. */
static cudaError_t open_local(const struct wire_ipc_handle *h)
{
    if (h->session != session()) {
        return foreign_without_server();
    }
    for (const struct ipc_export *x = exports; x; x = x->next) {
        if (x->h.magic == h->magic && x->h.nonce == h->nonce &&
            x->h.gpu == h->gpu && x->h.off == h->off &&
            x->h.size == h->size) {
            return cudaErrorDeviceUninitialized;
        }
    }
    return cudaErrorInvalidResourceHandle;
}

/*
 * A handle this process exported, forged or not: the real runtime answers
 * 201 before it looks any further (measured on two H200s, driver 580:
 * a handle with a flipped nonce byte, opened by its exporter, gives
 * cudaErrorDeviceUninitialized, not 400; data/hgx-h200-x2/).
 */
static bool exported_here(const struct wire_ipc_handle *h)
{
    return h->pid == (uint32_t)getpid() && h->session == session();
}

/* Lazily enable peer access from cur to dev, where P2P allows it. */
static cudaError_t lazy_peer(int cur, int dev)
{
    struct p2psim_verdict v;
    bool *en = rt.dev[cur].peer_enabled;
    if (cur == dev || en[dev] || p2psim_p2p(rt.p, (unsigned)cur,
                                            (unsigned)dev, &v) < 0 ||
        !v.allowed) {
        return cudaSuccess;
    }
    unsigned n = 0;
    for (unsigned i = 0; i < rt.n_dev; i++) {
        n += en[i];
    }
    if (n >= IPC_PEER_MAX) {
        return cudaErrorTooManyPeers;
    }
    cudaError_t e = rt_device_init(dev);
    if (!e) {
        en[dev] = true;
    }
    return e;
}

/* The allocation for an open that the server accepted. */
static cudaError_t map_import(const struct wire_ipc_mem *key, void **out)
{
    int dev = (int)key->gpu, cur = rt_current_device();
    struct rt_device *d = &rt.dev[dev];
    if (key->off > d->va_size || key->size > d->va_size - key->off) {
        return cudaErrorMapBufferObjectFailed;
    }
    uintptr_t base = d->va_base + key->off;
    struct rt_ptr lo, hi;
    rt_ptr_find((void *)base, &lo);
    rt_ptr_find((void *)(base + key->size - 1), &hi);
    if (lo.alloc || hi.alloc) {
        return cudaErrorMapBufferObjectFailed;
    }
    cudaError_t e = rt_device_init(cur);
    if (!e) {
        e = lazy_peer(cur, dev);
    }
    if (e) {
        return e;
    }
    struct rt_alloc *a = calloc(1, sizeof(*a));
    struct ipc_import *im = calloc(1, sizeof(*im));
    if (!a || !im) {
        free(a);
        free(im);
        return cudaErrorMemoryAllocation;
    }
    a->kind = RT_MEM_DEVICE;
    a->base = base;
    a->size = key->size;
    a->device = dev;
    a->flags = RT_ALLOC_IPC;
    a->priv = im;
    e = rt_alloc_insert(a);
    if (e) {
        free(a);
        free(im);
        return e;
    }
    im->a = a;
    im->key = *key;
    im->refs = 1;
    im->next = imports;
    imports = im;
    *out = (void *)base;
    return cudaSuccess;
}

static cudaError_t open_mem_handle(void **ptr, const cudaIpcMemHandle_t *hd,
                                   unsigned flags)
{
    struct wire_ipc_handle h;
    if (!ptr || flags != cudaIpcMemLazyEnablePeerAccess) {
        return cudaErrorInvalidValue;
    }
    if (!handle_parse(hd->reserved, WIRE_IPC_MAGIC_MEM, &h)) {
        return cudaErrorInvalidResourceHandle;
    }
    if (exported_here(&h)) {
        return cudaErrorDeviceUninitialized;
    }
    if (!rt_remote_is_active()) {
        return open_local(&h);
    }
    if (h.session != session() || !rt_device_valid((int)h.gpu)) {
        return cudaErrorInvalidResourceHandle;
    }
    struct wire_ipc_mem key = { .gpu = h.gpu, .off = h.off, .size = h.size,
                                .nonce = h.nonce };
    for (struct ipc_import *im = imports; im; im = im->next) {
        if (!memcmp(&im->key, &key, sizeof(key))) {
            im->refs++;
            *ptr = (void *)im->a->base;
            return cudaSuccess;
        }
    }
    struct wire_reply r;
    int rc = rt_remote_call(WIRE_IPC_MEM_OPEN, &key, sizeof(key), &r);
    if (rc == -SIM_EBUSY) {
        return cudaErrorDeviceUninitialized;
    }
    /* No live export behind a well-formed handle of this session: the
     * real runtime answers a handle of freed memory with 1, not 400
     * (two H200s, driver 580, data/hgx-h200-x2/); a forged one takes the
     * same lookup here. */
    if (rc == -SIM_ENOENT) {
        return cudaErrorInvalidValue;
    }
    if (rc < 0) {
        return from_sim(rc);
    }
    cudaError_t e = map_import(&key, ptr);
    if (e) {
        rt_remote_call(WIRE_IPC_MEM_CLOSE, &key, sizeof(key), &r);
    }
    return e;
}

cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle,
                                 unsigned int flags)
{
    SERVE(open_mem_handle(devPtr, &handle, flags));
}

static cudaError_t close_mem_handle(void *ptr)
{
    struct ipc_import **pp = &imports;
    while (*pp && (void *)(*pp)->a->base != ptr) {
        pp = &(*pp)->next;
    }
    struct ipc_import *im = *pp;
    if (!ptr || !im) {
        return cudaErrorInvalidValue;
    }
    if (--im->refs) {
        return cudaSuccess;
    }
    *pp = im->next;
    /* Copies in flight name HBM offsets, not this allocation: the
     * mapping can go at once (CUDA: "unmap at 0"). */
    rt_alloc_remove(im->a);
    free(im->a);
    struct wire_reply r;
    int rc = rt_remote_call(WIRE_IPC_MEM_CLOSE, &im->key, sizeof(im->key), &r);
    free(im);
    return rc == -SIM_EIO ? cudaErrorUnknown : cudaSuccess;
}

void rt_ipc_mem_released(struct rt_alloc *a)
{
    for (struct ipc_import **pp = &imports; *pp; pp = &(*pp)->next) {
        struct ipc_import *im = *pp;
        if (im->a == a) {
            *pp = im->next;
            /* The server counts one open per process (later opens of the
             * same handle only count here). */
            struct wire_reply r;
            rt_remote_call(WIRE_IPC_MEM_CLOSE, &im->key, sizeof(im->key), &r);
            free(im);
            return;
        }
    }
}

cudaError_t cudaIpcCloseMemHandle(void *devPtr)
{
    SERVE(close_mem_handle(devPtr));
}

/* ---- pointers of shared pools ---------------------------------------------- */

/*
 * cudaMemPoolExportPointer's data is the handle cudaIpcGetMemHandle would
 * give for the allocation, with the pool's share token in its reserved
 * bytes (what the importing pool must match, so that a program may try
 * each export against each imported pool, as streamOrderedAllocationIPC
 * does). Importing opens it like a handle, with peer access to the
 * exporting device where the machine allows it (the importer has set the
 * pool's access); freeing it (cudaFreeAsync) closes it.
 */
#define IPC_POOL_MARK UINT64_C(0x4c4f4f504d495350)  /* "PSIMPOOL" */

cudaError_t rt_ipc_pool_export(struct cudaMemPoolPtrExportData *data,
                               void *ptr, uint64_t token)
{
    cudaIpcMemHandle_t h;
    cudaError_t e = mem_handle(&h, ptr, true);
    if (e) {
        return e;
    }
    struct wire_ipc_handle w;
    memcpy(&w, h.reserved, sizeof(w));
    memcpy(w.reserved, &token, 8);
    uint64_t mark = IPC_POOL_MARK;
    memcpy(w.reserved + 8, &mark, 8);
    _Static_assert(sizeof(*data) >= sizeof(w), "export data holds a handle");
    memset(data, 0, sizeof(*data));
    memcpy(data, &w, sizeof(w));
    return cudaSuccess;
}

cudaError_t rt_ipc_pool_import(void **ptr,
                               const struct cudaMemPoolPtrExportData *data,
                               uint64_t token)
{
    struct wire_ipc_handle w;
    uint64_t t, mark;
    memcpy(&w, data, sizeof(w));
    memcpy(&t, w.reserved, 8);
    memcpy(&mark, w.reserved + 8, 8);
    if (mark != IPC_POOL_MARK || t != token) {
        return cudaErrorInvalidValue;   /* not an allocation of this pool */
    }
    cudaIpcMemHandle_t h;
    memcpy(h.reserved, &w, sizeof(w));
    cudaError_t e = open_mem_handle(ptr, &h, cudaIpcMemLazyEnablePeerAccess);
    /* our own export: the pointer is the allocation itself */
    if (e == cudaErrorDeviceUninitialized && exported_here(&w)) {
        *ptr = (void *)(rt.dev[w.gpu].va_base + w.off);
        return cudaSuccess;
    }
    return e;
}

/*
 * A pool's shareable handle (POSIX file descriptor): a memfd holding the
 * exporter's process, session (its server's, so only processes of one
 * machine import it), device and the pool's share token.
 */
struct ipc_pool_record {
    uint64_t magic;
    uint32_t pid;
    int32_t device;
    uint64_t session;
    uint64_t token;
};
#define IPC_POOL_RECORD_MAGIC UINT64_C(0x4c4f4f50534d4950)

uint64_t rt_ipc_pool_token(void)
{
    return random_u64() | 1;
}

cudaError_t rt_ipc_pool_share(int *fd_out, int device, uint64_t token)
{
    struct ipc_pool_record rec = {
        .magic = IPC_POOL_RECORD_MAGIC,
        .pid = (uint32_t)getpid(),
        .device = device,
        .session = session(),
        .token = token,
    };
    int fd = memfd_create("p2psim-pool", MFD_CLOEXEC);
    if (fd < 0) {
        return cudaErrorOperatingSystem;
    }
    if (pwrite(fd, &rec, sizeof(rec), 0) != (ssize_t)sizeof(rec)) {
        close(fd);
        return cudaErrorOperatingSystem;
    }
    *fd_out = fd;
    return cudaSuccess;
}

cudaError_t rt_ipc_pool_open(int fd, int *device, uint64_t *token)
{
    struct ipc_pool_record rec;
    if (pread(fd, &rec, sizeof(rec), 0) != (ssize_t)sizeof(rec) ||
        rec.magic != IPC_POOL_RECORD_MAGIC) {
        return cudaErrorInvalidValue;
    }
    if (rec.session != session() || !rt_device_valid(rec.device)) {
        /* another machine's pool: processes share one only under one
         * p2psim server (`p2psim run`) */
        return cudaErrorInvalidValue;
    }
    *device = rec.device;
    *token = rec.token;
    return cudaSuccess;
}

bool rt_ipc_pool_release(void *ptr)
{
    for (struct ipc_import *im = imports; im; im = im->next) {
        if ((void *)im->a->base == ptr) {
            close_mem_handle(ptr);
            return true;
        }
    }
    return false;
}

/* ---- events ------------------------------------------------------------------- */

/*
 * Interprocess events: the server keeps a generation counter per exported
 * event; each record, in any process, is a new generation, done when the
 * recording process's operation completes (its fence's on_done reports
 * it). A wait or query in any process looks up the latest generation:
 * its own fence if the last record was made here, else a fence that the
 * server completes by a callback. Without a server, handles work as
 * normal events inside the process, and other processes cannot open them.
 */

static struct rt_fence *fence_new(bool done, int status)
{
    struct rt_fence *f = calloc(1, sizeof(*f));
    if (f) {
        f->refs = 1;
        f->done = done;
        f->status = status;
        f->t = rt_machine->now();
    }
    return f;
}

static int event_call(uint32_t type, const struct rt_ipc_event *st,
                      uint64_t gen, uint64_t cb, int status,
                      struct wire_reply *r)
{
    struct wire_ipc_event m = { .id = st->id, .nonce = st->nonce,
                                .gen = gen, .cb = cb, .status = status };
    return rt_remote_call(type, &m, sizeof(m), r);
}

/* A record's fence completed here: the generation is done. */
static void record_done(struct rt_fence *f, void *arg)
{
    struct ipc_record *rec = arg;
    struct rt_ipc_event st = { .id = rec->id, .nonce = rec->nonce };
    struct wire_reply r;
    event_call(WIRE_IPC_EVENT_DONE, &st, rec->gen, 0, f->status, &r);
    free(rec);
}

void rt_ipc_event_recorded(struct CUevent_st *ev, struct rt_fence *f)
{
    struct rt_ipc_event *st = ev->ipc;
    struct wire_reply r;
    if (st->local_only ||
        event_call(WIRE_IPC_EVENT_RECORD, st, 0, 0, 0, &r) < 0) {
        return;
    }
    st->local_gen = r.v[0];
    rt_fence_put(st->local_f);
    st->local_f = rt_fence_ref(f);
    if (f->done) {
        event_call(WIRE_IPC_EVENT_DONE, st, st->local_gen, 0, f->status, &r);
        return;
    }
    struct ipc_record *rec = malloc(sizeof(*rec));
    if (rec) {
        *rec = (struct ipc_record){ st->id, st->nonce, st->local_gen };
        f->on_done = record_done;
        f->on_done_arg = rec;
    }
}

/* The server says a generation we waited for is done. */
static void wait_done(void *arg, int status)
{
    struct rt_fence *f = arg;
    rt_fence_complete(f, status);
    rt_fence_put(f);
}

struct rt_fence *rt_ipc_event_fence(struct CUevent_st *ev)
{
    struct rt_ipc_event *st = ev->ipc;
    struct wire_reply r;
    if (st->local_only ||
        event_call(WIRE_IPC_EVENT_QUERY, st, 0, 0, 0, &r) < 0) {
        return rt_fence_ref(ev->f);
    }
    uint64_t gen = r.v[0];
    if (gen == 0) {
        return NULL;            /* never recorded anywhere */
    }
    if (gen == st->local_gen && st->local_f) {
        return rt_fence_ref(st->local_f);
    }
    if (gen == st->wait_gen && st->wait_f) {
        return rt_fence_ref(st->wait_f);
    }
    struct rt_fence *f = fence_new(r.v[1] != 0, (int)(int64_t)r.v[2]);
    if (!f) {
        return NULL;
    }
    if (!f->done) {
        uint64_t cb = rt_remote_callback_add(wait_done, rt_fence_ref(f));
        int rc = cb ? event_call(WIRE_IPC_EVENT_WAIT, st, gen, cb, 0, &r)
                    : -SIM_ENOMEM;
        if (rc < 0 || r.v[1]) {
            /* Done meanwhile, or no way to learn it: take it as done. */
            if (cb) {
                rt_remote_callback_cancel(cb);
                rt_fence_put(f);
            }
            f->done = true;
            f->status = rc < 0 ? 0 : (int)(int64_t)r.v[2];
        }
    }
    rt_fence_put(st->wait_f);
    st->wait_gen = gen;
    st->wait_f = rt_fence_ref(f);
    return f;
}

void rt_ipc_event_destroy(struct CUevent_st *ev)
{
    struct rt_ipc_event *st = ev->ipc;
    struct wire_reply r;
    if (st->owner && !st->local_only) {
        event_call(WIRE_IPC_EVENT_CLOSE, st, 0, 0, 0, &r);
    }
    rt_fence_put(st->local_f);
    rt_fence_put(st->wait_f);
    free(st);
    ev->ipc = NULL;
}

#define IPC_EVENT_FLAGS (cudaEventInterprocess | cudaEventDisableTiming)

/* Share ev through the server (its first handle). */
static cudaError_t event_export(struct CUevent_st *ev)
{
    struct rt_ipc_event *st = calloc(1, sizeof(*st));
    if (!st) {
        return cudaErrorMemoryAllocation;
    }
    st->owner = true;
    st->local_only = !rt_remote_is_active();
    if (st->local_only) {
        struct ipc_export *x = calloc(1, sizeof(*x));
        if (!x) {
            free(st);
            return cudaErrorMemoryAllocation;
        }
        st->id = ++next_local_event;
        st->nonce = random_u64();
        x->h = (struct wire_ipc_handle){
            .magic = WIRE_IPC_MAGIC_EVENT,
            .version = WIRE_VERSION,
            .gpu = (uint32_t)ev->dev,
            .off = st->id,
            .nonce = st->nonce,
        };
        x->next = exports;
        exports = x;
        ev->ipc = st;
        return cudaSuccess;
    }
    struct wire_reply r;
    struct wire_ipc_event m = { 0 };
    int rc = rt_remote_call(WIRE_IPC_EVENT_EXPORT, &m, sizeof(m), &r);
    if (rc < 0) {
        free(st);
        return from_sim(rc);
    }
    st->id = r.v[0];
    st->nonce = r.v[1];
    ev->ipc = st;
    if (ev->f) {
        /* Recorded before it was shared: that record is generation 1. */
        rt_ipc_event_recorded(ev, ev->f);
    }
    return cudaSuccess;
}

static cudaError_t get_event_handle(cudaIpcEventHandle_t *handle,
                                    cudaEvent_t event)
{
    if (!handle) {
        return cudaErrorInvalidValue;
    }
    struct CUevent_st *ev = rt_event_find(event);
    if (!ev) {
        return cudaErrorInvalidResourceHandle;
    }
    if ((ev->flags & IPC_EVENT_FLAGS) != IPC_EVENT_FLAGS) {
        return cudaErrorInvalidValue;
    }
    if (!ev->ipc) {
        cudaError_t e = event_export(ev);
        if (e) {
            return e;
        }
    }
    struct wire_ipc_handle h = {
        .magic = WIRE_IPC_MAGIC_EVENT,
        .version = WIRE_VERSION,
        .pid = (uint32_t)getpid(),
        .gpu = (uint32_t)ev->dev,
        .session = session(),
        .off = ev->ipc->id,
        .nonce = ev->ipc->nonce,
    };
    memset(handle, 0, sizeof(*handle));
    memcpy(handle->reserved, &h, sizeof(h));
    return cudaSuccess;
}

cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle,
                                  cudaEvent_t event)
{
    SERVE(get_event_handle(handle, event));
}

static cudaError_t open_event_handle(cudaEvent_t *event,
                                     const cudaIpcEventHandle_t *hd)
{
    struct wire_ipc_handle h;
    if (!event) {
        return cudaErrorInvalidValue;
    }
    if (!handle_parse(hd->reserved, WIRE_IPC_MAGIC_EVENT, &h)) {
        return cudaErrorInvalidResourceHandle;
    }
    if (exported_here(&h)) {
        return cudaErrorDeviceUninitialized;
    }
    if (!rt_remote_is_active()) {
        return open_local(&h);
    }
    if (h.session != session()) {
        return cudaErrorInvalidResourceHandle;
    }
    struct rt_ipc_event *st = calloc(1, sizeof(*st));
    if (!st) {
        return cudaErrorMemoryAllocation;
    }
    st->id = h.off;
    st->nonce = h.nonce;
    struct wire_reply r;
    int rc = event_call(WIRE_IPC_EVENT_OPEN, st, 0, 0, 0, &r);
    struct CUevent_st *ev = NULL;
    cudaError_t e = rc == -SIM_EBUSY ? cudaErrorDeviceUninitialized
                                     : from_sim(rc);
    if (!e) {
        e = rt_event_new(rt_current_device(), IPC_EVENT_FLAGS, &ev);
    }
    if (e) {
        free(st);
        return e;
    }
    ev->ipc = st;
    *event = ev;
    return cudaSuccess;
}

cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event,
                                   cudaIpcEventHandle_t handle)
{
    SERVE(open_event_handle(event, &handle));
}
