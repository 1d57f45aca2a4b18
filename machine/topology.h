/*
 * machine/topology.h - machine files (topologies/SCHEMA.md) to built
 * machines. The loader (topology.c, topology_yaml.c) is the only part of
 * models/ that sees libyaml.
 *
 * A machine either loads completely (every reference resolved, every
 * component configured, the fabric finalized) or not at all: on error the
 * result is NULL and err holds "file:line:column" and a message that says
 * how to fix it. Nothing is left half-built.
 */
#ifndef P2PSIM_MACHINE_TOPOLOGY_H
#define P2PSIM_MACHINE_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/time.h"

struct fab;
struct p2psim_section;
struct sim;
struct sim_component;
struct sim_engine_ops;
struct sim_error;

struct topo_options {
    const struct sim_engine_ops *engine; /* NULL: the native engine */
    uint64_t seed;
    /* Where GPU catalog entries are looked for first (NAME.yaml); NULL:
     * the machine file's folder's gpus/, then the built-in catalog. */
    const char *gpu_dir;
    /*
     * Overrides applied to the machine file before it is read: lines of
     * "path=value" (topologies/SCHEMA.md, "Overrides"), e.g.
     * "defaults.switch.latency=150ns\ngpus.*.set.mps=128B". NULL: none.
     * Errors in them, or in the values they set, are reported as
     * "--set:N:C" (line N of this text, column C).
     */
    const char *overrides;
    /* The machine as VM `vm` of its `vms:` sees it (its GPUs only, its
     * memory); NULL: the host's view (every GPU). */
    const char *vm;
};

struct topo_nvlink {
    char a[64], b[64];          /* GPU or NVSwitch ids */
    bool a_nvswitch, b_nvswitch;/* which ends are NVSwitches */
    unsigned links;             /* bonded links */
    /* the ends as built (components named a and b), for queries that
     * compare them many times (machine/path.c) */
    const struct sim_component *comp_a, *comp_b;
};

/*
 * What a socket's PCIe looks like to software (nvidia-smi's PHB, NODE and
 * SYS): which host bridge and which NUMA node each root port is in, from
 * the root-complex keys host-bridges (one | per-port | a count of equal
 * groups | a list of groups of root ports) and numa (socket | per-port |
 * a count | groups: EPYC NPS2/NPS4 split a socket into NUMA nodes).
 */
#define TOPO_MAX_ROOT_PORTS 32
struct topo_socket {
    char id[64];
    char cpu[128];              /* the file's `cpu:` description, or "" */
    const struct sim_component *rc;
    unsigned n_ports;
    uint8_t bridge[TOPO_MAX_ROOT_PORTS];  /* host bridge of each root port */
    uint8_t node[TOPO_MAX_ROOT_PORTS];    /* NUMA node in the socket, 0.. */
    unsigned n_nodes;                     /* NUMA nodes of the socket */
};

/*
 * The machine seen from inside a virtual machine guest, its GPUs passed
 * through (the machine file's optional `virtual-machine:`). The guest's
 * GPU driver sees a virtual PCIe topology and cannot tell which GPUs may
 * reach each other, so it allows PCIe P2P only between GPUs to which the
 * hypervisor gave the same GPUDirect P2P clique id (QEMU vfio-pci
 * x-nv-gpudirect-clique=N, N 0..15; the GPU's `gpudirect-clique: N`).
 *
 * Model: the VM only gates P2P (machine/path.c, RULE_VM_CLIQUE). The rest
 * of the file describes the host's physical fabric, and the traffic takes
 * that path; the guest's virtual topology, the IOMMU's guest-to-host
 * translation and the hypervisor's own costs are not modelled.
 */
#define TOPO_CLIQUE_NONE (-1)   /* no clique exposed for the GPU */
#define TOPO_CLIQUE_MAX 15      /* QEMU accepts clique ids 0..15 */

struct topo_vm_gpu {
    char id[64];                /* GPU id */
    int clique;                 /* 0..TOPO_CLIQUE_MAX */
};

/*
 * A virtual machine of the host's view (the machine file's `vms:`): GPUs
 * passed through with VFIO to one guest, whose memory is a window of one
 * socket's DRAM. Each VM has its own IOMMU domain (machine/fabric.c,
 * fab_add_vm): it maps the VM's memory and its own GPUs' BARs, nothing
 * else, so a DMA of its GPUs anywhere else faults at the IOMMU.
 */
#define TOPO_MAX_VMS 16
#define TOPO_VM_MAX_GPUS 16

struct topo_vm {
    char name[64];
    unsigned socket;            /* index of the socket its memory is in */
    uint64_t mem_bytes;         /* the guest's memory */
    uint64_t mem_offset;        /* its window from the socket's DRAM base */
    uint64_t mem_base;          /* the window's bus address (after build) */
    char gpu[TOPO_VM_MAX_GPUS][64]; /* GPU ids, in the file's order */
    unsigned n_gpus;
};

struct topo_machine {
    struct sim *sim;            /* owns every component */
    struct fab *fab;
    char name[64];
    char *description;          /* may be NULL */
    const char *file;           /* the machine file's name (interned) */
    unsigned n_sockets;
    struct topo_socket *socket;     /* n_sockets */
    struct topo_nvlink *nvlink; /* as in the file; built as "nvlink" links */
    unsigned n_nvlinks;
    unsigned n_nvswitches;
    int fabric_manager;         /* -1 unset, 0 stopped, 1 running */
    /* the top-level sections kept unread for the layers above (api-costs:,
     * the CUDA runtime's), those the file has (topology_kept.c;
     * p2psim_section hands them out) */
    struct p2psim_section *kept;
    unsigned n_kept;
    /* nvlink-power: the NVLinks sleep after this idle time (0: never)
     * and wake in nvl_wake_ps (models/nvlink/power.h) */
    sim_time_t nvl_sleep_after_ps, nvl_wake_ps, nvl_settle_ps;
    uint64_t nvl_settle_rate;   /* bytes/s */
    /* virtual-machine: the guest's view; the GPUs given a clique */
    bool vm;
    char vm_hypervisor[64];     /* "" when not named */
    struct topo_vm_gpu *vm_gpu; /* n_vm_gpus, in file order */
    unsigned n_vm_gpus;
    /* vms: the host's VMs; guest: the one the machine is seen from (an
     * index of vms, whose GPUs are the only ones built), -1: the host */
    struct topo_vm *vms;
    unsigned n_vms;
    int guest;
};

/* Load a machine file. NULL and err on any error. */
struct topo_machine *topo_load_file(const char *path,
                                    const struct topo_options *opt,
                                    struct sim_error *err);
/* Load from text; name is what error locations show. */
struct topo_machine *topo_load_string(const char *name, const char *text,
                                      size_t len,
                                      const struct topo_options *opt,
                                      struct sim_error *err);
/* The built-in default machine. */
struct topo_machine *topo_load_default(const struct topo_options *opt,
                                       struct sim_error *err);
void topo_machine_destroy(struct topo_machine *m);

/* The gpudirect-clique of GPU gpu (an id) of m, or TOPO_CLIQUE_NONE when
 * m is not a virtual machine or the hypervisor gives that GPU none. */
int topo_gpudirect_clique(const struct topo_machine *m, const char *gpu);

/* The index in m->vms of the VM GPU gpu (an id) is given to; -1: none. */
int topo_vm_of(const struct topo_machine *m, const char *gpu);

/* ---- the data built into the binary (machine/topology_data.c, generated) -- */
struct topo_embedded {
    const char *path;           /* "h200-x1.yaml", "gpus/H200-SXM.yaml" */
    const char *text;
};
extern const struct topo_embedded topo_embedded[]; /* NULL-terminated */
extern const char topo_default_machine[];           /* a path in the table */

const char *topo_embedded_find(const char *path);

#endif /* P2PSIM_MACHINE_TOPOLOGY_H */
