/*
 * cuda/include/driver_functions.h - the constructors of the 3D copy
 * types (cudaPitchedPtr, cudaPos, cudaExtent; p2psim_rt_memcpy.h), inline
 * as in the toolkit, whose cuda_runtime.h includes this header too.
 */
#ifndef P2PSIM_CUDA_INCLUDE_DRIVER_FUNCTIONS_H
#define P2PSIM_CUDA_INCLUDE_DRIVER_FUNCTIONS_H

/* Presence macro, as the toolkit's. */
#ifndef __DRIVER_FUNCTIONS_H__
#define __DRIVER_FUNCTIONS_H__
#endif

#include "host_defines.h"
#include "cuda_runtime_api.h"

/* d: the memory; p: its pitch in bytes; xsz, ysz: its logical size. */
static __inline__ __host__ struct cudaPitchedPtr
make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
    struct cudaPitchedPtr r;
    r.ptr = d;
    r.pitch = p;
    r.xsize = xsz;
    r.ysize = ysz;
    return r;
}

static __inline__ __host__ struct cudaPos make_cudaPos(size_t x, size_t y,
                                                       size_t z)
{
    struct cudaPos r;
    r.x = x;
    r.y = y;
    r.z = z;
    return r;
}

/* w: bytes for linear memory (elements for arrays); h, d: rows, slices. */
static __inline__ __host__ struct cudaExtent make_cudaExtent(size_t w,
                                                             size_t h,
                                                             size_t d)
{
    struct cudaExtent r;
    r.width = w;
    r.height = h;
    r.depth = d;
    return r;
}

#endif /* P2PSIM_CUDA_INCLUDE_DRIVER_FUNCTIONS_H */
