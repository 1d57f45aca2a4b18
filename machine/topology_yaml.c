/*
 * machine/topology_yaml.c - YAML documents for the machine-file loader: a
 * libyaml document that keeps every node's mark, and accessors that check
 * types, duplicate and unknown keys and report errors at file:line:column.
 */
#include <config.h>

#include "machine/topology_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "sim/props.h"

/* ---- interned file names (error marks outlive the load) -------------------- */

/*
 * Interned strings live as long as the process: error marks point at file
 * names after the load that made them is gone. Loads may run on several
 * threads (sweeps), hence the lock.
 */
const char *ydoc_intern(const char *s)
{
    static struct interned {
        struct interned *next;
        char s[];
    } *list;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    const char *found = NULL;
    pthread_mutex_lock(&lock);
    for (struct interned *i = list; i && !found; i = i->next) {
        if (strcmp(i->s, s) == 0) {
            found = i->s;
        }
    }
    if (!found) {
        struct interned *n = malloc(sizeof(*n) + strlen(s) + 1);
        if (n) {
            strcpy(n->s, s);
            n->next = list;
            list = n;
            found = n->s;
        }
    }
    pthread_mutex_unlock(&lock);
    return found ? found : "?";
}

/* ---- a parsed document -------------------------------------------------------------- */

yaml_node_t *ydoc_node(struct ydoc *d, int i)
{
    return i ? yaml_document_get_node(&d->doc, i) : NULL;
}

struct sim_mark ydoc_mark_of(const struct ydoc *d, const yaml_node_t *n)
{
    struct sim_mark m = { d->file, 0, 0 };
    if (n && d->n_parsed && (size_t)(n - d->doc.nodes.start) >= d->n_parsed) {
        m.file = ydoc_intern(YDOC_OVERRIDE_ORIGIN);
    }
    if (n) {
        m.line = (unsigned)n->start_mark.line + 1;
        m.column = (unsigned)n->start_mark.column + 1;
    }
    return m;
}

int ydoc_err_at(struct ydoc *d, const yaml_node_t *n, struct sim_error *err,
                  int code, const char *fmt, ...)
{
    struct sim_mark m = ydoc_mark_of(d, n);
    va_list ap;
    va_start(ap, fmt);
    int rc = sim_error_vset_at(err, code, m.file, m.line, m.column, fmt, ap);
    va_end(ap);
    return rc;
}

int ydoc_doc_parse(struct ydoc *d, const char *file, const char *text,
                     size_t len, struct sim_error *err)
{
    memset(d, 0, sizeof(*d));
    d->file = ydoc_intern(file);
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        return sim_error_set(err, SIM_ENOMEM, "out of memory (YAML parser)");
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int rc = 0;
    if (!yaml_parser_load(&p, &d->doc)) {
        const yaml_mark_t *m = &p.problem_mark;
        char ctx[160] = "";
        if (p.context) {
            snprintf(ctx, sizeof(ctx), " (%s at line %u)", p.context,
                     (unsigned)p.context_mark.line + 1);
        }
        rc = sim_error_set_at(err, SIM_ESYNTAX, d->file, (unsigned)m->line + 1,
                              (unsigned)m->column + 1, "YAML syntax: %s%s",
                              p.problem ? p.problem : "unreadable", ctx);
    } else {
        d->loaded = true;
        d->n_parsed = (size_t)(d->doc.nodes.top - d->doc.nodes.start);
        if (!yaml_document_get_root_node(&d->doc)) {
            rc = sim_error_set_at(err, SIM_ESYNTAX, d->file, 1, 1,
                                  "the file is empty");
        }
    }
    yaml_parser_delete(&p);
    return rc;
}

void ydoc_doc_free(struct ydoc *d)
{
    if (d->loaded) {
        yaml_document_delete(&d->doc);
        d->loaded = false;
    }
}

const char *ydoc_scalar(const yaml_node_t *n)
{
    return (n && n->type == YAML_SCALAR_NODE) ? (const char *)n->data.scalar.value
                                              : NULL;
}

const char *ydoc_kind_name(const yaml_node_t *n)
{
    if (!n) {
        return "nothing";
    }
    switch (n->type) {
    case YAML_SCALAR_NODE: return "a value";
    case YAML_SEQUENCE_NODE: return "a list";
    case YAML_MAPPING_NODE: return "a mapping";
    default: return "nothing";
    }
}

int ydoc_expect(struct ydoc *d, const yaml_node_t *n, yaml_node_type_t t,
                  const char *what, struct sim_error *err)
{
    if (n && n->type == t) {
        return 0;
    }
    static const char *const names[] = { "", "a value", "a list", "a mapping" };
    return ydoc_err_at(d, n, err, SIM_EINVAL, "%s must be %s, not %s", what,
                  names[t], ydoc_kind_name(n));
}

/* The value of key in mapping m, or NULL (and *key_node the key). */
yaml_node_t *ydoc_get(struct ydoc *d, yaml_node_t *m, const char *key)
{
    if (!m || m->type != YAML_MAPPING_NODE) {
        return NULL;
    }
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
         p < m->data.mapping.pairs.top; p++) {
        const char *k = ydoc_scalar(ydoc_node(d, p->key));
        if (k && strcmp(k, key) == 0) {
            return ydoc_node(d, p->value);
        }
    }
    return NULL;
}

/* An error if key k (of pair p) already appeared earlier in mapping m. */
static int duplicate_key(struct ydoc *d, yaml_node_t *m, yaml_node_pair_t *p,
                         const char *k, const char *what,
                         struct sim_error *err)
{
    for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < p; q++) {
        const char *k2 = ydoc_scalar(ydoc_node(d, q->key));
        if (k2 && strcmp(k, k2) == 0) {
            return ydoc_err_at(d, ydoc_node(d, p->key), err, SIM_EEXIST,
                               "duplicate key '%s' in %s (first at line %u)",
                               k, what,
                               ydoc_mark_of(d, ydoc_node(d, q->key)).line);
        }
    }
    return 0;
}

/*
 * Check mapping m's keys against a NULL-terminated list: duplicates and
 * unknown keys (with the closest valid one) are errors at the key. With
 * valid NULL (a section kept for the layers above, topology_kept.c) any
 * plain name is known.
 */
int ydoc_check_keys(struct ydoc *d, yaml_node_t *m, const char *const *valid,
                      const char *what, struct sim_error *err)
{
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
         p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = ydoc_node(d, p->key);
        const char *k = ydoc_scalar(kn);
        if (!k) {
            return ydoc_err_at(d, kn, err, SIM_EINVAL, "keys of %s must be plain "
                                                  "names", what);
        }
        int dup = duplicate_key(d, m, p, k, what, err);
        if (dup < 0) {
            return dup;
        }
        if (!valid) {
            continue;
        }
        const char *best = NULL;
        unsigned best_d = 99;
        bool ok = false;
        for (const char *const *v = valid; *v; v++) {
            if (strcmp(*v, k) == 0) {
                ok = true;
                break;
            }
            unsigned dist = sim_edit_distance(k, *v);
            if (dist < best_d) {
                best_d = dist;
                best = *v;
            }
        }
        if (!ok) {
            if (best && best_d <= 3) {
                return ydoc_err_at(d, kn, err, SIM_ENOENT,
                              "unknown key '%s' in %s (did you mean '%s'?)", k,
                              what, best);
            }
            return ydoc_err_at(d, kn, err, SIM_ENOENT, "unknown key '%s' in %s", k,
                          what);
        }
    }
    return 0;
}

/*
 * Add mapping m's scalar entries to props (keeping marks), except the keys
 * in skip (which are recorded as valid for hints). Later calls override.
 */
int ydoc_add_props(struct ydoc *d, yaml_node_t *m, struct sim_props *props,
                     const char *const *skip, const char *what,
                     struct sim_error *err)
{
    if (!m) {
        return 0;
    }
    int rc = ydoc_expect(d, m, YAML_MAPPING_NODE, what, err);
    if (rc < 0) {
        return rc;
    }
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
         p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = ydoc_node(d, p->key), *vn = ydoc_node(d, p->value);
        const char *k = ydoc_scalar(kn);
        bool skipped = false;
        for (const char *const *s = skip; s && *s; s++) {
            if (k && strcmp(k, *s) == 0) {
                skipped = true;
            }
        }
        if (!k || skipped) {
            continue;
        }
        int dup = duplicate_key(d, m, p, k, what, err);
        if (dup < 0) {
            return dup;
        }
        const char *v = ydoc_scalar(vn);
        if (!v) {
            return ydoc_err_at(d, vn, err, SIM_EINVAL, "%s: '%s' must be a value, "
                                                  "not %s", what, k,
                          ydoc_kind_name(vn));
        }
        struct sim_mark vm = ydoc_mark_of(d, vn), km = ydoc_mark_of(d, kn);
        if (sim_props_set(props, k, v, &vm, &km) < 0) {
            return sim_error_set(err, SIM_ENOMEM, "out of memory");
        }
    }
    for (const char *const *s = skip; s && *s; s++) {
        sim_props_expect(props, *s);
    }
    return 0;
}

char *ydoc_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                errno = ENOMEM; /* the caller tells it from a missing file */
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            break;
        }
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* "16GT/s" -> "4" (the generation), or an error at the value. */
int ydoc_speed_to_gen(struct ydoc *d, yaml_node_t *n, struct sim_error *err,
                        char *buf, size_t len)
{
    static const char *const speeds[] = { "2.5GT/s", "5GT/s", "8GT/s",
                                          "16GT/s", "32GT/s", "64GT/s" };
    const char *v = ydoc_scalar(n);
    for (unsigned i = 0; v && i < 6; i++) {
        if (strcmp(v, speeds[i]) == 0) {
            snprintf(buf, len, "%u", i + 1);
            return 0;
        }
    }
    return ydoc_err_at(d, n, err, SIM_EINVAL,
                  "'%s' is not a PCIe speed (2.5GT/s, 5GT/s, 8GT/s, 16GT/s, "
                  "32GT/s or 64GT/s)", v ? v : "?");
}

