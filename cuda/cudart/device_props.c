/*
 * cuda/cudart/device_props.c - what a device is: cudaDeviceProp
 * (rt_device_props) and cudaDeviceGetAttribute's values
 * (rt_device_attribute); device.c serves the calls.
 *
 * Where the figures come from:
 *  - the GPU's catalog entry (topologies/gpus/<model>.yaml, through
 *    p2psim_gpu_describe): name, compute capability, SMs, clocks, memory bus
 *    width, L2, class (ECC, GPUDirect RDMA);
 *  - the machine: memory size (p2psim_hbm_size), copy engines
 *    (asyncEngineCount), PCI address (the bus the builder enumerated),
 *    NUMA node (the socket above the GPU);
 *  - per compute capability, the SM limits of the CUDA C++ Programming
 *    Guide's "Technical Specifications per Compute Capability" table
 *    (sm_archs below): threads, blocks and shared memory per SM;
 *  - constants that hold for every product this simulator catalogs
 *    (compute capability 7.0 and later): warp size, block and grid
 *    limits, registers, texture limits.
 *
 * Not modelled: devices cannot be in an exclusive compute mode.
 */
#include <config.h>

#include "cuda/cudart/rt.h"
#include "cuda/include/p2psim_cudart_internal.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- per-architecture limits --------------------------------------------- */

/*
 * SM limits by compute capability, from the CUDA C++ Programming Guide,
 * "Technical Specifications per Compute Capability" (threads and blocks
 * per SM, shared memory per SM at the largest carveout, per block with
 * opt-in, reserved per block). sp_dp: FP32 to FP64 throughput ratio
 * (cudaDevAttrSingleToDoublePrecisionPerfRatio), from the same guide's
 * "Arithmetic Instructions" table (x.0 data-center chips: 2; GA102, AD102,
 * GB202: 64); 10.0 is [estimate] as Hopper.
 */
struct sm_arch {
    unsigned cc_major, cc_minor;
    int threads_per_sm;
    int blocks_per_sm;
    int smem_per_sm;            /* bytes */
    int smem_per_block_optin;   /* bytes */
    int smem_reserved;          /* bytes per block, used by the system */
    int sp_dp;
};

static const struct sm_arch sm_archs[] = {
    { 7, 0, 2048, 32, 98304, 98304, 0, 2 },         /* Volta */
    { 8, 0, 2048, 32, 167936, 166912, 1024, 2 },    /* GA100 */
    { 8, 6, 1536, 16, 102400, 101376, 1024, 64 },   /* GA102 */
    { 8, 9, 1536, 24, 102400, 101376, 1024, 64 },   /* AD10x */
    { 9, 0, 2048, 32, 233472, 232448, 1024, 2 },    /* Hopper */
    { 10, 0, 2048, 32, 233472, 232448, 1024, 2 },   /* B200 */
    { 12, 0, 1536, 32, 102400, 101376, 1024, 64 },  /* GB202 */
};

/* The entry for cc, or the newest one before it (the oldest for older). */
static const struct sm_arch *sm_arch_of(unsigned major, unsigned minor)
{
    const struct sm_arch *best = &sm_archs[0];
    unsigned cc = major * 10 + minor;
    for (size_t i = 0; i < sizeof(sm_archs) / sizeof(sm_archs[0]); i++) {
        if (sm_archs[i].cc_major * 10 + sm_archs[i].cc_minor <= cc) {
            best = &sm_archs[i];
        }
    }
    return best;
}

/* ---- names --------------------------------------------------------------- */

/*
 * The name CUDA reports for a catalog entry. The rule covers most
 * products: "NVIDIA " + ("GeForce " for class geforce) + the catalog name
 * with '-' as ' ' (RTX-4090 -> "NVIDIA GeForce RTX 4090", B200 -> "NVIDIA
 * B200", L40S -> "NVIDIA L40S"). The exceptions below are the strings the
 * driver prints for those boards (nvidia-smi and deviceQuery listings, as
 * recalled); H200-SXM's is the project's H200 (calibration
 * h200-x1-pcie-gen5.md: "NVIDIA H200").
 */
static const struct {
    const char *catalog;
    const char *cuda;
} product_names[] = {
    { "H200-SXM", "NVIDIA H200" },
    { "H100-SXM5", "NVIDIA H100 80GB HBM3" },
    { "A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB" },
    { "A100-PCIe", "NVIDIA A100 80GB PCIe" },
    { "V100-SXM2", "Tesla V100-SXM2-32GB" },
    { "RTX-PRO-6000-Blackwell",
      "NVIDIA RTX PRO 6000 Blackwell Workstation Edition" },
};

static void product_name(const struct p2psim_gpu_desc *g, char *out,
                         size_t len)
{
    for (size_t i = 0; i < sizeof(product_names) / sizeof(product_names[0]);
         i++) {
        if (!strcmp(g->model, product_names[i].catalog)) {
            snprintf(out, len, "%s", product_names[i].cuda);
            return;
        }
    }
    char spaced[sizeof(g->model)];
    snprintf(spaced, sizeof(spaced), "%s", g->model);
    for (char *c = spaced; *c; c++) {
        if (*c == '-') {
            *c = ' ';
        }
    }
    snprintf(out, len, "NVIDIA %s%s",
             g->cls == P2PSIM_GPU_GEFORCE ? "GeForce " : "", spaced);
}

/*
 * A UUID that is the same every run and differs between GPUs and
 * machines: FNV-1a (64 bit) of "machine/gpu-id", twice with different
 * offsets, each mixed by MurmurHash3's 64-bit finalizer (FNV's low bytes
 * depend on the low bytes of the input only), as the 16 bytes. Model:
 * real UUIDs are burnt into the board.
 */
static void gpu_uuid(unsigned dev, cudaUUID_t *out)
{
    char key[160];
    snprintf(key, sizeof(key), "%s/%s", p2psim_machine_name(rt.p),
             p2psim_gpu_id(rt.p, dev));
    for (unsigned half = 0; half < 2; half++) {
        uint64_t h = UINT64_C(14695981039346656037) ^ half;
        for (const char *c = key; *c; c++) {
            h = (h ^ (unsigned char)*c) * UINT64_C(1099511628211);
        }
        h ^= h >> 33;
        h *= UINT64_C(0xff51afd7ed558ccd);
        h ^= h >> 33;
        h *= UINT64_C(0xc4ceb9fe1a85ec53);
        h ^= h >> 33;
        for (unsigned b = 0; b < 8; b++) {
            out->bytes[half * 8 + b] = (char)(h >> (8 * b));
        }
    }
}

/* ---- properties ---------------------------------------------------------- */

/*
 * Texture and surface limits (elements) of compute capability 7.0 and
 * later, CUDA C++ Programming Guide technical specifications. The shim
 * serves no textures; programs that print them (deviceQuery) see the
 * figures a real device reports.
 */
static void texture_limits(struct cudaDeviceProp *p)
{
    p->maxTexture1D = 131072;
    p->maxTexture1DMipmap = 32768;
    p->maxTexture2D[0] = 131072, p->maxTexture2D[1] = 65536;
    p->maxTexture2DMipmap[0] = p->maxTexture2DMipmap[1] = 32768;
    p->maxTexture2DLinear[0] = 131072;
    p->maxTexture2DLinear[1] = 65000;
    p->maxTexture2DLinear[2] = 2097120;
    p->maxTexture2DGather[0] = p->maxTexture2DGather[1] = 32768;
    for (int i = 0; i < 3; i++) {
        p->maxTexture3D[i] = 16384;
        p->maxSurface3D[i] = 16384;
    }
    p->maxTexture3DAlt[0] = p->maxTexture3DAlt[1] = 8192;
    p->maxTexture3DAlt[2] = 32768;
    p->maxTextureCubemap = 32768;
    p->maxTexture1DLayered[0] = 32768, p->maxTexture1DLayered[1] = 2048;
    p->maxTexture2DLayered[0] = p->maxTexture2DLayered[1] = 32768;
    p->maxTexture2DLayered[2] = 2048;
    p->maxTextureCubemapLayered[0] = 32768;
    p->maxTextureCubemapLayered[1] = 2046;
    p->maxSurface1D = 32768;
    p->maxSurface2D[0] = 131072, p->maxSurface2D[1] = 65536;
    p->maxSurface1DLayered[0] = 32768, p->maxSurface1DLayered[1] = 2048;
    p->maxSurface2DLayered[0] = p->maxSurface2DLayered[1] = 32768;
    p->maxSurface2DLayered[2] = 2048;
    p->maxSurfaceCubemap = 32768;
    p->maxSurfaceCubemapLayered[0] = 32768;
    p->maxSurfaceCubemapLayered[1] = 2046;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->surfaceAlignment = 512;
}

unsigned rt_device_arch(int dev)
{
    struct p2psim_gpu_desc g;
    if (!rt.p || dev < 0 || p2psim_gpu_describe(rt.p, (unsigned)dev, &g) < 0) {
        return 0;
    }
    return g.cc_major * 10 + g.cc_minor;
}

void rt_device_props(int dev, struct cudaDeviceProp *p)
{
    struct p2psim_gpu_desc desc;
    const struct p2psim_gpu_desc *g = &desc;
    p2psim_gpu_describe(rt.p, (unsigned)dev, &desc);
    const struct sm_arch *a = sm_arch_of(g->cc_major, g->cc_minor);
    bool hopper_on = g->cc_major >= 9;
    unsigned domain, bus, slot, fn;

    memset(p, 0, sizeof(*p));
    product_name(g, p->name, sizeof(p->name));
    gpu_uuid((unsigned)dev, &p->uuid);

    p->totalGlobalMem = p2psim_hbm_size(rt.p, (unsigned)dev);
    p->sharedMemPerBlock = 49152;           /* 48 KiB without opt-in */
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = INT_MAX;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = INT_MAX;            /* 2^31 - 1 */
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->totalConstMem = 65536;
    p->major = (int)g->cc_major;
    p->minor = (int)g->cc_minor;
    p->multiProcessorCount = (int)g->sms;
    p->integrated = 0;
    p->canMapHostMemory = 1;
    texture_limits(p);

    p->concurrentKernels = 1;
    /* Model: ECC is on where the product ships with it on (data-center
     * HBM and GDDR parts), off on GeForce and workstation boards. */
    p->ECCEnabled = g->cls == P2PSIM_GPU_DATACENTER;
    p2psim_gpu_pci_address(rt.p, (unsigned)dev, &domain, &bus, &slot, &fn);
    p->pciBusID = (int)bus;
    p->pciDeviceID = (int)slot;
    p->pciDomainID = (int)domain;
    p->tccDriver = 0;
    p->asyncEngineCount = (int)p2psim_gpu_copy_engines(rt.p, (unsigned)dev);
    p->unifiedAddressing = 1;
    p->memoryBusWidth = (int)g->mem_bus_width;
    p->l2CacheSize = (int)g->l2_bytes;
    /*
     * [estimate] Three quarters of L2 may be set aside for persisting
     * accesses (A100: 30 of 40 MB, CUDA C++ Best Practices Guide, "L2
     * Cache"); the window limit is the value deviceQuery-style listings
     * show for Ampere and Hopper. Both since compute capability 8.0.
     */
    p->persistingL2CacheMaxSize = g->cc_major >= 8 ? (int)(g->l2_bytes / 4 * 3)
                                                   : 0;
    p->accessPolicyMaxWindowSize = g->cc_major >= 8 ? 134213632 : 0;
    p->maxThreadsPerMultiProcessor = a->threads_per_sm;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = (size_t)a->smem_per_sm;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->isMultiGpuBoard = 0;
    p->multiGpuBoardGroupID = dev;
    /* calibration h200-x1-pcie-gen5.md: hostNativeAtomicSupported 0,
     * pageableMemoryAccess 0 (a PCIe host, no HMM or ATS). */
    p->hostNativeAtomicSupported = 0;
    p->pageableMemoryAccess = 0;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = (size_t)a->smem_per_block_optin;
    p->pageableMemoryAccessUsesHostPageTables = 0;
    p->directManagedMemAccessFromHost = 0;
    p->maxBlocksPerMultiProcessor = a->blocks_per_sm;
    p->reservedSharedMemPerBlock = (size_t)a->smem_reserved;
    p->hostRegisterSupported = 1;
    p->hostRegisterReadOnlySupported = 1;
    /* Arrays, external semaphores: not served by the shim. */
    p->sparseCudaArraySupported = 0;
    p->timelineSemaphoreInteropSupported = 0;
    p->deferredMappingCudaArraySupported = 0;
    p->memoryPoolsSupported = 1;
    /* [estimate] GPUDirect RDMA on data-center and workstation boards,
     * not on GeForce (NVIDIA's GPUDirect RDMA documentation). */
    p->gpuDirectRDMASupported = g->cls != P2PSIM_GPU_GEFORCE;
    p->gpuDirectRDMAFlushWritesOptions =
        p->gpuDirectRDMASupported ? cudaFlushGPUDirectRDMAWritesOptionHost
                                  : 0;
    p->gpuDirectRDMAWritesOrdering = cudaGPUDirectRDMAWritesOrderingNone;
    p->memoryPoolSupportedHandleTypes = cudaMemHandleTypePosixFileDescriptor;
    p->ipcEventSupported = 1;
    p->clusterLaunch = hopper_on;           /* thread block clusters: 9.0+ */
    p->unifiedFunctionPointers = 0;
    p->deviceNumaConfig = 0;                /* not a NUMA node itself */
    p->deviceNumaId = -1;
    p->mpsEnabled = 0;
    p->hostNumaId = (int)p2psim_gpu_socket(rt.p, (unsigned)dev);
    /* Not in the catalog: PCI vendor/device and subsystem ids read 0. */
    p->gpuPciDeviceID = 0;
    p->gpuPciSubsystemID = 0;
    p->hostNumaMultinodeIpcSupported = 0;
}

/* ---- attributes ---------------------------------------------------------- */

/*
 * Attributes that are a cudaDeviceProp field (the pairs of the CUDA
 * Runtime API's cudaDeviceGetAttribute documentation), by attribute: where
 * the field is and how wide (int-sized, or size_t read as int). size 0:
 * not a field; device_attribute answers those or refuses them.
 */
struct attr_field {
    unsigned short off;
    unsigned char size;
};

#define F(attr, field)                                                        \
    [attr] = { offsetof(struct cudaDeviceProp, field),                        \
               sizeof(((struct cudaDeviceProp *)0)->field) }

static const struct attr_field attr_fields[cudaDevAttrMax] = {
    F(cudaDevAttrMaxThreadsPerBlock, maxThreadsPerBlock),
    F(cudaDevAttrMaxBlockDimX, maxThreadsDim[0]),
    F(cudaDevAttrMaxBlockDimY, maxThreadsDim[1]),
    F(cudaDevAttrMaxBlockDimZ, maxThreadsDim[2]),
    F(cudaDevAttrMaxGridDimX, maxGridSize[0]),
    F(cudaDevAttrMaxGridDimY, maxGridSize[1]),
    F(cudaDevAttrMaxGridDimZ, maxGridSize[2]),
    F(cudaDevAttrMaxSharedMemoryPerBlock, sharedMemPerBlock),
    F(cudaDevAttrTotalConstantMemory, totalConstMem),
    F(cudaDevAttrWarpSize, warpSize),
    F(cudaDevAttrMaxPitch, memPitch),
    F(cudaDevAttrMaxRegistersPerBlock, regsPerBlock),
    F(cudaDevAttrTextureAlignment, textureAlignment),
    F(cudaDevAttrMultiProcessorCount, multiProcessorCount),
    F(cudaDevAttrIntegrated, integrated),
    F(cudaDevAttrCanMapHostMemory, canMapHostMemory),
    F(cudaDevAttrMaxTexture1DWidth, maxTexture1D),
    F(cudaDevAttrMaxTexture2DWidth, maxTexture2D[0]),
    F(cudaDevAttrMaxTexture2DHeight, maxTexture2D[1]),
    F(cudaDevAttrMaxTexture3DWidth, maxTexture3D[0]),
    F(cudaDevAttrMaxTexture3DHeight, maxTexture3D[1]),
    F(cudaDevAttrMaxTexture3DDepth, maxTexture3D[2]),
    F(cudaDevAttrMaxTexture2DLayeredWidth, maxTexture2DLayered[0]),
    F(cudaDevAttrMaxTexture2DLayeredHeight, maxTexture2DLayered[1]),
    F(cudaDevAttrMaxTexture2DLayeredLayers, maxTexture2DLayered[2]),
    F(cudaDevAttrSurfaceAlignment, surfaceAlignment),
    F(cudaDevAttrConcurrentKernels, concurrentKernels),
    F(cudaDevAttrEccEnabled, ECCEnabled),
    F(cudaDevAttrPciBusId, pciBusID),
    F(cudaDevAttrPciDeviceId, pciDeviceID),
    F(cudaDevAttrTccDriver, tccDriver),
    F(cudaDevAttrGlobalMemoryBusWidth, memoryBusWidth),
    F(cudaDevAttrL2CacheSize, l2CacheSize),
    F(cudaDevAttrMaxThreadsPerMultiProcessor, maxThreadsPerMultiProcessor),
    F(cudaDevAttrAsyncEngineCount, asyncEngineCount),
    F(cudaDevAttrUnifiedAddressing, unifiedAddressing),
    F(cudaDevAttrMaxTexture1DLayeredWidth, maxTexture1DLayered[0]),
    F(cudaDevAttrMaxTexture1DLayeredLayers, maxTexture1DLayered[1]),
    F(cudaDevAttrMaxTexture2DGatherWidth, maxTexture2DGather[0]),
    F(cudaDevAttrMaxTexture2DGatherHeight, maxTexture2DGather[1]),
    F(cudaDevAttrMaxTexture3DWidthAlt, maxTexture3DAlt[0]),
    F(cudaDevAttrMaxTexture3DHeightAlt, maxTexture3DAlt[1]),
    F(cudaDevAttrMaxTexture3DDepthAlt, maxTexture3DAlt[2]),
    F(cudaDevAttrPciDomainId, pciDomainID),
    F(cudaDevAttrTexturePitchAlignment, texturePitchAlignment),
    F(cudaDevAttrMaxTextureCubemapWidth, maxTextureCubemap),
    F(cudaDevAttrMaxTextureCubemapLayeredWidth, maxTextureCubemapLayered[0]),
    F(cudaDevAttrMaxTextureCubemapLayeredLayers, maxTextureCubemapLayered[1]),
    F(cudaDevAttrMaxSurface1DWidth, maxSurface1D),
    F(cudaDevAttrMaxSurface2DWidth, maxSurface2D[0]),
    F(cudaDevAttrMaxSurface2DHeight, maxSurface2D[1]),
    F(cudaDevAttrMaxSurface3DWidth, maxSurface3D[0]),
    F(cudaDevAttrMaxSurface3DHeight, maxSurface3D[1]),
    F(cudaDevAttrMaxSurface3DDepth, maxSurface3D[2]),
    F(cudaDevAttrMaxSurface1DLayeredWidth, maxSurface1DLayered[0]),
    F(cudaDevAttrMaxSurface1DLayeredLayers, maxSurface1DLayered[1]),
    F(cudaDevAttrMaxSurface2DLayeredWidth, maxSurface2DLayered[0]),
    F(cudaDevAttrMaxSurface2DLayeredHeight, maxSurface2DLayered[1]),
    F(cudaDevAttrMaxSurface2DLayeredLayers, maxSurface2DLayered[2]),
    F(cudaDevAttrMaxSurfaceCubemapWidth, maxSurfaceCubemap),
    F(cudaDevAttrMaxSurfaceCubemapLayeredWidth, maxSurfaceCubemapLayered[0]),
    F(cudaDevAttrMaxSurfaceCubemapLayeredLayers, maxSurfaceCubemapLayered[1]),
    F(cudaDevAttrMaxTexture2DLinearWidth, maxTexture2DLinear[0]),
    F(cudaDevAttrMaxTexture2DLinearHeight, maxTexture2DLinear[1]),
    F(cudaDevAttrMaxTexture2DLinearPitch, maxTexture2DLinear[2]),
    F(cudaDevAttrMaxTexture2DMipmappedWidth, maxTexture2DMipmap[0]),
    F(cudaDevAttrMaxTexture2DMipmappedHeight, maxTexture2DMipmap[1]),
    F(cudaDevAttrComputeCapabilityMajor, major),
    F(cudaDevAttrComputeCapabilityMinor, minor),
    F(cudaDevAttrMaxTexture1DMipmappedWidth, maxTexture1DMipmap),
    F(cudaDevAttrStreamPrioritiesSupported, streamPrioritiesSupported),
    F(cudaDevAttrGlobalL1CacheSupported, globalL1CacheSupported),
    F(cudaDevAttrLocalL1CacheSupported, localL1CacheSupported),
    F(cudaDevAttrMaxSharedMemoryPerMultiprocessor,
      sharedMemPerMultiprocessor),
    F(cudaDevAttrMaxRegistersPerMultiprocessor, regsPerMultiprocessor),
    F(cudaDevAttrManagedMemory, managedMemory),
    F(cudaDevAttrIsMultiGpuBoard, isMultiGpuBoard),
    F(cudaDevAttrMultiGpuBoardGroupID, multiGpuBoardGroupID),
    F(cudaDevAttrHostNativeAtomicSupported, hostNativeAtomicSupported),
    F(cudaDevAttrPageableMemoryAccess, pageableMemoryAccess),
    F(cudaDevAttrConcurrentManagedAccess, concurrentManagedAccess),
    F(cudaDevAttrComputePreemptionSupported, computePreemptionSupported),
    F(cudaDevAttrCanUseHostPointerForRegisteredMem,
      canUseHostPointerForRegisteredMem),
    F(cudaDevAttrCooperativeLaunch, cooperativeLaunch),
    F(cudaDevAttrMaxSharedMemoryPerBlockOptin, sharedMemPerBlockOptin),
    F(cudaDevAttrHostRegisterSupported, hostRegisterSupported),
    F(cudaDevAttrPageableMemoryAccessUsesHostPageTables,
      pageableMemoryAccessUsesHostPageTables),
    F(cudaDevAttrDirectManagedMemAccessFromHost,
      directManagedMemAccessFromHost),
    F(cudaDevAttrMaxBlocksPerMultiprocessor, maxBlocksPerMultiProcessor),
    F(cudaDevAttrMaxPersistingL2CacheSize, persistingL2CacheMaxSize),
    F(cudaDevAttrMaxAccessPolicyWindowSize, accessPolicyMaxWindowSize),
    F(cudaDevAttrReservedSharedMemoryPerBlock, reservedSharedMemPerBlock),
    F(cudaDevAttrSparseCudaArraySupported, sparseCudaArraySupported),
    F(cudaDevAttrHostRegisterReadOnlySupported,
      hostRegisterReadOnlySupported),
    F(cudaDevAttrTimelineSemaphoreInteropSupported,
      timelineSemaphoreInteropSupported),
    F(cudaDevAttrMemoryPoolsSupported, memoryPoolsSupported),
    F(cudaDevAttrGPUDirectRDMASupported, gpuDirectRDMASupported),
    F(cudaDevAttrGPUDirectRDMAFlushWritesOptions,
      gpuDirectRDMAFlushWritesOptions),
    F(cudaDevAttrGPUDirectRDMAWritesOrdering, gpuDirectRDMAWritesOrdering),
    F(cudaDevAttrMemoryPoolSupportedHandleTypes,
      memoryPoolSupportedHandleTypes),
    F(cudaDevAttrClusterLaunch, clusterLaunch),
    F(cudaDevAttrDeferredMappingCudaArraySupported,
      deferredMappingCudaArraySupported),
    F(cudaDevAttrIpcEventSupport, ipcEventSupported),
    F(cudaDevAttrNumaConfig, deviceNumaConfig),
    F(cudaDevAttrNumaId, deviceNumaId),
    F(cudaDevAttrMpsEnabled, mpsEnabled),
    F(cudaDevAttrHostNumaId, hostNumaId),
    F(cudaDevAttrGpuPciDeviceId, gpuPciDeviceID),
    F(cudaDevAttrGpuPciSubsystemId, gpuPciSubsystemID),
    F(cudaDevAttrHostNumaMultinodeIpcSupported,
      hostNumaMultinodeIpcSupported),
};

#undef F

/*
 * The driver's CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, which
 * the runtime's enum does not name and CUDA's runtime answers by number,
 * as the driver does: the GPU's catalog `compression`.
 */
#define RT_ATTR_GENERIC_COMPRESSION 107

/*
 * Attributes without a field in the CUDA 13 layout. Reserved and retired
 * values (cudaDevAttrReserved92, the gaps) and anything else: invalid.
 */
static bool attribute_computed(const struct p2psim_gpu_desc *g,
                               enum cudaDeviceAttr attr, int *v)
{
    if ((int)attr == RT_ATTR_GENERIC_COMPRESSION) {
        *v = g->compression;
        return true;
    }
    switch (attr) {
    case cudaDevAttrClockRate: /* kHz */
        *v = (int)(g->sm_clock_hz / 1000);
        return true;
    case cudaDevAttrMemoryClockRate: /* kHz */
        *v = (int)(g->mem_clock_hz / 1000);
        return true;
    case cudaDevAttrGpuOverlap: /* copy engines run beside kernels */
        *v = 1;
        return true;
    case cudaDevAttrComputeMode:
        *v = cudaComputeModeDefault;
        return true;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio:
        *v = sm_arch_of(g->cc_major, g->cc_minor)->sp_dp;
        return true;
    case cudaDevAttrMaxTexture1DLinearWidth: /* the guide: 2^28 */
        *v = 1 << 28;
        return true;
    case cudaDevAttrMemSyncDomainCount:
        /* Hopper has four memory synchronization domains, earlier GPUs
         * one (CUDA C++ Programming Guide, "Memory Synchronization
         * Domains"). */
        *v = g->cc_major >= 9 ? 4 : 1;
        return true;
    case cudaDevAttrKernelExecTimeout:    /* no display watchdog */
    case cudaDevAttrCanFlushRemoteWrites:
    case cudaDevAttrD3D12CigSupported:
    case cudaDevAttrVulkanCigSupported:
    /* Pools in host memory (cudaMemLocationTypeHost*): not served. */
    case cudaDevAttrHostNumaMemoryPoolsSupported:
    case cudaDevAttrHostMemoryPoolsSupported:
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported:
        *v = 0;
        return true;
    default:
        return false;
    }
}

cudaError_t rt_device_attribute(int *value, enum cudaDeviceAttr attr,
                                int dev)
{
    struct cudaDeviceProp p;

    if (!value) {
        return cudaErrorInvalidValue;
    }
    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    if (attr > 0 && attr < cudaDevAttrMax && attr_fields[attr].size) {
        const char *f;
        rt_device_props(dev, &p);
        f = (const char *)&p + attr_fields[attr].off;
        if (attr_fields[attr].size == sizeof(size_t)) {
            size_t v;
            memcpy(&v, f, sizeof(v));
            *value = v > INT_MAX ? INT_MAX : (int)v;
        } else {
            memcpy(value, f, sizeof(*value));
        }
        return cudaSuccess;
    }
    struct p2psim_gpu_desc g;
    p2psim_gpu_describe(rt.p, (unsigned)dev, &g);
    return attribute_computed(&g, attr, value) ? cudaSuccess
                                               : cudaErrorInvalidValue;
}

