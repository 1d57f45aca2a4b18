/*
 * tests/ptx/check_ptx_hand.c - the PTX front end on hand-written PTX
 * (tests/ptx/hand.ptx, bad.ptx): parsing and kernel metadata, the
 * unsupported-instruction report, and execution on the flat executor of
 * divergence, loops, early exit, votes, shuffles, shared/local/generic
 * memory, atomics, vectors, parameters and conversions; untrusted input
 * (every limit of docs/ptx.md, texts cut anywhere, fat binaries whose
 * sizes lie). No nvcc needed.
 */
#include <config.h>

#include "tests/check_p2psim.h"
#include "tests/ptx/ptx_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

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
    /* an unsupported instruction does not refuse the kernel: the warps
     * reaching it fail, naming it */
    ck_assert_int_eq(ptx_kernel_check(bad, &err), 0);
    ck_assert_uint_eq(ptx_kernel_get_info(bad)->maxntid[0], 128);
    uint32_t out = 0, *po = &out;
    void *args[] = {&po};
    ck_assert_int_eq(ptx_test_run(m, "good", 1, 1, args, &err), 0);
    ck_assert_uint_eq(out, 7);
    memset(&err, 0, sizeof(err));
    ck_assert_int_ne(ptx_test_run(m, "uses_texture", 1, 1, args, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "uses_texture"));
    ck_assert_ptr_nonnull(strstr(err.msg, "line 29"));
    ck_assert_ptr_nonnull(strstr(err.msg, "tex.2d"));
    ck_assert_ptr_nonnull(strstr(err.msg, "reached"));
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

START_TEST(test_ptx_warp_renew_is_a_new_warp)
{
    /* %r2, read before it is written: 0 in a renewed warp too */
    const char *text =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry rn(\n.param .u64 rn_p,\n.param .u32 rn_v\n)\n{\n"
        ".reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n"
        "ld.param.u64 %rd1, [rn_p];\nld.param.u32 %r1, [rn_v];\n"
        "add.u32 %r3, %r2, %r1;\nst.global.u32 [%rd1], %r3;\n"
        "mov.u32 %r2, %r1;\nret;\n}\n";
    struct ptx_error err = {0};
    struct ptx_module *m = ptx_module_parse(text, strlen(text), &err);
    const struct ptx_kernel *k = m ? ptx_module_find(m, "rn") : NULL;
    ck_assert_ptr_nonnull(k);
    uint32_t out = 0, *po = &out;
    struct ptx_warp_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.lane_mask = 0xfu;
    struct ptx_mem_req *q = calloc(1, sizeof(*q));
    struct ptx_warp *w = NULL;
    for (uint32_t v = 5; v <= 7; v += 2) {
        uint8_t params[16];
        void *args[] = {&po, &v};
        ptx_kernel_pack_params(k, args, params);
        w = w ? ptx_warp_renew(w, k, params, &ctx, &err)
              : ptx_warp_new(k, params, &ctx, &err);
        ck_assert_ptr_nonnull(w);
        ck_assert_int_eq(ptx_warp_run(w, q), PTX_STOP_MEM);
        ck_assert_uint_eq(q->addr[3], (uintptr_t)&out);
        ck_assert_uint_eq((uint32_t)q->data[3][0], v);
        ck_assert_int_eq(ptx_warp_resume(w, q), 0);
        ck_assert_int_eq(ptx_warp_run(w, q), PTX_STOP_EXIT);
        ck_assert_uint_eq(ptx_warp_instr_count(w), 6);
    }
    free(q), ptx_warp_free(w), ptx_module_free(m);
}
END_TEST

/* A register file of over 1 MiB (mapped, saved by nonzero blocks): the
 * saved state tells a register written in a block that was all zeros,
 * and one in a block saved, from the state saved. */
START_TEST(test_ptx_warp_state_large_register_file)
{
    const char *text =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry big(\n.param .u64 big_p\n)\n{\n"
        ".reg .b64 %rd<6000>;\n"
        "ld.param.u64 %rd1, [big_p];\n"
        "ld.global.u64 %rd2, [%rd1];\n"
        "add.u64 %rd5999, %rd5999, %rd2;\n"
        "ld.global.u64 %rd3, [%rd1];\n"
        "add.u64 %rd2, %rd2, 1;\n"
        "ld.global.u64 %rd3, [%rd1];\n"
        "ret;\n}\n";
    struct ptx_error err = {0};
    struct ptx_module *m = ptx_module_parse(text, strlen(text), &err);
    ck_assert_ptr_nonnull(m);
    const struct ptx_kernel *k = ptx_module_find(m, "big");
    uint64_t cell = 0, *pc = &cell;
    void *args[] = {&pc};
    uint8_t params[8];
    ptx_kernel_pack_params(k, args, params);
    struct ptx_warp_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.lane_mask = 1;
    ctx.ntid.x = 1;
    struct ptx_warp *w = ptx_warp_new(k, params, &ctx, &err);
    ck_assert_ptr_nonnull(w);
    struct ptx_mem_req *q = calloc(1, sizeof(*q));
    ck_assert_int_eq(ptx_warp_run(w, q), PTX_STOP_MEM);
    size_t n = ptx_warp_state_bytes(w);
    /* a few blocks of 4 KiB, not the 1.5 MB file */
    ck_assert_uint_gt(n, 0);
    ck_assert_uint_lt(n, 64 * 1024);
    uint8_t *buf = malloc(n);
    ck_assert_ptr_nonnull(buf);
    ptx_warp_state_save(w, buf);
    ck_assert(ptx_warp_state_same(w, buf));
    /* %rd2 = 7, and %rd5999 (a block all zeros until now) += 7 */
    q->result[0][0] = 7;
    ck_assert_int_eq(ptx_warp_resume(w, q), 0);
    ck_assert_int_eq(ptx_warp_run(w, q), PTX_STOP_MEM);
    ck_assert(!ptx_warp_state_same(w, buf));
    free(buf);
    n = ptx_warp_state_bytes(w);
    buf = malloc(n);
    ck_assert_ptr_nonnull(buf);
    ptx_warp_state_save(w, buf);
    ck_assert(ptx_warp_state_same(w, buf));
    /* %rd2 (in a block saved) changes: 8 */
    ck_assert_int_eq(ptx_warp_resume(w, q), 0);
    ck_assert_int_eq(ptx_warp_run(w, q), PTX_STOP_MEM);
    ck_assert(!ptx_warp_state_same(w, buf));
    free(buf);
    free(q);
    ptx_warp_free(w);
    ptx_module_free(m);
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

/* Float atom.min/max as the hardware does (common/atomic.h): one NaN
 * operand gives the other, two NaNs the canonical NaN, -0 below +0. The
 * interpreter's own fminf/fmaxf gave one of the NaNs and either zero. */
START_TEST(test_ptx_atom_float_min_max_nan_and_zero)
{
    const uint64_t qnan = 0x7fc00001u, nnan = 0xffc00002u, two = 0x40000000u;
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_MIN, PTX_ATYPE_F32, qnan, two,
                                     0), two);
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_MAX, PTX_ATYPE_F32, two, nnan,
                                     0), two);
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_MIN, PTX_ATYPE_F32, qnan, nnan,
                                     0), 0x7fffffffu);
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_MAX, PTX_ATYPE_F64,
                                     0x7ff8000000000001ull,
                                     0xfff8000000000002ull, 0),
                      0x7fffffffffffffffull);
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_MIN, PTX_ATYPE_F32, 0,
                                     0x80000000u, 0), 0x80000000u);
    ck_assert_uint_eq(ptx_atom_apply(PTX_ATOM_MAX, PTX_ATYPE_F32,
                                     0x80000000u, 0, 0), 0);
    /* the same in shared memory, inside the interpreter */
    static const char text[] =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry nan(.param .u64 out)\n{\n"
        ".reg .b32 %r<4>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<2>;\n"
        ".shared .align 4 .b32 s[2];\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.b32 %r1, 0x7fc00001;\nst.shared.u32 [s], %r1;\n"
        "atom.shared.min.f32 %f1, [s], 0fFFC00002;\n"
        "ld.shared.u32 %r2, [s];\nst.global.u32 [%rd1], %r2;\n"
        "mov.b32 %r3, 0;\nst.shared.u32 [s+4], %r3;\n"
        "atom.shared.min.f32 %f2, [s+4], 0f80000000;\n"
        "ld.shared.u32 %r2, [s+4];\nst.global.u32 [%rd1+4], %r2;\n"
        "ret;\n}\n";
    struct ptx_error err = {0};
    struct ptx_module *m = ptx_module_parse(text, strlen(text), &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    uint32_t out[2] = {1, 1};
    uint32_t *po = out;
    void *args[] = {&po};
    ck_assert_int_eq(ptx_test_run(m, "nan", 1, 1, args, &err), 0);
    ck_assert_uint_eq(out[0], 0x7fffffffu);
    ck_assert_uint_eq(out[1], 0x80000000u);
    ptx_module_free(m);
}
END_TEST

/* ---- Untrusted input (docs/ptx.md, "Limits") -------------------------- */

/* Every text is parsed from a malloc'd copy of exactly its length, with
 * no NUL after it, so the ASan build catches a read past len. */
static struct ptx_module *parse_exact(const char *text, size_t len,
                                      struct ptx_error *err)
{
    char *copy = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, text, len);
    memset(err, 0, sizeof(*err));
    struct ptx_module *m = ptx_module_parse(copy, len, err);
    free(copy);
    return m;
}

/* The module must be refused with code and a message holding want. */
static void refused(const char *text, int code, const char *want)
{
    struct ptx_error err;
    struct ptx_module *m = parse_exact(text, strlen(text), &err);
    ck_assert_msg(m == NULL, "accepted: %s", text);
    ck_assert_msg(err.code == code, "code %d (%s), want %d", err.code,
                  err.msg, code);
    ck_assert_msg(strstr(err.msg, want) != NULL, "'%s' lacks '%s'", err.msg,
                  want);
}

#define HDR ".version 9.0\n.target sm_90\n.address_size 64\n"

START_TEST(test_ptx_limits_no_read_past_len)
{
    /* ptx-1: the text ends right after '@' */
    struct ptx_error err;
    ck_assert_ptr_null(parse_exact(".entry r{@", 10, &err));
    ck_assert_int_eq(err.code, PTX_EPARSE);
    ck_assert_ptr_nonnull(strstr(err.msg, "PTX line 1:11: end of text"));
    ck_assert_uint_eq(err.column, 11);
    /* every prefix of a real module, each cut at a different token */
    char path[1024];
    size_t len;
    snprintf(path, sizeof(path), "%s/tests/ptx/hand.ptx", P2PSIM_SRCDIR);
    char *text = ptx_test_slurp(path, &len);
    ck_assert_ptr_nonnull(text);
    for (size_t n = 0; n <= len; n += n < 400 ? 1 : 7) {
        ptx_module_free(parse_exact(text, n, &err));
    }
    struct ptx_module *m = parse_exact(text, len, &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    ptx_module_free(m);
    free(text);
    /* comments and words cut at the end (some are whole modules) */
    static const char *const cuts[] = {"/", "/*", "/* *", "//", ".ver",
                                       ".entry k(", ".entry k{ $L:", "@",
                                       HDR ".func f(", HDR ".func f",
                                       HDR ".global .u32 g = {1,",
                                       HDR ".entry k{ ld.param.u32 %r1, ["};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        ptx_module_free(parse_exact(cuts[i], strlen(cuts[i]), &err));
    }
}
END_TEST

START_TEST(test_ptx_limits_variable_sizes)
{
    /* ptx-2: calloc of 2^64 - 1 bytes used to abort() */
    refused(HDR ".global .b8 g[18446744073709551615] = {0};\n", PTX_EPARSE,
            "PTX line 4:9: .global g: 18446744073709551615 bytes pass the "
            "limit");
    refused(HDR ".global .b8 g[100000000000] = {0};\n", PTX_EPARSE,
            "limit of 4294967296 bytes");
    /* fatbin-4: the count overflows strtoull */
    refused(HDR ".global .align 4 .b8 gv[1111111111111111111111111116] = "
            "{1};\n", PTX_EPARSE, "PTX line 4:25: array size");
    refused(HDR ".global .b8 g[4294967296][4294967296];\n", PTX_EPARSE,
            "element count does not fit 64 bits");
    refused(HDR ".global .u64 g[2305843009213693952];\n", PTX_EPARSE,
            "do not fit 64 bits");
    refused(HDR ".const .b8 a[40000];\n.const .b8 b[40000];\n", PTX_EPARSE,
            "PTX line 5:8: .const b");
    refused(HDR ".global .u32 g[2] = {1, 2, 3};\n", PTX_EPARSE,
            "more initial values than its 2 elements");
    refused(HDR ".global .u64 g = 99999999999999999999999;\n", PTX_EPARSE,
            "malformed initial value");
    refused(HDR ".global .align 3 .u32 g;\n", PTX_EPARSE, ".align 3");
    refused(HDR ".global .align 2147483648 .u32 g;\n", PTX_EPARSE,
            "power of two");

    /* a large zero-initialized variable costs only its initial values */
    const char *big = HDR ".global .align 8 .b8 g[1048576] = {7, 0, 9};\n";
    struct ptx_error err;
    struct ptx_module *m = parse_exact(big, strlen(big), &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    const struct ptx_var_info *v = ptx_module_var(m, 0);
    ck_assert_uint_eq(v->size_bytes, 1048576);
    ck_assert_uint_eq(v->init_bytes, 3);
    ck_assert_uint_eq(v->init[0], 7);
    ck_assert_uint_eq(v->init[2], 9);
    ptx_module_free(m);

    /* float initial values: decimal, and negated bits */
    const char *fl = HDR ".global .f32 x = 1.5;\n"
                     ".global .f64 y[2] = {-0d3FF0000000000000, 2.5e0};\n";
    m = parse_exact(fl, strlen(fl), &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    float x;
    double y[2];
    v = ptx_module_var(m, 0);
    ck_assert_uint_eq(v->init_bytes, 4);
    memcpy(&x, v->init, 4);
    ck_assert(x == 1.5f);
    v = ptx_module_var(m, 1);
    ck_assert_uint_eq(v->init_bytes, 16);
    memcpy(y, v->init, 16);
    ck_assert(y[0] == -1.0 && y[1] == 2.5);
    ptx_module_free(m);
}
END_TEST

START_TEST(test_ptx_limits_shared_local_param)
{
    /* 4 GiB + 8 of .shared used to be truncated to 8 bytes */
    refused(HDR ".shared .b8 s[4294967304];\n", PTX_EPARSE,
            ".shared s: 4294967304 bytes at offset 0 pass the limit of "
            "262144 bytes");
    /* a module .shared variable counts in the kernels that use it */
    refused(HDR ".shared .b8 a[200000];\n.visible .entry k()\n{\n"
            ".shared .b8 b[100000];\n.reg .b64 %rd<2>;\nmov.u64 %rd1, a;\n"
            "ret;\n}\n", PTX_EPARSE,
            "PTX line 7:9: .shared b: 100000 bytes at offset 200000 pass "
            "the limit");
    refused(HDR ".visible .entry k()\n{\n.local .b8 l[524289];\nret;\n}\n",
            PTX_EPARSE, ".local l");
    refused(HDR ".visible .entry k(.param .b8 p[32769])\n{\nret;\n}\n",
            PTX_EPARSE, ".param p");
    /* at the limits it parses */
    const char *ok = HDR ".shared .b8 a[131072];\n.visible .entry k("
                     ".param .b8 p[32768])\n{\n.shared .b8 b[131072];\n"
                     ".local .b8 l[524288];\n.reg .b64 %rd<2>;\n"
                     "mov.u64 %rd1, a;\nret;\n}\n";
    struct ptx_error err;
    struct ptx_module *m = parse_exact(ok, strlen(ok), &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    const struct ptx_kernel_info *in =
        ptx_kernel_get_info(ptx_module_find(m, "k"));
    ck_assert_uint_eq(in->shared_bytes, PTX_SHARED_MAX_BYTES);
    ck_assert_uint_eq(in->local_bytes, PTX_LOCAL_MAX_BYTES);
    ck_assert_uint_eq(in->param_bytes, PTX_PARAM_MAX_BYTES);
    ptx_module_free(m);
}
END_TEST

/* Module .shared variables are each kernel's own: two kernels using one
 * of 200000 bytes each parse (together they pass the limit), each holds
 * only what it uses (a function's use counts in the kernel that calls
 * it), and a kernel using none has none. */
START_TEST(test_ptx_module_shared_per_kernel)
{
    const char *t = HDR ".shared .align 4 .b8 a[200000];\n"
        ".shared .align 8 .b8 b[200000];\n"
        ".shared .align 4 .b8 c[16];\n"
        ".func f()\n{\n.reg .b64 %rd<2>;\nmov.u64 %rd1, c;\nret;\n}\n"
        ".visible .entry ka()\n{\n.reg .b64 %rd<2>;\nmov.u64 %rd1, a;\n"
        "ret;\n}\n"
        ".visible .entry kb()\n{\n.reg .b64 %rd<2>;\nmov.u64 %rd1, b;\n"
        "call f, ();\nret;\n}\n"
        ".visible .entry kn()\n{\nret;\n}\n";
    struct ptx_error err;
    struct ptx_module *m = parse_exact(t, strlen(t), &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    const struct ptx_kernel_info *ka =
        ptx_kernel_get_info(ptx_module_find(m, "ka"));
    const struct ptx_kernel_info *kb =
        ptx_kernel_get_info(ptx_module_find(m, "kb"));
    const struct ptx_kernel_info *kn =
        ptx_kernel_get_info(ptx_module_find(m, "kn"));
    ck_assert_uint_eq(ka->shared_bytes, 200000);
    ck_assert_uint_eq(kb->shared_bytes, 200016);
    ck_assert_uint_eq(kb->dyn_shared_offset, 200016);
    ck_assert_uint_eq(kn->shared_bytes, 0);
    ptx_module_free(m);
    /* dynamic shared memory named before a module variable (as
     * threadFenceReduction's static __shared__ amLast after its extern
     * array): the variable still comes first, dynamic memory after it */
    const char *d = HDR ".extern .shared .align 16 .b8 dyn[];\n"
        ".shared .align 4 .u32 last;\n"
        ".visible .entry kd()\n{\n.reg .b64 %rd<3>;\n"
        "mov.u64 %rd1, dyn;\nmov.u64 %rd2, last;\nret;\n}\n";
    m = parse_exact(d, strlen(d), &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    const struct ptx_kernel *kd = ptx_module_find(m, "kd");
    ck_assert_int_eq(ptx_kernel_check(kd, &err), 0);
    ck_assert_uint_eq(ptx_kernel_get_info(kd)->shared_bytes, 4);
    ck_assert_uint_eq(ptx_kernel_get_info(kd)->dyn_shared_offset, 16);
    ptx_module_free(m);
}
END_TEST

START_TEST(test_ptx_limits_registers_and_directives)
{
    refused(HDR ".visible .entry k()\n{\n.reg .b32 %r<4294967297>;\nret;\n}\n",
            PTX_EPARSE, "PTX line 6:11: kernel k: %r: more than 65000 "
            "registers");
    refused(HDR ".visible .entry k()\n{\n.reg .b32 %r<40000>;\n"
            ".reg .b64 %rd<40000>;\nret;\n}\n", PTX_EPARSE,
            "PTX line 7:11: kernel k: %rd");
    refused(HDR ".visible .entry k() .maxntid 4294967297\n{\nret;\n}\n",
            PTX_EPARSE, ".maxntid 4294967297: 1 to 1024");
    refused(".version 99999999999.0\n", PTX_EPARSE, "malformed .version");
    refused(HDR ".visible .entry k()\n{\nld.param.u32 %r1, [k_p+1"
            "11111111111111111111111111111111111111111111111111111111111"
            "11111111111111111111111111111111111111111111111111111111111"
            "11111111111111111111111111111111111111111111111111111111111"
            "11111111111111111111111111111111111111111111111111111111111"
            "11111111111111111111111111111111111111111111111111111111111"
            "1];\n", PTX_EPARSE, "end of text inside kernel k");
    /* a statement beyond PTX_STATEMENT_MAX_BYTES */
    size_t n = PTX_STATEMENT_MAX_BYTES + 100;
    char *t = malloc(n + 200);
    ck_assert_ptr_nonnull(t);
    int h = snprintf(t, 200, HDR ".visible .entry k()\n{\nmov.u32 %%r1, ");
    memset(t + h, '1', n);
    strcpy(t + h + n, ";\n}\n");
    refused(t, PTX_EPARSE, "PTX line 6:1: an instruction of");
    /* 300,000 nested blocks: no recursion, a clean error */
    n = 300000;
    h = snprintf(t, 200, HDR ".visible .entry k()\n");
    t = realloc(t, h + n + 1);
    ck_assert_ptr_nonnull(t);
    memset(t + h, '{', n);
    t[h + n] = '\0';
    refused(t, PTX_EPARSE, "end of text inside kernel k");
    free(t);
    /* a text longer than the limit is refused before it is read */
    static const char tiny[1];
    struct ptx_error err = {0};
    ck_assert_ptr_null(ptx_module_parse(tiny, (size_t)PTX_TEXT_MAX_BYTES + 1,
                                        &err));
    ck_assert_int_eq(err.code, PTX_EPARSE);
}
END_TEST

START_TEST(test_ptx_limits_param_offset_wraps)
{
    /* [p+-2] is offset 2^64 - 2: it must not wrap past the bounds check */
    const char *text = HDR ".visible .entry k(.param .u64 k_p)\n{\n"
                       ".reg .b32 %r<2>;\nld.param.u32 %r1, [k_p+-2];\n"
                       "ret;\n}\n";
    struct ptx_error err;
    struct ptx_module *m = parse_exact(text, strlen(text), &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    uint64_t p = 0;
    void *args[] = {&p};
    ck_assert_int_ne(ptx_test_run(m, "k", 1, 1, args, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "parameter access out of bounds"));
    ptx_module_free(m);
}
END_TEST

START_TEST(test_ptx_limits_vector_operands)
{
    /* an empty vector divided by its length; "_" as a source read slot
     * 0xffff */
    const char *text = HDR ".visible .entry k(.param .u64 k_p)\n{\n"
                       ".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n"
                       "mov.b64 {}, %rd1;\nret;\n}\n"
                       ".visible .entry j(.param .u64 j_p)\n{\n"
                       ".reg .b32 %r<2>;\n.reg .b64 %rd<3>;\n"
                       "mov.u32 %r1, 5;\nmov.b64 %rd1, {_, %r1};\n"
                       "ld.param.u64 %rd2, [j_p];\n"
                       "st.global.u64 [%rd2], %rd1;\nret;\n}\n";
    struct ptx_error err;
    struct ptx_module *m = parse_exact(text, strlen(text), &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    uint64_t out = 1, *po = &out;
    void *args[] = {&po};
    ck_assert_int_ne(ptx_test_run(m, "k", 1, 1, args, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "empty vector"));
    ck_assert_int_eq(ptx_test_run(m, "j", 1, 1, args, &err), 0);
    ck_assert_uint_eq(out, 5ull << 32);
    ptx_module_free(m);
}
END_TEST

/* Mangled template names run long: a kernel and its parameters named
 * with 600 characters resolve (each parameter its own offset), and a
 * name beyond PTX_NAME_MAX is refused rather than cut. */
START_TEST(test_ptx_limits_long_names)
{
    char name[601];
    memset(name, 'a', 600);
    name[0] = '_';
    name[600] = '\0';
    size_t cap = 8 * 600 + 1000;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    snprintf(t, cap, HDR ".visible .entry %s(.param .u64 %s_param_0, "
             ".param .u32 %s_param_1)\n{\n.reg .b32 %%r<2>;\n"
             ".reg .b64 %%rd<2>;\nld.param.u64 %%rd1, [%s_param_0];\n"
             "ld.param.u32 %%r1, [%s_param_1];\n"
             "st.global.u32 [%%rd1], %%r1;\nret;\n}\n",
             name, name, name, name, name);
    struct ptx_error err;
    struct ptx_module *m = parse_exact(t, strlen(t), &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    uint32_t out = 0, *po = &out, val = 1234;
    void *args[] = {&po, &val};
    ck_assert_int_eq(ptx_test_run(m, name, 1, 1, args, &err), 0);
    ck_assert_uint_eq(out, 1234);
    ptx_module_free(m);
    /* a parameter name of 5000 characters */
    t = realloc(t, 6000);
    ck_assert_ptr_nonnull(t);
    int h = snprintf(t, 200, HDR ".visible .entry k(.param .u64 ");
    memset(t + h, 'b', 5000);
    strcpy(t + h + 5000, ")\n{\nret;\n}\n");
    refused(t, PTX_EPARSE, "PTX line 4:31: a name of 5000 characters");
    free(t);
}
END_TEST

/* Out of memory is an error, not abort(): the address space is capped
 * just above what the process uses, then a module needing ~200 MB of
 * instructions is parsed. (Skipped under ASan, whose shadow memory does
 * not live with an address-space limit.) */
#if defined(__SANITIZE_ADDRESS__)
#define PTX_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PTX_TEST_ASAN 1
#endif
#endif

START_TEST(test_ptx_limits_out_of_memory_is_an_error)
{
#ifndef PTX_TEST_ASAN
    enum { N = 1000000 };
    const char *head = HDR ".visible .entry k()\n{\n";
    size_t h = strlen(head);
    char *text = malloc(h + 5 * (size_t)N + 3);
    ck_assert_ptr_nonnull(text);
    memcpy(text, head, h);
    for (size_t i = 0; i < N; i++) {
        memcpy(text + h + 5 * i, "ret;\n", 5);
    }
    memcpy(text + h + 5 * (size_t)N, "}\n", 3);
    size_t len = h + 5 * (size_t)N + 2;
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fscanf(f, "%lu", &pages), 1);
    fclose(f);
    struct rlimit old, lim;
    ck_assert_int_eq(getrlimit(RLIMIT_AS, &old), 0);
    lim = old;
    lim.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) +
                   (64u << 20);
    ck_assert_int_eq(setrlimit(RLIMIT_AS, &lim), 0);
    struct ptx_error err = {0};
    struct ptx_module *m = ptx_module_parse(text, len, &err);
    setrlimit(RLIMIT_AS, &old);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(err.code, PTX_ENOMEM);
    ck_assert_ptr_nonnull(strstr(err.msg, "out of memory"));
    free(text);
#endif
}
END_TEST

/* ---- Fat binaries built here ------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* A container of one entry of kind (1 PTX, 2 ELF) holding payload (n
 * bytes, stated as payload_size) in a malloc'd buffer of exactly its
 * size (*size); entries_size is what the container header states (0:
 * the true size). */
static uint8_t *make_fatbin(uint16_t kind, const void *payload, size_t n,
                            uint64_t payload_size, uint64_t flags,
                            uint64_t plain, uint64_t entries_size,
                            size_t *size)
{
    *size = 16 + 64 + n;
    uint8_t *f = calloc(1, *size);
    ck_assert_ptr_nonnull(f);
    put32(f, 0xBA55ED50u);
    put16(f + 4, 1);
    put16(f + 6, 16);
    put64(f + 8, entries_size ? entries_size : 64 + n);
    uint8_t *e = f + 16;
    put16(e, kind);
    put16(e + 2, 0x0101);
    put32(e + 4, 64);
    put64(e + 8, payload_size);
    put32(e + 28, 90);
    put64(e + 40, flags);
    put64(e + 56, plain);
    memcpy(e + 64, payload, n);
    return f;
}

static int extract_registered(const uint8_t *data, char **text,
                              struct ptx_error *err)
{
    struct {
        uint32_t magic, version;
        const void *data, *unused;
    } w = {0x466243B1u, 1, data, NULL};
    memset(err, 0, sizeof(*err));
    *text = NULL;
    return ptx_fatbin_extract(&w, 0, text, NULL, err);
}

START_TEST(test_ptx_fatbin_bounds)
{
    struct ptx_error err = {0};
    char *text = NULL;
    /* fatbin-1: 16 bytes whose header says it is 2048 bytes long */
    static const uint8_t fb1[16] = {0x50, 0xed, 0x55, 0xba, 0xcd, 0x01,
                                    0x00, 0x08, 0xff, 0xff, 0x31, 0x2c,
                                    0x20, 0x25, 0x74, 0x24};
    uint8_t *f = malloc(sizeof(fb1));
    memcpy(f, fb1, sizeof(fb1));
    ck_assert_int_eq(ptx_fatbin_extract_data(f, sizeof(fb1), 0, &text, NULL,
                                             &err), PTX_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "bad container sizes"));
    ck_assert_int_eq(extract_registered(f, &text, &err), PTX_EINVAL);
    free(f);

    /* fatbin-3: 2^40 bytes of entries, an ELF payload of 2^39 */
    size_t n;
    f = make_fatbin(2, "", 0, 1ull << 39, 0, 0, 1ull << 40, &n);
    ck_assert_int_eq(extract_registered(f, &text, &err), PTX_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "bad container sizes"));
    free(f);
    /* a true container size, an entry claiming more than it */
    f = make_fatbin(2, "", 0, 1ull << 39, 0, 0, 0, &n);
    ck_assert_int_eq(extract_registered(f, &text, &err), PTX_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "entry at offset 16 has bad sizes "
                                          "(header 64, payload 549755813888"));
    ck_assert_int_eq(ptx_fatbin_extract_data(f, n, 0, &text, NULL, &err),
                     PTX_EINVAL);
    free(f);

    /* a good one, read through the registration path from a buffer of
     * exactly its size: the container's own size bounds the walk */
    const char ptx[] = HDR ".visible .entry k()\n{\nret;\n}\n";
    f = make_fatbin(1, ptx, sizeof(ptx) - 1, sizeof(ptx) - 1, 0, 0, 0, &n);
    ck_assert_int_eq(extract_registered(f, &text, &err), 0);
    ck_assert_str_eq(text, ptx);
    free(text);
    free(f);
}
END_TEST

START_TEST(test_ptx_fatbin_zstd_claims)
{
#ifdef HAVE_ZSTD
    /* a zstd frame by hand: single segment, 4-byte content size, one
     * raw block of 5 bytes */
    uint8_t z[4 + 1 + 4 + 3 + 5] = {0x28, 0xb5, 0x2f, 0xfd, 0xa0};
    put32(z + 5, 5);
    z[9] = 1 | 5 << 3;
    memcpy(z + 12, "k: ;\n", 5);
    struct ptx_error err;
    char *text = NULL;
    size_t n;
    uint8_t *f = make_fatbin(1, z, sizeof(z), sizeof(z), 0x8000, 5, 0, &n);
    ck_assert_int_eq(ptx_fatbin_extract_data(f, n, 0, &text, NULL, &err), 0);
    ck_assert_str_eq(text, "k: ;\n");
    free(text);
    free(f);
    /* fatbin-2: the frame claims ~3 GB, the entry 5 bytes */
    put32(z + 5, 3000000000u);
    f = make_fatbin(1, z, sizeof(z), sizeof(z), 0x8000, 5, 0, &n);
    ck_assert_int_eq(ptx_fatbin_extract_data(f, n, 0, &text, NULL, &err),
                     PTX_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "claims 3000000000 bytes, its "
                                          "header 5"));
    free(f);
    /* the entry states no size: the cap on PTX text holds */
    f = make_fatbin(1, z, sizeof(z), sizeof(z), 0x8000, 0, 0, &n);
    ck_assert_int_eq(ptx_fatbin_extract_data(f, n, 0, &text, NULL, &err),
                     PTX_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "bad PTX size 3000000000"));
    free(f);
#endif
}
END_TEST

/* Two PTX entries, compute_75 and compute_121 (as a CUDA 13 build for
 * "75 ... 121" holds): a 9.0 device gets compute_75, as the driver's JIT
 * compiler picks the highest not above the device; 12.1 and above, or no
 * device (0), get compute_121; a device below both (7.0) the highest. */
START_TEST(test_ptx_fatbin_picks_arch_for_device)
{
    const char p75[] = ".version 8.0\n.target sm_75\n";
    const char p121[] = ".version 9.0\n.target sm_121\n";
    size_t n1, n2;
    uint8_t *a = make_fatbin(1, p75, sizeof(p75) - 1, sizeof(p75) - 1, 0, 0,
                             0, &n1);
    uint8_t *b = make_fatbin(1, p121, sizeof(p121) - 1, sizeof(p121) - 1, 0,
                             0, 0, &n2);
    put32(a + 16 + 28, 75);
    put32(b + 16 + 28, 121);
    /* one container of both entries: a's header, a's entry, b's entry */
    size_t n = n1 + n2 - 16;
    uint8_t *f = malloc(n);
    memcpy(f, a, n1);
    memcpy(f + n1, b + 16, n2 - 16);
    put64(f + 8, n - 16);
    static const struct { unsigned dev; const char *want; } c[] = {
        { 90, "sm_75" }, { 80, "sm_75" }, { 75, "sm_75" }, { 121, "sm_121" },
        { 130, "sm_121" }, { 0, "sm_121" }, { 70, "sm_121" },
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        struct ptx_error err = {0};
        char *text = NULL;
        ck_assert_int_eq(ptx_fatbin_extract_data(f, n, c[i].dev, &text, NULL,
                                                 &err), 0);
        ck_assert_msg(strstr(text, c[i].want) != NULL, "device %u: %s",
                      c[i].dev, text);
        free(text);
    }
    free(f);
    free(a);
    free(b);
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
    tcase_add_test(tc, test_ptx_warp_state_large_register_file);
    tcase_add_test(tc, test_ptx_warp_renew_is_a_new_warp);
    tcase_add_test(tc, test_ptx_exec_shared_out_of_bounds_is_an_error);
    tcase_add_test(tc, test_ptx_atom_apply_table);
    tcase_add_test(tc, test_ptx_atom_float_min_max_nan_and_zero);
    suite_add_tcase(s, tc);
    tc = tcase_create("Untrusted input");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_ptx_limits_no_read_past_len);
    tcase_add_test(tc, test_ptx_limits_variable_sizes);
    tcase_add_test(tc, test_ptx_limits_shared_local_param);
    tcase_add_test(tc, test_ptx_module_shared_per_kernel);
    tcase_add_test(tc, test_ptx_limits_registers_and_directives);
    tcase_add_test(tc, test_ptx_limits_param_offset_wraps);
    tcase_add_test(tc, test_ptx_limits_vector_operands);
    tcase_add_test(tc, test_ptx_limits_long_names);
    tcase_add_test(tc, test_ptx_limits_out_of_memory_is_an_error);
    tcase_add_test(tc, test_ptx_fatbin_bounds);
    tcase_add_test(tc, test_ptx_fatbin_zstd_claims);
    tcase_add_test(tc, test_ptx_fatbin_picks_arch_for_device);
    suite_add_tcase(s, tc);
    return s;
}
