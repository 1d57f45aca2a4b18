/*
 * tests/cudart/check_park.c - a PTX warp spinning on a flag parks
 * (machine/kernel/spin.c) and wakes when anyone writes the flag: a host
 * thread, a copy engine, a peer GPU's kernel (a store, an atomic), with
 * or without __nanosleep in the loop. Each case runs twice from a fresh
 * process, in a child with P2PSIM_PARK=0 and here with parking: the
 * kernel's span and what it read must be the same to the bit, and only
 * the parked run may skip rounds.
 *
 * The PTX is hand-written (CI has no nvcc), registered as nvcc's static
 * constructors would (module_test.c).
 */
#include <config.h>

#include "tests/cudart/cudart_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/include/p2psim_cudart_internal.h"
#include "machine/kernel/kernel.h"

/* spin(flag, out): until *flag != 0 (a volatile load a round, and a
 * nanosleep if nap); then out = *flag + 1. poke(flag, v, atomic): *flag =
 * v, or atomicAdd_system(flag, v). */
static const char park_ptx[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry spin(.param .u64 flag, .param .u64 out,"
    " .param .u32 nap)\n{\n"
    "\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n"
    "\tld.param.u64 %rd1, [flag];\n\tld.param.u64 %rd2, [out];\n"
    "\tld.param.u32 %r3, [nap];\n\tsetp.ne.s32 %p2, %r3, 0;\n"
    "$L__spin:\n"
    "\tld.volatile.global.u32 %r1, [%rd1];\n"
    "\tsetp.ne.s32 %p1, %r1, 0;\n\t@%p1 bra $L__done;\n"
    "\t@%p2 nanosleep.u32 100;\n\tbra.uni $L__spin;\n"
    "$L__done:\n\tadd.s32 %r2, %r1, 1;\n\tst.global.u32 [%rd2], %r2;\n"
    "\tret;\n}\n"
    ".visible .entry poke(.param .u64 flag, .param .u32 v,"
    " .param .u32 atomic)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n"
    "\tld.param.u64 %rd1, [flag];\n\tld.param.u32 %r1, [v];\n"
    "\tld.param.u32 %r2, [atomic];\n\tsetp.ne.s32 %p1, %r2, 0;\n"
    "\t@%p1 bra $L__atom;\n\tst.volatile.global.u32 [%rd1], %r1;\n"
    "\tret;\n"
    "$L__atom:\n\tatom.global.sys.add.u32 %r3, [%rd1], %r1;\n\tret;\n}\n";

#define KEY(f) ((const void *)(uintptr_t)(f))
static void stub_spin(void) {}
static void stub_poke(void) {}

static void register_park(void)
{
    void **h = cudart_test_register_ptx(park_ptx, sizeof(park_ptx));
    __cudaRegisterFunction(h, (const char *)KEY(stub_spin), (char *)"spin",
                           "spin", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(h, (const char *)KEY(stub_poke), (char *)"poke",
                           "poke", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
}

/* Who writes the flag. */
enum writer { W_HOST, W_HOST_NAP, W_COPY, W_PEER, W_ATOMIC };

struct park_result {
    float ms;                   /* the spinning kernel's span */
    uint32_t out;               /* what it wrote: the flag + 1 */
    uint64_t parked;            /* rounds not interpreted */
};

/* The spinning kernel on GPU 0 of pcie-8gpu-2socket, released after 2000
 * event records of the host (about 1.8 ms of its clock) by wr. */
static struct park_result park_run(enum writer wr)
{
    cudart_test_machine("pcie-8gpu-2socket.yaml");
    register_park();
    uint32_t *flag, *out, *three, got = 0;
    bool host = wr == W_HOST || wr == W_HOST_NAP;
    if (host) {
        ck_cuda_ok(cudaHostAlloc((void **)&flag, 4, cudaHostAllocMapped));
        *(volatile uint32_t *)flag = 0;
    } else {
        ck_cuda_ok(cudaMalloc((void **)&flag, 4));
        ck_cuda_ok(cudaMemset(flag, 0, 4));
    }
    ck_cuda_ok(cudaMalloc((void **)&out, 4));
    ck_cuda_ok(cudaHostAlloc((void **)&three, 4, cudaHostAllocDefault));
    *three = 3;
    if (wr == W_PEER || wr == W_ATOMIC) {
        ck_cuda_ok(cudaSetDevice(1));
        ck_cuda_ok(cudaDeviceEnablePeerAccess(0, 0));
        ck_cuda_ok(cudaSetDevice(0));
    }
    ck_cuda_ok(cudaDeviceSynchronize());
    cudaStream_t s, other;
    cudaEvent_t a, b, busy;
    ck_cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    ck_cuda_ok(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    ck_cuda_ok(cudaEventCreate(&a));
    ck_cuda_ok(cudaEventCreate(&b));
    ck_cuda_ok(cudaEventCreate(&busy));
    uint32_t nap = wr == W_HOST_NAP;
    void *sargs[] = { &flag, &out, &nap };
    uint64_t parked0 = p2psim_kernel_parked_rounds();
    ck_cuda_ok(cudaEventRecord(a, s));
    ck_cuda_ok(cudaLaunchKernel(KEY(stub_spin), (dim3){ 1, 1, 1 },
                                (dim3){ 1, 1, 1 }, sargs, 0, s));
    ck_cuda_ok(cudaEventRecord(b, s));
    for (int i = 0; i < 2000; i++) {
        ck_cuda_ok(cudaEventRecord(busy, other));
    }
    if (host) {
        *(volatile uint32_t *)flag = 2;
    } else if (wr == W_COPY) {
        ck_cuda_ok(cudaMemcpyAsync(flag, three, 4, cudaMemcpyHostToDevice,
                                   other));
    } else {
        uint32_t v = 2, atomic = wr == W_ATOMIC;
        void *pargs[] = { &flag, &v, &atomic };
        ck_cuda_ok(cudaSetDevice(1));
        ck_cuda_ok(cudaLaunchKernel(KEY(stub_poke), (dim3){ 1, 1, 1 },
                                    (dim3){ 1, 1, 1 }, pargs, 0, 0));
        ck_cuda_ok(cudaSetDevice(0));
    }
    ck_cuda_ok(cudaStreamSynchronize(s));
    struct park_result r = { 0, 0, 0 };
    ck_cuda_ok(cudaEventElapsedTime(&r.ms, a, b));
    ck_cuda_ok(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
    r.out = got;
    r.parked = p2psim_kernel_parked_rounds() - parked0;
    return r;
}

static enum writer child_writer;

static void park_child(void *out)
{
    *(struct park_result *)out = park_run(child_writer);
}

/* wr's run without parking (in a child) and with it (here). */
static void park_compare(enum writer wr, uint32_t want)
{
    struct park_result off;
    child_writer = wr;
    cudart_test_in_child("P2PSIM_PARK", "0", park_child, &off, sizeof(off));
    unsetenv("P2PSIM_PARK");
    struct park_result on = park_run(wr);
    printf("parking, writer %d: span %.6f ms (%.6f unparked), read %u, "
           "%llu rounds parked\n", (int)wr, on.ms, off.ms, on.out - 1,
           (unsigned long long)on.parked);
    ck_assert_uint_eq(off.out, want);
    ck_assert_uint_eq(on.out, want);
    ck_assert_msg(on.ms == off.ms, "span %.6f ms parked, %.6f not",
                  on.ms, off.ms);
    ck_assert(on.ms > 1.5f);    /* held by the host's 2000 calls */
    ck_assert_uint_eq(off.parked, 0);
    ck_assert_uint_gt(on.parked, 100);
}

START_TEST(test_park_host_store)
{
    park_compare(W_HOST, 3);
}
END_TEST

START_TEST(test_park_host_store_nanosleep)
{
    park_compare(W_HOST_NAP, 3);
}
END_TEST

START_TEST(test_park_copy_engine_write)
{
    park_compare(W_COPY, 4);
}
END_TEST

START_TEST(test_park_peer_store)
{
    park_compare(W_PEER, 3);
}
END_TEST

START_TEST(test_park_peer_atomic)
{
    park_compare(W_ATOMIC, 3);
}
END_TEST

Suite *make_cudart_park_suite(void)
{
    Suite *s = suite_create("cudart-park");
    TCase *tc = tcase_create("park");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_park_host_store);
    tcase_add_test(tc, test_park_host_store_nanosleep);
    tcase_add_test(tc, test_park_copy_engine_write);
    tcase_add_test(tc, test_park_peer_store);
    tcase_add_test(tc, test_park_peer_atomic);
    suite_add_tcase(s, tc);
    return s;
}
