/*
 * tests/ptx/check_ptx_nvcc.c - the PTX front end on nvcc 13 output:
 * tests/ptx/kernels.cu compiled to PTX (-O3, sm_90) and run on the flat
 * executor, checked against the same computation in C; and fat binaries
 * (default zstd, -Xfatbin -compress-all, -no-compress, SASS only).
 */
#include <config.h>

#include "tests/check_p2psim.h"
#include "tests/ptx/ptx_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char nvcc[512];
static char dir[256];
static struct ptx_module *mod;

static bool is_exec(const char *p)
{
    return access(p, X_OK) == 0;
}

static bool find_nvcc(void)
{
    const char *env = getenv("NVCC");
    if (env && *env) {
        snprintf(nvcc, sizeof(nvcc), "%s", env);
        return is_exec(nvcc);
    }
    const char *path = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof(buf), "%s", path ? path : "");
    char *save = NULL;
    for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":",
                                                             &save)) {
        snprintf(nvcc, sizeof(nvcc), "%s/nvcc", d);
        if (is_exec(nvcc)) {
            return true;
        }
    }
    snprintf(nvcc, sizeof(nvcc), "/usr/local/cuda/bin/nvcc");
    return is_exec(nvcc);
}

static bool nvcc_src(const char *flags, const char *out, const char *src)
{
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "'%s' %s -o '%s/%s' '%s/tests/ptx/%s'",
             nvcc, flags, dir, out, P2PSIM_SRCDIR, src);
    if (system(cmd) != 0) {
        fprintf(stderr, "failed: %s\n", cmd);
        return false;
    }
    return true;
}

static bool nvcc_run(const char *flags, const char *out)
{
    return nvcc_src(flags, out, "kernels.cu");
}

bool ptx_test_nvcc_prepare(void)
{
    if (!find_nvcc()) {
        return false;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/ptxtestXXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        return false;
    }
    return nvcc_run("-ptx -O3 -arch=sm_90", "kernels.ptx") &&
           nvcc_run("-fatbin -arch=sm_90", "default.fatbin") &&
           nvcc_run("-fatbin -arch=sm_90 -Xfatbin -compress-all",
                    "all.fatbin") &&
           nvcc_run("-fatbin -arch=sm_90 -no-compress", "plain.fatbin") &&
           nvcc_run("-fatbin -gencode arch=compute_90,code=sm_90",
                    "sass.fatbin") &&
           nvcc_src("-ptx -O3 -arch=sm_80", "wmma.ptx", "wmma.cu");
}

void ptx_test_nvcc_cleanup(void)
{
    static const char *const files[] = {"kernels.ptx", "default.fatbin",
                                        "all.fatbin", "plain.fatbin",
                                        "sass.fatbin", "wmma.ptx"};
    char p[512];
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}

static char *read_out(const char *name, size_t *len)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    char *t = ptx_test_slurp(p, len);
    ck_assert_msg(t != NULL, "cannot read %s", p);
    return t;
}

struct ptx_module *ptx_test_nvcc_module(const char *name)
{
    size_t len;
    char *t = read_out(name, &len);
    struct ptx_error err = {0};
    struct ptx_module *m = ptx_module_parse(t, len, &err);
    free(t);
    ck_assert_msg(m != NULL, "%s: %s", name, err.msg);
    return m;
}

static void mod_setup(void)
{
    mod = ptx_test_nvcc_module("kernels.ptx");
}

static void mod_teardown(void)
{
    ptx_module_free(mod);
    mod = NULL;
}

/* ---- nvcc PTX --------------------------------------------------------- */

START_TEST(test_ptx_nvcc_every_kernel_is_supported)
{
    ck_assert_uint_eq(ptx_module_kernel_count(mod), 6);
    for (unsigned i = 0; i < ptx_module_kernel_count(mod); i++) {
        struct ptx_error err = {0};
        ck_assert_msg(ptx_kernel_check(ptx_module_kernel(mod, i), &err) == 0,
                      "%s", err.msg);
    }
    const struct ptx_kernel_info *in =
        ptx_kernel_get_info(ptx_module_find(mod, "saxpy"));
    ck_assert_uint_eq(in->n_params, 4);
    ck_assert_uint_eq(in->params[2].offset_bytes, 16);
    ck_assert_uint_eq(in->params[3].offset_bytes, 20);
    in = ptx_kernel_get_info(ptx_module_find(mod, "block_rev"));
    ck_assert_uint_eq(in->shared_bytes, 64 * 16);
}
END_TEST

START_TEST(test_ptx_nvcc_saxpy)
{
    enum { N = 1000 };
    float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) {
        x[i] = (float)i * 0.5f;
        y[i] = (float)(N - i);
    }
    float a = 3.0f;
    int n = N - 3; /* the tail stays untouched */
    void *args[] = {&y, &x, &a, &n};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run(mod, "saxpy", 8, 128, args, &err), 0);
    for (int i = 0; i < N; i++) {
        float want = i < n ? fmaf(x[i], a, (float)(N - i)) : (float)(N - i);
        ck_assert_float_eq(y[i], want);
    }
    free(x);
    free(y);
}
END_TEST

START_TEST(test_ptx_nvcc_divergence)
{
    int out[96];
    memset(out, 0x55, sizeof(out));
    int *po = out;
    void *args[] = {&po};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run(mod, "diverge", 1, 96, args, &err), 0);
    for (int t = 0; t < 96; t++) {
        if (t % 4 == 3) {
            ck_assert_int_eq(out[t], 0x55555555);
            continue;
        }
        int s = 0;
        for (int k = 0; k <= t; k++) {
            s += k * (t & 1 ? 2 : 1);
        }
        ck_assert_int_eq(out[t], s);
    }
}
END_TEST

START_TEST(test_ptx_nvcc_shuffle_reduce_and_ballot)
{
    enum { BLOCKS = 3, T = 64 };
    int in[BLOCKS * T];
    for (int i = 0; i < BLOCKS * T; i++) {
        in[i] = (i * 37) % 11;
    }
    unsigned long long sum = 0;
    int ballot[BLOCKS * 2];
    int *pi = in, *pb = ballot;
    unsigned long long *ps = &sum;
    void *args[] = {&pi, &ps, &pb};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run(mod, "reduce", BLOCKS, T, args, &err), 0);
    unsigned long long want = 0;
    for (int b = 0; b < BLOCKS; b++) {
        for (int wp = 0; wp < T / 32; wp++) {
            /* __shfl_down_sync: out-of-range lanes keep their value */
            int v[32];
            for (int l = 0; l < 32; l++) {
                v[l] = in[b * T + wp * 32 + l];
            }
            for (int o = 16; o > 0; o /= 2) {
                int nv[32];
                for (int l = 0; l < 32; l++) {
                    nv[l] = v[l] + (l + o < 32 ? v[l + o] : v[l]);
                }
                memcpy(v, nv, sizeof(v));
            }
            unsigned bal = 0;
            for (int l = 0; l < 32; l++) {
                bal |= (v[l] > 100) ? 1u << l : 0;
            }
            want += (unsigned long long)v[0];
            if (wp == T / 32 - 1) {
                /* both warps write ballot[blockIdx.x]; the last wins */
                ck_assert_uint_eq((unsigned)ballot[b], bal);
            }
        }
    }
    ck_assert_uint_eq(sum, want);
}
END_TEST

START_TEST(test_ptx_nvcc_shared_barrier_vectors_atomics)
{
    enum { BLOCKS = 2, T = 64 };
    int in[BLOCKS * T * 4], out[BLOCKS * T * 4];
    for (int i = 0; i < BLOCKS * T * 4; i++) {
        in[i] = i * 3 + 1;
    }
    int ctr[4] = {0, -100, 5, 0};
    float fsum = 0;
    double dsum = 0;
    int *po = out, *pi = in, *pc = ctr;
    float *pf = &fsum;
    double *pd = &dsum;
    void *args[] = {&po, &pi, &pc, &pf, &pd};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run(mod, "block_rev", BLOCKS, T, args, &err),
                     0);
    for (int b = 0; b < BLOCKS; b++) {
        for (int t = 0; t < T; t++) {
            for (int c = 0; c < 4; c++) {
                ck_assert_int_eq(out[(b * T + t) * 4 + c],
                                 in[(b * T + T - 1 - t) * 4 + c]);
            }
        }
    }
    ck_assert_int_eq(ctr[0], BLOCKS * T);
    ck_assert_int_eq(ctr[1], T - 1);
    ck_assert_int_eq(ctr[2], 105); /* thread 5's CAS, once */
    ck_assert_int_eq(ctr[3], 7);
    ck_assert_float_eq(fsum, 0.5f * BLOCKS * T);
    ck_assert_double_eq(dsum, 0.25 * BLOCKS * T);
}
END_TEST

START_TEST(test_ptx_nvcc_acquire_release_flag)
{
    enum { T = 64 };
    int data = 0, flag = 0, seen[T];
    int *pd = &data, *pf = &flag, *ps = seen;
    void *args[] = {&pd, &pf, &ps};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run(mod, "flag", 1, T, args, &err), 0);
    ck_assert_int_eq(flag, 1);
    for (int t = 0; t < T; t++) {
        ck_assert_int_eq(seen[t], 43); /* 42 + (clock64() > 0) */
    }
}
END_TEST

START_TEST(test_ptx_nvcc_conversions)
{
    enum { T = 40 };
    double in[T];
    float f[T];
    int i[T];
    unsigned short h[T];
    long long l[T];
    for (int t = 0; t < T; t++) {
        in[t] = (t - 20) * 12.375;
    }
    double *pin = in;
    float *pf = f;
    int *pi = i;
    unsigned short *ph = h;
    long long *pl = l;
    void *args[] = {&pin, &pf, &pi, &ph, &pl};
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_test_run(mod, "convert", 1, T, args, &err), 0);
    for (int t = 0; t < T; t++) {
        double d = in[t];
        ck_assert_float_eq(f[t], (float)(d * 1.5 + 0.25) / 3.0f);
        int iv = (int)d - (t >> 1) % 3;
        ck_assert_int_eq(i[t], iv);
        ck_assert_uint_eq(h[t], (unsigned short)(iv * 3000));
        ck_assert_int_eq(l[t], (long long)d * -1000000007LL / (t + 1));
    }
}
END_TEST

/* ---- Fat binaries ----------------------------------------------------- */

/* Flags of the first PTX entry of a container (tests the test input). */
static uint64_t ptx_entry_flags(const uint8_t *fb)
{
    uint16_t hdr;
    uint64_t total;
    memcpy(&hdr, fb + 6, 2);
    memcpy(&total, fb + 8, 8);
    const uint8_t *e = fb + hdr, *end = fb + hdr + total;
    while (e + 64 <= end) {
        uint16_t kind;
        uint32_t eh;
        uint64_t payload, flags;
        memcpy(&kind, e, 2);
        memcpy(&eh, e + 4, 4);
        memcpy(&payload, e + 8, 8);
        memcpy(&flags, e + 40, 8);
        if (kind == 1) {
            return flags;
        }
        e += eh + payload;
    }
    return 0;
}

static void check_fatbin(const char *name, bool compressed)
{
    size_t len;
    char *fb = read_out(name, &len);
    ck_assert_uint_eq(!!(ptx_entry_flags((uint8_t *)fb) & 0x8000),
                      compressed);
    /* through the wrapper, as __cudaRegisterFatBinary receives it */
    struct {
        int magic, version;
        const void *data;
        void *unused;
    } wrapper = {0x466243B1, 1, fb, NULL};
    char *text = NULL;
    size_t tlen = 0;
    struct ptx_error err = {0};
    ck_assert_msg(ptx_fatbin_extract(&wrapper, 0, &text, &tlen, &err) == 0,
                  "%s: %s", name, err.msg);
    ck_assert_uint_eq(strlen(text), tlen);
    struct ptx_module *m = ptx_module_parse(text, tlen, &err);
    ck_assert_msg(m != NULL, "%s", err.msg);
    ck_assert_uint_eq(ptx_module_target_sm(m), 90);
    ck_assert_uint_eq(ptx_module_kernel_count(m), 6);
    /* and it runs */
    int out[32], *po = out;
    void *args[] = {&po};
    ck_assert_int_eq(ptx_test_run(m, "diverge", 1, 32, args, &err), 0);
    ck_assert_int_eq(out[5], 30);
    ptx_module_free(m);
    free(text);
    free(fb);
}

START_TEST(test_ptx_fatbin_default_zstd)
{
    check_fatbin("default.fatbin", true);
}
END_TEST

START_TEST(test_ptx_fatbin_compress_all)
{
    check_fatbin("all.fatbin", true);
}
END_TEST

START_TEST(test_ptx_fatbin_uncompressed)
{
    check_fatbin("plain.fatbin", false);
}
END_TEST

START_TEST(test_ptx_fatbin_sass_only_says_how_to_build)
{
    size_t len;
    char *fb = read_out("sass.fatbin", &len);
    char *text = NULL;
    struct ptx_error err = {0};
    ck_assert_int_eq(ptx_fatbin_extract_data(fb, len, 0, &text, NULL, &err),
                     PTX_ENOPTX);
    ck_assert_ptr_null(text);
    ck_assert_ptr_nonnull(strstr(err.msg, "arch=compute_90,code=compute_90"));
    ck_assert_ptr_nonnull(strstr(err.msg, "sm_90"));
    struct {
        int magic, version;
        const void *data;
        void *unused;
    } wrapper = {0x466243B1, 2, fb, NULL};
    ck_assert_int_eq(ptx_fatbin_extract(&wrapper, 0, &text, NULL, &err),
                     PTX_ENOPTX);
    ck_assert_ptr_nonnull(strstr(err.msg, "-rdc"));
    /* a truncated container is refused, not read past */
    ck_assert_int_eq(ptx_fatbin_extract_data(fb, 40, 0, &text, NULL, &err),
                     PTX_EINVAL);
    wrapper.magic = 0;
    ck_assert_int_eq(ptx_fatbin_extract(&wrapper, 0, &text, NULL, &err),
                     PTX_EINVAL);
    free(fb);
}
END_TEST

Suite *make_ptx_nvcc_suite(void)
{
    Suite *s = suite_create("ptx_nvcc");
    TCase *tc = tcase_create("nvcc PTX");
    tcase_add_checked_fixture(tc, mod_setup, mod_teardown);
    tcase_add_test(tc, test_ptx_nvcc_every_kernel_is_supported);
    tcase_add_test(tc, test_ptx_nvcc_saxpy);
    tcase_add_test(tc, test_ptx_nvcc_divergence);
    tcase_add_test(tc, test_ptx_nvcc_shuffle_reduce_and_ballot);
    tcase_add_test(tc, test_ptx_nvcc_shared_barrier_vectors_atomics);
    tcase_add_test(tc, test_ptx_nvcc_acquire_release_flag);
    tcase_add_test(tc, test_ptx_nvcc_conversions);
    suite_add_tcase(s, tc);
    tc = tcase_create("Fat binaries");
    tcase_add_test(tc, test_ptx_fatbin_default_zstd);
    tcase_add_test(tc, test_ptx_fatbin_compress_all);
    tcase_add_test(tc, test_ptx_fatbin_uncompressed);
    tcase_add_test(tc, test_ptx_fatbin_sass_only_says_how_to_build);
    suite_add_tcase(s, tc);
    return s;
}
