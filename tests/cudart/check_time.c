/*
 * tests/cudart/check_time.c - simulated time seen through the CUDA API:
 * event timings come from the fabric model, streams overlap or serialize
 * as CUDA says, host threads share one timeline.
 */
#include <config.h>

#include <pthread.h>
#include <string.h>

#include "tests/cudart/cudart_test.h"

#define MiB (1024u * 1024u)

/* Time one async copy of n bytes between two events on stream s. */
static float time_copy(void *dst, const void *src, size_t n,
                       cudaStream_t s)
{
    cudaEvent_t a, b;
    ck_cuda_ok(cudaEventCreate(&a));
    ck_cuda_ok(cudaEventCreate(&b));
    ck_cuda_ok(cudaEventRecord(a, s));
    ck_cuda_ok(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s));
    ck_cuda_ok(cudaEventRecord(b, s));
    ck_cuda_ok(cudaEventSynchronize(b));
    float ms = -1;
    ck_cuda_ok(cudaEventElapsedTime(&ms, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms;
}

/* A large pinned host-to-device copy on the calibration machine runs at
 * the Gen5 x16 host link's rate: at most the TLP bound (58.4 GB/s for
 * read completions with 256-byte payloads, reference §2.11) and well
 * above half of it. */
START_TEST(test_h2d_rate)
{
    cudart_test_machine("h200-x1.yaml");
    size_t n = 64 * MiB;
    void *h, *d;
    ck_cuda_ok(cudaMallocHost(&h, n));
    ck_cuda_ok(cudaMalloc(&d, n));
    float ms = time_copy(d, h, n, 0);
    double gbps = (double)n / (ms * 1e-3) / 1e9;
    ck_assert_msg(gbps > 40.0 && gbps < 58.5, "H2D %.2f GB/s", gbps);
    cudaFree(d);
    cudaFreeHost(h);
}
END_TEST

/* Two copies in one stream take twice as long as one; in two
 * non-blocking streams in opposite directions they overlap (full
 * duplex). */
START_TEST(test_streams_overlap)
{
    cudart_test_machine("h200-x1.yaml");
    size_t n = 16 * MiB;
    void *h1, *h2, *d1, *d2;
    ck_cuda_ok(cudaMallocHost(&h1, n));
    ck_cuda_ok(cudaMallocHost(&h2, n));
    ck_cuda_ok(cudaMalloc(&d1, n));
    ck_cuda_ok(cudaMalloc(&d2, n));
    cudaStream_t s1, s2;
    ck_cuda_ok(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    ck_cuda_ok(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    float one = time_copy(d1, h1, n, s1);

    cudaEvent_t a, b;
    ck_cuda_ok(cudaEventCreate(&a));
    ck_cuda_ok(cudaEventCreate(&b));
    /* serial: same stream */
    ck_cuda_ok(cudaEventRecord(a, s1));
    ck_cuda_ok(cudaMemcpyAsync(d1, h1, n, cudaMemcpyHostToDevice, s1));
    ck_cuda_ok(cudaMemcpyAsync(h2, d2, n, cudaMemcpyDeviceToHost, s1));
    ck_cuda_ok(cudaEventRecord(b, s1));
    ck_cuda_ok(cudaEventSynchronize(b));
    float serial;
    ck_cuda_ok(cudaEventElapsedTime(&serial, a, b));
    ck_assert_msg(serial > 1.8f * one, "serial %f one %f", serial, one);

    /* overlapped: s2 starts with s1 (waits on a) and s1 ends after s2 */
    ck_cuda_ok(cudaEventRecord(a, s1));
    ck_cuda_ok(cudaStreamWaitEvent(s2, a, 0));
    ck_cuda_ok(cudaMemcpyAsync(d1, h1, n, cudaMemcpyHostToDevice, s1));
    ck_cuda_ok(cudaMemcpyAsync(h2, d2, n, cudaMemcpyDeviceToHost, s2));
    cudaEvent_t c;
    ck_cuda_ok(cudaEventCreate(&c));
    ck_cuda_ok(cudaEventRecord(c, s2));
    ck_cuda_ok(cudaStreamWaitEvent(s1, c, 0));
    ck_cuda_ok(cudaEventRecord(b, s1));
    ck_cuda_ok(cudaEventSynchronize(b));
    float both;
    ck_cuda_ok(cudaEventElapsedTime(&both, a, b));
    ck_assert_msg(both < 1.3f * one, "overlapped %f one %f", both, one);
    ck_assert_msg(both >= 0.95f * one, "overlapped %f one %f", both, one);
}
END_TEST

/* The legacy stream waits for a blocking stream's work; a non-blocking
 * stream's work is not waited for. */
START_TEST(test_legacy_implicit_sync)
{
    cudart_test_machine("h200-x1.yaml");
    size_t n = 32 * MiB;
    void *h, *d, *h2, *d2;
    ck_cuda_ok(cudaMallocHost(&h, n));
    ck_cuda_ok(cudaMallocHost(&h2, 4096));
    ck_cuda_ok(cudaMalloc(&d, n));
    ck_cuda_ok(cudaMalloc(&d2, 4096));
    for (int nb = 0; nb < 2; nb++) {
        cudaStream_t s;
        ck_cuda_ok(cudaStreamCreateWithFlags(
            &s, nb ? cudaStreamNonBlocking : cudaStreamDefault));
        cudaEvent_t a, b;
        ck_cuda_ok(cudaEventCreate(&a));
        ck_cuda_ok(cudaEventCreate(&b));
        ck_cuda_ok(cudaEventRecord(a, s));
        ck_cuda_ok(cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s));
        /* a small copy on the legacy stream, then its end */
        ck_cuda_ok(cudaMemcpyAsync(d2, h2, 4096, cudaMemcpyHostToDevice, 0));
        ck_cuda_ok(cudaEventRecord(b, 0));
        ck_cuda_ok(cudaDeviceSynchronize());
        float ms;
        ck_cuda_ok(cudaEventElapsedTime(&ms, a, b));
        if (nb) {
            ck_assert_msg(ms < 0.05f, "non-blocking: legacy waited %f ms", ms);
        } else {
            ck_assert_msg(ms > 0.4f, "blocking: legacy did not wait (%f ms)",
                          ms);
        }
        cudaStreamDestroy(s);
    }
}
END_TEST

/* A stream on GPU 1 waits for an event recorded on GPU 0. */
/*
 * cudaMemcpy between device memories returns once the copy is queued,
 * without waiting for it (CUDA's API synchronization behaviour, measured
 * on an H200: data/h200-x1/d2d_sync_probe.txt); a host-to-device one
 * waits. An event on an idle non-blocking stream, recorded just before and
 * just after the call, shows how long the host was held.
 */
static float held_by_sync_copy(void *dst, const void *src, size_t n)
{
    cudaStream_t side;
    cudaEvent_t a, b;
    ck_cuda_ok(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    ck_cuda_ok(cudaEventCreate(&a));
    ck_cuda_ok(cudaEventCreate(&b));
    ck_cuda_ok(cudaEventRecord(a, side));
    ck_cuda_ok(cudaMemcpy(dst, src, n, cudaMemcpyDefault));
    ck_cuda_ok(cudaEventRecord(b, side));
    ck_cuda_ok(cudaDeviceSynchronize());
    float ms = -1;
    ck_cuda_ok(cudaEventElapsedTime(&ms, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaStreamDestroy(side);
    return ms;
}

START_TEST(test_sync_d2d_copy_does_not_wait)
{
    cudart_test_machine("h200-x1.yaml");
    size_t n = 64 * MiB;
    void *h, *d1, *d2;
    ck_cuda_ok(cudaMallocHost(&h, n));
    ck_cuda_ok(cudaMalloc(&d1, n));
    ck_cuda_ok(cudaMalloc(&d2, n));
    /* the copy itself: device to device, timed on its own stream */
    float copy_ms = time_copy(d2, d1, n, 0);
    float h2d_ms = time_copy(d1, h, n, 0);
    float held_d2d = held_by_sync_copy(d2, d1, n);
    float held_h2d = held_by_sync_copy(d1, h, n);
    ck_assert_msg(held_d2d < copy_ms / 2, "cudaMemcpy D2D held the host "
                  "%.6f ms, the copy takes %.6f ms", held_d2d, copy_ms);
    ck_assert_msg(held_h2d >= h2d_ms, "cudaMemcpy H2D held the host %.6f "
                  "ms, less than its copy (%.6f ms)", held_h2d, h2d_ms);
    cudaFree(d1);
    cudaFree(d2);
    cudaFreeHost(h);
}
END_TEST

START_TEST(test_cross_device_wait)
{
    cudart_test_machine(NULL);
    size_t n = 32 * MiB;
    void *h, *d0, *d1;
    ck_cuda_ok(cudaMallocHost(&h, n));
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaMalloc(&d0, n));
    cudaStream_t s0, s1;
    ck_cuda_ok(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
    cudaEvent_t done0, t0;
    ck_cuda_ok(cudaEventCreate(&done0));
    ck_cuda_ok(cudaEventCreate(&t0));
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaMalloc(&d1, n));
    ck_cuda_ok(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    cudaEvent_t start1, end1;
    ck_cuda_ok(cudaEventCreate(&start1));
    ck_cuda_ok(cudaEventCreate(&end1));

    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaEventRecord(t0, s0));
    ck_cuda_ok(cudaMemcpyAsync(d0, h, n, cudaMemcpyHostToDevice, s0));
    ck_cuda_ok(cudaEventRecord(done0, s0));
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaStreamWaitEvent(s1, done0, 0));
    ck_cuda_ok(cudaEventRecord(start1, s1));
    ck_cuda_ok(cudaMemcpyAsync(d1, h, 4096, cudaMemcpyHostToDevice, s1));
    ck_cuda_ok(cudaEventRecord(end1, s1));
    ck_cuda_ok(cudaEventSynchronize(end1));
    float copy0, gap;
    ck_cuda_ok(cudaEventElapsedTime(&copy0, t0, done0));
    /* events of different devices cannot be compared */
    ck_cuda(cudaEventElapsedTime(&gap, t0, start1),
            cudaErrorInvalidResourceHandle);
    ck_cuda_ok(cudaEventSynchronize(done0));
    ck_cuda_ok(cudaEventQuery(done0));
    /* start1 ran after done0: query order and a nonnegative copy time */
    ck_assert(copy0 > 0.3f);
    ck_cuda_ok(cudaEventQuery(start1));
}
END_TEST

/* Queries answer for the caller's clock: busy right after enqueueing a
 * large copy, idle after synchronizing; NotReady is not a last error. */
START_TEST(test_queries)
{
    cudart_test_machine("h200-x1.yaml");
    size_t n = 64 * MiB;
    void *h, *d;
    ck_cuda_ok(cudaMallocHost(&h, n));
    ck_cuda_ok(cudaMalloc(&d, n));
    cudaStream_t s;
    ck_cuda_ok(cudaStreamCreate(&s));
    cudaEvent_t e, never;
    ck_cuda_ok(cudaEventCreate(&e));
    ck_cuda_ok(cudaEventCreate(&never));
    ck_cuda_ok(cudaEventQuery(never)); /* never recorded: complete */
    ck_cuda_ok(cudaStreamQuery(s));    /* idle */
    ck_cuda_ok(cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s));
    ck_cuda_ok(cudaEventRecord(e, s));
    ck_cuda(cudaStreamQuery(s), cudaErrorNotReady);
    ck_cuda(cudaEventQuery(e), cudaErrorNotReady);
    ck_cuda_ok(cudaGetLastError());
    float ms;
    ck_cuda(cudaEventElapsedTime(&ms, never, e),
            cudaErrorInvalidResourceHandle);
    ck_cuda_ok(cudaGetLastError() == cudaErrorInvalidResourceHandle
                   ? cudaSuccess
                   : cudaErrorUnknown);
    ck_cuda_ok(cudaStreamSynchronize(s));
    ck_cuda_ok(cudaStreamQuery(s));
    ck_cuda_ok(cudaEventQuery(e));
}
END_TEST

static int hostfn_seen;
static cudaError_t hostfn_call;
static void hostfn(void *arg)
{
    hostfn_seen = *(int *)arg;
    int n;
    hostfn_call = cudaGetDeviceCount(&n);
}

/* A host function runs after the work before it, may not call CUDA. */
START_TEST(test_host_function)
{
    cudart_test_machine("h200-x1.yaml");
    size_t n = 8 * MiB;
    int *h;
    void *d;
    ck_cuda_ok(cudaMallocHost((void **)&h, n));
    ck_cuda_ok(cudaMalloc(&d, n));
    memset(h, 0, n);
    ck_cuda_ok(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
    h[5] = 1234;
    /* the device copy still holds 0; copying back and then reading
     * h[5] inside the host function shows the order */
    ck_cuda_ok(cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, 0));
    ck_cuda_ok(cudaLaunchHostFunc(0, hostfn, &h[5]));
    ck_cuda(cudaLaunchHostFunc(0, NULL, NULL), cudaErrorInvalidValue);
    ck_cuda_ok(cudaStreamSynchronize(0));
    ck_assert_int_eq(hostfn_seen, 0);
    ck_assert_int_eq(hostfn_call, cudaErrorNotPermitted);
}
END_TEST

struct worker {
    int dev;
    float ms;
    cudaError_t err;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    size_t n = 32 * MiB;
    void *h, *d;
    w->err = cudaSetDevice(w->dev);
    if (!w->err) {
        w->err = cudaMallocHost(&h, n);
    }
    if (!w->err) {
        w->err = cudaMalloc(&d, n);
    }
    cudaEvent_t a, b;
    if (!w->err) {
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        cudaEventRecord(a, 0);
        cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, 0);
        cudaEventRecord(b, 0);
        w->err = cudaEventSynchronize(b);
    }
    if (!w->err) {
        w->err = cudaEventElapsedTime(&w->ms, a, b);
    }
    return NULL;
}

/* One thread per GPU: GPUs 0 and 4 hang below different sockets, so
 * their host copies do not share a link; each takes as long as alone. */
START_TEST(test_thread_per_gpu)
{
    cudart_test_machine(NULL);
    struct worker alone = { 0, 0, 0 };
    worker_main(&alone);
    ck_cuda_ok(alone.err);
    struct worker w[2] = { { 0, 0, 0 }, { 4, 0, 0 } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        pthread_create(&t[i], NULL, worker_main, &w[i]);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(t[i], NULL);
        ck_cuda_ok(w[i].err);
        ck_assert_msg(w[i].ms > 0.9f * alone.ms && w[i].ms < 1.1f * alone.ms,
                      "thread %d: %f ms, alone %f ms", i, w[i].ms, alone.ms);
    }
}
END_TEST

Suite *make_cudart_time_suite(void)
{
    Suite *s = suite_create("cudart-time");
    TCase *tc = tcase_create("time");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_h2d_rate);
    tcase_add_test(tc, test_streams_overlap);
    tcase_add_test(tc, test_legacy_implicit_sync);
    tcase_add_test(tc, test_cross_device_wait);
    tcase_add_test(tc, test_sync_d2d_copy_does_not_wait);
    tcase_add_test(tc, test_queries);
    tcase_add_test(tc, test_host_function);
    tcase_add_test(tc, test_thread_per_gpu);
    suite_add_tcase(s, tc);
    return s;
}
