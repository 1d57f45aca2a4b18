/*
 * tests/check_cuda.c - runner for the cuda/ suites that test a part of the
 * runtime below its exported face: the error model, and the reader of a
 * machine's api-costs:; links only cuda/cudart/libcudart_error.la,
 * libcudart_costs.la and libp2psim. The shim as programs call it is
 * tests/check_cudart.c.
 */
#include <config.h>

#include <stdlib.h>

#include "tests/check_p2psim.h"

int main(void)
{
    SRunner *sr = srunner_create(make_cudart_error_suite());
    srunner_add_suite(sr, make_api_costs_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
