/*
 * tests/machine/check_topology.c - the machine-file loader: a valid file
 * builds a routable machine; every file of the broken corpus
 * (tests/topologies/broken/) fails with the message and the line:column
 * written in its first line ("# expect: LINE:COL: text"); every machine
 * of the library (topologies/) loads; the sections kept unread for the
 * layers above (api-costs:).
 */
#include <config.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/fabric.h"
#include "machine/p2psim.h"
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
 * api-costs: kept unread for the CUDA runtime (machine/topology_kept.c;
 * tests/cudart/check_api_costs.c reads it): each key and value as
 * written, in file order, with their marks; overrides replace a value or
 * add a key (marked "--set:N:C"), and create the section where the file
 * has none; keys the runtime does not know are kept like any other.
 */
static const char kept_machine[] =
    "p2psim-machine: 1\n"
    "name: t\n"
    "api-costs:\n"
    "  memcpy-async-d2d: 5.7us\n"
    "  event-record: 900ns\n"
    "  no-such-cost: { at: 1 }\n"
    "sockets:\n"
    "  - { id: s, root-ports: 1 }\n"
    "gpus:\n"
    "  - { id: g0, model: TEST-GPU, parent: s }\n";

static struct topo_machine *load_kept(const char *text, const char *overrides,
                                      struct sim_error *err)
{
    struct topo_options o = test_opt;
    o.overrides = overrides;
    sim_error_clear(err);
    return topo_load_string("kept.yaml", text, strlen(text), &o, err);
}

static void assert_entry(const struct p2psim_entry *e, const char *key,
                         const char *value, const char *file, unsigned line,
                         unsigned key_col, unsigned value_col)
{
    ck_assert_str_eq(e->key, key);
    if (value) {
        ck_assert_str_eq(e->value, value);
        ck_assert_str_eq(e->kind, "a value");
    } else {
        ck_assert_ptr_null(e->value);
        ck_assert_str_eq(e->kind, "a mapping");
    }
    ck_assert_str_eq(e->key_at.file, file);
    ck_assert_str_eq(e->value_at.file, file);
    ck_assert_uint_eq(e->value_at.line, line);
    ck_assert_uint_eq(e->value_at.column, value_col);
    if (key_col) {
        ck_assert_uint_eq(e->key_at.line, line);
        ck_assert_uint_eq(e->key_at.column, key_col);
    }
}

START_TEST(test_topology_kept_sections)
{
    struct sim_error err;
    struct topo_machine *m = load_kept(kept_machine, NULL, &err);
    ck_assert_msg(m != NULL, "%u:%u: %s", err.line, err.column, err.msg);
    ck_assert_uint_eq(m->n_kept, 1);
    const struct p2psim_section *s = &m->kept[0];
    ck_assert_str_eq(s->name, "api-costs");
    ck_assert_str_eq(s->at.file, "kept.yaml");
    ck_assert_uint_eq(s->at.line, 4);
    ck_assert_uint_eq(s->n, 3);
    assert_entry(&s->entry[0], "memcpy-async-d2d", "5.7us", "kept.yaml", 4,
                 3, 21);
    assert_entry(&s->entry[1], "event-record", "900ns", "kept.yaml", 5, 3,
                 17);
    assert_entry(&s->entry[2], "no-such-cost", NULL, "kept.yaml", 6, 3, 17);
    topo_machine_destroy(m);

    /* an override replaces a value where it stands, and adds a key */
    m = load_kept(kept_machine, "api-costs.launch=4us\n"
                                "api-costs.memcpy-async-d2d=3.9us", &err);
    ck_assert_msg(m != NULL, "%s:%u:%u: %s", err.file, err.line, err.column,
                  err.msg);
    s = &m->kept[0];
    ck_assert_uint_eq(s->n, 4);
    ck_assert_str_eq(s->entry[0].value, "3.9us");
    ck_assert_str_eq(s->entry[0].key_at.file, "kept.yaml");
    ck_assert_str_eq(s->entry[0].value_at.file, "--set");
    ck_assert_uint_eq(s->entry[0].value_at.line, 2);
    ck_assert_uint_eq(s->entry[0].value_at.column, 28);
    assert_entry(&s->entry[3], "launch", "4us", "--set", 1, 11, 18);
    topo_machine_destroy(m);

    /* no section, none kept; an override creates it */
    m = topo_load_file(P2PSIM_SRCDIR "/tests/topologies/base.yaml", &test_opt,
                       &err);
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(m->n_kept, 0);
    topo_machine_destroy(m);
    struct topo_options o = test_opt;
    o.overrides = "api-costs.host-function=2.5us";
    sim_error_clear(&err);
    m = topo_load_file(P2PSIM_SRCDIR "/tests/topologies/base.yaml", &o, &err);
    ck_assert_msg(m != NULL, "%s:%u:%u: %s", err.file, err.line, err.column,
                  err.msg);
    ck_assert_uint_eq(m->n_kept, 1);
    ck_assert_uint_eq(m->kept[0].n, 1);
    assert_entry(&m->kept[0].entry[0], "host-function", "2.5us", "--set", 1,
                 11, 25);
    topo_machine_destroy(m);
}
END_TEST

/* At most P2PSIM_SECTION_MAX_ENTRIES (64) entries, the next one an error
 * at its key (the broken corpus has the other errors of shape). */
START_TEST(test_topology_kept_limits)
{
    char text[4096];
    size_t at = (size_t)snprintf(text, sizeof(text),
                                 "p2psim-machine: 1\nname: t\napi-costs:\n");
    for (unsigned i = 0; i < P2PSIM_SECTION_MAX_ENTRIES; i++) {
        at += (size_t)snprintf(text + at, sizeof(text) - at, "  k%u: 1us\n",
                               i);
    }
    const char *tail = "sockets:\n  - { id: s, root-ports: 1 }\n"
                       "gpus:\n  - { id: g0, model: TEST-GPU, parent: s }\n";
    snprintf(text + at, sizeof(text) - at, "%s", tail);
    struct sim_error err;
    struct topo_machine *m = load_kept(text, NULL, &err);
    ck_assert_msg(m != NULL, "%u:%u: %s", err.line, err.column, err.msg);
    ck_assert_uint_eq(m->kept[0].n, P2PSIM_SECTION_MAX_ENTRIES);
    ck_assert_str_eq(m->kept[0].entry[63].key, "k63");
    topo_machine_destroy(m);
    m = load_kept(text, "api-costs.one-more=1us", &err);
    ck_assert_ptr_null(m);
    ck_assert_str_eq(err.file, "--set");
    ck_assert_uint_eq(err.line, 1);
    ck_assert_uint_eq(err.column, 11);
    ck_assert_msg(strstr(err.msg, "api-costs holds more than 64 entries"),
                  "%s", err.msg);
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

/* The n x n classes of machine m, against want (row by row, "X" on the
 * diagonal); label names the machine in a failure. */
static void check_classes(const struct topo_machine *m, unsigned n,
                          const char *label, const char *const *want)
{
    ck_assert_uint_eq(fab_n_gpus(m->fab), n);
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = 0; j < n; j++) {
            struct path pa;
            char got[16];
            ck_assert_int_eq(path_compute(m, fab_gpu(m->fab, i),
                                          fab_gpu(m->fab, j), &pa), 0);
            cell(&pa, got, sizeof(got));
            ck_assert_msg(!strcmp(got, want[i * n + j]), "%s GPU%u-GPU%u: "
                          "%s, expected %s", label, i, j, got,
                          want[i * n + j]);
        }
    }
}

static void check_matrix(const char *file, const char *uniform,
                         const char *const (*expect)[8])
{
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_file(file, NULL, &err);
    ck_assert_msg(m != NULL, "%s: %s", file, err.msg);
    const char *want[64];
    for (unsigned i = 0; i < 64; i++) {
        want[i] = i / 8 == i % 8 ? "X" : uniform ? uniform
                                                 : expect[i / 8][i % 8];
    }
    check_classes(m, 8, file, want);
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

/*
 * Host bridges and NUMA nodes inside a socket (topologies/4x-a100-epyc-
 * nps2.yaml): GPUs on rp0, rp1, rp2, rp4 of one EPYC whose host bridges
 * are quadrants of two root ports. NPS2 as the file says, then the same
 * socket in NPS1 (one NUMA node: no SYS) and NPS4 (a node per quadrant:
 * NODE turns SYS, one host bridge stays PHB). The NUMA node of each GPU
 * is the pci tree's (nvidia-smi's NUMA affinity).
 */
static void check_nps(const char *overrides, const char *const want[4][4],
                      const unsigned numa[4])
{
    const char *file = P2PSIM_SRCDIR "/topologies/4x-a100-epyc-nps2.yaml";
    struct topo_options o = { .overrides = overrides };
    struct p2psim_options po = { .overrides = overrides };
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_file(file, &o, &err);
    ck_assert_msg(m != NULL, "%s: %s", file, err.msg);
    check_classes(m, 4, overrides ? overrides : "NPS2", &want[0][0]);
    topo_machine_destroy(m);
    struct p2psim *p = p2psim_open(file, &po, &err);
    ck_assert_msg(p != NULL, "%s: %s", file, err.msg);
    struct p2psim_pci_node t[8];
    unsigned n = p2psim_pci_tree(p, t, 8);
    ck_assert_uint_eq(n, 4);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_int_ge(t[i].gpu, 0);
        ck_assert_msg(t[i].numa == numa[t[i].gpu], "GPU%d: NUMA node %u, "
                      "expected %u", t[i].gpu, t[i].numa, numa[t[i].gpu]);
    }
    p2psim_close(p);
}

START_TEST(test_topology_numa_in_socket)
{
    static const char *const nps2[4][4] = {
        { "X", "PHB", "NODE", "SYS" }, { "PHB", "X", "NODE", "SYS" },
        { "NODE", "NODE", "X", "SYS" }, { "SYS", "SYS", "SYS", "X" },
    };
    static const char *const nps1[4][4] = {
        { "X", "PHB", "NODE", "NODE" }, { "PHB", "X", "NODE", "NODE" },
        { "NODE", "NODE", "X", "NODE" }, { "NODE", "NODE", "NODE", "X" },
    };
    static const char *const nps4[4][4] = {
        { "X", "PHB", "SYS", "SYS" }, { "PHB", "X", "SYS", "SYS" },
        { "SYS", "SYS", "X", "SYS" }, { "SYS", "SYS", "SYS", "X" },
    };
    check_nps(NULL, nps2, (const unsigned[4]){ 0, 0, 0, 1 });
    check_nps("sockets.cpu0.root-complex.numa=socket", nps1,
              (const unsigned[4]){ 0, 0, 0, 0 });
    check_nps("sockets.cpu0.root-complex.numa=4", nps4,
              (const unsigned[4]){ 0, 0, 1, 2 });
    /* the same quadrants as listed groups */
    check_nps("sockets.cpu0.root-complex.numa=[[rp0, rp1], [rp2, rp3], "
              "[rp4, rp5], [rp6, rp7]]", nps4,
              (const unsigned[4]){ 0, 0, 1, 2 });
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
    tcase_add_test(tc, test_topology_kept_sections);
    tcase_add_test(tc, test_topology_kept_limits);
    tcase_add_test(tc, test_topology_vm_cliques);
    tcase_add_test(tc, test_topology_numa_in_socket);
    suite_add_tcase(s, tc);
    return s;
}
