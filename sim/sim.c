/*
 * sim/sim.c - the simulation object: event scheduling, run control, RNG,
 * logging and the trace fan-out.
 *
 * Loop semantics: the engine hands back the earliest pending event; the
 * core checks that time never decreases, sets now, marks the event idle and
 * calls it. A callback may schedule or cancel anything, its own event
 * included: only one event is popped at a time, so nothing is held that a
 * callback could invalidate.
 */
#include <config.h>

#include "sim/sim.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/component.h"
#include "sim/engine.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/queue_int.h"
#include "sim/sim_int.h"
#include "sim/trace.h"
#include "sim/units.h"

/* ---- RNG: xoshiro256** seeded through splitmix64 -------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t xoshiro_next(uint64_t *s)
{
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t sim_rng_u64(struct sim *sim)
{
    return xoshiro_next(sim->rng);
}

/* Lemire's multiply-shift with rejection: unbiased, no division mostly. */
static inline uint64_t below(uint64_t *s, uint64_t n)
{
    __uint128_t m = (__uint128_t)xoshiro_next(s) * n;
    uint64_t low = (uint64_t)m;
    if (__builtin_expect(low < n, 0)) {
        uint64_t threshold = (-n) % n;
        while (low < threshold) {
            m = (__uint128_t)xoshiro_next(s) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

uint64_t sim_rng_below(struct sim *sim, uint64_t n)
{
    SIM_ASSERT(n > 0, "sim_rng_below: n must be positive");
    return below(sim->rng, n);
}

uint64_t sim_rng_range(struct sim *sim, uint64_t lo, uint64_t hi)
{
    SIM_ASSERT(lo <= hi, "sim_rng_range: lo > hi");
    if (__builtin_expect(lo == 0 && hi == UINT64_MAX, 0)) {
        return xoshiro_next(sim->rng);
    }
    return lo + below(sim->rng, hi - lo + 1);
}

/*
 * ln(x) for x in (0, 1], without libm (sim/ links libc only):
 * x = m * 2^e with m in [1/2, 1), ln m = 2 atanh((m - 1) / (m + 1)),
 * whose series in z^2 <= 1/9 is exact to double precision in 20 terms.
 */
static double rng_ln(double x)
{
    static const double ln2 = 0.69314718055994530942;
    int e = 0;
    while (x < 0.5) {
        x *= 2;
        e--;
    }
    double z = (x - 1) / (x + 1), z2 = z * z, term = z, sum = 0;
    for (int k = 0; k < 20; k++) {
        sum += term / (2 * k + 1);
        term *= z2;
    }
    return 2 * sum + e * ln2;
}

/* ln(1 - b) for b in (0, 1): the series -sum b^k / k, to 1e-17. */
static double rng_ln1m(double b)
{
    if (b > 0.5) {
        return rng_ln(1 - b);
    }
    double term = b, sum = 0;
    for (int k = 1; k < 64 && term > 1e-18 * b; k++) {
        sum += term / k;
        term *= b;
    }
    return -sum;
}

/*
 * Inversion: floor(ln u / ln(1 - p)) for u uniform in (0, 1], u from the
 * top 53 bits of one draw. The formula and its rounding are part of the
 * contract: the error figures of models/pcie/link_replay.c depend on it.
 */
uint64_t sim_rng_geometric(struct sim *sim, double p)
{
    SIM_ASSERT(p > 0 && p < 1, "sim_rng_geometric: p must be in (0, 1)");
    double u = ((double)(xoshiro_next(sim->rng) >> 11) + 1.0) * 0x1p-53;
    double gap = rng_ln(u) / rng_ln1m(p);
    return gap >= 0x1p63 ? UINT64_MAX : (uint64_t)gap;
}

/* ---- lifecycle -------------------------------------------------------------- */

struct sim *sim_create(const struct sim_config *cfg, struct sim_error *err)
{
    struct sim *sim = calloc(1, sizeof(*sim));
    if (!sim) {
        sim_error_set(err, SIM_ENOMEM, "out of memory creating a simulation");
        return NULL;
    }
    sim->engine = (cfg && cfg->engine) ? cfg->engine : &sim_engine_native;
    sim->log_level = cfg ? cfg->log_level : SIM_LOG_WARN;
    uint64_t seed = cfg ? cfg->seed : 0;
    for (int i = 0; i < 4; i++) {
        sim->rng[i] = splitmix64(&seed);
    }
    sim->tlp_pool = sim__tlp_pool_create();
    if (!sim->tlp_pool) {
        free(sim);
        sim_error_set(err, SIM_ENOMEM, "out of memory creating the TLP pool");
        return NULL;
    }
    if (sim->engine->create(sim, err) < 0) {
        sim__tlp_pool_destroy(sim->tlp_pool);
        free(sim);
        return NULL;
    }
    return sim;
}

void sim_destroy(struct sim *sim)
{
    if (!sim) {
        return;
    }
    SIM_ASSERT(!sim->running, "sim_destroy called from inside an event");
    sim__components_destroy(sim);
    sim->engine->destroy(sim);
    sim__tlp_pool_destroy(sim->tlp_pool);
    free(sim);
}

_Static_assert(offsetof(struct sim, now) == 0,
               "sim_now() (sim/sim.h) reads now at the start of struct sim");
uint64_t sim_events_fired(const struct sim *sim) { return sim->n_fired; }
uint64_t sim_events_pending(const struct sim *sim) { return sim->n_pending; }
uint64_t sim_tlp_hops(const struct sim *sim) { return sim->n_tlp_hops; }
const char *sim_engine_name(const struct sim *sim) { return sim->engine->name; }

void *sim_engine_state(const struct sim *sim) { return sim->engine_state; }
void sim_engine_set_state(struct sim *sim, void *state) { sim->engine_state = state; }

/* ---- events ------------------------------------------------------------------ */

/* The queue could not take ev (out of memory): it stays idle, and the
 * simulation fails, so that the event is not lost without a word. */
static void __attribute__((noinline, cold))
schedule_failed(struct sim *sim, struct sim_event *ev)
{
    char at[32];
    ev->state = SIM_EVENT_IDLE;
    sim->n_pending--;
    sim_fail_nomem(sim, "the event queue", "an event due at %s",
                   sim_format_time(ev->when, at, sizeof(at)));
}

/* Another engine's insert (out of line: the native one's frame stays
 * small). */
static void __attribute__((noinline)) schedule_other(struct sim *sim,
                                                     struct sim_event *ev)
{
    if (sim->engine->insert(sim, ev) < 0) {
        schedule_failed(sim, ev);
    }
}

static void schedule_at(struct sim *sim, struct sim_event *ev, sim_time_t when)
{
    SIM_ASSERT(ev != NULL, "scheduling a NULL event");
    SIM_ASSERT(ev->state == SIM_EVENT_IDLE,
               ev->state == SIM_EVENT_PENDING
                   ? "event %p is already pending: cancel it first or use "
                     "sim_event_reschedule"
                   : "event %p was not initialised with sim_event_init",
               (void *)ev);
    SIM_ASSERT(ev->fn != NULL, "event %p has no callback", (void *)ev);
    ev->when = when;
    ev->seq = sim->next_seq++;
    ev->state = SIM_EVENT_PENDING;
    sim->n_pending++;
    /* The default engine's insert, inlined: about one event per TLP hop
     * comes through here, and this saves an indirect call and a frame.
     * An event its far heap cannot take is made idle and counted there,
     * and stops the run (lost_check): nothing more to do here. */
    if (__builtin_expect(sim->engine == &sim_engine_native, 1)) {
        sim__cq_insert(sim->engine_state, ev);
    } else {
        schedule_other(sim, ev);
    }
}

/* Events the calendar queue could not take since the last look: the
 * simulation fails (run() looks before and after every run). */
static void lost_check(struct sim *sim)
{
    if (sim->engine != &sim_engine_native) {
        return;
    }
    struct sim__cq *q = sim->engine_state;
    if (__builtin_expect(q->n_lost != 0, 0)) {
        char at[32];
        sim->n_pending -= q->n_lost;
        q->n_lost = 0;
        sim_fail_nomem(sim, "the event queue", "an event due at %s",
                       sim_format_time(q->lost_when, at, sizeof(at)));
    }
}

void sim_event_schedule(struct sim *sim, struct sim_event *ev,
                        sim_time_t delay_ps)
{
    schedule_at(sim, ev, sim_time_add(sim->now, delay_ps));
}

int sim_event_schedule_at(struct sim *sim, struct sim_event *ev,
                          sim_time_t when_ps)
{
    if (when_ps < sim->now) {
        return -SIM_EPAST;
    }
    schedule_at(sim, ev, when_ps);
    return 0;
}

void sim_event_cancel(struct sim *sim, struct sim_event *ev)
{
    SIM_ASSERT(ev != NULL, "cancelling a NULL event");
    if (ev->state != SIM_EVENT_PENDING) {
        return;
    }
    sim->engine->remove(sim, ev);
    ev->state = SIM_EVENT_IDLE;
    sim->n_pending--;
}

void sim_event_reschedule(struct sim *sim, struct sim_event *ev,
                          sim_time_t delay_ps)
{
    sim_event_cancel(sim, ev);
    sim_event_schedule(sim, ev, delay_ps);
}

/* ---- run control -------------------------------------------------------------- */

bool sim__may_fire_slow(struct sim *sim)
{
    if (sim->stop || sim->cond_failed) {
        return false;
    }
    if (sim->cond && !sim->cond(sim, sim->cond_arg)) {
        sim->cond_failed = true;
        return false;
    }
    return true;
}

bool sim_engine_may_fire(struct sim *sim)
{
    return sim__may_fire(sim);
}

void sim__time_went_backwards(const struct sim *sim,
                              const struct sim_event *ev)
{
    sim_bug("time went backwards: event at %llu ps while now is %llu ps",
            (unsigned long long)ev->when, (unsigned long long)sim->now);
}

void sim__trace_event_fire(struct sim *sim, const struct sim_event *ev)
{
    if (SIM_TRACE_MASK_HAS(sim->trace_mask, SIM_TP_EVENT_FIRE)) {
        struct sim_trace_record r = {
            .point = SIM_TP_EVENT_FIRE, .when = ev->when, .a = ev->seq,
        };
        sim_trace_emit(sim, &r);
    }
}

void sim_engine_fire(struct sim *sim, struct sim_event *ev)
{
    sim__fire(sim, ev);
}

int sim_fail_nomem(struct sim *sim, const char *who, const char *fmt, ...)
{
    if (sim->failure.code == 0) {
        char what[256], at[32];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        sim_error_set(&sim->failure, SIM_ENOMEM, "out of memory in %s at %s (%s)",
                      who ? who : "the simulation",
                      sim_format_time(sim->now, at, sizeof(at)), what);
    }
    sim->stop = true;
    return -SIM_ENOMEM;
}

int sim_nomem(struct sim *sim, const char *who, const char *what)
{
    if (sim->running) {
        sim_fail_nomem(sim, who, "%s", what);
    }
    return -SIM_ENOMEM;
}

const struct sim_error *sim_failure(const struct sim *sim)
{
    return sim->failure.code ? &sim->failure : NULL;
}

static int run(struct sim *sim, sim_time_t t_end, sim_cond_fn *cond, void *arg)
{
    if (sim->running) {
        return -SIM_ESTATE;
    }
    lost_check(sim);
    if (sim->failure.code) {
        return -sim->failure.code;
    }
    sim->running = true;
    sim->stop = false;
    sim->cond = cond;
    sim->cond_arg = arg;
    sim->cond_failed = false;
    sim->engine->run(sim, t_end);
    sim->running = false;
    sim->cond = NULL;
    lost_check(sim);
    if (sim->failure.code) {
        return -sim->failure.code;
    }
    if (sim->stop) {
        return SIM_RUN_STOPPED;
    }
    /* The last event may have made the condition false: then time stays
     * at that event instead of jumping to t_end. */
    if (sim->cond_failed || (cond && !cond(sim, arg))) {
        return SIM_RUN_COND;
    }
    if (t_end != SIM_TIME_MAX) {
        if (sim->now < t_end) {
            sim->now = t_end;
        }
        return SIM_RUN_TIME;
    }
    return SIM_RUN_IDLE;
}

int sim_run_until(struct sim *sim, sim_time_t t_end)
{
    if (t_end < sim->now) {
        return -SIM_EPAST;
    }
    return run(sim, t_end, NULL, NULL);
}

int sim_run(struct sim *sim)
{
    return run(sim, SIM_TIME_MAX, NULL, NULL);
}

int sim_run_while(struct sim *sim, sim_cond_fn *cond, void *arg,
                  sim_time_t t_end)
{
    if (t_end < sim->now) {
        return -SIM_EPAST;
    }
    return run(sim, t_end, cond, arg);
}

void sim_stop(struct sim *sim)
{
    sim->stop = true;
}

/* ---- logging ------------------------------------------------------------------ */

void sim_set_log_level(struct sim *sim, int level)
{
    sim->log_level = level;
}

void sim_log(struct sim *sim, int level, const char *who, const char *fmt, ...)
{
    static const char *const names[] = { "error", "warning", "info", "debug" };
    if (sim && level > sim->log_level) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[%14.3f ns] %s: %s: ",
            sim ? sim_time_to_ns(sim->now) : 0.0, who ? who : "sim",
            names[level < 0 ? 0 : level > 3 ? 3 : level]);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- tracing -------------------------------------------------------------------- */

static const char *const trace_names[] = {
#define SIM_TRACE_NAME(e, name, doc) name,
    SIM_TRACE_POINTS(SIM_TRACE_NAME)
#undef SIM_TRACE_NAME
};

const char *sim_trace_point_name(enum sim_trace_point p)
{
    return (unsigned)p < SIM_TP_COUNT ? trace_names[p] : "?";
}

static void trace_recompute_mask(struct sim *sim)
{
    sim->trace_mask = 0;
    for (unsigned i = 0; i < sim->n_sinks; i++) {
        sim->trace_mask |= sim->sinks[i].mask;
    }
}

int sim_trace_subscribe(struct sim *sim, sim_trace_fn *fn, void *ctx,
                        uint64_t mask)
{
    SIM_ASSERT(fn != NULL, "sim_trace_subscribe: NULL sink");
    if (sim->n_sinks == SIM_TRACE_MAX_SINKS) {
        return -SIM_EBUSY;
    }
    sim->sinks[sim->n_sinks++] = (struct sim_trace_sink){ fn, ctx, mask };
    trace_recompute_mask(sim);
    return 0;
}

void sim_trace_unsubscribe(struct sim *sim, sim_trace_fn *fn, void *ctx)
{
    for (unsigned i = 0; i < sim->n_sinks; i++) {
        if (sim->sinks[i].fn == fn && sim->sinks[i].ctx == ctx) {
            sim->sinks[i] = sim->sinks[--sim->n_sinks];
            break;
        }
    }
    trace_recompute_mask(sim);
}

bool sim_trace_wanted(const struct sim *sim, enum sim_trace_point p)
{
    return SIM_TRACE_MASK_HAS(sim->trace_mask, p);
}

void sim_trace_emit(struct sim *sim, struct sim_trace_record *r)
{
    if (!SIM_TRACE_MASK_HAS(sim->trace_mask, r->point)) {
        return;
    }
    if (r->when == 0) {
        r->when = sim->now;
    }
    for (unsigned i = 0; i < sim->n_sinks; i++) {
        if (sim->sinks[i].mask & SIM_TRACE_BIT(r->point)) {
            sim->sinks[i].fn(sim->sinks[i].ctx, r);
        }
    }
}
