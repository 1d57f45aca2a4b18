/*
 * tests/ptx/ptx_test.h - helpers of the PTX front-end suites: read a
 * file of the source tree, parse a module, run a kernel on the flat
 * executor.
 */
#ifndef P2PSIM_TESTS_PTX_PTX_TEST_H
#define P2PSIM_TESTS_PTX_PTX_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptx/flat.h"
#include "ptx/ptx.h"

/* The whole file, NUL-terminated (malloc'd), or NULL. */
char *ptx_test_slurp(const char *path, size_t *len);

/* Parse tests/ptx/<name> of the source tree; fails the test on error. */
struct ptx_module *ptx_test_module(const char *name);

/* Run kernel @name of @m on a 1-D grid; returns ptx_flat_run's code. */
int ptx_test_run(const struct ptx_module *m, const char *name,
                 unsigned grid, unsigned block, void *const *args,
                 struct ptx_error *err);

/* The same with the module variables at var_addrs (host pointers). */
int ptx_test_run_vars(const struct ptx_module *m, const char *name,
                      unsigned grid, unsigned block, void *const *args,
                      const uint64_t *var_addrs, struct ptx_error *err);

/* Compile tests/ptx/kernels.cu with nvcc into PTX and fat binaries in a
 * temporary folder (check_ptx_nvcc.c); false when there is no nvcc or a
 * compilation failed (the reason is printed). */
bool ptx_test_nvcc_prepare(void);
void ptx_test_nvcc_cleanup(void);
/* Parse an output of ptx_test_nvcc_prepare ("kernels.ptx", "wmma.ptx":
 * tests/ptx/wmma.cu for sm_80); fails the test on error. */
struct ptx_module *ptx_test_nvcc_module(const char *name);

Suite *make_ptx_hand_suite(void);
Suite *make_ptx_nvcc_suite(void);
Suite *make_ptx_wmma_suite(void);
Suite *make_ptx_real_suite(void);
Suite *make_ptx_link_suite(void);

#endif /* P2PSIM_TESTS_PTX_PTX_TEST_H */
