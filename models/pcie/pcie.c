/*
 * models/pcie/pcie.c - PCIe facts shared by every PCIe model: the
 * generation table, the bytes a TLP occupies on a link, legal widths and
 * payload sizes, the analytic bound of a posted-write stream, the
 * predicates on TLPs that every routing model asks, and the routing-table
 * helpers that switches and root complexes look up.
 *
 * Sources: ../shared/reference/pcie-nvlink.md §2.1 (rates and encodings),
 * §2.2 (header, framing, ECRC, DLLP sizes), §2.3 (MPS, MRRS), §2.11 (the
 * worked efficiency example pcie_write_bound reproduces).
 *
 * Everything here is a pure function of its arguments: no simulation state.
 */
#include <config.h>

#include "models/pcie/pcie.h"

#include <stddef.h>

#include "sim/error.h"
#include "sim/tlp.h"

/* ---- generations and encodings --------------------------------------------
 *
 * Gen1/2 use 8b/10b (PCIe r6.0 §4.2.1), Gen3-5 128b/130b (§4.2.2); both
 * frame each TLP with 8 bytes: Gen1/2 STP 1 + sequence 2 + LCRC 4 + END 1,
 * Gen3-5 a 4-byte STP token (length, frame parity, sequence) + LCRC 4
 * (reference §2.2).
 *
 * Model: Gen6 runs in flit mode only (it is negotiated only when both ends
 * are Gen6, which taking the minimum guarantees). A 256-byte flit carries
 * 236 B of TLP bytes, 6 B of DLP bytes, 8 B of CRC and 6 B of FEC
 * (reference §2.1, [unverified]); we charge the flit overhead as a constant
 * 242/256 fraction of the line and pack TLPs into flits with no per-TLP
 * framing, so the last flit of a burst is never padded and flit-mode
 * header formats (OHC) are taken to be the same size as non-flit headers.
 */
static const struct pcie_gen_info pcie_gens[PCIE_GEN_MAX] = {
    { 1, 2500, PCIE_ENC_8B10B, 8, 10, 8 },
    { 2, 5000, PCIE_ENC_8B10B, 8, 10, 8 },
    { 3, 8000, PCIE_ENC_128B130B, 128, 130, 8 },
    { 4, 16000, PCIE_ENC_128B130B, 128, 130, 8 },
    { 5, 32000, PCIE_ENC_128B130B, 128, 130, 8 },
    { 6, 64000, PCIE_ENC_FLIT, 242, 256, 0 },
};

const struct pcie_gen_info *pcie_gen_info(unsigned gen)
{
    if (gen < PCIE_GEN_MIN || gen > PCIE_GEN_MAX) {
        return NULL;
    }
    return &pcie_gens[gen - 1];
}

/*
 * Rounded down to whole bytes/s: Gen3 x16 carries 15,753,846,153.8 B/s.
 * The link model times bytes from the exact fraction, not from this value.
 */
uint64_t pcie_link_bytes_per_s(unsigned gen, unsigned width_lanes)
{
    const struct pcie_gen_info *g = pcie_gen_info(gen);
    if (!g) {
        return 0;
    }
    __uint128_t bits = (__uint128_t)g->mts_per_lane * 1000000u * width_lanes;
    return (uint64_t)(bits * g->enc_num / ((__uint128_t)8 * g->enc_den));
}

uint32_t pcie_tlp_wire_bytes(unsigned gen, const struct tlp *t)
{
    const struct pcie_gen_info *g = pcie_gen_info(gen);
    SIM_ASSERT(g != NULL, "pcie_tlp_wire_bytes: no PCIe generation %u", gen);
    uint32_t bytes = tlp_header_bytes(t) + pcie_tlp_payload_wire_bytes(t);
    if (t->has_ecrc) {
        bytes += 4; /* ECRC, PCIe r6.0 §2.7 */
    }
    return bytes + g->framing_bytes;
}

/*
 * x1, x2, x4, x8 and x16 only. Earlier revisions also defined x12 and x32,
 * but PCIe 6.0 dropped them [unverified] and no GPU, switch or root port
 * this simulator models trains to them; refusing them catches typos such
 * as "x3" or "x61".
 */
bool pcie_width_is_valid(unsigned width_lanes)
{
    switch (width_lanes) {
    case 1:
    case 2:
    case 4:
    case 8:
    case 16:
        return true;
    default:
        return false;
    }
}

/*
 * rate x enc x mps / (mps + header + framing): reference §2.11. Gen5 x16,
 * MPS 256, 4DW headers: 64 GB/s x 128/130 x 256/280 = 57.6 GB/s.
 */
double pcie_write_bound(unsigned gen, unsigned width_lanes, unsigned mps,
                        bool addr_64)
{
    const struct pcie_gen_info *g = pcie_gen_info(gen);
    if (!g || mps == 0) {
        return 0.0;
    }
    double line = (double)g->mts_per_lane * 1e6 * width_lanes / 8.0;
    double rate = line * g->enc_num / g->enc_den;
    unsigned overhead = (addr_64 ? 16u : 12u) + g->framing_bytes;
    return rate * mps / (double)(mps + overhead);
}

/* ---- TLP predicates ------------------------------------------------------ */

bool pcie_tlp_is_completion(const struct tlp *t)
{
    return tlp_kind_fc_class(t->kind) == TLP_FC_CPL;
}

bool pcie_tlp_is_np_request(const struct tlp *t)
{
    return !pcie_tlp_is_completion(t) && !tlp_is_posted(t);
}

uint16_t pcie_tlp_dest_id(const struct tlp *t)
{
    return pcie_tlp_is_completion(t) ? t->requester_id : t->completer_id;
}

/* ---- routing tables -------------------------------------------------------
 *
 * A route that is not valid (not programmed) claims nothing: a zeroed
 * route would otherwise claim bus 0 (bus_sec == bus_sub == 0).
 */

/* Inline here so that the port scans below do not call per port. */
static inline bool route_claims_addr(const struct pcie_route *r,
                                     uint64_t addr)
{
    if (!r->valid) {
        return false;
    }
    for (unsigned i = 0; i < r->n_windows && i < PCIE_MAX_WINDOWS; i++) {
        if (addr >= r->window[i].base && addr <= r->window[i].limit) {
            return true;
        }
    }
    return false;
}

bool pcie_route_claims_addr(const struct pcie_route *r, uint64_t addr)
{
    return route_claims_addr(r, addr);
}

bool pcie_route_claims_bus(const struct pcie_route *r, unsigned bus)
{
    return r->valid && r->bus_sec <= r->bus_sub && bus >= r->bus_sec &&
           bus <= r->bus_sub;
}

/* Linear scan, O(n x windows): n is a switch's port count (at most tens). */
int pcie_route_find_addr(const struct pcie_route *routes, unsigned n,
                         uint64_t addr, int except)
{
    for (unsigned i = 0; i < n; i++) {
        if ((int)i != except && route_claims_addr(&routes[i], addr)) {
            return (int)i;
        }
    }
    return -1;
}

int pcie_route_find_bus(const struct pcie_route *routes, unsigned n,
                        unsigned bus, int except)
{
    for (unsigned i = 0; i < n; i++) {
        if ((int)i != except && pcie_route_claims_bus(&routes[i], bus)) {
            return (int)i;
        }
    }
    return -1;
}

/* An empty window (limit below base) is refused with -SIM_EINVAL. */
int pcie_route_add_window(struct pcie_route *r, uint64_t base, uint64_t limit)
{
    if (limit < base) {
        return -SIM_EINVAL;
    }
    if (r->n_windows >= PCIE_MAX_WINDOWS) {
        return -SIM_ERANGE;
    }
    r->window[r->n_windows].base = base;
    r->window[r->n_windows].limit = limit;
    r->n_windows++;
    return 0;
}

/* ---- payload sizes ----------------------------------------------------- */

/* 128 << n for n = 0..5 (Device Control, PCIe r6.0 §7.5.3.4). */
bool pcie_size_is_valid(unsigned bytes)
{
    for (unsigned n = 0; n <= 5; n++) {
        if (bytes == 128u << n) {
            return true;
        }
    }
    return false;
}

uint32_t pcie_cpl_split_bytes(uint64_t pos, uint64_t end, unsigned mps,
                              unsigned rcb)
{
    uint64_t stop = pos + mps;
    if (stop >= end) {
        return (uint32_t)(end - pos);
    }
    stop &= ~(uint64_t)(rcb - 1);   /* > pos, since mps >= rcb */
    return (uint32_t)(stop - pos);
}
