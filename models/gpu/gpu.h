/*
 * models/gpu/gpu.h - a GPU endpoint (kind "gpu") on port "pcie" and its
 * NVLink ports: HBM that peers reach through BAR1 mappings over PCIe and
 * through its NVLink window over NVLink, copy engines that push posted
 * writes (MPS-sized) or pull with reads (MRRS-sized, limited by tags),
 * and the SMs' memory side (sm.h, with its own properties).
 *
 * Properties:
 *   memory          size    HBM size (required)
 *   bar1            size    BAR1 aperture (required; power of two)
 *   pcie-gen        1..6    (default 5)    pcie-width  x1..x16 (default x16)
 *   copy-engines    1..64   (default 2)
 *   tags            1..1024 outstanding reads per copy engine (default 256)
 *   mps             size    max payload the GPU supports (default 256B)
 *   mrrs            size    max read request (default 512B)
 *   rcb             64 | 128 read completion boundary (default 64)
 *   ce-setup        time    per-operation start cost (default 1us)
 *   ce-local-setup  time    start cost of a copy within HBM (default:
 *                           ce-setup)
 *   cpl-timeout     time    Completion Timeout (default 50ms; 0: none)
 *   hbm-latency     time    access latency as a completer (default 300ns)
 *   hbm-bandwidth   rate    what the memory streams, reads plus writes
 *                           (default: gpu_info_memory_rate)
 *   l2-bandwidth    rate    reads + writes a copy within HBM streams through
 *                           the L2 (l2.c; default 0: no L2 model, every
 *                           byte to HBM); the L2's size is l2-cache
 *   bar1-page       size    granule of BAR1 mappings (default 64KiB)
 *
 * BAR1: over PCIe the GPU's memory is reachable by peers only through BAR1
 * mappings (gpu_bar1_map), each consuming aperture; when it is exhausted
 * the map fails cleanly (-SIM_ENOMEM) and callers fall back to staging.
 */
#ifndef P2PSIM_MODELS_GPU_GPU_H
#define P2PSIM_MODELS_GPU_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"

struct sim_component;
struct sim_error;
struct sim_port;
struct sim_props;
struct mem_sparse;
struct nvl_power;
struct tlp;

extern const struct sim_component_ops gpu_ops;

/* ---- what the product is (catalog values, for the API and explain) ------------
 * Properties: name, class (datacenter | workstation | geforce),
 * architecture, compute-capability ("9.0"), sms, sm-clock, memory-clock,
 * memory-bus-width, l2-cache, nvlink-links, nvlink-generation,
 * nvlink-link-rate, atomics-pcie, atomics-nvlink, p2p (allowed | blocked),
 * p2p-unlocked. All optional.
 */
enum gpu_class { GPU_CLASS_DATACENTER, GPU_CLASS_WORKSTATION, GPU_CLASS_GEFORCE };

struct gpu_info {
    char name[64];              /* catalog name, e.g. "H200-SXM" */
    enum gpu_class class_;
    char architecture[32];
    unsigned cc_major, cc_minor;/* compute capability */
    unsigned sms;
    uint64_t sm_clock_hz;
    uint64_t mem_clock_hz;
    unsigned mem_bus_width;     /* bits */
    uint64_t l2_bytes;
    unsigned nvlink_links;      /* 0: none */
    unsigned nvlink_gen;
    uint64_t nvlink_link_rate;  /* bytes/s per direction per link; 0 = by gen */
    bool atomics_pcie, atomics_nvlink;
    bool compression;           /* generic (compute data) compression */
    bool p2p_blocked;           /* the product blocks P2P (GeForce) */
    bool p2p_unlocked;          /* ...and the machine lifted the block */
};

int gpu_info_configure(struct gpu_info *info, const char *name,
                       const struct sim_props *p, struct sim_error *err);
const struct gpu_info *gpu_get_info(const struct sim_component *g);
/* What the memory streams (read plus written bytes per second): its peak,
 * two transfers per memory-clock cycle (CUDA's memoryClockRate) over
 * memory-bus-width bits, at the fraction of peak a device-to-device copy
 * reaches on the project's H200. */
uint64_t gpu_info_memory_rate(const struct gpu_info *info);

/* ---- set up by the builder ---------------------------------------------------- */
void gpu_set_pcie_id(struct sim_component *g, uint16_t id);
uint16_t gpu_pcie_id(const struct sim_component *g);
void gpu_set_bar1_base(struct sim_component *g, uint64_t bus_addr);
uint64_t gpu_bar1_base(const struct sim_component *g);
uint64_t gpu_bar1_size(const struct sim_component *g);
uint64_t gpu_mem_size(const struct sim_component *g);
unsigned gpu_pcie_max_gen(const struct sim_component *g);
unsigned gpu_pcie_max_width(const struct sim_component *g);
unsigned gpu_mps(const struct sim_component *g);
unsigned gpu_mrrs(const struct sim_component *g);
unsigned gpu_n_copy_engines(const struct sim_component *g);

/* The configured timing of the GPU's engines and memory (properties). */
struct gpu_params {
    sim_time_t ce_setup_ps;     /* per copy-engine operation */
    sim_time_t ce_local_setup_ps; /* per LOCAL operation */
    sim_time_t hbm_latency_ps;  /* access latency as a completer */
    uint64_t hbm_bytes_per_s;   /* the HBM serialiser */
    uint64_t l2_bytes_per_s;    /* the L2's serialiser; 0: no L2 model */
    unsigned tags_per_ce;       /* outstanding reads per engine */
    unsigned tag_space;         /* outstanding reads of all engines */
    unsigned mps, mrrs, rcb;    /* bytes */
};
void gpu_get_params(const struct sim_component *g, struct gpu_params *out);

/*
 * gpu_local_copy_hbm - a copy of len bytes within g's HBM, from src to
 * dst, starting now, passes through its L2 (models/gpu/l2.c), which it
 * updates: the bytes it reads from HBM and writes back to it (2 x len
 * without an L2 model). For the flow fidelity, which times the copy
 * itself; the copy engines (GPU_DMA_LOCAL) call the same model.
 */
uint64_t gpu_local_copy_hbm(struct sim_component *g, uint64_t dst,
                            uint64_t src, uint64_t len);

/* The HBM backing store (the API reads and writes it for host copies). */
struct mem_sparse *gpu_hbm(struct sim_component *g);

/* ---- BAR1 ------------------------------------------------------------------------ */

/*
 * gpu_bar1_map - expose [hbm_addr, hbm_addr + len) through BAR1; *bus_addr
 * is where peers address it. Rounded to bar1-page. Returns 0, or
 * -SIM_ENOMEM when the aperture has no room left (nothing is mapped), or
 * -SIM_EINVAL for len 0 or a range outside HBM. gpu_bar1_unmap takes any
 * bus address inside a mapping; -SIM_ENOENT if none holds it.
 */
int gpu_bar1_map(struct sim_component *g, uint64_t hbm_addr, uint64_t len,
                 uint64_t *bus_addr);
int gpu_bar1_unmap(struct sim_component *g, uint64_t bus_addr);
uint64_t gpu_bar1_used(const struct sim_component *g);
/*
 * gpu_bar1_translate - the HBM address behind bus address bus_addr, and
 * how many bytes from there stay inside the same mapping; false if the
 * address is outside BAR1 or unmapped. A query: it costs no time.
 */
bool gpu_bar1_translate(const struct sim_component *g, uint64_t bus_addr,
                        uint64_t *hbm_addr, uint64_t *contig_bytes);

/* ---- copy engines ------------------------------------------------------------- */

enum gpu_dma_dir {
    GPU_DMA_PUSH,               /* local HBM -> bus address (MWr) */
    GPU_DMA_PULL,               /* bus address -> local HBM (MRd + CplD) */
    GPU_DMA_LOCAL,              /* local HBM -> local HBM */
};

/* The setup an engine spends on an operation of direction dir. */
static inline sim_time_t gpu_params_setup_ps(const struct gpu_params *gp,
                                             enum gpu_dma_dir dir)
{
    return dir == GPU_DMA_LOCAL ? gp->ce_local_setup_ps : gp->ce_setup_ps;
}

struct gpu_dma;
typedef void gpu_dma_done_fn(struct gpu_dma *op);

/*
 * A copy-engine operation, owned by the caller until done() is called
 * (the model keeps a pointer to it meanwhile).
 */
struct gpu_dma {
    enum gpu_dma_dir dir;
    unsigned ce;                /* copy engine index */
    uint64_t local_addr;        /* HBM address on this GPU */
    uint64_t remote_addr;       /* bus address (PUSH/PULL) or HBM (LOCAL) */
    uint64_t len_bytes;
    uint32_t mps;               /* payload per write; 0 = the GPU's */
    uint32_t mrrs;              /* bytes per read; 0 = the GPU's */
    uint8_t attr;               /* TLP attributes (TLP_ATTR_RO, ...) */
    bool no_flush;              /* PUSH: skip the final flushing read */
    gpu_dma_done_fn *done;
    void *user;
    /* results, filled by the model */
    int status;                 /* 0, or -SIM_EIO on an error completion */
    sim_time_t t_submit;        /* ps */
    sim_time_t t_first;         /* first TLP issued */
    sim_time_t t_last;          /* last data TLP issued (PUSH) or received */
    sim_time_t t_done;          /* done() called */
    uint64_t tlps;              /* TLPs this operation sent */
    /* private to the model */
    struct gpu_dma *next;
    uint64_t issued_bytes;
    uint64_t completed_bytes;
    uint32_t outstanding;
    bool flush_sent;            /* PUSH: the flushing read is out */
    bool drained;               /* every request issued and answered */
};

/*
 * gpu_dma_submit - queue op on its copy engine; done(op) is called when the
 * data is in place (for PUSH: after the flushing zero-length read returns,
 * since PCIe ordering makes it pass no earlier write; PCIe r6.0 §2.4.1).
 * Returns 0 or -SIM_EINVAL (bad engine, range outside HBM, zero length),
 * or -SIM_ENOTCONN (PUSH/PULL while port "pcie" is not connected).
 */
int gpu_dma_submit(struct sim_component *g, struct gpu_dma *op);

/* ---- NVLink ports and the way out (nvlink_port.c) ------------------------
 *
 * A GPU whose catalog gives nvlink-links N has ports "nvl0" .. "nvl<N-1>",
 * one per physical link; a bonded group of k links is connected (by the
 * builder) to the port of its first link and carries all k. Peers reach
 * the GPU's whole memory through its NVLink window (no BAR1 is used):
 * a request to gpu_nvlink_base(g) + x is for HBM address x.
 */

/* Set by the builder: the window, and the weight (links) of NVLink port
 * nvl (0-based, as "nvl<nvl>"). */
void gpu_set_nvlink_window(struct sim_component *g, uint64_t base,
                           uint64_t size);
uint64_t gpu_nvlink_base(const struct sim_component *g);
/*
 * Set by the builder: the machine's NVLink power domain (models/nvlink/
 * power.h; NULL: the links never sleep). A packet the GPU sends over
 * NVLink does not start before the domain is awake; one it receives
 * keeps the domain awake.
 */
void gpu_set_nvlink_power(struct sim_component *g, struct nvl_power *p);
int gpu_nvlink_set_port_links(struct sim_component *g, unsigned nvl,
                              unsigned links);
/*
 * gpu_nvlink_add_route - requests to [base, limit] may leave by NVLink
 * port nvl (several calls with one range spread it over several ports).
 * Returns 0, -SIM_EINVAL (no such port, or it is not connected) or
 * -SIM_ENOMEM.
 */
int gpu_nvlink_add_route(struct sim_component *g, uint64_t base,
                         uint64_t limit, unsigned nvl);

/*
 * gpu_route_ports - the ports a request to bus address addr may leave by
 * (the decision copy engines and SMs use, see gpu_request_send), with the
 * share of the traffic each takes (its bonded links; 1 for "pcie").
 * Returns how many (at most max; at least 1: "pcie" when nothing else).
 */
unsigned gpu_route_ports(const struct sim_component *g, uint64_t addr,
                         struct sim_port **ports, unsigned *weights,
                         unsigned max);

/*
 * gpu_dma_holds_next - whether an operation queued after op on its engine
 * must wait for op to drain before it moves data: op is no PUSH whose
 * writes all leave by one link (PCIe, or an NVLink port of one link;
 * copy_engine.c, "Ordering"). Both fidelities decide with it.
 */
bool gpu_dma_holds_next(const struct sim_component *g,
                        const struct gpu_dma *op);

/*
 * gpu_peer_translate - the HBM address behind a bus address a peer uses
 * (in BAR1 or in the NVLink window), and how many bytes from there stay
 * contiguous; false if neither maps it. A query: no time.
 */
bool gpu_peer_translate(const struct sim_component *g, uint64_t bus_addr,
                        uint64_t *hbm_addr, uint64_t *contig_bytes);

/*
 * gpu_request_send - send one request TLP t (MWr, MRd, AtomicOp; at most
 * MPS bytes, within 4 KiB) from this GPU by the port the address decides
 * (gpu_route_ports: NVLink when it reaches, else PCIe), as the copy
 * engines do. The GPU fills requester_id and, for a non-posted request,
 * a tag; done(ctx, cpl) runs when its completion arrives (cpl is freed
 * after done returns; a read split into several completions calls done
 * for each), or, for a posted write, done(ctx, NULL) when it left the
 * GPU. Returns 0 (t is the GPU's), -SIM_EBUSY (no free tag: retry after
 * a completion) or -SIM_EINVAL.
 */
typedef void gpu_req_done_fn(void *ctx, struct tlp *cpl);
int gpu_request_send(struct sim_component *g, struct tlp *t,
                     gpu_req_done_fn *done, void *ctx);

struct gpu_counters {
    uint64_t tlps_out, tlps_in;
    uint64_t bytes_written_in;  /* payload landed in HBM from the bus */
    uint64_t bytes_read_in;     /* payload served from HBM to the bus */
    uint64_t bar1_misses;       /* requests to unmapped BAR1 pages */
    uint64_t error_completions;
    uint64_t cpl_timeouts;      /* requests whose completion never came */
};
void gpu_get_counters(const struct sim_component *g, struct gpu_counters *out);

#endif /* P2PSIM_MODELS_GPU_GPU_H */
