/*
 * cuda/driver/drv_memory.c - memory of p2psim's driver API: allocations,
 * copies, memsets and pointer attributes, each the runtime's call of the
 * same meaning (a CUdeviceptr is the runtime's device pointer), so memory
 * from either API works in the other.
 *
 * Model: cuMemsetD16/D32 of a value whose bytes differ is a copy from a
 * host buffer of the pattern (the runtime fills bytes only); the Async
 * forms then return once the copy is done.
 */
#include <config.h>

#include "cuda/driver/drv_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PTR(d) ((void *)(uintptr_t)(d))

CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
    DRV_READY();
    return drv_result(cudaMemGetInfo(free, total));
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    void *p = NULL;
    DRV_READY();
    if (!dptr || !bytesize) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = drv_result(cudaMalloc(&p, bytesize));
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return r;
}

CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    DRV_READY();
    return drv_result(cudaFree(PTR(dptr)));
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize,
                           unsigned int flags)
{
    void *p = NULL;
    DRV_READY();
    if (!dptr) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = drv_result(cudaMallocManaged(&p, bytesize, flags));
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return r;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize,
                                 CUdeviceptr dptr)
{
    int kind, dev;
    uintptr_t base;
    size_t size;
    DRV_READY();
    p2psim_drv_range((uintptr_t)dptr, &kind, &base, &size, &dev);
    if (kind == 0) {
        return CUDA_ERROR_NOT_FOUND;
    }
    if (pbase) {
        *pbase = base;
    }
    if (psize) {
        *psize = size;
    }
    return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    DRV_READY();
    return drv_result(cudaMallocHost(pp, bytesize));
}

CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    DRV_READY();
    return drv_result(cudaHostAlloc(pp, bytesize, Flags));
}

CUresult cuMemFreeHost(void *p)
{
    DRV_READY();
    return drv_result(cudaFreeHost(p));
}

CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    DRV_READY();
    return drv_result(cudaHostRegister(p, bytesize, Flags));
}

CUresult cuMemHostUnregister(void *p)
{
    DRV_READY();
    return drv_result(cudaHostUnregister(p));
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p,
                                      unsigned int Flags)
{
    void *d = NULL;
    DRV_READY();
    if (!pdptr) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = drv_result(cudaHostGetDevicePointer(&d, p, Flags));
    *pdptr = (CUdeviceptr)(uintptr_t)d;
    return r;
}

CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    DRV_READY();
    return drv_result(cudaHostGetFlags(pFlags, p));
}

/* ---- copies -------------------------------------------------------------------- */

/* The bytes from dst and src that stay within one mapping of each. */
static size_t run2(const void *dst, const void *src, size_t n)
{
    n = drv_vmm_run((uintptr_t)dst, n);
    return drv_vmm_run((uintptr_t)src, n);
}

static CUresult copy_on(void *dst, const void *src, size_t n,
                        enum cudaMemcpyKind kind, bool async, CUstream s)
{
    DRV_READY();
    cudaError_t e = cudaSuccess;
    do {
        size_t len = run2(dst, src, n);
        e = async ? cudaMemcpyAsync(dst, src, len, kind, s)
                  : cudaMemcpy(dst, src, len, kind);
        dst = (char *)dst + len;
        src = (const char *)src + len;
        n -= len;
    } while (!e && n);
    return drv_result(e);
}

static CUresult copy(void *dst, const void *src, size_t n,
                     enum cudaMemcpyKind kind)
{
    return copy_on(dst, src, n, kind, false, NULL);
}

static CUresult copy_async(void *dst, const void *src, size_t n,
                           enum cudaMemcpyKind kind, CUstream s)
{
    return copy_on(dst, src, n, kind, true, s);
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    return copy(PTR(dst), PTR(src), ByteCount, cudaMemcpyDefault);
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                       CUstream hStream)
{
    return copy_async(PTR(dst), PTR(src), ByteCount, cudaMemcpyDefault,
                      hStream);
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost,
                         size_t ByteCount)
{
    return copy(PTR(dstDevice), srcHost, ByteCount, cudaMemcpyHostToDevice);
}

CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice,
                         size_t ByteCount)
{
    return copy(dstHost, PTR(srcDevice), ByteCount, cudaMemcpyDeviceToHost);
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                         size_t ByteCount)
{
    return copy(PTR(dstDevice), PTR(srcDevice), ByteCount,
                cudaMemcpyDeviceToDevice);
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost,
                              size_t ByteCount, CUstream hStream)
{
    return copy_async(PTR(dstDevice), srcHost, ByteCount,
                      cudaMemcpyHostToDevice, hStream);
}

CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice,
                              size_t ByteCount, CUstream hStream)
{
    return copy_async(dstHost, PTR(srcDevice), ByteCount,
                      cudaMemcpyDeviceToHost, hStream);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                              size_t ByteCount, CUstream hStream)
{
    return copy_async(PTR(dstDevice), PTR(srcDevice), ByteCount,
                      cudaMemcpyDeviceToDevice, hStream);
}

CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext,
                      CUdeviceptr srcDevice, CUcontext srcContext,
                      size_t ByteCount)
{
    DRV_READY();
    if (!drv_ctx_valid(dstContext) || !drv_ctx_valid(srcContext)) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    cudaError_t e = cudaSuccess;
    do {
        size_t len = run2(PTR(dstDevice), PTR(srcDevice), ByteCount);
        e = cudaMemcpyPeer(PTR(dstDevice), dstContext->dev, PTR(srcDevice),
                           srcContext->dev, len);
        dstDevice += len;
        srcDevice += len;
        ByteCount -= len;
    } while (!e && ByteCount);
    return drv_result(e);
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext,
                           CUdeviceptr srcDevice, CUcontext srcContext,
                           size_t ByteCount, CUstream hStream)
{
    DRV_READY();
    if (!drv_ctx_valid(dstContext) || !drv_ctx_valid(srcContext)) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    cudaError_t e = cudaSuccess;
    do {
        size_t len = run2(PTR(dstDevice), PTR(srcDevice), ByteCount);
        e = cudaMemcpyPeerAsync(PTR(dstDevice), dstContext->dev,
                                PTR(srcDevice), srcContext->dev, len,
                                hStream);
        dstDevice += len;
        srcDevice += len;
        ByteCount -= len;
    } while (!e && ByteCount);
    return drv_result(e);
}

/* ---- memsets ------------------------------------------------------------------- */

/* N elements of size bytes (1, 2 or 4) of value at dst, on s (async) or
 * synchronously. */
static CUresult fill(CUdeviceptr dst, uint32_t value, unsigned size,
                     size_t n, bool async, CUstream s)
{
    DRV_READY();
    uint8_t b[4];
    memcpy(b, &value, sizeof(b));
    bool uniform = true;
    for (unsigned i = 1; i < size; i++) {
        uniform = uniform && b[i] == b[0];
    }
    if (n > SIZE_MAX / size) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (size > 1 && (dst % size)) {
        return CUDA_ERROR_INVALID_VALUE;    /* CUDA: aligned elements */
    }
    if (uniform) {
        cudaError_t e = cudaSuccess;
        size_t left = n * size;
        do {
            size_t len = drv_vmm_run((uintptr_t)dst, left);
            e = async ? cudaMemsetAsync(PTR(dst), b[0], len, s)
                      : cudaMemset(PTR(dst), b[0], len);
            dst += len;
            left -= len;
        } while (!e && left);
        return drv_result(e);
    }
    uint8_t *buf = malloc(n * size);
    if (!buf) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(buf + i * size, b, size);
    }
    CUresult r = copy_on(PTR(dst), buf, n * size, cudaMemcpyHostToDevice,
                         async, s);
    if (!r && async) {
        /* buf is ours until it is read */
        r = drv_result(cudaStreamSynchronize(s));
    }
    free(buf);
    return r;
}

CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    return fill(dstDevice, uc, 1, N, false, NULL);
}

CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
    return fill(dstDevice, us, 2, N, false, NULL);
}

CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    return fill(dstDevice, ui, 4, N, false, NULL);
}

CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                         CUstream hStream)
{
    return fill(dstDevice, uc, 1, N, true, hStream);
}

CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N,
                          CUstream hStream)
{
    return fill(dstDevice, us, 2, N, true, hStream);
}

CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N,
                          CUstream hStream)
{
    return fill(dstDevice, ui, 4, N, true, hStream);
}

/* ---- pointer attributes ------------------------------------------------------------ */

/* One attribute of ptr into data (its type is the attribute's). */
static CUresult attribute(void *data, CUpointer_attribute attr,
                          CUdeviceptr ptr)
{
    int kind, dev;
    uintptr_t base;
    size_t size;
    if (!data) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    p2psim_drv_range((uintptr_t)ptr, &kind, &base, &size, &dev);
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(int *)data = kind == 3;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(int *)data = kind != 0;
        return CUDA_SUCCESS;
    default:
        break;
    }
    if (kind == 0) {
        /* CUDA: memory it does not know is an invalid value */
        return CUDA_ERROR_INVALID_VALUE;
    }
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: {
        CUcontext c = NULL;
        CUresult r = cuDevicePrimaryCtxRetain(&c, dev);
        if (!r) {
            cuDevicePrimaryCtxRelease_v2(dev);
        }
        *(CUcontext *)data = c;
        return r;
    }
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned *)data = kind == 2 ? CU_MEMORYTYPE_HOST
                                      : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        /* UVA: the same address on both sides */
        *(CUdeviceptr *)data = ptr;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (kind == 1) {
            return CUDA_ERROR_INVALID_VALUE;
        }
        *(void **)data = PTR(ptr);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
        *(int *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
        *(unsigned long long *)data = base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = dev;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        *(int *)data = kind == 1;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
        *(CUdeviceptr *)data = base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
        *(size_t *)data = size;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        *(unsigned long long *)data = CU_MEM_HANDLE_TYPE_NONE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
        *(int *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        *(unsigned *)data = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(CUmemoryPool *)data = NULL;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute_,
                               CUdeviceptr ptr)
{
    DRV_READY();
    return attribute(data, attribute_, ptr);
}

/* CUDA: an attribute that does not apply leaves its slot as it is and
 * the call still succeeds. */
CUresult cuPointerGetAttributes(unsigned int numAttributes,
                                CUpointer_attribute *attributes, void **data,
                                CUdeviceptr ptr)
{
    DRV_READY();
    if (numAttributes && (!attributes || !data)) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (unsigned i = 0; i < numAttributes; i++) {
        if (data[i]) {
            attribute(data[i], attributes[i], ptr);
        }
    }
    return CUDA_SUCCESS;
}
