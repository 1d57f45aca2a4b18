/*
 * cuda/cudart/graph_cond.c - conditional nodes (IF, IF/ELSE, WHILE,
 * SWITCH), their handles, and cudaGraphAddNode, the generic form of the
 * cudaGraphAdd*Node calls.
 *
 * A handle is 4 bytes of device memory of the device current when it is
 * made (the runtime's, refused by cudaFree, kept until the device is
 * reset); its value is that memory's address, so the device builtin
 * cudaGraphSetConditional(handle, v) is a 4-byte store to it (ptx/,
 * interp_call.c). The memory starts at the default value; with
 * cudaGraphCondAssignDefault, every launch of a graph that holds the node
 * writes the default again when the launch stream reaches the graph (a
 * stream operation that takes no time), before any of its nodes runs.
 *
 * A conditional node owns its body graphs (made empty with the node, the
 * program fills them, by node calls or cudaStreamBeginCaptureToGraph). An
 * executable graph instantiates each body of its conditional nodes as an
 * executable graph of its own. When a launch reaches the node on its
 * chain (graph_exec.c's replay), the host waits, in simulated time, for
 * the chain to reach it, reads the value, and queues the chosen body's
 * work on the chain as any launch queues a graph (same timing model);
 * WHILE reads again after each pass. The calling thread's clock is put
 * back as for every node, so the launch still costs it one launch.
 *
 * Limits: a conditional node's read advances the simulation to that point
 * of the graph while the launch is being queued, so work the program
 * queues after cudaGraphLaunch on other streams starts no earlier than
 * that point; a conditional whose chain waits for work the program has not
 * queued yet (an event recorded later) would wait for ever, and is refused
 * by the event's rules instead. cudaGraphNodeSetParams and executable-graph
 * updates of conditional nodes are not served.
 */
#include <config.h>

#include "cuda/cudart/graph_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/memory.h"
#include "cuda/cudart/memory_int.h"
#include "cuda/cudart/stream_int.h"

/* The handles made, for their defaults (never freed: a few bytes each). */
struct cond_handle {
    cudaGraphConditionalHandle h;
    int dev;
    unsigned def, flags;
    struct cond_handle *next;
};

static struct cond_handle *cond_handles;

static struct cond_handle *handle_find(cudaGraphConditionalHandle h)
{
    for (struct cond_handle *c = cond_handles; c; c = c->next) {
        if (c->h == h) {
            return c;
        }
    }
    return NULL;
}

/* The 4 bytes of h: device and HBM offset (false: no longer memory). */
static bool handle_where(cudaGraphConditionalHandle h, unsigned *dev,
                         uint64_t *off)
{
    struct rt_ptr w;
    rt_ptr_find((const void *)(uintptr_t)h, &w);
    if (w.where != RT_WHERE_DEVICE || w.avail < 4) {
        return false;
    }
    *dev = (unsigned)w.device;
    *off = w.alloc->base - rt.dev[w.device].va_base + w.off;
    return true;
}

static void handle_write(const struct cond_handle *c)
{
    unsigned dev;
    uint64_t off;
    if (handle_where(c->h, &dev, &off)) {
        rt_machine->hbm_write(dev, off, &c->def, 4);
    }
}

static cudaError_t handle_create(cudaGraphConditionalHandle *out,
                                 cudaGraph_t g, unsigned def, unsigned flags)
{
    if (!out || !graph_valid(g) || (flags & ~(unsigned)cudaGraphCondAssignDefault)) {
        return cudaErrorInvalidValue;
    }
    int dev = rt_current_device();
    struct cond_handle *c = calloc(1, sizeof(*c));
    void *p = NULL;
    cudaError_t e = c ? rt_device_init(dev) : cudaErrorMemoryAllocation;
    if (!e) {
        e = mem_device_alloc(dev, 4, NULL, &p);
    }
    if (e) {
        free(c);
        return e;
    }
    rt_alloc_at(p)->flags |= RT_ALLOC_HEAP;
    c->h = (cudaGraphConditionalHandle)(uintptr_t)p;
    c->dev = dev;
    c->def = def;
    c->flags = flags;
    c->next = cond_handles;
    cond_handles = c;
    handle_write(c);
    *out = c->h;
    return cudaSuccess;
}

cudaError_t cudaGraphConditionalHandleCreate(
    cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph,
    unsigned int defaultLaunchValue, unsigned int flags)
{
    SERVE(handle_create(pHandle_out, graph, defaultLaunchValue, flags));
}

/* ---- the node ---------------------------------------------------------- */

static cudaError_t add_cond(cudaGraphNode_t *out, cudaGraph_t g,
                            const cudaGraphNode_t *deps, size_t n_deps,
                            struct cudaConditionalNodeParams *p)
{
    if (!out || !graph_valid(g) || !handle_find(p->handle)) {
        return cudaErrorInvalidValue;
    }
    bool ok = p->type == cudaGraphCondTypeWhile ? p->size == 1
              : p->type == cudaGraphCondTypeIf  ? p->size == 1 || p->size == 2
              : p->type == cudaGraphCondTypeSwitch && p->size > 0;
    if (!ok || p->size > 1024) {
        return cudaErrorInvalidValue;
    }
    cudaGraph_t *bodies = calloc(p->size, sizeof(*bodies));
    if (!bodies) {
        return cudaErrorMemoryAllocation;
    }
    for (unsigned i = 0; i < p->size; i++) {
        if (!(bodies[i] = graph_new())) {
            while (i-- > 0) {
                graph_free(bodies[i]);
            }
            free(bodies);
            return cudaErrorMemoryAllocation;
        }
    }
    cudaGraphNode_t n;
    cudaError_t e = graph_add(g, cudaGraphNodeTypeConditional, deps, n_deps,
                              &n);
    if (e) {
        for (unsigned i = 0; i < p->size; i++) {
            graph_free(bodies[i]);
        }
        free(bodies);
        return e;
    }
    n->u.cond.handle = p->handle;
    n->u.cond.type = p->type;
    n->u.cond.size = p->size;
    n->u.cond.bodies = bodies;
    p->phGraph_out = bodies;
    *out = n;
    return cudaSuccess;
}

void graph_cond_clear(cudaGraphNode_t n)
{
    for (unsigned i = 0; n->u.cond.bodies && i < n->u.cond.size; i++) {
        graph_users_drop(n->u.cond.bodies[i]);
        graph_free(n->u.cond.bodies[i]);
    }
    free(n->u.cond.bodies);
    free(n->u.cond.execs);
}

cudaError_t graph_cond_copy(cudaGraphNode_t dst, cudaGraphNode_t src)
{
    dst->u.cond = src->u.cond;
    dst->u.cond.execs = NULL;
    dst->u.cond.bodies = calloc(src->u.cond.size, sizeof(cudaGraph_t));
    if (!dst->u.cond.bodies) {
        return cudaErrorMemoryAllocation;
    }
    for (unsigned i = 0; i < src->u.cond.size; i++) {
        dst->u.cond.bodies[i] = graph_clone(src->u.cond.bodies[i]);
        if (!dst->u.cond.bodies[i]) {
            return cudaErrorMemoryAllocation;
        }
    }
    return cudaSuccess;
}

/* ---- executable graphs ---------------------------------------------------- */

cudaError_t graph_cond_instantiate(cudaGraph_t g)
{
    cudaError_t e = cudaSuccess;
    for (size_t i = 0; !e && i < g->n_nodes; i++) {
        cudaGraphNode_t n = g->nodes[i];
        if (n->type == cudaGraphNodeTypeGraph) {
            e = graph_cond_instantiate(n->u.child);
            continue;
        }
        if (n->type != cudaGraphNodeTypeConditional) {
            continue;
        }
        n->u.cond.execs = calloc(n->u.cond.size, sizeof(cudaGraphExec_t));
        if (!n->u.cond.execs) {
            return cudaErrorMemoryAllocation;
        }
        for (unsigned b = 0; !e && b < n->u.cond.size; b++) {
            e = cudaGraphInstantiate(&n->u.cond.execs[b], n->u.cond.bodies[b],
                                     0);
        }
    }
    return e;
}

void graph_cond_release(cudaGraph_t g)
{
    for (size_t i = 0; g && i < g->n_nodes; i++) {
        cudaGraphNode_t n = g->nodes[i];
        if (n->type == cudaGraphNodeTypeGraph) {
            graph_cond_release(n->u.child);
        } else if (n->type == cudaGraphNodeTypeConditional &&
                   n->u.cond.execs) {
            for (unsigned b = 0; b < n->u.cond.size; b++) {
                if (n->u.cond.execs[b]) {
                    cudaGraphExecDestroy(n->u.cond.execs[b]);
                }
            }
            free(n->u.cond.execs);
            n->u.cond.execs = NULL;
        }
    }
}

static void default_act(struct timed_op *t)
{
    handle_write(t->data);
}

/* Queue the default of every handle of g's conditional nodes (with
 * cudaGraphCondAssignDefault) on s. Lock held. */
static cudaError_t defaults_queue(cudaGraph_t g, struct rt_stream *s)
{
    cudaError_t e = cudaSuccess;
    for (size_t i = 0; !e && i < g->n_nodes; i++) {
        cudaGraphNode_t n = g->nodes[i];
        if (n->type == cudaGraphNodeTypeGraph) {
            e = defaults_queue(n->u.child, s);
            continue;
        }
        if (n->type != cudaGraphNodeTypeConditional) {
            continue;
        }
        struct cond_handle *c = handle_find(n->u.cond.handle);
        if (c && (c->flags & cudaGraphCondAssignDefault)) {
            struct timed_op *t = stream_timed_new("graph condition default",
                                                  0);
            if (!t) {
                return cudaErrorMemoryAllocation;
            }
            t->data = c;
            t->act = default_act;
            e = rt_enqueue(s, &t->op);
        }
        for (unsigned b = 0; !e && b < n->u.cond.size; b++) {
            e = defaults_queue(n->u.cond.bodies[b], s);
        }
    }
    return e;
}

cudaError_t graph_cond_defaults(cudaGraph_t g, cudaStream_t h)
{
    cudaError_t e = rt_enter_nosticky();
    if (e) {
        return e;
    }
    struct rt_stream *s = rt_stream_resolve(h, -1);
    e = s ? defaults_queue(g, s) : cudaErrorInvalidResourceHandle;
    rt_leave();
    return e;
}

static cudaError_t value_read(cudaGraphConditionalHandle h, uint32_t *v)
{
    cudaError_t e = rt_enter_nosticky();
    if (e) {
        return e;
    }
    unsigned dev;
    uint64_t off;
    *v = 0;
    if (!handle_where(h, &dev, &off) ||
        rt_machine->hbm_read(dev, off, v, 4)) {
        e = cudaErrorInvalidValue;
    }
    rt_leave();
    return e;
}

cudaError_t graph_cond_run(cudaGraphNode_t n, cudaStream_t s, int dev)
{
    const struct graph_cond_node *c = &n->u.cond;
    if (!c->execs) {
        return cudaErrorInvalidValue;
    }
    cudaError_t e = cudaSuccess;
    for (;;) {
        uint32_t v = 0;
        e = cudaStreamSynchronize(s);
        if (!e) {
            e = value_read(c->handle, &v);
        }
        if (e) {
            break;
        }
        int body = -1;
        if (c->type == cudaGraphCondTypeSwitch) {
            body = v < c->size ? (int)v : -1;
        } else if (v) {
            body = 0;
        } else if (c->type == cudaGraphCondTypeIf && c->size == 2) {
            body = 1;
        }
        if (body < 0) {
            break;
        }
        e = graph_exec_replay(c->execs[body], s, dev);
        if (e || c->type != cudaGraphCondTypeWhile) {
            break;
        }
    }
    return e;
}

/* ---- cudaGraphAddNode ---------------------------------------------------- */

static cudaError_t add_cond_served(cudaGraphNode_t *out, cudaGraph_t g,
                                   const cudaGraphNode_t *deps, size_t n,
                                   struct cudaConditionalNodeParams *p)
{
    SERVE(add_cond(out, g, deps, n, p));
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                             const cudaGraphNode_t *pDependencies,
                             const cudaGraphEdgeData *dependencyData,
                             size_t numDependencies,
                             struct cudaGraphNodeParams *nodeParams)
{
    if (!nodeParams) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    for (size_t i = 0; dependencyData && i < numDependencies; i++) {
        const cudaGraphEdgeData *d = &dependencyData[i];
        if (d->from_port || d->to_port || d->type) {
            fprintf(stderr, "p2psim: cudaGraphAddNode: edges other than "
                    "the default are not served: cudaErrorNotSupported\n");
            return cudart_error_return(cudaErrorNotSupported);
        }
    }
    struct cudaGraphNodeParams *p = nodeParams;
    switch (p->type) {
    case cudaGraphNodeTypeKernel: {
        struct cudaKernelNodeParams k = {
            .func = p->kernel.func, .gridDim = p->kernel.gridDim,
            .blockDim = p->kernel.blockDim,
            .sharedMemBytes = p->kernel.sharedMemBytes,
            .kernelParams = p->kernel.kernelParams, .extra = p->kernel.extra,
        };
        return cudaGraphAddKernelNode(pGraphNode, graph, pDependencies,
                                      numDependencies, &k);
    }
    case cudaGraphNodeTypeHost: {
        struct cudaHostNodeParams h = { p->host.fn, p->host.userData };
        return cudaGraphAddHostNode(pGraphNode, graph, pDependencies,
                                    numDependencies, &h);
    }
    case cudaGraphNodeTypeGraph:
        return cudaGraphAddChildGraphNode(pGraphNode, graph, pDependencies,
                                          numDependencies, p->graph.graph);
    case cudaGraphNodeTypeEmpty:
        return cudaGraphAddEmptyNode(pGraphNode, graph, pDependencies,
                                     numDependencies);
    case cudaGraphNodeTypeWaitEvent:
        return cudaGraphAddEventWaitNode(pGraphNode, graph, pDependencies,
                                         numDependencies, p->eventWait.event);
    case cudaGraphNodeTypeEventRecord:
        return cudaGraphAddEventRecordNode(pGraphNode, graph, pDependencies,
                                           numDependencies,
                                           p->eventRecord.event);
    case cudaGraphNodeTypeMemFree:
        return cudaGraphAddMemFreeNode(pGraphNode, graph, pDependencies,
                                       numDependencies, p->free.dptr);
    case cudaGraphNodeTypeConditional:
        return add_cond_served(pGraphNode, graph, pDependencies,
                               numDependencies, &p->conditional);
    default:
        fprintf(stderr, "p2psim: cudaGraphAddNode of node type %d is not "
                "served (use its cudaGraphAdd*Node call): "
                "cudaErrorNotSupported\n", (int)p->type);
        return cudart_error_return(cudaErrorNotSupported);
    }
}
