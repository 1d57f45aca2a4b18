/*
 * tests/cudart/check_kernels.c - C kernels launched through the CUDA
 * runtime shim (cudaLaunchKernel, cudaLaunchCooperativeKernel): the C
 * versions of what the .cu programs of tests/kernels/ show, so that CI
 * (no nvcc) runs them: a kernel reading peer memory and verifying it,
 * two GPUs doing atomicAdd_system on one counter, a producer/consumer
 * across GPUs polling a flag, a kernel polling a host-mapped flag that
 * the host sets (seen at the host's clock), and the errors a faulting
 * kernel gives.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "machine/include/p2psim_kernel.h"
#include "tests/cudart/cudart_test.h"

static dim3 d3(unsigned x, unsigned y, unsigned z)
{
    dim3 d = { x, y, z };
    return d;
}

/* out[i] = in[i] ^ key, reading wherever in points */
static void k_xor(void **args)
{
    const uint32_t *in = *(uint32_t **)args[0];
    uint32_t *out = *(uint32_t **)args[1];
    unsigned n = *(unsigned *)args[2];
    uint32_t key = *(uint32_t *)args[3];
    unsigned i = devapi_global_id();
    if (i < n) {
        devapi_st_u32(&out[i], devapi_ld_u32(&in[i]) ^ key);
    }
}

static const size_t xor_args[] = { 8, 8, 4, 4 };

static void k_add_system(void **args)
{
    unsigned long long *c = *(unsigned long long **)args[0];
    devapi_atomic_add_u64((uint64_t *)c, 1, DEVAPI_SYS);
}

static const size_t add_args[] = { 8 };

/* The peer read: GPU 1 reads GPU 0's buffer and checks it. */
START_TEST(test_kernels_peer_read_verifies)
{
    cudart_test_machine("pcie-8gpu-2socket.yaml");
    const void *k = p2psim_kernel_register("xor", k_xor, 4, xor_args);
    ck_assert_ptr_nonnull(k);
    unsigned n = 4096;
    uint32_t key = 0x5a5a5a5a;
    static uint32_t host[4096], back[4096];
    for (unsigned i = 0; i < n; i++) {
        host[i] = i * 40503u;
    }
    uint32_t *src, *dst;
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaMalloc((void **)&src, n * 4));
    ck_cuda_ok(cudaMemcpy(src, host, n * 4, cudaMemcpyHostToDevice));
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaMalloc((void **)&dst, n * 4));
    ck_cuda_ok(cudaDeviceEnablePeerAccess(0, 0));
    void *args[] = { &src, &dst, &n, &key };
    cudaEvent_t a, b;
    ck_cuda_ok(cudaEventCreate(&a));
    ck_cuda_ok(cudaEventCreate(&b));
    ck_cuda_ok(cudaEventRecord(a, 0));
    ck_cuda_ok(cudaLaunchKernel(k, d3(n / 256, 1, 1), d3(256, 1, 1), args, 0,
                                0));
    ck_cuda_ok(cudaEventRecord(b, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    float ms = 0;
    ck_cuda_ok(cudaEventElapsedTime(&ms, a, b));
    ck_assert(ms > 0);          /* the reads took simulated time */
    ck_cuda_ok(cudaMemcpy(back, dst, n * 4, cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < n; i++) {
        ck_assert_uint_eq(back[i], (i * 40503u) ^ key);
    }
}
END_TEST

/* Without peer access the same read is an illegal address (sticky). */
START_TEST(test_kernels_peer_read_without_access_faults)
{
    cudart_test_machine("pcie-8gpu-2socket.yaml");
    const void *k = p2psim_kernel_register("xor", k_xor, 4, xor_args);
    unsigned n = 256;
    uint32_t key = 1;
    uint32_t *src, *dst;
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaMalloc((void **)&src, n * 4));
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaMalloc((void **)&dst, n * 4));
    void *args[] = { &src, &dst, &n, &key };
    ck_cuda_ok(cudaLaunchKernel(k, d3(1, 1, 1), d3(256, 1, 1), args, 0, 0));
    ck_cuda(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    ck_cuda(cudaMalloc((void **)&dst, 4), cudaErrorIllegalAddress);
}
END_TEST

/* Two GPUs, one counter in pinned host memory... no: PCIe AtomicOps to
 * host DRAM depend on the root complex; the counter lives in GPU 0. */
START_TEST(test_kernels_atomic_add_system_two_gpus)
{
    cudart_test_machine("pcie-8gpu-2socket.yaml");
    const void *k = p2psim_kernel_register("add", k_add_system, 1, add_args);
    unsigned long long *c, total = 0;
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaMalloc((void **)&c, 8));
    ck_cuda_ok(cudaMemset(c, 0, 8));
    ck_cuda_ok(cudaDeviceSynchronize());   /* before GPU 1's stream */
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaDeviceEnablePeerAccess(0, 0));
    void *args[] = { &c };
    cudaStream_t s0, s1;
    ck_cuda_ok(cudaStreamCreate(&s1));
    ck_cuda_ok(cudaLaunchKernel(k, d3(8, 1, 1), d3(128, 1, 1), args, 0, s1));
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaStreamCreate(&s0));
    ck_cuda_ok(cudaLaunchKernel(k, d3(6, 1, 1), d3(96, 1, 1), args, 0, s0));
    ck_cuda_ok(cudaStreamSynchronize(s0));
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaStreamSynchronize(s1));
    ck_cuda_ok(cudaMemcpy(&total, c, 8, cudaMemcpyDeviceToHost));
    ck_assert_uint_eq(total, 8 * 128 + 6 * 96);
}
END_TEST

/* Producer on GPU 0 writes data then a flag into GPU 1; the consumer on
 * GPU 1 polls the flag and reads the data. Returns what it read. */
static void k_producer(void **args)
{
    uint32_t *data = *(uint32_t **)args[0];
    uint32_t *flag = *(uint32_t **)args[1];
    unsigned fence = *(unsigned *)args[2];
    for (unsigned i = 0; i < 32; i++) {
        devapi_st_volatile_u32(&data[i * 32], 100 + i);
    }
    if (fence) {
        devapi_fence(DEVAPI_SYS);
    }
    devapi_st_volatile_u32(flag, 1);
}

static void k_consumer(void **args)
{
    uint32_t *data = *(uint32_t **)args[0];
    uint32_t *flag = *(uint32_t **)args[1];
    uint32_t *out = *(uint32_t **)args[3];
    while (devapi_ld_volatile_u32(flag) == 0) {
    }
    uint32_t bad = 0;
    for (unsigned i = 0; i < 32; i++) {
        bad += devapi_ld_volatile_u32(&data[i * 32]) != 100 + i;
    }
    devapi_st_u32(out, bad);
}

static const size_t pc_args[] = { 8, 8, 4, 8 };

START_TEST(test_kernels_producer_consumer_with_fence)
{
    cudart_test_machine("pcie-8gpu-2socket.yaml");
    const void *p = p2psim_kernel_register("producer", k_producer, 4,
                                           pc_args);
    const void *c = p2psim_kernel_register("consumer", k_consumer, 4,
                                           pc_args);
    uint32_t *buf, stale = 99;
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaMalloc((void **)&buf, 8192));
    ck_cuda_ok(cudaMemset(buf, 0, 8192));
    ck_cuda_ok(cudaDeviceSynchronize());
    uint32_t *data = buf, *flag = buf + 1536, *out = buf + 1600;
    unsigned fence = 1;
    void *args[] = { &data, &flag, &fence, &out };
    cudaStream_t s1;
    ck_cuda_ok(cudaStreamCreate(&s1));
    ck_cuda_ok(cudaLaunchKernel(c, d3(1, 1, 1), d3(1, 1, 1), args, 0, s1));
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaDeviceEnablePeerAccess(1, 0));
    ck_cuda_ok(cudaLaunchKernel(p, d3(1, 1, 1), d3(1, 1, 1), args, 0, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaStreamSynchronize(s1));
    ck_cuda_ok(cudaMemcpy(&stale, out, 4, cudaMemcpyDeviceToHost));
    ck_assert_uint_eq(stale, 0);
}
END_TEST

/* Spins on a host-mapped flag; then writes the time it saw it set. */
static void k_wait_host(void **args)
{
    const uint32_t *flag = *(uint32_t **)args[0];
    uint64_t *seen = *(uint64_t **)args[1];
    while (devapi_ld_volatile_u32(flag) == 0) {
    }
    uint64_t t = devapi_globaltimer();
    devapi_store(seen, &t, 8, DEVAPI_WEAK, DEVAPI_GPU);
}

static const size_t wait_args[] = { 8, 8 };

void cudart_test_host_store(cudaStream_t s, void (*launch)(void *arg),
                            void *arg, volatile uint32_t *flag,
                            uint32_t value, float *held_us, float *after_us)
{
    cudaStream_t other;
    cudaEvent_t start, end, stored, busy;
    ck_cuda_ok(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    ck_cuda_ok(cudaEventCreate(&start));
    ck_cuda_ok(cudaEventCreate(&end));
    ck_cuda_ok(cudaEventCreate(&stored));
    ck_cuda_ok(cudaEventCreate(&busy));
    ck_cuda_ok(cudaEventRecord(start, s));
    launch(arg);
    ck_cuda_ok(cudaEventRecord(end, s));
    for (int i = 0; i < 50; i++) {
        ck_cuda_ok(cudaEventRecord(busy, other));
    }
    *flag = value;
    ck_cuda_ok(cudaEventRecord(stored, other));
    ck_cuda_ok(cudaStreamSynchronize(s));
    float held = 0, after = 0;
    ck_cuda_ok(cudaEventElapsedTime(&held, start, end));
    ck_cuda_ok(cudaEventElapsedTime(&after, stored, end));
    *held_us = held * 1e3f;
    *after_us = after * 1e3f;
    printf("host store: kernel held %.3f us, ended %.3f us after the "
           "store's event\n", *held_us, *after_us);
}

struct wait_launch {
    cudaStream_t s;
    void **args;
};

static void launch_wait_host(void *arg)
{
    struct wait_launch *w = arg;
    ck_cuda_ok(cudaLaunchKernel(p2psim_kernel_register("wait_host",
                                                       k_wait_host, 2,
                                                       wait_args),
                                d3(1, 1, 1), d3(1, 1, 1), w->args, 0, w->s));
}

/*
 * The host queues work behind a kernel that polls a pinned flag, then sets
 * the flag: the kernel sees the store at the host's simulated clock (rt.c's
 * catch-up), not at once (the store is in memory long before the host
 * waits and the simulation runs) and not when the host waits. The queued
 * calls (45 us) hold the kernel; it ends within a poll (a PCIe read, about
 * 1.5 us here) of the store, whose event is charged 0.9 us after it.
 */
START_TEST(test_kernels_host_flag_at_host_time)
{
    cudart_test_machine("h200-x1.yaml");
    volatile uint32_t *flag;
    uint64_t *seen, t_seen = 0;
    ck_cuda_ok(cudaHostAlloc((void **)&flag, 4, cudaHostAllocMapped));
    ck_cuda_ok(cudaMalloc((void **)&seen, 8));
    *flag = 0;
    void *args[] = { &flag, &seen };
    struct wait_launch w = { 0, args };
    ck_cuda_ok(cudaStreamCreateWithFlags(&w.s, cudaStreamNonBlocking));
    float held, after;
    cudart_test_host_store(w.s, launch_wait_host, &w, flag, 1, &held,
                           &after);
    ck_assert_msg(held > 45.0f, "the kernel was not held: %.3f us", held);
    ck_assert_msg(after > -1.0f && after < 4.0f,
                  "the kernel ended %.3f us after the store", after);
    ck_cuda_ok(cudaMemcpy(&t_seen, seen, 8, cudaMemcpyDeviceToHost));
    ck_assert_uint_gt(t_seen, 45000);   /* ns: it saw the flag that late */
}
END_TEST

/* Registration and launch errors of C kernels. */
START_TEST(test_kernels_register_errors)
{
    cudart_test_machine(NULL);
    size_t big = 8192, one = 8;
    ck_assert_ptr_null(p2psim_kernel_register(NULL, k_xor, 0, NULL));
    ck_assert_ptr_null(p2psim_kernel_register("x", NULL, 0, NULL));
    ck_assert_ptr_null(p2psim_kernel_register("x", k_xor, 1, &big));
    ck_assert_ptr_null(p2psim_kernel_register("x", k_xor, 1, NULL));
    const void *k = p2psim_kernel_register("x", k_xor, 1, &one);
    ck_assert_ptr_eq(p2psim_kernel_register("x", k_xor, 1, &one), k);
    /* arguments are required when the kernel has some */
    ck_cuda(cudaLaunchKernel(k, d3(1, 1, 1), d3(1, 1, 1), NULL, 0, 0),
            cudaErrorInvalidValue);
    ck_cuda(cudaLaunchKernel(k, d3(0, 1, 1), d3(1, 1, 1), NULL, 0, 0),
            cudaErrorInvalidConfiguration);
}
END_TEST

Suite *make_cudart_kernels_suite(void)
{
    Suite *s = suite_create("cudart-kernels");
    TCase *tc = tcase_create("C kernels");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_kernels_peer_read_verifies);
    tcase_add_test(tc, test_kernels_peer_read_without_access_faults);
    tcase_add_test(tc, test_kernels_atomic_add_system_two_gpus);
    tcase_add_test(tc, test_kernels_producer_consumer_with_fence);
    tcase_add_test(tc, test_kernels_host_flag_at_host_time);
    tcase_add_test(tc, test_kernels_register_errors);
    suite_add_tcase(s, tc);
    return s;
}
