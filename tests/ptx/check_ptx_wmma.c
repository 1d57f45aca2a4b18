/*
 * tests/ptx/check_ptx_wmma.c - the warp matrix instructions on nvcc's
 * PTX of tests/ptx/wmma.cu (sm_80), run on the flat executor: each
 * kernel's D = A x B + C of one tile against the product computed here,
 * for every shape, type and layout of the interpreted subset, with
 * strides wider than the tiles; the same through shared memory; and the
 * fragments' layout as x[i] shows it (the PTX ISA's mma layout).
 */
#include <config.h>

#include "tests/check_p2psim.h"
#include "tests/ptx/ptx_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ptx_module *mod;

static void wmma_setup(void)
{
    mod = ptx_test_nvcc_module("wmma.ptx");
}

static void wmma_teardown(void)
{
    ptx_module_free(mod);
    mod = NULL;
}

/* Element types in memory. */
enum et { E_F16, E_BF16, E_F32, E_TF32, E_F64, E_U8, E_S8, E_S32 };

static const size_t et_bytes[] = {2, 2, 4, 4, 8, 1, 1, 4};

/* f16 bits of a float that f16 holds exactly (normal or zero). */
static uint16_t f16_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) == 0) {
        return (uint16_t)(u >> 16);
    }
    uint32_t e = ((u >> 23) & 0xffu) - 127u + 15u;
    return (uint16_t)(((u >> 16) & 0x8000u) | (e << 10) |
                      ((u >> 13) & 0x3ffu));
}

static float f16_value(uint16_t h)
{
    unsigned e = (h >> 10) & 0x1fu;
    float m = (float)(h & 0x3ffu) / 1024.0f;
    float v = e == 0 ? ldexpf(m, -14) : ldexpf(1.0f + m, (int)e - 15);
    return h & 0x8000u ? -v : v;
}

/* v into element i of buf (tf32: with bits the mma must ignore). */
static void put(void *buf, size_t i, enum et t, double v)
{
    uint8_t *p = (uint8_t *)buf + i * et_bytes[t];
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    switch (t) {
    case E_F16: {
        uint16_t h = f16_bits(f);
        memcpy(p, &h, 2);
        break;
    }
    case E_BF16: {
        uint16_t h = (uint16_t)(u >> 16);
        memcpy(p, &h, 2);
        break;
    }
    case E_TF32:
        u |= v != 0 ? 0x1234u : 0; /* below tf32's 10 mantissa bits */
        /* fall through */
    case E_F32:
        memcpy(p, &u, 4);
        break;
    case E_F64:
        memcpy(p, &v, 8);
        break;
    case E_U8:
    case E_S8:
        *p = (uint8_t)(int)v;
        break;
    case E_S32: {
        int32_t x = (int32_t)v;
        memcpy(p, &x, 4);
        break;
    }
    }
}

static double get(const void *buf, size_t i, enum et t)
{
    const uint8_t *p = (const uint8_t *)buf + i * et_bytes[t];
    uint16_t h;
    float f;
    double d;
    int32_t x;
    switch (t) {
    case E_F16:
        memcpy(&h, p, 2);
        return f16_value(h);
    case E_F32:
        memcpy(&f, p, 4);
        return f;
    case E_F64:
        memcpy(&d, p, 8);
        return d;
    case E_S32:
        memcpy(&x, p, 4);
        return x;
    default:
        return NAN; /* not an accumulator */
    }
}

/* Inputs: small dyadic values every type holds exactly (their products
 * and sums are exact too), integers over the 8-bit range. */
static double in_val(enum et t, unsigned i, unsigned j, unsigned salt)
{
    unsigned h = i * 7 + j * 3 + salt * 5;
    if (t == E_U8) {
        return h * 37 % 256;
    }
    if (t == E_S8) {
        return (double)(h * 37 % 256) - 128;
    }
    return ((double)(h % 7) - 3) * 0.25;
}

static double c_val(enum et t, unsigned i, unsigned j)
{
    if (t == E_S32) {
        return (double)((i * 1000003u + j * 7919u) % 100000u) - 50000;
    }
    return ((double)((i * 11 + j) % 9) - 4) * 0.5;
}

struct gcase {
    const char *name;
    unsigned M, N, K;
    enum et in, acc;
    bool acol, bcol;
};

static const struct gcase cases[] = {
    {"h_rr", 16, 16, 16, E_F16, E_F32, false, false},
    {"h_rc", 16, 16, 16, E_F16, E_F32, false, true},
    {"h_cr", 16, 16, 16, E_F16, E_F32, true, false},
    {"h_cc", 16, 16, 16, E_F16, E_F32, true, true},
    {"hh_rc", 16, 16, 16, E_F16, E_F16, false, true},
    {"h32_rc", 32, 8, 16, E_F16, E_F32, false, true},
    {"h8_cr", 8, 32, 16, E_F16, E_F32, true, false},
    {"u8_rc", 16, 16, 16, E_U8, E_S32, false, true},
    {"s8_cr", 16, 16, 16, E_S8, E_S32, true, false},
    {"bf_rc", 16, 16, 16, E_BF16, E_F32, false, true},
    {"tf_rc", 16, 16, 8, E_TF32, E_F32, false, true},
    {"tf_cr", 16, 16, 8, E_TF32, E_F32, true, false},
    {"d_rc", 8, 8, 4, E_F64, E_F64, false, true},
    {"d_cr", 8, 8, 4, E_F64, E_F64, true, false},
};

/* Element (r, c) of a matrix at ld in a layout. */
static size_t at(bool col, unsigned r, unsigned c, int ld)
{
    return col ? (size_t)c * (size_t)ld + r : (size_t)r * (size_t)ld + c;
}

static void run_case(const struct gcase *g, int ccol, int dcol)
{
    unsigned M = g->M, N = g->N, K = g->K, mx = M > N ? M : N;
    int lda = (int)(g->acol ? M : K) + 16, ldb = (int)(g->bcol ? K : N) + 16;
    int ldc = (int)mx + 16;
    size_t eb = et_bytes[g->in], cb = et_bytes[g->acc];
    void *a = aligned_alloc(64, 64 * 64 * eb), *b = aligned_alloc(64, 64 * 64 * eb);
    void *c = aligned_alloc(64, 64 * 64 * cb), *d = aligned_alloc(64, 64 * 64 * cb);
    memset(a, 0, 64 * 64 * eb);
    memset(b, 0, 64 * 64 * eb);
    memset(d, 0, 64 * 64 * cb);
    for (unsigned i = 0; i < M; i++) {
        for (unsigned k = 0; k < K; k++) {
            put(a, at(g->acol, i, k, lda), g->in, in_val(g->in, i, k, 1));
        }
    }
    for (unsigned k = 0; k < K; k++) {
        for (unsigned j = 0; j < N; j++) {
            put(b, at(g->bcol, k, j, ldb), g->in, in_val(g->in, k, j, 2));
        }
    }
    for (unsigned i = 0; i < M; i++) {
        for (unsigned j = 0; j < N; j++) {
            put(c, at(ccol, i, j, ldc), g->acc, c_val(g->acc, i, j));
        }
    }
    void *args[] = {&a, &b, &c, &d, &lda, &ldb, &ldc, &ccol, &dcol};
    struct ptx_error err = {0};
    ck_assert_msg(ptx_test_run(mod, g->name, 1, 32, args, &err) == 0,
                  "%s: %s", g->name, err.msg);
    for (unsigned i = 0; i < M; i++) {
        for (unsigned j = 0; j < N; j++) {
            double want = c_val(g->acc, i, j);
            for (unsigned k = 0; k < K; k++) {
                want += in_val(g->in, i, k, 1) * in_val(g->in, k, j, 2);
            }
            double got = get(d, at(dcol, i, j, ldc), g->acc);
            ck_assert_msg(got == want, "%s (c %s, d %s): D[%u][%u] = %g, "
                          "not %g", g->name, ccol ? "col" : "row",
                          dcol ? "col" : "row", i, j, got, want);
        }
    }
    free(a);
    free(b);
    free(c);
    free(d);
}

START_TEST(test_ptx_wmma_products)
{
    const struct gcase *g = &cases[_i];
    run_case(g, 0, 1);
    run_case(g, 1, 0);
}
END_TEST

START_TEST(test_ptx_wmma_through_shared_memory)
{
    for (int u8 = 0; u8 < 2; u8++) {
        enum et t = u8 ? E_U8 : E_F16, ct = u8 ? E_S32 : E_F32;
        size_t eb = et_bytes[t], cb = et_bytes[ct];
        void *a = malloc(256 * eb), *b = malloc(256 * eb);
        void *c = malloc(256 * cb), *d = malloc(256 * cb);
        for (unsigned i = 0; i < 16; i++) {
            for (unsigned j = 0; j < 16; j++) {
                put(a, i * 16 + j, t, in_val(t, i, j, 1));  /* row-major */
                put(b, j * 16 + i, t, in_val(t, i, j, 2));  /* col-major */
                put(c, i * 16 + j, ct, c_val(ct, i, j));
            }
        }
        void *args[] = {&a, &b, &c, &d};
        struct ptx_error err = {0};
        const char *name = u8 ? "u8_shared" : "h_shared";
        ck_assert_msg(ptx_test_run(mod, name, 1, 32, args, &err) == 0,
                      "%s: %s", name, err.msg);
        for (unsigned i = 0; i < 16; i++) {
            for (unsigned j = 0; j < 16; j++) {
                double want = c_val(ct, i, j);
                for (unsigned k = 0; k < 16; k++) {
                    want += in_val(t, i, k, 1) * in_val(t, k, j, 2);
                }
                ck_assert_msg(get(d, i * 16 + j, ct) == want,
                              "%s: D[%u][%u] = %g, not %g", name, i, j,
                              get(d, i * 16 + j, ct), want);
            }
        }
        free(a);
        free(b);
        free(c);
        free(d);
    }
}
END_TEST

/* The accumulator's x[i] and the f16 a fragment's are where mma.m16n8k16
 * puts them (two n = 8 tiles; a's elements 8..15 repeat 0..7), and an
 * element-wise update of x[i] is what store_matrix_sync writes. */
START_TEST(test_ptx_wmma_fragment_layout_is_mma_s)
{
    float m[256], xc[32 * 8], xa[32 * 16], scaled[256];
    uint16_t mh[256];
    for (unsigned i = 0; i < 256; i++) {
        m[i] = (float)i;
        mh[i] = f16_bits((float)i);
    }
    float *pm = m, *pxc = xc, *pxa = xa, *ps = scaled;
    uint16_t *pmh = mh;
    void *args[] = {&pm, &pmh, &pxc, &pxa, &ps};
    struct ptx_error err = {0};
    ck_assert_msg(ptx_test_run(mod, "frag_map", 1, 32, args, &err) == 0,
                  "%s", err.msg);
    for (unsigned l = 0; l < 32; l++) {
        unsigned g = l / 4, t = l % 4;
        for (unsigned e = 0; e < 8; e++) {
            unsigned r = g + 8 * ((e >> 1) & 1);
            unsigned cc = 8 * (e >> 2) + 2 * t + (e & 1);
            ck_assert_float_eq(xc[l * 8 + e], (float)(r * 16 + cc));
        }
        for (unsigned e = 0; e < 16; e++) {
            unsigned f = e % 8, r = g + 8 * ((f >> 1) & 1);
            unsigned cc = 2 * t + (f & 1) + 8 * (f >> 2);
            ck_assert_float_eq(xa[l * 16 + e], (float)(r * 16 + cc));
        }
    }
    for (unsigned r = 0; r < 16; r++) {
        for (unsigned cc = 0; cc < 16; cc++) {
            ck_assert_float_eq(scaled[cc * 16 + r],
                               2.0f * (float)(r * 16 + cc) + 1.0f);
        }
    }
}
END_TEST

/* A shared tile is bounds checked as a whole: one that fits loads, one
 * that ends an element past the kernel's shared memory fails the warp. */
START_TEST(test_ptx_wmma_shared_tile_out_of_bounds_fails)
{
    float d[256];
    float *pd = d;
    int at = 0;
    void *args[] = {&pd, &at};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run(mod, "shared_edge", 1, 32, args, &err), 0);
    for (unsigned i = 0; i < 256; i++) {
        ck_assert_float_eq(d[i], (float)i);
    }
    at = 1;
    ck_assert_int_ne(ptx_test_run(mod, "shared_edge", 1, 32, args, &err), 0);
    ck_assert_msg(strstr(err.msg, "shared memory access out of bounds"),
                  "%s", err.msg);
}
END_TEST

Suite *make_ptx_wmma_suite(void)
{
    Suite *s = suite_create("ptx_wmma");
    TCase *tc = tcase_create("wmma");
    tcase_add_checked_fixture(tc, wmma_setup, wmma_teardown);
    tcase_add_loop_test(tc, test_ptx_wmma_products, 0,
                        (int)(sizeof(cases) / sizeof(cases[0])));
    tcase_add_test(tc, test_ptx_wmma_through_shared_memory);
    tcase_add_test(tc, test_ptx_wmma_fragment_layout_is_mma_s);
    tcase_add_test(tc, test_ptx_wmma_shared_tile_out_of_bounds_fails);
    suite_add_tcase(s, tc);
    return s;
}
