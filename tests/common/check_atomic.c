/*
 * tests/common/check_atomic.c - common/atomic.c: each operation at both
 * widths, signed against unsigned comparison, wrapping, and the NaN and
 * signed-zero rules of float add, min and max (atomic.h).
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "common/atomic.h"
#include "tests/check_p2psim.h"

static uint64_t f32b(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static uint64_t f64b(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

/* Quiet NaNs with payloads, and a signalling one. */
#define QNAN32_A UINT64_C(0x7fc00001)
#define QNAN32_B UINT64_C(0xffc00002)
#define SNAN32 UINT64_C(0x7f800001)
#define QNAN64_A UINT64_C(0x7ff8000000000001)
#define QNAN64_B UINT64_C(0xfff8000000000002)

static int is_nan32(uint64_t v)
{
    return (v & 0x7fffffffu) > 0x7f800000u && v <= UINT32_MAX;
}

static int is_nan64(uint64_t v)
{
    return (v & UINT64_C(0x7fffffffffffffff)) > UINT64_C(0x7ff0000000000000);
}

START_TEST(test_atomic_type_bytes)
{
    ck_assert_uint_eq(atom_type_bytes(ATOM_B32), 4);
    ck_assert_uint_eq(atom_type_bytes(ATOM_U32), 4);
    ck_assert_uint_eq(atom_type_bytes(ATOM_S32), 4);
    ck_assert_uint_eq(atom_type_bytes(ATOM_F32), 4);
    ck_assert_uint_eq(atom_type_bytes(ATOM_B64), 8);
    ck_assert_uint_eq(atom_type_bytes(ATOM_U64), 8);
    ck_assert_uint_eq(atom_type_bytes(ATOM_S64), 8);
    ck_assert_uint_eq(atom_type_bytes(ATOM_F64), 8);
}
END_TEST

START_TEST(test_atomic_integer_ops)
{
    /* add and sub wrap at the width; high bits of arguments ignored */
    ck_assert_uint_eq(atom_apply(ATOM_ADD, ATOM_U32, 0xffffffffu, 2, 0), 1);
    ck_assert_uint_eq(atom_apply(ATOM_ADD, ATOM_U32,
                                 UINT64_C(0x500000003), 4, 0), 7);
    ck_assert_uint_eq(atom_apply(ATOM_ADD, ATOM_U64, UINT64_MAX, 2, 0), 1);
    ck_assert_uint_eq(atom_apply(ATOM_ADD, ATOM_U64, UINT64_C(0xffffffff), 1,
                                 0), UINT64_C(0x100000000));
    ck_assert_uint_eq(atom_apply(ATOM_SUB, ATOM_U32, 1, 2, 0), 0xffffffffu);
    ck_assert_uint_eq(atom_apply(ATOM_SUB, ATOM_S64, 5, 7, 0),
                      (uint64_t)-2);
    /* exch, cas */
    ck_assert_uint_eq(atom_apply(ATOM_EXCH, ATOM_B32, 7, 9, 0), 9);
    ck_assert_uint_eq(atom_apply(ATOM_EXCH, ATOM_B64, 7, UINT64_MAX, 0),
                      UINT64_MAX);
    ck_assert_uint_eq(atom_apply(ATOM_CAS, ATOM_B32, 7, 9, 7), 9);
    ck_assert_uint_eq(atom_apply(ATOM_CAS, ATOM_B32, 7, 9, 6), 7);
    ck_assert_uint_eq(atom_apply(ATOM_CAS, ATOM_B32, 7, 9,
                                 UINT64_C(0x100000007)), 9);
    ck_assert_uint_eq(atom_apply(ATOM_CAS, ATOM_B64, UINT64_C(0x100000007), 9,
                                 7), UINT64_C(0x100000007));
    /* inc wraps to 0 at the operand, dec to the operand at 0 or above it */
    ck_assert_uint_eq(atom_apply(ATOM_INC, ATOM_U32, 5, 5, 0), 0);
    ck_assert_uint_eq(atom_apply(ATOM_INC, ATOM_U32, 4, 5, 0), 5);
    ck_assert_uint_eq(atom_apply(ATOM_INC, ATOM_U32, 9, 5, 0), 0);
    ck_assert_uint_eq(atom_apply(ATOM_DEC, ATOM_U32, 0, 9, 0), 9);
    ck_assert_uint_eq(atom_apply(ATOM_DEC, ATOM_U32, 10, 9, 0), 9);
    ck_assert_uint_eq(atom_apply(ATOM_DEC, ATOM_U32, 3, 9, 0), 2);
    /* bitwise */
    ck_assert_uint_eq(atom_apply(ATOM_AND, ATOM_B32, 0xf0f0u, 0xff00u, 0),
                      0xf000u);
    ck_assert_uint_eq(atom_apply(ATOM_OR, ATOM_B32, 0xf0f0u, 0xff00u, 0),
                      0xfff0u);
    ck_assert_uint_eq(atom_apply(ATOM_XOR, ATOM_B64, UINT64_C(0xf0f0) << 40,
                                 UINT64_C(0xff00) << 40, 0),
                      UINT64_C(0x0ff0) << 40);
    /* an op outside the enum leaves old */
    ck_assert_uint_eq(atom_apply((enum atom_op)99, ATOM_U32, 3, 4, 0), 3);
}
END_TEST

START_TEST(test_atomic_integer_min_max)
{
    uint64_t m1_32 = 0xffffffffu;       /* -1 as s32, 4294967295 as u32 */
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_S32, 3, m1_32, 0), m1_32);
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_U32, 3, m1_32, 0), 3);
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_S32, 3, m1_32, 0), 3);
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_U32, 3, m1_32, 0), m1_32);
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_B32, 3, m1_32, 0), 3);
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_S64, 3, UINT64_MAX, 0),
                      UINT64_MAX);
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_U64, 3, UINT64_MAX, 0), 3);
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_S64, 3, UINT64_MAX, 0), 3);
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_U64, 3, UINT64_MAX, 0),
                      UINT64_MAX);
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_B64, 3, UINT64_MAX, 0),
                      UINT64_MAX);
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_U32, 5, 5, 0), 5);
}
END_TEST

START_TEST(test_atomic_float_add)
{
    ck_assert_uint_eq(atom_apply(ATOM_ADD, ATOM_F32, f32b(1.5f), f32b(2.25f),
                                 0), f32b(3.75f));
    ck_assert_uint_eq(atom_apply(ATOM_ADD, ATOM_F64, f64b(1.5), f64b(-2.25),
                                 0), f64b(-0.75));
    /* rounded to nearest even in single precision: 1 + 2^-24 is a tie */
    ck_assert_uint_eq(atom_apply(ATOM_ADD, ATOM_F32, f32b(1.0f),
                                 f32b(0x1p-24f), 0), f32b(1.0f));
    ck_assert_uint_eq(atom_apply(ATOM_ADD, ATOM_F32, f32b(1.0f),
                                 f32b(0x1.8p-24f), 0), f32b(1.0f + 0x1p-23f));
    /* subnormals are kept (atomic.h: no flush to zero) */
    ck_assert_uint_eq(atom_apply(ATOM_ADD, ATOM_F32, 1, 1, 0), 2);
    /* a NaN operand, either side, gives a NaN; so does inf - inf */
    ck_assert(is_nan32(atom_apply(ATOM_ADD, ATOM_F32, QNAN32_A, f32b(1), 0)));
    ck_assert(is_nan32(atom_apply(ATOM_ADD, ATOM_F32, f32b(1), QNAN32_B, 0)));
    ck_assert(is_nan32(atom_apply(ATOM_ADD, ATOM_F32, SNAN32, f32b(1), 0)));
    ck_assert(is_nan32(atom_apply(ATOM_ADD, ATOM_F32, f32b(1.0f / 0.0f),
                                  f32b(-1.0f / 0.0f), 0)));
    ck_assert(is_nan64(atom_apply(ATOM_ADD, ATOM_F64, QNAN64_A, f64b(1), 0)));
    ck_assert(is_nan64(atom_apply(ATOM_ADD, ATOM_F64, f64b(1), QNAN64_B, 0)));
    /* f32 bits live in the low half; the high half of old is ignored */
    ck_assert_uint_eq(atom_apply(ATOM_ADD, ATOM_F32,
                                 (UINT64_C(0xdead) << 32) | f32b(1.0f),
                                 f32b(1.0f), 0), f32b(2.0f));
}
END_TEST

START_TEST(test_atomic_float_min_max)
{
    /* ordinary values, negative ones included (not a bitwise compare) */
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_F32, f32b(-1), f32b(-2), 0),
                      f32b(-2));
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_F32, f32b(-1), f32b(-2), 0),
                      f32b(-1));
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_F64, f64b(3), f64b(-2), 0),
                      f64b(-2));
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_F64, f64b(3), f64b(-2), 0),
                      f64b(3));
    /* one NaN operand, on either side: the other operand */
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_F32, QNAN32_A, f32b(1), 0),
                      f32b(1));
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_F32, f32b(1), QNAN32_A, 0),
                      f32b(1));
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_F32, QNAN32_B, f32b(-1), 0),
                      f32b(-1));
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_F32, f32b(-1), SNAN32, 0),
                      f32b(-1));
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_F64, QNAN64_A, f64b(1), 0),
                      f64b(1));
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_F64, f64b(1), QNAN64_B, 0),
                      f64b(1));
    /* two NaNs: the canonical NaN */
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_F32, QNAN32_A, QNAN32_B, 0),
                      ATOM_F32_CANONICAL_NAN);
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_F32, SNAN32, QNAN32_A, 0),
                      ATOM_F32_CANONICAL_NAN);
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_F64, QNAN64_A, QNAN64_B, 0),
                      ATOM_F64_CANONICAL_NAN);
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_F64, QNAN64_B, QNAN64_A, 0),
                      ATOM_F64_CANONICAL_NAN);
    /* -0 is less than +0, whichever side holds it */
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_F32, f32b(0.0f), f32b(-0.0f),
                                 0), f32b(-0.0f));
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_F32, f32b(-0.0f), f32b(0.0f),
                                 0), f32b(-0.0f));
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_F32, f32b(-0.0f), f32b(0.0f),
                                 0), f32b(0.0f));
    ck_assert_uint_eq(atom_apply(ATOM_MAX, ATOM_F64, f64b(0.0), f64b(-0.0),
                                 0), f64b(0.0));
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_F64, f64b(0.0), f64b(-0.0),
                                 0), f64b(-0.0));
    /* infinities are ordinary values */
    ck_assert_uint_eq(atom_apply(ATOM_MIN, ATOM_F32, f32b(-1.0f / 0.0f),
                                 QNAN32_A, 0), f32b(-1.0f / 0.0f));
}
END_TEST

Suite *make_atomic_suite(void)
{
    Suite *s = suite_create("atomic");
    TCase *tc = tcase_create("arithmetic");
    tcase_add_test(tc, test_atomic_type_bytes);
    tcase_add_test(tc, test_atomic_integer_ops);
    tcase_add_test(tc, test_atomic_integer_min_max);
    tcase_add_test(tc, test_atomic_float_add);
    tcase_add_test(tc, test_atomic_float_min_max);
    suite_add_tcase(s, tc);
    return s;
}
