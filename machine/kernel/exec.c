/*
 * machine/kernel/exec.c - the kernel executor: a grid's blocks on a GPU's SMs,
 * its warps, and what a warp's memory request does.
 *
 * A grid starts at its launch time. Blocks go to SMs, at most per_sm per
 * SM (the residency the runtime computed from threads, blocks and shared
 * memory per SM), the rest as blocks finish. A block's warps run until
 * they stop (kernel.h's enum kx_stop): a C warp when each running thread
 * has reached a device-API call (cthread.c), a PTX warp when the
 * interpreter needs global memory (ptx/). Either way the stop is a
 * struct ptx_mem_req, the one request format of both paths, served here:
 *
 *  - addresses resolve, lane by lane, through the runtime's resolver (UVA
 *    -> this GPU's HBM, a peer's, pinned host memory); a peer is reached
 *    through its NVLink window when the pair talks NVLink, else through a
 *    BAR1 mapping made on first use (p2psim_peer_map);
 *  - loads and stores coalesce: the lanes' bytes in one 128-byte line of
 *    one target become one request of the smallest aligned 32, 64 or
 *    128-byte segment that holds them (stores: one per contiguous run);
 *    atomics go lane by lane, in lane order;
 *  - a warp waits for its loads and atomics; stores and reductions are
 *    fire-and-forget, counted until acknowledged (sm.h says when);
 *  - fences: .cta orders nothing beyond program order; .gpu waits until
 *    the warp's stores are acknowledged; .sys also issues a FLUSH on the
 *    SM (drains write combining, reads back every destination written).
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
 * Model: concurrent grids on one GPU do not share residency limits: each
 * sees every SM free.
 */
#include <config.h>

#include "machine/kernel/kernel.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/kernel/kernel_int.h"
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
/* Peers are mapped through BAR1 in regions of this size on first use. */
#define KX_PEER_REGION_BYTES (UINT64_C(2) << 20)
/* A PTX warp yields after this many instructions, so that a warp
 * spinning on shared memory lets the others run (no time passes). */
#define KX_PTX_YIELD 4096u

static uint64_t kx_ptx_instr;

uint64_t p2psim_kernel_ptx_instructions(void)
{
    return kx_ptx_instr;
}

static void warp_step(struct kx_warp *w);
static void block_warp_done(struct kx_warp *w);
static void grid_dispatch(struct kx_grid *gr);

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
static void kx_nomem(struct kx_grid *gr, const char *what)
{
    kx__fail(gr, P2PSIM_KERNEL_FAULT, "out of memory (%s)", what);
    sim_component_nomem(gr->gpu, what);
}

uint64_t kx__time_sreg(struct kx_grid *gr, enum ptx_time_sreg which)
{
    sim_time_t now = sim_now(gr->sim);
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

/* ---- addresses ------------------------------------------------------------- */

/* A lane's address as the SM model wants it: local HBM or a bus address. */
struct kx_target {
    bool remote;
    uint64_t addr;
};

static const struct exec_peer_map *peer_map_find(const struct p2psim *p,
                                                 unsigned gpu, uint64_t hbm,
                                                 uint64_t len)
{
    for (unsigned i = 0; i < p->n_map; i++) {
        const struct exec_peer_map *m = &p->map[i];
        if (m->gpu == gpu && hbm >= m->hbm && hbm - m->hbm < m->len &&
            len <= m->len - (hbm - m->hbm)) {
            return m;
        }
    }
    return NULL;
}

/* The bus address by which this grid's GPU reaches byte hbm of GPU peer. */
static int peer_bus_addr(struct kx_grid *gr, unsigned peer, uint64_t hbm,
                         uint64_t len, uint64_t *bus)
{
    struct p2psim *p = gr->p;
    /* The verdict is a function of the machine: asked once per grid and
     * peer (a path computation per lane and access dominated the wall
     * time of peer kernels). */
    if (peer < KX_MAX_PEERS && !gr->peer_known[peer]) {
        struct p2p_verdict v;
        gr->peer_known[peer] = true;
        gr->peer_nvl[peer] = p2psim__p2p(p, gr->l.gpu, peer, &v) == 0 &&
                             v.transport == TRANSPORT_NVLINK;
        gr->peer_nvl_base[peer] =
            gr->peer_nvl[peer] ? gpu_nvlink_base(fab_gpu(p->m->fab, peer))
                               : 0;
    }
    bool nvl;
    uint64_t nvl_base = 0;
    if (peer < KX_MAX_PEERS) {
        nvl = gr->peer_nvl[peer];
        nvl_base = gr->peer_nvl_base[peer];
    } else {
        struct p2p_verdict v;
        nvl = p2psim__p2p(p, gr->l.gpu, peer, &v) == 0 &&
              v.transport == TRANSPORT_NVLINK;
        if (nvl) {
            nvl_base = gpu_nvlink_base(fab_gpu(p->m->fab, peer));
        }
    }
    if (nvl) {
        *bus = nvl_base + hbm;
        return 0;
    }
    const struct exec_peer_map *m = peer_map_find(p, peer, hbm, len);
    if (!m) {
        uint64_t size = p2psim_hbm_size(p, peer);
        uint64_t base = hbm & ~(KX_PEER_REGION_BYTES - 1);
        uint64_t n = KX_PEER_REGION_BYTES;
        if (base + n > size) {
            n = size - base;
        }
        if (p2psim_peer_map(p, peer, base, n) < 0) {
            return -1;          /* BAR1 exhausted */
        }
        m = peer_map_find(p, peer, hbm, len);
        if (!m) {
            return -1;
        }
    }
    *bus = m->bus + (hbm - m->hbm);
    return 0;
}

static int resolve(struct kx_grid *gr, uint64_t va, unsigned len,
                   struct kx_target *t)
{
    struct p2psim_loc loc;
    if (gr->l.resolve(gr->l.resolve_arg, gr->l.gpu, va, len, &loc) < 0) {
        return -1;
    }
    if (loc.kind == P2PSIM_HOST) {
        t->remote = true;
        t->addr = loc.addr;
        return 0;
    }
    if (loc.gpu == gr->l.gpu) {
        t->remote = false;
        t->addr = loc.addr;
        return 0;
    }
    t->remote = true;
    return peer_bus_addr(gr, loc.gpu, loc.addr, len, &t->addr);
}

/* ---- sub-requests: what a warp request becomes -------------------------- */

struct kx_sub {
    struct gpu_sm_req r;        /* first: the SM model's request */
    struct kx_grid *gr;
    struct kx_sub *live_prev, *live_next; /* the grid's (gr->subs) */
    struct kx_warp *w;          /* NULL: the flush at the grid's end */
    uint32_t lanes;             /* LOAD: lanes served; ATOMIC: one lane */
    uint64_t va;                /* LOAD: address of r.data[0] */
    bool store;                 /* counted in stores_out */
};

static void warp_mem_complete(struct kx_warp *w);
static void warp_fence_check(struct kx_warp *w);

/* A request of grid gr, on its list until sub_free; NULL out of memory. */
static struct kx_sub *sub_alloc(struct kx_grid *gr)
{
    struct kx_sub *s = calloc(1, sizeof(*s));
    if (!s) {
        return NULL;
    }
    s->gr = gr;
    s->live_next = gr->subs;
    if (gr->subs) {
        gr->subs->live_prev = s;
    }
    gr->subs = s;
    return s;
}

static void sub_free(struct kx_sub *s)
{
    struct kx_grid *gr = s->gr;
    if (s->live_prev) {
        s->live_prev->live_next = s->live_next;
    } else {
        gr->subs = s->live_next;
    }
    if (s->live_next) {
        s->live_next->live_prev = s->live_prev;
    }
    free(s);
}

static void sub_done(struct gpu_sm_req *r)
{
    struct kx_sub *s = (struct kx_sub *)r;
    struct kx_warp *w = s->w;
    struct kx_grid *gr = w->b->gr;
    if (r->status) {
        kx__fail(gr, P2PSIM_KERNEL_FAULT,
                 "GPU %u: a %s at bus address 0x%llx got an error "
                 "completion", gr->l.gpu,
                 r->kind == GPU_SM_LOAD ? "load" :
                 r->kind == GPU_SM_STORE ? "store" : "atomic",
                 (unsigned long long)r->addr);
    }
    if (s->store) {
        w->stores_out--;
        gr->stores_out--;
        sub_free(s);
        warp_fence_check(w);
        if (gr->ending) {
            grid_dispatch(gr);
        }
        return;
    }
    struct ptx_mem_req *q = &w->req;
    if (r->kind == GPU_SM_LOAD) {
        for (unsigned l = 0; l < KX_WARP; l++) {
            if (s->lanes & (1u << l)) {
                memcpy(q->result[l], r->data + (q->addr[l] - s->va),
                       q->bytes_per_lane);
            }
        }
    } else if (r->kind == GPU_SM_ATOMIC) {
        for (unsigned l = 0; l < KX_WARP; l++) {
            if (s->lanes & (1u << l)) {
                q->result[l][0] = r->old;
                q->result[l][1] = 0;
            }
        }
    }
    sub_free(s);
    if (--w->pending == 0) {
        warp_mem_complete(w);
    }
}

static struct kx_sub *sub_new(struct kx_warp *w, enum gpu_sm_kind kind,
                              const struct kx_target *t)
{
    struct kx_sub *s = sub_alloc(w->b->gr);
    if (!s) {
        kx_nomem(w->b->gr, "a warp's memory request");
        return NULL;
    }
    s->w = w;
    s->r.kind = kind;
    s->r.sm = w->b->sm;
    s->r.remote = t ? t->remote : false;
    s->r.addr = t ? t->addr : 0;
    s->r.done = sub_done;
    s->r.user = s;
    return s;
}

static bool sub_submit(struct kx_warp *w, struct kx_sub *s)
{
    struct kx_grid *gr = w->b->gr;
    int rc = gpu_sm_submit(gr->gpu, &s->r);
    if (rc < 0) {
        kx__fail(gr, P2PSIM_KERNEL_FAULT,
                 "GPU %u: SM request refused (%s) at 0x%llx", gr->l.gpu,
                 sim_strerror(rc), (unsigned long long)s->r.addr);
        sub_free(s);
        return false;
    }
    if (s->store) {
        w->stores_out++;
        gr->stores_out++;
    } else {
        w->pending++;
    }
    return true;
}

/* ---- fences ---------------------------------------------------------------- */

static void fence_flush_done(struct gpu_sm_req *r)
{
    struct kx_sub *s = (struct kx_sub *)r;
    struct kx_warp *w = s->w;
    if (r->status) {
        kx__fail(w->b->gr, P2PSIM_KERNEL_FAULT,
                 "GPU %u: a fence's flushing read got an error completion",
                 w->b->gr->l.gpu);
    }
    sub_free(s);
    w->flush_pending--;
    warp_fence_check(w);
}

static bool issue_access(struct kx_warp *w);

/* The fence the warp waits on may be over: continue. */
static void warp_fence_check(struct kx_warp *w)
{
    if (!w->fence_wait || w->stores_out || w->flush_pending) {
        return;
    }
    w->fence_wait = false;
    if (w->access_after_fence) {
        w->access_after_fence = false;
        if (!issue_access(w)) {
            return;             /* waits for loads or atomics */
        }
    }
    warp_mem_complete(w);
}

/* Start a fence of scope; true if it is already over. */
static bool fence_start(struct kx_warp *w, enum ptx_mem_scope scope)
{
    if (scope == PTX_SCOPE_CTA) {
        return true;
    }
    if (scope == PTX_SCOPE_SYS) {
        struct kx_sub *s = sub_new(w, GPU_SM_FLUSH, NULL);
        if (!s) {
            return true;
        }
        s->r.done = fence_flush_done;
        if (gpu_sm_submit(w->b->gr->gpu, &s->r) < 0) {
            sub_free(s);
            return true;
        }
        w->flush_pending++;
    }
    if (w->stores_out == 0 && w->flush_pending == 0) {
        return true;
    }
    w->fence_wait = true;
    return false;
}

/* ---- loads, stores, atomics ---------------------------------------------- */

static unsigned segment_bytes(unsigned lo, unsigned hi)
{
    for (unsigned s = 32; s < GPU_SM_LINE_BYTES; s *= 2) {
        if (lo / s == (hi - 1) / s) {
            return s;
        }
    }
    return GPU_SM_LINE_BYTES;
}

static bool bad_size(struct kx_warp *w, const struct ptx_mem_req *q,
                     unsigned l)
{
    unsigned n = q->bytes_per_lane;
    if ((n == 1 || n == 2 || n == 4 || n == 8 || n == 16) &&
        (q->addr[l] & (n - 1)) == 0) {
        return false;
    }
    kx__fail(w->b->gr, P2PSIM_KERNEL_MISUSE,
             "GPU %u: misaligned or bad-sized access of %u bytes at 0x%llx",
             w->b->gr->l.gpu, n, (unsigned long long)q->addr[l]);
    return true;
}

/* Loads and stores of the lanes in mask, one line of one target at a time. */
static void issue_ldst(struct kx_warp *w)
{
    struct ptx_mem_req *q = &w->req;
    struct kx_grid *gr = w->b->gr;
    uint32_t todo = q->mask;
    struct kx_target tl[KX_WARP];
    for (unsigned l = 0; l < KX_WARP; l++) {
        if (!(todo & (1u << l))) {
            continue;
        }
        if (bad_size(w, q, l)) {
            return;
        }
        if (resolve(gr, q->addr[l], q->bytes_per_lane, &tl[l]) < 0) {
            kx__fail(gr, P2PSIM_KERNEL_FAULT,
                     "GPU %u: illegal address 0x%llx (%u bytes) in block "
                     "%u thread %u", gr->l.gpu,
                     (unsigned long long)q->addr[l], q->bytes_per_lane,
                     w->b->linear, w->index * KX_WARP + l);
            return;
        }
    }
    const uint64_t line_mask = ~(uint64_t)(GPU_SM_LINE_BYTES - 1);
    while (todo) {
        unsigned f = (unsigned)__builtin_ctz(todo);
        uint64_t line = tl[f].addr & line_mask;
        bool remote = tl[f].remote;
        uint32_t group = 0;
        unsigned lo = GPU_SM_LINE_BYTES, hi = 0;
        uint8_t buf[GPU_SM_LINE_BYTES], mask[GPU_SM_LINE_BYTES];
        memset(mask, 0, sizeof(mask));
        for (unsigned l = f; l < KX_WARP; l++) {
            if (!(todo & (1u << l)) || tl[l].remote != remote ||
                (tl[l].addr & line_mask) != line) {
                continue;
            }
            group |= 1u << l;
            unsigned off = (unsigned)(tl[l].addr - line);
            if (off < lo) {
                lo = off;
            }
            if (off + q->bytes_per_lane > hi) {
                hi = off + q->bytes_per_lane;
            }
            if (q->op == PTX_MEM_ST) {
                memcpy(buf + off, q->data[l], q->bytes_per_lane);
                memset(mask + off, 1, q->bytes_per_lane);
            }
        }
        todo &= ~group;
        if (q->op == PTX_MEM_LD) {
            unsigned seg = segment_bytes(lo, hi);
            unsigned start = lo / seg * seg;
            struct kx_target t = { remote, line + start };
            struct kx_sub *s = sub_new(w, GPU_SM_LOAD, &t);
            if (!s) {
                return;
            }
            s->r.len = seg;
            s->lanes = group;
            /* va of segment byte 0, from the first lane's address */
            s->va = q->addr[f] - (tl[f].addr - (line + start));
            if (!sub_submit(w, s)) {
                return;
            }
            continue;
        }
        for (unsigned i = lo; i < hi;) {
            if (!mask[i]) {
                i++;
                continue;
            }
            unsigned j = i;
            while (j < hi && mask[j]) {
                j++;
            }
            struct kx_target t = { remote, line + i };
            struct kx_sub *s = sub_new(w, GPU_SM_STORE, &t);
            if (!s) {
                return;
            }
            s->r.len = j - i;
            memcpy(s->r.data, buf + i, j - i);
            s->store = true;
            if (!sub_submit(w, s)) {
                return;
            }
            i = j;
        }
    }
}

static enum gpu_sm_type atom_type(enum ptx_atom_type t)
{
    switch (t) {
    case PTX_ATYPE_S32: return GPU_SM_S32;
    case PTX_ATYPE_B64:
    case PTX_ATYPE_U64: return GPU_SM_U64;
    case PTX_ATYPE_S64: return GPU_SM_S64;
    case PTX_ATYPE_F32: return GPU_SM_F32;
    case PTX_ATYPE_F64: return GPU_SM_F64;
    default: return GPU_SM_U32;
    }
}

static void issue_atomics(struct kx_warp *w)
{
    struct ptx_mem_req *q = &w->req;
    struct kx_grid *gr = w->b->gr;
    enum gpu_sm_type type = atom_type(q->atype);
    unsigned n = gpu_sm_type_bytes(type);
    for (unsigned l = 0; l < KX_WARP; l++) {
        if (!(q->mask & (1u << l))) {
            continue;
        }
        struct kx_target t;
        if ((q->addr[l] & (n - 1)) != 0) {
            kx__fail(gr, P2PSIM_KERNEL_MISUSE,
                     "GPU %u: misaligned atomic at 0x%llx", gr->l.gpu,
                     (unsigned long long)q->addr[l]);
            return;
        }
        if (resolve(gr, q->addr[l], n, &t) < 0) {
            kx__fail(gr, P2PSIM_KERNEL_FAULT,
                     "GPU %u: illegal address 0x%llx (atomic) in block %u "
                     "thread %u", gr->l.gpu, (unsigned long long)q->addr[l],
                     w->b->linear, w->index * KX_WARP + l);
            return;
        }
        struct kx_sub *s = sub_new(w, GPU_SM_ATOMIC, &t);
        if (!s) {
            return;
        }
        s->r.type = type;
        s->r.operand = q->data[l][0];
        s->r.compare = q->cmp[l];
        s->lanes = 1u << l;
        switch (q->atom) {
        case PTX_ATOM_SUB:
            s->r.atom = GPU_SM_ATOM_ADD;
            s->r.operand = (uint64_t)0 - q->data[l][0];
            if (type == GPU_SM_F32 || type == GPU_SM_F64) {
                /* float sub is add of the negation: flip the sign bit */
                s->r.operand = q->data[l][0] ^
                               (n == 4 ? UINT64_C(0x80000000)
                                       : UINT64_C(0x8000000000000000));
            }
            break;
        case PTX_ATOM_EXCH: s->r.atom = GPU_SM_ATOM_EXCH; break;
        case PTX_ATOM_CAS: s->r.atom = GPU_SM_ATOM_CAS; break;
        case PTX_ATOM_MIN: s->r.atom = GPU_SM_ATOM_MIN; break;
        case PTX_ATOM_MAX: s->r.atom = GPU_SM_ATOM_MAX; break;
        case PTX_ATOM_INC: s->r.atom = GPU_SM_ATOM_INC; break;
        case PTX_ATOM_DEC: s->r.atom = GPU_SM_ATOM_DEC; break;
        case PTX_ATOM_AND: s->r.atom = GPU_SM_ATOM_AND; break;
        case PTX_ATOM_OR: s->r.atom = GPU_SM_ATOM_OR; break;
        case PTX_ATOM_XOR: s->r.atom = GPU_SM_ATOM_XOR; break;
        default: s->r.atom = GPU_SM_ATOM_ADD; break;
        }
        /* A reduction returns nothing: the warp does not wait for it. */
        s->store = q->op == PTX_MEM_RED;
        if (!sub_submit(w, s)) {
            return;
        }
    }
}

/* Issue the access part of w->req; true if the warp may go on now. */
static bool issue_access(struct kx_warp *w)
{
    if (w->req.op == PTX_MEM_ATOM || w->req.op == PTX_MEM_RED) {
        issue_atomics(w);
    } else {
        issue_ldst(w);
    }
    return w->pending == 0;
}

/* Serve w->req; true if it is over already. */
static bool warp_mem_issue(struct kx_warp *w)
{
    struct ptx_mem_req *q = &w->req;
    if (q->op == PTX_MEM_FENCE) {
        return fence_start(w, q->scope);
    }
    bool release = q->sem == PTX_SEM_RELEASE || q->sem == PTX_SEM_ACQ_REL ||
                   q->sem == PTX_SEM_SC;
    if (release && !fence_start(w, q->scope)) {
        w->access_after_fence = true;
        return false;
    }
    return issue_access(w);
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

static void warp_mem_complete(struct kx_warp *w)
{
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
    enum ptx_stop s = ptx_warp_run(w->pw, &w->req);
    kx_ptx_instr += ptx_warp_instr_count(w->pw) - before;
    switch (s) {
    case PTX_STOP_MEM: return KX_MEM;
    case PTX_STOP_BAR: return KX_BAR;
    case PTX_STOP_YIELD: return KX_YIELD;
    case PTX_STOP_EXIT: return KX_EXIT;
    default: return KX_ERROR;
    }
}

static void block_barrier_check(struct kx_block *b);
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
            if (!warp_mem_issue(w)) {
                return;         /* a completion continues it */
            }
            if (gr->status) {
                continue;
            }
            warp_resume(w);
            continue;
        case KX_BAR:
            w->at_bar = true;
            w->b->bar_arrived++;
            block_barrier_check(w->b);
            return;
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
            kx__fail(gr, P2PSIM_KERNEL_PTX, "%s",
                     w->req.error ? w->req.error : "PTX execution error");
            block_warp_done(w);
            return;
        }
    }
}

/* Release the block's barrier when every live warp has arrived. */
static void block_barrier_check(struct kx_block *b)
{
    if (b->live_warps == 0 || b->bar_arrived < b->live_warps) {
        return;
    }
    b->bar_arrived = 0;
    for (unsigned i = 0; i < b->n_warps; i++) {
        struct kx_warp *w = &b->warps[i];
        if (w->at_bar) {
            w->at_bar = false;
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

static void block_free_warps(struct kx_block *b)
{
    for (unsigned i = 0; i < b->n_warps; i++) {
        if (b->warps[i].pw) {
            ptx_warp_free(b->warps[i].pw);
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
        block_barrier_check(b);
        return;
    }
    b->finished = true;
    block_free_warps(b);
    gr->sm_load[b->sm]--;
    gr->live_blocks--;
    grid_dispatch(gr);
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
    b->n_warps = gr->warps_per_block;
    b->live_warps = b->n_warps;
    b->smem_bytes = gr->l.static_smem + gr->l.dyn_smem;
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
            c.yield_after = KX_PTX_YIELD;
            struct ptx_error err;
            w->pw = ptx_warp_new(gr->l.pk, gr->params, &c, &err);
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
        sub_free(gr->subs);     /* only when closed mid-kernel */
    }
    while (gr->blocks) {
        struct kx_block *b = gr->blocks;
        gr->blocks = b->next;
        if (!b->finished) {
            block_free_warps(b);
        }
        free(b->warps);
        free(b);
    }
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
    sub_free((struct kx_sub *)r);
    gr->end_flushes--;
    grid_dispatch(gr);
}

/* Start blocks where SMs have room; at the end, flush and finish. */
static void grid_dispatch(struct kx_grid *gr)
{
    if (gr->ending) {
        if (gr->end_flushes == 0 && gr->stores_out == 0) {
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
            if (gr->sm_load[s] < gr->per_sm) {
                best = s;
                break;
            }
        }
        if (best == gr->n_sm) {
            break;
        }
        gr->sm_load[best]++;
        gr->sm_used[best] = true;
        gr->live_blocks++;
        int rc = block_start(gr, gr->next_block++, best);
        if (rc < 0) {
            /* The block never runs: it ends here (else the grid waits
             * for it forever); kx__fail has said why, or: */
            gr->sm_load[best]--;
            gr->live_blocks--;
            if (rc == -SIM_ENOMEM) {
                kx_nomem(gr, "a kernel block");
            }
        }
    }
    if (gr->live_blocks || (!gr->status && gr->next_block < gr->n_blocks)) {
        return;
    }
    /* Every block is done: the end of a kernel flushes each SM. */
    gr->ending = true;
    for (unsigned k = 0; k < gr->n_sm; k++) {
        if (!gr->sm_used[k]) {
            continue;
        }
        struct kx_sub *s = sub_alloc(gr);
        if (!s) {
            kx_nomem(gr, "the flush at a kernel's end");
            continue;
        }
        struct gpu_sm_req *r = &s->r;
        r->kind = GPU_SM_FLUSH;
        r->sm = k;
        r->done = end_flush_done;
        r->user = gr;
        if (gpu_sm_submit(gr->gpu, r) < 0) {
            sub_free(s);
            continue;
        }
        gr->end_flushes++;
    }
    grid_dispatch(gr);
}

static void grid_start(struct sim *sim, struct sim_event *ev)
{
    struct kx_grid *gr = SIM_CONTAINER_OF(ev, struct kx_grid, start_ev);
    gr->t_start = sim_now(sim);
    grid_dispatch(gr);
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
    gr->l = *l;
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
    int rc = gr->sm_load && gr->sm_used ? grid_copy_params(gr, l)
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
}
