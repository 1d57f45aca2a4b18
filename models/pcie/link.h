/*
 * models/pcie/link.h - the PCIe link (kind "pcie-link"): a sim_link that
 * charges each TLP its wire bytes at the negotiated generation and width,
 * returns flow-control credits with UpdateFC DLLPs, sends Ack DLLPs, and
 * adds propagation delay. Both directions are independent (full duplex).
 *
 * Properties (YAML / sim_props):
 *   gen        1..6            upper bound on the generation (default 6)
 *   width      x1..x16 or 1..16 upper bound on the lanes (default x16)
 *   latency    time            propagation + PHY latency one way (default 0ns)
 *   ecrc       bool            TLPs carry a 4-byte ECRC (default false)
 *   ack-every  1..64           TLPs acknowledged per Ack DLLP (default 4)
 * The negotiated speed and width are the minimum of these and of both
 * ends' capabilities (pcie_link_set_end), as link training does.
 */
#ifndef P2PSIM_MODELS_PCIE_LINK_H
#define P2PSIM_MODELS_PCIE_LINK_H

#include <stdint.h>

#include "sim/port.h"
#include "sim/time.h"
#include "sim/tlp.h"

extern const struct sim_link_ops pcie_link_ops;

/*
 * What one end of a link supports and advertises. Credits are what that
 * end's receiver advertises (PCIe r6.0 §2.6.1): header credits count TLPs,
 * data credits count 16-byte units; 0 means infinite. UpdateFC DLLPs carry
 * released credits back to the transmitter.
 */
struct pcie_end_caps {
    unsigned max_gen;           /* 1..6 */
    unsigned max_width;         /* lanes */
    uint32_t cred_hdr[TLP_FC_COUNT];
    uint32_t cred_data[TLP_FC_COUNT];
};

/* Set the caps of the end at side (0 or 1); call before connecting. */
void pcie_link_set_end(struct sim_link *l, unsigned side,
                       const struct pcie_end_caps *caps);

/* Negotiated values (valid once connected). */
unsigned pcie_link_gen(const struct sim_link *l);
unsigned pcie_link_width(const struct sim_link *l);
uint64_t pcie_link_rate(const struct sim_link *l); /* bytes/s per direction */

struct pcie_link_counters {
    uint64_t tlps[2];           /* TLPs sent from side i */
    uint64_t payload_bytes[2];
    uint64_t wire_bytes[2];     /* TLP bytes on the wire from side i */
    uint64_t dllp_bytes[2];     /* DLLP bytes on the wire from side i */
    uint64_t credit_stalls[2];  /* refusals for lack of credit */
    sim_time_t busy_ps[2];      /* time the transmitter of side i was busy */
};

void pcie_link_get_counters(const struct sim_link *l,
                            struct pcie_link_counters *out);

#endif /* P2PSIM_MODELS_PCIE_LINK_H */
