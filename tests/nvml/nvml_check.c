/*
 * nvml_check.c - loads libnvidia-ml.so.1 as NCCL does (dlopen, dlsym)
 * and checks its answers against the CUDA runtime's: the device count,
 * each GPU's bus id (cudaDeviceGetPCIBusId) and UUID and name
 * (cudaGetDeviceProperties), the P2P status of every pair
 * (cudaDeviceCanAccessPeer), and handles found by bus id and UUID.
 * Then it prints the connection matrix as `p2psim topo` does, made
 * from NVML alone (NV# from the links' far ends, else the common
 * ancestor's level), the P2P matrix, and each GPU's NVLinks by far
 * end ("nvlink GPU BUSID COUNT", lower case) and each pair's common
 * ancestor ("level A B PIX"), for nvml.sh to compare.
 * Exit status: 0, or 1 after a "mismatch:" line.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cuda_runtime_api.h>

#include "cuda/nvml/nvml.h"

#define MAX_GPUS 16
#define MAX_LINKS NVML_NVLINK_MAX_LINKS

static int failed;

#define EXPECT(cond, ...)                                                     \
    do {                                                                      \
        if (!(cond)) {                                                        \
            printf("mismatch: " __VA_ARGS__);                                 \
            printf("\n");                                                     \
            failed = 1;                                                       \
        }                                                                     \
    } while (0)

static void *lib;

static void *sym(const char *name)
{
    void *f = dlsym(lib, name);
    if (!f) {
        printf("mismatch: no %s in libnvidia-ml.so.1\n", name);
        exit(1);
    }
    return f;
}
#define SYM(name) ((__typeof__(&name))sym(#name))

/* The far end of each of GPU g's links: bus id ("" when down), and
 * whether it is an NVSwitch. */
struct far {
    char bus[MAX_LINKS][NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    int sw[MAX_LINKS];
};

static void links_of(nvmlDevice_t d, struct far *f)
{
    memset(f, 0, sizeof(*f));
    for (unsigned l = 0; l < MAX_LINKS; l++) {
        nvmlEnableState_t on;
        unsigned cap;
        nvmlPciInfo_t pci;
        nvmlIntNvLinkDeviceType_t type;
        if (SYM(nvmlDeviceGetNvLinkState)(d, l, &on) != NVML_SUCCESS ||
            on != NVML_FEATURE_ENABLED) {
            continue;
        }
        EXPECT(SYM(nvmlDeviceGetNvLinkCapability)(
                   d, l, NVML_NVLINK_CAP_P2P_SUPPORTED, &cap) ==
                       NVML_SUCCESS && cap == 1,
               "link %u up but P2P_SUPPORTED not 1", l);
        EXPECT(SYM(nvmlDeviceGetNvLinkRemotePciInfo_v2)(d, l, &pci) ==
                   NVML_SUCCESS,
               "link %u up without remote PCI info", l);
        EXPECT(SYM(nvmlDeviceGetNvLinkRemoteDeviceType)(d, l, &type) ==
                   NVML_SUCCESS,
               "link %u up without remote device type", l);
        snprintf(f->bus[l], sizeof(f->bus[l]), "%s", pci.busIdLegacy);
        f->sw[l] = type == NVML_NVLINK_DEVICE_TYPE_SWITCH;
    }
}

/* NVLinks between GPUs a and b: direct ones, plus through each NVSwitch
 * the fewer of a's and b's links into it (as nvidia-smi counts NV#). */
static unsigned nv_between(const struct far *fa, const char *bus_b,
                           const struct far *fb)
{
    unsigned n = 0;
    for (unsigned l = 0; l < MAX_LINKS; l++) {
        if (fa->bus[l][0] && !fa->sw[l] && strcasecmp(fa->bus[l], bus_b) == 0) {
            n++;
        }
    }
    for (unsigned l = 0; l < MAX_LINKS; l++) {
        if (!fa->sw[l]) {
            continue;
        }
        int first = 1;          /* count each switch once */
        for (unsigned k = 0; k < l; k++) {
            first = first && !(fa->sw[k] && !strcmp(fa->bus[k], fa->bus[l]));
        }
        if (!first) {
            continue;
        }
        unsigned na = 0, nb = 0;
        for (unsigned k = 0; k < MAX_LINKS; k++) {
            na += fa->sw[k] && !strcmp(fa->bus[k], fa->bus[l]);
            nb += fb->sw[k] && !strcmp(fb->bus[k], fa->bus[l]);
        }
        n += na < nb ? na : nb;
    }
    return n;
}

static const char *level_name(nvmlGpuTopologyLevel_t l)
{
    switch (l) {
    case NVML_TOPOLOGY_INTERNAL: return " X ";
    case NVML_TOPOLOGY_SINGLE: return "PIX";
    case NVML_TOPOLOGY_MULTIPLE: return "PXB";
    case NVML_TOPOLOGY_HOSTBRIDGE: return "PHB";
    case NVML_TOPOLOGY_NODE: return "NODE";
    default: return "SYS";
    }
}

/* The calls NCCL makes besides (PciInfoExt in NCCL's shorter layout
 * too, field values, ...), and the nearest GPUs, on one device. */
static void other_calls(nvmlDevice_t d, const nvmlPciInfo_t *pci, unsigned n)
{
    nvmlPciInfoExt_t ext = { .version = nvmlPciInfoExt_v1 };
    EXPECT(SYM(nvmlDeviceGetPciInfoExt)(d, &ext) == NVML_SUCCESS &&
               !strcmp(ext.busId, pci->busId) && ext.baseClass == 3,
           "PciInfoExt: %s class %u", ext.busId, ext.baseClass);
    memset(&ext, 0x55, sizeof(ext));
    ext.version = (unsigned)(offsetof(nvmlPciInfoExt_t, busId) + 16) | 1u << 24;
    EXPECT(SYM(nvmlDeviceGetPciInfoExt)(d, &ext) == NVML_SUCCESS &&
               !strcmp(ext.busId, pci->busIdLegacy) &&
               ext.busId[16] == 0x55,
           "PciInfoExt with a 16-byte busId: %.16s", ext.busId);
    nvmlFieldValue_t fv[2] = { { .fieldId = NVML_FI_DEV_NVLINK_GET_STATE },
                               { .fieldId = 1 } };
    nvmlEnableState_t on = NVML_FEATURE_DISABLED;
    nvmlReturn_t st = SYM(nvmlDeviceGetNvLinkState)(d, 0, &on);
    EXPECT(SYM(nvmlDeviceGetFieldValues)(d, 2, fv) == NVML_SUCCESS &&
               fv[0].nvmlReturn == st &&
               (st || fv[0].value.uiVal == (unsigned)on) &&
               fv[1].nvmlReturn == NVML_ERROR_NOT_SUPPORTED,
           "field values: %d %u, %d", (int)fv[0].nvmlReturn,
           fv[0].value.uiVal, (int)fv[1].nvmlReturn);
    unsigned count = 0;
    EXPECT(SYM(nvmlDeviceGetTopologyNearestGpus)(d, NVML_TOPOLOGY_SYSTEM,
                                                 &count, NULL) ==
                   NVML_SUCCESS && count == n - 1,
           "%u GPUs within SYSTEM", count);
    unsigned long cpus[4] = { 0 };
    EXPECT(SYM(nvmlDeviceGetCpuAffinity)(d, 4, cpus) == NVML_SUCCESS &&
               (cpus[0] | cpus[1] | cpus[2] | cpus[3]),
           "no CPU affinity");
    nvmlComputeMode_t mode;
    EXPECT(SYM(nvmlDeviceGetComputeMode)(d, &mode) == NVML_SUCCESS &&
               mode == NVML_COMPUTEMODE_DEFAULT, "compute mode");
}

int main(void)
{
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) {
        printf("mismatch: dlopen: %s\n", dlerror());
        return 1;
    }
    EXPECT(SYM(nvmlDeviceGetCount_v2)(&(unsigned){ 0 }) ==
               NVML_ERROR_UNINITIALIZED, "a call before nvmlInit succeeds");
    EXPECT(SYM(nvmlInit_v2)() == NVML_SUCCESS, "nvmlInit_v2 fails");
    unsigned n = 0;
    int cn = 0;
    EXPECT(SYM(nvmlDeviceGetCount_v2)(&n) == NVML_SUCCESS, "no count");
    cudaGetDeviceCount(&cn);
    EXPECT(n == (unsigned)cn, "count %u, CUDA's %d", n, cn);
    printf("count: %u\n", n);
    if (n > MAX_GPUS) {
        n = MAX_GPUS;
    }
    nvmlDevice_t d[MAX_GPUS];
    char bus[MAX_GPUS][NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    struct far far[MAX_GPUS];
    for (unsigned i = 0; i < n; i++) {
        nvmlPciInfo_t pci;
        char cbus[32], uuid[NVML_DEVICE_UUID_BUFFER_SIZE];
        char name[NVML_DEVICE_NAME_BUFFER_SIZE];
        struct cudaDeviceProp p;
        nvmlDevice_t h;
        unsigned idx;
        EXPECT(SYM(nvmlDeviceGetHandleByIndex_v2)(i, &d[i]) == NVML_SUCCESS,
               "no handle %u", i);
        SYM(nvmlDeviceGetPciInfo_v3)(d[i], &pci);
        cudaDeviceGetPCIBusId(cbus, sizeof(cbus), (int)i);
        EXPECT(strcmp(pci.busIdLegacy, cbus) == 0, "GPU %u: bus id %s, "
               "CUDA's %s", i, pci.busIdLegacy, cbus);
        snprintf(bus[i], sizeof(bus[i]), "%s", pci.busIdLegacy);
        printf("GPU%u: %s %s\n", i, pci.busIdLegacy, pci.busId);
        EXPECT(SYM(nvmlDeviceGetHandleByPciBusId_v2)(cbus, &h) ==
                   NVML_SUCCESS && h == d[i], "GPU %u not found by %s", i,
               cbus);
        EXPECT(SYM(nvmlDeviceGetHandleByPciBusId_v2)(pci.busId, &h) ==
                   NVML_SUCCESS && h == d[i], "GPU %u not found by %s", i,
               pci.busId);
        EXPECT(SYM(nvmlDeviceGetIndex)(d[i], &idx) == NVML_SUCCESS &&
                   idx == i, "GPU %u: index %u", i, idx);
        cudaGetDeviceProperties(&p, (int)i);
        SYM(nvmlDeviceGetName)(d[i], name, sizeof(name));
        EXPECT(strcmp(name, p.name) == 0, "GPU %u: name %s, CUDA's %s", i,
               name, p.name);
        SYM(nvmlDeviceGetUUID)(d[i], uuid, sizeof(uuid));
        EXPECT(SYM(nvmlDeviceGetHandleByUUID)(uuid, &h) == NVML_SUCCESS &&
                   h == d[i], "GPU %u not found by %s", i, uuid);
        EXPECT(strlen(uuid) == 40 && strncmp(uuid, "GPU-", 4) == 0 &&
                   strtoul(uuid + 4, NULL, 16) ==
                       ((unsigned)(unsigned char)p.uuid.bytes[0] << 24 |
                        (unsigned)(unsigned char)p.uuid.bytes[1] << 16 |
                        (unsigned)(unsigned char)p.uuid.bytes[2] << 8 |
                        (unsigned char)p.uuid.bytes[3]),
               "GPU %u: UUID %s is not CUDA's", i, uuid);
        int major, minor;
        SYM(nvmlDeviceGetCudaComputeCapability)(d[i], &major, &minor);
        EXPECT(major == p.major && minor == p.minor, "GPU %u: sm %d.%d", i,
               major, minor);
        nvmlMemory_t mem;
        SYM(nvmlDeviceGetMemoryInfo)(d[i], &mem);
        EXPECT(mem.total == p.totalGlobalMem, "GPU %u: memory %llu", i,
               mem.total);
        links_of(d[i], &far[i]);
        other_calls(d[i], &pci, n);
    }
    for (unsigned i = 0; i < n; i++) {
        for (unsigned l = 0; l < MAX_LINKS; l++) {
            unsigned count = 0;
            int first = far[i].bus[l][0] != 0;
            for (unsigned k = 0; k < MAX_LINKS; k++) {
                int same = !strcmp(far[i].bus[k], far[i].bus[l]);
                first = first && !(same && k < l);
                count += (unsigned)same;
            }
            char low[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
            snprintf(low, sizeof(low), "%s", far[i].bus[l]);
            for (char *c = low; *c; c++) {
                *c = (char)tolower((unsigned char)*c);
            }
            if (first) {
                printf("nvlink %u %s %u\n", i, low, count);
            }
        }
    }
    printf("\n");
    for (unsigned j = 0; j < n; j++) {
        printf("\tGPU%u", j);
    }
    printf("\n");
    for (unsigned i = 0; i < n; i++) {
        printf("GPU%u\t", i);
        for (unsigned j = 0; j < n; j++) {
            nvmlGpuTopologyLevel_t lv;
            SYM(nvmlDeviceGetTopologyCommonAncestor)(d[i], d[j], &lv);
            unsigned nv = i == j ? 0 : nv_between(&far[i], bus[j], &far[j]);
            if (nv) {
                printf("NV%u\t", nv);
            } else {
                printf("%s\t", level_name(lv));
            }
        }
        printf("\n");
    }
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = 0; j < n; j++) {
            nvmlGpuTopologyLevel_t lv;
            SYM(nvmlDeviceGetTopologyCommonAncestor)(d[i], d[j], &lv);
            if (i != j) {
                printf("level %u %u %s\n", i, j, level_name(lv));
            }
        }
    }
    printf("\nP2P (nvmlDeviceGetP2PStatus):\n");
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = 0; j < n; j++) {
            nvmlGpuP2PStatus_t w;
            int can = 0;
            SYM(nvmlDeviceGetP2PStatus)(d[i], d[j], NVML_P2P_CAPS_INDEX_WRITE,
                                        &w);
            if (i != j) {
                cudaDeviceCanAccessPeer(&can, (int)i, (int)j);
            }
            EXPECT((w == NVML_P2P_STATUS_OK) == (can == 1),
                   "P2P %u->%u: NVML status %d, cudaDeviceCanAccessPeer %d",
                   i, j, (int)w, can);
            nvmlGpuP2PStatus_t at, nvl;
            int natomic = 0;
            SYM(nvmlDeviceGetP2PStatus)(d[i], d[j],
                                        NVML_P2P_CAPS_INDEX_ATOMICS, &at);
            SYM(nvmlDeviceGetP2PStatus)(d[i], d[j],
                                        NVML_P2P_CAPS_INDEX_NVLINK, &nvl);
            if (i != j) {
                cudaDeviceGetP2PAttribute(&natomic,
                                          cudaDevP2PAttrNativeAtomicSupported,
                                          (int)i, (int)j);
            }
            EXPECT((at == NVML_P2P_STATUS_OK) == (natomic == 1),
                   "atomics %u->%u: NVML status %d, CUDA's %d", i, j, (int)at,
                   natomic);
            EXPECT(nvl != NVML_P2P_STATUS_OK ||
                       (w == NVML_P2P_STATUS_OK &&
                        nv_between(&far[i], bus[j], &far[j]) > 0),
                   "P2P %u->%u over NVLink without NVLinks", i, j);
            printf("%5d", w == NVML_P2P_STATUS_OK);
        }
        printf("\n");
    }
    EXPECT(SYM(nvmlShutdown)() == NVML_SUCCESS, "nvmlShutdown fails");
    /* an unserved export: NOT_SUPPORTED (and one p2psim line) */
    unsigned temp;
    EXPECT(((nvmlReturn_t(*)(nvmlDevice_t, int, unsigned *))sym(
               "nvmlDeviceGetTemperature"))(d[0], 0, &temp) ==
               NVML_ERROR_NOT_SUPPORTED,
           "nvmlDeviceGetTemperature is served");
    return failed;
}
