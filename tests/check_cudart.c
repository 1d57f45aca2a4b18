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

#include "tests/check_p2psim.h"
#include "tests/cudart/cudart_test.h"

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
    X(make_cudart_park_suite)                                                 \
    X(make_cudart_errors_suite)                                               \
    X(make_cudart_ipc_suite)                                                  \
    X(make_cudart_server_kernels_suite)                                        \
    X(make_cudart_memcpy2d_suite)                                             \
    X(make_cudart_heap_suite)                                                 \
    X(make_cudart_texture_suite)

CHECK_RUNNER_MAIN("check_cudart", SUITES)
