/*
 * tools/sweep_output.c - what p2psim sweep writes: the CSV (a row per
 * point, in point order) and the gnuplot curves (tools/gnuplot/sweep.gp).
 */
#include <config.h>

#include "tools/sweep.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/units.h"
#include "tools/plot.h"

/* A CSV field: quoted when it holds a comma, a quote or a newline. */
static void csv_field(FILE *f, const char *v)
{
    if (!strpbrk(v, ",\"\n")) {
        fputs(v, f);
        return;
    }
    fputc('"', f);
    for (; *v; v++) {
        if (*v == '"') {
            fputc('"', f);
        }
        fputc(*v, f);
    }
    fputc('"', f);
}

int sweep_write_csv(const struct sweep *s, const char *path)
{
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        fprintf(stderr, "p2psim sweep: cannot write %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    for (unsigned k = 0; k < s->n_keys; k++) {
        csv_field(f, s->keys[k].name);
        fputc(',', f);
    }
    for (unsigned m = 0; m < s->n_measures; m++) {
        csv_field(f, s->measures[m].column);
        fputc(m + 1 < s->n_measures ? ',' : '\n', f);
    }
    for (size_t p = 0; p < s->n_points; p++) {
        for (unsigned k = 0; k < s->n_keys; k++) {
            csv_field(f, s->keys[k].values[sweep_point_value(s, p, k)]);
            fputc(',', f);
        }
        for (unsigned m = 0; m < s->n_measures; m++) {
            double v = s->values[p * s->n_measures + m];
            if (!isnan(v) && !s->failed[p]) {
                fprintf(f, "%.4f", v);
            }
            fputc(m + 1 < s->n_measures ? ',' : '\n', f);
        }
    }
    if (path ? fclose(f) != 0 : fflush(f) != 0) {
        fprintf(stderr, "p2psim sweep: cannot write %s\n",
                path ? path : "the output");
        return -1;
    }
    return 0;
}

/* The plot's x axis: numbers (with their unit) or labels. */
struct axis {
    unsigned key;               /* the key along x */
    double *x;                  /* per value; NULL: labels */
    char label[200];
    bool logx;
};

/* Split "150ns" into 150 and "ns"; false if it does not start with a
 * number. */
static bool number_unit(const char *v, double *x, const char **unit)
{
    char *end;
    *x = strtod(v, &end);
    *unit = end;
    return end != v;
}

static int plot_axis(const struct sweep *s, struct axis *ax)
{
    ax->key = 0;
    for (unsigned k = 0; k < s->n_keys; k++) {
        if (s->keys[k].n_values > 1) {
            ax->key = k;
            break;
        }
    }
    const struct sweep_key *key = &s->keys[ax->key];
    ax->x = calloc(key->n_values, sizeof(double));
    if (!ax->x) {
        return -1;
    }
    const char *unit0 = NULL;
    double lo = INFINITY, hi = -INFINITY;
    for (unsigned i = 0; i < key->n_values && ax->x; i++) {
        const char *unit;
        uint64_t bytes;
        char why[100];
        bool ok;
        if (key->kind == SWEEP_KEY_SIZE) {
            ok = sim_parse_u64(key->values[i], &bytes, why, sizeof(why)) == 0 ||
                 sim_parse_size(key->values[i], &bytes, why, sizeof(why)) == 0;
            ax->x[i] = (double)bytes;
            unit = "";
        } else {
            ok = number_unit(key->values[i], &ax->x[i], &unit);
        }
        if (!ok || (unit0 && strcmp(unit, unit0) != 0)) {
            free(ax->x);
            ax->x = NULL;
            break;
        }
        unit0 = unit;
        lo = fmin(lo, ax->x[i]);
        hi = fmax(hi, ax->x[i]);
    }
    if (key->kind == SWEEP_KEY_SIZE) {
        snprintf(ax->label, sizeof(ax->label), "bytes per copy (%s)",
                 key->name);
    } else if (ax->x && unit0 && *unit0) {
        snprintf(ax->label, sizeof(ax->label), "%s (%s)", key->name, unit0);
    } else {
        snprintf(ax->label, sizeof(ax->label), "%s", key->name);
    }
    ax->logx = ax->x && lo > 0 && hi / lo >= 64;
    return 0;
}

/* The title of curve c: the other varying keys' values and the measure. */
static void curve_title(const struct sweep *s, const struct axis *ax,
                        const unsigned *idx, unsigned m, char *buf,
                        size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < s->n_keys; k++) {
        if (k != ax->key && s->keys[k].n_values > 1) {
            used += (size_t)snprintf(buf + used, len - used, "%s%s=%s",
                                     used ? ", " : "", s->keys[k].name,
                                     s->keys[k].values[idx[k]]);
        }
    }
    if (s->n_measures > 1 || used == 0) {
        snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                 s->measures[m].column);
    }
}

/* The point at key indices idx. */
static size_t point_of(const struct sweep *s, const unsigned *idx)
{
    size_t p = 0;
    for (unsigned k = 0; k < s->n_keys; k++) {
        p = p * s->keys[k].n_values + idx[k];
    }
    return p;
}

/* Advance idx over every key but the x key (an odometer); false at the
 * end. */
static bool next_curve(const struct sweep *s, unsigned xkey, unsigned *idx)
{
    for (unsigned k = s->n_keys; k-- > 0;) {
        if (k == xkey) {
            continue;
        }
        if (++idx[k] < s->keys[k].n_values) {
            return true;
        }
        idx[k] = 0;
    }
    return false;
}

/* Write the data file of the plot: a column per curve. Returns the
 * number of columns. */
static int write_plot_data(const struct sweep *s, const struct axis *ax,
                           FILE *f)
{
    unsigned *idx = calloc(s->n_keys + 1, sizeof(*idx));
    if (!idx) {
        return -1;
    }
    const struct sweep_key *xk = &s->keys[ax->key];
    int cols = 1;
    fprintf(f, "\"%s\"", xk->name);
    do {
        for (unsigned m = 0; m < s->n_measures; m++) {
            char title[600];
            curve_title(s, ax, idx, m, title, sizeof(title));
            fprintf(f, " \"");
            for (const char *c = title; *c; c++) {
                fputc(*c == '"' ? '\'' : *c, f);
            }
            fprintf(f, "\"");
            cols++;
        }
    } while (next_curve(s, ax->key, idx));
    fprintf(f, "\n");
    for (unsigned xi = 0; xi < xk->n_values; xi++) {
        if (ax->x) {
            fprintf(f, "%.17g", ax->x[xi]);
        } else {
            fprintf(f, "\"%s\"", xk->values[xi]);
        }
        memset(idx, 0, (s->n_keys + 1) * sizeof(*idx));
        do {
            idx[ax->key] = xi;
            size_t p = point_of(s, idx);
            for (unsigned m = 0; m < s->n_measures; m++) {
                double v = s->values[p * s->n_measures + m];
                if (isnan(v) || s->failed[p]) {
                    fprintf(f, " NaN");
                } else {
                    fprintf(f, " %.6g", v);
                }
            }
        } while (next_curve(s, ax->key, idx));
        fprintf(f, "\n");
    }
    free(idx);
    return cols;
}

int sweep_write_plot(const struct sweep *s, const char *png)
{
    if (s->n_keys == 0) {
        fprintf(stderr, "p2psim sweep: --plot needs a --set key to draw "
                        "against\n");
        return -1;
    }
    struct axis ax = { 0 };
    char dir[PATH_MAX];
    if (plot_axis(s, &ax) < 0 || plot_tmpdir(dir, sizeof(dir)) < 0) {
        free(ax.x);
        return -1;
    }
    char data[PATH_MAX + 16];
    snprintf(data, sizeof(data), "%s/sweep.dat", dir);
    FILE *f = fopen(data, "w");
    int cols = f ? write_plot_data(s, &ax, f) : -1;
    int rc = (f && fclose(f) == 0 && cols > 0) ? 0 : -1;
    bool lat = false, bw = false;
    for (unsigned m = 0; m < s->n_measures; m++) {
        lat |= s->measures[m].latency;
        bw |= !s->measures[m].latency;
    }
    char *settings = NULL;
    size_t len = 0;
    FILE *st = rc == 0 ? open_memstream(&settings, &len) : NULL;
    if (st) {
        fprintf(st, "data=");
        plot_quote(st, data);
        fprintf(st, "; ncols=%d; out=", cols);
        plot_quote(st, png);
        fprintf(st, "; xlab=");
        plot_quote(st, ax.label);
        fprintf(st, "; ylab=");
        plot_quote(st, lat && bw ? "GB/s (bandwidth), us (latency)"
                                 : lat ? "time per copy (us)"
                                       : "bandwidth (GB/s, 10^9 B/s)");
        fprintf(st, "; logx=%d; xtic=%d; title=", ax.logx, ax.x == NULL);
        plot_quote(st, s->n_measures == 1 ? s->measures[0].text
                                          : "p2psim sweep");
        fclose(st);
        rc = plot_run(plot_gp_sweep, settings);
    } else {
        rc = -1;
    }
    free(settings);
    free(ax.x);
    plot_tmpdir_remove(dir);
    return rc;
}

