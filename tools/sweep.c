/*
 * tools/sweep.c - running a p2psim sweep: checking every point's machine,
 * measuring points in child processes (several at once with --jobs, a
 * share per rank under MPI) and a progress bar. tools/sweep_output.c
 * writes the CSV and the plot.
 *
 * Every point is a fresh process with a fresh machine (tools/bwlat.h), so
 * points are independent: the same point gives the same value whether it
 * runs alone, in parallel with others, or on another MPI rank, and the CSV
 * of `mpirun -np N p2psim sweep` equals the serial one.
 */
#include <config.h>

#include "tools/sweep.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/p2psim.h"
#include "sim/units.h"
#include "tools/cli.h"
#include "tools/sweep_mpi.h"

#ifndef P2PSIM_PKGLIBDIR
#define P2PSIM_PKGLIBDIR "/usr/local/lib/p2psim"
#endif

#define SIZE_BANDWIDTH (16u << 20)  /* default bytes per copy */
#define SIZE_LATENCY 16u            /* one int4, as the sample */
#define REPEAT_BANDWIDTH 5u         /* the sample's repetitions */
#define REPEAT_LATENCY 100u

/* ---- the grid ------------------------------------------------------------ */

unsigned sweep_point_value(const struct sweep *s, size_t p, unsigned k)
{
    for (unsigned j = s->n_keys; j-- > k + 1;) {
        p /= s->keys[j].n_values;
    }
    return (unsigned)(p % s->keys[k].n_values);
}

/* The value of key k at point p. */
static const char *value_at(const struct sweep *s, size_t p, unsigned k)
{
    return s->keys[k].values[sweep_point_value(s, p, k)];
}

/* "key=value, key=value" of point p, for messages. */
static void describe_point(const struct sweep *s, size_t p, char *buf,
                           size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < s->n_keys && used < len; k++) {
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%s",
                                 k ? ", " : "", s->keys[k].name,
                                 value_at(s, p, k));
    }
}

/*
 * Point p's machine, fidelity and overrides. The overrides have a line per
 * key, empty for measurement keys, so that "--set:N" in an error names the
 * N-th --set. *overrides is allocated (NULL when there are none).
 */
static int point_config(const struct sweep *s, size_t p, const char **machine,
                        const char **fidelity, char **overrides)
{
    *machine = s->machine;
    *fidelity = s->fidelity;
    *overrides = NULL;
    size_t len = 0;
    bool any = false;
    for (unsigned k = 0; k < s->n_keys; k++) {
        len += strlen(s->keys[k].name) + strlen(value_at(s, p, k)) + 2;
    }
    char *ov = calloc(1, len + 1);
    if (!ov) {
        return -1;
    }
    size_t used = 0;
    for (unsigned k = 0; k < s->n_keys; k++) {
        const struct sweep_key *key = &s->keys[k];
        const char *v = value_at(s, p, k);
        if (key->kind == SWEEP_KEY_PATH) {
            used += (size_t)sprintf(ov + used, "%s=%s", key->name, v);
            any = true;
        } else if (key->kind == SWEEP_KEY_MACHINE) {
            *machine = v;
        } else if (key->kind == SWEEP_KEY_FIDELITY) {
            *fidelity = v;
        }
        if (k + 1 < s->n_keys) {
            ov[used++] = '\n';
        }
    }
    if (any) {
        *overrides = ov;
    } else {
        free(ov);
    }
    return 0;
}

/* Bytes per copy or copies per measurement of point p, for measure m. */
static int point_counts(const struct sweep *s, size_t p,
                        const struct sweep_measure *m, uint64_t *size,
                        unsigned *repeat)
{
    *size = m->latency ? SIZE_LATENCY : SIZE_BANDWIDTH;
    *repeat = m->latency ? REPEAT_LATENCY : REPEAT_BANDWIDTH;
    for (unsigned k = 0; k < s->n_keys; k++) {
        const char *v = value_at(s, p, k);
        char why[200];
        uint64_t x;
        if (s->keys[k].kind == SWEEP_KEY_SIZE) {
            if (sim_parse_u64(v, &x, why, sizeof(why)) < 0 &&
                sim_parse_size(v, &x, why, sizeof(why)) < 0) {
                fprintf(stderr, "p2psim sweep: --set size=%s: %s\n", v, why);
                return CLI_BAD_INPUT;
            }
            if (x == 0) {
                fprintf(stderr, "p2psim sweep: --set size=%s: a copy of no "
                                "bytes measures nothing\n", v);
                return CLI_BAD_INPUT;
            }
            *size = x;
        } else if (s->keys[k].kind == SWEEP_KEY_REPEAT) {
            if (sim_parse_u64(v, &x, why, sizeof(why)) < 0 || x == 0 ||
                x > 1000000) {
                fprintf(stderr, "p2psim sweep: --set repeat=%s: a count "
                                "from 1 to 1000000\n", v);
                return CLI_BAD_INPUT;
            }
            *repeat = (unsigned)x;
        }
    }
    return CLI_OK;
}

/* Resolve point p's measures on machine mach into s->probes. */
static int point_probes(struct sweep *s, size_t p, const struct p2psim *mach)
{
    for (unsigned k = 0; k < s->n_measures; k++) {
        const struct sweep_measure *m = &s->measures[k];
        struct bwlat_probe *pr = &s->probes[p * s->n_measures + k];
        int rc = point_counts(s, p, m, &pr->size_bytes, &pr->repeat);
        if (rc != CLI_OK) {
            return rc;
        }
        pr->copy = m->copy;
        pr->bidir = m->bidir;
        pr->latency = m->latency;
        pr->a = cli_gpu(mach, m->gpu[0]);
        pr->b = m->gpu[1] ? cli_gpu(mach, m->gpu[1]) : pr->a;
        if (pr->a < 0 || pr->b < 0) {
            return CLI_BAD_INPUT;
        }
        if (m->gpu[1] && pr->a == pr->b) {
            fprintf(stderr, "p2psim sweep: --measure '%s' names GPU %s "
                            "twice; a pair needs two GPUs (d2d-bandwidth "
                            "measures within one)\n", m->text, m->gpu[0]);
            return CLI_BAD_INPUT;
        }
    }
    return CLI_OK;
}

/* Check the machine of point p (reusing the last one when it is the
 * same) and resolve its measures. */
static int prepare_point(struct sweep *s, size_t p, struct p2psim **mach,
                         char **last)
{
    const char *machine, *fidelity;
    char *ov;
    if (point_config(s, p, &machine, &fidelity, &ov) < 0) {
        return CLI_FAIL;
    }
    size_t len = strlen(machine ? machine : "") + strlen(fidelity) +
                 strlen(ov ? ov : "") + 3;
    char *key = malloc(len);
    if (!key) {
        free(ov);
        return CLI_FAIL;
    }
    snprintf(key, len, "%s\n%s\n%s", machine ? machine : "", fidelity,
             ov ? ov : "");
    int rc = CLI_OK;
    if (!*last || strcmp(key, *last) != 0) {
        p2psim_close(*mach);
        struct p2psim_options opt = { .fidelity = fidelity, .overrides = ov };
        *mach = cli_open_opt(machine, &opt);
        free(*last);
        *last = key;
        key = NULL;
        if (!*mach) {
            rc = CLI_BAD_INPUT;
        }
    }
    free(key);
    free(ov);
    if (rc == CLI_OK) {
        rc = point_probes(s, p, *mach);
    }
    if (rc != CLI_OK && s->n_keys) {
        char where[1024];
        describe_point(s, p, where, sizeof(where));
        fprintf(stderr, "p2psim sweep: (at the point %s)\n", where);
    }
    return rc;
}

int sweep_prepare(struct sweep *s)
{
    s->n_points = 1;
    for (unsigned k = 0; k < s->n_keys; k++) {
        s->n_points *= s->keys[k].n_values;
    }
    size_t nv = s->n_points * s->n_measures;
    s->values = calloc(nv ? nv : 1, sizeof(*s->values));
    s->failed = calloc(s->n_points, sizeof(*s->failed));
    s->probes = calloc(nv ? nv : 1, sizeof(*s->probes));
    if (!s->values || !s->failed || !s->probes) {
        fprintf(stderr, "p2psim sweep: out of memory\n");
        return CLI_FAIL;
    }
    for (size_t i = 0; i < nv; i++) {
        s->values[i] = NAN;
    }
    /* Ranks other than 0 check quietly: rank 0 reports. */
    int saved = -1;
    if (s->rank != 0) {
        int null = open("/dev/null", O_WRONLY);
        saved = dup(STDERR_FILENO);
        if (null >= 0) {
            dup2(null, STDERR_FILENO);
            close(null);
        }
    }
    struct p2psim *mach = NULL;
    char *last = NULL;
    int rc = CLI_OK;
    for (size_t p = 0; p < s->n_points && rc == CLI_OK; p++) {
        rc = prepare_point(s, p, &mach, &last);
    }
    p2psim_close(mach);
    free(last);
    if (saved >= 0) {
        dup2(saved, STDERR_FILENO);
        close(saved);
    }
    return rc;
}

/* ---- MPI ----------------------------------------------------------------- */

static const char *mpi_launcher(void)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                        "PMIX_RANK", NULL };
    for (const char *const *v = vars; *v; v++) {
        if (getenv(*v)) {
            return *v;
        }
    }
    return NULL;
}

/* The plugin: $P2PSIM_MPI_PLUGIN, next to this binary (the build tree's
 * tools/.libs), or $(pkglibdir). */
static void *mpi_plugin_open(char *tried, size_t len)
{
    char cand[3][PATH_MAX];
    unsigned n = 0;
    const char *env = getenv("P2PSIM_MPI_PLUGIN");
    if (env && *env) {
        snprintf(cand[n++], PATH_MAX, "%s", env);
    } else {
        char exe[PATH_MAX];
        ssize_t got = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        char *slash = got > 0 ? (exe[got] = '\0', strrchr(exe, '/')) : NULL;
        if (slash) {
            *slash = '\0';
            snprintf(cand[n++], PATH_MAX, "%.3800s/.libs/%s", exe,
                     SWEEP_MPI_PLUGIN);
            snprintf(cand[n++], PATH_MAX, "%.3800s/%s", exe, SWEEP_MPI_PLUGIN);
        }
        snprintf(cand[n++], PATH_MAX, "%s/%s", P2PSIM_PKGLIBDIR,
                 SWEEP_MPI_PLUGIN);
    }
    tried[0] = '\0';
    for (unsigned i = 0; i < n; i++) {
        if (access(cand[i], R_OK) == 0) {
            void *h = dlopen(cand[i], RTLD_NOW | RTLD_GLOBAL);
            if (!h) {
                snprintf(tried, len, "%s", dlerror());
            }
            return h;
        }
        size_t used = strlen(tried);
        snprintf(tried + used, len - used, "%s%s", used ? ", " : "", cand[i]);
    }
    return NULL;
}

int sweep_mpi_begin(struct sweep *s)
{
    s->rank = 0;
    s->size = 1;
    const char *var = mpi_launcher();
    if (!var) {
        return CLI_OK;
    }
    char tried[4 * PATH_MAX];
    void *h = mpi_plugin_open(tried, sizeof(tried));
    const struct sweep_mpi_ops *ops = h ? dlsym(h, SWEEP_MPI_SYMBOL) : NULL;
    if (!ops || ops->version != SWEEP_MPI_VERSION) {
        fprintf(stderr, "p2psim sweep: this runs under MPI (%s is set), but "
                        "p2psim's MPI plugin (%s) %s%s; it is built when "
                        "configure finds MPI (Debian: libopenmpi-dev). "
                        "Without mpirun, p2psim sweep --jobs N runs points "
                        "in parallel on one machine.\n",
                var, SWEEP_MPI_PLUGIN,
                h ? "is of another version" : "cannot be loaded: ",
                h ? "" : tried);
        return CLI_FAIL;
    }
    if (ops->init(&s->rank, &s->size) < 0) {
        fprintf(stderr, "p2psim sweep: MPI_Init failed\n");
        return CLI_FAIL;
    }
    s->mpi = ops;
    return CLI_OK;
}

/* ---- measuring ----------------------------------------------------------- */

struct slot {
    struct bwlat_job job;
    size_t point;
    bool busy;
};

static void progress_show(const struct sweep *s, size_t done, size_t total,
                          unsigned running)
{
    if (!s->progress) {
        return;
    }
    const int width = 30;
    int fill = total ? (int)(done * (size_t)width / total) : width;
    fprintf(stderr, "\r\033[Kp2psim sweep [%.*s%*s] %zu/%zu points", fill,
            "##############################", width - fill, "", done, total);
    if (running) {
        fprintf(stderr, ", %u running", running);
    }
    if (s->size > 1) {
        fprintf(stderr, " (rank %d of %d)", s->rank, s->size);
    }
    fflush(stderr);
}

static int start_point(struct sweep *s, struct slot *sl, size_t p)
{
    const char *machine, *fidelity;
    char *ov;
    if (point_config(s, p, &machine, &fidelity, &ov) < 0) {
        return -1;
    }
    struct bwlat_request rq = {
        .machine = machine,
        .fidelity = fidelity,
        .overrides = ov,
        .cudart = s->cudart,
        .probes = &s->probes[p * s->n_measures],
        .n_probes = s->n_measures,
        .trace = s->trace,
    };
    char tag[32];
    snprintf(tag, sizeof(tag), "p%zu", p);
    rq.trace_tag = tag;
    int rc = bwlat_job_start(&sl->job, &rq);
    free(ov);
    if (rc == 0) {
        sl->point = p;
        sl->busy = true;
    }
    return rc;
}

static void finish_point(struct sweep *s, struct slot *sl)
{
    struct bwlat_result r;
    size_t p = sl->point;
    sl->busy = false;
    if (bwlat_job_finish(&sl->job, &r) != 0 || r.n_probes != s->n_measures) {
        char where[1024];
        describe_point(s, p, where, sizeof(where));
        fprintf(stderr, "%sp2psim sweep: point %zu%s%s: %s\n",
                s->progress ? "\r\033[K" : "", p + 1, s->n_keys ? " " : "",
                where, r.error[0] ? r.error : "no result");
        s->failed[p] = 1;
    } else {
        memcpy(&s->values[p * s->n_measures], r.probe,
               s->n_measures * sizeof(double));
    }
    bwlat_result_free(&r);
}

/* What the pool's callbacks need: this rank's points are rank + i x size. */
struct sweep_pool {
    struct sweep *s;
    struct slot sl;             /* start_point's scratch */
    size_t mine, done;
    unsigned running;
};

static int pool_start(size_t i, struct bwlat_job *job, void *arg)
{
    struct sweep_pool *sp = arg;
    struct sweep *s = sp->s;
    if (start_point(s, &sp->sl, (size_t)s->rank + i * (size_t)s->size) < 0) {
        return -1;
    }
    *job = sp->sl.job;
    sp->running++;
    return 0;
}

static void pool_done(size_t i, struct bwlat_job *job, void *arg)
{
    struct sweep_pool *sp = arg;
    struct sweep *s = sp->s;
    struct slot sl = { .job = *job, .busy = true,
                       .point = (size_t)s->rank + i * (size_t)s->size };
    finish_point(s, &sl);
    sp->running--;
    sp->done++;
    progress_show(s, sp->done, sp->mine, sp->running);
}

/* Measure the points p = rank, rank + size, ... with up to s->jobs
 * children at once. */
static int measure_mine(struct sweep *s)
{
    struct sweep_pool sp = { .s = s };
    for (size_t p = (size_t)s->rank; p < s->n_points; p += (size_t)s->size) {
        sp.mine++;
    }
    progress_show(s, 0, sp.mine, 0);
    int rc = bwlat_pool_run(sp.mine, s->jobs ? s->jobs : 1, pool_start,
                            pool_done, &sp);
    if (s->progress) {
        fprintf(stderr, "\r\033[K");
    }
    if (rc < 0) {
        fprintf(stderr, "p2psim sweep: cannot run the measuring processes: "
                        "%s\n", strerror(errno));
        return CLI_FAIL;
    }
    return CLI_OK;
}

int sweep_run(struct sweep *s)
{
    s->progress = s->progress && s->rank == 0;
    if (s->size > 1) {
        /* Entries of other ranks' points are 0 here, so that the sum at
         * rank 0 is each point's own value. */
        for (size_t p = 0; p < s->n_points; p++) {
            if ((int)(p % (size_t)s->size) != s->rank) {
                for (unsigned k = 0; k < s->n_measures; k++) {
                    s->values[p * s->n_measures + k] = 0;
                }
            }
        }
    }
    int rc = measure_mine(s);
    if (s->mpi && s->size > 1) {
        rc = s->mpi->agree(rc);
        if (rc == CLI_OK &&
            s->mpi->gather(s->values, s->n_points * s->n_measures, s->failed,
                           s->n_points) < 0) {
            fprintf(stderr, "p2psim sweep: MPI_Reduce failed\n");
            rc = CLI_FAIL;
        }
    }
    size_t failed = 0;
    for (size_t p = 0; p < s->n_points; p++) {
        failed += s->failed[p] != 0;
    }
    if (rc == CLI_OK && failed && s->rank == 0) {
        fprintf(stderr, "p2psim sweep: %zu of %zu points failed (their "
                        "cells are empty)\n", failed, s->n_points);
        rc = CLI_FAIL;
    }
    if (s->mpi && s->size > 1) {
        rc = s->mpi->agree(rc);
    }
    return rc;
}

void sweep_free(struct sweep *s)
{
    for (unsigned k = 0; k < s->n_keys; k++) {
        for (unsigned i = 0; i < s->keys[k].n_values; i++) {
            free(s->keys[k].values[i]);
        }
        free(s->keys[k].values);
        free(s->keys[k].name);
    }
    for (unsigned m = 0; m < s->n_measures; m++) {
        free(s->measures[m].text);
        free(s->measures[m].gpu[0]);
        free(s->measures[m].gpu[1]);
    }
    free(s->keys);
    free(s->measures);
    free(s->values);
    free(s->failed);
    free(s->probes);
    if (s->mpi) {
        s->mpi->finalize();
    }
    memset(s, 0, sizeof(*s));
}
