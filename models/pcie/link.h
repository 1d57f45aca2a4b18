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
 *   ber        number in [0,1) bit error rate of each direction's wire
 *                              (default 0: no errors). Above 0, TLPs hit
 *                              by an error fail their LCRC, are Nak'ed and
 *                              replayed with every TLP behind them (the
 *                              Data Link Layer's retry, link_replay.c), drawn
 *                              from the simulation's seeded RNG
 *   replay-timer time          REPLAY_TIMER: when a lost Nak is made up
 *                              for (default 3 x ack-every 284-byte TLPs'
 *                              serialisation + the round trip)
 *   drop       none|posted|np|cpl  fault injection, for tests: the
 *                              receivers lose every TLP of that class
 *                              (credits returned, a tlp.drop record), as
 *                              a broken component would (default none)
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
    uint64_t replays[2];        /* replays by side i's transmitter (ber) */
    uint64_t replay_bytes[2];   /* TLP wire bytes it sent again */
    uint64_t retrains[2];       /* REPLAY_NUM rollovers (retraining) */
};

void pcie_link_get_counters(const struct sim_link *l,
                            struct pcie_link_counters *out);

/* ---- costs, for the flow fidelity (machine/flow.c) ---------------------------
 * The figures the link charges, exposed so that a model of whole
 * transfers (flows) charges the same: the one-way latency, the bytes a
 * TLP occupies on the wire at the negotiated generation (framing, header,
 * payload in whole DWs, ECRC), the time to serialise bytes, and the DLLP
 * bytes the far end sends back per TLP.
 */
sim_time_t pcie_link_latency(const struct sim_link *l);
uint32_t pcie_link_tlp_bytes(const struct sim_link *l, const struct tlp *t);
sim_time_t pcie_link_bytes_time(const struct sim_link *l, uint64_t bytes);
/*
 * pcie_link_dllp_bytes - DLLP bytes that the end opposite `from` sends on
 * its transmitter for each TLP like t it receives from `from`, when that
 * transmitter is busy: its share of an Ack (one per ack-every TLPs) and,
 * if the receiver advertised finite credits of t's class, its share of an
 * UpdateFC. An UpdateFC waits behind the transmitter's backlog, and the
 * credits released meanwhile ride on it (plink_fc_send); interval_bytes
 * is what that transmitter sends between two arrivals of such TLPs, so
 * one UpdateFC serves 1 + (backlog / interval_bytes) of them.
 * Model: the backlog a DLLP finds behind a busy transmitter is taken as
 * half the transmit queue bound (PLINK_TXQ_BYTES / 2), its average as a
 * sender refills it.
 */
double pcie_link_dllp_bytes(const struct sim_link *l, unsigned from,
                            const struct tlp *t, double interval_bytes);
/*
 * pcie_link_credits - the credits the receiver at !from advertised for
 * TLPs of class c: header credits (*hdr, TLPs) and data credits (*data,
 * in bytes: 16 per credit); 0 where they are infinite.
 */
void pcie_link_credits(const struct sim_link *l, unsigned from,
                       enum tlp_fc_class c, uint64_t *hdr, uint64_t *data);
/*
 * pcie_link_credit_rtt - how long a TLP like t keeps its credits: its
 * serialisation, the latency, hold_ps (how long the receiver keeps the
 * TLP's buffer: 0 for an endpoint, a switch with room in its egress
 * buffer or a root complex forwarding at once; a root complex's decision
 * time when the TLP waits in it), an UpdateFC's serialisation and the
 * latency back. A stream is then bounded by credits / round trip.
 */
sim_time_t pcie_link_credit_rtt(const struct sim_link *l, const struct tlp *t,
                                sim_time_t hold_ps);

#endif /* P2PSIM_MODELS_PCIE_LINK_H */
