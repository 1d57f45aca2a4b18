/*
 * tests/machine/check_nvlink.c - NVLink and NVSwitch (models/nvlink/,
 * models/gpu/nvlink_port.c), on the machines of the library:
 *  - packets: flits charged by payload (256-byte copy-engine writes and
 *    128-byte SM stores), reads one flit;
 *  - a 64 MiB copy over NV1 and NV2 (DGX-1 V100, direct links), NV12
 *    (DGX A100, six NVSwitches) and NV18 (HGX H100, four NVSwitches)
 *    reaches the rate the link model predicts from the links it crosses
 *    (their rate x payload / packet bytes, computed here from the links),
 *    and both directions at once twice that; pulled (the destination's
 *    engine reading) as well;
 *  - the bytes land, and no BAR1 is used;
 *  - the traffic spreads over every port that reaches the peer, by links;
 *  - an NVSwitch machine without the fabric manager routes nothing
 *    through its switches (refused: the copy fails, as the driver would
 *    never have sent it);
 *  - power saving: the links sleep after an idle time and the next copy
 *    waits for them to wake (nvlink-power of hgx-h200-x2), and explain
 *    says so.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/fabric.h"
#include "models/gpu/gpu.h"
#include "models/mem/sparse.h"
#include "models/nvlink/nvlink.h"
#include "machine/path.h"
#include "machine/route.h"
#include "machine/topology.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/sim.h"
#include "sim/tlp.h"
#include "tests/check_p2psim.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

#define MIB (UINT64_C(1) << 20)
#define COPY_BYTES (64 * MIB)
#define RATE_TOL 0.01           /* setup and flush are < 0.1% of 64 MiB */

static struct topo_machine *load(const char *file, const char *overrides)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/topologies/%s", P2PSIM_SRCDIR, file);
    struct topo_options opt = { .overrides = overrides };
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_file(path, &opt, &err);
    ck_assert_msg(m != NULL, "%s: %s", path, err.msg);
    return m;
}

/* ---- packets ------------------------------------------------------------- */

START_TEST(test_nvl_packet_bytes_by_payload)
{
    struct tlp t;
    route_tlp_init(&t, TLP_MWR);
    t.addr = UINT64_C(1) << 52;
    t.len_bytes = 256;
    ck_assert_uint_eq(nvl_packet_bytes(&t), 17 * NVL_FLIT_BYTES);
    t.len_bytes = 128;
    ck_assert_uint_eq(nvl_packet_bytes(&t), 9 * NVL_FLIT_BYTES);
    t.len_bytes = 100;          /* partial flit: byte enables */
    ck_assert_uint_eq(nvl_packet_bytes(&t), (1 + 1 + 7) * NVL_FLIT_BYTES);
    route_tlp_init(&t, TLP_MRD);
    t.len_bytes = 256;          /* a read carries no data */
    ck_assert_uint_eq(nvl_packet_bytes(&t), NVL_FLIT_BYTES);
    /* SM stores of 128 B use the link less well than 256-byte writes. */
    ck_assert(128.0 / (9 * NVL_FLIT_BYTES) < 256.0 / (17 * NVL_FLIT_BYTES));
}
END_TEST

/* ---- copies -------------------------------------------------------------- */

struct done_box {
    int calls;
};

static void on_done(struct gpu_dma *op)
{
    ((struct done_box *)op->user)->calls++;
}

/*
 * What the link model predicts for a stream of 256-byte writes from a to
 * b: the rate of every NVLink port of a that reaches b, times payload /
 * packet bytes.
 */
static double predicted_GBps(struct sim_component *a, struct sim_component *b)
{
    struct sim_port *port[32];
    unsigned w[32];
    uint64_t addr = gpu_nvlink_base(b);
    unsigned n = gpu_route_ports(a, addr, port, w, 32);
    double rate = 0;
    for (unsigned i = 0; i < n; i++) {
        ck_assert_msg(port[i]->link->ops == &nvl_link_ops,
                      "%s -> %s: not over NVLink", a->name, b->name);
        rate += (double)nvl_link_rate(port[i]->link);
    }
    struct tlp t;
    route_tlp_init(&t, TLP_MWR);
    t.addr = addr;
    t.len_bytes = 256;
    return rate * 256.0 / nvl_packet_bytes(&t) / 1e9;
}

/* Copies COPY_BYTES a -> b (and b -> a when both), returns GB/s: pushed
 * by the source's engine, or pulled (read) by the destination's. */
static double copy_by(struct topo_machine *m, unsigned ia, unsigned ib,
                      bool both, bool pull)
{
    struct sim_component *g[2] = { fab_gpu(m->fab, ia), fab_gpu(m->fab, ib) };
    struct gpu_dma op[2];
    struct done_box box = { 0 };
    sim_time_t t0 = sim_now(m->sim);
    unsigned n = both ? 2 : 1;
    for (unsigned i = 0; i < n; i++) {
        uint8_t pat = (uint8_t)(0x5a + i);
        ck_assert_int_eq(mem_sparse_fill(gpu_hbm(g[i]), 0, pat, COPY_BYTES),
                         0);
        memset(&op[i], 0, sizeof(op[i]));
        op[i].dir = pull ? GPU_DMA_PULL : GPU_DMA_PUSH;
        op[i].local_addr = pull ? 128 * MIB : 0;
        op[i].remote_addr = pull ? gpu_nvlink_base(g[i])
                                 : gpu_nvlink_base(g[!i]) + 128 * MIB;
        op[i].len_bytes = COPY_BYTES;
        op[i].done = on_done;
        op[i].user = &box;
        ck_assert_int_eq(gpu_dma_submit(g[pull ? !i : i], &op[i]), 0);
    }
    sim_run(m->sim);
    ck_assert_int_eq(box.calls, (int)n);
    sim_time_t first = SIM_TIME_MAX, end = t0;
    for (unsigned i = 0; i < n; i++) {
        ck_assert_int_eq(op[i].status, 0);
        first = op[i].t_first < first ? op[i].t_first : first;
        end = op[i].t_done > end ? op[i].t_done : end;
        /* the bytes landed, through the NVLink window, not BAR1 */
        uint8_t a = 0, z = 0;
        mem_sparse_read(gpu_hbm(g[!i]), 128 * MIB, &a, 1);
        mem_sparse_read(gpu_hbm(g[!i]), 128 * MIB + COPY_BYTES - 1, &z, 1);
        ck_assert_uint_eq(a, 0x5a + i);
        ck_assert_uint_eq(z, 0x5a + i);
        ck_assert_uint_eq(gpu_bar1_used(g[!i]), 0);
    }
    return (double)n * COPY_BYTES / ((double)(end - first) * 1e-12) / 1e9;
}

static double copy_GBps(struct topo_machine *m, unsigned ia, unsigned ib,
                        bool both)
{
    return copy_by(m, ia, ib, both, false);
}

struct rate_case {
    const char *machine;
    unsigned a, b;
    unsigned nv;                /* the NV# the pair must have */
};

/* NV1, NV2 (DGX-1 cube mesh), NV12 (A100 via NVSwitch), NV18 (H100). */
static const struct rate_case rate_cases[] = {
    { "dgx1-v100.yaml", 0, 1, 1 },
    { "dgx1-v100.yaml", 0, 3, 2 },
    { "dgx-a100.yaml", 0, 5, 12 },
    { "hgx-h100.yaml", 2, 7, 18 },
};

static void check_rate(const struct rate_case *c, bool both, bool pull)
{
    struct topo_machine *m = load(c->machine, NULL);
    struct sim_component *a = fab_gpu(m->fab, c->a);
    struct sim_component *b = fab_gpu(m->fab, c->b);
    struct sim_port *port[32];
    unsigned w[32], links = 0;
    unsigned n = gpu_route_ports(a, gpu_nvlink_base(b), port, w, 32);
    for (unsigned i = 0; i < n; i++) {
        links += nvl_link_links(port[i]->link);
    }
    ck_assert_uint_eq(links, c->nv);
    double want = predicted_GBps(a, b) * (both ? 2 : 1);
    double got = copy_by(m, c->a, c->b, both, pull);
    printf("nvlink: %s gpu%u %s gpu%u NV%u%s: %.2f GB/s, model predicts "
           "%.2f\n", c->machine, c->a, both ? "<->" : "->", c->b, c->nv,
           pull ? " pulled" : "", got, want);
    ck_assert_msg(got <= want * (1 + 1e-6) && got >= want * (1 - RATE_TOL),
                  "%s NV%u: %.3f GB/s, predicted %.3f", c->machine, c->nv,
                  got, want);
    topo_machine_destroy(m);
}

START_TEST(test_nvl_copy_reaches_predicted_rate)
{
    check_rate(&rate_cases[_i], false, false);
}
END_TEST

/*
 * The same copies pulled: the destination's engine reads, 256-byte
 * completions coming back as the writes went. Over NVLink an engine's
 * reads are not held to its PCIe `tags` (models/gpu/copy_engine.c): one
 * H200 engine pulls 387-389 GB/s over NV18 (data/hgx-h200-x2/
 * nvlink_rate_probe.txt); held to 256 reads of 512 B it got 0.37 of that.
 */
START_TEST(test_nvl_pull_reaches_predicted_rate)
{
    check_rate(&rate_cases[_i], false, true);
}
END_TEST

START_TEST(test_nvl_copy_both_ways_reaches_twice)
{
    check_rate(&rate_cases[_i], true, false);
}
END_TEST

/* ---- spreading and the fabric manager ------------------------------------ */

START_TEST(test_nvl_copy_spreads_over_switches_by_links)
{
    struct topo_machine *m = load("hgx-h100.yaml", NULL);
    struct sim_component *a = fab_gpu(m->fab, 0);
    copy_GBps(m, 0, 1, false);
    /* 5/4/4/5 links to nvsw0..3: payload on each port in that ratio */
    struct sim_port *port[32];
    unsigned w[32];
    unsigned n = gpu_route_ports(a, gpu_nvlink_base(fab_gpu(m->fab, 1)),
                                 port, w, 32);
    ck_assert_uint_eq(n, 4);
    for (unsigned i = 0; i < n; i++) {
        struct nvl_link_counters c;
        nvl_link_get_counters(port[i]->link, &c);
        unsigned side = port[i]->side;
        double share = (double)c.payload_bytes[side] / COPY_BYTES;
        ck_assert_msg(share > w[i] / 18.0 - 0.01 && share < w[i] / 18.0 + 0.01,
                      "port %s carried %.3f of the copy, links %u/18",
                      port[i]->name, share, w[i]);
    }
    topo_machine_destroy(m);
}
END_TEST

START_TEST(test_nvl_no_fabric_manager_no_switch_routes)
{
    struct topo_machine *m = load("hgx-h100.yaml", "fabric-manager=stopped");
    struct sim_component *a = fab_gpu(m->fab, 0);
    struct sim_component *b = fab_gpu(m->fab, 1);
    struct sim_port *port[32];
    unsigned w[32];
    unsigned n = gpu_route_ports(a, gpu_nvlink_base(b), port, w, 32);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(port[0]->name, "pcie");
    topo_machine_destroy(m);
}
END_TEST

START_TEST(test_nvl_mismatched_generation_is_an_error)
{
    static const char text[] =
        "p2psim-machine: 1\nname: x\n"
        "sockets: [ { id: cpu0, root-ports: 2 } ]\n"
        "gpus:\n"
        "  - { id: g0, model: H100-SXM5, parent: cpu0 }\n"
        "  - { id: g1, model: H100-SXM5, parent: cpu0 }\n"
        "nvswitches: [ { id: s0, generation: 2, ports: 36 } ]\n"
        "nvlinks:\n"
        "  - { between: [g0, s0], links: 2 }\n"
        "  - { between: [g1, s0], links: 2 }\n"
        "fabric-manager: running\n";
    char path[512];
    snprintf(path, sizeof(path), "%s/topologies/x.yaml", P2PSIM_SRCDIR);
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_string(path, text, strlen(text), NULL,
                                              &err);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(err.msg, "NVLink 4") && strstr(err.msg, "NVLink 3"),
                  "%s", err.msg);
}
END_TEST

/* ---- NVSwitch routing --------------------------------------------------- */

/* The port a request to addr (or a completion for requester id) entering
 * on port in leaves sw by. */
static int route_of(struct sim_component *sw, unsigned in, bool request,
                    uint64_t addr, uint16_t id)
{
    struct tlp t;
    route_tlp_init(&t, request ? TLP_MWR : TLP_CPL);
    t.addr = addr;
    t.requester_id = id;
    return nvsw_route(sw, in, &t);
}

/*
 * The switch's routing index gives what a scan of every port gives: the
 * port whose window holds the address (whose ID is the requester's),
 * the lowest of several with the same target, never the way in; and when
 * two windows overlap other than exactly, the scan itself.
 */
START_TEST(test_nvsw_route_index)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct sim *sim = sim_create(NULL, &err);
    struct fab *f = fab_create(sim, &err);
    struct sim_props *p = fab_props_parse("sw", "generation=3 ports=5");
    struct sim_component *sw = fab_add(f, "nvswitch", "sw", p, &err);
    fab_props_free(p);
    ck_assert_msg(sw != NULL, "%s", err.msg);
    /* set out of order: the index sorts them */
    ck_assert_int_eq(nvsw_set_target(sw, 3, 0x3000, 0x3fff, 3), 0);
    ck_assert_int_eq(nvsw_set_target(sw, 1, 0x1000, 0x1fff, 1), 0);
    ck_assert_int_eq(nvsw_set_target(sw, 0, 0x1000, 0x1fff, 1), 0);
    ck_assert_int_eq(nvsw_set_target(sw, 2, 0x2000, 0x2fff, 2), 0);
    for (int pass = 0; pass < 2; pass++) {
        ck_assert_int_eq(route_of(sw, 4, true, 0x1800, 0), 0);
        ck_assert_int_eq(route_of(sw, 0, true, 0x1000, 0), 1);
        ck_assert_int_eq(route_of(sw, 4, true, 0x1fff, 0), 0);
        ck_assert_int_eq(route_of(sw, 4, true, 0x2000, 0), 2);
        ck_assert_int_eq(route_of(sw, 4, true, 0x3fff, 0), 3);
        ck_assert_int_eq(route_of(sw, 4, true, 0x0fff, 0), -1);
        ck_assert_int_eq(route_of(sw, 4, true, 0x4000, 0), -1);
        ck_assert_int_eq(route_of(sw, 2, true, 0x2800, 0), -1);
        ck_assert_int_eq(route_of(sw, 4, false, 0, 2), 2);
        ck_assert_int_eq(route_of(sw, 4, false, 0, 1), 0);
        ck_assert_int_eq(route_of(sw, 0, false, 0, 1), 1);
        ck_assert_int_eq(route_of(sw, 4, false, 0, 7), -1);
        /* the second pass with port 4's window overlapping two others:
         * no index, the same answers (port 4 is the way in) */
        ck_assert_int_eq(nvsw_set_target(sw, 4, 0x1800, 0x27ff, 4), 0);
    }
    ck_assert_int_eq(route_of(sw, 3, true, 0x2400, 0), 2);
    ck_assert_int_eq(route_of(sw, 2, true, 0x2400, 0), 4);
    fab_destroy(f);
    sim_destroy(sim);
}
END_TEST

/* ---- power saving (models/nvlink/power.h) ---------------------------------- */

/* Let the machine idle for idle_ps: an event that does nothing, then. */
static void nop_event(struct sim *sim, struct sim_event *ev)
{
    (void)sim;
    (void)ev;
}

static void idle_for(struct topo_machine *m, sim_time_t idle_ps)
{
    struct sim_event ev;
    sim_event_init(&ev, nop_event);
    sim_event_schedule(m->sim, &ev, idle_ps);
    sim_run(m->sim);
}

/* A push of len bytes gpu0 -> gpu1 over NVLink from now; its duration. */
static sim_time_t push_ps(struct topo_machine *m, uint64_t len)
{
    struct sim_component *a = fab_gpu(m->fab, 0), *b = fab_gpu(m->fab, 1);
    struct done_box box = { 0 };
    struct gpu_dma op = {
        .dir = GPU_DMA_PUSH, .local_addr = 0,
        .remote_addr = gpu_nvlink_base(b), .len_bytes = len,
        .done = on_done, .user = &box,
    };
    sim_time_t t0 = sim_now(m->sim);
    ck_assert_int_eq(gpu_dma_submit(a, &op), 0);
    sim_run(m->sim);
    ck_assert_int_eq(box.calls, 1);
    ck_assert_int_eq(op.status, 0);
    return op.t_done - t0;
}

/* a's extra over b is within [lo, lo + tol] */
static void check_extra(const char *what, sim_time_t a, sim_time_t b,
                        sim_time_t lo, sim_time_t tol)
{
    printf("nvlink power: %s: %.2f us, awake %.2f us\n", what,
           (double)a / 1e6, (double)b / 1e6);
    ck_assert_msg(a >= b + lo && a <= b + lo + tol,
                  "%s: %llu ps, awake %llu ps, expected %llu ps more", what,
                  (unsigned long long)a, (unsigned long long)b,
                  (unsigned long long)lo);
}

/*
 * hgx-h200-x2's NVLinks sleep after 48 ms without traffic, wake in 110 us
 * and settle for 65 us at 1 GB/s (data/hgx-h200-x2/link_idle_probe.txt,
 * link_wake_ramp_probe.txt): a 16-byte copy asleep (as at time 0) takes
 * 110 us more than awake, a 1 MiB one 175 us more (less the settling's
 * 65 KB at full rate); none more after 40 ms idle, again after 50 ms;
 * and nothing with sleep-after 0.
 */
START_TEST(test_nvl_power_sleep_and_wake)
{
    const sim_time_t wake = SIM_US(110), settle = SIM_US(65);
    struct topo_machine *m = load("hgx-h200-x2.yaml", NULL);
    /* "awake": a millisecond after the last copy (settled, not asleep) */
    sim_time_t first = push_ps(m, 16);
    idle_for(m, sim_ms(1));
    sim_time_t warm = push_ps(m, 16);
    check_extra("16 B asleep", first, warm, wake, SIM_US(1));
    idle_for(m, sim_ms(40));
    sim_time_t after40 = push_ps(m, 16);
    /* awake: as warm, but for the sub-ns phase of the links' clocks */
    ck_assert_msg(after40 + SIM_NS(1) >= warm && after40 <= warm + SIM_NS(1),
                  "after 40 ms idle %llu ps, awake %llu ps",
                  (unsigned long long)after40, (unsigned long long)warm);
    idle_for(m, sim_ms(50));
    sim_time_t bulk = push_ps(m, MIB);
    idle_for(m, sim_ms(1));
    sim_time_t bulk_warm = push_ps(m, MIB);
    check_extra("1 MiB after 50 ms idle", bulk, bulk_warm,
                wake + settle - SIM_US(1), SIM_US(2));
    topo_machine_destroy(m);

    m = load("hgx-h200-x2.yaml", "nvlink-power.sleep-after=0s");
    sim_time_t never = push_ps(m, 16);
    ck_assert_msg(never + SIM_NS(1) >= warm && never <= warm + SIM_NS(1),
                  "never asleep %llu ps, awake %llu ps",
                  (unsigned long long)never, (unsigned long long)warm);
    topo_machine_destroy(m);
}
END_TEST

/* nvlink-power's errors name the place and what is wrong. */
START_TEST(test_nvl_power_errors)
{
    static const struct {
        const char *override, *says;
    } bad[] = {
        { "nvlink-power.wake=fast", "nvlink-power: wake" },
        { "nvlink-power.sleep-after=20s", "more than 10s" },
        { "nvlink-power.settle-rate=0GB/s", "settle-rate must be above 0" },
        { "nvlink-power.settle-rate=quick", "nvlink-power: settle-rate" },
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/topologies/hgx-h200-x2.yaml",
                 P2PSIM_SRCDIR);
        struct topo_options opt = { .overrides = bad[i].override };
        struct sim_error err;
        sim_error_clear(&err);
        struct topo_machine *m = topo_load_file(path, &opt, &err);
        ck_assert_ptr_null(m);
        ck_assert_msg(strstr(err.msg, bad[i].says), "%s: %s",
                      bad[i].override, err.msg);
    }
    /* settle without settle-rate, at its line and column */
    static const char text[] =
        "p2psim-machine: 1\nname: x\n"
        "nvlink-power: { sleep-after: 1ms, wake: 1us, settle: 5us }\n";
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_string("x.yaml", text,
                                              strlen(text), NULL, &err);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(err.msg, "go together"), "%s", err.msg);
    char where[64];
    sim_error_format(&err, where, sizeof(where));
    ck_assert_msg(strstr(where, "x.yaml:3:"), "%s", where);
}
END_TEST

/* explain says it for NVLink pairs of a machine whose links sleep, only. */
static bool has_power_rule(const char *file)
{
    struct topo_machine *m = load(file, NULL);
    struct p2p_verdict v;
    ck_assert_int_eq(path_p2p_verdict(m, fab_gpu(m->fab, 0),
                                      fab_gpu(m->fab, 1), &v), 0);
    bool found = false;
    for (unsigned i = 0; i < v.n_rules; i++) {
        if (v.rule[i].id == RULE_NVLINK_POWER) {
            found = true;
            ck_assert(v.rule[i].slows && !v.rule[i].blocks);
            ck_assert_ptr_nonnull(strstr(v.rule[i].says, "110 us"));
        }
    }
    ck_assert(v.allowed);
    topo_machine_destroy(m);
    return found;
}

START_TEST(test_nvl_power_explained)
{
    ck_assert(has_power_rule("hgx-h200-x2.yaml"));
    ck_assert(!has_power_rule("hgx-h100.yaml"));
}
END_TEST


Suite *make_nvlink_suite(void)
{
    Suite *s = suite_create("nvlink");
    TCase *tc = tcase_create("Packets");
    tcase_add_test(tc, test_nvl_packet_bytes_by_payload);
    suite_add_tcase(s, tc);
    tc = tcase_create("Rates");
    tcase_set_timeout(tc, 300);
    unsigned n = sizeof(rate_cases) / sizeof(rate_cases[0]);
    tcase_add_loop_test(tc, test_nvl_copy_reaches_predicted_rate, 0, (int)n);
    tcase_add_loop_test(tc, test_nvl_copy_both_ways_reaches_twice, 0, (int)n);
    tcase_add_loop_test(tc, test_nvl_pull_reaches_predicted_rate, 0, (int)n);
    suite_add_tcase(s, tc);
    tc = tcase_create("Routing");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_nvl_copy_spreads_over_switches_by_links);
    tcase_add_test(tc, test_nvl_no_fabric_manager_no_switch_routes);
    tcase_add_test(tc, test_nvl_mismatched_generation_is_an_error);
    tcase_add_test(tc, test_nvsw_route_index);
    suite_add_tcase(s, tc);
    tc = tcase_create("Power");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_nvl_power_sleep_and_wake);
    tcase_add_test(tc, test_nvl_power_errors);
    tcase_add_test(tc, test_nvl_power_explained);
    suite_add_tcase(s, tc);
    return s;
}
