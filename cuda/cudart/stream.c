/*
 * cuda/cudart/stream.c - streams, the operation queue, events and host
 * functions.
 *
 * A stream is a FIFO of operations; only its head runs. The head starts
 * at max(the enqueuing thread's clock, the end of its stream predecessor,
 * the ends of its dependencies) (shared/reference/cuda-api.md §5.5); it
 * ends with rt_op_done from inside the simulation, which frees it and
 * starts whatever that end released, on any stream.
 *
 * Dependencies are fences (an operation's end, refcounted): an event holds
 * the fence of the operation cudaEventRecord enqueued, cudaStreamWaitEvent
 * enqueues an operation that depends on it, and the legacy default stream
 * synchronizes implicitly (CUDA's "Stream synchronization behavior"): work
 * on the legacy stream of a device waits for all blocking streams of that
 * device, and work on a blocking stream waits for the legacy stream.
 * Streams created with cudaStreamNonBlocking do neither. The per-thread
 * default stream is a blocking stream.
 *
 * Queued copies. A copy engine runs the copies of a stream back to back:
 * the driver queues a stream's copies on one engine's channel, and the
 * engine sets up the next while the one before ends (models/gpu/
 * copy_engine.c). So a copy whose only unfinished dependency is the
 * stream's copy just before it (no event, host function or kernel in
 * between, no other stream it waits for) starts at once, ordered behind
 * that one (rt_machine_ops.copy's after: p2psim_copy_after), and the
 * machine keeps the order: on the same engine where one GPU drives both
 * directly, else by starting it when the one before is done, as
 * without queueing. Copies by the host (host to host) and copies with a
 * managed side (placed when they start) are not queued. Several ops of a
 * stream may then run; they still end in order.
 *
 * Queries (cudaStreamQuery, cudaEventQuery) answer for the caller's
 * clock: the simulation is brought up to it first (rt_wait with a
 * deadline), so a copy that would have finished by then reports done.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/rt.h"
#include "cuda/include/p2psim_cudart_internal.h"

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
    struct rt_stream *next;     /* rt.streams */
};

static struct CUevent_st *events;
static unsigned long long next_stream_id = 1;

/* ---- fences -------------------------------------------------------------------- */

struct rt_fence *rt_fence_ref(struct rt_fence *f)
{
    if (f) {
        f->refs++;
    }
    return f;
}

void rt_fence_put(struct rt_fence *f)
{
    if (f && --f->refs == 0) {
        free(f);
    }
}

static bool fence_done(void *arg)
{
    const struct rt_fence *f = arg;
    return f->done;
}

/* ---- operations ---------------------------------------------------------------- */

struct rt_op *rt_op_alloc(size_t size, const char *what,
                          void (*start)(struct rt_op *, sim_time_t))
{
    struct rt_op *op = calloc(1, size);
    if (!op) {
        return NULL;
    }
    op->fence = calloc(1, sizeof(*op->fence));
    if (!op->fence) {
        free(op);
        return NULL;
    }
    op->fence->refs = 1;
    op->start = start;
    op->what = what;
    return op;
}

cudaError_t rt_op_depend(struct rt_op *op, struct rt_fence *f)
{
    if (!f) {
        return cudaSuccess;
    }
    /* Done fences are kept too: their end still bounds the start. */
    void *n = realloc(op->deps, (op->n_deps + 1) * sizeof(*op->deps));
    if (!n) {
        return cudaErrorMemoryAllocation;
    }
    op->deps = n;
    op->deps[op->n_deps++] = rt_fence_ref(f);
    return cudaSuccess;
}

void rt_op_discard(struct rt_op *op)
{
    if (op->release) {
        op->release(op);
    }
    for (unsigned i = 0; i < op->n_deps; i++) {
        rt_fence_put(op->deps[i]);
    }
    free(op->deps);
    rt_fence_put(op->fence);
    free(op);
}

static void stream_free(struct rt_stream *s)
{
    for (struct rt_stream **pp = &rt.streams; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    rt_fence_put(s->last);
    free(s);
}

/*
 * The first op of s not started yet, if it may start now: the head once
 * everything it waits for is done; behind a started copy, a copy whose
 * other dependencies are done ("Queued copies"). *at: its start time.
 */
static struct rt_op *stream_ready(struct rt_stream *s, sim_time_t *at)
{
    struct rt_op *prev = NULL, *op = s->head;
    while (op && op->started) {
        prev = op;
        op = op->next;
    }
    if (!op) {
        return NULL;
    }
    if (prev && !(prev->chainable && op->chainable && prev->copy_id)) {
        return NULL;
    }
    *at = op->t_enq;
    for (unsigned i = 0; i < op->n_deps; i++) {
        const struct rt_fence *f = op->deps[i];
        if (!f->done && !(prev && f == prev->fence)) {
            return NULL;
        }
        if (f->done && f->t > *at) {
            *at = f->t;
        }
    }
    sim_time_t now = rt_machine->now();
    if (*at < now) {
        *at = now;
    }
    op->after = prev ? prev->copy_id : 0;
    return op;
}

/* Start what may start on s. */
static void stream_pump(struct rt_stream *s)
{
    /* A start may end ops at once (rt_op_done): s stays until the end. */
    s->pumping++;
    sim_time_t at;
    struct rt_op *op;
    while ((op = stream_ready(s, &at)) != NULL) {
        op->started = true;
        op->start(op, at);
    }
    if (--s->pumping == 0 && s->destroyed && !s->head) {
        stream_free(s);
    }
}

static void pump_all(void)
{
    /* Starting an op may complete it at once, which pumps again; the
     * stream pumped may be freed then (destroyed and drained). */
    for (struct rt_stream *s = rt.streams, *next; s; s = next) {
        next = s->next;
        stream_pump(s);
    }
}

static void fence_finish(struct rt_fence *f, int status)
{
    f->done = true;
    f->status = status;
    f->t = rt_machine->now();
    if (f->on_done) {
        f->on_done(f, f->on_done_arg);
    }
}

void rt_fence_complete(struct rt_fence *f, int status)
{
    if (!f->done) {
        fence_finish(f, status);
        pump_all();
    }
}

void rt_op_done(struct rt_op *op, int status)
{
    struct rt_stream *s = op->stream;
    fence_finish(op->fence, status);
    if (cudart_error_is_sticky(status)) {
        /* The process's CUDA state is lost from now on; a non-sticky
         * status reaches the program through the synchronization that
         * observes the fence. */
        cudart_error_record(status);
    }
    /* Ops end in stream order (queued copies too: the machine keeps
     * their order), so the op that ends is the head; unlinked wherever it
     * is all the same. */
    struct rt_op **pp = &s->head, *prev = NULL;
    while (*pp != op) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    *pp = op->next;
    if (s->tail == op) {
        s->tail = prev;
    }
    rt_op_discard(op);
    if (s->destroyed && !s->head && !s->pumping) {
        stream_free(s);
    }
    pump_all();
}

/* Legacy-stream implicit synchronization: what op on s must wait for. */
static cudaError_t implicit_deps(struct rt_stream *s, struct rt_op *op)
{
    if (s->flags & cudaStreamNonBlocking) {
        return cudaSuccess;
    }
    cudaError_t e = cudaSuccess;
    if (s->legacy) {
        for (struct rt_stream *o = rt.streams; o && !e; o = o->next) {
            if (o != s && o->dev == s->dev && !o->legacy &&
                !(o->flags & cudaStreamNonBlocking) && o->last &&
                !o->last->done) {
                e = rt_op_depend(op, o->last);
            }
        }
    } else {
        struct rt_stream *l = rt.dev[s->dev].legacy;
        if (l && l->last && !l->last->done) {
            e = rt_op_depend(op, l->last);
        }
    }
    return e;
}

cudaError_t rt_enqueue(struct rt_stream *s, struct rt_op *op)
{
    op->stream = s;
    op->t_enq = rt_self()->clock;
    cudaError_t e = implicit_deps(s, op);
    if (e) {
        rt_op_discard(op);
        return e;
    }
    /* The stream predecessor: a dependency like any other, so that its
     * end time bounds the start. */
    if (s->last && !s->last->done) {
        e = rt_op_depend(op, s->last);
    } else if (s->last && s->last->t > op->t_enq) {
        op->t_enq = s->last->t;
    }
    if (e) {
        rt_op_discard(op);
        return e;
    }
    rt_fence_put(s->last);
    s->last = rt_fence_ref(op->fence);
    if (s->tail) {
        s->tail->next = op;
    } else {
        s->head = op;
    }
    s->tail = op;
    stream_pump(s);
    return cudaSuccess;
}

/* ---- operations that only take time ----------------------------------------- */

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

static void timed_fire(void *arg)
{
    struct timed_op *t = arg;
    if (t->act) {
        t->act(t);
    }
    rt_op_done(&t->op, 0);
}

static void timed_start(struct rt_op *op, sim_time_t at)
{
    struct timed_op *t = (struct timed_op *)op;
    if (rt_machine->timer(sim_time_add(at, t->duration), timed_fire, t) < 0) {
        rt_op_done(op, cudaErrorMemoryAllocation);
    }
}

static struct timed_op *timed_new(const char *what, sim_time_t duration)
{
    struct timed_op *t = (struct timed_op *)rt_op_alloc(
        sizeof(struct timed_op), what, timed_start);
    if (t) {
        t->duration = duration;
    }
    return t;
}

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
    struct rt_fence *f = rt_stream_tail(s);
    if (!f) {
        return cudaSuccess;
    }
    cudaError_t e = rt_wait(fence_done, f, SIM_TIME_MAX);
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
    cudaError_t e = rt_wait(device_idle, &w, SIM_TIME_MAX);
    if (!e) {
        e = cudart_error_sticky();
    }
    return e;
}

/* Bring the simulation up to the caller's clock (for queries). */
static cudaError_t catch_up(void)
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
static cudaError_t resolve(cudaStream_t h, struct rt_stream **out)
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
    for (struct CUevent_st **pp = &events; *pp;) {
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
    cudaError_t e = resolve(h, &s);
    if (e) {
        return e;
    }
    /* Work already queued still runs (CUDA); the handle dies now. */
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
    cudaError_t e = resolve(h, &s);
    return e ? e : rt_stream_sync(s);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, stream_synchronize(stream));
}

static cudaError_t stream_query(cudaStream_t h)
{
    struct rt_stream *s;
    cudaError_t e = resolve(h, &s);
    if (!e) {
        e = catch_up();
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
    cudaError_t e = resolve(h, &s);
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
    cudaError_t e = resolve(h, &s);
    if (!e) {
        /* Graph capture is not modelled: nothing is ever captured. */
        *st = cudaStreamCaptureStatusNone;
    }
    return e;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                  enum cudaStreamCaptureStatus *pCaptureStatus)
{
    RT_SERVE(RT_NO_COST, stream_is_capturing(stream, pCaptureStatus));
}

static cudaError_t exchange_capture_mode(enum cudaStreamCaptureMode *mode)
{
    if (!mode || (unsigned)*mode > cudaStreamCaptureModeRelaxed) {
        return cudaErrorInvalidValue;
    }
    /* No capture: the thread's mode is always global; report it. */
    *mode = cudaStreamCaptureModeGlobal;
    return cudaSuccess;
}

cudaError_t
cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    RT_SERVE(RT_NO_COST, exchange_capture_mode(mode));
}

static cudaError_t stream_attach(cudaStream_t h, void *ptr, size_t len,
                                 unsigned flags)
{
    struct rt_stream *s;
    cudaError_t e = resolve(h, &s);
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
     * a CUDA call from inside returns cudaErrorNotPermitted (rt_enter). */
    struct rt_thread *self = rt_self();
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
    struct rt_stream *s;
    cudaError_t e = resolve(h, &s);
    if (e) {
        return e;
    }
    struct timed_op *t = timed_new("host function", rt_costs[RT_COST_HOSTFN]);
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
    ev->next = events;
    events = ev;
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
    for (struct CUevent_st *ev = events; ev; ev = ev->next) {
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
    rt_charge(rt_costs[RT_COST_EVENT_RECORD]);
    struct timed_op *t = timed_new("event record", 0);
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
    cudaError_t err = catch_up();
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
    cudaError_t err = rt_wait(fence_done, f, SIM_TIME_MAX);
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
    cudaError_t e = catch_up();
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
    for (struct CUevent_st **pp = &events; *pp; pp = &(*pp)->next) {
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
    cudaError_t err = resolve(h, &s);
    if (err) {
        return err;
    }
    struct CUevent_st *ev = rt_event_find(e);
    if (!ev) {
        return cudaErrorInvalidResourceHandle;
    }
    rt_charge(rt_costs[RT_COST_CALL]);
    struct rt_fence *f = event_fence(ev);
    if (!f) {
        return cudaSuccess; /* never recorded: nothing to wait for */
    }
    struct timed_op *t = timed_new("event wait", 0);
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
