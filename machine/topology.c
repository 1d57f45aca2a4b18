/*
 * machine/topology.c - the machine-file loader (schema: topologies/SCHEMA.md):
 * its state, the three passes and the entry points.
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
 *
 * The parts, by what they read: topology_pcie.c (sockets, switches, their
 * ports, parents and PCIe links), topology_gpu.c (GPUs and the GPU
 * catalog), topology_nvlink.c (NVSwitches, NVLinks, nvlink-power),
 * topology_kept.c (api-costs, kept unread for the CUDA runtime),
 * topology_vm.c (virtual-machine);
 * topology_yaml.c and topology_override.c hold the document and --set.
 */
#include <config.h>

#include "machine/topology.h"
#include "machine/topology_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include <errno.h>

#include "machine/fabric.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/units.h"

int tl_find_ent(struct loader *L, const char *id)
{
    for (unsigned i = 0; i < L->n_ent; i++) {
        if (strcmp(L->ent[i].id, id) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* sim_props_set, with the loader's error out of memory. */
int tl_set_prop(struct loader *L, struct sim_props *p, const char *key,
                const char *value, const struct sim_mark *m)
{
    if (sim_props_set(p, key, value ? value : "", m, m) < 0) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    return 0;
}

/* Top-level keys besides the kinds' lists (machine/kinds.c: sockets,
 * switches, gpus, nvswitches, ...). */
static const char *const file_keys[] = {
    "p2psim-machine", "name", "description", "sources", "defaults",
    "socket-links", "nvlinks", "fabric-manager", "api-costs",
    "virtual-machine", "nvlink-power", "vms", NULL,
};

/* The valid top-level and defaults: keys: the file's, then each kind's
 * list and defaults key, in the table's order. */
static int valid_keys(struct loader *L)
{
    unsigned nt = 0, nd = 0;
    L->default_keys[nd++] = "pcie-link";
    for (; file_keys[nt]; nt++) {
        L->top_keys[nt] = file_keys[nt];
    }
    const struct mkind *k;
    for (unsigned i = 0; (k = mkind_at(i)); i++) {
        if (nt == TOPO_TOP_KEYS_MAX || nd == TOPO_TOP_KEYS_MAX) {
            return sim_error_set(L->err, SIM_ERANGE, "more than %d kinds of "
                                 "entries", TOPO_TOP_KEYS_MAX);
        }
        if (k->yaml_list) {
            L->top_keys[nt++] = k->yaml_list;
        }
        if (k->yaml_default) {
            L->default_keys[nd++] = k->yaml_default;
        }
    }
    L->top_keys[nt] = NULL;
    L->default_keys[nd] = NULL;
    return 0;
}

const char *tl_noun(const struct ent *e)
{
    switch (e->kind) {
    case MKIND_READ_SOCKET: return "socket";
    case MKIND_READ_SWITCH: return "switch";
    case MKIND_READ_GPU: return "GPU";
    case MKIND_READ_NVSWITCH: return "NVSwitch";
    default: return e->mk->ops->kind;
    }
}

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
static int collect(struct loader *L, const struct mkind *mk)
{
    const char *key = mk->yaml_list, *what = mk->yaml_what;
    const char *const *keys = mk->yaml_keys;
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
        int prev = tl_find_ent(L, id);
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
        x->kind = mk->reader;
        x->mk = mk;
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

int tl_parse_count(struct loader *L, yaml_node_t *n, const char *what,
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
unsigned tl_prop_uint(const struct sim_props *p, const char *key,
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

/* ---- pass 3: build -------------------------------------------------------------------------- */

struct sim_props *tl_new_props(struct loader *L, const char *owner,
                               yaml_node_t *where)
{
    struct sim_props *p = malloc(sizeof(*p));
    if (p) {
        struct sim_mark m = ydoc_mark_of(&L->doc, where);
        sim_props_init(p, ydoc_intern(owner), &m);
    }
    return p;
}

void tl_free_props(struct sim_props *p)
{
    if (p) {
        sim_props_fini(p);
        free(p);
    }
}

int tl_set_num(struct sim_props *p, const char *key, unsigned v)
{
    char buf[16];
    snprintf(buf, sizeof(buf), "%u", v);
    return sim_props_set(p, key, buf, NULL, NULL);
}

/* ---- pass 2 checks for socket links and NVLink -------------------------------------- */

int tl_check_pair(struct loader *L, yaml_node_t *e, const char *what,
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
        out[k] = id ? tl_find_ent(L, id) : -1;
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

/* ---- times in a mapping (nvlink-power) --------------------------------------- */

/*
 * The time at v, key `key` of mapping `section`, into *ps: a scalar such
 * as `example`, at most max_ps (above it, "is more than <max_text>" and
 * the hint too_big_hint, e.g. a mistyped unit).
 */
int tl_map_time(struct loader *L, yaml_node_t *v, const char *section,
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

/* ---- the whole load -------------------------------------------------------------------------- */

static int pass_shape(struct loader *L, struct topo_machine *m)
{
    struct ydoc *d = &L->doc;
    L->root = yaml_document_get_root_node(&d->doc);
    int rc = valid_keys(L);
    if (rc == 0) {
        rc = ydoc_expect(d, L->root, YAML_MAPPING_NODE, "a machine file",
                         L->err);
    }
    if (rc < 0 || (rc = ydoc_check_keys(d, L->root, L->top_keys, "a machine file",
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
         (rc = ydoc_check_keys(d, L->defaults, L->default_keys, "defaults", L->err)) <
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
    if ((rc = tl_keep_sections(L, m)) < 0 ||
        (rc = tl_parse_nvlink_power(L, m)) < 0) {
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
    const struct mkind *k;
    for (unsigned i = 0; (k = mkind_at(i)); i++) {
        if (k->yaml_list && (rc = collect(L, k)) < 0) {
            return rc;
        }
    }
    for (unsigned i = 0; i < L->n_ent; i++) {
        struct ent *e = &L->ent[i];
        if (e->kind == MKIND_READ_SOCKET) {
            m->n_sockets++;
            rc = tl_socket_ports(L, e);
        } else if (e->kind == MKIND_READ_SWITCH) {
            rc = tl_switch_ports(L, e);
        } else if (e->kind == MKIND_READ_NVSWITCH) {
            m->n_nvswitches++;
        }
        if (rc < 0) {
            return rc;
        }
    }
    return tl_parse_virtual_machine(L, m);
}

static int pass_wiring(struct loader *L, struct topo_machine *m)
{
    int rc = 0;
    for (int pass = 1; pass >= 0 && rc == 0; pass--) {
        for (unsigned i = 0; i < L->n_ent && rc == 0; i++) {
            struct ent *e = &L->ent[i];
            if (e->kind == MKIND_READ_SWITCH || e->kind == MKIND_READ_GPU ||
                e->kind == MKIND_READ_DEVICE) {
                rc = tl_resolve_parent(L, e, pass == 1);
            }
        }
    }
    for (unsigned i = 0; i < L->n_ent && rc == 0; i++) {
        if (L->ent[i].kind == MKIND_READ_GPU) {
            rc = tl_gpu_setup(L, &L->ent[i]);
        }
    }
    if (rc == 0) {
        rc = tl_check_loops(L);
    }
    if (rc == 0) {
        rc = tl_check_socket_links(L);
    }
    if (rc == 0) {
        rc = tl_check_nvlinks(L, m);
    }
    if (rc == 0) {
        rc = tl_parse_vms(L, m);
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
        if (L->ent[i].kind == MKIND_READ_SOCKET) {
            rc = tl_build_socket(L, m->fab, &L->ent[i], &m->socket[k++]);
        }
    }
    for (unsigned i = 0; i < L->n_ent && rc == 0; i++) {
        struct ent *e = &L->ent[i];
        if (e->hidden) {
            continue;           /* another VM's GPU */
        }
        if (e->kind == MKIND_READ_SWITCH || e->kind == MKIND_READ_GPU ||
            e->kind == MKIND_READ_DEVICE) {
            rc = tl_build_device(L, m->fab, e);
        } else if (e->kind == MKIND_READ_NVSWITCH) {
            rc = tl_build_nvswitch(L, m->fab, e);
        }
    }
    if (rc == 0) {
        rc = tl_build_links(L, m->fab);
    }
    if (rc == 0) {
        rc = tl_build_socket_links(L, m->fab);
    }
    if (rc == 0) {
        rc = tl_build_nvlinks(L, m->fab);
    }
    if (rc == 0) {
        rc = tl_build_vms(L, m);
    }
    if (rc == 0) {
        fab_set_fabric_manager(m->fab, m->fabric_manager == 1);
        fab_set_nvlink_power(m->fab, m->nvl_sleep_after_ps, m->nvl_wake_ps,
                             m->nvl_settle_ps, m->nvl_settle_rate);
        rc = fab_finalize(m->fab, L->err);
    }
    if (rc == 0) {
        tl_vms_placed(m);
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
        tl_free_props(L->ent[i].gpu_props);
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
    m->guest = -1;
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
    free(m->vms);
    topo_kept_free(m);
    free(m);
}
