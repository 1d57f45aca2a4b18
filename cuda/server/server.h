/*
 * cuda/server/server.h - the p2psim server's state, shared by its files:
 * server.c (clients, the protocol's messages and time, the machine's
 * operations), server_ipc.c (who owns which HBM, memory exports,
 * interprocess events) and server_loop.c (its sockets); tools/cmd_server.c
 * is the command around them. Not installed; the protocol itself is
 * cuda/server/wire.h.
 */
#ifndef P2PSIM_CUDA_SERVER_SERVER_H
#define P2PSIM_CUDA_SERVER_SERVER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda/server/wire.h"
#include "machine/hbm_space.h"
#include "sim/time.h"

struct p2psim;
struct sim;

/*
 * Caps on what clients can make the server hold (any process of the user
 * can connect; docs/cuda-shim.md lists them). A request past one gets
 * -SIM_ENOMEM (the shim's cudaErrorMemoryAllocation); a connection past
 * SRV_MAX_CLIENTS is closed at once.
 */
#define SRV_MAX_CLIENTS 1024u           /* connected at once */
#define SRV_MAX_OPS (1u << 20)          /* copies, fills, timers, grids
                                           in the simulation, all clients */
#define SRV_MAX_MAPS 4096u              /* host registrations per client */
#define SRV_MAX_FILE_MAPS 4096u         /* of unsealed files, all clients */
#define SRV_MAX_MODULES 4096u           /* PTX modules per client */
#define SRV_MAX_MODULE_BYTES (UINT64_C(1) << 30)  /* PTX text per module */
#define SRV_MAX_ALLOCS (1u << 20)       /* HBM allocations, all clients */
#define SRV_MAX_EVENTS 65536u           /* exported events, all clients */
#define SRV_MAX_PENDING 65536u          /* records not yet done, per event */
#define SRV_MAX_WAITERS (1u << 20)      /* waits not yet done, all clients */
/* A client that stops reading what it is sent, or stops in the middle of
 * a message it sends, for this long is dropped (seconds). */
#define SRV_IO_TIMEOUT_S 10

enum srv_state {
    SRV_BUSY,                   /* running, or processing a batch */
    SRV_IDLE,                   /* waiting inside the simulator */
    SRV_OUTSIDE,                /* blocked outside CUDA: wants no time */
};

/* A client's pinned host memory, mapped here too. */
struct srv_map {
    struct srv_map *next;
    uint64_t bus;
    void *base;
    size_t map_len;
    bool dead;                  /* unregistered, kept mapped while the
                                   client's operations run */
};

/*
 * Map the pages of a client's file that hold [offset, offset + len):
 * *base and *map_len the mapping, *at the range's first byte. The file is
 * a regular file; one not sealed against shrinking is guarded against
 * shrinking (server_hostmap.c). -SIM_EINVAL: not such a file or range.
 */
int srv_hostmap(int fd, uint64_t offset, uint64_t len, void **base,
                size_t *map_len, void **at);
/* Unmap what srv_hostmap mapped. */
void srv_hostunmap(void *base, size_t map_len);

struct srv_export;
struct ptx_module;

/* A module of PTX a client loaded (WIRE_MODULE_LOAD), its kernels run
 * here. text collects the chunks until the module is whole (text NULL,
 * mod NULL: none has come yet). */
struct srv_module {
    struct srv_module *next;
    uint64_t id;                /* the client's number */
    char *text;                 /* NULL once parsed */
    uint64_t total, have, cap;  /* bytes (cap: of text) */
    struct ptx_module *mod;     /* NULL until parsed */
};

/* A callback waiting for its batch, with a kernel's failure message. */
struct srv_out {
    struct wire_callback cb;
    char *msg;                  /* malloc'd, or NULL */
};

/* How many times a client has an export open. */
struct srv_import {
    struct srv_import *next;
    struct srv_export *x;
    unsigned count;
};

struct srv_client {
    struct srv_client *next;    /* every client ever connected */
    int fd;                     /* -1: gone */
    unsigned id;
    uint32_t pid;
    bool hello;                 /* WIRE_HELLO accepted */
    enum srv_state state;
    sim_time_t limit;           /* IDLE: its deadline (SIM_TIME_MAX) */
    struct srv_out *out;        /* the next batch */
    unsigned n_out, cap_out;
    unsigned inflight;          /* its operations in the simulation */
    struct srv_map *maps;
    unsigned n_maps, n_modules;
    struct srv_module *modules; /* freed with maps, when nothing runs */
    struct srv_import *imports;
};

/* An HBM allocation and who owns it (NULL: freed, kept for importers). */
struct srv_alloc {
    struct srv_alloc *next;
    struct srv_client *owner;
    unsigned gpu;
    uint64_t off, len;
    struct srv_export *x;       /* its export, if any */
};

struct srv_export {
    struct srv_export *next;
    struct srv_alloc *a;
    struct srv_client *owner;
    unsigned gpu;
    uint64_t off, size, nonce;
    unsigned opens;             /* by other clients, all counted */
    bool stale;                 /* the exporter freed it */
};

/* A generation recorded and not yet complete. */
struct srv_gen {
    struct srv_gen *next;
    uint64_t gen;
    struct srv_client *by;
};

struct srv_waiter {
    struct srv_waiter *next;
    struct srv_client *c;
    uint64_t gen, cb;
};

struct srv_event {
    struct srv_event *next;
    uint64_t id, nonce;
    struct srv_client *owner;
    uint64_t gen;               /* last generation recorded (0: none) */
    int32_t last_status;        /* of generation gen, once done */
    struct srv_gen *pending;
    unsigned n_pending;
    struct srv_waiter *waiters;
    bool closed;                /* the exporter destroyed it */
};

/* An operation of a client inside the simulation (in s->ops). */
struct srv_op {
    struct server *s;
    struct srv_client *c;
    uint64_t cb;
    struct srv_op *next, *prev;
    bool kernel;                /* the op of a struct srv_kop */
};

/* A grid: the operation, and the memory its addresses resolve to. */
struct srv_kop {
    struct srv_op op;           /* first: freed as the op */
    struct wire_kernel_range *ranges;   /* sorted by va, disjoint */
    unsigned n_ranges;
    sim_time_t t_start;
};

struct server {
    struct p2psim *p;
    struct sim *sim;
    int listen_fd;
    uint64_t session;
    struct srv_client *clients;
    unsigned n_live, next_id;
    unsigned n_gpus;
    struct p2psim_hbm_space *hbm;       /* [n_gpus] */
    struct srv_alloc *allocs;
    struct srv_export *exports;
    struct srv_event *events;
    unsigned n_allocs, n_events, n_waiters;
    uint64_t next_event_id;
    struct srv_op *ops;         /* in the simulation, newest first */
    unsigned n_ops;
    bool produced;              /* a callback was queued in this run */
    unsigned char *buf;         /* a message's payload (WIRE_MAX_PAYLOAD) */
    /* Set by the command's signal handler: a run in progress stops at the
     * next event (NULL: none). */
    volatile sig_atomic_t *stop;
    /* A run stops after this many events (0: no limit; for harnesses). */
    uint64_t max_run_events;
    uint64_t run_fired0;        /* events fired before this run */
    bool failed;                /* the simulation failed (srv_failed) */
};

/* ---- server.c ------------------------------------------------------------------- */

/* The server of machine p (not owned): 0 or -SIM_ENOMEM. listen_fd -1. */
int srv_init(struct server *s, struct p2psim *p);
/* Free everything, clients and operations in the simulation included
 * (p is not closed: the caller closes it after this). */
void srv_fini(struct server *s);
/* A new client on connected socket fd (taken over; closed when it goes).
 * NULL: refused (SRV_MAX_CLIENTS, out of memory), fd closed. */
struct srv_client *srv_client_new(struct server *s, int fd);
/* Serve one message of c: len bytes, a struct wire_hdr and its payload;
 * fd: the descriptor that came with it, or -1 (not taken over). A
 * message that is not whole or not one a client may send at this point
 * drops c. Returns 0, or -1 when c is gone. */
int srv_message(struct server *s, struct srv_client *c, const void *msg,
                size_t len, int fd);
/* The same for a header whose payload (h->len bytes, at most
 * WIRE_MAX_PAYLOAD) is already in s->buf. */
int srv_handle(struct server *s, struct srv_client *c,
               const struct wire_hdr *h, int fd);
/* Deliver what is due and advance the simulation if it may; free the
 * clients that are gone. false: nothing can happen before a message. */
bool srv_step(struct server *s);
/*
 * Has the simulation failed (out of memory, sim/error.h)? The first time
 * it is seen, "p2psim server: error: <sim_failure's message>" goes to
 * stderr. From then on every client waiting in the simulator gets a batch
 * whose END says so (wire_end.failed), requests that would start
 * something in it (copies, fills, timers, grids) get -SIM_ENOMEM, and
 * time stands still; the command exits 1 once no client is left.
 */
bool srv_failed(struct server *s);

/* Queue a callback for c's next batch (and stop the run in progress). */
void srv_queue_callback(struct server *s, struct srv_client *c,
                        const struct wire_callback *cb);
/* The same with a message for the client (copied; NULL: none). */
void srv_queue_callback_msg(struct server *s, struct srv_client *c,
                            const struct wire_callback *cb, const char *msg);
/* c is gone: release what it held (server_ipc.c's part included). */
void srv_client_drop(struct server *s, struct srv_client *c);
/* A token for sessions and nonces (not simulated randomness). */
uint64_t srv_random_u64(void);

/* What server_kernel.c shares with server.c: an operation enters the
 * simulation (srv_op_link), leaves it (srv_op_unlink), ends with its
 * callback (srv_op_finish: unlinked, queued, freed) or is freed. */
void srv_op_link(struct server *s, struct srv_op *op);
void srv_op_unlink(struct srv_op *op);
void srv_op_finish(struct srv_op *op, const struct wire_callback *cb,
                   const char *msg);
void srv_op_free(struct srv_op *op);
/* Is there a place for len bytes at l (host memory, or HBM that has it)? */
bool srv_loc_ok(const struct server *s, const struct wire_loc *l,
                uint64_t len);
/* Forget one of c's modules (server_kernel.c). */
void srv_module_remove(struct srv_client *c, struct srv_module *mod);

/* ---- server_loop.c --------------------------------------------------------------- */

/*
 * Serve clients on s->listen_fd until *s->stop is set, or the simulation
 * has failed and no client is left: 0, or 1 when it failed. The signals
 * of stop_set are blocked on entry; wait_mask is the mask with them
 * unblocked, set while the loop waits or simulates.
 */
int srv_serve(struct server *s, const sigset_t *wait_mask,
              const sigset_t *stop_set);

/* ---- the requests: server.c, server_ipc.c ----------------------------------------- */

/* A request as its handler sees it, and what the reply carries. */
struct srv_req {
    const struct wire_hdr *h;
    const void *m;              /* the request's struct (in s->buf) */
    const unsigned char *tail;  /* WIRE_F_TAIL: the bytes after it */
    size_t tail_len;
    int fd;                     /* WIRE_F_FD: the descriptor, or -1 */
    uint64_t v[3];              /* the reply's values */
    const void *data;           /* the reply's data, sent when rc is 0 */
    size_t data_len;
    bool drop;                  /* drop the client after the reply */
};

/* srv_on_HANDLER for each request of wire.h's table: 0 or a negative
 * SIM_E* code (the reply's rc). The size of r->m is checked; the values
 * in it are not. */
#define SRV_HANDLER_(NAME, HANDLER, ...)                                      \
    int srv_on_##HANDLER(struct server *s, struct srv_client *c,              \
                         struct srv_req *r);
WIRE_REQUESTS(SRV_HANDLER_)
#undef SRV_HANDLER_

/* ---- server_ipc.c ---------------------------------------------------------------- */

/* c is gone: its opens close, its HBM is freed (or kept for importers),
 * its events close and the generations it owed count as done. */
void srv_ipc_client_gone(struct server *s, struct srv_client *c);
/* Free the tables at exit. */
void srv_ipc_fini(struct server *s);

#endif /* P2PSIM_CUDA_SERVER_SERVER_H */
