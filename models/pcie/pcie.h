/*
 * models/pcie/pcie.h - PCIe facts shared by every PCIe model: generations,
 * encodings and per-TLP wire overhead (one table, one source of truth),
 * requester IDs, and the routing tables that the builder programs into
 * switches and root complexes (machine/fabric.c computes them; the models
 * only look them up).
 *
 * Sources: ../shared/reference/pcie-nvlink.md §2.1 (rates, encodings), §2.2
 * (framing, header, DLLP sizes), §2.3 (MPS, MRRS, RCB).
 */
#ifndef P2PSIM_MODELS_PCIE_PCIE_H
#define P2PSIM_MODELS_PCIE_PCIE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"
#include "sim/tlp.h"

/* ---- generations and encodings --------------------------------------------- */

enum pcie_encoding {
    PCIE_ENC_8B10B,             /* Gen1, Gen2 */
    PCIE_ENC_128B130B,          /* Gen3..Gen5 */
    PCIE_ENC_FLIT,              /* Gen6: 256-byte flits, FEC + CRC */
};

struct pcie_gen_info {
    unsigned gen;               /* 1..6 */
    uint64_t mts_per_lane;      /* mega-transfers per second per lane */
    enum pcie_encoding enc;
    unsigned enc_num, enc_den;  /* payload fraction of the line: 8/10, 128/130, 242/256 */
    unsigned framing_bytes;     /* per TLP: STP/seq/LCRC/END (non-flit) */
};

#define PCIE_GEN_MIN 1
#define PCIE_GEN_MAX 6

/* NULL if gen is out of range. */
const struct pcie_gen_info *pcie_gen_info(unsigned gen);

/* Bytes per second one direction carries at gen x width after encoding. */
uint64_t pcie_link_bytes_per_s(unsigned gen, unsigned width_lanes);

/* Bytes a TLP occupies on the link before encoding: header + payload +
 * ECRC + framing (flit mode: header + payload + ECRC, the flit overhead
 * being in the encoding fraction). */
uint32_t pcie_tlp_wire_bytes(unsigned gen, const struct tlp *t);

/*
 * Payload bytes on the wire: the Length field counts whole DWs, so a
 * payload that starts or ends inside a DW occupies the full DWs it touches
 * (PCIe r6.0 §2.2.2; the byte enables say which bytes count). Requests
 * place the first byte at addr[1:0], completions at Lower Address[1:0].
 * Inline, as the next one: links ask it of every TLP several times.
 */
static inline uint32_t pcie_tlp_payload_wire_bytes(const struct tlp *t)
{
    uint32_t len = tlp_payload_bytes(t);
    if (len == 0) {
        return 0;
    }
    uint32_t offset = 0;
    if (tlp_kind_routing(t->kind) == TLP_ROUTE_ADDR) {
        offset = (uint32_t)(t->addr & 3);
    } else if (tlp_kind_fc_class(t->kind) == TLP_FC_CPL) {
        offset = t->lower_addr & 3u;
    }
    return (offset + len + 3) & ~3u;
}

/*
 * Data credits a TLP consumes: one per 16 bytes (4 DW) of the payload as
 * the Length field counts it, rounded up; 0 for TLPs without data
 * (PCIe r6.0 §2.6.1). Every TLP also takes one header credit of its class.
 */
static inline uint32_t pcie_tlp_data_credits(const struct tlp *t)
{
    return (pcie_tlp_payload_wire_bytes(t) + 15) / 16;
}

/* DLLP size on the wire (6 B + 2 B framing), PCIe r6.0 §3.5. */
#define PCIE_DLLP_BYTES 8u

/* Legal link widths. */
bool pcie_width_is_valid(unsigned width_lanes);

/*
 * pcie_write_bound - the analytic rate (bytes/s of payload) of streaming
 * posted writes of mps bytes at addr_64 (4DW header if true), with
 * neither DLLPs nor SKP ordered sets: the figure tests compare against
 * after subtracting the DLLP share they compute themselves.
 */
double pcie_write_bound(unsigned gen, unsigned width_lanes, unsigned mps,
                        bool addr_64);

/* ---- IDs ------------------------------------------------------------------- */

static inline uint16_t pcie_id(unsigned bus, unsigned dev, unsigned fn)
{
    return (uint16_t)((bus & 0xff) << 8 | (dev & 0x1f) << 3 | (fn & 7));
}
static inline unsigned pcie_id_bus(uint16_t id) { return id >> 8; }

/* ---- TLP predicates shared by the routing models ------------------------ */

/* A completion: Cpl, CplD, or an ATS Translation Completion (§2.2.9). */
bool pcie_tlp_is_completion(const struct tlp *t);

/* A request its requester waits on (non-posted): it gets UR if refused. */
bool pcie_tlp_is_np_request(const struct tlp *t);

/*
 * pcie_tlp_dest_id - the ID an ID-routed TLP goes to: a completion's
 * Requester ID (PCIe r6.0 §2.2.9), or, for an ID-routed message (ATS
 * Invalidate Request and Completion), its destination ID, which PCIe
 * carries in header bytes 8-9 (§2.2.8) and struct tlp in completer_id.
 */
uint16_t pcie_tlp_dest_id(const struct tlp *t);

/* ---- routing tables (programmed by the builder) -------------------------------
 *
 * Every routing model (switch, root complex) keeps one struct pcie_route per
 * port, indexed by the sim_port's index. A downstream-facing port claims the
 * buses [bus_sec, bus_sub] and the address windows below it; the port with
 * is_default set (a switch's upstream port) takes what no other port claims.
 */
#define PCIE_MAX_WINDOWS 8

struct pcie_window {
    uint64_t base;              /* first byte */
    uint64_t limit;             /* last byte (inclusive) */
};

struct pcie_route {
    bool valid;                 /* programmed */
    uint8_t bus_sec, bus_sub;   /* ID routing; empty if bus_sec > bus_sub */
    unsigned n_windows;
    struct pcie_window window[PCIE_MAX_WINDOWS];
};

/* True if addr falls in one of r's windows. */
bool pcie_route_claims_addr(const struct pcie_route *r, uint64_t addr);
/* True if bus is in [bus_sec, bus_sub]. */
bool pcie_route_claims_bus(const struct pcie_route *r, unsigned bus);

/*
 * Index of the port among n whose route claims addr (or bus), skipping
 * port `except`; -1 if none.
 */
int pcie_route_find_addr(const struct pcie_route *routes, unsigned n,
                         uint64_t addr, int except);
int pcie_route_find_bus(const struct pcie_route *routes, unsigned n,
                        unsigned bus, int except);

/* Add a window to r; returns 0 or -SIM_ERANGE when full. */
int pcie_route_add_window(struct pcie_route *r, uint64_t base, uint64_t limit);

/* ---- payload sizes ---------------------------------------------------------- */

/* 128 << n: MPS and MRRS encodings (128..4096). */
bool pcie_size_is_valid(unsigned bytes);

/*
 * pcie_cpl_split_bytes - bytes of the completion that starts at pos for a
 * read ending at end (pos < end), split as PCIe r6.0 §2.3.1.1 allows with
 * the fewest completions: at most mps bytes, and every completion but the
 * last ends on an rcb boundary (rcb <= mps, both powers of two). The
 * completers (host memory, the GPU's BAR1) and the flow fidelity
 * (machine/flow.c) all split with it.
 */
uint32_t pcie_cpl_split_bytes(uint64_t pos, uint64_t end, unsigned mps,
                              unsigned rcb);

#endif /* P2PSIM_MODELS_PCIE_PCIE_H */
