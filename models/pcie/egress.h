/*
 * models/pcie/egress.h - the ordered egress queue of a PCIe port, shared
 * by the switch (switch.c) and the root complex (rc.c): it decides, in
 * O(1), which queued TLP to offer to the egress link next so that the
 * PCIe ordering rules hold (PCIe r6.0 §2.4.1, Table 2-40).
 *
 * Three FIFOs, one per flow-control class (P, NP, CPL). Every TLP gets a
 * sequence number from the queue at push. An NP or CPL TLP also records
 * its fence: the sequence number of the latest P TLP pushed before it
 * from the same ingress stream (ingress port and Traffic Class), or 0 if
 * none; a CPL with Relaxed Ordering has no fence. It may leave once every
 * P up to its fence has left; P TLPs leave in sequence order, so that is
 * "the P FIFO is empty or its head is newer than the fence". Among the
 * heads that may leave, and whose class the link has not refused since
 * the last ready(), the oldest is offered.
 *
 * Ownership: the queue holds pointers; the caller owns the TLPs, takes the
 * offered one back with pcie_egress_pop() once the link accepted it, and
 * frees nothing through the queue.
 *
 * Buffering: the first buffer_tlps TLPs of the queue, in push order,
 * release the receive buffer (ingress credits) they hold; the others keep
 * holding it until one of the first leaves (sim/port.h). 0 models a port
 * without egress buffering: every queued TLP holds its ingress credits.
 */
#ifndef P2PSIM_MODELS_PCIE_EGRESS_H
#define P2PSIM_MODELS_PCIE_EGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/tlp.h"

struct sim_port;

/* Traffic Classes per ingress stream (TC0..TC7). */
#define PCIE_EGRESS_TCS 8u

/* A queued TLP. */
struct pcie_egress_entry {
    struct tlp *t;
    uint64_t seq;               /* push order within the queue, from 1 */
    uint64_t fence;             /* NP, CPL: seq of the P it waits for, or 0 */
};

/*
 * One class's FIFO: a ring addressed by absolute positions (they never
 * wrap in practice: 2^64 pushes). [head, tail) are queued; [head, hold)
 * have released their ingress credits, [hold, tail) still hold them.
 */
struct pcie_egress_fifo {
    struct pcie_egress_entry *slot;
    uint64_t head, hold, tail;
    uint32_t cap;               /* 0 or a power of two */
};

struct pcie_egress {
    struct pcie_egress_fifo fifo[TLP_FC_COUNT];
    uint64_t next_seq;          /* the next push gets this */
    uint64_t *last_p;           /* per stream and TC: seq of the latest P */
    unsigned n_streams;         /* ingress streams (ports, plus own TLPs) */
    uint32_t buffer_tlps;       /* TLPs that release their ingress credits */
    uint32_t count;             /* TLPs queued */
    uint32_t buffered;          /* of which released: min(count, buffer) */
    uint8_t refused;            /* bit per tlp_fc_class refused since the
                                   last ready() */
    bool draining, redrain;     /* re-entry guard of pcie_egress_drain() */
    /* statistics */
    uint64_t tlps_out, bytes_out;
};

/*
 * pcie_egress_init - an empty queue for n_streams ingress streams (stream
 * numbers 0..n_streams-1), whose first buffer_tlps TLPs release their
 * ingress credits. Returns 0 or -SIM_ENOMEM.
 */
int pcie_egress_init(struct pcie_egress *q, unsigned n_streams,
                     uint32_t buffer_tlps);

/* Free the rings. TLPs still queued are the caller's (not freed). */
void pcie_egress_fini(struct pcie_egress *q);

/*
 * pcie_egress_push - queue t, which came in on ingress stream `stream`.
 * May release t's ingress credits (buffering above). Returns 0 or
 * -SIM_ENOMEM (t is not queued and still holds what it held).
 */
int pcie_egress_push(struct pcie_egress *q, struct tlp *t, unsigned stream);

/*
 * pcie_egress_next - the TLP to offer now, or NULL: the oldest of the
 * class heads that the ordering rules let leave and whose class is not
 * refused. *cls is its class, for pcie_egress_pop or pcie_egress_refuse.
 * The TLP stays queued. O(1).
 */
struct tlp *pcie_egress_next(const struct pcie_egress *q,
                             enum tlp_fc_class *cls);

/*
 * pcie_egress_pop - remove the head of class cls (the TLP that next()
 * offered, which the link took). If it had released its credits, the
 * oldest TLP still holding them takes its buffer slot and releases them.
 */
void pcie_egress_pop(struct pcie_egress *q, enum tlp_fc_class cls);

/* The link refused class cls: next() skips it until pcie_egress_ready(). */
static inline void pcie_egress_refuse(struct pcie_egress *q,
                                      enum tlp_fc_class cls)
{
    q->refused |= (uint8_t)(1u << cls);
}

/* The link called ready(): every class may be offered again. */
static inline void pcie_egress_ready(struct pcie_egress *q)
{
    q->refused = 0;
}

/*
 * pcie_egress_drain - offer the queue to port, in the order next() gives,
 * until it is empty or the link refuses every class left; counts what
 * left in tlps_out and bytes_out. A link that calls back (ready()) while
 * a send is under way makes the running drain go round again instead of
 * nesting. Returns the number of TLPs that left in this call. Sending on
 * an unconnected port is a bug of the caller (routing rules it out).
 */
unsigned pcie_egress_drain(struct pcie_egress *q, struct sim_port *port);

/*
 * pcie_egress_send - push t (from ingress stream `stream`) and drain the
 * queue to port: the same as pcie_egress_push then pcie_egress_drain, but
 * a TLP that finds the queue empty and its link willing goes straight to
 * the link. Returns the number of TLPs that left, or -SIM_ENOMEM (t is
 * not queued and still holds what it held).
 */
int pcie_egress_send(struct pcie_egress *q, struct tlp *t, unsigned stream,
                     struct sim_port *port);

static inline uint32_t pcie_egress_count(const struct pcie_egress *q)
{
    return q->count;
}

#endif /* P2PSIM_MODELS_PCIE_EGRESS_H */
