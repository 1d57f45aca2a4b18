/*
 * machine/kernel/kernel_int.h - the executor's state, shared by exec.c (grids,
 * blocks, warps), memory.c (a warp's memory requests) and cthread.c (C
 * kernels as coroutines).
 */
#ifndef P2PSIM_MACHINE_KERNEL_KERNEL_INT_H
#define P2PSIM_MACHINE_KERNEL_KERNEL_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#include "machine/kernel/kernel.h"
#include "models/gpu/sm.h"
#include "ptx/ptx.h"
#include "sim/event.h"

#define KX_WARP 32u
/* Dynamic parallelism (cdp.c): the parameter buffers' window (beside the
 * generic shared and local windows, above any UVA address), a buffer's
 * bytes (CUDA's limit on a device-side launch's parameters), the nesting
 * depth CUDA allows, the pending-launch limit's default. */
#define KX_CDP_BUF_BASE UINT64_C(0xfd0000000000)
#define KX_CDP_BUF_WINDOW (UINT64_C(1) << 32)
#define KX_CDP_BUF_BYTES 4096u
#define KX_CDP_DEPTH_MAX 24u
#define KX_CDP_PENDING_DEFAULT 2048u
/* Peers whose P2P verdict a grid remembers (more are asked each time). */
#define KX_MAX_PEERS 64u

struct kx_grid;
struct kx_block;

/* One thread of a C kernel: a coroutine, and the call it stopped at. */
struct kx_lane {
    ucontext_t ctx;
    void *stack;
    bool started, exited;
    bool posted;                /* a memory call waits in op.. */
    bool at_bar, at_gsync;
    struct devapi_dim3_int { unsigned x, y, z; } tid;
    /* the call (struct ptx_mem_req per lane) */
    enum ptx_mem_op op;
    unsigned bytes;
    enum ptx_mem_sem sem;
    enum ptx_mem_scope scope;
    enum ptx_atom_op atom;
    enum ptx_atom_type atype;
    uint64_t addr, data[2], cmp, result[2];
};

enum kx_stop { KX_MEM, KX_BAR, KX_GSYNC, KX_EXIT, KX_YIELD, KX_ERROR };

/* A PTX warp's spin detection and, once parked, its replayed round
 * (spin.c). */
struct kx_spin {
    uint64_t sig;               /* the last load's request (0: none) */
    uint8_t *buf;               /* state, shared memory, load results */
    size_t cap, state;          /* buf's size; the state's part */
    unsigned yields;            /* yields since the last load */
    unsigned round_yields;      /* parked: the round's yields */
    unsigned yields_left;       /* parked: still to wait in this round */
    unsigned misses;            /* same-request loads, state not the same */
    bool snapped;               /* buf holds the state at the last load */
    bool impure;                /* a time or texture read since it */
    bool parked;
};

#define KX_BARS 16u             /* named barriers per CTA (PTX) */

struct kx_warp {
    struct kx_block *b;
    unsigned index;             /* in the block */
    uint32_t exists;            /* lanes that are threads */
    struct kx_lane *lanes;      /* C: KX_WARP */
    struct ptx_warp *pw;        /* PTX */
    struct ptx_mem_req req;     /* what it waits on */
    struct sim_event ev;        /* deferred continue */
    unsigned pending;           /* sub-requests it waits for */
    unsigned stores_out;        /* stores not yet acknowledged */
    bool fence_wait;            /* waits for stores_out == 0 */
    unsigned flush_pending;     /* FLUSH requests in flight */
    bool access_after_fence;    /* a release access: the fence first */
    bool at_bar, at_gsync, done;
    unsigned bar_id;            /* the barrier it waits at (at_bar) */
    uint32_t last_err[KX_WARP]; /* device runtime: each thread's last
                                   error (cdp.c) */
    struct kx_spin spin;
    unsigned faults;            /* page faults it waits for */
};

struct kx_block {
    struct kx_grid *gr;
    unsigned linear;            /* block index in the grid */
    unsigned idx[3];
    unsigned sm;
    unsigned n_warps, live_warps;
    /* the CTA's 16 named barriers: warps arrived, warps expected (0:
     * every live warp), bar.red's sums */
    unsigned bar_arrived[KX_BARS], bar_want[KX_BARS];
    uint32_t bar_true[KX_BARS], bar_lanes[KX_BARS];
    struct kx_warp *warps;
    uint8_t *smem;
    uint32_t smem_bytes;
    bool finished;
    int null_stream;            /* cdp.c: its NULL stream, -1: none yet */
    struct kx_block *next;      /* all blocks of the grid */
};

struct kx_grid {
    struct p2psim *p;
    struct p2psim_launch l;
    struct sim_component *gpu;
    struct sim *sim;
    uint8_t *params;            /* C: argument copies; PTX: the buffer */
    void **argv;                /* C: pointers into params */
    uint64_t *vars;
    unsigned n_sm, per_sm, *sm_load;
    unsigned *gpu_warps;        /* the GPU's, shared (p->sm_warps) */
    bool started;               /* grid_start has run */
    bool *sm_used;
    uint64_t n_blocks, next_block, live_blocks;
    unsigned threads_per_block, warps_per_block;
    uint64_t gridid;            /* %gridid */
    uint64_t gsync_arrived, gsync_total;  /* warps */
    unsigned stores_out;        /* grid-wide */
    unsigned end_flushes;
    bool ending;
    int status;
    bool park;                  /* spinning warps park (spin.c) */
    bool impure;                /* the running warp read time or texels */
    char msg[PTX_ERROR_MSG_BYTES];
    struct kx_block *blocks;
    /* peer GPU -> NVLink or not, native atomics or not, asked once per
     * grid (memory.c); host memory's atomics likewise */
    bool peer_known[KX_MAX_PEERS], peer_nvl[KX_MAX_PEERS];
    bool peer_atomics[KX_MAX_PEERS];
    bool host_known, host_atomics;
    uint64_t peer_nvl_base[KX_MAX_PEERS];
    struct sim_event start_ev;
    sim_time_t t_start;
    /* what a machine closed mid-kernel (out of memory) must free */
    struct kx_sub *subs;        /* SM requests not yet done */
    struct kx_sub *sub_pool;    /* done ones, for reuse (live_next) */
    /* PTX warps of finished blocks, for the next blocks' warps
     * (ptx_warp_renew) */
    struct ptx_warp **spare;
    size_t n_spare, spare_cap;
    struct kx_grid *live_prev, *live_next; /* the machine's grids */
    /* dynamic parallelism (cdp.c) */
    struct kx_grid *parent;     /* NULL: launched by the host */
    unsigned depth;             /* 0: launched by the host */
    unsigned children;          /* launched, not yet complete */
    struct kx_dstream *streams;
    unsigned n_streams, cap_streams;
    int tail_stream;            /* index in streams, -1: none */
    unsigned cdp_waiting;       /* the tree's (root only): launches not
                                   yet started */
    bool cdp_said_memcpy;
};

struct kx_dstream;

/* A request to the SM model made for a warp (or for a grid's end). */
struct kx_sub {
    struct gpu_sm_req r;        /* first: the SM model's request */
    struct kx_grid *gr;
    struct kx_sub *live_prev, *live_next; /* the grid's (gr->subs) */
    struct kx_warp *w;          /* NULL: the flush at the grid's end */
    uint32_t lanes;             /* LOAD: lanes served; ATOMIC: one lane */
    uint64_t va;                /* LOAD: address of r.data[0] */
    bool store;                 /* counted in stores_out */
};

/* exec.c */
/* malloc or free of a warp (q: PTX_MEM_MALLOC, PTX_MEM_FREE) served by
 * the GPU's device heap (heap.c); -1 with the grid failed. kx__heap_fini
 * frees the machine's heaps. */
int kx__heap_serve(struct kx_grid *gr, struct ptx_mem_req *q);
void kx__heap_fini(struct p2psim *p);

void kx__fail(struct kx_grid *gr, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
uint64_t kx__time_sreg(struct kx_grid *gr, enum ptx_time_sreg which);
/* Out of memory inside the run: the grid fails, and so does the simulation. */
void kx__nomem(struct kx_grid *gr, const char *what);
/* A warp's loads, atomics or fence are done: resume it and run it on. */
void kx__warp_mem_complete(struct kx_warp *w);
/* Start blocks where SMs have room; at the end, flush and finish. */
void kx__grid_dispatch(struct kx_grid *gr);

/* A grid of the executor, child of parent (NULL: the host's). */
int kx__grid_launch(struct p2psim *p, const struct p2psim_launch *l,
                    struct kx_grid *parent);

/* cdp.c */
/* ctx.devrt_fn of a PTX warp (user: the struct kx_warp). */
int kx__devrt(void *user, struct ptx_devrt_call *c, char *msg, size_t cap);
/* w's request reaches a parameter buffer: served (true), or not one. */
bool kx__cdp_mem(struct kx_warp *w);
/* The grid's children are complete (tail launches started when due). */
bool kx__cdp_idle(struct kx_grid *gr);
void kx__cdp_free(struct kx_grid *gr);

/* memory.c */
/* A request of grid gr, on its list until kx__sub_free; NULL out of memory.
 * Its fields are zero but for r.data (what a request sends or receives). */
struct kx_sub *kx__sub_alloc(struct kx_grid *gr);
/* Off the list, kept in gr's pool for the next kx__sub_alloc. */
void kx__sub_free(struct kx_sub *s);
/* Free the pool (the grid's end). */
void kx__sub_pool_free(struct kx_grid *gr);
/* Serve the memory request w stopped at (w->req); true if it is over. */
bool kx__warp_mem_issue(struct kx_warp *w);

/* spin.c */
/* Whether warps park: P2PSIM_PARK is not "0". */
bool kx__spin_enabled(void);
/* The PTX warp w stopped with stop (its request in w->req). */
void kx__spin_stop(struct kx_warp *w, enum kx_stop stop);
/* w's load is back: true if w is parked and the round is replayed (the
 * caller waits its yields and issues the load again). */
bool kx__spin_loaded(struct kx_warp *w);
void kx__spin_reset(struct kx_warp *w);
void kx__spin_free(struct kx_warp *w);

/* cthread.c: a C block's lanes, running a C warp until it stops. */
int kx__c_block_init(struct kx_block *b);
void kx__c_block_fini(struct kx_block *b);
enum kx_stop kx__c_warp_run(struct kx_warp *w);
void kx__c_warp_resume(struct kx_warp *w);

#endif /* P2PSIM_MACHINE_KERNEL_KERNEL_INT_H */
