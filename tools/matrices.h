/*
 * tools/matrices.h - the bandwidth and latency matrices of a struct
 * bwlat_result as p2pBandwidthLatencyTest prints them, and as CSV, JSON
 * and a gnuplot heatmap (p2psim bench, p2psim validate).
 */
#ifndef P2PSIM_TOOLS_MATRICES_H
#define P2PSIM_TOOLS_MATRICES_H

#include <stdio.h>

struct bwlat_result;

/* What a run was, for the JSON file. */
struct mat_meta {
    const char *machine;        /* the machine's name */
    const char *file;           /* the machine file, or NULL (built-in) */
    const char *fidelity;       /* "tlp", "flow" */
    const char *overrides;      /* "path=value" lines, or NULL */
    int n_elems;
};

/* One table in the sample's layout: corner, "%6d " columns, "%6.02f "
 * cells (NaN cells as "   n/a "). */
void mat_print_table(FILE *f, const char *corner, const double *v,
                     unsigned n);

/*
 * The sample's whole output from the devices to the closing note:
 * device lines, peer access, the connectivity matrix, then every matrix
 * present in r (with --p2p_read's in their places).
 */
void mat_print_sample(FILE *f, const struct bwlat_result *r);

/* DIR/NAME.csv for every matrix present: "GPU,0,1,..." then a row per
 * source GPU; an unmeasured cell is empty. Creates DIR. 0 or -1. */
int mat_write_csv_dir(const struct bwlat_result *r, const char *dir);

/* The whole result as JSON (null for unmeasured cells). 0 or -1. */
int mat_write_json(const struct bwlat_result *r, const struct mat_meta *meta,
                   const char *path);

/* A heatmap of every matrix present, drawn by gnuplot into png. 0 or -1. */
int mat_write_png(const struct bwlat_result *r, const char *png);

/* Write s as a JSON string (quoted and escaped). */
void mat_json_string(FILE *f, const char *s);

#endif /* P2PSIM_TOOLS_MATRICES_H */
