/*
 * models/pcie/rc_decide.c - the decision stage of a root complex (rc.h):
 * what happens to each TLP it receives and when it may leave, as rc.c's
 * TLP path asks it (rc_decide), and the same decisions for the builder
 * and the flow fidelity, which route without sending (rc_route,
 * rc_iommu_range). The steps and policies are described at "the
 * decision" below; the P2P path at rc_p2p_charge; ACS at rc_acs_refusal.
 *
 * Sources: PCIe r6.0 §2.3 (request handling, UR), §2.2.7 (4 KiB
 * boundary), §6.12 (ACS), §10.2 (ATS); the reference's §2.6 and §2.9
 * (ACS redirect, P2P through the CPU).
 */
#include <config.h>

#include <stdbool.h>
#include <string.h>

#include "models/iommu/iommu.h"
#include "models/pcie/pcie.h"
#include "models/pcie/pcie_regs.h"
#include "models/pcie/rc.h"
#include "models/pcie/rc_int.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/sim.h"
#include "sim/tlp.h"
#include "sim/trace.h"

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
    RC_ATOMIC_UNROUTED,         /* an AtomicOp to a root port, not routed */
};

static const char *const rc_refusal_text[] = {
    [RC_GO] = NULL,
    [RC_UNSUPPORTED] = "unsupported request: nobody claims the address",
    [RC_P2P_REFUSED] = "p2p refused by the root complex",
    [RC_XSOCKET_REFUSED] = "cross-socket p2p refused",
    [RC_ATOMIC_UNROUTED] = "AtomicOp routing between root ports not "
                           "supported",
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
    if (ek == RC_PORT_RP && ik != RC_PORT_MEM && !rc->p2p_atomics &&
        tlp_kind_is_atomicop(t->kind)) {
        *p2p = false;
        *why = RC_ATOMIC_UNROUTED;      /* PCIe r6.0 §6.15.2 */
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

/* ---- the decision -------------------------------------------------------- */

/*
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
 */


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

/*
 * The P2P path. Root-port-to-root-port traffic (requests and their
 * completions, including a request sent back down its own root port
 * after a switch's ACS redirect) shares one serialiser of `p2p-bandwidth`
 * bytes/s, charged header + payload bytes, then waits `p2p-latency`. This
 * is the mechanism behind "P2P through this CPU is slow" (reference §2.9,
 * user story 1): the figure comes from the configured rate, not from a
 * per-transfer penalty.
 *
 * Here: wait for the serialiser, then p2p-latency.
 */
static sim_time_t rc_p2p_charge(struct rc *rc, sim_time_t t0,
                                const struct tlp *t)
{
    sim_time_t start = rc->p2p_busy_until > t0 ? rc->p2p_busy_until : t0;
    uint64_t bytes = rc_p2p_bytes(t);
    rc->p2p_busy_until = sim_time_add(start,
                                      sim_time_for_bytes(bytes, rc->p2p_rate));
    return sim_time_add(rc->p2p_busy_until, rc->p2p_latency_ps);
}

/*
 * The cross-socket P2P path: P2P traffic between this socket's root ports
 * and a socket link, as the host bridge forwards it (xsocket-p2p-bandwidth;
 * the socket link's own bandwidth is the raw link's, which host-memory
 * traffic across sockets also uses). Charged once per TLP, at the socket
 * of the target device: a request arriving on a socket link for a root
 * port, a completion leaving a root port for a socket link.
 */
static bool rc_xs_p2p(const struct rc *rc, unsigned in, int e,
                      const struct tlp *t)
{
    enum rc_port_kind ik = rc->port[in].kind, ek = rc->port[e].kind;
    if (tlp_kind_routing(t->kind) == TLP_ROUTE_ID) {
        return ik == RC_PORT_RP && ek == RC_PORT_XS;
    }
    return ik == RC_PORT_XS && ek == RC_PORT_RP;
}

static sim_time_t rc_xs_charge(struct rc *rc, sim_time_t t0,
                               const struct tlp *t)
{
    sim_time_t start = rc->xs_busy_until > t0 ? rc->xs_busy_until : t0;
    rc->xs_busy_until = sim_time_add(start, sim_time_for_bytes(rc_p2p_bytes(t),
                                                               rc->xs_rate));
    return rc->xs_busy_until;
}

/*
 * ACS on root ports: SV and TB are enforced (above). RR, CR, UF, EC and
 * DT are stored (rc_set_acs) for the builder and for `p2psim explain`,
 * and change nothing here: in this model every root-port-to-root-port TLP
 * already goes through the RC, its IOMMU and its P2P policy, which is
 * where RR would redirect it (reference §2.6).
 *
 * Step 1, ACS on root port in: the refusal, or NULL if t passes.
 */
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
    case RC_ATOMIC_UNROUTED:
        rc->cnt.unsupported++;
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
        d->due_ps = rc_xs_charge(rc, d->due_ps, t);
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
    } else if (rc_xs_p2p(rc, in, e, t)) {
        d->due_ps = rc_xs_charge(rc, d->due_ps, t);
    }
    d->hint = (uint32_t)e;
}

/* rc_decide (rc_int.h) */
struct rc_decision rc_decide(struct rc *rc, unsigned in, struct tlp *t)
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


/* ---- the same decisions, without sending (rc.h) -------------------------- */

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
    } else if (rc_xs_p2p(rc, in, e, t)) {
        out->xs = true;
        out->xs_rate = rc->xs_rate;
    }
    return 0;
}
