/*
 * tests/driver/driver_test.h - the driver API's suite, for its runner.
 */
#ifndef P2PSIM_TESTS_DRIVER_DRIVER_TEST_H
#define P2PSIM_TESTS_DRIVER_DRIVER_TEST_H

#include <check.h>

Suite *make_driver_suite(void);

#endif /* P2PSIM_TESTS_DRIVER_DRIVER_TEST_H */
