/*
 * models/gpu/gpu_int.h - private state of the GPU model, shared by the
 * files of models/gpu/ (gpu.c lists them) and read by
 * tests/models/check_gpu.c. Nothing outside models/gpu/ and its tests
 * includes it.
 *
 * The ways out: everything the GPU sends (the completions it answers, the
 * requests of its copy engines and SMs) leaves through an egress FIFO of
 * its way out (struct gpu_out: out[0] port "pcie", out[1..] the NVLink
 * ports). Within one way out no TLP passes another (PCIe r6.0 §2.4.1
 * allows that); a stalled link holds back only what goes its way.
 */
#ifndef P2PSIM_MODELS_GPU_GPU_INT_H
#define P2PSIM_MODELS_GPU_GPU_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/gpu/gpu.h"
#include "sim/event.h"
#include "sim/time.h"
#include "sim/tlp.h"

struct sim_component;
struct sim_error;
struct sim_port;
struct sim_props;

/* The 10-bit Tag field: 1024 outstanding non-posted requests per
 * requester (PCIe r6.0 §2.2.6.2, 10-Bit Tag Requester). */
#define GPU_TAGS_MAX 1024u

/* A memory request must not cross a 4 KiB boundary (PCIe r6.0 §2.2.7). */
#define GPU_PCIE_BOUNDARY_BYTES 4096u

/* ---- BAR1 (bar1.c) ------------------------------------------------------- */

/* One mapping: aperture pages [off, off + len) show HBM from hbm_addr. */
struct bar1_mapping {
    uint64_t off;               /* aperture offset of its first page, bytes */
    uint64_t len;               /* bytes, a whole number of pages, > 0 */
    uint64_t hbm_addr;          /* HBM address behind off (page-aligned) */
};

/*
 * The aperture: a sorted array of disjoint mappings. The gaps between
 * them are the free list, so allocation is first fit over the gaps (O(n))
 * and translation a binary search (O(log n)). A page table of aperture /
 * page entries would be O(1) but costs 4 Mi entries for a 256 GiB BAR1
 * with 64 KiB pages.
 */
struct bar1 {
    uint64_t size;              /* aperture bytes, power of two */
    uint64_t page;              /* granule, bytes, power of two */
    struct bar1_mapping *map;   /* n_map entries sorted by off */
    size_t n_map, cap_map;
    uint64_t used;              /* bytes mapped (sum of len) */
};

int bar1__init(struct bar1 *b, uint64_t size, uint64_t page);
void bar1__fini(struct bar1 *b);
/*
 * bar1__alloc - map HBM [hbm_addr, hbm_addr + len) rounded out to whole
 * pages into the first gap that fits; *off is the aperture offset of
 * hbm_addr itself. Returns 0 or -SIM_ENOMEM (nothing is mapped).
 */
int bar1__alloc(struct bar1 *b, uint64_t hbm_addr, uint64_t len,
                uint64_t *off);
/* Unmap the mapping containing off; 0 or -SIM_ENOENT. */
int bar1__free(struct bar1 *b, uint64_t off);
/*
 * bar1__translate - the HBM address behind aperture offset off, and how
 * many bytes from there stay inside the same mapping. False if unmapped.
 */
bool bar1__translate(const struct bar1 *b, uint64_t off, uint64_t *hbm_addr,
                     uint64_t *contig_bytes);

/* ---- little-endian operands (AtomicOps, SM atomics) --------------------- */

/* n bytes (1..8) at p as a little-endian number: the GPU's memory order. */
static inline uint64_t gpu__get_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

static inline void gpu__put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* ---- copy engines (copy_engine.c) ---------------------------------------- */

enum ce_phase {
    CE_IDLE,                    /* no operation being set up or issued */
    CE_SETUP,                   /* paying ce-setup for cur */
    CE_WAIT,                    /* cur set up, waiting for an earlier
                                   operation's data (copy_engine.c) */
    CE_ISSUE,                   /* PUSH/PULL: cur issuing its requests */
    CE_LOCAL,                   /* LOCAL: cur's HBM copy is in progress */
};

/*
 * A copy engine. Its FIFO holds every operation submitted and not yet
 * done, in order: those before cur have issued all their requests and
 * wait for their last completions (they drain); cur is being set up or
 * issues; those after it wait.
 */
struct ce {
    struct gpu *g;
    unsigned index;             /* 0 .. n_ce - 1 */
    struct gpu_dma *head;       /* FIFO of operations not yet done */
    struct gpu_dma *tail;
    struct gpu_dma *cur;        /* set up or issuing; NULL: none */
    enum ce_phase phase;        /* of cur */
    struct sim_event ev;        /* end of cur's setup, of a LOCAL copy */
    struct sim_event done_ev;   /* done() of drained operations, in order */
    bool queued;                /* one of its TLPs waits in the egress queue */
    /* statistics */
    uint64_t ops_done;
    uint64_t bytes_done;        /* len_bytes of finished operations */
    sim_time_t busy_ps;         /* time its FIFO was not empty */
    sim_time_t t_start;         /* when the FIFO last became non-empty */
};

/*
 * What an outstanding read (tag) belongs to: a copy operation (op), or a
 * single request sent with gpu_request_send (done). Both NULL: free.
 */
struct ce_tag {
    struct gpu_dma *op;
    gpu_req_done_fn *done;      /* gpu_request_send: called with the cpl */
    void *ctx;
    struct ce *ce;
    uint64_t offset;            /* offset in the op of the read's first byte */
    uint32_t len_bytes;         /* bytes requested; 0 for a flushing read */
    uint32_t received;          /* bytes of completion data arrived */
    bool flush;                 /* the zero-length read ending a PUSH */
    sim_time_t issued_ps;       /* when the request was queued (ce_cto) */
};

int ce__init(struct gpu *g);
void ce__fini(struct gpu *g);
/* Append one TLP from some engine (round-robin) to the egress queue. */
bool ce__produce(struct gpu *g);
/* A tag was taken now: make sure its completion timeout is armed. */
void ce__cto_arm(struct gpu *g);
/* The port accepted a TLP of this kind that belongs to op. */
void ce__sent(struct gpu *g, struct gpu_dma *op, enum tlp_kind kind);
/* A completion arrived for this requester; consumes t. */
void ce__receive_completion(struct gpu *g, struct tlp *t);

/* ---- the GPU (gpu.c) ----------------------------------------------------- */

/* A queued TLP: in an egress queue (op: the copy operation it serves, or
 * NULL; sent: gpu_request_send's callback for a posted request), or in
 * the HBM pipeline (when: the time it may leave). */
struct gpu_slot {
    struct tlp *t;
    struct gpu_dma *op;
    gpu_req_done_fn *sent;
    void *ctx;
    sim_time_t when;            /* ps */
};

/* A growable FIFO ring of slots. */
struct gpu_ring {
    struct gpu_slot *slot;
    size_t head, count, cap;    /* cap is 0 or a power of two */
};

/*
 * One way out of the GPU (nvlink_port.c): out[0] is port "pcie", out[1..]
 * the NVLink ports "nvl0".. that the builder connected, each with its own
 * FIFO, so a stalled link holds back only what goes its way.
 */
struct gpu_out {
    struct sim_port *port;
    struct gpu_ring q;          /* TLPs waiting for the port, FIFO */
    unsigned links;             /* NVLink: bonded links (the weight) */
    uint64_t sent_bytes;        /* bytes queued to it so far */
};

/* NVLink addresses the builder routed: [base, limit] by the ports in mask
 * (bit i: out[i]). */
struct gpu_nvl_route {
    uint64_t base, limit;
    uint32_t mask;
};

/* ---- the L2 cache of copies within HBM (l2.c) ---------------------------- */

/* What the L2 model tracks at a time: 64 KiB of HBM. */
#define GPU_L2_BLOCK (UINT64_C(64) << 10)

struct gpu_l2_block;

struct gpu_l2 {
    struct gpu_l2_block *blk;   /* cap blocks */
    uint32_t *bucket;           /* hash heads (n_bucket, a power of two) */
    uint32_t cap, n_bucket;     /* cap 0: no cache */
    uint32_t head, tail, free;  /* LRU ends (head: most recent), free list */
    uint64_t hit_bytes, miss_bytes, writeback_bytes; /* statistics */
};

/* An empty cache of capacity_bytes (0: none). 0 or -SIM_ENOMEM/EINVAL. */
int gpu_l2_init(struct gpu_l2 *l2, uint64_t capacity_bytes);
void gpu_l2_fini(struct gpu_l2 *l2);
/*
 * gpu_l2_copy - a copy of len bytes from HBM src to HBM dst goes through
 * the cache (which it updates); returns the bytes it reads from and writes
 * back to HBM (2 x len without a cache).
 */
uint64_t gpu_l2_copy(struct gpu_l2 *l2, uint64_t dst, uint64_t src,
                     uint64_t len);

/* At most this many ways out: PCIe and 18 NVLink links (NVLink 4/5). */
#define GPU_MAX_OUT 32u

struct gpu {
    /* configuration (set once by configure) */
    struct sim_component *c;
    uint64_t mem_bytes;         /* HBM size */
    uint64_t bar1_bytes;        /* aperture, power of two */
    uint64_t bar1_page;         /* mapping granule, power of two >= 4 KiB */
    unsigned pcie_gen;          /* 1..6 */
    unsigned pcie_width;        /* lanes */
    unsigned n_ce;              /* 1..64 */
    unsigned tags_per_ce;       /* 1..1024 */
    unsigned mps;               /* bytes, 128..4096, power of two */
    unsigned mrrs;              /* bytes, 128..4096, power of two */
    unsigned rcb;               /* 64 or 128 bytes */
    sim_time_t ce_setup_ps;
    sim_time_t ce_local_setup_ps; /* the setup of a LOCAL operation */
    sim_time_t cpl_timeout_ps;  /* Completion Timeout; 0 = disabled */
    sim_time_t hbm_latency_ps;
    uint64_t hbm_bytes_per_s;   /* > 0 */
    uint64_t l2_bytes_per_s;    /* 0: no L2 model (l2.c) */
    struct gpu_info info;       /* what the product is (catalog) */
    /* architectural state */
    uint16_t id;                /* requester / completer ID */
    uint64_t bar1_base;         /* bus address of the aperture */
    struct bar1 bar1;
    struct mem_sparse *hbm;
    /* modelling state */
    struct sim_port *port;      /* "pcie" (= out[0].port) */
    struct gpu_out out[GPU_MAX_OUT]; /* n_out ways out, see above */
    unsigned n_out;
    uint64_t nvl_base, nvl_size;/* this GPU's NVLink window (0 size: none) */
    struct nvl_power *nvl_power;/* the machine's NVLink power domain, or
                                   NULL (models/nvlink/power.h) */
    struct gpu_nvl_route *nvl_route; /* n_nvl_route, from the builder */
    unsigned n_nvl_route, cap_nvl_route;
    unsigned *nvl_by_base;      /* nvl_route indices by base, or NULL
                                   when two ranges overlap (then: scan) */
    struct gpu_ring hbm_pipe;   /* completions waiting for HBM, by when */
    struct sim_event hbm_ev;    /* fires when hbm_pipe's head is due */
    sim_time_t hbm_busy_until;  /* the HBM serialiser is busy until, ps */
    sim_time_t l2_busy_until;   /* the L2's, likewise */
    struct gpu_l2 l2;           /* what LOCAL copies find in the L2 */
    bool pumping;               /* inside gpu__egress_pump (no reentry) */
    struct ce *ce;              /* n_ce engines */
    unsigned ce_rr;             /* round-robin start among engines */
    struct ce_tag tag[GPU_TAGS_MAX];
    uint16_t free_tag[GPU_TAGS_MAX]; /* stack of free tags */
    unsigned n_free_tag;
    struct sim_event cto_ev;    /* the oldest request's completion timeout */
    /* statistics */
    struct gpu_counters cnt;
    uint64_t unclaimed;         /* requests outside BAR1 */
    uint64_t unsupported;       /* TLP kinds the model does not complete */
    uint64_t unexpected_cpl;    /* completions matching no outstanding tag */
    uint64_t poisoned_in;       /* poisoned writes dropped */
    uint64_t atomics;           /* AtomicOps executed */
    uint64_t egress_stalls;     /* refusals by the link */
    uint64_t egress_max;        /* deepest egress queue seen */
    sim_time_t hbm_busy_ps;     /* time the HBM serialiser was busy */
    /* the SMs' memory side (sm.c), created on first use; NULL: none */
    struct sm_state *sm;
};

/* ---- SMs (sm.c) ------------------------------------------------------------ */

/* Free the SMs' state (gpu_destroy). */
void sm__fini(struct gpu *g);
/* Read the SM properties (sm-outstanding, sm-wc-lines, sm-wc-timeout,
 * launch-latency; sm.h), after the catalog's sms and sm-clock. */
int sm__configure(struct gpu *g, const struct sim_props *p,
                  struct sim_error *err);
/* A completion whose tag is GPU_TAGS_MAX or more (an SM request sent over
 * NVLink); consumes t. */
void sm__receive_completion(struct gpu *g, struct tlp *t);

struct gpu *gpu__from(const struct sim_component *c);
/*
 * Append t (owned by the queue from now on) to the egress queue of the
 * way out it takes: a request the one gpu__out_for names, a completion
 * the way its request came in (t->route_hint, set by the receive path).
 */
void gpu__egress_push(struct gpu *g, struct tlp *t, struct gpu_dma *op);
/* The same, for gpu_request_send: sent(ctx, NULL) once a posted t left. */
void gpu__egress_push_req(struct gpu *g, struct tlp *t,
                          gpu_req_done_fn *sent, void *ctx);
/* Send what the port takes: queued TLPs first, then engines' TLPs. */
void gpu__egress_pump(struct gpu *g);
/*
 * gpu__hbm_reserve - claim the HBM serialiser for len_bytes from now;
 * returns when the transfer ends (the access latency is not included).
 */
sim_time_t gpu__hbm_reserve(struct gpu *g, uint64_t len_bytes);
/*
 * gpu__local_copy_reserve - the timing of a LOCAL copy of len bytes from
 * HBM src to dst starting now: its reads and writes stream through the L2
 * serialiser (l2-bandwidth) while the bytes the L2 misses or writes back
 * (gpu_l2_copy) take the HBM serialiser; returns when both are through
 * (the access latency is not included). Without an L2 model: 2 x len on
 * the HBM serialiser.
 */
sim_time_t gpu__local_copy_reserve(struct gpu *g, uint64_t dst, uint64_t src,
                                   uint64_t len);
/* Hold completion cpl until when (ps), then queue it on the egress (the
 * HBM pipe: when never decreases). */
void gpu__hbm_pipe_push(struct gpu *g, struct tlp *cpl, sim_time_t when);

/* ---- the completer (completer.c) ----------------------------------------- */

/* A TLP arrived on port in (the component's receive callback). */
void gpu__receive(struct sim_component *c, struct sim_port *in,
                  struct tlp *t);

/* ---- ways out: PCIe or NVLink (nvlink_port.c) ---------------------------- */

int gpu__out_init(struct gpu *g);
void gpu__out_fini(struct gpu *g);
/*
 * gpu__out_for - THE decision of the port a request to bus address addr
 * leaves by (an index in g->out): an NVLink port when addr lies in an
 * NVLink window the builder routed (machine/fabric.c), spread over the
 * ports that reach it by their links, preferring one that can send now;
 * else out[0], "pcie". A pure function of the GPU's state: asking twice
 * gives the same answer until a TLP is queued.
 */
unsigned gpu__out_for(const struct gpu *g, uint64_t addr);
/* out i can take a TLP now (its FIFO is empty and its link not full). */
bool gpu__out_is_free(const struct gpu *g, unsigned i);
/* Whether addr is in this GPU's own NVLink window; *hbm its HBM address. */
bool gpu__nvl_is_local(const struct gpu *g, uint64_t addr, uint64_t len,
                       uint64_t *hbm);

/* A SIM_TP_MODEL trace record (a, b and msg as the caller documents). */
void gpu__trace(struct gpu *g, const struct tlp *t, uint64_t a, uint64_t b,
                const char *msg);

#endif /* P2PSIM_MODELS_GPU_GPU_INT_H */
