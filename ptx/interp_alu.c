/*
 * ptx/interp_alu.c - the interpreter's arithmetic: integer and float
 * add, sub, mul (.lo/.hi/.wide), mad, fma, div, rem, min, max, logic,
 * shifts, the unary operations (abs, neg, not, rcp, sqrt, ex2, sin ...,
 * popc, clz, brev) and the bit-field operations bfe, bfi and prmt.
 *
 * The common forms (f32 add/sub/mul/fma, integer operations without
 * .sat/.hi/.wide, shifts) run in lane loops with the operation's switch
 * hoisted out; the rest go through int_bin, flt_bin, int_un and flt_un.
 * Model: float arithmetic is the host's IEEE arithmetic (.approx is
 * exact, .ftz does not flush, directed rounding is computed to nearest;
 * docs/ptx.md); integer division by zero gives all ones and rem by zero
 * the dividend, where PTX leaves the result unspecified.
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

/* ---------------------------------------------------------------------- */
/* Arithmetic                                                              */
/* ---------------------------------------------------------------------- */

static uint64_t int_mulhi(uint64_t a, uint64_t b, unsigned t)
{
    unsigned bits = width_bits(t);
    if (bits == 64) {
        if (is_signed(t)) {
            return (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64);
        }
        return (uint64_t)(((unsigned __int128)a * b) >> 64);
    }
    if (is_signed(t)) {
        return (uint64_t)(((int64_t)a * (int64_t)b) >> bits);
    }
    return (a * b) >> bits;
}

static uint64_t sat_s32(int64_t v)
{
    if (v > INT32_MAX) {
        v = INT32_MAX;
    } else if (v < INT32_MIN) {
        v = INT32_MIN;
    }
    return (uint64_t)v;
}

/* Integer binary operations on extended operands. */
static uint64_t int_bin(unsigned op, unsigned t, uint16_t flags, uint64_t a,
                        uint64_t b)
{
    bool s = is_signed(t);
    unsigned bits = width_bits(t);
    switch (op) {
    case OP_ADD:
        return (flags & PIF_SAT) ? sat_s32((int64_t)a + (int64_t)b) : a + b;
    case OP_SUB:
        return (flags & PIF_SAT) ? sat_s32((int64_t)a - (int64_t)b) : a - b;
    case OP_MUL:
        if (flags & PIF_24) {
            /* the low 24 bits of each, as a signed or unsigned 24-bit
             * number; .hi is bits 16..47 of the 48-bit product */
            int64_t x = (int64_t)(a & 0xffffff), y = (int64_t)(b & 0xffffff);
            if (s) {
                x = (x ^ 0x800000) - 0x800000;
                y = (y ^ 0x800000) - 0x800000;
            }
            uint64_t pr = (uint64_t)(x * y);
            return (flags & PIF_HI) ? pr >> 16 : pr;
        }
        if (flags & PIF_HI) {
            return int_mulhi(a, b, t);
        }
        return a * b; /* .lo, and .wide on extended operands */
    case OP_DIV:
        if (b == 0) {
            return ~0ull; /* Model: PTX leaves it unspecified */
        }
        if (s) {
            if ((int64_t)b == -1) {
                return 0 - a;
            }
            return (uint64_t)((int64_t)a / (int64_t)b);
        }
        return a / b;
    case OP_REM:
        if (b == 0) {
            return a;
        }
        if (s) {
            if ((int64_t)b == -1) {
                return 0;
            }
            return (uint64_t)((int64_t)a % (int64_t)b);
        }
        return a % b;
    case OP_MIN:
        return s ? ((int64_t)a < (int64_t)b ? a : b) : (a < b ? a : b);
    case OP_MAX:
        return s ? ((int64_t)a > (int64_t)b ? a : b) : (a > b ? a : b);
    case OP_AND:
        return a & b;
    case OP_OR:
        return a | b;
    case OP_XOR:
        return a ^ b;
    case OP_SHL:
        return b >= bits ? 0 : a << b;
    case OP_SHR:
        if (s) {
            return (uint64_t)((int64_t)a >> (b >= bits ? 63 : b));
        }
        return b >= bits ? 0 : a >> b;
    default:
        return 0;
    }
}

static uint64_t flt_bin(unsigned op, unsigned t, uint64_t a, uint64_t b)
{
    if (t == PT_F32) {
        float x = f32(a), y = f32(b), r;
        switch (op) {
        case OP_ADD: r = x + y; break;
        case OP_SUB: r = x - y; break;
        case OP_MUL: r = x * y; break;
        case OP_DIV: r = x / y; break;
        case OP_MIN: r = fminf(x, y); break;
        case OP_MAX: r = fmaxf(x, y); break;
        case OP_COPYSIGN: r = copysignf(y, x); break;
        default: r = 0; break;
        }
        return bits32(r);
    }
    double x = f64(a), y = f64(b), r;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_DIV: r = x / y; break;
    case OP_MIN: r = fmin(x, y); break;
    case OP_MAX: r = fmax(x, y); break;
    case OP_COPYSIGN: r = copysign(y, x); break;
    default: r = 0; break;
    }
    return bits64(r);
}

static uint64_t flt_un(unsigned op, unsigned t, uint64_t a)
{
    if (t == PT_F32) {
        float x = f32(a), r;
        switch (op) {
        case OP_ABS: r = fabsf(x); break;
        case OP_NEG: r = -x; break;
        case OP_RCP: r = 1.0f / x; break;
        case OP_SQRT: r = sqrtf(x); break;
        case OP_RSQRT: r = 1.0f / sqrtf(x); break;
        case OP_EX2: r = exp2f(x); break;
        case OP_LG2: r = log2f(x); break;
        case OP_SIN: r = sinf(x); break;
        case OP_COS: r = cosf(x); break;
        default: r = 0; break;
        }
        return bits32(r);
    }
    double x = f64(a), r;
    switch (op) {
    case OP_ABS: r = fabs(x); break;
    case OP_NEG: r = -x; break;
    case OP_RCP: r = 1.0 / x; break;
    case OP_SQRT: r = sqrt(x); break;
    case OP_RSQRT: r = 1.0 / sqrt(x); break;
    case OP_EX2: r = exp2(x); break;
    case OP_LG2: r = log2(x); break;
    case OP_SIN: r = sin(x); break;
    case OP_COS: r = cos(x); break;
    default: r = 0; break;
    }
    return bits64(r);
}

static uint64_t int_un(unsigned op, unsigned t, uint64_t a)
{
    unsigned bits = width_bits(t);
    uint64_t wmask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    switch (op) {
    case OP_ABS:
        return (int64_t)a < 0 ? 0 - a : a;
    case OP_NEG:
        return t == PT_PRED ? !a : 0 - a;
    case OP_NOT:
        return t == PT_PRED ? !a : ~a;
    case OP_CNOT:
        return a == 0;
    case OP_POPC:
        return (uint64_t)__builtin_popcountll(a & wmask);
    case OP_CLZ:
        a &= wmask;
        return a ? (uint64_t)(__builtin_clzll(a) - (64 - bits)) : bits;
    case OP_BREV: {
        uint64_t r = 0;
        for (unsigned i = 0; i < bits; i++) {
            r |= ((a >> i) & 1u) << (bits - 1 - i);
        }
        return r;
    }
    default:
        return 0;
    }
}

/* setp's comparison. */
/* Lane loops with the operation's switch hoisted out. */
#define IBIN(expr)                                                          \
    LANES(exec, l) {                                                        \
        uint64_t x = extk(sa.p[l & sa.m], sh, s);                           \
        uint64_t y = extk(sb.p[l & sb.m], sh, s);                           \
        dp[l] = extk((expr), sh, s);                                        \
    }                                                                       \
    break
#define FBIN32(expr)                                                        \
    LANES(exec, l) {                                                        \
        float x = f32(sa.p[l & sa.m]), y = f32(sb.p[l & sb.m]);             \
        dp[l] = bits32(expr);                                               \
    }

void ptx__exec_alu(struct ptx_warp *w, const struct ptx_insn *in, uint32_t exec)
{
    const struct ptx_opd *d = &in->o[0], *a = &in->o[1], *b = &in->o[2],
                         *c = &in->o[3];
    unsigned t = in->type, op = in->op;
    if (t == PT_F16 || t == PT_F16X2) {
        ptx__exec_f16(w, in, exec);
        return;
    }
    bool flt = t == PT_F32 || t == PT_F64;
    struct lane_src sa, sb, sc;
    src_of(w, a, &sa);
    if (in->n_opds > 2) {
        src_of(w, b, &sb);
    }
    uint64_t *dp = dst_of(w, d);
    switch (op) {
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_REM:
    case OP_MIN:
    case OP_MAX:
    case OP_AND:
    case OP_OR:
    case OP_XOR:
    case OP_COPYSIGN:
        if (flt) {
            if (t == PT_F32 && op <= OP_MUL) {
                if (op == OP_ADD) {
                    FBIN32(x + y);
                } else if (op == OP_SUB) {
                    FBIN32(x - y);
                } else {
                    FBIN32(x * y);
                }
            } else {
                LANES(exec, l) {
                    put(w, d, l, flt_bin(op, t, val(w, a, l), val(w, b, l)));
                }
            }
        } else if (!(in->flags & (PIF_SAT | PIF_HI | PIF_WIDE | PIF_24))) {
            unsigned sh = ext_sh[t];
            bool s = ext_signed[t];
            switch (op) {
            case OP_ADD: IBIN(x + y);
            case OP_SUB: IBIN(x - y);
            case OP_MUL: IBIN(x * y);
            case OP_AND: IBIN(x & y);
            case OP_OR: IBIN(x | y);
            case OP_XOR: IBIN(x ^ y);
            case OP_MIN:
                IBIN(s ? ((int64_t)x < (int64_t)y ? x : y) : (x < y ? x : y));
            case OP_MAX:
                IBIN(s ? ((int64_t)x > (int64_t)y ? x : y) : (x > y ? x : y));
            default:
                LANES(exec, l) {
                    put(w, d, l, extk(int_bin(op, t, in->flags,
                                              extk(val(w, a, l), sh, s),
                                              extk(val(w, b, l), sh, s)),
                                      sh, s));
                }
                break;
            }
        } else {
            unsigned rt = (in->flags & PIF_WIDE) ? PT_S64 : t;
            if ((in->flags & PIF_WIDE) && !is_signed(t)) {
                rt = PT_U64;
            }
            LANES(exec, l) {
                uint64_t x = int_bin(op, t, in->flags, ext(val(w, a, l), t),
                                     ext(val(w, b, l), t));
                put(w, d, l, ext(x, rt));
            }
        }
        break;
    case OP_SHL:
    case OP_SHR: {
        /* int_bin's shifts with the operation and type hoisted */
        unsigned sh = ext_sh[t], bits = width_bits(t);
        bool s = ext_signed[t];
        src_of(w, b, &sb);
        if (op == OP_SHL) {
            LANES(exec, l) {
                uint64_t x = extk(sa.p[l & sa.m], sh, s);
                uint64_t y = sb.p[l & sb.m] & 0xffffffffu;
                dp[l] = extk(y >= bits ? 0 : x << y, sh, s);
            }
        } else if (s) {
            LANES(exec, l) {
                uint64_t x = extk(sa.p[l & sa.m], sh, s);
                uint64_t y = sb.p[l & sb.m] & 0xffffffffu;
                dp[l] = extk((uint64_t)((int64_t)x >> (y >= bits ? 63 : y)),
                             sh, s);
            }
        } else {
            LANES(exec, l) {
                uint64_t x = extk(sa.p[l & sa.m], sh, s);
                uint64_t y = sb.p[l & sb.m] & 0xffffffffu;
                dp[l] = extk(y >= bits ? 0 : x >> y, sh, s);
            }
        }
        break;
    }
    case OP_MAD:
    case OP_FMA:
        if (t == PT_F32) {
            src_of(w, c, &sc);
            LANES(exec, l) {
                dp[l] = bits32(fmaf(f32(sa.p[l & sa.m]), f32(sb.p[l & sb.m]),
                                    f32(sc.p[l & sc.m])));
            }
        } else if (flt) {
            LANES(exec, l) {
                uint64_t x = t == PT_F32
                                 ? bits32(fmaf(f32(val(w, a, l)),
                                               f32(val(w, b, l)),
                                               f32(val(w, c, l))))
                                 : bits64(fma(f64(val(w, a, l)),
                                              f64(val(w, b, l)),
                                              f64(val(w, c, l))));
                put(w, d, l, x);
            }
        } else {
            unsigned rt = t;
            if (in->flags & PIF_WIDE) {
                rt = is_signed(t) ? PT_S64 : PT_U64;
            }
            LANES(exec, l) {
                uint64_t x = int_bin(OP_MUL, t, in->flags,
                                     ext(val(w, a, l), t),
                                     ext(val(w, b, l), t));
                x += val(w, c, l);
                if (in->flags & PIF_SAT) {
                    x = sat_s32((int64_t)(int32_t)int_bin(
                                    OP_MUL, t, in->flags,
                                    ext(val(w, a, l), t),
                                    ext(val(w, b, l), t)) +
                                (int64_t)(int32_t)val(w, c, l));
                }
                put(w, d, l, ext(x, rt));
            }
        }
        break;
    case OP_ABS:
    case OP_NEG:
    case OP_NOT:
    case OP_CNOT:
    case OP_RCP:
    case OP_SQRT:
    case OP_RSQRT:
    case OP_EX2:
    case OP_LG2:
    case OP_SIN:
    case OP_COS:
    case OP_POPC:
    case OP_CLZ:
    case OP_BREV:
        LANES(exec, l) {
            uint64_t x = flt ? flt_un(op, t, val(w, a, l))
                             : int_un(op, t, ext(val(w, a, l), t));
            put(w, d, l, (op == OP_POPC || op == OP_CLZ) ? x : ext(x, t));
        }
        break;
    case OP_BFIND:
        /* the most significant bit that is not a sign bit; with .shiftamt
         * the left shift that brings it to the top; 0xffffffff: none */
        LANES(exec, l) {
            unsigned bits = width_bits(t);
            uint64_t x = ext(val(w, a, l), t);
            if (is_signed(t) && (int64_t)x < 0) {
                x = ~x;
            }
            if (bits < 64) {
                x &= (UINT64_C(1) << bits) - 1;
            }
            uint32_t r = UINT32_MAX;
            if (x) {
                unsigned pos = 63u - (unsigned)__builtin_clzll(x);
                r = (in->flags & PIF_SHIFTAMT) ? bits - 1 - pos : pos;
            }
            put(w, d, l, r);
        }
        break;
    case OP_VABSDIFF4:
        LANES(exec, l) {
            uint32_t x = (uint32_t)val(w, a, l), y = (uint32_t)val(w, b, l);
            uint32_t r = (uint32_t)val(w, c, l);
            for (unsigned i = 0; i < 32; i += 8) {
                int d8 = (int)((x >> i) & 0xffu) - (int)((y >> i) & 0xffu);
                r += (uint32_t)(d8 < 0 ? -d8 : d8);
            }
            put(w, d, l, r);
        }
        break;
    case OP_SHF:
        /* funnel shift of {b, a} by c (.wrap: c mod 32; .clamp: at most
         * 32): .l the upper 32 bits of it shifted left, .r the lower of
         * it shifted right */
        LANES(exec, l) {
            uint64_t ba = (val(w, b, l) & 0xffffffffu) << 32 |
                          (val(w, a, l) & 0xffffffffu);
            uint64_t n = val(w, c, l) & 0xffffffffu;
            n = in->flags & PIF_WRAP ? n & 31u : n > 32 ? 32 : n;
            put(w, d, l, in->mode ? (uint32_t)(ba >> n)
                                  : (uint32_t)((ba << n) >> 32));
        }
        break;
    case OP_BMSK:
        /* bits [a, a + b) of 32; .clamp: a >= 32 gives 0, b past 32
         * reaches bit 31; .wrap: a and b modulo 32 */
        LANES(exec, l) {
            uint64_t pa = val(w, a, l) & 0xffffffffu;
            uint64_t wb = val(w, b, l) & 0xffffffffu;
            if (in->flags & PIF_WRAP) {
                pa &= 31;
                wb &= 31;
            }
            uint64_t end = pa + wb > 32 ? 32 : pa + wb;
            uint64_t r = pa >= 32 ? 0
                                  : (((UINT64_C(1) << end) - 1) &
                                     ~((UINT64_C(1) << pa) - 1));
            put(w, d, l, (uint32_t)r);
        }
        break;
    case OP_BFE:
        LANES(exec, l) {
            unsigned bits = width_bits(t);
            uint64_t x = ext(val(w, a, l), t);
            unsigned pos = (unsigned)(val(w, b, l) & 0xff);
            unsigned len = (unsigned)(val(w, c, l) & 0xff);
            uint64_t r = 0;
            for (unsigned i = 0; i < len && i < bits; i++) {
                unsigned src = pos + i < bits ? pos + i : bits - 1;
                r |= ((x >> src) & 1u) << i;
            }
            if (is_signed(t) && len > 0 && len < bits) {
                unsigned sbit = pos + len - 1 < bits ? pos + len - 1 : bits - 1;
                if ((x >> sbit) & 1u) {
                    r |= ~0ull << len;
                }
            }
            put(w, d, l, ext(r, t));
        }
        break;
    case OP_BFI:
        LANES(exec, l) {
            unsigned bits = width_bits(t);
            uint64_t f = val(w, a, l), x = val(w, b, l);
            unsigned pos = (unsigned)(val(w, c, l) & 0xff);
            unsigned len = (unsigned)(val(w, &in->o[4], l) & 0xff);
            for (unsigned i = 0; i < len && pos + i < bits; i++) {
                x = (x & ~(1ull << (pos + i))) | (((f >> i) & 1u) << (pos + i));
            }
            put(w, d, l, ext(x, t));
        }
        break;
    case OP_PRMT:
        LANES(exec, l) {
            uint64_t bytes = (val(w, a, l) & 0xffffffffu) |
                             ((val(w, b, l) & 0xffffffffu) << 32);
            uint32_t sel = (uint32_t)val(w, c, l), r = 0;
            for (unsigned i = 0; i < 4; i++) {
                unsigned s = (sel >> (4 * i)) & 0xf;
                uint32_t byte = (uint32_t)(bytes >> ((s & 7) * 8)) & 0xff;
                if (s & 8) {
                    byte = (byte & 0x80) ? 0xff : 0;
                }
                r |= byte << (8 * i);
            }
            put(w, d, l, r);
        }
        break;
    default:
        break;
    }
}
