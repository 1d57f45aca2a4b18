/*
 * models/pcie/acs.c - the ACS decision for a TLP entering a downstream-facing
 * port (see acs.h). Pure functions: no state, no allocation, no events.
 *
 * Spec: PCIe Base r6.0 §6.12.1.1 (ACS Downstream Ports: SV, TB, RR, CR, UF,
 * EC, DT), §7.7.8 (the ACS Extended Capability, Egress Control Vector),
 * §2.2.4.1 (the AT field); in our words in pcie-nvlink.md §2.6 and §2.7.
 *
 * The picture (a switch; a root port is the same with "up" meaning the root
 * complex's own checks):
 *
 *                 up
 *                  |        REDIRECT: dp0 -> up (and, at the root complex,
 *            +-----+-----+            back down through up to dp1)
 *            |  switch   |  FORWARD:  dp0 -> dp1 directly
 *            +--+-----+--+  BLOCK:    never leaves dp0's ingress
 *               |     |
 *              dp0   dp1
 *
 * The cases and the spec behind each are at acs_check.
 */
#include <config.h>

#include "models/pcie/acs.h"

#include <stdbool.h>

#include "models/pcie/pcie_regs.h"
#include "sim/tlp.h"

static bool is_completion(const struct tlp *t)
{
    return t->kind == TLP_CPL || t->kind == TLP_CPLD ||
           t->kind == TLP_ATS_TCPL;
}

static enum acs_verdict decide(enum acs_verdict v, enum acs_rule r,
                               enum acs_rule *rule)
{
    if (rule) {
        *rule = r;
    }
    return v;
}

/* Rows 1 and 2: the checks every upstream request gets, wherever it goes. */
static bool request_violates(const struct acs_port *in, const struct tlp *t,
                             enum acs_rule *rule)
{
    unsigned bus = t->requester_id >> 8;
    if ((in->ctrl & PCI_ACS_SV) &&
        (bus < in->bus_sec || bus > in->bus_sub)) {
        *rule = ACS_RULE_SV;
        return true;
    }
    if ((in->ctrl & PCI_ACS_TB) &&
        tlp_kind_routing(t->kind) == TLP_ROUTE_ADDR &&
        t->at != TLP_AT_UNTRANSLATED) {
        *rule = ACS_RULE_TB;
        return true;
    }
    return false;
}

/*
 * The cases, in the order they are tested (first match decides). "req" is
 * any TLP other than a completion (memory, atomic and ATS requests, and
 * messages, which PCIe counts as requests); "cpl" is Cpl, CplD and the ATS
 * Translation Completion. A blank column means "any".
 *
 *  #  TLP  target  ctrl bits       TLP fields          verdict   rule  spec
 *  1  req          SV              req bus outside     BLOCK     SV    a
 *                                  [bus_sec, bus_sub]
 *  2  req          TB              addr-routed,        BLOCK     TB    b
 *                                  AT != untranslated
 *  3       UP                                          FORWARD   -
 *  4       SELF    UF                                  REDIRECT  UF    c
 *  5       SELF    no UF                               BLOCK     UF    c
 *  6  req  PEER    DT              AT = translated     FORWARD   DT    d
 *  7  req  PEER    RR                                  REDIRECT  RR    e
 *  8  req  PEER    EC (no RR)      vector bit set      BLOCK     EC    f
 *  9  req  PEER                                        FORWARD   -
 * 10  cpl  PEER    CR              RO clear            REDIRECT  CR    g
 * 11  cpl  PEER                                        FORWARD   -
 *
 * a. §6.12.1.1 ACS Source Validation: the port checks the Bus Number of
 *    the Requester ID of every upstream Request against its secondary..
 *    subordinate range; a mismatch is an ACS Violation. Completions are
 *    never subject to SV.
 * b. §6.12.1.1 ACS Translation Blocking: an upstream Memory Request whose
 *    AT field is not the default (00b, untranslated) is an ACS Violation.
 *    Model: that includes Translation Requests (AT = 01b), which is what
 *    the spec's "not the default value" says; pcie-nvlink.md §2.6 mentions
 *    only translated ones. Linux sets TB only where ATS is off, so the
 *    difference shows only in a misconfigured machine.
 * c. §6.12.1.1 ACS Upstream Forwarding: a TLP that targets the port's own
 *    secondary side (it was redirected up by something below, e.g. a lower
 *    switch) is sent upstream. Without UF a port never routes a TLP back
 *    out of its ingress (bridge inverse decode), so it is unroutable: the
 *    caller answers it as an Unsupported Request.
 * d. §6.12.1.1 ACS Direct Translated P2P: peer-to-peer Memory Requests with
 *    AT = translated are routed directly "regardless of ACS P2P Request
 *    Redirect and ACS P2P Egress Control settings"; all other peer requests
 *    stay subject to RR and EC. [pcie-nvlink.md marks the DT behaviour as
 *    from spec knowledge.]
 * e. §6.12.1.1 ACS P2P Request Redirect: peer-to-peer Requests are sent
 *    upstream, and redirection happens before Egress Control is checked.
 * f. §6.12.1.1 and §7.7.8.4 (Egress Control Vector): a set bit means peer
 *    Requests to that port are "blocked or redirected (if enabled)". Since
 *    RR (row 7) already redirected every peer request it applies to, what
 *    reaches row 8 is blocked: with RR set, EC can change nothing.
 * g. §6.12.1.1 ACS P2P Completion Redirect: peer-to-peer Completions whose
 *    Relaxed Ordering attribute is clear are redirected upstream (so they
 *    stay behind the posted writes that RR sent up before them); RO
 *    completions may go directly. EC and DT apply to Requests only.
 */
enum acs_verdict acs_check(const struct acs_port *in, const struct tlp *t,
                           enum acs_target target, unsigned peer,
                           enum acs_rule *rule)
{
    bool cpl = is_completion(t);
    enum acs_rule why;

    if (!cpl && request_violates(in, t, &why)) {
        return decide(ACS_BLOCK, why, rule);
    }
    switch (target) {
    case ACS_TARGET_UP:
        return decide(ACS_FORWARD, ACS_RULE_NONE, rule);
    case ACS_TARGET_SELF:
        return (in->ctrl & PCI_ACS_UF) ? decide(ACS_REDIRECT, ACS_RULE_UF, rule)
                                       : decide(ACS_BLOCK, ACS_RULE_UF, rule);
    case ACS_TARGET_PEER:
        break;
    }
    if (cpl) {
        if ((in->ctrl & PCI_ACS_CR) && !(t->attr & TLP_ATTR_RO)) {
            return decide(ACS_REDIRECT, ACS_RULE_CR, rule);
        }
        return decide(ACS_FORWARD, ACS_RULE_NONE, rule);
    }
    if ((in->ctrl & PCI_ACS_DT) &&
        tlp_kind_routing(t->kind) == TLP_ROUTE_ADDR &&
        t->at == TLP_AT_TRANSLATED) {
        return decide(ACS_FORWARD, ACS_RULE_DT, rule);
    }
    if (in->ctrl & PCI_ACS_RR) {
        return decide(ACS_REDIRECT, ACS_RULE_RR, rule);
    }
    if ((in->ctrl & PCI_ACS_EC) && peer < 64 &&
        ((in->egress_blocked >> peer) & 1)) {
        return decide(ACS_BLOCK, ACS_RULE_EC, rule);
    }
    return decide(ACS_FORWARD, ACS_RULE_NONE, rule);
}

const char *acs_rule_name(enum acs_rule r)
{
    static const char *const name[ACS_RULE_COUNT] = {
        [ACS_RULE_NONE] = "none", [ACS_RULE_SV] = "SV", [ACS_RULE_TB] = "TB",
        [ACS_RULE_RR] = "RR",     [ACS_RULE_CR] = "CR", [ACS_RULE_EC] = "EC",
        [ACS_RULE_DT] = "DT",     [ACS_RULE_UF] = "UF",
    };
    return (unsigned)r < ACS_RULE_COUNT ? name[r] : "?";
}

const char *acs_verdict_name(enum acs_verdict v)
{
    switch (v) {
    case ACS_FORWARD:
        return "forward";
    case ACS_REDIRECT:
        return "redirect";
    case ACS_BLOCK:
        return "block";
    }
    return "?";
}
