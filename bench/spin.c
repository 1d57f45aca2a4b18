/*
 * bench/spin.c - what parking spinning warps saves (machine/kernel/
 * spin.c): 16 blocks of 256 PTX threads on GPU 0 of pcie-8gpu-2socket
 * poll a flag in its own memory (every warp loads it each round) until a
 * C kernel launched at 1 ms of simulated time sets it. The same workload
 * runs with P2PSIM_PARK=0 and with parking, median of 3 each, and prints
 * CPU seconds, the rounds parked and the simulated end (which must be the
 * same); last line `spin speedup: X` (CPU time unparked / parked).
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "machine/include/p2psim_kernel.h"
#include "machine/kernel/kernel.h"
#include "machine/p2psim.h"
#include "ptx/ptx.h"
#include "sim/error.h"

#define GPU_SHIFT 44
#define RUNS 3

static const char spin_ptx[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry spin(.param .u64 flag)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n"
    "\tld.param.u64 %rd1, [flag];\n"
    "$L__spin:\n\tld.volatile.global.u32 %r1, [%rd1];\n"
    "\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 bra $L__spin;\n\tret;\n}\n";

/* Program address va: GPU (va >> GPU_SHIFT) - 1, offset below. */
static int resolve(void *arg, unsigned gpu, uint64_t va, uint64_t len,
                   struct p2psim_loc *loc)
{
    (void)arg;
    (void)gpu;
    (void)len;
    *loc = (struct p2psim_loc){ P2PSIM_DEVICE,
                                (unsigned)((va >> GPU_SHIFT) - 1),
                                va & ((UINT64_C(1) << GPU_SHIFT) - 1) };
    return 0;
}

static void k_poke(void **args)
{
    devapi_st_volatile_u32(*(uint32_t **)args[0], 1);
}

static void on_done(void *arg, int status, const char *msg, sim_time_t t)
{
    (void)msg;
    *(sim_time_t *)arg = status ? 0 : t;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One run: CPU seconds; *end the spinning grid's end, *parked its rounds. */
static double run(const struct ptx_kernel *k, const void *poke,
                  sim_time_t *end, uint64_t *parked)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim *p = p2psim_open("pcie-8gpu-2socket.yaml", NULL, &err);
    if (!p) {
        fprintf(stderr, "bench/spin: %s\n", err.msg);
        exit(1);
    }
    uint64_t flag = UINT64_C(1) << GPU_SHIFT;       /* GPU 0, offset 0 */
    uint8_t params[8];
    void *pargs[] = { &flag };
    ptx_kernel_pack_params(k, pargs, params);
    sim_time_t t_poke = 0;
    struct p2psim_launch spin = {
        .gpu = 0, .grid = { 16, 1, 1 }, .block = { 256, 1, 1 }, .pk = k,
        .param_buf = params, .param_bytes = sizeof(params),
        .resolve = resolve, .done = on_done, .done_arg = end,
    };
    struct p2psim_launch wr = {
        .gpu = 0, .grid = { 1, 1, 1 }, .block = { 1, 1, 1 },
        .ck = p2psim_ckernel_find(poke), .args = pargs,
        .resolve = resolve, .start_at = SIM_US(1000), .done = on_done,
        .done_arg = &t_poke,
    };
    uint64_t parked0 = p2psim_kernel_parked_rounds();
    double t0 = cpu_now();
    if (p2psim_kernel_launch(p, &spin) || p2psim_kernel_launch(p, &wr)) {
        fprintf(stderr, "bench/spin: launch failed\n");
        exit(1);
    }
    p2psim_run(p);
    double t = cpu_now() - t0;
    *parked = p2psim_kernel_parked_rounds() - parked0;
    p2psim_close(p);
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    struct ptx_error perr = {0};
    struct ptx_module *m = ptx_module_parse(spin_ptx, strlen(spin_ptx),
                                            &perr);
    if (!m) {
        fprintf(stderr, "bench/spin: %s\n", perr.msg);
        return 1;
    }
    static const size_t poke_args[] = { 8 };
    const void *poke = p2psim_kernel_register("poke", k_poke, 1, poke_args);
    const struct ptx_kernel *k = ptx_module_find(m, "spin");
    double cpu[2][RUNS];
    sim_time_t end[2] = { 0, 0 };
    uint64_t parked[2] = { 0, 0 };
    for (unsigned r = 0; r < RUNS; r++) {
        for (unsigned on = 0; on < 2; on++) {    /* alternating */
            setenv("P2PSIM_PARK", on ? "1" : "0", 1);
            cpu[on][r] = run(k, poke, &end[on], &parked[on]);
        }
    }
    ptx_module_free(m);
    double med[2];
    for (unsigned on = 0; on < 2; on++) {
        qsort(cpu[on], RUNS, sizeof(double), cmp_double);
        med[on] = cpu[on][RUNS / 2];
        printf("%s: %.3f CPU s, %llu rounds parked, grid ended at %llu ps\n",
               on ? "parked  " : "unparked", med[on],
               (unsigned long long)parked[on], (unsigned long long)end[on]);
    }
    if (end[0] != end[1] || end[0] == 0) {
        fprintf(stderr, "bench/spin: the simulated ends differ\n");
        return 1;
    }
    printf("spin speedup: %.2f\n", med[0] / med[1]);
    return 0;
}
