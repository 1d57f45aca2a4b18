/*
 * cuda/nvml/nvml.h - the part of NVIDIA's management library (NVML,
 * libnvidia-ml.so.1) that p2psim serves: the types, values and
 * signatures of its public API, written here for p2psim (the layouts and
 * numbers are the ABI programs are built against; nothing is taken from
 * NVIDIA's header). Programs built against NVIDIA's nvml.h call these.
 *
 * What each call answers on a simulated machine: docs/nvml.md.
 */
#ifndef P2PSIM_CUDA_NVML_NVML_H
#define P2PSIM_CUDA_NVML_NVML_H

#if defined(__cplusplus)
extern "C" {
#endif

typedef enum nvmlReturn_enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_ALREADY_INITIALIZED = 5,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_INSUFFICIENT_POWER = 8,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_IRQ_ISSUE = 11,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_CORRUPTED_INFOROM = 14,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_RESET_REQUIRED = 16,
    NVML_ERROR_OPERATING_SYSTEM = 17,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    NVML_ERROR_IN_USE = 19,
    NVML_ERROR_MEMORY = 20,
    NVML_ERROR_NO_DATA = 21,
    NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
    NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
    NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_DEPRECATED = 26,
    NVML_ERROR_NOT_READY = 27,
    NVML_ERROR_GPU_NOT_FOUND = 28,
    NVML_ERROR_INVALID_STATE = 29,
    NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

/* A device: an opaque pointer to the library's own record. */
typedef struct nvmlDevice_st *nvmlDevice_t;

/* A versioned struct's version word: its size, and the version << 24. */
#define NVML_STRUCT_VERSION(data, ver)                                       \
    (unsigned int)(sizeof(nvml##data##_v##ver##_t) | ((ver) << 24U))

#define NVML_DEVICE_UUID_BUFFER_SIZE 80
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_NAME_BUFFER_SIZE 64
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_NVLINK_MAX_LINKS 18

/* nvmlDeviceGetPciInfo / _v2 and nvmlDeviceGetNvLinkRemotePciInfo: the
 * first layout; busId "DDDD:BB:DD.F". */
typedef struct nvmlPciInfo_v1_st {
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;   /* device id << 16 | vendor id */
    unsigned int pciSubSystemId;/* subsystem device << 16 | vendor */
    unsigned int reserved[4];
} nvmlPciInfo_v1_t;

/* nvmlDeviceGetPciInfo_v3, nvmlDeviceGetNvLinkRemotePciInfo_v2: busId
 * "DDDDDDDD:BB:DD.F", busIdLegacy "DDDD:BB:DD.F". */
typedef struct nvmlPciInfo_st {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct {
    unsigned int version;       /* nvmlPciInfoExt_v1 */
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    unsigned int baseClass;
    unsigned int subClass;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfoExt_v1_t;
typedef nvmlPciInfoExt_v1_t nvmlPciInfoExt_t;
#define nvmlPciInfoExt_v1 NVML_STRUCT_VERSION(PciInfoExt, 1)

typedef struct nvmlMemory_st {
    unsigned long long total, free, used;   /* bytes */
} nvmlMemory_t;

typedef struct {
    unsigned int version;       /* nvmlMemory_v2 */
    unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 NVML_STRUCT_VERSION(Memory, 2)

typedef enum nvmlEnableState_enum {
    NVML_FEATURE_DISABLED = 0,
    NVML_FEATURE_ENABLED = 1
} nvmlEnableState_t;

typedef enum nvmlNvLinkCapability_enum {
    NVML_NVLINK_CAP_P2P_SUPPORTED = 0,
    NVML_NVLINK_CAP_SYSMEM_ACCESS = 1,
    NVML_NVLINK_CAP_P2P_ATOMICS = 2,
    NVML_NVLINK_CAP_SYSMEM_ATOMICS = 3,
    NVML_NVLINK_CAP_SLI_BRIDGE = 4,
    NVML_NVLINK_CAP_VALID = 5,
    NVML_NVLINK_CAP_COUNT
} nvmlNvLinkCapability_t;

typedef enum nvmlIntNvLinkDeviceType_enum {
    NVML_NVLINK_DEVICE_TYPE_GPU = 0x00,
    NVML_NVLINK_DEVICE_TYPE_IBMNPU = 0x01,
    NVML_NVLINK_DEVICE_TYPE_SWITCH = 0x02,
    NVML_NVLINK_DEVICE_TYPE_UNKNOWN = 0xFF
} nvmlIntNvLinkDeviceType_t;

typedef enum nvmlGpuP2PCapsIndex_enum {
    NVML_P2P_CAPS_INDEX_READ = 0,
    NVML_P2P_CAPS_INDEX_WRITE = 1,
    NVML_P2P_CAPS_INDEX_NVLINK = 2,
    NVML_P2P_CAPS_INDEX_ATOMICS = 3,
    NVML_P2P_CAPS_INDEX_PROP = 4,
    NVML_P2P_CAPS_INDEX_UNKNOWN = 5
} nvmlGpuP2PCapsIndex_t;

typedef enum nvmlGpuP2PStatus_enum {
    NVML_P2P_STATUS_OK = 0,
    NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED = 1,
    NVML_P2P_STATUS_GPU_NOT_SUPPORTED = 2,
    NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED = 3,
    NVML_P2P_STATUS_DISABLED_BY_REGKEY = 4,
    NVML_P2P_STATUS_NOT_SUPPORTED = 5,
    NVML_P2P_STATUS_UNKNOWN = 6
} nvmlGpuP2PStatus_t;

typedef enum nvmlGpuLevel_enum {
    NVML_TOPOLOGY_INTERNAL = 0,
    NVML_TOPOLOGY_SINGLE = 10,
    NVML_TOPOLOGY_MULTIPLE = 20,
    NVML_TOPOLOGY_HOSTBRIDGE = 30,
    NVML_TOPOLOGY_NODE = 40,
    NVML_TOPOLOGY_SYSTEM = 50
} nvmlGpuTopologyLevel_t;

typedef enum nvmlComputeMode_enum {
    NVML_COMPUTEMODE_DEFAULT = 0,
    NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
    NVML_COMPUTEMODE_PROHIBITED = 2,
    NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3
} nvmlComputeMode_t;

#define NVML_DEVICE_MIG_DISABLE 0
#define NVML_DEVICE_MIG_ENABLE 1

typedef unsigned int nvmlAffinityScope_t;
#define NVML_AFFINITY_SCOPE_NODE 0
#define NVML_AFFINITY_SCOPE_SOCKET 1

/* nvmlDeviceGetFieldValues */
typedef enum nvmlValueType_enum {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5
} nvmlValueType_t;

typedef union nvmlValue_st {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
    unsigned int fieldId;       /* NVML_FI_* (in) */
    unsigned int scopeId;       /* a link's number for per-link fields (in) */
    long long timestamp;        /* microseconds since 1970 */
    long long latencyUsec;
    nvmlValueType_t valueType;
    nvmlReturn_t nvmlReturn;    /* this field's own answer */
    nvmlValue_t value;
} nvmlFieldValue_t;

#define NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90
#define NVML_FI_DEV_NVLINK_LINK_COUNT 91
#define NVML_FI_DEV_NVLINK_REMOTE_NVLINK_ID 146
#define NVML_FI_DEV_NVSWITCH_CONNECTED_LINK_COUNT 147
#define NVML_FI_DEV_NVLINK_GET_SPEED 164
#define NVML_FI_DEV_NVLINK_GET_STATE 165
#define NVML_FI_DEV_NVLINK_GET_VERSION 166
#define NVML_FI_DEV_C2C_LINK_COUNT 170
#define NVML_FI_DEV_C2C_LINK_GET_STATUS 171
#define NVML_FI_DEV_C2C_LINK_GET_MAX_BW 172

/* nvmlDeviceGetGpuFabricInfoV */
#define NVML_GPU_FABRIC_UUID_LEN 16
#define NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0
#define NVML_GPU_FABRIC_STATE_NOT_STARTED 1
#define NVML_GPU_FABRIC_STATE_IN_PROGRESS 2
#define NVML_GPU_FABRIC_STATE_COMPLETED 3
typedef unsigned char nvmlGpuFabricState_t;

typedef struct {
    unsigned int version;       /* nvmlGpuFabricInfo_v2 */
    unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
    nvmlReturn_t status;
    unsigned int cliqueId;
    nvmlGpuFabricState_t state;
    unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;
typedef nvmlGpuFabricInfo_v2_t nvmlGpuFabricInfoV_t;
#define nvmlGpuFabricInfo_v2 NVML_STRUCT_VERSION(GpuFabricInfo, 2)

/* Confidential computing: off on every simulated machine. */
#define NVML_CC_SYSTEM_FEATURE_DISABLED 0
#define NVML_CC_SYSTEM_FEATURE_ENABLED 1
#define NVML_CC_SYSTEM_MULTIGPU_NONE 0

typedef struct nvmlConfComputeSystemState_st {
    unsigned int environment;
    unsigned int ccFeature;
    unsigned int devToolsMode;
} nvmlConfComputeSystemState_t;

typedef struct {
    unsigned int version;       /* nvmlSystemConfComputeSettings_v1 */
    unsigned int environment;
    unsigned int ccFeature;
    unsigned int devToolsMode;
    unsigned int multiGpuMode;
} nvmlSystemConfComputeSettings_v1_t;
typedef nvmlSystemConfComputeSettings_v1_t nvmlSystemConfComputeSettings_t;
#define nvmlSystemConfComputeSettings_v1                                    \
    NVML_STRUCT_VERSION(SystemConfComputeSettings, 1)

/* ---- initialization, errors, the system --------------------------------- */
nvmlReturn_t nvmlInit(void);
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlInitWithFlags(unsigned int flags);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length);
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion);
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion);
nvmlReturn_t nvmlSystemGetConfComputeState(nvmlConfComputeSystemState_t *s);
nvmlReturn_t
nvmlSystemGetConfComputeSettings(nvmlSystemConfComputeSettings_t *s);

/* ---- devices ------------------------------------------------------------ */
nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index,
                                        nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                           nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId,
                                           nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId,
                                              nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid,
                                       nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index);
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device,
                                      unsigned int *minorNumber);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name,
                               unsigned int length);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid,
                               unsigned int length);
nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_v1_t *pci);
nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device,
                                     nvmlPciInfo_v1_t *pci);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetPciInfoExt(nvmlDevice_t device,
                                     nvmlPciInfoExt_t *pci);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device,
                                                 unsigned int *gen);
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device,
                                                unsigned int *gen);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device,
                                            unsigned int *width);
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device,
                                           unsigned int *width);
nvmlReturn_t nvmlDeviceGetPcieLinkMaxSpeed(nvmlDevice_t device,
                                           unsigned int *maxSpeed);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device,
                                     nvmlMemory_t *memory);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device,
                                        nvmlMemory_v2_t *memory);
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device,
                                                int *major, int *minor);
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device,
                                      nvmlComputeMode_t *mode);
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device,
                                  unsigned int *currentMode,
                                  unsigned int *pendingMode);
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device,
                                         nvmlGpuFabricInfoV_t *info);

/* ---- NVLink, P2P, topology (nvml_link.c) -------------------------------- */
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
                                      nvmlEnableState_t *isActive);
nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device,
                                        unsigned int link,
                                        unsigned int *version);
nvmlReturn_t nvmlDeviceGetNvLinkCapability(nvmlDevice_t device,
                                           unsigned int link,
                                           nvmlNvLinkCapability_t capability,
                                           unsigned int *capResult);
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device,
                                              unsigned int link,
                                              nvmlPciInfo_v1_t *pci);
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device,
                                                 unsigned int link,
                                                 nvmlPciInfo_t *pci);
nvmlReturn_t
nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
                                    nvmlIntNvLinkDeviceType_t *type);
nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1,
                                    nvmlDevice_t device2,
                                    nvmlGpuP2PCapsIndex_t p2pIndex,
                                    nvmlGpuP2PStatus_t *p2pStatus);
nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(
    nvmlDevice_t device1, nvmlDevice_t device2,
    nvmlGpuTopologyLevel_t *pathInfo);
nvmlReturn_t nvmlDeviceGetTopologyNearestGpus(nvmlDevice_t device,
                                              nvmlGpuTopologyLevel_t level,
                                              unsigned int *count,
                                              nvmlDevice_t *deviceArray);
nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t device,
                                      unsigned int cpuSetSize,
                                      unsigned long *cpuSet);
nvmlReturn_t nvmlDeviceGetCpuAffinityWithinScope(nvmlDevice_t device,
                                                 unsigned int cpuSetSize,
                                                 unsigned long *cpuSet,
                                                 nvmlAffinityScope_t scope);
nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device,
                                     unsigned int *node);
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
                                      nvmlFieldValue_t *values);

#if defined(__cplusplus)
}
#endif

#endif /* P2PSIM_CUDA_NVML_NVML_H */
