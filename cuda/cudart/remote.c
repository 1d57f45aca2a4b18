/*
 * cuda/cudart/remote.c - the machine through a p2psim server: every
 * rt_machine_ops entry becomes a request on the server's UNIX socket
 * (P2PSIM_SERVER; protocol in cuda/server/wire.h), so all processes of a
 * program share one simulated machine, one timeline and one HBM space per
 * GPU. The process still loads its own copy of the machine (rt.p) for
 * read-only questions. Host memory the server can reach: remote_host.c.
 *
 * Completions. copy, fill and timer register a callback id; the server
 * sends the callback when the simulation reaches the completion, in a
 * batch that ends with WIRE_END. Batches are read by the thread inside
 * advance() (the last host thread to wait, as in machine.c), and callbacks
 * run in it with the lock held, at the time they stand for: the server
 * stops at that time and waits until this process says it is idle again.
 * When and how the process is idle, busy or outside: at come_back below.
 *
 * Kernels. An nvcc kernel's module goes to the server once, as PTX text
 * (module_load); a grid goes when its stream reaches it (kernel), with
 * the memory it may touch as a table of ranges (launch.c's
 * rt_kernel_ranges: allocations, pinned and managed host memory by their
 * bus addresses, which the server reaches through remote_host.c's
 * memfds). The grid's end is a callback that carries the failure's message.
 *
 * Not supported: CUDA calls in a child forked after the runtime started
 * (as with CUDA itself); such a child gets errors, never the parent's
 * server connection.
 */
#define _GNU_SOURCE /* pipe2 */
#include <config.h>

#include "cuda/cudart/remote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/fdio.h"
#include "common/realclock.h"
#include "cuda/cudart/rt.h"
#include "machine/links.h"
#include "sim/error.h"

enum rm_state {
    RM_BUSY,                    /* the server keeps time still for us */
    RM_IDLE,                    /* a thread waits in advance() */
    RM_OUTSIDE,                 /* declared blocked outside CUDA */
};

/* A callback the server will send. */
struct rm_pending {
    struct rm_pending *next;    /* hash chain */
    uint64_t id;
    p2psim_done_fn *done;       /* copy, fill */
    p2psim_kernel_done_fn *kernel;
    rt_timer_fn *timer;
    void (*ipc)(void *arg, int status);
    void *arg;
};

/* A message of a batch, read and not yet run. */
struct rm_msg {
    struct rm_msg *next;
    uint32_t type;              /* WIRE_CALLBACK or WIRE_END */
    union {
        struct wire_callback cb;
        struct wire_end end;
    } u;
    char *text;                 /* a kernel callback's message, or NULL */
};

#define RM_BUCKETS 256u

static struct {
    int fd;                     /* the socket; -1: none */
    int wake[2];                /* pipe: wakes a thread in advance() */
    bool broken;                /* the server is gone */
    bool forked;                /* we are a child forked after start-up */
    uint64_t session, seq, next_cb;
    sim_time_t now;             /* the server's, as last heard */
    enum rm_state state;
    bool driving;               /* a thread is inside advance() */
    struct rm_msg *in_head, *in_tail;
    struct rm_pending *pend[RM_BUCKETS];
    uint64_t activity;          /* now() calls by program threads */
    long grace_ms;
    struct rt_thread *service;  /* the service thread's, once needed */
} rm = { .fd = -1, .wake = { -1, -1 } };

static _Thread_local bool rm_in_service;

/* ---- the socket --------------------------------------------------------------- */

static void lost(const char *why)
{
    if (rm.forked && !rm.broken) {
        fprintf(stderr, "p2psim: CUDA in a child forked after the runtime "
                        "started is not supported (exec a program "
                        "instead)\n");
    } else if (!rm.broken) {
        fprintf(stderr, "p2psim: lost the p2psim server (%s); the machine "
                        "is gone\n", why);
    }
    rm.broken = true;
}

static int write_all(const void *buf, size_t len)
{
    return fdio_write_all(rm.fd, buf, len, NULL);
}

static int read_all(void *buf, size_t len)
{
    return fdio_read_all(rm.fd, buf, len, NULL) == (ssize_t)len ? 0 : -1;
}

/*
 * Send a request: header, payload a then b, and a descriptor (pass_fd >=
 * 0) with the header. Returns its seq, or 0 (and the socket is lost).
 */
static uint64_t send_request(uint32_t type, const void *a, size_t a_len,
                             const void *b, size_t b_len, int pass_fd)
{
    if (rm.fd < 0) {
        lost("no connection");
    }
    if (rm.broken) {
        return 0;
    }
    /* What the server would take as malformed (wire.h's table). */
    const struct wire_request_info *ri = wire_request(type);
    if (!ri || a_len != ri->size || (b_len && !(ri->flags & WIRE_F_TAIL)) ||
        (pass_fd >= 0 && !(ri->flags & WIRE_F_FD))) {
        fprintf(stderr, "p2psim: bug: a %s request of %zu + %zu bytes\n",
                wire_type_name(type), a_len, b_len);
        lost("a malformed request");
        return 0;
    }
    struct wire_hdr h = {
        .type = type,
        .len = (uint32_t)(a_len + b_len),
        .seq = ++rm.seq,
    };
    if (fdio_write_fd(rm.fd, &h, sizeof(h), pass_fd, NULL) < 0 ||
        (a_len && write_all(a, a_len) < 0) ||
        (b_len && write_all(b, b_len) < 0)) {
        lost(strerror(errno));
        return 0;
    }
    return h.seq;
}

static int read_hdr(struct wire_hdr *h)
{
    if (rm.broken || read_all(h, sizeof(*h)) < 0) {
        lost("connection closed");
        return -1;
    }
    if (h->now > rm.now) {
        rm.now = h->now;
    }
    return 0;
}

/* A message the server should not send now: the connection is lost. */
static void unexpected(const struct wire_hdr *h)
{
    char why[64];
    snprintf(why, sizeof(why), "unexpected message %s", wire_type_name(h->type));
    lost(why);
}

/* The rest of a batch message (after its header) into the inbox. */
static int read_batch_msg(const struct wire_hdr *h)
{
    size_t more, want = wire_server_size(h->type, &more);
    size_t extra = h->len > want ? h->len - want : 0;
    struct rm_msg *m = calloc(1, sizeof(*m));
    if (m && extra) {
        m->text = malloc(extra);
    }
    if (!m || (extra && !m->text) || h->len < want ||
        extra > more ||
        read_all(&m->u, want) < 0 ||
        (extra && read_all(m->text, extra) < 0)) {
        bool oom = !m || (extra && !m->text);
        if (m) {
            free(m->text);
        }
        free(m);
        lost(oom ? "out of memory" : "malformed batch");
        return -1;
    }
    if (extra) {
        m->text[extra - 1] = '\0';
    }
    m->type = h->type;
    if (rm.in_tail) {
        rm.in_tail->next = m;
    } else {
        rm.in_head = m;
    }
    rm.in_tail = m;
    return 0;
}

/*
 * Read until the reply to seq: *r, and data_len more bytes into data (an
 * HBM read). Batch messages met first go to the inbox.
 */
static int wait_reply(uint64_t seq, struct wire_reply *r, void *data,
                      uint64_t data_len)
{
    for (;;) {
        struct wire_hdr h;
        if (read_hdr(&h) < 0) {
            return -1;
        }
        if (h.type == WIRE_CALLBACK || h.type == WIRE_END) {
            if (read_batch_msg(&h) < 0) {
                return -1;
            }
            continue;
        }
        if (h.type != WIRE_REPLY || h.seq != seq || h.len < sizeof(*r) ||
            read_all(r, sizeof(*r)) < 0) {
            unexpected(&h);
            return -1;
        }
        uint64_t extra = h.len - sizeof(*r);
        if (extra && (extra != data_len || read_all(data, extra) < 0)) {
            lost("malformed reply");
            return -1;
        }
        return 0;
    }
}

/* Read a whole batch (up to its END) into the inbox. */
static int read_batch(void)
{
    for (;;) {
        struct wire_hdr h;
        if (read_hdr(&h) < 0) {
            return -1;
        }
        if (h.type != WIRE_CALLBACK && h.type != WIRE_END) {
            unexpected(&h);
            return -1;
        }
        if (read_batch_msg(&h) < 0) {
            return -1;
        }
        if (h.type == WIRE_END) {
            return 0;
        }
    }
}

static bool readable(int fd, int timeout_ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    return poll(&p, 1, timeout_ms) > 0;
}

/* ---- callbacks ------------------------------------------------------------------ */

/* A new callback id for one of done, kernel, timer, ipc; 0: no memory. */
static uint64_t pending_new(p2psim_done_fn *done, p2psim_kernel_done_fn *kernel,
                            rt_timer_fn *timer, void (*ipc)(void *, int),
                            void *arg)
{
    struct rm_pending *p = calloc(1, sizeof(*p));
    if (!p) {
        return 0;
    }
    p->id = ++rm.next_cb;
    p->done = done;
    p->kernel = kernel;
    p->timer = timer;
    p->ipc = ipc;
    p->arg = arg;
    struct rm_pending **b = &rm.pend[p->id % RM_BUCKETS];
    p->next = *b;
    *b = p;
    return p->id;
}

static uint64_t pending_add(p2psim_done_fn *done, rt_timer_fn *timer,
                            void (*ipc)(void *, int), void *arg)
{
    return pending_new(done, NULL, timer, ipc, arg);
}

static struct rm_pending *pending_take(uint64_t id)
{
    for (struct rm_pending **pp = &rm.pend[id % RM_BUCKETS]; *pp;
         pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            struct rm_pending *p = *pp;
            *pp = p->next;
            return p;
        }
    }
    return NULL;
}

static void run_callback(const struct wire_callback *cb, const char *text)
{
    struct rm_pending *p = pending_take(cb->cb);
    if (!p) {
        return;                 /* cancelled */
    }
    if (p->kernel) {
        p->kernel(p->arg, cb->status, text, cb->t_end);
    } else if (p->done) {
        struct p2psim_copy_result r = {
            .status = cb->status,
            .staged = cb->staged != 0,
            .t_start = cb->t_start,
            .t_end = cb->t_end,
        };
        p->done(p->arg, &r);
    } else if (p->timer) {
        p->timer(p->arg);
    } else if (p->ipc) {
        p->ipc(p->arg, cb->status);
    }
    free(p);
}

/*
 * Run what the inbox holds, in order: the callbacks of a batch, at the
 * time the server stopped at (rm.now; it stands still while we are busy).
 * Returns whether it held an END; *nothing: the server said nothing can
 * happen any more.
 */
static bool process_inbox(bool *nothing)
{
    bool end = false;
    while (rm.in_head) {
        struct rm_msg *m = rm.in_head;
        rm.in_head = m->next;
        if (!rm.in_head) {
            rm.in_tail = NULL;
        }
        if (m->type == WIRE_END) {
            end = true;
            if (nothing && m->u.end.nothing) {
                *nothing = true;
            }
            if (m->u.end.failed) {
                /* the server said why (cuda/server/server.c, srv_failed) */
                rt_machine_failed = true;
            }
        } else {
            run_callback(&m->u.cb, m->text);
        }
        free(m->text);
        free(m);
    }
    return end;
}

/* ---- being idle, busy or outside ------------------------------------------------ */

/*
 * Who is idle. The server advances the simulation only when no process is
 * busy. This process is idle while a thread is inside advance() (all its
 * host threads wait). When no thread has called CUDA for a grace period
 * (P2PSIM_HOST_GRACE_MS, default 20 ms of wall time, as rt.c uses for
 * threads) and none is inside advance(), its threads are taken as blocked
 * outside CUDA (a pipe, a barrier with another process): the service
 * thread declares the process "outside", which lets the others' time go
 * on, and runs the callbacks the server sends meanwhile. The first CUDA
 * call after that comes back (WIRE_BUSY) before it does anything. So, as
 * with threads in rt.c, wall time matters only where a process blocks
 * outside CUDA while another one waits inside it; a process outside never
 * makes time advance by itself, so a single-process program under a
 * server runs exactly as with its own machine.
 *
 * While a thread waits for a batch inside advance(), it releases the
 * runtime lock: another thread of the process may come in, make its calls
 * (the process is busy again from then on) and leave; advance() then
 * returns to rt_wait to look again.
 */

/*
 * Make the process busy for the server (time stops for it) before it does
 * anything: after the service thread declared it outside, or while a
 * thread waits in advance() with the lock released. A batch sent before
 * the server saw WIRE_BUSY is read first; it runs now unless a thread in
 * advance() will run it.
 */
static void come_back(void)
{
    if (rm.state == RM_BUSY || rm.broken) {
        return;
    }
    struct wire_reply r;
    uint64_t seq = send_request(WIRE_BUSY, NULL, 0, NULL, 0, -1);
    if (!seq || wait_reply(seq, &r, NULL, 0) < 0) {
        return;
    }
    rm.state = RM_BUSY;
    if (rm.driving) {
        char c = 1;
        if (write(rm.wake[1], &c, 1) < 0) {
            /* The pipe is full: the driver is woken already. */
        }
    } else {
        process_inbox(NULL);
    }
}

static void declare_outside(void)
{
    struct wire_idle i = { .limit = SIM_TIME_MAX, .outside = 1 };
    if (send_request(WIRE_IDLE, &i, sizeof(i), NULL, 0, -1)) {
        rm.state = RM_OUTSIDE;
    }
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (real_nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/*
 * The service thread: declares the process outside after a grace period
 * without CUDA calls, and runs the batches that come while it is. It only
 * ever takes the lock with trylock, so it never holds up a thread, and it
 * reads the socket only under the lock, as everybody does.
 */
static void *service_main(void *arg)
{
    (void)arg;
    rm_in_service = true;
    rt_thread_internal();
    uint64_t seen = 0;
    for (;;) {
        if (__atomic_load_n(&rm.state, __ATOMIC_RELAXED) == RM_OUTSIDE) {
            readable(rm.fd, (int)rm.grace_ms);
        } else {
            sleep_ms(rm.grace_ms);
        }
        if (pthread_mutex_trylock(&rt.lock) != 0) {
            continue;
        }
        if (rm.broken) {
            pthread_mutex_unlock(&rt.lock);
            return NULL;
        }
        if (!rm.driving && rm.state == RM_OUTSIDE && readable(rm.fd, 0)) {
            if (read_batch() == 0) {
                rm.state = RM_BUSY;
                if (!rm.service) {
                    /* Host functions run here may ask for a thread; this
                     * one never counts as running. */
                    rm.service = rt_self();     /* RT_EXITED */
                }
                process_inbox(NULL);
                pthread_cond_broadcast(&rt.cond);
                declare_outside();
            }
        } else if (!rm.driving && rm.state == RM_BUSY &&
                   rm.activity == seen) {
            declare_outside();
        }
        seen = rm.activity;
        pthread_mutex_unlock(&rt.lock);
    }
}

/* ---- rt_machine_ops --------------------------------------------------------------- */

static sim_time_t remote_now(void)
{
    if (!rm_in_service) {
        rm.activity++;
        come_back();
    }
    return rm.now;
}

static int call(uint32_t type, const void *a, size_t a_len, const void *b,
                size_t b_len, int pass_fd, struct wire_reply *r, void *data,
                uint64_t data_len)
{
    const struct wire_request_info *ri = wire_request(type);
    if (ri && data_len > ri->reply_data) {
        return -SIM_EINVAL;     /* more than its reply can carry */
    }
    come_back();
    uint64_t seq = send_request(type, a, a_len, b, b_len, pass_fd);
    if (!seq || wait_reply(seq, r, data, data_len) < 0) {
        return -SIM_EIO;
    }
    return r->rc;
}

int rt_remote_call(uint32_t type, const void *req, uint32_t len,
                   struct wire_reply *r)
{
    return call(type, req, len, NULL, 0, -1, r, NULL, 0);
}

int rt_remote_call_fd(uint32_t type, const void *req, uint32_t len,
                      int pass_fd, struct wire_reply *r)
{
    return call(type, req, len, NULL, 0, pass_fd, r, NULL, 0);
}

static struct wire_loc wloc(const struct p2psim_loc *l)
{
    return (struct wire_loc){ .kind = l->kind, .gpu = l->gpu,
                              .addr = l->addr };
}

/* Send a request (m, then data) that completes with callback id; forget
 * the id if refused. */
static int call_with_callback(uint32_t type, const void *m, size_t len,
                              const void *data, size_t data_len, uint64_t id,
                              struct wire_reply *out)
{
    if (!id) {
        return -SIM_ENOMEM;
    }
    struct wire_reply r;
    int rc = call(type, m, len, data, data_len, -1, out ? out : &r, NULL, 0);
    if (rc < 0) {
        free(pending_take(id));
    }
    return rc;
}

static int remote_copy(const struct p2psim_loc *dst,
                       const struct p2psim_loc *src, uint64_t len,
                       unsigned flags, sim_time_t start_at, uint64_t after,
                       p2psim_done_fn *done, void *arg, uint64_t *id)
{
    struct wire_copy m = {
        .dst = wloc(dst),
        .src = wloc(src),
        .len = len,
        .flags = flags,
        .start_at = start_at,
        .cb = pending_add(done, NULL, NULL, arg),
        .after = after,
    };
    struct wire_reply r = { 0 };
    int rc = call_with_callback(WIRE_COPY, &m, sizeof(m), NULL, 0, m.cb, &r);
    if (rc == 0 && id) {
        *id = r.v[0];           /* the server's p2psim_copy_after id */
    }
    return rc;
}

static int remote_fill(unsigned gpu, uint64_t off, uint8_t value,
                       uint64_t len, sim_time_t start_at,
                       p2psim_done_fn *done, void *arg)
{
    struct wire_fill m = {
        .gpu = gpu,
        .value = value,
        .off = off,
        .len = len,
        .start_at = start_at,
        .cb = pending_add(done, NULL, NULL, arg),
    };
    return call_with_callback(WIRE_FILL, &m, sizeof(m), NULL, 0, m.cb,
                              NULL);
}

static int remote_timer(sim_time_t at, rt_timer_fn *fn, void *arg)
{
    struct wire_timer m = { .at = at, .cb = pending_add(NULL, fn, NULL, arg) };
    return call_with_callback(WIRE_TIMER, &m, sizeof(m), NULL, 0, m.cb,
                              NULL);
}

/*
 * Wait for a batch with the lock released. 1: a batch is in the inbox;
 * 0: another thread made the process busy meanwhile; -1: server gone.
 */
static int wait_batch(void)
{
    for (;;) {
        struct pollfd p[2] = {
            { .fd = rm.fd, .events = POLLIN },
            { .fd = rm.wake[0], .events = POLLIN },
        };
        pthread_mutex_unlock(&rt.lock);
        int n = poll(p, 2, -1);
        rt_lock();
        char drain[16];
        while (read(rm.wake[0], drain, sizeof(drain)) > 0) {
        }
        if (rm.broken) {
            return -1;
        }
        if (rm.state != RM_IDLE) {
            return 0;
        }
        if (n > 0 && readable(rm.fd, 0)) {
            if (read_batch() < 0) {
                return -1;
            }
            rm.state = RM_BUSY;
            return 1;
        }
    }
}

static bool remote_advance(bool (*keep_going)(void *arg), void *arg,
                           sim_time_t limit)
{
    come_back();
    rm.driving = true;
    bool ok = !rm.broken;
    while (ok) {
        bool nothing = false;
        process_inbox(&nothing);
        if (!keep_going(arg) || (limit != SIM_TIME_MAX && rm.now >= limit)) {
            break;
        }
        /* rt_leave's catch-up asks once, and only for the time nobody
         * else holds up (wire.h, now_only). */
        struct wire_idle i = { .limit = limit, .now_only = rt.catching_up };
        if (!send_request(WIRE_IDLE, &i, sizeof(i), NULL, 0, -1)) {
            ok = false;
            break;
        }
        rm.state = RM_IDLE;
        int got = wait_batch();
        if (got < 0) {
            ok = false;
            break;
        }
        process_inbox(&nothing);
        if (got == 0 || !keep_going(arg) || rt.catching_up) {
            break;              /* rt_wait looks again */
        }
        if (nothing) {
            ok = false;
        }
    }
    rm.driving = false;
    return ok;
}

static int remote_hbm_alloc(unsigned gpu, uint64_t size, uint64_t align,
                            uint64_t *off)
{
    struct wire_hbm m = { .gpu = gpu, .len = size, .align = align };
    struct wire_reply r;
    int rc = call(WIRE_HBM_ALLOC, &m, sizeof(m), NULL, 0, -1, &r, NULL, 0);
    if (rc == 0) {
        *off = r.v[0];
    }
    return rc;
}

static int remote_hbm_free(unsigned gpu, uint64_t off)
{
    struct wire_hbm m = { .gpu = gpu, .off = off };
    struct wire_reply r;
    return call(WIRE_HBM_FREE, &m, sizeof(m), NULL, 0, -1, &r, NULL, 0);
}

static int remote_hbm_read(unsigned gpu, uint64_t off, void *buf,
                           uint64_t len)
{
    for (uint64_t done = 0; done < len;) {
        uint64_t n = len - done < WIRE_HBM_CHUNK ? len - done : WIRE_HBM_CHUNK;
        struct wire_hbm m = { .gpu = gpu, .off = off + done, .len = n };
        struct wire_reply r;
        come_back();
        uint64_t seq = send_request(WIRE_HBM_READ, &m, sizeof(m), NULL, 0, -1);
        if (!seq) {
            return -SIM_EIO;
        }
        /* A refused read has no data: look at the header's length. */
        struct wire_hdr h;
        do {
            if (read_hdr(&h) < 0) {
                return -SIM_EIO;
            }
            if ((h.type == WIRE_CALLBACK || h.type == WIRE_END) &&
                read_batch_msg(&h) < 0) {
                return -SIM_EIO;
            }
        } while (h.type == WIRE_CALLBACK || h.type == WIRE_END);
        if (h.type != WIRE_REPLY || h.seq != seq || h.len < sizeof(r) ||
            read_all(&r, sizeof(r)) < 0 ||
            (h.len > sizeof(r) &&
             (h.len - sizeof(r) != n ||
              read_all((char *)buf + done, n) < 0))) {
            lost("malformed reply");
            return -SIM_EIO;
        }
        if (r.rc < 0) {
            return r.rc;
        }
        done += n;
    }
    return 0;
}

static int remote_hbm_write(unsigned gpu, uint64_t off, const void *buf,
                            uint64_t len)
{
    for (uint64_t done = 0; done < len;) {
        uint64_t n = len - done < WIRE_HBM_CHUNK ? len - done : WIRE_HBM_CHUNK;
        struct wire_hbm m = { .gpu = gpu, .off = off + done, .len = n };
        struct wire_reply r;
        int rc = call(WIRE_HBM_WRITE, &m, sizeof(m), (const char *)buf + done,
                      n, -1, &r, NULL, 0);
        if (rc < 0) {
            return rc;
        }
        done += n;
    }
    return 0;
}

/* ---- kernels ------------------------------------------------------------------ */

static int remote_module_load(uint64_t module, const char *ptx, size_t len)
{
    const size_t chunk = WIRE_MAX_PAYLOAD - sizeof(struct wire_module);
    size_t done = 0;
    do {
        size_t n = len - done < chunk ? len - done : chunk;
        struct wire_module m = { .id = module, .total = len, .offset = done };
        struct wire_reply r;
        int rc = call(WIRE_MODULE_LOAD, &m, sizeof(m), ptx + done, n, -1, &r,
                      NULL, 0);
        if (rc < 0) {
            return rc;
        }
        done += n;
    } while (done < len);
    return 0;
}

static int remote_kernel(const struct rt_kernel_launch *kl)
{
    const struct p2psim_launch *l = &kl->l;
    if (l->ck || !kl->module || !kl->name) {
        return -SIM_ENOTSUP;    /* C kernels live in this process only */
    }
    struct rt_kernel_range *ranges;
    unsigned n_ranges;
    int rc = rt_kernel_ranges(l->gpu, &ranges, &n_ranges);
    if (rc < 0) {
        return rc;
    }
    size_t name_len = strlen(kl->name);
    size_t len = wire_pad8(name_len) + wire_pad8(l->param_bytes) +
                 (size_t)l->n_vars * sizeof(uint64_t) +
                 (size_t)n_ranges * sizeof(struct wire_kernel_range);
    if (len > WIRE_MAX_PAYLOAD - sizeof(struct wire_kernel)) {
        fprintf(stderr, "p2psim: kernel %s: its launch (%u allocations "
                "in reach) is larger than a message to the p2psim server "
                "can be\n", kl->name, n_ranges);
        free(ranges);
        return -SIM_ERANGE;
    }
    unsigned char *buf = calloc(1, len ? len : 1);
    if (!buf) {
        free(ranges);
        return -SIM_ENOMEM;
    }
    unsigned char *p = buf;
    memcpy(p, kl->name, name_len);
    p += wire_pad8(name_len);
    if (l->param_bytes) {
        memcpy(p, l->param_buf, l->param_bytes);
    }
    p += wire_pad8(l->param_bytes);
    if (l->n_vars) {
        memcpy(p, l->var_addrs, l->n_vars * sizeof(uint64_t));
    }
    p += l->n_vars * sizeof(uint64_t);
    for (unsigned i = 0; i < n_ranges; i++) {
        struct wire_kernel_range w = {
            .va = ranges[i].va,
            .len = ranges[i].len,
            .loc = wloc(&ranges[i].loc),
        };
        memcpy(p, &w, sizeof(w));
        p += sizeof(w);
    }
    free(ranges);
    struct wire_kernel m = {
        .module = kl->module,
        .gpu = l->gpu,
        .grid = { l->grid[0], l->grid[1], l->grid[2] },
        .block = { l->block[0], l->block[1], l->block[2] },
        .dyn_smem = l->dyn_smem,
        .blocks_per_sm = l->blocks_per_sm,
        .cooperative = l->cooperative,
        .cdp_pending_max = l->cdp_pending_max,
        .grid_ws = l->grid_ws,
        .heap_base = l->heap_base,
        .heap_bytes = l->heap_bytes,
        .name_len = (uint32_t)name_len,
        .param_bytes = l->param_bytes,
        .n_vars = l->n_vars,
        .n_ranges = n_ranges,
        .start_at = l->start_at,
        .cb = pending_new(NULL, l->done, NULL, NULL, l->done_arg),
    };
    rc = call_with_callback(WIRE_KERNEL_LAUNCH, &m, sizeof(m), buf, len,
                            m.cb, NULL);
    free(buf);
    return rc;
}

const struct rt_machine_ops rt_machine_remote = {
    .name = "server",
    .now = remote_now,
    .copy = remote_copy,
    .fill = remote_fill,
    .host_register = rt_remote_host_register,
    .host_unregister = rt_remote_host_unregister,
    .timer = remote_timer,
    .advance = remote_advance,
    .hbm_alloc = remote_hbm_alloc,
    .hbm_free = remote_hbm_free,
    .hbm_read = remote_hbm_read,
    .hbm_write = remote_hbm_write,
    .host_alloc = rt_remote_host_alloc,
    .host_free = rt_remote_host_free,
    .module_load = remote_module_load,
    .kernel = remote_kernel,
};

/* ---- for ipc.c and the report ----------------------------------------------------- */

bool rt_remote_is_active(void)
{
    return rt_machine == &rt_machine_remote;
}

uint64_t rt_remote_session(void)
{
    return rm.session;
}

uint64_t rt_remote_callback_add(void (*fn)(void *arg, int status), void *arg)
{
    return pending_add(NULL, NULL, fn, arg);
}

void rt_remote_callback_cancel(uint64_t id)
{
    free(pending_take(id));
}

void rt_remote_counters(uint64_t *events, uint64_t *tlp_hops,
                        uint64_t *parked)
{
    struct wire_reply r;
    if (rt_remote_call(WIRE_STATS, NULL, 0, &r) < 0) {
        r.v[0] = r.v[1] = r.v[2] = 0;
    }
    *events = r.v[0];
    *tlp_hops = r.v[1];
    *parked = r.v[2];
}

int rt_remote_link_stat(unsigned i, struct p2psim_link_stat *ls)
{
    struct wire_u64 m = { i };
    struct wire_link_stat w;
    struct wire_reply r;
    int rc = call(WIRE_LINK_STAT, &m, sizeof(m), NULL, 0, -1, &r, &w,
                  sizeof(w));
    if (rc == 0) {
        for (int d = 0; d < 2; d++) {
            ls->tlps[d] = w.tlps[d];
            ls->bytes[d] = w.bytes[d];
            ls->busy_ps[d] = w.busy_ps[d];
        }
    }
    return rc;
}

/* ---- connecting ---------------------------------------------------------------- */

/* A child forked after start-up must not talk on the parent's socket. */
static void forked_child(void)
{
    if (rm.fd >= 0) {
        close(rm.fd);
    }
    rm.fd = -1;
    rm.forked = true;
}

static int connect_to(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(sa.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        fd = -1;
    }
    return fd;
}

cudaError_t rt_remote_connect(const char *path)
{
    const char *g = getenv("P2PSIM_HOST_GRACE_MS");
    rm.grace_ms = g && *g ? strtol(g, NULL, 10) : 20;
    if (rm.grace_ms < 1) {
        rm.grace_ms = 1;
    }
    rm.fd = connect_to(path);
    if (rm.fd < 0) {
        fprintf(stderr, "p2psim: P2PSIM_SERVER=%s: cannot connect to the "
                        "p2psim server: %s\n", path, strerror(errno));
        return cudaErrorInitializationError;
    }
    struct wire_hello h = {
        .version = WIRE_VERSION,
        .pid = (uint32_t)getpid(),
        .n_gpus = p2psim_gpu_count(rt.p),
    };
    snprintf(h.machine, sizeof(h.machine), "%s", p2psim_machine_name(rt.p));
    struct wire_reply r;
    int rc = call(WIRE_HELLO, &h, sizeof(h), NULL, 0, -1, &r, NULL, 0);
    if (rc < 0) {
        fprintf(stderr, "p2psim: P2PSIM_SERVER=%s: the server refused this "
                        "process (%s; its message says why)\n", path,
                sim_strerror(rc));
        close(rm.fd);
        rm.fd = -1;
        return cudaErrorInitializationError;
    }
    rm.session = r.v[0];
    if (pipe2(rm.wake, O_NONBLOCK | O_CLOEXEC) < 0) {
        return cudaErrorInitializationError;
    }
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int e = pthread_create(&t, &attr, service_main, NULL);
    pthread_attr_destroy(&attr);
    if (e) {
        return cudaErrorInitializationError;
    }
    pthread_atfork(NULL, NULL, forked_child);
    rt_machine = &rt_machine_remote;
    return cudaSuccess;
}
