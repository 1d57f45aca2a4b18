/*
 * machine/kernel/exec.c - the kernel executor: a grid's blocks on a GPU's SMs,
 * its warps; what a warp's memory request does is memory.c.
 *
 * A grid starts at its launch time. Blocks go to SMs, at most per_sm per
 * SM (the residency the runtime computed from threads, blocks and shared
 * memory per SM), the rest as blocks finish. A block's warps run until
 * they stop (kernel.h's enum kx_stop): a C warp when each running thread
 * has reached a device-API call (cthread.c), a PTX warp when the
 * interpreter needs global memory (ptx/). Either way the stop is a
 * struct ptx_mem_req, the one request format of both paths, served by
 * memory.c (addresses, coalescing, atomics, fences).
 *    A release access (or acq_rel/sc) does the fence of its scope first.
 *
 * Time comes only from memory: the SM's issue slot, HBM, the fabric, and
 * the waits above. Arithmetic, branches and shared memory take no time,
 * so a C kernel and a PTX kernel that make the same accesses take the
 * same time (docs/kernels.md).
 *
 * A grid ends when every block has finished: then each SM it used
 * flushes (a kernel's end makes its writes visible, as the end of a CUDA
 * kernel does) and done() runs when the last flush and store are
 * acknowledged.
 *
 * Concurrent grids on one GPU share its SMs: a block starts where the
 * warps of every grid's resident blocks leave room for its own (64 a
 * SM, or the grid's own residency if that is more), and a finished block
 * lets the oldest waiting grids start theirs. Dynamic parallelism's
 * trees of grids thus hold no more warps than the GPU has room for.
 */
#include <config.h>

#include "machine/kernel/kernel.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/kernel/kernel_int.h"
#include "machine/kernel/texture.h"
#include "machine/p2psim.h"
#include "machine/p2psim_int.h"
#include "machine/fabric.h"
#include "models/gpu/gpu.h"
#include "models/gpu/sm.h"
#include "machine/path.h"
#include "machine/topology.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/sim.h"

/* Residency without a figure from the runtime (compute capability 9.0:
 * 64 warps and 32 blocks per SM). */
#define KX_WARPS_PER_SM 64u
#define KX_BLOCKS_PER_SM 32u
/* A PTX warp yields after this many instructions, so that a warp
 * spinning on shared memory lets the others run (no time passes). */
#define KX_PTX_YIELD 4096u

static uint64_t kx_ptx_instr;
/* %gridid: launches numbered from 1 in the process */
static uint64_t kx_grid_ids;

uint64_t p2psim_kernel_ptx_instructions(void)
{
    return kx_ptx_instr;
}

static void warp_step(struct kx_warp *w);
/* The grids of GPU gpu with blocks waiting for room, oldest first, may
 * start them (a block of that GPU has finished). */
static void gpu_dispatch_waiting(struct p2psim *p, unsigned gpu)
{
    struct kx_grid *o = p->grids;
    while (o && o->live_next) {
        o = o->live_next;
    }
    for (; o; o = o->live_prev) {
        if (o->l.gpu == gpu && o->started && !o->ending && !o->status &&
            o->next_block < o->n_blocks) {
            kx__grid_dispatch(o);
        }
    }
}

/* Whether SM s has room for a block of gr, with every grid's warps. */
static bool sm_room(const struct kx_grid *gr, unsigned s)
{
    unsigned cap = gr->per_sm * gr->warps_per_block;
    if (cap < KX_WARPS_PER_SM) {
        cap = KX_WARPS_PER_SM;
    }
    return gr->sm_load[s] < gr->per_sm &&
           gr->gpu_warps[s] + gr->warps_per_block <= cap;
}

static void block_warp_done(struct kx_warp *w);

/* ---- failure --------------------------------------------------------------- */

void kx__fail(struct kx_grid *gr, int status, const char *fmt, ...)
{
    if (gr->status) {
        return;                 /* the first error is the one reported */
    }
    gr->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(gr->msg, sizeof(gr->msg), fmt, ap);
    va_end(ap);
    /* Warps parked at a barrier will never be released: end them. */
    for (struct kx_block *b = gr->blocks; b; b = b->next) {
        for (unsigned i = 0; i < b->n_warps && !b->finished; i++) {
            struct kx_warp *w = &b->warps[i];
            if (!w->done && (w->at_bar || w->at_gsync)) {
                w->at_bar = w->at_gsync = false;
                block_warp_done(w);
            }
        }
    }
}

/* Out of memory inside the run: the grid fails, and so does the
 * simulation, naming the GPU (sim/error.h, "Out of memory"). */
void kx__nomem(struct kx_grid *gr, const char *what)
{
    kx__fail(gr, P2PSIM_KERNEL_FAULT, "out of memory (%s)", what);
    sim_component_nomem(gr->gpu, what);
}

uint64_t kx__time_sreg(struct kx_grid *gr, enum ptx_time_sreg which)
{
    sim_time_t now = sim_now(gr->sim);
    gr->impure = true;          /* spin.c: the round has an input */
    if (which == PTX_SREG_GLOBALTIMER) {
        return now / SIM_PS_PER_NS;
    }
    struct gpu_sm_params prm;
    gpu_sm_get_params(gr->gpu, &prm);
    /* cycles = ps * hz / 1e12, without overflow for any realistic time */
    uint64_t cycles = (now / SIM_PS_PER_NS) * (prm.clock_hz / 1000000) / 1000;
    return which == PTX_SREG_CLOCK ? (uint32_t)cycles : cycles;
}

static uint64_t ptx_time(void *user, enum ptx_time_sreg which)
{
    return kx__time_sreg(user, which);
}

/* ---- warps ------------------------------------------------------------------ */

static void warp_resume(struct kx_warp *w)
{
    if (w->pw) {
        ptx_warp_resume(w->pw, &w->req);
    } else {
        kx__c_warp_resume(w);
    }
}

static sim_time_t yield_ps(struct kx_grid *gr);
static void spin_issue(struct kx_warp *w);

/* A parked warp's round: its yields, one after another as the
 * interpreter's, then its load again (spin.c). */
static void spin_yield_ev(struct sim *sim, struct sim_event *ev)
{
    struct kx_warp *w = SIM_CONTAINER_OF(ev, struct kx_warp, ev);
    (void)sim;
    if (w->b->gr->status) {
        kx__spin_reset(w);
        warp_step(w);
        return;
    }
    if (--w->spin.yields_left) {
        sim_event_schedule(w->b->gr->sim, &w->ev, yield_ps(w->b->gr));
        return;
    }
    spin_issue(w);
}

static void spin_issue(struct kx_warp *w)
{
    if (kx__warp_mem_issue(w)) {
        kx__warp_mem_complete(w);   /* failed: as the interpreter's */
    }
}

void kx__warp_mem_complete(struct kx_warp *w)
{
    if (w->pw && kx__spin_loaded(w)) {
        if (w->spin.round_yields == 0) {
            spin_issue(w);
            return;
        }
        w->spin.yields_left = w->spin.round_yields;
        sim_event_init(&w->ev, spin_yield_ev);
        sim_event_schedule(w->b->gr->sim, &w->ev, yield_ps(w->b->gr));
        return;
    }
    warp_resume(w);
    warp_step(w);
}

static void warp_continue_ev(struct sim *sim, struct sim_event *ev)
{
    (void)sim;
    warp_step(SIM_CONTAINER_OF(ev, struct kx_warp, ev));
}

static enum kx_stop warp_run(struct kx_warp *w)
{
    if (!w->pw) {
        return kx__c_warp_run(w);
    }
    uint64_t before = ptx_warp_instr_count(w->pw);
    w->b->gr->impure = false;
    enum ptx_stop s = ptx_warp_run(w->pw, &w->req);
    kx_ptx_instr += ptx_warp_instr_count(w->pw) - before;
    w->spin.impure |= w->b->gr->impure;
    enum kx_stop k;
    switch (s) {
    case PTX_STOP_MEM: k = KX_MEM; break;
    case PTX_STOP_BAR: k = KX_BAR; break;
    case PTX_STOP_YIELD: k = KX_YIELD; break;
    case PTX_STOP_EXIT: k = KX_EXIT; break;
    default: k = KX_ERROR; break;
    }
    kx__spin_stop(w, k);
    return k;
}

static void block_barrier_check(struct kx_block *b, unsigned id);
static void grid_sync_check(struct kx_grid *gr);

static sim_time_t yield_ps(struct kx_grid *gr)
{
    struct gpu_sm_params prm;
    gpu_sm_get_params(gr->gpu, &prm);
    return (sim_time_t)KX_PTX_YIELD * (SIM_PS_PER_S / prm.clock_hz);
}

static void warp_step(struct kx_warp *w)
{
    struct kx_grid *gr = w->b->gr;
    for (;;) {
        if (gr->status) {
            block_warp_done(w);
            return;
        }
        switch (warp_run(w)) {
        case KX_MEM:
            if (w->pw && (w->req.op == PTX_MEM_MALLOC ||
                          w->req.op == PTX_MEM_FREE)) {
                if (kx__heap_serve(gr, &w->req) == 0) {
                    warp_resume(w);
                }
                continue;
            }
            if (!kx__warp_mem_issue(w)) {
                return;         /* a completion continues it */
            }
            if (gr->status) {
                continue;
            }
            warp_resume(w);
            continue;
        case KX_BAR: {
            /* PTX: barrier a (0..15) of b threads (a multiple of the warp
             * size; none: every thread of the CTA), each warp arriving
             * counting the warp size; bar.arrive does not wait */
            struct kx_block *b = w->b;
            unsigned id = w->pw ? w->req.bar_id : 0;
            bool wait = !w->pw || w->req.bar_wait;
            if (id >= KX_BARS) {
                kx__fail(gr, P2PSIM_KERNEL_MISUSE, "barrier %u: PTX has 0 "
                         "to %u", id, KX_BARS - 1);
                continue;
            }
            if (w->pw && w->req.bar_count) {
                b->bar_want[id] = (w->req.bar_count + PTX_WARP_SIZE - 1) /
                                  PTX_WARP_SIZE;
            }
            b->bar_arrived[id]++;
            if (w->pw) {
                b->bar_true[id] += (uint32_t)__builtin_popcount(w->req.bar_pred);
                b->bar_lanes[id] += (uint32_t)__builtin_popcount(w->req.bar_mask);
            }
            if (!wait) {
                ptx_warp_bar_release(w->pw, 0, 0);
                block_barrier_check(b, id);
                continue;
            }
            w->at_bar = true;
            w->bar_id = id;
            block_barrier_check(b, id);
            return;
        }
        case KX_GSYNC:
            if (!gr->l.cooperative) {
                kx__fail(gr, P2PSIM_KERNEL_MISUSE,
                         "grid sync in a kernel not launched cooperatively");
                continue;
            }
            w->at_gsync = true;
            gr->gsync_arrived++;
            grid_sync_check(gr);
            return;
        case KX_YIELD:
            /* The one instruction cost: a long run without memory is
             * charged one SM cycle per instruction, so that a spin on
             * clock64 alone sees time pass (docs/kernels.md). */
            sim_event_init(&w->ev, warp_continue_ev);
            sim_event_schedule(gr->sim, &w->ev, yield_ps(gr));
            return;
        case KX_EXIT:
            block_warp_done(w);
            return;
        case KX_ERROR:
            kx__fail(gr, w->pw && w->req.assert_failed ? P2PSIM_KERNEL_ASSERT
                                                       : P2PSIM_KERNEL_PTX,
                     "%s",
                     w->req.error ? w->req.error : "PTX execution error");
            block_warp_done(w);
            return;
        }
    }
}

/* Release barrier @id of the block when the warps it expects (every
 * live warp when no count was given) have arrived. */
static void block_barrier_check(struct kx_block *b, unsigned id)
{
    unsigned want = b->bar_want[id] ? b->bar_want[id] : b->live_warps;
    if (b->live_warps == 0 || !b->bar_arrived[id] ||
        b->bar_arrived[id] < want) {
        return;
    }
    uint32_t n_true = b->bar_true[id], n_lanes = b->bar_lanes[id];
    b->bar_arrived[id] = b->bar_want[id] = 0;
    b->bar_true[id] = b->bar_lanes[id] = 0;
    for (unsigned i = 0; i < b->n_warps; i++) {
        struct kx_warp *w = &b->warps[i];
        if (w->at_bar && w->bar_id == id) {
            w->at_bar = false;
            if (w->pw) {
                ptx_warp_bar_release(w->pw, n_true, n_lanes);
            }
            sim_event_init(&w->ev, warp_continue_ev);
            sim_event_schedule(b->gr->sim, &w->ev, 0);
        }
    }
}

static void grid_sync_check(struct kx_grid *gr)
{
    if (gr->gsync_arrived < gr->gsync_total || gr->gsync_total == 0) {
        return;
    }
    gr->gsync_arrived = 0;
    for (struct kx_block *b = gr->blocks; b; b = b->next) {
        for (unsigned i = 0; i < b->n_warps; i++) {
            struct kx_warp *w = &b->warps[i];
            if (w->at_gsync) {
                w->at_gsync = false;
                sim_event_init(&w->ev, warp_continue_ev);
                sim_event_schedule(gr->sim, &w->ev, 0);
            }
        }
    }
}

/* ---- blocks ----------------------------------------------------------------- */

/* A finished block's PTX warp, kept for a later block of the grid (freed
 * when there is no room to keep it, or when the blocks still to start
 * have enough: dynamic parallelism keeps grids alive for their children,
 * thousands of them, each with the spares of its peak). */
static void spare_put(struct kx_grid *gr, struct ptx_warp *pw)
{
    if (gr->n_spare >= (gr->n_blocks - gr->next_block) *
                           gr->warps_per_block) {
        ptx_warp_free(pw);
        return;
    }
    if (gr->n_spare == gr->spare_cap) {
        size_t cap = gr->spare_cap ? 2 * gr->spare_cap : 64;
        struct ptx_warp **a = realloc(gr->spare, cap * sizeof(*a));
        if (!a) {
            ptx_warp_free(pw);
            return;
        }
        gr->spare = a;
        gr->spare_cap = cap;
    }
    gr->spare[gr->n_spare++] = pw;
}

/* The spare warps freed: the grid starts no more blocks. */
static void spare_free(struct kx_grid *gr)
{
    for (size_t i = 0; i < gr->n_spare; i++) {
        ptx_warp_free(gr->spare[i]);
    }
    free(gr->spare);
    gr->spare = NULL;
    gr->n_spare = gr->spare_cap = 0;
}

static void block_free_warps(struct kx_block *b)
{
    for (unsigned i = 0; i < b->n_warps; i++) {
        kx__spin_free(&b->warps[i]);
        if (b->warps[i].pw) {
            spare_put(b->gr, b->warps[i].pw);
            b->warps[i].pw = NULL;
        }
    }
    if (!b->gr->l.pk) {
        kx__c_block_fini(b);
    }
    free(b->smem);
    b->smem = NULL;
}

static void block_warp_done(struct kx_warp *w)
{
    struct kx_block *b = w->b;
    struct kx_grid *gr = b->gr;
    if (w->done) {
        return;
    }
    w->done = true;
    b->live_warps--;
    if (gr->l.cooperative) {
        gr->gsync_total--;      /* an exited warp no longer syncs */
        grid_sync_check(gr);
    }
    if (b->live_warps) {
        for (unsigned id = 0; id < KX_BARS; id++) {
            block_barrier_check(b, id);
        }
        return;
    }
    b->finished = true;
    block_free_warps(b);
    gr->sm_load[b->sm]--;
    gr->gpu_warps[b->sm] -= gr->warps_per_block;
    gr->live_blocks--;
    struct p2psim *p = gr->p;
    unsigned gpu = gr->l.gpu;
    kx__grid_dispatch(gr);      /* may free gr */
    gpu_dispatch_waiting(p, gpu);
}

static int block_start(struct kx_grid *gr, uint64_t linear, unsigned sm)
{
    struct kx_block *b = calloc(1, sizeof(*b));
    if (!b) {
        return -SIM_ENOMEM;
    }
    b->gr = gr;
    b->linear = (unsigned)linear;
    b->idx[0] = (unsigned)(linear % gr->l.grid[0]);
    b->idx[1] = (unsigned)(linear / gr->l.grid[0] % gr->l.grid[1]);
    b->idx[2] = (unsigned)(linear / gr->l.grid[0] / gr->l.grid[1]);
    b->sm = sm;
    b->null_stream = -1;
    b->n_warps = gr->warps_per_block;
    b->live_warps = b->n_warps;
    /* PTX: dynamic shared memory starts at its aligned offset past the
     * static variables (ptx.h, dyn_shared_offset) */
    b->smem_bytes = (gr->l.pk ? ptx_kernel_get_info(gr->l.pk)->dyn_shared_offset
                              : gr->l.static_smem) + gr->l.dyn_smem;
    b->warps = calloc(b->n_warps, sizeof(*b->warps));
    b->smem = calloc(1, b->smem_bytes ? b->smem_bytes : 1);
    b->next = gr->blocks;
    gr->blocks = b;
    if (!b->warps || !b->smem) {
        if (!b->warps) {
            b->n_warps = 0;     /* kx__fail walks them */
        }
        return -SIM_ENOMEM;
    }
    for (unsigned i = 0; i < b->n_warps; i++) {
        struct kx_warp *w = &b->warps[i];
        unsigned first = i * KX_WARP;
        unsigned n = gr->threads_per_block - first;
        w->b = b;
        w->index = i;
        w->exists = n >= KX_WARP ? UINT32_MAX : (1u << n) - 1;
        sim_event_init(&w->ev, warp_continue_ev);
    }
    if (!gr->l.pk) {
        if (kx__c_block_init(b) < 0) {
            return -SIM_ENOMEM;
        }
    } else {
        for (unsigned i = 0; i < b->n_warps; i++) {
            struct kx_warp *w = &b->warps[i];
            struct ptx_warp_ctx c;
            memset(&c, 0, sizeof(c));
            c.lane_mask = w->exists;
            for (unsigned l = 0; l < KX_WARP; l++) {
                unsigned t = i * KX_WARP + l;
                c.tid[l].x = t % gr->l.block[0];
                c.tid[l].y = t / gr->l.block[0] % gr->l.block[1];
                c.tid[l].z = t / gr->l.block[0] / gr->l.block[1];
            }
            c.ntid = (struct ptx_dim3){ gr->l.block[0], gr->l.block[1],
                                        gr->l.block[2] };
            c.ctaid = (struct ptx_dim3){ b->idx[0], b->idx[1], b->idx[2] };
            c.nctaid = (struct ptx_dim3){ gr->l.grid[0], gr->l.grid[1],
                                          gr->l.grid[2] };
            c.gridid = gr->gridid;
            c.envreg[1] = (uint32_t)(gr->l.grid_ws >> 32);
            c.envreg[2] = (uint32_t)gr->l.grid_ws;
            c.warpid = i;
            c.nwarpid = KX_WARPS_PER_SM;
            c.smid = sm;
            c.nsmid = gr->n_sm;
            c.shared = b->smem;
            c.shared_bytes = b->smem_bytes;
            /* Generic windows well above any UVA window. */
            c.shared_window_base = UINT64_C(0xfe0000000000);
            c.shared_window_bytes = UINT64_C(1) << 32;
            c.local_window_base = UINT64_C(0xff0000000000);
            c.local_window_bytes = UINT64_C(1) << 32;
            c.var_addrs = gr->vars;
            c.n_var_addrs = gr->l.n_vars;
            c.time_fn = ptx_time;
            c.time_user = gr;
            c.tex_ops = &kx_tex_ops;
            c.tex_user = gr;
            c.yield_after = KX_PTX_YIELD;
            c.devrt_fn = kx__devrt;
            c.devrt_user = w;
            struct ptx_error err;
            w->pw = gr->n_spare
                        ? ptx_warp_renew(gr->spare[--gr->n_spare], gr->l.pk,
                                         gr->params, &c, &err)
                        : ptx_warp_new(gr->l.pk, gr->params, &c, &err);
            if (!w->pw && err.code == PTX_ENOMEM) {
                return -SIM_ENOMEM;
            }
            if (!w->pw) {
                kx__fail(gr, P2PSIM_KERNEL_PTX, "%s", err.msg);
                return -SIM_EINVAL;
            }
        }
    }
    for (unsigned i = 0; i < b->n_warps; i++) {
        sim_event_schedule(gr->sim, &b->warps[i].ev, 0);
    }
    return 0;
}

/* ---- grids ------------------------------------------------------------------ */

static void grid_free(struct kx_grid *gr)
{
    if (gr->live_prev) {
        gr->live_prev->live_next = gr->live_next;
    } else if (gr->p->grids == gr) {
        gr->p->grids = gr->live_next;
    }
    if (gr->live_next) {
        gr->live_next->live_prev = gr->live_prev;
    }
    while (gr->subs) {
        kx__sub_free(gr->subs);     /* only when closed mid-kernel */
    }
    kx__sub_pool_free(gr);
    kx__cdp_free(gr);
    while (gr->blocks) {
        struct kx_block *b = gr->blocks;
        gr->blocks = b->next;
        if (!b->finished) {
            block_free_warps(b);
            gr->gpu_warps[b->sm] -= gr->warps_per_block;
        }
        free(b->warps);
        free(b);
    }
    spare_free(gr);
    free(gr->sm_load);
    free(gr->sm_used);
    free(gr->params);
    free(gr->argv);
    free(gr->vars);
    free(gr);
}

static void end_flush_done(struct gpu_sm_req *r)
{
    struct kx_grid *gr = r->user;
    kx__sub_free((struct kx_sub *)r);
    gr->end_flushes--;
    kx__grid_dispatch(gr);
}

/* Start blocks where SMs have room; at the end, flush and finish. */
void kx__grid_dispatch(struct kx_grid *gr)
{
    if (gr->ending) {
        if (gr->end_flushes == 0 && gr->stores_out == 0 &&
            kx__cdp_idle(gr)) {
            p2psim_kernel_done_fn *done = gr->l.done;
            void *arg = gr->l.done_arg;
            int status = gr->status;
            char msg[sizeof(gr->msg)];
            memcpy(msg, gr->msg, sizeof(msg));
            sim_time_t t = sim_now(gr->sim);
            grid_free(gr);
            if (done) {
                done(arg, status, status ? msg : NULL, t);
            }
        }
        return;
    }
    while (!gr->status && gr->next_block < gr->n_blocks) {
        unsigned best = gr->n_sm;
        for (unsigned k = 0; k < gr->n_sm; k++) {
            unsigned s = (unsigned)((gr->next_block + k) % gr->n_sm);
            if (sm_room(gr, s)) {
                best = s;
                break;
            }
        }
        if (best == gr->n_sm) {
            break;
        }
        gr->sm_load[best]++;
        gr->gpu_warps[best] += gr->warps_per_block;
        gr->sm_used[best] = true;
        gr->live_blocks++;
        int rc = block_start(gr, gr->next_block++, best);
        if (rc < 0) {
            /* The block never runs: it ends here (else the grid waits
             * for it forever); kx__fail has said why, or: */
            gr->sm_load[best]--;
            gr->gpu_warps[best] -= gr->warps_per_block;
            gr->live_blocks--;
            if (rc == -SIM_ENOMEM) {
                kx__nomem(gr, "a kernel block");
            }
        }
    }
    if (gr->live_blocks || (!gr->status && gr->next_block < gr->n_blocks)) {
        return;
    }
    /* Every block is done: the end of a kernel flushes each SM. The
     * spare warps go now, not when the grid ends: with dynamic
     * parallelism that waits for its children, and a tree of grids held
     * each its peak of warps (cdpAdvancedQuicksort: over 24 GB) */
    gr->ending = true;
    spare_free(gr);
    for (unsigned k = 0; k < gr->n_sm; k++) {
        if (!gr->sm_used[k]) {
            continue;
        }
        struct kx_sub *s = kx__sub_alloc(gr);
        if (!s) {
            kx__nomem(gr, "the flush at a kernel's end");
            continue;
        }
        struct gpu_sm_req *r = &s->r;
        r->kind = GPU_SM_FLUSH;
        r->sm = k;
        r->done = end_flush_done;
        r->user = gr;
        if (gpu_sm_submit(gr->gpu, r) < 0) {
            kx__sub_free(s);
            continue;
        }
        gr->end_flushes++;
    }
    kx__grid_dispatch(gr);
}

/* GPU gpu's resident warps per SM (n_sm), made at its first grid;
 * NULL: no memory. */
static unsigned *gpu_sm_warps(struct p2psim *p, unsigned gpu, unsigned n_sm)
{
    if (gpu >= p->n_sm_warps) {
        unsigned **a = realloc(p->sm_warps, (gpu + 1) * sizeof(*a));
        if (!a) {
            return NULL;
        }
        memset(a + p->n_sm_warps, 0,
               (gpu + 1 - p->n_sm_warps) * sizeof(*a));
        p->sm_warps = a;
        p->n_sm_warps = gpu + 1;
    }
    if (!p->sm_warps[gpu]) {
        p->sm_warps[gpu] = calloc(n_sm, sizeof(unsigned));
    }
    return p->sm_warps[gpu];
}

static void grid_start(struct sim *sim, struct sim_event *ev)
{
    struct kx_grid *gr = SIM_CONTAINER_OF(ev, struct kx_grid, start_ev);
    gr->t_start = sim_now(sim);
    gr->started = true;
    kx__grid_dispatch(gr);
}

static int grid_copy_params(struct kx_grid *gr, const struct p2psim_launch *l)
{
    if (l->pk) {
        gr->params = malloc(l->param_bytes ? l->param_bytes : 1);
        if (!gr->params) {
            return -SIM_ENOMEM;
        }
        if (l->param_bytes) {
            memcpy(gr->params, l->param_buf, l->param_bytes);
        }
        if (l->n_vars) {
            gr->vars = malloc(l->n_vars * sizeof(*gr->vars));
            if (!gr->vars) {
                return -SIM_ENOMEM;
            }
            memcpy(gr->vars, l->var_addrs, l->n_vars * sizeof(*gr->vars));
        }
        return 0;
    }
    unsigned n = p2psim_ckernel_n_args(l->ck);
    size_t total = 0;
    for (unsigned i = 0; i < n; i++) {
        total += (p2psim_ckernel_arg_bytes(l->ck, i) + 15) & ~(size_t)15;
    }
    gr->params = calloc(1, total ? total : 1);
    gr->argv = calloc(n ? n : 1, sizeof(void *));
    if (!gr->params || !gr->argv) {
        return -SIM_ENOMEM;
    }
    size_t off = 0;
    for (unsigned i = 0; i < n; i++) {
        size_t sz = p2psim_ckernel_arg_bytes(l->ck, i);
        if (!l->args || !l->args[i]) {
            return -SIM_EINVAL;
        }
        memcpy(gr->params + off, l->args[i], sz);
        gr->argv[i] = gr->params + off;
        off += (sz + 15) & ~(size_t)15;
    }
    return 0;
}

int p2psim_kernel_launch(struct p2psim *p, const struct p2psim_launch *l)
{
    return kx__grid_launch(p, l, NULL);
}

int kx__grid_launch(struct p2psim *p, const struct p2psim_launch *l,
                    struct kx_grid *parent)
{
    if (!p || !l || !l->resolve || (!l->ck == !l->pk) ||
        l->gpu >= p2psim_gpu_count(p)) {
        return -SIM_EINVAL;
    }
    uint64_t blocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    if (blocks == 0 || threads == 0 || threads > 1024) {
        return -SIM_EINVAL;
    }
    struct kx_grid *gr = calloc(1, sizeof(*gr));
    if (!gr) {
        return -SIM_ENOMEM;
    }
    gr->p = p;
    gr->parent = parent;
    gr->depth = parent ? parent->depth + 1 : 0;
    gr->tail_stream = -1;
    gr->park = kx__spin_enabled();
    gr->l = *l;
    gr->gridid = ++kx_grid_ids;
    gr->gpu = fab_gpu(p->m->fab, l->gpu);
    gr->sim = p->m->sim;
    gr->n_sm = gpu_sm_count(gr->gpu);
    gr->n_blocks = blocks;
    gr->threads_per_block = (unsigned)threads;
    gr->warps_per_block = (unsigned)((threads + KX_WARP - 1) / KX_WARP);
    gr->per_sm = l->blocks_per_sm;
    if (gr->per_sm == 0) {
        gr->per_sm = KX_WARPS_PER_SM / gr->warps_per_block;
        if (gr->per_sm > KX_BLOCKS_PER_SM) {
            gr->per_sm = KX_BLOCKS_PER_SM;
        }
        if (gr->per_sm == 0) {
            gr->per_sm = 1;
        }
    }
    if (l->cooperative) {
        gr->gsync_total = blocks * gr->warps_per_block;
        if (blocks > (uint64_t)gr->per_sm * gr->n_sm) {
            free(gr);
            return -SIM_EINVAL; /* cannot all be resident */
        }
    }
    gr->sm_load = calloc(gr->n_sm, sizeof(*gr->sm_load));
    gr->sm_used = calloc(gr->n_sm, sizeof(*gr->sm_used));
    gr->gpu_warps = gpu_sm_warps(p, l->gpu, gr->n_sm);
    int rc = gr->sm_load && gr->sm_used && gr->gpu_warps
                 ? grid_copy_params(gr, l)
                 : -SIM_ENOMEM;
    if (rc < 0) {
        grid_free(gr);
        return rc;
    }
    gr->live_next = p->grids;
    if (p->grids) {
        p->grids->live_prev = gr;
    }
    p->grids = gr;
    /* The GPU's front end takes launch-latency from the doorbell (the
     * runtime's start_at) to the first block on an SM (sm.h). */
    struct gpu_sm_params prm;
    gpu_sm_get_params(gr->gpu, &prm);
    sim_event_init(&gr->start_ev, grid_start);
    sim_time_t now = sim_now(gr->sim);
    sim_event_schedule_at(gr->sim, &gr->start_ev,
                          sim_time_add(l->start_at > now ? l->start_at : now,
                                       prm.launch_ps));
    return 0;
}

void p2psim__kernel_fini(struct p2psim *p)
{
    while (p->grids) {
        struct kx_grid *gr = p->grids;
        /* Stopped mid-kernel: its events leave the queue first. */
        sim_event_cancel(gr->sim, &gr->start_ev);
        for (struct kx_sub *s = gr->subs; s; s = s->live_next) {
            sim_event_cancel(gr->sim, &s->r.ev);
        }
        for (struct kx_block *b = gr->blocks; b; b = b->next) {
            for (unsigned i = 0; i < b->n_warps; i++) {
                sim_event_cancel(gr->sim, &b->warps[i].ev);
            }
        }
        grid_free(gr);
    }
    for (unsigned g = 0; g < p->n_sm_warps; g++) {
        free(p->sm_warps[g]);
    }
    free(p->sm_warps);
    p->sm_warps = NULL;
    p->n_sm_warps = 0;
    kx__heap_fini(p);
}
