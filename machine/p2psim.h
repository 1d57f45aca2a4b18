/*
 * machine/p2psim.h - libp2psim, the public C API: open a machine (a machine
 * file or the built-in default), name its GPUs, and ask what the fabric
 * says about a pair (path class, P2P verdict with its rules).
 *
 * The types here are libp2psim's own, plain C: the layers above (the CUDA
 * runtime, the command line) see no model's types; machine/p2psim.c
 * translates from them.
 *
 * Ownership: p2psim_open() returns a machine the caller closes with
 * p2psim_close(); everything it hands out lives until then.
 */
#ifndef P2PSIM_MACHINE_P2PSIM_H
#define P2PSIM_MACHINE_P2PSIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "machine/exec.h"
#include "machine/storage.h"
#include "machine/trace_sink.h"
#include "sim/time.h"

struct sim;
struct sim_error;
struct p2psim;

struct p2psim_options {
    const char *engine;         /* "native" (default), "heap", "systemc" */
    uint64_t seed;
    /*
     * How copies are simulated: "tlp" (default: every packet through the
     * link, switch and root-complex models) or "flow" (each transfer a
     * flow sharing link bandwidth max-min fairly, each link's efficiency
     * taken from the TLP model for the payload in use).
     */
    const char *fidelity;
    /*
     * Overrides of the machine file, "path=value" lines applied before it
     * is read (topologies/SCHEMA.md, "Overrides"; the CUDA shim takes them
     * from P2PSIM_SET). NULL: none.
     */
    const char *overrides;
    /*
     * The machine as VM `vm` of its `vms:` sees it (topologies/SCHEMA.md):
     * only that VM's GPUs (numbered from 0 in the file's order), and host
     * buffers in the guest's memory. NULL or "": the host's view, every
     * GPU. The CUDA shim takes it from P2PSIM_VM (`p2psim run --vm`).
     */
    const char *vm;
};

/* file NULL: the built-in default machine. NULL and err on failure. */
struct p2psim *p2psim_open(const char *file, const struct p2psim_options *opt,
                           struct sim_error *err);
void p2psim_close(struct p2psim *p);

const char *p2psim_machine_name(const struct p2psim *p);
const char *p2psim_machine_description(const struct p2psim *p);
const char *p2psim_machine_file(const struct p2psim *p);
unsigned p2psim_gpu_count(const struct p2psim *p);
/* The GPU's id in the machine file ("gpu0"), and its product name. */
const char *p2psim_gpu_id(const struct p2psim *p, unsigned i);
const char *p2psim_gpu_model(const struct p2psim *p, unsigned i);
/* Index of the GPU named s ("gpu3") or numbered s ("3"); -1 if none. */
int p2psim_gpu_find(const struct p2psim *p, const char *s);
/* The socket (NUMA affinity) a GPU hangs below. */
unsigned p2psim_gpu_socket(const struct p2psim *p, unsigned i);
/* The negotiated PCIe generation and width of GPU i's own link. */
void p2psim_gpu_link(const struct p2psim *p, unsigned i, unsigned *gen,
                     unsigned *width);
/* What kind of product a GPU is (its catalog's `class`). */
enum p2psim_gpu_class {
    P2PSIM_GPU_DATACENTER,
    P2PSIM_GPU_WORKSTATION,
    P2PSIM_GPU_GEFORCE,
};

/* What GPU i is: its catalog entry (topologies/gpus/). */
struct p2psim_gpu_desc {
    char model[64];             /* catalog name, e.g. "H200-SXM" */
    enum p2psim_gpu_class cls;
    char architecture[32];      /* "Hopper" */
    unsigned cc_major, cc_minor;/* compute capability */
    unsigned sms;
    uint64_t sm_clock_hz;
    uint64_t mem_clock_hz;
    unsigned mem_bus_width;     /* bits */
    uint64_t l2_bytes;
    unsigned nvlink_links;      /* 0: none */
    unsigned nvlink_gen;
    bool atomics_pcie, atomics_nvlink; /* native atomics over each */
    bool compression;           /* generic memory compression (catalog) */
};

/* Fill *out for GPU i: 0, or -SIM_EINVAL for a bad index (out untouched). */
int p2psim_gpu_describe(const struct p2psim *p, unsigned i,
                        struct p2psim_gpu_desc *out);

/*
 * GPU i's copy engines as configured, and its PCI address as the builder
 * enumerated it (machine/fabric.c: domain 0, the secondary bus of the port
 * above it, device 0, function 0). A bad index gives 0 and -SIM_EINVAL.
 */
unsigned p2psim_gpu_copy_engines(const struct p2psim *p, unsigned i);
int p2psim_gpu_pci_address(const struct p2psim *p, unsigned i,
                           unsigned *domain, unsigned *bus, unsigned *device,
                           unsigned *function);

/*
 * GPU i's PCI identity as software reads it from configuration space:
 * vendor and device id, subsystem vendor and device, and class code
 * (0x030200 3D controller for data-center parts, 0x030000 VGA for the
 * others). -SIM_EINVAL for a bad index.
 */
struct p2psim_pci_ids {
    unsigned vendor, device, subsystem_vendor, subsystem_device;
    unsigned class_code;
};
int p2psim_gpu_pci_ids(const struct p2psim *p, unsigned i,
                       struct p2psim_pci_ids *out);

/*
 * The PCIe tree as software enumerates it (NCCL's topology file, `p2psim
 * topo --nccl-xml`): the switches and GPUs below each socket's root
 * complex, every parent before its children (machine/pci_tree.c).
 */
struct p2psim_pci_node {
    const char *id;             /* its id in the machine file */
    int parent;                 /* the switch above (an index of the
                                   list), or -1: on a root port */
    unsigned socket;            /* the socket whose root complex it is below */
    unsigned numa;              /* its NUMA node: its root port's, by the
                                   socket's `numa` (nodes numbered socket
                                   by socket from 0) */
    int gpu;                    /* the GPU's index, or -1 for a switch */
    unsigned domain, bus, device, function; /* a switch: its upstream port */
    unsigned gen, width;        /* its link to the element above */
};

/* The nodes, the first max into out; returns how many there are. */
unsigned p2psim_pci_tree(const struct p2psim *p, struct p2psim_pci_node *out,
                         unsigned max);
/* The sockets (NUMA nodes of the host): how many, and socket i's id and
 * its `cpu:` description ("" when the file has none; NULL: bad index). */
unsigned p2psim_socket_count(const struct p2psim *p);
const char *p2psim_socket_id(const struct p2psim *p, unsigned i);
const char *p2psim_socket_cpu(const struct p2psim *p, unsigned i);

#define P2PSIM_PATH_MAX_HOPS 32
#define P2PSIM_MAX_RULES 16

/* nvidia-smi topo -m classes, best first. */
enum p2psim_path_class {
    P2PSIM_PATH_X,              /* the same device */
    P2PSIM_PATH_NV,             /* NVLink (NV#) */
    P2PSIM_PATH_PIX,            /* one PCIe switch */
    P2PSIM_PATH_PXB,            /* several PCIe switches, no host bridge */
    P2PSIM_PATH_PHB,            /* through one PCIe host bridge */
    P2PSIM_PATH_NODE,           /* between host bridges of one NUMA node */
    P2PSIM_PATH_SYS,            /* across the SMP interconnect */
};

/* "X", "NV", "PIX", ... ("?" for a value out of range). */
const char *p2psim_path_class_name(enum p2psim_path_class c);

/* One element of a PCIe path: a GPU, switch or root complex. */
struct p2psim_hop {
    const char *name;           /* its id in the machine file */
    const char *in, *out;       /* port names; NULL at the ends */
    bool redirected;            /* ACS sent the TLP up from here */
};

/* The path between two GPUs, from the machine's configuration. */
struct p2psim_path {
    enum p2psim_path_class cls;
    enum p2psim_path_class pcie_cls; /* the PCIe route's class (PIX..SYS)
                                   whether NVLink joins the pair or not;
                                   P2PSIM_PATH_X for the same device */
    unsigned nv_links;          /* NV#: bonded NVLinks (P2PSIM_PATH_NV) */
    bool pcie_connected;        /* a PCIe route exists */
    bool acs_redirect;          /* the PCIe route hairpins at an RC */
    bool cross_socket;
    struct p2psim_hop hop[P2PSIM_PATH_MAX_HOPS];
    unsigned n_hops;            /* PCIe hops, a to b */
};

/* The rules that decide P2P, in the order the CUDA driver meets them. */
enum p2psim_rule_id {
    P2PSIM_RULE_SAME_DEVICE,
    P2PSIM_RULE_PRODUCT,        /* GeForce P2P block */
    P2PSIM_RULE_FABRIC_MANAGER, /* NVSwitch machine without fabric manager */
    P2PSIM_RULE_NVLINK,         /* NVLink connects the pair */
    P2PSIM_RULE_SOCKET,         /* cross-socket policy */
    P2PSIM_RULE_ROOT_COMPLEX,   /* P2P policy between root ports */
    P2PSIM_RULE_ACS,            /* ACS redirect on the path */
    P2PSIM_RULE_IOMMU,          /* IOMMU translating */
    P2PSIM_RULE_BAR1,           /* BAR1 room for the peer mapping */
    P2PSIM_RULE_PATH,           /* the PCIe route itself */
    P2PSIM_RULE_VM_CLIQUE,      /* VM guest: GPUDirect P2P clique */
    P2PSIM_RULE_NVLINK_POWER,   /* the NVLinks sleep when idle */
    P2PSIM_RULE_ATOMICS,        /* peer atomics are not native */
    P2PSIM_RULE_VM_ISOLATION,   /* the GPUs are given to different VMs */
    P2PSIM_RULE_N
};

struct p2psim_rule {
    enum p2psim_rule_id id;
    bool blocks;                /* P2P is not available because of it */
    bool slows;                 /* available, but slower or via a detour */
    char says[320];             /* what the rule found */
    char fix[240];              /* the change that lifts it, or "" */
};

enum p2psim_transport {
    P2PSIM_TRANSPORT_NONE,      /* no P2P: copies are staged */
    P2PSIM_TRANSPORT_PCIE,
    P2PSIM_TRANSPORT_NVLINK,
};

/* The P2P verdict for a pair, with every rule that applies. */
struct p2psim_verdict {
    bool allowed;               /* cudaDeviceCanAccessPeer */
    bool reads_allowed;         /* P2P reads too (not writes only) */
    bool atomics;               /* native atomics (NativeAtomicSupported) */
    enum p2psim_transport transport;
    struct p2psim_path path;
    struct p2psim_rule rule[P2PSIM_MAX_RULES];
    unsigned n_rules;
};

/*
 * The path between GPUs a and b, and the P2P verdict from a to b. 0, or
 * -SIM_EINVAL (a bad index), -SIM_ENOMEM (only on a machine of more than
 * 128 NVLink entries; inside a run the simulation has failed then).
 */
int p2psim_path(const struct p2psim *p, unsigned a, unsigned b,
                struct p2psim_path *out);
int p2psim_p2p(const struct p2psim *p, unsigned a, unsigned b,
               struct p2psim_verdict *out);
/* How many NVLink entries (bonded groups) the machine file has. */
unsigned p2psim_nvlink_count(const struct p2psim *p);

/* One bonded group of NVLinks at a GPU: what its other end is. */
struct p2psim_nvlink_end {
    bool nvswitch;              /* the far end is an NVSwitch */
    unsigned peer;              /* a GPU's index, or an NVSwitch's number */
    unsigned links;             /* bonded links */
};

/*
 * GPU i's NVLink groups in the machine file's order: the first max into
 * out; returns how many there are (0 for a bad index).
 */
unsigned p2psim_gpu_nvlinks(const struct p2psim *p, unsigned i,
                            struct p2psim_nvlink_end *out, unsigned max);
/*
 * The NVSwitches that NVLinks reach, numbered in the order the machine
 * file's nvlinks: first name them; switch k's id in the file, and the PCI
 * address software sees it at (NVML, NCCL's topology): the buses after
 * the last one the builder enumerated, one per switch, device 0 (domain 1
 * from bus 0 on should those run out). NULL / -SIM_EINVAL for a bad k.
 */
unsigned p2psim_nvswitch_count(const struct p2psim *p);
const char *p2psim_nvswitch_id(const struct p2psim *p, unsigned k);
int p2psim_nvswitch_pci_address(const struct p2psim *p, unsigned k,
                                unsigned *domain, unsigned *bus,
                                unsigned *device, unsigned *function);

/*
 * Sections of the machine file that libp2psim keeps, unread, for a layer
 * above it (topologies/SCHEMA.md: `api-costs:`, which the CUDA runtime
 * reads, cuda/cudart/api_costs.c): a mapping of plain names, without
 * duplicates, of at most P2PSIM_SECTION_MAX_ENTRIES entries (the loader
 * refuses the file otherwise), each key and value as written, after the
 * overrides, with where it stands, so that its reader can report an error
 * at file:line:column as the loader does.
 */
#define P2PSIM_SECTION_MAX_ENTRIES 64

struct p2psim_mark {
    const char *file;           /* the machine file, or "--set" (override N
                                   is line N) */
    unsigned line, column;      /* from 1 */
};

struct p2psim_entry {
    const char *key;
    const char *value;          /* the text of a plain value; NULL for a
                                   list or a mapping */
    const char *kind;           /* "a value", "a list" or "a mapping" */
    struct p2psim_mark key_at, value_at;
};

struct p2psim_section {
    const char *name;           /* "api-costs" */
    struct p2psim_mark at;      /* the mapping */
    const struct p2psim_entry *entry; /* n, in file order (an override's
                                   new key after the file's) */
    unsigned n;
};

/* Section `name`, or NULL when the file has none (or libp2psim keeps no
 * section of that name). */
const struct p2psim_section *p2psim_section(const struct p2psim *p,
                                            const char *name);

/*
 * The machine files built into the library, which p2psim_open finds by
 * name: the i-th one's file name ("h200-x1.yaml"), NULL past the last;
 * and the text of built-in file `name` (a machine, or a GPU catalog entry
 * "gpus/H200-SXM.yaml"), NULL if there is none.
 */
const char *p2psim_builtin_machine(unsigned i);
const char *p2psim_builtin_text(const char *name);

/*
 * The host's virtual machines (the machine file's `vms:`): how many; VM
 * k's name (NULL: bad k); the VM that GPU i is given to (-1: none, or a
 * bad i); and the VM the machine is seen from (p2psim_options.vm; -1:
 * the host's view).
 */
unsigned p2psim_vm_count(const struct p2psim *p);
const char *p2psim_vm_name(const struct p2psim *p, unsigned k);
int p2psim_gpu_vm(const struct p2psim *p, unsigned i);
int p2psim_guest_vm(const struct p2psim *p);

/* A DMA an IOMMU refused (a VM's GPU outside its domain, a peer BAR the
 * driver did not map): where, by whom, what. */
struct p2psim_iommu_fault {
    unsigned socket;            /* whose root complex's IOMMU */
    int gpu;                    /* the requester's GPU index; -1: not a GPU */
    uint64_t addr;              /* the bus address it tried */
    uint32_t len;               /* bytes */
    bool write;
    sim_time_t when;
};

/* The IOMMU faults recorded so far (each IOMMU keeps its first 256),
 * socket by socket: the first max into out; returns how many there are. */
unsigned p2psim_iommu_faults(const struct p2psim *p,
                             struct p2psim_iommu_fault *out, unsigned max);

/* The simulation underneath (for tests, traces and stats). */
struct sim *p2psim_sim(const struct p2psim *p);

/* Graphviz (dot) text of the machine into f. */
int p2psim_write_dot(const struct p2psim *p, FILE *f);

#endif /* P2PSIM_MACHINE_P2PSIM_H */
