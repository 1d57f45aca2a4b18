/*
 * tests/models/check_egress.c - the ordered egress queue
 * (models/pcie/egress.c): a table of ordering cases, and the fast queue
 * against a slow obvious reference on random sequences of push, offer,
 * refuse, pop and ready.
 *
 * The reference is the arrival-ordered scan the switch and the root
 * complex used before: a TLP may be offered if its class is not refused
 * and it may pass every TLP queued before it, O(n^2), with the passing
 * rules egress.c keeps (its header comment has the table). Buffering in
 * the reference: the first `buffer` TLPs in arrival order have released
 * their ingress credits.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "models/pcie/egress.h"
#include "sim/port.h"
#include "sim/sim.h"
#include "sim/tlp.h"
#include "tests/check_p2psim.h"

#define N_STREAMS 3u

static struct sim *sim;

/* A link that only counts releases: queued TLPs "hold" its buffer. */
static unsigned n_released;

static void count_release(struct sim_link *l, unsigned side, struct tlp *t)
{
    n_released++;
}

static const struct sim_link_ops hold_ops = {
    .kind = "test-hold",
    .release = count_release,
};
static struct sim_link hold_link = { .name = "hold", .ops = &hold_ops };

static void setup(void)
{
    sim = sim_create(NULL, NULL);
    ck_assert_ptr_nonnull(sim);
    n_released = 0;
}

static void teardown(void)
{
    sim_destroy(sim);
    sim = NULL;
}

static const enum tlp_kind class_kind[TLP_FC_COUNT] = {
    [TLP_FC_P] = TLP_MWR, [TLP_FC_NP] = TLP_MRD, [TLP_FC_CPL] = TLP_CPLD,
};

/* A TLP of class cls holding hold_link's buffer, as a delivered one does. */
static struct tlp *mk(enum tlp_fc_class cls, uint8_t tc, uint8_t attr)
{
    struct tlp *t = tlp_alloc(sim, class_kind[cls]);
    ck_assert_ptr_nonnull(t);
    t->tc = tc;
    t->attr = attr;
    t->link = &hold_link;
    t->holding = true;
    return t;
}

/* Pop the offered TLP of class cls and free it. */
static void pop_free(struct pcie_egress *q, enum tlp_fc_class cls,
                     struct tlp *t)
{
    pcie_egress_pop(q, cls);
    sim_tlp_release_hold(t);
    tlp_free(t);
}

/* ---- the ordering cases -------------------------------------------------- */

#define P TLP_FC_P
#define NP TLP_FC_NP
#define CPL TLP_FC_CPL
#define RO TLP_ATTR_RO
#define IDO TLP_ATTR_IDO

struct otlp {
    enum tlp_fc_class cls;
    unsigned stream;
    uint8_t tc, attr;
};

/*
 * `first` is pushed, then `second`; the link refuses first's class. Is
 * second offered (it passes), or nothing? One case per line, wider than
 * 80 columns, so the table reads as one (as in check_psw.c).
 */
static const struct order_case {
    const char *name;
    struct otlp first, second;
    bool passes;
} order_cases[] = {
    { "NP waits for P of its stream", { P, 0, 0, 0 }, { NP, 0, 0, 0 }, false },
    { "NP passes P of another port", { P, 0, 0, 0 }, { NP, 1, 0, 0 }, true },
    { "NP passes P of another TC", { P, 0, 0, 0 }, { NP, 0, 1, 0 }, true },
    { "RO NP waits for P", { P, 0, 0, 0 }, { NP, 0, 0, RO }, false },
    { "IDO not exploited: NP waits", { P, 0, 0, 0 }, { NP, 0, 0, IDO }, false },
    { "CPL waits for P of its stream", { P, 0, 0, 0 }, { CPL, 0, 0, 0 }, false },
    { "RO CPL passes P", { P, 0, 0, 0 }, { CPL, 0, 0, RO }, true },
    { "CPL passes P of another port", { P, 0, 0, 0 }, { CPL, 2, 0, 0 }, true },
    { "P never passes P (RO not exploited)", { P, 0, 0, 0 }, { P, 1, 0, RO }, false },
    { "P passes NP", { NP, 0, 0, 0 }, { P, 0, 0, 0 }, true },
    { "CPL passes NP", { NP, 0, 0, 0 }, { CPL, 0, 0, 0 }, true },
    { "NP behind NP stays FIFO", { NP, 0, 0, 0 }, { NP, 1, 1, 0 }, false },
    { "P passes CPL", { CPL, 0, 0, 0 }, { P, 0, 0, 0 }, true },
    { "NP passes CPL", { CPL, 0, 0, 0 }, { NP, 0, 0, 0 }, true },
    { "CPL behind CPL stays FIFO", { CPL, 0, 0, 0 }, { CPL, 1, 0, RO }, false },
};

START_TEST(test_egress_ordering_case_table)
{
    const struct order_case *c = &order_cases[_i];
    struct pcie_egress q;
    ck_assert_int_eq(pcie_egress_init(&q, N_STREAMS, 0), 0);
    struct tlp *a = mk(c->first.cls, c->first.tc, c->first.attr);
    struct tlp *b = mk(c->second.cls, c->second.tc, c->second.attr);
    ck_assert_int_eq(pcie_egress_push(&q, a, c->first.stream), 0);
    ck_assert_int_eq(pcie_egress_push(&q, b, c->second.stream), 0);

    enum tlp_fc_class cls;
    ck_assert_ptr_eq(pcie_egress_next(&q, &cls), a);    /* oldest first */
    ck_assert_int_eq(cls, c->first.cls);
    pcie_egress_refuse(&q, cls);
    struct tlp *got = pcie_egress_next(&q, &cls);
    ck_assert_msg(got == (c->passes ? b : NULL), "%s: %s", c->name,
                  got ? "second offered" : "nothing offered");
    if (got) {
        pop_free(&q, cls, b);
    }
    /* After ready() the first leaves, then (if it waited) the second. */
    pcie_egress_ready(&q);
    ck_assert_ptr_eq(pcie_egress_next(&q, &cls), a);
    pop_free(&q, cls, a);
    if (!c->passes) {
        ck_assert_ptr_eq(pcie_egress_next(&q, &cls), b);
        pop_free(&q, cls, b);
    }
    ck_assert_ptr_null(pcie_egress_next(&q, &cls));
    ck_assert_uint_eq(pcie_egress_count(&q), 0);
    pcie_egress_fini(&q);
}
END_TEST

/* A fenced NP leaves once its P has; a P older than the fence is enough. */
START_TEST(test_egress_fence_lifts_when_p_leaves)
{
    struct pcie_egress q;
    ck_assert_int_eq(pcie_egress_init(&q, N_STREAMS, 0), 0);
    struct tlp *p0 = mk(P, 0, 0), *p1 = mk(P, 1, 0), *rd = mk(NP, 0, 0);
    ck_assert_int_eq(pcie_egress_push(&q, p0, 0), 0);
    ck_assert_int_eq(pcie_egress_push(&q, rd, 0), 0);  /* fence: p0 */
    ck_assert_int_eq(pcie_egress_push(&q, p1, 1), 0);
    enum tlp_fc_class cls;
    ck_assert_ptr_eq(pcie_egress_next(&q, &cls), p0);
    pcie_egress_refuse(&q, cls);
    ck_assert_ptr_null(pcie_egress_next(&q, &cls));
    pcie_egress_ready(&q);
    ck_assert_ptr_eq(pcie_egress_next(&q, &cls), p0);
    pop_free(&q, cls, p0);
    /* p1 is still queued but came from another stream: rd may go, and is
     * older than p1. */
    ck_assert_ptr_eq(pcie_egress_next(&q, &cls), rd);
    ck_assert_int_eq(cls, NP);
    pop_free(&q, cls, rd);
    ck_assert_ptr_eq(pcie_egress_next(&q, &cls), p1);
    pop_free(&q, cls, p1);
    pcie_egress_fini(&q);
}
END_TEST

/* ---- the reference ------------------------------------------------------ */

struct ref_tlp {
    struct tlp *t;
    enum tlp_fc_class cls;
    unsigned stream;
    uint8_t tc, attr;
};

struct ref {
    struct ref_tlp *e;          /* arrival order */
    unsigned n;
    uint8_t refused;
};

/* The rules egress.c keeps, one pair at a time. */
static bool ref_may_pass(const struct ref_tlp *later,
                         const struct ref_tlp *earlier)
{
    bool same = later->stream == earlier->stream && later->tc == earlier->tc;
    if (later->cls == earlier->cls) {
        return false;
    }
    if (earlier->cls != TLP_FC_P) {
        return true;
    }
    if (later->cls == TLP_FC_NP) {
        return !same;
    }
    return !same || (later->attr & TLP_ATTR_RO);
}

static int ref_next(const struct ref *r)
{
    for (unsigned i = 0; i < r->n; i++) {
        if (r->refused & (1u << r->e[i].cls)) {
            continue;
        }
        bool ok = true;
        for (unsigned j = 0; j < i && ok; j++) {
            ok = ref_may_pass(&r->e[i], &r->e[j]);
        }
        if (ok) {
            return (int)i;
        }
    }
    return -1;
}

static void ref_remove(struct ref *r, unsigned i)
{
    memmove(&r->e[i], &r->e[i + 1], (r->n - i - 1) * sizeof(r->e[0]));
    r->n--;
}

/* xorshift64: the test's own deterministic stream. */
static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static const uint32_t buffer_cases[] = { 0, 1, 3, 1000 };

START_TEST(test_egress_matches_reference_on_random_sequences)
{
    uint32_t buffer = buffer_cases[_i % 4];
    uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(_i + 1);
    enum { STEPS = 20000, MAX_Q = 64 };
    struct pcie_egress q;
    struct ref r = { .e = calloc(MAX_Q, sizeof(struct ref_tlp)) };
    ck_assert_ptr_nonnull(r.e);
    ck_assert_int_eq(pcie_egress_init(&q, N_STREAMS, buffer), 0);
    unsigned offered = 0, popped = 0;

    for (unsigned step = 0; step < STEPS; step++) {
        unsigned op = (unsigned)(rng(&seed) % 100);
        if (op < 45 && r.n < MAX_Q) {
            uint64_t x = rng(&seed);
            struct ref_tlp *e = &r.e[r.n];
            e->cls = (enum tlp_fc_class)(x % TLP_FC_COUNT);
            e->stream = (unsigned)((x >> 8) % N_STREAMS);
            e->tc = (uint8_t)((x >> 16) % 2);
            e->attr = (uint8_t)(((x >> 24) % 4 == 0 ? TLP_ATTR_RO : 0) |
                                ((x >> 32) % 8 == 0 ? TLP_ATTR_IDO : 0));
            e->t = mk(e->cls, e->tc, e->attr);
            if (pcie_egress_push(&q, e->t, e->stream) != 0) {
                ck_abort_msg("step %u: push failed", step);
            }
            r.n++;
        } else if (op < 92) {
            enum tlp_fc_class cls = TLP_FC_COUNT;
            struct tlp *t = pcie_egress_next(&q, &cls);
            int i = ref_next(&r);
            /* (ck_abort_msg only on a mismatch: a passing ck_assert costs
             * a message to the runner, too many for this loop) */
            if (t != (i < 0 ? NULL : r.e[i].t)) {
                ck_abort_msg("step %u: offered TLP %llu, reference %llu",
                             step, t ? (unsigned long long)t->id : 0ull,
                             i < 0 ? 0ull : (unsigned long long)r.e[i].t->id);
            }
            if (!t) {
                continue;
            }
            offered++;
            if (cls != r.e[i].cls) {
                ck_abort_msg("step %u: class %d, reference %d", step,
                             (int)cls, (int)r.e[i].cls);
            }
            if (rng(&seed) % 4 == 0) {
                pcie_egress_refuse(&q, cls);
                r.refused |= (uint8_t)(1u << cls);
            } else {
                ref_remove(&r, (unsigned)i);
                pop_free(&q, cls, t);
                popped++;
            }
        } else {
            pcie_egress_ready(&q);
            r.refused = 0;
        }
        /* Same content; the first `buffer` in arrival order released. */
        if (pcie_egress_count(&q) != r.n) {
            ck_abort_msg("step %u: %u TLPs queued, reference %u", step,
                         pcie_egress_count(&q), r.n);
        }
        for (unsigned k = 0; k < r.n; k++) {
            if (r.e[k].t->holding != (k >= buffer)) {
                ck_abort_msg("step %u: TLP at %u of %u %s its credits", step,
                             k, r.n, r.e[k].t->holding ? "holds" : "released");
            }
        }
    }
    /* The sequences exercised both outcomes. */
    ck_assert_uint_gt(offered, STEPS / 10);
    ck_assert_uint_gt(popped, STEPS / 20);
    for (unsigned k = 0; k < r.n; k++) {
        sim_tlp_release_hold(r.e[k].t);
        tlp_free(r.e[k].t);
    }
    pcie_egress_fini(&q);
    free(r.e);
    ck_assert_uint_eq(tlp_pool_live(sim), 0);
}
END_TEST

/* A popped TLP that had released its credits gives its slot to the
 * oldest one still holding; a TLP that passes while holding gives none. */
START_TEST(test_egress_buffer_slot_moves_to_oldest_holder)
{
    struct pcie_egress q;
    ck_assert_int_eq(pcie_egress_init(&q, N_STREAMS, 1), 0);
    struct tlp *rd = mk(NP, 0, 0), *w1 = mk(P, 0, 0), *w2 = mk(P, 0, 0);
    ck_assert_int_eq(pcie_egress_push(&q, rd, 0), 0);
    ck_assert_int_eq(pcie_egress_push(&q, w1, 0), 0);
    ck_assert_int_eq(pcie_egress_push(&q, w2, 0), 0);
    ck_assert(!rd->holding && w1->holding && w2->holding);
    ck_assert_uint_eq(n_released, 1);
    enum tlp_fc_class cls;
    ck_assert_ptr_eq(pcie_egress_next(&q, &cls), rd);
    pcie_egress_refuse(&q, cls);
    ck_assert_ptr_eq(pcie_egress_next(&q, &cls), w1);   /* P passes NP */
    pop_free(&q, cls, w1);
    ck_assert(!rd->holding && w2->holding);
    ck_assert_uint_eq(n_released, 2);                   /* w1's own, sent */
    pcie_egress_ready(&q);
    ck_assert_ptr_eq(pcie_egress_next(&q, &cls), rd);
    pop_free(&q, cls, rd);
    ck_assert(!w2->holding);                            /* took rd's slot */
    ck_assert_uint_eq(n_released, 3);
    ck_assert_ptr_eq(pcie_egress_next(&q, &cls), w2);
    pop_free(&q, cls, w2);
    pcie_egress_fini(&q);
}
END_TEST

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

Suite *make_egress_suite(void)
{
    Suite *s = suite_create("egress");
    TCase *tc = tcase_create("Ordering");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_egress_ordering_case_table, 0,
                        N_OF(order_cases));
    tcase_add_test(tc, test_egress_fence_lifts_when_p_leaves);
    suite_add_tcase(s, tc);

    tc = tcase_create("Reference");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_egress_matches_reference_on_random_sequences,
                        0, 4 * N_OF(buffer_cases));
    tcase_add_test(tc, test_egress_buffer_slot_moves_to_oldest_holder);
    suite_add_tcase(s, tc);
    return s;
}
