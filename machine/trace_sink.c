/*
 * machine/trace_sink.c - the one place where trace points (sim/trace.h)
 * become trace records (traces/format.h): the trace of what crossed the
 * fabric, the event log and the counters (machine/trace_sink.h).
 *
 * TLPs: the sink takes the core's two hooks in the TLP path, which every
 * link and every model's packets pass (sim_port_send emits TLP_TX,
 * sim_link_deliver TLP_RX), so PCIe, NVLink or any later model is traced
 * without hooks of its own. At TLP_TX it remembers when the TLP entered
 * the link (a small hash table by TLP id); at TLP_RX it writes one HOP
 * record: the link direction, when the TLP entered it at the sending port
 * and when it was delivered at the receiving one. Between two hops the
 * TLP sits in a component (a root complex's decision stage, a completer's
 * memory access); a forwarding delay that a model hands to the link
 * (tlp.not_before, a switch's latency) is inside the next hop.
 *
 * Operations: one OP record per copy-engine operation (CE_OP), in either
 * fidelity; in the flow fidelity that is the whole trace (no TLPs exist).
 *
 * Events: BAR1 map/unmap, IOMMU faults, dropped TLPs, credit stalls from
 * a threshold on (one record per stall, when it first passes the
 * threshold), completion timeouts and link replays.
 *
 * Counters: sampled lazily, at the first record after each period
 * boundary ("counters", below).
 */
#include <config.h>

#include "machine/trace_sink.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/links.h"
#include "machine/p2psim.h"
#include "machine/p2psim_int.h"
#include "machine/fabric.h"
#include "machine/kinds.h"
#include "models/gpu/gpu.h"
#include "models/nvme/nvme.h"
#include "models/pcie/link.h"
#include "machine/topology.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/sim.h"
#include "sim/tlp.h"
#include "sim/trace.h"
#include "sim/units.h"
#include "traces/format.h"

/* When a TLP entered its current link (open addressing, by id). */
struct ts_slot {
    uint64_t id;                /* TLP id + 1; 0: empty */
    sim_time_t t_in;
};

/* A credit stall already logged: its link, class and start. */
struct ts_stall {
    const char *link;
    uint64_t fc_class;
    sim_time_t since;
};

#define TS_STALLS 64

/* A link direction's names, made once: "a.p", "b.q", "a.p>b.q". */
struct ts_dir {
    bool made;
    char from[TRACE_NAME_LEN], to[TRACE_NAME_LEN], track[TRACE_NAME_LEN];
};

/*
 * The GPUs at the ends of a TLP, found at its first traced hop and kept
 * for the others (direct-mapped by TLP id; a TLP whose slot was taken by
 * another is looked up again). The lookup walks every GPU's BAR1 windows;
 * a TLP crosses several links with the same address.
 */
struct ts_ends {
    uint64_t id;                /* TLP id + 1; 0: empty */
    const char *src, *dst;
};

#define TS_ENDS 1024u

struct p2psim_trace {
    struct p2psim *p;
    struct sim *sim;
    struct trace_writer *w;
    char path[512];
    struct trace_filter filter;
    FILE *events;
    sim_time_t stall_ps;
    struct ts_stall stall[TS_STALLS];
    unsigned n_stall;
    FILE *counters;
    sim_time_t period_ps, next_sample, last_sample;
    sim_time_t *busy_prev;      /* [link][side] at the last sample */
    struct ts_slot *slot;
    size_t n_slot, cap_slot;    /* cap: a power of two */
    struct ts_dir *dir;         /* [link id * 2 + side], made on first use */
    uint32_t n_dir;
    struct ts_ends ends[TS_ENDS];
    uint64_t n_ops;
    bool failed;
    bool nomem;                 /* it failed for want of memory */
};

/*
 * A record could not be kept. Out of memory (nomem) inside the run fails
 * the simulation (sim/error.h, "Out of memory"); a write error is said
 * when the trace stops.
 */
static void ts_fail(struct p2psim_trace *tr, bool nomem, const char *what)
{
    tr->failed = true;
    if (nomem) {
        tr->nomem = true;
        sim_fail_nomem(tr->sim, "the trace", "%s", what);
    }
}

/* ---- TLP entry times ------------------------------------------------------- */

static size_t slot_hash(uint64_t key, size_t cap)
{
    return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 17) & (cap - 1);
}

static int slot_grow(struct p2psim_trace *tr)
{
    size_t cap = tr->cap_slot ? 2 * tr->cap_slot : 1024;
    struct ts_slot *s = calloc(cap, sizeof(*s));
    if (!s) {
        return -1;
    }
    for (size_t i = 0; i < tr->cap_slot; i++) {
        if (tr->slot[i].id) {
            size_t k = slot_hash(tr->slot[i].id, cap);
            while (s[k].id) {
                k = (k + 1) & (cap - 1);
            }
            s[k] = tr->slot[i];
        }
    }
    free(tr->slot);
    tr->slot = s;
    tr->cap_slot = cap;
    return 0;
}

static void slot_put(struct p2psim_trace *tr, uint64_t id, sim_time_t t)
{
    if (2 * (tr->n_slot + 1) > tr->cap_slot && slot_grow(tr) < 0) {
        ts_fail(tr, true, "its table of TLPs in flight");
        return;
    }
    size_t k = slot_hash(id + 1, tr->cap_slot);
    while (tr->slot[k].id && tr->slot[k].id != id + 1) {
        k = (k + 1) & (tr->cap_slot - 1);
    }
    tr->n_slot += !tr->slot[k].id;
    tr->slot[k] = (struct ts_slot){ id + 1, t };
}

/* Take the entry time of id out of the table; false if absent. */
static bool slot_take(struct p2psim_trace *tr, uint64_t id, sim_time_t *t)
{
    if (!tr->cap_slot) {
        return false;
    }
    size_t mask = tr->cap_slot - 1, k = slot_hash(id + 1, tr->cap_slot);
    while (tr->slot[k].id && tr->slot[k].id != id + 1) {
        k = (k + 1) & mask;
    }
    if (!tr->slot[k].id) {
        return false;
    }
    *t = tr->slot[k].t_in;
    /* Backward-shift deletion keeps every probe chain whole. */
    size_t hole = k;
    for (size_t j = (k + 1) & mask; tr->slot[j].id; j = (j + 1) & mask) {
        size_t home = slot_hash(tr->slot[j].id, tr->cap_slot);
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            tr->slot[hole] = tr->slot[j];
            hole = j;
        }
    }
    tr->slot[hole].id = 0;
    tr->n_slot--;
    return true;
}

/* ---- who is at the ends ------------------------------------------------------ */

static const char *gpu_by_id(const struct p2psim_trace *tr, uint16_t rid)
{
    const struct fab *fab = tr->p->m->fab;
    for (unsigned i = 0; i < fab_n_gpus(fab); i++) {
        struct sim_component *g = fab_gpu(fab, i);
        if (gpu_pcie_id(g) == rid) {
            return g->name;
        }
    }
    return "host";
}

static const char *gpu_by_bus_addr(const struct p2psim_trace *tr,
                                   uint64_t addr)
{
    const struct fab *fab = tr->p->m->fab;
    for (unsigned i = 0; i < fab_n_gpus(fab); i++) {
        struct sim_component *g = fab_gpu(fab, i);
        uint64_t hbm, contig;
        if (gpu_bar1_translate(g, addr, &hbm, &contig)) {
            return g->name;
        }
    }
    return "host";
}

static void port_name(char *out, size_t n, const struct sim_port *p)
{
    snprintf(out, n, "%s.%s", p ? p->owner->name : "?", p ? p->name : "?");
}

/* ---- records ----------------------------------------------------------------- */

static void put(struct p2psim_trace *tr, const struct trace_rec *rec)
{
    if (rec->type == TRACE_REC_EVENT && tr->events &&
        trace_write_ftrace(tr->events, rec) < 0) {
        ts_fail(tr, errno == ENOMEM, "an event log line");
    }
    if (!tr->w || !trace_filter_match(&tr->filter, rec)) {
        return;
    }
    bool was = trace_writer_is_capped(tr->w);
    int rc = trace_writer_put(tr->w, rec);
    if (rc < 0) {
        ts_fail(tr, errno == ENOMEM, "a trace record");
    } else if (rc == 1 && !was) {
        char t[32], cap[32];
        fprintf(stderr, "p2psim: trace %s reached its size cap (%s) at "
                        "simulated time %s; later records are not written "
                        "(raise the cap with --trace-max or "
                        "P2PSIM_TRACE_MAX, or narrow the trace with a "
                        "filter)\n",
                tr->path, sim_format_size(trace_writer_bytes(tr->w), cap,
                                          sizeof(cap)),
                sim_format_time(sim_now(tr->sim), t, sizeof(t)));
    }
}

/* The names of the direction of link l that a TLP leaving side `from`
 * crosses (from, to, track). */
static const struct ts_dir *dir_names(struct p2psim_trace *tr,
                                      const struct sim_link *l,
                                      unsigned from)
{
    uint32_t k = 2 * l->id + from;
    if (k >= tr->n_dir) {
        uint32_t n = 2 * sim_link_count(tr->sim);
        n = n > k ? n : k + 1;
        struct ts_dir *d = realloc(tr->dir, n * sizeof(*d));
        if (!d) {
            return NULL;
        }
        memset(d + tr->n_dir, 0, (n - tr->n_dir) * sizeof(*d));
        tr->dir = d;
        tr->n_dir = n;
    }
    struct ts_dir *d = &tr->dir[k];
    if (!d->made) {
        port_name(d->from, sizeof(d->from), l->end[from]);
        port_name(d->to, sizeof(d->to), l->end[!from]);
        char track[2 * TRACE_NAME_LEN + 2];
        snprintf(track, sizeof(track), "%s>%s", d->from, d->to);
        TRACE_SET(d->track, track);
        d->made = true;
    }
    return d;
}

/* The GPUs (or "host") at the two ends of the transfer t belongs to. */
static const struct ts_ends *tlp_ends(struct p2psim_trace *tr,
                                      const struct tlp *t)
{
    struct ts_ends *e = &tr->ends[t->id % TS_ENDS];
    if (e->id != t->id + 1) {
        e->id = t->id + 1;
        if (tlp_is_request(t)) {
            e->src = gpu_by_id(tr, t->requester_id);
            e->dst = gpu_by_bus_addr(tr, t->addr);
        } else {
            e->src = gpu_by_id(tr, t->completer_id);
            e->dst = gpu_by_id(tr, t->requester_id);
        }
    }
    return e;
}

static void on_hop(struct p2psim_trace *tr, const struct sim_trace_record *r)
{
    const struct tlp *t = r->tlp;
    const struct sim_link *l = t->link;
    sim_time_t t_in;
    if (!slot_take(tr, t->id, &t_in)) {
        t_in = r->when;         /* sent before the trace started */
    }
    const struct ts_dir *d = dir_names(tr, l, !t->link_side);
    if (!d) {
        ts_fail(tr, true, "the names of a link");
        return;
    }
    struct trace_rec rec = {
        .type = TRACE_REC_HOP, .t_ps = t_in, .dur_ps = r->when - t_in,
        .id = t->id, .requester = t->requester_id,
        .completer = t->completer_id, .tag = t->tag, .addr = t->addr,
        .bytes = tlp_payload_bytes(t), .attr = t->attr,
        .hop = t->hops ? t->hops - 1 : 0, .t_created_ps = t->t_created,
        .rate = l->ops == &pcie_link_ops ? pcie_link_rate(l) : 0,
    };
    TRACE_SET(rec.kind, tlp_kind_name(t->kind));
    memcpy(rec.from, d->from, sizeof(rec.from));
    memcpy(rec.to, d->to, sizeof(rec.to));
    memcpy(rec.track, d->track, sizeof(rec.track));
    const struct ts_ends *e = tlp_ends(tr, t);
    TRACE_SET(rec.src, e->src);
    TRACE_SET(rec.dst, e->dst);
    put(tr, &rec);
}

static void on_op(struct p2psim_trace *tr, const struct sim_trace_record *r)
{
    static const char *const dir[] = { "push", "pull", "local" };
    const struct gpu_dma *op = r->data;
    sim_time_t start = op->t_first ? op->t_first : op->t_submit;
    struct trace_rec rec = {
        .type = TRACE_REC_OP, .t_ps = start, .dur_ps = r->when - start,
        .id = ++tr->n_ops, .tag = op->ce, .addr = op->remote_addr,
        .bytes = op->len_bytes, .t_created_ps = op->t_submit,
    };
    TRACE_SET(rec.kind, (unsigned)op->dir < 3 ? dir[op->dir] : "?");
    snprintf(rec.track, sizeof(rec.track), "%s/ce%u", r->component,
             (unsigned)r->a);
    const char *remote = op->dir == GPU_DMA_LOCAL
                             ? r->component
                             : gpu_by_bus_addr(tr, op->remote_addr);
    bool out = op->dir != GPU_DMA_PULL;
    TRACE_SET(rec.src, out ? r->component : remote);
    TRACE_SET(rec.dst, out ? remote : r->component);
    TRACE_SET(rec.from, rec.src);
    TRACE_SET(rec.to, rec.dst);
    snprintf(rec.detail, sizeof(rec.detail), "%s%s", r->msg ? r->msg : "",
             op->status ? " error" : "");
    put(tr, &rec);
}

/* A stall is logged once, when it first reaches the threshold. */
static bool stall_is_new(struct p2psim_trace *tr,
                         const struct sim_trace_record *r)
{
    sim_time_t since = r->when - r->b;
    for (unsigned i = 0; i < tr->n_stall; i++) {
        struct ts_stall *s = &tr->stall[i];
        if (s->link == r->msg && s->fc_class == r->a) {
            if (s->since == since) {
                return false;
            }
            s->since = since;
            return true;
        }
    }
    if (tr->n_stall < TS_STALLS) {
        tr->stall[tr->n_stall++] = (struct ts_stall){ r->msg, r->a, since };
    }
    return true;
}

static void on_event(struct p2psim_trace *tr, const struct sim_trace_record *r)
{
    static const char *const fc[] = { "P", "NP", "Cpl" };
    struct trace_rec rec = { .type = TRACE_REC_EVENT, .t_ps = r->when };
    TRACE_SET(rec.track, r->component ? r->component : "?");
    TRACE_SET(rec.from, r->port);
    const char *why = r->msg;
    switch (r->point) {
    case SIM_TP_BAR1_MAP:
    case SIM_TP_BAR1_UNMAP:
        TRACE_SET(rec.kind, r->point == SIM_TP_BAR1_MAP ? "bar1_map"
                                                        : "bar1_unmap");
        rec.addr = r->a;
        rec.bytes = r->b;
        snprintf(rec.detail, sizeof(rec.detail), "%s%s", why ? "failed: "
                                                             : "ok",
                 why ? why : "");
        break;
    case SIM_TP_IOMMU_FAULT:
        TRACE_SET(rec.kind, "iommu_fault");
        rec.addr = r->a;
        rec.requester = (uint32_t)r->b;
        TRACE_SET(rec.detail, why);
        break;
    case SIM_TP_TLP_DROP:
        TRACE_SET(rec.kind, "tlp_drop");
        TRACE_SET(rec.detail, why);
        break;
    case SIM_TP_CREDIT_STALL:
        if (r->b < tr->stall_ps || !stall_is_new(tr, r)) {
            return;
        }
        TRACE_SET(rec.kind, "credit_stall");
        rec.t_ps = r->when - r->b;
        rec.dur_ps = r->b;
        snprintf(rec.detail, sizeof(rec.detail), "class=%s link=%s",
                 r->a < 3 ? fc[r->a] : "?", why ? why : "?");
        break;
    case SIM_TP_CPL_TIMEOUT:
        TRACE_SET(rec.kind, "cpl_timeout");
        rec.tag = (uint32_t)r->a;
        rec.requester = (uint32_t)r->b;
        snprintf(rec.detail, sizeof(rec.detail), "tag=%u %s",
                 (unsigned)r->a, why ? why : "");
        break;
    case SIM_TP_REPLAY:
        TRACE_SET(rec.kind, "replay");
        rec.id = r->a;
        snprintf(rec.detail, sizeof(rec.detail),
                 "link=%s seq=%" PRIu64 " resent=%" PRIu64, why ? why : "?",
                 r->a, r->b);
        break;
    default:
        return;
    }
    if (r->tlp && r->point != SIM_TP_BAR1_MAP) {
        rec.requester = r->tlp->requester_id;
        rec.addr = r->tlp->addr;
        rec.bytes = tlp_payload_bytes(r->tlp);
    }
    put(tr, &rec);
}

/* ---- counters ------------------------------------------------------------------ */

/*
 * Sampled lazily: at the first record after each period boundary the link
 * and GPU counters are read and written with the boundary's time (so a
 * sample may include the TLP that triggered it), and once more at the
 * end. With nothing happening, nothing is sampled: the run does not get
 * longer, and no event is added to it.
 * Model: in the flow fidelity the links count nothing (machine/flow.c), so
 * link counters stay 0 there; GPU BAR1 use is still sampled.
 */

static void sample(struct p2psim_trace *tr, sim_time_t at)
{
    FILE *f = tr->counters;
    double dt = (double)(at - tr->last_sample);
    unsigned n = p2psim_link_count(tr->p);
    for (unsigned i = 0; i < n; i++) {
        struct p2psim_link_stat ls;
        if (p2psim_link_stat(tr->p, i, &ls) < 0 || !ls.rate) {
            continue;
        }
        const struct sim_link *l = sim_link_at(tr->sim, i);
        for (unsigned s = 0; s < 2; s++) {
            char dir[2 * TRACE_NAME_LEN + 2], a[TRACE_NAME_LEN],
                b[TRACE_NAME_LEN];
            port_name(a, sizeof(a), l->end[s]);
            port_name(b, sizeof(b), l->end[!s]);
            snprintf(dir, sizeof(dir), "%s>%s", a, b);
            sim_time_t busy = ls.busy_ps[s] - tr->busy_prev[2 * i + s];
            tr->busy_prev[2 * i + s] = ls.busy_ps[s];
            fprintf(f, "%" PRIu64 ",%s,bytes,%" PRIu64 "\n", at, dir,
                    ls.bytes[s]);
            fprintf(f, "%" PRIu64 ",%s,util,%.4f\n", at, dir,
                    dt > 0 ? (double)busy / dt : 0.0);
        }
    }
    const struct fab *fab = tr->p->m->fab;
    for (unsigned g = 0; g < fab_n_gpus(fab); g++) {
        struct sim_component *c = fab_gpu(fab, g);
        struct gpu_counters gc;
        gpu_get_counters(c, &gc);
        fprintf(f, "%" PRIu64 ",%s,bar1_used_bytes,%" PRIu64 "\n", at,
                c->name, gpu_bar1_used(c));
        fprintf(f, "%" PRIu64 ",%s,rx_bytes,%" PRIu64 "\n", at, c->name,
                gc.bytes_written_in);
        fprintf(f, "%" PRIu64 ",%s,read_served_bytes,%" PRIu64 "\n", at,
                c->name, gc.bytes_read_in);
    }
    for (uint32_t i = 0; i < sim_component_count(tr->sim); i++) {
        const struct sim_component *c = sim_component_at(tr->sim, i);
        const struct mkind *k = mkind_of(c);
        if (!k || k->ops != &nvme_ops) {
            continue;
        }
        struct nvme_counters nc;
        nvme_get_counters(c, &nc);
        fprintf(f, "%" PRIu64 ",%s,read_bytes,%" PRIu64 "\n", at, c->name,
                nc.bytes_read);
        fprintf(f, "%" PRIu64 ",%s,written_bytes,%" PRIu64 "\n", at,
                c->name, nc.bytes_written);
        fprintf(f, "%" PRIu64 ",%s,commands,%" PRIu64 "\n", at, c->name,
                nc.commands);
    }
    tr->last_sample = at;
}

static void maybe_sample(struct p2psim_trace *tr, sim_time_t now)
{
    if (tr->counters && now >= tr->next_sample) {
        sim_time_t at = now - now % tr->period_ps;
        if (at > tr->last_sample || at == 0) {
            sample(tr, at);
        }
        tr->next_sample = at + tr->period_ps;
    }
}

/* ---- the sink ------------------------------------------------------------------- */

static void trace_sink(void *ctx, const struct sim_trace_record *r)
{
    struct p2psim_trace *tr = ctx;
    maybe_sample(tr, r->when);
    switch (r->point) {
    case SIM_TP_TLP_TX:
        if (tr->w) {
            slot_put(tr, r->tlp->id, r->when);
        }
        break;
    case SIM_TP_TLP_RX:
        if (tr->w) {
            on_hop(tr, r);
        }
        break;
    case SIM_TP_CE_OP:
        on_op(tr, r);
        break;
    default:
        on_event(tr, r);
        break;
    }
}

static void trace_free(struct p2psim_trace *tr)
{
    free(tr->dir);
    free(tr->slot);
    free(tr->busy_prev);
    free(tr);
}

static FILE *open_text(const char *path, const char *what,
                       struct sim_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        sim_error_set(err, SIM_EIO, "%s %s: cannot write it", what, path);
    }
    return f;
}

static int trace_open_files(struct p2psim_trace *tr,
                            const struct p2psim_trace_options *o,
                            struct sim_error *err)
{
    char why[300];
    if (o->path) {
        int fmt = o->format ? trace_format_find(o->format)
                            : trace_format_of_path(o->path);
        if (fmt < 0) {
            return sim_error_set(err, SIM_EINVAL,
                                 o->format ? "trace format '%s': csv or "
                                             "perfetto"
                                           : "trace %s: say the format "
                                             "(--trace-format csv or "
                                             "perfetto), or name the file "
                                             "*.csv or *.json",
                                 o->format ? o->format : o->path);
        }
        TRACE_SET(tr->path, o->path);
        tr->w = trace_writer_open(o->path, (enum trace_format)fmt,
                                  o->max_bytes, why, sizeof(why));
        if (!tr->w) {
            return sim_error_set(err, errno == ENOMEM ? SIM_ENOMEM : SIM_EIO,
                                 "trace %s", why);
        }
    }
    if (o->events_path &&
        !(tr->events = open_text(o->events_path, "event log", err))) {
        return -SIM_EIO;
    }
    if (o->counters_path) {
        tr->counters = open_text(o->counters_path, "counters", err);
        if (!tr->counters) {
            return -SIM_EIO;
        }
        fprintf(tr->counters, "t_ps,object,metric,value\n");
    }
    return 0;
}

static void trace_close_files(struct p2psim_trace *tr)
{
    if (tr->w && trace_writer_close(tr->w) < 0) {
        tr->failed = true;
    }
    tr->w = NULL;
    if (tr->events && fclose(tr->events) != 0) {
        tr->failed = true;
    }
    if (tr->counters && fclose(tr->counters) != 0) {
        tr->failed = true;
    }
    tr->events = tr->counters = NULL;
}

int p2psim_trace_start(struct p2psim *p, const struct p2psim_trace_options *o,
                       struct sim_error *err)
{
    if (p->trace) {
        return sim_error_set(err, SIM_EBUSY, "a trace is already running");
    }
    if (!o->path && !o->events_path && !o->counters_path) {
        return sim_error_set(err, SIM_EINVAL, "nothing to trace: no trace, "
                                              "event log or counters file");
    }
    struct p2psim_trace *tr = calloc(1, sizeof(*tr));
    unsigned n_links = p2psim_link_count(p);
    if (!tr || !(tr->busy_prev = calloc(2 * n_links + 1,
                                        sizeof(*tr->busy_prev)))) {
        free(tr);
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    tr->p = p;
    tr->sim = p2psim_sim(p);
    tr->stall_ps = o->stall_ps ? o->stall_ps : P2PSIM_TRACE_DEFAULT_STALL_PS;
    tr->period_ps = o->period_ps ? o->period_ps
                                 : P2PSIM_TRACE_DEFAULT_PERIOD_PS;
    char why[300];
    if (o->filter && trace_filter_parse(o->filter, &tr->filter, why,
                                        sizeof(why)) < 0) {
        trace_free(tr);
        return sim_error_set(err, SIM_EINVAL, "%s", why);
    }
    int rc = trace_open_files(tr, o, err);
    uint64_t mask = SIM_TRACE_BIT(SIM_TP_CE_OP);
    if (tr->w || tr->counters) {
        mask |= SIM_TRACE_BIT(SIM_TP_TLP_TX) | SIM_TRACE_BIT(SIM_TP_TLP_RX);
    }
    if (tr->w || tr->events) {
        mask |= SIM_TRACE_BIT(SIM_TP_BAR1_MAP) |
                SIM_TRACE_BIT(SIM_TP_BAR1_UNMAP) |
                SIM_TRACE_BIT(SIM_TP_IOMMU_FAULT) |
                SIM_TRACE_BIT(SIM_TP_TLP_DROP) |
                SIM_TRACE_BIT(SIM_TP_CREDIT_STALL) |
                SIM_TRACE_BIT(SIM_TP_CPL_TIMEOUT) |
                SIM_TRACE_BIT(SIM_TP_REPLAY);
    }
    if (rc == 0 && sim_trace_subscribe(tr->sim, trace_sink, tr, mask) < 0) {
        rc = sim_error_set(err, SIM_EBUSY, "too many trace sinks");
    }
    if (rc < 0) {
        trace_close_files(tr);
        trace_free(tr);
        return rc;
    }
    tr->last_sample = tr->next_sample = sim_now(tr->sim);
    if (tr->counters) {
        sample(tr, tr->last_sample);
        tr->next_sample = tr->last_sample + tr->period_ps;
    }
    p->trace = tr;
    return 0;
}

int p2psim_trace_stop(struct p2psim *p)
{
    struct p2psim_trace *tr = p->trace;
    if (!tr) {
        return 0;
    }
    sim_trace_unsubscribe(tr->sim, trace_sink, tr);
    sim_time_t now = sim_now(tr->sim);
    if (tr->counters && (now > tr->last_sample || now == 0)) {
        sample(tr, now);
    }
    if (tr->w && trace_writer_dropped(tr->w)) {
        fprintf(stderr, "p2psim: trace %s: %" PRIu64 " records over the "
                        "size cap were not written\n",
                tr->path, trace_writer_dropped(tr->w));
    }
    trace_close_files(tr);
    bool failed = tr->failed;
    if (failed) {
        fprintf(stderr, "p2psim: writing the trace, event log or counters "
                        "failed (%s)\n", tr->nomem ? "out of memory"
                                                     : "disk full?");
    }
    bool nomem = tr->nomem;
    trace_free(tr);
    p->trace = NULL;
    return failed ? (nomem ? -SIM_ENOMEM : -SIM_EIO) : 0;
}

/* ---- the environment ------------------------------------------------------------- */

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

int p2psim_trace_from_env(struct p2psim *p, struct sim_error *err)
{
    struct p2psim_trace_options o = {
        .path = env("P2PSIM_TRACE"),
        .format = env("P2PSIM_TRACE_FORMAT"),
        .filter = env("P2PSIM_TRACE_FILTER"),
        .events_path = env("P2PSIM_EVENTS"),
        .counters_path = env("P2PSIM_COUNTERS"),
    };
    if (!o.path && !o.events_path && !o.counters_path) {
        return 0;
    }
    char why[200];
    const char *v;
    if ((v = env("P2PSIM_TRACE_MAX")) &&
        sim_parse_size(v, &o.max_bytes, why, sizeof(why)) < 0) {
        return sim_error_set(err, SIM_EINVAL, "P2PSIM_TRACE_MAX=%s: %s", v,
                             why);
    }
    if ((v = env("P2PSIM_STALL_THRESHOLD")) &&
        sim_parse_time(v, &o.stall_ps, why, sizeof(why)) < 0) {
        return sim_error_set(err, SIM_EINVAL,
                             "P2PSIM_STALL_THRESHOLD=%s: %s", v, why);
    }
    if ((v = env("P2PSIM_COUNTERS_PERIOD")) &&
        (sim_parse_time(v, &o.period_ps, why, sizeof(why)) < 0 ||
         o.period_ps == 0)) {
        return sim_error_set(err, SIM_EINVAL,
                             "P2PSIM_COUNTERS_PERIOD=%s: a time above 0, "
                             "e.g. 10us", v);
    }
    return p2psim_trace_start(p, &o, err);
}
