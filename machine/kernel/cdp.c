/*
 * machine/kernel/cdp.c - dynamic parallelism: a PTX kernel launching
 * kernels (CUDA 12's device runtime, CDP2), served to the interpreter as
 * its ctx.devrt_fn (ptx.h, enum ptx_devrt).
 *
 *  - GetParameterBuffer(V2) gives a buffer in the executor's window
 *    KX_CDP_BUF_BASE (memory.c hands the lanes' accesses of it here); the
 *    thread fills it with the child's arguments, laid out as the child's
 *    .param list, and LaunchDevice(V2) takes it.
 *  - A launch is a grid of the same executor on the same GPU, started by
 *    kx__grid_launch as a host launch is: the GPU front end's
 *    launch-latency after the call, then blocks on SMs in simulated time.
 *  - Streams: the block's implicit (NULL) stream and the streams it
 *    creates run their launches one after another, in launch order;
 *    cudaStreamFireAndForget (0x4) runs each at once; cudaStreamTailLaunch
 *    (0x3) runs them, one after another, once the launching grid and
 *    every other child of it are complete.
 *  - A grid is complete when its blocks are and every child (and tail
 *    launch) is: exec.c asks kx__cdp_idle before done(). A child's error
 *    becomes its parent's, so the host launch reports it.
 *  - Limits: a child at nesting depth above KX_CDP_DEPTH_MAX fails with
 *    cudaErrorLaunchMaxDepthExceeded; more launches waiting in streams
 *    than the launch's cdp_pending_max (cudaLimitDevRuntimePendingLaunch-
 *    Count) with cudaErrorLaunchPendingCountExceeded; the thread's last
 *    error (GetLastError, PeekAtLastError) keeps it.
 *
 * Model: a device launch takes the same launch-latency as a host launch
 * after its doorbell (the GPU catalog's figure); the parameter buffer's
 * accesses take no simulated time; a launch waiting in a stream counts
 * against the pending limit of its host-launched grid's tree, not of the
 * device. Not supported (the warp fails, naming the function):
 * cudaDeviceSynchronize in device code (CDP1, gone from CUDA 12),
 * cudaMemcpyAsync in device code (returns cudaErrorNotSupported).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/kernel/kernel.h"
#include "machine/kernel/kernel_int.h"
#include "machine/p2psim_int.h"
#include "sim/error.h"
#include "sim/sim.h"

/* CUDA's error codes, as the device runtime returns them. */
enum {
    CDP_OK = 0,
    CDP_INVALID_VALUE = 1,
    CDP_INVALID_CONFIGURATION = 9,
    CDP_MAX_DEPTH = 65,
    CDP_PENDING_COUNT = 69,
    CDP_INVALID_DEVICE_FUNCTION = 98,
    CDP_INVALID_HANDLE = 400,
    CDP_NOT_SUPPORTED = 801,
};

/* Named streams of device code (cuda_device_runtime_api.h). */
#define CDP_STREAM_TAIL 0x3u
#define CDP_STREAM_FIRE_AND_FORGET 0x4u
/* A stream the device created: this base + its index in the grid. */
#define CDP_STREAM_BASE UINT64_C(0xcd50000000000000)

/* The parameter buffers: KX_CDP_BUF_BYTES each from KX_CDP_BUF_BASE. */
struct cdp_buf {
    struct kx_grid *owner;      /* NULL: free */
    const struct ptx_kernel *k; /* V2: the kernel it is for */
    unsigned grid[3], block[3];
    uint32_t smem;
    uint8_t data[KX_CDP_BUF_BYTES];
};

static struct cdp_buf **bufs;
static unsigned n_bufs, cap_bufs;

/* A launch waiting in a stream, or running. */
struct kx_child {
    struct kx_grid *parent;
    int stream;                 /* index in parent->streams; -1: none */
    struct p2psim_launch l;
    uint8_t *params;
    bool started;
    struct kx_child *next;      /* in its stream */
};

struct kx_dstream {
    struct kx_child *head, *tail;   /* head: running, or the next */
    bool running;
};

static struct kx_grid *root_of(struct kx_grid *gr)
{
    while (gr->parent) {
        gr = gr->parent;
    }
    return gr;
}

/* ---- parameter buffers ---------------------------------------------------- */

static struct cdp_buf *buf_at(uint64_t a)
{
    uint64_t i = (a - KX_CDP_BUF_BASE) / KX_CDP_BUF_BYTES;
    if (a < KX_CDP_BUF_BASE || i >= n_bufs || !bufs[i] || !bufs[i]->owner) {
        return NULL;
    }
    return bufs[i];
}

static uint64_t buf_new(struct kx_grid *gr, struct cdp_buf **out)
{
    unsigned i = 0;
    while (i < n_bufs && bufs[i] && bufs[i]->owner) {
        i++;
    }
    if (i == n_bufs) {
        if (n_bufs == cap_bufs) {
            unsigned cap = cap_bufs ? cap_bufs * 2 : 64;
            if ((uint64_t)cap * KX_CDP_BUF_BYTES > KX_CDP_BUF_WINDOW) {
                return 0;
            }
            void *r = realloc(bufs, cap * sizeof(*bufs));
            if (!r) {
                return 0;
            }
            bufs = r;
            cap_bufs = cap;
        }
        bufs[n_bufs++] = NULL;
    }
    if (!bufs[i]) {
        bufs[i] = malloc(sizeof(*bufs[i]));
        if (!bufs[i]) {
            return 0;
        }
    }
    memset(bufs[i], 0, sizeof(*bufs[i]));
    bufs[i]->owner = gr;
    *out = bufs[i];
    return KX_CDP_BUF_BASE + (uint64_t)i * KX_CDP_BUF_BYTES;
}

bool kx__cdp_mem(struct kx_warp *w)
{
    struct ptx_mem_req *q = &w->req;
    uint32_t in = 0;
    for (unsigned l = 0; l < KX_WARP; l++) {
        if ((q->mask >> l & 1) && q->addr[l] >= KX_CDP_BUF_BASE &&
            q->addr[l] - KX_CDP_BUF_BASE < KX_CDP_BUF_WINDOW) {
            in |= 1u << l;
        }
    }
    if (!in) {
        return false;
    }
    struct kx_grid *gr = w->b->gr;
    if (in != q->mask || (q->op != PTX_MEM_LD && q->op != PTX_MEM_ST)) {
        kx__fail(gr, P2PSIM_KERNEL_MISUSE, "a launch's parameter buffer "
                 "accessed by %s (only loads and stores of it alone are "
                 "supported)", in != q->mask ? "a request also reaching "
                 "other memory" : "an atomic");
        return true;
    }
    for (unsigned l = 0; l < KX_WARP; l++) {
        if (!(in >> l & 1)) {
            continue;
        }
        struct cdp_buf *b = buf_at(q->addr[l]);
        uint64_t off = (q->addr[l] - KX_CDP_BUF_BASE) % KX_CDP_BUF_BYTES;
        if (!b || off + q->bytes_per_lane > KX_CDP_BUF_BYTES) {
            kx__fail(gr, P2PSIM_KERNEL_FAULT, "GPU %u: illegal address "
                     "0x%llx (no launch's parameter buffer) in block %u",
                     gr->l.gpu, (unsigned long long)q->addr[l], w->b->linear);
            return true;
        }
        if (q->op == PTX_MEM_ST) {
            memcpy(b->data + off, q->data[l], q->bytes_per_lane);
        } else {
            memcpy(q->result[l], b->data + off, q->bytes_per_lane);
        }
    }
    return true;
}

/* ---- launches --------------------------------------------------------------- */

static void child_start(struct kx_child *c);

static struct kx_dstream *stream_of(struct kx_child *c)
{
    return c->stream < 0 ? NULL : &c->parent->streams[c->stream];
}

static void child_done(void *arg, int status, const char *msg,
                       sim_time_t t_end)
{
    struct kx_child *c = arg;
    struct kx_grid *gr = c->parent;
    (void)t_end;
    if (status && !gr->status) {
        gr->status = status;
        snprintf(gr->msg, sizeof(gr->msg), "%s", msg ? msg : "a child grid "
                 "failed");
    }
    struct kx_dstream *st = stream_of(c);
    if (st) {
        st->head = c->next;
        if (!st->head) {
            st->tail = NULL;
        }
        st->running = false;
        if (st->head && (c->stream != gr->tail_stream || gr->ending)) {
            child_start(st->head);
        }
    }
    gr->children--;
    free(c->params);
    free(c);
    if (gr->ending) {
        kx__grid_dispatch(gr);
    }
}

static void child_start(struct kx_child *c)
{
    struct kx_grid *gr = c->parent;
    struct kx_dstream *st = stream_of(c);
    if (st) {
        st->running = true;
    }
    root_of(gr)->cdp_waiting--;
    c->started = true;
    c->l.start_at = sim_now(gr->sim);
    int rc = kx__grid_launch(gr->p, &c->l, gr);
    if (rc < 0) {
        if (rc == -SIM_ENOMEM) {
            kx__nomem(gr, "a device-side launch");
        }
        child_done(c, P2PSIM_KERNEL_MISUSE, "a device-side launch failed "
                   "to start", sim_now(gr->sim));
    }
}

/* The stream a handle names in grid gr for block b: its index, -1 (none:
 * fire-and-forget), or -2 (no such stream). */
static int stream_index(struct kx_grid *gr, struct kx_block *b, uint64_t h)
{
    if (h == CDP_STREAM_FIRE_AND_FORGET) {
        return -1;
    }
    int *slot = h == 0 ? &b->null_stream
                       : h == CDP_STREAM_TAIL ? &gr->tail_stream : NULL;
    if (!slot) {
        uint64_t i = h - CDP_STREAM_BASE;
        return h >= CDP_STREAM_BASE && i < gr->n_streams ? (int)i : -2;
    }
    if (*slot >= 0) {
        return *slot;
    }
    if (gr->n_streams == gr->cap_streams) {
        unsigned cap = gr->cap_streams ? gr->cap_streams * 2 : 4;
        void *r = realloc(gr->streams, cap * sizeof(*gr->streams));
        if (!r) {
            return -2;
        }
        gr->streams = r;
        gr->cap_streams = cap;
    }
    memset(&gr->streams[gr->n_streams], 0, sizeof(gr->streams[0]));
    *slot = (int)gr->n_streams++;
    return *slot;
}

/* Launch a child of the warp's grid: a CUDA error code (0: launched). */
static int cdp_launch(struct kx_warp *w, uint64_t ba, uint64_t stream,
                      char *msg, size_t cap, bool *fail)
{
    struct kx_grid *gr = w->b->gr;
    struct cdp_buf *b = buf_at(ba);
    if (!b || b->owner != gr || !b->k) {
        return CDP_INVALID_VALUE;
    }
    if (gr->depth + 1 > KX_CDP_DEPTH_MAX) {
        return CDP_MAX_DEPTH;
    }
    struct kx_grid *root = root_of(gr);
    unsigned max = root->l.cdp_pending_max ? root->l.cdp_pending_max
                                           : KX_CDP_PENDING_DEFAULT;
    if (root->cdp_waiting >= max) {
        return CDP_PENDING_COUNT;
    }
    int si = stream_index(gr, w->b, stream);
    if (si == -2) {
        return CDP_INVALID_HANDLE;
    }
    const struct ptx_kernel_info *ki = ptx_kernel_get_info(b->k);
    struct ptx_error err;
    if (ptx_kernel_check(b->k, &err) != 0) {
        snprintf(msg, cap, "%s", err.msg);
        *fail = true;
        return CDP_INVALID_DEVICE_FUNCTION;
    }
    struct kx_child *c = calloc(1, sizeof(*c));
    uint8_t *params = malloc(ki->param_bytes ? ki->param_bytes : 1);
    if (!c || !params) {
        free(c);
        free(params);
        snprintf(msg, cap, "out of memory");
        *fail = true;
        return CDP_INVALID_VALUE;
    }
    memcpy(params, b->data, ki->param_bytes);
    c->parent = gr;
    c->stream = si;
    c->params = params;
    c->l = gr->l;
    memcpy(c->l.grid, b->grid, sizeof(c->l.grid));
    memcpy(c->l.block, b->block, sizeof(c->l.block));
    c->l.dyn_smem = b->smem;
    c->l.blocks_per_sm = 0;
    c->l.cooperative = false;
    c->l.grid_ws = 0;
    c->l.pk = b->k;
    c->l.param_buf = params;
    c->l.param_bytes = ki->param_bytes;
    c->l.static_smem = ki->shared_bytes;
    c->l.var_addrs = gr->vars;
    c->l.done = child_done;
    c->l.done_arg = c;
    b->owner = NULL;            /* consumed */
    gr->children++;
    root->cdp_waiting++;
    struct kx_dstream *st = si >= 0 ? &gr->streams[si] : NULL;
    if (!st) {
        child_start(c);
        return CDP_OK;
    }
    if (st->tail) {
        st->tail->next = c;
    } else {
        st->head = c;
    }
    st->tail = c;
    if (!st->running && st->head == c && si != gr->tail_stream) {
        child_start(c);
    }
    return CDP_OK;
}

bool kx__cdp_idle(struct kx_grid *gr)
{
    unsigned tail_left = 0;
    if (gr->tail_stream >= 0) {
        struct kx_dstream *st = &gr->streams[gr->tail_stream];
        for (struct kx_child *c = st->head; c; c = c->next) {
            tail_left++;
        }
        /* the tail starts once every other child is complete */
        if (st->head && !st->running && gr->children == tail_left) {
            child_start(st->head);
        }
    }
    return gr->children == 0;
}

void kx__cdp_free(struct kx_grid *gr)
{
    for (unsigned i = 0; i < n_bufs; i++) {
        if (bufs[i] && bufs[i]->owner == gr) {
            bufs[i]->owner = NULL;
        }
    }
    free(gr->streams);
    gr->streams = NULL;
}

/* ---- the device runtime's functions ---------------------------------------- */

static uint64_t arg_u64(const struct ptx_devrt_call *c, unsigned i)
{
    uint64_t v = 0;
    if (i < c->n_args) {
        memcpy(&v, c->arg[i], c->arg_bytes[i] < 8 ? c->arg_bytes[i] : 8);
    }
    return v;
}

static void arg_dim3(const struct ptx_devrt_call *c, unsigned i,
                     unsigned d[3])
{
    uint32_t v[3] = { 0, 0, 0 };
    if (i < c->n_args) {
        memcpy(v, c->arg[i], c->arg_bytes[i] < 12 ? c->arg_bytes[i] : 12);
    }
    memcpy(d, v, sizeof(v));
}

static bool config_ok(const unsigned g[3], const unsigned b[3])
{
    uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
    return (uint64_t)g[0] * g[1] * g[2] != 0 && threads != 0 &&
           threads <= 1024;
}

int kx__devrt(void *user, struct ptx_devrt_call *c, char *msg, size_t cap)
{
    struct kx_warp *w = user;
    struct kx_grid *gr = w->b->gr;
    uint32_t *last = &w->last_err[c->lane];
    int e = CDP_OK;
    bool fail = false;
    switch (c->fn) {
    case PTX_DEVRT_GET_PARAM_BUF:
    case PTX_DEVRT_GET_PARAM_BUF_V2: {
        struct cdp_buf *b = NULL;
        c->ret = 0;
        if (c->fn == PTX_DEVRT_GET_PARAM_BUF) {
            /* (alignment, size): the kernel comes with LaunchDevice */
            if (arg_u64(c, 1) > KX_CDP_BUF_BYTES) {
                e = CDP_INVALID_VALUE;
                break;
            }
            c->ret = buf_new(gr, &b);
            break;
        }
        const char *name = ptx_module_entry_name(
            ptx_kernel_module(gr->l.pk), arg_u64(c, 0));
        const struct ptx_kernel *k =
            name ? ptx_module_find(ptx_kernel_module(gr->l.pk), name) : NULL;
        if (!k) {
            snprintf(msg, cap, "a launch of 0x%llx%s%s, which is no kernel "
                     "of the module", (unsigned long long)arg_u64(c, 0),
                     name ? ", " : "", name ? name : "");
            return -1;
        }
        if (ptx_kernel_get_info(k)->param_bytes > KX_CDP_BUF_BYTES) {
            snprintf(msg, cap, "kernel %s takes %u bytes of parameters (a "
                     "device-side launch, at most %u)",
                     ptx_kernel_get_info(k)->name,
                     ptx_kernel_get_info(k)->param_bytes, KX_CDP_BUF_BYTES);
            return -1;
        }
        unsigned g[3], bl[3];
        arg_dim3(c, 1, g);
        arg_dim3(c, 2, bl);
        if (!config_ok(g, bl)) {
            e = CDP_INVALID_CONFIGURATION;
            break;
        }
        c->ret = buf_new(gr, &b);
        if (b) {
            b->k = k;
            memcpy(b->grid, g, sizeof(g));
            memcpy(b->block, bl, sizeof(bl));
            b->smem = (uint32_t)arg_u64(c, 3);
        }
        break;
    }
    case PTX_DEVRT_LAUNCH: {
        /* (func, buf, grid, block, smem, stream) */
        struct cdp_buf *b = buf_at(arg_u64(c, 1));
        const struct ptx_module *m = ptx_kernel_module(gr->l.pk);
        const char *name = ptx_module_entry_name(m, arg_u64(c, 0));
        const struct ptx_kernel *k = name ? ptx_module_find(m, name) : NULL;
        if (!k) {
            snprintf(msg, cap, "a launch of 0x%llx, which is no kernel of "
                     "the module", (unsigned long long)arg_u64(c, 0));
            return -1;
        }
        if (b && b->owner == gr) {
            b->k = k;
            arg_dim3(c, 2, b->grid);
            arg_dim3(c, 3, b->block);
            b->smem = (uint32_t)arg_u64(c, 4);
            if (!config_ok(b->grid, b->block)) {
                e = CDP_INVALID_CONFIGURATION;
                break;
            }
        }
        e = cdp_launch(w, arg_u64(c, 1), arg_u64(c, 5), msg, cap, &fail);
        break;
    }
    case PTX_DEVRT_LAUNCH_V2:
        e = cdp_launch(w, arg_u64(c, 0), arg_u64(c, 1), msg, cap, &fail);
        break;
    case PTX_DEVRT_STREAM_CREATE: {
        /* a stream of its own, as a named one with no handle yet */
        int none = -1;
        int saved = w->b->null_stream;
        w->b->null_stream = none;
        int i = stream_index(gr, w->b, 0);
        w->b->null_stream = saved;
        if (i < 0) {
            snprintf(msg, cap, "out of memory");
            return -1;
        }
        c->out_val = CDP_STREAM_BASE + (uint64_t)i;
        c->out_bytes = 8;
        break;
    }
    case PTX_DEVRT_STREAM_DESTROY:
        /* its launches still run; the handle stays valid in the grid */
        e = stream_index(gr, w->b, arg_u64(c, 0)) == -2 ? CDP_INVALID_HANDLE
                                                        : CDP_OK;
        break;
    case PTX_DEVRT_GET_LAST_ERROR:
        c->ret = *last;
        *last = 0;
        return 0;
    case PTX_DEVRT_PEEK_AT_LAST_ERROR:
        c->ret = *last;
        return 0;
    case PTX_DEVRT_GET_ERROR_STRING:
        c->ret = 0;             /* Simplification: no device string */
        return 0;
    case PTX_DEVRT_GET_DEVICE:
        c->out_val = gr->l.gpu;
        c->out_bytes = 4;
        break;
    case PTX_DEVRT_MEMCPY_ASYNC:
        if (!gr->cdp_said_memcpy) {
            gr->cdp_said_memcpy = true;
            fprintf(stderr, "p2psim: kernel %s: cudaMemcpyAsync in device "
                    "code is not supported (cudaErrorNotSupported)\n",
                    ptx_kernel_get_info(gr->l.pk)->name);
        }
        e = CDP_NOT_SUPPORTED;
        break;
    case PTX_DEVRT_DEVICE_SYNC:
    default:
        snprintf(msg, cap, "not supported in device code (CUDA 12's "
                 "dynamic parallelism has no device-side synchronization)");
        return -1;
    }
    if (fail) {
        return -1;
    }
    c->ret = c->fn == PTX_DEVRT_GET_PARAM_BUF ||
             c->fn == PTX_DEVRT_GET_PARAM_BUF_V2 ? c->ret : (uint64_t)e;
    if (e) {
        *last = (uint32_t)e;
    }
    return 0;
}
