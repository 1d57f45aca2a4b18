/*
 * tests/machine/check_kinds.c - the table of component kinds
 * (machine/kinds.h): an endpoint kind defined here alone, one row and its
 * YAML keys, is built from a machine file (tests/topologies/bar-memory.yaml),
 * enumerated (its ID and BAR below the switch), routed to, and copied
 * from by a GPU in both fidelities, with no other file knowing it.
 *
 * The endpoint is host memory's model under another name ("bar-memory"):
 * a completer of reads and writes on its port "up", here placed in a BAR
 * instead of behind a root complex's memory port.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "machine/exec.h"
#include "machine/fabric.h"
#include "machine/kinds.h"
#include "machine/p2psim.h"
#include "machine/p2psim_int.h"
#include "machine/route.h"
#include "machine/topology.h"
#include "models/gpu/gpu.h"
#include "models/host/hostmem.h"
#include "models/mem/sparse.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/sim.h"
#include "sim/tlp.h"
#include "tests/check_p2psim.h"
#include "tests/machine/open.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

#define BARMEM_FILE P2PSIM_SRCDIR "/tests/topologies/bar-memory.yaml"

/* ---- the endpoint: its row ------------------------------------------------ */

static struct sim_component_ops barmem_ops;
static uint16_t barmem_id;      /* one such device per machine here */

static void barmem_set_id(struct sim_component *c, uint16_t id)
{
    barmem_id = id;
    hmem_set_base(c, hmem_base(c), id);
}

static uint16_t barmem_get_id(const struct sim_component *c)
{
    (void)c;
    return barmem_id;
}

static void barmem_set_bar(struct sim_component *c, uint64_t base)
{
    hmem_set_base(c, base, barmem_id);
}

static const struct mkind_pcie barmem_pcie = {
    .port = "up",
    .set_id = barmem_set_id,
    .id = barmem_get_id,
    .bar_size = hmem_size,
    .set_bar = barmem_set_bar,
};

static const char *const barmem_keys[] = { "id", "parent", "link", "size",
                                           "latency", "bandwidth", NULL };

/* What it completes is what host memory completes (its row's completer,
 * set at registration). */
static struct mkind barmem_kind = {
    .ops = &barmem_ops,
    .role = MKIND_ENDPOINT,
    .pcie = &barmem_pcie,
    .yaml_list = "bar-memories",
    .yaml_what = "a BAR memory",
    .yaml_keys = barmem_keys,
    .reader = MKIND_READ_DEVICE,
};

/* Register the row (each test runs in its own process, or after another
 * that registered it). */
static void barmem_register(void)
{
    barmem_ops = hmem_ops;
    barmem_ops.kind = "bar-memory";
    barmem_kind.completer = mkind_find("host-memory")->completer;
    int rc = mkind_register(&barmem_kind);
    ck_assert_msg(rc == 0 || rc == -SIM_EEXIST, "mkind_register: %d", rc);
    ck_assert_ptr_eq(mkind_find("bar-memory"), &barmem_kind);
}

/* ---- the tests ------------------------------------------------------------ */

START_TEST(test_unregistered_is_unknown)
{
    /* Without its row the file's list is an unknown top-level key. */
    if (mkind_find("bar-memory")) {
        return;                 /* CK_FORK=no: registered by another test */
    }
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_file(BARMEM_FILE, NULL, &err);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(err.msg, "bar-memories") != NULL, "%s", err.msg);
}
END_TEST

START_TEST(test_register_rejects)
{
    barmem_register();
    /* a name or list key taken, or no model */
    ck_assert_int_eq(mkind_register(&barmem_kind), -SIM_EEXIST);
    struct mkind gpu_again = *mkind_find("gpu");
    gpu_again.yaml_list = "more-gpus";
    ck_assert_int_eq(mkind_register(&gpu_again), -SIM_EEXIST);
    struct mkind none = { 0 };
    ck_assert_int_eq(mkind_register(&none), -SIM_EINVAL);
    /* the built-in rows describe their models */
    ck_assert(mkind_find("gpu")->gpu);
    ck_assert_int_eq(mkind_find("pcie-switch")->role, MKIND_PCIE_SWITCH);
    ck_assert_int_eq(mkind_find("root-complex")->role, MKIND_ROOT_COMPLEX);
    ck_assert_int_eq(mkind_find("nvswitch")->role, MKIND_NVSWITCH);
    ck_assert_ptr_nonnull(mkind_find("host-memory")->completer);
    ck_assert_ptr_null(mkind_find("host-memory")->pcie);
}
END_TEST

START_TEST(test_built_routed)
{
    barmem_register();
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_file(BARMEM_FILE, NULL, &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    struct sim_component *mem = fab_find(m->fab, "mem0");
    struct sim_component *g = fab_gpu(m->fab, 0);
    ck_assert_ptr_nonnull(mem);
    ck_assert_ptr_eq(mkind_of(mem), &barmem_kind);
    ck_assert_uint_eq(fab_n_gpus(m->fab), 1);
    /* enumerated below sw0.dp1: the bus after dp0's GPU's, its BAR
     * naturally aligned in the MMIO range */
    ck_assert_uint_eq(barmem_id >> 8, (gpu_pcie_id(g) >> 8) + 1u);
    ck_assert_uint_eq(barmem_id & 0xff, 0);
    uint64_t base = hmem_base(mem), size = hmem_size(mem);
    ck_assert_uint_eq(size, 64u << 20);
    ck_assert_uint_ge(base, FAB_MMIO_BASE);
    ck_assert_uint_eq(base % size, 0);
    /* its link: what the file asked (Gen4 x8; the endpoint supports the
     * switch port's maximum) */
    struct sim_port *up = sim_port_find(mem, "up");
    ck_assert_ptr_nonnull(up);
    ck_assert_ptr_nonnull(up->link);
    /* a read from the GPU to it: gpu0 -> sw0 -> mem0, peer to peer in
     * the switch, and its completion comes back */
    struct tlp t;
    route_tlp_init(&t, TLP_MRD);
    t.requester_id = gpu_pcie_id(g);
    t.addr = base + 4096;
    t.len_bytes = 256;
    struct route r;
    ck_assert_int_eq(route_trace(sim_port_find(g, "pcie"), &t, false, &r), 0);
    ck_assert_uint_eq(r.n_hops, 2);
    ck_assert_str_eq(r.hop[0].to->name, "sw0");
    ck_assert_ptr_eq(r.dest, mem);
    ck_assert_ptr_eq(r.dest_port, up);
    ck_assert(r.hop[0].fwd_latency_ps > 0);
    struct tlp c;
    route_tlp_init(&c, TLP_CPLD);
    c.requester_id = gpu_pcie_id(g);
    c.completer_id = barmem_id;
    c.len_bytes = 256;
    ck_assert_int_eq(route_trace(up, &c, false, &r), 0);
    ck_assert_ptr_eq(r.dest, g);
    /* the copy size the path allows: the GPU's MPS, the device has none */
    ck_assert_uint_eq(fab_path_mps(m->fab, g, mem), gpu_mps(g));
    topo_machine_destroy(m);
}
END_TEST

/* The loader's checks hold for its entries too. */
START_TEST(test_device_errors)
{
    barmem_register();
    static const char *const cases[][2] = {
        { "{ id: mem0, parent: gpu0, size: 1MiB }",
          "parent 'gpu0' of 'mem0' is a GPU" },
        { "{ id: mem0, parent: sw0, sise: 1MiB }", "did you mean 'size'" },
        { "{ id: mem0, size: 1MiB }", "bar-memory 'mem0' has no 'parent'" },
        { "{ id: mem0, parent: sw0, size: 1MiB, latency: 5 }",
          "mem0" },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[1024];
        snprintf(text, sizeof(text),
                 "p2psim-machine: 1\nname: t\n"
                 "sockets: [{ id: cpu0, root-ports: 1 }]\n"
                 "switches: [{ id: sw0, parent: cpu0, ports: 2 }]\n"
                 "gpus: [{ id: gpu0, model: H200-SXM, parent: sw0 }]\n"
                 "bar-memories: [%s]\n", cases[i][0]);
        struct sim_error err;
        sim_error_clear(&err);
        struct topo_machine *m = topo_load_string("t.yaml", text,
                                                  strlen(text), NULL, &err);
        ck_assert_msg(m == NULL, "case %u loaded", i);
        ck_assert_msg(strstr(err.msg, cases[i][1]) != NULL, "case %u: %s", i,
                      err.msg);
    }
}
END_TEST

static void copied(void *arg, const struct p2psim_copy_result *r)
{
    *(int *)arg = r->status == 0 ? 1 : -1;
}

/* The GPU's copy engine pulls 1 MiB from the device's BAR into its HBM. */
static void copy_from_device(const char *fidelity)
{
    barmem_register();
    struct p2psim_options opt = { .fidelity = fidelity };
    struct p2psim *p = test_open(BARMEM_FILE, &opt);
    struct sim_component *mem = fab_find(p->m->fab, "mem0");
    enum { N = 1 << 20 };
    static unsigned char pattern[N], back[N];
    for (unsigned i = 0; i < N; i++) {
        pattern[i] = (unsigned char)(i * 7 + 3);
    }
    ck_assert_int_eq(mem_sparse_write(hmem_store(mem), 8192, pattern, N), 0);
    struct p2psim_loc src = { P2PSIM_HOST, 0, hmem_base(mem) + 8192 };
    struct p2psim_loc dst = { P2PSIM_DEVICE, 0, 1 << 20 };
    int done = 0;
    ck_assert_int_eq(p2psim_copy(p, &dst, &src, N, 0, 0, copied, &done), 0);
    ck_assert_int_eq(p2psim_run(p), 0);
    ck_assert_int_eq(done, 1);
    ck_assert_int_eq(p2psim_hbm_read(p, 0, 1 << 20, back, N), 0);
    ck_assert(memcmp(pattern, back, N) == 0);
    /* at Gen4 x8 (about 13 GB/s of reads at 256-byte completions) plus
     * the device's 300 ns: between 60 and 100 us */
    sim_time_t now = sim_now(p2psim_sim(p));
    ck_assert_msg(now > 60 * SIM_PS_PER_US && now < 100 * SIM_PS_PER_US,
                  "%s: 1 MiB in %llu ps", fidelity, (unsigned long long)now);
    p2psim_close(p);
}

START_TEST(test_copy_tlp)
{
    copy_from_device("tlp");
}
END_TEST

START_TEST(test_copy_flow)
{
    copy_from_device("flow");
}
END_TEST

Suite *make_kinds_suite(void)
{
    Suite *s = suite_create("kinds");
    TCase *tc = tcase_create("endpoint");
    tcase_add_test(tc, test_unregistered_is_unknown);
    tcase_add_test(tc, test_register_rejects);
    tcase_add_test(tc, test_built_routed);
    tcase_add_test(tc, test_device_errors);
    tcase_add_test(tc, test_copy_tlp);
    tcase_add_test(tc, test_copy_flow);
    suite_add_tcase(s, tc);
    return s;
}
