/*
 * machine/fabric.h - the builder: create components, set their parameters,
 * connect ports with links, then finalize (enumerate bus numbers, place
 * host memory and BARs in the address map, program every routing table,
 * negotiate link speeds). Tests use it directly; the YAML loader
 * (machine/topology.c) drives the same calls.
 *
 *   struct fab *f = fab_create(sim, &err);
 *   fab_add(f, "root-complex", "rc0", props("root-ports=2"), &err);
 *   fab_add(f, "pcie-switch", "sw0", props("ports=2"), &err);
 *   fab_connect(f, "rc0.rp0", "sw0.up", "pcie-link", props("gen=5"), &err);
 *   ...
 *   fab_finalize(f, &err);
 *
 * Address map made by fab_finalize (bus addresses):
 *   [0, DRAM)            host memory of socket 0, then socket 1, ...
 *   from FAB_MMIO_BASE   BARs in depth-first order under each root port,
 *                        each naturally aligned, so every port's window is
 *                        one contiguous range.
 */
#ifndef P2PSIM_MACHINE_FABRIC_H
#define P2PSIM_MACHINE_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"

struct nvl_power;
struct sim;
struct sim_component;
struct sim_error;
struct sim_link;
struct sim_props;

#define FAB_MMIO_BASE (UINT64_C(1) << 44) /* 16 TiB */
/*
 * NVLink windows (models/gpu/gpu.h): GPU i (in creation order) is reached
 * over NVLink at FAB_NVLINK_BASE + i x FAB_NVLINK_STRIDE, its whole memory
 * from there. Far above every PCIe address, so a request there is never
 * claimed by a BAR.
 */
#define FAB_NVLINK_BASE (UINT64_C(1) << 52)
#define FAB_NVLINK_STRIDE (UINT64_C(1) << 40)  /* 1 TiB per GPU */

struct fab;

struct fab *fab_create(struct sim *sim, struct sim_error *err);
/* Frees the builder's bookkeeping; components belong to the simulation. */
void fab_destroy(struct fab *f);
struct sim *fab_sim(const struct fab *f);

/*
 * fab_add - a component of kind ("root-complex", "pcie-switch", "gpu",
 * "host-memory", ...) named name, configured from props (may be NULL).
 * Unknown property keys are errors with a "did you mean" hint.
 */
struct sim_component *fab_add(struct fab *f, const char *kind,
                              const char *name, const struct sim_props *props,
                              struct sim_error *err);

/*
 * fab_connect - join ports a and b ("component.port") with a new link of
 * kind ("pcie-link", "socket-link", "wire") configured from props.
 */
struct sim_link *fab_connect(struct fab *f, const char *a, const char *b,
                             const char *link_kind,
                             const struct sim_props *props,
                             struct sim_error *err);

/*
 * fab_set_fabric_manager - whether finalize programs the NVSwitches (the
 * fabric manager's job on real systems; default: yes). Without it GPUs
 * reach each other over NVLink only where a link joins them directly.
 */
void fab_set_fabric_manager(struct fab *f, bool running);
/*
 * fab_set_nvlink_power - the machine's NVLinks sleep after sleep_after_ps
 * without traffic, wake in wake_ps, then carry settle_rate bytes/s for
 * settle_ps before full rate (models/nvlink/power.h); default (and
 * sleep_after_ps 0): they never sleep. Before finalize.
 */
void fab_set_nvlink_power(struct fab *f, sim_time_t sleep_after_ps,
                          sim_time_t wake_ps, sim_time_t settle_ps,
                          uint64_t settle_rate);
/* The NVLinks' power domain, for the flow fidelity; NULL if they never
 * sleep. */
struct nvl_power *fab_nvlink_power(struct fab *f);

/*
 * fab_add_vm - before finalize: GPUs gpu[0..n) are passed through (VFIO)
 * to VM name, whose memory is the len bytes at off from the start of root
 * complex rc's DRAM. finalize then needs every IOMMU translating, and puts
 * the VM's GPUs in one domain of their own that maps that memory and
 * their BARs only. 0 or -SIM_EINVAL (at most 16 VMs of 16 GPUs).
 */
int fab_add_vm(struct fab *f, const char *name, const struct sim_component *rc,
               uint64_t off, uint64_t len, struct sim_component *const *gpu,
               unsigned n, struct sim_error *err);
/* After finalize: VM name's memory's bus address (0: no such VM). */
uint64_t fab_vm_base(const struct fab *f, const char *name);

/* Enumerate, place, route, negotiate. Once; then the machine can run. */
int fab_finalize(struct fab *f, struct sim_error *err);

/*
 * fab_props_parse - props from "key=value key=value" (test and command-line
 * convenience; values may not contain spaces). NULL on a malformed spec.
 * The caller frees with fab_props_free.
 */
struct sim_props *fab_props_parse(const char *owner, const char *spec);
void fab_props_free(struct sim_props *p);

/* ---- queries (after finalize) ------------------------------------------------- */
unsigned fab_n_gpus(const struct fab *f);
struct sim_component *fab_gpu(const struct fab *f, unsigned i);
struct sim_component *fab_find(const struct fab *f, const char *name);
/* How many PCI buses finalize numbered (0 .. n - 1). */
unsigned fab_n_buses(const struct fab *f);

/* Largest payload and read request every hop between a and b supports. */
unsigned fab_path_mps(const struct fab *f, const struct sim_component *a,
                      const struct sim_component *b);

#endif /* P2PSIM_MACHINE_FABRIC_H */
