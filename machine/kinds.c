/*
 * machine/kinds.c - the table of component kinds (kinds.h): one row per
 * model, then the rows registered at run time (tests).
 *
 * The order of the rows is the order in which the loader reads a machine
 * file's lists and builds their entries (sockets, switches, GPUs,
 * NVSwitches), hence the order of GPUs in fab_gpu: keep it.
 */
#include <config.h>

#include "machine/kinds.h"

#include <string.h>

#include "models/gpu/gpu.h"
#include "models/host/hostmem.h"
#include "models/nvlink/nvlink.h"
#include "models/nvme/nvme.h"
#include "models/pcie/rc.h"
#include "models/pcie/switch.h"
#include "sim/component.h"
#include "sim/error.h"

/* ---- GPU ------------------------------------------------------------------ */

static void gpu_timing(const struct sim_component *c, struct mkind_timing *t)
{
    struct gpu_params gp;
    gpu_get_params(c, &gp);
    t->latency_ps = gp.hbm_latency_ps;
    t->rate = gp.hbm_bytes_per_s;
    t->mps = gp.mps;
    t->rcb = gp.rcb;
}

static struct mem_sparse *gpu_bytes(struct sim_component *c, uint64_t bus,
                                    uint64_t *at, uint64_t *contig)
{
    return gpu_peer_translate(c, bus, at, contig) ? gpu_hbm(c) : NULL;
}

static const struct mkind_pcie gpu_pcie = {
    .port = "pcie",
    .set_id = gpu_set_pcie_id,
    .id = gpu_pcie_id,
    .bar_size = gpu_bar1_size,
    .set_bar = gpu_set_bar1_base,
    .max_gen = gpu_pcie_max_gen,
    .max_width = gpu_pcie_max_width,
    .mps = gpu_mps,
    .dma = true,
};

/* HBM: reads occupy its serialiser, writes are absorbed by the L2 (the
 * flow fidelity's model); a zero-length read (a flush) returns one DW. */
static const struct mkind_completer gpu_completer = {
    .store = MKIND_STORE_HBM,
    .charge_writes = false,
    .flush_bytes = 4,
    .timing = gpu_timing,
    .bytes = gpu_bytes,
};

static const char *const gpu_keys[] = { "id", "model", "parent", "link",
                                        "p2p-unlocked", "set",
                                        "gpudirect-clique", NULL };

/* ---- host memory ---------------------------------------------------------- */

static void hmem_timing(const struct sim_component *c, struct mkind_timing *t)
{
    struct hmem_params hp;
    hmem_get_params(c, &hp);
    t->latency_ps = hp.latency_ps;
    t->rate = hp.rate_bytes_per_s;
    t->mps = hp.mps_bytes;
    t->rcb = hp.rcb_bytes;
}

static struct mem_sparse *hmem_bytes(struct sim_component *c, uint64_t bus,
                                     uint64_t *at, uint64_t *contig)
{
    uint64_t base = hmem_base(c);
    if (bus < base || bus - base >= hmem_size(c)) {
        return NULL;
    }
    *at = bus - base;
    *contig = hmem_size(c) - *at;
    return hmem_store(c);
}

static const struct mkind_completer hmem_completer = {
    .store = MKIND_STORE_DRAM,
    .charge_writes = true,
    .flush_bytes = 0,
    .timing = hmem_timing,
    .bytes = hmem_bytes,
};

/* ---- NVMe drive --------------------------------------------------------------- */

/* A DMA master with a register BAR; it completes nothing for the flow
 * fidelity (its own DMA engine issues TLPs in both fidelities). */
static const struct mkind_pcie nvme_pcie = {
    .port = "pcie",
    .set_id = nvme_set_pcie_id,
    .id = nvme_pcie_id,
    .bar_size = nvme_bar_size,
    .set_bar = nvme_set_bar,
    .max_gen = nvme_max_gen,
    .max_width = nvme_max_width,
    .mps = nvme_mps,
    .dma = true,
};

static const char *const nvme_keys[] = { "id", "parent", "link", "capacity",
                                         "read-bandwidth", "write-bandwidth",
                                         "read-latency", "write-latency",
                                         "lba", "mdts", "tags", "mrrs", "mps",
                                         "max-gen", "max-width", NULL };

/* ---- the loader's keys of the forwarders ------------------------------------ */

static const char *const socket_keys[] = { "id", "cpu", "memory",
                                           "root-complex", "root-ports", NULL };
static const char *const switch_keys[] = { "id", "parent", "ports", "latency",
                                           "queue", "link", "acs",
                                           "atomic-routing", NULL };
static const char *const nvsw_keys[] = { "id", "generation", "ports",
                                         "latency", "bandwidth", NULL };

/* ---- the table ------------------------------------------------------------ */

static const struct mkind builtin[] = {
    {
        .ops = &rc_ops, .role = MKIND_ROOT_COMPLEX,
        .yaml_list = "sockets", .yaml_what = "a socket",
        .yaml_keys = socket_keys, .yaml_default = "root-complex",
        .reader = MKIND_READ_SOCKET,
    },
    {
        .ops = &psw_ops, .role = MKIND_PCIE_SWITCH, .fwd_latency = psw_latency,
        .yaml_list = "switches", .yaml_what = "a switch",
        .yaml_keys = switch_keys, .yaml_default = "switch",
        .reader = MKIND_READ_SWITCH,
    },
    {
        .ops = &gpu_ops, .role = MKIND_ENDPOINT, .gpu = true,
        .pcie = &gpu_pcie, .completer = &gpu_completer,
        .yaml_list = "gpus", .yaml_what = "a GPU", .yaml_keys = gpu_keys,
        .yaml_default = "gpu", .reader = MKIND_READ_GPU,
    },
    {
        /* built by the socket reader, behind its root complex's "mem" */
        .ops = &hmem_ops, .role = MKIND_ENDPOINT,
        .completer = &hmem_completer, .yaml_default = "memory",
    },
    {
        .ops = &nvsw_ops, .role = MKIND_NVSWITCH, .fwd_latency = nvsw_latency,
        .yaml_list = "nvswitches", .yaml_what = "an NVSwitch",
        .yaml_keys = nvsw_keys, .reader = MKIND_READ_NVSWITCH,
    },
    {
        .ops = &nvme_ops, .role = MKIND_ENDPOINT, .pcie = &nvme_pcie,
        .yaml_list = "drives", .yaml_what = "an NVMe drive",
        .yaml_keys = nvme_keys, .yaml_default = "drive",
        .reader = MKIND_READ_DEVICE,
    },
};

#define N_BUILTIN (sizeof(builtin) / sizeof(builtin[0]))

static const struct mkind *extra[MKIND_EXTRA_MAX];
static unsigned n_extra;

const struct mkind *mkind_at(unsigned i)
{
    if (i < N_BUILTIN) {
        return &builtin[i];
    }
    i -= (unsigned)N_BUILTIN;
    return i < n_extra ? extra[i] : NULL;
}

const struct mkind *mkind_find(const char *kind)
{
    const struct mkind *k;
    for (unsigned i = 0; (k = mkind_at(i)); i++) {
        if (strcmp(k->ops->kind, kind) == 0) {
            return k;
        }
    }
    return NULL;
}

const struct mkind *mkind_of(const struct sim_component *c)
{
    const struct mkind *k;
    for (unsigned i = 0; c && (k = mkind_at(i)); i++) {
        if (k->ops == c->ops) {
            return k;
        }
    }
    return NULL;
}

bool mkind_is(const struct sim_component *c, enum mkind_role r)
{
    const struct mkind *k = mkind_of(c);
    return k && k->role == r;
}

bool mkind_is_gpu(const struct sim_component *c)
{
    const struct mkind *k = mkind_of(c);
    return k && k->gpu;
}

int mkind_register(const struct mkind *k)
{
    if (!k || !k->ops || !k->ops->kind) {
        return -SIM_EINVAL;
    }
    const struct mkind *o;
    for (unsigned i = 0; (o = mkind_at(i)); i++) {
        if (strcmp(o->ops->kind, k->ops->kind) == 0 ||
            (k->yaml_list && o->yaml_list &&
             strcmp(o->yaml_list, k->yaml_list) == 0)) {
            return -SIM_EEXIST;
        }
    }
    if (n_extra == MKIND_EXTRA_MAX) {
        return -SIM_ERANGE;
    }
    extra[n_extra++] = k;
    return 0;
}
