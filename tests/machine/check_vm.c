/*
 * tests/machine/check_vm.c - P2P inside a virtual machine (user story 5):
 * the verdict between two GPUs below one switch, table-driven over the
 * machine's virtual-machine: and the GPUs' gpudirect-clique (set through
 * overrides on one small machine). A guest allows PCIe P2P only within
 * one clique; the rule says why and names the setting that lifts it.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "machine/fabric.h"
#include "machine/path.h"
#include "machine/topology.h"
#include "sim/component.h"
#include "sim/error.h"
#include "tests/check_p2psim.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

static const char machine[] =
    "p2psim-machine: 1\n"
    "name: vm\n"
    "sockets:\n"
    "  - { id: cpu0, memory: { size: 64GiB }, root-ports: 1 }\n"
    "switches:\n"
    "  - { id: sw0, parent: cpu0, ports: 2 }\n"
    "gpus:\n"
    "  - { id: g0, model: TEST-GPU, parent: sw0 }\n"
    "  - { id: g1, model: TEST-GPU, parent: sw0 }\n";

enum vm_rule { NO_RULE, RULE_OK, RULE_BLOCKS };

static const struct vm_case {
    const char *name;
    const char *overrides;      /* on machine[] */
    bool allowed;
    enum path_transport transport;
    enum vm_rule vm_rule;
    const char *says, *fix;     /* substrings of the VM rule, or NULL */
} vm_cases[] = {
    { "bare metal: no VM rule", "", true, TRANSPORT_PCIE, NO_RULE, NULL,
      NULL },
    { "guest, no clique: blocked",
      "virtual-machine.hypervisor=QEMU/KVM", false, TRANSPORT_NONE,
      RULE_BLOCKS, "g0 has no clique, g1 has no clique",
      "x-nv-gpudirect-clique=0 on each GPU" },
    { "guest, one clique only: blocked, fix names it",
      "virtual-machine.hypervisor=QEMU/KVM\ngpus.g1.gpudirect-clique=3",
      false, TRANSPORT_NONE, RULE_BLOCKS, "g0 has no clique, g1 has clique 3",
      "gpudirect-clique: 3 on g0 and g1" },
    { "guest, two cliques: blocked",
      "virtual-machine={}\ngpus.g0.gpudirect-clique=2\n"
      "gpus.g1.gpudirect-clique=5",
      false, TRANSPORT_NONE, RULE_BLOCKS, "g0 has clique 2, g1 has clique 5",
      "the same clique" },
    { "guest, one clique: allowed over PCIe",
      "virtual-machine.hypervisor=QEMU/KVM\ngpus.*.gpudirect-clique=7", true,
      TRANSPORT_PCIE, RULE_OK, "share GPUDirect P2P clique 7", NULL },
    { "guest, NVLink: the clique gates PCIe only",
      "virtual-machine={}\nnvlinks=[{ between: [g0, g1], links: 2 }]", true,
      TRANSPORT_NVLINK, NO_RULE, NULL, NULL },
};

START_TEST(test_vm_clique_verdict)
{
    const struct vm_case *c = &vm_cases[_i];
    struct topo_options o = {
        .gpu_dir = P2PSIM_SRCDIR "/tests/topologies/gpus",
        .overrides = c->overrides[0] ? c->overrides : NULL,
    };
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_string("vm.yaml", machine,
                                              sizeof(machine) - 1, &o, &err);
    ck_assert_msg(m != NULL, "%s: %s:%u:%u: %s", c->name, err.file, err.line,
                  err.column, err.msg);
    struct p2p_verdict v;
    ck_assert_int_eq(path_p2p_verdict(m, fab_find(m->fab, "g0"),
                                      fab_find(m->fab, "g1"), &v), 0);
    ck_assert_msg(v.allowed == c->allowed, "%s: allowed %d", c->name,
                  v.allowed);
    ck_assert_msg(v.transport == c->transport, "%s: transport %d", c->name,
                  (int)v.transport);
    const struct path_rule *r = NULL;
    for (unsigned i = 0; i < v.n_rules; i++) {
        if (v.rule[i].id == RULE_VM_CLIQUE) {
            ck_assert_msg(r == NULL, "%s: two VM rules", c->name);
            r = &v.rule[i];
        }
    }
    if (c->vm_rule == NO_RULE) {
        ck_assert_msg(r == NULL, "%s: unexpected rule '%s'", c->name,
                      r ? r->says : "");
    } else {
        ck_assert_msg(r != NULL, "%s: no VM rule", c->name);
        ck_assert_msg(r->blocks == (c->vm_rule == RULE_BLOCKS), "%s",
                      c->name);
        ck_assert(!r->slows);
        ck_assert_msg(strstr(r->says, c->says) != NULL, "%s: says '%s'",
                      c->name, r->says);
        if (c->fix) {
            ck_assert_msg(strstr(r->fix, c->fix) != NULL, "%s: fix '%s'",
                          c->name, r->fix);
        } else {
            ck_assert_str_eq(r->fix, "");
        }
    }
    /* the VM changes only the verdict, never the physical path */
    ck_assert_int_eq(v.path.cls, c->transport == TRANSPORT_NVLINK ? PATH_NV
                                                                  : PATH_PIX);
    topo_machine_destroy(m);
}
END_TEST

Suite *make_vm_suite(void)
{
    Suite *s = suite_create("vm");
    TCase *tc = tcase_create("Clique");
    tcase_add_loop_test(tc, test_vm_clique_verdict, 0,
                        (int)(sizeof(vm_cases) / sizeof(vm_cases[0])));
    suite_add_tcase(s, tc);
    return s;
}
