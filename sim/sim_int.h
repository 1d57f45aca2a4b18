/*
 * sim/sim_int.h - struct sim, shared by the files of sim/ only.
 */
#ifndef P2PSIM_SIM_SIM_INT_H
#define P2PSIM_SIM_SIM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/error.h"
#include "sim/event.h"
#include "sim/sim.h"
#include "sim/trace.h"

struct sim_component;
struct sim_link;
struct tlp_pool;

struct sim {
    /* first: sim_now() in sim/sim.h reads it through the struct's address */
    sim_time_t now;             /* ps */
    /* engine */
    const struct sim_engine_ops *engine;
    void *engine_state;
    /* time and order */
    uint64_t next_seq;          /* next event sequence number */
    uint64_t n_fired;           /* events fired so far */
    uint64_t n_pending;         /* events scheduled and not fired/cancelled */
    /* run control */
    bool running;               /* inside sim_run_*: no re-entry */
    bool stop;                  /* sim_stop() called during this run */
    sim_cond_fn *cond;          /* run condition, or NULL */
    void *cond_arg;
    bool cond_failed;
    /* randomness */
    uint64_t rng[4];            /* xoshiro256** state */
    /* objects owned by the simulation */
    struct sim_component **comp;
    uint32_t n_comp, cap_comp;
    struct sim_link **link;
    uint32_t n_link, cap_link;
    struct tlp_pool *tlp_pool;
    uint64_t next_tlp_id;
    uint64_t n_tlp_hops;        /* TLPs delivered by links */
    /* tracing */
    uint64_t trace_mask;        /* union of the sinks' masks */
    struct sim_trace_sink sinks[SIM_TRACE_MAX_SINKS];
    unsigned n_sinks;
    int log_level;
    /* the failure that ended the simulation (sim_fail_nomem), code 0 if none */
    struct sim_error failure;
};

/* The bodies of sim_engine_may_fire() and sim_engine_fire(), inlined into
 * the native engines' loops. */
bool sim__may_fire_slow(struct sim *sim);

static inline bool sim__may_fire(struct sim *sim)
{
    if (__builtin_expect(!sim->stop && !sim->cond, 1)) {
        return true;
    }
    return sim__may_fire_slow(sim);
}

void sim__trace_event_fire(struct sim *sim, const struct sim_event *ev);
void sim__time_went_backwards(const struct sim *sim,
                              const struct sim_event *ev)
    __attribute__((noreturn));

static inline void sim__fire(struct sim *sim, struct sim_event *ev)
{
    if (__builtin_expect(ev->when < sim->now, 0)) {
        sim__time_went_backwards(sim, ev);
    }
    sim->now = ev->when;
    ev->state = SIM_EVENT_IDLE;
    sim->n_pending--;
    sim->n_fired++;
    if (__builtin_expect(SIM_TRACE_MASK_HAS(sim->trace_mask,
                                            SIM_TP_EVENT_FIRE), 0)) {
        sim__trace_event_fire(sim, ev);
    }
    ev->fn(sim, ev);
}

/* Called by sim_destroy(). */
void sim__components_destroy(struct sim *sim);
struct tlp_pool *sim__tlp_pool_create(void);
void sim__tlp_pool_destroy(struct tlp_pool *pool);

#endif /* P2PSIM_SIM_SIM_INT_H */
