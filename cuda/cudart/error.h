/*
 * cuda/cudart/error.h - the CUDA shim's error model: names and descriptions
 * of every cudaError_t value, the calling thread's last error and the
 * process-wide sticky error.
 *
 * Semantics (shared/reference/cuda-api.md §2.1, §5.6;
 * shared/calibration/h200-x1-api-costs.md, "Semantics seen"):
 *
 *  - Every served call passes its result through cudart_error_record() (or
 *    returns through cudart_error_return()). A failing result becomes the
 *    calling thread's last error; success does not clear it.
 *  - cudaErrorNotReady (600) from a query does not set the last error
 *    (cudaStreamQuery on a busy H200 stream: 600, then cudaGetLastError 0).
 *  - Sticky codes (cudaErrorIllegalAddress, cudaErrorLaunchFailure, ...:
 *    cudart_error_is_sticky()) also set the process-wide sticky error. From
 *    then on every thread's cudaGetLastError/cudaPeekAtLastError return it
 *    and cannot clear it. The first sticky error wins.
 *  - cudart_error_get_last() returns and clears the thread's last error
 *    (cudaGetLastError); cudart_error_peek_last() does not clear it
 *    (cudaPeekAtLastError).
 *
 * Codes are plain ints (cudaError_t values from cuda/include/driver_types.h,
 * the single source of the values) so that this header needs no CUDA
 * header. All strings are static; the caller never frees them.
 * Thread-safe: the last error is _Thread_local, the sticky error atomic.
 */
#ifndef P2PSIM_CUDA_CUDART_ERROR_H
#define P2PSIM_CUDA_CUDART_ERROR_H

#include <stdbool.h>
#include <stddef.h>

/* What cudaGetErrorName and cudaGetErrorString return for a value that is
 * not a cudaError_t enumerator. */
#define CUDART_ERROR_UNRECOGNIZED "unrecognized error code"

/* --- The table --------------------------------------------------------- */

/**
 * cudart_error_name() - the enumerator's identifier, e.g.
 * "cudaErrorInvalidValue" for 1 (cudaGetErrorName).
 * @code: any int.
 *
 * Return: a static string; CUDART_ERROR_UNRECOGNIZED for an unknown code.
 */
const char *cudart_error_name(int code);

/**
 * cudart_error_string() - a short description of the code, in p2psim's own
 * words (cudaGetErrorString).
 * @code: any int.
 *
 * Return: a static string; CUDART_ERROR_UNRECOGNIZED for an unknown code.
 */
const char *cudart_error_string(int code);

/**
 * cudart_error_is_known() - whether @code is a cudaError_t enumerator.
 */
bool cudart_error_is_known(int code);

/**
 * cudart_error_is_sticky() - whether @code corrupts the process's CUDA
 * state (every later call returns it). False for unknown codes.
 */
bool cudart_error_is_sticky(int code);

/**
 * cudart_error_count() - number of entries in the table (one per
 * enumerator of enum cudaError, cudaSuccess included).
 */
size_t cudart_error_count(void);

/**
 * cudart_error_code_at() - the code of table entry @i, in table order
 * (ascending values).
 * @i: 0 <= i < cudart_error_count(); anything else returns -1.
 */
int cudart_error_code_at(size_t i);

/* --- Last error and sticky error --------------------------------------- */

/**
 * cudart_error_record() - note the result of a served call.
 * @code: the cudaError_t the call returns.
 *
 * 0 and cudaErrorNotReady leave the last error alone; any other code
 * becomes the calling thread's last error. A sticky code also becomes the
 * process-wide sticky error unless one is already set.
 */
void cudart_error_record(int code);

/**
 * cudart_error_return() - cudart_error_record(@code), then return @code:
 * "return cudart_error_return(cudaErrorInvalidValue);" at call sites.
 */
int cudart_error_return(int code);

/**
 * cudart_error_get_last() - cudaGetLastError: the sticky error if the
 * process has one (it stays), otherwise the thread's last error, which is
 * reset to 0.
 */
int cudart_error_get_last(void);

/**
 * cudart_error_peek_last() - cudaPeekAtLastError: as
 * cudart_error_get_last() but clears nothing.
 */
int cudart_error_peek_last(void);

/**
 * cudart_error_sticky() - the process-wide sticky error, or 0.
 */
int cudart_error_sticky(void);

/**
 * cudart_error_reset_for_tests() - forget the sticky error and every
 * thread's last error. For tests only: real CUDA cannot recover a process.
 */
void cudart_error_reset_for_tests(void);

#endif /* P2PSIM_CUDA_CUDART_ERROR_H */
