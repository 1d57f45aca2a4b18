/*
 * models/pcie/link_replay.c - link errors, Nak and replay of the PCIe
 * link (link.h), only with the ber property above 0; at 0 none of this
 * runs and nothing is drawn from the RNG.
 *
 * Bit errors hit the wire bits of a direction as a Bernoulli process of
 * rate ber, drawn from the simulation's seeded RNG as geometric gaps
 * between errors (sim_rng_geometric, plink_err_hit), so the same seed
 * gives the same run. Every TLP sent gets a 12-bit sequence number and
 * stays in the transmitter's replay buffer (a ring grown by doubling,
 * allocated at the first TLP) until it is delivered. At the far end
 * (PCIe r6.0 §3.6.3) a TLP hit by an error fails its LCRC: the receiver
 * discards it, sends a Nak, and discards every later TLP until the
 * replay reaches it (plink_err_arrive, plink_nak); the Nak, or the
 * REPLAY_TIMER if the Nak is hit too, makes the transmitter resend the
 * buffer (plink_replay); the 4th replay without progress retrains the
 * link first. A replay is a link.replay trace record and counts in
 * replays / replay_bytes.
 *
 * Model: resent TLPs are charged again in full, also those that had not
 * yet started when the Nak arrived (at most PLINK_TXQ_BYTES of backlog,
 * charged twice); flow-control credits are not touched (replay is below
 * flow control); Acks, UpdateFCs and other DLLPs are never hit (only
 * Naks are drawn), and the receiver's AckNak latency is 0.
 */
#include <config.h>

#include "models/pcie/link_int.h"

#include <stdlib.h>

#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/sim.h"
#include "sim/trace.h"

static void plink_err_arrive(struct sim *sim, struct sim_event *ev);

/*
 * Do `bytes` sent on d's wire now contain a bit error? err_gap is the
 * error-free bits left before the next error.
 */
static bool plink_err_hit(struct plink *pl, struct plink_dir *d,
                          uint32_t bytes)
{
    struct sim *sim = d->link->sim;
    uint64_t bits = (uint64_t)bytes * 8;
    if (!d->err_drawn) {
        d->err_gap = sim_rng_geometric(sim, pl->ber);
        d->err_drawn = true;
    }
    if (d->err_gap >= bits) {
        d->err_gap -= bits;
        return false;
    }
    /* errors are memoryless: draw the next gap from this TLP's end */
    d->err_gap = sim_rng_geometric(sim, pl->ber);
    return true;
}

static struct plink_rb_entry *plink_rb_at(struct plink_dir *d, unsigned i)
{
    return &d->rb[(d->rb_head + i) % d->rb_cap];
}

/* Append t to d's replay buffer, growing it (in order) when full. */
static int plink_rb_push(struct plink_dir *d, struct tlp *t,
                         sim_time_t end, bool bad)
{
    if (d->rb_n == d->rb_cap) {
        unsigned cap = d->rb_cap ? 2 * d->rb_cap : 64;
        struct plink_rb_entry *rb = calloc(cap, sizeof(*rb));
        if (!rb) {
            return sim_fail_nomem(d->link->sim, d->link->name,
                                  "its replay buffer");
        }
        for (unsigned i = 0; i < d->rb_n; i++) {
            rb[i] = *plink_rb_at(d, i);
        }
        free(d->rb);
        d->rb = rb;
        d->rb_cap = cap;
        d->rb_head = 0;
    }
    struct plink_rb_entry *e = plink_rb_at(d, d->rb_n++);
    e->tlp = t;
    e->end_ps = end;
    e->seq = d->next_seq;
    e->bad = bad;
    d->next_seq = (uint16_t)((d->next_seq + 1) & PLINK_SEQ_MASK);
    return 0;
}

/* Put t, already charged to end at `end`, on the wire of d. */
void plink_err_send(struct plink *pl, struct plink_dir *d, struct tlp *t,
                    uint32_t wire, sim_time_t end)
{
    if (plink_rb_push(d, t, end, plink_err_hit(pl, d, wire)) < 0) {
        tlp_free(t);    /* the simulation has failed */
        return;
    }
    sim_event_init(&t->ev, plink_err_arrive);
    sim_event_schedule_at(d->link->sim, &t->ev,
                          sim_time_add(end, pl->latency_ps));
}

static sim_time_t plink_replay_timer(const struct plink *pl)
{
    if (pl->replay_timer_ps != 0) {
        return pl->replay_timer_ps;
    }
    uint64_t bytes = (uint64_t)pl->ack_every * PLINK_TIMER_TLP_BYTES;
    return sim_time_add(3 * plink_bytes_ps(pl, bytes), 2 * pl->latency_ps);
}

/*
 * The bad TLP e reached the receiver at `to`: it sends a Nak. The replay
 * starts when the Nak reaches the transmitter or, if the Nak is hit too,
 * when the transmitter's REPLAY_TIMER expires.
 */
static void plink_nak(struct plink *pl, unsigned to,
                      const struct plink_rb_entry *e)
{
    struct plink_dir *d = &pl->dir[!to];
    sim_time_t now = sim_now(d->link->sim);
    sim_time_t nak_end = plink_dllp_charge(pl, to, 1, now);
    sim_time_t at = sim_time_add(nak_end, pl->latency_ps);
    if (plink_err_hit(pl, &pl->dir[to], PCIE_DLLP_BYTES)) {
        sim_time_t timer = sim_time_add(e->end_ps, plink_replay_timer(pl));
        at = timer > at ? timer : at;
    }
    SIM_ASSERT(!sim_event_is_pending(&d->replay_ev),
               "link '%s': a Nak while a replay is pending", d->link->name);
    sim_event_schedule_at(d->link->sim, &d->replay_ev, at);
}

/*
 * Arrival with errors on: TLPs arrive in the order they were sent, so t
 * is the oldest of d's replay buffer still on the wire.
 */
static void plink_err_arrive(struct sim *sim, struct sim_event *ev)
{
    struct tlp *t = SIM_CONTAINER_OF(ev, struct tlp, ev);
    struct sim_link *l = t->link;
    struct plink *pl = sim_link_state(l);
    unsigned to = t->link_side;
    struct plink_dir *d = &pl->dir[!to];
    struct plink_rb_entry *e = plink_rb_at(d, d->rb_nak);
    SIM_ASSERT(d->rb_nak < d->rb_n && e->tlp == t,
               "link '%s': TLPs arrive out of order", l->name);
    if (d->rb_nak > 0 || e->bad) {
        if (d->rb_nak++ == 0) {
            plink_nak(pl, to, e);       /* LCRC failed: Nak, then discard */
        }
        return;                         /* not the expected sequence */
    }
    d->rb_head = (d->rb_head + 1) % d->rb_cap;
    d->rb_n--;
    d->replay_num = 0;
    plink_deliver(pl, l, to, t);
}

static void plink_trace_replay(struct plink_dir *d,
                               const struct plink_rb_entry *e, unsigned n)
{
    struct sim_port *p = d->link->end[d->side];
    struct sim_trace_record r = {
        .point = SIM_TP_REPLAY,
        .component = p ? p->owner->name : NULL,
        .port = p ? p->name : NULL,
        .tlp = e->tlp,
        .a = e->seq,
        .b = n,
        .msg = d->link->name,
    };
    sim_trace_emit(d->link->sim, &r);
}

/*
 * The Nak (or REPLAY_TIMER) reaches the transmitter: resend the whole
 * buffer in order - the TLPs the receiver discarded and those still on
 * the wire, whose arrivals are cancelled - behind what the transmitter
 * holds, after a retrain if REPLAY_NUM rolls over.
 */
void plink_replay(struct sim *sim, struct sim_event *ev)
{
    struct plink_dir *d = SIM_CONTAINER_OF(ev, struct plink_dir, replay_ev);
    struct plink *pl = sim_link_state(d->link);
    sim_time_t at = sim_now(sim);
    unsigned n = d->rb_n;
    if (++d->replay_num == PLINK_REPLAY_NUM_ROLLOVER) {
        d->replay_num = 0;
        pl->cnt.retrains[d->side]++;
        at = sim_time_add(sim_time_add(at, plink_backlog_ps(d, at)),
                          PLINK_RETRAIN_PS);
    }
    pl->cnt.replays[d->side]++;
    if (sim_trace_wanted(sim, SIM_TP_REPLAY)) {
        plink_trace_replay(d, plink_rb_at(d, 0), n);
    }
    for (unsigned i = d->rb_nak; i < n; i++) {
        sim_event_cancel(sim, &plink_rb_at(d, i)->tlp->ev);
    }
    /* re-pushed in place, each with its own sequence number again */
    unsigned head = d->rb_head;
    d->next_seq = plink_rb_at(d, 0)->seq;
    d->rb_n = 0;
    d->rb_nak = 0;
    for (unsigned i = 0; i < n; i++) {
        struct tlp *t = d->rb[(head + i) % d->rb_cap].tlp;
        uint32_t wire = plink_wire_bytes(pl, t);
        sim_time_t end = plink_tx_charge(pl, d, wire, at);
        pl->cnt.replay_bytes[d->side] += wire;
        plink_err_send(pl, d, t, wire, end);
    }
}
