/*
 * tools/replay.c - the child process of `p2psim replay`: one recorded
 * call after another through the CUDA shim, with pointers, streams,
 * events and pools mapped to the replay's own (replay.h has the design).
 *
 * This file: the maps of recorded allocations and pageable stand-ins,
 * the checking pass (replay_check) and the replay's threads and turns;
 * the calls themselves are replay_calls.c.
 */
#include <config.h>

#include "tools/replay.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#include "cuda/include/cuda_runtime_api.h"
#include "common/osthread.h"
#include "tools/replay_int.h"

#define RP_PAGE 4096u

/*
 * The maps. A replay makes the recorded calls with
 *   - device and pinned pointers mapped to the replay's allocations: an
 *     interval map from the recorded allocation bases (cudaMalloc*,
 *     cudaMallocHost, cudaHostAlloc, cudaMallocManaged) and sizes; a
 *     pointer inside an allocation keeps its offset;
 *   - pageable host memory (pointers outside every allocation, with the
 *     bytes the calls touched) replaced by stand-in buffers: the ranges
 *     are merged into regions and each region is mapped (anonymous,
 *     MAP_NORESERVE, never written by the replay), keeping the offset
 *     within the page; so a stand-in costs the pages the calls touch,
 *     as the program's buffer did, not its size;
 *   - streams, events and pools by their recorded ids;
 *   - host functions and stream callbacks replaced by functions that do
 *     nothing.
 */

/* ---- allocations ---------------------------------------------------------- */

/* The live allocation holding old, or NULL. */
struct rp_alloc *rp_alloc_find(struct rp *r, uint64_t old)
{
    size_t lo = 0, hi = r->n_allocs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->allocs[mid].old_base <= old) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0) {
        return NULL;
    }
    struct rp_alloc *a = &r->allocs[lo - 1];
    uint64_t size = a->size ? a->size : 1;
    return old - a->old_base < size ? a : NULL;
}

/* The index of the first live allocation based at or above old. */
static size_t alloc_lower(const struct rp *r, uint64_t old)
{
    size_t lo = 0, hi = r->n_allocs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->allocs[mid].old_base < old) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Add (or replace) the allocation based at old; false when
 * REPLAY_MAX_ALLOCS are live already or memory is short. Cost: a
 * binary search and a move of the allocations above (at most
 * REPLAY_MAX_ALLOCS, which bounds a made-up trace's quadratic worst). */
bool rp_alloc_add(struct rp *r, uint64_t old, uint64_t size,
                  void *new_base)
{
    if (!old) {
        return true;
    }
    size_t i = alloc_lower(r, old);
    if (i < r->n_allocs && r->allocs[i].old_base == old) {
        r->allocs[i] = (struct rp_alloc){ old, size, new_base };
        return true;
    }
    if (r->n_allocs == REPLAY_MAX_ALLOCS) {
        return false;
    }
    if (r->n_allocs == r->cap_allocs) {
        size_t cap = r->cap_allocs ? 2 * r->cap_allocs : 64;
        struct rp_alloc *t = realloc(r->allocs, cap * sizeof(*t));
        if (!t) {
            return false;
        }
        r->allocs = t;
        r->cap_allocs = cap;
    }
    memmove(&r->allocs[i + 1], &r->allocs[i],
            (r->n_allocs - i) * sizeof(*r->allocs));
    r->allocs[i] = (struct rp_alloc){ old, size, new_base };
    r->n_allocs++;
    return true;
}

void rp_alloc_remove(struct rp *r, uint64_t old)
{
    size_t i = alloc_lower(r, old);
    if (i < r->n_allocs && r->allocs[i].old_base == old) {
        memmove(&r->allocs[i], &r->allocs[i + 1],
                (r->n_allocs - i - 1) * sizeof(*r->allocs));
        r->n_allocs--;
    }
}

/* ---- pageable stand-ins ------------------------------------------------------ */

/* A pageable range [lo, lo + len) (len 0: one byte); false if out of
 * memory. The caller checked that it does not wrap. */
static bool range_add(struct rp *r, uint64_t lo, uint64_t len, unsigned line)
{
    if (!lo) {
        return true;
    }
    if (r->n_ranges == r->cap_ranges) {
        size_t cap = r->cap_ranges ? 2 * r->cap_ranges : 64;
        struct rp_range *t = realloc(r->ranges, cap * sizeof(*t));
        if (!t) {
            return false;
        }
        r->ranges = t;
        r->cap_ranges = cap;
    }
    r->ranges[r->n_ranges++] = (struct rp_range){
        .lo = lo, .hi = lo + (len ? len : 1), .line = line
    };
    return true;
}

static int range_cmp(const void *a, const void *b)
{
    const struct rp_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * Merge overlapping ranges and sum what their stand-ins take (whole
 * pages). -1 with err when the sum passes the request's cap.
 */
static int ranges_merge(struct rp *r, char *err, size_t err_size)
{
    r->standin_bytes = 0;
    if (r->n_ranges == 0) {
        return 0;
    }
    qsort(r->ranges, r->n_ranges, sizeof(*r->ranges), range_cmp);
    size_t n = 0;
    for (size_t i = 0; i < r->n_ranges; i++) {
        if (n && r->ranges[i].lo <= r->ranges[n - 1].hi) {
            if (r->ranges[i].hi > r->ranges[n - 1].hi) {
                r->ranges[n - 1].hi = r->ranges[i].hi;
            }
            if (r->ranges[i].line < r->ranges[n - 1].line) {
                r->ranges[n - 1].line = r->ranges[i].line;
            }
        } else {
            r->ranges[n++] = r->ranges[i];
        }
    }
    r->n_ranges = n;
    for (size_t i = 0; i < n; i++) {
        struct rp_range *g = &r->ranges[i];
        /* hi - lo <= the cap (checked per range before), so no wrap. */
        uint64_t len = (g->lo % RP_PAGE + (g->hi - g->lo) + RP_PAGE - 1) /
                       RP_PAGE * RP_PAGE;
        g->map_len = (size_t)len;
        if (len > r->rq->host_memory - r->standin_bytes) {
            snprintf(err, err_size, "line %u: the pageable host memory the "
                     "calls use, %llu bytes with the %llu at 0x%llx, passes "
                     "--host-memory (%llu bytes)", g->line,
                     (unsigned long long)(r->standin_bytes + len),
                     (unsigned long long)(g->hi - g->lo),
                     (unsigned long long)g->lo,
                     (unsigned long long)r->rq->host_memory);
            return -1;
        }
        r->standin_bytes += len;
    }
    return 0;
}

/*
 * A stand-in for each merged range: anonymous memory, mapped without
 * reserving swap and not written here, so it costs only the pages the
 * replayed calls touch (as the program's own buffers did), not its size.
 */
static void ranges_allocate(struct rp *r)
{
    for (size_t i = 0; i < r->n_ranges; i++) {
        struct rp_range *g = &r->ranges[i];
        void *p = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            fprintf(stderr, "p2psim replay: cannot map %zu bytes for the "
                            "pageable host memory at 0x%llx (line %u): %s\n",
                    g->map_len, (unsigned long long)g->lo, g->line,
                    strerror(errno));
            _exit(1);
        }
        g->map = p;
        g->new_lo = (char *)p + g->lo % RP_PAGE;
    }
}

struct rp_range *rp_range_find(struct rp *r, uint64_t old)
{
    size_t lo = 0, hi = r->n_ranges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->ranges[mid].lo <= old) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0 || old >= r->ranges[lo - 1].hi) {
        return NULL;
    }
    return &r->ranges[lo - 1];
}

/* ---- the two passes ------------------------------------------------------------- */

/* Whether a call made allocation (recorded out pointer, size). */
static bool made_alloc(const struct trace_api_call *c, uint64_t *base,
                       uint64_t *size)
{
    const struct rp_kind *k = rp_kind_find(c->name);
    int64_t ret;
    if (!k || k->fn != rp_h_malloc || !trace_api_ret_i64(c, &ret) || ret != 0) {
        return false;
    }
    *base = rp_out_u64(c, "devPtr");
    if (!*base) {
        *base = rp_out_u64(c, "ptr");
    }
    *size = 0;
    trace_api_get_u64(c, "args.size", size);
    return *base != 0;
}

static bool freed_alloc(const struct trace_api_call *c, uint64_t *base)
{
    const struct rp_kind *k = rp_kind_find(c->name);
    int64_t ret;
    if (!k || k->fn != rp_h_free || !trace_api_ret_i64(c, &ret) || ret != 0) {
        return false;
    }
    *base = (uint64_t)rp_arg(c, strcmp(c->name, "cudaFreeHost") == 0
                                 ? "ptr"
                                 : "devPtr");
    return true;
}

/* The column of field key in c's line (1 when absent: the line). */
static unsigned col_of(const struct trace_api_call *c, const char *key)
{
    const struct trace_api_field *f = trace_api_find(c, key);
    return f ? f->col : 1;
}

#define CHECK_FAIL(...)                                                       \
    do {                                                                      \
        snprintf(err, err_size, __VA_ARGS__);                                 \
        return -1;                                                            \
    } while (0)

/*
 * A pointer argument and the bytes it spans: inside a recorded
 * allocation it must end inside it too (the program would have overrun
 * its buffer, and the replay's allocation is no larger); outside all of
 * them it is pageable memory, which gets a stand-in.
 */
static int note_extent(struct rp *r, const struct trace_api_call *c,
                       const char *pkey, const char *lkey, char *err,
                       size_t err_size)
{
    if (!pkey) {
        return 0;
    }
    char pk[64], lk[64];
    snprintf(pk, sizeof(pk), "args.%s", pkey);
    uint64_t p = 0, len = 1;
    const struct trace_api_field *pf = trace_api_find(c, pk);
    if (pf && pf->text && !trace_api_get_u64(c, pk, &p)) {
        CHECK_FAIL("line %u:%u: %s: %s is not a pointer (\"0x...\")",
                   c->line, col_of(c, pk), c->name, pk);
    }
    if (lkey) {
        snprintf(lk, sizeof(lk), "args.%s", lkey);
        if (!trace_api_get_u64(c, lk, &len)) {
            CHECK_FAIL("line %u:%u: %s: %s is not a size (an integer, 0 "
                       "or more)", c->line, col_of(c, lk), c->name, lk);
        }
    }
    if (!p) {
        return 0;
    }
    if (len > UINT64_MAX - p) {
        CHECK_FAIL("line %u:%u: %s: %llu bytes at 0x%llx pass the end of "
                   "the address space", c->line, col_of(c, pk), c->name,
                   (unsigned long long)len, (unsigned long long)p);
    }
    struct rp_alloc *a = rp_alloc_find(r, p);
    if (a) {
        uint64_t off = p - a->old_base;
        /* A 0-byte allocation holds nothing: the replay's may be 0
         * bytes too, so no call may use its bytes. */
        if (len > a->size - (off < a->size ? off : a->size)) {
            CHECK_FAIL("line %u:%u: %s: %llu bytes at 0x%llx pass the end "
                       "of the allocation at 0x%llx (%llu bytes)", c->line,
                       col_of(c, pk), c->name, (unsigned long long)len,
                       (unsigned long long)p,
                       (unsigned long long)a->old_base,
                       (unsigned long long)a->size);
        }
        return 0;
    }
    if (len > r->rq->host_memory) {
        CHECK_FAIL("line %u:%u: %s: %llu bytes of pageable host memory at "
                   "0x%llx: more than --host-memory (%llu bytes), the most a "
                   "replay maps for it", c->line, col_of(c, pk), c->name,
                   (unsigned long long)len, (unsigned long long)p,
                   (unsigned long long)r->rq->host_memory);
    }
    if (!range_add(r, p, len, c->line)) {
        CHECK_FAIL("out of memory");
    }
    return 0;
}

/* A handle id a call hands back (out.KEY) must be one the trace can
 * hold: ids count handles in order of appearance, and no call introduces
 * more than two of a kind, so an id above 4 per call (plus 64) is made
 * up. It bounds the tables (8 bytes per id). */
static int check_ids(struct rp *r, const struct trace_api_call *c,
                     char *err, size_t err_size)
{
    static const char *const keys[] = { "out.stream", "out.event",
                                        "out.memPool" };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const struct trace_api_field *f = trace_api_find(c, keys[i]);
        uint64_t id;
        if (!f) {
            continue;
        }
        if (!trace_api_get_u64(c, keys[i], &id)) {
            CHECK_FAIL("line %u:%u: %s: %s is not an id (an integer)",
                       c->line, f->col, c->name, keys[i]);
        }
        if (id > r->max_id) {
            CHECK_FAIL("line %u:%u: %s: %s = %llu, more than a trace of "
                       "%zu calls can hold (%llu)", c->line, f->col, c->name,
                       keys[i],
                       (unsigned long long)id, r->rq->n_calls,
                       (unsigned long long)r->max_id);
        }
    }
    return 0;
}

/*
 * First pass: which pointers are pageable host memory. The recorded
 * allocations are followed as they come and go (with no replay
 * allocation behind them yet); a pointer outside all of them when used is
 * host memory the program owned. Checks what the trace says against its
 * caps (tools/replay.h); -1 with err at the first that fails.
 */
static int find_pageable(struct rp *r, char *err, size_t err_size)
{
    r->max_id = 4 * (uint64_t)r->rq->n_calls + 64;
    for (size_t i = 0; i < r->rq->n_calls; i++) {
        const struct trace_api_call *c = r->rq->calls[i];
        const struct rp_kind *k = rp_kind_find(c->name);
        uint64_t base, size;
        if (!k) {
            continue;
        }
        if (check_ids(r, c, err, err_size) < 0) {
            return -1;
        }
        const struct trace_api_field *sf = trace_api_find(c, "args.size");
        if (k->fn == rp_h_malloc && sf &&
            !trace_api_get_u64(c, "args.size", &size)) {
            CHECK_FAIL("line %u:%u: %s: args.size is not a size (an "
                       "integer, 0 or more)", c->line, sf->col, c->name);
        }
        if (made_alloc(c, &base, &size)) {
            if (size > UINT64_MAX - base) {
                CHECK_FAIL("line %u:%u: %s: %llu bytes at 0x%llx pass the "
                           "end of the address space", c->line,
                           col_of(c, "args.size"), c->name,
                           (unsigned long long)size,
                           (unsigned long long)base);
            }
            if (!rp_alloc_add(r, base, size, NULL)) {
                CHECK_FAIL("line %u: %s: more than %d allocations live at "
                           "once", c->line, c->name, REPLAY_MAX_ALLOCS);
            }
        } else if (freed_alloc(c, &base)) {
            rp_alloc_remove(r, base);
        } else if (note_extent(r, c, k->ptr1, k->len1, err, err_size) < 0 ||
                   note_extent(r, c, k->ptr2, k->len2, err, err_size) < 0) {
            return -1;
        }
    }
    r->n_allocs = 0;
    return ranges_merge(r, err, err_size);
}

/* The recorded threads, each replayed by a thread: at most
 * REPLAY_MAX_THREADS. */
static int check_threads(const struct replay_request *rq, char *err,
                         size_t err_size)
{
    int *tids = NULL;
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < rq->n_calls && rc == 0; i++) {
        int tid = rq->calls[i]->tid;
        size_t t = 0;
        while (t < n && tids[t] != tid) {
            t++;
        }
        if (t < n) {
            continue;
        }
        if (n == REPLAY_MAX_THREADS) {
            snprintf(err, err_size, "line %u: more than %d recorded "
                     "threads (a replay makes a thread for each)",
                     rq->calls[i]->line, REPLAY_MAX_THREADS);
            rc = -1;
            break;
        }
        if (n % 64 == 0) {
            int *g = realloc(tids, (n + 64) * sizeof(*g));
            if (!g) {
                snprintf(err, err_size, "out of memory");
                rc = -1;
                break;
            }
            tids = g;
        }
        tids[n++] = tid;
    }
    free(tids);
    return rc;
}

static void rp_release(struct rp *r)
{
    for (size_t i = 0; i < r->n_ranges; i++) {
        if (r->ranges[i].map) {
            munmap(r->ranges[i].map, r->ranges[i].map_len);
        }
    }
    free(r->ranges);
    free(r->allocs);
    free(r->streams.h);
    free(r->events.h);
    free(r->pools.h);
}

int replay_check(const struct replay_request *rq, char *err, size_t err_size)
{
    struct rp r;
    memset(&r, 0, sizeof(r));
    r.rq = rq;
    int rc = check_threads(rq, err, err_size);
    if (rc == 0) {
        rc = find_pageable(&r, err, err_size);
    }
    rp_release(&r);
    return rc;
}

/* Replay call i of rq (in the calling thread). */
static void replay_one(struct rp *r, size_t i)
{
    const struct trace_api_call *c = r->rq->calls[i];
    const struct rp_kind *k = rp_kind_find(c->name);
    void *fn = k ? dlsym(r->lib, c->name) : NULL;
    if (!fn) {
        return;
    }
    /* The shim's trace will show this call under this thread. */
    fprintf(r->map, "%ld %zu\n", (long)syscall(SYS_gettid), i);
    fflush(r->map);
    int e = k->fn(r, c, fn);
    int64_t want;
    if (trace_api_ret_i64(c, &want) && want != e) {
        pthread_mutex_lock(&r->lock);
        if (++r->mismatches <= 10) {
            dprintf(r->rq->err_fd,
                    "p2psim replay: line %u: %s returned %d on the replay, "
                    "%lld when recorded\n",
                    c->line, c->name, e, (long long)want);
        }
        pthread_mutex_unlock(&r->lock);
    }
}

/* When call i was recorded, call i - 1 had not returned yet: it was
 * blocked (in a synchronization) while call i started. */
static bool overlapped(const struct rp *r, size_t i)
{
    const struct trace_api_call *a = r->rq->calls[i - 1], *b = r->rq->calls[i];
    return a->tid != b->tid && a->t1_ns > b->t0_ns;
}

/*
 * Wait for call i's turn: every earlier call has started, and the one
 * just before has returned, or, if it had not returned when call i was
 * recorded, is blocked now too (its thread asleep at two looks, without
 * using CPU time in between: waiting in the runtime).
 *
 * The runtime lets simulated time go on only while every thread between
 * calls is blocked (cuda/cudart/rt.c). So a thread waits asleep only while
 * the next call to start waits for a return, which may need the
 * simulation to run; otherwise its turn comes from the replay's own
 * progress, and it waits runnable (yielding), so that the simulation does
 * not run ahead of the calls about to be made. Nothing here reads the
 * wall clock: the replay's timeline does not depend on the machine's load.
 */
static void turn_wait(struct rp *r, size_t i)
{
    struct osthread_look look = { 0 };
    pthread_mutex_lock(&r->turn_lock);
    for (;;) {
        size_t next = r->started;
        if (next == i && (i == 0 || r->last_returned)) {
            break;
        }
        if (next == i && overlapped(r, i)) {
            if (osthread_asleep_twice(&look, r->last_ostid, r->last_th)) {
                break;
            }
        } else {
            look.seen = false;
        }
        if (next > 0 && !r->last_returned && !overlapped(r, next)) {
            pthread_cond_wait(&r->turn_cond, &r->turn_lock);
        } else {
            pthread_mutex_unlock(&r->turn_lock);
            sched_yield();
            pthread_mutex_lock(&r->turn_lock);
        }
    }
    r->started = i + 1;
    r->last_returned = false;
    r->last_ostid = osthread_self();
    r->last_th = pthread_self();
    pthread_cond_broadcast(&r->turn_cond);
    pthread_mutex_unlock(&r->turn_lock);
}

static void turn_done(struct rp *r, size_t i)
{
    pthread_mutex_lock(&r->turn_lock);
    if (r->started == i + 1) {
        r->last_returned = true;
    }
    pthread_cond_broadcast(&r->turn_cond);
    pthread_mutex_unlock(&r->turn_lock);
}

static void *thread_main(void *arg)
{
    struct rp_thread *t = arg;
    for (size_t k = 0; k < t->n; k++) {
        turn_wait(t->r, t->idx[k]);
        replay_one(t->r, t->idx[k]);
        turn_done(t->r, t->idx[k]);
    }
    return NULL;
}

/*
 * A trace of one thread is replayed in this thread, call after call. One
 * of several threads gets a thread per recorded thread, each making its
 * calls when their turn comes (turn_wait), so that each has its own
 * simulated clock and host-side costs overlap as they did.
 */
static void replay_all(struct rp *r)
{
    struct rp_thread *th = NULL;
    size_t n_th = 0;
    for (size_t i = 0; i < r->rq->n_calls; i++) {
        int tid = r->rq->calls[i]->tid;
        size_t t = 0;
        while (t < n_th && th[t].tid != tid) {
            t++;
        }
        if (t == n_th) {
            struct rp_thread *n = realloc(th, (n_th + 1) * sizeof(*n));
            if (!n) {
                break;
            }
            th = n;
            memset(&th[n_th], 0, sizeof(th[n_th]));
            th[n_th].r = r;
            th[n_th].tid = tid;
            n_th++;
        }
        if (th[t].n == th[t].cap) {
            size_t cap = th[t].cap ? 2 * th[t].cap : 256;
            size_t *v = realloc(th[t].idx, cap * sizeof(*v));
            if (!v) {
                break;
            }
            th[t].idx = v;
            th[t].cap = cap;
        }
        th[t].idx[th[t].n++] = i;
    }
    if (n_th <= 1) {
        for (size_t i = 0; i < r->rq->n_calls; i++) {
            replay_one(r, i);
        }
    } else {
        for (size_t t = 0; t < n_th; t++) {
            if (pthread_create(&th[t].th, NULL, thread_main, &th[t]) != 0) {
                fprintf(stderr, "p2psim replay: cannot start a thread\n");
                _exit(1);
            }
        }
        for (size_t t = 0; t < n_th; t++) {
            pthread_join(th[t].th, NULL);
        }
    }
    for (size_t t = 0; t < n_th; t++) {
        free(th[t].idx);
    }
    free(th);
}

static void set_env(const char *var, const char *value)
{
    if (value) {
        setenv(var, value, 1);
    } else {
        unsetenv(var);
    }
}

void replay_child(const struct replay_request *rq)
{
    static struct rp r;
    memset(&r, 0, sizeof(r));
    r.rq = rq;
    pthread_mutex_init(&r.lock, NULL);
    pthread_mutex_init(&r.turn_lock, NULL);
    pthread_cond_init(&r.turn_cond, NULL);
    /* The shim reads these at its first call (cuda/cudart/rt.c). */
    set_env("P2PSIM_TOPOLOGY", rq->machine);
    set_env("P2PSIM_RECORD", rq->record);
    set_env("P2PSIM_BACKEND", NULL);
    set_env("P2PSIM_SERVER", NULL);
    set_env("P2PSIM_REPORT", NULL);
    set_env("P2PSIM_STATS", NULL);
    set_env("P2PSIM_TRACE", NULL);
    r.map = fopen(rq->map, "w");
    if (!r.map) {
        perror(rq->map);
        _exit(1);
    }
    r.lib = dlopen(rq->cudart, RTLD_NOW | RTLD_LOCAL);
    if (!r.lib) {
        fprintf(stderr, "p2psim replay: cannot load %s: %s\n", rq->cudart,
                dlerror());
        _exit(1);
    }
    char err[400];
    if (find_pageable(&r, err, sizeof(err)) < 0) {
        /* replay_check said so first: not reached for a checked trace. */
        fprintf(stderr, "p2psim replay: %s\n", err);
        _exit(1);
    }
    ranges_allocate(&r);
    replay_all(&r);
    if (r.unmapped) {
        dprintf(rq->err_fd, "p2psim replay: %u argument(s) named a pointer "
                            "or handle the replay could not map (passed as "
                            "NULL)\n", r.unmapped);
    }
    fclose(r.map);
    fflush(stdout);
    /* exit, not _exit: the shim's atexit handlers end its trace cleanly. */
    exit(0);
}
