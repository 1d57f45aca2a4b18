/*
 * tools/sweep_mpi.c - p2psim sweep's MPI plugin (p2psim-mpi.so): the few
 * MPI calls a sweep needs to split its points between ranks and gather
 * the results at rank 0. Built with MPI's compiler flags only when
 * configure finds MPI; loaded by tools/sweep.c under mpirun
 * (tools/sweep_mpi.h says why it is a plugin).
 *
 * Each rank measures the points whose number is its rank modulo the
 * number of ranks (tools/sweep.c); the results are summed into rank 0's
 * arrays, every other entry being zero on every other rank.
 */
#include <config.h>

#include "tools/sweep_mpi.h"

#include <mpi.h>
#include <stdlib.h>

static int mpi_init(int *rank, int *size)
{
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        return -1;
    }
    if (MPI_Comm_rank(MPI_COMM_WORLD, rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, size) != MPI_SUCCESS) {
        return -1;
    }
    return 0;
}

static int mpi_gather(double *values, size_t n, int *flags, size_t m)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* MPI counts are ints: large sweeps go in slices. */
    const size_t slice = 1u << 24;
    for (size_t off = 0; off < n; off += slice) {
        int cnt = (int)(n - off < slice ? n - off : slice);
        int rc = MPI_Reduce(rank == 0 ? MPI_IN_PLACE : values + off,
                            values + off, cnt, MPI_DOUBLE, MPI_SUM, 0,
                            MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) {
            return -1;
        }
    }
    for (size_t off = 0; off < m; off += slice) {
        int cnt = (int)(m - off < slice ? m - off : slice);
        int rc = MPI_Reduce(rank == 0 ? MPI_IN_PLACE : flags + off,
                            flags + off, cnt, MPI_INT, MPI_SUM, 0,
                            MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) {
            return -1;
        }
    }
    return 0;
}

static int mpi_agree(int status)
{
    int all = status;
    MPI_Allreduce(&status, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

static void mpi_finalize(void)
{
    int flag = 0;
    MPI_Finalized(&flag);
    if (!flag) {
        MPI_Finalize();
    }
}

/* The plugin's one export (tools/sweep_mpi.h). */
extern const struct sweep_mpi_ops p2psim_sweep_mpi;
const struct sweep_mpi_ops p2psim_sweep_mpi = {
    .version = SWEEP_MPI_VERSION,
    .init = mpi_init,
    .gather = mpi_gather,
    .agree = mpi_agree,
    .finalize = mpi_finalize,
};
