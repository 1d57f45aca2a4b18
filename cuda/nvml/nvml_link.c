/*
 * cuda/nvml/nvml_link.c - NVML's view of how the GPUs connect: NVLinks
 * one by one, the P2P status of a pair, the PCIe topology level of a
 * pair and the GPUs near one, CPU affinity, and the field values NCCL
 * asks for. All from the machine the runtime runs (nvml_int.h).
 *
 * Links: a GPU's NVLink groups in the machine file (p2psim_gpu_nvlinks)
 * are numbered in order, link by link: with groups of 5, 4, 4 and 5
 * links into four NVSwitches (hgx-h100), links 0-4 reach the first,
 * 5-8 the second, and so on. Links past the last group exist (the
 * catalog's count) but are down.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <config.h>

#include <sched.h>
#include <stdbool.h>
#include <string.h>

#include "cuda/nvml/nvml_int.h"
#include "machine/p2psim.h"

/* ---- one link ---------------------------------------------------------------- */

struct nvml_link {
    bool up;                    /* the link connects to something */
    struct p2psim_nvlink_end end;
};

/*
 * Link l of GPU g: NVML_SUCCESS, NVML_ERROR_INVALID_ARGUMENT for a link
 * number past NVML's, NVML_ERROR_NOT_SUPPORTED past the GPU's own links
 * (none for a GPU without NVLink).
 */
static nvmlReturn_t link_of(unsigned g, unsigned l, struct nvml_link *out)
{
    struct p2psim_gpu_desc d;
    struct p2psim_nvlink_end ends[NVML_NVLINK_MAX_LINKS];
    if (l >= NVML_NVLINK_MAX_LINKS) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nvml_m->gpu_describe(nvml_m->p, g, &d);
    if (l >= d.nvlink_links) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    unsigned n = nvml_m->gpu_nvlinks(nvml_m->p, g, ends,
                                     NVML_NVLINK_MAX_LINKS);
    unsigned first = 0;
    memset(out, 0, sizeof(*out));
    for (unsigned i = 0; i < n && i < NVML_NVLINK_MAX_LINKS; i++) {
        if (l < first + ends[i].links) {
            out->up = true;
            out->end = ends[i];
            break;
        }
        first += ends[i].links;
    }
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                      nvmlEnableState_t *isActive)
{
    NVML_DEV(g, device);
    struct nvml_link k;
    if (!isActive) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nvmlReturn_t r = link_of((unsigned)g, link, &k);
    if (r == NVML_SUCCESS) {
        *isActive = k.up ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    }
    return r;
}

nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device,
                                        unsigned int link,
                                        unsigned int *version)
{
    NVML_DEV(g, device);
    struct nvml_link k;
    struct p2psim_gpu_desc d;
    if (!version) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nvmlReturn_t r = link_of((unsigned)g, link, &k);
    if (r == NVML_SUCCESS) {
        nvml_m->gpu_describe(nvml_m->p, (unsigned)g, &d);
        *version = d.nvlink_gen;
    }
    return r;
}

/* Model: x86 hosts, so no link reaches system memory (that is POWER9 and
 * Grace); P2P over every link that is up, atomics as the catalog says. */
nvmlReturn_t nvmlDeviceGetNvLinkCapability(nvmlDevice_t device,
                                           unsigned int link,
                                           nvmlNvLinkCapability_t capability,
                                           unsigned int *capResult)
{
    NVML_DEV(g, device);
    struct nvml_link k;
    struct p2psim_gpu_desc d;
    if (!capResult || (unsigned)capability >= NVML_NVLINK_CAP_COUNT) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nvmlReturn_t r = link_of((unsigned)g, link, &k);
    if (r) {
        return r;
    }
    nvml_m->gpu_describe(nvml_m->p, (unsigned)g, &d);
    switch (capability) {
    case NVML_NVLINK_CAP_P2P_SUPPORTED: *capResult = k.up; break;
    case NVML_NVLINK_CAP_P2P_ATOMICS:
        *capResult = k.up && d.atomics_nvlink;
        break;
    case NVML_NVLINK_CAP_VALID: *capResult = 1; break;
    default: *capResult = 0; break;
    }
    return NVML_SUCCESS;
}

/* Link `link` of device, which must be up: NVML_ERROR_NOT_SUPPORTED
 * when down. */
static nvmlReturn_t up_link(nvmlDevice_t device, unsigned link,
                            struct nvml_link *k)
{
    NVML_DEV(g, device);
    nvmlReturn_t r = link_of((unsigned)g, link, k);
    return r ? r : k->up ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

/* The far end of a link: a GPU's PCI info, or an NVSwitch's (vendor
 * 10de, at p2psim_nvswitch_pci_address). */
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device,
                                                 unsigned int link,
                                                 nvmlPciInfo_t *pci)
{
    struct nvml_link k;
    nvmlReturn_t r = pci ? up_link(device, link, &k)
                         : NVML_ERROR_INVALID_ARGUMENT;
    if (r || !k.end.nvswitch) {
        return r ? r : nvmlDeviceGetPciInfo_v3(nvml_handle(k.end.peer), pci);
    }
    unsigned a[4];
    nvml_m->nvswitch_pci_address(nvml_m->p, k.end.peer, &a[0], &a[1], &a[2],
                                 &a[3]);
    /* [estimate] NVSwitch gen3's device id; subsystem the vendor's */
    nvml_pci_fill(pci, a, 0x22a3u << 16 | 0x10de, 0x10de);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device,
                                              unsigned int link,
                                              nvmlPciInfo_v1_t *pci)
{
    nvmlPciInfo_t v3;
    nvmlReturn_t r = pci ? nvmlDeviceGetNvLinkRemotePciInfo_v2(device, link,
                                                               &v3)
                         : NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) {
        nvml_pci_v1(&v3, pci);
    }
    return r;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device,
                                                 unsigned int link,
                                                 nvmlIntNvLinkDeviceType_t *type)
{
    struct nvml_link k;
    nvmlReturn_t r = type ? up_link(device, link, &k)
                          : NVML_ERROR_INVALID_ARGUMENT;
    if (r == NVML_SUCCESS) {
        *type = k.end.nvswitch ? NVML_NVLINK_DEVICE_TYPE_SWITCH
                               : NVML_NVLINK_DEVICE_TYPE_GPU;
    }
    return r;
}

/* ---- P2P ---------------------------------------------------------------------- */

/* Why P2P is refused, in NVML's words: the first rule that blocks. */
static nvmlGpuP2PStatus_t refused(const struct p2psim_verdict *v)
{
    for (unsigned i = 0; i < v->n_rules; i++) {
        if (!v->rule[i].blocks) {
            continue;
        }
        switch (v->rule[i].id) {
        case P2PSIM_RULE_PRODUCT: return NVML_P2P_STATUS_GPU_NOT_SUPPORTED;
        case P2PSIM_RULE_SOCKET:
        case P2PSIM_RULE_ROOT_COMPLEX:
            return NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED;
        case P2PSIM_RULE_SAME_DEVICE:
        case P2PSIM_RULE_FABRIC_MANAGER:
            return NVML_P2P_STATUS_NOT_SUPPORTED;
        default: return NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED;
        }
    }
    return NVML_P2P_STATUS_NOT_SUPPORTED;
}

/*
 * The runtime's P2P verdict (p2psim_p2p, what cudaDeviceCanAccessPeer
 * answers): WRITE and PROP as it allows; READ where reads are allowed
 * too; NVLINK where the pair's P2P goes over NVLink; ATOMICS as
 * cudaDeviceGetP2PAttribute's NativeAtomicSupported (both GPUs do
 * atomics over that link and every element between routes them).
 */
nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1,
                                    nvmlDevice_t device2,
                                    nvmlGpuP2PCapsIndex_t p2pIndex,
                                    nvmlGpuP2PStatus_t *p2pStatus)
{
    NVML_DEV(a, device1);
    NVML_DEV(b, device2);
    struct p2psim_verdict v;
    int atomics = 0;
    if (!p2pStatus || (unsigned)p2pIndex >= NVML_P2P_CAPS_INDEX_UNKNOWN) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (nvml_m->p2p(nvml_m->p, (unsigned)a, (unsigned)b, &v) < 0) {
        return NVML_ERROR_UNKNOWN;
    }
    bool ok = v.allowed;
    switch (p2pIndex) {
    case NVML_P2P_CAPS_INDEX_READ: ok = ok && v.reads_allowed; break;
    case NVML_P2P_CAPS_INDEX_NVLINK:
        ok = ok && v.transport == P2PSIM_TRANSPORT_NVLINK;
        break;
    case NVML_P2P_CAPS_INDEX_ATOMICS:
        ok = ok && a != b &&
             p2psim_drv_peer_attribute(&atomics,
                                       cudaDevP2PAttrNativeAtomicSupported,
                                       a, b) == cudaSuccess && atomics;
        break;
    default: break;
    }
    *p2pStatus = ok ? NVML_P2P_STATUS_OK
               : v.allowed ? NVML_P2P_STATUS_NOT_SUPPORTED : refused(&v);
    return NVML_SUCCESS;
}

/* ---- topology ----------------------------------------------------------------- */

/* The PCIe level between GPUs a and b: nvidia-smi topo's class of the
 * PCIe route (NVLink or not), as NVML names it. */
static nvmlGpuTopologyLevel_t level_of(unsigned a, unsigned b)
{
    struct p2psim_path pa;
    if (nvml_m->path(nvml_m->p, a, b, &pa) < 0) {
        return NVML_TOPOLOGY_SYSTEM;    /* no PCIe route at all */
    }
    switch (pa.pcie_cls) {
    case P2PSIM_PATH_X: return NVML_TOPOLOGY_INTERNAL;
    case P2PSIM_PATH_PIX: return NVML_TOPOLOGY_SINGLE;
    case P2PSIM_PATH_PXB: return NVML_TOPOLOGY_MULTIPLE;
    case P2PSIM_PATH_PHB: return NVML_TOPOLOGY_HOSTBRIDGE;
    case P2PSIM_PATH_NODE: return NVML_TOPOLOGY_NODE;
    default: return NVML_TOPOLOGY_SYSTEM;
    }
}

nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(
    nvmlDevice_t device1, nvmlDevice_t device2,
    nvmlGpuTopologyLevel_t *pathInfo)
{
    NVML_DEV(a, device1);
    NVML_DEV(b, device2);
    if (!pathInfo) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *pathInfo = level_of((unsigned)a, (unsigned)b);
    return NVML_SUCCESS;
}

/* The other GPUs no further than level; *count in: room in deviceArray
 * (0 or a NULL array: ask how many), out: how many there are. */
nvmlReturn_t nvmlDeviceGetTopologyNearestGpus(nvmlDevice_t device,
                                              nvmlGpuTopologyLevel_t level,
                                              unsigned int *count,
                                              nvmlDevice_t *deviceArray)
{
    NVML_DEV(g, device);
    if (!count) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    unsigned n = 0, room = deviceArray ? *count : 0;
    for (unsigned o = 0; o < nvml_n_dev; o++) {
        if (o != (unsigned)g && level_of((unsigned)g, o) <= level) {
            if (n < room) {
                deviceArray[n] = nvml_handle(o);
            }
            n++;
        }
    }
    nvmlReturn_t r = room && n > room ? NVML_ERROR_INSUFFICIENT_SIZE
                                      : NVML_SUCCESS;
    *count = n;
    return r;
}

/*
 * Model: the simulated sockets' cores are not the host's, so every GPU's
 * affinity is the set of CPUs this process may run on, whole (pinning a
 * thread "near" a simulated GPU would only crowd the host). cpuSet:
 * cpuSetSize unsigned longs, CPU i at bit i % 64 of word i / 64.
 */
nvmlReturn_t nvmlDeviceGetCpuAffinityWithinScope(nvmlDevice_t device,
                                                 unsigned int cpuSetSize,
                                                 unsigned long *cpuSet,
                                                 nvmlAffinityScope_t scope)
{
    NVML_DEV(g, device);
    (void)g;
    cpu_set_t s;
    const unsigned bits = 8 * sizeof(unsigned long);
    if (!cpuSet || !cpuSetSize || scope > NVML_AFFINITY_SCOPE_SOCKET) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    memset(cpuSet, 0, cpuSetSize * sizeof(*cpuSet));
    if (sched_getaffinity(0, sizeof(s), &s) < 0) {
        return NVML_ERROR_UNKNOWN;
    }
    for (unsigned c = 0; c < CPU_SETSIZE && c / bits < cpuSetSize; c++) {
        if (CPU_ISSET(c, &s)) {
            cpuSet[c / bits] |= 1UL << (c % bits);
        }
    }
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t device,
                                      unsigned int cpuSetSize,
                                      unsigned long *cpuSet)
{
    return nvmlDeviceGetCpuAffinityWithinScope(device, cpuSetSize, cpuSet,
                                               NVML_AFFINITY_SCOPE_NODE);
}

/* Model: the GPUs' memory is no NUMA node of the host (PCIe-attached
 * GPUs; nvidia-smi topo shows "GPU NUMA ID N/A"). */
nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node)
{
    NVML_DEV(g, device);
    (void)g;
    return node ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
}

/* ---- field values ---------------------------------------------------------------- */

/* One field of GPU g; every field not listed is NOT_SUPPORTED. */
static void field(unsigned g, nvmlFieldValue_t *f)
{
    struct p2psim_gpu_desc d;
    struct nvml_link k;
    nvml_m->gpu_describe(nvml_m->p, g, &d);
    f->timestamp = 0;
    f->latencyUsec = 0;
    f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    f->nvmlReturn = NVML_SUCCESS;
    switch (f->fieldId) {
    case NVML_FI_DEV_NVLINK_LINK_COUNT: f->value.uiVal = d.nvlink_links; break;
    case NVML_FI_DEV_NVLINK_GET_STATE:
        f->nvmlReturn = link_of(g, f->scopeId, &k);
        f->value.uiVal = f->nvmlReturn ? 0 : k.up;
        break;
    case NVML_FI_DEV_NVLINK_GET_VERSION:
        f->nvmlReturn = link_of(g, f->scopeId, &k);
        f->value.uiVal = f->nvmlReturn ? 0 : d.nvlink_gen;
        break;
    case NVML_FI_DEV_NVSWITCH_CONNECTED_LINK_COUNT:
        f->value.uiVal = 0;
        for (unsigned l = 0; l < d.nvlink_links; l++) {
            if (link_of(g, l, &k) == NVML_SUCCESS && k.up && k.end.nvswitch) {
                f->value.uiVal++;
            }
        }
        break;
    default:
        f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        break;
    }
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
                                      nvmlFieldValue_t *values)
{
    NVML_DEV(g, device);
    if (valuesCount < 0 || (valuesCount && !values)) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < valuesCount; i++) {
        field((unsigned)g, &values[i]);
    }
    return NVML_SUCCESS;
}
