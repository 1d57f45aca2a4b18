/*
 * models/pcie/switch.c - a PCIe switch (kind "pcie-switch"): one upstream
 * port and N downstream ports, address and ID routing from tables the
 * builder programs, ACS on the downstream ports, a fixed forwarding
 * latency per hop, and one egress queue per port that keeps the PCIe
 * ordering rules.
 *
 *                       "up"  (port 0, SIM_PORT_UPSTREAM)
 *                         |
 *          +--------------+--------------+
 *          |   route + ACS -> latency ->  |
 *          |   egress queue per port      |
 *          +----+---------+---------+-----+
 *               |         |         |
 *             "dp0"     "dp1" ... "dp<N-1>"   (ports 1..N, DOWNSTREAM)
 *
 * Life of a TLP. A link delivers it to psw_receive() on an ingress port.
 * The switch routes it at once (address routing for memory, atomic and ATS
 * requests, ID routing for completions; PCIe r6.0 §2.2.4), applies the
 * ingress port's ACS (acs.c), counts it and traces what ACS did. A TLP
 * nobody claims, or that ACS blocks, is answered with an Unsupported
 * Request completion if it is a non-posted request and otherwise dropped
 * and recorded (§2.3.1, §6.2.7). Otherwise it waits `latency` in its own
 * embedded event (one event per hop), joins the egress port's queue, and
 * is offered to the egress link with sim_port_send(). A refused TLP stays
 * queued; later TLPs may overtake it only where the ordering rules allow
 * (§2.4.1; pcie-nvlink.md §2.4); the link's ready() call restarts the
 * queue.
 *
 * Model: cut-through is approximated as a fixed latency counted from the
 * time the link delivers the whole TLP: delivery time + latency is the
 * earliest time the TLP may start on the egress link. A real cut-through
 * switch starts forwarding once the header is in, so for a large TLP on a
 * slow ingress link this model is later by the ingress serialisation time
 * of the payload; the latency figure itself (PEX 8747/8748 "100 ns max",
 * pcie-nvlink.md §2.8) is per hop and independent of size, as there.
 *
 * Model: back-pressure. A TLP a link delivers holds that link's receive
 * buffer (its flow-control credits) until the TLP is sent on or freed
 * (sim/port.h). The switch lets it keep holding while it waits out the
 * latency, then gives it an egress buffer slot: each egress queue's first
 * `queue` TLPs have released their ingress credits (the switch's own
 * packet memory holds them); TLPs beyond that keep their ingress credits,
 * so a congested egress port stops the ingress links that feed it as soon
 * as their credits run out. queue: 0 models a switch without egress
 * buffering. The switch never refuses a delivered TLP (it cannot: the
 * link only sends what credits allow), so over an ideal wire, which has no
 * credits, the queues are unbounded.
 *
 * Not modelled: configuration space (the builder programs routes, bus and
 * ACS through switch.h, standing in for the OS's enumeration), hot-plug,
 * DPC, AER logging, the ACS enhanced capability (I/O request blocking,
 * DSP/USP memory target access, unclaimed request redirect), multicast,
 * virtual channels (TC only relaxes ordering), broadcast messages from
 * upstream (dropped and counted), and I/O and configuration requests (our
 * TLP kinds have none).
 *
 * Workload: the queues are rings; sending the head is O(1). When the head
 * is refused, each pass over the queue checks every waiting TLP against
 * the ones before it: O(n^2) in the queue length n, which the ingress
 * credits plus `queue` bound (tens of TLPs in practice).
 */
#include <config.h>

#include "models/pcie/switch.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/pcie/acs.h"
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

#define PSW_MAX_DOWNSTREAM 64u          /* the Egress Control Vector's width */
#define PSW_DEFAULT_LATENCY SIM_NS(100) /* pcie-nvlink.md §2.8, PEX 8747 */
#define PSW_DEFAULT_QUEUE 64u           /* TLPs per egress port */
#define PSW_MAX_QUEUE 65536u
#define PSW_UP 0u                       /* port index of "up" */
#define PSW_ACS_BITS 0x007fu            /* SV..DT; the enhanced bits are not
                                           modelled */

/* t->route_hint while the switch owns t: egress port index, or this. */
#define PSW_HINT_UR UINT32_MAX          /* answer with a UR completion */

/* Per-port counters: X(field, what it counts). */
#define PSW_COUNTERS(X)                                                       \
    X(tlps_in, "TLPs received on the port")                                   \
    X(bytes_in, "payload bytes received on the port")                         \
    X(tlps_out, "TLPs sent out of the port")                                  \
    X(bytes_out, "payload bytes sent out of the port")                        \
    X(redirects, "TLPs received here that ACS sent upstream")                 \
    X(blocked, "ACS violations (SV, TB, EC) of TLPs received here")           \
    X(unsupported, "TLPs received here that no port may take")                \
    X(ur, "UR completions answering requests received here")                  \
    X(dropped, "posted TLPs and completions received here and discarded")

/* ---- state --------------------------------------------------------------- */

struct psw_counters {
#define PSW_COUNTER_FIELD(f, doc) uint64_t f;
    PSW_COUNTERS(PSW_COUNTER_FIELD)
#undef PSW_COUNTER_FIELD
};

/* TLPs waiting for an egress link, oldest first; a ring. */
struct psw_queue {
    struct tlp **slot;          /* cap entries */
    uint32_t head;              /* slot of the oldest TLP */
    uint32_t count;             /* TLPs queued */
    uint32_t cap;               /* 0 or a power of two */
};

struct psw_port {
    struct sim_port *port;      /* the core's port; index = our index */
    /* architectural state (downstream ports only) */
    uint16_t acs_ctrl;          /* ACS Control, PCI_ACS_* */
    uint64_t acs_egress_blocked;/* Egress Control Vector, bit j = dp<j> */
    /* modelling state */
    struct psw_queue q;         /* egress queue */
    uint8_t refused;            /* bit per tlp_fc_class refused since the
                                   last ready(): not offered again until
                                   then */
    bool pumping, repump;       /* re-entry guard of psw_egress_pump() */
    /* statistics */
    struct psw_counters n;
};

struct psw {
    struct sim_component *comp;
    /* configuration */
    unsigned n_ports;           /* 1 + downstream ports, 2..65 */
    sim_time_t latency_ps;      /* per hop, delivery to egress start */
    uint32_t queue_tlps;        /* egress buffer per port, TLPs */
    /* architectural state */
    unsigned bus;               /* own bus number (upstream port's) */
    struct pcie_route *route;   /* n_ports, programmed by the builder;
                                   route[0] ("up") is not consulted */
    /* modelling state */
    struct psw_port *port;      /* n_ports */
    uint64_t in_flight;         /* TLPs the switch owns now */
};

static struct psw *psw_from(const struct sim_component *c)
{
    SIM_ASSERT(c && c->ops == &psw_ops, "%s is not a pcie-switch",
               c ? c->name : "(null)");
    return sim_component_state(c);
}

/* ---- the egress ring ----------------------------------------------------- */

static struct tlp *q_at(const struct psw_queue *q, uint32_t i)
{
    return q->slot[(q->head + i) & (q->cap - 1)];
}

static int q_push(struct psw_queue *q, struct tlp *t)
{
    if (q->count == q->cap) {
        uint32_t cap = q->cap ? q->cap * 2 : 16;
        struct tlp **s = malloc(cap * sizeof(*s));
        if (!s) {
            return -SIM_ENOMEM;
        }
        for (uint32_t i = 0; i < q->count; i++) {
            s[i] = q_at(q, i);
        }
        free(q->slot);
        q->slot = s;
        q->head = 0;
        q->cap = cap;
    }
    q->slot[(q->head + q->count++) & (q->cap - 1)] = t;
    return 0;
}

/* Remove entry i, keeping the others in order. O(count - i). */
static void q_remove(struct psw_queue *q, uint32_t i)
{
    uint32_t mask = q->cap - 1;
    if (i == 0) {
        q->head = (q->head + 1) & mask;
    } else {
        for (uint32_t k = i; k + 1 < q->count; k++) {
            q->slot[(q->head + k) & mask] = q->slot[(q->head + k + 1) & mask];
        }
    }
    q->count--;
}

/* ---- pure decisions ------------------------------------------------------ */

static bool is_completion(const struct tlp *t)
{
    return t->kind == TLP_CPL || t->kind == TLP_CPLD ||
           t->kind == TLP_ATS_TCPL;
}

/* A request the requester waits on: it gets a UR if it cannot go on. */
static bool is_non_posted_request(const struct tlp *t)
{
    return !is_completion(t) && !tlp_is_posted(t);
}

/*
 * The ID an ID-routed TLP goes to: a completion's Requester ID (§2.2.9),
 * or, for an ID-routed message (ATS Invalidate Request and Completion),
 * its destination ID, which PCIe carries in header bytes 8-9 (§2.2.8)
 * and struct tlp carries in completer_id.
 */
static uint16_t dest_id(const struct tlp *t)
{
    return is_completion(t) ? t->requester_id : t->completer_id;
}

/*
 * The link a queued TLP came in on: the core keeps t->link pointing at it
 * until a send succeeds (a refused send restores it). NULL for a TLP the
 * switch made itself.
 */
static const struct sim_link *ingress_link(const struct tlp *t)
{
    return t->link;
}

/* The ID whose order IDO relaxes: the completer of a completion, else the
 * requester (§2.4.1, ID-Based Ordering). */
static uint16_t source_id(const struct tlp *t)
{
    return is_completion(t) ? t->completer_id : t->requester_id;
}

/*
 * psw_may_pass - may later, queued after earlier, be sent before it?
 * PCIe r6.0 §2.4.1 ordering rules (Table 2-40 in r6.0; pcie-nvlink.md
 * §2.4), where the spec says "Y/N" (permitted, not required) we keep order:
 *
 *   later \ earlier   Posted               Non-Posted   Completion
 *   Posted            RO or IDO*           yes          yes (Y/N)
 *   Non-Posted        IDO* only            no (Y/N)     no (Y/N)
 *   Completion        RO or IDO*           yes          no (Y/N; never
 *                                                       within one request)
 *   * IDO set on the later TLP and its source ID differs from the earlier
 *     one's (requester ID, or completer ID for a completion).
 *
 * The rules order one stream: TLPs of different Traffic Classes have no
 * ordering between them (§2.4.1), and a switch orders only TLPs that move
 * from the same ingress port to the same egress port [from spec knowledge;
 * unverified wording]: TLPs that came in on different ports may pass each
 * other. A TLP the switch made (a UR completion) is a stream of its own.
 */
static bool psw_may_pass(const struct tlp *later, const struct tlp *earlier)
{
    enum tlp_fc_class lc = tlp_kind_fc_class(later->kind);
    enum tlp_fc_class ec = tlp_kind_fc_class(earlier->kind);

    if (later->tc != earlier->tc ||
        ingress_link(later) != ingress_link(earlier)) {
        return true;
    }
    switch (ec) {
    case TLP_FC_P:
        if ((later->attr & TLP_ATTR_IDO) &&
            source_id(later) != source_id(earlier)) {
            return true;
        }
        return (later->attr & TLP_ATTR_RO) && lc != TLP_FC_NP;
    case TLP_FC_NP:
        return lc != TLP_FC_NP;
    case TLP_FC_CPL:
    case TLP_FC_COUNT:
        break;
    }
    return lc == TLP_FC_P;
}

static bool psw_may_pass_all(const struct psw_queue *q, uint32_t i)
{
    const struct tlp *t = q_at(q, i);
    for (uint32_t j = 0; j < i; j++) {
        if (!psw_may_pass(t, q_at(q, j))) {
            return false;
        }
    }
    return true;
}

/* The downstream port index (1..N) whose route claims addr, skipping
 * port `except`; -1 if none. */
static int psw_route_by_addr(const struct psw *sw, uint64_t addr, int except)
{
    int i = pcie_route_find_addr(sw->route + 1, sw->n_ports - 1, addr,
                                 except > 0 ? except - 1 : -1);
    return i < 0 ? -1 : i + 1;
}

static int psw_route_by_bus(const struct psw *sw, unsigned bus, int except)
{
    int i = pcie_route_find_bus(sw->route + 1, sw->n_ports - 1, bus,
                                except > 0 ? except - 1 : -1);
    return i < 0 ? -1 : i + 1;
}

static struct acs_port psw_acs_port(const struct psw *sw, unsigned i)
{
    const struct pcie_route *r = &sw->route[i];
    struct acs_port a = {
        .ctrl = sw->port[i].acs_ctrl,
        .egress_blocked = sw->port[i].acs_egress_blocked,
        .bus_sec = r->valid ? r->bus_sec : 1,
        .bus_sub = r->valid ? r->bus_sub : 0,
    };
    return a;
}

/* Where the switch sends t, and why. */
struct psw_decision {
    int egress;                 /* port index, or -1: nowhere */
    int normal;                 /* where plain routing pointed, or -1 */
    enum acs_verdict verdict;
    enum acs_rule rule;
};

/*
 * psw_decide - route t received on port in, then apply in's ACS.
 * From "up": a downstream port that claims t, else nowhere (UR). From a
 * downstream port: the one that claims it, else "up"; ACS may redirect
 * that to "up" or block it; a TLP aimed back at its own port goes up only
 * with Upstream Forwarding (acs.c, note c).
 */
static struct psw_decision psw_decide(const struct psw *sw, unsigned in,
                                      const struct tlp *t)
{
    struct psw_decision d = { -1, -1, ACS_FORWARD, ACS_RULE_NONE };
    const struct pcie_route *own = &sw->route[in];
    bool self = false;

    switch (tlp_kind_routing(t->kind)) {
    case TLP_ROUTE_ADDR:
        self = in != PSW_UP && pcie_route_claims_addr(own, t->addr);
        d.normal = self ? -1 : psw_route_by_addr(sw, t->addr, (int)in);
        break;
    case TLP_ROUTE_ID: {
        unsigned bus = pcie_id_bus(dest_id(t));
        self = in != PSW_UP && pcie_route_claims_bus(own, bus);
        d.normal = self ? -1 : psw_route_by_bus(sw, bus, (int)in);
        break;
    }
    case TLP_ROUTE_IMPLICIT:
        /* Model: messages to the root complex go up; broadcasts from
         * upstream are not modelled (dropped). */
        break;
    }
    if (in == PSW_UP) {
        d.egress = d.normal;
        return d;
    }
    if (self) {
        d.normal = (int)in;
    }
    struct acs_port ap = psw_acs_port(sw, in);
    enum acs_target tgt = self ? ACS_TARGET_SELF
                          : d.normal > 0 ? ACS_TARGET_PEER : ACS_TARGET_UP;
    unsigned peer = d.normal > 0 ? (unsigned)d.normal - 1 : 0;
    d.verdict = acs_check(&ap, t, tgt, peer, &d.rule);
    switch (d.verdict) {
    case ACS_FORWARD:
        d.egress = tgt == ACS_TARGET_PEER ? d.normal : (int)PSW_UP;
        break;
    case ACS_REDIRECT:
        d.egress = (int)PSW_UP;
        break;
    case ACS_BLOCK:
        d.egress = -1;
        break;
    }
    return d;
}

/* ---- traces -------------------------------------------------------------- */

static void psw_trace(const struct psw *sw, enum sim_trace_point p,
                      const struct sim_port *port, const struct tlp *t,
                      uint64_t a, uint64_t b, const char *msg)
{
    struct sim *sim = sw->comp->sim;
    if (!sim_trace_wanted(sim, p)) {
        return;
    }
    struct sim_trace_record r = {
        .point = p, .component = sw->comp->name,
        .port = port ? port->name : NULL, .tlp = t, .a = a, .b = b,
        .msg = msg,
    };
    sim_trace_emit(sim, &r);
}

/* ---- the TLP path -------------------------------------------------------- */

/*
 * Offer what the ordering rules allow, oldest first. A refused TLP marks
 * its class refused until ready(); TLPs behind it are tried only if they
 * may pass everything still queued before them.
 */
static void psw_egress_pump_once(struct psw *sw, struct psw_port *p)
{
    struct psw_queue *q = &p->q;
    uint32_t i = 0;

    while (i < q->count && p->refused != (1u << TLP_FC_COUNT) - 1) {
        struct tlp *t = q_at(q, i);
        unsigned cls = tlp_kind_fc_class(t->kind);
        if ((p->refused & (1u << cls)) || !psw_may_pass_all(q, i)) {
            i++;
            continue;
        }
        uint32_t bytes = tlp_payload_bytes(t);
        int rc = sim_port_send(p->port, t);
        if (rc == -SIM_EAGAIN) {
            p->refused |= (uint8_t)(1u << cls);
            i++;
            continue;
        }
        q_remove(q, i);
        sw->in_flight--;
        if (rc == 0) {
            p->n.tlps_out++;
            p->n.bytes_out += bytes;
        } else {
            /* only "not connected", which psw_receive rules out */
            SIM_NEVER(rc != 0);
            p->n.dropped++;
            tlp_free(t);
        }
        /* The TLP that moved into the egress buffer returns its credits. */
        if (i < sw->queue_tlps && q->count >= sw->queue_tlps) {
            sim_tlp_release_hold(q_at(q, sw->queue_tlps - 1));
        }
    }
}

static void psw_egress_pump(struct psw *sw, struct psw_port *p)
{
    if (p->pumping) {
        p->repump = true;       /* a link called back while we sent */
        return;
    }
    p->pumping = true;
    do {
        p->repump = false;
        psw_egress_pump_once(sw, p);
    } while (p->repump);
    p->pumping = false;
}

static void psw_enqueue(struct psw *sw, unsigned e, struct tlp *t)
{
    struct psw_port *p = &sw->port[e];
    if (q_push(&p->q, t) < 0) {
        sim_log(sw->comp->sim, SIM_LOG_ERROR, sw->comp->name,
                "out of memory queueing a TLP for %s; dropped",
                p->port->name);
        p->n.dropped++;
        sw->in_flight--;
        tlp_free(t);
        return;
    }
    if (p->q.count <= sw->queue_tlps) {
        sim_tlp_release_hold(t);
    }
    psw_egress_pump(sw, p);
}

/*
 * psw_complete_unsupported - replace the non-posted request req, received
 * on port in, with an Unsupported Request completion back out of in
 * (PCIe r6.0 §2.3.1, §2.2.9). The switch's upstream port completes it.
 */
static void psw_complete_unsupported(struct psw *sw, unsigned in,
                                     struct tlp *req)
{
    struct tlp *cpl = tlp_new_completion(sw->comp->sim, req, TLP_CPL_UR, 0);
    tlp_free(req);
    if (SIM_NEVER(cpl == NULL)) {
        sw->in_flight--;
        sw->port[in].n.dropped++;
        return;
    }
    cpl->completer_id = pcie_id(sw->bus, 0, 0);
    psw_enqueue(sw, in, cpl);
}

/* The latency has passed: the TLP joins its egress queue. */
static void psw_forward_due(struct sim *sim, struct sim_event *ev)
{
    struct tlp *t = SIM_CONTAINER_OF(ev, struct tlp, ev);
    /* Still the ingress link's: the port it was delivered to is ours. */
    struct sim_port *in = t->link->end[t->link_side];
    struct psw *sw = psw_from(in->owner);

    if (t->route_hint == PSW_HINT_UR) {
        psw_complete_unsupported(sw, in->index, t);
        return;
    }
    SIM_ASSERT(t->route_hint < sw->n_ports,
               "%s: TLP %llu has egress port %u of %u", in->owner->name,
               (unsigned long long)t->id, t->route_hint, sw->n_ports);
    psw_enqueue(sw, t->route_hint, t);
}

/* t cannot go on: UR for a non-posted request, otherwise drop it. */
static void psw_refuse(struct psw *sw, struct psw_port *ip, struct tlp *t,
                       const struct psw_decision *d)
{
    bool acs = d->verdict == ACS_BLOCK && d->rule != ACS_RULE_UF;
    if (acs) {
        ip->n.blocked++;
    } else {
        ip->n.unsupported++;
    }
    if (is_non_posted_request(t)) {
        ip->n.ur++;
        psw_trace(sw, SIM_TP_MODEL, ip->port, t, d->rule, 0,
                  acs ? "acs violation: UR completion"
                      : "unsupported request: UR completion");
        t->route_hint = PSW_HINT_UR;
        sim_event_init(&t->ev, psw_forward_due);
        sim_event_schedule(sw->comp->sim, &t->ev, sw->latency_ps);
        return;
    }
    ip->n.dropped++;
    psw_trace(sw, SIM_TP_TLP_DROP, ip->port, t, d->rule, 0,
              acs ? "acs violation" : "unroutable");
    sw->in_flight--;
    tlp_free(t);
}

static void psw_receive(struct sim_component *c, struct sim_port *in,
                        struct tlp *t)
{
    struct psw *sw = psw_from(c);
    struct psw_port *ip = &sw->port[in->index];

    sw->in_flight++;
    ip->n.tlps_in++;
    ip->n.bytes_in += tlp_payload_bytes(t);

    struct psw_decision d = psw_decide(sw, in->index, t);
    if (d.egress >= 0 && !sim_port_is_connected(sw->port[d.egress].port)) {
        d.egress = -1;          /* link down: nobody claims it */
    }
    if (d.egress < 0) {
        psw_refuse(sw, ip, t, &d);
        return;
    }
    if (d.verdict == ACS_REDIRECT) {
        ip->n.redirects++;
        psw_trace(sw, SIM_TP_MODEL, in, t, d.rule, (uint64_t)d.normal,
                  "acs redirect");
    }
    t->route_hint = (uint32_t)d.egress;
    sim_event_init(&t->ev, psw_forward_due);
    sim_event_schedule(c->sim, &t->ev, sw->latency_ps);
}

static void psw_ready(struct sim_component *c, struct sim_port *out)
{
    struct psw *sw = psw_from(c);
    struct psw_port *p = &sw->port[out->index];
    p->refused = 0;
    psw_egress_pump(sw, p);
}

/* ---- lifecycle ----------------------------------------------------------- */

static int psw_configure(struct sim_component *c,
                         const struct sim_props *props, struct sim_error *err)
{
    struct psw *sw = sim_component_state(c);
    uint64_t n_dp = 0, queue = PSW_DEFAULT_QUEUE;
    sim_time_t latency = PSW_DEFAULT_LATENCY;
    int rc;

    sw->comp = c;
    if (!props) {
        return sim_error_set(err, SIM_ENOENT,
                             "switch '%s' needs 'ports' (1 to %u downstream "
                             "ports)", c->name, PSW_MAX_DOWNSTREAM);
    }
    rc = sim_props_get_u64(props, "ports", &n_dp, 1, PSW_MAX_DOWNSTREAM,
                           SIM_PROP_REQUIRED, err);
    if (rc == 0) {
        rc = sim_props_get_time(props, "latency", &latency, 0, err);
    }
    if (rc == 0) {
        rc = sim_props_get_u64(props, "queue", &queue, 0, PSW_MAX_QUEUE, 0,
                               err);
    }
    if (rc < 0) {
        return rc;
    }
    sw->latency_ps = latency;
    sw->queue_tlps = (uint32_t)queue;
    sw->route = calloc(n_dp + 1, sizeof(*sw->route));
    sw->port = calloc(n_dp + 1, sizeof(*sw->port));
    if (!sw->route || !sw->port) {
        return sim_error_set(err, SIM_ENOMEM, "switch '%s': out of memory",
                             c->name);
    }
    sw->n_ports = (unsigned)n_dp + 1;
    for (unsigned i = 0; i < sw->n_ports; i++) {
        char name[16];
        if (i == PSW_UP) {
            snprintf(name, sizeof(name), "up");
        } else {
            snprintf(name, sizeof(name), "dp%u", i - 1);
        }
        sw->port[i].port = sim_port_add(c, name, i == PSW_UP
                                                     ? SIM_PORT_UPSTREAM
                                                     : SIM_PORT_DOWNSTREAM);
        if (!sw->port[i].port) {
            return sim_error_set(err, SIM_EEXIST,
                                 "switch '%s': cannot add port '%s' (added "
                                 "already? configure runs once)",
                                 c->name, name);
        }
        SIM_ASSERT(sw->port[i].port->index == i,
                   "switch '%s': port %s has index %u, expected %u", c->name,
                   name, sw->port[i].port->index, i);
    }
    return 0;
}

/*
 * Model: routes, bus number and ACS control are programmed by the builder,
 * which stands in for the OS's enumeration, so reset keeps them (a real
 * reset would clear them and the OS would program them again). Reset
 * clears the statistics.
 */
static void psw_reset(struct sim_component *c)
{
    struct psw *sw = psw_from(c);
    for (unsigned i = 0; i < sw->n_ports; i++) {
        memset(&sw->port[i].n, 0, sizeof(sw->port[i].n));
    }
}

static void psw_report(const struct sim_component *c, struct sim_stats *out)
{
    const struct psw *sw = psw_from(c);
    char name[256];

    for (unsigned i = 0; i < sw->n_ports; i++) {
        const struct psw_port *p = &sw->port[i];
        if (!p->port) {
            continue;           /* configure failed before adding it */
        }
#define PSW_COUNTER_REPORT(f, doc)                                            \
        snprintf(name, sizeof(name), "%s.%s." #f, c->name, p->port->name);    \
        sim_stats_add(out, name, p->n.f);
        PSW_COUNTERS(PSW_COUNTER_REPORT)
#undef PSW_COUNTER_REPORT
    }
    snprintf(name, sizeof(name), "%s.in_flight", c->name);
    sim_stats_set(out, name, sw->in_flight);
}

/*
 * Queued TLPs are not freed here: the core destroys links before
 * components, so their receive buffers cannot be released, and the TLP
 * pool frees every TLP afterwards.
 */
static void psw_destroy(struct sim_component *c)
{
    struct psw *sw = psw_from(c);
    for (unsigned i = 0; sw->port && i < sw->n_ports; i++) {
        free(sw->port[i].q.slot);
    }
    free(sw->port);
    free(sw->route);
    sw->port = NULL;
    sw->route = NULL;
}

/* ---- queries and programming (switch.h) ---------------------------------- */

struct pcie_route *psw_routes(struct sim_component *c, unsigned *n_ports)
{
    struct psw *sw = psw_from(c);
    if (n_ports) {
        *n_ports = sw->n_ports;
    }
    return sw->route;
}

int psw_set_acs(struct sim_component *c, unsigned dp, uint16_t ctrl,
                uint64_t egress_blocked)
{
    struct psw *sw = psw_from(c);
    unsigned n_dp = sw->n_ports - 1;
    if (dp >= n_dp || (ctrl & ~PSW_ACS_BITS) ||
        (n_dp < 64 && (egress_blocked >> n_dp) != 0)) {
        return -SIM_EINVAL;
    }
    sw->port[dp + 1].acs_ctrl = ctrl;
    sw->port[dp + 1].acs_egress_blocked = egress_blocked;
    return 0;
}

uint16_t psw_acs(const struct sim_component *c, unsigned dp)
{
    const struct psw *sw = psw_from(c);
    return dp + 1 < sw->n_ports ? sw->port[dp + 1].acs_ctrl : 0;
}

void psw_set_bus(struct sim_component *c, unsigned bus)
{
    psw_from(c)->bus = bus & 0xff;
}

/* ---- registration -------------------------------------------------------- */

const struct sim_component_ops psw_ops = {
    .kind = "pcie-switch",
    .state_size = sizeof(struct psw),
    .configure = psw_configure,
    .reset = psw_reset,
    .receive = psw_receive,
    .ready = psw_ready,
    .report = psw_report,
    .destroy = psw_destroy,
};
