/*
 * cuda/include/host_defines.h - the CUDA source-level keywords, reduced to
 * what a host C or C++ compiler needs.
 *
 * p2psim's CUDA headers let host programs that call the CUDA runtime API
 * build without the toolkit; the calls are served by p2psim's runtime shim
 * (soname libcudart.so.13). Device code is out of scope: the execution-space
 * and memory-space qualifiers below expand to nothing, so a host compiler
 * reads `__host__ int f(void)` as `int f(void)`.
 *
 * Compiling these headers with nvcc is refused: nvcc's front end needs the
 * toolkit's own headers, which carry its compiler annotations. Build .cu
 * files against the toolkit (with -cudart shared) and link them to the shim.
 */
#ifndef P2PSIM_CUDA_INCLUDE_HOST_DEFINES_H
#define P2PSIM_CUDA_INCLUDE_HOST_DEFINES_H

#if defined(__CUDACC__)
#error "p2psim's CUDA headers are for host compilers only; see host_defines.h"
#endif

/* Presence macro: some programs test it to learn that CUDA's keyword
 * definitions are in scope. */
#ifndef __HOST_DEFINES_H__
#define __HOST_DEFINES_H__
#endif

/* Execution spaces and variable memory spaces: nothing on the host. */
#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __shared__
#define __shared__
#endif
#ifndef __constant__
#define __constant__
#endif
#ifndef __managed__
#define __managed__
#endif
#ifndef __grid_constant__
#define __grid_constant__
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif
#ifndef __cluster_dims__
#define __cluster_dims__(...)
#endif

/* Marks for types and functions the CUDA compiler knows natively. */
#define __device_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __cudart_builtin__

/* Inlining and alignment, spelled for GCC-compatible compilers (GCC,
 * Clang, ICX); the shim targets Linux on x86-64 and AArch64. */
#if defined(__GNUC__)
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __no_return__ __attribute__((noreturn))
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __thread__ __thread
#else
#error "p2psim's CUDA headers need a GCC-compatible compiler"
#endif

/* Calling convention of runtime entry points and of callbacks handed to
 * the runtime: the platform default on Linux. */
#ifndef CUDARTAPI
#define CUDARTAPI
#endif
#ifndef CUDARTAPI_CDECL
#define CUDARTAPI_CDECL
#endif

#endif /* P2PSIM_CUDA_INCLUDE_HOST_DEFINES_H */
