/*
 * models/pcie/rc.h - a root complex (kind "root-complex"): the host bridge
 * of one socket with root ports "rp0".."rpN-1", a port "mem" to the
 * socket's host memory and peer ports "xs0".."xsK-1" to other sockets'
 * root complexes (through socket links). Requests entering from a root
 * port pass the IOMMU, then go to host memory, to another root port (the
 * P2P policy decides), or across a socket link (the cross-socket policy
 * decides).
 *
 * Properties:
 *   root-ports      1..32                       (required)
 *   socket-links    0..7                        (default 0)
 *   latency         time   forwarding latency through the RC (default 150ns)
 *   p2p             forward | writes-only | refuse   (default forward)
 *   p2p-bandwidth   rate   shared rate of root-port-to-root-port traffic
 *                          (default: unlimited)
 *   p2p-latency     time   extra latency of a P2P hop (default 0ns)
 *   xsocket-p2p     forward | writes-only | refuse   (default forward)
 *   xsocket-p2p-bandwidth  rate  shared rate of P2P traffic between this
 *                          socket's root ports and other sockets: requests
 *                          from a socket link to a root port, completions
 *                          from a root port to a socket link (so each
 *                          cross-socket P2P TLP is charged once, by the
 *                          socket of its target); host-memory traffic is
 *                          not charged (default: unlimited)
 *   iommu           off | passthrough | translating  (default off)
 *   iotlb-entries, iotlb-hit-latency, iotlb-miss-latency, iommu-page, ats
 * The cross-socket policy is applied by the socket that owns the target
 * (only it can tell its devices from its DRAM), so DMA to another socket's
 * memory is never refused by it; the sender's IOMMU still checks.
 * A refused request gets an Unsupported Request completion (non-posted) or
 * is dropped and recorded (posted), as PCIe r6.0 §2.3.1 says.
 */
#ifndef P2PSIM_MODELS_PCIE_RC_H
#define P2PSIM_MODELS_PCIE_RC_H

#include <stdbool.h>
#include <stdint.h>

#include "models/pcie/pcie.h"
#include "sim/time.h"

struct sim_component;
struct tlp;
struct iommu;

extern const struct sim_component_ops rc_ops;

enum rc_p2p_policy { RC_P2P_FORWARD, RC_P2P_WRITES_ONLY, RC_P2P_REFUSE };

/*
 * Routes by port index: rp<i> is port i, "mem" is port n_rp, xs<k> is
 * port n_rp + 1 + k. The builder gives each root port its buses and
 * windows, "mem" the socket's DRAM window, each xs port the windows and
 * buses reached through it.
 */
struct pcie_route *rc_routes(struct sim_component *rc, unsigned *n_ports);
unsigned rc_n_root_ports(const struct sim_component *rc);

struct iommu *rc_iommu(struct sim_component *rc);
enum rc_p2p_policy rc_p2p_policy(const struct sim_component *rc);
/* Whether AtomicOps are routed to a root port from another root port or a
 * socket link (p2p-atomics, default no: an AtomicOp to a peer gets UR). */
bool rc_p2p_atomics(const struct sim_component *rc);
enum rc_p2p_policy rc_xsocket_policy(const struct sim_component *rc);
/* xsocket-p2p-bandwidth in bytes/s (0 = unlimited). */
uint64_t rc_xsocket_rate(const struct sim_component *rc);

/* ACS control bits of root port rp (PCI_ACS_*). */
int rc_set_acs(struct sim_component *rc, unsigned rp, uint16_t ctrl);
uint16_t rc_acs(const struct sim_component *rc, unsigned rp);

struct rc_counters {
    uint64_t p2p_forwarded, p2p_refused, xsocket_forwarded, xsocket_refused;
    uint64_t to_memory, unsupported, iommu_faults;
};
void rc_get_counters(const struct sim_component *rc, struct rc_counters *out);

/*
 * rc_route - where the root complex sends a TLP like t received on port
 * in, by the decisions rc_receive takes (ACS SV/TB on a root port, the
 * IOMMU, routing by address or ID, the P2P and cross-socket policies).
 * With translate, the IOMMU checks t now as it would check that TLP (the
 * IOTLB is updated, a refusal is recorded as a fault) and its cost joins
 * the latency; without, the IOMMU is not asked. Nothing else is counted,
 * and the P2P serialiser is not charged. Returns 0, or -SIM_EIO when the
 * TLP would be refused (out->why says why), -SIM_EINVAL for a bad port.
 */
struct rc_hop {
    int egress;                 /* port index, or -1 */
    const char *why;            /* the refusal, or NULL */
    sim_time_t latency_ps;      /* latency (+ IOMMU cost) */
    bool p2p;                   /* it crosses the P2P serialiser... */
    uint64_t p2p_rate;          /* ...at this rate (0 = unlimited) */
    sim_time_t p2p_latency_ps;  /* ...and then waits p2p-latency */
    bool xs;                    /* it crosses the cross-socket P2P
                                   serialiser... */
    uint64_t xs_rate;           /* ...at this rate (0 = unlimited) */
};
int rc_route(struct sim_component *rc, unsigned in, const struct tlp *t,
             bool translate, struct rc_hop *out);
/*
 * rc_iommu_range - what the IOMMU says of a stream of requests like t
 * (its kind and requester) covering [addr, addr + len), received on port
 * in: checked in order, 4 KiB at a time (the most one TLP covers), each
 * step as rc_receive checks a TLP (the IOTLB updated, a refusal recorded
 * as a fault). *first_ps and *last_ps: the cost of the first and the last
 * step (on a refusal, the refused one's). Returns 0 (also when the IOMMU
 * does not check such requests), or -SIM_EIO at the first refused step,
 * where checking stops.
 */
int rc_iommu_range(struct sim_component *rc, unsigned in, const struct tlp *t,
                   uint64_t addr, uint64_t len, sim_time_t *first_ps,
                   sim_time_t *last_ps);
/* Bytes of t the P2P serialiser charges: header + payload. */
uint32_t rc_p2p_bytes(const struct tlp *t);

#endif /* P2PSIM_MODELS_PCIE_RC_H */
