/*
 * cuda/cudart/stream_int.h - what the files of streams share among
 * themselves: stream_op.c (fences, the operation queue, timed
 * operations), stream.c (streams, host functions), event.c (events).
 *
 * Every function here is called with the runtime lock held.
 */
#ifndef P2PSIM_CUDA_CUDART_STREAM_INT_H
#define P2PSIM_CUDA_CUDART_STREAM_INT_H

#include <stdbool.h>

#include "cuda/cudart/rt.h"

struct graph_cap_stream;

struct rt_stream {
    int dev;
    unsigned flags;             /* cudaStreamNonBlocking */
    int priority;
    bool legacy, per_thread;
    bool destroyed;             /* freed once its queue drains */
    unsigned long long id;
    struct rt_op *head, *tail;  /* started ops first */
    unsigned pumping;           /* stream_pump calls under way */
    struct rt_fence *last;      /* fence of the last op enqueued */
    struct graph_cap_stream *capture;   /* capturing (graph_capture.c) */
    cudaLaunchAttributeValue attrs[11]; /* stream attributes by id, but
                                           the priority (stream_attr.c) */
    struct rt_stream *next;     /* rt.streams */
};

/* An op that ends at its start plus a fixed time, running act() then. */
struct timed_op {
    struct rt_op op;
    sim_time_t duration;
    void (*act)(struct timed_op *t);
    /* for host functions and callbacks */
    cudaHostFn_t fn;
    cudaStreamCallback_t cb;
    cudaStream_t handle;
    void *data;
};

/* Every live event (event.c). */
extern struct CUevent_st *stream_events;

/* ---- stream_op.c ---- */

/* Take s out of rt.streams and free it (destroyed, its queue drained). */
void stream_free(struct rt_stream *s);
/* A timed op (what: its name in traces) that lasts duration. */
struct timed_op *stream_timed_new(const char *what, sim_time_t duration);

/* ---- stream.c ---- */

/* Bring the simulation up to the caller's clock (for queries). */
cudaError_t stream_catch_up(void);
/* A handle the caller may name: special handles resolve too. */
cudaError_t stream_lookup(cudaStream_t h, struct rt_stream **out);

#endif /* P2PSIM_CUDA_CUDART_STREAM_INT_H */
