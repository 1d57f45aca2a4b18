/*
 * cuda/cudart/drv_bridge.h - what p2psim's driver API (cuda/driver/,
 * libcuda.so.1) asks of the runtime beyond its public calls: modules
 * loaded from PTX text, a context's state, and the device memory of the
 * virtual memory management API. Exported from libcudart.so.13 under
 * p2psim_drv_ (libcudart.map); the driver finds them at link time, so the
 * dependency points one way, driver -> runtime.
 *
 * Every function takes the runtime lock itself and returns a
 * cudaError_t (the driver maps it to a CUresult).
 */
#ifndef P2PSIM_CUDA_CUDART_DRV_BRIDGE_H
#define P2PSIM_CUDA_CUDART_DRV_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/include/cuda_runtime_api.h"

#if defined(__cplusplus)
extern "C" {
#endif

/*
 * p2psim_drv_module_load - a module made of the PTX of image: PTX text
 * (NUL-terminated), a fat binary (nvcc -fatbin) or a registered fat
 * binary's wrapper. The PTX is parsed now, so that a module the
 * interpreter cannot read fails here. *handle: the module's registry
 * handle, for __cudaRegisterFunction and p2psim_drv_module_unload.
 * Returns 0, cudaErrorInvalidPtx (why in msg), cudaErrorNoKernelImageForDevice
 * (a cubin or a fat binary without PTX), cudaErrorInvalidKernelImage
 * (not a module), cudaErrorMemoryAllocation.
 */
cudaError_t p2psim_drv_module_load(const void *image, void ***handle,
                                   char *msg, size_t msg_size);
void p2psim_drv_module_unload(void **handle);
/*
 * p2psim_drv_image_ptx - the PTX text of image, as p2psim_drv_module_load
 * reads it, of size bytes (0: unknown; a fat binary's header then bounds
 * it, and PTX text ends at its NUL), checked to parse: *text malloc'd,
 * free() it; *len its strlen (may be NULL). Errors as for
 * p2psim_drv_module_load, why in msg.
 */
cudaError_t p2psim_drv_image_ptx(const void *image, size_t size, char **text,
                                 size_t *len, char *msg, size_t msg_size);
/*
 * p2psim_drv_link - one PTX text from n PTX texts (units), every one
 * linked (ptx/ptx_link.h, ptx_link_all) and the result checked to parse:
 * *text malloc'd, free() it. Returns 0, cudaErrorInvalidKernelImage (a
 * symbol defined twice), cudaErrorInvalidPtx, cudaErrorMemoryAllocation;
 * why in msg.
 */
cudaError_t p2psim_drv_link(const char *const *units, unsigned n,
                            char **text, size_t *len, char *msg,
                            size_t msg_size);
/* Whether the module has a kernel (.entry) of that name. */
int p2psim_drv_module_has_kernel(void **handle, const char *name);
/* The address and size of the module's .global/.const variable name on
 * the current device (storage made on first use); cudaErrorInvalidSymbol
 * when there is none (CUDA_ERROR_NOT_FOUND). */
cudaError_t p2psim_drv_module_global(void **handle, const char *name,
                                     uintptr_t *addr, size_t *bytes);

/* Whether the runtime has started (a runtime call was made): then the
 * driver counts as initialized, as CUDA's runtime calls cuInit. */
int p2psim_drv_runtime_started(void);

/*
 * What the runtime knows of the allocation holding ptr: *kind 0 (none:
 * ordinary host memory), 1 device, 2 pinned host, 3 managed; its base,
 * size and device (owner, or current at allocation).
 */
void p2psim_drv_range(uintptr_t ptr, int *kind, uintptr_t *base,
                      size_t *size, int *dev);

/*
 * The layout of the parameters of the kernel registered under host stub
 * fn (a CUfunction: the driver's own, or a program's kernel as
 * cudaGetFuncBySymbol gives it), its module parsed if not yet: *n of
 * them, offsets[i] in the packed buffer of *total bytes (at most max
 * entries filled); cudaErrorInvalidDeviceFunction when there is no such
 * kernel, cudaErrorInvalidPtx when its module does not parse.
 */
cudaError_t p2psim_drv_kernel_params(const void *fn, unsigned max,
                                     size_t *offsets, unsigned *n,
                                     size_t *total);

/* Whether device dev's primary context exists (the runtime has used the
 * device); 0 for an invalid ordinal. */
int p2psim_drv_device_active(int dev);

/*
 * The virtual memory management API. Physical memory: bytes of a GPU's
 * HBM (the machine's HBM space, shared by the processes of a program).
 * A mapping: [va, va + size) of a reservation, made device memory of gpu
 * at HBM offset off, which kernels and copies then resolve as any
 * allocation.
 */
cudaError_t p2psim_drv_phys_alloc(int gpu, uint64_t size, uint64_t *off);
void p2psim_drv_phys_free(int gpu, uint64_t off, uint64_t size);
cudaError_t p2psim_drv_map(uintptr_t va, uint64_t size, int gpu,
                           uint64_t off);
cudaError_t p2psim_drv_unmap(uintptr_t va);
/* Grant (or, with access 0, withdraw) device dev access to the mapping
 * at va. */
cudaError_t p2psim_drv_map_access(uintptr_t va, int dev, int access);

/*
 * What p2psim's NVML (cuda/nvml/, libnvidia-ml.so.1) reads: the machine
 * the runtime runs (its own copy, rt.p, in a server's client too), and
 * libp2psim's read-only questions about it, which libcudart.so.13 keeps
 * local (libcudart.map) and hands out here as a table. p2psim_drv_machine
 * starts the runtime as any call does; NULL when that failed (the reason
 * said on stderr). The functions are machine/p2psim.h's.
 */
struct p2psim;
struct p2psim_gpu_desc;
struct p2psim_path;
struct p2psim_verdict;
struct p2psim_nvlink_end;
struct p2psim_pci_ids;

struct p2psim_drv_machine {
    const struct p2psim *p;
    unsigned (*gpu_count)(const struct p2psim *p);
    const char *(*gpu_id)(const struct p2psim *p, unsigned i);
    int (*gpu_describe)(const struct p2psim *p, unsigned i,
                        struct p2psim_gpu_desc *out);
    unsigned (*gpu_socket)(const struct p2psim *p, unsigned i);
    void (*gpu_link)(const struct p2psim *p, unsigned i, unsigned *gen,
                     unsigned *width);
    int (*gpu_pci_address)(const struct p2psim *p, unsigned i,
                           unsigned *domain, unsigned *bus, unsigned *device,
                           unsigned *function);
    int (*gpu_pci_ids)(const struct p2psim *p, unsigned i,
                       struct p2psim_pci_ids *out);
    int (*path)(const struct p2psim *p, unsigned a, unsigned b,
                struct p2psim_path *out);
    int (*p2p)(const struct p2psim *p, unsigned a, unsigned b,
               struct p2psim_verdict *out);
    unsigned (*gpu_nvlinks)(const struct p2psim *p, unsigned i,
                            struct p2psim_nvlink_end *out, unsigned max);
    int (*nvswitch_pci_address)(const struct p2psim *p, unsigned k,
                                unsigned *domain, unsigned *bus,
                                unsigned *device, unsigned *function);
};

const struct p2psim_drv_machine *p2psim_drv_machine(void);
/* cudaGetDeviceProperties's answer, outside the API trace (NVML's
 * questions are not the program's calls). */
cudaError_t p2psim_drv_device_props(int dev, struct cudaDeviceProp *prop);
/* cudaDeviceGetP2PAttribute's answer, outside the API trace. */
cudaError_t p2psim_drv_peer_attribute(int *value,
                                      enum cudaDeviceP2PAttr attr, int src,
                                      int dst);
/* The bytes of device dev's memory that this process holds, and its
 * size (cudaMemGetInfo's figures for any device, current or not). */
cudaError_t p2psim_drv_mem_info(int dev, uint64_t *used, uint64_t *total);

#if defined(__cplusplus)
}
#endif

#endif /* P2PSIM_CUDA_CUDART_DRV_BRIDGE_H */
