/*
 * machine/path.c - paths between GPUs, their nvidia-smi class, and the P2P
 * verdict with its rules.
 *
 * The PCIe part walks the tree the builder made: from each GPU up through
 * switches to its root complex, then finds the lowest common element:
 *
 *   common switch        -> PIX (one switch) or PXB (several); ACS on the
 *                           ingress downstream port may redirect the TLPs
 *                           up to the root complex and back (a hairpin)
 *   common root complex  -> PHB, or NODE when each root port is its own
 *                           host bridge (AMD EPYC), or SYS when root ports
 *                           sit in different NUMA nodes (NPS4)
 *   different sockets    -> SYS, across the socket link
 *
 * NVLink pairs (direct, or through NVSwitches: the sum over shared switches
 * of the smaller link count) are NV#. The verdict lists every rule that
 * applies, in the order the CUDA driver would trip over them.
 */
#include <config.h>

#include "machine/path.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/kinds.h"
#include "models/gpu/gpu.h"
#include "models/iommu/iommu.h"
#include "models/pcie/pcie_regs.h"
#include "models/pcie/rc.h"
#include "models/pcie/switch.h"
#include "machine/topology.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/sim.h"

static const char *const class_names[] = { "X", "NV", "PIX", "PXB", "PHB",
                                           "NODE", "SYS" };

const char *path_class_name(enum path_class c)
{
    return (unsigned)c <= PATH_SYS ? class_names[c] : "?";
}

int path_chain_up(const struct sim_component *gpu, struct path_up *chain,
                  unsigned max)
{
    unsigned n = 0;
    const struct sim_port *p = sim_port_find(gpu, "pcie");
    while (p && n < max) {
        const struct sim_port *peer = sim_port_peer(p);
        if (!peer) {
            break;
        }
        chain[n].comp = peer->owner;
        chain[n].port = peer;
        n++;
        if (mkind_is(peer->owner, MKIND_PCIE_SWITCH)) {
            p = sim_port_find(peer->owner, "up");
        } else {
            break; /* a root complex: the top */
        }
    }
    return (int)n;
}

static unsigned dp_index(const struct sim_port *p)
{
    return p->index - 1; /* a switch's port 0 is "up" */
}

static const struct topo_socket *socket_of(const struct topo_machine *m,
                                           const struct sim_component *rc)
{
    for (unsigned i = 0; i < m->n_sockets; i++) {
        if (m->socket[i].rc == rc) {
            return &m->socket[i];
        }
    }
    return NULL;
}

static unsigned nvlinks_between(const struct topo_machine *m,
                                const struct sim_component *a,
                                const struct sim_component *b)
{
    unsigned n = 0;
    for (unsigned i = 0; i < m->n_nvlinks; i++) {
        const struct topo_nvlink *l = &m->nvlink[i];
        if ((l->comp_a == a && l->comp_b == b) ||
            (l->comp_a == b && l->comp_b == a)) {
            n += l->links;
        }
    }
    return n;
}

/* A GPU's bonded links into one NVSwitch (nv_links). */
struct nv_tally {
    const struct sim_component *sw;
    unsigned links;
};

/* Add links into switch sw to the tally t[*n] (one entry per switch). */
static void tally_add(struct nv_tally *t, unsigned *n,
                      const struct sim_component *sw, unsigned links)
{
    for (unsigned i = 0; i < *n; i++) {
        if (t[i].sw == sw) {
            t[i].links += links;
            return;
        }
    }
    t[(*n)++] = (struct nv_tally){ sw, links };
}

/*
 * NVLinks between a and b: direct, plus through each NVSwitch both reach
 * (the fewer of a's and b's links into it). One pass over the NVLinks,
 * comparing components, not names: a machine's path queries ask this for
 * every pair (bench/nvl72: 5112 copies over 1296 NVLinks).
 */
#define NV_TALLY_STACK 128u     /* NVLink entries counted without malloc */

static int nv_links(const struct topo_machine *m,
                    const struct sim_component *a,
                    const struct sim_component *b, unsigned *out)
{
    unsigned n = 0, na = 0, nb = 0;
    struct nv_tally stack[2 * NV_TALLY_STACK + 1];
    struct nv_tally *ta = stack;
    if (m->n_nvlinks > NV_TALLY_STACK) {
        ta = calloc(2 * (size_t)m->n_nvlinks + 1, sizeof(*ta));
        if (!ta) {
            return sim_nomem(m->sim, "the path model",
                             "a tally of NVLinks");
        }
    }
    struct nv_tally *tb = ta + m->n_nvlinks;
    for (unsigned i = 0; i < m->n_nvlinks; i++) {
        const struct topo_nvlink *l = &m->nvlink[i];
        for (int end = 0; end < 2; end++) {
            const struct sim_component *self = end ? l->comp_b : l->comp_a;
            const struct sim_component *far = end ? l->comp_a : l->comp_b;
            bool far_sw = end ? l->a_nvswitch : l->b_nvswitch;
            if (self == a) {
                if (far == b) {
                    n += l->links;              /* direct */
                } else if (far_sw) {
                    tally_add(ta, &na, far, l->links);
                }
            } else if (self == b && far_sw && far != a) {
                tally_add(tb, &nb, far, l->links);
            }
        }
    }
    for (unsigned i = 0; i < na; i++) {
        for (unsigned j = 0; j < nb; j++) {
            if (ta[i].sw == tb[j].sw) {
                n += ta[i].links < tb[j].links ? ta[i].links : tb[j].links;
            }
        }
    }
    if (ta != stack) {
        free(ta);
    }
    *out = n;
    return 0;
}

static void add_hop(struct path *p, const struct sim_component *c,
                    const char *in, const char *out, bool redirected)
{
    if (p->n_hops < PATH_MAX_HOPS) {
        p->hop[p->n_hops++] = (struct path_hop){ c, in, out, redirected };
    }
}

int path_compute(const struct topo_machine *m, const struct sim_component *a,
                 const struct sim_component *b, struct path *out)
{
    memset(out, 0, sizeof(*out));
    if (a == b) {
        out->cls = PATH_X;
        return 0;
    }
    struct path_up ca[PATH_MAX_HOPS], cb[PATH_MAX_HOPS];
    int na = path_chain_up(a, ca, PATH_MAX_HOPS);
    int nb = path_chain_up(b, cb, PATH_MAX_HOPS);
    if (na == 0 || nb == 0) {
        return -SIM_ENOTCONN;
    }
    out->pcie_connected = true;
    out->rc_a = ca[na - 1].comp;
    out->rc_b = cb[nb - 1].comp;
    /* the lowest common element */
    int ia = -1, ib = -1;
    for (int i = 0; i < na && ia < 0; i++) {
        for (int j = 0; j < nb; j++) {
            if (ca[i].comp == cb[j].comp) {
                ia = i;
                ib = j;
                break;
            }
        }
    }
    add_hop(out, a, NULL, "pcie", false);
    int top = ia >= 0 ? ia : na - 1;
    for (int i = 0; i < top; i++) {
        add_hop(out, ca[i].comp, ca[i].port->name, "up", false);
    }
    if (ia >= 0 && mkind_is(ca[ia].comp, MKIND_PCIE_SWITCH)) {
        /* below one switch */
        unsigned dp = dp_index(ca[ia].port);
        bool redirect = (psw_acs(ca[ia].comp, dp) & PCI_ACS_RR) != 0;
        out->cls = (ia + ib == 0) ? PATH_PIX : PATH_PXB;
        if (redirect) {
            out->acs_redirect = true;
            out->redirect_at = ca[ia].comp;
            out->redirect_port = dp;
            add_hop(out, ca[ia].comp, ca[ia].port->name, "up", true);
            for (int i = ia + 1; i < na; i++) {
                add_hop(out, ca[i].comp, ca[i].port->name,
                        mkind_is(ca[i].comp, MKIND_PCIE_SWITCH)
                            ? "up" : ca[i].port->name,
                        false);
            }
            for (int i = na - 2; i >= ia; i--) {
                add_hop(out, ca[i].comp, "up",
                        i == ia ? cb[ib].port->name : ca[i].port->name, false);
            }
        } else {
            add_hop(out, ca[ia].comp, ca[ia].port->name, cb[ib].port->name,
                    false);
        }
    } else if (ia >= 0) {
        /* one root complex */
        const struct topo_socket *s = socket_of(m, ca[ia].comp);
        unsigned pa = ca[ia].port->index, pb = cb[ib].port->index;
        out->cls = PATH_PHB;
        if (s && pa < s->n_ports && pb < s->n_ports) {
            /* a host bridge lies in one NUMA node: other nodes' ports are
             * under other bridges even where host-bridges says one */
            if (s->node[pa] != s->node[pb]) {
                out->cls = PATH_SYS;
            } else if (s->bridge[pa] != s->bridge[pb]) {
                out->cls = PATH_NODE;
            }
        }
        add_hop(out, ca[ia].comp, ca[ia].port->name, cb[ib].port->name, false);
    } else {
        out->cls = PATH_SYS;
        out->cross_socket = true;
        add_hop(out, ca[na - 1].comp, ca[na - 1].port->name, "xs", false);
        add_hop(out, cb[nb - 1].comp, "xs", cb[nb - 1].port->name, false);
        ib = nb - 1;
    }
    for (int j = ib - 1; j >= 0; j--) {
        add_hop(out, cb[j].comp, "up", cb[j].port->name, false);
    }
    add_hop(out, b, "pcie", NULL, false);
    unsigned nv = 0;
    int rc = nv_links(m, a, b, &nv);
    if (rc < 0) {
        return rc;
    }
    out->pcie_cls = out->cls;
    if (nv) {
        out->cls = PATH_NV;
        out->nv_links = nv;
    }
    return 0;
}

/* ---- the verdict ---------------------------------------------------------------- */

__attribute__((format(printf, 5, 6)))
static struct path_rule *rule(struct p2p_verdict *v, enum path_rule_id id,
                              bool blocks, bool slows, const char *fmt, ...)
{
    if (v->n_rules == PATH_MAX_RULES) {
        return &v->rule[PATH_MAX_RULES - 1];
    }
    struct path_rule *r = &v->rule[v->n_rules++];
    memset(r, 0, sizeof(*r));
    r->id = id;
    r->blocks = blocks;
    r->slows = slows;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->says, sizeof(r->says), fmt, ap);
    va_end(ap);
    if (blocks) {
        v->allowed = false;
    }
    return r;
}

static const char *const policy_names[] = { "forwards P2P",
                                            "forwards only P2P writes",
                                            "refuses P2P" };

static void product_rule(struct p2p_verdict *v, const struct sim_component *g)
{
    const struct gpu_info *in = gpu_get_info(g);
    if (!in->p2p_blocked) {
        return;
    }
    if (in->p2p_unlocked) {
        rule(v, RULE_PRODUCT, false, false,
             "%s is a %s, whose P2P is blocked by the product, but the "
             "machine file says the block was lifted (p2p-unlocked)",
             g->name, in->name);
        return;
    }
    struct path_rule *r = rule(v, RULE_PRODUCT, true, false,
                               "%s is a %s: the product blocks P2P over "
                               "PCIe (GeForce)", g->name, in->name);
    snprintf(r->fix, sizeof(r->fix),
             "use a datacenter or workstation GPU, or a driver that lifts "
             "the block (p2p-unlocked: true on %s)", g->name);
}

static void product_rules(struct p2p_verdict *v, const struct sim_component *a,
                          const struct sim_component *b)
{
    product_rule(v, a);
    product_rule(v, b);
}

/*
 * A virtual machine's guest driver sees the GPUs on a virtual PCIe
 * topology that says nothing of the host's, so it allows P2P only between
 * GPUs that the hypervisor puts in one GPUDirect P2P clique (QEMU vfio-pci
 * x-nv-gpudirect-clique=N, a vendor capability in each GPU's virtual
 * config space; cloud-hypervisor/cloud-hypervisor#6235).
 *
 * Model: the clique only gates P2P; allowed P2P takes the host's physical
 * path as the machine file describes it (the rules after this one). It
 * gates PCIe P2P only: NVLink peers are found by the driver over NVLink
 * itself, not from the PCIe topology, so path_p2p_verdict does not ask.
 */
static void vm_clique_rule(const struct topo_machine *m,
                           struct p2p_verdict *v,
                           const struct sim_component *a,
                           const struct sim_component *b)
{
    if (!m->vm) {
        return;
    }
    int ca = topo_gpudirect_clique(m, a->name);
    int cb = topo_gpudirect_clique(m, b->name);
    const char *hv = m->vm_hypervisor[0] ? m->vm_hypervisor : "hypervisor";
    if (ca != TOPO_CLIQUE_NONE && ca == cb) {
        rule(v, RULE_VM_CLIQUE, false, false,
             "in this virtual machine (%s) %s and %s share GPUDirect P2P "
             "clique %d: the guest's driver allows P2P between them, and "
             "it takes the host's physical path", hv, a->name, b->name, ca);
        return;
    }
    char sa[32], sb[32];
    snprintf(sa, sizeof(sa), ca == TOPO_CLIQUE_NONE ? "no clique"
                                                    : "clique %d", ca);
    snprintf(sb, sizeof(sb), cb == TOPO_CLIQUE_NONE ? "no clique"
                                                    : "clique %d", cb);
    struct path_rule *r = rule(v, RULE_VM_CLIQUE, true, false,
                               "in this virtual machine (%s) the guest sees "
                               "a virtual PCIe topology and allows P2P only "
                               "within one GPUDirect P2P clique: %s has %s, "
                               "%s has %s; copies are staged through host "
                               "memory", hv, a->name, sa, b->name, sb);
    int n = ca != TOPO_CLIQUE_NONE ? ca : cb != TOPO_CLIQUE_NONE ? cb : 0;
    snprintf(r->fix, sizeof(r->fix),
             "give both GPUs the same clique in the hypervisor (QEMU: "
             "x-nv-gpudirect-clique=%d on each GPU's vfio-pci device), i.e. "
             "gpudirect-clique: %d on %s and %s", n, n, a->name, b->name);
}

/* The machine's NVLinks sleep when idle (nvlink-power): the first copy
 * after a pause is slower. */
static void nvlink_power_rule(const struct topo_machine *m,
                              struct p2p_verdict *v)
{
    if (m->nvl_sleep_after_ps == 0) {
        return;
    }
    char settle[96] = "";
    if (m->nvl_settle_ps) {
        snprintf(settle, sizeof(settle), ", then %.0f us at a low rate "
                 "(a large copy loses about %.0f us)",
                 sim_time_to_us(m->nvl_settle_ps),
                 sim_time_to_us(m->nvl_wake_ps + m->nvl_settle_ps));
    }
    struct path_rule *r = rule(v, RULE_NVLINK_POWER, false, true,
                               "the NVLinks sleep after %.0f ms without "
                               "traffic, and the first copy after that "
                               "waits %.0f us for them to wake%s (so does "
                               "a program's first P2P copy)",
                               sim_time_to_us(m->nvl_sleep_after_ps) / 1e3,
                               sim_time_to_us(m->nvl_wake_ps), settle);
    snprintf(r->fix, sizeof(r->fix),
             "when timing, send a small copy first (a warm-up) and keep "
             "the pauses between copies under %.0f ms",
             sim_time_to_us(m->nvl_sleep_after_ps) / 1e3);
}

/*
 * How VMs hold a pair (vms:): its VM's name when both GPUs are given to
 * one, "" when neither is in a VM, NULL when they are in different VMs
 * (or one is the host's): vm_isolation_rule has said why that blocks.
 */
static const char *pair_vm(const struct topo_machine *m,
                           const struct sim_component *a,
                           const struct sim_component *b)
{
    int va = topo_vm_of(m, a->name), vb = topo_vm_of(m, b->name);
    return va != vb ? NULL : va < 0 ? "" : m->vms[va].name;
}

/*
 * GPUs given to different VMs are never peers: each VM's IOMMU domain
 * maps its memory and its own GPUs' BARs only (machine/fabric.c,
 * fab_add_vm), so neither guest's driver can reach the other's GPU, and a
 * DMA that tries faults at the IOMMU (whose root complex it reaches: a
 * switch without ACS redirect would turn it around below the IOMMU, which
 * is why VFIO hosts set ACS on the switches' downstream ports).
 */
static void vm_isolation_rule(const struct topo_machine *m,
                              struct p2p_verdict *v,
                              const struct sim_component *a,
                              const struct sim_component *b)
{
    if (pair_vm(m, a, b)) {
        return;
    }
    int va = topo_vm_of(m, a->name), vb = topo_vm_of(m, b->name);
    char wa[80], wb[80];
    snprintf(wa, sizeof(wa), va < 0 ? "the host" : "VM '%s'",
             va < 0 ? "" : m->vms[va].name);
    snprintf(wb, sizeof(wb), vb < 0 ? "the host" : "VM '%s'",
             vb < 0 ? "" : m->vms[vb].name);
    struct path_rule *r = rule(v, RULE_VM_ISOLATION, true, false,
                               "%s is given to %s and %s to %s: each VM has "
                               "an IOMMU domain of its own, which maps only "
                               "its memory and its own GPUs' BARs, so P2P "
                               "between them is always blocked (a DMA that "
                               "tries faults at the IOMMU, nothing written)",
                               a->name, wa, b->name, wb);
    snprintf(r->fix, sizeof(r->fix),
             "give both GPUs to one VM (list them in one entry of vms:)");
}

static void iommu_rule(struct p2p_verdict *v, const struct sim_component *rc,
                       const char *vm)
{
    struct iommu *mmu = rc_iommu((struct sim_component *)rc);
    if (!mmu || iommu_mode(mmu) != IOMMU_TRANSLATING || !vm) {
        return;
    }
    if (*vm) {
        rule(v, RULE_IOMMU, false, false,
             "the IOMMU of %s translates, and the domain of VM '%s' maps its "
             "own GPUs' BARs (VFIO maps a guest's device memory for it): "
             "P2P requests through it are allowed", rc->name, vm);
        return;
    }
    struct path_rule *r = rule(v, RULE_IOMMU, true, false,
                               "the IOMMU of %s translates: P2P requests "
                               "through it fault unless the peer's BAR1 is "
                               "mapped in the requester's domain, and the "
                               "driver maps only host memory", rc->name);
    snprintf(r->fix, sizeof(r->fix),
             "set iommu: passthrough (or off) on %s (Linux: iommu=pt on "
             "the kernel command line)", rc->name);
}

static void pcie_rules(struct p2p_verdict *v, const struct path *p,
                       const char *vm)
{
    const struct sim_component *through = NULL; /* RC the traffic crosses */
    if (p->acs_redirect) {
        struct path_rule *r = rule(v, RULE_ACS, false, true,
                                   "ACS P2P Request Redirect is set on %s port "
                                   "dp%u: requests go up to the root complex "
                                   "and back down, crossing the switch's "
                                   "uplink twice",
                                   p->redirect_at->name, p->redirect_port);
        snprintf(r->fix, sizeof(r->fix),
                 "clear ACS P2P Request Redirect on %s port dp%u",
                 p->redirect_at->name, p->redirect_port);
        through = p->rc_a;
    }
    if (p->cross_socket) {
        enum rc_p2p_policy pol = rc_xsocket_policy(p->rc_b);
        char rate[64] = "";
        if (pol != RC_P2P_REFUSE && rc_xsocket_rate(p->rc_b)) {
            snprintf(rate, sizeof(rate), ", at most %.1f GB/s "
                     "(xsocket-p2p-bandwidth)",
                     (double)rc_xsocket_rate(p->rc_b) / 1e9);
        }
        struct path_rule *r = rule(v, RULE_SOCKET, pol == RC_P2P_REFUSE,
                                   pol != RC_P2P_REFUSE,
                                   "the devices are on different sockets (%s, "
                                   "%s): the socket link carries the "
                                   "traffic, and %s %s from the other "
                                   "socket%s", p->rc_a->name, p->rc_b->name,
                                   p->rc_b->name, policy_names[pol], rate);
        if (pol == RC_P2P_REFUSE) {
            snprintf(r->fix, sizeof(r->fix),
                     "put both devices on one socket (this CPU does not forward "
                     "P2P across its socket link)");
        }
        if (pol == RC_P2P_WRITES_ONLY) {
            v->reads_allowed = false;
        }
        iommu_rule(v, p->rc_a, vm);
        if (p->rc_b != p->rc_a) {
            iommu_rule(v, p->rc_b, vm);
        }
        return;
    }
    if (p->cls == PATH_PHB || p->cls == PATH_NODE || p->cls == PATH_SYS ||
        p->acs_redirect) {
        through = p->rc_a;
        enum rc_p2p_policy pol = rc_p2p_policy(p->rc_a);
        struct path_rule *r = rule(v, RULE_ROOT_COMPLEX, pol == RC_P2P_REFUSE,
                                   pol != RC_P2P_FORWARD,
                                   "P2P goes through the root complex %s, "
                                   "which %s between its root ports",
                                   p->rc_a->name, policy_names[pol]);
        if (pol == RC_P2P_REFUSE) {
            snprintf(r->fix, sizeof(r->fix),
                     "put both devices below one PCIe switch, or use a CPU whose "
                     "root complex forwards P2P (p2p: forward)");
        } else if (pol == RC_P2P_WRITES_ONLY) {
            v->reads_allowed = false;
            snprintf(r->fix, sizeof(r->fix),
                     "use writes (the default copy direction); reads between "
                     "root ports are not forwarded");
        }
    }
    if (through) {
        iommu_rule(v, through, vm);
    }
}

static void bar1_rule(struct p2p_verdict *v, const struct sim_component *b)
{
    uint64_t bar1 = gpu_bar1_size(b), mem = gpu_mem_size(b);
    if (bar1 >= mem) {
        return;
    }
    struct path_rule *r = rule(v, RULE_BAR1, false, true,
                               "%s's BAR1 is %llu MiB, less than its %llu MiB "
                               "of memory: peer mappings beyond it fail and "
                               "those copies are staged through host memory",
                               b->name, (unsigned long long)(bar1 >> 20),
                               (unsigned long long)(mem >> 20));
    snprintf(r->fix, sizeof(r->fix),
             "enable Resizable BAR (a larger bar1 on %s)", b->name);
}

bool path_atomics_to_host(const struct sim_component *gpu)
{
    struct path_up up[PATH_MAX_HOPS];
    int n = path_chain_up(gpu, up, PATH_MAX_HOPS);
    for (int i = 0; i < n; i++) {
        if (mkind_is(up[i].comp, MKIND_PCIE_SWITCH) &&
            !psw_atomic_routing(up[i].comp)) {
            return false;
        }
    }
    return n > 0;
}

/*
 * PCIe AtomicOps between a and b (PCIe r6.0 §6.15): both GPUs issue and
 * complete them (the catalog's atomics: pcie), and every element that
 * passes them on routes them: each switch of the path (atomic-routing)
 * and each root complex that sends them down one of its root ports
 * (p2p-atomics; between root ports, after an ACS redirect, or from a
 * socket link). The first element that does not is *stop (NULL if the
 * GPUs are the reason).
 */
static bool pcie_atomics(const struct path *p, const struct sim_component *a,
                         const struct sim_component *b,
                         const struct sim_component **stop)
{
    *stop = NULL;
    if (!gpu_get_info(a)->atomics_pcie || !gpu_get_info(b)->atomics_pcie) {
        return false;
    }
    for (unsigned i = 1; i + 1 < p->n_hops; i++) {
        const struct path_hop *h = &p->hop[i];
        bool ok = true;
        if (mkind_is(h->comp, MKIND_PCIE_SWITCH)) {
            ok = psw_atomic_routing(h->comp);
        } else if (mkind_is(h->comp, MKIND_ROOT_COMPLEX) &&
                   strcmp(h->out, "xs") != 0) {
            ok = rc_p2p_atomics(h->comp);
        }
        if (!ok) {
            *stop = h->comp;
            return false;
        }
    }
    return true;
}

static void atomics_rule(struct p2p_verdict *v, const struct sim_component *a,
                         const struct sim_component *b)
{
    const struct sim_component *stop;
    v->atomics = pcie_atomics(&v->path, a, b, &stop);
    if (v->atomics || !v->allowed) {
        return;
    }
    const char *why = !stop ? "one of the GPUs does no PCIe AtomicOps"
                      : mkind_is(stop, MKIND_PCIE_SWITCH)
                          ? "does not route AtomicOps"
                          : "does not pass AtomicOps on to its root ports";
    struct path_rule *r = rule(v, RULE_ATOMICS, false, true,
                               "peer atomics are not native: %s%s%s, so "
                               "cudaDevP2PAttrNativeAtomicSupported is 0 and "
                               "the SM does an atomic on the peer as a read "
                               "and a write, not atomic against the peer's "
                               "or a third agent's accesses",
                               stop ? stop->name : "", stop ? " " : "", why);
    if (stop) {
        snprintf(r->fix, sizeof(r->fix), "%s",
                 mkind_is(stop, MKIND_PCIE_SWITCH)
                     ? "a switch that routes AtomicOps (atomic-routing: true)"
                     : "a root complex that routes AtomicOps between root "
                       "ports (p2p-atomics: true), or both GPUs below one "
                       "switch");
    }
}

int path_p2p_verdict(const struct topo_machine *m,
                     const struct sim_component *a,
                     const struct sim_component *b, struct p2p_verdict *v)
{
    memset(v, 0, sizeof(*v));
    v->allowed = true;
    v->reads_allowed = true;
    if (a == b) {
        rule(v, RULE_SAME_DEVICE, true, false,
             "a device is not its own peer");
        return 0;
    }
    int rc = path_compute(m, a, b, &v->path);
    if (rc == -SIM_ENOMEM) {
        return rc;
    }
    if (rc < 0) {
        rule(v, RULE_PATH, true, false, "%s and %s are not both connected",
             a->name, b->name);
        return 0;
    }
    vm_isolation_rule(m, v, a, b);
    if (!v->path.nv_links) {
        product_rules(v, a, b);     /* the GeForce block is a PCIe one */
        vm_clique_rule(m, v, a, b); /* so is the guest's clique check */
    }
    if (v->path.nv_links) {
        if (m->n_nvswitches && m->fabric_manager != 1 &&
            nvlinks_between(m, a, b) == 0) {
            struct path_rule *r = rule(v, RULE_FABRIC_MANAGER, true, false,
                                       "%s and %s reach each other through "
                                       "NVSwitches, which carry no traffic "
                                       "until the fabric manager has set "
                                       "them up (fabric-manager: %s): P2P "
                                       "is unavailable and copies are "
                                       "staged through host memory",
                                       a->name, b->name,
                                       m->fabric_manager == 0 ? "stopped"
                                                              : "not given");
            snprintf(r->fix, sizeof(r->fix),
                     "start the fabric manager (fabric-manager: running)");
            return 0;
        }
        bool direct = nvlinks_between(m, a, b) != 0;
        rule(v, RULE_NVLINK, false, false,
             "NVLink connects %s and %s (NV%u%s): P2P uses it, as CUDA does "
             "when both PCIe and NVLink join a pair; peer memory is reached "
             "through the NVLink window, without BAR1",
             a->name, b->name, v->path.nv_links,
             direct ? ", direct"
                    : ", through NVSwitches set up by the fabric manager");
        if (v->allowed) {
            v->transport = TRANSPORT_NVLINK;
            v->atomics = gpu_get_info(a)->atomics_nvlink &&
                         gpu_get_info(b)->atomics_nvlink;
        }
        nvlink_power_rule(m, v);
        return 0;
    }
    pcie_rules(v, &v->path, pair_vm(m, a, b));
    bar1_rule(v, b);
    atomics_rule(v, a, b);
    if (v->allowed) {
        v->transport = TRANSPORT_PCIE;
    }
    return 0;
}

/*
 * GPUDirect Storage: a drive's DMA straight into GPU g's memory through
 * its BAR1 is P2P between the drive and the GPU, decided by the same PCIe
 * rules as between GPUs (the product, ACS, root complex, IOMMU, BAR1);
 * NVLink plays no part.
 */
int path_gds_verdict(const struct topo_machine *m,
                     const struct sim_component *drive,
                     const struct sim_component *g, struct p2p_verdict *v)
{
    memset(v, 0, sizeof(*v));
    v->allowed = true;
    v->reads_allowed = true;
    int rc = path_compute(m, drive, g, &v->path);
    if (rc == -SIM_ENOMEM) {
        return rc;
    }
    if (rc < 0) {
        rule(v, RULE_PATH, true, false, "%s and %s are not both connected",
             drive->name, g->name);
        return 0;
    }
    v->path.cls = v->path.pcie_cls;
    v->path.nv_links = 0;
    product_rule(v, g);
    pcie_rules(v, &v->path, "");  /* drives are the host's (no vms:) */
    bar1_rule(v, g);
    if (v->allowed) {
        v->transport = TRANSPORT_PCIE;
    }
    return 0;
}
