/*
 * cuda/cudart/array.c - CUDA arrays: cudaMallocArray, cudaMalloc3DArray
 * (layered, cubemap), cudaFreeArray, cudaArrayGetInfo, cudaGetChannelDesc,
 * mipmapped arrays (cudaMallocMipmappedArray, cudaGetMipmappedArrayLevel,
 * cudaFreeMipmappedArray: a level is an array of its own),
 * and the copies to, from and between arrays (cudaMemcpy2DToArray ...,
 * and the deprecated cudaMemcpyToArray ...), which are copies of rows
 * over the simulated machine as cudaMemcpy2D's (memcpy2d.h).
 *
 * An array is device memory of the current device, laid out densely
 * (texture_int.h); cudaArray_t points at the runtime's record of it.
 * Simplifications: the layout is not the GPU's (block-linear tiles); no
 * sparse, deferred-mapping or planar (NV12) arrays.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/memcpy2d.h"
#include "cuda/cudart/memory.h"
#include "cuda/cudart/memory_int.h"
#include "cuda/cudart/rt.h"
#include "cuda/cudart/texture_int.h"
#include "ptx/ptx_tex.h"

/* Every live array, newest first (under the runtime lock). */
static struct cudaArray *arrays;

struct cudaArray *tex_array_find(const struct cudaArray *a)
{
    for (struct cudaArray *x = arrays; a && x; x = x->next) {
        if (x == a) {
            return x;
        }
    }
    return NULL;
}

cudaError_t tex_chan_check(const struct cudaChannelFormatDesc *c,
                           unsigned *elem)
{
    const int bits[4] = {c->x, c->y, c->z, c->w};
    unsigned n = 0, total = 0;
    for (unsigned i = 0; i < 4; i++) {
        int b = bits[i];
        if (b == 0) {
            continue;
        }
        if (i != n || (b != 8 && b != 16 && b != 32) ||
            (c->f == cudaChannelFormatKindFloat && b == 8) ||
            b != bits[0]) {
            return cudaErrorInvalidChannelDescriptor;
        }
        n++;
        total += (unsigned)b;
    }
    if ((n != 1 && n != 2 && n != 4) ||
        (c->f != cudaChannelFormatKindSigned &&
         c->f != cudaChannelFormatKindUnsigned &&
         c->f != cudaChannelFormatKindFloat)) {
        return cudaErrorInvalidChannelDescriptor;
    }
    *elem = total / 8;
    return cudaSuccess;
}

/* ---- allocation --------------------------------------------------------- */

static cudaError_t array_new(cudaArray_t *out,
                             const struct cudaChannelFormatDesc *desc,
                             struct cudaExtent ext, unsigned flags)
{
    unsigned elem;
    if (!out || !desc) {
        return cudaErrorInvalidValue;
    }
    cudaError_t e = tex_chan_check(desc, &elem);
    if (e) {
        return e;
    }
    const unsigned known = cudaArrayLayered | cudaArraySurfaceLoadStore |
                           cudaArrayCubemap | cudaArrayTextureGather;
    bool layered = flags & cudaArrayLayered, cube = flags & cudaArrayCubemap;
    if ((flags & ~known) || ext.width == 0 ||
        (ext.height == 0 && ext.depth != 0 && !layered) ||
        (layered && ext.depth == 0) ||
        (cube && (ext.width != ext.height || ext.depth == 0 ||
                  ext.depth % 6)) ||
        ext.width > PTX_TEX_MAX_DIM || ext.height > PTX_TEX_MAX_DIM ||
        ext.depth > (layered ? PTX_TEX_MAX_LAYERS : PTX_TEX_MAX_DIM) ||
        (cube && !layered && ext.depth != 6)) {
        return cudaErrorInvalidValue;
    }
    int dev = rt_current_device();
    if ((e = rt_device_init(dev))) {
        return e;
    }
    struct cudaArray *a = calloc(1, sizeof(*a));
    if (!a) {
        return cudaErrorMemoryAllocation;
    }
    a->desc = *desc;
    a->extent = ext;
    a->flags = flags;
    a->device = dev;
    a->elem = elem;
    a->pitch = (uint64_t)ext.width * elem;
    a->rows = ext.height ? ext.height : 1;
    a->slices = ext.depth ? ext.depth : 1;
    a->bytes = a->pitch * a->rows * a->slices; /* < 2^17 * 16 * 2^17 * 2^17 */
    void *p;
    e = mem_device_alloc(dev, a->bytes, NULL, &p);
    if (e) {
        free(a);
        return e;
    }
    a->base = (uintptr_t)p;
    a->next = arrays;
    arrays = a;
    *out = a;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMallocArray(cudaArray_t *array,
                                      const struct cudaChannelFormatDesc *desc,
                                      size_t width, size_t height,
                                      unsigned int flags)
{
    struct cudaExtent ext = {width, height, 0};
    RT_SERVE(RT_COST_MALLOC,
             (flags & (cudaArrayLayered | cudaArrayCubemap))
                 ? cudaErrorInvalidValue
                 : array_new(array, desc, ext, flags));
}

cudaError_t CUDARTAPI cudaMalloc3DArray(
    cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
    struct cudaExtent extent, unsigned int flags)
{
    RT_SERVE(RT_COST_MALLOC, array_new(array, desc, extent, flags));
}

/* Free a (taken out of the list first), waiting for the device. */
static cudaError_t array_release(struct cudaArray *a)
{
    for (struct cudaArray **pp = &arrays; *pp; pp = &(*pp)->next) {
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    }
    /* waits for the device, as cudaFree does */
    cudaError_t e = mem_free_synced((void *)a->base, RT_MEM_DEVICE);
    free(a);
    return e;
}

static cudaError_t array_free(cudaArray_t array)
{
    if (!array) {
        return cudaSuccess;
    }
    struct cudaArray *a = tex_array_find(array);
    if (!a || a->in_mipmap) {
        return cudaErrorInvalidValue;
    }
    return array_release(a);
}

cudaError_t CUDARTAPI cudaFreeArray(cudaArray_t array)
{
    RT_SERVE(RT_NO_COST, array_free(array));
}

static cudaError_t array_info(struct cudaChannelFormatDesc *desc,
                              struct cudaExtent *extent, unsigned *flags,
                              const struct cudaArray *array)
{
    const struct cudaArray *a = tex_array_find(array);
    if (!a) {
        return cudaErrorInvalidResourceHandle;
    }
    if (desc) {
        *desc = a->desc;
    }
    if (extent) {
        *extent = a->extent;
    }
    if (flags) {
        *flags = a->flags;
    }
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaArrayGetInfo(struct cudaChannelFormatDesc *desc,
                                       struct cudaExtent *extent,
                                       unsigned int *flags, cudaArray_t array)
{
    SERVE(array_info(desc, extent, flags, array));
}

cudaError_t CUDARTAPI cudaGetChannelDesc(struct cudaChannelFormatDesc *desc,
                                         cudaArray_const_t array)
{
    SERVE(desc ? array_info(desc, NULL, NULL, array)
               : cudaErrorInvalidValue);
}

/* ---- mipmapped arrays ------------------------------------------------------ */

static struct cudaMipmappedArray *mipmaps;

struct cudaMipmappedArray *tex_mipmap_find(const struct cudaMipmappedArray *m)
{
    for (struct cudaMipmappedArray *x = mipmaps; m && x; x = x->next) {
        if (x == m) {
            return x;
        }
    }
    return NULL;
}

static cudaError_t mipmap_free(struct cudaMipmappedArray *m)
{
    cudaError_t e = cudaSuccess, e2;
    for (unsigned l = 0; l < m->n_levels; l++) {
        if ((e2 = array_release(m->level[l])) && !e) {
            e = e2;
        }
    }
    free(m);
    return e;
}

/* Level l of a size: halved, at least 1 (0 stays 0: an unused dim). */
static size_t half(size_t v, unsigned l)
{
    return v == 0 ? 0 : (v >> l) ? v >> l : 1;
}

static cudaError_t mipmap_new(cudaMipmappedArray_t *out,
                              const struct cudaChannelFormatDesc *desc,
                              struct cudaExtent ext, unsigned levels,
                              unsigned flags)
{
    size_t big = ext.width > ext.height ? ext.width : ext.height;
    if (!(flags & cudaArrayLayered) && ext.depth > big) {
        big = ext.depth;
    }
    unsigned most = 1;
    while (most < PTX_TEX_MAX_LEVELS && (big >> most)) {
        most++;
    }
    if (!out || levels == 0 || levels > most ||
        (flags & cudaArrayCubemap)) {
        return cudaErrorInvalidValue;
    }
    struct cudaMipmappedArray *m = calloc(1, sizeof(*m));
    if (!m) {
        return cudaErrorMemoryAllocation;
    }
    for (unsigned l = 0; l < levels; l++) {
        struct cudaExtent e = {half(ext.width, l), half(ext.height, l),
                               flags & cudaArrayLayered
                                   ? ext.depth
                                   : half(ext.depth, l)};
        cudaArray_t a;
        cudaError_t err = array_new(&a, desc, e, flags);
        if (err) {
            mipmap_free(m);
            return err;
        }
        a->in_mipmap = true;
        m->level[m->n_levels++] = a;
    }
    m->next = mipmaps;
    mipmaps = m;
    *out = m;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMallocMipmappedArray(
    cudaMipmappedArray_t *mipmappedArray,
    const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
    unsigned int numLevels, unsigned int flags)
{
    RT_SERVE(RT_COST_MALLOC,
             mipmap_new(mipmappedArray, desc, extent, numLevels, flags));
}

static cudaError_t mipmap_level(cudaArray_t *out,
                                const struct cudaMipmappedArray *mm,
                                unsigned level)
{
    const struct cudaMipmappedArray *m = tex_mipmap_find(mm);
    if (!out || !m || level >= m->n_levels) {
        return m ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle;
    }
    *out = m->level[level];
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetMipmappedArrayLevel(
    cudaArray_t *levelArray, cudaMipmappedArray_const_t mipmappedArray,
    unsigned int level)
{
    SERVE(mipmap_level(levelArray, mipmappedArray, level));
}

static cudaError_t mipmap_destroy(cudaMipmappedArray_t mm)
{
    if (!mm) {
        return cudaSuccess;
    }
    struct cudaMipmappedArray *m = tex_mipmap_find(mm);
    if (!m) {
        return cudaErrorInvalidValue;
    }
    for (struct cudaMipmappedArray **pp = &mipmaps; *pp; pp = &(*pp)->next) {
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    }
    return mipmap_free(m);
}

cudaError_t CUDARTAPI cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray)
{
    RT_SERVE(RT_NO_COST, mipmap_destroy(mipmappedArray));
}

/* ---- copies ------------------------------------------------------------- */

/* Byte (w, h) of array a as a device pointer, for a block of width bytes
 * and height rows there; NULL when the block is not inside the array. */
static void *array_at(const struct cudaArray *a, size_t w, size_t h,
                      size_t width, size_t height)
{
    if (!a || w > a->pitch || width > a->pitch - w ||
        h > a->rows || height > a->rows - h) {
        return NULL;
    }
    return (void *)(a->base + h * a->pitch + w);
}

/* A copy of height rows of width bytes. */
static cudaError_t rows(void *dst, size_t dpitch, const void *src,
                        size_t spitch, size_t width, size_t height,
                        enum cudaMemcpyKind kind, cudaStream_t h, bool sync)
{
    if (width == 0 || height == 0) {
        return cudaSuccess;
    }
    if (!dst || !src || dpitch < width || spitch < width) {
        return cudaErrorInvalidValue;
    }
    struct rt_copy_shape s = {
        .width = width, .height = height, .depth = 1,
        .dpitch = dpitch, .dslice = dpitch * height,
        .spitch = spitch, .sslice = spitch * height,
    };
    if (height == 1 || (dpitch == width && spitch == width)) {
        return rt_memcpy_on(dst, src, width * height, kind, h, sync, NULL);
    }
    return rt_memcpy_on(dst, src, width * height, kind, h, sync, &s);
}

static cudaError_t to_array(cudaArray_t dst, size_t w, size_t hoff,
                            const void *src, size_t spitch, size_t width,
                            size_t height, enum cudaMemcpyKind kind,
                            cudaStream_t h, bool sync)
{
    const struct cudaArray *a = tex_array_find(dst);
    void *at = array_at(a, w, hoff, width, height);
    if (!at) {
        return a ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle;
    }
    return rows(at, a->pitch, src, spitch, width, height, kind, h, sync);
}

static cudaError_t from_array(void *dst, size_t dpitch, cudaArray_const_t src,
                              size_t w, size_t hoff, size_t width,
                              size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t h, bool sync)
{
    const struct cudaArray *a = tex_array_find(src);
    void *at = array_at(a, w, hoff, width, height);
    if (!at) {
        return a ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle;
    }
    return rows(dst, dpitch, at, a->pitch, width, height, kind, h, sync);
}

static cudaError_t array_to_array(cudaArray_t dst, size_t wd, size_t hd,
                                  cudaArray_const_t src, size_t ws, size_t hs,
                                  size_t width, size_t height,
                                  enum cudaMemcpyKind kind, cudaStream_t h)
{
    const struct cudaArray *d = tex_array_find(dst),
                           *s = tex_array_find(src);
    if (!d || !s) {
        return cudaErrorInvalidResourceHandle;
    }
    void *to = array_at(d, wd, hd, width, height);
    void *from = array_at(s, ws, hs, width, height);
    if (!to || !from) {
        return cudaErrorInvalidValue;
    }
    return rows(to, d->pitch, from, s->pitch, width, height, kind, h, true);
}

/* The deprecated forms: count bytes from byte (w, h) on, in the array's
 * row-major order. */
static void *array_span(const struct cudaArray *a, size_t w, size_t h,
                        size_t count)
{
    if (!a || w >= a->pitch || h >= a->rows * a->slices) {
        return NULL;
    }
    uint64_t at = h * a->pitch + w;
    return count <= a->bytes - at ? (void *)(a->base + at) : NULL;
}

static cudaError_t to_array_count(cudaArray_t dst, size_t w, size_t hoff,
                                  const void *src, size_t count,
                                  enum cudaMemcpyKind kind, cudaStream_t h,
                                  bool sync)
{
    const struct cudaArray *a = tex_array_find(dst);
    void *at = array_span(a, w, hoff, count);
    if (!at) {
        return a ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle;
    }
    return rt_memcpy_on(at, src, count, kind, h, sync, NULL);
}

static cudaError_t from_array_count(void *dst, cudaArray_const_t src,
                                    size_t w, size_t hoff, size_t count,
                                    enum cudaMemcpyKind kind, cudaStream_t h,
                                    bool sync)
{
    const struct cudaArray *a = tex_array_find(src);
    void *at = array_span(a, w, hoff, count);
    if (!at) {
        return a ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle;
    }
    return rt_memcpy_on(dst, at, count, kind, h, sync, NULL);
}

cudaError_t CUDARTAPI cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset,
                                          size_t hOffset, const void *src,
                                          size_t spitch, size_t width,
                                          size_t height,
                                          enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, to_array(dst, wOffset, hOffset, src, spitch, width,
                                  height, kind, NULL, true));
}

cudaError_t CUDARTAPI cudaMemcpy2DToArrayAsync(
    cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
    size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, to_array(dst, wOffset, hOffset, src, spitch, width,
                                  height, kind, stream, false));
}

cudaError_t CUDARTAPI cudaMemcpy2DFromArray(void *dst, size_t dpitch,
                                            cudaArray_const_t src,
                                            size_t wOffset, size_t hOffset,
                                            size_t width, size_t height,
                                            enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, from_array(dst, dpitch, src, wOffset, hOffset, width,
                                    height, kind, NULL, true));
}

cudaError_t CUDARTAPI cudaMemcpy2DFromArrayAsync(
    void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
    size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, from_array(dst, dpitch, src, wOffset, hOffset, width,
                                    height, kind, stream, false));
}

cudaError_t CUDARTAPI cudaMemcpy2DArrayToArray(
    cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
    cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
    size_t width, size_t height, enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST,
             array_to_array(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc,
                            hOffsetSrc, width, height, kind, NULL));
}

cudaError_t CUDARTAPI cudaMemcpyToArray(cudaArray_t dst, size_t wOffset,
                                        size_t hOffset, const void *src,
                                        size_t count, enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, to_array_count(dst, wOffset, hOffset, src, count,
                                        kind, NULL, true));
}

cudaError_t CUDARTAPI cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset,
                                             size_t hOffset, const void *src,
                                             size_t count,
                                             enum cudaMemcpyKind kind,
                                             cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, to_array_count(dst, wOffset, hOffset, src, count,
                                        kind, stream, false));
}

cudaError_t CUDARTAPI cudaMemcpyFromArray(void *dst, cudaArray_const_t src,
                                          size_t wOffset, size_t hOffset,
                                          size_t count,
                                          enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, from_array_count(dst, src, wOffset, hOffset, count,
                                          kind, NULL, true));
}

cudaError_t CUDARTAPI cudaMemcpyFromArrayAsync(void *dst,
                                               cudaArray_const_t src,
                                               size_t wOffset, size_t hOffset,
                                               size_t count,
                                               enum cudaMemcpyKind kind,
                                               cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, from_array_count(dst, src, wOffset, hOffset, count,
                                          kind, stream, false));
}

static cudaError_t array_to_array_count(cudaArray_t dst, size_t wd, size_t hd,
                                        cudaArray_const_t src, size_t ws,
                                        size_t hs, size_t count,
                                        enum cudaMemcpyKind kind,
                                        cudaStream_t h)
{
    const struct cudaArray *d = tex_array_find(dst),
                           *s = tex_array_find(src);
    if (!d || !s) {
        return cudaErrorInvalidResourceHandle;
    }
    void *to = array_span(d, wd, hd, count);
    void *from = array_span(s, ws, hs, count);
    if (!to || !from) {
        return cudaErrorInvalidValue;
    }
    return rt_memcpy_on(to, from, count, kind, h, true, NULL);
}

cudaError_t CUDARTAPI cudaMemcpyArrayToArray(cudaArray_t dst,
                                             size_t wOffsetDst,
                                             size_t hOffsetDst,
                                             cudaArray_const_t src,
                                             size_t wOffsetSrc,
                                             size_t hOffsetSrc, size_t count,
                                             enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST,
             array_to_array_count(dst, wOffsetDst, hOffsetDst, src,
                                  wOffsetSrc, hOffsetSrc, count, kind, NULL));
}

/* ---- the per-thread default stream's twins ------------------------------ */

#define PTSZ(stream) ((stream) ? (stream) : cudaStreamPerThread)

cudaError_t CUDARTAPI cudaMemcpy2DToArray_ptds(
    cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
    size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, to_array(dst, wOffset, hOffset, src, spitch, width,
                                  height, kind, cudaStreamPerThread, true));
}

cudaError_t CUDARTAPI cudaMemcpy2DToArrayAsync_ptsz(
    cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
    size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, to_array(dst, wOffset, hOffset, src, spitch, width,
                                  height, kind, PTSZ(stream), false));
}

cudaError_t CUDARTAPI cudaMemcpy2DFromArray_ptds(
    void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
    size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, from_array(dst, dpitch, src, wOffset, hOffset, width,
                                    height, kind, cudaStreamPerThread, true));
}

cudaError_t CUDARTAPI cudaMemcpy2DFromArrayAsync_ptsz(
    void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
    size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, from_array(dst, dpitch, src, wOffset, hOffset, width,
                                    height, kind, PTSZ(stream), false));
}

cudaError_t CUDARTAPI cudaMemcpy2DArrayToArray_ptds(
    cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
    cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
    size_t width, size_t height, enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST,
             array_to_array(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc,
                            hOffsetSrc, width, height, kind,
                            cudaStreamPerThread));
}

cudaError_t CUDARTAPI cudaMemcpyToArray_ptds(cudaArray_t dst, size_t wOffset,
                                             size_t hOffset, const void *src,
                                             size_t count,
                                             enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, to_array_count(dst, wOffset, hOffset, src, count,
                                        kind, cudaStreamPerThread, true));
}

cudaError_t CUDARTAPI cudaMemcpyToArrayAsync_ptsz(
    cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
    size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, to_array_count(dst, wOffset, hOffset, src, count,
                                        kind, PTSZ(stream), false));
}

cudaError_t CUDARTAPI cudaMemcpyFromArray_ptds(void *dst,
                                               cudaArray_const_t src,
                                               size_t wOffset, size_t hOffset,
                                               size_t count,
                                               enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, from_array_count(dst, src, wOffset, hOffset, count,
                                          kind, cudaStreamPerThread, true));
}

cudaError_t CUDARTAPI cudaMemcpyFromArrayAsync_ptsz(
    void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
    size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, from_array_count(dst, src, wOffset, hOffset, count,
                                          kind, PTSZ(stream), false));
}

cudaError_t CUDARTAPI cudaMemcpyArrayToArray_ptds(
    cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
    cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t count,
    enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST,
             array_to_array_count(dst, wOffsetDst, hOffsetDst, src,
                                  wOffsetSrc, hOffsetSrc, count, kind,
                                  cudaStreamPerThread));
}

/* ---- 3D copies (memcpy2d.c) --------------------------------------------- */

/* One side of a 3D copy: array a at position pos (elements) as pitched
 * memory at a position in bytes. */
static cudaError_t array_side(cudaArray_t *arr, struct cudaPitchedPtr *pp,
                              struct cudaPos *pos, unsigned *elem)
{
    const struct cudaArray *a = tex_array_find(*arr);
    if (!a) {
        return cudaErrorInvalidResourceHandle;
    }
    if (*elem && *elem != a->elem) {
        return cudaErrorInvalidValue; /* two arrays of different elements */
    }
    *elem = (unsigned)a->elem;
    *pp = (struct cudaPitchedPtr){ (void *)a->base, a->pitch,
                                   a->extent.width, a->rows };
    pos->x *= a->elem;
    *arr = NULL;
    return cudaSuccess;
}

cudaError_t rt_array_3d_parms(struct cudaMemcpy3DParms *p)
{
    unsigned elem = 0;
    cudaError_t e = cudaSuccess;
    if (p->dstArray) {
        e = array_side(&p->dstArray, &p->dstPtr, &p->dstPos, &elem);
    }
    if (!e && p->srcArray) {
        e = array_side(&p->srcArray, &p->srcPtr, &p->srcPos, &elem);
    }
    if (!e && elem) {
        /* with an array on either side, the extent's width is elements */
        if (p->extent.width > SIZE_MAX / elem) {
            return cudaErrorInvalidValue;
        }
        p->extent.width *= elem;
    }
    return e;
}
