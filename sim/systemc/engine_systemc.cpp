/*
 * sim/systemc/engine_systemc.cpp - struct sim_engine_ops on the Accellera
 * SystemC kernel (SystemC 2.3.x, C++17).
 *
 * What is modelled. SystemC drives time; the core still decides what runs.
 * One sc_module holds one sc_event, wake, and one SC_METHOD (on_wake,
 * dont_initialize, sensitive to wake). wake is notified for the time of
 * the earliest pending event (or for the end of the run). When SystemC
 * wakes the method at time T, it fires, one at a time and in (when, seq)
 * order, every pending event with when == T (events that callbacks
 * schedule at T included), then notifies wake for the next event, or
 * calls sc_pause() when the run is over. run() calls sc_start() and
 * returns when the kernel pauses or starves.
 *
 * Why the calendar queue is reused. The pending events stay in the core's
 * calendar queue (sim/queue_int.h), not in one sc_event per event: IEEE
 * 1666 leaves unspecified the order in which processes made runnable in
 * the same delta run, so SystemC cannot give our (when, seq) order; and an
 * sc_event cannot be embedded in a C struct sim_event. Keeping the queue
 * gives bit-identical order, timestamps and run results on both engines,
 * and costs SystemC one timed notification per distinct timestamp, not
 * one per event.
 *
 * Errors. No C++ exception crosses into C: creation errors become
 * struct sim_error codes; SystemC errors during a run (sc_report) are
 * broken invariants and end in sim_bug() with SystemC's message.
 */
#include <config.h>

#include "sim/systemc/engine_systemc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <atomic>
#include <exception>
#include <new>
#include <string>

#include <systemc>

extern "C" {
#include "sim/engine.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/queue_int.h"
#include "sim/sim.h"
#include "sim/sim_int.h"
}

/*
 * The weak sc_main() lives in sc_main_stub.cpp. Taking its address here
 * makes the linker pull that object out of the archive whenever this one
 * is used (libsystemc.so refers to sc_main, and an archive member is only
 * extracted for a symbol that is undefined when the archive is scanned).
 */
static int (*const keep_sc_main)(int, char **) __attribute__((used)) =
    &sc_main;

namespace {

struct engine_module;

struct engine_state {
    struct sim__cq q;           /* the pending events */
    struct sim *sim;
    engine_module *mod;
    sim_time_t t_end;           /* end of the current run */
    sim_time_t armed_at;        /* time wake is notified for, if armed */
    struct sim_event *armed_ev; /* event wake is notified for, or NULL */
    bool armed;                 /* wake has a pending notification */
    bool prechecked;            /* may_fire already allowed armed_ev */
    bool running;               /* inside run() */
    bool finished;              /* on_wake() ended the run */
    bool late;                  /* an event was scheduled behind SystemC
                                   time (sticky: time checks are off) */
};

struct engine_module : sc_core::sc_module {
    sc_core::sc_event wake;
    engine_state *state = nullptr;  /* NULL once the simulation is destroyed */

    SC_HAS_PROCESS(engine_module);

    explicit engine_module(sc_core::sc_module_name name)
        : sc_core::sc_module(name), wake("wake")
    {
        SC_METHOD(on_wake);
        sensitive << wake;
        dont_initialize();
    }

    void on_wake();
};

/* One per process: SystemC elaborates once. Never deleted (see above). */
std::atomic<bool> engine_used{false};
engine_module *the_module = nullptr;

inline engine_state *state_of(const struct sim *sim)
{
    return static_cast<engine_state *>(sim_engine_state(sim));
}

inline sim_time_t sc_now_ps()
{
    return sc_core::sc_time_stamp().value();
}

/* Report the exception being handled; never returns. */
[[noreturn]] void bug_from_exception(const char *where)
{
    try {
        throw;
    } catch (const std::exception &e) {
        sim_bug("SystemC engine: %s: %s", where, e.what());
    } catch (...) {
        sim_bug("SystemC engine: %s: unknown C++ exception", where);
    }
}

/* Notify wake for absolute time when_ps (not before SystemC's now). */
void arm(engine_state *st, sim_time_t when_ps, struct sim_event *ev,
         bool prechecked)
{
    sim_time_t now_ps = sc_now_ps();
    sc_core::sc_event &wake = st->mod->wake;
    wake.cancel();
    if (when_ps <= now_ps) {
        when_ps = now_ps;
        wake.notify(sc_core::SC_ZERO_TIME);     /* next delta */
    } else {
        wake.notify(sc_core::sc_time::from_value(when_ps - now_ps));
    }
    st->armed = true;
    st->armed_at = when_ps;
    st->armed_ev = ev;
    st->prechecked = prechecked;
}

/* End the current run: SystemC returns from sc_start() after this delta. */
void finish(engine_state *st)
{
    st->finished = true;
    sc_core::sc_pause();
}

/*
 * Re-aim wake after a foreign remove took away the event it was armed
 * for: at the new earliest event, else at t_end, else nowhere (starve).
 */
void rearm_next(engine_state *st)
{
    struct sim_event *ev = sim__cq_peek(&st->q);
    if (ev && ev->when <= st->t_end) {
        arm(st, ev->when, ev, false);
    } else if (st->t_end != SIM_TIME_MAX) {
        arm(st, st->t_end, nullptr, false);
    } else {
        st->mod->wake.cancel();
        st->armed = false;
        st->armed_ev = nullptr;
    }
}

void engine_module::on_wake()
{
    engine_state *st = state;
    if (!st || !st->running || st->finished) {
        return;
    }
    const sim_time_t now_ps = sc_now_ps();
    bool checked = st->prechecked;
    st->armed = false;
    st->armed_ev = nullptr;
    st->prechecked = false;
    for (;;) {
        struct sim_event *ev = sim__cq_peek(&st->q);
        if (ev && ev->when <= now_ps) {
            /* due now (when < now only after a late foreign insert) */
            if (!checked && !sim_engine_may_fire(st->sim)) {
                finish(st);
                break;
            }
            checked = false;
            sim__cq_remove(&st->q, ev);
            sim_engine_fire(st->sim, ev);
            continue;
        }
        if (ev && ev->when <= st->t_end) {
            /* Ask before time moves, as the native loop asks at now. */
            if (!sim_engine_may_fire(st->sim)) {
                finish(st);
                break;
            }
            arm(st, ev->when, ev, true);
            break;
        }
        if (st->sim->stop) {
            /*
             * sim_stop() with nothing left to fire in this run: the core
             * keeps now at this event (SIM_RUN_STOPPED), so SystemC time
             * must not move to t_end. Read the flag, not may_fire(): the
             * native loop does not ask the condition here.
             */
            finish(st);
            break;
        }
        if (st->t_end != SIM_TIME_MAX && now_ps < st->t_end) {
            arm(st, st->t_end, nullptr, false);     /* end the run by time */
            break;
        }
        finish(st);     /* reached t_end, or idle (t_end == SIM_TIME_MAX) */
        break;
    }
}

/* ---- struct sim_engine_ops ---------------------------------------------- */

/*
 * Limits.
 *  - One SystemC-engine simulation per process, ever: SystemC has one
 *    kernel per process, elaborates once and cannot be restarted. create()
 *    fails with SIM_EBUSY for a second one, even after the first was
 *    destroyed (tests and benchmarks fork). The module is never deleted
 *    (SystemC does not support removing a module after elaboration); on
 *    destroy it is detached.
 *  - sc_stop() is final in SystemC, so the engine never calls it; if
 *    anything else does, the next run reports it through sim_bug().
 *  - run() must not be called from inside a SystemC process (sc_start is
 *    not re-entrant): sim_bug(). Like SystemC, the engine is not
 *    thread-safe; create() is (an atomic flag), so a second simulation in
 *    another thread fails cleanly.
 *  - Other SystemC processes may share the kernel. If one of them
 *    schedules or cancels core events between our wakes, insert/remove
 *    re-notify wake; an event it schedules before sc_time_stamp() (it
 *    should use sim_event_schedule_at(sc_time_stamp())) still fires in
 *    order, but SystemC time is then ahead of sim_now() and the check of
 *    sc_engine_run (Time) is skipped.
 */
int sc_engine_create(struct sim *sim, struct sim_error *err)
{
    if (engine_used.exchange(true)) {
        return sim_error_set(err, SIM_EBUSY,
                             "the SystemC engine runs one simulation per "
                             "process (SystemC elaborates once and cannot "
                             "be restarted): run each SystemC-engine "
                             "simulation in its own process");
    }
    engine_state *st = new (std::nothrow) engine_state();
    if (!st || sim__cq_init(&st->q) < 0) {
        delete st;
        engine_used = false;    /* SystemC was not touched */
        return sim_error_set(err, SIM_ENOMEM, "out of memory (event queue)");
    }
    st->sim = sim;
    try {
        if (sc_core::sc_get_status() != sc_core::SC_ELABORATION) {
            sim__cq_fini(&st->q);
            delete st;
            return sim_error_set(err, SIM_EBUSY,
                                 "SystemC was already started in this "
                                 "process: the SystemC engine must create "
                                 "its module before the first sc_start()");
        }
        try {
            sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
        } catch (const sc_core::sc_report &) {
            /* already fixed by someone else: accepted if it is 1 ps */
        }
        /* one tick of resolution is 1 ps exactly */
        if (sc_core::sc_get_time_resolution() !=
            sc_core::sc_time(1.0, sc_core::SC_PS)) {
            std::string res = sc_core::sc_get_time_resolution().to_string();
            sim__cq_fini(&st->q);
            delete st;
            return sim_error_set(err, SIM_ENOTSUP,
                                 "SystemC time resolution is fixed at %s; "
                                 "the SystemC engine needs 1 ps",
                                 res.c_str());
        }
        the_module = new engine_module("p2psim_engine");
    } catch (const std::exception &e) {
        sim__cq_fini(&st->q);
        delete st;
        return sim_error_set(err, SIM_EBUSY, "SystemC refused the engine: %s",
                             e.what());
    } catch (...) {
        sim__cq_fini(&st->q);
        delete st;
        return sim_error_set(err, SIM_EBUSY,
                             "SystemC refused the engine (unknown exception)");
    }
    st->mod = the_module;
    the_module->state = st;
    sim_engine_set_state(sim, st);
    return 0;
}

void sc_engine_destroy(struct sim *sim)
{
    engine_state *st = state_of(sim);
    try {
        st->mod->wake.cancel();
    } catch (...) {
        bug_from_exception("destroy");
    }
    st->mod->state = nullptr;   /* the module stays: SystemC owns it */
    sim__cq_fini(&st->q);
    delete st;
    sim_engine_set_state(sim, nullptr);
}

int sc_engine_insert(struct sim *sim, struct sim_event *ev)
{
    engine_state *st = state_of(sim);
    sim__cq_insert(&st->q, ev);
    if (st->q.n_lost) {
        st->q.n_lost = 0;
        return -SIM_ENOMEM;     /* the core fails the simulation */
    }
    if (!st->armed || ev->when >= st->armed_at) {
        return 0;   /* the common case: from on_wake(), or between runs */
    }
    /* Scheduled by another SystemC process, before what wake waits for. */
    try {
        if (ev->when < sc_now_ps()) {
            st->late = true;
        }
        arm(st, ev->when, ev, false);
    } catch (...) {
        bug_from_exception("insert");
    }
    return 0;
}

void sc_engine_remove(struct sim *sim, struct sim_event *ev)
{
    engine_state *st = state_of(sim);
    sim__cq_remove(&st->q, ev);
    if (st->armed && st->armed_ev == ev) {
        /* Cancelled by another SystemC process: no wake without work. */
        try {
            rearm_next(st);
        } catch (...) {
            bug_from_exception("remove");
        }
    }
}

struct sim_event *sc_engine_peek(struct sim *sim)
{
    return sim__cq_peek(&state_of(sim)->q);
}

/*
 * Run control matches the native engines exactly, including the number of
 * calls to the run condition: sim_engine_may_fire() is asked once before
 * each event. When the next event lies at a later time, it is asked before
 * SystemC advances time (the event is "prechecked"), so that a stop or a
 * failed condition leaves SystemC time at the last fired event. When
 * sim_stop() was called and nothing more is due before t_end, the native
 * loop returns without asking the condition and the core keeps now at the
 * last event; to do the same without calling the condition, the engine
 * reads the stop flag in struct sim (sim/sim_int.h: this engine is part of
 * the sim/ layer, like engine_native.c).
 *
 * Time. Resolution 1 ps, set in create() (before any sc_time exists);
 * delays are built with sc_time::from_value() (exact for all 64 bits; the
 * double constructors are not). A run that ends by time notifies wake at
 * t_end and pauses there, so after every run sc_time_stamp() == sim_now().
 * run() checks this against the rule the core applies after the engine
 * returns (sim.c) and reports a violation through sim_bug().
 * sc_start() never evaluates processes at exactly its end time; its
 * horizon is sc_max_time() == SIM_TIME_MAX, so an event at SIM_TIME_MAX
 * needs a second sc_start(), which run() issues.
 */
void sc_engine_run(struct sim *sim, sim_time_t t_end)
{
    engine_state *st = state_of(sim);
    try {
        sc_core::sc_status status = sc_core::sc_get_status();
        if (status == sc_core::SC_RUNNING) {
            sim_bug("SystemC engine: a simulation run was started from "
                    "inside a SystemC process (sc_start is not re-entrant)");
        }
        if (status != sc_core::SC_ELABORATION &&
            status != sc_core::SC_PAUSED) {
            sim_bug("SystemC engine: the SystemC kernel cannot run (status "
                    "0x%x; was sc_stop() called?)", (unsigned)status);
        }
        st->t_end = t_end;
        st->finished = false;
        const sim_time_t start_ps = sc_now_ps();

        /* The first decision is taken here, as in the native loop. */
        struct sim_event *ev = sim__cq_peek(&st->q);
        if (ev && ev->when <= t_end) {
            if (!sim_engine_may_fire(sim)) {
                return;
            }
            arm(st, ev->when, ev, true);
        } else if (t_end != SIM_TIME_MAX && t_end > start_ps) {
            arm(st, t_end, nullptr, false);
        } else {
            return;     /* nothing to do: the core sets now */
        }

        st->running = true;
        while (!st->finished) {
            sc_core::sc_start();    /* to pause or starvation */
            if (st->finished) {
                break;
            }
            status = sc_core::sc_get_status();
            if (status != sc_core::SC_PAUSED) {
                sim_bug("SystemC engine: the SystemC kernel stopped during "
                        "a run (status 0x%x)", (unsigned)status);
            }
            if (!st->armed) {
                /* starved after a foreign cancel left nothing to do */
                st->finished = true;
                break;
            }
            /*
             * Armed but not finished: sc_start() stopped at its horizon
             * (an event at SIM_TIME_MAX, which sc_start evaluates only on
             * the next call) or another process called sc_pause(). Go on.
             */
        }
        st->running = false;

        /* What the core will make now (sim.c, run()). */
        sim_time_t expect = sim->now;
        if (!sim->stop && !sim->cond_failed && t_end != SIM_TIME_MAX) {
            expect = t_end;
        }
        SIM_ASSERT(st->late || sc_now_ps() == expect,
                   "SystemC engine: SystemC time %llu ps differs from "
                   "simulation time %llu ps after a run",
                   (unsigned long long)sc_now_ps(),
                   (unsigned long long)expect);
    } catch (...) {
        bug_from_exception("run");
    }
}

} /* namespace */

extern "C" const struct sim_engine_ops sim_engine_systemc = {
    "systemc",              /* name */
    sc_engine_create,       /* create */
    sc_engine_destroy,      /* destroy */
    sc_engine_insert,       /* insert */
    sc_engine_remove,       /* remove */
    sc_engine_run,          /* run */
    sc_engine_peek,         /* peek */
};
