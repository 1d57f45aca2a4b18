/*
 * cuda/cudart/memcpy2d.c - pitched allocations (cudaMallocPitch,
 * cudaMalloc3D), copies of rows (cudaMemcpy2D, cudaMemcpy3D,
 * cudaMemcpy3DPeer, their Async and per-thread forms) and sets of rows
 * (cudaMemset2D, cudaMemset3D).
 *
 * Pitch: rows are rounded up to 512 bytes, what cudaMallocPitch returns on
 * recent NVIDIA GPUs (a 100-byte row gets a 512-byte pitch); a multiple of
 * cudaDevAttrTexturePitchAlignment (32, device_props.c), as CUDA's is.
 *
 * Timing. A copy engine moves a 2D or 3D copy as one operation (one
 * setup; its descriptor carries the row length, count and both pitches),
 * its bytes those of the rows. The machine's copies take one contiguous
 * range, so a copy of rows is one machine copy of width x height x depth
 * bytes between contiguous stand-ins: a side whose rows are contiguous is
 * used as it is; a strided one is replaced by HBM of its GPU reserved for
 * the copy (device memory) or by a pinned bounce buffer (host memory),
 * into which its rows are packed when the copy starts, or out of which
 * they are unpacked when it has landed, outside simulated time (copy.c
 * carries this out). So a 2D copy takes the time of the same bytes in one
 * contiguous copy, not one setup per row. Model: rows shorter than a
 * packet are moved in full packets, as if contiguous (a real engine cuts
 * each row into its own, smaller ones); pageable host rows are staged by
 * a host memcpy during the call, as 1D copies of pageable memory are.
 * The stand-in needs free device memory for the duration of the copy.
 *
 * Sets of rows: the same idea with a fill (p2psim_fill) of a stand-in of
 * width x height x depth bytes, then the rows set at its end. Pinned host
 * targets are set at the operation's time; managed ones after a touch of
 * their span by the stream's device (the fill of its copy not timed).
 */
#include <config.h>

#include "cuda/cudart/memcpy2d.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/graph_int.h"
#include "cuda/cudart/managed.h"
#include "cuda/cudart/memory_int.h"
#include "cuda/cudart/texture_int.h"
#include "sim/error.h"

/* The pitch of cudaMallocPitch and cudaMalloc3D, bytes. */
#define PITCH_ALIGN_BYTES UINT64_C(512)

/* ---- rows --------------------------------------------------------------------- */

/* Offset of row r (counted over all slices) from a side's first byte. */
static uint64_t row_off(const struct rt_copy_shape *s, uint64_t pitch,
                        uint64_t slice, uint64_t r)
{
    return (r / s->height) * slice + (r % s->height) * pitch;
}

static uint64_t n_rows(const struct rt_copy_shape *s)
{
    return s->height * s->depth;
}

void rt_shape_pack(void *buf, const void *base, uint64_t pitch,
                   uint64_t slice, const struct rt_copy_shape *s)
{
    for (uint64_t r = 0; r < n_rows(s); r++) {
        memcpy((uint8_t *)buf + r * s->width,
               (const uint8_t *)base + row_off(s, pitch, slice, r), s->width);
    }
}

void rt_shape_unpack(void *base, uint64_t pitch, uint64_t slice,
                     const void *buf, const struct rt_copy_shape *s)
{
    for (uint64_t r = 0; r < n_rows(s); r++) {
        memcpy((uint8_t *)base + row_off(s, pitch, slice, r),
               (const uint8_t *)buf + r * s->width, s->width);
    }
}

void rt_shape_copy_host(void *dst, const void *src,
                        const struct rt_copy_shape *s)
{
    for (uint64_t r = 0; r < n_rows(s); r++) {
        memmove((uint8_t *)dst + row_off(s, s->dpitch, s->dslice, r),
                (const uint8_t *)src + row_off(s, s->spitch, s->sslice, r),
                s->width);
    }
}

int rt_shape_hbm_pack(unsigned gpu, uint64_t buf, uint64_t base,
                      uint64_t pitch, uint64_t slice,
                      const struct rt_copy_shape *s)
{
    uint64_t len = rt_shape_bytes(s);
    uint8_t *tmp = malloc(len);
    int rc = tmp ? 0 : -SIM_ENOMEM;
    for (uint64_t r = 0; rc == 0 && r < n_rows(s); r++) {
        rc = rt_machine->hbm_read(gpu, base + row_off(s, pitch, slice, r),
                                  tmp + r * s->width, s->width);
    }
    if (rc == 0) {
        rc = rt_machine->hbm_write(gpu, buf, tmp, len);
    }
    free(tmp);
    return rc;
}

int rt_shape_hbm_unpack(unsigned gpu, uint64_t base, uint64_t pitch,
                        uint64_t slice, uint64_t buf,
                        const struct rt_copy_shape *s)
{
    uint64_t len = rt_shape_bytes(s);
    uint8_t *tmp = malloc(len);
    int rc = tmp ? rt_machine->hbm_read(gpu, buf, tmp, len) : -SIM_ENOMEM;
    for (uint64_t r = 0; rc == 0 && r < n_rows(s); r++) {
        rc = rt_machine->hbm_write(gpu, base + row_off(s, pitch, slice, r),
                                   tmp + r * s->width, s->width);
    }
    free(tmp);
    return rc;
}

/* ---- pitched allocations -------------------------------------------------------- */

static cudaError_t pitch_alloc(void **ptr, size_t *pitch, size_t width,
                               size_t rows)
{
    rt_charge_cost(RT_COST_MALLOC);
    if (!ptr || !pitch || width > (size_t)INT_MAX) {
        return cudaErrorInvalidValue;   /* past cudaDevAttrMaxPitch */
    }
    uint64_t p = round_up(width, PITCH_ALIGN_BYTES), size;
    if (__builtin_mul_overflow(p, (uint64_t)rows, &size)) {
        return cudaErrorMemoryAllocation;
    }
    *pitch = (size_t)p;
    if (size == 0) {
        *ptr = NULL;            /* as cudaMalloc(&p, 0) */
        return cudaSuccess;
    }
    int dev = rt_current_device();
    cudaError_t e = rt_device_init(dev);
    return e ? e : mem_device_alloc(dev, size, NULL, ptr);
}

cudaError_t CUDARTAPI cudaMallocPitch(void **devPtr, size_t *pitch,
                                      size_t width, size_t height)
{
    RT_SERVE(RT_NO_COST, pitch_alloc(devPtr, pitch, width, height));
}

static cudaError_t alloc_3d(struct cudaPitchedPtr *pp, struct cudaExtent ext)
{
    size_t rows;
    if (!pp) {
        return cudaErrorInvalidValue;
    }
    if (__builtin_mul_overflow(ext.height, ext.depth, &rows)) {
        return cudaErrorMemoryAllocation;
    }
    void *ptr = NULL;
    size_t pitch = 0;
    cudaError_t e = pitch_alloc(&ptr, &pitch, ext.width, rows);
    if (!e) {
        pp->ptr = ptr;
        pp->pitch = pitch;
        pp->xsize = ext.width;
        pp->ysize = ext.height;
    }
    return e;
}

cudaError_t CUDARTAPI cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr,
                                   struct cudaExtent extent)
{
    RT_SERVE(RT_NO_COST, alloc_3d(pitchedDevPtr, extent));
}

/* ---- copies of rows --------------------------------------------------------------- */

/* The shape of a 2D copy; 0, or cudaErrorInvalidPitchValue. */
static cudaError_t shape_2d(struct rt_copy_shape *s, size_t dpitch,
                            size_t spitch, size_t width, size_t height)
{
    if (dpitch < width || spitch < width) {
        return cudaErrorInvalidPitchValue;
    }
    *s = (struct rt_copy_shape){ .width = width, .height = height,
                                 .depth = 1, .dpitch = dpitch,
                                 .dslice = dpitch * height, .spitch = spitch,
                                 .sslice = spitch * height };
    return cudaSuccess;
}

/* ---- stream capture ---------------------------------------------------------- */

/*
 * The Async forms on a capturing stream add a node to its graph instead
 * of queueing (graph_capture.c): a memcpy node of the 3D parameters, a
 * memset node of one-byte elements. True when h is capturing (*e: the
 * call's result).
 */
static cudaError_t fill_copy(cudaGraphNode_t n, const void *arg)
{
    n->u.copy = *(const struct cudaMemcpy3DParms *)arg;
    return graph_copy_check(arg);
}

static cudaError_t fill_set(cudaGraphNode_t n, const void *arg)
{
    n->u.set = *(const struct cudaMemsetParams *)arg;
    return graph_set_check(arg);
}

static bool capture(enum cudaGraphNodeType type, const void *params,
                    cudaStream_t h, cudaError_t *e)
{
    struct rt_stream *s = rt_stream_resolve(h, -1);
    if (!s || !graph_capturing(s)) {
        return false;
    }
    *e = graph_capture_node(s, type,
                            type == cudaGraphNodeTypeMemcpy ? fill_copy
                                                            : fill_set,
                            params);
    return true;
}

/* A 2D copy as a cudaMemcpy (sync) or cudaMemcpyAsync. */
static cudaError_t copy_2d(void *dst, size_t dpitch, const void *src,
                           size_t spitch, size_t width, size_t height,
                           enum cudaMemcpyKind kind, cudaStream_t h, bool sync)
{
    struct rt_copy_shape s;
    cudaError_t e = shape_2d(&s, dpitch, spitch, width, height);
    uint64_t span;
    if (e || width == 0 || height == 0) {
        return e;
    }
    if (__builtin_mul_overflow(dpitch, height, &span) ||
        __builtin_mul_overflow(spitch, height, &span)) {
        return cudaErrorInvalidValue;
    }
    struct cudaMemcpy3DParms p = {
        .srcPtr = { (void *)src, spitch, width, height },
        .dstPtr = { dst, dpitch, width, height },
        .extent = { width, height, 1 },
        .kind = kind,
    };
    if (!sync && capture(cudaGraphNodeTypeMemcpy, &p, h, &e)) {
        return e;
    }
    return rt_memcpy_on(dst, src, rt_shape_bytes(&s), kind, h, sync, &s);
}

cudaError_t CUDARTAPI cudaMemcpy2D(void *dst, size_t dpitch, const void *src,
                                   size_t spitch, size_t width, size_t height,
                                   enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, copy_2d(dst, dpitch, src, spitch, width, height,
                                 kind, NULL, true));
}

cudaError_t CUDARTAPI cudaMemcpy2D_ptds(void *dst, size_t dpitch,
                                        const void *src, size_t spitch,
                                        size_t width, size_t height,
                                        enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, copy_2d(dst, dpitch, src, spitch, width, height,
                                 kind, cudaStreamPerThread, true));
}

cudaError_t CUDARTAPI cudaMemcpy2DAsync(void *dst, size_t dpitch,
                                        const void *src, size_t spitch,
                                        size_t width, size_t height,
                                        enum cudaMemcpyKind kind,
                                        cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, copy_2d(dst, dpitch, src, spitch, width, height,
                                 kind, stream, false));
}

cudaError_t CUDARTAPI cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch,
                                             const void *src, size_t spitch,
                                             size_t width, size_t height,
                                             enum cudaMemcpyKind kind,
                                             cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, copy_2d(dst, dpitch, src, spitch, width, height,
                                 kind, stream ? stream : cudaStreamPerThread,
                                 false));
}

/*
 * One side of a 3D copy, extent big at pos in pp: its first byte, pitch
 * and slice pitch (pitch x ysize). A pitch below the width is
 * cudaErrorInvalidPitchValue; a position or extent outside the pitched
 * memory (x beyond the pitch; y beyond ysize where slices follow) is
 * cudaErrorInvalidValue.
 */
static cudaError_t side_3d(const struct cudaPitchedPtr *pp,
                           const struct cudaPos *pos,
                           const struct cudaExtent *ext, void **first,
                           uint64_t *pitch, uint64_t *slice)
{
    uint64_t end, at;
    if (!pp->ptr) {
        return cudaErrorInvalidValue;
    }
    if (pp->pitch < ext->width) {
        return cudaErrorInvalidPitchValue;
    }
    if (__builtin_add_overflow(pos->x, ext->width, &end) || end > pp->pitch) {
        return cudaErrorInvalidValue;
    }
    bool slices = ext->depth > 1 || pos->z > 0;
    if (slices && (__builtin_add_overflow(pos->y, ext->height, &end) ||
                   end > pp->ysize)) {
        return cudaErrorInvalidValue;
    }
    *pitch = pp->pitch;
    if (__builtin_mul_overflow((uint64_t)pp->pitch,
                               slices ? (uint64_t)pp->ysize
                                      : (uint64_t)ext->height, slice) ||
        __builtin_mul_overflow(*slice, (uint64_t)pos->z + ext->depth, &end) ||
        __builtin_mul_overflow(*slice, (uint64_t)pos->z, &at) ||
        __builtin_add_overflow(at, (uint64_t)pos->y * pp->pitch + pos->x,
                               &at)) {
        return cudaErrorInvalidValue;
    }
    *first = (uint8_t *)pp->ptr + at;
    return cudaSuccess;
}

/* Say once that CUDA arrays are not served. */
static cudaError_t no_arrays(const char *call)
{
    static bool said;
    if (!said) {
        said = true;
        fprintf(stderr, "p2psim: %s with a CUDA array is not served (arrays "
                        "are not modelled): cudaErrorNotSupported\n", call);
    }
    return cudaErrorNotSupported;
}

/* The shape and first bytes of a 3D copy from its parameters. */
static cudaError_t shape_3d(struct rt_copy_shape *s,
                            const struct cudaPitchedPtr *dp,
                            const struct cudaPos *dpos,
                            const struct cudaPitchedPtr *sp,
                            const struct cudaPos *spos,
                            const struct cudaExtent *ext, void **dst,
                            void **src)
{
    uint64_t bytes;
    if (__builtin_mul_overflow((uint64_t)ext->width, (uint64_t)ext->height,
                               &bytes) ||
        __builtin_mul_overflow(bytes, (uint64_t)ext->depth, &bytes)) {
        return cudaErrorInvalidValue;
    }
    *s = (struct rt_copy_shape){ .width = ext->width, .height = ext->height,
                                 .depth = ext->depth };
    cudaError_t e = side_3d(dp, dpos, ext, dst, &s->dpitch, &s->dslice);
    if (!e) {
        e = side_3d(sp, spos, ext, src, &s->spitch, &s->sslice);
    }
    return e;
}

static cudaError_t copy_3d(const struct cudaMemcpy3DParms *p, cudaStream_t h,
                           bool sync)
{
    struct rt_copy_shape s;
    void *dst, *src;
    cudaError_t e;
    if (!p) {
        return cudaErrorInvalidValue;
    }
    if (!sync && capture(cudaGraphNodeTypeMemcpy, p, h, &e)) {
        return e;
    }
    struct cudaMemcpy3DParms q;
    if (p->srcArray || p->dstArray) {
        /* an array is pitched memory of its own (array.c) */
        q = *p;
        e = rt_array_3d_parms(&q);
        if (e) {
            return e;
        }
        p = &q;
    }
    if (!p->extent.width || !p->extent.height || !p->extent.depth) {
        return cudaSuccess;
    }
    e = shape_3d(&s, &p->dstPtr, &p->dstPos, &p->srcPtr, &p->srcPos,
                 &p->extent, &dst, &src);
    return e ? e : rt_memcpy_on(dst, src, rt_shape_bytes(&s), p->kind, h,
                                sync, &s);
}

cudaError_t CUDARTAPI cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    RT_SERVE(RT_NO_COST, copy_3d(p, NULL, true));
}

cudaError_t CUDARTAPI cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p)
{
    RT_SERVE(RT_NO_COST, copy_3d(p, cudaStreamPerThread, true));
}

cudaError_t CUDARTAPI cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p,
                                        cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, copy_3d(p, stream, false));
}

cudaError_t CUDARTAPI cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p,
                                             cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST,
             copy_3d(p, stream ? stream : cudaStreamPerThread, false));
}

/* As cudaMemcpyPeer(Async) (legacy: the synchronous form), of rows. */
static cudaError_t copy_3d_peer(const struct cudaMemcpy3DPeerParms *p,
                                cudaStream_t h, bool legacy)
{
    struct rt_copy_shape s;
    void *dst, *src;
    if (!p) {
        return cudaErrorInvalidValue;
    }
    if (p->srcArray || p->dstArray) {
        return no_arrays("cudaMemcpy3DPeer");
    }
    if (!rt_device_valid(p->srcDevice) || !rt_device_valid(p->dstDevice)) {
        return cudaErrorInvalidDevice;
    }
    if (!p->extent.width || !p->extent.height || !p->extent.depth) {
        return cudaSuccess;
    }
    cudaError_t e = shape_3d(&s, &p->dstPtr, &p->dstPos, &p->srcPtr,
                             &p->srcPos, &p->extent, &dst, &src);
    return e ? e : rt_memcpy_peer(dst, p->dstDevice, src, p->srcDevice,
                                  rt_shape_bytes(&s), h, legacy, &s);
}

cudaError_t CUDARTAPI cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p)
{
    RT_SERVE(RT_NO_COST, copy_3d_peer(p, NULL, true));
}

cudaError_t CUDARTAPI
cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p)
{
    RT_SERVE(RT_NO_COST, copy_3d_peer(p, cudaStreamPerThread, true));
}

cudaError_t CUDARTAPI
cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p,
                      cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, copy_3d_peer(p, stream, false));
}

cudaError_t CUDARTAPI
cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p,
                           cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, copy_3d_peer(p, stream ? stream : cudaStreamPerThread,
                                      false));
}

/* ---- sets of rows ---------------------------------------------------------------- */

struct set_op {
    struct rt_op op;            /* first */
    struct rt_alloc *a;
    uint64_t off;               /* of the first byte, from a->base */
    struct rt_copy_shape s;     /* the destination side's (dpitch, dslice) */
    uint8_t value;
    int dev;                    /* the stream's device */
    int scratch_gpu;            /* a strided device target's stand-in; -1 */
    uint64_t scratch;
};

static void set_release(struct rt_op *op)
{
    struct set_op *m = (struct set_op *)op;
    if (m->scratch_gpu >= 0) {
        rt_window_release(m->scratch_gpu, m->scratch, rt_shape_bytes(&m->s));
    }
}

/* Host rows (pinned, managed: the host mapping holds the bytes) now. */
static void set_host_now(void *arg)
{
    struct set_op *m = arg;
    uint8_t *base = (uint8_t *)m->a->base + m->off;
    for (uint64_t r = 0; r < n_rows(&m->s); r++) {
        memset(base + row_off(&m->s, m->s.dpitch, m->s.dslice, r), m->value,
               m->s.width);
    }
    rt_op_done(&m->op, cudaSuccess);
}

static void set_touched(void *arg, int status)
{
    struct set_op *m = arg;
    if (status) {
        rt_op_done(&m->op, status);
        return;
    }
    set_host_now(m);
}

/* The fill has landed: in place, or in the stand-in, then the rows. */
static void set_filled(void *arg, const struct p2psim_copy_result *r)
{
    struct set_op *m = arg;
    int rc = r->status;
    if (!rc && m->scratch_gpu >= 0) {
        struct p2psim_loc l = rt_alloc_loc(m->a, m->off);
        rc = rt_shape_hbm_unpack(l.gpu, l.addr, m->s.dpitch, m->s.dslice,
                                 m->scratch, &m->s);
    }
    rt_op_done(&m->op, rc == -SIM_ENOMEM ? cudaErrorMemoryAllocation
                       : rc             ? cudaErrorUnknown
                                        : cudaSuccess);
}

static void set_start(struct rt_op *op, sim_time_t at)
{
    struct set_op *m = (struct set_op *)op;
    uint64_t len = rt_shape_bytes(&m->s);
    int rc = 0;
    switch (m->a->kind) {
    case RT_MEM_DEVICE: {
        struct p2psim_loc l = rt_alloc_loc(m->a, m->off);
        rc = rt_machine->fill(l.gpu, m->scratch_gpu >= 0 ? m->scratch : l.addr,
                              m->value, len, at, set_filled, m);
        break;
    }
    case RT_MEM_HOST:
        rc = rt_machine->timer(at, set_host_now, m);
        break;
    case RT_MEM_MANAGED: {
        uint64_t span = rt_shape_span(&m->s, m->s.dpitch, m->s.dslice);
        cudaError_t e = rt_managed_touch(m->a, m->off, span, m->dev, at,
                                         set_touched, m);
        if (e) {
            rt_op_done(op, e);
        }
        return;
    }
    }
    if (rc < 0) {
        rt_op_done(op, rc == -SIM_ENOMEM ? cudaErrorMemoryAllocation
                                         : cudaErrorUnknown);
    }
}

/*
 * Set the rows of shape s (its d side) at ptr to value on stream h; sync:
 * cudaMemset2D/3D, which wait when the target is pinned or managed
 * memory, as cudaMemset does.
 */
static cudaError_t set_queue(void *ptr, int value,
                             const struct rt_copy_shape *s, cudaStream_t h,
                             bool sync)
{
    /* [estimate] as cudaMemset: a launch's host cost. */
    rt_charge_cost(RT_COST_LAUNCH);
    if (!s->width || !s->height || !s->depth) {
        return cudaSuccess;
    }
    struct rt_ptr w;
    rt_ptr_find(ptr, &w);
    if (w.where == RT_WHERE_PAGEABLE ||
        rt_shape_span(s, s->dpitch, s->dslice) > w.avail) {
        return cudaErrorInvalidValue;
    }
    struct rt_stream *st = rt_stream_resolve(h, -1);
    if (!st) {
        return cudaErrorInvalidResourceHandle;
    }
    struct set_op *m = (struct set_op *)rt_op_alloc(sizeof(*m), "memset",
                                                    set_start);
    if (!m) {
        return cudaErrorMemoryAllocation;
    }
    m->op.release = set_release;
    m->a = w.alloc;
    m->off = w.off;
    m->s = *s;
    m->value = (uint8_t)value;
    m->dev = rt_stream_device(st);
    m->scratch_gpu = -1;
    cudaError_t e = cudaSuccess;
    if (w.where == RT_WHERE_DEVICE &&
        !rt_shape_contiguous(s, s->dpitch, s->dslice)) {
        struct p2psim_loc l = rt_alloc_loc(w.alloc, w.off);
        e = rt_window_reserve((int)l.gpu, rt_shape_bytes(s), &m->scratch);
        if (!e) {
            m->scratch_gpu = (int)l.gpu;
        }
    }
    if (e) {
        rt_op_discard(&m->op);
        return e;
    }
    bool wait = sync && w.where != RT_WHERE_DEVICE;
    struct rt_fence *f = wait ? rt_fence_ref(m->op.fence) : NULL;
    e = rt_enqueue(st, &m->op);
    if (f) {
        if (e == cudaSuccess) {
            e = rt_wait(rt_fence_done, f, SIM_TIME_MAX);
            if (e == cudaSuccess) {
                e = (cudaError_t)f->status;
            }
        }
        rt_fence_put(f);
    }
    return e;
}

/* pitch is unused for a single row (CUDA's rule). */
static cudaError_t set_2d(void *ptr, size_t pitch, int value, size_t width,
                          size_t height, cudaStream_t h, bool sync)
{
    uint64_t span;
    if (height <= 1) {
        pitch = width;
    }
    if (pitch < width || __builtin_mul_overflow(pitch, height, &span)) {
        return cudaErrorInvalidValue;
    }
    struct rt_copy_shape s = { .width = width, .height = height, .depth = 1,
                               .dpitch = pitch, .dslice = span };
    struct cudaMemsetParams mp = { ptr, pitch, (unsigned)value & 0xff, 1,
                                   width, height };
    cudaError_t e;
    if (!sync && width && height &&
        capture(cudaGraphNodeTypeMemset, &mp, h, &e)) {
        return e;
    }
    return set_queue(ptr, value, &s, h, sync);
}

static cudaError_t set_3d(struct cudaPitchedPtr pp, int value,
                          struct cudaExtent ext, cudaStream_t h, bool sync)
{
    uint64_t slice, span;
    if (ext.width > pp.pitch ||
        (ext.depth > 1 && ext.height > pp.ysize) ||
        __builtin_mul_overflow((uint64_t)pp.pitch,
                               ext.depth > 1 ? (uint64_t)pp.ysize
                                             : (uint64_t)ext.height,
                               &slice) ||
        __builtin_mul_overflow(slice, (uint64_t)ext.depth, &span)) {
        return cudaErrorInvalidValue;
    }
    struct rt_copy_shape s = { .width = ext.width, .height = ext.height,
                               .depth = ext.depth, .dpitch = pp.pitch,
                               .dslice = slice };
    return set_queue(pp.ptr, value, &s, h, sync);
}

cudaError_t CUDARTAPI cudaMemset2D(void *devPtr, size_t pitch, int value,
                                   size_t width, size_t height)
{
    RT_SERVE(RT_NO_COST, set_2d(devPtr, pitch, value, width, height, NULL,
                                true));
}

cudaError_t CUDARTAPI cudaMemset2D_ptds(void *devPtr, size_t pitch, int value,
                                        size_t width, size_t height)
{
    RT_SERVE(RT_NO_COST, set_2d(devPtr, pitch, value, width, height,
                                cudaStreamPerThread, true));
}

cudaError_t CUDARTAPI cudaMemset2DAsync(void *devPtr, size_t pitch, int value,
                                        size_t width, size_t height,
                                        cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, set_2d(devPtr, pitch, value, width, height, stream,
                                false));
}

cudaError_t CUDARTAPI cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch,
                                             int value, size_t width,
                                             size_t height,
                                             cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, set_2d(devPtr, pitch, value, width, height,
                                stream ? stream : cudaStreamPerThread, false));
}

cudaError_t CUDARTAPI cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr,
                                   int value, struct cudaExtent extent)
{
    RT_SERVE(RT_NO_COST, set_3d(pitchedDevPtr, value, extent, NULL, true));
}

cudaError_t CUDARTAPI cudaMemset3D_ptds(struct cudaPitchedPtr pitchedDevPtr,
                                        int value, struct cudaExtent extent)
{
    RT_SERVE(RT_NO_COST, set_3d(pitchedDevPtr, value, extent,
                                cudaStreamPerThread, true));
}

cudaError_t CUDARTAPI cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr,
                                        int value, struct cudaExtent extent,
                                        cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, set_3d(pitchedDevPtr, value, extent, stream, false));
}

cudaError_t CUDARTAPI cudaMemset3DAsync_ptsz(
    struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent,
    cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, set_3d(pitchedDevPtr, value, extent,
                                stream ? stream : cudaStreamPerThread, false));
}
