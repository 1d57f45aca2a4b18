/*
 * tests/common/check_realclock.c - common/realclock.h: the simulator's
 * own clocks stay the computer's when the C library's clock_gettime and
 * nanosleep are taken over, as libp2psim-host.so takes them over in a
 * program run by `p2psim run` (cuda/host/host.c). This runner defines
 * both itself: while `frozen` is set, clock_gettime says 1000 s and
 * nanosleep returns at once, so only what reads the kernel sees time go.
 */
#include <config.h>

#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/osthread.h"
#include "common/realclock.h"
#include "tests/check_p2psim.h"

static volatile bool frozen;

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (frozen) {
        ts->tv_sec = 1000;
        ts->tv_nsec = 0;
        return 0;
    }
    return (int)syscall(SYS_clock_gettime, id, ts);
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    if (frozen) {
        return 0;
    }
    return (int)syscall(SYS_nanosleep, req, rem);
}

START_TEST(test_real_clock_past_interposition)
{
    frozen = true;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ck_assert_int_eq(ts.tv_sec, 1000);          /* the stand-in answers */
    uint64_t t0 = real_clock_ns(CLOCK_MONOTONIC);
    struct timespec d = { 0, 3000000 };
    ck_assert_int_eq(real_nanosleep(&d, NULL), 0);
    uint64_t t1 = real_clock_ns(CLOCK_MONOTONIC);
    frozen = false;
    ck_assert_uint_ne(t0, 0);
    /* a real sleep of 3 ms, on the real clock: at least 3 ms later */
    ck_assert_uint_ge(t1 - t0, 3000000);
}
END_TEST

START_TEST(test_cpu_time_past_interposition)
{
    /* osthread's CPU-time probe (the runtime's grace checks) reads the
     * kernel: it moves while this thread computes, frozen or not */
    frozen = true;
    uint64_t c0 = osthread_cpu_ns(pthread_self());
    uint64_t c1 = c0;
    volatile uint64_t x = 0;
    while (c1 == c0) {
        for (unsigned i = 0; i < 100000; i++) {
            x += i;
        }
        c1 = osthread_cpu_ns(pthread_self());
    }
    frozen = false;
    ck_assert_uint_gt(c1, c0);
    ck_assert_uint_ne(c0, 1000 * UINT64_C(1000000000));
}
END_TEST

Suite *make_realclock_suite(void)
{
    Suite *s = suite_create("realclock");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_real_clock_past_interposition);
    tcase_add_test(tc, test_cpu_time_past_interposition);
    suite_add_tcase(s, tc);
    return s;
}
