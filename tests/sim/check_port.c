/*
 * tests/sim/check_port.c - components, ports, links: delivery times on the
 * ideal wire, and the refuse/ready/release protocol that real link models
 * build credits on, exercised with a one-slot test link.
 */
#include <config.h>

#include <signal.h>
#include <string.h>

#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/tlp.h"
#include "tests/check_p2psim.h"

/* A sink that records arrival times and frees (or keeps) what it gets. */
struct sink {
    sim_time_t at[64];
    uint64_t id[64];
    int n;
    bool keep;                  /* keep TLPs (holding their buffer) */
    struct tlp *kept[64];
};

static void sink_receive(struct sim_component *c, struct sim_port *in,
                         struct tlp *t)
{
    struct sink *s = sim_component_state(c);
    s->at[s->n] = sim_now(c->sim);
    s->id[s->n] = t->id;
    if (s->keep) {
        s->kept[s->n] = t;
    } else {
        tlp_free(t);
    }
    s->n++;
}

/* A source that sends a queue of TLPs, retrying after ready(). */
struct source {
    struct sim_port *out;
    struct tlp *queue[64];
    int head, tail;
    int refusals;
    int readies;
};

static void source_pump(struct sim_component *c)
{
    struct source *s = sim_component_state(c);
    while (s->head < s->tail) {
        int rc = sim_port_send(s->out, s->queue[s->head]);
        if (rc == -SIM_EAGAIN) {
            s->refusals++;
            return;
        }
        ck_assert_int_eq(rc, 0);
        s->head++;
    }
}

static void source_ready(struct sim_component *c, struct sim_port *out)
{
    struct source *s = sim_component_state(c);
    s->readies++;
    source_pump(c);
}

static const struct sim_component_ops sink_ops = {
    .kind = "test-sink",
    .state_size = sizeof(struct sink),
    .receive = sink_receive,
};

static const struct sim_component_ops source_ops = {
    .kind = "test-source",
    .state_size = sizeof(struct source),
    .ready = source_ready,
};

/* A test link with one receive slot per direction and fixed delay 10 ns. */
struct slot_link {
    int in_use[2];              /* per receiving side */
    int released;
};

static void slot_arrive(struct sim *sim, struct sim_event *ev)
{
    struct tlp *t = SIM_CONTAINER_OF(ev, struct tlp, ev);
    sim_link_deliver(t->link, t->link_side, t);
}

static int slot_transmit(struct sim_link *l, unsigned from, struct tlp *t)
{
    struct slot_link *s = sim_link_state(l);
    if (s->in_use[!from]) {
        return -SIM_EAGAIN;
    }
    s->in_use[!from] = 1;
    sim_event_init(&t->ev, slot_arrive);
    sim_event_schedule(l->sim, &t->ev, SIM_NS(10));
    return 0;
}

static void slot_release(struct sim_link *l, unsigned side, struct tlp *t)
{
    struct slot_link *s = sim_link_state(l);
    s->in_use[side] = 0;
    s->released++;
    sim_link_ready(l, !side);
}

static const struct sim_link_ops slot_ops = {
    .kind = "test-slot",
    .state_size = sizeof(struct slot_link),
    .transmit = slot_transmit,
    .release = slot_release,
};

static struct sim *sim;
static struct sim_component *src, *dst;

static void setup(void)
{
    sim = sim_create(NULL, NULL);
    ck_assert_ptr_nonnull(sim);
    src = sim_component_create(sim, &source_ops, "src", NULL);
    dst = sim_component_create(sim, &sink_ops, "dst", NULL);
    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(dst);
    struct source *s = sim_component_state(src);
    s->out = sim_port_add(src, "out", SIM_PORT_DOWNSTREAM);
    ck_assert_ptr_nonnull(sim_port_add(dst, "in", SIM_PORT_UPSTREAM));
}

static void teardown(void)
{
    sim_destroy(sim);
}

static struct tlp *mwr(uint32_t len)
{
    struct tlp *t = tlp_alloc(sim, TLP_MWR);
    t->len_bytes = len;
    t->addr = 0x1000;
    return t;
}

START_TEST(test_port_wire_serialises_and_delays)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct sim_link *l = sim_link_create(sim, &sim_wire_ops, "w", &err);
    ck_assert_ptr_nonnull(l);
    /* 1 GB/s: 1 byte per ns; 100 ns of propagation */
    sim_wire_set(l, SIM_NS(100), UINT64_C(1000000000));
    ck_assert_int_eq(sim_link_connect(l, sim_port_find(src, "out"),
                                      sim_port_find(dst, "in"), &err), 0);
    struct source *s = sim_component_state(src);
    for (int i = 0; i < 3; i++) {
        s->queue[s->tail++] = mwr(52); /* 12 header + 52 = 64 bytes = 64 ns */
    }
    source_pump(src);
    sim_run(sim);
    struct sink *k = sim_component_state(dst);
    ck_assert_int_eq(k->n, 3);
    ck_assert_uint_eq(k->at[0], SIM_NS(64 + 100));
    ck_assert_uint_eq(k->at[1], SIM_NS(128 + 100));
    ck_assert_uint_eq(k->at[2], SIM_NS(192 + 100));
    ck_assert_uint_eq(tlp_pool_live(sim), 0);
}
END_TEST

START_TEST(test_port_wire_configured_from_props)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct sim_link *l = sim_link_create(sim, &sim_wire_ops, "w", &err);
    struct sim_props p;
    sim_props_init(&p, "link 'w'", NULL);
    sim_props_set(&p, "latency", "1.5us", NULL, NULL);
    sim_props_set(&p, "bandwidth", "8Gb/s", NULL, NULL);
    ck_assert_int_eq(sim_link_configure(l, &p, &err), 0);
    ck_assert_int_eq(sim_props_check_unused(&p, &err), 0);
    sim_props_fini(&p);
    sim_link_connect(l, sim_port_find(src, "out"), sim_port_find(dst, "in"),
                     &err);
    struct source *s = sim_component_state(src);
    s->queue[s->tail++] = mwr(988); /* 1000 bytes at 1 GB/s = 1000 ns */
    source_pump(src);
    sim_run(sim);
    struct sink *k = sim_component_state(dst);
    ck_assert_uint_eq(k->at[0], SIM_NS(1000) + SIM_NS(1500));
}
END_TEST

START_TEST(test_port_refusal_ready_and_release)
{
    struct sim_link *l = sim_link_create(sim, &slot_ops, "slot", NULL);
    ck_assert_int_eq(sim_link_connect(l, sim_port_find(src, "out"),
                                      sim_port_find(dst, "in"), NULL), 0);
    struct sink *k = sim_component_state(dst);
    struct source *s = sim_component_state(src);
    k->keep = true; /* the sink holds its buffer until we free the TLP */
    for (int i = 0; i < 3; i++) {
        s->queue[s->tail++] = mwr(4);
    }
    source_pump(src);
    ck_assert_int_eq(s->head, 1);       /* the second was refused */
    ck_assert_int_eq(s->refusals, 1);
    sim_run(sim);
    ck_assert_int_eq(k->n, 1);          /* blocked: the slot is held */
    ck_assert_int_eq(s->head, 1);
    /* freeing the held TLP releases the slot and wakes the source */
    tlp_free(k->kept[0]);
    ck_assert_int_eq(s->readies, 1);
    ck_assert_int_eq(s->head, 2);
    sim_run(sim);
    ck_assert_int_eq(k->n, 2);
    ck_assert_uint_eq(k->at[1], SIM_NS(20));
    /* freeing again releases again; the last one goes through */
    tlp_free(k->kept[1]);
    sim_run(sim);
    ck_assert_int_eq(k->n, 3);
    tlp_free(k->kept[2]);
    struct slot_link *sl = sim_link_state(l);
    ck_assert_int_eq(sl->released, 3);
    ck_assert_uint_eq(tlp_pool_live(sim), 0);
}
END_TEST

START_TEST(test_port_errors)
{
    struct sim_error err;
    sim_error_clear(&err);
    /* duplicate component and port names */
    ck_assert_ptr_null(sim_component_create(sim, &sink_ops, "dst", &err));
    ck_assert_int_eq(err.code, SIM_EEXIST);
    ck_assert_ptr_null(sim_port_add(dst, "in", SIM_PORT_UPSTREAM));
    /* sending on an unconnected port keeps ownership */
    struct tlp *t = mwr(4);
    ck_assert_int_eq(sim_port_send(sim_port_find(src, "out"), t),
                     -SIM_ENOTCONN);
    tlp_free(t);
    /* a port takes one link */
    struct sim_link *a = sim_link_create(sim, &sim_wire_ops, "a", NULL);
    struct sim_link *b = sim_link_create(sim, &sim_wire_ops, "b", NULL);
    ck_assert_int_eq(sim_link_connect(a, sim_port_find(src, "out"),
                                      sim_port_find(dst, "in"), NULL), 0);
    sim_error_clear(&err);
    struct sim_component *x = sim_component_create(sim, &sink_ops, "x", NULL);
    struct sim_port *xp = sim_port_add(x, "in", SIM_PORT_UPSTREAM);
    ck_assert_int_eq(sim_link_connect(b, sim_port_find(src, "out"), xp, &err),
                     -SIM_EBUSY);
    ck_assert(strstr(err.msg, "src.out") != NULL);
    ck_assert_ptr_eq(sim_port_peer(sim_port_find(src, "out")),
                     sim_port_find(dst, "in"));
    ck_assert_ptr_eq(sim_component_find(sim, "x"), x);
    ck_assert_uint_eq(sim_component_count(sim), 3);
}
END_TEST

START_TEST(test_port_send_freed_tlp_is_caught)
{
    struct sim_link *l = sim_link_create(sim, &sim_wire_ops, "w", NULL);
    sim_link_connect(l, sim_port_find(src, "out"), sim_port_find(dst, "in"),
                     NULL);
    struct tlp *t = mwr(4);
    tlp_free(t);
    sim_port_send(sim_port_find(src, "out"), t); /* aborts: use after free */
}
END_TEST

Suite *make_port_suite(void)
{
    Suite *s = suite_create("port");
    TCase *tc = tcase_create("Links");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_port_wire_serialises_and_delays);
    tcase_add_test(tc, test_port_wire_configured_from_props);
    tcase_add_test(tc, test_port_refusal_ready_and_release);
    suite_add_tcase(s, tc);
    tc = tcase_create("Errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_port_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("Aborts");
    tcase_set_tags(tc, "abort");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test_raise_signal(tc, test_port_send_freed_tlp_is_caught,
                                SIGABRT);
    suite_add_tcase(s, tc);
    return s;
}
