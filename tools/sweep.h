/*
 * tools/sweep.h - p2psim sweep: a grid of points (the cross product of the
 * --set keys' values), each measured in a child process (tools/bwlat.h),
 * several at once with --jobs, split between MPI ranks under mpirun; the
 * results as CSV rows and gnuplot curves.
 *
 * Points are numbered in the order of nested loops over the keys, the
 * first --set outermost, the last varying fastest; that is also the order
 * of the CSV rows, whoever measured them.
 */
#ifndef P2PSIM_TOOLS_SWEEP_H
#define P2PSIM_TOOLS_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/bwlat.h"

/* What a key addresses: the machine file, or a measurement parameter. */
enum sweep_key_kind {
    SWEEP_KEY_PATH,             /* a path of the machine file (overrides) */
    SWEEP_KEY_SIZE,             /* size: bytes per copy */
    SWEEP_KEY_REPEAT,           /* repeat: copies per measurement */
    SWEEP_KEY_FIDELITY,         /* fidelity: tlp | flow */
    SWEEP_KEY_MACHINE,          /* machine: a machine file */
};

struct sweep_key {
    char *name;                 /* as given: "defaults.switch.latency" */
    enum sweep_key_kind kind;
    char **values;              /* as given (ranges expanded) */
    unsigned n_values;
};

/* One --measure: a struct bwlat_probe whose GPUs are still names. */
struct sweep_measure {
    char *text;                 /* as given */
    const char *kind;           /* "p2p-bandwidth" */
    enum bwlat_copy copy;
    bool bidir, latency;
    char *gpu[2];               /* as given; gpu[1] NULL for one GPU */
    char column[160];           /* the CSV column: "p2p-bandwidth 0 1 (GB/s)" */
};

struct sweep {
    /* what to run */
    const char *machine;        /* NULL: the built-in default */
    const char *fidelity;
    struct sweep_key *keys;
    unsigned n_keys;
    struct sweep_measure *measures;
    unsigned n_measures;
    unsigned jobs;              /* children at once */
    const char *cudart;         /* the shim's path */
    /* the grid */
    size_t n_points;
    /* per point and measure (row-major): the value, NaN until measured */
    double *values;
    int *failed;                /* per point: 1 if it could not be measured */
    struct bwlat_probe *probes; /* per point and measure, GPUs resolved */
    /* MPI (sweep_mpi_begin): the plugin, this rank, the number of ranks */
    const struct sweep_mpi_ops *mpi;
    int rank, size;
    bool progress;              /* a progress bar on stderr */
    bool trace;                 /* --trace etc.: one file set per point */
};

struct sweep_mpi_ops;

/*
 * sweep_mpi_begin - when this process runs under an MPI launcher (mpirun
 * sets OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK), load the MPI plugin
 * (tools/sweep_mpi.h) and initialise MPI: s->rank and s->size. Otherwise
 * rank 0 of 1. Returns 0 or a CLI_* status (printed).
 */
int sweep_mpi_begin(struct sweep *s);

/* The value index of key k at point p. */
unsigned sweep_point_value(const struct sweep *s, size_t p, unsigned k);

/*
 * sweep_prepare - make the grid (n_points, values, probes): load every
 * point's machine (file, overrides, fidelity) once, so that a bad key or
 * value is reported before anything runs, and resolve the measures' GPU
 * names on it. Errors are printed (file:line:column, or --set:N:C for the
 * N-th --set); returns 0 or a CLI_* status.
 */
int sweep_prepare(struct sweep *s);

/*
 * sweep_run - measure the points: all of them, or under MPI this rank's
 * share (point p goes to rank p mod size), gathered at rank 0, which
 * alone writes the results. Returns 0 or a CLI_* status, the same on
 * every rank (failed points are reported and leave empty cells).
 */
int sweep_run(struct sweep *s);

/* The CSV: a header (the keys, then the measures with units), a row per
 * point. path NULL: stdout. 0 or -1. */
int sweep_write_csv(const struct sweep *s, const char *path);

/* The curves against the first key that has several values. 0 or -1. */
int sweep_write_plot(const struct sweep *s, const char *png);

/* Release everything (and end MPI). */
void sweep_free(struct sweep *s);

#endif /* P2PSIM_TOOLS_SWEEP_H */
