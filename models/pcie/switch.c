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
 * Not modelled: configuration space (the builder programs routes, bus and
 * ACS through switch.h, standing in for the OS's enumeration), hot-plug,
 * DPC, AER logging, the ACS enhanced capability (I/O request blocking,
 * DSP/USP memory target access, unclaimed request redirect), multicast,
 * virtual channels (TC only relaxes ordering), broadcast messages from
 * upstream (dropped and counted), and I/O and configuration requests (our
 * TLP kinds have none).
 *
 * Costs: no event per hop; routing is a linear scan of the ports' windows
 * (at most 65 ports); each egress decision is O(1) (egress.c).
 */
#include <config.h>

#include "models/pcie/switch.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/pcie/acs.h"
#include "models/pcie/egress.h"
#include "models/pcie/pcie.h"
#include "models/pcie/pcie_regs.h"
#include "sim/component.h"
#include "sim/error.h"
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

/* Per-port counters: X(field, what it counts). */
#define PSW_COUNTERS(X)                                                       \
    X(tlps_in, "TLPs received on the port")                                   \
    X(bytes_in, "payload bytes received on the port")                         \
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

struct psw_port {
    struct sim_port *port;      /* the core's port; index = our index */
    /* architectural state (downstream ports only) */
    uint16_t acs_ctrl;          /* ACS Control, PCI_ACS_* */
    uint64_t acs_egress_blocked;/* Egress Control Vector, bit j = dp<j> */
    /* modelling state */
    struct pcie_egress q;       /* egress queue (egress.h) */
    /* statistics */
    struct psw_counters n;
};

struct psw {
    struct sim_component *comp;
    /* configuration */
    unsigned n_ports;           /* 1 + downstream ports, 2..65 */
    sim_time_t latency_ps;      /* per hop, delivery to egress start */
    uint32_t queue_tlps;        /* egress buffer per port, TLPs */
    bool atomic_routing;        /* its ports route AtomicOps (DevCap2) */
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

/* ---- pure decisions ------------------------------------------------------ */

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
    bool atomic_unrouted;       /* an AtomicOp the ports cannot route */
};

/*
 * psw_route_decide - route t received on port in, then apply in's ACS.
 * From "up": a downstream port that claims t, else nowhere (UR). From a
 * downstream port: the one that claims it, else "up"; ACS may redirect
 * that to "up" or block it; a TLP aimed back at its own port goes up only
 * with Upstream Forwarding (acs.c, note c).
 */
static struct psw_decision psw_route_decide(const struct psw *sw,
                                            unsigned in, const struct tlp *t)
{
    struct psw_decision d = { -1, -1, ACS_FORWARD, ACS_RULE_NONE, false };
    const struct pcie_route *own = &sw->route[in];
    bool self = false;

    switch (tlp_kind_routing(t->kind)) {
    case TLP_ROUTE_ADDR:
        self = in != PSW_UP && pcie_route_claims_addr(own, t->addr);
        d.normal = self ? -1 : psw_route_by_addr(sw, t->addr, (int)in);
        break;
    case TLP_ROUTE_ID: {
        unsigned bus = pcie_id_bus(pcie_tlp_dest_id(t));
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
    enum acs_target tgt = self ? ACS_TARGET_SELF
                          : d.normal > 0 ? ACS_TARGET_PEER : ACS_TARGET_UP;
    if (sw->port[in].acs_ctrl == 0 && tgt != ACS_TARGET_SELF) {
        /* ACS off: what acs_check answers, without asking it. */
        d.verdict = ACS_FORWARD;
        d.rule = ACS_RULE_NONE;
    } else {
        struct acs_port ap = psw_acs_port(sw, in);
        unsigned peer = d.normal > 0 ? (unsigned)d.normal - 1 : 0;
        d.verdict = acs_check(&ap, t, tgt, peer, &d.rule);
    }
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

/*
 * psw_decide - psw_route_decide, then AtomicOp routing: a switch whose
 * ports do not support it (Device Capabilities 2, AtomicOp Routing
 * Supported clear; PCIe r6.0 §6.15.2) cannot pass an AtomicOp from one
 * port to another, so the request is refused (UR, as for a request it
 * cannot route). Every port of the switch shares the one setting.
 */
static struct psw_decision psw_decide(const struct psw *sw, unsigned in,
                                      const struct tlp *t)
{
    struct psw_decision d = psw_route_decide(sw, in, t);
    if (d.egress >= 0 && !sw->atomic_routing &&
        tlp_kind_is_atomicop(t->kind)) {
        d.egress = -1;
        d.atomic_unrouted = true;
    }
    return d;
}

/* ---- traces -------------------------------------------------------------- */

static void psw_trace(const struct psw *sw, enum sim_trace_point p,
                      const struct sim_port *port, const struct tlp *t,
                      uint64_t a, uint64_t b, const char *msg)
{
    sim_trace_component(sw->comp, p, port ? port->name : NULL, t, a, b, msg);
}

/* ---- the TLP path -------------------------------------------------------- */

/* Offer the egress queue of port p to its link (ordering in egress.c). */
static void psw_egress_pump(struct psw *sw, struct psw_port *p)
{
    sw->in_flight -= pcie_egress_drain(&p->q, p->port);
}

/*
 * Model: back-pressure. A TLP a link delivers holds that link's receive
 * buffer (its flow-control credits) until the TLP is sent on or freed
 * (sim/port.h). The switch gives it an egress buffer slot: each egress
 * queue's first `queue` TLPs have released their ingress credits (the
 * switch's own packet memory holds them); TLPs beyond that keep their
 * ingress credits, so a congested egress port stops the ingress links
 * that feed it as soon as their credits run out. queue: 0 models a switch
 * without egress buffering. Since a TLP joins the queue at delivery, TLPs
 * still within their forwarding latency count towards `queue`, and a TLP
 * that gets a slot returns its ingress credits at delivery. The switch
 * never refuses a delivered TLP (it cannot: the link only sends what
 * credits allow), so over an ideal wire, which has no credits, the queues
 * are unbounded.
 */

/*
 * Queue t for egress port e. stream is the ingress port it came in on, or
 * n_ports for a TLP the switch made: the ordering rules hold per stream.
 * Inline: on every TLP's path through the switch (gcc -O2 kept the call).
 */
static inline void psw_enqueue(struct psw *sw, unsigned e, struct tlp *t,
                               unsigned stream)
{
    struct psw_port *p = &sw->port[e];
    int n = pcie_egress_send(&p->q, t, stream, p->port);
    if (n < 0) {
        sim_component_nomem(sw->comp, "a place in an egress queue");
        p->n.dropped++;
        sw->in_flight--;
        tlp_free(t);
        return;
    }
    sw->in_flight -= (unsigned)n;
}

/* When a TLP delivered now may start on its egress link. */
static sim_time_t psw_due(const struct psw *sw)
{
    return sim_time_add(sim_now(sw->comp->sim), sw->latency_ps);
}

/*
 * psw_complete_unsupported - replace the non-posted request req, received
 * on port in, with an Unsupported Request completion back out of in
 * (PCIe r6.0 §2.3.1, §2.2.9), leaving after the switch's latency. The
 * switch's upstream port completes it.
 */
static void psw_complete_unsupported(struct psw *sw, unsigned in,
                                     struct tlp *req)
{
    struct tlp *cpl = tlp_new_completion(sw->comp->sim, req, TLP_CPL_UR, 0);
    tlp_free(req);
    if (!cpl) {
        sim_component_nomem(sw->comp, "a completion");
        sw->in_flight--;
        sw->port[in].n.dropped++;
        return;
    }
    cpl->completer_id = pcie_id(sw->bus, 0, 0);
    cpl->not_before = psw_due(sw);
    psw_enqueue(sw, in, cpl, sw->n_ports);
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
    if (pcie_tlp_is_np_request(t)) {
        ip->n.ur++;
        psw_trace(sw, SIM_TP_MODEL, ip->port, t, d->rule, 0,
                  acs ? "acs violation: UR completion"
                  : d->atomic_unrouted
                      ? "AtomicOp routing not supported: UR completion"
                      : "unsupported request: UR completion");
        psw_complete_unsupported(sw, ip->port->index, t);
        return;
    }
    ip->n.dropped++;
    psw_trace(sw, SIM_TP_TLP_DROP, ip->port, t, d->rule, 0,
              acs ? "acs violation" : "unroutable");
    sw->in_flight--;
    tlp_free(t);
}

/*
 * Life of a TLP. A link delivers it to psw_receive() on an ingress port.
 * The switch routes it at once (address routing for memory, atomic and ATS
 * requests, ID routing for completions; PCIe r6.0 §2.2.4), applies the
 * ingress port's ACS (acs.c), counts it and traces what ACS did. A TLP
 * nobody claims, or that ACS blocks, is answered with an Unsupported
 * Request completion if it is a non-posted request and otherwise dropped
 * and recorded (§2.3.1, §6.2.7). Otherwise it joins the egress port's
 * queue at once and is offered to the egress link with sim_port_send(),
 * with not_before = delivery + `latency` (sim/tlp.h): the link starts it
 * no earlier, so the hop costs no event of the switch's own. A refused
 * TLP stays queued; later TLPs may overtake it only where the ordering
 * rules allow (§2.4.1; egress.c); the link's ready() call restarts the
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
 * Model: the egress decision is taken at delivery, not `latency` later:
 * the ordering rules, the egress link's credits and its transmit backlog
 * (as it will be at delivery + latency) are judged when the TLP arrives,
 * and the TLP takes its place on the egress link then. So credits that
 * come back during the latency do not count for it (it is refused and
 * offered again at the link's ready(), still starting no earlier than
 * delivery + latency), and a TLP's transmit trace (SIM_TP_TLP_TX) carries
 * the delivery time.
 */
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
    t->not_before = psw_due(sw);
    psw_enqueue(sw, (unsigned)d.egress, t, in->index);
}

static void psw_ready(struct sim_component *c, struct sim_port *out)
{
    struct psw *sw = psw_from(c);
    struct psw_port *p = &sw->port[out->index];
    pcie_egress_ready(&p->q);
    psw_egress_pump(sw, p);
}

bool psw_atomic_routing(const struct sim_component *c)
{
    return psw_from(c)->atomic_routing;
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
    sw->atomic_routing = true;
    if (rc == 0) {
        rc = sim_props_get_bool(props, "atomic-routing", &sw->atomic_routing,
                                0, err);
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
            return sim_error_set(err, sim_port_find(c, name) ? SIM_EEXIST
                                                             : SIM_ENOMEM,
                                 "switch '%s': cannot add port '%s' (added "
                                 "already? configure runs once)",
                                 c->name, name);
        }
        SIM_ASSERT(sw->port[i].port->index == i,
                   "switch '%s': port %s has index %u, expected %u", c->name,
                   name, sw->port[i].port->index, i);
        if (pcie_egress_init(&sw->port[i].q, sw->n_ports + 1,
                             sw->queue_tlps) < 0) {
            return sim_error_set(err, SIM_ENOMEM, "switch '%s': out of "
                                 "memory", c->name);
        }
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
        sim_stats_addf(out, p->n.f, "%s.%s." #f, c->name, p->port->name);
        PSW_COUNTERS(PSW_COUNTER_REPORT)
#undef PSW_COUNTER_REPORT
        /* what left the port: counted by its egress queue */
        sim_stats_addf(out, p->q.tlps_out, "%s.%s.tlps_out", c->name,
                       p->port->name);
        sim_stats_addf(out, p->q.bytes_out, "%s.%s.bytes_out", c->name,
                       p->port->name);
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
        pcie_egress_fini(&sw->port[i].q);
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

unsigned psw_bus(const struct sim_component *c)
{
    return psw_from(c)->bus;
}

int psw_route(const struct sim_component *c, unsigned in,
              const struct tlp *t, bool *redirected)
{
    const struct psw *sw = psw_from(c);
    if (in >= sw->n_ports) {
        return -1;
    }
    struct psw_decision d = psw_decide(sw, in, t);
    if (d.egress >= 0 && !sim_port_is_connected(sw->port[d.egress].port)) {
        d.egress = -1;
    }
    if (redirected) {
        *redirected = d.egress >= 0 && d.verdict == ACS_REDIRECT;
    }
    return d.egress;
}

sim_time_t psw_latency(const struct sim_component *c)
{
    return psw_from(c)->latency_ps;
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
