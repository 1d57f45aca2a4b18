/*
 * cuda/cudart/stream_op.c - the operation queue of streams: fences,
 * enqueueing, starting and ending operations, and operations that only
 * take time (timed_op: host functions, waits).
 *
 * A stream is a FIFO of operations; only its head runs. The head starts
 * at max(the enqueuing thread's clock, the end of its stream predecessor,
 * the ends of its dependencies) (shared/reference/cuda-api.md §5.5); it
 * ends with rt_op_done from inside the simulation, which frees it and
 * starts whatever that end released, on any stream. Dependencies are
 * fences (an operation's end, refcounted).
 *
 * Queued copies. A copy engine runs the copies of a stream back to back:
 * the driver queues a stream's copies on one engine's channel, and the
 * engine sets up the next while the one before ends (models/gpu/
 * copy_engine.c). So a copy whose only unfinished dependency is the
 * stream's copy just before it (no event, host function or kernel in
 * between, no other stream it waits for) starts at once, ordered behind
 * that one (rt_machine_ops.copy's after: p2psim_copy_after), and the
 * machine keeps the order: on the same engine where one GPU drives both
 * directly, else by starting it when the one before is done, as without
 * queueing. Copies by the host (host to host) and copies with a managed
 * side (placed when they start) are not queued. Several ops of a stream
 * may then run; they still end in order.
 */
#include <config.h>

#include "cuda/cudart/stream_int.h"

#include "cuda/cudart/graph_int.h"

#include <stdlib.h>
#include <string.h>

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

bool rt_fence_done(void *arg)
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

void stream_free(struct rt_stream *s)
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
    /* Work no capture hook took, on or against a capturing stream. */
    cudaError_t e = rt_capture_enqueue(s);
    if (e) {
        rt_op_discard(op);
        return e;
    }
    e = implicit_deps(s, op);
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

struct timed_op *stream_timed_new(const char *what, sim_time_t duration)
{
    struct timed_op *t = (struct timed_op *)rt_op_alloc(
        sizeof(struct timed_op), what, timed_start);
    if (t) {
        t->duration = duration;
    }
    return t;
}
