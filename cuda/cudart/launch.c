/*
 * cuda/cudart/launch.c - device code: what nvcc's static constructors
 * register (fat binaries, kernels, variables), the <<<>>> protocol
 * (push and pop of a launch configuration), launches, kernel attributes
 * and occupancy. The calling sequence nvcc 13.0 generates is drawn in
 * cuda/include/p2psim_cudart_internal.h (shared/reference/cuda-api.md
 * §3.2).
 *
 * The registry. One module per __cudaRegisterFatBinary (the fat binary
 * wrapper it was given, kept as is); one kernel per __cudaRegisterFunction
 * (host stub -> mangled name, module), whose address is the cudaKernel_t
 * handed out by __cudaGetKernel; one variable per __cudaRegisterVar and
 * __cudaRegisterManagedVar. Lookups are linear: programs register tens of
 * kernels, and a launch looks one up once. The registry has its own lock,
 * taken after the runtime's (never before it), because registration runs
 * before main, outside any served call, and must not start the runtime.
 *
 * Kernels run on the simulated GPU (machine/kernel/, docs/kernels.md). A
 * launch that passes every check a real launch makes becomes an operation
 * on its stream; when the stream reaches it, the grid runs on the GPU's
 * SMs and the operation completes when the grid does. Two kinds:
 *  - nvcc kernels (registered from a fat binary): the module's PTX is
 *    extracted and parsed on first launch (ptx/); a PTX the
 *    interpreter cannot run fails the launch with cudaErrorInvalidPtx
 *    and a message naming the kernel and the PTX line; the module's
 *    __device__ and __constant__ variables get device memory (HBM) on
 *    the launching device at its first launch there (module_vars);
 *  - C kernels (p2psim_kernel_register, machine/include/p2psim_kernel.h),
 *    whose handle is the func of cudaLaunchKernel.
 * A kernel's addresses resolve through the runtime's allocations
 * (kernel_resolve): its own GPU's memory, a peer's where peer access is
 * enabled (or a pool grants it), pinned and managed host memory; any
 * other address ends the grid with cudaErrorIllegalAddress (sticky, as a
 * faulting kernel is).
 * Through a p2psim server (rt_machine_remote, what `p2psim run` starts)
 * nvcc kernels run in the server's machine: the module's PTX text goes
 * there once (module_load, after this process has parsed and checked it,
 * so errors are the same as here), and each grid starts there when its
 * stream reaches it, with the parameter buffer and the ranges of memory
 * the kernel may touch as they stand then (rt_kernel_ranges). C kernels
 * are functions of this process and cannot run there: their launch fails
 * with cudaErrorNotSupported and says to run with --single-process.
 *
 * Checks, in order: a registered kernel (98), a context on the current
 * device, the configuration (9: a zero or oversized grid or block; 1:
 * more dynamic shared memory than the kernel may use), the stream (400:
 * not a live stream, or one of another device), cooperative size (720).
 *
 * Limits of a kernel that only its binary knows (registers, static shared
 * and local memory, launch bounds) read as 0 or as the device maximum
 * until binaries are parsed: occupancy is then limited by threads, blocks
 * and dynamic shared memory per SM only.
 */
#include <config.h>

#include "cuda/cudart/rt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/memory.h"
#include "cuda/include/p2psim_cudart_internal.h"
#include "machine/kernel/kernel.h"
#include "ptx/ptx.h"
#include "sim/error.h"


/* ---- the registry -------------------------------------------------------- */

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

/* A __device__, __constant__ or __managed__ variable. */
struct cudart_var {
    const void *host_var;       /* host shadow: cudaMemcpyToSymbol's key */
    char *name;                 /* owned */
    size_t size;                /* bytes */
    bool constant, ext, managed;
    void **managed_ptr;         /* managed: where its address is stored */
    struct cudart_module *module;
    struct cudart_var *next;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
/* Serializes __cudaInitModule, which allocates outside reg_lock. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cudart_module *modules;
static struct CUkern_st *kernels;
static struct cudart_var *vars;

/* The module a handle names, or NULL (reg_lock held). */
static struct cudart_module *module_of(void **handle)
{
    for (struct cudart_module *m = modules; m; m = m->next) {
        if (m->handle == handle) {
            return m;
        }
    }
    return NULL;
}

/* The kernel registered for a host stub, or NULL (reg_lock held). */
static struct CUkern_st *kernel_of_stub(const void *stub)
{
    for (struct CUkern_st *k = kernels; k; k = k->next) {
        if (k->stub == stub) {
            return k;
        }
    }
    return NULL;
}

/* h if it is a live kernel handle, else NULL (reg_lock held). */
static struct CUkern_st *kernel_of_handle(cudaKernel_t h)
{
    for (struct CUkern_st *k = kernels; k; k = k->next) {
        if (k == h) {
            return k;
        }
    }
    return NULL;
}

static char *name_dup(const char *s)
{
    return strdup(s ? s : "(unnamed)");
}

void **__cudaRegisterFatBinary(void *fatCubin)
{
    struct cudart_module *m = calloc(1, sizeof(*m));
    if (!m) {
        fprintf(stderr, "p2psim: out of memory registering device code\n");
        return NULL;
    }
    m->fatbin = fatCubin;
    pthread_mutex_lock(&reg_lock);
    m->next = modules;
    modules = m;
    pthread_mutex_unlock(&reg_lock);
    return m->handle;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    pthread_mutex_lock(&reg_lock);
    struct cudart_module *m = module_of(fatCubinHandle);
    if (m) {
        m->complete = true;
    }
    pthread_mutex_unlock(&reg_lock);
}

/* Forget a module with its kernels and variables; the program's managed
 * variables stay allocated (this runs at exit). */
void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    pthread_mutex_lock(&reg_lock);
    struct cudart_module **pm = &modules;
    while (*pm && (*pm)->handle != fatCubinHandle) {
        pm = &(*pm)->next;
    }
    struct cudart_module *m = *pm;
    if (m) {
        *pm = m->next;
        for (struct CUkern_st **pk = &kernels; *pk;) {
            struct CUkern_st *k = *pk;
            if (k->module == m) {
                *pk = k->next;
                free(k->name);
                free(k);
            } else {
                pk = &k->next;
            }
        }
        for (struct cudart_var **pv = &vars; *pv;) {
            struct cudart_var *v = *pv;
            if (v->module == m) {
                *pv = v->next;
                free(v->name);
                free(v);
            } else {
                pv = &v->next;
            }
        }
        if (m->var_addr) {
            for (unsigned d = 0; d < rt.n_dev; d++) {
                free(m->var_addr[d]);
            }
            free(m->var_addr);
        }
        ptx_module_free(m->ptx);
        free(m->text);
        free(m);
    }
    pthread_mutex_unlock(&reg_lock);
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                            char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize)
{
    pthread_mutex_lock(&reg_lock);
    struct cudart_module *m = module_of(fatCubinHandle);
    struct CUkern_st *k = kernel_of_stub(hostFun);
    if (!m) {
        pthread_mutex_unlock(&reg_lock);
        return;
    }
    if (!k) {
        k = calloc(1, sizeof(*k));
        if (!k) {
            pthread_mutex_unlock(&reg_lock);
            fprintf(stderr, "p2psim: out of memory registering kernel %s\n",
                    deviceName ? deviceName : deviceFun);
            return;
        }
        k->stub = hostFun;
        k->max_dyn_smem = -1;
        k->carveout = -1;
        k->next = kernels;
        kernels = k;
    }
    free(k->name);
    k->name = name_dup(deviceName ? deviceName : deviceFun);
    k->module = m;
    pthread_mutex_unlock(&reg_lock);
}

static void add_var(void **handle, const void *host_var, void **managed_ptr,
                    const char *name, int ext, size_t size, int constant)
{
    struct cudart_var *v = calloc(1, sizeof(*v));
    if (!v || !(v->name = name_dup(name))) {
        free(v);
        fprintf(stderr, "p2psim: out of memory registering variable %s\n",
                name ? name : "");
        return;
    }
    v->host_var = host_var;
    v->size = size;
    v->constant = constant != 0;
    v->ext = ext != 0;
    v->managed = managed_ptr != NULL;
    v->managed_ptr = managed_ptr;
    pthread_mutex_lock(&reg_lock);
    v->module = module_of(handle);
    if (!v->module) {
        pthread_mutex_unlock(&reg_lock);
        free(v->name);
        free(v);
        return;
    }
    v->next = vars;
    vars = v;
    pthread_mutex_unlock(&reg_lock);
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar,
                       char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global)
{
    add_var(fatCubinHandle, hostVar, NULL,
            deviceName ? deviceName : deviceAddress, ext, size, constant);
}

void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                              char *deviceAddress, const char *deviceName,
                              int ext, size_t size, int constant, int global)
{
    add_var(fatCubinHandle, hostVarPtrAddress, hostVarPtrAddress,
            deviceName ? deviceName : deviceAddress, ext, size, constant);
}

/*
 * Give each managed variable of the module its managed allocation, once.
 * Model: the variable starts zeroed; its initializer lives in the device
 * image, which is not read yet.
 */
char __cudaInitModule(void **fatCubinHandle)
{
    char ok = 1;
    pthread_mutex_lock(&init_lock);
    for (;;) {
        struct cudart_var *todo = NULL;
        pthread_mutex_lock(&reg_lock);
        for (struct cudart_var *v = vars; v && !todo; v = v->next) {
            if (v->managed && v->module &&
                v->module->handle == fatCubinHandle && !*v->managed_ptr) {
                todo = v;
            }
        }
        pthread_mutex_unlock(&reg_lock);
        if (!todo) {
            break;
        }
        /* cudaMallocManaged takes the runtime lock: not under reg_lock.
         * Only init_lock's holder allocates, so todo stays ours. */
        void *p = NULL;
        if (cudaMallocManaged(&p, todo->size ? todo->size : 1,
                              cudaMemAttachGlobal) != cudaSuccess) {
            ok = 0;
            break;
        }
        *todo->managed_ptr = p;
    }
    pthread_mutex_unlock(&init_lock);
    return ok;
}

/* ---- the <<<>>> protocol ------------------------------------------------- */

/*
 * Per host thread: a stack of configurations, because an argument of a
 * launch may itself launch (cuda-api.md §3.2). 32 levels is far more than
 * any program nests.
 */
#define CALL_CONFIG_DEPTH 32

struct call_config {
    dim3 grid, block;
    size_t smem;                /* dynamic shared memory, bytes */
    cudaStream_t stream;
};

static _Thread_local struct call_config call_stack[CALL_CONFIG_DEPTH];
static _Thread_local unsigned call_depth;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                     size_t sharedMem,
                                     struct CUstream_st *stream)
{
    if (call_depth == CALL_CONFIG_DEPTH) {
        /* Nonzero: the site skips the launch; say why. */
        cudart_error_record(cudaErrorMemoryAllocation);
        return 1;
    }
    call_stack[call_depth++] = (struct call_config){ gridDim, blockDim,
                                                     sharedMem, stream };
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                       size_t *sharedMem, void *stream)
{
    if (call_depth == 0) {
        return cudart_error_return(cudaErrorMissingConfiguration);
    }
    const struct call_config *c = &call_stack[--call_depth];
    *gridDim = c->grid;
    *blockDim = c->block;
    *sharedMem = c->smem;
    *(cudaStream_t *)stream = c->stream;
    return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
    if (!kernel) {
        return cudart_error_return(cudaErrorInvalidValue);
    }
    pthread_mutex_lock(&reg_lock);
    struct CUkern_st *k = kernel_of_stub(hostFun);
    pthread_mutex_unlock(&reg_lock);
    if (!k) {
        return cudart_error_return(cudaErrorInvalidDeviceFunction);
    }
    *kernel = k;
    return cudaSuccess;
}

/* ---- limits of a kernel, occupancy --------------------------------------- */

/* Dynamic shared memory a launch of k may ask for: what the program set,
 * else 48 KiB less the static part (CUDA's default). */
static size_t max_dyn_smem(const struct CUkern_st *k,
                           const struct cudaDeviceProp *p)
{
    if (k->max_dyn_smem >= 0) {
        return (size_t)k->max_dyn_smem;
    }
    return p->sharedMemPerBlock > k->static_smem
               ? p->sharedMemPerBlock - k->static_smem
               : 0;
}

/*
 * Shared memory is handed to blocks in 128-byte units, each block also
 * holding the system's reserved part (reservedSharedMemPerBlock); the
 * CUDA occupancy calculator (cuda_occupancy.h) uses the same unit.
 */
#define SMEM_UNIT_BYTES 128
/* Registers are allocated per warp in units of 256 (cuda_occupancy.h). */
#define REG_UNIT 256

static size_t smem_per_block(const struct CUkern_st *k,
                             const struct cudaDeviceProp *p, size_t dyn)
{
    size_t b = k->static_smem + dyn + p->reservedSharedMemPerBlock;
    return (b + SMEM_UNIT_BYTES - 1) / SMEM_UNIT_BYTES * SMEM_UNIT_BYTES;
}

/*
 * Blocks of k with `threads` threads that one SM holds at once, ignoring
 * shared memory: the least of the warp slots (maxThreadsPerMultiProcessor
 * / warpSize), the block slots (maxBlocksPerMultiProcessor) and the
 * registers. 0 for a block larger than a block may be.
 */
static int blocks_by_threads(const struct CUkern_st *k,
                             const struct cudaDeviceProp *p, int threads)
{
    if (threads <= 0 || threads > p->maxThreadsPerBlock) {
        return 0;
    }
    int warps = (threads + p->warpSize - 1) / p->warpSize;
    int n = p->maxThreadsPerMultiProcessor / p->warpSize / warps;
    if (n > p->maxBlocksPerMultiProcessor) {
        n = p->maxBlocksPerMultiProcessor;
    }
    if (k->num_regs > 0) {
        int per_warp = (k->num_regs * p->warpSize + REG_UNIT - 1) / REG_UNIT *
                       REG_UNIT;
        int by_regs = p->regsPerMultiprocessor / (per_warp * warps);
        if (by_regs < n) {
            n = by_regs;
        }
    }
    return n;
}

/* As blocks_by_threads, with dyn bytes of dynamic shared memory each. */
static int blocks_per_sm(const struct CUkern_st *k,
                         const struct cudaDeviceProp *p, int threads,
                         size_t dyn)
{
    int n = blocks_by_threads(k, p, threads);
    if (dyn > max_dyn_smem(k, p)) {
        return 0;
    }
    size_t per_block = smem_per_block(k, p, dyn);
    if (per_block == 0) {
        return n;               /* no shared memory at all: no limit */
    }
    size_t by_smem = p->sharedMemPerMultiprocessor / per_block;
    return by_smem < (size_t)n ? (int)by_smem : n;
}

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
    if (smem > max_dyn_smem(k, p)) {
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
};

static void kernel_op_release(struct rt_op *op)
{
    struct kernel_op *ko = (struct kernel_op *)op;
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
 * that GPU gpu may reach. Model: managed memory is reached at its host
 * home (a kernel does not migrate pages).
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
    *loc = rt_alloc_loc(r.alloc, r.off);
    return 0;
}

/* The same answers as a table, for a machine in another process. */
int rt_kernel_ranges(unsigned gpu, struct rt_kernel_range **out, unsigned *n)
{
    struct rt_kernel_range *t = NULL;
    unsigned k = 0;
    *out = NULL;
    *n = 0;
    if (rt.n_allocs) {
        t = malloc(rt.n_allocs * sizeof(*t));
        if (!t) {
            return -SIM_ENOMEM;
        }
    }
    for (unsigned i = 0; i < rt.n_allocs; i++) {
        const struct rt_alloc *a = rt.allocs[i];
        if (a->size && kernel_may_reach(a, gpu)) {
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
    if (status) {
        fprintf(stderr, "p2psim: kernel %s failed: %s\n", ko->name,
                msg ? msg : "");
        e = status == P2PSIM_KERNEL_FAULT ? cudaErrorIllegalAddress
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
    int rc = rt_machine->kernel(&ko->kl);
    if (rc < 0) {
        fprintf(stderr, "p2psim: kernel %s could not start\n", ko->name);
        rt_op_done(op, rc == -SIM_ENOMEM ? cudaErrorMemoryAllocation
                                         : cudaErrorLaunchFailure);
    }
}

/* The module's PTX, parsed once (reg_lock held); NULL with m->ptx_err. */
static struct ptx_module *module_ptx(struct cudart_module *m)
{
    if (m->ptx || m->ptx_err.code) {
        return m->ptx;
    }
    char *text = NULL;
    size_t len = 0;
    if (ptx_fatbin_extract(m->fatbin, &text, &len, &m->ptx_err) == 0) {
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
 * Model: cudaMemcpyToSymbol and friends are not served yet; a kernel sees
 * the initial value and what kernels wrote.
 */
static cudaError_t module_vars(struct cudart_module *m,
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
        e = module_vars(k->module, mod, ko->kl.l.gpu,
                                    &ko->kl.l.var_addrs, &ko->kl.l.n_vars);
        if (e) {
            kernel_warn(k, "no device memory for its module's variables");
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
    int per_sm = blocks_per_sm(lim, &p, threads, smem);
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
    snprintf(ko->name, sizeof(ko->name), "%s",
             k ? (k->name ? k->name : "(unnamed)") : p2psim_ckernel_name(ck));
    ko->kl.l.gpu = (unsigned)dev;
    e = k ? prepare_ptx(ko, k, args) : prepare_c(ko, ck, args);
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
    ko->kl.l.resolve = kernel_resolve;
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
    pthread_mutex_lock(&reg_lock);
    struct CUkern_st *k = by_stub ? kernel_of_stub(key)
                                  : kernel_of_handle((cudaKernel_t)key);
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

/* ---- kernel attributes --------------------------------------------------- */

/* The kernel of host stub func (NULL if none), the registry lock taken
 * (SERVE_KERNEL drops it). */
static struct CUkern_st *kernel_of_stub_locked(const void *func)
{
    pthread_mutex_lock(&reg_lock);
    return kernel_of_stub(func);
}

/*
 * Serve body (a cudaError_t expression) with the runtime lock, the
 * registry lock, and k, the kernel of host stub func (NULL if none).
 */
#define SERVE_KERNEL(func, body)                                              \
    do {                                                                      \
        struct CUkern_st *k;                                                  \
        cudaError_t ke_;                                                      \
        SERVE((k = kernel_of_stub_locked(func), ke_ = (body),                 \
               pthread_mutex_unlock(&reg_lock), ke_));                        \
    } while (0)

/*
 * Model: the binary's figures (registers, static/const/local memory) are
 * 0 and launch bounds absent until binaries are parsed; ptxVersion and
 * binaryVersion are the current device's compute capability, as if the
 * program had been built for exactly it.
 */
static cudaError_t func_get_attributes(struct cudaFuncAttributes *a,
                                       const struct CUkern_st *k)
{
    struct cudaDeviceProp p;

    if (!a) {
        return cudaErrorInvalidValue;
    }
    if (!k) {
        return cudaErrorInvalidDeviceFunction;
    }
    rt_device_props(rt_current_device(), &p);
    memset(a, 0, sizeof(*a));
    a->sharedSizeBytes = k->static_smem;
    a->maxThreadsPerBlock = p.maxThreadsPerBlock;
    a->numRegs = k->num_regs;
    a->ptxVersion = a->binaryVersion = p.major * 10 + p.minor;
    a->maxDynamicSharedSizeBytes = (int)max_dyn_smem(k, &p);
    a->preferredShmemCarveout = k->carveout;
    a->requiredClusterWidth = k->cluster_dim[0];
    a->requiredClusterHeight = k->cluster_dim[1];
    a->requiredClusterDepth = k->cluster_dim[2];
    a->clusterSchedulingPolicyPreference = k->cluster_policy;
    a->nonPortableClusterSizeAllowed = k->non_portable_cluster;
    return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
                                  const void *func)
{
    SERVE_KERNEL(func, func_get_attributes(attr, k));
}

/*
 * The settable attributes (CUDA Runtime API, cudaFuncSetAttribute), each
 * checked against the current device: dynamic shared memory up to the
 * opt-in maximum less the static part; a carveout of -1 (none) to 100
 * percent; cluster sizes and policies where clusters exist (compute
 * capability 9.0). ClusterDimMustBeSet is read-only.
 */
static cudaError_t func_set_attribute(struct CUkern_st *k,
                                      enum cudaFuncAttribute attr, int value)
{
    struct cudaDeviceProp p;

    if (!k) {
        return cudaErrorInvalidDeviceFunction;
    }
    rt_device_props(rt_current_device(), &p);
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 ||
            (size_t)value + k->static_smem > p.sharedMemPerBlockOptin) {
            return cudaErrorInvalidValue;
        }
        k->max_dyn_smem = value;
        return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100) {
            return cudaErrorInvalidValue;
        }
        k->carveout = value;
        return cudaSuccess;
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
        if (!p.clusterLaunch) {
            return cudaErrorNotSupported;
        }
        if (value < 0 ||
            (attr == cudaFuncAttributeNonPortableClusterSizeAllowed &&
             value > 1) ||
            (attr == cudaFuncAttributeClusterSchedulingPolicyPreference &&
             value > 2)) {
            return cudaErrorInvalidValue;
        }
        if (attr == cudaFuncAttributeNonPortableClusterSizeAllowed) {
            k->non_portable_cluster = value;
        } else if (attr == cudaFuncAttributeClusterSchedulingPolicyPreference) {
            k->cluster_policy = value;
        } else {
            k->cluster_dim[attr - cudaFuncAttributeRequiredClusterWidth] =
                value;
        }
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

cudaError_t cudaFuncSetAttribute(const void *func,
                                 enum cudaFuncAttribute attr, int value)
{
    SERVE_KERNEL(func, func_set_attribute(k, attr, value));
}

/* ---- occupancy ----------------------------------------------------------- */

static cudaError_t max_active_blocks(int *n, const struct CUkern_st *k,
                                     int block_size, size_t dyn,
                                     unsigned flags)
{
    struct cudaDeviceProp p;

    if (!n || block_size <= 0 ||
        (flags & ~(unsigned)cudaOccupancyDisableCachingOverride)) {
        return cudaErrorInvalidValue;
    }
    if (!k) {
        return cudaErrorInvalidDeviceFunction;
    }
    rt_device_props(rt_current_device(), &p);
    *n = blocks_per_sm(k, &p, block_size, dyn);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize)
{
    SERVE_KERNEL(func, max_active_blocks(numBlocks, k, blockSize,
                                         dynamicSMemSize, 0));
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize,
    unsigned int flags)
{
    SERVE_KERNEL(func, max_active_blocks(numBlocks, k, blockSize,
                                         dynamicSMemSize, flags));
}

/*
 * The most dynamic shared memory each of n blocks of block_size threads
 * may have with all n on one SM: the SM's shared memory split n ways in
 * whole units, less each block's reserved and static part, capped at what
 * a launch of k may ask for; 0 when n such blocks cannot share an SM.
 */
static cudaError_t available_dyn_smem(size_t *out, const struct CUkern_st *k,
                                      int n, int block_size)
{
    struct cudaDeviceProp p;

    if (!out || n <= 0 || block_size <= 0) {
        return cudaErrorInvalidValue;
    }
    if (!k) {
        return cudaErrorInvalidDeviceFunction;
    }
    rt_device_props(rt_current_device(), &p);
    *out = 0;
    if (blocks_by_threads(k, &p, block_size) < n) {
        return cudaSuccess;
    }
    size_t share = p.sharedMemPerMultiprocessor / (size_t)n /
                   SMEM_UNIT_BYTES * SMEM_UNIT_BYTES;
    size_t fixed = p.reservedSharedMemPerBlock + k->static_smem;
    if (share > fixed) {
        size_t cap = max_dyn_smem(k, &p);
        *out = share - fixed < cap ? share - fixed : cap;
    }
    return cudaSuccess;
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                      const void *func,
                                                      int numBlocks,
                                                      int blockSize)
{
    SERVE_KERNEL(func, available_dyn_smem(dynamicSmemSize, k, numBlocks,
                                          blockSize));
}
