/*
 * models/pcie/link.c - the PCIe link (kind "pcie-link"): serialisation at
 * the negotiated generation and width, propagation latency, Ack DLLPs,
 * arrival and delivery, link training's outcome and the properties. See
 * link.h for the properties and the contract; flow control is in
 * link_fc.c, errors and replay in link_replay.c, the shared state and
 * the inline per-TLP helpers in link_int.h.
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
 * a link with a bit error rate (link_replay.c).
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

#include "models/pcie/link_int.h"
#include "models/pcie/pcie.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/trace.h"
#include "sim/units.h"

static const char *const plink_drop_names[] = { "none", "posted", "np", "cpl",
                                                NULL };

/* ---- the transmitter's backlog --------------------------------------------- */

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

/* ---- the TLP path ------------------------------------------------------ */


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

/*
 * Arrival at the far end. Model: the Ack for every ack-every-th TLP is
 * charged when that TLP arrives; a partial batch at the end of a burst is
 * never acknowledged (a real receiver's AckNak latency timer would send
 * one), and Acks never gate anything: the replay buffer frees a TLP when
 * it is delivered, not when its Ack comes back.
 */
void plink_deliver(struct plink *pl, struct sim_link *l, unsigned to,
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


static void plink_arrive(struct sim *sim, struct sim_event *ev)
{
    struct tlp *t = SIM_CONTAINER_OF(ev, struct tlp, ev);
    plink_deliver(sim_link_state(t->link), t->link, t->link_side, t);
}


static void plink_count_tx(struct plink *pl, unsigned from,
                           const struct tlp *t, uint32_t wire)
{
    pl->cnt.tlps[from]++;
    pl->cnt.payload_bytes[from] += tlp_payload_bytes(t);
    pl->cnt.wire_bytes[from] += wire;
}

/*
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
 *     holds its receive buffer (plink_deliver).
 *  3. release (the core calls it when the receiver forwards or frees the
 *     TLP): the receiver's CREDITS_ALLOCATED grow, and an UpdateFC DLLP
 *     goes out on the transmitter of !s; from its arrival at s, s may use
 *     the credits, and if s was refused for credits sim_link_ready() lets
 *     it retry then (link_fc.c).
 * With a bit error rate, step 2 may be a Nak and a replay (link_replay.c).
 */
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
    d->fc_head = d->fc_n = 0;       /* no traffic yet: none in flight */
    d->fc_next_ps = SIM_TIME_MAX;
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


static void plink_stat(struct sim_stats *out, const struct sim_link *l,
                       unsigned side, const char *what, uint64_t v)
{
    sim_stats_addf(out, v, "%s.%u.%s", l->name, side, what);
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
