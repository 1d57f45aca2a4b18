/*
 * cuda/server/server.c - the p2psim server's protocol (cuda/server/wire.h)
 * and time, without sockets of its own to wait on: srv_message serves one
 * message of a client, srv_step advances the simulation when it may,
 * srv_fini frees everything. server_loop.c reads the messages off the
 * sockets; server_kernel.c runs grids, server_ipc.c keeps who owns which
 * HBM, the exports and interprocess events; tests and the fuzzing
 * harnesses (fuzz/fuzz_server.c) call these on byte buffers.
 *
 * Untrusted input: any process of the user can connect, so every message
 * is checked before it is used (sizes exact against wire.h's table,
 * counts and offsets bounded, out-of-order requests refused); a malformed
 * message drops the client (its connection closes), a well-formed but
 * wrong request gets an error reply. What a client can make the server
 * hold is capped (SRV_MAX_* in server.h, docs/cuda-shim.md "Under a p2psim
 * server"); a client that stops reading or stops in the middle of a
 * message for SRV_IO_TIMEOUT_S seconds is dropped.
 *
 * Host memory: a client's pinned memory is a file it passes with
 * WIRE_HOST_REGISTER (its memfd, or the file of its shared mapping); the
 * server maps the same pages (server_hostmap.c) and registers them with
 * its machine, so the copy engines move the client's bytes in place.
 *
 * Not modelled: several machines per server, clients of different
 * machines (HELLO refuses them), persistence. The nonces protect against
 * mistakes and forgeries by programs, not against a hostile user of the
 * same account, who could read the server's memory anyway.
 */
#define _GNU_SOURCE /* POLLRDHUP */
#include <config.h>

#include "cuda/server/server.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/fdio.h"
#include "machine/kernel/kernel.h"
#include "machine/links.h"
#include "machine/p2psim.h"
#include "ptx/ptx.h"
#include "sim/error.h"
#include "sim/sim.h"

/* ---- tokens --------------------------------------------------------------------- */

/*
 * A random 64-bit value for session ids and nonces. These are tokens that
 * make handles unforgeable by accident, not simulated randomness, so they
 * do not come from the simulation's seeded RNG.
 */
#ifdef P2PSIM_FUZZING
/* Fuzzing harnesses: small tokens in a sequence that restarts with each
 * server, so that runs repeat and inputs can name a live export. */
static uint64_t srv_fuzz_tokens;
#endif

uint64_t srv_random_u64(void)
{
#ifdef P2PSIM_FUZZING
    return ++srv_fuzz_tokens;
#endif
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
    /* A signal to stop ends a send that waits (the client is dropped). */
    if (fdio_write_all(c->fd, &h, sizeof(h), s->stop) < 0 ||
        (a_len && fdio_write_all(c->fd, a, a_len, s->stop) < 0) ||
        (b_len && fdio_write_all(c->fd, b, b_len, s->stop) < 0)) {
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
        if (send_msg(s, c, WIRE_CALLBACK, 0, &o->cb, sizeof(o->cb), o->msg,
                     o->msg ? strlen(o->msg) + 1 : 0) < 0) {
            return;             /* c is dropped: out_free freed the batch */
        }
        free(o->msg);
        o->msg = NULL;
    }
    c->n_out = 0;
    struct wire_end e = { .nothing = nothing || s->failed,
                          .failed = s->failed };
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
        if (!m->dead) {
            p2psim_host_unregister(s->p, m->bus);
        }
        srv_hostunmap(m->base, m->map_len);
        free(m);
    }
    c->n_maps = 0;
    while (c->modules) {
        srv_module_remove(c, c->modules);
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
 * c is gone: release what it held. Its queued callbacks are dropped; its
 * operations still in the simulation finish without a recipient while
 * other clients keep time going (a run in progress stops when a client
 * hangs up, clients_stirred); its HBM is freed (or kept while other
 * processes have it open, server_ipc.c), its host memory and modules once
 * those operations are over. The struct stays (operations and waiters may
 * still point at it) until reap finds nothing refers to it.
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

/* op (filled in) enters the simulation for its client. */
void srv_op_link(struct server *s, struct srv_op *op)
{
    op->prev = NULL;
    op->next = s->ops;
    if (s->ops) {
        s->ops->prev = op;
    }
    s->ops = op;
    s->n_ops++;
    op->c->inflight++;
}

void srv_op_unlink(struct srv_op *op)
{
    struct server *s = op->s;
    if (op->prev) {
        op->prev->next = op->next;
    } else {
        s->ops = op->next;
    }
    if (op->next) {
        op->next->prev = op->prev;
    }
    s->n_ops--;
    op->c->inflight--;
}

/* A new operation of c, not yet linked (NULL: SRV_MAX_OPS, no memory). */
static struct srv_op *op_new(struct server *s, struct srv_client *c,
                             uint64_t cb)
{
    struct srv_op *op = s->n_ops < SRV_MAX_OPS ? calloc(1, sizeof(*op))
                                               : NULL;
    if (op) {
        op->s = s;
        op->c = c;
        op->cb = cb;
    }
    return op;
}

void srv_op_finish(struct srv_op *op, const struct wire_callback *cb,
                   const char *msg)
{
    struct srv_client *c = op->c;
    srv_op_unlink(op);
    if (c->fd >= 0) {
        srv_queue_callback_msg(op->s, c, cb, msg);
    } else if (c->inflight == 0) {
        maps_release(op->s, c);
    }
    srv_op_free(op);
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
    srv_op_finish(op, &cb, NULL);
}

static void op_timer_fire(void *arg)
{
    struct srv_op *op = arg;
    sim_time_t now = sim_now(op->s->sim);
    struct wire_callback cb = { .cb = op->cb, .t_start = now, .t_end = now };
    srv_op_finish(op, &cb, NULL);
}

void srv_op_free(struct srv_op *op)
{
    if (op->kernel) {
        free(((struct srv_kop *)op)->ranges);
    }
    free(op);
}

/* ---- requests ------------------------------------------------------------------- */

/* A place for len bytes: host memory (the machine checks bus addresses
 * when it gets there), or HBM that has them. A copy is at most its HBM
 * side's size: the executor allocates per chunk of a staged copy, so a
 * length of terabytes once allocated gigabytes. */
bool srv_loc_ok(const struct server *s, const struct wire_loc *l,
                uint64_t len)
{
    if (l->kind == P2PSIM_HOST) {
        return true;
    }
    uint64_t size = l->kind == P2PSIM_DEVICE && l->gpu < s->n_gpus
                        ? p2psim_hbm_size(s->p, l->gpu)
                        : 0;
    return l->addr <= size && len <= size - l->addr;
}

int srv_on_copy(struct server *s, struct srv_client *c, struct srv_req *r)
{
    const struct wire_copy *m = r->m;
    uint64_t *id = &r->v[0];
    if (!srv_loc_ok(s, &m->dst, m->len) || !srv_loc_ok(s, &m->src, m->len)) {
        return -SIM_EINVAL;
    }
    struct p2psim_loc dst = { m->dst.kind, m->dst.gpu, m->dst.addr };
    struct p2psim_loc src = { m->src.kind, m->src.gpu, m->src.addr };
    struct srv_op *op = op_new(s, c, m->cb);
    if (!op) {
        return -SIM_ENOMEM;
    }
    srv_op_link(s, op);
    int rc = p2psim_copy_after(s->p, m->after, &dst, &src, m->len, m->flags,
                               m->start_at, op_copy_done, op, id);
    if (rc < 0) {
        srv_op_unlink(op);
        free(op);
        return rc;
    }
    return 0;
}

int srv_on_fill(struct server *s, struct srv_client *c, struct srv_req *r)
{
    const struct wire_fill *m = r->m;
    if (m->gpu >= s->n_gpus || m->value > 255) {
        return -SIM_EINVAL;
    }
    struct srv_op *op = op_new(s, c, m->cb);
    if (!op) {
        return -SIM_ENOMEM;
    }
    srv_op_link(s, op);
    int rc = p2psim_fill(s->p, m->gpu, m->off, (uint8_t)m->value, m->len,
                         m->start_at, op_copy_done, op);
    if (rc < 0) {
        srv_op_unlink(op);
        free(op);
        return rc;
    }
    return 0;
}

int srv_on_timer(struct server *s, struct srv_client *c, struct srv_req *r)
{
    const struct wire_timer *m = r->m;
    struct srv_op *op = op_new(s, c, m->cb);
    if (!op) {
        return -SIM_ENOMEM;
    }
    srv_op_link(s, op);
    int rc = p2psim_call_at(s->p, m->at, op_timer_fire, op);
    if (rc < 0) {
        srv_op_unlink(op);
        free(op);
        return rc;
    }
    return 0;
}

/* Map the client's file and register [offset, offset + len) of it
 * (server_hostmap.c). */
int srv_on_host_register(struct server *s, struct srv_client *c,
                         struct srv_req *r)
{
    const struct wire_host_register *m = r->m;
    uint64_t *bus = &r->v[0];
    if (c->n_maps >= SRV_MAX_MAPS) {
        return -SIM_ENOMEM;
    }
    struct srv_map *map = calloc(1, sizeof(*map));
    if (!map) {
        return -SIM_ENOMEM;
    }
    void *at;
    int rc = srv_hostmap(r->fd, m->offset, m->len, &map->base,
                         &map->map_len, &at);
    if (rc < 0) {
        free(map);
        return rc;
    }
    rc = p2psim_host_register(s->p, at, m->len, m->socket, &map->bus);
    if (rc < 0) {
        srv_hostunmap(map->base, map->map_len);
        free(map);
        return rc;
    }
    map->next = c->maps;
    c->maps = map;
    c->n_maps++;
    *bus = map->bus;
    return 0;
}

int srv_on_host_unregister(struct server *s, struct srv_client *c,
                           struct srv_req *r)
{
    uint64_t bus = ((const struct wire_u64 *)r->m)->v;
    for (struct srv_map **pp = &c->maps; *pp; pp = &(*pp)->next) {
        struct srv_map *m = *pp;
        if (m->bus == bus && !m->dead) {
            p2psim_host_unregister(s->p, bus);
            if (c->inflight) {
                /* An operation of c may still touch the pages: they stay
                 * mapped until none is left (maps_release). */
                m->dead = true;
                return 0;
            }
            *pp = m->next;
            c->n_maps--;
            srv_hostunmap(m->base, m->map_len);
            free(m);
            return 0;
        }
    }
    return -SIM_ENOENT;
}

/* A client that is refused is dropped once it has the reply. */
int srv_on_hello(struct server *s, struct srv_client *c, struct srv_req *r)
{
    const struct wire_hello *m = r->m;
    const char *name = p2psim_machine_name(s->p);
    r->v[0] = s->session;
    r->v[1] = c->id;
    r->drop = true;
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
    r->drop = false;
    return 0;
}

int srv_on_busy(struct server *s, struct srv_client *c, struct srv_req *r)
{
    (void)s, (void)c, (void)r;
    return 0;                   /* handle() made it busy */
}

int srv_on_idle(struct server *s, struct srv_client *c, struct srv_req *r)
{
    const struct wire_idle *i = r->m;
    c->state = i->outside ? SRV_OUTSIDE : SRV_IDLE;
    c->limit = i->outside ? SIM_TIME_MAX : i->limit;
    for (struct srv_client *o = s->clients; o && i->now_only; o = o->next) {
        if (o != c && o->fd >= 0 && o->state == SRV_BUSY) {
            c->limit = sim_now(s->sim);    /* no time now: answer at once */
        }
    }
    return 0;
}

int srv_on_hbm_read(struct server *s, struct srv_client *c, struct srv_req *r)
{
    const struct wire_hbm *b = r->m;
    static unsigned char data[WIRE_HBM_CHUNK];
    (void)c;
    r->data = data;
    r->data_len = b->len;
    return b->len > WIRE_HBM_CHUNK || b->gpu >= s->n_gpus
               ? -SIM_EINVAL
               : p2psim_hbm_read(s->p, b->gpu, b->off, data, b->len);
}

int srv_on_hbm_write(struct server *s, struct srv_client *c,
                     struct srv_req *r)
{
    const struct wire_hbm *b = r->m;
    (void)c;
    return b->len != r->tail_len || b->gpu >= s->n_gpus
               ? -SIM_EINVAL
               : p2psim_hbm_write(s->p, b->gpu, b->off, r->tail, b->len);
}

int srv_on_stats(struct server *s, struct srv_client *c, struct srv_req *r)
{
    (void)c;
    r->v[0] = sim_events_fired(s->sim);
    r->v[1] = sim_tlp_hops(s->sim);
    r->v[2] = p2psim_kernel_parked_rounds();
    return 0;
}

int srv_on_link_stat(struct server *s, struct srv_client *c,
                     struct srv_req *r)
{
    static struct wire_link_stat w;
    struct p2psim_link_stat ls;
    (void)c;
    memset(&w, 0, sizeof(w));
    uint64_t link = ((const struct wire_u64 *)r->m)->v;
    int rc = link > UINT32_MAX ? -SIM_EINVAL
                               : p2psim_link_stat(s->p, (unsigned)link, &ls);
    if (rc == 0) {
        memcpy(w.tlps, ls.tlps, sizeof(w.tlps));
        memcpy(w.bytes, ls.bytes, sizeof(w.bytes));
        for (int d = 0; d < 2; d++) {
            w.busy_ps[d] = ls.busy_ps[d];
        }
    }
    r->data = &w;
    r->data_len = sizeof(w);
    return rc;
}

/* Serve one request of c (payload in s->buf, h->len bytes): its size
 * checked against the table (wire.h), then its handler. */
static void handle(struct server *s, struct srv_client *c,
                   const struct wire_hdr *h, int fd)
{
    if (h->len > WIRE_MAX_PAYLOAD) {
        srv_client_drop(s, c);
        return;
    }
    const struct wire_request_info *ri = wire_request(h->type);
    size_t need = ri ? ri->size : SIZE_MAX;
    unsigned flags = ri ? ri->flags : 0;
    if (!ri || h->len < need ||
        (h->len != need && !(flags & WIRE_F_TAIL)) ||
        (!c->hello && h->type != WIRE_HELLO)) {
        fprintf(stderr, "p2psim server: malformed message from client %u "
                        "(%s, %u bytes); dropping it\n", c->id,
                wire_type_name(h->type), h->len);
        srv_client_drop(s, c);
        return;
    }
    struct srv_req r = {
        .h = h,
        .m = s->buf,
        .tail = s->buf + need,
        .tail_len = h->len - need,
        .fd = flags & WIRE_F_FD ? fd : -1,
    };
    if (!(flags & WIRE_F_NO_REPLY)) {
        /* Any request means the client runs: time stands still for it. */
        c->state = SRV_BUSY;
        if (srv_failed(s) && (flags & WIRE_F_STARTS)) {
            /* It would never complete: the simulation cannot run any
             * more. */
            reply(s, c, h->seq, -SIM_ENOMEM, 0, 0, 0);
            return;
        }
    }
    int rc = -SIM_EINVAL;
    switch (h->type) {
#define SRV_DISPATCH_(NAME, HANDLER, ...)                                     \
    case WIRE_##NAME: rc = srv_on_##HANDLER(s, c, &r); break;
    WIRE_REQUESTS(SRV_DISPATCH_)
#undef SRV_DISPATCH_
    }
    if (flags & WIRE_F_NO_REPLY) {
        return;
    }
    if (rc == 0 && r.data_len > ri->reply_data) {
        rc = -SIM_EINVAL;       /* not what the table says it carries */
    }
    struct wire_reply w = { .rc = rc, .v = { r.v[0], r.v[1], r.v[2] } };
    send_msg(s, c, WIRE_REPLY, h->seq, &w, sizeof(w), r.data,
             rc == 0 ? r.data_len : 0);
    if (r.drop) {
        srv_client_drop(s, c);
    }
}

int srv_handle(struct server *s, struct srv_client *c,
               const struct wire_hdr *h, int fd)
{
    if (c->fd < 0) {
        return -1;
    }
    handle(s, c, h, fd);
    return c->fd < 0 ? -1 : 0;
}

/* ---- time ----------------------------------------------------------------------- */

/* How many events a run fires between looks at the clients' sockets. */
#define SRV_HANGUP_EVERY 65536u

/* Has a live client hung up (or sent something) since the run began? A
 * cheap look, every SRV_HANGUP_EVERY events, so that a client that goes
 * away in the middle of a long simulation is noticed at once. */
static bool clients_stirred(const struct server *s)
{
    struct pollfd pfd[64];
    unsigned n = 0;
    for (const struct srv_client *c = s->clients; c; c = c->next) {
        if (c->fd >= 0 && n < 64) {
            pfd[n++] = (struct pollfd){ .fd = c->fd, .events = POLLRDHUP };
        }
    }
    return n && poll(pfd, n, 0) > 0;
}

/* The run's condition: no callback queued, no stop signal, no client
 * hung up, the harness's event budget not spent. */
static bool may_go_on(struct sim *sim, void *arg)
{
    struct server *s = arg;
    if (s->produced || (s->stop && *s->stop)) {
        return false;
    }
    uint64_t fired = sim_events_fired(sim) - s->run_fired0;
    if (s->max_run_events && fired >= s->max_run_events) {
        return false;
    }
    if (fired && fired % SRV_HANGUP_EVERY == 0 && clients_stirred(s)) {
        return false;
    }
    return true;
}

/*
 * Batches due: queued callbacks of clients that are not busy, and clients
 * waiting in the simulator whose deadline has come.
 */
static void deliver_due(struct server *s)
{
    sim_time_t now = sim_now(s->sim);
    bool failed = srv_failed(s);
    for (struct srv_client *c = s->clients; c; c = c->next) {
        if (c->fd >= 0 && c->state != SRV_BUSY &&
            (c->n_out ||
             (c->state == SRV_IDLE && (c->limit <= now || failed)))) {
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
    if (srv_failed(s)) {
        return false;           /* deliver_due answered the waiting */
    }
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
    if (limit < sim_now(s->sim)) {
        limit = sim_now(s->sim);        /* a deadline already past */
    }
    s->produced = false;
    s->run_fired0 = sim_events_fired(s->sim);
    sim_run_while(s->sim, may_go_on, s, limit);
    if (srv_failed(s)) {
        return true;            /* the next step tells the waiting */
    }
    if (s->produced && !(s->stop && *s->stop)) {
        /* Everything else due at this same instant goes in the batch (a
         * callback among them stops this run too: the rest wait for the
         * next batch, at the same time). */
        sim_run_until(s->sim, sim_now(s->sim));
    }
    return true;
}

/* Free the clients that are gone and that nothing refers to any more. */
static void reap(struct server *s)
{
    for (struct srv_client **pp = &s->clients; *pp;) {
        struct srv_client *c = *pp;
        if (c->fd < 0 && c->inflight == 0) {
            *pp = c->next;
            maps_release(s, c);
            free(c);
        } else {
            pp = &c->next;
        }
    }
}

bool srv_failed(struct server *s)
{
    const struct sim_error *f;
    if (!s->failed && (f = sim_failure(s->sim)) != NULL) {
        s->failed = true;
        fprintf(stderr, "p2psim server: error: %s\n", f->msg);
    }
    return s->failed;
}

bool srv_step(struct server *s)
{
    reap(s);
    deliver_due(s);
    return advance(s);
}

/* ---- the server ----------------------------------------------------------------- */

int srv_init(struct server *s, struct p2psim *p)
{
    memset(s, 0, sizeof(*s));
#ifdef P2PSIM_FUZZING
    srv_fuzz_tokens = 0;
#endif
    s->listen_fd = -1;
    s->session = srv_random_u64();
    s->p = p;
    s->sim = p2psim_sim(p);
    s->n_gpus = p2psim_gpu_count(p);
    s->hbm = calloc(s->n_gpus ? s->n_gpus : 1, sizeof(*s->hbm));
    s->buf = malloc(WIRE_MAX_PAYLOAD);
    if (!s->hbm || !s->buf) {
        free(s->hbm);
        free(s->buf);
        s->hbm = NULL;
        s->buf = NULL;
        return -SIM_ENOMEM;
    }
    for (unsigned g = 0; g < s->n_gpus; g++) {
        p2psim_hbm_space_init(&s->hbm[g], p2psim_hbm_size(p, g));
    }
    return 0;
}

void srv_fini(struct server *s)
{
    for (struct srv_client *c = s->clients; c; c = c->next) {
        srv_client_drop(s, c);
    }
    /* Operations still in the simulation: p2psim_close drops them
     * without calling back, so they are freed here (with what they use,
     * the clients' host memory and modules, below). */
    while (s->ops) {
        struct srv_op *op = s->ops;
        srv_op_unlink(op);
        srv_op_free(op);
    }
    srv_ipc_fini(s);
    for (struct srv_client *c = s->clients, *next; c; c = next) {
        next = c->next;
        maps_release(s, c);
        free(c);
    }
    s->clients = NULL;
    for (unsigned g = 0; s->hbm && g < s->n_gpus; g++) {
        p2psim_hbm_space_fini(&s->hbm[g]);
    }
    free(s->hbm);
    free(s->buf);
    s->hbm = NULL;
    s->buf = NULL;
}

struct srv_client *srv_client_new(struct server *s, int fd)
{
    struct srv_client *c = s->n_live < SRV_MAX_CLIENTS ? calloc(1, sizeof(*c))
                                                       : NULL;
    if (!c) {
        close(fd);
        return NULL;
    }
    /* Bounded blocking: a client that stops reading (or stops in the
     * middle of a message) cannot hold the server and the others. */
    struct timeval tv = { .tv_sec = SRV_IO_TIMEOUT_S };
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    c->fd = fd;
    c->id = ++s->next_id;
    c->state = SRV_BUSY;
    c->limit = SIM_TIME_MAX;
    c->next = s->clients;
    s->clients = c;
    s->n_live++;
    return c;
}

int srv_message(struct server *s, struct srv_client *c, const void *msg,
                size_t len, int fd)
{
    struct wire_hdr h;
    if (c->fd < 0) {
        return -1;
    }
    if (len < sizeof(h)) {
        fprintf(stderr, "p2psim server: a truncated message from client "
                        "%u; dropping it\n", c->id);
        srv_client_drop(s, c);
        return -1;
    }
    memcpy(&h, msg, sizeof(h));
    if (h.len > WIRE_MAX_PAYLOAD || h.len != len - sizeof(h)) {
        fprintf(stderr, "p2psim server: a message from client %u is not "
                        "%s; dropping it\n", c->id,
                h.len > WIRE_MAX_PAYLOAD ? "within WIRE_MAX_PAYLOAD"
                                         : "whole");
        srv_client_drop(s, c);
        return -1;
    }
    /* Copied: the payload's structs need their alignment. */
    memcpy(s->buf, (const unsigned char *)msg + sizeof(h), h.len);
    return srv_handle(s, c, &h, fd);
}
