/*
 * cuda/nvml/nvml_device.c - NVML's initialization, errors and versions,
 * and the devices: handles by index, PCI bus id and UUID, names, PCI
 * identity and link, memory, compute capability and mode.
 *
 * Every answer is the simulated machine's, read through the runtime
 * (nvml_int.h): the names, UUIDs and bus ids are cudaGetDeviceProperties'
 * and cudaDeviceGetPCIBusId's.
 */
#include <config.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cuda/nvml/nvml_int.h"
#include "machine/p2psim.h"

const struct p2psim_drv_machine *nvml_m;
unsigned nvml_n_dev;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned init_count;     /* nvmlInit calls not yet shut down */
static struct nvmlDevice_st *devs;

/* ---- initialization ------------------------------------------------------- */

nvmlReturn_t nvmlInit_v2(void)
{
    nvmlReturn_t r = NVML_SUCCESS;
    pthread_mutex_lock(&init_lock);
    if (init_count == 0) {
        const struct p2psim_drv_machine *m = p2psim_drv_machine();
        unsigned n = m ? m->gpu_count(m->p) : 0;
        if (!devs && n) {
            devs = calloc(n, sizeof(*devs));
            for (unsigned i = 0; devs && i < n; i++) {
                devs[i].index = i;
            }
        }
        if (!m) {
            r = NVML_ERROR_DRIVER_NOT_LOADED;
        } else if (n && !devs) {
            r = NVML_ERROR_MEMORY;
        } else {
            nvml_n_dev = n;
            __atomic_store_n(&nvml_m, m, __ATOMIC_RELEASE);
        }
    }
    if (r == NVML_SUCCESS) {
        init_count++;
    }
    pthread_mutex_unlock(&init_lock);
    return r;
}

nvmlReturn_t nvmlInit(void)
{
    return nvmlInit_v2();
}

/* flags: NVML_INIT_FLAG_NO_GPUS (1) and _NO_ATTACH (2) change nothing
 * here: the machine's GPUs are always there and never attached. */
nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
    (void)flags;
    return nvmlInit_v2();
}

/* The devices stay allocated: a handle kept past the last shutdown reads
 * NVML_ERROR_UNINITIALIZED, never freed memory. */
nvmlReturn_t nvmlShutdown(void)
{
    nvmlReturn_t r = NVML_SUCCESS;
    pthread_mutex_lock(&init_lock);
    if (init_count == 0) {
        r = NVML_ERROR_UNINITIALIZED;
    } else if (--init_count == 0) {
        __atomic_store_n(&nvml_m, NULL, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&init_lock);
    return r;
}

static const struct {
    nvmlReturn_t r;
    const char *s;
} error_strings[] = {
    { NVML_SUCCESS, "Success" },
    { NVML_ERROR_UNINITIALIZED, "Uninitialized" },
    { NVML_ERROR_INVALID_ARGUMENT, "Invalid Argument" },
    { NVML_ERROR_NOT_SUPPORTED, "Not Supported" },
    { NVML_ERROR_NO_PERMISSION, "Insufficient Permissions" },
    { NVML_ERROR_ALREADY_INITIALIZED, "Already Initialized" },
    { NVML_ERROR_NOT_FOUND, "Not Found" },
    { NVML_ERROR_INSUFFICIENT_SIZE, "Insufficient Size" },
    { NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded" },
    { NVML_ERROR_TIMEOUT, "Timeout" },
    { NVML_ERROR_LIBRARY_NOT_FOUND, "NVML Shared Library Not Found" },
    { NVML_ERROR_FUNCTION_NOT_FOUND, "Function Not Found" },
    { NVML_ERROR_GPU_IS_LOST, "GPU is lost" },
    { NVML_ERROR_IN_USE, "In use by another client" },
    { NVML_ERROR_MEMORY, "Insufficient Memory" },
    { NVML_ERROR_NO_DATA, "No data" },
    { NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
      "Struct version mismatch" },
    { NVML_ERROR_DEPRECATED, "Deprecated" },
    { NVML_ERROR_NOT_READY, "Not Ready" },
    { NVML_ERROR_GPU_NOT_FOUND, "GPU not found" },
    { NVML_ERROR_INVALID_STATE, "Invalid state" },
};

const char *nvmlErrorString(nvmlReturn_t result)
{
    for (size_t i = 0; i < sizeof(error_strings) / sizeof(error_strings[0]);
         i++) {
        if (error_strings[i].r == result) {
            return error_strings[i].s;
        }
    }
    return "Unknown Error";
}

/* ---- the system ----------------------------------------------------------- */

/* The driver is the simulator, which serves CUDA 13.0 (cudaDriverGetVersion
 * says 13000); the version string is a driver branch of CUDA 13.0. */
#define NVML_DRIVER_VERSION "580.65.06"
#define NVML_LIB_VERSION "13.580.65.06"

static nvmlReturn_t copy_string(char *buf, unsigned int length, const char *s)
{
    if (!buf) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (strlen(s) + 1 > length) {
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    memcpy(buf, s, strlen(s) + 1);
    return NVML_SUCCESS;
}

static nvmlReturn_t ready(void)
{
    return __atomic_load_n(&nvml_m, __ATOMIC_ACQUIRE)
               ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    nvmlReturn_t r = ready();
    return r ? r : copy_string(version, length, NVML_DRIVER_VERSION);
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    return copy_string(version, length, NVML_LIB_VERSION);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
    if (!cudaDriverVersion) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *cudaDriverVersion = 13000;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
    return nvmlSystemGetCudaDriverVersion(cudaDriverVersion);
}

/* Model: confidential computing is off on every simulated machine. */
nvmlReturn_t nvmlSystemGetConfComputeState(nvmlConfComputeSystemState_t *s)
{
    nvmlReturn_t r = ready();
    if (r || !s) {
        return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    }
    memset(s, 0, sizeof(*s));
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetConfComputeSettings(nvmlSystemConfComputeSettings_t *s)
{
    nvmlReturn_t r = ready();
    if (r || !s) {
        return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    }
    if (s->version != nvmlSystemConfComputeSettings_v1) {
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    memset(s, 0, sizeof(*s));
    s->version = nvmlSystemConfComputeSettings_v1;
    return NVML_SUCCESS;
}

/* ---- devices --------------------------------------------------------------- */

int nvml_dev(nvmlDevice_t d, nvmlReturn_t *err)
{
    if (ready()) {
        *err = NVML_ERROR_UNINITIALIZED;
        return -1;
    }
    if (!d || !devs || d < devs || d >= devs + nvml_n_dev) {
        *err = NVML_ERROR_INVALID_ARGUMENT;
        return -1;
    }
    return (int)d->index;
}

nvmlDevice_t nvml_handle(unsigned g)
{
    return &devs[g];
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
    nvmlReturn_t r = ready();
    if (r || !deviceCount) {
        return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    }
    *deviceCount = nvml_n_dev;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
{
    return nvmlDeviceGetCount_v2(deviceCount);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                           nvmlDevice_t *device)
{
    nvmlReturn_t r = ready();
    if (r || !device || index >= nvml_n_dev) {
        return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    }
    *device = nvml_handle(index);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index,
                                        nvmlDevice_t *device)
{
    return nvmlDeviceGetHandleByIndex_v2(index, device);
}

void nvml_pci_fill(nvmlPciInfo_t *pci, const unsigned a[4], unsigned ids,
                   unsigned subsystem)
{
    memset(pci, 0, sizeof(*pci));
    snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.%X",
             a[0], a[1], a[2], a[3]);
    snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.%X", a[0],
             a[1], a[2], a[3]);
    pci->domain = a[0], pci->bus = a[1], pci->device = a[2];
    pci->pciDeviceId = ids;
    pci->pciSubSystemId = subsystem;
}

void nvml_pci_v1(const nvmlPciInfo_t *v3, nvmlPciInfo_v1_t *v1)
{
    memset(v1, 0, sizeof(*v1));
    memcpy(v1->busId, v3->busIdLegacy, sizeof(v1->busId));
    v1->domain = v3->domain, v1->bus = v3->bus, v1->device = v3->device;
    v1->pciDeviceId = v3->pciDeviceId;
    v1->pciSubSystemId = v3->pciSubSystemId;
}

/* One hexadecimal field of a bus id, ending at a char of ends. */
static int hex_field(const char **s, const char *ends, unsigned *out)
{
    char *end;
    unsigned long v = strtoul(*s, &end, 16);
    if (end == *s || !strchr(ends, *end) || v > 0xffffffffUL) {
        return -1;
    }
    *out = (unsigned)v;
    *s = *end ? end + 1 : end;
    return 0;
}

/* "domain:bus:device.function", "domain:bus:device" or
 * "bus:device.function", hexadecimal, any case (NVML takes them all). */
static int parse_bus_id(const char *id, unsigned a[4])
{
    unsigned f[4] = { 0, 0, 0, 0 };
    const char *s = id;
    int n = 0;
    while (n < 4 && *s) {
        if (hex_field(&s, ":.", &f[n]) < 0) {
            return -1;
        }
        n++;
    }
    bool dotted = strchr(id, '.') != NULL;
    if (n == 4 && dotted) {
        memcpy(a, f, sizeof(f));
    } else if (n == 3 && !dotted) {
        a[0] = f[0], a[1] = f[1], a[2] = f[2], a[3] = 0;
    } else if (n == 3) {
        a[0] = 0, a[1] = f[0], a[2] = f[1], a[3] = f[2];
    } else {
        return -1;
    }
    return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId,
                                              nvmlDevice_t *device)
{
    nvmlReturn_t r = ready();
    unsigned want[4];
    if (r || !pciBusId || !device) {
        return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    }
    if (parse_bus_id(pciBusId, want) < 0) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    for (unsigned g = 0; g < nvml_n_dev; g++) {
        unsigned have[4];
        nvml_m->gpu_pci_address(nvml_m->p, g, &have[0], &have[1], &have[2],
                                &have[3]);
        if (memcmp(have, want, sizeof(have)) == 0) {
            *device = nvml_handle(g);
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId,
                                           nvmlDevice_t *device)
{
    return nvmlDeviceGetHandleByPciBusId_v2(pciBusId, device);
}

/* "GPU-" and the runtime's UUID, 8-4-4-4-12 hexadecimal digits. */
static void uuid_string(unsigned g, char out[NVML_DEVICE_UUID_BUFFER_SIZE])
{
    struct cudaDeviceProp p;
    p2psim_drv_device_props((int)g, &p);
    const unsigned char *b = (const unsigned char *)p.uuid.bytes;
    int n = snprintf(out, NVML_DEVICE_UUID_BUFFER_SIZE, "GPU-");
    for (unsigned i = 0; i < 16; i++) {
        n += snprintf(out + n, (size_t)(NVML_DEVICE_UUID_BUFFER_SIZE - n),
                      "%s%02x", i == 4 || i == 6 || i == 8 || i == 10
                                    ? "-" : "", b[i]);
    }
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
    nvmlReturn_t r = ready();
    if (r || !uuid || !device) {
        return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    }
    for (unsigned g = 0; g < nvml_n_dev; g++) {
        char s[NVML_DEVICE_UUID_BUFFER_SIZE];
        uuid_string(g, s);
        if (strcasecmp(s, uuid) == 0) {
            *device = nvml_handle(g);
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid,
                               unsigned int length)
{
    NVML_DEV(g, device);
    char s[NVML_DEVICE_UUID_BUFFER_SIZE];
    uuid_string((unsigned)g, s);
    return copy_string(uuid, length, s);
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
    NVML_DEV(g, device);
    if (!index) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *index = (unsigned)g;
    return NVML_SUCCESS;
}

/* Model: /dev/nvidiaN in the CUDA order. */
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device,
                                      unsigned int *minorNumber)
{
    return nvmlDeviceGetIndex(device, minorNumber);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name,
                               unsigned int length)
{
    NVML_DEV(g, device);
    struct cudaDeviceProp p;
    p2psim_drv_device_props(g, &p);
    return copy_string(name, length, p.name);
}

/* ---- PCI ------------------------------------------------------------------- */

/* GPU g's address and ids. */
static void pci_of(unsigned g, unsigned a[4], struct p2psim_pci_ids *ids)
{
    nvml_m->gpu_pci_address(nvml_m->p, g, &a[0], &a[1], &a[2], &a[3]);
    nvml_m->gpu_pci_ids(nvml_m->p, g, ids);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    NVML_DEV(g, device);
    if (!pci) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    unsigned a[4];
    struct p2psim_pci_ids ids;
    pci_of((unsigned)g, a, &ids);
    nvml_pci_fill(pci, a, ids.device << 16 | ids.vendor,
                  ids.subsystem_device << 16 | ids.subsystem_vendor);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device,
                                     nvmlPciInfo_v1_t *pci)
{
    nvmlPciInfo_t v3;
    nvmlReturn_t r = nvmlDeviceGetPciInfo_v3(device, &v3);
    if (r || !pci) {
        return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    }
    nvml_pci_v1(&v3, pci);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_v1_t *pci)
{
    return nvmlDeviceGetPciInfo_v2(device, pci);
}

/*
 * Version 1 of the struct, of the size the caller says: NCCL's own
 * declaration has a 16-byte busId (48 bytes, not 64), so a shorter one
 * gets the id cut to fit ("DDDDDDDD:BB:DD.F" needs 17 with its NUL: it
 * then holds the legacy "DDDD:BB:DD.F").
 */
nvmlReturn_t nvmlDeviceGetPciInfoExt(nvmlDevice_t device,
                                     nvmlPciInfoExt_t *pci)
{
    NVML_DEV(g, device);
    const size_t id_at = offsetof(nvmlPciInfoExt_t, busId);
    if (!pci) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    unsigned version = pci->version, size = version & 0xffffff;
    if (version >> 24 != 1 || size < id_at + 13 || size > sizeof(*pci)) {
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    unsigned a[4];
    struct p2psim_pci_ids ids;
    pci_of((unsigned)g, a, &ids);
    memset(pci, 0, size);
    pci->version = version;
    pci->domain = a[0], pci->bus = a[1], pci->device = a[2];
    pci->pciDeviceId = ids.device << 16 | ids.vendor;
    pci->pciSubSystemId = ids.subsystem_device << 16 | ids.subsystem_vendor;
    pci->baseClass = ids.class_code >> 16;
    pci->subClass = (ids.class_code >> 8) & 0xff;
    snprintf(pci->busId, size - id_at, size - id_at > 16 ? "%08X:%02X:%02X.%X"
                                                        : "%04X:%02X:%02X.%X",
             a[0], a[1], a[2], a[3]);
    return NVML_SUCCESS;
}

/* The link as trained (the machine file's, after negotiation); the
 * maximum is taken to be the same (the model has no idle downshift). */
static nvmlReturn_t pcie_link(nvmlDevice_t device, unsigned *gen,
                              unsigned *width)
{
    NVML_DEV(g, device);
    nvml_m->gpu_link(nvml_m->p, (unsigned)g, gen, width);
    return *gen ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device,
                                                 unsigned int *gen)
{
    unsigned w;
    return gen ? pcie_link(device, gen, &w) : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device,
                                                unsigned int *gen)
{
    return nvmlDeviceGetCurrPcieLinkGeneration(device, gen);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device,
                                            unsigned int *width)
{
    unsigned gen;
    return width ? pcie_link(device, &gen, width)
                 : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device,
                                           unsigned int *width)
{
    return nvmlDeviceGetCurrPcieLinkWidth(device, width);
}

/* The link's transfer rate per lane in MT/s (NVML_PCIE_LINK_MAX_SPEED_*:
 * 2500, 5000, 8000, 16000, 32000, 64000). */
nvmlReturn_t nvmlDeviceGetPcieLinkMaxSpeed(nvmlDevice_t device,
                                           unsigned int *maxSpeed)
{
    static const unsigned rate[] = { 0, 2500, 5000, 8000, 16000, 32000,
                                     64000 };
    unsigned gen, width;
    if (!maxSpeed) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nvmlReturn_t r = pcie_link(device, &gen, &width);
    if (r == NVML_SUCCESS) {
        *maxSpeed = gen < sizeof(rate) / sizeof(rate[0]) ? rate[gen] : 0;
    }
    return r;
}

/* ---- memory, compute -------------------------------------------------------- */

/* Model: used is what this process allocated (cudaMemGetInfo's figure);
 * nothing is reserved by the driver. */
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device,
                                        nvmlMemory_v2_t *memory)
{
    NVML_DEV(g, device);
    uint64_t used = 0, total = 0;
    if (!memory) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (memory->version != nvmlMemory_v2) {
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    p2psim_drv_mem_info(g, &used, &total);
    memory->total = total;
    memory->reserved = 0;
    memory->used = used < total ? used : total;
    memory->free = total - memory->used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device,
                                     nvmlMemory_t *memory)
{
    nvmlMemory_v2_t v2 = { .version = nvmlMemory_v2 };
    if (!memory) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nvmlReturn_t r = nvmlDeviceGetMemoryInfo_v2(device, &v2);
    if (r == NVML_SUCCESS) {
        memory->total = v2.total;
        memory->free = v2.free;
        memory->used = v2.used;
    }
    return r;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device,
                                                int *major, int *minor)
{
    NVML_DEV(g, device);
    struct p2psim_gpu_desc d;
    if (!major || !minor) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nvml_m->gpu_describe(nvml_m->p, (unsigned)g, &d);
    *major = (int)d.cc_major;
    *minor = (int)d.cc_minor;
    return NVML_SUCCESS;
}

/* Model: every GPU in the default compute mode (cudaComputeModeDefault). */
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device,
                                      nvmlComputeMode_t *mode)
{
    NVML_DEV(g, device);
    (void)g;
    if (!mode) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *mode = NVML_COMPUTEMODE_DEFAULT;
    return NVML_SUCCESS;
}

/* Model: MIG is never enabled; NOT_SUPPORTED for products without it
 * (before compute capability 8.0, and GeForce and workstation boards). */
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device,
                                  unsigned int *currentMode,
                                  unsigned int *pendingMode)
{
    NVML_DEV(g, device);
    struct p2psim_gpu_desc d;
    if (!currentMode || !pendingMode) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    nvml_m->gpu_describe(nvml_m->p, (unsigned)g, &d);
    if (d.cc_major < 8 || d.cls != P2PSIM_GPU_DATACENTER) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *currentMode = *pendingMode = NVML_DEVICE_MIG_DISABLE;
    return NVML_SUCCESS;
}

/* Model: no GPU of a simulated machine belongs to a multi-node NVLink
 * fabric (the state NCCL's MNNVL detection reads), NVSwitch or not. */
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device,
                                         nvmlGpuFabricInfoV_t *info)
{
    NVML_DEV(g, device);
    (void)g;
    if (!info) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    return NVML_ERROR_NOT_SUPPORTED;
}

/* An unserved function was called (unserved.c): said once per function. */
int nvml_unserved(const char *name, int *said);
int nvml_unserved(const char *name, int *said)
{
    if (!__atomic_exchange_n(said, 1, __ATOMIC_RELAXED)) {
        fprintf(stderr, "p2psim: %s is not served by p2psim's NVML: "
                "NVML_ERROR_NOT_SUPPORTED\n", name);
    }
    return NVML_ERROR_NOT_SUPPORTED;
}
