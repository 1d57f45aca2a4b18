/*
 * ptx/interp.c - the per-warp PTX interpreter: its run loop, control
 * flow and divergence, the waits of warp-synchronous instructions, and a
 * warp's life. The instructions themselves are in interp_alu.c,
 * interp_move.c, interp_mem.c and interp_warp.c (interp_int.h).
 *
 * A warp runs its 32 lanes together, one instruction at a time over the
 * lanes that sit at the same PC (the "group"). Divergence is handled with
 * a PC per lane and one rule: the lanes at the lowest PC run first, and
 * lanes merge as soon as they reach the same PC. A forward branch taken
 * by some lanes therefore runs the fall-through lanes until they reach
 * the branch target, where all merge again (the immediate post-dominator
 * of if/else); a backward branch keeps the looping lanes running (lower
 * PC) until they leave the loop and catch up with the others.
 *
 * Model: lowest-PC-first is the pre-Volta SIMT stack order. A warp whose
 * lanes wait on each other through memory (one lane spins on a flag that
 * another lane of the same warp sets later in program order) never
 * progresses; independent thread scheduling (sm_70+) is not modelled,
 * but for its rule that a warp-synchronous instruction (shfl, vote,
 * match, bar.warp.sync) waits for the lanes of its membermask: lanes
 * parked there (sync_wait) let the others run until they arrive.
 *
 * Complexity: one warp-instruction costs O(lanes in the group); a
 * divergence or merge costs O(32).
 */
#include <config.h>

#include "ptx/ptx.h"

#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ptx/ptx_int.h"
#include "ptx/interp_int.h"
#include "ptx/tex_int.h"
#include "ptx/wmma_int.h"

uint64_t ptx__val_slow(const struct ptx_warp *w, const struct ptx_opd *o)
{
    switch (o->kind) {
    case OPD_TIME: {
        enum ptx_time_sreg which = (enum ptx_time_sreg)(o->imm & 0xff);
        uint64_t t = w->ctx.time_fn ? w->ctx.time_fn(w->ctx.time_user, which)
                                    : 0;
        switch (o->imm & ~(int64_t)0xff) {
        case OPD_TIME_LO: return (uint32_t)t;
        case OPD_TIME_HI: return t >> 32;
        default: return t;
        }
    }
    case OPD_VAR:
        return (o->var >= 0 && (unsigned)o->var < w->ctx.n_var_addrs
                    ? w->ctx.var_addrs[o->var]
                    : 0) +
               (uint64_t)o->imm;
    default:
        return 0;
    }
}

int ptx__warp_fail(struct ptx_warp *w, const struct ptx_insn *in,
                   const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    ptx__kernel_msg(w->errbuf, sizeof(w->errbuf), w->k->info.name, in->line,
                    what);
    w->state = WS_ERROR;
    return -1;
}

/* ---------------------------------------------------------------------- */
/* Control                                                                 */
/* ---------------------------------------------------------------------- */

static uint32_t guard_mask(const struct ptx_warp *w, const struct ptx_insn *in)
{
    return ptx__pred_mask(&R(w, in->guard, 0), in->guard_neg) & w->group;
}

/* Choose the lanes at the lowest PC as the new group (after a divergent
 * branch, an exit, or when the group caught up with waiting lanes).
 * Lanes parked at a warp-synchronous instruction (w->sync_wait) are not
 * chosen, but join a group chosen at their PC; when every live lane is
 * parked, the lowest go on without the lanes they wait for. */
static void reselect(struct ptx_warp *w)
{
    LANES(w->group, l) {
        w->lpc[l] = w->pc;
    }
    w->sync_wait &= w->live;
    uint32_t run = w->live & ~w->sync_wait;
    if (run == 0) {
        run = w->live;
        w->sync_force = run != 0;
    }
    unsigned min = UINT_MAX;
    LANES(run, l) {
        if (w->lpc[l] < min) {
            min = w->lpc[l];
        }
    }
    uint32_t g = 0;
    unsigned other = UINT_MAX;
    LANES(w->live, l) {
        if (w->lpc[l] == min) {
            g |= 1u << l;
        } else if ((run >> l & 1u) && w->lpc[l] < other) {
            other = w->lpc[l];
        }
    }
    w->group = g;
    w->sync_wait &= ~g;
    w->pc = min;
    w->others_min = other;
}

/* The membermask of a warp-synchronous instruction, or NULL. */
static const struct ptx_opd *sync_mask(const struct ptx_insn *in)
{
    switch (in->op) {
    case OP_SHFL: return &in->o[5];
    case OP_VOTE: return &in->o[2];
    case OP_MATCH: return &in->o[3];
    case OP_NOP: return in->mode == PTX_NOP_WARP_SYNC ? &in->o[0] : NULL;
    default: return NULL;
    }
}

/* At a warp-synchronous instruction (shfl, vote, match, bar.warp.sync:
 * membermask *mask): lanes parked here join the group; when lanes of the
 * membermask live elsewhere, the group parks here until they arrive
 * (Volta's rule: the instruction waits for the lanes it names) and the
 * others run. Returns true when the group parked. */
static bool sync_arrive(struct ptx_warp *w, const struct ptx_insn *in,
                        const struct ptx_opd *mask)
{
    uint32_t here = 0;
    LANES(w->sync_wait, l) {
        if (w->lpc[l] == w->pc) {
            here |= 1u << l;
        }
    }
    w->group |= here;
    w->sync_wait &= ~here;
    if (w->sync_force) {
        w->sync_force = false;
        return false;
    }
    uint32_t exec = in->guard == PTX_NOREG ? w->group : guard_mask(w, in);
    uint32_t want = 0;
    LANES(exec, l) {
        want |= (uint32_t)val(w, mask, l);
    }
    if ((want & w->live & ~w->group) == 0) {
        return false;
    }
    w->sync_wait |= w->group;
    reselect(w);
    return true;
}

static void lanes_exit(struct ptx_warp *w, uint32_t exec)
{
    w->live &= ~exec;
    w->group &= ~exec;
    if (w->group == 0 && w->live != 0) {
        reselect(w);
    }
}

static enum ptx_stop stop_error(struct ptx_warp *w, struct ptx_mem_req *req,
                                unsigned line)
{
    w->state = WS_ERROR;
    req->error = w->errbuf;
    req->line = line;
    req->mask = 0;
    req->assert_failed = w->asserted;
    return PTX_STOP_ERROR;
}

/* ---------------------------------------------------------------------- */
/* Calls                                                                   */
/* ---------------------------------------------------------------------- */

/* A cstack entry: the call's PC, the flag that it saved the callee's
 * state (recursion), and above them the callee's index in k->funcs. */
#define CALL_SAVED 0x80000000u
#define CALL_PC(e) ((unsigned)((e) & ~(uint64_t)CALL_SAVED & 0xffffffffu))
#define CALL_FUNC(e) ((unsigned)((e) >> 32))

static size_t frame_state_bytes(const struct ptx_func_inst *f)
{
    return (size_t)(f->slot_hi - f->slot_lo) * 8 + (f->loc_hi - f->loc_lo);
}

/* Push lane l's registers and frame bytes of f on its save stack. */
static int save_frame(struct ptx_warp *w, unsigned l,
                      const struct ptx_func_inst *f)
{
    size_t n = frame_state_bytes(f);
    if (w->save_cap[l] - w->save_len[l] < n) {
        size_t cap = (w->save_cap[l] + n) * 2;
        uint8_t *s = realloc(w->save[l], cap);
        if (!s) {
            return -1;
        }
        w->save[l] = s;
        w->save_cap[l] = cap;
    }
    uint8_t *d = w->save[l] + w->save_len[l];
    for (uint32_t r = f->slot_lo; r < f->slot_hi; r++, d += 8) {
        memcpy(d, &R(w, r, l), 8);
    }
    memcpy(d, w->local + (size_t)l * w->k->local_bytes + f->loc_lo,
           f->loc_hi - f->loc_lo);
    w->save_len[l] += n;
    return 0;
}

/* Pop what save_frame pushed last for lane l. */
static void restore_frame(struct ptx_warp *w, unsigned l,
                          const struct ptx_func_inst *f)
{
    size_t n = frame_state_bytes(f);
    w->save_len[l] -= n;
    const uint8_t *s = w->save[l] + w->save_len[l];
    for (uint32_t r = f->slot_lo; r < f->slot_hi; r++, s += 8) {
        memcpy(&R(w, r, l), s, 8);
    }
    memcpy(w->local + (size_t)l * w->k->local_bytes + f->loc_lo, s,
           f->loc_hi - f->loc_lo);
}

/* An indirect call's callee (*fi, in k->funcs): the function whose
 * address the lanes' register holds, the same in every lane of exec
 * (Simplification: lanes calling different functions at once fail the
 * warp). Returns 0, or -1 (failed). */
static int indirect_callee(struct ptx_warp *w, const struct ptx_insn *in,
                           const struct ptx_call *c, uint32_t exec,
                           unsigned *fi)
{
    const struct ptx_kernel *k = w->k;
    uint64_t a = 0;
    bool first = true;
    LANES(exec, l) {
        uint64_t v = R(w, c->func, l);
        if (!first && v != a) {
            return ptx__warp_fail(w, in, "an indirect call to different "
                                  "functions in one warp (0x%llx and "
                                  "0x%llx)", (unsigned long long)a,
                                  (unsigned long long)v);
        }
        a = v;
        first = false;
    }
    uint64_t idx = (a - PTX_FUNC_ADDR_BASE) / 16u;
    for (unsigned i = 0; a >= PTX_FUNC_ADDR_BASE && a % 16u == 0 &&
                         i < k->n_funcs; i++) {
        if (k->funcs[i].mod_index == idx) {
            *fi = i;
            return 0;
        }
    }
    return ptx__warp_fail(w, in, "an indirect call of 0x%llx, which is no "
                          "function of the module with a body",
                          (unsigned long long)a);
}

/* The lanes in exec call: arguments copied into the callee's parameters
 * in each lane's frame, the call's PC pushed, the lanes sent to the
 * entry. Return: 1 (the PC is set), 0 (a builtin: go on), -1 (failed). */
static int exec_call(struct ptx_warp *w, const struct ptx_insn *in,
                     uint32_t exec)
{
    const struct ptx_kernel *k = w->k;
    const struct ptx_call *c = &k->calls[in->o[0].imm];
    unsigned fi = c->func;
    if (c->kind == PTX_CALLEE_INDIRECT) {
        int rc = indirect_callee(w, in, c, exec, &fi);
        if (rc) {
            return rc;
        }
    } else if (c->kind != PTX_CALLEE_FUNC) {
        return ptx__call_builtin(w, in, c, exec);
    }
    const struct ptx_func_inst *f = &k->funcs[fi];
    LANES(exec, l) {
        uint64_t *st = w->cstack + (size_t)l * PTX_CALL_DEPTH_MAX;
        if (w->cdepth[l] >= PTX_CALL_DEPTH_MAX) {
            return ptx__warp_fail(w, in, "calls nested deeper than %u",
                                  PTX_CALL_DEPTH_MAX);
        }
        uint32_t saved = 0;
        for (unsigned d = 0; d < w->cdepth[l] && !saved; d++) {
            /* the callee open on the lane (recursion), or one whose
             * register slots it shares (functions of indirect calls) */
            const struct ptx_func_inst *o = &k->funcs[CALL_FUNC(st[d])];
            if (CALL_FUNC(st[d]) == fi ||
                (o->slot_lo < f->slot_hi && f->slot_lo < o->slot_hi)) {
                if (save_frame(w, l, f) < 0) {
                    return ptx__warp_fail(w, in, "out of memory for a "
                                          "recursive call of %s", f->name);
                }
                saved = CALL_SAVED;
            }
        }
        uint8_t *frame = w->local + (size_t)l * k->local_bytes;
        for (unsigned i = 0; i < c->n_args && i < f->n_params; i++) {
            uint32_t n = c->arg_bytes[i] < f->param_bytes[i]
                             ? c->arg_bytes[i] : f->param_bytes[i];
            memmove(frame + f->param_off[i], frame + c->arg_off[i], n);
        }
        st[w->cdepth[l]++] = (uint64_t)fi << 32 | w->pc | saved;
    }
    uint32_t stay = w->group & ~exec;
    if (stay == 0) {
        w->pc = f->entry;
    } else {
        LANES(exec, l) {
            w->lpc[l] = f->entry;
        }
        LANES(stay, l) {
            w->lpc[l] = w->pc + 1;
        }
        w->group = 0;
        reselect(w);
    }
    return 1;
}

/* ret of the lanes in exec: those inside a call go back after it, with
 * the return value copied out; the others exit. */
static void exec_ret(struct ptx_warp *w, uint32_t exec)
{
    const struct ptx_kernel *k = w->k;
    uint32_t back = 0;
    LANES(exec, l) {
        if (w->cdepth[l]) {
            back |= 1u << l;
        }
    }
    if (!back) {
        w->pc++;
        lanes_exit(w, exec);
        return;
    }
    LANES(back, l) {
        uint64_t e = w->cstack[(size_t)l * PTX_CALL_DEPTH_MAX +
                               --w->cdepth[l]];
        unsigned cpc = CALL_PC(e);
        const struct ptx_call *c = &k->calls[w->insns[cpc].o[0].imm];
        const struct ptx_func_inst *f = &k->funcs[CALL_FUNC(e)];
        uint8_t *frame = w->local + (size_t)l * k->local_bytes;
        uint32_t n = c->ret_bytes < f->retval_bytes ? c->ret_bytes
                                                    : f->retval_bytes;
        if (e & CALL_SAVED) {
            /* the caller is an open activation of f: its state back,
             * then the value (read before) into its variable */
            uint8_t small[64];
            uint8_t *v = n <= sizeof(small) ? small : malloc(n);
            if (v) {
                memcpy(v, frame + f->retval_off, n);
            }
            restore_frame(w, l, f);
            if (v) {
                memcpy(frame + c->ret_off, v, n);
            }
            if (v != small) {
                free(v);
            }
        } else {
            memmove(frame + c->ret_off, frame + f->retval_off, n);
        }
        w->lpc[l] = cpc + 1;
    }
    LANES(w->group & ~exec, l) {
        w->lpc[l] = w->pc + 1;
    }
    w->live &= ~(exec & ~back);
    w->group = 0;
    reselect(w);
}

enum ptx_stop ptx_warp_run(struct ptx_warp *w, struct ptx_mem_req *req)
{
    switch (w->state) {
    case WS_DONE:
        return PTX_STOP_EXIT;
    case WS_ERROR:
        req->error = w->errbuf;
        return PTX_STOP_ERROR;
    case WS_MEM:
        snprintf(w->errbuf, sizeof(w->errbuf), "kernel %s: warp run again "
                 "before its memory request was resumed", w->k->info.name);
        return stop_error(w, req, w->insns[w->pend].line);
    default:
        break;
    }
    uint32_t budget = w->ctx.yield_after, steps = 0;
    for (;;) {
        if (w->live == 0) {
            w->state = WS_DONE;
            return PTX_STOP_EXIT;
        }
        if (w->pc >= w->n_insns) {
            lanes_exit(w, w->group); /* fell off the end: as ret */
            continue;
        }
        /* pre-decoded instructions back to back (the entry past the
         * last one has no handler) */
        while (w->fast && w->fast[w->pc].h) {
            unsigned n = ptx__fast_run(w, budget ? budget - steps
                                                 : UINT_MAX);
            steps += n;
            if (w->group != w->live && w->pc >= w->others_min) {
                reselect(w);
            }
            if (budget && steps >= budget) {
                return PTX_STOP_YIELD;
            }
            if (n == 0) {
                break;
            }
        }
        if (w->pc >= w->n_insns) {
            continue;
        }
        const struct ptx_insn *in = &w->insns[w->pc];
        const struct ptx_opd *smask = sync_mask(in);
        if (smask && sync_arrive(w, in, smask)) {
            goto parked;
        }
        uint32_t exec = in->guard == PTX_NOREG ? w->group : guard_mask(w, in);
        w->n_instr++;
        switch (in->op) {
        case OP_MOV:
            ptx__exec_mov(w, in, exec);
            break;
        case OP_CVT:
            ptx__exec_cvt(w, in, exec);
            break;
        case OP_CVTA:
            ptx__exec_cvta(w, in, exec);
            break;
        case OP_SETP:
            ptx__exec_setp(w, in, exec);
            break;
        case OP_SELP:
            ptx__exec_selp(w, in, exec);
            break;
        case OP_SHFL:
            ptx__exec_shfl(w, in, exec);
            break;
        case OP_VOTE:
            ptx__exec_vote(w, in, exec);
            break;
        case OP_MATCH:
            ptx__exec_match(w, in, exec);
            break;
        case OP_ACTIVEMASK:
            LANES(exec, l) {
                put(w, &in->o[0], l, exec);
            }
            break;
        case OP_NOP:
            break;
        case OP_BRA: {
            unsigned target = (unsigned)in->o[0].imm;
            uint32_t stay = w->group & ~exec;
            if (exec == 0) {
                break;
            }
            if (stay == 0) {
                w->pc = target;
            } else {
                LANES(exec, l) {
                    w->lpc[l] = target;
                }
                LANES(stay, l) {
                    w->lpc[l] = w->pc + 1;
                }
                w->group = 0;
                reselect(w);
            }
            goto next;
        }
        case OP_RET:
            if (exec == 0) {
                break;
            }
            if (w->cstack) {
                exec_ret(w, exec);
                goto next;
            }
            w->pc++;
            lanes_exit(w, exec);
            goto next;
        case OP_EXIT:
            if (exec == 0) {
                break;
            }
            w->pc++;
            lanes_exit(w, exec);
            goto next;
        case OP_CALL: {
            if (exec == 0) {
                break;
            }
            if (ptx__call_heap(w, in, exec, req)) {
                /* malloc/free: the executor's heap serves the lanes */
                w->state = WS_MEM;
                w->pend = w->pc;
                w->pend_mask = exec;
                w->pc++;
                if (w->group != w->live && w->pc >= w->others_min) {
                    reselect(w);
                }
                return PTX_STOP_MEM;
            }
            int rc = exec_call(w, in, exec);
            if (rc < 0) {
                return stop_error(w, req, in->line);
            }
            if (rc > 0) {
                goto next;
            }
            break;
        }
        case OP_TRAP:
            if (exec == 0) {
                break;
            }
            if (w->k->err_line == in->line) {
                snprintf(w->errbuf, sizeof(w->errbuf), "%s", w->k->err_msg);
            } else if (in->mode == 1 && in->o[0].imm) {
                snprintf(w->errbuf, sizeof(w->errbuf), "%s",
                         (const char *)(intptr_t)in->o[0].imm);
            } else {
                ptx__warp_fail(w, in, "trap");
            }
            return stop_error(w, req, in->line);
        case OP_LD:
        case OP_ST:
        case OP_ATOM:
        case OP_RED: {
        mem_op:
            if (exec == 0) {
                break;
            }
            int rc = PTX_OP_IS_WMMA(in->op) ? ptx__exec_wmma(w, in, exec, req)
                                            : ptx__exec_mem(w, in, exec, req);
            if (rc < 0) {
                return stop_error(w, req, in->line);
            }
            if (rc > 0) {
                w->state = WS_MEM;
                w->pend = w->pc;
                w->pend_mask = req->mask;
                w->pc += rc == 1; /* 2: a wmma with more requests to go */
                if (w->group != w->live && w->pc >= w->others_min) {
                    reselect(w);
                }
                return PTX_STOP_MEM;
            }
            break;
        }
        case OP_NANOSLEEP:
            /* Model: the warp sleeps as long as one yield of the
             * executor (kernel: ctx.yield_after SM cycles), whatever t */
            if (exec == 0) {
                break;
            }
            w->pc++;
            if (w->group != w->live && w->pc >= w->others_min) {
                reselect(w);
            }
            return PTX_STOP_YIELD;
        case OP_MEMBAR:
        case OP_FENCE:
            if (exec == 0) {
                break;
            }
            ptx__req_common(w, in, req, PTX_MEM_FENCE);
            req->bytes_per_lane = 0;
            req->mask = exec;
            w->state = WS_MEM;
            w->pend = w->pc;
            w->pend_mask = 0;
            w->pc++;
            if (w->group != w->live && w->pc >= w->others_min) {
                reselect(w);
            }
            return PTX_STOP_MEM;
        case OP_BAR: {
            if (exec == 0) {
                break;
            }
            unsigned first = (unsigned)__builtin_ctz(exec);
            const struct ptx_opd *id = &in->o[0], *count = &in->o[1];
            req->bar_pred = 0;
            if (in->mode) {
                /* bar.red: d, id, count, predicate */
                id = &in->o[1];
                count = &in->o[2];
                const struct ptx_opd *pr = &in->o[3];
                LANES(exec, l) {
                    if ((val(w, pr, l) & 1u) ^ pr->neg) {
                        req->bar_pred |= 1u << l;
                    }
                }
            }
            req->bar_id = (unsigned)val(w, id, first);
            req->bar_count = in->n_opds > 1 && count->kind != OPD_NONE
                                 ? (unsigned)val(w, count, first)
                                 : 0;
            req->bar_mask = exec;
            req->bar_wait = in->flags & PIF_WAIT;
            req->line = in->line;
            req->mask = 0;
            w->at_bar = true;
            w->pend = w->pc;
            w->pend_mask = exec;
            w->pc++;
            if (w->group != w->live && w->pc >= w->others_min) {
                reselect(w);
            }
            return PTX_STOP_BAR;
        }
        default:
            if (PTX_OP_IS_WMMA(in->op)) {
                goto mem_op;
            }
            if (PTX_OP_IS_TEX(in->op)) {
                if (exec && ptx__exec_tex(w, in, exec) < 0) {
                    return stop_error(w, req, in->line);
                }
                break;
            }
            ptx__exec_alu(w, in, exec);
            break;
        }
        w->pc++;
    next:
        if (w->group != w->live && w->pc >= w->others_min) {
            reselect(w);
        }
    parked:
        if (budget && ++steps >= budget) {
            return PTX_STOP_YIELD;
        }
    }
}

int ptx_warp_bar_release(struct ptx_warp *w, uint32_t n_true,
                         uint32_t n_lanes)
{
    if (!w->at_bar) {
        return PTX_EINVAL;
    }
    w->at_bar = false;
    const struct ptx_insn *in = &w->insns[w->pend];
    if (in->op != OP_BAR || !in->mode) {
        return 0;
    }
    uint64_t r = in->mode == PTX_BAR_RED_POPC ? n_true
               : in->mode == PTX_BAR_RED_AND  ? n_true == n_lanes
                                              : n_true != 0;
    LANES(w->pend_mask, l) {
        put(w, &in->o[0], l, r);
    }
    return 0;
}

int ptx_warp_resume(struct ptx_warp *w, const struct ptx_mem_req *req)
{
    if (w->state != WS_MEM) {
        return PTX_EINVAL;
    }
    const struct ptx_insn *in = &w->insns[w->pend];
    w->state = WS_RUN;
    if (PTX_OP_IS_WMMA(in->op)) {
        ptx__wmma_resume(w, in, w->pend_mask, req);
    } else if (in->op == OP_LD) {
        ptx__mem_result(w, in, w->pend_mask, req);
    } else if (in->op == OP_ATOM) {
        LANES(w->pend_mask, l) {
            put(w, &in->o[0], l, ext(req->result[l][0], in->type));
        }
    } else if (in->op == OP_CALL) {
        ptx__call_heap_result(w, in, w->pend_mask, req);
    }
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Lifecycle                                                               */
/* ---------------------------------------------------------------------- */

/* The special registers of every lane: every row below SR_COUNT (the
 * register file is zeroed from there on). */
static void init_sregs(struct ptx_warp *w)
{
    const struct ptx_warp_ctx *c = &w->ctx;
    /* dynamic shared memory is what lies past its aligned start */
    uint32_t dyn_off = w->k->info.dyn_shared_offset;
    uint32_t dyn_smem = c->shared_bytes > dyn_off ? c->shared_bytes - dyn_off
                                                  : 0;
    for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
        R(w, SR_TID_X, l) = c->tid[l].x;
        R(w, SR_TID_Y, l) = c->tid[l].y;
        R(w, SR_TID_Z, l) = c->tid[l].z;
        R(w, SR_NTID_X, l) = c->ntid.x;
        R(w, SR_NTID_Y, l) = c->ntid.y;
        R(w, SR_NTID_Z, l) = c->ntid.z;
        R(w, SR_CTAID_X, l) = c->ctaid.x;
        R(w, SR_CTAID_Y, l) = c->ctaid.y;
        R(w, SR_CTAID_Z, l) = c->ctaid.z;
        R(w, SR_NCTAID_X, l) = c->nctaid.x;
        R(w, SR_NCTAID_Y, l) = c->nctaid.y;
        R(w, SR_NCTAID_Z, l) = c->nctaid.z;
        R(w, SR_LANEID, l) = l;
        R(w, SR_WARPID, l) = c->warpid;
        R(w, SR_NWARPID, l) = c->nwarpid;
        R(w, SR_SMID, l) = c->smid;
        R(w, SR_NSMID, l) = c->nsmid;
        R(w, SR_GRIDID, l) = c->gridid;
        R(w, SR_LANEMASK_EQ, l) = 1u << l;
        R(w, SR_LANEMASK_LT, l) = (1u << l) - 1;
        R(w, SR_LANEMASK_LE, l) = (uint32_t)((2ull << l) - 1);
        R(w, SR_LANEMASK_GT, l) = (uint32_t)~((2ull << l) - 1);
        R(w, SR_LANEMASK_GE, l) = (uint32_t)~((1u << l) - 1);
        R(w, SR_TOTAL_SMEM, l) = c->shared_bytes;
        R(w, SR_DYN_SMEM, l) = dyn_smem;
        R(w, SR_ZERO, l) = 0;
        R(w, SR_ONE, l) = 1;
        for (unsigned i = 0; i < 32; i++) {
            R(w, SR_ENVREG0 + i, l) = c->envreg[i];
        }
    }
}

/*
 * A warp's registers, zeroed. A large file (NCCL's kernels: 18880 slots,
 * 4.8 MB a warp, every function of its table) is mapped, so that only the
 * pages of slots a run touches take memory (and a reused warp's are given
 * back, not written with zeros); a small one is calloc'ed.
 */
#define REGS_MAPPED (UINT64_C(1) << 20)

static uint64_t *regs_new(size_t bytes)
{
    if (bytes < REGS_MAPPED) {
        return calloc(1, bytes);
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Zero the first n bytes of a file of bytes (what follows them may be
 * zeroed too: the constant slots, written next). */
static void regs_clear(uint64_t *r, size_t bytes, size_t n)
{
    if (bytes < REGS_MAPPED || madvise(r, n, MADV_DONTNEED) != 0) {
        memset(r, 0, n);
    }
}

static void regs_free(uint64_t *r, size_t bytes)
{
    if (r && bytes >= REGS_MAPPED) {
        munmap(r, bytes);
    } else {
        free(r);
    }
}

static size_t regs_file_bytes(const struct ptx_kernel *k)
{
    return ((size_t)k->n_regs + k->n_cvals) * PTX_WARP_SIZE *
           sizeof(uint64_t);
}

/* What ptx_warp_new refuses before it allocates: 0, or the error's code. */
static int warp_args_check(const struct ptx_kernel *k, const void *param_buf,
                           const struct ptx_warp_ctx *ctx,
                           struct ptx_error *err)
{
    if (!k || !ctx) {
        ptx__set_err(err, PTX_EINVAL, 0, "no kernel or context");
        return PTX_EINVAL;
    }
    int rc = ptx_kernel_check(k, err);
    if (rc) {
        return rc;
    }
    if (k->info.param_bytes && !param_buf) {
        ptx__set_err(err, PTX_EINVAL, 0, "kernel %s: %u bytes of parameters "
                     "expected, none given", k->info.name,
                     k->info.param_bytes);
        return PTX_EINVAL;
    }
    return 0;
}

/* The state of a new warp in w, whose r and local are allocated (a new
 * warp's or a reused one's) and every other field zero. */
static struct ptx_warp *warp_init(struct ptx_warp *w,
                                  const struct ptx_kernel *k,
                                  const void *param_buf,
                                  const struct ptx_warp_ctx *ctx)
{
    if (regs_file_bytes(k) >= REGS_MAPPED) {
        regs_clear(w->r, regs_file_bytes(k),
                   (size_t)k->n_regs * PTX_WARP_SIZE * sizeof(uint64_t));
    } else {
        /* init_sregs writes the special rows (below SR_COUNT) whole */
        memset(&R(w, SR_COUNT, 0), 0, (size_t)(k->n_regs - SR_COUNT) *
                                          PTX_WARP_SIZE * sizeof(uint64_t));
    }
    for (unsigned i = 0; i < k->n_cvals; i++) {
        for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
            R(w, k->n_regs + i, l) = k->cvals[i];
        }
    }
    w->k = k;
    w->insns = k->insns;
    w->fast = k->fast;
    w->n_insns = k->n_insns;
    w->param = param_buf;
    w->param_bytes = k->info.param_bytes;
    w->ctx = *ctx;
    w->live = w->group = ctx->lane_mask;
    w->others_min = UINT_MAX;
    w->state = ctx->lane_mask ? WS_RUN : WS_DONE;
    init_sregs(w);
    return w;
}

/*
 * The memory of old kept (registers, .local, the call stack, the
 * recursion save areas), the rest zeroed as calloc had it: blocks of
 * short warps (a grid-stride kernel's) allocated and freed each warp's
 * register file, tens of kilobytes the allocator gave back to the system
 * at every block's end and took again, page faults included, at the
 * next one's start.
 */
struct ptx_warp *ptx_warp_renew(struct ptx_warp *old,
                                const struct ptx_kernel *k,
                                const void *param_buf,
                                const struct ptx_warp_ctx *ctx,
                                struct ptx_error *err)
{
    if (!old || old->k != k) {
        ptx_warp_free(old);
        return ptx_warp_new(k, param_buf, ctx, err);
    }
    if (warp_args_check(k, param_buf, ctx, err)) {
        ptx_warp_free(old);
        return NULL;
    }
    uint64_t *r = old->r, *cstack = old->cstack;
    uint8_t *local = old->local;
    uint8_t *save[PTX_WARP_SIZE];
    size_t save_cap[PTX_WARP_SIZE];
    memcpy(save, old->save, sizeof(save));
    memcpy(save_cap, old->save_cap, sizeof(save_cap));
    memset(old, 0, sizeof(*old));
    old->r = r;
    old->local = local;
    old->cstack = cstack;
    memcpy(old->save, save, sizeof(save));
    memcpy(old->save_cap, save_cap, sizeof(save_cap));
    memset(local, 0, (size_t)PTX_WARP_SIZE *
                         (k->local_bytes ? k->local_bytes : 1));
    if (cstack) {
        memset(cstack, 0, (size_t)PTX_WARP_SIZE * PTX_CALL_DEPTH_MAX *
                              sizeof(*cstack));
    }
    return warp_init(old, k, param_buf, ctx);
}

struct ptx_warp *ptx_warp_new(const struct ptx_kernel *k,
                              const void *param_buf,
                              const struct ptx_warp_ctx *ctx,
                              struct ptx_error *err)
{
    if (warp_args_check(k, param_buf, ctx, err)) {
        return NULL;
    }
    struct ptx_warp *w = calloc(1, sizeof(*w));
    if (w) {
        w->k = k;               /* before anything can fail: for the free */
        w->r = regs_new(regs_file_bytes(k));
        w->local = calloc(PTX_WARP_SIZE, k->local_bytes ? k->local_bytes : 1);
        if (k->n_calls) {
            w->cstack = calloc((size_t)PTX_WARP_SIZE * PTX_CALL_DEPTH_MAX,
                               sizeof(*w->cstack));
        }
    }
    if (!w || !w->r || !w->local || (k->n_calls && !w->cstack)) {
        ptx_warp_free(w);
        ptx__set_err(err, PTX_ENOMEM, 0, "out of memory");
        return NULL;
    }
    return warp_init(w, k, param_buf, ctx);
}

void ptx_warp_free(struct ptx_warp *w)
{
    if (!w) {
        return;
    }
    regs_free(w->r, w->k ? regs_file_bytes(w->k) : 0);
    free(w->local);
    free(w->cstack);
    for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
        free(w->save[l]);
    }
    free(w);
}

uint64_t ptx_warp_instr_count(const struct ptx_warp *w)
{
    return w->n_instr;
}

uint32_t ptx_warp_live_mask(const struct ptx_warp *w)
{
    return w->live;
}
