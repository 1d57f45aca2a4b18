/*
 * ptx/interp_move.c - moves, conversions and predicates: mov (with
 * vector pack and unpack), cvt (PTX's saturation and rounding, NaN to
 * integer gives 0), cvta between generic and space addresses, setp
 * (ordered and unordered float comparisons, a combining predicate) and
 * selp.
 */
#include <config.h>

#include "ptx/ptx.h"

#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx_int.h"
#include "ptx/interp_int.h"

static bool compare(unsigned cmp, unsigned t, uint64_t a, uint64_t b)
{
    if (t == PT_F32 || t == PT_F64) {
        double x = t == PT_F32 ? f32(a) : f64(a);
        double y = t == PT_F32 ? f32(b) : f64(b);
        bool un = isnan(x) || isnan(y);
        switch (cmp) {
        case PC_EQ: return !un && x == y;
        case PC_NE: return !un && x != y;
        case PC_LT: return !un && x < y;
        case PC_LE: return !un && x <= y;
        case PC_GT: return !un && x > y;
        case PC_GE: return !un && x >= y;
        case PC_EQU: return un || x == y;
        case PC_NEU: return un || x != y;
        case PC_LTU: return un || x < y;
        case PC_LEU: return un || x <= y;
        case PC_GTU: return un || x > y;
        case PC_GEU: return un || x >= y;
        case PC_NUM: return !un;
        case PC_NAN: return un;
        default: return false;
        }
    }
    bool s = is_signed(t);
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (cmp) {
    case PC_EQ: return a == b;
    case PC_NE: return a != b;
    case PC_LT: return s ? sa < sb : a < b;
    case PC_LE: return s ? sa <= sb : a <= b;
    case PC_GT: return s ? sa > sb : a > b;
    case PC_GE: return s ? sa >= sb : a >= b;
    case PC_LO: return a < b;
    case PC_LS: return a <= b;
    case PC_HI: return a > b;
    case PC_HS: return a >= b;
    default: return false;
    }
}

/* cvt: the source value (raw bits of st) as type dt. */
static uint64_t convert(uint64_t v, unsigned dt, unsigned st, unsigned rnd,
                        uint16_t flags)
{
    bool dflt = dt == PT_F32 || dt == PT_F64;
    bool sflt = st == PT_F32 || st == PT_F64;
    if (!sflt) {
        v = ext(v, st);
        if (!dflt) {
            if (flags & PIF_SAT) {
                unsigned bits = width_bits(dt);
                bool ds = is_signed(dt);
                __int128 x = is_signed(st) ? (__int128)(int64_t)v
                                           : (__int128)v;
                __int128 lo = ds ? -((__int128)1 << (bits - 1)) : 0;
                __int128 hi = ds ? ((__int128)1 << (bits - 1)) - 1
                                 : ((__int128)1 << bits) - 1;
                x = x < lo ? lo : x > hi ? hi : x;
                v = (uint64_t)x;
            }
            return ext(v, dt);
        }
        double d = is_signed(st) ? (double)(int64_t)v : (double)v;
        if (dt == PT_F32) {
            float f = is_signed(st) ? (float)(int64_t)v : (float)v;
            return bits32(f);
        }
        return bits64(d);
    }
    double d = st == PT_F32 ? f32(v) : f64(v);
    if (dflt && !(flags & PIF_RNDI)) {
        return dt == PT_F32 ? bits32((float)d) : bits64(d);
    }
    switch (rnd) {
    case PR_RZ: d = trunc(d); break;
    case PR_RM: d = floor(d); break;
    case PR_RP: d = ceil(d); break;
    default: d = nearbyint(d); break;
    }
    if (dflt) {
        return dt == PT_F32 ? bits32((float)d) : bits64(d);
    }
    /* float to integer saturates; NaN gives 0 (PTX ISA, cvt) */
    unsigned bits = width_bits(dt);
    if (isnan(d)) {
        return 0;
    }
    if (is_signed(dt)) {
        double lo = -ldexp(1.0, (int)bits - 1), hi = ldexp(1.0, (int)bits - 1);
        if (d <= lo) {
            return ext((uint64_t)(INT64_MIN >> (64 - bits)), dt);
        }
        if (d >= hi) {
            return ext((uint64_t)(INT64_MAX >> (64 - bits)), dt);
        }
        return ext((uint64_t)(int64_t)d, dt);
    }
    double hi = ldexp(1.0, (int)bits);
    if (d <= 0) {
        return 0;
    }
    if (d >= hi) {
        return bits == 64 ? ~0ull : (1ull << bits) - 1;
    }
    return (uint64_t)d;
}

void ptx__exec_cvt(struct ptx_warp *w, const struct ptx_insn *in, uint32_t exec)
{
    if (in->type == PT_F16 || in->type2 == PT_F16) {
        /* through f32: a half is exact in it; to a half rounds to
         * nearest even (Model: whatever the rounding modifier) */
        LANES(exec, l) {
            uint64_t v = val(w, &in->o[1], l);
            if (in->type2 == PT_F16) {
                v = ptx__f16_to_f32((uint16_t)v);
            }
            if (in->type != PT_F32 || in->type2 != PT_F16) {
                v = convert(v, in->type == PT_F16 ? PT_F32 : in->type,
                            in->type2 == PT_F16 ? PT_F32 : in->type2,
                            in->rnd, in->flags);
            }
            if (in->type == PT_F16) {
                v = ptx__f32_to_f16((uint32_t)v);
            }
            put(w, &in->o[0], l, v);
        }
        return;
    }
    LANES(exec, l) {
        put(w, &in->o[0], l,
            convert(val(w, &in->o[1], l), in->type, in->type2, in->rnd,
                    in->flags));
    }
}

/* ---------------------------------------------------------------------- */
/* Moves, conversions, predicates                                          */
/* ---------------------------------------------------------------------- */

void ptx__exec_mov(struct ptx_warp *w, const struct ptx_insn *in, uint32_t exec)
{
    const struct ptx_opd *d = &in->o[0], *a = &in->o[1];
    unsigned bytes = ptx_type_bytes((enum ptx_type)in->type);
    if (d->kind == OPD_VEC) {
        /* unpack: mov.b64 {lo, hi}, %rd */
        unsigned eb = bytes / d->n, sh = eb * 8;
        uint64_t em = sh >= 64 ? ~0ull : (1ull << sh) - 1;
        LANES(exec, l) {
            uint64_t v = val(w, a, l);
            for (unsigned i = 0; i < d->n; i++) {
                if (d->vregs[i] != PTX_NOREG) {
                    R(w, d->vregs[i], l) = (v >> (i * sh)) & em;
                }
            }
        }
        return;
    }
    if (a->kind == OPD_VEC) {
        /* pack: mov.b64 %rd, {lo, hi} */
        unsigned eb = bytes / a->n, sh = eb * 8;
        uint64_t em = sh >= 64 ? ~0ull : (1ull << sh) - 1;
        LANES(exec, l) {
            uint64_t v = 0;
            for (unsigned i = 0; i < a->n; i++) {
                uint64_t e = a->vregs[i] == PTX_NOREG ? 0
                                                      : R(w, a->vregs[i], l);
                v |= (e & em) << (i * sh);
            }
            put(w, d, l, v);
        }
        return;
    }
    if (a->kind == OPD_TIME || a->kind == OPD_VAR) {
        uint64_t v = ptx__val_slow(w, a); /* same for every lane */
        LANES(exec, l) {
            put(w, d, l, v);
        }
        return;
    }
    struct lane_src sa;
    src_of(w, a, &sa);
    uint64_t *dp = dst_of(w, d);
    unsigned sh = ext_sh[in->type];
    bool sg = ext_signed[in->type];
    LANES(exec, l) {
        dp[l] = extk(sa.p[l & sa.m], sh, sg);
    }
}

void ptx__exec_cvta(struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec)
{
    uint64_t base = 0;
    if (in->space == PS_SHARED) {
        base = w->ctx.shared_window_base;
    } else if (in->space == PS_LOCAL) {
        base = w->ctx.local_window_base;
    }
    bool to = in->flags & PIF_TO;
    if (in->o[0].kind == OPD_REG && in->o[1].kind == OPD_REG) {
        /* register to register (nvcc's cvta.to.global of each pointer
         * parameter): one lane loop, the space's arithmetic hoisted */
        const uint64_t *a = &R(w, in->o[1].reg, 0);
        uint64_t *d = &R(w, in->o[0].reg, 0);
        unsigned sh = ext_sh[in->type];
        bool sg = ext_signed[in->type];
        if (in->space == PS_GLOBAL) {
            LANES(exec, l) {
                d[l] = extk(a[l], sh, sg);
            }
        } else if (!to) {
            LANES(exec, l) {
                d[l] = extk((a[l] & 0xffffffffu) + base, sh, sg);
            }
        } else {
            LANES(exec, l) {
                d[l] = extk(a[l] - base, sh, sg);
            }
        }
        return;
    }
    LANES(exec, l) {
        uint64_t v = val(w, &in->o[1], l);
        if (in->o[1].kind == OPD_VAR) {
            v = ptx__val_slow(w, &in->o[1]);
        }
        if (in->space != PS_GLOBAL && !to) {
            v = (v & 0xffffffffu) + base;
        } else if (in->space != PS_GLOBAL) {
            v -= base;
        }
        put(w, &in->o[0], l, ext(v, in->type));
    }
}

void ptx__exec_setp(struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec)
{
    const struct ptx_opd *p = &in->o[0], *q = &in->o[1], *c = &in->o[4];
    unsigned t = in->type;
    bool flt = t == PT_F32 || t == PT_F64;
    if (!flt && !in->boolop && q->kind != OPD_REG && in->cmp <= PC_HS) {
        /* the common case, with the comparison hoisted: signed order is
         * unsigned order with the sign bit flipped */
        struct lane_src sa, sb;
        src_of(w, &in->o[2], &sa);
        src_of(w, &in->o[3], &sb);
        uint64_t *dp = dst_of(w, p);
        unsigned sh = ext_sh[t];
        bool sg = ext_signed[t];
        uint64_t flip = (sg && in->cmp >= PC_LT && in->cmp <= PC_GE)
                            ? 1ull << 63 : 0;
#define SETP(expr)                                                          \
    LANES(exec, l) {                                                        \
        uint64_t x = extk(sa.p[l & sa.m], sh, sg) ^ flip;                   \
        uint64_t y = extk(sb.p[l & sb.m], sh, sg) ^ flip;                   \
        dp[l] = (expr);                                                     \
    }                                                                       \
    return
        switch (in->cmp) {
        case PC_EQ: SETP(x == y);
        case PC_NE: SETP(x != y);
        case PC_LT: case PC_LO: SETP(x < y);
        case PC_LE: case PC_LS: SETP(x <= y);
        case PC_GT: case PC_HI: SETP(x > y);
        default: SETP(x >= y);
        }
#undef SETP
    }
    if (t == PT_F32 && !in->boolop && q->kind != OPD_REG &&
        (in->cmp == PC_EQ || (in->cmp >= PC_LT && in->cmp <= PC_GE))) {
        /* ordered f32 comparisons: C's <, <=, >, >=, == are already false
         * with a NaN operand, as PTX's ordered ones are */
        struct lane_src sa, sb;
        src_of(w, &in->o[2], &sa);
        src_of(w, &in->o[3], &sb);
        uint64_t *dp = dst_of(w, p);
#define SETPF(expr)                                                         \
    LANES(exec, l) {                                                        \
        float x = f32(sa.p[l & sa.m]), y = f32(sb.p[l & sb.m]);             \
        dp[l] = (expr);                                                     \
    }                                                                       \
    return
        switch (in->cmp) {
        case PC_EQ: SETPF(x == y);
        case PC_LT: SETPF(x < y);
        case PC_LE: SETPF(x <= y);
        case PC_GT: SETPF(x > y);
        default: SETPF(x >= y);
        }
#undef SETPF
    }
    LANES(exec, l) {
        uint64_t a = val(w, &in->o[2], l), b = val(w, &in->o[3], l);
        if (!flt) {
            a = ext(a, t);
            b = ext(b, t);
        }
        bool r = compare(in->cmp, t, a, b);
        bool rq = !r;
        if (in->boolop) {
            bool cv = (val(w, c, l) & 1u) ^ c->neg;
            if (in->boolop == 1) {
                r = r && cv;
                rq = rq && cv;
            } else if (in->boolop == 2) {
                r = r || cv;
                rq = rq || cv;
            } else {
                r = r ^ cv;
                rq = rq ^ cv;
            }
        }
        put(w, p, l, r);
        if (q->kind == OPD_REG) {
            put(w, q, l, rq);
        }
    }
}

void ptx__exec_selp(struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec)
{
    const struct ptx_opd *c = &in->o[3];
    LANES(exec, l) {
        bool s = (val(w, c, l) & 1u) ^ c->neg;
        put(w, &in->o[0], l, ext(val(w, &in->o[s ? 1 : 2], l), in->type));
    }
}
