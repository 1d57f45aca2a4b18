/*
 * tests/programs/bandwidth_latency.c - GPU-to-GPU bandwidth and latency
 * matrices with and without peer access, printed exactly as the CUDA
 * sample p2pBandwidthLatencyTest prints them (headings, order and number
 * formats: shared/reference/cuda-api.md §1.7), measured the same way, but
 * without a kernel (kernels are not simulated yet).
 *
 *   bandwidth_latency [--help] [--p2p_read] [--numElems=N]
 *
 * Measurement, as the sample's: per GPU two int buffers of numElems
 * (default 40,000,000) zeroed with cudaMemset, a non-blocking stream (two
 * for the bidirectional matrices) and two events; every copy is a
 * cudaMemcpyPeerAsync. Unidirectional: 5 copies on GPU i's stream, i -> j
 * (P2P writes) or j -> i (--p2p_read: P2P reads), within GPU i on the
 * diagonal. Bidirectional: 5 copies each way at once, i -> j on GPU i's
 * stream and j -> i on GPU j's, the second stream waiting for the first's
 * start event and the first for the second's stop event. Latency: 100
 * copies of one int4 (16 bytes); the GPU table from the events, the CPU
 * table from a host stopwatch (CLOCK_MONOTONIC) around the enqueue calls,
 * i.e. the runtime's own cost per call. P2P=Enabled: when
 * cudaDeviceCanAccessPeer(i, j) is 1, peer access is enabled both ways
 * for the measurement and disabled after it; otherwise the copies are the
 * same staged copies as with P2P=Disabled. --sm_copy (copies by a kernel)
 * is not available: the program waives (exit 2).
 *
 * The gate (instead of the sample's delay kernel). The sample launches a
 * one-thread kernel that spins on a pinned host flag into the measuring
 * stream before the start event, enqueues the copies and the stop event,
 * then sets the flag: the stream runs the work only once all of it is
 * queued, so the time spent enqueuing stays out of the interval. Without
 * kernels, the stream waits instead (cudaStreamWaitEvent) for an event
 * recorded on a separate "gate" stream of the same GPU behind a chain of
 * no-op host functions (cudaLaunchHostFunc). Each link is a round trip
 * from the GPU to the runtime's callback thread and back, which takes
 * longer than enqueuing it (simulated runtime: 2 us for 0.1 us of host
 * time; real GPUs: tens of microseconds for a few), so a long enough chain
 * is still running when the measured work has been queued. After
 * enqueuing, cudaEventQuery on the gate event says whether the gate was
 * still closed; if it had opened already (the chain was too short, which
 * the sample's delay kernel would report as a timeout), the chain is made
 * longer and the measurement repeated: twice the links up to
 * GATE_MAX_LINKS, then each link also gets a cudaMemsetAsync of a scratch
 * buffer, growing fourfold from GATE_FIRST_BYTES (for a runtime whose host
 * functions are cheaper to run than to enqueue). Each kind of measurement
 * keeps the chain it learned, so later pairs measure once.
 * Alternatives considered:
 *  - a host function that spins on the flag, like the delay kernel: CUDA
 *    says host functions must not wait for the program, and a simulated
 *    runtime runs them in simulated time, where it would not hold the
 *    stream at all;
 *  - one long copy or memset: holding the stream for the ~0.4 ms it takes
 *    to enqueue 100 copies needs about a gigabyte of memset per
 *    measurement (small memsets cost the host as much as a kernel launch,
 *    more than they take to run), which a simulator has to move for real;
 *  - no gate, or events around each copy: the enqueue cost (4 us per
 *    copy, more than a 16-byte copy takes) would be measured as latency,
 *    or the copies would not run back to back as the sample's do.
 *
 * Built against the CUDA runtime headers only; it runs unchanged on real
 * GPUs (where the chain adapts to the real enqueue and memset costs).
 * Exit status: 0, 1 (a CUDA call failed), 2 (waived: --sm_copy).
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_WAIVED 2
#define BW_REPEAT 5
#define LAT_REPEAT 100
#define LAT_ELEMS 4                     /* one int4 */
#define GATE_FIRST_LINKS 16u           /* host functions in a new chain */
#define GATE_MAX_LINKS 1024u           /* then memsets in each link too */
#define GATE_FIRST_BYTES ((size_t)1 << 20) /* the first memset's bytes */
#define GATE_BUF_BYTES ((size_t)64 << 20)

/*
 * Fail on any CUDA error, as the sample's cudaCheckError() does after
 * every call: a returned error or one left behind as the last error.
 */
#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ == cudaSuccess) {                                              \
            e_ = cudaGetLastError();                                          \
        }                                                                     \
        if (e_ != cudaSuccess) {                                              \
            printf("Cuda failure %s:%d: '%s' (%s)\n", __FILE__, __LINE__,     \
                   cudaGetErrorString(e_), #call);                            \
            exit(EXIT_FAILURE);                                               \
        }                                                                     \
    } while (0)

enum direction { P2P_WRITE, P2P_READ };

/* A gate chain's size; each kind of measurement keeps its own. */
struct gate_size {
    unsigned links;             /* host functions */
    size_t bytes;               /* memset per link; 0: none */
};

/* Per GPU: the gate stream, the event that opens the gate, scratch. */
struct gates {
    int n;
    cudaStream_t *stream;
    cudaEvent_t *open;
    void **buf;
};

/* What every measurement of one matrix shares. */
struct matrix_ctx {
    int n;                      /* GPUs */
    int n_elems;
    bool p2p;                   /* P2P=Enabled */
    enum direction dir;
    struct gates *gates;
    struct gate_size *size;
    int **buffers, **buffers_d2d;
    cudaEvent_t *start, *stop;
};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        printf("out of memory\n");
        exit(EXIT_FAILURE);
    }
    return p;
}

/* ---- the gate ------------------------------------------------------------ */

static void gates_init(struct gates *g, int n)
{
    g->n = n;
    g->stream = xcalloc((size_t)n, sizeof(*g->stream));
    g->open = xcalloc((size_t)n, sizeof(*g->open));
    g->buf = xcalloc((size_t)n, sizeof(*g->buf));
    for (int d = 0; d < n; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamCreateWithFlags(&g->stream[d], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&g->open[d], cudaEventDisableTiming));
        CHECK(cudaMalloc(&g->buf[d], GATE_BUF_BYTES));
    }
}

static void gates_fini(struct gates *g)
{
    for (int d = 0; d < g->n; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamSynchronize(g->stream[d]));
        CHECK(cudaFree(g->buf[d]));
        CHECK(cudaEventDestroy(g->open[d]));
        CHECK(cudaStreamDestroy(g->stream[d]));
    }
    free(g->stream);
    free(g->open);
    free(g->buf);
}

/* A link of the gate chain: nothing to do but be scheduled. */
static void gate_link(void *arg)
{
    (void)arg;
}

/* Hold stream (of GPU d, the current device) until the chain has run. */
static void gate_close(struct gates *g, const struct gate_size *size, int d,
                       cudaStream_t stream)
{
    for (unsigned k = 0; k < size->links; k++) {
        CHECK(cudaLaunchHostFunc(g->stream[d], gate_link, NULL));
        if (size->bytes) {
            CHECK(cudaMemsetAsync(g->buf[d], (int)(k & 0xff), size->bytes,
                                  g->stream[d]));
        }
    }
    CHECK(cudaEventRecord(g->open[d], g->stream[d]));
    CHECK(cudaStreamWaitEvent(stream, g->open[d], 0));
}

/* Whether GPU d's gate is still closed (cudaErrorNotReady is no error). */
static bool gate_is_closed(struct gates *g, int d)
{
    cudaError_t e = cudaEventQuery(g->open[d]);
    if (e == cudaErrorNotReady) {
        return true;
    }
    CHECK(e);
    return false;
}

/* Make the chain longer; false when it cannot grow any more. */
static bool gate_grow(struct gate_size *size)
{
    static bool warned;
    if (size->links < GATE_MAX_LINKS) {
        size->links *= 2;
        return true;
    }
    if (size->bytes == 0) {
        size->bytes = GATE_FIRST_BYTES;
        return true;
    }
    if (size->bytes * 4 <= GATE_BUF_BYTES) {
        size->bytes *= 4;
        return true;
    }
    if (!warned) {
        fprintf(stderr, "bandwidth_latency: the gate opened before the "
                        "work was queued; enqueue time is in the results\n");
        warned = true;
    }
    return false;
}

/* ---- shared set-up ------------------------------------------------------- */

static void buffers_init(struct matrix_ctx *m)
{
    size_t bytes = (size_t)m->n_elems * sizeof(int);
    m->buffers = xcalloc((size_t)m->n, sizeof(*m->buffers));
    m->buffers_d2d = xcalloc((size_t)m->n, sizeof(*m->buffers_d2d));
    m->start = xcalloc((size_t)m->n, sizeof(*m->start));
    m->stop = xcalloc((size_t)m->n, sizeof(*m->stop));
    for (int d = 0; d < m->n; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMalloc((void **)&m->buffers[d], bytes));
        CHECK(cudaMemset(m->buffers[d], 0, bytes));
        CHECK(cudaMalloc((void **)&m->buffers_d2d[d], bytes));
        CHECK(cudaMemset(m->buffers_d2d[d], 0, bytes));
        CHECK(cudaEventCreate(&m->start[d]));
        CHECK(cudaEventCreate(&m->stop[d]));
    }
}

static void buffers_fini(struct matrix_ctx *m)
{
    for (int d = 0; d < m->n; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaFree(m->buffers[d]));
        CHECK(cudaFree(m->buffers_d2d[d]));
        CHECK(cudaEventDestroy(m->start[d]));
        CHECK(cudaEventDestroy(m->stop[d]));
    }
    free(m->buffers);
    free(m->buffers_d2d);
    free(m->start);
    free(m->stop);
}

static cudaStream_t *streams_create(int n)
{
    cudaStream_t *s = xcalloc((size_t)n, sizeof(*s));
    for (int d = 0; d < n; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamCreateWithFlags(&s[d], cudaStreamNonBlocking));
    }
    return s;
}

static void streams_destroy(cudaStream_t *s, int n)
{
    for (int d = 0; d < n; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamDestroy(s[d]));
    }
    free(s);
}

/* Peer access both ways for a P2P=Enabled measurement of (i, j): whether
 * it was granted. Leaves GPU i current. */
static int peer_enable(const struct matrix_ctx *m, int i, int j)
{
    int access = 0;
    if (m->p2p) {
        CHECK(cudaDeviceCanAccessPeer(&access, i, j));
        if (access) {
            CHECK(cudaSetDevice(i));
            CHECK(cudaDeviceEnablePeerAccess(j, 0));
            CHECK(cudaSetDevice(j));
            CHECK(cudaDeviceEnablePeerAccess(i, 0));
        }
    }
    CHECK(cudaSetDevice(i));
    return access;
}

static void peer_disable(const struct matrix_ctx *m, int i, int j, int access)
{
    if (m->p2p && access) {
        CHECK(cudaSetDevice(i));
        CHECK(cudaDeviceDisablePeerAccess(j));
        CHECK(cudaSetDevice(j));
        CHECK(cudaDeviceDisablePeerAccess(i));
    }
    CHECK(cudaSetDevice(i));
}

/* The sample's performP2PCopy, copy-engine path. */
static void copy_repeat(int *dst, int dst_dev, const int *src, int src_dev,
                        int n_elems, int repeat, cudaStream_t stream)
{
    for (int r = 0; r < repeat; r++) {
        CHECK(cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev,
                                  sizeof(int) * (size_t)n_elems, stream));
    }
}

/* The copies of one unidirectional or latency measurement of (i, j). */
static void copy_pair(const struct matrix_ctx *m, int i, int j, int repeat,
                      cudaStream_t stream)
{
    if (i == j) {
        copy_repeat(m->buffers[i], i, m->buffers_d2d[i], i, m->n_elems,
                    repeat, stream);
    } else if (m->dir == P2P_WRITE) {
        copy_repeat(m->buffers[j], j, m->buffers[i], i, m->n_elems, repeat,
                    stream);
    } else {
        copy_repeat(m->buffers[i], i, m->buffers[j], j, m->n_elems, repeat,
                    stream);
    }
}

static void print_matrix(const char *corner, const double *v, int n)
{
    printf("%s", corner);
    for (int j = 0; j < n; j++) {
        printf("%6d ", j);
    }
    printf("\n");
    for (int i = 0; i < n; i++) {
        printf("%6d ", i);
        for (int j = 0; j < n; j++) {
            printf("%6.02f ", v[i * n + j]);
        }
        printf("\n");
    }
}

/* ---- the matrices -------------------------------------------------------- */

/* Unidirectional bandwidth of (i, j) in GB/s (10^9 bytes). */
static double unidirectional_one(struct matrix_ctx *m, cudaStream_t *stream,
                                 int i, int j)
{
    float ms = 0;
    bool closed;
    do {
        CHECK(cudaStreamSynchronize(stream[i]));
        gate_close(m->gates, m->size, i, stream[i]);
        CHECK(cudaEventRecord(m->start[i], stream[i]));
        copy_pair(m, i, j, BW_REPEAT, stream[i]);
        CHECK(cudaEventRecord(m->stop[i], stream[i]));
        closed = gate_is_closed(m->gates, i);
        CHECK(cudaStreamSynchronize(stream[i]));
    } while (!closed && gate_grow(m->size));
    CHECK(cudaEventElapsedTime(&ms, m->start[i], m->stop[i]));
    double gb = (double)m->n_elems * sizeof(int) * BW_REPEAT / 1e9;
    if (i == j) {
        gb *= 2; /* the read and the write */
    }
    return gb / (ms / 1e3);
}

static void output_bandwidth_matrix(struct matrix_ctx *m)
{
    int n = m->n;
    double *bw = xcalloc((size_t)n * (size_t)n, sizeof(*bw));
    buffers_init(m);
    cudaStream_t *stream = streams_create(n);
    for (int i = 0; i < n; i++) {
        CHECK(cudaSetDevice(i));
        for (int j = 0; j < n; j++) {
            int access = peer_enable(m, i, j);
            bw[i * n + j] = unidirectional_one(m, stream, i, j);
            peer_disable(m, i, j, access);
        }
    }
    print_matrix("   D\\D", bw, n);
    streams_destroy(stream, n);
    buffers_fini(m);
    free(bw);
}

/* Bidirectional bandwidth of (i, j): both directions at once. */
static double bidirectional_one(struct matrix_ctx *m, cudaStream_t *s0,
                                cudaStream_t *s1, int i, int j)
{
    float ms = 0;
    bool closed;
    do {
        CHECK(cudaSetDevice(i));
        CHECK(cudaStreamSynchronize(s0[i]));
        CHECK(cudaStreamSynchronize(s1[j]));
        /* s1[j] needs no gate: it waits for s0[i]'s start event. */
        gate_close(m->gates, m->size, i, s0[i]);
        CHECK(cudaEventRecord(m->start[i], s0[i]));
        CHECK(cudaStreamWaitEvent(s1[j], m->start[i], 0));
        if (i == j) {
            copy_repeat(m->buffers[i], i, m->buffers_d2d[i], i, m->n_elems,
                        BW_REPEAT, s0[i]);
            copy_repeat(m->buffers_d2d[i], i, m->buffers[i], i, m->n_elems,
                        BW_REPEAT, s1[i]);
        } else {
            copy_repeat(m->buffers[i], i, m->buffers[j], j, m->n_elems,
                        BW_REPEAT, s1[j]);
            copy_repeat(m->buffers[j], j, m->buffers[i], i, m->n_elems,
                        BW_REPEAT, s0[i]);
        }
        /* s0[i]'s stop covers s1[j]'s work too. */
        CHECK(cudaEventRecord(m->stop[j], s1[j]));
        CHECK(cudaStreamWaitEvent(s0[i], m->stop[j], 0));
        CHECK(cudaEventRecord(m->stop[i], s0[i]));
        closed = gate_is_closed(m->gates, i);
        CHECK(cudaStreamSynchronize(s0[i]));
        CHECK(cudaStreamSynchronize(s1[j]));
    } while (!closed && gate_grow(m->size));
    CHECK(cudaEventElapsedTime(&ms, m->start[i], m->stop[i]));
    double gb = 2.0 * m->n_elems * sizeof(int) * BW_REPEAT / 1e9;
    if (i == j) {
        gb *= 2; /* the read and the write */
    }
    return gb / (ms / 1e3);
}

static void output_bidirectional_matrix(struct matrix_ctx *m)
{
    int n = m->n;
    double *bw = xcalloc((size_t)n * (size_t)n, sizeof(*bw));
    buffers_init(m);
    cudaStream_t *s0 = streams_create(n), *s1 = streams_create(n);
    for (int i = 0; i < n; i++) {
        CHECK(cudaSetDevice(i));
        for (int j = 0; j < n; j++) {
            int access = peer_enable(m, i, j);
            bw[i * n + j] = bidirectional_one(m, s0, s1, i, j);
            peer_disable(m, i, j, access);
        }
    }
    print_matrix("   D\\D", bw, n);
    streams_destroy(s0, n);
    streams_destroy(s1, n);
    buffers_fini(m);
    free(bw);
}

/* Latency of (i, j) in microseconds per copy: GPU (events), CPU
 * (stopwatch around the enqueue calls). */
static void latency_one(struct matrix_ctx *m, cudaStream_t *stream, int i,
                        int j, double *gpu_us, double *cpu_us)
{
    float ms = 0;
    double cpu_ms = 0;
    bool closed;
    do {
        CHECK(cudaStreamSynchronize(stream[i]));
        gate_close(m->gates, m->size, i, stream[i]);
        CHECK(cudaEventRecord(m->start[i], stream[i]));
        double t0 = now_ms();
        copy_pair(m, i, j, LAT_REPEAT, stream[i]);
        cpu_ms = now_ms() - t0;
        CHECK(cudaEventRecord(m->stop[i], stream[i]));
        closed = gate_is_closed(m->gates, i);
        CHECK(cudaStreamSynchronize(stream[i]));
    } while (!closed && gate_grow(m->size));
    CHECK(cudaEventElapsedTime(&ms, m->start[i], m->stop[i]));
    *gpu_us = ms * 1e3 / LAT_REPEAT;
    *cpu_us = cpu_ms * 1e3 / LAT_REPEAT;
}

static void output_latency_matrix(struct matrix_ctx *m)
{
    int n = m->n;
    double *gpu = xcalloc((size_t)n * (size_t)n, sizeof(*gpu));
    double *cpu = xcalloc((size_t)n * (size_t)n, sizeof(*cpu));
    buffers_init(m);
    cudaStream_t *stream = streams_create(n);
    for (int i = 0; i < n; i++) {
        CHECK(cudaSetDevice(i));
        for (int j = 0; j < n; j++) {
            int access = peer_enable(m, i, j);
            latency_one(m, stream, i, j, &gpu[i * n + j], &cpu[i * n + j]);
            peer_disable(m, i, j, access);
        }
    }
    print_matrix("   GPU", gpu, n);
    printf("\n");
    print_matrix("   CPU", cpu, n);
    streams_destroy(stream, n);
    buffers_fini(m);
    free(gpu);
    free(cpu);
}

/* ---- main ---------------------------------------------------------------- */

static void print_help(void)
{
    printf("Usage:  bandwidth_latency [OPTION]...\n");
    printf("Tests bandwidth/latency of GPU pairs using P2P and without P2P\n");
    printf("\n");
    printf("Options:\n");
    printf("--help\t\tDisplay this help menu\n");
    printf("--p2p_read\tUse P2P reads for data transfers between GPU pairs "
           "and show corresponding results.\n \t\tDefault used is P2P "
           "write operation.\n");
    printf("--sm_copy                      Use SM intiated p2p transfers "
           "instead of Copy Engine (not available: needs a kernel)\n");
    printf("--numElems=<NUM_OF_INT_ELEMS>  Number of integer elements to be "
           "used in p2p copy.\n");
}

/* "-name", "--name" or "--name=value" (the samples' helper accepts all);
 * *value points after '=' or is NULL. */
static bool is_flag(const char *arg, const char *name, const char **value)
{
    while (*arg == '-') {
        arg++;
    }
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0 || (arg[len] && arg[len] != '=')) {
        return false;
    }
    *value = arg[len] == '=' ? arg + len + 1 : NULL;
    return true;
}

static void check_p2p_access(int n)
{
    for (int i = 0; i < n; i++) {
        CHECK(cudaSetDevice(i));
        for (int j = 0; j < n; j++) {
            if (i != j) {
                int access = 0;
                CHECK(cudaDeviceCanAccessPeer(&access, i, j));
                printf("Device=%d %s Access Peer Device=%d\n", i,
                       access ? "CAN" : "CANNOT", j);
            }
        }
    }
    printf("\n***NOTE: In case a device doesn't have P2P access to other "
           "one, it falls back to normal memcopy procedure.\nSo you can see "
           "lesser Bandwidth (GB/s) and unstable Latency (us) in those "
           "cases.\n\n");
}

static void print_connectivity(int n)
{
    printf("P2P Connectivity Matrix\n");
    printf("     D\\D");
    for (int j = 0; j < n; j++) {
        printf("%6d", j);
    }
    printf("\n");
    for (int i = 0; i < n; i++) {
        printf("%6d\t", i);
        for (int j = 0; j < n; j++) {
            int access = 1;
            if (i != j) {
                CHECK(cudaDeviceCanAccessPeer(&access, i, j));
            }
            printf("%6d", access ? 1 : 0);
        }
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    int n = 0, n_elems = 40000000;
    enum direction method = P2P_WRITE;
    const char *value;

    for (int a = 1; a < argc; a++) {
        if (is_flag(argv[a], "help", &value)) {
            print_help();
            return EXIT_SUCCESS;
        } else if (is_flag(argv[a], "p2p_read", &value)) {
            method = P2P_READ;
        } else if (is_flag(argv[a], "sm_copy", &value)) {
            printf("--sm_copy needs a copy kernel, which this program does "
                   "not have: waived\n");
            return EXIT_WAIVED;
        } else if (is_flag(argv[a], "numElems", &value) && value) {
            n_elems = atoi(value);
            if (n_elems < LAT_ELEMS) {
                printf("--numElems must be at least %d\n", LAT_ELEMS);
                return EXIT_FAILURE;
            }
        }
    }

    CHECK(cudaGetDeviceCount(&n));
    printf("[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n");
    for (int i = 0; i < n; i++) {
        struct cudaDeviceProp prop;
        CHECK(cudaGetDeviceProperties(&prop, i));
        printf("Device: %d, %s, pciBusID: %x, pciDeviceID: %x, "
               "pciDomainID:%x\n",
               i, prop.name, prop.pciBusID, prop.pciDeviceID,
               prop.pciDomainID);
    }
    check_p2p_access(n);
    print_connectivity(n);

    struct gates gates;
    struct gate_size uni = { GATE_FIRST_LINKS, 0 };
    struct gate_size bi = uni, lat = uni;
    gates_init(&gates, n);
    struct matrix_ctx m = { .n = n, .n_elems = n_elems, .gates = &gates };

    m.size = &uni;
    m.dir = P2P_WRITE;
    printf("Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n");
    m.p2p = false;
    output_bandwidth_matrix(&m);
    printf("Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix "
           "(GB/s)\n");
    m.p2p = true;
    output_bandwidth_matrix(&m);
    if (method == P2P_READ) {
        printf("Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix "
               "(GB/s)\n");
        m.dir = P2P_READ;
        output_bandwidth_matrix(&m);
        m.dir = P2P_WRITE;
    }

    m.size = &bi;
    printf("Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n");
    m.p2p = false;
    output_bidirectional_matrix(&m);
    printf("Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)\n");
    m.p2p = true;
    output_bidirectional_matrix(&m);

    m.size = &lat;
    m.n_elems = LAT_ELEMS;
    printf("P2P=Disabled Latency Matrix (us)\n");
    m.p2p = false;
    output_latency_matrix(&m);
    printf("P2P=Enabled Latency (P2P Writes) Matrix (us)\n");
    m.p2p = true;
    output_latency_matrix(&m);
    if (method == P2P_READ) {
        printf("P2P=Enabled Latency (P2P Reads) Matrix (us)\n");
        m.dir = P2P_READ;
        output_latency_matrix(&m);
    }

    gates_fini(&gates);
    printf("\nNOTE: The CUDA Samples are not meant for performance "
           "measurements. Results may vary when GPU Boost is enabled.\n");
    return EXIT_SUCCESS;
}
