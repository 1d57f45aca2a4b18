/*
 * sim/sim_int.h - struct sim, shared by the files of sim/ only.
 */
#ifndef P2PSIM_SIM_SIM_INT_H
#define P2PSIM_SIM_SIM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim.h"
#include "sim/trace.h"

struct sim_component;
struct sim_link;
struct tlp_pool;

struct sim {
    /* engine */
    const struct sim_engine_ops *engine;
    void *engine_state;
    /* time and order */
    sim_time_t now;             /* ps */
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
    /* tracing */
    uint64_t trace_mask;        /* union of the sinks' masks */
    struct sim_trace_sink sinks[SIM_TRACE_MAX_SINKS];
    unsigned n_sinks;
    int log_level;
};

/* Called by sim_destroy(). */
void sim__components_destroy(struct sim *sim);
struct tlp_pool *sim__tlp_pool_create(void);
void sim__tlp_pool_destroy(struct tlp_pool *pool);

#endif /* P2PSIM_SIM_SIM_INT_H */
