/*
 * cuda/cudart/memory_host.c - pinned host memory: cudaMallocHost,
 * cudaHostAlloc, cudaFreeHost, cudaHostRegister, cudaHostUnregister,
 * cudaHostGetDevicePointer, cudaHostGetFlags.
 *
 * Pinned host memory is the program's own memory (rt_machine->host_alloc,
 * or the program's for cudaHostRegister) registered with the machine in
 * the DRAM of the current device's socket (p2psim_gpu_socket), so copies
 * move the program's bytes. With unified addressing it is mapped and
 * portable whatever the flags.
 */
#include <config.h>

#include "cuda/cudart/memory_int.h"

#include <stdlib.h>
#include <unistd.h>

#include "sim/error.h"

/* cudaHostAlloc and cudaHostRegister flags we accept. */
#define MEM_HOST_ALLOC_FLAGS                                                  \
    (cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined)
#define MEM_HOST_REGISTER_FLAGS                                               \
    (cudaHostRegisterPortable | cudaHostRegisterMapped |                      \
     cudaHostRegisterIoMemory | cudaHostRegisterReadOnly)

/* ---- pinned host memory -------------------------------------------------- */

/* Register [p, p + size) as pinned memory of the current device's socket
 * and enter it in the table. */
static cudaError_t host_add(void *p, uint64_t size, unsigned flags,
                            bool registered)
{
    int dev = rt_current_device();
    unsigned socket = p2psim_gpu_socket(rt.p, (unsigned)dev);
    struct rt_alloc *a = calloc(1, sizeof(*a));
    if (!a) {
        return cudaErrorMemoryAllocation;
    }
    a->kind = RT_MEM_HOST;
    a->base = (uintptr_t)p;
    a->size = size;
    a->device = dev;
    a->flags = flags;
    a->socket = socket;
    a->registered = registered;
    int rc = rt_machine->host_register(p, size, socket, &a->bus);
    if (rc < 0) {
        free(a);
        /* ENOTSUP: a server cannot share these pages (remote.c). */
        return rc == -SIM_ENOTSUP ? cudaErrorNotSupported
                                  : cudaErrorMemoryAllocation;
    }
    cudaError_t e = rt_alloc_insert(a);
    if (e) {
        rt_machine->host_unregister(a->bus);
        free(a);
    }
    return e;
}

static cudaError_t host_alloc(void **ptr, size_t size, unsigned flags)
{
    rt_charge_cost(RT_COST_MALLOC);
    if (!ptr || (flags & ~MEM_HOST_ALLOC_FLAGS)) {
        return cudaErrorInvalidValue;
    }
    if (size == 0) {
        *ptr = NULL;            /* as cudaMalloc */
        return cudaSuccess;
    }
    uint64_t len = round_up(size, (uint64_t)getpagesize());
    void *p = rt_machine->host_alloc(len);
    if (!p) {
        return cudaErrorMemoryAllocation;
    }
    cudaError_t e = host_add(p, size, flags, false);
    if (e) {
        rt_machine->host_free(p, len);
        return e;
    }
    *ptr = p;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size)
{
    RT_SERVE(RT_NO_COST, host_alloc(ptr, size, cudaHostAllocDefault));
}

cudaError_t CUDARTAPI cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    RT_SERVE(RT_NO_COST, host_alloc(ptr, size, flags));
}

cudaError_t CUDARTAPI cudaFreeHost(void *ptr)
{
    RT_SERVE(RT_NO_COST, mem_free_synced(ptr, RT_MEM_HOST));
}

/* Whether [p, p + len) meets a device's window. */
static bool in_any_window(uintptr_t p, uint64_t len)
{
    for (unsigned d = 0; d < rt.n_dev; d++) {
        uintptr_t b = rt.dev[d].va_base;
        if (p < b + rt.dev[d].va_size && b < p + len) {
            return true;
        }
    }
    return false;
}

static cudaError_t host_register(void *ptr, size_t size, unsigned int flags)
{
    cudaError_t e = cudaSuccess;
    uintptr_t p = (uintptr_t)ptr;
    if (!ptr || size == 0 || (flags & ~MEM_HOST_REGISTER_FLAGS) ||
        p + size < p || in_any_window(p, size)) {
        e = cudaErrorInvalidValue;
    } else if (mem_alloc_overlaps(p, size)) {
        e = cudaErrorHostMemoryAlreadyRegistered;
    } else {
        e = host_add(ptr, size, flags, true);
    }
    return e;
}

cudaError_t CUDARTAPI cudaHostRegister(void *ptr, size_t size,
                                       unsigned int flags)
{
    RT_SERVE(RT_COST_MALLOC, host_register(ptr, size, flags));
}

static cudaError_t host_unregister(void *ptr)
{
    cudaError_t e = cudaSuccess;
    struct rt_alloc *a = ptr ? rt_alloc_at(ptr) : NULL;
    if (!ptr) {
        e = cudaErrorInvalidValue;
    } else if (!a || a->kind != RT_MEM_HOST || !a->registered ||
               (a->flags & MEM_FREEING)) {
        e = cudaErrorHostMemoryNotRegistered;
    } else {
        /* Copies in flight may still move its bytes. */
        a->flags |= MEM_FREEING;
        e = rt_device_sync(-1);
        mem_alloc_release(a);
    }
    return e;
}

cudaError_t CUDARTAPI cudaHostUnregister(void *ptr)
{
    RT_SERVE(RT_COST_MALLOC, host_unregister(ptr));
}

static cudaError_t host_device_pointer(void **devPtr, void *hostPtr,
                                       unsigned int flags)
{
    cudaError_t e = cudaSuccess;
    struct rt_ptr where;
    rt_ptr_find(hostPtr, &where);
    if (!devPtr || flags != 0 || where.where != RT_WHERE_HOST) {
        e = cudaErrorInvalidValue;
    } else {
        *devPtr = hostPtr;      /* unified addressing: the same address */
    }
    return e;
}

cudaError_t CUDARTAPI cudaHostGetDevicePointer(void **devPtr, void *hostPtr,
                                               unsigned int flags)
{
    SERVE(host_device_pointer(devPtr, hostPtr, flags));
}

static cudaError_t host_get_flags(unsigned int *flags, void *hostPtr)
{
    cudaError_t e = cudaSuccess;
    struct rt_ptr where;
    rt_ptr_find(hostPtr, &where);
    if (!flags || where.where != RT_WHERE_HOST) {
        e = cudaErrorInvalidValue;
    } else {
        /*
         * Model: with unified addressing all pinned memory is mapped and
         * portable, and the flags say so (as the driver's
         * cuMemHostGetFlags reports DEVICEMAP for cuMemAllocHost memory);
         * not checked on hardware.
         */
        *flags = (where.alloc->flags & ~MEM_FREEING) | cudaHostAllocMapped |
                 cudaHostAllocPortable;
    }
    return e;
}

cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int *flags, void *hostPtr)
{
    SERVE(host_get_flags(flags, hostPtr));
}
