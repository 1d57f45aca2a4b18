/*
 * sim/wire.c - the ideal wire: a link with a fixed latency and an optional
 * rate, FIFO in each direction, that never refuses a TLP.
 *
 * It charges header plus payload bytes at its rate (no encoding, no DLLPs,
 * no credits): it is what tests, benchmarks and foreign (SystemC) models
 * use when the PCIe link model's detail is not wanted. A TLP starts at
 * max(now, the end of the previous one, its not_before) (sim/tlp.h).
 */
#include <config.h>

#include "sim/port.h"

#include "sim/error.h"
#include "sim/event.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/tlp.h"

struct wire {
    sim_time_t latency_ps;          /* propagation, ps */
    uint64_t rate_bytes_per_s;      /* 0 = infinitely fast */
    sim_time_t busy_until[2];       /* per direction (index: from side) */
};

static void wire_arrive(struct sim *sim, struct sim_event *ev)
{
    struct tlp *t = SIM_CONTAINER_OF(ev, struct tlp, ev);
    sim_link_deliver(t->link, t->link_side, t);
}

static int wire_transmit(struct sim_link *l, unsigned from, struct tlp *t)
{
    struct wire *w = sim_link_state(l);
    sim_time_t now = sim_now(l->sim);
    sim_time_t start = w->busy_until[from] > now ? w->busy_until[from] : now;
    if (t->not_before > start) {
        start = t->not_before;
    }
    t->not_before = 0;
    uint64_t bytes = tlp_header_bytes(t) + tlp_payload_bytes(t);
    w->busy_until[from] = sim_time_add(start,
                                       sim_time_for_bytes(bytes,
                                                          w->rate_bytes_per_s));
    sim_event_init(&t->ev, wire_arrive);
    sim_event_schedule_at(l->sim, &t->ev,
                          sim_time_add(w->busy_until[from], w->latency_ps));
    return 0;
}

static int wire_configure(struct sim_link *l, const struct sim_props *props,
                          struct sim_error *err)
{
    struct wire *w = sim_link_state(l);
    int rc = sim_props_get_time(props, "latency", &w->latency_ps, 0, err);
    if (rc == 0) {
        rc = sim_props_get_rate(props, "bandwidth", &w->rate_bytes_per_s, 0,
                                err);
    }
    return rc;
}

void sim_wire_set(struct sim_link *l, sim_time_t latency_ps,
                  uint64_t rate_bytes_per_s)
{
    SIM_ASSERT(l->ops == &sim_wire_ops, "sim_wire_set on a '%s' link",
               l->ops->kind);
    struct wire *w = sim_link_state(l);
    w->latency_ps = latency_ps;
    w->rate_bytes_per_s = rate_bytes_per_s;
}

void sim_wire_get(const struct sim_link *l, sim_time_t *latency_ps,
                  uint64_t *rate_bytes_per_s)
{
    SIM_ASSERT(l->ops == &sim_wire_ops, "sim_wire_get on a '%s' link",
               l->ops->kind);
    const struct wire *w = sim_link_state(l);
    *latency_ps = w->latency_ps;
    *rate_bytes_per_s = w->rate_bytes_per_s;
}

const struct sim_link_ops sim_wire_ops = {
    .kind = "wire",
    .state_size = sizeof(struct wire),
    .configure = wire_configure,
    .transmit = wire_transmit,
};
