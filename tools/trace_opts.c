/*
 * tools/trace_opts.c - the trace options of p2psim run, bench and sweep
 * (trace_opts.h), and the utilisation plot drawn from a counters file.
 */
#include <config.h>

#include "tools/trace_opts.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/time.h"
#include "sim/units.h"
#include "tools/plot.h"
#include "traces/format.h"

void cli_trace_opt(struct cli_trace *t, int c, const char *arg)
{
    const char **slot[] = {
        &t->trace, &t->format, &t->filter, &t->max, &t->events, &t->stall,
        &t->counters, &t->period, &t->plot,
    };
    *slot[c - CLI_TRACE_OPT_FIRST] = arg;
}

bool cli_trace_any(const struct cli_trace *t)
{
    return t->trace || t->events || t->counters;
}

/*
 * The file's directory must exist and be writable: said here, before
 * anything runs, rather than by the simulating process as it starts.
 */
static int check_writable(const char *opt, const char *file, const char *cmd)
{
    if (!file) {
        return 0;
    }
    char dir[PATH_MAX];
    const char *slash = strrchr(file, '/');
    if (!slash) {
        snprintf(dir, sizeof(dir), ".");
    } else {
        snprintf(dir, sizeof(dir), "%.*s",
                 slash == file ? 1 : (int)(slash - file), file);
    }
    if (!*file || (slash && !slash[1])) {
        fprintf(stderr, "p2psim %s: %s '%s': a file name, not a "
                        "directory\n", cmd, opt, file);
        return -1;
    }
    if (access(dir, W_OK) != 0) {
        fprintf(stderr, "p2psim %s: %s %s: cannot write in %s: %s\n", cmd,
                opt, file, dir, strerror(errno));
        return -1;
    }
    return 0;
}

int cli_trace_check(const struct cli_trace *t, const char *cmd)
{
    char err[300];
    struct trace_filter f;
    if (!cli_trace_any(t) && (t->format || t->filter || t->max || t->stall ||
                              t->period || t->plot)) {
        fprintf(stderr, "p2psim %s: --trace-format, --trace-filter, "
                        "--trace-max, --stall-threshold, --counters-period "
                        "and --plot go with --trace, --events or "
                        "--counters\n", cmd);
        return -1;
    }
    if (t->trace && (t->format ? trace_format_find(t->format)
                               : trace_format_of_path(t->trace)) < 0) {
        fprintf(stderr, "p2psim %s: %s%s: the trace format is csv or "
                        "perfetto (--trace-format), or named by the "
                        "extension .csv or .json\n", cmd,
                t->format ? "--trace-format " : "--trace ",
                t->format ? t->format : t->trace);
        return -1;
    }
    if (t->filter && trace_filter_parse(t->filter, &f, err, sizeof(err))) {
        fprintf(stderr, "p2psim %s: --trace-filter: %s\n", cmd, err);
        return -1;
    }
    /* The same parsers as the simulating process's (machine/trace_sink.c). */
    sim_time_t t_ps;
    uint64_t bytes;
    if (t->max && (sim_parse_size(t->max, &bytes, err, sizeof(err)) < 0 ||
                   bytes == 0)) {
        fprintf(stderr, "p2psim %s: --trace-max %s: a size with a unit "
                        "(B, KB, MB, GB, KiB, MiB, GiB), e.g. 200MiB\n",
                cmd, t->max);
        return -1;
    }
    if (t->stall && sim_parse_time(t->stall, &t_ps, err, sizeof(err)) < 0) {
        fprintf(stderr, "p2psim %s: --stall-threshold %s: a time with a "
                        "unit (ps, ns, us, ms, s), e.g. 100ns\n", cmd,
                t->stall);
        return -1;
    }
    if (t->period && (sim_parse_time(t->period, &t_ps, err,
                                     sizeof(err)) < 0 || t_ps == 0)) {
        fprintf(stderr, "p2psim %s: --counters-period %s: a time above 0 "
                        "with a unit (ps, ns, us, ms, s), e.g. 10us\n", cmd,
                t->period);
        return -1;
    }
    if (t->plot && !t->counters) {
        fprintf(stderr, "p2psim %s: --plot draws the counters: give "
                        "--counters FILE too\n", cmd);
        return -1;
    }
    if (check_writable("--trace", t->trace, cmd) < 0 ||
        check_writable("--events", t->events, cmd) < 0 ||
        check_writable("--counters", t->counters, cmd) < 0 ||
        check_writable("--plot", t->plot, cmd) < 0) {
        return -1;
    }
    return 0;
}

/* An absolute path, so a program that changes directory writes it here. */
static int setenv_abs(const char *var, const char *file)
{
    char cwd[PATH_MAX], buf[2 * PATH_MAX];
    if (!file) {
        return unsetenv(var);
    }
    if (file[0] == '/' || !getcwd(cwd, sizeof(cwd))) {
        return setenv(var, file, 1);
    }
    snprintf(buf, sizeof(buf), "%s/%s", cwd, file);
    return setenv(var, buf, 1);
}

static int setenv_opt(const char *var, const char *v)
{
    return v ? setenv(var, v, 1) : unsetenv(var);
}

int cli_trace_setenv(const struct cli_trace *t)
{
    int rc = setenv_abs("P2PSIM_TRACE", t->trace);
    rc |= setenv_abs("P2PSIM_EVENTS", t->events);
    rc |= setenv_abs("P2PSIM_COUNTERS", t->counters);
    rc |= setenv_opt("P2PSIM_TRACE_FORMAT", t->format);
    rc |= setenv_opt("P2PSIM_TRACE_FILTER", t->filter);
    rc |= setenv_opt("P2PSIM_TRACE_MAX", t->max);
    rc |= setenv_opt("P2PSIM_STALL_THRESHOLD", t->stall);
    rc |= setenv_opt("P2PSIM_COUNTERS_PERIOD", t->period);
    return rc ? -1 : 0;
}

void cli_trace_env_tag(const char *tag)
{
    static const char *const vars[] = { "P2PSIM_TRACE", "P2PSIM_EVENTS",
                                        "P2PSIM_COUNTERS" };
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (!v || !*v) {
            continue;
        }
        char buf[PATH_MAX + 64];
        const char *dot = strrchr(v, '.');
        if (!dot || strchr(dot, '/')) {
            dot = v + strlen(v);
        }
        snprintf(buf, sizeof(buf), "%.*s-%s%s", (int)(dot - v), v, tag, dot);
        setenv(vars[i], buf, 1);
    }
}

void cli_trace_usage(FILE *f, bool with_plot)
{
    fprintf(f,
        "trace options (docs/traces.md):\n"
        "  --trace FILE        every TLP per link (or every flow), copy-"
        "engine\n"
        "                      operations and events; *.json: Perfetto, "
        "*.csv: CSV\n"
        "  --trace-format F    csv or perfetto, whatever the extension\n"
        "  --trace-filter S    keep only e.g. component=sw0,kind=MWr+CplD,\n"
        "                      pair=gpu0:gpu1,from=10us,to=20us\n"
        "  --trace-max SIZE    stop writing the trace at SIZE (e.g. 200MiB)\n"
        "  --events FILE       the event log (ftrace-like text): BAR1 map/"
        "unmap,\n"
        "                      IOMMU faults, drops, credit stalls\n"
        "  --stall-threshold T log credit stalls from T on (default "
        "100ns)\n"
        "  --counters FILE     link and GPU counters as CSV, sampled over "
        "time\n"
        "  --counters-period T the sampling period (default 10us)\n"
        "  (times take a unit: ps, ns, us, ms, s; sizes: B, KB, MB, GB, "
        "KiB, MiB, GiB)\n");
    if (with_plot) {
        fprintf(f, "  --plot FILE.png     draw link utilisation over time "
                   "(gnuplot)\n");
    }
}

/* ---- the plot ---------------------------------------------------------------- */

struct util_table {
    char (*obj)[TRACE_NAME_LEN];
    unsigned n_obj, cap_obj;
    double *t_us;               /* per sample */
    double *v;                  /* [sample][object] */
    bool *used;                 /* object carried bytes */
    size_t n_t, cap_t;
};

static int obj_index(struct util_table *u, const char *name)
{
    for (unsigned i = 0; i < u->n_obj; i++) {
        if (!strcmp(u->obj[i], name)) {
            return (int)i;
        }
    }
    if (u->n_t > 0 || u->n_obj == 256) {
        return -1;              /* objects are all in the first sample */
    }
    if (u->n_obj == u->cap_obj) {
        unsigned cap = u->cap_obj ? 2 * u->cap_obj : 16;
        void *o = realloc(u->obj, cap * sizeof(*u->obj));
        void *b = realloc(u->used, cap * sizeof(*u->used));
        if (o) {
            u->obj = o;
        }
        if (b) {
            u->used = b;
        }
        if (!o || !b) {
            return -1;
        }
        u->cap_obj = cap;
    }
    TRACE_SET(u->obj[u->n_obj], name);
    u->used[u->n_obj] = false;
    return (int)u->n_obj++;
}

static int read_util(FILE *f, struct util_table *u)
{
    char line[512];
    double cur = -1;
    size_t row = 0;
    bool have_row = false;
    if (!fgets(line, sizeof(line), f)) {
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        char obj[TRACE_NAME_LEN], metric[32];
        double t, v;
        if (sscanf(line, "%lf,%95[^,],%31[^,],%lf", &t, obj, metric, &v) !=
            4) {
            return -1;
        }
        bool is_util = !strcmp(metric, "util");
        if (!is_util && strcmp(metric, "bytes")) {
            continue;
        }
        if (t != cur) {
            if (have_row) {
                row++;
            }
            u->n_t = row;       /* objects are known once a row is done */
            if (row + 1 > u->cap_t) {
                size_t cap = u->cap_t ? 2 * u->cap_t : 64;
                double *tt = realloc(u->t_us, cap * sizeof(*tt));
                if (tt) {
                    u->t_us = tt;
                }
                double *vv = tt ? realloc(u->v, cap * 256 * sizeof(*vv))
                                : NULL;
                if (!vv) {
                    return -1;
                }
                u->v = vv;
                u->cap_t = cap;
            }
            memset(&u->v[row * 256], 0, 256 * sizeof(double));
            u->t_us[row] = t * 1e-6;
            cur = t;
            have_row = true;
        }
        int o = obj_index(u, obj);
        if (o >= 0 && is_util) {
            u->v[row * 256 + (unsigned)o] = v;
        } else if (o >= 0 && v > 0) {
            u->used[o] = true;
        }
    }
    u->n_t = have_row ? row + 1 : 0;
    return 0;
}

int cli_trace_plot(const char *counters, const char *png)
{
    struct util_table u = { 0 };
    FILE *f = fopen(counters, "r");
    int rc = f ? read_util(f, &u) : -1;
    if (f) {
        fclose(f);
    }
    unsigned n_used = 0;
    for (unsigned i = 0; i < u.n_obj; i++) {
        n_used += u.used[i];
    }
    if (rc < 0 || u.n_t < 2 || n_used == 0) {
        fprintf(stderr, "p2psim: %s: %s; no plot\n", counters,
                rc < 0 ? "not a counters file" : "no link carried bytes in "
                                                 "two samples or more");
        rc = -1;
    } else {
        char dir[PATH_MAX], data[PATH_MAX + 16];
        rc = plot_tmpdir(dir, sizeof(dir));
        snprintf(data, sizeof(data), "%s/util.csv", dir);
        FILE *d = rc == 0 ? fopen(data, "w") : NULL;
        if (d) {
            fprintf(d, "t_us");
            for (unsigned i = 0; i < u.n_obj; i++) {
                if (u.used[i]) {
                    fprintf(d, ",%s", u.obj[i]);
                }
            }
            for (size_t r = 0; r < u.n_t; r++) {
                fprintf(d, "\n%.6f", u.t_us[r]);
                for (unsigned i = 0; i < u.n_obj; i++) {
                    if (u.used[i]) {
                        fprintf(d, ",%.4f", 100 * u.v[r * 256 + i]);
                    }
                }
            }
            fputc('\n', d);
            rc = fclose(d) == 0 ? 0 : -1;
            char *set = NULL;
            size_t len = 0;
            FILE *s = open_memstream(&set, &len);
            if (s) {
                fprintf(s, "data=");
                plot_quote(s, data);
                fprintf(s, "; out=");
                plot_quote(s, png);
                fprintf(s, "; n=%u", n_used + 1);
                fclose(s);
                rc = rc == 0 ? plot_run(plot_gp_util, set) : -1;
                free(set);
            }
        } else {
            rc = -1;
        }
        if (dir[0]) {
            plot_tmpdir_remove(dir);
        }
    }
    free(u.obj);
    free(u.used);
    free(u.t_us);
    free(u.v);
    return rc;
}
