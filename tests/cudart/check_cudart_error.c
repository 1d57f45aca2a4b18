/*
 * tests/cudart/check_cudart_error.c - the shim's error model (cuda/cudart/
 * error.h): the table of cudaError_t names, descriptions and stickiness,
 * and the last-error semantics of shared/reference/cuda-api.md §2.1 and
 * shared/calibration/h200-x1-api-costs.md ("Semantics seen").
 *
 * Completeness is checked twice: against a hand list of every enumerator
 * of enum cudaError (compiled against cuda/include/driver_types.h, so a
 * renamed or removed enumerator fails to build), and against the
 * enumerators read from driver_types.h at run time (so one added to the
 * header but not to the table fails the test).
 */
#include <config.h>

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/error.h"
#include "cuda/include/driver_types.h"
#include "tests/check_p2psim.h"

/* Every enumerator of enum cudaError in cuda/include/driver_types.h. */
#define ALL_CODES(X) \
    X(cudaSuccess) \
    X(cudaErrorInvalidValue) \
    X(cudaErrorMemoryAllocation) \
    X(cudaErrorInitializationError) \
    X(cudaErrorCudartUnloading) \
    X(cudaErrorProfilerDisabled) \
    X(cudaErrorProfilerNotInitialized) \
    X(cudaErrorProfilerAlreadyStarted) \
    X(cudaErrorProfilerAlreadyStopped) \
    X(cudaErrorInvalidConfiguration) \
    X(cudaErrorInvalidPitchValue) \
    X(cudaErrorInvalidSymbol) \
    X(cudaErrorInvalidHostPointer) \
    X(cudaErrorInvalidDevicePointer) \
    X(cudaErrorInvalidTexture) \
    X(cudaErrorInvalidTextureBinding) \
    X(cudaErrorInvalidChannelDescriptor) \
    X(cudaErrorInvalidMemcpyDirection) \
    X(cudaErrorAddressOfConstant) \
    X(cudaErrorTextureFetchFailed) \
    X(cudaErrorTextureNotBound) \
    X(cudaErrorSynchronizationError) \
    X(cudaErrorInvalidFilterSetting) \
    X(cudaErrorInvalidNormSetting) \
    X(cudaErrorMixedDeviceExecution) \
    X(cudaErrorNotYetImplemented) \
    X(cudaErrorMemoryValueTooLarge) \
    X(cudaErrorStubLibrary) \
    X(cudaErrorInsufficientDriver) \
    X(cudaErrorCallRequiresNewerDriver) \
    X(cudaErrorInvalidSurface) \
    X(cudaErrorDuplicateVariableName) \
    X(cudaErrorDuplicateTextureName) \
    X(cudaErrorDuplicateSurfaceName) \
    X(cudaErrorDevicesUnavailable) \
    X(cudaErrorIncompatibleDriverContext) \
    X(cudaErrorMissingConfiguration) \
    X(cudaErrorPriorLaunchFailure) \
    X(cudaErrorLaunchMaxDepthExceeded) \
    X(cudaErrorLaunchFileScopedTex) \
    X(cudaErrorLaunchFileScopedSurf) \
    X(cudaErrorSyncDepthExceeded) \
    X(cudaErrorLaunchPendingCountExceeded) \
    X(cudaErrorInvalidDeviceFunction) \
    X(cudaErrorNoDevice) \
    X(cudaErrorInvalidDevice) \
    X(cudaErrorDeviceNotLicensed) \
    X(cudaErrorSoftwareValidityNotEstablished) \
    X(cudaErrorStartupFailure) \
    X(cudaErrorInvalidKernelImage) \
    X(cudaErrorDeviceUninitialized) \
    X(cudaErrorMapBufferObjectFailed) \
    X(cudaErrorUnmapBufferObjectFailed) \
    X(cudaErrorArrayIsMapped) \
    X(cudaErrorAlreadyMapped) \
    X(cudaErrorNoKernelImageForDevice) \
    X(cudaErrorAlreadyAcquired) \
    X(cudaErrorNotMapped) \
    X(cudaErrorNotMappedAsArray) \
    X(cudaErrorNotMappedAsPointer) \
    X(cudaErrorECCUncorrectable) \
    X(cudaErrorUnsupportedLimit) \
    X(cudaErrorDeviceAlreadyInUse) \
    X(cudaErrorPeerAccessUnsupported) \
    X(cudaErrorInvalidPtx) \
    X(cudaErrorInvalidGraphicsContext) \
    X(cudaErrorNvlinkUncorrectable) \
    X(cudaErrorJitCompilerNotFound) \
    X(cudaErrorUnsupportedPtxVersion) \
    X(cudaErrorJitCompilationDisabled) \
    X(cudaErrorUnsupportedExecAffinity) \
    X(cudaErrorUnsupportedDevSideSync) \
    X(cudaErrorContained) \
    X(cudaErrorInvalidSource) \
    X(cudaErrorFileNotFound) \
    X(cudaErrorSharedObjectSymbolNotFound) \
    X(cudaErrorSharedObjectInitFailed) \
    X(cudaErrorOperatingSystem) \
    X(cudaErrorInvalidResourceHandle) \
    X(cudaErrorIllegalState) \
    X(cudaErrorLossyQuery) \
    X(cudaErrorSymbolNotFound) \
    X(cudaErrorNotReady) \
    X(cudaErrorIllegalAddress) \
    X(cudaErrorLaunchOutOfResources) \
    X(cudaErrorLaunchTimeout) \
    X(cudaErrorLaunchIncompatibleTexturing) \
    X(cudaErrorPeerAccessAlreadyEnabled) \
    X(cudaErrorPeerAccessNotEnabled) \
    X(cudaErrorSetOnActiveProcess) \
    X(cudaErrorContextIsDestroyed) \
    X(cudaErrorAssert) \
    X(cudaErrorTooManyPeers) \
    X(cudaErrorHostMemoryAlreadyRegistered) \
    X(cudaErrorHostMemoryNotRegistered) \
    X(cudaErrorHardwareStackError) \
    X(cudaErrorIllegalInstruction) \
    X(cudaErrorMisalignedAddress) \
    X(cudaErrorInvalidAddressSpace) \
    X(cudaErrorInvalidPc) \
    X(cudaErrorLaunchFailure) \
    X(cudaErrorCooperativeLaunchTooLarge) \
    X(cudaErrorTensorMemoryLeak) \
    X(cudaErrorNotPermitted) \
    X(cudaErrorNotSupported) \
    X(cudaErrorSystemNotReady) \
    X(cudaErrorSystemDriverMismatch) \
    X(cudaErrorCompatNotSupportedOnDevice) \
    X(cudaErrorMpsConnectionFailed) \
    X(cudaErrorMpsRpcFailure) \
    X(cudaErrorMpsServerNotReady) \
    X(cudaErrorMpsMaxClientsReached) \
    X(cudaErrorMpsMaxConnectionsReached) \
    X(cudaErrorMpsClientTerminated) \
    X(cudaErrorCdpNotSupported) \
    X(cudaErrorCdpVersionMismatch) \
    X(cudaErrorStreamCaptureUnsupported) \
    X(cudaErrorStreamCaptureInvalidated) \
    X(cudaErrorStreamCaptureMerge) \
    X(cudaErrorStreamCaptureUnmatched) \
    X(cudaErrorStreamCaptureUnjoined) \
    X(cudaErrorStreamCaptureIsolation) \
    X(cudaErrorStreamCaptureImplicit) \
    X(cudaErrorCapturedEvent) \
    X(cudaErrorStreamCaptureWrongThread) \
    X(cudaErrorTimeout) \
    X(cudaErrorGraphExecUpdateFailure) \
    X(cudaErrorExternalDevice) \
    X(cudaErrorInvalidClusterSize) \
    X(cudaErrorFunctionNotLoaded) \
    X(cudaErrorInvalidResourceType) \
    X(cudaErrorInvalidResourceConfiguration) \
    X(cudaErrorUnknown) \
    X(cudaErrorApiFailureBase)

struct code_case {
    int code;
    const char *ident;
};

#define CODE_CASE(id) {(int)(id), #id},
static const struct code_case all_codes[] = {ALL_CODES(CODE_CASE)};
#define N_CODES ((int)(sizeof all_codes / sizeof all_codes[0]))

/* The sticky codes of reference §2.1 (driver_types.h marks the same). */
static const int sticky_codes[] = {
    cudaErrorContained,          cudaErrorIllegalAddress,
    cudaErrorLaunchTimeout,      cudaErrorAssert,
    cudaErrorHardwareStackError, cudaErrorIllegalInstruction,
    cudaErrorMisalignedAddress,  cudaErrorInvalidAddressSpace,
    cudaErrorInvalidPc,          cudaErrorLaunchFailure,
    cudaErrorTensorMemoryLeak,   cudaErrorMpsClientTerminated,
    cudaErrorExternalDevice,
};
#define N_STICKY ((int)(sizeof sticky_codes / sizeof sticky_codes[0]))

static bool in_sticky_list(int code)
{
    for (int i = 0; i < N_STICKY; i++) {
        if (sticky_codes[i] == code) {
            return true;
        }
    }
    return false;
}

static void setup(void)
{
    cudart_error_reset_for_tests();
}

/* --- Table ------------------------------------------------------------- */

START_TEST(test_cudart_error_name_is_identifier)
{
    const struct code_case *c = &all_codes[_i];

    ck_assert_msg(cudart_error_is_known(c->code), "%s (%d) missing",
                  c->ident, c->code);
    ck_assert_str_eq(cudart_error_name(c->code), c->ident);
    ck_assert_ptr_nonnull(cudart_error_string(c->code));
    ck_assert_str_ne(cudart_error_string(c->code), "");
    ck_assert_str_ne(cudart_error_string(c->code), CUDART_ERROR_UNRECOGNIZED);
    ck_assert_int_eq(cudart_error_is_sticky(c->code),
                     in_sticky_list(c->code));
}
END_TEST

START_TEST(test_cudart_error_table_matches_hand_list)
{
    ck_assert_int_eq((int)cudart_error_count(), N_CODES);
    /* Ascending order (the lookup is a binary search), same codes. */
    for (int i = 0; i < N_CODES; i++) {
        ck_assert_int_eq(cudart_error_code_at((size_t)i), all_codes[i].code);
        if (i > 0) {
            ck_assert_int_lt(all_codes[i - 1].code, all_codes[i].code);
        }
    }
    ck_assert_int_eq(cudart_error_code_at(cudart_error_count()), -1);
}
END_TEST

/* Read "cudaXxx = N," lines of enum cudaError from the header itself. */
START_TEST(test_cudart_error_table_matches_header)
{
    const char *path = P2PSIM_SRCDIR "/cuda/include/driver_types.h";
    FILE *f = fopen(path, "r");
    char line[512];
    bool in_enum = false;
    int n = 0;

    ck_assert_msg(f != NULL, "cannot open %s", path);
    while (fgets(line, sizeof line, f) != NULL) {
        char ident[128];
        int value;

        if (!in_enum) {
            in_enum = strstr(line, "enum __device_builtin__ cudaError {") !=
                      NULL;
            continue;
        }
        if (strncmp(line, "};", 2) == 0) {
            break;
        }
        if (sscanf(line, " %127[A-Za-z0-9_] = %d", ident, &value) == 2) {
            ck_assert_msg(cudart_error_is_known(value),
                          "%s = %d is not in the table", ident, value);
            ck_assert_str_eq(cudart_error_name(value), ident);
            n++;
        }
    }
    fclose(f);
    ck_assert_int_gt(n, 100);
    ck_assert_int_eq(n, (int)cudart_error_count());
    ck_assert_int_eq(n, N_CODES);
}
END_TEST

START_TEST(test_cudart_error_names_and_descriptions_unique)
{
    int n = (int)cudart_error_count();

    for (int i = 0; i < n; i++) {
        int a = cudart_error_code_at((size_t)i);
        for (int j = i + 1; j < n; j++) {
            int b = cudart_error_code_at((size_t)j);
            ck_assert_int_ne(a, b);
            ck_assert_str_ne(cudart_error_name(a), cudart_error_name(b));
            ck_assert_msg(strcmp(cudart_error_string(a),
                                 cudart_error_string(b)) != 0,
                          "%s and %s share a description",
                          cudart_error_name(a), cudart_error_name(b));
        }
    }
}
END_TEST

START_TEST(test_cudart_error_sticky_set_is_the_reference_list)
{
    int n_sticky = 0;

    for (size_t i = 0; i < cudart_error_count(); i++) {
        n_sticky += cudart_error_is_sticky(cudart_error_code_at(i));
    }
    ck_assert_int_eq(n_sticky, N_STICKY);
    ck_assert(cudart_error_is_sticky(cudaErrorIllegalAddress));
    ck_assert(cudart_error_is_sticky(cudaErrorLaunchFailure));
    ck_assert(!cudart_error_is_sticky(cudaSuccess));
    ck_assert(!cudart_error_is_sticky(cudaErrorInvalidValue));
    ck_assert(!cudart_error_is_sticky(cudaErrorPeerAccessAlreadyEnabled));
    ck_assert(!cudart_error_is_sticky(cudaErrorNotReady));
    ck_assert(!cudart_error_is_sticky(12345));
}
END_TEST

/* Values the reference's table of §2.1 lists, spot-checked by number. */
START_TEST(test_cudart_error_reference_values)
{
    ck_assert_str_eq(cudart_error_name(0), "cudaSuccess");
    ck_assert_str_eq(cudart_error_name(1), "cudaErrorInvalidValue");
    ck_assert_str_eq(cudart_error_name(217), "cudaErrorPeerAccessUnsupported");
    ck_assert_str_eq(cudart_error_name(600), "cudaErrorNotReady");
    ck_assert_str_eq(cudart_error_name(704),
                     "cudaErrorPeerAccessAlreadyEnabled");
    ck_assert_str_eq(cudart_error_name(705), "cudaErrorPeerAccessNotEnabled");
    ck_assert_str_eq(cudart_error_name(999), "cudaErrorUnknown");
    ck_assert_str_eq(cudart_error_name(10000), "cudaErrorApiFailureBase");
}
END_TEST

static const int unknown_codes[] = {-1, 10, 99, 227, 601, 722, 998, 1000,
                                    9999, 10001, INT_MIN, INT_MAX};

START_TEST(test_cudart_error_unknown_code_is_unrecognized)
{
    int code = unknown_codes[_i];

    ck_assert(!cudart_error_is_known(code));
    ck_assert(!cudart_error_is_sticky(code));
    ck_assert_str_eq(cudart_error_name(code), CUDART_ERROR_UNRECOGNIZED);
    ck_assert_str_eq(cudart_error_string(code), CUDART_ERROR_UNRECOGNIZED);
}
END_TEST

/* --- Last error ---------------------------------------------------------- */

START_TEST(test_cudart_error_starts_clear)
{
    ck_assert_int_eq(cudart_error_peek_last(), 0);
    ck_assert_int_eq(cudart_error_get_last(), 0);
    ck_assert_int_eq(cudart_error_sticky(), 0);
}
END_TEST

/* H200: cudaFree(bad) -> 1, then cudaGetLastError -> 1 (then 0). */
START_TEST(test_cudart_error_invalid_value_get_returns_then_clears)
{
    ck_assert_int_eq(cudart_error_return(cudaErrorInvalidValue),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudart_error_get_last(), cudaErrorInvalidValue);
    ck_assert_int_eq(cudart_error_get_last(), 0);
    ck_assert_int_eq(cudart_error_peek_last(), 0);
}
END_TEST

START_TEST(test_cudart_error_peek_does_not_clear)
{
    cudart_error_record(cudaErrorPeerAccessAlreadyEnabled);
    ck_assert_int_eq(cudart_error_peek_last(),
                     cudaErrorPeerAccessAlreadyEnabled);
    ck_assert_int_eq(cudart_error_peek_last(),
                     cudaErrorPeerAccessAlreadyEnabled);
    ck_assert_int_eq(cudart_error_get_last(),
                     cudaErrorPeerAccessAlreadyEnabled);
    ck_assert_int_eq(cudart_error_peek_last(), 0);
}
END_TEST

/* H200: cudaStreamQuery on a busy stream -> 600; cudaGetLastError -> 0. */
START_TEST(test_cudart_error_not_ready_does_not_set)
{
    ck_assert_int_eq(cudart_error_return(cudaErrorNotReady),
                     cudaErrorNotReady);
    ck_assert_int_eq(cudart_error_peek_last(), 0);
    ck_assert_int_eq(cudart_error_get_last(), 0);

    /* Nor does it overwrite an earlier error. */
    cudart_error_record(cudaErrorInvalidValue);
    cudart_error_record(cudaErrorNotReady);
    ck_assert_int_eq(cudart_error_get_last(), cudaErrorInvalidValue);
}
END_TEST

/* §2.1: successful calls do not clear the last error; a later failure
 * replaces it. */
START_TEST(test_cudart_error_success_keeps_last_failure_replaces)
{
    cudart_error_record(cudaErrorInvalidDevice);
    ck_assert_int_eq(cudart_error_return(cudaSuccess), 0);
    ck_assert_int_eq(cudart_error_peek_last(), cudaErrorInvalidDevice);
    cudart_error_record(cudaErrorPeerAccessNotEnabled);
    ck_assert_int_eq(cudart_error_get_last(), cudaErrorPeerAccessNotEnabled);
    ck_assert_int_eq(cudart_error_get_last(), 0);
}
END_TEST

START_TEST(test_cudart_error_sticky_persists)
{
    int code = sticky_codes[_i];

    cudart_error_record(code);
    ck_assert_int_eq(cudart_error_sticky(), code);
    ck_assert_int_eq(cudart_error_get_last(), code);
    ck_assert_int_eq(cudart_error_get_last(), code);
    ck_assert_int_eq(cudart_error_peek_last(), code);
    /* Later failures, sticky or not, do not replace the first. */
    cudart_error_record(cudaErrorInvalidValue);
    cudart_error_record(code == cudaErrorLaunchFailure ? cudaErrorIllegalAddress
                                                       : cudaErrorLaunchFailure);
    ck_assert_int_eq(cudart_error_sticky(), code);
    ck_assert_int_eq(cudart_error_get_last(), code);

    cudart_error_reset_for_tests();
    ck_assert_int_eq(cudart_error_sticky(), 0);
    ck_assert_int_eq(cudart_error_get_last(), 0);
}
END_TEST

START_TEST(test_cudart_error_non_sticky_leaves_sticky_clear)
{
    for (size_t i = 0; i < cudart_error_count(); i++) {
        int code = cudart_error_code_at(i);
        if (!in_sticky_list(code)) {
            cudart_error_record(code);
        }
    }
    ck_assert_int_eq(cudart_error_sticky(), 0);
    ck_assert_int_eq(cudart_error_get_last(), cudaErrorApiFailureBase);
}
END_TEST

/* --- Threads ----------------------------------------------------------- */

struct thread_probe {
    int record;   /* code the thread records first, 0 for none */
    int peek;     /* what cudart_error_peek_last() said after it */
    int get;      /* what cudart_error_get_last() said next */
    int get2;     /* and the one after */
};

static void *probe_main(void *arg)
{
    struct thread_probe *p = arg;

    if (p->record != 0) {
        cudart_error_record(p->record);
    }
    p->peek = cudart_error_peek_last();
    p->get = cudart_error_get_last();
    p->get2 = cudart_error_get_last();
    return NULL;
}

static void run_probe(struct thread_probe *p)
{
    pthread_t t;

    ck_assert_int_eq(pthread_create(&t, NULL, probe_main, p), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
}

START_TEST(test_cudart_error_other_thread_does_not_see_mine)
{
    struct thread_probe p = {0, -1, -1, -1};

    cudart_error_record(cudaErrorInvalidValue);
    run_probe(&p);
    ck_assert_int_eq(p.peek, 0);
    ck_assert_int_eq(p.get, 0);
    /* And its GetLastError did not clear mine. */
    ck_assert_int_eq(cudart_error_get_last(), cudaErrorInvalidValue);
}
END_TEST

START_TEST(test_cudart_error_i_do_not_see_other_threads)
{
    struct thread_probe p = {cudaErrorPeerAccessAlreadyEnabled, -1, -1, -1};

    run_probe(&p);
    ck_assert_int_eq(p.peek, cudaErrorPeerAccessAlreadyEnabled);
    ck_assert_int_eq(p.get, cudaErrorPeerAccessAlreadyEnabled);
    ck_assert_int_eq(p.get2, 0);
    ck_assert_int_eq(cudart_error_peek_last(), 0);
    ck_assert_int_eq(cudart_error_get_last(), 0);
}
END_TEST

START_TEST(test_cudart_error_sticky_crosses_threads)
{
    struct thread_probe p = {cudaErrorIllegalAddress, -1, -1, -1};
    struct thread_probe q = {0, -1, -1, -1};

    run_probe(&p);
    ck_assert_int_eq(p.get, cudaErrorIllegalAddress);
    ck_assert_int_eq(p.get2, cudaErrorIllegalAddress);
    /* This thread never failed, yet sees it and cannot clear it. */
    ck_assert_int_eq(cudart_error_sticky(), cudaErrorIllegalAddress);
    ck_assert_int_eq(cudart_error_get_last(), cudaErrorIllegalAddress);
    ck_assert_int_eq(cudart_error_get_last(), cudaErrorIllegalAddress);
    /* Nor can a third thread. */
    run_probe(&q);
    ck_assert_int_eq(q.peek, cudaErrorIllegalAddress);
    ck_assert_int_eq(q.get, cudaErrorIllegalAddress);
    ck_assert_int_eq(q.get2, cudaErrorIllegalAddress);
}
END_TEST

/* Many threads fail at once, each with its own code: each sees only its
 * own (the storage is per thread, not a shared slot). */
#define N_THREADS 8

static void *own_code_main(void *arg)
{
    struct thread_probe *p = arg;

    for (int k = 0; k < 1000; k++) {
        cudart_error_record(p->record);
        if (cudart_error_peek_last() != p->record ||
            cudart_error_get_last() != p->record ||
            cudart_error_get_last() != 0) {
            p->get = -1;
            return NULL;
        }
    }
    p->get = p->record;
    return NULL;
}

START_TEST(test_cudart_error_concurrent_threads_isolated)
{
    static const int codes[N_THREADS] = {
        cudaErrorInvalidValue,          cudaErrorMemoryAllocation,
        cudaErrorInvalidDevice,         cudaErrorPeerAccessUnsupported,
        cudaErrorInvalidResourceHandle, cudaErrorPeerAccessAlreadyEnabled,
        cudaErrorPeerAccessNotEnabled,  cudaErrorTooManyPeers,
    };
    struct thread_probe p[N_THREADS];
    pthread_t t[N_THREADS];

    for (int i = 0; i < N_THREADS; i++) {
        p[i] = (struct thread_probe){codes[i], 0, 0, 0};
        ck_assert_int_eq(pthread_create(&t[i], NULL, own_code_main, &p[i]),
                         0);
    }
    for (int i = 0; i < N_THREADS; i++) {
        ck_assert_int_eq(pthread_join(t[i], NULL), 0);
        ck_assert_int_eq(p[i].get, codes[i]);
    }
    ck_assert_int_eq(cudart_error_get_last(), 0);
}
END_TEST

Suite *make_cudart_error_suite(void)
{
    Suite *s = suite_create("cudart_error");
    TCase *tc;

    tc = tcase_create("Table");
    tcase_add_loop_test(tc, test_cudart_error_name_is_identifier, 0, N_CODES);
    tcase_add_test(tc, test_cudart_error_table_matches_hand_list);
    tcase_add_test(tc, test_cudart_error_table_matches_header);
    tcase_add_test(tc, test_cudart_error_names_and_descriptions_unique);
    tcase_add_test(tc, test_cudart_error_sticky_set_is_the_reference_list);
    tcase_add_test(tc, test_cudart_error_reference_values);
    tcase_add_loop_test(tc, test_cudart_error_unknown_code_is_unrecognized, 0,
                        (int)(sizeof unknown_codes / sizeof unknown_codes[0]));
    suite_add_tcase(s, tc);

    tc = tcase_create("LastError");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_cudart_error_starts_clear);
    tcase_add_test(tc, test_cudart_error_invalid_value_get_returns_then_clears);
    tcase_add_test(tc, test_cudart_error_peek_does_not_clear);
    tcase_add_test(tc, test_cudart_error_not_ready_does_not_set);
    tcase_add_test(tc, test_cudart_error_success_keeps_last_failure_replaces);
    tcase_add_loop_test(tc, test_cudart_error_sticky_persists, 0, N_STICKY);
    tcase_add_test(tc, test_cudart_error_non_sticky_leaves_sticky_clear);
    suite_add_tcase(s, tc);

    tc = tcase_create("Threads");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_cudart_error_other_thread_does_not_see_mine);
    tcase_add_test(tc, test_cudart_error_i_do_not_see_other_threads);
    tcase_add_test(tc, test_cudart_error_sticky_crosses_threads);
    tcase_add_test(tc, test_cudart_error_concurrent_threads_isolated);
    suite_add_tcase(s, tc);

    return s;
}
