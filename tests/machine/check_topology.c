/*
 * tests/machine/check_topology.c - the machine-file loader: a valid file
 * builds a routable machine; every file of the broken corpus
 * (tests/topologies/broken/) fails with the message and the line:column
 * written in its first line ("# expect: LINE:COL: text"); every machine
 * of the library (topologies/) loads.
 */
#include <config.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/fabric.h"
#include "models/gpu/gpu.h"
#include "machine/path.h"
#include "models/pcie/pcie.h"
#include "models/pcie/pcie_regs.h"
#include "models/pcie/switch.h"
#include "machine/topology.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "tests/check_p2psim.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

static const struct topo_options test_opt = {
    .gpu_dir = P2PSIM_SRCDIR "/tests/topologies/gpus",
};

START_TEST(test_topology_loads_base)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_file(
        P2PSIM_SRCDIR "/tests/topologies/base.yaml", &test_opt, &err);
    ck_assert_msg(m != NULL, "%s:%u:%u: %s", err.file, err.line, err.column,
                  err.msg);
    ck_assert_str_eq(m->name, "base");
    ck_assert_uint_eq(fab_n_gpus(m->fab), 2);
    struct sim_component *g0 = fab_find(m->fab, "gpu0");
    ck_assert_ptr_nonnull(g0);
    ck_assert_str_eq(gpu_get_info(g0)->name, "TEST-GPU");
    ck_assert_uint_eq(gpu_pcie_max_width(g0), 8);
    ck_assert_uint_eq(gpu_bar1_size(g0), UINT64_C(16) << 30);
    /* routed: the switch claims both GPUs' BAR1 windows */
    unsigned n;
    struct pcie_route *r = psw_routes(fab_find(m->fab, "sw0"), &n);
    ck_assert(pcie_route_claims_addr(&r[1], gpu_bar1_base(g0)));
    ck_assert(fab_find(m->fab, "cpu0-mem") != NULL);
    topo_machine_destroy(m);
}
END_TEST

START_TEST(test_topology_overrides_and_acs)
{
    static const char text[] =
        "p2psim-machine: 1\n"
        "name: t\n"
        "defaults:\n"
        "  switch: { latency: 150ns }\n"
        "sockets:\n"
        "  - id: s\n"
        "    root-ports:\n"
        "      - { id: rpA, acs: [SV, RR] }\n"
        "      - { id: rpB }\n"
        "switches:\n"
        "  - { id: sw, parent: s.rpB, ports: 3, acs: { dp2: [RR, CR] } }\n"
        "gpus:\n"
        "  - { id: g0, model: TEST-GPU, parent: sw.dp2, set: { bar1: 1GiB } }\n"
        "  - { id: g1, model: TEST-GPU, parent: s }\n";
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_string("t.yaml", text, sizeof(text) - 1,
                                              &test_opt, &err);
    ck_assert_msg(m != NULL, "%u:%u: %s", err.line, err.column, err.msg);
    struct sim_component *sw = fab_find(m->fab, "sw");
    ck_assert_uint_eq(psw_acs(sw, 2), PCI_ACS_RR | PCI_ACS_CR);
    ck_assert_uint_eq(psw_acs(sw, 0), 0);
    ck_assert_uint_eq(gpu_bar1_size(fab_find(m->fab, "g0")), UINT64_C(1) << 30);
    /* g1 took the first free root port (rpA) since sw named rpB */
    struct sim_port *p = sim_port_find(fab_find(m->fab, "s"), "rp0");
    ck_assert_str_eq(sim_port_peer(p)->owner->name, "g1");
    topo_machine_destroy(m);
}
END_TEST

/* The default port names at the limits (32 root ports, 64 switch ports):
 * the last ones, rp31 and dp63, are whole names a parent can point at. */
START_TEST(test_topology_port_names_at_limits)
{
    static const char text[] =
        "p2psim-machine: 1\n"
        "name: t\n"
        "sockets:\n"
        "  - { id: s, root-ports: 32 }\n"
        "switches:\n"
        "  - { id: sw, parent: s.rp31, ports: 64 }\n"
        "gpus:\n"
        "  - { id: g0, model: TEST-GPU, parent: sw.dp63 }\n";
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_string("t.yaml", text, sizeof(text) - 1,
                                              &test_opt, &err);
    ck_assert_msg(m != NULL, "%u:%u: %s", err.line, err.column, err.msg);
    struct sim_port *p = sim_port_find(fab_find(m->fab, "s"), "rp31");
    ck_assert_str_eq(sim_port_peer(p)->owner->name, "sw");
    p = sim_port_find(fab_find(m->fab, "sw"), "dp63");
    ck_assert_str_eq(sim_port_peer(p)->owner->name, "g0");
    topo_machine_destroy(m);
}
END_TEST

/*
 * api-costs: the host-side costs of CUDA calls a machine sets. Those set
 * are read in ps; the others stay unset (the runtime keeps its defaults).
 */
static const char api_costs_machine[] =
    "p2psim-machine: 1\n"
    "name: t\n"
    "api-costs:\n"
    "  memcpy-async-d2d: 5.7us\n"
    "  event-record: 900ns\n"
    "  sync: 0s\n"
    "sockets:\n"
    "  - { id: s, root-ports: 1 }\n"
    "gpus:\n"
    "  - { id: g0, model: TEST-GPU, parent: s }\n";

static struct topo_machine *load_api_costs(const char *text,
                                           const char *overrides,
                                           struct sim_error *err)
{
    struct topo_options o = test_opt;
    o.overrides = overrides;
    sim_error_clear(err);
    return topo_load_string("costs.yaml", text, strlen(text), &o, err);
}

START_TEST(test_topology_api_costs_read)
{
    struct sim_error err;
    struct topo_machine *m = load_api_costs(api_costs_machine, NULL, &err);
    ck_assert_msg(m != NULL, "%u:%u: %s", err.line, err.column, err.msg);
    ck_assert(m->api_cost_set[TOPO_API_COST_MEMCPY_ASYNC_D2D]);
    ck_assert_uint_eq(m->api_cost_ps[TOPO_API_COST_MEMCPY_ASYNC_D2D],
                      5700000);
    ck_assert(m->api_cost_set[TOPO_API_COST_EVENT_RECORD]);
    ck_assert_uint_eq(m->api_cost_ps[TOPO_API_COST_EVENT_RECORD], 900000);
    /* zero is a value like any other: set, 0 ps */
    ck_assert(m->api_cost_set[TOPO_API_COST_SYNC]);
    ck_assert_uint_eq(m->api_cost_ps[TOPO_API_COST_SYNC], 0);
    unsigned n_set = 0;
    for (unsigned c = 0; c < TOPO_API_COST_N; c++) {
        n_set += m->api_cost_set[c];
    }
    ck_assert_uint_eq(n_set, 3);
    topo_machine_destroy(m);

    /* an override replaces a value, and creates api-costs: where the file
     * has none (tests/topologies/base.yaml) */
    m = load_api_costs(api_costs_machine,
                       "api-costs.memcpy-async-d2d=3.9us\n"
                       "api-costs.launch=4us", &err);
    ck_assert_msg(m != NULL, "%s:%u:%u: %s", err.file, err.line, err.column,
                  err.msg);
    ck_assert_uint_eq(m->api_cost_ps[TOPO_API_COST_MEMCPY_ASYNC_D2D],
                      3900000);
    ck_assert(m->api_cost_set[TOPO_API_COST_LAUNCH]);
    ck_assert_uint_eq(m->api_cost_ps[TOPO_API_COST_LAUNCH], 4000000);
    topo_machine_destroy(m);
    struct topo_options o = test_opt;
    o.overrides = "api-costs.host-function=2.5us";
    sim_error_clear(&err);
    m = topo_load_file(P2PSIM_SRCDIR "/tests/topologies/base.yaml", &o, &err);
    ck_assert_msg(m != NULL, "%s:%u:%u: %s", err.file, err.line, err.column,
                  err.msg);
    ck_assert(m->api_cost_set[TOPO_API_COST_HOST_FUNCTION]);
    ck_assert_uint_eq(m->api_cost_ps[TOPO_API_COST_HOST_FUNCTION], 2500000);
    ck_assert(!m->api_cost_set[TOPO_API_COST_MEMCPY_ASYNC_D2D]);
    topo_machine_destroy(m);
}
END_TEST

/* Every key of the one names table is accepted, and none is left NULL. */
START_TEST(test_topology_api_costs_every_key)
{
    char over[64];
    const char *key = topo_api_cost_names[_i];
    ck_assert_ptr_nonnull(key);
    snprintf(over, sizeof(over), "api-costs.%s=%uns", key, 100 + _i);
    struct sim_error err;
    struct topo_machine *m = load_api_costs(api_costs_machine, over, &err);
    ck_assert_msg(m != NULL, "%s: %s", over, err.msg);
    ck_assert(m->api_cost_set[_i]);
    ck_assert_uint_eq(m->api_cost_ps[_i], (100 + _i) * 1000);
    topo_machine_destroy(m);
}
END_TEST

/* Errors in overrides point at the override ("--set:N:C"). */
START_TEST(test_topology_api_costs_override_errors)
{
    struct sim_error err;
    struct topo_machine *m = load_api_costs(
        api_costs_machine, "api-costs.memcpy-async-d2d=5 us", &err);
    ck_assert_ptr_null(m);
    ck_assert_str_eq(err.file, "--set");
    ck_assert_uint_eq(err.line, 1);
    ck_assert_uint_eq(err.column, 28);
    ck_assert_msg(strstr(err.msg, "memcpy-async-d2d") != NULL, "%s", err.msg);
    m = load_api_costs(api_costs_machine, "\napi-costs.memcpy-d2d=5us", &err);
    ck_assert_ptr_null(m);
    ck_assert_str_eq(err.file, "--set");
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 11);
    ck_assert_msg(strstr(err.msg, "unknown key 'memcpy-d2d' in api-costs") !=
                      NULL, "%s", err.msg);
}
END_TEST

/*
 * virtual-machine: and gpudirect-clique (user story 5): the library's VM
 * machine loads as a guest without cliques, and overrides set a clique
 * (or report a bad one at --set:N:C).
 */
START_TEST(test_topology_vm_cliques)
{
    static const char file[] =
        P2PSIM_SRCDIR "/topologies/vm-2x-h100-passthrough.yaml";
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_file(file, NULL, &err);
    ck_assert_msg(m != NULL, "%s:%u:%u: %s", err.file, err.line, err.column,
                  err.msg);
    ck_assert(m->vm);
    ck_assert_str_eq(m->vm_hypervisor, "QEMU/KVM");
    ck_assert_uint_eq(m->n_vm_gpus, 0);
    ck_assert_int_eq(topo_gpudirect_clique(m, "gpu0"), TOPO_CLIQUE_NONE);
    topo_machine_destroy(m);

    struct topo_options o = { .overrides = "gpus.gpu1.gpudirect-clique=15" };
    m = topo_load_file(file, &o, &err);
    ck_assert_msg(m != NULL, "%s:%u:%u: %s", err.file, err.line, err.column,
                  err.msg);
    ck_assert_int_eq(topo_gpudirect_clique(m, "gpu1"), 15);
    ck_assert_int_eq(topo_gpudirect_clique(m, "gpu0"), TOPO_CLIQUE_NONE);
    topo_machine_destroy(m);

    /* a machine that is no VM has no cliques, whatever the GPU */
    m = topo_load_file(P2PSIM_SRCDIR "/tests/topologies/base.yaml", &test_opt,
                       &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    ck_assert(!m->vm);
    ck_assert_int_eq(topo_gpudirect_clique(m, "gpu0"), TOPO_CLIQUE_NONE);
    topo_machine_destroy(m);

    o.overrides = "gpus.gpu0.gpudirect-clique=0\ngpus.gpu1.gpudirect-clique=16";
    m = topo_load_file(file, &o, &err);
    ck_assert_ptr_null(m);
    ck_assert_str_eq(err.file, "--set");
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 28);
    ck_assert_msg(strstr(err.msg, "from 0 to 15") != NULL, "%s", err.msg);
}
END_TEST

/* Read "# expect: L:C: text" from the first line. */
static int read_expect(const char *path, unsigned *line, unsigned *col,
                       char *text, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        return -1;
    }
    char buf[512];
    int rc = -1;
    if (fgets(buf, sizeof(buf), f) &&
        sscanf(buf, "# expect: %u:%u: %[^\n]", line, col, text) == 3) {
        rc = 0;
    }
    (void)n;
    fclose(f);
    return rc;
}

START_TEST(test_topology_broken_corpus)
{
    const char *dir = P2PSIM_SRCDIR "/tests/topologies/broken";
    DIR *dp = opendir(dir);
    ck_assert_msg(dp != NULL, "cannot open %s", dir);
    struct dirent *de;
    unsigned n_files = 0;
    while ((de = readdir(dp))) {
        if (!strstr(de->d_name, ".yaml")) {
            continue;
        }
        char path[1024], text[400];
        unsigned line = 0, col = 0;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        ck_assert_msg(read_expect(path, &line, &col, text, sizeof(text)) == 0,
                      "%s: first line must be '# expect: L:C: text'",
                      de->d_name);
        struct sim_error err;
        sim_error_clear(&err);
        struct topo_machine *m = topo_load_file(path, &test_opt, &err);
        ck_assert_msg(m == NULL, "%s loaded, but should fail with '%s'",
                      de->d_name, text);
        ck_assert_msg(strstr(err.msg, text) != NULL,
                      "%s: got '%s', expected '%s'", de->d_name, err.msg,
                      text);
        ck_assert_msg(err.line == line && err.column == col,
                      "%s: error at %u:%u, expected %u:%u (%s)", de->d_name,
                      err.line, err.column, line, col, err.msg);
        ck_assert_ptr_nonnull(err.file);
        n_files++;
    }
    closedir(dp);
    ck_assert_uint_ge(n_files, 30);
}
END_TEST

START_TEST(test_topology_library_loads)
{
    const char *dir = P2PSIM_SRCDIR "/topologies";
    DIR *dp = opendir(dir);
    ck_assert_ptr_nonnull(dp);
    struct dirent *de;
    unsigned n_files = 0;
    while ((de = readdir(dp))) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".yaml") != 0) {
            continue;
        }
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        struct sim_error err;
        sim_error_clear(&err);
        struct topo_machine *m = topo_load_file(path, NULL, &err);
        ck_assert_msg(m != NULL, "%s:%u:%u: %s", err.file, err.line,
                      err.column, err.msg);
        ck_assert_uint_gt(fab_n_gpus(m->fab), 0);
        topo_machine_destroy(m);
        n_files++;
    }
    closedir(dp);
    ck_assert_uint_ge(n_files, 9);
    /* the built-in default too */
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_default(NULL, &err);
    ck_assert_msg(m != NULL, "default: %s", err.msg);
    topo_machine_destroy(m);
}
END_TEST

/*
 * The published nvidia-smi topo -m matrices: DGX-1V (calibration case
 * dgx1-v100-hybrid-cube-mesh: NV1/NV2 within quads, one NV2 to the
 * counterpart, SYS otherwise), DGX A100 (NV12 everywhere), HGX H100 (NV18).
 */
static const char *const dgx1_published[8][8] = {
    { "X", "NV1", "NV1", "NV2", "NV2", "SYS", "SYS", "SYS" },
    { "NV1", "X", "NV2", "NV1", "SYS", "NV2", "SYS", "SYS" },
    { "NV1", "NV2", "X", "NV2", "SYS", "SYS", "NV1", "SYS" },
    { "NV2", "NV1", "NV2", "X", "SYS", "SYS", "SYS", "NV1" },
    { "NV2", "SYS", "SYS", "SYS", "X", "NV1", "NV1", "NV2" },
    { "SYS", "NV2", "SYS", "SYS", "NV1", "X", "NV2", "NV1" },
    { "SYS", "SYS", "NV1", "SYS", "NV1", "NV2", "X", "NV2" },
    { "SYS", "SYS", "SYS", "NV1", "NV2", "NV1", "NV2", "X" },
};

static void cell(const struct path *pa, char *buf, size_t n)
{
    if (pa->cls == PATH_NV) {
        snprintf(buf, n, "NV%u", pa->nv_links);
    } else {
        snprintf(buf, n, "%s", path_class_name(pa->cls));
    }
}

static void check_matrix(const char *file, const char *uniform,
                         const char *const (*expect)[8])
{
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_file(file, NULL, &err);
    ck_assert_msg(m != NULL, "%s: %s", file, err.msg);
    ck_assert_uint_eq(fab_n_gpus(m->fab), 8);
    for (unsigned i = 0; i < 8; i++) {
        for (unsigned j = 0; j < 8; j++) {
            struct path pa;
            char got[16];
            ck_assert_int_eq(path_compute(m, fab_gpu(m->fab, i),
                                          fab_gpu(m->fab, j), &pa), 0);
            cell(&pa, got, sizeof(got));
            const char *want = i == j ? "X" : uniform ? uniform : expect[i][j];
            ck_assert_msg(!strcmp(got, want), "%s GPU%u-GPU%u: %s, published %s",
                          file, i, j, got, want);
        }
    }
    topo_machine_destroy(m);
}

START_TEST(test_topology_published_matrices)
{
    check_matrix(P2PSIM_SRCDIR "/topologies/dgx1-v100.yaml", NULL,
                 dgx1_published);
    check_matrix(P2PSIM_SRCDIR "/topologies/dgx-a100.yaml", "NV12", NULL);
    check_matrix(P2PSIM_SRCDIR "/topologies/hgx-h100.yaml", "NV18", NULL);
}
END_TEST

Suite *make_topology_suite(void)
{
    Suite *s = suite_create("topology");
    TCase *tc = tcase_create("Loader");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_topology_loads_base);
    tcase_add_test(tc, test_topology_overrides_and_acs);
    tcase_add_test(tc, test_topology_port_names_at_limits);
    tcase_add_test(tc, test_topology_broken_corpus);
    tcase_add_test(tc, test_topology_library_loads);
    tcase_add_test(tc, test_topology_published_matrices);
    tcase_add_test(tc, test_topology_api_costs_read);
    tcase_add_loop_test(tc, test_topology_api_costs_every_key, 0,
                        TOPO_API_COST_N);
    tcase_add_test(tc, test_topology_api_costs_override_errors);
    tcase_add_test(tc, test_topology_vm_cliques);
    suite_add_tcase(s, tc);
    return s;
}
