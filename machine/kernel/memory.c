/*
 * machine/kernel/memory.c - what a warp's memory request does: the stop of
 * a C or PTX warp (struct ptx_mem_req, kernel_int.h) becomes requests to
 * the SM model (models/gpu/sm.h), and their completions resume the warp.
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
 */
#include <config.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "machine/kernel/kernel.h"
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

/* Peers are mapped through BAR1 in regions of this size on first use. */
#define KX_PEER_REGION_BYTES (UINT64_C(2) << 20)

/* ---- addresses ------------------------------------------------------------- */

/* A lane's address as the SM model wants it: local HBM or a bus address,
 * and whether the path there routes AtomicOps. */
struct kx_target {
    bool remote;
    bool no_atomicops;
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

/* What the verdict says of a peer: over NVLink (and its window's base)
 * and with native atomics. */
struct kx_peer {
    bool nvl, atomics;
    uint64_t nvl_base;
};

static struct kx_peer peer_ask(struct kx_grid *gr, unsigned peer)
{
    struct p2psim *p = gr->p;
    struct p2p_verdict v;
    struct kx_peer k = { false, false, 0 };
    if (p2psim__p2p(p, gr->l.gpu, peer, &v) == 0) {
        k.nvl = v.transport == TRANSPORT_NVLINK;
        k.atomics = v.atomics;
    }
    if (k.nvl) {
        k.nvl_base = gpu_nvlink_base(fab_gpu(p->m->fab, peer));
    }
    return k;
}

/* The verdict is a function of the machine: asked once per grid and peer
 * (a path computation per lane and access dominated the wall time of
 * peer kernels). */
static struct kx_peer peer_facts(struct kx_grid *gr, unsigned peer)
{
    if (peer >= KX_MAX_PEERS) {
        return peer_ask(gr, peer);
    }
    if (!gr->peer_known[peer]) {
        struct kx_peer k = peer_ask(gr, peer);
        gr->peer_known[peer] = true;
        gr->peer_nvl[peer] = k.nvl;
        gr->peer_atomics[peer] = k.atomics;
        gr->peer_nvl_base[peer] = k.nvl_base;
    }
    return (struct kx_peer){ gr->peer_nvl[peer], gr->peer_atomics[peer],
                             gr->peer_nvl_base[peer] };
}

/* The bus address by which this grid's GPU reaches byte hbm of GPU peer. */
static int peer_bus_addr(struct kx_grid *gr, unsigned peer, uint64_t hbm,
                         uint64_t len, uint64_t *bus)
{
    struct p2psim *p = gr->p;
    struct kx_peer k = peer_facts(gr, peer);
    if (k.nvl) {
        *bus = k.nvl_base + hbm;
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

/* The target of a resolved location loc of len bytes. */
static int loc_target(struct kx_grid *gr, const struct p2psim_loc *loc,
                      unsigned len, struct kx_target *t)
{
    t->no_atomicops = false;
    if (loc->kind == P2PSIM_HOST) {
        if (!gr->host_known) {
            gr->host_known = true;
            gr->host_atomics =
                path_atomics_to_host(fab_gpu(gr->p->m->fab, gr->l.gpu));
        }
        t->remote = true;
        t->no_atomicops = !gr->host_atomics;
        t->addr = loc->addr;
        return 0;
    }
    if (loc->gpu == gr->l.gpu) {
        t->remote = false;
        t->addr = loc->addr;
        return 0;
    }
    t->remote = true;
    t->no_atomicops = !peer_facts(gr, loc->gpu).atomics;
    return peer_bus_addr(gr, loc->gpu, loc->addr, len, &t->addr);
}

static int resolve(struct kx_grid *gr, uint64_t va, unsigned len,
                   struct kx_target *t)
{
    struct p2psim_loc loc;
    if (gr->l.resolve(gr->l.resolve_arg, gr->l.gpu, va, len, &loc) < 0) {
        return -1;
    }
    return loc_target(gr, &loc, len, t);
}

/* ---- sub-requests: what a warp request becomes -------------------------- */


static void warp_fence_check(struct kx_warp *w);

/*
 * A request of grid gr, on its list until kx__sub_free; NULL out of memory.
 * Done requests wait in gr->sub_pool for the next one (a malloc and free
 * per request, and the zeroing of its 128-byte line, were a fifth of a
 * memory-bound kernel's wall time): every field is zeroed but r.data,
 * which a load's completion or a store's copy fills before it is read.
 */
struct kx_sub *kx__sub_alloc(struct kx_grid *gr)
{
    struct kx_sub *s = gr->sub_pool;
    if (s) {
        gr->sub_pool = s->live_next;
        memset(&s->r, 0, offsetof(struct gpu_sm_req, data));
        memset((char *)&s->r + offsetof(struct gpu_sm_req, atom), 0,
               sizeof(s->r) - offsetof(struct gpu_sm_req, atom));
        memset((char *)s + sizeof(s->r), 0, sizeof(*s) - sizeof(s->r));
    } else {
        s = calloc(1, sizeof(*s));
        if (!s) {
            return NULL;
        }
    }
    s->gr = gr;
    s->live_next = gr->subs;
    if (gr->subs) {
        gr->subs->live_prev = s;
    }
    gr->subs = s;
    return s;
}

void kx__sub_free(struct kx_sub *s)
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
    s->live_next = gr->sub_pool;
    gr->sub_pool = s;
}

void kx__sub_pool_free(struct kx_grid *gr)
{
    while (gr->sub_pool) {
        struct kx_sub *s = gr->sub_pool;
        gr->sub_pool = s->live_next;
        free(s);
    }
}

/* A lane's n bytes (1, 2, 4, 8 or 16, as bad_size allows) from src to
 * dst: fixed-size copies the compiler makes moves of, where a memcpy of
 * a variable size is a call per lane (a tenth of a memory-bound kernel's
 * wall time). */
static inline void lane_copy(void *dst, const void *src, unsigned n)
{
    switch (n) {
    case 4: memcpy(dst, src, 4); return;
    case 8: memcpy(dst, src, 8); return;
    case 16: memcpy(dst, src, 16); return;
    case 2: memcpy(dst, src, 2); return;
    default: memcpy(dst, src, n); return;
    }
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
        kx__sub_free(s);
        warp_fence_check(w);
        if (gr->ending) {
            kx__grid_dispatch(gr);
        }
        return;
    }
    struct ptx_mem_req *q = &w->req;
    if (r->kind == GPU_SM_LOAD) {
        for (unsigned l = 0; l < KX_WARP; l++) {
            if (s->lanes & (1u << l)) {
                lane_copy(q->result[l], r->data + (q->addr[l] - s->va),
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
    kx__sub_free(s);
    if (--w->pending == 0) {
        kx__warp_mem_complete(w);
    }
}

static struct kx_sub *sub_new(struct kx_warp *w, enum gpu_sm_kind kind,
                              const struct kx_target *t)
{
    struct kx_sub *s = kx__sub_alloc(w->b->gr);
    if (!s) {
        kx__nomem(w->b->gr, "a warp's memory request");
        return NULL;
    }
    s->w = w;
    s->r.kind = kind;
    s->r.sm = w->b->sm;
    s->r.remote = t ? t->remote : false;
    s->r.no_atomicops = t ? t->no_atomicops : false;
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
        kx__sub_free(s);
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
    kx__sub_free(s);
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
    kx__warp_mem_complete(w);
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
            kx__sub_free(s);
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

/* A page fault the warp waited for is serviced: when it was the last,
 * the access starts again from its addresses. */
static void fault_resume(void *arg)
{
    struct kx_warp *w = arg;
    if (--w->faults) {
        return;
    }
    w->pending--;
    if (issue_access(w)) {
        kx__warp_mem_complete(w);
    }
}

/* Whether host-resolved [va, va + len) faults (the warp then waits). */
static bool host_fault(struct kx_warp *w, uint64_t va, uint64_t len)
{
    struct kx_grid *gr = w->b->gr;
    if (!gr->l.fault ||
        gr->l.fault(gr->l.resolve_arg, gr->l.gpu, va, len, fault_resume,
                    w) != 1) {
        return false;
    }
    w->faults++;
    return true;
}

/* Loads and stores of the lanes in mask, one line of one target at a time. */
static void issue_ldst(struct kx_warp *w)
{
    struct ptx_mem_req *q = &w->req;
    struct kx_grid *gr = w->b->gr;
    uint32_t todo = q->mask;
    struct kx_target tl[KX_WARP];
    /* The lanes' whole span first: a range that resolves is one piece of
     * memory (kernel.h), so when the span does, each lane's location is
     * the span's plus its offset, and one call of the resolver serves the
     * warp; else lane by lane, as the errors name the first bad lane. */
    uint64_t span_lo = UINT64_MAX, span_hi = 0;
    bool span = todo != 0;
    for (unsigned l = 0; l < KX_WARP; l++) {
        if (todo & (1u << l)) {
            uint64_t a = q->addr[l];
            if (a > UINT64_MAX - q->bytes_per_lane) {
                span = false;
                break;
            }
            span_lo = a < span_lo ? a : span_lo;
            span_hi = a + q->bytes_per_lane > span_hi
                          ? a + q->bytes_per_lane : span_hi;
        }
    }
    struct p2psim_loc span_loc;
    span = span && gr->l.resolve(gr->l.resolve_arg, gr->l.gpu, span_lo,
                                 span_hi - span_lo, &span_loc) == 0;
    if (span && span_loc.kind == P2PSIM_HOST &&
        host_fault(w, span_lo, span_hi - span_lo)) {
        w->pending++;           /* held until fault_resume */
        return;
    }
    for (unsigned l = 0; l < KX_WARP; l++) {
        if (!(todo & (1u << l))) {
            continue;
        }
        if (bad_size(w, q, l)) {
            return;
        }
        int rc;
        if (span) {
            struct p2psim_loc loc = span_loc;
            loc.addr += q->addr[l] - span_lo;
            rc = loc_target(gr, &loc, q->bytes_per_lane, &tl[l]);
        } else {
            struct p2psim_loc loc;
            rc = gr->l.resolve(gr->l.resolve_arg, gr->l.gpu, q->addr[l],
                               q->bytes_per_lane, &loc);
            if (rc == 0 && loc.kind == P2PSIM_HOST &&
                host_fault(w, q->addr[l], q->bytes_per_lane)) {
                continue;
            }
            rc = rc < 0 ? rc : loc_target(gr, &loc, q->bytes_per_lane, &tl[l]);
        }
        if (rc < 0) {
            kx__fail(gr, P2PSIM_KERNEL_FAULT,
                     "GPU %u: illegal address 0x%llx (%u bytes) in block "
                     "%u thread %u", gr->l.gpu,
                     (unsigned long long)q->addr[l], q->bytes_per_lane,
                     w->b->linear, w->index * KX_WARP + l);
            return;
        }
    }
    if (w->faults) {
        w->pending++;           /* held until fault_resume */
        return;
    }
    const uint64_t line_mask = ~(uint64_t)(GPU_SM_LINE_BYTES - 1);
    static const uint8_t ones[16] = {1, 1, 1, 1, 1, 1, 1, 1,
                                     1, 1, 1, 1, 1, 1, 1, 1};
    while (todo) {
        unsigned f = (unsigned)__builtin_ctz(todo);
        uint64_t line = tl[f].addr & line_mask;
        bool remote = tl[f].remote;
        uint32_t group = 0;
        unsigned lo = GPU_SM_LINE_BYTES, hi = 0;
        uint8_t buf[GPU_SM_LINE_BYTES], mask[GPU_SM_LINE_BYTES];
        if (q->op == PTX_MEM_ST) {
            memset(mask, 0, sizeof(mask));
        }
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
                lane_copy(buf + off, q->data[l], q->bytes_per_lane);
                lane_copy(mask + off, ones, q->bytes_per_lane);
            }
        }
        todo &= ~group;
        if (q->op == PTX_MEM_LD) {
            unsigned seg = segment_bytes(lo, hi);
            unsigned start = lo / seg * seg;
            struct kx_target t = { remote, false, line + start };
            struct kx_sub *s = sub_new(w, GPU_SM_LOAD, &t);
            if (!s) {
                return;
            }
            s->r.len = seg;
            if (remote) {
                /* a failed completion leaves bytes unwritten: as zeros,
                 * as a fresh request had them */
                memset(s->r.data, 0, seg);
            }
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
            struct kx_target t = { remote, false, line + i };
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
    /* Page faults first, for every lane (none issues before they are
     * serviced); bad addresses are the loop's below. */
    for (unsigned l = 0; gr->l.fault && l < KX_WARP; l++) {
        struct p2psim_loc loc;
        if ((q->mask & (1u << l)) && (q->addr[l] & (n - 1)) == 0 &&
            gr->l.resolve(gr->l.resolve_arg, gr->l.gpu, q->addr[l], n,
                          &loc) == 0 &&
            loc.kind == P2PSIM_HOST) {
            host_fault(w, q->addr[l], n);
        }
    }
    if (w->faults) {
        w->pending++;           /* held until fault_resume */
        return;
    }
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
bool kx__warp_mem_issue(struct kx_warp *w)
{
    struct ptx_mem_req *q = &w->req;
    if (q->op == PTX_MEM_FENCE) {
        return fence_start(w, q->scope);
    }
    if (w->pw && kx__cdp_mem(w)) {
        return true;            /* a launch's parameter buffer (cdp.c) */
    }
    bool release = q->sem == PTX_SEM_RELEASE || q->sem == PTX_SEM_ACQ_REL ||
                   q->sem == PTX_SEM_SC;
    if (release && !fence_start(w, q->scope)) {
        w->access_after_fence = true;
        return false;
    }
    return issue_access(w);
}

