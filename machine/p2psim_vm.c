/*
 * machine/p2psim_vm.c - libp2psim's virtual machines (the machine file's
 * vms:): which VM a GPU is given to, the view of one VM (its memory holds
 * every host buffer), and the IOMMU faults that isolation produces.
 */
#include <config.h>

#include "machine/p2psim.h"
#include "machine/p2psim_int.h"

#include <stddef.h>

#include "machine/fabric.h"
#include "machine/topology.h"
#include "models/gpu/gpu.h"
#include "models/iommu/iommu.h"
#include "models/pcie/rc.h"
#include "sim/component.h"

/* The VM the machine is seen from, or NULL: the host's view. */
static const struct topo_vm *guest(const struct p2psim *p)
{
    const struct topo_machine *m = p->m;
    return m->guest >= 0 && (unsigned)m->guest < m->n_vms
               ? &m->vms[m->guest] : NULL;
}

unsigned p2psim__guest_socket(const struct p2psim *p, unsigned k)
{
    const struct topo_vm *vm = guest(p);
    return vm ? vm->socket : k;
}

void p2psim__guest_memory(const struct p2psim *p, unsigned k, uint64_t *base,
                          uint64_t *size)
{
    const struct topo_vm *vm = guest(p);
    if (!vm) {
        return;
    }
    if (vm->socket == k) {
        *base = vm->mem_base;
        *size = vm->mem_bytes;
    } else {
        *size = 0;              /* the guest has no memory there */
    }
}

unsigned p2psim_vm_count(const struct p2psim *p)
{
    return p->m->n_vms;
}

const char *p2psim_vm_name(const struct p2psim *p, unsigned k)
{
    return k < p->m->n_vms ? p->m->vms[k].name : NULL;
}

int p2psim_gpu_vm(const struct p2psim *p, unsigned i)
{
    struct sim_component *g = fab_gpu(p->m->fab, i);
    return g ? topo_vm_of(p->m, g->name) : -1;
}

int p2psim_guest_vm(const struct p2psim *p)
{
    return guest(p) ? p->m->guest : -1;
}

unsigned p2psim_iommu_faults(const struct p2psim *p,
                             struct p2psim_iommu_fault *out, unsigned max)
{
    unsigned n = 0;
    for (unsigned k = 0; k < p->m->n_sockets; k++) {
        struct iommu *mmu = rc_iommu(
            (struct sim_component *)p->m->socket[k].rc);
        unsigned nf = 0;
        const struct iommu_fault *f = mmu ? iommu_faults(mmu, &nf) : NULL;
        for (unsigned j = 0; j < nf; j++, n++) {
            if (n >= max) {
                continue;
            }
            struct p2psim_iommu_fault *o = &out[n];
            o->socket = k;
            o->gpu = -1;
            for (unsigned i = 0; i < fab_n_gpus(p->m->fab); i++) {
                if (gpu_pcie_id(fab_gpu(p->m->fab, i)) ==
                    f[j].requester_id) {
                    o->gpu = (int)i;
                }
            }
            o->addr = f[j].addr;
            o->len = f[j].len_bytes;
            o->write = f[j].write;
            o->when = f[j].when;
        }
    }
    return n;
}
