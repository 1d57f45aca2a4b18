/*
 * tools/replay_calls.c - the calls a replay makes (replay.h): a recorded
 * call's arguments mapped to the replay's pointers and handles, and the
 * handler of each call kind, in the table at the end. A handler reads
 * the recorded arguments, maps them, and calls the shim's function of the
 * recorded name (the _ptsz/_ptds twins share the handler of the plain
 * call). A handler that cannot map an argument still makes the call with
 * NULL, and the call's result says so.
 */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/include/cuda_runtime_api.h"
#include "tools/replay.h"
#include "tools/replay_int.h"

/* ---- mapping arguments -------------------------------------------------------- */

int64_t rp_arg(const struct trace_api_call *c, const char *key)
{
    char k[160];
    snprintf(k, sizeof(k), "args.%s", key);
    int64_t v = 0;
    trace_api_get_i64(c, k, &v);
    return v;
}

uint64_t rp_out_u64(const struct trace_api_call *c, const char *key)
{
    char k[160];
    snprintf(k, sizeof(k), "out.%s", key);
    uint64_t v = 0;
    trace_api_get_u64(c, k, &v);
    return v;
}

/* A recorded pointer argument, mapped. */
void *rp_ptr(struct rp *r, const struct trace_api_call *c, const char *key)
{
    uint64_t old = (uint64_t)rp_arg(c, key);
    if (!old) {
        return NULL;
    }
    void *p = NULL;
    pthread_mutex_lock(&r->lock);
    struct rp_alloc *a = rp_alloc_find(r, old);
    struct rp_range *g = a ? NULL : rp_range_find(r, old);
    if (a) {
        p = a->new_base + (old - a->old_base);
    } else if (g && g->new_lo) {
        p = g->new_lo + (old - g->lo);
    } else {
        r->unmapped++;
    }
    pthread_mutex_unlock(&r->lock);
    return p;
}

struct rp_handles *rp_handles_of(struct rp *r, char kind)
{
    return kind == 's' ? &r->streams : kind == 'e' ? &r->events : &r->pools;
}

static void *handle(struct rp *r, const struct trace_api_call *c,
                    const char *key, char kind)
{
    int64_t id = rp_arg(c, key);
    if (kind == 's' && (id == -1 || id == -2)) {
        return (void *)(uintptr_t)-id;  /* cudaStreamLegacy, PerThread */
    }
    struct rp_handles *t = rp_handles_of(r, kind);
    void *h = NULL;
    pthread_mutex_lock(&r->lock);
    if (id > 0 && (size_t)id < t->cap && t->h[id]) {
        h = t->h[id];
    } else if (id != 0) {
        r->unmapped++;
    }
    pthread_mutex_unlock(&r->lock);
    return h;
}

/* The call made handle h for the id recorded in out.key. */
static void bind(struct rp *r, const struct trace_api_call *c,
                 const char *key, char kind, void *h)
{
    uint64_t id = rp_out_u64(c, key);
    struct rp_handles *t = rp_handles_of(r, kind);
    if (id == 0 || id > r->max_id) {
        return;                 /* refused by replay_check */
    }
    pthread_mutex_lock(&r->lock);
    if (id >= t->cap) {
        size_t cap = t->cap ? t->cap : 16;
        while (cap <= id) {
            cap *= 2;
        }
        void **n = realloc(t->h, cap * sizeof(*n));
        if (!n) {
            pthread_mutex_unlock(&r->lock);
            return;
        }
        memset(n + t->cap, 0, (cap - t->cap) * sizeof(*n));
        t->h = n;
        t->cap = cap;
    }
    t->h[id] = h;
    pthread_mutex_unlock(&r->lock);
}

static void unbind(struct rp *r, const struct trace_api_call *c,
                   const char *key, char kind)
{
    int64_t id = rp_arg(c, key);
    struct rp_handles *t = rp_handles_of(r, kind);
    pthread_mutex_lock(&r->lock);
    if (id > 0 && (size_t)id < t->cap) {
        t->h[id] = NULL;
    }
    pthread_mutex_unlock(&r->lock);
}

#define S(key) ((cudaStream_t)handle(r, c, key, 's'))
#define E(key) ((cudaEvent_t)handle(r, c, key, 'e'))
#define POOL(key) ((cudaMemPool_t)handle(r, c, key, 'p'))
#define P(key) rp_ptr(r, c, key)
#define A(key) rp_arg(c, key)
#define U(key) ((size_t)rp_arg(c, key))
#define F(name) ((__typeof__(&name))fn)
#define OK(e) ((e) == cudaSuccess)

static struct cudaMemLocation memloc(const struct trace_api_call *c,
                                     const char *key)
{
    char k[128];
    struct cudaMemLocation l;
    snprintf(k, sizeof(k), "%s.type", key);
    l.type = (enum cudaMemLocationType)rp_arg(c, k);
    snprintf(k, sizeof(k), "%s.id", key);
    l.id = (int)rp_arg(c, k);
    return l;
}

static void CUDART_CB noop_host_fn(void *data)
{
    (void)data;
}

static void CUDART_CB noop_callback(cudaStream_t s, cudaError_t status,
                                    void *data)
{
    (void)s;
    (void)status;
    (void)data;
}

/* ---- handlers ------------------------------------------------------------------ */


/* Calls whose only arguments are ints, or output pointers. */
static int h_void(struct rp *r, const struct trace_api_call *c, void *fn)
{
    (void)r;
    (void)c;
    return F(cudaDeviceSynchronize)();
}

static int h_int_out(struct rp *r, const struct trace_api_call *c, void *fn)
{
    (void)r;
    (void)c;
    int v;
    return F(cudaGetDevice)(&v);
}

static int h_set_device(struct rp *r, const struct trace_api_call *c,
                        void *fn)
{
    (void)r;
    return F(cudaSetDevice)((int)A("device"));
}

static int h_set_device_flags(struct rp *r, const struct trace_api_call *c,
                              void *fn)
{
    (void)r;
    return F(cudaSetDeviceFlags)((unsigned)A("flags"));
}

static int h_get_device_flags(struct rp *r, const struct trace_api_call *c,
                              void *fn)
{
    (void)r;
    (void)c;
    unsigned v;
    return F(cudaGetDeviceFlags)(&v);
}

static int h_init_device(struct rp *r, const struct trace_api_call *c,
                         void *fn)
{
    (void)r;
    return F(cudaInitDevice)((int)A("device"), (unsigned)A("deviceFlags"),
                             (unsigned)A("flags"));
}

static int h_props(struct rp *r, const struct trace_api_call *c, void *fn)
{
    (void)r;
    struct cudaDeviceProp p;
    return F(cudaGetDeviceProperties)(&p, (int)A("device"));
}

static int h_attr(struct rp *r, const struct trace_api_call *c, void *fn)
{
    (void)r;
    int v;
    return F(cudaDeviceGetAttribute)(&v, (enum cudaDeviceAttr)A("attr"),
                                     (int)A("device"));
}

static int h_can_access(struct rp *r, const struct trace_api_call *c,
                        void *fn)
{
    (void)r;
    int v;
    return F(cudaDeviceCanAccessPeer)(&v, (int)A("device"),
                                      (int)A("peerDevice"));
}

static int h_enable_peer(struct rp *r, const struct trace_api_call *c,
                         void *fn)
{
    (void)r;
    return F(cudaDeviceEnablePeerAccess)((int)A("peerDevice"),
                                         (unsigned)A("flags"));
}

static int h_disable_peer(struct rp *r, const struct trace_api_call *c,
                          void *fn)
{
    (void)r;
    return F(cudaDeviceDisablePeerAccess)((int)A("peerDevice"));
}

static int h_p2p_attr(struct rp *r, const struct trace_api_call *c, void *fn)
{
    (void)r;
    int v;
    return F(cudaDeviceGetP2PAttribute)(&v,
                                        (enum cudaDeviceP2PAttr)A("attr"),
                                        (int)A("srcDevice"),
                                        (int)A("dstDevice"));
}

static int h_mem_info(struct rp *r, const struct trace_api_call *c, void *fn)
{
    (void)r;
    (void)c;
    size_t a, b;
    return F(cudaMemGetInfo)(&a, &b);
}

static int h_prio_range(struct rp *r, const struct trace_api_call *c,
                        void *fn)
{
    (void)r;
    (void)c;
    int a, b;
    return F(cudaDeviceGetStreamPriorityRange)(&a, &b);
}

static int h_pci_bus_id(struct rp *r, const struct trace_api_call *c,
                        void *fn)
{
    (void)r;
    char buf[64];
    int len = (int)A("len");
    return F(cudaDeviceGetPCIBusId)(buf, len < 64 ? len : 64,
                                    (int)A("device"));
}

static int h_set_limit(struct rp *r, const struct trace_api_call *c,
                       void *fn)
{
    (void)r;
    return F(cudaDeviceSetLimit)((enum cudaLimit)A("limit"), U("value"));
}

static int h_get_limit(struct rp *r, const struct trace_api_call *c,
                       void *fn)
{
    (void)r;
    size_t v;
    return F(cudaDeviceGetLimit)(&v, (enum cudaLimit)A("limit"));
}

static int h_error(struct rp *r, const struct trace_api_call *c, void *fn)
{
    (void)r;
    (void)c;
    return F(cudaGetLastError)();
}

/* streams */

static int h_stream_create(struct rp *r, const struct trace_api_call *c,
                           void *fn)
{
    cudaStream_t s = NULL;
    int e;
    if (strcmp(c->name, "cudaStreamCreate") == 0) {
        e = F(cudaStreamCreate)(&s);
    } else if (strcmp(c->name, "cudaStreamCreateWithFlags") == 0) {
        e = F(cudaStreamCreateWithFlags)(&s, (unsigned)A("flags"));
    } else {
        e = F(cudaStreamCreateWithPriority)(&s, (unsigned)A("flags"),
                                            (int)A("priority"));
    }
    if (OK(e)) {
        bind(r, c, "stream", 's', s);
    }
    return e;
}

static int h_stream_destroy(struct rp *r, const struct trace_api_call *c,
                            void *fn)
{
    int e = F(cudaStreamDestroy)(S("stream"));
    unbind(r, c, "stream", 's');
    return e;
}

static int h_stream(struct rp *r, const struct trace_api_call *c, void *fn)
{
    return F(cudaStreamSynchronize)(S("stream"));
}

static int h_stream_get(struct rp *r, const struct trace_api_call *c,
                        void *fn)
{
    /* cudaStreamGetFlags, Priority, Device, Id: a stream and an output of
     * 4 or 8 bytes (the same call on x86-64). */
    unsigned long long v;
    return F(cudaStreamGetId)(S("stream"), &v);
}

static int h_is_capturing(struct rp *r, const struct trace_api_call *c,
                          void *fn)
{
    enum cudaStreamCaptureStatus st;
    return F(cudaStreamIsCapturing)(S("stream"), &st);
}

static int h_wait_event(struct rp *r, const struct trace_api_call *c,
                        void *fn)
{
    return F(cudaStreamWaitEvent)(S("stream"), E("event"),
                                  (unsigned)A("flags"));
}

static int h_host_fn(struct rp *r, const struct trace_api_call *c, void *fn)
{
    return F(cudaLaunchHostFunc)(S("stream"), noop_host_fn, NULL);
}

static int h_add_callback(struct rp *r, const struct trace_api_call *c,
                          void *fn)
{
    return F(cudaStreamAddCallback)(S("stream"), noop_callback, NULL,
                                    (unsigned)A("flags"));
}

static int h_attach_mem(struct rp *r, const struct trace_api_call *c,
                        void *fn)
{
    return F(cudaStreamAttachMemAsync)(S("stream"), P("devPtr"),
                                       U("length"), (unsigned)A("flags"));
}

/* events */

static int h_event_create(struct rp *r, const struct trace_api_call *c,
                          void *fn)
{
    cudaEvent_t ev = NULL;
    int e = strcmp(c->name, "cudaEventCreate") == 0
                ? F(cudaEventCreate)(&ev)
                : F(cudaEventCreateWithFlags)(&ev, (unsigned)A("flags"));
    if (OK(e)) {
        bind(r, c, "event", 'e', ev);
    }
    return e;
}

static int h_event_record(struct rp *r, const struct trace_api_call *c,
                          void *fn)
{
    if (strncmp(c->name, "cudaEventRecordWithFlags", 24) == 0) {
        return F(cudaEventRecordWithFlags)(E("event"), S("stream"),
                                           (unsigned)A("flags"));
    }
    return F(cudaEventRecord)(E("event"), S("stream"));
}

static int h_event(struct rp *r, const struct trace_api_call *c, void *fn)
{
    return F(cudaEventSynchronize)(E("event"));
}

static int h_event_destroy(struct rp *r, const struct trace_api_call *c,
                           void *fn)
{
    int e = F(cudaEventDestroy)(E("event"));
    unbind(r, c, "event", 'e');
    return e;
}

static int h_elapsed(struct rp *r, const struct trace_api_call *c, void *fn)
{
    float ms;
    return F(cudaEventElapsedTime)(&ms, E("start"), E("end"));
}

/* memory */

int rp_h_malloc(struct rp *r, const struct trace_api_call *c, void *fn)
{
    void *p = NULL;
    const char *n = c->name;
    const char *out = "devPtr";
    int e;
    if (strcmp(n, "cudaMalloc") == 0) {
        e = F(cudaMalloc)(&p, U("size"));
    } else if (strcmp(n, "cudaMallocHost") == 0) {
        e = F(cudaMallocHost)(&p, U("size"));
        out = "ptr";
    } else if (strcmp(n, "cudaHostAlloc") == 0) {
        e = F(cudaHostAlloc)(&p, U("size"), (unsigned)A("flags"));
        out = "ptr";
    } else if (strcmp(n, "cudaMallocManaged") == 0) {
        e = F(cudaMallocManaged)(&p, U("size"), (unsigned)A("flags"));
    } else if (strncmp(n, "cudaMallocAsync", 15) == 0) {
        e = F(cudaMallocAsync)(&p, U("size"), S("stream"));
    } else {
        e = F(cudaMallocFromPoolAsync)(&p, U("size"), POOL("memPool"),
                                       S("stream"));
        out = "ptr";
    }
    if (OK(e)) {
        pthread_mutex_lock(&r->lock);
        rp_alloc_add(r, rp_out_u64(c, out), U("size"), p);
        pthread_mutex_unlock(&r->lock);
    }
    return e;
}

int rp_h_free(struct rp *r, const struct trace_api_call *c, void *fn)
{
    const char *key = strcmp(c->name, "cudaFreeHost") == 0 ? "ptr"
                                                            : "devPtr";
    void *p = P(key);
    int e;
    if (strncmp(c->name, "cudaFreeAsync", 13) == 0) {
        e = F(cudaFreeAsync)(p, S("stream"));
    } else {
        e = F(cudaFree)(p);     /* cudaFree and cudaFreeHost alike */
    }
    if (OK(e)) {
        pthread_mutex_lock(&r->lock);
        rp_alloc_remove(r, (uint64_t)A(key));
        pthread_mutex_unlock(&r->lock);
    }
    return e;
}

static int h_host_register(struct rp *r, const struct trace_api_call *c,
                           void *fn)
{
    return F(cudaHostRegister)(P("ptr"), U("size"), (unsigned)A("flags"));
}

static int h_host_unregister(struct rp *r, const struct trace_api_call *c,
                             void *fn)
{
    return F(cudaHostUnregister)(P("ptr"));
}

static int h_host_dev_ptr(struct rp *r, const struct trace_api_call *c,
                          void *fn)
{
    void *d;
    return F(cudaHostGetDevicePointer)(&d, P("hostPtr"),
                                       (unsigned)A("flags"));
}

static int h_host_flags(struct rp *r, const struct trace_api_call *c,
                        void *fn)
{
    unsigned f;
    return F(cudaHostGetFlags)(&f, P("hostPtr"));
}

static int h_ptr_attr(struct rp *r, const struct trace_api_call *c, void *fn)
{
    struct cudaPointerAttributes a;
    return F(cudaPointerGetAttributes)(&a, P("ptr"));
}

static int h_prefetch(struct rp *r, const struct trace_api_call *c, void *fn)
{
    return F(cudaMemPrefetchAsync)(P("devPtr"), U("count"),
                                   memloc(c, "location"),
                                   (unsigned)A("flags"), S("stream"));
}

static int h_advise(struct rp *r, const struct trace_api_call *c, void *fn)
{
    return F(cudaMemAdvise)(P("devPtr"), U("count"),
                            (enum cudaMemoryAdvise)A("advice"),
                            memloc(c, "location"));
}

/* copies and sets */

static int h_memcpy(struct rp *r, const struct trace_api_call *c, void *fn)
{
    enum cudaMemcpyKind k = (enum cudaMemcpyKind)A("kind");
    if (strncmp(c->name, "cudaMemcpyAsync", 15) == 0) {
        return F(cudaMemcpyAsync)(P("dst"), P("src"), U("count"), k,
                                  S("stream"));
    }
    return F(cudaMemcpy)(P("dst"), P("src"), U("count"), k);
}

static int h_memcpy_peer(struct rp *r, const struct trace_api_call *c,
                         void *fn)
{
    if (strcmp(c->name, "cudaMemcpyPeerAsync") == 0) {
        return F(cudaMemcpyPeerAsync)(P("dst"), (int)A("dstDevice"), P("src"),
                                      (int)A("srcDevice"), U("count"),
                                      S("stream"));
    }
    return F(cudaMemcpyPeer)(P("dst"), (int)A("dstDevice"), P("src"),
                             (int)A("srcDevice"), U("count"));
}

static int h_memset(struct rp *r, const struct trace_api_call *c, void *fn)
{
    if (strncmp(c->name, "cudaMemsetAsync", 15) == 0) {
        return F(cudaMemsetAsync)(P("devPtr"), (int)A("value"), U("count"),
                                  S("stream"));
    }
    return F(cudaMemset)(P("devPtr"), (int)A("value"), U("count"));
}

/* pools */

static int h_get_pool(struct rp *r, const struct trace_api_call *c, void *fn)
{
    cudaMemPool_t p = NULL;
    int e = F(cudaDeviceGetMemPool)(&p, (int)A("device"));
    if (OK(e)) {
        bind(r, c, "memPool", 'p', p);
    }
    return e;
}

static int h_set_pool(struct rp *r, const struct trace_api_call *c, void *fn)
{
    return F(cudaDeviceSetMemPool)((int)A("device"), POOL("memPool"));
}

static int h_pool_trim(struct rp *r, const struct trace_api_call *c,
                       void *fn)
{
    return F(cudaMemPoolTrimTo)(POOL("memPool"), U("minBytesToKeep"));
}

static int h_pool_destroy(struct rp *r, const struct trace_api_call *c,
                          void *fn)
{
    int e = F(cudaMemPoolDestroy)(POOL("memPool"));
    unbind(r, c, "memPool", 'p');
    return e;
}


static const struct rp_kind rp_kinds[] = {
    { "cudaSetDevice", h_set_device, 0, 0, 0, 0 },
    { "cudaGetDevice", h_int_out, 0, 0, 0, 0 },
    { "cudaGetDeviceCount", h_int_out, 0, 0, 0, 0 },
    { "cudaDriverGetVersion", h_int_out, 0, 0, 0, 0 },
    { "cudaRuntimeGetVersion", h_int_out, 0, 0, 0, 0 },
    { "cudaDeviceSynchronize", h_void, 0, 0, 0, 0 },
    { "cudaDeviceReset", h_void, 0, 0, 0, 0 },
    { "cudaSetDeviceFlags", h_set_device_flags, 0, 0, 0, 0 },
    { "cudaGetDeviceFlags", h_get_device_flags, 0, 0, 0, 0 },
    { "cudaInitDevice", h_init_device, 0, 0, 0, 0 },
    { "cudaGetDeviceProperties", h_props, 0, 0, 0, 0 },
    { "cudaDeviceGetAttribute", h_attr, 0, 0, 0, 0 },
    { "cudaDeviceCanAccessPeer", h_can_access, 0, 0, 0, 0 },
    { "cudaDeviceEnablePeerAccess", h_enable_peer, 0, 0, 0, 0 },
    { "cudaDeviceDisablePeerAccess", h_disable_peer, 0, 0, 0, 0 },
    { "cudaDeviceGetP2PAttribute", h_p2p_attr, 0, 0, 0, 0 },
    { "cudaMemGetInfo", h_mem_info, 0, 0, 0, 0 },
    { "cudaDeviceGetStreamPriorityRange", h_prio_range, 0, 0, 0, 0 },
    { "cudaDeviceGetPCIBusId", h_pci_bus_id, 0, 0, 0, 0 },
    { "cudaDeviceSetLimit", h_set_limit, 0, 0, 0, 0 },
    { "cudaDeviceGetLimit", h_get_limit, 0, 0, 0, 0 },
    { "cudaGetLastError", h_error, 0, 0, 0, 0 },
    { "cudaPeekAtLastError", h_error, 0, 0, 0, 0 },
    { "cudaStreamCreate", h_stream_create, 0, 0, 0, 0 },
    { "cudaStreamCreateWithFlags", h_stream_create, 0, 0, 0, 0 },
    { "cudaStreamCreateWithPriority", h_stream_create, 0, 0, 0, 0 },
    { "cudaStreamDestroy", h_stream_destroy, 0, 0, 0, 0 },
    { "cudaStreamSynchronize", h_stream, 0, 0, 0, 0 },
    { "cudaStreamSynchronize_ptsz", h_stream, 0, 0, 0, 0 },
    { "cudaStreamQuery", h_stream, 0, 0, 0, 0 },
    { "cudaStreamQuery_ptsz", h_stream, 0, 0, 0, 0 },
    { "cudaStreamGetFlags", h_stream_get, 0, 0, 0, 0 },
    { "cudaStreamGetFlags_ptsz", h_stream_get, 0, 0, 0, 0 },
    { "cudaStreamGetPriority", h_stream_get, 0, 0, 0, 0 },
    { "cudaStreamGetPriority_ptsz", h_stream_get, 0, 0, 0, 0 },
    { "cudaStreamGetDevice", h_stream_get, 0, 0, 0, 0 },
    { "cudaStreamGetDevice_ptsz", h_stream_get, 0, 0, 0, 0 },
    { "cudaStreamGetId", h_stream_get, 0, 0, 0, 0 },
    { "cudaStreamGetId_ptsz", h_stream_get, 0, 0, 0, 0 },
    { "cudaStreamIsCapturing", h_is_capturing, 0, 0, 0, 0 },
    { "cudaStreamIsCapturing_ptsz", h_is_capturing, 0, 0, 0, 0 },
    { "cudaStreamWaitEvent", h_wait_event, 0, 0, 0, 0 },
    { "cudaStreamWaitEvent_ptsz", h_wait_event, 0, 0, 0, 0 },
    { "cudaLaunchHostFunc", h_host_fn, 0, 0, 0, 0 },
    { "cudaLaunchHostFunc_ptsz", h_host_fn, 0, 0, 0, 0 },
    { "cudaStreamAddCallback", h_add_callback, 0, 0, 0, 0 },
    { "cudaStreamAddCallback_ptsz", h_add_callback, 0, 0, 0, 0 },
    { "cudaStreamAttachMemAsync", h_attach_mem, "devPtr", "length", 0, 0 },
    { "cudaStreamAttachMemAsync_ptsz", h_attach_mem, "devPtr", "length", 0,
      0 },
    { "cudaEventCreate", h_event_create, 0, 0, 0, 0 },
    { "cudaEventCreateWithFlags", h_event_create, 0, 0, 0, 0 },
    { "cudaEventRecord", h_event_record, 0, 0, 0, 0 },
    { "cudaEventRecord_ptsz", h_event_record, 0, 0, 0, 0 },
    { "cudaEventRecordWithFlags", h_event_record, 0, 0, 0, 0 },
    { "cudaEventRecordWithFlags_ptsz", h_event_record, 0, 0, 0, 0 },
    { "cudaEventQuery", h_event, 0, 0, 0, 0 },
    { "cudaEventSynchronize", h_event, 0, 0, 0, 0 },
    { "cudaEventDestroy", h_event_destroy, 0, 0, 0, 0 },
    { "cudaEventElapsedTime", h_elapsed, 0, 0, 0, 0 },
    { "cudaMalloc", rp_h_malloc, 0, 0, 0, 0 },
    { "cudaMallocHost", rp_h_malloc, 0, 0, 0, 0 },
    { "cudaHostAlloc", rp_h_malloc, 0, 0, 0, 0 },
    { "cudaMallocManaged", rp_h_malloc, 0, 0, 0, 0 },
    { "cudaMallocAsync", rp_h_malloc, 0, 0, 0, 0 },
    { "cudaMallocAsync_ptsz", rp_h_malloc, 0, 0, 0, 0 },
    { "cudaMallocFromPoolAsync", rp_h_malloc, 0, 0, 0, 0 },
    { "cudaMallocFromPoolAsync_ptsz", rp_h_malloc, 0, 0, 0, 0 },
    { "cudaFree", rp_h_free, 0, 0, 0, 0 },
    { "cudaFreeHost", rp_h_free, 0, 0, 0, 0 },
    { "cudaFreeAsync", rp_h_free, 0, 0, 0, 0 },
    { "cudaFreeAsync_ptsz", rp_h_free, 0, 0, 0, 0 },
    { "cudaHostRegister", h_host_register, "ptr", "size", 0, 0 },
    { "cudaHostUnregister", h_host_unregister, "ptr", NULL, 0, 0 },
    { "cudaHostGetDevicePointer", h_host_dev_ptr, "hostPtr", NULL, 0, 0 },
    { "cudaHostGetFlags", h_host_flags, "hostPtr", NULL, 0, 0 },
    { "cudaPointerGetAttributes", h_ptr_attr, "ptr", NULL, 0, 0 },
    { "cudaMemPrefetchAsync", h_prefetch, "devPtr", "count", 0, 0 },
    { "cudaMemPrefetchAsync_ptsz", h_prefetch, "devPtr", "count", 0, 0 },
    { "cudaMemAdvise", h_advise, "devPtr", "count", 0, 0 },
    { "cudaMemcpy", h_memcpy, "dst", "count", "src", "count" },
    { "cudaMemcpy_ptds", h_memcpy, "dst", "count", "src", "count" },
    { "cudaMemcpyAsync", h_memcpy, "dst", "count", "src", "count" },
    { "cudaMemcpyAsync_ptsz", h_memcpy, "dst", "count", "src", "count" },
    { "cudaMemcpyPeer", h_memcpy_peer, "dst", "count", "src", "count" },
    { "cudaMemcpyPeerAsync", h_memcpy_peer, "dst", "count", "src",
      "count" },
    { "cudaMemset", h_memset, "devPtr", "count", 0, 0 },
    { "cudaMemset_ptds", h_memset, "devPtr", "count", 0, 0 },
    { "cudaMemsetAsync", h_memset, "devPtr", "count", 0, 0 },
    { "cudaMemsetAsync_ptsz", h_memset, "devPtr", "count", 0, 0 },
    { "cudaDeviceGetDefaultMemPool", h_get_pool, 0, 0, 0, 0 },
    { "cudaDeviceGetMemPool", h_get_pool, 0, 0, 0, 0 },
    { "cudaDeviceSetMemPool", h_set_pool, 0, 0, 0, 0 },
    { "cudaMemPoolTrimTo", h_pool_trim, 0, 0, 0, 0 },
    { "cudaMemPoolDestroy", h_pool_destroy, 0, 0, 0, 0 },
};

#define RP_N_KINDS (sizeof(rp_kinds) / sizeof(rp_kinds[0]))

const struct rp_kind *rp_kind_find(const char *name)
{
    for (size_t i = 0; i < RP_N_KINDS; i++) {
        if (strcmp(rp_kinds[i].name, name) == 0) {
            return &rp_kinds[i];
        }
    }
    return NULL;
}

int replay_is_supported(const char *name)
{
    return rp_kind_find(name) != NULL;
}

