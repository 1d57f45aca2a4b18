/*
 * tools/sweep_mpi.h - the interface of p2psim sweep's MPI plugin
 * (tools/sweep_mpi.c, built as p2psim-mpi.so when configure finds MPI).
 *
 * Why a plugin loaded with dlopen rather than MPI linked into p2psim:
 * the normal build, and every other subcommand, never need MPI; a p2psim
 * built with MPI does not load libmpi (and its dozen dependencies, and the
 * memory it keeps until exit, which leak checkers report) unless it runs
 * under mpirun; and only the plugin is compiled with MPI's flags.
 * p2psim sweep loads it when the environment says it runs under an MPI
 * launcher (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK).
 *
 * The plugin exports one symbol, SWEEP_MPI_SYMBOL, a struct sweep_mpi_ops.
 */
#ifndef P2PSIM_TOOLS_SWEEP_MPI_H
#define P2PSIM_TOOLS_SWEEP_MPI_H

#include <stddef.h>

#define SWEEP_MPI_SYMBOL "p2psim_sweep_mpi"
#define SWEEP_MPI_VERSION 1
#define SWEEP_MPI_PLUGIN "p2psim-mpi.so"

struct sweep_mpi_ops {
    int version;                /* SWEEP_MPI_VERSION */
    /* MPI_Init; this process's rank and the number of ranks. 0 or -1. */
    int (*init)(int *rank, int *size);
    /*
     * Sum values (n doubles) and flags (m ints) over all ranks into
     * rank 0's arrays (each rank holds its own points' entries and zeros
     * elsewhere). 0 or -1.
     */
    int (*gather)(double *values, size_t n, int *flags, size_t m);
    /* Every rank's status, combined at every rank (the largest). */
    int (*agree)(int status);
    void (*finalize)(void);
};

#endif /* P2PSIM_TOOLS_SWEEP_MPI_H */
