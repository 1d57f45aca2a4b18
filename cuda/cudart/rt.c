/*
 * cuda/cudart/rt.c - the shim's runtime: start-up, the lock, host threads
 * and their simulated clocks, and rt_wait, the one place where simulated
 * time advances.
 *
 * Time (docs/cuda-shim-design.md, shared/reference/cuda-api.md §5.5):
 * every host thread has a clock. A call charges its own host-side cost to
 * the caller's clock (rt_costs: defaults from h200-x1-api-costs.md, which
 * a machine file's api-costs: replaces, see rt_costs_from_machine); work it
 * enqueues starts no earlier than that clock. The simulation runs only
 * inside rt_wait, and only while no host thread is running between calls:
 * the last thread to wait runs it, under the lock, until some waiter's
 * condition holds; that waiter leaves with its clock at the simulated time
 * of the event that released it. So a thread never enqueues work "in the
 * past", and a multi-threaded program sees one consistent timeline. While
 * a kernel is live, each call also brings the simulation up to the running
 * threads' earliest clock as it leaves (catch_up), so that a kernel
 * polling host memory sees a host store at the storing thread's clock.
 */
#define _GNU_SOURCE /* PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP */
#include <config.h>

#include "cuda/cudart/rt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/osthread.h"
#include "common/realclock.h"
#include "cuda/cudart/api_costs.h"
#include "cuda/cudart/remote.h"
#include "machine/kernel/kernel.h"
#include "machine/links.h"
#include "sim/error.h"
#include "sim/sim.h"

struct rt rt = {
    /* error-checking: rt_host.c's hooks, which a thread of the runtime's own
     * code may reach with the lock held (a read at exit), see EDEADLK */
    .lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP,
    .cond = PTHREAD_COND_INITIALIZER,
};

/*
 * Host-side cost of calls, ps. Measured on one H200 with CUDA 13.0
 * (shared/calibration/h200-x1-api-costs.md, "Host side"), except where
 * marked.
 */
sim_time_t rt_costs[RT_COST_N] = {
    /* [estimate] a call that only reads or writes runtime state */
    [RT_COST_CALL] = SIM_NS(100),
    /* empty<<<1,1>>> on a non-blocking stream: 3.96 us */
    [RT_COST_LAUNCH] = SIM_NS(3960),
    /* cudaMemcpyAsync 16 B host -> device, pinned: 1.47 us */
    [RT_COST_MEMCPY_ASYNC_H2D] = SIM_NS(1470),
    /* cudaMemcpyAsync 16 B device -> device: 4.14 us */
    [RT_COST_MEMCPY_ASYNC_D2D] = SIM_NS(4140),
    /* cudaMemcpyAsync from one GPU to another (peer access on): 1.98-2.11
     * us per call, 4 B - 1 MB, on HGX H200s (data/hgx-h200-x2/
     * ce_pipeline_probe.txt, P2P rows), half the cost of a copy within
     * one GPU's memory there */
    [RT_COST_MEMCPY_ASYNC_PEER] = SIM_NS(2000),
    /* cudaMemcpy's own overhead beyond enqueue and completion: 16 B
     * H2D took 6.24 us, of which 1.47 is the enqueue and 2.17 the copy
     * (spin-gated figure), leaving 2.6 us [computed] for the wait's
     * wake-up, charged as RT_COST_SYNC; so no extra cost here. */
    [RT_COST_MEMCPY_SYNC] = 0,
    /* cudaEventRecord: 0.90 us */
    [RT_COST_EVENT_RECORD] = SIM_NS(900),
    /* cudaMalloc + cudaFree of 1 MB: 2.81 us, half each */
    [RT_COST_MALLOC] = SIM_NS(1405),
    /* waking a host thread blocked on completion: 6.24 - 1.47 - 2.17 us
     * [computed], see RT_COST_MEMCPY_SYNC */
    [RT_COST_SYNC] = SIM_NS(2600),
    /* [estimate] the driver's callback thread picking up a host function */
    [RT_COST_HOSTFN] = SIM_NS(2000),
    /* [estimate] clock_gettime through the vDSO on a current x86 host,
     * some 20 ns; charged per read of the simulated clock (rt_host.c), so
     * that a loop waiting for its own clock to pass a time ends */
    [RT_COST_CLOCK_READ] = SIM_NS(20),
};

/*
 * The key of a machine file's api-costs: (topologies/SCHEMA.md) that
 * replaces each default above, or -1 for none: the host, not the GPU, sets
 * these costs (a virtual machine's calls cost more than a bare-metal
 * host's). RT_COST_MEMCPY_SYNC has no key: nothing charges it (its share
 * is in RT_COST_SYNC). Every entry is written out; a new cost needs one.
 */
static const int rt_cost_key[RT_COST_N] = {
    [RT_COST_CALL] = API_COST_CALL,
    [RT_COST_LAUNCH] = API_COST_LAUNCH,
    [RT_COST_MEMCPY_ASYNC_H2D] = API_COST_MEMCPY_ASYNC_H2D,
    [RT_COST_MEMCPY_ASYNC_D2D] = API_COST_MEMCPY_ASYNC_D2D,
    [RT_COST_MEMCPY_ASYNC_PEER] = API_COST_MEMCPY_ASYNC_PEER,
    [RT_COST_MEMCPY_SYNC] = -1,
    [RT_COST_EVENT_RECORD] = API_COST_EVENT_RECORD,
    [RT_COST_MALLOC] = API_COST_MALLOC,
    [RT_COST_SYNC] = API_COST_SYNC,
    [RT_COST_HOSTFN] = API_COST_HOST_FUNCTION,
    [RT_COST_CLOCK_READ] = API_COST_CLOCK_READ,
};
/* API_COST_STAGED_HANDOFF is no cost of the runtime's (libp2psim's
 * executor charges it, machine/exec.c). */
_Static_assert((int)RT_COST_N == (int)API_COST_N,
               "every runtime cost but RT_COST_MEMCPY_SYNC has a key, and "
               "every key but staged-handoff a runtime cost");

/* Take every cost the machine sets (api_costs.c reads them). rt.p is this
 * process's own copy of the machine, also when a server simulates it, so
 * both modes see them. 0, or -1 and err for a bad api-costs:. */
static int rt_costs_from_machine(const struct p2psim *p,
                                 struct sim_error *err)
{
    struct api_costs set;
    if (api_costs_read(p, &set, err) < 0) {
        return -1;
    }
    for (unsigned c = 0; c < RT_COST_N; c++) {
        if (rt_cost_key[c] >= 0 && set.set[rt_cost_key[c]]) {
            rt_costs[c] = set.ps[rt_cost_key[c]];
        }
    }
    return 0;
}

static pthread_once_t rt_once = PTHREAD_ONCE_INIT;
static pthread_key_t rt_key;
static _Thread_local struct rt_thread *rt_self_;
static uint64_t rt_activity;    /* calls made, for the grace period */
static long rt_grace_ms = 20;
static uint64_t rt_spin_ns = 200000000; /* P2PSIM_HOST_SPIN_MS */
static atomic_uint rt_entering; /* on their way into the lock (rt_lock) */
static bool rt_newcomer_busy;   /* a thread not seen yet is runnable */
static bool rt_hook_busy;       /* one told blocked (rt_host.c) is runnable */
static _Thread_local unsigned rt_inside;        /* in a call, lock held */
static _Thread_local bool rt_internal_self;     /* one of the runtime's */
static _Thread_local sim_time_t rt_pre_clock;   /* reads before start-up */

/* ---- host threads -------------------------------------------------------------- */

static void rt_thread_gone(void *arg)
{
    struct rt_thread *t = arg;
    rt_lock();
    t->state = RT_EXITED;
    free(t->per_thread);
    t->per_thread = NULL;
    pthread_cond_broadcast(&rt.cond);
    pthread_mutex_unlock(&rt.lock);
}

/* With the lock held. */
struct rt_thread *rt_self(void)
{
    struct rt_thread *t = rt_self_;
    if (t) {
        return t;
    }
    t = calloc(1, sizeof(*t));
    if (!t) {
        fprintf(stderr, "p2psim: out of memory\n");
        abort();
    }
    t->clock = rt.ready ? rt_machine->now() : 0;
    if (t->clock < rt_pre_clock) {
        t->clock = rt_pre_clock;        /* clock reads before start-up */
    }
    /* One of the runtime's threads (it runs host functions) is never
     * waited for and is not the program's. */
    t->state = rt_internal_self ? RT_EXITED : RT_RUNNING;
    t->id = rt_internal_self ? 0 : rt.n_threads++;
    t->deadline = SIM_TIME_MAX;
    t->told_until = SIM_TIME_MAX;
    t->ostid = osthread_self();
    t->pth = pthread_self();
    t->next = rt.threads;
    rt.threads = t;
    rt_self_ = t;
    pthread_setspecific(rt_key, t);
    return t;
}

struct rt_thread *rt_self_peek(void)
{
    return rt_self_;
}

void rt_charge(sim_time_t d)
{
    struct rt_thread *t = rt_self();
    t->clock = sim_time_add(t->clock, d);
}

/* ---- start-up and the report at exit ---------------------------------------- */

static void rt_report(void);

static void rt_init(void)
{
    pthread_key_create(&rt_key, rt_thread_gone);
    const char *g = getenv("P2PSIM_HOST_GRACE_MS");
    if (g && *g) {
        rt_grace_ms = strtol(g, NULL, 10);
        if (rt_grace_ms < 1) {
            rt_grace_ms = 1;
        }
    }
    const char *sp = getenv("P2PSIM_HOST_SPIN_MS");
    if (sp && *sp) {
        long ms = strtol(sp, NULL, 10);
        rt_spin_ns = (uint64_t)(ms < 1 ? 1 : ms > 3600000 ? 3600000 : ms) *
                     1000000u;
    }
    const char *file = getenv("P2PSIM_TOPOLOGY");
    if (file && !*file) {
        file = NULL;
    }
    struct sim_error err = { 0 };
    struct p2psim_options opt = { 0 };
    opt.engine = getenv("P2PSIM_ENGINE");
    opt.fidelity = getenv("P2PSIM_FIDELITY");
    opt.overrides = getenv("P2PSIM_SET");
    opt.vm = getenv("P2PSIM_VM");
    rt.p = p2psim_open(file, &opt, &err);
    if (rt.p && rt_costs_from_machine(rt.p, &err) < 0) {
        p2psim_close(rt.p);
        rt.p = NULL;
    }
    if (!rt.p) {
        char buf[512];
        fprintf(stderr, "p2psim: cannot load the machine: %s\n",
                sim_error_format(&err, buf, sizeof(buf)));
        rt.init_error = cudaErrorInitializationError;
        return;
    }
    const char *server = getenv("P2PSIM_SERVER");
    if (server && *server) {
        cudaError_t e = rt_remote_connect(server);
        if (e) {
            rt.init_error = e;
            return;
        }
    } else if (p2psim_trace_from_env(rt.p, &err) < 0) {
        /* P2PSIM_TRACE and friends (the server reads them when it
         * simulates, tools/cmd_server.c). */
        char buf[512];
        fprintf(stderr, "p2psim: %s\n",
                sim_error_format(&err, buf, sizeof(buf)));
        rt.init_error = cudaErrorInitializationError;
        return;
    }
    rt.n_dev = p2psim_gpu_count(rt.p);
    rt.dev = calloc(rt.n_dev ? rt.n_dev : 1, sizeof(*rt.dev));
    if (!rt.dev) {
        rt.init_error = cudaErrorMemoryAllocation;
        return;
    }
    for (unsigned d = 0; d < rt.n_dev; d++) {
        rt.dev[d].index = d;
        rt.dev[d].peer_enabled = calloc(rt.n_dev, sizeof(bool));
        if (!rt.dev[d].peer_enabled) {
            rt.init_error = cudaErrorMemoryAllocation;
            return;
        }
    }
    cudaError_t e = rt_memory_init();
    if (e) {
        rt.init_error = e;
        return;
    }
    rt.ready = true;
    atexit(rt_report);
    rt_driver_start();
}

static cudaError_t enter(bool sticky)
{
    struct rt_thread *self = rt_self_;
    if (self && self->in_callback) {
        /* A host function may not call CUDA (it runs with the lock held). */
        return cudaErrorNotPermitted;
    }
    pthread_once(&rt_once, rt_init);
    if (!rt.ready) {
        return rt.init_error ? rt.init_error : cudaErrorInitializationError;
    }
    rt_lock();
    rt_inside++;
    rt_come_in();
    int s = sticky ? cudart_error_sticky() : 0;
    if (s) {
        rt_leave();
        return s;
    }
    return cudaSuccess;
}

int rt_lock(void)
{
    atomic_fetch_add(&rt_entering, 1);
    int e = pthread_mutex_lock(&rt.lock);
    atomic_fetch_sub(&rt_entering, 1);
    return e;
}

void rt_come_in(void)
{
    rt_activity++;
    rt_newcomer_busy = false;   /* looked at again at the next grace */
    struct rt_thread *self = rt_self();
    self->cpu_marked = false;
    self->look.seen = false;
    if (self->state != RT_RUNNING) {
        /* Back from outside CUDA: catch up with the simulation. */
        self->state = RT_RUNNING;
    }
    sim_time_t now = rt_machine->now();
    if (self->clock < now) {
        self->clock = now;
    }
}

bool rt_host_lock(void)
{
    if (rt_inside || rt_internal_self) {
        return false;
    }
    return rt_lock() == 0;      /* EDEADLK: it holds it */
}

void rt_host_pre_clock(sim_time_t d)
{
    rt_pre_clock = sim_time_add(rt_pre_clock, d);
}

sim_time_t rt_host_pre_now(void)
{
    return rt_pre_clock;
}

cudaError_t rt_enter(void)
{
    return enter(true);
}

cudaError_t rt_enter_nosticky(void)
{
    return enter(false);
}

static void catch_up(void);

void rt_leave(void)
{
    catch_up();
    rt_inside--;
    pthread_mutex_unlock(&rt.lock);
}

int rt_current_device(void)
{
    return rt_self()->device;
}

bool rt_device_valid(int dev)
{
    return dev >= 0 && (unsigned)dev < rt.n_dev;
}

/* ---- rt_wait ------------------------------------------------------------------- */

/* Threads in state st. */
static unsigned threads_in(enum rt_thread_state st)
{
    unsigned n = 0;
    for (struct rt_thread *t = rt.threads; t; t = t->next) {
        n += t->state == st;
    }
    return n;
}

static bool waiter_released(const struct rt_thread *t, sim_time_t now)
{
    return now >= t->deadline || (t->until && t->until(t->until_arg));
}

/* A thread told blocked (rt_host.c) in a timed wait whose deadline has
 * come: it times out, and counts as running again. */
static bool told_due(const struct rt_thread *t, sim_time_t now)
{
    return t->state == RT_OUTSIDE && t->told && now >= t->told_until;
}

/* The earliest deadline of a waiter or of a told timed wait. */
static sim_time_t earliest_deadline(void)
{
    sim_time_t limit = SIM_TIME_MAX;
    for (struct rt_thread *t = rt.threads; t; t = t->next) {
        if (t->state == RT_WAITING && t->deadline < limit) {
            limit = t->deadline;
        }
        if (t->state == RT_OUTSIDE && t->told && t->told_until < limit) {
            limit = t->told_until;
        }
    }
    return limit;
}

/* The simulation's stop condition: no waiter released yet, and no told
 * timed wait due. */
static bool none_released(void *arg)
{
    (void)arg;
    sim_time_t now = rt_machine->now();
    for (struct rt_thread *t = rt.threads; t; t = t->next) {
        if ((t->state == RT_WAITING && waiter_released(t, now)) ||
            told_due(t, now)) {
            return false;
        }
    }
    return true;
}

/*
 * ... and no host function has run: it may have woken a thread blocked
 * outside CUDA, or started one, which is looked at before time goes on
 * (so that it comes back, or first calls, at the time of the callback).
 */
static bool keep_running(void *arg)
{
    return !rt.hostfn_ran && none_released(arg);
}

/*
 * Run the simulation until a waiter is released or the earliest deadline.
 * Returns false if nothing could happen (no event, no deadline): the
 * waiters wait for work that nobody will do.
 */
static bool run_simulation(void)
{
    sim_time_t limit = earliest_deadline();
    if (!none_released(NULL)) {
        return true;
    }
    rt.running_sim = true;
    rt.hostfn_ran = false;
    bool ok = rt_machine->advance(keep_running, NULL, limit);
    rt.running_sim = false;
    return ok;
}

/*
 * Catch-up: while a kernel is live (enqueued, running, or not yet
 * released), every call on its way out brings the simulation up to the
 * earliest clock of the threads running between calls (its own among
 * them), stopping early where a waiter is released. No thread can enqueue
 * before its own clock, so nothing lands in the simulated past; what
 * changes is when the device looks at host memory: a kernel polling
 * mapped or managed memory has run up to the storing thread's clock when
 * the thread returns to its code, so a store it makes before its next
 * call is seen at that clock, not when the host next waits (by which time
 * every store is long made). Threads outside CUDA do not hold it back:
 * their clocks catch up when they return. docs/memory-model.md, "Host
 * stores".
 */
static void catch_up(void)
{
    if (!rt.kernels_live || rt.running_sim || rt_machine_failed) {
        return;
    }
    sim_time_t limit = SIM_TIME_MAX;
    for (struct rt_thread *t = rt.threads; t; t = t->next) {
        if (t->state == RT_RUNNING && t->clock < limit) {
            limit = t->clock;
        }
    }
    if (limit == SIM_TIME_MAX || rt_machine->now() >= limit ||
        !none_released(NULL)) {
        return;
    }
    rt.running_sim = true;
    rt.catching_up = true;
    rt.hostfn_ran = false;
    rt_machine->advance(keep_running, NULL, limit);
    rt.catching_up = false;
    rt.running_sim = false;
    pthread_cond_broadcast(&rt.cond);
}

/*
 * A thread that is neither in a call nor waiting may be blocked outside
 * CUDA (pthread_join on the workers that are waiting here, a barrier):
 * waiting for it would deadlock. When no call has been made for a grace
 * period of wall time (P2PSIM_HOST_GRACE_MS, default 20), the kernel is
 * asked about each such thread (osthread.h): one asleep in the kernel at
 * two grace checks, without using CPU time in between, is taken as
 * blocked outside, and time goes on without it; one still
 * runnable is working towards its next call and is waited for, however
 * long a loaded machine makes that, unless it has used more than
 * P2PSIM_HOST_SPIN_MS (default 200) of CPU time since its last call, as a
 * thread spinning on a flag does. While any such thread works, no other
 * is taken as outside (it may be what they wait for), and threads that
 * have not called CUDA yet count too while runnable (a worker just
 * created). When a thread comes
 * back, its clock catches up with the simulation. So simulated time
 * depends on wall time only through threads that compute for longer than
 * that CPU time between calls, or that block outside CUDA and are woken
 * by something other than a CUDA call or another thread's progress.
 */

/* A thread that has used more than rt_spin_ns of CPU time since mark
 * (its CPU time when first seen runnable) is spinning. */
static bool spun(uint64_t mark, uint64_t cpu)
{
    return cpu - mark > rt_spin_ns;
}

/* spun, for a runnable thread of the runtime's; the first look marks. */
static bool spinning(struct rt_thread *t)
{
    uint64_t cpu = osthread_cpu_ns(t->pth);
    if (!t->cpu_marked) {
        t->cpu_marked = true;
        t->cpu_mark = cpu;
        return false;
    }
    return spun(t->cpu_mark, cpu);
}

/* Runnable threads of the process that have not called CUDA yet, with the
 * CPU time each had when first seen so (RT_NEWCOMERS at most). */
#define RT_NEWCOMERS 64
struct rt_newcomer {
    pid_t tid;
    uint64_t mark;
};
static struct rt_newcomer rt_newcomers[RT_NEWCOMERS];
static unsigned rt_n_newcomers;

/* The runtime's own threads (rt_thread_internal). */
#define RT_INTERNAL 4
static pid_t rt_internal[RT_INTERNAL];
static unsigned rt_n_internal;

void rt_thread_internal(void)
{
    rt_internal_self = true;
    pthread_mutex_lock(&rt.lock);
    if (rt_n_internal < RT_INTERNAL) {
        rt_internal[rt_n_internal++] = osthread_self();
    }
    pthread_mutex_unlock(&rt.lock);
}

static bool is_known(pid_t tid)
{
    for (unsigned i = 0; i < rt_n_internal; i++) {
        if (rt_internal[i] == tid) {
            return true;
        }
    }
    for (struct rt_thread *t = rt.threads; t; t = t->next) {
        if (t->ostid == tid && t->state != RT_EXITED) {
            return true;
        }
    }
    return false;
}

/* The process has threads the runtime has not seen (or has seen exit). */
static bool unknown_threads(void)
{
    unsigned known = rt_n_internal;
    for (struct rt_thread *t = rt.threads; t; t = t->next) {
        known += t->state != RT_EXITED;
    }
    return osthread_count() > known;
}

/* Some thread the runtime has not seen is runnable and not spinning: it
 * may be about to make its first call. The table is made anew at each
 * look, so a thread that has called, slept or gone leaves it (and a
 * reused id starts afresh). */
static bool newcomer_busy(void)
{
    pid_t tids[256];
    unsigned n = osthread_list(tids, 256);
    struct rt_newcomer now[RT_NEWCOMERS];
    unsigned kept = 0;
    bool busy = false;
    for (unsigned i = 0; i < n && i < 256 && kept < RT_NEWCOMERS; i++) {
        if (is_known(tids[i]) || !osthread_runnable(tids[i])) {
            continue;
        }
        uint64_t cpu = osthread_cpu_ns_tid(tids[i]), mark = cpu;
        for (unsigned k = 0; k < rt_n_newcomers; k++) {
            if (rt_newcomers[k].tid == tids[i]) {
                mark = rt_newcomers[k].mark;
            }
        }
        now[kept].tid = tids[i];
        now[kept].mark = mark;
        kept++;
        busy = busy || !spun(mark, cpu);
    }
    /* more than RT_NEWCOMERS runnable: the others are taken as spinning */
    memcpy(rt_newcomers, now, kept * sizeof(now[0]));
    rt_n_newcomers = kept;
    return busy;
}

/* Thread t, between calls, is blocked: asleep at this grace check and the
 * one before (osthread_asleep_twice), or runnable and spinning. */
static bool blocked(struct rt_thread *t)
{
    if (osthread_asleep_twice(&t->look, t->ostid, t->pth)) {
        return true;
    }
    return !t->look.seen && spinning(t);   /* not seen asleep: runnable */
}

/*
 * Nobody has called in for the grace period. If every thread between
 * calls is blocked, they are blocked outside CUDA. While one of them is
 * working, none is: the others may be waiting for it (a lock it holds, a
 * condition it will signal), and it will call CUDA or block in its turn.
 * Nothing is decided while a thread is on its way into the lock.
 */
static void grace_expired(void)
{
    if (atomic_load(&rt_entering) > 0) {
        return;
    }
    rt_newcomer_busy = newcomer_busy();
    bool all_blocked = !rt_newcomer_busy;
    for (struct rt_thread *t = rt.threads; t; t = t->next) {
        if (t->state == RT_RUNNING && !blocked(t)) {
            all_blocked = false;   /* every thread still looked at */
        }
    }
    if (!all_blocked) {
        return;
    }
    for (struct rt_thread *t = rt.threads; t; t = t->next) {
        if (t->state == RT_RUNNING) {
            t->state = RT_OUTSIDE;
        }
    }
}

/*
 * A thread taken as blocked outside that is working again (woken by
 * another thread, or a timeout of its own) is waited for again, unless it
 * is the spinner it was taken for.
 */
static void outside_woken(void)
{
    rt_hook_busy = false;
    for (struct rt_thread *t = rt.threads; t; t = t->next) {
        if (t->state == RT_OUTSIDE && t->told) {
            /* Told blocked (rt_host.c): back once it says so; while it is
             * runnable it is on its way into the call, or woken and on
             * its way back, and is looked at again soon. */
            if (__atomic_load_n(&t->back, __ATOMIC_ACQUIRE) ||
                told_due(t, rt_machine->now())) {
                t->state = RT_RUNNING;  /* back, or about to time out */
            } else if (osthread_runnable(t->ostid)) {
                rt_hook_busy = true;
            }
            continue;
        }
        if (t->state == RT_OUTSIDE && osthread_runnable(t->ostid) &&
            !(t->cpu_marked && spun(t->cpu_mark, osthread_cpu_ns(t->pth)))) {
            t->state = RT_RUNNING;
            t->look.seen = false;
        }
    }
}

/* How long to wait before looking again: a thread that is about to call
 * or block is looked at again soon. */
static long look_soon(void)
{
    bool soon = (rt_newcomer_busy || rt_hook_busy) &&
                threads_in(RT_RUNNING) == 0;
    return soon && rt_grace_ms > 2 ? 2 : rt_grace_ms;
}

/* ms of wall time from now, on the clock of the futex's timeouts. */
static struct timespec wall_in(long ms)
{
    struct timespec ts;
    p2psim_real_clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

static void timed_wait(long ms)
{
    struct timespec ts = wall_in(ms);
    pthread_cond_timedwait(&rt.cond, &rt.lock, &ts);
}

cudaError_t rt_wait(bool (*until)(void *arg), void *arg, sim_time_t deadline)
{
    struct rt_thread *self = rt_self();
    self->until = until;
    self->until_arg = arg;
    self->deadline = deadline;
    self->state = RT_WAITING;
    cudaError_t e = cudaSuccess;
    bool slept = false;
    uint64_t seen = rt_activity;
    for (;;) {
        if (waiter_released(self, rt_machine->now())) {
            break;
        }
        /* Run the simulation if nobody runs, nobody is about to (a
         * released waiter that has not left yet), and it is not running. */
        if (!rt.running_sim && threads_in(RT_RUNNING) == 0) {
            outside_woken();    /* only matters when nobody else runs */
            if (threads_in(RT_RUNNING) == 0 && !rt_newcomer_busy &&
                unknown_threads()) {
                rt_newcomer_busy = newcomer_busy();
            }
        }
        if (!rt.running_sim && threads_in(RT_RUNNING) == 0 &&
            !rt_newcomer_busy && !rt_hook_busy && none_released(NULL)) {
            if (!run_simulation()) {
                e = rt_machine_failed ? cudaErrorMemoryAllocation
                                      : cudaErrorUnknown;
                if (!rt_machine_failed) {
                    fprintf(stderr, "p2psim: every host thread waits for "
                                    "work that nothing will do (deadlock)\n");
                }
                break;
            }
            pthread_cond_broadcast(&rt.cond);
            slept = true;
            continue;
        }
        /* A runnable thread not seen yet is looked at again soon: it
         * makes its first call, or falls asleep, without calling in. */
        timed_wait(look_soon());
        slept = true;
        if (rt_newcomer_busy && !rt.running_sim) {
            rt_newcomer_busy = newcomer_busy();
        } else if (rt_activity == seen && !rt.running_sim) {
            grace_expired();
        }
        seen = rt_activity;
    }
    self->state = RT_RUNNING;
    self->until = NULL;
    self->deadline = SIM_TIME_MAX;
    sim_time_t now = rt_machine->now();
    if (self->clock < now) {
        self->clock = now;
        if (slept) {
            self->clock = sim_time_add(self->clock, rt_costs[RT_COST_SYNC]);
        }
    }
    return e;
}

/* ---- the driver ----------------------------------------------------------------- */

/*
 * While every program thread is blocked outside CUDA (told by rt_host.c, or
 * seen so at grace checks) or has exited, and none waits in rt_wait, no
 * thread would run the simulation: work already queued, and the stream
 * callbacks that would wake the threads, would never run. The driver, a
 * thread of the runtime's own, runs it then, stopping after each host
 * function as rt_wait does (the callback may wake or start a thread, which
 * is looked at before time goes on). So when time moves depends on what
 * the program's threads do, never on how fast the computer runs them: a
 * program whose main thread waits on a barrier that callbacks release
 * ends at the same simulated time at any load. Once a run ends with
 * nothing left to do, the driver waits for a call, or a timed wait's
 * deadline (rt_host.c), before it tries again.
 */
static bool driver_keep(void *arg)
{
    (void)arg;
    return !rt.hostfn_ran && threads_in(RT_RUNNING) == 0 &&
           threads_in(RT_WAITING) == 0 && none_released(NULL);
}

static void *driver_main(void *arg)
{
    (void)arg;
    rt_thread_internal();
    pthread_mutex_lock(&rt.lock);
    uint64_t seen = rt_activity, idle_at = UINT64_MAX;
    for (;;) {
        bool alone = !rt.running_sim && threads_in(RT_RUNNING) == 0 &&
                     threads_in(RT_WAITING) == 0;
        if (alone) {
            outside_woken();
            if (threads_in(RT_RUNNING) == 0 && !rt_newcomer_busy &&
                unknown_threads()) {
                rt_newcomer_busy = newcomer_busy();
            }
        }
        if (alone && threads_in(RT_RUNNING) == 0 && !rt_newcomer_busy &&
            !rt_hook_busy &&
            (rt_activity != idle_at || earliest_deadline() != SIM_TIME_MAX)) {
            rt.running_sim = true;
            rt.hostfn_ran = false;
            bool ok = rt_machine->advance(driver_keep, NULL,
                                          earliest_deadline());
            rt.running_sim = false;
            if (!ok || !rt.hostfn_ran) {
                idle_at = rt_activity;  /* nothing more until a call */
            }
            pthread_cond_broadcast(&rt.cond);
            continue;
        }
        timed_wait(look_soon());
        if (rt_newcomer_busy && !rt.running_sim) {
            rt_newcomer_busy = newcomer_busy();
        } else if (rt_activity == seen && !rt.running_sim &&
                   threads_in(RT_WAITING) == 0) {
            grace_expired();
        }
        seen = rt_activity;
    }
    return NULL;
}

void rt_driver_start(void)
{
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, driver_main, NULL) != 0) {
        fprintf(stderr, "p2psim: cannot start the runtime's driver thread; "
                        "a program blocked outside CUDA will not see time "
                        "move\n");
    }
    pthread_attr_destroy(&attr);
}

/* ---- the report at exit ------------------------------------------------------- */

/*
 * The machine's counters: under a p2psim server its machine's (remote.c),
 * which every process of the program shares, so far; else this one's.
 */
static void machine_counters(uint64_t *events, uint64_t *tlp_hops,
                             uint64_t *parked)
{
    if (rt_remote_is_active()) {
        rt_remote_counters(events, tlp_hops, parked);
        return;
    }
    struct sim *sim = p2psim_sim(rt.p);
    *events = sim_events_fired(sim);
    *tlp_hops = sim_tlp_hops(sim);
    *parked = p2psim_kernel_parked_rounds();
}

static int machine_link_stat(unsigned i, struct p2psim_link_stat *ls)
{
    int rc = p2psim_link_stat(rt.p, i, ls);
    return rc < 0 || !rt_remote_is_active() ? rc : rt_remote_link_stat(i, ls);
}

static void report_json(const char *file)
{
    FILE *f = fopen(file, "w");
    if (!f) {
        fprintf(stderr, "p2psim: cannot write %s: %s\n", file,
                strerror(errno));
        return;
    }
    uint64_t events, tlp_hops, parked;
    machine_counters(&events, &tlp_hops, &parked);
    fprintf(f,
            "{\n  \"machine\": \"%s\",\n  \"simulated_ps\": %" PRIu64 ",\n"
            "  \"events\": %" PRIu64 ",\n  \"tlp_hops\": %" PRIu64 ",\n"
            "  \"copies_p2p\": %" PRIu64 ",\n  \"bytes_p2p\": %" PRIu64 ",\n"
            "  \"copies_staged\": %" PRIu64 ",\n"
            "  \"bytes_staged\": %" PRIu64 ",\n  \"host_threads\": %u,\n"
            "  \"parked_rounds\": %" PRIu64 ",\n"
            "  \"managed_faults\": %" PRIu64 ",\n"
            "  \"managed_migrated_bytes\": %" PRIu64 ",\n  \"links\": [",
            p2psim_machine_name(rt.p), rt_machine->now(),
            events, tlp_hops, rt.n_copies_p2p,
            rt.bytes_p2p, rt.n_copies_staged, rt.bytes_staged, rt.n_threads,
            parked, rt.n_managed_faults, rt.bytes_managed_migrated);
    unsigned n = p2psim_link_count(rt.p), k = 0;
    for (unsigned i = 0; i < n; i++) {
        struct p2psim_link_stat ls;
        if (machine_link_stat(i, &ls) < 0 ||
            ls.bytes[0] + ls.bytes[1] == 0) {
            continue;
        }
        fprintf(f,
                "%s\n    { \"name\": \"%s\", \"kind\": \"%s\", "
                "\"bytes\": [%" PRIu64 ", %" PRIu64 "], \"tlps\": [%" PRIu64
                ", %" PRIu64 "] }",
                k++ ? "," : "", ls.name, ls.kind, ls.bytes[0], ls.bytes[1],
                ls.tlps[0], ls.tlps[1]);
    }
    fprintf(f, "%s]\n}\n", k ? "\n  " : "");
    fclose(f);
}

/* The links that carried bytes, one line each, on stderr. */
static void report_links(void)
{
    unsigned n = p2psim_link_count(rt.p);
    sim_time_t now = rt_machine->now();
    for (unsigned i = 0; i < n; i++) {
        struct p2psim_link_stat ls;
        if (machine_link_stat(i, &ls) < 0 ||
            ls.bytes[0] + ls.bytes[1] == 0) {
            continue;
        }
        fprintf(stderr, "p2psim:   %-40s %12" PRIu64 " B ->  %12" PRIu64
                        " B <-",
                ls.name, ls.bytes[0], ls.bytes[1]);
        if (ls.rate && now) {
            double cap = (double)ls.rate * (double)now / (double)SIM_PS_PER_S;
            fprintf(stderr, "   (%.0f%% / %.0f%% of the link's rate)",
                    100.0 * (double)ls.bytes[0] / cap,
                    100.0 * (double)ls.bytes[1] / cap);
        }
        fputc('\n', stderr);
    }
}

static void rt_report(void)
{
    /* The driver, or a thread between calls, may hold the lock for a
     * moment; one still inside a call after 200 ms of wall time (or this
     * thread, in a host function) means no consistent state. */
    struct timespec ts = wall_in(200);
    if (pthread_mutex_timedlock(&rt.lock, &ts) != 0) {
        return;
    }
    p2psim_trace_stop(rt.p);    /* the counters at the end, the files */
    const char *stats = getenv("P2PSIM_STATS");
    if (stats && *stats) {
        report_json(stats);
    }
    const char *r = getenv("P2PSIM_REPORT");
    if (r && *r && strcmp(r, "0") != 0) {
        sim_time_t now = rt_machine->now();
        fprintf(stderr,
                "p2psim: machine %s, simulated time %.3f ms, %u host "
                "thread%s\n"
                "p2psim: GPU-to-GPU copies: %" PRIu64 " P2P (%" PRIu64
                " bytes), %" PRIu64 " staged through host memory (%" PRIu64
                " bytes)\n",
                p2psim_machine_name(rt.p), (double)now / SIM_PS_PER_MS,
                rt.n_threads, rt.n_threads == 1 ? "" : "s", rt.n_copies_p2p,
                rt.bytes_p2p, rt.n_copies_staged, rt.bytes_staged);
        if (rt.n_managed_migrations) {
            fprintf(stderr, "p2psim: managed memory: %" PRIu64 " fault "
                    "batches, %" PRIu64 " migrations (%" PRIu64 " bytes)\n",
                    rt.n_managed_faults, rt.n_managed_migrations,
                    rt.bytes_managed_migrated);
        }
        fprintf(stderr, "p2psim: bytes per link (side 0 -> side 1, and "
                        "back):\n");
        report_links();
    }
    pthread_mutex_unlock(&rt.lock);
}
