/*
 * tests/check_traces.c - runner for the traces/ suites; links
 * traces/libtraces.la only, so a trace tool that reached into the
 * simulator (STYLE.md §2: traces/ is libc only) fails to link here.
 */
#include <config.h>

#include <stdlib.h>

#include "tests/check_p2psim.h"

int main(void)
{
    SRunner *sr = srunner_create(make_traces_format_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
