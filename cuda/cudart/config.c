/*
 * cuda/cudart/config.c - preferences a program may state that the
 * simulated machine records but whose effect it does not model: the
 * device's L1/shared-memory split (cudaDeviceSetCacheConfig) and
 * shared-memory bank size (deprecated), and the persisting-L2 reset. The
 * SM model has no L1 split, no banks and no persisting L2 lines, so these
 * change no figure; a bad value still gets CUDA's error.
 */
#include <config.h>

#include "cuda/cudart/rt.h"

static cudaError_t set_cache(enum cudaFuncCache c)
{
    if ((int)c < cudaFuncCachePreferNone || c > cudaFuncCachePreferEqual) {
        return cudaErrorInvalidValue;
    }
    rt.dev[rt_current_device()].cache_config = c;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    SERVE(set_cache(cacheConfig));
}

static cudaError_t get_cache(enum cudaFuncCache *c)
{
    if (!c) {
        return cudaErrorInvalidValue;
    }
    *c = rt.dev[rt_current_device()].cache_config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    SERVE(get_cache(pCacheConfig));
}

static cudaError_t set_smem(enum cudaSharedMemConfig c)
{
    if ((int)c < cudaSharedMemBankSizeDefault ||
        c > cudaSharedMemBankSizeEightByte) {
        return cudaErrorInvalidValue;
    }
    rt.dev[rt_current_device()].smem_config = c;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    SERVE(set_smem(config));
}

/* Recent GPUs have 4-byte banks whatever was asked (the setting is
 * ignored there), so that is what is reported after a Default. */
static cudaError_t get_smem(enum cudaSharedMemConfig *c)
{
    if (!c) {
        return cudaErrorInvalidValue;
    }
    enum cudaSharedMemConfig s = rt.dev[rt_current_device()].smem_config;
    *c = s == cudaSharedMemBankSizeDefault ? cudaSharedMemBankSizeFourByte : s;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
    SERVE(get_smem(pConfig));
}

cudaError_t cudaCtxResetPersistingL2Cache(void)
{
    SERVE(cudaSuccess);
}
