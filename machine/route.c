/*
 * machine/route.c - the hops one TLP takes (route.h), asked of the
 * switches and root complexes that would forward it.
 *
 * The walk: from the sending port, the link leads to a port of the next
 * component. A switch (psw_route), an NVSwitch (nvsw_route) or a root
 * complex (rc_route) names the port the TLP leaves on, with the same
 * decision its receive() takes; any other component is the endpoint, and
 * the walk ends there (the role in its row, machine/kinds.h). Nothing
 * here knows a routing rule.
 *
 * Costs: O(hops x ports of each component), once per transfer.
 */
#include <config.h>

#include "machine/route.h"

#include <string.h>

#include "machine/kinds.h"
#include "models/nvlink/nvlink.h"
#include "models/pcie/rc.h"
#include "models/pcie/switch.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/tlp.h"

void route_tlp_init(struct tlp *t, int kind)
{
    memset(t, 0, sizeof(*t));
    t->kind = (enum tlp_kind)kind;
    t->pasid = TLP_PASID_NONE;
    t->at = TLP_AT_UNTRANSLATED;
}

/* The next hop at component c, entered on port in: its egress port. */
static int route_step(struct sim_component *c, const struct mkind *mk,
                      struct sim_port *in, const struct tlp *t,
                      bool translate, struct route_hop *h, const char **why)
{
    if (mk->role == MKIND_NVSWITCH) {
        int e = nvsw_route(c, in->index, t);
        h->fwd_latency_ps = mk->fwd_latency(c);
        *why = e < 0 ? "refused by the NVSwitch (no target programmed: is "
                       "the fabric manager running?)" : NULL;
        return e;
    }
    if (mk->role == MKIND_PCIE_SWITCH) {
        int e = psw_route(c, in->index, t, NULL);
        h->fwd_latency_ps = mk->fwd_latency(c);
        *why = e < 0 ? "refused by the switch (unroutable or ACS)" : NULL;
        return e;
    }
    struct rc_hop rh;
    int rc = rc_route(c, in->index, t, translate, &rh);
    h->fwd_latency_ps = rh.latency_ps; /* a refusal is answered after it */
    if (rc < 0) {
        *why = rh.why;
        return -1;
    }
    h->p2p = rh.p2p;
    h->p2p_rate = rh.p2p_rate;
    h->p2p_latency_ps = rh.p2p_latency_ps;
    h->xs = rh.xs;
    h->xs_rate = rh.xs_rate;
    return rh.egress;
}

int route_trace(struct sim_port *out, const struct tlp *t, bool translate,
                struct route *r)
{
    memset(r, 0, sizeof(*r));
    struct sim_port *port = out;
    while (r->n_hops < ROUTE_MAX_HOPS) {
        struct sim_port *in = port ? sim_port_peer(port) : NULL;
        if (!in) {
            r->refused_at = port ? port->owner : NULL;
            r->why = "port not connected";
            return -SIM_ENOTCONN;
        }
        struct route_hop *h = &r->hop[r->n_hops++];
        h->link = port->link;
        h->from = port->side;
        h->to = in->owner;
        h->in = in;
        const struct mkind *mk = mkind_of(in->owner);
        if (!mk || mk->role == MKIND_ENDPOINT) {
            r->dest = in->owner;
            r->dest_port = in;
            return 0;
        }
        const char *why = NULL;
        int e = route_step(in->owner, mk, in, t, translate, h, &why);
        if (e < 0 || (uint32_t)e >= in->owner->n_ports) {
            r->refused_at = in->owner;
            r->why = why;
            return -SIM_EIO;
        }
        port = in->owner->port[e];
    }
    r->why = "route longer than ROUTE_MAX_HOPS";
    return -SIM_ERANGE;
}
