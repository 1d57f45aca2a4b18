/*
 * cuda/passthrough/passthru.h - the real CUDA runtime behind the shim, and
 * the API trace the shim records (P2PSIM_RECORD).
 *
 * Both are used by the shim's dispatch layer (cuda/cudart/dispatch.h), the
 * generated functions that libcudart.so.13 exports:
 *
 *   P2PSIM_BACKEND=cuda   every call goes to NVIDIA's libcudart.so.13,
 *                         loaded by full path with RTLD_LOCAL
 *                         (reference/cuda-api.md §3.3: a dlopen by name
 *                         would return the shim itself, which owns the
 *                         soname). Which file: $P2PSIM_REAL_CUDART (the
 *                         file, or a folder holding it), else the first
 *                         libcudart.so.13* found in $CUDA_HOME, $CUDA_PATH,
 *                         /usr/local/cuda, /usr/local/cuda-13*, /opt/cuda
 *                         (lib64 and targets/<arch>/lib) and the system's
 *                         library folders. Never the shim: a candidate that
 *                         is our own file (same inode) or another copy of
 *                         p2psim's runtime (it contains the string
 *                         P2PSIM_BACKEND) is skipped.
 *   P2PSIM_RECORD=FILE    one JSON line per call appended to FILE
 *                         (traces/api-trace.md), in either backend.
 *
 * This folder knows nothing of the simulation: the dispatch layer hands
 * the simulated clock to the recorder. Prefix passthru_.
 */
#ifndef P2PSIM_CUDA_PASSTHROUGH_PASSTHRU_H
#define P2PSIM_CUDA_PASSTHROUGH_PASSTHRU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the real runtime ------------------------------------------------------ */

/* Whether P2PSIM_BACKEND selects the real runtime ("cuda" or "real"); read
 * once. Unset, "" or "sim": the simulated runtime. */
bool passthru_backend_is_real(void);

/*
 * passthru_resolve - the real runtime's function called name, looked up on
 * first use and cached in *slot (one slot per function, zeroed at start).
 * Returns NULL when the runtime cannot be loaded or lacks the function;
 * either is said once on stderr.
 */
void *passthru_resolve(const char *name, void **slot);

/* The path of the real runtime that was loaded, or NULL. */
const char *passthru_real_path(void);

/* ---- the API trace ------------------------------------------------------------- */

/* Whether P2PSIM_RECORD names a file that could be opened; read once. */
bool passthru_rec_enabled(void);

/* CLOCK_MONOTONIC, ns. */
uint64_t passthru_now_ns(void);

/* Handles recorded as stable ids (1, 2, ... in order of appearance). */
enum passthru_handle {
    PASSTHRU_STREAM,
    PASSTHRU_EVENT,
    PASSTHRU_POOL,
    PASSTHRU_N_HANDLES
};

/* A handle seen as an argument keeps its id (FIND); one a call creates
 * gets a new id even if the runtime reuses the address (NEW). */
enum passthru_id_mode { PASSTHRU_ID_FIND, PASSTHRU_ID_NEW };

#define PASSTHRU_REC_ARGS 2048      /* bytes of "args":{...} */
#define PASSTHRU_REC_OUT 512        /* bytes of "out":{...} */
#define PASSTHRU_REC_RET 320        /* bytes of the result */

/*
 * One call being recorded, on the caller's stack. The dispatch layer
 * fills it in this order: passthru_rec_begin (sequence number, thread),
 * the times, the arguments (passthru_rec_int ...), passthru_rec_out and
 * what pointer parameters handed back, the result (passthru_rec_ret_*),
 * passthru_rec_write. Too long a field is cut, never overflowed.
 */
struct passthru_rec {
    const char *name;
    uint64_t seq;               /* order of entry, from 0, per process */
    int tid;                    /* the thread, 0, 1, ... in order of its
                                 * first call */
    unsigned depth;             /* calls of this thread already in progress */
    uint64_t t0_ns, t1_ns;      /* CLOCK_MONOTONIC at entry and exit */
    int64_t sim0_ps, sim1_ps;   /* simulated clock of the thread; -1: none */
    bool in_out;                /* arguments now go to "out" */
    size_t args_len, out_len;
    char args[PASSTHRU_REC_ARGS];
    char out[PASSTHRU_REC_OUT];
    char ret[PASSTHRU_REC_RET];
};

void passthru_rec_begin(struct passthru_rec *r, const char *name,
                        unsigned depth);
void passthru_rec_int(struct passthru_rec *r, const char *key, long long v);
void passthru_rec_uint(struct passthru_rec *r, const char *key,
                       unsigned long long v);
void passthru_rec_float(struct passthru_rec *r, const char *key, double v);
/* A pointer, as "0x..." (null as "0x0"). */
void passthru_rec_ptr(struct passthru_rec *r, const char *key,
                      const void *p);
/* A C string (NULL as null), escaped, cut at 256 bytes. */
void passthru_rec_str(struct passthru_rec *r, const char *key,
                      const char *s);
void passthru_rec_dim3(struct passthru_rec *r, const char *key,
                       unsigned x, unsigned y, unsigned z);
void passthru_rec_memloc(struct passthru_rec *r, const char *key, int type,
                         int id);
/* Bytes as a hex string (IPC handles). */
void passthru_rec_bytes(struct passthru_rec *r, const char *key,
                        const void *p, size_t len);
/*
 * A stream, event or pool as its id: 0 for NULL, and for streams -1 for
 * cudaStreamLegacy and -2 for cudaStreamPerThread.
 */
void passthru_rec_handle(struct passthru_rec *r, const char *key,
                         enum passthru_handle kind, const void *h,
                         enum passthru_id_mode mode);
/* The handle was destroyed: its address may come back as another. */
void passthru_rec_forget(enum passthru_handle kind, const void *h);
/* What follows goes to "out": values pointer parameters handed back. */
void passthru_rec_out(struct passthru_rec *r);
void passthru_rec_ret_int(struct passthru_rec *r, long long v);
void passthru_rec_ret_ptr(struct passthru_rec *r, const void *p);
void passthru_rec_ret_str(struct passthru_rec *r, const char *s);
void passthru_rec_ret_none(struct passthru_rec *r);
/* Append the line to the trace (one write, so processes may share it). */
void passthru_rec_write(struct passthru_rec *r);

#endif /* P2PSIM_CUDA_PASSTHROUGH_PASSTHRU_H */
