/*
 * tests/driver/check_driver_link.c - the JIT linker of p2psim's driver
 * API (cuLinkCreate, cuLinkAddData, cuLinkAddFile, cuLinkComplete,
 * cuLinkDestroy): two PTX units, one calling a function the other
 * defines, linked into a module that loads and runs; the options' outputs
 * (logs, wall time); and what bad input gets. Single-process, each test
 * in its own process (driver_main.c).
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
#include "tests/driver/driver_test.h"

#define CU_OK(call) ck_assert_int_eq((call), CUDA_SUCCESS)

/* Unit a: a kernel writing twice(tid) for each thread; twice is .extern. */
static const char unit_a[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".extern .func (.param .b32 rv) twice(.param .b32 x);\n"
    ".visible .entry k(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<4>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  {\n"
    "  .param .b32 a;\n"
    "  .param .b32 b;\n"
    "  st.param.b32 [a], %r1;\n"
    "  call.uni (b), twice, (a);\n"
    "  ld.param.b32 %r2, [b];\n"
    "  }\n"
    "  mul.wide.u32 %rd3, %r1, 4;\n"
    "  add.s64 %rd2, %rd2, %rd3;\n"
    "  st.global.u32 [%rd2], %r2;\n"
    "  ret;\n"
    "}\n";

/* Unit b: twice, visible to other units. */
static const char unit_b[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .func (.param .b32 rv) twice(.param .b32 x)\n"
    "{\n"
    "  .reg .b32 %r<3>;\n"
    "  ld.param.b32 %r1, [x];\n"
    "  shl.b32 %r2, %r1, 1;\n"
    "  st.param.b32 [rv], %r2;\n"
    "  ret;\n"
    "}\n";

static void start(void)
{
    setenv("P2PSIM_SERVER", "", 1);
    unsetenv("P2PSIM_TOPOLOGY");
    CU_OK(cuInit(0));
    CUcontext c;
    CU_OK(cuDevicePrimaryCtxRetain(&c, 0));
    CU_OK(cuCtxSetCurrent(c));
}

/* The options of cuLinkCreate as ptxjit passes them: wall time, both
 * logs, verbose. */
struct opts {
    CUjit_option opt[6];
    void *val[6];
    char info[1024], error[1024];
    float wall;
};

static void opts_init(struct opts *o)
{
    memset(o, 0, sizeof(*o));
    o->opt[0] = CU_JIT_WALL_TIME;
    o->val[0] = &o->wall;
    o->opt[1] = CU_JIT_INFO_LOG_BUFFER;
    o->val[1] = o->info;
    o->opt[2] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES;
    o->val[2] = (void *)(uintptr_t)sizeof(o->info);
    o->opt[3] = CU_JIT_ERROR_LOG_BUFFER;
    o->val[3] = o->error;
    o->opt[4] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
    o->val[4] = (void *)(uintptr_t)sizeof(o->error);
    o->opt[5] = CU_JIT_LOG_VERBOSE;
    o->val[5] = (void *)1;
}

/* Launch kernel k of the image on 128 threads: out[i] == 2 i. */
static void run_image(const void *image)
{
    CUmodule m;
    CUfunction f;
    CUdeviceptr out;
    CU_OK(cuModuleLoadData(&m, image));
    CU_OK(cuModuleGetFunction(&f, m, "k"));
    CU_OK(cuMemAlloc(&out, 128 * sizeof(uint32_t)));
    void *args[] = { &out };
    CU_OK(cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    uint32_t h[128];
    CU_OK(cuMemcpyDtoH(h, out, sizeof(h)));
    for (unsigned i = 0; i < 128; i++) {
        ck_assert_uint_eq(h[i], 2 * i);
    }
    CU_OK(cuMemFree(out));
    CU_OK(cuModuleUnload(m));
}

START_TEST(test_link_two_units)
{
    start();
    struct opts o;
    opts_init(&o);
    CUlinkState ls;
    CU_OK(cuLinkCreate(6, o.opt, o.val, &ls));
    /* with its NUL, and without */
    CU_OK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)unit_a, sizeof(unit_a),
                        "a.ptx", 0, NULL, NULL));
    CU_OK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)unit_b,
                        strlen(unit_b), "b.ptx", 0, NULL, NULL));
    void *image = NULL;
    size_t size = 0;
    CU_OK(cuLinkComplete(ls, &image, &size));
    ck_assert_ptr_nonnull(image);
    ck_assert_uint_eq(size, strlen(image) + 1);
    /* the outputs: verbose info naming both inputs, no error, the time
     * as a float over the option's value, the logs' sizes filled */
    ck_assert_ptr_nonnull(strstr(o.info, "a.ptx"));
    ck_assert_ptr_nonnull(strstr(o.info, "linked a.ptx, b.ptx"));
    ck_assert_str_eq(o.error, "");
    ck_assert_uint_eq((uintptr_t)o.val[2], strlen(o.info) + 1);
    ck_assert_uint_eq((uintptr_t)o.val[4], 0);
    float ms = -1.0f;
    memcpy(&ms, &o.val[0], sizeof(ms));
    ck_assert(ms >= 0.0f && ms < 60e3f);
    run_image(image);
    /* the image is the state's until cuLinkDestroy; a module loaded from
     * it outlives the state */
    CUmodule m;
    CUfunction f;
    CU_OK(cuModuleLoadData(&m, image));
    CU_OK(cuLinkDestroy(ls));
    CU_OK(cuModuleGetFunction(&f, m, "k"));
    ck_assert_int_eq(cuModuleGetFunction(&f, m, "twice"),
                     CUDA_ERROR_NOT_FOUND);     /* a .func, not a kernel */
    CU_OK(cuModuleUnload(m));
    ck_assert_int_eq(cuLinkDestroy(ls), CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

/* The same from a file, no options, the units the other way round;
 * cuGetProcAddress hands out the linker. */
START_TEST(test_link_file)
{
    start();
    char path[] = "/tmp/p2psim-link-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, unit_b, strlen(unit_b)),
                     (ssize_t)strlen(unit_b));
    close(fd);
    void *fn = NULL;
    CU_OK(cuGetProcAddress("cuLinkCreate", &fn, CUDA_VERSION, 0, NULL));
    ck_assert_ptr_eq(fn, (void *)cuLinkCreate_v2);
    CUlinkState ls;
    CU_OK(cuLinkCreate(0, NULL, NULL, &ls));
    CUresult r = cuLinkAddFile(ls, CU_JIT_INPUT_PTX, path, 0, NULL, NULL);
    unlink(path);
    CU_OK(r);
    CU_OK(cuLinkAddData(ls, CU_JIT_INPUT_CUBIN, (void *)unit_a,
                        sizeof(unit_a), NULL, 0, NULL, NULL));
    void *image = NULL;
    size_t size = 0;
    CU_OK(cuLinkComplete(ls, &image, &size));
    run_image(image);
    CU_OK(cuLinkDestroy(ls));
}
END_TEST

START_TEST(test_link_bad_input)
{
    start();
    static const char junk[] = "this is not PTX";
    static const char elf[] = "\177ELF\2\1\1\0\0\0\0\0\0\0\0\0";
    struct opts o;
    opts_init(&o);
    CUlinkState ls;
    CUjit_option bad = (CUjit_option)999;
    void *bad_val = NULL;
    ck_assert_int_eq(cuLinkCreate(1, &bad, &bad_val, &ls),
                     CUDA_ERROR_INVALID_VALUE);
    ck_assert_int_eq(cuLinkCreate(0, NULL, NULL, NULL),
                     CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuLinkCreate(6, o.opt, o.val, &ls));
    void *image = NULL;
    size_t size = 0;
    ck_assert_int_eq(cuLinkComplete(ls, &image, &size),
                     CUDA_ERROR_INVALID_VALUE);     /* nothing added */
    ck_assert_int_eq(cuLinkAddData(ls, (CUjitInputType)99, (void *)junk,
                                   sizeof(junk), "x", 0, NULL, NULL),
                     CUDA_ERROR_INVALID_VALUE);
    ck_assert_ptr_nonnull(strstr(o.error, "input type 99"));
    ck_assert_int_eq(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)junk,
                                   sizeof(junk), "junk.ptx", 0, NULL, NULL),
                     CUDA_ERROR_INVALID_PTX);
    ck_assert_ptr_nonnull(strstr(o.error, "junk.ptx: PTX line 1"));
    ck_assert_int_eq(cuLinkAddData(ls, CU_JIT_INPUT_OBJECT, (void *)elf,
                                   sizeof(elf), "k.o", 0, NULL, NULL),
                     CUDA_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(cuLinkAddData(ls, CU_JIT_INPUT_NVVM, (void *)junk,
                                   sizeof(junk), "k.ltoir", 0, NULL, NULL),
                     CUDA_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(cuLinkAddData(ls, CU_JIT_INPUT_CUBIN, (void *)elf,
                                   sizeof(elf), "k.cubin", 0, NULL, NULL),
                     CUDA_ERROR_NO_BINARY_FOR_GPU);
    ck_assert_int_eq(cuLinkAddData(ls, CU_JIT_INPUT_FATBINARY, (void *)junk,
                                   sizeof(junk), "k.fatbin", 0, NULL, NULL),
                     CUDA_ERROR_INVALID_IMAGE);
    ck_assert_int_eq(cuLinkAddData(ls, CU_JIT_INPUT_PTX, NULL, 10, "null", 0,
                                   NULL, NULL),
                     CUDA_ERROR_INVALID_VALUE);
    ck_assert_int_eq(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)unit_b,
                                   sizeof(unit_b), "b.ptx", 1, &bad,
                                   &bad_val),
                     CUDA_ERROR_INVALID_VALUE);
    ck_assert_int_eq(cuLinkAddFile(ls, CU_JIT_INPUT_PTX,
                                   "/nonexistent/k.ptx", 0, NULL, NULL),
                     CUDA_ERROR_FILE_NOT_FOUND);
    ck_assert_int_eq(cuLinkAddData(NULL, CU_JIT_INPUT_PTX, (void *)unit_b,
                                   sizeof(unit_b), "b.ptx", 0, NULL, NULL),
                     CUDA_ERROR_INVALID_HANDLE);
    /* the error log keeps every line; nothing bad was added */
    ck_assert_ptr_nonnull(strstr(o.error, "CU_JIT_INPUT_OBJECT is not "
                                          "served"));
    ck_assert_ptr_nonnull(strstr(o.error, "/nonexistent/k.ptx"));
    ck_assert_int_eq(cuLinkComplete(ls, &image, &size),
                     CUDA_ERROR_INVALID_VALUE);
    /* twice defined: the link fails and says where */
    CU_OK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)unit_a, sizeof(unit_a),
                        "a.ptx", 0, NULL, NULL));
    CU_OK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)unit_b, sizeof(unit_b),
                        "b.ptx", 0, NULL, NULL));
    CU_OK(cuLinkAddData(ls, CU_JIT_INPUT_PTX, (void *)unit_b, sizeof(unit_b),
                        "b2.ptx", 0, NULL, NULL));
    ck_assert_int_eq(cuLinkComplete(ls, &image, &size),
                     CUDA_ERROR_INVALID_IMAGE);
    ck_assert_ptr_nonnull(strstr(o.error, "'twice' is defined in two"));
    CU_OK(cuLinkDestroy(ls));
}
END_TEST

Suite *make_driver_link_suite(void)
{
    Suite *s = suite_create("driver-link");
    TCase *a = tcase_create("link");
    tcase_add_test(a, test_link_two_units);
    tcase_add_test(a, test_link_file);
    tcase_add_test(a, test_link_bad_input);
    suite_add_tcase(s, a);
    return s;
}
