/*
 * models/gpu/sm.h - the memory side of a GPU's streaming multiprocessors
 * (SMs): what a warp's coalesced memory request does once it leaves the
 * SM. Kernel execution itself (threads, warps, blocks) lives in
 * machine/kernel/; this model sees requests of at most 128 bytes that never
 * cross a 128-byte line, each issued by one SM.
 *
 * A request is local (addr is an offset in this GPU's HBM) or remote
 * (addr is a bus address: a peer's BAR1, or pinned host memory):
 *
 *   submit -> LSU slot (one request per SM clock) -> local:  HBM now,
 *                                                    done after the HBM
 *                                                    serialiser + latency
 *                                                 -> remote: loads: MRd with
 *                                                    a tag, done with the
 *                                                    completion; stores:
 *                                                    the write-combining
 *                                                    buffer, MWr later;
 *                                                    atomics: AtomicOp TLP
 *
 * docs/kernels.md and docs/memory-model.md describe the mechanisms; the
 * "Model:" comments in sm.c say what is simplified.
 */
#ifndef P2PSIM_MODELS_GPU_SM_H
#define P2PSIM_MODELS_GPU_SM_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/time.h"

struct sim_component;

/* A line of the SM's coalescer and write-combining buffer, bytes. */
#define GPU_SM_LINE_BYTES 128u

enum gpu_sm_kind {
    GPU_SM_LOAD,                /* len bytes into data */
    GPU_SM_STORE,               /* len bytes from data */
    GPU_SM_ATOMIC,              /* read-modify-write of 4 or 8 bytes */
    GPU_SM_FLUSH,               /* drain the SM's writes, see below */
};

/* Atomic operations (PTX atom/red; CUDA atomicX). */
enum gpu_sm_atom {
    GPU_SM_ATOM_ADD, GPU_SM_ATOM_EXCH, GPU_SM_ATOM_CAS, GPU_SM_ATOM_MIN,
    GPU_SM_ATOM_MAX, GPU_SM_ATOM_INC, GPU_SM_ATOM_DEC, GPU_SM_ATOM_AND,
    GPU_SM_ATOM_OR, GPU_SM_ATOM_XOR,
};

/* The operand type of an atomic: sets the size (4 or 8) and how min, max
 * and add compare and add. */
enum gpu_sm_type {
    GPU_SM_U32, GPU_SM_S32, GPU_SM_U64, GPU_SM_S64, GPU_SM_F32, GPU_SM_F64,
};

struct gpu_sm_req;
typedef void gpu_sm_done_fn(struct gpu_sm_req *r);

/*
 * One request, owned by the caller until done(r) runs (from an event of
 * the simulation, never from inside gpu_sm_submit).
 *
 * done() means: LOAD, ATOMIC: the data (old value) is in data / old.
 * STORE local: the write is in HBM (acknowledged). STORE remote: the
 * write has left the SM's write-combining buffer for the GPU's egress
 * (posted: nothing is acknowledged). FLUSH: every remote write this SM
 * had issued before it (combined or not) has reached its destination:
 * the buffer was drained and a zero-length read to each destination
 * written since the last FLUSH has completed (a read does not pass a
 * posted write on its path, PCIe r6.0 §2.4.1).
 */
struct gpu_sm_req {
    enum gpu_sm_kind kind;
    unsigned sm;                /* issuing SM, < gpu_sm_count() */
    bool remote;                /* addr is a bus address, else HBM offset */
    uint64_t addr;
    uint32_t len;               /* LOAD/STORE: 1..128 within one line */
    uint8_t data[GPU_SM_LINE_BYTES];
    /* ATOMIC */
    enum gpu_sm_atom atom;
    enum gpu_sm_type type;
    uint64_t operand;           /* raw bits (F32 in the low 32 bits) */
    uint64_t compare;           /* CAS */
    bool no_atomicops;          /* remote: the path routes no AtomicOps
                                   (the driver enabled none): the SM reads,
                                   applies and writes, not atomically */
    uint64_t old;               /* result: the value before */
    gpu_sm_done_fn *done;
    void *user;
    int status;                 /* 0, -SIM_EIO (error completion) */
    sim_time_t t_done;          /* ps */
    /* private to the model */
    struct sim_event ev;
    struct gpu_sm_req *next;
    uint32_t got;               /* LOAD: bytes of completion data */
    unsigned pending;           /* FLUSH: reads outstanding */
    bool cas_retry;             /* ATOMIC emulated by read + CAS */
    bool rmw;                   /* ATOMIC done as read + write */
    void *owner;                /* the GPU model */
};

/*
 * Parameters, from the GPU's properties (its catalog entry, then the
 * machine file's defaults.gpu and set:), with defaults (sm.c) where none
 * is given; gpu_sm_set_params changes them (tests, sweeps).
 *   n_sm         SMs (sms; 132 when none)
 *   clock_hz     LSU issue clock (sm-clock; 1.98 GHz when none)
 *   outstanding  remote non-posted requests one SM keeps in flight
 *                (sm-outstanding, 1..1024; default 64)
 *   wc_lines     write-combining lines per SM (sm-wc-lines, 1..1024;
 *                default 16)
 *   wc_timeout   how long a partial line may wait for more bytes
 *                (sm-wc-timeout; default 500ns)
 *   launch_ps    a kernel launch's GPU-side latency: from the host's
 *                doorbell (the end of the launch call) to the first block
 *                (launch-latency; default 3us). machine/kernel/ charges it.
 */
struct gpu_sm_params {
    unsigned n_sm;
    uint64_t clock_hz;
    unsigned outstanding;
    unsigned wc_lines;
    sim_time_t wc_timeout_ps;
    sim_time_t launch_ps;
};
void gpu_sm_get_params(struct sim_component *g, struct gpu_sm_params *out);
/* Change them (tests, sweeps); only while no request is in flight. */
int gpu_sm_set_params(struct sim_component *g, const struct gpu_sm_params *p);
unsigned gpu_sm_count(struct sim_component *g);

/*
 * gpu_sm_submit - issue r from SM r->sm. Returns 0, or -SIM_EINVAL (bad
 * SM, length, line crossing, range outside HBM, atomic size),
 * -SIM_ENOTCONN (remote while the GPU is not connected), -SIM_ENOMEM.
 */
int gpu_sm_submit(struct sim_component *g, struct gpu_sm_req *r);

/*
 * The arithmetic of an atomic: the new value of a location holding old,
 * by common/atomic.h's rules (NaN included). Used by the local path, the
 * emulation of non-native remote atomics and the tests.
 */
uint64_t gpu_sm_atom_apply(enum gpu_sm_atom op, enum gpu_sm_type type,
                           uint64_t old, uint64_t operand, uint64_t compare);
unsigned gpu_sm_type_bytes(enum gpu_sm_type type);

struct gpu_sm_counters {
    uint64_t loads, stores, atomics, flushes;  /* requests */
    uint64_t remote_reads, remote_writes, remote_atomics;  /* TLPs */
    uint64_t remote_write_bytes;
    uint64_t wc_merges;         /* stores merged into a pending line */
    uint64_t cas_retries;       /* emulated atomics that lost a race */
    uint64_t rmw_atomics;       /* remote atomics done as read + write */
};
void gpu_sm_get_counters(struct sim_component *g, struct gpu_sm_counters *out);

#endif /* P2PSIM_MODELS_GPU_SM_H */
