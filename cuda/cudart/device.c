/*
 * cuda/cudart/device.c - devices: how many, which one is current, their
 * flags, cudaGetDeviceProperties and cudaDeviceGetAttribute (the values
 * are device_props.c's), where they sit on PCI, limits, memory left,
 * versions, reset, driver entry points, and a device's first use
 * (rt_device_init).
 *
 * Not modelled: contexts cost no memory (cudaMemGetInfo reports all of the
 * HBM free on a fresh device), and cudaSetValidDevices only validates its
 * list.
 */
#include <config.h>

#include "cuda/cudart/rt.h"
#include "cuda/include/p2psim_cudart_internal.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/memory.h"


/* ---- first use, limits --------------------------------------------------- */

/*
 * Limits a fresh context has: 1 KiB of stack per thread, a 1 MiB printf
 * FIFO and an 8 MiB malloc heap (what cudaDeviceGetLimit reports on a
 * fresh context of recent GPUs [recalled]; the heap's 8 MiB is documented
 * in the CUDA C++ Programming Guide, "Dynamic Global Memory Allocation");
 * sync depth 2 and 2048 pending launches are the device runtime's defaults
 * (CUDA C++ Programming Guide, "Dynamic Parallelism"); L2 fetch
 * granularity 32 B is [estimate]; nothing is set aside for persisting L2
 * accesses until the program asks.
 */
static void limits_reset(struct rt_device *d)
{
    memset(d->limits, 0, sizeof(d->limits));
    d->limits[cudaLimitStackSize] = 1024;
    d->limits[cudaLimitPrintfFifoSize] = 1u << 20;
    d->limits[cudaLimitMallocHeapSize] = 8u << 20;
    d->limits[cudaLimitDevRuntimeSyncDepth] = 2;
    d->limits[cudaLimitDevRuntimePendingLaunchCount] = 2048;
    d->limits[cudaLimitMaxL2FetchGranularity] = 32;
    d->limits[cudaLimitPersistingL2CacheSize] = 0;
}

cudaError_t rt_device_init(int dev)
{
    struct rt_device *d;

    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    d = &rt.dev[dev];
    if (!d->peer_enabled) {
        d->peer_enabled = calloc(rt.n_dev, sizeof(*d->peer_enabled));
        if (!d->peer_enabled) {
            return cudaErrorMemoryAllocation;
        }
    }
    if (!d->legacy) {
        d->legacy = rt_stream_new_legacy(dev);
        if (!d->legacy) {
            return cudaErrorMemoryAllocation;
        }
    }
    if (!d->initialized) {
        limits_reset(d);
        d->initialized = true;
    }
    return cudaSuccess;
}

/* ---- the calls ----------------------------------------------------------- */

static cudaError_t get_device_count(int *count)
{
    if (!count) {
        return cudaErrorInvalidValue;
    }
    *count = (int)rt.n_dev;
    return rt.n_dev ? cudaSuccess : cudaErrorNoDevice;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    cudaError_t e = rt_enter();
    if (e) {
        /* A runtime that cannot start has no devices (the real runtime
         * without a driver writes 0 and returns 35). */
        if (count) {
            *count = 0;
        }
        return cudart_error_return(e);
    }
    rt_charge(rt_costs[RT_COST_CALL]);
    e = get_device_count(count);
    rt_leave();
    return cudart_error_return(e);
}

static cudaError_t set_device(int dev)
{
    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    /* CUDA 12+: cudaSetDevice creates the primary context. */
    cudaError_t e = rt_device_init(dev);
    if (e) {
        return e;
    }
    rt_self()->device = dev;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    SERVE(set_device(device));
}

static cudaError_t get_device(int *dev)
{
    if (!dev) {
        return cudaErrorInvalidValue;
    }
    *dev = rt_current_device();
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    SERVE(get_device(device));
}

/* cudaDeviceSchedule* (one of them at most) and behaviour bits. */
static bool device_flags_valid(unsigned flags)
{
    unsigned sched = flags & cudaDeviceScheduleMask;
    return !(flags & ~(unsigned)cudaDeviceMask) &&
           (sched == cudaDeviceScheduleAuto ||
            sched == cudaDeviceScheduleSpin ||
            sched == cudaDeviceScheduleYield ||
            sched == cudaDeviceScheduleBlockingSync);
}

static cudaError_t init_device(int dev, unsigned dev_flags, unsigned flags)
{
    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    if (flags & ~(unsigned)cudaInitDeviceFlagsAreValid) {
        return cudaErrorInvalidValue;
    }
    if (flags & cudaInitDeviceFlagsAreValid) {
        if (!device_flags_valid(dev_flags)) {
            return cudaErrorInvalidValue;
        }
        rt.dev[dev].flags = dev_flags;
    }
    return rt_device_init(dev);
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags,
                           unsigned int flags)
{
    SERVE(init_device(device, deviceFlags, flags));
}

static cudaError_t set_device_flags(unsigned flags)
{
    if (!device_flags_valid(flags)) {
        return cudaErrorInvalidValue;
    }
    int dev = rt_current_device();
    rt.dev[dev].flags = flags;
    return rt_device_init(dev);
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    SERVE(set_device_flags(flags));
}

static cudaError_t get_device_flags(unsigned *flags)
{
    if (!flags) {
        return cudaErrorInvalidValue;
    }
    /* Model: with unified addressing host memory is always mapped, so
     * cudaDeviceMapHost always reads back set. */
    *flags = rt.dev[rt_current_device()].flags | cudaDeviceMapHost;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    SERVE(get_device_flags(flags));
}

/*
 * Model: every simulated device can take a context, so the list never
 * changes which device a thread ends up on; it is only validated.
 */
static cudaError_t set_valid_devices(const int *devs, int len)
{
    if (len < 0 || (len > 0 && !devs)) {
        return cudaErrorInvalidValue;
    }
    for (int i = 0; i < len; i++) {
        if (!rt_device_valid(devs[i])) {
            return cudaErrorInvalidDevice;
        }
    }
    return cudaSuccess;
}

cudaError_t cudaSetValidDevices(int *deviceArr, int len)
{
    SERVE(set_valid_devices(deviceArr, len));
}

/*
 * The device that meets most of prop's wishes: compute capability at
 * least major.minor, at least totalGlobalMem, at least
 * multiProcessorCount (fields left 0 are met by anyone); ties go to the
 * lowest ordinal. CUDA documents only "best match".
 */
static cudaError_t choose_device(int *out, const struct cudaDeviceProp *want)
{
    int best = 0, best_score = -1;

    if (!out || !want) {
        return cudaErrorInvalidValue;
    }
    for (unsigned d = 0; d < rt.n_dev; d++) {
        struct cudaDeviceProp p;
        rt_device_props((int)d, &p);
        int score = (p.major * 10 + p.minor >= want->major * 10 + want->minor) +
                    (p.totalGlobalMem >= want->totalGlobalMem) +
                    (p.multiProcessorCount >= want->multiProcessorCount);
        if (score > best_score) {
            best = (int)d;
            best_score = score;
        }
    }
    *out = best;
    return cudaSuccess;
}

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    SERVE(choose_device(device, prop));
}

static cudaError_t get_properties(struct cudaDeviceProp *prop, int dev)
{
    if (!prop) {
        return cudaErrorInvalidValue;
    }
    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    rt_device_props(dev, prop);
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    SERVE(get_properties(prop, device));
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr,
                                   int device)
{
    SERVE(rt_device_attribute(value, attr, device));
}

/* ---- PCI bus ids --------------------------------------------------------- */

/*
 * "dddd:bb:dd.f", upper-case hexadecimal as the driver writes it; 13
 * bytes with the NUL, the size the CUDA documentation asks for. A shorter
 * buffer gets the truncated, NUL-terminated string.
 */
static cudaError_t get_pci_bus_id(char *buf, int len, int dev)
{
    unsigned domain, bus, slot, fn;

    if (!buf || len <= 0) {
        return cudaErrorInvalidValue;
    }
    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    p2psim_gpu_pci_address(rt.p, (unsigned)dev, &domain, &bus, &slot, &fn);
    snprintf(buf, (size_t)len, "%04X:%02X:%02X.%X", domain, bus, slot, fn);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    SERVE(get_pci_bus_id(pciBusId, len, device));
}

/* One hexadecimal field of at most max_digits digits ending at a char of
 * ends (or at the end of the string if ends holds '\0'). */
static bool hex_field(const char **s, unsigned max_digits, const char *ends,
                      unsigned *out)
{
    unsigned v = 0, n = 0;
    while (isxdigit((unsigned char)**s) && n < max_digits) {
        int c = tolower((unsigned char)**s);
        v = v * 16 + (unsigned)(isdigit(c) ? c - '0' : c - 'a' + 10);
        (*s)++;
        n++;
    }
    if (n == 0 || !strchr(ends, **s)) {
        return false;
    }
    *out = v;
    return true;
}

/*
 * The forms CUDA accepts (cudaDeviceGetByPCIBusId): "domain:bus:device.
 * function", "domain:bus:device" and "bus:device.function", in
 * hexadecimal of either case; a domain of up to 8 digits (nvidia-smi
 * writes 8).
 */
static bool parse_bus_id(const char *s, unsigned *domain, unsigned *bus,
                         unsigned *slot, unsigned *fn)
{
    unsigned f[4];
    unsigned n = 0;
    const char *p = s;
    char sep = ':';

    while (n < 4) {
        if (!hex_field(&p, 8, ":.", &f[n])) {
            return false;
        }
        n++;
        sep = *p;
        if (!sep) {
            break;
        }
        p++;
        if (sep == '.') {
            if (!hex_field(&p, 1, "", &f[n])) {
                return false;
            }
            n++;
            break;
        }
    }
    if (sep == '.' && n == 4) {          /* domain:bus:device.function */
        *domain = f[0], *bus = f[1], *slot = f[2], *fn = f[3];
    } else if (sep == '.' && n == 3) {   /* bus:device.function */
        *domain = 0, *bus = f[0], *slot = f[1], *fn = f[2];
    } else if (!sep && n == 3) {         /* domain:bus:device */
        *domain = f[0], *bus = f[1], *slot = f[2], *fn = 0;
    } else {
        return false;
    }
    return *bus <= 0xff && *slot <= 0x1f && *fn <= 7;
}

static cudaError_t get_by_pci_bus_id(int *dev, const char *id)
{
    unsigned domain, bus, slot, fn;

    if (!dev || !id || !parse_bus_id(id, &domain, &bus, &slot, &fn)) {
        return cudaErrorInvalidValue;
    }
    for (unsigned d = 0; d < rt.n_dev; d++) {
        unsigned dd, db, ds, df;
        p2psim_gpu_pci_address(rt.p, d, &dd, &db, &ds, &df);
        if (dd == domain && db == bus && ds == slot && df == fn) {
            *dev = (int)d;
            return cudaSuccess;
        }
    }
    return cudaErrorInvalidDevice;
}

cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    SERVE(get_by_pci_bus_id(device, pciBusId));
}

/* ---- synchronization and reset ------------------------------------------- */

cudaError_t cudaDeviceSynchronize(void)
{
    SERVE(rt_device_sync(rt_current_device()));
}

/* ---- the profiler (cuda_profiler_api.h) ----------------------------------- */

/* No profiler is attached to a simulated machine: both calls succeed and
 * change nothing, as on a real GPU run without one; a sticky error is
 * returned as by every call. */
cudaError_t cudaProfilerStart(void)
{
    SERVE(cudaSuccess);
}

cudaError_t cudaProfilerStop(void)
{
    SERVE(cudaSuccess);
}

/*
 * Destroy the current device's context: wait for its work, then free its
 * allocations and streams (memory.c, stream.c), drop the peer access it
 * granted and was granted, and forget its flags and limits. The next use
 * creates a fresh context (rt_device_init). A teardown call: it runs even
 * after a sticky error (which it does not clear; CUDA processes cannot
 * recover from one).
 */
static cudaError_t device_reset(void)
{
    int dev = rt_current_device();
    struct rt_device *d = &rt.dev[dev];

    if (!rt_device_valid(dev)) {
        return cudaErrorInvalidDevice;
    }
    cudaError_t e = rt_device_sync(dev);
    rt_memory_reset_device(dev);
    rt_stream_reset_device(dev);
    for (unsigned o = 0; o < rt.n_dev; o++) {
        if (rt.dev[o].peer_enabled) {
            rt.dev[o].peer_enabled[dev] = false;
        }
        if (d->peer_enabled) {
            d->peer_enabled[o] = false;
        }
    }
    d->flags = 0;
    d->initialized = false;
    /* A sticky error survives; anything else the work reported is
     * consumed by the context's end. */
    return cudart_error_is_sticky(e) ? e : cudaSuccess;
}

cudaError_t cudaDeviceReset(void)
{
    cudaError_t e = rt_enter_nosticky();
    if (e) {
        return cudart_error_return(e);
    }
    rt_charge(rt_costs[RT_COST_CALL]);
    e = device_reset();
    rt_leave();
    return cudart_error_return(e);
}

/* ---- limits -------------------------------------------------------------- */

static bool limit_known(enum cudaLimit limit)
{
    return limit >= cudaLimitStackSize &&
           limit <= cudaLimitPersistingL2CacheSize;
}

static cudaError_t set_limit(enum cudaLimit limit, size_t value)
{
    int dev = rt_current_device();
    struct cudaDeviceProp p;

    if (!limit_known(limit)) {
        return cudaErrorUnsupportedLimit;
    }
    cudaError_t e = rt_device_init(dev);
    if (e) {
        return e;
    }
    switch (limit) {
    case cudaLimitMaxL2FetchGranularity:
        /* A hint in [0, 128] bytes (CUDA Runtime API); kept as a power of
         * two, rounded down, as the driver may clamp it. */
        if (value > 128) {
            return cudaErrorInvalidValue;
        }
        while (value & (value - 1)) {
            value &= value - 1;
        }
        break;
    case cudaLimitPersistingL2CacheSize:
        /* Clamped to what the device can set aside (CUDA Runtime API). */
        rt_device_props(dev, &p);
        if (value > (size_t)p.persistingL2CacheMaxSize) {
            value = (size_t)p.persistingL2CacheMaxSize;
        }
        break;
    default:
        break;
    }
    rt.dev[dev].limits[limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    SERVE(set_limit(limit, value));
}

static cudaError_t get_limit(size_t *value, enum cudaLimit limit)
{
    int dev = rt_current_device();

    if (!value) {
        return cudaErrorInvalidValue;
    }
    if (!limit_known(limit)) {
        return cudaErrorUnsupportedLimit;
    }
    cudaError_t e = rt_device_init(dev);
    if (e) {
        return e;
    }
    *value = rt.dev[dev].limits[limit];
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
    SERVE(get_limit(value, limit));
}

/*
 * [0, -5]: numerically lower is higher priority; the range of Hopper and
 * Ampere with CUDA 12-13 (stream.c clamps priorities to it). Either
 * pointer may be NULL (CUDA Driver API, cuCtxGetStreamPriorityRange).
 */
static cudaError_t priority_range(int *least, int *greatest)
{
    if (least) {
        *least = 0;
    }
    if (greatest) {
        *greatest = -5;
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
                                             int *greatestPriority)
{
    SERVE(priority_range(leastPriority, greatestPriority));
}

/* Model: the context itself takes no device memory. */
static cudaError_t mem_get_info(size_t *free_bytes, size_t *total_bytes)
{
    int dev = rt_current_device();

    if (!free_bytes || !total_bytes) {
        return cudaErrorInvalidValue;
    }
    cudaError_t e = rt_device_init(dev);
    if (e) {
        return e;
    }
    uint64_t total = p2psim_hbm_size(rt.p, (unsigned)dev);
    uint64_t used = rt.dev[dev].mem_used;
    *total_bytes = (size_t)total;
    *free_bytes = (size_t)(used < total ? total - used : 0);
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *freeBytes, size_t *totalBytes)
{
    SERVE(mem_get_info(freeBytes, totalBytes));
}

/* ---- versions ------------------------------------------------------------ */

/*
 * Versions need no runtime state (they answer even where the machine
 * cannot load, as the real calls answer without a GPU): 13000 for both,
 * the driver being the simulator, which serves CUDA 13.0.
 */
cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (!driverVersion) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    *driverVersion = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (!runtimeVersion) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

/* ---- driver entry points ------------------------------------------------------ */

/* cuGetProcAddress_v2 of the driver (cuda.h's, by its numbers). */
typedef int drv_proc_fn(const char *symbol, void **pfn, int version,
                        unsigned long long flags, int *status);

/*
 * The driver's functions come from the libcuda.so.1 the loader finds
 * (p2psim's, cuda/driver/, which `p2psim run` puts first), looked up at
 * call time with dlopen so that the runtime does not link the driver:
 * its cuGetProcAddress_v2 answers, for the program's CUDA version; the
 * flags and the status have the same numbers in both APIs. Without a
 * driver every lookup succeeds with a NULL address and
 * cudaDriverEntryPointSymbolNotFound, which is what CUDA reports for a
 * symbol its driver lacks; programs that need the driver (NCCL's cuMem
 * path) then take their runtime-only fallbacks.
 */
static cudaError_t entry_point(const char *symbol, void **fn,
                               unsigned version, unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *st)
{
    if (!symbol || !fn ||
        (flags & ~(unsigned long long)(cudaEnableLegacyStream |
                                       cudaEnablePerThreadDefaultStream))) {
        return cudaErrorInvalidValue;
    }
    *fn = NULL;
    int status = cudaDriverEntryPointSymbolNotFound;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    drv_proc_fn *proc = lib ? (drv_proc_fn *)dlsym(lib, "cuGetProcAddress_v2")
                            : NULL;
    if (proc && proc(symbol, fn, (int)version, flags, &status) != 0) {
        *fn = NULL;
    }
    if (st) {
        *st = (enum cudaDriverEntryPointQueryResult)status;
    }
    return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                    unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult
                                        *driverStatus)
{
    return cudart_error_return(
        entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus));
}

cudaError_t cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion,
    unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return cudart_error_return(
        entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus));
}

cudaError_t cudaGetDriverEntryPoint_ptsz(
    const char *symbol, void **funcPtr, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return cudart_error_return(
        entry_point(symbol, funcPtr, CUDART_VERSION, flags, driverStatus));
}

cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion,
    unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return cudaGetDriverEntryPointByVersion(symbol, funcPtr, cudaVersion,
                                            flags, driverStatus);
}
