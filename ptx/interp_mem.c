/*
 * ptx/interp_mem.c - the interpreter's memory instructions: ld, st, atom
 * and red. Shared, local and param memory are served here, with bounds
 * checks that fail the warp; global and constant accesses, also those of
 * generic addresses outside the shared and local windows, leave the
 * interpreter as one struct ptx_mem_req per warp-instruction. The
 * arithmetic an atomic applies is ptx_atom_apply(), for the executor's
 * global atomics as for shared ones here: common/atomic.h's, whose
 * header gives the rules (float min/max and NaN as the hardware does).
 */
#include <config.h>

#include "ptx/ptx.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic.h"
#include "ptx/ptx_int.h"
#include "ptx/interp_int.h"
#include "ptx/wmma_int.h"

/* ---------------------------------------------------------------------- */
/* Atomics                                                                 */
/* ---------------------------------------------------------------------- */

/* PTX's names of an atomic's operation and type as common/atomic.h's. */
static const enum atom_op atom_op_of[] = {
    [PTX_ATOM_ADD] = ATOM_ADD, [PTX_ATOM_SUB] = ATOM_SUB,
    [PTX_ATOM_EXCH] = ATOM_EXCH, [PTX_ATOM_CAS] = ATOM_CAS,
    [PTX_ATOM_MIN] = ATOM_MIN, [PTX_ATOM_MAX] = ATOM_MAX,
    [PTX_ATOM_INC] = ATOM_INC, [PTX_ATOM_DEC] = ATOM_DEC,
    [PTX_ATOM_AND] = ATOM_AND, [PTX_ATOM_OR] = ATOM_OR,
    [PTX_ATOM_XOR] = ATOM_XOR,
};
static const enum atom_type atom_type_of[] = {
    [PTX_ATYPE_B32] = ATOM_B32, [PTX_ATYPE_U32] = ATOM_U32,
    [PTX_ATYPE_S32] = ATOM_S32, [PTX_ATYPE_B64] = ATOM_B64,
    [PTX_ATYPE_U64] = ATOM_U64, [PTX_ATYPE_S64] = ATOM_S64,
    [PTX_ATYPE_F32] = ATOM_F32, [PTX_ATYPE_F64] = ATOM_F64,
};

uint64_t ptx_atom_apply(enum ptx_atom_op op, enum ptx_atom_type type,
                        uint64_t old, uint64_t operand, uint64_t cmp)
{
    enum atom_type at = (unsigned)type < sizeof(atom_type_of) /
                                             sizeof(atom_type_of[0])
                            ? atom_type_of[type]
                            : ATOM_B32;
    if (op == PTX_ATOM_NONE ||
        (unsigned)op >= sizeof(atom_op_of) / sizeof(atom_op_of[0])) {
        return atom_type_bytes(at) == 8 ? old : old & 0xffffffffull;
    }
    return atom_apply(atom_op_of[op], at, old, operand, cmp);
}

static enum ptx_atom_type atype_of(unsigned t)
{
    switch (t) {
    case PT_U32:
        return PTX_ATYPE_U32;
    case PT_S32:
        return PTX_ATYPE_S32;
    case PT_B64:
        return PTX_ATYPE_B64;
    case PT_U64:
        return PTX_ATYPE_U64;
    case PT_S64:
        return PTX_ATYPE_S64;
    case PT_F32:
        return PTX_ATYPE_F32;
    case PT_F64:
        return PTX_ATYPE_F64;
    default:
        return PTX_ATYPE_B32;
    }
}

/* ---------------------------------------------------------------------- */
/* Memory                                                                  */
/* ---------------------------------------------------------------------- */

/* Bytes per lane of a ld/st/atom. */
static unsigned access_bytes(const struct ptx_insn *in)
{
    return ptx_type_bytes((enum ptx_type)in->type) * in->vec;
}

/* Where a lane's access lands, for the spaces the interpreter owns. */
static uint8_t *lane_ptr(struct ptx_warp *w, const struct ptx_insn *in,
                         enum ptx_space space, uint64_t addr, unsigned l,
                         unsigned n)
{
    switch (space) {
    case PS_SHARED:
        addr &= 0xffffffffu;
        if (!w->ctx.shared || addr > w->ctx.shared_bytes ||
            n > w->ctx.shared_bytes - addr) {
            ptx__warp_fail(w, in,
                           "shared memory access out of bounds (offset 0x%llx, "
                           "%u bytes, %u bytes of shared memory)",
                           (unsigned long long)addr, n, w->ctx.shared_bytes);
            return NULL;
        }
        return w->ctx.shared + addr;
    case PS_LOCAL:
        addr &= 0xffffffffu;
        if (addr > w->k->local_bytes || n > w->k->local_bytes - addr) {
            ptx__warp_fail(w, in,
                           "local memory access out of bounds (offset 0x%llx, "
                           "%u bytes, %u bytes per thread)",
                           (unsigned long long)addr, n, w->k->local_bytes);
            return NULL;
        }
        return w->local + (size_t)l * w->k->local_bytes + addr;
    case PS_PARAM:
        if (addr > w->param_bytes || n > w->param_bytes - addr) {
            ptx__warp_fail(w, in,
                           "parameter access out of bounds (offset 0x%llx, %u "
                           "bytes, %u bytes of parameters)",
                           (unsigned long long)addr, n, w->param_bytes);
            return NULL;
        }
        return (uint8_t *)(uintptr_t)(w->param + addr);
    default:
        return NULL;
    }
}

/* The space a generic address falls in. */
static enum ptx_space generic_space(const struct ptx_warp *w, uint64_t *addr)
{
    const struct ptx_warp_ctx *c = &w->ctx;
    if (*addr - c->shared_window_base < c->shared_window_bytes) {
        *addr -= c->shared_window_base;
        return PS_SHARED;
    }
    if (*addr - c->local_window_base < c->local_window_bytes) {
        *addr -= c->local_window_base;
        return PS_LOCAL;
    }
    return PS_GLOBAL;
}

static uint64_t lane_addr(const struct ptx_warp *w, const struct ptx_opd *o,
                          unsigned l)
{
    uint64_t a = (uint64_t)o->imm;
    if (o->reg != PTX_NOREG) {
        a += R(w, o->reg, l);
    }
    if (o->var != PTX_NOVAR) {
        a += (unsigned)o->var < w->ctx.n_var_addrs ? w->ctx.var_addrs[o->var]
                                                   : 0;
    }
    return a;
}

/* eb (1, 2, 4 or 8) little-endian bytes at p, with fixed-size copies the
 * compiler turns into one move (a variable-size memcpy is a call). */
static inline uint64_t get_bytes(const uint8_t *p, unsigned eb)
{
    switch (eb) {
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    case 8: { uint64_t v; memcpy(&v, p, 8); return v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 1: return *p;
    default: { uint64_t v = 0; memcpy(&v, p, eb < 8 ? eb : 8); return v; }
    }
}

static inline void put_bytes(uint8_t *p, uint64_t v, unsigned eb)
{
    switch (eb) {
    case 4: { uint32_t u = (uint32_t)v; memcpy(p, &u, 4); return; }
    case 8: memcpy(p, &v, 8); return;
    case 2: { uint16_t u = (uint16_t)v; memcpy(p, &u, 2); return; }
    case 1: *p = (uint8_t)v; return;
    default: memcpy(p, &v, eb < 8 ? eb : 8); return;
    }
}

void ptx__bytes_to_regs(struct ptx_warp *w, const struct ptx_insn *in,
                        const struct ptx_opd *d, unsigned l, const uint8_t *src)
{
    unsigned eb = ptx_type_bytes((enum ptx_type)in->type);
    for (unsigned i = 0; i < in->vec; i++) {
        uint64_t v = ext(get_bytes(src + i * eb, eb), in->type);
        if (d->kind == OPD_VEC) {
            if (d->vregs[i] != PTX_NOREG) {
                R(w, d->vregs[i], l) = v;
            }
        } else {
            put(w, d, l, v);
        }
    }
}

static void regs_to_bytes(const struct ptx_warp *w, const struct ptx_insn *in,
                          const struct ptx_opd *s, unsigned l, uint8_t *dst)
{
    unsigned eb = ptx_type_bytes((enum ptx_type)in->type);
    for (unsigned i = 0; i < in->vec; i++) {
        uint64_t v = s->kind == OPD_VEC ? (s->vregs[i] == PTX_NOREG
                                               ? 0
                                               : R(w, s->vregs[i], l))
                                        : val(w, s, l);
        put_bytes(dst + i * eb, v, eb);
    }
}

void ptx__req_common(const struct ptx_warp *w, const struct ptx_insn *in,
                     struct ptx_mem_req *req, enum ptx_mem_op op)
{
    (void)w;
    req->op = op;
    req->bytes_per_lane = access_bytes(in);
    req->sem = (enum ptx_mem_sem)in->sem;
    req->scope = (enum ptx_mem_scope)in->scope;
    req->atom = (enum ptx_atom_op)in->mode;
    req->atype = atype_of(in->type);
    req->nc = in->flags & PIF_NC;
    req->constant = in->space == PS_CONST;
    req->mask = 0;
    req->line = in->line;
    req->error = NULL;
}

/* The registers a ld/st of vec 4- or 8-byte elements reads or writes
 * (o: one register, or a vector of them). Return: false when one is the
 * sink or the operand is of another kind. */
static bool value_regs(const struct ptx_insn *in, const struct ptx_opd *o,
                       uint16_t regs[4])
{
    unsigned eb = ptx_type_bytes((enum ptx_type)in->type);
    if ((eb != 4 && eb != 8) || eb * in->vec > 16) {
        return false;
    }
    if (o->kind == OPD_REG && in->vec == 1) {
        regs[0] = o->reg;
        return true;
    }
    if (o->kind != OPD_VEC || o->n != in->vec) {
        return false;
    }
    for (unsigned i = 0; i < in->vec; i++) {
        if (o->vregs[i] == PTX_NOREG) {
            return false;
        }
        regs[i] = o->vregs[i];
    }
    return true;
}

/*
 * Store data and load results of the 32 lanes between registers and the
 * request's rows, vec elements of eb bytes (value_regs' forms), each
 * form a loop of its own with the elements written out, which the
 * compiler turns into vector shuffles. Stores zero the bytes past the
 * access; loads read only the access's bytes of a row (a wider read of
 * what the executor has just stored in narrower pieces would wait for
 * the stores to complete).
 */
#define TO_ROWS(T, ...)                                                     \
    IVDEP for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {                    \
        T u_[16 / sizeof(T)] = {__VA_ARGS__};                               \
        memcpy(req->data[l], u_, 16);                                       \
    }                                                                       \
    return

FAST_CLONES
static void regs_to_rows(const struct ptx_warp *w, const uint16_t *regs,
                         unsigned eb, unsigned vec, struct ptx_mem_req *req)
{
    const uint64_t *s0 = &R(w, regs[0], 0), *s1 = s0, *s2 = s0, *s3 = s0;
    if (vec > 1) {
        s1 = &R(w, regs[1], 0);
    }
    if (vec > 2) {
        s2 = &R(w, regs[2], 0);
        s3 = &R(w, regs[3], 0);
    }
    switch (eb * 4 + vec) {
    case 4 * 4 + 1: TO_ROWS(uint32_t, (uint32_t)s0[l]);
    case 4 * 4 + 2: TO_ROWS(uint32_t, (uint32_t)s0[l], (uint32_t)s1[l]);
    case 4 * 4 + 4:
        TO_ROWS(uint32_t, (uint32_t)s0[l], (uint32_t)s1[l], (uint32_t)s2[l],
                (uint32_t)s3[l]);
    case 8 * 4 + 1: TO_ROWS(uint64_t, s0[l]);
    default: TO_ROWS(uint64_t, s0[l], s1[l]);
    }
}

/* Loaded elements into the registers of every lane, 32-bit ones zero-
 * or (SX, s32) sign-extended. */
#define X32(v) (sx ? (uint64_t)(int64_t)(int32_t)(v) : (uint64_t)(v))
#define FROM_ROWS(T, V, body)                                               \
    IVDEP for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {                    \
        T u_[16 / sizeof(T)];                                               \
        memcpy(u_, req->result[l], (V) * sizeof(T));                        \
        body;                                                               \
    }                                                                       \
    return

FAST_CLONES
static void rows_to_regs(struct ptx_warp *w, const uint16_t *regs,
                         unsigned eb, unsigned vec, bool sx,
                         const struct ptx_mem_req *req)
{
    uint64_t *d0 = &R(w, regs[0], 0), *d1 = d0, *d2 = d0, *d3 = d0;
    if (vec > 1) {
        d1 = &R(w, regs[1], 0);
    }
    if (vec > 2) {
        d2 = &R(w, regs[2], 0);
        d3 = &R(w, regs[3], 0);
    }
    switch (eb * 4 + vec) {
    case 4 * 4 + 1: FROM_ROWS(uint32_t, 1, d0[l] = X32(u_[0]));
    case 4 * 4 + 2:
        FROM_ROWS(uint32_t, 2, d0[l] = X32(u_[0]); d1[l] = X32(u_[1]));
    case 4 * 4 + 4:
        FROM_ROWS(uint32_t, 4, d0[l] = X32(u_[0]); d1[l] = X32(u_[1]);
                  d2[l] = X32(u_[2]); d3[l] = X32(u_[3]));
    case 8 * 4 + 1: FROM_ROWS(uint64_t, 1, d0[l] = u_[0]);
    default: FROM_ROWS(uint64_t, 2, d0[l] = u_[0]; d1[l] = u_[1]);
    }
}

/*
 * A global ld/st of 4- or 8-byte elements from [reg + imm], generic
 * addresses included when no running lane falls in the shared or local
 * window: the request's addresses and store data filled by straight
 * lane loops (the lanes that do not run get values too, which the
 * executor ignores). Return: false when it does not apply, req's
 * common fields only set.
 */
static bool fast_global(const struct ptx_warp *w, const struct ptx_insn *in,
                        uint32_t exec, const struct ptx_opd *mo,
                        const struct ptx_opd *vo, struct ptx_mem_req *req)
{
    const struct ptx_warp_ctx *c = &w->ctx;
    uint16_t regs[4];
    if ((in->space != PS_GLOBAL && in->space != PS_GENERIC) ||
        mo->kind != OPD_MEM || mo->reg == PTX_NOREG || mo->var != PTX_NOVAR ||
        !value_regs(in, vo, regs)) {
        return false;
    }
    const uint64_t *base = &R(w, mo->reg, 0);
    uint64_t off = (uint64_t)mo->imm;
    for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
        req->addr[l] = base[l] + off;
    }
    if (in->space == PS_GENERIC) {
        /* any lane in a window? then the running ones, one by one */
        bool any = false;
        for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
            uint64_t a = req->addr[l];
            any |= (a - c->shared_window_base < c->shared_window_bytes) |
                   (a - c->local_window_base < c->local_window_bytes);
        }
        if (any) {
            LANES(exec, l) {
                uint64_t a = req->addr[l];
                if (a - c->shared_window_base < c->shared_window_bytes ||
                    a - c->local_window_base < c->local_window_bytes) {
                    return false;
                }
            }
        }
    }
    if (in->op == OP_ST) {
        regs_to_rows(w, regs, ptx_type_bytes((enum ptx_type)in->type),
                     in->vec, req);
    }
    req->mask = exec;
    return true;
}

void ptx__mem_result(struct ptx_warp *w, const struct ptx_insn *in,
                     uint32_t mask, const struct ptx_mem_req *req)
{
    uint16_t regs[4];
    if (!value_regs(in, &in->o[0], regs)) {
        LANES(mask, l) {
            ptx__bytes_to_regs(w, in, &in->o[0], l,
                               (const uint8_t *)req->result[l]);
        }
        return;
    }
    unsigned eb = ptx_type_bytes((enum ptx_type)in->type);
    bool sx = in->type == PT_S32;
    if (mask == UINT32_MAX) {
        rows_to_regs(w, regs, eb, in->vec, sx, req);
        return;
    }
    for (unsigned i = 0; i < in->vec; i++) {
        uint64_t *d = &R(w, regs[i], 0);
        if (eb == 8) {
            LANES(mask, l) {
                d[l] = req->result[l][i];
            }
            continue;
        }
        LANES(mask, l) {
            uint32_t u;
            memcpy(&u, (const uint8_t *)req->result[l] + 4 * i, 4);
            d[l] = sx ? (uint64_t)(int64_t)(int32_t)u : u;
        }
    }
}

int ptx__exec_mem(struct ptx_warp *w, const struct ptx_insn *in, uint32_t exec,
                  struct ptx_mem_req *req)
{
    bool is_st = in->op == OP_ST, is_red = in->op == OP_RED;
    bool is_atom = in->op == OP_ATOM || is_red;
    const struct ptx_opd *mo = &in->o[(is_st || is_red) ? 0 : 1];
    const struct ptx_opd *vo = &in->o[(is_st || is_red) ? 1 : 0];
    unsigned n = access_bytes(in);
    enum ptx_mem_op op = is_st ? PTX_MEM_ST
                               : is_red ? PTX_MEM_RED
                                        : is_atom ? PTX_MEM_ATOM : PTX_MEM_LD;
    ptx__req_common(w, in, req, op);
    if (!is_atom && fast_global(w, in, exec, mo, vo, req)) {
        return 1;
    }
    if (in->op == OP_LD && in->space == PS_PARAM && exec &&
        mo->kind == OPD_MEM && mo->reg == PTX_NOREG) {
        /* one address for every lane (a kernel's parameters, read at
         * its start by every warp): checked and read once, and each
         * element's value written to every lane */
        uint8_t *p = lane_ptr(w, in, PS_PARAM, lane_addr(w, mo, 0),
                              (unsigned)__builtin_ctz(exec), n);
        if (!p) {
            return -1;
        }
        unsigned eb = ptx_type_bytes((enum ptx_type)in->type);
        for (unsigned i = 0; i < in->vec; i++) {
            uint64_t v = ext(get_bytes(p + i * eb, eb), in->type);
            unsigned reg = vo->kind == OPD_VEC ? vo->vregs[i]
                         : vo->kind == OPD_REG ? vo->reg : PTX_NOREG;
            if (reg != PTX_NOREG) {
                uint64_t *d = &R(w, reg, 0);
                LANES(exec, l) {
                    d[l] = v;
                }
            }
        }
        req->mask = 0;
        return 0;
    }
    uint32_t global = 0;
    LANES(exec, l) {
        uint64_t addr = lane_addr(w, mo, l);
        enum ptx_space sp = (enum ptx_space)in->space;
        if (sp == PS_GENERIC) {
            sp = generic_space(w, &addr);
        }
        if (sp == PS_GLOBAL || sp == PS_CONST) {
            global |= 1u << l;
            req->addr[l] = addr;
            if (is_st) {
                req->data[l][0] = req->data[l][1] = 0;
                regs_to_bytes(w, in, vo, l, (uint8_t *)req->data[l]);
            } else if (is_atom) {
                unsigned bi = is_red ? 1 : 2;
                if (in->mode == PTX_ATOM_CAS) {
                    req->cmp[l] = val(w, &in->o[bi], l);
                    req->data[l][0] = val(w, &in->o[bi + 1], l);
                } else {
                    req->data[l][0] = val(w, &in->o[bi], l);
                }
            }
            continue;
        }
        uint8_t *p = lane_ptr(w, in, sp, addr, l, n);
        if (!p) {
            return -1;
        }
        if (is_st) {
            regs_to_bytes(w, in, vo, l, p);
        } else if (is_atom) {
            unsigned bi = is_red ? 1 : 2;
            uint64_t old = 0, b, c = 0;
            memcpy(&old, p, n);
            if (in->mode == PTX_ATOM_CAS) {
                c = val(w, &in->o[bi], l);
                b = val(w, &in->o[bi + 1], l);
            } else {
                b = val(w, &in->o[bi], l);
            }
            uint64_t nv = ptx_atom_apply((enum ptx_atom_op)in->mode,
                                         atype_of(in->type), old, b, c);
            memcpy(p, &nv, n);
            if (!is_red) {
                put(w, vo, l, ext(old, in->type));
            }
        } else {
            ptx__bytes_to_regs(w, in, vo, l, p);
        }
    }
    req->mask = global;
    return global != 0;
}

uint8_t *ptx__lane_ptr(struct ptx_warp *w, const struct ptx_insn *in,
                       enum ptx_space space, uint64_t addr, unsigned l,
                       unsigned n)
{
    return lane_ptr(w, in, space, addr, l, n);
}

enum ptx_space ptx__generic_space(const struct ptx_warp *w, uint64_t *addr)
{
    return generic_space(w, addr);
}
