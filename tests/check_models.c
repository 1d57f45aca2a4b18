/*
 * tests/check_models.c - runner for the models/ suites; links libmodels and
 * libsim only.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "tests/check_p2psim.h"

#define SUITES(X)                                                             \
    X(make_pcie_link_suite)                                                   \
    X(make_egress_suite)                                                      \
    X(make_psw_suite)                                                         \
    X(make_rc_suite)                                                          \
    X(make_iommu_suite)                                                       \
    X(make_hostmem_suite)                                                     \
    X(make_sparse_suite)                                                      \
    X(make_gpu_suite)

CHECK_RUNNER_MAIN("check_models", SUITES)
