/*
 * tests/sim/check_engine_systemc.c - the SystemC engine gives exactly the
 * event order, timestamps and run results of the native engine.
 *
 * One deterministic model runs on sim_engine_native (in this process) and
 * on sim_engine_systemc (in a forked child: a process can host one
 * SystemC-engine simulation, and forking keeps this file correct whether
 * or not Check forks each test). The child writes its outcome into shared
 * memory; the parent compares it with the native one. The engine itself
 * checks after every run that SystemC time equals sim_now() (sim_bug, so
 * the child dies and the test fails).
 */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/engine.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/sim.h"
#include "sim/systemc/engine_systemc.h"
#include "sim/trace.h"
#include "tests/check_p2psim.h"

#define N_ITEMS 50
#define N_EVENTS 2000           /* items stop rescheduling after this many */
#define STOP_AT 1500            /* a callback calls sim_stop() here */
#define COND_LIMIT 900          /* the run condition: fewer fired than this */
#define MAX_RECS 4096
#define MAX_RUNS 32
#define ID_AT_MAX 1000u         /* the event at SIM_TIME_MAX */
#define ID_STOPPER 1001u        /* an event that calls sim_stop() */

/* One fired event: from the trace sink (when, seq), then the callback (id). */
struct rec {
    uint64_t when;
    uint64_t seq;
    uint64_t item;
};

/* The state after one run call. */
struct run_rec {
    int64_t rc;
    uint64_t now;
    uint64_t fired;
    uint64_t pending;
    uint64_t cond_calls;
};

/* Everything observable about a model run; compared bytewise. */
struct outcome {
    int64_t created;            /* 1 if sim_create succeeded */
    int64_t engine_ok;          /* sim_engine_name() is the engine asked for */
    int64_t setup_ok;           /* every direct schedule call succeeded */
    uint64_t n_recs;
    uint64_t n_runs;
    struct rec recs[MAX_RECS];
    struct run_rec runs[MAX_RUNS];
};

struct model;

struct item {
    struct sim_event ev;
    uint64_t id;
    struct model *m;
};

struct model {
    struct sim *sim;
    struct outcome *out;
    struct item items[N_ITEMS];
    struct item at_max;         /* scheduled at SIM_TIME_MAX */
    struct item stopper;        /* calls sim_stop() */
    uint64_t n_fired;
    uint64_t cond_calls;
    bool at_max_again;
};

static void sink(void *ctx, const struct sim_trace_record *r)
{
    struct model *m = ctx;
    struct outcome *out = m->out;
    if (out->n_recs < MAX_RECS) {
        out->recs[out->n_recs] = (struct rec){ .when = r->when, .seq = r->a };
    }
    out->n_recs++;
}

static void note_item(struct model *m, uint64_t id)
{
    struct outcome *out = m->out;
    if (out->n_recs > 0 && out->n_recs <= MAX_RECS) {
        out->recs[out->n_recs - 1].item = id;
    }
}

/*
 * Each item reschedules itself with a random delay: zero (a tie at the
 * current time, scheduled during it), whole nanoseconds (ties between
 * items) or picoseconds; it sometimes reschedules or cancels another item.
 */
static void item_fire(struct sim *sim, struct sim_event *ev)
{
    struct item *it = SIM_CONTAINER_OF(ev, struct item, ev);
    struct model *m = it->m;
    note_item(m, it->id);
    m->n_fired++;
    if (m->n_fired == STOP_AT) {
        sim_stop(sim);
        /* leave an event due at the stop time */
        sim_event_schedule(sim, ev, 0);
        return;
    }
    if (m->n_fired >= N_EVENTS) {
        return;     /* drain */
    }
    uint64_t r = sim_rng_below(sim, 16);
    sim_time_t delay_ps;
    if (r == 0) {
        delay_ps = 0;
    } else if (r < 6) {
        delay_ps = SIM_NS(sim_rng_range(sim, 1, 4));
    } else {
        delay_ps = sim_rng_range(sim, 1, 5000);
    }
    sim_event_schedule(sim, ev, delay_ps);
    r = sim_rng_below(sim, 64);
    if (r < 8) {
        struct item *o = &m->items[sim_rng_below(sim, N_ITEMS)];
        sim_event_reschedule(sim, &o->ev, SIM_NS(sim_rng_below(sim, 3)));
    } else if (r == 8) {
        /* cancelled until a later reschedule picks it again */
        sim_event_cancel(sim, &m->items[sim_rng_below(sim, N_ITEMS)].ev);
    }
}

static void at_max_fire(struct sim *sim, struct sim_event *ev)
{
    struct item *it = SIM_CONTAINER_OF(ev, struct item, ev);
    note_item(it->m, it->id);
    if (!it->m->at_max_again) {
        it->m->at_max_again = true;
        sim_event_schedule(sim, ev, 5);     /* saturates: again at MAX */
    }
}

static void stopper_fire(struct sim *sim, struct sim_event *ev)
{
    struct item *it = SIM_CONTAINER_OF(ev, struct item, ev);
    note_item(it->m, it->id);
    sim_stop(sim);
}

static bool cond_below_limit(struct sim *sim, void *arg)
{
    struct model *m = arg;
    m->cond_calls++;
    return m->n_fired < COND_LIMIT;
}

static bool cond_always(struct sim *sim, void *arg)
{
    struct model *m = arg;
    m->cond_calls++;
    return true;
}

static bool cond_never(struct sim *sim, void *arg)
{
    struct model *m = arg;
    m->cond_calls++;
    return false;
}

static void record(struct model *m, int rc)
{
    struct outcome *out = m->out;
    if (out->n_runs < MAX_RUNS) {
        out->runs[out->n_runs] = (struct run_rec){
            .rc = rc,
            .now = sim_now(m->sim),
            .fired = sim_events_fired(m->sim),
            .pending = sim_events_pending(m->sim),
            .cond_calls = m->cond_calls,
        };
    }
    out->n_runs++;
}

/* Build and run the model on engine; everything observable goes to out. */
static void drive(const struct sim_engine_ops *engine, struct outcome *out)
{
    struct sim_config cfg = { .engine = engine, .seed = 42 };
    struct model *m = calloc(1, sizeof(*m));
    if (!m) {
        return;
    }
    m->out = out;
    m->sim = sim_create(&cfg, NULL);
    if (!m->sim) {
        free(m);
        return;
    }
    struct sim *sim = m->sim;
    out->created = 1;
    out->engine_ok = strcmp(sim_engine_name(sim), engine->name) == 0;
    sim_trace_subscribe(sim, sink, m, SIM_TRACE_BIT(SIM_TP_EVENT_FIRE));

    /* empty runs: nothing pending, then a run that only moves time */
    record(m, sim_run_until(sim, 0));
    record(m, sim_run(sim));
    record(m, sim_run_until(sim, 500));

    for (unsigned i = 0; i < N_ITEMS; i++) {
        m->items[i].id = i;
        m->items[i].m = m;
        sim_event_init(&m->items[i].ev, item_fire);
        sim_time_t delay_ps;
        if (i < 3) {
            delay_ps = 0;               /* due at now, before any run */
        } else if (i < 8) {
            delay_ps = SIM_NS(1) - 500; /* ties at exactly 1 ns */
        } else {
            delay_ps = sim_rng_range(sim, 1, SIM_NS(2));
        }
        sim_event_schedule(sim, &m->items[i].ev, delay_ps);
    }

    /* run_until in steps: to an event time, zero-length, between events */
    record(m, sim_run_until(sim, 500));
    record(m, sim_run_until(sim, SIM_NS(1)));
    record(m, sim_run_until(sim, SIM_NS(1)));
    record(m, sim_run_until(sim, SIM_NS(5)));
    record(m, sim_run_until(sim, SIM_NS(5) + 1));
    record(m, sim_run_until(sim, SIM_NS(12) + 333));

    /* run_while: the condition fails mid-run; then fails at once */
    record(m, sim_run_while(sim, cond_below_limit, m, SIM_US(100)));
    record(m, sim_run_while(sim, cond_never, m, SIM_US(100)));
    /* a condition that holds: the run ends by time */
    record(m, sim_run_while(sim, cond_always, m, sim_now(sim) + SIM_NS(3)));

    /* scheduled from outside a run: at now and just after, then run to now */
    sim_event_reschedule(sim, &m->items[3].ev, 0);
    sim_event_reschedule(sim, &m->items[4].ev, 1);
    record(m, sim_run_until(sim, sim_now(sim)));
    record(m, sim_run_until(sim, sim_now(sim) + 1));

    /* sim_stop() from a callback, with an event left due at that time */
    record(m, sim_run(sim));
    record(m, sim_run_until(sim, sim_now(sim)));
    record(m, sim_run_until(sim, sim_now(sim) + SIM_NS(7) + 3));

    /* drain: the items stop at N_EVENTS fired */
    record(m, sim_run(sim));

    /*
     * sim_stop() with the next event beyond t_end: now stays at the
     * stopping event (SIM_RUN_STOPPED), not t_end; then a run by time.
     */
    m->stopper.id = ID_STOPPER;
    m->stopper.m = m;
    sim_event_init(&m->stopper.ev, stopper_fire);
    sim_event_schedule(sim, &m->stopper.ev, SIM_NS(10));
    sim_event_reschedule(sim, &m->items[1].ev, SIM_NS(100));
    record(m, sim_run_until(sim, sim_now(sim) + SIM_NS(50)));
    record(m, sim_run_until(sim, sim_now(sim) + SIM_NS(50)));
    record(m, sim_run(sim));

    /* the end of time: an event at SIM_TIME_MAX reschedules itself there */
    m->at_max.id = ID_AT_MAX;
    m->at_max.m = m;
    sim_event_init(&m->at_max.ev, at_max_fire);
    out->setup_ok =
        sim_event_schedule_at(sim, &m->at_max.ev, SIM_TIME_MAX) == 0;
    sim_event_reschedule(sim, &m->items[0].ev, SIM_US(1));
    record(m, sim_run_until(sim, SIM_TIME_MAX - 1));
    record(m, sim_run(sim));
    record(m, sim_run(sim));

    sim_destroy(sim);
    free(m);
}

static struct outcome *shared_outcome(void)
{
    void *p = mmap(NULL, sizeof(struct outcome), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert_msg(p != MAP_FAILED, "mmap failed");
    return p;
}

/* Run fn(arg) in a child process; fail the test if the child fails. */
static void in_child(void (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork failed");
    if (pid == 0) {
        fn(arg);
        fflush(NULL);
        _exit(0);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the SystemC child failed (wait status 0x%x)", status);
}

static void drive_systemc(void *arg)
{
    drive(&sim_engine_systemc, arg);
}

START_TEST(test_systemc_matches_native)
{
    struct outcome *native = calloc(1, sizeof(*native));
    ck_assert_ptr_nonnull(native);
    drive(&sim_engine_native, native);
    struct outcome *sc = shared_outcome();
    in_child(drive_systemc, sc);

    /* the scenario does what it claims (on the native engine) */
    ck_assert_int_eq(native->created, 1);
    ck_assert_int_eq(native->engine_ok, 1);
    ck_assert_int_eq(native->setup_ok, 1);
    ck_assert_uint_le(native->n_recs, MAX_RECS);
    ck_assert_uint_le(native->n_runs, MAX_RUNS);
    ck_assert_uint_eq(native->runs[0].rc, SIM_RUN_TIME);
    ck_assert_uint_eq(native->runs[1].rc, SIM_RUN_IDLE);
    ck_assert_uint_eq(native->runs[2].now, 500);
    ck_assert_uint_eq(native->runs[9].rc, SIM_RUN_COND);
    ck_assert_uint_eq(native->runs[10].rc, SIM_RUN_COND);
    ck_assert_uint_eq(native->runs[10].fired, native->runs[9].fired);
    ck_assert_uint_eq(native->runs[11].rc, SIM_RUN_TIME);
    ck_assert_uint_eq(native->runs[14].rc, SIM_RUN_STOPPED);
    ck_assert_uint_eq(native->runs[14].fired, STOP_AT);
    ck_assert_uint_eq(native->runs[15].fired, STOP_AT + 1);
    ck_assert_uint_eq(native->runs[15].now, native->runs[14].now);
    ck_assert_uint_eq(native->runs[17].rc, SIM_RUN_IDLE);
    ck_assert_uint_eq(native->runs[17].pending, 0);
    ck_assert_uint_eq(native->runs[18].rc, SIM_RUN_STOPPED);
    ck_assert_uint_eq(native->runs[18].now, native->runs[17].now + SIM_NS(10));
    ck_assert_uint_eq(native->runs[19].rc, SIM_RUN_TIME);
    ck_assert_uint_eq(native->runs[19].now, native->runs[18].now + SIM_NS(50));
    ck_assert_uint_eq(native->runs[20].rc, SIM_RUN_IDLE);
    ck_assert_uint_eq(native->runs[20].now, native->runs[17].now + SIM_NS(100));
    ck_assert_uint_eq(native->runs[21].rc, SIM_RUN_TIME);
    ck_assert_uint_eq(native->runs[21].now, SIM_TIME_MAX - 1);
    ck_assert_uint_eq(native->runs[22].rc, SIM_RUN_IDLE);
    ck_assert_uint_eq(native->runs[22].now, SIM_TIME_MAX);
    ck_assert_uint_eq(native->runs[23].rc, SIM_RUN_IDLE);
    ck_assert_uint_eq(native->n_runs, 24);
    ck_assert_uint_ge(native->n_recs, N_EVENTS);
    ck_assert_uint_eq(native->recs[native->n_recs - 1].item, ID_AT_MAX);
    ck_assert_uint_eq(native->recs[native->n_recs - 1].when, SIM_TIME_MAX);
    ck_assert_uint_eq(native->recs[native->n_recs - 2].item, ID_AT_MAX);

    /* and the SystemC engine does exactly the same */
    ck_assert_int_eq(sc->created, 1);
    ck_assert_int_eq(sc->engine_ok, 1);
    ck_assert_int_eq(sc->setup_ok, 1);
    ck_assert_uint_eq(sc->n_runs, native->n_runs);
    for (uint64_t i = 0; i < native->n_runs; i++) {
        const struct run_rec *a = &native->runs[i], *b = &sc->runs[i];
        ck_assert_msg(memcmp(a, b, sizeof(*a)) == 0,
                      "run %llu: native rc %lld now %llu fired %llu "
                      "pending %llu cond %llu; systemc rc %lld now %llu "
                      "fired %llu pending %llu cond %llu",
                      (unsigned long long)i, (long long)a->rc,
                      (unsigned long long)a->now, (unsigned long long)a->fired,
                      (unsigned long long)a->pending,
                      (unsigned long long)a->cond_calls, (long long)b->rc,
                      (unsigned long long)b->now, (unsigned long long)b->fired,
                      (unsigned long long)b->pending,
                      (unsigned long long)b->cond_calls);
    }
    ck_assert_uint_eq(sc->n_recs, native->n_recs);
    for (uint64_t i = 0; i < native->n_recs; i++) {
        const struct rec *a = &native->recs[i], *b = &sc->recs[i];
        ck_assert_msg(a->when == b->when && a->seq == b->seq &&
                          a->item == b->item,
                      "event %llu: native (%llu ps, seq %llu, item %llu), "
                      "systemc (%llu ps, seq %llu, item %llu)",
                      (unsigned long long)i, (unsigned long long)a->when,
                      (unsigned long long)a->seq, (unsigned long long)a->item,
                      (unsigned long long)b->when, (unsigned long long)b->seq,
                      (unsigned long long)b->item);
    }
    munmap(sc, sizeof(*sc));
    free(native);
}
END_TEST

/* ---- one SystemC-engine simulation per process -------------------------- */

struct second_result {
    int64_t first_ok;
    int64_t first_run_ok;
    int64_t second_null;
    int64_t second_code;
    int64_t third_null;
    int64_t third_code;
    int64_t native_ok;
    char msg[SIM_ERROR_MSG_MAX];
};

static void noop_fire(struct sim *sim, struct sim_event *ev)
{
}

static void try_second(void *arg)
{
    struct second_result *res = arg;
    struct sim_config cfg = { .engine = &sim_engine_systemc, .seed = 1 };
    struct sim_error err;
    sim_error_clear(&err);
    struct sim *first = sim_create(&cfg, &err);
    res->first_ok = first != NULL;

    sim_error_clear(&err);
    struct sim *second = sim_create(&cfg, &err);
    res->second_null = second == NULL;
    res->second_code = err.code;
    memcpy(res->msg, err.msg, sizeof(res->msg));

    /* the first one still works */
    if (first) {
        struct sim_event ev;
        sim_event_init(&ev, noop_fire);
        sim_event_schedule(first, &ev, SIM_NS(1));
        res->first_run_ok = sim_run_until(first, SIM_NS(3)) == SIM_RUN_TIME &&
                            sim_events_fired(first) == 1 &&
                            sim_now(first) == SIM_NS(3);
        sim_destroy(first);
    }

    /* ... and after it is gone, SystemC still cannot host another */
    sim_error_clear(&err);
    struct sim *third = sim_create(&cfg, &err);
    res->third_null = third == NULL;
    res->third_code = err.code;

    /* native simulations are unaffected */
    struct sim_config ncfg = { .engine = &sim_engine_native, .seed = 1 };
    struct sim *native = sim_create(&ncfg, NULL);
    res->native_ok = native != NULL && sim_run(native) == SIM_RUN_IDLE;
    sim_destroy(native);
}

START_TEST(test_systemc_second_sim_fails)
{
    struct second_result *res = mmap(NULL, sizeof(*res),
                                     PROT_READ | PROT_WRITE,
                                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert_msg(res != MAP_FAILED, "mmap failed");
    in_child(try_second, res);
    ck_assert_int_eq(res->first_ok, 1);
    ck_assert_int_eq(res->first_run_ok, 1);
    ck_assert_int_eq(res->second_null, 1);
    ck_assert_int_eq(res->second_code, SIM_EBUSY);
    ck_assert_msg(strstr(res->msg, "one simulation per process") != NULL,
                  "unexpected message: %s", res->msg);
    ck_assert_int_eq(res->third_null, 1);
    ck_assert_int_eq(res->third_code, SIM_EBUSY);
    ck_assert_int_eq(res->native_ok, 1);
    munmap(res, sizeof(*res));
}
END_TEST

Suite *make_engine_systemc_suite(void)
{
    Suite *s = suite_create("engine_systemc");
    TCase *tc = tcase_create("equivalence");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_systemc_matches_native);
    tcase_add_test(tc, test_systemc_second_sim_fails);
    suite_add_tcase(s, tc);
    return s;
}
