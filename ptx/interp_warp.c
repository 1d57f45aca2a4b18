/*
 * ptx/interp_warp.c - the warp-wide instructions: shfl.sync (up, down,
 * bfly, idx, with clamp and segment mask), vote.sync (any, all, uni,
 * ballot) and match.sync (any, all), over the lanes of the group that
 * runs them; interp.c makes the group wait for the lanes of the
 * membermask first.
 */
#include <config.h>

#include "ptx/ptx.h"

#include <stdint.h>

#include "ptx/ptx_int.h"
#include "ptx/interp_int.h"


void ptx__exec_shfl(struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec)
{
    uint64_t got[PTX_WARP_SIZE];
    bool ok[PTX_WARP_SIZE];
    LANES(exec, l) {
        int lane = (int)l;
        int bval = (int)(val(w, &in->o[3], l) & 0x1f);
        uint32_t cv = (uint32_t)val(w, &in->o[4], l);
        int clamp = (int)(cv & 0x1f), segmask = (int)((cv >> 8) & 0x1f);
        int max_lane = (lane & segmask) | (clamp & ~segmask);
        int min_lane = lane & segmask;
        int j;
        bool pv;
        switch (in->mode) {
        case 0: /* up */
            j = lane - bval;
            pv = j >= max_lane;
            break;
        case 1: /* down */
            j = lane + bval;
            pv = j <= max_lane;
            break;
        case 2: /* bfly */
            j = lane ^ bval;
            pv = j <= max_lane;
            break;
        default: /* idx */
            j = min_lane | (bval & ~segmask);
            pv = j <= max_lane;
            break;
        }
        if (!pv || j < 0 || j >= PTX_WARP_SIZE) {
            j = lane;
        }
        /* Model: a source lane that does not take part (not running
         * with this group: outside the membermask, diverged or exited)
         * gives 0; CUDA leaves it undefined, and reduction's reduce7
         * sums such reads of lanes outside its __ballot_sync mask */
        got[l] = (exec >> j & 1u) ? val(w, &in->o[2], (unsigned)j) &
                                        0xffffffffu
                                  : 0;
        ok[l] = pv;
    }
    LANES(exec, l) {
        put(w, &in->o[0], l, got[l]);
        if (in->o[1].kind == OPD_REG) {
            put(w, &in->o[1], l, ok[l]);
        }
    }
}

void ptx__exec_vote(struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec)
{
    const struct ptx_opd *p = &in->o[1];
    uint32_t yes = 0;
    LANES(exec, l) {
        if ((val(w, p, l) & 1u) ^ p->neg) {
            yes |= 1u << l;
        }
    }
    uint64_t r;
    switch (in->mode) {
    case 0:
        r = yes != 0;
        break;
    case 1:
        r = yes == exec;
        break;
    case 2:
        r = yes == 0 || yes == exec;
        break;
    default:
        r = yes;
        break;
    }
    LANES(exec, l) {
        put(w, &in->o[0], l, r);
    }
}

/* match.any: the lanes of the mask whose value equals this lane's;
 * match.all: the mask if all are equal (and p), else 0. Lanes of the
 * mask that do not run with this group take no part (docs/ptx.md). */
void ptx__exec_match(struct ptx_warp *w, const struct ptx_insn *in,
                     uint32_t exec)
{
    uint64_t wm = in->type == PT_B32 ? UINT64_C(0xffffffff) : UINT64_MAX;
    uint64_t v[PTX_WARP_SIZE];
    uint32_t got[PTX_WARP_SIZE];
    LANES(exec, l) {
        v[l] = val(w, &in->o[2], l) & wm;
    }
    LANES(exec, l) {
        uint32_t mask = (uint32_t)val(w, &in->o[3], l) & exec, same = 0;
        for (unsigned j = 0; j < PTX_WARP_SIZE; j++) {
            if ((mask >> j & 1u) && v[j] == v[l]) {
                same |= 1u << j;
            }
        }
        got[l] = in->mode == 0 ? same : same == mask ? mask : 0;
    }
    LANES(exec, l) {
        put(w, &in->o[0], l, got[l]);
        if (in->o[1].kind == OPD_REG) {
            put(w, &in->o[1], l, got[l] != 0);
        }
    }
}
