/*
 * tests/machine/check_override.c - overrides of a machine file
 * (machine/topology_override.c, topologies/SCHEMA.md "Overrides"): paths
 * through mappings, list entries by id, by index and by *, values that
 * replace or create, and errors located at "--set:N:C" whether the path,
 * the key or the value is wrong.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "machine/fabric.h"
#include "models/gpu/gpu.h"
#include "machine/topology.h"
#include "sim/error.h"
#include "tests/check_p2psim.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

#define GiB (UINT64_C(1) << 30)

/* base.yaml with overrides; NULL (and err) when it does not load. */
static struct topo_machine *load(const char *overrides, struct sim_error *err)
{
    struct topo_options opt = {
        .gpu_dir = P2PSIM_SRCDIR "/tests/topologies/gpus",
        .overrides = overrides,
    };
    sim_error_clear(err);
    return topo_load_file(P2PSIM_SRCDIR "/tests/topologies/base.yaml", &opt,
                          err);
}

static uint64_t bar1_of(struct topo_machine *m, const char *gpu)
{
    return gpu_bar1_size(fab_find(m->fab, gpu));
}

/* Each case: overrides, then the BAR1 sizes of gpu0 and gpu1 (the base
 * machine's catalog entry has 16 GiB). */
static const struct {
    const char *overrides;
    uint64_t bar1_gpu0, bar1_gpu1;
} ok_cases[] = {
    { "gpus.gpu0.set.bar1=32GiB", 32 * GiB, 16 * GiB },   /* creates set */
    { "gpus.*.set.bar1=4GiB", 4 * GiB, 4 * GiB },         /* every entry */
    { "gpus.1.set.bar1=8GiB", 16 * GiB, 8 * GiB },        /* by index */
    { "gpus.gpu1.set={bar1: 2GiB}", 16 * GiB, 2 * GiB },  /* a mapping */
    { "defaults.gpu.bar1=1GiB", 1 * GiB, 1 * GiB },       /* creates defaults */
    /* later lines win; blank lines count but do nothing */
    { "gpus.*.set.bar1=4GiB\n\n  gpus.gpu0.set.bar1=64GiB", 64 * GiB,
      4 * GiB },
    { "switches.sw0.latency=250ns\nswitches.sw0.acs=[RR, CR]", 16 * GiB,
      16 * GiB },
};

START_TEST(test_override_applies)
{
    struct sim_error err;
    struct topo_machine *m = load(ok_cases[_i].overrides, &err);
    ck_assert_msg(m != NULL, "'%s': %s:%u:%u: %s", ok_cases[_i].overrides,
                  err.file, err.line, err.column, err.msg);
    ck_assert_uint_eq(bar1_of(m, "gpu0"), ok_cases[_i].bar1_gpu0);
    ck_assert_uint_eq(bar1_of(m, "gpu1"), ok_cases[_i].bar1_gpu1);
    topo_machine_destroy(m);
}
END_TEST

/* Each case: overrides, then where the error must be and what it says. */
static const struct {
    const char *overrides;
    unsigned line, column;
    const char *text;
} err_cases[] = {
    /* an unknown key, found by the loader's own check, at the override */
    { "defaults.swtch.latency=1ns", 1, 10, "unknown key 'swtch'" },
    { "switches.sw0.latncy=1ns", 1, 14, "unknown key 'latncy'" },
    /* paths that leave the document */
    { "gpus.gpu9.model=x", 1, 6, "no entry 'gpu9' in 'gpus'" },
    { "gpus.2.model=x", 1, 6, "index 0 to 1" },
    { "gpus.gpu0=3", 1, 6, "'gpus' is a list" },
    { "name.x=1", 1, 6, "'name' is a value" },
    { "defaults..x=1", 1, 10, "empty name" },
    /* not PATH=VALUE, or a bad value */
    { "x", 1, 1, "is not PATH=VALUE" },
    { "=1", 1, 1, "is not PATH=VALUE" },
    { "gpus.gpu0.set.bar1=", 1, 20, "no value" },
    { "gpus.gpu0.set.bar1=[1", 1, 20, "is not YAML" },
    /* a value the model rejects, located at the override's value */
    { "gpus.gpu0.set.bar1=lots", 1, 20, "lots" },
    /* the second override is line 2 */
    { "gpus.*.set.bar1=4GiB\ndefaults.swtch.x=1", 2, 10, "unknown key" },
};

START_TEST(test_override_errors)
{
    struct sim_error err;
    struct topo_machine *m = load(err_cases[_i].overrides, &err);
    ck_assert_msg(m == NULL, "'%s' loaded", err_cases[_i].overrides);
    ck_assert_str_eq(err.file, "--set");
    ck_assert_msg(err.line == err_cases[_i].line &&
                      err.column == err_cases[_i].column,
                  "'%s': error at %u:%u (%s), expected %u:%u",
                  err_cases[_i].overrides, err.line, err.column, err.msg,
                  err_cases[_i].line, err_cases[_i].column);
    ck_assert_msg(strstr(err.msg, err_cases[_i].text) != NULL,
                  "'%s': '%s' lacks '%s'", err_cases[_i].overrides, err.msg,
                  err_cases[_i].text);
}
END_TEST

/* Errors in the file itself keep pointing at the file. */
START_TEST(test_override_keeps_file_marks)
{
    struct sim_error err;
    struct topo_options opt = {
        .gpu_dir = P2PSIM_SRCDIR "/tests/topologies/gpus",
        .overrides = "gpus.*.set.bar1=4GiB",
    };
    static const char text[] =
        "p2psim-machine: 1\nname: t\nsockets:\n  - { id: cpu0, "
        "root-ports: 1 }\ngpus:\n  - { id: gpu0, model: TEST-GPU, parent: "
        "cpu0, colour: red }\n";
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_string("t.yaml", text, strlen(text),
                                              &opt, &err);
    ck_assert_ptr_null(m);
    ck_assert_str_eq(err.file, "t.yaml");
    ck_assert_uint_eq(err.line, 6);
}
END_TEST

Suite *make_override_suite(void)
{
    Suite *s = suite_create("override");
    TCase *tc = tcase_create("Paths");
    tcase_add_loop_test(tc, test_override_applies, 0,
                        sizeof(ok_cases) / sizeof(ok_cases[0]));
    suite_add_tcase(s, tc);
    tc = tcase_create("Errors");
    tcase_add_loop_test(tc, test_override_errors, 0,
                        sizeof(err_cases) / sizeof(err_cases[0]));
    tcase_add_test(tc, test_override_keeps_file_marks);
    suite_add_tcase(s, tc);
    return s;
}
