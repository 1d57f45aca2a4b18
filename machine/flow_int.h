/*
 * machine/flow_int.h - shared by the two halves of the flow fidelity:
 * flow.c (the engine: shared resources, max-min fair rates, copy-engine
 * queues, events, moving the bytes) and flow_plan.c (what one copy-engine
 * operation costs: the routes of its TLPs, the share of every resource it
 * takes per payload byte, and its fixed latencies).
 */
#ifndef P2PSIM_MACHINE_FLOW_INT_H
#define P2PSIM_MACHINE_FLOW_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"

struct gpu_dma;
struct p2psim_flow;
struct sim_component;

/* What a shared resource is; with its owner (a link or a component), its
 * identity. A link direction is its transmitting side (0 or 1). */
enum flow_res_kind {
    FLOW_RES_LINK_FROM_0,       /* link: the direction side 0 sends */
    FLOW_RES_LINK_FROM_1,       /* link: the direction side 1 sends */
    FLOW_RES_P2P,               /* root complex: the P2P serialiser */
    FLOW_RES_XS_P2P,            /* root complex: cross-socket P2P's */
    FLOW_RES_DRAM,              /* host memory: its channel */
    FLOW_RES_HBM,               /* GPU: the HBM serialiser */
    FLOW_RES_L2,                /* GPU: the L2's (copies within HBM) */
    FLOW_RES_TAGS,              /* GPU: outstanding reads of all engines */
    /* link: the credits for TLPs sent by side `from` of flow-control class
     * c, header (h = 0) or data (h = 1): FLOW_RES_CREDIT + (from * 3 + c) *
     * 2 + h; units are credits held (TLPs, bytes), not per second */
    FLOW_RES_CREDIT,
};

/* Uses of resources one operation can have (routes of 32 hops, each
 * charging both directions, a P2P serialiser and two kinds of credits,
 * twice, plus the ends). */
#define FLOW_MAX_USES 256

/*
 * Units of a resource (bytes, or tags) per payload byte of the flow, and
 * where it lies on the route its data takes (the requests of a push, the
 * completions of a pull): pos is 2 x the hop index for a link and its
 * credits, 2 x hop + 1 for the root complex that hop leads to; -1 for
 * what does not hold back the TLPs behind it (a memory, the tags, the
 * other route). hol: a link into a switch or root complex, whose shared
 * receive buffers let TLPs held further on block the others (head-of-line
 * blocking, flow.c). overhead: what the flow's data brings along
 * (DLLPs on the reverse direction, the read requests of a pull): it takes
 * its share of the resource but never holds the flow back.
 */
struct flow_use {
    unsigned res;               /* index in the engine's table */
    double coef;
    int pos;
    bool hol;
    bool overhead;
};

/* What one copy-engine operation costs, decided when its setup ends. */
struct flow_plan {
    struct flow_use use[FLOW_MAX_USES];
    unsigned n_use;
    double cap;                 /* its own bound, bytes/s; 0: none */
    sim_time_t head_ps;         /* setup end to the first byte streaming */
    sim_time_t tail_ps;         /* last byte streamed to done */
    uint64_t tlps;              /* TLPs the operation's engine sends */
    int status;                 /* 0, or -SIM_EIO (an error completion) */
    bool fluid;                 /* bytes stream (false: refused at once) */
    bool move;                  /* the bytes land (moved at done) */
    struct sim_component *remote; /* PUSH/PULL: whose bus address it is */
};

/*
 * flow__plan - the plan of op on GPU g, made at the end of its setup
 * (now): routes are traced and the IOMMU asked now. Returns 0.
 */
int flow__plan(struct p2psim_flow *f, struct sim_component *g,
               const struct gpu_dma *op, struct flow_plan *out);

/*
 * flow__res - the index of the resource (owner, kind), added with
 * capacity cap (units/s; 0: unlimited) the first time it is asked for.
 * Returns -1 when out of memory.
 */
int flow__res(struct p2psim_flow *f, const void *owner,
              unsigned kind, double cap);

#endif /* P2PSIM_MACHINE_FLOW_INT_H */
