/*
 * cuda/cudart/copy.c - cudaMemcpy, cudaMemcpyAsync, cudaMemcpyPeer(Async):
 * copies as operations on streams, carried out by the simulated machine
 * (p2psim_copy), moving the program's own bytes.
 *
 * Where the bytes are comes from the pointers (unified addressing,
 * rt_ptr_find): device memory, pinned host memory (registered with the
 * machine, so the copy engines read and write it in place), managed
 * memory, or pageable memory, which goes through a pinned bounce buffer as
 * the driver stages it: host to device, the program's bytes are copied
 * into the bounce buffer during the call (charging the host memcpy);
 * device to host, they are copied out when the DMA has landed.
 *
 * An explicit kind must agree with the pointers (a device pointer where
 * the kind says host, or a host pointer where it says device, is
 * cudaErrorInvalidValue); cudaMemcpyDefault takes the direction from the
 * pointers. shared/reference/cuda-api.md §2.3 notes the real runtime's
 * behaviour on a contradicting kind was not verified; refusing it is the
 * choice that never silently copies the wrong way.
 *
 * GPU to GPU: the copy runs on the copy engines of the stream's device.
 * With peer access from that device to the other one, it goes directly:
 * the source pushes (writes) into the destination's BAR1, or the
 * destination pulls (reads) from the source's. Without peer access in
 * either direction it is staged through pinned host memory in pipelined
 * chunks (machine/exec.c), as the driver does.
 *
 * Copies of rows (2D and 3D, memcpy2d.c) are the same operation with a
 * shape: a strided side is replaced by a contiguous stand-in (HBM of its
 * GPU, or a pinned bounce buffer for host memory) that its rows are
 * packed into when the copy starts or unpacked from when it has landed.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/graph_int.h"
#include "cuda/cudart/managed.h"
#include "cuda/cudart/memcpy2d.h"
#include "cuda/cudart/memory.h"
#include "cuda/cudart/rt.h"
#include "cuda/include/p2psim_cudart_internal.h"
#include "sim/error.h"

/* [estimate] host memcpy into or out of a bounce buffer: 20 GB/s, a
 * single-threaded copy on a server CPU. */
#define HOST_MEMCPY_BPS 20e9

struct copy_op {
    struct rt_op op;
    struct p2psim_loc dst, src;
    uint64_t len;
    unsigned flags;             /* P2PSIM_COPY_* */
    bool gpu_pair;              /* between two different GPUs */
    /* pageable memory */
    void *bounce;
    uint64_t bounce_bus;
    void *copy_out;             /* device to pageable: the program's buffer */
    /* managed sides: copied where they are resident (managed.h) */
    struct rt_alloc *m_dst, *m_src;
    uint64_t m_dst_off, m_src_off;
    struct rt_managed_span span_dst, span_src;
    /* host to host */
    void *h_dst;
    const void *h_src;
    /* rows (memcpy2d.h): copy_in/copy_out pack into or unpack from the
     * bounce buffer along the shape; a strided device side stands in at
     * HBM offset scratch of GPU gpu (-1: none) for its rows at base */
    const struct rt_copy_shape *shape;
    struct rt_copy_shape shape_;
    const void *copy_in;        /* pinned or managed source, at the start */
    struct { int gpu; uint64_t scratch, base; } hbm_src, hbm_dst;
};

static sim_time_t host_memcpy_time(uint64_t len)
{
    return (sim_time_t)((double)len / HOST_MEMCPY_BPS * (double)SIM_PS_PER_S);
}

/* The bounce buffer to and from the program's bytes, along the shape. */
static void bounce_in(struct copy_op *c, const void *src)
{
    if (c->shape) {
        rt_shape_pack(c->bounce, src, c->shape->spitch, c->shape->sslice,
                      c->shape);
    } else {
        memcpy(c->bounce, src, c->len);
    }
}

static void bounce_out(struct copy_op *c)
{
    if (c->shape) {
        rt_shape_unpack(c->copy_out, c->shape->dpitch, c->shape->dslice,
                        c->bounce, c->shape);
    } else {
        memcpy(c->copy_out, c->bounce, c->len);
    }
}

static void copy_release(struct rt_op *op)
{
    struct copy_op *c = (struct copy_op *)op;
    if (c->hbm_src.gpu >= 0) {
        rt_window_release(c->hbm_src.gpu, c->hbm_src.scratch, c->len);
    }
    if (c->hbm_dst.gpu >= 0) {
        rt_window_release(c->hbm_dst.gpu, c->hbm_dst.scratch, c->len);
    }
    if (c->bounce) {
        rt_machine->host_unregister(c->bounce_bus);
        rt_machine->host_free(c->bounce, c->len);
    }
}

static void copy_done(void *arg, const struct p2psim_copy_result *r)
{
    struct copy_op *c = arg;
    if (c->gpu_pair) {
        if (r->staged) {
            rt.n_copies_staged++;
            rt.bytes_staged += c->len;
        } else {
            rt.n_copies_p2p++;
            rt.bytes_p2p += c->len;
        }
    }
    if (c->m_src) {
        rt_managed_span_end(c->m_src, c->m_src_off, c->len, false,
                            &c->span_src);
    }
    if (c->m_dst) {
        rt_managed_span_end(c->m_dst, c->m_dst_off, c->len, r->status == 0,
                            &c->span_dst);
    }
    cudaError_t unpacked = cudaSuccess;
    if (c->hbm_dst.gpu >= 0 && r->status == 0 &&
        rt_shape_hbm_unpack((unsigned)c->hbm_dst.gpu, c->hbm_dst.base,
                            c->shape->dpitch, c->shape->dslice,
                            c->hbm_dst.scratch, c->shape) < 0) {
        unpacked = cudaErrorMemoryAllocation;
    }
    if (c->copy_out && r->status == 0) {
        bounce_out(c);
    }
    /* Model: an error completion or fault under a copy is what the GPU
     * reports as an illegal address (sticky). */
    rt_op_done(&c->op, r->status ? cudaErrorIllegalAddress : unpacked);
}

static void h2h_fire(void *arg)
{
    struct copy_op *c = arg;
    if (c->shape) {
        rt_shape_copy_host(c->h_dst, c->h_src, c->shape);
    } else {
        memmove(c->h_dst, c->h_src, c->len);
    }
    rt_op_done(&c->op, 0);
}

static void copy_start(struct rt_op *op, sim_time_t at)
{
    struct copy_op *c = (struct copy_op *)op;
    if (c->h_dst) {
        if (rt_machine->timer(sim_time_add(at, host_memcpy_time(c->len)),
                              h2h_fire, c) < 0) {
            rt_op_done(op, cudaErrorMemoryAllocation);
        }
        return;
    }
    if (c->copy_in) {
        bounce_in(c, c->copy_in);
    }
    if (c->hbm_src.gpu >= 0 &&
        rt_shape_hbm_pack((unsigned)c->hbm_src.gpu, c->hbm_src.scratch,
                          c->hbm_src.base, c->shape->spitch,
                          c->shape->sslice, c->shape) < 0) {
        rt_op_done(op, cudaErrorMemoryAllocation);
        return;
    }
    if (c->m_src) {
        rt_managed_span_begin(c->m_src, c->m_src_off, c->len, true,
                              &c->span_src);
        c->src = c->span_src.loc;
    }
    if (c->m_dst) {
        rt_managed_span_begin(c->m_dst, c->m_dst_off, c->len, false,
                              &c->span_dst);
        c->dst = c->span_dst.loc;
    }
    int rc = rt_machine->copy(&c->dst, &c->src, c->len, c->flags, at,
                              op->after, copy_done, c, &op->copy_id);
    if (rc < 0) {
        rt_op_done(op, rc == -SIM_ENOMEM ? cudaErrorMemoryAllocation
                                         : cudaErrorInvalidValue);
    }
}

/* One side of a copy, resolved. */
struct side {
    const void *ptr;
    struct rt_ptr p;
    bool device;                /* device memory */
    bool pinned;                /* pinned host or managed: has a bus address */
};

static cudaError_t side_resolve(struct side *s, const void *ptr, size_t len)
{
    s->ptr = ptr;
    rt_ptr_find(ptr, &s->p);
    s->device = s->p.where == RT_WHERE_DEVICE;
    s->pinned = s->p.where == RT_WHERE_HOST || s->p.where == RT_WHERE_MANAGED;
    if (s->p.where == RT_WHERE_PAGEABLE && rt_ptr_window(ptr) >= 0) {
        return cudaErrorInvalidValue; /* inside a GPU window, not allocated */
    }
    if ((s->device || s->pinned) && len > s->p.avail) {
        return cudaErrorInvalidValue; /* runs past the allocation */
    }
    return cudaSuccess;
}

static cudaError_t check_kind(enum cudaMemcpyKind kind, const struct side *d,
                              const struct side *s)
{
    bool managed_d = d->p.where == RT_WHERE_MANAGED;
    bool managed_s = s->p.where == RT_WHERE_MANAGED;
    switch (kind) {
    case cudaMemcpyHostToHost:
        return d->device || s->device ? cudaErrorInvalidValue : cudaSuccess;
    case cudaMemcpyHostToDevice:
        return s->device || !(d->device || managed_d) ? cudaErrorInvalidValue
                                                      : cudaSuccess;
    case cudaMemcpyDeviceToHost:
        return d->device || !(s->device || managed_s) ? cudaErrorInvalidValue
                                                      : cudaSuccess;
    case cudaMemcpyDeviceToDevice:
        return !(d->device || managed_d) || !(s->device || managed_s)
                   ? cudaErrorInvalidValue
                   : cudaSuccess;
    case cudaMemcpyDefault:
        return cudaSuccess;
    }
    return cudaErrorInvalidMemcpyDirection;
}

static bool access_ok(int from, int to, const struct rt_alloc *target)
{
    return rt.dev[from].peer_enabled[to] ||
           (target && rt_alloc_peer_ok(target, from));
}

/* Register a pinned bounce buffer for a pageable side on GPU gpu. */
static cudaError_t bounce_new(struct copy_op *c, unsigned gpu)
{
    c->bounce = rt_machine->host_alloc(c->len);
    if (!c->bounce) {
        return cudaErrorMemoryAllocation;
    }
    if (rt_machine->host_register(c->bounce, c->len,
                                  p2psim_gpu_socket(rt.p, gpu),
                                  &c->bounce_bus) < 0) {
        rt_machine->host_free(c->bounce, c->len);
        c->bounce = NULL;
        return cudaErrorMemoryAllocation;
    }
    return cudaSuccess;
}

/*
 * Build and enqueue a copy on s. *wait: the call must wait for it (a
 * synchronous case). after[]: more fences it must follow (NULLs are
 * skipped). Returns the op's fence (referenced) in *fence when the caller
 * must wait for it, else NULL.
 */
/*
 * A strided device side of a copy of rows: HBM of its GPU for the copy
 * engine to move instead (rows at the HBM offset of loc), *at its place.
 */
static cudaError_t scratch_new(struct copy_op *c, struct p2psim_loc *at,
                               int *gpu, uint64_t *scratch, uint64_t *base)
{
    cudaError_t e = rt_window_reserve((int)at->gpu, c->len, scratch);
    if (!e) {
        *gpu = (int)at->gpu;
        *base = at->addr;
        at->addr = *scratch;
    }
    return e;
}

static cudaError_t copy_enqueue(void *dst, const void *src, size_t len,
                                enum cudaMemcpyKind kind,
                                struct rt_stream *s, bool sync,
                                struct rt_fence *const *after,
                                unsigned n_after, struct rt_fence **fence,
                                const struct rt_copy_shape *shape)
{
    *fence = NULL;
    if ((unsigned)kind > cudaMemcpyDefault) {
        return cudaErrorInvalidMemcpyDirection;
    }
    if (len == 0) {
        return cudaSuccess;
    }
    if (!dst || !src) {
        return cudaErrorInvalidValue;
    }
    /* Rows: each side must hold its whole span; a contiguous one is an
     * ordinary range. */
    uint64_t dspan = shape ? rt_shape_span(shape, shape->dpitch,
                                           shape->dslice) : len;
    uint64_t sspan = shape ? rt_shape_span(shape, shape->spitch,
                                           shape->sslice) : len;
    bool dstride = dspan != len, sstride = sspan != len;
    struct side d, sr;
    cudaError_t e = side_resolve(&d, dst, dspan);
    if (!e) {
        e = side_resolve(&sr, src, sspan);
    }
    if (!e) {
        e = check_kind(kind, &d, &sr);
    }
    if (e) {
        return e;
    }
    struct copy_op *c = (struct copy_op *)rt_op_alloc(sizeof(*c), "memcpy",
                                                     copy_start);
    if (!c) {
        return cudaErrorMemoryAllocation;
    }
    c->op.release = copy_release;
    c->len = len;
    c->hbm_src.gpu = c->hbm_dst.gpu = -1;
    if (dstride || sstride) {
        c->shape_ = *shape;
        c->shape = &c->shape_;
    }
    bool must_wait = sync;
    int sdev = rt_stream_device(s);
    sim_time_t cost = rt_costs[RT_COST_MEMCPY_ASYNC_H2D];
    if (!d.device && !sr.device) {
        /* Host to host: a memcpy by the host, in stream order. */
        c->h_dst = dst;
        c->h_src = src;
        must_wait = true;
    } else {
        if (sstride && sr.device) {
            c->src = rt_alloc_loc(sr.p.alloc, sr.p.off);
            e = scratch_new(c, &c->src, &c->hbm_src.gpu, &c->hbm_src.scratch,
                            &c->hbm_src.base);
        } else if (sstride && sr.pinned) {
            /* Packed into a bounce buffer when the copy starts. */
            e = bounce_new(c, (unsigned)d.p.device);
            c->copy_in = src;
            c->src = (struct p2psim_loc){ P2PSIM_HOST, 0, c->bounce_bus };
        } else if (sr.device || sr.pinned) {
            c->src = rt_alloc_loc(sr.p.alloc, sr.p.off);
            if (sr.p.where == RT_WHERE_MANAGED) {
                c->m_src = sr.p.alloc;
                c->m_src_off = sr.p.off;
            }
        } else {
            /* Pageable source: staged into a bounce buffer now. */
            e = bounce_new(c, (unsigned)d.p.device);
            if (!e) {
                bounce_in(c, src);
                rt_charge(host_memcpy_time(len));
                c->src = (struct p2psim_loc){ P2PSIM_HOST, 0, c->bounce_bus };
            }
        }
        if (!e && dstride && d.device) {
            c->dst = rt_alloc_loc(d.p.alloc, d.p.off);
            e = scratch_new(c, &c->dst, &c->hbm_dst.gpu, &c->hbm_dst.scratch,
                            &c->hbm_dst.base);
        } else if (!e && dstride && d.pinned) {
            /* Unpacked from a bounce buffer when the copy has landed. */
            e = bounce_new(c, (unsigned)sr.p.device);
            c->copy_out = dst;
            c->dst = (struct p2psim_loc){ P2PSIM_HOST, 0, c->bounce_bus };
        } else if (!e && (d.device || d.pinned)) {
            c->dst = rt_alloc_loc(d.p.alloc, d.p.off);
            if (d.p.where == RT_WHERE_MANAGED) {
                c->m_dst = d.p.alloc;
                c->m_dst_off = d.p.off;
            }
        } else if (!e) {
            e = bounce_new(c, (unsigned)sr.p.device);
            c->copy_out = dst;
            c->dst = (struct p2psim_loc){ P2PSIM_HOST, 0, c->bounce_bus };
            must_wait = true; /* device to pageable: synchronous */
        }
        if (d.device && sr.device) {
            cost = rt_costs[RT_COST_MEMCPY_ASYNC_D2D];
            /* Even cudaMemcpy returns once the copy is queued: a 4 KB
             * one behind a kernel that spins for 100 ms returned in 17 us
             * on an H200, where host copies waited for the kernel
             * (data/h200-x1/d2d_sync_probe.txt). */
            must_wait = false;
            int a = sr.p.device, b = d.p.device;
            if (a != b) {
                c->gpu_pair = true;
                cost = rt_costs[RT_COST_MEMCPY_ASYNC_PEER];
                /* The stream's device drives the copy engines. */
                bool push = access_ok(a, b, d.p.alloc);
                bool pull = access_ok(b, a, sr.p.alloc);
                if (push && (sdev == a || !pull)) {
                    c->flags = P2PSIM_COPY_PEER;
                } else if (pull) {
                    c->flags = P2PSIM_COPY_PEER | P2PSIM_COPY_READ;
                }
            }
        } else if (sync && d.device && !sr.device) {
            must_wait = true; /* host to device: synchronous */
        }
    }
    if (e) {
        rt_op_discard(&c->op);
        return e;
    }
    for (unsigned i = 0; i < n_after && !e; i++) {
        e = rt_op_depend(&c->op, after[i]);
    }
    if (e) {
        rt_op_discard(&c->op);
        return e;
    }
    rt_charge(cost);
    /* Queued behind the stream's copy before (stream_op.c): a copy of the
     * machine's; not one by the host, nor one whose managed side is
     * placed only when it starts. */
    c->op.chainable = !c->h_dst && !c->m_src && !c->m_dst && !c->shape;
    struct rt_fence *f = rt_fence_ref(c->op.fence);
    e = rt_enqueue(s, &c->op);
    if (e) {
        rt_fence_put(f);
        return e;
    }
    if (must_wait) {
        *fence = f;
    } else {
        rt_fence_put(f);
    }
    return cudaSuccess;
}

static cudaError_t wait_fence(struct rt_fence *f)
{
    if (!f) {
        return cudaSuccess;
    }
    cudaError_t e = rt_wait(rt_fence_done, f, SIM_TIME_MAX);
    if (!e) {
        e = f->status;
    }
    rt_fence_put(f);
    return e;
}

/*
 * When the call returns (CUDA's "API synchronization behavior"):
 *   cudaMemcpy: after completion, except device to device (no host
 *     synchronization). Pageable host to device returns after the DMA too
 *     (CUDA may return once the last chunk is staged: the difference is
 *     the last chunk's DMA).
 *   cudaMemcpyAsync: at once, except with pageable memory on the device
 *     to host side and host to host copies, which complete first.
 */
cudaError_t rt_memcpy_on(void *dst, const void *src, size_t len,
                         enum cudaMemcpyKind kind, cudaStream_t h, bool sync,
                         const struct rt_copy_shape *shape)
{
    struct rt_stream *s = rt_stream_resolve(h, -1);
    if (!s) {
        return cudaErrorInvalidResourceHandle;
    }
    struct rt_fence *f;
    cudaError_t e = copy_enqueue(dst, src, len, kind, s, sync, NULL, 0, &f,
                                 shape);
    return e ? e : wait_fence(f);
}

static cudaError_t memcpy_on(void *dst, const void *src, size_t len,
                             enum cudaMemcpyKind kind, cudaStream_t h,
                             bool sync)
{
    cudaError_t e;
    if (!sync && rt_capture_copy(dst, src, len, kind, h, &e)) {
        return e;
    }
    return rt_memcpy_on(dst, src, len, kind, h, sync, NULL);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                       enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST, memcpy_on(dst, src, count, kind, NULL, true));
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                            enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST, memcpy_on(dst, src, count, kind, stream, false));
}

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
                            enum cudaMemcpyKind kind)
{
    RT_SERVE(RT_NO_COST,
             memcpy_on(dst, src, count, kind, cudaStreamPerThread, true));
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                 enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST,
             memcpy_on(dst, src, count, kind,
                       stream ? stream : cudaStreamPerThread, false));
}

/*
 * cudaMemcpyPeer(Async): the pointers must be device memory of the named
 * devices. The synchronous form is ordered with the legacy streams of the
 * current, source and destination devices and does not block the host
 * (CUDA documents it as asynchronous with respect to the host).
 */
cudaError_t rt_memcpy_peer(void *dst, int ddev, const void *src, int sdev,
                           size_t len, cudaStream_t h, bool legacy,
                           const struct rt_copy_shape *shape)
{
    if (!rt_device_valid(ddev) || !rt_device_valid(sdev)) {
        return cudaErrorInvalidDevice;
    }
    if (len == 0) {
        return cudaSuccess;
    }
    struct rt_ptr pd, ps;
    rt_ptr_find(dst, &pd);
    rt_ptr_find(src, &ps);
    if (pd.where != RT_WHERE_DEVICE || pd.device != ddev ||
        ps.where != RT_WHERE_DEVICE || ps.device != sdev) {
        return cudaErrorInvalidValue;
    }
    struct rt_stream *s = rt_stream_resolve(h, -1);
    if (!s) {
        return cudaErrorInvalidResourceHandle;
    }
    /* The synchronous form: after the work of the source's and the
     * destination's legacy streams too. */
    struct rt_fence *after[2] = { NULL, NULL };
    for (int i = 0; legacy && i < 2; i++) {
        struct rt_stream *l = rt_stream_resolve(NULL, i ? ddev : sdev);
        if (l && l != s) {
            after[i] = rt_stream_tail(l);
        }
    }
    struct rt_fence *f;
    cudaError_t e = copy_enqueue(dst, src, len, cudaMemcpyDeviceToDevice, s,
                                 false, after, 2, &f, shape);
    rt_fence_put(f);
    rt_fence_put(after[0]);
    rt_fence_put(after[1]);
    return e;
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src,
                           int srcDevice, size_t count)
{
    RT_SERVE(RT_NO_COST,
             rt_memcpy_peer(dst, dstDevice, src, srcDevice, count, NULL, true,
                            NULL));
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                                int srcDevice, size_t count,
                                cudaStream_t stream)
{
    RT_SERVE(RT_NO_COST,
             rt_memcpy_peer(dst, dstDevice, src, srcDevice, count, stream,
                            false, NULL));
}
