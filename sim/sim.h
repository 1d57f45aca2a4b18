/*
 * sim/sim.h - a simulation: time, run control, the seeded RNG.
 *
 * One struct sim is one deterministic simulation. It is single-threaded;
 * parallelism comes from running many simulations (sweeps). Nothing here
 * reads the wall clock: reruns with the same seed are identical.
 *
 * Lifecycle: sim_create() -> build components and links -> sim_run_*() ->
 * sim_destroy(), which frees every component, link and pooled TLP.
 */
#ifndef P2PSIM_SIM_SIM_H
#define P2PSIM_SIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"

struct sim;
struct sim_error;
struct sim_engine_ops;

struct sim_config {
    const struct sim_engine_ops *engine; /* NULL = sim_engine_native */
    uint64_t seed;                       /* RNG seed */
    int log_level;                       /* SIM_LOG_* threshold */
};

/* Why a run returned. */
enum sim_run_result {
    SIM_RUN_IDLE = 0,   /* no pending event left */
    SIM_RUN_TIME = 1,   /* reached t_end; now == t_end */
    SIM_RUN_STOPPED = 2,/* sim_stop() was called */
    SIM_RUN_COND = 3,   /* the run condition became false */
};

typedef bool sim_cond_fn(struct sim *sim, void *arg);

/* Returns NULL and fills err on failure (e.g. a second SystemC simulation). */
struct sim *sim_create(const struct sim_config *cfg, struct sim_error *err);
void sim_destroy(struct sim *sim);

/*
 * The current time, ps. Inline because models ask for it several times per
 * TLP hop: now is the first member of struct sim (sim/sim_int.h), and C
 * lets a pointer to a struct, converted, point at its first member.
 */
static inline sim_time_t sim_now(const struct sim *sim)
{
    return *(const sim_time_t *)(const void *)sim;
}

/*
 * sim_run_until - fire every event with when <= t_end, then set now to
 * t_end (unless t_end is SIM_TIME_MAX). Returns an enum sim_run_result,
 * -SIM_ESTATE if called from inside an event callback, or -SIM_ENOMEM
 * once the simulation has failed (sim_fail_nomem).
 */
int sim_run_until(struct sim *sim, sim_time_t t_end);

/* Run until no event is pending (or sim_stop). */
int sim_run(struct sim *sim);

/*
 * sim_run_while - like sim_run_until, but checks cond before each event and
 * returns SIM_RUN_COND as soon as it is false; now stays at the last event.
 */
int sim_run_while(struct sim *sim, sim_cond_fn *cond, void *arg,
                  sim_time_t t_end);

/* Make the current run return after the event being fired. */
void sim_stop(struct sim *sim);

/*
 * Running out of memory inside a simulation (sim/error.h, "Out of
 * memory"). sim_fail_nomem records "out of memory in <who> at <time>:
 * <what>" (only the first failure is kept), stops the current run after
 * the event being fired and returns -SIM_ENOMEM; the caller then gives up
 * what it was doing without crashing or leaking. From then on every
 * sim_run_*() returns -SIM_ENOMEM at once and scheduling does nothing:
 * the simulation can only be reported (sim_failure) and destroyed.
 * sim_failure: the recorded failure, or NULL while there is none.
 */
int sim_fail_nomem(struct sim *sim, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const struct sim_error *sim_failure(const struct sim *sim);
/*
 * sim_nomem - for code that runs both inside a run and outside one (a
 * model's function that the API also calls): inside a run it is
 * sim_fail_nomem(sim, who, "%s", what); outside, the caller's error alone.
 * Returns -SIM_ENOMEM either way.
 */
int sim_nomem(struct sim *sim, const char *who, const char *what);

uint64_t sim_events_fired(const struct sim *sim);
uint64_t sim_events_pending(const struct sim *sim);
/* TLPs delivered across links so far (one per TLP per link crossed). */
uint64_t sim_tlp_hops(const struct sim *sim);
const char *sim_engine_name(const struct sim *sim);

/* ---- randomness: one xoshiro256** stream per simulation ------------------- */
uint64_t sim_rng_u64(struct sim *sim);
/* Uniform in [0, n); n > 0. */
uint64_t sim_rng_below(struct sim *sim, uint64_t n);
/* Uniform in [lo, hi]; lo <= hi. */
uint64_t sim_rng_range(struct sim *sim, uint64_t lo, uint64_t hi);
/*
 * Geometric with parameter p in (0, 1): the failures before the first
 * success of Bernoulli(p) trials (P(k) = (1 - p)^k p, mean (1 - p) / p),
 * from one sim_rng_u64 draw; UINT64_MAX where the gap passes 2^63.
 */
uint64_t sim_rng_geometric(struct sim *sim, double p);

/* ---- logging --------------------------------------------------------------- */
enum sim_log_level {
    SIM_LOG_ERROR = 0,
    SIM_LOG_WARN = 1,
    SIM_LOG_INFO = 2,
    SIM_LOG_DEBUG = 3,
};

/* "[   12.345 ns] who: message" on stderr when level <= the threshold. */
void sim_log(struct sim *sim, int level, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void sim_set_log_level(struct sim *sim, int level);

#endif /* P2PSIM_SIM_SIM_H */
