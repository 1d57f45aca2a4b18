/*
 * machine/kinds.h - the one table of component kinds: what each model is
 * to the machine. A row names the model (its ops, whose kind string
 * fab_add takes), how it forwards, its PCIe function (IDs, BAR) where it
 * has one, what it completes for the flow fidelity, and how a machine
 * file names it. The builder (fabric.c), the loader (topology*.c), the
 * router (route.c, path.c) and the flow planner (flow_plan.c, flow.c) ask
 * the row of a component instead of comparing ops pointers.
 *
 * Why in machine/ and not models/: a row ties a model to the builder,
 * the loader, the routes and the flow fidelity, whose types live here;
 * models/ stays free of them (the layers, README "Layout"). models/
 * keeps its table of link kinds (models/models.h).
 *
 * Adding an endpoint kind: its model files, one row in kinds.c (or, in a
 * test, mkind_register) and, to be named in machine files, yaml_list and
 * yaml_keys. Such an endpoint hangs below a root port or a switch port
 * (parent:, link: as a GPU's); its other keys go to its model as
 * properties, after defaults.<yaml_default>.
 */
#ifndef P2PSIM_MACHINE_KINDS_H
#define P2PSIM_MACHINE_KINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"

struct mem_sparse;
struct sim_component;
struct sim_component_ops;

/* How a kind forwards. */
enum mkind_role {
    MKIND_ENDPOINT,       /* ends a route: a PCIe function or a store */
    MKIND_PCIE_SWITCH,    /* forwards: port 0 "up", downstream ports dp<i> */
    MKIND_ROOT_COMPLEX,   /* forwards: root ports, "mem", socket links */
    MKIND_NVSWITCH,       /* forwards NVLink packets */
};

/* Which reader of the loader builds a kind's entries (topology*.c). */
enum mkind_reader {
    MKIND_READ_NONE,      /* not in machine files by itself */
    MKIND_READ_SOCKET,    /* sockets: a root complex and its host memory */
    MKIND_READ_SWITCH,
    MKIND_READ_GPU,       /* with its GPU catalog entry */
    MKIND_READ_NVSWITCH,
    MKIND_READ_DEVICE,    /* any other endpoint: parent, link, properties */
};

/* A PCIe function below a port: what enumeration gives it. */
struct mkind_pcie {
    const char *port;     /* the port its PCIe link joins ("pcie") */
    void (*set_id)(struct sim_component *c, uint16_t id);
    uint16_t (*id)(const struct sim_component *c);
    /* Its one memory BAR (0: none), placed naturally aligned. */
    uint64_t (*bar_size)(const struct sim_component *c);
    void (*set_bar)(struct sim_component *c, uint64_t base);
    /* NULL: what a switch port supports (PCIE_GEN_MAX, x16), MPS 4096 */
    unsigned (*max_gen)(const struct sim_component *c);
    unsigned (*max_width)(const struct sim_component *c);
    unsigned (*mps)(const struct sim_component *c);
    /* Masters DMA: a translating IOMMU maps host memory for it. */
    bool dma;
};

/* The store behind a completer, as the flow fidelity charges it. */
enum mkind_store { MKIND_STORE_HBM, MKIND_STORE_DRAM };

struct mkind_timing {
    sim_time_t latency_ps;      /* access latency */
    uint64_t rate;              /* bytes/s of its store; 0: unlimited */
    unsigned mps, rcb;          /* completion payload and boundary */
};

/* What a kind completes (memory reads and writes at bus addresses). */
struct mkind_completer {
    enum mkind_store store;
    bool charge_writes;         /* writes occupy the store too */
    uint32_t flush_bytes;       /* what a zero-length read returns */
    void (*timing)(const struct sim_component *c, struct mkind_timing *t);
    /* The bytes behind bus address bus: the store and the address in it,
     * *contig of them in one piece; NULL if c does not claim bus. */
    struct mem_sparse *(*bytes)(struct sim_component *c, uint64_t bus,
                                uint64_t *at, uint64_t *contig);
};

struct mkind {
    const struct sim_component_ops *ops;
    enum mkind_role role;
    bool gpu;                   /* a GPU: fab_gpu, NVLink windows */
    /* Forwarding latency of a switch or an NVSwitch (a root complex
     * gives its own per route); NULL for the others. */
    sim_time_t (*fwd_latency)(const struct sim_component *c);
    const struct mkind_pcie *pcie;           /* NULL: no PCIe function */
    const struct mkind_completer *completer; /* NULL: completes nothing */
    /* Machine files: the top-level list of its entries ("gpus"), what one
     * is called in errors ("a GPU"), its keys (NULL-terminated), the key
     * of its defaults: (NULL: none) and its reader. */
    const char *yaml_list, *yaml_what;
    const char *const *yaml_keys;
    const char *yaml_default;
    enum mkind_reader reader;
};

/* Rows registered at most (mkind_register). */
#define MKIND_EXTRA_MAX 8

/* Row i (built-in rows first, then registered ones, in order), or NULL
 * past the end. */
const struct mkind *mkind_at(unsigned i);
/* The row of a kind name ("gpu"), or NULL. */
const struct mkind *mkind_find(const char *kind);
/* The row of c's model, or NULL. */
const struct mkind *mkind_of(const struct sim_component *c);
/* Is c of role r? (false for NULL). */
bool mkind_is(const struct sim_component *c, enum mkind_role r);
/* Is c a GPU? */
bool mkind_is_gpu(const struct sim_component *c);

/*
 * Add a row (a kind defined outside this table, e.g. in a test) for every
 * machine built after; k must outlive them. -SIM_EEXIST if its kind
 * name or list key is taken, -SIM_ERANGE past MKIND_EXTRA_MAX,
 * -SIM_EINVAL without ops. Not thread-safe: register before building.
 */
int mkind_register(const struct mkind *k);

#endif /* P2PSIM_MACHINE_KINDS_H */
