/*
 * machine/p2psim.h - libp2psim, the public C API: open a machine (a machine
 * file or the built-in default), name its GPUs, and ask what the fabric
 * says about a pair (path class, P2P verdict with its rules).
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
#include "machine/trace_sink.h"
#include "models/gpu/gpu.h"
#include "machine/path.h"
#include "machine/topology.h"
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
/*
 * What GPU i is: its catalog entry (topologies/gpus/, struct gpu_info), its
 * copy engines as configured, and its PCI address as the builder
 * enumerated it (machine/fabric.c: domain 0, the secondary bus of the port
 * above it, device 0, function 0). A bad index gives NULL, 0 and
 * -SIM_EINVAL.
 */
const struct gpu_info *p2psim_gpu_info(const struct p2psim *p, unsigned i);
unsigned p2psim_gpu_copy_engines(const struct p2psim *p, unsigned i);
int p2psim_gpu_pci_address(const struct p2psim *p, unsigned i,
                           unsigned *domain, unsigned *bus, unsigned *device,
                           unsigned *function);

int p2psim_path(const struct p2psim *p, unsigned a, unsigned b,
                struct path *out);
int p2psim_p2p(const struct p2psim *p, unsigned a, unsigned b,
               struct p2p_verdict *out);
/* How many NVLink entries (bonded groups) the machine file has. */
unsigned p2psim_nvlink_count(const struct p2psim *p);

/*
 * p2psim_api_cost - the host-side cost of a CUDA runtime call that the
 * machine file sets (`api-costs:`, topologies/SCHEMA.md; enum
 * topo_api_cost names them): true and *ps when it sets cost c, false when
 * it leaves it to the runtime's default (or c is out of range).
 */
bool p2psim_api_cost(const struct p2psim *p, enum topo_api_cost c,
                     sim_time_t *ps);

/* The simulation underneath (for tests, traces and stats). */
struct sim *p2psim_sim(const struct p2psim *p);

/* Graphviz (dot) text of the machine into f. */
int p2psim_write_dot(const struct p2psim *p, FILE *f);

#endif /* P2PSIM_MACHINE_P2PSIM_H */
