/*
 * cuda/cudart/launch_int.h - what the files of device code share among
 * themselves: registry.c's modules and kernels (and its lock),
 * kernel_attr.c's limits of a kernel, which launch.c's checks apply.
 */
#ifndef P2PSIM_CUDA_CUDART_LAUNCH_INT_H
#define P2PSIM_CUDA_CUDART_LAUNCH_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda/cudart/rt.h"
#include "cuda/include/p2psim_cudart_internal.h"
#include "ptx/ptx.h"

/*
 * What __cudaRegisterFatBinary returns is handle, the first member: 128
 * zeroed bytes the program may touch (nvcc's exit code does; Cricket found
 * 0x58 bytes enough, cuda-api.md §3.2) until __cudaUnregisterFatBinary.
 */
struct cudart_module {
    void *handle[16];
    const struct p2psim_fatbin_wrapper *fatbin; /* the program's, as given */
    bool complete;              /* __cudaRegisterFatBinaryEnd seen */
    struct ptx_module *ptx;     /* parsed on first launch; NULL: not yet */
    struct ptx_error ptx_err;   /* why it could not be (code != 0) */
    /* through a server: the PTX text until the server has it, and the
     * number it has it under (0: not yet) */
    char *text;
    size_t text_len;
    uint64_t wire_id;
    /* storage of the module's .global/.const variables: per device, the
     * program address of each (ptx_module_var order); 0: not yet */
    uint64_t **var_addr;        /* [device][var] */
    struct cudart_module *next;
};

/* A kernel; cudaKernel_t points at one. */
struct CUkern_st {
    const void *stub;           /* host stub: the key of every lookup */
    char *name;                 /* mangled device name (owned) */
    struct cudart_module *module;
    int num_regs;               /* per thread; 0: unknown (no limit) */
    size_t static_smem;         /* bytes; 0 until binaries are parsed */
    /* cudaFuncSetAttribute */
    int max_dyn_smem;           /* bytes; -1: the default */
    int carveout;               /* percent of the maximum; -1: none */
    int cluster_dim[3];         /* required cluster size; 0: none */
    int non_portable_cluster;
    int cluster_policy;
    bool warned;                /* "not run" printed */
    struct CUkern_st *next;
};

/*
 * The registry's lock (registry.c), taken after the runtime's (never
 * before it), because registration runs before main, outside any served
 * call, and must not start the runtime.
 */
extern pthread_mutex_t reg_lock;
/* The kernel of a host stub, or of a cudaKernel_t handle; NULL if none
 * (reg_lock held). */
struct CUkern_st *reg_kernel_of_stub(const void *stub);
struct CUkern_st *reg_kernel_of_handle(cudaKernel_t h);
/* The module of a registered variable, by its host shadow (or a managed
 * one's address), with its name, size and managed address slot (NULL:
 * not managed); NULL if none (reg_lock held). */
struct cudart_module *reg_var_lookup(const void *sym, const char **name,
                                     size_t *size, void ***managed_ptr);
/* The module's PTX, parsed once (launch.c; reg_lock held); NULL with
 * m->ptx_err. */
struct ptx_module *rt_module_ptx(struct cudart_module *m);

/*
 * rt_module_vars - (launch.c) the addresses on device dev of module m's
 * .global and .const variables (mod: its parsed PTX), in
 * ptx_module_var order, storage made on first use; *n of them. Both
 * locks held.
 */
cudaError_t rt_module_vars(struct cudart_module *m,
                           const struct ptx_module *mod, unsigned dev,
                           const uint64_t **addrs, unsigned *n);

/* Dynamic shared memory a launch of k may ask for (kernel_attr.c). */
size_t kernel_max_dyn_smem(const struct CUkern_st *k,
                           const struct cudaDeviceProp *p);
/* Resident blocks of k per SM with blocks of threads threads and dyn bytes
 * of dynamic shared memory (kernel_attr.c). */
int kernel_blocks_per_sm(const struct CUkern_st *k,
                         const struct cudaDeviceProp *p, int threads,
                         size_t dyn);

#endif /* P2PSIM_CUDA_CUDART_LAUNCH_INT_H */
