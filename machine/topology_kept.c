/*
 * machine/topology_kept.c - the top-level sections of a machine file that
 * the loader keeps, unread, for a layer above libp2psim (topo_kept_names:
 * api-costs:, the host costs of CUDA calls, which the CUDA runtime reads
 * in cuda/cudart/api_costs.c); p2psim_section hands them out. libp2psim
 * knows nothing of what they mean: it checks only their shape (a mapping
 * of plain names without duplicates, of at most P2PSIM_SECTION_MAX_ENTRIES
 * entries) and copies each key and value as written, after the overrides,
 * with its mark, so that the reader reports errors at file:line:column.
 */
#include <config.h>

#include "machine/topology.h"
#include "machine/topology_int.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "machine/p2psim.h"
#include "sim/error.h"
#include "sim/props.h"

static const char *const topo_kept_names[] = { "api-costs", NULL };

static struct p2psim_mark mark_of(const struct ydoc *d, const yaml_node_t *n)
{
    struct sim_mark m = ydoc_mark_of(d, n);
    return (struct p2psim_mark){ m.file, m.line, m.column };
}

/* Section `name` at node sec into *s: its entries and their strings in
 * one block (s->entry). */
static int keep(struct loader *L, const char *name, yaml_node_t *sec,
                struct p2psim_section *s)
{
    struct ydoc *d = &L->doc;
    int rc = ydoc_expect(d, sec, YAML_MAPPING_NODE, name, L->err);
    if (rc < 0 || (rc = ydoc_check_keys(d, sec, NULL, name, L->err)) < 0) {
        return rc;
    }
    yaml_node_pair_t *pairs = sec->data.mapping.pairs.start;
    size_t n = (size_t)(sec->data.mapping.pairs.top - pairs);
    if (n > P2PSIM_SECTION_MAX_ENTRIES) {
        return ydoc_err_at(d, ydoc_node(d, pairs[P2PSIM_SECTION_MAX_ENTRIES].key),
                           L->err, SIM_ERANGE,
                           "%s holds more than %u entries", name,
                           P2PSIM_SECTION_MAX_ENTRIES);
    }
    size_t bytes = n * sizeof(struct p2psim_entry);
    for (size_t i = 0; i < n; i++) {
        const char *v = ydoc_scalar(ydoc_node(d, pairs[i].value));
        bytes += strlen(ydoc_scalar(ydoc_node(d, pairs[i].key))) + 1 +
                 (v ? strlen(v) + 1 : 0);
    }
    struct p2psim_entry *e = calloc(1, bytes ? bytes : 1);
    if (!e) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    char *text = (char *)(e + n);
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *kn = ydoc_node(d, pairs[i].key);
        yaml_node_t *vn = ydoc_node(d, pairs[i].value);
        const char *v = ydoc_scalar(vn);
        size_t len = strlen(ydoc_scalar(kn)) + 1;
        e[i].key = memcpy(text, ydoc_scalar(kn), len);
        text += len;
        if (v) {
            len = strlen(v) + 1;
            e[i].value = memcpy(text, v, len);
            text += len;
        }
        e[i].kind = ydoc_kind_name(vn);
        e[i].key_at = mark_of(d, kn);
        e[i].value_at = mark_of(d, vn);
    }
    *s = (struct p2psim_section){ name, mark_of(d, sec), e, (unsigned)n };
    return 0;
}

int tl_keep_sections(struct loader *L, struct topo_machine *m)
{
    m->kept = calloc(sizeof(topo_kept_names) / sizeof(topo_kept_names[0]),
                     sizeof(*m->kept));
    if (!m->kept) {
        return sim_error_set(L->err, SIM_ENOMEM, "out of memory");
    }
    for (const char *const *name = topo_kept_names; *name; name++) {
        yaml_node_t *sec = ydoc_get(&L->doc, L->root, *name);
        int rc = sec ? keep(L, *name, sec, &m->kept[m->n_kept]) : 0;
        if (rc < 0) {
            return rc;
        }
        m->n_kept += sec != NULL;
    }
    return 0;
}

void topo_kept_free(struct topo_machine *m)
{
    for (unsigned i = 0; m->kept && i < m->n_kept; i++) {
        free((void *)m->kept[i].entry);
    }
    free(m->kept);
}
