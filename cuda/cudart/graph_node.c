/*
 * cuda/cudart/graph_node.c - the nodes of a graph and their parameters:
 * cudaGraphAdd*Node, the nodes' Get/SetParams, graph memory (allocation
 * and free nodes, cudaDeviceGetGraphMemAttribute) and user objects.
 *
 * Parameters are kept as the program gave them; a kernel node copies its
 * arguments (their sizes from the kernel's parameter list), so the
 * program's argument array need not outlive the call, as in CUDA. What a
 * node does when a graph runs is graph_exec.c's.
 *
 * Graph memory. An allocation node's memory is allocated when the node is
 * made (its address is the node's for every launch, as CUDA promises),
 * and stays until the program frees it (cudaFree, cudaFreeAsync); a free
 * node releases nothing (graph_exec.c says why). A launch that reaches
 * the allocation node after the program freed it makes it live again at
 * the same address (graph_mem_revive). The "reserved" figures equal the
 * "used" ones.
 */
#include <config.h>

#include "cuda/cudart/graph_int.h"

#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/launch_int.h"
#include "cuda/cudart/memory.h"
#include "cuda/cudart/memory_int.h"

/* ---- kernel parameters -------------------------------------------------------- */

void graph_kernel_clear(struct graph_kernel *k)
{
    free(k->argv);
    free(k->args);
    memset(k, 0, sizeof(*k));
}

cudaError_t graph_kernel_set(struct graph_kernel *k,
                             const struct cudaKernelNodeParams *p)
{
    if (!p || !p->func) {
        return cudaErrorInvalidDeviceFunction;
    }
    if (p->extra) {
        return cudaErrorNotSupported;   /* the driver's packed form */
    }
    size_t *sizes = NULL;
    unsigned n = 0;
    pthread_mutex_lock(&reg_lock);
    cudaError_t e = rt_kernel_arg_sizes(p->func, &sizes, &n);
    pthread_mutex_unlock(&reg_lock);
    if (e) {
        return e;
    }
    if (n && !p->kernelParams) {
        free(sizes);
        return cudaErrorInvalidValue;
    }
    size_t total = 0;
    for (unsigned i = 0; i < n; i++) {
        total += (sizes[i] + 15) & ~(size_t)15;
    }
    struct graph_kernel nk = { .p = *p, .n_args = n };
    nk.args = calloc(1, total ? total : 1);
    nk.argv = calloc(n ? n : 1, sizeof(void *));
    if (!nk.args || !nk.argv) {
        free(sizes);
        graph_kernel_clear(&nk);
        return cudaErrorMemoryAllocation;
    }
    size_t off = 0;
    for (unsigned i = 0; i < n; i++) {
        memcpy(nk.args + off, p->kernelParams[i], sizes[i]);
        nk.argv[i] = nk.args + off;
        off += (sizes[i] + 15) & ~(size_t)15;
    }
    free(sizes);
    nk.p.kernelParams = nk.argv;
    nk.p.extra = NULL;
    graph_kernel_clear(k);
    *k = nk;
    return cudaSuccess;
}

static cudaError_t kernel_copy(struct graph_kernel *dst,
                               const struct graph_kernel *src)
{
    memset(dst, 0, sizeof(*dst));
    return graph_kernel_set(dst, &src->p);
}

/* ---- graph memory ---------------------------------------------------------------- */

static struct graph_mem *graph_mems;
static uint64_t mem_high[64];   /* per device (cudaGraphMemAttrUsedMemHigh) */

static uint64_t mem_live(int dev)
{
    uint64_t sum = 0;
    for (struct graph_mem *m = graph_mems; m; m = m->next) {
        struct rt_alloc *a = rt_alloc_at(m->dptr);
        if (m->dev == dev && a && a->kind == RT_MEM_DEVICE) {
            sum += round_up(m->size, RT_MEM_ALIGN_BYTES);
        }
    }
    return sum;
}

static void mem_note(int dev)
{
    uint64_t now = mem_live(dev);
    if (dev >= 0 && dev < 64 && now > mem_high[dev]) {
        mem_high[dev] = now;
    }
}

cudaError_t graph_mem_new(int dev, size_t size, struct graph_mem **out)
{
    struct graph_mem *m = calloc(1, sizeof(*m));
    if (!m) {
        return cudaErrorMemoryAllocation;
    }
    cudaError_t e = rt_device_init(dev);
    if (!e) {
        e = mem_device_alloc(dev, size, NULL, &m->dptr);
    }
    if (e) {
        free(m);
        return e;
    }
    m->refs = 1;
    m->dev = dev;
    m->size = size;
    m->next = graph_mems;
    graph_mems = m;
    mem_note(dev);
    *out = m;
    return cudaSuccess;
}

void graph_mem_put(struct graph_mem *m)
{
    if (!m || --m->refs) {
        return;
    }
    for (struct graph_mem **pp = &graph_mems; *pp; pp = &(*pp)->next) {
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    }
    /* The memory itself is the program's to free (CUDA). */
    free(m);
}

cudaError_t graph_mem_revive(struct graph_mem *m)
{
    if (rt_alloc_at(m->dptr)) {
        return cudaSuccess;
    }
    /* The machine's HBM space is first-fit: ranges below the one wanted
     * are held while asking again, then given back. */
    uint64_t want = (uintptr_t)m->dptr - rt.dev[m->dev].va_base;
    uint64_t len = round_up(m->size, RT_MEM_ALIGN_BYTES), off = 0;
    uint64_t held[32];
    unsigned n_held = 0;
    cudaError_t e;
    while ((e = rt_window_reserve(m->dev, len, &off)) == cudaSuccess &&
           off < want && n_held < 32) {
        held[n_held++] = off;
    }
    for (unsigned i = 0; i < n_held; i++) {
        rt_window_release(m->dev, held[i], len);
    }
    if (e) {
        return e;
    }
    if (off != want) {
        rt_window_release(m->dev, off, len);
        return cudaErrorMemoryAllocation;
    }
    struct rt_alloc *a = calloc(1, sizeof(*a));
    if (!a) {
        rt_window_release(m->dev, off, len);
        return cudaErrorMemoryAllocation;
    }
    a->kind = RT_MEM_DEVICE;
    a->base = (uintptr_t)m->dptr;
    a->size = m->size;
    a->device = m->dev;
    e = rt_alloc_insert(a);
    if (e) {
        free(a);
        rt_window_release(m->dev, off, len);
        return e;
    }
    mem_note(m->dev);
    return cudaSuccess;
}

static cudaError_t graph_mem_attr(int dev, enum cudaGraphMemAttributeType at,
                                  void *value, bool set)
{
    if (!rt_device_valid(dev) || !value || dev >= 64) {
        return cudaErrorInvalidValue;
    }
    uint64_t *v = value;
    if (set) {
        /* Only the high-water marks may be set, and only to zero. */
        if ((at != cudaGraphMemAttrUsedMemHigh &&
             at != cudaGraphMemAttrReservedMemHigh) || *v) {
            return cudaErrorInvalidValue;
        }
        mem_high[dev] = mem_live(dev);
        return cudaSuccess;
    }
    switch (at) {
    case cudaGraphMemAttrUsedMemCurrent:
    case cudaGraphMemAttrReservedMemCurrent:
        *v = mem_live(dev);
        return cudaSuccess;
    case cudaGraphMemAttrUsedMemHigh:
    case cudaGraphMemAttrReservedMemHigh:
        *v = mem_high[dev];
        return cudaSuccess;
    }
    return cudaErrorInvalidValue;
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device,
                                           enum cudaGraphMemAttributeType attr,
                                           void *value)
{
    SERVE(graph_mem_attr(device, attr, value, false));
}

cudaError_t cudaDeviceSetGraphMemAttribute(int device,
                                           enum cudaGraphMemAttributeType attr,
                                           void *value)
{
    SERVE(graph_mem_attr(device, attr, value, true));
}

static cudaError_t mem_trim(int dev)
{
    /* Nothing is kept beyond what is live (see the header comment). */
    return rt_device_valid(dev) ? cudaSuccess : cudaErrorInvalidDevice;
}

cudaError_t cudaDeviceGraphMemTrim(int device)
{
    SERVE(mem_trim(device));
}

/* ---- parameters of every type ------------------------------------------------- */

void graph_node_clear(cudaGraphNode_t n)
{
    switch (n->type) {
    case cudaGraphNodeTypeKernel:
        graph_kernel_clear(&n->u.k);
        break;
    case cudaGraphNodeTypeGraph:
        if (n->u.child) {
            graph_users_drop(n->u.child);
            graph_free(n->u.child);
        }
        break;
    case cudaGraphNodeTypeMemAlloc:
        graph_mem_put(n->u.alloc.mem);
        break;
    case cudaGraphNodeTypeConditional:
        graph_cond_clear(n);
        break;
    default:
        break;
    }
    memset(&n->u, 0, sizeof(n->u));
}

cudaError_t graph_node_copy_params(cudaGraphNode_t dst, cudaGraphNode_t src)
{
    switch (src->type) {
    case cudaGraphNodeTypeKernel:
        return kernel_copy(&dst->u.k, &src->u.k);
    case cudaGraphNodeTypeGraph:
        dst->u.child = graph_clone(src->u.child);
        return dst->u.child ? cudaSuccess : cudaErrorMemoryAllocation;
    case cudaGraphNodeTypeMemAlloc:
        dst->u.alloc = src->u.alloc;
        dst->u.alloc.mem->refs++;
        return cudaSuccess;
    case cudaGraphNodeTypeConditional:
        return graph_cond_copy(dst, src);
    default:
        dst->u = src->u;
        return cudaSuccess;
    }
}

cudaError_t graph_copy_check(const struct cudaMemcpy3DParms *p)
{
    if (!p || p->srcArray || p->dstArray) {
        return p ? cudaErrorNotSupported : cudaErrorInvalidValue;
    }
    const struct cudaExtent *x = &p->extent;
    if (!p->srcPtr.ptr || !p->dstPtr.ptr || !x->width || !x->height ||
        !x->depth || (unsigned)p->kind > cudaMemcpyDefault) {
        return cudaErrorInvalidValue;
    }
    if ((x->height > 1 || x->depth > 1 || p->srcPos.y || p->srcPos.z ||
         p->dstPos.y || p->dstPos.z) &&
        (p->srcPtr.pitch < p->srcPos.x + x->width ||
         p->dstPtr.pitch < p->dstPos.x + x->width)) {
        return cudaErrorInvalidPitchValue;
    }
    return cudaSuccess;
}

cudaError_t graph_set_check(const struct cudaMemsetParams *p)
{
    if (!p || !p->dst || !p->width || !p->height) {
        return cudaErrorInvalidValue;
    }
    if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) {
        return cudaErrorInvalidValue;
    }
    if (p->height > 1 && p->pitch < p->width * p->elementSize) {
        return cudaErrorInvalidValue;
    }
    /* Elements wider than a byte are set byte by byte: their bytes must
     * be alike (the machine fills bytes). */
    unsigned v = p->value, b = v & 0xff;
    if ((p->elementSize == 2 && v != (b | b << 8)) ||
        (p->elementSize == 4 && v != (b | b << 8 | b << 16 | b << 24))) {
        return cudaErrorNotSupported;
    }
    return cudaSuccess;
}

static cudaError_t node_of(cudaGraphNode_t n, enum cudaGraphNodeType t)
{
    if (!graph_node_valid(n)) {
        return cudaErrorInvalidValue;
    }
    return n->type == t ? cudaSuccess : cudaErrorInvalidValue;
}

/* ---- adding nodes ------------------------------------------------------------------ */

/* Add a node; fill (may be NULL) sets its parameters from arg. */
static cudaError_t add_node(cudaGraphNode_t *out, cudaGraph_t g,
                            const cudaGraphNode_t *deps, size_t n_deps,
                            enum cudaGraphNodeType type,
                            cudaError_t (*fill)(cudaGraphNode_t, const void *),
                            const void *arg)
{
    cudaGraphNode_t n;
    cudaError_t e = graph_add(g, type, deps, n_deps, &n);
    if (!e && fill && (e = fill(n, arg)) != cudaSuccess) {
        graph_node_destroy(n);
    }
    if (!e) {
        *out = n;
    }
    return e;
}

static cudaError_t fill_kernel(cudaGraphNode_t n, const void *arg)
{
    return graph_kernel_set(&n->u.k, arg);
}

static cudaError_t fill_copy(cudaGraphNode_t n, const void *arg)
{
    cudaError_t e = graph_copy_check(arg);
    if (!e) {
        n->u.copy = *(const struct cudaMemcpy3DParms *)arg;
    }
    return e;
}

static cudaError_t fill_set(cudaGraphNode_t n, const void *arg)
{
    cudaError_t e = graph_set_check(arg);
    if (!e) {
        n->u.set = *(const struct cudaMemsetParams *)arg;
    }
    return e;
}

static cudaError_t fill_host(cudaGraphNode_t n, const void *arg)
{
    const struct cudaHostNodeParams *p = arg;
    if (!p || !p->fn) {
        return cudaErrorInvalidValue;
    }
    n->u.host = *p;
    return cudaSuccess;
}

static cudaError_t fill_child(cudaGraphNode_t n, const void *arg)
{
    cudaGraph_t c = (cudaGraph_t)arg;
    if (!graph_valid(c) || c == n->graph) {
        return cudaErrorInvalidValue;
    }
    n->u.child = graph_clone(c);
    return n->u.child ? cudaSuccess : cudaErrorMemoryAllocation;
}

static cudaError_t fill_event(cudaGraphNode_t n, const void *arg)
{
    if (!rt_event_find((cudaEvent_t)arg)) {
        return cudaErrorInvalidResourceHandle;
    }
    n->u.event = (cudaEvent_t)arg;
    return cudaSuccess;
}

static cudaError_t fill_alloc(cudaGraphNode_t n, const void *arg)
{
    struct cudaMemAllocNodeParams *p = (struct cudaMemAllocNodeParams *)arg;
    if (!p || !p->bytesize ||
        p->poolProps.allocType != cudaMemAllocationTypePinned ||
        p->poolProps.location.type != cudaMemLocationTypeDevice ||
        !rt_device_valid(p->poolProps.location.id)) {
        return cudaErrorInvalidValue;
    }
    int dev = p->poolProps.location.id;
    cudaError_t e = graph_mem_new(dev, p->bytesize, &n->u.alloc.mem);
    if (!e) {
        n->dev = dev;
        p->dptr = n->u.alloc.mem->dptr;
        n->u.alloc.params = *p;
        n->u.alloc.params.accessDescs = NULL;
        n->u.alloc.params.accessDescCount = 0;
    }
    return e;
}

bool graph_mem_freeable(const void *ptr, int *dev)
{
    for (struct graph_mem *m = graph_mems; m; m = m->next) {
        if (m->dptr == ptr) {
            *dev = m->dev;      /* graph memory, live or not */
            return true;
        }
    }
    struct rt_alloc *a = rt_alloc_at(ptr);
    if (a && a->kind == RT_MEM_DEVICE) {
        *dev = a->device;
        return true;
    }
    return false;
}

static cudaError_t fill_free(cudaGraphNode_t n, const void *arg)
{
    if (!graph_mem_freeable(arg, &n->dev)) {
        return cudaErrorInvalidValue;
    }
    n->u.free_ptr = (void *)arg;
    return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode,
                                   cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies,
                                   const struct cudaKernelNodeParams *pNodeParams)
{
    SERVE(add_node(pGraphNode, graph, pDependencies, numDependencies,
                   cudaGraphNodeTypeKernel, fill_kernel, pNodeParams));
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode,
                                   cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies,
                                   const struct cudaMemcpy3DParms *pCopyParams)
{
    SERVE(add_node(pGraphNode, graph, pDependencies, numDependencies,
                   cudaGraphNodeTypeMemcpy, fill_copy, pCopyParams));
}

struct cudaMemcpy3DParms graph_copy_1d(void *dst, const void *src,
                                       size_t count, enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof(p));
    p.srcPtr.ptr = (void *)src;
    p.srcPtr.pitch = count;
    p.srcPtr.xsize = count;
    p.srcPtr.ysize = 1;
    p.dstPtr.ptr = dst;
    p.dstPtr.pitch = count;
    p.dstPtr.xsize = count;
    p.dstPtr.ysize = 1;
    p.extent.width = count;
    p.extent.height = 1;
    p.extent.depth = 1;
    p.kind = kind;
    return p;
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode,
                                     cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies,
                                     size_t numDependencies, void *dst,
                                     const void *src, size_t count,
                                     enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p = graph_copy_1d(dst, src, count, kind);
    SERVE(add_node(pGraphNode, graph, pDependencies, numDependencies,
                   cudaGraphNodeTypeMemcpy, fill_copy, &p));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode,
                                   cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies,
                                   size_t numDependencies,
                                   const struct cudaMemsetParams *pMemsetParams)
{
    SERVE(add_node(pGraphNode, graph, pDependencies, numDependencies,
                   cudaGraphNodeTypeMemset, fill_set, pMemsetParams));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode,
                                 cudaGraph_t graph,
                                 const cudaGraphNode_t *pDependencies,
                                 size_t numDependencies,
                                 const struct cudaHostNodeParams *pNodeParams)
{
    SERVE(add_node(pGraphNode, graph, pDependencies, numDependencies,
                   cudaGraphNodeTypeHost, fill_host, pNodeParams));
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode,
                                       cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies,
                                       size_t numDependencies,
                                       cudaGraph_t childGraph)
{
    SERVE(add_node(pGraphNode, graph, pDependencies, numDependencies,
                   cudaGraphNodeTypeGraph, fill_child, childGraph));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode,
                                  cudaGraph_t graph,
                                  const cudaGraphNode_t *pDependencies,
                                  size_t numDependencies)
{
    SERVE(add_node(pGraphNode, graph, pDependencies, numDependencies,
                   cudaGraphNodeTypeEmpty, NULL, NULL));
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode,
                                        cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies,
                                        size_t numDependencies,
                                        cudaEvent_t event)
{
    SERVE(add_node(pGraphNode, graph, pDependencies, numDependencies,
                   cudaGraphNodeTypeEventRecord, fill_event, event));
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode,
                                      cudaGraph_t graph,
                                      const cudaGraphNode_t *pDependencies,
                                      size_t numDependencies,
                                      cudaEvent_t event)
{
    SERVE(add_node(pGraphNode, graph, pDependencies, numDependencies,
                   cudaGraphNodeTypeWaitEvent, fill_event, event));
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode,
                                     cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies,
                                     size_t numDependencies,
                                     struct cudaMemAllocNodeParams *nodeParams)
{
    SERVE(add_node(pGraphNode, graph, pDependencies, numDependencies,
                   cudaGraphNodeTypeMemAlloc, fill_alloc, nodeParams));
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode,
                                    cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies,
                                    size_t numDependencies, void *dptr)
{
    SERVE(add_node(pGraphNode, graph, pDependencies, numDependencies,
                   cudaGraphNodeTypeMemFree, fill_free, dptr));
}

/* ---- getting and setting parameters --------------------------------------------- */

/* Get (out) or set (in) the parameters of n of type t. */
static cudaError_t params(cudaGraphNode_t n, enum cudaGraphNodeType t,
                          void *out, const void *in)
{
    cudaError_t e = node_of(n, t);
    if (e || (!out && !in)) {
        return e ? e : cudaErrorInvalidValue;
    }
    switch (t) {
    case cudaGraphNodeTypeKernel:
        if (out) {
            *(struct cudaKernelNodeParams *)out = n->u.k.p;
            return cudaSuccess;
        }
        return graph_kernel_set(&n->u.k, in);
    case cudaGraphNodeTypeMemcpy:
        if (out) {
            *(struct cudaMemcpy3DParms *)out = n->u.copy;
            return cudaSuccess;
        }
        return fill_copy(n, in);
    case cudaGraphNodeTypeMemset:
        if (out) {
            *(struct cudaMemsetParams *)out = n->u.set;
            return cudaSuccess;
        }
        return fill_set(n, in);
    case cudaGraphNodeTypeHost:
        if (out) {
            *(struct cudaHostNodeParams *)out = n->u.host;
            return cudaSuccess;
        }
        return fill_host(n, in);
    case cudaGraphNodeTypeGraph:
        *(cudaGraph_t *)out = n->u.child;
        return cudaSuccess;
    case cudaGraphNodeTypeEventRecord:
    case cudaGraphNodeTypeWaitEvent:
        if (out) {
            *(cudaEvent_t *)out = n->u.event;
            return cudaSuccess;
        }
        return fill_event(n, in);
    case cudaGraphNodeTypeMemAlloc:
        *(struct cudaMemAllocNodeParams *)out = n->u.alloc.params;
        return cudaSuccess;
    case cudaGraphNodeTypeMemFree:
        *(void **)out = n->u.free_ptr;
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

#define GET(t, node, out) SERVE(params(node, t, out, NULL))
#define SET(t, node, in) SERVE(params(node, t, NULL, in))

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                         struct cudaKernelNodeParams *p)
{
    GET(cudaGraphNodeTypeKernel, node, p);
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaKernelNodeParams *p)
{
    SET(cudaGraphNodeTypeKernel, node, p);
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
                                         struct cudaMemcpy3DParms *p)
{
    GET(cudaGraphNodeTypeMemcpy, node, p);
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaMemcpy3DParms *p)
{
    SET(cudaGraphNodeTypeMemcpy, node, p);
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst,
                                           const void *src, size_t count,
                                           enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p = graph_copy_1d(dst, src, count, kind);
    SET(cudaGraphNodeTypeMemcpy, node, &p);
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node,
                                         struct cudaMemsetParams *p)
{
    GET(cudaGraphNodeTypeMemset, node, p);
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaMemsetParams *p)
{
    SET(cudaGraphNodeTypeMemset, node, p);
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node,
                                       struct cudaHostNodeParams *p)
{
    GET(cudaGraphNodeTypeHost, node, p);
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node,
                                       const struct cudaHostNodeParams *p)
{
    SET(cudaGraphNodeTypeHost, node, p);
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node,
                                            cudaGraph_t *pGraph)
{
    GET(cudaGraphNodeTypeGraph, node, pGraph);
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node,
                                             cudaEvent_t *event_out)
{
    GET(cudaGraphNodeTypeEventRecord, node, event_out);
}

cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node,
                                             cudaEvent_t event)
{
    SET(cudaGraphNodeTypeEventRecord, node, event);
}

cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node,
                                           cudaEvent_t *event_out)
{
    GET(cudaGraphNodeTypeWaitEvent, node, event_out);
}

cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node,
                                           cudaEvent_t event)
{
    SET(cudaGraphNodeTypeWaitEvent, node, event);
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
                                           struct cudaMemAllocNodeParams *p)
{
    GET(cudaGraphNodeTypeMemAlloc, node, p);
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    GET(cudaGraphNodeTypeMemFree, node, dptr_out);
}

/* ---- user objects --------------------------------------------------------------- */

struct CUuserObject_st {
    unsigned magic;
    unsigned refs;
    void *ptr;
    cudaHostFn_t destroy;
};

#define USER_MAGIC 0x75736572u

struct graph_user_ref {
    cudaUserObject_t o;
    unsigned count;
    struct graph_user_ref *next;
};

static void user_release(cudaUserObject_t o, unsigned count)
{
    o->refs -= count < o->refs ? count : o->refs;
    if (o->refs == 0) {
        /* CUDA runs the destructor on a thread of its own; this runtime
         * has none, so it runs here, outside any served call's state. */
        o->magic = 0;
        cudaHostFn_t fn = o->destroy;
        void *ptr = o->ptr;
        free(o);
        if (fn) {
            fn(ptr);
        }
    }
}

static cudaError_t user_create(cudaUserObject_t *out, void *ptr,
                               cudaHostFn_t destroy, unsigned refs,
                               unsigned flags)
{
    if (!out || !destroy || !refs || flags != cudaUserObjectNoDestructorSync) {
        return cudaErrorInvalidValue;
    }
    cudaUserObject_t o = calloc(1, sizeof(*o));
    if (!o) {
        return cudaErrorMemoryAllocation;
    }
    o->magic = USER_MAGIC;
    o->refs = refs;
    o->ptr = ptr;
    o->destroy = destroy;
    *out = o;
    return cudaSuccess;
}

cudaError_t cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr,
                                 cudaHostFn_t destroy,
                                 unsigned int initialRefcount,
                                 unsigned int flags)
{
    SERVE(user_create(object_out, ptr, destroy, initialRefcount, flags));
}

static cudaError_t user_retain(cudaUserObject_t o, unsigned count, int dir)
{
    if (!o || o->magic != USER_MAGIC || !count) {
        return cudaErrorInvalidValue;
    }
    if (dir > 0) {
        o->refs += count;
    } else {
        user_release(o, count);
    }
    return cudaSuccess;
}

cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count)
{
    SERVE(user_retain(object, count, 1));
}

cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count)
{
    SERVE(user_retain(object, count, -1));
}

static cudaError_t graph_user(cudaGraph_t g, cudaUserObject_t o,
                              unsigned count, unsigned flags, bool retain)
{
    if (!graph_valid(g) || !o || o->magic != USER_MAGIC || !count ||
        (flags & ~(unsigned)cudaGraphUserObjectMove)) {
        return cudaErrorInvalidValue;
    }
    struct graph_user_ref **pp = &g->users;
    while (*pp && (*pp)->o != o) {
        pp = &(*pp)->next;
    }
    if (retain) {
        if (!*pp && !(*pp = calloc(1, sizeof(**pp)))) {
            return cudaErrorMemoryAllocation;
        }
        (*pp)->o = o;
        (*pp)->count += count;
        if (!(flags & cudaGraphUserObjectMove)) {
            o->refs += count;   /* Move: the caller's references move */
        }
        return cudaSuccess;
    }
    if (!*pp || (*pp)->count < count) {
        return cudaErrorInvalidValue;
    }
    struct graph_user_ref *r = *pp;
    r->count -= count;
    if (!r->count) {
        *pp = r->next;
        free(r);
    }
    user_release(o, count);
    return cudaSuccess;
}

cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph,
                                      cudaUserObject_t object,
                                      unsigned int count, unsigned int flags)
{
    SERVE(graph_user(graph, object, count, flags, true));
}

cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph,
                                       cudaUserObject_t object,
                                       unsigned int count)
{
    SERVE(graph_user(graph, object, count, 0, false));
}

void graph_users_drop(cudaGraph_t g)
{
    while (g->users) {
        struct graph_user_ref *r = g->users;
        g->users = r->next;
        user_release(r->o, r->count);
        free(r);
    }
}

cudaError_t graph_users_copy(cudaGraph_t dst, cudaGraph_t src)
{
    for (struct graph_user_ref *r = src->users; r; r = r->next) {
        struct graph_user_ref *c = calloc(1, sizeof(*c));
        if (!c) {
            return cudaErrorMemoryAllocation;
        }
        *c = *r;
        c->next = dst->users;
        dst->users = c;
        r->o->refs += r->count;
    }
    return cudaSuccess;
}
