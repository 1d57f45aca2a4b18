/*
 * tests/ptx/check_ptx_link.c - linking the PTX units of a -rdc=true
 * program (ptx/ptx_link.h): which units are taken, externs resolved,
 * internal names renamed, weak definitions kept once, a symbol defined
 * twice refused, an unreadable unit left out, and the section walk; and
 * ptx_link_all, which links every unit (the driver's JIT linker).
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_p2psim.h"
#include "tests/ptx/ptx_test.h"
#include "ptx/ptx_link.h"

#define HEAD ".version 8.5\n.target sm_75\n.address_size 64\n"

/* The kernel: reads gv (defined in the other unit) and its own $str. */
static const char unit_kernel[] =
    HEAD
    ".extern .global .align 4 .u32 gv;\n"
    ".global .align 1 .b8 $str[3] = {104, 105, 0};\n"
    "// a comment with a brace { and a ; in it\n"
    ".visible .entry k(.param .u64 out)\n"
    "{\n"
    "  .reg .b32 %r<3>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.global.u32 %r1, [gv];\n"
    "  mov.u64 %rd2, $str;\n"
    "  ld.global.u8 %r2, [%rd2+1];\n"
    "  add.u32 %r1, %r1, %r2;\n"
    "  st.global.u32 [%rd1], %r1;\n"
    "  ret;\n"
    "}\n";

/* Defines gv, has its own internal $str (renamed) and a weak helper. */
static const char unit_data[] =
    ".version 9.0\n.target sm_75\n.address_size 64\n"
    ".file 1 \"b.cu\"\n"
    ".visible .global .align 4 .u32 gv = 7;\n"
    ".global .align 1 .b8 $str[2] = {33, 0};\n"
    ".weak .global .align 4 .u32 shared_w = 1;\n";

/* Unused by the kernel: not linked in. */
static const char unit_other[] =
    HEAD ".visible .global .align 4 .u32 unrelated = 5;\n";

static char *link(const char *const *u, unsigned n, int want_rc,
                  struct ptx_error *e)
{
    char *t = NULL;
    size_t len = 0;
    memset(e, 0, sizeof(*e));
    int rc = ptx_link_texts(u, n, NULL, NULL, &t, &len, e);
    ck_assert_msg(rc == want_rc, "rc %d (%s), want %d", rc, e->msg, want_rc);
    if (rc == 0) {
        ck_assert_uint_eq(len, strlen(t));
    }
    return t;
}

START_TEST(test_link_resolves_extern_and_renames)
{
    const char *u[] = { unit_kernel, unit_data, unit_other };
    struct ptx_error e;
    char *t = link(u, 3, 0, &e);
    ck_assert_ptr_null(strstr(t, "unrelated"));
    ck_assert_ptr_null(strstr(t, ".extern"));
    ck_assert_ptr_null(strstr(t, ".file"));
    ck_assert_ptr_nonnull(strstr(t, ".version 9.0\n"));
    ck_assert_ptr_nonnull(strstr(t, "$str_p2psim_u1[2]"));
    struct ptx_module *m = ptx_module_parse(t, strlen(t), &e);
    ck_assert_msg(m != NULL, "%s", e.msg);
    ck_assert_uint_eq(ptx_module_kernel_count(m), 1);
    ck_assert_uint_eq(ptx_module_var_count(m), 4);

    /* run it: gv (7) + 'i' (105) */
    uint64_t vars[4];
    uint32_t store[4][2];
    for (unsigned i = 0; i < 4; i++) {
        const struct ptx_var_info *v = ptx_module_var(m, i);
        memset(store[i], 0, sizeof(store[i]));
        memcpy(store[i], v->init, v->init_bytes);
        vars[i] = (uint64_t)(uintptr_t)store[i];
    }
    uint32_t out = 0;
    uint32_t *outp = &out;
    void *args[] = { &outp };
    ck_assert_int_eq(ptx_test_run_vars(m, "k", 1, 1, args, vars, &e), 0);
    ck_assert_uint_eq(out, 7 + 105);
    ptx_module_free(m);
    free(t);
}
END_TEST

static bool only_k2(const char *name, void *arg)
{
    (void)arg;
    return strcmp(name, "k2") == 0;
}

START_TEST(test_link_takes_wanted_units_only)
{
    const char k2[] = HEAD ".visible .entry k2()\n{\n  ret;\n}\n";
    const char *u[] = { unit_kernel, unit_data, k2 };
    char *t = NULL;
    struct ptx_error e;
    memset(&e, 0, sizeof(e));
    ck_assert_int_eq(ptx_link_texts(u, 3, only_k2, NULL, &t, NULL, &e), 0);
    ck_assert_ptr_nonnull(strstr(t, "k2"));
    ck_assert_ptr_null(strstr(t, "gv"));
    free(t);
    memset(&e, 0, sizeof(e));
    ck_assert_int_eq(ptx_link_texts(u, 2, only_k2, NULL, &t, NULL, &e),
                     PTX_ENOPTX);
    ck_assert_ptr_nonnull(strstr(e.msg, "registered"));
}
END_TEST

START_TEST(test_link_weak_once_strong_twice_refused)
{
    const char again[] = HEAD ".visible .global .align 4 .u32 gv = 3;\n"
                         ".visible .entry k5()\n{\n  ret;\n}\n";
    const char again2[] = HEAD ".visible .global .align 4 .u32 gv = 4;\n"
                          ".visible .entry k6()\n{\n  ret;\n}\n";
    const char *u[] = { unit_kernel, again, again2 };
    struct ptx_error e;
    link(u, 3, PTX_EINVAL, &e);
    ck_assert_ptr_nonnull(strstr(e.msg, "'gv'"));

    const char weak2[] = HEAD ".weak .global .align 4 .u32 shared_w = 2;\n"
                         ".visible .entry k3()\n{\n  ret;\n}\n";
    const char *w[] = { unit_kernel, unit_data, weak2 };
    char *t = link(w, 3, 0, &e);
    const char *a = strstr(t, "shared_w");
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_null(strstr(a + 1, "shared_w"));
    ck_assert_ptr_nonnull(strstr(t, "shared_w = 1"));
    free(t);
}
END_TEST

/* A unit the parser cannot read is left out with its kernels; when all
 * are, the first one's error is returned. Kernel declarations without a
 * body (libcudadevrt's) are dropped. */
START_TEST(test_link_drops_unreadable_unit)
{
    const char bad[] = HEAD ".visible .entry broken()\n{\n  ret\n}\n";
    const char decl[] = HEAD ".entry k4(.param .u64 p)\n;\n"
                        ".visible .entry k4(.param .u64 p)\n{\n  ret;\n}\n";
    const char *u[] = { bad, decl };
    struct ptx_error e;
    char *t = link(u, 2, 0, &e);
    ck_assert_ptr_null(strstr(t, "broken"));
    struct ptx_module *m = ptx_module_parse(t, strlen(t), &e);
    ck_assert_msg(m != NULL, "%s", e.msg);
    ck_assert_ptr_nonnull(ptx_module_find(m, "k4"));
    ptx_module_free(m);
    free(t);
    const char *only_bad[] = { bad };
    link(only_bad, 1, PTX_EPARSE, &e);
    ck_assert_ptr_nonnull(strstr(e.msg, "broken"));
}
END_TEST

START_TEST(test_link_section_walk)
{
    struct ptx_error e;
    char *t = NULL;
    uint8_t junk[64];
    memset(junk, 0, sizeof(junk));
    memset(&e, 0, sizeof(e));
    ck_assert_int_eq(ptx_link_relfatbin(junk, sizeof(junk), 0, NULL, NULL, &t,
                                        NULL, &e),
                     PTX_ENOPTX);
    /* a container whose sizes overrun the section */
    static const uint8_t over[24] = { 0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0,
                                      0xff, 0xff, 0, 0, 0, 0, 0, 0 };
    memset(&e, 0, sizeof(e));
    ck_assert_int_eq(ptx_link_relfatbin(over, sizeof(over), 0, NULL, NULL, &t,
                                        NULL, &e),
                     PTX_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "overruns"));
}
END_TEST

/* ptx_link_all (the driver's JIT linker): every unit is linked, the one
 * nothing uses too, and a second definition is refused. */
START_TEST(test_link_all_keeps_every_unit)
{
    const char *u[] = { unit_kernel, unit_data, unit_other };
    struct ptx_error e;
    char *t = NULL;
    size_t len = 0;
    memset(&e, 0, sizeof(e));
    ck_assert_int_eq(ptx_link_all(u, 3, &t, &len, &e), 0);
    ck_assert_uint_eq(len, strlen(t));
    ck_assert_ptr_nonnull(strstr(t, "unrelated"));
    ck_assert_ptr_null(strstr(t, ".extern"));
    struct ptx_module *m = ptx_module_parse(t, len, &e);
    ck_assert_msg(m != NULL, "%s", e.msg);
    ck_assert_uint_eq(ptx_module_var_count(m), 5);
    ptx_module_free(m);
    free(t);
    const char *twice[] = { unit_kernel, unit_data, unit_data };
    memset(&e, 0, sizeof(e));
    ck_assert_int_eq(ptx_link_all(twice, 3, &t, &len, &e), PTX_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "'gv' is defined in two"));
}
END_TEST

Suite *make_ptx_link_suite(void)
{
    Suite *s = suite_create("ptx-link");
    TCase *tc = tcase_create("link");
    tcase_add_test(tc, test_link_resolves_extern_and_renames);
    tcase_add_test(tc, test_link_takes_wanted_units_only);
    tcase_add_test(tc, test_link_weak_once_strong_twice_refused);
    tcase_add_test(tc, test_link_drops_unreadable_unit);
    tcase_add_test(tc, test_link_section_walk);
    tcase_add_test(tc, test_link_all_keeps_every_unit);
    suite_add_tcase(s, tc);
    return s;
}
