/*
 * cuda/server/wire.h - the protocol between the CUDA shim in a program's
 * process (cuda/cudart/remote.c, ipc.c) and the p2psim server that owns
 * the one simulated machine every process of the program shares
 * (tools/cmd_server.c, started by `p2psim run`).
 *
 * Transport: a UNIX stream socket (P2PSIM_SERVER names it). Both ends run
 * on one host and one ABI, so messages are C structs in host byte order.
 * A message is a struct wire_hdr followed by len bytes of payload; the
 * one file descriptor a message may carry (WIRE_HOST_REGISTER: the memfd
 * of the client's shared host memory) travels with its header as
 * SCM_RIGHTS ancillary data.
 *
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
 *
 * Trust. Any process of the user can connect, so the server takes every
 * message as untrusted input (cuda/server/server.c): sizes are exact, values
 * checked, what clients can make it hold capped (SRV_MAX_* in
 * cuda/server/server.h, docs/cuda-shim.md); a message that is not whole or not
 * one a client may send at that point closes the connection.
 *
 * Kernels (nvcc's, in PTX) run in the server's machine too: a client
 * loads each module's PTX once (WIRE_MODULE_LOAD) and launches a kernel
 * of it by name (WIRE_KERNEL_LAUNCH) when its stream reaches the launch,
 * with the parameter buffer and the ranges of memory the grid may touch;
 * the grid's end comes back as a callback, like a copy's.
 */
#ifndef P2PSIM_CUDA_SERVER_WIRE_H
#define P2PSIM_CUDA_SERVER_WIRE_H

#include <stdint.h>

/* Bumped on any change to a layout below; HELLO refuses a mismatch. */
#define WIRE_VERSION 3u

/* Largest payload of one message; HBM reads and writes go in chunks. */
#define WIRE_MAX_PAYLOAD (UINT32_C(1) << 20)
#define WIRE_HBM_CHUNK (WIRE_MAX_PAYLOAD - 64u)

enum wire_type {
    /* client -> server; each answered by one WIRE_REPLY except IDLE */
    WIRE_HELLO = 1,             /* struct wire_hello -> v0 session, v1 id */
    WIRE_BUSY,                  /* back from idle: stop time (no payload) */
    WIRE_IDLE,                  /* struct wire_idle; no reply: a batch */
    WIRE_COPY,                  /* struct wire_copy -> v0 the copy's id */
    WIRE_FILL,                  /* struct wire_fill */
    WIRE_TIMER,                 /* struct wire_timer */
    WIRE_HOST_REGISTER,         /* struct wire_host_register + fd -> v0 bus */
    WIRE_HOST_UNREGISTER,       /* struct wire_u64 (bus address) */
    WIRE_HBM_ALLOC,             /* struct wire_hbm (len: size) -> v0 off */
    WIRE_HBM_FREE,              /* struct wire_hbm (off) */
    WIRE_HBM_READ,              /* struct wire_hbm -> reply + len bytes */
    WIRE_HBM_WRITE,             /* struct wire_hbm + len bytes */
    WIRE_STATS,                 /* -> v0 events fired, v1 TLP hops */
    WIRE_LINK_STAT,             /* struct wire_u64 (link index) ->
                                   reply + struct wire_link_stat */
    WIRE_IPC_MEM_EXPORT,        /* struct wire_ipc_mem -> v0 nonce */
    WIRE_IPC_MEM_OPEN,          /* struct wire_ipc_mem (with nonce) */
    WIRE_IPC_MEM_CLOSE,         /* struct wire_ipc_mem (with nonce) */
    WIRE_IPC_EVENT_EXPORT,      /* -> v0 id, v1 nonce */
    WIRE_IPC_EVENT_OPEN,        /* struct wire_ipc_event (id, nonce) */
    WIRE_IPC_EVENT_CLOSE,       /* struct wire_ipc_event (id, nonce) */
    WIRE_IPC_EVENT_RECORD,      /* (id, nonce) -> v0 generation */
    WIRE_IPC_EVENT_DONE,        /* (id, nonce, gen, status) */
    WIRE_IPC_EVENT_QUERY,       /* (id, nonce) -> v0 last generation,
                                   v1 done, v2 status */
    WIRE_IPC_EVENT_WAIT,        /* (id, nonce, gen, cb) -> v1 done, v2
                                   status; not done: a callback later */
    WIRE_MODULE_LOAD,           /* struct wire_module + a chunk of PTX;
                                   the last chunk -> rc of the parse */
    WIRE_KERNEL_LAUNCH,         /* struct wire_kernel + its arrays; the
                                   grid's end: a callback with a text */
    WIRE_CLIENT_LAST,

    /* server -> client */
    WIRE_REPLY = 100,           /* struct wire_reply [+ data] */
    WIRE_CALLBACK,              /* struct wire_callback */
    WIRE_END,                   /* struct wire_end: the batch is over */
};

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
    uint32_t pad;
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
    uint32_t name_len, param_bytes, n_vars, n_ranges;
    uint32_t pad;
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

#endif /* P2PSIM_CUDA_SERVER_WIRE_H */
