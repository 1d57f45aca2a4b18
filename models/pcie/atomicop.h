/*
 * models/pcie/atomicop.h - the completer's side of PCIe AtomicOps
 * (FetchAdd, Swap, CAS), one implementation for every memory completer
 * (the GPU's BAR1, host memory): is the request well formed and of a
 * size this completer takes, and what it leaves in memory. The arithmetic
 * is common/atomic.h's (integer add wraps at the operand's width).
 *
 * The rules (PCIe r6.0 §2.2.7, §6.15; ../shared/reference/pcie-nvlink.md
 * §2.5):
 *  - FetchAdd and Swap carry one operand of 1 or 2 DW (32 or 64 bit);
 *    CAS carries two, compare then swap (2, 4 or 8 DW in all). Any other
 *    length is a Malformed TLP.
 *  - The address is naturally aligned to the operand size (for CAS, the
 *    size of one operand); otherwise the TLP is Malformed.
 *  - An operand size the completer does not support is an Unsupported
 *    Request. These completers support 32 and 64 bit, not 128-bit CAS.
 *  - Operands and memory are little-endian; the completion carries the
 *    original value.
 * Model: a Malformed AtomicOp is answered with UR as well (the model
 * reports no errors and has no completion timeout; the requester sees an
 * error completion either way).
 */
#ifndef P2PSIM_MODELS_PCIE_ATOMICOP_H
#define P2PSIM_MODELS_PCIE_ATOMICOP_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/tlp.h"

enum pcie_atomicop_verdict {
    PCIE_ATOMICOP_OK,
    PCIE_ATOMICOP_MALFORMED,    /* a length or alignment the spec forbids */
    PCIE_ATOMICOP_UNSUPPORTED,  /* well formed; a size not supported here */
};

/*
 * Checks AtomicOp t (kind FETCHADD, SWAP or CAS). OK: *operand_bytes is 4
 * or 8. Otherwise *why (if not NULL) says what is wrong, for a trace
 * ("malformed AtomicOp (misaligned)").
 */
enum pcie_atomicop_verdict pcie_atomicop_check(const struct tlp *t,
                                               unsigned *operand_bytes,
                                               const char **why);

/*
 * The n operand bytes a checked AtomicOp t leaves in a location that held
 * old (n bytes): written to nv. False, nv untouched, when t carries no
 * payload (a timing-only run): memory keeps its value.
 */
bool pcie_atomicop_apply(const struct tlp *t, unsigned n, const uint8_t *old,
                         uint8_t *nv);

#endif
