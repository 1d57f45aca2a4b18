/*
 * tools/validate_case.h - the case files of p2psim validate (format:
 * docs/validate.md): what one says, read and checked. Kept apart from the
 * command (cmd_validate.c) so that a fuzzing harness can call the reader
 * (fuzz/fuzz_validate.c).
 */
#ifndef P2PSIM_TOOLS_VALIDATE_CASE_H
#define P2PSIM_TOOLS_VALIDATE_CASE_H

#include <stdint.h>
#include <stdio.h>

#include "tools/bwlat.h"

/* A case's matrices are N x N for its N GPUs, N at most this (a larger
 * one is an error at its line and column). */
#define VALIDATE_CASE_MAX_GPUS 1024

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

/*
 * validate_case_read - read the case file c->path into *c (zeroed but for
 * path). 0, or -1 after printing "path:line:column: error: ..." to
 * stderr. What was read is released by validate_case_free either way.
 */
int validate_case_read(struct vcase *c);
/* The same from an open stream, c->path naming it in messages and
 * anchoring the machine's relative path. */
int validate_case_read_stream(struct vcase *c, FILE *f);
void validate_case_free(struct vcase *c);

#endif /* P2PSIM_TOOLS_VALIDATE_CASE_H */
