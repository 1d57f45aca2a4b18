/*
 * tests/driver/check_driver.c - p2psim's driver API (cuda/driver/,
 * libcuda.so.1), called as programs call it, and its one state with the
 * runtime: a pointer of either API works in the other, the primary
 * context is the runtime's device, a kernel loaded from PTX text runs on
 * the simulated GPU. Single-process (P2PSIM_SERVER empty), each test in
 * its own process (Check's fork mode) with a fresh runtime. The runner's
 * main is driver_main.c.
 */
#include <config.h>

#undef NDEBUG
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/include/cuda.h"
#include "cuda/include/cuda_runtime_api.h"
#include "cuda/include/p2psim_cudart_internal.h"
#include "tests/cudart/cudart_test.h"
#include "tests/driver/driver_test.h"

#define CU_OK(call) ck_assert_int_eq((call), CUDA_SUCCESS)

/* machine: a file of topologies/ (NULL: the built-in default). */
static void start(const char *machine)
{
    setenv("P2PSIM_SERVER", "", 1);
    if (machine) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/topologies/%s", P2PSIM_SRCDIR,
                 machine);
        setenv("P2PSIM_TOPOLOGY", path, 1);
    } else {
        unsetenv("P2PSIM_TOPOLOGY");
    }
    CU_OK(cuInit(0));
}

/* A kernel adding 1 to n 32-bit integers, and a variable, as PTX text. */
static const char add1_ptx[] =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .global .align 4 .u32 counter = 7;\n"
    ".visible .entry add1(.param .u64 p, .param .u32 n)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<7>;\n"
    "  .reg .b64 %rd<5>;\n"
    "  ld.param.u64 %rd1, [p];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x;\n"
    "  mov.u32 %r3, %ntid.x;\n"
    "  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  setp.ge.u32 %p1, %r5, %r1;\n"
    "  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mul.wide.u32 %rd3, %r5, 4;\n"
    "  add.s64 %rd4, %rd2, %rd3;\n"
    "  ld.global.u32 %r6, [%rd4];\n"
    "  add.s32 %r6, %r6, 1;\n"
    "  st.global.u32 [%rd4], %r6;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

/* ---- a: initialization, devices, contexts, errors ---------------------------- */

START_TEST(test_init_required)
{
    CUdevice d;
    int n = 0;
    setenv("P2PSIM_SERVER", "", 1);
    ck_assert_int_eq(cuDeviceGet(&d, 0), CUDA_ERROR_NOT_INITIALIZED);
    ck_assert_int_eq(cuInit(1), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuInit(0));
    CU_OK(cuDeviceGetCount(&n));
    ck_assert_int_gt(n, 0);
    int v = 0;
    CU_OK(cuDriverGetVersion(&v));
    ck_assert_int_eq(v, 13000);
}
END_TEST

START_TEST(test_devices_match_runtime)
{
    start("hgx-h100.yaml");
    int n = 0, rn = 0;
    CU_OK(cuDeviceGetCount(&n));
    ck_assert_int_eq(cudaGetDeviceCount(&rn), cudaSuccess);
    ck_assert_int_eq(n, rn);
    ck_assert_int_eq(cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    CUdevice d;
    ck_assert_int_eq(cuDeviceGet(&d, n), CUDA_ERROR_INVALID_DEVICE);
    CU_OK(cuDeviceGet(&d, n - 1));
    struct cudaDeviceProp p;
    ck_assert_int_eq(cudaGetDeviceProperties(&p, d), cudaSuccess);
    char name[256];
    CU_OK(cuDeviceGetName(name, sizeof(name), d));
    ck_assert_str_eq(name, p.name);
    size_t mem = 0;
    CU_OK(cuDeviceTotalMem(&mem, d));
    ck_assert_uint_eq(mem, p.totalGlobalMem);
    CUuuid u;
    CU_OK(cuDeviceGetUuid(&u, d));
    ck_assert_int_eq(memcmp(u.bytes, p.uuid.bytes, 16), 0);
    int major, minor, v;
    CU_OK(cuDeviceComputeCapability(&major, &minor, d));
    ck_assert_int_eq(major, p.major);
    ck_assert_int_eq(minor, p.minor);
    CU_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                               d));
    ck_assert_int_eq(v, p.multiProcessorCount);
    CU_OK(cuDeviceGetAttribute(
        &v, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d));
    ck_assert_int_eq(v, 1);
    char bus[32];
    CUdevice back = -1;
    CU_OK(cuDeviceGetPCIBusId(bus, sizeof(bus), d));
    CU_OK(cuDeviceGetByPCIBusId(&back, bus));
    ck_assert_int_eq(back, d);
    int can = -1, rcan = -2;
    CU_OK(cuDeviceCanAccessPeer(&can, 0, 1));
    ck_assert_int_eq(cudaDeviceCanAccessPeer(&rcan, 0, 1), cudaSuccess);
    ck_assert_int_eq(can, rcan);
}
END_TEST

START_TEST(test_primary_context_is_runtime_device)
{
    start("hgx-h100.yaml");
    CUcontext c = NULL, cur = (CUcontext)1;
    unsigned flags;
    int active = 1;
    CU_OK(cuCtxGetCurrent(&cur));
    ck_assert_ptr_null(cur);    /* nothing used yet */
    CU_OK(cuDevicePrimaryCtxGetState(2, &flags, &active));
    ck_assert_int_eq(active, 0);
    /* the runtime uses device 2: its primary context is current */
    ck_assert_int_eq(cudaSetDevice(2), cudaSuccess);
    ck_assert_int_eq(cudaFree(NULL), cudaSuccess);
    CU_OK(cuDevicePrimaryCtxGetState(2, &flags, &active));
    ck_assert_int_eq(active, 1);
    CU_OK(cuDevicePrimaryCtxRetain(&c, 2));
    CU_OK(cuCtxGetCurrent(&cur));
    ck_assert_ptr_eq(cur, c);
    CUdevice d = -1;
    CU_OK(cuCtxGetDevice(&d));
    ck_assert_int_eq(d, 2);
    /* the driver makes device 5's context current: the runtime follows */
    CUcontext c5;
    CU_OK(cuDevicePrimaryCtxRetain(&c5, 5));
    CU_OK(cuCtxSetCurrent(c5));
    int rd = -1;
    ck_assert_int_eq(cudaGetDevice(&rd), cudaSuccess);
    ck_assert_int_eq(rd, 5);
    CU_OK(cuCtxPushCurrent(c));
    ck_assert_int_eq(cudaGetDevice(&rd), cudaSuccess);
    ck_assert_int_eq(rd, 2);
    CUcontext popped;
    CU_OK(cuCtxPopCurrent(&popped));
    ck_assert_ptr_eq(popped, c);
    ck_assert_int_eq(cudaGetDevice(&rd), cudaSuccess);
    ck_assert_int_eq(rd, 5);
    CU_OK(cuCtxSynchronize());
    CU_OK(cuDevicePrimaryCtxRelease(5));
    CU_OK(cuDevicePrimaryCtxRelease(2));
    ck_assert_int_eq(cuDevicePrimaryCtxRelease(2),
                     CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

START_TEST(test_created_context)
{
    start("hgx-h100.yaml");
    CUcontext c, cur;
    CU_OK(cuCtxCreate(&c, NULL, 0, 3));
    CU_OK(cuCtxGetCurrent(&cur));
    ck_assert_ptr_eq(cur, c);
    CUdeviceptr p;
    CU_OK(cuMemAlloc(&p, 4096));
    struct cudaPointerAttributes a;
    ck_assert_int_eq(cudaPointerGetAttributes(&a, (void *)(uintptr_t)p),
                     cudaSuccess);
    ck_assert_int_eq(a.device, 3);
    int ord = -1;
    CU_OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                p));
    ck_assert_int_eq(ord, 3);
    CU_OK(cuMemFree(p));
    CU_OK(cuCtxDestroy(c));
    ck_assert_int_eq(cuCtxDestroy(c), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

START_TEST(test_peer_access)
{
    start("hgx-h100.yaml");
    CUcontext c0, c1;
    CU_OK(cuDevicePrimaryCtxRetain(&c0, 0));
    CU_OK(cuDevicePrimaryCtxRetain(&c1, 1));
    CU_OK(cuCtxSetCurrent(c0));
    CU_OK(cuCtxEnablePeerAccess(c1, 0));
    ck_assert_int_eq(cuCtxEnablePeerAccess(c1, 0),
                     CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
    /* the runtime sees the same grant */
    ck_assert_int_eq(cudaDeviceEnablePeerAccess(1, 0),
                     cudaErrorPeerAccessAlreadyEnabled);
    CU_OK(cuCtxDisablePeerAccess(c1));
    ck_assert_int_eq(cuCtxDisablePeerAccess(c1),
                     CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
}
END_TEST

START_TEST(test_error_names)
{
    const char *s = NULL;
    CU_OK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
    ck_assert_str_eq(s, "CUDA_ERROR_INVALID_VALUE");
    CU_OK(cuGetErrorName(CUDA_ERROR_NOT_SUPPORTED, &s));
    ck_assert_str_eq(s, "CUDA_ERROR_NOT_SUPPORTED");
    CU_OK(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s));
    ck_assert_ptr_nonnull(s);
    ck_assert_int_gt(strlen(s), 0);
    ck_assert_int_eq(cuGetErrorName((CUresult)12345, &s),
                     CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/* ---- b: memory ------------------------------------------------------------------ */

START_TEST(test_memory_shared_with_runtime)
{
    start(NULL);
    CUcontext c;
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_OK(cuCtxSetCurrent(c));
    enum { N = 1024 };
    uint32_t host[N], back[N];
    for (unsigned i = 0; i < N; i++) {
        host[i] = i * 3u;
    }
    /* runtime allocation, driver copies */
    void *rp = NULL;
    ck_assert_int_eq(cudaMalloc(&rp, sizeof(host)), cudaSuccess);
    CU_OK(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)rp, host, sizeof(host)));
    /* driver allocation, driver device-to-device, runtime copy back */
    CUdeviceptr dp;
    CU_OK(cuMemAlloc(&dp, sizeof(host)));
    CU_OK(cuMemcpyDtoD(dp, (CUdeviceptr)(uintptr_t)rp, sizeof(host)));
    memset(back, 0, sizeof(back));
    ck_assert_int_eq(cudaMemcpy(back, (void *)(uintptr_t)dp, sizeof(back),
                                cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_int_eq(memcmp(host, back, sizeof(host)), 0);
    CUdeviceptr base;
    size_t size;
    CU_OK(cuMemGetAddressRange(&base, &size, dp + 100));
    ck_assert_uint_eq(base, dp);
    ck_assert_uint_eq(size, sizeof(host));
    unsigned type = 0;
    CU_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                (CUdeviceptr)(uintptr_t)rp));
    ck_assert_uint_eq(type, CU_MEMORYTYPE_DEVICE);
    CU_OK(cuMemFree((CUdeviceptr)(uintptr_t)rp));   /* runtime's, freed here */
    ck_assert_int_eq(cudaFree((void *)(uintptr_t)dp), cudaSuccess);
    size_t free_b = 0, total = 0;
    CU_OK(cuMemGetInfo(&free_b, &total));
    ck_assert_uint_gt(total, 0);
    ck_assert_uint_le(free_b, total);
}
END_TEST

START_TEST(test_memset_and_async)
{
    start(NULL);
    CUcontext c;
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_OK(cuCtxSetCurrent(c));
    enum { N = 256 };
    CUdeviceptr p;
    CUstream s;
    uint32_t w[N];
    uint16_t h[2 * N];
    CU_OK(cuMemAlloc(&p, sizeof(w)));
    CU_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CU_OK(cuMemsetD32(p, 0xdeadbeefu, N));
    CU_OK(cuMemcpyDtoH(w, p, sizeof(w)));
    for (unsigned i = 0; i < N; i++) {
        ck_assert_uint_eq(w[i], 0xdeadbeefu);
    }
    CU_OK(cuMemsetD16Async(p, 0x1234, 2 * N, s));
    CU_OK(cuMemcpyDtoHAsync(h, p, sizeof(h), s));
    CU_OK(cuStreamSynchronize(s));
    for (unsigned i = 0; i < 2 * N; i++) {
        ck_assert_uint_eq(h[i], 0x1234);
    }
    CU_OK(cuMemsetD8(p, 0x5a, sizeof(w)));
    CU_OK(cuMemcpyDtoH(w, p, sizeof(w)));
    ck_assert_uint_eq(w[7], 0x5a5a5a5au);
    ck_assert_int_eq(cuMemsetD32(p + 2, 1, 4), CUDA_ERROR_INVALID_VALUE);
    void *ph = NULL;
    CU_OK(cuMemHostAlloc(&ph, 4096, CU_MEMHOSTALLOC_DEVICEMAP));
    CUdeviceptr dh;
    CU_OK(cuMemHostGetDevicePointer(&dh, ph, 0));
    ck_assert_uint_eq(dh, (uintptr_t)ph);
    unsigned type = 0;
    CU_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dh));
    ck_assert_uint_eq(type, CU_MEMORYTYPE_HOST);
    CU_OK(cuMemFreeHost(ph));
    CUdeviceptr m;
    int managed = 0;
    CU_OK(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL));
    CU_OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m));
    ck_assert_int_eq(managed, 1);
    CU_OK(cuMemFree(m));
    CU_OK(cuStreamDestroy(s));
    CU_OK(cuMemFree(p));
}
END_TEST

START_TEST(test_memcpy_peer)
{
    start("hgx-h100.yaml");
    CUcontext c0, c1;
    CU_OK(cuDevicePrimaryCtxRetain(&c0, 0));
    CU_OK(cuDevicePrimaryCtxRetain(&c1, 1));
    CUdeviceptr a, b;
    CU_OK(cuCtxSetCurrent(c0));
    CU_OK(cuMemAlloc(&a, 4096));
    CU_OK(cuMemsetD8(a, 0x42, 4096));
    CU_OK(cuCtxSetCurrent(c1));
    CU_OK(cuMemAlloc(&b, 4096));
    CU_OK(cuMemcpyPeer(b, c1, a, c0, 4096));
    unsigned char buf[4096];
    CU_OK(cuMemcpyDtoH(buf, b, sizeof(buf)));
    ck_assert_uint_eq(buf[0], 0x42);
    ck_assert_uint_eq(buf[4095], 0x42);
    ck_assert_int_eq(cuMemcpyPeer(b, NULL, a, c0, 16),
                     CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

/* ---- c: modules and launches ------------------------------------------------------ */

START_TEST(test_module_launch)
{
    start(NULL);
    CUcontext c;
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_OK(cuCtxSetCurrent(c));
    CUmodule mod;
    CUfunction f, g;
    CU_OK(cuModuleLoadData(&mod, add1_ptx));
    CU_OK(cuModuleGetFunction(&f, mod, "add1"));
    CU_OK(cuModuleGetFunction(&g, mod, "add1"));
    ck_assert_ptr_eq(f, g);
    ck_assert_int_eq(cuModuleGetFunction(&g, mod, "nope"),
                     CUDA_ERROR_NOT_FOUND);
    enum { N = 1000 };
    uint32_t host[N];
    for (unsigned i = 0; i < N; i++) {
        host[i] = i;
    }
    /* memory of the runtime, a kernel of the driver */
    void *rp;
    ck_assert_int_eq(cudaMalloc(&rp, sizeof(host)), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(rp, host, sizeof(host),
                                cudaMemcpyHostToDevice), cudaSuccess);
    CUdeviceptr dp = (CUdeviceptr)(uintptr_t)rp;
    unsigned n = N;
    void *args[] = { &dp, &n };
    CU_OK(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args,
                         NULL));
    /* the same through a packed buffer (u64 at 0, u32 at 8) */
    struct {
        uint64_t p;
        uint32_t n;
        uint32_t pad;
    } packed = { dp, N, 0 };
    size_t psize = sizeof(packed);
    void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &packed,
                      CU_LAUNCH_PARAM_BUFFER_SIZE, &psize,
                      CU_LAUNCH_PARAM_END };
    CU_OK(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, NULL,
                         extra));
    CUlaunchAttribute coop = { .id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE };
    coop.value.cooperative = 1;
    CUlaunchConfig cfg = { .gridDimX = (N + 127) / 128, .gridDimY = 1,
                           .gridDimZ = 1, .blockDimX = 128, .blockDimY = 1,
                           .blockDimZ = 1, .attrs = &coop, .numAttrs = 1 };
    CU_OK(cuLaunchKernelEx(&cfg, f, args, NULL));
    CU_OK(cuCtxSynchronize());
    ck_assert_int_eq(cudaMemcpy(host, rp, sizeof(host),
                                cudaMemcpyDeviceToHost), cudaSuccess);
    for (unsigned i = 0; i < N; i++) {
        ck_assert_uint_eq(host[i], i + 3);
    }
    ck_assert_int_eq(cuLaunchKernel(f, 0, 1, 1, 128, 1, 1, 0, NULL, args,
                                    NULL), CUDA_ERROR_INVALID_VALUE);
    int v = 0;
    CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    ck_assert_int_gt(v, 0);
    int blocks = 0, min_grid = 0, block = 0;
    CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 128, 0));
    ck_assert_int_gt(blocks, 0);
    CU_OK(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, f, NULL, 0, 0));
    ck_assert_int_gt(block, 0);
    ck_assert_int_gt(min_grid, 0);
    CUdeviceptr gv;
    size_t gsize = 0;
    uint32_t counter = 0;
    CU_OK(cuModuleGetGlobal(&gv, &gsize, mod, "counter"));
    ck_assert_uint_eq(gsize, 4);
    CU_OK(cuMemcpyDtoH(&counter, gv, 4));
    ck_assert_uint_eq(counter, 7);
    ck_assert_int_eq(cuModuleGetGlobal(&gv, &gsize, mod, "nope"),
                     CUDA_ERROR_NOT_FOUND);
    CU_OK(cuModuleUnload(mod));
    ck_assert_int_eq(cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

/* A program's kernel (registered as nvcc's constructor registers it) through
 * the driver: cudaGetFuncBySymbol's CUfunction launches with a packed
 * buffer (the module read at that first use) and has its attributes. */
static void add1_stub(void)
{
}

START_TEST(test_func_by_symbol)
{
    start(NULL);
    void **h = cudart_test_register_ptx(add1_ptx, sizeof(add1_ptx));
    __cudaRegisterFunction(h, (const char *)add1_stub, (char *)"add1",
                           "add1", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    CUfunction f = NULL;
    ck_assert_int_eq(cudaGetFuncBySymbol(&f, (const void *)add1_stub),
                     cudaSuccess);
    ck_assert_ptr_nonnull(f);
    int here = 0;
    ck_assert_int_eq(cudaGetFuncBySymbol(&f, &here),
                     cudaErrorInvalidDeviceFunction);
    ck_assert_int_eq(cudaGetFuncBySymbol(NULL, (const void *)add1_stub),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGetFuncBySymbol(&f, (const void *)add1_stub),
                     cudaSuccess);
    enum { N = 300 };
    uint32_t host[N];
    for (unsigned i = 0; i < N; i++) {
        host[i] = 2 * i;
    }
    void *rp;
    ck_assert_int_eq(cudaMalloc(&rp, sizeof(host)), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(rp, host, sizeof(host),
                                cudaMemcpyHostToDevice), cudaSuccess);
    struct {
        uint64_t p;
        uint32_t n;
        uint32_t pad;
    } packed = { (uint64_t)(uintptr_t)rp, N, 0 };
    size_t psize = sizeof(packed);
    void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &packed,
                      CU_LAUNCH_PARAM_BUFFER_SIZE, &psize,
                      CU_LAUNCH_PARAM_END };
    CUlaunchConfig cfg = { .gridDimX = (N + 127) / 128, .gridDimY = 1,
                           .gridDimZ = 1, .blockDimX = 128, .blockDimY = 1,
                           .blockDimZ = 1 };
    CU_OK(cuLaunchKernelEx(&cfg, f, NULL, extra));
    CU_OK(cuCtxSynchronize());
    ck_assert_int_eq(cudaMemcpy(host, rp, sizeof(host),
                                cudaMemcpyDeviceToHost), cudaSuccess);
    for (unsigned i = 0; i < N; i++) {
        ck_assert_uint_eq(host[i], 2 * i + 1);
    }
    /* a buffer shorter than the parameters: the rest reads 0 (n = 0) */
    psize = 8;
    CU_OK(cuLaunchKernelEx(&cfg, f, NULL, extra));
    CU_OK(cuCtxSynchronize());
    ck_assert_int_eq(cudaMemcpy(host, rp, sizeof(host),
                                cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_uint_eq(host[N - 1], 2 * (N - 1) + 1);
    int v = 0;
    CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    ck_assert_int_gt(v, 0);
    ck_assert_int_eq(cudaFree(rp), cudaSuccess);
}
END_TEST

START_TEST(test_module_errors)
{
    start(NULL);
    CUmodule mod;
    /* no context yet */
    ck_assert_int_eq(cuModuleLoadData(&mod, add1_ptx),
                     CUDA_ERROR_INVALID_CONTEXT);
    CUcontext c;
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_OK(cuCtxSetCurrent(c));
    /* a cubin: machine code only */
    static const unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
    ck_assert_int_eq(cuModuleLoadData(&mod, elf),
                     CUDA_ERROR_NO_BINARY_FOR_GPU);
    char log[256] = "";
    CUjit_option opt[] = { CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *val[] = { log, (void *)(uintptr_t)sizeof(log) };
    ck_assert_int_eq(cuModuleLoadDataEx(&mod, ".version 8.0\n.target sm_90\n"
                                        "garbage here\n", 2, opt, val),
                     CUDA_ERROR_INVALID_PTX);
    ck_assert_int_gt(strlen(log), 0);
    ck_assert_int_eq(cuModuleLoad(&mod, "/nonexistent/k.ptx"),
                     CUDA_ERROR_FILE_NOT_FOUND);
    /* a PTX file */
    char path[] = "/tmp/check_driver_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, add1_ptx, strlen(add1_ptx)),
                     (ssize_t)strlen(add1_ptx));
    close(fd);
    CU_OK(cuModuleLoad(&mod, path));
    unlink(path);
    CUfunction f;
    CU_OK(cuModuleGetFunction(&f, mod, "add1"));
    CUlibrary lib;
    CUkernel k;
    CU_OK(cuLibraryLoadData(&lib, add1_ptx, NULL, NULL, 0, NULL, NULL, 0));
    CU_OK(cuLibraryGetKernel(&k, lib, "add1"));
    CU_OK(cuKernelGetFunction(&f, k));
    CU_OK(cuLibraryUnload(lib));
}
END_TEST

/* ---- d: streams and events ----------------------------------------------------------- */

static void host_fn(void *arg)
{
    ++*(int *)arg;
}

static void stream_cb(CUstream s, CUresult status, void *arg)
{
    (void)s;
    *(int *)arg += status == CUDA_SUCCESS ? 10 : 1000;
}

START_TEST(test_streams_events)
{
    start(NULL);
    CUcontext c;
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_OK(cuCtxSetCurrent(c));
    CUstream s, hi;
    CUevent a, b;
    int lo, greatest, prio = 1;
    CU_OK(cuCtxGetStreamPriorityRange(&lo, &greatest));
    CU_OK(cuStreamCreate(&s, CU_STREAM_DEFAULT));
    CU_OK(cuStreamCreateWithPriority(&hi, CU_STREAM_NON_BLOCKING, greatest));
    CU_OK(cuStreamGetPriority(hi, &prio));
    ck_assert_int_eq(prio, greatest);
    CU_OK(cuEventCreate(&a, CU_EVENT_DEFAULT));
    CU_OK(cuEventCreate(&b, CU_EVENT_DEFAULT));
    CUdeviceptr p;
    CU_OK(cuMemAlloc(&p, 1 << 20));
    static unsigned char host[1 << 20];
    CU_OK(cuEventRecord(a, s));
    CU_OK(cuMemcpyHtoDAsync(p, host, sizeof(host), s));
    CU_OK(cuEventRecord(b, s));
    CU_OK(cuStreamWaitEvent(hi, b, 0));
    int calls = 0;
    CU_OK(cuLaunchHostFunc(hi, host_fn, &calls));
    CU_OK(cuStreamAddCallback(hi, stream_cb, &calls, 0));
    CU_OK(cuStreamSynchronize(hi));
    ck_assert_int_eq(calls, 11);
    CU_OK(cuEventSynchronize(b));
    CU_OK(cuEventQuery(b));
    CU_OK(cuStreamQuery(s));
    float ms = -1;
    CU_OK(cuEventElapsedTime(&ms, a, b));
    ck_assert(ms > 0);
    /* the runtime sees the same events */
    float rms = -1;
    ck_assert_int_eq(cudaEventElapsedTime(&rms, a, b), cudaSuccess);
    ck_assert(rms == ms);
    CU_OK(cuEventDestroy(a));
    CU_OK(cuEventDestroy(b));
    CU_OK(cuStreamDestroy(s));
    CU_OK(cuStreamDestroy(hi));
    ck_assert_int_eq(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

/* ---- e: the virtual memory management API ---------------------------------------- */

START_TEST(test_vmm_map_two_gpus)
{
    start("hgx-h100.yaml");
    CUcontext c;
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_OK(cuCtxSetCurrent(c));
    CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED };
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t g = 0;
    CU_OK(cuMemGetAllocationGranularity(&g, &prop,
                                        CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    ck_assert_uint_eq(g, 2u << 20);
    /* one stripe on each of GPU 0 and GPU 1, contiguous in addresses */
    CUmemGenericAllocationHandle h0, h1;
    CU_OK(cuMemCreate(&h0, g, &prop, 0));
    prop.location.id = 1;
    CU_OK(cuMemCreate(&h1, g, &prop, 0));
    ck_assert_int_eq(cuMemCreate(&h1, g + 1, &prop, 0),
                     CUDA_ERROR_INVALID_VALUE);
    CUmemAllocationProp got;
    CU_OK(cuMemGetAllocationPropertiesFromHandle(&got, h1));
    ck_assert_int_eq(got.location.id, 1);
    CUdeviceptr va;
    CU_OK(cuMemAddressReserve(&va, 2 * g, 0, 0, 0));
    ck_assert_uint_eq(va % g, 0);
    CU_OK(cuMemMap(va, g, 0, h0, 0));
    CU_OK(cuMemMap(va + g, g, 0, h1, 0));
    ck_assert_int_eq(cuMemMap(va, g, 0, h1, 0), CUDA_ERROR_ALREADY_MAPPED);
    CU_OK(cuMemRelease(h0));    /* the mappings keep the memory */
    CU_OK(cuMemRelease(h1));
    CUmemAccessDesc acc[2] = {
        { { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
          CU_MEM_ACCESS_FLAGS_PROT_READWRITE },
        { { CU_MEM_LOCATION_TYPE_DEVICE, 1 },
          CU_MEM_ACCESS_FLAGS_PROT_READWRITE },
    };
    CU_OK(cuMemSetAccess(va, 2 * g, acc, 2));
    unsigned long long fl = 0;
    CU_OK(cuMemGetAccess(&fl, &acc[1].location, va));
    ck_assert_uint_eq(fl, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    int ord = -1;
    CU_OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                va + g + 8));
    ck_assert_int_eq(ord, 1);
    /* a kernel on GPU 0 over both stripes: 1 MiB at each side of the seam */
    enum { N = 1 << 18 };
    CUdeviceptr start_ = va + g - 4 * (N / 2);
    CU_OK(cuMemsetD32(start_, 40, N));
    CUmodule mod;
    CUfunction f;
    CU_OK(cuModuleLoadData(&mod, add1_ptx));
    CU_OK(cuModuleGetFunction(&f, mod, "add1"));
    unsigned n = N;
    void *args[] = { &start_, &n };
    CU_OK(cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuCtxSynchronize());
    uint32_t first = 0, last = 0;
    CU_OK(cuMemcpyDtoH(&first, start_, 4));
    CU_OK(cuMemcpyDtoH(&last, start_ + 4 * (N - 1), 4));
    ck_assert_uint_eq(first, 41);
    ck_assert_uint_eq(last, 41);
    /* export and import (in this process: the same memory) */
    CUmemGenericAllocationHandle h, imp;
    CU_OK(cuMemRetainAllocationHandle(&h, (void *)(uintptr_t)(va + g)));
    int fd = -1;
    CU_OK(cuMemExportToShareableHandle(&fd, h,
                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                                       0));
    ck_assert_int_ge(fd, 0);
    CU_OK(cuMemImportFromShareableHandle(
        &imp, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    close(fd);
    CU_OK(cuMemGetAllocationPropertiesFromHandle(&got, imp));
    ck_assert_int_eq(got.location.id, 1);
    CUdeviceptr va2;
    CU_OK(cuMemAddressReserve(&va2, g, 0, 0, 0));
    CU_OK(cuMemMap(va2, g, 0, imp, 0));
    CU_OK(cuMemRelease(imp));
    CU_OK(cuMemRelease(h));
    CU_OK(cuMemcpyDtoH(&last, va2 + 4 * (N / 2 - 1), 4));
    ck_assert_uint_eq(last, 41);
    CU_OK(cuMemUnmap(va2, g));
    CU_OK(cuMemAddressFree(va2, g));
    ck_assert_int_eq(cuMemAddressFree(va, 2 * g), CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemUnmap(va, 2 * g));
    CU_OK(cuMemAddressFree(va, 2 * g));
    /* gone: copies to it fail */
    ck_assert_int_ne(cuMemsetD8(va, 0, 16), CUDA_SUCCESS);
}
END_TEST

/* Generic compression: the GPU's catalog says whether it has it (A100:
 * yes, V100: no); a compressible cuMemCreate is compressible only where
 * it is, and says so. */
static void check_compression(const char *machine, int want)
{
    start(machine);
    int v = -1;
    CU_OK(cuDeviceGetAttribute(
        &v, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, 0));
    ck_assert_int_eq(v, want);
    v = -1;
    ck_assert_int_eq(cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)107, 0),
                     cudaSuccess);
    ck_assert_int_eq(v, want);
    CUcontext c;
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_OK(cuCtxSetCurrent(c));
    CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED };
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
    size_t g = 0;
    CU_OK(cuMemGetAllocationGranularity(&g, &prop,
                                        CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUmemGenericAllocationHandle h, h2;
    CU_OK(cuMemCreate(&h, g, &prop, 0));
    CUmemAllocationProp got;
    CU_OK(cuMemGetAllocationPropertiesFromHandle(&got, h));
    ck_assert_int_eq(got.allocFlags.compressionType,
                     want ? CU_MEM_ALLOCATION_COMP_GENERIC
                          : CU_MEM_ALLOCATION_COMP_NONE);
    /* it holds bytes as any memory; its retained handle says the same */
    CUdeviceptr va;
    CU_OK(cuMemAddressReserve(&va, g, 0, 0, 0));
    CU_OK(cuMemMap(va, g, 0, h, 0));
    CUmemAccessDesc acc = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
                            CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    CU_OK(cuMemSetAccess(va, g, &acc, 1));
    CU_OK(cuMemsetD32(va, 0x5a5a5a5a, g / 4));
    uint32_t x = 0;
    CU_OK(cuMemcpyDtoH(&x, va + g - 4, 4));
    ck_assert_uint_eq(x, 0x5a5a5a5a);
    CU_OK(cuMemRetainAllocationHandle(&h2, (void *)(uintptr_t)va));
    CU_OK(cuMemGetAllocationPropertiesFromHandle(&got, h2));
    ck_assert_int_eq(got.allocFlags.compressionType != 0, want);
    CU_OK(cuMemRelease(h2));
    CU_OK(cuMemUnmap(va, g));
    CU_OK(cuMemAddressFree(va, g));
    CU_OK(cuMemRelease(h));
    /* not compressible unless asked; no such type as 2 */
    prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_NONE;
    CU_OK(cuMemCreate(&h, g, &prop, 0));
    CU_OK(cuMemGetAllocationPropertiesFromHandle(&got, h));
    ck_assert_int_eq(got.allocFlags.compressionType,
                     CU_MEM_ALLOCATION_COMP_NONE);
    CU_OK(cuMemRelease(h));
    prop.allocFlags.compressionType = 2;
    ck_assert_int_eq(cuMemCreate(&h, g, &prop, 0), CUDA_ERROR_INVALID_VALUE);
    ck_assert_int_eq(cuMemGetAllocationGranularity(
                         &g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                     CUDA_ERROR_INVALID_VALUE);
}

/* Host memory: the granularity is given (a program sizes its request by
 * it), the allocation is refused cleanly, as by a driver whose
 * CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED is 0. */
START_TEST(test_vmm_host_location)
{
    start("hgx-h100.yaml");
    int v = -1;
    CU_OK(cuDeviceGetAttribute(
        &v, CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
        0));
    ck_assert_int_eq(v, 0);
    CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED };
    prop.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
    prop.location.id = 0;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t g = 0;
    CU_OK(cuMemGetAllocationGranularity(&g, &prop,
                                        CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    ck_assert_uint_eq(g, 2u << 20);
    CUmemGenericAllocationHandle h = 0;
    ck_assert_int_eq(cuMemCreate(&h, g, &prop, 0), CUDA_ERROR_NOT_SUPPORTED);
    prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
    ck_assert_int_eq(cuMemCreate(&h, g, &prop, 0), CUDA_ERROR_NOT_SUPPORTED);
    prop.location.type = 7;     /* no such location type */
    ck_assert_int_eq(cuMemGetAllocationGranularity(
                         &g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                     CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(test_vmm_compression_a100)
{
    check_compression(NULL, 1);     /* the default machine: A100 PCIe */
}
END_TEST

START_TEST(test_vmm_compression_v100)
{
    check_compression("dgx1-v100.yaml", 0);
}
END_TEST

/* ---- f: entry points ------------------------------------------------------------------ */

typedef CUresult alloc_fn(CUdeviceptr *, size_t);

START_TEST(test_proc_address)
{
    start(NULL);
    void *fn = NULL;
    CUdriverProcAddressQueryResult st;
    CU_OK(cuGetProcAddress("cuMemAlloc", &fn, 13000, 0, &st));
    ck_assert_int_eq(st, CU_GET_PROC_ADDRESS_SUCCESS);
    ck_assert_ptr_eq(fn, (void *)cuMemAlloc_v2);
    CU_OK(cuGetProcAddress("cuCtxCreate", &fn, 13000, 0, &st));
    ck_assert_ptr_eq(fn, (void *)cuCtxCreate_v4);
    ck_assert_int_eq(cuGetProcAddress("cuMemCreate", &fn, 9000, 0, &st),
                     CUDA_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    ck_assert_int_eq(cuGetProcAddress("cuNoSuchThing", &fn, 13000, 0, &st),
                     CUDA_ERROR_NOT_FOUND);
    ck_assert_int_eq(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    /* an export p2psim does not serve: its stub, CUDA_ERROR_NOT_SUPPORTED */
    CU_OK(cuGetProcAddress("cuArrayCreate", &fn, 13000, 0, &st));
    ck_assert_ptr_nonnull(fn);
    ck_assert_int_eq(((CUresult(*)(void))fn)(), CUDA_ERROR_NOT_SUPPORTED);
    /* the runtime's entry points find the same functions */
    enum cudaDriverEntryPointQueryResult rst;
    void *rfn = NULL;
    ck_assert_int_eq(cudaGetDriverEntryPointByVersion("cuMemAlloc", &rfn,
                                                      13000, 0, &rst),
                     cudaSuccess);
    ck_assert_int_eq(rst, cudaDriverEntryPointSuccess);
    ck_assert_ptr_eq(rfn, (void *)cuMemAlloc_v2);
    CUcontext c;
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_OK(cuCtxSetCurrent(c));
    CUdeviceptr p = 0;
    ck_assert_int_eq(((alloc_fn *)rfn)(&p, 64), CUDA_SUCCESS);
    ck_assert_int_eq(cudaFree((void *)(uintptr_t)p), cudaSuccess);
    ck_assert_int_eq(cudaGetDriverEntryPointByVersion("cuNoSuchThing", &rfn,
                                                      13000, 0, &rst),
                     cudaSuccess);
    ck_assert_int_eq(rst, cudaDriverEntryPointSymbolNotFound);
    ck_assert_ptr_null(rfn);
}
END_TEST

Suite *make_driver_suite(void)
{
    Suite *s = suite_create("driver");
    TCase *a = tcase_create("devices-contexts");
    tcase_add_test(a, test_init_required);
    tcase_add_test(a, test_devices_match_runtime);
    tcase_add_test(a, test_primary_context_is_runtime_device);
    tcase_add_test(a, test_created_context);
    tcase_add_test(a, test_peer_access);
    tcase_add_test(a, test_error_names);
    suite_add_tcase(s, a);
    TCase *b = tcase_create("memory");
    tcase_add_test(b, test_memory_shared_with_runtime);
    tcase_add_test(b, test_memset_and_async);
    tcase_add_test(b, test_memcpy_peer);
    suite_add_tcase(s, b);
    TCase *c = tcase_create("modules");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_module_launch);
    tcase_add_test(c, test_module_errors);
    tcase_add_test(c, test_func_by_symbol);
    suite_add_tcase(s, c);
    TCase *d = tcase_create("streams");
    tcase_add_test(d, test_streams_events);
    suite_add_tcase(s, d);
    TCase *e = tcase_create("vmm");
    tcase_set_timeout(e, 120);
    tcase_add_test(e, test_vmm_map_two_gpus);
    tcase_add_test(e, test_vmm_compression_a100);
    tcase_add_test(e, test_vmm_compression_v100);
    tcase_add_test(e, test_vmm_host_location);
    suite_add_tcase(s, e);
    TCase *f = tcase_create("entry-points");
    tcase_add_test(f, test_proc_address);
    suite_add_tcase(s, f);
    return s;
}
