/*
 * tools/cmd_server.c - `p2psim server --socket PATH [--topology FILE]`:
 * one simulated machine shared by every process of a program.
 *
 * The CUDA shim in each process (api/cudart/remote.c) connects to the
 * UNIX socket named by P2PSIM_SERVER and sends its machine operations
 * here (copies, fills, timers, HBM allocation and bytes, pinned host
 * memory, IPC exports); this process runs them on its machine and sends
 * each completion back to the process that asked, at the simulated time it
 * happens. `p2psim run` starts a server for every program (cmd_run.c):
 * it binds the socket itself and hands the listening descriptor over with
 * the internal option --listen-fd, so the program can connect from its
 * first instruction.
 *
 * The protocol and its rules of time are in api/cudart/wire.h. In short:
 * the simulation runs only while no client is busy and at least one is
 * waiting inside the simulator; it stops at the first completion for any
 * client (then every event of that same instant), or at the smallest of
 * the waiting clients' deadlines; the completions go out as batches, and a
 * client that got a batch is busy until it says it is idle again.
 *
 * Host memory: a client's pinned memory is a memfd it passes along with
 * WIRE_HOST_REGISTER; the server maps the same pages and registers them
 * with its machine, so the copy engines move the client's bytes in place.
 *
 * Kernels: a client loads each module's PTX text once (WIRE_MODULE_LOAD);
 * this process parses it, and runs a grid of one of its kernels when the
 * client's stream reaches the launch (WIRE_KERNEL_LAUNCH), on its
 * machine's SMs. The grid's addresses resolve through the table of ranges
 * the launch carries (the client's allocations as they stood when the
 * grid started; any other address is illegal, as in the client's own
 * process); host memory among them is the client's memfds above, so a
 * kernel reads what the program's threads store there. The grid's end
 * goes back as a callback carrying the failure's message.
 *
 * IPC and who owns which HBM: tools/server_ipc.c.
 *
 * A client that disconnects is gone: its queued callbacks are dropped,
 * its operations still in the simulation finish without a recipient, its
 * HBM and host memory are released (host memory and PTX modules once
 * those operations are over; HBM that other processes have open, when
 * they close it).
 *
 * Not modelled: several machines per server, clients of different
 * machines (HELLO refuses a client whose machine differs), persistence.
 * The nonces protect against mistakes and forgeries by programs, not
 * against a hostile user of the same account, who could read the
 * server's memory anyway; likewise a client that stops in the middle of
 * a message stalls the server (clients are the shim, which writes whole
 * messages).
 */
#define _GNU_SOURCE /* accept4, MSG_CMSG_CLOEXEC */
#include <config.h>

#include "tools/server.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "api/kernel/kernel.h"
#include "api/links.h"
#include "api/p2psim.h"
#include "api/ptx/ptx.h"
#include "sim/error.h"
#include "sim/sim.h"
#include "tools/cli.h"

#define SERVER_USAGE                                                          \
    "usage: p2psim server --socket PATH [--topology FILE] [--quiet]"

/* ---- state ---------------------------------------------------------------------- */

/* An operation of a client inside the simulation. */
struct srv_op {
    struct server *s;
    struct srv_client *c;
    uint64_t cb;
};

/* A grid: the operation, and the memory its addresses resolve to. */
struct srv_kop {
    struct srv_op op;           /* first: freed as the op */
    struct wire_kernel_range *ranges;   /* sorted by va, disjoint */
    unsigned n_ranges;
    sim_time_t t_start;
};

static volatile sig_atomic_t srv_stop;
/* The signal mask while waiting in ppoll: the stop signals unblocked. */
static sigset_t srv_wait_mask;

static void on_signal(int sig)
{
    (void)sig;
    srv_stop = 1;
}

/*
 * A random 64-bit value for session ids and nonces. These are tokens that
 * make handles unforgeable by accident, not simulated randomness, so they
 * do not come from the simulation's seeded RNG.
 */
uint64_t srv_random_u64(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v)) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^
            (uint64_t)ts.tv_sec << 20 ^ (uint64_t)getpid();
    }
    return v ? v : 1;
}

/* ---- sending --------------------------------------------------------------------- */


static int write_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Send a message; a client that cannot take it is gone. */
static int send_msg(struct server *s, struct srv_client *c, uint32_t type,
                    uint64_t seq, const void *a, size_t a_len,
                    const void *b, size_t b_len)
{
    if (c->fd < 0) {
        return -1;
    }
    struct wire_hdr h = {
        .type = type,
        .len = (uint32_t)(a_len + b_len),
        .seq = seq,
        .now = sim_now(s->sim),
    };
    if (write_full(c->fd, &h, sizeof(h)) < 0 ||
        (a_len && write_full(c->fd, a, a_len) < 0) ||
        (b_len && write_full(c->fd, b, b_len) < 0)) {
        srv_client_drop(s, c);
        return -1;
    }
    return 0;
}

static void reply(struct server *s, struct srv_client *c, uint64_t seq,
                  int rc, uint64_t v0, uint64_t v1, uint64_t v2)
{
    struct wire_reply r = { .rc = rc, .v = { v0, v1, v2 } };
    send_msg(s, c, WIRE_REPLY, seq, &r, sizeof(r), NULL, 0);
}

/* Queue a callback for c's next batch. */
void srv_queue_callback(struct server *s, struct srv_client *c,
                        const struct wire_callback *cb)
{
    srv_queue_callback_msg(s, c, cb, NULL);
}

void srv_queue_callback_msg(struct server *s, struct srv_client *c,
                            const struct wire_callback *cb, const char *msg)
{
    if (c->fd < 0) {
        return;
    }
    if (c->n_out == c->cap_out) {
        unsigned cap = c->cap_out ? 2 * c->cap_out : 16;
        void *n = realloc(c->out, cap * sizeof(*c->out));
        if (!n) {
            fprintf(stderr, "p2psim server: out of memory; dropping "
                            "client %u\n", c->id);
            srv_client_drop(s, c);
            return;
        }
        c->out = n;
        c->cap_out = cap;
    }
    struct srv_out *o = &c->out[c->n_out++];
    o->cb = *cb;
    o->msg = NULL;
    if (msg) {
        /* what does not fit in a message is cut (WIRE_MSG_MAX) */
        o->msg = strndup(msg, WIRE_MSG_MAX - 1);
    }
    s->produced = true;
    /* Stop right after this event: the run must not go on to its limit
     * (with nothing else pending it would jump there) before the client
     * has reacted at this instant. Outside a run, the next run clears it. */
    sim_stop(s->sim);
}

/* The batch: queued callbacks, then END. c becomes busy. */
static void deliver(struct server *s, struct srv_client *c, bool nothing)
{
    for (unsigned i = 0; i < c->n_out; i++) {
        struct srv_out *o = &c->out[i];
        int rc = send_msg(s, c, WIRE_CALLBACK, 0, &o->cb, sizeof(o->cb),
                          o->msg, o->msg ? strlen(o->msg) + 1 : 0);
        free(o->msg);
        o->msg = NULL;
        if (rc < 0) {
            return;             /* c is dropped: the rest with it */
        }
    }
    c->n_out = 0;
    struct wire_end e = { .nothing = nothing };
    if (send_msg(s, c, WIRE_END, 0, &e, sizeof(e), NULL, 0) == 0) {
        c->state = SRV_BUSY;
    }
}

/* ---- clients -------------------------------------------------------------------- */

/* What c's operations in the simulation use: its host memory and its
 * PTX modules. Released when none is left. */
static void maps_release(struct server *s, struct srv_client *c)
{
    while (c->maps) {
        struct srv_map *m = c->maps;
        c->maps = m->next;
        p2psim_host_unregister(s->p, m->bus);
        munmap(m->base, m->map_len);
        free(m);
    }
    while (c->modules) {
        struct srv_module *m = c->modules;
        c->modules = m->next;
        ptx_module_free(m->mod);
        free(m->text);
        free(m);
    }
}

static void out_free(struct srv_client *c)
{
    for (unsigned i = 0; i < c->n_out; i++) {
        free(c->out[i].msg);
    }
    free(c->out);
    c->out = NULL;
    c->n_out = c->cap_out = 0;
}

/*
 * c is gone: release what it held. The struct stays (operations in the
 * simulation and waiters may still point at it) and is freed at exit.
 */
void srv_client_drop(struct server *s, struct srv_client *c)
{
    if (c->fd < 0) {
        return;
    }
    close(c->fd);
    c->fd = -1;
    s->n_live--;
    out_free(c);
    srv_ipc_client_gone(s, c);
    if (c->inflight == 0) {
        maps_release(s, c);
    }
}

/* ---- operations in the simulation ---------------------------------------------- */

static struct srv_op *op_new(struct server *s, struct srv_client *c,
                             uint64_t cb)
{
    struct srv_op *op = malloc(sizeof(*op));
    if (op) {
        op->s = s;
        op->c = c;
        op->cb = cb;
    }
    return op;
}

static void op_finish(struct srv_op *op, const struct wire_callback *cb,
                      const char *msg)
{
    struct srv_client *c = op->c;
    c->inflight--;
    if (c->fd >= 0) {
        srv_queue_callback_msg(op->s, c, cb, msg);
    } else if (c->inflight == 0) {
        maps_release(op->s, c);
    }
    free(op);
}

static void op_copy_done(void *arg, const struct p2psim_copy_result *r)
{
    struct srv_op *op = arg;
    struct wire_callback cb = {
        .cb = op->cb,
        .status = r->status,
        .staged = r->staged,
        .t_start = r->t_start,
        .t_end = r->t_end,
    };
    op_finish(op, &cb, NULL);
}

static void op_timer_fire(void *arg)
{
    struct srv_op *op = arg;
    sim_time_t now = sim_now(op->s->sim);
    struct wire_callback cb = { .cb = op->cb, .t_start = now, .t_end = now };
    op_finish(op, &cb, NULL);
}

/* ---- kernels -------------------------------------------------------------------- */

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
    free(k->ranges);
    op_finish(&k->op, &cb, status && msg ? msg : NULL);
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

/* Largest PTX text a module may have (nvcc's are well below). */
#define SRV_MODULE_MAX_BYTES (UINT64_C(1) << 30)

/* A chunk of a module's PTX; the last one parses it (*line: where not). */
static int do_module_load(struct srv_client *c, const struct wire_module *m,
                          const char *data, uint64_t n, uint64_t *line)
{
    struct srv_module *mod = module_find(c, m->id);
    if (!mod) {
        if (m->id == 0 || m->offset != 0 || m->total > SRV_MODULE_MAX_BYTES) {
            return -SIM_EINVAL;
        }
        mod = calloc(1, sizeof(*mod));
        if (!mod || !(mod->text = malloc(m->total + 1))) {
            free(mod);
            return -SIM_ENOMEM;
        }
        mod->id = m->id;
        mod->total = m->total;
        mod->next = c->modules;
        c->modules = mod;
    }
    if (!mod->text || m->total != mod->total || m->offset != mod->have ||
        n > mod->total - mod->have) {
        return mod->text ? -SIM_EINVAL : -SIM_EEXIST;
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
    if (!mod->mod) {
        fprintf(stderr, "p2psim server: a PTX module of process %u: %s\n",
                c->pid, err.msg);
        for (struct srv_module **pp = &c->modules; *pp; pp = &(*pp)->next) {
            if (*pp == mod) {
                *pp = mod->next;
                break;
            }
        }
        free(mod);
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
            !(r[i].loc.kind == P2PSIM_HOST ||
              (r[i].loc.kind == P2PSIM_DEVICE && r[i].loc.gpu < s->n_gpus))) {
            return false;
        }
    }
    return true;
}

/* Start a grid of a kernel of one of c's modules (payload: wire.h). */
static int do_kernel(struct server *s, struct srv_client *c,
                     const struct wire_kernel *m, const unsigned char *data,
                     size_t n)
{
    size_t name_at = 0, param_at = wire_pad8(m->name_len);
    size_t vars_at = param_at + wire_pad8(m->param_bytes);
    size_t ranges_at = vars_at + (size_t)m->n_vars * sizeof(uint64_t);
    if (m->name_len == 0 || m->name_len > n || m->n_vars > n ||
        m->n_ranges > n || m->param_bytes > n || m->gpu >= s->n_gpus ||
        ranges_at + (size_t)m->n_ranges * sizeof(struct wire_kernel_range) !=
            n) {
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
    struct srv_kop *k = calloc(1, sizeof(*k));
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
    k->op = (struct srv_op){ .s = s, .c = c, .cb = m->cb };
    k->t_start = m->start_at;
    struct p2psim_launch l = {
        .gpu = m->gpu,
        .grid = { m->grid[0], m->grid[1], m->grid[2] },
        .block = { m->block[0], m->block[1], m->block[2] },
        .dyn_smem = m->dyn_smem,
        .blocks_per_sm = m->blocks_per_sm,
        .cooperative = m->cooperative != 0,
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
    int rc = p2psim_kernel_launch(s->p, &l);
    free(vars);                 /* copied by the launch */
    if (rc < 0) {
        free(k->ranges);
        free(k);
        return rc;
    }
    c->inflight++;
    return 0;
}

/* ---- requests ------------------------------------------------------------------- */

static bool loc_ok(const struct server *s, const struct wire_loc *l)
{
    return l->kind == P2PSIM_HOST ||
           (l->kind == P2PSIM_DEVICE && l->gpu < s->n_gpus);
}

static int do_copy(struct server *s, struct srv_client *c,
                   const struct wire_copy *m, uint64_t *id)
{
    if (!loc_ok(s, &m->dst) || !loc_ok(s, &m->src)) {
        return -SIM_EINVAL;
    }
    struct p2psim_loc dst = { m->dst.kind, m->dst.gpu, m->dst.addr };
    struct p2psim_loc src = { m->src.kind, m->src.gpu, m->src.addr };
    struct srv_op *op = op_new(s, c, m->cb);
    if (!op) {
        return -SIM_ENOMEM;
    }
    int rc = p2psim_copy_after(s->p, m->after, &dst, &src, m->len, m->flags,
                               m->start_at, op_copy_done, op, id);
    if (rc < 0) {
        free(op);
        return rc;
    }
    c->inflight++;
    return 0;
}

static int do_fill(struct server *s, struct srv_client *c,
                   const struct wire_fill *m)
{
    if (m->gpu >= s->n_gpus || m->value > 255) {
        return -SIM_EINVAL;
    }
    struct srv_op *op = op_new(s, c, m->cb);
    if (!op) {
        return -SIM_ENOMEM;
    }
    int rc = p2psim_fill(s->p, m->gpu, m->off, (uint8_t)m->value, m->len,
                         m->start_at, op_copy_done, op);
    if (rc < 0) {
        free(op);
        return rc;
    }
    c->inflight++;
    return 0;
}

static int do_timer(struct server *s, struct srv_client *c,
                    const struct wire_timer *m)
{
    struct srv_op *op = op_new(s, c, m->cb);
    if (!op) {
        return -SIM_ENOMEM;
    }
    int rc = p2psim_call_at(s->p, m->at, op_timer_fire, op);
    if (rc < 0) {
        free(op);
        return rc;
    }
    c->inflight++;
    return 0;
}

/* Map the client's memfd and register [offset, offset + len) of it. */
static int do_host_register(struct server *s, struct srv_client *c,
                            const struct wire_host_register *m, int fd,
                            uint64_t *bus)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || m->len == 0 ||
        m->offset > (uint64_t)st.st_size ||
        m->len > (uint64_t)st.st_size - m->offset) {
        return -SIM_EINVAL;
    }
    struct srv_map *map = calloc(1, sizeof(*map));
    if (!map) {
        return -SIM_ENOMEM;
    }
    map->map_len = (size_t)st.st_size;
    map->base = mmap(NULL, map->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
                     fd, 0);
    if (map->base == MAP_FAILED) {
        free(map);
        return -SIM_ENOMEM;
    }
    int rc = p2psim_host_register(s->p, (char *)map->base + m->offset,
                                  m->len, m->socket, &map->bus);
    if (rc < 0) {
        munmap(map->base, map->map_len);
        free(map);
        return rc;
    }
    map->next = c->maps;
    c->maps = map;
    *bus = map->bus;
    return 0;
}

static int do_host_unregister(struct server *s, struct srv_client *c,
                              uint64_t bus)
{
    for (struct srv_map **pp = &c->maps; *pp; pp = &(*pp)->next) {
        struct srv_map *m = *pp;
        if (m->bus == bus) {
            *pp = m->next;
            p2psim_host_unregister(s->p, bus);
            munmap(m->base, m->map_len);
            free(m);
            return 0;
        }
    }
    return -SIM_ENOENT;
}

static int do_hello(struct server *s, struct srv_client *c,
                    const struct wire_hello *m)
{
    const char *name = p2psim_machine_name(s->p);
    if (m->version != WIRE_VERSION) {
        fprintf(stderr, "p2psim server: process %u speaks protocol %u, "
                        "this server %u: use one p2psim build\n",
                m->pid, m->version, WIRE_VERSION);
        return -SIM_EINVAL;
    }
    if (m->n_gpus != s->n_gpus ||
        strncmp(m->machine, name, sizeof(m->machine) - 1) != 0) {
        fprintf(stderr, "p2psim server: process %u simulates machine "
                        "'%.63s' (%u GPUs), this server '%s' (%u GPUs): "
                        "give both the same P2PSIM_TOPOLOGY\n",
                m->pid, m->machine, m->n_gpus, name, s->n_gpus);
        return -SIM_EINVAL;
    }
    c->pid = m->pid;
    c->hello = true;
    return 0;
}

/* Payload size each request needs (exact, except data that follows the
 * struct of the requests variable_size() names). */
static size_t request_size(uint32_t type)
{
    switch (type) {
    case WIRE_HELLO: return sizeof(struct wire_hello);
    case WIRE_BUSY: return 0;
    case WIRE_IDLE: return sizeof(struct wire_idle);
    case WIRE_COPY: return sizeof(struct wire_copy);
    case WIRE_FILL: return sizeof(struct wire_fill);
    case WIRE_TIMER: return sizeof(struct wire_timer);
    case WIRE_HOST_REGISTER: return sizeof(struct wire_host_register);
    case WIRE_HOST_UNREGISTER: return sizeof(struct wire_u64);
    case WIRE_HBM_ALLOC:
    case WIRE_HBM_FREE:
    case WIRE_HBM_READ:
    case WIRE_HBM_WRITE: return sizeof(struct wire_hbm);
    case WIRE_STATS: return 0;
    case WIRE_LINK_STAT: return sizeof(struct wire_u64);
    case WIRE_IPC_MEM_EXPORT:
    case WIRE_IPC_MEM_OPEN:
    case WIRE_IPC_MEM_CLOSE: return sizeof(struct wire_ipc_mem);
    case WIRE_MODULE_LOAD: return sizeof(struct wire_module);
    case WIRE_KERNEL_LAUNCH: return sizeof(struct wire_kernel);
    default:
        if (type >= WIRE_IPC_EVENT_EXPORT && type < WIRE_CLIENT_LAST) {
            return sizeof(struct wire_ipc_event);
        }
        return SIZE_MAX;
    }
}

static bool variable_size(uint32_t type)
{
    return type == WIRE_HBM_WRITE || type == WIRE_MODULE_LOAD ||
           type == WIRE_KERNEL_LAUNCH;
}

/* Serve one request of c (payload in s->buf, len bytes). */
static void handle(struct server *s, struct srv_client *c,
                   const struct wire_hdr *h, int fd)
{
    const void *m = s->buf;
    uint64_t v[3] = { 0, 0, 0 };
    int rc = 0;
    size_t need = request_size(h->type);
    if (need == SIZE_MAX || h->len < need ||
        (h->len != need && !variable_size(h->type)) ||
        (!c->hello && h->type != WIRE_HELLO)) {
        fprintf(stderr, "p2psim server: malformed message from client %u; "
                        "dropping it\n", c->id);
        srv_client_drop(s, c);
        return;
    }
    if (h->type == WIRE_IDLE) {
        const struct wire_idle *i = m;
        c->state = i->outside ? SRV_OUTSIDE : SRV_IDLE;
        c->limit = i->outside ? SIM_TIME_MAX : i->limit;
        return;
    }
    /* Any request means the client runs: time stands still for it. */
    c->state = SRV_BUSY;
    switch (h->type) {
    case WIRE_HELLO:
        rc = do_hello(s, c, m);
        v[0] = s->session;
        v[1] = c->id;
        break;
    case WIRE_BUSY:
        break;
    case WIRE_COPY: rc = do_copy(s, c, m, &v[0]); break;
    case WIRE_FILL: rc = do_fill(s, c, m); break;
    case WIRE_TIMER: rc = do_timer(s, c, m); break;
    case WIRE_HOST_REGISTER:
        rc = do_host_register(s, c, m, fd, &v[0]);
        break;
    case WIRE_HOST_UNREGISTER:
        rc = do_host_unregister(s, c, ((const struct wire_u64 *)m)->v);
        break;
    case WIRE_HBM_ALLOC: rc = srv_hbm_alloc(s, c, m, &v[0]); break;
    case WIRE_HBM_FREE: rc = srv_hbm_free(s, c, m); break;
    case WIRE_HBM_READ: {
        const struct wire_hbm *b = m;
        static unsigned char data[WIRE_HBM_CHUNK];
        rc = b->len > WIRE_HBM_CHUNK || b->gpu >= s->n_gpus
                 ? -SIM_EINVAL
                 : p2psim_hbm_read(s->p, b->gpu, b->off, data, b->len);
        struct wire_reply r = { .rc = rc };
        send_msg(s, c, WIRE_REPLY, h->seq, &r, sizeof(r), data,
                 rc == 0 ? b->len : 0);
        return;
    }
    case WIRE_HBM_WRITE: {
        const struct wire_hbm *b = m;
        rc = b->len != h->len - need || b->gpu >= s->n_gpus
                 ? -SIM_EINVAL
                 : p2psim_hbm_write(s->p, b->gpu, b->off, s->buf + need,
                                    b->len);
        break;
    }
    case WIRE_STATS:
        v[0] = sim_events_fired(s->sim);
        v[1] = sim_tlp_hops(s->sim);
        break;
    case WIRE_LINK_STAT: {
        struct p2psim_link_stat ls;
        struct wire_link_stat w;
        memset(&w, 0, sizeof(w));
        rc = p2psim_link_stat(s->p, (unsigned)((const struct wire_u64 *)m)->v,
                              &ls);
        if (rc == 0) {
            memcpy(w.tlps, ls.tlps, sizeof(w.tlps));
            memcpy(w.bytes, ls.bytes, sizeof(w.bytes));
            for (int d = 0; d < 2; d++) {
                w.busy_ps[d] = ls.busy_ps[d];
            }
        }
        struct wire_reply r = { .rc = rc };
        send_msg(s, c, WIRE_REPLY, h->seq, &r, sizeof(r), &w,
                 rc == 0 ? sizeof(w) : 0);
        return;
    }
    case WIRE_IPC_MEM_EXPORT: rc = srv_mem_export(s, c, m, &v[0]); break;
    case WIRE_IPC_MEM_OPEN: rc = srv_mem_open(s, c, m); break;
    case WIRE_IPC_MEM_CLOSE: rc = srv_mem_close(s, c, m); break;
    case WIRE_MODULE_LOAD:
        rc = do_module_load(c, m, (const char *)s->buf + need, h->len - need,
                            &v[0]);
        break;
    case WIRE_KERNEL_LAUNCH:
        rc = do_kernel(s, c, m, s->buf + need, h->len - need);
        break;
    default: rc = srv_event_request(s, c, h->type, m, v); break;
    }
    reply(s, c, h->seq, rc, v[0], v[1], v[2]);
    if (h->type == WIRE_HELLO && rc < 0) {
        srv_client_drop(s, c);
    }
}

/* ---- reading -------------------------------------------------------------------- */

static int read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Read one message of c (its header with a descriptor, if any). */
static int receive(struct server *s, struct srv_client *c,
                   struct wire_hdr *h, int *fd)
{
    *fd = -1;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct iovec iov = { h, sizeof(*h) };
    struct msghdr msg = {
        .msg_iov = &iov,
        .msg_iovlen = 1,
        .msg_control = ctl.buf,
        .msg_controllen = sizeof(ctl.buf),
    };
    ssize_t n;
    do {
        n = recvmsg(c->fd, &msg, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        return -1;
    }
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm;
         cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
            memcpy(fd, CMSG_DATA(cm), sizeof(int));
        }
    }
    if ((size_t)n < sizeof(*h) &&
        read_full(c->fd, (char *)h + n, sizeof(*h) - (size_t)n) < 0) {
        return -1;
    }
    if (h->len > WIRE_MAX_PAYLOAD || read_full(c->fd, s->buf, h->len) < 0) {
        return -1;
    }
    return 0;
}

static void client_readable(struct server *s, struct srv_client *c)
{
    struct wire_hdr h;
    int fd;
    if (receive(s, c, &h, &fd) < 0) {
        if (fd >= 0) {
            close(fd);
        }
        srv_client_drop(s, c);
        return;
    }
    handle(s, c, &h, h.type == WIRE_HOST_REGISTER ? fd : -1);
    if (fd >= 0) {
        close(fd);
    }
}

static void accept_client(struct server *s)
{
    int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) {
        return;
    }
    struct srv_client *c = calloc(1, sizeof(*c));
    if (!c) {
        close(fd);
        return;
    }
    c->fd = fd;
    c->id = ++s->next_id;
    c->state = SRV_BUSY;
    c->limit = SIM_TIME_MAX;
    c->next = s->clients;
    s->clients = c;
    s->n_live++;
}

/* Wait for the next messages (timeout_ms -1: forever) and serve them. */
static void serve_io(struct server *s, int timeout_ms)
{
    unsigned n = 0;
    struct pollfd *pfd = calloc(s->n_live + 1, sizeof(*pfd));
    struct srv_client **who = calloc(s->n_live + 1, sizeof(*who));
    if (!pfd || !who) {
        free(pfd);
        free(who);
        return;
    }
    pfd[n++] = (struct pollfd){ .fd = s->listen_fd, .events = POLLIN };
    for (struct srv_client *c = s->clients; c; c = c->next) {
        if (c->fd >= 0) {
            who[n] = c;
            pfd[n++] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
        }
    }
    /* ppoll with the stop signals unblocked only while waiting: a signal
     * that arrives between the loop's check of srv_stop and the wait
     * cannot be lost (it stays pending until ppoll, which it ends). */
    struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
    if (ppoll(pfd, n, timeout_ms < 0 ? NULL : &ts, &srv_wait_mask) > 0) {
        for (unsigned i = 1; i < n; i++) {
            if (pfd[i].revents && who[i]->fd >= 0) {
                client_readable(s, who[i]);
            }
        }
        if (pfd[0].revents & POLLIN) {
            accept_client(s);
        }
    }
    free(pfd);
    free(who);
}

/* ---- time ----------------------------------------------------------------------- */

static bool nothing_produced(struct sim *sim, void *arg)
{
    (void)sim;
    return !((struct server *)arg)->produced;
}

/*
 * Batches due: queued callbacks of clients that are not busy, and clients
 * waiting in the simulator whose deadline has come.
 */
static void deliver_due(struct server *s)
{
    sim_time_t now = sim_now(s->sim);
    for (struct srv_client *c = s->clients; c; c = c->next) {
        if (c->fd >= 0 && c->state != SRV_BUSY &&
            (c->n_out || (c->state == SRV_IDLE && c->limit <= now))) {
            deliver(s, c, false);
        }
    }
}

/*
 * Advance the simulation if it may: nobody busy, somebody waiting in it.
 * Returns false when it must wait for messages instead.
 */
static bool advance(struct server *s)
{
    bool waiting = false, outside = false;
    sim_time_t limit = SIM_TIME_MAX;
    for (struct srv_client *c = s->clients; c; c = c->next) {
        if (c->fd < 0) {
            continue;
        }
        if (c->state == SRV_BUSY) {
            return false;
        }
        outside |= c->state == SRV_OUTSIDE;
        if (c->state == SRV_IDLE) {
            waiting = true;
            limit = c->limit < limit ? c->limit : limit;
        }
    }
    if (!waiting) {
        return false;
    }
    if (sim_events_pending(s->sim) == 0 && limit == SIM_TIME_MAX) {
        if (outside) {
            return false;   /* only a process outside CUDA can act now */
        }
        for (struct srv_client *c = s->clients; c; c = c->next) {
            if (c->fd >= 0) {
                deliver(s, c, true);
            }
        }
        return true;
    }
    s->produced = false;
    sim_run_while(s->sim, nothing_produced, s, limit);
    if (s->produced) {
        /* Everything else due at this same instant goes in the batch (a
         * callback among them stops this run too: the rest wait for the
         * next batch, at the same time). */
        sim_run_until(s->sim, sim_now(s->sim));
    }
    return true;
}

static int serve(struct server *s)
{
    while (!srv_stop) {
        deliver_due(s);
        if (!advance(s)) {
            serve_io(s, -1);
        } else {
            /* Let new connections and come-backs in between steps. */
            serve_io(s, 0);
        }
    }
    return CLI_OK;
}

/* ---- the command ---------------------------------------------------------------- */

static int listen_on(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "p2psim server: socket path too long (at most %zu "
                        "bytes): %s\n", sizeof(sa.sun_path) - 1, path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(fd, 64) < 0) {
        fprintf(stderr, "p2psim server: cannot listen on %s: %s\n", path,
                strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return fd;
}

/*
 * The machine, with the options the shim takes from the environment
 * (api/cudart/rt.c): the processes' copies and this one must agree.
 */
static struct p2psim *server_open(const char *file)
{
    struct p2psim_options opt = { 0 };
    opt.engine = getenv("P2PSIM_ENGINE");
    opt.fidelity = getenv("P2PSIM_FIDELITY");
    opt.overrides = getenv("P2PSIM_SET");
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim *p = p2psim_open(file, &opt, &err);
    /* The trace of the program (P2PSIM_TRACE...): the server simulates. */
    if (p && p2psim_trace_from_env(p, &err) < 0) {
        p2psim_close(p);
        p = NULL;
    }
    if (!p) {
        char buf[700];
        fprintf(stderr, "%s\n", sim_error_format(&err, buf, sizeof(buf)));
    }
    return p;
}

static void server_usage(FILE *f)
{
    fprintf(f,
            SERVER_USAGE "\n\n"
            "Serve one simulated machine to every process of a program "
            "(CUDA IPC,\nmulti-process programs). The CUDA runtime of a "
            "process with\nP2PSIM_SERVER=PATH in its environment uses this "
            "machine instead of one\nof its own. `p2psim run` starts a "
            "server for its program by itself.\n\n"
            "options:\n"
            "  --socket PATH    the UNIX socket to listen on (removed at "
            "exit)\n"
            "  --topology FILE  the machine file; default: the built-in "
            "default machine\n"
            "  --quiet          no message when ready\n\n"
            "It runs until SIGTERM or SIGINT. Processes must load the same "
            "machine\n(P2PSIM_TOPOLOGY); a process with another is "
            "refused. P2PSIM_ENGINE,\nP2PSIM_FIDELITY and P2PSIM_SET apply "
            "as they do to the processes.\n");
}

static void server_fini(struct server *s)
{
    for (struct srv_client *c = s->clients, *next; c; c = next) {
        next = c->next;
        srv_client_drop(s, c);
    }
    srv_ipc_fini(s);
    for (struct srv_client *c = s->clients, *next; c; c = next) {
        next = c->next;
        maps_release(s, c);
        free(c);
    }
    for (unsigned g = 0; s->hbm && g < s->n_gpus; g++) {
        p2psim_hbm_space_fini(&s->hbm[g]);
    }
    free(s->hbm);
    free(s->buf);
    if (s->listen_fd >= 0) {
        close(s->listen_fd);
    }
    /* Operations still in the simulation die with the machine. */
    if (s->p) {
        p2psim_close(s->p);
    }
}

int cmd_server(int argc, char **argv)
{
    static const struct option opts[] = {
        { "socket", required_argument, NULL, 's' },
        { "topology", required_argument, NULL, 't' },
        { "listen-fd", required_argument, NULL, 'l' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *path = NULL, *topology = NULL;
    int listen_fd = -1, c;
    bool quiet = false;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
        switch (c) {
        case 's': path = optarg; break;
        case 't': topology = optarg; break;
        case 'l': listen_fd = atoi(optarg); break;
        case 'q': quiet = true; break;
        case 'h': server_usage(stdout); return CLI_OK;
        default: fprintf(stderr, "%s\n", SERVER_USAGE); return CLI_BAD_INPUT;
        }
    }
    if (optind < argc || (!path && listen_fd < 0)) {
        fprintf(stderr, "p2psim server: %s (%s)\n",
                optind < argc ? "unexpected argument" : "no --socket given",
                SERVER_USAGE);
        return CLI_BAD_INPUT;
    }
    struct server s = { .listen_fd = -1, .session = srv_random_u64() };
    s.p = server_open(topology);
    if (!s.p) {
        return CLI_BAD_INPUT;
    }
    s.sim = p2psim_sim(s.p);
    s.n_gpus = p2psim_gpu_count(s.p);
    s.hbm = calloc(s.n_gpus ? s.n_gpus : 1, sizeof(*s.hbm));
    s.buf = malloc(WIRE_MAX_PAYLOAD);
    if (!s.hbm || !s.buf) {
        fprintf(stderr, "p2psim server: out of memory\n");
        server_fini(&s);
        return CLI_FAIL;
    }
    for (unsigned g = 0; g < s.n_gpus; g++) {
        p2psim_hbm_space_init(&s.hbm[g], p2psim_hbm_size(s.p, g));
    }
    s.listen_fd = listen_fd >= 0 ? listen_fd : listen_on(path);
    if (s.listen_fd < 0) {
        server_fini(&s);
        return CLI_FAIL;
    }
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigprocmask(SIG_BLOCK, &stop, &srv_wait_mask);
    sigdelset(&srv_wait_mask, SIGTERM);
    sigdelset(&srv_wait_mask, SIGINT);
    if (!quiet) {
        fprintf(stderr, "p2psim server: machine %s on %s\n",
                p2psim_machine_name(s.p), path ? path : "(inherited socket)");
    }
    int rc = serve(&s);
    if (path) {
        unlink(path);
    }
    server_fini(&s);
    return rc;
}
