/*
 * cuda/include/p2psim_rt_texture.h - the CUDA 13.0 runtime's arrays,
 * texture objects and surface objects, as served by p2psim (part of
 * cuda_runtime_api.h, which includes it; not to be included alone).
 * Types and enum values are CUDA's; tools/gen-dispatch.sh reads the
 * declarations here as it reads cuda_runtime_api.h's. cudaArray_t,
 * cudaExtent and cudaPos come from the part included before this one
 * (p2psim_rt_graph.h or p2psim_rt_memcpy.h, P2PSIM_RT_MEMCPY3D_TYPES).
 *
 * Device code compiled by nvcc reads textures through its own headers
 * (tex2D<T>() and the others become PTX tex instructions); what a program
 * needs of p2psim at run time is the calls below and those instructions
 * (docs/cuda-shim.md, "Arrays, textures and surfaces").
 */
#ifndef P2PSIM_CUDA_INCLUDE_P2PSIM_RT_TEXTURE_H
#define P2PSIM_CUDA_INCLUDE_P2PSIM_RT_TEXTURE_H

#ifndef P2PSIM_CUDA_INCLUDE_CUDA_RUNTIME_API_H
#error "p2psim_rt_texture.h is part of cuda_runtime_api.h: include that instead"
#endif
#ifndef P2PSIM_RT_MEMCPY3D_TYPES
#error "p2psim_rt_texture.h needs cudaArray_t and cudaExtent declared first"
#endif

/* With CUDA_API_PER_THREAD_DEFAULT_STREAM the copies bind to their _ptds
 * (synchronous) or _ptsz (stream) twins, as with the toolkit. */
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cudaMemcpy2DToArray P2PSIM_PTDS(cudaMemcpy2DToArray)
#define cudaMemcpy2DFromArray P2PSIM_PTDS(cudaMemcpy2DFromArray)
#define cudaMemcpy2DArrayToArray P2PSIM_PTDS(cudaMemcpy2DArrayToArray)
#define cudaMemcpyToArray P2PSIM_PTDS(cudaMemcpyToArray)
#define cudaMemcpyFromArray P2PSIM_PTDS(cudaMemcpyFromArray)
#define cudaMemcpyArrayToArray P2PSIM_PTDS(cudaMemcpyArrayToArray)
#define cudaMemcpy2DToArrayAsync P2PSIM_PTSZ(cudaMemcpy2DToArrayAsync)
#define cudaMemcpy2DFromArrayAsync P2PSIM_PTSZ(cudaMemcpy2DFromArrayAsync)
#define cudaMemcpyToArrayAsync P2PSIM_PTSZ(cudaMemcpyToArrayAsync)
#define cudaMemcpyFromArrayAsync P2PSIM_PTSZ(cudaMemcpyFromArrayAsync)
#endif

/* ---- handles and flags -------------------------------------------------- */

typedef __device_builtin__ unsigned long long cudaTextureObject_t;
typedef __device_builtin__ unsigned long long cudaSurfaceObject_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;

/* cudaMallocArray / cudaMalloc3DArray flags */
#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08

/* Texture and surface geometries, as device code names them. */
#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC
#define cudaSurfaceType1D 0x01
#define cudaSurfaceType2D 0x02
#define cudaSurfaceType3D 0x03
#define cudaSurfaceTypeCubemap 0x0C
#define cudaSurfaceType1DLayered 0xF1
#define cudaSurfaceType2DLayered 0xF2
#define cudaSurfaceTypeCubemapLayered 0xFC

/* ---- resources ---------------------------------------------------------- */

enum __device_builtin__ cudaResourceType {
    cudaResourceTypeArray = 0x00,
    cudaResourceTypeMipmappedArray = 0x01,
    cudaResourceTypeLinear = 0x02,
    cudaResourceTypePitch2D = 0x03
};

/* How a view reinterprets its resource's elements (None: as they are). */
enum __device_builtin__ cudaResourceViewFormat {
    cudaResViewFormatNone = 0x00,
    cudaResViewFormatUnsignedChar1 = 0x01,
    cudaResViewFormatUnsignedChar2 = 0x02,
    cudaResViewFormatUnsignedChar4 = 0x03,
    cudaResViewFormatSignedChar1 = 0x04,
    cudaResViewFormatSignedChar2 = 0x05,
    cudaResViewFormatSignedChar4 = 0x06,
    cudaResViewFormatUnsignedShort1 = 0x07,
    cudaResViewFormatUnsignedShort2 = 0x08,
    cudaResViewFormatUnsignedShort4 = 0x09,
    cudaResViewFormatSignedShort1 = 0x0a,
    cudaResViewFormatSignedShort2 = 0x0b,
    cudaResViewFormatSignedShort4 = 0x0c,
    cudaResViewFormatUnsignedInt1 = 0x0d,
    cudaResViewFormatUnsignedInt2 = 0x0e,
    cudaResViewFormatUnsignedInt4 = 0x0f,
    cudaResViewFormatSignedInt1 = 0x10,
    cudaResViewFormatSignedInt2 = 0x11,
    cudaResViewFormatSignedInt4 = 0x12,
    cudaResViewFormatHalf1 = 0x13,
    cudaResViewFormatHalf2 = 0x14,
    cudaResViewFormatHalf4 = 0x15,
    cudaResViewFormatFloat1 = 0x16,
    cudaResViewFormatFloat2 = 0x17,
    cudaResViewFormatFloat4 = 0x18,
    cudaResViewFormatUnsignedBlockCompressed1 = 0x19,
    cudaResViewFormatUnsignedBlockCompressed2 = 0x1a,
    cudaResViewFormatUnsignedBlockCompressed3 = 0x1b,
    cudaResViewFormatUnsignedBlockCompressed4 = 0x1c,
    cudaResViewFormatSignedBlockCompressed4 = 0x1d,
    cudaResViewFormatUnsignedBlockCompressed5 = 0x1e,
    cudaResViewFormatSignedBlockCompressed5 = 0x1f,
    cudaResViewFormatUnsignedBlockCompressed6H = 0x20,
    cudaResViewFormatSignedBlockCompressed6H = 0x21,
    cudaResViewFormatUnsignedBlockCompressed7 = 0x22
};

/* What a texture or surface object reads: an array, a mipmapped array,
 * linear memory (1D) or pitched memory (2D). */
struct __device_builtin__ cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct {
            cudaArray_t array;
        } array;
        struct {
            cudaMipmappedArray_t mipmap;
        } mipmap;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width;           /* elements */
            size_t height;
            size_t pitchInBytes;
        } pitch2D;
        struct {
            int reserved[32];
        } reserved;
    } res;
    unsigned int flags;
};

struct __device_builtin__ cudaResourceViewDesc {
    enum cudaResourceViewFormat format;
    size_t width;
    size_t height;
    size_t depth;
    unsigned int firstMipmapLevel;
    unsigned int lastMipmapLevel;
    unsigned int firstLayer;
    unsigned int lastLayer;
    unsigned int reserved[16];
};

/* ---- textures and surfaces ---------------------------------------------- */

enum __device_builtin__ cudaTextureAddressMode {
    cudaAddressModeWrap = 0,
    cudaAddressModeClamp = 1,
    cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3
};

enum __device_builtin__ cudaTextureFilterMode {
    cudaFilterModePoint = 0,
    cudaFilterModeLinear = 1
};

enum __device_builtin__ cudaTextureReadMode {
    cudaReadModeElementType = 0,
    cudaReadModeNormalizedFloat = 1
};

/* How a texture object samples its resource. */
struct __device_builtin__ cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};

enum __device_builtin__ cudaSurfaceBoundaryMode {
    cudaBoundaryModeZero = 0,
    cudaBoundaryModeClamp = 1,
    cudaBoundaryModeTrap = 2
};

enum __device_builtin__ cudaSurfaceFormatMode {
    cudaFormatModeForced = 0,
    cudaFormatModeAuto = 1
};

/* ---- arrays ------------------------------------------------------------- */

extern __host__ cudaError_t CUDARTAPI cudaMallocArray(
    cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
    size_t width, size_t height P2PSIM_DEFAULT(0),
    unsigned int flags P2PSIM_DEFAULT(0));
extern __host__ cudaError_t CUDARTAPI cudaMalloc3DArray(
    cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
    struct cudaExtent extent, unsigned int flags P2PSIM_DEFAULT(0));
extern __host__ cudaError_t CUDARTAPI cudaFreeArray(cudaArray_t array);
extern __host__ cudaError_t CUDARTAPI cudaArrayGetInfo(
    struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
    unsigned int *flags, cudaArray_t array);
extern __host__ cudaError_t CUDARTAPI cudaGetChannelDesc(
    struct cudaChannelFormatDesc *desc, cudaArray_const_t array);

/* A mipmapped array: numLevels arrays, each half the one before. */
extern __host__ cudaError_t CUDARTAPI cudaMallocMipmappedArray(
    cudaMipmappedArray_t *mipmappedArray,
    const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
    unsigned int numLevels, unsigned int flags P2PSIM_DEFAULT(0));
extern __host__ cudaError_t CUDARTAPI cudaGetMipmappedArrayLevel(
    cudaArray_t *levelArray, cudaMipmappedArray_const_t mipmappedArray,
    unsigned int level);
extern __host__ cudaError_t CUDARTAPI cudaFreeMipmappedArray(
    cudaMipmappedArray_t mipmappedArray);

/* Copies to and from arrays: offsets and widths in bytes, heights in
 * rows. */
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2DToArray(
    cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
    size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2DFromArray(
    void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
    size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2DArrayToArray(
    cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
    cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
    size_t width, size_t height,
    enum cudaMemcpyKind kind P2PSIM_DEFAULT(cudaMemcpyDeviceToDevice));
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2DToArrayAsync(
    cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
    size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream P2PSIM_DEFAULT(0));
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2DFromArrayAsync(
    void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
    size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream P2PSIM_DEFAULT(0));

/* The deprecated forms: count bytes from (wOffset, hOffset) on, across
 * rows. */
extern __host__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                  const void *src, size_t count, enum cudaMemcpyKind kind);
extern __host__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                    size_t hOffset, size_t count, enum cudaMemcpyKind kind);
extern __host__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst,
                       size_t hOffsetDst, cudaArray_const_t src,
                       size_t wOffsetSrc, size_t hOffsetSrc, size_t count,
                       enum cudaMemcpyKind kind
                           P2PSIM_DEFAULT(cudaMemcpyDeviceToDevice));
extern __host__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                       const void *src, size_t count,
                       enum cudaMemcpyKind kind,
                       cudaStream_t stream P2PSIM_DEFAULT(0));
extern __host__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                         size_t hOffset, size_t count,
                         enum cudaMemcpyKind kind,
                         cudaStream_t stream P2PSIM_DEFAULT(0));

/* ---- texture and surface objects ---------------------------------------- */

extern __host__ cudaError_t CUDARTAPI cudaCreateTextureObject(
    cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
    const struct cudaTextureDesc *pTexDesc,
    const struct cudaResourceViewDesc *pResViewDesc);
extern __host__ cudaError_t CUDARTAPI cudaDestroyTextureObject(
    cudaTextureObject_t texObject);
extern __host__ cudaError_t CUDARTAPI cudaGetTextureObjectResourceDesc(
    struct cudaResourceDesc *pResDesc, cudaTextureObject_t texObject);
extern __host__ cudaError_t CUDARTAPI cudaGetTextureObjectTextureDesc(
    struct cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject);
extern __host__ cudaError_t CUDARTAPI cudaGetTextureObjectResourceViewDesc(
    struct cudaResourceViewDesc *pResViewDesc, cudaTextureObject_t texObject);
extern __host__ cudaError_t CUDARTAPI cudaCreateSurfaceObject(
    cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc);
extern __host__ cudaError_t CUDARTAPI cudaDestroySurfaceObject(
    cudaSurfaceObject_t surfObject);
extern __host__ cudaError_t CUDARTAPI cudaGetSurfaceObjectResourceDesc(
    struct cudaResourceDesc *pResDesc, cudaSurfaceObject_t surfObject);

/* ---- the per-thread default stream's twins ------------------------------ */

extern __host__ cudaError_t CUDARTAPI cudaMemcpy2DToArray_ptds(
    cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
    size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2DFromArray_ptds(
    void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
    size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2DArrayToArray_ptds(
    cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
    cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
    size_t width, size_t height, enum cudaMemcpyKind kind);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2DToArrayAsync_ptsz(
    cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
    size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream);
extern __host__ cudaError_t CUDARTAPI cudaMemcpy2DFromArrayAsync_ptsz(
    void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
    size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream);
extern __host__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaMemcpyToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset,
                       const void *src, size_t count,
                       enum cudaMemcpyKind kind);
extern __host__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaMemcpyFromArray_ptds(void *dst, cudaArray_const_t src, size_t wOffset,
                         size_t hOffset, size_t count,
                         enum cudaMemcpyKind kind);
extern __host__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaMemcpyArrayToArray_ptds(cudaArray_t dst, size_t wOffsetDst,
                            size_t hOffsetDst, cudaArray_const_t src,
                            size_t wOffsetSrc, size_t hOffsetSrc,
                            size_t count, enum cudaMemcpyKind kind);
extern __host__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                            const void *src, size_t count,
                            enum cudaMemcpyKind kind, cudaStream_t stream);
extern __host__ P2PSIM_CUDART_DEPRECATED cudaError_t CUDARTAPI
cudaMemcpyFromArrayAsync_ptsz(void *dst, cudaArray_const_t src,
                              size_t wOffset, size_t hOffset, size_t count,
                              enum cudaMemcpyKind kind, cudaStream_t stream);

#endif /* P2PSIM_CUDA_INCLUDE_P2PSIM_RT_TEXTURE_H */
