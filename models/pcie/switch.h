/*
 * models/pcie/switch.h - a PCIe switch (kind "pcie-switch"): one upstream
 * port "up" and downstream ports "dp0".."dpN-1", address and ID routing from
 * tables the builder programs, ACS on downstream ports, cut-through latency
 * per hop, and per-egress-port queues that obey the PCIe ordering rules.
 *
 * Properties:
 *   ports      1..64     downstream ports (required)
 *   latency    time      cut-through latency per hop (default 100ns: PEX
 *                        8747/8748 "100 ns max", pcie-nvlink.md §2.8)
 *   queue      TLPs      egress queue depth per port before ingress
 *                        credits stop being returned (default 64)
 */
#ifndef P2PSIM_MODELS_PCIE_SWITCH_H
#define P2PSIM_MODELS_PCIE_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "models/pcie/pcie.h"
#include "sim/time.h"

struct sim_component;
struct tlp;

extern const struct sim_component_ops psw_ops;

/* Routes indexed by port index (port 0 is "up", port i+1 is "dp<i>"). */
struct pcie_route *psw_routes(struct sim_component *sw, unsigned *n_ports);

/*
 * psw_set_acs - ACS control bits (PCI_ACS_*) of downstream port dp, and for
 * Egress Control the vector of downstream ports it may not reach directly
 * (bit j = dp<j>). Returns 0 or -SIM_EINVAL.
 */
int psw_set_acs(struct sim_component *sw, unsigned dp, uint16_t ctrl,
                uint64_t egress_blocked);
uint16_t psw_acs(const struct sim_component *sw, unsigned dp);

/* The switch's own bus number (its upstream port's), for requester IDs of
 * UR completions it generates. */
void psw_set_bus(struct sim_component *sw, unsigned bus);
unsigned psw_bus(const struct sim_component *sw);

/*
 * psw_route - where the switch sends a TLP like t received on port in
 * (its port index), by the same decision psw_receive takes (routing, then
 * the ingress port's ACS); -1 if it would refuse it (UR or drop). A
 * query: nothing is counted or traced. *redirected (may be NULL) tells
 * that ACS sent it upstream instead of to its peer.
 */
int psw_route(const struct sim_component *sw, unsigned in,
              const struct tlp *t, bool *redirected);
/* Whether its ports route AtomicOps (atomic-routing, default yes):
 * without it an AtomicOp that must cross the switch gets UR. */
bool psw_atomic_routing(const struct sim_component *sw);
/* The forwarding latency per hop. */
sim_time_t psw_latency(const struct sim_component *sw);

#endif /* P2PSIM_MODELS_PCIE_SWITCH_H */
