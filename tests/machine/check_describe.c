/*
 * tests/machine/check_describe.c - libp2psim's own types (machine/p2psim.h):
 * what p2psim_gpu_describe, p2psim_path and p2psim_p2p hand out says what
 * the models say (struct gpu_info, machine/path.h), field by field, on
 * every pair of the library's machines; the built-in machines list; the
 * sections kept for the layers above, by name.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "machine/fabric.h"
#include "machine/p2psim.h"
#include "machine/p2psim_int.h"
#include "machine/path.h"
#include "machine/topology.h"
#include "models/gpu/gpu.h"
#include "sim/component.h"
#include "sim/error.h"
#include "tests/check_p2psim.h"
#include "tests/machine/open.h"

/* Machines of the library with every product class, PCIe switches, ACS,
 * IOMMU, NVLink, NVSwitches, a fabric manager and a VM guest between them. */
static const char *const machines[] = {
    "hgx-h200-x2",          "dgx1-v100",
    "desktop-2x-geforce",   "4x-rtx4090-switch-acs-iommu",
    "teaching-acs-iommu",   "8x-rtxpro6000-2x-epyc",
    "dgx-2",                "vm-2x-h100-passthrough",
    "8x-rtx4090-2x-epyc7542",
};

START_TEST(test_describe_gpus)
{
    struct p2psim *p = test_open(machines[_i], NULL);
    for (unsigned i = 0; i < p2psim_gpu_count(p); i++) {
        const struct gpu_info *in = gpu_get_info(fab_gpu(p->m->fab, i));
        struct p2psim_gpu_desc d;
        ck_assert_int_eq(p2psim_gpu_describe(p, i, &d), 0);
        ck_assert_str_eq(d.model, in->name);
        ck_assert_str_eq(d.model, p2psim_gpu_model(p, i));
        ck_assert_int_eq(d.cls, in->class_ == GPU_CLASS_DATACENTER
                                    ? P2PSIM_GPU_DATACENTER
                                : in->class_ == GPU_CLASS_WORKSTATION
                                    ? P2PSIM_GPU_WORKSTATION
                                    : P2PSIM_GPU_GEFORCE);
        ck_assert_str_eq(d.architecture, in->architecture);
        ck_assert_uint_eq(d.cc_major, in->cc_major);
        ck_assert_uint_eq(d.cc_minor, in->cc_minor);
        ck_assert_uint_eq(d.sms, in->sms);
        ck_assert_uint_eq(d.sm_clock_hz, in->sm_clock_hz);
        ck_assert_uint_eq(d.mem_clock_hz, in->mem_clock_hz);
        ck_assert_uint_eq(d.mem_bus_width, in->mem_bus_width);
        ck_assert_uint_eq(d.l2_bytes, in->l2_bytes);
        ck_assert_uint_eq(d.nvlink_links, in->nvlink_links);
        ck_assert_uint_eq(d.nvlink_gen, in->nvlink_gen);
        ck_assert(d.atomics_pcie == in->atomics_pcie);
        ck_assert(d.atomics_nvlink == in->atomics_nvlink);
    }
    struct p2psim_gpu_desc d = { .sms = 7 };
    ck_assert_int_eq(p2psim_gpu_describe(p, p2psim_gpu_count(p), &d),
                     -SIM_EINVAL);
    ck_assert_uint_eq(d.sms, 7);        /* untouched */
    p2psim_close(p);
}
END_TEST

/* The classes: each machine's products, as their catalogs say. */
START_TEST(test_describe_classes)
{
    static const struct {
        const char *machine;
        enum p2psim_gpu_class cls;
    } want[] = {
        { "hgx-h200-x2", P2PSIM_GPU_DATACENTER },
        { "desktop-2x-geforce", P2PSIM_GPU_GEFORCE },
        { "8x-rtxpro6000-2x-epyc", P2PSIM_GPU_WORKSTATION },
    };
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        struct p2psim *p = test_open(want[k].machine, NULL);
        struct p2psim_gpu_desc d;
        ck_assert_int_eq(p2psim_gpu_describe(p, 0, &d), 0);
        ck_assert_msg(d.cls == want[k].cls, "%s: class %d", want[k].machine,
                      (int)d.cls);
        p2psim_close(p);
    }
}
END_TEST

static void same_path(const struct p2psim_path *pub, const struct path *in)
{
    ck_assert_str_eq(p2psim_path_class_name(pub->cls),
                     path_class_name(in->cls));
    ck_assert_int_eq((int)pub->cls, (int)in->cls); /* both best first */
    ck_assert_uint_eq(pub->nv_links, in->nv_links);
    ck_assert(pub->pcie_connected == in->pcie_connected);
    ck_assert(pub->acs_redirect == in->acs_redirect);
    ck_assert(pub->cross_socket == in->cross_socket);
    ck_assert_uint_eq(pub->n_hops, in->n_hops);
    for (unsigned h = 0; h < in->n_hops; h++) {
        ck_assert_str_eq(pub->hop[h].name, in->hop[h].comp->name);
        ck_assert_ptr_eq(pub->hop[h].in, in->hop[h].in);
        ck_assert_ptr_eq(pub->hop[h].out, in->hop[h].out);
        ck_assert(pub->hop[h].redirected == in->hop[h].redirected);
    }
}

/* Every pair: the public path and verdict say what machine/path.c says. */
START_TEST(test_describe_paths_and_verdicts)
{
    struct p2psim *p = test_open(machines[_i], NULL);
    unsigned n = p2psim_gpu_count(p);
    unsigned rules = 0;
    for (unsigned a = 0; a < n; a++) {
        for (unsigned b = 0; b < n; b++) {
            const struct sim_component *ga = fab_gpu(p->m->fab, a);
            const struct sim_component *gb = fab_gpu(p->m->fab, b);
            struct path in_path;
            struct p2psim_path pub_path;
            ck_assert_int_eq(path_compute(p->m, ga, gb, &in_path), 0);
            ck_assert_int_eq(p2psim_path(p, a, b, &pub_path), 0);
            same_path(&pub_path, &in_path);

            struct p2p_verdict in;
            struct p2psim_verdict pub;
            ck_assert_int_eq(path_p2p_verdict(p->m, ga, gb, &in), 0);
            ck_assert_int_eq(p2psim_p2p(p, a, b, &pub), 0);
            ck_assert(pub.allowed == in.allowed);
            ck_assert(pub.reads_allowed == in.reads_allowed);
            ck_assert_int_eq(pub.transport,
                             in.transport == TRANSPORT_NVLINK
                                 ? P2PSIM_TRANSPORT_NVLINK
                             : in.transport == TRANSPORT_PCIE
                                 ? P2PSIM_TRANSPORT_PCIE
                                 : P2PSIM_TRANSPORT_NONE);
            same_path(&pub.path, &in.path);
            ck_assert_uint_eq(pub.n_rules, in.n_rules);
            for (unsigned r = 0; r < in.n_rules; r++) {
                ck_assert_int_eq((int)pub.rule[r].id, (int)in.rule[r].id);
                ck_assert(pub.rule[r].blocks == in.rule[r].blocks);
                ck_assert(pub.rule[r].slows == in.rule[r].slows);
                ck_assert_str_eq(pub.rule[r].says, in.rule[r].says);
                ck_assert_str_eq(pub.rule[r].fix, in.rule[r].fix);
            }
            rules += in.n_rules;
        }
    }
    ck_assert_uint_gt(rules, 0);
    struct p2psim_verdict v;
    struct p2psim_path pa;
    ck_assert_int_eq(p2psim_p2p(p, 0, n, &v), -SIM_EINVAL);
    ck_assert_int_eq(p2psim_path(p, n, 0, &pa), -SIM_EINVAL);
    p2psim_close(p);
}
END_TEST

/* A few rules by name, where the machine is known to raise them. */
START_TEST(test_describe_rule_names)
{
    struct p2psim *p = test_open("desktop-2x-geforce", NULL);
    struct p2psim_verdict v;
    ck_assert_int_eq(p2psim_p2p(p, 0, 1, &v), 0);
    ck_assert(!v.allowed);
    ck_assert_int_eq(v.transport, P2PSIM_TRANSPORT_NONE);
    ck_assert_int_eq(v.path.cls, P2PSIM_PATH_PHB);
    ck_assert_uint_gt(v.n_rules, 0);
    ck_assert_int_eq(v.rule[0].id, P2PSIM_RULE_PRODUCT);
    ck_assert(v.rule[0].blocks);
    ck_assert_int_eq(p2psim_p2p(p, 1, 1, &v), 0);
    ck_assert_int_eq(v.path.cls, P2PSIM_PATH_X);
    ck_assert_int_eq(v.rule[0].id, P2PSIM_RULE_SAME_DEVICE);
    p2psim_close(p);
    p = test_open("hgx-h200-x2", NULL);
    ck_assert_int_eq(p2psim_p2p(p, 0, 1, &v), 0);
    ck_assert(v.allowed);
    ck_assert_int_eq(v.transport, P2PSIM_TRANSPORT_NVLINK);
    ck_assert_int_eq(v.path.cls, P2PSIM_PATH_NV);
    p2psim_close(p);
    ck_assert_str_eq(p2psim_path_class_name(P2PSIM_PATH_SYS), "SYS");
    ck_assert_str_eq(p2psim_path_class_name((enum p2psim_path_class)99),
                     "?");
}
END_TEST

/* The built-in machines: files without a folder, each loadable by name;
 * the GPU catalog is reachable by text but not listed. */
START_TEST(test_describe_builtin_machines)
{
    unsigned n = 0;
    const char *name;
    for (; (name = p2psim_builtin_machine(n)); n++) {
        size_t len = strlen(name);
        ck_assert_ptr_null(strchr(name, '/'));
        ck_assert_uint_gt(len, 5);
        ck_assert_str_eq(name + len - 5, ".yaml");
        ck_assert_ptr_nonnull(p2psim_builtin_text(name));
    }
    ck_assert_uint_ge(n, sizeof(machines) / sizeof(machines[0]));
    ck_assert_ptr_null(p2psim_builtin_machine(n + 1));
    ck_assert_ptr_nonnull(p2psim_builtin_text("h200-x1.yaml"));
    ck_assert_ptr_nonnull(p2psim_builtin_text("gpus/H200-SXM.yaml"));
    ck_assert_ptr_null(p2psim_builtin_text("no-such-machine.yaml"));
}
END_TEST

/* The sections kept for the layers above, by name (their content:
 * tests/machine/check_topology.c). */
START_TEST(test_describe_sections)
{
    struct p2psim *p = test_open("h200-x1", NULL);
    const struct p2psim_section *s = p2psim_section(p, "api-costs");
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s->name, "api-costs");
    ck_assert_uint_eq(s->n, 1);
    ck_assert_str_eq(s->entry[0].key, "memcpy-async-d2d");
    ck_assert_str_eq(s->entry[0].value, "6.1us");
    ck_assert_str_eq(s->entry[0].key_at.file, "<built-in>/h200-x1.yaml");
    ck_assert_uint_eq(s->entry[0].key_at.line, 53);
    ck_assert_ptr_null(p2psim_section(p, "gpus"));    /* read, not kept */
    ck_assert_ptr_null(p2psim_section(p, "no-such-section"));
    p2psim_close(p);
    p = test_open("dgx1-v100", NULL);
    ck_assert_ptr_null(p2psim_section(p, "api-costs"));
    p2psim_close(p);
}
END_TEST

Suite *make_describe_suite(void)
{
    Suite *s = suite_create("describe");
    TCase *tc = tcase_create("Plain types");
    unsigned n = sizeof(machines) / sizeof(machines[0]);
    tcase_add_loop_test(tc, test_describe_gpus, 0, (int)n);
    tcase_add_test(tc, test_describe_classes);
    tcase_add_loop_test(tc, test_describe_paths_and_verdicts, 0, (int)n);
    tcase_add_test(tc, test_describe_rule_names);
    tcase_add_test(tc, test_describe_builtin_machines);
    tcase_add_test(tc, test_describe_sections);
    suite_add_tcase(s, tc);
    return s;
}
