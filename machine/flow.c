/*
 * machine/flow.c - the flow fidelity: each copy-engine operation is one flow
 * sharing the machine's resources max-min fairly, instead of a stream of
 * TLPs through the link, switch and root-complex models.
 *
 * What stays as in the TLP fidelity: exec.c decides the operations
 * (direct copies, staged copies through two pinned chunk buffers, fills)
 * and hands each to a GPU copy engine; only the engine is replaced
 * (p2psim__flow_submit for gpu_dma_submit), its operations in order and
 * pipelined as copy_engine.c runs them ("the copy engines", below):
 *
 *   queued -> setup (ce-setup) -> head -> streaming -> tail -> done()
 *                                  ^          ^           ^
 *                     flow_plan.c: fixed latencies, and the share of
 *                     each resource per payload byte while streaming
 *
 * Streaming flows share the resources of flow_int.h by progressive
 * filling ("max-min fair rates"); an operation's bytes move at its end
 * ("the bytes"). Not modelled here: the order of TLPs (ordering, relaxed
 * ordering), queueing delay (latencies are those of an idle machine),
 * per-TLP traces and the models' counters (links, switches and root
 * complexes see no TLP; the IOMMU does, page by page, flow_plan.c).
 *
 * Costs: a rate computation is FLOW_OVERHEAD_ROUNDS fillings of at most
 * (flows) rounds, each O(flows x uses + resources), at every start and
 * end of a stream; the 8-GPU all-to-all of bench/flow (56 copies) takes
 * about 3 ms in all. Events: four per operation plus one per change of
 * the set of streaming flows.
 */
#include <config.h>

#include "machine/flow.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "machine/flow_int.h"
#include "machine/p2psim.h"
#include "machine/p2psim_int.h"
#include "machine/fabric.h"
#include "machine/kinds.h"
#include "models/gpu/gpu.h"
#include "models/host/hostmem.h"
#include "models/mem/sparse.h"
#include "models/nvlink/nvlink.h"
#include "models/nvlink/power.h"
#include "models/pcie/pcie.h"
#include "machine/topology.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/sim.h"
#include "sim/trace.h"

/* Bytes moved per step when an operation lands its data. */
#define FLOW_MOVE_CHUNK (UINT64_C(1) << 20)
/* A flow that nothing bounds moves this fast (bytes/s). */
#define FLOW_RATE_UNBOUNDED 1e18
/* Relative slack when deciding that a resource is full. */
#define FLOW_EPS 1e-9
/* Rate computations to settle the overheads (flow_rates), and the most
 * of a resource they may take. */
#define FLOW_OVERHEAD_ROUNDS 3
#define FLOW_OVERHEAD_MAX 0.5

enum flow_phase { OP_QUEUED, OP_SETUP, OP_WAIT, OP_HEAD, OP_STREAM, OP_TAIL,
                  OP_DRAINED };

struct flow_op {
    struct p2psim_flow *f;
    struct gpu_dma *op;
    struct sim_component *g;
    unsigned gpu;
    struct flow_op *next;       /* the engine's FIFO */
    struct sim_event ev;        /* end of setup, head and tail */
    enum flow_phase phase;
    struct flow_plan plan;
    /* streaming */
    double left;                /* payload bytes still to stream */
    double rate;                /* bytes/s */
    sim_time_t end_ps;          /* when it will have streamed them all */
    bool frozen;                /* water-filling scratch */
    bool issued;                /* its engine has moved on (see the engines) */
    bool nvl_stream;            /* holds the NVLinks awake (power.h) */
};

struct flow_res {
    const void *owner;
    unsigned kind;              /* enum flow_res_kind (+ credit index) */
    double cap;                 /* units/s, or units held (tags, credits) */
    double over;                /* overhead the flows bring, units/s */
    double load;                /* water-filling: units/s allocated */
    double weight;              /* ...: sum of coefs of rising flows */
    unsigned n_rising;          /* ...: rising flows using it */
    bool full;                  /* ...: no room left */
    bool blocked;               /* ...: a link whose buffers hold TLPs
                                   that wait further on (head of line) */
};

struct flow_ce {
    struct flow_op *head, *tail;    /* every operation not yet done */
    struct flow_op *cur;            /* set up or issuing; NULL: none */
};

struct p2psim_flow {
    struct p2psim *p;
    struct sim *sim;
    struct flow_res *res;
    unsigned n_res, cap_res;
    struct flow_op **act;       /* streaming flows */
    unsigned n_act, cap_act;
    sim_time_t t_rates;         /* rates valid since */
    struct sim_event ev;        /* the earliest end of a stream */
    struct flow_ce **ce;        /* [gpu][engine] */
    unsigned n_gpu;
    unsigned n_ops;             /* queued or running */
    uint8_t *buf;               /* FLOW_MOVE_CHUNK bytes */
};

static void flow_due(struct sim *sim, struct sim_event *ev);
static void op_event(struct sim *sim, struct sim_event *ev);
static void op_issued(struct flow_op *o);
static void op_sent(struct flow_op *o);

/* ---- resources ----------------------------------------------------------- */

int flow__res(struct p2psim_flow *f, const void *owner,
              unsigned kind, double cap)
{
    for (unsigned i = 0; i < f->n_res; i++) {
        if (f->res[i].owner == owner && f->res[i].kind == kind) {
            return (int)i;
        }
    }
    if (f->n_res == f->cap_res) {
        unsigned cap_n = f->cap_res ? 2 * f->cap_res : 64;
        void *n = realloc(f->res, cap_n * sizeof(*f->res));
        if (!n) {
            return sim_fail_nomem(f->sim, "the flow fidelity",
                                  "its table of resources");
        }
        f->res = n;
        f->cap_res = cap_n;
    }
    f->res[f->n_res] = (struct flow_res){ .owner = owner, .kind = kind,
                                          .cap = cap };
    return (int)f->n_res++;
}

/* ---- max-min fair rates -------------------------------------------------- */

/*
 * The resources (flow_int.h), rates: each direction of every link (PCIe
 * links charge wire bytes at the negotiated rate, their reverse direction
 * the DLLPs; socket links header + payload; ideal wires with a rate),
 * each root complex's P2P serialiser, each host memory's channel, each
 * GPU's HBM serialiser. Resources held for a round trip: the credits each
 * PCIe receiver advertises (per class, header and data), and each GPU's
 * tag space; a flow holds rate x round trip of them (Little's law). A
 * streaming flow f takes coef(f, r) units of resource r per payload byte
 * per second; its rate is set by progressive filling (water-filling): all
 * rates rise together until a resource is full or a flow reaches its own
 * bound (its engine's outstanding reads); the flows it holds are frozen,
 * the others rise on. The result is the max-min fair allocation,
 * recomputed whenever a flow starts or ends, and an event is due at the
 * earliest end.
 */

/* Room left on r for the flows still rising. */
static double fill_room(const struct flow_res *r)
{
    return r->cap - r->over - r->load;
}

/*
 * The next increment every rising flow can take: the least, over the
 * resources they hold, of the room left per unit of their summed coefs,
 * and over the rising flows, of the room to their own bound. *res_at or
 * *flow_at names what sets it (the other is -1).
 */
static double fill_step(const struct p2psim_flow *f, int *res_at, int *flow_at)
{
    double d = INFINITY;
    *res_at = *flow_at = -1;
    for (unsigned i = 0; i < f->n_res; i++) {
        const struct flow_res *r = &f->res[i];
        if (r->n_rising > 0) {
            double room = fill_room(r);
            double step = room > 0 && r->weight > 0 ? room / r->weight : 0;
            if (step < d) {
                d = step;
                *res_at = (int)i;
            }
        }
    }
    for (unsigned i = 0; i < f->n_act; i++) {
        const struct flow_op *o = f->act[i];
        if (!o->frozen && o->plan.cap > 0 && o->plan.cap - o->rate < d) {
            d = fmax(o->plan.cap - o->rate, 0);
            *res_at = -1;
            *flow_at = (int)i;
        }
    }
    return d;
}

/* Freeze o: it rises no more, and stops weighing on its resources. */
static void fill_freeze(struct p2psim_flow *f, struct flow_op *o)
{
    o->frozen = true;
    for (unsigned u = 0; u < o->plan.n_use; u++) {
        const struct flow_use *use = &o->plan.use[u];
        if (!use->overhead) {
            f->res[use->res].weight -= use->coef;
            f->res[use->res].n_rising--;
        }
    }
}

/*
 * Head-of-line blocking: a flow held back somewhere on its data's route
 * queues its TLPs there, and behind that in the receive buffers of the
 * links before (credits are per link, not per flow); every other flow
 * through those links then waits behind it, taking turns with it (a
 * GPU's engines alternate TLPs; a root complex passes the TLPs of one
 * port in order). So when a flow freezes, the links before the place it
 * is held are blocked, and the flows crossing them freeze with it, at the
 * same rate; this spreads backwards, link by link. Memories (host DRAM
 * into an ideal wire, HBM) and tags hold nothing back.
 * Model: max-min sharing stands for the models' arbitration (engines
 * taking turns per TLP, egress queues in arrival order): equal TLP rates
 * give equal byte rates only for equal TLP sizes, and an egress port
 * shared by several ingress ports serves them about equally in the TLP
 * fidelity, not each flow equally.
 */

/*
 * Is o held: at its own bound, or holding a full resource? *cut: the
 * first place on its data's route where it is held back (INT_MAX: none:
 * the bound or a memory holds it, and they back-pressure nothing).
 */
static bool fill_is_held(const struct p2psim_flow *f, const struct flow_op *o,
                         int *cut)
{
    bool held = o->rate >= FLOW_RATE_UNBOUNDED ||
                (o->plan.cap > 0 && o->rate >= o->plan.cap * (1 - FLOW_EPS));
    *cut = INT_MAX;
    for (unsigned u = 0; u < o->plan.n_use; u++) {
        const struct flow_use *use = &o->plan.use[u];
        if (!use->overhead && f->res[use->res].full) {
            held = true;
            if (use->pos >= 0 && use->pos < *cut) {
                *cut = use->pos;
            }
        }
    }
    return held;
}

/*
 * Head-of-line blocking. o is held back at place cut of its route: its
 * TLPs queue there and, further back, fill the receive buffers of the
 * links before it (those into switches and root complexes), which their
 * other flows share: those links are blocked.
 */
static void fill_block_behind(struct p2psim_flow *f, const struct flow_op *o,
                              int cut)
{
    for (unsigned u = 0; u < o->plan.n_use; u++) {
        const struct flow_use *use = &o->plan.use[u];
        if (use->hol && use->pos < cut) {
            f->res[use->res].blocked = true;
        }
    }
}

/* Where o crosses a blocked link first (INT_MAX: nowhere). */
static int fill_blocked_at(const struct p2psim_flow *f, const struct flow_op *o)
{
    int at = INT_MAX;
    for (unsigned u = 0; u < o->plan.n_use; u++) {
        const struct flow_use *use = &o->plan.use[u];
        if (use->hol && f->res[use->res].blocked && use->pos < at) {
            at = use->pos;
        }
    }
    return at;
}

/*
 * Freeze what this round holds: flows at a bound or a full resource,
 * then, round after round, flows crossing a link blocked behind a held
 * flow, which may block links behind them in turn. Returns how many.
 */
static unsigned fill_freeze_held(struct p2psim_flow *f, int flow_at)
{
    unsigned n = 0;
    for (unsigned i = 0; i < f->n_act; i++) {
        struct flow_op *o = f->act[i];
        int cut;
        if (!o->frozen && (fill_is_held(f, o, &cut) || (int)i == flow_at)) {
            fill_freeze(f, o);
            fill_block_behind(f, o, cut);
            n++;
        }
    }
    for (bool more = n > 0; more;) {
        more = false;
        for (unsigned i = 0; i < f->n_act; i++) {
            struct flow_op *o = f->act[i];
            int at = o->frozen ? INT_MAX : fill_blocked_at(f, o);
            if (at != INT_MAX) {
                fill_freeze(f, o);
                fill_block_behind(f, o, at);
                n++;
                more = true;
            }
        }
    }
    return n;
}

/*
 * One progressive filling over the streaming flows, the resources' room
 * reduced by the overhead (r->over) the flows bring. Each round freezes
 * at least the flows held by what set its step, so there are at most as
 * many rounds as flows.
 */
static void fill(struct p2psim_flow *f)
{
    for (unsigned i = 0; i < f->n_res; i++) {
        f->res[i].load = f->res[i].weight = 0;
        f->res[i].n_rising = 0;
        f->res[i].full = f->res[i].blocked = false;
    }
    for (unsigned i = 0; i < f->n_act; i++) {
        struct flow_op *o = f->act[i];
        o->rate = 0;
        o->frozen = false;
        for (unsigned u = 0; u < o->plan.n_use; u++) {
            const struct flow_use *use = &o->plan.use[u];
            if (!use->overhead) {
                f->res[use->res].weight += use->coef;
                f->res[use->res].n_rising++;
            }
        }
    }
    unsigned rising = f->n_act;
    while (rising > 0) {
        int res_at, flow_at;
        double d = fill_step(f, &res_at, &flow_at);
        if (isinf(d)) {
            d = FLOW_RATE_UNBOUNDED;
        }
        for (unsigned i = 0; i < f->n_act; i++) {
            struct flow_op *o = f->act[i];
            if (o->frozen) {
                continue;
            }
            o->rate += d;
            for (unsigned u = 0; u < o->plan.n_use; u++) {
                const struct flow_use *use = &o->plan.use[u];
                if (!use->overhead) {
                    f->res[use->res].load += use->coef * d;
                }
            }
        }
        for (unsigned i = 0; i < f->n_res; i++) {
            struct flow_res *r = &f->res[i];
            r->full = r->full || (int)i == res_at ||
                      (r->n_rising > 0 &&
                       fill_room(r) <= r->cap * FLOW_EPS);
        }
        unsigned n = fill_freeze_held(f, flow_at);
        if (SIM_NEVER(n == 0)) {
            break;              /* nothing set the step: cannot happen */
        }
        rising -= n;
    }
}

/*
 * The max-min fair rates. Overheads (DLLPs on the reverse directions, a
 * pull's read requests) take room but hold no flow back (as DLLPs go
 * ahead of TLPs, and a GPU's engines take turns per TLP, not per byte),
 * so they are found by iterating: fill, take the overhead the rates
 * bring, fill again in the room left. They are a few percent of a link:
 * FLOW_OVERHEAD_ROUNDS settle them well below the 3% the fidelities are
 * held to.
 */
static void flow_rates(struct p2psim_flow *f)
{
    for (unsigned i = 0; i < f->n_res; i++) {
        f->res[i].over = 0;
    }
    for (unsigned round = 0; round < FLOW_OVERHEAD_ROUNDS; round++) {
        fill(f);
        if (round + 1 == FLOW_OVERHEAD_ROUNDS) {
            break;
        }
        bool any = false;
        for (unsigned i = 0; i < f->n_res; i++) {
            f->res[i].over = 0;
        }
        for (unsigned i = 0; i < f->n_act; i++) {
            const struct flow_op *o = f->act[i];
            for (unsigned u = 0; u < o->plan.n_use; u++) {
                const struct flow_use *use = &o->plan.use[u];
                if (use->overhead) {
                    struct flow_res *r = &f->res[use->res];
                    r->over = fmin(r->over + use->coef * o->rate,
                                   r->cap * FLOW_OVERHEAD_MAX);
                    any = true;
                }
            }
        }
        if (!any) {
            break;
        }
    }
}

/* Stream the time since the rates were set. */
static void flow_advance(struct p2psim_flow *f, sim_time_t now)
{
    double dt = (double)(now - f->t_rates) * 1e-12;
    for (unsigned i = 0; i < f->n_act; i++) {
        struct flow_op *o = f->act[i];
        o->left = fmax(o->left - o->rate * dt, 0);
    }
    f->t_rates = now;
}

/* New rates, new ends, and the event for the earliest one. */
static void flow_replan(struct p2psim_flow *f)
{
    sim_time_t now = sim_now(f->sim);
    flow_rates(f);
    sim_time_t first = SIM_TIME_MAX;
    for (unsigned i = 0; i < f->n_act; i++) {
        struct flow_op *o = f->act[i];
        double ps = o->rate > 0 ? ceil(o->left / o->rate * 1e12) : 1e30;
        o->end_ps = ps >= (double)(SIM_TIME_MAX - now)
                        ? SIM_TIME_MAX
                        : now + (sim_time_t)ps;
        first = o->end_ps < first ? o->end_ps : first;
    }
    if (sim_event_is_pending(&f->ev)) {
        sim_event_cancel(f->sim, &f->ev);
    }
    if (f->n_act > 0 && first != SIM_TIME_MAX) {
        sim_event_schedule_at(f->sim, &f->ev, first);
    }
}

/* ---- operations ---------------------------------------------------------- */

static void op_start_stream(struct p2psim_flow *f, struct flow_op *o)
{
    if (f->n_act == f->cap_act) {
        unsigned cap = f->cap_act ? 2 * f->cap_act : 32;
        void *n = realloc(f->act, cap * sizeof(*f->act));
        if (!n) {
            sim_fail_nomem(f->sim, "the flow fidelity",
                           "its table of active operations");
            return;
        }
        f->act = n;
        f->cap_act = cap;
    }
    flow_advance(f, sim_now(f->sim));
    o->phase = OP_STREAM;
    o->left = (double)o->op->len_bytes;
    o->op->t_first = sim_now(f->sim);
    f->act[f->n_act++] = o;
    flow_replan(f);
}

static void op_schedule(struct flow_op *o, enum flow_phase ph,
                        sim_time_t delay)
{
    o->phase = ph;
    sim_event_schedule(o->f->sim, &o->ev, delay);
}

/* Streams that are over go to their tail. */
static void flow_due(struct sim *sim, struct sim_event *ev)
{
    struct p2psim_flow *f = SIM_CONTAINER_OF(ev, struct p2psim_flow, ev);
    sim_time_t now = sim_now(sim);
    flow_advance(f, now);
    unsigned kept = 0;
    for (unsigned i = 0; i < f->n_act; i++) {
        struct flow_op *o = f->act[i];
        if (o->end_ps > now) {
            f->act[kept++] = o;
            continue;
        }
        o->left = 0;
        o->op->t_last = now;
        op_schedule(o, OP_TAIL, o->plan.tail_ps);
        op_sent(o);
    }
    f->n_act = kept;
    flow_replan(f);
}

/* ---- the bytes ----------------------------------------------------------- */

/*
 * The bytes move when the operation is done, all at once, from the
 * sparse stores (GPU HBM through BAR1 translations, host memory including
 * the program's attached buffers). Model: a copy reads its source at its
 * end, not while it streams, so copies racing on the same bytes can see
 * other values than in the TLP fidelity.
 */

/*
 * The store behind n bytes at bus address bus of completer c, and the
 * address in it (bus addresses in BAR1 may cross mappings: *contig says
 * how many bytes stay in one). NULL if nothing claims bus.
 */
static struct mem_sparse *bus_store(struct sim_component *c, uint64_t bus,
                                    uint64_t *at, uint64_t *contig)
{
    const struct mkind *mk = mkind_of(c);
    return mk && mk->completer ? mk->completer->bytes(c, bus, at, contig)
                               : NULL;
}

/*
 * Whether n bytes at bus address bus of completer c may hold something
 * other than zeros (see op_chunk_is_zero).
 */
static bool bus_is_backed(struct sim_component *c, uint64_t bus, uint64_t n)
{
    for (uint64_t done = 0; done < n;) {
        uint64_t at, contig;
        struct mem_sparse *m = bus_store(c, bus + done, &at, &contig);
        if (!m) {
            return true;        /* let the access report it */
        }
        uint64_t k = contig < n - done ? contig : n - done;
        if (mem_sparse_is_backed(m, at, k)) {
            return true;
        }
        done += k;
    }
    return false;
}

/* Read (dst) or write (src) n bytes at bus address bus of completer c. */
static int bus_access(struct sim_component *c, uint64_t bus, void *dst,
                      const void *src, uint64_t n)
{
    for (uint64_t done = 0; done < n;) {
        uint64_t at, contig;
        struct mem_sparse *m = bus_store(c, bus + done, &at, &contig);
        if (!m) {
            return -SIM_ERANGE;
        }
        uint64_t k = contig < n - done ? contig : n - done;
        int rc = src ? mem_sparse_write(m, at, (const uint8_t *)src + done, k)
                     : mem_sparse_read(m, at, (uint8_t *)dst + done, k);
        if (rc < 0) {
            return rc;
        }
        done += k;
    }
    return 0;
}

/*
 * Whether n bytes at offset at of o would copy zeros onto zeros: neither
 * source nor destination has backing. Then nothing readable changes, and
 * the chunk is skipped.
 * Model: such a copy backs no pages of the destination's store, where the
 * TLP fidelity backs them with zeros (only mem_sparse_backed_bytes, the
 * GPUs' hbm_backed_bytes statistic, can tell).
 */
static bool op_chunk_is_zero(const struct flow_op *o, uint64_t at, uint64_t n)
{
    const struct gpu_dma *op = o->op;
    struct mem_sparse *hbm = gpu_hbm(o->g);
    if (mem_sparse_is_backed(hbm, op->local_addr + at, n)) {
        return false;
    }
    if (op->dir == GPU_DMA_LOCAL) {
        return !mem_sparse_is_backed(hbm, op->remote_addr + at, n);
    }
    return !bus_is_backed(o->plan.remote, op->remote_addr + at, n);
}

/*
 * Land op's bytes: local HBM to the bus address (PUSH), the bus address
 * to local HBM (PULL), or within HBM (LOCAL: backwards when the
 * destination overlaps the source from above, as memmove).
 */
static int op_move(struct p2psim_flow *f, struct flow_op *o)
{
    struct gpu_dma *op = o->op;
    struct mem_sparse *hbm = gpu_hbm(o->g);
    uint64_t len = op->len_bytes;
    if (op->dir == GPU_DMA_LOCAL && op->remote_addr == op->local_addr) {
        return 0;
    }
    bool back = op->dir == GPU_DMA_LOCAL && op->remote_addr > op->local_addr &&
                op->remote_addr < op->local_addr + len;
    for (uint64_t done = 0; done < len;) {
        uint64_t n = len - done < FLOW_MOVE_CHUNK ? len - done
                                                  : FLOW_MOVE_CHUNK;
        uint64_t at = back ? len - done - n : done;
        if (op_chunk_is_zero(o, at, n)) {
            done += n;
            continue;
        }
        int rc;
        switch (op->dir) {
        case GPU_DMA_PUSH:
            rc = mem_sparse_read(hbm, op->local_addr + at, f->buf, n);
            if (rc == 0) {
                rc = bus_access(o->plan.remote, op->remote_addr + at, NULL,
                                f->buf, n);
            }
            break;
        case GPU_DMA_PULL:
            rc = bus_access(o->plan.remote, op->remote_addr + at, f->buf,
                            NULL, n);
            if (rc == 0) {
                rc = mem_sparse_write(hbm, op->local_addr + at, f->buf, n);
            }
            break;
        default:                /* LOCAL: local_addr -> remote_addr */
            rc = mem_sparse_read(hbm, op->local_addr + at, f->buf, n);
            if (rc == 0) {
                rc = mem_sparse_write(hbm, op->remote_addr + at, f->buf, n);
            }
            break;
        }
        if (rc < 0) {
            return rc;
        }
        done += n;
    }
    return 0;
}

/* ---- the copy engines ---------------------------------------------------- */

/*
 * Each engine runs its operations in order, pipelined as copy_engine.c
 * does (its header, "Ordering"): the next operation's setup (ce-setup)
 * starts once the current one has issued its last request (where the
 * current one holds the next back until it drains, a pull or a push over
 * several NVLinks, once it has drained: op_sent); it starts moving data
 * once no earlier operation drains, except pushes that leave by one port
 * of one link; operations end (their bytes land, done() runs) in order.
 * When an operation has issued its last request, here:
 *   - a push: when its stream ends (its tail is the last write's trip and
 *     the flushing read's round trip);
 *   - a pull: when its data are in (its last completion), as in
 *     copy_engine.c: a pull's data are its completions, and queued
 *     host-to-device copies on an H200 take a fixed time plus their size
 *     over the rate (data/hgx-h200-x2/ce_pipeline_probe.txt);
 *   - a local copy, or an operation refused at once: when it is done.
 */

static struct flow_ce *op_engine(struct flow_op *o)
{
    return &o->f->ce[o->gpu][o->op->ce];
}

static void op_setup(struct flow_op *o)
{
    struct gpu_params gp;
    gpu_get_params(o->g, &gp);
    op_engine(o)->cur = o;
    op_schedule(o, OP_SETUP, gpu_params_setup_ps(&gp, o->op->dir));
}

/* o has issued its last request: its engine sets the next one up. */
static void op_issued(struct flow_op *o)
{
    struct flow_ce *ce = op_engine(o);
    if (o->issued) {
        return;
    }
    o->issued = true;
    if (ce->cur == o) {
        ce->cur = NULL;
        if (o->next) {
            op_setup(o->next);
        }
    }
}

/* Whether an operation after o waits for o to drain (gpu.h). */
static bool op_holds_next(const struct flow_op *o)
{
    return gpu_dma_holds_next(o->g, o->op);
}

/* Whether o may start moving data: what drains before it allows it. */
static bool op_may_begin(const struct flow_op *o)
{
    for (const struct flow_op *e = op_engine((struct flow_op *)o)->head;
         e && e != o; e = e->next) {
        if (e->phase != OP_DRAINED && op_holds_next(e)) {
            return false;
        }
    }
    return true;
}

/* o has issued its last request; a pull, or a push over several ports,
 * only once it has drained (op_finish): the next operation waits for
 * that anyway, and sets up after it. */
static void op_sent(struct flow_op *o)
{
    if (o->op->dir == GPU_DMA_LOCAL || !op_holds_next(o)) {
        op_issued(o);
    }
}

/* The first NVLink o's data cross (its plan uses one of its directions),
 * or NULL. */
static const struct sim_link *op_nvlink(const struct flow_op *o)
{
    for (unsigned i = 0; i < o->plan.n_use; i++) {
        const struct flow_res *r = &o->f->res[o->plan.use[i].res];
        if ((r->kind == FLOW_RES_LINK_FROM_0 ||
             r->kind == FLOW_RES_LINK_FROM_1) &&
            ((const struct sim_link *)r->owner)->ops == &nvl_link_ops) {
            return r->owner;
        }
    }
    return NULL;
}

/*
 * The wait for sleeping NVLinks before o's first byte, and what o loses
 * while they settle (power.h): what the TLP fidelity's packets wait at
 * the GPU's NVLink port. o then holds them awake until it is done.
 */
static sim_time_t op_nvlink_wake(struct flow_op *o)
{
    struct nvl_power *pw = fab_nvlink_power(o->f->p->m->fab);
    const struct sim_link *l = pw ? op_nvlink(o) : NULL;
    if (!l) {
        return 0;
    }
    sim_time_t now = sim_now(o->f->sim);
    sim_time_t from = nvl_power_claim(pw, now, o->op->len_bytes);
    sim_time_t loss = nvl_power_settle_loss(pw, from, o->op->len_bytes,
                                            nvl_link_rate(l));
    nvl_power_stream(pw, +1, now);
    o->nvl_stream = true;
    return from - now + loss;
}

/* o is set up: it starts moving data once what came before allows. */
static void op_begin(struct flow_op *o)
{
    if (!op_may_begin(o)) {
        o->phase = OP_WAIT;
        return;
    }
    if (o->op->dir == GPU_DMA_LOCAL) {
        o->op->t_first = sim_now(o->f->sim);
    }
    if (!o->plan.fluid) {
        op_schedule(o, OP_TAIL, o->plan.head_ps + o->plan.tail_ps);
        op_sent(o);
        return;
    }
    op_schedule(o, OP_HEAD, o->plan.head_ps + op_nvlink_wake(o));
}

/* The operations at the head of o's engine that have drained are done, in
 * order: their bytes land, then done() runs (it may submit more). */
static void op_complete(struct flow_ce *ce)
{
    while (ce->head && ce->head->phase == OP_DRAINED) {
        struct flow_op *o = ce->head;
        struct p2psim_flow *f = o->f;
        struct gpu_dma *op = o->op;
        int rc = o->plan.move ? op_move(f, o) : 0;
        if (rc == -SIM_ENOMEM) {
            sim_component_nomem(o->g, "a page of memory");
        }
        if (rc < 0 && o->plan.status == 0) {
            o->plan.status = -SIM_EIO;
        }
        ce->head = o->next;
        if (!ce->head) {
            ce->tail = NULL;
        }
        op->status = o->plan.status;
        op->t_done = sim_now(f->sim);
        op->tlps = o->plan.tlps;
        f->n_ops--;
        if (sim_trace_wanted(f->sim, SIM_TP_CE_OP)) {
            struct sim_trace_record r = {
                .point = SIM_TP_CE_OP, .component = o->g->name,
                .a = op->ce, .msg = "flow", .data = op,
            };
            sim_trace_emit(f->sim, &r);
        }
        free(o);
        if (op->done) {
            op->done(op);
        }
    }
}

/* o's last completion is in: it has drained. */
static void op_finish(struct flow_op *o)
{
    struct flow_ce *ce = op_engine(o);
    if (o->nvl_stream) {
        o->nvl_stream = false;
        nvl_power_stream(fab_nvlink_power(o->f->p->m->fab), -1,
                         sim_now(o->f->sim));
    }
    op_issued(o);
    o->phase = OP_DRAINED;
    if (ce->cur && ce->cur->phase == OP_WAIT && op_may_begin(ce->cur)) {
        op_begin(ce->cur);
    }
    op_complete(ce);
}

static void op_event(struct sim *sim, struct sim_event *ev)
{
    struct flow_op *o = SIM_CONTAINER_OF(ev, struct flow_op, ev);
    (void)sim;
    switch (o->phase) {
    case OP_SETUP:
        flow__plan(o->f, o->g, o->op, &o->plan);
        op_begin(o);
        break;
    case OP_HEAD:
        op_start_stream(o->f, o);
        break;
    case OP_TAIL:
        op_finish(o);
        break;
    default:
        sim_bug("flow: operation event in phase %d", (int)o->phase);
    }
}

/* What gpu_dma_submit refuses (copy_engine.c, ce_op_is_valid). */
static int op_check(struct sim_component *g, const struct gpu_dma *op)
{
    uint64_t mem = gpu_mem_size(g);
    bool local_ok = op->local_addr < mem &&
                    op->len_bytes <= mem - op->local_addr;
    if (op->ce >= gpu_n_copy_engines(g) || op->len_bytes == 0 || !local_ok) {
        return -SIM_EINVAL;
    }
    switch (op->dir) {
    case GPU_DMA_LOCAL:
        return op->remote_addr < mem && op->len_bytes <= mem - op->remote_addr
                   ? 0 : -SIM_EINVAL;
    case GPU_DMA_PUSH:
    case GPU_DMA_PULL:
        if (op->remote_addr > UINT64_MAX - (op->len_bytes - 1) ||
            (op->mps && !pcie_size_is_valid(op->mps)) ||
            (op->mrrs && !pcie_size_is_valid(op->mrrs))) {
            return -SIM_EINVAL;
        }
        return sim_port_is_connected(sim_port_find(g, "pcie")) ? 0
                                                              : -SIM_ENOTCONN;
    }
    return -SIM_EINVAL;
}

int p2psim__flow_submit(struct p2psim_flow *f, unsigned gpu,
                        struct gpu_dma *op)
{
    struct sim_component *g = fab_gpu(f->p->m->fab, gpu);
    if (!g || !op) {
        return -SIM_EINVAL;
    }
    int rc = op_check(g, op);
    if (rc < 0) {
        return rc;
    }
    struct flow_op *o = calloc(1, sizeof(*o));
    if (!o) {
        return -SIM_ENOMEM;
    }
    o->f = f;
    o->op = op;
    o->g = g;
    o->gpu = gpu;
    o->phase = OP_QUEUED;
    sim_event_init(&o->ev, op_event);
    op->status = 0;
    op->t_submit = sim_now(f->sim);
    op->t_first = op->t_last = op->t_done = 0;
    op->tlps = 0;
    op->next = NULL;
    struct flow_ce *ce = op_engine(o);
    f->n_ops++;
    if (ce->tail) {
        ce->tail->next = o;
    } else {
        ce->head = o;
    }
    ce->tail = o;
    if (!ce->cur) {
        op_setup(o);
    }
    return 0;
}

/* ---- lifecycle ----------------------------------------------------------- */

struct p2psim_flow *p2psim__flow_create(struct p2psim *p)
{
    struct p2psim_flow *f = calloc(1, sizeof(*f));
    if (!f) {
        return NULL;
    }
    f->p = p;
    f->sim = p2psim_sim(p);
    f->t_rates = sim_now(f->sim);
    sim_event_init(&f->ev, flow_due);
    f->n_gpu = p2psim_gpu_count(p);
    f->ce = calloc(f->n_gpu ? f->n_gpu : 1, sizeof(*f->ce));
    f->buf = malloc(FLOW_MOVE_CHUNK);
    bool ok = f->ce && f->buf;
    for (unsigned i = 0; ok && i < f->n_gpu; i++) {
        unsigned n = gpu_n_copy_engines(fab_gpu(p->m->fab, i));
        f->ce[i] = calloc(n ? n : 1, sizeof(**f->ce));
        ok = f->ce[i] != NULL;
    }
    if (!ok) {
        p2psim__flow_destroy(f);
        return NULL;
    }
    return f;
}

void p2psim__flow_destroy(struct p2psim_flow *f)
{
    if (!f) {
        return;
    }
    if (sim_event_is_pending(&f->ev)) {
        sim_event_cancel(f->sim, &f->ev);
    }
    for (unsigned i = 0; f->ce && i < f->n_gpu && f->ce[i]; i++) {
        unsigned n = gpu_n_copy_engines(fab_gpu(f->p->m->fab, i));
        for (unsigned k = 0; k < (n ? n : 1); k++) {
            struct flow_op *o = f->ce[i][k].head;
            while (o) {
                struct flow_op *next = o->next;
                if (sim_event_is_pending(&o->ev)) {
                    sim_event_cancel(f->sim, &o->ev);
                }
                free(o);
                o = next;
            }
        }
        free(f->ce[i]);
    }
    free(f->ce);
    free(f->act);
    free(f->res);
    free(f->buf);
    free(f);
}
