/*
 * tests/driver/driver_main.c - runner of the driver API's suites
 * (check_driver.c, check_driver_link.c); every test runs in its own
 * process.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "tests/check_p2psim.h"
#include "tests/driver/driver_test.h"

#define SUITES(X) X(make_driver_suite) X(make_driver_link_suite)
CHECK_RUNNER_MAIN("check_driver", SUITES)
