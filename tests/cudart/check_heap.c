/*
 * tests/cudart/check_heap.c - kernels' malloc and free: the device heap of
 * cudaLimitMallocHeapSize bytes (machine/kernel/heap.c, cuda/cudart/
 * memory.c rt_device_heap). Blocks outlive the kernel that allocated them,
 * a heap that is full returns NULL, a freed block is used again, cudaFree
 * refuses the heap, and the heap works through a server.
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

/* grab(out, n): thread t mallocs n bytes, stores t in the block's first
 * word (when it got one) and the pointer in out[t]. drop(out, res):
 * res[t] = *out[t] (0xffffffff for NULL), then free(out[t]). */
static const char heap_ptx[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".extern .func (.param .b64 func_retval0) malloc(.param .b64 p0);\n"
    ".extern .func free(.param .b64 p0);\n"
    ".visible .entry grab(.param .u64 out, .param .u64 n)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<6>;\n"
    "\tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd2, [n];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd2;\n"
    "\t.param .b64 retval0;\n\tcall.uni (retval0), malloc, (param0);\n"
    "\tld.param.b64 %rd3, [retval0];\n\t}\n"
    "\tmul.wide.u32 %rd4, %r1, 8;\n\tadd.s64 %rd5, %rd1, %rd4;\n"
    "\tst.global.u64 [%rd5], %rd3;\n"
    "\tsetp.eq.s64 %p1, %rd3, 0;\n\t@%p1 bra $L__done;\n"
    "\tst.global.u32 [%rd3], %r1;\n"
    "$L__done:\n\tret;\n}\n"
    ".visible .entry drop(.param .u64 out, .param .u64 res)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<8>;\n"
    "\tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd2, [res];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmul.wide.u32 %rd4, %r1, 8;\n\tadd.s64 %rd5, %rd1, %rd4;\n"
    "\tld.global.u64 %rd3, [%rd5];\n"
    "\tmul.wide.u32 %rd6, %r1, 4;\n\tadd.s64 %rd7, %rd2, %rd6;\n"
    "\tmov.u32 %r2, -1;\n"
    "\tsetp.eq.s64 %p1, %rd3, 0;\n\t@%p1 bra $L__store;\n"
    "\tld.global.u32 %r2, [%rd3];\n"
    "$L__store:\n\tst.global.u32 [%rd7], %r2;\n"
    "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd3;\n"
    "\tcall.uni free, (param0);\n\t}\n"
    "\tret;\n}\n";

#define KEY(f) ((const void *)(uintptr_t)(f))
#define THREADS 64u
static void stub_grab(void) {}
static void stub_drop(void) {}

static void register_heap(void)
{
    void **h = cudart_test_register_ptx(heap_ptx, sizeof(heap_ptx));
    __cudaRegisterFunction(h, (const char *)KEY(stub_grab), (char *)"grab",
                           "grab", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(h, (const char *)KEY(stub_drop), (char *)"drop",
                           "drop", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
}

static void launch(const void *k, uint64_t *out, void *arg)
{
    dim3 g = { 1, 1, 1 }, b = { THREADS, 1, 1 };
    void *args[] = { &out, arg };
    ck_cuda_ok(cudaLaunchKernel(k, g, b, args, 0, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
}

/* grab of n bytes a thread: the pointers; then drop: what each block
 * held. Returns how many threads got a block. */
static unsigned grab_drop(uint64_t n, uint64_t ptrs[THREADS],
                          uint32_t held[THREADS])
{
    uint64_t *out;
    uint32_t *res;
    ck_cuda_ok(cudaMalloc((void **)&out, THREADS * 8));
    ck_cuda_ok(cudaMalloc((void **)&res, THREADS * 4));
    launch(KEY(stub_grab), out, &n);
    ck_cuda_ok(cudaMemcpy(ptrs, out, THREADS * 8, cudaMemcpyDeviceToHost));
    launch(KEY(stub_drop), out, &res);
    ck_cuda_ok(cudaMemcpy(held, res, THREADS * 4, cudaMemcpyDeviceToHost));
    ck_cuda_ok(cudaFree(out));
    ck_cuda_ok(cudaFree(res));
    unsigned got = 0;
    for (unsigned t = 0; t < THREADS; t++) {
        got += ptrs[t] != 0;
    }
    return got;
}

/* Every thread's block is its own, aligned, and holds what it stored
 * until the next kernel frees it. */
static void check_blocks(uint64_t n, const uint64_t *ptrs,
                         const uint32_t *held)
{
    for (unsigned t = 0; t < THREADS; t++) {
        if (!ptrs[t]) {
            ck_assert_uint_eq(held[t], 0xffffffffu);
            continue;
        }
        ck_assert_uint_eq(ptrs[t] % 16, 0);
        ck_assert_uint_eq(held[t], t);
        for (unsigned u = 0; u < t; u++) {
            ck_assert(!ptrs[u] || ptrs[u] + n <= ptrs[t] ||
                      ptrs[t] + n <= ptrs[u]);
        }
    }
}

START_TEST(test_heap_blocks_outlive_the_kernel)
{
    cudart_test_machine("h200-x1.yaml");
    register_heap();
    size_t lim = 0;
    ck_cuda_ok(cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize));
    ck_assert_uint_eq(lim, 8u << 20);
    uint64_t ptrs[THREADS];
    uint32_t held[THREADS];
    ck_assert_uint_eq(grab_drop(1000, ptrs, held), THREADS);
    check_blocks(1000, ptrs, held);
    /* the heap is device memory of the runtime's, not the program's */
    ck_assert_int_ne(cudaFree((void *)(uintptr_t)ptrs[0]), cudaSuccess);
    cudaGetLastError();
}
END_TEST

START_TEST(test_heap_full_returns_null_and_reuses)
{
    cudart_test_machine("h200-x1.yaml");
    register_heap();
    ck_cuda_ok(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64u << 10));
    uint64_t ptrs[THREADS], again[THREADS];
    uint32_t held[THREADS];
    /* 64 KiB hold 32 blocks of 2 KiB: lanes are served in order */
    ck_assert_uint_eq(grab_drop(2048, ptrs, held), 32);
    check_blocks(2048, ptrs, held);
    for (unsigned t = 0; t < THREADS; t++) {
        ck_assert((ptrs[t] != 0) == (t < 32));
    }
    /* freed: the same room again */
    ck_assert_uint_eq(grab_drop(2048, again, held), 32);
    ck_assert_uint_eq(again[0], ptrs[0]);
    /* more than the heap: NULL for everyone */
    ck_assert_uint_eq(grab_drop(128u << 10, ptrs, held), 0);
    check_blocks(0, ptrs, held);
}
END_TEST

START_TEST(test_heap_through_server)
{
    struct cudart_test_server srv;
    cudart_test_server_start(&srv, "h200-x1.yaml");
    register_heap();
    ck_cuda_ok(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16u << 10));
    uint64_t ptrs[THREADS];
    uint32_t held[THREADS];
    ck_assert_uint_eq(grab_drop(1024, ptrs, held), 16);
    check_blocks(1024, ptrs, held);
    ck_assert_int_eq(cudart_test_server_stop(&srv), 0);
}
END_TEST

Suite *make_cudart_heap_suite(void)
{
    Suite *s = suite_create("cudart-heap");
    TCase *tc = tcase_create("heap");
    tcase_add_test(tc, test_heap_blocks_outlive_the_kernel);
    tcase_add_test(tc, test_heap_full_returns_null_and_reuses);
    tcase_add_test(tc, test_heap_through_server);
    suite_add_tcase(s, tc);
    return s;
}
