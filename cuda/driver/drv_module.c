/*
 * cuda/driver/drv_module.c - modules, functions and launches of p2psim's
 * driver API.
 *
 * A module is PTX (text as nvcc -ptx or NVRTC writes it, or the PTX
 * inside a fat binary, nvcc -fatbin), registered with the runtime as
 * nvcc's modules are (drv_bridge.h); a function is registered under its
 * own address as the host stub, so cuLaunchKernel is cudaLaunchKernel of
 * that stub (a program's kernel, whose CUfunction cudaGetFuncBySymbol
 * gives, is its host stub: the same key) and runs on the same simulated GPU through the same PTX
 * interpreter, and the runtime's function attributes and occupancy serve
 * cuFuncGetAttribute and cuOccupancy*. A cubin holds only machine code:
 * loading one fails with CUDA_ERROR_NO_BINARY_FOR_GPU and a line saying
 * so. JIT options are taken and ignored, except the log buffers, which
 * get the loader's message (drv_link.c fills them). Modules are never
 * unloaded by the driver itself before cuModuleUnload. Caps: a module
 * file of cuModuleLoad is at most DRV_MODULE_FILE_MAX bytes; a kernel of
 * at most DRV_MAX_PARAMS parameters can be launched with
 * CU_LAUNCH_PARAM_BUFFER_POINTER.
 */
#include <config.h>

#include "cuda/driver/drv_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/include/p2psim_cudart_internal.h"

#define DRV_MODULE_FILE_MAX (UINT64_C(1) << 30)
#define DRV_MAX_PARAMS 4096u

static pthread_mutex_t mod_lock = PTHREAD_MUTEX_INITIALIZER;

/* Live modules (for handle checks). */
struct mod_node {
    struct CUmod_st *mod;
    struct mod_node *next;
};
static struct mod_node *modules;

static bool mod_valid(CUmodule m)
{
    bool found = false;
    pthread_mutex_lock(&mod_lock);
    for (struct mod_node *n = modules; n && !found; n = n->next) {
        found = n->mod == m;
    }
    pthread_mutex_unlock(&mod_lock);
    return m && found;
}

static CUresult load(CUmodule *module, const void *image, unsigned n_opt,
                     const CUjit_option *opt, void **val, const char *what)
{
    char msg[256] = "";
    void **handle = NULL;
    DRV_READY();
    if (!module || !image) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!drv_ctx_current()) {
        /* CUDA: a module belongs to the current context */
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    cudaError_t e = p2psim_drv_module_load(image, &handle, msg, sizeof(msg));
    if (e) {
        CUresult r = e == cudaErrorNoKernelImageForDevice
                         ? CUDA_ERROR_NO_BINARY_FOR_GPU
                     : e == cudaErrorInvalidPtx ? CUDA_ERROR_INVALID_PTX
                     : e == cudaErrorMemoryAllocation ? CUDA_ERROR_OUT_OF_MEMORY
                                                      : CUDA_ERROR_INVALID_IMAGE;
        fprintf(stderr, "p2psim: %s: the module cannot be loaded: %s\n",
                what, msg);
        drv_jit_log(n_opt, opt, val, msg, true);
        return r;
    }
    drv_jit_log(n_opt, opt, val, "", false);
    struct CUmod_st *m = calloc(1, sizeof(*m));
    struct mod_node *node = calloc(1, sizeof(*node));
    if (!m || !node) {
        free(m);
        free(node);
        p2psim_drv_module_unload(handle);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->handle = handle;
    node->mod = m;
    pthread_mutex_lock(&mod_lock);
    node->next = modules;
    modules = node;
    pthread_mutex_unlock(&mod_lock);
    *module = m;
    return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    return load(module, image, 0, NULL, NULL, "cuModuleLoadData");
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                            unsigned int numOptions, CUjit_option *options,
                            void **optionValues)
{
    return load(module, image, numOptions, options, optionValues,
                "cuModuleLoadDataEx");
}

CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    return load(module, fatCubin, 0, NULL, NULL, "cuModuleLoadFatBinary");
}

char *drv_read_file(const char *fname, size_t *size)
{
    FILE *f = fopen(fname, "rb");
    if (!f) {
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 65536) {
            if (cap >= DRV_MODULE_FILE_MAX) {
                errno = EFBIG;
                free(buf);
                fclose(f);
                return NULL;
            }
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            break;
        }
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    buf[len] = '\0';
    *size = len;
    return buf;
}

CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
    DRV_READY();
    if (!module || !fname) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    size_t size = 0;
    char *image = drv_read_file(fname, &size);
    if (!image) {
        fprintf(stderr, "p2psim: cuModuleLoad: cannot read %s: %s\n", fname,
                strerror(errno));
        return errno == ENOENT ? CUDA_ERROR_FILE_NOT_FOUND
                               : CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = load(module, image, 0, NULL, NULL, fname);
    free(image);                /* the runtime keeps its own PTX */
    return r;
}

CUresult cuModuleUnload(CUmodule hmod)
{
    DRV_READY();
    pthread_mutex_lock(&mod_lock);
    struct mod_node **pn = &modules;
    while (*pn && (*pn)->mod != hmod) {
        pn = &(*pn)->next;
    }
    struct mod_node *n = *pn;
    if (n) {
        *pn = n->next;
    }
    pthread_mutex_unlock(&mod_lock);
    if (!hmod || !n) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    free(n);
    p2psim_drv_module_unload(hmod->handle);
    for (struct CUfunc_st *f = hmod->funcs; f;) {
        struct CUfunc_st *next = f->next;
        free(f->name);
        free(f);
        f = next;
    }
    free(hmod);
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
                             const char *name)
{
    DRV_READY();
    if (!hfunc || !name) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!mod_valid(hmod)) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    pthread_mutex_lock(&mod_lock);
    struct CUfunc_st *f = hmod->funcs;
    while (f && strcmp(f->name, name) != 0) {
        f = f->next;
    }
    CUresult r = CUDA_SUCCESS;
    if (!f) {
        if (!p2psim_drv_module_has_kernel(hmod->handle, name)) {
            r = CUDA_ERROR_NOT_FOUND;
        } else if (!(f = calloc(1, sizeof(*f))) ||
                   !(f->name = strdup(name))) {
            free(f);
            f = NULL;
            r = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            f->mod = hmod;
            f->next = hmod->funcs;
            hmod->funcs = f;
            __cudaRegisterFunction(hmod->handle, (const char *)f, f->name,
                                   f->name, -1, NULL, NULL, NULL, NULL,
                                   NULL);
        }
    }
    pthread_mutex_unlock(&mod_lock);
    if (!r) {
        *hfunc = f;
    }
    return r;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes,
                              CUmodule hmod, const char *name)
{
    uintptr_t addr = 0;
    size_t size = 0;
    DRV_READY();
    if (!name) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!mod_valid(hmod)) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    CUresult r = drv_result(
        p2psim_drv_module_global(hmod->handle, name, &addr, &size));
    if (!r) {
        if (dptr) {
            *dptr = addr;
        }
        if (bytes) {
            *bytes = size;
        }
    }
    return r;
}

/* ---- launches ---------------------------------------------------------------- */

/*
 * The arguments of a launch: kernelParams, or pointers into the packed
 * buffer extra hands over (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE), which
 * *owned then holds (free it).
 */
static CUresult launch_args(CUfunction f, void **params, void **extra,
                            void ***args, void ***owned)
{
    *owned = NULL;
    *args = params;
    if (!extra) {
        return CUDA_SUCCESS;
    }
    if (params) {
        return CUDA_ERROR_INVALID_VALUE;    /* CUDA: one or the other */
    }
    uint8_t *buf = NULL;
    size_t size = 0;
    bool have_size = false;
    for (unsigned i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
            buf = extra[i + 1];
        } else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
            size = *(size_t *)extra[i + 1];
            have_size = true;
        } else {
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    size_t *offs = malloc(DRV_MAX_PARAMS * sizeof(*offs));
    unsigned n = 0;
    size_t total = 0;
    if (!offs) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    CUresult r = drv_result(
        p2psim_drv_kernel_params(f, DRV_MAX_PARAMS, offs, &n, &total));
    if (!r && (n > DRV_MAX_PARAMS || (n && (!buf || !have_size)))) {
        r = CUDA_ERROR_INVALID_VALUE;
    }
    /* The pointers, then a copy of the buffer: a buffer shorter than the
     * parameters (NCCL passes the bytes of its 4 KiB argument it uses)
     * leaves the rest zero, never read past its end. */
    void **a = r ? NULL : calloc(1, (n ? n : 1) * sizeof(void *) + total);
    if (!r && !a) {
        r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    uint8_t *copy = a ? (uint8_t *)(a + (n ? n : 1)) : NULL;
    if (!r && n) {
        memcpy(copy, buf, size < total ? size : total);
    }
    for (unsigned i = 0; !r && i < n; i++) {
        a[i] = copy + offs[i];
    }
    free(offs);
    *args = a;
    *owned = a;
    return r;
}

static CUresult launch(CUfunction f, dim3 grid, dim3 block, unsigned smem,
                       CUstream s, void **params, void **extra,
                       bool cooperative)
{
    void **args, **owned;
    DRV_READY();
    if (!f) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    if (!drv_ctx_current()) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    CUresult r = launch_args(f, params, extra, &args, &owned);
    if (r) {
        return r;
    }
    cudaError_t e = cooperative
                        ? cudaLaunchCooperativeKernel(f, grid, block, args,
                                                      smem, s)
                        : cudaLaunchKernel(f, grid, block, args, smem, s);
    free(owned);
    return drv_result(e);
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX,
                        unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes,
                        CUstream hStream, void **kernelParams, void **extra)
{
    return launch(f, (dim3){ gridDimX, gridDimY, gridDimZ },
                  (dim3){ blockDimX, blockDimY, blockDimZ }, sharedMemBytes,
                  hStream, kernelParams, extra, false);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                   unsigned int gridDimY,
                                   unsigned int gridDimZ,
                                   unsigned int blockDimX,
                                   unsigned int blockDimY,
                                   unsigned int blockDimZ,
                                   unsigned int sharedMemBytes,
                                   CUstream hStream, void **kernelParams)
{
    return launch(f, (dim3){ gridDimX, gridDimY, gridDimZ },
                  (dim3){ blockDimX, blockDimY, blockDimZ }, sharedMemBytes,
                  hStream, kernelParams, NULL, true);
}

/* Attributes: COOPERATIVE is served; cluster dimensions, priorities and
 * the others are taken and have no effect (Model). */
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                          void **kernelParams, void **extra)
{
    if (!config || (config->numAttrs && !config->attrs)) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    bool coop = false;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
            coop = config->attrs[i].value.cooperative != 0;
        }
    }
    return launch(f,
                  (dim3){ config->gridDimX, config->gridDimY,
                          config->gridDimZ },
                  (dim3){ config->blockDimX, config->blockDimY,
                          config->blockDimZ },
                  config->sharedMemBytes, config->hStream, kernelParams,
                  extra, coop);
}

/* ---- function attributes, occupancy ------------------------------------------------ */

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
                            CUfunction hfunc)
{
    struct cudaFuncAttributes a;
    DRV_READY();
    if (!pi) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!hfunc) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    CUresult r = drv_result(cudaFuncGetAttributes(&a, hfunc));
    if (r) {
        return r;
    }
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *pi = a.maxThreadsPerBlock;
        break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
        *pi = (int)a.sharedSizeBytes;
        break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
        *pi = (int)a.constSizeBytes;
        break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
        *pi = (int)a.localSizeBytes;
        break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
        *pi = a.numRegs;
        break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
        *pi = a.ptxVersion;
        break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
        *pi = a.binaryVersion;
        break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
        *pi = a.cacheModeCA;
        break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *pi = a.maxDynamicSharedSizeBytes;
        break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        *pi = a.preferredShmemCarveout;
        break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
        *pi = a.clusterDimMustBeSet;
        break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
        *pi = a.requiredClusterWidth;
        break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
        *pi = a.requiredClusterHeight;
        break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
        *pi = a.requiredClusterDepth;
        break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
        *pi = a.nonPortableClusterSizeAllowed;
        break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        *pi = a.clusterSchedulingPolicyPreference;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* CU_FUNC_ATTRIBUTE_* that can be set are cudaFuncAttribute* by number. */
CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib,
                            int value)
{
    DRV_READY();
    if (!hfunc) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    return drv_result(
        cudaFuncSetAttribute(hfunc, (enum cudaFuncAttribute)attrib, value));
}

CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    DRV_READY();
    if (!hfunc) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    return drv_result(
        cudaFuncSetCacheConfig(hfunc, (enum cudaFuncCache)config));
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize,
    unsigned int flags)
{
    DRV_READY();
    if (!func) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    return drv_result(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, func, blockSize, dynamicSMemSize, flags));
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                     CUfunction func,
                                                     int blockSize,
                                                     size_t dynamicSMemSize)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, func, blockSize, dynamicSMemSize, 0);
}

/*
 * The block size of the highest occupancy (threads resident per SM),
 * the larger block on a tie, tried in warp steps from the largest the
 * function and blockSizeLimit allow; *minGridSize fills every SM once.
 */
CUresult cuOccupancyMaxPotentialBlockSize(
    int *minGridSize, int *blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize,
    int blockSizeLimit)
{
    int max_threads = 0, sms = 0, warp = 32, dev = 0;
    DRV_READY();
    if (!minGridSize || !blockSize) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = cuFuncGetAttribute(
        &max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, func);
    if (!r) {
        r = drv_result(cudaGetDevice(&dev));
    }
    if (!r) {
        r = drv_result(cudaDeviceGetAttribute(
            &sms, cudaDevAttrMultiProcessorCount, dev));
    }
    if (!r) {
        r = drv_result(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize,
                                              dev));
    }
    if (r) {
        return r;
    }
    int limit = max_threads;
    if (blockSizeLimit > 0 && blockSizeLimit < limit) {
        limit = blockSizeLimit;
    }
    int best_block = 0, best_blocks = 0, best_threads = 0;
    for (int b = (limit / warp) * warp; b > 0; b -= warp) {
        size_t smem = blockSizeToDynamicSMemSize
                          ? blockSizeToDynamicSMemSize(b) : dynamicSMemSize;
        int blocks = 0;
        if (cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, func, b,
                                                        smem) ||
            blocks <= 0) {
            continue;
        }
        if (blocks * b > best_threads) {
            best_threads = blocks * b;
            best_block = b;
            best_blocks = blocks;
        }
    }
    *blockSize = best_block;
    *minGridSize = best_blocks * sms;
    return CUDA_SUCCESS;
}

/* ---- libraries: a module each --------------------------------------------------- */

/* A CUlibrary is its module; a CUkernel is the function. */
CUresult cuLibraryLoadData(CUlibrary *library, const void *code,
                           CUjit_option *jitOptions, void **jitOptionsValues,
                           unsigned int numJitOptions,
                           CUlibraryOption *libraryOptions,
                           void **libraryOptionValues,
                           unsigned int numLibraryOptions)
{
    (void)libraryOptions;
    (void)libraryOptionValues;
    (void)numLibraryOptions;
    if (!library) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    return load((CUmodule *)library, code, numJitOptions, jitOptions,
                jitOptionsValues, "cuLibraryLoadData");
}

CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName,
                               CUjit_option *jitOptions,
                               void **jitOptionsValues,
                               unsigned int numJitOptions,
                               CUlibraryOption *libraryOptions,
                               void **libraryOptionValues,
                               unsigned int numLibraryOptions)
{
    (void)jitOptions;
    (void)jitOptionsValues;
    (void)numJitOptions;
    (void)libraryOptions;
    (void)libraryOptionValues;
    (void)numLibraryOptions;
    if (!library) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    return cuModuleLoad((CUmodule *)library, fileName);
}

CUresult cuLibraryUnload(CUlibrary library)
{
    return cuModuleUnload((CUmodule)library);
}

CUresult cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
    DRV_READY();
    if (!pMod) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!mod_valid((CUmodule)library)) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    *pMod = (CUmodule)library;
    return CUDA_SUCCESS;
}

CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library,
                            const char *name)
{
    return cuModuleGetFunction((CUfunction *)pKernel, (CUmodule)library,
                               name);
}

CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    DRV_READY();
    if (!pFunc || !kernel) {
        return pFunc ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE;
    }
    *pFunc = (CUfunction)kernel;
    return CUDA_SUCCESS;
}
