/*
 * cuda/cudart/graph_capture.c - stream capture: cudaStreamBeginCapture
 * (and ToGraph), EndCapture, GetCaptureInfo, UpdateCaptureDependencies,
 * IsCapturing's answer, cudaThreadExchangeStreamCaptureMode, and the
 * hooks (rt_capture_*) that the calls queueing stream work ask first.
 *
 * A capturing stream holds its frontier: the nodes the next captured
 * work depends on. Each captured call adds one node after the frontier
 * and becomes the frontier. cudaEventRecord on a capturing stream marks
 * the event with the frontier (no node); cudaStreamWaitEvent on such an
 * event joins the waiting stream into the capture (a stream not yet
 * capturing starts capturing into the same graph: the fork) or adds the
 * event's nodes to its frontier (the join). EndCapture on the stream that
 * began it ends the capture of every stream that joined; a node made in
 * the capture that nothing follows must be in the origin's frontier, else
 * cudaErrorStreamCaptureUnjoined.
 *
 * What a capture refuses (CUDA's rules, as far as modelled): work on a
 * capturing stream that no hook turns into a node (it reaches the
 * queue: rt_capture_enqueue) and synchronizing a capturing stream
 * invalidate the capture with cudaErrorStreamCaptureUnsupported; work on
 * the legacy stream of a device where a blocking stream captures, with
 * cudaErrorStreamCaptureImplicit; cudaDeviceSynchronize (and what waits
 * like it) while a capture in global mode (or this thread's in
 * thread-local mode) is under way, unless this thread's mode is relaxed,
 * with cudaErrorStreamCaptureUnsupported. An invalidated capture answers
 * further captured calls with cudaErrorStreamCaptureInvalidated, and
 * EndCapture too, returning no graph.
 */
#include <config.h>

#include "cuda/cudart/graph_int.h"

#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/launch_int.h"
#include "cuda/cudart/stream_int.h"

struct graph_capture {
    cudaGraph_t g;
    enum cudaStreamCaptureMode mode;
    unsigned long long id;
    bool invalid;
    bool to_graph;              /* the program's graph (BeginCaptureToGraph) */
    unsigned first_id;          /* nodes made by this capture: id >= it */
    struct rt_thread *thread;
    struct rt_stream *origin;
    struct graph_capture *next;
};

struct graph_cap_stream {
    struct graph_capture *c;
    cudaGraphNode_t *deps;
    size_t n, cap;
    cudaGraphEdgeData *edata;   /* zeroed, for GetCaptureInfo */
};

/* An event recorded in a capture: the frontier then. */
struct cap_event {
    struct CUevent_st *ev;
    struct rt_fence *f;         /* ev->f then: a later record outside
                                   capture changes it */
    struct graph_capture *c;
    cudaGraphNode_t *deps;
    size_t n;
    struct cap_event *next;
};

static struct graph_capture *captures;  /* active ones */
static struct cap_event *cap_events;
static unsigned long long next_capture_id = 1;
static __thread enum cudaStreamCaptureMode thread_mode;

bool graph_capturing(const struct rt_stream *s)
{
    return s && s->capture;
}

void graph_capture_invalidate(struct rt_stream *s)
{
    if (s && s->capture) {
        s->capture->c->invalid = true;
    }
}

/* Room for n nodes in cs's frontier. */
static cudaError_t frontier_reserve(struct graph_cap_stream *cs, size_t n)
{
    if (n <= cs->cap) {
        return cudaSuccess;
    }
    size_t cap = cs->cap ? cs->cap * 2 : 4;
    while (cap < n) {
        cap *= 2;
    }
    void *p = realloc(cs->deps, cap * sizeof(*cs->deps));
    if (p) {
        cs->deps = p;
    }
    void *q = p ? realloc(cs->edata, cap * sizeof(*cs->edata)) : NULL;
    if (!q) {
        return cudaErrorMemoryAllocation;
    }
    cs->edata = q;
    cs->cap = cap;
    return cudaSuccess;
}

static cudaError_t frontier_set(struct graph_cap_stream *cs,
                                const cudaGraphNode_t *v, size_t n)
{
    if (frontier_reserve(cs, n)) {
        return cudaErrorMemoryAllocation;
    }
    memmove(cs->deps, v, n * sizeof(*v));
    memset(cs->edata, 0, n * sizeof(*cs->edata));
    cs->n = n;
    return cudaSuccess;
}

static cudaError_t frontier_add(struct graph_cap_stream *cs,
                                const cudaGraphNode_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < cs->n && !seen; j++) {
            seen = cs->deps[j] == v[i];
        }
        if (!seen) {
            if (frontier_reserve(cs, cs->n + 1)) {
                return cudaErrorMemoryAllocation;
            }
            memset(&cs->edata[cs->n], 0, sizeof(*cs->edata));
            cs->deps[cs->n++] = v[i];
        }
    }
    return cudaSuccess;
}

static cudaError_t stream_join(struct rt_stream *s, struct graph_capture *c)
{
    struct graph_cap_stream *cs = calloc(1, sizeof(*cs));
    if (!cs) {
        return cudaErrorMemoryAllocation;
    }
    cs->c = c;
    s->capture = cs;
    return cudaSuccess;
}

static void stream_leave(struct rt_stream *s)
{
    struct graph_cap_stream *cs = s->capture;
    s->capture = NULL;
    free(cs->deps);
    free(cs->edata);
    free(cs);
}

cudaError_t graph_capture_node(struct rt_stream *s,
                               enum cudaGraphNodeType type,
                               cudaError_t (*fill)(cudaGraphNode_t n,
                                                   const void *arg),
                               const void *arg)
{
    struct graph_cap_stream *cs = s->capture;
    if (cs->c->invalid) {
        return cudaErrorStreamCaptureInvalidated;
    }
    cudaGraphNode_t n;
    cudaError_t e = graph_add(cs->c->g, type, cs->deps, cs->n, &n);
    if (e) {
        return e;
    }
    n->dev = s->dev;
    if (fill && (e = fill(n, arg)) != cudaSuccess) {
        graph_node_destroy(n);
        return e;
    }
    return frontier_set(cs, &n, 1);
}

static cudaError_t fill_child(cudaGraphNode_t n, const void *arg)
{
    n->u.child = graph_clone((cudaGraph_t)arg);
    return n->u.child ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t graph_capture_child(struct rt_stream *s, cudaGraph_t g)
{
    return graph_capture_node(s, cudaGraphNodeTypeGraph, fill_child, g);
}

/* ---- the hooks ----------------------------------------------------------------- */

/* The capturing stream h names, or NULL (no capture under way: fast). */
static struct rt_stream *capturing(cudaStream_t h)
{
    if (!captures) {
        return NULL;
    }
    struct rt_stream *s = rt_stream_resolve(h, -1);
    return graph_capturing(s) ? s : NULL;
}

static cudaError_t fill_kernel(cudaGraphNode_t n, const void *arg)
{
    return graph_kernel_set(&n->u.k, arg);
}

bool rt_capture_kernel(const void *key, bool by_stub, dim3 grid, dim3 block,
                       size_t smem, void **args, cudaStream_t h,
                       bool per_thread, cudaError_t *e)
{
    struct rt_stream *s = capturing(per_thread && !h ? cudaStreamPerThread : h);
    if (!s) {
        return false;
    }
    const void *stub = key;
    if (!by_stub) {
        pthread_mutex_lock(&reg_lock);
        struct CUkern_st *k = reg_kernel_of_handle((cudaKernel_t)key);
        stub = k ? k->stub : NULL;
        pthread_mutex_unlock(&reg_lock);
    }
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z) {
        *e = cudaErrorInvalidConfiguration;
        return true;
    }
    struct cudaKernelNodeParams p = {
        .func = (void *)stub, .gridDim = grid, .blockDim = block,
        .sharedMemBytes = (unsigned)smem, .kernelParams = args,
    };
    *e = stub ? graph_capture_node(s, cudaGraphNodeTypeKernel, fill_kernel, &p)
              : cudaErrorInvalidDeviceFunction;
    return true;
}

static cudaError_t fill_copy(cudaGraphNode_t n, const void *arg)
{
    n->u.copy = *(const struct cudaMemcpy3DParms *)arg;
    return graph_copy_check(arg);
}

bool rt_capture_copy(void *dst, const void *src, size_t count,
                     enum cudaMemcpyKind kind, cudaStream_t h, cudaError_t *e)
{
    struct rt_stream *s = capturing(h);
    if (!s) {
        return false;
    }
    if (!count) {
        *e = cudaSuccess;
        return true;
    }
    struct cudaMemcpy3DParms p = graph_copy_1d(dst, src, count, kind);
    *e = graph_capture_node(s, cudaGraphNodeTypeMemcpy, fill_copy, &p);
    return true;
}

static cudaError_t fill_set(cudaGraphNode_t n, const void *arg)
{
    n->u.set = *(const struct cudaMemsetParams *)arg;
    return graph_set_check(arg);
}

bool rt_capture_memset(void *dst, int value, size_t count, cudaStream_t h,
                       cudaError_t *e)
{
    struct rt_stream *s = capturing(h);
    if (!s) {
        return false;
    }
    if (!count) {
        *e = cudaSuccess;
        return true;
    }
    struct cudaMemsetParams p = {
        .dst = dst, .pitch = count, .value = (unsigned)value & 0xff,
        .elementSize = 1, .width = count, .height = 1,
    };
    *e = graph_capture_node(s, cudaGraphNodeTypeMemset, fill_set, &p);
    return true;
}

static cudaError_t fill_host(cudaGraphNode_t n, const void *arg)
{
    n->u.host = *(const struct cudaHostNodeParams *)arg;
    return cudaSuccess;
}

bool rt_capture_host(cudaHostFn_t fn, void *data, cudaStream_t h,
                     cudaError_t *e)
{
    struct rt_stream *s = capturing(h);
    if (!s) {
        return false;
    }
    struct cudaHostNodeParams p = { fn, data };
    *e = fn ? graph_capture_node(s, cudaGraphNodeTypeHost, fill_host, &p)
            : cudaErrorInvalidValue;
    return true;
}

struct alloc_arg {
    int dev;
    size_t size;
};

static cudaError_t fill_alloc(cudaGraphNode_t n, const void *arg)
{
    const struct alloc_arg *a = arg;
    cudaError_t e = graph_mem_new(a->dev, a->size, &n->u.alloc.mem);
    if (!e) {
        struct cudaMemAllocNodeParams *p = &n->u.alloc.params;
        p->poolProps.allocType = cudaMemAllocationTypePinned;
        p->poolProps.location.type = cudaMemLocationTypeDevice;
        p->poolProps.location.id = a->dev;
        p->bytesize = a->size;
        p->dptr = n->u.alloc.mem->dptr;
    }
    return e;
}

bool rt_capture_malloc(void **ptr, size_t size, cudaMemPool_t pool,
                       cudaStream_t h, cudaError_t *e)
{
    struct rt_stream *s = capturing(h);
    if (!s) {
        return false;
    }
    if (!ptr || !size) {
        *e = cudaErrorInvalidValue;
        return true;
    }
    (void)pool;     /* graph memory comes from the graph's own pool */
    struct alloc_arg a = { s->dev, size };
    *e = graph_capture_node(s, cudaGraphNodeTypeMemAlloc, fill_alloc, &a);
    if (!*e) {
        *ptr = s->capture->deps[0]->u.alloc.mem->dptr;
    }
    return true;
}

static cudaError_t fill_free(cudaGraphNode_t n, const void *arg)
{
    n->u.free_ptr = (void *)arg;
    return cudaSuccess;
}

bool rt_capture_free(void *ptr, cudaStream_t h, cudaError_t *e)
{
    struct rt_stream *s = capturing(h);
    if (!s) {
        return false;
    }
    int dev;
    *e = !graph_mem_freeable(ptr, &dev)
             ? cudaErrorInvalidValue
             : graph_capture_node(s, cudaGraphNodeTypeMemFree, fill_free, ptr);
    return true;
}

static struct cap_event *event_entry(struct CUevent_st *ev)
{
    for (struct cap_event *x = cap_events; x; x = x->next) {
        if (x->ev == ev) {
            return x;
        }
    }
    return NULL;
}

bool rt_capture_event(struct CUevent_st *ev, cudaStream_t h, bool wait,
                      cudaError_t *e)
{
    if (!captures) {
        return false;
    }
    struct rt_stream *s = rt_stream_resolve(h, wait ? -1 : ev->dev);
    struct cap_event *x = event_entry(ev);
    if (x && x->f != ev->f) {
        x = NULL;               /* recorded outside a capture since */
    }
    if (!wait) {
        if (!graph_capturing(s)) {
            return false;
        }
        struct graph_cap_stream *cs = s->capture;
        if (!x && !(x = calloc(1, sizeof(*x)))) {
            *e = cudaErrorMemoryAllocation;
            return true;
        }
        if (!event_entry(ev)) {
            x->next = cap_events;
            cap_events = x;
        }
        cudaGraphNode_t *v = malloc((cs->n ? cs->n : 1) * sizeof(*v));
        if (!v) {
            *e = cudaErrorMemoryAllocation;
            return true;
        }
        if (cs->n) {
            memcpy(v, cs->deps, cs->n * sizeof(*v));
        }
        free(x->deps);
        x->ev = ev;
        x->f = ev->f;
        x->c = cs->c;
        x->deps = v;
        x->n = cs->n;
        *e = cs->c->invalid ? cudaErrorStreamCaptureInvalidated : cudaSuccess;
        return true;
    }
    if (!s || (!x && !graph_capturing(s))) {
        return false;
    }
    if (!x) {
        /* An event of work outside the capture: nothing to join. */
        *e = cudaSuccess;
        return true;
    }
    if (!graph_capturing(s)) {
        *e = stream_join(s, x->c);  /* the fork */
    } else if (s->capture->c != x->c) {
        *e = cudaErrorStreamCaptureIsolation;
        return true;
    } else {
        *e = cudaSuccess;
    }
    if (!*e) {
        *e = frontier_add(s->capture, x->deps, x->n);
    }
    return true;
}

/* The calling thread may not make unsafe calls now (see the header). */
static struct graph_capture *unsafe_capture(void)
{
    if (thread_mode == cudaStreamCaptureModeRelaxed) {
        return NULL;
    }
    struct rt_thread *self = rt_self();
    for (struct graph_capture *c = captures; c; c = c->next) {
        if (c->mode == cudaStreamCaptureModeGlobal ||
            (c->mode == cudaStreamCaptureModeThreadLocal &&
             c->thread == self)) {
            return c;
        }
    }
    return NULL;
}

cudaError_t rt_capture_check_sync(struct rt_stream *s)
{
    if (!captures) {
        return cudaSuccess;
    }
    if (s && graph_capturing(s)) {
        graph_capture_invalidate(s);
        return cudaErrorStreamCaptureUnsupported;
    }
    struct graph_capture *c = s ? NULL : unsafe_capture();
    if (c) {
        c->invalid = true;
        return cudaErrorStreamCaptureUnsupported;
    }
    return cudaSuccess;
}

cudaError_t rt_capture_enqueue(struct rt_stream *s)
{
    if (!captures) {
        return cudaSuccess;
    }
    if (graph_capturing(s)) {
        graph_capture_invalidate(s);
        return cudaErrorStreamCaptureUnsupported;
    }
    if (s->legacy) {
        for (struct rt_stream *o = rt.streams; o; o = o->next) {
            if (o->dev == s->dev && graph_capturing(o) &&
                !(o->flags & cudaStreamNonBlocking)) {
                graph_capture_invalidate(o);
                return cudaErrorStreamCaptureImplicit;
            }
        }
    }
    return cudaSuccess;
}

/* ---- the calls --------------------------------------------------------------- */

static cudaError_t begin(cudaStream_t h, cudaGraph_t g,
                         const cudaGraphNode_t *deps,
                         const cudaGraphEdgeData *ed, size_t n,
                         enum cudaStreamCaptureMode mode)
{
    struct rt_stream *s;
    cudaError_t e = stream_lookup(h, &s);
    if (e) {
        return e;
    }
    if ((unsigned)mode > cudaStreamCaptureModeRelaxed) {
        return cudaErrorInvalidValue;
    }
    if (s->legacy) {
        return cudaErrorStreamCaptureUnsupported;
    }
    if (graph_capturing(s)) {
        return cudaErrorIllegalState;
    }
    if (g && (!graph_valid(g) || g->capturing)) {
        return cudaErrorInvalidValue;
    }
    static const cudaGraphEdgeData zero;
    for (size_t i = 0; i < n; i++) {
        if (!deps || !graph_node_valid(deps[i]) || deps[i]->graph != g ||
            (ed && memcmp(&ed[i], &zero, sizeof(zero)))) {
            return cudaErrorInvalidValue;
        }
    }
    struct graph_capture *c = calloc(1, sizeof(*c));
    if (!c) {
        return cudaErrorMemoryAllocation;
    }
    c->to_graph = g != NULL;
    c->g = g ? g : graph_new();
    if (!c->g || stream_join(s, c) ||
        (n && frontier_set(s->capture, deps, n))) {
        if (s->capture) {
            stream_leave(s);
        }
        if (!g && c->g) {
            graph_free(c->g);
        }
        free(c);
        return cudaErrorMemoryAllocation;
    }
    c->g->capturing = true;
    c->mode = mode;
    c->id = next_capture_id++;
    c->first_id = c->g->next_id;
    c->thread = rt_self();
    c->origin = s;
    c->next = captures;
    captures = c;
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
                                   enum cudaStreamCaptureMode mode)
{
    SERVE(begin(stream, NULL, NULL, NULL, 0, mode));
}

cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                        enum cudaStreamCaptureMode mode)
{
    return cudaStreamBeginCapture(stream ? stream : cudaStreamPerThread, mode);
}

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream,
                                          cudaGraph_t graph,
                                          const cudaGraphNode_t *dependencies,
                                          const cudaGraphEdgeData *dependencyData,
                                          size_t numDependencies,
                                          enum cudaStreamCaptureMode mode)
{
    if (!graph) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    SERVE(begin(stream, graph, dependencies, dependencyData, numDependencies,
                mode));
}

cudaError_t cudaStreamBeginCaptureToGraph_ptsz(
    cudaStream_t stream, cudaGraph_t graph,
    const cudaGraphNode_t *dependencies,
    const cudaGraphEdgeData *dependencyData, size_t numDependencies,
    enum cudaStreamCaptureMode mode)
{
    return cudaStreamBeginCaptureToGraph(stream ? stream : cudaStreamPerThread,
                                         graph, dependencies, dependencyData,
                                         numDependencies, mode);
}

/* Whether every node c made that nothing follows is in the origin's
 * frontier. */
static bool all_joined(struct graph_capture *c)
{
    struct graph_cap_stream *cs = c->origin->capture;
    for (size_t i = 0; i < c->g->n_nodes; i++) {
        cudaGraphNode_t n = c->g->nodes[i];
        if (n->id < c->first_id || n->n_outs) {
            continue;
        }
        bool in = false;
        for (size_t j = 0; j < cs->n && !in; j++) {
            in = cs->deps[j] == n;
        }
        if (!in) {
            return false;
        }
    }
    return true;
}

static cudaError_t end(cudaStream_t h, cudaGraph_t *pg)
{
    struct rt_stream *s;
    cudaError_t e = stream_lookup(h, &s);
    if (e) {
        return e;
    }
    if (!graph_capturing(s)) {
        return pg ? cudaErrorIllegalState : cudaErrorInvalidValue;
    }
    struct graph_capture *c = s->capture->c;
    if (!pg && !c->to_graph) {
        /* NULL only where the program has the graph already (ToGraph) */
        return cudaErrorInvalidValue;
    }
    if (c->origin != s) {
        return cudaErrorStreamCaptureUnmatched;
    }
    if (c->mode == cudaStreamCaptureModeThreadLocal && c->thread != rt_self()) {
        return cudaErrorStreamCaptureWrongThread;
    }
    if (!c->invalid && !all_joined(c)) {
        e = cudaErrorStreamCaptureUnjoined;
        c->invalid = true;
    }
    for (struct rt_stream *o = rt.streams; o; o = o->next) {
        if (o->capture && o->capture->c == c) {
            stream_leave(o);
        }
    }
    for (struct cap_event **pp = &cap_events; *pp;) {
        struct cap_event *x = *pp;
        if (x->c == c) {
            *pp = x->next;
            free(x->deps);
            free(x);
        } else {
            pp = &x->next;
        }
    }
    for (struct graph_capture **pp = &captures; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    c->g->capturing = false;
    if (c->invalid) {
        if (!c->to_graph) {
            graph_free(c->g);
        }
        if (pg) {
            *pg = NULL;
        }
        e = e ? e : cudaErrorStreamCaptureInvalidated;
    } else if (pg) {
        *pg = c->g;
    }
    free(c);
    return e;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    SERVE(end(stream, pGraph));
}

cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
{
    return cudaStreamEndCapture(stream ? stream : cudaStreamPerThread, pGraph);
}

cudaError_t rt_capture_status(struct rt_stream *s,
                              enum cudaStreamCaptureStatus *st)
{
    if (!graph_capturing(s)) {
        *st = cudaStreamCaptureStatusNone;
    } else {
        *st = s->capture->c->invalid ? cudaStreamCaptureStatusInvalidated
                                     : cudaStreamCaptureStatusActive;
    }
    return cudaSuccess;
}

static cudaError_t get_info(cudaStream_t h, enum cudaStreamCaptureStatus *st,
                            unsigned long long *id, cudaGraph_t *g,
                            const cudaGraphNode_t **deps,
                            const cudaGraphEdgeData **ed, size_t *n)
{
    struct rt_stream *s;
    cudaError_t e = stream_lookup(h, &s);
    if (e) {
        return e;
    }
    if (!st || (deps && !n) || (ed && !deps)) {
        return cudaErrorInvalidValue;
    }
    rt_capture_status(s, st);
    if (*st == cudaStreamCaptureStatusNone) {
        return cudaSuccess;
    }
    struct graph_cap_stream *cs = s->capture;
    if (id) {
        *id = cs->c->id;
    }
    if (g) {
        *g = cs->c->g;
    }
    if (deps) {
        *deps = cs->n ? cs->deps : NULL;
    }
    if (ed) {
        *ed = cs->n ? cs->edata : NULL;
    }
    if (n) {
        *n = cs->n;
    }
    return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out,
                                     cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out)
{
    SERVE(get_info(stream, captureStatus_out, id_out, graph_out,
                   dependencies_out, edgeData_out, numDependencies_out));
}

cudaError_t cudaStreamGetCaptureInfo_ptsz(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out, cudaGraph_t *graph_out,
    const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    return cudaStreamGetCaptureInfo(stream ? stream : cudaStreamPerThread,
                                    captureStatus_out, id_out, graph_out,
                                    dependencies_out, edgeData_out,
                                    numDependencies_out);
}

static cudaError_t update_deps(cudaStream_t h, cudaGraphNode_t *deps,
                               const cudaGraphEdgeData *ed, size_t n,
                               unsigned flags)
{
    struct rt_stream *s;
    cudaError_t e = stream_lookup(h, &s);
    if (e) {
        return e;
    }
    if (flags > cudaStreamSetCaptureDependencies || (n && !deps)) {
        return cudaErrorInvalidValue;
    }
    if (!graph_capturing(s)) {
        return cudaErrorIllegalState;
    }
    struct graph_cap_stream *cs = s->capture;
    if (cs->c->invalid) {
        return cudaErrorStreamCaptureInvalidated;
    }
    static const cudaGraphEdgeData zero;
    for (size_t i = 0; i < n; i++) {
        if (!graph_node_valid(deps[i]) || deps[i]->graph != cs->c->g ||
            (ed && memcmp(&ed[i], &zero, sizeof(zero)))) {
            return cudaErrorInvalidValue;
        }
    }
    return flags == cudaStreamSetCaptureDependencies
               ? frontier_set(cs, deps, n)
               : frontier_add(cs, deps, n);
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                cudaGraphNode_t *dependencies,
                                                const cudaGraphEdgeData *dependencyData,
                                                size_t numDependencies,
                                                unsigned int flags)
{
    SERVE(update_deps(stream, dependencies, dependencyData, numDependencies,
                      flags));
}

cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(
    cudaStream_t stream, cudaGraphNode_t *dependencies,
    const cudaGraphEdgeData *dependencyData, size_t numDependencies,
    unsigned int flags)
{
    return cudaStreamUpdateCaptureDependencies(
        stream ? stream : cudaStreamPerThread, dependencies, dependencyData,
        numDependencies, flags);
}

cudaError_t rt_capture_exchange_mode(enum cudaStreamCaptureMode *mode)
{
    if (!mode || (unsigned)*mode > cudaStreamCaptureModeRelaxed) {
        return cudaErrorInvalidValue;
    }
    enum cudaStreamCaptureMode old = thread_mode;
    thread_mode = *mode;
    *mode = old;
    return cudaSuccess;
}

/* A stream is destroyed while it captures: it leaves the capture, which
 * is invalidated if it began there (a forked stream may go once its work
 * is joined, as CUDA allows). */
void rt_capture_stream_gone(struct rt_stream *s)
{
    if (graph_capturing(s)) {
        struct graph_capture *c = s->capture->c;
        if (c->origin == s) {
            c->invalid = true;
            c->origin = NULL;
        }
        stream_leave(s);
    }
}
