/*
 * tests/abi/abi_check.c - print the binary interface of p2psim's CUDA
 * headers in a canonical text form, so it can be compared line by line with
 * the same program built against the CUDA toolkit's headers.
 *
 * One source, two builds (tests/abi/abi.sh): -I cuda/include and -I the
 * toolkit's include directory. Every name below must exist in both, so a
 * misspelt or missing name breaks the toolkit build, and every value, size
 * and offset is printed, so a wrong one shows up in the diff. The lists are
 * written out by hand from our headers; abi.sh checks that nothing our
 * headers declare is missing from them, and separately compares the debug
 * information of both builds (complete enumerations, member types, function
 * signatures) and the symbols each build imports.
 *
 * Output lines:
 *   type T size S align A
 *   field T.member offset O size S
 *   enum E.name V
 *   macro NAME KIND V          (KIND: the C type of the expansion)
 *   defined NAME yes|no        (macros that only need to exist)
 *   function NAME              (its address is taken, so the build imports
 *                               the symbol the header binds NAME to)
 *
 * -DABI_INTERNAL adds the runtime-internal interface: the fat binary wrapper
 * (ours: cuda/include/p2psim_cudart_internal.h; toolkit: fatbinary_section.h)
 * and, in our build only, references to the registration/launch entry
 * points and the per-thread twins, for the signature comparison.
 *
 * The program only prints; it never calls into the runtime, so it links
 * with -Wl,--unresolved-symbols=ignore-all and needs no library.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#if defined(ABI_INTERNAL)
#if defined(ABI_TOOLKIT)
#include <fatbinary_section.h>
typedef __fatBinC_Wrapper_t abi_fatbin_wrapper;
#define ABI_FATBIN_MAGIC FATBINC_MAGIC
#define ABI_FATBIN_VERSION FATBINC_VERSION
#define ABI_FATBIN_VERSION_LINKED FATBINC_LINK_VERSION
#else
#include <p2psim_cudart_internal.h>
typedef struct p2psim_fatbin_wrapper abi_fatbin_wrapper;
#define ABI_FATBIN_MAGIC P2PSIM_FATBIN_WRAPPER_MAGIC
#define ABI_FATBIN_VERSION P2PSIM_FATBIN_WRAPPER_VERSION
#define ABI_FATBIN_VERSION_LINKED P2PSIM_FATBIN_WRAPPER_VERSION_LINKED
#endif
#endif

/* The C type a macro expands to. */
#define ABI_KIND(x)                                                            \
    _Generic((x), int: "int", unsigned int: "unsigned", long: "long",          \
             unsigned long: "unsigned-long", long long: "long-long",           \
             unsigned long long: "unsigned-long-long", default: "other")

#define TYPE(T)                                                                \
    printf("type %s size %zu align %zu\n", #T, sizeof(T), _Alignof(T))
#define FIELD(T, m)                                                            \
    printf("field %s.%s offset %zu size %zu\n", #T, #m, offsetof(T, m),       \
           sizeof(((T *)0)->m))
#define ENUMV(E, e) printf("enum %s.%s %lld\n", #E, #e, (long long)(e))
#define MACRO(m)                                                               \
    printf("macro %s %s %lld\n", #m, ABI_KIND(m), (long long)(m))
#define MACRO_PTR(m)                                                           \
    printf("macro %s pointer %#llx\n", #m,                                   \
           (unsigned long long)(uintptr_t)(m))
#define FUNC(f) abi_function(#f, (abi_fn)(f))

typedef void (*abi_fn)(void);

/* Keeps every referenced function alive in the object file. */
static volatile abi_fn abi_sink;

static void abi_function(const char *name, abi_fn f)
{
    abi_sink = f;
    printf("function %s\n", name);
}

static void abi_defined(const char *name, int yes)
{
    printf("defined %s %s\n", name, yes ? "yes" : "no");
}

/* Every enumeration, in full: its size and each value. */
static void check_enums(void)
{
    /* enum cudaError */
    TYPE(enum cudaError);
#define E(e) ENUMV(cudaError, e)
    E(cudaSuccess); E(cudaErrorInvalidValue); E(cudaErrorMemoryAllocation);
    E(cudaErrorInitializationError); E(cudaErrorCudartUnloading);
    E(cudaErrorProfilerDisabled); E(cudaErrorProfilerNotInitialized);
    E(cudaErrorProfilerAlreadyStarted); E(cudaErrorProfilerAlreadyStopped);
    E(cudaErrorInvalidConfiguration); E(cudaErrorInvalidPitchValue);
    E(cudaErrorInvalidSymbol); E(cudaErrorInvalidHostPointer);
    E(cudaErrorInvalidDevicePointer); E(cudaErrorInvalidTexture);
    E(cudaErrorInvalidTextureBinding); E(cudaErrorInvalidChannelDescriptor);
    E(cudaErrorInvalidMemcpyDirection); E(cudaErrorAddressOfConstant);
    E(cudaErrorTextureFetchFailed); E(cudaErrorTextureNotBound);
    E(cudaErrorSynchronizationError); E(cudaErrorInvalidFilterSetting);
    E(cudaErrorInvalidNormSetting); E(cudaErrorMixedDeviceExecution);
    E(cudaErrorNotYetImplemented); E(cudaErrorMemoryValueTooLarge);
    E(cudaErrorStubLibrary); E(cudaErrorInsufficientDriver);
    E(cudaErrorCallRequiresNewerDriver); E(cudaErrorInvalidSurface);
    E(cudaErrorDuplicateVariableName); E(cudaErrorDuplicateTextureName);
    E(cudaErrorDuplicateSurfaceName); E(cudaErrorDevicesUnavailable);
    E(cudaErrorIncompatibleDriverContext); E(cudaErrorMissingConfiguration);
    E(cudaErrorPriorLaunchFailure); E(cudaErrorLaunchMaxDepthExceeded);
    E(cudaErrorLaunchFileScopedTex); E(cudaErrorLaunchFileScopedSurf);
    E(cudaErrorSyncDepthExceeded); E(cudaErrorLaunchPendingCountExceeded);
    E(cudaErrorInvalidDeviceFunction); E(cudaErrorNoDevice);
    E(cudaErrorInvalidDevice); E(cudaErrorDeviceNotLicensed);
    E(cudaErrorSoftwareValidityNotEstablished); E(cudaErrorStartupFailure);
    E(cudaErrorInvalidKernelImage); E(cudaErrorDeviceUninitialized);
    E(cudaErrorMapBufferObjectFailed); E(cudaErrorUnmapBufferObjectFailed);
    E(cudaErrorArrayIsMapped); E(cudaErrorAlreadyMapped);
    E(cudaErrorNoKernelImageForDevice); E(cudaErrorAlreadyAcquired);
    E(cudaErrorNotMapped); E(cudaErrorNotMappedAsArray);
    E(cudaErrorNotMappedAsPointer); E(cudaErrorECCUncorrectable);
    E(cudaErrorUnsupportedLimit); E(cudaErrorDeviceAlreadyInUse);
    E(cudaErrorPeerAccessUnsupported); E(cudaErrorInvalidPtx);
    E(cudaErrorInvalidGraphicsContext); E(cudaErrorNvlinkUncorrectable);
    E(cudaErrorJitCompilerNotFound); E(cudaErrorUnsupportedPtxVersion);
    E(cudaErrorJitCompilationDisabled); E(cudaErrorUnsupportedExecAffinity);
    E(cudaErrorUnsupportedDevSideSync); E(cudaErrorContained);
    E(cudaErrorInvalidSource); E(cudaErrorFileNotFound);
    E(cudaErrorSharedObjectSymbolNotFound); E(cudaErrorSharedObjectInitFailed);
    E(cudaErrorOperatingSystem); E(cudaErrorInvalidResourceHandle);
    E(cudaErrorIllegalState); E(cudaErrorLossyQuery);
    E(cudaErrorSymbolNotFound); E(cudaErrorNotReady);
    E(cudaErrorIllegalAddress); E(cudaErrorLaunchOutOfResources);
    E(cudaErrorLaunchTimeout); E(cudaErrorLaunchIncompatibleTexturing);
    E(cudaErrorPeerAccessAlreadyEnabled); E(cudaErrorPeerAccessNotEnabled);
    E(cudaErrorSetOnActiveProcess); E(cudaErrorContextIsDestroyed);
    E(cudaErrorAssert); E(cudaErrorTooManyPeers);
    E(cudaErrorHostMemoryAlreadyRegistered);
    E(cudaErrorHostMemoryNotRegistered); E(cudaErrorHardwareStackError);
    E(cudaErrorIllegalInstruction); E(cudaErrorMisalignedAddress);
    E(cudaErrorInvalidAddressSpace); E(cudaErrorInvalidPc);
    E(cudaErrorLaunchFailure); E(cudaErrorCooperativeLaunchTooLarge);
    E(cudaErrorTensorMemoryLeak); E(cudaErrorNotPermitted);
    E(cudaErrorNotSupported); E(cudaErrorSystemNotReady);
    E(cudaErrorSystemDriverMismatch); E(cudaErrorCompatNotSupportedOnDevice);
    E(cudaErrorMpsConnectionFailed); E(cudaErrorMpsRpcFailure);
    E(cudaErrorMpsServerNotReady); E(cudaErrorMpsMaxClientsReached);
    E(cudaErrorMpsMaxConnectionsReached); E(cudaErrorMpsClientTerminated);
    E(cudaErrorCdpNotSupported); E(cudaErrorCdpVersionMismatch);
    E(cudaErrorStreamCaptureUnsupported); E(cudaErrorStreamCaptureInvalidated);
    E(cudaErrorStreamCaptureMerge); E(cudaErrorStreamCaptureUnmatched);
    E(cudaErrorStreamCaptureUnjoined); E(cudaErrorStreamCaptureIsolation);
    E(cudaErrorStreamCaptureImplicit); E(cudaErrorCapturedEvent);
    E(cudaErrorStreamCaptureWrongThread); E(cudaErrorTimeout);
    E(cudaErrorGraphExecUpdateFailure); E(cudaErrorExternalDevice);
    E(cudaErrorInvalidClusterSize); E(cudaErrorFunctionNotLoaded);
    E(cudaErrorInvalidResourceType); E(cudaErrorInvalidResourceConfiguration);
    E(cudaErrorUnknown); E(cudaErrorApiFailureBase);
#undef E

    /* enum cudaMemoryType */
    TYPE(enum cudaMemoryType);
#define E(e) ENUMV(cudaMemoryType, e)
    E(cudaMemoryTypeUnregistered); E(cudaMemoryTypeHost);
    E(cudaMemoryTypeDevice); E(cudaMemoryTypeManaged);
#undef E

    /* enum cudaSharedMemConfig */
    TYPE(enum cudaSharedMemConfig);
#define E(e) ENUMV(cudaSharedMemConfig, e)
    E(cudaSharedMemBankSizeDefault); E(cudaSharedMemBankSizeFourByte);
    E(cudaSharedMemBankSizeEightByte);
#undef E

    /* enum cudaAtomicOperation, cudaAtomicOperationCapability */
    TYPE(enum cudaAtomicOperation);
#define E(e) ENUMV(cudaAtomicOperation, e)
    E(cudaAtomicOperationIntegerAdd); E(cudaAtomicOperationIntegerMin);
    E(cudaAtomicOperationIntegerMax); E(cudaAtomicOperationIntegerIncrement);
    E(cudaAtomicOperationIntegerDecrement); E(cudaAtomicOperationAnd);
    E(cudaAtomicOperationOr); E(cudaAtomicOperationXOR);
    E(cudaAtomicOperationExchange); E(cudaAtomicOperationCAS);
    E(cudaAtomicOperationFloatAdd); E(cudaAtomicOperationFloatMin);
    E(cudaAtomicOperationFloatMax);
#undef E
    TYPE(enum cudaAtomicOperationCapability);
#define E(e) ENUMV(cudaAtomicOperationCapability, e)
    E(cudaAtomicCapabilitySigned); E(cudaAtomicCapabilityUnsigned);
    E(cudaAtomicCapabilityReduction); E(cudaAtomicCapabilityScalar32);
    E(cudaAtomicCapabilityScalar64); E(cudaAtomicCapabilityScalar128);
    E(cudaAtomicCapabilityVector32x4);
#undef E

    /* enum cudaMemcpyKind */
    TYPE(enum cudaMemcpyKind);
#define E(e) ENUMV(cudaMemcpyKind, e)
    E(cudaMemcpyHostToHost); E(cudaMemcpyHostToDevice);
    E(cudaMemcpyDeviceToHost); E(cudaMemcpyDeviceToDevice);
    E(cudaMemcpyDefault);
#undef E

    /* enum cudaMemoryAdvise */
    TYPE(enum cudaMemoryAdvise);
#define E(e) ENUMV(cudaMemoryAdvise, e)
    E(cudaMemAdviseSetReadMostly); E(cudaMemAdviseUnsetReadMostly);
    E(cudaMemAdviseSetPreferredLocation);
    E(cudaMemAdviseUnsetPreferredLocation); E(cudaMemAdviseSetAccessedBy);
    E(cudaMemAdviseUnsetAccessedBy);
#undef E

    /* enum cudaMemRangeAttribute */
    TYPE(enum cudaMemRangeAttribute);
#define E(e) ENUMV(cudaMemRangeAttribute, e)
    E(cudaMemRangeAttributeReadMostly);
    E(cudaMemRangeAttributePreferredLocation);
    E(cudaMemRangeAttributeAccessedBy);
    E(cudaMemRangeAttributeLastPrefetchLocation);
    E(cudaMemRangeAttributePreferredLocationType);
    E(cudaMemRangeAttributePreferredLocationId);
    E(cudaMemRangeAttributeLastPrefetchLocationType);
    E(cudaMemRangeAttributeLastPrefetchLocationId);
#undef E

    /* enum cudaMemLocationType */
    TYPE(enum cudaMemLocationType);
#define E(e) ENUMV(cudaMemLocationType, e)
    E(cudaMemLocationTypeInvalid); E(cudaMemLocationTypeNone);
    E(cudaMemLocationTypeDevice); E(cudaMemLocationTypeHost);
    E(cudaMemLocationTypeHostNuma); E(cudaMemLocationTypeHostNumaCurrent);
#undef E

    /* enum cudaMemAccessFlags */
    TYPE(enum cudaMemAccessFlags);
#define E(e) ENUMV(cudaMemAccessFlags, e)
    E(cudaMemAccessFlagsProtNone); E(cudaMemAccessFlagsProtRead);
    E(cudaMemAccessFlagsProtReadWrite);
#undef E

    /* enum cudaMemAllocationType */
    TYPE(enum cudaMemAllocationType);
#define E(e) ENUMV(cudaMemAllocationType, e)
    E(cudaMemAllocationTypeInvalid); E(cudaMemAllocationTypePinned);
    E(cudaMemAllocationTypeManaged); E(cudaMemAllocationTypeMax);
#undef E

    /* enum cudaMemAllocationHandleType */
    TYPE(enum cudaMemAllocationHandleType);
#define E(e) ENUMV(cudaMemAllocationHandleType, e)
    E(cudaMemHandleTypeNone); E(cudaMemHandleTypePosixFileDescriptor);
    E(cudaMemHandleTypeWin32); E(cudaMemHandleTypeWin32Kmt);
    E(cudaMemHandleTypeFabric);
#undef E

    /* enum cudaMemPoolAttr */
    TYPE(enum cudaMemPoolAttr);
#define E(e) ENUMV(cudaMemPoolAttr, e)
    E(cudaMemPoolReuseFollowEventDependencies);
    E(cudaMemPoolReuseAllowOpportunistic);
    E(cudaMemPoolReuseAllowInternalDependencies);
    E(cudaMemPoolAttrReleaseThreshold); E(cudaMemPoolAttrReservedMemCurrent);
    E(cudaMemPoolAttrReservedMemHigh); E(cudaMemPoolAttrUsedMemCurrent);
    E(cudaMemPoolAttrUsedMemHigh);
#undef E

    /* enum cudaFuncAttribute */
    TYPE(enum cudaFuncAttribute);
#define E(e) ENUMV(cudaFuncAttribute, e)
    E(cudaFuncAttributeMaxDynamicSharedMemorySize);
    E(cudaFuncAttributePreferredSharedMemoryCarveout);
    E(cudaFuncAttributeClusterDimMustBeSet);
    E(cudaFuncAttributeRequiredClusterWidth);
    E(cudaFuncAttributeRequiredClusterHeight);
    E(cudaFuncAttributeRequiredClusterDepth);
    E(cudaFuncAttributeNonPortableClusterSizeAllowed);
    E(cudaFuncAttributeClusterSchedulingPolicyPreference);
    E(cudaFuncAttributeMax);
#undef E

    /* enum cudaFuncCache */
    TYPE(enum cudaFuncCache);
#define E(e) ENUMV(cudaFuncCache, e)
    E(cudaFuncCachePreferNone); E(cudaFuncCachePreferShared);
    E(cudaFuncCachePreferL1); E(cudaFuncCachePreferEqual);
#undef E

    /* enum cudaLimit */
    TYPE(enum cudaLimit);
#define E(e) ENUMV(cudaLimit, e)
    E(cudaLimitStackSize); E(cudaLimitPrintfFifoSize);
    E(cudaLimitMallocHeapSize); E(cudaLimitDevRuntimeSyncDepth);
    E(cudaLimitDevRuntimePendingLaunchCount); E(cudaLimitMaxL2FetchGranularity);
    E(cudaLimitPersistingL2CacheSize);
#undef E

    /* enum cudaStreamCaptureStatus */
    TYPE(enum cudaStreamCaptureStatus);
#define E(e) ENUMV(cudaStreamCaptureStatus, e)
    E(cudaStreamCaptureStatusNone); E(cudaStreamCaptureStatusActive);
    E(cudaStreamCaptureStatusInvalidated);
#undef E

    /* enum cudaStreamCaptureMode */
    TYPE(enum cudaStreamCaptureMode);
#define E(e) ENUMV(cudaStreamCaptureMode, e)
    E(cudaStreamCaptureModeGlobal); E(cudaStreamCaptureModeThreadLocal);
    E(cudaStreamCaptureModeRelaxed);
#undef E

    /* enum cudaComputeMode */
    TYPE(enum cudaComputeMode);
#define E(e) ENUMV(cudaComputeMode, e)
    E(cudaComputeModeDefault); E(cudaComputeModeExclusive);
    E(cudaComputeModeProhibited); E(cudaComputeModeExclusiveProcess);
#undef E

    /* enum cudaFlushGPUDirectRDMAWritesOptions */
    TYPE(enum cudaFlushGPUDirectRDMAWritesOptions);
#define E(e) ENUMV(cudaFlushGPUDirectRDMAWritesOptions, e)
    E(cudaFlushGPUDirectRDMAWritesOptionHost);
    E(cudaFlushGPUDirectRDMAWritesOptionMemOps);
#undef E

    /* enum cudaGPUDirectRDMAWritesOrdering */
    TYPE(enum cudaGPUDirectRDMAWritesOrdering);
#define E(e) ENUMV(cudaGPUDirectRDMAWritesOrdering, e)
    E(cudaGPUDirectRDMAWritesOrderingNone);
    E(cudaGPUDirectRDMAWritesOrderingOwner);
    E(cudaGPUDirectRDMAWritesOrderingAllDevices);
#undef E

    /* enum cudaDeviceAttr */
    TYPE(enum cudaDeviceAttr);
#define E(e) ENUMV(cudaDeviceAttr, e)
    E(cudaDevAttrMaxThreadsPerBlock); E(cudaDevAttrMaxBlockDimX);
    E(cudaDevAttrMaxBlockDimY); E(cudaDevAttrMaxBlockDimZ);
    E(cudaDevAttrMaxGridDimX); E(cudaDevAttrMaxGridDimY);
    E(cudaDevAttrMaxGridDimZ); E(cudaDevAttrMaxSharedMemoryPerBlock);
    E(cudaDevAttrTotalConstantMemory); E(cudaDevAttrWarpSize);
    E(cudaDevAttrMaxPitch); E(cudaDevAttrMaxRegistersPerBlock);
    E(cudaDevAttrClockRate); E(cudaDevAttrTextureAlignment);
    E(cudaDevAttrGpuOverlap); E(cudaDevAttrMultiProcessorCount);
    E(cudaDevAttrKernelExecTimeout); E(cudaDevAttrIntegrated);
    E(cudaDevAttrCanMapHostMemory); E(cudaDevAttrComputeMode);
    E(cudaDevAttrMaxTexture1DWidth); E(cudaDevAttrMaxTexture2DWidth);
    E(cudaDevAttrMaxTexture2DHeight); E(cudaDevAttrMaxTexture3DWidth);
    E(cudaDevAttrMaxTexture3DHeight); E(cudaDevAttrMaxTexture3DDepth);
    E(cudaDevAttrMaxTexture2DLayeredWidth);
    E(cudaDevAttrMaxTexture2DLayeredHeight);
    E(cudaDevAttrMaxTexture2DLayeredLayers); E(cudaDevAttrSurfaceAlignment);
    E(cudaDevAttrConcurrentKernels); E(cudaDevAttrEccEnabled);
    E(cudaDevAttrPciBusId); E(cudaDevAttrPciDeviceId); E(cudaDevAttrTccDriver);
    E(cudaDevAttrMemoryClockRate); E(cudaDevAttrGlobalMemoryBusWidth);
    E(cudaDevAttrL2CacheSize); E(cudaDevAttrMaxThreadsPerMultiProcessor);
    E(cudaDevAttrAsyncEngineCount); E(cudaDevAttrUnifiedAddressing);
    E(cudaDevAttrMaxTexture1DLayeredWidth);
    E(cudaDevAttrMaxTexture1DLayeredLayers);
    E(cudaDevAttrMaxTexture2DGatherWidth);
    E(cudaDevAttrMaxTexture2DGatherHeight); E(cudaDevAttrMaxTexture3DWidthAlt);
    E(cudaDevAttrMaxTexture3DHeightAlt); E(cudaDevAttrMaxTexture3DDepthAlt);
    E(cudaDevAttrPciDomainId); E(cudaDevAttrTexturePitchAlignment);
    E(cudaDevAttrMaxTextureCubemapWidth);
    E(cudaDevAttrMaxTextureCubemapLayeredWidth);
    E(cudaDevAttrMaxTextureCubemapLayeredLayers);
    E(cudaDevAttrMaxSurface1DWidth); E(cudaDevAttrMaxSurface2DWidth);
    E(cudaDevAttrMaxSurface2DHeight); E(cudaDevAttrMaxSurface3DWidth);
    E(cudaDevAttrMaxSurface3DHeight); E(cudaDevAttrMaxSurface3DDepth);
    E(cudaDevAttrMaxSurface1DLayeredWidth);
    E(cudaDevAttrMaxSurface1DLayeredLayers);
    E(cudaDevAttrMaxSurface2DLayeredWidth);
    E(cudaDevAttrMaxSurface2DLayeredHeight);
    E(cudaDevAttrMaxSurface2DLayeredLayers);
    E(cudaDevAttrMaxSurfaceCubemapWidth);
    E(cudaDevAttrMaxSurfaceCubemapLayeredWidth);
    E(cudaDevAttrMaxSurfaceCubemapLayeredLayers);
    E(cudaDevAttrMaxTexture1DLinearWidth);
    E(cudaDevAttrMaxTexture2DLinearWidth);
    E(cudaDevAttrMaxTexture2DLinearHeight);
    E(cudaDevAttrMaxTexture2DLinearPitch);
    E(cudaDevAttrMaxTexture2DMipmappedWidth);
    E(cudaDevAttrMaxTexture2DMipmappedHeight);
    E(cudaDevAttrComputeCapabilityMajor); E(cudaDevAttrComputeCapabilityMinor);
    E(cudaDevAttrMaxTexture1DMipmappedWidth);
    E(cudaDevAttrStreamPrioritiesSupported);
    E(cudaDevAttrGlobalL1CacheSupported); E(cudaDevAttrLocalL1CacheSupported);
    E(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    E(cudaDevAttrMaxRegistersPerMultiprocessor); E(cudaDevAttrManagedMemory);
    E(cudaDevAttrIsMultiGpuBoard); E(cudaDevAttrMultiGpuBoardGroupID);
    E(cudaDevAttrHostNativeAtomicSupported);
    E(cudaDevAttrSingleToDoublePrecisionPerfRatio);
    E(cudaDevAttrPageableMemoryAccess); E(cudaDevAttrConcurrentManagedAccess);
    E(cudaDevAttrComputePreemptionSupported);
    E(cudaDevAttrCanUseHostPointerForRegisteredMem); E(cudaDevAttrReserved92);
    E(cudaDevAttrReserved93); E(cudaDevAttrReserved94);
    E(cudaDevAttrCooperativeLaunch); E(cudaDevAttrReserved96);
    E(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    E(cudaDevAttrCanFlushRemoteWrites); E(cudaDevAttrHostRegisterSupported);
    E(cudaDevAttrPageableMemoryAccessUsesHostPageTables);
    E(cudaDevAttrDirectManagedMemAccessFromHost);
    E(cudaDevAttrMaxBlocksPerMultiprocessor);
    E(cudaDevAttrMaxPersistingL2CacheSize);
    E(cudaDevAttrMaxAccessPolicyWindowSize);
    E(cudaDevAttrReservedSharedMemoryPerBlock);
    E(cudaDevAttrSparseCudaArraySupported);
    E(cudaDevAttrHostRegisterReadOnlySupported);
    E(cudaDevAttrTimelineSemaphoreInteropSupported);
    E(cudaDevAttrMemoryPoolsSupported); E(cudaDevAttrGPUDirectRDMASupported);
    E(cudaDevAttrGPUDirectRDMAFlushWritesOptions);
    E(cudaDevAttrGPUDirectRDMAWritesOrdering);
    E(cudaDevAttrMemoryPoolSupportedHandleTypes); E(cudaDevAttrClusterLaunch);
    E(cudaDevAttrDeferredMappingCudaArraySupported); E(cudaDevAttrReserved122);
    E(cudaDevAttrReserved123); E(cudaDevAttrReserved124);
    E(cudaDevAttrIpcEventSupport); E(cudaDevAttrMemSyncDomainCount);
    E(cudaDevAttrReserved127); E(cudaDevAttrReserved128);
    E(cudaDevAttrReserved129); E(cudaDevAttrNumaConfig); E(cudaDevAttrNumaId);
    E(cudaDevAttrReserved132); E(cudaDevAttrMpsEnabled);
    E(cudaDevAttrHostNumaId); E(cudaDevAttrD3D12CigSupported);
    E(cudaDevAttrVulkanCigSupported); E(cudaDevAttrGpuPciDeviceId);
    E(cudaDevAttrGpuPciSubsystemId); E(cudaDevAttrReserved141);
    E(cudaDevAttrHostNumaMemoryPoolsSupported);
    E(cudaDevAttrHostNumaMultinodeIpcSupported);
    E(cudaDevAttrHostMemoryPoolsSupported); E(cudaDevAttrReserved145);
    E(cudaDevAttrOnlyPartialHostNativeAtomicSupported); E(cudaDevAttrMax);
#undef E

    /* enum cudaDeviceP2PAttr */
    TYPE(enum cudaDeviceP2PAttr);
#define E(e) ENUMV(cudaDeviceP2PAttr, e)
    E(cudaDevP2PAttrPerformanceRank); E(cudaDevP2PAttrAccessSupported);
    E(cudaDevP2PAttrNativeAtomicSupported);
    E(cudaDevP2PAttrCudaArrayAccessSupported);
    E(cudaDevP2PAttrOnlyPartialNativeAtomicSupported);
#undef E

    /* enum cudaGetDriverEntryPointFlags */
    TYPE(enum cudaGetDriverEntryPointFlags);
#define E(e) ENUMV(cudaGetDriverEntryPointFlags, e)
    E(cudaEnableDefault); E(cudaEnableLegacyStream);
    E(cudaEnablePerThreadDefaultStream);
#undef E

    /* enum cudaDriverEntryPointQueryResult */
    TYPE(enum cudaDriverEntryPointQueryResult);
#define E(e) ENUMV(cudaDriverEntryPointQueryResult, e)
    E(cudaDriverEntryPointSuccess); E(cudaDriverEntryPointSymbolNotFound);
    E(cudaDriverEntryPointVersionNotSufficent);
#undef E
}

/* Flag values and other macros with a value. */
static void check_macros(void)
{
    MACRO(CUDART_VERSION);
    MACRO(CUDA_IPC_HANDLE_SIZE);

    MACRO(cudaHostAllocDefault);
    MACRO(cudaHostAllocPortable);
    MACRO(cudaHostAllocMapped);
    MACRO(cudaHostAllocWriteCombined);
    MACRO(cudaHostRegisterDefault);
    MACRO(cudaHostRegisterPortable);
    MACRO(cudaHostRegisterMapped);
    MACRO(cudaHostRegisterIoMemory);
    MACRO(cudaHostRegisterReadOnly);
    MACRO(cudaPeerAccessDefault);

    MACRO(cudaStreamDefault);
    MACRO(cudaStreamNonBlocking);
    MACRO_PTR(cudaStreamLegacy);
    MACRO_PTR(cudaStreamPerThread);
    MACRO(cudaStreamAttributeAccessPolicyWindow);
    MACRO(cudaStreamAttributeSynchronizationPolicy);
    MACRO(cudaStreamAttributeMemSyncDomainMap);
    MACRO(cudaStreamAttributeMemSyncDomain);
    MACRO(cudaStreamAttributePriority);
    printf("macro cudaStreamAttrID type size %zu\n", sizeof(cudaStreamAttrID));
    printf("macro cudaStreamAttrValue type size %zu\n",
           sizeof(cudaStreamAttrValue));

    MACRO(cudaEventDefault);
    MACRO(cudaEventBlockingSync);
    MACRO(cudaEventDisableTiming);
    MACRO(cudaEventInterprocess);
    MACRO(cudaEventRecordDefault);
    MACRO(cudaEventRecordExternal);
    MACRO(cudaEventWaitDefault);
    MACRO(cudaEventWaitExternal);

    MACRO(cudaDeviceScheduleAuto);
    MACRO(cudaDeviceScheduleSpin);
    MACRO(cudaDeviceScheduleYield);
    MACRO(cudaDeviceScheduleBlockingSync);
    MACRO(cudaDeviceBlockingSync);
    MACRO(cudaDeviceScheduleMask);
    MACRO(cudaDeviceMapHost);
    MACRO(cudaDeviceLmemResizeToMax);
    MACRO(cudaDeviceSyncMemops);
    MACRO(cudaDeviceMask);

    MACRO(cudaIpcMemLazyEnablePeerAccess);
    MACRO(cudaMemAttachGlobal);
    MACRO(cudaMemAttachHost);
    MACRO(cudaMemAttachSingle);
    MACRO(cudaOccupancyDefault);
    MACRO(cudaOccupancyDisableCachingOverride);
    MACRO(cudaCpuDeviceId);
    MACRO(cudaInvalidDeviceId);
    MACRO(cudaInitDeviceFlagsAreValid);
    MACRO(cudaMemPoolCreateUsageHwDecompress);

    /* Macros that only need to exist: calling conventions, the UUID guard
     * shared with cuda.h, and the include-guard names programs test. */
#if defined(CUDARTAPI)
    abi_defined("CUDARTAPI", 1);
#else
    abi_defined("CUDARTAPI", 0);
#endif
#if defined(CUDARTAPI_CDECL)
    abi_defined("CUDARTAPI_CDECL", 1);
#else
    abi_defined("CUDARTAPI_CDECL", 0);
#endif
#if defined(CUDART_CB)
    abi_defined("CUDART_CB", 1);
#else
    abi_defined("CUDART_CB", 0);
#endif
#if defined(CU_UUID_HAS_BEEN_DEFINED)
    abi_defined("CU_UUID_HAS_BEEN_DEFINED", 1);
#else
    abi_defined("CU_UUID_HAS_BEEN_DEFINED", 0);
#endif
#if defined(__DRIVER_TYPES_H__)
    abi_defined("__DRIVER_TYPES_H__", 1);
#else
    abi_defined("__DRIVER_TYPES_H__", 0);
#endif
#if defined(__VECTOR_TYPES_H__)
    abi_defined("__VECTOR_TYPES_H__", 1);
#else
    abi_defined("__VECTOR_TYPES_H__", 0);
#endif
#if defined(__HOST_DEFINES_H__)
    abi_defined("__HOST_DEFINES_H__", 1);
#else
    abi_defined("__HOST_DEFINES_H__", 0);
#endif
#if defined(__CUDA_PROFILER_API_H__)
    abi_defined("__CUDA_PROFILER_API_H__", 1);
#else
    abi_defined("__CUDA_PROFILER_API_H__", 0);
#endif
#if defined(__CUDA_RUNTIME_API_H__)
    abi_defined("__CUDA_RUNTIME_API_H__", 1);
#else
    abi_defined("__CUDA_RUNTIME_API_H__", 0);
#endif
#if defined(__CUDA_RUNTIME_H__)
    abi_defined("__CUDA_RUNTIME_H__", 1);
#else
    abi_defined("__CUDA_RUNTIME_H__", 0);
#endif
#if defined(__CUDART_API_PER_THREAD_DEFAULT_STREAM)
    abi_defined("__CUDART_API_PER_THREAD_DEFAULT_STREAM", 1);
#else
    abi_defined("__CUDART_API_PER_THREAD_DEFAULT_STREAM", 0);
#endif
}

/* Structs and typedefs: size, alignment, and every member. */
static void check_structs(void)
{
    TYPE(cudaError_t);
    TYPE(cudaStream_t);
    TYPE(cudaEvent_t);
    TYPE(cudaFunction_t);
    TYPE(cudaKernel_t);
    TYPE(cudaMemPool_t);
    TYPE(cudaHostFn_t);
    TYPE(cudaStreamCallback_t);

    TYPE(struct cudaMemLocation);
    FIELD(struct cudaMemLocation, type);
    FIELD(struct cudaMemLocation, id);

    TYPE(struct cudaMemAccessDesc);
    FIELD(struct cudaMemAccessDesc, location);
    FIELD(struct cudaMemAccessDesc, flags);

    TYPE(struct cudaMemPoolProps);
    FIELD(struct cudaMemPoolProps, allocType);
    FIELD(struct cudaMemPoolProps, handleTypes);
    FIELD(struct cudaMemPoolProps, location);
    FIELD(struct cudaMemPoolProps, win32SecurityAttributes);
    FIELD(struct cudaMemPoolProps, maxSize);
    FIELD(struct cudaMemPoolProps, usage);
    FIELD(struct cudaMemPoolProps, reserved);

    TYPE(struct cudaMemPoolPtrExportData);
    FIELD(struct cudaMemPoolPtrExportData, reserved);

    TYPE(struct cudaPointerAttributes);
    FIELD(struct cudaPointerAttributes, type);
    FIELD(struct cudaPointerAttributes, device);
    FIELD(struct cudaPointerAttributes, devicePointer);
    FIELD(struct cudaPointerAttributes, hostPointer);
    FIELD(struct cudaPointerAttributes, reserved);

    TYPE(struct cudaFuncAttributes);
#define F(m) FIELD(struct cudaFuncAttributes, m)
    F(sharedSizeBytes); F(constSizeBytes); F(localSizeBytes);
    F(maxThreadsPerBlock); F(numRegs); F(ptxVersion); F(binaryVersion);
    F(cacheModeCA); F(maxDynamicSharedSizeBytes); F(preferredShmemCarveout);
    F(clusterDimMustBeSet); F(requiredClusterWidth); F(requiredClusterHeight);
    F(requiredClusterDepth); F(clusterSchedulingPolicyPreference);
    F(nonPortableClusterSizeAllowed); F(reserved);
#undef F

    TYPE(struct CUuuid_st);
    FIELD(struct CUuuid_st, bytes);
    TYPE(CUuuid);
    TYPE(cudaUUID_t);

    TYPE(struct cudaDeviceProp);
#define F(m) FIELD(struct cudaDeviceProp, m)
    F(name); F(uuid); F(luid); F(luidDeviceNodeMask); F(totalGlobalMem);
    F(sharedMemPerBlock); F(regsPerBlock); F(warpSize); F(memPitch);
    F(maxThreadsPerBlock); F(maxThreadsDim); F(maxGridSize); F(totalConstMem);
    F(major); F(minor); F(textureAlignment); F(texturePitchAlignment);
    F(multiProcessorCount); F(integrated); F(canMapHostMemory);
    F(maxTexture1D); F(maxTexture1DMipmap); F(maxTexture2D);
    F(maxTexture2DMipmap); F(maxTexture2DLinear); F(maxTexture2DGather);
    F(maxTexture3D); F(maxTexture3DAlt); F(maxTextureCubemap);
    F(maxTexture1DLayered); F(maxTexture2DLayered);
    F(maxTextureCubemapLayered); F(maxSurface1D); F(maxSurface2D);
    F(maxSurface3D); F(maxSurface1DLayered); F(maxSurface2DLayered);
    F(maxSurfaceCubemap); F(maxSurfaceCubemapLayered); F(surfaceAlignment);
    F(concurrentKernels); F(ECCEnabled); F(pciBusID); F(pciDeviceID);
    F(pciDomainID); F(tccDriver); F(asyncEngineCount); F(unifiedAddressing);
    F(memoryBusWidth); F(l2CacheSize); F(persistingL2CacheMaxSize);
    F(maxThreadsPerMultiProcessor); F(streamPrioritiesSupported);
    F(globalL1CacheSupported); F(localL1CacheSupported);
    F(sharedMemPerMultiprocessor); F(regsPerMultiprocessor);
    F(managedMemory); F(isMultiGpuBoard); F(multiGpuBoardGroupID);
    F(hostNativeAtomicSupported); F(pageableMemoryAccess);
    F(concurrentManagedAccess); F(computePreemptionSupported);
    F(canUseHostPointerForRegisteredMem); F(cooperativeLaunch);
    F(sharedMemPerBlockOptin); F(pageableMemoryAccessUsesHostPageTables);
    F(directManagedMemAccessFromHost); F(maxBlocksPerMultiProcessor);
    F(accessPolicyMaxWindowSize); F(reservedSharedMemPerBlock);
    F(hostRegisterSupported); F(sparseCudaArraySupported);
    F(hostRegisterReadOnlySupported); F(timelineSemaphoreInteropSupported);
    F(memoryPoolsSupported); F(gpuDirectRDMASupported);
    F(gpuDirectRDMAFlushWritesOptions); F(gpuDirectRDMAWritesOrdering);
    F(memoryPoolSupportedHandleTypes); F(deferredMappingCudaArraySupported);
    F(ipcEventSupported); F(clusterLaunch); F(unifiedFunctionPointers);
    F(deviceNumaConfig); F(deviceNumaId); F(mpsEnabled); F(hostNumaId);
    F(gpuPciDeviceID); F(gpuPciSubsystemID); F(hostNumaMultinodeIpcSupported);
    F(reserved);
#undef F

    TYPE(struct cudaIpcEventHandle_st);
    FIELD(struct cudaIpcEventHandle_st, reserved);
    TYPE(cudaIpcEventHandle_t);
    TYPE(struct cudaIpcMemHandle_st);
    FIELD(struct cudaIpcMemHandle_st, reserved);
    TYPE(cudaIpcMemHandle_t);
}

/* The vector types and dim3: both the struct and its typedef. */
#define V1(t) TYPE(struct t); TYPE(t); FIELD(struct t, x)
#define V2(t) V1(t); FIELD(struct t, y)
#define V3(t) V2(t); FIELD(struct t, z)
#define V4(t) V3(t); FIELD(struct t, w)

static void check_vectors(void)
{
    V1(char1); V1(uchar1); V2(char2); V2(uchar2);
    V3(char3); V3(uchar3); V4(char4); V4(uchar4);
    V1(short1); V1(ushort1); V2(short2); V2(ushort2);
    V3(short3); V3(ushort3); V4(short4); V4(ushort4);
    V1(int1); V1(uint1); V2(int2); V2(uint2);
    V3(int3); V3(uint3); V4(int4); V4(uint4);
    V1(long1); V1(ulong1); V2(long2); V2(ulong2);
    V3(long3); V3(ulong3); V4(long4); V4(ulong4);
    V4(long4_16a); V4(ulong4_16a); V4(long4_32a); V4(ulong4_32a);
    V1(float1); V2(float2); V3(float3); V4(float4);
    V1(longlong1); V1(ulonglong1); V2(longlong2); V2(ulonglong2);
    V3(longlong3); V3(ulonglong3); V4(longlong4); V4(ulonglong4);
    V4(longlong4_16a); V4(ulonglong4_16a);
    V4(longlong4_32a); V4(ulonglong4_32a);
    V1(double1); V2(double2); V3(double3); V4(double4);
    V4(double4_16a); V4(double4_32a);
    V3(dim3);
}

/* Every function of cuda_runtime_api.h and cuda_profiler_api.h. */
static void check_functions(void)
{
#define F(f) FUNC(f)
    F(cudaGetDeviceCount); F(cudaSetDevice); F(cudaGetDevice);
    F(cudaInitDevice); F(cudaSetValidDevices); F(cudaChooseDevice);
    F(cudaSetDeviceFlags); F(cudaGetDeviceFlags); F(cudaGetDeviceProperties);
    F(cudaDeviceGetAttribute); F(cudaDeviceGetPCIBusId);
    F(cudaDeviceGetByPCIBusId); F(cudaDeviceSynchronize); F(cudaDeviceReset);
    F(cudaDeviceSetLimit); F(cudaDeviceGetLimit);
    F(cudaDeviceGetStreamPriorityRange); F(cudaMemGetInfo);
    F(cudaDriverGetVersion); F(cudaRuntimeGetVersion);
    F(cudaDeviceCanAccessPeer); F(cudaDeviceEnablePeerAccess);
    F(cudaDeviceDisablePeerAccess); F(cudaDeviceGetP2PAttribute);
    F(cudaGetLastError); F(cudaPeekAtLastError); F(cudaGetErrorName);
    F(cudaGetErrorString); F(cudaStreamCreate); F(cudaStreamCreateWithFlags);
    F(cudaStreamCreateWithPriority); F(cudaStreamGetPriority);
    F(cudaStreamGetFlags); F(cudaStreamGetId); F(cudaStreamGetDevice);
    F(cudaStreamDestroy); F(cudaStreamWaitEvent); F(cudaStreamAddCallback);
    F(cudaStreamSynchronize); F(cudaStreamQuery); F(cudaStreamAttachMemAsync);
    F(cudaThreadExchangeStreamCaptureMode); F(cudaStreamIsCapturing);
    F(cudaEventCreate); F(cudaEventCreateWithFlags); F(cudaEventRecord);
    F(cudaEventRecordWithFlags); F(cudaEventQuery); F(cudaEventSynchronize);
    F(cudaEventDestroy); F(cudaEventElapsedTime); F(cudaLaunchKernel);
    F(cudaLaunchCooperativeKernel); F(cudaLaunchHostFunc);
    F(cudaFuncGetAttributes); F(cudaFuncSetAttribute);
    F(cudaOccupancyMaxActiveBlocksPerMultiprocessor);
    F(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags);
    F(cudaOccupancyAvailableDynamicSMemPerBlock); F(cudaMalloc); F(cudaFree);
    F(cudaMallocHost); F(cudaHostAlloc); F(cudaFreeHost); F(cudaHostRegister);
    F(cudaHostUnregister); F(cudaHostGetDevicePointer); F(cudaHostGetFlags);
    F(cudaMallocManaged); F(cudaMemPrefetchAsync); F(cudaMemAdvise);
    F(cudaPointerGetAttributes); F(cudaMemcpy); F(cudaMemcpyAsync);
    F(cudaMemcpyPeer); F(cudaMemcpyPeerAsync); F(cudaMemset);
    F(cudaMemsetAsync); F(cudaMallocAsync); F(cudaMallocFromPoolAsync);
    F(cudaFreeAsync); F(cudaDeviceGetDefaultMemPool); F(cudaDeviceSetMemPool);
    F(cudaDeviceGetMemPool); F(cudaMemPoolCreate); F(cudaMemPoolDestroy);
    F(cudaMemPoolTrimTo); F(cudaMemPoolSetAttribute);
    F(cudaMemPoolGetAttribute); F(cudaMemPoolSetAccess);
    F(cudaMemPoolGetAccess); F(cudaMemPoolExportToShareableHandle);
    F(cudaMemPoolImportFromShareableHandle); F(cudaMemPoolExportPointer);
    F(cudaMemPoolImportPointer); F(cudaIpcGetEventHandle);
    F(cudaIpcOpenEventHandle); F(cudaIpcGetMemHandle); F(cudaIpcOpenMemHandle);
    F(cudaIpcCloseMemHandle); F(cudaGetDriverEntryPoint);
    F(cudaGetDriverEntryPointByVersion);
    F(cudaDeviceSetCacheConfig); F(cudaDeviceGetCacheConfig);
    F(cudaDeviceGetSharedMemConfig); F(cudaDeviceSetSharedMemConfig);
    F(cudaFuncSetCacheConfig); F(cudaFuncSetSharedMemConfig);
    F(cudaCtxResetPersistingL2Cache); F(cudaFuncGetName);
    F(cudaGetFuncBySymbol);
    F(cudaDeviceGetP2PAtomicCapabilities);
    F(cudaDeviceGetHostAtomicCapabilities); F(cudaMemRangeGetAttribute);
    F(cudaMemRangeGetAttributes); F(cudaMemGetDefaultMemPool);
    F(cudaMemGetMemPool); F(cudaMemSetMemPool);
    F(cudaStreamSetAttribute); F(cudaStreamGetAttribute);
    F(cudaStreamCopyAttributes);
    /* cuda_profiler_api.h */
    F(cudaProfilerStart); F(cudaProfilerStop);
#undef F
}

#if defined(ABI_INTERNAL)
/* The runtime-internal interface (p2psim_cudart_internal.h). */
static void check_internal(void)
{
    TYPE(abi_fatbin_wrapper);
    FIELD(abi_fatbin_wrapper, magic);
    FIELD(abi_fatbin_wrapper, version);
    FIELD(abi_fatbin_wrapper, data);
    FIELD(abi_fatbin_wrapper, filename_or_fatbins);
    printf("fatbin magic %#x version %d linked %d\n",
           (unsigned)ABI_FATBIN_MAGIC, ABI_FATBIN_VERSION,
           ABI_FATBIN_VERSION_LINKED);
#if !defined(ABI_TOOLKIT)
    /* Referenced for the signature comparison only (the toolkit declares
     * these for nvcc output or under CUDA_API_PER_THREAD_DEFAULT_STREAM);
     * not printed, so both builds print the same text. */
#define F(f) abi_sink = (abi_fn)(f)
    F(__cudaRegisterFatBinary); F(__cudaRegisterFatBinaryEnd);
    F(__cudaUnregisterFatBinary); F(__cudaRegisterFunction);
    F(__cudaRegisterVar); F(__cudaRegisterManagedVar); F(__cudaInitModule);
    F(__cudaPushCallConfiguration); F(__cudaPopCallConfiguration);
    F(__cudaGetKernel); F(__cudaLaunchKernel); F(__cudaLaunchKernel_ptsz);
    F(cudaMemcpy_ptds); F(cudaMemset_ptds); F(cudaMemcpyAsync_ptsz);
    F(cudaMemsetAsync_ptsz); F(cudaStreamQuery_ptsz);
    F(cudaStreamGetDevice_ptsz); F(cudaStreamGetFlags_ptsz);
    F(cudaStreamGetId_ptsz); F(cudaStreamGetPriority_ptsz);
    F(cudaStreamSetAttribute_ptsz); F(cudaStreamGetAttribute_ptsz);
    F(cudaStreamCopyAttributes_ptsz);
    F(cudaEventRecord_ptsz); F(cudaEventRecordWithFlags_ptsz);
    F(cudaStreamWaitEvent_ptsz); F(cudaStreamAddCallback_ptsz);
    F(cudaStreamAttachMemAsync_ptsz); F(cudaStreamSynchronize_ptsz);
    F(cudaStreamIsCapturing_ptsz); F(cudaLaunchKernel_ptsz);
    F(cudaLaunchCooperativeKernel_ptsz); F(cudaLaunchHostFunc_ptsz);
    F(cudaMemPrefetchAsync_ptsz); F(cudaMallocAsync_ptsz);
    F(cudaFreeAsync_ptsz); F(cudaMallocFromPoolAsync_ptsz);
    F(cudaGetDriverEntryPoint_ptsz); F(cudaGetDriverEntryPointByVersion_ptsz);
#undef F
#endif
}
#endif

/* The parts of cuda_runtime_api.h kept in headers of their own. */
#include "abi_rt_graph.inc"
#include "abi_rt_memcpy.inc"
#include "abi_rt_texture.inc"

int main(void)
{
    check_rt_graph();
    check_rt_memcpy();
    check_rt_texture();
    check_enums();
    check_macros();
    check_structs();
    check_vectors();
    check_functions();
#if defined(ABI_INTERNAL)
    check_internal();
#endif
    return 0;
}
