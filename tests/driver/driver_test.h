/*
 * tests/driver/driver_test.h - the driver API's suites, for their runner.
 */
#ifndef P2PSIM_TESTS_DRIVER_DRIVER_TEST_H
#define P2PSIM_TESTS_DRIVER_DRIVER_TEST_H

#include <check.h>

Suite *make_driver_suite(void);
Suite *make_driver_link_suite(void);  /* check_driver_link.c */

#endif /* P2PSIM_TESTS_DRIVER_DRIVER_TEST_H */
