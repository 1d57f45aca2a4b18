/*
 * machine/exec.c - copies on a machine: direct, or staged through pinned host
 * memory as the CUDA driver stages peer copies without P2P.
 *
 * Who moves the bytes (Model: the copy engine choice of the CUDA driver,
 * simplified):
 *   host -> GPU      the GPU pulls (reads) from host memory
 *   GPU -> host      the GPU pushes (writes), ending with a flushing read
 *   GPU -> same GPU  a local copy on that GPU's HBM
 *   GPU -> peer      P2P: the source pushes into the peer's BAR1 (or, with
 *                    P2PSIM_COPY_READ, the destination pulls from the
 *                    source's BAR1); staged: the source pushes a chunk to a
 *                    pinned host buffer and the destination pulls it, two
 *                    buffers so that pushes and pulls overlap, each hand
 *                    over through the host ("staged peer copies")
 * Copy engines are taken round-robin per GPU, except for a copy ordered
 * behind another one that the same GPU drives directly
 * (p2psim_copy_after): it joins that copy's engine ("ordered copies").
 *
 * Also here: fills of HBM (a copy-engine operation, see "fills"), direct
 * reads and writes of HBM bytes outside time, and timed callbacks.
 */
#include <config.h>

#include "machine/exec.h"

#include <stdlib.h>
#include <string.h>

#include "machine/flow.h"
#include "machine/p2psim_int.h"
#include "machine/fabric.h"
#include "machine/path.h"
#include "models/gpu/gpu.h"
#include "models/host/hostmem.h"
#include "models/mem/sparse.h"
#include "machine/topology.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/sim.h"

#define EXEC_DEFAULT_CHUNK (UINT64_C(2) << 20)
#define EXEC_ALIGN UINT64_C(4096)

/* ---- bus ranges in host DRAM ------------------------------------------------ */

static int ranges_alloc(struct exec_ranges *x, uint64_t len, void *ptr,
                        uint64_t *addr)
{
    len = (len + EXEC_ALIGN - 1) & ~(EXEC_ALIGN - 1);
    uint64_t at = x->lo;
    unsigned i = 0;
    for (; i < x->n; i++) {
        if (x->r[i].addr - at >= len) {
            break;
        }
        at = x->r[i].addr + x->r[i].len;
    }
    if (at > x->hi || x->hi - at < len) {
        return -SIM_ENOMEM;
    }
    if (x->n == x->cap) {
        unsigned cap = x->cap ? x->cap * 2 : 16;
        void *n = realloc(x->r, cap * sizeof(*x->r));
        if (!n) {
            return -SIM_ENOMEM;
        }
        x->r = n;
        x->cap = cap;
    }
    memmove(&x->r[i + 1], &x->r[i], (x->n - i) * sizeof(*x->r));
    x->r[i].addr = at;
    x->r[i].len = len;
    x->r[i].ptr = ptr;
    x->n++;
    *addr = at;
    return 0;
}

static int ranges_free(struct exec_ranges *x, uint64_t addr)
{
    for (unsigned i = 0; i < x->n; i++) {
        if (x->r[i].addr == addr) {
            memmove(&x->r[i], &x->r[i + 1], (x->n - i - 1) * sizeof(*x->r));
            x->n--;
            return 0;
        }
    }
    return -SIM_ENOENT;
}

/* The host-memory component of socket k, or NULL. */
static struct sim_component *socket_mem(struct p2psim *p, unsigned k)
{
    char name[96];
    snprintf(name, sizeof(name), "%s-mem", p->m->socket[k].id);
    return fab_find(p->m->fab, name);
}

int p2psim__exec_init(struct p2psim *p)
{
    p->chunk = EXEC_DEFAULT_CHUNK;
    p->n_host = p->m->n_sockets;
    p->host = calloc(p->n_host ? p->n_host : 1, sizeof(*p->host));
    p->ce_next = calloc(fab_n_gpus(p->m->fab) + 1, sizeof(*p->ce_next));
    if (!p->host || !p->ce_next) {
        if (!p->host) {
            p->n_host = 0;      /* p2psim__exec_fini walks them */
        }
        return -SIM_ENOMEM;
    }
    for (unsigned k = 0; k < p->n_host; k++) {
        struct sim_component *mem = socket_mem(p, k);
        if (mem) {
            /* Model: pinned buffers: the upper half of DRAM (a VM's). */
            uint64_t base = hmem_base(mem), size = hmem_size(mem);
            p2psim__guest_memory(p, k, &base, &size);
            p->host[k].lo = base + size / 2;
            p->host[k].hi = base + size;
        }
    }
    return 0;
}

static void ops_drop(struct p2psim *p);

void p2psim__exec_fini(struct p2psim *p)
{
    p2psim__flow_destroy(p->flow);
    p->flow = NULL;
    ops_drop(p);
    for (unsigned k = 0; k < p->n_host; k++) {
        free(p->host[k].r);
    }
    free(p->host);
    free(p->map);
    free(p->ce_next);
}

int p2psim_host_register(struct p2psim *p, void *ptr, uint64_t len,
                         unsigned socket, uint64_t *bus_addr)
{
    if (socket >= p->n_host || len == 0) {
        return -SIM_EINVAL;
    }
    socket = p2psim__guest_socket(p, socket);   /* a VM's: its memory's */
    struct sim_component *mem = socket_mem(p, socket);
    if (!mem) {
        return -SIM_ENOENT;
    }
    int rc = ranges_alloc(&p->host[socket], len, ptr, bus_addr);
    if (rc == 0 && ptr) {
        rc = mem_sparse_attach(hmem_store(mem), *bus_addr - hmem_base(mem),
                               ptr, len);
        if (rc < 0) {
            ranges_free(&p->host[socket], *bus_addr);
        }
    }
    return rc;
}

int p2psim_host_unregister(struct p2psim *p, uint64_t bus_addr)
{
    for (unsigned k = 0; k < p->n_host; k++) {
        struct sim_component *mem = socket_mem(p, k);
        if (mem && ranges_free(&p->host[k], bus_addr) == 0) {
            mem_sparse_detach(hmem_store(mem), bus_addr - hmem_base(mem));
            return 0;
        }
    }
    return -SIM_ENOENT;
}

/* ---- peer mappings ------------------------------------------------------------- */

const struct exec_peer_map *p2psim__find_map(const struct p2psim *p,
                                            unsigned gpu, uint64_t hbm,
                                            uint64_t len)
{
    for (unsigned i = 0; i < p->n_map; i++) {
        const struct exec_peer_map *m = &p->map[i];
        if (m->gpu == gpu && hbm >= m->hbm && hbm - m->hbm <= m->len &&
            len <= m->len - (hbm - m->hbm)) {
            return m;
        }
    }
    return NULL;
}

int p2psim_peer_map(struct p2psim *p, unsigned gpu, uint64_t hbm_addr,
                    uint64_t len)
{
    struct sim_component *g = fab_gpu(p->m->fab, gpu);
    if (!g || len == 0) {
        return -SIM_EINVAL;
    }
    if (p2psim__find_map(p, gpu, hbm_addr, len)) {
        return 0;
    }
    if (p->n_map == p->cap_map) {
        unsigned cap = p->cap_map ? p->cap_map * 2 : 16;
        void *n = realloc(p->map, cap * sizeof(*p->map));
        if (!n) {
            return sim_nomem(p2psim_sim(p), "the copy executor",
                             "its table of peer mappings");
        }
        p->map = n;
        p->cap_map = cap;
    }
    uint64_t bus;
    int rc = gpu_bar1_map(g, hbm_addr, len, &bus);
    if (rc < 0) {
        return rc;
    }
    p->map[p->n_map++] = (struct exec_peer_map){ gpu, hbm_addr, len, bus };
    return 0;
}

/* ---- operations ------------------------------------------------------------------ */

struct xop {
    struct p2psim *p;
    struct xop *next, *prev;    /* p->xops */
    uint64_t id;                /* p2psim_copy_after's */
    sim_time_t start_at;        /* earliest start, ps */
    struct sim_event start;     /* fires at the op's start time */
    /* ordered copies */
    struct xop *after;          /* not done yet, or NULL */
    struct xop *followers;      /* copies whose after is this one */
    struct xop *next_follower;
    bool started;               /* handed to an engine (or staged) */
    bool waiting;               /* starts when after is done */
    bool direct;                /* one DMA on engine ce of GPU gpu */
    unsigned gpu, ce;
    struct p2psim_loc dst, src;
    uint64_t len;
    unsigned flags;
    p2psim_done_fn *done;
    void *arg;
    struct p2psim_copy_result res;
    /* staged copies */
    uint64_t staging;           /* bus address of two chunk buffers */
    unsigned staging_socket;
    uint64_t n_chunks;
    uint64_t pushed, pull_next; /* chunks whose push / pull has started */
    uint64_t landed, freed;     /* handoffs done after push / after pull */
    uint64_t pulled;            /* pulls completed */
    bool push_busy, pull_busy;
    struct gpu_dma *dma;        /* one per chunk half (staged) or one */
    unsigned n_dma;
};

static unsigned next_ce(struct p2psim *p, unsigned gpu)
{
    struct sim_component *g = fab_gpu(p->m->fab, gpu);
    unsigned n = gpu_n_copy_engines(g);
    return p->ce_next[gpu]++ % (n ? n : 1);
}

/*
 * Hand d to a copy engine of GPU gpu: the GPU model's (TLP fidelity) or
 * the flow engine's (flow fidelity, machine/flow.c); the same contract.
 */
static int exec_dma_submit(struct p2psim *p, unsigned gpu, struct gpu_dma *d)
{
    if (p->flow) {
        return p2psim__flow_submit(p->flow, gpu, d);
    }
    return gpu_dma_submit(fab_gpu(p->m->fab, gpu), d);
}

static void xop_finish(struct xop *x)
{
    struct p2psim *p = x->p;
    p->n_ops--;
    if (x->prev) {
        x->prev->next = x->next;
    } else {
        p->xops = x->next;
    }
    if (x->next) {
        x->next->prev = x->prev;
    }
    if (x->after) {             /* refused before the copy it follows */
        struct xop **pp = &x->after->followers;
        while (*pp != x) {
            pp = &(*pp)->next_follower;
        }
        *pp = x->next_follower;
    }
    x->res.t_end = sim_now(p2psim_sim(p));
    if (x->res.staged && x->staging) {
        ranges_free(&p->host[x->staging_socket], x->staging);
    }
    if (x->done) {
        x->done(x->arg, &x->res);
    }
    /* Copies ordered behind this one: those waiting for its end start
     * now (or at their own start time), as if submitted now. */
    struct sim *sim = p2psim_sim(p);
    sim_time_t now = sim_now(sim);
    for (struct xop *f = x->followers, *n; f; f = n) {
        n = f->next_follower;
        f->after = NULL;
        if (f->waiting) {
            f->waiting = false;
            sim_event_schedule_at(sim, &f->start,
                                  f->start_at > now ? f->start_at : now);
        }
    }
    free(x->dma);
    free(x);
}

static void dma_fail(struct xop *x, const struct gpu_dma *d)
{
    if (d->status < 0 && x->res.status == 0) {
        x->res.status = d->status;
    }
}

/* One direct DMA: done. */
static void direct_done(struct gpu_dma *d)
{
    struct xop *x = d->user;
    dma_fail(x, d);
    xop_finish(x);
}

static int submit_on(struct xop *x, unsigned gpu, unsigned ce,
                     struct gpu_dma *d, gpu_dma_done_fn *fn)
{
    d->ce = ce;
    d->done = fn;
    d->user = x;
    return exec_dma_submit(x->p, gpu, d);
}

/* ---- staged peer copies ----
 *
 * The driver's pipeline (Model, after the measured behaviour of staged
 * copies; data/hgx-h200-x2/, shared/calibration/dgx1-*):
 *
 *   source CE:  push 0 | push 1 |  wait slot 0  | push 2 | ...
 *   host:              H       H               H
 *   dest CE:           | pull 0 |    | pull 1 |    | pull 2 ...
 *
 * Two chunk buffers in pinned host memory. The source pushes chunks one
 * after another (its engine runs one of them at a time); a chunk's pull
 * may start a handoff H after its push completed, and its buffer may be
 * pushed into again H after its pull completed: each handoff is the host
 * noticing one engine's completion and starting the other engine's
 * operation (staging_handoff). Pulls run one at a time, in order.
 * In steady state a pair of chunks takes two chunk times plus two
 * handoffs; a 4-byte staged copy takes a push, H and a pull.
 *
 * Every staged operation of a GPU runs on one engine, its staging engine
 * (EXEC_STAGING_CE): two staged copies in opposite directions between
 * two GPUs then take turns on each GPU's engine, a push for one and a
 * pull for the other, so each direction gets a little over half of what
 * it gets alone. Measured: 0.68 of the one-way rate on two H200s
 * (data/hgx-h200-x2/), 0.55 on RTX 4090s (data/calibration/); engines
 * taken round-robin instead would give both directions the full rate.
 */
#define EXEC_STAGING_CE 0u

/* The hand-off is the host's: api-costs staged-handoff (SCHEMA.md), by
 * default 12 us [estimate]: a 4-byte staged copy takes 15.5 us between
 * two H200s (data/hgx-h200-x2/), 16.4-17.5 on a DGX-1V (shared/
 * calibration/dgx1-v100-*), with the engines' costs the GPUs charge. */
static sim_time_t staging_handoff(struct p2psim *p)
{
    if (!p->handoff_ps && p2psim__section_time(p, "api-costs",
                                               "staged-handoff",
                                               &p->handoff_ps) < 0) {
        p->handoff_ps = SIM_US(12);
    }
    return p->handoff_ps;
}

static void staged_pump(struct xop *x);

static uint64_t chunk_len(const struct xop *x, uint64_t k)
{
    uint64_t off = k * x->p->chunk;
    return x->len - off < x->p->chunk ? x->len - off : x->p->chunk;
}

/* The host has seen a push complete: that chunk may be pulled. */
static void staged_landed(void *arg)
{
    struct xop *x = arg;
    x->landed++;
    staged_pump(x);
}

/* The host has seen a pull complete: its buffer may be pushed into. */
static void staged_freed(void *arg)
{
    struct xop *x = arg;
    x->freed++;
    staged_pump(x);
}

/* Out of memory inside the run: the simulation fails (sim/error.h, "Out
 * of memory"); other errors are the operation's. Returns rc. */
static int exec_nomem(struct p2psim *p, int rc, const char *what)
{
    if (rc == -SIM_ENOMEM) {
        sim_fail_nomem(p2psim_sim(p), "the copy executor", "%s", what);
    }
    return rc;
}

static void staged_handoff(struct xop *x, p2psim_call_fn *fn)
{
    struct p2psim *p = x->p;
    if (p2psim_call_at(p, sim_now(p2psim_sim(p)) + staging_handoff(p), fn,
                       x) < 0) {
        x->res.status = exec_nomem(p, -SIM_ENOMEM, "a staging hand-off");
        fn(x);                  /* no memory for the event: no delay */
    }
}

static void staged_pull_done(struct gpu_dma *d)
{
    struct xop *x = d->user;
    dma_fail(x, d);
    uint64_t k = (uint64_t)(d - x->dma) / 2;
    x->pull_busy = false;
    x->pulled++;
    if (x->pulled == x->n_chunks) {
        xop_finish(x);
        return;
    }
    /* Only a later push waits for this buffer; none, no handoff (and no
     * event left pending once the copy has finished). */
    if (k + 2 < x->n_chunks) {
        staged_handoff(x, staged_freed);
    }
    staged_pump(x);
}

static void staged_push_done(struct gpu_dma *d)
{
    struct xop *x = d->user;
    dma_fail(x, d);
    x->push_busy = false;
    staged_handoff(x, staged_landed);
    staged_pump(x);
}

/* Chunk k's push (source HBM -> its staging buffer) or pull (buffer ->
 * destination HBM), ready to submit. */
static struct gpu_dma *staged_dma(struct xop *x, uint64_t k,
                                  enum gpu_dma_dir dir)
{
    bool push = dir == GPU_DMA_PUSH;
    struct gpu_dma *d = &x->dma[2 * k + (push ? 0 : 1)];
    memset(d, 0, sizeof(*d));
    d->dir = dir;
    d->local_addr = (push ? x->src.addr : x->dst.addr) + k * x->p->chunk;
    d->remote_addr = x->staging + (k % 2) * x->p->chunk;
    d->len_bytes = chunk_len(x, k);
    return d;
}

/* Start the next push and the next pull when they may start. */
static void staged_pump(struct xop *x)
{
    uint64_t k = x->pushed;
    if (!x->push_busy && k < x->n_chunks && (k < 2 || x->freed + 1 >= k)) {
        x->pushed++;
        x->push_busy = true;
        struct gpu_dma *push = staged_dma(x, k, GPU_DMA_PUSH);
        if (submit_on(x, x->src.gpu, EXEC_STAGING_CE, push,
                      staged_push_done) < 0) {
            x->res.status = -SIM_EINVAL;
        }
    }
    k = x->pull_next;
    if (!x->pull_busy && k < x->landed) {
        x->pull_next++;
        x->pull_busy = true;
        struct gpu_dma *pull = staged_dma(x, k, GPU_DMA_PULL);
        if (submit_on(x, x->dst.gpu, EXEC_STAGING_CE, pull,
                      staged_pull_done) < 0) {
            x->res.status = -SIM_EINVAL;
            staged_pull_done(pull);
        }
    }
}

static int start_staged(struct xop *x)
{
    x->res.staged = true;
    x->staging_socket = p2psim__guest_socket(x->p, P2PSIM_STAGING_SOCKET);
    int rc = ranges_alloc(&x->p->host[x->staging_socket], 2 * x->p->chunk,
                          NULL, &x->staging);
    if (rc < 0) {
        x->staging = 0;
        return rc;
    }
    x->n_chunks = (x->len + x->p->chunk - 1) / x->p->chunk;
    x->dma = calloc(2 * x->n_chunks, sizeof(*x->dma));
    if (!x->dma) {
        return -SIM_ENOMEM;
    }
    staged_pump(x);
    return 0;
}

/* ---- starting an operation ---- */

/* How a copy is carried out: one DMA on GPU gpu, or staged. */
struct xplan {
    bool staged;
    unsigned gpu;
    enum gpu_dma_dir dir;
    uint64_t local, remote;
    bool no_flush;
};

static void plan_direct(struct xplan *pl, unsigned gpu, enum gpu_dma_dir dir,
                        uint64_t local, uint64_t remote, bool no_flush)
{
    *pl = (struct xplan){ false, gpu, dir, local, remote, no_flush };
}

/* Decide how x goes now (peer ranges mapped as needed). 0, or < 0. */
static int xop_plan(struct xop *x, struct xplan *pl)
{
    struct p2psim *p = x->p;
    if (x->src.kind == P2PSIM_HOST && x->dst.kind == P2PSIM_DEVICE) {
        plan_direct(pl, x->dst.gpu, GPU_DMA_PULL, x->dst.addr, x->src.addr,
                    false);
    } else if (x->src.kind == P2PSIM_DEVICE && x->dst.kind == P2PSIM_HOST) {
        plan_direct(pl, x->src.gpu, GPU_DMA_PUSH, x->src.addr, x->dst.addr,
                    false);
    } else if (x->src.gpu == x->dst.gpu) {
        /* LOCAL copies local_addr -> remote_addr (models/gpu/gpu.h) */
        plan_direct(pl, x->src.gpu, GPU_DMA_LOCAL, x->src.addr, x->dst.addr,
                    false);
    } else if (x->flags & P2PSIM_COPY_PEER) {
        bool read = (x->flags & P2PSIM_COPY_READ) != 0;
        unsigned exposed = read ? x->src.gpu : x->dst.gpu;
        uint64_t hbm = read ? x->src.addr : x->dst.addr;
        struct p2p_verdict nv;
        if (p2psim__p2p(p, x->src.gpu, x->dst.gpu, &nv) < 0) {
            return -SIM_ENOMEM;         /* the GPUs were checked */
        }
        if (nv.transport == TRANSPORT_NVLINK) {
            /* NVLink: the peer's NVLink window, no BAR1 (models/gpu/gpu.h);
             * the source's engine routes it over its NVLink ports. */
            uint64_t bus = gpu_nvlink_base(fab_gpu(p->m->fab, exposed)) + hbm;
            if (read) {
                plan_direct(pl, x->dst.gpu, GPU_DMA_PULL, x->dst.addr, bus,
                            false);
            } else {
                plan_direct(pl, x->src.gpu, GPU_DMA_PUSH, x->src.addr, bus,
                            false);
            }
        } else if (p2psim_peer_map(p, exposed, hbm, x->len) < 0) {
            if (sim_failure(p2psim_sim(p))) {
                return -SIM_ENOMEM;     /* out of memory, not of BAR1 */
            }
            pl->staged = true; /* BAR1 exhausted: the driver stages */
        } else {
            const struct exec_peer_map *m = p2psim__find_map(p, exposed, hbm, x->len);
            uint64_t bus = m->bus + (hbm - m->hbm);
            /*
             * Model: a push ends with a zero-length read that PCIe ordering
             * keeps behind the writes, so the copy completes when its data
             * has landed. Where the path forwards only writes (Intel client
             * root complexes), that read would be refused; the copy then
             * completes when its last write leaves the GPU, the bytes still
             * in flight for the path's latency.
             */
            struct p2p_verdict v;
            p2psim__p2p(p, x->src.gpu, x->dst.gpu, &v);
            if (read) {
                plan_direct(pl, x->dst.gpu, GPU_DMA_PULL, x->dst.addr, bus,
                            false);
            } else {
                plan_direct(pl, x->src.gpu, GPU_DMA_PUSH, x->src.addr, bus,
                            !v.reads_allowed);
            }
        }
    } else {
        pl->staged = true;
    }
    return 0;
}

static int start_direct(struct xop *x, const struct xplan *pl, unsigned ce)
{
    x->dma = calloc(1, sizeof(*x->dma));
    if (!x->dma) {
        return -SIM_ENOMEM;
    }
    x->direct = true;
    x->gpu = pl->gpu;
    x->ce = ce;
    x->dma->dir = pl->dir;
    x->dma->no_flush = pl->no_flush;
    x->dma->local_addr = pl->local;
    x->dma->remote_addr = pl->remote;
    x->dma->len_bytes = x->len;
    return submit_on(x, pl->gpu, ce, x->dma, direct_done);
}

/*
 * Ordered copies. A copy behind one that is not done yet joins its engine
 * where one GPU drives both directly: the engine then gives the order
 * (models/gpu/copy_engine.c, "Ordering"). Anything else waits for the
 * end of the copy before, which starts it again (xop_finish). Copies
 * start in the order they were submitted at the same instant, and a copy
 * never starts before the one it follows (p2psim_copy_after), so the one
 * before has started, or waits itself, when this one starts.
 */
static void xop_start(struct sim *sim, struct sim_event *ev)
{
    struct xop *x = SIM_CONTAINER_OF(ev, struct xop, start);
    struct xplan pl = { 0 };
    int rc = xop_plan(x, &pl);
    const struct xop *a = x->after;
    if (rc == 0 && a &&
        (pl.staged || !a->started || !a->direct || a->gpu != pl.gpu)) {
        x->waiting = true;
        return;
    }
    x->started = true;
    x->res.t_start = sim_now(sim);
    if (rc == 0) {
        rc = pl.staged ? start_staged(x)
                       : start_direct(x, &pl, a ? a->ce
                                                : next_ce(x->p, pl.gpu));
    }
    if (rc < 0) {
        x->res.status = exec_nomem(x->p, rc, "starting a copy");
        xop_finish(x);
    }
}

int p2psim_copy(struct p2psim *p, const struct p2psim_loc *dst,
                const struct p2psim_loc *src, uint64_t len, unsigned flags,
                sim_time_t start_at, p2psim_done_fn *done, void *arg)
{
    return p2psim_copy_after(p, 0, dst, src, len, flags, start_at, done, arg,
                             NULL);
}

/* The copy with this id if it is not done yet, else NULL. */
static struct xop *xop_find(const struct p2psim *p, uint64_t id)
{
    /* Newest first: a stream names the copy it has just submitted. */
    for (struct xop *x = p->xops; x && x->id >= id; x = x->next) {
        if (x->id == id) {
            return x;
        }
    }
    return NULL;
}

int p2psim_copy_after(struct p2psim *p, uint64_t after,
                      const struct p2psim_loc *dst,
                      const struct p2psim_loc *src, uint64_t len,
                      unsigned flags, sim_time_t start_at,
                      p2psim_done_fn *done, void *arg, uint64_t *id)
{
    unsigned n = p2psim_gpu_count(p);
    if (len == 0 || (dst->kind == P2PSIM_DEVICE && dst->gpu >= n) ||
        (src->kind == P2PSIM_DEVICE && src->gpu >= n) ||
        (dst->kind == P2PSIM_HOST && src->kind == P2PSIM_HOST) ||
        after > p->next_copy_id) {
        return -SIM_EINVAL;
    }
    struct xop *x = calloc(1, sizeof(*x));
    if (!x) {
        return -SIM_ENOMEM;
    }
    x->p = p;
    x->id = ++p->next_copy_id;
    x->dst = *dst;
    x->src = *src;
    x->len = len;
    x->flags = flags;
    x->done = done;
    x->arg = arg;
    struct sim *sim = p2psim_sim(p);
    sim_time_t now = sim_now(sim);
    x->start_at = start_at > now ? start_at : now;
    struct xop *a = after ? xop_find(p, after) : NULL;
    if (a) {
        x->after = a;
        struct xop **pp = &a->followers;
        while (*pp) {
            pp = &(*pp)->next_follower;
        }
        *pp = x;
        if (a->start_at > x->start_at) {
            x->start_at = a->start_at;
        }
    }
    x->next = p->xops;
    if (p->xops) {
        p->xops->prev = x;
    }
    p->xops = x;
    sim_event_init(&x->start, xop_start);
    sim_event_schedule_at(sim, &x->start, x->start_at);
    p->n_ops++;
    if (id) {
        *id = x->id;
    }
    return 0;
}

/* ---- fills --------------------------------------------------------------- */

/*
 * Model: a fill is one copy-engine operation on the GPU that owns the
 * memory: the engine's setup, then len bytes written through the HBM
 * serialiser, then the HBM latency; the bytes are set when it completes.
 * The GPU model has no fill direction, so the operation is issued as a
 * LOCAL copy of the first ceil(len / 2) bytes onto themselves: a LOCAL
 * copy charges read + write, 2 x ceil(len / 2) bytes, which is the len
 * bytes a fill writes (one more for an odd len), and copying bytes onto
 * themselves changes nothing before the fill sets them. CUDA runs a
 * memset as a kernel on the SMs; the engine's setup stands in for that
 * launch.
 */
struct fop {
    struct p2psim *p;
    struct fop *next, *prev;    /* p->fops */
    struct sim_event start;
    unsigned gpu;
    uint64_t addr, len;
    uint8_t value;
    p2psim_done_fn *done;
    void *arg;
    struct p2psim_copy_result res;
    struct gpu_dma dma;
};

/* Take f out of p->fops (it is done, or the machine closes). */
static void fop_unlink(struct fop *f)
{
    if (f->prev) {
        f->prev->next = f->next;
    } else {
        f->p->fops = f->next;
    }
    if (f->next) {
        f->next->prev = f->prev;
    }
}

static void fop_finish(struct fop *f)
{
    f->p->n_ops--;
    fop_unlink(f);
    f->res.t_end = sim_now(p2psim_sim(f->p));
    if (f->done) {
        f->done(f->arg, &f->res);
    }
    free(f);
}

static void fill_done(struct gpu_dma *d)
{
    struct fop *f = d->user;
    if (d->status < 0) {
        f->res.status = d->status;
    } else {
        struct sim_component *g = fab_gpu(f->p->m->fab, f->gpu);
        int rc = mem_sparse_fill(gpu_hbm(g), f->addr, f->value, f->len);
        if (rc < 0) {
            f->res.status = exec_nomem(f->p, rc, "pages for a fill");
        }
    }
    fop_finish(f);
}

static void fop_start(struct sim *sim, struct sim_event *ev)
{
    struct fop *f = SIM_CONTAINER_OF(ev, struct fop, start);
    f->res.t_start = sim_now(sim);
    f->dma.dir = GPU_DMA_LOCAL;
    f->dma.local_addr = f->addr;
    f->dma.remote_addr = f->addr;
    f->dma.len_bytes = (f->len + 1) / 2;
    f->dma.ce = next_ce(f->p, f->gpu);
    f->dma.done = fill_done;
    f->dma.user = f;
    int rc = exec_dma_submit(f->p, f->gpu, &f->dma);
    if (rc < 0) {
        f->res.status = exec_nomem(f->p, rc, "starting a fill");
        fop_finish(f);
    }
}

int p2psim_fill(struct p2psim *p, unsigned gpu, uint64_t hbm_addr,
                uint8_t value, uint64_t len, sim_time_t start_at,
                p2psim_done_fn *done, void *arg)
{
    uint64_t size = p2psim_hbm_size(p, gpu);
    if (len == 0 || hbm_addr > size || len > size - hbm_addr) {
        return -SIM_EINVAL;
    }
    struct fop *f = calloc(1, sizeof(*f));
    if (!f) {
        return -SIM_ENOMEM;
    }
    f->p = p;
    f->gpu = gpu;
    f->addr = hbm_addr;
    f->len = len;
    f->value = value;
    f->done = done;
    f->arg = arg;
    struct sim *sim = p2psim_sim(p);
    sim_event_init(&f->start, fop_start);
    sim_time_t now = sim_now(sim);
    sim_event_schedule_at(sim, &f->start, start_at > now ? start_at : now);
    f->next = p->fops;
    if (p->fops) {
        p->fops->prev = f;
    }
    p->fops = f;
    p->n_ops++;
    return 0;
}

/* ---- direct HBM access, timed calls -------------------------------------- */

uint64_t p2psim_hbm_size(const struct p2psim *p, unsigned gpu)
{
    struct sim_component *g = fab_gpu(p->m->fab, gpu);
    return g ? gpu_mem_size(g) : 0;
}

int p2psim_hbm_read(struct p2psim *p, unsigned gpu, uint64_t hbm_addr,
                    void *dst, uint64_t len)
{
    struct sim_component *g = fab_gpu(p->m->fab, gpu);
    if (!g) {
        return -SIM_EINVAL;
    }
    return mem_sparse_read(gpu_hbm(g), hbm_addr, dst, len);
}

int p2psim_hbm_write(struct p2psim *p, unsigned gpu, uint64_t hbm_addr,
                     const void *src, uint64_t len)
{
    struct sim_component *g = fab_gpu(p->m->fab, gpu);
    if (!g) {
        return -SIM_EINVAL;
    }
    return mem_sparse_write(gpu_hbm(g), hbm_addr, src, len);
}

struct call_at {
    struct p2psim *p;
    struct call_at *next, *prev;        /* p->calls */
    struct sim_event ev;
    p2psim_call_fn *fn;
    void *arg;
};

static void call_at_fire(struct sim *sim, struct sim_event *ev)
{
    (void)sim;
    struct call_at *c = SIM_CONTAINER_OF(ev, struct call_at, ev);
    p2psim_call_fn *fn = c->fn;
    void *arg = c->arg;
    if (c->prev) {
        c->prev->next = c->next;
    } else {
        c->p->calls = c->next;
    }
    if (c->next) {
        c->next->prev = c->prev;
    }
    free(c);
    fn(arg);
}

int p2psim_call_at(struct p2psim *p, sim_time_t t, p2psim_call_fn *fn,
                   void *arg)
{
    struct call_at *c = calloc(1, sizeof(*c));
    if (!c) {
        return -SIM_ENOMEM;
    }
    c->p = p;
    c->fn = fn;
    c->arg = arg;
    c->next = p->calls;
    if (p->calls) {
        p->calls->prev = c;
    }
    p->calls = c;
    struct sim *sim = p2psim_sim(p);
    sim_event_init(&c->ev, call_at_fire);
    sim_time_t now = sim_now(sim);
    sim_event_schedule_at(sim, &c->ev, t > now ? t : now);
    return 0;
}

sim_time_t p2psim_now(const struct p2psim *p)
{
    return sim_now(p->m->sim);
}

int p2psim_run(struct p2psim *p)
{
    return sim_run(p->m->sim);
}

int p2psim_run_until(struct p2psim *p, sim_time_t t)
{
    return sim_run_until(p->m->sim, t);
}

int p2psim_set_fidelity(struct p2psim *p, const char *name,
                        struct sim_error *err)
{
    bool flow;
    if (!name || !strcmp(name, "tlp")) {
        flow = false;
    } else if (!strcmp(name, "flow")) {
        flow = true;
    } else {
        return sim_error_set(err, SIM_EINVAL,
                             "unknown fidelity '%s' (tlp, flow)", name);
    }
    if (flow == (p->flow != NULL)) {
        return 0;
    }
    if (p->n_ops > 0) {
        return sim_error_set(err, SIM_EBUSY,
                             "cannot change the fidelity with %u copies or "
                             "fills in flight: run the simulation first",
                             p->n_ops);
    }
    if (!flow) {
        p2psim__flow_destroy(p->flow);
        p->flow = NULL;
        return 0;
    }
    p->flow = p2psim__flow_create(p);
    return p->flow ? 0 : sim_error_set(err, SIM_ENOMEM, "out of memory");
}

const char *p2psim_fidelity(const struct p2psim *p)
{
    return p->flow ? "flow" : "tlp";
}

void p2psim_set_staging_chunk(struct p2psim *p, uint64_t bytes)
{
    if (bytes >= EXEC_ALIGN) {
        p->chunk = bytes & ~(EXEC_ALIGN - 1);
    }
}

/*
 * The machine closes with operations in flight (a program that exits with
 * an asynchronous copy or memset running, a server whose client left):
 * they are dropped without their done or fn being called (what the caller
 * gave as arg is the caller's to free). Their events leave the queue
 * first; the engines and links that still hold their DMA descriptors and
 * TLPs are torn down after this without looking at them.
 */
static void ops_drop(struct p2psim *p)
{
    struct sim *sim = p2psim_sim(p);
    while (p->xops) {
        struct xop *x = p->xops;
        p->xops = x->next;
        sim_event_cancel(sim, &x->start);
        free(x->dma);
        free(x);
    }
    while (p->fops) {
        struct fop *f = p->fops;
        p->fops = f->next;
        sim_event_cancel(sim, &f->start);
        free(f);
    }
    while (p->calls) {
        struct call_at *c = p->calls;
        p->calls = c->next;
        sim_event_cancel(sim, &c->ev);
        free(c);
    }
    p->n_ops = 0;
}
