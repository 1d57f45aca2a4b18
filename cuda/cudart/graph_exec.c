/*
 * cuda/cudart/graph_exec.c - executable graphs: instantiate, launch,
 * upload, update, the per-node setters of an executable graph, destroy.
 *
 * Instantiation copies the graph (later changes to it do not reach the
 * executable graph, as in CUDA), flattens child graphs into their
 * parent, and plans the launch: the nodes in dependency order, each on a
 * chain. A node goes on the chain of a dependency that is that chain's
 * last node (the first such), else on a chain of its own; a dependency
 * on another chain becomes an event the chain waits for. So a linear
 * graph is one chain, and independent branches are separate chains.
 *
 * A launch queues the plan's work as a program would queue it: each chain
 * is a non-blocking stream of the executable graph, each node's work is
 * the runtime's own call (cudaLaunchKernel, cudaMemcpyAsync,
 * cudaMemsetAsync, cudaLaunchHostFunc, cudaEventRecord,
 * cudaStreamWaitEvent, cudaFreeAsync) on its chain's stream, the roots
 * wait for an event recorded on the launch stream, and the launch stream
 * waits for the chains' ends. The simulated GPU therefore runs a graph
 * exactly as it runs the same work queued on streams (same start rules,
 * same copy-engine queues, independent branches overlapping as on
 * separate streams). What differs is the host: the whole launch costs the
 * calling thread one kernel launch's host time (RT_COST_LAUNCH), however
 * many nodes it has, and every node is handed to the GPU at that time
 * (each kernel's doorbell is the launch's end), where queued one by one
 * each call would cost its own.
 *
 * Limits: a free node releases nothing (the memory stays until the program
 * frees it), because the work of a later launch, queued before it runs,
 * holds the allocation; a copy from pageable host memory reads the program's bytes
 * when the graph is launched (as cudaMemcpyAsync does when called), not
 * when the node runs; nodes of a child graph cannot be set through the
 * executable graph.
 */
#include <config.h>

#include "cuda/cudart/graph_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/stream_int.h"
#include "cuda/cudart/memory.h"

struct plan_node {
    cudaGraphNode_t node;       /* in exec->g or a child graph of it */
    size_t *waits;              /* plan indices on other chains */
    size_t n_waits;
    unsigned chain;
    bool wait_start;            /* a root: waits for the launch stream */
    bool record;                /* record ev after it (others wait) */
    bool disabled;              /* cudaGraphNodeSetEnabled */
    cudaEvent_t ev;
};

struct CUgraphExec_st {
    unsigned magic;
    cudaGraph_t g;              /* the copy it runs */
    unsigned long long flags;
    struct plan_node *plan;
    size_t n_plan, cap_plan;
    unsigned n_chains;
    int *chain_dev;             /* [n_chains] */
    size_t *chain_tail;         /* [n_chains]: last plan node */
    cudaStream_t *streams;      /* [n_chains] */
    cudaEvent_t start;          /* per launch, on the launch stream */
    int start_dev;
};

static bool exec_valid(cudaGraphExec_t x)
{
    return x && x->magic == GRAPH_EXEC_MAGIC;
}

/* ---- planning ------------------------------------------------------------------ */

/* A set of plan indices (small: a node's entry or exit points). */
struct idx_set {
    size_t *v;
    size_t n;
};

static cudaError_t set_add(struct idx_set *s, size_t x)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i] == x) {
            return cudaSuccess;
        }
    }
    size_t *v = realloc(s->v, (s->n + 1) * sizeof(*v));
    if (!v) {
        return cudaErrorMemoryAllocation;
    }
    v[s->n++] = x;
    s->v = v;
    return cudaSuccess;
}

static cudaError_t set_union(struct idx_set *s, const struct idx_set *o)
{
    for (size_t i = 0; i < o->n; i++) {
        if (set_add(s, o->v[i])) {
            return cudaErrorMemoryAllocation;
        }
    }
    return cudaSuccess;
}

/* Put n on a chain, after the plan nodes of entry. */
static cudaError_t plan_place(cudaGraphExec_t x, cudaGraphNode_t n,
                              const struct idx_set *entry, size_t *idx)
{
    if (x->n_plan == x->cap_plan) {
        size_t cap = x->cap_plan ? x->cap_plan * 2 : 16;
        void *p = realloc(x->plan, cap * sizeof(*x->plan));
        if (!p) {
            return cudaErrorMemoryAllocation;
        }
        x->plan = p;
        x->cap_plan = cap;
    }
    size_t i = x->n_plan;
    struct plan_node *p = &x->plan[i];
    memset(p, 0, sizeof(*p));
    p->node = n;
    int dev = n->dev;
    /* the chain of a dependency that ends it, on the same device */
    unsigned chain = x->n_chains;
    for (size_t k = 0; k < entry->n; k++) {
        size_t d = entry->v[k];
        unsigned c = x->plan[d].chain;
        if (x->chain_tail[c] == d && x->chain_dev[c] == dev) {
            chain = c;
            break;
        }
    }
    if (chain == x->n_chains) {
        unsigned nc = x->n_chains + 1;
        int *cd = realloc(x->chain_dev, nc * sizeof(*cd));
        if (cd) {
            x->chain_dev = cd;
        }
        size_t *ct = cd ? realloc(x->chain_tail, nc * sizeof(*ct)) : NULL;
        if (!ct) {
            return cudaErrorMemoryAllocation;
        }
        x->chain_tail = ct;
        x->chain_dev[chain] = dev;
        x->n_chains = nc;
        p->wait_start = entry->n == 0;
    }
    p->chain = chain;
    for (size_t k = 0; k < entry->n; k++) {
        size_t d = entry->v[k];
        if (x->plan[d].chain == chain) {
            continue;   /* earlier on the same chain: ordered already */
        }
        size_t *w = realloc(p->waits, (p->n_waits + 1) * sizeof(*w));
        if (!w) {
            return cudaErrorMemoryAllocation;
        }
        p->waits = w;
        p->waits[p->n_waits++] = d;
        x->plan[d].record = true;
    }
    x->chain_tail[chain] = i;
    x->n_plan++;
    *idx = i;
    return cudaSuccess;
}

/*
 * Plan graph g after the plan nodes of pre (the entry of a child graph;
 * empty for the top one); *sinks: the plan nodes that end it.
 */
static cudaError_t plan_graph(cudaGraphExec_t x, cudaGraph_t g,
                              const struct idx_set *pre, struct idx_set *sinks,
                              unsigned depth)
{
    bool cycle;
    if (depth > 64) {
        return cudaErrorInvalidValue;
    }
    cudaGraphNode_t *order = graph_topo_order(g, &cycle);
    if (!order) {
        return cycle ? cudaErrorInvalidValue : cudaErrorMemoryAllocation;
    }
    /* exits[i]: the plan nodes that stand for node i of g once done */
    size_t nn = g->n_nodes;
    struct idx_set *exits = calloc(nn ? nn : 1, sizeof(*exits));
    cudaError_t e = exits ? cudaSuccess : cudaErrorMemoryAllocation;
    for (size_t i = 0; !e && i < nn; i++) {
        cudaGraphNode_t n = order[i];
        struct idx_set entry = { NULL, 0 };
        if (!n->n_deps) {
            e = set_union(&entry, pre);
        }
        for (size_t j = 0; !e && j < n->n_deps; j++) {
            size_t k = 0;
            while (order[k] != n->deps[j]) {
                k++;
            }
            e = set_union(&entry, &exits[k]);
        }
        if (!e && n->type == cudaGraphNodeTypeGraph) {
            e = n->u.child->n_nodes
                    ? plan_graph(x, n->u.child, &entry, &exits[i], depth + 1)
                    : set_union(&exits[i], &entry);
        } else if (!e) {
            size_t idx;
            e = plan_place(x, n, &entry, &idx);
            if (!e) {
                e = set_add(&exits[i], idx);
            }
        }
        free(entry.v);
        if (!e && !n->n_outs) {
            e = set_union(sinks, &exits[i]);
        }
    }
    for (size_t i = 0; exits && i < nn; i++) {
        free(exits[i].v);
    }
    free(exits);
    free(order);
    return e;
}

/* Its streams and events (runtime calls: lock not held). */
static void exec_free_resources(cudaGraphExec_t x)
{
    graph_cond_release(x->g);
    for (size_t i = 0; i < x->n_plan; i++) {
        if (x->plan[i].ev) {
            cudaEventDestroy(x->plan[i].ev);
            x->plan[i].ev = NULL;
        }
    }
    for (unsigned c = 0; x->streams && c < x->n_chains; c++) {
        if (x->streams[c]) {
            cudaStreamDestroy(x->streams[c]);
            x->streams[c] = NULL;
        }
    }
    if (x->start) {
        cudaEventDestroy(x->start);
        x->start = NULL;
    }
}

/* The rest (lock held). */
static void exec_free(cudaGraphExec_t x)
{
    for (size_t i = 0; i < x->n_plan; i++) {
        free(x->plan[i].waits);
    }
    if (x->g) {
        graph_users_drop(x->g);
        graph_free(x->g);
    }
    free(x->plan);
    free(x->chain_dev);
    free(x->chain_tail);
    free(x->streams);
    x->magic = 0;
    free(x);
}

/* The streams and events of the plan (runtime calls: lock not held). */
static cudaError_t exec_resources(cudaGraphExec_t x)
{
    int dev0;
    cudaError_t e = cudaGetDevice(&dev0);
    x->streams = calloc(x->n_chains ? x->n_chains : 1, sizeof(*x->streams));
    if (!x->streams) {
        return cudaErrorMemoryAllocation;
    }
    for (unsigned c = 0; !e && c < x->n_chains; c++) {
        e = cudaSetDevice(x->chain_dev[c]);
        if (!e) {
            e = cudaStreamCreateWithFlags(&x->streams[c],
                                          cudaStreamNonBlocking);
        }
    }
    for (size_t i = 0; !e && i < x->n_plan; i++) {
        if (x->plan[i].record) {
            e = cudaSetDevice(x->chain_dev[x->plan[i].chain]);
            if (!e) {
                e = cudaEventCreateWithFlags(&x->plan[i].ev,
                                             cudaEventDisableTiming);
            }
        }
    }
    cudaSetDevice(dev0);
    return e;
}

static cudaError_t instantiate_locked(cudaGraphExec_t *px, cudaGraph_t g,
                                      unsigned long long flags)
{
    if (!px || !graph_valid(g)) {
        return cudaErrorInvalidValue;
    }
    if (flags & ~(unsigned long long)(cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                      cudaGraphInstantiateFlagUpload |
                                      cudaGraphInstantiateFlagUseNodePriority)) {
        return cudaErrorInvalidValue;   /* device launch: not served */
    }
    cudaGraphExec_t x = calloc(1, sizeof(*x));
    if (!x) {
        return cudaErrorMemoryAllocation;
    }
    x->magic = GRAPH_EXEC_MAGIC;
    x->flags = flags;
    x->g = graph_clone(g);
    struct idx_set none = { NULL, 0 }, sinks = { NULL, 0 };
    cudaError_t e = x->g ? plan_graph(x, x->g, &none, &sinks, 0)
                         : cudaErrorMemoryAllocation;
    /* the chains' ends: the launch stream waits for them */
    for (unsigned c = 0; !e && c < x->n_chains; c++) {
        x->plan[x->chain_tail[c]].record = true;
    }
    free(sinks.v);
    if (e) {
        exec_free(x);
        return e;
    }
    *px = x;
    return cudaSuccess;
}

/* Instantiate (the calling thread is in no served call). */
static cudaError_t instantiate(cudaGraphExec_t *px, cudaGraph_t g,
                               unsigned long long flags,
                               cudaGraphInstantiateParams *ip)
{
    cudaError_t e = rt_enter();
    if (e) {
        return cudart_error_return(e);
    }
    rt_charge(rt_costs[RT_COST_CALL]);
    e = instantiate_locked(px, g, flags);
    rt_leave();
    if (!e) {
        e = exec_resources(*px);
        if (!e) {
            e = graph_cond_instantiate((*px)->g);
        }
        if (e) {
            exec_free_resources(*px);
            rt_enter_nosticky();
            exec_free(*px);
            rt_leave();
        }
    }
    if (ip) {
        ip->errNode_out = NULL;
        ip->result_out = e ? cudaGraphInstantiateError
                           : cudaGraphInstantiateSuccess;
    }
    if (!e && ip && (flags & cudaGraphInstantiateFlagUpload)) {
        e = cudaGraphUpload(*px, ip->uploadStream);
    }
    return cudart_error_return(e);
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec,
                                 cudaGraph_t graph, unsigned long long flags)
{
    return instantiate(pGraphExec, graph, flags, NULL);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
                                          cudaGraph_t graph,
                                          unsigned long long flags)
{
    return instantiate(pGraphExec, graph, flags, NULL);
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec,
                                           cudaGraph_t graph,
                                           cudaGraphInstantiateParams *p)
{
    if (!p) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    return instantiate(pGraphExec, graph, p->flags, p);
}

cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec,
                                                cudaGraph_t graph,
                                                cudaGraphInstantiateParams *p)
{
    if (p && !p->uploadStream) {
        p->uploadStream = cudaStreamPerThread;
    }
    return cudaGraphInstantiateWithParams(pGraphExec, graph, p);
}

static cudaError_t exec_flags(cudaGraphExec_t x, unsigned long long *flags)
{
    if (!exec_valid(x) || !flags) {
        return cudaErrorInvalidValue;
    }
    *flags = x->flags;
    return cudaSuccess;
}

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec,
                                  unsigned long long *flags)
{
    SERVE(exec_flags(graphExec, flags));
}

static cudaError_t exec_destroy(cudaGraphExec_t x)
{
    cudaError_t e = rt_enter_nosticky();
    bool ok = !e && exec_valid(x);
    if (ok) {
        x->magic = 0;   /* no other call takes it from now on */
    }
    rt_leave();
    if (e || !ok) {
        return e ? e : cudaErrorInvalidValue;
    }
    /* Work already launched still runs: its streams drain first. */
    exec_free_resources(x);
    rt_enter_nosticky();
    exec_free(x);
    rt_leave();
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    return cudart_error_return(exec_destroy(graphExec));
}

/* ---- launch ---------------------------------------------------------------------- */

/* The calling thread's clock (lock not held). */
static sim_time_t clock_get(void)
{
    rt_enter_nosticky();
    sim_time_t t = rt_self()->clock;
    rt_leave();
    return t;
}

static void clock_set(sim_time_t t)
{
    rt_enter_nosticky();
    rt_self()->clock = t;
    rt_leave();
}

static cudaError_t run_copy(const struct cudaMemcpy3DParms *p, cudaStream_t s)
{
    const struct cudaExtent *x = &p->extent;
    if (x->height > 1 || x->depth > 1 || p->srcPos.y || p->srcPos.z ||
        p->dstPos.y || p->dstPos.z) {
        return cudaMemcpy3DAsync(p, s);     /* one copy of rows */
    }
    return cudaMemcpyAsync((char *)p->dstPtr.ptr + p->dstPos.x,
                           (const char *)p->srcPtr.ptr + p->srcPos.x,
                           x->width, p->kind, s);
}

static cudaError_t run_set(const struct cudaMemsetParams *p, cudaStream_t s)
{
    int v = (int)(p->value & 0xff);
    size_t w = p->width * p->elementSize;
    return p->height > 1
               ? cudaMemset2DAsync(p->dst, p->pitch, v, w, p->height, s)
               : cudaMemsetAsync(p->dst, v, w, s);
}

/* Graph memory in stream order: an allocation node makes its memory live
 * again (if the program freed it) when the stream reaches it, and at the
 * launch already, for the checks of the calls that follow it. A free
 * node keeps the memory: work of a later launch, queued before it runs,
 * already holds its allocation (see the header). */
static void mem_act(struct timed_op *t)
{
    struct graph_mem *m = t->data;
    if (graph_mem_revive(m)) {
        fprintf(stderr, "p2psim: graph memory at %p could not be allocated "
                "again at its address\n", m->dptr);
    }
}

static void mem_op_release(struct rt_op *op)
{
    graph_mem_put(((struct timed_op *)op)->data);
}

static cudaError_t mem_op(cudaGraphNode_t n, cudaStream_t h)
{
    if (n->type != cudaGraphNodeTypeMemAlloc) {
        return cudaSuccess;
    }
    cudaError_t e = rt_enter_nosticky();
    if (e) {
        return e;
    }
    struct graph_mem *m = n->u.alloc.mem;
    struct rt_stream *s = rt_stream_resolve(h, -1);
    struct timed_op *t = NULL;
    e = graph_mem_revive(m);
    if (!e && !s) {
        e = cudaErrorInvalidResourceHandle;
    } else if (!e && !(t = stream_timed_new("graph alloc", 0))) {
        e = cudaErrorMemoryAllocation;
    }
    if (!e) {
        m->refs++;      /* the op may outlive the executable graph */
        t->data = m;
        t->act = mem_act;
        t->op.release = mem_op_release;
        e = rt_enqueue(s, &t->op);
    }
    rt_leave();
    return e;
}

/* The work of node n on stream s (lock not held). */
static cudaError_t run_node(cudaGraphNode_t n, cudaStream_t s)
{
    switch (n->type) {
    case cudaGraphNodeTypeKernel: {
        const struct cudaKernelNodeParams *p = &n->u.k.p;
        return cudaLaunchKernel(p->func, p->gridDim, p->blockDim,
                                p->kernelParams, p->sharedMemBytes, s);
    }
    case cudaGraphNodeTypeMemcpy:
        return run_copy(&n->u.copy, s);
    case cudaGraphNodeTypeMemset:
        return run_set(&n->u.set, s);
    case cudaGraphNodeTypeHost:
        return cudaLaunchHostFunc(s, n->u.host.fn, n->u.host.userData);
    case cudaGraphNodeTypeEventRecord:
        return cudaEventRecord(n->u.event, s);
    case cudaGraphNodeTypeWaitEvent:
        return cudaStreamWaitEvent(s, n->u.event, 0);
    case cudaGraphNodeTypeMemAlloc:
    case cudaGraphNodeTypeMemFree:
        return mem_op(n, s);
    case cudaGraphNodeTypeConditional:
        return graph_cond_run(n, s, n->dev);
    default:
        return cudaSuccess;     /* empty */
    }
}

/* Queue x's work after the work of stream h (lock not held). */
static cudaError_t replay(cudaGraphExec_t x, cudaStream_t h, int launch_dev)
{
    int dev0;
    cudaError_t e = cudaGetDevice(&dev0);
    sim_time_t t0 = clock_get();
    if (!e && (!x->start || x->start_dev != launch_dev)) {
        if (x->start) {
            cudaEventDestroy(x->start);
            x->start = NULL;
        }
        e = cudaSetDevice(launch_dev);
        if (!e) {
            e = cudaEventCreateWithFlags(&x->start, cudaEventDisableTiming);
            x->start_dev = launch_dev;
        }
    }
    if (!e) {
        e = cudaEventRecord(x->start, h);
        clock_set(t0);
    }
    int cur = launch_dev;
    for (size_t i = 0; !e && i < x->n_plan; i++) {
        struct plan_node *p = &x->plan[i];
        cudaStream_t s = x->streams[p->chain];
        int dev = x->chain_dev[p->chain];
        if (dev != cur && (e = cudaSetDevice(dev)) == cudaSuccess) {
            cur = dev;
        }
        if (!e && p->wait_start) {
            e = cudaStreamWaitEvent(s, x->start, 0);
        }
        for (size_t k = 0; !e && k < p->n_waits; k++) {
            e = cudaStreamWaitEvent(s, x->plan[p->waits[k]].ev, 0);
        }
        if (!e && !p->disabled) {
            e = run_node(p->node, s);
        }
        if (!e && p->record) {
            e = cudaEventRecord(p->ev, s);
        }
        clock_set(t0);
    }
    for (unsigned c = 0; !e && c < x->n_chains; c++) {
        e = cudaStreamWaitEvent(h, x->plan[x->chain_tail[c]].ev, 0);
    }
    clock_set(t0);
    if (cur != dev0) {
        cudaSetDevice(dev0);
    }
    return e;
}

cudaError_t graph_exec_replay(cudaGraphExec_t x, cudaStream_t h, int dev)
{
    return replay(x, h, dev);
}

static cudaError_t graph_launch(cudaGraphExec_t x, cudaStream_t h,
                                bool per_thread, bool upload)
{
    if (per_thread && !h) {
        h = cudaStreamPerThread;
    }
    cudaError_t e = rt_enter();
    if (e) {
        return e;
    }
    struct rt_stream *s = NULL;
    if (!exec_valid(x)) {
        e = cudaErrorInvalidValue;
    } else {
        e = stream_lookup(h, &s);
    }
    if (!e && graph_capturing(s)) {
        /* Launched into a capture: a child graph node (CUDA). */
        e = upload ? cudaSuccess : graph_capture_child(s, x->g);
        rt_charge(rt_costs[RT_COST_CALL]);
        rt_leave();
        return e;
    }
    int dev = s ? rt_stream_device(s) : 0;
    rt_leave();
    if (e || upload) {
        /* Upload: nothing to prepare on a simulated GPU beyond the
         * checks. */
        return e;
    }
    e = graph_cond_defaults(x->g, h);
    if (!e) {
        e = replay(x, h, dev);
    }
    cudaError_t e2 = rt_enter_nosticky();
    if (!e2) {
        rt_charge(rt_costs[RT_COST_LAUNCH]);
        rt_leave();
    }
    return e;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    return cudart_error_return(graph_launch(graphExec, stream, false, false));
}

cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec,
                                 cudaStream_t stream)
{
    return cudart_error_return(graph_launch(graphExec, stream, true, false));
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    return cudart_error_return(graph_launch(graphExec, stream, false, true));
}

cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec,
                                 cudaStream_t stream)
{
    return cudart_error_return(graph_launch(graphExec, stream, true, true));
}

/* ---- changing an executable graph ------------------------------------------- */

/* The node of x's copy that stands for the program's node n. */
static cudaGraphNode_t exec_node(cudaGraphExec_t x, cudaGraphNode_t n)
{
    if (!exec_valid(x) || !n) {
        return NULL;
    }
    for (size_t i = 0; i < x->g->n_nodes; i++) {
        if (x->g->nodes[i]->origin == n || x->g->nodes[i] == n) {
            return x->g->nodes[i];
        }
    }
    return NULL;
}

static cudaError_t exec_set(cudaGraphExec_t x, cudaGraphNode_t n,
                            enum cudaGraphNodeType t, const void *in)
{
    cudaGraphNode_t c = exec_node(x, n);
    if (!c || c->type != t) {
        return cudaErrorInvalidValue;
    }
    switch (t) {
    case cudaGraphNodeTypeKernel:
        return graph_kernel_set(&c->u.k, in);
    case cudaGraphNodeTypeMemcpy: {
        cudaError_t e = graph_copy_check(in);
        if (!e) {
            c->u.copy = *(const struct cudaMemcpy3DParms *)in;
        }
        return e;
    }
    case cudaGraphNodeTypeMemset: {
        cudaError_t e = graph_set_check(in);
        if (!e) {
            c->u.set = *(const struct cudaMemsetParams *)in;
        }
        return e;
    }
    case cudaGraphNodeTypeHost: {
        const struct cudaHostNodeParams *p = in;
        if (!p || !p->fn) {
            return cudaErrorInvalidValue;
        }
        c->u.host = *p;
        return cudaSuccess;
    }
    case cudaGraphNodeTypeEventRecord:
    case cudaGraphNodeTypeWaitEvent:
        if (!rt_event_find((cudaEvent_t)in)) {
            return cudaErrorInvalidResourceHandle;
        }
        c->u.event = (cudaEvent_t)in;
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

cudaError_t cudaGraphExecKernelNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaKernelNodeParams *pNodeParams)
{
    SERVE(exec_set(hGraphExec, node, cudaGraphNodeTypeKernel, pNodeParams));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaMemcpy3DParms *pNodeParams)
{
    SERVE(exec_set(hGraphExec, node, cudaGraphNodeTypeMemcpy, pNodeParams));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec,
                                               cudaGraphNode_t node, void *dst,
                                               const void *src, size_t count,
                                               enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p = graph_copy_1d(dst, src, count, kind);
    SERVE(exec_set(hGraphExec, node, cudaGraphNodeTypeMemcpy, &p));
}

cudaError_t cudaGraphExecMemsetNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaMemsetParams *pNodeParams)
{
    SERVE(exec_set(hGraphExec, node, cudaGraphNodeTypeMemset, pNodeParams));
}

cudaError_t cudaGraphExecHostNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaHostNodeParams *pNodeParams)
{
    SERVE(exec_set(hGraphExec, node, cudaGraphNodeTypeHost, pNodeParams));
}

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec,
                                                 cudaGraphNode_t hNode,
                                                 cudaEvent_t event)
{
    SERVE(exec_set(hGraphExec, hNode, cudaGraphNodeTypeEventRecord, event));
}

cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec,
                                               cudaGraphNode_t hNode,
                                               cudaEvent_t event)
{
    SERVE(exec_set(hGraphExec, hNode, cudaGraphNodeTypeWaitEvent, event));
}

/* Same structure: node i of a and of b have the same type and the same
 * dependencies, by position. */
static bool same_topology(cudaGraph_t a, cudaGraph_t b, size_t *bad)
{
    if (a->n_nodes != b->n_nodes) {
        *bad = 0;
        return false;
    }
    for (size_t i = 0; i < a->n_nodes; i++) {
        cudaGraphNode_t x = a->nodes[i], y = b->nodes[i];
        *bad = i;
        if (x->type != y->type || x->n_deps != y->n_deps) {
            return false;
        }
        if (x->type == cudaGraphNodeTypeGraph &&
            !same_topology(x->u.child, y->u.child, bad)) {
            *bad = i;
            return false;
        }
        for (size_t j = 0; j < x->n_deps; j++) {
            size_t ka = 0, kb = 0;
            while (a->nodes[ka] != x->deps[j]) {
                ka++;
            }
            while (kb < b->n_nodes && b->nodes[kb] != y->deps[j]) {
                kb++;
            }
            if (ka != kb) {
                return false;
            }
        }
    }
    return true;
}

static cudaError_t exec_child_set(cudaGraphExec_t x, cudaGraphNode_t n,
                                  cudaGraph_t child)
{
    cudaGraphNode_t c = exec_node(x, n);
    size_t bad;
    if (!c || c->type != cudaGraphNodeTypeGraph || !graph_valid(child) ||
        !same_topology(c->u.child, child, &bad)) {
        return cudaErrorInvalidValue;
    }
    for (size_t i = 0; i < child->n_nodes; i++) {
        cudaGraphNode_t d = c->u.child->nodes[i];
        graph_node_clear(d);
        d->type = child->nodes[i]->type;
        cudaError_t e = graph_node_copy_params(d, child->nodes[i]);
        if (e) {
            d->type = cudaGraphNodeTypeEmpty;
            return e;
        }
    }
    return cudaSuccess;
}

cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec,
                                                 cudaGraphNode_t node,
                                                 cudaGraph_t childGraph)
{
    SERVE(exec_child_set(hGraphExec, node, childGraph));
}

static cudaError_t exec_update(cudaGraphExec_t x, cudaGraph_t g,
                               cudaGraphExecUpdateResultInfo *info)
{
    if (!exec_valid(x) || !graph_valid(g)) {
        return cudaErrorInvalidValue;
    }
    size_t bad = 0;
    if (info) {
        memset(info, 0, sizeof(*info));
    }
    if (!same_topology(x->g, g, &bad)) {
        if (info) {
            info->result = cudaGraphExecUpdateErrorTopologyChanged;
            info->errorNode = bad < g->n_nodes ? g->nodes[bad] : NULL;
        }
        return cudaErrorGraphExecUpdateFailure;
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        cudaGraphNode_t d = x->g->nodes[i], o = g->nodes[i];
        if (d->type == cudaGraphNodeTypeMemAlloc ||
            d->type == cudaGraphNodeTypeMemFree) {
            continue;   /* their parameters cannot change (CUDA) */
        }
        graph_node_clear(d);
        d->type = o->type;
        cudaError_t e = graph_node_copy_params(d, o);
        if (e) {
            d->type = cudaGraphNodeTypeEmpty;
            if (info) {
                info->result = cudaGraphExecUpdateError;
                info->errorNode = o;
            }
            return e;
        }
        d->origin = o;
    }
    if (info) {
        info->result = cudaGraphExecUpdateSuccess;
    }
    return cudaSuccess;
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo)
{
    SERVE(exec_update(hGraphExec, hGraph, resultInfo));
}

static cudaError_t node_enabled(cudaGraphExec_t x, cudaGraphNode_t n,
                                unsigned *get, unsigned set)
{
    cudaGraphNode_t c = exec_node(x, n);
    if (!c) {
        return cudaErrorInvalidValue;
    }
    switch (c->type) {
    case cudaGraphNodeTypeKernel:
    case cudaGraphNodeTypeMemcpy:
    case cudaGraphNodeTypeMemset:
        break;
    default:
        return cudaErrorInvalidValue;   /* CUDA: only these three */
    }
    for (size_t i = 0; i < x->n_plan; i++) {
        if (x->plan[i].node == c) {
            if (get) {
                *get = !x->plan[i].disabled;
            } else {
                x->plan[i].disabled = !set;
            }
            return cudaSuccess;
        }
    }
    return cudaErrorInvalidValue;
}

cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec,
                                    cudaGraphNode_t hNode,
                                    unsigned int isEnabled)
{
    SERVE(node_enabled(hGraphExec, hNode, NULL, isEnabled));
}

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec,
                                    cudaGraphNode_t hNode,
                                    unsigned int *isEnabled)
{
    if (!isEnabled) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    SERVE(node_enabled(hGraphExec, hNode, isEnabled, 0));
}
