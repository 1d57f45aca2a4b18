/*
 * cuda/cudart/memset.c - cudaMemset and cudaMemsetAsync (and their
 * per-thread forms).
 *
 * Memset is an operation on a stream: on device memory a fill of the
 * owner's HBM (rt_machine->fill, p2psim_fill: a copy-engine operation
 * through the HBM); on pinned memory a host write at the operation's time
 * (Model: not timed); on managed memory a fault of the range to the
 * stream's device (managed.c), then a fill of the device's copy and the
 * host write. CUDA's rule ("API synchronization behavior"): cudaMemset is
 * asynchronous with respect to the host except when the target is pinned
 * host memory or managed memory, where it is synchronous; cudaMemsetAsync
 * is always asynchronous.
 */
#include <config.h>

#include "cuda/cudart/memory_int.h"

#include <string.h>

#include "cuda/cudart/graph_int.h"
#include "cuda/cudart/managed.h"
#include "sim/error.h"

/* The per-thread variants (cuda_runtime_api.h declares them only for
 * programs built with CUDA_API_PER_THREAD_DEFAULT_STREAM). */
cudaError_t CUDARTAPI cudaMemset_ptds(void *devPtr, int value, size_t count);
cudaError_t CUDARTAPI cudaMemsetAsync_ptsz(void *devPtr, int value,
                                           size_t count, cudaStream_t stream);

/* ---- memset -------------------------------------------------------------- */

struct memset_op {
    struct rt_op op;            /* first */
    struct rt_alloc *a;
    uint64_t off, len;
    uint8_t value;
    int dev;                    /* the stream's device */
};

static void memset_filled(void *arg, const struct p2psim_copy_result *r)
{
    struct memset_op *m = arg;
    rt_op_done(&m->op, r->status ? cudaErrorUnknown : cudaSuccess);
}

/* The host write of a pinned or managed target, at the op's time. */
static void memset_host_now(void *arg)
{
    struct memset_op *m = arg;
    memset((void *)(m->a->base + m->off), m->value, m->len);
    rt_op_done(&m->op, cudaSuccess);
}

static void memset_managed_filled(void *arg,
                                  const struct p2psim_copy_result *r)
{
    struct memset_op *m = arg;
    if (r->status) {
        rt_op_done(&m->op, cudaErrorUnknown);
        return;
    }
    memset_host_now(m);
}

/*
 * The range is where the memset runs (or mapped there): pages on the
 * device are set in its HBM copy (the time of a device fill), then in the
 * host mapping, which holds the bytes.
 */
static void memset_faulted(void *arg, int status)
{
    struct memset_op *m = arg;
    if (status) {
        rt_op_done(&m->op, status);
        return;
    }
    struct rt_managed_span span;
    rt_managed_span_begin(m->a, m->off, m->len, false, &span);
    if (span.loc.kind != P2PSIM_DEVICE ||
        rt_machine->fill(span.loc.gpu, span.loc.addr, m->value, m->len,
                         rt_machine->now(), memset_managed_filled, m) < 0) {
        memset_host_now(m);
    }
}

static void memset_start(struct rt_op *op, sim_time_t at)
{
    struct memset_op *m = (struct memset_op *)op;
    struct rt_alloc *a = m->a;
    int rc = 0;
    switch (a->kind) {
    case RT_MEM_DEVICE: {
        struct p2psim_loc l = rt_alloc_loc(a, m->off);
        rc = rt_machine->fill(l.gpu, l.addr, m->value, m->len, at,
                              memset_filled, m);
        break;
    }
    case RT_MEM_HOST:
        rc = rt_machine->timer(at, memset_host_now, m);
        break;
    case RT_MEM_MANAGED: {
        /* A memset kernel on the stream's device touches the range. */
        cudaError_t e = rt_managed_touch(a, m->off, m->len, m->dev, at,
                                         memset_faulted, m);
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
 * Queue a memset of count bytes at ptr on stream h; sync: the synchronous
 * form (waits when the target is pinned or managed memory).
 */
static cudaError_t memset_queue(void *ptr, int value, size_t count,
                                cudaStream_t h, bool sync)
{
    cudaError_t ce;
    if (!sync && rt_capture_memset(ptr, value, count, h, &ce)) {
        rt_charge_cost(RT_COST_CALL);
        return ce;
    }
    /* [estimate] CUDA runs a memset as a kernel: a launch's host cost. */
    rt_charge_cost(RT_COST_LAUNCH);
    if (count == 0) {
        return cudaSuccess;
    }
    struct rt_ptr w;
    rt_ptr_find(ptr, &w);
    if (w.where == RT_WHERE_PAGEABLE || count > w.avail) {
        return cudaErrorInvalidValue;
    }
    struct rt_stream *s = rt_stream_resolve(h, -1);
    if (!s) {
        return cudaErrorInvalidResourceHandle;
    }
    struct memset_op *m = (struct memset_op *)rt_op_alloc(
        sizeof(*m), "memset", memset_start);
    if (!m) {
        return cudaErrorMemoryAllocation;
    }
    m->a = w.alloc;
    m->off = w.off;
    m->len = count;
    m->value = (uint8_t)value;
    m->dev = rt_stream_device(s);
    bool wait = sync && w.where != RT_WHERE_DEVICE;
    struct rt_fence *f = wait ? rt_fence_ref(m->op.fence) : NULL;
    cudaError_t e = rt_enqueue(s, &m->op);
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

static cudaError_t memset_call(void *ptr, int value, size_t count,
                               cudaStream_t h, bool sync)
{
    RT_SERVE(RT_NO_COST, memset_queue(ptr, value, count, h, sync));
}

cudaError_t CUDARTAPI cudaMemset(void *devPtr, int value, size_t count)
{
    return memset_call(devPtr, value, count, NULL, true);
}

cudaError_t CUDARTAPI cudaMemset_ptds(void *devPtr, int value, size_t count)
{
    return memset_call(devPtr, value, count, cudaStreamPerThread, true);
}

cudaError_t CUDARTAPI cudaMemsetAsync(void *devPtr, int value, size_t count,
                                      cudaStream_t stream)
{
    return memset_call(devPtr, value, count, stream, false);
}

cudaError_t CUDARTAPI cudaMemsetAsync_ptsz(void *devPtr, int value,
                                           size_t count, cudaStream_t stream)
{
    return memset_call(devPtr, value, count,
                       stream ? stream : cudaStreamPerThread, false);
}
