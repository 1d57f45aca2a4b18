/*
 * tests/sim/check_stats.c - counters and histogram percentiles.
 */
#include <config.h>

#include <string.h>

#include "sim/stats.h"
#include "tests/check_p2psim.h"

START_TEST(test_stats_counters)
{
    struct sim_stats *s = sim_stats_create();
    uint64_t v = 0;
    ck_assert(!sim_stats_get(s, "a.b", &v));
    sim_stats_add(s, "z.last", 1);
    sim_stats_add(s, "a.b", 5);
    sim_stats_add(s, "a.b", 7);
    sim_stats_set(s, "m.mid", 3);
    ck_assert(sim_stats_get(s, "a.b", &v));
    ck_assert_uint_eq(v, 12);
    sim_stats_destroy(s);
}
END_TEST

/* sim_stats_addf: the name formatted as printf does, added to like any
 * counter, and cut at 255 bytes rather than overflowing. */
START_TEST(test_stats_addf_formats_the_name)
{
    struct sim_stats *s = sim_stats_create();
    uint64_t v = 0;
    ck_assert_int_eq(sim_stats_addf(s, 5, "%s.%u.%s", "l0", 1u, "tlps"), 0);
    sim_stats_addf(s, 2, "%s.%u.%s", "l0", 1u, "tlps");
    ck_assert(sim_stats_get(s, "l0.1.tlps", &v));
    ck_assert_uint_eq(v, 7);
    char longname[300];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    sim_stats_addf(s, 1, "%s.n", longname);
    longname[255] = '\0';
    ck_assert(sim_stats_get(s, longname, &v));
    ck_assert_uint_eq(v, 1);
    sim_stats_destroy(s);
}
END_TEST

static void collect(void *arg, const char *name, enum sim_stat_kind kind,
                    uint64_t value, const struct sim_hist *h)
{
    strcat(arg, name);
    strcat(arg, ";");
}

START_TEST(test_stats_foreach_in_name_order)
{
    struct sim_stats *s = sim_stats_create();
    sim_stats_add(s, "c", 1);
    sim_stats_add(s, "a", 1);
    sim_stats_hist(s, "b");
    char buf[64] = "";
    sim_stats_foreach(s, collect, buf);
    ck_assert_str_eq(buf, "a;b;c;");
    sim_stats_destroy(s);
}
END_TEST

START_TEST(test_stats_percentiles_exact_small)
{
    struct sim_hist h;
    sim_hist_init(&h);
    for (uint64_t v = 1; v <= 100; v++) {
        sim_hist_add(&h, v);
    }
    ck_assert_uint_eq(sim_hist_percentile(&h, 50), 50);
    ck_assert_uint_eq(sim_hist_percentile(&h, 99), 99);
    ck_assert_uint_eq(sim_hist_percentile(&h, 100), 100);
    ck_assert_uint_eq(sim_hist_percentile(&h, 0), 1);
    ck_assert(sim_hist_mean(&h) > 50.49 && sim_hist_mean(&h) < 50.51);
    sim_hist_fini(&h);
}
END_TEST

START_TEST(test_stats_percentiles_large_within_2pct)
{
    struct sim_hist h;
    sim_hist_init(&h);
    /* 1..1,000,000 ns in ps: p50 = 500 us, p99 = 990 us */
    for (uint64_t v = 1; v <= 1000000; v++) {
        sim_hist_add(&h, v * 1000);
    }
    static const double pct[] = { 10, 50, 90, 99, 99.9 };
    for (int i = 0; i < 5; i++) {
        double expect = pct[i] / 100.0 * 1e9;
        double got = (double)sim_hist_percentile(&h, pct[i]);
        ck_assert_msg(got > expect * 0.98 && got < expect * 1.02,
                      "p%g: got %.0f, expected %.0f", pct[i], got, expect);
    }
    ck_assert_uint_eq(h.count, 1000000);
    ck_assert_uint_eq(h.max, UINT64_C(1000000000));
    /* extreme values do not overflow the bucket index */
    sim_hist_add(&h, UINT64_MAX);
    ck_assert_uint_eq(sim_hist_percentile(&h, 100), UINT64_MAX);
    sim_hist_fini(&h);
}
END_TEST

START_TEST(test_stats_empty_hist)
{
    struct sim_hist h;
    sim_hist_init(&h);
    ck_assert_uint_eq(sim_hist_percentile(&h, 50), 0);
    ck_assert(sim_hist_mean(&h) == 0.0);
    sim_hist_fini(&h);
}
END_TEST

Suite *make_stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("Stats");
    tcase_add_test(tc, test_stats_counters);
    tcase_add_test(tc, test_stats_addf_formats_the_name);
    tcase_add_test(tc, test_stats_foreach_in_name_order);
    tcase_add_test(tc, test_stats_percentiles_exact_small);
    tcase_add_test(tc, test_stats_percentiles_large_within_2pct);
    tcase_add_test(tc, test_stats_empty_hist);
    suite_add_tcase(s, tc);
    return s;
}
