/*
 * machine/topology_vm.c - a machine file's virtual-machine: and each GPU's
 * gpudirect-clique (topologies/SCHEMA.md, machine/topology.h for the model).
 */
#include <config.h>

#include "machine/topology.h"
#include "machine/topology_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "sim/error.h"
#include "sim/units.h"

/* ---- a virtual machine's guest view ---------------------------------------------------- */

static const char *const vm_keys[] = { "hypervisor", NULL };

/* One GPU's gpudirect-clique: a number from 0 to TOPO_CLIQUE_MAX. */
static int parse_clique(struct loader *L, struct ent *g, yaml_node_t *cn,
                        int *out)
{
    struct ydoc *d = &L->doc;
    const char *s = ydoc_scalar(cn);
    uint64_t v;
    char why[200];
    if (!s || sim_parse_u64(s, &v, why, sizeof(why)) < 0 ||
        v > TOPO_CLIQUE_MAX) {
        return ydoc_err_at(d, cn, L->err, SIM_EINVAL,
                           "GPU '%s': gpudirect-clique must be a number from "
                           "0 to %d (the x-nv-gpudirect-clique the hypervisor "
                           "gives this GPU), not '%s'", g->id,
                           TOPO_CLIQUE_MAX, s ? s : ydoc_kind_name(cn));
    }
    *out = (int)v;
    return 0;
}

/*
 * virtual-machine: { hypervisor: ... } and each GPU's gpudirect-clique
 * into m. A clique only means something to a guest, so one without
 * virtual-machine: is an error at the clique.
 */
int tl_parse_virtual_machine(struct loader *L, struct topo_machine *m)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *vm = ydoc_get(d, L->root, "virtual-machine");
    int rc;
    if (vm) {
        if ((rc = ydoc_expect(d, vm, YAML_MAPPING_NODE, "virtual-machine",
                              L->err)) < 0 ||
            (rc = ydoc_check_keys(d, vm, vm_keys, "virtual-machine",
                                  L->err)) < 0) {
            return rc;
        }
        yaml_node_t *hv = ydoc_get(d, vm, "hypervisor");
        if (hv && !ydoc_scalar(hv)) {
            return ydoc_err_at(d, hv, L->err, SIM_EINVAL,
                               "virtual-machine: hypervisor must be a name "
                               "(e.g. \"QEMU/KVM\"), not %s",
                               ydoc_kind_name(hv));
        }
        m->vm = true;
        snprintf(m->vm_hypervisor, sizeof(m->vm_hypervisor), "%s",
                 hv ? ydoc_scalar(hv) : "");
    }
    for (unsigned i = 0; i < L->n_ent; i++) {
        struct ent *g = &L->ent[i];
        yaml_node_t *cn = g->kind == MKIND_READ_GPU
                              ? ydoc_get(d, g->n, "gpudirect-clique") : NULL;
        if (!cn) {
            continue;
        }
        int clique = TOPO_CLIQUE_NONE;
        if ((rc = parse_clique(L, g, cn, &clique)) < 0) {
            return rc;
        }
        if (!m->vm) {
            return ydoc_err_at(d, cn, L->err, SIM_EINVAL,
                               "GPU '%s': gpudirect-clique is what a "
                               "hypervisor exposes to a guest; add "
                               "'virtual-machine: { hypervisor: ... }' at the "
                               "top level, or remove it", g->id);
        }
        struct topo_vm_gpu *n = realloc(m->vm_gpu,
                                        (m->n_vm_gpus + 1) * sizeof(*n));
        if (!n) {
            return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        }
        m->vm_gpu = n;
        snprintf(n[m->n_vm_gpus].id, sizeof(n[0].id), "%s", g->id);
        n[m->n_vm_gpus++].clique = clique;
    }
    return 0;
}

int topo_gpudirect_clique(const struct topo_machine *m, const char *gpu)
{
    for (unsigned i = 0; m->vm && i < m->n_vm_gpus; i++) {
        if (strcmp(m->vm_gpu[i].id, gpu) == 0) {
            return m->vm_gpu[i].clique;
        }
    }
    return TOPO_CLIQUE_NONE;
}
