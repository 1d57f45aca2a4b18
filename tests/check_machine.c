/*
 * tests/check_machine.c - runner for the machine/ suites (libp2psim: the
 * fabric builder, loader, routes, machines of NVLink, copies, kernels,
 * the flow fidelity, the trace sink, the public types); links libp2psim
 * and what is below.
 */
#include <config.h>

#include <stdlib.h>

#include "tests/check_p2psim.h"

int main(void)
{
    SRunner *sr = srunner_create(make_fabric_suite());
    srunner_add_suite(sr, make_topology_suite());
    srunner_add_suite(sr, make_route_suite());
    srunner_add_suite(sr, make_nvlink_suite());
    srunner_add_suite(sr, make_override_suite());
    srunner_add_suite(sr, make_vm_suite());
    srunner_add_suite(sr, make_vms_suite());
    srunner_add_suite(sr, make_exec_suite());
    srunner_add_suite(sr, make_flow_suite());
    srunner_add_suite(sr, make_kernel_suite());
    srunner_add_suite(sr, make_trace_sink_suite());
    srunner_add_suite(sr, make_describe_suite());
    srunner_add_suite(sr, make_swview_suite());
    srunner_add_suite(sr, make_kinds_suite());
    srunner_add_suite(sr, make_storage_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
