/*
 * sim/engine.h - the engine seam.
 *
 * struct sim reaches its scheduler only through this table, called through
 * one-line wrappers in sim/sim.c (as SQLite reaches its VFS). An engine
 * holds the pending events and, when asked to run, hands them back to the
 * core one at a time in (when, seq) order through sim_engine_fire(). The
 * core owns time, sequence numbers, the stop flag and the run condition, so
 * every engine gives the same event order and timestamps.
 *
 * Engines:
 *   sim_engine_native       calendar queue (the default; fastest)
 *   sim_engine_native_heap  4-ary heap (the reference)
 *   sim_engine_systemc      the Accellera SystemC kernel (sim/systemc/,
 *                           declared in sim/systemc/engine_systemc.h)
 */
#ifndef P2PSIM_SIM_ENGINE_H
#define P2PSIM_SIM_ENGINE_H

#include <stdbool.h>

#include "sim/time.h"

struct sim;
struct sim_error;
struct sim_event;

struct sim_engine_ops {
    const char *name;
    /* Allocate engine state and attach it with sim_engine_set_state(). */
    int (*create)(struct sim *sim, struct sim_error *err);
    void (*destroy)(struct sim *sim);
    /* Add a pending event; ev->when and ev->seq are set by the core.
     * Returns 0, or -SIM_ENOMEM when the event could not be queued (the
     * core then fails the simulation: sim_fail_nomem in sim/sim.h). */
    int (*insert)(struct sim *sim, struct sim_event *ev);
    /* Remove a pending event (cancel). */
    void (*remove)(struct sim *sim, struct sim_event *ev);
    /*
     * Fire, in (when, seq) order, every pending event with when <= t_end,
     * checking sim_engine_may_fire() before each; return when none is left
     * or the core says stop. Events scheduled by callbacks take part.
     */
    void (*run)(struct sim *sim, sim_time_t t_end);
    /* The earliest pending event, or NULL. */
    struct sim_event *(*peek)(struct sim *sim);
};

extern const struct sim_engine_ops sim_engine_native;
extern const struct sim_engine_ops sim_engine_native_heap;

/* ---- for engine implementations ------------------------------------------ */

void *sim_engine_state(const struct sim *sim);
void sim_engine_set_state(struct sim *sim, void *state);

/* False once sim_stop() was called or the run condition no longer holds. */
bool sim_engine_may_fire(struct sim *sim);

/* Make ev current: set now to ev->when (never backwards), mark it idle, run it. */
void sim_engine_fire(struct sim *sim, struct sim_event *ev);

#endif /* P2PSIM_SIM_ENGINE_H */
