/*
 * machine/path.h - analysis of a built machine: the path between two GPUs
 * hop by hop, its nvidia-smi class (X, NV#, PIX, PXB, PHB, NODE, SYS), and
 * the P2P verdict with every rule that decides it and the change that
 * would lift it. This is what `p2psim topo`, `p2psim explain` and
 * cudaDeviceCanAccessPeer read; it looks at the models' configuration,
 * never at traffic.
 */
#ifndef P2PSIM_MACHINE_PATH_H
#define P2PSIM_MACHINE_PATH_H

#include <stdbool.h>
#include <stdint.h>

struct sim_component;
struct sim_port;
struct topo_machine;

#define PATH_MAX_HOPS 32
#define PATH_MAX_RULES 16

/* nvidia-smi topo -m classes, best first. */
enum path_class {
    PATH_X,                     /* the same device */
    PATH_NV,                    /* NVLink (NV#) */
    PATH_PIX,                   /* one PCIe switch */
    PATH_PXB,                   /* several PCIe switches, no host bridge */
    PATH_PHB,                   /* through one PCIe host bridge */
    PATH_NODE,                  /* between host bridges of one NUMA node */
    PATH_SYS,                   /* across the SMP interconnect */
};

const char *path_class_name(enum path_class c);

struct path_hop {
    const struct sim_component *comp;
    const char *in, *out;       /* port names; NULL at the ends */
    bool redirected;            /* ACS sent the TLP up from here */
};

struct path {
    enum path_class cls;
    enum path_class pcie_cls;   /* the PCIe route's class (PIX..SYS), NVLink
                                   or not; PATH_X for the same device */
    unsigned nv_links;          /* NV#: bonded NVLinks (class PATH_NV) */
    bool pcie_connected;        /* a PCIe route exists */
    bool acs_redirect;          /* the PCIe route hairpins at an RC */
    bool cross_socket;
    const struct sim_component *rc_a, *rc_b; /* sockets' root complexes */
    const struct sim_component *redirect_at; /* the switch that redirects */
    unsigned redirect_port;     /* its downstream port */
    struct path_hop hop[PATH_MAX_HOPS];
    unsigned n_hops;            /* PCIe hops, a to b */
};

/* One step up the PCIe tree from a GPU: the element above and the port
 * it is reached on (its downstream port towards the GPU). */
struct path_up {
    const struct sim_component *comp;
    const struct sim_port *port;
};

/* The switches above gpu, nearest first, then its root complex (last):
 * at most max of them; returns how many (0: not connected). */
int path_chain_up(const struct sim_component *gpu, struct path_up *chain,
                  unsigned max);

/* The path between GPUs a and b of machine m. -SIM_ENOMEM only on a
 * machine of more than 128 NVLink entries (inside a run the simulation
 * has failed then: sim_nomem). */
int path_compute(const struct topo_machine *m, const struct sim_component *a,
                 const struct sim_component *b, struct path *out);

enum path_rule_id {
    RULE_SAME_DEVICE,
    RULE_PRODUCT,               /* GeForce P2P block */
    RULE_FABRIC_MANAGER,        /* NVSwitch machine without fabric manager */
    RULE_NVLINK,                /* NVLink connects the pair */
    RULE_SOCKET,                /* cross-socket policy */
    RULE_ROOT_COMPLEX,          /* P2P policy between root ports */
    RULE_ACS,                   /* ACS redirect on the path */
    RULE_IOMMU,                 /* IOMMU translating */
    RULE_BAR1,                  /* BAR1 room for the peer mapping */
    RULE_PATH,                  /* the PCIe route itself */
    RULE_VM_CLIQUE,             /* VM guest: GPUDirect P2P clique */
    RULE_NVLINK_POWER,          /* the NVLinks sleep when idle */
    RULE_ATOMICS,               /* peer atomics are not native */
    RULE_VM_ISOLATION,          /* the GPUs are given to different VMs */
};

struct path_rule {
    enum path_rule_id id;
    bool blocks;                /* P2P is not available because of it */
    bool slows;                 /* available, but slower or via a detour */
    char says[320];             /* what the rule found */
    char fix[240];              /* the change that lifts it, or "" */
};

enum path_transport { TRANSPORT_NONE, TRANSPORT_PCIE, TRANSPORT_NVLINK };

struct p2p_verdict {
    bool allowed;               /* cudaDeviceCanAccessPeer */
    bool reads_allowed;         /* P2P reads too (not writes only) */
    bool atomics;               /* native atomics: both GPUs do them over
                                   the transport and, over PCIe, every
                                   element between routes AtomicOps */
    enum path_transport transport;
    struct path path;
    struct path_rule rule[PATH_MAX_RULES];
    unsigned n_rules;
};

/* Whether every switch above gpu routes AtomicOps, so its AtomicOps
 * reach its root complex (host memory's completer). */
bool path_atomics_to_host(const struct sim_component *gpu);

/* Decide P2P between GPUs a and b, listing every rule that applies.
 * 0, or -SIM_ENOMEM as path_compute. */
int path_p2p_verdict(const struct topo_machine *m,
                     const struct sim_component *a,
                     const struct sim_component *b, struct p2p_verdict *v);

/* GPUDirect Storage from drive (a DMA master on port "pcie") into GPU g
 * through its BAR1: the PCIe rules of P2P, the GPU's product and BAR1.
 * 0, or -SIM_ENOMEM as path_compute. */
int path_gds_verdict(const struct topo_machine *m,
                     const struct sim_component *drive,
                     const struct sim_component *g, struct p2p_verdict *v);

#endif /* P2PSIM_MACHINE_PATH_H */
