/*
 * tests/cudart/cudart_test.h - what the shim's suites share: the suite
 * constructors and choosing the simulated machine.
 */
#ifndef P2PSIM_TESTS_CUDART_CUDART_TEST_H
#define P2PSIM_TESTS_CUDART_CUDART_TEST_H

#undef NDEBUG
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda/include/cuda_runtime_api.h"

Suite *make_cudart_device_suite(void);
Suite *make_cudart_peer_suite(void);
Suite *make_cudart_memory_suite(void);
Suite *make_cudart_managed_suite(void);
Suite *make_cudart_stream_suite(void);
Suite *make_cudart_copy_suite(void);
Suite *make_cudart_time_suite(void);
Suite *make_cudart_launch_suite(void);
Suite *make_cudart_kernels_suite(void);
Suite *make_cudart_park_suite(void);
Suite *make_cudart_errors_suite(void);
Suite *make_cudart_ipc_suite(void);
Suite *make_cudart_server_kernels_suite(void);
Suite *make_cudart_memcpy2d_suite(void);
Suite *make_cudart_heap_suite(void);

/*
 * cudart_test_machine - use topologies/<file> of the source tree (NULL:
 * the built-in default machine) for this test's runtime. Call before the
 * first CUDA call of the test (each test is its own process).
 */
static inline void cudart_test_machine(const char *file)
{
    if (!file) {
        unsetenv("P2PSIM_TOPOLOGY");
        return;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/topologies/%s", P2PSIM_SRCDIR, file);
    setenv("P2PSIM_TOPOLOGY", path, 1);
}

/*
 * A p2psim server (server_test.c) for machine (as cudart_test_machine),
 * on a fresh socket, ready when cudart_test_server_start returns; it sets
 * P2PSIM_SERVER, so CUDA calls made after it (in this process, or in
 * children forked before their first CUDA call) share its machine.
 * cudart_test_server_stop ends it (SIGTERM) and unsets P2PSIM_SERVER.
 */
#include <sys/types.h>

struct cudart_test_server {
    pid_t pid;
    char dir[64];
    char path[128];
};

void cudart_test_server_start(struct cudart_test_server *s,
                              const char *machine);
/* Returns the server's wait status (a sanitizer's report: not 0). */
int cudart_test_server_stop(struct cudart_test_server *s);

/*
 * cudart_test_in_child - (server_test.c) run(out) in a child forked now
 * (before this process's first CUDA call, so that the child has its own
 * runtime) with the environment variable var set to value, and its n
 * bytes of *out read back here; fails the test unless the child exits 0.
 */
void cudart_test_in_child(const char *var, const char *value,
                          void (*run)(void *out), void *out, size_t n);

/*
 * cudart_test_register_ptx - (module_test.c) register the PTX text (n
 * bytes, its NUL included) as nvcc's constructor registers a module: a
 * fat binary of one sm_90 PTX entry. Returns the handle for
 * __cudaRegisterFunction/__cudaRegisterVar and __cudaRegisterFatBinaryEnd.
 */
void **cudart_test_register_ptx(const char *text, size_t n);

/*
 * cudart_test_host_store - between events on stream s, launch(arg) queues
 * a kernel that polls the host-mapped *flag; then 50 event records on
 * another stream (45 us of the host's clock), the store of value to *flag
 * and an event on that stream (it completes at the host's clock). Waits
 * for s; *held_us: the kernel's span, *after_us: its end less the store's
 * event. (check_kernels.c, check_server_kernels.c)
 */
void cudart_test_host_store(cudaStream_t s, void (*launch)(void *arg),
                            void *arg, volatile uint32_t *flag,
                            uint32_t value, float *held_us,
                            float *after_us);

/* ck_assert that a CUDA call returned e (prints both names otherwise). */
#define ck_cuda(call, e)                                                      \
    do {                                                                      \
        cudaError_t got_ = (call);                                            \
        ck_assert_msg(got_ == (e), "%s: got %d (%s), want %d (%s)", #call,    \
                      (int)got_, cudaGetErrorName(got_), (int)(e),            \
                      cudaGetErrorName(e));                                   \
    } while (0)
#define ck_cuda_ok(call) ck_cuda(call, cudaSuccess)

#endif /* P2PSIM_TESTS_CUDART_CUDART_TEST_H */
