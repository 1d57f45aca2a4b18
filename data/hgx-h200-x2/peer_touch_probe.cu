/*
 * data/hgx-h200-x2/peer_touch_probe.cu - what makes the first P2P copies
 * after cudaDeviceEnablePeerAccess slow (peer_enable_probe.txt: 6-10 us
 * more for the first copy after each enable, 100-180 us more for the
 * process's first). Is it per enable, per copy, or per page of the peer's
 * memory touched for the first time since the enable?
 *
 * Every phase queues its copies behind a spin kernel on GPU 0's stream
 * with an event after each copy, then opens the gate: a copy's time is
 * the interval between its event and the one before (us, GPU time; the
 * host's enqueue cost is not in it). Copies go 0 -> 1 unless said.
 *
 *   nvcc -O2 -arch=sm_90 -o peer_touch_probe peer_touch_probe.cu
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                \
    do {                                                                     \
        cudaError_t e_ = (x);                                                \
        if (e_ != cudaSuccess) {                                             \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));        \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define MiB ((size_t)1 << 20)
#define MAX_OPS 64

__global__ void spin(volatile int *flag)
{
    while (*flag == 0) {
    }
}

static volatile int *flag;
static cudaStream_t st[2];
static cudaEvent_t ev[2][MAX_OPS + 1];
static char *buf[2];
static const size_t BUF = (size_t)512 * MiB;

struct op {
    int s;                      /* source GPU */
    size_t dst_off, src_off, len;
};

/* Queue ops (all from GPU ops[0].s) behind a gate; print each one's time. */
static void run(const char *phase, const struct op *ops, int n)
{
    int s = ops[0].s, d = 1 - s;
    CK(cudaSetDevice(s));
    *flag = 0;
    spin<<<1, 1, 0, st[s]>>>(flag);
    CK(cudaEventRecord(ev[s][0], st[s]));
    for (int i = 0; i < n; i++) {
        CK(cudaMemcpyPeerAsync(buf[d] + ops[i].dst_off, d,
                               buf[s] + ops[i].src_off, s, ops[i].len, st[s]));
        CK(cudaEventRecord(ev[s][i + 1], st[s]));
    }
    *flag = 1;
    CK(cudaEventSynchronize(ev[s][n]));
    for (int i = 0; i < n; i++) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, ev[s][i], ev[s][i + 1]));
        printf("%s %d->%d dst+%zuMiB src+%zuMiB len %zu: %.3f us\n", phase, s,
               d, ops[i].dst_off / MiB, ops[i].src_off / MiB, ops[i].len,
               ms * 1000.0);
    }
}

static double enable(int s, int d)
{
    auto t0 = std::chrono::steady_clock::now();
    CK(cudaSetDevice(s));
    CK(cudaDeviceEnablePeerAccess(d, 0));
    auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::micro>(t1 - t0).count();
}

static void disable(int s, int d)
{
    CK(cudaSetDevice(s));
    CK(cudaDeviceDisablePeerAccess(d));
}

int main()
{
    int n_dev = 0;
    CK(cudaGetDeviceCount(&n_dev));
    if (n_dev < 2) {
        printf("# needs two GPUs\n");
        return 0;
    }
    int *f;
    CK(cudaHostAlloc(&f, sizeof(int), cudaHostAllocMapped |
                                          cudaHostAllocPortable));
    flag = f;
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaMalloc(&buf[g], BUF));
        CK(cudaMemset(buf[g], g, BUF));
        CK(cudaStreamCreateWithFlags(&st[g], cudaStreamNonBlocking));
        for (int k = 0; k <= MAX_OPS; k++) {
            CK(cudaEventCreate(&ev[g][k]));
        }
        CK(cudaDeviceSynchronize());
    }
    struct op o[MAX_OPS];
    int n;

    printf("# enable 0->1 (host): %.1f us\n", enable(0, 1));
    printf("# enable 1->0 (host): %.1f us\n", enable(1, 0));

    /* A: the process's first P2P copies, all to one page */
    for (n = 0; n < 4; n++) {
        o[n] = (struct op){ 0, 0, 0, 16 };
    }
    run("A-first", o, n);

    /* B: 16 B to the first byte of 8 fresh 2 MiB pages, then again */
    for (n = 0; n < 8; n++) {
        o[n] = (struct op){ 0, (size_t)(n + 1) * 2 * MiB, 0, 16 };
    }
    for (int i = 0; i < 8; i++, n++) {
        o[n] = o[i];
    }
    run("B-pages", o, n);

    /* C: finer than 2 MiB: 64 KiB steps within one fresh 2 MiB page */
    for (n = 0; n < 8; n++) {
        o[n] = (struct op){ 0, 20 * MiB + (size_t)n * 64 * 1024, 0, 16 };
    }
    run("C-64KiB", o, n);

    /* D: fresh source pages, a warm destination page */
    for (n = 0; n < 8; n++) {
        o[n] = (struct op){ 0, 0, (size_t)(n + 1) * 2 * MiB, 16 };
    }
    run("D-srcpages", o, n);

    /* E: large copies to fresh regions, then the same again */
    size_t base = 32 * MiB;
    const size_t lens[] = { 2 * MiB, 8 * MiB, 32 * MiB, 128 * MiB };
    n = 0;
    for (size_t len : lens) {
        o[n++] = (struct op){ 0, base, base, len };
        o[n++] = (struct op){ 0, base, base, len };
        base += len;
    }
    run("E-sizes", o, n);

    /* F: disable and enable again: do touched pages pay again? */
    disable(0, 1);
    disable(1, 0);
    printf("# re-enable 0->1 (host): %.1f us\n", enable(0, 1));
    printf("# re-enable 1->0 (host): %.1f us\n", enable(1, 0));
    n = 0;
    o[n++] = (struct op){ 0, 0, 0, 16 };
    o[n++] = (struct op){ 0, 0, 0, 16 };
    o[n++] = (struct op){ 0, 2 * MiB, 0, 16 };
    o[n++] = (struct op){ 0, 4 * MiB, 0, 16 };
    o[n++] = (struct op){ 0, 32 * MiB, 32 * MiB, 8 * MiB };
    o[n++] = (struct op){ 0, 32 * MiB, 32 * MiB, 8 * MiB };
    run("F-reenable", o, n);

    /* G: the other direction, its first copies in this process */
    for (n = 0; n < 4; n++) {
        o[n] = (struct op){ 1, 0, 0, 16 };
    }
    o[n++] = (struct op){ 1, 64 * MiB, 64 * MiB, 32 * MiB };
    o[n++] = (struct op){ 1, 64 * MiB, 64 * MiB, 32 * MiB };
    run("G-1to0", o, n);

    /* H: as the sample's bandwidth test: after an enable, 5 x 160 MB */
    disable(0, 1);
    disable(1, 0);
    enable(0, 1);
    enable(1, 0);
    for (n = 0; n < 5; n++) {
        o[n] = (struct op){ 0, 200 * MiB, 200 * MiB, (size_t)160000000 };
    }
    run("H-sample", o, n);
    run("H-warm", o, n);
    return 0;
}
