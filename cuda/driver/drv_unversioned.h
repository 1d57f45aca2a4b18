/*
 * cuda/driver/drv_unversioned.h - cuda.h's macros that name the current
 * version of a function (cuCtxDestroy is cuCtxDestroy_v2), undone, for
 * the files that name the functions of the older interfaces themselves
 * (drv_legacy.c defines them, drv_proc.c hands them out). Include after
 * drv_int.h.
 */
#ifndef P2PSIM_CUDA_DRIVER_DRV_UNVERSIONED_H
#define P2PSIM_CUDA_DRIVER_DRV_UNVERSIONED_H

#undef cuDeviceGetUuid
#undef cuDeviceTotalMem
#undef cuCtxCreate
#undef cuCtxDestroy
#undef cuCtxPushCurrent
#undef cuCtxPopCurrent
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxSetFlags
#undef cuMemHostRegister
#undef cuStreamDestroy
#undef cuEventDestroy
#undef cuEventElapsedTime
#undef cuIpcOpenMemHandle
#undef cuGetProcAddress
#undef cuLinkCreate
#undef cuLinkAddData
#undef cuLinkAddFile

#endif /* P2PSIM_CUDA_DRIVER_DRV_UNVERSIONED_H */
