/*
 * machine/topology_gpu.c - a machine file's GPUs: the GPU catalog entry
 * each names (topologies/gpus/NAME.yaml, or the built-in copy), its nested
 * keys turned into the GPU model's flat properties, then defaults.gpu and
 * the GPU's own set: on top (topologies/SCHEMA.md, "GPU catalog").
 */
#include <config.h>

#include "machine/topology.h"
#include "machine/topology_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "sim/error.h"
#include "sim/props.h"

static const char *const gpu_catalog_keys[] = {
    "p2psim-gpu", "name", "class", "architecture", "compute-capability",
    "memory", "memory-bandwidth", "bar1", "pcie", "nvlink", "copy-engines",
    "sms", "sm-clock", "memory-clock", "memory-bus-width", "l2-cache",
    "atomics", "compression", "p2p", "mps", "mrrs", "tags", "ce-setup", "ce-local-setup",
    "hbm-latency", "l2-bandwidth", "rcb", "bar1-page", "sm-outstanding",
    "sm-wc-lines", "sm-wc-timeout", "launch-latency", "cpl-timeout",
    "sources", NULL,
};


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
        if ((rc = tl_set_prop(L, p, "hbm-bandwidth", ydoc_scalar(n), &m)) < 0) {
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
            if ((rc = tl_set_prop(L, p, "pcie-gen", v, &m)) < 0) {
                return rc;
            }
        }
        if (w) {
            struct sim_mark m = ydoc_mark_of(c, w);
            if ((rc = tl_set_prop(L, p, "pcie-width", ydoc_scalar(w), &m)) < 0) {
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
                if ((rc = tl_set_prop(L, p, to[i], ydoc_scalar(v), &m)) < 0) {
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
                if ((rc = tl_set_prop(L, p, to[i], ydoc_scalar(v), &m)) < 0) {
                    return rc;
                }
            }
        }
    }
    return 0;
}

int tl_gpu_setup(struct loader *L, struct ent *g)
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
        if ((rc = tl_set_prop(L, g->gpu_props, "p2p-unlocked", ydoc_scalar(un),
                           &m)) < 0) {
            return rc;
        }
    }
    g->max_gen = tl_prop_uint(g->gpu_props, "pcie-gen", 5);
    g->max_width = tl_prop_uint(g->gpu_props, "pcie-width", 16);
    g->nvlinks_have = tl_prop_uint(g->gpu_props, "nvlink-links", 0);
    return 0;
}
