/*
 * models/pcie/acs.h - the ACS (Access Control Services) decision for a TLP
 * that enters a downstream-facing port: a switch downstream port or a root
 * port (PCIe r6.0 §6.12; pcie-nvlink.md §2.6, §2.7).
 *
 * The decision is a pure function of the ingress port's ACS Control bits,
 * its Egress Control Vector, its bus range and the TLP, given where normal
 * routing would send the TLP. It keeps no state and has no side effects, so
 * the switch and the root complex share it and tests walk its case table.
 * The full case table, with spec references, is at the top of acs.c.
 *
 * What the verdict means to the caller:
 *
 *              ACS_FORWARD            ACS_REDIRECT           ACS_BLOCK
 *   switch     route normally         send it out "up"       ACS violation:
 *   root port  route normally         through the root       UR completion
 *                                     complex's checks       if non-posted,
 *                                     (IOMMU), then on       drop and record
 *                                                            if posted
 */
#ifndef P2PSIM_MODELS_PCIE_ACS_H
#define P2PSIM_MODELS_PCIE_ACS_H

#include <stdint.h>

struct tlp;

enum acs_verdict {
    ACS_FORWARD,                /* route as normal routing says */
    ACS_REDIRECT,               /* send upstream instead */
    ACS_BLOCK,                  /* refuse: UR (non-posted) or drop (posted) */
};

/* The rule that decided, for counters, traces and "explain" output. */
enum acs_rule {
    ACS_RULE_NONE,              /* no ACS rule applied */
    ACS_RULE_SV,                /* Source Validation failed */
    ACS_RULE_TB,                /* Translation Blocking */
    ACS_RULE_RR,                /* P2P Request Redirect */
    ACS_RULE_CR,                /* P2P Completion Redirect */
    ACS_RULE_EC,                /* P2P Egress Control */
    ACS_RULE_DT,                /* Direct Translated P2P overrode RR/EC */
    ACS_RULE_UF,                /* back to its own port: Upstream Forwarding
                                   sent it up (REDIRECT) or, being off,
                                   left it unroutable (BLOCK) */
    ACS_RULE_COUNT
};

/* Where normal routing would send the TLP, seen from the ingress port. */
enum acs_target {
    ACS_TARGET_UP,              /* upstream, towards the root complex */
    ACS_TARGET_PEER,            /* another downstream port / root port */
    ACS_TARGET_SELF,            /* back out of the port it came in on */
};

/* The ingress port's ACS state. */
struct acs_port {
    uint16_t ctrl;              /* ACS Control register: PCI_ACS_* bits */
    uint64_t egress_blocked;    /* Egress Control Vector: bit j set = peer
                                   port j may not be reached directly */
    uint8_t bus_sec, bus_sub;   /* buses below the port, for SV; the range
                                   is empty when bus_sec > bus_sub */
};

/*
 * acs_check - decide what the ingress port in does with t.
 * @in:     the ingress port's ACS control, egress vector and bus range
 * @t:      the TLP (read only: kind, at, attr, requester_id)
 * @target: where normal routing sends t
 * @peer:   for ACS_TARGET_PEER, the target's bit in the Egress Control
 *          Vector (0..63); ignored otherwise
 * @rule:   if not NULL, gets the rule that decided
 *
 * Returns the verdict. Pure: same inputs, same answer.
 */
enum acs_verdict acs_check(const struct acs_port *in, const struct tlp *t,
                           enum acs_target target, unsigned peer,
                           enum acs_rule *rule);

/* "SV", "RR", ... ("none" for ACS_RULE_NONE). */
const char *acs_rule_name(enum acs_rule r);
/* "forward", "redirect", "block". */
const char *acs_verdict_name(enum acs_verdict v);

#endif /* P2PSIM_MODELS_PCIE_ACS_H */
