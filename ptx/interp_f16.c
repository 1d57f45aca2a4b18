/*
 * ptx/interp_f16.c - half precision: the conversions between f16 and
 * f32 bits (IEEE binary16, round to nearest even, subnormals, infinities
 * and NaN kept) and add, sub, mul, fma, min, max, neg and abs on .f16 and
 * on the two halves of .f16x2 (__half2 arithmetic, e.g. fp16ScalarProduct).
 *
 * Model: each operation is computed in double (exact for add, sub, mul
 * of halves; fma rounds once in double first) and rounded to the nearest
 * half; rounding modifiers and .ftz/.sat are accepted and not applied,
 * as for f32 (docs/ptx.md).
 */
#include <config.h>

#include "ptx/ptx.h"

#include <math.h>
#include <string.h>

#include "ptx/ptx_int.h"
#include "ptx/interp_int.h"

uint32_t ptx__f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    if (exp == 0x1f) {
        return sign | 0x7f800000u | (man << 13); /* inf, NaN */
    }
    if (exp == 0) {
        if (man == 0) {
            return sign;
        }
        /* subnormal: normalize */
        int e = -1;
        do {
            e++;
            man <<= 1;
        } while (!(man & 0x400u));
        return sign | ((uint32_t)(127 - 15 - e) << 23) |
               ((man & 0x3ffu) << 13);
    }
    return sign | ((exp + 127 - 15) << 23) | (man << 13);
}

uint16_t ptx__f32_to_f16(uint32_t f)
{
    uint16_t sign = (uint16_t)((f >> 16) & 0x8000u);
    uint32_t exp = (f >> 23) & 0xffu, man = f & 0x7fffffu;
    if (exp == 0xff) {
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
    }
    int e = (int)exp - 127 + 15;
    if (e >= 0x1f) {
        return (uint16_t)(sign | 0x7c00u); /* overflow: infinity */
    }
    uint32_t m = man | 0x800000u;   /* 24 bits with the hidden one */
    unsigned shift;
    if (e <= 0) {
        if (e < -10) {
            return sign;            /* below half the smallest subnormal */
        }
        shift = (unsigned)(14 - e); /* to a subnormal's 10 bits */
        e = 0;
    } else {
        shift = 13;
    }
    uint32_t r = m >> shift, rest = m & ((1u << shift) - 1),
             half = 1u << (shift - 1);
    if (rest > half || (rest == half && (r & 1u))) {
        r++;                        /* may carry into the exponent */
    }
    if (e == 0) {
        return (uint16_t)(sign | r); /* r may reach 0x400: the smallest
                                      * normal, which is right */
    }
    uint32_t v = ((uint32_t)e << 10) + (r - 0x400u);
    if (r & 0x800u) {
        v = ((uint32_t)(e + 1) << 10);
    }
    return (uint16_t)(sign | (v >= 0x7c00u ? 0x7c00u : v));
}

static double h2d(uint64_t bits)
{
    uint32_t f = ptx__f16_to_f32((uint16_t)bits);
    float x;
    memcpy(&x, &f, 4);
    return x;
}

static uint64_t d2h(double d)
{
    float x = (float)d;
    uint32_t f;
    memcpy(&f, &x, 4);
    return ptx__f32_to_f16(f);
}

/* One half of the operation. */
static uint64_t half_op(unsigned op, uint64_t a, uint64_t b, uint64_t c)
{
    double x = h2d(a), y = h2d(b);
    switch (op) {
    case OP_ADD: return d2h(x + y);
    case OP_SUB: return d2h(x - y);
    case OP_MUL: return d2h(x * y);
    case OP_FMA: return d2h(fma(x, y, h2d(c)));
    case OP_MIN: return d2h(fmin(x, y));
    case OP_MAX: return d2h(fmax(x, y));
    case OP_NEG: return (a ^ 0x8000u) & 0xffffu;
    case OP_ABS: return a & 0x7fffu;
    default: return 0;
    }
}

void ptx__exec_f16(struct ptx_warp *w, const struct ptx_insn *in,
                   uint32_t exec)
{
    unsigned op = in->op, n = in->type == PT_F16X2 ? 2 : 1;
    LANES(exec, l) {
        uint64_t a = val(w, &in->o[1], l);
        uint64_t b = in->n_opds > 2 ? val(w, &in->o[2], l) : 0;
        uint64_t c = in->n_opds > 3 ? val(w, &in->o[3], l) : 0;
        uint64_t r = 0;
        for (unsigned i = 0; i < n; i++) {
            unsigned sh = 16 * i;
            r |= half_op(op, (a >> sh) & 0xffffu, (b >> sh) & 0xffffu,
                         (c >> sh) & 0xffffu) << sh;
        }
        put(w, &in->o[0], l, r);
    }
}
