/*
 * ptx/flat.h - a reference executor for PTX kernels over flat host
 * memory: global addresses are host pointers, blocks run one after
 * another, the warps of a block take turns. It has no notion of time
 * (%clock64 counts warp-instructions) and no memory model (every access
 * is done at once, in order); it exists for tests, bench/ptx, and as the
 * functional reference the SM model's results can be compared with.
 */
#ifndef P2PSIM_PTX_FLAT_H
#define P2PSIM_PTX_FLAT_H

#include <stdint.h>

#include "ptx/ptx.h"

struct ptx_flat_launch {
    const struct ptx_kernel *kernel;
    struct ptx_dim3 grid, block;
    void *const *args;           /* as cudaLaunchKernel's args */
    uint32_t dyn_shared_bytes;
    const uint64_t *var_addrs;   /* module variables, or NULL */
    unsigned n_var_addrs;
    const struct ptx_tex_ops *tex_ops; /* textures (ptx_tex.h), or NULL */
    void *tex_user;
};

struct ptx_flat_stats {
    uint64_t warp_instrs;  /* warp-instructions interpreted */
    uint64_t mem_reqs;     /* requests that left the interpreter */
    uint64_t barriers;     /* barrier stops */
};

/* Generic-address windows the executor uses for shared and local
 * memory (above any user-space pointer). */
#define PTX_FLAT_SHARED_WINDOW 0x1000000000000000ull
#define PTX_FLAT_LOCAL_WINDOW 0x2000000000000000ull

/**
 * ptx_flat_run() - run a whole grid to completion.
 * Return: 0, or a PTX_E* code with @err (an unsupported kernel, a fault
 * of the kernel such as trap or an out-of-bounds shared access, or a
 * deadlock at a barrier).
 */
int ptx_flat_run(const struct ptx_flat_launch *l, struct ptx_flat_stats *st,
                 struct ptx_error *err);

#endif /* P2PSIM_PTX_FLAT_H */
