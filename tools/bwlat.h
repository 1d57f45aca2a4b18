/*
 * tools/bwlat.h - the measurements of p2pBandwidthLatencyTest (and the
 * single quantities of p2psim sweep), taken through the CUDA runtime API
 * on a simulated machine.
 *
 * How a measurement runs (bwlat_job.c): the CUDA shim keeps one runtime
 * per process, built from the environment at the first CUDA call. So every
 * request runs in a child process: fork, set P2PSIM_TOPOLOGY,
 * P2PSIM_FIDELITY and P2PSIM_SET (the overrides), dlopen the shim
 * (libcudart.so.13, found as `p2psim run` finds it), measure with the CUDA
 * calls of bwlat.c, send the results back through a pipe, _exit. The
 * parent (p2psim itself) never loads the shim; it can run several children
 * at once (sweep --jobs).
 *
 * Why dlopen and not a link against libcudart.so.13: a p2psim binary that
 * needed libcudart.so.13 would load whichever one LD_LIBRARY_PATH names
 * first (NVIDIA's, on a CUDA machine) for every subcommand, and a libtool
 * wrapper would move the binary away from where `p2psim run` looks for the
 * build tree's shim. Loaded by path in the child, the runtime is exactly
 * the one `p2psim run` gives programs, and nothing else sees it. (With
 * P2PSIM_CUDART_DIR pointing at NVIDIA's runtime, the same code measures a
 * real machine.)
 *
 * Ownership: bwlat_run() and bwlat_job_finish() fill a struct bwlat_result
 * that the caller releases with bwlat_result_free().
 */
#ifndef P2PSIM_TOOLS_BWLAT_H
#define P2PSIM_TOOLS_BWLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The matrices, in the order p2pBandwidthLatencyTest prints them. */
enum bwlat_matrix {
    BWLAT_UNI_DISABLED,         /* uni_p2p_disabled_GBps */
    BWLAT_UNI_ENABLED,          /* uni_p2p_enabled_GBps (P2P writes) */
    BWLAT_UNI_ENABLED_READ,     /* uni_p2p_enabled_read_GBps (--p2p_read) */
    BWLAT_BIDIR_DISABLED,       /* bidir_p2p_disabled_GBps */
    BWLAT_BIDIR_ENABLED,        /* bidir_p2p_enabled_GBps */
    BWLAT_LAT_DISABLED_GPU,     /* latency_p2p_disabled_gpu_us */
    BWLAT_LAT_DISABLED_CPU,     /* latency_p2p_disabled_cpu_us */
    BWLAT_LAT_ENABLED_GPU,      /* latency_p2p_enabled_gpu_us (writes) */
    BWLAT_LAT_ENABLED_CPU,      /* latency_p2p_enabled_cpu_us */
    BWLAT_LAT_ENABLED_READ_GPU, /* latency_p2p_enabled_read_gpu_us */
    BWLAT_LAT_ENABLED_READ_CPU, /* latency_p2p_enabled_read_cpu_us */
    BWLAT_N_MATRICES
};

#define BWLAT_BIT(m) (1u << (m))
/* The sample's matrices without --p2p_read, and with it. */
#define BWLAT_DEFAULT_SET                                                     \
    (BWLAT_BIT(BWLAT_UNI_DISABLED) | BWLAT_BIT(BWLAT_UNI_ENABLED) |           \
     BWLAT_BIT(BWLAT_BIDIR_DISABLED) | BWLAT_BIT(BWLAT_BIDIR_ENABLED) |       \
     BWLAT_BIT(BWLAT_LAT_DISABLED_GPU) | BWLAT_BIT(BWLAT_LAT_DISABLED_CPU) |  \
     BWLAT_BIT(BWLAT_LAT_ENABLED_GPU) | BWLAT_BIT(BWLAT_LAT_ENABLED_CPU))
#define BWLAT_READ_SET                                                        \
    (BWLAT_BIT(BWLAT_UNI_ENABLED_READ) |                                      \
     BWLAT_BIT(BWLAT_LAT_ENABLED_READ_GPU) |                                  \
     BWLAT_BIT(BWLAT_LAT_ENABLED_READ_CPU))

struct bwlat_matrix_info {
    const char *name;           /* "uni_p2p_enabled_GBps": CSV, JSON, cases */
    const char *heading;        /* the sample's heading line; NULL: none
                                 * (the CPU half of a latency table) */
    const char *corner;         /* the table's top-left cell: "   D\\D" */
    const char *unit;           /* "GB/s" or "us" */
};
extern const struct bwlat_matrix_info bwlat_matrices[BWLAT_N_MATRICES];

/* Index of the matrix called name, or -1. */
int bwlat_matrix_find(const char *name);

/* ---- single quantities (p2psim sweep) ------------------------------------ */

enum bwlat_copy {
    BWLAT_COPY_P2P,             /* a -> b, peer access enabled both ways */
    BWLAT_COPY_P2P_READ,        /* b -> a on a's stream, peer access */
    BWLAT_COPY_STAGED,          /* a -> b, peer access not enabled */
    BWLAT_COPY_H2D,             /* pinned host memory -> a */
    BWLAT_COPY_D2H,             /* a -> pinned host memory */
    BWLAT_COPY_D2D,             /* within a */
};

struct bwlat_probe {
    enum bwlat_copy copy;
    bool bidir;                 /* both directions at once (a<->b pairs) */
    bool latency;               /* time per copy (us), else GB/s */
    int a, b;                   /* GPU indices; b unused for one GPU */
    uint64_t size_bytes;        /* bytes per copy */
    unsigned repeat;            /* copies back to back */
};

/* ---- a request and its result -------------------------------------------- */

struct bwlat_request {
    const char *machine;        /* machine file; NULL: the built-in default */
    const char *fidelity;       /* "tlp", "flow"; NULL: the runtime's */
    const char *overrides;      /* "path=value" lines (P2PSIM_SET); NULL */
    const char *cudart;         /* path of the libcudart.so.13 to load */
    int n_elems;                /* ints per bandwidth buffer (--numElems) */
    unsigned matrices;          /* BWLAT_BIT() set; 0: none */
    const uint8_t *cells;       /* n x n: 1 where a cell is wanted; NULL:
                                 * all. (The diagonal is measured when
                                 * wanted like any cell.) */
    unsigned n_cells;           /* n of cells (must match the machine) */
    const struct bwlat_probe *probes;
    unsigned n_probes;
    bool sm_copy;               /* --sm_copy: where peer access is enabled,
                                 * copies by a copy kernel (bwlat.c) */
    bool progress;              /* a progress line on stderr per cell */
    bool trace;                 /* keep P2PSIM_TRACE, _EVENTS, _COUNTERS
                                 * and their options (tools/trace_opts.h)
                                 * for the child's runtime */
    const char *trace_tag;      /* and put "-tag" in their file names */
};

struct bwlat_gpu {
    char name[256];             /* cudaDeviceProp.name */
    int pci_domain, pci_bus, pci_device;
};

struct bwlat_result {
    int status;                 /* 0; else a failure, described in error */
    char error[512];
    unsigned n;                 /* GPUs */
    struct bwlat_gpu *gpu;      /* n */
    int *can_access;            /* n x n, cudaDeviceCanAccessPeer (1 on the
                                 * diagonal, as the sample prints it) */
    double *m[BWLAT_N_MATRICES];/* n x n, row-major; NULL where not
                                 * requested; NaN where not measured */
    double *probe;              /* n_probes: GB/s or us */
    unsigned n_probes;
};

void bwlat_result_free(struct bwlat_result *r);

/* ---- running requests ---------------------------------------------------- */

/*
 * bwlat_find_cudart - the path of the CUDA shim (libcudart.so.13), looked
 * for as `p2psim run` does: $P2PSIM_CUDART_DIR, the build tree next to this
 * binary, the installed $(pkglibdir). Prints why on failure; -1.
 */
int bwlat_find_cudart(char *out, size_t size);

/* A request running in a child process. */
struct bwlat_job {
    pid_t pid;
    int fd;                     /* the result pipe; -1 once at its end */
    char *buf;                  /* what the child sent */
    size_t len, cap;
};

/* Fork the child that serves rq. 0, or -1 (fork or pipe failed). */
int bwlat_job_start(struct bwlat_job *j, const struct bwlat_request *rq);
/* Read what the child sent so far: 1 at the end of its output, 0 if more
 * is to come, -1 on a read error. For poll() loops over several jobs. */
int bwlat_job_read(struct bwlat_job *j);
/* Wait for the child and decode its result (out->status says how it
 * went). Returns out->status. */
int bwlat_job_finish(struct bwlat_job *j, struct bwlat_result *out);

/* Start, read and finish one request. Returns out->status. */
int bwlat_run(const struct bwlat_request *rq, struct bwlat_result *out);

/*
 * bwlat_pool_run - n tasks in child processes, at most `jobs` at once:
 * start(i, j, arg) starts task i's child in j (bwlat_job_start; 0, or -1
 * to stop starting more), done(i, j, arg) is called once that child has
 * sent everything (it calls bwlat_job_finish). Tasks start in order.
 * Returns 0, or -1 if a start or poll failed (errno says why); the tasks
 * already running are finished (done) either way.
 */
typedef int bwlat_start_fn(size_t i, struct bwlat_job *j, void *arg);
typedef void bwlat_done_fn(size_t i, struct bwlat_job *j, void *arg);
int bwlat_pool_run(size_t n, unsigned jobs, bwlat_start_fn *start,
                   bwlat_done_fn *done, void *arg);

/* ---- the measurements (bwlat.c, run in the child) ------------------------ */

struct bwlat_cuda;
/*
 * bwlat_measure - run rq through the CUDA runtime cu into out (n, gpu,
 * can_access, the requested matrices and probes). A failing CUDA call ends
 * the child: the result says which call failed and why.
 */
void bwlat_measure(const struct bwlat_cuda *cu, const struct bwlat_request *rq,
                   struct bwlat_result *out);

#endif /* P2PSIM_TOOLS_BWLAT_H */
