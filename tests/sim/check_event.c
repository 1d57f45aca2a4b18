/*
 * tests/sim/check_event.c - scheduling, ordering, cancel, run control,
 * time overflow and determinism of the event core, on both native engines.
 */
#include <config.h>

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/sim.h"
#include "sim/trace.h"
#include "tests/check_p2psim.h"

static const struct sim_engine_ops *const engines[] = {
    &sim_engine_native, &sim_engine_native_heap,
};

static struct sim *new_sim(int engine, uint64_t seed)
{
    struct sim_config cfg = { .engine = engines[engine], .seed = seed };
    struct sim *sim = sim_create(&cfg, NULL);
    ck_assert_ptr_nonnull(sim);
    return sim;
}

/* An event that logs its firing into a shared array. */
struct logged {
    struct sim_event ev;
    int id;
    int *log;
    int *n_log;
};

static void logged_fire(struct sim *sim, struct sim_event *ev)
{
    struct logged *l = SIM_CONTAINER_OF(ev, struct logged, ev);
    l->log[(*l->n_log)++] = l->id;
}

START_TEST(test_event_ties_run_fifo)
{
    struct sim *sim = new_sim(_i, 1);
    struct logged ev[50];
    int log[50], n = 0;
    for (int i = 0; i < 50; i++) {
        ev[i] = (struct logged){ .id = i, .log = log, .n_log = &n };
        sim_event_init(&ev[i].ev, logged_fire);
        /* all at the same time, scheduled in order */
        sim_event_schedule(sim, &ev[i].ev, SIM_NS(10));
    }
    ck_assert_int_eq(sim_run(sim), SIM_RUN_IDLE);
    ck_assert_int_eq(n, 50);
    for (int i = 0; i < 50; i++) {
        ck_assert_int_eq(log[i], i);
    }
    ck_assert_uint_eq(sim_now(sim), SIM_NS(10));
    sim_destroy(sim);
}
END_TEST

START_TEST(test_event_time_order)
{
    struct sim *sim = new_sim(_i, 1);
    static const uint64_t when_ns[] = { 30, 10, 20, 10, 5, 1000000, 7 };
    static const int expect[] = { 4, 6, 1, 3, 2, 0, 5 };
    struct logged ev[7];
    int log[7], n = 0;
    for (int i = 0; i < 7; i++) {
        ev[i] = (struct logged){ .id = i, .log = log, .n_log = &n };
        sim_event_init(&ev[i].ev, logged_fire);
        sim_event_schedule(sim, &ev[i].ev, sim_ns(when_ns[i]));
    }
    sim_run(sim);
    ck_assert_int_eq(n, 7);
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(log[i], expect[i]);
    }
    sim_destroy(sim);
}
END_TEST

START_TEST(test_event_cancel_pending_fired_twice)
{
    struct sim *sim = new_sim(_i, 1);
    struct logged a, b;
    int log[4], n = 0;
    a = (struct logged){ .id = 1, .log = log, .n_log = &n };
    b = (struct logged){ .id = 2, .log = log, .n_log = &n };
    sim_event_init(&a.ev, logged_fire);
    sim_event_init(&b.ev, logged_fire);
    sim_event_schedule(sim, &a.ev, SIM_NS(1));
    sim_event_schedule(sim, &b.ev, SIM_NS(2));
    ck_assert(sim_event_is_pending(&a.ev));
    ck_assert_uint_eq(sim_events_pending(sim), 2);
    /* cancel pending */
    sim_event_cancel(sim, &a.ev);
    ck_assert(!sim_event_is_pending(&a.ev));
    ck_assert_uint_eq(sim_events_pending(sim), 1);
    /* cancel twice: harmless */
    sim_event_cancel(sim, &a.ev);
    ck_assert_uint_eq(sim_events_pending(sim), 1);
    sim_run(sim);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(log[0], 2);
    /* cancel after it fired: harmless, and it can be scheduled again */
    sim_event_cancel(sim, &b.ev);
    sim_event_schedule(sim, &b.ev, SIM_NS(1));
    sim_run(sim);
    ck_assert_int_eq(n, 2);
    ck_assert_uint_eq(sim_now(sim), SIM_NS(3));
    sim_destroy(sim);
}
END_TEST

START_TEST(test_event_schedule_in_past_rejected)
{
    struct sim *sim = new_sim(_i, 1);
    ck_assert_int_eq(sim_run_until(sim, SIM_NS(100)), SIM_RUN_TIME);
    ck_assert_uint_eq(sim_now(sim), SIM_NS(100));
    struct logged a;
    int log[1], n = 0;
    a = (struct logged){ .id = 1, .log = log, .n_log = &n };
    sim_event_init(&a.ev, logged_fire);
    ck_assert_int_eq(sim_event_schedule_at(sim, &a.ev, SIM_NS(99)), -SIM_EPAST);
    ck_assert(!sim_event_is_pending(&a.ev));
    ck_assert_int_eq(sim_event_schedule_at(sim, &a.ev, SIM_NS(100)), 0);
    ck_assert_int_eq(sim_run_until(sim, SIM_NS(50)), -SIM_EPAST);
    sim_run(sim);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(sim_err_name(-SIM_EPAST), "EPAST");
    sim_destroy(sim);
}
END_TEST

START_TEST(test_event_time_saturates)
{
    ck_assert_uint_eq(sim_time_add(SIM_TIME_MAX - 5, 10), SIM_TIME_MAX);
    ck_assert_uint_eq(sim_time_add(5, 10), 15);
    ck_assert_uint_eq(sim_us(UINT64_MAX / 10), SIM_TIME_MAX);
    ck_assert_uint_eq(sim_ns(3), 3000);
    ck_assert_uint_eq(sim_ms(2), UINT64_C(2000000000));
    struct sim *sim = new_sim(_i, 1);
    sim_run_until(sim, SIM_TIME_MAX - SIM_NS(1));
    struct logged a;
    int log[1], n = 0;
    a = (struct logged){ .id = 1, .log = log, .n_log = &n };
    sim_event_init(&a.ev, logged_fire);
    /* relative scheduling past the end of time saturates, never wraps */
    sim_event_schedule(sim, &a.ev, SIM_US(5));
    ck_assert_uint_eq(a.ev.when, SIM_TIME_MAX);
    ck_assert_int_eq(sim_run(sim), SIM_RUN_IDLE);
    ck_assert_int_eq(n, 1);
    ck_assert_uint_eq(sim_now(sim), SIM_TIME_MAX);
    sim_destroy(sim);
}
END_TEST

/* A callback that cancels another event and reschedules itself. */
struct juggler {
    struct sim_event ev;
    struct sim_event *victim;
    int fired;
};

static void juggle(struct sim *sim, struct sim_event *ev)
{
    struct juggler *j = SIM_CONTAINER_OF(ev, struct juggler, ev);
    j->fired++;
    sim_event_cancel(sim, j->victim);
    if (j->fired < 3) {
        sim_event_schedule(sim, ev, SIM_NS(1));
    }
}

static void must_not_fire(struct sim *sim, struct sim_event *ev)
{
    ck_abort_msg("a cancelled event fired");
}

START_TEST(test_event_callback_cancels_and_reschedules)
{
    struct sim *sim = new_sim(_i, 1);
    struct sim_event victim;
    struct juggler j = { .victim = &victim };
    sim_event_init(&victim, must_not_fire);
    sim_event_init(&j.ev, juggle);
    sim_event_schedule(sim, &j.ev, SIM_NS(1));
    sim_event_schedule(sim, &victim, SIM_NS(1)); /* same time, later seq */
    sim_run(sim);
    ck_assert_int_eq(j.fired, 3);
    ck_assert_uint_eq(sim_events_pending(sim), 0);
    sim_destroy(sim);
}
END_TEST

static void stopper(struct sim *sim, struct sim_event *ev)
{
    sim_stop(sim);
}

static bool fewer_than(struct sim *sim, void *arg)
{
    return sim_events_fired(sim) < *(uint64_t *)arg;
}

static void ticker(struct sim *sim, struct sim_event *ev)
{
    sim_event_schedule(sim, ev, SIM_NS(10));
}

START_TEST(test_event_run_until_while_stop)
{
    struct sim *sim = new_sim(_i, 1);
    struct sim_event tick, stop;
    sim_event_init(&tick, ticker);
    sim_event_init(&stop, stopper);
    sim_event_schedule(sim, &tick, SIM_NS(10));
    /* run until: events at exactly t_end run, now == t_end afterwards */
    ck_assert_int_eq(sim_run_until(sim, SIM_NS(55)), SIM_RUN_TIME);
    ck_assert_uint_eq(sim_events_fired(sim), 5);
    ck_assert_uint_eq(sim_now(sim), SIM_NS(55));
    ck_assert_int_eq(sim_run_until(sim, SIM_NS(60)), SIM_RUN_TIME);
    ck_assert_uint_eq(sim_events_fired(sim), 6);
    /* run while */
    uint64_t limit = 10;
    ck_assert_int_eq(sim_run_while(sim, fewer_than, &limit, SIM_TIME_MAX),
                     SIM_RUN_COND);
    ck_assert_uint_eq(sim_events_fired(sim), 10);
    ck_assert_uint_eq(sim_now(sim), SIM_NS(100));
    /* stop from a callback */
    sim_event_schedule(sim, &stop, SIM_NS(25));
    ck_assert_int_eq(sim_run(sim), SIM_RUN_STOPPED);
    ck_assert_uint_eq(sim_now(sim), SIM_NS(125));
    ck_assert(sim_event_is_pending(&tick));
    sim_destroy(sim);
}
END_TEST

/* Determinism: a random model run twice gives an identical trace. */
struct walker {
    struct sim_event ev;
    int id;
    uint64_t *hash;
};

static void walk(struct sim *sim, struct sim_event *ev)
{
    sim_event_schedule(sim, ev, sim_rng_range(sim, 0, 3) * SIM_NS(1));
}

static void hash_sink(void *ctx, const struct sim_trace_record *r)
{
    uint64_t *h = ctx;
    *h = (*h ^ r->when) * UINT64_C(0x100000001b3);
    *h = (*h ^ r->a) * UINT64_C(0x100000001b3);
}

static uint64_t run_walkers(int engine, uint64_t seed)
{
    struct sim *sim = new_sim(engine, seed);
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    ck_assert_int_eq(sim_trace_subscribe(sim, hash_sink, &h,
                                         SIM_TRACE_BIT(SIM_TP_EVENT_FIRE)), 0);
    struct walker w[64];
    for (int i = 0; i < 64; i++) {
        w[i].id = i;
        sim_event_init(&w[i].ev, walk);
        sim_event_schedule(sim, &w[i].ev, 0);
    }
    sim_run_until(sim, SIM_US(2));
    ck_assert_uint_gt(sim_events_fired(sim), 10000);
    sim_destroy(sim);
    return h;
}

START_TEST(test_event_determinism)
{
    uint64_t a = run_walkers(_i, 42), b = run_walkers(_i, 42);
    ck_assert_uint_eq(a, b);
    ck_assert_uint_ne(a, run_walkers(_i, 43));
    /* the two native engines agree event for event */
    ck_assert_uint_eq(run_walkers(0, 7), run_walkers(1, 7));
}
END_TEST

START_TEST(test_event_double_schedule_is_caught)
{
    struct sim *sim = new_sim(_i, 1);
    struct sim_event e;
    sim_event_init(&e, ticker);
    sim_event_schedule(sim, &e, 1);
    sim_event_schedule(sim, &e, 2); /* aborts with a message */
}
END_TEST

static int reentrant_rc;

static void reenter(struct sim *sim, struct sim_event *ev)
{
    reentrant_rc = sim_run(sim);
}

START_TEST(test_event_reentrant_run_refused)
{
    struct sim *sim = new_sim(_i, 1);
    struct sim_event e;
    sim_event_init(&e, reenter);
    sim_event_schedule(sim, &e, 1);
    reentrant_rc = 0;
    ck_assert_int_eq(sim_run(sim), SIM_RUN_IDLE);
    ck_assert_int_eq(reentrant_rc, -SIM_ESTATE);
    sim_destroy(sim);
}
END_TEST

START_TEST(test_error_first_kept_and_formatted)
{
    struct sim_error err;
    sim_error_clear(&err);
    ck_assert_int_eq(sim_error_set(&err, SIM_EINVAL, "x=%d", 3), -SIM_EINVAL);
    /* the first error is kept */
    sim_error_set(&err, SIM_ERANGE, "second");
    ck_assert_str_eq(err.msg, "x=3");
    ck_assert_int_eq(err.code, SIM_EINVAL);
    /* a NULL error object is allowed */
    ck_assert_int_eq(sim_error_set_at(NULL, SIM_EINVAL, "f", 1, 2, "x"),
                     -SIM_EINVAL);
    char buf[128];
    struct sim_error e2;
    sim_error_clear(&e2);
    sim_error_set_at(&e2, SIM_EINVAL, "m.yaml", 12, 7, "bad value");
    ck_assert_str_eq(sim_error_format(&e2, buf, sizeof(buf)),
                     "m.yaml:12:7: error: bad value");
    ck_assert_str_eq(sim_strerror(SIM_EPAST), "time is in the past");
}
END_TEST

START_TEST(test_event_rng_ranges)
{
    struct sim *sim = new_sim(0, 5);
    uint64_t seen[10] = { 0 };
    for (int i = 0; i < 100000; i++) {
        uint64_t v = sim_rng_range(sim, 1, 10);
        ck_assert(v >= 1 && v <= 10);
        seen[v - 1]++;
    }
    for (int i = 0; i < 10; i++) {
        /* each value within 5% of 10,000 */
        ck_assert_uint_gt(seen[i], 9500);
        ck_assert_uint_lt(seen[i], 10500);
    }
    sim_destroy(sim);
}
END_TEST

/*
 * sim_rng_geometric: the failures before the first success of Bernoulli(p)
 * trials. Its share of zeros is p, its mean (1 - p) / p and its tail
 * P(X >= k) = (1 - p)^k, for a p in each branch of its ln(1 - p) (p above
 * and below 1/2) and for a PCIe bit error rate's small p.
 */
START_TEST(test_rng_geometric_distribution)
{
    static const struct {
        double p, tail;         /* tail: (1 - p)^4 */
        int n;
    } cases[] = {
        { 0.25, 0.31640625, 200000 },
        { 0.9, 0.0001, 200000 },
        { 1e-9, 0.999999996, 20000 },
    };
    struct sim *sim = new_sim(0, 11);
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        double p = cases[c].p, sum = 0;
        int n = cases[c].n, zeros = 0, tail = 0;
        for (int i = 0; i < n; i++) {
            uint64_t v = sim_rng_geometric(sim, p);
            ck_assert_uint_lt(v, UINT64_MAX);
            sum += (double)v;
            zeros += v == 0;
            tail += v >= 4;
        }
        double mean = (1 - p) / p, got = sum / n;
        ck_assert_msg(got > 0.97 * mean && got < 1.03 * mean,
                      "p %g: mean %g, expected %g", p, got, mean);
        ck_assert_msg(zeros / (double)n > 0.97 * p - 1e-4 &&
                          zeros / (double)n < 1.03 * p + 1e-4,
                      "p %g: %d zeros of %d", p, zeros, n);
        ck_assert_msg(tail / (double)n > 0.97 * cases[c].tail - 1e-4 &&
                          tail / (double)n < 1.03 * cases[c].tail + 1e-4,
                      "p %g: %d of %d at 4 or more", p, tail, n);
    }
    sim_destroy(sim);
}
END_TEST

/*
 * One sim_rng_u64 per draw, and the draws themselves pinned: the error
 * figures of a PCIe link with a bit error rate (models/pcie/link_replay.c)
 * follow this sequence, so a change of formula or rounding shows here.
 */
START_TEST(test_rng_geometric_sequence)
{
    static const uint64_t want[] = { 352, 652, 554, 937, 360, 1939, 2643, 963 };
    struct sim *a = new_sim(0, 1), *b = new_sim(0, 1);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        uint64_t v = sim_rng_geometric(a, 1e-3);
        ck_assert_msg(v == want[i], "draw %zu: %llu, expected %llu", i,
                      (unsigned long long)v, (unsigned long long)want[i]);
        (void)sim_rng_u64(b);
    }
    ck_assert_uint_eq(sim_rng_u64(a), sim_rng_u64(b));
    sim_destroy(a);
    sim_destroy(b);
}
END_TEST

/* The last pending event makes the run condition false: time stays at
 * that event rather than jumping to the run's end. */
static bool flag_clear(struct sim *sim, void *arg)
{
    (void)sim;
    return *(int *)arg == 0;
}

static void set_flag(struct sim *sim, struct sim_event *ev)
{
    (void)sim;
    struct logged *l = SIM_CONTAINER_OF(ev, struct logged, ev);
    *l->n_log = 1;
}

START_TEST(test_event_run_while_last_event_stops)
{
    struct sim *sim = new_sim(_i, 1);
    int flag = 0;
    struct logged ev = { .n_log = &flag };
    sim_event_init(&ev.ev, set_flag);
    sim_event_schedule(sim, &ev.ev, SIM_NS(10));
    ck_assert_int_eq(sim_run_while(sim, flag_clear, &flag, SIM_NS(100)),
                     SIM_RUN_COND);
    ck_assert_uint_eq(sim_now(sim), SIM_NS(10));
    /* with the condition still true at the end, time reaches t_end */
    flag = 0;
    ck_assert_int_eq(sim_run_while(sim, flag_clear, &flag, SIM_NS(100)),
                     SIM_RUN_TIME);
    ck_assert_uint_eq(sim_now(sim), SIM_NS(100));
    sim_destroy(sim);
}
END_TEST

/* A component out of memory inside an event (sim_fail_nomem). */
static void fail_fire(struct sim *sim, struct sim_event *ev)
{
    struct logged *l = SIM_CONTAINER_OF(ev, struct logged, ev);
    l->log[(*l->n_log)++] = l->id;
    ck_assert_int_eq(sim_fail_nomem(sim, "gpu3", "a %s", "completion"),
                     -SIM_ENOMEM);
    /* a second failure keeps the first message */
    sim_fail_nomem(sim, "rc0", "a TLP");
}

/*
 * Out of memory inside a run: the run stops after the event, returns
 * -SIM_ENOMEM with the component and the time in the message, and every
 * later run returns it at once without firing anything.
 */
START_TEST(test_event_out_of_memory_stops_the_run)
{
    struct sim *sim = new_sim(_i, 1);
    int log[4], n = 0;
    struct logged a = { .id = 1, .log = log, .n_log = &n };
    struct logged b = { .id = 2, .log = log, .n_log = &n };
    sim_event_init(&a.ev, fail_fire);
    sim_event_init(&b.ev, logged_fire);
    sim_event_schedule(sim, &a.ev, SIM_NS(1500));
    sim_event_schedule(sim, &b.ev, SIM_NS(2000));
    ck_assert_ptr_null(sim_failure(sim));
    ck_assert_int_eq(sim_run(sim), -SIM_ENOMEM);
    ck_assert_int_eq(n, 1);
    const struct sim_error *f = sim_failure(sim);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->code, SIM_ENOMEM);
    ck_assert_str_eq(f->msg, "out of memory in gpu3 at 1.500 us "
                             "(a completion)");
    ck_assert_int_eq(sim_run_until(sim, SIM_NS(5000)), -SIM_ENOMEM);
    ck_assert_int_eq(sim_run_while(sim, flag_clear, &n, SIM_NS(5000)),
                     -SIM_ENOMEM);
    ck_assert_int_eq(n, 1);
    ck_assert_uint_eq(sim_now(sim), SIM_NS(1500));
    sim_destroy(sim);
}
END_TEST

Suite *make_event_suite(void)
{
    Suite *s = suite_create("event");
    TCase *tc = tcase_create("Ordering");
    tcase_add_loop_test(tc, test_event_ties_run_fifo, 0, 2);
    tcase_add_loop_test(tc, test_event_time_order, 0, 2);
    tcase_add_loop_test(tc, test_event_determinism, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("Cancel");
    tcase_add_loop_test(tc, test_event_cancel_pending_fired_twice, 0, 2);
    tcase_add_loop_test(tc, test_event_callback_cancels_and_reschedules, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("Time");
    tcase_add_loop_test(tc, test_event_schedule_in_past_rejected, 0, 2);
    tcase_add_loop_test(tc, test_event_time_saturates, 0, 2);
    tcase_add_loop_test(tc, test_event_run_until_while_stop, 0, 2);
    tcase_add_loop_test(tc, test_event_run_while_last_event_stops, 0, 2);
    tcase_add_test(tc, test_event_rng_ranges);
    suite_add_tcase(s, tc);
    tc = tcase_create("Rng");
    tcase_add_test(tc, test_rng_geometric_distribution);
    tcase_add_test(tc, test_rng_geometric_sequence);
    suite_add_tcase(s, tc);
    tc = tcase_create("Errors");
    tcase_add_loop_test(tc, test_event_reentrant_run_refused, 0, 2);
    tcase_add_test(tc, test_error_first_kept_and_formatted);
    tcase_add_loop_test(tc, test_event_out_of_memory_stops_the_run, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("Aborts");
    tcase_set_tags(tc, "abort");
    tcase_add_loop_test_raise_signal(tc, test_event_double_schedule_is_caught,
                                     SIGABRT, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
