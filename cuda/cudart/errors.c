/*
 * cuda/cudart/errors.c - the error calls: cudaGetLastError,
 * cudaPeekAtLastError, cudaGetErrorName, cudaGetErrorString, served from
 * the error model (error.c). They work even when the runtime could not
 * start, as the real ones do.
 */
#include <config.h>

#include "cuda/cudart/rt.h"

cudaError_t cudaGetLastError(void)
{
    /* A failed start-up is returned by every call, this one included
     * (shared/reference/cuda-api.md §2.1: 35 from two consecutive
     * cudaGetLastError calls on a machine without a driver). */
    cudaError_t e = rt_enter_nosticky();
    if (e) {
        return e == cudaErrorNotPermitted ? (cudaError_t)cudart_error_get_last() : e;
    }
    e = (cudaError_t)cudart_error_get_last();
    rt_leave();
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    cudaError_t e = rt_enter_nosticky();
    if (e) {
        return e == cudaErrorNotPermitted ? (cudaError_t)cudart_error_peek_last() : e;
    }
    e = (cudaError_t)cudart_error_peek_last();
    rt_leave();
    return e;
}

const char *cudaGetErrorName(cudaError_t error)
{
    return cudart_error_name(error);
}

const char *cudaGetErrorString(cudaError_t error)
{
    return cudart_error_string(error);
}
