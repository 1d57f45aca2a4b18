/*
 * ptx/interp_state.c - a stopped warp's state as bytes, for an executor
 * that asks whether a warp came back to where it was (machine/kernel/
 * spin.c: a warp whose loop leaves it unchanged need not be interpreted
 * again while what it reads stays the same).
 *
 * The state is everything the next ptx_warp_run() reads that belongs to
 * the warp: its lanes and PCs, where it stopped, its open calls, its
 * registers (not the launch's constants) and its .local frames. Not in
 * it: the instruction count, the sink of "_" writes (never read), and
 * what the warp shares (the CTA's shared memory, global memory).
 */
#include <config.h>

#include "ptx/ptx.h"

#include <stdlib.h>
#include <string.h>

#include "ptx/ptx_int.h"
#include "ptx/interp_int.h"

/* The fixed part, copied field by field (no padding compared). */
struct warp_head {
    uint32_t live, group, pend_mask;
    uint32_t pc, others_min, pend, state, at_bar;
    uint32_t lpc[PTX_WARP_SIZE];
    uint8_t cdepth[PTX_WARP_SIZE];
};

static size_t regs_bytes(const struct ptx_warp *w)
{
    return (size_t)w->k->n_regs * PTX_WARP_SIZE * sizeof(uint64_t);
}

static size_t local_bytes(const struct ptx_warp *w)
{
    return (size_t)PTX_WARP_SIZE * w->k->local_bytes;
}

static size_t cstack_bytes(const struct ptx_warp *w)
{
    return w->cstack ? (size_t)PTX_WARP_SIZE * PTX_CALL_DEPTH_MAX *
                       sizeof(*w->cstack)
                     : 0;
}

size_t ptx_warp_state_bytes(const struct ptx_warp *w)
{
    for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
        if (w->save_len[l]) {
            return 0;           /* inside a recursion: not offered */
        }
    }
    return sizeof(struct warp_head) + cstack_bytes(w) + local_bytes(w) +
           regs_bytes(w);
}

static void head_of(const struct ptx_warp *w, struct warp_head *h)
{
    memset(h, 0, sizeof(*h));
    h->live = w->live;
    h->group = w->group;
    h->pend_mask = w->pend_mask;
    h->pc = w->pc;
    h->others_min = w->others_min;
    h->pend = w->pend;
    h->state = (uint32_t)w->state;
    h->at_bar = w->at_bar;
    memcpy(h->lpc, w->lpc, sizeof(h->lpc));
    memcpy(h->cdepth, w->cdepth, sizeof(h->cdepth));
}

void ptx_warp_state_save(const struct ptx_warp *w, void *buf)
{
    uint8_t *p = buf;
    head_of(w, (struct warp_head *)(void *)p);
    p += sizeof(struct warp_head);
    if (w->cstack) {
        memcpy(p, w->cstack, cstack_bytes(w));
        p += cstack_bytes(w);
    }
    memcpy(p, w->local, local_bytes(w));
    p += local_bytes(w);
    memcpy(p, w->r, regs_bytes(w));
}

bool ptx_warp_state_same(const struct ptx_warp *w, const void *buf)
{
    const uint8_t *p = buf;
    struct warp_head h;
    head_of(w, &h);
    /* registers first: where a loop that moves on differs */
    size_t off = sizeof(h) + cstack_bytes(w) + local_bytes(w);
    if (memcmp(p + off, w->r, regs_bytes(w)) != 0 ||
        memcmp(p, &h, sizeof(h)) != 0) {
        return false;
    }
    p += sizeof(h);
    if (w->cstack && memcmp(p, w->cstack, cstack_bytes(w)) != 0) {
        return false;
    }
    p += cstack_bytes(w);
    return memcmp(p, w->local, local_bytes(w)) == 0;
}
