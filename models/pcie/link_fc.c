/*
 * models/pcie/link_fc.c - flow control of the PCIe link (link.h): the
 * sender's stalls for credits and its wake-ups, the receiver's released
 * buffers and the UpdateFC DLLPs that carry them back (PCIe r6.0 §2.6.1),
 * and the credit figures the flow fidelity asks for. The gate each TLP
 * passes at transmit (plink_fc_has_room, plink_fc_apply) is inline in
 * link_int.h.
 *
 * A receiver's released buffer raises its CREDITS_ALLOCATED and sends an
 * UpdateFC on the opposite transmitter (plink_fc_send); from its arrival
 * the sender may use the credits. UpdateFCs are applied lazily, when the
 * sender next asks, and cost an event only when they must wake a sender
 * stalled for credits (then sim_link_ready() lets it retry).
 *
 * Model: flow-control initialisation (InitFC1/InitFC2) is instantaneous;
 * the credit counters never wrap (no 8/12-bit modular arithmetic); at
 * most PLINK_FC_INFLIGHT UpdateFCs fly per direction, later releases
 * ride on the newest.
 */
#include <config.h>

#include "models/pcie/link_int.h"

#include <string.h>

#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/sim.h"
#include "sim/trace.h"

/* ---- flow control: the sender's side ------------------------------------ */

static void plink_trace_stall(struct sim_link *l, unsigned from,
                              const struct tlp *t, enum tlp_fc_class c,
                              sim_time_t stalled_ps)
{
    struct sim_port *p = l->end[from];
    struct sim_trace_record r = {
        .point = SIM_TP_CREDIT_STALL,
        .component = p ? p->owner->name : NULL,
        .port = p ? p->name : NULL,
        .tlp = t,
        .a = (uint64_t)c,
        .b = stalled_ps,
        .msg = l->name,
    };
    sim_trace_emit(l->sim, &r);
}


static bool plink_fc_is_stalled(const struct plink_dir *d)
{
    return d->stalled != 0;
}

/* A sender stalled for credits: wake it when the next UpdateFC arrives. */
static void plink_fc_wake_on_arrival(struct sim_link *l, struct plink_dir *d)
{
    if (d->fc_n > 0 && !sim_event_is_pending(&d->fc_ev)) {
        sim_event_schedule_at(l->sim, &d->fc_ev, d->fc_next_ps);
    }
}

/*
 * Refuse t for lack of credits. The trace record's b is how long the
 * sender has been refused credits of this class so far (0 at the first
 * refusal of a stall); a stall ends when a TLP of the class is accepted.
 */
int plink_fc_refuse(struct sim_link *l, unsigned from, const struct tlp *t,
                    enum tlp_fc_class c)
{
    struct plink *pl = sim_link_state(l);
    struct plink_dir *d = &pl->dir[from];
    sim_time_t now = sim_now(l->sim);
    pl->cnt.credit_stalls[from]++;
    if (!(d->stalled & (1u << c))) {
        d->stalled |= (uint8_t)(1u << c);
        d->stall_since[c] = now;
    }
    plink_fc_wake_on_arrival(l, d);
    if (sim_trace_wanted(l->sim, SIM_TP_CREDIT_STALL)) {
        plink_trace_stall(l, from, t, c, now - d->stall_since[c]);
    }
    return -SIM_EAGAIN;
}

/* ---- flow control: the receiver's side (UpdateFC) ---------------------- */

static struct plink_fc_update *plink_fc_at(struct plink_dir *d, unsigned i)
{
    return &d->fc[(d->fc_head + i) % PLINK_FC_INFLIGHT];
}

/* Load u with the receiver's counters; they are what it advertises now. */
static void plink_fc_snapshot(struct plink_dir *d, struct plink_fc_update *u)
{
    memcpy(u->hdr, d->alloc_hdr, sizeof(u->hdr));
    memcpy(u->data, d->alloc_data, sizeof(u->data));
    d->fc_dirty = 0;
}

/* FC types whose counters moved since the last UpdateFC: one DLLP each. */
_Static_assert(TLP_FC_COUNT == 3, "plink_fc_changed counts three classes");
static unsigned plink_fc_changed(const struct plink_dir *d)
{
    unsigned m = d->fc_dirty;   /* TLP_FC_COUNT bits; no popcnt in -O2 */
    return (m & 1u) + ((m >> 1) & 1u) + ((m >> 2) & 1u);
}

/*
 * Send the receiver's new counters for TLPs from side `from` back to it,
 * on the transmitter of !from. Coalescing: an UpdateFC carries cumulative
 * counters (CREDITS_ALLOCATED, PCIe r6.0 §2.6.1.2), so one that is still
 * waiting for the wire simply carries the newer values and no new DLLP is
 * sent.
 * Model: one DLLP per FC type that moved when it is first sent; types that
 * join it while it waits ride free (at most two DLLPs undercharged).
 */
static void plink_fc_send(struct sim_link *l, unsigned from)
{
    struct plink *pl = sim_link_state(l);
    struct plink_dir *d = &pl->dir[from];
    sim_time_t now = sim_now(l->sim);
    plink_fc_apply(d, now);
    if (d->fc_n > 0) {
        struct plink_fc_update *tail = plink_fc_at(d, d->fc_n - 1);
        if (tail->start_ps > now || d->fc_n == PLINK_FC_INFLIGHT) {
            plink_fc_snapshot(d, tail);
            return;
        }
    }
    unsigned n = plink_fc_changed(d);
    struct plink_fc_update *u = plink_fc_at(d, d->fc_n++);
    u->start_ps = sim_time_add(now, plink_backlog_ps(&pl->dir[!from], now));
    sim_time_t end = plink_dllp_charge(pl, !from, n, now);
    u->arrive_ps = sim_time_add(end, pl->latency_ps);
    if (d->fc_n == 1) {
        d->fc_next_ps = u->arrive_ps;
    }
    plink_fc_snapshot(d, u);
    if (plink_fc_is_stalled(d)) {
        plink_fc_wake_on_arrival(l, d);
    }
}

/*
 * An UpdateFC reaches a sender stalled for credits: raise its
 * CREDIT_LIMITs, wake it, and keep waking it at every later arrival while
 * it stays stalled.
 */
void plink_fc_arrive(struct sim *sim, struct sim_event *ev)
{
    struct plink_dir *d = SIM_CONTAINER_OF(ev, struct plink_dir, fc_ev);
    plink_fc_apply(d, sim_now(sim));
    if (plink_fc_is_stalled(d)) {
        plink_fc_wake_on_arrival(d->link, d);
    }
    sim_link_ready(d->link, d->side);
}

/*
 * The receiver at `side` freed t's buffer. It gives back the data credits
 * noted at transmit and the header credit of t's class as it is now: a
 * model must not change a TLP's kind or length while it holds a receive
 * buffer (sim_tlp_release_hold first); the held counters catch a changed
 * class.
 */
void plink_release(struct sim_link *l, unsigned side, struct tlp *t)
{
    struct plink *pl = sim_link_state(l);
    unsigned from = !side;
    struct plink_dir *d = &pl->dir[from];
    enum tlp_fc_class c = tlp_kind_fc_class(t->kind);
    uint32_t data = plink_tlp_credits(t);
    SIM_ASSERT(d->held_hdr[c] > 0 && d->held_data[c] >= data,
               "link '%s': side %u releases a %s it does not hold (was the "
               "TLP changed while it held its receive buffer?)",
               l->name, side, tlp_kind_name(t->kind));
    d->held_hdr[c]--;
    d->held_data[c] -= data;
    if (!plink_hdr_finite(pl, from, c) && !plink_data_finite(pl, from, c)) {
        return; /* infinite credits: no UpdateFC for this type */
    }
    d->alloc_hdr[c]++;
    d->alloc_data[c] += data;
    d->fc_dirty |= (uint8_t)(1u << c);
    plink_fc_send(l, from);
}

/* ---- credit figures, for the flow fidelity (link.h) --------------------- */

void pcie_link_credits(const struct sim_link *l, unsigned from,
                       enum tlp_fc_class c, uint64_t *hdr, uint64_t *data)
{
    const struct plink *pl = plink_from(l);
    *hdr = pl->caps[!from].cred_hdr[c];
    *data = 16 * (uint64_t)pl->caps[!from].cred_data[c];
}

sim_time_t pcie_link_credit_rtt(const struct sim_link *l, const struct tlp *t,
                                sim_time_t hold_ps)
{
    const struct plink *pl = plink_from(l);
    return sim_time_add(plink_bytes_ps(pl, plink_wire_bytes(pl, t)) +
                            plink_bytes_ps(pl, PCIE_DLLP_BYTES),
                        sim_time_add(2 * pl->latency_ps, hold_ps));
}

double pcie_link_dllp_bytes(const struct sim_link *l, unsigned from,
                            const struct tlp *t, double interval_bytes)
{
    const struct plink *pl = plink_from(l);
    enum tlp_fc_class c = tlp_kind_fc_class(t->kind);
    double bytes = (double)PCIE_DLLP_BYTES / pl->ack_every;
    if (plink_hdr_finite(pl, from, c) || plink_data_finite(pl, from, c)) {
        double wait = PLINK_TXQ_BYTES / 2.0;
        double per = interval_bytes > 0 ? interval_bytes : 1.0;
        bytes += PCIE_DLLP_BYTES * per / (per + wait);
    }
    return bytes;
}
