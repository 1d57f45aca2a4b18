/*
 * machine/kernel/cthread.c - kernels written in C (machine/include/p2psim_kernel.h):
 * their registry, and their threads as coroutines.
 *
 * Each thread of a resident block is a coroutine (ucontext) with its own
 * stack. A warp runs by resuming each of its runnable threads in lane
 * order; a thread runs plain C until it calls the device API, which
 * records the call in the thread's lane and switches back. Once every
 * runnable thread has stopped, the warp gathers: the lowest lane with a
 * memory call and every other lane stopped at the same kind of call
 * (operation, size, semantics, scope, atomic operation and type) form one
 * struct ptx_mem_req, exactly what a PTX warp hands the executor; lanes
 * stopped at another call wait for the next round, as divergent paths of
 * a warp take turns. A barrier is reached when every live lane waits at
 * it. Calls that need no memory (indices, clock64, shared memory) answer
 * at once, without a switch.
 *
 * Model: a thread's stack is P2PSIM_KERNEL_STACK bytes (64 KiB, reserved
 * without backing until touched): C kernels must not keep large arrays
 * on the stack.
 */
#include <config.h>

#include "machine/kernel/kernel.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "machine/include/p2psim_kernel.h"
#include "machine/kernel/kernel_int.h"

#define KX_STACK_BYTES (64u << 10)
#define KX_MAX_ARGS 64u
#define KX_MAX_ARG_BYTES 4096u

/* ---- the registry ------------------------------------------------------------ */

struct p2psim_ckernel {
    char *name;
    p2psim_kernel_fn *fn;
    unsigned n_args;
    size_t arg_bytes[KX_MAX_ARGS];
    struct p2psim_ckernel *next;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct p2psim_ckernel *registry;

const void *p2psim_kernel_register(const char *name, p2psim_kernel_fn *fn,
                                   unsigned n_args, const size_t *arg_bytes)
{
    size_t total = 0;
    if (!name || !*name || !fn || n_args > KX_MAX_ARGS ||
        (n_args && !arg_bytes)) {
        return NULL;
    }
    for (unsigned i = 0; i < n_args; i++) {
        if (arg_bytes[i] == 0 || arg_bytes[i] > KX_MAX_ARG_BYTES) {
            return NULL;
        }
        total += arg_bytes[i];
    }
    if (total > KX_MAX_ARG_BYTES) {
        return NULL;
    }
    pthread_mutex_lock(&reg_lock);
    struct p2psim_ckernel *k = registry;
    while (k && strcmp(k->name, name) != 0) {
        k = k->next;
    }
    if (!k) {
        k = calloc(1, sizeof(*k));
        if (!k || !(k->name = strdup(name))) {
            free(k);
            pthread_mutex_unlock(&reg_lock);
            return NULL;
        }
        k->next = registry;
        registry = k;
    }
    k->fn = fn;
    k->n_args = n_args;
    for (unsigned i = 0; i < n_args; i++) {
        k->arg_bytes[i] = arg_bytes[i];
    }
    pthread_mutex_unlock(&reg_lock);
    return k;
}

const struct p2psim_ckernel *p2psim_ckernel_find(const void *handle)
{
    pthread_mutex_lock(&reg_lock);
    struct p2psim_ckernel *k = registry;
    while (k && (const void *)k != handle) {
        k = k->next;
    }
    pthread_mutex_unlock(&reg_lock);
    return k;
}

const char *p2psim_ckernel_name(const struct p2psim_ckernel *k)
{
    return k->name;
}

unsigned p2psim_ckernel_n_args(const struct p2psim_ckernel *k)
{
    return k->n_args;
}

size_t p2psim_ckernel_arg_bytes(const struct p2psim_ckernel *k, unsigned i)
{
    return i < k->n_args ? k->arg_bytes[i] : 0;
}

/* ---- coroutines ---------------------------------------------------------------- */

/* The thread running now, and where it returns to. The simulation runs
 * in one host thread at a time; thread-local all the same. */
static _Thread_local struct kx_lane *cur_lane;
static _Thread_local struct kx_warp *cur_warp;
static _Thread_local ucontext_t sched_ctx;

static void lane_entry(void)
{
    struct kx_lane *l = cur_lane;
    struct kx_warp *w = cur_warp;
    w->b->gr->l.ck->fn(w->b->gr->argv);
    l->exited = true;
    swapcontext(&l->ctx, &sched_ctx);
    abort();                    /* never resumed */
}

/* A fresh coroutine that starts in lane_entry. Not inlined: getcontext
 * returns twice as far as the compiler knows (setjmp rules). */
static __attribute__((noinline)) int lane_prepare(struct kx_lane *ln)
{
    if (getcontext(&ln->ctx) < 0) {
        return -1;
    }
    ln->ctx.uc_stack.ss_sp = ln->stack;
    ln->ctx.uc_stack.ss_size = KX_STACK_BYTES;
    ln->ctx.uc_link = NULL;
    makecontext(&ln->ctx, lane_entry, 0);
    return 0;
}

int kx__c_block_init(struct kx_block *b)
{
    struct kx_grid *gr = b->gr;
    for (unsigned i = 0; i < b->n_warps; i++) {
        struct kx_warp *w = &b->warps[i];
        w->lanes = calloc(KX_WARP, sizeof(*w->lanes));
        if (!w->lanes) {
            return -1;
        }
        for (unsigned l = 0; l < KX_WARP; l++) {
            struct kx_lane *ln = &w->lanes[l];
            unsigned t = i * KX_WARP + l;
            if (!(w->exists & (1u << l))) {
                ln->exited = true;
                continue;
            }
            ln->tid.x = t % gr->l.block[0];
            ln->tid.y = t / gr->l.block[0] % gr->l.block[1];
            ln->tid.z = t / gr->l.block[0] / gr->l.block[1];
            ln->stack = mmap(NULL, KX_STACK_BYTES, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                             -1, 0);
            if (ln->stack == MAP_FAILED) {
                ln->stack = NULL;
                return -1;
            }
            if (lane_prepare(ln) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

void kx__c_block_fini(struct kx_block *b)
{
    for (unsigned i = 0; i < b->n_warps; i++) {
        struct kx_warp *w = &b->warps[i];
        if (!w->lanes) {
            continue;
        }
        for (unsigned l = 0; l < KX_WARP; l++) {
            if (w->lanes[l].stack) {
                munmap(w->lanes[l].stack, KX_STACK_BYTES);
            }
        }
        free(w->lanes);
        w->lanes = NULL;
    }
}

static bool same_call(const struct kx_lane *a, const struct kx_lane *b)
{
    return a->op == b->op && a->bytes == b->bytes && a->sem == b->sem &&
           a->scope == b->scope && a->atom == b->atom && a->atype == b->atype;
}

/* Run thread l until it calls the device API or returns. Not inlined:
 * no local of the caller lives across the switch (setjmp rules). */
static __attribute__((noinline)) void resume_lane(struct kx_warp *w,
                                                  struct kx_lane *l)
{
    cur_lane = l;
    cur_warp = w;
    swapcontext(&sched_ctx, &l->ctx);
    cur_lane = NULL;
    cur_warp = NULL;
}

enum kx_stop kx__c_warp_run(struct kx_warp *w)
{
    struct kx_lane *lanes = w->lanes;
    for (unsigned i = 0; i < KX_WARP; i++) {
        struct kx_lane *l = &lanes[i];
        if (l->exited || l->posted) {
            continue;
        }
        if (l->at_bar || l->at_gsync) {
            if (w->at_bar || w->at_gsync) {
                continue;       /* still waiting */
            }
            l->at_bar = l->at_gsync = false;
        }
        resume_lane(w, l);
    }
    struct kx_lane *first = NULL;
    bool live = false, bar = false, gsync = false;
    for (unsigned i = 0; i < KX_WARP; i++) {
        struct kx_lane *l = &lanes[i];
        live |= !l->exited;
        bar |= l->at_bar;
        gsync |= l->at_gsync;
        if (l->posted && !first) {
            first = l;
        }
    }
    if (!live) {
        return KX_EXIT;
    }
    if (!first) {
        return gsync ? KX_GSYNC : KX_BAR;
    }
    (void)bar;
    struct ptx_mem_req *q = &w->req;
    memset(q, 0, sizeof(*q));
    q->op = first->op;
    q->bytes_per_lane = first->bytes;
    q->sem = first->sem;
    q->scope = first->scope;
    q->atom = first->atom;
    q->atype = first->atype;
    for (unsigned i = 0; i < KX_WARP; i++) {
        struct kx_lane *l = &lanes[i];
        if (l->posted && same_call(l, first)) {
            q->mask |= 1u << i;
            q->addr[i] = l->addr;
            q->data[i][0] = l->data[0];
            q->data[i][1] = l->data[1];
            q->cmp[i] = l->cmp;
        }
    }
    return KX_MEM;
}

void kx__c_warp_resume(struct kx_warp *w)
{
    for (unsigned i = 0; i < KX_WARP; i++) {
        if (w->req.mask & (1u << i)) {
            struct kx_lane *l = &w->lanes[i];
            l->result[0] = w->req.result[i][0];
            l->result[1] = w->req.result[i][1];
            l->posted = false;
        }
    }
}

/* ---- the device API ---------------------------------------------------------- */

static struct kx_lane *self(const char *call)
{
    if (!cur_lane) {
        fprintf(stderr, "p2psim: %s called outside a C kernel\n", call);
        abort();
    }
    return cur_lane;
}

/* Post the lane's call and wait for the warp to serve it. */
static void post(struct kx_lane *l)
{
    l->posted = true;
    swapcontext(&l->ctx, &sched_ctx);
}

static enum ptx_mem_scope map_scope(enum devapi_scope s)
{
    return s == DEVAPI_CTA ? PTX_SCOPE_CTA
           : s == DEVAPI_SYS ? PTX_SCOPE_SYS : PTX_SCOPE_GPU;
}

static enum ptx_mem_sem map_sem(enum devapi_sem s)
{
    switch (s) {
    case DEVAPI_VOLATILE: return PTX_SEM_VOLATILE;
    case DEVAPI_RELAXED: return PTX_SEM_RELAXED;
    case DEVAPI_ACQUIRE: return PTX_SEM_ACQUIRE;
    case DEVAPI_RELEASE: return PTX_SEM_RELEASE;
    default: return PTX_SEM_WEAK;
    }
}

static void check_bytes(unsigned bytes, const char *call)
{
    if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16) {
        fprintf(stderr, "p2psim: %s of %u bytes (1, 2, 4, 8 or 16)\n", call,
                bytes);
        abort();
    }
}

/* The fields every request of a lane sets; an atomic then adds its own. */
static void lane_request(struct kx_lane *l, enum ptx_mem_op op,
                         unsigned bytes, enum ptx_mem_sem sem,
                         enum devapi_scope scope, const void *addr)
{
    l->op = op;
    l->bytes = bytes;
    l->sem = sem;
    l->scope = map_scope(scope);
    l->atom = PTX_ATOM_NONE;
    l->atype = PTX_ATYPE_B32;
    l->addr = (uint64_t)(uintptr_t)addr;
}

void devapi_load(void *dst, const void *addr, unsigned bytes,
                 enum devapi_sem sem, enum devapi_scope scope)
{
    struct kx_lane *l = self("devapi_load");
    check_bytes(bytes, "devapi_load");
    lane_request(l, PTX_MEM_LD, bytes, map_sem(sem), scope, addr);
    post(l);
    memcpy(dst, l->result, bytes);
}

void devapi_store(void *addr, const void *src, unsigned bytes,
                  enum devapi_sem sem, enum devapi_scope scope)
{
    struct kx_lane *l = self("devapi_store");
    check_bytes(bytes, "devapi_store");
    lane_request(l, PTX_MEM_ST, bytes, map_sem(sem), scope, addr);
    l->data[0] = l->data[1] = 0;
    memcpy(l->data, src, bytes);
    post(l);
}

uint64_t devapi_atomic(enum devapi_atom op, enum devapi_type type,
                       void *addr, uint64_t operand, uint64_t compare,
                       enum devapi_scope scope)
{
    static const enum ptx_atom_op ops[] = {
        [DEVAPI_ATOM_ADD] = PTX_ATOM_ADD, [DEVAPI_ATOM_SUB] = PTX_ATOM_SUB,
        [DEVAPI_ATOM_EXCH] = PTX_ATOM_EXCH, [DEVAPI_ATOM_CAS] = PTX_ATOM_CAS,
        [DEVAPI_ATOM_MIN] = PTX_ATOM_MIN, [DEVAPI_ATOM_MAX] = PTX_ATOM_MAX,
        [DEVAPI_ATOM_INC] = PTX_ATOM_INC, [DEVAPI_ATOM_DEC] = PTX_ATOM_DEC,
        [DEVAPI_ATOM_AND] = PTX_ATOM_AND, [DEVAPI_ATOM_OR] = PTX_ATOM_OR,
        [DEVAPI_ATOM_XOR] = PTX_ATOM_XOR,
    };
    static const enum ptx_atom_type types[] = {
        [DEVAPI_U32] = PTX_ATYPE_U32, [DEVAPI_S32] = PTX_ATYPE_S32,
        [DEVAPI_U64] = PTX_ATYPE_U64, [DEVAPI_S64] = PTX_ATYPE_S64,
        [DEVAPI_F32] = PTX_ATYPE_F32, [DEVAPI_F64] = PTX_ATYPE_F64,
    };
    struct kx_lane *l = self("devapi_atomic");
    if ((unsigned)op > DEVAPI_ATOM_XOR || (unsigned)type > DEVAPI_F64) {
        fprintf(stderr, "p2psim: devapi_atomic: bad operation or type\n");
        abort();
    }
    lane_request(l, PTX_MEM_ATOM,
                 type == DEVAPI_U32 || type == DEVAPI_S32 || type == DEVAPI_F32
                     ? 4 : 8,
                 PTX_SEM_RELAXED, scope, addr);
    l->atom = ops[op];
    l->atype = types[type];
    l->data[0] = operand;
    l->data[1] = 0;
    l->cmp = compare;
    post(l);
    return l->result[0];
}

void devapi_fence(enum devapi_scope scope)
{
    struct kx_lane *l = self("devapi_fence");
    lane_request(l, PTX_MEM_FENCE, 0, PTX_SEM_SC, scope, NULL);
    post(l);
}

void devapi_syncthreads(void)
{
    struct kx_lane *l = self("devapi_syncthreads");
    l->at_bar = true;
    swapcontext(&l->ctx, &sched_ctx);
}

void devapi_grid_sync(void)
{
    struct kx_lane *l = self("devapi_grid_sync");
    l->at_gsync = true;
    swapcontext(&l->ctx, &sched_ctx);
}

uint64_t devapi_clock64(void)
{
    self("devapi_clock64");
    return kx__time_sreg(cur_warp->b->gr, PTX_SREG_CLOCK64);
}

uint64_t devapi_globaltimer(void)
{
    self("devapi_globaltimer");
    return kx__time_sreg(cur_warp->b->gr, PTX_SREG_GLOBALTIMER);
}

struct devapi_dim3 devapi_thread_idx(void)
{
    struct kx_lane *l = self("devapi_thread_idx");
    return (struct devapi_dim3){ l->tid.x, l->tid.y, l->tid.z };
}

struct devapi_dim3 devapi_block_idx(void)
{
    self("devapi_block_idx");
    const struct kx_block *b = cur_warp->b;
    return (struct devapi_dim3){ b->idx[0], b->idx[1], b->idx[2] };
}

struct devapi_dim3 devapi_block_dim(void)
{
    self("devapi_block_dim");
    const unsigned *d = cur_warp->b->gr->l.block;
    return (struct devapi_dim3){ d[0], d[1], d[2] };
}

struct devapi_dim3 devapi_grid_dim(void)
{
    self("devapi_grid_dim");
    const unsigned *d = cur_warp->b->gr->l.grid;
    return (struct devapi_dim3){ d[0], d[1], d[2] };
}

void *devapi_shared(void)
{
    self("devapi_shared");
    return cur_warp->b->smem;
}
