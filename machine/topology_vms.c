/*
 * machine/topology_vms.c - a machine file's vms: (the host's virtual
 * machines, each GPU given to at most one, each VM with its own IOMMU
 * domain), and the machine seen from one of them (topo_options.vm: only
 * its GPUs are built). topologies/SCHEMA.md, machine/topology.h.
 */
#include <config.h>

#include "machine/topology.h"
#include "machine/topology_int.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "machine/fabric.h"
#include "sim/error.h"
#include "sim/units.h"

static const char *const vms_keys[] = { "name", "gpus", "memory", "socket",
                                        NULL };

/* The guest memory windows of a socket start at GiB boundaries. */
#define VM_MEM_ALIGN (UINT64_C(1) << 30)

/* The socket entity that e (a GPU) hangs below. */
static int socket_above(struct loader *L, int e)
{
    while (e >= 0 && L->ent[e].kind != MKIND_READ_SOCKET) {
        e = L->ent[e].parent;
    }
    return e;
}

/* Index among the sockets (file order) of socket entity s. */
static unsigned socket_index(struct loader *L, int s)
{
    unsigned k = 0;
    for (int i = 0; i < s; i++) {
        k += L->ent[i].kind == MKIND_READ_SOCKET;
    }
    return k;
}

/* vm->gpus: a list of GPU ids, none given to an earlier VM. */
static int parse_gpus(struct loader *L, struct topo_machine *m,
                      yaml_node_t *e, struct topo_vm *vm)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *gn = ydoc_get(d, e, "gpus");
    int rc = ydoc_expect(d, gn, YAML_SEQUENCE_NODE, "a VM's gpus", L->err);
    if (rc < 0) {
        return rc;
    }
    for (yaml_node_item_t *it = gn->data.sequence.items.start;
         it < gn->data.sequence.items.top; it++) {
        yaml_node_t *g = ydoc_node(d, *it);
        const char *id = ydoc_scalar(g);
        int i = id ? tl_find_ent(L, id) : -1;
        if (i < 0 || L->ent[i].kind != MKIND_READ_GPU) {
            return ydoc_err_at(d, g, L->err, SIM_EINVAL,
                               "VM '%s': '%s' is not a GPU of this machine",
                               vm->name, id ? id : ydoc_kind_name(g));
        }
        int other = topo_vm_of(m, id);
        bool twice = false;
        for (unsigned j = 0; j < vm->n_gpus; j++) {
            twice |= strcmp(vm->gpu[j], id) == 0;
        }
        if (other >= 0 || twice) {
            return ydoc_err_at(d, g, L->err, SIM_EINVAL,
                               "VM '%s': GPU '%s' is already given to VM "
                               "'%s' (VFIO passes a device to one VM)",
                               vm->name, id,
                               other >= 0 ? m->vms[other].name : vm->name);
        }
        if (vm->n_gpus == TOPO_VM_MAX_GPUS) {
            return ydoc_err_at(d, g, L->err, SIM_ERANGE,
                               "VM '%s': more than %d GPUs", vm->name,
                               TOPO_VM_MAX_GPUS);
        }
        snprintf(vm->gpu[vm->n_gpus++], sizeof(vm->gpu[0]), "%s", id);
    }
    if (vm->n_gpus == 0) {
        return ydoc_err_at(d, gn, L->err, SIM_EINVAL,
                           "VM '%s': gpus is empty (give it one GPU or more)",
                           vm->name);
    }
    return 0;
}

/* One entry of vms: into vm (m->vms holds the entries before it). */
static int parse_vm(struct loader *L, struct topo_machine *m, yaml_node_t *e,
                    struct topo_vm *vm)
{
    struct ydoc *d = &L->doc;
    int rc;
    if ((rc = ydoc_expect(d, e, YAML_MAPPING_NODE, "a VM", L->err)) < 0 ||
        (rc = ydoc_check_keys(d, e, vms_keys, "a VM", L->err)) < 0) {
        return rc;
    }
    yaml_node_t *nn = ydoc_get(d, e, "name");
    const char *name = nn ? ydoc_scalar(nn) : NULL;
    if (!name || !*name || strlen(name) >= sizeof(vm->name)) {
        return ydoc_err_at(d, nn ? nn : e, L->err, SIM_EINVAL,
                           "a VM needs a name (a value of at most %zu "
                           "characters)", sizeof(vm->name) - 1);
    }
    for (unsigned i = 0; i < m->n_vms; i++) {
        if (strcmp(m->vms[i].name, name) == 0) {
            return ydoc_err_at(d, nn, L->err, SIM_EINVAL,
                               "a second VM named '%s'", name);
        }
    }
    snprintf(vm->name, sizeof(vm->name), "%s", name);
    if (!ydoc_get(d, e, "gpus") || !ydoc_get(d, e, "memory")) {
        return ydoc_err_at(d, e, L->err, SIM_ENOENT,
                           "VM '%s' needs gpus: [...] and memory: (the "
                           "guest's RAM, e.g. 64GiB)", name);
    }
    if ((rc = parse_gpus(L, m, e, vm)) < 0) {
        return rc;
    }
    yaml_node_t *mn = ydoc_get(d, e, "memory");
    char why[200];
    if (!ydoc_scalar(mn) ||
        sim_parse_size(ydoc_scalar(mn), &vm->mem_bytes, why,
                       sizeof(why)) < 0 ||
        vm->mem_bytes == 0 || vm->mem_bytes % VM_MEM_ALIGN) {
        return ydoc_err_at(d, mn, L->err, SIM_EINVAL,
                           "VM '%s': memory must be a whole number of GiB "
                           "(e.g. 64GiB), not '%s'", name,
                           ydoc_scalar(mn) ? ydoc_scalar(mn) : "?");
    }
    yaml_node_t *sn = ydoc_get(d, e, "socket");
    int s = socket_above(L, tl_find_ent(L, vm->gpu[0]));
    if (sn) {
        s = ydoc_scalar(sn) ? tl_find_ent(L, ydoc_scalar(sn)) : -1;
        if (s < 0 || L->ent[s].kind != MKIND_READ_SOCKET) {
            return ydoc_err_at(d, sn, L->err, SIM_EINVAL,
                               "VM '%s': socket '%s' is not a socket of "
                               "this machine", name,
                               ydoc_scalar(sn) ? ydoc_scalar(sn) : "?");
        }
    }
    vm->socket = socket_index(L, s);
    /* the socket's earlier VMs' windows come first */
    for (unsigned i = 0; i < m->n_vms; i++) {
        if (m->vms[i].socket == vm->socket) {
            vm->mem_offset = m->vms[i].mem_offset + m->vms[i].mem_bytes;
        }
    }
    return 0;
}

/* Mark the GPUs the view of VM m->guest does not see. */
static int hide_others(struct loader *L, struct topo_machine *m)
{
    const char *want = L->opt ? L->opt->vm : NULL;
    if (!want || !*want) {
        return 0;
    }
    for (unsigned i = 0; i < m->n_vms; i++) {
        if (strcmp(m->vms[i].name, want) == 0) {
            m->guest = (int)i;
        }
    }
    if (m->guest < 0) {
        char names[400] = "";
        for (unsigned i = 0; i < m->n_vms; i++) {
            size_t k = strlen(names);
            snprintf(names + k, sizeof(names) - k, "%s'%s'", i ? ", " : "",
                     m->vms[i].name);
        }
        return sim_error_set(L->err, SIM_ENOENT,
                             m->n_vms ? "this machine has no VM named '%s' "
                                        "(its vms: %s)"
                                      : "this machine has no VM named '%s' "
                                        "(it has no vms:)%s",
                             want, names);
    }
    for (unsigned i = 0; i < L->n_ent; i++) {
        struct ent *g = &L->ent[i];
        g->hidden = g->kind == MKIND_READ_GPU &&
                    topo_vm_of(m, g->id) != m->guest;
    }
    return 0;
}

int tl_parse_vms(struct loader *L, struct topo_machine *m)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *seq = ydoc_get(d, L->root, "vms");
    m->guest = -1;
    if (!seq) {
        return hide_others(L, m);
    }
    int rc = ydoc_expect(d, seq, YAML_SEQUENCE_NODE, "'vms'", L->err);
    if (rc < 0) {
        return rc;
    }
    yaml_node_t *nvl = ydoc_get(d, L->root, "nvlinks");
    if (nvl && nvl->type == YAML_SEQUENCE_NODE &&
        nvl->data.sequence.items.top > nvl->data.sequence.items.start) {
        return ydoc_err_at(d, seq, L->err, SIM_EINVAL,
                           "vms: on a machine with NVLinks is not modelled "
                           "(how the host partitions NVLinks between VMs); "
                           "remove vms: or nvlinks:");
    }
    size_t n = (size_t)(seq->data.sequence.items.top -
                        seq->data.sequence.items.start);
    if (n > TOPO_MAX_VMS) {
        return ydoc_err_at(d, seq, L->err, SIM_ERANGE,
                           "more than %d VMs", TOPO_MAX_VMS);
    }
    m->vms = calloc(n ? n : 1, sizeof(*m->vms));
    if (!m->vms) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    for (yaml_node_item_t *it = seq->data.sequence.items.start;
         it < seq->data.sequence.items.top; it++) {
        struct topo_vm vm = { 0 };
        if ((rc = parse_vm(L, m, ydoc_node(d, *it), &vm)) < 0) {
            return rc;
        }
        m->vms[m->n_vms++] = vm;
    }
    return hide_others(L, m);
}

/* Register the VMs whose GPUs are built with the builder (before its
 * finalize), and nothing in the host's view of a machine without vms:. */
static int add_vm(struct loader *L, struct topo_machine *m, unsigned k)
{
    struct topo_vm *vm = &m->vms[k];
    struct sim_component *gpu[TOPO_VM_MAX_GPUS];
    for (unsigned i = 0; i < vm->n_gpus; i++) {
        gpu[i] = fab_find(m->fab, vm->gpu[i]);
    }
    return fab_add_vm(m->fab, vm->name, m->socket[vm->socket].rc,
                      vm->mem_offset, vm->mem_bytes, gpu, vm->n_gpus,
                      L->err);
}

int tl_build_vms(struct loader *L, struct topo_machine *m)
{
    int rc = 0;
    for (unsigned k = 0; k < m->n_vms && rc == 0; k++) {
        if (m->guest < 0 || (unsigned)m->guest == k) {
            rc = add_vm(L, m, k);
        }
    }
    return rc;
}

void tl_vms_placed(struct topo_machine *m)
{
    for (unsigned k = 0; k < m->n_vms; k++) {
        m->vms[k].mem_base = fab_vm_base(m->fab, m->vms[k].name);
    }
}

int topo_vm_of(const struct topo_machine *m, const char *gpu)
{
    for (unsigned k = 0; k < m->n_vms; k++) {
        for (unsigned i = 0; i < m->vms[k].n_gpus; i++) {
            if (strcmp(m->vms[k].gpu[i], gpu) == 0) {
                return (int)k;
            }
        }
    }
    return -1;
}
