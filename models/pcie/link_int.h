/*
 * models/pcie/link_int.h - the state of a PCIe link, shared by its three
 * files: link.c (transmit, arrival, negotiation, properties), link_fc.c
 * (credits and UpdateFC DLLPs) and link_replay.c (bit errors, Nak and
 * replay). The helpers every TLP runs (the serialisation charge, the
 * credit gate) are inline here, as they were inside one file: gcc -O2
 * does not inline across files.
 *
 *   side 0                                              side 1
 *   [tx 0] ==== TLPs from 0, DLLPs about TLPs from 1 ===> [rx 1]
 *   [rx 0] <=== TLPs from 1, DLLPs about TLPs from 0 ==== [tx 1]
 *
 * Private to models/pcie/link*.c; the contract is link.h.
 */
#ifndef P2PSIM_MODELS_PCIE_LINK_INT_H
#define P2PSIM_MODELS_PCIE_LINK_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "models/pcie/link.h"
#include "models/pcie/pcie.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/sim.h"
#include "sim/time.h"
#include "sim/tlp.h"

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
    unsigned fc_head, fc_n;             /* the UpdateFC ring below; an
                                           empty ring restarts at 0, so
                                           few in flight touch few lines */
    sim_time_t fc_next_ps;              /* the oldest one's arrive_ps, or
                                           SIM_TIME_MAX: the gate reads
                                           this line, not the ring's */
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

static inline struct plink *plink_from(const struct sim_link *l)
{
    SIM_ASSERT(l->ops == &pcie_link_ops, "link '%s' is a '%s', not a pcie-link",
               l->name, l->ops->kind);
    return sim_link_state(l);
}

/* ---- the transmitter --------------------------------------------------- */

/* Picoseconds to serialise bytes, rounded up. */
static inline sim_time_t plink_bytes_ps(const struct plink *pl, uint64_t bytes)
{
    if (bytes <= pl->max_bytes_64) {
        return (bytes * pl->time_num + pl->time_den - 1) / pl->time_den;
    }
    __uint128_t num = (__uint128_t)bytes * pl->time_num;
    __uint128_t ps = (num + pl->time_den - 1) / pl->time_den;
    return ps > SIM_TIME_MAX ? SIM_TIME_MAX : (sim_time_t)ps;
}

static inline sim_time_t plink_backlog_ps(const struct plink_dir *d, sim_time_t now)
{
    return d->busy_until > now ? d->busy_until - now : 0;
}

static inline const struct plink_step *plink_step_of(struct plink *pl,
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
static inline sim_time_t plink_dllp_charge(struct plink *pl,
                                           unsigned side, unsigned n,
                                           sim_time_t now)
{
    pl->cnt.dllp_bytes[side] += (uint64_t)n * PCIE_DLLP_BYTES;
    return plink_tx_charge(pl, &pl->dir[side], n * PCIE_DLLP_BYTES, now);
}

/* ---- flow control: the sender's gate (link_fc.c has the rest) ------------
 *
 * Header credits count TLPs, data credits 16-byte units; a receiver that
 * advertised 0 has infinite credits of that kind (PCIe r6.0 §2.6.1).
 * Model: flow-control initialisation (InitFC1/InitFC2) is instantaneous,
 * so the advertised credits are usable from time 0.
 */

static inline bool plink_hdr_finite(const struct plink *pl, unsigned from,
                             enum tlp_fc_class c)
{
    return pl->caps[!from].cred_hdr[c] != 0;
}

static inline bool plink_data_finite(const struct plink *pl, unsigned from,
                              enum tlp_fc_class c)
{
    return pl->caps[!from].cred_data[c] != 0;
}

/*
 * The gate of PCIe r6.0 §2.6.1.1: CREDITS_CONSUMED + required must not
 * pass CREDIT_LIMIT, written without the modular arithmetic.
 */
static inline bool plink_fc_has_room(const struct plink *pl, unsigned from,
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

/*
 * The UpdateFCs that have reached the sender by now raise its
 * CREDIT_LIMITs. Applied lazily (before a credit check, or before a new
 * UpdateFC joins the ring), so an UpdateFC costs an event only when a
 * sender stalled for credits must be woken by it.
 */
static inline void plink_fc_apply(struct plink_dir *d, sim_time_t now)
{
    if (d->fc_next_ps > now) {
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
    if (d->fc_n > 0) {
        d->fc_next_ps = d->fc[d->fc_head].arrive_ps;
    } else {
        d->fc_head = 0;
        d->fc_next_ps = SIM_TIME_MAX;
    }
}

/* A TLP larger than every data credit the receiver has can never pass. */
static inline bool plink_fc_fits(const struct sim_link *l, unsigned from,
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

/* ---- the TLP on the wire -------------------------------------------------- */

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

/* ---- across the files ------------------------------------------------- */

/* link.c: hand t to the receiver at `to` (Ack, drop property, delivery). */
void plink_deliver(struct plink *pl, struct sim_link *l, unsigned to,
                   struct tlp *t);

/* link_fc.c */
int plink_fc_refuse(struct sim_link *l, unsigned from, const struct tlp *t,
                    enum tlp_fc_class c);
void plink_fc_arrive(struct sim *sim, struct sim_event *ev);
void plink_release(struct sim_link *l, unsigned side, struct tlp *t);

/* link_replay.c (ber > 0) */
void plink_err_send(struct plink *pl, struct plink_dir *d, struct tlp *t,
                    uint32_t wire, sim_time_t end);
void plink_replay(struct sim *sim, struct sim_event *ev);

#endif /* P2PSIM_MODELS_PCIE_LINK_INT_H */
