/*
 * cuda/cudart/rt.h - the CUDA shim's runtime state, shared by the files of
 * cuda/cudart/ (not installed, not seen by programs).
 *
 * File map (each *_int.h: what the files of one group share):
 *   dispatch*.c    what programs call: dispatch.c (generated), dispatch_rt.c
 *   rt*.c          start-up, lock, clocks (rt_host.c: the preload's), rt_wait
 *   api_costs.c    a machine file's api-costs: (api_costs.h)
 *   machine.c      the machine underneath, in this process (rt_machine_ops)
 *   remote*.c      the machine through a p2psim server (remote.h)
 *   device*.c      devices: calls (device.c), properties (device_props.c)
 *   peer.c         peer access
 *   ipc.c          CUDA IPC memory and event handles
 *   stream*.c      streams and host functions (stream.c), the operation
 *                  queue (stream_op.c), attributes (stream_attr.c)
 *   event.c        events, cudaStreamWaitEvent
 *   copy.c         cudaMemcpy* (operations on streams through p2psim_copy)
 *   memcpy2d.c     pitched memory, 2D and 3D copies and sets
 *   memory*.c      device memory, the allocation table, pinned memory, pools
 *   memset.c       cudaMemset*
 *   managed.c      managed memory (residency, migration on first touch)
 *   launch*.c      launches (launch_ex.c: cudaLaunchKernelExC) and kernels
 *   registry.c     what nvcc's constructors register, the <<<>>> protocol
 *   symbol.c       cudaMemcpyToSymbol and friends
 *   drv_bridge.c   what the driver API (cuda/driver/) asks of the runtime
 *   kernel_attr.c  a kernel's limits and attributes, occupancy
 *   graph*.c       graphs, nodes, executable graphs, capture (graph_int.h)
 *   config.c       cache and bank preferences (recorded only)
 *   channel.c      channel descriptors of arrays and textures
 *   relfatbin.c    the PTX of -rdc=true programs (__nv_relfatbin)
 *   array.c        CUDA arrays, the copies to and from them (texture_int.h)
 *   texture.c      texture and surface objects
 *   error*.c       error names, last and sticky error, last-error calls
 *   libcudart.map  version script; local.mk, *.pc.in, .may_include: build
 */
#ifndef P2PSIM_CUDA_CUDART_RT_H
#define P2PSIM_CUDA_CUDART_RT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cuda/include/cuda_runtime_api.h"
#include "common/osthread.h"
#include "machine/p2psim.h"
#include "cuda/cudart/error.h"
#include "machine/kernel/kernel.h"
#include "sim/time.h"

struct rt_stream;
struct rt_op;

/* ---- host threads ------------------------------------------------------------ */

enum rt_thread_state {
    RT_RUNNING,                 /* in the program, between calls */
    RT_WAITING,                 /* in rt_wait */
    RT_OUTSIDE,                 /* blocked outside CUDA (pthread_join):
                                   told (rt_host.c), or seen (rt.c) */
    RT_EXITED,
};

struct rt_thread {
    sim_time_t clock;           /* this thread's simulated time, ps */
    int device;                 /* current device */
    enum rt_thread_state state;
    bool in_callback;           /* running a host function: no CUDA calls */
    unsigned id;                /* 0 for the first thread seen */
    struct rt_stream **per_thread;  /* cudaStreamPerThread, per device */
    /* rt_wait's condition while WAITING */
    bool (*until)(void *arg);
    void *until_arg;
    sim_time_t deadline;        /* SIM_TIME_MAX: none */
    /* the OS thread, for rt.c's "blocked outside CUDA, or working?" */
    pid_t ostid;
    pthread_t pth;
    bool cpu_marked;            /* cpu_mark taken since the last call */
    uint64_t cpu_mark;          /* its CPU time then, ns */
    struct osthread_look look;  /* asleep at grace checks since then */
    bool told;                  /* OUTSIDE: said so itself (rt_host.c) */
    sim_time_t told_until;      /* told: its timed wait's deadline */
    bool back;                  /* told, and back (set unlocked) */
    struct rt_thread *next;     /* all threads */
};

/* ---- devices ----------------------------------------------------------------- */

struct rt_device {
    unsigned index;
    uintptr_t va_base;          /* UVA window of this GPU's HBM */
    uint64_t va_size;
    uint64_t mem_size;
    uint64_t mem_used;          /* bytes allocated */
    struct rt_stream *legacy;   /* the legacy default stream */
    bool *peer_enabled;         /* [peer]: this device may access peer */
    unsigned flags;             /* cudaSetDeviceFlags */
    bool initialized;           /* primary context created */
    cudaMemPool_t default_pool, current_pool;
    size_t limits[16];          /* cudaDeviceSetLimit, by cudaLimit */
    enum cudaFuncCache cache_config;        /* config.c: recorded only */
    enum cudaSharedMemConfig smem_config;
    /* the device heap of kernels' malloc (memory.c rt_device_heap) */
    struct rt_alloc *heap;
    uint64_t heap_bytes;
    unsigned managed_kernels;   /* its kernels running (managed.c) */
};

/* ---- allocations (memory.c) ------------------------------------------------ */

enum rt_mem_kind {
    RT_MEM_DEVICE,              /* cudaMalloc, pools: GPU HBM */
    RT_MEM_HOST,                /* cudaMallocHost/HostAlloc/HostRegister */
    RT_MEM_MANAGED,             /* cudaMallocManaged */
};

struct rt_alloc {
    enum rt_mem_kind kind;
    uintptr_t base;             /* program address */
    uint64_t size;
    int device;                 /* owner (DEVICE), device current at
                                   allocation (HOST, MANAGED) */
    unsigned flags;             /* cudaHostAlloc / cudaHostRegister /
                                   cudaMemAttach* flags */
    uint64_t bus;               /* HOST, MANAGED: host bus address */
    unsigned socket;            /* HOST, MANAGED: DRAM it is pinned in */
    bool registered;            /* HOST: cudaHostRegister (not owned) */
    cudaMemPool_t pool;         /* DEVICE from a pool, else NULL */
    uint64_t vmm_access;        /* RT_ALLOC_VMM: devices granted access
                                   (bit d: device d), cuMemSetAccess */
    void *priv;                 /* managed.c: residency; memory.c: etc. */
};

/* rt_alloc.flags bit: device memory of another process, opened with
 * cudaIpcOpenMemHandle (ipc.c); cudaIpcCloseMemHandle releases it,
 * cudaFree refuses it. */
#define RT_ALLOC_IPC (1u << 30)
/* rt_alloc.flags bit: a mapping of the driver's virtual memory management
 * API (drv_bridge.c): device memory of a->device at HBM offset a->bus,
 * at an address outside the device's window; cuMemUnmap removes it. */
#define RT_ALLOC_VMM (1u << 29)
/* rt_alloc.flags bit: the runtime's own device memory (a device heap,
 * rt_device_heap; a graph conditional handle, graph_cond.c): cudaFree
 * refuses it; the device's reset releases it. */
#define RT_ALLOC_HEAP (1u << 28)

/*
 * Where an address is. RT_WHERE_PAGEABLE: not the shim's (ordinary host
 * memory). For DEVICE, off is the HBM offset; for HOST and MANAGED the
 * host bus address of the byte. alloc is NULL for PAGEABLE.
 */
enum rt_where { RT_WHERE_PAGEABLE, RT_WHERE_DEVICE, RT_WHERE_HOST,
                RT_WHERE_MANAGED };

struct rt_ptr {
    enum rt_where where;
    struct rt_alloc *alloc;
    int device;                 /* DEVICE: owner */
    uint64_t off;               /* from alloc->base */
    uint64_t avail;             /* bytes from ptr to the allocation's end */
};

/* Look up ptr (any byte inside an allocation). */
void rt_ptr_find(const void *ptr, struct rt_ptr *out);
/* The device whose UVA window holds ptr (allocated or not), or -1. */
int rt_ptr_window(const void *ptr);
/* The p2psim location of byte off of a, for p2psim_copy. */
struct p2psim_loc rt_alloc_loc(const struct rt_alloc *a, uint64_t off);
/*
 * Whether device accessor may reach a (DEVICE) directly without peer
 * access enabled: a pool allocation whose pool granted it access
 * (cudaMemPoolSetAccess). memory_pool.c.
 */
bool rt_alloc_peer_ok(const struct rt_alloc *a, int accessor);

/* ---- streams, operations, events (stream*.c, event.c) --------------------- */

/*
 * A completion that others wait on: an operation's end. Refcounted,
 * because events and later operations keep it after the operation is
 * gone. done is set from inside the simulation (at time t).
 */
struct rt_fence {
    unsigned refs;
    bool done;
    int status;                 /* cudaError_t of the operation */
    sim_time_t t;               /* when it completed */
    /* called once when it completes (ipc.c tells the server) */
    void (*on_done)(struct rt_fence *f, void *arg);
    void *on_done_arg;
};

/* Complete a fence that no op owns (ipc.c: an event recorded by another
 * process), at the current simulated time; starts what waited for it. */
void rt_fence_complete(struct rt_fence *f, int status);

struct rt_fence *rt_fence_ref(struct rt_fence *f);
void rt_fence_put(struct rt_fence *f);

/*
 * An operation on a stream. The queue starts it (start()) at
 * max(enqueue time, stream predecessor's end, deps' ends); it finishes
 * with rt_op_done() from inside the simulation, or right away.
 */
struct rt_op {
    void (*start)(struct rt_op *op, sim_time_t at);
    void (*release)(struct rt_op *op);  /* free op-owned data, may be NULL */
    sim_time_t t_enq;           /* the enqueuing thread's clock */
    struct rt_fence *fence;     /* completes when the op does */
    struct rt_fence **deps;
    unsigned n_deps;
    struct rt_stream *stream;
    struct rt_op *next;
    const char *what;           /* "memcpy", "event", ... (reports) */
    /* queued copies (stream_op.c, "Queued copies") */
    bool started;               /* start() has been called */
    bool chainable;             /* a machine copy that may queue behind
                                   the stream's copy before it */
    uint64_t after;             /* for start(): the machine copy to queue
                                   behind (rt_machine_ops.copy), or 0 */
    uint64_t copy_id;           /* the machine's id of this copy once
                                   started, or 0 */
};

/*
 * rt_op_alloc - zeroed op of size bytes (a struct embedding struct rt_op
 * first), with a fresh fence. NULL when out of memory.
 */
struct rt_op *rt_op_alloc(size_t size, const char *what,
                          void (*start)(struct rt_op *, sim_time_t));
/* Add a dependency (takes a reference). 0 or cudaErrorMemoryAllocation. */
cudaError_t rt_op_depend(struct rt_op *op, struct rt_fence *f);
/*
 * rt_enqueue - put op at the tail of s (resolved: never a special handle)
 * with t_enq = the calling thread's clock; applies the legacy stream's
 * implicit synchronization. Starts it if it can. Takes ownership of op.
 */
cudaError_t rt_enqueue(struct rt_stream *s, struct rt_op *op);
/* Free an op that was never enqueued (its release() runs). */
void rt_op_discard(struct rt_op *op);
/* The op has completed at the current simulated time with status. */
void rt_op_done(struct rt_op *op, int status);

/*
 * rt_stream_resolve - the stream a handle names for the calling thread on
 * device dev (dev = -1: the current device): 0 and cudaStreamLegacy give
 * the legacy stream, cudaStreamPerThread the thread's own. NULL for a
 * handle that is not a live stream (cudaErrorInvalidResourceHandle).
 */
struct rt_stream *rt_stream_resolve(cudaStream_t h, int dev);
int rt_stream_device(const struct rt_stream *s);
/* The stream's last fence (NULL when idle forever), referenced. */
struct rt_fence *rt_stream_tail(struct rt_stream *s);
/* Wait until s has nothing pending. */
cudaError_t rt_stream_sync(struct rt_stream *s);
/* Wait until every stream of device dev (all devices if -1) is idle. */
cudaError_t rt_device_sync(int dev);
/*
 * rt_stream_reset_device - cudaDeviceReset: destroy the device's streams
 * (work already queued still completes) and events; the legacy stream
 * stays. Called after the device was synchronized.
 */
void rt_stream_reset_device(int dev);
/* The properties of device dev (device_props.c). */
void rt_device_props(int dev, struct cudaDeviceProp *prop);
/* cudaDeviceGetP2PAttribute's answer (peer.c), the lock held; also NVML's
 * (drv_bridge.h). */
cudaError_t rt_p2p_attribute(int *value, enum cudaDeviceP2PAttr attr,
                             int src, int dst);
/* Device dev's compute capability as major * 10 + minor (the
 * architecture its PTX is picked for); 0 before init or if none. */
unsigned rt_device_arch(int dev);
/* cudaDeviceGetAttribute's value, under the lock (device_props.c). */
cudaError_t rt_device_attribute(int *value, enum cudaDeviceAttr attr,
                                int dev);
/* Create the device's legacy stream (device.c calls it at init). */
struct rt_stream *rt_stream_new_legacy(int dev);

/*
 * An event (cudaEvent_t points at it). f is what the last record captured
 * (NULL: never recorded). ipc: set for an interprocess event that is
 * shared with other processes (ipc.c); then rt_event_fence asks ipc.c.
 */
struct CUevent_st {
    int dev;
    unsigned flags;
    struct rt_fence *f;
    struct rt_ipc_event *ipc;
    struct CUevent_st *next;
};

/* A live event, or NULL. */
struct CUevent_st *rt_event_find(cudaEvent_t e);
/* Create an event on device dev with flags (ipc.c opens handles so). */
cudaError_t rt_event_new(int dev, unsigned flags, struct CUevent_st **out);

/* ---- interprocess events (ipc.c) ------------------------------------------------ */

/* The fence of ev's last record, wherever it was recorded (referenced;
 * NULL: never recorded). */
struct rt_fence *rt_ipc_event_fence(struct CUevent_st *ev);
/* ev (interprocess) was just recorded in this process: f is its fence. */
void rt_ipc_event_recorded(struct CUevent_st *ev, struct rt_fence *f);
/* ev is being destroyed. */
void rt_ipc_event_destroy(struct CUevent_st *ev);
/* memory.c releases a (RT_ALLOC_IPC) on its own (cudaDeviceReset): ipc.c
 * forgets it and closes it with the server; memory.c frees a. */
void rt_ipc_mem_released(struct rt_alloc *a);
/* Pointers of shared pools (memory_pool.c): the export data of a pool's
 * allocation, with the pool's share token; an import, which must match
 * the token (else cudaErrorInvalidValue); and the release of an imported
 * pointer (false: ptr is none). */
cudaError_t rt_ipc_pool_export(struct cudaMemPoolPtrExportData *data,
                               void *ptr, uint64_t token);
cudaError_t rt_ipc_pool_import(void **ptr,
                               const struct cudaMemPoolPtrExportData *data,
                               uint64_t token);
bool rt_ipc_pool_release(void *ptr);
/* A new share token; a pool's shareable handle (a memfd naming the
 * session, device and token), and what one names (cudaErrorInvalidValue
 * for another machine's or no such handle). */
uint64_t rt_ipc_pool_token(void);
cudaError_t rt_ipc_pool_share(int *fd, int device, uint64_t token);
cudaError_t rt_ipc_pool_open(int fd, int *device, uint64_t *token);

/* ---- time --------------------------------------------------------------------- */

/*
 * rt_wait - block the calling thread until until(arg) holds or simulated
 * time reaches deadline (SIM_TIME_MAX: none). Time goes on freely only
 * while every host thread is waiting (or blocked outside, or gone; else
 * only up to the running threads' clocks, rt_leave); the last one to wait
 * runs the simulation. On return the thread's clock is at least
 * the time its condition became true. Called with the lock held.
 * Returns 0, or cudaErrorUnknown if the simulation ran dry with the
 * condition still false (a deadlock in the program: a wait for work
 * nobody will do).
 */
cudaError_t rt_wait(bool (*until)(void *arg), void *arg, sim_time_t deadline);
/* rt_wait's condition for a struct rt_fence *arg: it has been reached
 * (stream_op.c). */
bool rt_fence_done(void *arg);

/* The calling thread's state (created on first use). */
struct rt_thread *rt_self(void);
/* The calling thread's, if it has one (no lock needed): NULL before its
 * first call. */
struct rt_thread *rt_self_peek(void);
/* Charge the calling thread d of host time (a call's own cost). */
void rt_charge(sim_time_t d);

/* Take the lock as a program thread does: while it waits for the lock it
 * counts as on its way in, so no grace check takes it (asleep on the
 * mutex) for a thread blocked outside CUDA. pthread_mutex_lock's result. */
int rt_lock(void);

/* The calling thread is the runtime's own (remote.c's service thread): it
 * is never waited for as a thread about to make its first call. */
void rt_thread_internal(void);

/*
 * The program's threads outside calls (rt_host.c, for the preloaded
 * cuda/host/ library). rt_host_lock: if the calling thread is the
 * program's and not inside the runtime (its own code, which may hold the
 * lock), take the lock: true. With the lock held, rt_come_in takes the caller in as a call does (back from
 * outside, its clock caught up with the simulation). A clock read before
 * start-up charges the thread's pre-start clock (rt_host_pre_clock),
 * where its clock begins (rt_host_pre_now).
 */
bool rt_host_lock(void);
void rt_come_in(void);
void rt_host_pre_clock(sim_time_t d);
sim_time_t rt_host_pre_now(void);

/* Start the thread that runs the simulation while every program thread
 * is blocked outside CUDA and none waits in rt_wait (rt.c, rt_init). */
void rt_driver_start(void);

/*
 * Host-side costs of calls, in ps, indexed by enum rt_cost. rt.c holds the
 * defaults (shared/calibration/h200-x1-api-costs.md); rt_init replaces
 * each one the machine file sets in its api-costs: (enum api_cost,
 * read by api_costs.c).
 */
enum rt_cost {
    RT_COST_CALL,               /* any cheap call (get/set, queries) */
    RT_COST_LAUNCH,             /* kernel launch */
    RT_COST_MEMCPY_ASYNC_H2D,   /* cudaMemcpyAsync host <-> device */
    RT_COST_MEMCPY_ASYNC_D2D,   /* cudaMemcpyAsync within one GPU */
    RT_COST_MEMCPY_ASYNC_PEER,  /* cudaMemcpyAsync from GPU to GPU */
    RT_COST_MEMCPY_SYNC,        /* cudaMemcpy's own overhead */
    RT_COST_EVENT_RECORD,
    RT_COST_MALLOC,             /* cudaMalloc + cudaFree pair, split */
    RT_COST_SYNC,               /* return from a synchronization */
    RT_COST_HOSTFN,             /* a host function's dispatch */
    RT_COST_CLOCK_READ,         /* the program reads its clock (rt_host.c) */
    RT_COST_N
};
extern sim_time_t rt_costs[RT_COST_N];

/* ---- the machine underneath ------------------------------------------------------ */

/*
 * What the runtime asks of the simulated machine, behind one table (the
 * idea of SQLite's VFS): machine.c serves it from libp2psim in this
 * process; remote.c from a p2psim server that several processes of one
 * program share (`p2psim run` starts it for multi-process programs, IPC).
 * Read-only questions (GPU count, P2P verdicts, catalog values) go to
 * rt.p, a local copy of the machine, in both cases.
 *
 * Callbacks (copy done, timers) run in the thread that is inside
 * advance(), with the lock held, at the simulated time they stand for.
 */
typedef void rt_timer_fn(void *arg);

/*
 * A grid for the machine (launch.c fills it). In this process l is all
 * there is (l.pk, l.resolve). Through a server the PTX kernel is named by
 * module, the number module_load gave its module's text, and name; its
 * addresses resolve through the ranges of rt_kernel_ranges, taken when
 * the grid starts. C kernels (l.ck) run only in this process.
 */
struct rt_kernel_launch {
    struct p2psim_launch l;
    uint64_t module;            /* 0: none (a C kernel) */
    const char *name;           /* the kernel's name in its PTX */
};

/* Memory a kernel may touch: [va, va + len) is at loc. */
struct rt_kernel_range {
    uint64_t va, len;
    struct p2psim_loc loc;
};

/*
 * rt_kernel_ranges - (launch.c) every allocation a kernel on GPU gpu may
 * reach (what its resolver accepts), sorted by va: a malloc'd array in
 * *out (NULL when none) of *n. 0, or -SIM_ENOMEM.
 */
int rt_kernel_ranges(unsigned gpu, struct rt_kernel_range **out,
                     unsigned *n);

struct rt_machine_ops {
    const char *name;           /* "local", "server" */
    sim_time_t (*now)(void);
    /* as p2psim_copy_after (after: 0 or an id *id gave; id may be NULL) */
    int (*copy)(const struct p2psim_loc *dst, const struct p2psim_loc *src,
                uint64_t len, unsigned flags, sim_time_t start_at,
                uint64_t after, p2psim_done_fn *done, void *arg,
                uint64_t *id);
    /* as p2psim_fill */
    int (*fill)(unsigned gpu, uint64_t off, uint8_t value, uint64_t len,
                sim_time_t start_at, p2psim_done_fn *done, void *arg);
    /* as p2psim_host_register / _unregister */
    int (*host_register)(void *ptr, uint64_t len, unsigned socket,
                         uint64_t *bus);
    int (*host_unregister)(uint64_t bus);
    /* fn(arg) at simulated time at */
    int (*timer)(sim_time_t at, rt_timer_fn *fn, void *arg);
    /*
     * Run the machine while keep_going(arg) holds, up to limit. Returns
     * false when nothing can happen any more (no event, no deadline).
     */
    bool (*advance)(bool (*keep_going)(void *arg), void *arg,
                    sim_time_t limit);
    /* HBM space of a GPU (shared by every process of the program) */
    int (*hbm_alloc)(unsigned gpu, uint64_t size, uint64_t align,
                     uint64_t *off);
    int (*hbm_free)(unsigned gpu, uint64_t off);
    /* bytes of a GPU's HBM, for host-side reads and writes of the shim */
    int (*hbm_read)(unsigned gpu, uint64_t off, void *buf, uint64_t len);
    int (*hbm_write)(unsigned gpu, uint64_t off, const void *buf,
                     uint64_t len);
    /*
     * Host memory the machine can reach once registered (pinned
     * allocations, bounce buffers): page-aligned, zeroed; NULL when out
     * of memory. Through a server it is shared memory.
     */
    void *(*host_alloc)(uint64_t len);
    void (*host_free)(void *ptr, uint64_t len);
    /*
     * Kernels. module_load (NULL where the machine parses nothing itself:
     * in this process) hands over a module's PTX text once, under a number
     * of the caller's; 0, or a negative SIM_E* code (-SIM_EINVAL: the
     * machine could not parse it). kernel starts a grid as
     * p2psim_kernel_launch does (its done callback included); 0, or a
     * negative SIM_E* code (-SIM_ENOTSUP: a C kernel through a server).
     */
    int (*module_load)(uint64_t module, const char *ptx, size_t len);
    int (*kernel)(const struct rt_kernel_launch *kl);
};

extern const struct rt_machine_ops *rt_machine;
/* The simulation has failed (out of memory: sim/error.h); advance()
 * returns false from then on and waits end in cudaErrorMemoryAllocation. */
extern bool rt_machine_failed;
extern const struct rt_machine_ops rt_machine_local;
extern const struct rt_machine_ops rt_machine_remote;

/*
 * rt_remote_connect - (remote.c) join the p2psim server listening on the
 * UNIX socket path (P2PSIM_SERVER) and make rt_machine the remote one.
 * Called by rt_init, before any other use of the machine.
 */
cudaError_t rt_remote_connect(const char *path);

/* ---- the runtime --------------------------------------------------------------- */

/*
 * One runtime per process: the machine (libp2psim), the devices, the
 * allocation table, streams and events, and the host threads' simulated
 * clocks. Every served call takes the runtime lock (rt_enter) and leaves
 * it (rt_leave); the simulation itself only runs inside rt_wait, and in
 * rt_leave's catch-up up to the running threads' clocks, under
 * the lock, when every host thread of the program is waiting.
 */
struct rt {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool ready;                 /* rt_init succeeded */
    cudaError_t init_error;     /* what every call returns if it failed */
    struct p2psim *p;
    unsigned n_dev;
    struct rt_device *dev;
    struct rt_thread *threads;
    unsigned n_threads;
    bool running_sim;           /* a thread is inside the simulation */
    bool hostfn_ran;            /* a host function ran: the run stops */
    unsigned kernels_live;      /* kernel ops enqueued and not released */
    bool catching_up;           /* rt_leave's advance (remote.c: try once) */
    /* allocations (memory.c): sorted by base */
    struct rt_alloc **allocs;
    unsigned n_allocs, cap_allocs;
    /* streams (stream.c) */
    struct rt_stream *streams;
    /* what the report counts */
    uint64_t n_copies_p2p, n_copies_staged, bytes_p2p, bytes_staged;
    /* managed memory (managed.c): fault batches serviced, migration
     * copies and their bytes (faults and prefetches) */
    uint64_t n_managed_faults, n_managed_migrations, bytes_managed_migrated;
};

extern struct rt rt;

/*
 * rt_enter - start serving a call: initialize the runtime on first use
 * (loading the machine), take the lock, note the thread. Returns 0, or the
 * error the call must return (initialization failed, sticky error, called
 * from a host function). rt_leave drops the lock.
 */
cudaError_t rt_enter(void);
/* Drops the lock; first, while a kernel is live, the simulation is brought
 * up to the running threads' clocks (rt.c, "catch-up"). */
void rt_leave(void);
/* rt_enter without the sticky check (error queries, teardown calls). */
cudaError_t rt_enter_nosticky(void);

/*
 * RT_SERVE(cost, body) - the prologue and epilogue of a served call, the
 * one definition: rt_enter (its error returned), the calling thread
 * charged rt_costs[cost] (RT_NO_COST: nothing, for calls whose body
 * charges its own, as copies and stream operations do), body (an
 * expression giving a cudaError_t) evaluated with the lock held, rt_leave,
 * and the result returned through cudart_error_return (the last and the
 * sticky error, error.h). SERVE(body) is the cheap call's,
 * RT_SERVE(RT_COST_CALL, body). The API trace is dispatch.c's, around it.
 *
 * A macro here rather than emitted by tools/gen-dispatch.sh: the prologue
 * is the simulated runtime's (its lock and clocks), which dispatch.c's
 * exported functions call into, or pass by with P2PSIM_BACKEND=cuda;
 * generating it would mean generating the simulated functions too, whose
 * bodies are written by hand per call.
 */
#define RT_NO_COST (-1)
static inline void rt_charge_cost(int cost)
{
    if (cost != RT_NO_COST) {
        rt_charge(rt_costs[cost]);
    }
}
#define RT_SERVE(cost, body)                                                  \
    do {                                                                      \
        cudaError_t e_ = rt_enter();                                          \
        if (e_) {                                                             \
            return cudart_error_return(e_);                                   \
        }                                                                     \
        rt_charge_cost(cost);                                                 \
        e_ = (body);                                                          \
        rt_leave();                                                           \
        return cudart_error_return(e_);                                       \
    } while (0)
#define SERVE(body) RT_SERVE(RT_COST_CALL, body)

/* The calling thread's current device, or a valid ordinal check. */
int rt_current_device(void);
bool rt_device_valid(int dev);
/* First use of a device (its context): streams, pools. */
cudaError_t rt_device_init(int dev);

/* memory.c: called once by rt_init after the devices exist. */
cudaError_t rt_memory_init(void);
void rt_memory_fini(void);

#endif /* P2PSIM_CUDA_CUDART_RT_H */
