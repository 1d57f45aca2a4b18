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
 *
 * The registers are kept in blocks of REG_BLOCK bytes, a bitmap saying
 * which blocks hold a nonzero byte and only those blocks: a kernel's
 * register file holds every slot of every function it can call (NCCL's:
 * 18880 slots, 4.8 MB a warp), of which a run touches a few, and a full
 * copy per spinning warp doubled what NCCL's warps held.
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
    uint32_t pc, others_min, pend, state, at_bar, sync_wait, sync_force;
    uint32_t lpc[PTX_WARP_SIZE];
    uint8_t cdepth[PTX_WARP_SIZE];
};

#define REG_BLOCK 4096u

static size_t regs_bytes(const struct ptx_warp *w)
{
    return (size_t)w->k->n_regs * PTX_WARP_SIZE * sizeof(uint64_t);
}

static size_t n_blocks(const struct ptx_warp *w)
{
    return (regs_bytes(w) + REG_BLOCK - 1) / REG_BLOCK;
}

static size_t block_len(const struct ptx_warp *w, size_t i)
{
    size_t n = regs_bytes(w) - i * REG_BLOCK;
    return n < REG_BLOCK ? n : REG_BLOCK;
}

static bool block_zero(const struct ptx_warp *w, size_t i)
{
    const uint64_t *p = (const uint64_t *)(const void *)
                        ((const uint8_t *)w->r + i * REG_BLOCK);
    size_t n = block_len(w, i) / sizeof(uint64_t);
    for (size_t j = 0; j < n; j++) {
        if (p[j]) {
            return false;
        }
    }
    return true;
}

/* The saved registers: the bitmap, then the nonzero blocks. */
static size_t saved_regs_bytes(const struct ptx_warp *w)
{
    size_t b = (n_blocks(w) + 7) / 8;
    for (size_t i = 0; i < n_blocks(w); i++) {
        if (!block_zero(w, i)) {
            b += block_len(w, i);
        }
    }
    return b;
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
           saved_regs_bytes(w);
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
    h->sync_wait = w->sync_wait;
    h->sync_force = w->sync_force;
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
    uint8_t *map = p;
    p += (n_blocks(w) + 7) / 8;
    memset(map, 0, (n_blocks(w) + 7) / 8);
    for (size_t i = 0; i < n_blocks(w); i++) {
        if (!block_zero(w, i)) {
            map[i / 8] |= (uint8_t)(1u << (i % 8));
            memcpy(p, (const uint8_t *)w->r + i * REG_BLOCK, block_len(w, i));
            p += block_len(w, i);
        }
    }
}

/* Whether w's registers are those saved at p. */
static bool regs_same(const struct ptx_warp *w, const uint8_t *p)
{
    const uint8_t *map = p;
    p += (n_blocks(w) + 7) / 8;
    for (size_t i = 0; i < n_blocks(w); i++) {
        if (map[i / 8] & (1u << (i % 8))) {
            if (memcmp(p, (const uint8_t *)w->r + i * REG_BLOCK,
                       block_len(w, i)) != 0) {
                return false;
            }
            p += block_len(w, i);
        } else if (!block_zero(w, i)) {
            return false;
        }
    }
    return true;
}

bool ptx_warp_state_same(const struct ptx_warp *w, const void *buf)
{
    const uint8_t *p = buf;
    struct warp_head h;
    head_of(w, &h);
    /* registers first: where a loop that moves on differs */
    size_t off = sizeof(h) + cstack_bytes(w) + local_bytes(w);
    if (!regs_same(w, p + off) || memcmp(p, &h, sizeof(h)) != 0) {
        return false;
    }
    p += sizeof(h);
    if (w->cstack && memcmp(p, w->cstack, cstack_bytes(w)) != 0) {
        return false;
    }
    p += cstack_bytes(w);
    return memcmp(p, w->local, local_bytes(w)) == 0;
}
