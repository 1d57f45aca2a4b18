/*
 * tests/models/check_rc.c - the root complex: DMA to host memory, P2P
 * between root ports (latency, policies as a table, the P2P bandwidth
 * limit), cross-socket traffic over a socket link (latency, policy,
 * back-pressure), the IOMMU (faults, then mappings, IOTLB cost), ATS
 * translation requests and ACS on root ports.
 *
 * The machine, wired by hand (routes programmed with rc_routes):
 *
 *        ep0 (01:00.0)  ep1 (02:00.0)                ep2 (81:00.0)
 *          |              |                            |
 *         rp0            rp1                          rp0
 *        [        rc0        ] xs0 ==socket link== xs0 [  rc1  ]
 *                mem                                    mem
 *                 |                                      |
 *        dram0 [0, 1 MiB)                     dram1 [1 GiB, +1 MiB)
 *
 * Every other link is an ideal wire of 20 ns with no rate limit, so the
 * expected times below are sums of the configured latencies.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/host/hostmem.h"
#include "models/host/socket_link.h"
#include "models/iommu/iommu.h"
#include "models/mem/sparse.h"
#include "models/pcie/pcie.h"
#include "models/pcie/pcie_regs.h"
#include "models/pcie/rc.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/tlp.h"
#include "sim/trace.h"
#include "tests/check_p2psim.h"
#include "tests/models/harness.h"

#define WIRE SIM_NS(20)
#define RC_LAT SIM_NS(150)
#define DRAM_LAT SIM_NS(100)
#define XS_LAT SIM_NS(120)

#define DRAM0 UINT64_C(0)
#define DRAM1 UINT64_C(0x40000000)
#define DRAM_SIZE (UINT64_C(1) << 20)
#define W0 UINT64_C(0x100000000000)         /* below rc0.rp0 */
#define W1 UINT64_C(0x100001000000)         /* below rc0.rp1 */
#define W2 UINT64_C(0x200000000000)         /* below rc1.rp0 */
#define WSIZE (UINT64_C(16) << 20)
#define NOWHERE UINT64_C(0x300000000000)

#define ID_EP0 0x0100
#define ID_EP1 0x0200
#define ID_EP2 0x8100

struct rig {
    struct sim *sim;
    struct sim_component *rc0, *rc1;
    struct sim_component *ep0, *ep1, *ep2;
    struct sim_component *dram0, *dram1;
    struct sim_link *l_ep0, *xs;
};

/* props from "key=value key=value" (values without spaces) */
static void props_parse(struct sim_props *p, const char *owner,
                        const char *spec)
{
    sim_props_init(p, owner, NULL);
    char buf[512];
    ck_assert_uint_lt(strlen(spec), sizeof(buf));
    strcpy(buf, spec);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        ck_assert_ptr_nonnull(eq);
        *eq = '\0';
        ck_assert_int_eq(sim_props_set(p, tok, eq + 1, NULL, NULL), 0);
    }
}

static struct sim_component *make(struct sim *sim,
                                  const struct sim_component_ops *ops,
                                  const char *name, const char *spec)
{
    struct sim_component *c = sim_component_create(sim, ops, name, NULL);
    ck_assert_ptr_nonnull(c);
    struct sim_props p;
    props_parse(&p, name, spec);
    struct sim_error err;
    sim_error_clear(&err);
    ck_assert_msg(sim_component_configure(c, &p, &err) == 0, "%s: %s", name,
                  err.msg);
    ck_assert_int_eq(sim_props_check_unused(&p, &err), 0);
    sim_props_fini(&p);
    return c;
}

static struct sim_link *wire(struct sim *sim, struct sim_component *a,
                             const char *pa, struct sim_component *b,
                             const char *pb)
{
    char name[64];
    snprintf(name, sizeof(name), "%s.%s--%s.%s", a->name, pa, b->name, pb);
    struct sim_link *l = sim_link_create(sim, &sim_wire_ops, name, NULL);
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(sim_link_connect(l, sim_port_find(a, pa),
                                      sim_port_find(b, pb), NULL), 0);
    sim_wire_set(l, WIRE, 0);
    return l;
}

static void route(struct pcie_route *r, unsigned bus_sec, unsigned bus_sub,
                  uint64_t base, uint64_t size)
{
    r->valid = true;
    r->bus_sec = (uint8_t)bus_sec;
    r->bus_sub = (uint8_t)bus_sub;
    if (size) {
        ck_assert_int_eq(pcie_route_add_window(r, base, base + size - 1), 0);
    }
}

static struct sim_component *endpoint(struct sim *sim, const char *name,
                                      uint16_t id)
{
    struct sim_component *c = th_ep_create(sim, name);
    ck_assert_ptr_nonnull(c);
    th_ep(c)->id = id;
    th_ep(c)->completer = true;
    th_ep(c)->cpl_latency = SIM_NS(50);
    return c;
}

static void rig_init(struct rig *r, const char *rc0_spec, const char *rc1_spec,
                     const char *xs_queue)
{
    memset(r, 0, sizeof(*r));
    struct sim_config cfg = { .seed = 1 };
    r->sim = sim_create(&cfg, NULL);
    ck_assert_ptr_nonnull(r->sim);
    char spec[512];
    snprintf(spec, sizeof(spec),
             "root-ports=2 socket-links=1 latency=150ns %s", rc0_spec);
    r->rc0 = make(r->sim, &rc_ops, "rc0", spec);
    snprintf(spec, sizeof(spec),
             "root-ports=1 socket-links=1 latency=150ns %s", rc1_spec);
    r->rc1 = make(r->sim, &rc_ops, "rc1", spec);
    const char *mem = "size=1MiB latency=100ns bandwidth=64GB/s";
    r->dram0 = make(r->sim, &hmem_ops, "dram0", mem);
    r->dram1 = make(r->sim, &hmem_ops, "dram1", mem);
    hmem_set_base(r->dram0, DRAM0, 0x0000);
    hmem_set_base(r->dram1, DRAM1, 0x8000);
    r->ep0 = endpoint(r->sim, "ep0", ID_EP0);
    r->ep1 = endpoint(r->sim, "ep1", ID_EP1);
    r->ep2 = endpoint(r->sim, "ep2", ID_EP2);

    r->l_ep0 = wire(r->sim, r->ep0, "p", r->rc0, "rp0");
    wire(r->sim, r->ep1, "p", r->rc0, "rp1");
    wire(r->sim, r->dram0, "up", r->rc0, "mem");
    wire(r->sim, r->ep2, "p", r->rc1, "rp0");
    wire(r->sim, r->dram1, "up", r->rc1, "mem");
    r->xs = sim_link_create(r->sim, &socket_link_ops, "xgmi", NULL);
    struct sim_props p;
    char xs_spec[128];
    snprintf(xs_spec, sizeof(xs_spec), "bandwidth=10GB/s latency=120ns "
             "queue=%s", xs_queue);
    props_parse(&p, "xgmi", xs_spec);
    ck_assert_int_eq(sim_link_configure(r->xs, &p, NULL), 0);
    sim_props_fini(&p);
    ck_assert_int_eq(sim_link_connect(r->xs, sim_port_find(r->rc0, "xs0"),
                                      sim_port_find(r->rc1, "xs0"), NULL), 0);

    unsigned n;
    struct pcie_route *rt = rc_routes(r->rc0, &n);
    ck_assert_uint_eq(n, 4);
    ck_assert_uint_eq(rc_n_root_ports(r->rc0), 2);
    route(&rt[0], 0x01, 0x01, W0, WSIZE);
    route(&rt[1], 0x02, 0x02, W1, WSIZE);
    route(&rt[2], 1, 0, DRAM0, DRAM_SIZE);
    route(&rt[3], 0x80, 0x8f, DRAM1, DRAM_SIZE);
    ck_assert_int_eq(pcie_route_add_window(&rt[3], W2, W2 + WSIZE - 1), 0);
    rt = rc_routes(r->rc1, &n);
    ck_assert_uint_eq(n, 3);
    route(&rt[0], 0x81, 0x81, W2, WSIZE);
    route(&rt[1], 1, 0, DRAM1, DRAM_SIZE);
    route(&rt[2], 0x01, 0x02, DRAM0, DRAM_SIZE);
    ck_assert_int_eq(pcie_route_add_window(&rt[2], W0, W0 + 2 * WSIZE - 1),
                     0);
}

static void rig_fini(struct rig *r)
{
    sim_destroy(r->sim);
}

static struct th_ep *ep(struct sim_component *c)
{
    return th_ep(c);
}

static void send_write(struct rig *r, struct sim_component *from,
                       uint64_t addr, uint32_t len)
{
    struct tlp *t = th_mwr(r->sim, addr, len, true);
    t->requester_id = ep(from)->id;
    th_ep_send(from, t);
}

static void send_read(struct rig *r, struct sim_component *from,
                      uint64_t addr, uint32_t len, uint16_t tag)
{
    struct tlp *t = th_mrd(r->sim, addr, len, tag);
    t->requester_id = ep(from)->id;
    th_ep_send(from, t);
}

static void send_kind(struct rig *r, struct sim_component *from,
                      enum tlp_kind k, uint64_t addr, uint32_t len)
{
    struct tlp *t = tlp_alloc(r->sim, k);
    t->addr = addr;
    t->len_bytes = len;
    t->requester_id = ep(from)->id;
    if (tlp_kind_has_data(k)) {
        ck_assert_int_eq(tlp_data_alloc(t, len), 0);
        memset(t->data, 1, len);
    }
    th_ep_send(from, t);
}

static struct rc_counters counters(struct sim_component *rc)
{
    struct rc_counters c;
    rc_get_counters(rc, &c);
    return c;
}

/* ---- host memory --------------------------------------------------------- */

START_TEST(test_rc_dma_to_host_memory_lands)
{
    struct rig r;
    rig_init(&r, "", "", "16KiB");
    send_write(&r, r.ep0, DRAM0 + 0x1040, 64);
    sim_run(r.sim);
    uint8_t got[64], want[64];
    memset(want, 0x40, sizeof(want));
    ck_assert_int_eq(mem_sparse_read(hmem_store(r.dram0), 0x1040, got, 64), 0);
    ck_assert_mem_eq(got, want, 64);

    sim_time_t t0 = sim_now(r.sim);
    send_read(&r, r.ep0, DRAM0 + 0x1040, 64, 7);
    sim_run(r.sim);
    struct th_ep *e = ep(r.ep0);
    ck_assert_uint_eq(e->n_rec, 1);
    ck_assert_int_eq(e->rec[0].kind, TLP_CPLD);
    ck_assert_uint_eq(e->rec[0].cpl_status, TLP_CPL_SC);
    ck_assert_uint_eq(e->rec[0].tag, 7);
    ck_assert_uint_eq(e->rec[0].first_byte, 0x40);
    /* wire, rc, wire, DRAM (100 ns + 64 B at 64 GB/s), wire, rc, wire */
    ck_assert_uint_eq(e->rec[0].at - t0,
                      4 * WIRE + 2 * RC_LAT + DRAM_LAT + SIM_NS(1));
    ck_assert_uint_eq(counters(r.rc0).to_memory, 2);
    ck_assert_uint_eq(counters(r.rc0).p2p_forwarded, 0);
    ck_assert_uint_eq(tlp_pool_live(r.sim), 0);
    rig_fini(&r);
}
END_TEST

/* ---- peer to peer between root ports ------------------------------------- */

START_TEST(test_rc_p2p_forward_adds_p2p_latency)
{
    struct rig r;
    rig_init(&r, "p2p-latency=300ns", "", "16KiB");
    send_write(&r, r.ep0, W1 + 0x100, 64);
    sim_run(r.sim);
    struct th_ep *e1 = ep(r.ep1);
    ck_assert_uint_eq(e1->n_rec, 1);
    ck_assert_int_eq(e1->rec[0].kind, TLP_MWR);
    ck_assert_uint_eq(e1->rec[0].addr, W1 + 0x100);
    ck_assert_uint_eq(e1->rec[0].at, 2 * WIRE + RC_LAT + SIM_NS(300));

    /* a P2P read: the request and its completion both take the P2P path */
    e1->n_rec = 0;
    sim_time_t t0 = sim_now(r.sim);
    send_read(&r, r.ep0, W1 + 0x200, 128, 9);
    sim_run(r.sim);
    struct th_ep *e0 = ep(r.ep0);
    ck_assert_uint_eq(e1->n_rec, 1);
    ck_assert_uint_eq(e0->n_rec, 1);
    ck_assert_int_eq(e0->rec[0].kind, TLP_CPLD);
    ck_assert_uint_eq(e0->rec[0].cpl_status, TLP_CPL_SC);
    ck_assert_uint_eq(e0->rec[0].requester_id, ID_EP0);
    ck_assert_uint_eq(e0->rec[0].at - t0, 2 * (2 * WIRE + RC_LAT +
                                               SIM_NS(300)) + SIM_NS(50));
    ck_assert_uint_eq(counters(r.rc0).p2p_forwarded, 2);
    rig_fini(&r);
}
END_TEST

struct policy_case {
    const char *spec;
    enum tlp_kind kind;
    bool reaches_peer;          /* ep1 sees the request */
    int answer;                 /* at ep0: -1 nothing, else its kind */
    uint8_t status;
    uint64_t forwarded, refused;
};

static const struct policy_case policy_cases[] = {
    { "p2p=forward", TLP_MWR, true, -1, 0, 1, 0 },
    { "p2p=forward", TLP_MRD, true, TLP_CPLD, TLP_CPL_SC, 1, 0 },
    /* AtomicOps between root ports need p2p-atomics (PCIe r6.0 §6.15.2):
     * without it UR, counted as unsupported, not as a policy refusal */
    { "p2p=forward", TLP_FETCHADD, false, TLP_CPL, TLP_CPL_UR, 0, 0 },
    { "p2p=forward p2p-atomics=true", TLP_FETCHADD, true, -1, 0, 1, 0 },
    { "p2p=writes-only", TLP_MWR, true, -1, 0, 1, 0 },
    { "p2p=writes-only", TLP_MRD, false, TLP_CPL, TLP_CPL_UR, 0, 1 },
    { "p2p=writes-only", TLP_FETCHADD, false, TLP_CPL, TLP_CPL_UR, 0, 1 },
    { "p2p=refuse", TLP_MWR, false, -1, 0, 0, 1 },
    { "p2p=refuse", TLP_MRD, false, TLP_CPL, TLP_CPL_UR, 0, 1 },
    { "p2p=refuse", TLP_CAS, false, TLP_CPL, TLP_CPL_UR, 0, 1 },
};

START_TEST(test_rc_p2p_policy)
{
    const struct policy_case *pc = &policy_cases[_i];
    struct rig r;
    rig_init(&r, pc->spec, "", "16KiB");
    uint32_t len = pc->kind == TLP_MRD ? 64 : pc->kind == TLP_CAS ? 16 : 8;
    send_kind(&r, r.ep0, pc->kind, W1 + 0x40, len);
    sim_run(r.sim);
    ck_assert_uint_eq(ep(r.ep1)->n_rec, pc->reaches_peer ? 1 : 0);
    struct th_ep *e0 = ep(r.ep0);
    if (pc->answer < 0) {
        ck_assert_uint_eq(e0->n_rec, 0);
    } else {
        ck_assert_uint_eq(e0->n_rec, 1);
        ck_assert_int_eq(e0->rec[0].kind, pc->answer);
        ck_assert_uint_eq(e0->rec[0].cpl_status, pc->status);
    }
    if (pc->status == TLP_CPL_UR) {
        /* the RC answers at once: wire, rc, wire */
        ck_assert_uint_eq(e0->rec[0].at, 2 * WIRE + RC_LAT);
    }
    struct rc_counters c = counters(r.rc0);
    ck_assert_uint_eq(c.p2p_forwarded, pc->forwarded);
    ck_assert_uint_eq(c.p2p_refused, pc->refused);
    ck_assert_uint_eq(tlp_pool_live(r.sim), 0);
    rig_fini(&r);
}
END_TEST

struct bw_case {
    const char *spec;
    double rate;                /* expected bytes/s of header + payload */
};

static const struct bw_case bw_cases[] = {
    { "p2p-bandwidth=10GB/s", 10e9 },
    { "p2p-bandwidth=25GB/s", 25e9 },
    { "", 32e9 },               /* no limit: ep0's 32 GB/s link limits */
};

START_TEST(test_rc_p2p_bandwidth_limits_stream)
{
    const struct bw_case *bc = &bw_cases[_i];
    struct rig r;
    rig_init(&r, bc->spec, "", "16KiB");
    sim_wire_set(r.l_ep0, WIRE, UINT64_C(32000000000));
    const unsigned n = 500;
    for (unsigned i = 0; i < n; i++) {
        send_write(&r, r.ep0, W1 + 256 * i, 256);
    }
    sim_run(r.sim);
    struct th_ep *e1 = ep(r.ep1);
    ck_assert_uint_eq(e1->n_received, n);
    /* 256 B payload + 16 B header (64-bit address) per write */
    double bytes = (double)(n - 1) * (256 + 16);
    double secs = sim_time_to_s(e1->last_at - e1->first_at);
    double rate = bytes / secs;
    ck_assert_msg(rate > bc->rate * 0.98 && rate < bc->rate * 1.02,
                  "%s: %.3f GB/s, expected %.3f", bc->spec, rate / 1e9,
                  bc->rate / 1e9);
    rig_fini(&r);
}
END_TEST

/* ---- across sockets ------------------------------------------------------ */

/* xsocket-p2p-bandwidth: the target's socket paces P2P writes arriving
 * from a socket link (header + payload), the sender's socket does not,
 * and writes to the other socket's DRAM are not peer-to-peer. */
struct xs_case {
    const char *rc0, *rc1;
    uint64_t to;                /* W2 (ep2) or DRAM1 */
    double rate;                /* expected bytes/s of header + payload */
};

static const struct xs_case xs_cases[] = {
    { "", "xsocket-p2p-bandwidth=4GB/s", W2, 4e9 },
    { "xsocket-p2p-bandwidth=4GB/s", "", W2, 10e9 },  /* the socket link's */
    { "", "", W2, 10e9 },
};

START_TEST(test_rc_xsocket_p2p_bandwidth_limits_stream)
{
    const struct xs_case *xc = &xs_cases[_i];
    struct rig r;
    rig_init(&r, xc->rc0, xc->rc1, "16KiB");
    sim_wire_set(r.l_ep0, WIRE, UINT64_C(32000000000));
    const unsigned n = 500;
    for (unsigned i = 0; i < n; i++) {
        send_write(&r, r.ep0, xc->to + 256 * i, 256);
    }
    sim_run(r.sim);
    struct th_ep *e2 = ep(r.ep2);
    ck_assert_uint_eq(e2->n_received, n);
    double rate = (double)(n - 1) * (256 + 16) /
                  sim_time_to_s(e2->last_at - e2->first_at);
    ck_assert_msg(rate > xc->rate * 0.98 && rate < xc->rate * 1.02,
                  "%s|%s: %.3f GB/s, expected %.3f", xc->rc0, xc->rc1,
                  rate / 1e9, xc->rate / 1e9);
    rig_fini(&r);
}
END_TEST

/* The completions of reads across, paced by the completer's socket; reads
 * of the other socket's DRAM are not. */
START_TEST(test_rc_xsocket_p2p_bandwidth_paces_completions)
{
    const uint64_t to[2] = { W2, DRAM1 };
    sim_time_t took[2];
    for (unsigned k = 0; k < 2; k++) {
        struct rig r;
        rig_init(&r, "", "xsocket-p2p-bandwidth=2GB/s", "16KiB");
        const unsigned n = 64;
        for (unsigned i = 0; i < n; i++) {
            send_read(&r, r.ep0, to[k] + 256 * i, 256, (uint16_t)i);
        }
        sim_run(r.sim);
        struct th_ep *e0 = ep(r.ep0);
        ck_assert_uint_eq(e0->n_received, n);
        took[k] = e0->last_at - e0->first_at;
        rig_fini(&r);
    }
    /* 63 CplDs of 12 + 256 B at 2 GB/s: 8.44 us; at the socket link's
     * 10 GB/s from DRAM: 1.69 us */
    double secs = sim_time_to_s(took[0]);
    ck_assert_msg(secs > 63 * 268 / 2e9 * 0.98 && secs < 63 * 268 / 2e9 * 1.02,
                  "%.3f us", secs * 1e6);
    ck_assert_uint_lt(took[1], took[0] / 3);
}
END_TEST

START_TEST(test_rc_xsocket_forward)
{
    struct rig r;
    rig_init(&r, "", "", "16KiB");
    send_write(&r, r.ep0, W2 + 0x80, 64);
    sim_run(r.sim);
    struct th_ep *e2 = ep(r.ep2);
    ck_assert_uint_eq(e2->n_rec, 1);
    ck_assert_uint_eq(e2->rec[0].addr, W2 + 0x80);
    /* 64 B + 16 B header at 10 GB/s = 8 ns on the socket link */
    ck_assert_uint_eq(e2->rec[0].at,
                      2 * WIRE + 2 * RC_LAT + SIM_NS(8) + XS_LAT);
    ck_assert_uint_eq(counters(r.rc1).xsocket_forwarded, 1);

    /* a read across: the completion finds its way back by bus number */
    sim_time_t t0 = sim_now(r.sim);
    send_read(&r, r.ep0, W2 + 0x100, 64, 3);
    sim_run(r.sim);
    struct th_ep *e0 = ep(r.ep0);
    ck_assert_uint_eq(e0->n_rec, 1);
    ck_assert_int_eq(e0->rec[0].kind, TLP_CPLD);
    ck_assert_uint_eq(e0->rec[0].tag, 3);
    /* request 16 B (1.6 ns), CplD 12 + 64 B (7.6 ns) on the socket link */
    ck_assert_uint_eq(e0->rec[0].at - t0,
                      4 * WIRE + 4 * RC_LAT + 2 * XS_LAT + 1600 + 7600 +
                      SIM_NS(50));
    rig_fini(&r);
}
END_TEST

START_TEST(test_rc_xsocket_refuse)
{
    struct rig r;
    rig_init(&r, "xsocket-p2p=refuse", "xsocket-p2p=refuse", "16KiB");
    send_read(&r, r.ep0, W2 + 0x100, 64, 5);
    send_write(&r, r.ep0, W2 + 0x200, 64);
    sim_run(r.sim);
    ck_assert_uint_eq(ep(r.ep2)->n_rec, 0);
    struct th_ep *e0 = ep(r.ep0);
    ck_assert_uint_eq(e0->n_rec, 1);
    ck_assert_int_eq(e0->rec[0].kind, TLP_CPL);
    ck_assert_uint_eq(e0->rec[0].cpl_status, TLP_CPL_UR);
    ck_assert_uint_eq(e0->rec[0].tag, 5);
    /* MRd 16 B (1.6 ns) over, Cpl 12 B (1.2 ns) back */
    ck_assert_uint_eq(e0->rec[0].at,
                      2 * WIRE + 3 * RC_LAT + 2 * XS_LAT + 1600 + 1200);
    struct rc_counters c = counters(r.rc1);
    ck_assert_uint_eq(c.xsocket_refused, 2);
    ck_assert_uint_eq(c.xsocket_forwarded, 0);

    /* the other socket's DRAM is not peer-to-peer: always reachable */
    e0->n_rec = 0;
    send_write(&r, r.ep0, DRAM1 + 0x340, 64);
    send_read(&r, r.ep0, DRAM1 + 0x340, 64, 6);
    sim_run(r.sim);
    ck_assert_uint_eq(e0->n_rec, 1);
    ck_assert_int_eq(e0->rec[0].kind, TLP_CPLD);
    ck_assert_uint_eq(e0->rec[0].cpl_status, TLP_CPL_SC);
    ck_assert_uint_eq(e0->rec[0].first_byte, 0x40);
    uint8_t b;
    ck_assert_int_eq(mem_sparse_read(hmem_store(r.dram1), 0x340, &b, 1), 0);
    ck_assert_uint_eq(b, 0x40);
    ck_assert_uint_eq(counters(r.rc1).to_memory, 2);
    ck_assert_uint_eq(tlp_pool_live(r.sim), 0);
    rig_fini(&r);
}
END_TEST

START_TEST(test_rc_xsocket_back_pressure_keeps_order)
{
    /*
     * A 300-byte queue holds one 272-byte write: the link refuses the
     * next write until the previous one is on the wire, but would take a
     * 16-byte read, which must still wait for the writes before it.
     */
    struct rig r;
    rig_init(&r, "", "", "300B");
    const unsigned n = 20;
    for (unsigned i = 0; i < n; i++) {
        send_write(&r, r.ep0, W2 + 256 * i, 256);
    }
    send_read(&r, r.ep0, W2, 64, 11);
    sim_run(r.sim);
    struct th_ep *e2 = ep(r.ep2);
    ck_assert_uint_eq(e2->n_rec, n + 1);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_int_eq(e2->rec[i].kind, TLP_MWR);
        ck_assert_uint_eq(e2->rec[i].addr, W2 + 256 * i);
        if (i > 0) {
            /* back to back on the socket link: 272 B at 10 GB/s */
            ck_assert_uint_eq(e2->rec[i].at - e2->rec[i - 1].at, 27200);
        }
    }
    /* the read did not pass the writes (PCIe r6.0 §2.4.1) */
    ck_assert_int_eq(e2->rec[n].kind, TLP_MRD);
    ck_assert_uint_eq(ep(r.ep0)->n_rec, 1);
    ck_assert_uint_eq(ep(r.ep0)->rec[0].tag, 11);
    struct sim_stats *st = sim_stats_create();
    r.xs->ops->report(r.xs, st);
    uint64_t v = 0;
    ck_assert(sim_stats_get(st, "xgmi.dir0.refusals", &v));
    ck_assert_uint_gt(v, 0);
    sim_stats_destroy(st);
    rig_fini(&r);
}
END_TEST

/* ---- the IOMMU ----------------------------------------------------------- */

struct fault_log {
    unsigned n;
    uint64_t addr;
    uint64_t rid;
};

static void on_model_trace(void *ctx, const struct sim_trace_record *rec)
{
    struct fault_log *f = ctx;
    if (rec->msg && strcmp(rec->msg, "iommu fault") == 0) {
        f->n++;
        f->addr = rec->a;
        f->rid = rec->b;
    }
}

START_TEST(test_rc_iommu_fault_then_map)
{
    struct rig r;
    rig_init(&r, "iommu=translating iotlb-miss-latency=400ns "
                 "iotlb-hit-latency=10ns", "", "16KiB");
    struct fault_log fl = { 0 };
    ck_assert_int_eq(sim_trace_subscribe(r.sim, on_model_trace, &fl,
                                         SIM_TRACE_BIT(SIM_TP_MODEL)), 0);
    struct iommu *mmu = rc_iommu(r.rc0);
    ck_assert_int_eq(iommu_mode(mmu), IOMMU_TRANSLATING);

    /* no mapping: the write is dropped, memory untouched */
    send_write(&r, r.ep0, DRAM0 + 0x2040, 64);
    sim_run(r.sim);
    uint8_t got[64], zero[64] = { 0 };
    ck_assert_int_eq(mem_sparse_read(hmem_store(r.dram0), 0x2040, got, 64), 0);
    ck_assert_mem_eq(got, zero, 64);
    ck_assert_uint_eq(mem_sparse_backed_bytes(hmem_store(r.dram0)), 0);
    unsigned n;
    const struct iommu_fault *f = iommu_faults(mmu, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(f[0].requester_id, ID_EP0);
    ck_assert_uint_eq(f[0].addr, DRAM0 + 0x2040);
    ck_assert(f[0].write);
    ck_assert_uint_eq(fl.n, 1);
    ck_assert_uint_eq(fl.addr, DRAM0 + 0x2040);
    ck_assert_uint_eq(fl.rid, ID_EP0);

    /* ... a read gets UR after the walk ... */
    sim_time_t t0 = sim_now(r.sim);
    send_read(&r, r.ep0, DRAM0 + 0x2040, 64, 1);
    sim_run(r.sim);
    struct th_ep *e0 = ep(r.ep0);
    ck_assert_uint_eq(e0->n_rec, 1);
    ck_assert_int_eq(e0->rec[0].kind, TLP_CPL);
    ck_assert_uint_eq(e0->rec[0].cpl_status, TLP_CPL_UR);
    ck_assert_uint_eq(e0->rec[0].at - t0, 2 * WIRE + RC_LAT + SIM_NS(400));

    /* ... and P2P to a peer BAR faults the same way (user story 2) */
    send_write(&r, r.ep0, W1, 64);
    sim_run(r.sim);
    ck_assert_uint_eq(ep(r.ep1)->n_rec, 0);
    ck_assert_uint_eq(counters(r.rc0).iommu_faults, 3);
    ck_assert_uint_eq(counters(r.rc0).p2p_forwarded, 0);

    /* once mapped, the same DMA passes; the read hits the IOTLB */
    ck_assert_int_eq(iommu_map(mmu, ID_EP0, DRAM0 + 0x2000, 4096), 0);
    send_write(&r, r.ep0, DRAM0 + 0x2040, 64);
    sim_run(r.sim);
    ck_assert_int_eq(mem_sparse_read(hmem_store(r.dram0), 0x2040, got, 1), 0);
    ck_assert_uint_eq(got[0], 0x40);
    e0->n_rec = 0;
    t0 = sim_now(r.sim);
    send_read(&r, r.ep0, DRAM0 + 0x2040, 64, 2);
    sim_run(r.sim);
    ck_assert_uint_eq(e0->n_rec, 1);
    ck_assert_int_eq(e0->rec[0].kind, TLP_CPLD);
    ck_assert_uint_eq(e0->rec[0].cpl_status, TLP_CPL_SC);
    ck_assert_uint_eq(e0->rec[0].first_byte, 0x40);
    ck_assert_uint_eq(e0->rec[0].at - t0, 4 * WIRE + 2 * RC_LAT +
                                              SIM_NS(10) + DRAM_LAT +
                                              SIM_NS(1));
    ck_assert_uint_eq(counters(r.rc0).iommu_faults, 3);
    ck_assert_uint_eq(fl.n, 3);
    rig_fini(&r);
}
END_TEST

/* Two writes to one address: the first misses the IOTLB, the second hits. */
START_TEST(test_rc_iotlb_miss_does_not_reorder_writes)
{
    struct rig r;
    rig_init(&r, "iommu=translating iotlb-miss-latency=400ns "
                 "iotlb-hit-latency=10ns", "", "16KiB");
    ck_assert_int_eq(iommu_map(rc_iommu(r.rc0), ID_EP0, 0x4000, 4096), 0);
    for (uint8_t v = 1; v <= 2; v++) {
        struct tlp *t = th_mwr(r.sim, 0x4000, 64, true);
        memset(t->data, v, 64);
        t->requester_id = ID_EP0;
        th_ep_send(r.ep0, t);
    }
    sim_run(r.sim);
    uint8_t b;
    ck_assert_int_eq(mem_sparse_read(hmem_store(r.dram0), 0x4000, &b, 1), 0);
    ck_assert_uint_eq(b, 2);
    struct iommu_counters ic;
    iommu_get_counters(rc_iommu(r.rc0), &ic);
    ck_assert_uint_eq(ic.misses, 1);
    ck_assert_uint_eq(ic.hits, 1);
    rig_fini(&r);
}
END_TEST

/*
 * A TLP that needs no more than `latency` goes on at delivery (rc.c), but
 * not past an earlier TLP of its port still waiting out an IOTLB walk:
 * the first write misses (due at 20 + 150 + 400 ns), the second arrives
 * at 470 ns and hits at no cost (due at 620 ns), after the first's walk
 * began but before it ended.
 */
START_TEST(test_rc_no_pass_of_a_tlp_still_in_the_iotlb)
{
    struct rig r;
    rig_init(&r, "iommu=translating iotlb-miss-latency=400ns "
                 "iotlb-hit-latency=0ns", "", "16KiB");
    ck_assert_int_eq(iommu_map(rc_iommu(r.rc0), ID_EP0, 0x4000, 4096), 0);
    for (uint8_t v = 1; v <= 2; v++) {
        if (v == 2) {
            ck_assert_int_eq(sim_run_until(r.sim, SIM_NS(450)),
                             SIM_RUN_TIME);
        }
        struct tlp *t = th_mwr(r.sim, 0x4000, 64, true);
        memset(t->data, v, 64);
        t->requester_id = ID_EP0;
        th_ep_send(r.ep0, t);
    }
    sim_run(r.sim);
    uint8_t b;
    ck_assert_int_eq(mem_sparse_read(hmem_store(r.dram0), 0x4000, &b, 1), 0);
    ck_assert_uint_eq(b, 2);
    struct iommu_counters ic;
    iommu_get_counters(rc_iommu(r.rc0), &ic);
    ck_assert_uint_eq(ic.misses, 1);
    ck_assert_uint_eq(ic.hits, 1);
    rig_fini(&r);
}
END_TEST

START_TEST(test_rc_iommu_passthrough_allows_all)
{
    struct rig r;
    rig_init(&r, "iommu=passthrough", "", "16KiB");
    send_write(&r, r.ep0, DRAM0 + 0x40, 64);
    send_write(&r, r.ep0, W1, 64);
    sim_run(r.sim);
    uint8_t b;
    ck_assert_int_eq(mem_sparse_read(hmem_store(r.dram0), 0x40, &b, 1), 0);
    ck_assert_uint_eq(b, 0x40);
    ck_assert_uint_eq(ep(r.ep1)->n_rec, 1);
    ck_assert_uint_eq(counters(r.rc0).iommu_faults, 0);
    rig_fini(&r);
}
END_TEST

/* ---- ATS ----------------------------------------------------------------- */

static void send_treq(struct rig *r, uint64_t addr)
{
    struct tlp *t = tlp_alloc(r->sim, TLP_ATS_TREQ);
    t->addr = addr;
    t->len_bytes = 8;
    t->at = TLP_AT_TRANS_REQ;
    t->requester_id = ID_EP0;
    th_ep_send(r->ep0, t);
}

START_TEST(test_rc_ats_translation_requests)
{
    struct rig r;
    rig_init(&r, "iommu=translating ats=true iotlb-miss-latency=400ns "
                 "iotlb-hit-latency=10ns", "", "16KiB");
    ck_assert_int_eq(iommu_map(rc_iommu(r.rc0), ID_EP0, 0x3000, 4096), 0);
    struct th_ep *e0 = ep(r.ep0);
    send_treq(&r, 0x3000);
    sim_run(r.sim);
    sim_time_t t0 = sim_now(r.sim);
    send_treq(&r, 0x3800);
    sim_run(r.sim);
    sim_time_t t1 = sim_now(r.sim);
    send_treq(&r, 0x5000);
    sim_run(r.sim);
    ck_assert_uint_eq(e0->n_rec, 3);
    ck_assert_int_eq(e0->rec[0].kind, TLP_ATS_TCPL);
    ck_assert_uint_eq(e0->rec[0].cpl_status, TLP_CPL_SC);
    ck_assert_uint_eq(e0->rec[0].len_bytes, 8);
    ck_assert_uint_eq(e0->rec[0].at, 2 * WIRE + RC_LAT + SIM_NS(400));
    ck_assert_int_eq(e0->rec[1].kind, TLP_ATS_TCPL);
    ck_assert_uint_eq(e0->rec[1].cpl_status, TLP_CPL_SC);
    ck_assert_uint_eq(e0->rec[1].at - t0, 2 * WIRE + RC_LAT + SIM_NS(10));
    ck_assert_int_eq(e0->rec[2].kind, TLP_ATS_TCPL);
    ck_assert_uint_eq(e0->rec[2].cpl_status, TLP_CPL_UR);
    ck_assert_uint_eq(e0->rec[2].at - t1, 2 * WIRE + RC_LAT + SIM_NS(400));

    /* a translated write skips the IOMMU ... */
    struct tlp *t = th_mwr(r.sim, 0x5040, 64, true);
    t->requester_id = ID_EP0;
    t->at = TLP_AT_TRANSLATED;
    th_ep_send(r.ep0, t);
    sim_run(r.sim);
    uint8_t b;
    ck_assert_int_eq(mem_sparse_read(hmem_store(r.dram0), 0x5040, &b, 1), 0);
    ck_assert_uint_eq(b, 0x40);
    /* ... unless the root port blocks translated requests (ACS TB) */
    ck_assert_int_eq(rc_set_acs(r.rc0, 0, PCI_ACS_TB), 0);
    t = th_mwr(r.sim, 0x6040, 64, true);
    t->requester_id = ID_EP0;
    t->at = TLP_AT_TRANSLATED;
    th_ep_send(r.ep0, t);
    sim_run(r.sim);
    ck_assert_int_eq(mem_sparse_read(hmem_store(r.dram0), 0x6040, &b, 1), 0);
    ck_assert_uint_eq(b, 0x00);
    ck_assert_uint_eq(counters(r.rc0).iommu_faults, 1);
    rig_fini(&r);
}
END_TEST

START_TEST(test_rc_ats_off_answers_ur)
{
    struct rig r;
    rig_init(&r, "iommu=translating", "", "16KiB");
    ck_assert_int_eq(iommu_map(rc_iommu(r.rc0), ID_EP0, 0x3000, 4096), 0);
    send_treq(&r, 0x3000);
    sim_run(r.sim);
    ck_assert_uint_eq(ep(r.ep0)->n_rec, 1);
    ck_assert_int_eq(ep(r.ep0)->rec[0].kind, TLP_ATS_TCPL);
    ck_assert_uint_eq(ep(r.ep0)->rec[0].cpl_status, TLP_CPL_UR);
    rig_fini(&r);
}
END_TEST

/* ---- ACS on root ports --------------------------------------------------- */

static const uint16_t acs_cases[] = {
    0, PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_UF, PCI_ACS_SV | PCI_ACS_RR,
};

START_TEST(test_rc_acs_redirect_changes_nothing)
{
    struct rig r;
    rig_init(&r, "", "", "16KiB");
    ck_assert_int_eq(rc_set_acs(r.rc0, 0, acs_cases[_i]), 0);
    ck_assert_uint_eq(rc_acs(r.rc0, 0), acs_cases[_i]);
    send_write(&r, r.ep0, W1, 64);
    sim_run(r.sim);
    ck_assert_uint_eq(ep(r.ep1)->n_rec, 1);
    ck_assert_uint_eq(ep(r.ep1)->rec[0].at, 2 * WIRE + RC_LAT);
    rig_fini(&r);
}
END_TEST

START_TEST(test_rc_acs_source_validation)
{
    struct rig r;
    rig_init(&r, "", "", "16KiB");
    ck_assert_int_eq(rc_set_acs(r.rc0, 0, PCI_ACS_SV), 0);
    /* requester 05:00.0 is not below rp0 (bus 1) */
    struct tlp *t = th_mwr(r.sim, DRAM0 + 0x40, 64, true);
    t->requester_id = 0x0500;
    th_ep_send(r.ep0, t);
    t = th_mrd(r.sim, DRAM0 + 0x40, 64, 4);
    t->requester_id = 0x0100;       /* honest: passes */
    th_ep_send(r.ep0, t);
    sim_run(r.sim);
    ck_assert_uint_eq(mem_sparse_backed_bytes(hmem_store(r.dram0)), 0);
    ck_assert_uint_eq(ep(r.ep0)->n_rec, 1);
    ck_assert_uint_eq(ep(r.ep0)->rec[0].cpl_status, TLP_CPL_SC);
    ck_assert_int_eq(rc_set_acs(r.rc0, 2, PCI_ACS_SV), -SIM_EINVAL);
    ck_assert_int_eq(rc_set_acs(r.rc0, 0, 0x8000), -SIM_EINVAL);
    ck_assert_uint_eq(rc_acs(r.rc0, 9), 0);
    rig_fini(&r);
}
END_TEST

/* ---- errors -------------------------------------------------------------- */

START_TEST(test_rc_unclaimed_is_unsupported)
{
    struct rig r;
    rig_init(&r, "", "", "16KiB");
    send_read(&r, r.ep0, NOWHERE, 64, 8);
    send_write(&r, r.ep0, NOWHERE, 64);
    sim_run(r.sim);
    struct th_ep *e0 = ep(r.ep0);
    ck_assert_uint_eq(e0->n_rec, 1);
    ck_assert_int_eq(e0->rec[0].kind, TLP_CPL);
    ck_assert_uint_eq(e0->rec[0].cpl_status, TLP_CPL_UR);
    ck_assert_uint_eq(e0->rec[0].tag, 8);
    ck_assert_uint_eq(counters(r.rc0).unsupported, 2);
    struct sim_stats *st = sim_stats_create();
    sim_component_report(r.rc0, st);
    uint64_t v = 0;
    ck_assert(sim_stats_get(st, "rc0.unsupported", &v));
    ck_assert_uint_eq(v, 2);
    ck_assert(sim_stats_get(st, "rc0.rp0.tlps_in", &v));
    ck_assert_uint_eq(v, 2);
    ck_assert(sim_stats_get(st, "rc0.rp0.tlps_out", &v));
    ck_assert_uint_eq(v, 1);
    sim_stats_destroy(st);
    rig_fini(&r);
}
END_TEST

START_TEST(test_rc_configure_errors)
{
    static const char *const bad[][2] = {
        { "socket-links=1", "root-ports" },
        { "root-ports=33", "root-ports" },
        { "root-ports=1 p2p=sometimes", "writes-only" },
        { "root-ports=1 xsocket-p2p=maybe", "refuse" },
        { "root-ports=1 iommu=on", "translating" },
        { "root-ports=1 iommu-page=1KiB", "iommu-page" },
        { "root-ports=1 socket-links=8", "socket-links" },
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct sim_config cfg = { .seed = 1 };
        struct sim *sim = sim_create(&cfg, NULL);
        struct sim_component *c = sim_component_create(sim, &rc_ops, "rc",
                                                       NULL);
        struct sim_props p;
        props_parse(&p, "root complex 'rc'", bad[i][0]);
        struct sim_error err;
        sim_error_clear(&err);
        ck_assert_msg(sim_component_configure(c, &p, &err) < 0,
                      "'%s' accepted", bad[i][0]);
        ck_assert_msg(strstr(err.msg, bad[i][1]) != NULL,
                      "'%s': message '%s' does not mention '%s'", bad[i][0],
                      err.msg, bad[i][1]);
        sim_props_fini(&p);
        sim_destroy(sim);
    }
}
END_TEST

Suite *make_rc_suite(void)
{
    Suite *s = suite_create("rc");
    TCase *tc = tcase_create("Routing");
    tcase_add_test(tc, test_rc_dma_to_host_memory_lands);
    tcase_add_test(tc, test_rc_p2p_forward_adds_p2p_latency);
    tcase_add_test(tc, test_rc_xsocket_forward);
    suite_add_tcase(s, tc);

    tc = tcase_create("Policy");
    tcase_add_loop_test(tc, test_rc_p2p_policy, 0,
                        sizeof(policy_cases) / sizeof(policy_cases[0]));
    tcase_add_test(tc, test_rc_xsocket_refuse);
    suite_add_tcase(s, tc);

    tc = tcase_create("Limits");
    tcase_add_loop_test(tc, test_rc_p2p_bandwidth_limits_stream, 0,
                        sizeof(bw_cases) / sizeof(bw_cases[0]));
    tcase_add_test(tc, test_rc_xsocket_back_pressure_keeps_order);
    tcase_add_loop_test(tc, test_rc_xsocket_p2p_bandwidth_limits_stream, 0,
                        sizeof(xs_cases) / sizeof(xs_cases[0]));
    tcase_add_test(tc, test_rc_xsocket_p2p_bandwidth_paces_completions);
    suite_add_tcase(s, tc);

    tc = tcase_create("IOMMU");
    tcase_add_test(tc, test_rc_iommu_fault_then_map);
    tcase_add_test(tc, test_rc_iotlb_miss_does_not_reorder_writes);
    tcase_add_test(tc, test_rc_no_pass_of_a_tlp_still_in_the_iotlb);
    tcase_add_test(tc, test_rc_iommu_passthrough_allows_all);
    tcase_add_test(tc, test_rc_ats_translation_requests);
    tcase_add_test(tc, test_rc_ats_off_answers_ur);
    suite_add_tcase(s, tc);

    tc = tcase_create("ACS");
    tcase_add_loop_test(tc, test_rc_acs_redirect_changes_nothing, 0,
                        sizeof(acs_cases) / sizeof(acs_cases[0]));
    tcase_add_test(tc, test_rc_acs_source_validation);
    suite_add_tcase(s, tc);

    tc = tcase_create("Errors");
    tcase_add_test(tc, test_rc_unclaimed_is_unsupported);
    tcase_add_test(tc, test_rc_configure_errors);
    suite_add_tcase(s, tc);
    return s;
}
