/*
 * tests/cudart/check_managed.c - managed memory (cuda/cudart/managed.c):
 * allocation, prefetch timing and data, advice validation, memset, and
 * kernels over managed memory (local HBM time after a prefetch).
 *
 * Residency is not visible through the calls served
 * (cudaMemRangeGetAttribute reports advice and prefetches, not where pages
 * are), so the tests see it through time: a migration costs fabric time,
 * a prefetch to where the pages already are costs none.
 */
#include <config.h>

#include "machine/include/p2psim_kernel.h"
#include "tests/cudart/cudart_test.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

static const struct cudaMemLocation host_loc = { cudaMemLocationTypeHost, 0 };

static struct cudaMemLocation dev_loc(int d)
{
    struct cudaMemLocation l = { cudaMemLocationTypeDevice, d };
    return l;
}

START_TEST(test_managed_alloc_flags_and_size)
{
    void *p;
    ck_cuda(cudaMallocManaged(&p, 0, cudaMemAttachGlobal),
            cudaErrorInvalidValue);
    ck_cuda(cudaMallocManaged(&p, 64, 0), cudaErrorInvalidValue);
    ck_cuda(cudaMallocManaged(&p, 64, 3), cudaErrorInvalidValue);
    ck_cuda(cudaMallocManaged(&p, 64, cudaMemAttachSingle),
            cudaErrorInvalidValue);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidValue);
    ck_cuda(cudaMallocManaged(NULL, 64, cudaMemAttachGlobal),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaMallocManaged(&p, 64, cudaMemAttachHost));
    ck_cuda_ok(cudaFree(p));
    ck_cuda_ok(cudaMallocManaged(&p, 3 * MIB + 1, cudaMemAttachGlobal));
    /* the host uses it directly */
    memset(p, 0x42, 3 * MIB + 1);
    ck_assert_int_eq(((unsigned char *)p)[3 * MIB], 0x42);
    ck_cuda_ok(cudaFree(p));
    ck_cuda(cudaFree(p), cudaErrorInvalidValue);
    ck_cuda(cudaFreeHost(p), cudaErrorInvalidValue);
}
END_TEST

/* Elapsed ms of a prefetch of [p, p + n) to loc on the legacy stream. */
static float timed_prefetch(void *p, size_t n, struct cudaMemLocation loc)
{
    cudaEvent_t a, b;
    float ms = -1.0f;
    ck_cuda_ok(cudaEventCreate(&a));
    ck_cuda_ok(cudaEventCreate(&b));
    ck_cuda_ok(cudaEventRecord(a, 0));
    ck_cuda_ok(cudaMemPrefetchAsync(p, n, loc, 0, 0));
    ck_cuda_ok(cudaEventRecord(b, 0));
    ck_cuda_ok(cudaEventSynchronize(b));
    ck_cuda_ok(cudaEventElapsedTime(&ms, a, b));
    ck_cuda_ok(cudaEventDestroy(a));
    ck_cuda_ok(cudaEventDestroy(b));
    return ms;
}

START_TEST(test_managed_prefetch_moves_pages_with_time)
{
    size_t n = 8 * MIB;
    unsigned char *p;
    ck_cuda_ok(cudaMallocManaged((void **)&p, n, cudaMemAttachGlobal));
    for (size_t i = 0; i < n; i++) {
        p[i] = (unsigned char)(i * 7);
    }
    float to_dev = timed_prefetch(p, n, dev_loc(0));
    float again = timed_prefetch(p, n, dev_loc(0));
    float to_host = timed_prefetch(p, n, host_loc);
    float host_again = timed_prefetch(p, n, host_loc);
    /* 8 MiB over PCIe Gen4 x16 (~25 GB/s): ~0.3 ms each way */
    ck_assert_float_gt(to_dev, 0.1f);
    ck_assert_float_gt(to_host, 0.1f);
    ck_assert_float_lt(to_dev, 5.0f);
    /* already there: nothing moves */
    ck_assert_float_lt(again, to_dev / 10);
    ck_assert_float_lt(host_again, to_host / 10);
    /* the round trip kept the bytes */
    size_t i = 0;
    while (i < n && p[i] == (unsigned char)(i * 7)) {
        i++;
    }
    ck_assert_uint_eq(i, n);
    ck_cuda_ok(cudaFree(p));
}
END_TEST

START_TEST(test_managed_prefetch_between_devices)
{
    size_t n = 4 * MIB;
    unsigned char *p;
    ck_cuda_ok(cudaMallocManaged((void **)&p, n, cudaMemAttachGlobal));
    memset(p, 0x5e, n);
    float to0 = timed_prefetch(p, n, dev_loc(0));
    float to1 = timed_prefetch(p, n, dev_loc(1));
    float to1_again = timed_prefetch(p, n, dev_loc(1));
    ck_assert_float_gt(to0, 0.0f);
    ck_assert_float_gt(to1, 0.0f);
    ck_assert_float_lt(to1_again, to1 / 10);
    /* only part of the range: cheaper than all of it */
    float part = timed_prefetch(p, 2 * MIB, dev_loc(0));
    ck_assert_float_lt(part, to0);
    ck_assert_float_gt(part, 0.0f);
    size_t i = 0;
    while (i < n && p[i] == 0x5e) {
        i++;
    }
    ck_assert_uint_eq(i, n);
}
END_TEST

START_TEST(test_managed_prefetch_errors)
{
    void *p, *d;
    int on_stack = 0;
    ck_cuda_ok(cudaMallocManaged(&p, MIB, cudaMemAttachGlobal));
    ck_cuda(cudaMemPrefetchAsync(p, MIB, dev_loc(0), 1, 0),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemPrefetchAsync(p, MIB + 1, dev_loc(0), 0, 0),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemPrefetchAsync(p, MIB, dev_loc(99), 0, 0),
            cudaErrorInvalidDevice);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidDevice);
    struct cudaMemLocation bad = { (enum cudaMemLocationType)9, 0 };
    ck_cuda(cudaMemPrefetchAsync(p, MIB, bad, 0, 0), cudaErrorInvalidValue);
    ck_cuda(cudaMemPrefetchAsync(&on_stack, 4, dev_loc(0), 0, 0),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaMalloc(&d, 4096));
    ck_cuda(cudaMemPrefetchAsync(d, 4096, dev_loc(0), 0, 0),
            cudaErrorInvalidValue);
    /* the CUDA 12 idiom for the host still works */
    ck_cuda_ok(cudaMemPrefetchAsync(p, MIB, dev_loc(cudaCpuDeviceId), 0, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
}
END_TEST

START_TEST(test_managed_advise_validation)
{
    void *p;
    int on_stack = 0;
    ck_cuda_ok(cudaMallocManaged(&p, 4 * MIB, cudaMemAttachGlobal));
    ck_cuda_ok(cudaMemAdvise(p, 4 * MIB, cudaMemAdviseSetReadMostly,
                             dev_loc(0)));
    ck_cuda_ok(cudaMemAdvise(p, MIB, cudaMemAdviseUnsetReadMostly, host_loc));
    ck_cuda_ok(cudaMemAdvise(p, 4 * MIB, cudaMemAdviseSetPreferredLocation,
                             dev_loc(2)));
    ck_cuda_ok(cudaMemAdvise(p, 4 * MIB, cudaMemAdviseSetAccessedBy,
                             dev_loc(1)));
    ck_cuda_ok(cudaMemAdvise(p, 4 * MIB, cudaMemAdviseUnsetAccessedBy,
                             dev_loc(1)));
    ck_cuda_ok(cudaMemAdvise(p, 4 * MIB, cudaMemAdviseSetAccessedBy,
                             host_loc));
    ck_cuda_ok(cudaMemAdvise(p, 4 * MIB, cudaMemAdviseUnsetPreferredLocation,
                             dev_loc(0)));

    ck_cuda(cudaMemAdvise(p, MIB, (enum cudaMemoryAdvise)0, dev_loc(0)),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemAdvise(p, MIB, (enum cudaMemoryAdvise)7, dev_loc(0)),
            cudaErrorInvalidValue);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidValue);
    ck_cuda(cudaMemAdvise(p, MIB, cudaMemAdviseSetPreferredLocation,
                          dev_loc(99)),
            cudaErrorInvalidDevice);
    ck_cuda(cudaMemAdvise(p, MIB, cudaMemAdviseSetAccessedBy, dev_loc(-5)),
            cudaErrorInvalidDevice);
    struct cudaMemLocation none = { cudaMemLocationTypeInvalid, 0 };
    ck_cuda(cudaMemAdvise(p, MIB, cudaMemAdviseSetAccessedBy, none),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemAdvise(&on_stack, 4, cudaMemAdviseSetReadMostly,
                          dev_loc(0)),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemAdvise(p, 4 * MIB + 1, cudaMemAdviseSetReadMostly,
                          dev_loc(0)),
            cudaErrorInvalidValue);
}
END_TEST

START_TEST(test_managed_memset_is_synchronous)
{
    size_t n = 3 * MIB;
    unsigned char *p;
    ck_cuda_ok(cudaMallocManaged((void **)&p, n, cudaMemAttachGlobal));
    memset(p, 1, n);
    ck_cuda_ok(cudaMemset(p + 10, 0x99, n - 20));
    /* synchronous for managed targets: no synchronization needed */
    ck_assert_uint_eq(p[9], 1);
    ck_assert_uint_eq(p[10], 0x99);
    ck_assert_uint_eq(p[n - 11], 0x99);
    ck_assert_uint_eq(p[n - 10], 1);
    ck_cuda(cudaMemset(p, 0, n + 1), cudaErrorInvalidValue);
}
END_TEST

/* A memset touching host-resident pages faults them to the device first:
 * slower than the same memset once they are there. */
START_TEST(test_managed_memset_faults_pages_in)
{
    size_t n = 4 * MIB;
    void *p;
    cudaEvent_t e[3];
    float first, second;
    ck_cuda_ok(cudaMallocManaged(&p, n, cudaMemAttachGlobal));
    for (int i = 0; i < 3; i++) {
        ck_cuda_ok(cudaEventCreate(&e[i]));
    }
    ck_cuda_ok(cudaEventRecord(e[0], 0));
    ck_cuda_ok(cudaMemsetAsync(p, 3, n, 0));
    ck_cuda_ok(cudaEventRecord(e[1], 0));
    ck_cuda_ok(cudaMemsetAsync(p, 4, n, 0));
    ck_cuda_ok(cudaEventRecord(e[2], 0));
    ck_cuda_ok(cudaEventSynchronize(e[2]));
    ck_cuda_ok(cudaEventElapsedTime(&first, e[0], e[1]));
    ck_cuda_ok(cudaEventElapsedTime(&second, e[1], e[2]));
    /* the fault latency (20 us) plus 4 MiB over PCIe */
    ck_assert_float_gt(first, 0.02f);
    ck_assert_float_lt(second, first);
    ck_assert_uint_eq(((unsigned char *)p)[n - 1], 4);
}
END_TEST

static int range_int(const void *p, size_t n, enum cudaMemRangeAttribute a)
{
    int v = 12345;
    ck_cuda_ok(cudaMemRangeGetAttribute(&v, sizeof v, a, p, n));
    return v;
}

/* What holds for every page of a range: advice set on part of it does
 * not hold for the whole; AccessedBy lists devices then the host, padded
 * with cudaInvalidDeviceId. */
START_TEST(test_managed_range_attributes)
{
    unsigned char *p;
    ck_cuda_ok(cudaMallocManaged((void **)&p, 4 * MIB, cudaMemAttachGlobal));
    ck_assert_int_eq(range_int(p, 4 * MIB, cudaMemRangeAttributeReadMostly),
                     0);
    ck_assert_int_eq(
        range_int(p, 4 * MIB, cudaMemRangeAttributePreferredLocation),
        cudaInvalidDeviceId);
    ck_cuda_ok(cudaMemAdvise(p, 2 * MIB, cudaMemAdviseSetReadMostly,
                             dev_loc(0)));
    ck_assert_int_eq(range_int(p, 2 * MIB, cudaMemRangeAttributeReadMostly),
                     1);
    ck_assert_int_eq(range_int(p, 4 * MIB, cudaMemRangeAttributeReadMostly),
                     0);
    ck_cuda_ok(cudaMemAdvise(p, 4 * MIB, cudaMemAdviseSetPreferredLocation,
                             dev_loc(2)));
    ck_assert_int_eq(
        range_int(p, 4 * MIB, cudaMemRangeAttributePreferredLocation), 2);
    ck_assert_int_eq(
        range_int(p, 4 * MIB, cudaMemRangeAttributePreferredLocationType),
        cudaMemLocationTypeDevice);
    ck_assert_int_eq(
        range_int(p, 4 * MIB, cudaMemRangeAttributePreferredLocationId), 2);
    ck_cuda_ok(cudaMemAdvise(p, 4 * MIB, cudaMemAdviseSetAccessedBy,
                             dev_loc(3)));
    ck_cuda_ok(cudaMemAdvise(p, 4 * MIB, cudaMemAdviseSetAccessedBy,
                             host_loc));
    ck_cuda_ok(cudaMemAdvise(p, MIB, cudaMemAdviseSetAccessedBy, dev_loc(1)));
    int acc[4];
    ck_cuda_ok(cudaMemRangeGetAttribute(acc, sizeof acc,
                                        cudaMemRangeAttributeAccessedBy, p,
                                        4 * MIB));
    ck_assert_int_eq(acc[0], 3);
    ck_assert_int_eq(acc[1], cudaCpuDeviceId);
    ck_assert_int_eq(acc[2], cudaInvalidDeviceId);
    ck_assert_int_eq(acc[3], cudaInvalidDeviceId);

    ck_cuda_ok(cudaMemPrefetchAsync(p, 4 * MIB, dev_loc(1), 0, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    int vals[2] = { 0, 0 };
    void *data[2] = { &vals[0], &vals[1] };
    size_t sizes[2] = { 4, 4 };
    enum cudaMemRangeAttribute attrs[2] = {
        cudaMemRangeAttributeLastPrefetchLocation,
        cudaMemRangeAttributeLastPrefetchLocationType,
    };
    ck_cuda_ok(cudaMemRangeGetAttributes(data, sizes, attrs, 2, p, 4 * MIB));
    ck_assert_int_eq(vals[0], 1);
    ck_assert_int_eq(vals[1], cudaMemLocationTypeDevice);

    int v, on_stack = 0;
    ck_cuda(cudaMemRangeGetAttribute(&v, 8, cudaMemRangeAttributeReadMostly,
                                     p, MIB),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemRangeGetAttribute(acc, 6, cudaMemRangeAttributeAccessedBy,
                                     p, MIB),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemRangeGetAttribute(&v, 4, (enum cudaMemRangeAttribute)9, p,
                                     MIB),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributeReadMostly,
                                     &on_stack, 4),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributeReadMostly,
                                     p, 4 * MIB + 1),
            cudaErrorInvalidValue);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidValue);
    ck_cuda_ok(cudaFree(p));
}
END_TEST

/* p[i] += 1 for i < n, four u32 (16 bytes) at a time, grid-stride. */
static void k_add1(void **args)
{
    uint32_t *p = *(uint32_t **)args[0];
    unsigned n = *(unsigned *)args[1];
    struct devapi_dim3 g = devapi_grid_dim(), b = devapi_block_dim();
    unsigned stride = g.x * b.x * 4;
    for (unsigned i = devapi_global_id() * 4; i < n; i += stride) {
        uint32_t v[4];
        devapi_load(v, &p[i], 16, DEVAPI_WEAK, DEVAPI_CTA);
        for (unsigned k = 0; k < 4; k++) {
            v[k]++;
        }
        devapi_store(&p[i], v, 16, DEVAPI_WEAK, DEVAPI_CTA);
    }
}

static const size_t add1_args[] = { 8, 4 };

/* Elapsed ms of k_add1 over n u32 at p on device 0's legacy stream. */
static float timed_add1(uint32_t *p, unsigned n)
{
    static const void *k;
    if (!k) {
        k = p2psim_kernel_register("managed_add1", k_add1, 2, add1_args);
    }
    void *args[] = { &p, &n };
    dim3 grid = { 132, 1, 1 }, block = { 256, 1, 1 };
    cudaEvent_t a, b;
    float ms = -1.0f;
    ck_cuda_ok(cudaEventCreate(&a));
    ck_cuda_ok(cudaEventCreate(&b));
    ck_cuda_ok(cudaEventRecord(a, 0));
    ck_cuda_ok(cudaLaunchKernel(k, grid, block, args, 0, 0));
    ck_cuda_ok(cudaEventRecord(b, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_cuda_ok(cudaEventElapsedTime(&ms, a, b));
    ck_cuda_ok(cudaEventDestroy(a));
    ck_cuda_ok(cudaEventDestroy(b));
    return ms;
}

/* The first index i of p[0, n) not equal to i + d (n: none). */
static unsigned first_off(const uint32_t *p, unsigned n, uint32_t d)
{
    unsigned i = 0;
    while (i < n && p[i] == i + d) {
        i++;
    }
    return i;
}

/*
 * Issue 25's measurement: a kernel over 4 MiB of managed memory after
 * cudaMemPrefetchAsync to its GPU takes device-memory time (the pages are
 * in the GPU's HBM), not the time of mapped host memory it takes while
 * the pages are on the host; the bytes stay right across both.
 */
START_TEST(test_managed_kernel_after_prefetch_is_local)
{
    unsigned n = (unsigned)(4 * MIB / 4);
    uint32_t *dev, *p;
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaMalloc((void **)&dev, 4 * MIB));
    ck_cuda_ok(cudaMemset(dev, 0, 4 * MIB));
    float ms_dev = timed_add1(dev, n);
    ck_cuda_ok(cudaMallocManaged((void **)&p, 4 * MIB, cudaMemAttachGlobal));
    for (unsigned i = 0; i < n; i++) {
        p[i] = i;
    }
    float ms_host = timed_add1(p, n);       /* pages on the host */
    ck_assert_uint_eq(first_off(p, n, 1), n);
    ck_cuda_ok(cudaMemPrefetchAsync(p, 4 * MIB, dev_loc(0), 0, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    float ms_local = timed_add1(p, n);      /* pages in GPU 0's HBM */
    /* the kernel's writes are back in the host's view after the sync */
    ck_assert_uint_eq(first_off(p, n, 2), n);
    /* host writes between kernels reach the next kernel */
    for (unsigned i = 0; i < n; i++) {
        p[i] = i + 10;
    }
    float ms_again = timed_add1(p, n);
    ck_assert_uint_eq(first_off(p, n, 11), n);
    ck_assert_float_gt(ms_local, 0.0f);
    ck_assert_float_lt(ms_local, 2 * ms_dev);
    ck_assert_float_gt(ms_local, ms_dev / 2);
    ck_assert_float_lt(ms_again, 2 * ms_dev);
    ck_assert_float_gt(ms_host, 4 * ms_local);
    /* back on the host: mapped access again */
    ck_cuda_ok(cudaMemPrefetchAsync(p, 4 * MIB, host_loc, 0, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_assert_uint_eq(first_off(p, n, 11), n);
    float ms_back = timed_add1(p, n);
    ck_assert_float_gt(ms_back, 4 * ms_local);
    ck_assert_uint_eq(first_off(p, n, 12), n);
    ck_cuda_ok(cudaFree(p));
    ck_cuda_ok(cudaFree(dev));
}
END_TEST

/* The integer after "key": in the JSON text js, or -1. */
static long long json_int(const char *js, const char *key)
{
    char k[64];
    snprintf(k, sizeof(k), "\"%s\": ", key);
    const char *at = strstr(js, k);
    return at ? strtoll(at + strlen(k), NULL, 10) : -1;
}

/*
 * Without a prefetch, the first kernel over 4 MiB of managed memory
 * faults the pages in: it takes the fault latency and the 4 MiB over
 * PCIe, more than a kernel over the pages once there; the second kernel
 * finds them resident (device-memory time, nothing moves). Run in a
 * child whose runtime writes its counters (P2PSIM_STATS) at exit.
 */
START_TEST(test_managed_kernel_first_touch_faults)
{
    char stats[] = "/tmp/check_managed_stats_XXXXXX";
    int fd = mkstemp(stats);
    ck_assert_int_ge(fd, 0);
    int pipe_fd[2];
    ck_assert_int_eq(pipe(pipe_fd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setenv("P2PSIM_STATS", stats, 1);
        unsigned n = (unsigned)(4 * MIB / 4);
        uint32_t *dev, *p;
        float ms[3];
        ck_cuda_ok(cudaSetDevice(0));
        ck_cuda_ok(cudaMalloc((void **)&dev, 4 * MIB));
        ck_cuda_ok(cudaMemset(dev, 0, 4 * MIB));
        ms[0] = timed_add1(dev, n);
        ck_cuda_ok(cudaMallocManaged((void **)&p, 4 * MIB,
                                     cudaMemAttachGlobal));
        for (unsigned i = 0; i < n; i++) {
            p[i] = i;
        }
        ms[1] = timed_add1(p, n);           /* first touch: faults */
        ms[2] = timed_add1(p, n);           /* resident on GPU 0 */
        bool right = first_off(p, n, 2) == n;
        /* already there: the prefetch moves nothing */
        ck_cuda_ok(cudaMemPrefetchAsync(p, 4 * MIB, dev_loc(0), 0, 0));
        ck_cuda_ok(cudaDeviceSynchronize());
        ssize_t w = write(pipe_fd[1], ms, sizeof(ms));
        w += write(pipe_fd[1], &right, sizeof(right));
        exit(w == sizeof(ms) + sizeof(right) ? 0 : 1);
    }
    close(pipe_fd[1]);
    float ms[3] = { 0, 0, 0 };
    bool right = false;
    ck_assert_int_eq(read(pipe_fd[0], ms, sizeof(ms)), sizeof(ms));
    ck_assert_int_eq(read(pipe_fd[0], &right, sizeof(right)),
                     sizeof(right));
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    static char js[1 << 16];
    ssize_t len = pread(fd, js, sizeof(js) - 1, 0);
    close(fd);
    unlink(stats);
    ck_assert_int_gt(len, 0);
    js[len] = '\0';
    ck_assert(right);
    /* cudaMalloc, first touch, resident */
    ck_assert_msg(ms[1] > ms[2] * 4 && ms[2] < 2 * ms[0] &&
                  ms[2] > ms[0] / 2, "dev %.4f first %.4f then %.4f ms",
                  ms[0], ms[1], ms[2]);
    /* the 20 us fault latency and 4 MiB at most ~57 GB/s of Gen5 x16 */
    ck_assert_float_gt(ms[1], 0.02f + 4.0f * MIB / 57e9f * 1e3f);
    long long faults = json_int(js, "managed_faults");
    ck_assert_msg(faults >= 1 && faults <= 2, "%lld fault batches", faults);
    ck_assert_int_eq(json_int(js, "managed_migrated_bytes"),
                     (long long)(4 * MIB));
}
END_TEST

/*
 * Advice that maps instead of migrating: pages preferring the host, and
 * pages GPU 0 is AccessedBy, are read by GPU 0's kernel where they are
 * (mapped host time, each run), and are still on the host afterwards (a
 * prefetch then moves 4 MiB).
 */
START_TEST(test_managed_kernel_advice_maps)
{
    unsigned n = (unsigned)(4 * MIB / 4);
    uint32_t *dev;
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaMalloc((void **)&dev, 4 * MIB));
    float ms_dev = timed_add1(dev, n);
    for (unsigned k = 0; k < 2; k++) {
        uint32_t *p;
        ck_cuda_ok(cudaMallocManaged((void **)&p, 4 * MIB,
                                     cudaMemAttachGlobal));
        ck_cuda_ok(cudaMemAdvise(p, 4 * MIB,
                                 k ? cudaMemAdviseSetAccessedBy
                                   : cudaMemAdviseSetPreferredLocation,
                                 k ? dev_loc(0) : host_loc));
        for (unsigned i = 0; i < n; i++) {
            p[i] = i;
        }
        float first = timed_add1(p, n), second = timed_add1(p, n);
        ck_assert_uint_eq(first_off(p, n, 2), n);
        ck_assert_msg(first > 4 * ms_dev && second > 4 * ms_dev,
                      "advice %u: %.4f then %.4f ms, device %.4f ms", k,
                      first, second, ms_dev);
        ck_assert_float_gt(timed_prefetch(p, 4 * MIB, dev_loc(0)), 0.1f);
        ck_cuda_ok(cudaFree(p));
    }
    ck_cuda_ok(cudaFree(dev));
}
END_TEST

static void k_count(void **args)
{
    uint32_t *c = *(uint32_t **)args[0];
    devapi_atomic(DEVAPI_ATOM_ADD, DEVAPI_U32, c, 1, 0, DEVAPI_GPU);
}

static const size_t count_args[] = { 8 };

/* Atomics fault too: 1024 threads' atomicAdd on a managed counter on the
 * host count exactly, and its 2 MiB page is GPU 0's afterwards (a prefetch
 * there moves nothing, one back to the host moves it). */
START_TEST(test_managed_kernel_atomics_fault)
{
    const void *k = p2psim_kernel_register("managed_count", k_count, 1,
                                           count_args);
    uint32_t *c;
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaMallocManaged((void **)&c, 2 * MIB, cudaMemAttachGlobal));
    *c = 5;
    void *args[] = { &c };
    dim3 grid = { 4, 1, 1 }, block = { 256, 1, 1 };
    ck_cuda_ok(cudaLaunchKernel(k, grid, block, args, 0, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_assert_uint_eq(*c, 5 + 1024);
    float again = timed_prefetch(c, 2 * MIB, dev_loc(0));
    float back = timed_prefetch(c, 2 * MIB, host_loc);
    ck_assert_msg(again * 10 < back, "to GPU 0 %.4f ms, to the host %.4f ms",
                  again, back);
    ck_assert_uint_eq(*c, 5 + 1024);
    ck_cuda_ok(cudaFree(c));
}
END_TEST

Suite *make_cudart_managed_suite(void)
{
    Suite *s = suite_create("cudart-managed");
    TCase *tc = tcase_create("Allocation");
    tcase_add_test(tc, test_managed_alloc_flags_and_size);
    suite_add_tcase(s, tc);

    tc = tcase_create("Migration");
    tcase_add_test(tc, test_managed_prefetch_moves_pages_with_time);
    tcase_add_test(tc, test_managed_prefetch_between_devices);
    tcase_add_test(tc, test_managed_prefetch_errors);
    tcase_add_test(tc, test_managed_memset_is_synchronous);
    tcase_add_test(tc, test_managed_memset_faults_pages_in);
    tcase_add_test(tc, test_managed_kernel_after_prefetch_is_local);
    tcase_add_test(tc, test_managed_kernel_first_touch_faults);
    tcase_add_test(tc, test_managed_kernel_advice_maps);
    tcase_add_test(tc, test_managed_kernel_atomics_fault);
    tcase_set_timeout(tc, 60);  /* the kernels: 1-3 s of wall time each */
    suite_add_tcase(s, tc);

    tc = tcase_create("Advice");
    tcase_add_test(tc, test_managed_advise_validation);
    tcase_add_test(tc, test_managed_range_attributes);
    suite_add_tcase(s, tc);
    return s;
}
