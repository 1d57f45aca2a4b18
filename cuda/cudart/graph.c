/*
 * cuda/cudart/graph.c - CUDA graphs as objects: create, destroy, clone,
 * the nodes' edges and the queries of a graph's structure, destroying a
 * node, and cudaGraphDebugDotPrint. Node parameters are graph_node.c's,
 * executable graphs graph_exec.c's, capture graph_capture.c's
 * (graph_int.h).
 *
 * Handles are checked by a magic number in the object (a destroyed
 * object's is cleared), as far as a handle that was never one can be.
 */
#include <config.h>

#include "cuda/cudart/graph_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool graph_valid(cudaGraph_t g)
{
    return g && g->magic == GRAPH_MAGIC;
}

bool graph_node_valid(cudaGraphNode_t n)
{
    return n && n->magic == GRAPH_NODE_MAGIC && graph_valid(n->graph);
}

cudaGraph_t graph_new(void)
{
    cudaGraph_t g = calloc(1, sizeof(*g));
    if (g) {
        g->magic = GRAPH_MAGIC;
    }
    return g;
}

static cudaError_t grow(void *pp, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) {
        return cudaSuccess;
    }
    size_t n = *cap ? *cap * 2 : 4;
    while (n < need) {
        n *= 2;
    }
    void *p = realloc(*(void **)pp, n * elem);
    if (!p) {
        return cudaErrorMemoryAllocation;
    }
    *(void **)pp = p;
    *cap = n;
    return cudaSuccess;
}

static void node_free(cudaGraphNode_t n)
{
    graph_node_clear(n);
    free(n->deps);
    free(n->outs);
    n->magic = 0;
    free(n);
}

void graph_free(cudaGraph_t g)
{
    for (size_t i = 0; i < g->n_nodes; i++) {
        node_free(g->nodes[i]);
    }
    free(g->nodes);
    g->magic = 0;
    free(g);
}

static bool has(const cudaGraphNode_t *v, size_t n, cudaGraphNode_t x)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i] == x) {
            return true;
        }
    }
    return false;
}

static void drop(cudaGraphNode_t *v, size_t *n, cudaGraphNode_t x)
{
    for (size_t i = 0; i < *n; i++) {
        if (v[i] == x) {
            memmove(v + i, v + i + 1, (*n - i - 1) * sizeof(*v));
            (*n)--;
            return;
        }
    }
}

cudaError_t graph_edge_add(cudaGraphNode_t from, cudaGraphNode_t to)
{
    if (has(to->deps, to->n_deps, from)) {
        return cudaSuccess;
    }
    if (grow(&to->deps, &to->cap_deps, to->n_deps + 1, sizeof(*to->deps)) ||
        grow(&from->outs, &from->cap_outs, from->n_outs + 1,
             sizeof(*from->outs))) {
        return cudaErrorMemoryAllocation;
    }
    to->deps[to->n_deps++] = from;
    from->outs[from->n_outs++] = to;
    return cudaSuccess;
}

static void edge_remove(cudaGraphNode_t from, cudaGraphNode_t to)
{
    drop(to->deps, &to->n_deps, from);
    drop(from->outs, &from->n_outs, to);
}

cudaError_t graph_add(cudaGraph_t g, enum cudaGraphNodeType type,
                      const cudaGraphNode_t *deps, size_t n_deps,
                      cudaGraphNode_t *out)
{
    if (!graph_valid(g) || !out || (n_deps && !deps)) {
        return cudaErrorInvalidValue;
    }
    for (size_t i = 0; i < n_deps; i++) {
        if (!graph_node_valid(deps[i]) || deps[i]->graph != g ||
            has(deps, i, deps[i])) {
            return cudaErrorInvalidValue;
        }
    }
    cudaGraphNode_t n = calloc(1, sizeof(*n));
    if (!n || grow(&g->nodes, &g->cap_nodes, g->n_nodes + 1,
                   sizeof(*g->nodes))) {
        free(n);
        return cudaErrorMemoryAllocation;
    }
    n->magic = GRAPH_NODE_MAGIC;
    n->graph = g;
    n->type = type;
    n->id = g->next_id++;
    n->dev = rt_current_device();
    for (size_t i = 0; i < n_deps; i++) {
        if (graph_edge_add(deps[i], n)) {
            for (size_t j = 0; j < i; j++) {
                edge_remove(deps[j], n);
            }
            node_free(n);
            return cudaErrorMemoryAllocation;
        }
    }
    g->nodes[g->n_nodes++] = n;
    *out = n;
    return cudaSuccess;
}

/* ---- order --------------------------------------------------------------------- */

cudaGraphNode_t *graph_topo_order(cudaGraph_t g, bool *cycle)
{
    *cycle = false;
    size_t n = g->n_nodes, head = 0, tail = 0;
    cudaGraphNode_t *order = malloc((n ? n : 1) * sizeof(*order));
    size_t *left = malloc((n ? n : 1) * sizeof(*left));
    if (!order || !left) {
        free(order);
        free(left);
        return NULL;
    }
    /* Kahn's algorithm; a node's index is found through its id order,
     * which is the nodes array's (ids only grow). */
    for (size_t i = 0; i < n; i++) {
        left[i] = g->nodes[i]->n_deps;
        if (!left[i]) {
            order[tail++] = g->nodes[i];
        }
    }
    while (head < tail) {
        cudaGraphNode_t x = order[head++];
        for (size_t j = 0; j < x->n_outs; j++) {
            cudaGraphNode_t y = x->outs[j];
            size_t lo = 0, hi = n;
            while (lo < hi) {   /* nodes are sorted by id */
                size_t mid = (lo + hi) / 2;
                if (g->nodes[mid]->id < y->id) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if (--left[lo] == 0) {
                order[tail++] = y;
            }
        }
    }
    free(left);
    if (tail != n) {
        *cycle = true;
        free(order);
        return NULL;
    }
    return order;
}

/* ---- graphs ---------------------------------------------------------------------- */

static cudaError_t graph_create(cudaGraph_t *pg, unsigned flags)
{
    if (!pg || flags) {
        return cudaErrorInvalidValue;
    }
    *pg = graph_new();
    return *pg ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    SERVE(graph_create(pGraph, flags));
}

static cudaError_t graph_destroy(cudaGraph_t g)
{
    if (!graph_valid(g)) {
        return cudaErrorInvalidValue;
    }
    if (g->capturing) {
        return cudaErrorIllegalState;
    }
    graph_users_drop(g);
    graph_free(g);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    SERVE(graph_destroy(graph));
}

cudaGraph_t graph_clone(cudaGraph_t g)
{
    cudaGraph_t c = graph_new();
    if (!c || grow(&c->nodes, &c->cap_nodes, g->n_nodes, sizeof(*c->nodes))) {
        free(c);
        return NULL;
    }
    for (size_t i = 0; i < g->n_nodes; i++) {
        cudaGraphNode_t o = g->nodes[i], n = calloc(1, sizeof(*n));
        if (!n) {
            graph_free(c);
            return NULL;
        }
        n->magic = GRAPH_NODE_MAGIC;
        n->graph = c;
        n->type = o->type;
        n->id = o->id;
        n->dev = o->dev;
        n->origin = o;
        c->nodes[c->n_nodes++] = n;
        if (graph_node_copy_params(n, o)) {
            graph_free(c);
            return NULL;
        }
    }
    c->next_id = g->next_id;
    /* Edges: the same indices (both arrays are in the same order). */
    for (size_t i = 0; i < g->n_nodes; i++) {
        cudaGraphNode_t o = g->nodes[i];
        for (size_t j = 0; j < o->n_deps; j++) {
            size_t k = 0;
            while (g->nodes[k] != o->deps[j]) {
                k++;
            }
            if (graph_edge_add(c->nodes[k], c->nodes[i])) {
                graph_free(c);
                return NULL;
            }
        }
    }
    if (graph_users_copy(c, g)) {
        graph_free(c);
        return NULL;
    }
    return c;
}

static cudaError_t clone_graph(cudaGraph_t *pc, cudaGraph_t g)
{
    if (!pc || !graph_valid(g)) {
        return cudaErrorInvalidValue;
    }
    *pc = graph_clone(g);
    return *pc ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
    SERVE(clone_graph(pGraphClone, originalGraph));
}

static cudaError_t find_in_clone(cudaGraphNode_t *pn, cudaGraphNode_t o,
                                 cudaGraph_t c)
{
    if (!pn || !graph_node_valid(o) || !graph_valid(c)) {
        return cudaErrorInvalidValue;
    }
    for (size_t i = 0; i < c->n_nodes; i++) {
        if (c->nodes[i]->origin == o) {
            *pn = c->nodes[i];
            return cudaSuccess;
        }
    }
    return cudaErrorInvalidValue;
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode,
                                     cudaGraphNode_t originalNode,
                                     cudaGraph_t clonedGraph)
{
    SERVE(find_in_clone(pNode, originalNode, clonedGraph));
}

/* ---- structure ------------------------------------------------------------------ */

static cudaError_t node_type(cudaGraphNode_t n, enum cudaGraphNodeType *t)
{
    if (!graph_node_valid(n) || !t) {
        return cudaErrorInvalidValue;
    }
    *t = n->type;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node,
                                 enum cudaGraphNodeType *pType)
{
    SERVE(node_type(node, pType));
}

/*
 * The usual CUDA list query: with out NULL, *count is set to how many
 * there are; else up to *count are written (the rest of out zeroed when
 * there are fewer) and *count is set to how many were.
 */
static void list_out(cudaGraphNode_t *out, size_t *count,
                     const cudaGraphNode_t *v, size_t n, bool roots_only)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (roots_only && v[i]->n_deps) {
            continue;
        }
        if (out && k < *count) {
            out[k] = v[i];
        }
        k++;
    }
    if (out) {
        for (size_t i = k; i < *count; i++) {
            out[i] = NULL;
        }
        if (k > *count) {
            k = *count;
        }
    }
    *count = k;
}

static void edata_zero(cudaGraphEdgeData *e, size_t from, size_t to)
{
    if (e && to > from) {
        memset(e + from, 0, (to - from) * sizeof(*e));
    }
}

static cudaError_t get_nodes(cudaGraph_t g, cudaGraphNode_t *nodes,
                             size_t *num, bool roots)
{
    if (!graph_valid(g) || !num) {
        return cudaErrorInvalidValue;
    }
    list_out(nodes, num, g->nodes, g->n_nodes, roots);
    return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
                              size_t *numNodes)
{
    SERVE(get_nodes(graph, nodes, numNodes, false));
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph,
                                  cudaGraphNode_t *pRootNodes,
                                  size_t *pNumRootNodes)
{
    SERVE(get_nodes(graph, pRootNodes, pNumRootNodes, true));
}

static cudaError_t get_edges(cudaGraph_t g, cudaGraphNode_t *from,
                             cudaGraphNode_t *to, cudaGraphEdgeData *ed,
                             size_t *num)
{
    if (!graph_valid(g) || !num || (!from) != (!to) || (ed && !from)) {
        return cudaErrorInvalidValue;
    }
    size_t k = 0;
    for (size_t i = 0; i < g->n_nodes; i++) {
        cudaGraphNode_t n = g->nodes[i];
        for (size_t j = 0; j < n->n_deps; j++, k++) {
            if (from && k < *num) {
                from[k] = n->deps[j];
                to[k] = n;
            }
        }
    }
    if (from) {
        for (size_t i = k; i < *num; i++) {
            from[i] = to[i] = NULL;
        }
        edata_zero(ed, 0, *num);
        if (k > *num) {
            *num = k;
            return cudaErrorLossyQuery;
        }
    }
    *num = k;
    return cudaSuccess;
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from,
                              cudaGraphNode_t *to, cudaGraphEdgeData *edgeData,
                              size_t *numEdges)
{
    SERVE(get_edges(graph, from, to, edgeData, numEdges));
}

static cudaError_t node_links(cudaGraphNode_t n, cudaGraphNode_t *out,
                              cudaGraphEdgeData *ed, size_t *num, bool deps)
{
    if (!graph_node_valid(n) || !num || (ed && !out)) {
        return cudaErrorInvalidValue;
    }
    size_t cap = *num;
    list_out(out, num, deps ? n->deps : n->outs, deps ? n->n_deps : n->n_outs,
             false);
    if (out) {
        edata_zero(ed, 0, cap);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node,
                                         cudaGraphNode_t *pDependencies,
                                         cudaGraphEdgeData *edgeData,
                                         size_t *pNumDependencies)
{
    SERVE(node_links(node, pDependencies, edgeData, pNumDependencies, true));
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node,
                                           cudaGraphNode_t *pDependentNodes,
                                           cudaGraphEdgeData *edgeData,
                                           size_t *pNumDependentNodes)
{
    SERVE(node_links(node, pDependentNodes, edgeData, pNumDependentNodes,
                     false));
}

/* Only default edges exist here (no programmatic dependencies). */
static bool edata_default(const cudaGraphEdgeData *ed, size_t n)
{
    static const cudaGraphEdgeData zero;
    for (size_t i = 0; ed && i < n; i++) {
        if (memcmp(&ed[i], &zero, sizeof(zero))) {
            return false;
        }
    }
    return true;
}

static cudaError_t change_deps(cudaGraph_t g, const cudaGraphNode_t *from,
                               const cudaGraphNode_t *to,
                               const cudaGraphEdgeData *ed, size_t n, bool add)
{
    if (!graph_valid(g) || (n && (!from || !to))) {
        return cudaErrorInvalidValue;
    }
    if (!edata_default(ed, n)) {
        return cudaErrorNotSupported;
    }
    for (size_t i = 0; i < n; i++) {
        if (!graph_node_valid(from[i]) || !graph_node_valid(to[i]) ||
            from[i]->graph != g || to[i]->graph != g || from[i] == to[i]) {
            return cudaErrorInvalidValue;
        }
        if (add == has(to[i]->deps, to[i]->n_deps, from[i])) {
            return cudaErrorInvalidValue;   /* exists / does not exist */
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (!add) {
            edge_remove(from[i], to[i]);
        } else if (graph_edge_add(from[i], to[i])) {
            return cudaErrorMemoryAllocation;
        }
    }
    return cudaSuccess;
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph,
                                     const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to,
                                     const cudaGraphEdgeData *edgeData,
                                     size_t numDependencies)
{
    SERVE(change_deps(graph, from, to, edgeData, numDependencies, true));
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph,
                                        const cudaGraphNode_t *from,
                                        const cudaGraphNode_t *to,
                                        const cudaGraphEdgeData *edgeData,
                                        size_t numDependencies)
{
    SERVE(change_deps(graph, from, to, edgeData, numDependencies, false));
}

void graph_node_destroy(cudaGraphNode_t n)
{
    cudaGraph_t g = n->graph;
    while (n->n_deps) {
        edge_remove(n->deps[0], n);
    }
    while (n->n_outs) {
        edge_remove(n, n->outs[0]);
    }
    drop(g->nodes, &g->n_nodes, n);
    node_free(n);
}

static cudaError_t destroy_node(cudaGraphNode_t n)
{
    if (!graph_node_valid(n)) {
        return cudaErrorInvalidValue;
    }
    graph_node_destroy(n);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node)
{
    SERVE(destroy_node(node));
}

/* ---- cudaGraphDebugDotPrint --------------------------------------------------- */

static const char *type_name(enum cudaGraphNodeType t)
{
    static const char *const names[] = {
        "KERNEL", "MEMCPY", "MEMSET", "HOST", "GRAPH", "EMPTY",
        "WAIT_EVENT", "EVENT_RECORD", "EXT_SEMAS_SIGNAL", "EXT_SEMAS_WAIT",
        "MEM_ALLOC", "MEM_FREE", "BATCH_MEM_OP", "CONDITIONAL",
    };
    return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

static void dot_graph(FILE *f, cudaGraph_t g, const char *prefix,
                      unsigned flags)
{
    for (size_t i = 0; i < g->n_nodes; i++) {
        cudaGraphNode_t n = g->nodes[i];
        fprintf(f, "  \"%s%u\" [shape=box label=\"%s %u", prefix, n->id,
                type_name(n->type), n->id);
        if ((flags & cudaGraphDebugDotFlagsVerbose) &&
            n->type == cudaGraphNodeTypeKernel) {
            const struct cudaKernelNodeParams *p = &n->u.k.p;
            fprintf(f, "\\ngrid (%u,%u,%u) block (%u,%u,%u) smem %u",
                    p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x,
                    p->blockDim.y, p->blockDim.z, p->sharedMemBytes);
        }
        fprintf(f, "\"];\n");
        for (size_t j = 0; j < n->n_deps; j++) {
            fprintf(f, "  \"%s%u\" -> \"%s%u\";\n", prefix, n->deps[j]->id,
                    prefix, n->id);
        }
        if (n->type == cudaGraphNodeTypeGraph && n->u.child) {
            char sub[256];
            snprintf(sub, sizeof(sub), "%s%u.", prefix, n->id);
            fprintf(f, "  subgraph \"cluster_%s\" {\n", sub);
            dot_graph(f, n->u.child, sub, flags);
            fprintf(f, "  }\n");
        }
    }
}

static cudaError_t dot_print(cudaGraph_t g, const char *path, unsigned flags)
{
    if (!graph_valid(g) || !path) {
        return cudaErrorInvalidValue;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        return cudaErrorOperatingSystem;
    }
    fprintf(f, "digraph p2psim_graph {\n  compound=true;\n");
    dot_graph(f, g, "n", flags);
    fprintf(f, "}\n");
    return fclose(f) ? cudaErrorOperatingSystem : cudaSuccess;
}

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path,
                                   unsigned int flags)
{
    SERVE(dot_print(graph, path, flags));
}
