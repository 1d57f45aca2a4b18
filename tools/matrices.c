/*
 * tools/matrices.c - printing and writing the matrices of a struct
 * bwlat_result: p2pBandwidthLatencyTest's text (headings, order and number
 * formats as shared/reference/cuda-api.md §1.7 gives them), CSV, JSON and
 * a gnuplot heatmap.
 */
#include <config.h>

#include "tools/matrices.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/bwlat.h"
#include "tools/plot.h"

void mat_print_table(FILE *f, const char *corner, const double *v,
                     unsigned n)
{
    fprintf(f, "%s", corner);
    for (unsigned j = 0; j < n; j++) {
        fprintf(f, "%6u ", j);
    }
    fprintf(f, "\n");
    for (unsigned i = 0; i < n; i++) {
        fprintf(f, "%6u ", i);
        for (unsigned j = 0; j < n; j++) {
            double x = v[i * n + j];
            if (isnan(x)) {
                fprintf(f, "%6s ", "n/a");
            } else {
                fprintf(f, "%6.02f ", x);
            }
        }
        fprintf(f, "\n");
    }
}

static void print_head(FILE *f, const struct bwlat_result *r)
{
    unsigned n = r->n;
    fprintf(f, "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n");
    for (unsigned i = 0; i < n; i++) {
        fprintf(f, "Device: %u, %s, pciBusID: %x, pciDeviceID: %x, "
                   "pciDomainID:%x\n", i, r->gpu[i].name,
                (unsigned)r->gpu[i].pci_bus, (unsigned)r->gpu[i].pci_device,
                (unsigned)r->gpu[i].pci_domain);
    }
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = 0; j < n; j++) {
            if (i != j) {
                fprintf(f, "Device=%u %s Access Peer Device=%u\n", i,
                        r->can_access[i * n + j] ? "CAN" : "CANNOT", j);
            }
        }
    }
    fprintf(f, "\n***NOTE: In case a device doesn't have P2P access to "
               "other one, it falls back to normal memcopy procedure.\nSo "
               "you can see lesser Bandwidth (GB/s) and unstable Latency "
               "(us) in those cases.\n\n");
    fprintf(f, "P2P Connectivity Matrix\n     D\\D");
    for (unsigned j = 0; j < n; j++) {
        fprintf(f, "%6u", j);
    }
    fprintf(f, "\n");
    for (unsigned i = 0; i < n; i++) {
        fprintf(f, "%6u\t", i);
        for (unsigned j = 0; j < n; j++) {
            fprintf(f, "%6d", i == j ? 1 : r->can_access[i * n + j] != 0);
        }
        fprintf(f, "\n");
    }
}

void mat_print_sample(FILE *f, const struct bwlat_result *r)
{
    print_head(f, r);
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        const struct bwlat_matrix_info *mi = &bwlat_matrices[m];
        if (!r->m[m]) {
            continue;
        }
        if (mi->heading) {
            fprintf(f, "%s\n", mi->heading);
        } else {
            /* A CPU latency table: under its GPU table, after a blank
             * line; alone, under the GPU table's heading. */
            if (r->m[m - 1]) {
                fprintf(f, "\n");
            } else {
                fprintf(f, "%s\n", bwlat_matrices[m - 1].heading);
            }
        }
        mat_print_table(f, mi->corner, r->m[m], r->n);
    }
    fprintf(f, "\nNOTE: The CUDA Samples are not meant for performance "
               "measurements. Results may vary when GPU Boost is "
               "enabled.\n");
}

/* ---- CSV ----------------------------------------------------------------- */

static int write_csv(const double *v, unsigned n, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "p2psim: cannot write %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    fprintf(f, "GPU");
    for (unsigned j = 0; j < n; j++) {
        fprintf(f, ",%u", j);
    }
    fprintf(f, "\n");
    for (unsigned i = 0; i < n; i++) {
        fprintf(f, "%u", i);
        for (unsigned j = 0; j < n; j++) {
            double x = v[i * n + j];
            if (isnan(x)) {
                fprintf(f, ",");
            } else {
                fprintf(f, ",%.4f", x);
            }
        }
        fprintf(f, "\n");
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "p2psim: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

int mat_write_csv_dir(const struct bwlat_result *r, const char *dir)
{
    if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
        fprintf(stderr, "p2psim: cannot create %s: %s\n", dir,
                strerror(errno));
        return -1;
    }
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        if (r->m[m]) {
            char path[PATH_MAX];
            snprintf(path, sizeof(path), "%s/%s.csv", dir,
                     bwlat_matrices[m].name);
            if (write_csv(r->m[m], r->n, path) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

void mat_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c == '\n') {
            fprintf(f, "\\n");
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

static void json_matrix(FILE *f, const double *v, unsigned n)
{
    fprintf(f, "[");
    for (unsigned i = 0; i < n; i++) {
        fprintf(f, "%s\n        [", i ? "," : "");
        for (unsigned j = 0; j < n; j++) {
            double x = v[i * n + j];
            if (isnan(x)) {
                fprintf(f, "%snull", j ? ", " : "");
            } else {
                fprintf(f, "%s%.4f", j ? ", " : "", x);
            }
        }
        fprintf(f, "]");
    }
    fprintf(f, "\n      ]");
}

static void json_overrides(FILE *f, const char *ov)
{
    fprintf(f, "[");
    bool first = true;
    for (const char *s = ov; s && *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        if (len) {
            char *line = strndup(s, len);
            fprintf(f, "%s", first ? "" : ", ");
            mat_json_string(f, line ? line : "");
            free(line);
            first = false;
        }
        s += len + (nl ? 1 : 0);
    }
    fprintf(f, "]");
}

int mat_write_json(const struct bwlat_result *r, const struct mat_meta *meta,
                   const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "p2psim: cannot write %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    unsigned n = r->n;
    fprintf(f, "{\n  \"tool\": \"p2psim bench\",\n  \"version\": \"%s\",\n",
            PACKAGE_VERSION);
    fprintf(f, "  \"machine\": ");
    mat_json_string(f, meta->machine);
    fprintf(f, ",\n  \"file\": ");
    if (meta->file) {
        mat_json_string(f, meta->file);
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ",\n  \"fidelity\": ");
    mat_json_string(f, meta->fidelity);
    fprintf(f, ",\n  \"overrides\": ");
    json_overrides(f, meta->overrides);
    fprintf(f, ",\n  \"numElems\": %d,\n  \"gpus\": [", meta->n_elems);
    for (unsigned i = 0; i < n; i++) {
        fprintf(f, "%s\n    {\"device\": %u, \"name\": ", i ? "," : "", i);
        mat_json_string(f, r->gpu[i].name);
        fprintf(f, ", \"pciDomainID\": %d, \"pciBusID\": %d, "
                   "\"pciDeviceID\": %d}", r->gpu[i].pci_domain,
                r->gpu[i].pci_bus, r->gpu[i].pci_device);
    }
    fprintf(f, "\n  ],\n  \"p2p_connectivity\": [");
    for (unsigned i = 0; i < n; i++) {
        fprintf(f, "%s[", i ? ", " : "");
        for (unsigned j = 0; j < n; j++) {
            fprintf(f, "%s%d", j ? ", " : "",
                    i == j ? 1 : r->can_access[i * n + j] != 0);
        }
        fprintf(f, "]");
    }
    fprintf(f, "],\n  \"matrices\": {");
    bool first = true;
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        const struct bwlat_matrix_info *mi = &bwlat_matrices[m];
        if (!r->m[m]) {
            continue;
        }
        fprintf(f, "%s\n    ", first ? "" : ",");
        mat_json_string(f, mi->name);
        fprintf(f, ": {\n      \"heading\": ");
        mat_json_string(f, mi->heading ? mi->heading
                                       : bwlat_matrices[m - 1].heading);
        fprintf(f, ",\n      \"table\": ");
        mat_json_string(f, mi->corner + 3);
        fprintf(f, ",\n      \"unit\": ");
        mat_json_string(f, mi->unit);
        fprintf(f, ",\n      \"values\": ");
        json_matrix(f, r->m[m], n);
        fprintf(f, "\n    }");
        first = false;
    }
    fprintf(f, "\n  }\n}\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "p2psim: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

/* ---- PNG ----------------------------------------------------------------- */

/* The colour range of a heatmap: the off-diagonal cells (the diagonal if
 * there are none), widened when flat. */
static void color_range(const double *v, unsigned n, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int pass = 0; pass < 2 && *lo > *hi; pass++) {
        for (unsigned i = 0; i < n; i++) {
            for (unsigned j = 0; j < n; j++) {
                double x = v[i * n + j];
                if ((i != j || pass == 1) && !isnan(x)) {
                    *lo = fmin(*lo, x);
                    *hi = fmax(*hi, x);
                }
            }
        }
    }
    if (*lo > *hi) {
        *lo = 0;
        *hi = 1;
    } else if (*hi - *lo < 1e-9 * fmax(1.0, fabs(*hi))) {
        double w = fmax(0.5, fabs(*lo) * 0.05);
        *lo -= w;
        *hi += w;
    }
}

int mat_write_png(const struct bwlat_result *r, const char *png)
{
    char dir[PATH_MAX];
    if (plot_tmpdir(dir, sizeof(dir)) < 0) {
        return -1;
    }
    char names[1024] = "", ranges[1024] = "";
    size_t used = 0, rused = 0;
    int rc = 0;
    for (int m = 0; m < BWLAT_N_MATRICES && rc == 0; m++) {
        if (!r->m[m]) {
            continue;
        }
        char path[PATH_MAX + 64];
        snprintf(path, sizeof(path), "%s/%s.dat", dir, bwlat_matrices[m].name);
        FILE *f = fopen(path, "w");
        if (!f) {
            rc = -1;
            break;
        }
        for (unsigned i = 0; i < r->n; i++) {
            for (unsigned j = 0; j < r->n; j++) {
                double x = r->m[m][i * r->n + j];
                if (isnan(x)) {
                    fprintf(f, "%sNaN", j ? " " : "");
                } else {
                    fprintf(f, "%s%.4f", j ? " " : "", x);
                }
            }
            fprintf(f, "\n");
        }
        rc = fclose(f) == 0 ? 0 : -1;
        used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
                                 used ? " " : "", bwlat_matrices[m].name);
        double lo, hi;
        color_range(r->m[m], r->n, &lo, &hi);
        rused += (size_t)snprintf(ranges + rused, sizeof(ranges) - rused,
                                  "%s%g %g", rused ? " " : "", lo, hi);
    }
    if (rc == 0) {
        char *settings = NULL;
        size_t len = 0;
        FILE *s = open_memstream(&settings, &len);
        if (!s) {
            rc = -1;
        } else {
            fprintf(s, "ngpu=%u; dir=", r->n);
            plot_quote(s, dir);
            fprintf(s, "; names=");
            plot_quote(s, names);
            fprintf(s, "; ranges=");
            plot_quote(s, ranges);
            fprintf(s, "; out=");
            plot_quote(s, png);
            fclose(s);
            rc = plot_run(plot_gp_heatmap, settings);
            free(settings);
        }
    }
    plot_tmpdir_remove(dir);
    return rc;
}
