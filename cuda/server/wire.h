/*
 * cuda/server/wire.h - the protocol between the CUDA shim in a program's
 * process (cuda/cudart/remote.c, ipc.c) and the p2psim server that owns
 * the one simulated machine every process of the program shares
 * (cuda/server/, run by `p2psim server`, which `p2psim run` starts).
 *
 * Transport: a UNIX stream socket (P2PSIM_SERVER names it). Both ends run
 * on one host and one ABI, so messages are C structs in host byte order.
 * A message is a struct wire_hdr followed by len bytes of payload; the
 * one file descriptor a message may carry (WIRE_HOST_REGISTER: the memfd
 * of the client's shared host memory) travels with its header as
 * SCM_RIGHTS ancillary data.
 *
 * Trust. Any process of the user can connect, so the server takes every
 * message as untrusted input (cuda/server/server.c): sizes are exact,
 * values checked, what clients can make it hold capped (SRV_MAX_* in
 * cuda/server/server.h, docs/cuda-shim.md); a message that is not whole
 * or not one a client may send at that point closes the connection.
 *
 * The conversation and its rules of time are told above the message
 * tables below; kernels (nvcc's, in PTX, which run in the server's machine
 * too) at struct wire_module and struct wire_kernel.
 */
#ifndef P2PSIM_CUDA_SERVER_WIRE_H
#define P2PSIM_CUDA_SERVER_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Bumped on any change to a layout below; HELLO refuses a mismatch. */
#define WIRE_VERSION 4u

/* Largest payload of one message; HBM reads and writes go in chunks. */
#define WIRE_MAX_PAYLOAD (UINT32_C(1) << 20)
#define WIRE_HBM_CHUNK (WIRE_MAX_PAYLOAD - 64u)

/*
 * Conversation. A client's requests are strictly sequential: each one
 * except WIRE_IDLE is answered by exactly one WIRE_REPLY with the same seq
 * before the client sends anything else. The server's other messages,
 * WIRE_CALLBACK and WIRE_END, come only in a batch: zero or more callbacks
 * then one END, sent only to a client that declared itself idle, and the
 * batch makes it busy again. So a client waiting for a reply may read a
 * batch first (it was idle a moment before, see remote.c's come_back), but
 * never two.
 *
 * Time. The server's simulation advances only while no client is busy and
 * at least one is idle inside the simulator (WIRE_IDLE, outside = 0): up
 * to the first operation that completes for any client, or the smallest
 * of the idle clients' limits. A client that is busy elsewhere (its
 * threads blocked outside CUDA, waiting for another process) declares
 * itself idle with outside = 1: it does not hold time back, and its
 * callbacks are still delivered (its service thread runs them), but it
 * never asks for time. Every server message carries the server's time,
 * which cannot move while the client is busy, so the client's copy is
 * exact whenever it uses it.
 *
 *   client                         server
 *     | HELLO ----------------------> |   session, client id
 *     | <------------------- REPLY    |
 *     | COPY (cb 7) ----------------> |   p2psim_copy(..., done -> cb 7)
 *     | <------------------- REPLY    |
 *     | IDLE (limit) ---------------> |   all clients idle: run
 *     | <---------- CALLBACK (cb 7)   |   the copy's completion, at t
 *     | <------------------- END (t)  |   client busy again
 *     | (runs cb 7, may send more)    |
 *     | IDLE ... or BUSY ...          |
 */

/*
 * The messages, once: both ends generate from these tables the numbers
 * (enum wire_type), the names in errors and logs (wire_type_name), the
 * size checks (wire_request, wire_server_size) and the server its
 * dispatch (cuda/server/server.c, srv_on_HANDLER).
 * Requests are numbered from 1 in the order below; the server's messages
 * from 100. The numbers are the protocol: append, never reorder.
 *
 *   X(NAME, HANDLER, request payload bytes, WIRE_F_*, reply data bytes)
 *
 * The request payload is the struct named, then with WIRE_F_TAIL more
 * bytes; every request but IDLE is answered by a struct wire_reply (rc,
 * v[3]), followed on success by at most the reply data bytes given.
 */
#define WIRE_F_TAIL 1u          /* bytes may follow the request's struct */
#define WIRE_F_FD 2u            /* a descriptor comes with it */
#define WIRE_F_NO_REPLY 4u      /* not answered (IDLE: a batch, later) */
#define WIRE_F_STARTS 8u        /* starts an operation in the simulation,
                                   whose end is a callback */

#define WIRE_REQUESTS(X)                                                      \
    /* v0 the session, v1 the client's id */                                  \
    X(HELLO, hello, sizeof(struct wire_hello), 0, 0)                          \
    /* back from idle: time stops */                                          \
    X(BUSY, busy, 0, 0, 0)                                                    \
    X(IDLE, idle, sizeof(struct wire_idle), WIRE_F_NO_REPLY, 0)               \
    /* v0 the copy's id (for a later copy's after) */                         \
    X(COPY, copy, sizeof(struct wire_copy), WIRE_F_STARTS, 0)                 \
    X(FILL, fill, sizeof(struct wire_fill), WIRE_F_STARTS, 0)                 \
    X(TIMER, timer, sizeof(struct wire_timer), WIRE_F_STARTS, 0)              \
    /* with the memfd; v0 the bus address */                                  \
    X(HOST_REGISTER, host_register, sizeof(struct wire_host_register),        \
      WIRE_F_FD, 0)                                                           \
    /* wire_u64: the bus address */                                           \
    X(HOST_UNREGISTER, host_unregister, sizeof(struct wire_u64), 0, 0)        \
    /* len: the size; v0 the offset */                                        \
    X(HBM_ALLOC, hbm_alloc, sizeof(struct wire_hbm), 0, 0)                    \
    X(HBM_FREE, hbm_free, sizeof(struct wire_hbm), 0, 0)                      \
    /* the reply: len bytes */                                                \
    X(HBM_READ, hbm_read, sizeof(struct wire_hbm), 0, WIRE_HBM_CHUNK)         \
    /* the request: len bytes */                                              \
    X(HBM_WRITE, hbm_write, sizeof(struct wire_hbm), WIRE_F_TAIL, 0)          \
    /* v0 events fired, v1 TLP hops */                                        \
    X(STATS, stats, 0, 0, 0)                                                  \
    /* wire_u64: the link's index */                                          \
    X(LINK_STAT, link_stat, sizeof(struct wire_u64), 0,                       \
      sizeof(struct wire_link_stat))                                          \
    /* v0 the nonce */                                                        \
    X(IPC_MEM_EXPORT, mem_export, sizeof(struct wire_ipc_mem), 0, 0)          \
    X(IPC_MEM_OPEN, mem_open, sizeof(struct wire_ipc_mem), 0, 0)              \
    X(IPC_MEM_CLOSE, mem_close, sizeof(struct wire_ipc_mem), 0, 0)            \
    /* v0 the event's id, v1 its nonce */                                     \
    X(IPC_EVENT_EXPORT, ipc_event, sizeof(struct wire_ipc_event), 0, 0)       \
    X(IPC_EVENT_OPEN, ipc_event, sizeof(struct wire_ipc_event), 0, 0)         \
    X(IPC_EVENT_CLOSE, ipc_event, sizeof(struct wire_ipc_event), 0, 0)        \
    /* v0 the generation */                                                   \
    X(IPC_EVENT_RECORD, ipc_event, sizeof(struct wire_ipc_event), 0, 0)       \
    /* gen and status: that record is complete */                             \
    X(IPC_EVENT_DONE, ipc_event, sizeof(struct wire_ipc_event), 0, 0)         \
    /* v0 the last generation, v1 done, v2 its status */                      \
    X(IPC_EVENT_QUERY, ipc_event, sizeof(struct wire_ipc_event), 0, 0)        \
    /* v1 done, v2 status; not done: a callback (cb) later */                 \
    X(IPC_EVENT_WAIT, ipc_event, sizeof(struct wire_ipc_event), 0, 0)         \
    /* a chunk of PTX; the last one: the parse's rc, v0 its line */           \
    X(MODULE_LOAD, module_load, sizeof(struct wire_module), WIRE_F_TAIL, 0)   \
    /* with its arrays; the grid's end: a callback with a text */             \
    X(KERNEL_LAUNCH, kernel, sizeof(struct wire_kernel),                      \
      WIRE_F_TAIL | WIRE_F_STARTS, 0)

/* The server's messages: X(NAME, payload bytes, at most this many more). */
#define WIRE_SERVER_MESSAGES(X)                                               \
    X(REPLY, sizeof(struct wire_reply), WIRE_HBM_CHUNK)                       \
    X(CALLBACK, sizeof(struct wire_callback), WIRE_MSG_MAX)                   \
    /* the batch is over */                                                   \
    X(END, sizeof(struct wire_end), 0)

#define WIRE_ENUM_(NAME, ...) WIRE_##NAME,
enum wire_type {
    WIRE_NONE,                  /* 0: no message */
    WIRE_REQUESTS(WIRE_ENUM_)
    WIRE_CLIENT_LAST,
    WIRE_SERVER_BASE = 99,      /* the server's messages count from 100 */
    WIRE_SERVER_MESSAGES(WIRE_ENUM_)
};
#undef WIRE_ENUM_

_Static_assert(WIRE_HELLO == 1 && WIRE_KERNEL_LAUNCH == 26 &&
                   WIRE_REPLY == 100 && WIRE_END == 102,
               "the message numbers are the protocol's (WIRE_VERSION)");

struct wire_hdr {
    uint32_t type;              /* enum wire_type */
    uint32_t len;               /* payload bytes that follow */
    uint64_t seq;               /* request number; a reply echoes it */
    uint64_t now;               /* server -> client: its time, ps */
};

/* ---- client -> server ----------------------------------------------------------- */

struct wire_hello {
    uint32_t version;           /* WIRE_VERSION */
    uint32_t pid;
    uint32_t n_gpus;            /* of the client's copy of the machine */
    uint32_t pad;
    char machine[64];           /* its name, NUL-terminated */
};

struct wire_idle {
    uint64_t limit;             /* ps; UINT64_MAX: none */
    uint32_t outside;           /* 1: blocked outside CUDA, wants nothing */
    uint32_t now_only;          /* 1: if another process is busy, the END
                                   comes at once (a catch-up, rt.c) */
};

struct wire_loc {
    uint32_t kind;              /* enum p2psim_mem */
    uint32_t gpu;
    uint64_t addr;              /* HBM offset or host bus address */
};

struct wire_copy {
    struct wire_loc dst, src;
    uint64_t len;               /* bytes */
    uint32_t flags;             /* P2PSIM_COPY_* */
    uint32_t pad;
    uint64_t start_at;          /* ps */
    uint64_t cb;                /* callback id for the completion */
    uint64_t after;             /* p2psim_copy_after's: an id a COPY's
                                   reply gave, or 0 */
};

struct wire_fill {
    uint32_t gpu;
    uint32_t value;             /* the byte, 0..255 */
    uint64_t off, len, start_at, cb;
};

struct wire_timer {
    uint64_t at;                /* ps */
    uint64_t cb;
};

/* The fd (SCM_RIGHTS) is a memfd; [offset, offset + len) of it is
 * registered as pinned memory of socket `socket`. */
struct wire_host_register {
    uint64_t offset, len;
    uint32_t socket;
    uint32_t pad;
};

struct wire_u64 {
    uint64_t v;
};

struct wire_hbm {
    uint32_t gpu;
    uint32_t pad;
    uint64_t off;               /* HBM offset */
    uint64_t len;               /* bytes (HBM_ALLOC: the size) */
    uint64_t align;             /* HBM_ALLOC: a power of two */
};

struct wire_ipc_mem {
    uint32_t gpu;
    uint32_t pad;
    uint64_t off, size;         /* the exported allocation */
    uint64_t nonce;             /* OPEN, CLOSE: the handle's */
};

struct wire_ipc_event {
    uint64_t id, nonce;
    uint64_t gen;               /* DONE, WAIT: the generation */
    uint64_t cb;                /* WAIT */
    int32_t status;             /* DONE: cudaError_t of the record */
    uint32_t pad;
};

/*
 * Kernels. A client sends each module's PTX text once (nvcc kernels only:
 * C kernels are functions of the client's process and never reach the
 * server), in chunks at increasing offsets; the chunk that completes
 * `total` makes the server parse it (rc -SIM_EINVAL and v0 the PTX line
 * when it cannot; the client has parsed and checked the same text
 * before, so this only happens between different builds).
 */
struct wire_module {
    uint64_t id;                /* the client's number for it, from 1 */
    uint64_t total;             /* bytes of PTX text in all */
    uint64_t offset;            /* of this chunk's first byte */
};

/*
 * A launch: this struct, then the kernel's name (name_len bytes, no NUL),
 * the parameter buffer (param_bytes), each padded with zeros to a
 * multiple of 8 bytes, then n_vars program addresses of the module's
 * variables (uint64_t) and n_ranges struct wire_kernel_range. The ranges
 * are the memory the grid may touch, as the client's allocations stood
 * when its stream reached the launch, sorted by va and disjoint; any
 * other address is illegal. Completion: a WIRE_CALLBACK whose status is
 * an enum p2psim_kernel_status, followed by the failure's message.
 */
struct wire_kernel {
    uint64_t module;            /* wire_module.id */
    uint32_t gpu;
    uint32_t grid[3], block[3];
    uint32_t dyn_smem;          /* bytes */
    uint32_t blocks_per_sm;
    uint32_t cooperative;       /* 0 or 1 */
    uint32_t cdp_pending_max;   /* p2psim_launch.cdp_pending_max */
    uint32_t name_len, param_bytes, n_vars, n_ranges;
    uint32_t pad;
    uint64_t grid_ws;           /* p2psim_launch.grid_ws (0: none) */
    uint64_t heap_base, heap_bytes; /* p2psim_launch's (0: none) */
    uint64_t start_at;          /* ps */
    uint64_t cb;
};

/* n rounded up to the 8-byte boundary the arrays of a launch start on. */
static inline uint64_t wire_pad8(uint64_t n)
{
    return (n + 7) / 8 * 8;
}

struct wire_kernel_range {
    uint64_t va, len;           /* program addresses */
    struct wire_loc loc;        /* where va is */
};

/* Longest failure message a kernel's callback carries (with its NUL). */
#define WIRE_MSG_MAX 1024u

/* ---- server -> client ----------------------------------------------------------- */

/* rc: 0 or a negative SIM_E* code; v: what the request says. */
struct wire_reply {
    int32_t rc;
    uint32_t pad;
    uint64_t v[3];
};

/* A kernel's callback is followed by its failure message, NUL-terminated
 * (at most WIRE_MSG_MAX bytes; none when it succeeded). */
struct wire_callback {
    uint64_t cb;                /* the id the request named */
    int32_t status;             /* p2psim_copy_result.status, the
                                   cudaError_t of an IPC event record, or
                                   a kernel's p2psim_kernel_status */
    uint32_t staged;
    uint64_t t_start, t_end;    /* ps */
};

/* A link's counters (machine/links.h; names and rates are the client's). */
struct wire_link_stat {
    uint64_t tlps[2], bytes[2], busy_ps[2];
};

/* failed: the server's simulation has failed (out of memory, sim/error.h;
 * the server printed why); nothing is 1 too, every later END says the
 * same, and the client's waits end in cudaErrorMemoryAllocation. */
struct wire_end {
    uint32_t nothing;           /* 1: nothing can happen any more */
    uint32_t failed;            /* 1: the simulation failed */
};

/* ---- interprocess handles (the 64 bytes of cudaIpc*Handle_t) -------------------- */

#define WIRE_IPC_MAGIC_MEM 0x4d433250u     /* "P2CM" */
#define WIRE_IPC_MAGIC_EVENT 0x45433250u   /* "P2CE" */

/*
 * What a handle holds. Nothing in it is trusted: the process that opens
 * it asks the server (or, without one, its own table) whether (session,
 * nonce, object) names a live export before it uses any other field.
 */
struct wire_ipc_handle {
    uint32_t magic;             /* WIRE_IPC_MAGIC_* */
    uint16_t version;           /* WIRE_VERSION */
    uint16_t pad;
    uint32_t pid;               /* exporting process */
    uint32_t gpu;               /* MEM: the allocation's device */
    uint64_t session;           /* the server's, or the process's own */
    uint64_t off;               /* MEM: HBM offset; EVENT: event id */
    uint64_t size;              /* MEM: bytes */
    uint64_t nonce;             /* random, kept by the exporter's side */
    uint8_t reserved[16];
};

_Static_assert(sizeof(struct wire_ipc_handle) == 64,
               "an IPC handle is CUDA_IPC_HANDLE_SIZE bytes");

/* ---- generated from the tables ------------------------------------------------ */

/* A request's line of the table. */
struct wire_request_info {
    const char *name;           /* "HELLO" */
    size_t size;                /* bytes of its struct */
    unsigned flags;             /* WIRE_F_* */
    size_t reply_data;          /* most bytes after its wire_reply */
};

/* The line of request type; NULL: not a request. */
static inline const struct wire_request_info *wire_request(uint32_t type)
{
    static const struct wire_request_info t[WIRE_CLIENT_LAST] = {
#define WIRE_INFO_(NAME, HANDLER, SIZE, FLAGS, DATA)                          \
    [WIRE_##NAME] = { #NAME, SIZE, FLAGS, DATA },
        WIRE_REQUESTS(WIRE_INFO_)
#undef WIRE_INFO_
    };
    return type < WIRE_CLIENT_LAST && t[type].name ? &t[type] : NULL;
}

/* A request's WIRE_F_* (0 for what is not one). */
static inline unsigned wire_request_flags(uint32_t type)
{
    const struct wire_request_info *r = wire_request(type);
    return r ? r->flags : 0;
}

/* The bytes of a server message's struct, and how many more may follow
 * (SIZE_MAX and 0: not one); its name. */
static inline size_t wire_server_size(uint32_t type, size_t *more)
{
    switch (type) {
#define WIRE_SRV_(NAME, SIZE, MORE)                                           \
    case WIRE_##NAME: *more = MORE; return SIZE;
    WIRE_SERVER_MESSAGES(WIRE_SRV_)
#undef WIRE_SRV_
    default: *more = 0; return SIZE_MAX;
    }
}

/* The message's name ("HELLO", "END"), or "unknown". */
static inline const char *wire_type_name(uint32_t type)
{
    const struct wire_request_info *r = wire_request(type);
    switch (r ? WIRE_NONE : type) {
#define WIRE_NAME_(NAME, ...)                                                 \
    case WIRE_##NAME: return #NAME;
    WIRE_SERVER_MESSAGES(WIRE_NAME_)
#undef WIRE_NAME_
    default: return r ? r->name : "unknown";
    }
}

#endif /* P2PSIM_CUDA_SERVER_WIRE_H */
