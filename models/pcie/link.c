/*
 * models/pcie/link.c - the PCIe link (kind "pcie-link"): serialisation at
 * the negotiated generation and width, propagation latency, credit-based
 * flow control with UpdateFC DLLPs, and Ack DLLPs. See link.h for the
 * properties and the contract.
 *
 *   side 0                                              side 1
 *   [tx 0] ==== TLPs from 0, DLLPs about TLPs from 1 ===> [rx 1]
 *   [rx 0] <=== TLPs from 1, DLLPs about TLPs from 0 ==== [tx 1]
 *
 * Life of a TLP sent from side s:
 *  1. transmit: refused (-SIM_EAGAIN) if s's transmitter already holds
 *     more than PLINK_TXQ_BYTES of backlog (or a TLP asking to start
 *     earlier was refused for it and s has not drained since), or if the
 *     receiver at !s lacks header or data credits of the TLP's class
 *     (PCIe r6.0 §2.6.1.1).
 *     Otherwise the credits are consumed and the TLP's wire bytes are
 *     appended to s's transmitter, back to back after what it holds and
 *     not before the TLP's not_before (sim/tlp.h). The backlog is the one
 *     the TLP will find at max(now, not_before); the credits are those the
 *     sender has now, when the sender decides.
 *  2. arrival (the TLP's own event) at the end of its serialisation plus
 *     the latency: every ack-every-th arrival charges an Ack DLLP to the
 *     transmitter of !s; then sim_link_deliver hands the TLP over, and it
 *     holds its receive buffer.
 *  3. release (the core calls it when the receiver forwards or frees the
 *     TLP): the receiver's CREDITS_ALLOCATED grow, and an UpdateFC DLLP
 *     goes out on the transmitter of !s; from its arrival at s, s may use
 *     the credits, and if s was refused for credits sim_link_ready() lets
 *     it retry then.
 *
 * Timing is exact: each transmitter counts the bytes of its current busy
 * period and computes every end time from the cumulative count, rounded up
 * to a picosecond once, so rounding never accumulates over a long stream.
 *
 * Cost: one event per TLP (its arrival), one per wake-up of a sender
 * refused for backlog (one per two 256-byte TLPs of a saturated stream),
 * and one per UpdateFC that reaches a sender stalled for credits: the
 * others are applied when the sender next asks (plink_fc_apply), which
 * gives the same credit limits at every decision. About 1.5 events per
 * TLP of a saturated stream. No allocation, except the replay buffer of
 * a link with a bit error rate (one ring per direction, grown by
 * doubling).
 *
 * Link errors and replay (only with the ber property above 0; at 0 none
 * of this runs and nothing is drawn from the RNG). Bit errors hit the
 * wire bits of a direction as a Bernoulli process of rate ber, drawn from
 * the simulation's seeded RNG as geometric gaps between errors
 * (plink_err_hit), so the same seed gives the same run. Every TLP sent
 * gets a 12-bit sequence number and stays in the transmitter's replay
 * buffer (a ring, allocated at the first TLP) until it is delivered. At
 * the far end (PCIe r6.0 §3.6.3):
 *  - a TLP hit by an error fails its LCRC: the receiver discards it and
 *    sends a Nak DLLP on its transmitter, and from then on discards every
 *    later TLP (its sequence number is not the expected one) until the
 *    replay reaches it;
 *  - the Nak, once it arrives, makes the transmitter resend the bad TLP
 *    and every later one still in the buffer, in order, behind what its
 *    transmitter holds (plink_replay). If the Nak itself is hit, the
 *    transmitter's REPLAY_TIMER (property replay-timer) started when the
 *    bad TLP left does it instead: the replay starts at the later of the
 *    two;
 *  - REPLAY_NUM counts replays without a TLP delivered in between; when
 *    it rolls over (the 4th), the transmitter retrains the link
 *    (Recovery) first, which costs PLINK_RETRAIN_PS of idle wire.
 * A replay is a link.replay trace record (a = the bad TLP's sequence
 * number, b = TLPs resent) and counts in replays / replay_bytes.
 * Model: the resent TLPs are charged again in full, also those that had
 * not yet started when the Nak arrived (at most PLINK_TXQ_BYTES of
 * backlog, charged twice); flow-control credits are not touched (replay
 * is below flow control); Acks, UpdateFCs and other DLLPs are never hit
 * (only Naks are drawn), and the receiver's AckNak latency is 0.
 *
 * Not modelled: SKP ordered sets (about 0.3% of the line), NOP DLLPs,
 * power states, virtual channels other than VC0, and the modular
 * (8/12-bit) arithmetic of the credit fields: counters here never wrap.
 */
#include <config.h>

#include "models/pcie/link.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/pcie/pcie.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/trace.h"
#include "sim/units.h"

/*
 * Backlog a transmitter accepts beyond the TLP on the wire, in bytes at
 * the negotiated rate (about two 256-byte TLPs). Model: real links send
 * Ack and UpdateFC DLLPs ahead of queued TLPs (the spec's recommended
 * priority of scheduled transmissions, §3.6 [unverified]); here DLLPs
 * join the end of the backlog, so they are late by at most this much
 * (8 ns at Gen5 x16), plus, when the transmitter holds a TLP that may not
 * start yet (its not_before: a switch's forwarding latency), the wait for
 * it: a DLLP never fills the idle gap before such a TLP, so it can be
 * late by up to that latency. Credits bound the in-flight TLPs too, but
 * infinite credits are common (completions), so this bound is what keeps
 * a stream from piling up on the link.
 *
 * The backlog is judged at the time the TLP asks to start (its
 * not_before, or now), so a switch's TLP, offered at delivery to start a
 * forwarding latency later, finds less backlog than one that is due now.
 * Without a rule, a TLP refused for backlog (a read waiting behind
 * writes, say) would be refused again at every wake-up while newer TLPs
 * of another class, each asking to start a latency ahead, kept the
 * transmitter full: a due read starved behind writes that had not even
 * reached the egress port (seen: 88 us, until the writes ended). So once
 * a TLP is refused for backlog, none asking to start later is taken
 * until the transmitter has drained and the sender has offered again
 * (plink_txq_due), oldest first, as an egress arbiter serves them.
 */
#define PLINK_TXQ_BYTES 512u

/*
 * UpdateFC DLLPs in flight per direction. Model: past this many (latency
 * above 64 DLLP periods, e.g. more than 280 ns at Gen5 x16 with a DLLP per
 * TLP) new releases ride on the newest DLLP already sent, which returns
 * them early by at most that DLLP's remaining flight time.
 */
#define PLINK_FC_INFLIGHT 64u

#define PLINK_ACK_EVERY_DEFAULT 4u
/*
 * Link errors. REPLAY_NUM is a 2-bit counter (PCIe r6.0 §3.6.2.1): the
 * 4th replay without progress rolls it over and the link retrains.
 * PLINK_RETRAIN_PS is what the Recovery state costs here, a model figure
 * [unverified: Recovery takes microseconds on real links]. The default
 * REPLAY_TIMER is 3 times the time for ack-every maximum TLPs (256-byte
 * payload + 28 bytes of header and framing) plus the round trip, the
 * shape of the spec's formula (3 x the AckNak latency limit).
 */
#define PLINK_REPLAY_NUM_ROLLOVER 4u
#define PLINK_RETRAIN_PS SIM_US(1)
#define PLINK_SEQ_MASK 0xfffu
#define PLINK_TIMER_TLP_BYTES (256u + 28u)

/* The drop property: none, or the class of TLPs lost at the receiver. */
enum { PLINK_DROP_NONE, PLINK_DROP_P, PLINK_DROP_NP, PLINK_DROP_CPL };
static const char *const plink_drop_names[] = { "none", "posted", "np", "cpl",
                                                NULL };
#define PLINK_ACK_EVERY_MAX 64u

/*
 * One charge of `bytes` as a quotient and remainder of bytes * num / den.
 * A link charges a handful of sizes (its TLPs, 8-byte DLLPs), so a small
 * memo indexed by size saves the division per charge.
 */
#define PLINK_STEPS 4u
struct plink_step {
    uint32_t bytes;                     /* 0 with q = r = 0 is valid */
    uint64_t q, r;                      /* bytes * num = q * den + r */
};

/*
 * An UpdateFC in flight: the receiver's cumulative counters it carries.
 * 64 bytes, aligned to a line (the core aligns link state, sim/port.h):
 * sending and applying one touches one cache line, not two.
 */
struct plink_fc_update {
    sim_time_t start_ps;                /* first bit on the wire */
    sim_time_t arrive_ps;               /* usable at the sender */
    uint64_t hdr[TLP_FC_COUNT];         /* CREDITS_ALLOCATED, header */
    uint64_t data[TLP_FC_COUNT];        /* CREDITS_ALLOCATED, data */
} __attribute__((aligned(SIM_LINK_STATE_ALIGN)));

/* A TLP in the replay buffer of a direction (ber > 0 only). */
struct plink_rb_entry {
    struct tlp *tlp;
    sim_time_t end_ps;                  /* its last bit left the transmitter */
    uint16_t seq;                       /* 12-bit sequence number */
    bool bad;                           /* hit by a bit error on the wire */
};

/*
 * One direction, indexed by the transmitting side s. It holds s's
 * transmitter (which carries s's TLPs and the DLLPs that s's receiver
 * sends about the other direction) and the flow control of TLPs from s to
 * !s: the sender's CREDITS_CONSUMED and CREDIT_LIMIT, the far receiver's
 * CREDITS_ALLOCATED, and the UpdateFCs in flight between them.
 */
struct plink_dir {
    struct sim_link *link;
    unsigned side;                      /* s */
    /* transmitter of side s */
    sim_time_t busy_until;              /* end of the last byte charged, ps */
    bool txq_held;                      /* a TLP was refused for backlog... */
    sim_time_t txq_held_at;             /* ...asking to start then (ps) */
    sim_time_t epoch_ps;                /* start of the current busy period */
    uint64_t epoch_q, epoch_r;          /* bytes charged since epoch_ps,
                                           times num/den: quotient (ps)
                                           and remainder (< den) */
    /* flow control of TLPs from side s (class-indexed) */
    unsigned fc_head, fc_n;             /* the UpdateFC ring below */
    uint8_t stalled;                    /* bit per class: refused credits,
                                           none sent since */
    unsigned ack_left;                  /* deliveries until the next Ack */
    uint64_t rx_tlps;                   /* TLPs from s delivered at !s */
    uint64_t consumed_hdr[TLP_FC_COUNT], consumed_data[TLP_FC_COUNT];
    uint64_t limit_hdr[TLP_FC_COUNT], limit_data[TLP_FC_COUNT];
    uint64_t alloc_hdr[TLP_FC_COUNT], alloc_data[TLP_FC_COUNT];
    uint8_t fc_dirty;                   /* bit per class: alloc moved since
                                           the last UpdateFC snapshot */
    uint64_t held_hdr[TLP_FC_COUNT], held_data[TLP_FC_COUNT]; /* at !s */
    sim_time_t stall_since[TLP_FC_COUNT];
    struct sim_event txq_ev;            /* the sender may queue again */
    struct sim_event fc_ev;             /* an UpdateFC for a stalled sender */
    /* link errors (ber > 0): the replay buffer, oldest first. Entries
       [0, rb_nak) reached the receiver and were discarded; the rest are
       on the wire (their arrival pending). */
    struct plink_rb_entry *rb;
    unsigned rb_head, rb_n, rb_cap, rb_nak;
    uint16_t next_seq;                  /* NEXT_TRANSMIT_SEQ */
    unsigned replay_num;                /* REPLAY_NUM */
    bool err_drawn;                     /* err_gap holds a draw */
    uint64_t err_gap;                   /* error-free wire bits left */
    struct sim_event replay_ev;         /* the Nak or REPLAY_TIMER acts */
    /* last: the ring is large and only its ends are touched */
    struct plink_fc_update fc[PLINK_FC_INFLIGHT]; /* ring, oldest first */
};

struct plink {
    /* configuration (properties) */
    bool has_defaults;
    unsigned max_gen;                   /* 1..6 */
    unsigned max_width;                 /* lanes */
    sim_time_t latency_ps;              /* one way */
    bool ecrc;                          /* charge a 4-byte ECRC on every TLP */
    unsigned ack_every;                 /* TLPs per Ack DLLP, 1..64 */
    double ber;                         /* bit error rate, 0 = no errors */
    int drop;                           /* fault injection: PLINK_DROP_* */
    sim_time_t replay_timer_ps;         /* REPLAY_TIMER; 0 = the default */
    struct pcie_end_caps caps[2];       /* zeroed: unlimited, infinite */
    /* negotiated */
    bool connected;
    unsigned gen, width;
    uint64_t time_num, time_den;        /* ps = ceil(bytes * num / den),
                                           the fraction in lowest terms */
    uint64_t max_bytes_64;              /* bytes * num + den fits 64 bits */
    unsigned framing_bytes;             /* per TLP at gen */
    struct plink_step step[PLINK_STEPS];/* memo: bytes * num / den */
    sim_time_t txq_ps;                  /* PLINK_TXQ_BYTES at the rate */
    struct pcie_link_counters cnt;
    struct plink_dir dir[2];            /* last: each is mostly its ring */
};

static struct plink *plink_from(const struct sim_link *l)
{
    SIM_ASSERT(l->ops == &pcie_link_ops, "link '%s' is a '%s', not a pcie-link",
               l->name, l->ops->kind);
    return sim_link_state(l);
}

/* ---- the transmitter --------------------------------------------------- */

/* Picoseconds to serialise bytes, rounded up. */
static sim_time_t plink_bytes_ps(const struct plink *pl, uint64_t bytes)
{
    if (bytes <= pl->max_bytes_64) {
        return (bytes * pl->time_num + pl->time_den - 1) / pl->time_den;
    }
    __uint128_t num = (__uint128_t)bytes * pl->time_num;
    __uint128_t ps = (num + pl->time_den - 1) / pl->time_den;
    return ps > SIM_TIME_MAX ? SIM_TIME_MAX : (sim_time_t)ps;
}

static sim_time_t plink_backlog_ps(const struct plink_dir *d, sim_time_t now)
{
    return d->busy_until > now ? d->busy_until - now : 0;
}

static const struct plink_step *plink_step_of(struct plink *pl,
                                              uint32_t bytes)
{
    struct plink_step *s = &pl->step[(bytes >> 3) & (PLINK_STEPS - 1)];
    if (s->bytes != bytes) {
        __uint128_t num = (__uint128_t)bytes * pl->time_num;
        s->bytes = bytes;
        s->q = (uint64_t)(num / pl->time_den);
        s->r = (uint64_t)(num % pl->time_den);
    }
    return s;
}

/*
 * Append bytes to d's transmitter, to start no earlier than `at` (now, or
 * a TLP's not_before); returns when their last bit leaves. Within a busy
 * period the end time is the ceiling of the exact cumulative byte time
 * (kept as a quotient and a remainder), so the one rounding never
 * accumulates. Inline, as plink_fc_apply: both run for every TLP, and
 * gcc -O2 kept the calls (about 3% of bench/fabric's instructions, with
 * the enqueue functions of rc.c and switch.c).
 */
static inline sim_time_t plink_tx_charge(struct plink *pl,
                                         struct plink_dir *d, uint32_t bytes,
                                         sim_time_t at)
{
    if (d->busy_until < at) {
        d->epoch_ps = at;
        d->epoch_q = 0;
        d->epoch_r = 0;
    }
    sim_time_t start = d->busy_until > at ? d->busy_until : at;
    const struct plink_step *st = plink_step_of(pl, bytes);
    d->epoch_q = sim_time_add(d->epoch_q, st->q);
    d->epoch_r += st->r;
    if (d->epoch_r >= pl->time_den) {
        d->epoch_r -= pl->time_den;
        d->epoch_q = sim_time_add(d->epoch_q, 1);
    }
    sim_time_t end = sim_time_add(d->epoch_ps,
                                  sim_time_add(d->epoch_q, d->epoch_r != 0));
    pl->cnt.busy_ps[d->side] += end - start;
    d->busy_until = end;
    return end;
}

/*
 * n DLLPs on side's transmitter; returns when the last one has left.
 * Model: in flit mode (Gen6) Acks and flow-control updates ride in the DLP
 * bytes of every flit, which the 242/256 fraction already pays for; we
 * still charge 8-byte DLLPs, overstating Gen6's DLLP cost a little.
 */
static sim_time_t plink_dllp_charge(struct plink *pl, unsigned side,
                                    unsigned n, sim_time_t now)
{
    pl->cnt.dllp_bytes[side] += (uint64_t)n * PCIE_DLLP_BYTES;
    return plink_tx_charge(pl, &pl->dir[side], n * PCIE_DLLP_BYTES, now);
}

static void plink_txq_due(struct sim *sim, struct sim_event *ev)
{
    struct plink_dir *d = SIM_CONTAINER_OF(ev, struct plink_dir, txq_ev);
    d->txq_held = false;        /* the sender offers again, oldest first */
    sim_link_ready(d->link, d->side);
}

/*
 * Wake the refused sender when the transmitter has drained: it may then
 * queue PLINK_TXQ_BYTES again, usually two TLPs per wake rather than one.
 * The first of them starts the moment the last byte before it leaves, as
 * it would have from an earlier wake, so the link never idles for it;
 * what moves is only the time the sender decides (and DLLPs charged
 * meanwhile go out before, not after, the next TLP).
 */
static void plink_txq_wait(struct plink_dir *d)
{
    if (!sim_event_is_pending(&d->txq_ev)) {
        sim_event_schedule_at(d->link->sim, &d->txq_ev, d->busy_until);
    }
}

/* ---- flow control: the sender's side --------------------------------------
 *
 * Header credits count TLPs, data credits 16-byte units; a receiver that
 * advertised 0 has infinite credits of that kind (PCIe r6.0 §2.6.1).
 * Model: flow-control initialisation (InitFC1/InitFC2) is instantaneous,
 * so the advertised credits are usable from time 0.
 */

static bool plink_hdr_finite(const struct plink *pl, unsigned from,
                             enum tlp_fc_class c)
{
    return pl->caps[!from].cred_hdr[c] != 0;
}

static bool plink_data_finite(const struct plink *pl, unsigned from,
                              enum tlp_fc_class c)
{
    return pl->caps[!from].cred_data[c] != 0;
}

/*
 * The gate of PCIe r6.0 §2.6.1.1: CREDITS_CONSUMED + required must not
 * pass CREDIT_LIMIT, written without the modular arithmetic.
 */
static bool plink_fc_has_room(const struct plink *pl, unsigned from,
                              enum tlp_fc_class c, uint32_t data)
{
    const struct plink_dir *d = &pl->dir[from];
    if (plink_hdr_finite(pl, from, c) &&
        d->consumed_hdr[c] + 1 > d->limit_hdr[c]) {
        return false;
    }
    return !(plink_data_finite(pl, from, c) && data > 0 &&
             d->consumed_data[c] + data > d->limit_data[c]);
}

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

/*
 * The UpdateFCs that have reached the sender by now raise its
 * CREDIT_LIMITs. Applied lazily (before a credit check, or before a new
 * UpdateFC joins the ring), so an UpdateFC costs an event only when a
 * sender stalled for credits must be woken by it.
 */
static inline void plink_fc_apply(struct plink_dir *d, sim_time_t now)
{
    if (d->fc_n == 0 || d->fc[d->fc_head].arrive_ps > now) {
        return;
    }
    /* Each UpdateFC carries cumulative counters: the newest that has
     * arrived holds the limits, the older ones are spent unread. */
    struct plink_fc_update *u;
    do {
        u = &d->fc[d->fc_head];
        d->fc_head = (d->fc_head + 1) % PLINK_FC_INFLIGHT;
        d->fc_n--;
    } while (d->fc_n > 0 && d->fc[d->fc_head].arrive_ps <= now);
    memcpy(d->limit_hdr, u->hdr, sizeof(d->limit_hdr));
    memcpy(d->limit_data, u->data, sizeof(d->limit_data));
}

static bool plink_fc_is_stalled(const struct plink_dir *d)
{
    return d->stalled != 0;
}

/* A sender stalled for credits: wake it when the next UpdateFC arrives. */
static void plink_fc_wake_on_arrival(struct sim_link *l, struct plink_dir *d)
{
    if (d->fc_n > 0 && !sim_event_is_pending(&d->fc_ev)) {
        sim_event_schedule_at(l->sim, &d->fc_ev, d->fc[d->fc_head].arrive_ps);
    }
}

/*
 * Refuse t for lack of credits. The trace record's b is how long the
 * sender has been refused credits of this class so far (0 at the first
 * refusal of a stall); a stall ends when a TLP of the class is accepted.
 */
static int plink_fc_refuse(struct sim_link *l, unsigned from,
                           const struct tlp *t, enum tlp_fc_class c)
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

/* A TLP larger than every data credit the receiver has can never pass. */
static bool plink_fc_fits(const struct sim_link *l, unsigned from,
                          enum tlp_fc_class c, uint32_t data)
{
    const struct plink *pl = sim_link_state(l);
    if (!plink_data_finite(pl, from, c) ||
        data <= pl->caps[!from].cred_data[c]) {
        return true;
    }
    sim_log(l->sim, SIM_LOG_ERROR, l->name,
            "a TLP needing %u data credits can never pass: side %u "
            "advertises only %u (advertise at least MPS/16)",
            (unsigned)data, !from, (unsigned)pl->caps[!from].cred_data[c]);
    return false;
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
static void plink_fc_arrive(struct sim *sim, struct sim_event *ev)
{
    struct plink_dir *d = SIM_CONTAINER_OF(ev, struct plink_dir, fc_ev);
    plink_fc_apply(d, sim_now(sim));
    if (plink_fc_is_stalled(d)) {
        plink_fc_wake_on_arrival(d->link, d);
    }
    sim_link_ready(d->link, d->side);
}

/* ---- the TLP path ------------------------------------------------------ */

/*
 * pcie_tlp_wire_bytes() at the negotiated generation, with the framing
 * looked up once; the link's ecrc property gives every TLP an ECRC.
 */
static inline uint32_t plink_wire_bytes(const struct plink *pl,
                                        const struct tlp *t)
{
    uint32_t bytes = tlp_header_bytes(t) + pcie_tlp_payload_wire_bytes(t) +
                     pl->framing_bytes;
    if (t->has_ecrc || pl->ecrc) {
        bytes += 4; /* ECRC, PCIe r6.0 §2.7 */
    }
    return bytes;
}

/*
 * The data credits t consumed on this link, noted by plink_transmit:
 * arrival and release charge the same number without recomputing it. A
 * TLP's credits depend on its payload only, so the note stays right while
 * t holds a receive buffer here and is sent on its next link.
 */
static inline uint32_t plink_tlp_credits(const struct tlp *t)
{
    return t->link_credits != UINT16_MAX ? t->link_credits
                                         : pcie_tlp_data_credits(t);
}

/*
 * Arrival at the far end. Model: the Ack for every ack-every-th TLP is
 * charged when that TLP arrives; a partial batch at the end of a burst is
 * never acknowledged (a real receiver's AckNak latency timer would send
 * one), and Acks never gate anything: the replay buffer frees a TLP when
 * it is delivered, not when its Ack comes back.
 */
static void plink_release(struct sim_link *l, unsigned side, struct tlp *t);

/*
 * Fault injection (the drop property): the receiver loses t after the
 * data link layer took it (it was acknowledged and its credits come
 * back), as a component that drops it would. Only for tests of what
 * needs a lost TLP, such as a requester's completion timeout.
 */
static void plink_drop(struct sim_link *l, unsigned to, struct tlp *t)
{
    struct sim_port *p = l->end[to];
    struct sim_trace_record r = {
        .point = SIM_TP_TLP_DROP,
        .component = p ? p->owner->name : NULL,
        .port = p ? p->name : NULL,
        .tlp = t,
        .msg = "fault injection (link drop property)",
    };
    if (sim_trace_wanted(l->sim, SIM_TP_TLP_DROP)) {
        sim_trace_emit(l->sim, &r);
    }
    plink_release(l, to, t);
    tlp_free(t);
}

static void plink_deliver(struct plink *pl, struct sim_link *l, unsigned to,
                          struct tlp *t)
{
    struct plink_dir *d = &pl->dir[!to];
    enum tlp_fc_class c = tlp_kind_fc_class(t->kind);
    d->held_hdr[c]++;
    d->held_data[c] += plink_tlp_credits(t);
    d->rx_tlps++;
    if (--d->ack_left == 0) {
        d->ack_left = pl->ack_every;
        plink_dllp_charge(pl, to, 1, sim_now(l->sim));
    }
    if (pl->drop != PLINK_DROP_NONE && (int)c + 1 == pl->drop) {
        plink_drop(l, to, t);
        return;
    }
    sim_link_deliver(l, to, t);
}

static void plink_err_arrive(struct sim *sim, struct sim_event *ev);

static void plink_arrive(struct sim *sim, struct sim_event *ev)
{
    struct tlp *t = SIM_CONTAINER_OF(ev, struct tlp, ev);
    plink_deliver(sim_link_state(t->link), t->link, t->link_side, t);
}

/* ---- link errors, Nak and replay (ber > 0; see the file comment) ------- */

/*
 * ln(x) for x in (0, 1], without libm (the models link libc only):
 * x = m * 2^e with m in [1/2, 1), ln m = 2 atanh((m - 1) / (m + 1)),
 * whose series in z^2 <= 1/9 is exact to double precision in 20 terms.
 */
static double plink_ln(double x)
{
    static const double ln2 = 0.69314718055994530942;
    int e = 0;
    while (x < 0.5) {
        x *= 2;
        e--;
    }
    double z = (x - 1) / (x + 1), z2 = z * z, term = z, sum = 0;
    for (int k = 0; k < 20; k++) {
        sum += term / (2 * k + 1);
        term *= z2;
    }
    return 2 * sum + e * ln2;
}

/* ln(1 - b) for b in (0, 1): the series -sum b^k / k, to 1e-17. */
static double plink_ln1m(double b)
{
    if (b > 0.5) {
        return plink_ln(1 - b);
    }
    double term = b, sum = 0;
    for (int k = 1; k < 64 && term > 1e-18 * b; k++) {
        sum += term / k;
        term *= b;
    }
    return -sum;
}

/*
 * Error-free bits before the next error: geometric with parameter ber,
 * floor(ln u / ln(1 - ber)) for u uniform in (0, 1].
 */
static uint64_t plink_err_draw(struct plink *pl, struct sim *sim)
{
    double u = ((double)(sim_rng_u64(sim) >> 11) + 1.0) * 0x1p-53;
    double gap = plink_ln(u) / plink_ln1m(pl->ber);
    return gap >= 0x1p63 ? UINT64_MAX : (uint64_t)gap;
}

/* Do `bytes` sent on d's wire now contain a bit error? */
static bool plink_err_hit(struct plink *pl, struct plink_dir *d,
                          uint32_t bytes)
{
    struct sim *sim = d->link->sim;
    uint64_t bits = (uint64_t)bytes * 8;
    if (!d->err_drawn) {
        d->err_gap = plink_err_draw(pl, sim);
        d->err_drawn = true;
    }
    if (d->err_gap >= bits) {
        d->err_gap -= bits;
        return false;
    }
    /* errors are memoryless: draw the next gap from this TLP's end */
    d->err_gap = plink_err_draw(pl, sim);
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
static void plink_err_send(struct plink *pl, struct plink_dir *d,
                           struct tlp *t, uint32_t wire, sim_time_t end)
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
static void plink_replay(struct sim *sim, struct sim_event *ev)
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

static void plink_count_tx(struct plink *pl, unsigned from,
                           const struct tlp *t, uint32_t wire)
{
    pl->cnt.tlps[from]++;
    pl->cnt.payload_bytes[from] += tlp_payload_bytes(t);
    pl->cnt.wire_bytes[from] += wire;
}

static int plink_transmit(struct sim_link *l, unsigned from, struct tlp *t)
{
    struct plink *pl = sim_link_state(l);
    struct plink_dir *d = &pl->dir[from];
    sim_time_t now = sim_now(l->sim);
    /* The backlog it would find when it reaches the transmitter. */
    sim_time_t at = t->not_before > now ? t->not_before : now;
    SIM_ASSERT(pl->connected, "link '%s': transmit before connect", l->name);
    if (d->txq_held && at > d->txq_held_at) {
        plink_txq_wait(d);      /* no passing a TLP refused for backlog */
        return -SIM_EAGAIN;
    }
    if (plink_backlog_ps(d, at) > pl->txq_ps) {
        if (!d->txq_held || at < d->txq_held_at) {
            d->txq_held = true;
            d->txq_held_at = at;
        }
        plink_txq_wait(d);
        return -SIM_EAGAIN;
    }
    enum tlp_fc_class c = tlp_kind_fc_class(t->kind);
    uint32_t data = pcie_tlp_data_credits(t);
    if (!plink_fc_fits(l, from, c, data)) {
        return -SIM_ERANGE;
    }
    plink_fc_apply(d, now);
    if (!plink_fc_has_room(pl, from, c, data)) {
        return plink_fc_refuse(l, from, t, c);
    }
    d->stalled &= (uint8_t)~(1u << c);
    d->consumed_hdr[c]++;
    d->consumed_data[c] += data;
    t->link_credits = data < UINT16_MAX ? (uint16_t)data : UINT16_MAX;
    uint32_t wire = plink_wire_bytes(pl, t);
    sim_time_t end = plink_tx_charge(pl, d, wire, at);
    t->not_before = 0;
    plink_count_tx(pl, from, t, wire);
    if (pl->ber > 0) {
        plink_err_send(pl, d, t, wire, end);
        return 0;
    }
    sim_event_init(&t->ev, plink_arrive);
    sim_event_schedule_at(l->sim, &t->ev, sim_time_add(end, pl->latency_ps));
    return 0;
}

/*
 * The receiver at `side` freed t's buffer. It gives back the data credits
 * noted at transmit and the header credit of t's class as it is now: a
 * model must not change a TLP's kind or length while it holds a receive
 * buffer (sim_tlp_release_hold first); the held counters catch a changed
 * class.
 */
static void plink_release(struct sim_link *l, unsigned side, struct tlp *t)
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

/* ---- negotiation ------------------------------------------------------- */

static unsigned plink_min_cap(unsigned v, unsigned cap)
{
    return cap != 0 && cap < v ? cap : v;
}

/* The widest legal width not above lanes (x12 trains as x8). */
static unsigned plink_round_width(unsigned lanes)
{
    while (lanes > 1 && !pcie_width_is_valid(lanes)) {
        lanes--;
    }
    return lanes ? lanes : 1;
}

/* Advertised credits become the sender's limits and the receiver's counts. */
static void plink_dir_reset(struct plink *pl, unsigned s)
{
    struct plink_dir *d = &pl->dir[s];
    const struct pcie_end_caps *rx = &pl->caps[!s];
    for (int c = 0; c < TLP_FC_COUNT; c++) {
        d->limit_hdr[c] = d->alloc_hdr[c] = rx->cred_hdr[c];
        d->limit_data[c] = d->alloc_data[c] = rx->cred_data[c];
        d->consumed_hdr[c] = d->consumed_data[c] = 0;
    }
    d->fc_dirty = 0;
    d->ack_left = pl->ack_every;
}

static uint64_t plink_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/*
 * Link training, reduced to its outcome: the highest generation and
 * widest width that the properties and both ends support (PCIe r6.0
 * §4.2, the LTSSM). Model: training takes no time. Re-running it is
 * allowed (pcie_link_set_end after connecting) until the first TLP.
 */
static void plink_negotiate(struct sim_link *l)
{
    struct plink *pl = sim_link_state(l);
    SIM_ASSERT(pl->cnt.tlps[0] + pl->cnt.tlps[1] == 0,
               "link '%s': renegotiated after carrying traffic", l->name);
    unsigned gen = pl->max_gen, width = pl->max_width;
    for (int s = 0; s < 2; s++) {
        gen = plink_min_cap(gen, pl->caps[s].max_gen);
        width = plink_min_cap(width, pl->caps[s].max_width);
    }
    const struct pcie_gen_info *g = pcie_gen_info(gen < 1 ? 1 : gen);
    pl->gen = g->gen;
    pl->width = plink_round_width(width);
    /* ps = bytes * 8 * den/num bits / (MT/s * 1e6 * lanes) * 1e12 */
    pl->time_num = UINT64_C(8) * g->enc_den * UINT64_C(1000000);
    pl->time_den = (uint64_t)g->enc_num * g->mts_per_lane * pl->width;
    uint64_t gcd = plink_gcd(pl->time_num, pl->time_den);
    pl->time_num /= gcd;
    pl->time_den /= gcd;
    pl->max_bytes_64 = (UINT64_MAX - pl->time_den) / pl->time_num;
    memset(pl->step, 0, sizeof(pl->step));
    pl->framing_bytes = g->framing_bytes;
    pl->txq_ps = plink_bytes_ps(pl, PLINK_TXQ_BYTES);
    plink_dir_reset(pl, 0);
    plink_dir_reset(pl, 1);
}

static void plink_set_defaults(struct plink *pl)
{
    if (pl->has_defaults) {
        return;
    }
    pl->has_defaults = true;
    pl->max_gen = PCIE_GEN_MAX;
    pl->max_width = 16;
    pl->latency_ps = 0;
    pl->ecrc = false;
    pl->ack_every = PLINK_ACK_EVERY_DEFAULT;
    pl->ber = 0;
    pl->replay_timer_ps = 0;
    pl->drop = PLINK_DROP_NONE;
}

static int plink_connected(struct sim_link *l, struct sim_error *err)
{
    struct plink *pl = sim_link_state(l);
    plink_set_defaults(pl);
    for (unsigned s = 0; s < 2; s++) {
        pl->dir[s].link = l;
        pl->dir[s].side = s;
        sim_event_init(&pl->dir[s].txq_ev, plink_txq_due);
        sim_event_init(&pl->dir[s].fc_ev, plink_fc_arrive);
        sim_event_init(&pl->dir[s].replay_ev, plink_replay);
    }
    pl->connected = true;
    plink_negotiate(l);
    return 0;
}

/* ---- properties -------------------------------------------------------- */

static const char *plink_owner(const struct sim_props *p, const char *fallback)
{
    return p->owner ? p->owner : fallback;
}

/* "x16" or "16"; one of the widths pcie_width_is_valid accepts. */
static int plink_get_width(const struct sim_link *l,
                           const struct sim_props *p, unsigned *out,
                           struct sim_error *err)
{
    const char *s = NULL;
    int rc = sim_props_get_str(p, "width", &s, 0, err);
    if (rc < 0 || s == NULL) {
        return rc;
    }
    const char *digits = (s[0] == 'x' || s[0] == 'X') ? s + 1 : s;
    char why[160];
    uint64_t v = 0;
    if (sim_parse_u64(digits, &v, why, sizeof(why)) < 0 || v > UINT_MAX ||
        !pcie_width_is_valid((unsigned)v)) {
        return sim_props_error(p, "width", SIM_EINVAL, err,
                               "%s: width: '%s' is not a PCIe link width "
                               "(use x1, x2, x4, x8 or x16)",
                               plink_owner(p, l->name), s);
    }
    *out = (unsigned)v;
    return 0;
}

/* ber: a bit error rate, a plain number in [0, 1) such as 1e-12. */
static int plink_get_ber(const struct sim_link *l, const struct sim_props *p,
                         double *out, struct sim_error *err)
{
    const char *s = NULL;
    int rc = sim_props_get_str(p, "ber", &s, 0, err);
    if (rc < 0 || s == NULL) {
        return rc;
    }
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !(v >= 0 && v < 1)) {
        return sim_props_error(p, "ber", SIM_EINVAL, err,
                               "%s: ber: '%s' is not a bit error rate "
                               "(a number from 0 up to, not including, 1, "
                               "e.g. 1e-12)", plink_owner(p, l->name), s);
    }
    *out = v;
    return 0;
}

static int plink_get_props(struct sim_link *l, const struct sim_props *p,
                           struct sim_error *err)
{
    struct plink *pl = sim_link_state(l);
    uint64_t gen = pl->max_gen, ack = pl->ack_every;
    int rc = sim_props_get_u64(p, "gen", &gen, PCIE_GEN_MIN, PCIE_GEN_MAX, 0,
                               err);
    if (rc == 0) {
        rc = plink_get_width(l, p, &pl->max_width, err);
    }
    if (rc == 0) {
        rc = sim_props_get_time(p, "latency", &pl->latency_ps, 0, err);
    }
    if (rc == 0) {
        rc = sim_props_get_bool(p, "ecrc", &pl->ecrc, 0, err);
    }
    if (rc == 0) {
        rc = sim_props_get_u64(p, "ack-every", &ack, 1, PLINK_ACK_EVERY_MAX, 0,
                               err);
    }
    if (rc == 0) {
        rc = plink_get_ber(l, p, &pl->ber, err);
    }
    if (rc == 0) {
        rc = sim_props_get_enum(p, "drop", plink_drop_names, &pl->drop, 0,
                                err);
    }
    if (rc == 0) {
        rc = sim_props_get_time(p, "replay-timer", &pl->replay_timer_ps, 0,
                                err);
    }
    pl->max_gen = (unsigned)gen;
    pl->ack_every = (unsigned)ack;
    return rc;
}

/* Unknown keys are the builder's to reject (sim_props_check_unused). */
static int plink_configure(struct sim_link *l, const struct sim_props *props,
                           struct sim_error *err)
{
    struct plink *pl = sim_link_state(l);
    plink_set_defaults(pl);
    int rc = props ? plink_get_props(l, props, err) : 0;
    if (rc == 0 && pl->connected) {
        plink_negotiate(l);
    }
    return rc;
}

/* ---- public queries ---------------------------------------------------- */

void pcie_link_set_end(struct sim_link *l, unsigned side,
                       const struct pcie_end_caps *caps)
{
    struct plink *pl = plink_from(l);
    SIM_ASSERT(side < 2, "pcie_link_set_end: side %u", side);
    pl->caps[side] = *caps;
    if (pl->connected) {
        plink_negotiate(l);
    }
}

unsigned pcie_link_gen(const struct sim_link *l)
{
    return plink_from(l)->gen;
}

unsigned pcie_link_width(const struct sim_link *l)
{
    return plink_from(l)->width;
}

uint64_t pcie_link_rate(const struct sim_link *l)
{
    const struct plink *pl = plink_from(l);
    return pcie_link_bytes_per_s(pl->gen, pl->width);
}

void pcie_link_get_counters(const struct sim_link *l,
                            struct pcie_link_counters *out)
{
    *out = plink_from(l)->cnt;
}

sim_time_t pcie_link_latency(const struct sim_link *l)
{
    return plink_from(l)->latency_ps;
}

uint32_t pcie_link_tlp_bytes(const struct sim_link *l, const struct tlp *t)
{
    return plink_wire_bytes(plink_from(l), t);
}

sim_time_t pcie_link_bytes_time(const struct sim_link *l, uint64_t bytes)
{
    return plink_bytes_ps(plink_from(l), bytes);
}

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

static void plink_stat(struct sim_stats *out, const struct sim_link *l,
                       unsigned side, const char *what, uint64_t v)
{
    char name[256];
    snprintf(name, sizeof(name), "%s.%u.%s", l->name, side, what);
    sim_stats_add(out, name, v);
}

static void plink_report(const struct sim_link *l, struct sim_stats *out)
{
    const struct pcie_link_counters *c = &plink_from(l)->cnt;
    for (unsigned s = 0; s < 2; s++) {
        plink_stat(out, l, s, "tlps", c->tlps[s]);
        plink_stat(out, l, s, "payload_bytes", c->payload_bytes[s]);
        plink_stat(out, l, s, "wire_bytes", c->wire_bytes[s]);
        plink_stat(out, l, s, "dllp_bytes", c->dllp_bytes[s]);
        plink_stat(out, l, s, "credit_stalls", c->credit_stalls[s]);
        plink_stat(out, l, s, "busy_ps", c->busy_ps[s]);
        plink_stat(out, l, s, "replays", c->replays[s]);
        plink_stat(out, l, s, "replay_bytes", c->replay_bytes[s]);
        plink_stat(out, l, s, "retrains", c->retrains[s]);
    }
}

static void plink_destroy(struct sim_link *l)
{
    struct plink *pl = sim_link_state(l);
    for (unsigned s = 0; s < 2; s++) {
        free(pl->dir[s].rb);
        pl->dir[s].rb = NULL;
    }
}

const struct sim_link_ops pcie_link_ops = {
    .kind = "pcie-link",
    .state_size = sizeof(struct plink),
    .configure = plink_configure,
    .connected = plink_connected,
    .transmit = plink_transmit,
    .release = plink_release,
    .report = plink_report,
    .destroy = plink_destroy,
};
