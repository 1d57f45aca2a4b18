/*
 * cuda/cudart/graph_int.h - what the files of graphs share among
 * themselves: graph.c (graphs, nodes, edges, clone, dot), graph_node.c
 * (node parameters), graph_exec.c (executable graphs, launch, update),
 * graph_cond.c (conditional nodes), graph_capture.c (stream capture), and the capture hooks the files that
 * queue stream work call (stream_int.h's rt_stream.capture).
 *
 * A graph is a list of nodes in creation order; a node holds its
 * parameters as the program gave them (kernel arguments copied), its
 * incoming and outgoing edges. Every function here is called with the
 * runtime lock held unless it says otherwise.
 */
#ifndef P2PSIM_CUDA_CUDART_GRAPH_INT_H
#define P2PSIM_CUDA_CUDART_GRAPH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda/cudart/rt.h"

#define GRAPH_MAGIC 0x67726170u /* "grap" */
#define GRAPH_NODE_MAGIC 0x6e6f6465u
#define GRAPH_EXEC_MAGIC 0x65786563u

/* A kernel node's parameters, with its own copy of the arguments. */
struct graph_kernel {
    struct cudaKernelNodeParams p;  /* p.kernelParams: argv below */
    unsigned n_args;
    void **argv;                    /* into args */
    uint8_t *args;
};

/* Graph memory: what an allocation node allocates (graph_node.c). */
struct graph_mem {
    unsigned refs;
    int dev;
    void *dptr;
    size_t size;
    struct graph_mem *next;         /* every one (cudaDeviceGetGraphMem...) */
};

/* A conditional node (graph_cond.c): its handle, type and bodies (owned);
 * in an executable graph's copy, each body instantiated. */
struct graph_cond_node {
    cudaGraphConditionalHandle handle;
    enum cudaGraphConditionalNodeType type;
    unsigned size;
    cudaGraph_t *bodies;            /* [size] */
    cudaGraphExec_t *execs;         /* [size], or NULL */
};

struct CUgraphNode_st {
    unsigned magic;
    struct CUgraph_st *graph;
    enum cudaGraphNodeType type;
    unsigned id;                    /* creation order in its graph */
    int dev;                        /* device current when it was made */
    union {
        struct graph_kernel k;
        struct cudaMemcpy3DParms copy;
        struct cudaMemsetParams set;
        struct cudaHostNodeParams host;
        cudaGraph_t child;          /* owned: a clone of the program's */
        cudaEvent_t event;
        struct {
            struct cudaMemAllocNodeParams params;
            struct graph_mem *mem;
        } alloc;
        void *free_ptr;
        struct graph_cond_node cond;
    } u;
    cudaGraphNode_t *deps, *outs;   /* incoming, outgoing edges */
    size_t n_deps, n_outs, cap_deps, cap_outs;
    cudaGraphNode_t origin;         /* the node this one was cloned from */
};

struct graph_user_ref;

struct CUgraph_st {
    unsigned magic;
    cudaGraphNode_t *nodes;
    size_t n_nodes, cap_nodes;
    unsigned next_id;
    bool capturing;                 /* a capture builds it */
    struct graph_user_ref *users;   /* user objects it holds */
};

/* ---- graph.c ---- */

bool graph_valid(cudaGraph_t g);
bool graph_node_valid(cudaGraphNode_t n);
cudaGraph_t graph_new(void);
void graph_free(cudaGraph_t g);
/* A new node of g of type, depending on deps (checked: nodes of g). */
cudaError_t graph_add(cudaGraph_t g, enum cudaGraphNodeType type,
                      const cudaGraphNode_t *deps, size_t n_deps,
                      cudaGraphNode_t *out);
/* Add the edge from -> to (0 or cudaErrorMemoryAllocation; an edge that
 * exists already is not added twice). */
cudaError_t graph_edge_add(cudaGraphNode_t from, cudaGraphNode_t to);
/* Take n out of its graph (its edges too) and free it. */
void graph_node_destroy(cudaGraphNode_t n);
/* A deep copy of g (NULL: out of memory); nodes remember their origin. */
cudaGraph_t graph_clone(cudaGraph_t g);
/* The nodes of g in an order where every node follows its dependencies
 * (malloc'd, n_nodes long), or NULL (out of memory or a cycle: *cycle). */
cudaGraphNode_t *graph_topo_order(cudaGraph_t g, bool *cycle);

/* ---- graph_node.c ---- */

/* Copy p into n's kernel parameters (arguments copied; sizes from the
 * kernel's parameter list). */
cudaError_t graph_kernel_set(struct graph_kernel *k,
                             const struct cudaKernelNodeParams *p);
void graph_kernel_clear(struct graph_kernel *k);
/* Copy src's parameters into dst (same type), deeply. */
cudaError_t graph_node_copy_params(cudaGraphNode_t dst, cudaGraphNode_t src);
/* Release what a node's parameters own. */
void graph_node_clear(cudaGraphNode_t n);
/* Check a copy's or memset's parameters (what CUDA checks when the node
 * is made). */
cudaError_t graph_copy_check(const struct cudaMemcpy3DParms *p);
cudaError_t graph_set_check(const struct cudaMemsetParams *p);
/* The 3D form of a one-dimensional copy. */
struct cudaMemcpy3DParms graph_copy_1d(void *dst, const void *src,
                                       size_t count, enum cudaMemcpyKind kind);
/* Graph memory for an allocation node of dev, size bytes, allocated now. */
cudaError_t graph_mem_new(int dev, size_t size, struct graph_mem **out);
void graph_mem_put(struct graph_mem *m);
/* Whether a free node may name ptr: device memory, or graph memory (live
 * or not); *dev: its device. */
bool graph_mem_freeable(const void *ptr, int *dev);
/* Make m's allocation live again at its address (a launch reaching its
 * node after the program freed it). */
cudaError_t graph_mem_revive(struct graph_mem *m);

/* User objects a graph holds (graph_node.c): dropped with the graph, copied
 * into a clone (each reference retained once more). */
void graph_users_drop(cudaGraph_t g);
cudaError_t graph_users_copy(cudaGraph_t dst, cudaGraph_t src);

/* ---- graph_cond.c ---- */

/* Release or copy (bodies cloned) a conditional node's parameters. */
void graph_cond_clear(cudaGraphNode_t n);
cudaError_t graph_cond_copy(cudaGraphNode_t dst, cudaGraphNode_t src);
/* Instantiate (lock not held) the bodies of g's conditional nodes, child
 * graphs' too; graph_cond_release destroys them. */
cudaError_t graph_cond_instantiate(cudaGraph_t g);
void graph_cond_release(cudaGraph_t g);
/* A launch of g on h: the handles' defaults queued first (lock not held). */
cudaError_t graph_cond_defaults(cudaGraph_t g, cudaStream_t h);
/* Conditional node n of an executable graph reached on chain stream s of
 * device dev: its value read when s gets there, the body queued (lock not
 * held). */
cudaError_t graph_cond_run(cudaGraphNode_t n, cudaStream_t s, int dev);

/* ---- graph_exec.c ---- */

/* Queue x's work after stream h's, as a launch does (lock not held). */
cudaError_t graph_exec_replay(cudaGraphExec_t x, cudaStream_t h, int dev);

/* ---- graph_capture.c ---- */

/* Whether s is capturing (its capture may be invalidated). */
bool graph_capturing(const struct rt_stream *s);
/* The capture of s has met something it cannot capture: invalidated. */
void graph_capture_invalidate(struct rt_stream *s);
/* Add a node made by a call on capturing stream s: type, set up by fill
 * (which may fail) with arg; the stream's capture frontier becomes it. */
cudaError_t graph_capture_node(struct rt_stream *s,
                               enum cudaGraphNodeType type,
                               cudaError_t (*fill)(cudaGraphNode_t n,
                                                   const void *arg),
                               const void *arg);
/* The launch of an executable graph into a capturing stream: a child
 * graph node of a clone of its graph. */
cudaError_t graph_capture_child(struct rt_stream *s, cudaGraph_t g);

/*
 * The hooks (graph_capture.c). Each rt_capture_X is asked first by the
 * call that queues X on stream h: true when h is capturing, and then *e
 * is the call's result (a node was added, or why not) and nothing is
 * queued; false when the call goes on as usual. Lock held.
 */
bool rt_capture_kernel(const void *key, bool by_stub, dim3 grid, dim3 block,
                       size_t smem, void **args, cudaStream_t h,
                       bool per_thread, cudaError_t *e);
bool rt_capture_copy(void *dst, const void *src, size_t count,
                     enum cudaMemcpyKind kind, cudaStream_t h, cudaError_t *e);
bool rt_capture_memset(void *dst, int value, size_t count, cudaStream_t h,
                       cudaError_t *e);
bool rt_capture_host(cudaHostFn_t fn, void *data, cudaStream_t h,
                     cudaError_t *e);
bool rt_capture_malloc(void **ptr, size_t size, cudaMemPool_t pool,
                       cudaStream_t h, cudaError_t *e);
bool rt_capture_free(void *ptr, cudaStream_t h, cudaError_t *e);
/* cudaEventRecord (wait false; h: the stream recorded on) or
 * cudaStreamWaitEvent (wait true; h: the stream that waits). */
bool rt_capture_event(struct CUevent_st *ev, cudaStream_t h, bool wait,
                      cudaError_t *e);
/* An op reaches s's queue (rt_enqueue): 0, or the capture error that
 * refuses it. */
cudaError_t rt_capture_enqueue(struct rt_stream *s);
/* A wait for stream s (NULL: for a device, cudaDeviceSynchronize): 0, or
 * the capture error that refuses it. */
cudaError_t rt_capture_check_sync(struct rt_stream *s);
/* cudaStreamIsCapturing's answer for s. */
cudaError_t rt_capture_status(struct rt_stream *s,
                              enum cudaStreamCaptureStatus *st);
cudaError_t rt_capture_exchange_mode(enum cudaStreamCaptureMode *mode);
/* s is being destroyed. */
void rt_capture_stream_gone(struct rt_stream *s);

/* ---- launch.c ---- */

/*
 * rt_kernel_arg_sizes - (launch.c) the size of each parameter of the
 * kernel whose host stub is stub: *n of them in sizes (malloc'd; NULL
 * when none). cudaErrorInvalidDeviceFunction when it is no kernel. Both
 * locks held.
 */
cudaError_t rt_kernel_arg_sizes(const void *stub, size_t **sizes,
                                unsigned *n);

#endif /* P2PSIM_CUDA_CUDART_GRAPH_INT_H */
