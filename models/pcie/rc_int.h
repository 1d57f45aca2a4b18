/*
 * models/pcie/rc_int.h - the state of a root complex (rc.h), shared by
 * rc.c (the TLP path, configuration, reports) and rc_decide.c (what the
 * RC does with each TLP: ACS, the IOMMU, routing, the P2P policies and
 * the P2P path). Private to models/pcie/rc*.c.
 */
#ifndef P2PSIM_MODELS_PCIE_RC_INT_H
#define P2PSIM_MODELS_PCIE_RC_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/pcie/egress.h"
#include "models/pcie/pcie.h"
#include "models/pcie/rc.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/time.h"
#include "sim/tlp.h"
#include "sim/trace.h"

/* ---- constants ----------------------------------------------------------- */

#define RC_MAX_ROOT_PORTS 32u
#define RC_MAX_SOCKET_LINKS 7u
#define RC_DEFAULT_LATENCY SIM_NS(150)
/*
 * IOTLB defaults. A hit is taken to be pipelined with the RC's forwarding
 * (it adds nothing); a miss walks a 4-level second-stage table (VT-d r4.0
 * §3.6), one DRAM access per level at host-memory's default 100 ns, with
 * no paging-structure cache: 400 ns, the uncached worst case. These are
 * derived figures, not measurements: set them from a measured machine.
 */
#define RC_DEFAULT_IOTLB_HIT SIM_NS(0)
#define RC_DEFAULT_IOTLB_MISS SIM_NS(400)
#define RC_DEFAULT_IOTLB_ENTRIES 512u
#define RC_DEFAULT_IOMMU_PAGE 4096u
#define RC_ACS_BITS 0x007fu             /* SV..DT (pcie_regs.h) */
#define RC_ID 0x0000u                   /* completer ID: 00:00.0 */
/* rc_iommu_range checks a range as the TLPs that never cross a 4 KiB
 * boundary (PCIe r6.0 §2.2.7) would have it checked: a step each. */
#define RC_IOMMU_STEP UINT64_C(4096)

/* t->route_hint while the RC owns t: an egress port index, or one of: */
#define RC_HINT_UR UINT32_MAX           /* answer with an UR completion */
#define RC_HINT_ATS_SC (UINT32_MAX - 1) /* answer a TREQ with SC */

enum rc_port_kind { RC_PORT_RP, RC_PORT_MEM, RC_PORT_XS };

/* Per-port counters: X(field, what it counts). */
#define RC_PORT_COUNTERS(X)                                                   \
    X(tlps_in, "TLPs received on the port")                                   \
    X(bytes_in, "payload bytes received on the port")                         \
    X(tlps_out, "TLPs sent out of the port")                                  \
    X(bytes_out, "payload bytes sent out of the port")

/* ---- state --------------------------------------------------------------- */

struct rc_port_counters {
#define RC_COUNTER_FIELD(f, doc) uint64_t f;
    RC_PORT_COUNTERS(RC_COUNTER_FIELD)
#undef RC_COUNTER_FIELD
};

struct rc_port {
    struct sim_port *port;      /* the core's port; index = our index */
    enum rc_port_kind kind;
    /* architectural state (root ports only) */
    uint16_t acs_ctrl;          /* ACS Control, PCI_ACS_* */
    /* modelling state */
    sim_time_t last_due;        /* due time of the newest TLP from here */
    uint32_t n_waiting;         /* TLPs from here waiting in their event */
    struct pcie_egress q;       /* egress queue (egress.h) */
    struct rc_port_counters n;
};

struct rc {
    struct sim_component *comp;
    /* configuration */
    unsigned n_rp, n_xs, n_ports;   /* n_ports = n_rp + 1 + n_xs */
    sim_time_t latency_ps;          /* per hop, delivery to due */
    enum rc_p2p_policy p2p, xsocket;
    uint64_t p2p_rate;              /* bytes/s; 0 = unlimited */
    sim_time_t p2p_latency_ps;      /* extra per P2P hop */
    uint64_t xs_rate;               /* cross-socket P2P, bytes/s; 0 = unlimited */
    bool ats;                       /* Translation Requests served */
    bool p2p_atomics;               /* AtomicOps routed to root ports from
                                       root ports and socket links */
    /* architectural state */
    struct pcie_route *route;       /* n_ports, programmed by the builder */
    struct iommu *mmu;
    /* modelling state */
    struct rc_port *port;           /* n_ports */
    sim_time_t p2p_busy_until;      /* P2P serialiser free at, ps */
    sim_time_t xs_busy_until;       /* cross-socket P2P serialiser, ps */
    /* statistics */
    struct rc_counters cnt;
    uint64_t ats_requests, messages, acs_blocked;
};

static inline struct rc *rc_from(const struct sim_component *c)
{
    SIM_ASSERT(c && c->ops == &rc_ops, "%s is not a root-complex",
               c ? c->name : "(null)");
    return sim_component_state(c);
}


/* ---- traces -------------------------------------------------------------- */

static inline void rc_trace(const struct rc *rc, enum sim_trace_point p,
                            const struct sim_port *port, const struct tlp *t,
                            uint64_t a, uint64_t b, const char *msg)
{
    sim_trace_component(rc->comp, p, port ? port->name : NULL, t, a, b, msg);
}

/* ---- the decision (rc_decide.c) ------------------------------------------ */

/* What the RC does with a TLP it received, and when. */
struct rc_decision {
    uint32_t hint;              /* egress index, RC_HINT_*, or... */
    bool drop;                  /* ...discard now (posted, or completion) */
    sim_time_t due_ps;          /* when it leaves the decision stage */
    const char *why;            /* for the trace of a refusal */
};

/*
 * rc_decide - where t, received on port in, goes and when it may leave.
 * Updates the IOMMU, the P2P serialiser and the counters.
 */
struct rc_decision rc_decide(struct rc *rc, unsigned in, struct tlp *t);

#endif /* P2PSIM_MODELS_PCIE_RC_INT_H */
