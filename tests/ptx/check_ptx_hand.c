/*
 * tests/ptx/check_ptx_hand.c - the PTX front end on hand-written PTX
 * (tests/ptx/hand.ptx, bad.ptx): parsing and kernel metadata, the
 * unsupported-instruction report, and execution on the flat executor of
 * divergence, loops, early exit, votes, shuffles, shared/local/generic
 * memory, atomics, vectors, parameters and conversions. No nvcc needed.
 */
#include <config.h>

#include "tests/check_p2psim.h"
#include "tests/ptx/ptx_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ptx_module *hand;

static void hand_setup(void)
{
    hand = ptx_test_module("hand.ptx");
}

static void hand_teardown(void)
{
    ptx_module_free(hand);
    hand = NULL;
}

/* ---- Parsing ---------------------------------------------------------- */

START_TEST(test_ptx_parse_module_header_and_vars)
{
    ck_assert_uint_eq(ptx_module_version(hand), 90);
    ck_assert_uint_eq(ptx_module_target_sm(hand), 90);
    ck_assert_uint_eq(ptx_module_kernel_count(hand), 4);
    ck_assert_uint_eq(ptx_module_var_count(hand), 3);
    const struct ptx_var_info *v = ptx_module_var(hand, 1);
    ck_assert_str_eq(v->name, "g_table");
    ck_assert_uint_eq(v->size_bytes, 8);
    ck_assert_ptr_nonnull(v->init);
    ck_assert_uint_eq(v->init[7], 8);
    v = ptx_module_var(hand, 2);
    ck_assert_int_eq(v->space, PTX_VAR_CONST);
    ck_assert_uint_eq(v->align_bytes, 8);
}
END_TEST

START_TEST(test_ptx_parse_param_layout)
{
    const struct ptx_kernel *k = ptx_module_find(hand, "memory");
    ck_assert_ptr_nonnull(k);
    const struct ptx_kernel_info *in = ptx_kernel_get_info(k);
    ck_assert_uint_eq(in->n_params, 3);
    /* u64 at 0; 16-byte struct aligned 8 at 8; u64 at 24 */
    ck_assert_uint_eq(in->params[1].offset_bytes, 8);
    ck_assert_uint_eq(in->params[1].size_bytes, 16);
    ck_assert_uint_eq(in->params[1].align_bytes, 8);
    ck_assert_uint_eq(in->params[2].offset_bytes, 24);
    ck_assert_uint_eq(in->param_bytes, 32);
    ck_assert_uint_eq(in->shared_bytes, 8);
    ck_assert_uint_eq(in->local_bytes, 16);
    ck_assert(in->uses_global_symbols);
    k = ptx_module_find(hand, "arith");
    in = ptx_kernel_get_info(k);
    /* u64, s32, f32: 0, 8, 12 */
    ck_assert_uint_eq(in->params[2].offset_bytes, 12);
    ck_assert_uint_eq(in->param_bytes, 16);
}
END_TEST

START_TEST(test_ptx_parse_unsupported_names_line_and_kernel)
{
    struct ptx_module *m = ptx_test_module("bad.ptx");
    struct ptx_error err = {0};
    const struct ptx_kernel *good = ptx_module_find(m, "good");
    const struct ptx_kernel *bad = ptx_module_find(m, "uses_texture");
    ck_assert_int_eq(ptx_kernel_check(good, &err), 0);
    ck_assert_int_eq(ptx_kernel_check(bad, &err), PTX_EUNSUPPORTED);
    ck_assert_uint_eq(err.line, 29);
    ck_assert_ptr_nonnull(strstr(err.msg, "uses_texture"));
    ck_assert_ptr_nonnull(strstr(err.msg, "line 29"));
    ck_assert_ptr_nonnull(strstr(err.msg, "tex.2d"));
    ck_assert_uint_eq(ptx_kernel_get_info(bad)->maxntid[0], 128);
    /* the good kernel runs; launching the bad one fails with the text */
    uint32_t out = 0, *po = &out;
    void *args[] = {&po};
    ck_assert_int_eq(ptx_test_run(m, "good", 1, 1, args, &err), 0);
    ck_assert_uint_eq(out, 7);
    memset(&err, 0, sizeof(err));
    ck_assert_int_eq(ptx_test_run(m, "uses_texture", 1, 1, args, &err),
                     PTX_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err.msg, "line 29"));
    struct ptx_warp_ctx ctx = {.lane_mask = 1};
    ck_assert_ptr_null(ptx_warp_new(bad, &out, &ctx, &err));
    ptx_module_free(m);
}
END_TEST

START_TEST(test_ptx_parse_rejects_garbage)
{
    struct ptx_error err = {0};
    const char *text = "this is not PTX";
    ck_assert_ptr_null(ptx_module_parse(text, strlen(text), &err));
    ck_assert_int_eq(err.code, PTX_EPARSE);
    const char *trunc = ".version 9.0\n.target sm_90\n.address_size 64\n"
                        ".visible .entry k(\n.param .u64 p\n)\n{\nret;\n";
    ck_assert_ptr_null(ptx_module_parse(trunc, strlen(trunc), &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "kernel k"));
}
END_TEST

/* ---- Execution -------------------------------------------------------- */

START_TEST(test_ptx_exec_divergent_loops_and_early_exit)
{
    enum { N = 64 };
    uint32_t out[N], votes[3] = {0};
    memset(out, 0xff, sizeof(out));
    uint32_t *po = out, *pv = votes;
    void *args[] = {&po, &pv};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run(hand, "loops", 1, N, args, &err), 0);
    uint32_t ballot = 0, active = 0;
    for (unsigned t = 0; t < N; t++) {
        if (t % 3 == 2) {
            ck_assert_uint_eq(out[t], 0xffffffffu); /* left early */
            continue;
        }
        ck_assert_uint_eq(out[t], t % 5);
        if (t < 32) {
            active |= 1u << t;
            ballot |= (t % 5 > 2) ? 1u << t : 0;
        }
    }
    ck_assert_uint_eq(votes[0], ballot);
    ck_assert_uint_eq(votes[1], active);
    ck_assert_uint_eq(votes[2], 1);
}
END_TEST

START_TEST(test_ptx_exec_shuffles)
{
    uint32_t out[32][5];
    uint32_t *po = &out[0][0];
    void *args[] = {&po};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run(hand, "shuffles", 1, 32, args, &err), 0);
    for (unsigned l = 0; l < 32; l++) {
        ck_assert_uint_eq(out[l][0], 10 * (l >= 1 ? l - 1 : l));
        ck_assert_uint_eq(out[l][1], 10 * (l + 2 <= 31 ? l + 2 : l));
        ck_assert_uint_eq(out[l][2], 10 * (l ^ 3));
        ck_assert_uint_eq(out[l][3], 10 * 5);
        /* c = 0x181f: segments of 8 lanes, source lane 1 of each */
        ck_assert_uint_eq(out[l][4], 10 * ((l & 0x18) | 1));
    }
}
END_TEST

START_TEST(test_ptx_exec_memory_spaces_and_atomics)
{
    enum { N = 48 };
    uint32_t out[N][5];
    struct {
        uint32_t a, pad;
        double b;
    } pair = {1234, 0, 0.5};
    struct {
        double sum;
        uint32_t cas;
    } acc = {0, 0};
    uint32_t g_counter = 5;
    uint8_t g_table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint64_t c_scale = 3;
    uint64_t vars[3] = {(uintptr_t)&g_counter, (uintptr_t)g_table,
                        (uintptr_t)&c_scale};
    uint32_t *po = &out[0][0];
    void *pacc = &acc;
    void *args[] = {&po, &pair, &pacc};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run_vars(hand, "memory", 2, N, args, vars,
                                       &err), 0);
    for (unsigned t = 0; t < N; t++) {
        ck_assert_uint_eq(out[t][0], 7 * t);
        ck_assert_uint_eq(out[t][1], N * (N - 1) / 2);
        ck_assert_uint_eq(out[t][2], 7 * (N - 1));
        ck_assert_uint_eq(out[t][3], 4 * 3);
        ck_assert_uint_eq(out[t][4], 1234);
    }
    ck_assert_uint_eq(g_counter, 5 + 2 * N);
    ck_assert(acc.sum == 0.5 * 2 * N);
    ck_assert_uint_eq(acc.cas, 1234);
}
END_TEST

START_TEST(test_ptx_exec_arith_and_conversions)
{
    static const int32_t xs[] = {-1000, 12345, -7, 0, 2147483647};
    static const float fs[] = {2.5f, -3.7f, 11.0f, 0.0f};
    for (unsigned i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
        for (unsigned j = 0; j < sizeof(fs) / sizeof(fs[0]); j++) {
            int32_t x = xs[i];
            float f = fs[j];
            uint32_t o[22];
            uint32_t *po = o;
            void *args[] = {&po, &x, &f};
            struct ptx_error err = {0};
            ck_assert_int_eq(ptx_test_run(hand, "arith", 1, 1, args, &err),
                             0);
            ck_assert_int_eq((int32_t)o[0],
                             (int32_t)(((int64_t)x * 1431655766) >> 32));
            ck_assert_int_eq((int32_t)o[1], x / 7);
            ck_assert_int_eq((int32_t)o[2], x % 7);
            ck_assert_int_eq((int32_t)o[3], x >> 3);
            ck_assert_uint_eq(o[4], (uint32_t)x >> 28);
            ck_assert_int_eq((int32_t)o[5], (int32_t)truncf(f));
            ck_assert_int_eq((int32_t)o[6], (int32_t)nearbyintf(f));
            ck_assert_uint_eq(o[7], x < 0 ? 0 : x > 255 ? 255 : (uint32_t)x);
            ck_assert_int_eq((int32_t)o[8], (int16_t)x);
            ck_assert_int_eq((int32_t)o[9], x < 0 ? -x : x);
            ck_assert_int_eq((int32_t)o[10], x < -5 ? x : -5);
            ck_assert_uint_eq(o[11], (uint32_t)x > 5 ? (uint32_t)x : 5);
            ck_assert_int_eq((int32_t)o[12], (int32_t)truncf(f * 2 + 1));
            ck_assert_int_eq((int32_t)o[13], (f > 10.0f || x < 0) ? 100 : 200);
            ck_assert_uint_eq(o[14], __builtin_popcount((uint32_t)x));
            ck_assert_uint_eq(o[15], x ? __builtin_clz((uint32_t)x) : 32);
            ck_assert_int_eq((int32_t)o[16], (int32_t)(int8_t)(x >> 4));
            ck_assert_uint_eq(o[17], ~(uint32_t)x);
            ck_assert_uint_eq(o[18], (uint32_t)(((int64_t)x * 1000000) >> 3));
            /* sqrt of a negative is NaN, and cvt.rzi of NaN is 0 */
            ck_assert_int_eq((int32_t)o[19],
                             f < 0 ? 0 : (int32_t)(sqrt((double)f) * 1e4));
            ck_assert_uint_eq(o[20], (uint32_t)x);
            ck_assert_uint_eq(o[21], (uint32_t)(x < 0 ? -x : x));
        }
    }
}
END_TEST

START_TEST(test_ptx_exec_warp_protocol)
{
    /* Drive one warp by hand: every global request is visible, and a
     * resume without a request is refused. */
    const struct ptx_kernel *k = ptx_module_find(hand, "loops");
    uint32_t out[32], votes[3];
    uint32_t *po = out, *pv = votes;
    void *args[] = {&po, &pv};
    uint8_t params[16];
    ptx_kernel_pack_params(k, args, params);
    struct ptx_warp_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.lane_mask = 0xffffu; /* 16 threads */
    for (unsigned l = 0; l < 32; l++) {
        ctx.tid[l].x = l;
    }
    ctx.ntid.x = 16;
    struct ptx_error err = {0};
    struct ptx_warp *w = ptx_warp_new(k, params, &ctx, &err);
    ck_assert_ptr_nonnull(w);
    struct ptx_mem_req *q = calloc(1, sizeof(*q));
    ck_assert_int_eq(ptx_warp_resume(w, q), PTX_EINVAL);
    unsigned n_st = 0;
    enum ptx_stop s;
    while ((s = ptx_warp_run(w, q)) == PTX_STOP_MEM) {
        ck_assert_int_eq(q->op, PTX_MEM_ST);
        if (n_st == 0) {
            /* lanes 2, 5, 8, 11, 14 returned before the store */
            ck_assert_uint_eq(q->mask, 0xffffu & ~0x4924u);
            ck_assert_uint_eq(q->bytes_per_lane, 4);
            ck_assert_uint_eq(q->addr[3], (uintptr_t)&out[3]);
        } else if (n_st == 1) {
            ck_assert_uint_eq(q->mask, 1);
            ck_assert_uint_eq(q->bytes_per_lane, 8); /* v2.u32 */
        }
        n_st++;
        ck_assert_int_eq(ptx_warp_resume(w, q), 0);
    }
    ck_assert_int_eq(s, PTX_STOP_EXIT);
    ck_assert_uint_eq(n_st, 3);
    ck_assert_uint_eq(ptx_warp_live_mask(w), 0);
    ck_assert_uint_gt(ptx_warp_instr_count(w), 20);
    free(q);
    ptx_warp_free(w);
}
END_TEST

START_TEST(test_ptx_exec_shared_out_of_bounds_is_an_error)
{
    const char *text =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry oob(\n.param .u32 oob_i\n)\n{\n"
        ".reg .b32 %r<3>;\n"
        "ld.param.u32 %r1, [oob_i];\n"
        "ld.shared.u32 %r2, [%r1];\n"
        "ret;\n}\n";
    struct ptx_error err = {0};
    struct ptx_module *m = ptx_module_parse(text, strlen(text), &err);
    ck_assert_ptr_nonnull(m);
    uint32_t i = 4096;
    void *args[] = {&i};
    ck_assert_int_ne(ptx_test_run(m, "oob", 1, 32, args, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "kernel oob: PTX line 10"));
    ck_assert_ptr_nonnull(strstr(err.msg, "out of bounds"));
    ptx_module_free(m);
}
END_TEST

START_TEST(test_ptx_atom_apply_table)
{
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_INC, PTX_ATYPE_U32, 5, 5, 0),
                      0);
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_INC, PTX_ATYPE_U32, 4, 5, 0),
                      5);
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_DEC, PTX_ATYPE_U32, 0, 9, 0),
                      9);
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_MIN, PTX_ATYPE_S32,
                                     0xfffffffeu, 3, 0), 0xfffffffeu);
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_MIN, PTX_ATYPE_U32,
                                     0xfffffffeu, 3, 0), 3);
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_CAS, PTX_ATYPE_B32, 7, 9, 7),
                      9);
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_CAS, PTX_ATYPE_B32, 7, 9, 6),
                      7);
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_ADD, PTX_ATYPE_U32,
                                     0xffffffffu, 1, 0), 0);
}
END_TEST

Suite *make_ptx_hand_suite(void)
{
    Suite *s = suite_create("ptx_hand");
    TCase *tc = tcase_create("Parsing");
    tcase_add_checked_fixture(tc, hand_setup, hand_teardown);
    tcase_add_test(tc, test_ptx_parse_module_header_and_vars);
    tcase_add_test(tc, test_ptx_parse_param_layout);
    tcase_add_test(tc, test_ptx_parse_unsupported_names_line_and_kernel);
    tcase_add_test(tc, test_ptx_parse_rejects_garbage);
    suite_add_tcase(s, tc);
    tc = tcase_create("Execution");
    tcase_add_checked_fixture(tc, hand_setup, hand_teardown);
    tcase_add_test(tc, test_ptx_exec_divergent_loops_and_early_exit);
    tcase_add_test(tc, test_ptx_exec_shuffles);
    tcase_add_test(tc, test_ptx_exec_memory_spaces_and_atomics);
    tcase_add_test(tc, test_ptx_exec_arith_and_conversions);
    tcase_add_test(tc, test_ptx_exec_warp_protocol);
    tcase_add_test(tc, test_ptx_exec_shared_out_of_bounds_is_an_error);
    tcase_add_test(tc, test_ptx_atom_apply_table);
    suite_add_tcase(s, tc);
    return s;
}
