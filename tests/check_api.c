/*
 * tests/check_api.c - runner for the api/ suites.
 */
#include <config.h>

#include <stdlib.h>

#include "tests/check_p2psim.h"

int main(void)
{
    SRunner *sr = srunner_create(make_exec_suite());
    srunner_add_suite(sr, make_cudart_error_suite());
    srunner_add_suite(sr, make_flow_suite());
    srunner_add_suite(sr, make_kernel_suite());
    srunner_add_suite(sr, make_trace_sink_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
