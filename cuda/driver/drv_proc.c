/*
 * cuda/driver/drv_proc.c - cuGetProcAddress: the function that serves a
 * driver symbol for a program of a given CUDA version (drv_names.h), or
 * the stub of an unserved one (unserved.c), which returns
 * CUDA_ERROR_NOT_SUPPORTED when called. The per-thread default stream
 * flag finds the same functions (Model: the driver's stream 0 is the
 * legacy stream).
 */
#include <config.h>

#include "cuda/driver/drv_int.h"

#include <stdio.h>
#include <string.h>

#include "cuda/driver/drv_unversioned.h"

/* The legacy names (drv_legacy.c), as functions of no declared type. */
#define LEGACY(n) void n(void);
LEGACY(cuDeviceGetUuid)
LEGACY(cuDeviceTotalMem)
LEGACY(cuCtxCreate)
LEGACY(cuCtxCreate_v2)
LEGACY(cuCtxDestroy)
LEGACY(cuCtxPushCurrent)
LEGACY(cuCtxPopCurrent)
LEGACY(cuDevicePrimaryCtxRelease)
LEGACY(cuDevicePrimaryCtxReset)
LEGACY(cuDevicePrimaryCtxSetFlags)
LEGACY(cuMemHostRegister)
LEGACY(cuStreamDestroy)
LEGACY(cuEventDestroy)
LEGACY(cuEventElapsedTime)
LEGACY(cuIpcOpenMemHandle)
LEGACY(cuGetProcAddress)
LEGACY(cuLinkCreate)
LEGACY(cuLinkAddData)
LEGACY(cuLinkAddFile)

struct drv_entry {
    const char *symbol;
    void *fn;
    int version;
};

static const struct drv_entry served[] = {
#define DRV(sym, fn, ver) { #sym, (void *)fn, ver },
#include "cuda/driver/drv_names.h"
#undef DRV
};

/* unserved.c: the stub of an export p2psim does not serve, or NULL. */
void *drv_unserved_find(const char *name);

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                             cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus)
{
    if (!symbol || !pfn ||
        (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM |
                               CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    const struct drv_entry *best = NULL;
    bool named = false;
    for (size_t i = 0; i < sizeof(served) / sizeof(served[0]); i++) {
        if (strcmp(served[i].symbol, symbol) == 0) {
            named = true;
            if (served[i].version <= cudaVersion &&
                (!best || served[i].version > best->version)) {
                best = &served[i];
            }
        }
    }
    *pfn = best ? best->fn : named ? NULL : drv_unserved_find(symbol);
    if (symbolStatus) {
        *symbolStatus = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS
                        : named ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                                : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    }
    if (*pfn) {
        return CUDA_SUCCESS;
    }
    return named ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_NOT_FOUND;
}

/* An unserved function was called (unserved.c): said once per function. */
int drv_unserved(const char *name, int *said);
int drv_unserved(const char *name, int *said)
{
    if (!__atomic_exchange_n(said, 1, __ATOMIC_RELAXED)) {
        fprintf(stderr, "p2psim: %s is not served by p2psim's driver API: "
                "CUDA_ERROR_NOT_SUPPORTED\n", name);
    }
    return CUDA_ERROR_NOT_SUPPORTED;
}
