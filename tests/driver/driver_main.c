/*
 * tests/driver/driver_main.c - runner of the driver API's suite
 * (check_driver.c); every test runs in its own process.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "tests/check_p2psim.h"
#include "tests/driver/driver_test.h"

#define SUITES(X) X(make_driver_suite)
CHECK_RUNNER_MAIN("check_driver", SUITES)
