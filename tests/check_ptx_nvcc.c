/*
 * tests/check_ptx_nvcc.c - runner for the PTX front end on what nvcc
 * produces (tests/ptx/check_ptx_nvcc.c). Exits 77 (automake: skipped)
 * when nvcc is not found ($NVCC, PATH, /usr/local/cuda/bin).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "tests/check_p2psim.h"
#include "tests/ptx/ptx_test.h"

int main(void)
{
    if (!ptx_test_nvcc_prepare()) {
        printf("SKIP: nvcc not found (set NVCC or put it on PATH); the "
               "nvcc-built PTX and fat binary tests did not run\n");
        return 77;
    }
    SRunner *sr = srunner_create(make_ptx_nvcc_suite());
    srunner_add_suite(sr, make_ptx_wmma_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    ptx_test_nvcc_cleanup();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
