/*
 * tests/ptx/check_ptx_real.c - the PTX front end on what nvcc 13 emits
 * for NVIDIA's cuda-samples (tests/ptx/real.ptx): predefined identifiers
 * (WARP_SZ, shared-memory sizes, cluster and performance-monitor
 * registers, halves of the time registers, %gridid, %envreg), bfind,
 * bmsk, shf, match, bar.warp.sync, bar.red over three warps, nanosleep,
 * vote.ballot.sync, shfl from lanes outside the group, warp-synchronous
 * instructions waiting for the lanes of their membermask, inline asm
 * blocks with registers of their own, the message of a kernel with a
 * very long name; vabsdiff4; half precision (every f16 against _Float16, __half2
 * arithmetic); device functions, recursion, printf, assert, malloc,
 * cudaGraphSetConditional (tests/ptx/calls.ptx); run by warps driven here (global stores into
 * host memory) or on the flat executor.
 * No nvcc needed.
 */
#include <config.h>

#include "tests/check_p2psim.h"
#include "tests/ptx/ptx_test.h"
#include "ptx/ptx_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct ptx_module *real;

static void real_setup(void)
{
    real = ptx_test_module("real.ptx");
}

static void real_teardown(void)
{
    ptx_module_free(real);
    real = NULL;
}

static uint64_t fixed_time(void *user, enum ptx_time_sreg which)
{
    (void)user;
    return which == PTX_SREG_GLOBALTIMER ? UINT64_C(0x0123456789abcdef)
                                         : UINT64_C(0x00000007fedcba98);
}

/* A context of one warp of n threads, CTA 3 of a grid of 5. */
static void ctx_init(struct ptx_warp_ctx *c, unsigned n, uint8_t *smem,
                     uint32_t smem_bytes)
{
    memset(c, 0, sizeof(*c));
    c->lane_mask = n >= 32 ? UINT32_MAX : (1u << n) - 1;
    for (unsigned l = 0; l < 32; l++) {
        c->tid[l].x = l;
    }
    c->ntid = (struct ptx_dim3){n, 1, 1};
    c->ctaid = (struct ptx_dim3){3, 0, 0};
    c->nctaid = (struct ptx_dim3){5, 1, 1};
    c->shared = smem;
    c->shared_bytes = smem_bytes;
    c->shared_window_base = PTX_FLAT_SHARED_WINDOW;
    c->shared_window_bytes = smem_bytes;
    c->local_window_base = PTX_FLAT_LOCAL_WINDOW;
    c->time_fn = fixed_time;
}

/* Run kernel name with one pointer argument over ctx until it exits,
 * doing its global loads and stores on host memory; returns the stop. */
static enum ptx_stop run_warp(const char *name, void *arg,
                              const struct ptx_warp_ctx *ctx, char *msg,
                              size_t msg_len)
{
    const struct ptx_kernel *k = ptx_module_find(real, name);
    ck_assert_msg(k != NULL, "no kernel %s", name);
    const struct ptx_kernel_info *info = ptx_kernel_get_info(k);
    uint8_t *params = calloc(1, info->param_bytes + 8);
    void *args[] = {&arg};
    ptx_kernel_pack_params(k, args, params);
    struct ptx_error err = {0};
    struct ptx_warp *w = ptx_warp_new(k, params, ctx, &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    struct ptx_mem_req *q = calloc(1, sizeof(*q));
    enum ptx_stop s;
    while ((s = ptx_warp_run(w, q)) == PTX_STOP_MEM ||
           s == PTX_STOP_YIELD) {
        if (s == PTX_STOP_YIELD) {
            continue;
        }
        for (unsigned l = 0; l < 32; l++) {
            if (!(q->mask >> l & 1)) {
                continue;
            }
            void *p = (void *)(uintptr_t)q->addr[l];
            if (q->op == PTX_MEM_ST) {
                memcpy(p, q->data[l], q->bytes_per_lane);
            } else if (q->op == PTX_MEM_LD) {
                memcpy(q->result[l], p, q->bytes_per_lane);
            }
        }
        ck_assert_int_eq(ptx_warp_resume(w, q), 0);
    }
    if (msg) {
        snprintf(msg, msg_len, "%s", s == PTX_STOP_ERROR && q->error
                                         ? q->error : "");
    }
    free(q);
    ptx_warp_free(w);
    free(params);
    return s;
}

START_TEST(test_ptx_real_predefined_identifiers)
{
    uint8_t smem[96];
    uint32_t out[16];
    struct ptx_warp_ctx c;
    memset(out, 0xee, sizeof(out));
    /* 20 bytes of .shared: dynamic memory starts at 32; 64 bytes of it */
    ctx_init(&c, 1, smem, sizeof(smem));
    c.gridid = UINT64_C(0x500000007);
    ck_assert_int_eq(run_warp("preds", out, &c, NULL, 0), PTX_STOP_EXIT);
    ck_assert_uint_eq(out[0], 32);          /* WARP_SZ */
    ck_assert_uint_eq(out[1], 64);          /* add ..., WARP_SZ */
    ck_assert_uint_eq(out[2], 64);          /* %dynamic_smem_size */
    ck_assert_uint_eq(out[3], 96);          /* %total_smem_size */
    ck_assert_uint_eq(out[4], 0);           /* %pm3 */
    ck_assert_uint_eq(out[5], 1);           /* %cluster_nctarank */
    ck_assert_uint_eq(out[6], 3);           /* %clusterid.x = %ctaid.x */
    ck_assert_uint_eq(out[7], 5);           /* %nclusterid.x */
    ck_assert_uint_eq(out[8], 0);           /* %reserved_smem_offset_begin */
    ck_assert_uint_eq(out[9], 7);           /* %clock_hi */
    ck_assert_uint_eq(out[10], 0x89abcdef); /* %globaltimer_lo */
    ck_assert_uint_eq(out[11], 0x01234567); /* %globaltimer_hi */
    ck_assert_uint_eq(out[12], 96);         /* %aggr_smem_size */
    uint64_t gid;
    memcpy(&gid, &out[14], 8);
    ck_assert_uint_eq(gid, UINT64_C(0x500000007));
}
END_TEST

START_TEST(test_ptx_real_envreg_grid_workspace)
{
    uint64_t out = 0;
    struct ptx_warp_ctx c;
    ctx_init(&c, 32, NULL, 0);
    c.envreg[1] = 0x7f12;
    c.envreg[2] = 0x34560008;
    ck_assert_int_eq(run_warp("envregs", &out, &c, NULL, 0), PTX_STOP_EXIT);
    ck_assert_uint_eq(out, UINT64_C(0x7f1234560008));
}
END_TEST

START_TEST(test_ptx_real_bits_match_syncwarp_asm_blocks)
{
    uint32_t out[32][16];
    struct ptx_warp_ctx c;
    memset(out, 0xee, sizeof(out));
    ctx_init(&c, 32, NULL, 0);
    char msg[PTX_ERROR_MSG_BYTES];
    ck_assert_int_eq(run_warp("bits", out, &c, msg, sizeof(msg)),
                     PTX_STOP_EXIT);
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t *o = out[l];
        ck_assert_uint_eq(o[0], l);                   /* bfind.u32 1 << l */
        ck_assert_uint_eq(o[1], 31 - l);              /* .shiftamt */
        /* bfind.s32 -l: the highest bit of ~(-l) = l - 1; none for 0, -1 */
        ck_assert_uint_eq(o[2], l < 2 ? UINT32_MAX
                                      : 31u - (uint32_t)__builtin_clz(l - 1));
        ck_assert_uint_eq(o[3], l + 32);              /* bfind.u64 */
        uint32_t e = l + 4 > 32 ? 32 : l + 4;         /* bmsk.clamp l, 4 */
        ck_assert_uint_eq(o[4], (uint32_t)(((UINT64_C(1) << e) - 1) &
                                           ~((UINT64_C(1) << l) - 1)));
        e = 30 + l > 32 ? 32 : 30 + l;                /* bmsk.wrap 30, l */
        ck_assert_uint_eq(o[5], (uint32_t)(((UINT64_C(1) << e) - 1) &
                                           ~((UINT64_C(1) << 30) - 1)));
        ck_assert_uint_eq(o[6], 0x11111111u << (l & 3)); /* match.any */
        ck_assert_uint_eq(o[7], UINT32_MAX);          /* match.all, equal */
        ck_assert_uint_eq(o[8], 1);
        ck_assert_uint_eq(o[9], 0);                   /* not all equal */
        ck_assert_uint_eq(o[10], 0);
        ck_assert_uint_eq(o[11], l + (1u << l));      /* {lo, hi} block */
        /* a second block's lo is a .u64 of the same name */
        ck_assert_uint_eq(o[12], l == 3 ? 5 + 3 : 5);
        ck_assert_uint_eq(o[13], 1);                  /* t outside */
        ck_assert_uint_eq(o[14], 2);                  /* t inside */
        /* shf.l.wrap {l, 0x89abcdef} by 36 (4), then shf.r.clamp of
         * {0x12345678, that} by l + 2 (at most 32) */
        uint64_t fl = (((uint64_t)l << 32 | 0x89abcdefu) << 4) >> 32;
        uint64_t fr = (UINT64_C(0x12345678) << 32 | (uint32_t)fl) >>
                      (l + 2 > 32 ? 32 : l + 2);
        ck_assert_uint_eq(o[15], (uint32_t)fr);
    }
}
END_TEST

START_TEST(test_ptx_real_long_kernel_name_keeps_the_instruction)
{
    /* a mangled name longer than the whole message: cut, the instruction
     * and its line kept */
    size_t n = 600;
    char *name = malloc(n + 1);
    memset(name, 'K', n);
    name[n] = '\0';
    size_t cap = n * 2 + 300;
    char *text = malloc(cap);
    snprintf(text, cap,
             ".version 9.0\n.target sm_75\n.address_size 64\n"
             ".visible .entry %s(\n)\n{\nfrob.u32 %%r1;\nret;\n}\n",
             name);
    struct ptx_error err = {0};
    struct ptx_module *m = ptx_module_parse(text, strlen(text), &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    ck_assert_int_eq(ptx_kernel_check(ptx_module_kernel(m, 0), &err), 0);
    ck_assert_int_ne(ptx_test_run(m, name, 1, 1, NULL, &err), 0);
    ck_assert_msg(strstr(err.msg, "KKK...: PTX line 7: unsupported "
                                  "instruction 'frob.u32'") != NULL,
                  "%s", err.msg);
    ck_assert_uint_lt(strlen(err.msg), PTX_ERROR_MSG_BYTES);
    ptx_module_free(m);
    free(text);
    free(name);
}
END_TEST

/* An unsupported instruction in a kernel's own body fails only the warps
 * reaching it: out[tid] = tid + 1 for every thread while no lane takes
 * the branch to it; lanes of the second warp take it when sel is 1. */
START_TEST(test_ptx_real_unsupported_in_body_reached_only)
{
    const char *text =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry body(.param .u64 out, .param .u32 sel)\n{\n"
        ".reg .pred %p<3>;\n.reg .b32 %r<5>;\n.reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [out];\nld.param.u32 %r1, [sel];\n"
        "mov.u32 %r2, %tid.x;\n"
        "setp.ge.u32 %p1, %r2, 32;\nsetp.ne.u32 %p2, %r1, 0;\n"
        "and.pred %p1, %p1, %p2;\n@!%p1 bra DONE;\n"
        "frob.u32 %r3, %r2;\n"
        "DONE:\nadd.u32 %r4, %r2, 1;\n"
        "mul.wide.u32 %rd2, %r2, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
        "st.global.u32 [%rd3], %r4;\nret;\n}\n";
    struct ptx_error err = {0};
    struct ptx_module *m = ptx_module_parse(text, strlen(text), &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    ck_assert_int_eq(ptx_kernel_check(ptx_module_find(m, "body"), &err), 0);
    uint32_t out[64] = {0}, sel = 0, *po = out;
    void *args[] = {&po, &sel};
    ck_assert_msg(ptx_test_run(m, "body", 1, 64, args, &err) == 0, "%s",
                  err.msg);
    for (unsigned i = 0; i < 64; i++) {
        ck_assert_uint_eq(out[i], i + 1);
    }
    sel = 1;
    ck_assert_int_ne(ptx_test_run(m, "body", 1, 64, args, &err), 0);
    ck_assert_msg(strstr(err.msg, "body: PTX line 16: unsupported "
                                  "instruction 'frob.u32'") != NULL &&
                  strstr(err.msg, "reached") != NULL, "%s", err.msg);
    ptx_module_free(m);
}
END_TEST

/* Warp-synchronous instructions wait for the lanes of their membermask
 * (cdpQuadtree's reorder loop): lanes whose branch goes back to a lower
 * PC, where a shfl.sync, vote.sync or bar.warp.sync of the whole warp
 * sits, wait there for the lanes still running the store under
 * if (pred). Lowest-PC-first alone ran the shfl without them (reading
 * 0 from lane 0) and the next iteration's vote with half the warp. */
static const char sync_text[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry wsync(.param .u64 ws_p)\n{\n"
    ".reg .pred %p<4>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [ws_p];\nmov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
    "mov.u32 %r2, 0;\nmov.u32 %r3, 0;\nmov.u32 %r10, 0;\n"
    "bra.uni $L_head;\n"
    "$L_back:\n"
    "popc.b32 %r5, %r4;\n"
    "shfl.sync.idx.b32 %r6|%p3, %r5, 0, 31, -1;\n"
    "add.s32 %r2, %r2, %r6;\nxor.b32 %r10, %r10, %r4;\n"
    "add.s32 %r3, %r3, 1;\n"
    "$L_head:\n"
    "setp.ge.u32 %p1, %r3, 3;\n@%p1 bra $L_done;\n"
    /* pred: lane + iteration odd, and the lanes under 5 in iteration 1 */
    "add.s32 %r7, %r1, %r3;\nand.b32 %r8, %r7, 1;\n"
    "setp.eq.u32 %p2, %r8, 1;\n"
    "setp.lt.u32 %p3, %r1, 5;\nsetp.eq.u32 %p1, %r3, 1;\n"
    "and.pred %p3, %p3, %p1;\nor.pred %p2, %p2, %p3;\n"
    "vote.sync.ballot.b32 %r4, %p2, -1;\n"
    "@!%p2 bra $L_back;\n"
    "ld.global.u32 %r9, [%rd3+128];\nadd.s32 %r9, %r9, 1;\n"
    "st.global.u32 [%rd3+128], %r9;\n"
    "bra.uni $L_back;\n"
    "$L_done:\n"
    "st.global.u32 [%rd3], %r2;\nst.global.u32 [%rd3+256], %r10;\nret;\n}\n"
    ".visible .entry wbar(.param .u64 wb_p)\n{\n"
    ".shared .align 4 .b8 wb_s[128];\n"
    ".reg .pred %p<3>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [wb_p];\nmov.u32 %r1, %tid.x;\n"
    "mov.u32 %r5, wb_s;\nshl.b32 %r4, %r1, 2;\nadd.s32 %r6, %r5, %r4;\n"
    "st.shared.u32 [%r6], %r1;\n"
    "and.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 1;\n"
    "bra.uni $L_start;\n"
    "$L_read:\n"
    "bar.warp.sync -1;\n"
    "xor.b32 %r7, %r1, 1;\nshl.b32 %r8, %r7, 2;\nadd.s32 %r9, %r5, %r8;\n"
    "ld.shared.u32 %r10, [%r9];\n"
    "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
    "st.global.u32 [%rd3], %r10;\nret;\n"
    "$L_start:\n"
    "@%p1 bra $L_read;\n"
    "add.s32 %r3, %r1, 1000;\nst.shared.u32 [%r6], %r3;\n"
    "bra.uni $L_read;\n}\n";

START_TEST(test_ptx_real_sync_waits_for_membermask)
{
    struct ptx_error err = {0};
    struct ptx_module *m = ptx_module_parse(sync_text, strlen(sync_text),
                                            &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    uint32_t out[3][32];
    memset(out, 0, sizeof(out));
    uint32_t *po = &out[0][0];
    void *args[] = {&po};
    ck_assert_int_eq(ptx_test_run(m, "wsync", 1, 32, args, &err), 0);
    /* ballots: the odd lanes, the even lanes and 1 and 3, the odd */
    for (unsigned l = 0; l < 32; l++) {
        ck_assert_uint_eq(out[0][l], 16 + 18 + 16);
        ck_assert_uint_eq(out[1][l], (l & 1) ? 2 + (l < 5) : 1);
        ck_assert_uint_eq(out[2][l], 0x5555555fu);
    }
    memset(out, 0, sizeof(out));
    ck_assert_int_eq(ptx_test_run(m, "wbar", 1, 32, args, &err), 0);
    for (unsigned l = 0; l < 32; l++) {
        /* odd lanes waited for the even lanes' second store */
        ck_assert_uint_eq(out[0][l], (l & 1) ? l - 1 + 1000 : l + 1);
    }
    ptx_module_free(m);
}
END_TEST

START_TEST(test_ptx_real_bar_red_nanosleep_ballot_shfl)
{
    /* three warps: the barrier's sums are the CTA's */
    uint32_t out[96][8];
    uint32_t *po = &out[0][0];
    void *args[] = {&po};
    struct ptx_error err = {0};
    memset(out, 0xee, sizeof(out));
    ck_assert_int_eq(ptx_test_run(real, "barred", 1, 96, args, &err), 0);
    for (unsigned t = 0; t < 96; t++) {
        ck_assert_uint_eq(out[t][0], 32); /* popc: t % 3 == 0 */
        ck_assert_uint_eq(out[t][1], 1);  /* and of all true */
        ck_assert_uint_eq(out[t][2], 0);  /* and of t % 3 == 0 */
        ck_assert_uint_eq(out[t][3], 1);  /* or: t == 95 */
        ck_assert_uint_eq(out[t][4], 0);  /* or of !true */
        uint32_t ballot = 0;
        for (unsigned l = 0; l < 32; l++) {
            ballot |= ((t / 32 * 32 + l) % 3 == 0 ? 1u : 0u) << l;
        }
        ck_assert_uint_eq(out[t][5], ballot);
    }
    /* a shuffle from lanes that do not take part reads 0 (lane 3's
     * second source, lane 4, is outside the group too) */
    uint32_t sh[4] = {1, 1, 1, 1};
    po = sh;
    ck_assert_int_eq(ptx_test_run(real, "shfl_out", 1, 32, args, &err), 0);
    ck_assert_uint_eq(sh[0], 101);
    ck_assert_uint_eq(sh[1], 102);
    ck_assert_uint_eq(sh[2], 103);
    ck_assert_uint_eq(sh[3], 0);
}
END_TEST

/* Indirect calls: functions reached through a table in a .global
 * initializer (also one naming a function before its declaration), by a
 * mov of a function's name, and refused when the lanes of a warp call
 * different functions; an unsupported instruction in a function fails
 * only the lanes that reach it (tests/ptx/indirect.ptx). */
START_TEST(test_ptx_real_indirect_calls)
{
    struct ptx_module *m = ptx_test_module("indirect.ptx");
    struct ptx_error err = {0};
    ck_assert_msg(ptx_kernel_check(ptx_module_find(m, "indirect"), &err) == 0,
                  "%s", err.msg);
    /* the module's variables, their initial bytes (the tables) copied
     * in as the runtime does */
    unsigned nv = ptx_module_var_count(m);
    ck_assert_uint_eq(nv, 2);
    uint64_t va[2];
    void *store[2];
    for (unsigned i = 0; i < nv; i++) {
        const struct ptx_var_info *v = ptx_module_var(m, i);
        ck_assert_ptr_nonnull(v->init);
        store[i] = calloc(1, v->size_bytes);
        memcpy(store[i], v->init, v->init_bytes);
        va[i] = (uintptr_t)store[i];
    }
    uint32_t out[32];
    uint32_t *po = out;
    static const struct {
        uint32_t sel, mul, add;
    } want[] = { {0, 2, 0}, {1, 1, 7}, {2, 3, 0}, {3, 1, 7} };
    for (unsigned c = 0; c < 4; c++) {
        uint32_t sel = want[c].sel;
        void *args[] = {&po, &sel};
        memset(out, 0xee, sizeof(out));
        int rc = ptx_test_run_vars(m, "indirect", 1, 32, args, va, &err);
        ck_assert_msg(rc == 0, "sel %u: %s", sel, err.msg);
        for (unsigned t = 0; t < 32; t++) {
            ck_assert_uint_eq(out[t], want[c].mul * t + want[c].add);
        }
    }
    uint32_t sel = 4;   /* even lanes twice, odd lanes plus7 */
    void *args[] = {&po, &sel};
    ck_assert_int_ne(ptx_test_run_vars(m, "indirect", 1, 32, args, va,
                                       &err), 0);
    ck_assert_msg(strstr(err.msg, "different functions") != NULL, "%s",
                  err.msg);
    sel = 5;            /* past the table: its address 0 */
    ck_assert_int_ne(ptx_test_run_vars(m, "indirect", 1, 1, args, va, &err),
                     0);
    ck_assert_msg(strstr(err.msg, "no function") != NULL, "%s", err.msg);
    sel = 6;            /* a function with an instruction we lack, reached */
    ck_assert_int_ne(ptx_test_run_vars(m, "indirect", 1, 1, args, va, &err),
                     0);
    ck_assert_msg(strstr(err.msg, "'frobnicate.b32'") != NULL &&
                  strstr(err.msg, "reached") != NULL, "%s", err.msg);
    for (unsigned i = 0; i < nv; i++) {
        free(store[i]);
    }
    ptx_module_free(m);
}
END_TEST

START_TEST(test_ptx_real_calls_printf_assert)
{
    struct ptx_module *m = ptx_test_module("calls.ptx");
    /* the module's strings: any distinct addresses (the flat executor's
     * global memory is the host's; printf reads the initializers) */
    unsigned nv = ptx_module_var_count(m);
    ck_assert_uint_eq(nv, 5);
    uint64_t va[5];
    void *store[5];
    for (unsigned i = 0; i < nv; i++) {
        store[i] = calloc(1, ptx_module_var(m, i)->size_bytes);
        va[i] = (uintptr_t)store[i];
    }
    uint32_t out[40];
    uint32_t *po = out;
    void *args[] = {&po};
    struct ptx_error err = {0};
    memset(out, 0xee, sizeof(out));
    /* printf's output, from this process's stdout */
    fflush(stdout);
    int saved = dup(1);
    FILE *tmp = tmpfile();
    ck_assert_ptr_nonnull(tmp);
    dup2(fileno(tmp), 1);
    int rc = ptx_test_run_vars(m, "calls", 1, 32, args, va, &err);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    ck_assert_msg(rc == 0, "%s", err.msg);
    char got[256] = "";
    rewind(tmp);
    size_t n = fread(got, 1, sizeof(got) - 1, tmp);
    got[n] = '\0';
    fclose(tmp);
    const char *line0 = "lane 0:  2.50 ok Z 123456789|%\n";
    char want[256];
    snprintf(want, sizeof(want), "%slane 1:  2.50 ok Z 123456789|%%\n",
             line0);
    ck_assert_str_eq(got, want);
    /* odd lanes: quad (twice, twice); even lanes: twice */
    for (unsigned t = 0; t < 32; t++) {
        ck_assert_uint_eq(out[t], t & 1 ? 4 * t : 2 * t);
    }
    ck_assert_uint_eq(out[32], strlen(line0)); /* printf's return */
    /* a function calling itself: each activation keeps its registers
     * and frame; lanes recurse to different depths */
    uint32_t depth = 10;
    void *rargs[] = {&po, &depth};
    ck_assert_int_eq(ptx_test_run(m, "recursive", 1, 32, rargs, &err), 0);
    for (unsigned t = 0; t < 32; t++) {
        ck_assert_uint_eq(out[t], (10 + t) * (11 + t) / 2);
    }
    depth = PTX_CALL_DEPTH_MAX; /* one call more than a lane may open */
    ck_assert_int_ne(ptx_test_run(m, "recursive", 1, 1, rargs, &err), 0);
    ck_assert_msg(strstr(err.msg, "calls nested deeper than 64") != NULL,
                  "%s", err.msg);
    /* assert(): CUDA's line on stderr, the warp fails as an assertion */
    const struct ptx_kernel *k = ptx_module_find(m, "asserts");
    int32_t x = -1;
    uint8_t params[8];
    void *aargs[] = {&x};
    ptx_kernel_pack_params(k, aargs, params);
    struct ptx_warp_ctx c;
    ctx_init(&c, 1, NULL, 0);
    c.var_addrs = va;
    c.n_var_addrs = nv;
    struct ptx_warp *w = ptx_warp_new(k, params, &c, &err);
    ck_assert_ptr_nonnull(w);
    struct ptx_mem_req *q = calloc(1, sizeof(*q));
    ck_assert_int_eq(ptx_warp_run(w, q), PTX_STOP_ERROR);
    ck_assert(q->assert_failed);
    ck_assert_msg(strstr(q->error, "device assertion `x < 0` failed "
                                   "(real.cu:42)") != NULL, "%s", q->error);
    ptx_warp_free(w);
    x = 5;
    ptx_kernel_pack_params(k, aargs, params);
    w = ptx_warp_new(k, params, &c, &err);
    ck_assert_int_eq(ptx_warp_run(w, q), PTX_STOP_EXIT);
    ptx_warp_free(w);
    free(q);
    /* malloc: a request to the executor's heap (the flat executor's is
     * the host's), its result the call's return value */
    ck_assert(ptx_kernel_get_info(ptx_module_find(m, "heap"))->uses_heap);
    ck_assert(!ptx_kernel_get_info(ptx_module_find(m, "asserts"))->uses_heap);
    uint64_t block = 0, *bp = &block;
    void *hargs[] = {&bp};
    ck_assert_int_eq(ptx_test_run(m, "heap", 1, 1, hargs, &err), 0);
    ck_assert_uint_ne(block, 0);
    memset((void *)(uintptr_t)block, 0xab, 16);
    free((void *)(uintptr_t)block);
    /* cudaGraphSetConditional(handle, 7): 4 bytes of 7 at the handle */
    uint32_t cond[2] = { 0, 0xaaaaaaaau };
    uint32_t *cp = cond;
    void *cargs[] = {&cp};
    ck_assert_int_eq(ptx_test_run(m, "setcond", 1, 1, cargs, &err), 0);
    ck_assert_uint_eq(cond[0], 7);
    ck_assert_uint_eq(cond[1], 0xaaaaaaaau);
    for (unsigned i = 0; i < nv; i++) {
        free(store[i]);
    }
    ptx_module_free(m);
}
END_TEST

START_TEST(test_ptx_real_half_precision)
{
#if defined(__FLT16_MAX__)
    /* every half to f32 and back, against the compiler's _Float16 */
    for (uint32_t h = 0; h < 0x10000; h++) {
        _Float16 x;
        uint16_t hb = (uint16_t)h;
        memcpy(&x, &hb, 2);
        float f = (float)x;
        uint32_t fb;
        memcpy(&fb, &f, 4);
        if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) {
            continue; /* NaN payloads may differ */
        }
        ck_assert_uint_eq(ptx__f16_to_f32(hb), fb);
        ck_assert_uint_eq(ptx__f32_to_f16(fb), hb);
    }
    /* floats between halves round to nearest even, as the compiler */
    for (uint32_t fb = 0; fb < 0x7f800000u; fb += 0x1233u) {
        float f;
        memcpy(&f, &fb, 4);
        _Float16 x = (_Float16)f;
        uint16_t hb;
        memcpy(&hb, &x, 2);
        ck_assert_uint_eq(ptx__f32_to_f16(fb), hb);
    }
#endif
    uint32_t out[8];
    uint32_t *po = out;
    void *args[] = {&po};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run(real, "halves", 1, 1, args, &err), 0);
    ck_assert_uint_eq(out[0], 0xc0803e00u); /* {1.5, -2.25} */
    ck_assert_uint_eq(out[1], 0xc4804200u); /* {3, -4.5} */
    ck_assert_uint_eq(out[2], 0x49104480u); /* {4.5, 10.125} */
    float lo, hi;
    memcpy(&lo, &out[4], 4);
    memcpy(&hi, &out[5], 4);
    ck_assert(lo == 1.5f * 3 + 4.5f);       /* fma, low half */
    ck_assert(hi == -2.25f * -4.5f + 10.125f);
    ck_assert_uint_eq(out[6], 0x7c00u);     /* 100000 overflows: inf */
    ck_assert_uint_eq(out[7], 0xbe00u);     /* neg.f16 1.5 */
}
END_TEST

START_TEST(test_ptx_real_vabsdiff4)
{
    uint32_t out[1] = {0};
    uint32_t *po = out;
    void *args[] = {&po};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run(real, "sad", 1, 1, args, &err), 0);
    /* bytes 10 ff 03 80 against 20 00 05 90: 16 + 255 + 2 + 16 */
    ck_assert_uint_eq(out[0], 1000 + 16 + 255 + 2 + 16);
}
END_TEST

START_TEST(test_ptx_real_mul24)
{
    uint32_t out[4] = {0};
    uint32_t *po = out;
    void *args[] = {&po};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run(real, "mul24", 1, 1, args, &err), 0);
    /* the low 24 bits: 0x800003 (-8388605 signed, 8388611 unsigned) by 5 */
    ck_assert_uint_eq(out[0], 0xfd80000fu);
    ck_assert_uint_eq(out[1], 0x280u);
    ck_assert_uint_eq(out[2], 0xfd800016u);
    ck_assert_uint_eq(out[3], 0xfffffd80u);
}
END_TEST

Suite *make_ptx_real_suite(void)
{
    Suite *s = suite_create("ptx-real");
    TCase *tc = tcase_create("real");
    tcase_add_checked_fixture(tc, real_setup, real_teardown);
    tcase_add_test(tc, test_ptx_real_predefined_identifiers);
    tcase_add_test(tc, test_ptx_real_envreg_grid_workspace);
    tcase_add_test(tc, test_ptx_real_bits_match_syncwarp_asm_blocks);
    tcase_add_test(tc, test_ptx_real_long_kernel_name_keeps_the_instruction);
    tcase_add_test(tc, test_ptx_real_unsupported_in_body_reached_only);
    tcase_add_test(tc, test_ptx_real_bar_red_nanosleep_ballot_shfl);
    tcase_add_test(tc, test_ptx_real_sync_waits_for_membermask);
    tcase_add_test(tc, test_ptx_real_calls_printf_assert);
    tcase_add_test(tc, test_ptx_real_indirect_calls);
    tcase_add_test(tc, test_ptx_real_half_precision);
    tcase_add_test(tc, test_ptx_real_vabsdiff4);
    tcase_add_test(tc, test_ptx_real_mul24);
    suite_add_tcase(s, tc);
    return s;
}
