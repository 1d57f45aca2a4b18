/*
 * machine/route.h - the hops one TLP takes through a built machine, asked
 * of the routing models themselves: from the port its sender transmits
 * on, link by link, each switch and root complex deciding the next port
 * exactly as it would decide for that TLP (psw_route, rc_route), to the
 * endpoint that consumes it (a GPU, host memory). So ACS redirects send
 * the route up to the root complex and back, and cross-socket traffic
 * crosses the socket link, with no rule of the routing repeated here.
 *
 * The flow fidelity (machine/flow.c) charges a whole transfer to the links
 * and shared resources on the routes of its requests and completions,
 * and adds up their latencies.
 */
#ifndef P2PSIM_MACHINE_ROUTE_H
#define P2PSIM_MACHINE_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"

struct sim_component;
struct sim_link;
struct sim_port;
struct tlp;

#define ROUTE_MAX_HOPS 32

/*
 * One link crossed, and what the component it leads to adds before the
 * TLP leaves on the next link (nothing for the endpoint).
 */
struct route_hop {
    struct sim_link *link;
    unsigned from;              /* the side that transmits: 0 or 1 */
    struct sim_component *to;   /* the component the link delivers to */
    struct sim_port *in;        /* ...on this port of it */
    sim_time_t fwd_latency_ps;  /* to's forwarding latency (+ IOMMU cost) */
    bool p2p;                   /* to is a root complex and the TLP takes
                                   its P2P path: */
    uint64_t p2p_rate;          /* ...that serialiser's rate, bytes/s (0 =
                                   unlimited) */
    sim_time_t p2p_latency_ps;  /* ...and its p2p-latency */
    bool xs;                    /* to is a root complex and the TLP takes
                                   its cross-socket P2P path: */
    uint64_t xs_rate;           /* ...that serialiser's rate (0 =
                                   unlimited) */
};

struct route {
    struct route_hop hop[ROUTE_MAX_HOPS];
    unsigned n_hops;
    struct sim_component *dest; /* the endpoint, or NULL if refused */
    struct sim_port *dest_port; /* the port of dest the TLP arrives on */
    const struct sim_component *refused_at; /* where it was refused */
    const char *why;            /* ...and why, or NULL */
};

/*
 * route_trace - the route of a TLP like t sent on port out. With
 * translate, a root complex's IOMMU checks t as it would check that TLP
 * (rc_route): the IOTLB is updated and a refusal recorded as a fault.
 * Returns 0, or -SIM_EIO when a component would refuse the TLP (r->dest
 * is NULL; refused_at and why say where and why, and the hops up to
 * there are filled), -SIM_ENOTCONN when a port on the way is not
 * connected, -SIM_ERANGE past ROUTE_MAX_HOPS.
 */
int route_trace(struct sim_port *out, const struct tlp *t, bool translate,
                struct route *r);

/*
 * route_tlp_init - a TLP on the stack for route_trace and the links' cost
 * queries: zeroed, of kind k, without a PASID prefix, untranslated.
 */
void route_tlp_init(struct tlp *t, int kind);

#endif /* P2PSIM_MACHINE_ROUTE_H */
