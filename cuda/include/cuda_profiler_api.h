/*
 * cuda/include/cuda_profiler_api.h - the two profiler calls of the CUDA
 * runtime, which programs include on their own (cuda_runtime.h does not):
 * they bracket the region a profiler such as Nsight Systems collects.
 * Served by the shim: no profiler is attached to a simulated machine, so
 * both succeed and change nothing, as on a real GPU run without one.
 */
#ifndef P2PSIM_CUDA_INCLUDE_CUDA_PROFILER_API_H
#define P2PSIM_CUDA_INCLUDE_CUDA_PROFILER_API_H
#ifndef __CUDA_PROFILER_API_H__
#define __CUDA_PROFILER_API_H__

#include "host_defines.h"
#include "driver_types.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* Start collecting (a no-op without a profiler). */
extern __host__ cudaError_t CUDARTAPI cudaProfilerStart(void);
/* Stop collecting (a no-op without a profiler). */
extern __host__ cudaError_t CUDARTAPI cudaProfilerStop(void);

#if defined(__cplusplus)
}
#endif

#endif /* __CUDA_PROFILER_API_H__ */
#endif /* P2PSIM_CUDA_INCLUDE_CUDA_PROFILER_API_H */
