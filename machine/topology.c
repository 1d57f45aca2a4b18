/*
 * machine/topology.c - the machine-file loader (schema: topologies/SCHEMA.md).
 *
 * Three passes over the libyaml document (which keeps every node's mark):
 *  1. shape: top-level keys, ids (unique), per-entry keys (unknown keys get
 *     the closest valid one), the schema version;
 *  2. wiring: every parent reference resolved to a port, each port taking
 *     one child, no loops, link speeds and widths within what the ends
 *     support, NVLink references and link counts;
 *  3. build: components through the builder (machine/fabric.h) with
 *     properties that keep their marks, then the builder's finalize.
 * Nothing is built before passes 1 and 2 succeed, and a failure in pass 3
 * (a model rejecting a value) destroys what was built.
 */
#include <config.h>

#include "machine/topology.h"
#include "machine/topology_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "machine/fabric.h"
#include "models/gpu/gpu.h"
#include "models/nvlink/nvlink.h"
#include "models/pcie/pcie.h"
#include "models/pcie/pcie_regs.h"
#include "models/pcie/rc.h"
#include "models/pcie/switch.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/units.h"

#define TOPO_MAX_ENTRIES 1024
#define TOPO_MAX_PORTS 64

/* ---- the machine being loaded --------------------------------------------------------- */

enum ent_kind { ENT_SOCKET, ENT_SWITCH, ENT_GPU, ENT_NVSWITCH };

struct ent {
    enum ent_kind kind;
    const char *id;             /* in the document */
    yaml_node_t *n;             /* the entry's mapping */
    yaml_node_t *id_node;
    /* sockets and switches: downstream ports */
    unsigned n_ports;
    const char *port_name[TOPO_MAX_PORTS];
    /* default names "rp3", "dp0": room for any unsigned index, so that no
     * name can be cut short whatever the port limits become */
    char port_buf[TOPO_MAX_PORTS][sizeof "dp4294967295"];
    int child[TOPO_MAX_PORTS];  /* entity index below each port, or -1 */
    uint16_t acs[TOPO_MAX_PORTS];
    /* switches and GPUs: where they hang */
    int parent;                 /* entity index */
    unsigned parent_port;
    yaml_node_t *parent_node;
    /* sockets */
    unsigned n_xs;              /* socket links */
    /* GPUs */
    struct sim_props *gpu_props;
    struct ydoc catalog;
    unsigned max_gen, max_width;
    unsigned nvlinks_used;
    unsigned nvlinks_have;
};

struct loader {
    struct ydoc doc;
    const char *dir;            /* the machine file's folder, or NULL */
    const struct topo_options *opt;
    struct sim_error *err;
    yaml_node_t *root, *defaults;
    struct ent ent[TOPO_MAX_ENTRIES];
    unsigned n_ent;
};

static int find_ent(struct loader *L, const char *id)
{
    for (unsigned i = 0; i < L->n_ent; i++) {
        if (strcmp(L->ent[i].id, id) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* sim_props_set, with the loader's error out of memory. */
static int set_prop(struct loader *L, struct sim_props *p, const char *key,
                    const char *value, const struct sim_mark *m)
{
    if (sim_props_set(p, key, value ? value : "", m, m) < 0) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    return 0;
}

static const char *const top_keys[] = {
    "p2psim-machine", "name", "description", "sources", "defaults", "sockets",
    "socket-links", "switches", "gpus", "nvswitches", "nvlinks",
    "fabric-manager", "api-costs", "virtual-machine", "nvlink-power", NULL,
};

const char *const topo_api_cost_names[TOPO_API_COST_N + 1] = {
    [TOPO_API_COST_CALL] = "call",
    [TOPO_API_COST_LAUNCH] = "launch",
    [TOPO_API_COST_MEMCPY_ASYNC_H2D] = "memcpy-async-h2d",
    [TOPO_API_COST_MEMCPY_ASYNC_D2D] = "memcpy-async-d2d",
    [TOPO_API_COST_MEMCPY_ASYNC_PEER] = "memcpy-async-peer",
    [TOPO_API_COST_EVENT_RECORD] = "event-record",
    [TOPO_API_COST_MALLOC] = "malloc",
    [TOPO_API_COST_SYNC] = "sync",
    [TOPO_API_COST_HOST_FUNCTION] = "host-function",
    [TOPO_API_COST_N] = NULL,
};
static const char *const default_keys[] = { "pcie-link", "switch",
                                            "root-complex", "gpu", "memory",
                                            NULL };
static const char *const socket_keys[] = { "id", "cpu", "memory",
                                           "root-complex", "root-ports", NULL };
static const char *const rootport_keys[] = { "id", "acs", NULL };
static const char *const xs_keys[] = { "between", "bandwidth", "latency",
                                       "queue", NULL };
static const char *const switch_keys[] = { "id", "parent", "ports", "latency",
                                           "queue", "link", "acs", NULL };
static const char *const gpu_keys[] = { "id", "model", "parent", "link",
                                        "p2p-unlocked", "set",
                                        "gpudirect-clique", NULL };
static const char *const link_keys[] = { "speed", "gen", "width", "latency",
                                         "ecrc", "ack-every", "ber",
                                         "replay-timer", "drop", NULL };
static const char *const nvsw_keys[] = { "id", "generation", "ports",
                                         "latency", "bandwidth", NULL };
static const char *const nvl_keys[] = { "between", "links", "latency",
                                        "buffer", NULL };
static const char *const gpu_catalog_keys[] = {
    "p2psim-gpu", "name", "class", "architecture", "compute-capability",
    "memory", "memory-bandwidth", "bar1", "pcie", "nvlink", "copy-engines",
    "sms", "sm-clock", "memory-clock", "memory-bus-width", "l2-cache",
    "atomics", "p2p", "mps", "mrrs", "tags", "ce-setup", "ce-local-setup",
    "hbm-latency", "l2-bandwidth", "rcb", "bar1-page", "sm-outstanding",
    "sm-wc-lines", "sm-wc-timeout", "launch-latency", "cpl-timeout",
    "sources", NULL,
};

/* An id: letters, digits, '-', '_'; not empty; no dots (ports use them). */
static bool id_is_valid(const char *s)
{
    if (!*s) {
        return false;
    }
    for (; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '-' || *s == '_')) {
            return false;
        }
    }
    return true;
}

/* Register the entries of list key (a sequence of mappings with ids). */
static int collect(struct loader *L, const char *key, enum ent_kind kind,
                   const char *const *keys, const char *what)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *seq = ydoc_get(d, L->root, key);
    if (!seq) {
        return 0;
    }
    char ctx[64];
    snprintf(ctx, sizeof(ctx), "'%s'", key);
    int rc = ydoc_expect(d, seq, YAML_SEQUENCE_NODE, ctx, L->err);
    if (rc < 0) {
        return rc;
    }
    for (yaml_node_item_t *it = seq->data.sequence.items.start;
         it < seq->data.sequence.items.top; it++) {
        yaml_node_t *e = ydoc_node(d, *it);
        if ((rc = ydoc_expect(d, e, YAML_MAPPING_NODE, what, L->err)) < 0 ||
            (rc = ydoc_check_keys(d, e, keys, what, L->err)) < 0) {
            return rc;
        }
        yaml_node_t *idn = ydoc_get(d, e, "id");
        const char *id = ydoc_scalar(idn);
        if (!idn) {
            return ydoc_err_at(d, e, L->err, SIM_ENOENT, "%s needs an 'id'", what);
        }
        if (!id || !id_is_valid(id)) {
            return ydoc_err_at(d, idn, L->err, SIM_EINVAL,
                          "'%s' is not a valid id (letters, digits, '-' and "
                          "'_')", id ? id : "?");
        }
        int prev = find_ent(L, id);
        if (prev >= 0) {
            return ydoc_err_at(d, idn, L->err, SIM_EEXIST,
                          "duplicate id '%s' (first used at line %u)", id,
                          ydoc_mark_of(d, L->ent[prev].id_node).line);
        }
        if (L->n_ent == TOPO_MAX_ENTRIES) {
            return ydoc_err_at(d, e, L->err, SIM_ERANGE, "more than %d entries",
                          TOPO_MAX_ENTRIES);
        }
        struct ent *x = &L->ent[L->n_ent++];
        memset(x, 0, sizeof(*x));
        x->kind = kind;
        x->id = id;
        x->n = e;
        x->id_node = idn;
        x->parent = -1;
        for (unsigned p = 0; p < TOPO_MAX_PORTS; p++) {
            x->child[p] = -1;
        }
    }
    return 0;
}

/* "SV RR ..." flags from a list of names. */
static int parse_acs(struct loader *L, yaml_node_t *n, uint16_t *out)
{
    static const struct { const char *name; uint16_t bit; } bits[] = {
        { "SV", PCI_ACS_SV }, { "TB", PCI_ACS_TB }, { "RR", PCI_ACS_RR },
        { "CR", PCI_ACS_CR }, { "UF", PCI_ACS_UF }, { "EC", PCI_ACS_EC },
        { "DT", PCI_ACS_DT },
    };
    struct ydoc *d = &L->doc;
    int rc = ydoc_expect(d, n, YAML_SEQUENCE_NODE, "acs", L->err);
    if (rc < 0) {
        return rc;
    }
    *out = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start;
         it < n->data.sequence.items.top; it++) {
        yaml_node_t *v = ydoc_node(d, *it);
        const char *s = ydoc_scalar(v);
        unsigned i;
        for (i = 0; s && i < sizeof(bits) / sizeof(bits[0]); i++) {
            if (strcmp(s, bits[i].name) == 0) {
                *out |= bits[i].bit;
                break;
            }
        }
        if (!s || i == sizeof(bits) / sizeof(bits[0])) {
            return ydoc_err_at(d, v, L->err, SIM_EINVAL,
                          "'%s' is not an ACS control (SV, TB, RR, CR, UF, "
                          "EC, DT)", s ? s : "?");
        }
    }
    return 0;
}

static int parse_count(struct loader *L, yaml_node_t *n, const char *what,
                       uint64_t min, uint64_t max, uint64_t *out)
{
    const char *s = ydoc_scalar(n);
    char why[200];
    if (!s) {
        return ydoc_err_at(&L->doc, n, L->err, SIM_EINVAL, "%s must be a number",
                      what);
    }
    if (sim_parse_u64(s, out, why, sizeof(why)) < 0) {
        return ydoc_err_at(&L->doc, n, L->err, SIM_EINVAL, "%s: %s", what, why);
    }
    if (*out < min || *out > max) {
        return ydoc_err_at(&L->doc, n, L->err, SIM_ERANGE,
                      "%s: %llu is out of range (%llu to %llu)", what,
                      (unsigned long long)*out, (unsigned long long)min,
                      (unsigned long long)max);
    }
    return 0;
}

/* Socket root ports: a count or a list of {id, acs}. */
static int socket_ports(struct loader *L, struct ent *s)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *rp = ydoc_get(d, s->n, "root-ports");
    if (!rp) {
        return ydoc_err_at(d, s->n, L->err, SIM_ENOENT,
                      "socket '%s' needs 'root-ports' (a count, e.g. 4)", s->id);
    }
    if (rp->type == YAML_SCALAR_NODE) {
        uint64_t n;
        int rc = parse_count(L, rp, "root-ports", 1, 32, &n);
        if (rc < 0) {
            return rc;
        }
        s->n_ports = (unsigned)n;
        for (unsigned i = 0; i < s->n_ports; i++) {
            snprintf(s->port_buf[i], sizeof(s->port_buf[i]), "rp%u", i);
            s->port_name[i] = s->port_buf[i];
        }
        return 0;
    }
    int rc = ydoc_expect(d, rp, YAML_SEQUENCE_NODE, "root-ports", L->err);
    if (rc < 0) {
        return rc;
    }
    for (yaml_node_item_t *it = rp->data.sequence.items.start;
         it < rp->data.sequence.items.top; it++) {
        yaml_node_t *e = ydoc_node(d, *it);
        if (s->n_ports == 32) {
            return ydoc_err_at(d, e, L->err, SIM_ERANGE, "more than 32 root ports");
        }
        unsigned i = s->n_ports++;
        snprintf(s->port_buf[i], sizeof(s->port_buf[i]), "rp%u", i);
        s->port_name[i] = s->port_buf[i];
        if ((rc = ydoc_expect(d, e, YAML_MAPPING_NODE, "a root port", L->err)) < 0 ||
            (rc = ydoc_check_keys(d, e, rootport_keys, "a root port", L->err)) < 0) {
            return rc;
        }
        const char *id = ydoc_scalar(ydoc_get(d, e, "id"));
        if (id) {
            s->port_name[i] = id;
        }
        yaml_node_t *acs = ydoc_get(d, e, "acs");
        if (acs && (rc = parse_acs(L, acs, &s->acs[i])) < 0) {
            return rc;
        }
    }
    return 0;
}

static int switch_ports(struct loader *L, struct ent *w)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *pn = ydoc_get(d, w->n, "ports");
    if (!pn) {
        return ydoc_err_at(d, w->n, L->err, SIM_ENOENT,
                      "switch '%s' needs 'ports' (downstream ports, e.g. 4)",
                      w->id);
    }
    uint64_t n;
    int rc = parse_count(L, pn, "ports", 1, TOPO_MAX_PORTS, &n);
    if (rc < 0) {
        return rc;
    }
    w->n_ports = (unsigned)n;
    for (unsigned i = 0; i < w->n_ports; i++) {
        snprintf(w->port_buf[i], sizeof(w->port_buf[i]), "dp%u", i);
        w->port_name[i] = w->port_buf[i];
    }
    yaml_node_t *acs = ydoc_get(d, w->n, "acs");
    if (!acs) {
        return 0;
    }
    if (acs->type == YAML_SEQUENCE_NODE) {
        uint16_t bits;
        if ((rc = parse_acs(L, acs, &bits)) < 0) {
            return rc;
        }
        for (unsigned i = 0; i < w->n_ports; i++) {
            w->acs[i] = bits;
        }
        return 0;
    }
    if ((rc = ydoc_expect(d, acs, YAML_MAPPING_NODE, "acs", L->err)) < 0) {
        return rc;
    }
    for (yaml_node_pair_t *p = acs->data.mapping.pairs.start;
         p < acs->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = ydoc_node(d, p->key);
        const char *k = ydoc_scalar(kn);
        unsigned i;
        for (i = 0; k && i < w->n_ports; i++) {
            if (strcmp(k, w->port_name[i]) == 0) {
                break;
            }
        }
        if (!k || i == w->n_ports) {
            return ydoc_err_at(d, kn, L->err, SIM_ENOENT,
                          "switch '%s' has no downstream port '%s' (dp0 to "
                          "dp%u)", w->id, k ? k : "?", w->n_ports - 1);
        }
        if ((rc = parse_acs(L, ydoc_node(d, p->value), &w->acs[i])) < 0) {
            return rc;
        }
    }
    return 0;
}

/* ---- parents ----------------------------------------------------------------------------- */

/* Resolve e's parent; explicit ports are taken in pass a, implicit in b. */
static int resolve_parent(struct loader *L, struct ent *e, bool explicit_pass)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *pn = ydoc_get(d, e->n, "parent");
    if (!pn) {
        return explicit_pass ? ydoc_err_at(d, e->n, L->err, SIM_ENOENT,
                                      "%s '%s' has no 'parent' (name a socket "
                                      "or a switch it hangs below)",
                                      e->kind == ENT_GPU ? "GPU" : "switch",
                                      e->id)
                             : 0;
    }
    const char *ref = ydoc_scalar(pn);
    if (!ref) {
        return ydoc_err_at(d, pn, L->err, SIM_EINVAL, "parent must be a name");
    }
    char name[128];
    snprintf(name, sizeof(name), "%s", ref);
    char *dot = strchr(name, '.');
    if ((dot != NULL) != explicit_pass) {
        return 0;
    }
    if (dot) {
        *dot = '\0';
    }
    int pi = find_ent(L, name);
    if (pi < 0) {
        return ydoc_err_at(d, pn, L->err, SIM_ENOENT,
                      "parent '%s' of '%s' does not exist", name, e->id);
    }
    struct ent *p = &L->ent[pi];
    if (p->kind != ENT_SOCKET && p->kind != ENT_SWITCH) {
        return ydoc_err_at(d, pn, L->err, SIM_EINVAL,
                      "parent '%s' of '%s' is a %s: a parent must be a socket "
                      "or a switch", name, e->id,
                      p->kind == ENT_GPU ? "GPU" : "NVSwitch");
    }
    unsigned port = 0;
    if (dot) {
        for (port = 0; port < p->n_ports; port++) {
            if (strcmp(dot + 1, p->port_name[port]) == 0) {
                break;
            }
        }
        if (port == p->n_ports) {
            return ydoc_err_at(d, pn, L->err, SIM_ENOENT,
                          "'%s' has no port '%s' (%s0 to %s%u)", name, dot + 1,
                          p->kind == ENT_SOCKET ? "rp" : "dp",
                          p->kind == ENT_SOCKET ? "rp" : "dp", p->n_ports - 1);
        }
        if (p->child[port] >= 0) {
            return ydoc_err_at(d, pn, L->err, SIM_EBUSY,
                          "port %s.%s already has '%s' below it (line %u): a "
                          "port takes one device", name, dot + 1,
                          L->ent[p->child[port]].id,
                          ydoc_mark_of(d, L->ent[p->child[port]].n).line);
        }
    } else {
        while (port < p->n_ports && p->child[port] >= 0) {
            port++;
        }
        if (port == p->n_ports) {
            return ydoc_err_at(d, pn, L->err, SIM_EBUSY,
                          "'%s' has no free %s left for '%s' (all %u are "
                          "taken): add ports or name another parent", name,
                          p->kind == ENT_SOCKET ? "root port"
                                                : "downstream port",
                          e->id, p->n_ports);
        }
    }
    p->child[port] = (int)(e - L->ent);
    e->parent = pi;
    e->parent_port = port;
    e->parent_node = pn;
    return 0;
}

/* A switch may not be its own ancestor. */
static int check_loops(struct loader *L)
{
    for (unsigned i = 0; i < L->n_ent; i++) {
        struct ent *e = &L->ent[i];
        if (e->kind != ENT_SWITCH) {
            continue;
        }
        int p = e->parent;
        for (unsigned steps = 0; p >= 0; steps++) {
            if (p == (int)i || steps > L->n_ent) {
                return ydoc_err_at(&L->doc, e->parent_node, L->err, SIM_EINVAL,
                              "switch '%s' is its own ancestor (a loop in "
                              "'parent' references)", e->id);
            }
            p = L->ent[p].parent;
        }
    }
    return 0;
}

/* ---- GPU catalog -------------------------------------------------------------------------- */

/* Load catalog entry model into g->catalog. */
static int load_catalog(struct loader *L, struct ent *g, const char *model,
                        yaml_node_t *model_node)
{
    char path[1024];
    char *text = NULL;
    size_t len = 0;
    const char *shown = NULL;
    if (L->opt && L->opt->gpu_dir) {
        snprintf(path, sizeof(path), "%s/%s.yaml", L->opt->gpu_dir, model);
        if ((text = ydoc_read_file(path, &len))) {
            shown = path;
        }
    }
    if (!text && L->dir) {
        snprintf(path, sizeof(path), "%s/gpus/%s.yaml", L->dir, model);
        if ((text = ydoc_read_file(path, &len))) {
            shown = path;
        }
    }
    int rc;
    if (text) {
        rc = ydoc_doc_parse(&g->catalog, shown, text, len, L->err);
        free(text);
    } else {
        char emb[200];
        snprintf(emb, sizeof(emb), "gpus/%s.yaml", model);
        const char *t = topo_embedded_find(emb);
        if (!t) {
            char list[600] = "";
            for (const struct topo_embedded *e = topo_embedded; e->path; e++) {
                size_t used = strlen(list);
                if (strncmp(e->path, "gpus/", 5) == 0 &&
                    used + strlen(e->path) + 3 < sizeof(list)) {
                    /* "gpus/NAME.yaml" -> "NAME" */
                    snprintf(list + used, sizeof(list) - used, "%s%.*s",
                             used ? ", " : "",
                             (int)(strlen(e->path) - 10), e->path + 5);
                }
            }
            return ydoc_err_at(&L->doc, model_node, L->err, SIM_ENOENT,
                          "no GPU catalog entry '%s' (catalog: %s)", model,
                          list);
        }
        char shown_emb[220];
        snprintf(shown_emb, sizeof(shown_emb), "<built-in>/%s", emb);
        rc = ydoc_doc_parse(&g->catalog, shown_emb, t, strlen(t), L->err);
    }
    return rc;
}

/* Catalog (nested) keys to the GPU model's flat properties. */
static int catalog_props(struct loader *L, struct ent *g, struct sim_props *p)
{
    struct ydoc *c = &g->catalog;
    yaml_node_t *root = yaml_document_get_root_node(&c->doc);
    int rc = ydoc_expect(c, root, YAML_MAPPING_NODE, "a GPU catalog entry", L->err);
    if (rc < 0 ||
        (rc = ydoc_check_keys(c, root, gpu_catalog_keys, "a GPU catalog entry",
                         L->err)) < 0) {
        return rc;
    }
    const char *ver = ydoc_scalar(ydoc_get(c, root, "p2psim-gpu"));
    if (!ver || strcmp(ver, "1") != 0) {
        return ydoc_err_at(c, root, L->err, SIM_EINVAL,
                      "a GPU catalog entry starts with 'p2psim-gpu: 1'");
    }
    if (!ydoc_get(c, root, "sources")) {
        return ydoc_err_at(c, root, L->err, SIM_ENOENT,
                      "a GPU catalog entry needs 'sources' (where each figure "
                      "comes from)");
    }
    static const char *const skip[] = { "p2psim-gpu", "pcie", "nvlink",
                                        "atomics", "sources",
                                        "memory-bandwidth", NULL };
    if ((rc = ydoc_add_props(c, root, p, skip, "a GPU catalog entry", L->err)) < 0) {
        return rc;
    }
    yaml_node_t *n;
    if ((n = ydoc_get(c, root, "memory-bandwidth"))) {
        struct sim_mark m = ydoc_mark_of(c, n);
        if ((rc = set_prop(L, p, "hbm-bandwidth", ydoc_scalar(n), &m)) < 0) {
            return rc;
        }
    }
    /* pcie: {speed|gen, width} */
    if ((n = ydoc_get(c, root, "pcie"))) {
        static const char *const k[] = { "speed", "gen", "width", NULL };
        if ((rc = ydoc_expect(c, n, YAML_MAPPING_NODE, "pcie", L->err)) < 0 ||
            (rc = ydoc_check_keys(c, n, k, "pcie", L->err)) < 0) {
            return rc;
        }
        yaml_node_t *s = ydoc_get(c, n, "speed");
        yaml_node_t *gn = ydoc_get(c, n, "gen");
        yaml_node_t *w = ydoc_get(c, n, "width");
        if (s || gn) {
            struct sim_mark m = ydoc_mark_of(c, s ? s : gn);
            char buf[8];
            const char *v = ydoc_scalar(s ? s : gn);
            if (s) {
                if ((rc = ydoc_speed_to_gen(c, s, L->err, buf, sizeof(buf))) < 0) {
                    return rc;
                }
                v = buf;
            }
            if ((rc = set_prop(L, p, "pcie-gen", v, &m)) < 0) {
                return rc;
            }
        }
        if (w) {
            struct sim_mark m = ydoc_mark_of(c, w);
            if ((rc = set_prop(L, p, "pcie-width", ydoc_scalar(w), &m)) < 0) {
                return rc;
            }
        }
    }
    if ((n = ydoc_get(c, root, "nvlink"))) {
        static const char *const k[] = { "links", "generation", "link-rate",
                                         NULL };
        static const char *const to[] = { "nvlink-links", "nvlink-generation",
                                          "nvlink-link-rate", NULL };
        if ((rc = ydoc_expect(c, n, YAML_MAPPING_NODE, "nvlink", L->err)) < 0 ||
            (rc = ydoc_check_keys(c, n, k, "nvlink", L->err)) < 0) {
            return rc;
        }
        for (int i = 0; k[i]; i++) {
            yaml_node_t *v = ydoc_get(c, n, k[i]);
            if (v) {
                struct sim_mark m = ydoc_mark_of(c, v);
                if ((rc = set_prop(L, p, to[i], ydoc_scalar(v), &m)) < 0) {
                    return rc;
                }
            }
        }
    }
    if ((n = ydoc_get(c, root, "atomics"))) {
        static const char *const k[] = { "pcie", "nvlink", NULL };
        static const char *const to[] = { "atomics-pcie", "atomics-nvlink",
                                          NULL };
        if ((rc = ydoc_expect(c, n, YAML_MAPPING_NODE, "atomics", L->err)) < 0 ||
            (rc = ydoc_check_keys(c, n, k, "atomics", L->err)) < 0) {
            return rc;
        }
        for (int i = 0; k[i]; i++) {
            yaml_node_t *v = ydoc_get(c, n, k[i]);
            if (v) {
                struct sim_mark m = ydoc_mark_of(c, v);
                if ((rc = set_prop(L, p, to[i], ydoc_scalar(v), &m)) < 0) {
                    return rc;
                }
            }
        }
    }
    return 0;
}

static unsigned prop_uint(const struct sim_props *p, const char *key,
                          unsigned def)
{
    const struct sim_prop *it = sim_props_find(p, key);
    uint64_t v;
    if (!it) {
        return def;
    }
    const char *s = it->value;
    if (s[0] == 'x' || s[0] == 'X') {
        s++;
    }
    return sim_parse_u64(s, &v, NULL, 0) == 0 ? (unsigned)v : def;
}

static int gpu_setup(struct loader *L, struct ent *g)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *mn = ydoc_get(d, g->n, "model");
    const char *model = ydoc_scalar(mn);
    if (!mn) {
        return ydoc_err_at(d, g->n, L->err, SIM_ENOENT,
                      "GPU '%s' needs a 'model' (a catalog entry such as "
                      "H200-SXM)", g->id);
    }
    if (!model) {
        return ydoc_err_at(d, mn, L->err, SIM_EINVAL, "model must be a name");
    }
    int rc = load_catalog(L, g, model, mn);
    if (rc < 0) {
        return rc;
    }
    char owner[160];
    snprintf(owner, sizeof(owner), "GPU '%s'", g->id);
    g->gpu_props = malloc(sizeof(*g->gpu_props));
    if (!g->gpu_props) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    struct sim_mark where = ydoc_mark_of(d, g->n);
    sim_props_init(g->gpu_props, ydoc_intern(owner), &where);
    if ((rc = catalog_props(L, g, g->gpu_props)) < 0) {
        return rc;
    }
    yaml_node_t *dg = ydoc_get(d, L->defaults, "gpu");
    if ((rc = ydoc_add_props(d, dg, g->gpu_props, NULL, "defaults.gpu", L->err)) < 0 ||
        (rc = ydoc_add_props(d, ydoc_get(d, g->n, "set"), g->gpu_props, NULL, "set",
                        L->err)) < 0) {
        return rc;
    }
    yaml_node_t *un = ydoc_get(d, g->n, "p2p-unlocked");
    if (un) {
        struct sim_mark m = ydoc_mark_of(d, un);
        if ((rc = set_prop(L, g->gpu_props, "p2p-unlocked", ydoc_scalar(un),
                           &m)) < 0) {
            return rc;
        }
    }
    g->max_gen = prop_uint(g->gpu_props, "pcie-gen", 5);
    g->max_width = prop_uint(g->gpu_props, "pcie-width", 16);
    g->nvlinks_have = prop_uint(g->gpu_props, "nvlink-links", 0);
    return 0;
}

/* ---- links ------------------------------------------------------------------------------------ */

/*
 * The pcie-link properties of entry e's upstream link: defaults.pcie-link,
 * then e's link: mapping, with speed converted to gen; checked against a
 * GPU's catalog limits.
 */
static int link_props(struct loader *L, struct ent *e, struct sim_props *p)
{
    struct ydoc *d = &L->doc;
    int rc = ydoc_add_props(d, ydoc_get(d, L->defaults, "pcie-link"), p, NULL,
                       "defaults.pcie-link", L->err);
    if (rc < 0) {
        return rc;
    }
    yaml_node_t *ln = ydoc_get(d, e->n, "link");
    if (ln) {
        if ((rc = ydoc_expect(d, ln, YAML_MAPPING_NODE, "link", L->err)) < 0 ||
            (rc = ydoc_check_keys(d, ln, link_keys, "link", L->err)) < 0) {
            return rc;
        }
        static const char *const skip[] = { "speed", NULL };
        if ((rc = ydoc_add_props(d, ln, p, skip, "link", L->err)) < 0) {
            return rc;
        }
        yaml_node_t *sp = ydoc_get(d, ln, "speed");
        if (sp) {
            char buf[4];
            if ((rc = ydoc_speed_to_gen(d, sp, L->err, buf, sizeof(buf))) < 0) {
                return rc;
            }
            if (ydoc_get(d, ln, "gen")) {
                return ydoc_err_at(d, sp, L->err, SIM_EINVAL,
                              "give either speed or gen, not both");
            }
            struct sim_mark m = ydoc_mark_of(d, sp);
            if ((rc = set_prop(L, p, "gen", buf, &m)) < 0) {
                return rc;
            }
        }
    }
    if (e->kind == ENT_GPU) {
        const struct sim_prop *gp = sim_props_find(p, "gen");
        const struct sim_prop *wp = sim_props_find(p, "width");
        unsigned gen = prop_uint(p, "gen", 0), width = prop_uint(p, "width", 0);
        const struct sim_prop *model = sim_props_find(e->gpu_props, "name");
        const char *mname = model ? model->value : "this GPU";
        if (gp && gen > e->max_gen) {
            return sim_error_set_at(L->err, SIM_EINVAL, gp->mark.file,
                                    gp->mark.line, gp->mark.column,
                                    "link of '%s' is Gen%u but %s supports "
                                    "Gen%u at most", e->id, gen, mname,
                                    e->max_gen);
        }
        if (wp && width > e->max_width) {
            return sim_error_set_at(L->err, SIM_EINVAL, wp->mark.file,
                                    wp->mark.line, wp->mark.column,
                                    "link of '%s' is x%u but %s has x%u at "
                                    "most", e->id, width, mname, e->max_width);
        }
    }
    return 0;
}

/* ---- pass 3: build -------------------------------------------------------------------------- */

static struct sim_props *new_props(struct loader *L, const char *owner,
                                   yaml_node_t *where)
{
    struct sim_props *p = malloc(sizeof(*p));
    if (p) {
        struct sim_mark m = ydoc_mark_of(&L->doc, where);
        sim_props_init(p, ydoc_intern(owner), &m);
    }
    return p;
}

static void free_props(struct sim_props *p)
{
    if (p) {
        sim_props_fini(p);
        free(p);
    }
}

static int set_num(struct sim_props *p, const char *key, unsigned v)
{
    char buf[16];
    snprintf(buf, sizeof(buf), "%u", v);
    return sim_props_set(p, key, buf, NULL, NULL);
}

/* host-bridges: one | per-port, numa: socket | per-port (loader keys). */
static int socket_shape(struct loader *L, yaml_node_t *rcn,
                        struct topo_socket *ts)
{
    static const struct { const char *key, *a, *b; } k[] = {
        { "host-bridges", "one", "per-port" },
        { "numa", "socket", "per-port" },
    };
    for (int i = 0; i < 2; i++) {
        yaml_node_t *v = ydoc_get(&L->doc, rcn, k[i].key);
        if (!v) {
            continue;
        }
        const char *s = ydoc_scalar(v);
        if (!s || (strcmp(s, k[i].a) && strcmp(s, k[i].b))) {
            return ydoc_err_at(&L->doc, v, L->err, SIM_EINVAL,
                          "%s is '%s' or '%s', not '%s'", k[i].key, k[i].a,
                          k[i].b, s ? s : "?");
        }
        bool per_port = strcmp(s, "per-port") == 0;
        if (i == 0) {
            ts->bridge_per_port = per_port;
        } else {
            ts->numa_per_port = per_port;
        }
    }
    return 0;
}

static int build_socket(struct loader *L, struct fab *f, struct ent *s,
                        struct topo_socket *ts)
{
    struct ydoc *d = &L->doc;
    char owner[128];
    snprintf(owner, sizeof(owner), "socket '%s' root-complex", s->id);
    struct sim_props *p = new_props(L, owner, s->n);
    if (!p) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    static const char *const shape_keys[] = { "host-bridges", "numa", NULL };
    snprintf(ts->id, sizeof(ts->id), "%s", s->id);
    int rc = ydoc_add_props(d, ydoc_get(d, L->defaults, "root-complex"), p, shape_keys,
                       "defaults.root-complex", L->err);
    if (rc == 0) {
        rc = socket_shape(L, ydoc_get(d, L->defaults, "root-complex"), ts);
    }
    if (rc == 0) {
        rc = ydoc_add_props(d, ydoc_get(d, s->n, "root-complex"), p, shape_keys,
                       "root-complex", L->err);
    }
    if (rc == 0) {
        rc = socket_shape(L, ydoc_get(d, s->n, "root-complex"), ts);
    }
    if (rc == 0) {
        if (set_num(p, "root-ports", s->n_ports) < 0 ||
            set_num(p, "socket-links", s->n_xs) < 0) {
            rc = sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        } else {
            rc = fab_add(f, "root-complex", s->id, p, L->err) ? 0
                                                              : -SIM_EINVAL;
        }
    }
    free_props(p);
    if (rc < 0) {
        return rc;
    }
    struct sim_component *rcc = fab_find(f, s->id);
    ts->rc = rcc;
    for (unsigned i = 0; i < s->n_ports; i++) {
        if (s->acs[i]) {
            rc_set_acs(rcc, i, s->acs[i]);
        }
    }
    yaml_node_t *mem = ydoc_get(d, s->n, "memory");
    if (!mem) {
        return 0;
    }
    char name[96];
    snprintf(name, sizeof(name), "%s-mem", s->id);
    snprintf(owner, sizeof(owner), "socket '%s' memory", s->id);
    p = new_props(L, owner, mem);
    if (!p) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    rc = ydoc_add_props(d, ydoc_get(d, L->defaults, "memory"), p, NULL,
                   "defaults.memory", L->err);
    if (rc == 0) {
        rc = ydoc_add_props(d, mem, p, NULL, "memory", L->err);
    }
    if (rc == 0 && !fab_add(f, "host-memory", name, p, L->err)) {
        rc = -SIM_EINVAL;
    }
    free_props(p);
    if (rc < 0) {
        return rc;
    }
    char a[128], b[128];
    snprintf(a, sizeof(a), "%s.mem", s->id);
    snprintf(b, sizeof(b), "%s.up", name);
    return fab_connect(f, a, b, "wire", NULL, L->err) ? 0 : -SIM_EINVAL;
}

static int build_device(struct loader *L, struct fab *f, struct ent *e)
{
    struct ydoc *d = &L->doc;
    int rc;
    char owner[128];
    if (e->kind == ENT_SWITCH) {
        snprintf(owner, sizeof(owner), "switch '%s'", e->id);
        struct sim_props *p = new_props(L, owner, e->n);
        if (!p) {
            return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        }
        static const char *const skip[] = { "id", "parent", "link", "acs",
                                            NULL };
        rc = ydoc_add_props(d, ydoc_get(d, L->defaults, "switch"), p, NULL,
                       "defaults.switch", L->err);
        if (rc == 0) {
            rc = ydoc_add_props(d, e->n, p, skip, owner, L->err);
        }
        if (rc == 0 && !fab_add(f, "pcie-switch", e->id, p, L->err)) {
            rc = -SIM_EINVAL;
        }
        free_props(p);
        if (rc < 0) {
            return rc;
        }
        struct sim_component *sw = fab_find(f, e->id);
        for (unsigned i = 0; i < e->n_ports; i++) {
            if (e->acs[i] && psw_set_acs(sw, i, e->acs[i], 0) < 0) {
                return ydoc_err_at(d, ydoc_get(d, e->n, "acs"), L->err, SIM_EINVAL,
                              "switch '%s': ACS controls not supported", e->id);
            }
        }
    } else {
        if (!fab_add(f, "gpu", e->id, e->gpu_props, L->err)) {
            return -SIM_EINVAL;
        }
    }
    return 0;
}

static int build_links(struct loader *L, struct fab *f)
{
    int rc = 0;
    for (unsigned i = 0; i < L->n_ent && rc == 0; i++) {
        struct ent *e = &L->ent[i];
        if (e->kind != ENT_SWITCH && e->kind != ENT_GPU) {
            continue;
        }
        struct ent *p = &L->ent[e->parent];
        char a[160], b[160], owner[128];
        snprintf(a, sizeof(a), "%s.%s%u", p->id,
                 p->kind == ENT_SOCKET ? "rp" : "dp", e->parent_port);
        snprintf(b, sizeof(b), "%s.%s", e->id,
                 e->kind == ENT_GPU ? "pcie" : "up");
        snprintf(owner, sizeof(owner), "link of '%s'", e->id);
        struct sim_props *lp = new_props(L, owner, e->n);
        if (!lp) {
            return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        }
        rc = link_props(L, e, lp);
        if (rc == 0 && !fab_connect(f, a, b, "pcie-link", lp, L->err)) {
            rc = -SIM_EINVAL;
        }
        free_props(lp);
    }
    return rc;
}

static int build_socket_links(struct loader *L, struct fab *f)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *seq = ydoc_get(d, L->root, "socket-links");
    if (!seq) {
        return 0;
    }
    unsigned used[TOPO_MAX_ENTRIES] = { 0 };
    for (yaml_node_item_t *it = seq->data.sequence.items.start;
         it < seq->data.sequence.items.top; it++) {
        yaml_node_t *e = ydoc_node(d, *it);
        yaml_node_t *bn = ydoc_get(d, e, "between");
        int s[2];
        for (int k = 0; k < 2; k++) {
            s[k] = find_ent(L, ydoc_scalar(ydoc_node(d, bn->data.sequence.items.start[k])));
        }
        char a[128], b[128];
        snprintf(a, sizeof(a), "%s.xs%u", L->ent[s[0]].id, used[s[0]]++);
        snprintf(b, sizeof(b), "%s.xs%u", L->ent[s[1]].id, used[s[1]]++);
        struct sim_props *p = new_props(L, "socket link", e);
        if (!p) {
            return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        }
        static const char *const skip[] = { "between", NULL };
        int rc = ydoc_add_props(d, e, p, skip, "socket link", L->err);
        if (rc == 0 && !fab_connect(f, a, b, "socket-link", p, L->err)) {
            rc = -SIM_EINVAL;
        }
        free_props(p);
        if (rc < 0) {
            return rc;
        }
    }
    return 0;
}

/* ---- pass 2 checks for socket links and NVLink -------------------------------------- */

static int check_pair(struct loader *L, yaml_node_t *e, const char *what,
                      int out[2])
{
    struct ydoc *d = &L->doc;
    yaml_node_t *bn = ydoc_get(d, e, "between");
    if (!bn) {
        return ydoc_err_at(d, e, L->err, SIM_ENOENT,
                      "%s needs 'between: [a, b]'", what);
    }
    if (bn->type != YAML_SEQUENCE_NODE ||
        bn->data.sequence.items.top - bn->data.sequence.items.start != 2) {
        return ydoc_err_at(d, bn, L->err, SIM_EINVAL,
                      "between must list exactly two ids, e.g. [cpu0, cpu1]");
    }
    for (int k = 0; k < 2; k++) {
        yaml_node_t *v = ydoc_node(d, bn->data.sequence.items.start[k]);
        const char *id = ydoc_scalar(v);
        out[k] = id ? find_ent(L, id) : -1;
        if (out[k] < 0) {
            return ydoc_err_at(d, v, L->err, SIM_ENOENT, "%s: '%s' does not exist",
                          what, id ? id : "?");
        }
    }
    if (out[0] == out[1]) {
        return ydoc_err_at(d, bn, L->err, SIM_EINVAL,
                      "%s joins '%s' to itself", what, L->ent[out[0]].id);
    }
    return 0;
}

static int check_socket_links(struct loader *L)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *seq = ydoc_get(d, L->root, "socket-links");
    if (!seq) {
        return 0;
    }
    int rc = ydoc_expect(d, seq, YAML_SEQUENCE_NODE, "'socket-links'", L->err);
    for (yaml_node_item_t *it = seq->data.sequence.items.start;
         rc == 0 && it < seq->data.sequence.items.top; it++) {
        yaml_node_t *e = ydoc_node(d, *it);
        int s[2];
        if ((rc = ydoc_expect(d, e, YAML_MAPPING_NODE, "a socket link", L->err)) < 0 ||
            (rc = ydoc_check_keys(d, e, xs_keys, "a socket link", L->err)) < 0 ||
            (rc = check_pair(L, e, "a socket link", s)) < 0) {
            return rc;
        }
        for (int k = 0; k < 2; k++) {
            if (L->ent[s[k]].kind != ENT_SOCKET) {
                return ydoc_err_at(d, ydoc_get(d, e, "between"), L->err, SIM_EINVAL,
                              "a socket link joins sockets; '%s' is not one",
                              L->ent[s[k]].id);
            }
            if (++L->ent[s[k]].n_xs > 7) {
                return ydoc_err_at(d, e, L->err, SIM_ERANGE,
                              "socket '%s' has more than 7 socket links",
                              L->ent[s[k]].id);
            }
        }
    }
    return rc;
}

static int check_nvlinks(struct loader *L, struct topo_machine *m)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *seq = ydoc_get(d, L->root, "nvlinks");
    if (!seq) {
        return 0;
    }
    int rc = ydoc_expect(d, seq, YAML_SEQUENCE_NODE, "'nvlinks'", L->err);
    if (rc < 0) {
        return rc;
    }
    size_t n = (size_t)(seq->data.sequence.items.top -
                        seq->data.sequence.items.start);
    m->nvlink = calloc(n ? n : 1, sizeof(*m->nvlink));
    if (!m->nvlink) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    for (yaml_node_item_t *it = seq->data.sequence.items.start;
         it < seq->data.sequence.items.top; it++) {
        yaml_node_t *e = ydoc_node(d, *it);
        int s[2];
        if ((rc = ydoc_expect(d, e, YAML_MAPPING_NODE, "an NVLink", L->err)) < 0 ||
            (rc = ydoc_check_keys(d, e, nvl_keys, "an NVLink", L->err)) < 0 ||
            (rc = check_pair(L, e, "an NVLink", s)) < 0) {
            return rc;
        }
        uint64_t links = 1;
        yaml_node_t *ln = ydoc_get(d, e, "links");
        if (ln && (rc = parse_count(L, ln, "links", 1, 18, &links)) < 0) {
            return rc;
        }
        for (int k = 0; k < 2; k++) {
            struct ent *x = &L->ent[s[k]];
            if (x->kind != ENT_GPU && x->kind != ENT_NVSWITCH) {
                return ydoc_err_at(d, ydoc_get(d, e, "between"), L->err, SIM_EINVAL,
                              "an NVLink joins GPUs and NVSwitches; '%s' is a "
                              "%s", x->id,
                              x->kind == ENT_SOCKET ? "socket" : "PCIe switch");
            }
            if (x->kind == ENT_NVSWITCH) {
                if (!x->nvlinks_have) {
                    uint64_t ports = 0;
                    yaml_node_t *pn = ydoc_get(d, x->n, "ports");
                    if (!pn) {
                        return ydoc_err_at(d, x->n, L->err, SIM_ENOENT,
                                           "NVSwitch '%s' needs 'ports' (e.g. "
                                           "64)", x->id);
                    }
                    if ((rc = parse_count(L, pn, "ports", 1, 128,
                                          &ports)) < 0) {
                        return rc;
                    }
                    x->nvlinks_have = (unsigned)ports;
                }
                x->nvlinks_used += (unsigned)links;
                if (x->nvlinks_used > x->nvlinks_have) {
                    return ydoc_err_at(d, ln ? ln : e, L->err, SIM_ERANGE,
                                       "NVSwitch '%s' would use %u ports but "
                                       "has %u", x->id, x->nvlinks_used,
                                       x->nvlinks_have);
                }
            }
            if (x->kind == ENT_GPU) {
                x->nvlinks_used += (unsigned)links;
                if (x->nvlinks_used > x->nvlinks_have) {
                    return ydoc_err_at(d, ln ? ln : e, L->err, SIM_ERANGE,
                                  "GPU '%s' would use %u NVLinks but its model "
                                  "has %u", x->id, x->nvlinks_used,
                                  x->nvlinks_have);
                }
            }
        }
        if (L->ent[s[0]].kind == ENT_NVSWITCH &&
            L->ent[s[1]].kind == ENT_NVSWITCH) {
            return ydoc_err_at(d, e, L->err, SIM_EINVAL,
                          "an NVLink between two NVSwitches is not supported");
        }
        struct topo_nvlink *nv = &m->nvlink[m->n_nvlinks++];
        snprintf(nv->a, sizeof(nv->a), "%s", L->ent[s[0]].id);
        snprintf(nv->b, sizeof(nv->b), "%s", L->ent[s[1]].id);
        nv->a_nvswitch = L->ent[s[0]].kind == ENT_NVSWITCH;
        nv->b_nvswitch = L->ent[s[1]].kind == ENT_NVSWITCH;
        nv->links = (unsigned)links;
    }
    return 0;
}

/* ---- pass 3: NVSwitches and NVLinks ---------------------------------------------- */

static int build_nvswitch(struct loader *L, struct fab *f, struct ent *e)
{
    char owner[128];
    snprintf(owner, sizeof(owner), "NVSwitch '%s'", e->id);
    struct sim_props *p = new_props(L, owner, e->n);
    if (!p) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    static const char *const skip[] = { "id", NULL };
    int rc = ydoc_add_props(&L->doc, e->n, p, skip, owner, L->err);
    if (rc == 0 && !fab_add(f, "nvswitch", e->id, p, L->err)) {
        rc = -SIM_EINVAL;
    }
    free_props(p);
    return rc;
}

/* The NVLink generation and per-link rate an end speaks ("" rate: the
 * generation's). */
static int nvl_end(struct loader *L, struct ent *x, unsigned *gen,
                   const char **rate)
{
    *rate = NULL;
    if (x->kind == ENT_GPU) {
        *gen = prop_uint(x->gpu_props, "nvlink-generation", 0);
        const struct sim_prop *r = sim_props_find(x->gpu_props,
                                                  "nvlink-link-rate");
        *rate = r ? r->value : NULL;
        return 0;
    }
    uint64_t g = 0;
    yaml_node_t *gn = ydoc_get(&L->doc, x->n, "generation");
    if (!gn) {
        return ydoc_err_at(&L->doc, x->n, L->err, SIM_ENOENT,
                           "NVSwitch '%s' needs 'generation' (1 to %u)",
                           x->id, NVSW_GEN_MAX);
    }
    int rc = parse_count(L, gn, "generation", 1, NVSW_GEN_MAX, &g);
    *gen = nvsw_gen_nvlink((unsigned)g);
    return rc;
}

/*
 * Each nvlinks: entry becomes one "nvlink" link (a bonded group) from the
 * port of its first link at each end: "gpuN.nvl<k>", "nvswN.p<k>", k the
 * links that end used before. Both ends must speak one generation.
 */
static int build_nvlinks(struct loader *L, struct fab *f)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *seq = ydoc_get(d, L->root, "nvlinks");
    unsigned used[TOPO_MAX_ENTRIES] = { 0 };
    if (!seq) {
        return 0;
    }
    for (yaml_node_item_t *it = seq->data.sequence.items.start;
         it < seq->data.sequence.items.top; it++) {
        yaml_node_t *e = ydoc_node(d, *it);
        yaml_node_t *bn = ydoc_get(d, e, "between");
        int s[2];
        unsigned gen[2];
        const char *rate[2];
        uint64_t links = 1;
        yaml_node_t *ln = ydoc_get(d, e, "links");
        if (ln && parse_count(L, ln, "links", 1, 18, &links) < 0) {
            return -SIM_EINVAL;
        }
        char port[2][160];
        int rc;
        for (int k = 0; k < 2; k++) {
            s[k] = find_ent(L, ydoc_scalar(ydoc_node(d,
                                          bn->data.sequence.items.start[k])));
            struct ent *x = &L->ent[s[k]];
            if ((rc = nvl_end(L, x, &gen[k], &rate[k])) < 0) {
                return rc;
            }
            snprintf(port[k], sizeof(port[k]), "%s.%s%u", x->id,
                     x->kind == ENT_GPU ? "nvl" : "p", used[s[k]]);
            used[s[k]] += (unsigned)links;
        }
        if (gen[0] != gen[1]) {
            return ydoc_err_at(d, bn, L->err, SIM_EINVAL,
                               "'%s' speaks NVLink %u and '%s' NVLink %u: "
                               "an NVLink joins ends of one generation",
                               L->ent[s[0]].id, gen[0], L->ent[s[1]].id,
                               gen[1]);
        }
        struct sim_props *p = new_props(L, "NVLink", e);
        if (!p) {
            return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        }
        static const char *const skip[] = { "between", NULL };
        rc = ydoc_add_props(d, e, p, skip, "NVLink", L->err);
        if (rc == 0 && set_num(p, "generation", gen[0]) < 0) {
            rc = sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        }
        /* GA102 bridges: the GPUs' own per-link rate (the slower end) */
        const char *r = rate[0] ? rate[0] : rate[1];
        if (rc == 0 && r) {
            rc = set_prop(L, p, "link-rate", r, NULL);
        }
        if (rc == 0 && !fab_connect(f, port[0], port[1], "nvlink", p,
                                    L->err)) {
            rc = -SIM_EINVAL;
        }
        free_props(p);
        if (rc < 0) {
            return rc;
        }
    }
    return 0;
}

/* ---- times in a mapping (api-costs, nvlink-power) --------------------------------------- */

/*
 * The time at v, key `key` of mapping `section`, into *ps: a scalar such
 * as `example`, at most max_ps (above it, "is more than <max_text>" and
 * the hint too_big_hint, e.g. a mistyped unit).
 */
static int map_time(struct loader *L, yaml_node_t *v, const char *section,
                    const char *key, const char *example, sim_time_t max_ps,
                    const char *max_text, const char *too_big_hint,
                    sim_time_t *ps)
{
    struct ydoc *d = &L->doc;
    const char *s = ydoc_scalar(v);
    char why[200];
    if (!s) {
        return ydoc_err_at(d, v, L->err, SIM_EINVAL,
                           "%s: %s must be a time (e.g. %s), not %s", section,
                           key, example, ydoc_kind_name(v));
    }
    if (sim_parse_time(s, ps, why, sizeof(why)) < 0) {
        return ydoc_err_at(d, v, L->err, SIM_EINVAL, "%s: %s: %s", section,
                           key, why);
    }
    if (*ps > max_ps) {
        return ydoc_err_at(d, v, L->err, SIM_ERANGE, "%s: %s: %s is more "
                           "than %s%s", section, key, s, max_text,
                           too_big_hint);
    }
    return 0;
}

/* ---- host-side API costs ----------------------------------------------------------------- */

/* A host cost beyond this is taken for a mistyped unit ("5s" for "5us"). */
#define TOPO_API_COST_MAX_PS SIM_PS_PER_S

/* api-costs: { call: 100ns, memcpy-async-d2d: 5.7us, ... } into m. */
static int parse_api_costs(struct loader *L, struct topo_machine *m)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *ac = ydoc_get(d, L->root, "api-costs");
    if (!ac) {
        return 0;
    }
    int rc = ydoc_expect(d, ac, YAML_MAPPING_NODE, "api-costs", L->err);
    if (rc < 0 || (rc = ydoc_check_keys(d, ac, topo_api_cost_names,
                                        "api-costs", L->err)) < 0) {
        return rc;
    }
    for (unsigned c = 0; c < TOPO_API_COST_N; c++) {
        const char *key = topo_api_cost_names[c];
        yaml_node_t *v = ydoc_get(d, ac, key);
        sim_time_t ps;
        if (!v) {
            continue;
        }
        rc = map_time(L, v, "api-costs", key, "5.7us", TOPO_API_COST_MAX_PS,
                      "1s", "; a call's host cost is of microseconds (e.g. "
                      "5.7us)", &ps);
        if (rc < 0) {
            return rc;
        }
        m->api_cost_set[c] = true;
        m->api_cost_ps[c] = ps;
    }
    return 0;
}

/* ---- NVLink power saving ---------------------------------------------------------------- */

/* An NVLink power time beyond this is taken for a mistyped unit. */
#define TOPO_NVL_POWER_MAX_PS (10 * SIM_PS_PER_S)

static const char *const nvl_power_keys[] = { "sleep-after", "wake", "settle",
                                               "settle-rate", NULL };

/* One time of nvlink-power, into *ps. */
static int nvl_power_time(struct loader *L, yaml_node_t *n, const char *key,
                          sim_time_t *ps)
{
    struct ydoc *d = &L->doc;
    const char *example = strcmp(key, "sleep-after") ? "110us" : "48ms";
    yaml_node_t *v = ydoc_get(d, n, key);
    if (!v) {
        return ydoc_err_at(d, n, L->err, SIM_ENOENT,
                           "nvlink-power needs '%s' (a time, e.g. %s)", key,
                           example);
    }
    return map_time(L, v, "nvlink-power", key, example,
                    TOPO_NVL_POWER_MAX_PS, "10s", "", ps);
}

/* nvlink-power: { sleep-after: 48ms, wake: 110us, ... } into m. */
static int parse_nvlink_power(struct loader *L, struct topo_machine *m)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *n = ydoc_get(d, L->root, "nvlink-power");
    if (!n) {
        return 0;
    }
    int rc = ydoc_expect(d, n, YAML_MAPPING_NODE, "nvlink-power", L->err);
    if (rc == 0) {
        rc = ydoc_check_keys(d, n, nvl_power_keys, "nvlink-power", L->err);
    }
    if (rc == 0) {
        rc = nvl_power_time(L, n, "sleep-after", &m->nvl_sleep_after_ps);
    }
    if (rc == 0) {
        rc = nvl_power_time(L, n, "wake", &m->nvl_wake_ps);
    }
    /* settle and settle-rate: both or neither */
    yaml_node_t *st = ydoc_get(d, n, "settle");
    yaml_node_t *sr = ydoc_get(d, n, "settle-rate");
    if (rc == 0 && (st || sr) && !(st && sr)) {
        return ydoc_err_at(d, st ? st : sr, L->err, SIM_ENOENT,
                           "nvlink-power: settle and settle-rate go "
                           "together (e.g. settle: 65us, settle-rate: "
                           "1GB/s)");
    }
    if (rc == 0 && st) {
        rc = nvl_power_time(L, n, "settle", &m->nvl_settle_ps);
    }
    if (rc == 0 && sr) {
        const char *s = ydoc_scalar(sr);
        char why[200];
        if (!s || sim_parse_rate(s, &m->nvl_settle_rate, why,
                                 sizeof(why)) < 0) {
            return ydoc_err_at(d, sr, L->err, SIM_EINVAL,
                               "nvlink-power: settle-rate: %s",
                               s ? why : "must be a rate (e.g. 1GB/s)");
        }
        if (m->nvl_settle_rate == 0) {
            return ydoc_err_at(d, sr, L->err, SIM_ERANGE,
                               "nvlink-power: settle-rate must be above 0");
        }
    }
    return rc;
}

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
static int parse_virtual_machine(struct loader *L, struct topo_machine *m)
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
        yaml_node_t *cn = g->kind == ENT_GPU
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

/* ---- the whole load -------------------------------------------------------------------------- */

static int pass_shape(struct loader *L, struct topo_machine *m)
{
    struct ydoc *d = &L->doc;
    L->root = yaml_document_get_root_node(&d->doc);
    int rc = ydoc_expect(d, L->root, YAML_MAPPING_NODE, "a machine file", L->err);
    if (rc < 0 || (rc = ydoc_check_keys(d, L->root, top_keys, "a machine file",
                                   L->err)) < 0) {
        return rc;
    }
    yaml_node_t *v = ydoc_get(d, L->root, "p2psim-machine");
    if (!v) {
        return ydoc_err_at(d, L->root, L->err, SIM_ENOENT,
                      "a machine file starts with 'p2psim-machine: 1'");
    }
    if (!ydoc_scalar(v) || strcmp(ydoc_scalar(v), "1") != 0) {
        return ydoc_err_at(d, v, L->err, SIM_EINVAL,
                      "schema version '%s' is not supported (this p2psim "
                      "reads version 1)", ydoc_scalar(v) ? ydoc_scalar(v) : "?");
    }
    yaml_node_t *nm = ydoc_get(d, L->root, "name");
    if (!nm) {
        return ydoc_err_at(d, L->root, L->err, SIM_ENOENT,
                      "a machine file needs a 'name'");
    }
    if (!ydoc_scalar(nm)) {
        return ydoc_err_at(d, nm, L->err, SIM_EINVAL, "name must be a value");
    }
    snprintf(m->name, sizeof(m->name), "%s", ydoc_scalar(nm));
    yaml_node_t *desc = ydoc_get(d, L->root, "description");
    if (desc && ydoc_scalar(desc)) {
        m->description = strdup(ydoc_scalar(desc));
    }
    L->defaults = ydoc_get(d, L->root, "defaults");
    if (L->defaults &&
        ((rc = ydoc_expect(d, L->defaults, YAML_MAPPING_NODE, "defaults", L->err)) <
             0 ||
         (rc = ydoc_check_keys(d, L->defaults, default_keys, "defaults", L->err)) <
             0)) {
        return rc;
    }
    yaml_node_t *fm = ydoc_get(d, L->root, "fabric-manager");
    if (fm) {
        const char *s = ydoc_scalar(fm);
        if (!s || (strcmp(s, "running") && strcmp(s, "stopped"))) {
            return ydoc_err_at(d, fm, L->err, SIM_EINVAL,
                          "fabric-manager is 'running' or 'stopped', not '%s'",
                          s ? s : "?");
        }
        m->fabric_manager = strcmp(s, "running") == 0;
    }
    if ((rc = parse_api_costs(L, m)) < 0 ||
        (rc = parse_nvlink_power(L, m)) < 0) {
        return rc;
    }
    if (!ydoc_get(d, L->root, "sockets")) {
        return ydoc_err_at(d, L->root, L->err, SIM_ENOENT,
                      "a machine file needs 'sockets' (at least one)");
    }
    if (!ydoc_get(d, L->root, "gpus")) {
        return ydoc_err_at(d, L->root, L->err, SIM_ENOENT,
                      "a machine file needs 'gpus' (at least one)");
    }
    if ((rc = collect(L, "sockets", ENT_SOCKET, socket_keys, "a socket")) < 0 ||
        (rc = collect(L, "switches", ENT_SWITCH, switch_keys, "a switch")) < 0 ||
        (rc = collect(L, "gpus", ENT_GPU, gpu_keys, "a GPU")) < 0 ||
        (rc = collect(L, "nvswitches", ENT_NVSWITCH, nvsw_keys,
                      "an NVSwitch")) < 0) {
        return rc;
    }
    for (unsigned i = 0; i < L->n_ent; i++) {
        struct ent *e = &L->ent[i];
        if (e->kind == ENT_SOCKET) {
            m->n_sockets++;
            rc = socket_ports(L, e);
        } else if (e->kind == ENT_SWITCH) {
            rc = switch_ports(L, e);
        } else if (e->kind == ENT_NVSWITCH) {
            m->n_nvswitches++;
        }
        if (rc < 0) {
            return rc;
        }
    }
    return parse_virtual_machine(L, m);
}

static int pass_wiring(struct loader *L, struct topo_machine *m)
{
    int rc = 0;
    for (int pass = 1; pass >= 0 && rc == 0; pass--) {
        for (unsigned i = 0; i < L->n_ent && rc == 0; i++) {
            struct ent *e = &L->ent[i];
            if (e->kind == ENT_SWITCH || e->kind == ENT_GPU) {
                rc = resolve_parent(L, e, pass == 1);
            }
        }
    }
    for (unsigned i = 0; i < L->n_ent && rc == 0; i++) {
        if (L->ent[i].kind == ENT_GPU) {
            rc = gpu_setup(L, &L->ent[i]);
        }
    }
    if (rc == 0) {
        rc = check_loops(L);
    }
    if (rc == 0) {
        rc = check_socket_links(L);
    }
    if (rc == 0) {
        rc = check_nvlinks(L, m);
    }
    return rc;
}

static int pass_build(struct loader *L, struct topo_machine *m)
{
    struct sim_config cfg = {
        .engine = L->opt ? L->opt->engine : NULL,
        .seed = L->opt ? L->opt->seed : 0,
        .log_level = SIM_LOG_WARN,
    };
    m->sim = sim_create(&cfg, L->err);
    if (!m->sim) {
        return -SIM_EINVAL;
    }
    m->fab = fab_create(m->sim, L->err);
    if (!m->fab) {
        return -SIM_ENOMEM;
    }
    m->socket = calloc(m->n_sockets ? m->n_sockets : 1, sizeof(*m->socket));
    if (!m->socket) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    int rc = 0;
    unsigned k = 0;
    for (unsigned i = 0; i < L->n_ent && rc == 0; i++) {
        if (L->ent[i].kind == ENT_SOCKET) {
            rc = build_socket(L, m->fab, &L->ent[i], &m->socket[k++]);
        }
    }
    for (unsigned i = 0; i < L->n_ent && rc == 0; i++) {
        struct ent *e = &L->ent[i];
        if (e->kind == ENT_SWITCH || e->kind == ENT_GPU) {
            rc = build_device(L, m->fab, e);
        } else if (e->kind == ENT_NVSWITCH) {
            rc = build_nvswitch(L, m->fab, e);
        }
    }
    if (rc == 0) {
        rc = build_links(L, m->fab);
    }
    if (rc == 0) {
        rc = build_socket_links(L, m->fab);
    }
    if (rc == 0) {
        rc = build_nvlinks(L, m->fab);
    }
    if (rc == 0) {
        fab_set_fabric_manager(m->fab, m->fabric_manager == 1);
        fab_set_nvlink_power(m->fab, m->nvl_sleep_after_ps, m->nvl_wake_ps,
                             m->nvl_settle_ps, m->nvl_settle_rate);
        rc = fab_finalize(m->fab, L->err);
    }
    for (unsigned i = 0; rc == 0 && i < m->n_nvlinks; i++) {
        m->nvlink[i].comp_a = fab_find(m->fab, m->nvlink[i].a);
        m->nvlink[i].comp_b = fab_find(m->fab, m->nvlink[i].b);
    }
    return rc;
}

static void loader_free(struct loader *L)
{
    for (unsigned i = 0; i < L->n_ent; i++) {
        free_props(L->ent[i].gpu_props);
        ydoc_doc_free(&L->ent[i].catalog);
    }
    ydoc_doc_free(&L->doc);
}

struct topo_machine *topo_load_string(const char *name, const char *text,
                                      size_t len,
                                      const struct topo_options *opt,
                                      struct sim_error *err)
{
    struct loader *L = calloc(1, sizeof(*L));
    struct topo_machine *m = calloc(1, sizeof(*m));
    if (!L || !m) {
        free(L);
        free(m);
        sim_error_set(err, SIM_ENOMEM, "out of memory");
        return NULL;
    }
    m->fabric_manager = -1;
    m->file = ydoc_intern(name);
    L->opt = opt;
    L->err = err;
    char *dir = strdup(name);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash) {
        *slash = '\0';
        L->dir = dir;
    } else if (dir) {
        L->dir = ".";
    }
    int rc = ydoc_doc_parse(&L->doc, name, text, len, err);
    if (rc == 0 && opt && opt->overrides) {
        rc = ydoc_apply_overrides(&L->doc, opt->overrides, err);
    }
    if (rc == 0) {
        rc = pass_shape(L, m);
    }
    if (rc == 0) {
        rc = pass_wiring(L, m);
    }
    if (rc == 0) {
        rc = pass_build(L, m);
    }
    loader_free(L);
    free(L);
    free(dir);
    if (rc < 0) {
        topo_machine_destroy(m);
        return NULL;
    }
    return m;
}

struct topo_machine *topo_load_file(const char *path,
                                    const struct topo_options *opt,
                                    struct sim_error *err)
{
    size_t len = 0;
    char *text = ydoc_read_file(path, &len);
    if (!text) {
        int e = errno;
        sim_error_set_at(err, e == ENOMEM ? SIM_ENOMEM : SIM_ENOENT,
                         ydoc_intern(path), 0, 0,
                         "cannot read the machine file: %s", strerror(e));
        return NULL;
    }
    struct topo_machine *m = topo_load_string(path, text, len, opt, err);
    free(text);
    return m;
}

const char *topo_embedded_find(const char *path)
{
    for (const struct topo_embedded *e = topo_embedded; e->path; e++) {
        if (strcmp(e->path, path) == 0) {
            return e->text;
        }
    }
    return NULL;
}

struct topo_machine *topo_load_default(const struct topo_options *opt,
                                       struct sim_error *err)
{
    const char *text = topo_embedded_find(topo_default_machine);
    if (!text) {
        sim_error_set(err, SIM_ENOENT, "no built-in default machine");
        return NULL;
    }
    char name[200];
    snprintf(name, sizeof(name), "<built-in>/%s", topo_default_machine);
    struct topo_options o = opt ? *opt : (struct topo_options){ 0 };
    return topo_load_string(name, text, strlen(text), &o, err);
}

void topo_machine_destroy(struct topo_machine *m)
{
    if (!m) {
        return;
    }
    fab_destroy(m->fab);
    sim_destroy(m->sim);
    free(m->description);
    free(m->nvlink);
    free(m->socket);
    free(m->vm_gpu);
    free(m);
}
