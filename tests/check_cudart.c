/*
 * tests/check_cudart.c - runner for the CUDA shim's suites. It links the
 * shim (libcudart.so.13) and calls it through our CUDA headers, as a
 * program does. Every test runs in its own process (Check's fork mode),
 * so each starts with a fresh runtime; a test picks its machine with
 * cudart_test_machine() before its first CUDA call.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "tests/cudart/cudart_test.h"

/* Suites still being written are weak so the runner links without them;
 * each is named when absent, so a missing suite cannot hide. */
#define SUITES(X)                                                             \
    X(make_cudart_device_suite)                                               \
    X(make_cudart_peer_suite)                                                 \
    X(make_cudart_memory_suite)                                               \
    X(make_cudart_managed_suite)                                              \
    X(make_cudart_stream_suite)                                               \
    X(make_cudart_copy_suite)                                                 \
    X(make_cudart_time_suite)                                                 \
    X(make_cudart_launch_suite)                                               \
    X(make_cudart_kernels_suite)                                              \
    X(make_cudart_errors_suite)                                               \
    X(make_cudart_ipc_suite)                                                  \
    X(make_cudart_server_kernels_suite)

#define WEAK(fn) Suite *fn(void) __attribute__((weak));
SUITES(WEAK)
#undef WEAK

int main(void)
{
    SRunner *sr = srunner_create(NULL);
    int missing = 0;
#define ADD(fn)                                                               \
    if (fn) {                                                                 \
        srunner_add_suite(sr, fn());                                          \
    } else {                                                                  \
        fprintf(stderr, "check_cudart: suite %s is missing\n", #fn);          \
        missing++;                                                            \
    }
    SUITES(ADD)
#undef ADD
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 && missing == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
