/*
 * machine/topology_override.c - overrides of a machine file: "path=value"
 * settings applied to the parsed YAML document before the loader reads it
 * (topologies/SCHEMA.md, "Overrides"). They are how `p2psim sweep --set`,
 * `p2psim bench --set` and the CUDA shim's P2PSIM_SET change one parameter
 * of a machine without editing its file.
 *
 * A path is a dotted walk over the document:
 *
 *   defaults.switch.latency=150ns        mapping keys
 *   gpus.gpu3.set.mps=128B               a list entry by its id
 *   socket-links.0.bandwidth=32GB/s      a list entry by its index (from 0)
 *   gpus.*.p2p-unlocked=false            every entry of a list
 *   switches.sw0.acs=[RR, CR]            a value is YAML: lists, mappings
 *
 * Missing mappings and keys on the way are created; list entries are never
 * created. The new value replaces whatever was there (a value, a list or a
 * mapping). Nothing is checked here that the loader checks later: an
 * unknown key is reported by the loader's own key checks, a bad value by
 * the model that reads it. So that those errors point at the override and
 * not at the machine file, every node an override adds carries the mark
 * "--set:N:C" (override N, column C of "path=value"); ydoc_mark_of() tells
 * them apart from the file's nodes by their index (ydoc.n_parsed).
 *
 * Model: a path segment never contains '.'; ids cannot (topology.c's
 * id_is_valid), and no key of the schema does.
 */
#include <config.h>

#include "machine/topology_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

/* One override being applied. */
struct ovr {
    struct ydoc *d;
    const char *text;           /* "path=value" (not NUL-terminated) */
    size_t path_len;            /* up to '=' */
    size_t len;                 /* the whole line */
    unsigned line;              /* 1-based number of the override */
    yaml_document_t value;      /* the value, parsed */
    struct sim_error *err;
};

static int ovr_err(struct ovr *o, size_t col0, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* An error at column col0 (0-based) of the override. */
static int ovr_err(struct ovr *o, size_t col0, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = sim_error_vset_at(o->err, code, ydoc_intern(YDOC_OVERRIDE_ORIGIN),
                               o->line, (unsigned)col0 + 1, fmt, ap);
    va_end(ap);
    return rc;
}

/* Give node id the override's mark, at column col0. */
static void mark_node(struct ovr *o, int id, size_t col0)
{
    yaml_node_t *n = ydoc_node(o->d, id);
    n->start_mark.line = o->line - 1;
    n->start_mark.column = col0;
    n->end_mark = n->start_mark;
}

/* Copy node src of the parsed value into the machine document; 0 on
 * failure (out of memory). */
static int copy_value(struct ovr *o, int src, size_t col0)
{
    yaml_node_t *s = yaml_document_get_node(&o->value, src);
    yaml_document_t *doc = &o->d->doc;
    size_t col = col0 + s->start_mark.column;
    int id = 0;
    switch (s->type) {
    case YAML_SCALAR_NODE:
        id = yaml_document_add_scalar(doc, s->tag, s->data.scalar.value,
                                      (int)s->data.scalar.length,
                                      s->data.scalar.style);
        break;
    case YAML_SEQUENCE_NODE:
        id = yaml_document_add_sequence(doc, s->tag, s->data.sequence.style);
        for (int i = 0; id && s->data.sequence.items.start + i <
                                  s->data.sequence.items.top; i++) {
            int item = copy_value(o, s->data.sequence.items.start[i], col0);
            if (!item || !yaml_document_append_sequence_item(doc, id, item)) {
                return 0;
            }
        }
        break;
    case YAML_MAPPING_NODE:
        id = yaml_document_add_mapping(doc, s->tag, s->data.mapping.style);
        for (int i = 0; id && s->data.mapping.pairs.start + i <
                                  s->data.mapping.pairs.top; i++) {
            yaml_node_pair_t p = s->data.mapping.pairs.start[i];
            int k = copy_value(o, p.key, col0);
            int v = k ? copy_value(o, p.value, col0) : 0;
            if (!v || !yaml_document_append_mapping_pair(doc, id, k, v)) {
                return 0;
            }
        }
        break;
    default:
        return 0;
    }
    if (id) {
        mark_node(o, id, col);
    }
    return id;
}

/* A new scalar node for text[pos, pos + len), marked there. */
static int add_key(struct ovr *o, size_t pos, size_t len)
{
    int id = yaml_document_add_scalar(&o->d->doc, NULL,
                                      (yaml_char_t *)(o->text + pos),
                                      (int)len, YAML_PLAIN_SCALAR_STYLE);
    if (id) {
        mark_node(o, id, pos);
    }
    return id;
}

/* The end of the path segment that starts at pos. */
static size_t seg_end(const struct ovr *o, size_t pos)
{
    const char *dot = memchr(o->text + pos, '.', o->path_len - pos);
    return dot ? (size_t)(dot - o->text) : o->path_len;
}

static bool seg_is(const struct ovr *o, size_t pos, size_t end, const char *s)
{
    return s && strlen(s) == end - pos &&
           memcmp(o->text + pos, s, end - pos) == 0;
}

/* The path up to (not including) pos, for messages. */
static int path_upto(const struct ovr *o, size_t pos)
{
    return pos ? (int)pos - 1 : 0;
}

static int walk(struct ovr *o, int node, size_t pos);

/* Set key text[pos, end) of mapping node to the value (the last segment). */
static int set_in_mapping(struct ovr *o, int node, size_t pos, size_t end)
{
    size_t value_col = o->path_len + 1;
    int v = copy_value(o, 1, value_col);
    if (!v) {
        return sim_error_set(o->err, SIM_ENOMEM, "out of memory");
    }
    /* Look the key up after the copy: adding nodes may move them. */
    yaml_node_t *m = ydoc_node(o->d, node);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
         p < m->data.mapping.pairs.top; p++) {
        if (seg_is(o, pos, end, ydoc_scalar(ydoc_node(o->d, p->key)))) {
            p->value = v;
            return 0;
        }
    }
    int k = add_key(o, pos, end - pos);
    if (!k || !yaml_document_append_mapping_pair(&o->d->doc, node, k, v)) {
        return sim_error_set(o->err, SIM_ENOMEM, "out of memory");
    }
    return 0;
}

/* Walk on below key text[pos, end) of mapping node, creating it. */
static int descend_mapping(struct ovr *o, int node, size_t pos, size_t end)
{
    yaml_node_t *m = ydoc_node(o->d, node);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
         p < m->data.mapping.pairs.top; p++) {
        if (seg_is(o, pos, end, ydoc_scalar(ydoc_node(o->d, p->key)))) {
            return walk(o, p->value, end + 1);
        }
    }
    int k = add_key(o, pos, end - pos);
    int sub = k ? yaml_document_add_mapping(&o->d->doc, NULL,
                                            YAML_BLOCK_MAPPING_STYLE)
                : 0;
    if (!sub || !yaml_document_append_mapping_pair(&o->d->doc, node, k, sub)) {
        return sim_error_set(o->err, SIM_ENOMEM, "out of memory");
    }
    mark_node(o, sub, pos);
    return walk(o, sub, end + 1);
}

/* The entries of list node that segment text[pos, end) names. */
static int descend_list(struct ovr *o, int node, size_t pos, size_t end)
{
    yaml_node_t *s = ydoc_node(o->d, node);
    int n = (int)(s->data.sequence.items.top - s->data.sequence.items.start);
    if (seg_is(o, pos, end, "*")) {
        for (int i = 0; i < n; i++) {
            s = ydoc_node(o->d, node);  /* walks add nodes: fetch again */
            int rc = walk(o, s->data.sequence.items.start[i], end + 1);
            if (rc < 0) {
                return rc;
            }
        }
        return 0;
    }
    for (int i = 0; i < n; i++) {
        yaml_node_t *e = ydoc_node(o->d, s->data.sequence.items.start[i]);
        if (seg_is(o, pos, end, ydoc_scalar(ydoc_get(o->d, e, "id")))) {
            return walk(o, s->data.sequence.items.start[i], end + 1);
        }
    }
    char *stop = NULL;
    char num[24] = "";
    if (end - pos < sizeof(num)) {
        memcpy(num, o->text + pos, end - pos);
        num[end - pos] = '\0';
    }
    long idx = num[0] >= '0' && num[0] <= '9' ? strtol(num, &stop, 10) : -1;
    if (stop && *stop == '\0' && idx >= 0 && idx < n) {
        return walk(o, s->data.sequence.items.start[idx], end + 1);
    }
    char ids[400] = "";
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof(ids) - 1; i++) {
        const char *id = ydoc_scalar(
            ydoc_get(o->d, ydoc_node(o->d, s->data.sequence.items.start[i]),
                     "id"));
        if (id) {
            used += (size_t)snprintf(ids + used, sizeof(ids) - used, "%s%s",
                                     used ? ", " : "", id);
        }
    }
    if (n == 0) {
        return ovr_err(o, pos, SIM_ENOENT, "'%.*s' is an empty list",
                       path_upto(o, pos), o->text);
    }
    return ovr_err(o, pos, SIM_ENOENT,
                   "no entry '%.*s' in '%.*s' (name an entry %s%s%sby its "
                   "index 0 to %d, or all of them with *)",
                   (int)(end - pos), o->text + pos, path_upto(o, pos), o->text,
                   used ? "by its id (" : "", ids, used ? "), " : "", n - 1);
}

/* Apply the rest of the path, from pos, at node. */
static int walk(struct ovr *o, int node, size_t pos)
{
    size_t end = seg_end(o, pos);
    if (end == pos) {
        return ovr_err(o, pos, SIM_EINVAL, "empty name in the path '%.*s'",
                       (int)o->path_len, o->text);
    }
    bool last = end == o->path_len;
    yaml_node_t *n = ydoc_node(o->d, node);
    if (n->type == YAML_MAPPING_NODE) {
        return last ? set_in_mapping(o, node, pos, end)
                    : descend_mapping(o, node, pos, end);
    }
    if (n->type == YAML_SEQUENCE_NODE && !last) {
        return descend_list(o, node, pos, end);
    }
    if (n->type == YAML_SEQUENCE_NODE) {
        return ovr_err(o, pos, SIM_EINVAL,
                       "'%.*s' is a list: name an entry (its id, its index or "
                       "*) and then one of its keys",
                       path_upto(o, pos), o->text);
    }
    return ovr_err(o, pos, SIM_EINVAL,
                   "'%.*s' is a value ('%s'), not a mapping: '%.*s' cannot be "
                   "set below it", path_upto(o, pos), o->text,
                   ydoc_scalar(n) ? ydoc_scalar(n) : "", (int)(end - pos),
                   o->text + pos);
}

/* Parse the value part as YAML into o->value. */
static int parse_value(struct ovr *o)
{
    const char *v = o->text + o->path_len + 1;
    size_t vlen = o->len - o->path_len - 1;
    if (vlen == 0) {
        return ovr_err(o, o->path_len + 1, SIM_EINVAL,
                       "no value after '=' in '%.*s'", (int)o->len, o->text);
    }
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        return sim_error_set(o->err, SIM_ENOMEM, "out of memory");
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)v, vlen);
    int rc = 0;
    if (!yaml_parser_load(&p, &o->value)) {
        rc = ovr_err(o, o->path_len + 1 + p.problem_mark.column, SIM_ESYNTAX,
                     "the value '%.*s' is not YAML: %s", (int)vlen, v,
                     p.problem ? p.problem : "unreadable");
    } else if (!yaml_document_get_root_node(&o->value)) {
        yaml_document_delete(&o->value);
        rc = ovr_err(o, o->path_len + 1, SIM_EINVAL, "no value after '='");
    }
    yaml_parser_delete(&p);
    return rc;
}

static int apply_one(struct ydoc *d, const char *text, size_t len,
                     unsigned line, struct sim_error *err)
{
    struct ovr o = { .d = d, .text = text, .len = len, .line = line,
                     .err = err };
    const char *eq = memchr(text, '=', len);
    if (!eq || eq == text) {
        return ovr_err(&o, 0, SIM_EINVAL,
                       "'%.*s' is not PATH=VALUE (e.g. "
                       "defaults.switch.latency=150ns)", (int)len, text);
    }
    o.path_len = (size_t)(eq - text);
    yaml_node_t *root = yaml_document_get_root_node(&d->doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        return 0;   /* the loader reports what the file is instead */
    }
    int rc = parse_value(&o);
    if (rc < 0) {
        return rc;
    }
    rc = walk(&o, 1, 0);    /* node 1: the root */
    yaml_document_delete(&o.value);
    return rc;
}

int ydoc_apply_overrides(struct ydoc *d, const char *overrides,
                         struct sim_error *err)
{
    unsigned line = 0;
    for (const char *s = overrides; s && *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        line++;
        /* Blank lines count (overrides are numbered like lines). */
        size_t b = 0;
        while (b < len && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) {
            b++;
        }
        if (b < len) {
            int rc = apply_one(d, s + b, len - b, line, err);
            if (rc < 0) {
                return rc;
            }
        }
        s = nl ? nl + 1 : s + len;
    }
    return 0;
}
