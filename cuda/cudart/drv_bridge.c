/*
 * cuda/cudart/drv_bridge.c - the runtime's side of p2psim's driver API
 * (drv_bridge.h): modules from PTX text or a fat binary, registered in
 * registry.c's table as nvcc's are (and the JIT linker's PTX units,
 * linked by ptx/ptx_link.h), so that cuLaunchKernel is a
 * cudaLaunchKernel of the same machinery; and the mappings of the
 * virtual memory management API, which are allocations of the table
 * (RT_ALLOC_VMM) at an address of the driver's reservation.
 *
 * A module of the driver is a registry module whose PTX is parsed here at
 * load (m->ptx set, so launch.c never looks for it in a fat binary); its
 * fat binary wrapper points at an empty container.
 */
#include <config.h>

#include "cuda/cudart/drv_bridge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/launch_int.h"
#include "cuda/cudart/memory.h"
#include "ptx/ptx_link.h"

/* ---- modules --------------------------------------------------------------- */

/* The wrapper of every driver module: its PTX is already parsed. */
static const unsigned long long empty_container[2] = {
    P2PSIM_FATBIN_CONTAINER_MAGIC | (UINT64_C(1) << 32) | (UINT64_C(16) << 48),
    0,
};
static const struct p2psim_fatbin_wrapper drv_wrapper = {
    P2PSIM_FATBIN_WRAPPER_MAGIC, P2PSIM_FATBIN_WRAPPER_VERSION,
    empty_container, NULL,
};

/* The PTX text of image (size bytes, 0: unknown): 0, or an error with
 * err. */
static cudaError_t image_ptx(const void *image, size_t size, char **text,
                             size_t *len, struct ptx_error *err)
{
    const unsigned char *b = image;
    uint32_t magic = 0;
    if (!size || size >= sizeof(magic)) {
        memcpy(&magic, b, sizeof(magic));
    }
    unsigned arch = rt_device_arch(rt_current_device());
    int rc;
    if (magic == P2PSIM_FATBIN_WRAPPER_MAGIC) {
        rc = ptx_fatbin_extract(image, arch, text, len, err);
    } else if (magic == P2PSIM_FATBIN_CONTAINER_MAGIC && size) {
        rc = ptx_fatbin_extract_data(image, size, arch, text, len, err);
    } else if (magic == P2PSIM_FATBIN_CONTAINER_MAGIC) {
        struct p2psim_fatbin_wrapper w = {
            P2PSIM_FATBIN_WRAPPER_MAGIC, P2PSIM_FATBIN_WRAPPER_VERSION,
            image, NULL,
        };
        rc = ptx_fatbin_extract(&w, arch, text, len, err);
    } else if (b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F') {
        snprintf(err->msg, sizeof(err->msg),
                 "a cubin (ELF) holds only machine code, which p2psim "
                 "cannot run; load PTX (nvcc -ptx) or a fat binary with "
                 "PTX in it (nvcc -fatbin -gencode ...,code=compute_XX)");
        return cudaErrorNoKernelImageForDevice;
    } else {
        *len = size ? strnlen(image, size) : strlen(image);
        *text = strndup(image, *len);
        if (!*text) {
            return cudaErrorMemoryAllocation;
        }
        return cudaSuccess;
    }
    if (rc == PTX_ENOMEM) {
        return cudaErrorMemoryAllocation;
    }
    if (rc == PTX_ENOPTX) {
        return cudaErrorNoKernelImageForDevice;
    }
    return rc ? cudaErrorInvalidKernelImage : cudaSuccess;
}

/* The PTX text of image and its parsed module: 0, or an error with msg. */
static cudaError_t image_module(const void *image, size_t size, char **text,
                                size_t *len, struct ptx_module **mod,
                                char *msg, size_t msg_size)
{
    struct ptx_error err;
    memset(&err, 0, sizeof(err));
    *text = NULL;
    *mod = NULL;
    cudaError_t e = image_ptx(image, size, text, len, &err);
    if (!e) {
        *mod = ptx_module_parse(*text, *len, &err);
        if (!*mod) {
            e = err.code == PTX_ENOMEM ? cudaErrorMemoryAllocation
                                       : cudaErrorInvalidPtx;
        }
    }
    if (e) {
        free(*text);
        *text = NULL;
        if (msg && msg_size) {
            snprintf(msg, msg_size, "%s", err.msg[0] ? err.msg
                                                     : "not a module");
        }
    }
    return e;
}

cudaError_t p2psim_drv_module_load(const void *image, void ***handle,
                                   char *msg, size_t msg_size)
{
    char *text = NULL;
    size_t len = 0;
    struct ptx_module *mod = NULL;
    if (!image || !handle) {
        return cudaErrorInvalidValue;
    }
    cudaError_t e = image_module(image, 0, &text, &len, &mod, msg, msg_size);
    if (e) {
        return e;
    }
    void **h = __cudaRegisterFatBinary((void *)&drv_wrapper);
    if (!h) {
        ptx_module_free(mod);
        free(text);
        return cudaErrorMemoryAllocation;
    }
    pthread_mutex_lock(&reg_lock);
    struct cudart_module *m = (struct cudart_module *)h;
    m->ptx = mod;
    m->text = text;             /* for a machine in another process */
    m->text_len = len;
    m->complete = true;
    pthread_mutex_unlock(&reg_lock);
    *handle = h;
    return cudaSuccess;
}

cudaError_t p2psim_drv_image_ptx(const void *image, size_t size, char **text,
                                 size_t *len, char *msg, size_t msg_size)
{
    struct ptx_module *mod = NULL;
    size_t n = 0;
    if (!image || !text) {
        return cudaErrorInvalidValue;
    }
    cudaError_t e = image_module(image, size, text, &n, &mod, msg, msg_size);
    ptx_module_free(mod);
    if (!e && len) {
        *len = n;
    }
    return e;
}

cudaError_t p2psim_drv_link(const char *const *units, unsigned n,
                            char **text, size_t *len, char *msg,
                            size_t msg_size)
{
    struct ptx_error err;
    memset(&err, 0, sizeof(err));
    size_t n_text = 0;
    *text = NULL;
    int rc = ptx_link_all(units, n, text, &n_text, &err);
    cudaError_t e = rc == 0 ? cudaSuccess
                    : rc == PTX_ENOMEM ? cudaErrorMemoryAllocation
                    : rc == PTX_EPARSE ? cudaErrorInvalidPtx
                                       : cudaErrorInvalidKernelImage;
    if (!e) {
        /* the linked module must read as one, as its load will */
        struct ptx_module *mod = ptx_module_parse(*text, n_text, &err);
        e = mod ? cudaSuccess
            : err.code == PTX_ENOMEM ? cudaErrorMemoryAllocation
                                     : cudaErrorInvalidPtx;
        ptx_module_free(mod);
    }
    if (e) {
        free(*text);
        *text = NULL;
        if (msg && msg_size) {
            snprintf(msg, msg_size, "%s", err.msg[0] ? err.msg
                                                     : "cannot link");
        }
    } else if (len) {
        *len = n_text;
    }
    return e;
}

void p2psim_drv_module_unload(void **handle)
{
    __cudaUnregisterFatBinary(handle);
}

int p2psim_drv_module_has_kernel(void **handle, const char *name)
{
    pthread_mutex_lock(&reg_lock);
    const struct cudart_module *m = (const struct cudart_module *)handle;
    int has = m->ptx && name && ptx_module_find(m->ptx, name) != NULL;
    pthread_mutex_unlock(&reg_lock);
    return has;
}

cudaError_t p2psim_drv_module_global(void **handle, const char *name,
                                     uintptr_t *addr, size_t *bytes)
{
    cudaError_t e = rt_enter();
    if (e) {
        return e;
    }
    int dev = rt_current_device();
    e = rt_device_init(dev);
    pthread_mutex_lock(&reg_lock);
    struct cudart_module *m = (struct cudart_module *)handle;
    unsigned n = m->ptx ? ptx_module_var_count(m->ptx) : 0, i = 0;
    while (i < n && (!name || strcmp(ptx_module_var(m->ptx, i)->name,
                                     name) != 0)) {
        i++;
    }
    if (!e && i == n) {
        e = cudaErrorInvalidSymbol;
    }
    const uint64_t *va = NULL;
    unsigned n_vars = 0;
    if (!e) {
        e = rt_module_vars(m, m->ptx, (unsigned)dev, &va, &n_vars);
    }
    if (!e) {
        *addr = (uintptr_t)va[i];
        *bytes = (size_t)ptx_module_var(m->ptx, i)->size_bytes;
    }
    pthread_mutex_unlock(&reg_lock);
    rt_leave();
    return e;
}

int p2psim_drv_runtime_started(void)
{
    return rt.ready;
}

void p2psim_drv_range(uintptr_t ptr, int *kind, uintptr_t *base,
                      size_t *size, int *dev)
{
    *kind = 0;
    *base = 0;
    *size = 0;
    *dev = -1;
    if (rt_enter_nosticky()) {
        return;
    }
    struct rt_ptr r;
    rt_ptr_find((const void *)ptr, &r);
    if (r.where != RT_WHERE_PAGEABLE) {
        *kind = r.where == RT_WHERE_DEVICE ? 1
                : r.where == RT_WHERE_HOST ? 2 : 3;
        *base = r.alloc->base;
        *size = (size_t)r.alloc->size;
        *dev = r.alloc->device;
    }
    rt_leave();
}

cudaError_t p2psim_drv_kernel_params(const void *fn, unsigned max,
                                     size_t *offsets, unsigned *n,
                                     size_t *total)
{
    cudaError_t e = cudaErrorInvalidDeviceFunction;
    pthread_mutex_lock(&reg_lock);
    const struct CUkern_st *k = fn ? reg_kernel_of_stub(fn) : NULL;
    struct ptx_module *mod = k && k->module ? rt_module_ptx(k->module)
                                            : NULL;
    const struct ptx_kernel *pk = mod && k->name
                                      ? ptx_module_find(mod, k->name) : NULL;
    if (k && k->module && !mod) {
        e = k->module->ptx_err.code == PTX_ENOMEM ? cudaErrorMemoryAllocation
                                                   : cudaErrorInvalidPtx;
        fprintf(stderr, "p2psim: kernel %s not run: %s\n",
                k->name ? k->name : "(unnamed)", k->module->ptx_err.msg);
    }
    if (pk) {
        const struct ptx_kernel_info *info = ptx_kernel_get_info(pk);
        *n = info->n_params;
        *total = info->param_bytes;
        for (unsigned i = 0; i < info->n_params && i < max; i++) {
            offsets[i] = info->params[i].offset_bytes;
        }
        e = cudaSuccess;
    }
    pthread_mutex_unlock(&reg_lock);
    return e;
}

int p2psim_drv_device_active(int dev)
{
    if (rt_enter_nosticky()) {
        return 0;
    }
    int active = rt_device_valid(dev) && rt.dev[dev].initialized;
    rt_leave();
    return active;
}

/* ---- the virtual memory management API -------------------------------------- */

cudaError_t p2psim_drv_phys_alloc(int gpu, uint64_t size, uint64_t *off)
{
    cudaError_t e = rt_enter();
    if (e) {
        return e;
    }
    e = rt_device_valid(gpu) ? rt_window_reserve(gpu, size, off)
                             : cudaErrorInvalidDevice;
    rt_leave();
    return e;
}

void p2psim_drv_phys_free(int gpu, uint64_t off, uint64_t size)
{
    if (rt_enter_nosticky()) {
        return;
    }
    if (rt_device_valid(gpu)) {
        rt_window_release(gpu, off, size);
    }
    rt_leave();
}

cudaError_t p2psim_drv_map(uintptr_t va, uint64_t size, int gpu,
                           uint64_t off)
{
    cudaError_t e = rt_enter();
    if (e) {
        return e;
    }
    struct rt_alloc *a = calloc(1, sizeof(*a));
    if (!rt_device_valid(gpu)) {
        e = cudaErrorInvalidDevice;
    } else if (!a) {
        e = cudaErrorMemoryAllocation;
    } else {
        a->kind = RT_MEM_DEVICE;
        a->base = va;
        a->size = size;
        a->device = gpu;
        a->flags = RT_ALLOC_VMM;
        a->bus = off;
        e = rt_alloc_insert(a);
    }
    if (e) {
        free(a);
    }
    rt_leave();
    return e;
}

/* The mapping that starts at va (lock held), or NULL. */
static struct rt_alloc *mapping_at(uintptr_t va)
{
    struct rt_alloc *a = rt_alloc_at((const void *)va);
    return a && (a->flags & RT_ALLOC_VMM) ? a : NULL;
}

cudaError_t p2psim_drv_unmap(uintptr_t va)
{
    cudaError_t e = rt_enter_nosticky();
    if (e) {
        return e;
    }
    struct rt_alloc *a = mapping_at(va);
    if (a) {
        rt_alloc_remove(a);
        free(a);
    }
    rt_leave();
    return a ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t p2psim_drv_map_access(uintptr_t va, int dev, int access)
{
    cudaError_t e = rt_enter();
    if (e) {
        return e;
    }
    struct rt_alloc *a = mapping_at(va);
    if (!a || !rt_device_valid(dev) || dev >= 64) {
        e = a ? cudaErrorInvalidDevice : cudaErrorInvalidValue;
    } else if (access) {
        a->vmm_access |= UINT64_C(1) << dev;
    } else {
        a->vmm_access &= ~(UINT64_C(1) << dev);
    }
    rt_leave();
    return e;
}

/* ---- NVML's view of the machine --------------------------------------------- */

static const struct p2psim_drv_machine *machine_table(void)
{
    static struct p2psim_drv_machine t = {
        .gpu_count = p2psim_gpu_count,
        .gpu_id = p2psim_gpu_id,
        .gpu_describe = p2psim_gpu_describe,
        .gpu_socket = p2psim_gpu_socket,
        .gpu_link = p2psim_gpu_link,
        .gpu_pci_address = p2psim_gpu_pci_address,
        .gpu_pci_ids = p2psim_gpu_pci_ids,
        .path = p2psim_path,
        .p2p = p2psim_p2p,
        .gpu_nvlinks = p2psim_gpu_nvlinks,
        .nvswitch_pci_address = p2psim_nvswitch_pci_address,
    };
    t.p = rt.p;
    return &t;
}

const struct p2psim_drv_machine *p2psim_drv_machine(void)
{
    if (rt_enter_nosticky()) {
        return NULL;
    }
    const struct p2psim_drv_machine *t = machine_table();
    rt_leave();
    return t;
}

/* Enter the runtime for a question about device dev: 0 with the lock
 * held, or the error (the lock not held). */
static cudaError_t enter_device(int dev)
{
    cudaError_t e = rt_enter_nosticky();
    if (e == cudaSuccess && !rt_device_valid(dev)) {
        rt_leave();
        e = cudaErrorInvalidDevice;
    }
    return e;
}

cudaError_t p2psim_drv_device_props(int dev, struct cudaDeviceProp *prop)
{
    cudaError_t e = enter_device(dev);
    if (e == cudaSuccess) {
        rt_device_props(dev, prop);
        rt_leave();
    }
    return e;
}

cudaError_t p2psim_drv_peer_attribute(int *value,
                                      enum cudaDeviceP2PAttr attr, int src,
                                      int dst)
{
    cudaError_t e = rt_enter_nosticky();
    if (e == cudaSuccess) {
        e = rt_p2p_attribute(value, attr, src, dst);
        rt_leave();
    }
    return e;
}

cudaError_t p2psim_drv_mem_info(int dev, uint64_t *used, uint64_t *total)
{
    cudaError_t e = enter_device(dev);
    if (e == cudaSuccess) {
        *total = p2psim_hbm_size(rt.p, (unsigned)dev);
        *used = rt.dev[dev].mem_used;
        rt_leave();
    }
    return e;
}
