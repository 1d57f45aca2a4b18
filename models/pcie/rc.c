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
 * This file: the TLP path (receive, the decision stage's timing, egress
 * queues), configuration, reports, rc.h's programming and counters;
 * rc_decide.c decides what each TLP does (and rc_route, rc_iommu_range);
 * rc_int.h holds the shared state.
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
#include "models/pcie/rc_int.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/tlp.h"
#include "sim/trace.h"


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

/*
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
 */

/*
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
 */
/*
 * Back-pressure. A delivered TLP holds its ingress link's receive buffer
 * (credits) until the RC sends it on or frees it (sim/port.h), including
 * while it waits in an egress queue: a congested egress port stops the
 * root ports that feed it as their credits run out. Over links without
 * credits (the ideal wire) the queues are unbounded.
 */
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
        rc2 = sim_props_get_rate(props, "xsocket-p2p-bandwidth", &rc->xs_rate,
                                 0, err);
    }
    if (rc2 == 0) {
        rc2 = sim_props_get_enum(props, "xsocket-p2p", rc_policy_names,
                                 &xsocket, 0, err);
    }
    if (rc2 == 0) {
        rc2 = sim_props_get_bool(props, "p2p-atomics", &rc->p2p_atomics, 0,
                                 err);
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
    for (unsigned i = 0; i < sizeof(row) / sizeof(row[0]); i++) {
        sim_stats_addf(out, row[i].v, "%s.%s", c->name, row[i].name);
    }
    for (unsigned i = 0; i < rc->n_ports; i++) {
        const struct rc_port *p = &rc->port[i];
#define RC_COUNTER_REPORT(f, doc)                                             \
        sim_stats_addf(out, p->n.f, "%s.%s." #f, c->name, p->port->name);
        RC_PORT_COUNTERS(RC_COUNTER_REPORT)
#undef RC_COUNTER_REPORT
        /* what left the port: counted by its egress queue */
        sim_stats_addf(out, p->q.tlps_out, "%s.%s.tlps_out", c->name,
                       p->port->name);
        sim_stats_addf(out, p->q.bytes_out, "%s.%s.bytes_out", c->name,
                       p->port->name);
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

bool rc_p2p_atomics(const struct sim_component *c)
{
    return rc_from(c)->p2p_atomics;
}

uint64_t rc_xsocket_rate(const struct sim_component *c)
{
    return rc_from(c)->xs_rate;
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
