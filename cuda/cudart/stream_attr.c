/*
 * cuda/cudart/stream_attr.c - stream attributes (cudaStreamSetAttribute,
 * GetAttribute, CopyAttributes): the ones CUDA allows on a stream, kept
 * per stream. The priority is the stream's own (cudaStreamGetPriority
 * reads it, the queue orders by it); the L2 access policy window, the
 * synchronization policy and the memory synchronization domain are
 * checked and kept, but change no figure (the GPU model has no
 * persisting L2 lines or sync domains, and a host thread waits the same
 * whatever the policy). Other attributes are launch-only:
 * cudaErrorInvalidValue.
 */
#include <config.h>

#include <string.h>

#include "cuda/cudart/rt.h"
#include "cuda/cudart/stream_int.h"
#include "cuda/include/p2psim_cudart_internal.h"

static bool stream_attr(cudaLaunchAttributeID id)
{
    return id == cudaLaunchAttributeAccessPolicyWindow ||
           id == cudaLaunchAttributeSynchronizationPolicy ||
           id == cudaLaunchAttributePriority ||
           id == cudaLaunchAttributeMemSyncDomainMap ||
           id == cudaLaunchAttributeMemSyncDomain;
}

static cudaError_t check_value(const struct rt_stream *s,
                               cudaLaunchAttributeID id,
                               const cudaLaunchAttributeValue *v)
{
    struct cudaDeviceProp p;
    switch (id) {
    case cudaLaunchAttributeAccessPolicyWindow: {
        const struct cudaAccessPolicyWindow *w = &v->accessPolicyWindow;
        rt_device_props(s->dev, &p);
        if (w->num_bytes > (size_t)p.accessPolicyMaxWindowSize ||
            !(w->hitRatio >= 0.0f && w->hitRatio <= 1.0f) ||
            (unsigned)w->hitProp > cudaAccessPropertyPersisting ||
            (unsigned)w->missProp > cudaAccessPropertyPersisting ||
            w->missProp == cudaAccessPropertyPersisting) {
            return cudaErrorInvalidValue;
        }
        return cudaSuccess;
    }
    case cudaLaunchAttributeSynchronizationPolicy:
        return v->syncPolicy >= cudaSyncPolicyAuto &&
                       v->syncPolicy <= cudaSyncPolicyBlockingSync
                   ? cudaSuccess
                   : cudaErrorInvalidValue;
    case cudaLaunchAttributeMemSyncDomain:
        return (unsigned)v->memSyncDomain <= cudaLaunchMemSyncDomainRemote
                   ? cudaSuccess
                   : cudaErrorInvalidValue;
    default:
        return cudaSuccess;
    }
}

static cudaError_t set_attr(cudaStream_t h, cudaLaunchAttributeID id,
                            const cudaLaunchAttributeValue *v)
{
    struct rt_stream *s;
    cudaError_t e = stream_lookup(h, &s);
    if (e) {
        return e;
    }
    if (!v || !stream_attr(id)) {
        return cudaErrorInvalidValue;
    }
    e = check_value(s, id, v);
    if (e) {
        return e;
    }
    if (id == cudaLaunchAttributePriority) {
        /* clamped to the device's range, as at creation (0 .. -5) */
        int prio = v->priority;
        s->priority = prio > 0 ? 0 : prio < -5 ? -5 : prio;
    } else {
        s->attrs[id] = *v;
    }
    return cudaSuccess;
}

cudaError_t cudaStreamSetAttribute(cudaStream_t hStream,
                                   cudaLaunchAttributeID attr,
                                   const cudaLaunchAttributeValue *value)
{
    RT_SERVE(RT_NO_COST, set_attr(hStream, attr, value));
}

static cudaError_t get_attr(cudaStream_t h, cudaLaunchAttributeID id,
                            cudaLaunchAttributeValue *v)
{
    struct rt_stream *s;
    cudaError_t e = stream_lookup(h, &s);
    if (e) {
        return e;
    }
    if (!v || !stream_attr(id)) {
        return cudaErrorInvalidValue;
    }
    if (id == cudaLaunchAttributePriority) {
        memset(v, 0, sizeof(*v));
        v->priority = s->priority;
    } else {
        *v = s->attrs[id];
        if (id == cudaLaunchAttributeSynchronizationPolicy &&
            v->syncPolicy == 0) {
            v->syncPolicy = cudaSyncPolicyAuto;     /* never set */
        }
    }
    return cudaSuccess;
}

cudaError_t cudaStreamGetAttribute(cudaStream_t hStream,
                                   cudaLaunchAttributeID attr,
                                   cudaLaunchAttributeValue *value_out)
{
    RT_SERVE(RT_NO_COST, get_attr(hStream, attr, value_out));
}

static cudaError_t copy_attrs(cudaStream_t dst, cudaStream_t src)
{
    struct rt_stream *d, *s;
    cudaError_t e = stream_lookup(dst, &d);
    if (!e) {
        e = stream_lookup(src, &s);
    }
    if (e) {
        return e;
    }
    memcpy(d->attrs, s->attrs, sizeof(d->attrs));
    d->priority = s->priority;
    return cudaSuccess;
}

cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src)
{
    RT_SERVE(RT_NO_COST, copy_attrs(dst, src));
}

/* Per-thread default stream builds: NULL is that thread's stream. */
static cudaStream_t ptsz(cudaStream_t h)
{
    return h == NULL ? cudaStreamPerThread : h;
}

cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t hStream,
                                        cudaLaunchAttributeID attr,
                                        const cudaLaunchAttributeValue *value)
{
    return cudaStreamSetAttribute(ptsz(hStream), attr, value);
}

cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t hStream,
                                        cudaLaunchAttributeID attr,
                                        cudaLaunchAttributeValue *value_out)
{
    return cudaStreamGetAttribute(ptsz(hStream), attr, value_out);
}

cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src)
{
    return cudaStreamCopyAttributes(ptsz(dst), ptsz(src));
}
