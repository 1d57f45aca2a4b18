/*
 * sim/tlp.h - the transaction layer packet, the unit every model exchanges.
 *
 * Fields are named as the PCIe Base Specification names them (r6.0 §2.2),
 * so a reader maps them one to one. NVLink transactions reuse the same
 * struct: a model that speaks NVLink sets the same kind, address, length
 * and tag, and ignores the PCIe-only fields.
 *
 * Ownership (one owner at all times, stated as libyaml states who deletes
 * what):
 *  - tlp_alloc() gives the caller a TLP; tlp_free() returns it to the pool.
 *  - sim_port_send() that returns 0 takes ownership; on any other return
 *    the caller still owns the TLP.
 *  - a component's receive() gets ownership and must forward, complete,
 *    queue or free every TLP it receives.
 *  - freeing a TLP twice, or sending a freed one, stops the program with a
 *    message (sim_bug), never silent corruption.
 * The payload (data) belongs to the TLP and is freed with it.
 *
 * Timing: not_before lets a sender hand a TLP to a link before it may
 * start on the wire (a switch's forwarding latency) without an event of
 * its own: every link model starts the TLP at max(now, the time the link
 * is free, not_before), then sets not_before back to 0. A refused TLP
 * keeps it. tlp_alloc and tlp_new_completion give 0 (start at once).
 */
#ifndef P2PSIM_SIM_TLP_H
#define P2PSIM_SIM_TLP_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/time.h"

struct sim;
struct sim_link;
struct tlp_pool;

/* Routing of a TLP kind (PCIe r6.0 §2.2.4). */
enum tlp_routing {
    TLP_ROUTE_ADDR,             /* by address: memory requests */
    TLP_ROUTE_ID,               /* by ID: completions, ID-routed messages */
    TLP_ROUTE_IMPLICIT,         /* implicit: broadcast, to root complex */
};

/* Flow-control class (PCIe r6.0 §2.6.1): which credits a TLP consumes. */
enum tlp_fc_class {
    TLP_FC_P = 0,               /* posted: MWr, Msg */
    TLP_FC_NP = 1,              /* non-posted: MRd, AtomicOp, ATS request */
    TLP_FC_CPL = 2,             /* completions */
    TLP_FC_COUNT
};

/*
 * The kinds: X(ENUM, "name", posted, has_data, routing, fc_class).
 * has_data tells whether the TLP carries a payload of len_bytes; for reads
 * len_bytes is the length requested.
 */
#define TLP_KINDS(X)                                                           \
    X(MRD, "MRd", false, false, TLP_ROUTE_ADDR, TLP_FC_NP)                     \
    X(MWR, "MWr", true, true, TLP_ROUTE_ADDR, TLP_FC_P)                        \
    X(CPL, "Cpl", false, false, TLP_ROUTE_ID, TLP_FC_CPL)                      \
    X(CPLD, "CplD", false, true, TLP_ROUTE_ID, TLP_FC_CPL)                     \
    X(MSG, "Msg", true, false, TLP_ROUTE_IMPLICIT, TLP_FC_P)                   \
    X(FETCHADD, "FetchAdd", false, true, TLP_ROUTE_ADDR, TLP_FC_NP)            \
    X(SWAP, "Swap", false, true, TLP_ROUTE_ADDR, TLP_FC_NP)                    \
    X(CAS, "CAS", false, true, TLP_ROUTE_ADDR, TLP_FC_NP)                      \
    X(ATS_TREQ, "TransReq", false, false, TLP_ROUTE_ADDR, TLP_FC_NP)           \
    X(ATS_TCPL, "TransCpl", false, true, TLP_ROUTE_ID, TLP_FC_CPL)             \
    X(ATS_INV_REQ, "InvReq", true, true, TLP_ROUTE_ID, TLP_FC_P)               \
    X(ATS_INV_CPL, "InvCpl", true, false, TLP_ROUTE_ID, TLP_FC_P)

enum tlp_kind {
#define TLP_KIND_ENUM(e, name, posted, data, route, fc) TLP_##e,
    TLP_KINDS(TLP_KIND_ENUM)
#undef TLP_KIND_ENUM
    TLP_KIND_COUNT
};

/* Attr bits (PCIe r6.0 §2.2.6.3, §2.2.6.4). */
#define TLP_ATTR_NS 0x1         /* No Snoop */
#define TLP_ATTR_RO 0x2         /* Relaxed Ordering */
#define TLP_ATTR_IDO 0x4        /* ID-Based Ordering */

/* Address Type (PCIe r6.0 §2.2.4.1, used by ATS). */
#define TLP_AT_UNTRANSLATED 0
#define TLP_AT_TRANS_REQ 1
#define TLP_AT_TRANSLATED 2

/* Completion Status (PCIe r6.0 §2.2.9). */
#define TLP_CPL_SC 0            /* Successful Completion */
#define TLP_CPL_UR 1            /* Unsupported Request */
#define TLP_CPL_CRS 2           /* Configuration Request Retry Status */
#define TLP_CPL_CA 4            /* Completer Abort */

#define TLP_PASID_NONE UINT32_MAX

/*
 * Field order: what every hop touches (the event, the kind and routing
 * fields, the link bookkeeping) lies in the first two 64-byte lines; the
 * struct is line-aligned, so a TLP spans exactly three.
 */
struct tlp {
    struct sim_event ev;        /* scheduling while in flight (owner's use) */
    /* ---- header fields (PCIe names) ---- */
    enum tlp_kind kind;
    uint16_t requester_id;      /* Bus:Device.Function of the requester */
    uint16_t completer_id;      /* completions: who completed */
    uint16_t tag;               /* 10-bit Tag */
    uint8_t tc;                 /* Traffic Class, 0..7 */
    uint8_t attr;               /* TLP_ATTR_* */
    uint8_t at;                 /* TLP_AT_* */
    uint8_t first_be;           /* First DW Byte Enables */
    uint8_t last_be;            /* Last DW Byte Enables */
    uint8_t cpl_status;         /* TLP_CPL_*; a completer must set it */
    uint64_t addr;              /* memory address (byte), requests only */
    uint32_t len_bytes;         /* payload, or bytes requested by a read */
    uint32_t pasid;             /* PASID prefix, or TLP_PASID_NONE */
    bool poisoned;              /* EP bit */
    bool has_ecrc;              /* TD bit: ECRC appended */
    uint16_t lower_addr;        /* completions: low address bits */
    uint32_t byte_count;        /* completions: bytes left incl. this one */
    /* ---- simulator bookkeeping ---- */
    sim_time_t not_before;      /* ps: earliest time the TLP may start on
                                   the next link; 0 = now (see above) */
    struct sim_link *link;      /* link it is on, or whose buffer it holds */
    uint8_t link_side;          /* the end of that link it goes to / sits at */
    bool holding;               /* true: holds link_side's receive buffer */
    uint16_t link_credits;      /* the link model's own: what t consumed on
                                   link, computed once at transmit (PCIe:
                                   data credits, saturating) */
    uint32_t state;             /* TLP_STATE_* (ownership checks) */
    uint32_t hops;              /* links crossed so far */
    uint32_t route_hint;        /* owner-defined (e.g. a routing decision) */
    uint8_t *data;              /* payload bytes, or NULL in timing-only use */
    uint64_t id;                /* unique in the simulation, for traces */
    sim_time_t t_created;       /* ps */
    void *cookie;               /* the originator's context */
    uint32_t data_cap;          /* bytes allocated at data */
    struct tlp_pool *pool;
    struct tlp *pool_next;
} __attribute__((aligned(64)));

#define TLP_STATE_FREE 0xf4eeu
#define TLP_STATE_LIVE 0x1713u

/* ---- kind metadata -------------------------------------------------------
 *
 * One row per kind, built from TLP_KINDS in tlp.c. The lookups below are
 * inline because every model asks them of every TLP at every hop; they
 * index the table without a range check: a TLP's kind comes from
 * tlp_alloc(), which checks it. tlp_kind_name() checks, since it also
 * serves error messages about TLPs that may be corrupt.
 */
struct tlp_kind_info {
    const char *name;
    bool posted;
    bool has_data;
    enum tlp_routing routing;
    enum tlp_fc_class fc;
};

extern const struct tlp_kind_info tlp_kind_table[TLP_KIND_COUNT];

const char *tlp_kind_name(enum tlp_kind k);

static inline bool tlp_kind_is_posted(enum tlp_kind k)
{
    return tlp_kind_table[k].posted;
}

static inline bool tlp_kind_has_data(enum tlp_kind k)
{
    return tlp_kind_table[k].has_data;
}

static inline enum tlp_routing tlp_kind_routing(enum tlp_kind k)
{
    return tlp_kind_table[k].routing;
}

static inline enum tlp_fc_class tlp_kind_fc_class(enum tlp_kind k)
{
    return tlp_kind_table[k].fc;
}

/* An AtomicOp request: FetchAdd, Swap or CAS (PCIe r6.0 §6.15). */
static inline bool tlp_kind_is_atomicop(enum tlp_kind k)
{
    return k == TLP_FETCHADD || k == TLP_SWAP || k == TLP_CAS;
}

static inline bool tlp_is_posted(const struct tlp *t)
{
    return tlp_kind_table[t->kind].posted;
}

/* Not a completion (Cpl, CplD, TransCpl) nor an ATS Invalidate Completion. */
bool tlp_is_request(const struct tlp *t);

/* Bytes of payload on the wire: len_bytes if the kind carries data, else 0. */
static inline uint32_t tlp_payload_bytes(const struct tlp *t)
{
    return tlp_kind_table[t->kind].has_data ? t->len_bytes : 0;
}

/*
 * Header bytes: 12 (3DW) or 16 (4DW; memory requests above 4 GiB, and
 * messages, which always use the 4DW header), plus 4 for a PASID prefix
 * (PCIe r6.0 §2.2.1, §6.20). Inline, though longer than an accessor:
 * every link charges it for every TLP.
 */
static inline uint32_t tlp_header_bytes(const struct tlp *t)
{
    uint32_t hdr = 12;
    if ((tlp_kind_table[t->kind].routing == TLP_ROUTE_ADDR &&
         t->addr > UINT32_MAX) || t->kind == TLP_MSG) {
        hdr = 16;
    }
    if (t->pasid != TLP_PASID_NONE) {
        hdr += 4;
    }
    return hdr;
}

/* ---- pool ------------------------------------------------------------------ */

/* A zeroed TLP of kind k, with a fresh id, t_created = now, no payload. */
struct tlp *tlp_alloc(struct sim *sim, enum tlp_kind k);

/*
 * tlp_data_alloc - give t a payload buffer of len bytes (contents
 * undefined). Returns 0 or -SIM_ENOMEM. A previous buffer is reused if big
 * enough.
 */
int tlp_data_alloc(struct tlp *t, uint32_t len);

/* Return t (and its payload) to the pool; releases a held receive buffer. */
void tlp_free(struct tlp *t);

/*
 * tlp_new_completion - a completion for req: Cpl if len is 0, CplD
 * otherwise; requester_id, tag, tc and attr are copied from the request so
 * they cannot be mistyped. ATS translation requests get ATS_TCPL.
 */
struct tlp *tlp_new_completion(struct sim *sim, const struct tlp *req,
                               uint8_t status, uint32_t len);

/* TLPs allocated and not yet freed. */
uint64_t tlp_pool_live(const struct sim *sim);

#endif /* P2PSIM_SIM_TLP_H */
