/*
 * tests/cudart/check_device.c - devices as a program sees them: counts on
 * several machines, properties against the machine files and the GPU
 * catalog (topologies/), attributes against properties, PCI bus ids and
 * their round trip, current device per thread, flags, limits, versions,
 * memory info, reset. Expected figures name the file they come from.
 */
#include <config.h>

/* The deprecated bank-size calls are tested too. */
#define CUDA_ENABLE_DEPRECATED

#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "cuda/include/cuda_profiler_api.h"
#include "tests/cudart/cudart_test.h"

/* ---- counts -------------------------------------------------------------- */

static const struct {
    const char *machine;        /* NULL: the built-in default */
    int gpus;
} counts[] = {
    { NULL, 8 },                         /* pcie-8gpu-2socket.yaml */
    { "h200-x1.yaml", 1 },
    { "desktop-2x-geforce.yaml", 2 },
    { "teaching-acs-iommu.yaml", 3 },
    { "8x-rtx4090-2x-epyc7542.yaml", 8 },
};

START_TEST(test_device_count_matches_machine)
{
    cudart_test_machine(counts[_i].machine);
    int n = -1;
    ck_cuda_ok(cudaGetDeviceCount(&n));
    ck_assert_int_eq(n, counts[_i].gpus);
    ck_cuda(cudaGetDeviceCount(NULL), cudaErrorInvalidValue);
}
END_TEST

START_TEST(test_device_count_without_machine)
{
    setenv("P2PSIM_TOPOLOGY", "/nonexistent/machine.yaml", 1);
    int n = -1;
    cudaError_t e = cudaGetDeviceCount(&n);
    ck_assert_int_ne(e, cudaSuccess);
    ck_assert_int_eq(n, 0);
    ck_cuda(cudaGetLastError(), e);
}
END_TEST

/* ---- current device ------------------------------------------------------ */

START_TEST(test_device_set_get)
{
    cudart_test_machine(NULL);
    int d = -1;
    ck_cuda_ok(cudaGetDevice(&d));
    ck_assert_int_eq(d, 0);
    ck_cuda_ok(cudaSetDevice(7));
    ck_cuda_ok(cudaGetDevice(&d));
    ck_assert_int_eq(d, 7);
    ck_cuda(cudaSetDevice(8), cudaErrorInvalidDevice);
    ck_cuda(cudaSetDevice(-1), cudaErrorInvalidDevice);
    ck_cuda_ok(cudaGetDevice(&d));
    ck_assert_int_eq(d, 7);      /* a failed set changes nothing */
    ck_cuda(cudaGetDevice(NULL), cudaErrorInvalidValue);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidValue);
    ck_cuda_ok(cudaGetLastError());
}
END_TEST

/* calibration h200-x1-pcie-gen5.md §5: cudaSetDevice(5) on one GPU. */
START_TEST(test_device_set_out_of_range_h200)
{
    cudart_test_machine("h200-x1.yaml");
    ck_cuda(cudaSetDevice(5), cudaErrorInvalidDevice);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidDevice);
}
END_TEST

static void *other_thread(void *arg)
{
    int *seen = arg;
    cudaGetDevice(&seen[0]);
    cudaSetDevice(2);
    cudaGetDevice(&seen[1]);
    return NULL;
}

START_TEST(test_device_current_is_per_thread)
{
    cudart_test_machine(NULL);
    ck_cuda_ok(cudaSetDevice(5));
    int seen[2] = { -1, -1 };
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, other_thread, seen), 0);
    pthread_join(t, NULL);
    ck_assert_int_eq(seen[0], 0);  /* a new thread starts on device 0 */
    ck_assert_int_eq(seen[1], 2);
    int d = -1;
    ck_cuda_ok(cudaGetDevice(&d));
    ck_assert_int_eq(d, 5);
}
END_TEST

START_TEST(test_device_init_valid_choose)
{
    cudart_test_machine(NULL);
    ck_cuda_ok(cudaInitDevice(3, 0, 0));
    ck_cuda(cudaInitDevice(8, 0, 0), cudaErrorInvalidDevice);
    ck_cuda(cudaInitDevice(0, 0, 0x2), cudaErrorInvalidValue);
    ck_cuda(cudaInitDevice(0, 0x100, cudaInitDeviceFlagsAreValid),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaInitDevice(1, cudaDeviceScheduleYield,
                              cudaInitDeviceFlagsAreValid));
    ck_cuda_ok(cudaSetDevice(1));
    unsigned f = 0;
    ck_cuda_ok(cudaGetDeviceFlags(&f));
    ck_assert_uint_eq(f & cudaDeviceScheduleMask, cudaDeviceScheduleYield);

    int list[] = { 3, 1 }, bad[] = { 1, 9 };
    ck_cuda_ok(cudaSetValidDevices(list, 2));
    ck_cuda(cudaSetValidDevices(bad, 2), cudaErrorInvalidDevice);
    ck_cuda(cudaSetValidDevices(NULL, 1), cudaErrorInvalidValue);
    ck_cuda(cudaSetValidDevices(list, -1), cudaErrorInvalidValue);

    struct cudaDeviceProp want;
    memset(&want, 0, sizeof(want));
    want.major = 8;
    int d = -1;
    ck_cuda_ok(cudaChooseDevice(&d, &want));
    ck_assert_int_eq(d, 0);
    ck_cuda(cudaChooseDevice(NULL, &want), cudaErrorInvalidValue);
    ck_cuda(cudaChooseDevice(&d, NULL), cudaErrorInvalidValue);
}
END_TEST

/* ---- properties ---------------------------------------------------------- */

/* CUDA 13.0 layout (cuda-api.md §2.8). */
_Static_assert(sizeof(struct cudaDeviceProp) == 1008, "cudaDeviceProp");
_Static_assert(offsetof(struct cudaDeviceProp, pciBusID) == 568, "pciBusID");

/*
 * Catalog values (topologies/gpus/H200-SXM.yaml) and what the project's
 * H200 reports (calibration h200-x1-pcie-gen5.md: 132 SMs, clock
 * attribute 1,980,000 kHz, hostNativeAtomicSupported 0).
 */
START_TEST(test_device_properties_h200)
{
    cudart_test_machine("h200-x1.yaml");
    struct cudaDeviceProp p;
    memset(&p, 0xa5, sizeof(p));
    ck_cuda_ok(cudaGetDeviceProperties(&p, 0));
    ck_assert_str_eq(p.name, "NVIDIA H200");
    ck_assert_uint_eq(p.totalGlobalMem, 141000000000ull); /* 141GB */
    ck_assert_int_eq(p.major, 9);
    ck_assert_int_eq(p.minor, 0);
    ck_assert_int_eq(p.multiProcessorCount, 132);
    ck_assert_int_eq(p.warpSize, 32);
    ck_assert_int_eq(p.maxThreadsPerBlock, 1024);
    ck_assert_int_eq(p.maxThreadsDim[2], 64);
    ck_assert_int_eq(p.maxGridSize[1], 65535);
    ck_assert_int_eq(p.l2CacheSize, 62914560);
    ck_assert_int_eq(p.memoryBusWidth, 6016);
    ck_assert_int_eq(p.asyncEngineCount, 3);
    ck_assert_int_eq(p.maxThreadsPerMultiProcessor, 2048);
    ck_assert_int_eq(p.maxBlocksPerMultiProcessor, 32);
    ck_assert_uint_eq(p.sharedMemPerBlock, 49152);
    ck_assert_uint_eq(p.sharedMemPerBlockOptin, 232448);
    ck_assert_int_eq(p.unifiedAddressing, 1);
    ck_assert_int_eq(p.managedMemory, 1);
    ck_assert_int_eq(p.concurrentManagedAccess, 1);
    ck_assert_int_eq(p.cooperativeLaunch, 1);
    ck_assert_int_eq(p.canMapHostMemory, 1);
    ck_assert_int_eq(p.memoryPoolsSupported, 1);
    ck_assert_int_eq(p.hostNativeAtomicSupported, 0);
    ck_assert_int_eq(p.ECCEnabled, 1);
    ck_assert_int_eq(p.clusterLaunch, 1);
    ck_assert_int_eq(p.pciDomainID, 0);
    for (size_t i = 0; i < sizeof(p.reserved) / sizeof(p.reserved[0]); i++) {
        ck_assert_int_eq(p.reserved[i], 0);
    }
    int v = 0;
    ck_cuda_ok(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0));
    ck_assert_int_eq(v, 1980000);
    ck_cuda_ok(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, 0));
    ck_assert_int_eq(v, 3201000);
    ck_cuda(cudaGetDeviceProperties(&p, 1), cudaErrorInvalidDevice);
    ck_cuda(cudaGetDeviceProperties(NULL, 0), cudaErrorInvalidValue);
}
END_TEST

/* pcie-8gpu-2socket.yaml: 8x A100-PCIe (80GB, 8.0, 108 SMs), 2 sockets. */
START_TEST(test_device_properties_default_machine)
{
    cudart_test_machine(NULL);
    struct cudaDeviceProp p[8];
    for (int d = 0; d < 8; d++) {
        ck_cuda_ok(cudaGetDeviceProperties(&p[d], d));
        ck_assert_str_eq(p[d].name, "NVIDIA A100 80GB PCIe");
        ck_assert_uint_eq(p[d].totalGlobalMem, 80000000000ull);
        ck_assert_int_eq(p[d].major * 10 + p[d].minor, 80);
        ck_assert_int_eq(p[d].multiProcessorCount, 108);
        ck_assert_int_eq(p[d].hostNumaId, d < 4 ? 0 : 1);
        for (int o = 0; o < d; o++) {
            ck_assert_int_ne(p[d].pciBusID, p[o].pciBusID);
            ck_assert(memcmp(&p[d].uuid, &p[o].uuid, sizeof(p[d].uuid)));
        }
    }
}
END_TEST

/* GeForce boards: "GeForce" in the name, no ECC (desktop-2x-geforce.yaml,
 * topologies/gpus/RTX-4090.yaml: 8.9, 128 SMs, 2 copy engines). */
START_TEST(test_device_properties_geforce)
{
    cudart_test_machine("desktop-2x-geforce.yaml");
    struct cudaDeviceProp p;
    ck_cuda_ok(cudaGetDeviceProperties(&p, 1));
    ck_assert_str_eq(p.name, "NVIDIA GeForce RTX 4090");
    ck_assert_int_eq(p.major * 10 + p.minor, 89);
    ck_assert_int_eq(p.multiProcessorCount, 128);
    ck_assert_int_eq(p.asyncEngineCount, 2);
    ck_assert_int_eq(p.ECCEnabled, 0);
    ck_assert_int_eq(p.maxThreadsPerMultiProcessor, 1536);
    ck_assert_int_eq(p.maxBlocksPerMultiProcessor, 24);
    ck_assert_int_eq(p.clusterLaunch, 0);
}
END_TEST

/* UUIDs are stable (within a run, and from run to run: a golden value
 * of desktop-2x-geforce.yaml's gpu0) and differ between GPUs. */
START_TEST(test_device_uuid_is_deterministic)
{
    static const unsigned char golden[4] = { 0x57, 0xf4, 0x23, 0x02 };
    cudart_test_machine("desktop-2x-geforce.yaml");
    struct cudaDeviceProp a, b;
    ck_cuda_ok(cudaGetDeviceProperties(&a, 0));
    ck_cuda_ok(cudaGetDeviceProperties(&b, 0));
    ck_assert(!memcmp(&a.uuid, &b.uuid, sizeof(a.uuid)));
    ck_assert(!memcmp(a.uuid.bytes, golden, sizeof(golden)));
    ck_cuda_ok(cudaGetDeviceProperties(&b, 1));
    ck_assert(memcmp(&a.uuid, &b.uuid, sizeof(a.uuid)));
}
END_TEST

/* ---- attributes ---------------------------------------------------------- */

#define INT_FIELD(attr, field)                                                \
    { attr, #attr, offsetof(struct cudaDeviceProp, field), sizeof(int) }
#define SIZE_FIELD(attr, field)                                               \
    { attr, #attr, offsetof(struct cudaDeviceProp, field), sizeof(size_t) }

/* Attributes whose value is a property (as the CUDA documentation pairs
 * them). */
static const struct {
    enum cudaDeviceAttr attr;
    const char *name;
    size_t off, size;
} attr_fields[] = {
    INT_FIELD(cudaDevAttrMaxThreadsPerBlock, maxThreadsPerBlock),
    INT_FIELD(cudaDevAttrMaxBlockDimX, maxThreadsDim[0]),
    INT_FIELD(cudaDevAttrMaxBlockDimY, maxThreadsDim[1]),
    INT_FIELD(cudaDevAttrMaxBlockDimZ, maxThreadsDim[2]),
    INT_FIELD(cudaDevAttrMaxGridDimX, maxGridSize[0]),
    INT_FIELD(cudaDevAttrMaxGridDimY, maxGridSize[1]),
    INT_FIELD(cudaDevAttrMaxGridDimZ, maxGridSize[2]),
    SIZE_FIELD(cudaDevAttrMaxSharedMemoryPerBlock, sharedMemPerBlock),
    SIZE_FIELD(cudaDevAttrTotalConstantMemory, totalConstMem),
    INT_FIELD(cudaDevAttrWarpSize, warpSize),
    INT_FIELD(cudaDevAttrMaxRegistersPerBlock, regsPerBlock),
    INT_FIELD(cudaDevAttrMultiProcessorCount, multiProcessorCount),
    INT_FIELD(cudaDevAttrIntegrated, integrated),
    INT_FIELD(cudaDevAttrCanMapHostMemory, canMapHostMemory),
    INT_FIELD(cudaDevAttrMaxTexture1DWidth, maxTexture1D),
    INT_FIELD(cudaDevAttrMaxTexture3DDepth, maxTexture3D[2]),
    INT_FIELD(cudaDevAttrMaxSurfaceCubemapLayeredLayers,
              maxSurfaceCubemapLayered[1]),
    INT_FIELD(cudaDevAttrConcurrentKernels, concurrentKernels),
    INT_FIELD(cudaDevAttrEccEnabled, ECCEnabled),
    INT_FIELD(cudaDevAttrPciBusId, pciBusID),
    INT_FIELD(cudaDevAttrPciDeviceId, pciDeviceID),
    INT_FIELD(cudaDevAttrPciDomainId, pciDomainID),
    INT_FIELD(cudaDevAttrTccDriver, tccDriver),
    INT_FIELD(cudaDevAttrGlobalMemoryBusWidth, memoryBusWidth),
    INT_FIELD(cudaDevAttrL2CacheSize, l2CacheSize),
    INT_FIELD(cudaDevAttrMaxThreadsPerMultiProcessor,
              maxThreadsPerMultiProcessor),
    INT_FIELD(cudaDevAttrAsyncEngineCount, asyncEngineCount),
    INT_FIELD(cudaDevAttrUnifiedAddressing, unifiedAddressing),
    INT_FIELD(cudaDevAttrComputeCapabilityMajor, major),
    INT_FIELD(cudaDevAttrComputeCapabilityMinor, minor),
    INT_FIELD(cudaDevAttrStreamPrioritiesSupported,
              streamPrioritiesSupported),
    SIZE_FIELD(cudaDevAttrMaxSharedMemoryPerMultiprocessor,
               sharedMemPerMultiprocessor),
    INT_FIELD(cudaDevAttrMaxRegistersPerMultiprocessor,
              regsPerMultiprocessor),
    INT_FIELD(cudaDevAttrManagedMemory, managedMemory),
    INT_FIELD(cudaDevAttrHostNativeAtomicSupported,
              hostNativeAtomicSupported),
    INT_FIELD(cudaDevAttrPageableMemoryAccess, pageableMemoryAccess),
    INT_FIELD(cudaDevAttrConcurrentManagedAccess, concurrentManagedAccess),
    INT_FIELD(cudaDevAttrCanUseHostPointerForRegisteredMem,
              canUseHostPointerForRegisteredMem),
    INT_FIELD(cudaDevAttrCooperativeLaunch, cooperativeLaunch),
    SIZE_FIELD(cudaDevAttrMaxSharedMemoryPerBlockOptin,
               sharedMemPerBlockOptin),
    INT_FIELD(cudaDevAttrMaxBlocksPerMultiprocessor,
              maxBlocksPerMultiProcessor),
    INT_FIELD(cudaDevAttrMaxPersistingL2CacheSize, persistingL2CacheMaxSize),
    SIZE_FIELD(cudaDevAttrReservedSharedMemoryPerBlock,
               reservedSharedMemPerBlock),
    INT_FIELD(cudaDevAttrMemoryPoolsSupported, memoryPoolsSupported),
    INT_FIELD(cudaDevAttrClusterLaunch, clusterLaunch),
    INT_FIELD(cudaDevAttrIpcEventSupport, ipcEventSupported),
    INT_FIELD(cudaDevAttrHostNumaId, hostNumaId),
};

START_TEST(test_device_attributes_agree_with_properties)
{
    cudart_test_machine(NULL);
    for (int d = 0; d < 8; d += 5) {
        struct cudaDeviceProp p;
        ck_cuda_ok(cudaGetDeviceProperties(&p, d));
        for (size_t i = 0; i < sizeof(attr_fields) / sizeof(attr_fields[0]);
             i++) {
            const char *f = (const char *)&p + attr_fields[i].off;
            long long want = attr_fields[i].size == sizeof(int)
                                 ? *(const int *)f
                                 : (long long)*(const size_t *)f;
            int v = -12345;
            ck_cuda_ok(cudaDeviceGetAttribute(&v, attr_fields[i].attr, d));
            ck_assert_msg(v == want, "%s on device %d: %d, property %lld",
                          attr_fields[i].name, d, v, want);
        }
    }
}
END_TEST

/* Every declared attribute is either served or refused with 1; none
 * fails otherwise. */
START_TEST(test_device_attribute_errors)
{
    cudart_test_machine("h200-x1.yaml");
    int v, served = 0;
    for (int a = 0; a <= cudaDevAttrMax; a++) {
        cudaError_t e = cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)a, 0);
        ck_assert_msg(e == cudaSuccess || e == cudaErrorInvalidValue,
                      "attribute %d: %d", a, e);
        served += e == cudaSuccess;
    }
    ck_assert_int_ge(served, 120);
    ck_cuda(cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)0, 0),
            cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetAttribute(&v, cudaDevAttrReserved92, 0),
            cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)44, 0),
            cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetAttribute(&v, cudaDevAttrMax, 0),
            cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetAttribute(NULL, cudaDevAttrWarpSize, 0),
            cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 1),
            cudaErrorInvalidDevice);
    ck_cuda(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, -1),
            cudaErrorInvalidDevice);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidDevice);
}
END_TEST

/* ---- PCI bus ids --------------------------------------------------------- */

START_TEST(test_device_pci_bus_id_round_trip)
{
    cudart_test_machine(NULL);
    for (int d = 0; d < 8; d++) {
        struct cudaDeviceProp p;
        char id[13], want[32];
        ck_cuda_ok(cudaGetDeviceProperties(&p, d));
        ck_cuda_ok(cudaDeviceGetPCIBusId(id, sizeof(id), d));
        snprintf(want, sizeof(want), "%04X:%02X:%02X.0", p.pciDomainID,
                 p.pciBusID, p.pciDeviceID);
        ck_assert_str_eq(id, want);
        int back = -1;
        ck_cuda_ok(cudaDeviceGetByPCIBusId(&back, id));
        ck_assert_int_eq(back, d);
    }
}
END_TEST

/* h200-x1.yaml: the GPU on the one root port gets bus 1 (the builder
 * numbers buses depth first from the root bus 0). */
START_TEST(test_device_pci_bus_id_forms)
{
    cudart_test_machine("h200-x1.yaml");
    char id[13];
    ck_cuda_ok(cudaDeviceGetPCIBusId(id, sizeof(id), 0));
    ck_assert_str_eq(id, "0000:01:00.0");
    int d = -1;
    static const char *same[] = { "0000:01:00.0", "00000000:01:00.0",
                                  "0000:01:00", "01:00.0", "0:1:0.0" };
    for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
        d = -1;
        ck_cuda_ok(cudaDeviceGetByPCIBusId(&d, same[i]));
        ck_assert_int_eq(d, 0);
    }
    ck_cuda(cudaDeviceGetByPCIBusId(&d, "0000:02:00.0"),
            cudaErrorInvalidDevice);
    ck_cuda(cudaDeviceGetByPCIBusId(&d, "not a bus id"),
            cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetByPCIBusId(&d, "0000:01:00.0x"),
            cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetByPCIBusId(&d, NULL), cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetByPCIBusId(NULL, id), cudaErrorInvalidValue);
    char small[8];
    ck_cuda_ok(cudaDeviceGetPCIBusId(small, sizeof(small), 0));
    ck_assert_str_eq(small, "0000:01");
    ck_cuda(cudaDeviceGetPCIBusId(id, 0, 0), cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetPCIBusId(NULL, 13, 0), cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetPCIBusId(id, sizeof(id), 1), cudaErrorInvalidDevice);
}
END_TEST

/* ---- flags, limits, priorities, versions, memory ------------------------- */

START_TEST(test_device_flags)
{
    cudart_test_machine("h200-x1.yaml");
    unsigned f = 0;
    ck_cuda_ok(cudaGetDeviceFlags(&f));
    ck_assert_uint_eq(f, cudaDeviceMapHost);
    ck_cuda_ok(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    ck_cuda_ok(cudaGetDeviceFlags(&f));
    ck_assert_uint_eq(f, cudaDeviceScheduleBlockingSync | cudaDeviceMapHost);
    ck_cuda(cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);
    ck_cuda(cudaSetDeviceFlags(cudaDeviceScheduleSpin |
                               cudaDeviceScheduleYield),
            cudaErrorInvalidValue);
    ck_cuda(cudaGetDeviceFlags(NULL), cudaErrorInvalidValue);
}
END_TEST

START_TEST(test_device_limits)
{
    cudart_test_machine(NULL);
    size_t v = 0;
    ck_cuda_ok(cudaDeviceGetLimit(&v, cudaLimitStackSize));
    ck_assert_uint_eq(v, 1024);
    ck_cuda_ok(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
    ck_assert_uint_eq(v, 8u << 20);
    ck_cuda_ok(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    ck_cuda_ok(cudaDeviceGetLimit(&v, cudaLimitStackSize));
    ck_assert_uint_eq(v, 4096);
    /* Limits are per device. */
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaDeviceGetLimit(&v, cudaLimitStackSize));
    ck_assert_uint_eq(v, 1024);
    /* Clamped to the persisting maximum (3/4 of A100's 40 MiB L2). */
    ck_cuda_ok(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize,
                                  (size_t)1 << 40));
    ck_cuda_ok(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize));
    ck_assert_uint_eq(v, 30u << 20);
    ck_cuda_ok(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, 100));
    ck_cuda_ok(cudaDeviceGetLimit(&v, cudaLimitMaxL2FetchGranularity));
    ck_assert_uint_eq(v, 64);
    ck_cuda(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, 256),
            cudaErrorInvalidValue);
    ck_cuda(cudaDeviceSetLimit((enum cudaLimit)99, 1),
            cudaErrorUnsupportedLimit);
    ck_cuda(cudaDeviceGetLimit(&v, (enum cudaLimit)99),
            cudaErrorUnsupportedLimit);
    ck_cuda(cudaDeviceGetLimit(NULL, cudaLimitStackSize),
            cudaErrorInvalidValue);
}
END_TEST

START_TEST(test_device_priority_range_and_versions)
{
    cudart_test_machine("h200-x1.yaml");
    int lo = 99, hi = 99;
    ck_cuda_ok(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    ck_assert_int_eq(lo, 0);
    ck_assert_int_eq(hi, -5);
    ck_cuda_ok(cudaDeviceGetStreamPriorityRange(NULL, &hi));
    ck_cuda_ok(cudaDeviceGetStreamPriorityRange(&lo, NULL));
    int v = 0;
    ck_cuda_ok(cudaDriverGetVersion(&v));
    ck_assert_int_eq(v, 13000);
    v = 0;
    ck_cuda_ok(cudaRuntimeGetVersion(&v));
    ck_assert_int_eq(v, 13000);
    ck_cuda(cudaDriverGetVersion(NULL), cudaErrorInvalidValue);
    ck_cuda(cudaRuntimeGetVersion(NULL), cudaErrorInvalidValue);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidValue);
}
END_TEST

START_TEST(test_device_mem_get_info)
{
    cudart_test_machine("h200-x1.yaml");
    size_t free0 = 0, total = 0, free1 = 0;
    ck_cuda_ok(cudaMemGetInfo(&free0, &total));
    ck_assert_uint_eq(total, 141000000000ull);
    ck_assert_uint_eq(free0, total);
    void *p = NULL;
    ck_cuda_ok(cudaMalloc(&p, 64u << 20));
    ck_cuda_ok(cudaMemGetInfo(&free1, &total));
    ck_assert_uint_le(free1, free0 - (64u << 20));
    ck_cuda_ok(cudaFree(p));
    ck_cuda_ok(cudaMemGetInfo(&free1, &total));
    ck_assert_uint_eq(free1, free0);
    ck_cuda(cudaMemGetInfo(NULL, &total), cudaErrorInvalidValue);
    ck_cuda(cudaMemGetInfo(&free1, NULL), cudaErrorInvalidValue);
}
END_TEST

/* ---- synchronize, reset -------------------------------------------------- */

START_TEST(test_device_synchronize_idle)
{
    cudart_test_machine(NULL);
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_cuda_ok(cudaSetDevice(3));
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_cuda_ok(cudaGetLastError());
}
END_TEST

/* A reset frees the context's memory and forgets its peer access, flags
 * and limits. */
START_TEST(test_device_reset)
{
    cudart_test_machine(NULL);
    void *p = NULL;
    size_t free0, free1, total;
    ck_cuda_ok(cudaMemGetInfo(&free0, &total));
    ck_cuda_ok(cudaMalloc(&p, 32u << 20));
    ck_cuda_ok(cudaMemGetInfo(&free1, &total));
    ck_assert_uint_lt(free1, free0);
    ck_cuda_ok(cudaDeviceEnablePeerAccess(1, 0));
    ck_cuda_ok(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
    ck_cuda_ok(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaDeviceEnablePeerAccess(0, 0));
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaDeviceReset());
    ck_cuda_ok(cudaMemGetInfo(&free1, &total));
    ck_assert_uint_eq(free1, free0);
    /* Both directions involving device 0 are gone. */
    ck_cuda_ok(cudaDeviceEnablePeerAccess(1, 0));
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaDeviceEnablePeerAccess(0, 0));
    ck_cuda_ok(cudaSetDevice(0));
    unsigned f = 0;
    ck_cuda_ok(cudaGetDeviceFlags(&f));
    ck_assert_uint_eq(f, cudaDeviceMapHost);
    size_t v = 0;
    ck_cuda_ok(cudaDeviceGetLimit(&v, cudaLimitStackSize));
    ck_assert_uint_eq(v, 1024);
    /* Work still runs after a reset. */
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_cuda_ok(cudaDeviceReset());
    ck_cuda_ok(cudaGetLastError());
}
END_TEST

/* The profiler calls (asyncAPI, matrixMul call them): served, and with no
 * profiler attached they succeed, in any order and any number of times,
 * leaving no error behind and the device's work undisturbed. */
START_TEST(test_device_profiler_start_stop)
{
    ck_cuda_ok(cudaProfilerStop());
    ck_cuda_ok(cudaProfilerStart());
    ck_cuda_ok(cudaProfilerStart());
    void *p = NULL;
    ck_cuda_ok(cudaMalloc(&p, 4096));
    ck_cuda_ok(cudaMemset(p, 0x5a, 4096));
    ck_cuda_ok(cudaProfilerStop());
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_cuda_ok(cudaGetLastError());
    ck_cuda_ok(cudaFree(p));
}
END_TEST

/* Cache and bank preferences are per device, checked and kept; the
 * default bank size reads as four bytes, as on every GPU since Maxwell. */
START_TEST(test_device_cache_and_bank_config)
{
    cudart_test_machine(NULL);
    enum cudaFuncCache c = (enum cudaFuncCache)9;
    ck_cuda_ok(cudaDeviceGetCacheConfig(&c));
    ck_assert_int_eq(c, cudaFuncCachePreferNone);
    ck_cuda_ok(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1));
    ck_cuda_ok(cudaDeviceGetCacheConfig(&c));
    ck_assert_int_eq(c, cudaFuncCachePreferL1);
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaDeviceGetCacheConfig(&c));
    ck_assert_int_eq(c, cudaFuncCachePreferNone);
    ck_cuda(cudaDeviceSetCacheConfig((enum cudaFuncCache)4),
            cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetCacheConfig(NULL), cudaErrorInvalidValue);

    enum cudaSharedMemConfig b = cudaSharedMemBankSizeDefault;
    ck_cuda_ok(cudaDeviceGetSharedMemConfig(&b));
    ck_assert_int_eq(b, cudaSharedMemBankSizeFourByte);
    ck_cuda_ok(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte));
    ck_cuda_ok(cudaDeviceGetSharedMemConfig(&b));
    ck_assert_int_eq(b, cudaSharedMemBankSizeEightByte);
    ck_cuda(cudaDeviceSetSharedMemConfig((enum cudaSharedMemConfig)3),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaCtxResetPersistingL2Cache());

    static int not_a_kernel;
    const char *name = NULL;
    ck_cuda(cudaFuncSetCacheConfig(&not_a_kernel, cudaFuncCachePreferShared),
            cudaErrorInvalidDeviceFunction);
    ck_cuda(cudaFuncGetName(&name, &not_a_kernel),
            cudaErrorInvalidDeviceFunction);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
}
END_TEST

/* CUDA 13's pools by location are the device's pools. */
START_TEST(test_device_pools_by_location)
{
    cudart_test_machine(NULL);
    struct cudaMemLocation l = { cudaMemLocationTypeDevice, 3 };
    cudaMemPool_t a = NULL, b = NULL, own = NULL;
    ck_cuda_ok(cudaMemGetDefaultMemPool(&a, &l, cudaMemAllocationTypePinned));
    ck_cuda_ok(cudaDeviceGetDefaultMemPool(&b, 3));
    ck_assert_ptr_eq(a, b);
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location = l;
    ck_cuda_ok(cudaMemPoolCreate(&own, &props));
    ck_cuda_ok(cudaMemSetMemPool(&l, cudaMemAllocationTypePinned, own));
    ck_cuda_ok(cudaMemGetMemPool(&a, &l, cudaMemAllocationTypePinned));
    ck_assert_ptr_eq(a, own);
    ck_cuda_ok(cudaDeviceGetMemPool(&b, 3));
    ck_assert_ptr_eq(b, own);
    struct cudaMemLocation host = { cudaMemLocationTypeHost, 0 };
    ck_cuda(cudaMemGetMemPool(&a, &host, cudaMemAllocationTypePinned),
            cudaErrorNotSupported);
    struct cudaMemLocation far = { cudaMemLocationTypeDevice, 8 };
    ck_cuda(cudaMemGetMemPool(&a, &far, cudaMemAllocationTypePinned),
            cudaErrorInvalidDevice);
    ck_cuda(cudaMemGetMemPool(&a, &l, cudaMemAllocationTypeInvalid),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemGetMemPool(&a, NULL, cudaMemAllocationTypePinned),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemSetMemPool(&l, cudaMemAllocationTypePinned, NULL),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaDeviceSetMemPool(3, b == own ? a : b));
}
END_TEST

Suite *make_cudart_device_suite(void)
{
    Suite *s = suite_create("cudart-device");
    TCase *tc = tcase_create("Devices");
    tcase_add_loop_test(tc, test_device_count_matches_machine, 0,
                        sizeof(counts) / sizeof(counts[0]));
    tcase_add_test(tc, test_device_count_without_machine);
    tcase_add_test(tc, test_device_set_get);
    tcase_add_test(tc, test_device_set_out_of_range_h200);
    tcase_add_test(tc, test_device_current_is_per_thread);
    tcase_add_test(tc, test_device_init_valid_choose);
    suite_add_tcase(s, tc);

    tc = tcase_create("Properties");
    tcase_add_test(tc, test_device_properties_h200);
    tcase_add_test(tc, test_device_properties_default_machine);
    tcase_add_test(tc, test_device_properties_geforce);
    tcase_add_test(tc, test_device_uuid_is_deterministic);
    tcase_add_test(tc, test_device_attributes_agree_with_properties);
    tcase_add_test(tc, test_device_attribute_errors);
    tcase_add_test(tc, test_device_pci_bus_id_round_trip);
    tcase_add_test(tc, test_device_pci_bus_id_forms);
    suite_add_tcase(s, tc);

    tc = tcase_create("State");
    tcase_add_test(tc, test_device_flags);
    tcase_add_test(tc, test_device_limits);
    tcase_add_test(tc, test_device_priority_range_and_versions);
    tcase_add_test(tc, test_device_mem_get_info);
    tcase_add_test(tc, test_device_synchronize_idle);
    tcase_add_test(tc, test_device_reset);
    tcase_add_test(tc, test_device_profiler_start_stop);
    tcase_add_test(tc, test_device_cache_and_bank_config);
    tcase_add_test(tc, test_device_pools_by_location);
    suite_add_tcase(s, tc);
    return s;
}
