/*
 * cuda/host/host.c - libp2psim-host.so, which `p2psim run` preloads
 * (LD_PRELOAD) into the program: time as the program sees it.
 *
 * - Clocks: clock_gettime, gettimeofday, time and timespec_get read the
 *   calling thread's simulated clock (host_hooks.h: the CUDA runtime's).
 *   CLOCK_REALTIME (and _COARSE, _ALARM; TAI likewise) is the wall time at
 *   the run's start in whole seconds (P2PSIM_CLOCK_ORIGIN, ns, which
 *   `p2psim run` sets for every process of the program; else when this
 *   library loaded) plus simulated time; CLOCK_MONOTONIC, _RAW, _COARSE and BOOTTIME are
 *   simulated time plus a fixed HOST_MONO_ORIGIN. CPU-time clocks (the
 *   process's, a thread's) stay the kernel's: they count the computer's
 *   work, which the simulation does not model.
 * - Sleeps: nanosleep, clock_nanosleep (of those clocks), usleep, sleep,
 *   and poll or select on no descriptors with a timeout, are simulated
 *   sleeps: the thread waits while simulated time moves on, and its clock
 *   advances by the sleep.
 * - Blocking outside CUDA: pthread_cond_wait (timed, clockwait),
 *   pthread_barrier_wait, sem_wait (timed), pthread_join, waitpid, wait,
 *   poll, select and a read that would block tell the runtime that the
 *   thread waits, so time moves and stream callbacks run while it does.
 *   A timed wait's deadline is simulated time (TIMED_WAIT); poll's and
 *   select's timeouts on descriptors stay wall time.
 *
 * P2PSIM_REAL_CLOCK=1 (`p2psim run --real-clock`) leaves clocks and
 * sleeps real; blocking is still told. The definitions are unversioned,
 * so they take the program's GLIBC_* references; the C library's own
 * functions are found with RTLD_NEXT. Without the runtime's hooks (a
 * program without CUDA, a helper process) every call is the C library's.
 */
#define _GNU_SOURCE
#include <config.h>

#include "cuda/host/host_hooks.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S 1000000000LL
/* CLOCK_MONOTONIC at simulated time 0: 1000 s, so that no program takes
 * a reading for "unset" */
#define HOST_MONO_ORIGIN (1000 * NS_PER_S)

static const struct p2psim_host_hooks *volatile hooks;
static bool real_clock;          /* P2PSIM_REAL_CLOCK */
static long long origin_real;    /* CLOCK_REALTIME at simulated time 0 */
static long long origin_tai;     /* CLOCK_TAI at simulated time 0 */
static _Thread_local bool in_hook;      /* a hook runs: no recursion */

/* The C library's function NAME (its default version, or VER). */
static void *next_fn(const char *name, const char *ver)
{
    void *f = ver ? dlvsym(RTLD_NEXT, name, ver) : NULL;
    return f ? f : dlsym(RTLD_NEXT, name);
}
/* next_NAME: the C library's NAME, looked up on first use. */
#define NEXT(name, ver)                                                 \
    static __typeof__(name) *next_##name;                               \
    if (!next_##name) {                                                 \
        next_##name = (__typeof__(name) *)next_fn(#name, ver);          \
    }

static long long ts_ns(const struct timespec *ts)
{
    return (long long)ts->tv_sec * NS_PER_S + ts->tv_nsec;
}

static struct timespec ns_ts(long long ns)
{
    struct timespec ts = { (time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S) };
    return ts;
}

static long long kernel_ns(clockid_t id)
{
    struct timespec ts = { 0, 0 };
    syscall(SYS_clock_gettime, id, &ts);
    return ts_ns(&ts);
}

void p2psim_host_hooks_register(const struct p2psim_host_hooks *h)
{
    hooks = h && h->version == P2PSIM_HOST_HOOKS_VERSION ? h : NULL;
}

__attribute__((constructor)) static void host_init(void)
{
    const char *r = getenv("P2PSIM_REAL_CLOCK");
    real_clock = r && *r && *r != '0';
    const char *o = getenv("P2PSIM_CLOCK_ORIGIN");
    long long now = kernel_ns(CLOCK_REALTIME);
    /* whole seconds (as p2psim run gives it): see cmd_run.c */
    origin_real = o && *o ? strtoll(o, NULL, 10) : now - now % NS_PER_S;
    origin_tai = origin_real + (kernel_ns(CLOCK_TAI) - now);
}

/* ---- clocks ---------------------------------------------------------------- */

enum family { FAM_NONE, FAM_REAL, FAM_TAI, FAM_MONO };

static enum family family(clockid_t id)
{
    switch (id) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_REALTIME_ALARM:
        return FAM_REAL;
    case CLOCK_TAI:
        return FAM_TAI;
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
    case CLOCK_BOOTTIME_ALARM:
        return FAM_MONO;
    default:
        return FAM_NONE;        /* CPU time, and anything else */
    }
}

/* The simulated reading of a clock of family f into *ns: true; false:
 * read the kernel's. */
static bool sim_now(enum family f, long long *ns)
{
    const struct p2psim_host_hooks *h = hooks;
    uint64_t t;
    if (real_clock || f == FAM_NONE || !h || in_hook) {
        return false;
    }
    in_hook = true;
    int got = h->clock(&t);
    in_hook = false;
    if (!got) {
        return false;
    }
    *ns = (long long)t + (f == FAM_REAL  ? origin_real
                          : f == FAM_TAI ? origin_tai
                                         : HOST_MONO_ORIGIN);
    return true;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    long long ns;
    if (sim_now(family(id), &ns)) {
        *ts = ns_ts(ns);
        return 0;
    }
    NEXT(clock_gettime, NULL);
    return next_clock_gettime(id, ts);
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    long long ns;
    if (sim_now(FAM_REAL, &ns)) {
        tv->tv_sec = (time_t)(ns / NS_PER_S);
        tv->tv_usec = (suseconds_t)(ns % NS_PER_S / 1000);
        if (!tz) {
            return 0;
        }
        tv = NULL;              /* the time zone is the C library's */
    }
    NEXT(gettimeofday, NULL);
    return next_gettimeofday(tv, tz);
}

time_t time(time_t *t)
{
    long long ns;
    if (sim_now(FAM_REAL, &ns)) {
        time_t v = (time_t)(ns / NS_PER_S);
        if (t) {
            *t = v;
        }
        return v;
    }
    NEXT(time, NULL);
    return next_time(t);
}

int timespec_get(struct timespec *ts, int base)
{
    long long ns;
    if (base == TIME_UTC && sim_now(FAM_REAL, &ns)) {
        *ts = ns_ts(ns);
        return base;
    }
    NEXT(timespec_get, NULL);
    return next_timespec_get(ts, base);
}

/* ---- sleeps ------------------------------------------------------------------ */

/* A simulated sleep of ns: true; false: sleep for real. */
static bool sim_sleep(long long ns)
{
    const struct p2psim_host_hooks *h = hooks;
    if (real_clock || !h || in_hook) {
        return false;
    }
    in_hook = true;
    int done = h->sleep(ns > 0 ? (uint64_t)ns : 0);
    in_hook = false;
    return done;
}

static bool ts_valid(const struct timespec *ts)
{
    return ts && ts->tv_sec >= 0 && ts->tv_nsec >= 0 &&
           ts->tv_nsec < NS_PER_S;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    if (ts_valid(req) && sim_sleep(ts_ns(req))) {
        if (rem) {
            *rem = ns_ts(0);
        }
        return 0;
    }
    NEXT(nanosleep, NULL);
    return next_nanosleep(req, rem);
}

int clock_nanosleep(clockid_t id, int flags, const struct timespec *req,
                    struct timespec *rem)
{
    enum family f = family(id);
    long long now = 0;
    if (ts_valid(req) && f != FAM_NONE && !real_clock && hooks) {
        bool abs = flags & TIMER_ABSTIME;
        if (!abs || sim_now(f, &now)) {
            if (sim_sleep(ts_ns(req) - now)) {
                if (rem && !abs) {
                    *rem = ns_ts(0);
                }
                return 0;
            }
        }
    }
    NEXT(clock_nanosleep, NULL);
    return next_clock_nanosleep(id, flags, req, rem);
}

int usleep(useconds_t us)
{
    if (sim_sleep((long long)us * 1000)) {
        return 0;
    }
    NEXT(usleep, NULL);
    return next_usleep(us);
}

unsigned int sleep(unsigned int s)
{
    if (sim_sleep((long long)s * NS_PER_S)) {
        return 0;
    }
    NEXT(sleep, NULL);
    return next_sleep(s);
}

/* ---- blocking outside CUDA ---------------------------------------------------- */

/* Tell the runtime the thread blocks, until at most simulated time
 * deadline (ns since the start; UINT64_MAX: none). */
static bool block_until(uint64_t deadline)
{
    const struct p2psim_host_hooks *h = hooks;
    if (!h || in_hook) {
        return false;
    }
    in_hook = true;
    bool tracked = h->block_begin(deadline);
    in_hook = false;
    return tracked;
}

static bool block_begin(void)
{
    return block_until(UINT64_MAX);
}

/* The simulated deadline of an absolute time of family f, ns since the
 * start; false when the clocks are real (or it is not valid). */
static bool sim_deadline(enum family f, const struct timespec *abs,
                         uint64_t *deadline)
{
    long long now;
    if (!ts_valid(abs) || !sim_now(f, &now)) {
        return false;
    }
    long long origin = f == FAM_REAL  ? origin_real
                       : f == FAM_TAI ? origin_tai
                                      : HOST_MONO_ORIGIN;
    long long d = ts_ns(abs) - origin;
    *deadline = d > 0 ? (uint64_t)d : 0;
    return true;
}

/* An absolute time of clock id (family f) as the kernel's: the same
 * distance ahead of its now when the clocks are simulated. */
static struct timespec kernel_abs(enum family f, clockid_t id,
                                  const struct timespec *abs)
{
    long long now;
    if (!ts_valid(abs) || !sim_now(f, &now)) {
        return *abs;
    }
    long long ahead = ts_ns(abs) - now;
    return ns_ts(kernel_ns(id) + (ahead > 0 ? ahead : 0));
}

/* Whether a told timed wait has reached its simulated deadline. */
static bool block_expired(void)
{
    in_hook = true;
    bool done = hooks->block_expired();
    in_hook = false;
    return done;
}

/* The kernel's absolute time 1 ms from now on clock id: a timed wait
 * with a simulated deadline waits in such slices, asking between them
 * whether simulated time has reached the deadline. */
static struct timespec slice(clockid_t id)
{
    return ns_ts(kernel_ns(id) + 1000000);
}

static void block_end(bool tracked)
{
    if (!tracked) {
        return;
    }
    int e = errno;
    in_hook = true;
    hooks->block_end();
    in_hook = false;
    errno = e;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    NEXT(pthread_cond_wait, "GLIBC_2.3.2");
    bool t = block_begin();
    int r = next_pthread_cond_wait(c, m);
    block_end(t);
    return r;
}

/*
 * A timed wait: with simulated clocks the deadline is simulated time (the
 * runtime stops the simulation there; the wait times out once it has
 * come, asked between slices of 1 ms of wall time); otherwise the
 * kernel's, unchanged. wait(k) waits until the kernel's absolute k.
 */
#define TIMED_WAIT(f, id, abs, wait)                                        \
    do {                                                                    \
        uint64_t dl;                                                        \
        bool t = sim_deadline(f, abs, &dl) && block_until(dl);              \
        int r;                                                              \
        if (!t) {                                                           \
            struct timespec k = kernel_abs(f, id, abs);                     \
            t = block_begin();                                              \
            r = wait(k);                                                    \
            block_end(t);                                                   \
            return r;                                                       \
        }                                                                   \
        for (;;) {                                                          \
            struct timespec k = slice(id);                                  \
            r = wait(k);                                                    \
            if (!TIMED_OUT(r) || block_expired()) {                         \
                break;                                                      \
            }                                                               \
        }                                                                   \
        block_end(t);                                                       \
        return r;                                                           \
    } while (0)

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                           const struct timespec *abs)
{
    NEXT(pthread_cond_timedwait, "GLIBC_2.3.2");
    /* a condition variable's clock is REALTIME unless its attributes
     * chose MONOTONIC, which it does not tell: REALTIME */
#define TIMED_OUT(r) ((r) == ETIMEDOUT)
#define WAIT(k) next_pthread_cond_timedwait(c, m, &(k))
    TIMED_WAIT(FAM_REAL, CLOCK_REALTIME, abs, WAIT);
#undef WAIT
}

int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
                           clockid_t id, const struct timespec *abs)
{
    NEXT(pthread_cond_clockwait, NULL);
    enum family f = family(id);
#define WAIT(k) next_pthread_cond_clockwait(c, m, id, &(k))
    TIMED_WAIT(f, id, abs, WAIT);
#undef WAIT
}
#undef TIMED_OUT

int pthread_barrier_wait(pthread_barrier_t *b)
{
    NEXT(pthread_barrier_wait, NULL);
    bool t = block_begin();
    int r = next_pthread_barrier_wait(b);
    block_end(t);
    return r;
}

int sem_wait(sem_t *s)
{
    NEXT(sem_wait, NULL);
    bool t = block_begin();
    int r = next_sem_wait(s);
    block_end(t);
    return r;
}

int sem_timedwait(sem_t *restrict s, const struct timespec *restrict abs)
{
    NEXT(sem_timedwait, NULL);
#define TIMED_OUT(r) ((r) < 0 && errno == ETIMEDOUT)
#define WAIT(k) next_sem_timedwait(s, &(k))
    TIMED_WAIT(FAM_REAL, CLOCK_REALTIME, abs, WAIT);
#undef WAIT
#undef TIMED_OUT
}

int pthread_join(pthread_t th, void **ret)
{
    NEXT(pthread_join, NULL);
    bool t = block_begin();
    int r = next_pthread_join(th, ret);
    block_end(t);
    return r;
}

pid_t waitpid(pid_t pid, int *status, int options)
{
    NEXT(waitpid, NULL);
    bool t = !(options & WNOHANG) && block_begin();
    pid_t r = next_waitpid(pid, status, options);
    block_end(t);
    return r;
}

pid_t wait(int *status)
{
    return waitpid(-1, status, 0);
}

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    if (n == 0 && timeout > 0 && sim_sleep((long long)timeout * 1000000)) {
        return 0;
    }
    NEXT(poll, NULL);
    bool t = timeout != 0 && block_begin();
    int r = next_poll(fds, n, timeout);
    block_end(t);
    return r;
}

int select(int n, fd_set *restrict r, fd_set *restrict w, fd_set *restrict e,
           struct timeval *restrict tv)
{
    bool none = n == 0 || (!r && !w && !e);
    if (none && tv && tv->tv_sec >= 0 && tv->tv_usec >= 0 &&
        sim_sleep((long long)tv->tv_sec * NS_PER_S +
                  (long long)tv->tv_usec * 1000)) {
        tv->tv_sec = 0;
        tv->tv_usec = 0;
        return 0;
    }
    NEXT(select, NULL);
    bool t = !(tv && tv->tv_sec == 0 && tv->tv_usec == 0) && block_begin();
    int got = next_select(n, r, w, e, tv);
    block_end(t);
    return got;
}

ssize_t read(int fd, void *buf, size_t len)
{
    NEXT(read, NULL);
    NEXT(poll, NULL);
    struct pollfd p = { .fd = fd, .events = POLLIN };
    /* Only a read that would block (a pipe, a socket, a terminal with
     * nothing to read) is told; a file is always ready. */
    bool t = hooks && !in_hook && next_poll(&p, 1, 0) == 0 && block_begin();
    ssize_t r = next_read(fd, buf, len);
    block_end(t);
    return r;
}
