/*
 * cuda/driver/drv_stream.c - streams, events, host functions and the
 * IPC handles of p2psim's driver API: a CUstream is a cudaStream_t and a
 * CUevent a cudaEvent_t (the same objects of the runtime), the flags and
 * handles have the same values and layouts, so each call is the runtime's.
 */
#include <config.h>

#include "cuda/driver/drv_int.h"

#include <string.h>

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    DRV_READY();
    return drv_result(cudaStreamCreateWithFlags(phStream, Flags));
}

CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags,
                                    int priority)
{
    DRV_READY();
    return drv_result(
        cudaStreamCreateWithPriority(phStream, flags, priority));
}

CUresult cuStreamDestroy_v2(CUstream hStream)
{
    DRV_READY();
    return drv_result(cudaStreamDestroy(hStream));
}

CUresult cuStreamSynchronize(CUstream hStream)
{
    DRV_READY();
    return drv_result(cudaStreamSynchronize(hStream));
}

CUresult cuStreamQuery(CUstream hStream)
{
    DRV_READY();
    return drv_result(cudaStreamQuery(hStream));
}

CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent,
                           unsigned int Flags)
{
    DRV_READY();
    return drv_result(cudaStreamWaitEvent(hStream, hEvent, Flags));
}

CUresult cuStreamGetPriority(CUstream hStream, int *priority)
{
    DRV_READY();
    return drv_result(cudaStreamGetPriority(hStream, priority));
}

CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags)
{
    DRV_READY();
    return drv_result(cudaStreamGetFlags(hStream, flags));
}

/* A CUstreamCallback takes (stream, CUresult, data) as the runtime's
 * callback takes (stream, cudaError_t, data): the same call. */
CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback,
                             void *userData, unsigned int flags)
{
    DRV_READY();
    return drv_result(cudaStreamAddCallback(
        hStream, (cudaStreamCallback_t)callback, userData, flags));
}

CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    DRV_READY();
    return drv_result(cudaLaunchHostFunc(hStream, fn, userData));
}

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    DRV_READY();
    return drv_result(cudaEventCreateWithFlags(phEvent, Flags));
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    DRV_READY();
    return drv_result(cudaEventRecord(hEvent, hStream));
}

CUresult cuEventSynchronize(CUevent hEvent)
{
    DRV_READY();
    return drv_result(cudaEventSynchronize(hEvent));
}

CUresult cuEventQuery(CUevent hEvent)
{
    DRV_READY();
    return drv_result(cudaEventQuery(hEvent));
}

CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart,
                               CUevent hEnd)
{
    DRV_READY();
    return drv_result(cudaEventElapsedTime(pMilliseconds, hStart, hEnd));
}

CUresult cuEventDestroy_v2(CUevent hEvent)
{
    DRV_READY();
    return drv_result(cudaEventDestroy(hEvent));
}

/* ---- interprocess handles (cudaIpc*: the same 64 bytes) --------------------- */

CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    cudaIpcMemHandle_t h;
    DRV_READY();
    if (!pHandle) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = drv_result(
        cudaIpcGetMemHandle(&h, (void *)(uintptr_t)dptr));
    if (!r) {
        memcpy(pHandle, &h, sizeof(*pHandle));
    }
    return r;
}

CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle,
                               unsigned int Flags)
{
    cudaIpcMemHandle_t h;
    void *p = NULL;
    DRV_READY();
    if (!pdptr) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    memcpy(&h, &handle, sizeof(h));
    CUresult r = drv_result(cudaIpcOpenMemHandle(&p, h, Flags));
    *pdptr = (CUdeviceptr)(uintptr_t)p;
    return r;
}

CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    DRV_READY();
    return drv_result(cudaIpcCloseMemHandle((void *)(uintptr_t)dptr));
}

CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)
{
    cudaIpcEventHandle_t h;
    DRV_READY();
    if (!pHandle) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = drv_result(cudaIpcGetEventHandle(&h, event));
    if (!r) {
        memcpy(pHandle, &h, sizeof(*pHandle));
    }
    return r;
}

CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)
{
    cudaIpcEventHandle_t h;
    DRV_READY();
    memcpy(&h, &handle, sizeof(h));
    return drv_result(cudaIpcOpenEventHandle(phEvent, h));
}
