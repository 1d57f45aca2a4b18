/*
 * models/pcie/atomicop.c - AtomicOp validation and application for the
 * memory completers; the rules and their sources are in atomicop.h.
 */
#include <config.h>

#include "models/pcie/atomicop.h"

#include "common/atomic.h"

enum pcie_atomicop_verdict pcie_atomicop_check(const struct tlp *t,
                                               unsigned *operand_bytes,
                                               const char **why)
{
    const char *w = NULL;
    uint32_t len = t->len_bytes;
    unsigned n = t->kind == TLP_CAS ? len / 2 : len;
    enum pcie_atomicop_verdict v = PCIE_ATOMICOP_OK;
    bool len_ok = t->kind == TLP_CAS ? len == 8 || len == 16 || len == 32
                                     : len == 4 || len == 8;
    if (!len_ok) {
        v = PCIE_ATOMICOP_MALFORMED;
        w = "malformed AtomicOp (bad length)";
    } else if (t->addr % n != 0) {
        v = PCIE_ATOMICOP_MALFORMED;
        w = "malformed AtomicOp (misaligned)";
    } else if (n > 8) {
        v = PCIE_ATOMICOP_UNSUPPORTED;
        w = "unsupported AtomicOp size (128-bit CAS)";
    }
    if (v == PCIE_ATOMICOP_OK) {
        *operand_bytes = n;
    } else if (why) {
        *why = w;
    }
    return v;
}

static uint64_t le_load(const uint8_t *b, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        v |= (uint64_t)b[i] << (8 * i);
    }
    return v;
}

static void le_store(uint8_t *b, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++) {
        b[i] = (uint8_t)(v >> (8 * i));
    }
}

bool pcie_atomicop_apply(const struct tlp *t, unsigned n, const uint8_t *old,
                         uint8_t *nv)
{
    if (!t->data) {
        return false;
    }
    enum atom_type type = n == 8 ? ATOM_B64 : ATOM_B32;
    uint64_t v = le_load(old, n);
    uint64_t a = le_load(t->data, n);
    uint64_t r;
    if (t->kind == TLP_FETCHADD) {
        r = atom_apply(ATOM_ADD, type, v, a, 0);
    } else if (t->kind == TLP_SWAP) {
        r = atom_apply(ATOM_EXCH, type, v, a, 0);
    } else {
        /* CAS: compare value first, swap value second */
        r = atom_apply(ATOM_CAS, type, v, le_load(t->data + n, n), a);
    }
    le_store(nv, n, r);
    return true;
}
