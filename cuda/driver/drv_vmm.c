/*
 * cuda/driver/drv_vmm.c - the virtual memory management API of p2psim's
 * driver: physical memory (cuMemCreate: bytes of a GPU's HBM in the
 * machine's HBM space), address reservations (cuMemAddressReserve: host
 * address space reserved with mmap(PROT_NONE), so no other allocation
 * lands there) and mappings (cuMemMap: a range of a reservation made
 * device memory of that GPU for copies and kernels, drv_bridge.h).
 *
 * Sharing. cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR) writes a
 * small record (GPU, HBM offset, size, the exporter's p2psim server) into
 * a memfd and hands out its descriptor; a process that receives it (over
 * a UNIX socket, as memMapIPCDrv does) imports the record. That works
 * between processes of one `p2psim run`, whose machine is one p2psim
 * server with one HBM space (P2PSIM_SERVER): a record of another server,
 * or of another process without one, is refused.
 *
 * A copy or memset over several mappings is one call of the runtime per
 * mapping (drv_vmm_run): the runtime's allocations are its mappings.
 *
 * Compression. allocFlags.compressionType CU_MEM_ALLOCATION_COMP_GENERIC
 * gives compressible memory on a GPU with generic compression (its
 * catalog's `compression`: A100 and later) and ordinary memory elsewhere,
 * as CUDA's driver does; cuMemGetAllocationPropertiesFromHandle says
 * which (an exported handle carries it). Compressible memory holds and
 * moves its bytes as any other: compression changes no timing here.
 *
 * Model: the physical memory is freed when its creating process releases
 * its last handle and mapping, whatever other processes still map;
 * access flags grant a device access or not (read-only is read-write);
 * the granularity is 2 MiB, compressible or not, also for host memory,
 * whose cuMemCreate (CU_MEM_LOCATION_TYPE_HOST*) is not served
 * (CUDA_ERROR_NOT_SUPPORTED, as a driver without host VMM says). Caps: DRV_VMM_MAX_DEVICES devices per access
 * mask.
 */
#define _GNU_SOURCE /* memfd_create */
#include <config.h>

#include "cuda/driver/drv_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DRV_VMM_GRANULARITY (UINT64_C(2) << 20)
#define DRV_VMM_MAX_DEVICES 64
#define VMM_RECORD_MAGIC UINT64_C(0x50325053494d564d)  /* "P2PSIMVM" */

/* Physical memory: a CUmemGenericAllocationHandle points at one. */
struct vmm_phys {
    uint64_t magic;
    int gpu;
    uint64_t off, size;
    unsigned refs;              /* handles + mappings */
    bool imported;              /* another process's: never freed here */
    unsigned handle_types;      /* requestedHandleTypes */
    unsigned char comp_type;    /* CUmemAllocationCompType granted */
    struct vmm_phys *next;
};

struct vmm_range {
    uintptr_t va;
    uint64_t size;
    struct vmm_phys *phys;      /* mappings only */
    uint64_t access;            /* mappings: devices granted (bit d) */
    struct vmm_range *next;
};

/* The record of an exported handle (the memfd's content). */
struct vmm_record {
    uint64_t magic;
    int32_t gpu;
    int32_t pid;
    uint64_t off, size;
    unsigned char comp_type;
    char server[256];           /* P2PSIM_SERVER of the exporter, or "" */
};

static pthread_mutex_t vmm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vmm_phys *physs;
static struct vmm_range *reservations, *mappings;

#define PHYS_MAGIC UINT64_C(0x7068797370327073)

/* The physical memory a handle names (vmm_lock held), or NULL. */
static struct vmm_phys *phys_of(CUmemGenericAllocationHandle h)
{
    for (struct vmm_phys *p = physs; p; p = p->next) {
        if ((uintptr_t)p == (uintptr_t)h) {
            return p;
        }
    }
    return NULL;
}

/* Drop a reference (vmm_lock held); the last frees it. */
static void phys_put(struct vmm_phys *p)
{
    if (--p->refs) {
        return;
    }
    struct vmm_phys **pp = &physs;
    while (*pp != p) {
        pp = &(*pp)->next;
    }
    *pp = p->next;
    if (!p->imported) {
        p2psim_drv_phys_free(p->gpu, p->off, p->size);
    }
    free(p);
}

static bool host_location(CUmemLocationType t)
{
    return t == CU_MEM_LOCATION_TYPE_HOST ||
           t == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
           t == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
}

/* A property CUDA takes: device memory of a GPU of the machine, or host
 * memory (host_location; a NUMA node id is not checked). */
static CUresult check_prop(const CUmemAllocationProp *prop)
{
    int n = 0;
    if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
        (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE &&
         !host_location(prop->location.type)) ||
        prop->allocFlags.compressionType > CU_MEM_ALLOCATION_COMP_GENERIC) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (host_location(prop->location.type)) {
        return CUDA_SUCCESS;
    }
    CUresult r = cuDeviceGetCount(&n);
    if (!r && (prop->location.id < 0 || prop->location.id >= n)) {
        r = CUDA_ERROR_INVALID_DEVICE;
    }
    return r;
}

CUresult cuMemGetAllocationGranularity(size_t *granularity,
                                       const CUmemAllocationProp *prop,
                                       CUmemAllocationGranularity_flags option)
{
    DRV_READY();
    if (!granularity || option > CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = check_prop(prop);
    if (!r) {
        *granularity = (size_t)DRV_VMM_GRANULARITY;
    }
    return r;
}

static CUresult phys_add(int gpu, uint64_t off, uint64_t size, bool imported,
                         unsigned types, unsigned char comp_type,
                         CUmemGenericAllocationHandle *h)
{
    struct vmm_phys *p = calloc(1, sizeof(*p));
    if (!p) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    p->magic = PHYS_MAGIC;
    p->gpu = gpu;
    p->off = off;
    p->size = size;
    p->refs = 1;
    p->imported = imported;
    p->handle_types = types;
    p->comp_type = comp_type;
    pthread_mutex_lock(&vmm_lock);
    p->next = physs;
    physs = p;
    pthread_mutex_unlock(&vmm_lock);
    *h = (CUmemGenericAllocationHandle)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                     const CUmemAllocationProp *prop,
                     unsigned long long flags)
{
    uint64_t off;
    DRV_READY();
    if (!handle || !size || size % DRV_VMM_GRANULARITY || flags) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = check_prop(prop);
    if (r) {
        return r;
    }
    if (host_location(prop->location.type)) {
        /* as a GPU whose CU_DEVICE_ATTRIBUTE_HOST_(NUMA_)VIRTUAL_MEMORY_
         * MANAGEMENT_SUPPORTED is 0 answers */
        static atomic_flag said = ATOMIC_FLAG_INIT;
        if (!atomic_flag_test_and_set(&said)) {
            fprintf(stderr, "p2psim: cuMemCreate: host memory (location "
                    "type %d) is not served: CUDA_ERROR_NOT_SUPPORTED\n",
                    (int)prop->location.type);
        }
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    if (prop->requestedHandleTypes &
        ~(unsigned)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        return CUDA_ERROR_NOT_SUPPORTED;    /* Windows, fabric */
    }
    /* compressible where the GPU has generic compression, else not */
    int comp = 0;
    if (prop->allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC) {
        r = cuDeviceGetAttribute(
            &comp, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED,
            prop->location.id);
        if (r) {
            return r;
        }
    }
    r = drv_result(p2psim_drv_phys_alloc(prop->location.id, size, &off));
    if (r) {
        return r;
    }
    r = phys_add(prop->location.id, off, size, false,
                 prop->requestedHandleTypes,
                 comp ? CU_MEM_ALLOCATION_COMP_GENERIC
                      : CU_MEM_ALLOCATION_COMP_NONE,
                 handle);
    if (r) {
        p2psim_drv_phys_free(prop->location.id, off, size);
    }
    return r;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    DRV_READY();
    pthread_mutex_lock(&vmm_lock);
    struct vmm_phys *p = phys_of(handle);
    if (p) {
        phys_put(p);
    }
    pthread_mutex_unlock(&vmm_lock);
    return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemGetAllocationPropertiesFromHandle(
    CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle)
{
    DRV_READY();
    if (!prop) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&vmm_lock);
    struct vmm_phys *p = phys_of(handle);
    if (p) {
        memset(prop, 0, sizeof(*prop));
        prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop->location.id = p->gpu;
        prop->requestedHandleTypes =
            (CUmemAllocationHandleType)p->handle_types;
        prop->allocFlags.compressionType = p->comp_type;
    }
    pthread_mutex_unlock(&vmm_lock);
    return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* ---- reservations and mappings ------------------------------------------------ */

/* The range of list holding [va, va + size), or NULL (vmm_lock held). */
static struct vmm_range *range_holding(struct vmm_range *list, uintptr_t va,
                                       uint64_t size)
{
    for (struct vmm_range *r = list; r; r = r->next) {
        if (va >= r->va && size <= r->size && va - r->va <= r->size - size) {
            return r;
        }
    }
    return NULL;
}

CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                             CUdeviceptr addr, unsigned long long flags)
{
    DRV_READY();
    uint64_t align = alignment ? alignment : DRV_VMM_GRANULARITY;
    if (!ptr || !size || size % DRV_VMM_GRANULARITY ||
        (align & (align - 1)) || flags) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (align < DRV_VMM_GRANULARITY) {
        align = DRV_VMM_GRANULARITY;
    }
    struct vmm_range *r = calloc(1, sizeof(*r));
    if (!r || size > SIZE_MAX - align) {
        free(r);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    /* Over-reserve, then keep the aligned part (addr is only a hint). */
    size_t len = size + align;
    uint8_t *m = mmap((void *)(uintptr_t)addr, len, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        free(r);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    uintptr_t base = ((uintptr_t)m + align - 1) & ~(uintptr_t)(align - 1);
    if (base > (uintptr_t)m) {
        munmap(m, base - (uintptr_t)m);
    }
    if ((uintptr_t)m + len > base + size) {
        munmap((void *)(base + size), (uintptr_t)m + len - (base + size));
    }
    r->va = base;
    r->size = size;
    pthread_mutex_lock(&vmm_lock);
    r->next = reservations;
    reservations = r;
    pthread_mutex_unlock(&vmm_lock);
    *ptr = base;
    return CUDA_SUCCESS;
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    DRV_READY();
    pthread_mutex_lock(&vmm_lock);
    struct vmm_range **pr = &reservations;
    while (*pr && !((*pr)->va == ptr && (*pr)->size == size)) {
        pr = &(*pr)->next;
    }
    struct vmm_range *r = *pr;
    bool mapped = r && range_holding(mappings, ptr, 0) != NULL;
    for (struct vmm_range *m = mappings; r && m && !mapped; m = m->next) {
        mapped = m->va >= r->va && m->va - r->va < r->size;
    }
    if (r && !mapped) {
        *pr = r->next;
    }
    pthread_mutex_unlock(&vmm_lock);
    if (!r || mapped) {
        /* CUDA: a reservation must be freed whole, after its unmaps */
        return CUDA_ERROR_INVALID_VALUE;
    }
    munmap((void *)r->va, r->size);
    free(r);
    return CUDA_SUCCESS;
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                  CUmemGenericAllocationHandle handle,
                  unsigned long long flags)
{
    DRV_READY();
    if (!size || flags || ptr % DRV_VMM_GRANULARITY ||
        size % DRV_VMM_GRANULARITY || offset % DRV_VMM_GRANULARITY) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct vmm_range *m = calloc(1, sizeof(*m));
    if (!m) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&vmm_lock);
    struct vmm_phys *p = phys_of(handle);
    CUresult r = CUDA_SUCCESS;
    if (!p || offset > p->size || size > p->size - offset ||
        !range_holding(reservations, ptr, size)) {
        r = CUDA_ERROR_INVALID_VALUE;
    }
    for (struct vmm_range *o = mappings; !r && o; o = o->next) {
        if (o->va < ptr + size && ptr < o->va + o->size) {
            r = CUDA_ERROR_ALREADY_MAPPED;
        }
    }
    if (!r) {
        r = drv_result(p2psim_drv_map(ptr, size, p->gpu, p->off + offset));
    }
    if (!r) {
        p->refs++;
        m->va = ptr;
        m->size = size;
        m->phys = p;
        m->next = mappings;
        mappings = m;
        m = NULL;
    }
    pthread_mutex_unlock(&vmm_lock);
    free(m);
    return r;
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    DRV_READY();
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&vmm_lock);
    for (struct vmm_range **pm = &mappings; *pm;) {
        struct vmm_range *m = *pm;
        if (m->va >= ptr && m->va - ptr < size) {
            *pm = m->next;
            p2psim_drv_unmap(m->va);
            phys_put(m->phys);
            free(m);
            r = CUDA_SUCCESS;
        } else {
            pm = &m->next;
        }
    }
    pthread_mutex_unlock(&vmm_lock);
    return r;
}

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size,
                        const CUmemAccessDesc *desc, size_t count)
{
    DRV_READY();
    if (!desc || !count) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = CUDA_SUCCESS;
    bool any = false;
    pthread_mutex_lock(&vmm_lock);
    for (struct vmm_range *m = mappings; m && !r; m = m->next) {
        if (!(m->va >= ptr && m->va - ptr < size)) {
            continue;
        }
        any = true;
        for (size_t i = 0; i < count && !r; i++) {
            if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
                desc[i].location.id < 0 ||
                desc[i].location.id >= DRV_VMM_MAX_DEVICES) {
                r = CUDA_ERROR_INVALID_VALUE;
                break;
            }
            bool on = desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE;
            r = drv_result(p2psim_drv_map_access(m->va, desc[i].location.id,
                                                 on));
            uint64_t bit = UINT64_C(1) << desc[i].location.id;
            m->access = on ? m->access | bit : m->access & ~bit;
        }
    }
    pthread_mutex_unlock(&vmm_lock);
    return r ? r : any ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemGetAccess(unsigned long long *flags,
                        const CUmemLocation *location, CUdeviceptr ptr)
{
    DRV_READY();
    if (!flags || !location ||
        location->type != CU_MEM_LOCATION_TYPE_DEVICE) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&vmm_lock);
    struct vmm_range *m = range_holding(mappings, ptr, 1);
    bool can = m && location->id >= 0 &&
               location->id < DRV_VMM_MAX_DEVICES &&
               (m->access >> location->id & 1);
    pthread_mutex_unlock(&vmm_lock);
    if (!m) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *flags = can ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
                 : CU_MEM_ACCESS_FLAGS_PROT_NONE;
    return CUDA_SUCCESS;
}

CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle,
                                     void *addr)
{
    DRV_READY();
    if (!handle) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&vmm_lock);
    struct vmm_range *m = range_holding(mappings, (uintptr_t)addr, 1);
    if (m) {
        m->phys->refs++;
        *handle = (CUmemGenericAllocationHandle)(uintptr_t)m->phys;
    }
    pthread_mutex_unlock(&vmm_lock);
    return m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

size_t drv_vmm_run(uintptr_t p, size_t n)
{
    pthread_mutex_lock(&vmm_lock);
    struct vmm_range *m = range_holding(mappings, p, 1);
    size_t run = n;
    if (m && m->va + m->size - p < n) {
        run = (size_t)(m->va + m->size - p);
    }
    pthread_mutex_unlock(&vmm_lock);
    return run;
}

/* ---- sharing ----------------------------------------------------------------- */

static const char *server_path(void)
{
    const char *s = getenv("P2PSIM_SERVER");
    return s ? s : "";
}

CUresult cuMemExportToShareableHandle(void *shareableHandle,
                                      CUmemGenericAllocationHandle handle,
                                      CUmemAllocationHandleType handleType,
                                      unsigned long long flags)
{
    struct vmm_record rec;
    DRV_READY();
    if (!shareableHandle || flags) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    memset(&rec, 0, sizeof(rec));
    pthread_mutex_lock(&vmm_lock);
    struct vmm_phys *p = phys_of(handle);
    bool allowed = p && (p->handle_types & handleType);
    if (p) {
        rec.magic = VMM_RECORD_MAGIC;
        rec.gpu = p->gpu;
        rec.off = p->off;
        rec.size = p->size;
        rec.comp_type = p->comp_type;
    }
    pthread_mutex_unlock(&vmm_lock);
    if (!p || !allowed) {
        /* CUDA: the type must have been asked for at cuMemCreate */
        return p ? CUDA_ERROR_NOT_PERMITTED : CUDA_ERROR_INVALID_VALUE;
    }
    rec.pid = (int32_t)getpid();
    snprintf(rec.server, sizeof(rec.server), "%s", server_path());
    int fd = memfd_create("p2psim-vmm", MFD_CLOEXEC);
    if (fd < 0) {
        return CUDA_ERROR_OPERATING_SYSTEM;
    }
    if (pwrite(fd, &rec, sizeof(rec), 0) != (ssize_t)sizeof(rec)) {
        close(fd);
        return CUDA_ERROR_OPERATING_SYSTEM;
    }
    *(int *)shareableHandle = fd;
    return CUDA_SUCCESS;
}

CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
                                        void *osHandle,
                                        CUmemAllocationHandleType shHandleType)
{
    struct vmm_record rec;
    DRV_READY();
    if (!handle) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    int fd = (int)(intptr_t)osHandle;
    if (pread(fd, &rec, sizeof(rec), 0) != (ssize_t)sizeof(rec) ||
        rec.magic != VMM_RECORD_MAGIC) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    rec.server[sizeof(rec.server) - 1] = '\0';
    bool same_process = rec.pid == (int32_t)getpid();
    if (!same_process &&
        (!rec.server[0] || strcmp(rec.server, server_path()) != 0)) {
        fprintf(stderr, "p2psim: cuMemImportFromShareableHandle: the handle "
                "is memory of another simulated machine (process %d); "
                "processes share one only under one `p2psim run`\n",
                (int)rec.pid);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    int n = 0;
    CUresult r = cuDeviceGetCount(&n);
    if (!r && (rec.gpu < 0 || rec.gpu >= n)) {
        r = CUDA_ERROR_INVALID_VALUE;
    }
    /* Imported: the memory stays the exporter's to free. */
    return r ? r : phys_add(rec.gpu, rec.off, rec.size, true,
                            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                            rec.comp_type, handle);
}
