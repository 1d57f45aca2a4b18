/*
 * common/atomic.c - the arithmetic of GPU atomics; the rules and their
 * sources are in atomic.h.
 */
#include <config.h>

#include "common/atomic.h"

#include <stdbool.h>
#include <string.h>

unsigned atom_type_bytes(enum atom_type type)
{
    return type >= ATOM_B64 ? 8u : 4u;
}

static float f32_of(uint64_t v)
{
    uint32_t b = (uint32_t)v;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static uint64_t bits_of_f32(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static double f64_of(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static uint64_t bits_of_f64(double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    return v;
}

/* NaN test on raw bits (no libm): exponent all ones, mantissa not 0. */
static bool is_nan(enum atom_type type, uint64_t v)
{
    if (type == ATOM_F32) {
        return (v & UINT32_C(0x7fffffff)) > UINT32_C(0x7f800000);
    }
    return (v & UINT64_C(0x7fffffffffffffff)) > UINT64_C(0x7ff0000000000000);
}

/* a < b for floats that are not NaN, with -0 < +0. */
static bool float_less(enum atom_type type, uint64_t a, uint64_t b)
{
    double x = type == ATOM_F32 ? f32_of(a) : f64_of(a);
    double y = type == ATOM_F32 ? f32_of(b) : f64_of(b);
    if (x == y) {
        uint64_t sign = type == ATOM_F32 ? UINT64_C(1) << 31
                                         : UINT64_C(1) << 63;
        return (a & sign) != 0 && (b & sign) == 0;  /* -0 < +0 */
    }
    return x < y;
}

/* min or max of two floats, NaN as atomic.h says. */
static uint64_t float_minmax(enum atom_type type, bool want_min, uint64_t old,
                             uint64_t operand)
{
    bool nan_old = is_nan(type, old), nan_op = is_nan(type, operand);
    if (nan_old && nan_op) {
        return type == ATOM_F32 ? ATOM_F32_CANONICAL_NAN
                                : ATOM_F64_CANONICAL_NAN;
    }
    if (nan_old) {
        return operand;
    }
    if (nan_op) {
        return old;
    }
    bool op_less = float_less(type, operand, old);
    bool op_more = float_less(type, old, operand);
    return (want_min ? op_less : op_more) ? operand : old;
}

static uint64_t int_minmax(enum atom_type type, bool want_min, uint64_t old,
                           uint64_t operand)
{
    bool op_less;
    if (type == ATOM_S32) {
        op_less = (int32_t)(uint32_t)operand < (int32_t)(uint32_t)old;
    } else if (type == ATOM_S64) {
        op_less = (int64_t)operand < (int64_t)old;
    } else {
        op_less = operand < old;
    }
    if (old == operand) {
        return old;
    }
    return op_less == want_min ? operand : old;
}

uint64_t atom_apply(enum atom_op op, enum atom_type type, uint64_t old,
                    uint64_t operand, uint64_t compare)
{
    uint64_t mask = atom_type_bytes(type) == 4 ? UINT32_MAX : UINT64_MAX;
    bool fp = type == ATOM_F32 || type == ATOM_F64;
    old &= mask;
    operand &= mask;
    uint64_t r = old;
    switch (op) {
    case ATOM_ADD:
        if (type == ATOM_F32) {
            r = bits_of_f32(f32_of(old) + f32_of(operand));
        } else if (type == ATOM_F64) {
            r = bits_of_f64(f64_of(old) + f64_of(operand));
        } else {
            r = old + operand;
        }
        break;
    case ATOM_SUB:
        r = old - operand;
        break;
    case ATOM_EXCH:
        r = operand;
        break;
    case ATOM_CAS:
        r = old == (compare & mask) ? operand : old;
        break;
    case ATOM_MIN:
    case ATOM_MAX:
        r = fp ? float_minmax(type, op == ATOM_MIN, old, operand)
               : int_minmax(type, op == ATOM_MIN, old, operand);
        break;
    case ATOM_INC:
        r = old >= operand ? 0 : old + 1;
        break;
    case ATOM_DEC:
        r = old == 0 || old > operand ? operand : old - 1;
        break;
    case ATOM_AND:
        r = old & operand;
        break;
    case ATOM_OR:
        r = old | operand;
        break;
    case ATOM_XOR:
        r = old ^ operand;
        break;
    }
    return r & mask;
}
