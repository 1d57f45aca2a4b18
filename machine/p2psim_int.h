/*
 * machine/p2psim_int.h - struct p2psim, shared by the files of machine/.
 */
#ifndef P2PSIM_MACHINE_P2PSIM_INT_H
#define P2PSIM_MACHINE_P2PSIM_INT_H

#include <stdint.h>

#include "machine/p2psim.h"

struct p2psim_flow;
struct p2psim_trace;
struct xop;
struct storage;
struct topo_machine;
struct p2p_verdict;

/* Allocated bus ranges in one socket's DRAM, sorted by address. */
struct exec_ranges {
    uint64_t lo, hi;            /* the window: [lo, hi) */
    struct { uint64_t addr, len; void *ptr; } *r;
    unsigned n, cap;
};

struct exec_peer_map {
    unsigned gpu;
    uint64_t hbm, len, bus;
};

/*
 * Where a staged copy's chunk buffers live (machine/exec.c): in the host
 * memory of the process's NUMA node, not next to the source GPU. The
 * driver allocates them as pinned system memory, which the kernel places
 * in the node of the allocating thread; the process is taken to run on
 * the first socket [estimate: the calibration runs were not pinned].
 * Measured: on the dual EPYC 7542 (data/calibration/8x-rtx4090-*, P2P
 * disabled, and the stock driver) pairs of socket-1 GPUs are the slowest
 * of every staged matrix (medians 18.7-18.8 GB/s one way, against
 * 19.3-20.2 for the other pairs; 20.1-20.2 both ways, against 20.9-21.6):
 * their chunks cross the socket link both ways.
 */
#define P2PSIM_STAGING_SOCKET 0u

struct p2psim {
    struct topo_machine *m;
    /* operations (machine/exec.c) */
    struct exec_ranges *host;   /* per socket */
    unsigned n_host;
    struct exec_peer_map *map;
    unsigned n_map, cap_map;
    uint64_t chunk;             /* staging chunk, bytes */
    sim_time_t handoff_ps;      /* a staging hand-off; 0: not read yet */
    unsigned *ce_next;          /* per GPU: next copy engine to use */
    unsigned n_ops;             /* copies and fills not yet done */
    struct xop *xops;           /* copies not yet done, newest first */
    struct fop *fops;           /* fills not yet done */
    struct call_at *calls;      /* p2psim_call_at's not yet called */
    uint64_t next_copy_id;      /* p2psim_copy_after's next id (from 1) */
    /* the flow fidelity (machine/flow.c); NULL: the TLP fidelity */
    struct p2psim_flow *flow;
    /* the trace, event log and counters (machine/trace_sink.c); NULL: none */
    struct p2psim_trace *trace;
    /* kernels not yet done (machine/kernel/exec.c) */
    struct kx_grid *grids;
    /* per GPU (by index, n_sm_warps of them; NULL until a grid runs
     * there): the warps resident on each SM, of every grid (exec.c) */
    unsigned **sm_warps;
    unsigned n_sm_warps;
    /* the GPUs' device heaps (machine/kernel/heap.c) */
    struct kx_heap *heaps;
    /* the NVSwitches in the order the nvlinks list first names them
     * (p2psim_nvswitch_*), and for each NVLink entry the number of each
     * end's switch, -1 for a GPU (made at open: nvswitch_init) */
    const char **nvsw;
    unsigned n_nvsw;
    int (*nvl_sw)[2];
    /* the drives' queues and operations (machine/storage.c); NULL: none
     * used yet */
    struct storage *storage;
};

/* p2psim_p2p in machine/path.h's own terms (no translation), for the
 * files of machine/ that ask it on every copy. */
int p2psim__p2p(const struct p2psim *p, unsigned a, unsigned b,
                struct p2p_verdict *out);

/* Entry key of the kept section name (p2psim_section) read as a time
 * into *ps: 0, or -1 when there is none or it is no time (the layer that
 * owns the section reports that, cuda/cudart/api_costs.c). */
int p2psim__section_time(const struct p2psim *p, const char *name,
                         const char *key, sim_time_t *ps);

/* The peer mapping (p2psim_peer_map) that holds [hbm, hbm + len) of
 * GPU gpu, or NULL. */
const struct exec_peer_map *p2psim__find_map(const struct p2psim *p,
                                            unsigned gpu, uint64_t hbm,
                                            uint64_t len);
/* Drive i's component (machine/storage.c), or NULL; their I/O state. */
struct sim_component *p2psim__drive(const struct p2psim *p, unsigned i);
void p2psim__storage_fini(struct p2psim *p);
/* Seen from a VM (machine/p2psim_vm.c): the socket that holds host
 * buffers asked of socket k (the guest's memory's), and the part of
 * socket k's DRAM [*base, *base + *size) that is the guest's (*size 0:
 * none); the host's view keeps k and the whole DRAM. */
unsigned p2psim__guest_socket(const struct p2psim *p, unsigned k);
void p2psim__guest_memory(const struct p2psim *p, unsigned k, uint64_t *base,
                          uint64_t *size);

int p2psim__exec_init(struct p2psim *p);
void p2psim__exec_fini(struct p2psim *p);
/* Free the kernels not yet done (a machine closed mid-run). */
void p2psim__kernel_fini(struct p2psim *p);

#endif /* P2PSIM_MACHINE_P2PSIM_INT_H */
