/*
 * tests/models/check_pcie_link.c - the PCIe facts table (models/pcie/pcie.c)
 * and the PCIe link model (models/pcie/link.c): streaming rates against the
 * analytic bound, negotiation, credit throttling, full duplex with the DLLP
 * share, property errors, exact arrival times and order, and replay
 * after bit errors (link_replay.c).
 *
 * Every expected figure is computed here from the generation table and the
 * link's documented rules (Ack per ack-every TLPs, DLLPs on the reverse
 * wire), never copied from a run, so a broken mechanism fails a test.
 */
#include <config.h>

#include <string.h>

#include "models/pcie/link.h"
#include "models/pcie/pcie.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/tlp.h"
#include "sim/trace.h"
#include "tests/check_p2psim.h"
#include "tests/models/harness.h"

#define MPS 256u
#define ADDR_HI (UINT64_C(1) << 40) /* above 4 GiB: 4DW headers */

static struct sim *sim;

static void setup(void)
{
    sim = sim_create(NULL, NULL);
    ck_assert_ptr_nonnull(sim);
}

static void teardown(void)
{
    sim_destroy(sim);
}

/* ---- a streaming endpoint -------------------------------------------------
 *
 * It sends n posted writes of len bytes to consecutive addresses, making
 * each TLP only when the link will take one (so 262144 TLPs need no
 * queue), and sinks what arrives, checking the addresses come in order.
 */
struct gen {
    struct sim_port *port;
    uint64_t to_send;           /* TLPs still to send */
    uint32_t len;               /* payload bytes per TLP */
    uint64_t next_addr;         /* address of the next TLP made */
    struct tlp *refused;        /* made, refused, kept for the retry */
    uint64_t sent;
    sim_time_t first_send;
    /* sink */
    uint64_t received;
    uint64_t rx_bytes;
    sim_time_t last_at;
    uint64_t rx_next_addr;      /* expected address of the next arrival */
    bool out_of_order;
};

static struct gen *gen_of(struct sim_component *c)
{
    return sim_component_state(c);
}

static void gen_pump(struct sim_component *c)
{
    struct gen *g = gen_of(c);
    while (g->to_send > 0) {
        struct tlp *t = g->refused;
        if (!t) {
            t = tlp_alloc(c->sim, TLP_MWR);
            t->addr = g->next_addr;
            t->len_bytes = g->len;
            g->next_addr += g->len;
        }
        int rc = sim_port_send(g->port, t);
        if (rc == -SIM_EAGAIN) {
            g->refused = t;
            return;
        }
        ck_assert_int_eq(rc, 0);
        g->refused = NULL;
        if (g->sent++ == 0) {
            g->first_send = sim_now(c->sim);
        }
        g->to_send--;
    }
}

static void gen_ready(struct sim_component *c, struct sim_port *out)
{
    gen_pump(c);
}

static void gen_receive(struct sim_component *c, struct sim_port *in,
                        struct tlp *t)
{
    struct gen *g = gen_of(c);
    if (t->addr != g->rx_next_addr) {
        g->out_of_order = true;
    }
    g->rx_next_addr = t->addr + t->len_bytes;
    g->received++;
    g->rx_bytes += t->len_bytes;
    g->last_at = sim_now(c->sim);
    tlp_free(t);
}

static const struct sim_component_ops gen_ops = {
    .kind = "test-plk-gen",
    .state_size = sizeof(struct gen),
    .receive = gen_receive,
    .ready = gen_ready,
};

/* A streaming endpoint writing from base; it expects arrivals from base. */
static struct sim_component *gen_create(const char *name, uint64_t n,
                                        uint64_t base)
{
    struct sim_component *c = sim_component_create(sim, &gen_ops, name, NULL);
    ck_assert_ptr_nonnull(c);
    struct gen *g = gen_of(c);
    g->port = sim_port_add(c, "p", SIM_PORT_PEER);
    ck_assert_ptr_nonnull(g->port);
    g->to_send = n;
    g->len = MPS;
    g->next_addr = base;
    g->rx_next_addr = base;
    return c;
}

/* ---- helpers ----------------------------------------------------------- */

/*
 * A pcie-link "l0" from a (side 0) to b (side 1), configured from kv (a
 * NULL-terminated key, value list), with optional end caps.
 */
static struct sim_link *plk_join(struct sim_component *a,
                                 struct sim_component *b,
                                 const char *const *kv,
                                 const struct pcie_end_caps *ca,
                                 const struct pcie_end_caps *cb)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct sim_link *l = sim_link_create(sim, &pcie_link_ops, "l0", &err);
    ck_assert_ptr_nonnull(l);
    struct sim_props p;
    sim_props_init(&p, "link 'l0'", NULL);
    for (int i = 0; kv && kv[i]; i += 2) {
        ck_assert_int_eq(sim_props_set(&p, kv[i], kv[i + 1], NULL, NULL), 0);
    }
    ck_assert_int_eq(sim_link_configure(l, &p, &err), 0);
    sim_props_fini(&p);
    if (ca) {
        pcie_link_set_end(l, 0, ca);
    }
    if (cb) {
        pcie_link_set_end(l, 1, cb);
    }
    ck_assert_int_eq(sim_link_connect(l, sim_port_find(a, "p"),
                                      sim_port_find(b, "p"), &err), 0);
    return l;
}

/* Picoseconds to serialise bytes at gen x width, rounded up, from the table. */
static sim_time_t ser_ps(unsigned gen, unsigned width, uint64_t bytes)
{
    const struct pcie_gen_info *g = pcie_gen_info(gen);
    __uint128_t num = (__uint128_t)bytes * 8 * g->enc_den * 1000000u;
    __uint128_t den = (__uint128_t)g->enc_num * g->mts_per_lane * width;
    return (sim_time_t)((num + den - 1) / den);
}

/* Line rate after encoding, bytes/s, from the table (not from pcie.c). */
static double line_rate(unsigned gen, unsigned width)
{
    const struct pcie_gen_info *g = pcie_gen_info(gen);
    return (double)g->mts_per_lane * 1e6 * width / 8.0 * g->enc_num /
           g->enc_den;
}

/* Wire bytes of one 4DW MWr of MPS bytes, from the reference §2.2 rules. */
static unsigned mwr_wire_bytes(unsigned gen)
{
    return 16 + MPS + pcie_gen_info(gen)->framing_bytes;
}

/*
 * The rate a wire carrying TLPs of tlp_bytes plus dllp_bytes of DLLPs per
 * TLP achieves, in payload bytes/s.
 */
static double expected_rate(unsigned gen, unsigned width, double tlp_bytes,
                            double dllp_bytes)
{
    return line_rate(gen, width) * MPS / (tlp_bytes + dllp_bytes);
}

static double rate_of(const struct gen *rx, const struct gen *tx)
{
    return (double)rx->rx_bytes /
           sim_time_to_s(rx->last_at - tx->first_send);
}

static bool near(double got, double want, double tol)
{
    return got >= want * (1 - tol) && got <= want * (1 + tol);
}

/* ---- the facts table --------------------------------------------------- */

START_TEST(test_pcie_gen_table_rates)
{
    ck_assert_ptr_null(pcie_gen_info(0));
    ck_assert_ptr_null(pcie_gen_info(7));
    ck_assert_uint_eq(pcie_link_bytes_per_s(1, 1), 250000000u);
    ck_assert_uint_eq(pcie_link_bytes_per_s(2, 16), 8000000000u);
    ck_assert_uint_eq(pcie_link_bytes_per_s(3, 16), 15753846153u);
    ck_assert_uint_eq(pcie_link_bytes_per_s(4, 16), 31507692307u);
    ck_assert_uint_eq(pcie_link_bytes_per_s(5, 16), 63015384615u);
    ck_assert_uint_eq(pcie_link_bytes_per_s(6, 16), 121000000000u);
    ck_assert_uint_eq(pcie_link_bytes_per_s(7, 16), 0);
    ck_assert_int_eq(pcie_gen_info(6)->enc, PCIE_ENC_FLIT);
    ck_assert_uint_eq(pcie_gen_info(6)->framing_bytes, 0);
    ck_assert_uint_eq(pcie_gen_info(3)->framing_bytes, 8);
    /* reference §2.11: MPS 256, 4DW: Gen5 57.6 GB/s, Gen4 28.8, Gen3 14.4 */
    ck_assert(near(pcie_write_bound(5, 16, 256, true), 57.6e9, 0.001));
    ck_assert(near(pcie_write_bound(4, 16, 256, true), 28.8e9, 0.001));
    ck_assert(near(pcie_write_bound(3, 16, 256, true), 14.4e9, 0.001));
    ck_assert(pcie_write_bound(5, 16, 256, false) >
              pcie_write_bound(5, 16, 256, true));
}
END_TEST

START_TEST(test_pcie_tlp_wire_bytes_and_credits)
{
    struct tlp *t = th_mwr(sim, ADDR_HI, 256, false);
    ck_assert_uint_eq(pcie_tlp_wire_bytes(5, t), 16 + 256 + 8);
    ck_assert_uint_eq(pcie_tlp_wire_bytes(1, t), 16 + 256 + 8);
    ck_assert_uint_eq(pcie_tlp_wire_bytes(6, t), 16 + 256); /* flit mode */
    ck_assert_uint_eq(pcie_tlp_data_credits(t), 16);
    t->has_ecrc = true;
    ck_assert_uint_eq(pcie_tlp_wire_bytes(5, t), 16 + 256 + 4 + 8);
    t->has_ecrc = false;
    t->addr = 0x1000; /* below 4 GiB: 3DW */
    ck_assert_uint_eq(pcie_tlp_wire_bytes(4, t), 12 + 256 + 8);
    t->addr = 0x1003; /* one byte at offset 3 is one DW; 8 at 3 are 3 DW */
    t->len_bytes = 1;
    ck_assert_uint_eq(pcie_tlp_wire_bytes(4, t), 12 + 4 + 8);
    ck_assert_uint_eq(pcie_tlp_data_credits(t), 1);
    t->len_bytes = 8;
    ck_assert_uint_eq(pcie_tlp_wire_bytes(4, t), 12 + 12 + 8);
    tlp_free(t);
    struct tlp *r = th_mrd(sim, ADDR_HI, 512, 1);
    ck_assert_uint_eq(pcie_tlp_wire_bytes(5, r), 16 + 8); /* no payload */
    ck_assert_uint_eq(pcie_tlp_data_credits(r), 0);
    struct tlp *c = tlp_new_completion(sim, r, TLP_CPL_SC, 64);
    ck_assert_uint_eq(pcie_tlp_wire_bytes(5, c), 12 + 64 + 8);
    ck_assert_uint_eq(pcie_tlp_data_credits(c), 4);
    tlp_free(c);
    tlp_free(r);
}
END_TEST

START_TEST(test_pcie_widths_and_sizes)
{
    static const unsigned good_w[] = { 1, 2, 4, 8, 16 };
    static const unsigned bad_w[] = { 0, 3, 5, 12, 32, 61 };
    for (unsigned i = 0; i < sizeof(good_w) / sizeof(good_w[0]); i++) {
        ck_assert(pcie_width_is_valid(good_w[i]));
    }
    for (unsigned i = 0; i < sizeof(bad_w) / sizeof(bad_w[0]); i++) {
        ck_assert(!pcie_width_is_valid(bad_w[i]));
    }
    for (unsigned n = 0; n <= 5; n++) {
        ck_assert(pcie_size_is_valid(128u << n));
    }
    ck_assert(!pcie_size_is_valid(0));
    ck_assert(!pcie_size_is_valid(64));
    ck_assert(!pcie_size_is_valid(384));
    ck_assert(!pcie_size_is_valid(8192));
}
END_TEST

START_TEST(test_pcie_route_helpers)
{
    struct pcie_route r[3];
    memset(r, 0, sizeof(r));
    /* unprogrammed routes claim nothing, not even bus 0 */
    ck_assert(!pcie_route_claims_bus(&r[0], 0));
    ck_assert_int_eq(pcie_route_find_bus(r, 3, 0, -1), -1);
    r[1].valid = true;
    r[1].bus_sec = 2;
    r[1].bus_sub = 4;
    ck_assert_int_eq(pcie_route_add_window(&r[1], 0x1000, 0x1fff), 0);
    r[2].valid = true;
    r[2].bus_sec = 5;
    r[2].bus_sub = 5;
    ck_assert_int_eq(pcie_route_add_window(&r[2], 0x2000, 0x2fff), 0);
    ck_assert_int_eq(pcie_route_find_addr(r, 3, 0x1000, -1), 1);
    ck_assert_int_eq(pcie_route_find_addr(r, 3, 0x1fff, -1), 1);
    ck_assert_int_eq(pcie_route_find_addr(r, 3, 0x2000, -1), 2);
    ck_assert_int_eq(pcie_route_find_addr(r, 3, 0x3000, -1), -1);
    ck_assert_int_eq(pcie_route_find_addr(r, 3, 0x1800, 1), -1); /* except */
    ck_assert_int_eq(pcie_route_find_bus(r, 3, 4, -1), 1);
    ck_assert_int_eq(pcie_route_find_bus(r, 3, 5, -1), 2);
    ck_assert_int_eq(pcie_route_find_bus(r, 3, 6, -1), -1);
    r[2].bus_sec = 7; /* empty range: bus_sec > bus_sub */
    ck_assert_int_eq(pcie_route_find_bus(r, 3, 5, -1), -1);
    for (int i = 1; i < PCIE_MAX_WINDOWS; i++) {
        ck_assert_int_eq(pcie_route_add_window(&r[0], i * 0x10000u,
                                               i * 0x10000u + 0xff), 0);
    }
    ck_assert_int_eq(pcie_route_add_window(&r[0], 0, 0xff), 0);
    ck_assert_int_eq(pcie_route_add_window(&r[0], 0x900000, 0x9000ff),
                     -SIM_ERANGE);
    ck_assert_int_eq(pcie_route_add_window(&r[1], 0x2000, 0x1000),
                     -SIM_EINVAL);
}
END_TEST

/* ---- (a) throughput ---------------------------------------------------- */

static const unsigned stream_gens[] = { 3, 4, 5 };

/*
 * 64 MB of 256-byte posted writes, 4DW headers, with finite credits and
 * 20 ns of latency. The data wire carries only TLPs (the Acks and
 * UpdateFCs for them travel on the reverse wire), so its DLLP share is 0
 * and the stream meets the analytic bound; the reverse wire must carry
 * one Ack per ack-every TLPs plus some UpdateFCs.
 */
START_TEST(test_pcie_link_stream_meets_write_bound)
{
    enum { N = 262144 };
    const unsigned gen = stream_gens[_i];
    const unsigned ack_every = 4;
    const sim_time_t lat = SIM_NS(20);
    struct sim_component *a = gen_create("a", N, ADDR_HI);
    struct sim_component *b = gen_create("b", 0, ADDR_HI);
    struct pcie_end_caps rx = { .max_gen = 6, .max_width = 16 };
    rx.cred_hdr[TLP_FC_P] = 32;
    rx.cred_data[TLP_FC_P] = 32 * MPS / 16;
    char g[2] = { (char)('0' + gen), 0 };
    const char *const kv[] = { "gen", g, "width", "x16", "latency", "20ns",
                               "ack-every", "4", NULL };
    struct sim_link *l = plk_join(a, b, kv, NULL, &rx);
    gen_pump(a);
    sim_run(sim);
    struct gen *ga = gen_of(a), *gb = gen_of(b);
    ck_assert_uint_eq(gb->received, N);
    ck_assert(!gb->out_of_order);
    unsigned wire = mwr_wire_bytes(gen);
    double bound = line_rate(gen, 16) * MPS / wire;
    double dllp_share = 0.0; /* DLLP bytes per TLP on the data wire */
    double want = expected_rate(gen, 16, wire, dllp_share);
    double got = rate_of(gb, ga);
    ck_assert(near(bound, pcie_write_bound(gen, 16, MPS, true), 1e-9));
    ck_assert_msg(near(got, want, 0.01), "Gen%u: %.4f GB/s, bound %.4f",
                  gen, got / 1e9, want / 1e9);
    /* exact: one busy period, rounded once */
    ck_assert_uint_eq(gb->last_at - ga->first_send,
                      ser_ps(gen, 16, (uint64_t)N * wire) + lat);
    struct pcie_link_counters cnt;
    pcie_link_get_counters(l, &cnt);
    ck_assert_uint_eq(cnt.tlps[0], N);
    ck_assert_uint_eq(cnt.wire_bytes[0], (uint64_t)N * wire);
    ck_assert_uint_eq(cnt.dllp_bytes[0], 0);
    ck_assert_uint_eq(cnt.credit_stalls[0], 0);
    uint64_t acks = N / ack_every;
    ck_assert_uint_gt(cnt.dllp_bytes[1], acks * PCIE_DLLP_BYTES);
    ck_assert_uint_le(cnt.dllp_bytes[1], (acks + N) * PCIE_DLLP_BYTES);
    ck_assert_uint_eq(cnt.busy_ps[0], gb->last_at - lat);
    if (gen == 5) {
        ck_assert(got > 57.0e9 && got < 57.7e9);
    }
    ck_assert_uint_eq(tlp_pool_live(sim), 0);
}
END_TEST

/* ---- (b) negotiation --------------------------------------------------- */

START_TEST(test_pcie_link_negotiates_minimum)
{
    struct sim_component *a = th_ep_create(sim, "a");
    struct sim_component *b = th_ep_create(sim, "b");
    struct pcie_end_caps x8g4 = { .max_gen = 4, .max_width = 8 };
    struct pcie_end_caps x16g5 = { .max_gen = 5, .max_width = 16 };
    struct sim_link *l = plk_join(a, b, NULL, &x8g4, &x16g5);
    ck_assert_uint_eq(pcie_link_gen(l), 4);
    ck_assert_uint_eq(pcie_link_width(l), 8);
    ck_assert_uint_eq(pcie_link_rate(l), pcie_link_bytes_per_s(4, 8));
    /* the timing follows: one 256-byte write at Gen4 x8 */
    th_ep_send(a, th_mwr(sim, ADDR_HI, MPS, false));
    sim_run(sim);
    ck_assert_uint_eq(th_ep(b)->rec[0].at, ser_ps(4, 8, mwr_wire_bytes(4)));
}
END_TEST

START_TEST(test_pcie_link_negotiation_properties_cap)
{
    struct sim_component *a = th_ep_create(sim, "a");
    struct sim_component *b = th_ep_create(sim, "b");
    static const char *const kv[] = { "gen", "3", "width", "4", NULL };
    struct pcie_end_caps g5 = { .max_gen = 5, .max_width = 16 };
    struct sim_link *l = plk_join(a, b, kv, &g5, NULL);
    ck_assert_uint_eq(pcie_link_gen(l), 3);
    ck_assert_uint_eq(pcie_link_width(l), 4);
    /* caps set after connecting retrain; x12 trains as x8 */
    struct pcie_end_caps x12 = { .max_gen = 2, .max_width = 12 };
    static const char *const wide[] = { "gen", "6", "width", "x16", NULL };
    struct sim_props p;
    struct sim_error err;
    sim_error_clear(&err);
    sim_props_init(&p, "link 'l0'", NULL);
    for (int i = 0; wide[i]; i += 2) {
        sim_props_set(&p, wide[i], wide[i + 1], NULL, NULL);
    }
    ck_assert_int_eq(sim_link_configure(l, &p, &err), 0);
    sim_props_fini(&p);
    ck_assert_uint_eq(pcie_link_gen(l), 5);
    ck_assert_uint_eq(pcie_link_width(l), 16);
    pcie_link_set_end(l, 1, &x12);
    ck_assert_uint_eq(pcie_link_gen(l), 2);
    ck_assert_uint_eq(pcie_link_width(l), 8);
}
END_TEST

START_TEST(test_pcie_link_defaults_without_caps)
{
    struct sim_component *a = th_ep_create(sim, "a");
    struct sim_component *b = th_ep_create(sim, "b");
    struct sim_link *l = plk_join(a, b, NULL, NULL, NULL);
    ck_assert_uint_eq(pcie_link_gen(l), 6);
    ck_assert_uint_eq(pcie_link_width(l), 16);
}
END_TEST

/* ---- (c) credits ------------------------------------------------------- */

/*
 * Two posted header credits and 1 us each way: the sender gets two TLPs
 * per credit round trip (TLP serialisation + latency + UpdateFC
 * serialisation + latency), far below the line rate.
 */
START_TEST(test_pcie_link_credits_throttle_to_round_trip)
{
    enum { N = 2000, CRED = 2 };
    const sim_time_t lat = SIM_US(1);
    struct sim_component *a = gen_create("a", N, ADDR_HI);
    struct sim_component *b = gen_create("b", 0, ADDR_HI);
    struct pcie_end_caps rx = { .max_gen = 5, .max_width = 16 };
    rx.cred_hdr[TLP_FC_P] = CRED;
    static const char *const kv[] = { "latency", "1us", NULL };
    struct sim_link *l = plk_join(a, b, kv, NULL, &rx);
    gen_pump(a);
    sim_run(sim);
    struct gen *ga = gen_of(a), *gb = gen_of(b);
    ck_assert_uint_eq(gb->received, N);
    ck_assert(!gb->out_of_order);
    sim_time_t rtt = ser_ps(5, 16, mwr_wire_bytes(5)) + lat +
                     ser_ps(5, 16, PCIE_DLLP_BYTES) + lat;
    double want = (double)CRED * MPS / sim_time_to_s(rtt);
    double got = rate_of(gb, ga);
    ck_assert_msg(near(got, want, 0.05), "%.4f GB/s, credit bound %.4f",
                  got / 1e9, want / 1e9);
    ck_assert(got < 0.01 * pcie_write_bound(5, 16, MPS, true));
    struct pcie_link_counters cnt;
    pcie_link_get_counters(l, &cnt);
    ck_assert_uint_gt(cnt.credit_stalls[0], N / CRED / 2);
    ck_assert_uint_eq(cnt.credit_stalls[1], 0);
}
END_TEST

/* The receive buffer is held until the receiver frees the TLP. */
struct keeper {
    struct sim_port *port;
    struct tlp *kept[8];
    int n;
};

static void keeper_receive(struct sim_component *c, struct sim_port *in,
                           struct tlp *t)
{
    struct keeper *k = sim_component_state(c);
    ck_assert_int_lt(k->n, 8);
    k->kept[k->n++] = t;
}

static const struct sim_component_ops keeper_ops = {
    .kind = "test-plk-keeper",
    .state_size = sizeof(struct keeper),
    .receive = keeper_receive,
};

static void stall_sink(void *ctx, const struct sim_trace_record *r)
{
    int *n = ctx;
    ck_assert_int_eq(r->point, SIM_TP_CREDIT_STALL);
    ck_assert_uint_eq(r->a, TLP_FC_P);
    (*n)++;
}

START_TEST(test_pcie_link_credits_return_on_release)
{
    struct sim_component *a = th_ep_create(sim, "a");
    struct sim_component *b = sim_component_create(sim, &keeper_ops, "b",
                                                   NULL);
    struct keeper *k = sim_component_state(b);
    k->port = sim_port_add(b, "p", SIM_PORT_PEER);
    struct pcie_end_caps rx = { .max_gen = 3, .max_width = 1 };
    rx.cred_hdr[TLP_FC_P] = 2;
    rx.cred_data[TLP_FC_P] = 2 * MPS / 16;
    static const char *const kv[] = { "latency", "100ns", NULL };
    struct sim_link *l = plk_join(a, b, kv, NULL, &rx);
    int stalls = 0;
    ck_assert_int_eq(sim_trace_subscribe(sim, stall_sink, &stalls,
                                         SIM_TRACE_BIT(SIM_TP_CREDIT_STALL)),
                     0);
    for (int i = 0; i < 3; i++) {
        th_ep_send(a, th_mwr(sim, ADDR_HI + i * MPS, MPS, false));
    }
    sim_run(sim);
    ck_assert_int_eq(k->n, 2); /* the third waits for a credit */
    ck_assert_int_eq(stalls, 1);
    sim_time_t t_free = sim_now(sim) + SIM_NS(500);
    sim_run_until(sim, t_free);
    tlp_free(k->kept[0]);
    sim_run(sim);
    ck_assert_int_eq(k->n, 3);
    /* UpdateFC (8 B) + latency back, then the TLP (280 B) + latency */
    sim_time_t want = t_free + ser_ps(3, 1, PCIE_DLLP_BYTES) + SIM_NS(100) +
                      ser_ps(3, 1, mwr_wire_bytes(3)) + SIM_NS(100);
    ck_assert_uint_eq(sim_now(sim), want);
    struct pcie_link_counters cnt;
    pcie_link_get_counters(l, &cnt);
    ck_assert_uint_eq(cnt.dllp_bytes[1], PCIE_DLLP_BYTES);
    ck_assert_uint_eq(cnt.credit_stalls[0], 1);
    tlp_free(k->kept[1]);
    tlp_free(k->kept[2]);
}
END_TEST

/* A TLP bigger than all the data credits advertised can never pass. */
START_TEST(test_pcie_link_refuses_tlp_beyond_advertised_credits)
{
    struct sim_component *a = th_ep_create(sim, "a");
    struct sim_component *b = th_ep_create(sim, "b");
    struct pcie_end_caps rx = { .max_gen = 5, .max_width = 16 };
    rx.cred_data[TLP_FC_P] = 128 / 16;
    plk_join(a, b, NULL, NULL, &rx);
    sim_set_log_level(sim, -1); /* the error log is expected */
    struct tlp *t = th_mwr(sim, ADDR_HI, MPS, false);
    ck_assert_int_eq(sim_port_send(th_ep(a)->port, t), -SIM_ERANGE);
    t->len_bytes = 128;
    ck_assert_int_eq(sim_port_send(th_ep(a)->port, t), 0);
    sim_run(sim);
    ck_assert_uint_eq(th_ep(b)->n_received, 1);
}
END_TEST

/* ---- (d) full duplex --------------------------------------------------- */

/*
 * Streams both ways with infinite credits: each wire carries its own TLPs
 * plus one Ack per ack-every TLPs of the other direction, so each
 * direction gets the one-direction rate less exactly that share.
 */
static void duplex_run(struct sim_component **a, struct sim_component **b,
                       const char *const *kv,
                       const struct pcie_end_caps *caps, uint64_t n)
{
    *a = gen_create("a", n, ADDR_HI);
    *b = gen_create("b", n, ADDR_HI);
    plk_join(*a, *b, kv, caps, caps);
    gen_pump(*a);
    gen_pump(*b);
    sim_run(sim);
    ck_assert_uint_eq(gen_of(*a)->received, n);
    ck_assert_uint_eq(gen_of(*b)->received, n);
    ck_assert(!gen_of(*a)->out_of_order && !gen_of(*b)->out_of_order);
}

START_TEST(test_pcie_link_full_duplex_both_ways)
{
    enum { N = 65536 };
    const unsigned ack_every = 4;
    static const char *const kv[] = { "gen", "5", "ack-every", "4", NULL };
    struct sim_component *a, *b;
    duplex_run(&a, &b, kv, NULL, N);
    unsigned wire = mwr_wire_bytes(5);
    double one_way = expected_rate(5, 16, wire, 0.0);
    double share = (double)PCIE_DLLP_BYTES / ack_every;
    double want = expected_rate(5, 16, wire, share);
    double got[2] = { rate_of(gen_of(b), gen_of(a)),
                      rate_of(gen_of(a), gen_of(b)) };
    for (int s = 0; s < 2; s++) {
        ck_assert_msg(near(got[s], one_way * wire / (wire + share), 0.02),
                      "side %d: %.4f GB/s vs %.4f", s, got[s] / 1e9,
                      one_way / 1e9);
        ck_assert_msg(near(got[s], want, 0.001), "side %d: %.4f GB/s vs %.4f",
                      s, got[s] / 1e9, want / 1e9);
        /* the Acks really cost: more than half their share below one-way */
        ck_assert(got[s] < one_way * (1 - 0.5 * share / wire));
    }
}
END_TEST

/*
 * With finite credits UpdateFCs join the Acks: each direction must lose
 * more than the Ack share, and no more than one UpdateFC per TLP.
 */
START_TEST(test_pcie_link_full_duplex_with_updatefc)
{
    enum { N = 65536 };
    static const char *const kv[] = { "gen", "5", "ack-every", "4",
                                      "latency", "20ns", NULL };
    struct pcie_end_caps caps = { .max_gen = 5, .max_width = 16 };
    caps.cred_hdr[TLP_FC_P] = 32;
    caps.cred_data[TLP_FC_P] = 32 * MPS / 16;
    struct sim_component *a, *b;
    duplex_run(&a, &b, kv, &caps, N);
    unsigned wire = mwr_wire_bytes(5);
    double ack_share = PCIE_DLLP_BYTES / 4.0;
    double hi = expected_rate(5, 16, wire, ack_share);
    double lo = expected_rate(5, 16, wire, ack_share + PCIE_DLLP_BYTES);
    double got = rate_of(gen_of(b), gen_of(a));
    ck_assert_msg(got < hi * (1 - 1e-4) && got > lo * (1 - 1e-3),
                  "%.4f GB/s not in (%.4f, %.4f)", got / 1e9, lo / 1e9,
                  hi / 1e9);
    struct pcie_link_counters cnt;
    pcie_link_get_counters(sim_link_find(sim, "l0"), &cnt);
    for (int s = 0; s < 2; s++) {
        ck_assert_uint_gt(cnt.dllp_bytes[s], (N / 4) * PCIE_DLLP_BYTES);
        ck_assert_uint_le(cnt.dllp_bytes[s], (N / 4 + N) * PCIE_DLLP_BYTES);
        ck_assert_uint_eq(cnt.credit_stalls[s], 0);
    }
}
END_TEST

/* ---- (e) errors -------------------------------------------------------- */

struct bad_prop {
    const char *key, *value;
    const char *says;           /* the message must contain this */
};

static const struct bad_prop bad_props[] = {
    { "gen", "7", "7" },
    { "gen", "0", "0" },
    { "gen", "Gen5", "Gen5" },
    { "width", "x3", "x3" },
    { "width", "16GT/s", "16GT/s" },
    { "width", "x", "'x'" },
    { "width", "32", "32" },
    { "latency", "5", "latency" },
    { "ecrc", "maybe", "maybe" },
    { "ack-every", "0", "ack-every" },
    { "ack-every", "65", "65" },
};

START_TEST(test_pcie_link_bad_props_name_the_value)
{
    const struct bad_prop *bp = &bad_props[_i];
    struct sim_error err;
    sim_error_clear(&err);
    struct sim_link *l = sim_link_create(sim, &pcie_link_ops, "l0", &err);
    struct sim_props p;
    struct sim_mark at = { "machine.yaml", 12, 9 };
    sim_props_init(&p, "link 'l0'", NULL);
    sim_props_set(&p, bp->key, bp->value, &at, NULL);
    int rc = sim_link_configure(l, &p, &err);
    sim_props_fini(&p);
    ck_assert_int_lt(rc, 0);
    ck_assert_msg(strstr(err.msg, bp->says) != NULL, "'%s' lacks '%s'",
                  err.msg, bp->says);
    ck_assert_msg(strstr(err.msg, "l0") != NULL, "'%s' lacks the link",
                  err.msg);
    ck_assert_uint_eq(err.line, 12);
    ck_assert_uint_eq(err.column, 9);
}
END_TEST

START_TEST(test_pcie_link_good_props_accepted)
{
    static const char *const kv[] = { "gen", "4", "width", "16", "latency",
                                      "1.5ns", "ecrc", "true", "ack-every",
                                      "64", NULL };
    struct sim_component *a = th_ep_create(sim, "a");
    struct sim_component *b = th_ep_create(sim, "b");
    struct sim_link *l = plk_join(a, b, kv, NULL, NULL);
    ck_assert_uint_eq(pcie_link_gen(l), 4);
    ck_assert_uint_eq(pcie_link_width(l), 16);
    /* ecrc: 4 more bytes on the wire */
    th_ep_send(a, th_mwr(sim, ADDR_HI, 64, false));
    sim_run(sim);
    ck_assert_uint_eq(th_ep(b)->rec[0].at,
                      ser_ps(4, 16, 16 + 64 + 4 + 8) + 1500);
}
END_TEST

/* ---- (f) timing and order ---------------------------------------------- */

struct one_tlp {
    unsigned gen, width;
    const char *gen_s, *width_s;
    uint32_t len;
};

static const struct one_tlp one_tlps[] = {
    { 1, 1, "1", "x1", 64 },     /* 88 B x 10 bits / 2.5 Gb/s = 352 ns */
    { 3, 4, "3", "x4", 64 },     /* 22.34375 ns, rounded up to 22344 ps */
    { 5, 16, "5", "16", 256 },
    { 6, 8, "6", "x8", 128 },    /* flit mode: no framing */
};

START_TEST(test_pcie_link_single_tlp_exact_arrival)
{
    const struct one_tlp *o = &one_tlps[_i];
    struct sim_component *a = th_ep_create(sim, "a");
    struct sim_component *b = th_ep_create(sim, "b");
    const char *kv[] = { "gen", o->gen_s, "width", o->width_s, "latency",
                         "100ns", NULL };
    plk_join(a, b, kv, NULL, NULL);
    sim_run_until(sim, SIM_NS(7)); /* not from time 0 */
    th_ep_send(a, th_mwr(sim, ADDR_HI, o->len, false));
    sim_run(sim);
    uint32_t wire = 16 + o->len + pcie_gen_info(o->gen)->framing_bytes;
    ck_assert_uint_eq(th_ep(b)->n_rec, 1);
    ck_assert_uint_eq(th_ep(b)->rec[0].at,
                      SIM_NS(7) + ser_ps(o->gen, o->width, wire) + SIM_NS(100));
    if (o->gen == 1) {
        ck_assert_uint_eq(th_ep(b)->rec[0].at, SIM_NS(7 + 352 + 100));
    }
}
END_TEST

/* Mixed sizes and kinds arrive in order, each at its cumulative byte time. */
START_TEST(test_pcie_link_fifo_order_and_times)
{
    enum { N = 200 };
    struct sim_component *a = th_ep_create(sim, "a");
    struct sim_component *b = th_ep_create(sim, "b");
    static const char *const kv[] = { "gen", "3", "width", "x8", "latency",
                                      "50ns", NULL };
    plk_join(a, b, kv, NULL, NULL);
    uint64_t ids[N], bytes = 0;
    sim_time_t want[N];
    for (int i = 0; i < N; i++) {
        uint32_t len = (uint32_t)(4 << (i % 8)); /* 4 .. 512 */
        struct tlp *t = (i % 3 == 2) ? th_mrd(sim, 0x1000 + i * 64, len, i)
                                     : th_mwr(sim, ADDR_HI + i * 4096, len,
                                              false);
        bytes += pcie_tlp_wire_bytes(3, t);
        want[i] = ser_ps(3, 8, bytes) + SIM_NS(50);
        ids[i] = t->id;
        th_ep_send(a, t);
    }
    sim_run(sim);
    struct th_ep *eb = th_ep(b);
    ck_assert_uint_eq(eb->n_rec, N);
    for (int i = 0; i < N; i++) {
        ck_assert_uint_eq(eb->rec[i].id, ids[i]);
        ck_assert_uint_eq(eb->rec[i].at, want[i]);
        ck_assert_uint_eq(eb->rec[i].hops, 1);
    }
    ck_assert_uint_gt(th_ep(a)->refusals, 0); /* the backlog bound held */
}
END_TEST

/* ---- report ------------------------------------------------------------ */

START_TEST(test_pcie_link_report_counters)
{
    struct sim_component *a = th_ep_create(sim, "a");
    struct sim_component *b = th_ep_create(sim, "b");
    static const char *const kv[] = { "gen", "4", "ack-every", "2", NULL };
    struct sim_link *l = plk_join(a, b, kv, NULL, NULL);
    for (int i = 0; i < 5; i++) {
        th_ep_send(a, th_mwr(sim, ADDR_HI, 128, false));
    }
    sim_run(sim);
    struct sim_stats *st = sim_stats_create();
    l->ops->report(l, st);
    uint64_t v = 0;
    ck_assert(sim_stats_get(st, "l0.0.tlps", &v));
    ck_assert_uint_eq(v, 5);
    ck_assert(sim_stats_get(st, "l0.0.payload_bytes", &v));
    ck_assert_uint_eq(v, 5 * 128);
    ck_assert(sim_stats_get(st, "l0.0.wire_bytes", &v));
    ck_assert_uint_eq(v, 5 * (16 + 128 + 8));
    ck_assert(sim_stats_get(st, "l0.1.dllp_bytes", &v));
    ck_assert_uint_eq(v, 2 * PCIE_DLLP_BYTES); /* Acks after TLP 2 and 4 */
    ck_assert(sim_stats_get(st, "l0.0.busy_ps", &v));
    ck_assert_uint_eq(v, ser_ps(4, 16, 5 * (16 + 128 + 8)));
    ck_assert(sim_stats_get(st, "l0.1.credit_stalls", &v));
    ck_assert_uint_eq(v, 0);
    sim_stats_destroy(st);
}
END_TEST

/* ---- (g) bit errors and replay ------------------------------------------ */

struct ber_run {
    struct pcie_link_counters cnt;
    uint64_t received;
    bool out_of_order;
    sim_time_t last_at;
};

/* n posted writes from a to b over a Gen4 x16 link with the given ber. */
static struct ber_run ber_stream(uint64_t n, const char *ber)
{
    struct sim_component *a = gen_create("a", n, ADDR_HI);
    struct sim_component *b = gen_create("b", 0, ADDR_HI);
    const char *const kv[] = { "gen", "4", "width", "x16", "latency", "20ns",
                               "ber", ber, NULL };
    struct sim_link *l = plk_join(a, b, kv, NULL, NULL);
    gen_pump(a);
    sim_run(sim);
    struct ber_run r = { .received = gen_of(b)->received,
                         .out_of_order = gen_of(b)->out_of_order,
                         .last_at = gen_of(b)->last_at };
    pcie_link_get_counters(l, &r.cnt);
    return r;
}

/*
 * With a bit error rate, every TLP still arrives, once and in order; a
 * TLP is hit with probability about bits x ber, and each hit costs one
 * replay that resends at least the bad TLP. The same seed gives the same
 * run, to the picosecond (the errors come from the simulation's RNG,
 * sim_rng_geometric).
 */
START_TEST(test_pcie_link_ber_replays_and_delivers_in_order)
{
    enum { N = 20000 };
    struct ber_run r1 = ber_stream(N, "1e-6");
    ck_assert_uint_eq(r1.received, N);
    ck_assert(!r1.out_of_order);
    double bits = 8.0 * mwr_wire_bytes(4);
    double want = N * bits * 1e-6;  /* about 44 bad TLPs */
    ck_assert_msg(r1.cnt.replays[0] > want / 2 && r1.cnt.replays[0] < 2 * want,
                  "%llu replays, about %.0f expected",
                  (unsigned long long)r1.cnt.replays[0], want);
    ck_assert_uint_ge(r1.cnt.replay_bytes[0],
                      r1.cnt.replays[0] * mwr_wire_bytes(4));
    ck_assert_uint_eq(r1.cnt.replays[1], 0);    /* nothing sent from b */
    sim_destroy(sim);
    sim = sim_create(NULL, NULL);
    ck_assert_ptr_nonnull(sim);
    struct ber_run r2 = ber_stream(N, "1e-6");
    ck_assert_uint_eq(r2.last_at, r1.last_at);
    ck_assert_uint_eq(r2.cnt.replays[0], r1.cnt.replays[0]);
    ck_assert_uint_eq(r2.cnt.replay_bytes[0], r1.cnt.replay_bytes[0]);
    ck_assert_uint_eq(r2.cnt.retrains[0], r1.cnt.retrains[0]);
}
END_TEST

Suite *make_pcie_link_suite(void)
{
    Suite *s = suite_create("pcie_link");
    TCase *tc = tcase_create("Table");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_pcie_gen_table_rates);
    tcase_add_test(tc, test_pcie_tlp_wire_bytes_and_credits);
    tcase_add_test(tc, test_pcie_widths_and_sizes);
    tcase_add_test(tc, test_pcie_route_helpers);
    suite_add_tcase(s, tc);

    tc = tcase_create("Throughput");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_pcie_link_stream_meets_write_bound, 0,
                        (int)(sizeof(stream_gens) / sizeof(stream_gens[0])));
    tcase_add_test(tc, test_pcie_link_full_duplex_both_ways);
    tcase_add_test(tc, test_pcie_link_full_duplex_with_updatefc);
    suite_add_tcase(s, tc);

    tc = tcase_create("Negotiation");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_pcie_link_negotiates_minimum);
    tcase_add_test(tc, test_pcie_link_negotiation_properties_cap);
    tcase_add_test(tc, test_pcie_link_defaults_without_caps);
    suite_add_tcase(s, tc);

    tc = tcase_create("Credits");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_pcie_link_credits_throttle_to_round_trip);
    tcase_add_test(tc, test_pcie_link_credits_return_on_release);
    tcase_add_test(tc, test_pcie_link_refuses_tlp_beyond_advertised_credits);
    suite_add_tcase(s, tc);

    tc = tcase_create("Errors");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_pcie_link_bad_props_name_the_value, 0,
                        (int)(sizeof(bad_props) / sizeof(bad_props[0])));
    tcase_add_test(tc, test_pcie_link_good_props_accepted);
    suite_add_tcase(s, tc);

    tc = tcase_create("Timing");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_pcie_link_single_tlp_exact_arrival, 0,
                        (int)(sizeof(one_tlps) / sizeof(one_tlps[0])));
    tcase_add_test(tc, test_pcie_link_fifo_order_and_times);
    tcase_add_test(tc, test_pcie_link_report_counters);
    suite_add_tcase(s, tc);

    tc = tcase_create("Replay");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_pcie_link_ber_replays_and_delivers_in_order);
    suite_add_tcase(s, tc);
    return s;
}
