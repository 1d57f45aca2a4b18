/*
 * tests/machine/check_fabric.c - whole machines built with the builder:
 * streaming bandwidth against the analytic TLP bound, the read bound from
 * outstanding tags, ACS redirect hairpins, cross-socket paths and policies,
 * IOMMU faults. Every expected figure is computed here from the models'
 * parameters, never copied from a run.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/fabric.h"
#include "models/gpu/gpu.h"
#include "models/iommu/iommu.h"
#include "models/mem/sparse.h"
#include "models/pcie/pcie.h"
#include "models/pcie/pcie_regs.h"
#include "models/pcie/rc.h"
#include "models/pcie/switch.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/tlp.h"
#include "sim/trace.h"
#include "tests/check_p2psim.h"

#define MB (UINT64_C(1) << 20)

static struct sim *sim;
static struct fab *fab;
static struct sim_error err;

static void fail_err(const char *what)
{
    char buf[700];
    ck_abort_msg("%s: %s", what, sim_error_format(&err, buf, sizeof(buf)));
}

static struct sim_component *add(const char *kind, const char *name,
                                 const char *spec)
{
    struct sim_props *p = fab_props_parse(name, spec);
    ck_assert_ptr_nonnull(p);
    struct sim_component *c = fab_add(fab, kind, name, p, &err);
    fab_props_free(p);
    if (!c) {
        fail_err(name);
    }
    return c;
}

static void link(const char *a, const char *b, const char *kind,
                 const char *spec)
{
    struct sim_props *p = fab_props_parse(a, spec);
    ck_assert_ptr_nonnull(p);
    if (!fab_connect(fab, a, b, kind, p, &err)) {
        fail_err(a);
    }
    fab_props_free(p);
}

static void finalize(void)
{
    if (fab_finalize(fab, &err) < 0) {
        fail_err("finalize");
    }
}

static void setup(void)
{
    sim_error_clear(&err);
    sim = sim_create(NULL, NULL);
    ck_assert_ptr_nonnull(sim);
    fab = fab_create(sim, &err);
    ck_assert_ptr_nonnull(fab);
}

static void teardown(void)
{
    fab_destroy(fab);
    sim_destroy(sim);
}

#define GPU_SPEC "memory=80GiB bar1=64GiB mps=256B mrrs=512B tags=256"

/*
 *   rc0 -- rp0 -- sw0 -- dp0 -- gpu0
 *    |                 \- dp1 -- gpu1
 *   mem -- dram0
 */
static void build_switch_pair(unsigned gen)
{
    char spec[64];
    snprintf(spec, sizeof(spec), "gen=%u width=16 latency=10ns", gen);
    add("root-complex", "rc0", "root-ports=1");
    add("host-memory", "dram0", "size=64GiB");
    add("pcie-switch", "sw0", "ports=2");
    add("gpu", "gpu0", GPU_SPEC);
    add("gpu", "gpu1", GPU_SPEC);
    link("rc0.mem", "dram0.up", "wire", "latency=10ns");
    link("rc0.rp0", "sw0.up", "pcie-link", spec);
    link("sw0.dp0", "gpu0.pcie", "pcie-link", spec);
    link("sw0.dp1", "gpu1.pcie", "pcie-link", spec);
    finalize();
}

static int n_done;

static void on_done(struct gpu_dma *op)
{
    n_done++;
}

/* Map len bytes of dst's HBM at 0 through its BAR1; the bus address. */
static uint64_t map_peer(struct sim_component *dst, uint64_t len)
{
    uint64_t bus = 0;
    ck_assert_int_eq(gpu_bar1_map(dst, 0, len, &bus), 0);
    return bus;
}

static void copy(struct sim_component *src, uint64_t bus, uint64_t len,
                 enum gpu_dma_dir dir, struct gpu_dma *op, unsigned ce)
{
    memset(op, 0, sizeof(*op));
    op->dir = dir;
    op->ce = ce;
    op->local_addr = 0;
    op->remote_addr = bus;
    op->len_bytes = len;
    op->done = on_done;
    ck_assert_int_eq(gpu_dma_submit(src, op), 0);
}

static double rate_of(const struct gpu_dma *op)
{
    return (double)op->len_bytes / sim_time_to_s(op->t_done - op->t_first);
}

/* ---- streaming writes reach the analytic TLP bound --------------------------- */

START_TEST(test_fabric_push_reaches_tlp_bound)
{
    static const unsigned gens[] = { 3, 4, 5 };
    unsigned gen = gens[_i];
    build_switch_pair(gen);
    struct sim_component *g0 = fab_find(fab, "gpu0");
    struct sim_component *g1 = fab_find(fab, "gpu1");
    uint64_t len = 64 * MB;
    uint64_t bus = map_peer(g1, len);
    struct gpu_dma op;
    n_done = 0;
    copy(g0, bus, len, GPU_DMA_PUSH, &op, 0);
    sim_run(sim);
    ck_assert_int_eq(n_done, 1);
    ck_assert_int_eq(op.status, 0);
    /* BAR1 sits above 4 GiB: 4DW headers */
    double bound = pcie_write_bound(gen, 16, 256, true);
    double got = rate_of(&op);
    ck_assert_msg(got <= bound * 1.0001 && got >= bound * 0.99,
                  "Gen%u x16: %.3f GB/s, bound %.3f GB/s", gen, got / 1e9,
                  bound / 1e9);
    struct gpu_counters c;
    gpu_get_counters(g1, &c);
    ck_assert_uint_eq(c.bytes_written_in, len);
}
END_TEST

/* ---- data is real: bytes land, byte-exact, for odd sizes ---------------------- */

START_TEST(test_fabric_copy_is_byte_exact)
{
    build_switch_pair(4);
    struct sim_component *g0 = fab_find(fab, "gpu0");
    struct sim_component *g1 = fab_find(fab, "gpu1");
    uint64_t len = 3 * MB + 12345;
    uint8_t *src = malloc(len), *dst = malloc(len);
    for (uint64_t i = 0; i < len; i++) {
        src[i] = (uint8_t)(i * 7 + (i >> 11));
    }
    ck_assert_int_eq(mem_sparse_write(gpu_hbm(g0), 0, src, len), 0);
    uint64_t bus = map_peer(g1, 4 * MB);
    struct gpu_dma op;
    n_done = 0;
    copy(g0, bus, len, GPU_DMA_PUSH, &op, 0);
    sim_run(sim);
    ck_assert_int_eq(n_done, 1);
    ck_assert_int_eq(mem_sparse_read(gpu_hbm(g1), 0, dst, len), 0);
    ck_assert_int_eq(memcmp(src, dst, len), 0);
    /* and back with a pull */
    memset(src, 0x3c, 1000);
    mem_sparse_write(gpu_hbm(g1), 0, src, 1000);
    copy(g0, bus, 1000, GPU_DMA_PULL, &op, 1);
    sim_run(sim);
    ck_assert_int_eq(n_done, 2);
    mem_sparse_read(gpu_hbm(g0), 0, dst, 1000);
    ck_assert_int_eq(memcmp(src, dst, 1000), 0);
    free(src);
    free(dst);
}
END_TEST

/* ---- reads: outstanding tags x request size / round trip ---------------------- */

START_TEST(test_fabric_pull_bounded_by_tags)
{
    /* few tags so the round trip, not the link, sets the rate */
    add("root-complex", "rc0", "root-ports=1");
    add("pcie-switch", "sw0", "ports=2");
    add("gpu", "gpu0", "memory=16GiB bar1=16GiB mrrs=512B tags=8");
    add("gpu", "gpu1", "memory=16GiB bar1=16GiB");
    static const char *const lat[] = { "200ns", "500ns", "1000ns" };
    char spec[64];
    snprintf(spec, sizeof(spec), "gen=5 width=16 latency=%s", lat[_i]);
    link("rc0.rp0", "sw0.up", "pcie-link", spec);
    link("sw0.dp0", "gpu0.pcie", "pcie-link", spec);
    link("sw0.dp1", "gpu1.pcie", "pcie-link", spec);
    finalize();
    struct sim_component *g0 = fab_find(fab, "gpu0");
    struct sim_component *g1 = fab_find(fab, "gpu1");
    uint64_t bus = map_peer(g1, 64 * MB);
    /* the round trip of one read, measured with a one-request pull */
    struct gpu_dma one, big;
    n_done = 0;
    copy(g0, bus, 512, GPU_DMA_PULL, &one, 0);
    sim_run(sim);
    sim_time_t rtt = one.t_done - one.t_first;
    copy(g0, bus, 8 * MB, GPU_DMA_PULL, &big, 0);
    sim_run(sim);
    ck_assert_int_eq(n_done, 2);
    double bound = 8.0 * 512.0 / sim_time_to_s(rtt);
    double got = rate_of(&big);
    ck_assert_msg(got <= bound * 1.02 && got >= bound * 0.95,
                  "latency %s: %.3f GB/s, tags bound %.3f GB/s", lat[_i],
                  got / 1e9, bound / 1e9);
}
END_TEST

/* ---- ACS redirect: up to the root complex and back --------------------------- */

struct hop_log {
    uint64_t id;                /* TLP followed */
    char where[16][32];
    unsigned n;
};

static void hop_sink(void *ctx, const struct sim_trace_record *r)
{
    struct hop_log *h = ctx;
    if (r->tlp->kind != TLP_MWR) {
        return;
    }
    if (h->id == 0) {
        h->id = r->tlp->id;
    }
    if (r->tlp->id == h->id && h->n < 16) {
        snprintf(h->where[h->n++], 32, "%s.%s", r->component, r->port);
    }
}

START_TEST(test_fabric_acs_redirect_hairpins)
{
    build_switch_pair(4);
    struct sim_component *sw = fab_find(fab, "sw0");
    struct sim_component *g0 = fab_find(fab, "gpu0");
    struct sim_component *g1 = fab_find(fab, "gpu1");
    uint16_t acs = PCI_ACS_SV | PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_UF;
    ck_assert_int_eq(psw_set_acs(sw, 0, acs, 0), 0);
    ck_assert_int_eq(psw_set_acs(sw, 1, acs, 0), 0);
    struct hop_log h = { 0 };
    sim_trace_subscribe(sim, hop_sink, &h, SIM_TRACE_BIT(SIM_TP_TLP_RX));
    uint64_t bus = map_peer(g1, MB);
    struct gpu_dma op;
    n_done = 0;
    copy(g0, bus, 4096, GPU_DMA_PUSH, &op, 0);
    sim_run(sim);
    ck_assert_int_eq(n_done, 1);
    static const char *const path[] = { "sw0.dp0", "rc0.rp0", "sw0.up",
                                        "gpu1.pcie" };
    ck_assert_uint_eq(h.n, 4);
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_str_eq(h.where[i], path[i]);
    }
}
END_TEST

/* Two opposite copies through a redirecting switch share its uplink. */
static double pair_rate(bool acs, bool both)
{
    setup();
    build_switch_pair(4);
    struct sim_component *sw = fab_find(fab, "sw0");
    struct sim_component *g0 = fab_find(fab, "gpu0");
    struct sim_component *g1 = fab_find(fab, "gpu1");
    if (acs) {
        uint16_t a = PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_UF;
        psw_set_acs(sw, 0, a, 0);
        psw_set_acs(sw, 1, a, 0);
    }
    uint64_t len = 16 * MB;
    uint64_t b1 = map_peer(g1, len), b0 = map_peer(g0, len);
    struct gpu_dma x, y;
    n_done = 0;
    copy(g0, b1, len, GPU_DMA_PUSH, &x, 0);
    if (both) {
        copy(g1, b0, len, GPU_DMA_PUSH, &y, 0);
    }
    sim_run(sim);
    ck_assert_int_eq(n_done, both ? 2 : 1);
    double r = rate_of(&x);
    teardown();
    return r;
}

START_TEST(test_fabric_acs_redirect_shares_uplink)
{
    teardown(); /* pair_rate builds its own machines */
    double alone = pair_rate(false, false);
    double direct_both = pair_rate(false, true);
    double hairpin_alone = pair_rate(true, false);
    double hairpin_both = pair_rate(true, true);
    setup();
    /* without ACS each direction has its own links: no sharing */
    ck_assert_msg(direct_both > alone * 0.97, "%.2f vs %.2f", direct_both / 1e9,
                  alone / 1e9);
    /* one hairpin alone still streams at the link rate (full duplex uplink) */
    ck_assert_msg(hairpin_alone > alone * 0.97, "%.2f vs %.2f",
                  hairpin_alone / 1e9, alone / 1e9);
    /* two hairpins share each direction of the uplink: about half each */
    ck_assert_msg(hairpin_both < alone * 0.55 && hairpin_both > alone * 0.45,
                  "%.2f vs %.2f", hairpin_both / 1e9, alone / 1e9);
}
END_TEST

/* ---- two sockets ------------------------------------------------------------------- */

/*
 *  rc0 --xs0--[socket link]--xs0-- rc1
 *   rp0                              rp0
 *   gpu0                             gpu1
 */
static void build_two_sockets(const char *xsocket_policy)
{
    char spec[96];
    snprintf(spec, sizeof(spec), "root-ports=1 socket-links=1 xsocket-p2p=%s",
             xsocket_policy);
    add("root-complex", "rc0", spec);
    add("root-complex", "rc1", spec);
    add("host-memory", "dram0", "size=64GiB");
    add("host-memory", "dram1", "size=64GiB");
    add("gpu", "gpu0", GPU_SPEC);
    add("gpu", "gpu1", GPU_SPEC);
    link("rc0.mem", "dram0.up", "wire", "");
    link("rc1.mem", "dram1.up", "wire", "");
    link("rc0.xs0", "rc1.xs0", "socket-link", "bandwidth=20GB/s latency=300ns");
    link("rc0.rp0", "gpu0.pcie", "pcie-link", "gen=5 width=16");
    link("rc1.rp0", "gpu1.pcie", "pcie-link", "gen=5 width=16");
    finalize();
}

START_TEST(test_fabric_cross_socket_uses_socket_link)
{
    build_two_sockets("forward");
    struct sim_component *g0 = fab_find(fab, "gpu0");
    struct sim_component *g1 = fab_find(fab, "gpu1");
    uint64_t len = 16 * MB;
    uint64_t bus = map_peer(g1, len);
    struct gpu_dma op;
    n_done = 0;
    copy(g0, bus, len, GPU_DMA_PUSH, &op, 0);
    sim_run(sim);
    ck_assert_int_eq(n_done, 1);
    ck_assert_int_eq(op.status, 0);
    /* the socket link charges header + payload at 20 GB/s: 4DW + 256 B */
    double bound = 20e9 * 256.0 / (256.0 + 16.0);
    double got = rate_of(&op);
    ck_assert_msg(got <= bound * 1.001 && got > bound * 0.97,
                  "%.3f GB/s against %.3f", got / 1e9, bound / 1e9);
}
END_TEST

START_TEST(test_fabric_refused_p2p_is_unsupported_request)
{
    build_two_sockets("refuse");
    struct sim_component *g0 = fab_find(fab, "gpu0");
    struct sim_component *g1 = fab_find(fab, "gpu1");
    uint64_t bus = map_peer(g1, MB);
    /* a read is answered with UR: the copy fails */
    struct gpu_dma rd, wr;
    n_done = 0;
    copy(g0, bus, 4096, GPU_DMA_PULL, &rd, 0);
    sim_run(sim);
    ck_assert_int_eq(n_done, 1);
    ck_assert_int_eq(rd.status, -SIM_EIO);
    /* posted writes are dropped: nothing lands */
    uint8_t pat[4096];
    memset(pat, 0x77, sizeof(pat));
    mem_sparse_write(gpu_hbm(g0), 0, pat, sizeof(pat));
    copy(g0, bus, 4096, GPU_DMA_PUSH, &wr, 1);
    sim_run(sim);
    struct gpu_counters c;
    gpu_get_counters(g1, &c);
    ck_assert_uint_eq(c.bytes_written_in, 0);
    /* the socket that owns the target applies the cross-socket policy */
    struct rc_counters rc;
    rc_get_counters(fab_find(fab, "rc1"), &rc);
    ck_assert_uint_gt(rc.xsocket_refused, 0);
}
END_TEST

/* ---- IOMMU: an unmapped peer BAR faults, nothing is written --------------------- */

START_TEST(test_fabric_iommu_fault_blocks_dma)
{
    add("root-complex", "rc0", "root-ports=2 iommu=translating");
    add("host-memory", "dram0", "size=16GiB");
    add("gpu", "gpu0", GPU_SPEC);
    add("gpu", "gpu1", GPU_SPEC);
    link("rc0.mem", "dram0.up", "wire", "");
    link("rc0.rp0", "gpu0.pcie", "pcie-link", "gen=4 width=16");
    link("rc0.rp1", "gpu1.pcie", "pcie-link", "gen=4 width=16");
    finalize();
    struct sim_component *g0 = fab_find(fab, "gpu0");
    struct sim_component *g1 = fab_find(fab, "gpu1");
    uint64_t bus = map_peer(g1, MB);
    uint8_t pat[8192];
    memset(pat, 0x42, sizeof(pat));
    mem_sparse_write(gpu_hbm(g0), 0, pat, sizeof(pat));
    struct gpu_dma wr, rd;
    n_done = 0;
    copy(g0, bus, sizeof(pat), GPU_DMA_PUSH, &wr, 0);
    copy(g0, bus, 4096, GPU_DMA_PULL, &rd, 1);
    sim_run(sim);
    ck_assert_int_eq(n_done, 2);
    struct gpu_counters c;
    gpu_get_counters(g1, &c);
    ck_assert_uint_eq(c.bytes_written_in, 0);
    uint8_t back[16];
    mem_sparse_read(gpu_hbm(g1), 0, back, sizeof(back));
    ck_assert_uint_eq(back[0], 0);
    ck_assert_int_eq(rd.status, -SIM_EIO);
    unsigned n;
    const struct iommu_fault *f = iommu_faults(rc_iommu(fab_find(fab, "rc0")),
                                               &n);
    ck_assert_uint_gt(n, 0);
    ck_assert_uint_eq(f[0].requester_id, gpu_pcie_id(g0));
    ck_assert(f[0].addr >= bus && f[0].addr < bus + MB);
    /* host memory is mapped: DMA to it works */
    struct gpu_dma h;
    copy(g0, 0x1000, 4096, GPU_DMA_PUSH, &h, 0);
    sim_run(sim);
    ck_assert_int_eq(h.status, 0);
    /* mapping the peer BAR lifts the fault */
    iommu_map(rc_iommu(fab_find(fab, "rc0")), gpu_pcie_id(g0), bus, MB);
    copy(g0, bus, sizeof(pat), GPU_DMA_PUSH, &wr, 0);
    sim_run(sim);
    gpu_get_counters(g1, &c);
    ck_assert_uint_eq(c.bytes_written_in, sizeof(pat));
}
END_TEST

/* ---- the builder's own checks -------------------------------------------------------- */

START_TEST(test_fabric_builder_errors)
{
    struct sim_props *p = fab_props_parse("sw0", "ports=2 latncy=5ns");
    ck_assert_ptr_null(fab_add(fab, "pcie-switch", "sw0", p, &err));
    ck_assert(strstr(err.msg, "did you mean 'latency'") != NULL);
    fab_props_free(p);
    sim_error_clear(&err);
    ck_assert_ptr_null(fab_add(fab, "pcie-swich", "sw1", NULL, &err));
    ck_assert(strstr(err.msg, "pcie-switch") != NULL);
    sim_error_clear(&err);
    add("gpu", "gpu0", GPU_SPEC);
    ck_assert_ptr_null(fab_connect(fab, "gpu0.pci", "gpu0.pcie", "pcie-link",
                                   NULL, &err));
    ck_assert(strstr(err.msg, "ports: pcie") != NULL);
    ck_assert_ptr_null(fab_props_parse("x", "novalue"));
}
END_TEST

START_TEST(test_fabric_enumeration)
{
    build_switch_pair(5);
    struct sim_component *g0 = fab_find(fab, "gpu0");
    struct sim_component *g1 = fab_find(fab, "gpu1");
    /* rc0 bus 0; rp0 -> bus 1 (sw0 up), internal bus 2, dp0 -> 3, dp1 -> 4 */
    ck_assert_uint_eq(gpu_pcie_id(g0), pcie_id(3, 0, 0));
    ck_assert_uint_eq(gpu_pcie_id(g1), pcie_id(4, 0, 0));
    ck_assert_uint_eq(gpu_bar1_base(g0) % gpu_bar1_size(g0), 0);
    ck_assert_uint_ge(gpu_bar1_base(g0), FAB_MMIO_BASE);
    unsigned n;
    struct pcie_route *r = rc_routes(fab_find(fab, "rc0"), &n);
    ck_assert_uint_eq(r[0].bus_sec, 1);
    ck_assert_uint_eq(r[0].bus_sub, 4);
    ck_assert(pcie_route_claims_addr(&r[0], gpu_bar1_base(g1)));
    struct pcie_route *s = psw_routes(fab_find(fab, "sw0"), &n);
    ck_assert(pcie_route_claims_addr(&s[2], gpu_bar1_base(g1)));
    ck_assert(!pcie_route_claims_addr(&s[1], gpu_bar1_base(g1)));
}
END_TEST

Suite *make_fabric_suite(void)
{
    Suite *s = suite_create("fabric");
    TCase *tc = tcase_create("Bandwidth");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_fabric_push_reaches_tlp_bound, 0, 3);
    tcase_add_loop_test(tc, test_fabric_pull_bounded_by_tags, 0, 3);
    tcase_add_test(tc, test_fabric_copy_is_byte_exact);
    suite_add_tcase(s, tc);
    tc = tcase_create("Routing");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_fabric_acs_redirect_hairpins);
    tcase_add_test(tc, test_fabric_acs_redirect_shares_uplink);
    tcase_add_test(tc, test_fabric_cross_socket_uses_socket_link);
    tcase_add_test(tc, test_fabric_refused_p2p_is_unsupported_request);
    tcase_add_test(tc, test_fabric_iommu_fault_blocks_dma);
    tcase_add_test(tc, test_fabric_enumeration);
    tcase_add_test(tc, test_fabric_builder_errors);
    suite_add_tcase(s, tc);
    return s;
}
