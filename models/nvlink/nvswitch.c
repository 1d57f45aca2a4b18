/*
 * models/nvlink/nvswitch.c - an NVSwitch (kind "nvswitch"): a crossbar
 * with `ports` NVLink ports, a per-hop latency and an internal bandwidth.
 *
 *          p0   p1   p2  ...  p<n-1>      each port: one bonded group
 *           \    |    |        /           (models/nvlink/nvlink.c) to a GPU
 *            [  crossbar (bandwidth)  ]
 *
 * Routing: the builder programs, for every port that leads to a GPU, the
 * GPU's NVLink address window and its requester ID (nvsw_set_target; on
 * real systems the fabric manager does this). A request leaves by a port
 * whose window holds its address, a completion by a port whose ID is its
 * requester's. Several ports may lead to one GPU (bonded groups listed
 * separately); the one with the fewest packets waiting is taken. A packet
 * nothing routes is dropped and counted; a non-posted request gets an
 * Unsupported Request completion back on the port it came in by.
 *
 * Timing: a packet crosses the crossbar (one serialiser for the whole
 * switch at `bandwidth`, charged the packet's flit bytes) and may leave
 * `latency` after that. By default the crossbar is non-blocking (ports x
 * the per-link rate of the switch's generation), so only the ports limit.
 *
 * Back-pressure: a packet the egress link refuses waits in that port's
 * FIFO and keeps holding its ingress link's receive buffer (sim/port.h),
 * so a congested port stops the links that feed it.
 *
 * Model: no published NVSwitch hop latency exists (reference
 * pcie-nvlink.md §5); the 100 ns default is an estimate. Not modelled:
 * NVLink SHARP (in-switch reductions, gen3+), multicast, trunk links
 * between switches, the switches' own management ports.
 */
#include <config.h>

#include "models/nvlink/nvlink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/tlp.h"
#include "sim/trace.h"

#define NVSW_MAX_PORTS 128u
#define NVSW_DEF_LATENCY SIM_NS(100)    /* [estimate], see above */

/* NVSwitch generation -> the NVLink generation of its ports (reference
 * pcie-nvlink.md §3: gen1 DGX-2 V100, gen2 A100, gen3 H100, gen4 B200). */
static const unsigned nvsw_nvl_gen[NVSW_GEN_MAX + 1] = { 0, 2, 3, 4, 5 };

unsigned nvsw_gen_nvlink(unsigned gen)
{
    return gen >= 1 && gen <= NVSW_GEN_MAX ? nvsw_nvl_gen[gen] : 0;
}

struct nvsw_port {
    struct sim_port *port;
    bool has_target;
    uint64_t base, limit;       /* NVLink addresses routed here */
    uint16_t id;                /* requester ID of the GPU behind it */
    struct tlp **q;             /* FIFO of packets the link refused */
    size_t head, count, cap;    /* cap: 0 or a power of two */
    uint64_t forwarded;
};

struct nvsw {
    /* configuration */
    struct sim_component *c;
    unsigned gen;
    unsigned n_ports;
    sim_time_t latency_ps;
    uint64_t bw;                /* crossbar, bytes/s */
    /* modelling state */
    struct nvsw_port *port;
    /* routing index (nvsw_set_target): the ports with a target, by
     * (base, index) and by (id, index); NULL when the windows overlap
     * other than exactly, and every route scans all ports */
    unsigned *by_addr, *by_id, n_index;
    sim_time_t xbar_busy_until;
    /* statistics */
    uint64_t unroutable;
    uint64_t queued_max;
};

static struct nvsw *nvsw_from(const struct sim_component *c)
{
    return sim_component_state(c);
}

/* ---- routing ------------------------------------------------------------- */

static bool port_matches(const struct nvsw_port *p, const struct tlp *t)
{
    if (!p->has_target) {
        return false;
    }
    if (tlp_is_request(t)) {
        return t->addr >= p->base && t->addr <= p->limit;
    }
    return t->requester_id == p->id;
}

/*
 * The index's first entry whose key (the port's base, or its ID) is at
 * least key: a binary search.
 */
static unsigned index_lower(const struct nvsw *sw, const unsigned *ix,
                            uint64_t key, bool by_addr)
{
    unsigned lo = 0, hi = sw->n_index;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        const struct nvsw_port *p = &sw->port[ix[mid]];
        if ((by_addr ? p->base : p->id) < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/*
 * nvsw_route through the index: the ports that match t are adjacent in
 * it, in port order, so the choice is the one the scan below makes (the
 * fewest packets waiting, the lowest port on a tie). A request's window
 * is the last one starting at or below its address.
 */
static int route_indexed(const struct nvsw *sw, unsigned in,
                         const struct tlp *t)
{
    bool req = tlp_is_request(t);
    const unsigned *ix = req ? sw->by_addr : sw->by_id;
    unsigned k;
    if (req) {
        k = index_lower(sw, ix, t->addr, true);
        if (k == sw->n_index || sw->port[ix[k]].base != t->addr) {
            if (k == 0) {
                return -1;
            }
            uint64_t base = sw->port[ix[k - 1]].base;
            k = index_lower(sw, ix, base, true);
        }
    } else {
        k = index_lower(sw, ix, t->requester_id, false);
    }
    int best = -1;
    for (; k < sw->n_index; k++) {
        unsigned i = ix[k];
        if (!port_matches(&sw->port[i], t)) {
            break;
        }
        if (i != in && (best < 0 || sw->port[i].count < sw->port[best].count)) {
            best = (int)i;
        }
    }
    return best;
}

int nvsw_route(const struct sim_component *c, unsigned in,
               const struct tlp *t)
{
    const struct nvsw *sw = nvsw_from(c);
    if (sw->by_addr) {
        return route_indexed(sw, in, t);
    }
    int best = -1;
    for (unsigned i = 0; i < sw->n_ports; i++) {
        if (i == in || !port_matches(&sw->port[i], t)) {
            continue;
        }
        if (best < 0 || sw->port[i].count < sw->port[best].count) {
            best = (int)i;
        }
    }
    return best;
}

/* ---- the egress FIFOs ---------------------------------------------------- */

static int q_push(struct nvsw_port *p, struct tlp *t)
{
    if (p->count == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        struct tlp **n = malloc(cap * sizeof(*n));
        if (!n) {
            return -SIM_ENOMEM;
        }
        for (size_t i = 0; i < p->count; i++) {
            n[i] = p->q[(p->head + i) & (p->cap - 1)];
        }
        free(p->q);
        p->q = n;
        p->cap = cap;
        p->head = 0;
    }
    p->q[(p->head + p->count) & (p->cap - 1)] = t;
    p->count++;
    return 0;
}

/* Send what port p's link takes, in order. */
static void nvsw_drain(struct nvsw *sw, struct nvsw_port *p)
{
    while (p->count && !p->port->wants_ready) {
        struct tlp *t = p->q[p->head];
        if (sim_port_send(p->port, t) < 0) {
            break;              /* refused: ready() drains again */
        }
        p->head = (p->head + 1) & (p->cap - 1);
        p->count--;
        p->forwarded++;
    }
}

/* ---- the packet path ----------------------------------------------------- */

static void nvsw_unroutable(struct nvsw *sw, struct sim_port *in,
                            struct tlp *t)
{
    sw->unroutable++;
    sim_trace_component(sw->c, SIM_TP_MODEL, in->name, t, t->addr,
                        t->requester_id, "no port routes this packet "
                        "(fabric manager not running?)");
    if (tlp_is_request(t) && !tlp_is_posted(t)) {
        struct tlp *cpl = tlp_new_completion(sw->c->sim, t, TLP_CPL_UR, 0);
        struct nvsw_port *back = &sw->port[in->index];
        if (!cpl) {
            sim_component_nomem(sw->c, "a completion");
        } else if ((cpl->byte_count = t->len_bytes, q_push(back, cpl)) < 0) {
            tlp_free(cpl);
            sim_component_nomem(sw->c, "a place in a port's queue");
        } else {
            nvsw_drain(sw, back);
        }
    }
    tlp_free(t);
}

static void nvsw_receive(struct sim_component *c, struct sim_port *in,
                         struct tlp *t)
{
    struct nvsw *sw = nvsw_from(c);
    int e = nvsw_route(c, in->index, t);
    if (e < 0) {
        nvsw_unroutable(sw, in, t);
        return;
    }
    sim_time_t now = sim_now(c->sim);
    sim_time_t start = sw->xbar_busy_until > now ? sw->xbar_busy_until : now;
    sw->xbar_busy_until = sim_time_add(start,
                                       sim_time_for_bytes(nvl_packet_bytes(t),
                                                          sw->bw));
    t->not_before = sim_time_add(sw->xbar_busy_until, sw->latency_ps);
    struct nvsw_port *p = &sw->port[e];
    if (q_push(p, t) < 0) {
        tlp_free(t);
        sim_component_nomem(c, "a place in a port's queue");
        return;
    }
    if (p->count > sw->queued_max) {
        sw->queued_max = p->count;
    }
    nvsw_drain(sw, p);
}

static void nvsw_ready(struct sim_component *c, struct sim_port *out)
{
    struct nvsw *sw = nvsw_from(c);
    nvsw_drain(sw, &sw->port[out->index]);
}

/* ---- configuration ------------------------------------------------------- */

static int nvsw_configure(struct sim_component *c, const struct sim_props *p,
                          struct sim_error *err)
{
    struct nvsw *sw = nvsw_from(c);
    sw->c = c;
    uint64_t v = 0;
    int rc = sim_props_get_u64(p, "generation", &v, 1, NVSW_GEN_MAX,
                               SIM_PROP_REQUIRED, err);
    if (rc < 0) {
        return rc;
    }
    sw->gen = (unsigned)v;
    rc = sim_props_get_u64(p, "ports", &v, 1, NVSW_MAX_PORTS,
                           SIM_PROP_REQUIRED, err);
    if (rc < 0) {
        return rc;
    }
    sw->n_ports = (unsigned)v;
    sw->latency_ps = NVSW_DEF_LATENCY;
    rc = sim_props_get_time(p, "latency", &sw->latency_ps, 0, err);
    if (rc < 0) {
        return rc;
    }
    sw->bw = sw->n_ports * nvl_gen_link_rate(nvsw_gen_nvlink(sw->gen));
    rc = sim_props_get_rate(p, "bandwidth", &sw->bw, 0, err);
    if (rc < 0) {
        return rc;
    }
    if (sw->bw == 0) {
        return sim_props_error(p, "bandwidth", SIM_EINVAL, err,
                               "%s: bandwidth must be more than 0 B/s",
                               p->owner);
    }
    sw->port = calloc(sw->n_ports, sizeof(*sw->port));
    if (!sw->port) {
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    for (unsigned i = 0; i < sw->n_ports; i++) {
        char name[16];
        snprintf(name, sizeof(name), "p%u", i);
        sw->port[i].port = sim_port_add(c, name, SIM_PORT_PEER);
        if (!sw->port[i].port) {
            return sim_error_set(err, SIM_ENOMEM, "nvswitch '%s': cannot "
                                 "add port '%s'", c->name, name);
        }
    }
    return 0;
}

static void nvsw_destroy(struct sim_component *c)
{
    struct nvsw *sw = nvsw_from(c);
    for (unsigned i = 0; sw->port && i < sw->n_ports; i++) {
        struct nvsw_port *p = &sw->port[i];
        while (p->count) {
            tlp_free(p->q[p->head]);
            p->head = (p->head + 1) & (p->cap - 1);
            p->count--;
        }
        free(p->q);
    }
    free(sw->port);
    sw->port = NULL;
    free(sw->by_addr);
    sw->by_addr = sw->by_id = NULL;
}

static void nvsw_report(const struct sim_component *c, struct sim_stats *out)
{
    const struct nvsw *sw = nvsw_from(c);
    uint64_t fwd = 0;
    for (unsigned i = 0; i < sw->n_ports; i++) {
        fwd += sw->port[i].forwarded;
    }
    sim_stats_addf(out, fwd, "%s.forwarded", c->name);
    sim_stats_addf(out, sw->unroutable, "%s.unroutable", c->name);
    sim_stats_addf(out, sw->queued_max, "%s.queued_max", c->name);
}

/* ---- builder interface (nvlink.h) ---------------------------------------- */

/* Insert port i into ix (n entries) in order of key, then port. */
static void index_insert(const struct nvsw *sw, unsigned *ix, unsigned n,
                         unsigned i, bool by_addr)
{
    uint64_t key = by_addr ? sw->port[i].base : sw->port[i].id;
    unsigned k = n;
    while (k > 0) {
        const struct nvsw_port *q = &sw->port[ix[k - 1]];
        uint64_t qk = by_addr ? q->base : q->id;
        if (qk < key || (qk == key && ix[k - 1] < i)) {
            break;
        }
        ix[k] = ix[k - 1];
        k--;
    }
    ix[k] = i;
}

/*
 * Rebuild the routing index from the targets. Windows that overlap other
 * than exactly (never, as the builder sets them) leave no index: routes
 * then scan every port.
 */
static void index_build(struct nvsw *sw)
{
    free(sw->by_addr);
    sw->by_addr = sw->by_id = NULL;
    sw->n_index = 0;
    unsigned *ix = malloc(2 * (size_t)sw->n_ports * sizeof(*ix));
    if (!ix) {
        return;
    }
    unsigned n = 0;
    for (unsigned i = 0; i < sw->n_ports; i++) {
        if (sw->port[i].has_target) {
            index_insert(sw, ix, n, i, true);
            index_insert(sw, ix + sw->n_ports, n, i, false);
            n++;
        }
    }
    for (unsigned k = 1; k < n; k++) {
        const struct nvsw_port *a = &sw->port[ix[k - 1]];
        const struct nvsw_port *b = &sw->port[ix[k]];
        bool same = a->base == b->base && a->limit == b->limit;
        if (!same && b->base <= a->limit) {
            free(ix);
            return;
        }
    }
    sw->by_addr = ix;
    sw->by_id = ix + sw->n_ports;
    sw->n_index = n;
}

int nvsw_set_target(struct sim_component *c, unsigned port, uint64_t base,
                    uint64_t limit, uint16_t id)
{
    struct nvsw *sw = nvsw_from(c);
    if (port >= sw->n_ports || limit < base) {
        return -SIM_EINVAL;
    }
    struct nvsw_port *p = &sw->port[port];
    p->has_target = true;
    p->base = base;
    p->limit = limit;
    p->id = id;
    index_build(sw);
    return 0;
}

unsigned nvsw_n_ports(const struct sim_component *c)
{
    return nvsw_from(c)->n_ports;
}

unsigned nvsw_generation(const struct sim_component *c)
{
    return nvsw_from(c)->gen;
}

sim_time_t nvsw_latency(const struct sim_component *c)
{
    return nvsw_from(c)->latency_ps;
}

uint64_t nvsw_bandwidth(const struct sim_component *c)
{
    return nvsw_from(c)->bw;
}

/* ---- registration -------------------------------------------------------- */

const struct sim_component_ops nvsw_ops = {
    .kind = "nvswitch",
    .state_size = sizeof(struct nvsw),
    .configure = nvsw_configure,
    .receive = nvsw_receive,
    .ready = nvsw_ready,
    .report = nvsw_report,
    .destroy = nvsw_destroy,
};
