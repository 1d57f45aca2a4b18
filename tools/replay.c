/*
 * tools/replay.c - the child process of `p2psim replay`: one recorded
 * call after another through the CUDA shim, with pointers, streams,
 * events and pools mapped to the replay's own (replay.h has the design).
 *
 * Each call kind that is replayed has a handler in the table at the end:
 * it reads the recorded arguments, maps them, and calls the shim's
 * function of the recorded name (the _ptsz/_ptds twins share the handler
 * of the plain call). A handler that cannot map an argument still makes
 * the call with NULL, and the call's result says so.
 */
#include <config.h>

#include "tools/replay.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#include "cuda/include/cuda_runtime_api.h"
#include "common/osthread.h"

#define RP_PAGE 4096u

/* A recorded allocation and the replay's. */
struct rp_alloc {
    uint64_t old_base, size;
    char *new_base;
};

/* Pageable host memory the calls touched, and its stand-in. */
struct rp_range {
    uint64_t lo, hi;            /* [lo, hi) recorded addresses */
    char *new_lo;               /* stand-in of lo */
    void *map;                  /* the stand-in's mapping, map_len bytes */
    size_t map_len;
    unsigned line;              /* the first call that used it */
};

struct rp_handles {
    void **h;                   /* by recorded id, below max_id */
    size_t cap;
};

struct rp {
    void *lib;
    const struct replay_request *rq;
    /* The maps below, shared by the replay threads. */
    pthread_mutex_t lock;
    struct rp_alloc *allocs;    /* live, sorted by old_base */
    size_t n_allocs, cap_allocs;
    struct rp_range *ranges;    /* sorted, disjoint */
    size_t n_ranges, cap_ranges;
    struct rp_handles streams, events, pools;
    uint64_t max_id;            /* the largest handle id a trace can hold */
    uint64_t standin_bytes;     /* the stand-ins, page-rounded */
    FILE *map;
    unsigned mismatches, unmapped;
    /* Turns (several threads): calls start in recorded order. */
    pthread_mutex_t turn_lock;
    pthread_cond_t turn_cond;
    size_t started;             /* calls started so far */
    bool last_returned;         /* call started - 1 has returned */
    pid_t last_ostid;           /* the thread that started it */
    pthread_t last_th;
};

/* One recorded thread, replayed by a thread of its own. */
struct rp_thread {
    struct rp *r;
    int tid;                    /* recorded */
    size_t *idx;                /* its calls, indices into rq->calls */
    size_t n, cap;
    pthread_t th;
};

/* ---- allocations ---------------------------------------------------------- */

/* The live allocation holding old, or NULL. */
static struct rp_alloc *alloc_find(struct rp *r, uint64_t old)
{
    size_t lo = 0, hi = r->n_allocs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->allocs[mid].old_base <= old) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0) {
        return NULL;
    }
    struct rp_alloc *a = &r->allocs[lo - 1];
    uint64_t size = a->size ? a->size : 1;
    return old - a->old_base < size ? a : NULL;
}

/* The index of the first live allocation based at or above old. */
static size_t alloc_lower(const struct rp *r, uint64_t old)
{
    size_t lo = 0, hi = r->n_allocs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->allocs[mid].old_base < old) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Add (or replace) the allocation based at old; false when
 * REPLAY_MAX_ALLOCS are live already or memory is short. Cost: a
 * binary search and a move of the allocations above (at most
 * REPLAY_MAX_ALLOCS, which bounds a made-up trace's quadratic worst). */
static bool alloc_add(struct rp *r, uint64_t old, uint64_t size,
                      void *new_base)
{
    if (!old) {
        return true;
    }
    size_t i = alloc_lower(r, old);
    if (i < r->n_allocs && r->allocs[i].old_base == old) {
        r->allocs[i] = (struct rp_alloc){ old, size, new_base };
        return true;
    }
    if (r->n_allocs == REPLAY_MAX_ALLOCS) {
        return false;
    }
    if (r->n_allocs == r->cap_allocs) {
        size_t cap = r->cap_allocs ? 2 * r->cap_allocs : 64;
        struct rp_alloc *t = realloc(r->allocs, cap * sizeof(*t));
        if (!t) {
            return false;
        }
        r->allocs = t;
        r->cap_allocs = cap;
    }
    memmove(&r->allocs[i + 1], &r->allocs[i],
            (r->n_allocs - i) * sizeof(*r->allocs));
    r->allocs[i] = (struct rp_alloc){ old, size, new_base };
    r->n_allocs++;
    return true;
}

static void alloc_remove(struct rp *r, uint64_t old)
{
    size_t i = alloc_lower(r, old);
    if (i < r->n_allocs && r->allocs[i].old_base == old) {
        memmove(&r->allocs[i], &r->allocs[i + 1],
                (r->n_allocs - i - 1) * sizeof(*r->allocs));
        r->n_allocs--;
    }
}

/* ---- pageable stand-ins ------------------------------------------------------ */

/* A pageable range [lo, lo + len) (len 0: one byte); false if out of
 * memory. The caller checked that it does not wrap. */
static bool range_add(struct rp *r, uint64_t lo, uint64_t len, unsigned line)
{
    if (!lo) {
        return true;
    }
    if (r->n_ranges == r->cap_ranges) {
        size_t cap = r->cap_ranges ? 2 * r->cap_ranges : 64;
        struct rp_range *t = realloc(r->ranges, cap * sizeof(*t));
        if (!t) {
            return false;
        }
        r->ranges = t;
        r->cap_ranges = cap;
    }
    r->ranges[r->n_ranges++] = (struct rp_range){
        .lo = lo, .hi = lo + (len ? len : 1), .line = line
    };
    return true;
}

static int range_cmp(const void *a, const void *b)
{
    const struct rp_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * Merge overlapping ranges and sum what their stand-ins take (whole
 * pages). -1 with err when the sum passes the request's cap.
 */
static int ranges_merge(struct rp *r, char *err, size_t err_size)
{
    r->standin_bytes = 0;
    if (r->n_ranges == 0) {
        return 0;
    }
    qsort(r->ranges, r->n_ranges, sizeof(*r->ranges), range_cmp);
    size_t n = 0;
    for (size_t i = 0; i < r->n_ranges; i++) {
        if (n && r->ranges[i].lo <= r->ranges[n - 1].hi) {
            if (r->ranges[i].hi > r->ranges[n - 1].hi) {
                r->ranges[n - 1].hi = r->ranges[i].hi;
            }
            if (r->ranges[i].line < r->ranges[n - 1].line) {
                r->ranges[n - 1].line = r->ranges[i].line;
            }
        } else {
            r->ranges[n++] = r->ranges[i];
        }
    }
    r->n_ranges = n;
    for (size_t i = 0; i < n; i++) {
        struct rp_range *g = &r->ranges[i];
        /* hi - lo <= the cap (checked per range before), so no wrap. */
        uint64_t len = (g->lo % RP_PAGE + (g->hi - g->lo) + RP_PAGE - 1) /
                       RP_PAGE * RP_PAGE;
        g->map_len = (size_t)len;
        if (len > r->rq->host_memory - r->standin_bytes) {
            snprintf(err, err_size, "line %u: the pageable host memory the "
                     "calls use, %llu bytes with the %llu at 0x%llx, passes "
                     "--host-memory (%llu bytes)", g->line,
                     (unsigned long long)(r->standin_bytes + len),
                     (unsigned long long)(g->hi - g->lo),
                     (unsigned long long)g->lo,
                     (unsigned long long)r->rq->host_memory);
            return -1;
        }
        r->standin_bytes += len;
    }
    return 0;
}

/*
 * A stand-in for each merged range: anonymous memory, mapped without
 * reserving swap and not written here, so it costs only the pages the
 * replayed calls touch (as the program's own buffers did), not its size.
 */
static void ranges_allocate(struct rp *r)
{
    for (size_t i = 0; i < r->n_ranges; i++) {
        struct rp_range *g = &r->ranges[i];
        void *p = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            fprintf(stderr, "p2psim replay: cannot map %zu bytes for the "
                            "pageable host memory at 0x%llx (line %u): %s\n",
                    g->map_len, (unsigned long long)g->lo, g->line,
                    strerror(errno));
            _exit(1);
        }
        g->map = p;
        g->new_lo = (char *)p + g->lo % RP_PAGE;
    }
}

static struct rp_range *range_find(struct rp *r, uint64_t old)
{
    size_t lo = 0, hi = r->n_ranges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->ranges[mid].lo <= old) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0 || old >= r->ranges[lo - 1].hi) {
        return NULL;
    }
    return &r->ranges[lo - 1];
}

/* ---- mapping arguments -------------------------------------------------------- */

static int64_t arg(const struct trace_api_call *c, const char *key)
{
    char k[160];
    snprintf(k, sizeof(k), "args.%s", key);
    int64_t v = 0;
    trace_api_get_i64(c, k, &v);
    return v;
}

static uint64_t out_u64(const struct trace_api_call *c, const char *key)
{
    char k[160];
    snprintf(k, sizeof(k), "out.%s", key);
    uint64_t v = 0;
    trace_api_get_u64(c, k, &v);
    return v;
}

/* A recorded pointer argument, mapped. */
static void *ptr(struct rp *r, const struct trace_api_call *c,
                 const char *key)
{
    uint64_t old = (uint64_t)arg(c, key);
    if (!old) {
        return NULL;
    }
    void *p = NULL;
    pthread_mutex_lock(&r->lock);
    struct rp_alloc *a = alloc_find(r, old);
    struct rp_range *g = a ? NULL : range_find(r, old);
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

static struct rp_handles *handles(struct rp *r, char kind)
{
    return kind == 's' ? &r->streams : kind == 'e' ? &r->events : &r->pools;
}

static void *handle(struct rp *r, const struct trace_api_call *c,
                    const char *key, char kind)
{
    int64_t id = arg(c, key);
    if (kind == 's' && (id == -1 || id == -2)) {
        return (void *)(uintptr_t)-id;  /* cudaStreamLegacy, PerThread */
    }
    struct rp_handles *t = handles(r, kind);
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
    uint64_t id = out_u64(c, key);
    struct rp_handles *t = handles(r, kind);
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
    int64_t id = arg(c, key);
    struct rp_handles *t = handles(r, kind);
    pthread_mutex_lock(&r->lock);
    if (id > 0 && (size_t)id < t->cap) {
        t->h[id] = NULL;
    }
    pthread_mutex_unlock(&r->lock);
}

#define S(key) ((cudaStream_t)handle(r, c, key, 's'))
#define E(key) ((cudaEvent_t)handle(r, c, key, 'e'))
#define POOL(key) ((cudaMemPool_t)handle(r, c, key, 'p'))
#define P(key) ptr(r, c, key)
#define A(key) arg(c, key)
#define U(key) ((size_t)arg(c, key))
#define F(name) ((__typeof__(&name))fn)
#define OK(e) ((e) == cudaSuccess)

static struct cudaMemLocation memloc(const struct trace_api_call *c,
                                     const char *key)
{
    char k[128];
    struct cudaMemLocation l;
    snprintf(k, sizeof(k), "%s.type", key);
    l.type = (enum cudaMemLocationType)arg(c, k);
    snprintf(k, sizeof(k), "%s.id", key);
    l.id = (int)arg(c, k);
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

typedef int replay_fn(struct rp *r, const struct trace_api_call *c,
                      void *fn);

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

static int h_malloc(struct rp *r, const struct trace_api_call *c, void *fn)
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
        alloc_add(r, out_u64(c, out), U("size"), p);
        pthread_mutex_unlock(&r->lock);
    }
    return e;
}

static int h_free(struct rp *r, const struct trace_api_call *c, void *fn)
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
        alloc_remove(r, (uint64_t)A(key));
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

/*
 * What is replayed. extent: the pointer arguments that may be pageable
 * host memory and the argument giving their length (NULL: one byte), for
 * the stand-ins.
 */
struct rp_kind {
    const char *name;
    replay_fn *fn;
    const char *ptr1, *len1, *ptr2, *len2;
};

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
    { "cudaMalloc", h_malloc, 0, 0, 0, 0 },
    { "cudaMallocHost", h_malloc, 0, 0, 0, 0 },
    { "cudaHostAlloc", h_malloc, 0, 0, 0, 0 },
    { "cudaMallocManaged", h_malloc, 0, 0, 0, 0 },
    { "cudaMallocAsync", h_malloc, 0, 0, 0, 0 },
    { "cudaMallocAsync_ptsz", h_malloc, 0, 0, 0, 0 },
    { "cudaMallocFromPoolAsync", h_malloc, 0, 0, 0, 0 },
    { "cudaMallocFromPoolAsync_ptsz", h_malloc, 0, 0, 0, 0 },
    { "cudaFree", h_free, 0, 0, 0, 0 },
    { "cudaFreeHost", h_free, 0, 0, 0, 0 },
    { "cudaFreeAsync", h_free, 0, 0, 0, 0 },
    { "cudaFreeAsync_ptsz", h_free, 0, 0, 0, 0 },
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

static const struct rp_kind *kind_find(const char *name)
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
    return kind_find(name) != NULL;
}

/* ---- the two passes ------------------------------------------------------------- */

/* Whether a call made allocation (recorded out pointer, size). */
static bool made_alloc(const struct trace_api_call *c, uint64_t *base,
                       uint64_t *size)
{
    const struct rp_kind *k = kind_find(c->name);
    int64_t ret;
    if (!k || k->fn != h_malloc || !trace_api_ret_i64(c, &ret) || ret != 0) {
        return false;
    }
    *base = out_u64(c, "devPtr");
    if (!*base) {
        *base = out_u64(c, "ptr");
    }
    *size = 0;
    trace_api_get_u64(c, "args.size", size);
    return *base != 0;
}

static bool freed_alloc(const struct trace_api_call *c, uint64_t *base)
{
    const struct rp_kind *k = kind_find(c->name);
    int64_t ret;
    if (!k || k->fn != h_free || !trace_api_ret_i64(c, &ret) || ret != 0) {
        return false;
    }
    *base = (uint64_t)arg(c, strcmp(c->name, "cudaFreeHost") == 0
                                 ? "ptr"
                                 : "devPtr");
    return true;
}

/* The column of field key in c's line (1 when absent: the line). */
static unsigned col_of(const struct trace_api_call *c, const char *key)
{
    const struct trace_api_field *f = trace_api_find(c, key);
    return f ? f->col : 1;
}

#define CHECK_FAIL(...)                                                       \
    do {                                                                      \
        snprintf(err, err_size, __VA_ARGS__);                                 \
        return -1;                                                            \
    } while (0)

/*
 * A pointer argument and the bytes it spans: inside a recorded
 * allocation it must end inside it too (the program would have overrun
 * its buffer, and the replay's allocation is no larger); outside all of
 * them it is pageable memory, which gets a stand-in.
 */
static int note_extent(struct rp *r, const struct trace_api_call *c,
                       const char *pkey, const char *lkey, char *err,
                       size_t err_size)
{
    if (!pkey) {
        return 0;
    }
    char pk[64], lk[64];
    snprintf(pk, sizeof(pk), "args.%s", pkey);
    uint64_t p = 0, len = 1;
    const struct trace_api_field *pf = trace_api_find(c, pk);
    if (pf && pf->text && !trace_api_get_u64(c, pk, &p)) {
        CHECK_FAIL("line %u:%u: %s: %s is not a pointer (\"0x...\")",
                   c->line, col_of(c, pk), c->name, pk);
    }
    if (lkey) {
        snprintf(lk, sizeof(lk), "args.%s", lkey);
        if (!trace_api_get_u64(c, lk, &len)) {
            CHECK_FAIL("line %u:%u: %s: %s is not a size (an integer, 0 "
                       "or more)", c->line, col_of(c, lk), c->name, lk);
        }
    }
    if (!p) {
        return 0;
    }
    if (len > UINT64_MAX - p) {
        CHECK_FAIL("line %u:%u: %s: %llu bytes at 0x%llx pass the end of "
                   "the address space", c->line, col_of(c, pk), c->name,
                   (unsigned long long)len, (unsigned long long)p);
    }
    struct rp_alloc *a = alloc_find(r, p);
    if (a) {
        uint64_t off = p - a->old_base;
        /* A 0-byte allocation holds nothing: the replay's may be 0
         * bytes too, so no call may use its bytes. */
        if (len > a->size - (off < a->size ? off : a->size)) {
            CHECK_FAIL("line %u:%u: %s: %llu bytes at 0x%llx pass the end "
                       "of the allocation at 0x%llx (%llu bytes)", c->line,
                       col_of(c, pk), c->name, (unsigned long long)len,
                       (unsigned long long)p,
                       (unsigned long long)a->old_base,
                       (unsigned long long)a->size);
        }
        return 0;
    }
    if (len > r->rq->host_memory) {
        CHECK_FAIL("line %u:%u: %s: %llu bytes of pageable host memory at "
                   "0x%llx: more than --host-memory (%llu bytes), the most a "
                   "replay maps for it", c->line, col_of(c, pk), c->name,
                   (unsigned long long)len, (unsigned long long)p,
                   (unsigned long long)r->rq->host_memory);
    }
    if (!range_add(r, p, len, c->line)) {
        CHECK_FAIL("out of memory");
    }
    return 0;
}

/* A handle id a call hands back (out.KEY) must be one the trace can
 * hold: ids count handles in order of appearance, and no call introduces
 * more than two of a kind, so an id above 4 per call (plus 64) is made
 * up. It bounds the tables (8 bytes per id). */
static int check_ids(struct rp *r, const struct trace_api_call *c,
                     char *err, size_t err_size)
{
    static const char *const keys[] = { "out.stream", "out.event",
                                        "out.memPool" };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const struct trace_api_field *f = trace_api_find(c, keys[i]);
        uint64_t id;
        if (!f) {
            continue;
        }
        if (!trace_api_get_u64(c, keys[i], &id)) {
            CHECK_FAIL("line %u:%u: %s: %s is not an id (an integer)",
                       c->line, f->col, c->name, keys[i]);
        }
        if (id > r->max_id) {
            CHECK_FAIL("line %u:%u: %s: %s = %llu, more than a trace of "
                       "%zu calls can hold (%llu)", c->line, f->col, c->name,
                       keys[i],
                       (unsigned long long)id, r->rq->n_calls,
                       (unsigned long long)r->max_id);
        }
    }
    return 0;
}

/*
 * First pass: which pointers are pageable host memory. The recorded
 * allocations are followed as they come and go (with no replay
 * allocation behind them yet); a pointer outside all of them when used is
 * host memory the program owned. Checks what the trace says against its
 * caps (tools/replay.h); -1 with err at the first that fails.
 */
static int find_pageable(struct rp *r, char *err, size_t err_size)
{
    r->max_id = 4 * (uint64_t)r->rq->n_calls + 64;
    for (size_t i = 0; i < r->rq->n_calls; i++) {
        const struct trace_api_call *c = r->rq->calls[i];
        const struct rp_kind *k = kind_find(c->name);
        uint64_t base, size;
        if (!k) {
            continue;
        }
        if (check_ids(r, c, err, err_size) < 0) {
            return -1;
        }
        const struct trace_api_field *sf = trace_api_find(c, "args.size");
        if (k->fn == h_malloc && sf &&
            !trace_api_get_u64(c, "args.size", &size)) {
            CHECK_FAIL("line %u:%u: %s: args.size is not a size (an "
                       "integer, 0 or more)", c->line, sf->col, c->name);
        }
        if (made_alloc(c, &base, &size)) {
            if (size > UINT64_MAX - base) {
                CHECK_FAIL("line %u:%u: %s: %llu bytes at 0x%llx pass the "
                           "end of the address space", c->line,
                           col_of(c, "args.size"), c->name,
                           (unsigned long long)size,
                           (unsigned long long)base);
            }
            if (!alloc_add(r, base, size, NULL)) {
                CHECK_FAIL("line %u: %s: more than %d allocations live at "
                           "once", c->line, c->name, REPLAY_MAX_ALLOCS);
            }
        } else if (freed_alloc(c, &base)) {
            alloc_remove(r, base);
        } else if (note_extent(r, c, k->ptr1, k->len1, err, err_size) < 0 ||
                   note_extent(r, c, k->ptr2, k->len2, err, err_size) < 0) {
            return -1;
        }
    }
    r->n_allocs = 0;
    return ranges_merge(r, err, err_size);
}

/* The recorded threads, each replayed by a thread: at most
 * REPLAY_MAX_THREADS. */
static int check_threads(const struct replay_request *rq, char *err,
                         size_t err_size)
{
    int *tids = NULL;
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < rq->n_calls && rc == 0; i++) {
        int tid = rq->calls[i]->tid;
        size_t t = 0;
        while (t < n && tids[t] != tid) {
            t++;
        }
        if (t < n) {
            continue;
        }
        if (n == REPLAY_MAX_THREADS) {
            snprintf(err, err_size, "line %u: more than %d recorded "
                     "threads (a replay makes a thread for each)",
                     rq->calls[i]->line, REPLAY_MAX_THREADS);
            rc = -1;
            break;
        }
        if (n % 64 == 0) {
            int *g = realloc(tids, (n + 64) * sizeof(*g));
            if (!g) {
                snprintf(err, err_size, "out of memory");
                rc = -1;
                break;
            }
            tids = g;
        }
        tids[n++] = tid;
    }
    free(tids);
    return rc;
}

static void rp_release(struct rp *r)
{
    for (size_t i = 0; i < r->n_ranges; i++) {
        if (r->ranges[i].map) {
            munmap(r->ranges[i].map, r->ranges[i].map_len);
        }
    }
    free(r->ranges);
    free(r->allocs);
    free(r->streams.h);
    free(r->events.h);
    free(r->pools.h);
}

int replay_check(const struct replay_request *rq, char *err, size_t err_size)
{
    struct rp r;
    memset(&r, 0, sizeof(r));
    r.rq = rq;
    int rc = check_threads(rq, err, err_size);
    if (rc == 0) {
        rc = find_pageable(&r, err, err_size);
    }
    rp_release(&r);
    return rc;
}

/* Replay call i of rq (in the calling thread). */
static void replay_one(struct rp *r, size_t i)
{
    const struct trace_api_call *c = r->rq->calls[i];
    const struct rp_kind *k = kind_find(c->name);
    void *fn = k ? dlsym(r->lib, c->name) : NULL;
    if (!fn) {
        return;
    }
    /* The shim's trace will show this call under this thread. */
    fprintf(r->map, "%ld %zu\n", (long)syscall(SYS_gettid), i);
    fflush(r->map);
    int e = k->fn(r, c, fn);
    int64_t want;
    if (trace_api_ret_i64(c, &want) && want != e) {
        pthread_mutex_lock(&r->lock);
        if (++r->mismatches <= 10) {
            dprintf(r->rq->err_fd,
                    "p2psim replay: line %u: %s returned %d on the replay, "
                    "%lld when recorded\n",
                    c->line, c->name, e, (long long)want);
        }
        pthread_mutex_unlock(&r->lock);
    }
}

/* When call i was recorded, call i - 1 had not returned yet: it was
 * blocked (in a synchronization) while call i started. */
static bool overlapped(const struct rp *r, size_t i)
{
    const struct trace_api_call *a = r->rq->calls[i - 1], *b = r->rq->calls[i];
    return a->tid != b->tid && a->t1_ns > b->t0_ns;
}

/*
 * Wait for call i's turn: every earlier call has started, and the one
 * just before has returned, or, if it had not returned when call i was
 * recorded, is blocked now too (its thread asleep at two looks, without
 * using CPU time in between: waiting in the runtime).
 *
 * The runtime lets simulated time go on only while every thread between
 * calls is blocked (cuda/cudart/rt.c). So a thread waits asleep only while
 * the next call to start waits for a return, which may need the
 * simulation to run; otherwise its turn comes from the replay's own
 * progress, and it waits runnable (yielding), so that the simulation does
 * not run ahead of the calls about to be made. Nothing here reads the
 * wall clock: the replay's timeline does not depend on the machine's load.
 */
static void turn_wait(struct rp *r, size_t i)
{
    struct osthread_look look = { 0 };
    pthread_mutex_lock(&r->turn_lock);
    for (;;) {
        size_t next = r->started;
        if (next == i && (i == 0 || r->last_returned)) {
            break;
        }
        if (next == i && overlapped(r, i)) {
            if (osthread_asleep_twice(&look, r->last_ostid, r->last_th)) {
                break;
            }
        } else {
            look.seen = false;
        }
        if (next > 0 && !r->last_returned && !overlapped(r, next)) {
            pthread_cond_wait(&r->turn_cond, &r->turn_lock);
        } else {
            pthread_mutex_unlock(&r->turn_lock);
            sched_yield();
            pthread_mutex_lock(&r->turn_lock);
        }
    }
    r->started = i + 1;
    r->last_returned = false;
    r->last_ostid = osthread_self();
    r->last_th = pthread_self();
    pthread_cond_broadcast(&r->turn_cond);
    pthread_mutex_unlock(&r->turn_lock);
}

static void turn_done(struct rp *r, size_t i)
{
    pthread_mutex_lock(&r->turn_lock);
    if (r->started == i + 1) {
        r->last_returned = true;
    }
    pthread_cond_broadcast(&r->turn_cond);
    pthread_mutex_unlock(&r->turn_lock);
}

static void *thread_main(void *arg)
{
    struct rp_thread *t = arg;
    for (size_t k = 0; k < t->n; k++) {
        turn_wait(t->r, t->idx[k]);
        replay_one(t->r, t->idx[k]);
        turn_done(t->r, t->idx[k]);
    }
    return NULL;
}

/*
 * A trace of one thread is replayed in this thread, call after call. One
 * of several threads gets a thread per recorded thread, each making its
 * calls when their turn comes (turn_wait), so that each has its own
 * simulated clock and host-side costs overlap as they did.
 */
static void replay_all(struct rp *r)
{
    struct rp_thread *th = NULL;
    size_t n_th = 0;
    for (size_t i = 0; i < r->rq->n_calls; i++) {
        int tid = r->rq->calls[i]->tid;
        size_t t = 0;
        while (t < n_th && th[t].tid != tid) {
            t++;
        }
        if (t == n_th) {
            struct rp_thread *n = realloc(th, (n_th + 1) * sizeof(*n));
            if (!n) {
                break;
            }
            th = n;
            memset(&th[n_th], 0, sizeof(th[n_th]));
            th[n_th].r = r;
            th[n_th].tid = tid;
            n_th++;
        }
        if (th[t].n == th[t].cap) {
            size_t cap = th[t].cap ? 2 * th[t].cap : 256;
            size_t *v = realloc(th[t].idx, cap * sizeof(*v));
            if (!v) {
                break;
            }
            th[t].idx = v;
            th[t].cap = cap;
        }
        th[t].idx[th[t].n++] = i;
    }
    if (n_th <= 1) {
        for (size_t i = 0; i < r->rq->n_calls; i++) {
            replay_one(r, i);
        }
    } else {
        for (size_t t = 0; t < n_th; t++) {
            if (pthread_create(&th[t].th, NULL, thread_main, &th[t]) != 0) {
                fprintf(stderr, "p2psim replay: cannot start a thread\n");
                _exit(1);
            }
        }
        for (size_t t = 0; t < n_th; t++) {
            pthread_join(th[t].th, NULL);
        }
    }
    for (size_t t = 0; t < n_th; t++) {
        free(th[t].idx);
    }
    free(th);
}

static void set_env(const char *var, const char *value)
{
    if (value) {
        setenv(var, value, 1);
    } else {
        unsetenv(var);
    }
}

void replay_child(const struct replay_request *rq)
{
    static struct rp r;
    memset(&r, 0, sizeof(r));
    r.rq = rq;
    pthread_mutex_init(&r.lock, NULL);
    pthread_mutex_init(&r.turn_lock, NULL);
    pthread_cond_init(&r.turn_cond, NULL);
    /* The shim reads these at its first call (cuda/cudart/rt.c). */
    set_env("P2PSIM_TOPOLOGY", rq->machine);
    set_env("P2PSIM_RECORD", rq->record);
    set_env("P2PSIM_BACKEND", NULL);
    set_env("P2PSIM_SERVER", NULL);
    set_env("P2PSIM_REPORT", NULL);
    set_env("P2PSIM_STATS", NULL);
    set_env("P2PSIM_TRACE", NULL);
    r.map = fopen(rq->map, "w");
    if (!r.map) {
        perror(rq->map);
        _exit(1);
    }
    r.lib = dlopen(rq->cudart, RTLD_NOW | RTLD_LOCAL);
    if (!r.lib) {
        fprintf(stderr, "p2psim replay: cannot load %s: %s\n", rq->cudart,
                dlerror());
        _exit(1);
    }
    char err[400];
    if (find_pageable(&r, err, sizeof(err)) < 0) {
        /* replay_check said so first: not reached for a checked trace. */
        fprintf(stderr, "p2psim replay: %s\n", err);
        _exit(1);
    }
    ranges_allocate(&r);
    replay_all(&r);
    if (r.unmapped) {
        dprintf(rq->err_fd, "p2psim replay: %u argument(s) named a pointer "
                            "or handle the replay could not map (passed as "
                            "NULL)\n", r.unmapped);
    }
    fclose(r.map);
    fflush(stdout);
    /* exit, not _exit: the shim's atexit handlers end its trace cleanly. */
    exit(0);
}
