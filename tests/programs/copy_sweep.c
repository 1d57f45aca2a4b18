/*
 * tests/programs/copy_sweep.c - host-to-device, device-to-host and
 * device-to-device copy bandwidth from 4 bytes to 256 MB, and the latency
 * of a small synchronous copy: what `p2psim compare` runs by default, on a
 * real GPU (through the passthrough backend) and on a simulated machine.
 *
 *   copy_sweep [--device=N] [--peer=M] [--min=BYTES] [--max=BYTES]
 *              [--step=F] [--bytes=TOTAL] [--max-iters=N] [--lat-iters=N]
 *
 * Output, one line per size and direction, then one per latency, in a
 * fixed format that `p2psim compare` parses (keep it):
 *
 *   copy H2D 4096 B 12.345 GB/s 0.332 us
 *   latency H2D 4 B 9.876 us
 *
 * (lines starting with '#' are comments). GB/s are 10^9 bytes per second.
 *
 * Measurement. Host memory is pinned (cudaMallocHost); device buffers are
 * cudaMalloc'ed on one device. For each direction and size: one copy to
 * warm up, then an event, N cudaMemcpyAsync of that size back to back on a
 * non-blocking stream, an event, cudaEventSynchronize; "us" is the
 * interval over N and "GB/s" the size over that. N is --bytes / size
 * (default 1 GiB), at least 1 and at most --max-iters (default 100); each
 * direction starts with one such measurement at the smallest size that is
 * not printed (first uses of the stream and events). For
 * small copies the stream runs each copy as soon as it is enqueued, so the
 * time per copy is that of the slower of the two, the runtime's enqueue or
 * the copy itself: what a program issuing copies back to back sees. The
 * latency lines time --lat-iters (default 100) synchronous cudaMemcpy of 4
 * bytes on the legacy stream between two events: the round trip a program
 * waits for.
 *
 * --peer=M puts the second device buffer on device M, with peer access
 * enabled both ways, so the third direction (named P2P instead of D2D)
 * measures copies from device N to device M over the fabric.
 *
 * No kernels; built against the CUDA runtime headers only, so it runs
 * unchanged on NVIDIA's runtime. Exit status: 0, or 1 if a CUDA call
 * failed (the call and the error on stderr).
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct opts {
    int device;
    int peer;                   /* -1: D2D on one device */
    size_t min_bytes, max_bytes;
    double step;                /* size factor from one line to the next */
    size_t total_bytes;         /* bytes copied per measurement */
    unsigned max_iters;
    unsigned lat_iters;
};

struct bufs {
    void *host;                 /* pinned, max_bytes */
    void *dev_a, *dev_b;        /* max_bytes each */
    cudaStream_t stream;
    cudaEvent_t start, stop;
};

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "copy_sweep: %s: %s (%s, %d)\n", what,
                cudaGetErrorString(e), cudaGetErrorName(e), (int)e);
        exit(1);
    }
}

static void usage(FILE *f)
{
    fprintf(f, "usage: copy_sweep [--device=N] [--peer=M] [--min=BYTES] "
               "[--max=BYTES]\n                  [--step=F] [--bytes=TOTAL] "
               "[--max-iters=N] [--lat-iters=N]\n");
}

/* "--name=value" as an unsigned number (k, M, G suffixes: 2^10...). */
static int opt_size(const char *arg, const char *name, size_t *out)
{
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0 || arg[len] != '=') {
        return 0;
    }
    char *end;
    double v = strtod(arg + len + 1, &end);
    switch (*end) {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'M': v *= 1024 * 1024; end++; break;
    case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end || v < 0) {
        fprintf(stderr, "copy_sweep: bad value in %s\n", arg);
        exit(2);
    }
    *out = (size_t)v;
    return 1;
}

static void parse(int argc, char **argv, struct opts *o)
{
    for (int i = 1; i < argc; i++) {
        size_t v;
        if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (opt_size(argv[i], "--device", &v)) {
            o->device = (int)v;
        } else if (opt_size(argv[i], "--peer", &v)) {
            o->peer = (int)v;
        } else if (opt_size(argv[i], "--min", &v)) {
            o->min_bytes = v;
        } else if (opt_size(argv[i], "--max", &v)) {
            o->max_bytes = v;
        } else if (opt_size(argv[i], "--bytes", &v)) {
            o->total_bytes = v;
        } else if (opt_size(argv[i], "--max-iters", &v)) {
            o->max_iters = (unsigned)v;
        } else if (opt_size(argv[i], "--lat-iters", &v)) {
            o->lat_iters = (unsigned)v;
        } else if (strncmp(argv[i], "--step=", 7) == 0) {
            o->step = strtod(argv[i] + 7, NULL);
        } else {
            usage(stderr);
            exit(2);
        }
    }
    if (o->min_bytes < 1 || o->max_bytes < o->min_bytes || o->step <= 1 ||
        o->max_iters < 1 || o->lat_iters < 1) {
        fprintf(stderr, "copy_sweep: need 1 <= --min <= --max, --step > 1, "
                        "--max-iters and --lat-iters >= 1\n");
        exit(2);
    }
}

static const char *dir_name[] = { "H2D", "D2H", "D2D" };

static void endpoints(const struct bufs *b, int dir, void **dst,
                      const void **src)
{
    switch (dir) {
    case 0: *dst = b->dev_a; *src = b->host; break;
    case 1: *dst = b->host; *src = b->dev_a; break;
    default: *dst = b->dev_b; *src = b->dev_a; break;
    }
}

/* Time per copy, ms, of iters back-to-back async copies of bytes. */
static float time_copies(const struct bufs *b, int dir, size_t bytes,
                         unsigned iters)
{
    void *dst;
    const void *src;
    endpoints(b, dir, &dst, &src);
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, b->stream),
          "cudaMemcpyAsync (warm-up)");
    check(cudaEventRecord(b->start, b->stream), "cudaEventRecord");
    for (unsigned i = 0; i < iters; i++) {
        check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, b->stream),
              "cudaMemcpyAsync");
    }
    check(cudaEventRecord(b->stop, b->stream), "cudaEventRecord");
    check(cudaEventSynchronize(b->stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, b->start, b->stop),
          "cudaEventElapsedTime");
    return ms / (float)iters;
}

/* Time per synchronous 4-byte copy, ms, on the legacy stream. */
static float time_latency(const struct bufs *b, int dir, unsigned iters)
{
    void *dst;
    const void *src;
    endpoints(b, dir, &dst, &src);
    check(cudaMemcpy(dst, src, 4, cudaMemcpyDefault), "cudaMemcpy (warm-up)");
    check(cudaEventRecord(b->start, 0), "cudaEventRecord");
    for (unsigned i = 0; i < iters; i++) {
        check(cudaMemcpy(dst, src, 4, cudaMemcpyDefault), "cudaMemcpy");
    }
    check(cudaEventRecord(b->stop, 0), "cudaEventRecord");
    check(cudaEventSynchronize(b->stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, b->start, b->stop),
          "cudaEventElapsedTime");
    return ms / (float)iters;
}

int main(int argc, char **argv)
{
    struct opts o = {
        .device = 0,
        .peer = -1,
        .min_bytes = 4,
        .max_bytes = (size_t)256 << 20,
        .step = 2,
        .total_bytes = (size_t)1 << 30,
        .max_iters = 100,
        .lat_iters = 100,
    };
    parse(argc, argv, &o);

    struct bufs b;
    struct cudaDeviceProp prop;
    memset(&prop, 0, sizeof(prop));
    check(cudaSetDevice(o.device), "cudaSetDevice");
    check(cudaGetDeviceProperties(&prop, o.device),
          "cudaGetDeviceProperties");
    check(cudaMallocHost(&b.host, o.max_bytes), "cudaMallocHost");
    check(cudaMalloc(&b.dev_a, o.max_bytes), "cudaMalloc");
    if (o.peer >= 0) {
        if (o.peer == o.device) {
            fprintf(stderr, "copy_sweep: --peer must differ from --device\n");
            return 2;
        }
        int can = 0;
        check(cudaDeviceCanAccessPeer(&can, o.device, o.peer),
              "cudaDeviceCanAccessPeer");
        if (!can) {
            fprintf(stderr, "copy_sweep: device %d cannot access device %d "
                            "(copies would be staged)\n", o.device, o.peer);
        } else {
            check(cudaDeviceEnablePeerAccess(o.peer, 0),
                  "cudaDeviceEnablePeerAccess");
        }
        check(cudaSetDevice(o.peer), "cudaSetDevice (peer)");
        if (can) {
            check(cudaDeviceEnablePeerAccess(o.device, 0),
                  "cudaDeviceEnablePeerAccess");
        }
        check(cudaMalloc(&b.dev_b, o.max_bytes), "cudaMalloc (peer)");
        check(cudaSetDevice(o.device), "cudaSetDevice");
        dir_name[2] = "P2P";
    } else {
        check(cudaMalloc(&b.dev_b, o.max_bytes), "cudaMalloc");
    }
    check(cudaMemset(b.dev_a, 1, o.max_bytes), "cudaMemset");
    memset(b.host, 2, o.max_bytes);
    check(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking),
          "cudaStreamCreateWithFlags");
    check(cudaEventCreate(&b.start), "cudaEventCreate");
    check(cudaEventCreate(&b.stop), "cudaEventCreate");

    printf("# copy_sweep: device %d (%s), peer %d, pinned host memory, "
           "cudaMemcpyAsync back to back on a non-blocking stream\n",
           o.device, prop.name, o.peer);
    printf("# copy DIR BYTES B GB/s us   (us: time per copy)\n");
    for (int dir = 0; dir < 3; dir++) {
        /* Not printed: the first timing of a direction pays for first
         * uses (the stream, the events, the runtime's own set-up). */
        time_copies(&b, dir, o.min_bytes, o.max_iters);
        for (double s = (double)o.min_bytes; s <= (double)o.max_bytes + 0.5;
             s *= o.step) {
            size_t bytes = (size_t)(s + 0.5);
            size_t n = o.total_bytes / bytes;
            unsigned iters = n < 1 ? 1
                             : n > o.max_iters ? o.max_iters
                                               : (unsigned)n;
            float ms = time_copies(&b, dir, bytes, iters);
            double gbps = ms > 0 ? (double)bytes / (ms * 1e-3) / 1e9 : 0;
            printf("copy %s %zu B %.3f GB/s %.3f us\n", dir_name[dir], bytes,
                   gbps, ms * 1e3);
            fflush(stdout);
        }
    }
    printf("# latency DIR 4 B us   (synchronous cudaMemcpy, legacy stream)\n");
    for (int dir = 0; dir < 3; dir++) {
        float ms = time_latency(&b, dir, o.lat_iters);
        printf("latency %s 4 B %.3f us\n", dir_name[dir], ms * 1e3);
    }

    check(cudaEventDestroy(b.start), "cudaEventDestroy");
    check(cudaEventDestroy(b.stop), "cudaEventDestroy");
    check(cudaStreamDestroy(b.stream), "cudaStreamDestroy");
    check(cudaFree(b.dev_a), "cudaFree");
    check(cudaFree(b.dev_b), "cudaFree");
    check(cudaFreeHost(b.host), "cudaFreeHost");
    return 0;
}
