/*
 * cuda/cudart/texture_int.h - what the files of arrays and texture objects
 * share (array.c: CUDA arrays and the copies to and from them; texture.c:
 * texture and surface objects).
 *
 * An array is device memory of its device, laid out densely: element
 * (x, y, z) of a 3D array, or of layer z of a layered one (face z of a
 * cubemap), is at base + (z * height + y) * pitch + x * elem, with
 * pitch = width * elem (no row alignment: a copy of whole rows is one
 * copy). A 1D array has height 1 and depth 1 here (extent keeps the
 * zeros the program gave).
 */
#ifndef P2PSIM_CUDA_CUDART_TEXTURE_INT_H
#define P2PSIM_CUDA_CUDART_TEXTURE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda/cudart/rt.h"

struct cudaArray {
    struct cudaArray *next;     /* every live array (array.c) */
    struct cudaChannelFormatDesc desc;
    struct cudaExtent extent;   /* as allocated (0 for unused dims) */
    unsigned flags;             /* cudaArray* flags */
    int device;
    uintptr_t base;             /* the device allocation */
    uint64_t elem;              /* bytes per element */
    uint64_t pitch;             /* bytes per row: width * elem */
    uint64_t rows;              /* rows of one slice (height, or 1) */
    uint64_t slices;            /* depth, layers or faces (or 1) */
    uint64_t bytes;             /* pitch * rows * slices */
    bool in_mipmap;             /* a level of a mipmapped array */
};

/* A mipmapped array: its levels, each an array (level 0 the largest). */
struct cudaMipmappedArray {
    struct cudaMipmappedArray *next; /* every live one (array.c) */
    unsigned n_levels;
    struct cudaArray *level[16]; /* PTX_TEX_MAX_LEVELS */
};

/* The live mipmapped array a handle names, or NULL. */
struct cudaMipmappedArray *tex_mipmap_find(const struct cudaMipmappedArray *m);

/* The live array a handle names, or NULL. */
struct cudaArray *tex_array_find(const struct cudaArray *a);

/*
 * The bytes per element of a channel format: 1, 2 or 4 channels of
 * 8, 16 or 32 bits (floats: 16 or 32), Signed, Unsigned or Float.
 * cudaSuccess, or cudaErrorInvalidChannelDescriptor.
 */
cudaError_t tex_chan_check(const struct cudaChannelFormatDesc *c,
                           unsigned *elem);

/*
 * rt_array_3d_parms - (array.c) a 3D copy's array sides replaced by the
 * pitched memory they are (positions and the extent's width turned from
 * elements into bytes), for memcpy2d.c's copy of rows. cudaSuccess,
 * cudaErrorInvalidResourceHandle (not an array), cudaErrorInvalidValue.
 */
cudaError_t rt_array_3d_parms(struct cudaMemcpy3DParms *p);

#endif /* P2PSIM_CUDA_CUDART_TEXTURE_INT_H */
