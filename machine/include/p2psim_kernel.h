/*
 * machine/include/p2psim_kernel.h - the device API that kernels written in C
 * use, and their registration. A C kernel is an ordinary C function run
 * once per simulated thread; every access to GPU-visible memory goes
 * through the calls below, which the executor (machine/kernel/) gathers, per
 * warp, into the same requests a PTX kernel makes (docs/kernels.md).
 *
 *   static void scale(void **args)
 *   {
 *       float *v = *(float **)args[0];
 *       unsigned n = *(unsigned *)args[1];
 *       unsigned i = devapi_global_id();
 *       if (i < n)
 *           devapi_st_f32(&v[i], 2.0f * devapi_ld_f32(&v[i]));
 *   }
 *   ...
 *   static const size_t sizes[] = { sizeof(float *), sizeof(unsigned) };
 *   const void *k = p2psim_kernel_register("scale", scale, 2, sizes);
 *   void *args[] = { &d_v, &n };
 *   cudaLaunchKernel(k, grid, block, args, 0, stream);
 *
 * Pointers are the program's device, peer or pinned-host addresses
 * (UVA), never dereferenced directly in a kernel. The calls may only be
 * made from inside a running C kernel; elsewhere they abort with a
 * message. Programs link the shim (libcudart.so.13), which serves them.
 */
#ifndef P2PSIM_MACHINE_INCLUDE_P2PSIM_KERNEL_H
#define P2PSIM_MACHINE_INCLUDE_P2PSIM_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* Memory-model semantics of an access (PTX ISA, "Memory Consistency
 * Model"): weak (plain), volatile, relaxed, acquire (loads), release
 * (stores). */
enum devapi_sem { DEVAPI_WEAK, DEVAPI_VOLATILE, DEVAPI_RELAXED,
                  DEVAPI_ACQUIRE, DEVAPI_RELEASE };

/* Scope of a fence or a strong access: block, device, system. */
enum devapi_scope { DEVAPI_CTA, DEVAPI_GPU, DEVAPI_SYS };

enum devapi_atom { DEVAPI_ATOM_ADD, DEVAPI_ATOM_SUB, DEVAPI_ATOM_EXCH,
                   DEVAPI_ATOM_CAS, DEVAPI_ATOM_MIN, DEVAPI_ATOM_MAX,
                   DEVAPI_ATOM_INC, DEVAPI_ATOM_DEC, DEVAPI_ATOM_AND,
                   DEVAPI_ATOM_OR, DEVAPI_ATOM_XOR };

enum devapi_type { DEVAPI_U32, DEVAPI_S32, DEVAPI_U64, DEVAPI_S64,
                   DEVAPI_F32, DEVAPI_F64 };

struct devapi_dim3 {
    unsigned x, y, z;
};

/* ---- the calls ------------------------------------------------------------- */

/* Load or store bytes (1, 2, 4, 8 or 16, naturally aligned). */
void devapi_load(void *dst, const void *addr, unsigned bytes,
                 enum devapi_sem sem, enum devapi_scope scope);
void devapi_store(void *addr, const void *src, unsigned bytes,
                  enum devapi_sem sem, enum devapi_scope scope);
/*
 * devapi_atomic - old value of the 4- or 8-byte location at addr, which
 * becomes op(old, operand) (CAS: operand if old == compare). Operands
 * are raw bits (a float in the low 32 bits). scope DEVAPI_SYS is
 * atomicX_system.
 */
uint64_t devapi_atomic(enum devapi_atom op, enum devapi_type type,
                       void *addr, uint64_t operand, uint64_t compare,
                       enum devapi_scope scope);
/* __threadfence_block, __threadfence, __threadfence_system. */
void devapi_fence(enum devapi_scope scope);
/* __syncthreads: every thread of the block. */
void devapi_syncthreads(void);
/* grid.sync() of a cooperative launch (an error elsewhere). */
void devapi_grid_sync(void);
/* clock64() in SM cycles, %globaltimer in ns: simulated time. */
uint64_t devapi_clock64(void);
uint64_t devapi_globaltimer(void);
struct devapi_dim3 devapi_thread_idx(void);
struct devapi_dim3 devapi_block_idx(void);
struct devapi_dim3 devapi_block_dim(void);
struct devapi_dim3 devapi_grid_dim(void);
/* The block's dynamic shared memory (the launch's sharedMem bytes).
 * Model: shared memory is private to the block and costs no time. */
void *devapi_shared(void);

/* ---- registration ---------------------------------------------------------- */

/* A C kernel: args[i] points at a copy of the i-th argument. */
typedef void p2psim_kernel_fn(void **args);

/*
 * p2psim_kernel_register - make fn launchable under name; the result is
 * what cudaLaunchKernel (and cudaLaunchCooperativeKernel) take as func.
 * arg_bytes[i] is the size of argument i (copied at launch, as CUDA
 * copies a kernel's parameters). Registering a name again returns the
 * same handle with the new function. NULL on a bad argument (no name, no
 * function, more than 64 arguments or 4 KiB of them) or out of memory.
 */
const void *p2psim_kernel_register(const char *name, p2psim_kernel_fn *fn,
                                   unsigned n_args, const size_t *arg_bytes);

/* ---- conveniences ------------------------------------------------------- */

static inline unsigned devapi_global_id(void)
{
    struct devapi_dim3 t = devapi_thread_idx(), b = devapi_block_idx(),
                       d = devapi_block_dim();
    return b.x * d.x + t.x;
}

#define DEVAPI_LDST(sfx, T)                                                   \
    static inline T devapi_ld_##sfx(const T *p)                               \
    {                                                                         \
        T v;                                                                  \
        devapi_load(&v, p, sizeof(T), DEVAPI_WEAK, DEVAPI_GPU);               \
        return v;                                                             \
    }                                                                         \
    static inline T devapi_ld_volatile_##sfx(const T *p)                      \
    {                                                                         \
        T v;                                                                  \
        devapi_load(&v, p, sizeof(T), DEVAPI_VOLATILE, DEVAPI_SYS);           \
        return v;                                                             \
    }                                                                         \
    static inline void devapi_st_##sfx(T *p, T v)                             \
    {                                                                         \
        devapi_store(p, &v, sizeof(T), DEVAPI_WEAK, DEVAPI_GPU);              \
    }                                                                         \
    static inline void devapi_st_volatile_##sfx(T *p, T v)                    \
    {                                                                         \
        devapi_store(p, &v, sizeof(T), DEVAPI_VOLATILE, DEVAPI_SYS);          \
    }
DEVAPI_LDST(u8, uint8_t)
DEVAPI_LDST(u32, uint32_t)
DEVAPI_LDST(i32, int32_t)
DEVAPI_LDST(u64, uint64_t)
DEVAPI_LDST(f32, float)
DEVAPI_LDST(f64, double)
#undef DEVAPI_LDST

static inline uint32_t devapi_atomic_add_u32(uint32_t *p, uint32_t v,
                                             enum devapi_scope scope)
{
    return (uint32_t)devapi_atomic(DEVAPI_ATOM_ADD, DEVAPI_U32, p, v, 0,
                                   scope);
}

static inline uint64_t devapi_atomic_add_u64(uint64_t *p, uint64_t v,
                                             enum devapi_scope scope)
{
    return devapi_atomic(DEVAPI_ATOM_ADD, DEVAPI_U64, p, v, 0, scope);
}

static inline uint32_t devapi_atomic_cas_u32(uint32_t *p, uint32_t cmp,
                                             uint32_t v,
                                             enum devapi_scope scope)
{
    return (uint32_t)devapi_atomic(DEVAPI_ATOM_CAS, DEVAPI_U32, p, v, cmp,
                                   scope);
}

static inline float devapi_atomic_add_f32(float *p, float v,
                                          enum devapi_scope scope)
{
    uint32_t bits, old;
    float r;
    memcpy(&bits, &v, 4);
    old = (uint32_t)devapi_atomic(DEVAPI_ATOM_ADD, DEVAPI_F32, p, bits, 0,
                                  scope);
    memcpy(&r, &old, 4);
    return r;
}

#if defined(__cplusplus)
}
#endif

#endif /* P2PSIM_MACHINE_INCLUDE_P2PSIM_KERNEL_H */
