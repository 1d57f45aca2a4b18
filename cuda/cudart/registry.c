/*
 * cuda/cudart/registry.c - what nvcc's static constructors register (fat
 * binaries, kernels, variables) and the <<<>>> protocol (push and pop of
 * a launch configuration, __cudaGetKernel). The calling sequence nvcc
 * 13.0 generates is drawn in cuda/include/p2psim_cudart_internal.h
 * (shared/reference/cuda-api.md §3.2).
 *
 * One module per __cudaRegisterFatBinary (the fat binary wrapper it was
 * given, kept as is); one kernel per __cudaRegisterFunction (host stub ->
 * mangled name, module), whose address is the cudaKernel_t handed out by
 * __cudaGetKernel; one variable per __cudaRegisterVar and
 * __cudaRegisterManagedVar. Lookups are linear: programs register tens of
 * kernels, and a launch looks one up once. The registry has its own lock
 * (launch_int.h says why).
 */
#include <config.h>

#include "cuda/cudart/launch_int.h"
#include "cuda/cudart/relfatbin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the registry -------------------------------------------------------- */

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

pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
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
struct CUkern_st *reg_kernel_of_stub(const void *stub)
{
    for (struct CUkern_st *k = kernels; k; k = k->next) {
        if (k->stub == stub) {
            return k;
        }
    }
    return NULL;
}

/* h if it is a live kernel handle, else NULL (reg_lock held). */
struct CUkern_st *reg_kernel_of_handle(cudaKernel_t h)
{
    for (struct CUkern_st *k = kernels; k; k = k->next) {
        if (k == h) {
            return k;
        }
    }
    return NULL;
}

/* The module of the variable whose host shadow is sym (for a managed
 * one, also its managed address), with its name, size and where a
 * managed one's address is stored (NULL if not managed); NULL if none
 * (reg_lock held). */
struct cudart_module *reg_var_lookup(const void *sym, const char **name,
                                     size_t *size, void ***managed_ptr)
{
    for (const struct cudart_var *v = vars; v; v = v->next) {
        if (v->host_var == sym ||
            (v->managed && *v->managed_ptr && *v->managed_ptr == sym)) {
            *name = v->name;
            *size = v->size;
            *managed_ptr = v->managed_ptr;
            return v->module;
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
    struct CUkern_st *k = reg_kernel_of_stub(hostFun);
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
    struct CUkern_st *k = reg_kernel_of_stub(hostFun);
    pthread_mutex_unlock(&reg_lock);
    if (!k) {
        return cudart_error_return(cudaErrorInvalidDeviceFunction);
    }
    *kernel = k;
    return cudaSuccess;
}

bool reg_kernel_registered(const void *m, const char *name)
{
    for (struct CUkern_st *k = kernels; k; k = k->next) {
        if ((const void *)k->module == m && k->name &&
            strcmp(k->name, name) == 0) {
            return true;
        }
    }
    return false;
}
