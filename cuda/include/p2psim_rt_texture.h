/*
 * cuda/include/p2psim_rt_texture.h - the CUDA 13.0 runtime's arrays,
 * texture objects and surface objects, as served by p2psim (part of
 * cuda_runtime_api.h, which includes it; not to be included alone).
 * Types and enum values are CUDA's; tools/gen-dispatch.sh reads the
 * declarations here as it reads cuda_runtime_api.h's.
 */
#ifndef P2PSIM_CUDA_INCLUDE_P2PSIM_RT_TEXTURE_H
#define P2PSIM_CUDA_INCLUDE_P2PSIM_RT_TEXTURE_H

#ifndef P2PSIM_CUDA_INCLUDE_CUDA_RUNTIME_API_H
#error "p2psim_rt_texture.h is part of cuda_runtime_api.h: include that instead"
#endif

#endif /* P2PSIM_CUDA_INCLUDE_P2PSIM_RT_TEXTURE_H */
