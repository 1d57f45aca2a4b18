/*
 * machine/kernel/spin.c - a PTX warp spinning on memory that does not
 * change is not interpreted round after round: it parks.
 *
 * A round is what the warp does from one load to its next. When a load
 * is the same request as the one before it (the same instruction, lanes,
 * addresses and size) and the warp's whole state (ptx_warp_state_save:
 * registers, PCs, .local) and its block's shared memory are what they
 * were at that one, the round in between changed nothing: given the same
 * load result it leads back to the same state and the same load. Such a
 * round must also have had no other stop (a store, an atomic, a fence, a
 * barrier: each starts afresh) and no input besides the load and shared
 * memory (a read of a time register or of a texture starts afresh). The
 * warp then parks on its load:
 *  - the load is still issued, every round, by the same path at the same
 *    times (the SM, the fabric, the memory see exactly what they would);
 *  - when it comes back with the bytes of the round before and shared
 *    memory is unchanged, the warp is not interpreted: the round's
 *    yields (a nanosleep, the instruction budget) are waited for as the
 *    interpreter would have, and the same load is issued again;
 *  - any other result (whoever wrote the bytes: a host thread, a copy
 *    engine, a peer's or this GPU's warps, an atomic), a change of
 *    shared memory, or a failed grid resumes the interpreter with it.
 * So simulated time, traffic and results are those of interpreting every
 * round (P2PSIM_PARK=0 turns parking off; tests/kernels/park.sh compares
 * both). C kernels' warps do not park: their state is a coroutine's.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "machine/kernel/kernel.h"
#include "machine/kernel/kernel_int.h"

/* Same-request loads that failed the check in a row before the warp
 * checks only every KX_SPIN_SPARSE-th one (a counting loop). */
#define KX_SPIN_MISSES 8u
#define KX_SPIN_SPARSE 64u

static uint64_t kx_parked_rounds;

uint64_t p2psim_kernel_parked_rounds(void)
{
    return kx_parked_rounds;
}

bool kx__spin_enabled(void)
{
    const char *e = getenv("P2PSIM_PARK");
    return !e || strcmp(e, "0") != 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    return h;
}

static uint64_t req_sig(const struct ptx_mem_req *q)
{
    uint64_t h = mix(q->line, q->mask);
    h = mix(h, q->bytes_per_lane | (uint64_t)q->sem << 8 |
               (uint64_t)q->scope << 16 | (uint64_t)q->nc << 24 |
               (uint64_t)q->constant << 25);
    for (unsigned l = 0; l < KX_WARP; l++) {
        if (q->mask & (1u << l)) {
            h = mix(h, q->addr[l]);
        }
    }
    return h | 1;               /* 0: no load */
}

void kx__spin_reset(struct kx_warp *w)
{
    struct kx_spin *sp = &w->spin;
    sp->sig = 0;
    sp->snapped = false;
    sp->parked = false;
    sp->yields = 0;
    sp->impure = false;
}

void kx__spin_free(struct kx_warp *w)
{
    free(w->spin.buf);
    w->spin.buf = NULL;
    w->spin.cap = 0;
}

/* The buffer: the warp's state, then shared memory, then the results. */
static bool spin_buf(struct kx_warp *w, size_t state)
{
    struct kx_spin *sp = &w->spin;
    size_t need = state + w->b->smem_bytes + sizeof(w->req.result);
    if (need > sp->cap) {
        uint8_t *b = realloc(sp->buf, need);
        if (!b) {
            return false;       /* it is interpreted, as without parking */
        }
        sp->buf = b;
        sp->cap = need;
    }
    sp->state = state;
    return true;
}

static uint8_t *spin_smem(struct kx_warp *w)
{
    return w->spin.buf + w->spin.state;
}

static uint8_t *spin_res(struct kx_warp *w)
{
    return spin_smem(w) + w->b->smem_bytes;
}

static bool smem_same(struct kx_warp *w)
{
    return memcmp(spin_smem(w), w->b->smem, w->b->smem_bytes) == 0;
}

/* The warp stopped with stop, its request in w->req. */
void kx__spin_stop(struct kx_warp *w, enum kx_stop stop)
{
    struct kx_spin *sp = &w->spin;
    const struct ptx_mem_req *q = &w->req;
    if (stop == KX_YIELD) {
        sp->yields++;
        return;
    }
    if (stop != KX_MEM || q->op != PTX_MEM_LD || !q->mask ||
        !w->b->gr->park) {
        kx__spin_reset(w);
        return;
    }
    uint64_t sig = req_sig(q);
    bool impure = sp->impure;
    unsigned yields = sp->yields;
    sp->impure = false;
    sp->yields = 0;
    if (sig != sp->sig) {
        sp->sig = sig;
        sp->snapped = false;
        sp->misses = 0;
        return;
    }
    if (sp->snapped && !impure && ptx_warp_state_same(w->pw, sp->buf) &&
        smem_same(w)) {
        sp->parked = true;      /* its result was kept at the completion */
        sp->round_yields = yields;
        return;
    }
    if (sp->snapped) {
        sp->misses++;
    }
    if (sp->misses >= KX_SPIN_MISSES && sp->misses++ % KX_SPIN_SPARSE) {
        sp->snapped = false;
        return;
    }
    size_t n = ptx_warp_state_bytes(w->pw);
    sp->snapped = n && spin_buf(w, n);
    if (sp->snapped) {
        ptx_warp_state_save(w->pw, sp->buf);
        memcpy(spin_smem(w), w->b->smem, w->b->smem_bytes);
    }
}

bool kx__spin_loaded(struct kx_warp *w)
{
    struct kx_spin *sp = &w->spin;
    if (!sp->snapped || w->req.op != PTX_MEM_LD) {
        return false;
    }
    if (!sp->parked) {
        memcpy(spin_res(w), w->req.result, sizeof(w->req.result));
        return false;
    }
    /* All of result: the bytes past a lane's load, and lanes not in it,
     * are the round before's too (only this load writes them) */
    if (w->b->gr->status ||
        memcmp(spin_res(w), w->req.result, sizeof(w->req.result)) != 0 ||
        !smem_same(w)) {
        sp->parked = false;     /* interpreted again, with what it read */
        sp->snapped = false;
        return false;
    }
    kx_parked_rounds++;
    return true;
}
