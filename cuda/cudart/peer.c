/*
 * cuda/cudart/peer.c - peer access: whether a device can map a peer's
 * memory, enabling and disabling it, and the attributes of a pair.
 *
 * Every answer comes from the fabric's P2P verdict (p2psim_p2p, what
 * `p2psim explain` prints): the product rules (GeForce blocks P2P), the
 * root complexes' and ACS policies, IOMMU, NVLink. Enabling access only
 * records it (rt.dev[current].peer_enabled[peer]); copies and kernels
 * read that flag (memory_pool.c, rt_alloc_peer_ok), and a peer copy maps the
 * range it needs through the peer's BAR1 when it runs (p2psim_copy), so
 * BAR1 room is spent by what is copied, not by the enabling.
 *
 * Error codes (shared/reference/cuda-api.md §2.2 and §5.6; calibration
 * h200-x1-pcie-gen5.md §5, measured on one H200 with CUDA 13.0):
 *   cudaDeviceCanAccessPeer(&v, d, d)     0, v = 0 (measured)
 *   cudaDeviceEnablePeerAccess(current)   217 (measured)
 *   enable on a pair without P2P          217 (llama.cpp #3230, NVBit #11;
 *                                         the header text says 101)
 *   enable twice                          704; disable when not enabled:
 *                                         705 (measured for peer ==
 *                                         current too)
 *   flags != 0                            1; bad ordinal: 101
 */
#include <config.h>

#include "cuda/cudart/rt.h"

#include <string.h>

/*
 * A device may have at most eight peers enabled at once (CUDA Runtime API,
 * cudaDeviceEnablePeerAccess: "a system-wide maximum of eight peer
 * connections per device"); one more is cudaErrorTooManyPeers.
 */
#define PEER_MAX 8

/* The verdict for dev -> peer (valid, distinct ordinals). */
static bool p2p_allowed(int dev, int peer, struct p2psim_verdict *v)
{
    if (p2psim_p2p(rt.p, (unsigned)dev, (unsigned)peer, v) < 0) {
        memset(v, 0, sizeof(*v));
        return false;
    }
    return v->allowed;
}

static cudaError_t can_access_peer(int *can, int dev, int peer)
{
    struct p2psim_verdict v;

    if (!can) {
        return cudaErrorInvalidValue;
    }
    if (!rt_device_valid(dev) || !rt_device_valid(peer)) {
        return cudaErrorInvalidDevice;
    }
    /* A device is not its own peer (measured: 0, success). */
    *can = dev != peer && p2p_allowed(dev, peer, &v);
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device,
                                    int peerDevice)
{
    SERVE(can_access_peer(canAccessPeer, device, peerDevice));
}

static unsigned peers_enabled(const struct rt_device *d)
{
    unsigned n = 0;
    for (unsigned i = 0; i < rt.n_dev; i++) {
        n += d->peer_enabled[i];
    }
    return n;
}

static cudaError_t enable_peer(int peer, unsigned flags)
{
    int cur = rt_current_device();
    struct p2psim_verdict v;

    if (!rt_device_valid(peer)) {
        return cudaErrorInvalidDevice;
    }
    if (flags != cudaPeerAccessDefault) {
        return cudaErrorInvalidValue;
    }
    if (peer == cur || !p2p_allowed(cur, peer, &v)) {
        return cudaErrorPeerAccessUnsupported;
    }
    /* Both contexts exist from here on (the driver creates the current
     * device's; the peer's memory is reached through its context). */
    cudaError_t e = rt_device_init(cur);
    if (!e) {
        e = rt_device_init(peer);
    }
    if (e) {
        return e;
    }
    struct rt_device *d = &rt.dev[cur];
    if (d->peer_enabled[peer]) {
        return cudaErrorPeerAccessAlreadyEnabled;
    }
    if (peers_enabled(d) >= PEER_MAX) {
        return cudaErrorTooManyPeers;
    }
    d->peer_enabled[peer] = true;
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    SERVE(enable_peer(peerDevice, flags));
}

static cudaError_t disable_peer(int peer)
{
    struct rt_device *d = &rt.dev[rt_current_device()];

    if (!rt_device_valid(peer)) {
        return cudaErrorInvalidDevice;
    }
    if (!d->peer_enabled || !d->peer_enabled[peer]) {
        return cudaErrorPeerAccessNotEnabled;
    }
    d->peer_enabled[peer] = false;
    return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    SERVE(disable_peer(peerDevice));
}

/*
 * Attributes of the ordered pair src -> dst:
 *
 *  PerformanceRank: the place of the path's nvidia-smi class in
 *    NV < PIX < PXB < PHB < NODE < SYS (machine/path.h, best first), so
 *    NVLink ranks 0 and a better class ranks lower, as "lower is better"
 *    asks (cuda-api.md §2.2). The driver's own numbers are not
 *    documented; this keeps their order.
 *  AccessSupported: cudaDeviceCanAccessPeer's answer (the verdict);
 *    "supported", not "enabled" (cuda-api.md §5.6 leaves it open; CUDA's
 *    samples read it before enabling anything).
 *  NativeAtomicSupported: access is allowed and the verdict's atomics:
 *    both GPUs do atomics over the pair's transport (the catalog's
 *    atomics: { pcie, nvlink }) and, over PCIe, every switch and root
 *    complex between them routes AtomicOps (machine/path.c).
 *  CudaArrayAccessSupported: where access is (arrays travel the same
 *    mappings).
 *  OnlyPartialNativeAtomicSupported: 0; atomics are all or nothing here.
 */
cudaError_t rt_p2p_attribute(int *value, enum cudaDeviceP2PAttr attr,
                             int src, int dst)
{
    struct p2psim_verdict v;
    bool ok;

    if (!value) {
        return cudaErrorInvalidValue;
    }
    if (!rt_device_valid(src) || !rt_device_valid(dst) || src == dst) {
        return cudaErrorInvalidDevice;
    }
    ok = p2p_allowed(src, dst, &v);
    switch (attr) {
    case cudaDevP2PAttrPerformanceRank:
        *value = v.path.cls > P2PSIM_PATH_NV
                     ? (int)(v.path.cls - P2PSIM_PATH_NV)
                     : 0;
        break;
    case cudaDevP2PAttrAccessSupported:
        *value = ok;
        break;
    case cudaDevP2PAttrNativeAtomicSupported:
        *value = ok && v.atomics;
        break;
    case cudaDevP2PAttrCudaArrayAccessSupported:
        *value = ok;
        break;
    case cudaDevP2PAttrOnlyPartialNativeAtomicSupported:
        *value = 0;
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr,
                                      int srcDevice, int dstDevice)
{
    SERVE(rt_p2p_attribute(value, attr, srcDevice, dstDevice));
}

/*
 * What each atomic operation can do over a path (CUDA 13's capability
 * bits), from what carries it. Over NVLink the destination's memory
 * controller does every operation natively, 32 and 64 bits, with 128-bit
 * exchange and CAS and 4 x 32-bit float adds from compute capability 9.0
 * (Hopper's atom/red .b128 and .v4.f32). Over PCIe only what PCIe
 * AtomicOps carry is native: FetchAdd (integer add), Swap (exchange) and
 * CAS, 32 and 64 bits, and CAS also 128 (PCIe Base Specification,
 * AtomicOp operand sizes); min, max, the bitwise operations and floats are
 * not. No native path: 0 for every operation.
 */
static unsigned atomic_caps(enum cudaAtomicOperation op, bool native,
                            bool nvlink, unsigned cc_major)
{
    const unsigned s = cudaAtomicCapabilitySigned,
                   u = cudaAtomicCapabilityUnsigned,
                   red = cudaAtomicCapabilityReduction,
                   s32 = cudaAtomicCapabilityScalar32,
                   s64 = cudaAtomicCapabilityScalar64,
                   s128 = cudaAtomicCapabilityScalar128,
                   v4 = cudaAtomicCapabilityVector32x4;
    bool hopper = cc_major >= 9;
    if (!native) {
        return 0;
    }
    switch (op) {
    case cudaAtomicOperationIntegerAdd:
        return s | u | red | s32 | s64;
    case cudaAtomicOperationExchange:
        return s32 | s64 | (nvlink && hopper ? s128 : 0);
    case cudaAtomicOperationCAS:
        return s32 | s64 | (!nvlink || hopper ? s128 : 0);
    case cudaAtomicOperationIntegerMin:
    case cudaAtomicOperationIntegerMax:
        return nvlink ? s | u | red | s32 | s64 : 0;
    case cudaAtomicOperationIntegerIncrement:
    case cudaAtomicOperationIntegerDecrement:
        return nvlink ? u | red | s32 : 0;
    case cudaAtomicOperationAnd:
    case cudaAtomicOperationOr:
    case cudaAtomicOperationXOR:
        return nvlink ? red | s32 | s64 : 0;
    case cudaAtomicOperationFloatAdd:
        return nvlink ? red | s32 | s64 | (hopper ? v4 : 0) : 0;
    case cudaAtomicOperationFloatMin:
    case cudaAtomicOperationFloatMax:
        return nvlink && hopper ? red | s32 : 0;
    }
    return 0;
}

static bool atomic_ops_valid(const unsigned *caps,
                             const enum cudaAtomicOperation *ops, unsigned n)
{
    if (!caps || !ops || n == 0) {
        return false;
    }
    for (unsigned i = 0; i < n; i++) {
        if ((int)ops[i] < cudaAtomicOperationIntegerAdd ||
            ops[i] > cudaAtomicOperationFloatMax) {
            return false;
        }
    }
    return true;
}

static cudaError_t p2p_atomic_caps(unsigned *caps,
                                   const enum cudaAtomicOperation *ops,
                                   unsigned n, int src, int dst)
{
    struct p2psim_verdict v;
    struct p2psim_gpu_desc gs, gd;

    if (!atomic_ops_valid(caps, ops, n)) {
        return cudaErrorInvalidValue;
    }
    if (!rt_device_valid(src) || !rt_device_valid(dst) || src == dst) {
        return cudaErrorInvalidDevice;
    }
    bool ok = p2p_allowed(src, dst, &v);
    p2psim_gpu_describe(rt.p, (unsigned)src, &gs);
    p2psim_gpu_describe(rt.p, (unsigned)dst, &gd);
    bool nvlink = v.transport == P2PSIM_TRANSPORT_NVLINK;
    bool native = ok && v.atomics;
    unsigned cc = gs.cc_major < gd.cc_major ? gs.cc_major : gd.cc_major;
    for (unsigned i = 0; i < n; i++) {
        caps[i] = atomic_caps(ops[i], native, nvlink, cc);
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceGetP2PAtomicCapabilities(
    unsigned int *capabilities, const enum cudaAtomicOperation *operations,
    unsigned int count, int srcDevice, int dstDevice)
{
    SERVE(p2p_atomic_caps(capabilities, operations, count, srcDevice,
                          dstDevice));
}

/* Device to host memory: over PCIe, as the GPU's catalog entry says it
 * issues AtomicOps (the root complex completes them, models/pcie/rc). */
static cudaError_t host_atomic_caps(unsigned *caps,
                                    const enum cudaAtomicOperation *ops,
                                    unsigned n, int dev)
{
    struct p2psim_gpu_desc g;

    if (!atomic_ops_valid(caps, ops, n)) {
        return cudaErrorInvalidValue;
    }
    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    p2psim_gpu_describe(rt.p, (unsigned)dev, &g);
    for (unsigned i = 0; i < n; i++) {
        caps[i] = atomic_caps(ops[i], g.atomics_pcie, false, g.cc_major);
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceGetHostAtomicCapabilities(
    unsigned int *capabilities, const enum cudaAtomicOperation *operations,
    unsigned int count, int device)
{
    SERVE(host_atomic_caps(capabilities, operations, count, device));
}
