/*
 * machine/exec.h - operations on a machine: copies between host memory and
 * GPUs and between GPUs, directly (P2P) or staged through pinned host
 * memory as the CUDA driver does, with simulated start and end times.
 * Part of libp2psim (declared through machine/p2psim.h).
 */
#ifndef P2PSIM_MACHINE_EXEC_H
#define P2PSIM_MACHINE_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"

struct p2psim;
struct sim_error;

enum p2psim_mem { P2PSIM_HOST, P2PSIM_DEVICE };

/* Where bytes are: a GPU's HBM offset, or a host bus address. */
struct p2psim_loc {
    enum p2psim_mem kind;
    unsigned gpu;               /* P2PSIM_DEVICE */
    uint64_t addr;              /* HBM offset, or host bus address */
};

#define P2PSIM_COPY_PEER 0x1u   /* GPU to GPU directly over the fabric */
#define P2PSIM_COPY_READ 0x2u   /* peer copy as reads by the destination */

/* What happened, for reports and tests. */
struct p2psim_copy_result {
    int status;                 /* 0, or -SIM_EIO (error completion) */
    bool staged;                /* went through host memory */
    sim_time_t t_start, t_end;  /* ps */
};

/* done is called once per operation, from inside the simulation; an
 * operation still in flight when p2psim_close runs is dropped without
 * it (arg stays the caller's to free). The same for p2psim_call_at. */
typedef void p2psim_done_fn(void *arg, const struct p2psim_copy_result *r);

/*
 * p2psim_host_register - make len bytes at ptr (program memory) visible to
 * the machine as pinned host memory of socket `socket`; *bus_addr is where
 * the GPUs address it. The memory must stay valid until unregistered.
 */
int p2psim_host_register(struct p2psim *p, void *ptr, uint64_t len,
                         unsigned socket, uint64_t *bus_addr);
int p2psim_host_unregister(struct p2psim *p, uint64_t bus_addr);

/*
 * p2psim_peer_map - expose [hbm_addr, hbm_addr + len) of GPU gpu to peers
 * through its BAR1 (what enabling peer access does for an allocation).
 * Returns 0 or -SIM_ENOMEM when BAR1 is exhausted.
 */
int p2psim_peer_map(struct p2psim *p, unsigned gpu, uint64_t hbm_addr,
                    uint64_t len);

/*
 * p2psim_copy - copy len bytes from src to dst, starting no earlier than
 * start_at (the calling host thread's simulated time). Device to device
 * on different GPUs goes directly with P2PSIM_COPY_PEER when the peer
 * range is mapped (or can be), else it is staged in pipelined chunks
 * through pinned host memory. done is called from inside the simulation
 * when the data is in place. Returns 0 or -SIM_EINVAL.
 */
int p2psim_copy(struct p2psim *p, const struct p2psim_loc *dst,
                const struct p2psim_loc *src, uint64_t len, unsigned flags,
                sim_time_t start_at, p2psim_done_fn *done, void *arg);

/*
 * p2psim_copy_after - p2psim_copy in order behind copy `after` (0: none),
 * as a stream runs its copies: *id (may be NULL) receives this copy's id
 * (from 1, never reused) for a later call to name.
 *
 * While `after` is not done, this copy starts no earlier than `after`
 * did, and:
 *   - where both are direct single-engine operations driven by the same
 *     GPU (a pull by the destination of a host-to-device or read peer
 *     copy, a push by the source of a device-to-host or peer copy, a copy
 *     within one GPU), it is queued on `after`'s copy engine as soon as
 *     it starts, so that the engine's in-order rules keep the order
 *     (models/gpu/copy_engine.c, "Ordering"): its setup may overlap
 *     `after`'s end, as queued copies on real hardware do;
 *   - otherwise (another GPU drives it, either is staged) it starts when
 *     `after` is done, as if it had been submitted then.
 * A copy may have several copies after it. An `after` that is already
 * done orders nothing. Returns 0, or -SIM_EINVAL (as p2psim_copy, or an
 * `after` no call has returned), -SIM_ENOMEM.
 */
int p2psim_copy_after(struct p2psim *p, uint64_t after,
                      const struct p2psim_loc *dst,
                      const struct p2psim_loc *src, uint64_t len,
                      unsigned flags, sim_time_t start_at,
                      p2psim_done_fn *done, void *arg, uint64_t *id);

/*
 * p2psim_fill - set len bytes of GPU gpu's HBM from hbm_addr to value,
 * starting no earlier than start_at; done is called from inside the
 * simulation when the bytes are set (r->staged is false). The cost is
 * a copy-engine operation on that GPU: its setup, len bytes through the
 * HBM serialiser (shared with every other access to that HBM) and the
 * HBM latency. Returns 0 or -SIM_EINVAL (bad GPU, len 0, range outside
 * HBM) or -SIM_ENOMEM.
 */
int p2psim_fill(struct p2psim *p, unsigned gpu, uint64_t hbm_addr,
                uint8_t value, uint64_t len, sim_time_t start_at,
                p2psim_done_fn *done, void *arg);

/*
 * Direct access to a GPU's HBM bytes, outside simulated time (no traffic,
 * no cost): for the CUDA shim's bookkeeping and for tests. Return 0,
 * -SIM_EINVAL (no such GPU) or -SIM_ERANGE (past the end of HBM).
 * p2psim_hbm_size: the GPU's memory size in bytes (0: no such GPU).
 */
uint64_t p2psim_hbm_size(const struct p2psim *p, unsigned gpu);
int p2psim_hbm_read(struct p2psim *p, unsigned gpu, uint64_t hbm_addr,
                    void *dst, uint64_t len);
int p2psim_hbm_write(struct p2psim *p, unsigned gpu, uint64_t hbm_addr,
                     const void *src, uint64_t len);

/*
 * p2psim_call_at - call fn(arg) from inside the simulation at time t (now
 * if t is past): a host-side action that must happen at a simulated
 * instant (a memset of pinned memory, the end of a fixed latency).
 * Returns 0 or -SIM_ENOMEM.
 */
typedef void p2psim_call_fn(void *arg);
int p2psim_call_at(struct p2psim *p, sim_time_t t, p2psim_call_fn *fn,
                   void *arg);

/* Simulated time, and running it. */
sim_time_t p2psim_now(const struct p2psim *p);
int p2psim_run(struct p2psim *p);
int p2psim_run_until(struct p2psim *p, sim_time_t t);

/* Staging chunk size (default 2 MiB); for sweeps and tests. */
void p2psim_set_staging_chunk(struct p2psim *p, uint64_t bytes);

/*
 * p2psim_set_fidelity - how copies and fills are simulated from now on:
 * "tlp" (or NULL; the default: every packet through the link, switch and
 * root-complex models) or "flow" (each copy-engine operation one flow
 * sharing the links and other resources max-min fairly, with the TLP
 * model's efficiencies and latencies; machine/flow.c). p2psim_open applies
 * p2psim_options.fidelity through it. Returns 0, or -SIM_EINVAL (an
 * unknown name), -SIM_EBUSY (copies or fills in flight), -SIM_ENOMEM;
 * err (may be NULL) says why.
 */
int p2psim_set_fidelity(struct p2psim *p, const char *name,
                        struct sim_error *err);
/* "tlp" or "flow". */
const char *p2psim_fidelity(const struct p2psim *p);

#endif /* P2PSIM_MACHINE_EXEC_H */
