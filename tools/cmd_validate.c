/*
 * tools/cmd_validate.c - `p2psim validate CASE.yaml...`: run the
 * p2pBandwidthLatencyTest measurements on the machine a case names and
 * compare them, cell by cell, with what was measured on the real machine
 * (case format: docs/validate.md; cases: data/calibration/).
 *
 * Only the cells a case gives are simulated (a case with one measured row
 * costs one row). The relative error of a cell is (simulated - measured)
 * / measured; summaries take its magnitude, over off-diagonal cells only
 * (the diagonal is a GPU's own memory, not the fabric). The last line is
 * "median error: X% max error: Y%" over every case given.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "api/p2psim.h"
#include "tools/bwlat.h"
#include "tools/cli.h"

#define VALIDATE_DEFAULT_ELEMS 40000000 /* the sample's default, 160 MB */

struct vcase {
    const char *path;           /* the case file, as given */
    char *name;
    char *machine;              /* resolved against the case's folder */
    char *overrides;            /* "path=value" lines, or NULL */
    int n_elems;                /* 0: --numElems */
    unsigned n;                 /* GPUs */
    double *measured[BWLAT_N_MATRICES];     /* n x n; NaN: not measured */
    uint8_t *cells[BWLAT_N_MATRICES];       /* n x n: measured */
    /* The simulation, a child process per matrix: its values, or why it
     * failed. */
    double *sim[BWLAT_N_MATRICES];
    char *sim_error[BWLAT_N_MATRICES];
};

/* One matrix of one case, simulated in a child process. */
struct vjob {
    struct vcase *c;
    int m;
    struct bwlat_job job;
};

static void validate_usage(FILE *f)
{
    fprintf(f,
        "usage: p2psim validate [OPTIONS] CASE.yaml...\n\n"
        "Compare the simulator with measurements. A case file names its "
        "source, the\nmachine file it was measured on, and the "
        "p2pBandwidthLatencyTest matrices\nthat were measured (format: "
        "docs/validate.md; cases: data/calibration/).\nThe same "
        "measurements run on the simulated machine, through the CUDA "
        "runtime\nAPI, for the cells each case gives; printed are the "
        "measured and simulated\nvalue and the relative error of every "
        "cell, a summary per matrix and case,\nand last the median and "
        "maximum error over all measured off-diagonal cells:\n"
        "  median error: X%% max error: Y%%\n\n"
        "options:\n"
        "  --fidelity F     tlp (default) or flow\n"
        "  --numElems N     ints per bandwidth buffer, for every case "
        "(default: the\n"
        "                   case's numElems, else the sample's %d);\n"
        "                   smaller runs faster, but staged copies (P2P\n"
        "                   disabled) pipeline through host memory in 2 MiB\n"
        "                   chunks and need large copies to reach their "
        "rate\n"
        "  --jobs N         simulate N matrices at once (default 1)\n"
        "  --csv FILE       write every cell: case, matrix, source, "
        "destination,\n"
        "                   measured, simulated, relative error\n"
        "  --fail-above P   exit 1 when the median error exceeds P "
        "percent\n"
        "  --check          read the cases and load their machines; "
        "simulate nothing\n",
        VALIDATE_DEFAULT_ELEMS);
}

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

static int read_case(struct vcase *c)
{
    struct reader r = { .path = c->path };
    FILE *f = fopen(c->path, "rb");
    if (!f) {
        fprintf(stderr, "%s: error: cannot read the case file: %s\n",
                c->path, strerror(errno));
        return -1;
    }
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
        fclose(f);
        return -1;
    }
    yaml_parser_delete(&p);
    fclose(f);
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

/* ---- checking against the machine ---------------------------------------- */

static int check_machine(struct vcase *c, const char *fidelity)
{
    struct p2psim_options opt = { .fidelity = fidelity,
                                  .overrides = c->overrides };
    struct p2psim *p = cli_open_opt(c->machine, &opt);
    if (!p) {
        fprintf(stderr, "%s: error: its machine %s does not load (above)\n",
                c->path, c->machine);
        return -1;
    }
    unsigned g = p2psim_gpu_count(p);
    p2psim_close(p);
    if (g != c->n) {
        fprintf(stderr, "%s: error: the matrices are %u x %u, but %s has "
                        "%u GPUs\n", c->path, c->n, c->n, c->machine, g);
        return -1;
    }
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        if (!c->measured[m]) {
            continue;
        }
        c->cells[m] = calloc((size_t)c->n * c->n, 1);
        if (!c->cells[m]) {
            return -1;
        }
        for (unsigned k = 0; k < c->n * c->n; k++) {
            c->cells[m][k] = !isnan(c->measured[m][k]);
        }
    }
    return 0;
}

/* ---- comparing ----------------------------------------------------------- */

/* Errors (magnitudes, %) collected for a median. */
struct errs {
    double *v;
    size_t n, cap;
};

static int errs_add(struct errs *e, double x)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 64;
        double *v = realloc(e->v, cap * sizeof(*v));
        if (!v) {
            return -1;
        }
        e->v = v;
        e->cap = cap;
    }
    e->v[e->n++] = x;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void errs_summary(struct errs *e, double *median, double *max)
{
    *median = *max = NAN;
    if (e->n == 0) {
        return;
    }
    qsort(e->v, e->n, sizeof(double), cmp_double);
    *median = e->n % 2 ? e->v[e->n / 2]
                       : (e->v[e->n / 2 - 1] + e->v[e->n / 2]) / 2;
    *max = e->v[e->n - 1];
}

static void print_summary(const char *what, struct errs *e)
{
    double med, max;
    errs_summary(e, &med, &max);
    if (e->n) {
        printf("%s: %zu off-diagonal cell%s, median error %.1f%%, max error "
               "%.1f%%\n", what, e->n, e->n == 1 ? "" : "s", med, max);
    } else {
        printf("%s: no off-diagonal cells\n", what);
    }
}

/* Compare matrix m of case c; adds to the case's and the total errors. */
static int compare_matrix(const struct vcase *c, int m, FILE *csv,
                          struct errs *all, struct errs *cse)
{
    const struct bwlat_matrix_info *mi = &bwlat_matrices[m];
    const double *meas = c->measured[m], *sim = c->sim[m];
    struct errs mine = { 0 };
    printf("\n%s (%s)\n", mi->name, mi->unit);
    if (!sim) {
        printf("  simulation failed: %s\n",
               c->sim_error[m] ? c->sim_error[m] : "no result");
        return 1;
    }
    printf("    src -> dst    measured   simulated     error\n");
    for (unsigned i = 0; i < c->n; i++) {
        for (unsigned j = 0; j < c->n; j++) {
            double x = meas[i * c->n + j], y = sim ? sim[i * c->n + j] : NAN;
            if (isnan(x)) {
                continue;
            }
            double err = (y - x) / x * 100;
            printf("    %3u -> %-3u  %10.2f  %10.2f  %+7.1f%%%s\n", i, j, x, y,
                   err, i == j ? "  (diagonal)" : "");
            if (csv) {
                fprintf(csv, "%s,%s,%u,%u,%.4f,%.4f,%.4f\n", c->name,
                        mi->name, i, j, x, y, err);
            }
            if (i != j && !isnan(err) &&
                (errs_add(&mine, fabs(err)) < 0 ||
                 errs_add(cse, fabs(err)) < 0 ||
                 errs_add(all, fabs(err)) < 0)) {
                free(mine.v);
                return -1;
            }
        }
    }
    char what[200];
    snprintf(what, sizeof(what), "  %s", mi->name);
    print_summary(what, &mine);
    free(mine.v);
    return 0;
}

static int report_case(const struct vcase *c, const char *fidelity,
                       int n_elems, FILE *csv, struct errs *all)
{
    printf("== %s (%s)\nmachine %s%s%s, %u GPUs, fidelity %s, numElems %d\n",
           c->name, c->path, c->machine, c->overrides ? " with " : "",
           c->overrides ? "overrides" : "", c->n, fidelity,
           n_elems ? n_elems
                   : c->n_elems ? c->n_elems : VALIDATE_DEFAULT_ELEMS);
    for (const char *s = c->overrides; s && *s;) {
        const char *nl = strchr(s, '\n');
        int len = nl ? (int)(nl - s) : (int)strlen(s);
        printf("  --set %.*s\n", len, s);
        s += len + (nl ? 1 : 0);
    }
    struct errs cse = { 0 };
    int rc = 0;
    for (int m = 0; m < BWLAT_N_MATRICES && rc >= 0; m++) {
        if (c->measured[m]) {
            int r = compare_matrix(c, m, csv, all, &cse);
            rc = r < 0 ? r : rc | r;
        }
    }
    char what[300];
    snprintf(what, sizeof(what), "case %s", c->name);
    print_summary(what, &cse);
    printf("\n");
    free(cse.v);
    return rc;
}

/* ---- the command --------------------------------------------------------- */

static void free_case(struct vcase *c)
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

static int start_job(struct vjob *j, const char *cudart, const char *fidelity,
                     int n_elems)
{
    struct vcase *c = j->c;
    struct bwlat_request rq = {
        .machine = c->machine,
        .fidelity = fidelity,
        .overrides = c->overrides,
        .cudart = cudart,
        .n_elems = n_elems ? n_elems
                           : c->n_elems ? c->n_elems : VALIDATE_DEFAULT_ELEMS,
        .matrices = BWLAT_BIT(j->m),
        .cells = c->cells[j->m],
        .n_cells = c->n,
    };
    fprintf(stderr, "p2psim validate: simulating %s: %s\n", c->path,
            bwlat_matrices[j->m].name);
    return bwlat_job_start(&j->job, &rq);
}

static void finish_job(struct vjob *j)
{
    struct bwlat_result r;
    struct vcase *c = j->c;
    if (bwlat_job_finish(&j->job, &r) == 0 && r.m[j->m]) {
        c->sim[j->m] = r.m[j->m];
        r.m[j->m] = NULL;
    } else {
        c->sim_error[j->m] = strdup(r.error[0] ? r.error : "no result");
    }
    bwlat_result_free(&r);
}

/* What the pool's callbacks need. */
struct vsim {
    struct vjob *js;
    const char *cudart, *fidelity;
    int n_elems;
};

static int pool_start(size_t i, struct bwlat_job *job, void *arg)
{
    struct vsim *v = arg;
    int rc = start_job(&v->js[i], v->cudart, v->fidelity, v->n_elems);
    if (rc == 0) {
        *job = v->js[i].job;    /* the pool runs it from its own slot */
    }
    return rc;
}

static void pool_done(size_t i, struct bwlat_job *job, void *arg)
{
    struct vsim *v = arg;
    v->js[i].job = *job;
    finish_job(&v->js[i]);
}

/*
 * Simulate every matrix of every case, a child process each (a matrix
 * that fails, say on a CUDA error, leaves the others measured), up to
 * jobs at once.
 */
static int simulate(struct vjob *js, int n, unsigned jobs,
                    const char *cudart, const char *fidelity, int n_elems)
{
    struct vsim v = { js, cudart, fidelity, n_elems };
    return bwlat_pool_run((size_t)n, jobs, pool_start, pool_done, &v);
}

/* A job per matrix of every case. */
static struct vjob *make_jobs(struct vcase *cs, int n, int *n_jobs)
{
    struct vjob *js = calloc((size_t)n * BWLAT_N_MATRICES, sizeof(*js));
    *n_jobs = 0;
    for (int i = 0; js && i < n; i++) {
        for (int m = 0; m < BWLAT_N_MATRICES; m++) {
            if (cs[i].measured[m]) {
                js[*n_jobs].c = &cs[i];
                js[*n_jobs].m = m;
                (*n_jobs)++;
            }
        }
    }
    return js;
}

int cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {
        { "fidelity", required_argument, NULL, 'f' },
        { "numElems", required_argument, NULL, 'n' },
        { "jobs", required_argument, NULL, 'j' },
        { "csv", required_argument, NULL, 'c' },
        { "fail-above", required_argument, NULL, 'a' },
        { "check", no_argument, NULL, 'k' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *fidelity = "tlp", *csv_path = NULL;
    int n_elems = 0, c;
    unsigned jobs = 1;
    double fail_above = NAN;
    bool check_only = false;
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hj:", opts, NULL)) != -1) {
        switch (c) {
        case 'f': fidelity = optarg; break;
        case 'n':
            n_elems = (int)strtol(optarg, &end, 10);
            if (*end || n_elems < 4) {
                fprintf(stderr, "p2psim validate: --numElems takes a count "
                                "of ints, at least 4\n");
                return CLI_BAD_INPUT;
            }
            break;
        case 'j':
            if (cli_parse_jobs("validate", optarg, 256, &jobs) < 0) {
                return CLI_BAD_INPUT;
            }
            break;
        case 'c': csv_path = optarg; break;
        case 'a':
            fail_above = strtod(optarg, &end);
            if (*end || !(fail_above >= 0)) {
                fprintf(stderr, "p2psim validate: --fail-above takes a "
                                "percentage\n");
                return CLI_BAD_INPUT;
            }
            break;
        case 'k': check_only = true; break;
        case 'h': validate_usage(stdout); return CLI_OK;
        default: validate_usage(stderr); return CLI_BAD_INPUT;
        }
    }
    if (strcmp(fidelity, "tlp") != 0 && strcmp(fidelity, "flow") != 0) {
        fprintf(stderr, "p2psim validate: --fidelity is tlp or flow, not "
                        "'%s'\n", fidelity);
        return CLI_BAD_INPUT;
    }
    int n = argc - optind;
    if (n < 1) {
        validate_usage(stderr);
        return CLI_BAD_INPUT;
    }
    struct vcase *cs = calloc((size_t)n, sizeof(*cs));
    char cudart[4096];
    int rc = cs ? CLI_OK : CLI_FAIL;
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        cs[i].path = argv[optind + i];
        if (read_case(&cs[i]) < 0 || check_machine(&cs[i], fidelity) < 0) {
            rc = CLI_BAD_INPUT;
        }
    }
    if (rc == CLI_OK && check_only) {
        printf("%d case%s and their machines load\n", n, n == 1 ? "" : "s");
        for (int i = 0; i < n; i++) {
            free_case(&cs[i]);
        }
        free(cs);
        return CLI_OK;
    }
    if (rc == CLI_OK && bwlat_find_cudart(cudart, sizeof(cudart)) < 0) {
        rc = CLI_FAIL;
    }
    FILE *csv = NULL;
    if (rc == CLI_OK && csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "p2psim validate: cannot write %s: %s\n",
                    csv_path, strerror(errno));
            rc = CLI_FAIL;
        } else {
            fprintf(csv, "case,matrix,src,dst,measured,simulated,"
                         "error_percent\n");
        }
    }
    int n_jobs = 0;
    struct vjob *js = rc == CLI_OK ? make_jobs(cs, n, &n_jobs) : NULL;
    if (rc == CLI_OK &&
        (!js || simulate(js, n_jobs, jobs, cudart, fidelity, n_elems) < 0)) {
        rc = CLI_FAIL;
    }
    free(js);
    struct errs all = { 0 };
    bool some_failed = false;
    for (int i = 0; i < n && rc == CLI_OK; i++) {
        int r = report_case(&cs[i], fidelity, n_elems, csv, &all);
        if (r < 0) {
            rc = CLI_FAIL;
        }
        some_failed |= r > 0;
    }
    if (rc == CLI_OK) {
        double med, max;
        errs_summary(&all, &med, &max);
        if (some_failed) {
            printf("(matrices whose simulation failed are left out)\n");
        }
        printf("median error: %.1f%% max error: %.1f%%\n", med, max);
        if (some_failed || (!isnan(fail_above) && !(med <= fail_above))) {
            rc = CLI_FAIL;
        }
    }
    if (csv && fclose(csv) != 0) {
        rc = CLI_FAIL;
    }
    for (int i = 0; cs && i < n; i++) {
        free_case(&cs[i]);
    }
    free(cs);
    free(all.v);
    return rc;
}
