/*
 * cuda/cudart/memory_int.h - what the memory files share among themselves
 * (memory.c: device memory and the allocation table; memory_host.c:
 * pinned host memory; memset.c; memory_pool.c: pools and stream-ordered
 * allocation), beyond memory.h, which the other files of the shim see.
 *
 * Every function here is called with the runtime lock held.
 */
#ifndef P2PSIM_CUDA_CUDART_MEMORY_INT_H
#define P2PSIM_CUDA_CUDART_MEMORY_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda/cudart/memory.h"
#include "cuda/cudart/rt.h"

/* rt_alloc.flags bit: a free of it is under way (cudaFree waiting for
 * the device, cudaFreeAsync queued); nobody else may free it. */
#define MEM_FREEING (1u << 31)

/*
 * A memory pool (cudaMemPool_t). Its bytes: used (live allocations) and
 * cached (freed, still reserved; reserved = used + cached). Both count in
 * the device's mem_used.
 */
struct CUmemPoolHandle_st {
    struct CUmemPoolHandle_st *next;    /* every live pool */
    int device;
    bool is_default;
    bool destroyed;             /* destroyed with allocations still out */
    struct cudaMemPoolProps props;
    enum cudaMemAccessFlags *access;    /* [n_dev]; owner: ReadWrite */
    int reuse[3];               /* cudaMemPoolReuse*, by attr - 1 */
    uint64_t release_threshold; /* bytes */
    uint64_t used, cached;      /* bytes */
    uint64_t used_high, reserved_high;
    unsigned n_allocs;
    uint64_t share_token;       /* exported or imported: ipc.c's; else 0 */
    bool imported;              /* another process's, imported: its
                                   allocations are imported pointers */
};

/* Every live pool (memory_pool.c). */
extern struct CUmemPoolHandle_st *mem_pools;

static inline uint64_t round_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

/* ---- memory.c ---- */

/* Whether any allocation overlaps [p, p + len). */
bool mem_alloc_overlaps(uintptr_t p, uint64_t len);
/*
 * Device memory of size bytes on dev, from pool (NULL: plain cudaMalloc).
 * A pool's cached bytes are used first, so they do not count twice.
 */
cudaError_t mem_device_alloc(int dev, uint64_t size, cudaMemPool_t pool,
                             void **ptr);
/* Undo an allocation of any kind: out of the table, its memory released. */
void mem_alloc_release(struct rt_alloc *a);
/* A device allocation (not pinned memory) that nobody is freeing. */
struct rt_alloc *mem_freeable_at(const void *ptr, enum rt_mem_kind kind);
/*
 * Free the allocation at ptr of the given family (device and managed, or
 * pinned) once the devices that may use it are idle.
 */
cudaError_t mem_free_synced(void *ptr, enum rt_mem_kind family);

/* ---- memory_pool.c ---- */

/* A new pool of dev with props, or NULL (out of memory); mem_pool_free
 * takes one out of mem_pools and gives its cached bytes back. */
cudaMemPool_t mem_pool_new(int dev, const struct cudaMemPoolProps *props);
void mem_pool_free(cudaMemPool_t pool);
/* Give cached bytes back to the device until reserved <= keep (never below
 * what is in use). */
void mem_pool_trim(cudaMemPool_t pool, uint64_t keep);
/* Note the pool's high-water marks after a change. */
void mem_pool_note_high(cudaMemPool_t pool);

#endif /* P2PSIM_CUDA_CUDART_MEMORY_INT_H */
