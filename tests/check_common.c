/*
 * tests/check_common.c - runner for the common/ suites; links
 * libcommon only.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "tests/check_p2psim.h"

#define SUITES(X)                                                             \
    X(make_atomic_suite)                                                      \
    X(make_fdio_suite)                                                        \
    X(make_realclock_suite)

CHECK_RUNNER_MAIN("check_common", SUITES)
