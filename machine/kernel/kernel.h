/*
 * machine/kernel/kernel.h - the kernel executor of libp2psim: runs a grid of
 * a C kernel (registered with p2psim_kernel_register) or of a PTX kernel
 * (ptx/) on a GPU's SMs (models/gpu/sm.h) in simulated time.
 *
 *   exec.c     grids, blocks on SMs, warps, barriers; a warp's request
 *              (struct ptx_mem_req, for both kinds of kernel) resolved,
 *              coalesced and issued; fences; the end of a grid
 *   spin.c     a PTX warp spinning on unchanged memory is not interpreted
 *   heap.c     the device heap: a kernel's malloc and free
 *   cthread.c  C kernels: one coroutine per thread, the device API
 *              (machine/include/p2psim_kernel.h), the registry by name
 *
 * docs/kernels.md describes the design, docs/memory-model.md the
 * ordering it gives.
 */
#ifndef P2PSIM_MACHINE_KERNEL_KERNEL_H
#define P2PSIM_MACHINE_KERNEL_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine/exec.h"
#include "sim/time.h"

struct p2psim;
struct ptx_kernel;

/* A registered C kernel (cthread.c); its address is the launch handle. */
struct p2psim_ckernel;

/* The C kernel a handle names, or NULL. */
const struct p2psim_ckernel *p2psim_ckernel_find(const void *handle);
const char *p2psim_ckernel_name(const struct p2psim_ckernel *k);
unsigned p2psim_ckernel_n_args(const struct p2psim_ckernel *k);
size_t p2psim_ckernel_arg_bytes(const struct p2psim_ckernel *k, unsigned i);

/*
 * Where a program address is, for the executor: fill *loc (a GPU's HBM
 * offset, or a host bus address) for [va, va + len) and return 0, or
 * return -1 when that range is not memory the kernel on GPU gpu may
 * touch (the kernel then fails with an illegal address). A range that
 * resolves is one piece of memory: byte va + k of it is at loc->addr + k
 * (the executor resolves a warp's span once and offsets its lanes).
 */
typedef int p2psim_resolve_fn(void *arg, unsigned gpu, uint64_t va,
                              uint64_t len, struct p2psim_loc *loc);

/* How a grid ended. */
enum p2psim_kernel_status {
    P2PSIM_KERNEL_OK = 0,
    P2PSIM_KERNEL_FAULT = -1,   /* an illegal address, or an error
                                   completion on the fabric */
    P2PSIM_KERNEL_PTX = -2,     /* the interpreter stopped (msg says) */
    P2PSIM_KERNEL_MISUSE = -3,  /* grid sync outside a cooperative
                                   launch, a bad access size */
    P2PSIM_KERNEL_ASSERT = -4,  /* a device assert() failed (PTX) */
};

typedef void p2psim_kernel_done_fn(void *arg, int status, const char *msg,
                                   sim_time_t t_end);

struct p2psim_launch {
    unsigned gpu;
    unsigned grid[3], block[3];
    uint32_t dyn_smem;          /* bytes of dynamic shared memory */
    unsigned blocks_per_sm;     /* residency; 0: from the block size */
    bool cooperative;
    /* cooperative: the program address of the grid barrier's workspace
     * (zeroed device memory the launcher owns for the grid's life), given
     * to every CTA as nvcc's cooperative groups read it: high 32 bits in
     * %envreg1, low in %envreg2; 0: none (grid.sync() then traps) */
    uint64_t grid_ws;
    /* the device heap that malloc and free in the kernel use (heap.c):
     * device memory the launcher owns; heap_base 0: none (a malloc then
     * fails the grid) */
    uint64_t heap_base, heap_bytes;
    /* one of: */
    const struct p2psim_ckernel *ck;
    void **args;                /* ck: args[i] -> argument i (copied) */
    const struct ptx_kernel *pk;
    const void *param_buf;      /* pk: the parameter buffer (copied) */
    uint32_t param_bytes;
    uint32_t static_smem;       /* pk: static shared memory bytes */
    const uint64_t *var_addrs;  /* pk: module variables (copied) */
    unsigned n_vars;
    p2psim_resolve_fn *resolve;
    void *resolve_arg;
    /* optional (NULL: no faults): a warp's load, store or atomic of
     * [va, va + len) that resolved to host memory asks fault(resolve_arg,
     * ...) first: 0, access it where it resolved; 1, a page fault: the warp waits until
     * resume(w) is called from inside the simulation, then resolves
     * again (the page may have moved) */
    int (*fault)(void *arg, unsigned gpu, uint64_t va, uint64_t len,
                 void (*resume)(void *w), void *w);
    sim_time_t start_at;
    /* dynamic parallelism: launches a grid's tree may have waiting in
     * device streams (cudaLimitDevRuntimePendingLaunchCount; 0: 2048) */
    unsigned cdp_pending_max;
    p2psim_kernel_done_fn *done;
    void *done_arg;
};

/*
 * p2psim_kernel_launch - start a grid at l->start_at; l->done runs from
 * inside the simulation when every block has finished and every write
 * the grid made has reached memory. Returns 0, or -SIM_EINVAL (a bad
 * GPU, an empty grid, no kernel, no resolver), -SIM_ENOMEM.
 */
int p2psim_kernel_launch(struct p2psim *p, const struct p2psim_launch *l);

/* Rounds of spinning warps not interpreted (spin.c), over all launches. */
uint64_t p2psim_kernel_parked_rounds(void);

/* Warp-instructions the PTX interpreter ran, over all launches (bench). */
uint64_t p2psim_kernel_ptx_instructions(void);

#endif /* P2PSIM_MACHINE_KERNEL_KERNEL_H */
