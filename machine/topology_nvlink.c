/*
 * machine/topology_nvlink.c - NVLink in a machine file: the nvlinks: list
 * checked against the ends' link counts, NVSwitches and bonded "nvlink"
 * links built, and nvlink-power: (topologies/SCHEMA.md).
 */
#include <config.h>

#include "machine/topology.h"
#include "machine/topology_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "machine/fabric.h"
#include "models/nvlink/nvlink.h"
#include "sim/error.h"
#include "sim/props.h"
#include "sim/units.h"

static const char *const nvl_keys[] = { "between", "links", "latency",
                                        "buffer", NULL };

int tl_check_nvlinks(struct loader *L, struct topo_machine *m)
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
            (rc = tl_check_pair(L, e, "an NVLink", s)) < 0) {
            return rc;
        }
        uint64_t links = 1;
        yaml_node_t *ln = ydoc_get(d, e, "links");
        if (ln && (rc = tl_parse_count(L, ln, "links", 1, 18, &links)) < 0) {
            return rc;
        }
        for (int k = 0; k < 2; k++) {
            struct ent *x = &L->ent[s[k]];
            if (x->kind != MKIND_READ_GPU && x->kind != MKIND_READ_NVSWITCH) {
                return ydoc_err_at(d, ydoc_get(d, e, "between"), L->err, SIM_EINVAL,
                              "an NVLink joins GPUs and NVSwitches; '%s' is a "
                              "%s", x->id,
                              x->kind == MKIND_READ_SWITCH ? "PCIe switch"
                                                         : tl_noun(x));
            }
            if (x->kind == MKIND_READ_NVSWITCH) {
                if (!x->nvlinks_have) {
                    uint64_t ports = 0;
                    yaml_node_t *pn = ydoc_get(d, x->n, "ports");
                    if (!pn) {
                        return ydoc_err_at(d, x->n, L->err, SIM_ENOENT,
                                           "NVSwitch '%s' needs 'ports' (e.g. "
                                           "64)", x->id);
                    }
                    if ((rc = tl_parse_count(L, pn, "ports", 1, 128,
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
            if (x->kind == MKIND_READ_GPU) {
                x->nvlinks_used += (unsigned)links;
                if (x->nvlinks_used > x->nvlinks_have) {
                    return ydoc_err_at(d, ln ? ln : e, L->err, SIM_ERANGE,
                                  "GPU '%s' would use %u NVLinks but its model "
                                  "has %u", x->id, x->nvlinks_used,
                                  x->nvlinks_have);
                }
            }
        }
        if (L->ent[s[0]].kind == MKIND_READ_NVSWITCH &&
            L->ent[s[1]].kind == MKIND_READ_NVSWITCH) {
            return ydoc_err_at(d, e, L->err, SIM_EINVAL,
                          "an NVLink between two NVSwitches is not supported");
        }
        struct topo_nvlink *nv = &m->nvlink[m->n_nvlinks++];
        snprintf(nv->a, sizeof(nv->a), "%s", L->ent[s[0]].id);
        snprintf(nv->b, sizeof(nv->b), "%s", L->ent[s[1]].id);
        nv->a_nvswitch = L->ent[s[0]].kind == MKIND_READ_NVSWITCH;
        nv->b_nvswitch = L->ent[s[1]].kind == MKIND_READ_NVSWITCH;
        nv->links = (unsigned)links;
    }
    return 0;
}

/* ---- pass 3: NVSwitches and NVLinks ---------------------------------------------- */

int tl_build_nvswitch(struct loader *L, struct fab *f, struct ent *e)
{
    char owner[128];
    snprintf(owner, sizeof(owner), "NVSwitch '%s'", e->id);
    struct sim_props *p = tl_new_props(L, owner, e->n);
    if (!p) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    static const char *const skip[] = { "id", NULL };
    int rc = ydoc_add_props(&L->doc, e->n, p, skip, owner, L->err);
    if (rc == 0 && !fab_add(f, "nvswitch", e->id, p, L->err)) {
        rc = -SIM_EINVAL;
    }
    tl_free_props(p);
    return rc;
}

/* The NVLink generation and per-link rate an end speaks ("" rate: the
 * generation's). */
static int nvl_end(struct loader *L, struct ent *x, unsigned *gen,
                   const char **rate)
{
    *rate = NULL;
    if (x->kind == MKIND_READ_GPU) {
        *gen = tl_prop_uint(x->gpu_props, "nvlink-generation", 0);
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
    int rc = tl_parse_count(L, gn, "generation", 1, NVSW_GEN_MAX, &g);
    *gen = nvsw_gen_nvlink((unsigned)g);
    return rc;
}

/*
 * Each nvlinks: entry becomes one "nvlink" link (a bonded group) from the
 * port of its first link at each end: "gpuN.nvl<k>", "nvswN.p<k>", k the
 * links that end used before. Both ends must speak one generation.
 */
int tl_build_nvlinks(struct loader *L, struct fab *f)
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
        if (ln && tl_parse_count(L, ln, "links", 1, 18, &links) < 0) {
            return -SIM_EINVAL;
        }
        char port[2][160];
        int rc;
        for (int k = 0; k < 2; k++) {
            s[k] = tl_find_ent(L, ydoc_scalar(ydoc_node(d,
                                          bn->data.sequence.items.start[k])));
            struct ent *x = &L->ent[s[k]];
            if ((rc = nvl_end(L, x, &gen[k], &rate[k])) < 0) {
                return rc;
            }
            snprintf(port[k], sizeof(port[k]), "%s.%s%u", x->id,
                     x->kind == MKIND_READ_GPU ? "nvl" : "p", used[s[k]]);
            used[s[k]] += (unsigned)links;
        }
        if (gen[0] != gen[1]) {
            return ydoc_err_at(d, bn, L->err, SIM_EINVAL,
                               "'%s' speaks NVLink %u and '%s' NVLink %u: "
                               "an NVLink joins ends of one generation",
                               L->ent[s[0]].id, gen[0], L->ent[s[1]].id,
                               gen[1]);
        }
        struct sim_props *p = tl_new_props(L, "NVLink", e);
        if (!p) {
            return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        }
        static const char *const skip[] = { "between", NULL };
        rc = ydoc_add_props(d, e, p, skip, "NVLink", L->err);
        if (rc == 0 && tl_set_num(p, "generation", gen[0]) < 0) {
            rc = sim_error_set(L->err, SIM_ENOMEM, "out of memory");
        }
        /* GA102 bridges: the GPUs' own per-link rate (the slower end) */
        const char *r = rate[0] ? rate[0] : rate[1];
        if (rc == 0 && r) {
            rc = tl_set_prop(L, p, "link-rate", r, NULL);
        }
        if (rc == 0 && !fab_connect(f, port[0], port[1], "nvlink", p,
                                    L->err)) {
            rc = -SIM_EINVAL;
        }
        tl_free_props(p);
        if (rc < 0) {
            return rc;
        }
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
    return tl_map_time(L, v, "nvlink-power", key, example,
                    TOPO_NVL_POWER_MAX_PS, "10s", "", ps);
}

/* nvlink-power: { sleep-after: 48ms, wake: 110us, ... } into m. */
int tl_parse_nvlink_power(struct loader *L, struct topo_machine *m)
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
