/*
 * tests/sim/check_props.c - strict unit parsing and property lists with
 * source locations and "did you mean" hints. Table-driven.
 */
#include <config.h>

#include <string.h>

#include "sim/error.h"
#include "sim/props.h"
#include "sim/units.h"
#include "tests/check_p2psim.h"

struct unit_case {
    const char *text;
    int kind;                   /* 0 time, 1 size, 2 rate, 3 freq */
    int rc;                     /* expected return */
    uint64_t value;
};

static const struct unit_case unit_cases[] = {
    { "150ns", 0, 0, 150000 },
    { "1.5us", 0, 0, 1500000 },
    { "7ps", 0, 0, 7 },
    { "2s", 0, 0, UINT64_C(2000000000000) },
    { "0.5ps", 0, -SIM_ERANGE, 0 },
    { "150", 0, -SIM_ESYNTAX, 0 },
    { "150 ns", 0, -SIM_ESYNTAX, 0 },
    { "150NS", 0, -SIM_ESYNTAX, 0 },
    { "-3ns", 0, -SIM_ESYNTAX, 0 },
    { "ns", 0, -SIM_ESYNTAX, 0 },
    { "256B", 1, 0, 256 },
    { "64GiB", 1, 0, UINT64_C(64) << 30 },
    { "4KB", 1, 0, 4000 },
    { "141GB", 1, 0, UINT64_C(141000000000) },
    { "1.5KiB", 1, 0, 1536 },
    { "20000000TiB", 1, -SIM_ERANGE, 0 },
    { "25GB/s", 2, 0, UINT64_C(25000000000) },
    { "8Gb/s", 2, 0, UINT64_C(1000000000) },
    { "1b/s", 2, -SIM_ERANGE, 0 },
    { "12.5GB/s", 2, 0, UINT64_C(12500000000) },
    { "1980MHz", 3, 0, UINT64_C(1980000000) },
    { "1.98GHz", 3, 0, UINT64_C(1980000000) },
};

START_TEST(test_units_table)
{
    const struct unit_case *c = &unit_cases[_i];
    uint64_t v = 0;
    char why[256] = "";
    int rc;
    switch (c->kind) {
    case 0: rc = sim_parse_time(c->text, &v, why, sizeof(why)); break;
    case 1: rc = sim_parse_size(c->text, &v, why, sizeof(why)); break;
    case 2: rc = sim_parse_rate(c->text, &v, why, sizeof(why)); break;
    default: rc = sim_parse_freq(c->text, &v, why, sizeof(why)); break;
    }
    ck_assert_msg(rc == c->rc, "'%s': rc %d, expected %d (%s)", c->text, rc,
                  c->rc, why);
    if (rc == 0) {
        ck_assert_uint_eq(v, c->value);
    } else {
        ck_assert(why[0] != '\0');
    }
}
END_TEST

START_TEST(test_units_messages_name_units)
{
    uint64_t v;
    char why[256];
    ck_assert_int_eq(sim_parse_time("150", &v, why, sizeof(why)), -SIM_ESYNTAX);
    ck_assert(strstr(why, "no unit") != NULL);
    ck_assert_int_eq(sim_parse_size("5Gib", &v, why, sizeof(why)), -SIM_ESYNTAX);
    ck_assert(strstr(why, "GiB") != NULL);
    ck_assert_int_eq(sim_parse_u64("0x1F", &v, why, sizeof(why)), 0);
    ck_assert_uint_eq(v, 31);
    ck_assert_int_eq(sim_parse_u64("12a", &v, why, sizeof(why)), -SIM_ESYNTAX);
    ck_assert_int_eq(sim_parse_u64("99999999999999999999", &v, why,
                                   sizeof(why)), -SIM_ERANGE);
}
END_TEST

START_TEST(test_props_getters_and_locations)
{
    struct sim_props p;
    struct sim_mark where = { "m.yaml", 3, 5 };
    struct sim_mark lat = { "m.yaml", 4, 14 };
    struct sim_mark ports = { "m.yaml", 5, 12 };
    struct sim_mark mode = { "m.yaml", 6, 11 };
    sim_props_init(&p, "switch 'sw0'", &where);
    sim_props_set(&p, "latency", "150ms", &lat, NULL);
    sim_props_set(&p, "ports", "99", &ports, NULL);
    sim_props_set(&p, "mode", "fast", &mode, NULL);
    struct sim_error err;
    sim_error_clear(&err);
    sim_time_t t = 0;
    ck_assert_int_eq(sim_props_get_time(&p, "latency", &t, 0, &err), 0);
    ck_assert_uint_eq(t, UINT64_C(150000000000));
    uint64_t n = 0;
    ck_assert_int_eq(sim_props_get_u64(&p, "ports", &n, 1, 64, 0, &err),
                     -SIM_ERANGE);
    ck_assert_uint_eq(err.line, 5);
    ck_assert_uint_eq(err.column, 12);
    ck_assert(strstr(err.msg, "1 to 64") != NULL);
    sim_error_clear(&err);
    static const char *const modes[] = { "store-forward", "cut-through", NULL };
    int m = -1;
    ck_assert_int_eq(sim_props_get_enum(&p, "mode", modes, &m, 0, &err),
                     -SIM_EINVAL);
    ck_assert(strstr(err.msg, "cut-through") != NULL);
    sim_error_clear(&err);
    /* absent optional: 0 and the default is kept; absent required: error */
    uint64_t def = 7;
    ck_assert_int_eq(sim_props_get_u64(&p, "credits", &def, 0, 100, 0, &err),
                     0);
    ck_assert_uint_eq(def, 7);
    ck_assert_int_eq(sim_props_get_u64(&p, "lanes", &def, 0, 100,
                                       SIM_PROP_REQUIRED, &err), -SIM_ENOENT);
    ck_assert_uint_eq(err.line, 3);
    ck_assert(strstr(err.msg, "switch 'sw0' needs 'lanes'") != NULL);
    sim_props_fini(&p);
}
END_TEST

START_TEST(test_props_unknown_key_suggests)
{
    struct sim_props p;
    struct sim_mark k = { "m.yaml", 9, 3 };
    sim_props_init(&p, "switch 'sw0'", NULL);
    sim_props_set(&p, "latncy", "10ns", NULL, &k);
    struct sim_error err;
    sim_error_clear(&err);
    sim_time_t t = 0;
    sim_props_get_time(&p, "latency", &t, 0, &err);
    uint64_t n;
    sim_props_get_u64(&p, "ports", &n, 0, 10, 0, &err);
    ck_assert_int_eq(sim_props_check_unused(&p, &err), -SIM_ENOENT);
    ck_assert_str_eq(err.msg, "unknown key 'latncy' in switch 'sw0' (did you "
                              "mean 'latency'?)");
    ck_assert_uint_eq(err.line, 9);
    ck_assert_uint_eq(err.column, 3);
    ck_assert_uint_eq(sim_edit_distance("kitten", "sitting"), 3);
    sim_props_fini(&p);
}
END_TEST

Suite *make_props_suite(void)
{
    Suite *s = suite_create("props");
    TCase *tc = tcase_create("Units");
    tcase_add_loop_test(tc, test_units_table, 0,
                        (int)(sizeof(unit_cases) / sizeof(unit_cases[0])));
    tcase_add_test(tc, test_units_messages_name_units);
    suite_add_tcase(s, tc);
    tc = tcase_create("Props");
    tcase_add_test(tc, test_props_getters_and_locations);
    tcase_add_test(tc, test_props_unknown_key_suggests);
    suite_add_tcase(s, tc);
    return s;
}
