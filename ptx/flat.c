/*
 * ptx/flat.c - the flat-memory reference executor (see flat.h).
 *
 * Model: blocks run sequentially; inside a block each warp runs until it
 * stops (memory request, barrier, or a budget of instructions so that a
 * warp spinning on shared memory lets the others run), round robin. A
 * barrier releases when every warp of the block that has not exited
 * waits at it. Memory requests are served at once with memcpy on host
 * pointers, atomics with ptx_atom_apply(), malloc and free with the
 * host's (a kernel must free what it allocates, or it leaks).
 */
#include <config.h>

#include "ptx/flat.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLAT_BUDGET 4096u

/* Model: every time register reads the block's warp-instruction count. */
static uint64_t flat_time(void *user, enum ptx_time_sreg which)
{
    (void)which;
    return *(const uint64_t *)user;
}

/* A load's or store's lanes, n bytes each: with n a constant where
 * inlined, each copy is a move (a call of a variable-size memcpy per
 * lane would cost more than the rest of the request). */
static inline void serve_copy(struct ptx_mem_req *q, unsigned n)
{
    bool ld = q->op == PTX_MEM_LD;
    for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
        if (q->mask >> l & 1u) {
            void *p = (void *)(uintptr_t)q->addr[l];
            if (ld) {
                memcpy(q->result[l], p, n);
            } else {
                memcpy(p, q->data[l], n);
            }
        }
    }
}

static void flat_serve(struct ptx_mem_req *q)
{
    if (q->op == PTX_MEM_LD || q->op == PTX_MEM_ST) {
        switch (q->bytes_per_lane) {
        case 4: serve_copy(q, 4); return;
        case 8: serve_copy(q, 8); return;
        case 16: serve_copy(q, 16); return;
        default: serve_copy(q, q->bytes_per_lane); return;
        }
    }
    for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
        if (!(q->mask >> l & 1u)) {
            continue;
        }
        void *p = (void *)(uintptr_t)q->addr[l];
        switch (q->op) {
        case PTX_MEM_ATOM:
        case PTX_MEM_RED: {
            uint64_t old = 0, nv;
            memcpy(&old, p, q->bytes_per_lane);
            nv = ptx_atom_apply(q->atom, q->atype, old, q->data[l][0],
                                q->cmp[l]);
            memcpy(p, &nv, q->bytes_per_lane);
            q->result[l][0] = old;
            break;
        }
        case PTX_MEM_MALLOC:
            /* the device heap is the host's: addresses are pointers */
            q->result[l][0] = (uint64_t)(uintptr_t)malloc(q->data[l][0]);
            break;
        case PTX_MEM_FREE:
            free((void *)(uintptr_t)q->data[l][0]);
            break;
        default:
            break;
        }
    }
}

static int flat_block(const struct ptx_flat_launch *l, const void *params,
                      struct ptx_dim3 ctaid, struct ptx_flat_stats *st,
                      struct ptx_error *err)
{
    const struct ptx_kernel_info *info = ptx_kernel_get_info(l->kernel);
    uint32_t threads = l->block.x * l->block.y * l->block.z;
    unsigned n_warps = (threads + PTX_WARP_SIZE - 1) / PTX_WARP_SIZE;
    uint32_t smem_bytes = info->dyn_shared_offset + l->dyn_shared_bytes;
    uint8_t *smem = calloc(1, smem_bytes ? smem_bytes : 1);
    struct ptx_warp **w = calloc(n_warps, sizeof(*w));
    enum ptx_stop *stop = calloc(n_warps, sizeof(*stop));
    uint64_t clock = 0;
    uint32_t bar_true = 0, bar_lanes = 0; /* bar.red, this barrier */
    int rc = 0;
    if (!smem || !w || !stop) {
        rc = PTX_ENOMEM;
        goto out;
    }
    for (unsigned i = 0; i < n_warps; i++) {
        struct ptx_warp_ctx c;
        memset(&c, 0, sizeof(c));
        for (unsigned lane = 0; lane < PTX_WARP_SIZE; lane++) {
            uint32_t t = i * PTX_WARP_SIZE + lane;
            if (t >= threads) {
                break;
            }
            c.lane_mask |= 1u << lane;
            c.tid[lane].x = t % l->block.x;
            c.tid[lane].y = t / l->block.x % l->block.y;
            c.tid[lane].z = t / (l->block.x * l->block.y);
        }
        c.ntid = l->block;
        c.ctaid = ctaid;
        c.nctaid = l->grid;
        c.warpid = i;
        c.nwarpid = n_warps;
        c.nsmid = 1;
        c.shared = smem;
        c.shared_bytes = smem_bytes;
        c.shared_window_base = PTX_FLAT_SHARED_WINDOW;
        c.shared_window_bytes = smem_bytes;
        c.local_window_base = PTX_FLAT_LOCAL_WINDOW;
        c.local_window_bytes = info->local_bytes;
        c.var_addrs = l->var_addrs;
        c.n_var_addrs = l->n_var_addrs;
        c.time_fn = flat_time;
        c.time_user = &clock;
        c.tex_ops = l->tex_ops;
        c.tex_user = l->tex_user;
        c.yield_after = FLAT_BUDGET;
        w[i] = ptx_warp_new(l->kernel, params, &c, err);
        if (!w[i]) {
            rc = err ? err->code : PTX_EINVAL;
            goto out;
        }
        stop[i] = PTX_STOP_YIELD;
    }
    struct ptx_mem_req *q = malloc(sizeof(*q));
    if (!q) {
        rc = PTX_ENOMEM;
        goto out;
    }
    for (;;) {
        unsigned running = 0, waiting = 0;
        for (unsigned i = 0; i < n_warps; i++) {
            if (stop[i] == PTX_STOP_EXIT || stop[i] == PTX_STOP_BAR) {
                continue;
            }
            running++;
            uint64_t before = ptx_warp_instr_count(w[i]);
            stop[i] = ptx_warp_run(w[i], q);
            clock += ptx_warp_instr_count(w[i]) - before;
            if (stop[i] == PTX_STOP_MEM) {
                flat_serve(q);
                ptx_warp_resume(w[i], q);
                st->mem_reqs++;
                stop[i] = PTX_STOP_YIELD;
            } else if (stop[i] == PTX_STOP_BAR) {
                st->barriers++;
                bar_true += (uint32_t)__builtin_popcount(q->bar_pred);
                bar_lanes += (uint32_t)__builtin_popcount(q->bar_mask);
            } else if (stop[i] == PTX_STOP_ERROR) {
                if (err) {
                    err->code = PTX_EINVAL;
                    err->line = q->line;
                    snprintf(err->msg, sizeof(err->msg), "%s", q->error);
                }
                rc = PTX_EINVAL;
                break;
            }
        }
        if (rc) {
            break;
        }
        for (unsigned i = 0; i < n_warps; i++) {
            waiting += stop[i] == PTX_STOP_BAR;
        }
        if (running == 0 && waiting == 0) {
            break;
        }
        if (running == 0 || waiting > 0) {
            /* release the barrier once no warp is still running to it */
            bool all = true;
            for (unsigned i = 0; i < n_warps; i++) {
                if (stop[i] != PTX_STOP_BAR && stop[i] != PTX_STOP_EXIT) {
                    all = false;
                }
            }
            if (all) {
                for (unsigned i = 0; i < n_warps; i++) {
                    if (stop[i] == PTX_STOP_BAR) {
                        ptx_warp_bar_release(w[i], bar_true, bar_lanes);
                        stop[i] = PTX_STOP_YIELD;
                    }
                }
                bar_true = bar_lanes = 0;
            }
        }
    }
    free(q);
out:
    for (unsigned i = 0; w && i < n_warps; i++) {
        if (w[i]) {
            st->warp_instrs += ptx_warp_instr_count(w[i]);
        }
        ptx_warp_free(w ? w[i] : NULL);
    }
    if (rc == PTX_ENOMEM && err) {
        err->code = rc;
        snprintf(err->msg, sizeof(err->msg), "out of memory");
    }
    free(w);
    free(stop);
    free(smem);
    return rc;
}

int ptx_flat_run(const struct ptx_flat_launch *l, struct ptx_flat_stats *st,
                 struct ptx_error *err)
{
    struct ptx_flat_stats dummy = {0};
    if (!st) {
        st = &dummy;
    }
    int rc = ptx_kernel_check(l->kernel, err);
    if (rc) {
        return rc;
    }
    const struct ptx_kernel_info *info = ptx_kernel_get_info(l->kernel);
    void *params = calloc(1, info->param_bytes ? info->param_bytes : 1);
    if (!params) {
        return PTX_ENOMEM;
    }
    ptx_kernel_pack_params(l->kernel, l->args, params);
    for (uint32_t z = 0; z < l->grid.z && !rc; z++) {
        for (uint32_t y = 0; y < l->grid.y && !rc; y++) {
            for (uint32_t x = 0; x < l->grid.x && !rc; x++) {
                struct ptx_dim3 c = {x, y, z};
                rc = flat_block(l, params, c, st, err);
            }
        }
    }
    free(params);
    return rc;
}
