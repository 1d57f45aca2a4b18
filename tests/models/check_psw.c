/*
 * tests/models/check_psw.c - the PCIe switch (models/pcie/switch.c) and the
 * ACS decision (models/pcie/acs.c).
 *
 * The standard bench: a switch "sw" on bus 1 with three downstream ports,
 * a test endpoint on every port, ideal wires of distinct latencies so an
 * arrival time tells which path a TLP took:
 *
 *                    ep_up  (wire 10 ns)
 *                      |
 *                   [ up ]
 *                 sw (bus 1, 100 ns)
 *            [dp0]   [dp1]   [dp2]
 *              |       |       |      wires 20, 30, 40 ns
 *             ep0     ep1     ep2
 *   windows   0x1000_0000 0x2000_0000 0x3000_0000 (256 MiB each)
 *   buses     2       3       4
 *
 * The ordering and back-pressure tests replace a wire with "test-credit",
 * a link with per-class credits the test controls.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "models/pcie/acs.h"
#include "models/pcie/pcie.h"
#include "models/pcie/pcie_regs.h"
#include "models/pcie/switch.h"
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

#define N_DP 3
#define WIN(k) (UINT64_C(0x10000000) * ((k) + 1))   /* dp<k>'s window base */
#define WIN_SIZE UINT64_C(0x10000000)
#define BUS(k) (2u + (k))                          /* dp<k>'s bus */
#define SW_BUS 1u
#define RC_ID 0x0000u                              /* requester above "up" */
#define UNCLAIMED UINT64_C(0x90000000)

static const sim_time_t wire_ps[N_DP + 1] = {
    SIM_NS(10), SIM_NS(20), SIM_NS(30), SIM_NS(40),   /* up, dp0..dp2 */
};

static struct sim *sim;
static struct sim_component *sw, *ep_up, *ep[N_DP];

/* ---- a link with per-class credits the test controls --------------------- */

struct credit_link {
    unsigned credits[2][TLP_FC_COUNT];  /* receive buffers at each side */
    unsigned refusals[2];               /* per receiving side */
};

static void credit_arrive(struct sim *s, struct sim_event *ev)
{
    struct tlp *t = SIM_CONTAINER_OF(ev, struct tlp, ev);
    sim_link_deliver(t->link, t->link_side, t);
}

static int credit_transmit(struct sim_link *l, unsigned from, struct tlp *t)
{
    struct credit_link *cl = sim_link_state(l);
    unsigned to = !from, cls = tlp_kind_fc_class(t->kind);
    if (cl->credits[to][cls] == 0) {
        cl->refusals[to]++;
        return -SIM_EAGAIN;
    }
    cl->credits[to][cls]--;
    /* Like every link, start no earlier than not_before (sim/tlp.h). */
    sim_time_t start = sim_now(l->sim);
    if (t->not_before > start) {
        start = t->not_before;
    }
    t->not_before = 0;
    sim_event_init(&t->ev, credit_arrive);
    sim_event_schedule_at(l->sim, &t->ev, start + SIM_NS(10));
    return 0;
}

static void credit_release(struct sim_link *l, unsigned side, struct tlp *t)
{
    struct credit_link *cl = sim_link_state(l);
    cl->credits[side][tlp_kind_fc_class(t->kind)]++;
    sim_link_ready(l, !side);
}

static const struct sim_link_ops credit_ops = {
    .kind = "test-credit",
    .state_size = sizeof(struct credit_link),
    .transmit = credit_transmit,
    .release = credit_release,
};

/* Give n credits of class cls at side, and wake the sender. */
static void credit_give(struct sim_link *l, unsigned side, unsigned cls,
                        unsigned n)
{
    struct credit_link *cl = sim_link_state(l);
    cl->credits[side][cls] += n;
    sim_link_ready(l, !side);
}

/* ---- a trace sink -------------------------------------------------------- */

#define TS_MAX 64
struct tsink {
    unsigned n;
    enum sim_trace_point point[TS_MAX];
    const char *msg[TS_MAX];
    const char *comp[TS_MAX];
    uint16_t completer_id[TS_MAX];
};
static struct tsink ts;

static void tsink_fn(void *ctx, const struct sim_trace_record *r)
{
    struct tsink *s = ctx;
    if (s->n < TS_MAX) {
        s->point[s->n] = r->point;
        s->msg[s->n] = r->msg;
        s->comp[s->n] = r->component;
        s->completer_id[s->n] = r->tlp ? r->tlp->completer_id : 0;
        s->n++;
    }
}

static unsigned ts_count(enum sim_trace_point p, const char *msg)
{
    unsigned n = 0;
    for (unsigned i = 0; i < ts.n; i++) {
        if (ts.point[i] == p && (!msg || (ts.msg[i] &&
                                          strcmp(ts.msg[i], msg) == 0))) {
            n++;
        }
    }
    return n;
}

/* ---- the bench ----------------------------------------------------------- */

/* atomic-routing for the next make_switch (NULL: the default). */
static const char *atomic_routing;

static struct sim_component *make_switch(const char *ports,
                                         const char *latency,
                                         const char *queue,
                                         struct sim_error *err)
{
    struct sim_props p;
    sim_props_init(&p, "switch 'sw'", NULL);
    if (ports) {
        sim_props_set(&p, "ports", ports, NULL, NULL);
    }
    if (latency) {
        sim_props_set(&p, "latency", latency, NULL, NULL);
    }
    if (queue) {
        sim_props_set(&p, "queue", queue, NULL, NULL);
    }
    if (atomic_routing) {
        sim_props_set(&p, "atomic-routing", atomic_routing, NULL, NULL);
    }
    struct sim_component *c = sim_component_create(sim, &psw_ops, "sw", err);
    ck_assert_ptr_nonnull(c);
    int rc = sim_component_configure(c, &p, err);
    sim_props_fini(&p);
    return rc < 0 ? NULL : c;
}

static struct sim_link *join(const char *name, struct sim_port *a,
                             struct sim_port *b, sim_time_t latency,
                             bool credits)
{
    struct sim_link *l = sim_link_create(sim, credits ? &credit_ops
                                                      : &sim_wire_ops,
                                         name, NULL);
    ck_assert_ptr_nonnull(l);
    if (!credits) {
        sim_wire_set(l, latency, 0);
    }
    ck_assert_int_eq(sim_link_connect(l, a, b, NULL), 0);
    return l;
}

static struct sim_port *sw_port(const char *name)
{
    struct sim_port *p = sim_port_find(sw, name);
    ck_assert_ptr_nonnull(p);
    return p;
}

/*
 * Build the bench. credit_up / credit_dp0 put a test-credit link (switch
 * at side 1 of "up", at side 0 of "dp0") instead of the wire; the links
 * come back through l_up / l_dp0.
 */
static struct sim_link *l_up, *l_dp0;

static void build(const char *latency, const char *queue, bool credit_up,
                  bool credit_dp0)
{
    sw = make_switch("3", latency, queue, NULL);
    ck_assert_ptr_nonnull(sw);
    psw_set_bus(sw, SW_BUS);
    unsigned n = 0;
    struct pcie_route *r = psw_routes(sw, &n);
    ck_assert_uint_eq(n, N_DP + 1);
    for (unsigned k = 0; k < N_DP; k++) {
        r[k + 1].valid = true;
        r[k + 1].bus_sec = r[k + 1].bus_sub = (uint8_t)BUS(k);
        ck_assert_int_eq(pcie_route_add_window(&r[k + 1], WIN(k),
                                               WIN(k) + WIN_SIZE - 1), 0);
    }
    ep_up = th_ep_create(sim, "ep_up");
    ck_assert_ptr_nonnull(ep_up);
    l_up = join("l_up", th_ep(ep_up)->port, sw_port("up"), wire_ps[0],
                credit_up);
    for (unsigned k = 0; k < N_DP; k++) {
        char en[8], pn[8], ln[8];
        snprintf(en, sizeof(en), "ep%u", k);
        snprintf(pn, sizeof(pn), "dp%u", k);
        snprintf(ln, sizeof(ln), "l_dp%u", k);
        ep[k] = th_ep_create(sim, en);
        ck_assert_ptr_nonnull(ep[k]);
        struct sim_link *l = join(ln, sw_port(pn), th_ep(ep[k])->port,
                                  wire_ps[k + 1], k == 0 && credit_dp0);
        if (k == 0) {
            l_dp0 = l;
        }
    }
}

static void setup_sim(void)
{
    sim = sim_create(NULL, NULL);
    ck_assert_ptr_nonnull(sim);
    memset(&ts, 0, sizeof(ts));
    ck_assert_int_eq(sim_trace_subscribe(sim, tsink_fn, &ts,
                                         SIM_TRACE_BIT(SIM_TP_MODEL) |
                                         SIM_TRACE_BIT(SIM_TP_TLP_DROP) |
                                         SIM_TRACE_BIT(SIM_TP_TLP_RX)), 0);
}

static void setup_bench(void)
{
    setup_sim();
    build(NULL, NULL, false, false);
}

static void teardown(void)
{
    sim_destroy(sim);
    sim = NULL;
}

static struct th_ep *E(unsigned k) { return th_ep(ep[k]); }
static struct th_ep *U(void) { return th_ep(ep_up); }

static uint64_t stat(const char *name)
{
    struct sim_stats *s = sim_stats_create();
    ck_assert_ptr_nonnull(s);
    sim_component_report(sw, s);
    uint64_t v = 0;
    ck_assert_msg(sim_stats_get(s, name, &v), "no stat %s", name);
    sim_stats_destroy(s);
    return v;
}

static struct tlp *req(enum tlp_kind k, uint64_t addr, uint16_t rid)
{
    struct tlp *t = tlp_alloc(sim, k);
    t->addr = addr;
    t->len_bytes = 64;
    t->requester_id = rid;
    return t;
}

static struct tlp *cpl(uint16_t dest_rid, uint16_t completer)
{
    struct tlp *t = tlp_alloc(sim, TLP_CPLD);
    t->requester_id = dest_rid;
    t->completer_id = completer;
    t->len_bytes = 64;
    t->byte_count = 64;
    return t;
}

static unsigned total_received(void)
{
    unsigned n = (unsigned)U()->n_received;
    for (unsigned k = 0; k < N_DP; k++) {
        n += (unsigned)E(k)->n_received;
    }
    return n;
}

/* Run to idle; the switch must hold nothing and no TLP may leak. */
static void run_drained(void)
{
    ck_assert_int_eq(sim_run(sim), SIM_RUN_IDLE);
    ck_assert_uint_eq(stat("sw.in_flight"), 0);
    ck_assert_uint_eq(tlp_pool_live(sim), 0);
}

/* ---- Routing ------------------------------------------------------------- */

START_TEST(test_psw_routes_request_from_up_to_claiming_dp)
{
    unsigned k = (unsigned)_i;
    th_ep_send(ep_up, req(TLP_MWR, WIN(k) + 0x40, RC_ID));
    run_drained();
    for (unsigned j = 0; j < N_DP; j++) {
        ck_assert_uint_eq(E(j)->n_received, j == k);
    }
    ck_assert_uint_eq(U()->n_received, 0);
    ck_assert_uint_eq(E(k)->rec[0].addr, WIN(k) + 0x40);
    ck_assert_uint_eq(E(k)->rec[0].hops, 2);
}
END_TEST

START_TEST(test_psw_routes_peer_request_directly_without_acs)
{
    th_ep_send(ep[0], req(TLP_MRD, WIN(1) + 0x1000, pcie_id(BUS(0), 0, 0)));
    run_drained();
    ck_assert_uint_eq(E(1)->n_received, 1);
    ck_assert_int_eq(E(1)->rec[0].kind, TLP_MRD);
    ck_assert_uint_eq(total_received(), 1);
}
END_TEST

static struct tlp *fetchadd(unsigned from, unsigned to)
{
    struct tlp *t = req(TLP_FETCHADD, WIN(to) + 0x40, pcie_id(BUS(from), 0, 0));
    t->len_bytes = 8;
    ck_assert_int_eq(tlp_data_alloc(t, 8), 0);
    memset(t->data, 1, 8);
    return t;
}

/* AtomicOps cross a switch only if its ports route them (PCIe r6.0
 * §6.15.2, atomic-routing): the default does; one that does not answers
 * UR and still forwards other requests. */
START_TEST(test_psw_atomicop_routing)
{
    th_ep_send(ep[0], fetchadd(0, 1));
    run_drained();
    ck_assert_uint_eq(E(1)->n_received, 1);
    ck_assert_int_eq(E(1)->rec[0].kind, TLP_FETCHADD);
    ck_assert(psw_atomic_routing(sw));

    teardown();
    setup_sim();
    atomic_routing = "false";
    build(NULL, NULL, false, false);
    atomic_routing = NULL;
    ck_assert(!psw_atomic_routing(sw));
    th_ep_send(ep[0], fetchadd(0, 1));
    th_ep_send(ep[0], req(TLP_MWR, WIN(1) + 0x80, pcie_id(BUS(0), 0, 0)));
    run_drained();
    ck_assert_uint_eq(E(1)->n_received, 1);
    ck_assert_int_eq(E(1)->rec[0].kind, TLP_MWR);
    ck_assert_uint_eq(E(0)->n_received, 1);
    ck_assert_int_eq(E(0)->rec[0].kind, TLP_CPL);
    ck_assert_uint_eq(E(0)->rec[0].cpl_status, TLP_CPL_UR);
    ck_assert_uint_eq(ts_count(SIM_TP_MODEL, "AtomicOp routing not "
                                             "supported: UR completion"), 1);
}
END_TEST

START_TEST(test_psw_routes_unclaimed_request_from_dp_upstream)
{
    th_ep_send(ep[2], req(TLP_MWR, UNCLAIMED, pcie_id(BUS(2), 0, 0)));
    run_drained();
    ck_assert_uint_eq(U()->n_received, 1);
    ck_assert_uint_eq(U()->rec[0].addr, UNCLAIMED);
    ck_assert_uint_eq(total_received(), 1);
}
END_TEST

START_TEST(test_psw_answers_unclaimed_read_from_up_with_ur)
{
    struct tlp *t = req(TLP_MRD, UNCLAIMED, RC_ID);
    t->tag = 7;
    th_ep_send(ep_up, t);
    run_drained();
    ck_assert_uint_eq(U()->n_received, 1);
    struct th_record *r = &U()->rec[0];
    ck_assert_int_eq(r->kind, TLP_CPL);
    ck_assert_uint_eq(r->cpl_status, TLP_CPL_UR);
    ck_assert_uint_eq(r->tag, 7);
    ck_assert_uint_eq(r->requester_id, RC_ID);
    /* up wire, switch latency, up wire back */
    ck_assert_uint_eq(r->at, SIM_NS(10) + SIM_NS(100) + SIM_NS(10));
    ck_assert_uint_eq(total_received(), 1);
    /* the switch completed it, as bus 1 */
    unsigned seen = 0;
    for (unsigned i = 0; i < ts.n; i++) {
        if (ts.point[i] == SIM_TP_TLP_RX && strcmp(ts.comp[i], "ep_up") == 0) {
            ck_assert_uint_eq(ts.completer_id[i], pcie_id(SW_BUS, 0, 0));
            seen++;
        }
    }
    ck_assert_uint_eq(seen, 1);
    ck_assert_uint_eq(stat("sw.up.ur"), 1);
    ck_assert_uint_eq(stat("sw.up.unsupported"), 1);
}
END_TEST

START_TEST(test_psw_drops_unclaimed_write_from_up)
{
    th_ep_send(ep_up, req(TLP_MWR, UNCLAIMED, RC_ID));
    run_drained();
    ck_assert_uint_eq(total_received(), 0);
    ck_assert_uint_eq(stat("sw.up.dropped"), 1);
    ck_assert_uint_eq(stat("sw.up.unsupported"), 1);
    ck_assert_uint_eq(stat("sw.up.ur"), 0);
    ck_assert_uint_eq(ts_count(SIM_TP_TLP_DROP, NULL), 1);
}
END_TEST

/* Completions are routed by the bus of their Requester ID. */
static const struct {
    int from;                   /* -1: ep_up, else ep<k> */
    unsigned bus;               /* requester (destination) bus */
    int to;                     /* -1: ep_up, k: ep<k>, -2: nobody */
} cpl_cases[] = {
    { -1, BUS(1), 1 },          /* from up, down to dp1 */
    { -1, BUS(2), 2 },
    { 0, BUS(2), 2 },           /* peer completion, no ACS */
    { 2, 0x40, -1 },            /* unclaimed bus from below: up */
    { -1, 0x40, -2 },           /* unclaimed from up: dropped */
};

START_TEST(test_psw_routes_completion_by_requester_bus)
{
    const __typeof__(cpl_cases[0]) *c = &cpl_cases[_i];
    struct tlp *t = cpl(pcie_id(c->bus, 0, 0), 0x0100);
    th_ep_send(c->from < 0 ? ep_up : ep[c->from], t);
    run_drained();
    if (c->to == -2) {
        ck_assert_uint_eq(total_received(), 0);
        ck_assert_uint_eq(stat("sw.up.dropped"), 1);
        return;
    }
    struct th_ep *dst = c->to < 0 ? U() : E((unsigned)c->to);
    ck_assert_uint_eq(dst->n_received, 1);
    ck_assert_int_eq(dst->rec[0].kind, TLP_CPLD);
    ck_assert_uint_eq(total_received(), 1);
}
END_TEST

START_TEST(test_psw_ports_are_named_and_indexed)
{
    static const char *const names[] = { "up", "dp0", "dp1", "dp2" };
    ck_assert_uint_eq(sw->n_ports, 4);
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_str_eq(sw->port[i]->name, names[i]);
        ck_assert_uint_eq(sw->port[i]->index, i);
        ck_assert_int_eq(sw->port[i]->role,
                         i == 0 ? SIM_PORT_UPSTREAM : SIM_PORT_DOWNSTREAM);
    }
}
END_TEST

/* ---- ACS: the pure decision, table-driven -------------------------------- */

#define SV PCI_ACS_SV
#define TB PCI_ACS_TB
#define RR PCI_ACS_RR
#define CR PCI_ACS_CR
#define UF PCI_ACS_UF
#define EC PCI_ACS_EC
#define DT PCI_ACS_DT
#define UNTR TLP_AT_UNTRANSLATED
#define TREQ TLP_AT_TRANS_REQ
#define TRAN TLP_AT_TRANSLATED

/*
 * The ingress port claims bus 2; the peer is Egress Control Vector bit 1.
 * Rows follow the order of the case table in acs.c. The case tables here
 * keep one case per line, wider than 80 columns, so they read as tables.
 */
static const struct acs_case {
    const char *name;
    uint16_t ctrl;
    uint64_t egress_blocked;
    enum tlp_kind kind;
    uint8_t at, attr;
    unsigned req_bus;           /* requester bus (requests) */
    enum acs_target target;
    enum acs_verdict want;
    enum acs_rule rule;
} acs_cases[] = {
    /* no ACS: everything goes where routing says */
    { "none/peer MWr", 0, 0, TLP_MWR, UNTR, 0, 2, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_NONE },
    { "none/peer translated MRd", 0, 0, TLP_MRD, TRAN, 0, 2, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_NONE },
    { "none/peer CplD", 0, 0, TLP_CPLD, UNTR, 0, 2, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_NONE },
    { "none/spoofed MWr up", 0, 0, TLP_MWR, UNTR, 0, 9, ACS_TARGET_UP, ACS_FORWARD, ACS_RULE_NONE },
    /* 1: SV */
    { "SV/spoofed MWr up", SV, 0, TLP_MWR, UNTR, 0, 9, ACS_TARGET_UP, ACS_BLOCK, ACS_RULE_SV },
    { "SV/spoofed MRd peer", SV, 0, TLP_MRD, UNTR, 0, 1, ACS_TARGET_PEER, ACS_BLOCK, ACS_RULE_SV },
    { "SV/own bus MRd up", SV, 0, TLP_MRD, UNTR, 0, 2, ACS_TARGET_UP, ACS_FORWARD, ACS_RULE_NONE },
    { "SV/completion not checked", SV, 0, TLP_CPLD, UNTR, 0, 9, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_NONE },
    { "SV+RR/spoofed beats redirect", SV | RR, 0, TLP_MWR, UNTR, 0, 9, ACS_TARGET_PEER, ACS_BLOCK, ACS_RULE_SV },
    /* 2: TB */
    { "TB/translated MRd up", TB, 0, TLP_MRD, TRAN, 0, 2, ACS_TARGET_UP, ACS_BLOCK, ACS_RULE_TB },
    { "TB/translated MWr peer", TB, 0, TLP_MWR, TRAN, 0, 2, ACS_TARGET_PEER, ACS_BLOCK, ACS_RULE_TB },
    { "TB/translation request", TB, 0, TLP_ATS_TREQ, TREQ, 0, 2, ACS_TARGET_UP, ACS_BLOCK, ACS_RULE_TB },
    { "TB/untranslated MWr peer", TB, 0, TLP_MWR, UNTR, 0, 2, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_NONE },
    { "TB+DT/translated still blocked", TB | DT | RR, 0, TLP_MRD, TRAN, 0, 2, ACS_TARGET_PEER, ACS_BLOCK, ACS_RULE_TB },
    /* 3: upstream traffic is not redirected or egress-blocked */
    { "RR/MWr up", RR | EC, ~UINT64_C(0), TLP_MWR, UNTR, 0, 2, ACS_TARGET_UP, ACS_FORWARD, ACS_RULE_NONE },
    { "CR/CplD up", CR, 0, TLP_CPLD, UNTR, 0, 2, ACS_TARGET_UP, ACS_FORWARD, ACS_RULE_NONE },
    /* 4, 5: back to its own port */
    { "UF/MRd to self", UF, 0, TLP_MRD, UNTR, 0, 2, ACS_TARGET_SELF, ACS_REDIRECT, ACS_RULE_UF },
    { "UF/CplD to self", UF, 0, TLP_CPLD, UNTR, 0, 2, ACS_TARGET_SELF, ACS_REDIRECT, ACS_RULE_UF },
    { "no UF/MRd to self", RR, 0, TLP_MRD, UNTR, 0, 2, ACS_TARGET_SELF, ACS_BLOCK, ACS_RULE_UF },
    /* 6: DT */
    { "RR+DT/translated MRd peer", RR | DT, 0, TLP_MRD, TRAN, 0, 2, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_DT },
    { "RR+DT/untranslated MRd peer", RR | DT, 0, TLP_MRD, UNTR, 0, 2, ACS_TARGET_PEER, ACS_REDIRECT, ACS_RULE_RR },
    { "RR+DT/translation request peer", RR | DT, 0, TLP_ATS_TREQ, TREQ, 0, 2, ACS_TARGET_PEER, ACS_REDIRECT, ACS_RULE_RR },
    { "EC+DT/translated to blocked peer", EC | DT, 2, TLP_MWR, TRAN, 0, 2, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_DT },
    /* 7: RR */
    { "RR/translated MRd peer", RR, 0, TLP_MRD, TRAN, 0, 2, ACS_TARGET_PEER, ACS_REDIRECT, ACS_RULE_RR },
    { "RR/MWr peer", RR, 0, TLP_MWR, UNTR, 0, 2, ACS_TARGET_PEER, ACS_REDIRECT, ACS_RULE_RR },
    { "RR/FetchAdd peer", RR, 0, TLP_FETCHADD, UNTR, 0, 2, ACS_TARGET_PEER, ACS_REDIRECT, ACS_RULE_RR },
    { "RR/CplD peer not redirected", RR, 0, TLP_CPLD, UNTR, 0, 2, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_NONE },
    { "RR+EC/blocked peer redirected", RR | EC, 2, TLP_MWR, UNTR, 0, 2, ACS_TARGET_PEER, ACS_REDIRECT, ACS_RULE_RR },
    /* 8: EC */
    { "EC/blocked peer MWr", EC, 2, TLP_MWR, UNTR, 0, 2, ACS_TARGET_PEER, ACS_BLOCK, ACS_RULE_EC },
    { "EC/other peer blocked only", EC, 4, TLP_MWR, UNTR, 0, 2, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_NONE },
    { "EC off/vector ignored", 0, 2, TLP_MWR, UNTR, 0, 2, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_NONE },
    { "EC/completion not egress-blocked", EC, 2, TLP_CPLD, UNTR, 0, 2, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_NONE },
    /* 10, 11: CR */
    { "CR/peer CplD", CR, 0, TLP_CPLD, UNTR, 0, 2, ACS_TARGET_PEER, ACS_REDIRECT, ACS_RULE_CR },
    { "CR/peer Cpl", CR, 0, TLP_CPL, UNTR, 0, 2, ACS_TARGET_PEER, ACS_REDIRECT, ACS_RULE_CR },
    { "CR/peer RO CplD direct", CR, 0, TLP_CPLD, UNTR, TLP_ATTR_RO, 2, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_NONE },
    { "CR/peer MWr not affected", CR, 0, TLP_MWR, UNTR, 0, 2, ACS_TARGET_PEER, ACS_FORWARD, ACS_RULE_NONE },
};

START_TEST(test_acs_check_case_table)
{
    const struct acs_case *c = &acs_cases[_i];
    struct acs_port in = {
        .ctrl = c->ctrl, .egress_blocked = c->egress_blocked,
        .bus_sec = 2, .bus_sub = 2,
    };
    struct tlp t;
    memset(&t, 0, sizeof(t));
    t.kind = c->kind;
    t.at = c->at;
    t.attr = c->attr;
    /* a completion's requester is its destination: put it off-port, so
     * an SV check of completions would show */
    t.requester_id = pcie_id(c->req_bus, 0, 0);
    enum acs_rule rule = ACS_RULE_COUNT;
    enum acs_verdict v = acs_check(&in, &t, c->target, 1, &rule);
    ck_assert_msg(v == c->want && rule == c->rule,
                  "%s: got %s/%s, want %s/%s", c->name, acs_verdict_name(v),
                  acs_rule_name(rule), acs_verdict_name(c->want),
                  acs_rule_name(c->rule));
    /* the rule pointer is optional and the function is pure */
    ck_assert_int_eq(acs_check(&in, &t, c->target, 1, NULL), v);
}
END_TEST

START_TEST(test_acs_sv_empty_range_blocks_everything)
{
    struct acs_port in = { .ctrl = PCI_ACS_SV, .bus_sec = 5, .bus_sub = 4 };
    struct tlp t;
    memset(&t, 0, sizeof(t));
    t.kind = TLP_MWR;
    for (unsigned bus = 0; bus < 256; bus++) {
        t.requester_id = pcie_id(bus, 0, 0);
        ck_assert_int_eq(acs_check(&in, &t, ACS_TARGET_UP, 0, NULL),
                         ACS_BLOCK);
    }
}
END_TEST

/* ---- ACS: through the switch --------------------------------------------- */

enum { TO_UP, TO_DP1, UR_BACK, NOWHERE };

/* ep0 (bus 2, behind dp0) sends one TLP; dp1 is Egress Control bit 1. */
static const struct psw_acs_case {
    const char *name;
    uint16_t ctrl;
    uint64_t egress_blocked;
    enum tlp_kind kind;
    uint8_t at, attr;
    unsigned bus;               /* requests: requester bus; cpl: destination */
    uint64_t addr;              /* requests */
    int lands;                  /* TO_UP, TO_DP1, UR_BACK, NOWHERE */
    unsigned redirects, blocked, unsupported;
} psw_acs_cases[] = {
    { "no ACS: peer MWr direct", 0, 0, TLP_MWR, UNTR, 0, 2, WIN(1), TO_DP1, 0, 0, 0 },
    { "RR: peer MWr redirected", RR, 0, TLP_MWR, UNTR, 0, 2, WIN(1), TO_UP, 1, 0, 0 },
    { "RR: peer MRd redirected", RR, 0, TLP_MRD, UNTR, 0, 2, WIN(1), TO_UP, 1, 0, 0 },
    { "RR: translated MRd redirected", RR, 0, TLP_MRD, TRAN, 0, 2, WIN(1), TO_UP, 1, 0, 0 },
    { "RR+DT: translated MRd direct", RR | DT, 0, TLP_MRD, TRAN, 0, 2, WIN(1), TO_DP1, 0, 0, 0 },
    { "RR+DT: untranslated MRd redirected", RR | DT, 0, TLP_MRD, UNTR, 0, 2, WIN(1), TO_UP, 1, 0, 0 },
    { "TB: translated MRd gets UR", TB, 0, TLP_MRD, TRAN, 0, 2, WIN(1), UR_BACK, 0, 1, 0 },
    { "TB: translated MWr dropped", TB, 0, TLP_MWR, TRAN, 0, 2, WIN(1), NOWHERE, 0, 1, 0 },
    { "TB: untranslated MRd direct", TB, 0, TLP_MRD, UNTR, 0, 2, WIN(1), TO_DP1, 0, 0, 0 },
    { "SV: spoofed MRd gets UR", SV, 0, TLP_MRD, UNTR, 0, 3, WIN(1), UR_BACK, 0, 1, 0 },
    { "SV: spoofed MWr up dropped", SV, 0, TLP_MWR, UNTR, 0, 3, UNCLAIMED, NOWHERE, 0, 1, 0 },
    { "SV: own-bus MWr direct", SV, 0, TLP_MWR, UNTR, 0, 2, WIN(1), TO_DP1, 0, 0, 0 },
    { "EC: peer MWr dropped", EC, 2, TLP_MWR, UNTR, 0, 2, WIN(1), NOWHERE, 0, 1, 0 },
    { "EC: peer MRd gets UR", EC, 2, TLP_MRD, UNTR, 0, 2, WIN(1), UR_BACK, 0, 1, 0 },
    { "EC: other peer blocked only", EC, 4, TLP_MRD, UNTR, 0, 2, WIN(1), TO_DP1, 0, 0, 0 },
    { "EC+RR: redirected", EC | RR, 2, TLP_MWR, UNTR, 0, 2, WIN(1), TO_UP, 1, 0, 0 },
    { "CR: peer CplD redirected", CR, 0, TLP_CPLD, UNTR, 0, 3, 0, TO_UP, 1, 0, 0 },
    { "CR: RO peer CplD direct", CR, 0, TLP_CPLD, UNTR, TLP_ATTR_RO, 3, 0, TO_DP1, 0, 0, 0 },
    { "RR: peer CplD direct", RR, 0, TLP_CPLD, UNTR, 0, 3, 0, TO_DP1, 0, 0, 0 },
    { "SV: completion not checked", SV, 0, TLP_CPLD, UNTR, 0, 3, 0, TO_DP1, 0, 0, 0 },
    { "no UF: MRd to own window gets UR", RR, 0, TLP_MRD, UNTR, 0, 2, WIN(0), UR_BACK, 0, 0, 1 },
    { "no UF: MWr to own window dropped", 0, 0, TLP_MWR, UNTR, 0, 2, WIN(0), NOWHERE, 0, 0, 1 },
    { "UF: MRd to own window goes up", UF, 0, TLP_MRD, UNTR, 0, 2, WIN(0), TO_UP, 1, 0, 0 },
};

START_TEST(test_psw_acs_through_switch)
{
    const struct psw_acs_case *c = &psw_acs_cases[_i];
    ck_assert_int_eq(psw_set_acs(sw, 0, c->ctrl, c->egress_blocked), 0);
    struct tlp *t;
    if (c->kind == TLP_CPLD) {
        t = cpl(pcie_id(c->bus, 0, 0), pcie_id(BUS(0), 0, 0));
    } else {
        t = req(c->kind, c->addr, pcie_id(c->bus, 0, 0));
    }
    t->at = c->at;
    t->attr = c->attr;
    th_ep_send(ep[0], t);
    run_drained();

    struct th_ep *dst = NULL;
    switch (c->lands) {
    case TO_UP:
        dst = U();
        break;
    case TO_DP1:
        dst = E(1);
        break;
    case UR_BACK:
        dst = E(0);
        break;
    }
    ck_assert_msg(total_received() == (dst ? 1u : 0u),
                  "%s: %u arrivals", c->name, total_received());
    if (dst) {
        ck_assert_msg(dst->n_received == 1, "%s: wrong endpoint", c->name);
        if (c->lands == UR_BACK) {
            ck_assert_int_eq(dst->rec[0].kind, TLP_CPL);
            ck_assert_uint_eq(dst->rec[0].cpl_status, TLP_CPL_UR);
        } else {
            ck_assert_int_eq(dst->rec[0].kind, c->kind);
        }
    }
    ck_assert_msg(stat("sw.dp0.redirects") == c->redirects,
                  "%s: redirects", c->name);
    ck_assert_msg(stat("sw.dp0.blocked") == c->blocked, "%s: blocked",
                  c->name);
    ck_assert_msg(stat("sw.dp0.unsupported") == c->unsupported,
                  "%s: unsupported", c->name);
    ck_assert_uint_eq(ts_count(SIM_TP_MODEL, "acs redirect"), c->redirects);
}
END_TEST

START_TEST(test_psw_set_acs_validates)
{
    ck_assert_int_eq(psw_set_acs(sw, 3, PCI_ACS_RR, 0), -SIM_EINVAL);
    ck_assert_int_eq(psw_set_acs(sw, 0, 0x0100, 0), -SIM_EINVAL);
    ck_assert_int_eq(psw_set_acs(sw, 0, PCI_ACS_EC, 1u << 3), -SIM_EINVAL);
    ck_assert_int_eq(psw_set_acs(sw, 2, PCI_ACS_RR | PCI_ACS_CR, 3), 0);
    ck_assert_uint_eq(psw_acs(sw, 2), PCI_ACS_RR | PCI_ACS_CR);
    ck_assert_uint_eq(psw_acs(sw, 0), 0);
    ck_assert_uint_eq(psw_acs(sw, 9), 0);
}
END_TEST

/* ---- Timing -------------------------------------------------------------- */

static const struct {
    const char *prop;           /* NULL: the default */
    sim_time_t latency;
} latency_cases[] = {
    { NULL, SIM_NS(100) },
    { "0ns", 0 },
    { "250ns", SIM_NS(250) },
    { "1.5us", SIM_NS(1500) },
};

START_TEST(test_psw_latency_is_wires_plus_switch)
{
    setup_sim();
    build(latency_cases[_i].prop, NULL, false, false);
    sim_time_t lat = latency_cases[_i].latency;
    /* peer: dp0 wire + switch + dp1 wire */
    th_ep_send(ep[0], req(TLP_MWR, WIN(1), pcie_id(BUS(0), 0, 0)));
    run_drained();
    ck_assert_uint_eq(E(1)->rec[0].at, SIM_NS(20) + lat + SIM_NS(30));
    /* redirected: dp0 wire + switch + up wire, from a later start */
    ck_assert_int_eq(psw_set_acs(sw, 0, PCI_ACS_RR, 0), 0);
    sim_time_t t0 = sim_now(sim);
    th_ep_send(ep[0], req(TLP_MWR, WIN(1), pcie_id(BUS(0), 0, 0)));
    run_drained();
    ck_assert_uint_eq(U()->rec[0].at - t0, SIM_NS(20) + lat + SIM_NS(10));
    teardown();
}
END_TEST

/* Back-to-back TLPs each pay the latency once, in parallel (cut-through
 * pipeline), and keep their order. */
START_TEST(test_psw_latency_is_pipelined)
{
    for (unsigned i = 0; i < 8; i++) {
        th_ep_send(ep_up, req(TLP_MWR, WIN(2) + 64 * i, RC_ID));
    }
    run_drained();
    ck_assert_uint_eq(E(2)->n_received, 8);
    for (unsigned i = 0; i < 8; i++) {
        ck_assert_uint_eq(E(2)->rec[i].addr, WIN(2) + 64 * i);
        ck_assert_uint_eq(E(2)->rec[i].at, SIM_NS(10 + 100 + 40));
    }
}
END_TEST

/* ---- Ordering ------------------------------------------------------------ */

/*
 * The egress link to ep0 has no credit of class `blocked`; the first TLP
 * (of that class) is refused at dp0. Does the second overtake it?
 */
struct otlp {
    enum tlp_kind kind;
    uint8_t attr, tc;
    uint16_t src;               /* requester ID, or completer ID of a cpl */
};
#define SRC_A 0x0008u
#define SRC_B 0x0010u
#define RO TLP_ATTR_RO
#define IDO TLP_ATTR_IDO

static const struct order_case {
    const char *name;
    unsigned blocked;           /* tlp_fc_class without credits */
    struct otlp first, second;
    bool passes;
    bool second_from_dp1;       /* second TLP from ep1, else from ep_up */
} order_cases[] = {
    { "read never passes a blocked write", TLP_FC_P,
      { TLP_MWR, 0, 0, SRC_A }, { TLP_MRD, 0, 0, SRC_A }, false, false },
    { "RO does not let a read pass a write", TLP_FC_P,
      { TLP_MWR, 0, 0, SRC_A }, { TLP_MRD, RO, 0, SRC_A }, false, false },
    /* IDO would permit this pass, but the egress queue does not exploit
     * IDO (models/pcie/egress.c, Model:), so the read keeps its place. */
    { "IDO read from another requester still waits for the write", TLP_FC_P,
      { TLP_MWR, 0, 0, SRC_A }, { TLP_MRD, IDO, 0, SRC_B }, false, false },
    { "IDO read keeps order with its own write", TLP_FC_P,
      { TLP_MWR, 0, 0, SRC_A }, { TLP_MRD, IDO, 0, SRC_A }, false, false },
    { "completion waits behind a write", TLP_FC_P,
      { TLP_MWR, 0, 0, SRC_A }, { TLP_CPLD, 0, 0, SRC_B }, false, false },
    { "RO completion passes a write", TLP_FC_P,
      { TLP_MWR, 0, 0, SRC_A }, { TLP_CPLD, RO, 0, SRC_B }, true, false },
    { "other traffic class passes", TLP_FC_P,
      { TLP_MWR, 0, 0, SRC_A }, { TLP_MRD, 0, 1, SRC_A }, true, false },
    { "write passes a blocked read", TLP_FC_NP,
      { TLP_MRD, 0, 0, SRC_A }, { TLP_MWR, 0, 0, SRC_A }, true, false },
    { "completion passes a blocked read", TLP_FC_NP,
      { TLP_MRD, 0, 0, SRC_A }, { TLP_CPLD, 0, 0, SRC_B }, true, false },
    { "write passes a blocked completion", TLP_FC_CPL,
      { TLP_CPLD, 0, 0, SRC_B }, { TLP_MWR, 0, 0, SRC_A }, true, false },
    /* Table 2-40 permits a read to pass a completion; the egress queue's
     * separate NP and CPL FIFOs let it (models/pcie/egress.c, Model:). */
    { "read passes a blocked completion", TLP_FC_CPL,
      { TLP_CPLD, 0, 0, SRC_B }, { TLP_MRD, 0, 0, SRC_A }, true, false },
    { "read from another ingress port passes a write", TLP_FC_P,
      { TLP_MWR, 0, 0, SRC_A }, { TLP_MRD, 0, 0, 0x0300 }, true, true },
    { "completion from another ingress port passes a write", TLP_FC_P,
      { TLP_MWR, 0, 0, SRC_A }, { TLP_CPLD, 0, 0, 0x0300 }, true, true },
};

static struct tlp *order_tlp(const struct otlp *o)
{
    struct tlp *t;
    if (o->kind == TLP_CPLD) {
        t = cpl(pcie_id(BUS(0), 0, 0), o->src);   /* routed to dp0 */
    } else {
        t = req(o->kind, WIN(0) + 0x100, o->src); /* routed to dp0 */
    }
    t->attr = o->attr;
    t->tc = o->tc;
    return t;
}

static void setup_ordering(void)
{
    setup_sim();
    build(NULL, NULL, false, true);
}

START_TEST(test_psw_ordering_on_refused_egress)
{
    const struct order_case *c = &order_cases[_i];
    struct credit_link *cl = sim_link_state(l_dp0);
    for (unsigned k = 0; k < TLP_FC_COUNT; k++) {
        cl->credits[1][k] = k == c->blocked ? 0 : 8;
    }
    struct tlp *a = order_tlp(&c->first), *b = order_tlp(&c->second);
    uint64_t id_a = a->id, id_b = b->id;
    th_ep_send(ep_up, a);                       /* queued at 10 ns */
    th_ep_send(c->second_from_dp1 ? ep[1] : ep_up, b);  /* 30 or 10 ns */
    ck_assert_int_eq(sim_run(sim), SIM_RUN_IDLE);
    /* The first was refused, and offered again only after ready(): the
     * test link calls ready() when any credit returns, which happens once
     * ep0 has taken a TLP that passed. */
    ck_assert_uint_eq(cl->refusals[1], (c->passes ? 2 : 1));
    if (c->passes) {
        ck_assert_msg(E(0)->n_received == 1 && E(0)->rec[0].id == id_b,
                      "%s: the second TLP should have passed", c->name);
    } else {
        ck_assert_msg(E(0)->n_received == 0,
                      "%s: the second TLP passed", c->name);
    }
    credit_give(l_dp0, 1, c->blocked, 1);
    run_drained();
    ck_assert_uint_eq(E(0)->n_received, 2);
    ck_assert_uint_eq(E(0)->rec[0].id, c->passes ? id_b : id_a);
    ck_assert_uint_eq(E(0)->rec[1].id, c->passes ? id_a : id_b);
    ck_assert_uint_eq(stat("sw.dp0.tlps_out"), 2);
}
END_TEST

/* Writes that pass a blocked read stay in order among themselves. */
START_TEST(test_psw_ordering_passing_writes_keep_order)
{
    struct credit_link *cl = sim_link_state(l_dp0);
    cl->credits[1][TLP_FC_P] = 8;
    cl->credits[1][TLP_FC_CPL] = 8;
    struct tlp *rd = req(TLP_MRD, WIN(0), RC_ID);
    uint64_t rd_id = rd->id;
    th_ep_send(ep_up, rd);
    for (unsigned i = 0; i < 5; i++) {
        th_ep_send(ep_up, req(TLP_MWR, WIN(0) + 64 * i, RC_ID));
    }
    ck_assert_int_eq(sim_run(sim), SIM_RUN_IDLE);
    ck_assert_uint_eq(E(0)->n_received, 5);
    for (unsigned i = 0; i < 5; i++) {
        ck_assert_int_eq(E(0)->rec[i].kind, TLP_MWR);
        ck_assert_uint_eq(E(0)->rec[i].addr, WIN(0) + 64 * i);
    }
    credit_give(l_dp0, 1, TLP_FC_NP, 1);
    run_drained();
    ck_assert_uint_eq(E(0)->n_received, 6);
    ck_assert_uint_eq(E(0)->rec[5].id, rd_id);
}
END_TEST

/*
 * The egress decision is taken at delivery (switch.c, Model:): a TLP the
 * egress link refuses then is offered again at the link's ready(), and
 * still starts no earlier than delivery + latency. ep_up's write reaches
 * the switch at 10 ns; dp0 has no posted credit until `give_ps`; the test
 * link takes 10 ns.
 */
static const struct {
    sim_time_t give_ps;         /* when dp0's posted credit comes */
    sim_time_t want_ps;         /* when ep0 receives the write */
} late_credit_cases[] = {
    { SIM_NS(50), SIM_NS(10 + 100 + 10) },   /* within the latency */
    { SIM_NS(110), SIM_NS(10 + 100 + 10) },  /* exactly at its end */
    { SIM_NS(300), SIM_NS(300 + 10) },       /* after it */
};

START_TEST(test_psw_refused_at_delivery_still_waits_latency)
{
    struct credit_link *cl = sim_link_state(l_dp0);
    cl->credits[1][TLP_FC_P] = 0;
    th_ep_send(ep_up, req(TLP_MWR, WIN(0), RC_ID));
    ck_assert_int_eq(sim_run_until(sim, late_credit_cases[_i].give_ps),
                     SIM_RUN_TIME);
    ck_assert_uint_eq(cl->refusals[1], 1);
    ck_assert_uint_eq(E(0)->n_received, 0);
    credit_give(l_dp0, 1, TLP_FC_P, 1);
    run_drained();
    ck_assert_uint_eq(E(0)->n_received, 1);
    ck_assert_uint_eq(E(0)->rec[0].at, late_credit_cases[_i].want_ps);
}
END_TEST

/* ---- Limits: back-pressure through ingress credits ----------------------- */

/*
 * The ingress link gives the switch 2 posted credits; dp0's egress link
 * none. ep_up offers 5 writes for dp0. The switch's egress buffer takes
 * `queue` of them and returns their credits; the rest hold theirs, so ep_up
 * gets exactly queue + 2 writes out (at most 5).
 */
static const unsigned queue_cases[] = { 0, 1, 2, 4 };

START_TEST(test_psw_queue_bounds_buffer_before_credits_stop)
{
    unsigned queue = queue_cases[_i];
    char qs[16];
    snprintf(qs, sizeof(qs), "%u", queue);
    setup_sim();
    build(NULL, qs, true, true);
    struct credit_link *up = sim_link_state(l_up);
    struct credit_link *dn = sim_link_state(l_dp0);
    up->credits[1][TLP_FC_P] = 2;
    dn->credits[1][TLP_FC_P] = 0;

    uint64_t ids[5];
    for (unsigned i = 0; i < 5; i++) {
        struct tlp *t = req(TLP_MWR, WIN(0) + 64 * i, RC_ID);
        ids[i] = t->id;
        th_ep_send(ep_up, t);
    }
    ck_assert_int_eq(sim_run(sim), SIM_RUN_IDLE);
    unsigned want = queue + 2 < 5 ? queue + 2 : 5;
    ck_assert_uint_eq(U()->q_head, want);
    ck_assert_uint_eq(stat("sw.in_flight"), want);
    ck_assert_uint_eq(E(0)->n_received, 0);

    /* One egress credit: the oldest write leaves, the next one moves into
     * the egress buffer and returns its ingress credit, at once. */
    credit_give(l_dp0, 1, TLP_FC_P, 1);
    ck_assert_uint_eq(U()->q_head, (want + 1 < 5 ? want + 1 : 5));

    credit_give(l_dp0, 1, TLP_FC_P, 4);
    run_drained();
    ck_assert_uint_eq(U()->q_head, 5);
    ck_assert_uint_eq(E(0)->n_received, 5);
    for (unsigned i = 0; i < 5; i++) {
        ck_assert_uint_eq(E(0)->rec[i].id, ids[i]);
    }
    ck_assert_uint_eq(up->credits[1][TLP_FC_P], 2);     /* all returned */
    teardown();
}
END_TEST

/* ---- Errors -------------------------------------------------------------- */

static const struct {
    const char *ports, *latency, *queue;
    int code;
} config_cases[] = {
    { NULL, NULL, NULL, SIM_ENOENT },       /* ports is required */
    { "0", NULL, NULL, SIM_ERANGE },
    { "65", NULL, NULL, SIM_ERANGE },
    { "three", NULL, NULL, SIM_EINVAL },
    { "3", "fast", NULL, SIM_EINVAL },
    { "3", NULL, "70000", SIM_ERANGE },
};

START_TEST(test_psw_configure_rejects_bad_properties)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct sim_component *c = make_switch(config_cases[_i].ports,
                                          config_cases[_i].latency,
                                          config_cases[_i].queue, &err);
    ck_assert_ptr_null(c);
    ck_assert_msg(err.code != 0, "no error recorded");
    if (config_cases[_i].code != SIM_EINVAL) {
        ck_assert_int_eq(err.code, config_cases[_i].code);
    }
    if (!config_cases[_i].ports) {
        ck_assert_ptr_nonnull(strstr(err.msg, "ports"));
    }
}
END_TEST

START_TEST(test_psw_configure_accepts_limits)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct sim_component *c = make_switch("64", "0ns", "0", &err);
    ck_assert_ptr_nonnull(c);
    unsigned n = 0;
    ck_assert_ptr_nonnull(psw_routes(c, &n));
    ck_assert_uint_eq(n, 65);
    ck_assert_ptr_nonnull(sim_port_find(c, "dp63"));
    ck_assert_ptr_null(sim_port_find(c, "dp64"));
    ck_assert_int_eq(psw_set_acs(c, 63, PCI_ACS_EC, UINT64_C(1) << 63), 0);
}
END_TEST

/* ---- Stats --------------------------------------------------------------- */

START_TEST(test_psw_report_counts_per_port)
{
    ck_assert_int_eq(psw_set_acs(sw, 1, PCI_ACS_RR, 0), 0);
    th_ep_send(ep[0], req(TLP_MWR, WIN(1), pcie_id(BUS(0), 0, 0)));
    th_ep_send(ep[1], req(TLP_MWR, WIN(2), pcie_id(BUS(1), 0, 0)));
    run_drained();
    ck_assert_uint_eq(stat("sw.dp0.tlps_in"), 1);
    ck_assert_uint_eq(stat("sw.dp0.bytes_in"), 64);
    ck_assert_uint_eq(stat("sw.dp1.tlps_out"), 1);
    ck_assert_uint_eq(stat("sw.dp1.bytes_out"), 64);
    ck_assert_uint_eq(stat("sw.dp1.tlps_in"), 1);
    ck_assert_uint_eq(stat("sw.dp1.redirects"), 1);
    ck_assert_uint_eq(stat("sw.up.tlps_out"), 1);
    ck_assert_uint_eq(stat("sw.dp2.tlps_out"), 0);
    ck_assert_uint_eq(stat("sw.dp0.redirects"), 0);
    sim_component_reset(sw);
    ck_assert_uint_eq(stat("sw.dp0.tlps_in"), 0);
    ck_assert_uint_eq(psw_acs(sw, 1), PCI_ACS_RR);   /* kept: see psw_reset */
}
END_TEST

/* ---- the suite ----------------------------------------------------------- */

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

Suite *make_psw_suite(void)
{
    Suite *s = suite_create("psw");
    TCase *tc;

    tc = tcase_create("Routing");
    tcase_add_checked_fixture(tc, setup_bench, teardown);
    tcase_add_loop_test(tc, test_psw_routes_request_from_up_to_claiming_dp,
                        0, N_DP);
    tcase_add_test(tc, test_psw_routes_peer_request_directly_without_acs);
    tcase_add_test(tc, test_psw_routes_unclaimed_request_from_dp_upstream);
    tcase_add_test(tc, test_psw_atomicop_routing);
    tcase_add_test(tc, test_psw_answers_unclaimed_read_from_up_with_ur);
    tcase_add_test(tc, test_psw_drops_unclaimed_write_from_up);
    tcase_add_loop_test(tc, test_psw_routes_completion_by_requester_bus, 0,
                        N_OF(cpl_cases));
    tcase_add_test(tc, test_psw_ports_are_named_and_indexed);
    suite_add_tcase(s, tc);

    tc = tcase_create("ACS");
    tcase_add_checked_fixture(tc, setup_bench, teardown);
    tcase_add_loop_test(tc, test_acs_check_case_table, 0, N_OF(acs_cases));
    tcase_add_test(tc, test_acs_sv_empty_range_blocks_everything);
    tcase_add_loop_test(tc, test_psw_acs_through_switch, 0,
                        N_OF(psw_acs_cases));
    tcase_add_test(tc, test_psw_set_acs_validates);
    suite_add_tcase(s, tc);

    tc = tcase_create("Timing");
    tcase_add_loop_test(tc, test_psw_latency_is_wires_plus_switch, 0,
                        N_OF(latency_cases));
    suite_add_tcase(s, tc);
    tc = tcase_create("Pipeline");
    tcase_add_checked_fixture(tc, setup_bench, teardown);
    tcase_add_test(tc, test_psw_latency_is_pipelined);
    suite_add_tcase(s, tc);

    tc = tcase_create("Ordering");
    tcase_add_checked_fixture(tc, setup_ordering, teardown);
    tcase_add_loop_test(tc, test_psw_ordering_on_refused_egress, 0,
                        N_OF(order_cases));
    tcase_add_test(tc, test_psw_ordering_passing_writes_keep_order);
    tcase_add_loop_test(tc, test_psw_refused_at_delivery_still_waits_latency,
                        0, N_OF(late_credit_cases));
    suite_add_tcase(s, tc);

    tc = tcase_create("Limits");
    tcase_add_loop_test(tc, test_psw_queue_bounds_buffer_before_credits_stop,
                        0, N_OF(queue_cases));
    suite_add_tcase(s, tc);

    tc = tcase_create("Errors");
    tcase_add_checked_fixture(tc, setup_sim, teardown);
    tcase_add_loop_test(tc, test_psw_configure_rejects_bad_properties, 0,
                        N_OF(config_cases));
    tcase_add_test(tc, test_psw_configure_accepts_limits);
    suite_add_tcase(s, tc);

    tc = tcase_create("Stats");
    tcase_add_checked_fixture(tc, setup_bench, teardown);
    tcase_add_test(tc, test_psw_report_counts_per_port);
    suite_add_tcase(s, tc);

    return s;
}
