/*
 * tools/validate_case.c - reading a case file of p2psim validate
 * (tools/validate_case.h; format: docs/validate.md). Errors are printed
 * as "path:line:column: error: ..." with the YAML node's position.
 */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "tools/validate_case.h"

/* ---- reading a case ------------------------------------------------------ */

struct reader {
    const char *path;
    yaml_document_t doc;
};

static int rd_err(const struct reader *r, const yaml_node_t *n,
                  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int rd_err(const struct reader *r, const yaml_node_t *n,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (n) {
        fprintf(stderr, "%s:%u:%u: error: ", r->path,
                (unsigned)n->start_mark.line + 1,
                (unsigned)n->start_mark.column + 1);
    } else {
        fprintf(stderr, "%s: error: ", r->path);
    }
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return -1;
}

static yaml_node_t *rd_node(struct reader *r, int i)
{
    return yaml_document_get_node(&r->doc, i);
}

static const char *rd_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
                                            : NULL;
}

static bool rd_is_null(const yaml_node_t *n)
{
    const char *s = rd_scalar(n);
    return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (!*s || !strcmp(s, "null") || !strcmp(s, "~") ||
            !strcmp(s, "Null") || !strcmp(s, "NULL"));
}

/* One row of a matrix into v[0..n); *n set by the first row. */
static int read_row(struct reader *r, yaml_node_t *row, double *v,
                    unsigned n, const char *name)
{
    if (row->type != YAML_SEQUENCE_NODE) {
        return rd_err(r, row, "%s: each row is a list of numbers, [a, b, "
                              "...], with null where not measured", name);
    }
    unsigned len = (unsigned)(row->data.sequence.items.top -
                              row->data.sequence.items.start);
    if (len != n) {
        return rd_err(r, row, "%s: a row of %u cells in a %u x %u matrix",
                      name, len, n, n);
    }
    for (unsigned j = 0; j < n; j++) {
        yaml_node_t *c = rd_node(r, row->data.sequence.items.start[j]);
        const char *s = rd_scalar(c);
        char *end = NULL;
        if (rd_is_null(c)) {
            v[j] = NAN;
            continue;
        }
        v[j] = s ? strtod(s, &end) : NAN;
        if (!s || end == s || *end || !(v[j] > 0)) {
            return rd_err(r, c, "%s: '%s' is not a positive number (or "
                                "null)", name, s ? s : "?");
        }
    }
    return 0;
}

static int read_matrix(struct reader *r, struct vcase *c, yaml_node_t *key,
                       yaml_node_t *m)
{
    const char *name = rd_scalar(key);
    int idx = name ? bwlat_matrix_find(name) : -1;
    if (idx < 0) {
        fprintf(stderr, "%s:%u:%u: error: no matrix '%s'; the names are:",
                r->path, (unsigned)key->start_mark.line + 1,
                (unsigned)key->start_mark.column + 1, name ? name : "?");
        for (int k = 0; k < BWLAT_N_MATRICES; k++) {
            fprintf(stderr, " %s", bwlat_matrices[k].name);
        }
        fprintf(stderr, "\n");
        return -1;
    }
    if (c->measured[idx]) {
        return rd_err(r, key, "matrix '%s' given twice", name);
    }
    if (m->type != YAML_SEQUENCE_NODE) {
        return rd_err(r, m, "%s: a list of rows, each a list of numbers",
                      name);
    }
    unsigned n = (unsigned)(m->data.sequence.items.top -
                            m->data.sequence.items.start);
    if (n > VALIDATE_CASE_MAX_GPUS) {
        return rd_err(r, m, "%s has %u rows; a case has at most %u GPUs",
                      name, n, VALIDATE_CASE_MAX_GPUS);
    }
    if (n == 0 || (c->n && n != c->n)) {
        return rd_err(r, m, "%s has %u rows; %s", name, n,
                      c->n ? "every matrix of a case is N x N for its N "
                             "GPUs" : "a matrix needs rows");
    }
    c->n = n;
    c->measured[idx] = calloc((size_t)n * n, sizeof(double));
    if (!c->measured[idx]) {
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        if (read_row(r, rd_node(r, m->data.sequence.items.start[i]),
                     &c->measured[idx][i * n], n, name) < 0) {
            return -1;
        }
    }
    return 0;
}

/* The machine path, relative to the case file's folder. */
static int set_machine(struct reader *r, struct vcase *c, yaml_node_t *n)
{
    const char *m = rd_scalar(n);
    if (!m || !*m) {
        return rd_err(r, n, "machine: the machine file, relative to this "
                            "case file");
    }
    const char *slash = strrchr(c->path, '/');
    size_t dir = slash && m[0] != '/' ? (size_t)(slash - c->path) + 1 : 0;
    free(c->machine);            /* a key given twice: the last wins */
    c->machine = malloc(dir + strlen(m) + 1);
    if (!c->machine) {
        return -1;
    }
    memcpy(c->machine, c->path, dir);
    strcpy(c->machine + dir, m);
    return 0;
}

static int set_overrides(struct reader *r, struct vcase *c, yaml_node_t *n)
{
    if (n->type != YAML_SEQUENCE_NODE) {
        return rd_err(r, n, "set: a list of \"path=value\" overrides of the "
                            "machine file");
    }
    size_t len = 1;
    for (yaml_node_item_t *i = n->data.sequence.items.start;
         i < n->data.sequence.items.top; i++) {
        const char *s = rd_scalar(rd_node(r, *i));
        if (!s || !strchr(s, '=')) {
            return rd_err(r, rd_node(r, *i), "set: each entry is "
                                             "\"path=value\"");
        }
        len += strlen(s) + 1;
    }
    free(c->overrides);
    c->overrides = calloc(1, len);
    if (!c->overrides) {
        return -1;
    }
    for (yaml_node_item_t *i = n->data.sequence.items.start;
         i < n->data.sequence.items.top; i++) {
        if (i != n->data.sequence.items.start) {
            strcat(c->overrides, "\n");
        }
        strcat(c->overrides, rd_scalar(rd_node(r, *i)));
    }
    return 0;
}

static int read_key(struct reader *r, struct vcase *c, yaml_node_t *k,
                    yaml_node_t *v, bool *has_version)
{
    static const char *const free_keys[] = { "description", "source",
                                             "sources", "notes", "tool",
                                             NULL };
    const char *key = rd_scalar(k);
    for (const char *const *f = free_keys; key && *f; f++) {
        if (!strcmp(key, *f)) {
            return 0;
        }
    }
    if (key && !strcmp(key, "p2psim-case")) {
        *has_version = true;
        return rd_scalar(v) && !strcmp(rd_scalar(v), "1")
                   ? 0
                   : rd_err(r, v, "p2psim-case: this p2psim reads version 1");
    }
    if (key && !strcmp(key, "name")) {
        free(c->name);
        c->name = rd_scalar(v) ? strdup(rd_scalar(v)) : NULL;
        return c->name ? 0 : rd_err(r, v, "name must be a value");
    }
    if (key && !strcmp(key, "machine")) {
        return set_machine(r, c, v);
    }
    if (key && !strcmp(key, "set")) {
        return set_overrides(r, c, v);
    }
    if (key && !strcmp(key, "numElems")) {
        char *end;
        const char *s = rd_scalar(v);
        long x = s ? strtol(s, &end, 10) : 0;
        if (!s || *end || x < 4 || x > INT_MAX / 4) {
            return rd_err(r, v, "numElems: a count of ints, at least 4");
        }
        c->n_elems = (int)x;
        return 0;
    }
    if (key && !strcmp(key, "measured")) {
        if (v->type != YAML_MAPPING_NODE) {
            return rd_err(r, v, "measured: a mapping of matrix names to "
                                "matrices");
        }
        for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
             p < v->data.mapping.pairs.top; p++) {
            if (read_matrix(r, c, rd_node(r, p->key), rd_node(r, p->value)) <
                0) {
                return -1;
            }
        }
        return 0;
    }
    return rd_err(r, k, "unknown key '%s' in a case (p2psim-case, name, "
                        "description, source, tool, machine, set, numElems, "
                        "measured, notes)", key ? key : "?");
}

int validate_case_read(struct vcase *c)
{
    FILE *f = fopen(c->path, "rb");
    if (!f) {
        fprintf(stderr, "%s: error: cannot read the case file: %s\n",
                c->path, strerror(errno));
        return -1;
    }
    int rc = validate_case_read_stream(c, f);
    fclose(f);
    return rc;
}

int validate_case_read_stream(struct vcase *c, FILE *f)
{
    struct reader r = { .path = c->path };
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, f);
    int rc = 0;
    if (!yaml_parser_load(&p, &r.doc)) {
        fprintf(stderr, "%s:%u:%u: error: YAML syntax: %s\n", c->path,
                (unsigned)p.problem_mark.line + 1,
                (unsigned)p.problem_mark.column + 1,
                p.problem ? p.problem : "unreadable");
        yaml_parser_delete(&p);
        return -1;
    }
    yaml_parser_delete(&p);
    yaml_node_t *root = yaml_document_get_root_node(&r.doc);
    bool has_version = false;
    if (!root || root->type != YAML_MAPPING_NODE) {
        rc = rd_err(&r, root, "a case file is a mapping that starts with "
                              "'p2psim-case: 1'");
    }
    for (yaml_node_pair_t *pr = rc == 0 ? root->data.mapping.pairs.start : NULL;
         pr && pr < root->data.mapping.pairs.top && rc == 0; pr++) {
        rc = read_key(&r, c, rd_node(&r, pr->key), rd_node(&r, pr->value),
                      &has_version);
    }
    if (rc == 0 && (!has_version || !c->name || !c->machine || !c->n)) {
        rc = rd_err(&r, root, "a case needs p2psim-case: 1, name, machine "
                              "and measured (at least one matrix)");
    }
    yaml_document_delete(&r.doc);
    return rc;
}

void validate_case_free(struct vcase *c)
{
    free(c->name);
    free(c->machine);
    free(c->overrides);
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        free(c->measured[m]);
        free(c->cells[m]);
        free(c->sim[m]);
        free(c->sim_error[m]);
    }
}
