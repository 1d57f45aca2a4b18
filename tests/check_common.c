/*
 * tests/check_common.c - runner for the common/ suites; links
 * libcommon only.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "tests/check_p2psim.h"

/* Suites still being written are weak so the runner links without them;
 * each is named when absent, so a missing suite cannot hide. */
#define SUITES(X)                                                             \
    X(make_atomic_suite)                                                      \
    X(make_fdio_suite)

#define WEAK(fn) Suite *fn(void) __attribute__((weak));
SUITES(WEAK)
#undef WEAK

int main(void)
{
    SRunner *sr = srunner_create(NULL);
    int missing = 0;
#define ADD(fn)                                                               \
    if (fn) {                                                                 \
        srunner_add_suite(sr, fn());                                          \
    } else {                                                                  \
        fprintf(stderr, "check_common: suite %s is missing\n", #fn);          \
        missing++;                                                            \
    }
    SUITES(ADD)
#undef ADD
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 && missing == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
