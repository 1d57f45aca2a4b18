/*
 * machine/topology_pcie.c - the PCIe tree of a machine file: sockets (root
 * complexes, their root ports and memory), switches and their downstream
 * ports with ACS controls, parent references, PCIe link properties, and
 * the socket links between sockets (topologies/SCHEMA.md).
 */
#include <config.h>

#include "machine/topology.h"
#include "machine/topology_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "machine/fabric.h"
#include "models/pcie/pcie_regs.h"
#include "models/pcie/rc.h"
#include "models/pcie/switch.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/props.h"

static const char *const rootport_keys[] = { "id", "acs", NULL };
static const char *const xs_keys[] = { "between", "bandwidth", "latency",
                                       "queue", NULL };
static const char *const link_keys[] = { "speed", "gen", "width", "latency",
                                         "ecrc", "ack-every", "ber",
                                         "replay-timer", "drop", NULL };

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

int tl_socket_ports(struct loader *L, struct ent *s)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *rp = ydoc_get(d, s->n, "root-ports");
    if (!rp) {
        return ydoc_err_at(d, s->n, L->err, SIM_ENOENT,
                      "socket '%s' needs 'root-ports' (a count, e.g. 4)", s->id);
    }
    if (rp->type == YAML_SCALAR_NODE) {
        uint64_t n;
        int rc = tl_parse_count(L, rp, "root-ports", 1, 32, &n);
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

int tl_switch_ports(struct loader *L, struct ent *w)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *pn = ydoc_get(d, w->n, "ports");
    if (!pn) {
        return ydoc_err_at(d, w->n, L->err, SIM_ENOENT,
                      "switch '%s' needs 'ports' (downstream ports, e.g. 4)",
                      w->id);
    }
    uint64_t n;
    int rc = tl_parse_count(L, pn, "ports", 1, TOPO_MAX_PORTS, &n);
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
int tl_resolve_parent(struct loader *L, struct ent *e, bool explicit_pass)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *pn = ydoc_get(d, e->n, "parent");
    if (!pn) {
        return explicit_pass ? ydoc_err_at(d, e->n, L->err, SIM_ENOENT,
                                      "%s '%s' has no 'parent' (name a socket "
                                      "or a switch it hangs below)",
                                      tl_noun(e),
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
    int pi = tl_find_ent(L, name);
    if (pi < 0) {
        return ydoc_err_at(d, pn, L->err, SIM_ENOENT,
                      "parent '%s' of '%s' does not exist", name, e->id);
    }
    struct ent *p = &L->ent[pi];
    if (p->kind != MKIND_READ_SOCKET && p->kind != MKIND_READ_SWITCH) {
        return ydoc_err_at(d, pn, L->err, SIM_EINVAL,
                      "parent '%s' of '%s' is a %s: a parent must be a socket "
                      "or a switch", name, e->id,
                      tl_noun(p));
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
                          p->kind == MKIND_READ_SOCKET ? "rp" : "dp",
                          p->kind == MKIND_READ_SOCKET ? "rp" : "dp", p->n_ports - 1);
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
                          p->kind == MKIND_READ_SOCKET ? "root port"
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
int tl_check_loops(struct loader *L)
{
    for (unsigned i = 0; i < L->n_ent; i++) {
        struct ent *e = &L->ent[i];
        if (e->kind != MKIND_READ_SWITCH) {
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

/* ---- links ------------------------------------------------------------------------------------ */

/*
 * The pcie-link properties of entry e's upstream link: defaults.pcie-link,
 * then e's link: mapping, with speed converted to gen; checked against a
 * GPU's catalog limits.
 */
int tl_link_props(struct loader *L, struct ent *e, struct sim_props *p)
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
            if ((rc = tl_set_prop(L, p, "gen", buf, &m)) < 0) {
                return rc;
            }
        }
    }
    if (e->kind == MKIND_READ_GPU) {
        const struct sim_prop *gp = sim_props_find(p, "gen");
        const struct sim_prop *wp = sim_props_find(p, "width");
        unsigned gen = tl_prop_uint(p, "gen", 0), width = tl_prop_uint(p, "width", 0);
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

/* ---- pass 3: build ---- */

/* The root port of socket s named by n (its id, e.g. rp2), or -1. */
static int root_port_named(const struct ent *s, const yaml_node_t *n)
{
    const char *name = ydoc_scalar(n);
    for (unsigned i = 0; name && i < s->n_ports; i++) {
        if (strcmp(name, s->port_name[i]) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* A list of groups of root ports, e.g. [[rp0, rp1], [rp2, rp3]]: each
 * root port in exactly one group; out[i] is root port i's group. */
static int port_groups(struct loader *L, const struct ent *s, yaml_node_t *v,
                       const char *key, uint8_t *out, unsigned *n_groups)
{
    struct ydoc *d = &L->doc;
    bool seen[TOPO_MAX_ROOT_PORTS] = { false };
    unsigned g = 0, n_seen = 0;
    for (yaml_node_item_t *it = v->data.sequence.items.start;
         it < v->data.sequence.items.top; it++, g++) {
        yaml_node_t *grp = ydoc_node(d, *it);
        int rc = ydoc_expect(d, grp, YAML_SEQUENCE_NODE,
                             "a group of root ports", L->err);
        if (rc < 0) {
            return rc;
        }
        for (yaml_node_item_t *jt = grp->data.sequence.items.start;
             jt < grp->data.sequence.items.top; jt++) {
            yaml_node_t *e = ydoc_node(d, *jt);
            int i = root_port_named(s, e);
            if (i < 0 || seen[i]) {
                return ydoc_err_at(d, e, L->err, SIM_EINVAL,
                                   "%s: '%s' is %s of socket '%s' (name "
                                   "each of %s..%s once)", key,
                                   ydoc_scalar(e) ? ydoc_scalar(e) : "?",
                                   i < 0 ? "not a root port"
                                         : "a root port named twice",
                                   s->id, s->port_name[0],
                                   s->port_name[s->n_ports - 1]);
            }
            seen[i] = true;
            out[i] = (uint8_t)g;
            n_seen++;
        }
    }
    if (n_seen != s->n_ports) {
        return ydoc_err_at(d, v, L->err, SIM_EINVAL,
                           "%s: the groups name %u of the %u root ports of "
                           "socket '%s' (put each in one group)", key, n_seen,
                           s->n_ports, s->id);
    }
    *n_groups = g;
    return 0;
}

/* host-bridges: one | per-port | N | groups, numa: socket | per-port | N
 * | groups (loader keys): N splits the root ports, in order, into N
 * groups of equal size. */
static int socket_shape(struct loader *L, yaml_node_t *rcn,
                        const struct ent *s, struct topo_socket *ts)
{
    static const struct { const char *key, *a; } k[] = {
        { "host-bridges", "one" }, { "numa", "socket" },
    };
    for (int i = 0; i < 2; i++) {
        yaml_node_t *v = ydoc_get(&L->doc, rcn, k[i].key);
        if (!v) {
            continue;
        }
        uint8_t *out = i == 0 ? ts->bridge : ts->node;
        unsigned groups = 1;
        const char *str = ydoc_scalar(v);
        if (v->type == YAML_SEQUENCE_NODE) {
            int rc = port_groups(L, s, v, k[i].key, out, &groups);
            if (rc < 0) {
                return rc;
            }
        } else if (str && strcmp(str, k[i].a) == 0) {
            memset(out, 0, TOPO_MAX_ROOT_PORTS);
        } else if (str && strcmp(str, "per-port") == 0) {
            for (unsigned j = 0; j < s->n_ports; j++) {
                out[j] = (uint8_t)j;
            }
            groups = s->n_ports;
        } else if (str && *str >= '0' && *str <= '9') {
            uint64_t n;
            int rc = tl_parse_count(L, v, k[i].key, 1, s->n_ports, &n);
            if (rc < 0) {
                return rc;
            }
            if (s->n_ports % n) {
                return ydoc_err_at(&L->doc, v, L->err, SIM_EINVAL,
                                   "%s: %u root ports of socket '%s' do not "
                                   "split into %u equal groups (list the "
                                   "groups instead)", k[i].key, s->n_ports,
                                   s->id, (unsigned)n);
            }
            for (unsigned j = 0; j < s->n_ports; j++) {
                out[j] = (uint8_t)(j / (s->n_ports / n));
            }
            groups = (unsigned)n;
        } else {
            return ydoc_err_at(&L->doc, v, L->err, SIM_EINVAL,
                               "%s is '%s', 'per-port', a count of equal "
                               "groups or a list of groups of root ports, "
                               "not '%s'", k[i].key, k[i].a,
                               str ? str : ydoc_kind_name(v));
        }
        if (i == 1) {
            ts->n_nodes = groups;
        }
    }
    return 0;
}

int tl_build_socket(struct loader *L, struct fab *f, struct ent *s,
                    struct topo_socket *ts)
{
    struct ydoc *d = &L->doc;
    char owner[128];
    snprintf(owner, sizeof(owner), "socket '%s' root-complex", s->id);
    struct sim_props *p = tl_new_props(L, owner, s->n);
    if (!p) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    static const char *const shape_keys[] = { "host-bridges", "numa", NULL };
    snprintf(ts->id, sizeof(ts->id), "%s", s->id);
    ts->n_ports = s->n_ports;
    ts->n_nodes = 1;
    const char *cpu = ydoc_scalar(ydoc_get(d, s->n, "cpu"));
    snprintf(ts->cpu, sizeof(ts->cpu), "%s", cpu ? cpu : "");
    int rc = ydoc_add_props(d, ydoc_get(d, L->defaults, "root-complex"), p, shape_keys,
                       "defaults.root-complex", L->err);
    if (rc == 0) {
        rc = socket_shape(L, ydoc_get(d, L->defaults, "root-complex"), s,
                          ts);
    }
    if (rc == 0) {
        rc = ydoc_add_props(d, ydoc_get(d, s->n, "root-complex"), p, shape_keys,
                       "root-complex", L->err);
    }
    if (rc == 0) {
        rc = socket_shape(L, ydoc_get(d, s->n, "root-complex"), s, ts);
    }
    if (rc == 0) {
        if (tl_set_num(p, "root-ports", s->n_ports) < 0 ||
            tl_set_num(p, "socket-links", s->n_xs) < 0) {
            rc = sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        } else {
            rc = fab_add(f, "root-complex", s->id, p, L->err) ? 0
                                                              : -SIM_EINVAL;
        }
    }
    tl_free_props(p);
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
    p = tl_new_props(L, owner, mem);
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
    tl_free_props(p);
    if (rc < 0) {
        return rc;
    }
    char a[128], b[128];
    snprintf(a, sizeof(a), "%s.mem", s->id);
    snprintf(b, sizeof(b), "%s.up", name);
    return fab_connect(f, a, b, "wire", NULL, L->err) ? 0 : -SIM_EINVAL;
}

int tl_build_device(struct loader *L, struct fab *f, struct ent *e)
{
    struct ydoc *d = &L->doc;
    int rc;
    char owner[128];
    if (e->kind == MKIND_READ_SWITCH) {
        snprintf(owner, sizeof(owner), "switch '%s'", e->id);
        struct sim_props *p = tl_new_props(L, owner, e->n);
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
        tl_free_props(p);
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
    } else if (e->kind == MKIND_READ_DEVICE) {
        /* an endpoint of the kinds' table: defaults.<its key>, then its
         * entry's keys, as its model's properties */
        snprintf(owner, sizeof(owner), "%s '%s'", e->mk->ops->kind, e->id);
        struct sim_props *p = tl_new_props(L, owner, e->n);
        if (!p) {
            return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        }
        static const char *const skip[] = { "id", "parent", "link", NULL };
        char dflt[96] = "";
        rc = 0;
        if (e->mk->yaml_default) {
            snprintf(dflt, sizeof(dflt), "defaults.%s", e->mk->yaml_default);
            rc = ydoc_add_props(d, ydoc_get(d, L->defaults,
                                            e->mk->yaml_default),
                                p, NULL, dflt, L->err);
        }
        if (rc == 0) {
            rc = ydoc_add_props(d, e->n, p, skip, owner, L->err);
        }
        if (rc == 0 && !fab_add(f, e->mk->ops->kind, e->id, p, L->err)) {
            rc = -SIM_EINVAL;
        }
        tl_free_props(p);
        return rc;
    } else {
        if (!fab_add(f, "gpu", e->id, e->gpu_props, L->err)) {
            return -SIM_EINVAL;
        }
    }
    return 0;
}

int tl_build_links(struct loader *L, struct fab *f)
{
    int rc = 0;
    for (unsigned i = 0; i < L->n_ent && rc == 0; i++) {
        struct ent *e = &L->ent[i];
        if ((e->kind != MKIND_READ_SWITCH && e->kind != MKIND_READ_GPU &&
             e->kind != MKIND_READ_DEVICE) || e->hidden) {
            continue;
        }
        struct ent *p = &L->ent[e->parent];
        char a[160], b[160], owner[128];
        snprintf(a, sizeof(a), "%s.%s%u", p->id,
                 p->kind == MKIND_READ_SOCKET ? "rp" : "dp", e->parent_port);
        snprintf(b, sizeof(b), "%s.%s", e->id,
                 e->mk->pcie ? e->mk->pcie->port : "up");
        snprintf(owner, sizeof(owner), "link of '%s'", e->id);
        struct sim_props *lp = tl_new_props(L, owner, e->n);
        if (!lp) {
            return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        }
        rc = tl_link_props(L, e, lp);
        if (rc == 0 && !fab_connect(f, a, b, "pcie-link", lp, L->err)) {
            rc = -SIM_EINVAL;
        }
        tl_free_props(lp);
    }
    return rc;
}

int tl_build_socket_links(struct loader *L, struct fab *f)
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
            s[k] = tl_find_ent(L, ydoc_scalar(ydoc_node(d, bn->data.sequence.items.start[k])));
        }
        char a[128], b[128];
        snprintf(a, sizeof(a), "%s.xs%u", L->ent[s[0]].id, used[s[0]]++);
        snprintf(b, sizeof(b), "%s.xs%u", L->ent[s[1]].id, used[s[1]]++);
        struct sim_props *p = tl_new_props(L, "socket link", e);
        if (!p) {
            return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        }
        static const char *const skip[] = { "between", NULL };
        int rc = ydoc_add_props(d, e, p, skip, "socket link", L->err);
        if (rc == 0 && !fab_connect(f, a, b, "socket-link", p, L->err)) {
            rc = -SIM_EINVAL;
        }
        tl_free_props(p);
        if (rc < 0) {
            return rc;
        }
    }
    return 0;
}

int tl_check_socket_links(struct loader *L)
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
            (rc = tl_check_pair(L, e, "a socket link", s)) < 0) {
            return rc;
        }
        for (int k = 0; k < 2; k++) {
            if (L->ent[s[k]].kind != MKIND_READ_SOCKET) {
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
