/*
 * cuda/driver/drv_int.h - what the files of p2psim's driver API share:
 * the mapping of the runtime's errors to CUresult, contexts, modules and
 * functions.
 *
 * File map: drv_device.c (cuInit, versions, errors, devices, contexts),
 * drv_memory.c (allocations, copies, memsets, pointer attributes),
 * drv_module.c (modules, functions, launches, occupancy, libraries),
 * drv_stream.c (streams, events, IPC handles), drv_vmm.c (the virtual
 * memory management API), drv_proc.c (cuGetProcAddress and its table,
 * drv_names.h), unserved.c (every other export of CUDA's libcuda.so.1,
 * libcuda.exports); libcuda.map, local.mk: the build.
 *
 * The driver keeps no state of the machine: every call becomes calls of
 * p2psim's runtime (its public functions, and the p2psim_drv_ internals
 * of cuda/cudart/drv_bridge.h), so the two APIs share one state.
 */
#ifndef P2PSIM_CUDA_DRIVER_DRV_INT_H
#define P2PSIM_CUDA_DRIVER_DRV_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda/include/cuda.h"
#include "cuda/include/cuda_runtime_api.h"
#include "cuda/cudart/drv_bridge.h"

/* The CUresult of a runtime error (most numbers are the same). */
CUresult drv_result(cudaError_t e);

/*
 * drv_ready - CUDA_SUCCESS once cuInit has run (or the runtime has
 * started, which calls it in CUDA); else CUDA_ERROR_NOT_INITIALIZED.
 * DRV_READY() returns that error from the calling function.
 */
CUresult drv_ready(void);
#define DRV_READY()                                                           \
    do {                                                                      \
        CUresult r_ = drv_ready();                                            \
        if (r_) {                                                             \
            return r_;                                                        \
        }                                                                     \
    } while (0)

/* A context: a device's primary context, or one cuCtxCreate made, which
 * shares the device's state (the runtime has one context per device). */
struct CUctx_st {
    int dev;
    bool primary;
    unsigned flags;
    unsigned retains;           /* primary: cuDevicePrimaryCtxRetain count */
};

/* cuCtxCreate_v3 (execution affinity, which cuda.h does not declare):
 * served without affinity. */
CUresult cuCtxCreate_v3(CUcontext *pctx, void *paramsArray, int numParams,
                        unsigned int flags, CUdevice dev);

/* The context current on the calling thread, or NULL (none yet). */
CUcontext drv_ctx_current(void);
/* Whether ctx is a live context. */
bool drv_ctx_valid(CUcontext ctx);
/* The device of ctx, or the current one for NULL; -1 when neither. */
int drv_ctx_device(CUcontext ctx);

/* The bytes from p, at most n, that lie in one mapping of the virtual
 * memory management API (n when p is in none): a copy or memset is split
 * there, as each mapping is an allocation of its own to the runtime. */
size_t drv_vmm_run(uintptr_t p, size_t n);

/* A module: the runtime's registry module and the functions taken from it. */
struct CUmod_st {
    void **handle;
    struct CUfunc_st *funcs;
};

/* A function; its own address is the key the runtime registers it under
 * (the "host stub" of __cudaRegisterFunction). */
struct CUfunc_st {
    struct CUmod_st *mod;
    char *name;
    struct CUfunc_st *next;
};

#endif /* P2PSIM_CUDA_DRIVER_DRV_INT_H */
