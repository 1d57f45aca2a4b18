/*
 * tests/check_p2psim.h - the Check suites, one per test file. Each layer
 * has a runner (tests/check_<layer>.c) that links only that layer.
 */
#ifndef P2PSIM_TESTS_CHECK_P2PSIM_H
#define P2PSIM_TESTS_CHECK_P2PSIM_H

#undef NDEBUG
#include <check.h>

/* common/ */
Suite *make_atomic_suite(void);
Suite *make_fdio_suite(void);
Suite *make_realclock_suite(void);

/* sim/ */
Suite *make_event_suite(void);
Suite *make_queue_suite(void);
Suite *make_tlp_suite(void);
Suite *make_port_suite(void);
Suite *make_stats_suite(void);
Suite *make_props_suite(void);
Suite *make_engine_systemc_suite(void);

/* models/ */
Suite *make_pcie_link_suite(void);
Suite *make_egress_suite(void);
Suite *make_psw_suite(void);
Suite *make_rc_suite(void);
Suite *make_iommu_suite(void);
Suite *make_hostmem_suite(void);
Suite *make_sparse_suite(void);
Suite *make_gpu_suite(void);

/* machine/ */
Suite *make_fabric_suite(void);
Suite *make_override_suite(void);
Suite *make_topology_suite(void);
Suite *make_route_suite(void);
Suite *make_nvlink_suite(void);
Suite *make_vm_suite(void);
Suite *make_vms_suite(void);
Suite *make_exec_suite(void);
Suite *make_flow_suite(void);
Suite *make_kernel_suite(void);
Suite *make_trace_sink_suite(void);
Suite *make_describe_suite(void);
Suite *make_swview_suite(void);
Suite *make_kinds_suite(void);
Suite *make_storage_suite(void);

/* cuda/ (below the shim's exported face) */
Suite *make_cudart_error_suite(void);
Suite *make_api_costs_suite(void);

/* traces/ */
Suite *make_traces_format_suite(void);

/*
 * CHECK_RUNNER_MAIN(NAME, SUITES): a runner's main() over SUITES(X), a list
 * of X(make_..._suite). Suites still being written are weak so the runner
 * links without them; each is named when absent (as "NAME: suite S is
 * missing"), so a missing suite cannot hide: the run then fails.
 */
#define CHECK_RUNNER_WEAK_(fn) Suite *fn(void) __attribute__((weak));
#define CHECK_RUNNER_ADD_(fn)                                                 \
    {   /* through a variable: a suite defined in the runner's own file    \
         * is never NULL, and testing its address draws -Waddress */        \
        Suite *(*volatile f_)(void) = fn;                                     \
        if (f_) {                                                             \
            srunner_add_suite(sr, f_());                                      \
        } else {                                                              \
            fprintf(stderr, "%s: suite %s is missing\n", runner_, #fn);      \
            missing++;                                                        \
        }                                                                     \
    }
#define CHECK_RUNNER_MAIN(NAME, SUITES)                                       \
    SUITES(CHECK_RUNNER_WEAK_)                                                \
    int main(void)                                                            \
    {                                                                         \
        const char *runner_ = NAME;                                           \
        SRunner *sr = srunner_create(NULL);                                   \
        int missing = 0;                                                      \
        SUITES(CHECK_RUNNER_ADD_)                                             \
        srunner_run_all(sr, CK_NORMAL);                                       \
        int failed = srunner_ntests_failed(sr);                               \
        srunner_free(sr);                                                     \
        return failed == 0 && missing == 0 ? EXIT_SUCCESS : EXIT_FAILURE;     \
    }

#endif /* P2PSIM_TESTS_CHECK_P2PSIM_H */
