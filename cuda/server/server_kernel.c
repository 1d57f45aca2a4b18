/*
 * cuda/server/server_kernel.c - grids on the p2psim server's machine:
 * the PTX modules a client loads (WIRE_MODULE_LOAD, in chunks, parsed
 * when whole) and the launches of their kernels (WIRE_KERNEL_LAUNCH),
 * whose addresses resolve through the table of ranges the launch carries
 * (the client's allocations as they stood when its stream reached the
 * launch; any other address is illegal, as in the client's own process).
 * Host memory among them is the client's memfds (server.c), so a kernel
 * reads what the program's threads store there. The grid's end is a
 * callback carrying the failure's message. Moved as it was from server.c.
 */
#include <config.h>

#include "cuda/server/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/kernel/kernel.h"
#include "machine/p2psim.h"
#include "ptx/ptx.h"
#include "sim/error.h"

/* Where a grid's address is: in one of its ranges, whole, or nowhere. */
static int kop_resolve(void *arg, unsigned gpu, uint64_t va, uint64_t len,
                       struct p2psim_loc *loc)
{
    const struct srv_kop *k = arg;
    unsigned lo = 0, hi = k->n_ranges;
    (void)gpu;                  /* the client chose the ranges for it */
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (k->ranges[mid].va <= va) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0) {
        return -1;
    }
    const struct wire_kernel_range *r = &k->ranges[lo - 1];
    uint64_t off = va - r->va;
    if (off >= r->len || len > r->len - off) {
        return -1;
    }
    *loc = (struct p2psim_loc){ .kind = r->loc.kind, .gpu = r->loc.gpu,
                                .addr = r->loc.addr + off };
    return 0;
}

static void op_kernel_done(void *arg, int status, const char *msg,
                           sim_time_t t_end)
{
    struct srv_kop *k = arg;
    struct wire_callback cb = {
        .cb = k->op.cb,
        .status = status,
        .t_start = k->t_start,
        .t_end = t_end,
    };
    srv_op_finish(&k->op, &cb, status && msg ? msg : NULL);
}

static struct srv_module *module_find(struct srv_client *c, uint64_t id)
{
    for (struct srv_module *m = c->modules; m; m = m->next) {
        if (m->id == id) {
            return m;
        }
    }
    return NULL;
}

/* Give mod's text room for need bytes and a NUL (it grows as chunks
 * arrive, so a header's total alone allocates nothing). */
static int module_room(struct srv_module *mod, uint64_t need)
{
    if (need + 1 <= mod->cap) {
        return 0;
    }
    uint64_t cap = mod->cap ? mod->cap : 4096;
    while (cap < need + 1) {
        cap *= 2;
    }
    if (cap > mod->total + 1) {
        cap = mod->total + 1;
    }
    char *t = realloc(mod->text, cap);
    if (!t) {
        return -SIM_ENOMEM;
    }
    mod->text = t;
    mod->cap = cap;
    return 0;
}

void srv_module_remove(struct srv_client *c, struct srv_module *mod)
{
    for (struct srv_module **pp = &c->modules; *pp; pp = &(*pp)->next) {
        if (*pp == mod) {
            *pp = mod->next;
            break;
        }
    }
    c->n_modules--;
    ptx_module_free(mod->mod);
    free(mod->text);
    free(mod);
}

/* A chunk of a module's PTX; the last one parses it (*line: where not). */
int srv_on_module_load(struct server *s, struct srv_client *c,
                       struct srv_req *r)
{
    const struct wire_module *m = r->m;
    const char *data = (const char *)r->tail;
    uint64_t n = r->tail_len, *line = &r->v[0];
    (void)s;
    struct srv_module *mod = module_find(c, m->id);
    if (!mod) {
        if (m->id == 0 || m->offset != 0 || m->total > SRV_MAX_MODULE_BYTES) {
            return -SIM_EINVAL;
        }
        if (c->n_modules >= SRV_MAX_MODULES ||
            !(mod = calloc(1, sizeof(*mod)))) {
            return -SIM_ENOMEM;
        }
        mod->id = m->id;
        mod->total = m->total;
        mod->next = c->modules;
        c->modules = mod;
        c->n_modules++;
    }
    if (mod->mod) {
        return -SIM_EEXIST;
    }
    if (m->total != mod->total || m->offset != mod->have ||
        n > mod->total - mod->have) {
        return -SIM_EINVAL;
    }
    if (module_room(mod, mod->have + n) < 0) {
        return -SIM_ENOMEM;
    }
    memcpy(mod->text + mod->have, data, n);
    mod->have += n;
    if (mod->have < mod->total) {
        return 0;
    }
    mod->text[mod->total] = '\0';
    struct ptx_error err;
    memset(&err, 0, sizeof(err));
    mod->mod = ptx_module_parse(mod->text, mod->total, &err);
    free(mod->text);
    mod->text = NULL;
    mod->cap = 0;
    if (!mod->mod) {
        fprintf(stderr, "p2psim server: a PTX module of process %u: %s\n",
                c->pid, err.msg);
        srv_module_remove(c, mod);
        *line = err.line;
        return -SIM_EINVAL;
    }
    return 0;
}

/* Ranges a grid may reach: disjoint, in order, at places that exist. */
static bool ranges_ok(const struct server *s,
                      const struct wire_kernel_range *r, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (r[i].len == 0 || r[i].va + r[i].len < r[i].va ||
            (i && r[i - 1].va + r[i - 1].len > r[i].va) ||
            !srv_loc_ok(s, &r[i].loc, r[i].len)) {
            return false;
        }
    }
    return true;
}

/* Start a grid of a kernel of one of c's modules (payload: wire.h). */
int srv_on_kernel(struct server *s, struct srv_client *c, struct srv_req *r)
{
    const struct wire_kernel *m = r->m;
    const unsigned char *data = r->tail;
    size_t n = r->tail_len;
    size_t name_at = 0, param_at = wire_pad8(m->name_len);
    size_t vars_at = param_at + wire_pad8(m->param_bytes);
    size_t ranges_at = vars_at + (size_t)m->n_vars * sizeof(uint64_t);
    if (m->name_len == 0 || m->name_len > n || m->n_vars > n ||
        m->n_ranges > n || m->param_bytes > n || m->gpu >= s->n_gpus ||
        ranges_at + (size_t)m->n_ranges * sizeof(struct wire_kernel_range) !=
            n) {
        return -SIM_EINVAL;
    }
    /* CUDA's limits (the shim checks them before it sends a launch); the
     * product of three grid sizes past them wrapped 64 bits. */
    if (m->grid[0] > INT32_MAX || m->grid[1] > 65535 || m->grid[2] > 65535 ||
        m->block[0] > 1024 || m->block[1] > 1024 || m->block[2] > 64) {
        return -SIM_EINVAL;
    }
    struct srv_module *mod = module_find(c, m->module);
    if (!mod || !mod->mod) {
        return -SIM_ENOENT;
    }
    char *name = strndup((const char *)data + name_at, m->name_len);
    if (!name) {
        return -SIM_ENOMEM;
    }
    const struct ptx_kernel *pk = ptx_module_find(mod->mod, name);
    free(name);
    struct ptx_error err;
    if (!pk || ptx_kernel_check(pk, &err) < 0) {
        return -SIM_ENOENT;
    }
    const struct ptx_kernel_info *info = ptx_kernel_get_info(pk);
    if (m->param_bytes != info->param_bytes) {
        return -SIM_EINVAL;
    }
    struct srv_kop *k = s->n_ops < SRV_MAX_OPS ? calloc(1, sizeof(*k))
                                               : NULL;
    if (!k) {
        return -SIM_ENOMEM;
    }
    k->n_ranges = m->n_ranges;
    if (m->n_ranges) {
        k->ranges = malloc(m->n_ranges * sizeof(*k->ranges));
        if (!k->ranges) {
            free(k);
            return -SIM_ENOMEM;
        }
        memcpy(k->ranges, data + ranges_at,
               m->n_ranges * sizeof(*k->ranges));
    }
    uint64_t *vars = NULL;
    if (m->n_vars) {
        vars = malloc(m->n_vars * sizeof(*vars));
        if (!vars) {
            free(k->ranges);
            free(k);
            return -SIM_ENOMEM;
        }
        memcpy(vars, data + vars_at, m->n_vars * sizeof(*vars));
    }
    if (!ranges_ok(s, k->ranges, k->n_ranges)) {
        free(vars);
        free(k->ranges);
        free(k);
        return -SIM_EINVAL;
    }
    k->op = (struct srv_op){ .s = s, .c = c, .cb = m->cb, .kernel = true };
    k->t_start = m->start_at;
    struct p2psim_launch l = {
        .gpu = m->gpu,
        .grid = { m->grid[0], m->grid[1], m->grid[2] },
        .block = { m->block[0], m->block[1], m->block[2] },
        .dyn_smem = m->dyn_smem,
        .blocks_per_sm = m->blocks_per_sm,
        .cooperative = m->cooperative != 0,
        .cdp_pending_max = m->cdp_pending_max,
        .grid_ws = m->grid_ws,
        .heap_base = m->heap_base,
        .heap_bytes = m->heap_bytes,
        .pk = pk,
        .param_buf = data + param_at,
        .param_bytes = m->param_bytes,
        .static_smem = info->shared_bytes,
        .var_addrs = vars,
        .n_vars = m->n_vars,
        .resolve = kop_resolve,
        .resolve_arg = k,
        .start_at = m->start_at,
        .done = op_kernel_done,
        .done_arg = k,
    };
    srv_op_link(s, &k->op);
    int rc = p2psim_kernel_launch(s->p, &l);
    free(vars);                 /* copied by the launch */
    if (rc < 0) {
        srv_op_unlink(&k->op);
        srv_op_free(&k->op);
        return rc;
    }
    return 0;
}
