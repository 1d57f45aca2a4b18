/*
 * tests/cudart/check_launch.c - device code as nvcc 13.0 output hands it
 * over (shared/reference/cuda-api.md §3.2): registration, the <<<>>>
 * protocol, launches and their errors, kernel attributes and occupancy.
 * The "kernels" are fake host stubs registered by hand, as a program's
 * static constructors would; kernels are not simulated yet, so a launch
 * that passes every check must fail with cudaErrorInvalidPtx.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/include/p2psim_cudart_internal.h"
#include "tests/cudart/cudart_test.h"

/* Host stubs: only their addresses matter. */
static void stub_scale(void) {}
static void stub_other(void) {}
static void stub_unregistered(void) {}

#define STUB(f) ((const char *)(uintptr_t)(f))
#define KEY(f) ((const void *)(uintptr_t)(f))

static struct p2psim_fatbin_wrapper wrapper = {
    P2PSIM_FATBIN_WRAPPER_MAGIC, P2PSIM_FATBIN_WRAPPER_VERSION, NULL, NULL
};

/* What nvcc's constructor does for a unit with two kernels. */
static void **register_module(void)
{
    void **h = __cudaRegisterFatBinary(&wrapper);
    ck_assert_ptr_nonnull(h);
    __cudaRegisterFunction(h, STUB(stub_scale), (char *)"_Z5scalePfPKfif",
                           "_Z5scalePfPKfif", -1, NULL, NULL, NULL, NULL,
                           NULL);
    __cudaRegisterFunction(h, STUB(stub_other), (char *)"_Z5otherv",
                           "_Z5otherv", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    return h;
}

static dim3 d3(unsigned x, unsigned y, unsigned z)
{
    dim3 d = { x, y, z };
    return d;
}

/* ---- registration -------------------------------------------------------- */

START_TEST(test_launch_registration_round_trip)
{
    cudart_test_machine("h200-x1.yaml");
    void **h = register_module();
    /* Valid zeroed memory (nvcc's exit code touches it). */
    for (size_t i = 0; i < 0x58 / sizeof(void *); i++) {
        ck_assert_ptr_null(h[i]);
    }
    cudaKernel_t k1 = NULL, k2 = NULL, k3 = NULL;
    ck_cuda_ok(__cudaGetKernel(&k1, KEY(stub_scale)));
    ck_cuda_ok(__cudaGetKernel(&k2, KEY(stub_scale)));
    ck_cuda_ok(__cudaGetKernel(&k3, KEY(stub_other)));
    ck_assert_ptr_nonnull(k1);
    ck_assert_ptr_eq(k1, k2);
    ck_assert_ptr_ne(k1, k3);
    ck_cuda(__cudaGetKernel(&k1, KEY(stub_unregistered)),
            cudaErrorInvalidDeviceFunction);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
    ck_cuda(__cudaGetKernel(NULL, KEY(stub_scale)), cudaErrorInvalidValue);
    __cudaUnregisterFatBinary(h);
    ck_cuda(__cudaGetKernel(&k1, KEY(stub_scale)),
            cudaErrorInvalidDeviceFunction);
}
END_TEST

/* A __managed__ variable gets its managed allocation at __cudaInitModule,
 * once. */
START_TEST(test_launch_managed_variable)
{
    cudart_test_machine("h200-x1.yaml");
    void **h = register_module();
    void *x = NULL;
    static int shadow;
    __cudaRegisterVar(h, (char *)&shadow, (char *)"c", "c", 0, sizeof(int),
                      1, 0);
    __cudaRegisterManagedVar(h, &x, (char *)"m", "m", 0, 64, 0, 0);
    ck_assert_int_eq(__cudaInitModule(h), 1);
    ck_assert_ptr_nonnull(x);
    void *first = x;
    ck_assert_int_eq(__cudaInitModule(h), 1);
    ck_assert_ptr_eq(x, first);
    struct cudaPointerAttributes a;
    ck_cuda_ok(cudaPointerGetAttributes(&a, x));
    ck_assert_int_eq(a.type, cudaMemoryTypeManaged);
    memset(x, 7, 64); /* the host may touch it */
}
END_TEST

/* ---- the <<<>>> protocol ------------------------------------------------- */

START_TEST(test_launch_push_pop_nests)
{
    cudart_test_machine("h200-x1.yaml");
    cudaStream_t s = (cudaStream_t)0x1234;
    ck_assert_uint_eq(__cudaPushCallConfiguration(d3(4, 1, 1), d3(256, 1, 1),
                                                  16, NULL),
                      0);
    ck_assert_uint_eq(__cudaPushCallConfiguration(d3(2, 3, 1), d3(8, 8, 2),
                                                  0, s),
                      0);
    dim3 g, b;
    size_t smem = 99;
    cudaStream_t got = NULL;
    ck_cuda_ok(__cudaPopCallConfiguration(&g, &b, &smem, &got));
    ck_assert_uint_eq(g.y, 3);
    ck_assert_uint_eq(b.z, 2);
    ck_assert_uint_eq(smem, 0);
    ck_assert_ptr_eq(got, s);
    ck_cuda_ok(__cudaPopCallConfiguration(&g, &b, &smem, &got));
    ck_assert_uint_eq(g.x, 4);
    ck_assert_uint_eq(b.x, 256);
    ck_assert_uint_eq(smem, 16);
    ck_assert_ptr_null(got);
    ck_cuda(__cudaPopCallConfiguration(&g, &b, &smem, &got),
            cudaErrorMissingConfiguration);
}
END_TEST

/* ---- launches ------------------------------------------------------------ */

/* Count lines of stderr saying kernel name was not run while fn runs. */
static int not_run_messages(void (*fn)(void), const char *name)
{
    char path[] = "/tmp/check_launch_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char buf[4096] = "";
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    unlink(path);
    buf[n > 0 ? n : 0] = '\0';
    char want[256];
    snprintf(want, sizeof(want), "p2psim: kernel %s not run: ", name);
    int count = 0;
    for (const char *p = buf; (p = strstr(p, want)); p += strlen(want)) {
        count++;
    }
    return count;
}

/* What a <<<4, 256>>> site and its stub do (p2psim_cudart_internal.h). */
static void launch_like_nvcc(void)
{
    float *out = NULL, *in = NULL, s = 2.0f;
    int n = 1024;
    void *args[] = { &out, &in, &n, &s };
    if (__cudaPushCallConfiguration(d3(4, 1, 1), d3(256, 1, 1), 0, NULL)) {
        return;
    }
    static cudaKernel_t k;
    if (!k) {
        ck_cuda_ok(__cudaGetKernel(&k, KEY(stub_scale)));
    }
    dim3 g, b;
    size_t smem;
    cudaStream_t st;
    ck_cuda_ok(__cudaPopCallConfiguration(&g, &b, &smem, &st));
    (void)__cudaLaunchKernel(k, g, b, args, smem, st);
}

static void launch_twice(void)
{
    launch_like_nvcc();
    ck_cuda(cudaGetLastError(), cudaErrorInvalidPtx);
    ck_cuda_ok(cudaGetLastError());
    launch_like_nvcc();
    ck_cuda(cudaPeekAtLastError(), cudaErrorInvalidPtx);
}

START_TEST(test_launch_fails_loudly_once)
{
    cudart_test_machine("h200-x1.yaml");
    register_module();
    ck_assert_int_eq(not_run_messages(launch_twice, "_Z5scalePfPKfif"), 1);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidPtx);
}
END_TEST

/* Every launch entry point reaches the same end. */
START_TEST(test_launch_entry_points)
{
    cudart_test_machine(NULL);
    register_module();
    cudaKernel_t k;
    ck_cuda_ok(__cudaGetKernel(&k, KEY(stub_other)));
    dim3 g = d3(1, 1, 1), b = d3(32, 1, 1);
    ck_cuda(cudaLaunchKernel(KEY(stub_other), g, b, NULL, 0, 0),
            cudaErrorInvalidPtx);
    ck_cuda(cudaLaunchKernel_ptsz(KEY(stub_other), g, b, NULL, 0, 0),
            cudaErrorInvalidPtx);
    ck_cuda(__cudaLaunchKernel_ptsz(k, g, b, NULL, 0, 0),
            cudaErrorInvalidPtx);
    ck_cuda(cudaLaunchCooperativeKernel(KEY(stub_other), g, b, NULL, 0, 0),
            cudaErrorInvalidPtx);
    ck_cuda(cudaLaunchCooperativeKernel_ptsz(KEY(stub_other), g, b, NULL, 0,
                                             cudaStreamPerThread),
            cudaErrorInvalidPtx);
    ck_cuda(cudaLaunchKernel(KEY(stub_other), g, b, NULL, 0,
                             cudaStreamLegacy),
            cudaErrorInvalidPtx);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidPtx);
}
END_TEST

START_TEST(test_launch_unknown_function)
{
    cudart_test_machine("h200-x1.yaml");
    register_module();
    dim3 g = d3(1, 1, 1), b = d3(1, 1, 1);
    ck_cuda(cudaLaunchKernel(KEY(stub_unregistered), g, b, NULL, 0, 0),
            cudaErrorInvalidDeviceFunction);
    ck_cuda(cudaLaunchKernel(NULL, g, b, NULL, 0, 0),
            cudaErrorInvalidDeviceFunction);
    ck_cuda(__cudaLaunchKernel((cudaKernel_t)(uintptr_t)0x1000, g, b, NULL, 0,
                               0),
            cudaErrorInvalidDeviceFunction);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
}
END_TEST

/* Configurations a real launch refuses (block 1024 threads, 1024 x 1024 x
 * 64; grid 2^31-1 x 65535 x 65535), and the edges it takes. */
static const struct {
    unsigned g[3], b[3];
    size_t smem;
    cudaError_t want;
} configs[] = {
    { { 0, 1, 1 }, { 32, 1, 1 }, 0, cudaErrorInvalidConfiguration },
    { { 1, 0, 1 }, { 32, 1, 1 }, 0, cudaErrorInvalidConfiguration },
    { { 1, 1, 1 }, { 0, 1, 1 }, 0, cudaErrorInvalidConfiguration },
    { { 1, 1, 1 }, { 32, 1, 0 }, 0, cudaErrorInvalidConfiguration },
    { { 1, 1, 1 }, { 1025, 1, 1 }, 0, cudaErrorInvalidConfiguration },
    { { 1, 1, 1 }, { 32, 32, 2 }, 0, cudaErrorInvalidConfiguration },
    { { 1, 1, 1 }, { 1, 1, 65 }, 0, cudaErrorInvalidConfiguration },
    { { 1, 1, 1 }, { 1, 1025, 1 }, 0, cudaErrorInvalidConfiguration },
    { { 1, 65536, 1 }, { 32, 1, 1 }, 0, cudaErrorInvalidConfiguration },
    { { 1, 1, 65536 }, { 32, 1, 1 }, 0, cudaErrorInvalidConfiguration },
    { { 0x80000000u, 1, 1 }, { 32, 1, 1 }, 0, cudaErrorInvalidConfiguration },
    { { 1, 1, 1 }, { 32, 1, 1 }, 49153, cudaErrorInvalidValue },
    { { 0x7fffffffu, 65535, 65535 }, { 1024, 1, 1 }, 0, cudaErrorInvalidPtx },
    { { 1, 1, 1 }, { 16, 16, 4 }, 49152, cudaErrorInvalidPtx },
    { { 1, 1, 1 }, { 1, 1, 64 }, 0, cudaErrorInvalidPtx },
};

START_TEST(test_launch_configuration)
{
    cudart_test_machine("h200-x1.yaml");
    register_module();
    dim3 g = d3(configs[_i].g[0], configs[_i].g[1], configs[_i].g[2]);
    dim3 b = d3(configs[_i].b[0], configs[_i].b[1], configs[_i].b[2]);
    ck_cuda(cudaLaunchKernel(KEY(stub_scale), g, b, NULL, configs[_i].smem,
                             0),
            configs[_i].want);
    ck_cuda(cudaGetLastError(), configs[_i].want);
}
END_TEST

START_TEST(test_launch_stream_checks)
{
    cudart_test_machine(NULL);
    register_module();
    dim3 g = d3(1, 1, 1), b = d3(64, 1, 1);
    cudaStream_t s1, s0;
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaStreamCreate(&s1));
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaStreamCreate(&s0));
    ck_cuda(cudaLaunchKernel(KEY(stub_scale), g, b, NULL, 0, s1),
            cudaErrorInvalidResourceHandle);
    ck_cuda(cudaLaunchKernel(KEY(stub_scale), g, b, NULL, 0, s0),
            cudaErrorInvalidPtx);
    ck_cuda_ok(cudaStreamDestroy(s0));
    ck_cuda(cudaLaunchKernel(KEY(stub_scale), g, b, NULL, 0, s0),
            cudaErrorInvalidResourceHandle);
    ck_cuda(cudaLaunchKernel(KEY(stub_scale), g, b, NULL, 0,
                             (cudaStream_t)(uintptr_t)0xdead0),
            cudaErrorInvalidResourceHandle);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidResourceHandle);
}
END_TEST

/* H200: 132 SMs, two 1024-thread blocks per SM (2048 threads/SM). */
START_TEST(test_launch_cooperative_too_large)
{
    cudart_test_machine("h200-x1.yaml");
    register_module();
    dim3 b = d3(1024, 1, 1);
    ck_cuda(cudaLaunchCooperativeKernel(KEY(stub_scale), d3(264, 1, 1), b,
                                        NULL, 0, 0),
            cudaErrorInvalidPtx);
    ck_cuda(cudaLaunchCooperativeKernel(KEY(stub_scale), d3(265, 1, 1), b,
                                        NULL, 0, 0),
            cudaErrorCooperativeLaunchTooLarge);
    ck_cuda(cudaLaunchCooperativeKernel(KEY(stub_scale), d3(133, 2, 1), b,
                                        NULL, 0, 0),
            cudaErrorCooperativeLaunchTooLarge);
    /* 32 blocks per SM of 32 threads: 4224 fit. */
    ck_cuda(cudaLaunchCooperativeKernel(KEY(stub_scale), d3(4224, 1, 1),
                                        d3(32, 1, 1), NULL, 0, 0),
            cudaErrorInvalidPtx);
}
END_TEST

/* ---- kernel attributes --------------------------------------------------- */

_Static_assert(sizeof(struct cudaFuncAttributes) == 144, "cudaFuncAttributes");

START_TEST(test_launch_func_attributes)
{
    cudart_test_machine("h200-x1.yaml");
    register_module();
    struct cudaFuncAttributes a;
    memset(&a, 0xff, sizeof(a));
    ck_cuda_ok(cudaFuncGetAttributes(&a, KEY(stub_scale)));
    ck_assert_int_eq(a.maxThreadsPerBlock, 1024);
    ck_assert_int_eq(a.ptxVersion, 90);
    ck_assert_int_eq(a.binaryVersion, 90);
    ck_assert_int_eq(a.maxDynamicSharedSizeBytes, 49152);
    ck_assert_int_eq(a.preferredShmemCarveout, -1);
    ck_assert_uint_eq(a.sharedSizeBytes, 0);
    ck_cuda(cudaFuncGetAttributes(&a, KEY(stub_unregistered)),
            cudaErrorInvalidDeviceFunction);
    ck_cuda(cudaFuncGetAttributes(NULL, KEY(stub_scale)),
            cudaErrorInvalidValue);

    /* Opting in to more dynamic shared memory lets the launch through. */
    dim3 g = d3(1, 1, 1), b = d3(128, 1, 1);
    ck_cuda(cudaLaunchKernel(KEY(stub_scale), g, b, NULL, 100000, 0),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaFuncSetAttribute(KEY(stub_scale),
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    100000));
    ck_cuda(cudaLaunchKernel(KEY(stub_scale), g, b, NULL, 100000, 0),
            cudaErrorInvalidPtx);
    ck_cuda_ok(cudaFuncGetAttributes(&a, KEY(stub_scale)));
    ck_assert_int_eq(a.maxDynamicSharedSizeBytes, 100000);
    ck_cuda(cudaFuncSetAttribute(KEY(stub_scale),
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 232449),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaFuncSetAttribute(
        KEY(stub_scale), cudaFuncAttributePreferredSharedMemoryCarveout, 50));
    ck_cuda(cudaFuncSetAttribute(KEY(stub_scale),
                                 cudaFuncAttributePreferredSharedMemoryCarveout,
                                 101),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaFuncSetAttribute(
        KEY(stub_scale), cudaFuncAttributeRequiredClusterWidth, 2));
    ck_cuda_ok(cudaFuncGetAttributes(&a, KEY(stub_scale)));
    ck_assert_int_eq(a.preferredShmemCarveout, 50);
    ck_assert_int_eq(a.requiredClusterWidth, 2);
    ck_cuda(cudaFuncSetAttribute(KEY(stub_scale),
                                 cudaFuncAttributeClusterDimMustBeSet, 1),
            cudaErrorInvalidValue);
    ck_cuda(cudaFuncSetAttribute(KEY(stub_unregistered),
                                 cudaFuncAttributePreferredSharedMemoryCarveout,
                                 0),
            cudaErrorInvalidDeviceFunction);
    /* The other kernel keeps its defaults. */
    ck_cuda_ok(cudaFuncGetAttributes(&a, KEY(stub_other)));
    ck_assert_int_eq(a.maxDynamicSharedSizeBytes, 49152);
}
END_TEST

/* ---- occupancy ----------------------------------------------------------- */

/*
 * Blocks per SM, worked out from the limits (CUDA C++ Programming Guide):
 * H200 (9.0): 64 warps, 32 blocks, 228 KiB shared memory per SM, 1 KiB
 * reserved per block. RTX 4090 (8.9): 48 warps, 24 blocks, 100 KiB.
 */
static const struct {
    const char *machine;
    int block;
    size_t dyn;
    int want;
} occupancy[] = {
    { "h200-x1.yaml", 256, 0, 8 },       /* 64 warps / 8 */
    { "h200-x1.yaml", 32, 0, 32 },       /* block slots */
    { "h200-x1.yaml", 1024, 0, 2 },
    { "h200-x1.yaml", 96, 0, 21 },       /* 64 / 3 warps */
    { "h200-x1.yaml", 1025, 0, 0 },      /* not a valid block */
    { "h200-x1.yaml", 128, 49152, 4 },   /* 233472 / (49152 + 1024) */
    { "h200-x1.yaml", 128, 49153, 0 },   /* past the kernel's 48 KiB */
    { "desktop-2x-geforce.yaml", 256, 0, 6 },   /* 48 warps / 8 */
    { "desktop-2x-geforce.yaml", 64, 0, 24 },   /* block slots */
    { "desktop-2x-geforce.yaml", 128, 32768, 3 },/* 102400 / 33792 */
};

START_TEST(test_launch_occupancy)
{
    cudart_test_machine(occupancy[_i].machine);
    register_module();
    int n = -1;
    ck_cuda_ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &n, KEY(stub_scale), occupancy[_i].block, occupancy[_i].dyn));
    ck_assert_int_eq(n, occupancy[_i].want);
    n = -1;
    ck_cuda_ok(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        &n, KEY(stub_scale), occupancy[_i].block, occupancy[_i].dyn,
        cudaOccupancyDisableCachingOverride));
    ck_assert_int_eq(n, occupancy[_i].want);
}
END_TEST

START_TEST(test_launch_occupancy_errors_and_smem)
{
    cudart_test_machine("h200-x1.yaml");
    register_module();
    int n;
    ck_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &n, KEY(stub_unregistered), 128, 0),
            cudaErrorInvalidDeviceFunction);
    ck_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, KEY(stub_scale),
                                                          0, 0),
            cudaErrorInvalidValue);
    ck_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(NULL,
                                                          KEY(stub_scale),
                                                          128, 0),
            cudaErrorInvalidValue);
    ck_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                &n, KEY(stub_scale), 128, 0, 0x4),
            cudaErrorInvalidValue);

    size_t smem = 1;
    /* 8 blocks: 233472 / 8 = 29184, less 1 KiB reserved. */
    ck_cuda_ok(cudaOccupancyAvailableDynamicSMemPerBlock(&smem,
                                                         KEY(stub_scale), 8,
                                                         256));
    ck_assert_uint_eq(smem, 28160);
    /* 2 blocks could have 115 KiB each, capped at the kernel's 48 KiB. */
    ck_cuda_ok(cudaOccupancyAvailableDynamicSMemPerBlock(&smem,
                                                         KEY(stub_scale), 2,
                                                         256));
    ck_assert_uint_eq(smem, 49152);
    /* 9 blocks of 256 threads do not fit (8 at most). */
    ck_cuda_ok(cudaOccupancyAvailableDynamicSMemPerBlock(&smem,
                                                         KEY(stub_scale), 9,
                                                         256));
    ck_assert_uint_eq(smem, 0);
    ck_cuda(cudaOccupancyAvailableDynamicSMemPerBlock(NULL, KEY(stub_scale),
                                                      1, 32),
            cudaErrorInvalidValue);
    ck_cuda(cudaOccupancyAvailableDynamicSMemPerBlock(
                &smem, KEY(stub_unregistered), 1, 32),
            cudaErrorInvalidDeviceFunction);
}
END_TEST

/* ---- untrusted fat binaries ---------------------------------------------- */

static void stub_fat0(void) {}
static void stub_fat1(void) {}
static void stub_fat2(void) {}
static void stub_fat3(void) {}

static void le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* A container of one entry (kind 1 PTX, 2 ELF) with payload, in a buffer
 * of exactly its size, its header stating entries bytes of entries (0:
 * the true size) and the entry payload_size bytes. */
static uint8_t *container(uint16_t kind, const char *payload,
                          uint64_t payload_size, uint64_t entries)
{
    size_t n = payload ? strlen(payload) + 1 : 0;
    uint8_t *f = calloc(1, 16 + 64 + n);
    ck_assert_ptr_nonnull(f);
    le(f, P2PSIM_FATBIN_CONTAINER_MAGIC, 4);
    le(f + 4, 1, 2);
    le(f + 6, 16, 2);
    le(f + 8, entries ? entries : 64 + n, 8);
    le(f + 16, kind, 2);
    le(f + 20, 64, 4);
    le(f + 24, payload ? n : payload_size, 8);
    le(f + 16 + 28, 90, 4);
    if (payload) {
        memcpy(f + 16 + 64, payload, n);
    }
    return f;
}

/* Register data as a program's device code with kernel k (host stub
 * stub) and launch it. */
static cudaError_t launch_fatbin(const uint8_t *data, void (*stub)(void))
{
    struct p2psim_fatbin_wrapper *w = calloc(1, sizeof(*w));
    ck_assert_ptr_nonnull(w);
    w->magic = P2PSIM_FATBIN_WRAPPER_MAGIC;
    w->version = P2PSIM_FATBIN_WRAPPER_VERSION;
    w->data = (const unsigned long long *)(const void *)data;
    void **h = __cudaRegisterFatBinary(w);
    ck_assert_ptr_nonnull(h);
    __cudaRegisterFunction(h, STUB(stub), (char *)"k", "k", -1, NULL, NULL,
                           NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    cudaError_t e = cudaLaunchKernel(KEY(stub), d3(1, 1, 1), d3(32, 1, 1),
                                     NULL, 0, 0);
    cudaGetLastError();
    return e;
}

#define PTX_HDR ".version 9.0\n.target sm_90\n.address_size 64\n"

/* The sizes of a registered fat binary are not trusted: nvcc's stub
 * gives no length, so the container header bounds the walk, and a PTX
 * text that asks for absurd sizes is a PTX error, not a crash (the
 * reproducers fatbin-3 and ptx-2 of issue 18). */
START_TEST(test_launch_untrusted_fatbins)
{
    cudart_test_machine("h200-x1.yaml");
    /* 2^40 bytes of entries, an ELF entry of 2^39 */
    uint8_t *f = container(2, NULL, 1ull << 39, 1ull << 40);
    ck_cuda(launch_fatbin(f, stub_fat0), cudaErrorInvalidPtx);
    /* a true container size, an entry claiming 2^39 */
    uint8_t *g = container(2, NULL, 1ull << 39, 0);
    ck_cuda(launch_fatbin(g, stub_fat1), cudaErrorInvalidPtx);
    /* PTX whose variable is 2^64 - 1 bytes */
    uint8_t *h = container(1, PTX_HDR ".global .b8 g[18446744073709551615]"
                           " = {0};\n.visible .entry k()\n{\nret;\n}\n",
                           0, 0);
    ck_cuda(launch_fatbin(h, stub_fat2), cudaErrorInvalidPtx);
    /* and a sound one in a buffer of exactly its size runs */
    uint8_t *ok = container(1, PTX_HDR ".visible .entry k()\n{\nret;\n}\n",
                            0, 0);
    ck_cuda_ok(launch_fatbin(ok, stub_fat3));
    ck_cuda_ok(cudaDeviceSynchronize());
}
END_TEST

Suite *make_cudart_launch_suite(void)
{
    Suite *s = suite_create("cudart-launch");
    TCase *tc = tcase_create("Registration");
    tcase_add_test(tc, test_launch_registration_round_trip);
    tcase_add_test(tc, test_launch_managed_variable);
    tcase_add_test(tc, test_launch_push_pop_nests);
    suite_add_tcase(s, tc);

    tc = tcase_create("Launch");
    tcase_add_test(tc, test_launch_fails_loudly_once);
    tcase_add_test(tc, test_launch_entry_points);
    tcase_add_test(tc, test_launch_unknown_function);
    tcase_add_loop_test(tc, test_launch_configuration, 0,
                        sizeof(configs) / sizeof(configs[0]));
    tcase_add_test(tc, test_launch_stream_checks);
    tcase_add_test(tc, test_launch_cooperative_too_large);
    tcase_add_test(tc, test_launch_untrusted_fatbins);
    suite_add_tcase(s, tc);

    tc = tcase_create("Attributes");
    tcase_add_test(tc, test_launch_func_attributes);
    tcase_add_loop_test(tc, test_launch_occupancy, 0,
                        sizeof(occupancy) / sizeof(occupancy[0]));
    tcase_add_test(tc, test_launch_occupancy_errors_and_smem);
    suite_add_tcase(s, tc);
    return s;
}
