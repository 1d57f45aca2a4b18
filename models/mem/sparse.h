/*
 * models/mem/sparse.h - a sparse byte store for simulated memories (GPU HBM,
 * host DRAM): pages are allocated on the first write of a nonzero byte, so
 * eight 141 GB GPUs cost nothing until touched. Reads of untouched bytes
 * return zeros.
 *
 * Pages are 64 KiB, found through an open-addressing hash table keyed by
 * page number (O(1) expected).
 */
#ifndef P2PSIM_MODELS_MEM_SPARSE_H
#define P2PSIM_MODELS_MEM_SPARSE_H

#include <stdbool.h>
#include <stdint.h>

struct mem_sparse;

#define MEM_SPARSE_PAGE_BYTES (UINT64_C(64) << 10)

/* An empty store of size_bytes; NULL on out of memory. */
struct mem_sparse *mem_sparse_create(uint64_t size_bytes);
void mem_sparse_destroy(struct mem_sparse *m);

uint64_t mem_sparse_size(const struct mem_sparse *m);

/* Returns 0, -SIM_ERANGE past the end, or -SIM_ENOMEM. */
int mem_sparse_write(struct mem_sparse *m, uint64_t addr, const void *src,
                     uint64_t len);
int mem_sparse_read(const struct mem_sparse *m, uint64_t addr, void *dst,
                    uint64_t len);
int mem_sparse_fill(struct mem_sparse *m, uint64_t addr, uint8_t value,
                    uint64_t len);

/*
 * mem_sparse_attach - back [addr, addr + len) with caller-owned memory at
 * ptr (a program's pinned host buffer): reads and writes there go to ptr,
 * not to pages. Ranges may not overlap. Returns 0, -SIM_ERANGE, -SIM_EBUSY
 * (overlap) or -SIM_ENOMEM. Detach before freeing ptr.
 */
int mem_sparse_attach(struct mem_sparse *m, uint64_t addr, void *ptr,
                      uint64_t len);
int mem_sparse_detach(struct mem_sparse *m, uint64_t addr);

/* Bytes of backing store allocated (pages touched x page size). */
uint64_t mem_sparse_backed_bytes(const struct mem_sparse *m);

/*
 * mem_sparse_is_backed - whether any byte of [addr, addr + len) has
 * backing (a page written, or attached memory); if not, the range reads
 * as zeros, and writing zeros there changes nothing that can be read.
 */
bool mem_sparse_is_backed(const struct mem_sparse *m, uint64_t addr,
                          uint64_t len);

#endif /* P2PSIM_MODELS_MEM_SPARSE_H */
