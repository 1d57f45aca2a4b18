/*
 * tests/check_oom.c - the allocation-failure sweep (sim/error.h, "Out of
 * memory"): a short run through libp2psim, repeated with its Nth
 * allocation failing for every N from 1 to the number of allocations the
 * run makes, each in a child process. Every run must end in one of two
 * ways: the failure is reported (an API call returns -SIM_ENOMEM, or the
 * simulation stops with "out of memory in <component> at <time>") or the
 * run completes with every result right (a failure that was recovered
 * from). A crash, an abort, a result missing without an error (a silent
 * drop) or, under ASan, a leak fails the test.
 *
 * The runs (scenarios): a machine with an NVLink bridge (a trace, event
 * log and counters; host <-> GPU, P2P and staged copies; a C kernel, a
 * PTX kernel, a fill; a flow-fidelity copy); a switch with ACS below a
 * translating IOMMU; two GPUs on NVSwitches; the event core alone on
 * the native engines and, where built, the SystemC one (far events, queue
 * rebuilds, events scheduled from events); and the PTX parser alone on a
 * module that takes each of its kinds of allocation (a failed parse must
 * say PTX_ENOMEM, a completed one give the module the parse without
 * failures gives).
 *
 * The hook: this runner is linked with -Wl,--wrap for the allocation
 * functions (tests/local.mk), so every call from sim/, models/, machine/ and
 * traces/ (linked statically as convenience libraries) comes through the
 * __wrap_ functions below, which count and fail the armed one.
 *
 * Environment: OOM_ONLY=N (with OOM_SCENARIO=K, 0 the first) fails
 * allocation N alone, in this process (for a debugger: break hook_hit);
 * OOM_VERBOSE=1 prints how each run ended; OOM_JOBS=N runs N children at
 * once (default 2); OOM_FULL=1 also fails the allocations that open the
 * second and third machines.
 */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "machine/include/p2psim_kernel.h"
#include "machine/kernel/kernel.h"
#include "machine/p2psim.h"
#include "ptx/ptx.h"
#include "sim/engine.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/sim.h"
#ifdef HAVE_SYSTEMC
#include "sim/systemc/engine_systemc.h"
#endif

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

/* A machine with NVLink P2P between its two GPUs: direct and staged
 * copies both happen on it. */
#define MACHINE P2PSIM_SRCDIR "/topologies/desktop-2x-rtx3090-nvlink.yaml"

/* ---- the hook -------------------------------------------------------------- */

static bool hook_on;            /* count (and maybe fail) allocations */
static long hook_count;         /* allocations seen while on */
static long hook_fail_at;       /* the one to fail (1-based); 0: none */
static bool hook_failed;        /* it was failed */
static long hook_opened;        /* allocations until the machine was open */

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
int __real_posix_memalign(void **p, size_t align, size_t n);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd,
                  off_t off);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
void *__wrap_aligned_alloc(size_t align, size_t n);
int __wrap_posix_memalign(void **p, size_t align, size_t n);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
                  off_t off);

/* Where the failed allocation is: a place for a debugger's breakpoint
 * (gdb -ex 'break hook_hit' with OOM_ONLY=N). */
void hook_hit(void);
void __attribute__((noinline)) hook_hit(void)
{
    __asm__ volatile("");
}

static bool hook_fail(void)
{
    if (!hook_on) {
        return false;
    }
    if (++hook_count == hook_fail_at) {
        hook_hit();
        hook_failed = true;
        errno = ENOMEM;
        return true;
    }
    return false;
}

void *__wrap_malloc(size_t n)
{
    return hook_fail() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
    return hook_fail() ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
    return hook_fail() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return hook_fail() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
    return hook_fail() ? NULL : __real_strndup(s, n);
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
    return hook_fail() ? NULL : __real_aligned_alloc(align, n);
}

int __wrap_posix_memalign(void **p, size_t align, size_t n)
{
    return hook_fail() ? ENOMEM : __real_posix_memalign(p, align, n);
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
                  off_t off)
{
    if ((flags & MAP_ANONYMOUS) && hook_fail()) {
        return MAP_FAILED;
    }
    return __real_mmap(addr, len, prot, flags, fd, off);
}

/* ---- the short run ------------------------------------------------------- */

#define LEN (256u << 10)        /* bytes per copy: a few staging chunks */
#define CHUNK (64u << 10)       /* staging chunk */
#define N_WORDS 256u            /* the kernel's elements */
#define VA_GPU_SHIFT 44
#define VA(g, x) (((uint64_t)(g) + 1) << VA_GPU_SHIFT | (uint64_t)(x))

/* How a run ended. */
struct outcome {
    const char *step;           /* the step that reported an error, or NULL */
    int code;                   /* its error */
    char msg[SIM_ERROR_MSG_MAX + 64];
};

struct done_box {
    int calls;
    int status;
    char msg[128];              /* a kernel's */
};

static void on_copy(void *arg, const struct p2psim_copy_result *r)
{
    struct done_box *b = arg;
    b->calls++;
    b->status = r->status;
}

static void on_kernel(void *arg, int status, const char *msg, sim_time_t t)
{
    struct done_box *b = arg;
    (void)t;
    b->calls++;
    b->status = status;
    snprintf(b->msg, sizeof(b->msg), "%s", msg ? msg : "");
}

static int resolve(void *arg, unsigned gpu, uint64_t va, uint64_t len,
                   struct p2psim_loc *loc)
{
    struct p2psim *p = arg;
    (void)gpu;
    uint64_t g = (va >> VA_GPU_SHIFT) - 1;
    uint64_t off = va & ((UINT64_C(1) << VA_GPU_SHIFT) - 1);
    if (g >= p2psim_gpu_count(p) || off + len > p2psim_hbm_size(p, g)) {
        return -1;
    }
    *loc = (struct p2psim_loc){ P2PSIM_DEVICE, (unsigned)g, off };
    return 0;
}

/* dst[i] = src[i] + 1 */
static void k_inc(void **args)
{
    uint32_t *dst = *(uint32_t **)args[0];
    const uint32_t *src = *(uint32_t **)args[1];
    unsigned i = devapi_global_id();
    if (i < N_WORDS) {
        devapi_st_u32(&dst[i], devapi_ld_u32(&src[i]) + 1);
    }
}

static const size_t inc_args[] = { 8, 8 };

/* Record an error of a step; true if there was one. */
static bool failed(struct outcome *o, const char *step, int rc,
                   const char *msg)
{
    if (rc >= 0) {
        return false;
    }
    o->step = step;
    o->code = rc;
    snprintf(o->msg, sizeof(o->msg), "%s", msg ? msg : "");
    return true;
}

/* An error of the simulation: the run's result and its failure. */
static bool run_failed(struct outcome *o, struct p2psim *p, const char *step,
                       int rc)
{
    const struct sim_error *f = sim_failure(p2psim_sim(p));
    if (rc >= 0 && !f) {
        return false;
    }
    if (rc >= 0) {
        o->step = step;
        o->code = 1; /* not an error code: the failure was not returned */
        snprintf(o->msg, sizeof(o->msg), "run returned %d with a failure "
                 "recorded: %s", rc, f->msg);
        return true;
    }
    return failed(o, step, rc, f ? f->msg : "(no failure recorded)");
}

static void check_status(struct outcome *o, const char *step,
                         const struct done_box *b, int status)
{
    if (!o->step && (b->calls != 1 || b->status != status)) {
        o->step = step;
        o->code = 1; /* not an error code: a silent drop */
        snprintf(o->msg, sizeof(o->msg), "completed %d times, status %d "
                 "(%s), without an error", b->calls, b->status, b->msg);
    }
}

static void check_copy(struct outcome *o, const char *step,
                       const struct done_box *b)
{
    check_status(o, step, b, 0);
}

/*
 * The short run: open a machine, host <-> GPU copies, a P2P copy, a staged
 * one, a kernel, then the flow fidelity's copy. Stops at the first error
 * (recorded in *o); fills *o->step with NULL when everything completed,
 * and checks the bytes then.
 */
static const void *kernel;      /* oom_inc, registered by main */

/* dst[tid] = src[tid] + 2; the branch to a label declared after its
 * use takes the parser's label path too */
static const char inc2_ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry inc2(\n.param .u64 inc2_dst,\n.param .u64 inc2_src\n)\n"
    "{\n.reg .b32 %r<4>;\n.reg .b64 %rd<6>;\n"
    "ld.param.u64 %rd1, [inc2_dst];\nld.param.u64 %rd2, [inc2_src];\n"
    "mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\n"
    "add.s64 %rd4, %rd2, %rd3;\nld.global.u32 %r2, [%rd4];\n"
    "add.s32 %r3, %r2, 2;\nadd.s64 %rd5, %rd1, %rd3;\n"
    "st.global.u32 [%rd5], %r3;\nbra done;\ndone:\nret;\n}\n";

#define PTX_WORDS 64u

/* The module of ptx_step, freed after the machine is closed (a grid
 * stopped mid-kernel holds its kernel until then). */
static struct ptx_module *ptx_mod;

/* Parse inc2, run it on gpu1 over the words at 0, check them at 4 MiB.
 * Returns -1 after an error (in *o). */
static int ptx_step(struct outcome *o, struct p2psim *p)
{
    struct ptx_error perr;
    memset(&perr, 0, sizeof(perr));
    struct ptx_module *m = ptx_module_parse(inc2_ptx, strlen(inc2_ptx),
                                            &perr);
    ptx_mod = m;
    if (!m) {
        failed(o, "ptx parse", perr.code == PTX_ENOMEM ? -SIM_ENOMEM
                                                       : -SIM_EINVAL,
               perr.msg);
        return -1;
    }
    const struct ptx_kernel *k = ptx_module_find(m, "inc2");
    const struct ptx_kernel_info *ki = k ? ptx_kernel_get_info(k) : NULL;
    uint8_t params[16];
    uint64_t dst = VA(1, 4u << 20), src = VA(1, 0);
    void *args[] = { &dst, &src };
    if (!ki || ki->param_bytes != sizeof(params)) {
        failed(o, "ptx kernel", -SIM_EINVAL, "inc2 not as written");
        return -1;
    }
    ptx_kernel_pack_params(k, args, params);
    struct done_box b;
    memset(&b, 0, sizeof(b));
    struct p2psim_launch l = {
        .gpu = 1, .grid = { 1, 1, 1 }, .block = { PTX_WORDS, 1, 1 },
        .pk = k, .param_buf = params, .param_bytes = sizeof(params),
        .static_smem = ki->shared_bytes,
        .resolve = resolve, .resolve_arg = p, .start_at = p2psim_now(p),
        .done = on_kernel, .done_arg = &b,
    };
    int rc = p2psim_kernel_launch(p, &l);
    if (failed(o, "ptx launch", rc, "")) {
        return -1;
    }
    rc = p2psim_run(p);
    if (run_failed(o, p, "run ptx kernel", rc)) {
        return -1;
    }
    check_copy(o, "ptx kernel", &b);
    uint32_t w[PTX_WORDS], v[PTX_WORDS];
    if (!o->step && (p2psim_hbm_read(p, 1, 0, w, sizeof(w)) != 0 ||
                     p2psim_hbm_read(p, 1, 4u << 20, v, sizeof(v)) != 0)) {
        o->step = "bytes";
        o->code = 1;
        snprintf(o->msg, sizeof(o->msg), "hbm_read failed");
    }
    for (unsigned i = 0; !o->step && i < PTX_WORDS; i++) {
        if (v[i] != w[i] + 2) {
            o->step = "bytes";
            o->code = 1;
            snprintf(o->msg, sizeof(o->msg), "ptx kernel: word %u wrong", i);
        }
    }
    return o->step ? -1 : 0;
}
static char tmp_dir[256];       /* the trace files' folder, made by main */

static void short_run(struct outcome *o)
{
    memset(o, 0, sizeof(*o));
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim_options opt = { .seed = 1 };
    uint8_t *in = malloc(LEN), *out = calloc(1, LEN);
    if (!in || !out) {
        abort(); /* the test's own memory: not counted */
    }
    for (unsigned i = 0; i < LEN; i++) {
        in[i] = (uint8_t)(i * 7 + (i >> 8));
    }
    hook_on = true;
    struct p2psim *p = p2psim_open(MACHINE, &opt, &err);
    if (!p) {
        failed(o, "open", -err.code, err.msg);
        if (err.code == 0) {
            o->code = -SIM_EINVAL; /* no code: reported as wrong below */
        }
        goto out;
    }
    p2psim_set_staging_chunk(p, CHUNK);
    /* a trace, an event log and counters, all the run long */
    char trace[320], events[320], counters[320];
    snprintf(trace, sizeof(trace), "%s/t%d.csv", tmp_dir, (int)getpid());
    snprintf(events, sizeof(events), "%s/e%d.txt", tmp_dir, (int)getpid());
    snprintf(counters, sizeof(counters), "%s/c%d.csv", tmp_dir,
             (int)getpid());
    struct p2psim_trace_options to = {
        .path = trace, .events_path = events, .counters_path = counters,
    };
    int rc = p2psim_trace_start(p, &to, &err);
    if (failed(o, "trace_start", rc, err.msg)) {
        goto close;
    }
    uint64_t bin = 0, bout = 0;
    rc = p2psim_host_register(p, in, LEN, 0, &bin);
    if (failed(o, "host_register", rc, "")) {
        goto close;
    }
    rc = p2psim_host_register(p, out, LEN, 0, &bout);
    if (failed(o, "host_register", rc, "")) {
        goto close;
    }
    struct p2psim_loc h_in = { P2PSIM_HOST, 0, bin };
    struct p2psim_loc h_out = { P2PSIM_HOST, 0, bout };
    struct p2psim_loc d0 = { P2PSIM_DEVICE, 0, 0 };
    struct p2psim_loc d1 = { P2PSIM_DEVICE, 1, 0 };
    struct p2psim_loc d1b = { P2PSIM_DEVICE, 1, 1u << 20 };
    struct done_box b[6];
    memset(b, 0, sizeof(b));
    /* host -> gpu0; gpu0 -> gpu1 directly and, without the peer flag,
     * staged through host memory */
    rc = p2psim_copy(p, &d0, &h_in, LEN, 0, 0, on_copy, &b[0]);
    if (failed(o, "copy h2d", rc, "")) {
        goto close;
    }
    if (run_failed(o, p, "run h2d", p2psim_run(p))) {
        goto close;
    }
    check_copy(o, "copy h2d", &b[0]);
    rc = p2psim_copy(p, &d1, &d0, LEN, P2PSIM_COPY_PEER, p2psim_now(p),
                     on_copy, &b[1]);
    if (failed(o, "copy p2p", rc, "")) {
        goto close;
    }
    rc = p2psim_copy(p, &d1b, &d0, LEN, 0, p2psim_now(p), on_copy, &b[2]);
    if (failed(o, "copy staged", rc, "")) {
        goto close;
    }
    if (run_failed(o, p, "run p2p + staged", p2psim_run(p))) {
        goto close;
    }
    check_copy(o, "copy p2p", &b[1]);
    check_copy(o, "copy staged", &b[2]);
    /* a kernel on gpu0: d0k[i] = d0[i] + 1 */
    uint64_t dst = VA(0, 2u << 20), src = VA(0, 0);
    void *args[] = { &dst, &src };
    struct p2psim_launch l = {
        .gpu = 0, .grid = { 2, 1, 1 }, .block = { 128, 1, 1 },
        .ck = p2psim_ckernel_find(kernel), .args = args,
        .resolve = resolve, .resolve_arg = p, .start_at = p2psim_now(p),
        .done = on_kernel, .done_arg = &b[3],
    };
    rc = p2psim_kernel_launch(p, &l);
    if (failed(o, "kernel launch", rc, "")) {
        goto close;
    }
    if (run_failed(o, p, "run kernel", p2psim_run(p))) {
        goto close;
    }
    check_copy(o, "kernel", &b[3]);
    /* a PTX kernel on gpu1: its parse and its warps' state swept too */
    rc = ptx_step(o, p);
    if (rc < 0) {
        goto close;
    }
    /* a fill of gpu0's HBM */
    rc = p2psim_fill(p, 0, 3u << 20, 0x5a, 4096, p2psim_now(p), on_copy,
                     &b[5]);
    if (failed(o, "fill", rc, "")) {
        goto close;
    }
    if (run_failed(o, p, "run fill", p2psim_run(p))) {
        goto close;
    }
    check_copy(o, "fill", &b[5]);
    uint8_t f[4096];
    if (!o->step && (p2psim_hbm_read(p, 0, 3u << 20, f, sizeof(f)) != 0 ||
                     f[0] != 0x5a || f[4095] != 0x5a)) {
        o->step = "bytes";
        o->code = 1;
        snprintf(o->msg, sizeof(o->msg), "fill: wrong bytes");
    }
    /* the flow fidelity: gpu1 -> host */
    rc = p2psim_set_fidelity(p, "flow", &err);
    if (failed(o, "set_fidelity", rc, err.msg)) {
        goto close;
    }
    rc = p2psim_copy(p, &h_out, &d1, LEN, 0, p2psim_now(p), on_copy, &b[4]);
    if (failed(o, "copy d2h (flow)", rc, "")) {
        goto close;
    }
    if (run_failed(o, p, "run d2h (flow)", p2psim_run(p))) {
        goto close;
    }
    check_copy(o, "copy d2h (flow)", &b[4]);
    if (!o->step && memcmp(in, out, LEN) != 0) {
        o->step = "bytes";
        o->code = 1;
        snprintf(o->msg, sizeof(o->msg), "gpu1 -> host: wrong bytes");
    }
    uint32_t w[N_WORDS], v[N_WORDS];
    if (!o->step && (p2psim_hbm_read(p, 0, 0, w, sizeof(w)) != 0 ||
                     p2psim_hbm_read(p, 0, 2u << 20, v, sizeof(v)) != 0)) {
        o->step = "bytes";
        o->code = 1;
        snprintf(o->msg, sizeof(o->msg), "hbm_read failed");
    }
    for (unsigned i = 0; !o->step && i < N_WORDS; i++) {
        if (v[i] != w[i] + 1) {
            o->step = "bytes";
            o->code = 1;
            snprintf(o->msg, sizeof(o->msg), "kernel: word %u wrong", i);
        }
    }
    rc = p2psim_trace_stop(p);
    if (!o->step && rc < 0) {
        failed(o, "trace_stop", rc, "");
    }
close:
    p2psim_close(p);
    ptx_module_free(ptx_mod);
    ptx_mod = NULL;
    unlink(trace);
    unlink(events);
    unlink(counters);
out:
    hook_on = false;
    free(in);
    free(out);
}

/* 0 when o is one of the two allowed endings (and says so on stderr). */
static int judge(const struct outcome *o, long n, bool verbose)
{
    if (!o->step) {
        if (verbose) {
            fprintf(stderr, "oom %ld: completed%s\n", n,
                    hook_failed ? " (recovered)" : "");
        }
        return 0;
    }
    if (o->code == -SIM_ENOMEM && strstr(o->msg, "out of memory in ")) {
        /* a run: the simulation stopped and says where and when */
        if (verbose) {
            fprintf(stderr, "oom %ld: %s: %s\n", n, o->step, o->msg);
        }
        return 0;
    }
    if (o->code == -SIM_ENOMEM && strncmp(o->step, "run", 3) != 0) {
        /* an API call's error code is its report */
        if (verbose) {
            fprintf(stderr, "oom %ld: %s: -SIM_ENOMEM\n", n, o->step);
        }
        return 0;
    }
    fprintf(stderr, "oom %ld: %s: code %d (%s): %s\n", n, o->step, o->code,
            o->code < 0 ? sim_err_name(o->code) : "not an error",
            o->msg[0] ? o->msg : "(no message)");
    return 1;
}

/*
 * Copies on another machine: host -> gpu0, gpu0 -> p2p_dst directly,
 * gpu0 -> staged_dst staged, staged_dst -> host; p2p_status is what the
 * direct copy ends with.
 */
#define C_LEN (64u << 10)       /* bytes per copy: two staging chunks */

struct copies {
    const char *file;
    unsigned p2p_dst, staged_dst;
    int p2p_status;
};

static void copies_run(struct outcome *o, const struct copies *c)
{
    memset(o, 0, sizeof(*o));
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim_options opt = { .seed = 1 };
    uint8_t *in = malloc(C_LEN), *out = calloc(1, C_LEN);
    if (!in || !out) {
        abort();
    }
    for (unsigned i = 0; i < C_LEN; i++) {
        in[i] = (uint8_t)(i * 13 + (i >> 9));
    }
    hook_on = true;
    struct p2psim *p = p2psim_open(c->file, &opt, &err);
    hook_opened = hook_count;
    if (!p) {
        failed(o, "open", err.code ? -err.code : -SIM_EINVAL, err.msg);
        goto out;
    }
    p2psim_set_staging_chunk(p, C_LEN / 2);
    uint64_t bin = 0, bout = 0;
    int rc = p2psim_host_register(p, in, C_LEN, 0, &bin);
    if (failed(o, "host_register", rc, "")) {
        goto close;
    }
    rc = p2psim_host_register(p, out, C_LEN, 0, &bout);
    if (failed(o, "host_register", rc, "")) {
        goto close;
    }
    struct p2psim_loc h_in = { P2PSIM_HOST, 0, bin };
    struct p2psim_loc h_out = { P2PSIM_HOST, 0, bout };
    struct p2psim_loc d0 = { P2PSIM_DEVICE, 0, 0 };
    struct p2psim_loc d1 = { P2PSIM_DEVICE, c->p2p_dst, 0 };
    struct p2psim_loc d2 = { P2PSIM_DEVICE, c->staged_dst, 1u << 20 };
    struct done_box b[4];
    memset(b, 0, sizeof(b));
    rc = p2psim_copy(p, &d0, &h_in, C_LEN, 0, 0, on_copy, &b[0]);
    if (failed(o, "copy h2d", rc, "")) {
        goto close;
    }
    if (run_failed(o, p, "run h2d", p2psim_run(p))) {
        goto close;
    }
    check_copy(o, "copy h2d", &b[0]);
    rc = p2psim_copy(p, &d1, &d0, C_LEN, P2PSIM_COPY_PEER, p2psim_now(p),
                     on_copy, &b[1]);
    if (failed(o, "copy p2p", rc, "")) {
        goto close;
    }
    rc = p2psim_copy(p, &d2, &d0, C_LEN, 0, p2psim_now(p), on_copy, &b[2]);
    if (failed(o, "copy staged", rc, "")) {
        goto close;
    }
    if (run_failed(o, p, "run p2p + staged", p2psim_run(p))) {
        goto close;
    }
    check_status(o, "copy p2p", &b[1], c->p2p_status);
    check_copy(o, "copy staged", &b[2]);
    rc = p2psim_copy(p, &h_out, &d2, C_LEN, 0, p2psim_now(p), on_copy, &b[3]);
    if (failed(o, "copy d2h", rc, "")) {
        goto close;
    }
    if (run_failed(o, p, "run d2h", p2psim_run(p))) {
        goto close;
    }
    check_copy(o, "copy d2h", &b[3]);
    if (!o->step && memcmp(in, out, C_LEN) != 0) {
        o->step = "bytes";
        o->code = 1;
        snprintf(o->msg, sizeof(o->msg), "staged copy: wrong bytes");
    }
close:
    p2psim_close(p);
out:
    hook_on = false;
    free(in);
    free(out);
}

/* A switch with ACS below a root complex with a translating IOMMU: host
 * copies are translated; the peers' BAR1 windows are not mapped in the
 * IOMMU, so the P2P writes fault (modelled: the copy's -SIM_EIO). */
static void switch_run(struct outcome *o)
{
    static const struct copies c = {
        P2PSIM_SRCDIR "/topologies/teaching-acs-iommu.yaml", 1, 2, -SIM_EIO,
    };
    copies_run(o, &c);
}

/* Two H200s on NVSwitches: P2P over NVLink through the switch trays, with
 * the links' power states. */
static void nvswitch_run(struct outcome *o)
{
    static const struct copies c = {
        P2PSIM_SRCDIR "/topologies/hgx-h200-x2.yaml", 1, 1, 0,
    };
    copies_run(o, &c);
}

/* ---- the event core alone ----------------------------------------------- */

/*
 * Events spread from 1 ns to 4 ms, many beyond the calendar queue's
 * window (its far heap grows, the queue is rebuilt as it fills and
 * empties), a third of them scheduling a follow-up from inside the run.
 */
#define N_EVENTS 3000u

struct ev_box {
    struct sim_event ev;
    sim_time_t when;
    bool again;
};

static struct ev_box *ev_boxes;
static unsigned ev_fired;
static sim_time_t ev_last;
static bool ev_wrong;

static void ev_fire(struct sim *sim, struct sim_event *ev)
{
    struct ev_box *b = SIM_CONTAINER_OF(ev, struct ev_box, ev);
    if (sim_now(sim) != b->when || b->when < ev_last) {
        ev_wrong = true;
    }
    ev_last = b->when;
    ev_fired++;
    if (b->again) {
        b->again = false;
        b->when = sim_now(sim) + SIM_US(50) + (b->when % 977) * 1000;
        sim_event_schedule_at(sim, &b->ev, b->when);
    }
}

static void events_run(struct outcome *o, const struct sim_engine_ops *eng)
{
    memset(o, 0, sizeof(*o));
    ev_fired = 0;
    ev_last = 0;
    ev_wrong = false;
    unsigned expected = 0;
    for (unsigned i = 0; i < N_EVENTS; i++) {
        struct ev_box *b = &ev_boxes[i];
        sim_event_init(&b->ev, ev_fire);
        uint64_t k = (uint64_t)i * 7919 % N_EVENTS;
        b->when = i % 3 == 0 ? k * SIM_NS(1333) : k * 1000 + 1000;
        b->again = i % 3 == 1;
        expected += b->again ? 2 : 1;
    }
    struct sim_error err;
    sim_error_clear(&err);
    struct sim_config cfg = { .engine = eng, .seed = 1 };
    hook_on = true;
    struct sim *sim = sim_create(&cfg, &err);
    if (!sim) {
        failed(o, "sim_create", -err.code, err.msg);
        goto out;
    }
    for (unsigned i = 0; i < N_EVENTS; i++) {
        sim_event_schedule_at(sim, &ev_boxes[i].ev, ev_boxes[i].when);
    }
    int rc = sim_run(sim);
    const struct sim_error *f = sim_failure(sim);
    if (rc < 0 || f) {
        failed(o, "run events", rc < 0 ? rc : 1,
               f ? f->msg : "(no failure recorded)");
    } else if (ev_wrong || ev_fired != expected) {
        o->step = "events";
        o->code = 1;
        snprintf(o->msg, sizeof(o->msg), "%u of %u events fired%s, without "
                 "an error", ev_fired, expected,
                 ev_wrong ? ", some out of order or at the wrong time" : "");
    }
    sim_destroy(sim);
out:
    hook_on = false;
}

static void events_calendar(struct outcome *o)
{
    events_run(o, &sim_engine_native);
}

static void events_heap(struct outcome *o)
{
    events_run(o, &sim_engine_native_heap);
}

#ifdef HAVE_SYSTEMC
static void events_systemc(struct outcome *o)
{
    events_run(o, &sim_engine_systemc);
}
#endif

/* ---- the PTX parser alone ---------------------------------------------- */

/*
 * A module that takes every kind of allocation the parser makes: module
 * variables (an initializer past the first buffer), more parameters,
 * register declarations, labels and instructions than the first arrays
 * hold, kernel .shared and .local, addresses of symbols, a skipped
 * .func, and a kernel with an unsupported instruction (a trap whose
 * message is an owned string). Built once, with the hook off.
 */
#define PTX_MANY 24u            /* params, .reg lines, labels */

static char *many_ptx;
static size_t many_len;

static void many_put(size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void many_put(size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(many_ptx + many_len, cap - many_len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - many_len) {
        abort(); /* the test's own buffer */
    }
    many_len += (size_t)n;
}

static void many_build(void)
{
    size_t cap = 16u << 10;
    many_ptx = malloc(cap);
    if (!many_ptx) {
        abort();
    }
    many_len = 0;
    many_put(cap, ".version 8.0\n.target sm_90\n.address_size 64\n"
             ".global .align 4 .b8 g_init[100] = {0");
    for (unsigned i = 1; i < 100; i++) {
        many_put(cap, ", %u", i);
    }
    many_put(cap, "};\n.global .align 8 .u64 g_zero;\n"
             ".const .align 4 .u32 c_one = 1;\n"
             ".func helper()\n{\nret;\n}\n"
             ".visible .entry many(\n");
    for (unsigned i = 0; i < PTX_MANY; i++) {
        many_put(cap, ".param .u64 many_p%u%s\n", i,
                 i + 1 < PTX_MANY ? "," : "");
    }
    many_put(cap, ")\n{\n.reg .pred %%p<2>;\n.reg .b64 %%rd<4>;\n");
    for (unsigned i = 0; i < PTX_MANY; i++) {
        many_put(cap, ".reg .b32 %%ra%u_<3>;\n", i);
    }
    many_put(cap, ".shared .align 4 .b8 s_buf[64];\n"
             ".local .align 8 .b8 l_buf[16];\n"
             "ld.param.u64 %%rd1, [many_p%u];\n"
             "setp.eq.u64 %%p1, %%rd1, 0;\n", PTX_MANY - 1);
    for (unsigned i = 0; i < PTX_MANY; i++) {
        /* each label is used before it is declared */
        many_put(cap, "add.s32 %%ra%u_1, %%ra%u_2, %u;\n@%%p1 bra L%u;\n"
                 "L%u:\n", i, i, i, i, i);
    }
    many_put(cap, "ld.shared.u32 %%ra0_1, [s_buf+4];\n"
             "st.local.u32 [l_buf+8], %%ra0_1;\n"
             "ld.global.u32 %%ra1_1, [g_init+4];\n"
             "ld.const.u32 %%ra2_1, [c_one];\n"
             "st.global.u64 [%%rd1], %%rd1;\nret;\n}\n"
             ".visible .entry odd(\n.param .u32 odd_n\n)\n{\n"
             ".reg .b32 %%r<4>;\nld.param.u32 %%r1, [odd_n];\n"
             "brkpt;\nret;\n}\n");
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 1099511628211u;
    }
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    return fnv(h, s ? s : "(null)", strlen(s ? s : "(null)") + 1);
}

#define FNV_VAL(h, v)                                                        \
    do {                                                                     \
        uint64_t v_ = (uint64_t)(v);                                         \
        (h) = fnv((h), &v_, sizeof(v_));                                     \
    } while (0)

/* What a caller sees of m: kernels (their layout, counts and whether
 * they run, with the reason) and variables (with their bytes). */
static uint64_t module_print(const struct ptx_module *m)
{
    uint64_t h = 14695981039346656037u;
    FNV_VAL(h, ptx_module_kernel_count(m));
    for (unsigned i = 0; i < ptx_module_kernel_count(m); i++) {
        const struct ptx_kernel *k = ptx_module_kernel(m, i);
        const struct ptx_kernel_info *ki = ptx_kernel_get_info(k);
        h = fnv_str(h, ki->name);
        FNV_VAL(h, ki->n_params);
        for (unsigned j = 0; j < ki->n_params; j++) {
            h = fnv_str(h, ki->params[j].name);
            FNV_VAL(h, ki->params[j].size_bytes);
            FNV_VAL(h, ki->params[j].offset_bytes);
        }
        FNV_VAL(h, ki->param_bytes);
        FNV_VAL(h, ki->shared_bytes);
        FNV_VAL(h, ki->local_bytes);
        FNV_VAL(h, ki->n_insns);
        FNV_VAL(h, ki->uses_global_symbols);
        struct ptx_error e;
        memset(&e, 0, sizeof(e));
        FNV_VAL(h, ptx_kernel_check(k, &e));
        h = fnv_str(h, e.msg);
    }
    FNV_VAL(h, ptx_module_var_count(m));
    for (unsigned i = 0; i < ptx_module_var_count(m); i++) {
        const struct ptx_var_info *v = ptx_module_var(m, i);
        h = fnv_str(h, v->name);
        FNV_VAL(h, v->space);
        FNV_VAL(h, v->size_bytes);
        FNV_VAL(h, v->init_bytes);
        if (v->init) {
            h = fnv(h, v->init, v->init_bytes);
        }
    }
    return h;
}

/* The module parsed with the hook off, then with it on: the same module
 * or PTX_ENOMEM. The reference must hold the two kernels, both runnable
 * (odd's unsupported instruction fails only the warps reaching it). */
static void ptx_parse_run(struct outcome *o)
{
    memset(o, 0, sizeof(*o));
    struct ptx_error perr;
    memset(&perr, 0, sizeof(perr));
    struct ptx_module *ref = ptx_module_parse(many_ptx, many_len, &perr);
    const struct ptx_kernel *many = ref ? ptx_module_find(ref, "many") : NULL;
    const struct ptx_kernel *odd = ref ? ptx_module_find(ref, "odd") : NULL;
    if (!many || !odd || ptx_kernel_check(many, &perr) != 0 ||
        ptx_kernel_check(odd, NULL) != 0) {
        o->step = "ptx reference";
        o->code = 1;
        snprintf(o->msg, sizeof(o->msg), "the module is not as written: %s",
                 perr.msg);
        ptx_module_free(ref);
        return;
    }
    uint64_t want = module_print(ref);
    ptx_module_free(ref);
    memset(&perr, 0, sizeof(perr));
    hook_on = true;
    struct ptx_module *m = ptx_module_parse(many_ptx, many_len, &perr);
    hook_on = false;
    if (!m) {
        failed(o, "ptx parse", perr.code == PTX_ENOMEM ? -SIM_ENOMEM
                                                       : -SIM_EINVAL,
               perr.msg);
        if (perr.code == PTX_ENOMEM && !strstr(perr.msg, "out of memory")) {
            o->code = 1;
        }
        return;
    }
    if (module_print(m) != want) {
        o->step = "ptx module";
        o->code = 1;
        snprintf(o->msg, sizeof(o->msg), "parsed differently, without an "
                 "error");
    }
    ptx_module_free(m);
}

/* ---- the sweep ----------------------------------------------------------- */

/* after_open: unless OOM_FULL is set, only the allocations after the
 * machine is open are failed (opening is swept with the first machine;
 * the whole sweep takes three times as long). */
static const struct scenario {
    const char *name;
    void (*run)(struct outcome *o);
    bool after_open;
} scenarios[] = {
    { "machine", short_run, false },
    { "switch and IOMMU", switch_run, true },
    { "NVSwitch", nvswitch_run, true },
    { "events (calendar queue)", events_calendar, false },
    { "events (heap)", events_heap, false },
    { "PTX parse", ptx_parse_run, false },
#ifdef HAVE_SYSTEMC
    { "events (SystemC)", events_systemc, false },
#endif
};

#define N_SCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

/* The child's part: run s with allocation fail_at failing (0: none),
 * write its allocation count to fd, exit 0 (right), 2 (wrong). */
static void child(const struct scenario *s, long fail_at, bool verbose,
                  int fd)
{
    struct outcome o;
    hook_count = 0;
    hook_fail_at = fail_at;
    s->run(&o);
    int bad = judge(&o, fail_at, verbose);
    if (fail_at == 0 && o.step) {
        bad = 1;
        fprintf(stderr, "oom: %s: the run fails without an allocation "
                "failure\n", s->name);
    }
    if (fail_at && !hook_failed) {
        fprintf(stderr, "oom %ld: the run made fewer allocations (%ld) than "
                "the first time\n", fail_at, hook_count);
        bad = 1;
    }
    if (fd >= 0) {
        long n[2] = { hook_count, hook_opened };
        ssize_t w = write(fd, n, sizeof(n));
        bad |= w != (ssize_t)sizeof(n);
        close(fd);
    }
    exit(bad ? 2 : 0);
}

/* 0 if a child ended well; says why not on stderr. */
static int verdict(const struct scenario *s, long fail_at, int st)
{
    if (WIFSIGNALED(st)) {
        fprintf(stderr, "oom %ld: %s: killed by signal %d\n", fail_at,
                s->name, WTERMSIG(st));
        return 1;
    }
    if (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 2) {
        fprintf(stderr, "oom %ld: %s: exit status %d (a leak, under ASan)\n",
                fail_at, s->name, WEXITSTATUS(st));
    }
    return WEXITSTATUS(st) != 0;
}

static pid_t spawn(const struct scenario *s, long fail_at, bool verbose,
                   int fd)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(EXIT_FAILURE);
    }
    if (pid == 0) {
        child(s, fail_at, verbose, fd);
    }
    return pid;
}

/* The allocations of s, counted in a child as every run is made: what
 * the libraries set up once (caches) is set up in every child again.
 * -1 if the run fails without a failed allocation. */
static long count(const struct scenario *s, bool verbose, long *opened)
{
    int fd[2];
    if (pipe(fd) < 0) {
        perror("pipe");
        exit(EXIT_FAILURE);
    }
    pid_t pid = spawn(s, 0, verbose, fd[1]);
    close(fd[1]);
    long n[2] = { -1, 0 };
    if (read(fd[0], n, sizeof(n)) != (ssize_t)sizeof(n)) {
        n[0] = -1;
    }
    close(fd[0]);
    int st;
    if (waitpid(pid, &st, 0) < 0 || verdict(s, 0, st)) {
        return -1;
    }
    *opened = n[1];
    return n[0];
}

#define MAX_JOBS 16

static int sweep(void);

int main(void)
{
    kernel = p2psim_kernel_register("oom_inc", k_inc, 2, inc_args);
    ev_boxes = calloc(N_EVENTS, sizeof(*ev_boxes));
    many_build();
    if (!kernel || !ev_boxes) {
        return EXIT_FAILURE;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(tmp_dir, sizeof(tmp_dir), "%s/check_oom.XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    int status = sweep();
    rmdir(tmp_dir);
    return status;
}

static int sweep(void)
{
    bool verbose = getenv("OOM_VERBOSE") != NULL;
    bool full = getenv("OOM_FULL") != NULL;
    const char *only = getenv("OOM_ONLY");
    const char *which = getenv("OOM_SCENARIO");
    if (only) {
        /* in this process, for a debugger: scenario OOM_SCENARIO (0..) */
        struct outcome o;
        unsigned k = which ? (unsigned)strtoul(which, NULL, 10) : 0;
        if (k >= N_SCENARIOS) {
            return EXIT_FAILURE;
        }
        hook_fail_at = strtol(only, NULL, 10);
        scenarios[k].run(&o);
        return judge(&o, hook_fail_at, true) ? EXIT_FAILURE : EXIT_SUCCESS;
    }
    /* Children at once: OOM_JOBS, default 2 (the runs are independent). */
    const char *j = getenv("OOM_JOBS");
    unsigned jobs = j ? (unsigned)strtoul(j, NULL, 10) : 2;
    jobs = jobs < 1 ? 1 : jobs > MAX_JOBS ? MAX_JOBS : jobs;
    long bad = 0;
    for (unsigned k = 0; k < N_SCENARIOS; k++) {
        const struct scenario *s = &scenarios[k];
        long opened = 0;
        long total = count(s, verbose, &opened);
        if (total < 0) {
            return EXIT_FAILURE;
        }
        long next = s->after_open && !full ? opened + 1 : 1;
        printf("oom: %s: %ld allocations, failing each in turn from "
               "allocation %ld\n", s->name, total, next);
        long bad_here = 0, first = next;
        struct { pid_t pid; long n; } run[MAX_JOBS];
        unsigned n_run = 0;
        while (next <= total || n_run > 0) {
            if (next <= total && n_run < jobs) {
                run[n_run].n = next;
                run[n_run++].pid = spawn(s, next++, verbose, -1);
                continue;
            }
            int st;
            pid_t pid = waitpid(-1, &st, 0);
            if (pid < 0) {
                perror("waitpid");
                return EXIT_FAILURE;
            }
            for (unsigned i = 0; i < n_run; i++) {
                if (run[i].pid == pid) {
                    bad_here += verdict(s, run[i].n, st);
                    run[i] = run[--n_run];
                    break;
                }
            }
        }
        printf("oom: %s: %ld of %ld handled wrongly\n", s->name, bad_here,
               total - first + 1);
        bad += bad_here;
    }
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
