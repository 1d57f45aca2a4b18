/*
 * machine/p2psim.c - libp2psim: machines and questions about them, in the
 * public header's own types (machine/p2psim.h), translated here from the
 * models' (struct gpu_info, machine/path.h's paths and verdicts).
 */
#include <config.h>

#include "machine/p2psim.h"
#include "machine/p2psim_int.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/fabric.h"
#include "machine/path.h"
#include "machine/topology.h"
#include "models/gpu/gpu.h"
#include "models/pcie/link.h"
#include "sim/component.h"
#include "sim/engine.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/sim.h"
#include "sim/units.h"
#ifdef HAVE_SYSTEMC
#include "sim/systemc/engine_systemc.h"
#endif


static const struct sim_engine_ops *engine_by_name(const char *name,
                                                   struct sim_error *err)
{
    if (!name || !strcmp(name, "native")) {
        return &sim_engine_native;
    }
    if (!strcmp(name, "heap")) {
        return &sim_engine_native_heap;
    }
#ifdef HAVE_SYSTEMC
    if (!strcmp(name, "systemc")) {
        return &sim_engine_systemc;
    }
#endif
    sim_error_set(err, SIM_EINVAL, "unknown engine '%s' (native, heap%s)",
                  name,
#ifdef HAVE_SYSTEMC
                  ", systemc"
#else
                  "; this build has no SystemC"
#endif
    );
    return NULL;
}

/*
 * A machine file, or (when no such file exists and the name has no '/') a
 * machine built into the library by name: "h200-x1" or "h200-x1.yaml".
 */
static struct topo_machine *load_named(const char *file,
                                       const struct topo_options *o,
                                       struct sim_error *err)
{
    size_t len = strlen(file);
    if (access(file, F_OK) != 0 && !strchr(file, '/') && len > 0 &&
        len < 200) {
        char name[256];
        bool ext = len > 5 && strcmp(file + len - 5, ".yaml") == 0;
        snprintf(name, sizeof(name), "%s%s", file, ext ? "" : ".yaml");
        const char *text = topo_embedded_find(name);
        if (text) {
            char shown[300];
            snprintf(shown, sizeof(shown), "<built-in>/%s", name);
            return topo_load_string(shown, text, strlen(text), o, err);
        }
        char list[1024] = "";
        size_t at = 0;
        const char *b;
        for (unsigned i = 0; (b = p2psim_builtin_machine(i)); i++) {
            if (at < sizeof(list)) {
                at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%.*s",
                                       at ? ", " : "", (int)(strlen(b) - 5),
                                       b);
            }
        }
        sim_error_set(err, SIM_ENOENT,
                      "%s: no such machine file, nor a built-in machine of "
                      "that name (built-in: %s)",
                      file, list);
        return NULL;
    }
    return topo_load_file(file, o, err);
}

/* Number the NVSwitches the nvlinks list names, in its order (p->nvsw,
 * p->nvl_sw): 0, or -1 out of memory. */
static int nvswitch_init(struct p2psim *p)
{
    const struct topo_machine *m = p->m;
    p->nvsw = calloc(2 * (size_t)m->n_nvlinks + 1, sizeof(*p->nvsw));
    p->nvl_sw = calloc((size_t)m->n_nvlinks + 1, sizeof(*p->nvl_sw));
    if (!p->nvsw || !p->nvl_sw) {
        return -1;
    }
    for (unsigned i = 0; i < m->n_nvlinks; i++) {
        const struct topo_nvlink *l = &m->nvlink[i];
        for (int end = 0; end < 2; end++) {
            const char *id = end ? l->b : l->a;
            int k = -1;
            if (end ? l->b_nvswitch : l->a_nvswitch) {
                for (unsigned j = 0; j < p->n_nvsw && k < 0; j++) {
                    k = strcmp(p->nvsw[j], id) == 0 ? (int)j : -1;
                }
                if (k < 0) {
                    k = (int)p->n_nvsw;
                    p->nvsw[p->n_nvsw++] = id;
                }
            }
            p->nvl_sw[i][end] = k;
        }
    }
    return 0;
}

struct p2psim *p2psim_open(const char *file, const struct p2psim_options *opt,
                           struct sim_error *err)
{
    struct topo_options o = { 0 };
    o.engine = engine_by_name(opt ? opt->engine : NULL, err);
    if (!o.engine) {
        return NULL;
    }
    o.seed = opt ? opt->seed : 0;
    o.overrides = opt ? opt->overrides : NULL;
    o.vm = opt && opt->vm && *opt->vm ? opt->vm : NULL;
    struct p2psim *p = calloc(1, sizeof(*p));
    if (!p) {
        sim_error_set(err, SIM_ENOMEM, "out of memory");
        return NULL;
    }
    p->m = file ? load_named(file, &o, err) : topo_load_default(&o, err);
    if (!p->m) {
        free(p);
        return NULL;
    }
    if (p2psim__exec_init(p) < 0 || nvswitch_init(p) < 0) {
        sim_error_set(err, SIM_ENOMEM, "out of memory");
        p2psim_close(p);
        return NULL;
    }
    if (opt && opt->fidelity && *opt->fidelity &&
        p2psim_set_fidelity(p, opt->fidelity, err) < 0) {
        p2psim_close(p);
        return NULL;
    }
    return p;
}

void p2psim_close(struct p2psim *p)
{
    if (p) {
        free(p->nvsw);
        free(p->nvl_sw);
        p2psim_trace_stop(p);
        p2psim__kernel_fini(p);
        p2psim__storage_fini(p);
        p2psim__exec_fini(p);
        topo_machine_destroy(p->m);
        free(p);
    }
}

const char *p2psim_machine_name(const struct p2psim *p) { return p->m->name; }
struct sim *p2psim_sim(const struct p2psim *p) { return p->m->sim; }
const char *p2psim_machine_file(const struct p2psim *p) { return p->m->file; }

const char *p2psim_machine_description(const struct p2psim *p)
{
    return p->m->description;
}

unsigned p2psim_gpu_count(const struct p2psim *p)
{
    return fab_n_gpus(p->m->fab);
}

const char *p2psim_gpu_id(const struct p2psim *p, unsigned i)
{
    struct sim_component *g = fab_gpu(p->m->fab, i);
    return g ? g->name : NULL;
}

const char *p2psim_gpu_model(const struct p2psim *p, unsigned i)
{
    struct sim_component *g = fab_gpu(p->m->fab, i);
    return g ? gpu_get_info(g)->name : NULL;
}

int p2psim_gpu_find(const struct p2psim *p, const char *s)
{
    unsigned n = p2psim_gpu_count(p);
    for (unsigned i = 0; i < n; i++) {
        if (!strcmp(p2psim_gpu_id(p, i), s)) {
            return (int)i;
        }
    }
    char *end;
    long v = strtol(s, &end, 10);
    if (*s && !*end && v >= 0 && (unsigned long)v < n) {
        return (int)v;
    }
    return -1;
}

unsigned p2psim_gpu_socket(const struct p2psim *p, unsigned i)
{
    struct sim_component *g = fab_gpu(p->m->fab, i);
    /* walk up to the root complex */
    const struct sim_port *port = g ? sim_port_find(g, "pcie") : NULL;
    while (port && sim_port_peer(port)) {
        const struct sim_component *c = sim_port_peer(port)->owner;
        for (unsigned k = 0; k < p->m->n_sockets; k++) {
            if (p->m->socket[k].rc == c) {
                return k;
            }
        }
        port = sim_port_find(c, "up");
    }
    return 0;
}

void p2psim_gpu_link(const struct p2psim *p, unsigned i, unsigned *gen,
                     unsigned *width)
{
    struct sim_component *g = fab_gpu(p->m->fab, i);
    const struct sim_port *port = g ? sim_port_find(g, "pcie") : NULL;
    *gen = *width = 0;
    if (port && port->link && port->link->ops == &pcie_link_ops) {
        *gen = pcie_link_gen(port->link);
        *width = pcie_link_width(port->link);
    }
}

/* The model's product classes, as the public header names them. */
static const enum p2psim_gpu_class gpu_class_pub[] = {
    [GPU_CLASS_DATACENTER] = P2PSIM_GPU_DATACENTER,
    [GPU_CLASS_WORKSTATION] = P2PSIM_GPU_WORKSTATION,
    [GPU_CLASS_GEFORCE] = P2PSIM_GPU_GEFORCE,
};

int p2psim_gpu_describe(const struct p2psim *p, unsigned i,
                        struct p2psim_gpu_desc *out)
{
    struct sim_component *g = fab_gpu(p->m->fab, i);
    if (!g) {
        return -SIM_EINVAL;
    }
    const struct gpu_info *in = gpu_get_info(g);
    _Static_assert(sizeof(out->model) >= sizeof(in->name) &&
                       sizeof(out->architecture) >= sizeof(in->architecture),
                   "the description holds the catalog's names");
    memset(out, 0, sizeof(*out));
    snprintf(out->model, sizeof(out->model), "%s", in->name);
    out->cls = gpu_class_pub[in->class_];
    snprintf(out->architecture, sizeof(out->architecture), "%s",
             in->architecture);
    out->cc_major = in->cc_major;
    out->cc_minor = in->cc_minor;
    out->sms = in->sms;
    out->sm_clock_hz = in->sm_clock_hz;
    out->mem_clock_hz = in->mem_clock_hz;
    out->mem_bus_width = in->mem_bus_width;
    out->l2_bytes = in->l2_bytes;
    out->nvlink_links = in->nvlink_links;
    out->nvlink_gen = in->nvlink_gen;
    out->atomics_pcie = in->atomics_pcie;
    out->atomics_nvlink = in->atomics_nvlink;
    out->compression = in->compression;
    return 0;
}

unsigned p2psim_gpu_copy_engines(const struct p2psim *p, unsigned i)
{
    struct sim_component *g = fab_gpu(p->m->fab, i);
    return g ? gpu_n_copy_engines(g) : 0;
}

/* Returns 0, or -SIM_EINVAL for a bad index (nothing written). */
int p2psim_gpu_pci_address(const struct p2psim *p, unsigned i,
                           unsigned *domain, unsigned *bus, unsigned *device,
                           unsigned *function)
{
    struct sim_component *g = fab_gpu(p->m->fab, i);
    if (!g) {
        return -SIM_EINVAL;
    }
    /* The requester ID: bus [15:8], device [7:3], function [2:0]. */
    uint16_t id = gpu_pcie_id(g);
    *domain = 0; /* Model: one PCI segment per machine */
    *bus = id >> 8;
    *device = (id >> 3) & 0x1f;
    *function = id & 0x7;
    return 0;
}

/*
 * PCI device ids of the catalog's products (the PCI ID Repository,
 * pci-ids.ucw.cz, vendor 10de). [estimate] Boards' subsystem ids vary by
 * maker; NVIDIA's own (10de) with the device id is taken.
 */
static const struct {
    const char *model;
    unsigned device;
} pci_device_ids[] = {
    { "H200-SXM", 0x2335 },     { "H100-SXM5", 0x2330 },
    { "A100-SXM4-80GB", 0x20b2 }, { "A100-PCIe", 0x20b5 },
    { "V100-SXM2", 0x1db5 },    { "L40S", 0x26b9 },
    { "B200", 0x2901 },         { "RTX-3090", 0x2204 },
    { "RTX-4090", 0x2684 },     { "RTX-5090", 0x2b85 },
    { "RTX-PRO-6000-Blackwell", 0x2bb1 },
};

int p2psim_gpu_pci_ids(const struct p2psim *p, unsigned i,
                       struct p2psim_pci_ids *out)
{
    struct p2psim_gpu_desc d;
    if (p2psim_gpu_describe(p, i, &d) < 0) {
        return -SIM_EINVAL;
    }
    out->vendor = out->subsystem_vendor = 0x10de;
    out->device = 0;
    for (size_t k = 0; k < sizeof(pci_device_ids) / sizeof(pci_device_ids[0]);
         k++) {
        if (strcmp(pci_device_ids[k].model, d.model) == 0) {
            out->device = pci_device_ids[k].device;
        }
    }
    out->subsystem_device = out->device;
    out->class_code = d.cls == P2PSIM_GPU_DATACENTER ? 0x030200 : 0x030000;
    return 0;
}

/* ---- paths and verdicts, from machine/path.h's ------------------------------ */

static const enum p2psim_path_class path_class_pub[] = {
    [PATH_X] = P2PSIM_PATH_X,       [PATH_NV] = P2PSIM_PATH_NV,
    [PATH_PIX] = P2PSIM_PATH_PIX,   [PATH_PXB] = P2PSIM_PATH_PXB,
    [PATH_PHB] = P2PSIM_PATH_PHB,   [PATH_NODE] = P2PSIM_PATH_NODE,
    [PATH_SYS] = P2PSIM_PATH_SYS,
};

static const enum p2psim_rule_id rule_pub[] = {
    [RULE_SAME_DEVICE] = P2PSIM_RULE_SAME_DEVICE,
    [RULE_PRODUCT] = P2PSIM_RULE_PRODUCT,
    [RULE_FABRIC_MANAGER] = P2PSIM_RULE_FABRIC_MANAGER,
    [RULE_NVLINK] = P2PSIM_RULE_NVLINK,
    [RULE_SOCKET] = P2PSIM_RULE_SOCKET,
    [RULE_ROOT_COMPLEX] = P2PSIM_RULE_ROOT_COMPLEX,
    [RULE_ACS] = P2PSIM_RULE_ACS,
    [RULE_IOMMU] = P2PSIM_RULE_IOMMU,
    [RULE_BAR1] = P2PSIM_RULE_BAR1,
    [RULE_PATH] = P2PSIM_RULE_PATH,
    [RULE_VM_CLIQUE] = P2PSIM_RULE_VM_CLIQUE,
    [RULE_NVLINK_POWER] = P2PSIM_RULE_NVLINK_POWER,
    [RULE_ATOMICS] = P2PSIM_RULE_ATOMICS,
    [RULE_VM_ISOLATION] = P2PSIM_RULE_VM_ISOLATION,
};
_Static_assert(sizeof(rule_pub) / sizeof(rule_pub[0]) == P2PSIM_RULE_N,
               "every rule of machine/path.h has a public name");

static const enum p2psim_transport transport_pub[] = {
    [TRANSPORT_NONE] = P2PSIM_TRANSPORT_NONE,
    [TRANSPORT_PCIE] = P2PSIM_TRANSPORT_PCIE,
    [TRANSPORT_NVLINK] = P2PSIM_TRANSPORT_NVLINK,
};

_Static_assert(P2PSIM_PATH_MAX_HOPS == PATH_MAX_HOPS &&
                   P2PSIM_MAX_RULES == PATH_MAX_RULES,
               "the public path and verdict hold what machine/path.c finds");

const char *p2psim_path_class_name(enum p2psim_path_class c)
{
    for (unsigned i = 0; i <= PATH_SYS; i++) {
        if (path_class_pub[i] == c) {
            return path_class_name((enum path_class)i);
        }
    }
    return "?";
}

static void path_pub(const struct path *in, struct p2psim_path *out)
{
    out->cls = path_class_pub[in->cls];
    out->pcie_cls = path_class_pub[in->pcie_cls];
    out->nv_links = in->nv_links;
    out->pcie_connected = in->pcie_connected;
    out->acs_redirect = in->acs_redirect;
    out->cross_socket = in->cross_socket;
    out->n_hops = in->n_hops;
    for (unsigned i = 0; i < in->n_hops; i++) {
        out->hop[i] = (struct p2psim_hop){ in->hop[i].comp->name,
                                           in->hop[i].in, in->hop[i].out,
                                           in->hop[i].redirected };
    }
}

int p2psim_path(const struct p2psim *p, unsigned a, unsigned b,
                struct p2psim_path *out)
{
    struct sim_component *ga = fab_gpu(p->m->fab, a);
    struct sim_component *gb = fab_gpu(p->m->fab, b);
    struct path in;
    if (!ga || !gb) {
        return -SIM_EINVAL;
    }
    int rc = path_compute(p->m, ga, gb, &in);
    if (rc == 0) {
        path_pub(&in, out);
    }
    return rc;
}

int p2psim__p2p(const struct p2psim *p, unsigned a, unsigned b,
                struct p2p_verdict *out)
{
    struct sim_component *ga = fab_gpu(p->m->fab, a);
    struct sim_component *gb = fab_gpu(p->m->fab, b);
    if (!ga || !gb) {
        return -SIM_EINVAL;
    }
    return path_p2p_verdict(p->m, ga, gb, out);
}

static void verdict_pub(const struct p2p_verdict *in,
                        struct p2psim_verdict *out)
{
    out->allowed = in->allowed;
    out->reads_allowed = in->reads_allowed;
    out->atomics = in->atomics;
    out->transport = transport_pub[in->transport];
    path_pub(&in->path, &out->path);
    out->n_rules = in->n_rules;
    for (unsigned i = 0; i < in->n_rules; i++) {
        const struct path_rule *r = &in->rule[i];
        struct p2psim_rule *o = &out->rule[i];
        o->id = rule_pub[r->id];
        o->blocks = r->blocks;
        o->slows = r->slows;
        _Static_assert(sizeof(o->says) == sizeof(r->says) &&
                           sizeof(o->fix) == sizeof(r->fix),
                       "a rule's texts fit as they are");
        snprintf(o->says, sizeof(o->says), "%s", r->says);
        snprintf(o->fix, sizeof(o->fix), "%s", r->fix);
    }
}

int p2psim_p2p(const struct p2psim *p, unsigned a, unsigned b,
               struct p2psim_verdict *out)
{
    struct p2p_verdict in;
    int rc = p2psim__p2p(p, a, b, &in);
    if (rc == 0) {
        verdict_pub(&in, out);
    }
    return rc;
}

int p2psim_drive_gds(const struct p2psim *p, unsigned drive, unsigned gpu,
                     struct p2psim_verdict *out)
{
    struct sim_component *d = p2psim__drive(p, drive);
    struct sim_component *g = fab_gpu(p->m->fab, gpu);
    if (!d || !g) {
        return -SIM_EINVAL;
    }
    struct p2p_verdict in;
    int rc = path_gds_verdict(p->m, d, g, &in);
    if (rc == 0) {
        verdict_pub(&in, out);
    }
    return rc;
}

unsigned p2psim_nvlink_count(const struct p2psim *p)
{
    return p->m->n_nvlinks;
}

unsigned p2psim_gpu_nvlinks(const struct p2psim *p, unsigned i,
                            struct p2psim_nvlink_end *out, unsigned max)
{
    const struct sim_component *g = fab_gpu(p->m->fab, i);
    unsigned n = 0;
    for (unsigned k = 0; g && k < p->m->n_nvlinks; k++) {
        const struct topo_nvlink *l = &p->m->nvlink[k];
        bool at_a = l->comp_a == g;
        if (!at_a && l->comp_b != g) {
            continue;
        }
        bool sw = at_a ? l->b_nvswitch : l->a_nvswitch;
        int peer = sw ? p->nvl_sw[k][at_a ? 1 : 0]
                      : p2psim_gpu_find(p, at_a ? l->b : l->a);
        if (n < max) {
            out[n] = (struct p2psim_nvlink_end){ sw, (unsigned)peer,
                                                 l->links };
        }
        n++;
    }
    return n;
}

unsigned p2psim_nvswitch_count(const struct p2psim *p)
{
    return p->n_nvsw;
}

const char *p2psim_nvswitch_id(const struct p2psim *p, unsigned k)
{
    return k < p->n_nvsw ? p->nvsw[k] : NULL;
}

int p2psim_nvswitch_pci_address(const struct p2psim *p, unsigned k,
                                unsigned *domain, unsigned *bus,
                                unsigned *device, unsigned *function)
{
    if (!p2psim_nvswitch_id(p, k)) {
        return -SIM_EINVAL;
    }
    /* Model: NVSwitches are not in the PCIe tree the builder makes (their
     * management function sits off the GPUs' paths); software still sees
     * each at an address of its own. */
    unsigned b = fab_n_buses(p->m->fab) + k;
    *domain = b > 255 ? 1 : 0;
    *bus = b > 255 ? k : b;
    *device = 0;
    *function = 0;
    return 0;
}

const struct p2psim_section *p2psim_section(const struct p2psim *p,
                                            const char *name)
{
    for (unsigned i = 0; i < p->m->n_kept; i++) {
        if (strcmp(p->m->kept[i].name, name) == 0) {
            return &p->m->kept[i];
        }
    }
    return NULL;
}

int p2psim__section_time(const struct p2psim *p, const char *name,
                         const char *key, sim_time_t *ps)
{
    const struct p2psim_section *s = p2psim_section(p, name);
    for (unsigned i = 0; s && i < s->n; i++) {
        char why[120];
        if (strcmp(s->entry[i].key, key) == 0) {
            return s->entry[i].value &&
                           sim_parse_time(s->entry[i].value, ps, why,
                                          sizeof(why)) == 0
                       ? 0
                       : -1;
        }
    }
    return -1;
}

const char *p2psim_builtin_machine(unsigned i)
{
    for (const struct topo_embedded *e = topo_embedded; e->path; e++) {
        if (!strchr(e->path, '/') && i-- == 0) {
            return e->path;
        }
    }
    return NULL;
}

const char *p2psim_builtin_text(const char *name)
{
    return topo_embedded_find(name);
}

int p2psim_write_dot(const struct p2psim *p, FILE *f)
{
    struct sim *sim = p->m->sim;
    fprintf(f, "graph \"%s\" {\n  node [shape=box, fontname=\"Helvetica\"];\n",
            p->m->name);
    for (uint32_t i = 0; i < sim_component_count(sim); i++) {
        struct sim_component *c = sim_component_at(sim, i);
        const char *shape = !strcmp(c->ops->kind, "gpu") ? "box3d"
                            : !strcmp(c->ops->kind, "root-complex")
                                ? "house"
                                : !strcmp(c->ops->kind, "host-memory")
                                      ? "cylinder"
                                      : "box";
        fprintf(f, "  \"%s\" [shape=%s, label=\"%s\\n%s\"];\n", c->name, shape,
                c->name,
                !strcmp(c->ops->kind, "gpu") ? gpu_get_info(c)->name
                                             : c->ops->kind);
    }
    for (uint32_t i = 0; i < sim_link_count(sim); i++) {
        struct sim_link *l = sim_link_at(sim, i);
        if (!l->end[0] || !l->end[1]) {
            continue;
        }
        char label[64] = "";
        if (l->ops == &pcie_link_ops) {
            snprintf(label, sizeof(label), "Gen%u x%u", pcie_link_gen(l),
                     pcie_link_width(l));
        } else {
            snprintf(label, sizeof(label), "%s", l->ops->kind);
        }
        fprintf(f, "  \"%s\" -- \"%s\" [label=\"%s\"];\n",
                l->end[0]->owner->name, l->end[1]->owner->name, label);
    }
    for (unsigned i = 0; i < p->m->n_nvlinks; i++) {
        const struct topo_nvlink *nv = &p->m->nvlink[i];
        fprintf(f, "  \"%s\" -- \"%s\" [color=green, label=\"NV%u\"];\n",
                nv->a, nv->b, nv->links);
    }
    fprintf(f, "}\n");
    return ferror(f) ? -SIM_EIO : 0;
}
