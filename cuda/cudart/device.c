/*
 * cuda/cudart/device.c - devices: how many, which one is current, what
 * they are (cudaGetDeviceProperties, cudaDeviceGetAttribute), where they
 * sit on PCI, their flags and limits, memory left, versions, reset, and a
 * device's first use (rt_device_init).
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
 * Not modelled: contexts cost no memory (cudaMemGetInfo reports all of the
 * HBM free on a fresh device), devices cannot be in an exclusive compute
 * mode, and cudaSetValidDevices only validates its list.
 */
#include <config.h>

#include "cuda/cudart/rt.h"
#include "cuda/include/p2psim_cudart_internal.h"

#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/memory.h"


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
 * Attributes without a field in the CUDA 13 layout. Reserved and retired
 * values (cudaDevAttrReserved92, the gaps) and anything else: invalid.
 */
static bool attribute_computed(const struct p2psim_gpu_desc *g,
                               enum cudaDeviceAttr attr, int *v)
{
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

static cudaError_t device_attribute(int *value, enum cudaDeviceAttr attr,
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

/* ---- first use, limits --------------------------------------------------- */

/*
 * Limits a fresh context has: 1 KiB of stack per thread, a 1 MiB printf
 * FIFO and an 8 MiB malloc heap (what cudaDeviceGetLimit reports on a
 * fresh context of recent GPUs [recalled]; the heap's 8 MiB is documented
 * in the CUDA C++ Programming Guide, "Dynamic Global Memory Allocation");
 * sync depth 2 and 2048 pending launches are the device runtime's defaults
 * (CUDA C++ Programming Guide, "Dynamic Parallelism"); L2 fetch
 * granularity 32 B is [estimate]; nothing is set aside for persisting L2
 * accesses until the program asks.
 */
static void limits_reset(struct rt_device *d)
{
    memset(d->limits, 0, sizeof(d->limits));
    d->limits[cudaLimitStackSize] = 1024;
    d->limits[cudaLimitPrintfFifoSize] = 1u << 20;
    d->limits[cudaLimitMallocHeapSize] = 8u << 20;
    d->limits[cudaLimitDevRuntimeSyncDepth] = 2;
    d->limits[cudaLimitDevRuntimePendingLaunchCount] = 2048;
    d->limits[cudaLimitMaxL2FetchGranularity] = 32;
    d->limits[cudaLimitPersistingL2CacheSize] = 0;
}

cudaError_t rt_device_init(int dev)
{
    struct rt_device *d;

    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    d = &rt.dev[dev];
    if (!d->peer_enabled) {
        d->peer_enabled = calloc(rt.n_dev, sizeof(*d->peer_enabled));
        if (!d->peer_enabled) {
            return cudaErrorMemoryAllocation;
        }
    }
    if (!d->legacy) {
        d->legacy = rt_stream_new_legacy(dev);
        if (!d->legacy) {
            return cudaErrorMemoryAllocation;
        }
    }
    if (!d->initialized) {
        limits_reset(d);
        d->initialized = true;
    }
    return cudaSuccess;
}

/* ---- the calls ----------------------------------------------------------- */

/*
 * A served call: enter, run body (an expression giving a cudaError_t,
 * evaluated with the lock held), leave, record the result.
 */
#define SERVE(body)                                                           \
    do {                                                                      \
        cudaError_t e_ = rt_enter();                                          \
        if (e_) {                                                             \
            return cudart_error_return(e_);                                   \
        }                                                                     \
        rt_charge(rt_costs[RT_COST_CALL]);                                    \
        e_ = (body);                                                          \
        rt_leave();                                                           \
        return cudart_error_return(e_);                                       \
    } while (0)

static cudaError_t get_device_count(int *count)
{
    if (!count) {
        return cudaErrorInvalidValue;
    }
    *count = (int)rt.n_dev;
    return rt.n_dev ? cudaSuccess : cudaErrorNoDevice;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    cudaError_t e = rt_enter();
    if (e) {
        /* A runtime that cannot start has no devices (the real runtime
         * without a driver writes 0 and returns 35). */
        if (count) {
            *count = 0;
        }
        return cudart_error_return(e);
    }
    rt_charge(rt_costs[RT_COST_CALL]);
    e = get_device_count(count);
    rt_leave();
    return cudart_error_return(e);
}

static cudaError_t set_device(int dev)
{
    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    /* CUDA 12+: cudaSetDevice creates the primary context. */
    cudaError_t e = rt_device_init(dev);
    if (e) {
        return e;
    }
    rt_self()->device = dev;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    SERVE(set_device(device));
}

static cudaError_t get_device(int *dev)
{
    if (!dev) {
        return cudaErrorInvalidValue;
    }
    *dev = rt_current_device();
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    SERVE(get_device(device));
}

/* cudaDeviceSchedule* (one of them at most) and behaviour bits. */
static bool device_flags_valid(unsigned flags)
{
    unsigned sched = flags & cudaDeviceScheduleMask;
    return !(flags & ~(unsigned)cudaDeviceMask) &&
           (sched == cudaDeviceScheduleAuto ||
            sched == cudaDeviceScheduleSpin ||
            sched == cudaDeviceScheduleYield ||
            sched == cudaDeviceScheduleBlockingSync);
}

static cudaError_t init_device(int dev, unsigned dev_flags, unsigned flags)
{
    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    if (flags & ~(unsigned)cudaInitDeviceFlagsAreValid) {
        return cudaErrorInvalidValue;
    }
    if (flags & cudaInitDeviceFlagsAreValid) {
        if (!device_flags_valid(dev_flags)) {
            return cudaErrorInvalidValue;
        }
        rt.dev[dev].flags = dev_flags;
    }
    return rt_device_init(dev);
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags,
                           unsigned int flags)
{
    SERVE(init_device(device, deviceFlags, flags));
}

static cudaError_t set_device_flags(unsigned flags)
{
    if (!device_flags_valid(flags)) {
        return cudaErrorInvalidValue;
    }
    int dev = rt_current_device();
    rt.dev[dev].flags = flags;
    return rt_device_init(dev);
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    SERVE(set_device_flags(flags));
}

static cudaError_t get_device_flags(unsigned *flags)
{
    if (!flags) {
        return cudaErrorInvalidValue;
    }
    /* Model: with unified addressing host memory is always mapped, so
     * cudaDeviceMapHost always reads back set. */
    *flags = rt.dev[rt_current_device()].flags | cudaDeviceMapHost;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    SERVE(get_device_flags(flags));
}

/*
 * Model: every simulated device can take a context, so the list never
 * changes which device a thread ends up on; it is only validated.
 */
static cudaError_t set_valid_devices(const int *devs, int len)
{
    if (len < 0 || (len > 0 && !devs)) {
        return cudaErrorInvalidValue;
    }
    for (int i = 0; i < len; i++) {
        if (!rt_device_valid(devs[i])) {
            return cudaErrorInvalidDevice;
        }
    }
    return cudaSuccess;
}

cudaError_t cudaSetValidDevices(int *deviceArr, int len)
{
    SERVE(set_valid_devices(deviceArr, len));
}

/*
 * The device that meets most of prop's wishes: compute capability at
 * least major.minor, at least totalGlobalMem, at least
 * multiProcessorCount (fields left 0 are met by anyone); ties go to the
 * lowest ordinal. CUDA documents only "best match".
 */
static cudaError_t choose_device(int *out, const struct cudaDeviceProp *want)
{
    int best = 0, best_score = -1;

    if (!out || !want) {
        return cudaErrorInvalidValue;
    }
    for (unsigned d = 0; d < rt.n_dev; d++) {
        struct cudaDeviceProp p;
        rt_device_props((int)d, &p);
        int score = (p.major * 10 + p.minor >= want->major * 10 + want->minor) +
                    (p.totalGlobalMem >= want->totalGlobalMem) +
                    (p.multiProcessorCount >= want->multiProcessorCount);
        if (score > best_score) {
            best = (int)d;
            best_score = score;
        }
    }
    *out = best;
    return cudaSuccess;
}

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    SERVE(choose_device(device, prop));
}

static cudaError_t get_properties(struct cudaDeviceProp *prop, int dev)
{
    if (!prop) {
        return cudaErrorInvalidValue;
    }
    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    rt_device_props(dev, prop);
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    SERVE(get_properties(prop, device));
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr,
                                   int device)
{
    SERVE(device_attribute(value, attr, device));
}

/* ---- PCI bus ids --------------------------------------------------------- */

/*
 * "dddd:bb:dd.f", upper-case hexadecimal as the driver writes it; 13
 * bytes with the NUL, the size the CUDA documentation asks for. A shorter
 * buffer gets the truncated, NUL-terminated string.
 */
static cudaError_t get_pci_bus_id(char *buf, int len, int dev)
{
    unsigned domain, bus, slot, fn;

    if (!buf || len <= 0) {
        return cudaErrorInvalidValue;
    }
    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    p2psim_gpu_pci_address(rt.p, (unsigned)dev, &domain, &bus, &slot, &fn);
    snprintf(buf, (size_t)len, "%04X:%02X:%02X.%X", domain, bus, slot, fn);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    SERVE(get_pci_bus_id(pciBusId, len, device));
}

/* One hexadecimal field of at most max_digits digits ending at a char of
 * ends (or at the end of the string if ends holds '\0'). */
static bool hex_field(const char **s, unsigned max_digits, const char *ends,
                      unsigned *out)
{
    unsigned v = 0, n = 0;
    while (isxdigit((unsigned char)**s) && n < max_digits) {
        int c = tolower((unsigned char)**s);
        v = v * 16 + (unsigned)(isdigit(c) ? c - '0' : c - 'a' + 10);
        (*s)++;
        n++;
    }
    if (n == 0 || !strchr(ends, **s)) {
        return false;
    }
    *out = v;
    return true;
}

/*
 * The forms CUDA accepts (cudaDeviceGetByPCIBusId): "domain:bus:device.
 * function", "domain:bus:device" and "bus:device.function", in
 * hexadecimal of either case; a domain of up to 8 digits (nvidia-smi
 * writes 8).
 */
static bool parse_bus_id(const char *s, unsigned *domain, unsigned *bus,
                         unsigned *slot, unsigned *fn)
{
    unsigned f[4];
    unsigned n = 0;
    const char *p = s;
    char sep = ':';

    while (n < 4) {
        if (!hex_field(&p, 8, ":.", &f[n])) {
            return false;
        }
        n++;
        sep = *p;
        if (!sep) {
            break;
        }
        p++;
        if (sep == '.') {
            if (!hex_field(&p, 1, "", &f[n])) {
                return false;
            }
            n++;
            break;
        }
    }
    if (sep == '.' && n == 4) {          /* domain:bus:device.function */
        *domain = f[0], *bus = f[1], *slot = f[2], *fn = f[3];
    } else if (sep == '.' && n == 3) {   /* bus:device.function */
        *domain = 0, *bus = f[0], *slot = f[1], *fn = f[2];
    } else if (!sep && n == 3) {         /* domain:bus:device */
        *domain = f[0], *bus = f[1], *slot = f[2], *fn = 0;
    } else {
        return false;
    }
    return *bus <= 0xff && *slot <= 0x1f && *fn <= 7;
}

static cudaError_t get_by_pci_bus_id(int *dev, const char *id)
{
    unsigned domain, bus, slot, fn;

    if (!dev || !id || !parse_bus_id(id, &domain, &bus, &slot, &fn)) {
        return cudaErrorInvalidValue;
    }
    for (unsigned d = 0; d < rt.n_dev; d++) {
        unsigned dd, db, ds, df;
        p2psim_gpu_pci_address(rt.p, d, &dd, &db, &ds, &df);
        if (dd == domain && db == bus && ds == slot && df == fn) {
            *dev = (int)d;
            return cudaSuccess;
        }
    }
    return cudaErrorInvalidDevice;
}

cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    SERVE(get_by_pci_bus_id(device, pciBusId));
}

/* ---- synchronization and reset ------------------------------------------- */

cudaError_t cudaDeviceSynchronize(void)
{
    SERVE(rt_device_sync(rt_current_device()));
}

/*
 * Destroy the current device's context: wait for its work, then free its
 * allocations and streams (memory.c, stream.c), drop the peer access it
 * granted and was granted, and forget its flags and limits. The next use
 * creates a fresh context (rt_device_init). A teardown call: it runs even
 * after a sticky error (which it does not clear; CUDA processes cannot
 * recover from one).
 */
static cudaError_t device_reset(void)
{
    int dev = rt_current_device();
    struct rt_device *d = &rt.dev[dev];

    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    cudaError_t e = rt_device_sync(dev);
    rt_memory_reset_device(dev);
    rt_stream_reset_device(dev);
    for (unsigned o = 0; o < rt.n_dev; o++) {
        if (rt.dev[o].peer_enabled) {
            rt.dev[o].peer_enabled[dev] = false;
        }
        if (d->peer_enabled) {
            d->peer_enabled[o] = false;
        }
    }
    d->flags = 0;
    d->initialized = false;
    /* A sticky error survives; anything else the work reported is
     * consumed by the context's end. */
    return cudart_error_is_sticky(e) ? e : cudaSuccess;
}

cudaError_t cudaDeviceReset(void)
{
    cudaError_t e = rt_enter_nosticky();
    if (e) {
        return cudart_error_return(e);
    }
    rt_charge(rt_costs[RT_COST_CALL]);
    e = device_reset();
    rt_leave();
    return cudart_error_return(e);
}

/* ---- limits -------------------------------------------------------------- */

static bool limit_known(enum cudaLimit limit)
{
    return limit >= cudaLimitStackSize &&
           limit <= cudaLimitPersistingL2CacheSize;
}

static cudaError_t set_limit(enum cudaLimit limit, size_t value)
{
    int dev = rt_current_device();
    struct cudaDeviceProp p;

    if (!limit_known(limit)) {
        return cudaErrorUnsupportedLimit;
    }
    cudaError_t e = rt_device_init(dev);
    if (e) {
        return e;
    }
    switch (limit) {
    case cudaLimitMaxL2FetchGranularity:
        /* A hint in [0, 128] bytes (CUDA Runtime API); kept as a power of
         * two, rounded down, as the driver may clamp it. */
        if (value > 128) {
            return cudaErrorInvalidValue;
        }
        while (value & (value - 1)) {
            value &= value - 1;
        }
        break;
    case cudaLimitPersistingL2CacheSize:
        /* Clamped to what the device can set aside (CUDA Runtime API). */
        rt_device_props(dev, &p);
        if (value > (size_t)p.persistingL2CacheMaxSize) {
            value = (size_t)p.persistingL2CacheMaxSize;
        }
        break;
    default:
        break;
    }
    rt.dev[dev].limits[limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    SERVE(set_limit(limit, value));
}

static cudaError_t get_limit(size_t *value, enum cudaLimit limit)
{
    int dev = rt_current_device();

    if (!value) {
        return cudaErrorInvalidValue;
    }
    if (!limit_known(limit)) {
        return cudaErrorUnsupportedLimit;
    }
    cudaError_t e = rt_device_init(dev);
    if (e) {
        return e;
    }
    *value = rt.dev[dev].limits[limit];
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
    SERVE(get_limit(value, limit));
}

/*
 * [0, -5]: numerically lower is higher priority; the range of Hopper and
 * Ampere with CUDA 12-13 (stream.c clamps priorities to it). Either
 * pointer may be NULL (CUDA Driver API, cuCtxGetStreamPriorityRange).
 */
static cudaError_t priority_range(int *least, int *greatest)
{
    if (least) {
        *least = 0;
    }
    if (greatest) {
        *greatest = -5;
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
                                             int *greatestPriority)
{
    SERVE(priority_range(leastPriority, greatestPriority));
}

/* Model: the context itself takes no device memory. */
static cudaError_t mem_get_info(size_t *free_bytes, size_t *total_bytes)
{
    int dev = rt_current_device();

    if (!free_bytes || !total_bytes) {
        return cudaErrorInvalidValue;
    }
    cudaError_t e = rt_device_init(dev);
    if (e) {
        return e;
    }
    uint64_t total = p2psim_hbm_size(rt.p, (unsigned)dev);
    uint64_t used = rt.dev[dev].mem_used;
    *total_bytes = (size_t)total;
    *free_bytes = (size_t)(used < total ? total - used : 0);
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *freeBytes, size_t *totalBytes)
{
    SERVE(mem_get_info(freeBytes, totalBytes));
}

/* ---- versions ------------------------------------------------------------ */

/*
 * Versions need no runtime state (they answer even where the machine
 * cannot load, as the real calls answer without a GPU): 13000 for both,
 * the driver being the simulator, which serves CUDA 13.0.
 */
cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    *driverVersion = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

/* ---- driver entry points ------------------------------------------------------ */

/*
 * The shim serves the runtime API only: no driver function (cu*) is
 * available, so every lookup succeeds with a NULL address and
 * cudaDriverEntryPointSymbolNotFound, which is what CUDA reports for a
 * symbol its driver lacks; programs that need the driver (NCCL's cuMem
 * path) then take their runtime-only fallbacks.
 */
static cudaError_t entry_point(const char *symbol, void **fn,
                               unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *st)
{
    if (!symbol || !fn ||
        (flags & ~(unsigned long long)(cudaEnableLegacyStream |
                                       cudaEnablePerThreadDefaultStream))) {
        return cudaErrorInvalidValue;
    }
    *fn = NULL;
    if (st) {
        *st = cudaDriverEntryPointSymbolNotFound;
    }
    return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                    unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult
                                        *driverStatus)
{
    return cudart_error_return(
        entry_point(symbol, funcPtr, flags, driverStatus));
}

cudaError_t cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion,
    unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    (void)cudaVersion;
    return cudart_error_return(
        entry_point(symbol, funcPtr, flags, driverStatus));
}

cudaError_t cudaGetDriverEntryPoint_ptsz(
    const char *symbol, void **funcPtr, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return cudart_error_return(
        entry_point(symbol, funcPtr, flags, driverStatus));
}

cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion,
    unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return cudaGetDriverEntryPointByVersion(symbol, funcPtr, cudaVersion,
                                            flags, driverStatus);
}
