/*
 * machine/flow_plan.c - what one copy-engine operation costs in the flow
 * fidelity: the routes of its TLPs, the share of every shared resource
 * it takes per payload byte, its own bound, and its fixed latencies.
 * Every figure comes from the models' own functions: the switches and
 * root complexes route (machine/route.h), the links price TLPs and DLLPs
 * (pcie_link_tlp_bytes, pcie_link_dllp_bytes, socket_link_tlp_bytes), the
 * completers split reads (pcie_cpl_split_bytes), and the completers
 * (their rows, machine/kinds.h) and root complexes give their configured
 * rates and latencies.
 *
 * The TLPs an operation sends are cut as the copy engine cuts them (at
 * most MPS or MRRS bytes, never across a 4 KiB boundary; copy_engine.c)
 * and grouped into a few shapes (length, DW offset, header size) with
 * their counts, so a 64 MiB copy costs a handful of queries, not 2^18.
 *
 * The three directions of models/gpu/copy_engine.c (PUSH, PULL, LOCAL)
 * are planned at plan_push, plan_pull and flow__plan.
 *
 * Model: a flow's latencies are those of an idle machine: queueing behind
 * other traffic shows only as the shared rates, not as extra latency.
 * Model: a translating IOMMU checks the operation's range page by page
 * when its setup ends (so the IOTLB ends as the TLP fidelity leaves it);
 * the cost of the first read's page (PULL) or the last write's (PUSH)
 * joins the fixed latency, the others being hidden by the stream as in
 * the TLP fidelity, and a fault fails the whole operation, where the TLP
 * fidelity would fail only the TLPs to unmapped pages.
 * Model: the UpdateFC coalescing behind a busy transmitter and the credit
 * round trip are estimates (pcie_link_dllp_bytes, pcie_link_credit_rtt);
 * with link latencies of microseconds, both ways at once, they put the
 * flow fidelity up to 3% above the TLP one.
 */
#include <config.h>

#include "machine/flow_int.h"
#include "machine/kinds.h"

#include <string.h>

#include "models/gpu/gpu.h"
#include "models/host/hostmem.h"
#include "models/host/socket_link.h"
#include "models/nvlink/nvlink.h"
#include "models/pcie/link.h"
#include "models/pcie/pcie.h"
#include "models/pcie/rc.h"
#include "models/pcie/switch.h"
#include "machine/route.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/tlp.h"

/* The 4 KiB boundary no memory request crosses (PCIe r6.0 §2.2.7). */
#define PLAN_BOUNDARY 4096u
#define PLAN_MAX_SHAPES 16u
/* Ways out of a GPU: "pcie" or up to 18 NVLink ports (NVLink 4/5). */
#define PLAN_MAX_WAYS 32u

/* ---- shapes: the TLPs of a transfer, grouped ----------------------------- */

struct shape {
    uint64_t addr;              /* a representative address */
    uint32_t len;               /* bytes */
    uint64_t count;
};

struct shapes {
    struct shape s[PLAN_MAX_SHAPES];
    unsigned n;
    uint64_t total;             /* TLPs */
    uint64_t last_addr;         /* the last TLP of the transfer */
    uint32_t last_len;
};

/* TLPs whose wire size can differ: length, DW offset, 3DW/4DW header. */
static bool shape_same(const struct shape *s, uint64_t addr, uint32_t len)
{
    return s->len == len && (s->addr & 3) == (addr & 3) &&
           (s->addr > UINT32_MAX) == (addr > UINT32_MAX);
}

static void shapes_add(struct shapes *S, uint64_t addr, uint32_t len,
                       uint64_t count)
{
    S->total += count;
    S->last_addr = addr;
    S->last_len = len;
    for (unsigned i = 0; i < S->n; i++) {
        if (shape_same(&S->s[i], addr, len)) {
            S->s[i].count += count;
            return;
        }
    }
    if (S->n == PLAN_MAX_SHAPES) {
        /* Model: past 16 shapes (not seen: a transfer has at most 5),
         * the rest are charged as the last one. */
        S->s[S->n - 1].count += count;
        return;
    }
    S->s[S->n++] = (struct shape){ addr, len, count };
}

/*
 * Cut [addr, addr + len) as the copy engine does (ce_chunk): at most max
 * bytes, never across a 4 KiB boundary. Whole aligned pages in the middle
 * are counted at once: max is a power of two of at most 4 KiB, so each
 * holds 4096 / max equal TLPs. The last page is cut one by one, so the
 * transfer's last TLP is known.
 */
static void shapes_cut(struct shapes *S, uint64_t addr, uint64_t len,
                       uint32_t max)
{
    memset(S, 0, sizeof(*S));
    while (len > 0) {
        uint64_t in_page = addr & (PLAN_BOUNDARY - 1);
        if (in_page == 0 && len > PLAN_BOUNDARY && max <= PLAN_BOUNDARY) {
            uint64_t pages = (len - 1) / PLAN_BOUNDARY;
            shapes_add(S, addr, max, pages * (PLAN_BOUNDARY / max));
            addr += pages * PLAN_BOUNDARY;
            len -= pages * PLAN_BOUNDARY;
            continue;
        }
        uint64_t n = PLAN_BOUNDARY - in_page;
        if (n > max) {
            n = max;
        }
        if (n > len) {
            n = len;
        }
        shapes_add(S, addr, (uint32_t)n, 1);
        addr += n;
        len -= n;
    }
}

/* The completions a completer splitting at (mps, rcb) answers reads with. */
static void shapes_complete(struct shapes *C, const struct shapes *reads,
                            unsigned mps, unsigned rcb)
{
    memset(C, 0, sizeof(*C));
    for (unsigned i = 0; i < reads->n; i++) {
        const struct shape *r = &reads->s[i];
        uint64_t end = r->addr + r->len;
        for (uint64_t pos = r->addr; pos < end;) {
            uint32_t n = pcie_cpl_split_bytes(pos, end, mps, rcb);
            /* a completion's header is 3DW whatever the address: keep the
             * low bits only (Lower Address) */
            shapes_add(C, pos & 0x7f, n, r->count);
            pos += n;
        }
    }
}

/* ---- TLPs on the stack --------------------------------------------------- */

static void tlp_request(struct tlp *t, enum tlp_kind k, uint16_t rid,
                        uint64_t addr, uint32_t len)
{
    route_tlp_init(t, k);
    t->requester_id = rid;
    t->addr = addr;
    t->len_bytes = len;
}

static void tlp_completion(struct tlp *t, uint16_t rid, uint64_t addr,
                           uint32_t len)
{
    route_tlp_init(t, len ? TLP_CPLD : TLP_CPL);
    t->requester_id = rid;
    t->lower_addr = (uint16_t)(addr & 0x7f);
    t->len_bytes = len;
    t->byte_count = len;
}

/* A TLP of shape s: a request of kind k, or a completion if k is CplD. */
static void tlp_of_shape(struct tlp *t, enum tlp_kind k, uint16_t rid,
                         const struct shape *s)
{
    if (k == TLP_CPLD) {
        tlp_completion(t, rid, s->addr, s->len);
    } else {
        tlp_request(t, k, rid, s->addr, s->len);
    }
}

/* ---- what a hop charges -------------------------------------------------- */

/* Bytes t occupies on the hop's link (0: a link that charges nothing). */
static uint64_t hop_bytes(const struct route_hop *h, const struct tlp *t)
{
    const struct sim_link *l = h->link;
    if (l->ops == &pcie_link_ops) {
        return pcie_link_tlp_bytes(l, t);
    }
    if (l->ops == &socket_link_ops) {
        return socket_link_tlp_bytes(t);
    }
    if (l->ops == &nvl_link_ops) {
        return nvl_packet_bytes(t);
    }
    sim_time_t lat;
    uint64_t rate;
    sim_wire_get(l, &lat, &rate);
    return rate ? tlp_header_bytes(t) + tlp_payload_bytes(t) : 0;
}

/* The link's latency and rate per direction (bytes/s, 0: unlimited). */
static void hop_link(const struct route_hop *h, sim_time_t *lat,
                     uint64_t *rate)
{
    const struct sim_link *l = h->link;
    if (l->ops == &pcie_link_ops) {
        *lat = pcie_link_latency(l);
        *rate = pcie_link_rate(l);
    } else if (l->ops == &socket_link_ops) {
        *lat = socket_link_latency(l);
        *rate = socket_link_rate(l);
    } else if (l->ops == &nvl_link_ops) {
        *lat = nvl_link_latency(l);
        *rate = nvl_link_rate(l);
    } else {
        sim_wire_get(l, lat, rate);
    }
}

static uint64_t hop_rate(const struct route_hop *h)
{
    sim_time_t lat;
    uint64_t rate;
    hop_link(h, &lat, &rate);
    return rate;
}

static sim_time_t hop_link_latency(const struct route_hop *h)
{
    sim_time_t lat;
    uint64_t rate;
    hop_link(h, &lat, &rate);
    return lat;
}

/* Serialising t on the hop's link. */
static sim_time_t hop_ser(const struct route_hop *h, const struct tlp *t)
{
    if (h->link->ops == &pcie_link_ops) {
        return pcie_link_bytes_time(h->link, pcie_link_tlp_bytes(h->link, t));
    }
    return sim_time_for_bytes(hop_bytes(h, t), hop_rate(h));
}

/*
 * One TLP's way along r on an idle machine: at every hop its
 * serialisation and the link's latency, then the forwarding latency of
 * the component it reaches (and on a P2P path the P2P serialiser).
 */
static sim_time_t one_way(const struct route *r, const struct tlp *t)
{
    sim_time_t sum = 0;
    for (unsigned i = 0; i < r->n_hops; i++) {
        const struct route_hop *h = &r->hop[i];
        sum = sim_time_add(sum, hop_ser(h, t) + hop_link_latency(h));
        if (h->to != r->dest) {
            sum = sim_time_add(sum, h->fwd_latency_ps);
        }
        if (h->p2p) {
            sum = sim_time_add(sum, sim_time_for_bytes(rc_p2p_bytes(t),
                                                       h->p2p_rate) +
                                        h->p2p_latency_ps);
        } else if (h->xs) {
            sum = sim_time_add(sum, sim_time_for_bytes(rc_p2p_bytes(t),
                                                       h->xs_rate));
        }
    }
    return sum;
}

/* The largest serialisation of t along r (the pace of a train of them). */
static sim_time_t slowest_ser(const struct route *r, const struct tlp *t)
{
    sim_time_t max = 0;
    for (unsigned i = 0; i < r->n_hops; i++) {
        sim_time_t s = hop_ser(&r->hop[i], t);
        max = s > max ? s : max;
    }
    return max;
}

/* ---- charging routes ----------------------------------------------------- */

/* Where a use lies on the data's route, and its kind (struct flow_use). */
struct at {
    int pos;
    bool hol;
    bool overhead;
};
static const struct at off_route = { -1, false, false };

/* Add coef units per payload byte of resource (owner, kind), at w. */
static void use_at(struct p2psim_flow *f, struct flow_plan *pl,
                   const void *owner, unsigned kind, double cap,
                   double coef, struct at w)
{
    if (cap <= 0 || coef <= 0) {
        return;                 /* unlimited, or not used */
    }
    int r = flow__res(f, owner, kind, cap);
    if (r < 0) {
        return;                 /* out of memory: the simulation has failed */
    }
    for (unsigned i = 0; i < pl->n_use; i++) {
        struct flow_use *u = &pl->use[i];
        if (u->res == (unsigned)r) {
            u->coef += coef;
            u->pos = u->pos < 0 || (w.pos >= 0 && w.pos < u->pos) ? w.pos
                                                                 : u->pos;
            u->hol = u->hol || w.hol;
            u->overhead = u->overhead && w.overhead;
            return;
        }
    }
    if (SIM_ALWAYS(pl->n_use < FLOW_MAX_USES)) {
        pl->use[pl->n_use++] = (struct flow_use){ (unsigned)r, coef, w.pos,
                                                  w.hol, w.overhead };
    }
}

static void use(struct p2psim_flow *f, struct flow_plan *pl,
                const void *owner, unsigned kind, double cap, double coef)
{
    use_at(f, pl, owner, kind, cap, coef, off_route);
}

/*
 * How long the component at the end of hop h keeps t's receive buffer: a
 * root complex keeps a TLP that waits in it (on the P2P path: its
 * latency, the P2P serialiser and p2p-latency; on a limited cross-socket
 * P2P path: its latency and that serialiser; rc.c) and forwards any
 * other at once; switches and endpoints free it as it arrives.
 */
static sim_time_t credit_hold(const struct route_hop *h, const struct tlp *t)
{
    if (h->xs && h->xs_rate) {
        return h->fwd_latency_ps +
               sim_time_for_bytes(rc_p2p_bytes(t), h->xs_rate);
    }
    if (!h->p2p) {
        return 0;
    }
    return h->fwd_latency_ps + h->p2p_latency_ps +
           sim_time_for_bytes(rc_p2p_bytes(t), h->p2p_rate);
}

/*
 * The receiver's credits on PCIe hop h, a resource of as many units as it
 * advertised: a TLP holds a header credit, and a data credit per 16 bytes
 * of payload (pcie_tlp_data_credits), for its credit round trip
 * (pcie_link_credit_rtt), so a flow holds rate x round trip of them
 * (Little's law) per kind.
 */
static void charge_credits(struct p2psim_flow *f, struct flow_plan *pl,
                           const struct route_hop *h, const struct shapes *S,
                           enum tlp_kind k, uint16_t rid, uint64_t len,
                           struct at w)
{
    enum tlp_fc_class c = tlp_kind_fc_class(k);
    uint64_t hdr_cap, data_cap;
    pcie_link_credits(h->link, h->from, c, &hdr_cap, &data_cap);
    double hdr = 0, data = 0;
    struct tlp t;
    for (unsigned j = 0; j < S->n; j++) {
        tlp_of_shape(&t, k, rid, &S->s[j]);
        double rtt_s = (double)pcie_link_credit_rtt(h->link, &t,
                                                    credit_hold(h, &t)) *
                       1e-12;
        hdr += (double)S->s[j].count * rtt_s;
        data += (double)S->s[j].count * 16.0 * pcie_tlp_data_credits(&t) *
                rtt_s;
    }
    unsigned base = FLOW_RES_CREDIT + (h->from * TLP_FC_COUNT + c) * 2;
    use_at(f, pl, h->link, base, (double)hdr_cap, hdr / len, w);
    use_at(f, pl, h->link, base + 1, (double)data_cap, data / len, w);
}

/* Does the component a hop leads to forward TLPs (from shared buffers)? */
static bool hop_forwards(const struct route_hop *h)
{
    const struct mkind *mk = mkind_of(h->to);
    return mk && mk->role != MKIND_ENDPOINT;
}

/*
 * Charge the TLPs S (of kind k, from requester rid) to every hop of r,
 * per payload byte of a transfer of len bytes. partner: the completions
 * that answer them (reads), whose bytes on the reverse direction space
 * their arrivals (pcie_link_dllp_bytes); NULL: they space themselves.
 * data: r is the route the data takes (struct flow_use, pos and hol).
 */
static void charge(struct p2psim_flow *f, struct flow_plan *pl,
                   const struct route *r, const struct shapes *S,
                   enum tlp_kind k, uint16_t rid, const struct shapes *partner,
                   uint64_t len, bool data)
{
    for (unsigned i = 0; i < r->n_hops; i++) {
        const struct route_hop *h = &r->hop[i];
        /* On the data's route: where, and the links' buffers; off it (the
         * requests of a pull), and on the reverse direction (DLLPs): an
         * overhead that comes along. */
        struct at link = { -1, false, true }, rc = link, credit = link;
        struct at back = { data ? 2 * (int)i : -1, false, true };
        if (data) {
            link = (struct at){ 2 * (int)i, hop_forwards(h), false };
            credit = (struct at){ 2 * (int)i, false, false };
            rc = (struct at){ 2 * (int)i + 1, false, false };
        }
        double fwd = 0, back_bytes = 0, p2p = 0, partner_bytes = 0;
        struct tlp t;
        for (unsigned j = 0; partner && j < partner->n; j++) {
            tlp_of_shape(&t, TLP_CPLD, rid, &partner->s[j]);
            partner_bytes += (double)partner->s[j].count * hop_bytes(h, &t);
        }
        for (unsigned j = 0; j < S->n; j++) {
            const struct shape *s = &S->s[j];
            tlp_of_shape(&t, k, rid, s);
            double bytes = (double)hop_bytes(h, &t);
            fwd += s->count * bytes;
            p2p += (double)s->count * rc_p2p_bytes(&t);
            if (h->link->ops == &pcie_link_ops) {
                double gap = partner ? partner_bytes / (double)S->total
                                     : bytes;
                back_bytes += s->count *
                              pcie_link_dllp_bytes(h->link, h->from, &t, gap);
            }
        }
        if (h->link->ops == &pcie_link_ops) {
            charge_credits(f, pl, h, S, k, rid, len, credit);
        }
        double rate = (double)hop_rate(h);
        use_at(f, pl, h->link, h->from ? FLOW_RES_LINK_FROM_1
                                       : FLOW_RES_LINK_FROM_0, rate,
               fwd / len, link);
        use_at(f, pl, h->link, h->from ? FLOW_RES_LINK_FROM_0
                                       : FLOW_RES_LINK_FROM_1, rate,
               back_bytes / len, back);
        if (h->p2p) {
            use_at(f, pl, h->to, FLOW_RES_P2P, (double)h->p2p_rate, p2p / len,
                   rc);
        } else if (h->xs) {
            use_at(f, pl, h->to, FLOW_RES_XS_P2P, (double)h->xs_rate,
                   p2p / len, rc);
        }
    }
}

/* ---- the completers ------------------------------------------------------ */

/* A completer's timing: its store's rate and latency, its split sizes;
 * kind: what its row says it completes (machine/kinds.h), NULL: nothing. */
struct completer {
    struct sim_component *c;
    const struct mkind_completer *kind;
    sim_time_t latency_ps;
    uint64_t rate;
    unsigned mps, rcb;
};

static void completer_of(struct sim_component *c, struct completer *out)
{
    memset(out, 0, sizeof(*out));
    out->c = c;
    const struct mkind *mk = mkind_of(c);
    if (mk && mk->completer) {
        struct mkind_timing t;
        mk->completer->timing(c, &t);
        out->kind = mk->completer;
        out->latency_ps = t.latency_ps;
        out->rate = t.rate;
        out->mps = t.mps;
        out->rcb = t.rcb;
    }
}

/* What a zero-length read (a flush) returns from c. */
static uint32_t completer_flush_bytes(const struct completer *c)
{
    return c->kind ? c->kind->flush_bytes : 0;
}

/*
 * From a read of len bytes arriving to its first completion leaving: the
 * store's serialiser and latency. A zero-length read (a flush) is charged
 * what it returns (a GPU: one DW).
 */
static sim_time_t completer_access(const struct completer *c, uint32_t len)
{
    if (len == 0) {
        len = completer_flush_bytes(c);
    }
    return sim_time_add(c->latency_ps, sim_time_for_bytes(len, c->rate));
}

/* The completer's store: read or written once per payload byte. */
static void charge_completer(struct p2psim_flow *f, struct flow_plan *pl,
                             const struct completer *c, bool read)
{
    if (!c->kind || (!read && !c->kind->charge_writes)) {
        return;
    }
    use(f, pl, c->c, c->kind->store == MKIND_STORE_HBM ? FLOW_RES_HBM
                                                       : FLOW_RES_DRAM,
        (double)c->rate, 1.0);
}

/*
 * The IOMMUs on r check a stream of TLPs like t covering [addr, addr +
 * len), page by page as they would check its TLPs (rc_iommu_range), so
 * the IOTLB ends as the TLP fidelity leaves it. *first_ps and *last_ps
 * get the cost of the first and the last page. A refusal cuts r at that
 * root complex, as route_trace cuts a refused route: -SIM_EIO.
 */
static int translate(struct route *r, const struct tlp *t, uint64_t addr,
                     uint64_t len, sim_time_t *first_ps, sim_time_t *last_ps)
{
    *first_ps = *last_ps = 0;
    for (unsigned i = 0; i < r->n_hops; i++) {
        struct route_hop *h = &r->hop[i];
        sim_time_t a, b;
        if (!mkind_is(h->to, MKIND_ROOT_COMPLEX)) {
            continue;
        }
        if (rc_iommu_range(h->to, h->in->index, t, addr, len, &a, &b) < 0) {
            h->fwd_latency_ps = sim_time_add(h->fwd_latency_ps, b);
            h->p2p = false;     /* refused before the P2P stage */
            r->n_hops = i + 1;
            r->dest = NULL;
            r->dest_port = NULL;
            r->refused_at = h->to;
            r->why = "iommu fault";
            return -SIM_EIO;
        }
        *first_ps = sim_time_add(*first_ps, a);
        *last_ps = sim_time_add(*last_ps, b);
    }
    return 0;
}

/* ---- the three directions ------------------------------------------------ */

/* Out to where r was refused, a decision there, and the answer (UR) back
 * as far: the refusing component's latency counts once. */
static sim_time_t refusal_round_trip(const struct route *r,
                                     const struct tlp *t)
{
    sim_time_t way = one_way(r, t);
    sim_time_t at = r->n_hops ? r->hop[r->n_hops - 1].fwd_latency_ps : 0;
    return sim_time_add(way, way - at);
}

/* A refused stream: its TLPs cross the hops up to the refusal, and the
 * answer (UR, or nothing for writes) comes back as far. */
static void plan_refused(struct p2psim_flow *f, struct flow_plan *pl,
                         const struct route *r, const struct shapes *S,
                         enum tlp_kind k, uint16_t rid, uint64_t len)
{
    struct tlp t;
    tlp_request(&t, k, rid, S->last_addr, S->last_len);
    charge(f, pl, r, S, k, rid, NULL, len, true);
    pl->tail_ps = refusal_round_trip(r, &t);
}

/*
 * The ports a transfer to addr leaves g by (gpu_route_ports: "pcie", or
 * the NVLink ports that reach addr) and the share of it each carries: the
 * GPU spreads its TLPs over them by their bonded links (nvlink_port.c).
 */
struct ways {
    struct sim_port *port[PLAN_MAX_WAYS];
    unsigned weight[PLAN_MAX_WAYS];
    unsigned n, sum;
};

static void ways_of(const struct sim_component *g, uint64_t addr,
                    struct ways *w)
{
    w->n = gpu_route_ports(g, addr, w->port, w->weight, PLAN_MAX_WAYS);
    w->sum = 0;
    for (unsigned i = 0; i < w->n; i++) {
        w->sum += w->weight[i];
    }
}

/* Charging a share of len bytes is charging len / share per payload
 * byte of the whole: the length charge() divides by. */
static uint64_t share_len(const struct ways *w, unsigned i, uint64_t len)
{
    return (uint64_t)((double)len * w->sum / w->weight[i] + 0.5);
}

/*
 * PUSH: an MWr stream to a bus address; each link direction on the MWr
 * route carries their wire bytes, the opposite direction the DLLPs its
 * receiver returns, the receiver's posted credits are held for a credit
 * round trip, a root complex's P2P serialiser carries header + payload,
 * host memory its channel bytes. Fixed costs: the last write's one-way
 * latency, then the flushing read (unless no_flush): its completer's
 * access and the completion's way back.
 */
static int plan_push(struct p2psim_flow *f, struct sim_component *g,
                     const struct gpu_dma *op, const struct gpu_params *gp,
                     struct flow_plan *pl)
{
    struct ways ways;
    ways_of(g, op->remote_addr, &ways);
    struct sim_port *port = ways.port[0];
    uint16_t rid = gpu_pcie_id(g);
    struct shapes W;
    shapes_cut(&W, op->remote_addr, op->len_bytes, op->mps ? op->mps : gp->mps);
    pl->tlps = W.total + !op->no_flush;
    struct tlp w;
    tlp_request(&w, TLP_MWR, rid, W.last_addr, W.last_len);
    struct route rw;
    sim_time_t first, last;
    if (route_trace(port, &w, false, &rw) < 0 ||
        translate(&rw, &w, op->remote_addr, op->len_bytes, &first, &last) < 0) {
        /* The writes are dropped where refused; only the flush can tell. */
        pl->status = op->no_flush ? 0 : -SIM_EIO;
        plan_refused(f, pl, &rw, &W, TLP_MWR, rid, op->len_bytes);
        return 0;
    }
    struct completer dst;
    completer_of(rw.dest, &dst);
    pl->remote = rw.dest;
    pl->move = true;
    for (unsigned i = 0; i < ways.n; i++) {
        struct route ri;
        if (i > 0 && route_trace(ways.port[i], &w, false, &ri) < 0) {
            continue;           /* Model: a refused way carries nothing */
        }
        charge(f, pl, i ? &ri : &rw, &W, TLP_MWR, rid, NULL,
               share_len(&ways, i, op->len_bytes), true);
    }
    charge_completer(f, pl, &dst, false);
    if (op->no_flush) {
        return 0;               /* done when the last write leaves */
    }
    (void)first;                /* the stream's latency hides it */
    /* The flush: behind the last write, answered, and back. */
    struct tlp rd, cpl;
    uint64_t last_dw = (op->remote_addr + op->len_bytes - 1) & ~UINT64_C(3);
    tlp_request(&rd, TLP_MRD, rid, last_dw, 0);
    struct route rr, rc;
    pl->tail_ps = one_way(&rw, &w) + last;
    if (route_trace(port, &rd, true, &rr) < 0) {
        pl->status = -SIM_EIO;
        pl->tail_ps = refusal_round_trip(&rr, &rd);
        return 0;
    }
    tlp_completion(&cpl, rid, last_dw, completer_flush_bytes(&dst));
    if (route_trace(rr.dest_port, &cpl, false, &rc) < 0) {
        pl->status = -SIM_EIO;
    }
    sim_time_t back = completer_access(&dst, 0) + one_way(&rc, &cpl);
    pl->tail_ps = sim_time_add(pl->tail_ps,
                               hop_ser(&rr.hop[rr.n_hops - 1], &rd) + back);
    return 0;
}

/*
 * PULL: an MRd stream out, a CplD stream back: both routes charged (and
 * their credits, non-posted and completion), the completer (host memory
 * channel, or the peer's HBM) the bytes read. Its own bound: tags x bytes
 * per read / round trip (the engine's outstanding-read limit); the GPU's
 * tag space is a shared resource. Fixed costs: the first read's way out
 * and access; the last completion's way back.
 */
static int plan_pull(struct p2psim_flow *f, struct sim_component *g,
                     const struct gpu_dma *op, const struct gpu_params *gp,
                     struct flow_plan *pl)
{
    struct ways ways;
    ways_of(g, op->remote_addr, &ways);
    struct sim_port *port = ways.port[0];
    uint16_t rid = gpu_pcie_id(g);
    struct shapes R, C;
    shapes_cut(&R, op->remote_addr, op->len_bytes,
               op->mrrs ? op->mrrs : gp->mrrs);
    pl->tlps = R.total;
    struct tlp rd, cpl;
    tlp_request(&rd, TLP_MRD, rid, R.s[0].addr, R.s[0].len);
    struct route rr, rc;
    sim_time_t first, last;
    if (route_trace(port, &rd, false, &rr) < 0 ||
        translate(&rr, &rd, op->remote_addr, op->len_bytes, &first,
                  &last) < 0) {
        /* Model: the first read's UR stops the engine (ce_error). */
        pl->status = -SIM_EIO;
        pl->fluid = false;
        pl->head_ps = refusal_round_trip(&rr, &rd);
        return 0;
    }
    struct completer src;
    completer_of(rr.dest, &src);
    shapes_complete(&C, &R, src.mps, src.rcb);
    tlp_completion(&cpl, rid, C.s[0].addr, C.s[0].len);
    if (route_trace(rr.dest_port, &cpl, false, &rc) < 0) {
        pl->status = -SIM_EIO;
        pl->fluid = false;
        pl->head_ps = refusal_round_trip(&rr, &rd);
        return 0;
    }
    pl->remote = rr.dest;
    pl->move = true;
    for (unsigned i = 0; i < ways.n; i++) {
        struct route ri, ci;
        if (i > 0 && (route_trace(ways.port[i], &rd, false, &ri) < 0 ||
                      route_trace(ri.dest_port, &cpl, false, &ci) < 0)) {
            continue;           /* Model: a refused way carries nothing */
        }
        uint64_t len = share_len(&ways, i, op->len_bytes);
        charge(f, pl, i ? &ri : &rr, &R, TLP_MRD, rid, &C, len, false);
        charge(f, pl, i ? &ci : &rc, &C, TLP_CPLD, rid, NULL, len, true);
    }
    charge_completer(f, pl, &src, true);
    sim_time_t out = one_way(&rr, &rd) + first +
                     completer_access(&src, rd.len_bytes);
    pl->head_ps = out;
    struct tlp end;
    tlp_completion(&end, rid, C.last_addr, C.last_len);
    pl->tail_ps = one_way(&rc, &end);
    (void)last;                 /* hidden by the reads outstanding */
    /* Outstanding reads: tags per engine (its own bound, on PCIe; reads
     * over NVLink are not held to it, models/gpu/copy_engine.c) and the
     * GPU's tag space (shared by its engines), over one read's round trip. */
    double per_read = (double)op->len_bytes / (double)R.total;
    double cpl_per_read = (double)C.total / (double)R.total;
    sim_time_t rtt = out + one_way(&rc, &cpl) +
                     (sim_time_t)((cpl_per_read - 1) * slowest_ser(&rc, &cpl));
    double rtt_s = (double)rtt * 1e-12;
    if (rtt_s > 0) {
        if (port == sim_port_find(g, "pcie")) {
            pl->cap = gp->tags_per_ce * per_read / rtt_s;
        }
        use(f, pl, g, FLOW_RES_TAGS, (double)gp->tag_space, rtt_s / per_read);
    }
    return 0;
}

int flow__plan(struct p2psim_flow *f, struct sim_component *g,
               const struct gpu_dma *op, struct flow_plan *pl)
{
    struct gpu_params gp;
    gpu_get_params(g, &gp);
    memset(pl, 0, sizeof(*pl));
    pl->fluid = true;
    switch (op->dir) {
    case GPU_DMA_PUSH:
        return plan_push(f, g, op, &gp, pl);
    case GPU_DMA_PULL:
        return plan_pull(f, g, op, &gp, pl);
    case GPU_DMA_LOCAL:
        break;
    }
    /* LOCAL: read and write both cross the L2 (its serialiser, twice the
     * length), and what it misses or writes back the one HBM serialiser
     * (gpu_local_copy_hbm: twice the length without an L2 model); then
     * the HBM latency (models/gpu/copy_engine.c, l2.c). */
    double len = (double)op->len_bytes;
    double hbm = (double)gpu_local_copy_hbm(g, op->remote_addr,
                                            op->local_addr, op->len_bytes);
    if (gp.l2_bytes_per_s) {
        use(f, pl, g, FLOW_RES_L2, (double)gp.l2_bytes_per_s, 2.0);
    }
    if (hbm > 0) {
        use(f, pl, g, FLOW_RES_HBM, (double)gp.hbm_bytes_per_s, hbm / len);
    }
    pl->tail_ps = gp.hbm_latency_ps;
    pl->move = true;
    return 0;
}
