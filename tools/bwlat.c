/*
 * tools/bwlat.c - p2pBandwidthLatencyTest's measurements, made through the
 * CUDA runtime API (shared/reference/cuda-api.md §1.7), and the single
 * quantities of p2psim sweep, made the same way. Runs in a child process
 * that has the runtime loaded (bwlat_job.c); every CUDA call goes through
 * the table struct bwlat_cuda.
 *
 * As the sample measures: per GPU two buffers, a non-blocking stream (two
 * for the bidirectional matrices) and start and stop events; every copy is
 * a cudaMemcpyPeerAsync. Unidirectional: 5 copies of numElems ints on GPU
 * i's stream, i -> j (P2P writes) or j -> i (--p2p_read), within GPU i on
 * the diagonal (bytes counted twice there, read and write). Bidirectional:
 * 5 copies each way at once, i -> j on GPU i's first stream and j -> i on
 * GPU j's second, each waiting for the other's start or stop event.
 * Latency: 100 copies of one int4 (16 bytes). With --sm_copy each peer
 * copy where peer access was granted is a launch of copyp2p (below).
 * P2P=Enabled: where cudaDeviceCanAccessPeer(i, j) says 1, peer access is
 * enabled both ways for the cell and disabled after it; elsewhere the
 * copies are staged, as with P2P=Disabled.
 *
 * Where it differs from the sample: the host's queuing is kept out of the
 * interval by a gate of host functions, not a spinning kernel ("the
 * gate"); the CPU latency is read on the simulated host's clock, not a
 * stopwatch ("one timed run"); buffers are not zeroed with cudaMemset
 * (their contents do not change the timing, and the simulator would have
 * to write every byte).
 */
#include <config.h>

#include "tools/bwlat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/bwlat_int.h"

#define BW_REPEAT 5                 /* the sample's repetitions */
#define LAT_REPEAT 100
#define LAT_BYTES 16                /* one int4 */
#define GATE_FIRST_CALLS 16u        /* host functions in a new chain */
#define GATE_MAX_CALLS 65536u
#define COPY_UNROLL 5               /* copyp2p's #pragma unroll(5) */
#define INT4_BYTES 16

enum gate_kind { GATE_UNI, GATE_BIDIR, GATE_LAT, GATE_PROBE, GATE_N };

/* What every measurement shares; arrays are per GPU. */
struct ctx {
    const struct bwlat_cuda *cu;
    struct bwlat_result *res;
    int n;
    cudaStream_t *s0, *s1, *gate, *clock;
    cudaEvent_t *open, *start, *stop, *clk_a, *clk_b;
    float *record_ms;               /* one event record on a clock stream */
    void **buf, **buf2;             /* buf_bytes each */
    size_t buf_bytes;
    void *host;                     /* pinned, host_bytes */
    size_t host_bytes;
    const void *copy_kernel;        /* copyp2p; NULL without --sm_copy */
    int *copy_grid, *copy_block;    /* per GPU, from the occupancy */
    unsigned gate_calls[GATE_N];
    bool gate_warned;
    char where[96];                 /* what is being measured, for errors */
};

/* ---- failing ------------------------------------------------------------- */

#define CHECK(c, call) check((c), (call), #call, __LINE__)

/* "cu->cudaSetDevice(d)" as "cudaSetDevice(d)". */
static const char *call_name(const char *what)
{
    const char *p = strstr(what, "cuda");
    return p ? p : what;
}

/* A failed call ends the measurement: the child sends the error. */
static void check(const struct ctx *c, cudaError_t e, const char *what,
                  int line)
{
    if (e == cudaSuccess) {
        return;
    }
    snprintf(c->res->error, sizeof(c->res->error),
             "%s%sCUDA call failed: %s: %s (error %d, tools/bwlat.c:%d)",
             c->where, c->where[0] ? ": " : "", call_name(what),
             c->cu->cudaGetErrorString(e), (int)e, line);
    c->res->status = 1;
    longjmp(*c->cu->fail, 1);
}

static void *xcalloc(const struct ctx *c, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        snprintf(c->res->error, sizeof(c->res->error), "out of memory");
        c->res->status = 1;
        longjmp(*c->cu->fail, 1);
    }
    return p;
}

/* ---- the copy kernel (--sm_copy) ------------------------------------------ */

/*
 * The sample's copyp2p(int4 *dest, const int4 *src, size_t num_elems) as
 * a C kernel: a grid-stride copy of 16-byte elements. The sample's loop
 * carries #pragma unroll(5) and __restrict__ pointers, so its compiled
 * form loads up to five elements before storing them; so does this one.
 * The fourth argument is the runtime's table: the device API is reached
 * through the dlopened shim, not linked. The child's runtime has the
 * machine in its process (P2PSIM_SERVER unset), where C kernels run.
 */
static void copyp2p(void **args)
{
    unsigned char *dst = *(unsigned char **)args[0];
    const unsigned char *src = *(const unsigned char **)args[1];
    size_t n = *(const size_t *)args[2];
    const struct bwlat_cuda *cu = *(const struct bwlat_cuda **)args[3];
    struct devapi_dim3 t = cu->devapi_thread_idx(), b = cu->devapi_block_idx();
    struct devapi_dim3 bd = cu->devapi_block_dim(), gd = cu->devapi_grid_dim();
    size_t stride = (size_t)bd.x * gd.x;
    unsigned char v[COPY_UNROLL][INT4_BYTES];
    for (size_t i = (size_t)b.x * bd.x + t.x; i < n;
         i += COPY_UNROLL * stride) {
        unsigned k = 0;
        for (; k < COPY_UNROLL && i + k * stride < n; k++) {
            cu->devapi_load(v[k], src + (i + k * stride) * INT4_BYTES,
                            INT4_BYTES, DEVAPI_WEAK, DEVAPI_GPU);
        }
        for (unsigned m = 0; m < k; m++) {
            cu->devapi_store(dst + (i + m * stride) * INT4_BYTES, v[m],
                             INT4_BYTES, DEVAPI_WEAK, DEVAPI_GPU);
        }
    }
}

static int dev_attr(struct ctx *c, enum cudaDeviceAttr attr, int d)
{
    int v = 0;
    CHECK(c, c->cu->cudaDeviceGetAttribute(&v, attr, d));
    return v;
}

/*
 * The sample's launch shape, from cudaOccupancyMaxPotentialBlockSize (an
 * inline template of the CUDA headers): the largest block, in whole warps,
 * that gives the most resident threads per SM; the grid is that many
 * blocks per SM on every SM. The shim serves occupancy queries for nvcc
 * kernels only, and a C kernel uses no registers or shared memory, so the
 * SM's thread and block limits decide, as for the real copyp2p, whose few
 * registers do not bind: 1024 threads, two blocks per SM on an H200 or a
 * V100 (2048 threads per SM).
 */
static void copy_shape(struct ctx *c, int d)
{
    int max_block = dev_attr(c, cudaDevAttrMaxThreadsPerBlock, d);
    int sm_threads = dev_attr(c, cudaDevAttrMaxThreadsPerMultiProcessor, d);
    int sm_blocks = dev_attr(c, cudaDevAttrMaxBlocksPerMultiprocessor, d);
    int sms = dev_attr(c, cudaDevAttrMultiProcessorCount, d);
    int warp = dev_attr(c, cudaDevAttrWarpSize, d);
    int best = 0, best_blocks = 0, best_size = 0;
    if (warp <= 0) {
        warp = 1;
    }
    for (int size = max_block / warp * warp; size > 0 && best < sm_threads;
         size -= warp) {
        int blocks = sm_threads / size;
        if (blocks > sm_blocks) {
            blocks = sm_blocks;
        }
        if (blocks * size > best) {
            best = blocks * size;
            best_blocks = blocks;
            best_size = size;
        }
    }
    if (best == 0 || sms <= 0) {
        snprintf(c->res->error, sizeof(c->res->error),
                 "GPU %d: the copy kernel fits no block on an SM", d);
        c->res->status = 1;
        longjmp(*c->cu->fail, 1);
    }
    c->copy_grid[d] = best_blocks * sms;
    c->copy_block[d] = best_size;
}

static void copy_kernel_setup(struct ctx *c)
{
    static const size_t sizes[] = { sizeof(void *), sizeof(void *),
                                    sizeof(size_t), sizeof(void *) };
    const struct bwlat_cuda *cu = c->cu;
    if (!cu->p2psim_kernel_register) {
        snprintf(c->res->error, sizeof(c->res->error),
                 "--sm_copy needs p2psim's CUDA runtime (C kernels); this "
                 "one has no p2psim_kernel_register");
        c->res->status = 1;
        longjmp(*c->cu->fail, 1);
    }
    c->copy_kernel = cu->p2psim_kernel_register("copyp2p", copyp2p, 4, sizes);
    if (!c->copy_kernel) {
        snprintf(c->res->error, sizeof(c->res->error),
                 "cannot register the copy kernel");
        c->res->status = 1;
        longjmp(*c->cu->fail, 1);
    }
    c->copy_grid = xcalloc(c, (size_t)c->n, sizeof(*c->copy_grid));
    c->copy_block = xcalloc(c, (size_t)c->n, sizeof(*c->copy_block));
    for (int d = 0; d < c->n; d++) {
        copy_shape(c, d);
    }
}

/* One copyp2p of `bytes` from src to dst on stream s of GPU d. */
static void launch_copy(struct ctx *c, void *dst, const void *src,
                        size_t bytes, int d, cudaStream_t s)
{
    const struct bwlat_cuda *cu = c->cu;
    size_t n = bytes / INT4_BYTES;
    void *args[] = { &dst, &src, &n, &cu };
    dim3 grid = { (unsigned)c->copy_grid[d], 1, 1 };
    dim3 block = { (unsigned)c->copy_block[d], 1, 1 };
    CHECK(c, cu->cudaLaunchKernel(c->copy_kernel, grid, block, args, 0, s));
}

/* ---- set-up -------------------------------------------------------------- */

static void CUDART_CB gate_noop(void *arg)
{
    (void)arg;
}

static void streams_create(struct ctx *c, cudaStream_t **s)
{
    *s = xcalloc(c, (size_t)c->n, sizeof(**s));
    for (int d = 0; d < c->n; d++) {
        CHECK(c, c->cu->cudaSetDevice(d));
        CHECK(c, c->cu->cudaStreamCreateWithFlags(&(*s)[d],
                                                  cudaStreamNonBlocking));
    }
}

static void events_create(struct ctx *c, cudaEvent_t **e, unsigned flags)
{
    *e = xcalloc(c, (size_t)c->n, sizeof(**e));
    for (int d = 0; d < c->n; d++) {
        CHECK(c, c->cu->cudaSetDevice(d));
        CHECK(c, c->cu->cudaEventCreateWithFlags(&(*e)[d], flags));
    }
}

/* The host time of one cudaEventRecord on GPU d's clock stream. */
static float record_cost_ms(struct ctx *c, int d)
{
    float ms = 0;
    CHECK(c, c->cu->cudaSetDevice(d));
    CHECK(c, c->cu->cudaEventRecord(c->clk_a[d], c->clock[d]));
    CHECK(c, c->cu->cudaEventRecord(c->clk_b[d], c->clock[d]));
    CHECK(c, c->cu->cudaStreamSynchronize(c->clock[d]));
    CHECK(c, c->cu->cudaEventElapsedTime(&ms, c->clk_a[d], c->clk_b[d]));
    return ms;
}

static void setup(struct ctx *c, size_t buf_bytes, size_t host_bytes)
{
    streams_create(c, &c->s0);
    streams_create(c, &c->s1);
    streams_create(c, &c->gate);
    streams_create(c, &c->clock);
    events_create(c, &c->open, cudaEventDisableTiming);
    events_create(c, &c->start, cudaEventDefault);
    events_create(c, &c->stop, cudaEventDefault);
    events_create(c, &c->clk_a, cudaEventDefault);
    events_create(c, &c->clk_b, cudaEventDefault);
    c->record_ms = xcalloc(c, (size_t)c->n, sizeof(*c->record_ms));
    c->buf = xcalloc(c, (size_t)c->n, sizeof(*c->buf));
    c->buf2 = xcalloc(c, (size_t)c->n, sizeof(*c->buf2));
    c->buf_bytes = buf_bytes;
    for (int d = 0; d < c->n; d++) {
        CHECK(c, c->cu->cudaSetDevice(d));
        CHECK(c, c->cu->cudaMalloc(&c->buf[d], buf_bytes));
        CHECK(c, c->cu->cudaMalloc(&c->buf2[d], buf_bytes));
        c->record_ms[d] = record_cost_ms(c, d);
    }
    if (host_bytes) {
        c->host_bytes = host_bytes;
        CHECK(c, c->cu->cudaMallocHost(&c->host, host_bytes));
    }
    for (int k = 0; k < GATE_N; k++) {
        c->gate_calls[k] = GATE_FIRST_CALLS;
    }
}

static void describe_gpus(struct ctx *c)
{
    struct bwlat_result *r = c->res;
    r->gpu = xcalloc(c, (size_t)c->n, sizeof(*r->gpu));
    r->can_access = xcalloc(c, (size_t)c->n * (size_t)c->n,
                            sizeof(*r->can_access));
    for (int i = 0; i < c->n; i++) {
        struct cudaDeviceProp prop;
        CHECK(c, c->cu->cudaGetDeviceProperties(&prop, i));
        snprintf(r->gpu[i].name, sizeof(r->gpu[i].name), "%s", prop.name);
        r->gpu[i].pci_domain = prop.pciDomainID;
        r->gpu[i].pci_bus = prop.pciBusID;
        r->gpu[i].pci_device = prop.pciDeviceID;
        for (int j = 0; j < c->n; j++) {
            int access = 1;
            if (i != j) {
                CHECK(c, c->cu->cudaDeviceCanAccessPeer(&access, i, j));
            }
            r->can_access[i * c->n + j] = access;
        }
    }
}

/* ---- the gate ------------------------------------------------------------ */

/*
 * The sample launches a kernel that spins on a host flag before the start
 * event, queues the copies and the stop event behind it, then releases
 * the flag, so that the time the host spends queuing stays out of the
 * interval. The delay kernel is not used yet; the stream waits instead
 * (cudaStreamWaitEvent) for an event recorded on a separate gate stream of
 * the same GPU behind a chain of empty host functions
 * (cudaLaunchHostFunc). A host function costs the host little to queue but
 * the stream a driver round trip to run (the shim: 0.1 us and 2 us), so a
 * long enough chain is still running when the work has been queued. After
 * queuing, cudaEventQuery on the gate's event tells whether the gate was
 * still closed; if it had opened, the chain doubles and the measurement is
 * repeated; each kind of measurement keeps the length it learned. Why host
 * functions rather than a long copy or memset (the other way to hold a
 * stream without a kernel): their duration does not depend on the
 * machine's bandwidth, and they cost the simulator a timer each, where
 * holding a stream for the 0.4 ms that 100 copies take to queue needs
 * about a gigabyte of memset that the simulator writes for real. On a real
 * GPU the chain works the same (a host function there takes several
 * microseconds of driver time).
 */

/* Hold stream s (of GPU d) until a chain of `calls` host functions ran. */
static void gate_close(struct ctx *c, unsigned calls, int d, cudaStream_t s)
{
    for (unsigned k = 0; k < calls; k++) {
        CHECK(c, c->cu->cudaLaunchHostFunc(c->gate[d], gate_noop, NULL));
    }
    CHECK(c, c->cu->cudaEventRecord(c->open[d], c->gate[d]));
    CHECK(c, c->cu->cudaStreamWaitEvent(s, c->open[d], 0));
}

/* Whether GPU d's gate is still closed (cudaErrorNotReady is no error). */
static bool gate_is_closed(struct ctx *c, int d)
{
    cudaError_t e = c->cu->cudaEventQuery(c->open[d]);
    if (e == cudaErrorNotReady) {
        return true;
    }
    CHECK(c, e);
    return false;
}

/* Make kind's chain longer; false when it cannot grow any more. */
static bool gate_grow(struct ctx *c, enum gate_kind kind)
{
    if (c->gate_calls[kind] < GATE_MAX_CALLS) {
        c->gate_calls[kind] *= 2;
        return true;
    }
    if (!c->gate_warned) {
        fprintf(stderr, "p2psim: the gate opened before the work was "
                        "queued; enqueue time is in the results\n");
        c->gate_warned = true;
    }
    return false;
}

/* ---- peer access --------------------------------------------------------- */

/* Enable peer access both ways where allowed; leaves GPU i current.
 * Returns whether it was enabled. */
static bool peer_enable(struct ctx *c, bool p2p, int i, int j)
{
    bool on = p2p && i != j && c->res->can_access[i * c->n + j];
    if (on) {
        CHECK(c, c->cu->cudaSetDevice(i));
        CHECK(c, c->cu->cudaDeviceEnablePeerAccess(j, 0));
        CHECK(c, c->cu->cudaSetDevice(j));
        CHECK(c, c->cu->cudaDeviceEnablePeerAccess(i, 0));
    }
    CHECK(c, c->cu->cudaSetDevice(i));
    return on;
}

static void peer_disable(struct ctx *c, bool on, int i, int j)
{
    if (on) {
        CHECK(c, c->cu->cudaSetDevice(i));
        CHECK(c, c->cu->cudaDeviceDisablePeerAccess(j));
        CHECK(c, c->cu->cudaSetDevice(j));
        CHECK(c, c->cu->cudaDeviceDisablePeerAccess(i));
    }
    CHECK(c, c->cu->cudaSetDevice(i));
}

/* ---- one timed run ------------------------------------------------------- */

/*
 * The CPU latency table is the time the host spends in the 100 enqueue
 * calls. The sample reads a host stopwatch; here the host is simulated,
 * and its clock is read through the API: events recorded on an idle
 * "clock" stream take the host's time at the call, so the difference of
 * two of them around the enqueue loop, less the cost of one record
 * (record_cost_ms, once per GPU), is the host time of the loop.
 * Deterministic, and on a real GPU it reads the same quantity within a
 * microsecond.
 */

/* The copies of one timed run: `repeat` copies of `bytes` each. */
struct run {
    enum bwlat_copy copy;
    int a, b;
    size_t bytes;
    unsigned repeat;
    bool bidir;
    bool sm;                        /* by copyp2p (peer copies only) */
    enum gate_kind gate;
};

/* `repeat` copies of `bytes` from src (on GPU sd) to dst (on GPU dd) on
 * stream s; device -1 is pinned host memory (cudaMemcpyAsync). */
static void queue_copies(struct ctx *c, void *dst, int dd, const void *src,
                         int sd, size_t bytes, unsigned repeat, cudaStream_t s)
{
    for (unsigned r = 0; r < repeat; r++) {
        if (dd >= 0 && sd >= 0) {
            CHECK(c, c->cu->cudaMemcpyPeerAsync(dst, dd, src, sd, bytes, s));
        } else {
            CHECK(c, c->cu->cudaMemcpyAsync(dst, src, bytes,
                                            dd < 0 ? cudaMemcpyDeviceToHost
                                                   : cudaMemcpyHostToDevice,
                                            s));
        }
    }
}

/* Source and destination of a run's copies; reverse: the other way (the
 * second half of a bidirectional run). */
struct ends {
    void *dst;
    const void *src;
    int dd, sd;
};

static struct ends run_ends(const struct ctx *c, const struct run *rn,
                            bool reverse)
{
    int a = rn->a, b = rn->b;
    struct ends e = { NULL, NULL, a, a };
    switch (rn->copy) {
    case BWLAT_COPY_P2P:
    case BWLAT_COPY_STAGED:
        e = (struct ends){ c->buf[b], c->buf[a], b, a };
        break;
    case BWLAT_COPY_P2P_READ:
        e = (struct ends){ c->buf[a], c->buf[b], a, b };
        break;
    case BWLAT_COPY_D2D:
        e = (struct ends){ c->buf[a], c->buf2[a], a, a };
        break;
    case BWLAT_COPY_H2D:
        e = (struct ends){ c->buf[a], c->host, a, -1 };
        break;
    case BWLAT_COPY_D2H:
        e = (struct ends){ c->host, c->buf[a], -1, a };
        break;
    }
    if (reverse) {
        e = (struct ends){ (void *)e.src, e.dst, e.sd, e.dd };
    }
    return e;
}

/* Queue a run's copies on stream s of GPU sdev. A kernel is launched
 * with the stream's GPU current, as the sample does; GPU a is current
 * again after. */
static void queue_run(struct ctx *c, const struct run *rn, bool reverse,
                      int sdev, cudaStream_t s)
{
    struct ends e = run_ends(c, rn, reverse);
    if (!rn->sm) {
        queue_copies(c, e.dst, e.dd, e.src, e.sd, rn->bytes, rn->repeat, s);
        return;
    }
    CHECK(c, c->cu->cudaSetDevice(sdev));
    for (unsigned r = 0; r < rn->repeat; r++) {
        launch_copy(c, e.dst, e.src, rn->bytes, sdev, s);
    }
    CHECK(c, c->cu->cudaSetDevice(rn->a));
}

/*
 * Time one run on GPU a's first stream behind the gate: *gpu_ms from the
 * start and stop events, *cpu_ms the host's time in the enqueue calls
 * (unidirectional runs only).
 */
static void timed_run(struct ctx *c, const struct run *rn, float *gpu_ms,
                      float *cpu_ms)
{
    const struct bwlat_cuda *cu = c->cu;
    int a = rn->a, b = rn->b;
    /* Which GPU's second stream runs the reverse copies of a pair. */
    int rev = a == b ? a : b;
    bool closed;
    float cpu = 0;
    do {
        CHECK(c, cu->cudaSetDevice(a));
        CHECK(c, cu->cudaStreamSynchronize(c->s0[a]));
        CHECK(c, cu->cudaStreamSynchronize(c->s1[rev]));
        gate_close(c, c->gate_calls[rn->gate], a, c->s0[a]);
        CHECK(c, cu->cudaEventRecord(c->start[a], c->s0[a]));
        if (rn->bidir) {
            /* s1[rev] needs no gate of its own: it waits for the start. */
            CHECK(c, cu->cudaStreamWaitEvent(c->s1[rev], c->start[a], 0));
            queue_run(c, rn, true, rev, c->s1[rev]);
            queue_run(c, rn, false, a, c->s0[a]);
            /* s0[a]'s stop covers s1[rev]'s work too. */
            CHECK(c, cu->cudaEventRecord(c->stop[rev], c->s1[rev]));
            CHECK(c, cu->cudaStreamWaitEvent(c->s0[a], c->stop[rev], 0));
        } else {
            CHECK(c, cu->cudaEventRecord(c->clk_a[a], c->clock[a]));
            queue_run(c, rn, false, a, c->s0[a]);
            CHECK(c, cu->cudaEventRecord(c->clk_b[a], c->clock[a]));
        }
        CHECK(c, cu->cudaEventRecord(c->stop[a], c->s0[a]));
        closed = gate_is_closed(c, a);
        CHECK(c, cu->cudaStreamSynchronize(c->s0[a]));
        CHECK(c, cu->cudaStreamSynchronize(c->s1[rev]));
        CHECK(c, cu->cudaStreamSynchronize(c->clock[a]));
    } while (!closed && gate_grow(c, rn->gate));
    CHECK(c, cu->cudaEventElapsedTime(gpu_ms, c->start[a], c->stop[a]));
    if (!rn->bidir) {
        CHECK(c, cu->cudaEventElapsedTime(&cpu, c->clk_a[a], c->clk_b[a]));
        cpu -= c->record_ms[a];
    }
    if (cpu_ms) {
        *cpu_ms = cpu;
    }
}

/* GB/s (10^9 bytes) of a run, counting both directions of a pair. */
static double run_bandwidth(const struct run *rn, float ms)
{
    double bytes = (double)rn->bytes * rn->repeat * (rn->bidir ? 2 : 1);
    return ms > 0 ? bytes / 1e9 / (ms / 1e3) : 0.0;
}

/* ---- the matrices -------------------------------------------------------- */

static bool cell_wanted(const struct ctx *c, const struct bwlat_request *rq,
                        int i, int j)
{
    return !rq->cells || rq->cells[i * c->n + j];
}

/* One cell of matrix m (and its CPU twin for latency). */
static void matrix_cell(struct ctx *c, enum bwlat_matrix m, int i, int j,
                        size_t bw_bytes)
{
    bool p2p = m != BWLAT_UNI_DISABLED && m != BWLAT_BIDIR_DISABLED &&
               m != BWLAT_LAT_DISABLED_GPU;
    bool read = m == BWLAT_UNI_ENABLED_READ || m == BWLAT_LAT_ENABLED_READ_GPU;
    bool lat = m == BWLAT_LAT_DISABLED_GPU || m == BWLAT_LAT_ENABLED_GPU ||
               m == BWLAT_LAT_ENABLED_READ_GPU;
    struct run rn = {
        .copy = i == j ? BWLAT_COPY_D2D
                       : read ? BWLAT_COPY_P2P_READ
                              : p2p ? BWLAT_COPY_P2P : BWLAT_COPY_STAGED,
        .a = i,
        .b = j,
        .bytes = lat ? LAT_BYTES : bw_bytes,
        .repeat = lat ? LAT_REPEAT : BW_REPEAT,
        .bidir = m == BWLAT_BIDIR_DISABLED || m == BWLAT_BIDIR_ENABLED,
        .gate = lat ? GATE_LAT : (m == BWLAT_BIDIR_DISABLED ||
                                  m == BWLAT_BIDIR_ENABLED) ? GATE_BIDIR
                                                            : GATE_UNI,
    };
    snprintf(c->where, sizeof(c->where), "%s, GPU %d -> GPU %d",
             bwlat_matrices[m].name, i, j);
    bool on = peer_enable(c, p2p, i, j);
    /* The sample's performP2PCopy: the kernel only where access was
     * granted (never on the diagonal: canAccessPeer(i, i) is 0 there). */
    rn.sm = on && c->copy_kernel;
    float gpu_ms = 0, cpu_ms = 0;
    timed_run(c, &rn, &gpu_ms, &cpu_ms);
    peer_disable(c, on, i, j);
    double *out = c->res->m[m];
    if (lat) {
        double *cpu = c->res->m[m + 1];     /* the CPU table follows */
        if (out) {
            out[i * c->n + j] = gpu_ms * 1e3 / LAT_REPEAT;
        }
        if (cpu) {
            cpu[i * c->n + j] = cpu_ms * 1e3 / LAT_REPEAT;
        }
    } else {
        /* The diagonal counts the bytes twice (read and write), as the
         * sample does. */
        out[i * c->n + j] = run_bandwidth(&rn, gpu_ms) * (i == j ? 2 : 1);
    }
}

/* Whether m is the CPU half of a latency table (measured with its GPU
 * half, m - 1). */
static bool is_cpu_half(int m)
{
    return m == BWLAT_LAT_DISABLED_CPU || m == BWLAT_LAT_ENABLED_CPU ||
           m == BWLAT_LAT_ENABLED_READ_CPU;
}

/* "matrix 2 of 8, cell 17 of 64" on stderr, over the previous line. */
static void progress(const struct bwlat_request *rq, int m, int done_m,
                     int n_m, int cell, int n_cells)
{
    if (rq->progress) {
        fprintf(stderr, "\r\033[Kp2psim: %s: matrix %d of %d, cell %d of "
                        "%d", bwlat_matrices[m].name, done_m + 1, n_m,
                cell + 1, n_cells);
        fflush(stderr);
    }
}

static void measure_matrices(struct ctx *c, const struct bwlat_request *rq)
{
    size_t bw_bytes = (size_t)rq->n_elems * sizeof(int);
    int n_m = 0, done_m = 0, n_cells = 0;
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        if (!(rq->matrices & BWLAT_BIT(m))) {
            continue;
        }
        double *v = xcalloc(c, (size_t)c->n * (size_t)c->n, sizeof(*v));
        for (int k = 0; k < c->n * c->n; k++) {
            v[k] = NAN;
        }
        c->res->m[m] = v;
    }
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        n_m += !is_cpu_half(m) && (c->res->m[m] ||
                                   (m + 1 < BWLAT_N_MATRICES &&
                                    c->res->m[m + 1] && is_cpu_half(m + 1)));
    }
    for (int k = 0; k < c->n * c->n; k++) {
        n_cells += cell_wanted(c, rq, k / c->n, k % c->n);
    }
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        bool wanted = c->res->m[m] ||
                      (m + 1 < BWLAT_N_MATRICES && is_cpu_half(m + 1) &&
                       c->res->m[m + 1]);
        if (is_cpu_half(m) || !wanted) {
            continue;
        }
        int cell = 0;
        for (int i = 0; i < c->n; i++) {
            for (int j = 0; j < c->n; j++) {
                if (cell_wanted(c, rq, i, j)) {
                    progress(rq, m, done_m, n_m, cell++, n_cells);
                    matrix_cell(c, (enum bwlat_matrix)m, i, j, bw_bytes);
                }
            }
        }
        done_m++;
    }
    if (rq->progress) {
        fprintf(stderr, "\r\033[K");
    }
}

/* ---- single quantities --------------------------------------------------- */

static double measure_probe(struct ctx *c, const struct bwlat_probe *p)
{
    bool pair = p->copy == BWLAT_COPY_P2P || p->copy == BWLAT_COPY_P2P_READ ||
                p->copy == BWLAT_COPY_STAGED;
    struct run rn = {
        .copy = p->copy,
        .a = p->a,
        .b = pair ? p->b : p->a,
        .bytes = (size_t)p->size_bytes,
        .repeat = p->repeat,
        .bidir = p->bidir,
        .gate = GATE_PROBE,
    };
    snprintf(c->where, sizeof(c->where), "GPU %d and GPU %d, %llu bytes",
             rn.a, rn.b, (unsigned long long)p->size_bytes);
    bool on = peer_enable(c, p->copy != BWLAT_COPY_STAGED && pair, rn.a, rn.b);
    float gpu_ms = 0;
    timed_run(c, &rn, &gpu_ms, NULL);
    peer_disable(c, on, rn.a, rn.b);
    if (p->latency) {
        return (double)gpu_ms * 1e3 / p->repeat;
    }
    return run_bandwidth(&rn, gpu_ms);
}

static void check_probe_gpus(struct ctx *c, const struct bwlat_probe *p)
{
    if (p->a < 0 || p->a >= c->n || p->b < 0 || p->b >= c->n) {
        snprintf(c->res->error, sizeof(c->res->error),
                 "no GPU %d or %d: the machine has %d", p->a, p->b, c->n);
        c->res->status = 1;
        longjmp(*c->cu->fail, 1);
    }
}

/* ---- the whole request --------------------------------------------------- */

void bwlat_measure(const struct bwlat_cuda *cu, const struct bwlat_request *rq,
                   struct bwlat_result *out)
{
    struct ctx c = { .cu = cu, .res = out };
    CHECK(&c, cu->cudaGetDeviceCount(&c.n));
    out->n = (unsigned)c.n;
    describe_gpus(&c);
    if (rq->cells && rq->n_cells != out->n) {
        snprintf(out->error, sizeof(out->error),
                 "the cells asked for are of a %u-GPU machine; this one has "
                 "%u", rq->n_cells, out->n);
        out->status = 1;
        return;
    }
    size_t buf_bytes = rq->matrices ? (size_t)rq->n_elems * sizeof(int) : 0;
    size_t host_bytes = 0;
    if (buf_bytes < LAT_BYTES) {
        buf_bytes = LAT_BYTES;
    }
    for (unsigned k = 0; k < rq->n_probes; k++) {
        const struct bwlat_probe *p = &rq->probes[k];
        check_probe_gpus(&c, p);
        if (p->size_bytes > buf_bytes) {
            buf_bytes = (size_t)p->size_bytes;
        }
        if ((p->copy == BWLAT_COPY_H2D || p->copy == BWLAT_COPY_D2H) &&
            p->size_bytes > host_bytes) {
            host_bytes = (size_t)p->size_bytes;
        }
    }
    setup(&c, buf_bytes, host_bytes);
    if (rq->sm_copy && rq->matrices) {
        copy_kernel_setup(&c);
    }
    if (rq->matrices) {
        measure_matrices(&c, rq);
    }
    if (rq->n_probes) {
        out->probe = xcalloc(&c, rq->n_probes, sizeof(*out->probe));
        out->n_probes = rq->n_probes;
        for (unsigned k = 0; k < rq->n_probes; k++) {
            out->probe[k] = measure_probe(&c, &rq->probes[k]);
        }
    }
}
