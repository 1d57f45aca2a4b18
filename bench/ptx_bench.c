/*
 * bench/ptx_bench.c - speed of the PTX interpreter (ptx/): interpreted
 * warp-instructions per wall second on a compute-heavy kernel (an
 * integer/float loop in registers) and a memory-heavy one (a
 * grid-stride int4 copy: every load and store leaves the interpreter as
 * a request served by the flat executor, on buffers already resident).
 * The kernels are PTX of the shape nvcc -O3 emits for such loops, so the
 * bench needs no nvcc.
 * Last line: "warp-instr/s: N" over both kernels.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ptx/flat.h"
#include "ptx/ptx.h"

static const char bench_ptx[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    /* compute: out[i] = iterate x = fma(x, 1.0001, i), n += x>0 ... */
    ".visible .entry compute(.param .u64 out, .param .u32 iters)\n{\n"
    ".reg .pred %p<3>;\n.reg .b32 %r<12>;\n.reg .f32 %f<6>;\n"
    ".reg .b64 %rd<5>;\n"
    "ld.param.u64 %rd1, [out];\nld.param.u32 %r1, [iters];\n"
    "mov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmov.u32 %r4, %tid.x;\n"
    "mad.lo.s32 %r5, %r2, %r3, %r4;\ncvt.rn.f32.s32 %f1, %r5;\n"
    "mov.f32 %f2, 0f00000000;\nmov.u32 %r6, 0;\nmov.u32 %r7, 0;\n"
    "$L_loop:\n"
    "fma.rn.f32 %f2, %f2, 0f3F800347, %f1;\n"
    "setp.gt.f32 %p1, %f2, 0f49742400;\n"
    "@%p1 mul.f32 %f2, %f2, 0f3A83126F;\n"
    "xor.b32 %r8, %r7, %r5;\nshl.b32 %r9, %r8, 3;\n"
    "add.s32 %r7, %r9, %r6;\n"
    "add.s32 %r6, %r6, 1;\n"
    "setp.lt.u32 %p2, %r6, %r1;\n"
    "@%p2 bra $L_loop;\n"
    "cvt.rzi.s32.f32 %r10, %f2;\nadd.s32 %r11, %r10, %r7;\n"
    "cvta.to.global.u64 %rd2, %rd1;\nmul.wide.s32 %rd3, %r5, 4;\n"
    "add.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r11;\nret;\n}\n"
    /* copy: grid-stride int4 copy of n elements */
    ".visible .entry copy(.param .u64 dst, .param .u64 src,"
    " .param .u64 n)\n{\n"
    ".reg .pred %p<3>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<16>;\n"
    "ld.param.u64 %rd1, [dst];\nld.param.u64 %rd2, [src];\n"
    "ld.param.u64 %rd3, [n];\n"
    "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\n"
    "mad.lo.s32 %r4, %r1, %r2, %r3;\ncvt.u64.u32 %rd4, %r4;\n"
    "mov.u32 %r5, %nctaid.x;\nmul.lo.s32 %r6, %r5, %r2;\n"
    "cvt.u64.u32 %rd5, %r6;\n"
    "setp.ge.u64 %p1, %rd4, %rd3;\n@%p1 bra $L_end;\n"
    "cvta.to.global.u64 %rd6, %rd1;\ncvta.to.global.u64 %rd7, %rd2;\n"
    "$L_copy:\n"
    "shl.b64 %rd8, %rd4, 4;\nadd.s64 %rd9, %rd7, %rd8;\n"
    "ld.global.nc.v4.u32 {%r7, %r8, %r9, %r10}, [%rd9];\n"
    "add.s64 %rd10, %rd6, %rd8;\n"
    "st.global.v4.u32 [%rd10], {%r7, %r8, %r9, %r10};\n"
    "add.s64 %rd4, %rd4, %rd5;\nsetp.lt.u64 %p2, %rd4, %rd3;\n"
    "@%p2 bra $L_copy;\n"
    "$L_end:\nret;\n}\n";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run(const struct ptx_module *m, const char *name, unsigned grid,
               unsigned block, void *const *args, uint64_t *instrs,
               double *secs)
{
    struct ptx_flat_launch l = {
        .kernel = ptx_module_find(m, name),
        .grid = {grid, 1, 1},
        .block = {block, 1, 1},
        .args = args,
    };
    struct ptx_flat_stats st = {0};
    struct ptx_error err = {0};
    double t0 = now_s(), c0 = cpu_s();
    int rc = ptx_flat_run(&l, &st, &err);
    *secs = now_s() - t0;
    double cpu = cpu_s() - c0;
    *instrs = st.warp_instrs;
    if (rc) {
        fprintf(stderr, "bench/ptx: %s: %s\n", name, err.msg);
        return rc;
    }
    printf("%-8s %3u x %3u threads: %10llu warp-instr, %7llu mem requests, "
           "%.3f s wall (%.3f s CPU), %.2f M warp-instr/s\n", name, grid, block,
           (unsigned long long)st.warp_instrs,
           (unsigned long long)st.mem_reqs, *secs, cpu,
           (double)st.warp_instrs / *secs / 1e6);
    return 0;
}

int main(void)
{
    struct ptx_error err = {0};
    struct ptx_module *m = ptx_module_parse(bench_ptx, strlen(bench_ptx),
                                            &err);
    if (!m) {
        fprintf(stderr, "bench/ptx: %s\n", err.msg);
        return 1;
    }
    enum { GRID = 16, BLOCK = 256, ITERS = 2000 };
    uint32_t *out = calloc(GRID * BLOCK, sizeof(uint32_t));
    uint32_t iters = ITERS;
    void *cargs[] = {&out, &iters};
    uint64_t n = 1u << 20; /* int4 elements: 16 MiB */
    uint8_t *src = malloc(n * 16), *dst = malloc(n * 16);
    if (!out || !src || !dst) {
        return 1;
    }
    /* both buffers resident before the clock starts, as device memory
     * is: the host's first-touch page faults of dst (4096 of them) are
     * no part of the interpreter's speed */
    memset(src, 0x5a, n * 16);
    memset(dst, 0, n * 16);
    void *margs[] = {&dst, &src, &n};
    uint64_t i1, i2;
    double s1, s2;
    if (run(m, "compute", GRID, BLOCK, cargs, &i1, &s1) ||
        run(m, "copy", 32, 256, margs, &i2, &s2)) {
        return 1;
    }
    if (memcmp(src, dst, n * 16) != 0) {
        fprintf(stderr, "bench/ptx: copy kernel result wrong\n");
        return 1;
    }
    printf("warp-instr/s: %.0f\n", (double)(i1 + i2) / (s1 + s2));
    free(out);
    free(src);
    free(dst);
    ptx_module_free(m);
    return 0;
}
