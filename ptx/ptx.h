/*
 * ptx/ptx.h - the PTX front end: fat binary extraction, a PTX parser
 * and a resumable per-warp interpreter.
 *
 * A leaf (libc, common/'s atomic arithmetic, libzstd where configure
 * found it). The kernel executor (behind cudaLaunchKernel) drives it:
 *
 *   text = ptx_fatbin_extract(wrapper)            at __cudaRegisterFatBinary
 *   mod  = ptx_module_parse(text)                 once per module
 *   k    = ptx_module_find(mod, mangled_name)     at __cudaRegisterFunction
 *   info = ptx_kernel_get_info(k)                 param layout, smem, local
 *   at launch: ptx_kernel_check(k) fails with the PTX line and kernel name
 *   of the first unsupported construct; otherwise, per warp:
 *     w = ptx_warp_new(k, param_buf, &ctx)
 *     loop: switch (ptx_warp_run(w, &req))
 *       PTX_STOP_MEM:   perform req (global memory), then
 *                       ptx_warp_resume(w, &req) and run again
 *       PTX_STOP_BAR:   wait for the CTA's barrier, then
 *                       ptx_warp_bar_release(w, ...) and run again
 *       PTX_STOP_YIELD: the instruction budget ran out; run again later
 *       PTX_STOP_EXIT:  every lane has exited; ptx_warp_free(w)
 *       PTX_STOP_ERROR: req.error says what and where; the launch fails
 *
 * Only global (and constant) memory accesses and fences leave the
 * interpreter. docs/ptx.md: the supported subset, the execution model.
 *
 * Ownership: a module owns its kernels and every string reached from
 * them, until ptx_module_free(). A warp keeps pointers to its kernel,
 * the parameter buffer and the CTA's shared memory, which must outlive
 * it. One warp is not thread-safe; different warps (and modules) may be
 * used from different threads.
 */
#ifndef P2PSIM_PTX_PTX_H
#define P2PSIM_PTX_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* Errors                                                                  */
/* ---------------------------------------------------------------------- */

/* Return codes (0 is success; these are negative). */
#define PTX_EINVAL (-1)       /* bad argument or malformed input */
#define PTX_ENOMEM (-2)       /* out of memory */
#define PTX_ENOPTX (-3)       /* the fat binary holds no PTX (only SASS) */
#define PTX_ECOMPRESS (-4)    /* compressed entry we cannot decompress */
#define PTX_EPARSE (-5)       /* the PTX text is not a PTX module */
#define PTX_EUNSUPPORTED (-6) /* a kernel uses what we do not interpret */
#define PTX_ENOTFOUND (-7)    /* no kernel of that name */

#define PTX_ERROR_MSG_BYTES 320

/* An error: a code, the PTX line and column it refers to (0: none) and a
 * message that names the kernel and the line where there is one. */
struct ptx_error {
    int code;
    unsigned line;
    unsigned column;
    char msg[PTX_ERROR_MSG_BYTES];
};

/* ---------------------------------------------------------------------- */
/* Limits on untrusted input (docs/ptx.md, "Limits")                       */
/* ---------------------------------------------------------------------- */

/* A fat binary or PTX text beyond one of these is refused (PTX_EINVAL
 * for a fat binary, PTX_EPARSE for a module) with a message naming the
 * limit and, in PTX, the line and column; nothing is truncated. */
#define PTX_FATBIN_MAX_BYTES (1ull << 30) /* entries of one container */
#define PTX_TEXT_MAX_BYTES (256u << 20)   /* the PTX text of a module */
#define PTX_GLOBAL_MAX_BYTES (4ull << 30) /* one .global variable */
#define PTX_CONST_MAX_BYTES (64u << 10)   /* all .const of a module */
#define PTX_SHARED_MAX_BYTES (256u << 10) /* static .shared of a kernel
                                           * (module-scope ones included) */
#define PTX_LOCAL_MAX_BYTES (512u << 10)  /* .local of a kernel, a thread */
#define PTX_PARAM_MAX_BYTES (32u << 10)   /* parameters of a kernel */
#define PTX_ALIGN_MAX 65536u              /* .align: a power of two <= */
#define PTX_REG_MAX 65000u                /* registers a kernel declares */
#define PTX_INSN_MAX (1u << 22)           /* instructions of a kernel */
#define PTX_STATEMENT_MAX_BYTES 65536u    /* one instruction statement */
#define PTX_NTID_MAX 1024u                /* a .maxntid/.reqntid value */
#define PTX_NAME_MAX 4096u                /* a variable or parameter name */
#define PTX_CALL_ARGS_MAX 32u             /* arguments of a call */
#define PTX_CALL_DEPTH_MAX 64u            /* calls a lane has open */
#define PTX_FUNCS_MAX 1024u               /* functions a kernel calls */

/* ---------------------------------------------------------------------- */
/* Fat binaries                                                            */
/* ---------------------------------------------------------------------- */

/**
 * ptx_fatbin_extract() - the PTX text of a registered fat binary.
 * @wrapper: what the program passed to __cudaRegisterFatBinary (a
 *           struct p2psim_fatbin_wrapper, cuda/include/).
 * @arch:    the device's compute capability as major * 10 + minor (90
 *           for 9.0), or 0 for no device.
 * @text:    on success, a malloc'd NUL-terminated PTX text; caller frees.
 * @len:     on success, strlen(*text); may be NULL.
 * @err:     filled on failure; may be NULL.
 *
 * The registration gives no size, so the container header's own sizes
 * bound what is read: header, then at most PTX_FATBIN_MAX_BYTES of
 * entries, each entry inside them. Walks the container's entries,
 * decompresses zstd entries, and picks a PTX entry as the driver's JIT
 * compiler does: the highest virtual architecture not above @arch (a
 * fat binary of compute_75 and compute_121 runs compute_75 on a 9.0
 * device); when all are above it (a real driver would have no image for
 * the device) or @arch is 0, the highest. Return: 0, or
 * PTX_ENOPTX when there is only SASS (the message says how to build with
 * PTX), PTX_ECOMPRESS (LZ4, or zstd without libzstd), PTX_EINVAL (bad
 * magic or sizes), PTX_ENOMEM.
 */
int ptx_fatbin_extract(const void *wrapper, unsigned arch, char **text,
                       size_t *len, struct ptx_error *err);

/* The same from the fat binary data itself (the container header) in a
 * buffer of @size bytes; nothing outside it is read (fuzzing harnesses
 * call this one). ptx_fatbin_extract() passes the size the container
 * header declares, at most 16 + 65535 + PTX_FATBIN_MAX_BYTES. */
int ptx_fatbin_extract_data(const void *data, size_t size, unsigned arch,
                            char **text, size_t *len, struct ptx_error *err);

/* ---------------------------------------------------------------------- */
/* Modules and kernels                                                     */
/* ---------------------------------------------------------------------- */

struct ptx_module;
struct ptx_kernel;
struct ptx_tex_ops;

/* One .param of an .entry, as laid out in the parameter buffer that
 * __cudaLaunchKernel's args[] are copied into: args[i] supplies
 * size_bytes at offset_bytes. */
struct ptx_param_info {
    const char *name;
    uint32_t size_bytes;
    uint32_t align_bytes;
    uint32_t offset_bytes; /* aligned to align_bytes */
};

struct ptx_kernel_info {
    const char *name;                    /* the mangled .entry name */
    unsigned n_params;
    const struct ptx_param_info *params; /* n_params entries */
    uint32_t param_bytes;                /* buffer size holding them all */
    uint32_t shared_bytes;   /* static .shared of the kernel and module */
    uint32_t dyn_shared_offset; /* where extern .shared (dynamic) starts */
    uint32_t local_bytes;    /* .local per thread */
    uint32_t maxntid[3];     /* .maxntid, or 0 0 0 when absent */
    uint32_t reqntid[3];     /* .reqntid, or 0 0 0 when absent */
    unsigned n_insns;        /* instructions parsed */
    bool uses_global_symbols; /* refers to module .global/.const vars */
    bool uses_heap;          /* calls malloc or free (the device heap) */
};

/* A module-scope .global or .const variable (a __device__ or
 * __constant__ variable); the executor gives it storage per device and
 * passes the addresses in struct ptx_warp_ctx.global_addrs. */
enum ptx_var_space { PTX_VAR_GLOBAL, PTX_VAR_CONST };

struct ptx_var_info {
    const char *name;
    enum ptx_var_space space;
    uint64_t size_bytes;
    uint32_t align_bytes;
    const uint8_t *init; /* init_bytes initial bytes, or NULL for zeros */
    uint64_t init_bytes; /* <= size_bytes; the bytes after them are 0 */
};

/**
 * ptx_module_parse() - parse a PTX module.
 * @text: PTX text (NUL-terminated or not); @len: its length, at most
 *        PTX_TEXT_MAX_BYTES. Nothing at or beyond text + len is read.
 *
 * Directives and instructions the interpreter does not support are not a
 * module error: they are recorded against the kernel that contains them
 * (first one wins, with its line), so the module's other kernels run.
 * Return: the module, or NULL with @err filled (PTX_EPARSE when the
 * structure itself is broken or a limit above is passed, PTX_ENOMEM;
 * the message starts "PTX line L:C:"). It never aborts.
 */
struct ptx_module *ptx_module_parse(const char *text, size_t len,
                                    struct ptx_error *err);

/* Free a module, its kernels and its strings; NULL is allowed. */
void ptx_module_free(struct ptx_module *m);

unsigned ptx_module_kernel_count(const struct ptx_module *m);
const struct ptx_kernel *ptx_module_kernel(const struct ptx_module *m,
                                           unsigned i);
/* The name of the kernel whose address (a kernel named as a value)
 * addr is, or NULL; and the module a kernel belongs to. */
const char *ptx_module_entry_name(const struct ptx_module *m, uint64_t addr);
const struct ptx_module *ptx_kernel_module(const struct ptx_kernel *k);
/* The kernel of that .entry name, or NULL. */
const struct ptx_kernel *ptx_module_find(const struct ptx_module *m,
                                         const char *name);

unsigned ptx_module_var_count(const struct ptx_module *m);
const struct ptx_var_info *ptx_module_var(const struct ptx_module *m,
                                          unsigned i);

/* The target's SM number (.target sm_90 -> 90) and the ISA version
 * (.version 9.0 -> 90). */
unsigned ptx_module_target_sm(const struct ptx_module *m);
unsigned ptx_module_version(const struct ptx_module *m);

const struct ptx_kernel_info *ptx_kernel_get_info(const struct ptx_kernel *k);

/**
 * ptx_kernel_pack_params() - lay out a launch's arguments.
 * @args: args[i] points at the i-th argument (as __cudaLaunchKernel and
 *        cudaLaunchKernel receive them); NULL only when n_params is 0.
 * @buf:  info.param_bytes bytes, written with each argument at its
 *        offset (padding zeroed).
 */
void ptx_kernel_pack_params(const struct ptx_kernel *k, void *const *args,
                            void *buf);

/**
 * ptx_kernel_check() - can this kernel run?
 * Return: 0, or PTX_EUNSUPPORTED with @err naming the first unsupported
 * construct (a directive, a call of a function without a body), its PTX
 * line and the kernel, e.g. "kernel _Z3fooPi: PTX line 42: unsupported
 * directive '.foo'". An unsupported instruction is no such construct: it
 * fails only the warps reaching it, with its message.
 */
int ptx_kernel_check(const struct ptx_kernel *k, struct ptx_error *err);

/* ---------------------------------------------------------------------- */
/* Execution of one warp                                                   */
/* ---------------------------------------------------------------------- */

#define PTX_WARP_SIZE 32

struct ptx_dim3 {
    uint32_t x, y, z;
};

/* Special registers whose value depends on simulated time. */
enum ptx_time_sreg {
    PTX_SREG_CLOCK,      /* %clock: low 32 bits of the SM cycle counter */
    PTX_SREG_CLOCK64,    /* %clock64: SM cycles */
    PTX_SREG_GLOBALTIMER /* %globaltimer: ns */
};

/* Answers a time-dependent special register for the warp, from simulated
 * time (all lanes read the same value). */
typedef uint64_t ptx_time_fn(void *user, enum ptx_time_sreg which);

/* What the executor tells a warp about where it runs. Copied by
 * ptx_warp_new() (pointers inside are kept, not copied). */
/*
 * The device runtime (CUDA dynamic parallelism): the functions nvcc's
 * device code calls without a body in the module (__cudaCDP2* of CUDA
 * 12 and later, or the same names without the prefix), served by the
 * executor through ctx.devrt_fn, lane by lane in lane order.
 */
enum ptx_devrt {
    PTX_DEVRT_GET_PARAM_BUF,    /* GetParameterBuffer(align, size) */
    PTX_DEVRT_GET_PARAM_BUF_V2, /* GetParameterBufferV2(func, grid, block,
                                   smem) */
    PTX_DEVRT_LAUNCH,           /* LaunchDevice(func, buf, grid, block,
                                   smem, stream) */
    PTX_DEVRT_LAUNCH_V2,        /* LaunchDeviceV2(buf, stream) */
    PTX_DEVRT_STREAM_CREATE,    /* StreamCreateWithFlags(&s, flags) */
    PTX_DEVRT_STREAM_DESTROY,   /* StreamDestroy(s) */
    PTX_DEVRT_GET_LAST_ERROR,
    PTX_DEVRT_PEEK_AT_LAST_ERROR,
    PTX_DEVRT_GET_ERROR_STRING, /* (error): a string (0: none) */
    PTX_DEVRT_MEMCPY_ASYNC,     /* MemcpyAsync(dst, src, n, kind, s) */
    PTX_DEVRT_DEVICE_SYNC,      /* DeviceSynchronize() */
    PTX_DEVRT_GET_DEVICE,       /* GetDevice(&d) */
};

#define PTX_DEVRT_ARGS_MAX 8u

/* One lane's call: its arguments as they sit in the lane's .param
 * variables; the executor sets ret (the return value), and out_val /
 * out_bytes for a function that writes through its first argument (the
 * interpreter stores it there: the lane's .local or .shared memory). */
struct ptx_devrt_call {
    enum ptx_devrt fn;
    const char *name;           /* as the PTX names it */
    unsigned lane;
    unsigned n_args;
    const uint8_t *arg[PTX_DEVRT_ARGS_MAX];
    uint32_t arg_bytes[PTX_DEVRT_ARGS_MAX];
    uint64_t ret;
    uint64_t out_val;
    unsigned out_bytes;         /* 0: nothing to write */
};

/* 0, or -1 with msg (cap bytes) saying why the warp fails. */
typedef int ptx_devrt_fn(void *user, struct ptx_devrt_call *c, char *msg,
                         size_t cap);

struct ptx_warp_ctx {
    uint32_t lane_mask;                    /* lanes that exist (threads) */
    struct ptx_dim3 tid[PTX_WARP_SIZE];    /* %tid per lane */
    struct ptx_dim3 ntid;                  /* %ntid: block dimensions */
    struct ptx_dim3 ctaid;                 /* %ctaid */
    struct ptx_dim3 nctaid;                /* %nctaid: grid dimensions */
    uint32_t warpid, nwarpid;              /* %warpid, %nwarpid */
    uint32_t smid, nsmid;                  /* %smid, %nsmid */
    uint64_t gridid;                       /* %gridid */
    uint32_t envreg[32];                   /* %envreg0..31 */

    /* The CTA's shared memory (static then dynamic), owned by the
     * executor and shared by the CTA's warps; and the generic-address
     * window that maps onto it (cvta.shared, generic ld/st). */
    uint8_t *shared;
    uint32_t shared_bytes;
    uint64_t shared_window_base;
    uint64_t shared_window_bytes;

    /* The generic-address window of local memory: generic address
     * local_window_base + o is byte o of the accessing lane's own .local
     * frame, which the interpreter owns. */
    uint64_t local_window_base;
    uint64_t local_window_bytes;

    /* Device addresses of the module's variables, indexed as
     * ptx_module_var(); may be NULL when the kernel uses none. */
    const uint64_t *var_addrs;
    unsigned n_var_addrs;

    ptx_time_fn *time_fn; /* NULL: time registers read 0 */
    void *time_user;

    /* Texture and surface instructions reach descriptors and texel
     * memory through these (ptx/ptx_tex.h); NULL: they fail the warp. */
    const struct ptx_tex_ops *tex_ops;
    void *tex_user;

    /* The device runtime's functions (dynamic parallelism, below);
     * NULL: a call of one fails the warp. */
    ptx_devrt_fn *devrt_fn;
    void *devrt_user;

    /* Stop with PTX_STOP_YIELD after this many warp-instructions in one
     * ptx_warp_run() (0: never). A warp spinning on shared memory needs
     * it for the other warps to progress. */
    uint32_t yield_after;
};

enum ptx_stop {
    PTX_STOP_MEM,   /* a global-memory request (or fence) is in req */
    PTX_STOP_BAR,   /* a barrier: req.bar_* */
    PTX_STOP_YIELD, /* instruction budget spent */
    PTX_STOP_EXIT,  /* every lane has exited */
    PTX_STOP_ERROR  /* req.error: trap, bad address, unsupported ... */
};

/* PTX_MEM_MALLOC and PTX_MEM_FREE are the device heap's calls (malloc,
 * free, and operator new/delete, which nvcc lowers to them): each lane's
 * data[l][0] is the size asked for (malloc) or the pointer (free; 0 is
 * no-op); malloc's result[l][0] is the block's address, or 0 when the
 * heap has no room. The executor serves the lanes in lane order. */
enum ptx_mem_op { PTX_MEM_LD, PTX_MEM_ST, PTX_MEM_ATOM, PTX_MEM_RED,
                  PTX_MEM_FENCE, PTX_MEM_MALLOC, PTX_MEM_FREE };

/* Memory-model semantics of an access or fence. A plain ld/st is weak;
 * .volatile is volatile (treated by PTX like relaxed.sys). */
enum ptx_mem_sem { PTX_SEM_WEAK, PTX_SEM_VOLATILE, PTX_SEM_RELAXED,
                   PTX_SEM_ACQUIRE, PTX_SEM_RELEASE, PTX_SEM_ACQ_REL,
                   PTX_SEM_SC };

/* Scope; accesses without one are .gpu (atomics) or weak (ld/st). */
enum ptx_mem_scope { PTX_SCOPE_CTA, PTX_SCOPE_GPU, PTX_SCOPE_SYS };

enum ptx_atom_op { PTX_ATOM_NONE, PTX_ATOM_ADD, PTX_ATOM_SUB,
                   PTX_ATOM_EXCH, PTX_ATOM_CAS, PTX_ATOM_MIN, PTX_ATOM_MAX,
                   PTX_ATOM_INC, PTX_ATOM_DEC, PTX_ATOM_AND, PTX_ATOM_OR,
                   PTX_ATOM_XOR };

enum ptx_atom_type { PTX_ATYPE_B32, PTX_ATYPE_U32, PTX_ATYPE_S32,
                     PTX_ATYPE_B64, PTX_ATYPE_U64, PTX_ATYPE_S64,
                     PTX_ATYPE_F32, PTX_ATYPE_F64 };

/**
 * struct ptx_mem_req - what a stopped warp asks of the executor.
 *
 * Per lane data is in host byte order as it sits in memory: a store
 * copies the first bytes_per_lane bytes of data[l] to addr[l]; a load or
 * an atomic writes the bytes read (the old value) to result[l]. Lanes
 * not in mask are to be ignored. Vector accesses (.v2/.v4) are one
 * contiguous access of bytes_per_lane per lane.
 *
 * Atomics: result = old; mem = op(old, data) (inc/dec as PTX: inc
 * wraps to 0 when old >= data, dec to data when old == 0 || old > data);
 * CAS: mem = (old == cmp) ? data : old.
 */
struct ptx_mem_req {
    enum ptx_mem_op op;
    unsigned bytes_per_lane;          /* 1, 2, 4, 8 or 16 */
    enum ptx_mem_sem sem;
    enum ptx_mem_scope scope;
    enum ptx_atom_op atom;
    enum ptx_atom_type atype;
    bool nc;                          /* ld.global.nc (read-only path) */
    bool constant;                    /* ld.const (a __constant__ var) */
    uint32_t mask;                    /* participating lanes */
    uint64_t addr[PTX_WARP_SIZE];     /* global (= generic) addresses */
    uint64_t data[PTX_WARP_SIZE][2];  /* store data / atomic operand */
    uint64_t cmp[PTX_WARP_SIZE];      /* CAS compare value */
    uint64_t result[PTX_WARP_SIZE][2];/* load data / atomic old value */

    /* PTX_STOP_BAR: barrier id, expected thread count (0: all threads
     * of the CTA), the lanes arriving, and whether the warp waits
     * (bar.sync / barrier.sync) or only arrives (bar.arrive). */
    unsigned bar_id;
    unsigned bar_count;
    uint32_t bar_mask;
    bool bar_wait;
    /* bar.red (__syncthreads_count/_and/_or): the arriving lanes whose
     * predicate is true; the executor sums them over the CTA and gives
     * the totals to ptx_warp_bar_release() (0 for a plain barrier) */
    uint32_t bar_pred;

    unsigned line;                    /* PTX line of the instruction */
    const char *error;                /* PTX_STOP_ERROR: the message */
    bool assert_failed;               /* PTX_STOP_ERROR: a device
                                       * assert() failed (printed on
                                       * stderr) */
};

struct ptx_warp;

/**
 * ptx_warp_new() - a warp about to run a kernel from its first
 * instruction.
 * @k:         a kernel that passed ptx_kernel_check().
 * @param_buf: the launch's parameter buffer, laid out as
 *             ptx_kernel_get_info()->params; kept, not copied.
 * @ctx:       the warp's place in the grid (copied).
 * @err:       filled on failure (an unsupported kernel, no memory).
 * Return: the warp, or NULL.
 */
struct ptx_warp *ptx_warp_new(const struct ptx_kernel *k,
                              const void *param_buf,
                              const struct ptx_warp_ctx *ctx,
                              struct ptx_error *err);

void ptx_warp_free(struct ptx_warp *w);

/**
 * ptx_warp_renew() - ptx_warp_new(), made of the memory of a warp of the
 * same kernel that is no longer run (done, failed or stopped anywhere):
 * the new warp is what ptx_warp_new() would make, without allocating
 * and zeroing fresh memory for its registers. On failure @old is freed.
 * Return: the warp (@old's address), or NULL.
 */
struct ptx_warp *ptx_warp_renew(struct ptx_warp *old,
                                const struct ptx_kernel *k,
                                const void *param_buf,
                                const struct ptx_warp_ctx *ctx,
                                struct ptx_error *err);

/**
 * ptx_warp_run() - interpret until the warp needs the outside world.
 * @req: filled for PTX_STOP_MEM, PTX_STOP_BAR and PTX_STOP_ERROR.
 * After PTX_STOP_MEM, call ptx_warp_resume() before running again.
 * After PTX_STOP_EXIT or PTX_STOP_ERROR the warp stays stopped.
 */
enum ptx_stop ptx_warp_run(struct ptx_warp *w, struct ptx_mem_req *req);

/**
 * ptx_warp_resume() - complete the MEM request the warp stopped on:
 * writes req->result of the lanes into their destination registers (for
 * loads and atomics; nothing for stores, reductions and fences).
 * Return: 0, or PTX_EINVAL when the warp was not stopped on MEM.
 */
int ptx_warp_resume(struct ptx_warp *w, const struct ptx_mem_req *req);

/**
 * ptx_warp_bar_release() - the barrier the warp stopped at (PTX_STOP_BAR)
 * opens: @n_true of the @n_lanes threads that arrived at it had their
 * bar.red predicate true (req.bar_pred summed over the CTA). A bar.red
 * writes its result to its lanes: .popc n_true, .and n_true == n_lanes,
 * .or n_true != 0; a plain barrier takes nothing. Call it before running
 * the warp again. Return: 0, or PTX_EINVAL when not stopped at a barrier.
 */
int ptx_warp_bar_release(struct ptx_warp *w, uint32_t n_true,
                         uint32_t n_lanes);

/**
 * ptx_atom_apply() - the value an atomic leaves in memory.
 * @old: the value read; @operand: the instruction's operand (for CAS,
 * the new value); @cmp: CAS's compare value. Values are raw bits of
 * @type (f32 in the low 32 bits). common/atomic.h's atom_apply(), whose
 * header gives the rules (float min/max: one NaN operand gives the
 * other, two give the canonical NaN, -0 below +0). The interpreter uses
 * it for shared memory; executors may use it for global memory.
 */
uint64_t ptx_atom_apply(enum ptx_atom_op op, enum ptx_atom_type type,
                        uint64_t old, uint64_t operand, uint64_t cmp);

/* Warp-instructions executed so far (a predicated-off instruction
 * counts; one instruction run by two divergent groups counts twice). */
uint64_t ptx_warp_instr_count(const struct ptx_warp *w);

/*
 * A stopped warp's own state as bytes (ptx/interp_state.c): its lanes,
 * PCs, open calls, registers and .local frames, not its instruction
 * count nor shared or global memory. ptx_warp_state_bytes() is the size
 * of a buffer for ptx_warp_state_save() (0: not offered, a lane is inside
 * a recursion); ptx_warp_state_same() says whether the warp is as saved.
 * Two equal states run alike on equal inputs (load results, shared
 * memory, time registers, texels).
 */
size_t ptx_warp_state_bytes(const struct ptx_warp *w);
void ptx_warp_state_save(const struct ptx_warp *w, void *buf);
bool ptx_warp_state_same(const struct ptx_warp *w, const void *buf);

/* Lanes that have not exited. */
uint32_t ptx_warp_live_mask(const struct ptx_warp *w);

#if defined(__cplusplus)
}
#endif

#endif /* P2PSIM_PTX_PTX_H */
