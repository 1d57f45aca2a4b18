/*
 * models/pcie/rc.c - the root complex of one socket (kind "root-complex"):
 * root ports, the port to the socket's DRAM, socket-link ports, the
 * IOMMU, and the policies that decide peer-to-peer traffic between root
 * ports and across sockets.
 *
 *        "rp0"   "rp1" ... "rp<N-1>"        root ports (DOWNSTREAM, 0..N-1)
 *          |       |          |
 *     +----+-------+----------+--------------------------+
 *     |  ACS SV/TB -> IOMMU -> route by address or ID    |
 *     |     -> P2P policy + P2P path (rate, latency)     |
 *     |  latency per hop; egress queue per port          |
 *     +----+-----------------------+---------------------+
 *          |                       |
 *        "mem"  (port N)         "xs0" ... "xs<K-1>"    (PEER, N+1..N+K)
 *          |                       |
 *      host DRAM              other sockets' root complexes
 *
 * Life of a TLP. A link delivers it to rc_receive() on an ingress port.
 * The RC decides at once what happens to it (rc_decide) and when it may
 * leave: `latency` after delivery, plus the IOMMU's cost, plus, on the
 * P2P path, the wait for the P2P serialiser and `p2p-latency`. When that
 * is the plain `latency` (the common case), it joins the egress port's
 * queue at once and is offered to the link with not_before = its due time
 * (sim/tlp.h), costing no event of the RC's own. Otherwise (an IOTLB
 * walk, the P2P serialiser, or an earlier TLP from the same port still
 * waiting) it waits in its own embedded event until it is due, then joins
 * the queue. A refused TLP stays queued and the link's ready() restarts
 * the queue.
 * Model: as in switch.c, a TLP that goes on at once is judged against the
 * egress link's credits at delivery, and takes its place on the egress
 * link then: one that waited in its event and becomes due while an
 * earlier-decided TLP still waits out its latency on the same link
 * queues behind that one (later by at most `latency`).
 *
 * Requests from a root port:
 *  1. ACS on the root port: SV (the requester's bus must be below the
 *     port) and TB (no AT = translated requests) block the request.
 *  2. ATS Translation Requests are answered here (PCIe r6.0 §10.2.2): a
 *     Translation Completion with SC if `ats` is on and the IOMMU allows
 *     the page, else UR, after the IOTLB hit or miss latency.
 *  3. The IOMMU checks (mode != off) every request whose AT is not
 *     "translated" (translated ones pass when `ats` is on). A refusal is a
 *     fault: recorded by the IOMMU, traced ("iommu fault"), and the
 *     request is answered with UR (non-posted) or dropped (posted).
 *  4. Route by address (rc_routes): "mem" -> host memory; a root port's
 *     window -> the P2P policy (forward, writes-only: MWr only, refuse);
 *     an xs port's window -> across the socket link; nothing -> UR/drop.
 * Requests from an xs port (another socket's traffic): route by address;
 * a request for one of our root ports is cross-socket P2P and the
 * cross-socket policy decides here, where the target is known.
 * Model: the cross-socket policy is applied by the socket that owns the
 * target root port, not the sending one, because only the target's
 * socket knows whether the address is a device (peer-to-peer) or DRAM;
 * DMA to the other socket's DRAM always works, as on every real
 * multi-socket machine (the staged fallback of a refused P2P copy relies
 * on it). The sending socket's IOMMU has already checked the request,
 * so the receiving one does not check it again (the IOMMU translates
 * at the requester's root complex). Both sockets of a machine carry the
 * same CPU and so, in practice, the same policy.
 * Requests from "mem" (the host side) are routed by address with no check.
 * ID-routed TLPs (completions: requester ID; ATS invalidations: the
 * destination ID in completer_id, as in switch.c) go to the port whose
 * buses claim them; a completion from one root port to a root port uses
 * the P2P path too. Completions nobody claims are dropped and counted
 * (PCIe r6.0 §2.3.2, unexpected completion); messages and ATS
 * invalidations addressed to the RC itself are consumed.
 *
 * The P2P path. Root-port-to-root-port traffic (requests and their
 * completions, including a request sent back down its own root port
 * after a switch's ACS redirect) shares one serialiser of `p2p-bandwidth`
 * bytes/s, charged header + payload bytes, then waits `p2p-latency`. This
 * is the mechanism behind "P2P through this CPU is slow" (reference §2.9,
 * user story 1): the figure comes from the configured rate, not from a
 * per-transfer penalty.
 *
 * ACS on root ports: SV and TB are enforced (above). RR, CR, UF, EC and
 * DT are stored (rc_set_acs) for the builder and for `p2psim explain`,
 * and change nothing here: in this model every root-port-to-root-port TLP
 * already goes through the RC, its IOMMU and its P2P policy, which is
 * where RR would redirect it (reference §2.6).
 *
 * Ordering (PCIe r6.0 §2.4.1, reference §2.4). TLPs from one ingress port
 * leave the decision stage in arrival order: a TLP's due time is never
 * earlier than that of the TLP received before it on the same port, so an
 * IOTLB miss, or a P2P write waiting for the P2P serialiser, holds back
 * what follows it (Model: stricter than the spec, which lets some TLPs
 * pass; legal). In an egress queue a TLP may pass an older one only where
 * the rules of egress.c allow it: per ingress port and Traffic Class, as
 * in a switch (Model: TLPs from different root ports may pass each other
 * where the rules let different streams pass); ID-based ordering is not
 * used.
 *
 * Back-pressure. A delivered TLP holds its ingress link's receive buffer
 * (credits) until the RC sends it on or frees it (sim/port.h), including
 * while it waits in an egress queue: a congested egress port stops the
 * root ports that feed it as their credits run out. Over links without
 * credits (the ideal wire) the queues are unbounded.
 *
 * Not modelled: configuration space (the builder programs routes and ACS
 * through rc.h), the RC's own requests (MSI, CPU MMIO), AtomicOp routing
 * capability checks, virtual channels, Unclaimed Request Redirect, and
 * the IOMMU's address translation (identity, iommu.h).
 * Model: the RC completes UR and Translation Completions as 00:00.0.
 *
 * Costs: routing is a linear scan of the ports' windows (at most 40
 * ports); a TLP costs an event of its own only when its decision stage
 * takes longer than `latency`; each egress decision is O(1) (egress.c).
 */
#include <config.h>

#include "models/pcie/rc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/iommu/iommu.h"
#include "models/pcie/egress.h"
#include "models/pcie/pcie.h"
#include "models/pcie/pcie_regs.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
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
    bool ats;                       /* Translation Requests served */
    /* architectural state */
    struct pcie_route *route;       /* n_ports, programmed by the builder */
    struct iommu *mmu;
    /* modelling state */
    struct rc_port *port;           /* n_ports */
    sim_time_t p2p_busy_until;      /* P2P serialiser free at, ps */
    /* statistics */
    struct rc_counters cnt;
    uint64_t ats_requests, messages, acs_blocked;
};

static struct rc *rc_from(const struct sim_component *c)
{
    SIM_ASSERT(c && c->ops == &rc_ops, "%s is not a root-complex",
               c ? c->name : "(null)");
    return sim_component_state(c);
}

/* ---- pure decisions ------------------------------------------------------ */

/* Does policy let request t through? writes-only passes MWr only. */
static bool rc_policy_allows(enum rc_p2p_policy pol, const struct tlp *t)
{
    switch (pol) {
    case RC_P2P_FORWARD:
        return true;
    case RC_P2P_WRITES_ONLY:
        return t->kind == TLP_MWR;
    case RC_P2P_REFUSE:
        break;
    }
    return false;
}

/* Bytes of memory a request touches (a CAS carries two operands). */
static uint32_t rc_target_bytes(const struct tlp *t)
{
    return t->kind == TLP_CAS ? t->len_bytes / 2 : t->len_bytes;
}

/* Why an address-routed request goes nowhere (step 4). */
enum rc_refusal {
    RC_GO,
    RC_UNSUPPORTED,             /* nobody claims the address */
    RC_P2P_REFUSED,             /* root port to root port, policy refuses */
    RC_XSOCKET_REFUSED,         /* from another socket, policy refuses */
};

static const char *const rc_refusal_text[] = {
    [RC_GO] = NULL,
    [RC_UNSUPPORTED] = "unsupported request: nobody claims the address",
    [RC_P2P_REFUSED] = "p2p refused by the root complex",
    [RC_XSOCKET_REFUSED] = "cross-socket p2p refused",
};

/*
 * Step 4, routing an address-routed request t received on port in: the
 * egress port, or -1 with *why set. *p2p: it takes the P2P path (root
 * port to root port, including back down its own root port after a
 * switch's ACS redirect). Pure: rc_decide_request and rc_route share it.
 */
static int rc_route_addr(const struct rc *rc, unsigned in, const struct tlp *t,
                         bool *p2p, enum rc_refusal *why)
{
    enum rc_port_kind ik = rc->port[in].kind;
    int e = pcie_route_find_addr(rc->route, rc->n_ports, t->addr, -1);
    *p2p = false;
    *why = RC_GO;
    if (e < 0 || !sim_port_is_connected(rc->port[e].port) ||
        (e == (int)in && ik != RC_PORT_RP)) {
        *why = RC_UNSUPPORTED;
        return -1;
    }
    enum rc_port_kind ek = rc->port[e].kind;
    if (ek == RC_PORT_RP && ik == RC_PORT_RP) {
        if (!rc_policy_allows(rc->p2p, t)) {
            *why = RC_P2P_REFUSED;
            return -1;
        }
        *p2p = true;
    } else if (ek == RC_PORT_RP && ik == RC_PORT_XS &&
               !rc_policy_allows(rc->xsocket, t)) {
        *why = RC_XSOCKET_REFUSED;
        return -1;
    }
    return e;
}

/*
 * Routing an ID-routed TLP t received on port in: the egress port whose
 * buses claim its destination, or -1. *p2p: root port to root port.
 */
static int rc_route_id(const struct rc *rc, unsigned in, const struct tlp *t,
                       bool *p2p)
{
    int e = pcie_route_find_bus(rc->route, rc->n_ports,
                                pcie_id_bus(pcie_tlp_dest_id(t)), -1);
    *p2p = false;
    if (e < 0 || !sim_port_is_connected(rc->port[e].port)) {
        return -1;
    }
    *p2p = rc->port[in].kind == RC_PORT_RP && rc->port[e].kind == RC_PORT_RP;
    return e;
}

/* ---- traces -------------------------------------------------------------- */

static void rc_trace(const struct rc *rc, enum sim_trace_point p,
                     const struct sim_port *port, const struct tlp *t,
                     uint64_t a, uint64_t b, const char *msg)
{
    sim_trace_component(rc->comp, p, port ? port->name : NULL, t, a, b, msg);
}

/* ---- the decision -------------------------------------------------------- */

/* What the RC does with a TLP it received, and when. */
struct rc_decision {
    uint32_t hint;              /* egress index, RC_HINT_*, or... */
    bool drop;                  /* ...discard now (posted, or completion) */
    sim_time_t due_ps;          /* when it leaves the decision stage */
    const char *why;            /* for the trace of a refusal */
};

static void refuse(struct rc_decision *d, const struct tlp *t,
                   const char *why)
{
    d->why = why;
    if (pcie_tlp_is_np_request(t)) {
        d->hint = RC_HINT_UR;
    } else {
        d->drop = true;
    }
}

/* The P2P path: wait for the serialiser, then p2p-latency. */
static sim_time_t rc_p2p_charge(struct rc *rc, sim_time_t t0,
                                const struct tlp *t)
{
    sim_time_t start = rc->p2p_busy_until > t0 ? rc->p2p_busy_until : t0;
    uint64_t bytes = rc_p2p_bytes(t);
    rc->p2p_busy_until = sim_time_add(start,
                                      sim_time_for_bytes(bytes, rc->p2p_rate));
    return sim_time_add(rc->p2p_busy_until, rc->p2p_latency_ps);
}

/* Step 1, ACS on root port in: the refusal, or NULL if t passes. */
static const char *rc_acs_refusal(const struct rc *rc, unsigned in,
                                  const struct tlp *t)
{
    const struct rc_port *ip = &rc->port[in];
    if ((ip->acs_ctrl & PCI_ACS_SV) &&
        !pcie_route_claims_bus(&rc->route[in], pcie_id_bus(t->requester_id))) {
        return "acs source validation";
    }
    if ((ip->acs_ctrl & PCI_ACS_TB) && t->at == TLP_AT_TRANSLATED) {
        return "acs translation blocking";
    }
    return NULL;
}

/* Does the IOMMU check request t (step 3)? */
static bool rc_iommu_checks(const struct rc *rc, const struct tlp *t)
{
    bool translated = t->at == TLP_AT_TRANSLATED && rc->ats;
    return t->kind != TLP_ATS_TREQ && !translated &&
           iommu_mode(rc->mmu) != IOMMU_OFF;
}

/*
 * Step 3: the IOMMU checks t, received on root port in, now; *cost_ps
 * gets what the check costs. A refusal is a fault: counted and traced.
 */
static bool rc_iommu_allows(struct rc *rc, unsigned in, const struct tlp *t,
                            sim_time_t *cost_ps)
{
    bool write = t->kind != TLP_MRD;
    *cost_ps = 0;
    if (iommu_translate(rc->mmu, sim_now(rc->comp->sim), t->requester_id,
                        t->addr, rc_target_bytes(t), write, cost_ps)) {
        return true;
    }
    rc->cnt.iommu_faults++;
    rc_trace(rc, SIM_TP_MODEL, rc->port[in].port, t, t->addr,
             t->requester_id, "iommu fault");
    rc_trace(rc, SIM_TP_IOMMU_FAULT, rc->port[in].port, t, t->addr,
             t->requester_id, write ? "write" : "read");
    return false;
}

/* Steps 1-3 for a request from root port in: false if refused. */
static bool rc_check_request(struct rc *rc, unsigned in, struct tlp *t,
                             struct rc_decision *d)
{
    const char *why = rc_acs_refusal(rc, in, t);
    if (why) {
        rc->acs_blocked++;
        refuse(d, t, why);
        return false;
    }
    if (!rc_iommu_checks(rc, t)) {
        return true;
    }
    sim_time_t cost = 0;
    bool ok = rc_iommu_allows(rc, in, t, &cost);
    d->due_ps = sim_time_add(d->due_ps, cost);
    if (!ok) {
        refuse(d, t, "iommu fault");
    }
    return ok;
}

/*
 * An ATS Translation Request: SC if ATS is on and the IOMMU allows the
 * page (a refusal is recorded as a fault, as for a DMA), else UR.
 */
static void rc_decide_treq(struct rc *rc, unsigned in, struct tlp *t,
                           struct rc_decision *d)
{
    sim_time_t cost = 0;
    rc->ats_requests++;
    d->hint = RC_HINT_UR;
    if (rc->port[in].kind != RC_PORT_RP || !rc->ats) {
        d->why = "translation request without ATS";
        return;
    }
    if (iommu_translate(rc->mmu, sim_now(rc->comp->sim), t->requester_id,
                        t->addr, t->len_bytes, false, &cost)) {
        d->hint = RC_HINT_ATS_SC;
    } else {
        rc->cnt.iommu_faults++;
        rc_trace(rc, SIM_TP_MODEL, rc->port[in].port, t, t->addr,
                 t->requester_id, "iommu fault");
        rc_trace(rc, SIM_TP_IOMMU_FAULT, rc->port[in].port, t, t->addr,
                 t->requester_id, "translation request");
        d->why = "translation request refused";
    }
    d->due_ps = sim_time_add(d->due_ps, cost);
}

/* An address-routed request received on port in. */
static void rc_decide_request(struct rc *rc, unsigned in, struct tlp *t,
                              struct rc_decision *d)
{
    enum rc_port_kind ik = rc->port[in].kind;
    if (ik == RC_PORT_RP && !rc_check_request(rc, in, t, d)) {
        return;
    }
    if (t->kind == TLP_ATS_TREQ) {
        rc_decide_treq(rc, in, t, d);
        return;
    }
    bool p2p = false;
    enum rc_refusal r = RC_GO;
    int e = rc_route_addr(rc, in, t, &p2p, &r);
    switch (r) {
    case RC_GO:
        break;
    case RC_UNSUPPORTED:
        rc->cnt.unsupported++;
        refuse(d, t, rc_refusal_text[r]);
        return;
    case RC_P2P_REFUSED:
        rc->cnt.p2p_refused++;
        refuse(d, t, rc_refusal_text[r]);
        return;
    case RC_XSOCKET_REFUSED:
        rc->cnt.xsocket_refused++;
        refuse(d, t, rc_refusal_text[r]);
        return;
    }
    enum rc_port_kind ek = rc->port[e].kind;
    if (ek == RC_PORT_MEM) {
        rc->cnt.to_memory++;
    } else if (p2p) {
        rc->cnt.p2p_forwarded++;
        d->due_ps = rc_p2p_charge(rc, d->due_ps, t);
    } else if (ek == RC_PORT_RP && ik == RC_PORT_XS) {
        rc->cnt.xsocket_forwarded++;
    }
    d->hint = (uint32_t)e;
}

/* An ID-routed TLP (completion or ATS invalidation) received on port in. */
static void rc_decide_by_id(struct rc *rc, unsigned in, struct tlp *t,
                            struct rc_decision *d)
{
    bool p2p = false;
    int e = rc_route_id(rc, in, t, &p2p);
    if (e < 0) {
        if (pcie_tlp_is_completion(t)) {
            rc->cnt.unsupported++;
            d->why = "unexpected completion";
        } else {
            rc->messages++;     /* an invalidation addressed to us */
        }
        d->drop = true;
        return;
    }
    if (p2p) {
        d->due_ps = rc_p2p_charge(rc, d->due_ps, t);
    }
    d->hint = (uint32_t)e;
}

/*
 * rc_decide - where t, received on port in, goes and when it may leave.
 * Updates the IOMMU, the P2P serialiser and the counters.
 */
static struct rc_decision rc_decide(struct rc *rc, unsigned in, struct tlp *t)
{
    struct rc_decision d = {
        .hint = RC_HINT_UR, .drop = false,
        .due_ps = sim_time_add(sim_now(rc->comp->sim), rc->latency_ps),
        .why = NULL,
    };
    switch (tlp_kind_routing(t->kind)) {
    case TLP_ROUTE_ADDR:
        rc_decide_request(rc, in, t, &d);
        break;
    case TLP_ROUTE_ID:
        rc_decide_by_id(rc, in, t, &d);
        break;
    case TLP_ROUTE_IMPLICIT:
        /* Model: messages end at the RC (no broadcast, no MSI handling). */
        rc->messages++;
        d.drop = true;
        break;
    }
    return d;
}

/* ---- the TLP path -------------------------------------------------------- */

static void rc_egress_pump(struct rc *rc, struct rc_port *p);

/* Offer the egress queue of port p to its link (ordering in egress.c). */
static void rc_egress_pump(struct rc *rc, struct rc_port *p)
{
    (void)rc;
    pcie_egress_drain(&p->q, p->port);
}

/*
 * Queue t for egress port e. stream is the ingress port it came in on, or
 * n_ports for a TLP the RC made: the ordering rules hold per stream.
 * Inline (as rc_dispatch): on every TLP's path through the RC.
 */
static inline void rc_enqueue(struct rc *rc, unsigned e, struct tlp *t,
                              unsigned stream)
{
    struct rc_port *p = &rc->port[e];
    if (pcie_egress_send(&p->q, t, stream, p->port) < 0) {
        sim_component_nomem(rc->comp, "a place in an egress queue");
        tlp_free(t);
    }
}

/* Replace request req, received on port in, with a completion back out of
 * in: UR, or (ATS) a Translation Completion with SC, that may start on the
 * link at not_before. */
static void rc_complete(struct rc *rc, unsigned in, struct tlp *req,
                        uint8_t status, sim_time_t not_before)
{
    /*
     * Model: a successful Translation Completion carries one 8-byte entry
     * (PCIe r6.0 §10.2.3) for its timing; its bytes are not filled, the
     * translation being identity (iommu.h).
     */
    uint32_t len = status == TLP_CPL_SC ? 8 : 0;
    struct tlp *cpl = tlp_new_completion(rc->comp->sim, req, status, len);
    tlp_free(req);
    if (!cpl) {
        sim_component_nomem(rc->comp, "a completion");
        return;
    }
    cpl->completer_id = RC_ID;
    cpl->not_before = not_before;
    rc_enqueue(rc, in, cpl, rc->n_ports);
}

/*
 * t, received on port in, leaves the decision stage: it joins the egress
 * queue that hint names, or is answered; it may start on the link at
 * not_before (0: at once).
 */
static inline void rc_dispatch(struct rc *rc, unsigned in, struct tlp *t,
                               uint32_t hint, sim_time_t not_before)
{
    switch (hint) {
    case RC_HINT_UR:
        rc_complete(rc, in, t, TLP_CPL_UR, not_before);
        break;
    case RC_HINT_ATS_SC:
        rc_complete(rc, in, t, TLP_CPL_SC, not_before);
        break;
    default:
        t->not_before = not_before;
        rc_enqueue(rc, hint, t, in);
        break;
    }
}

/* A TLP that waited out its decision stage in its own event. */
static void rc_forward_due(struct sim *sim, struct sim_event *ev)
{
    struct tlp *t = SIM_CONTAINER_OF(ev, struct tlp, ev);
    /* Still the ingress link's: the port it was delivered to is ours. */
    struct sim_port *in = t->link->end[t->link_side];
    struct rc *rc = rc_from(in->owner);
    rc->port[in->index].n_waiting--;
    rc_dispatch(rc, in->index, t, t->route_hint, 0);
}

static void rc_receive(struct sim_component *c, struct sim_port *in,
                       struct tlp *t)
{
    struct rc *rc = rc_from(c);
    struct rc_port *ip = &rc->port[in->index];
    ip->n.tlps_in++;
    ip->n.bytes_in += tlp_payload_bytes(t);

    struct rc_decision d = rc_decide(rc, in->index, t);
    if (d.drop) {
        rc_trace(rc, SIM_TP_TLP_DROP, in, t, t->addr, t->requester_id,
                 d.why ? d.why : "consumed by the root complex");
        tlp_free(t);
        return;
    }
    if (d.why && sim_trace_wanted(c->sim, SIM_TP_MODEL)) {
        char msg[128];
        snprintf(msg, sizeof(msg), "%s: UR completion", d.why);
        rc_trace(rc, SIM_TP_MODEL, in, t, t->addr, t->requester_id, msg);
    }
    /* TLPs from one port leave the decision stage in arrival order. */
    if (d.due_ps < ip->last_due) {
        d.due_ps = ip->last_due;
    }
    ip->last_due = d.due_ps;
    /* The plain `latency` with nothing from this port still waiting: go
     * on now, starting on the egress link no earlier than the due time. */
    if (ip->n_waiting == 0 &&
        d.due_ps == sim_time_add(sim_now(c->sim), rc->latency_ps)) {
        rc_dispatch(rc, in->index, t, d.hint, d.due_ps);
        return;
    }
    ip->n_waiting++;
    t->route_hint = d.hint;
    sim_event_init(&t->ev, rc_forward_due);
    sim_event_schedule_at(c->sim, &t->ev, d.due_ps);
}

static void rc_ready(struct sim_component *c, struct sim_port *out)
{
    struct rc *rc = rc_from(c);
    struct rc_port *p = &rc->port[out->index];
    pcie_egress_ready(&p->q);
    rc_egress_pump(rc, p);
}

/* ---- lifecycle ----------------------------------------------------------- */

static const char *const rc_policy_names[] = { "forward", "writes-only",
                                               "refuse", NULL };
static const char *const rc_iommu_names[] = { "off", "passthrough",
                                              "translating", NULL };

static int rc_configure_iommu(struct rc *rc, const struct sim_props *props,
                              struct sim_error *err)
{
    struct iommu_params ip = {
        .mode = IOMMU_OFF, .iotlb_entries = RC_DEFAULT_IOTLB_ENTRIES,
        .page_bytes = RC_DEFAULT_IOMMU_PAGE, .hit_ps = RC_DEFAULT_IOTLB_HIT,
        .miss_ps = RC_DEFAULT_IOTLB_MISS,
    };
    int mode = IOMMU_OFF;
    uint64_t entries = ip.iotlb_entries;
    int rc2 = sim_props_get_enum(props, "iommu", rc_iommu_names, &mode, 0,
                                 err);
    if (rc2 == 0) {
        rc2 = sim_props_get_u64(props, "iotlb-entries", &entries, 1,
                                UINT64_C(1) << 20, 0, err);
    }
    if (rc2 == 0) {
        rc2 = sim_props_get_time(props, "iotlb-hit-latency", &ip.hit_ps, 0,
                                 err);
    }
    if (rc2 == 0) {
        rc2 = sim_props_get_time(props, "iotlb-miss-latency", &ip.miss_ps, 0,
                                 err);
    }
    if (rc2 == 0) {
        rc2 = sim_props_get_size(props, "iommu-page", &ip.page_bytes, 0, err);
    }
    if (rc2 == 0 && (ip.page_bytes < 4096 ||
                     (ip.page_bytes & (ip.page_bytes - 1)) != 0)) {
        rc2 = sim_props_error(props, "iommu-page", SIM_ERANGE, err,
                              "root complex '%s': iommu-page must be a power "
                              "of two of at least 4KiB", rc->comp->name);
    }
    if (rc2 == 0) {
        rc2 = sim_props_get_bool(props, "ats", &rc->ats, 0, err);
    }
    if (rc2 < 0) {
        return rc2;
    }
    ip.mode = (enum iommu_mode)mode;
    ip.iotlb_entries = (unsigned)entries;
    ip.ats = rc->ats;
    rc->mmu = iommu_create(&ip);
    if (!rc->mmu) {
        return sim_error_set(err, SIM_ENOMEM,
                             "root complex '%s': out of memory (IOMMU)",
                             rc->comp->name);
    }
    return 0;
}

static int rc_configure_ports(struct rc *rc, struct sim_error *err)
{
    struct sim_component *c = rc->comp;
    rc->route = calloc(rc->n_ports, sizeof(*rc->route));
    rc->port = calloc(rc->n_ports, sizeof(*rc->port));
    if (!rc->route || !rc->port) {
        return sim_error_set(err, SIM_ENOMEM, "root complex '%s': out of "
                                              "memory", c->name);
    }
    for (unsigned i = 0; i < rc->n_ports; i++) {
        char name[16];
        enum sim_port_role role = SIM_PORT_DOWNSTREAM;
        struct rc_port *p = &rc->port[i];
        if (i < rc->n_rp) {
            snprintf(name, sizeof(name), "rp%u", i);
            p->kind = RC_PORT_RP;
        } else if (i == rc->n_rp) {
            snprintf(name, sizeof(name), "mem");
            p->kind = RC_PORT_MEM;
        } else {
            snprintf(name, sizeof(name), "xs%u", i - rc->n_rp - 1);
            p->kind = RC_PORT_XS;
            role = SIM_PORT_PEER;
        }
        p->port = sim_port_add(c, name, role);
        if (!p->port) {
            return sim_error_set(err, sim_port_find(c, name) ? SIM_EEXIST
                                                             : SIM_ENOMEM,
                                 "root complex '%s': cannot add port '%s' "
                                 "(added already? configure runs once)",
                                 c->name, name);
        }
        SIM_ASSERT(p->port->index == i,
                   "root complex '%s': port %s has index %u, expected %u",
                   c->name, name, p->port->index, i);
        /* an empty bus range until the builder programs it */
        rc->route[i].bus_sec = 1;
        /* Every queued TLP keeps its ingress credits (no egress buffer). */
        if (pcie_egress_init(&p->q, rc->n_ports + 1, 0) < 0) {
            return sim_error_set(err, SIM_ENOMEM, "root complex '%s': out "
                                 "of memory", c->name);
        }
    }
    return 0;
}

static int rc_configure(struct sim_component *c, const struct sim_props *props,
                        struct sim_error *err)
{
    struct rc *rc = sim_component_state(c);
    uint64_t n_rp = 0, n_xs = 0;
    int p2p = RC_P2P_FORWARD, xsocket = RC_P2P_FORWARD;
    rc->comp = c;
    rc->latency_ps = RC_DEFAULT_LATENCY;
    if (!props) {
        return sim_error_set(err, SIM_ENOENT,
                             "root complex '%s' needs 'root-ports' (1 to %u)",
                             c->name, RC_MAX_ROOT_PORTS);
    }
    int rc2 = sim_props_get_u64(props, "root-ports", &n_rp, 1,
                                RC_MAX_ROOT_PORTS, SIM_PROP_REQUIRED, err);
    if (rc2 == 0) {
        rc2 = sim_props_get_u64(props, "socket-links", &n_xs, 0,
                                RC_MAX_SOCKET_LINKS, 0, err);
    }
    if (rc2 == 0) {
        rc2 = sim_props_get_time(props, "latency", &rc->latency_ps, 0, err);
    }
    if (rc2 == 0) {
        rc2 = sim_props_get_enum(props, "p2p", rc_policy_names, &p2p, 0, err);
    }
    if (rc2 == 0) {
        rc2 = sim_props_get_rate(props, "p2p-bandwidth", &rc->p2p_rate, 0,
                                 err);
    }
    if (rc2 == 0) {
        rc2 = sim_props_get_time(props, "p2p-latency", &rc->p2p_latency_ps, 0,
                                 err);
    }
    if (rc2 == 0) {
        rc2 = sim_props_get_enum(props, "xsocket-p2p", rc_policy_names,
                                 &xsocket, 0, err);
    }
    if (rc2 == 0) {
        rc2 = rc_configure_iommu(rc, props, err);
    }
    if (rc2 < 0) {
        return rc2;
    }
    rc->p2p = (enum rc_p2p_policy)p2p;
    rc->xsocket = (enum rc_p2p_policy)xsocket;
    rc->n_rp = (unsigned)n_rp;
    rc->n_xs = (unsigned)n_xs;
    rc->n_ports = rc->n_rp + 1 + rc->n_xs;
    return rc_configure_ports(rc, err);
}

/*
 * Model: routes, ACS control and IOMMU mappings are programmed by the
 * builder (standing in for firmware and the OS), so reset keeps them; it
 * clears the statistics.
 */
static void rc_reset(struct sim_component *c)
{
    struct rc *rc = rc_from(c);
    for (unsigned i = 0; i < rc->n_ports; i++) {
        memset(&rc->port[i].n, 0, sizeof(rc->port[i].n));
    }
    memset(&rc->cnt, 0, sizeof(rc->cnt));
    rc->ats_requests = rc->messages = rc->acs_blocked = 0;
}

static void rc_report(const struct sim_component *c, struct sim_stats *out)
{
    const struct rc *rc = rc_from(c);
    struct iommu_counters ic;
    iommu_get_counters(rc->mmu, &ic);
    const struct {
        const char *name;
        uint64_t v;
    } row[] = {
        { "p2p_forwarded", rc->cnt.p2p_forwarded },
        { "p2p_refused", rc->cnt.p2p_refused },
        { "xsocket_forwarded", rc->cnt.xsocket_forwarded },
        { "xsocket_refused", rc->cnt.xsocket_refused },
        { "to_memory", rc->cnt.to_memory },
        { "unsupported", rc->cnt.unsupported },
        { "iommu_faults", rc->cnt.iommu_faults },
        { "acs_blocked", rc->acs_blocked },
        { "ats_requests", rc->ats_requests },
        { "messages", rc->messages },
        { "iommu.translations", ic.translations },
        { "iommu.hits", ic.hits },
        { "iommu.misses", ic.misses },
    };
    char name[256];
    for (unsigned i = 0; i < sizeof(row) / sizeof(row[0]); i++) {
        snprintf(name, sizeof(name), "%s.%s", c->name, row[i].name);
        sim_stats_add(out, name, row[i].v);
    }
    for (unsigned i = 0; i < rc->n_ports; i++) {
        const struct rc_port *p = &rc->port[i];
#define RC_COUNTER_REPORT(f, doc)                                             \
        snprintf(name, sizeof(name), "%s.%s." #f, c->name, p->port->name);    \
        sim_stats_add(out, name, p->n.f);
        RC_PORT_COUNTERS(RC_COUNTER_REPORT)
#undef RC_COUNTER_REPORT
        /* what left the port: counted by its egress queue */
        snprintf(name, sizeof(name), "%s.%s.tlps_out", c->name, p->port->name);
        sim_stats_add(out, name, p->q.tlps_out);
        snprintf(name, sizeof(name), "%s.%s.bytes_out", c->name, p->port->name);
        sim_stats_add(out, name, p->q.bytes_out);
    }
}

/*
 * Queued TLPs are not freed here: the core destroys links before
 * components, so their receive buffers cannot be released, and the TLP
 * pool frees every TLP afterwards.
 */
static void rc_destroy(struct sim_component *c)
{
    struct rc *rc = rc_from(c);
    for (unsigned i = 0; rc->port && i < rc->n_ports; i++) {
        pcie_egress_fini(&rc->port[i].q);
    }
    free(rc->port);
    free(rc->route);
    iommu_destroy(rc->mmu);
    rc->port = NULL;
    rc->route = NULL;
    rc->mmu = NULL;
}

/* ---- queries and programming (rc.h) -------------------------------------- */

struct pcie_route *rc_routes(struct sim_component *c, unsigned *n_ports)
{
    struct rc *rc = rc_from(c);
    if (n_ports) {
        *n_ports = rc->n_ports;
    }
    return rc->route;
}

unsigned rc_n_root_ports(const struct sim_component *c)
{
    return rc_from(c)->n_rp;
}

struct iommu *rc_iommu(struct sim_component *c)
{
    return rc_from(c)->mmu;
}

enum rc_p2p_policy rc_p2p_policy(const struct sim_component *c)
{
    return rc_from(c)->p2p;
}

enum rc_p2p_policy rc_xsocket_policy(const struct sim_component *c)
{
    return rc_from(c)->xsocket;
}

int rc_set_acs(struct sim_component *c, unsigned rp, uint16_t ctrl)
{
    struct rc *rc = rc_from(c);
    if (rp >= rc->n_rp || (ctrl & ~RC_ACS_BITS)) {
        return -SIM_EINVAL;
    }
    rc->port[rp].acs_ctrl = ctrl;
    return 0;
}

uint16_t rc_acs(const struct sim_component *c, unsigned rp)
{
    const struct rc *rc = rc_from(c);
    return rp < rc->n_rp ? rc->port[rp].acs_ctrl : 0;
}

void rc_get_counters(const struct sim_component *c, struct rc_counters *out)
{
    *out = rc_from(c)->cnt;
}

int rc_iommu_range(struct sim_component *c, unsigned in, const struct tlp *t,
                   uint64_t addr, uint64_t len, sim_time_t *first_ps,
                   sim_time_t *last_ps)
{
    struct rc *rc = rc_from(c);
    *first_ps = *last_ps = 0;
    if (in >= rc->n_ports || rc->port[in].kind != RC_PORT_RP ||
        tlp_kind_routing(t->kind) != TLP_ROUTE_ADDR ||
        !rc_iommu_checks(rc, t)) {
        return 0;
    }
    struct tlp q = *t;
    uint64_t done = 0;
    do {
        uint64_t at = addr + done;
        uint64_t n = RC_IOMMU_STEP - (at & (RC_IOMMU_STEP - 1));
        n = n < len - done ? n : len - done;
        q.addr = at;
        q.len_bytes = (uint32_t)n;
        sim_time_t cost = 0;
        bool ok = rc_iommu_allows(rc, in, &q, &cost);
        *first_ps = done == 0 ? cost : *first_ps;
        *last_ps = cost;
        if (!ok) {
            return -SIM_EIO;
        }
        done += n;
    } while (done < len);
    return 0;
}

uint32_t rc_p2p_bytes(const struct tlp *t)
{
    return tlp_header_bytes(t) + tlp_payload_bytes(t);
}

int rc_route(struct sim_component *c, unsigned in, const struct tlp *t,
             bool translate, struct rc_hop *out)
{
    struct rc *rc = rc_from(c);
    memset(out, 0, sizeof(*out));
    out->egress = -1;
    out->latency_ps = rc->latency_ps;
    if (in >= rc->n_ports) {
        out->why = "no such port";
        return -SIM_EINVAL;
    }
    bool p2p = false;
    int e;
    if (tlp_kind_routing(t->kind) == TLP_ROUTE_ID) {
        e = rc_route_id(rc, in, t, &p2p);
        out->why = e < 0 ? "unexpected completion" : NULL;
    } else if (tlp_kind_routing(t->kind) != TLP_ROUTE_ADDR ||
               t->kind == TLP_ATS_TREQ) {
        out->why = "answered by the root complex";
        return -SIM_EIO;
    } else {
        if (rc->port[in].kind == RC_PORT_RP) {
            out->why = rc_acs_refusal(rc, in, t);
            if (out->why) {
                return -SIM_EIO;
            }
            sim_time_t cost = 0;
            if (translate && rc_iommu_checks(rc, t) &&
                !rc_iommu_allows(rc, in, t, &cost)) {
                out->why = "iommu fault";
                return -SIM_EIO;
            }
            out->latency_ps = sim_time_add(out->latency_ps, cost);
        }
        enum rc_refusal r;
        e = rc_route_addr(rc, in, t, &p2p, &r);
        out->why = rc_refusal_text[r];
    }
    if (e < 0) {
        return -SIM_EIO;
    }
    out->egress = e;
    out->p2p = p2p;
    if (p2p) {
        out->p2p_rate = rc->p2p_rate;
        out->p2p_latency_ps = rc->p2p_latency_ps;
    }
    return 0;
}

/* ---- registration -------------------------------------------------------- */

const struct sim_component_ops rc_ops = {
    .kind = "root-complex",
    .state_size = sizeof(struct rc),
    .configure = rc_configure,
    .reset = rc_reset,
    .receive = rc_receive,
    .ready = rc_ready,
    .report = rc_report,
    .destroy = rc_destroy,
};
