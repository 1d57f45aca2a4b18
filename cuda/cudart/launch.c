/*
 * cuda/cudart/launch.c - launches (cudaLaunchKernel, cudaLaunchCooperative-
 * Kernel, __cudaLaunchKernel) and kernels running on the simulated GPU
 * (machine/kernel/, docs/kernels.md). registry.c holds what the program
 * registered, kernel_attr.c a kernel's limits and attributes.
 *
 * A launch that passes every check a real launch makes becomes an
 * operation on its stream; when the stream reaches it, the grid runs on
 * the GPU's SMs and the operation completes when the grid does. nvcc
 * kernels: the module's PTX is parsed on first launch (ptx/); PTX the
 * interpreter cannot run fails the launch with cudaErrorInvalidPtx; the
 * module's __device__ and __constant__ variables get HBM on the launching
 * device at its first launch there (rt_module_vars). C kernels
 * (machine/include/p2psim_kernel.h): the func of cudaLaunchKernel. A
 * kernel's addresses resolve through the runtime's allocations
 * (kernel_resolve); any other address ends the grid with
 * cudaErrorIllegalAddress (sticky). Through a p2psim server nvcc kernels
 * run in the server's machine (module_load, rt_kernel_ranges); C kernels
 * cannot, and fail with cudaErrorNotSupported.
 *
 * Checks, in order: a registered kernel (98), a context on the current
 * device, the configuration (9: a zero or oversized grid or block; 1:
 * more dynamic shared memory than the kernel may use), the stream (400:
 * not a live stream, or one of another device), cooperative size (720).
 */
#include <config.h>

#include "cuda/cudart/launch_int.h"

#include "cuda/cudart/graph_int.h"
#include "cuda/cudart/relfatbin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/managed.h"
#include "cuda/cudart/memory.h"
#include "machine/kernel/kernel.h"
#include "sim/error.h"

/* ---- launches ------------------------------------------------------------ */

static cudaError_t check_config(const struct CUkern_st *k,
                                const struct cudaDeviceProp *p, dim3 grid,
                                dim3 block, size_t smem)
{
    uint64_t threads = (uint64_t)block.x * block.y * block.z;

    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z) {
        return cudaErrorInvalidConfiguration;
    }
    if (block.x > (unsigned)p->maxThreadsDim[0] ||
        block.y > (unsigned)p->maxThreadsDim[1] ||
        block.z > (unsigned)p->maxThreadsDim[2] ||
        threads > (uint64_t)p->maxThreadsPerBlock) {
        return cudaErrorInvalidConfiguration;
    }
    if (grid.x > (unsigned)p->maxGridSize[0] ||
        grid.y > (unsigned)p->maxGridSize[1] ||
        grid.z > (unsigned)p->maxGridSize[2]) {
        return cudaErrorInvalidConfiguration;
    }
    /* More dynamic shared memory than allowed: "invalid argument" (the
     * CUDA 12-13 behaviour for a launch past 48 KiB without opt-in). */
    if (smem > kernel_max_dyn_smem(k, p)) {
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

/* ---- running kernels -------------------------------------------------------- */

/* A launch on its stream: what the grid needs once the stream reaches it. */
struct kernel_op {
    struct rt_op op;
    struct rt_kernel_launch kl;
    char name[128];             /* for messages */
    char *kname;                /* PTX: the whole name (owned) */
    sim_time_t doorbell;        /* host time the launch call ends, ps */
    uint8_t *params;            /* PTX: parameter buffer; C: argument copies */
    void **argv;                /* C: pointers into params */
    struct rt_alloc *grid_ws;   /* cooperative: the grid barrier's memory */
};

/* The grid barrier's workspace as nvcc's cooperative groups read it (a
 * 32-bit size, then the 32-bit barrier counter), zeroed. */
#define GRID_WS_BYTES 8u

/*
 * A cooperative launch's grid barrier workspace: device memory of dev
 * (an allocation like any other, so the grid's resolver reaches it) that
 * lives as long as the launch's op; its address goes to every CTA in
 * %envreg1/%envreg2 (machine/kernel/kernel.h, grid_ws).
 */
static cudaError_t grid_ws_alloc(struct kernel_op *ko, int dev)
{
    uint64_t off;
    struct rt_alloc *a = calloc(1, sizeof(*a));
    if (!a || rt_window_reserve(dev, GRID_WS_BYTES, &off)) {
        free(a);
        return cudaErrorMemoryAllocation;
    }
    a->kind = RT_MEM_DEVICE;
    a->base = rt.dev[dev].va_base + off;
    a->size = GRID_WS_BYTES;
    a->device = dev;
    if (rt_alloc_insert(a)) {
        rt_window_release(dev, off, GRID_WS_BYTES);
        free(a);
        return cudaErrorMemoryAllocation;
    }
    const uint32_t ws[2] = { GRID_WS_BYTES, 0 };
    rt_machine->hbm_write((unsigned)dev, off, ws, sizeof(ws));
    ko->grid_ws = a;
    ko->kl.l.grid_ws = a->base;
    return cudaSuccess;
}

static void kernel_op_release(struct rt_op *op)
{
    struct kernel_op *ko = (struct kernel_op *)op;
    rt.kernels_live--;
    if (ko->grid_ws) {
        struct rt_alloc *a = ko->grid_ws;
        rt_alloc_remove(a);
        rt_window_release(a->device, a->base - rt.dev[a->device].va_base,
                          a->size);
        free(a);
    }
    free(ko->params);
    free(ko->argv);
    free(ko->kname);
}

/* Whether a kernel on GPU gpu may touch allocation a: its own GPU's
 * memory, a peer's with peer access enabled (or granted by its pool),
 * host and managed memory. */
static bool kernel_may_reach(const struct rt_alloc *a, unsigned gpu)
{
    return a->kind != RT_MEM_DEVICE || a->device == (int)gpu ||
           (rt.dev[gpu].peer_enabled && rt.dev[gpu].peer_enabled[a->device]) ||
           rt_alloc_peer_ok(a, (int)gpu);
}

/*
 * Where a kernel's address is (p2psim_resolve_fn): memory of the runtime
 * that GPU gpu may reach. Managed memory: in gpu's own copy where the
 * pages are resident on gpu, else at the host mapping (managed.c).
 */
static int kernel_resolve(void *arg, unsigned gpu, uint64_t va, uint64_t len,
                          struct p2psim_loc *loc)
{
    struct rt_ptr r;
    (void)arg;
    rt_ptr_find((const void *)(uintptr_t)va, &r);
    if (r.where == RT_WHERE_PAGEABLE || r.avail < len ||
        !kernel_may_reach(r.alloc, gpu)) {
        return -1;
    }
    *loc = r.alloc->kind == RT_MEM_MANAGED
               ? rt_managed_kernel_loc(r.alloc, r.off, len, gpu)
               : rt_alloc_loc(r.alloc, r.off);
    return 0;
}

/* A kernel's access that resolved to host memory: a managed page fault? */
static int kernel_fault(void *arg, unsigned gpu, uint64_t va, uint64_t len,
                        void (*resume)(void *w), void *w)
{
    struct rt_ptr r;
    (void)arg;
    rt_ptr_find((const void *)(uintptr_t)va, &r);
    if (r.where != RT_WHERE_MANAGED || r.avail < len) {
        return 0;
    }
    return rt_managed_fault(r.alloc, r.off, len, gpu, resume, w);
}

/* The same answers as a table, for a machine in another process. */
int rt_kernel_ranges(unsigned gpu, struct rt_kernel_range **out, unsigned *n)
{
    struct rt_kernel_range *t = NULL;
    unsigned k = 0, room = 0;
    *out = NULL;
    *n = 0;
    for (unsigned i = 0; i < rt.n_allocs; i++) {
        const struct rt_alloc *a = rt.allocs[i];
        room += a->kind == RT_MEM_MANAGED ? rt_managed_n_pages(a) : 1;
    }
    if (room) {
        t = malloc(room * sizeof(*t));
        if (!t) {
            return -SIM_ENOMEM;
        }
    }
    for (unsigned i = 0; i < rt.n_allocs; i++) {
        const struct rt_alloc *a = rt.allocs[i];
        if (a->size && a->kind == RT_MEM_MANAGED) {
            k += rt_managed_kernel_ranges(a, gpu, t + k);
        } else if (a->size && kernel_may_reach(a, gpu)) {
            t[k++] = (struct rt_kernel_range){ .va = a->base, .len = a->size,
                                               .loc = rt_alloc_loc(a, 0) };
        }
    }
    *out = t;
    *n = k;
    return 0;
}

static void kernel_done(void *arg, int status, const char *msg,
                        sim_time_t t_end)
{
    struct kernel_op *ko = arg;
    cudaError_t e = cudaSuccess;
    (void)t_end;
    rt_managed_kernel_end(ko->kl.l.gpu);
    if (status) {
        fprintf(stderr, "p2psim: kernel %s failed: %s\n", ko->name,
                msg ? msg : "");
        e = status == P2PSIM_KERNEL_FAULT    ? cudaErrorIllegalAddress
            : status == P2PSIM_KERNEL_ASSERT ? cudaErrorAssert
                                             : cudaErrorLaunchFailure;
    }
    rt_op_done(&ko->op, e);
}

static void kernel_start(struct rt_op *op, sim_time_t at)
{
    struct kernel_op *ko = (struct kernel_op *)op;
    /* The GPU sees the launch once the host has written it: at the end of
     * the launch call (RT_COST_LAUNCH), not at its start, when the runtime
     * enqueued it. */
    ko->kl.l.start_at = at > ko->doorbell ? at : ko->doorbell;
    ko->kl.l.done = kernel_done;
    ko->kl.l.done_arg = ko;
    rt_managed_kernel_begin(ko->kl.l.gpu);
    int rc = rt_machine->kernel(&ko->kl);
    if (rc < 0) {
        rt_managed_kernel_end(ko->kl.l.gpu);
        fprintf(stderr, "p2psim: kernel %s could not start\n", ko->name);
        rt_op_done(op, rc == -SIM_ENOMEM ? cudaErrorMemoryAllocation
                                         : cudaErrorLaunchFailure);
    }
}

static bool module_wants(const char *kernel, void *m)
{
    return reg_kernel_registered(m, kernel);
}

/* The module's PTX, parsed once (reg_lock held); NULL with m->ptx_err. */
static struct ptx_module *module_ptx(struct cudart_module *m)
{
    if (m->ptx || m->ptx_err.code) {
        return m->ptx;
    }
    char *text = NULL;
    size_t len = 0;
    /* the PTX the driver would compile for the current device (a module
     * is parsed once, for the device current at its first use) */
    unsigned arch = rt_device_arch(rt_current_device());
    int rc = PTX_ENOPTX;
    if (m->fatbin->version == 2) {
        /* -rdc=true: the program's PTX is in its objects' __nv_relfatbin;
         * the registered image is nvlink's, whose only PTX (if any) is
         * the device runtime's (CUDA 13's libcudadevrt brings compute_121
         * PTX), without the program's kernels */
        rc = rt_relfatbin_ptx(m->fatbin, arch, module_wants, m, &text, &len,
                              &m->ptx_err);
    }
    if (rc == PTX_ENOPTX) {
        memset(&m->ptx_err, 0, sizeof(m->ptx_err));
        rc = ptx_fatbin_extract(m->fatbin, arch, &text, &len, &m->ptx_err);
    }
    if (rc == 0) {
        m->ptx = ptx_module_parse(text, len, &m->ptx_err);
        if (m->ptx && rt_machine->module_load) {
            m->text = text;     /* for the machine, at the first launch */
            m->text_len = len;
            text = NULL;
        }
        free(text);
    }
    if (!m->ptx && !m->ptx_err.code) {
        m->ptx_err.code = PTX_EINVAL;
    }
    return m->ptx;
}

struct ptx_module *rt_module_ptx(struct cudart_module *m)
{
    return module_ptx(m);
}

/* Print why k cannot run, once per kernel. */
static void kernel_warn(struct CUkern_st *k, const char *why)
{
    if (!k->warned) {
        k->warned = true;
        fprintf(stderr, "p2psim: kernel %s not run: %s\n",
                k->name ? k->name : "(unnamed)", why);
    }
}

/*
 * The module's .global and .const variables (__device__, __constant__) on
 * device dev: device memory reserved on first use, holding the PTX
 * initializer (zeros without one), registered as an allocation so that
 * kernels resolve it like any other. Lives until the program exits.
 * cudaMemcpyToSymbol and friends (symbol.c) copy to and from this storage,
 * on the current device: each device has its own copy.
 */
cudaError_t rt_module_vars(struct cudart_module *m,
                           const struct ptx_module *mod, unsigned dev,
                           const uint64_t **addrs, unsigned *n_out)
{
    unsigned n = ptx_module_var_count(mod);
    *n_out = n;
    if (!m->var_addr) {
        m->var_addr = calloc(rt.n_dev, sizeof(*m->var_addr));
        if (!m->var_addr) {
            return cudaErrorMemoryAllocation;
        }
    }
    if (!m->var_addr[dev]) {
        m->var_addr[dev] = calloc(n ? n : 1, sizeof(uint64_t));
        if (!m->var_addr[dev]) {
            return cudaErrorMemoryAllocation;
        }
    }
    uint64_t *va = m->var_addr[dev];
    for (unsigned i = 0; i < n; i++) {
        const struct ptx_var_info *v = ptx_module_var(mod, i);
        uint64_t off, size = v->size_bytes ? v->size_bytes : 1;
        if (va[i]) {
            continue;
        }
        if (rt_window_reserve((int)dev, size, &off)) {
            return cudaErrorMemoryAllocation;
        }
        struct rt_alloc *a = calloc(1, sizeof(*a));
        if (!a) {
            rt_window_release((int)dev, off, size);
            return cudaErrorMemoryAllocation;
        }
        a->kind = RT_MEM_DEVICE;
        a->base = rt.dev[dev].va_base + off;
        a->size = size;
        a->device = (int)dev;
        if (rt_alloc_insert(a)) {
            free(a);
            rt_window_release((int)dev, off, size);
            return cudaErrorMemoryAllocation;
        }
        uint8_t *init = calloc(1, size);
        if (init) {
            if (v->init) {
                memcpy(init, v->init, v->init_bytes);
            }
            rt_machine->hbm_write(dev, off, init, size);
            free(init);
        }
        va[i] = a->base;
    }
    *addrs = va;
    return cudaSuccess;
}

/*
 * Hand k's module to a machine that parses PTX itself (a server's), once:
 * its text, under a number of this process. The text was parsed and the
 * kernel checked here first, so a refusal means another build.
 */
static cudaError_t module_load(struct CUkern_st *k)
{
    static uint64_t last_id;
    struct cudart_module *m = k->module;
    if (!rt_machine->module_load || m->wire_id) {
        return cudaSuccess;
    }
    if (!m->text) {
        kernel_warn(k, "its module's PTX text is gone");
        return cudaErrorInvalidPtx;
    }
    uint64_t id = last_id + 1;
    int rc = rt_machine->module_load(id, m->text, m->text_len);
    if (rc < 0) {
        kernel_warn(k, rc == -SIM_EINVAL
                           ? "the p2psim server could not parse its "
                             "module's PTX (a server of another build?)"
                           : "the p2psim server did not take its module");
        return rc == -SIM_EINVAL ? cudaErrorInvalidPtx
                                 : cudaErrorLaunchFailure;
    }
    last_id = id;
    m->wire_id = id;
    free(m->text);
    m->text = NULL;
    return cudaSuccess;
}

/* Fill ko for PTX kernel k with the launch's arguments. */
static cudaError_t prepare_ptx(struct kernel_op *ko, struct CUkern_st *k,
                               void **args)
{
    struct ptx_module *mod = module_ptx(k->module);
    if (!mod) {
        kernel_warn(k, k->module->ptx_err.msg);
        return k->module->ptx_err.code == PTX_ENOMEM
                   ? cudaErrorMemoryAllocation
                   : cudaErrorInvalidPtx;
    }
    const struct ptx_kernel *pk = ptx_module_find(mod, k->name);
    struct ptx_error err;
    memset(&err, 0, sizeof(err));
    if (!pk) {
        kernel_warn(k, "its PTX is not in the module's fat binary");
        return cudaErrorInvalidDeviceFunction;
    }
    if (ptx_kernel_check(pk, &err) < 0) {
        kernel_warn(k, err.msg);
        return cudaErrorInvalidPtx;
    }
    cudaError_t e = module_load(k);
    if (e) {
        return e;
    }
    ko->kname = strdup(k->name);
    if (!ko->kname) {
        return cudaErrorMemoryAllocation;
    }
    ko->kl.name = ko->kname;
    const struct ptx_kernel_info *info = ptx_kernel_get_info(pk);
    if (info->uses_global_symbols) {
        e = rt_module_vars(k->module, mod, ko->kl.l.gpu,
                                    &ko->kl.l.var_addrs, &ko->kl.l.n_vars);
        if (e) {
            kernel_warn(k, "no device memory for its module's variables");
            return e;
        }
    }
    if (info->uses_heap) {
        e = rt_device_heap((int)ko->kl.l.gpu, &ko->kl.l.heap_base,
                           &ko->kl.l.heap_bytes);
        if (e) {
            kernel_warn(k, "no device memory for the device heap "
                        "(cudaLimitMallocHeapSize)");
            return e;
        }
    }
    if (info->n_params && !args) {
        return cudaErrorInvalidValue;
    }
    ko->params = calloc(1, info->param_bytes ? info->param_bytes : 1);
    if (!ko->params) {
        return cudaErrorMemoryAllocation;
    }
    for (unsigned i = 0; i < info->n_params; i++) {
        const struct ptx_param_info *pi = &info->params[i];
        memcpy(ko->params + pi->offset_bytes, args[i], pi->size_bytes);
    }
    ko->kl.l.pk = pk;
    ko->kl.module = k->module->wire_id;
    ko->kl.l.param_buf = ko->params;
    ko->kl.l.param_bytes = info->param_bytes;
    ko->kl.l.static_smem = info->shared_bytes;
    return cudaSuccess;
}

/* Fill ko for C kernel ck with copies of the launch's arguments. */
static cudaError_t prepare_c(struct kernel_op *ko,
                             const struct p2psim_ckernel *ck, void **args)
{
    unsigned n = p2psim_ckernel_n_args(ck);
    size_t total = 0;
    if (n && !args) {
        return cudaErrorInvalidValue;
    }
    for (unsigned i = 0; i < n; i++) {
        total += p2psim_ckernel_arg_bytes(ck, i);
    }
    ko->params = malloc(total ? total : 1);
    ko->argv = calloc(n ? n : 1, sizeof(void *));
    if (!ko->params || !ko->argv) {
        return cudaErrorMemoryAllocation;
    }
    size_t off = 0;
    for (unsigned i = 0; i < n; i++) {
        size_t sz = p2psim_ckernel_arg_bytes(ck, i);
        memcpy(ko->params + off, args[i], sz);
        ko->argv[i] = ko->params + off;
        off += sz;
    }
    ko->kl.l.ck = ck;
    ko->kl.l.args = ko->argv;
    return cudaSuccess;
}

/*
 * Launch k, or C kernel ck (one is NULL; both: not a kernel), on the
 * current device. stream 0 is the legacy stream, or the thread's own with
 * per_thread (the _ptsz entry points). *launched: the launch passed every
 * check (it costs a launch's host time). Called with both locks held.
 */
static cudaError_t launch(struct CUkern_st *k, const struct p2psim_ckernel *ck,
                          dim3 grid, dim3 block, size_t smem, void **args,
                          cudaStream_t h, bool per_thread, bool cooperative,
                          bool *launched)
{
    static const struct CUkern_st c_kernel_limits = { .max_dyn_smem = -1,
                                                      .carveout = -1 };
    int dev = rt_current_device();
    struct cudaDeviceProp p;
    cudaError_t e;

    if (!k && !ck) {
        return cudaErrorInvalidDeviceFunction;
    }
    const struct CUkern_st *lim = k ? k : &c_kernel_limits;
    e = rt_device_init(dev);
    if (e) {
        return e;
    }
    rt_device_props(dev, &p);
    e = check_config(lim, &p, grid, block, smem);
    if (e) {
        return e;
    }
    if (per_thread && !h) {
        h = cudaStreamPerThread;
    }
    struct rt_stream *s = rt_stream_resolve(h, dev);
    if (!s || rt_stream_device(s) != dev) {
        return cudaErrorInvalidResourceHandle;
    }
    int threads = (int)(block.x * block.y * block.z);
    int per_sm = kernel_blocks_per_sm(lim, &p, threads, smem);
    if (cooperative) {
        /* Every block must be resident at once (CUDA Runtime API,
         * cudaLaunchCooperativeKernel). */
        uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
        if (blocks > (uint64_t)per_sm * (uint64_t)p.multiProcessorCount) {
            return cudaErrorCooperativeLaunchTooLarge;
        }
    }
    *launched = true;
    if (ck && rt_machine->module_load) {
        /* A C kernel is a function of this process; the machine is the
         * server's, in another one. Said once per program. */
        static bool told;
        if (!told) {
            told = true;
            fprintf(stderr, "p2psim: kernel %s not run: C kernels "
                    "(p2psim_kernel_register) run only with the machine in "
                    "the program's process, and this one is a p2psim "
                    "server's: run with p2psim run --single-process (or "
                    "P2PSIM_SERVER= set, empty)\n", p2psim_ckernel_name(ck));
        }
        return cudaErrorNotSupported;
    }
    struct kernel_op *ko = (struct kernel_op *)rt_op_alloc(
        sizeof(*ko), "kernel", kernel_start);
    if (!ko) {
        return cudaErrorMemoryAllocation;
    }
    ko->op.release = kernel_op_release;
    rt.kernels_live++;          /* rt.c's catch-up, until released */
    snprintf(ko->name, sizeof(ko->name), "%s",
             k ? (k->name ? k->name : "(unnamed)") : p2psim_ckernel_name(ck));
    ko->kl.l.gpu = (unsigned)dev;
    e = k ? prepare_ptx(ko, k, args) : prepare_c(ko, ck, args);
    if (!e && cooperative && k) {
        e = grid_ws_alloc(ko, dev);
    }
    if (e) {
        rt_op_discard(&ko->op);
        return e;
    }
    ko->kl.l.gpu = (unsigned)dev;
    ko->kl.l.grid[0] = grid.x;
    ko->kl.l.grid[1] = grid.y;
    ko->kl.l.grid[2] = grid.z;
    ko->kl.l.block[0] = block.x;
    ko->kl.l.block[1] = block.y;
    ko->kl.l.block[2] = block.z;
    ko->kl.l.dyn_smem = (uint32_t)smem;
    ko->kl.l.blocks_per_sm = per_sm > 0 ? (unsigned)per_sm : 1;
    ko->kl.l.cooperative = cooperative;
    ko->kl.l.cdp_pending_max =
        (unsigned)rt.dev[dev].limits[cudaLimitDevRuntimePendingLaunchCount];
    ko->kl.l.resolve = kernel_resolve;
    ko->kl.l.fault = kernel_fault;  /* in this process only (remote.c) */
    ko->doorbell = sim_time_add(rt_self()->clock, rt_costs[RT_COST_LAUNCH]);
    return rt_enqueue(s, &ko->op);
}

/* Serve a launch of the kernel a stub (by_stub) or handle names. */
static cudaError_t serve_launch(const void *key, bool by_stub, dim3 grid,
                                dim3 block, size_t smem, void **args,
                                cudaStream_t stream, bool per_thread,
                                bool cooperative)
{
    cudaError_t e = rt_enter();
    if (e) {
        return cudart_error_return(e);
    }
    bool launched = false;
    if (rt_capture_kernel(key, by_stub, grid, block, smem, args, stream,
                          per_thread, &e)) {
        rt_charge(rt_costs[RT_COST_CALL]);
        rt_leave();
        return cudart_error_return(e);
    }
    pthread_mutex_lock(&reg_lock);
    struct CUkern_st *k = by_stub ? reg_kernel_of_stub(key)
                                  : reg_kernel_of_handle((cudaKernel_t)key);
    const struct p2psim_ckernel *ck = !k && by_stub ? p2psim_ckernel_find(key)
                                                    : NULL;
    e = launch(k, ck, grid, block, smem, args, stream, per_thread,
               cooperative, &launched);
    pthread_mutex_unlock(&reg_lock);
    rt_charge(rt_costs[launched ? RT_COST_LAUNCH : RT_COST_CALL]);
    rt_leave();
    return cudart_error_return(e);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim,
                               dim3 blockDim, void **args, size_t sharedMem,
                               cudaStream_t stream)
{
    return serve_launch(kernel, false, gridDim, blockDim, sharedMem, args,
                        stream, false, false);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
                                    dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream)
{
    return serve_launch(kernel, false, gridDim, blockDim, sharedMem, args,
                        stream, true, false);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                             void **args, size_t sharedMem,
                             cudaStream_t stream)
{
    return serve_launch(func, true, gridDim, blockDim, sharedMem, args,
                        stream, false, false);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim,
                                  dim3 blockDim, void **args,
                                  size_t sharedMem, cudaStream_t stream)
{
    return serve_launch(func, true, gridDim, blockDim, sharedMem, args,
                        stream, true, false);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim,
                                        dim3 blockDim, void **args,
                                        size_t sharedMem, cudaStream_t stream)
{
    return serve_launch(func, true, gridDim, blockDim, sharedMem, args,
                        stream, false, true);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim,
                                             dim3 blockDim, void **args,
                                             size_t sharedMem,
                                             cudaStream_t stream)
{
    return serve_launch(func, true, gridDim, blockDim, sharedMem, args,
                        stream, true, true);
}

/* ---- for graphs ------------------------------------------------------------ */

cudaError_t rt_kernel_arg_sizes(const void *stub, size_t **sizes, unsigned *n)
{
    *sizes = NULL;
    *n = 0;
    struct CUkern_st *k = reg_kernel_of_stub(stub);
    const struct p2psim_ckernel *ck = k ? NULL : p2psim_ckernel_find(stub);
    if (!k && !ck) {
        return cudaErrorInvalidDeviceFunction;
    }
    const struct ptx_kernel_info *info = NULL;
    if (k) {
        struct ptx_module *mod = module_ptx(k->module);
        const struct ptx_kernel *pk = mod ? ptx_module_find(mod, k->name)
                                          : NULL;
        if (!pk) {
            kernel_warn(k, mod ? "its PTX is not in the module's fat binary"
                               : k->module->ptx_err.msg);
            return cudaErrorInvalidDeviceFunction;
        }
        info = ptx_kernel_get_info(pk);
    }
    unsigned count = k ? info->n_params : p2psim_ckernel_n_args(ck);
    size_t *v = calloc(count ? count : 1, sizeof(*v));
    if (!v) {
        return cudaErrorMemoryAllocation;
    }
    for (unsigned i = 0; i < count; i++) {
        v[i] = k ? info->params[i].size_bytes : p2psim_ckernel_arg_bytes(ck, i);
    }
    *sizes = v;
    *n = count;
    return cudaSuccess;
}
