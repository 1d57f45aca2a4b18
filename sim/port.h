/*
 * sim/port.h - ports and links.
 *
 * A component declares ports; a link joins two ports (one on each
 * component) and carries TLPs between them in both directions. What a link
 * charges (serialisation, encoding, credits, propagation) is the link
 * model's business: sim/ provides only an ideal wire (fixed latency and an
 * optional rate); models/pcie/link.c and models/nvlink/ provide the real
 * ones through struct sim_link_ops.
 *
 *   component A                      component B
 *   [port "down0"] --- sim_link --- [port "up"]
 *        side 0                          side 1
 *
 * Sending: sim_port_send(out, t) offers t to the link. The link accepts it
 * (0: it now owns t) or refuses it (-SIM_EAGAIN: no credit or no room; the
 * caller keeps t and gets one ops->ready(c, out) call when it may retry).
 *
 * Receive buffers: when a link delivers a TLP, the TLP holds the receive
 * buffer (flow-control credits) of that link end until it is sent on or
 * freed, at which point the core calls the link's release(). A switch that
 * queues a TLP therefore holds its ingress credits while it waits, which is
 * how back-pressure propagates, without any model doing bookkeeping.
 */
#ifndef P2PSIM_SIM_PORT_H
#define P2PSIM_SIM_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/time.h"

struct sim;
struct sim_component;
struct sim_error;
struct sim_link;
struct sim_props;
struct sim_stats;
struct tlp;

enum sim_port_role {
    SIM_PORT_UPSTREAM,          /* towards the root complex */
    SIM_PORT_DOWNSTREAM,        /* away from the root complex */
    SIM_PORT_PEER,              /* neither (NVLink, inter-socket) */
};

struct sim_port {
    char *name;                 /* unique within its component, owned */
    struct sim_component *owner;
    enum sim_port_role role;
    uint32_t index;             /* position in owner->port[] */
    struct sim_link *link;      /* NULL until connected */
    uint8_t side;               /* which end of the link this port is */
    bool wants_ready;           /* a send was refused; ready() is owed */
    void *user;                 /* the owning model's per-port data */
};

/* Returns NULL on a duplicate name or out of memory. */
struct sim_port *sim_port_add(struct sim_component *c, const char *name,
                              enum sim_port_role role);
struct sim_port *sim_port_find(const struct sim_component *c,
                               const char *name);
/* The port at the other end of the link, or NULL. */
struct sim_port *sim_port_peer(const struct sim_port *p);

static inline bool sim_port_is_connected(const struct sim_port *p)
{
    return p->link != NULL;
}

/*
 * sim_port_send - offer t to out's link. Returns 0 (the link owns t),
 * -SIM_EAGAIN (refused; caller keeps t; ready() follows), or -SIM_ENOTCONN.
 */
int sim_port_send(struct sim_port *out, struct tlp *t);

/* ---- links --------------------------------------------------------------- */

struct sim_link_ops {
    const char *kind;
    size_t state_size;
    int (*configure)(struct sim_link *l, const struct sim_props *props,
                     struct sim_error *err);
    /* Called once both ends are connected (optional): negotiate. */
    int (*connected)(struct sim_link *l, struct sim_error *err);
    /*
     * Take t from the port at side from (t->link/link_side already point at
     * this link and the far side). Return 0 to accept or -SIM_EAGAIN to
     * refuse; after a refusal call sim_link_ready(l, from) when room
     * appears. Deliver with sim_link_deliver() at arrival. An accepted TLP
     * starts on the wire no earlier than t->not_before (a forwarding
     * model's latency; see sim/tlp.h), which the link then clears.
     */
    int (*transmit)(struct sim_link *l, unsigned from, struct tlp *t);
    /* The receiver at side `side` has freed t's receive buffer (optional). */
    void (*release)(struct sim_link *l, unsigned side, struct tlp *t);
    void (*report)(const struct sim_link *l, struct sim_stats *out);
    void (*destroy)(struct sim_link *l);
};

struct sim_link {
    char *name;
    const struct sim_link_ops *ops;
    struct sim *sim;
    void *state;                /* ops->state_size bytes, owned by the core */
    struct sim_port *end[2];
    uint32_t id;
};

struct sim_link *sim_link_create(struct sim *sim,
                                 const struct sim_link_ops *ops,
                                 const char *name, struct sim_error *err);
int sim_link_configure(struct sim_link *l, const struct sim_props *props,
                       struct sim_error *err);
/* Join a (side 0) and b (side 1); each port may have one link. */
int sim_link_connect(struct sim_link *l, struct sim_port *a,
                     struct sim_port *b, struct sim_error *err);
uint32_t sim_link_count(const struct sim *sim);
struct sim_link *sim_link_at(const struct sim *sim, uint32_t i);
struct sim_link *sim_link_find(const struct sim *sim, const char *name);

/* A link's state (ops->state_size bytes, zeroed) starts on a boundary of
 * this many bytes, a cache line, so a model may align its hot parts. */
#define SIM_LINK_STATE_ALIGN 64

static inline void *sim_link_state(const struct sim_link *l)
{
    return l->state;
}

/* For link models: hand t to the port at side to (its owner's receive). */
void sim_link_deliver(struct sim_link *l, unsigned to, struct tlp *t);
/* For link models: the port at side from may send again. */
void sim_link_ready(struct sim_link *l, unsigned from);

/* Release the receive buffer t holds, if any (done by send and free). */
void sim_tlp_release_hold(struct tlp *t);

/* ---- the ideal wire ------------------------------------------------------
 * Fixed latency, optional rate, FIFO per direction, never refuses.
 * Properties: latency (time, default 0), bandwidth (rate, default infinite).
 */
extern const struct sim_link_ops sim_wire_ops;
void sim_wire_set(struct sim_link *l, sim_time_t latency_ps,
                  uint64_t rate_bytes_per_s);
void sim_wire_get(const struct sim_link *l, sim_time_t *latency_ps,
                  uint64_t *rate_bytes_per_s);

#endif /* P2PSIM_SIM_PORT_H */
