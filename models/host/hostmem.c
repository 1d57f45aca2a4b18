/*
 * models/host/hostmem.c - host DRAM of one socket (kind "host-memory"): a
 * completer for memory reads, writes and AtomicOps on its port "up",
 * backed by a sparse store (models/mem/sparse.h).
 *
 *   root complex "mem" ---- "up" [ channel: bandwidth ] -> sparse store
 *                                  access latency for reads
 *
 * Data move when a request arrives (writes land, reads and AtomicOps
 * sample the store); the request then occupies the one memory channel
 * for its bytes at `bandwidth`, and a completion leaves `latency` after
 * the channel has read its data (hmem_write, hmem_read and hmem_atomic
 * say how for each kind). Anything outside [base, base + size), a malformed
 * AtomicOp or a 128-bit CAS (models/pcie/atomicop.h): Unsupported
 * Request, a Cpl with UR status for non-posted requests, a recorded drop
 * for a posted one (PCIe r6.0 §2.3.1). Completions leave in the order
 * they were produced (each due no earlier than the one before), through a
 * queue that retries after a refusal.
 *
 * Not modelled: DRAM banks, pages and refresh (one channel, one latency),
 * byte enables (whole payloads are written), poisoned data, coherence
 * with CPU caches, NUMA interleaving.
 */
#include <config.h>

#include "models/host/hostmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/mem/sparse.h"
#include "models/pcie/atomicop.h"
#include "models/pcie/pcie.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/tlp.h"
#include "sim/trace.h"

#define HMEM_DEFAULT_LATENCY SIM_NS(100)
#define HMEM_DEFAULT_RATE UINT64_C(100000000000)   /* 100 GB/s */
#define HMEM_DEFAULT_RCB 64u
#define HMEM_DEFAULT_MPS 256u

/* A completion waiting for its time, or for room on the link. */
struct hmem_out {
    struct tlp *t;
    sim_time_t due_ps;
};

struct hmem_counters {
    uint64_t reads, writes, atomics;
    uint64_t bytes_read, bytes_written;
    uint64_t completions, unsupported;
};

struct hmem {
    struct sim_component *self;
    struct sim_port *up;
    /* configuration */
    uint64_t base;              /* bus address of byte 0 */
    uint64_t size;              /* bytes */
    uint16_t id;                /* completer ID */
    sim_time_t latency_ps;      /* read access latency */
    uint64_t rate_bytes_per_s;  /* channel rate; 0 = unlimited */
    unsigned rcb_bytes;         /* 64 or 128 */
    unsigned mps_bytes;         /* 128..4096, power of two */
    struct mem_sparse *store;
    /* modelling state */
    sim_time_t busy_until;      /* channel free at, ps */
    sim_time_t last_due;        /* due time of the newest completion */
    struct hmem_out *q;         /* ring of completions, due_ps rising */
    uint32_t q_head, q_n, q_cap;
    struct sim_event timer;     /* fires at the head completion's due time */
    struct hmem_counters cnt;
};

static struct hmem *hmem_from(const struct sim_component *c)
{
    return sim_component_state(c);
}

/* ---- the completion queue ------------------------------------------------ */

static void hmem_pump(struct hmem *h)
{
    struct sim *sim = h->self->sim;
    sim_time_t now = sim_now(sim);
    while (h->q_n > 0) {
        struct hmem_out *o = &h->q[h->q_head];
        if (o->due_ps > now) {
            if (!sim_event_is_pending(&h->timer)) {
                sim_event_schedule_at(sim, &h->timer, o->due_ps);
            }
            return;
        }
        int rc = sim_port_send(h->up, o->t);
        if (rc == -SIM_EAGAIN) {
            return;             /* ready() follows */
        }
        if (rc < 0) {
            tlp_free(o->t);     /* not connected: nobody to answer */
        }
        h->q_head = (h->q_head + 1) & (h->q_cap - 1);
        h->q_n--;
    }
}

static void hmem_timer(struct sim *sim, struct sim_event *ev)
{
    hmem_pump(SIM_CONTAINER_OF(ev, struct hmem, timer));
}

static void hmem_ready(struct sim_component *c, struct sim_port *out)
{
    hmem_pump(hmem_from(c));
}

/* Queue cpl to leave at due_ps (or after the previous one). */
static void hmem_complete(struct hmem *h, struct tlp *cpl, sim_time_t due_ps)
{
    if (h->q_n == h->q_cap) {
        uint32_t cap = h->q_cap ? h->q_cap * 2 : 64;
        struct hmem_out *q = malloc(cap * sizeof(*q));
        if (!q) {
            tlp_free(cpl);
            sim_component_nomem(h->self, "its completion queue");
            return;
        }
        for (uint32_t i = 0; i < h->q_n; i++) {
            q[i] = h->q[(h->q_head + i) & (h->q_cap - 1)];
        }
        free(h->q);
        h->q = q;
        h->q_cap = cap;
        h->q_head = 0;
    }
    if (due_ps < h->last_due) {
        due_ps = h->last_due;
    }
    h->last_due = due_ps;
    cpl->completer_id = h->id;
    h->q[(h->q_head + h->q_n) & (h->q_cap - 1)] =
        (struct hmem_out){ .t = cpl, .due_ps = due_ps };
    h->q_n++;
    h->cnt.completions++;
    if (h->q_n == 1) {
        hmem_pump(h);
    }
}

/* ---- requests ------------------------------------------------------------ */

static bool hmem_claims(const struct hmem *h, uint64_t addr, uint64_t len)
{
    return addr >= h->base && addr - h->base <= h->size &&
           len <= h->size - (addr - h->base);
}

/* Occupy the channel for bytes; returns when the transfer starts. */
static sim_time_t hmem_charge(struct hmem *h, uint64_t bytes)
{
    sim_time_t now = sim_now(h->self->sim);
    sim_time_t start = h->busy_until > now ? h->busy_until : now;
    sim_time_t busy = sim_time_for_bytes(bytes, h->rate_bytes_per_s);
    h->busy_until = sim_time_add(start, busy);
    return start;
}

static void hmem_trace(struct hmem *h, enum sim_trace_point p,
                       const struct tlp *t, const char *msg)
{
    sim_trace_component(h->self, p, h->up->name, t, t->addr, t->len_bytes,
                        msg);
}

/* Unsupported Request: UR completion for non-posted, drop for posted. */
static void hmem_unsupported(struct hmem *h, struct tlp *t, const char *why)
{
    h->cnt.unsupported++;
    if (tlp_is_posted(t)) {
        hmem_trace(h, SIM_TP_TLP_DROP, t, why);
    } else {
        hmem_trace(h, SIM_TP_MODEL, t, why);
        struct tlp *cpl = tlp_new_completion(h->self->sim, t, TLP_CPL_UR, 0);
        if (!cpl) {
            sim_component_nomem(h->self, "a completion");
        } else {
            hmem_complete(h, cpl, sim_now(h->self->sim));
        }
    }
    tlp_free(t);
}

static void hmem_write_done(struct sim *sim, struct sim_event *ev)
{
    tlp_free(SIM_CONTAINER_OF(ev, struct tlp, ev));
}

/*
 * MWr: the payload is written into the store on arrival (functional
 * data moves when the TLP is delivered), the write occupies the memory
 * channel for its payload bytes at `bandwidth`, and the TLP is kept
 * until then, so it holds its receive buffer on the link and a stream
 * of writes faster than the memory is pushed back to the sender.
 */
static void hmem_write(struct hmem *h, struct tlp *t)
{
    if (!hmem_claims(h, t->addr, t->len_bytes)) {
        hmem_unsupported(h, t, "host memory: write outside the DRAM range");
        return;
    }
    if (t->data && t->len_bytes) {
        int rc = mem_sparse_write(h->store, t->addr - h->base, t->data,
                                  t->len_bytes);
        SIM_ASSERT(rc == 0 || rc == -SIM_ENOMEM,
                   "host memory %s: store write failed (%d)", h->self->name,
                   rc);
        if (rc < 0) {
            sim_component_nomem(h->self, "a page of its store");
            tlp_free(t);
            return;
        }
    }
    h->cnt.writes++;
    h->cnt.bytes_written += t->len_bytes;
    hmem_charge(h, t->len_bytes);
    /* Hold t (and its receive buffer) until the channel has taken it. */
    sim_event_init(&t->ev, hmem_write_done);
    sim_event_schedule_at(h->self->sim, &t->ev, h->busy_until);
}

/* Bytes of the completion starting at pos for a read ending at end. */
static uint32_t hmem_cpl_bytes(const struct hmem *h, uint64_t pos,
                               uint64_t end)
{
    return pcie_cpl_split_bytes(pos, end, h->mps_bytes, h->rcb_bytes);
}

/*
 * MRd: the data is read from the store on arrival (a later write
 * cannot leak into an earlier read), the read occupies the channel for
 * its bytes, and the completions leave `latency` after the channel
 * reaches each one's last byte. They are split as PCIe r6.0 §2.3.1.1
 * says (reference §2.3): the first ends at the request end or at an
 * RCB-aligned address, every one carries at most MPS bytes, the middle
 * ones are whole RCBs. Of the legal splits this takes the one with the
 * fewest completions (the memory controller coalesces RCB pieces into
 * MPS-sized completions, Xilinx PG213), so RCB 128, MPS 128, 200 bytes
 * at 0x60 gives 32, 128 and 40 bytes; with MPS 256 it is one
 * completion, and 512 bytes at 0x60 give 160, 256 and 96.
 */
static void hmem_read(struct hmem *h, struct tlp *t)
{
    struct sim *sim = h->self->sim;
    if (!hmem_claims(h, t->addr, t->len_bytes)) {
        hmem_unsupported(h, t, "host memory: read outside the DRAM range");
        return;
    }
    h->cnt.reads++;
    h->cnt.bytes_read += t->len_bytes;
    sim_time_t start = hmem_charge(h, t->len_bytes);
    if (t->len_bytes == 0) {
        /* Model: a zero-length read (a flush) gets one Cpl, no data. */
        struct tlp *cpl = tlp_new_completion(sim, t, TLP_CPL_SC, 0);
        if (!cpl) {
            sim_component_nomem(h->self, "a completion");
        } else {
            hmem_complete(h, cpl, sim_time_add(start, h->latency_ps));
        }
        tlp_free(t);
        return;
    }
    uint64_t pos = t->addr, end = t->addr + t->len_bytes;
    while (pos < end) {
        uint32_t n = hmem_cpl_bytes(h, pos, end);
        struct tlp *cpl = tlp_new_completion(sim, t, TLP_CPL_SC, n);
        if (!cpl || tlp_data_alloc(cpl, n) < 0) {
            if (cpl) {
                tlp_free(cpl);
            }
            sim_component_nomem(h->self, "a completion");
            break;
        }
        cpl->byte_count = (uint32_t)(end - pos);
        cpl->lower_addr = (uint16_t)(pos & 0x7f);
        int rc = mem_sparse_read(h->store, pos - h->base, cpl->data, n);
        SIM_ASSERT(rc == 0, "host memory %s: store read failed (%d)",
                   h->self->name, rc);
        pos += n;
        sim_time_t ready = sim_time_add(
            start, sim_time_for_bytes(pos - t->addr, h->rate_bytes_per_s));
        hmem_complete(h, cpl, sim_time_add(ready, h->latency_ps));
    }
    tlp_free(t);
}

/*
 * FetchAdd, Swap, CAS (32- and 64-bit operands; checked and applied by
 * models/pcie/atomicop.c): done on the store on arrival; one CplD with
 * the original value leaves `latency` after the operand is read; the
 * channel carries the operand twice (read, write back).
 * The PCIe rules: a malformed or 128-bit one gets UR.
 */
static void hmem_atomic(struct hmem *h, struct tlp *t)
{
    struct sim *sim = h->self->sim;
    unsigned n;
    const char *why;
    if (pcie_atomicop_check(t, &n, &why) != PCIE_ATOMICOP_OK) {
        char what[80];
        snprintf(what, sizeof(what), "host memory: %s", why);
        hmem_unsupported(h, t, what);
        return;
    }
    if (!hmem_claims(h, t->addr, n)) {
        hmem_unsupported(h, t, "host memory: AtomicOp outside the DRAM range");
        return;
    }
    uint64_t off = t->addr - h->base;
    uint8_t old[8], nv[8];
    int rc = mem_sparse_read(h->store, off, old, n);
    SIM_ASSERT(rc == 0, "host memory %s: store read failed", h->self->name);
    /* Model: without payload bytes (timing-only use) nothing changes. */
    if (pcie_atomicop_apply(t, n, old, nv)) {
        rc = mem_sparse_write(h->store, off, nv, n);
        SIM_ASSERT(rc == 0 || rc == -SIM_ENOMEM,
                   "host memory %s: store write failed", h->self->name);
        if (rc < 0) {
            sim_component_nomem(h->self, "a page of its store");
            tlp_free(t);
            return;
        }
    }
    h->cnt.atomics++;
    sim_time_t start = hmem_charge(h, 2 * n);
    struct tlp *cpl = tlp_new_completion(sim, t, TLP_CPL_SC, n);
    if (!cpl || tlp_data_alloc(cpl, n) < 0) {
        if (cpl) {
            tlp_free(cpl);
        }
        sim_component_nomem(h->self, "a completion");
        tlp_free(t);
        return;
    }
    memcpy(cpl->data, old, n);
    sim_time_t ready = sim_time_add(start,
                                    sim_time_for_bytes(n, h->rate_bytes_per_s));
    hmem_complete(h, cpl, sim_time_add(ready, h->latency_ps));
    tlp_free(t);
}

static void hmem_receive(struct sim_component *c, struct sim_port *in,
                         struct tlp *t)
{
    struct hmem *h = hmem_from(c);
    switch (t->kind) {
    case TLP_MWR:
        hmem_write(h, t);
        break;
    case TLP_MRD:
        hmem_read(h, t);
        break;
    case TLP_FETCHADD:
    case TLP_SWAP:
    case TLP_CAS:
        hmem_atomic(h, t);
        break;
    default:
        /* Messages, stray completions, ATS: memory has no use for them. */
        if (tlp_is_request(t) && !tlp_is_posted(t)) {
            hmem_unsupported(h, t, "host memory: unsupported request");
        } else {
            hmem_trace(h, SIM_TP_TLP_DROP, t, "host memory: ignored");
            tlp_free(t);
        }
        break;
    }
}

/* ---- lifecycle ----------------------------------------------------------- */

static int hmem_configure(struct sim_component *c,
                          const struct sim_props *props,
                          struct sim_error *err)
{
    struct hmem *h = hmem_from(c);
    h->self = c;
    h->latency_ps = HMEM_DEFAULT_LATENCY;
    h->rate_bytes_per_s = HMEM_DEFAULT_RATE;
    h->rcb_bytes = HMEM_DEFAULT_RCB;
    h->mps_bytes = HMEM_DEFAULT_MPS;
    sim_event_init(&h->timer, hmem_timer);
    if (!props) {
        return sim_error_set(err, SIM_EINVAL,
                             "host memory '%s' needs 'size'", c->name);
    }
    uint64_t rcb = h->rcb_bytes, mps = h->mps_bytes;
    int rc = sim_props_get_size(props, "size", &h->size, SIM_PROP_REQUIRED,
                                err);
    if (rc == 0 && h->size == 0) {
        rc = sim_props_error(props, "size", SIM_ERANGE, err,
                             "host memory '%s': size must be above 0",
                             c->name);
    }
    if (rc == 0) {
        rc = sim_props_get_time(props, "latency", &h->latency_ps, 0, err);
    }
    if (rc == 0) {
        rc = sim_props_get_rate(props, "bandwidth", &h->rate_bytes_per_s, 0,
                                err);
    }
    if (rc == 0) {
        rc = sim_props_get_u64(props, "rcb", &rcb, 64, 128, 0, err);
    }
    if (rc == 0 && rcb != 64 && rcb != 128) {
        rc = sim_props_error(props, "rcb", SIM_ERANGE, err,
                             "host memory '%s': rcb is 64 or 128 (PCIe Link "
                             "Control RCB bit), not %llu", c->name,
                             (unsigned long long)rcb);
    }
    if (rc == 0) {
        rc = sim_props_get_size(props, "mps", &mps, 0, err);
    }
    if (rc == 0 && (mps < 128 || mps > 4096 || (mps & (mps - 1)) != 0)) {
        rc = sim_props_error(props, "mps", SIM_ERANGE, err,
                             "host memory '%s': mps must be 128B, 256B, 512B, "
                             "1KiB, 2KiB or 4KiB", c->name);
    }
    if (rc < 0) {
        return rc;
    }
    h->rcb_bytes = (unsigned)rcb;
    h->mps_bytes = (unsigned)mps;
    h->store = mem_sparse_create(h->size);
    h->up = sim_port_add(c, "up", SIM_PORT_UPSTREAM);
    if (!h->store || !h->up) {
        return sim_error_set(err, SIM_ENOMEM, "host memory '%s': out of memory",
                             c->name);
    }
    return 0;
}

static void hmem_report(const struct sim_component *c, struct sim_stats *out)
{
    const struct hmem *h = hmem_from(c);
    const struct {
        const char *name;
        uint64_t v;
    } row[] = {
        { "reads", h->cnt.reads },
        { "writes", h->cnt.writes },
        { "atomics", h->cnt.atomics },
        { "bytes_read", h->cnt.bytes_read },
        { "bytes_written", h->cnt.bytes_written },
        { "completions", h->cnt.completions },
        { "unsupported", h->cnt.unsupported },
        { "backed_bytes", h->store ? mem_sparse_backed_bytes(h->store) : 0 },
    };
    for (unsigned i = 0; i < sizeof(row) / sizeof(row[0]); i++) {
        char name[256];
        snprintf(name, sizeof(name), "%s.%s", c->name, row[i].name);
        sim_stats_add(out, name, row[i].v);
    }
}

static void hmem_destroy(struct sim_component *c)
{
    struct hmem *h = hmem_from(c);
    if (sim_event_is_pending(&h->timer)) {
        sim_event_cancel(c->sim, &h->timer);
    }
    free(h->q);
    h->q = NULL;
    mem_sparse_destroy(h->store);
    h->store = NULL;
}

void hmem_set_base(struct sim_component *c, uint64_t base, uint16_t id)
{
    struct hmem *h = hmem_from(c);
    h->base = base;
    h->id = id;
}

uint64_t hmem_base(const struct sim_component *c)
{
    return hmem_from(c)->base;
}

uint64_t hmem_size(const struct sim_component *c)
{
    return hmem_from(c)->size;
}

struct mem_sparse *hmem_store(struct sim_component *c)
{
    return hmem_from(c)->store;
}

void hmem_get_params(const struct sim_component *c, struct hmem_params *out)
{
    const struct hmem *h = hmem_from(c);
    out->latency_ps = h->latency_ps;
    out->rate_bytes_per_s = h->rate_bytes_per_s;
    out->mps_bytes = h->mps_bytes;
    out->rcb_bytes = h->rcb_bytes;
}

const struct sim_component_ops hmem_ops = {
    .kind = "host-memory",
    .state_size = sizeof(struct hmem),
    .configure = hmem_configure,
    .receive = hmem_receive,
    .ready = hmem_ready,
    .report = hmem_report,
    .destroy = hmem_destroy,
};
