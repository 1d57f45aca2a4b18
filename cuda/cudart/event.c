/*
 * cuda/cudart/event.c - events: create, record, query, synchronize,
 * elapsed time, destroy, and cudaStreamWaitEvent.
 *
 * An event holds the fence of the operation cudaEventRecord enqueued;
 * cudaStreamWaitEvent enqueues an operation that depends on it. Queries
 * answer for the caller's clock (stream.c says how).
 */
#include <config.h>

#include "cuda/cudart/stream_int.h"

#include "cuda/cudart/graph_int.h"

#include <stdlib.h>
#include <string.h>

struct CUevent_st *stream_events;

/* ---- events ---------------------------------------------------------------------- */

#define EVENT_FLAGS                                                           \
    (cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess)

cudaError_t rt_event_new(int dev, unsigned flags, struct CUevent_st **out)
{
    struct CUevent_st *ev = calloc(1, sizeof(*ev));
    if (!ev) {
        return cudaErrorMemoryAllocation;
    }
    ev->dev = dev;
    ev->flags = flags;
    ev->next = stream_events;
    stream_events = ev;
    *out = ev;
    return cudaSuccess;
}

static cudaError_t event_create(cudaEvent_t *pe, unsigned flags)
{
    if (!pe || (flags & ~(unsigned)EVENT_FLAGS)) {
        return cudaErrorInvalidValue;
    }
    /* Interprocess events must not time (CUDA's rule). */
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)) {
        return cudaErrorInvalidValue;
    }
    rt_charge(rt_costs[RT_COST_CALL]);
    return rt_event_new(rt_current_device(), flags, pe);
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    RT_SERVE(RT_NO_COST, event_create(event, 0));
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    RT_SERVE(RT_NO_COST, event_create(event, flags));
}

struct CUevent_st *rt_event_find(cudaEvent_t e)
{
    for (struct CUevent_st *ev = stream_events; ev; ev = ev->next) {
        if (ev == e) {
            return ev;
        }
    }
    return NULL;
}

/* The fence an event stands for now (referenced), NULL if never
 * recorded. */
static struct rt_fence *event_fence(struct CUevent_st *ev)
{
    return ev->ipc ? rt_ipc_event_fence(ev) : rt_fence_ref(ev->f);
}

static cudaError_t event_record(cudaEvent_t e, cudaStream_t h, unsigned flags)
{
    struct CUevent_st *ev = rt_event_find(e);
    if (!ev) {
        return cudaErrorInvalidResourceHandle;
    }
    if (flags & ~(unsigned)cudaEventRecordExternal) {
        return cudaErrorInvalidValue;
    }
    struct rt_stream *s = rt_stream_resolve(h, ev->dev);
    if (!s) {
        return cudaErrorInvalidResourceHandle;
    }
    if (s->dev != ev->dev) {
        return cudaErrorInvalidResourceHandle;
    }
    cudaError_t ce;
    if (rt_capture_event(ev, h, false, &ce)) {
        rt_charge(rt_costs[RT_COST_CALL]);
        return ce;
    }
    rt_charge(rt_costs[RT_COST_EVENT_RECORD]);
    struct timed_op *t = stream_timed_new("event record", 0);
    if (!t) {
        return cudaErrorMemoryAllocation;
    }
    struct rt_fence *f = rt_fence_ref(t->op.fence);
    cudaError_t err = rt_enqueue(s, &t->op);
    if (err) {
        rt_fence_put(f);
        return err;
    }
    rt_fence_put(ev->f);
    ev->f = f;
    if (ev->ipc) {
        rt_ipc_event_recorded(ev, f);
    }
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, event_record(event, stream, 0));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                     unsigned int flags)
{
    RT_SERVE(RT_NO_COST, event_record(event, stream, flags));
}

static cudaError_t event_query(cudaEvent_t e)
{
    struct CUevent_st *ev = rt_event_find(e);
    if (!ev) {
        return cudaErrorInvalidResourceHandle;
    }
    struct rt_fence *f = event_fence(ev);
    if (!f) {
        return cudaSuccess; /* never recorded: complete (CUDA) */
    }
    cudaError_t err = stream_catch_up();
    if (!err && !f->done) {
        err = cudaErrorNotReady;
    }
    rt_fence_put(f);
    return err;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    RT_SERVE(RT_NO_COST, event_query(event));
}

static cudaError_t event_sync(cudaEvent_t e)
{
    struct CUevent_st *ev = rt_event_find(e);
    if (!ev) {
        return cudaErrorInvalidResourceHandle;
    }
    struct rt_fence *f = event_fence(ev);
    if (!f) {
        return cudaSuccess;
    }
    cudaError_t err = rt_wait(rt_fence_done, f, SIM_TIME_MAX);
    if (!err) {
        err = f->status;
    }
    rt_fence_put(f);
    return err;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    RT_SERVE(RT_NO_COST, event_sync(event));
}

static cudaError_t elapsed(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    if (!ms) {
        return cudaErrorInvalidValue;
    }
    struct CUevent_st *ea = rt_event_find(a), *eb = rt_event_find(b);
    if (!ea || !eb) {
        return cudaErrorInvalidResourceHandle;
    }
    if ((ea->flags | eb->flags) & cudaEventDisableTiming) {
        return cudaErrorInvalidResourceHandle;
    }
    if (!ea->f || !eb->f || ea->dev != eb->dev) {
        return cudaErrorInvalidResourceHandle;
    }
    cudaError_t e = stream_catch_up();
    if (e) {
        return e;
    }
    if (!ea->f->done || !eb->f->done) {
        return cudaErrorNotReady;
    }
    double d = (double)eb->f->t - (double)ea->f->t;
    *ms = (float)(d / (double)SIM_PS_PER_MS);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start,
                                 cudaEvent_t end)
{
    RT_SERVE(RT_NO_COST, elapsed(ms, start, end));
}

static cudaError_t event_destroy(cudaEvent_t e)
{
    for (struct CUevent_st **pp = &stream_events; *pp; pp = &(*pp)->next) {
        if (*pp == e) {
            struct CUevent_st *ev = *pp;
            *pp = ev->next;
            if (ev->ipc) {
                rt_ipc_event_destroy(ev);
            }
            rt_fence_put(ev->f);
            free(ev);
            return cudaSuccess;
        }
    }
    return cudaErrorInvalidResourceHandle;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    RT_SERVE(RT_NO_COST, event_destroy(event));
}

static cudaError_t stream_wait_event(cudaStream_t h, cudaEvent_t e,
                                     unsigned flags)
{
    if (flags & ~(unsigned)cudaEventWaitExternal) {
        return cudaErrorInvalidValue;
    }
    struct rt_stream *s;
    cudaError_t err = stream_lookup(h, &s);
    if (err) {
        return err;
    }
    struct CUevent_st *ev = rt_event_find(e);
    if (!ev) {
        return cudaErrorInvalidResourceHandle;
    }
    rt_charge(rt_costs[RT_COST_CALL]);
    if (rt_capture_event(ev, h, true, &err)) {
        return err;
    }
    struct rt_fence *f = event_fence(ev);
    if (!f) {
        return cudaSuccess; /* never recorded: nothing to wait for */
    }
    struct timed_op *t = stream_timed_new("event wait", 0);
    if (!t) {
        rt_fence_put(f);
        return cudaErrorMemoryAllocation;
    }
    err = rt_op_depend(&t->op, f);
    rt_fence_put(f);
    if (err) {
        rt_op_discard(&t->op);
        return err;
    }
    return rt_enqueue(s, &t->op);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                unsigned int flags)
{
    RT_SERVE(RT_NO_COST, stream_wait_event(stream, event, flags));
}
