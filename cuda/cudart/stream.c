/*
 * cuda/cudart/stream.c - streams (create, destroy, synchronize, query,
 * their properties), host functions on streams, and the per-thread
 * default stream twins of the stream and event calls. The operation queue
 * is stream_op.c's, events are event.c's (stream_int.h is what they share).
 *
 * The legacy default stream synchronizes implicitly (CUDA's "Stream
 * synchronization behavior"): work on the legacy stream of a device waits
 * for all blocking streams of that device, and work on a blocking stream
 * waits for the legacy stream. Streams created with cudaStreamNonBlocking
 * do neither. The per-thread default stream is a blocking stream.
 *
 * Queries (cudaStreamQuery, cudaEventQuery) answer for the caller's
 * clock: the simulation is brought up to it first (stream_catch_up, rt_wait
 * with a deadline), so a copy that would have finished by then reports
 * done.
 */
#include <config.h>

#include "cuda/cudart/stream_int.h"

#include "cuda/cudart/graph_int.h"

#include <stdlib.h>
#include <string.h>

#include "cuda/include/p2psim_cudart_internal.h"

static unsigned long long next_stream_id = 1;

/* ---- streams -------------------------------------------------------------------- */

static struct rt_stream *stream_new(int dev, unsigned flags, int priority)
{
    struct rt_stream *s = calloc(1, sizeof(*s));
    if (!s) {
        return NULL;
    }
    s->dev = dev;
    s->flags = flags;
    s->priority = priority;
    s->id = next_stream_id++;
    s->next = rt.streams;
    rt.streams = s;
    return s;
}

struct rt_stream *rt_stream_new_legacy(int dev)
{
    struct rt_stream *s = stream_new(dev, 0, 0);
    if (s) {
        s->legacy = true;
    }
    return s;
}

static struct rt_stream *legacy_of(int dev)
{
    if (!rt.dev[dev].legacy) {
        if (rt_device_init(dev) != cudaSuccess) {
            return NULL;
        }
    }
    return rt.dev[dev].legacy;
}

static struct rt_stream *per_thread_of(int dev)
{
    struct rt_thread *t = rt_self();
    if (!t->per_thread) {
        t->per_thread = calloc(rt.n_dev, sizeof(*t->per_thread));
        if (!t->per_thread) {
            return NULL;
        }
    }
    if (!t->per_thread[dev]) {
        if (!rt.dev[dev].initialized && rt_device_init(dev) != cudaSuccess) {
            return NULL;
        }
        struct rt_stream *s = stream_new(dev, 0, 0);
        if (s) {
            s->per_thread = true;
        }
        t->per_thread[dev] = s;
    }
    return t->per_thread[dev];
}

struct rt_stream *rt_stream_resolve(cudaStream_t h, int dev)
{
    if (dev < 0) {
        dev = rt_current_device();
    }
    if (h == NULL || h == cudaStreamLegacy) {
        return legacy_of(dev);
    }
    if (h == cudaStreamPerThread) {
        return per_thread_of(dev);
    }
    for (struct rt_stream *s = rt.streams; s; s = s->next) {
        if ((cudaStream_t)s == h && !s->destroyed) {
            return s;
        }
    }
    return NULL;
}

int rt_stream_device(const struct rt_stream *s)
{
    return s->dev;
}

struct rt_fence *rt_stream_tail(struct rt_stream *s)
{
    return rt_fence_ref(s->last);
}

static bool stream_idle(void *arg)
{
    const struct rt_stream *s = arg;
    return !s->last || s->last->done;
}

cudaError_t rt_stream_sync(struct rt_stream *s)
{
    cudaError_t ce = rt_capture_check_sync(s);
    if (ce) {
        return ce;
    }
    struct rt_fence *f = rt_stream_tail(s);
    if (!f) {
        return cudaSuccess;
    }
    cudaError_t e = rt_wait(rt_fence_done, f, SIM_TIME_MAX);
    if (!e && f->status) {
        e = f->status;
    }
    rt_fence_put(f);
    return e;
}

struct dev_wait {
    int dev;
};

static bool device_idle(void *arg)
{
    const struct dev_wait *w = arg;
    for (struct rt_stream *s = rt.streams; s; s = s->next) {
        if ((w->dev < 0 || s->dev == w->dev) && s->head) {
            return false;
        }
    }
    return true;
}

cudaError_t rt_device_sync(int dev)
{
    struct dev_wait w = { dev };
    cudaError_t e = rt_capture_check_sync(NULL);
    if (e) {
        return e;
    }
    e = rt_wait(device_idle, &w, SIM_TIME_MAX);
    if (!e) {
        e = cudart_error_sticky();
    }
    return e;
}

/* Bring the simulation up to the caller's clock (for queries). */
cudaError_t stream_catch_up(void)
{
    sim_time_t clock = rt_self()->clock;
    if (rt_machine->now() >= clock) {
        return cudaSuccess;
    }
    sim_time_t keep = clock;
    cudaError_t e = rt_wait(NULL, NULL, clock);
    /* A query is not a synchronization: no wake-up cost. */
    rt_self()->clock = keep > rt_self()->clock ? keep : rt_self()->clock;
    return e;
}

static cudaError_t stream_create(cudaStream_t *ps, unsigned flags,
                                 int priority)
{
    if (!ps || (flags & ~(unsigned)cudaStreamNonBlocking)) {
        return cudaErrorInvalidValue;
    }
    int dev = rt_current_device();
    if (!rt.dev[dev].initialized) {
        cudaError_t e = rt_device_init(dev);
        if (e) {
            return e;
        }
    }
    /* Hopper's range is [-5, 0]; values outside are clamped (CUDA). */
    if (priority < -5) {
        priority = -5;
    }
    if (priority > 0) {
        priority = 0;
    }
    struct rt_stream *s = stream_new(dev, flags, priority);
    if (!s) {
        return cudaErrorMemoryAllocation;
    }
    *ps = (cudaStream_t)s;
    rt_charge(rt_costs[RT_COST_CALL]);
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    RT_SERVE(RT_NO_COST, stream_create(pStream, 0, 0));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream,
                                      unsigned int flags)
{
    RT_SERVE(RT_NO_COST, stream_create(pStream, flags, 0));
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream,
                                         unsigned int flags, int priority)
{
    RT_SERVE(RT_NO_COST, stream_create(pStream, flags, priority));
}

/* A handle the caller may name: special handles resolve too. */
cudaError_t stream_lookup(cudaStream_t h, struct rt_stream **out)
{
    *out = rt_stream_resolve(h, -1);
    return *out ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

void rt_stream_reset_device(int dev)
{
    struct rt_stream *next;
    for (struct rt_stream *s = rt.streams; s; s = next) {
        next = s->next;
        if (s->dev == dev && !s->legacy && !s->destroyed) {
            s->destroyed = true;
            if (!s->head) {
                stream_free(s);
            }
        }
    }
    for (struct rt_thread *t = rt.threads; t; t = t->next) {
        if (t->per_thread) {
            t->per_thread[dev] = NULL;
        }
    }
    for (struct CUevent_st **pp = &stream_events; *pp;) {
        struct CUevent_st *ev = *pp;
        if (ev->dev == dev) {
            *pp = ev->next;
            if (ev->ipc) {
                rt_ipc_event_destroy(ev);
            }
            rt_fence_put(ev->f);
            free(ev);
        } else {
            pp = &ev->next;
        }
    }
}

static cudaError_t stream_destroy(cudaStream_t h)
{
    if (h == NULL || h == cudaStreamLegacy || h == cudaStreamPerThread) {
        return cudaErrorInvalidResourceHandle;
    }
    struct rt_stream *s;
    cudaError_t e = stream_lookup(h, &s);
    if (e) {
        return e;
    }
    /* Work already queued still runs (CUDA); the handle dies now. */
    rt_capture_stream_gone(s);
    s->destroyed = true;
    if (!s->head) {
        stream_free(s);
    }
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, stream_destroy(stream));
}

static cudaError_t stream_synchronize(cudaStream_t h)
{
    struct rt_stream *s;
    cudaError_t e = stream_lookup(h, &s);
    return e ? e : rt_stream_sync(s);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, stream_synchronize(stream));
}

static cudaError_t stream_query(cudaStream_t h)
{
    struct rt_stream *s;
    cudaError_t e = stream_lookup(h, &s);
    if (!e) {
        e = stream_catch_up();
    }
    if (!e && !stream_idle(s)) {
        e = cudaErrorNotReady;
    }
    return e;
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, stream_query(stream));
}

static cudaError_t stream_get(cudaStream_t h, unsigned *flags, int *prio,
                              int *dev, unsigned long long *id)
{
    if ((flags == NULL) + (prio == NULL) + (dev == NULL) + (id == NULL) != 3) {
        return cudaErrorInvalidValue;
    }
    struct rt_stream *s;
    cudaError_t e = stream_lookup(h, &s);
    if (e) {
        return e;
    }
    if (flags) {
        *flags = s->flags;
    }
    if (prio) {
        *prio = s->priority;
    }
    if (dev) {
        *dev = s->dev;
    }
    if (id) {
        *id = s->id;
    }
    return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    RT_SERVE(RT_NO_COST, stream_get(hStream, flags, NULL, NULL, NULL));
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    RT_SERVE(RT_NO_COST, stream_get(hStream, NULL, priority, NULL, NULL));
}

cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device)
{
    RT_SERVE(RT_NO_COST, stream_get(hStream, NULL, NULL, device, NULL));
}

cudaError_t cudaStreamGetId(cudaStream_t hStream,
                            unsigned long long *streamId)
{
    RT_SERVE(RT_NO_COST, stream_get(hStream, NULL, NULL, NULL, streamId));
}

static cudaError_t stream_is_capturing(cudaStream_t h,
                                       enum cudaStreamCaptureStatus *st)
{
    if (!st) {
        return cudaErrorInvalidValue;
    }
    struct rt_stream *s;
    cudaError_t e = stream_lookup(h, &s);
    return e ? e : rt_capture_status(s, st);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                  enum cudaStreamCaptureStatus *pCaptureStatus)
{
    RT_SERVE(RT_NO_COST, stream_is_capturing(stream, pCaptureStatus));
}

cudaError_t
cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    RT_SERVE(RT_NO_COST, rt_capture_exchange_mode(mode));
}

static cudaError_t stream_attach(cudaStream_t h, void *ptr, size_t len,
                                 unsigned flags)
{
    struct rt_stream *s;
    cudaError_t e = stream_lookup(h, &s);
    if (e) {
        return e;
    }
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost &&
        flags != cudaMemAttachSingle) {
        return cudaErrorInvalidValue;
    }
    struct rt_ptr p;
    rt_ptr_find(ptr, &p);
    /* length: zero or the whole allocation (CUDA) */
    if (p.where != RT_WHERE_MANAGED ||
        (len && (p.off != 0 || len != p.alloc->size))) {
        return cudaErrorInvalidValue;
    }
    /* Model: attachment only scopes visibility on devices without
     * concurrent managed access; every simulated GPU has it, so the
     * call validates and changes nothing. */
    return cudaSuccess;
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr,
                                     size_t length, unsigned int flags)
{
    RT_SERVE(RT_NO_COST, stream_attach(stream, devPtr, length, flags));
}

/* ---- host functions -------------------------------------------------------------- */

static void run_hostfn(struct timed_op *t)
{
    /* Runs in whichever thread drives the simulation, with the lock held:
     * a CUDA call from inside returns cudaErrorNotPermitted (rt_enter).
     * The run stops after it (rt.c, keep_running). */
    struct rt_thread *self = rt_self();
    rt.hostfn_ran = true;
    self->in_callback = true;
    if (t->fn) {
        t->fn(t->data);
    } else if (t->cb) {
        t->cb(t->handle, (cudaError_t)cudart_error_sticky(), t->data);
    }
    self->in_callback = false;
}

static cudaError_t launch_host(cudaStream_t h, cudaHostFn_t fn,
                               cudaStreamCallback_t cb, void *data,
                               unsigned flags)
{
    if ((!fn && !cb) || flags != 0) {
        return cudaErrorInvalidValue;
    }
    cudaError_t e;
    if (fn && rt_capture_host(fn, data, h, &e)) {
        rt_charge(rt_costs[RT_COST_CALL]);
        return e;
    }
    struct rt_stream *s;
    e = stream_lookup(h, &s);
    if (e) {
        return e;
    }
    struct timed_op *t = stream_timed_new("host function", rt_costs[RT_COST_HOSTFN]);
    if (!t) {
        return cudaErrorMemoryAllocation;
    }
    t->fn = fn;
    t->cb = cb;
    t->handle = h;
    t->data = data;
    t->act = run_hostfn;
    rt_charge(rt_costs[RT_COST_CALL]);
    return rt_enqueue(s, &t->op);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn,
                               void *userData)
{
    RT_SERVE(RT_NO_COST, launch_host(stream, fn, NULL, userData, 0));
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream,
                                  cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags)
{
    RT_SERVE(RT_NO_COST, launch_host(stream, NULL, callback, userData, flags));
}

/* ---- per-thread default stream twins (--default-stream per-thread) ------------ */

static cudaStream_t ptsz(cudaStream_t h)
{
    return h == NULL ? cudaStreamPerThread : h;
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    return cudaStreamSynchronize(ptsz(stream));
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    return cudaStreamQuery(ptsz(stream));
}

cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags)
{
    return cudaStreamGetFlags(ptsz(hStream), flags);
}

cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority)
{
    return cudaStreamGetPriority(ptsz(hStream), priority);
}

cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device)
{
    return cudaStreamGetDevice(ptsz(hStream), device);
}

cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream,
                                 unsigned long long *streamId)
{
    return cudaStreamGetId(ptsz(hStream), streamId);
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                       enum cudaStreamCaptureStatus *status)
{
    return cudaStreamIsCapturing(ptsz(stream), status);
}

cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr,
                                          size_t length, unsigned int flags)
{
    return cudaStreamAttachMemAsync(ptsz(stream), devPtr, length, flags);
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecord(event, ptsz(stream));
}

cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event,
                                          cudaStream_t stream,
                                          unsigned int flags)
{
    return cudaEventRecordWithFlags(event, ptsz(stream), flags);
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                     unsigned int flags)
{
    return cudaStreamWaitEvent(ptsz(stream), event, flags);
}

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn,
                                    void *userData)
{
    return cudaLaunchHostFunc(ptsz(stream), fn, userData);
}

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream,
                                       cudaStreamCallback_t callback,
                                       void *userData, unsigned int flags)
{
    return cudaStreamAddCallback(ptsz(stream), callback, userData, flags);
}
