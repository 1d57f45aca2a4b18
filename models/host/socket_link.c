/*
 * models/host/socket_link.c - an inter-socket link (QPI, UPI, xGMI,
 * Infinity Fabric) between two root complexes: sim/wire.c plus a bounded
 * transmit queue per direction.
 *
 *   rc0.xs0 ==[ queue | serialiser ]==> latency ==> rc1.xs0
 *           <==[ serialiser | queue ]== latency <==
 *
 * Each direction serialises TLPs one after another at `bandwidth`
 * (header + payload bytes; the link's own packet format is folded into
 * the rate, socket_link.h) and delivers each `latency` after its last
 * byte. A TLP is "waiting" from the moment it is accepted until its last
 * byte has been serialised. transmit() refuses (-SIM_EAGAIN) a TLP that
 * would take the waiting bytes above `queue`; an empty queue accepts any
 * TLP, so one larger than the queue still passes. After a refusal a timer
 * fires when the waiting bytes have fallen to half the queue and calls
 * sim_link_ready(), so the root complex sends a batch of TLPs per wake-up
 * rather than one. The queue has not run dry by then, so the TLPs it
 * accepts start exactly when they would have from an earlier wake-up (the
 * root complex is the only sender); what moves is when the root complex
 * hands them over, so they hold their ingress credits (and a short TLP
 * its place in the root complex's egress queue) up to half a queue's
 * serialisation time longer.
 *
 * Model: no receive-side flow control (the far root complex always
 * accepts: it queues internally), no link-level retry, no coherence
 * traffic competing for the link; the same rate in both directions.
 *
 * Costs: O(1) amortised per TLP (a ring of finish times per direction);
 * one wake-up event per half queue of TLPs under back-pressure.
 */
#include <config.h>

#include "models/host/socket_link.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim/error.h"
#include "sim/event.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/tlp.h"

#define SLINK_DEFAULT_LATENCY SIM_NS(100)
#define SLINK_DEFAULT_QUEUE (UINT64_C(16) << 10)

/* A waiting TLP: when its last byte leaves the serialiser, and its size. */
struct slink_slot {
    sim_time_t done_ps;
    uint32_t bytes;
};

struct slink_dir {
    struct sim_link *link;
    unsigned from;              /* the side that sends in this direction */
    sim_time_t busy_until;      /* serialiser free at, ps */
    struct slink_slot *ring;    /* waiting TLPs in order, done_ps rising */
    uint32_t head, n, cap;      /* ring geometry (cap a power of two) */
    uint64_t waiting_bytes;     /* sum of ring[].bytes */
    struct sim_event room;      /* fires when the oldest waiting TLP is done */
    /* statistics */
    uint64_t tlps, bytes, refusals, max_waiting_bytes;
};

struct slink {
    sim_time_t latency_ps;
    uint64_t rate_bytes_per_s;
    uint64_t queue_bytes;
    struct slink_dir dir[2];    /* index: the sending side */
};

static void slink_arrive(struct sim *sim, struct sim_event *ev)
{
    struct tlp *t = SIM_CONTAINER_OF(ev, struct tlp, ev);
    sim_link_deliver(t->link, t->link_side, t);
}

/* Forget the waiting TLPs whose last byte has left by now. */
static void slink_retire(struct slink_dir *d, sim_time_t now)
{
    while (d->n > 0 && d->ring[d->head].done_ps <= now) {
        d->waiting_bytes -= d->ring[d->head].bytes;
        d->head = (d->head + 1) & (d->cap - 1);
        d->n--;
    }
}

/*
 * When the waiting bytes will have fallen to half the queue (or the queue
 * will be empty, if the oldest TLP alone holds more): the refused sender's
 * wake-up. O(TLPs retired by then), once per refusal.
 */
static sim_time_t slink_half_empty_at(const struct slink_dir *d,
                                      uint64_t queue_bytes)
{
    uint64_t left = d->waiting_bytes;
    uint32_t i = d->head;
    for (;;) {
        const struct slink_slot *e = &d->ring[i];
        left -= e->bytes;
        if (left <= queue_bytes / 2 || left == 0) {
            return e->done_ps;
        }
        i = (i + 1) & (d->cap - 1);
    }
}

static void slink_room(struct sim *sim, struct sim_event *ev)
{
    struct slink_dir *d = SIM_CONTAINER_OF(ev, struct slink_dir, room);
    slink_retire(d, sim_now(sim));
    sim_link_ready(d->link, d->from);
}

static int slink_push(struct slink_dir *d, sim_time_t done_ps, uint32_t bytes)
{
    if (d->n == d->cap) {
        uint32_t cap = d->cap ? d->cap * 2 : 64;
        struct slink_slot *r = malloc(cap * sizeof(*r));
        if (!r) {
            return -SIM_ENOMEM;
        }
        for (uint32_t i = 0; i < d->n; i++) {
            r[i] = d->ring[(d->head + i) & (d->cap - 1)];
        }
        free(d->ring);
        d->ring = r;
        d->cap = cap;
        d->head = 0;
    }
    d->ring[(d->head + d->n) & (d->cap - 1)] =
        (struct slink_slot){ .done_ps = done_ps, .bytes = bytes };
    d->n++;
    d->waiting_bytes += bytes;
    return 0;
}

/*
 * A TLP handed over before it may start (its not_before, the root
 * complex's latency; sim/tlp.h) is judged against the queue as it will be
 * at max(now, not_before), and starts no earlier than that.
 * Model: the queue forgets the TLPs done by that time at once, so a later
 * TLP with an earlier not_before (possible only across root-complex
 * ingress ports with different decision costs) sees a queue shorter by
 * those TLPs than it really is: admission is lenient by that much.
 */
static int slink_transmit(struct sim_link *l, unsigned from, struct tlp *t)
{
    struct slink *s = sim_link_state(l);
    struct slink_dir *d = &s->dir[from];
    sim_time_t now = sim_now(l->sim);
    /* The queue as the TLP will find it when it reaches the link. */
    sim_time_t at = t->not_before > now ? t->not_before : now;
    uint32_t bytes = socket_link_tlp_bytes(t);
    slink_retire(d, at);
    if (d->n > 0 && d->waiting_bytes + bytes > s->queue_bytes) {
        d->refusals++;
        if (!sim_event_is_pending(&d->room)) {
            sim_event_schedule_at(l->sim, &d->room,
                                  slink_half_empty_at(d, s->queue_bytes));
        }
        return -SIM_EAGAIN;
    }
    sim_time_t start = d->busy_until > at ? d->busy_until : at;
    sim_time_t done = sim_time_add(start,
                                   sim_time_for_bytes(bytes,
                                                      s->rate_bytes_per_s));
    if (slink_push(d, done, bytes) < 0) {
        /* out of memory: the sender keeps t, the simulation fails */
        sim_fail_nomem(l->sim, l->name, "a place in its queue");
        return -SIM_EAGAIN;
    }
    d->busy_until = done;
    t->not_before = 0;
    d->tlps++;
    d->bytes += bytes;
    if (d->waiting_bytes > d->max_waiting_bytes) {
        d->max_waiting_bytes = d->waiting_bytes;
    }
    sim_event_init(&t->ev, slink_arrive);
    sim_event_schedule_at(l->sim, &t->ev, sim_time_add(done, s->latency_ps));
    return 0;
}

static int slink_configure(struct sim_link *l, const struct sim_props *props,
                           struct sim_error *err)
{
    struct slink *s = sim_link_state(l);
    s->latency_ps = SLINK_DEFAULT_LATENCY;
    s->queue_bytes = SLINK_DEFAULT_QUEUE;
    for (unsigned i = 0; i < 2; i++) {
        s->dir[i].link = l;
        s->dir[i].from = i;
        sim_event_init(&s->dir[i].room, slink_room);
    }
    if (!props) {
        return sim_error_set(err, SIM_EINVAL,
                             "socket link '%s' needs 'bandwidth'", l->name);
    }
    int rc = sim_props_get_rate(props, "bandwidth", &s->rate_bytes_per_s,
                                SIM_PROP_REQUIRED, err);
    if (rc == 0 && s->rate_bytes_per_s == 0) {
        rc = sim_props_error(props, "bandwidth", SIM_ERANGE, err,
                             "socket link '%s': bandwidth must be above 0",
                             l->name);
    }
    if (rc == 0) {
        rc = sim_props_get_time(props, "latency", &s->latency_ps, 0, err);
    }
    if (rc == 0) {
        rc = sim_props_get_size(props, "queue", &s->queue_bytes, 0, err);
    }
    if (rc == 0 && s->queue_bytes == 0) {
        rc = sim_props_error(props, "queue", SIM_ERANGE, err,
                             "socket link '%s': queue must hold at least one "
                             "TLP (try 16KiB)", l->name);
    }
    return rc;
}

static void slink_report(const struct sim_link *l, struct sim_stats *out)
{
    const struct slink *s = sim_link_state(l);
    static const char *const what[] = { "tlps", "bytes", "refusals",
                                        "max_queue_bytes" };
    for (unsigned i = 0; i < 2; i++) {
        const struct slink_dir *d = &s->dir[i];
        const uint64_t v[] = { d->tlps, d->bytes, d->refusals,
                               d->max_waiting_bytes };
        for (unsigned k = 0; k < 4; k++) {
            char name[256];
            snprintf(name, sizeof(name), "%s.dir%u.%s", l->name, i, what[k]);
            sim_stats_add(out, name, v[k]);
        }
    }
}

static void slink_destroy(struct sim_link *l)
{
    struct slink *s = sim_link_state(l);
    for (unsigned i = 0; i < 2; i++) {
        if (sim_event_is_pending(&s->dir[i].room)) {
            sim_event_cancel(l->sim, &s->dir[i].room);
        }
        free(s->dir[i].ring);
        s->dir[i].ring = NULL;
    }
}

const struct sim_link_ops socket_link_ops = {
    .kind = "socket-link",
    .state_size = sizeof(struct slink),
    .configure = slink_configure,
    .transmit = slink_transmit,
    .report = slink_report,
    .destroy = slink_destroy,
};

void socket_link_get_counters(const struct sim_link *l,
                              struct socket_link_counters *out)
{
    const struct slink *s = sim_link_state(l);
    for (unsigned i = 0; i < 2; i++) {
        out->tlps[i] = s->dir[i].tlps;
        out->bytes[i] = s->dir[i].bytes;
        out->refusals[i] = s->dir[i].refusals;
    }
}

uint64_t socket_link_rate(const struct sim_link *l)
{
    return ((const struct slink *)sim_link_state(l))->rate_bytes_per_s;
}

sim_time_t socket_link_latency(const struct sim_link *l)
{
    return ((const struct slink *)sim_link_state(l))->latency_ps;
}

uint32_t socket_link_tlp_bytes(const struct tlp *t)
{
    return tlp_header_bytes(t) + tlp_payload_bytes(t);
}
