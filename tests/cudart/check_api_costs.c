/*
 * tests/cudart/check_api_costs.c - a machine file's api-costs: as the CUDA
 * runtime reads it (cuda/cudart/api_costs.c) from the section libp2psim
 * keeps: the costs set, in ps, and the others left to the runtime;
 * overrides that replace a cost or create the section; every key of the
 * one names table; and each bad input reported where it stands, in the
 * files of tests/cudart/api-costs/ and at "--set:N:C" for overrides.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "cuda/cudart/api_costs.h"
#include "machine/p2psim.h"
#include "sim/error.h"
#include "tests/check_p2psim.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

#define COSTS_DIR P2PSIM_SRCDIR "/tests/cudart/api-costs"

/* Open file (or a built-in machine) with overrides, and read its costs:
 * the result of api_costs_read, or 1 if the machine did not load. */
static int read_costs(const char *file, const char *overrides,
                      struct api_costs *c, struct sim_error *err)
{
    struct p2psim_options o = { .overrides = overrides };
    sim_error_clear(err);
    struct p2psim *p = p2psim_open(file, &o, err);
    if (!p) {
        return 1;
    }
    int rc = api_costs_read(p, c, err);
    p2psim_close(p);
    return rc;
}

START_TEST(test_api_costs_read)
{
    struct api_costs c;
    struct sim_error err;
    ck_assert_int_eq(read_costs(COSTS_DIR "/costs.yaml", NULL, &c, &err), 0);
    ck_assert(c.set[API_COST_MEMCPY_ASYNC_D2D]);
    ck_assert_uint_eq(c.ps[API_COST_MEMCPY_ASYNC_D2D], 5700000);
    ck_assert(c.set[API_COST_EVENT_RECORD]);
    ck_assert_uint_eq(c.ps[API_COST_EVENT_RECORD], 900000);
    /* zero is a value like any other: set, 0 ps */
    ck_assert(c.set[API_COST_SYNC]);
    ck_assert_uint_eq(c.ps[API_COST_SYNC], 0);
    unsigned n_set = 0;
    for (unsigned k = 0; k < API_COST_N; k++) {
        n_set += c.set[k];
    }
    ck_assert_uint_eq(n_set, 3);

    /* an override replaces a value, and adds one */
    ck_assert_int_eq(read_costs(COSTS_DIR "/costs.yaml",
                                "api-costs.memcpy-async-d2d=3.9us\n"
                                "api-costs.launch=4us",
                                &c, &err),
                     0);
    ck_assert_uint_eq(c.ps[API_COST_MEMCPY_ASYNC_D2D], 3900000);
    ck_assert(c.set[API_COST_LAUNCH]);
    ck_assert_uint_eq(c.ps[API_COST_LAUNCH], 4000000);

    /* a machine without api-costs: sets none; an override creates it */
    ck_assert_int_eq(read_costs("dgx1-v100", NULL, &c, &err), 0);
    for (unsigned k = 0; k < API_COST_N; k++) {
        ck_assert(!c.set[k]);
    }
    ck_assert_int_eq(read_costs("dgx1-v100", "api-costs.host-function=2.5us",
                                &c, &err),
                     0);
    ck_assert(c.set[API_COST_HOST_FUNCTION]);
    ck_assert_uint_eq(c.ps[API_COST_HOST_FUNCTION], 2500000);
    ck_assert(!c.set[API_COST_MEMCPY_ASYNC_D2D]);

    /* the library's machines that set one */
    ck_assert_int_eq(read_costs("h200-x1", NULL, &c, &err), 0);
    ck_assert_uint_eq(c.ps[API_COST_MEMCPY_ASYNC_D2D], 6100000);
    ck_assert_int_eq(read_costs("hgx-h200-x2", NULL, &c, &err), 0);
    ck_assert_uint_eq(c.ps[API_COST_MEMCPY_ASYNC_D2D], 3900000);
}
END_TEST

/* Every key of the one names table is accepted, and none is left NULL. */
START_TEST(test_api_costs_every_key)
{
    char over[64];
    const char *key = api_cost_names[_i];
    ck_assert_ptr_nonnull(key);
    snprintf(over, sizeof(over), "api-costs.%s=%uns", key, 100 + _i);
    struct api_costs c;
    struct sim_error err;
    ck_assert_msg(read_costs(COSTS_DIR "/costs.yaml", over, &c, &err) == 0,
                  "%s: %s", over, err.msg);
    ck_assert(c.set[_i]);
    ck_assert_uint_eq(c.ps[_i], (100 + _i) * 1000);
    ck_assert_ptr_null(api_cost_names[API_COST_N]);
}
END_TEST

/* Errors in overrides point at the override ("--set:N:C"). */
START_TEST(test_api_costs_override_errors)
{
    struct api_costs c;
    struct sim_error err;
    ck_assert_int_eq(read_costs(COSTS_DIR "/costs.yaml",
                                "api-costs.memcpy-async-d2d=5 us", &c, &err),
                     -SIM_EINVAL);
    ck_assert_str_eq(err.file, "--set");
    ck_assert_uint_eq(err.line, 1);
    ck_assert_uint_eq(err.column, 28);
    ck_assert_msg(strstr(err.msg, "memcpy-async-d2d") != NULL, "%s", err.msg);
    ck_assert_int_eq(read_costs(COSTS_DIR "/costs.yaml",
                                "\napi-costs.memcpy-d2d=5us", &c, &err),
                     -SIM_ENOENT);
    ck_assert_str_eq(err.file, "--set");
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 11);
    ck_assert_msg(strstr(err.msg, "unknown key 'memcpy-d2d' in api-costs") !=
                      NULL, "%s", err.msg);
    ck_assert_int_eq(read_costs("h200-x1", "api-costs.sycn=1us", &c, &err),
                     -SIM_ENOENT);
    ck_assert_str_eq(err.msg,
                     "unknown key 'sycn' in api-costs (did you mean 'sync'?)");
    ck_assert_int_eq(read_costs("h200-x1", "api-costs.call=2s", &c, &err),
                     -SIM_ERANGE);
}
END_TEST

/* The bad files of tests/cudart/api-costs/: each loads (libp2psim keeps
 * api-costs: unread), and the runtime's reader refuses it with this text
 * at this line:column of the file. */
static const struct {
    const char *file;
    unsigned line, column;
    int code;
    const char *text;
} bad[] = {
    { "bad-time.yaml", 16, 22, SIM_EINVAL,
      "api-costs: launch: unknown unit ' us' in '4 us'" },
    { "first-in-file.yaml", 16, 22, SIM_ERANGE,
      "api-costs: launch: 5s is more than 1s; a call's host cost is of "
      "microseconds (e.g. 5.7us)" },
    { "too-large.yaml", 16, 20, SIM_ERANGE,
      "api-costs: call: 5s is more than 1s" },
    { "typo.yaml", 16, 25, SIM_ENOENT,
      "unknown key 'lanch' in api-costs (did you mean 'launch'?)" },
    { "unknown-key.yaml", 18, 3, SIM_ENOENT,
      "unknown key 'memcpy-d2d' in api-costs" },
    { "value-list.yaml", 18, 9, SIM_EINVAL,
      "api-costs: sync must be a time (e.g. 5.7us), not a list" },
    { "value-mapping.yaml", 17, 9, SIM_EINVAL,
      "api-costs: sync must be a time (e.g. 5.7us), not a mapping" },
};

START_TEST(test_api_costs_bad_files)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", COSTS_DIR, bad[_i].file);
    struct api_costs c;
    struct sim_error err;
    int rc = read_costs(path, NULL, &c, &err);
    ck_assert_msg(rc != 1, "%s does not load: %s", bad[_i].file, err.msg);
    ck_assert_msg(rc == -bad[_i].code, "%s: %d (%s)", bad[_i].file, rc,
                  err.msg);
    ck_assert_msg(strstr(err.msg, bad[_i].text) != NULL,
                  "%s: got '%s', expected '%s'", bad[_i].file, err.msg,
                  bad[_i].text);
    ck_assert_msg(err.line == bad[_i].line && err.column == bad[_i].column,
                  "%s: error at %u:%u, expected %u:%u", bad[_i].file,
                  err.line, err.column, bad[_i].line, bad[_i].column);
    ck_assert_str_eq(err.file, path);
}
END_TEST

Suite *make_api_costs_suite(void)
{
    Suite *s = suite_create("api_costs");
    TCase *tc = tcase_create("Reader");
    tcase_add_test(tc, test_api_costs_read);
    tcase_add_loop_test(tc, test_api_costs_every_key, 0, API_COST_N);
    tcase_add_test(tc, test_api_costs_override_errors);
    tcase_add_loop_test(tc, test_api_costs_bad_files, 0,
                        (int)(sizeof(bad) / sizeof(bad[0])));
    suite_add_tcase(s, tc);
    return s;
}
