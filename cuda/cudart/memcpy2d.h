/*
 * cuda/cudart/memcpy2d.h - what copy.c, memcpy2d.c and symbol.c share:
 * copies of one range or of rows (2D and 3D copies, their shape), and the
 * packing of a strided side into the contiguous stand-in that the copy
 * engine moves (memcpy2d.c says why).
 *
 * Every function here is called with the runtime lock held.
 */
#ifndef P2PSIM_CUDA_CUDART_MEMCPY2D_H
#define P2PSIM_CUDA_CUDART_MEMCPY2D_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda/cudart/rt.h"

/*
 * A copy of depth slices of height rows of width bytes; on each side a
 * row starts pitch bytes after the one before and a slice slice bytes
 * after the one before (slice >= height * pitch, pitch >= width).
 */
struct rt_copy_shape {
    uint64_t width, height, depth;
    uint64_t dpitch, dslice;
    uint64_t spitch, sslice;
};

/* Bytes moved. */
static inline uint64_t rt_shape_bytes(const struct rt_copy_shape *s)
{
    return s->width * s->height * s->depth;
}

/* Bytes from a side's first byte to just past its last. */
static inline uint64_t rt_shape_span(const struct rt_copy_shape *s,
                                     uint64_t pitch, uint64_t slice)
{
    return (s->depth - 1) * slice + (s->height - 1) * pitch + s->width;
}

/* Whether a side's rows follow each other without a gap. */
static inline bool rt_shape_contiguous(const struct rt_copy_shape *s,
                                       uint64_t pitch, uint64_t slice)
{
    return rt_shape_span(s, pitch, slice) == rt_shape_bytes(s);
}

/*
 * rt_memcpy_on - (copy.c) a copy on stream h as cudaMemcpy (sync) or
 * cudaMemcpyAsync do, of len bytes, or of rows when shape is not NULL
 * (len: rt_shape_bytes). rt_memcpy_peer: as cudaMemcpyPeer(Async)
 * (legacy: the synchronous form).
 */
cudaError_t rt_memcpy_on(void *dst, const void *src, size_t len,
                         enum cudaMemcpyKind kind, cudaStream_t h, bool sync,
                         const struct rt_copy_shape *shape);
cudaError_t rt_memcpy_peer(void *dst, int ddev, const void *src, int sdev,
                           size_t len, cudaStream_t h, bool legacy,
                           const struct rt_copy_shape *shape);

/*
 * The rows of one side to or from contiguous bytes (memcpy2d.c): in host
 * memory (base: the side's first byte), or in GPU gpu's HBM (base: the
 * HBM offset of its first byte; buf: an HBM offset too). The HBM forms
 * act outside simulated time; 0 or a negative SIM_E* code.
 */
void rt_shape_pack(void *buf, const void *base, uint64_t pitch,
                   uint64_t slice, const struct rt_copy_shape *s);
void rt_shape_unpack(void *base, uint64_t pitch, uint64_t slice,
                     const void *buf, const struct rt_copy_shape *s);
/* Host rows to host rows (a copy between two host sides). */
void rt_shape_copy_host(void *dst, const void *src,
                        const struct rt_copy_shape *s);
int rt_shape_hbm_pack(unsigned gpu, uint64_t buf, uint64_t base,
                      uint64_t pitch, uint64_t slice,
                      const struct rt_copy_shape *s);
int rt_shape_hbm_unpack(unsigned gpu, uint64_t base, uint64_t pitch,
                        uint64_t slice, uint64_t buf,
                        const struct rt_copy_shape *s);

#endif /* P2PSIM_CUDA_CUDART_MEMCPY2D_H */
