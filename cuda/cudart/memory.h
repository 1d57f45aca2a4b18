/*
 * cuda/cudart/memory.h - what memory.c offers the other files of the shim
 * beyond rt.h: the allocation table's insert and remove (managed.c), HBM
 * space in a device's UVA window (managed.c keeps its device copies
 * there), and the reset of a device's memory (device.c).
 *
 * Every function here is called with the runtime lock held.
 */
#ifndef P2PSIM_CUDA_CUDART_MEMORY_H
#define P2PSIM_CUDA_CUDART_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda/cudart/rt.h"

/* Device allocations are aligned to this many bytes (cudaMalloc and the
 * pools); CUDA promises 256 and hands out 512-byte steps for small
 * allocations. */
#define RT_MEM_ALIGN_BYTES UINT64_C(512)

/*
 * rt_alloc_insert - add a (fully filled in, malloc'd) to rt.allocs;
 * 0 or cudaErrorMemoryAllocation. rt_alloc_remove takes it out (does not
 * free it).
 */
cudaError_t rt_alloc_insert(struct rt_alloc *a);
void rt_alloc_remove(struct rt_alloc *a);
/* The allocation whose base is exactly ptr, or NULL. */
struct rt_alloc *rt_alloc_at(const void *ptr);

/*
 * rt_window_reserve - size bytes (rounded up to RT_MEM_ALIGN_BYTES) of
 * device dev's HBM from the machine's HBM space (rt_machine->hbm_alloc);
 * *off is the HBM offset, and the program's address is
 * rt.dev[dev].va_base + off. Counts in rt.dev[dev].mem_used. Returns 0 or
 * cudaErrorMemoryAllocation (memory used up). rt_window_release gives
 * back the range reserved at off with that size.
 */
cudaError_t rt_window_reserve(int dev, uint64_t size, uint64_t *off);

/* The device heap of kernels' malloc on dev (made on first use): its
 * program address and size, for struct p2psim_launch. */
cudaError_t rt_device_heap(int dev, uint64_t *base, uint64_t *bytes);
void rt_window_release(int dev, uint64_t off, uint64_t size);

/*
 * rt_memory_reset_device - cudaDeviceReset's part (device.c): free every
 * allocation of dev's context (its device memory, and the pinned and
 * managed memory allocated while it was current), destroy its created
 * pools and empty its default pool, which becomes current again. The
 * caller has synchronized the device.
 */
void rt_memory_reset_device(int dev);

#endif /* P2PSIM_CUDA_CUDART_MEMORY_H */
