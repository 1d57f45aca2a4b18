/*
 * machine/hbm_space.h - the address space of one GPU's HBM: which ranges are
 * allocated, first fit. Shared by the CUDA shim's in-process machine
 * (cuda/cudart/machine.c) and the p2psim server (tools/cmd_server.c), so
 * that every process of a program sees the same allocator.
 *
 * Complexity: allocation walks the sorted ranges (O(n)); freeing is a
 * binary search plus a move (O(n)). Programs hold at most thousands of
 * allocations per GPU.
 */
#ifndef P2PSIM_MACHINE_HBM_SPACE_H
#define P2PSIM_MACHINE_HBM_SPACE_H

#include <stdint.h>

struct p2psim_hbm_range {
    uint64_t off, len;          /* bytes; len is the rounded size */
};

/* Caller-owned; zero it, or p2psim_hbm_space_init. */
struct p2psim_hbm_space {
    uint64_t total_bytes;       /* the HBM size */
    struct p2psim_hbm_range *r; /* sorted by off, disjoint */
    unsigned n, cap;
};

void p2psim_hbm_space_init(struct p2psim_hbm_space *s, uint64_t total_bytes);
void p2psim_hbm_space_fini(struct p2psim_hbm_space *s);

/*
 * p2psim_hbm_space_alloc - the lowest offset, aligned to align (a power of
 * two), where size bytes (rounded up to align) fit. Returns 0 and *off,
 * -SIM_EINVAL (size 0, bad align) or -SIM_ENOMEM (no gap large enough, or
 * out of host memory for the table).
 */
int p2psim_hbm_space_alloc(struct p2psim_hbm_space *s, uint64_t size,
                           uint64_t align, uint64_t *off);
/*
 * p2psim_hbm_space_free - release the range that starts at off; *len (may
 * be NULL) gets its length. Returns 0 or -SIM_ENOENT.
 */
int p2psim_hbm_space_free(struct p2psim_hbm_space *s, uint64_t off,
                          uint64_t *len);

#endif /* P2PSIM_MACHINE_HBM_SPACE_H */
