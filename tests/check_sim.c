/*
 * tests/check_sim.c - runner for the sim/ suites; links libsim only, so a
 * call from sim/ up into models/ or machine/ fails to link here.
 */
#include <config.h>

#include <stdlib.h>

#include "tests/check_p2psim.h"

int main(void)
{
    SRunner *sr = srunner_create(make_event_suite());
    srunner_add_suite(sr, make_queue_suite());
    srunner_add_suite(sr, make_tlp_suite());
    srunner_add_suite(sr, make_port_suite());
    srunner_add_suite(sr, make_stats_suite());
    srunner_add_suite(sr, make_props_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
