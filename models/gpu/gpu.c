/*
 * models/gpu/gpu.c - a GPU as a PCIe endpoint (kind "gpu"): its
 * configuration (gpu.h lists the properties), the HBM serialiser and the
 * pipe that holds completions until their HBM access is over, the egress
 * queues (one FIFO per way out: port "pcie" and each NVLink port), its
 * report and accessors. Its other capabilities have a file each:
 *   completer.c     what it completes: BAR1 (and NVLink-window) writes,
 *                   reads and AtomicOps on HBM; completions by tag
 *   bar1.c          the BAR1 aperture's mappings
 *   copy_engine.c   the copy engines (DMA)
 *   sm.c, sm_wc.c   the SMs' memory side and their write combining
 *   l2.c            the L2 cache as copies within HBM see it
 *   nvlink_port.c   the ways out: which port a request leaves by
 *   gpu_info.c      what the product is (catalog)
 *
 * Model: the HBM is one serialiser shared by BAR1 reads, AtomicOps, the
 * SMs' local accesses and LOCAL copies (hbm-bandwidth, else what the
 * memory's clock and bus width give: gpu_info_memory_rate), plus a fixed
 * access latency (hbm-latency); no banks, no channels, no refresh. Inbound
 * writes are not charged to it (they land at delivery; their bytes are
 * counted, bytes_written_in), so the link, not HBM, limits writes into a
 * GPU, as on real hardware where HBM is some 50x faster than a PCIe link.
 * Model: the L2 is modelled for copies within HBM only (l2.c, with
 * l2-bandwidth); every other access goes to HBM.
 * Model: a request is consumed at delivery: its receive buffer (the
 * link's credits) is released at once, and the GPU's completion buffering
 * is unbounded.
 * Not modelled: BAR0 registers and BAR3, config space (the builder sets
 * the ID and BAR1 base by hand), ECC.
 */
#include <config.h>

#include "models/gpu/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/gpu/gpu_int.h"
#include "models/mem/sparse.h"
#include "models/nvlink/power.h"
#include "models/pcie/pcie.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/tlp.h"
#include "sim/trace.h"
#include "sim/units.h"

/* Defaults (models/gpu/gpu.h lists the properties). */
#define GPU_DEF_GEN 5u
#define GPU_DEF_WIDTH 16u
#define GPU_DEF_N_CE 2u
#define GPU_MAX_N_CE 64u
#define GPU_DEF_TAGS 256u
#define GPU_DEF_MPS 256u
#define GPU_DEF_MRRS 512u
#define GPU_DEF_RCB 64u
#define GPU_DEF_CE_SETUP SIM_US(1)
/*
 * Completion Timeout: the Device Control 2 Completion Timeout Value 0000b
 * selects the default range, 50 us to 50 ms (PCIe r6.0 §7.5.3.16); we
 * take its top, 50 ms (the spec recommends not expiring under 10 ms).
 */
#define GPU_DEF_CPL_TIMEOUT (50 * SIM_PS_PER_MS)
#define GPU_DEF_HBM_LATENCY SIM_NS(300)
#define GPU_HBM_BW_UNSET UINT64_MAX
#define GPU_DEF_BAR1_PAGE (UINT64_C(64) << 10)

struct gpu *gpu__from(const struct sim_component *c)
{
    return sim_component_state(c);
}

/* ---- FIFO rings ---------------------------------------------------------- */

static int ring_push(struct gpu_ring *r, struct gpu_slot s)
{
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct gpu_slot *n = malloc(cap * sizeof(*n));
        if (!n) {
            return -SIM_ENOMEM;
        }
        for (size_t i = 0; i < r->count; i++) {
            n[i] = r->slot[(r->head + i) & (r->cap - 1)];
        }
        free(r->slot);
        r->slot = n;
        r->cap = cap;
        r->head = 0;
    }
    r->slot[(r->head + r->count) & (r->cap - 1)] = s;
    r->count++;
    return 0;
}

static struct gpu_slot *ring_front(struct gpu_ring *r)
{
    return r->count ? &r->slot[r->head] : NULL;
}

static void ring_pop(struct gpu_ring *r)
{
    r->head = (r->head + 1) & (r->cap - 1);
    r->count--;
}

/* Free every TLP left in r, and r itself. */
static void ring_fini(struct gpu_ring *r)
{
    while (r->count) {
        tlp_free(ring_front(r)->t);
        ring_pop(r);
    }
    free(r->slot);
    memset(r, 0, sizeof(*r));
}

/* ---- traces -------------------------------------------------------------- */

void gpu__trace(struct gpu *g, const struct tlp *t, uint64_t a, uint64_t b,
                const char *msg)
{
    sim_trace_component(g->c, SIM_TP_MODEL, "pcie", t, a, b, msg);
}

/* ---- egress: one FIFO per way out ---------------------------------------- */

/*
 * Queue t on out o; t is the queue's from now on. Out 0 is "pcie"; on the
 * others (NVLink) t may not start before the links are awake (power.h).
 */
static void out_push(struct gpu *g, unsigned o, struct gpu_slot s)
{
    struct gpu_out *out = &g->out[o];
    uint64_t wire = (uint64_t)s.t->len_bytes + 16; /* near enough */
    if (o != 0 && g->nvl_power) {
        sim_time_t now = sim_now(g->c->sim);
        sim_time_t at = s.t->not_before > now ? s.t->not_before : now;
        s.t->not_before = nvl_power_claim(g->nvl_power, at, wire);
    }
    if (ring_push(&out->q, s) < 0) {
        tlp_free(s.t);
        sim_component_nomem(g->c, "its egress queue");
        return;
    }
    out->sent_bytes += wire;
    if (out->q.count > g->egress_max) {
        g->egress_max = out->q.count;
    }
}

/* Which way out t takes (see gpu_int.h). */
static unsigned out_of(const struct gpu *g, const struct tlp *t)
{
    if (!tlp_is_request(t)) {
        return t->route_hint < g->n_out ? t->route_hint : 0;
    }
    return gpu__out_for(g, t->addr);
}

void gpu__egress_push(struct gpu *g, struct tlp *t, struct gpu_dma *op)
{
    out_push(g, out_of(g, t), (struct gpu_slot){ .t = t, .op = op });
}

void gpu__egress_push_req(struct gpu *g, struct tlp *t,
                          gpu_req_done_fn *sent, void *ctx)
{
    out_push(g, out_of(g, t), (struct gpu_slot){ .t = t, .sent = sent,
                                                 .ctx = ctx });
}

/* Send the head of out o while its link accepts. */
static void out_drain(struct gpu *g, struct gpu_out *out)
{
    while (out->q.count && !out->port->wants_ready) {
        struct gpu_slot s = *ring_front(&out->q);
        struct tlp *t = s.t;
        enum tlp_kind kind = t->kind;   /* t is the link's once sent */
        int rc = sim_port_send(out->port, t);
        if (rc == -SIM_EAGAIN) {
            g->egress_stalls++;  /* ready() resumes the pump */
            break;
        }
        ring_pop(&out->q);
        if (rc < 0) {
            /* Not connected: nothing can leave. Count it as a drop. */
            gpu__trace(g, t, (uint64_t)-rc, 0, "egress: port not connected");
            sim_log(g->c->sim, SIM_LOG_WARN, g->c->name,
                    "port '%s' is not connected; %s dropped", out->port->name,
                    tlp_kind_name(t->kind));
            tlp_free(t);
            continue;
        }
        g->cnt.tlps_out++;
        if (s.op) {
            ce__sent(g, s.op, kind);
        } else if (s.sent) {
            s.sent(s.ctx, NULL);
        }
    }
}

/*
 * Send each way out's queue while its link accepts; then ask the copy
 * engines for their next TLP: an engine cuts one only when the way out
 * it takes is free (copy_engine.c), so at most one engine TLP waits per
 * engine, and back-pressure reaches the engines with no buffering of its
 * own. With one way out (PCIe only), this is one FIFO.
 */
void gpu__egress_pump(struct gpu *g)
{
    if (g->pumping) {
        return;                 /* the outer loop will see the new work */
    }
    g->pumping = true;
    do {
        for (unsigned i = 0; i < g->n_out; i++) {
            out_drain(g, &g->out[i]);
        }
    } while (ce__produce(g));
    g->pumping = false;
}

static void gpu_ready(struct sim_component *c, struct sim_port *out)
{
    gpu__egress_pump(gpu__from(c));
}

/* ---- HBM ----------------------------------------------------------------- */

sim_time_t gpu__hbm_reserve(struct gpu *g, uint64_t len_bytes)
{
    sim_time_t now = sim_now(g->c->sim);
    sim_time_t start = g->hbm_busy_until > now ? g->hbm_busy_until : now;
    sim_time_t busy = sim_time_for_bytes(len_bytes, g->hbm_bytes_per_s);
    g->hbm_busy_until = sim_time_add(start, busy);
    g->hbm_busy_ps = sim_time_add(g->hbm_busy_ps, busy);
    return g->hbm_busy_until;
}

uint64_t gpu_local_copy_hbm(struct sim_component *c, uint64_t dst,
                            uint64_t src, uint64_t len)
{
    struct gpu *g = gpu__from(c);
    return g->l2_bytes_per_s ? gpu_l2_copy(&g->l2, dst, src, len) : 2 * len;
}

sim_time_t gpu__local_copy_reserve(struct gpu *g, uint64_t dst, uint64_t src,
                                   uint64_t len)
{
    sim_time_t hbm = gpu__hbm_reserve(g, gpu_local_copy_hbm(g->c, dst, src,
                                                            len));
    if (g->l2_bytes_per_s == 0) {
        return hbm;
    }
    sim_time_t now = sim_now(g->c->sim);
    sim_time_t start = g->l2_busy_until > now ? g->l2_busy_until : now;
    g->l2_busy_until = sim_time_add(start, sim_time_for_bytes(2 * len,
                                                        g->l2_bytes_per_s));
    return hbm > g->l2_busy_until ? hbm : g->l2_busy_until;
}

/* Completions whose HBM access is over move to the egress queue. */
static void gpu_hbm_due(struct sim *sim, struct sim_event *ev)
{
    struct gpu *g = SIM_CONTAINER_OF(ev, struct gpu, hbm_ev);
    sim_time_t now = sim_now(sim);
    struct gpu_slot *s;
    while ((s = ring_front(&g->hbm_pipe)) && s->when <= now) {
        gpu__egress_push(g, s->t, NULL);
        ring_pop(&g->hbm_pipe);
    }
    if (s) {
        sim_event_schedule_at(sim, &g->hbm_ev, s->when);
    }
    gpu__egress_pump(g);
}

/*
 * Hold cpl until when. Every access adds the same latency to a monotonic
 * busy_until, so `when` never decreases and the pipe stays a FIFO.
 */
void gpu__hbm_pipe_push(struct gpu *g, struct tlp *cpl, sim_time_t when)
{
    int rc = ring_push(&g->hbm_pipe, (struct gpu_slot){ .t = cpl,
                                                         .when = when });
    if (rc < 0) {
        tlp_free(cpl);
        sim_component_nomem(g->c, "its HBM pipe");
        return;
    }
    if (!sim_event_is_pending(&g->hbm_ev)) {
        sim_event_schedule_at(g->c->sim, &g->hbm_ev, when);
    }
}

/* ---- configuration ------------------------------------------------------- */

static bool is_pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/* A byte count written with or without a unit ("256B" or "256"). */
static int get_bytes(const struct sim_props *p, const char *key,
                     uint64_t *out, struct sim_error *err)
{
    const char *s = NULL;
    int rc = sim_props_get_str(p, key, &s, 0, err);
    if (rc < 0 || !s) {
        return rc;
    }
    char why[192];
    if (sim_parse_u64(s, out, why, sizeof(why)) == 0 ||
        sim_parse_size(s, out, why, sizeof(why)) == 0) {
        return 0;
    }
    return sim_props_error(p, key, SIM_ESYNTAX, err, "%s: %s: %s", p->owner,
                           key, why);
}

static int gpu_configure_pcie(struct gpu *g, const struct sim_props *p,
                              struct sim_error *err)
{
    uint64_t v = GPU_DEF_GEN;
    int rc = sim_props_get_u64(p, "pcie-gen", &v, PCIE_GEN_MIN, PCIE_GEN_MAX,
                               0, err);
    if (rc < 0) {
        return rc;
    }
    g->pcie_gen = (unsigned)v;
    const char *w = NULL;
    rc = sim_props_get_str(p, "pcie-width", &w, 0, err);
    if (rc < 0) {
        return rc;
    }
    g->pcie_width = GPU_DEF_WIDTH;
    if (w) {
        char why[192];
        const char *num = (w[0] == 'x' || w[0] == 'X') ? w + 1 : w;
        if (sim_parse_u64(num, &v, why, sizeof(why)) < 0 || v > 64 ||
            !pcie_width_is_valid((unsigned)v)) {
            return sim_props_error(p, "pcie-width", SIM_EINVAL, err,
                                   "%s: pcie-width: '%s' is not a link "
                                   "width (x1, x2, x4, x8 or x16)",
                                   p->owner, w);
        }
        g->pcie_width = (unsigned)v;
    }
    v = GPU_DEF_MPS;
    if ((rc = get_bytes(p, "mps", &v, err)) < 0) {
        return rc;
    }
    if (v > UINT32_MAX || !pcie_size_is_valid((unsigned)v)) {
        return sim_props_error(p, "mps", SIM_EINVAL, err,
                               "%s: mps: %llu B is not a payload size "
                               "(128, 256, 512, 1024, 2048 or 4096 B)",
                               p->owner, (unsigned long long)v);
    }
    g->mps = (unsigned)v;
    v = GPU_DEF_MRRS;
    if ((rc = get_bytes(p, "mrrs", &v, err)) < 0) {
        return rc;
    }
    if (v > UINT32_MAX || !pcie_size_is_valid((unsigned)v)) {
        return sim_props_error(p, "mrrs", SIM_EINVAL, err,
                               "%s: mrrs: %llu B is not a read request size "
                               "(128, 256, 512, 1024, 2048 or 4096 B)",
                               p->owner, (unsigned long long)v);
    }
    g->mrrs = (unsigned)v;
    v = GPU_DEF_RCB;
    if ((rc = get_bytes(p, "rcb", &v, err)) < 0) {
        return rc;
    }
    if (v != 64 && v != 128) {
        return sim_props_error(p, "rcb", SIM_EINVAL, err,
                               "%s: rcb: %llu B is not a read completion "
                               "boundary (64 or 128 B)",
                               p->owner, (unsigned long long)v);
    }
    g->rcb = (unsigned)v;
    return 0;
}

static int gpu_configure_memory(struct gpu *g, const struct sim_props *p,
                                struct sim_error *err)
{
    int rc = sim_props_get_size(p, "memory", &g->mem_bytes, SIM_PROP_REQUIRED,
                                err);
    if (rc < 0) {
        return rc;
    }
    if (g->mem_bytes == 0) {
        return sim_props_error(p, "memory", SIM_EINVAL, err,
                               "%s: memory: must be more than 0 B", p->owner);
    }
    rc = sim_props_get_size(p, "bar1", &g->bar1_bytes, SIM_PROP_REQUIRED, err);
    if (rc < 0) {
        return rc;
    }
    if (!is_pow2(g->bar1_bytes)) {
        return sim_props_error(p, "bar1", SIM_EINVAL, err,
                               "%s: bar1: %llu B is not a power of two (a "
                               "BAR's size always is; e.g. 256MiB, 32GiB, "
                               "256GiB)",
                               p->owner, (unsigned long long)g->bar1_bytes);
    }
    g->bar1_page = GPU_DEF_BAR1_PAGE;
    rc = sim_props_get_size(p, "bar1-page", &g->bar1_page, 0, err);
    if (rc < 0) {
        return rc;
    }
    if (!is_pow2(g->bar1_page) || g->bar1_page < GPU_PCIE_BOUNDARY_BYTES ||
        g->bar1_page > g->bar1_bytes) {
        return sim_props_error(p, "bar1-page", SIM_EINVAL, err,
                               "%s: bar1-page: %llu B must be a power of two "
                               "from 4KiB up to bar1 (%llu B)",
                               p->owner, (unsigned long long)g->bar1_page,
                               (unsigned long long)g->bar1_bytes);
    }
    g->hbm_latency_ps = GPU_DEF_HBM_LATENCY;
    rc = sim_props_get_time(p, "hbm-latency", &g->hbm_latency_ps, 0, err);
    if (rc < 0) {
        return rc;
    }
    g->hbm_bytes_per_s = GPU_HBM_BW_UNSET; /* from the memory, once known */
    rc = sim_props_get_rate(p, "hbm-bandwidth", &g->hbm_bytes_per_s, 0, err);
    if (rc < 0) {
        return rc;
    }
    if (g->hbm_bytes_per_s == 0) {
        return sim_props_error(p, "hbm-bandwidth", SIM_EINVAL, err,
                               "%s: hbm-bandwidth: must be more than 0 B/s",
                               p->owner);
    }
    g->l2_bytes_per_s = 0;
    return sim_props_get_rate(p, "l2-bandwidth", &g->l2_bytes_per_s, 0, err);
}

static int gpu_configure_engines(struct gpu *g, const struct sim_props *p,
                                 struct sim_error *err)
{
    uint64_t v = GPU_DEF_N_CE;
    int rc = sim_props_get_u64(p, "copy-engines", &v, 1, GPU_MAX_N_CE, 0, err);
    if (rc < 0) {
        return rc;
    }
    g->n_ce = (unsigned)v;
    v = GPU_DEF_TAGS;
    rc = sim_props_get_u64(p, "tags", &v, 1, GPU_TAGS_MAX, 0, err);
    if (rc < 0) {
        return rc;
    }
    g->tags_per_ce = (unsigned)v;
    g->ce_setup_ps = GPU_DEF_CE_SETUP;
    rc = sim_props_get_time(p, "ce-setup", &g->ce_setup_ps, 0, err);
    if (rc < 0) {
        return rc;
    }
    g->ce_local_setup_ps = g->ce_setup_ps;
    rc = sim_props_get_time(p, "ce-local-setup", &g->ce_local_setup_ps, 0,
                            err);
    if (rc < 0) {
        return rc;
    }
    g->cpl_timeout_ps = GPU_DEF_CPL_TIMEOUT;
    return sim_props_get_time(p, "cpl-timeout", &g->cpl_timeout_ps, 0, err);
}

static int gpu_configure(struct sim_component *c, const struct sim_props *p,
                         struct sim_error *err)
{
    struct gpu *g = gpu__from(c);
    g->c = c;
    sim_event_init(&g->hbm_ev, gpu_hbm_due);
    if (!p) {
        return sim_error_set(err, SIM_ENOENT,
                             "gpu '%s' needs 'memory' and 'bar1'", c->name);
    }
    int rc = gpu_configure_memory(g, p, err);
    if (rc == 0) {
        rc = gpu_configure_pcie(g, p, err);
    }
    if (rc == 0) {
        rc = gpu_configure_engines(g, p, err);
    }
    if (rc == 0) {
        rc = gpu_info_configure(&g->info, c->name, p, err);
    }
    if (rc == 0 && g->hbm_bytes_per_s == GPU_HBM_BW_UNSET) {
        g->hbm_bytes_per_s = gpu_info_memory_rate(&g->info);
    }
    if (rc == 0) {
        rc = sm__configure(g, p, err);
    }
    if (rc < 0) {
        return rc;
    }
    g->port = sim_port_add(c, "pcie", SIM_PORT_UPSTREAM);
    if (!g->port || gpu__out_init(g) < 0) {
        return sim_error_set(err, SIM_ENOMEM, "gpu '%s': cannot add its "
                             "ports", c->name);
    }
    if (bar1__init(&g->bar1, g->bar1_bytes, g->bar1_page) < 0) {
        return sim_error_set(err, SIM_EINVAL, "gpu '%s': bad BAR1 geometry",
                             c->name);
    }
    int l2rc = g->l2_bytes_per_s ? gpu_l2_init(&g->l2, g->info.l2_bytes) : 0;
    if (l2rc == -SIM_ENOMEM) {
        return sim_error_set(err, SIM_ENOMEM, "gpu '%s': out of memory for "
                             "the L2 model", c->name);
    }
    if (l2rc < 0) {
        return sim_error_set(err, SIM_EINVAL, "gpu '%s': cannot set up the "
                             "L2 model for l2-cache %llu B (at most %llu "
                             "GiB)", c->name,
                             (unsigned long long)g->info.l2_bytes,
                             (unsigned long long)((GPU_L2_BLOCK << 24) >> 30));
    }
    g->hbm = mem_sparse_create(g->mem_bytes);
    if (!g->hbm || ce__init(g) < 0) {
        return sim_error_set(err, SIM_ENOMEM, "gpu '%s': out of memory",
                             c->name);
    }
    return 0;
}

static void gpu_destroy(struct sim_component *c)
{
    struct gpu *g = gpu__from(c);
    if (!g->c) {
        return;                 /* never configured */
    }
    sim_event_cancel(c->sim, &g->hbm_ev);
    for (unsigned i = 0; i < g->n_out; i++) {
        ring_fini(&g->out[i].q);
    }
    gpu__out_fini(g);
    ring_fini(&g->hbm_pipe);
    ce__fini(g);
    sm__fini(g);
    bar1__fini(&g->bar1);
    mem_sparse_destroy(g->hbm);
    gpu_l2_fini(&g->l2);
    g->hbm = NULL;
}

/* ---- report -------------------------------------------------------------- */

static void gpu_stat(struct sim_stats *out, const char *gpu, const char *name,
                 uint64_t v)
{
    char key[256];
    snprintf(key, sizeof(key), "%s.%s", gpu, name);
    sim_stats_add(out, key, v);
}

static void gpu_report(const struct sim_component *c, struct sim_stats *out)
{
    const struct gpu *g = gpu__from(c);
    const char *n = c->name;
    gpu_stat(out, n, "tlps_out", g->cnt.tlps_out);
    gpu_stat(out, n, "tlps_in", g->cnt.tlps_in);
    gpu_stat(out, n, "bytes_written_in", g->cnt.bytes_written_in);
    gpu_stat(out, n, "bytes_read_in", g->cnt.bytes_read_in);
    gpu_stat(out, n, "bar1_misses", g->cnt.bar1_misses);
    gpu_stat(out, n, "error_completions", g->cnt.error_completions);
    gpu_stat(out, n, "unclaimed", g->unclaimed);
    gpu_stat(out, n, "unsupported", g->unsupported);
    gpu_stat(out, n, "unexpected_cpl", g->unexpected_cpl);
    gpu_stat(out, n, "poisoned_in", g->poisoned_in);
    gpu_stat(out, n, "atomics", g->atomics);
    gpu_stat(out, n, "egress_stalls", g->egress_stalls);
    gpu_stat(out, n, "egress_max", g->egress_max);
    gpu_stat(out, n, "hbm_busy_ps", g->hbm_busy_ps);
    gpu_stat(out, n, "hbm_backed_bytes", mem_sparse_backed_bytes(g->hbm));
    gpu_stat(out, n, "l2_hit_bytes", g->l2.hit_bytes);
    gpu_stat(out, n, "l2_miss_bytes", g->l2.miss_bytes);
    gpu_stat(out, n, "l2_writeback_bytes", g->l2.writeback_bytes);
    gpu_stat(out, n, "bar1_used", g->bar1.used);
    gpu_stat(out, n, "bar1_mappings", g->bar1.n_map);
    for (unsigned i = 0; i < g->n_ce; i++) {
        char name[64];
        snprintf(name, sizeof(name), "ce%u.ops", i);
        gpu_stat(out, n, name, g->ce[i].ops_done);
        snprintf(name, sizeof(name), "ce%u.bytes", i);
        gpu_stat(out, n, name, g->ce[i].bytes_done);
        snprintf(name, sizeof(name), "ce%u.busy_ps", i);
        gpu_stat(out, n, name, g->ce[i].busy_ps);
    }
}

/* ---- accessors (gpu.h) --------------------------------------------------- */

void gpu_set_pcie_id(struct sim_component *c, uint16_t id)
{
    gpu__from(c)->id = id;
}

uint16_t gpu_pcie_id(const struct sim_component *c)
{
    return gpu__from(c)->id;
}

void gpu_set_bar1_base(struct sim_component *c, uint64_t bus_addr)
{
    gpu__from(c)->bar1_base = bus_addr;
}

uint64_t gpu_bar1_base(const struct sim_component *c)
{
    return gpu__from(c)->bar1_base;
}

uint64_t gpu_bar1_size(const struct sim_component *c)
{
    return gpu__from(c)->bar1_bytes;
}

uint64_t gpu_mem_size(const struct sim_component *c)
{
    return gpu__from(c)->mem_bytes;
}

unsigned gpu_pcie_max_gen(const struct sim_component *c)
{
    return gpu__from(c)->pcie_gen;
}

unsigned gpu_pcie_max_width(const struct sim_component *c)
{
    return gpu__from(c)->pcie_width;
}

unsigned gpu_mps(const struct sim_component *c)
{
    return gpu__from(c)->mps;
}

unsigned gpu_mrrs(const struct sim_component *c)
{
    return gpu__from(c)->mrrs;
}

unsigned gpu_n_copy_engines(const struct sim_component *c)
{
    return gpu__from(c)->n_ce;
}

void gpu_get_params(const struct sim_component *c, struct gpu_params *out)
{
    const struct gpu *g = gpu__from(c);
    out->ce_setup_ps = g->ce_setup_ps;
    out->ce_local_setup_ps = g->ce_local_setup_ps;
    out->hbm_latency_ps = g->hbm_latency_ps;
    out->hbm_bytes_per_s = g->hbm_bytes_per_s;
    out->l2_bytes_per_s = g->l2_bytes_per_s;
    out->tags_per_ce = g->tags_per_ce;
    out->tag_space = GPU_TAGS_MAX;
    out->mps = g->mps;
    out->mrrs = g->mrrs;
    out->rcb = g->rcb;
}

struct mem_sparse *gpu_hbm(struct sim_component *c)
{
    return gpu__from(c)->hbm;
}

void gpu_get_counters(const struct sim_component *c, struct gpu_counters *out)
{
    *out = gpu__from(c)->cnt;
}

/* ---- registration -------------------------------------------------------- */

const struct sim_component_ops gpu_ops = {
    .kind = "gpu",
    .state_size = sizeof(struct gpu),
    .configure = gpu_configure,
    .receive = gpu__receive,
    .ready = gpu_ready,
    .report = gpu_report,
    .destroy = gpu_destroy,
};
