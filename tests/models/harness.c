/*
 * tests/models/harness.c - the test endpoint (see harness.h).
 */
#include <config.h>

#include "tests/models/harness.h"

#include <stdlib.h>
#include <string.h>

#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/sim.h"

struct th_ep *th_ep(struct sim_component *c)
{
    return sim_component_state(c);
}

static void pump(struct sim_component *c)
{
    struct th_ep *ep = th_ep(c);
    while (ep->q_head != ep->q_tail) {
        struct tlp *t = ep->queue[ep->q_head % TH_MAX_QUEUE];
        int rc = sim_port_send(ep->port, t);
        if (rc == -SIM_EAGAIN) {
            ep->refusals++;
            return;
        }
        SIM_ASSERT(rc == 0, "test endpoint %s: send failed (%d)", c->name, rc);
        ep->q_head++;
    }
}

void th_ep_send(struct sim_component *c, struct tlp *t)
{
    struct th_ep *ep = th_ep(c);
    SIM_ASSERT(ep->q_tail - ep->q_head < TH_MAX_QUEUE, "test queue full");
    ep->queue[ep->q_tail++ % TH_MAX_QUEUE] = t;
    if (ep->q_tail - ep->q_head == 1) {
        pump(c);
    }
}

static void ep_ready(struct sim_component *c, struct sim_port *out)
{
    pump(c);
}

/* A delayed completion: the CplD waits in its own event. */
static void cpl_due(struct sim *sim, struct sim_event *ev)
{
    struct tlp *cpl = SIM_CONTAINER_OF(ev, struct tlp, ev);
    struct sim_component *c = cpl->cookie;
    cpl->cookie = NULL;
    th_ep_send(c, cpl);
}

static void ep_receive(struct sim_component *c, struct sim_port *in,
                       struct tlp *t)
{
    struct th_ep *ep = th_ep(c);
    sim_time_t now = sim_now(c->sim);
    if (ep->n_received == 0) {
        ep->first_at = now;
    }
    ep->last_at = now;
    ep->n_received++;
    ep->bytes_received += tlp_payload_bytes(t);
    if (ep->n_rec < TH_MAX_RECORDS) {
        struct th_record *r = &ep->rec[ep->n_rec++];
        r->kind = t->kind;
        r->addr = t->addr;
        r->len_bytes = t->len_bytes;
        r->requester_id = t->requester_id;
        r->tag = t->tag;
        r->cpl_status = t->cpl_status;
        r->hops = t->hops;
        r->id = t->id;
        r->t_created = t->t_created;
        r->at = now;
        r->first_byte = (t->data && tlp_payload_bytes(t)) ? t->data[0] : 0;
    }
    if (ep->completer && t->kind == TLP_MRD) {
        struct tlp *cpl = tlp_new_completion(c->sim, t, TLP_CPL_SC,
                                             t->len_bytes);
        cpl->completer_id = ep->id;
        cpl->cookie = c;
        sim_event_init(&cpl->ev, cpl_due);
        sim_event_schedule(c->sim, &cpl->ev, ep->cpl_latency);
    }
    tlp_free(t);
}

static int ep_configure(struct sim_component *c, const struct sim_props *p,
                        struct sim_error *err)
{
    struct th_ep *ep = th_ep(c);
    ep->port = sim_port_add(c, "p", SIM_PORT_UPSTREAM);
    return ep->port ? 0 : sim_error_set(err, SIM_ENOMEM, "no port");
}

const struct sim_component_ops th_ep_ops = {
    .kind = "test-ep",
    .state_size = sizeof(struct th_ep),
    .configure = ep_configure,
    .receive = ep_receive,
    .ready = ep_ready,
};

struct sim_component *th_ep_create(struct sim *sim, const char *name)
{
    struct sim_component *c = sim_component_create(sim, &th_ep_ops, name, NULL);
    if (c && sim_component_configure(c, NULL, NULL) < 0) {
        return NULL;
    }
    return c;
}

struct tlp *th_mwr(struct sim *sim, uint64_t addr, uint32_t len, bool data)
{
    struct tlp *t = tlp_alloc(sim, TLP_MWR);
    t->addr = addr;
    t->len_bytes = len;
    if (data) {
        tlp_data_alloc(t, len);
        memset(t->data, (int)(addr & 0xff), len);
    }
    return t;
}

struct tlp *th_mrd(struct sim *sim, uint64_t addr, uint32_t len, uint16_t tag)
{
    struct tlp *t = tlp_alloc(sim, TLP_MRD);
    t->addr = addr;
    t->len_bytes = len;
    t->tag = tag;
    return t;
}
