/*
 * models/nvlink/nvlink.c - an NVLink bonded group (kind "nvlink"): `links`
 * physical links of one generation, full duplex, each direction one
 * serialiser at links x the per-link rate, a one-way latency, and a
 * receive buffer that gives back-pressure. See nvlink.h for properties.
 *
 *   side 0                                    side 1
 *   [tx 0] ===== packets from 0, flits ====> [rx 1]  buffer: links x buffer
 *   [rx 0] <==== packets from 1, flits ===== [tx 1]
 *
 * Packets (docs/nvlink.md; Foley and Danskin, "Ultra-Performance Pascal
 * GPU and NVLink Interconnect", IEEE Micro 37(2), 2017, and their Hot
 * Chips 28 talk): NVLink moves 128-bit flits; a packet is a header flit
 * (command, address, tag, and the CRC that protects the packet), an
 * optional byte-enable flit, and 0 to 16 data flits (at most 256 B).
 * nvl_packet_bytes charges exactly that, whatever the generation.
 *
 * Model: a bonded group is one serialiser of links x rate; real hardware
 * stripes packets over the links, so a single packet's serialisation is
 * `links` times shorter here (a few ns at most; the throughput is equal).
 * Model: write acknowledgements, flow-control credits and other
 * link-layer flits that travel in the reverse direction are not charged;
 * there is no CRC error, replay or link training.
 * Model: the credit accounting frees room at release; only the sender's
 * wake-up waits for the credit's flight back.
 */
#include <config.h>

#include "models/nvlink/nvlink.h"

#include <stdio.h>
#include <string.h>

#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/tlp.h"

#define NVL_DEF_LATENCY SIM_NS(100)     /* [estimate]: no published figure */
/*
 * Receive buffer per physical link, by default: what the link carries in
 * NVL_DEF_BUFFER_RTTS one-way latencies, and at least 8 KiB [estimate].
 * Model: NVLink is built not to be credit-limited; a credit round trip
 * here is the latency out, up to a switch's latency and crossbar wait, and
 * the latency of the credit's way back, so 6 latencies leave room to spare
 * at every generation (50 GB/s x 600 ns = 30 KB on NVLink 5).
 */
#define NVL_DEF_BUFFER_BYTES 8192u
#define NVL_DEF_BUFFER_RTTS 6u
#define NVL_MAX_LINKS 18u

/* Signalling rate per link per direction, bytes/s (reference
 * pcie-nvlink.md §3). */
static const uint64_t nvl_rate_by_gen[NVL_GEN_MAX + 1] = {
    [1] = UINT64_C(20000000000),
    [2] = UINT64_C(25000000000),
    [3] = UINT64_C(25000000000),
    [4] = UINT64_C(25000000000),
    [5] = UINT64_C(50000000000),
};

/*
 * What of it carries flits, percent. Model: NVLink 4 and 5 signal PAM4
 * (100 and 200 Gb/s per lane, reference §3), which needs forward error
 * correction, as PCIe 6.0's PAM4 flits do (242 of 256 bytes, reference
 * §2.1); the earlier NRZ generations carry flits at the full rate. 93% is
 * measured, not derived: on two H200s (NV18) copy-engine copies moved 394
 * GB/s, one engine or three, each way at once or not, against the 423.5
 * GB/s that 18 links x 25 GB/s give to 17-flit packets; SM stores (9-flit
 * packets) moved 369 against 400 (92%) (data/hgx-h200-x2/
 * nvlink_rate_probe.txt). NVLink 5 takes the same share [estimate].
 */
static const unsigned nvl_phy_pct_by_gen[NVL_GEN_MAX + 1] = {
    [1] = 100, [2] = 100, [3] = 100, [4] = 93, [5] = 93,
};

uint64_t nvl_gen_link_rate(unsigned gen)
{
    if (gen < NVL_GEN_MIN || gen > NVL_GEN_MAX) {
        return 0;
    }
    return nvl_rate_by_gen[gen] / 100 * nvl_phy_pct_by_gen[gen];
}

uint32_t nvl_packet_bytes(const struct tlp *t)
{
    uint32_t data = tlp_payload_bytes(t);
    uint32_t flits = 1 + (data + NVL_FLIT_BYTES - 1) / NVL_FLIT_BYTES;
    /* Data that do not fill whole aligned flits need the byte enables. */
    bool partial = data && ((data % NVL_FLIT_BYTES) != 0 ||
                            (t->addr % NVL_FLIT_BYTES) != 0);
    if (partial && tlp_is_request(t)) {
        flits++;
    }
    return flits * NVL_FLIT_BYTES;
}

/* One direction, indexed by the transmitting side. */
struct nvl_dir {
    sim_time_t period_start;    /* first byte of the busy period, ps */
    uint64_t period_bytes;      /* bytes charged in that period */
    sim_time_t busy_until;      /* the serialiser is free from, ps */
    uint64_t held;              /* bytes in the receive buffer at !side */
    bool refused;               /* the sender waits for room */
    struct sim_event wake;      /* tells the sender, a latency later */
    struct sim_link *l;
    unsigned from;
};

struct nvl {
    /* configuration */
    unsigned gen;
    unsigned links;
    uint64_t link_rate;         /* bytes/s per link per direction */
    uint64_t rate;              /* links x link_rate */
    sim_time_t latency_ps;
    uint64_t buffer_bytes;      /* per direction: links x buffer */
    /* modelling state */
    struct nvl_dir dir[2];
    /* statistics */
    struct nvl_link_counters cnt;
};

static struct nvl *nvl_from(const struct sim_link *l)
{
    return sim_link_state(l);
}

static void nvl_arrive(struct sim *sim, struct sim_event *ev)
{
    struct tlp *t = SIM_CONTAINER_OF(ev, struct tlp, ev);
    sim_link_deliver(t->link, t->link_side, t);
}

static void nvl_wake(struct sim *sim, struct sim_event *ev)
{
    struct nvl_dir *d = SIM_CONTAINER_OF(ev, struct nvl_dir, wake);
    d->refused = false;
    sim_link_ready(d->l, d->from);
}

/* Charge bytes to d's serialiser from `at`; returns the end, ps. */
static sim_time_t nvl_charge(struct nvl *n, struct nvl_dir *d,
                             uint64_t bytes, sim_time_t at)
{
    if (at > d->busy_until || d->period_bytes == 0) {
        d->period_start = at;
        d->period_bytes = 0;
    }
    d->period_bytes += bytes;
    d->busy_until = sim_time_add(d->period_start,
                                 sim_time_for_bytes(d->period_bytes, n->rate));
    return d->busy_until;
}

/*
 * Life of a packet sent from side s:
 *  1. transmit: refused (-SIM_EAGAIN) if the receive buffer at !s lacks
 *     room for the packet's bytes; otherwise the room is taken and the
 *     packet's flits are appended to s's serialiser, back to back after
 *     what it holds and not before the packet's not_before.
 *  2. arrival (the TLP's own event) at the end of its serialisation plus
 *     the latency: sim_link_deliver; the packet holds its buffer room.
 *  3. release (the receiver forwards or frees it): the room is free at
 *     once; a sender refused meanwhile is told (ready) after the latency,
 *     the flight time of the credit back.
 * Timing is exact over a busy period: end times are computed from the
 * bytes of the period, rounded to a picosecond once.
 */
static int nvl_transmit(struct sim_link *l, unsigned from, struct tlp *t)
{
    struct nvl *n = nvl_from(l);
    struct nvl_dir *d = &n->dir[from];
    uint32_t bytes = nvl_packet_bytes(t);
    if (d->held + bytes > n->buffer_bytes) {
        d->refused = true;
        n->cnt.buffer_stalls[from]++;
        return -SIM_EAGAIN;
    }
    sim_time_t now = sim_now(l->sim);
    sim_time_t at = t->not_before > now ? t->not_before : now;
    sim_time_t start = d->busy_until > at ? d->busy_until : at;
    sim_time_t end = nvl_charge(n, d, bytes, at);
    d->held += bytes;
    t->not_before = 0;
    n->cnt.packets[from]++;
    n->cnt.payload_bytes[from] += tlp_payload_bytes(t);
    n->cnt.wire_bytes[from] += bytes;
    n->cnt.busy_ps[from] += end - start;
    sim_event_init(&t->ev, nvl_arrive);
    sim_event_schedule_at(l->sim, &t->ev, sim_time_add(end, n->latency_ps));
    return 0;
}

static void nvl_release(struct sim_link *l, unsigned side, struct tlp *t)
{
    struct nvl *n = nvl_from(l);
    struct nvl_dir *d = &n->dir[!side];
    uint32_t bytes = nvl_packet_bytes(t);
    SIM_ASSERT(d->held >= bytes, "link '%s': side %u releases a packet it "
               "does not hold", l->name, side);
    d->held -= bytes;
    if (d->refused && !sim_event_is_pending(&d->wake)) {
        sim_event_schedule(l->sim, &d->wake, n->latency_ps);
    }
}

static int nvl_configure(struct sim_link *l, const struct sim_props *p,
                         struct sim_error *err)
{
    struct nvl *n = nvl_from(l);
    uint64_t v = 0;
    int rc = sim_props_get_u64(p, "generation", &v, NVL_GEN_MIN, NVL_GEN_MAX,
                               SIM_PROP_REQUIRED, err);
    if (rc < 0) {
        return rc;
    }
    n->gen = (unsigned)v;
    v = 1;
    rc = sim_props_get_u64(p, "links", &v, 1, NVL_MAX_LINKS, 0, err);
    if (rc < 0) {
        return rc;
    }
    n->links = (unsigned)v;
    n->link_rate = nvl_gen_link_rate(n->gen);
    rc = sim_props_get_rate(p, "link-rate", &n->link_rate, 0, err);
    if (rc < 0) {
        return rc;
    }
    if (n->link_rate == 0) {
        return sim_props_error(p, "link-rate", SIM_EINVAL, err,
                               "%s: link-rate must be more than 0 B/s",
                               p->owner);
    }
    n->latency_ps = NVL_DEF_LATENCY;
    rc = sim_props_get_time(p, "latency", &n->latency_ps, 0, err);
    if (rc < 0) {
        return rc;
    }
    uint64_t buf = (uint64_t)((double)n->link_rate * NVL_DEF_BUFFER_RTTS *
                              (double)n->latency_ps * 1e-12);
    if (buf < NVL_DEF_BUFFER_BYTES) {
        buf = NVL_DEF_BUFFER_BYTES;
    }
    rc = sim_props_get_size(p, "buffer", &buf, 0, err);
    if (rc < 0) {
        return rc;
    }
    if (buf < 2 * (NVL_MAX_PAYLOAD_BYTES + 2 * NVL_FLIT_BYTES)) {
        return sim_props_error(p, "buffer", SIM_EINVAL, err,
                               "%s: buffer: %llu B cannot hold two "
                               "packets of 256 B (at least 576B)",
                               p->owner, (unsigned long long)buf);
    }
    n->rate = n->link_rate * n->links;
    n->buffer_bytes = buf * n->links;
    for (unsigned s = 0; s < 2; s++) {
        n->dir[s].l = l;
        n->dir[s].from = s;
        sim_event_init(&n->dir[s].wake, nvl_wake);
    }
    return 0;
}

static void nvl_report(const struct sim_link *l, struct sim_stats *out)
{
    const struct nvl *n = nvl_from(l);
    static const char *const what[] = { "packets", "payload_bytes",
                                        "wire_bytes", "buffer_stalls",
                                        "busy_ps" };
    for (unsigned s = 0; s < 2; s++) {
        const uint64_t v[] = { n->cnt.packets[s], n->cnt.payload_bytes[s],
                               n->cnt.wire_bytes[s], n->cnt.buffer_stalls[s],
                               n->cnt.busy_ps[s] };
        for (unsigned i = 0; i < 5; i++) {
            sim_stats_addf(out, v[i], "%s.from%u.%s", l->name, s, what[i]);
        }
    }
}

static void nvl_destroy(struct sim_link *l)
{
    struct nvl *n = nvl_from(l);
    for (unsigned s = 0; s < 2; s++) {
        if (n->dir[s].l) {
            sim_event_cancel(l->sim, &n->dir[s].wake);
        }
    }
}

/* ---- queries (nvlink.h) ------------------------------------------------- */

unsigned nvl_link_links(const struct sim_link *l)
{
    return nvl_from(l)->links;
}

unsigned nvl_link_generation(const struct sim_link *l)
{
    return nvl_from(l)->gen;
}

uint64_t nvl_link_rate(const struct sim_link *l)
{
    return nvl_from(l)->rate;
}

sim_time_t nvl_link_latency(const struct sim_link *l)
{
    return nvl_from(l)->latency_ps;
}

sim_time_t nvl_link_bytes_time(const struct sim_link *l, uint64_t bytes)
{
    return sim_time_for_bytes(bytes, nvl_from(l)->rate);
}

void nvl_link_get_counters(const struct sim_link *l,
                           struct nvl_link_counters *out)
{
    *out = nvl_from(l)->cnt;
}

/* ---- registration ------------------------------------------------------- */

const struct sim_link_ops nvl_link_ops = {
    .kind = "nvlink",
    .state_size = sizeof(struct nvl),
    .configure = nvl_configure,
    .transmit = nvl_transmit,
    .release = nvl_release,
    .report = nvl_report,
    .destroy = nvl_destroy,
};
