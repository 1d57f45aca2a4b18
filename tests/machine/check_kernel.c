/*
 * tests/machine/check_kernel.c - the kernel executor through libp2psim, with C
 * kernels (machine/include/p2psim_kernel.h) on a machine of the library:
 * local and peer accesses with real data, coalescing, atomics (native and
 * emulated) across GPUs, barriers, grid sync, faults; and the litmus tests
 * of docs/memory-model.md, which count outcomes over seeds and assert
 * that a stale read appears only where the model allows it.
 *
 * Addresses: this test plays the runtime's part with its own resolver:
 * GPU g's HBM offset x is program address VA(g, x); pinned host buffers
 * are their own addresses.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/include/p2psim_kernel.h"
#include "machine/kernel/kernel.h"
#include "machine/p2psim.h"
#include "machine/p2psim_int.h"
#include "ptx/ptx.h"
#include "machine/fabric.h"
#include "models/gpu/gpu.h"
#include "machine/topology.h"
#include "models/gpu/sm.h"
#include "sim/error.h"
#include "tests/check_p2psim.h"
#include "tests/machine/open.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

#define MACHINE P2PSIM_SRCDIR "/topologies/pcie-8gpu-2socket.yaml"
#define VA_GPU_SHIFT 44
#define VA(g, x) (((uint64_t)(g) + 1) << VA_GPU_SHIFT | (uint64_t)(x))

/* ---- harness ------------------------------------------------------------ */

struct host_buf {
    void *ptr;
    uint64_t len, bus;
};

struct env {
    struct p2psim *p;
    struct host_buf host[4];
    unsigned n_host;
};

static int test_resolve(void *arg, unsigned gpu, uint64_t va, uint64_t len,
                        struct p2psim_loc *loc)
{
    struct env *e = arg;
    (void)gpu;
    for (unsigned i = 0; i < e->n_host; i++) {
        uintptr_t b = (uintptr_t)e->host[i].ptr;
        if (va >= b && va + len <= b + e->host[i].len) {
            *loc = (struct p2psim_loc){ P2PSIM_HOST, 0,
                                        e->host[i].bus + (va - b) };
            return 0;
        }
    }
    uint64_t g = (va >> VA_GPU_SHIFT) - 1;
    uint64_t off = va & ((UINT64_C(1) << VA_GPU_SHIFT) - 1);
    if (g >= p2psim_gpu_count(e->p) || off + len > p2psim_hbm_size(e->p, g)) {
        return -1;
    }
    *loc = (struct p2psim_loc){ P2PSIM_DEVICE, (unsigned)g, off };
    return 0;
}

static void env_open_set(struct env *e, const char *overrides)
{
    struct p2psim_options o = { .overrides = overrides };
    memset(e, 0, sizeof(*e));
    e->p = test_open(MACHINE, overrides ? &o : NULL);
}

static void env_open(struct env *e)
{
    env_open_set(e, NULL);
}

static void *env_host(struct env *e, uint64_t len)
{
    void *ptr = calloc(1, len);
    struct host_buf *h = &e->host[e->n_host++];
    h->ptr = ptr;
    h->len = len;
    ck_assert_int_eq(p2psim_host_register(e->p, ptr, len, 0, &h->bus), 0);
    return ptr;
}

static void env_close(struct env *e)
{
    p2psim_close(e->p);
    for (unsigned i = 0; i < e->n_host; i++) {
        free(e->host[i].ptr);
    }
}

struct result {
    int calls, status;
    char msg[320];
    sim_time_t t_end;
};

static void on_done(void *arg, int status, const char *msg, sim_time_t t)
{
    struct result *r = arg;
    r->calls++;
    r->status = status;
    r->t_end = t;
    snprintf(r->msg, sizeof(r->msg), "%s", msg ? msg : "");
}

/* Launch k on gpu (grid x block threads) at start, args as CUDA takes them. */
static void launch(struct env *e, unsigned gpu, const void *k, unsigned grid,
                   unsigned block, void **args, sim_time_t start,
                   bool coop, struct result *r)
{
    memset(r, 0, sizeof(*r));
    struct p2psim_launch l = {
        .gpu = gpu, .grid = { grid, 1, 1 }, .block = { block, 1, 1 },
        .ck = p2psim_ckernel_find(k), .args = args, .cooperative = coop,
        .resolve = test_resolve, .resolve_arg = e, .start_at = start,
        .done = on_done, .done_arg = r, .dyn_smem = 4096,
    };
    ck_assert_ptr_nonnull(l.ck);
    ck_assert_int_eq(p2psim_kernel_launch(e->p, &l), 0);
}

static void run_ok(struct env *e, struct result *r)
{
    p2psim_run(e->p);
    ck_assert_int_eq(r->calls, 1);
    ck_assert_msg(r->status == 0, "kernel failed: %s", r->msg);
}

/* ---- kernels ------------------------------------------------------------ */

/* dst[i] = src[i] + 1 for i < n */
static void k_copy_inc(void **args)
{
    uint32_t *dst = *(uint32_t **)args[0];
    const uint32_t *src = *(uint32_t **)args[1];
    unsigned n = *(unsigned *)args[2];
    for (unsigned i = devapi_global_id(); i < n;
         i += devapi_grid_dim().x * devapi_block_dim().x) {
        devapi_st_u32(&dst[i], devapi_ld_u32(&src[i]) + 1);
    }
}

static const size_t copy_args[] = { 8, 8, 4 };

/* every thread adds 1 to *counter, `times` times (system scope) */
static void k_atomic_add(void **args)
{
    uint64_t *counter = *(uint64_t **)args[0];
    unsigned times = *(unsigned *)args[1];
    for (unsigned i = 0; i < times; i++) {
        devapi_atomic_add_u64(counter, 1, DEVAPI_SYS);
    }
}

static const size_t atomic_args[] = { 8, 4 };

/* max of every thread's id and float sum of 0.5 per thread (emulated
 * remotely: no PCIe AtomicOp does either) */
static void k_atomic_emulated(void **args)
{
    uint32_t *mx = *(uint32_t **)args[0];
    float *sum = *(float **)args[1];
    unsigned id = devapi_global_id();
    devapi_atomic(DEVAPI_ATOM_MAX, DEVAPI_U32, mx, id * 7 % 1000, 0,
                  DEVAPI_SYS);
    devapi_atomic_add_f32(sum, 0.5f, DEVAPI_SYS);
}

static const size_t emu_args[] = { 8, 8 };

/* block sum through shared memory and a barrier: out[block] */
static void k_block_sum(void **args)
{
    const uint32_t *in = *(uint32_t **)args[0];
    uint32_t *out = *(uint32_t **)args[1];
    uint32_t *sh = devapi_shared();
    unsigned t = devapi_thread_idx().x;
    unsigned n = devapi_block_dim().x;
    sh[t] = devapi_ld_u32(&in[devapi_global_id()]);
    devapi_syncthreads();
    for (unsigned s = n / 2; s > 0; s /= 2) {
        if (t < s) {
            sh[t] += sh[t + s];
        }
        devapi_syncthreads();
    }
    if (t == 0) {
        devapi_st_u32(&out[devapi_block_idx().x], sh[0]);
    }
}

static const size_t block_sum_args[] = { 8, 8 };

/* phase 1: a[i] = i; grid sync; phase 2: b[i] = a[n - 1 - i] */
static void k_grid_sync(void **args)
{
    uint32_t *a = *(uint32_t **)args[0];
    uint32_t *b = *(uint32_t **)args[1];
    unsigned n = devapi_grid_dim().x * devapi_block_dim().x;
    unsigned i = devapi_global_id();
    devapi_st_u32(&a[i], i);
    devapi_fence(DEVAPI_GPU);
    devapi_grid_sync();
    devapi_st_u32(&b[i], devapi_ld_u32(&a[n - 1 - i]));
}

/* ---- tests: memory ------------------------------------------------------- */

static void fill_words(struct env *e, unsigned gpu, uint64_t off, unsigned n)
{
    uint32_t *v = malloc(n * 4);
    for (unsigned i = 0; i < n; i++) {
        v[i] = i * 2654435761u;
    }
    ck_assert_int_eq(p2psim_hbm_write(e->p, gpu, off, v, n * 4), 0);
    free(v);
}

static void check_inc(struct env *e, unsigned gpu, uint64_t off, unsigned n)
{
    uint32_t *v = malloc(n * 4);
    ck_assert_int_eq(p2psim_hbm_read(e->p, gpu, off, v, n * 4), 0);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_uint_eq(v[i], i * 2654435761u + 1);
    }
    free(v);
}

START_TEST(test_kernel_local_copy_is_exact)
{
    struct env e;
    env_open(&e);
    const void *k = p2psim_kernel_register("copy_inc", k_copy_inc, 3,
                                           copy_args);
    unsigned n = 5000;
    fill_words(&e, 0, 0, n);
    uint64_t dst = VA(0, 1 << 20), src = VA(0, 0);
    void *args[] = { &dst, &src, &n };
    struct result r;
    launch(&e, 0, k, 4, 128, args, 0, false, &r);
    run_ok(&e, &r);
    check_inc(&e, 0, 1 << 20, n);
    ck_assert_uint_gt(r.t_end, 0);
    env_close(&e);
}
END_TEST

/*
 * A kernel on GPU 1 reads GPU 0's memory through BAR1 and writes its own:
 * the data is GPU 0's, and the run takes longer than the same kernel
 * reading its own memory (each load waits for a PCIe round trip).
 */
START_TEST(test_kernel_peer_read_verifies_and_costs_round_trips)
{
    struct env e;
    env_open(&e);
    const void *k = p2psim_kernel_register("copy_inc", k_copy_inc, 3,
                                           copy_args);
    unsigned n = 2048;
    fill_words(&e, 0, 0, n);
    fill_words(&e, 1, 0, n);
    uint64_t dst = VA(1, 1 << 20), src = VA(0, 0);
    void *args[] = { &dst, &src, &n };
    struct result peer, local;
    launch(&e, 1, k, 2, 64, args, 0, false, &peer);
    run_ok(&e, &peer);
    check_inc(&e, 1, 1 << 20, n);
    sim_time_t t0 = p2psim_now(e.p);
    src = VA(1, 0);
    launch(&e, 1, k, 2, 64, args, t0, false, &local);
    run_ok(&e, &local);
    check_inc(&e, 1, 1 << 20, n);
    struct gpu_sm_counters c;
    gpu_sm_get_counters(fab_gpu(e.p->m->fab, 1), &c);
    /* 2048 words, 128-byte lines: 64 coalesced remote reads */
    ck_assert_uint_eq(c.remote_reads, n * 4 / GPU_SM_LINE_BYTES);
    ck_assert_uint_gt(peer.t_end - 0, local.t_end - t0);
    env_close(&e);
}
END_TEST

/* ---- the SM model over NVLink ---------------------------------------- */

#define NVL_MACHINE P2PSIM_SRCDIR "/topologies/hgx-h200-x2.yaml"

struct nvl_reads {
    unsigned done, failed;
    sim_time_t last;
};

static void nvl_read_done(struct gpu_sm_req *r)
{
    struct nvl_reads *n = r->user;
    n->done++;
    n->failed += r->status != 0;
    n->last = r->t_done;
}

/* n reads of 128 bytes from GPU 1 by GPU 0's SMs (spread over them) over
 * NVLink, all submitted now; the time the last one completed. */
static sim_time_t nvl_pull(struct p2psim *p, unsigned n, struct nvl_reads *st)
{
    struct sim_component *g0 = fab_gpu(p->m->fab, 0);
    struct sim_component *g1 = fab_gpu(p->m->fab, 1);
    unsigned n_sm = gpu_sm_count(g0);
    struct gpu_sm_req *r = calloc(n, sizeof(*r));
    ck_assert_ptr_nonnull(r);
    memset(st, 0, sizeof(*st));
    sim_time_t t0 = p2psim_now(p);
    for (unsigned i = 0; i < n; i++) {
        r[i].kind = GPU_SM_LOAD;
        r[i].sm = i % n_sm;
        r[i].remote = true;
        r[i].addr = gpu_nvlink_base(g1) + (uint64_t)i * GPU_SM_LINE_BYTES;
        r[i].len = GPU_SM_LINE_BYTES;
        r[i].done = nvl_read_done;
        r[i].user = st;
        ck_assert_int_eq(gpu_sm_submit(g0, &r[i]), 0);
    }
    p2psim_run(p);
    free(r);
    ck_assert_uint_eq(st->done, n);
    ck_assert_uint_eq(st->failed, 0);
    return st->last - t0;
}

/*
 * Reads an SM sends over NVLink are tracked per SM (sm-outstanding), not
 * by the GPU's 10-bit PCIe Tag space: 2112 reads (132 SMs x 16) all go
 * out at once, so they take one round trip plus the link's time for the
 * bytes, well under the three rounds of 1024 tags they would need.
 */
START_TEST(test_sm_nvlink_reads_beyond_pcie_tags)
{
    struct sim_error err;
    sim_error_clear(&err);
    /* the round trips, not the NVLinks' wake-up (nvlink-power) */
    struct p2psim_options opt = {
        .overrides = "nvlink-power.sleep-after=0s",
    };
    struct p2psim *p = p2psim_open(NVL_MACHINE, &opt, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    struct gpu_sm_params prm;
    gpu_sm_get_params(fab_gpu(p->m->fab, 0), &prm);
    ck_assert_uint_ge((uint64_t)prm.n_sm * prm.outstanding, 2112);
    struct nvl_reads st;
    sim_time_t one = nvl_pull(p, 1, &st);
    sim_time_t many = nvl_pull(p, 2112, &st);
    ck_assert_uint_gt(many, one);
    ck_assert_msg(many < 3 * one, "2112 reads took %llu ps, one %llu ps",
                  (unsigned long long)many, (unsigned long long)one);
    /* one SM alone keeps only sm-outstanding in flight: 2 x 64 reads of
     * one SM take at least two round trips */
    prm.outstanding = 64;
    ck_assert_int_eq(gpu_sm_set_params(fab_gpu(p->m->fab, 0), &prm), 0);
    struct sim_component *g0 = fab_gpu(p->m->fab, 0);
    struct sim_component *g1 = fab_gpu(p->m->fab, 1);
    struct gpu_sm_req r[128];
    memset(r, 0, sizeof(r));
    memset(&st, 0, sizeof(st));
    sim_time_t t0 = p2psim_now(p);
    for (unsigned i = 0; i < 128; i++) {
        r[i] = (struct gpu_sm_req){ .kind = GPU_SM_LOAD, .sm = 0,
                                    .remote = true,
                                    .addr = gpu_nvlink_base(g1) + i * 128u,
                                    .len = 128, .done = nvl_read_done,
                                    .user = &st };
        ck_assert_int_eq(gpu_sm_submit(g0, &r[i]), 0);
    }
    p2psim_run(p);
    ck_assert_uint_eq(st.done, 128);
    ck_assert_uint_ge(st.last - t0, 2 * one);
    p2psim_close(p);
}
END_TEST

/* The catalog's SM figures reach the model, and a launch starts its first
 * block launch-latency after the doorbell. */
START_TEST(test_sm_params_from_catalog_and_launch_latency)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim *p = p2psim_open(NVL_MACHINE, NULL, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    struct gpu_sm_params prm;
    gpu_sm_get_params(fab_gpu(p->m->fab, 0), &prm);
    ck_assert_uint_eq(prm.n_sm, 132);
    ck_assert_uint_eq(prm.launch_ps, SIM_NS(3060));
    ck_assert_uint_eq(prm.outstanding, 64);
    struct gpu_sm_params bad = prm;
    bad.outstanding = 0;
    ck_assert_int_eq(gpu_sm_set_params(fab_gpu(p->m->fab, 0), &bad),
                     -SIM_EINVAL);
    p2psim_close(p);

    struct env e;
    env_open(&e);
    gpu_sm_get_params(fab_gpu(e.p->m->fab, 0), &prm);
    const void *k = p2psim_kernel_register("copy_inc", k_copy_inc, 3,
                                           copy_args);
    unsigned n = 0;
    uint64_t dst = VA(0, 0), src = VA(0, 4096);
    void *args[] = { &dst, &src, &n };
    struct result r;
    launch(&e, 0, k, 1, 32, args, SIM_US(1), false, &r);
    run_ok(&e, &r);
    ck_assert_uint_ge(r.t_end, SIM_US(1) + prm.launch_ps);
    env_close(&e);
}
END_TEST

/* Pinned host memory is reached by bus address: the same data lands. */
START_TEST(test_kernel_host_memory_round_trip)
{
    struct env e;
    env_open(&e);
    const void *k = p2psim_kernel_register("copy_inc", k_copy_inc, 3,
                                           copy_args);
    unsigned n = 1000;
    uint32_t *in = env_host(&e, n * 4), *out = env_host(&e, n * 4);
    for (unsigned i = 0; i < n; i++) {
        in[i] = i * 2654435761u;
    }
    uint64_t dst = (uintptr_t)out, src = (uintptr_t)in;
    void *args[] = { &dst, &src, &n };
    struct result r;
    launch(&e, 2, k, 1, 256, args, 0, false, &r);
    run_ok(&e, &r);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_uint_eq(out[i], i * 2654435761u + 1);
    }
    env_close(&e);
}
END_TEST

START_TEST(test_kernel_illegal_address_faults)
{
    struct env e;
    env_open(&e);
    const void *k = p2psim_kernel_register("copy_inc", k_copy_inc, 3,
                                           copy_args);
    unsigned n = 64;
    uint64_t dst = VA(0, 0), src = 0x1234; /* nobody's memory */
    void *args[] = { &dst, &src, &n };
    struct result r;
    launch(&e, 0, k, 1, 64, args, 0, false, &r);
    p2psim_run(e.p);
    ck_assert_int_eq(r.calls, 1);
    ck_assert_int_eq(r.status, P2PSIM_KERNEL_FAULT);
    ck_assert_ptr_nonnull(strstr(r.msg, "illegal address 0x1234"));
    env_close(&e);
}
END_TEST

/* Kernel @name of PTX @text, parsed into *@m (freed by the caller). */
static const struct ptx_kernel *ptx_kernel_of(const char *text,
                                              const char *name,
                                              struct ptx_module **m)
{
    struct ptx_error perr;
    memset(&perr, 0, sizeof(perr));
    *m = ptx_module_parse(text, strlen(text), &perr);
    ck_assert_msg(*m != NULL, "%s", perr.msg);
    const struct ptx_kernel *pk = ptx_module_find(*m, name);
    ck_assert_ptr_nonnull(pk);
    return pk;
}

/* Launch PTX kernel @pk on GPU 0: @grid blocks of @block threads. */
static void ptx_launch(struct env *e, const struct ptx_kernel *pk,
                       unsigned grid, unsigned block, void *params,
                       uint32_t param_bytes, struct result *r)
{
    memset(r, 0, sizeof(*r));
    struct p2psim_launch l = {
        .gpu = 0, .grid = { grid, 1, 1 }, .block = { block, 1, 1 }, .pk = pk,
        .param_buf = params, .param_bytes = param_bytes,
        .resolve = test_resolve, .resolve_arg = e, .done = on_done,
        .done_arg = r,
    };
    ck_assert_int_eq(p2psim_kernel_launch(e->p, &l), 0);
}

/*
 * A PTX kernel whose warps cannot be made (a call of a function the
 * module does not define, launched without ptx_kernel_check) ends with the PTX
 * error: its blocks never start, and the grid used to wait for them
 * forever without calling done.
 */
START_TEST(test_kernel_ptx_block_that_cannot_start_ends_the_grid)
{
    static const char text[] =
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".extern .func frobnicate\n()\n;\n"
        ".visible .entry bad()\n{\ncall.uni frobnicate, ();\nret;\n}\n";
    struct ptx_module *m;
    const struct ptx_kernel *pk = ptx_kernel_of(text, "bad", &m);
    struct env e;
    env_open(&e);
    struct result r;
    uint8_t params[1];
    ptx_launch(&e, pk, 3, 32, params, 0, &r);
    p2psim_run(e.p);
    ck_assert_int_eq(r.calls, 1);
    ck_assert_int_eq(r.status, P2PSIM_KERNEL_PTX);
    ck_assert_ptr_nonnull(strstr(r.msg, "frobnicate"));
    env_close(&e);
    ptx_module_free(m);
}
END_TEST

/* ---- tests: atomics ------------------------------------------------------ */

/* Two GPUs add to one counter in GPU 0's memory: GPU 0 locally, GPU 1 with
 * FetchAdd TLPs through the switch. The total is exact. */
/*
 * Named barriers (PTX bar.sync a, b / bar.arrive a, b): barrier a
 * releases when b threads' warps arrived, not every warp of the block.
 * Warp 1 arrives at barrier 2 without waiting and spins on out[0]; warp
 * 0 passes barrier 2 (both warps arrived), then barrier 1 of 32 threads
 * (itself alone), and sets out[0]. Were each a whole-block barrier,
 * warp 0 would wait for warp 1, which gives up after 2000 loads and
 * writes 2 to out[1].
 */
START_TEST(test_kernel_ptx_named_barriers)
{
    static const char text[] =
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry named(.param .u64 out)\n{\n"
        ".reg .pred %p<3>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n"
        "ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\n"
        "setp.ge.u32 %p1, %r1, 32;\n@%p1 bra SPIN;\n"
        "bar.sync 2, 64;\nbar.sync 1, 32;\n"
        "st.volatile.global.u32 [%rd1], 1;\nret;\n"
        "SPIN:\nbar.arrive 2, 64;\nmov.u32 %r2, 0;\n"
        "LOOP:\nld.volatile.global.u32 %r3, [%rd1];\n"
        "setp.eq.u32 %p2, %r3, 1;\n@%p2 bra SEEN;\n"
        "add.u32 %r2, %r2, 1;\nsetp.lt.u32 %p2, %r2, 2000;\n"
        "@%p2 bra LOOP;\nst.volatile.global.u32 [%rd1+4], 2;\nret;\n"
        "SEEN:\nst.volatile.global.u32 [%rd1+4], 1;\nret;\n}\n";
    struct ptx_module *m;
    const struct ptx_kernel *pk = ptx_kernel_of(text, "named", &m);
    ck_assert_int_eq(ptx_kernel_check(pk, NULL), 0);
    struct env e;
    env_open(&e);
    uint32_t *out = env_host(&e, 8);
    uint64_t param = (uintptr_t)out;
    struct result r;
    ptx_launch(&e, pk, 1, 64, &param, 8, &r);
    run_ok(&e, &r);
    ck_assert_uint_eq(out[0], 1);
    ck_assert_uint_eq(out[1], 1);
    env_close(&e);
    ptx_module_free(m);
}
END_TEST

/*
 * Concurrent grids share a GPU's SMs: grid A fills every SM (two blocks
 * of 32 warps each, 64 warps a SM), so grid B's one block, launched at
 * the same time, starts only when a block of A ends, and ends about one
 * block's time after A. When each grid saw every SM free, B ran beside A
 * and ended with it.
 */
START_TEST(test_kernel_concurrent_grids_share_sms)
{
    static const char text[] =
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry busy(.param .u64 busy_p)\n{\n"
        ".reg .pred %p<2>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<2>;\n"
        "ld.param.u64 %rd1, [busy_p];\nmov.u32 %r1, 0;\nmov.u32 %r2, 0;\n"
        "$L:\nld.global.volatile.u32 %r3, [%rd1];\nadd.u32 %r2, %r2, %r3;\n"
        "add.u32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, 8;\n@%p1 bra $L;\n"
        "st.global.u32 [%rd1+4], %r2;\nret;\n}\n";
    struct env e;
    env_open(&e);
    uint64_t param = VA(0, 4096);   /* its own HBM: latency, no queues */
    struct ptx_module *m;
    const struct ptx_kernel *pk = ptx_kernel_of(text, "busy", &m);
    ck_assert_int_eq(ptx_kernel_check(pk, NULL), 0);
    unsigned n_sm = gpu_sm_count(fab_gpu(e.p->m->fab, 0));
    struct result ra, rb;
    ptx_launch(&e, pk, 2 * n_sm, 1024, &param, 8, &ra);
    ptx_launch(&e, pk, 1, 1024, &param, 8, &rb);
    p2psim_run(e.p);
    ck_assert_int_eq(ra.calls, 1);
    ck_assert_int_eq(rb.calls, 1);
    ck_assert_int_eq(ra.status, 0);
    ck_assert_int_eq(rb.status, 0);
    struct gpu_sm_params prm;
    gpu_sm_get_params(fab_gpu(e.p->m->fab, 0), &prm);
    ck_assert_uint_gt(ra.t_end, prm.launch_ps);
    sim_time_t block = ra.t_end - prm.launch_ps; /* A's blocks, at once */
    ck_assert_msg(rb.t_end > ra.t_end + block / 2,
                  "B ended at %llu ps, A at %llu ps (blocks of %llu ps)",
                  (unsigned long long)rb.t_end, (unsigned long long)ra.t_end,
                  (unsigned long long)block);
    env_close(&e);
    ptx_module_free(m);
}
END_TEST

/* gpu0 (3 x 96 threads) and gpu b (2 x 160) each add 1 five times to a
 * counter at gpu0's byte 4096; returns the counter after both. */
static uint64_t atomic_race(struct env *e, unsigned b)
{
    const void *k = p2psim_kernel_register("atomic_add", k_atomic_add, 2,
                                           atomic_args);
    uint64_t counter = VA(0, 4096);
    unsigned times = 5;
    void *args[] = { &counter, &times };
    struct result r0, rb;
    launch(e, 0, k, 3, 96, args, 0, false, &r0);
    launch(e, b, k, 2, 160, args, 0, false, &rb);
    p2psim_run(e->p);
    ck_assert_int_eq(r0.status, 0);
    ck_assert_int_eq(rb.status, 0);
    uint64_t total;
    p2psim_hbm_read(e->p, 0, 4096, &total, 8);
    return total;
}

START_TEST(test_kernel_atomic_add_two_gpus_exact_total)
{
    struct env e;
    env_open(&e);
    ck_assert_uint_eq(atomic_race(&e, 1), (3 * 96 + 2 * 160) * 5);
    struct gpu_sm_counters c;
    gpu_sm_get_counters(fab_gpu(e.p->m->fab, 1), &c);
    ck_assert_uint_eq(c.remote_atomics, 2 * 160 * 5);
    env_close(&e);
}
END_TEST

/*
 * gpu0 and gpu2 meet at cpu0's root complex (PHB), which passes no
 * AtomicOps between root ports (p2p-atomics' default): gpu2's atomics on
 * gpu0's memory are a read and a write each. Alone, one thread's are
 * exact; racing gpu0's own atomics and each other they lose updates.
 * With p2p-atomics on they are AtomicOps and the total is exact.
 */
START_TEST(test_kernel_atomics_without_atomicop_routing)
{
    struct env e;
    env_open(&e);
    const void *k = p2psim_kernel_register("atomic_add", k_atomic_add, 2,
                                           atomic_args);
    uint64_t counter = VA(0, 4096);
    unsigned times = 5;
    void *args[] = { &counter, &times };
    struct result r2;
    launch(&e, 2, k, 1, 1, args, 0, false, &r2);
    p2psim_run(e.p);
    ck_assert_int_eq(r2.status, 0);
    uint64_t total;
    p2psim_hbm_read(e.p, 0, 4096, &total, 8);
    ck_assert_uint_eq(total, 5);
    struct gpu_sm_counters c;
    gpu_sm_get_counters(fab_gpu(e.p->m->fab, 2), &c);
    ck_assert_uint_eq(c.rmw_atomics, 5);
    ck_assert_uint_eq(c.remote_atomics, 0);

    /* lost some */
    ck_assert_uint_lt(atomic_race(&e, 2), 5 + (3 * 96 + 2 * 160) * 5);
    env_close(&e);

    env_open_set(&e, "sockets.cpu0.root-complex.p2p-atomics=true");
    ck_assert_uint_eq(atomic_race(&e, 2), (3 * 96 + 2 * 160) * 5);
    gpu_sm_get_counters(fab_gpu(e.p->m->fab, 2), &c);
    ck_assert_uint_eq(c.remote_atomics, 2 * 160 * 5);
    ck_assert_uint_eq(c.rmw_atomics, 0);
    env_close(&e);
}
END_TEST

/* max and float add have no AtomicOp: a read and CAS loop, still exact */
START_TEST(test_kernel_emulated_remote_atomics_exact)
{
    struct env e;
    env_open(&e);
    const void *k = p2psim_kernel_register("emu", k_atomic_emulated, 2,
                                           emu_args);
    uint64_t mx = VA(0, 0), sum = VA(0, 64);
    void *args[] = { &mx, &sum };
    struct result r0, r1;
    launch(&e, 1, k, 2, 64, args, 0, false, &r0);
    launch(&e, 0, k, 1, 64, args, 0, false, &r1);
    p2psim_run(e.p);
    ck_assert_int_eq(r0.status, 0);
    ck_assert_int_eq(r1.status, 0);
    uint32_t m;
    float s;
    p2psim_hbm_read(e.p, 0, 0, &m, 4);
    p2psim_hbm_read(e.p, 0, 64, &s, 4);
    unsigned want = 0;
    for (unsigned id = 0; id < 128; id++) {
        want = id * 7 % 1000 > want ? id * 7 % 1000 : want;
    }
    ck_assert_uint_eq(m, want);
    ck_assert(s == 0.5f * (128 + 64));
    struct gpu_sm_counters c;
    gpu_sm_get_counters(fab_gpu(e.p->m->fab, 1), &c);
    ck_assert_uint_gt(c.cas_retries, 0);    /* they raced */
    env_close(&e);
}
END_TEST

START_TEST(test_kernel_atom_apply_table)
{
    ck_assert_uint_eq(gpu_sm_atom_apply(GPU_SM_ATOM_INC, GPU_SM_U32, 5, 5, 0),
                      0);
    ck_assert_uint_eq(gpu_sm_atom_apply(GPU_SM_ATOM_INC, GPU_SM_U32, 4, 5, 0),
                      5);
    ck_assert_uint_eq(gpu_sm_atom_apply(GPU_SM_ATOM_DEC, GPU_SM_U32, 0, 9, 0),
                      9);
    ck_assert_uint_eq(gpu_sm_atom_apply(GPU_SM_ATOM_MIN, GPU_SM_S32,
                                        5, (uint32_t)-3, 0),
                      (uint32_t)-3);
    ck_assert_uint_eq(gpu_sm_atom_apply(GPU_SM_ATOM_MIN, GPU_SM_U32,
                                        5, (uint32_t)-3, 0), 5);
    ck_assert_uint_eq(gpu_sm_atom_apply(GPU_SM_ATOM_CAS, GPU_SM_U64, 7, 9, 7),
                      9);
    ck_assert_uint_eq(gpu_sm_atom_apply(GPU_SM_ATOM_CAS, GPU_SM_U64, 7, 9, 8),
                      7);
    ck_assert_uint_eq(gpu_sm_atom_apply(GPU_SM_ATOM_ADD, GPU_SM_U32,
                                        UINT32_MAX, 2, 0), 1);
}
END_TEST

/* ---- tests: barriers ------------------------------------------------------ */

START_TEST(test_kernel_syncthreads_block_sum)
{
    struct env e;
    env_open(&e);
    const void *k = p2psim_kernel_register("block_sum", k_block_sum, 2,
                                           block_sum_args);
    unsigned n = 4 * 256;
    uint32_t *v = malloc(n * 4);
    for (unsigned i = 0; i < n; i++) {
        v[i] = i;
    }
    p2psim_hbm_write(e.p, 0, 0, v, n * 4);
    uint64_t in = VA(0, 0), out = VA(0, 65536);
    void *args[] = { &in, &out };
    struct result r;
    launch(&e, 0, k, 4, 256, args, 0, false, &r);
    run_ok(&e, &r);
    uint32_t sums[4];
    p2psim_hbm_read(e.p, 0, 65536, sums, sizeof(sums));
    for (unsigned b = 0; b < 4; b++) {
        uint32_t want = 0;
        for (unsigned i = 0; i < 256; i++) {
            want += b * 256 + i;
        }
        ck_assert_uint_eq(sums[b], want);
    }
    free(v);
    env_close(&e);
}
END_TEST

START_TEST(test_kernel_cooperative_grid_sync)
{
    struct env e;
    env_open(&e);
    const void *k = p2psim_kernel_register("grid_sync", k_grid_sync, 2,
                                           block_sum_args);
    uint64_t a = VA(3, 0), b = VA(3, 1 << 20);
    void *args[] = { &a, &b };
    struct result r;
    launch(&e, 3, k, 8, 64, args, 0, true, &r);
    run_ok(&e, &r);
    unsigned n = 8 * 64;
    uint32_t *v = malloc(n * 4);
    p2psim_hbm_read(e.p, 3, 1 << 20, v, n * 4);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_uint_eq(v[i], n - 1 - i);
    }
    free(v);
    /* the same kernel without a cooperative launch is refused at run */
    launch(&e, 3, k, 8, 64, args, p2psim_now(e.p), false, &r);
    p2psim_run(e.p);
    ck_assert_int_eq(r.status, P2PSIM_KERNEL_MISUSE);
    env_close(&e);
}
END_TEST

/* ---- litmus tests ----------------------------------------------------------- */

/*
 * Message passing. Producer on GPU 0: data (in GPU 1) = 1; [fence.sys;]
 * flag (in GPU 0) = 1. Consumer on GPU 1: spin until flag == 1 (reads
 * over PCIe); r = data (its own memory). r == 0 is stale: possible without
 * the fence (the data write waits in the producer's write-combining
 * buffer while the flag is already visible), never with it (the fence
 * drains the buffer and reads the destination back before the flag is
 * written).
 */
static void k_mp_producer(void **args)
{
    uint32_t *data = *(uint32_t **)args[0];
    uint32_t *flag = *(uint32_t **)args[1];
    unsigned fence = *(unsigned *)args[2];
    devapi_st_volatile_u32(data, 1);
    if (fence) {
        devapi_fence(DEVAPI_SYS);
    }
    devapi_st_volatile_u32(flag, 1);
    /* ... and goes on with its own work (local loads) for a while, so
     * that the end of the kernel (which flushes) is not what publishes
     * the data. */
    for (unsigned i = 0; i < 16; i++) {
        (void)devapi_ld_volatile_u32(flag);
    }
}

static void k_mp_consumer(void **args)
{
    uint32_t *data = *(uint32_t **)args[0];
    uint32_t *flag = *(uint32_t **)args[1];
    uint32_t *out = *(uint32_t **)args[3];
    while (devapi_ld_volatile_u32(flag) == 0) {
    }
    devapi_st_u32(out, devapi_ld_volatile_u32(data));
}

static const size_t mp_args[] = { 8, 8, 4, 8 };

/* One run of a litmus test: both kernels, the producer started `skew_ps`
 * after the consumer. Returns the consumer's r. */
static uint32_t mp_once(unsigned fence, sim_time_t skew_ps)
{
    struct env e;
    env_open(&e);
    const void *p = p2psim_kernel_register("mp_p", k_mp_producer, 4,
                                           mp_args);
    const void *c = p2psim_kernel_register("mp_c", k_mp_consumer, 4,
                                           mp_args);
    uint64_t data = VA(1, 0), flag = VA(0, 0), out = VA(1, 4096);
    uint32_t sentinel = 7;
    p2psim_hbm_write(e.p, 1, 4096, &sentinel, 4);
    void *args[] = { &data, &flag, &fence, &out };
    struct result rp, rc;
    launch(&e, 1, c, 1, 1, args, 0, false, &rc);
    launch(&e, 0, p, 1, 1, args, skew_ps, false, &rp);
    p2psim_run(e.p);
    ck_assert_int_eq(rp.status, 0);
    ck_assert_int_eq(rc.status, 0);
    uint32_t r;
    p2psim_hbm_read(e.p, 1, 4096, &r, 4);
    env_close(&e);
    ck_assert_uint_le(r, 1);
    return r;
}

/* Skews spread over a poll period with a fixed LCG: the seeds. */
static sim_time_t seed_skew(unsigned seed)
{
    uint64_t x = seed * UINT64_C(6364136223846793005) + 1442695040888963407u;
    return SIM_NS(2000) + (x >> 33) % SIM_NS(3000);
}

#define LITMUS_SEEDS 40

START_TEST(test_litmus_message_passing)
{
    unsigned stale[2] = { 0, 0 };
    for (unsigned fence = 0; fence < 2; fence++) {
        for (unsigned s = 0; s < LITMUS_SEEDS; s++) {
            stale[fence] += mp_once(fence, seed_skew(s)) == 0;
        }
    }
    printf("litmus MP over %d seeds: stale reads without fence %u, with "
           "fence.sys %u\n", LITMUS_SEEDS, stale[0], stale[1]);
    ck_assert_uint_gt(stale[0], 0);     /* the model allows it ... */
    ck_assert_uint_eq(stale[1], 0);     /* ... and the fence forbids it */
}
END_TEST

/*
 * Store buffering. T0 on GPU 0: x (in GPU 1) = 1; [fence;] r0 = y (in
 * GPU 0). T1 on GPU 1: y (in GPU 0) = 1; [fence;] r1 = x (in GPU 1).
 * r0 == r1 == 0 needs both stores in flight while both loads run: allowed
 * without fences (posted writes), forbidden with fence.sys.
 */
static void k_sb(void **args)
{
    uint32_t *mine = *(uint32_t **)args[0];    /* remote store target */
    uint32_t *other = *(uint32_t **)args[1];   /* local load */
    unsigned fence = *(unsigned *)args[2];
    uint32_t *out = *(uint32_t **)args[3];
    devapi_st_volatile_u32(mine, 1);
    if (fence) {
        devapi_fence(DEVAPI_SYS);
    }
    devapi_st_u32(out, devapi_ld_volatile_u32(other));
}

static unsigned sb_once(unsigned fence, sim_time_t skew)
{
    struct env e;
    env_open(&e);
    const void *k = p2psim_kernel_register("sb", k_sb, 4, mp_args);
    uint64_t x = VA(1, 0), y = VA(0, 0);
    uint64_t o0 = VA(0, 4096), o1 = VA(1, 4096);
    void *a0[] = { &x, &y, &fence, &o0 };
    void *a1[] = { &y, &x, &fence, &o1 };
    struct result r0, r1;
    launch(&e, 0, k, 1, 1, a0, 0, false, &r0);
    launch(&e, 1, k, 1, 1, a1, skew % SIM_NS(400), false, &r1);
    p2psim_run(e.p);
    ck_assert(r0.status == 0 && r1.status == 0);
    uint32_t v0, v1;
    p2psim_hbm_read(e.p, 0, 4096, &v0, 4);
    p2psim_hbm_read(e.p, 1, 4096, &v1, 4);
    env_close(&e);
    return v0 == 0 && v1 == 0;
}

START_TEST(test_litmus_store_buffering)
{
    unsigned both0[2] = { 0, 0 };
    for (unsigned fence = 0; fence < 2; fence++) {
        for (unsigned s = 0; s < LITMUS_SEEDS; s++) {
            both0[fence] += sb_once(fence, seed_skew(s));
        }
    }
    printf("litmus SB over %d seeds: r0=r1=0 without fence %u, with "
           "fence.sys %u\n", LITMUS_SEEDS, both0[0], both0[1]);
    ck_assert_uint_gt(both0[0], 0);
    ck_assert_uint_eq(both0[1], 0);
}
END_TEST

/*
 * Load buffering. T0 on GPU 0: r0 = x (GPU 1); y (GPU 1) = 1. T1 on GPU 1:
 * r1 = y; x = 1. r0 == r1 == 1 would need a load to see a store that
 * follows the other load in program order; a load here blocks its thread
 * until its data is back, so the model never produces it (fence or not).
 */
static void k_lb(void **args)
{
    uint32_t *ld = *(uint32_t **)args[0];
    uint32_t *st = *(uint32_t **)args[1];
    uint32_t *out = *(uint32_t **)args[3];
    uint32_t r = devapi_ld_volatile_u32(ld);
    devapi_st_volatile_u32(st, 1);
    devapi_st_u32(out, r);
}

START_TEST(test_litmus_load_buffering_never)
{
    unsigned both1 = 0;
    for (unsigned s = 0; s < LITMUS_SEEDS; s++) {
        struct env e;
        env_open(&e);
        const void *k = p2psim_kernel_register("lb", k_lb, 4, mp_args);
        uint64_t x = VA(1, 0), y = VA(1, 128);
        uint64_t o0 = VA(0, 4096), o1 = VA(1, 4096);
        unsigned zero = 0;
        void *a0[] = { &x, &y, &zero, &o0 };
        void *a1[] = { &y, &x, &zero, &o1 };
        struct result r0, r1;
        launch(&e, 0, k, 1, 1, a0, 0, false, &r0);
        launch(&e, 1, k, 1, 1, a1, seed_skew(s) % SIM_NS(3000), false, &r1);
        p2psim_run(e.p);
        uint32_t v0, v1;
        p2psim_hbm_read(e.p, 0, 4096, &v0, 4);
        p2psim_hbm_read(e.p, 1, 4096, &v1, 4);
        both1 += v0 == 1 && v1 == 1;
        env_close(&e);
    }
    printf("litmus LB over %d seeds: r0=r1=1 %u\n", LITMUS_SEEDS, both1);
    ck_assert_uint_eq(both1, 0);
}
END_TEST

/*
 * IRIW over three GPUs: GPU 0 writes x (its own memory), GPU 1 writes y
 * (its own); readers on GPU 2 (x then y) and GPU 4 (y then x, across the
 * socket link). Readers disagreeing on the order of the two writes (1,0 and
 * 1,0) needs a write visible to one reader and not yet to another; every
 * location has one home memory and loads complete in order, so the model
 * never shows it.
 */
static void k_iriw_w(void **args)
{
    devapi_st_volatile_u32(*(uint32_t **)args[0], 1);
}

static void k_iriw_r(void **args)
{
    uint32_t *a = *(uint32_t **)args[0];
    uint32_t *b = *(uint32_t **)args[1];
    uint32_t *out = *(uint32_t **)args[3];
    uint32_t ra = devapi_ld_volatile_u32(a);
    uint32_t rb = devapi_ld_volatile_u32(b);
    devapi_st_u32(out, ra << 1 | rb);
}

START_TEST(test_litmus_iriw_never)
{
    unsigned disagree = 0;
    for (unsigned s = 0; s < LITMUS_SEEDS; s++) {
        struct env e;
        env_open(&e);
        const void *w = p2psim_kernel_register("iriw_w", k_iriw_w, 4,
                                               mp_args);
        const void *r = p2psim_kernel_register("iriw_r", k_iriw_r, 4,
                                               mp_args);
        uint64_t x = VA(0, 0), y = VA(1, 0);
        uint64_t o2 = VA(2, 0), o4 = VA(4, 0);
        unsigned zero = 0;
        void *aw0[] = { &x, &x, &zero, &x };
        void *aw1[] = { &y, &y, &zero, &y };
        void *ar2[] = { &x, &y, &zero, &o2 };
        void *ar4[] = { &y, &x, &zero, &o4 };
        struct result q[4];
        sim_time_t sk = seed_skew(s);
        launch(&e, 2, r, 1, 1, ar2, 0, false, &q[0]);
        launch(&e, 4, r, 1, 1, ar4, sk % SIM_NS(1000), false, &q[1]);
        launch(&e, 0, w, 1, 1, aw0, sk % SIM_NS(1700), false, &q[2]);
        launch(&e, 1, w, 1, 1, aw1, sk % SIM_NS(2300), false, &q[3]);
        p2psim_run(e.p);
        uint32_t v2, v4;
        p2psim_hbm_read(e.p, 2, 0, &v2, 4);
        p2psim_hbm_read(e.p, 4, 0, &v4, 4);
        disagree += v2 == 2 && v4 == 2;  /* x=1,y=0 and y=1,x=0 */
        env_close(&e);
    }
    printf("litmus IRIW over %d seeds: readers disagree %u\n", LITMUS_SEEDS,
           disagree);
    ck_assert_uint_eq(disagree, 0);
}
END_TEST

Suite *make_kernel_suite(void)
{
    Suite *s = suite_create("kernel");
    TCase *tc = tcase_create("Memory");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_kernel_local_copy_is_exact);
    tcase_add_test(tc, test_kernel_peer_read_verifies_and_costs_round_trips);
    tcase_add_test(tc, test_kernel_host_memory_round_trip);
    tcase_add_test(tc, test_sm_nvlink_reads_beyond_pcie_tags);
    tcase_add_test(tc, test_sm_params_from_catalog_and_launch_latency);
    tcase_add_test(tc, test_kernel_illegal_address_faults);
    tcase_add_test(tc, test_kernel_ptx_block_that_cannot_start_ends_the_grid);
    tcase_add_test(tc, test_kernel_ptx_named_barriers);
    tcase_add_test(tc, test_kernel_concurrent_grids_share_sms);
    suite_add_tcase(s, tc);
    tc = tcase_create("Atomics");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_kernel_atomic_add_two_gpus_exact_total);
    tcase_add_test(tc, test_kernel_emulated_remote_atomics_exact);
    tcase_add_test(tc, test_kernel_atomics_without_atomicop_routing);
    tcase_add_test(tc, test_kernel_atom_apply_table);
    suite_add_tcase(s, tc);
    tc = tcase_create("Barriers");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_kernel_syncthreads_block_sum);
    tcase_add_test(tc, test_kernel_cooperative_grid_sync);
    suite_add_tcase(s, tc);
    tc = tcase_create("Litmus");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_litmus_message_passing);
    tcase_add_test(tc, test_litmus_store_buffering);
    tcase_add_test(tc, test_litmus_load_buffering_never);
    tcase_add_test(tc, test_litmus_iriw_never);
    suite_add_tcase(s, tc);
    return s;
}
