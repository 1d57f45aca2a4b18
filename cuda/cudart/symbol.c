/*
 * cuda/cudart/symbol.c - symbols: cudaMemcpyToSymbol, cudaMemcpyFromSymbol
 * (their Async and per-thread forms), cudaGetSymbolAddress,
 * cudaGetSymbolSize.
 *
 * A symbol is a __device__, __constant__ or __managed__ variable, named
 * by its host shadow, the address nvcc's constructor registered with
 * __cudaRegisterVar (registry.c). Its device address is that of the
 * variable in its module on the current device: the storage kernels of
 * that module use (launch.c, rt_module_vars), made on first use, so a
 * symbol may be written before any launch and the kernel then reads it.
 * The module's PTX is parsed for that if no launch has yet. A managed
 * variable's address is its managed allocation (__cudaInitModule).
 *
 * A copy to or from a symbol is a cudaMemcpy (cudaMemcpyAsync) between
 * the program's pointer and that address, with its timing and its
 * synchronization; the kind must name the symbol's side as the device
 * (or be cudaMemcpyDefault), else cudaErrorInvalidMemcpyDirection.
 */
#include <config.h>

#include "cuda/cudart/launch_int.h"

#include <string.h>

#include "cuda/cudart/memcpy2d.h"

/*
 * The current device's address and the size of symbol: 0,
 * cudaErrorInvalidSymbol (not a registered variable, or not in its
 * module's PTX), cudaErrorInvalidPtx (the module cannot be read),
 * cudaErrorMemoryAllocation.
 */
static cudaError_t symbol_find(const void *symbol, void **addr, size_t *size)
{
    int dev = rt_current_device();
    cudaError_t e = rt_device_init(dev);
    if (e) {
        return e;
    }
    const char *name;
    void **managed;
    pthread_mutex_lock(&reg_lock);
    struct cudart_module *m = reg_var_lookup(symbol, &name, size, &managed);
    if (!m) {
        e = cudaErrorInvalidSymbol;
    } else if (managed) {
        *addr = *managed;
        if (!*addr) {
            e = cudaErrorInvalidSymbol;     /* module not initialized */
        }
    } else {
        struct ptx_module *mod = rt_module_ptx(m);
        unsigned n = mod ? ptx_module_var_count(mod) : 0, i = 0;
        while (i < n && strcmp(ptx_module_var(mod, i)->name, name) != 0) {
            i++;
        }
        const uint64_t *va = NULL;
        unsigned n_vars = 0;
        if (!mod) {
            e = m->ptx_err.code == PTX_ENOMEM ? cudaErrorMemoryAllocation
                                              : cudaErrorInvalidPtx;
        } else if (i == n) {
            e = cudaErrorInvalidSymbol;
        } else if (!(e = rt_module_vars(m, mod, (unsigned)dev, &va,
                                        &n_vars))) {
            *addr = (void *)(uintptr_t)va[i];
        }
    }
    pthread_mutex_unlock(&reg_lock);
    return e;
}

/* to: a copy into the symbol. */
static cudaError_t symbol_copy(void *ptr, const void *symbol, size_t count,
                               size_t offset, enum cudaMemcpyKind kind,
                               cudaStream_t h, bool sync, bool to)
{
    enum cudaMemcpyKind other = to ? cudaMemcpyDeviceToHost
                                   : cudaMemcpyHostToDevice;
    if (kind == cudaMemcpyHostToHost || kind == other ||
        (unsigned)kind > cudaMemcpyDefault) {
        return cudaErrorInvalidMemcpyDirection;
    }
    void *addr;
    size_t size;
    cudaError_t e = symbol_find(symbol, &addr, &size);
    if (e) {
        return e;
    }
    if (offset > size || count > size - offset) {
        return cudaErrorInvalidValue;
    }
    uint8_t *at = (uint8_t *)addr + offset;
    return to ? rt_memcpy_on(at, ptr, count, kind, h, sync, NULL)
              : rt_memcpy_on(ptr, at, count, kind, h, sync, NULL);
}

cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void *symbol, const void *src,
                                         size_t count, size_t offset,
                                         enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, symbol_copy((void *)src, symbol, count, offset, kind,
                                     NULL, true, true));
}

cudaError_t CUDARTAPI cudaMemcpyToSymbol_ptds(const void *symbol,
                                              const void *src, size_t count,
                                              size_t offset,
                                              enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, symbol_copy((void *)src, symbol, count, offset, kind,
                                     cudaStreamPerThread, true, true));
}

cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void *symbol,
                                              const void *src, size_t count,
                                              size_t offset,
                                              enum cudaMemcpyKind kind,
                                              cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, symbol_copy((void *)src, symbol, count, offset, kind,
                                     stream, false, true));
}

cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync_ptsz(const void *symbol,
                                                   const void *src,
                                                   size_t count, size_t offset,
                                                   enum cudaMemcpyKind kind,
                                                   cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST,
             symbol_copy((void *)src, symbol, count, offset, kind,
                         stream ? stream : cudaStreamPerThread, false, true));
}

cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void *dst, const void *symbol,
                                           size_t count, size_t offset,
                                           enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, symbol_copy(dst, symbol, count, offset, kind, NULL,
                                     true, false));
}

cudaError_t CUDARTAPI cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol,
                                                size_t count, size_t offset,
                                                enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, symbol_copy(dst, symbol, count, offset, kind,
                                     cudaStreamPerThread, true, false));
}

cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void *dst, const void *symbol,
                                                size_t count, size_t offset,
                                                enum cudaMemcpyKind kind,
                                                cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, symbol_copy(dst, symbol, count, offset, kind, stream,
                                     false, false));
}

cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync_ptsz(void *dst,
                                                     const void *symbol,
                                                     size_t count,
                                                     size_t offset,
                                                     enum cudaMemcpyKind kind,
                                                     cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST,
             symbol_copy(dst, symbol, count, offset, kind,
                         stream ? stream : cudaStreamPerThread, false, false));
}

static cudaError_t symbol_address(void **devPtr, const void *symbol)
{
    size_t size;
    return devPtr ? symbol_find(symbol, devPtr, &size)
                  : cudaErrorInvalidValue;
}

static cudaError_t symbol_size(size_t *size, const void *symbol)
{
    void *addr;
    return size ? symbol_find(symbol, &addr, size) : cudaErrorInvalidValue;
}

cudaError_t CUDARTAPI cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    SERVE(symbol_address(devPtr, symbol));
}

cudaError_t CUDARTAPI cudaGetSymbolSize(size_t *size, const void *symbol)
{
    SERVE(symbol_size(size, symbol));
}
