/*
 * cuda/include/p2psim_rt_memcpy.h - the CUDA 13.0 runtime's copies beyond
 * one dimension (2D and 3D copies and sets, pitched allocations), symbols
 * (cudaMemcpyToSymbol ...) and channel descriptors, as served by p2psim
 * (part of cuda_runtime_api.h, which includes it; not to be included
 * alone). Types and enum values are CUDA's; tools/gen-dispatch.sh reads
 * the declarations here as it reads cuda_runtime_api.h's.
 */
#ifndef P2PSIM_CUDA_INCLUDE_P2PSIM_RT_MEMCPY_H
#define P2PSIM_CUDA_INCLUDE_P2PSIM_RT_MEMCPY_H

#ifndef P2PSIM_CUDA_INCLUDE_CUDA_RUNTIME_API_H
#error "p2psim_rt_memcpy.h is part of cuda_runtime_api.h: include that instead"
#endif

/* The format of one element of a CUDA array or texture: bits per channel
 * and how they are read. */
enum __device_builtin__ cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3,
    cudaChannelFormatKindNV12 = 4,
    cudaChannelFormatKindUnsignedNormalized8X1 = 5,
    cudaChannelFormatKindUnsignedNormalized8X2 = 6,
    cudaChannelFormatKindUnsignedNormalized8X4 = 7,
    cudaChannelFormatKindUnsignedNormalized16X1 = 8,
    cudaChannelFormatKindUnsignedNormalized16X2 = 9,
    cudaChannelFormatKindUnsignedNormalized16X4 = 10,
    cudaChannelFormatKindSignedNormalized8X1 = 11,
    cudaChannelFormatKindSignedNormalized8X2 = 12,
    cudaChannelFormatKindSignedNormalized8X4 = 13,
    cudaChannelFormatKindSignedNormalized16X1 = 14,
    cudaChannelFormatKindSignedNormalized16X2 = 15,
    cudaChannelFormatKindSignedNormalized16X4 = 16,
    cudaChannelFormatKindUnsignedBlockCompressed1 = 17,
    cudaChannelFormatKindUnsignedBlockCompressed1SRGB = 18,
    cudaChannelFormatKindUnsignedBlockCompressed2 = 19,
    cudaChannelFormatKindUnsignedBlockCompressed2SRGB = 20,
    cudaChannelFormatKindUnsignedBlockCompressed3 = 21,
    cudaChannelFormatKindUnsignedBlockCompressed3SRGB = 22,
    cudaChannelFormatKindUnsignedBlockCompressed4 = 23,
    cudaChannelFormatKindSignedBlockCompressed4 = 24,
    cudaChannelFormatKindUnsignedBlockCompressed5 = 25,
    cudaChannelFormatKindSignedBlockCompressed5 = 26,
    cudaChannelFormatKindUnsignedBlockCompressed6H = 27,
    cudaChannelFormatKindSignedBlockCompressed6H = 28,
    cudaChannelFormatKindUnsignedBlockCompressed7 = 29,
    cudaChannelFormatKindUnsignedBlockCompressed7SRGB = 30,
    cudaChannelFormatKindUnsignedNormalized1010102 = 31
};

struct __device_builtin__ cudaChannelFormatDesc {
    int x, y, z, w;
    enum cudaChannelFormatKind f;
};

extern __host__ struct cudaChannelFormatDesc CUDARTAPI cudaCreateChannelDesc(
    int x, int y, int z, int w, enum cudaChannelFormatKind f);

#endif /* P2PSIM_CUDA_INCLUDE_P2PSIM_RT_MEMCPY_H */
