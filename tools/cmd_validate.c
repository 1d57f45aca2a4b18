/*
 * tools/cmd_validate.c - `p2psim validate CASE.yaml...`: run the
 * p2pBandwidthLatencyTest measurements on the machine a case names and
 * compare them, cell by cell, with what was measured on the real machine
 * (case format: docs/validate.md; cases: data/calibration/).
 *
 * Only the cells a case gives are simulated (a case with one measured row
 * costs one row). The relative error of a cell is (simulated - measured)
 * / measured; summaries take its magnitude, over off-diagonal cells only
 * (the diagonal is a GPU's own memory, not the fabric), each case's also
 * for its bandwidth and its latency cells apart. The last line is
 * "median error: X% max error: Y%" over every case given; --fail-above
 * [NAME=]MEDIAN[,MAX] then fails the run when a case's or that line's
 * median or max is above its bound (struct gate).
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/p2psim.h"
#include "tools/bwlat.h"
#include "tools/cli.h"
#include "tools/validate_case.h"

#define VALIDATE_DEFAULT_ELEMS 40000000 /* the sample's default, 160 MB */

#define VALIDATE_MAX_BOUNDS 64    /* --fail-above options of one run */

/*
 * --fail-above [NAME=]MEDIAN[,MAX], repeatable: bounds, in percent, on the
 * median and the max error over all off-diagonal cells of the case called
 * NAME, of all cases together (NAME "all"), or, without NAME, of every
 * case and all together that no named bound covers. A bound not given is
 * NAN (none). failed counts the summaries above their bounds.
 */
struct bound {
    const char *name;           /* NULL: the default */
    double median, max;
};

struct gate {
    struct bound b[VALIDATE_MAX_BOUNDS];
    unsigned n, failed;
};

/* Parse one --fail-above argument into g; -1 when it is malformed. */
static int gate_parse(struct gate *g, char *arg)
{
    struct bound b = { NULL, NAN, NAN };
    char *eq = strchr(arg, '='), *end;
    if (eq) {
        *eq = '\0';
        b.name = arg;
        arg = eq + 1;
    }
    b.median = strtod(arg, &end);
    if (end == arg || (b.name && !*b.name) || g->n == VALIDATE_MAX_BOUNDS) {
        return -1;
    }
    if (*end == ',') {
        const char *mx = end + 1;
        b.max = strtod(mx, &end);
        if (end == mx) {
            return -1;              /* "P," */
        }
    }
    if (*end || !(b.median >= 0) || b.max < 0) {
        return -1;
    }
    g->b[g->n++] = b;
    return 0;
}

/* Whether every named bound names "all" or one of the n cases cs. */
static bool gate_names_known(const struct gate *g, const struct vcase *cs,
                             int n)
{
    for (unsigned i = 0; i < g->n; i++) {
        const char *name = g->b[i].name;
        bool known = !name || strcmp(name, "all") == 0;
        for (int k = 0; k < n && !known; k++) {
            known = strcmp(cs[k].name, name) == 0;
        }
        if (!known) {
            fprintf(stderr, "p2psim validate: --fail-above %s=...: no case "
                            "of that name is given\n", name);
            return false;
        }
    }
    return true;
}

/* The bound of the summary called name: its own, else the default. */
static const struct bound *gate_find(const struct gate *g, const char *name)
{
    const struct bound *def = NULL;
    for (unsigned i = 0; i < g->n; i++) {
        if (!g->b[i].name) {
            def = &g->b[i];
        } else if (strcmp(g->b[i].name, name) == 0) {
            return &g->b[i];
        }
    }
    return def;
}

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
        "  --fail-above [NAME=]MEDIAN[,MAX]\n"
        "                   exit 1 when the median error over the "
        "off-diagonal cells\n"
        "                   of the case NAME (all: of all cases together; "
        "no NAME:\n"
        "                   of each case and all cases that no NAME= "
        "covers) is above\n"
        "                   MEDIAN percent, or its max error above MAX "
        "percent;\n"
        "                   repeatable\n"
        "  --check          read the cases and load their machines; "
        "simulate nothing\n",
        VALIDATE_DEFAULT_ELEMS);
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

/* Whether the summary e of name (a case's, or "all") is within bounds. */
static void gate_check(struct gate *g, const char *name, struct errs *e)
{
    const struct bound *b = gate_find(g, name);
    double med, max;
    errs_summary(e, &med, &max);
    if (!b || !e->n) {
        return;
    }
    if (!isnan(b->median) && !(med <= b->median)) {
        printf("FAIL: %s: median error %.2f%% is above %.2f%%\n", name, med,
               b->median);
        g->failed++;
    }
    if (!isnan(b->max) && !(max <= b->max)) {
        printf("FAIL: %s: max error %.2f%% is above %.2f%%\n", name, max,
               b->max);
        g->failed++;
    }
}

/* Whether matrix m is a latency matrix (else bandwidth). */
static bool is_latency(int m)
{
    return strcmp(bwlat_matrices[m].unit, "us") == 0;
}

/* Compare matrix m of case c; adds to the case's and the total errors. */
static int compare_matrix(const struct vcase *c, int m, FILE *csv,
                          struct errs *all, struct errs *cse,
                          struct errs *kind)
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
                 errs_add(kind, fabs(err)) < 0 ||
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
                       int n_elems, FILE *csv, struct errs *all,
                       struct gate *gate)
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
    struct errs cse = { 0 }, kind[2] = { { 0 } };
    int rc = 0;
    for (int m = 0; m < BWLAT_N_MATRICES && rc >= 0; m++) {
        if (c->measured[m]) {
            int r = compare_matrix(c, m, csv, all, &cse,
                                   &kind[is_latency(m)]);
            rc = r < 0 ? r : rc | r;
        }
    }
    char what[300];
    snprintf(what, sizeof(what), "case %s", c->name);
    print_summary(what, &cse);
    print_summary("  bandwidth", &kind[0]);
    print_summary("  latency", &kind[1]);
    gate_check(gate, c->name, &cse);
    printf("\n");
    free(cse.v);
    free(kind[0].v);
    free(kind[1].v);
    return rc;
}

/* ---- the command --------------------------------------------------------- */

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
    struct gate gate = { .n = 0 };
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
            if (gate_parse(&gate, optarg) < 0) {
                fprintf(stderr, "p2psim validate: --fail-above takes "
                                "[NAME=]MEDIAN[,MAX], percentages\n");
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
        if (validate_case_read(&cs[i]) < 0 || check_machine(&cs[i], fidelity) < 0) {
            rc = CLI_BAD_INPUT;
        }
    }
    if (rc == CLI_OK && !gate_names_known(&gate, cs, n)) {
        rc = CLI_BAD_INPUT;
    }
    if (rc == CLI_OK && check_only) {
        printf("%d case%s and their machines load\n", n, n == 1 ? "" : "s");
        for (int i = 0; i < n; i++) {
            validate_case_free(&cs[i]);
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
        int r = report_case(&cs[i], fidelity, n_elems, csv, &all, &gate);
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
        gate_check(&gate, "all", &all);
        if (some_failed || gate.failed) {
            rc = CLI_FAIL;
        }
    }
    if (csv && fclose(csv) != 0) {
        rc = CLI_FAIL;
    }
    for (int i = 0; cs && i < n; i++) {
        validate_case_free(&cs[i]);
    }
    free(cs);
    free(all.v);
    return rc;
}
