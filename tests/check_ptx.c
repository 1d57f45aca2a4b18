/*
 * tests/check_ptx.c - runner for the PTX front end (ptx/), which
 * links only libptx. Hand-written PTX suites always run.
 */
#include <config.h>

#include <stdlib.h>

#include "tests/check_p2psim.h"
#include "tests/ptx/ptx_test.h"

Suite *make_ptx_tex_suite(void); /* tests/ptx/check_ptx_tex.c */

int main(void)
{
    SRunner *sr = srunner_create(make_ptx_hand_suite());
    srunner_add_suite(sr, make_ptx_real_suite());
    srunner_add_suite(sr, make_ptx_link_suite());
    srunner_add_suite(sr, make_ptx_tex_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
