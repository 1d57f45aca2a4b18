/*
 * tests/sim/check_queue.c - the calendar queue against the heap, its
 * reference model, on random mixes of insert, cancel and pop with time
 * distributions that stress its width estimate (uniform, bursts of ties,
 * far outliers, scale changes).
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>

#include "sim/queue_int.h"
#include "tests/check_p2psim.h"

#define N_EV 4096

static uint64_t rng_state;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Delay drawn from one of several distributions (the loop index picks). */
static uint64_t draw_delay(int dist, uint64_t step)
{
    switch (dist) {
    case 0: /* hold: uniform 1..1000 ns */
        return 1000 + rnd() % 999001;
    case 1: /* bursts of identical times */
        return (rnd() % 4 == 0) ? 0 : 1000 * (rnd() % 3);
    case 2: /* mostly near, some very far (timeouts) */
        return (rnd() % 64 == 0) ? UINT64_C(1000000000000) + rnd() % 1000
                                 : rnd() % 5000;
    default: /* the scale changes a thousandfold halfway */
        return step < 20000 ? rnd() % 1000 : rnd() % 1000000000;
    }
}

START_TEST(test_queue_calendar_matches_heap)
{
    struct sim__heap h;
    struct sim__cq q;
    static struct sim_event a[N_EV], b[N_EV];
    ck_assert_int_eq(sim__heap_init(&h), 0);
    ck_assert_int_eq(sim__cq_init(&q), 0);
    rng_state = 0x9e3779b97f4a7c15ull + (uint64_t)_i;
    uint64_t now = 0, seq = 0;
    for (int i = 0; i < N_EV; i++) {
        a[i].state = b[i].state = 0;
    }
    for (uint64_t step = 0; step < 40000; step++) {
        unsigned op = rnd() % 8;
        int i = (int)(rnd() % N_EV);
        if (op < 4 && !a[i].state) {
            /* insert the same event into both */
            uint64_t when = now + draw_delay(_i, step);
            a[i].when = b[i].when = when;
            a[i].seq = b[i].seq = seq++;
            a[i].state = b[i].state = 1;
            ck_assert_int_eq(sim__heap_insert(&h, &a[i]), 0);
            ck_assert_int_eq(sim__cq_insert(&q, &b[i]), 0);
        } else if (op == 4 && a[i].state) {
            /* cancel */
            sim__heap_remove(&h, &a[i]);
            sim__cq_remove(&q, &b[i]);
            a[i].state = b[i].state = 0;
        } else {
            /* pop: both must give the same event */
            struct sim_event *x = sim__heap_pop(&h);
            struct sim_event *y = sim__cq_pop(&q);
            if (!x) {
                ck_assert_ptr_null(y);
                continue;
            }
            ck_assert_ptr_nonnull(y);
            ck_assert_int_eq((int)(x - a), (int)(y - b));
            ck_assert_uint_ge(x->when, now);
            now = x->when;
            x->state = y->state = 0;
        }
        ck_assert_uint_eq(h.n, q.n);
    }
    /* drain */
    for (;;) {
        struct sim_event *x = sim__heap_pop(&h);
        struct sim_event *y = sim__cq_pop(&q);
        if (!x) {
            ck_assert_ptr_null(y);
            break;
        }
        ck_assert_int_eq((int)(x - a), (int)(y - b));
    }
    sim__heap_fini(&h);
    sim__cq_fini(&q);
}
END_TEST

/* Growing to many events and shrinking back keeps order. */
START_TEST(test_queue_calendar_grows_and_shrinks)
{
    struct sim__cq q;
    enum { N = 50000 };
    struct sim_event *ev = calloc(N, sizeof(*ev));
    ck_assert_ptr_nonnull(ev);
    ck_assert_int_eq(sim__cq_init(&q), 0);
    rng_state = 12345;
    for (int i = 0; i < N; i++) {
        ev[i].when = rnd() % 100000000;
        ev[i].seq = (uint64_t)i;
        sim__cq_insert(&q, &ev[i]);
    }
    ck_assert_uint_ge(q.n_buckets, N / 2);
    struct sim_event *prev = NULL;
    for (int i = 0; i < N; i++) {
        struct sim_event *e = sim__cq_pop(&q);
        ck_assert_ptr_nonnull(e);
        if (prev) {
            ck_assert(sim_event_before(prev, e));
        }
        prev = e;
    }
    ck_assert_ptr_null(sim__cq_pop(&q));
    ck_assert_uint_le(q.n_buckets, 128);
    sim__cq_fini(&q);
    free(ev);
}
END_TEST

Suite *make_queue_suite(void)
{
    Suite *s = suite_create("queue");
    TCase *tc = tcase_create("Reference");
    tcase_add_loop_test(tc, test_queue_calendar_matches_heap, 0, 4);
    tcase_add_test(tc, test_queue_calendar_grows_and_shrinks);
    suite_add_tcase(s, tc);
    return s;
}
