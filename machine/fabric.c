/*
 * machine/fabric.c - the builder: components, links, and the enumeration
 * that turns a wired tree into a routable machine.
 *
 * What finalize does, in order:
 *  1. host memory: each root complex's "mem" peer gets the next DRAM range;
 *  2. bus numbers and BARs, depth first under each root port:
 *
 *       rc0 (bus 0)
 *        +- rp0: buses [1, 4]  window = BARs below
 *        |    sw0 up on bus 1, internal bus 2
 *        |     +- dp0: bus 3 -> gpu0 = 03:00.0, BAR1 placed
 *        |     +- dp1: bus 4 -> gpu1 = 04:00.0, BAR1 placed
 *        +- rp1: bus 5 -> gpu2 = 05:00.0
 *
 *     every BAR naturally aligned, placed upward from FAB_MMIO_BASE, so a
 *     port's window is one contiguous range covering its subtree;
 *  3. each root complex's socket-link ports route the other socket's DRAM,
 *     MMIO and buses (Model: sockets are fully meshed; traffic never
 *     transits a third socket);
 *  4. with a translating IOMMU, host memory is mapped for every device
 *     below (Model: the driver's DMA mappings of pinned host memory);
 *     peer BARs are not (the driver maps only host memory). A GPU given
 *     to a VM (fab_add_vm) is instead in its VM's domain, which maps the
 *     VM's memory window and its GPUs' BARs (VFIO maps a guest's RAM and
 *     its devices' MMIO for it), and nothing else.
 * Link speeds are negotiated when links are connected (fab_connect).
 */
#include <config.h>

#include "machine/fabric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/kinds.h"
#include "models/gpu/gpu.h"
#include "models/host/hostmem.h"
#include "models/iommu/iommu.h"
#include "models/models.h"
#include "models/nvlink/nvlink.h"
#include "models/nvlink/power.h"
#include "models/pcie/link.h"
#include "models/pcie/pcie.h"
#include "models/pcie/rc.h"
#include "models/pcie/switch.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"

#define FAB_MAX 4096
#define FAB_MAX_VMS 16
#define FAB_VM_MAX_GPUS 16
/* VM k's IOMMU domain: above every requester ID (models/iommu/iommu.c) */
#define FAB_VM_DOMAIN(k) (0x10000u + (k))

/*
 * Receive buffers a port advertises (PCIe r6.0 §2.6.1), as credits: header
 * credits count TLPs, data credits 16-byte units. Model: one size for
 * every switch and root port, large enough not to limit a Gen5 x16 stream
 * over a few hundred ns of credit round trip (32 KiB of posted data);
 * endpoints advertise infinite completion credits, as the spec requires.
 */
static const struct pcie_end_caps default_caps = {
    .max_gen = PCIE_GEN_MAX,
    .max_width = 16,
    .cred_hdr = { [TLP_FC_P] = 128, [TLP_FC_NP] = 64, [TLP_FC_CPL] = 128 },
    .cred_data = { [TLP_FC_P] = 2048, [TLP_FC_NP] = 64, [TLP_FC_CPL] = 2048 },
};

struct fab {
    struct sim *sim;
    struct sim_component *comp[FAB_MAX];
    unsigned n_comp;
    struct sim_component *gpu[FAB_MAX];
    unsigned n_gpu;
    bool finalized;
    bool nvswitch_routes;       /* program NVSwitches (fabric manager) */
    struct nvl_power nvl_power; /* the NVLinks' power saving (power.h) */
    /* enumeration state */
    unsigned next_bus;
    uint64_t next_mmio;
    /* the VMs GPUs are passed through to (fab_add_vm) */
    struct fab_vm {
        char name[64];
        const struct sim_component *rc;
        uint64_t off, len, base;
        struct sim_component *gpu[FAB_VM_MAX_GPUS];
        unsigned n;
    } vm[FAB_MAX_VMS];
    unsigned n_vm;
};

struct fab *fab_create(struct sim *sim, struct sim_error *err)
{
    struct fab *f = calloc(1, sizeof(*f));
    if (!f) {
        sim_error_set(err, SIM_ENOMEM, "out of memory");
        return NULL;
    }
    f->sim = sim;
    f->nvswitch_routes = true;
    return f;
}

void fab_set_fabric_manager(struct fab *f, bool running)
{
    f->nvswitch_routes = running;
}

void fab_set_nvlink_power(struct fab *f, sim_time_t sleep_after_ps,
                          sim_time_t wake_ps, sim_time_t settle_ps,
                          uint64_t settle_rate)
{
    nvl_power_init(&f->nvl_power, sleep_after_ps, wake_ps, settle_ps,
                   settle_rate);
}

struct nvl_power *fab_nvlink_power(struct fab *f)
{
    return f->nvl_power.sleep_after_ps ? &f->nvl_power : NULL;
}

void fab_destroy(struct fab *f)
{
    free(f);
}

struct sim *fab_sim(const struct fab *f) { return f->sim; }
unsigned fab_n_gpus(const struct fab *f) { return f->n_gpu; }

struct sim_component *fab_gpu(const struct fab *f, unsigned i)
{
    return i < f->n_gpu ? f->gpu[i] : NULL;
}

struct sim_component *fab_find(const struct fab *f, const char *name)
{
    return sim_component_find(f->sim, name);
}

unsigned fab_n_buses(const struct fab *f)
{
    return f->next_bus;
}

/*
 * Configure a component (c) or a link (l) from props (NULL: none), then
 * reject any key its model did not read, naming the closest valid one.
 */
static int configure_checked(struct sim_component *c, struct sim_link *l,
                             const char *name, const struct sim_props *props,
                             struct sim_error *err)
{
    struct sim_props empty;
    if (!props) {
        sim_props_init(&empty, name, NULL);
        props = &empty;
    }
    int rc = c ? sim_component_configure(c, props, err)
               : sim_link_configure(l, props, err);
    if (rc == 0) {
        rc = sim_props_check_unused(props, err);
    }
    if (props == &empty) {
        sim_props_fini(&empty);
    }
    return rc;
}

struct sim_component *fab_add(struct fab *f, const char *kind,
                              const char *name, const struct sim_props *props,
                              struct sim_error *err)
{
    if (f->finalized) {
        sim_error_set(err, SIM_ESTATE, "the machine is finalized: cannot add "
                                       "'%s'", name);
        return NULL;
    }
    const struct mkind *mk = mkind_find(kind);
    if (!mk) {
        char list[256] = "";
        for (unsigned i = 0; mkind_at(i); i++) {
            strncat(list, mkind_at(i)->ops->kind,
                    sizeof(list) - strlen(list) - 3);
            if (mkind_at(i + 1)) {
                strncat(list, ", ", sizeof(list) - strlen(list) - 1);
            }
        }
        sim_error_set(err, SIM_ENOENT, "unknown kind '%s' for '%s' (kinds: %s)",
                      kind, name, list);
        return NULL;
    }
    if (f->n_comp == FAB_MAX) {
        sim_error_set(err, SIM_ERANGE, "more than %d components", FAB_MAX);
        return NULL;
    }
    struct sim_component *c = sim_component_create(f->sim, mk->ops, name,
                                                   err);
    if (!c) {
        return NULL;
    }
    if (configure_checked(c, NULL, name, props, err) < 0) {
        return NULL;
    }
    f->comp[f->n_comp++] = c;
    if (mk->gpu) {
        f->gpu[f->n_gpu++] = c;
    }
    return c;
}

/* "comp.port" -> port; fills err naming what is missing. */
static struct sim_port *find_port(struct fab *f, const char *spec,
                                  struct sim_error *err)
{
    const char *dot = strrchr(spec, '.');
    if (!dot || dot == spec || !dot[1]) {
        sim_error_set(err, SIM_EINVAL,
                      "'%s' is not a port (write component.port)", spec);
        return NULL;
    }
    char name[128];
    size_t n = (size_t)(dot - spec);
    if (n >= sizeof(name)) {
        sim_error_set(err, SIM_EINVAL, "component name too long in '%s'", spec);
        return NULL;
    }
    memcpy(name, spec, n);
    name[n] = '\0';
    struct sim_component *c = sim_component_find(f->sim, name);
    if (!c) {
        sim_error_set(err, SIM_ENOENT, "no component named '%s' (in '%s')",
                      name, spec);
        return NULL;
    }
    struct sim_port *p = sim_port_find(c, dot + 1);
    if (!p) {
        char list[256] = "";
        for (uint32_t i = 0; i < c->n_ports && strlen(list) < 200; i++) {
            strcat(list, i ? ", " : "");
            strncat(list, c->port[i]->name, 40);
        }
        sim_error_set(err, SIM_ENOENT, "%s has no port '%s' (ports: %s)",
                      name, dot + 1, list);
        return NULL;
    }
    return p;
}

/* What the end of a PCIe link at port p supports and advertises. */
static void end_caps(const struct sim_port *p, struct pcie_end_caps *caps)
{
    *caps = default_caps;
    const struct mkind *mk = mkind_of(p->owner);
    if (mk && mk->pcie) {
        if (mk->pcie->max_gen) {
            caps->max_gen = mk->pcie->max_gen(p->owner);
        }
        if (mk->pcie->max_width) {
            caps->max_width = mk->pcie->max_width(p->owner);
        }
        caps->cred_hdr[TLP_FC_CPL] = 0;
        caps->cred_data[TLP_FC_CPL] = 0;
    }
}

struct sim_link *fab_connect(struct fab *f, const char *a, const char *b,
                             const char *link_kind,
                             const struct sim_props *props,
                             struct sim_error *err)
{
    if (f->finalized) {
        sim_error_set(err, SIM_ESTATE, "the machine is finalized");
        return NULL;
    }
    struct sim_port *pa = find_port(f, a, err);
    struct sim_port *pb = pa ? find_port(f, b, err) : NULL;
    if (!pb) {
        return NULL;
    }
    const struct sim_link_ops *ops = models_find_link(link_kind);
    if (!ops) {
        sim_error_set(err, SIM_ENOENT, "unknown link kind '%s' (kinds: "
                                       "pcie-link, socket-link, nvlink, "
                                       "wire)",
                      link_kind);
        return NULL;
    }
    char name[300];
    snprintf(name, sizeof(name), "%s--%s", a, b);
    struct sim_link *l = sim_link_create(f->sim, ops, name, err);
    if (!l) {
        return NULL;
    }
    if (configure_checked(NULL, l, name, props, err) < 0) {
        return NULL;
    }
    if (ops == &pcie_link_ops) {
        struct pcie_end_caps caps;
        end_caps(pa, &caps);
        pcie_link_set_end(l, 0, &caps);
        end_caps(pb, &caps);
        pcie_link_set_end(l, 1, &caps);
    }
    if (sim_link_connect(l, pa, pb, err) < 0) {
        return NULL;
    }
    return l;
}

/* ---- finalize ------------------------------------------------------------------ */

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

/*
 * Enumerate what hangs below the downstream-facing port p (of a switch or
 * a root complex) and fill its route r: buses and the window of BARs.
 */
static int enumerate_port(struct fab *f, struct sim_port *p,
                          struct pcie_route *r, struct sim_error *err)
{
    memset(r, 0, sizeof(*r));
    r->valid = true;
    r->bus_sec = 1;
    r->bus_sub = 0; /* empty until something is below */
    struct sim_port *peer = sim_port_peer(p);
    if (!peer) {
        return 0;
    }
    if (f->next_bus > 255) {
        return sim_error_set(err, SIM_ERANGE, "more than 256 PCI buses below "
                                              "%s.%s", p->owner->name, p->name);
    }
    unsigned sec = f->next_bus++;
    uint64_t mmio_start = f->next_mmio;
    uint64_t first_bar = UINT64_MAX;
    struct sim_component *child = peer->owner;
    const struct mkind *mk = mkind_of(child);
    if (mk && mk->role == MKIND_PCIE_SWITCH) {
        if (peer->role != SIM_PORT_UPSTREAM) {
            return sim_error_set(err, SIM_EINVAL,
                                 "%s.%s must connect to %s's upstream port, "
                                 "not %s", p->owner->name, p->name,
                                 child->name, peer->name);
        }
        psw_set_bus(child, sec);
        f->next_bus++; /* the switch's internal bus */
        unsigned n;
        struct pcie_route *routes = psw_routes(child, &n);
        for (unsigned i = 1; i < n; i++) {
            int rc = enumerate_port(f, child->port[i], &routes[i], err);
            if (rc < 0) {
                return rc;
            }
            if (routes[i].n_windows && routes[i].window[0].base < first_bar) {
                first_bar = routes[i].window[0].base;
            }
        }
    } else if (mk && mk->pcie && peer == sim_port_find(child,
                                                       mk->pcie->port)) {
        mk->pcie->set_id(child, pcie_id(sec, 0, 0));
        uint64_t size = mk->pcie->bar_size ? mk->pcie->bar_size(child) : 0;
        if (size) {
            uint64_t base = align_up(f->next_mmio, size);
            mk->pcie->set_bar(child, base);
            f->next_mmio = base + size;
            first_bar = base;
        }
    } else {
        return sim_error_set(err, SIM_EINVAL,
                             "%s (kind %s) cannot hang below %s.%s",
                             child->name, child->ops->kind, p->owner->name,
                             p->name);
    }
    r->bus_sec = (uint8_t)sec;
    r->bus_sub = (uint8_t)(f->next_bus - 1);
    if (first_bar != UINT64_MAX && f->next_mmio > mmio_start) {
        pcie_route_add_window(r, first_bar, f->next_mmio - 1);
    }
    return 0;
}

struct socket_info {
    struct sim_component *rc;
    uint64_t dram_base, dram_limit;     /* inclusive limit; empty if base > limit */
    uint64_t mmio_base, mmio_limit;
    unsigned bus_first, bus_last;
};

/* ---- virtual machines ------------------------------------------------------ */

/* The VM component c is given to, or -1. */
static int vm_of(const struct fab *f, const struct sim_component *c)
{
    for (unsigned k = 0; k < f->n_vm; k++) {
        for (unsigned i = 0; i < f->vm[k].n; i++) {
            if (f->vm[k].gpu[i] == c) {
                return (int)k;
            }
        }
    }
    return -1;
}

int fab_add_vm(struct fab *f, const char *name, const struct sim_component *rc,
               uint64_t off, uint64_t len, struct sim_component *const *gpu,
               unsigned n, struct sim_error *err)
{
    if (f->finalized || f->n_vm == FAB_MAX_VMS || n == 0 ||
        n > FAB_VM_MAX_GPUS || !rc || !mkind_is(rc, MKIND_ROOT_COMPLEX)) {
        return sim_error_set(err, SIM_EINVAL, "VM '%s': more than %d VMs, "
                             "no GPU or more than %d, or no socket", name,
                             FAB_MAX_VMS, FAB_VM_MAX_GPUS);
    }
    struct fab_vm *v = &f->vm[f->n_vm];
    memset(v, 0, sizeof(*v));
    snprintf(v->name, sizeof(v->name), "%s", name);
    v->rc = rc;
    v->off = off;
    v->len = len;
    for (unsigned i = 0; i < n; i++) {
        if (!gpu[i] || !mkind_is_gpu(gpu[i]) || vm_of(f, gpu[i]) >= 0) {
            return sim_error_set(err, SIM_EINVAL, "VM '%s': GPU %u is no "
                                 "GPU, or one of another VM", name, i);
        }
        v->gpu[v->n++] = gpu[i];
    }
    f->n_vm++;
    return 0;
}

uint64_t fab_vm_base(const struct fab *f, const char *name)
{
    for (unsigned k = 0; k < f->n_vm; k++) {
        if (strcmp(f->vm[k].name, name) == 0) {
            return f->vm[k].base;
        }
    }
    return 0;
}

static const char *const iommu_mode_names[] = { "off", "passthrough",
                                                "translating" };

/* Place each VM's memory in its socket's DRAM; VFIO needs every IOMMU
 * translating. */
static int fab_place_vms(struct fab *f, const struct socket_info *s,
                         unsigned n_sock, struct sim_error *err)
{
    for (unsigned k = 0; k < n_sock && f->n_vm; k++) {
        struct iommu *mmu = rc_iommu(s[k].rc);
        enum iommu_mode mode = mmu ? iommu_mode(mmu) : IOMMU_OFF;
        if (mode != IOMMU_TRANSLATING) {
            return sim_error_set(err, SIM_EINVAL,
                                 "VM '%s': VFIO needs the IOMMU translating, "
                                 "and %s has iommu: %s (set iommu: "
                                 "translating on its root-complex)",
                                 f->vm[0].name, s[k].rc->name,
                                 iommu_mode_names[mode]);
        }
    }
    for (unsigned v = 0; v < f->n_vm; v++) {
        struct fab_vm *vm = &f->vm[v];
        const struct socket_info *si = NULL;
        for (unsigned k = 0; k < n_sock; k++) {
            si = s[k].rc == vm->rc ? &s[k] : si;
        }
        uint64_t dram = si && si->dram_base <= si->dram_limit
                            ? si->dram_limit - si->dram_base + 1 : 0;
        if (!si || vm->off + vm->len > dram) {
            return sim_error_set(err, SIM_ERANGE,
                                 "VM '%s': its memory (%llu GiB, %llu GiB "
                                 "from the start of %s's DRAM, after the "
                                 "socket's earlier VMs) does not fit in "
                                 "that DRAM (%llu GiB)", vm->name,
                                 (unsigned long long)(vm->len >> 30),
                                 (unsigned long long)(vm->off >> 30),
                                 vm->rc->name,
                                 (unsigned long long)(dram >> 30));
        }
        vm->base = si->dram_base + vm->off;
    }
    return 0;
}

/* Each VM's domain in every IOMMU: its memory and its own GPUs' BARs. */
static int fab_map_vms(struct fab *f, const struct socket_info *s,
                       unsigned n_sock, struct sim_error *err)
{
    for (unsigned k = 0; k < n_sock; k++) {
        struct iommu *mmu = rc_iommu(s[k].rc);
        for (unsigned v = 0; v < f->n_vm; v++) {
            const struct fab_vm *vm = &f->vm[v];
            int rc = 0;
            for (unsigned i = 0; i < vm->n && rc == 0; i++) {
                rc = iommu_set_domain(mmu, gpu_pcie_id(vm->gpu[i]),
                                      FAB_VM_DOMAIN(v));
            }
            uint16_t rid = gpu_pcie_id(vm->gpu[0]);
            if (rc == 0) {
                rc = iommu_map(mmu, rid, vm->base, vm->len);
            }
            for (unsigned i = 0; i < vm->n && rc == 0; i++) {
                rc = iommu_map(mmu, rid, gpu_bar1_base(vm->gpu[i]),
                               gpu_bar1_size(vm->gpu[i]));
            }
            if (rc < 0) {
                return sim_error_set(err, rc, "%s: cannot map VM '%s' in "
                                     "its IOMMU domain", s[k].rc->name,
                                     vm->name);
            }
        }
    }
    return 0;
}

static int fab_map_host_memory(struct fab *f, struct socket_info *s,
                               unsigned n_sock, struct sim_error *err)
{
    for (unsigned k = 0; k < n_sock; k++) {
        struct iommu *mmu = rc_iommu(s[k].rc);
        if (!mmu || iommu_mode(mmu) != IOMMU_TRANSLATING) {
            continue;
        }
        for (unsigned g = 0; g < f->n_comp; g++) {
            const struct mkind *mk = mkind_of(f->comp[g]);
            if (!mk || !mk->pcie || !mk->pcie->dma ||
                vm_of(f, f->comp[g]) >= 0) {
                continue;
            }
            for (unsigned j = 0; j < n_sock; j++) {
                if (s[j].dram_base > s[j].dram_limit) {
                    continue;
                }
                int rc = iommu_map(mmu, mk->pcie->id(f->comp[g]),
                                   s[j].dram_base,
                                   s[j].dram_limit - s[j].dram_base + 1);
                if (rc < 0) {
                    return sim_error_set(err, rc,
                                         "%s: cannot map host memory of %s "
                                         "for %s in the IOMMU (size must be "
                                         "a whole number of IOMMU pages)",
                                         s[k].rc->name, s[j].rc->name,
                                         f->comp[g]->name);
                }
            }
        }
    }
    return 0;
}

/* ---- NVLink ---------------------------------------------------------------- */

/* GPU i's NVLink window: FAB_NVLINK_BASE + i x FAB_NVLINK_STRIDE. */
static uint64_t nvl_window(const struct fab *f, const struct sim_component *g)
{
    for (unsigned i = 0; i < f->n_gpu; i++) {
        if (f->gpu[i] == g) {
            return FAB_NVLINK_BASE + (uint64_t)i * FAB_NVLINK_STRIDE;
        }
    }
    return 0;
}

/* Route GPU g's NVLink port nvl to GPU h's window. */
static int nvl_route(struct fab *f, struct sim_component *g, unsigned nvl,
                     const struct sim_component *h, struct sim_error *err)
{
    uint64_t base = nvl_window(f, h);
    int rc = gpu_nvlink_add_route(g, base, base + gpu_mem_size(h) - 1, nvl);
    return rc < 0 ? sim_error_set(err, rc, "%s: cannot route NVLink port "
                                  "nvl%u to %s", g->name, nvl, h->name)
                  : 0;
}

/*
 * NVLink, after enumeration (requester IDs are known):
 *  - every GPU gets its NVLink window, the whole of its memory;
 *  - every connected NVLink port of a GPU its weight (bonded links) and
 *    routes: the GPU at its far end, or, through an NVSwitch, every other
 *    GPU on that switch;
 *  - every NVSwitch port that leads to a GPU its target (window and ID).
 * The last two through switches only when the fabric manager runs
 * (fab_set_fabric_manager): an unprogrammed NVSwitch carries nothing.
 */
static int fab_finalize_nvlink(struct fab *f, struct sim_error *err)
{
    for (unsigned i = 0; i < f->n_gpu; i++) {
        gpu_set_nvlink_window(f->gpu[i], nvl_window(f, f->gpu[i]),
                              gpu_mem_size(f->gpu[i]));
        gpu_set_nvlink_power(f->gpu[i], fab_nvlink_power(f));
    }
    for (unsigned i = 0; i < f->n_gpu; i++) {
        struct sim_component *g = f->gpu[i];
        for (uint32_t k = 0; k < g->n_ports; k++) {
            struct sim_port *p = g->port[k];
            unsigned nvl;
            struct sim_port *peer = sim_port_peer(p);
            if (sscanf(p->name, "nvl%u", &nvl) != 1 || !peer ||
                p->link->ops != &nvl_link_ops) {
                continue;
            }
            gpu_nvlink_set_port_links(g, nvl, nvl_link_links(p->link));
            struct sim_component *far = peer->owner;
            int rc = 0;
            if (mkind_is_gpu(far)) {
                rc = nvl_route(f, g, nvl, far, err);
            } else if (mkind_is(far, MKIND_NVSWITCH) && f->nvswitch_routes) {
                for (uint32_t j = 0; j < far->n_ports && rc == 0; j++) {
                    struct sim_port *q = sim_port_peer(far->port[j]);
                    if (q && mkind_is_gpu(q->owner) && q->owner != g) {
                        rc = nvl_route(f, g, nvl, q->owner, err);
                    }
                }
            }
            if (rc < 0) {
                return rc;
            }
        }
    }
    for (unsigned i = 0; i < f->n_comp && f->nvswitch_routes; i++) {
        struct sim_component *sw = f->comp[i];
        if (!mkind_is(sw, MKIND_NVSWITCH)) {
            continue;
        }
        for (uint32_t j = 0; j < sw->n_ports; j++) {
            struct sim_port *q = sim_port_peer(sw->port[j]);
            if (q && mkind_is_gpu(q->owner)) {
                uint64_t base = nvl_window(f, q->owner);
                nvsw_set_target(sw, j, base,
                                base + gpu_mem_size(q->owner) - 1,
                                gpu_pcie_id(q->owner));
            }
        }
    }
    return 0;
}

int fab_finalize(struct fab *f, struct sim_error *err)
{
    if (f->finalized) {
        return sim_error_set(err, SIM_ESTATE, "fab_finalize called twice");
    }
    struct socket_info sock[64];
    unsigned n_sock = 0;
    uint64_t dram_next = 0;
    f->next_bus = 0;
    f->next_mmio = FAB_MMIO_BASE;
    for (unsigned i = 0; i < f->n_comp; i++) {
        struct sim_component *rc = f->comp[i];
        if (!mkind_is(rc, MKIND_ROOT_COMPLEX)) {
            continue;
        }
        if (n_sock == 64) {
            return sim_error_set(err, SIM_ERANGE, "more than 64 sockets");
        }
        struct socket_info *s = &sock[n_sock++];
        memset(s, 0, sizeof(*s));
        s->rc = rc;
        unsigned n_ports;
        struct pcie_route *routes = rc_routes(rc, &n_ports);
        unsigned n_rp = rc_n_root_ports(rc);
        /* host memory on "mem" */
        s->dram_base = 1;
        s->dram_limit = 0;
        struct sim_port *mem = sim_port_peer(rc->port[n_rp]);
        memset(&routes[n_rp], 0, sizeof(routes[n_rp]));
        routes[n_rp].valid = true;
        routes[n_rp].bus_sec = 1;
        if (mem && mem->owner->ops == &hmem_ops) { /* the socket's DRAM */
            uint64_t size = hmem_size(mem->owner);
            hmem_set_base(mem->owner, dram_next, pcie_id(f->next_bus, 0, 0));
            s->dram_base = dram_next;
            s->dram_limit = dram_next + size - 1;
            pcie_route_add_window(&routes[n_rp], s->dram_base, s->dram_limit);
            dram_next = align_up(dram_next + size, UINT64_C(1) << 30);
        }
        s->bus_first = f->next_bus++;
        s->mmio_base = f->next_mmio;
        for (unsigned p = 0; p < n_rp; p++) {
            int rc2 = enumerate_port(f, rc->port[p], &routes[p], err);
            if (rc2 < 0) {
                return rc2;
            }
        }
        s->mmio_limit = f->next_mmio - 1;
        s->bus_last = f->next_bus - 1;
        /* leave room so sockets' MMIO ranges never touch */
        f->next_mmio = align_up(f->next_mmio + 1, UINT64_C(1) << 40);
    }
    if (dram_next > FAB_MMIO_BASE) {
        return sim_error_set(err, SIM_ERANGE,
                             "host memory (%llu bytes) overlaps the MMIO "
                             "region at 0x%llx",
                             (unsigned long long)dram_next,
                             (unsigned long long)FAB_MMIO_BASE);
    }
    /* socket links: route the far socket's ranges */
    for (unsigned k = 0; k < n_sock; k++) {
        struct sim_component *rc = sock[k].rc;
        unsigned n_ports;
        struct pcie_route *routes = rc_routes(rc, &n_ports);
        unsigned n_rp = rc_n_root_ports(rc);
        for (unsigned x = n_rp + 1; x < n_ports; x++) {
            struct pcie_route *r = &routes[x];
            memset(r, 0, sizeof(*r));
            r->valid = true;
            r->bus_sec = 1;
            struct sim_port *peer = sim_port_peer(rc->port[x]);
            if (!peer) {
                continue;
            }
            for (unsigned j = 0; j < n_sock; j++) {
                if (sock[j].rc != peer->owner) {
                    continue;
                }
                r->bus_sec = (uint8_t)sock[j].bus_first;
                r->bus_sub = (uint8_t)sock[j].bus_last;
                if (sock[j].dram_base <= sock[j].dram_limit) {
                    pcie_route_add_window(r, sock[j].dram_base,
                                          sock[j].dram_limit);
                }
                if (sock[j].mmio_limit >= sock[j].mmio_base) {
                    pcie_route_add_window(r, sock[j].mmio_base,
                                          sock[j].mmio_limit);
                }
            }
        }
    }
    int rc = fab_place_vms(f, sock, n_sock, err);
    if (rc == 0) {
        rc = fab_map_host_memory(f, sock, n_sock, err);
    }
    if (rc == 0) {
        rc = fab_map_vms(f, sock, n_sock, err);
    }
    if (rc == 0) {
        rc = fab_finalize_nvlink(f, err);
    }
    if (rc < 0) {
        return rc;
    }
    f->finalized = true;
    return 0;
}

unsigned fab_path_mps(const struct fab *f, const struct sim_component *a,
                      const struct sim_component *b)
{
    unsigned mps = 4096;
    const struct sim_component *end[2] = { a, b };
    for (int i = 0; i < 2; i++) {
        const struct mkind *mk = mkind_of(end[i]);
        if (mk && mk->pcie && mk->pcie->mps && mk->pcie->mps(end[i]) < mps) {
            mps = mk->pcie->mps(end[i]);
        }
    }
    return mps;
}

/* ---- props from a string ----------------------------------------------------------- */

struct sim_props *fab_props_parse(const char *owner, const char *spec)
{
    struct sim_props *p = malloc(sizeof(*p));
    char *copy = strdup(spec ? spec : "");
    if (!p || !copy) {
        free(p);
        free(copy);
        return NULL;
    }
    sim_props_init(p, owner, NULL);
    char *save = NULL;
    for (char *tok = strtok_r(copy, " \t\n", &save); tok;
         tok = strtok_r(NULL, " \t\n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok) {
            sim_props_fini(p);
            free(p);
            free(copy);
            return NULL;
        }
        *eq = '\0';
        sim_props_set(p, tok, eq + 1, NULL, NULL);
    }
    free(copy);
    return p;
}

void fab_props_free(struct sim_props *p)
{
    if (p) {
        sim_props_fini(p);
        free(p);
    }
}
