/*
 * models/gpu/copy_engine.c - the GPU's copy engines: DMA that moves data
 * between local HBM and a bus address (a peer's BAR1, host memory) with
 * posted writes (PUSH) or reads (PULL), or within HBM (LOCAL).
 *
 * Each engine runs a FIFO of struct gpu_dma operations, pipelined:
 *
 *   submit -> [queue] -> setup (ce-setup) -> issue -> drain -> done()
 *
 * One operation at a time is set up and issues (cur). Once it has issued
 * its last request (a PUSH its last write and its flushing read; a PULL,
 * whose data are its completions, once they are all in) it drains,
 * waiting for its completions, and the next operation's setup starts: the
 * engine overlaps one operation's fixed cost with the round trip that
 * ends the one before, as real copy engines do with back-to-back copies.
 * done() is called in submission order, from an event, once an operation
 * and every one before it on the engine have drained. How operations keep
 * a stream's order is at ce_may_begin; how PUSH, PULL and LOCAL cut their
 * work, next to the code that does it; errors and the completion timeout
 * at ce_error and ce__cto_arm.
 *
 * Model: the setup is one fixed cost per operation (ce-setup; a LOCAL
 * one's is ce-local-setup: copies within HBM queued behind a spin kernel
 * take 1.6 us each on an H200 where host copies take 2.1-2.3), whatever
 * its size; it overlaps only the drain of the operation before,
 * not its data streaming (data/hgx-h200-x2/ce_pipeline_probe.txt: queued
 * copies take a fixed time plus their size over the rate, no less), and
 * only where that drain does not hold it back (ce_check_done).
 * Model: engines issue as fast as the port accepts: a TLP is cut only when
 * the way out it takes is free, engines take turns (round-robin), and
 * the link's refusals (-SIM_EAGAIN) pace them. There is no issue-rate limit
 * of the engine itself.
 */
#include <config.h>

#include "models/gpu/gpu.h"

#include <stdlib.h>
#include <string.h>

#include "models/gpu/gpu_int.h"
#include "models/mem/sparse.h"
#include "models/pcie/pcie.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/sim.h"
#include "sim/tlp.h"
#include "sim/trace.h"

/* Bounce buffer of a LOCAL copy, bytes. */
#define CE_LOCAL_CHUNK_BYTES (UINT64_C(1) << 20)

static void ce_event(struct sim *sim, struct sim_event *ev);
static void ce_done_event(struct sim *sim, struct sim_event *ev);
static void ce_cto_event(struct sim *sim, struct sim_event *ev);

int ce__init(struct gpu *g)
{
    g->ce = calloc(g->n_ce, sizeof(*g->ce));
    if (!g->ce) {
        return -SIM_ENOMEM;
    }
    for (unsigned i = 0; i < g->n_ce; i++) {
        struct ce *ce = &g->ce[i];
        ce->g = g;
        ce->index = i;
        ce->phase = CE_IDLE;
        sim_event_init(&ce->ev, ce_event);
        sim_event_init(&ce->done_ev, ce_done_event);
    }
    sim_event_init(&g->cto_ev, ce_cto_event);
    /* A stack whose top is tag 0. */
    for (unsigned i = 0; i < GPU_TAGS_MAX; i++) {
        g->free_tag[i] = (uint16_t)(GPU_TAGS_MAX - 1 - i);
    }
    g->n_free_tag = GPU_TAGS_MAX;
    return 0;
}

void ce__fini(struct gpu *g)
{
    if (!g->ce) {
        return;
    }
    for (unsigned i = 0; i < g->n_ce; i++) {
        sim_event_cancel(g->c->sim, &g->ce[i].ev);
        sim_event_cancel(g->c->sim, &g->ce[i].done_ev);
    }
    free(g->ce);
    g->ce = NULL;
}

/* ---- cutting TLPs -------------------------------------------------------- */

/*
 * PUSH cuts [local_addr, +len) into MWr TLPs of at most mps bytes that never
 * cross a 4 KiB boundary of the destination (PCIe r6.0 §2.2.7), payload read
 * from HBM when the TLP is cut, then sends a zero-length MRd to the last
 * address. A read request may not pass a posted write (PCIe r6.0 §2.4.1),
 * so that read's completion proves every write landed: it ends the
 * operation (unless no_flush, which ends it when the last write leaves).
 * A PUSH op's t_last is when its last write left the GPU; on an ideal wire
 * that never refuses, that is when the first did.
 *
 * PULL cuts the source into MRd of at most mrrs bytes (again within 4 KiB)
 * and keeps at most `tags` of them outstanding per engine. Completions may
 * be split (at the completer's RCB and MPS): data land in HBM at arrival,
 * bytes are counted per tag, and the tag is free once its read is whole.
 * Its rate is therefore bounded by tags x mrrs / round trip, the
 * mechanism behind ../shared/reference/pcie-nvlink.md §2.2 (10-bit tags).
 *
 * Tags: the engines share the GPU's 10-bit tag space (1024; PCIe r6.0
 * §2.2.6.2); each engine also stops at `tags` outstanding on PCIe. Reads
 * over NVLink are not held to `tags`: one engine of an H200 pulls 387-389
 * GB/s from its peer over NV18 (data/hgx-h200-x2/nvlink_rate_probe.txt),
 * which needs some 700 reads of 512 B outstanding over the 0.9 us round
 * trip, far more than the 256 a PCIe engine keeps. Only the GPU's table of
 * 1024 (the completions' way back) bounds them, and the links' flow
 * control.
 */

/* Bytes of the next request at addr: at most max, left, and the 4 KiB rule. */
static uint32_t ce_chunk(uint64_t addr, uint64_t left, uint32_t max)
{
    uint64_t to_boundary = GPU_PCIE_BOUNDARY_BYTES -
                           (addr & (GPU_PCIE_BOUNDARY_BYTES - 1));
    uint64_t n = max;
    if (n > left) {
        n = left;
    }
    if (n > to_boundary) {
        n = to_boundary;
    }
    return (uint32_t)n;
}

/*
 * Byte enables of a request of len > 0 bytes at addr (PCIe r6.0 §2.2.5):
 * First DW BE covers the first DW, Last DW BE the last, and is 0 when the
 * request fits in one DW.
 * Model: len_bytes stays byte-exact; the DW padding of an unaligned
 * request is not charged on the wire.
 */
static void ce_set_byte_enables(struct tlp *t, uint64_t addr, uint32_t len)
{
    uint64_t end = addr + len;
    uint8_t first = (uint8_t)((0xfu << (addr & 3)) & 0xfu);
    uint8_t last = (uint8_t)(0xfu >> ((4 - (end & 3)) & 3));
    if (addr >> 2 == (end - 1) >> 2) {
        t->first_be = first & last;
        t->last_be = 0;
    } else {
        t->first_be = first;
        t->last_be = last;
    }
}

static struct tlp *ce_new_request(struct gpu *g, const struct gpu_dma *op,
                                  enum tlp_kind kind, uint64_t addr,
                                  uint32_t len)
{
    struct tlp *t = tlp_alloc(g->c->sim, kind);
    if (!t) {
        sim_component_nomem(g->c, "a request");
        return NULL;
    }
    t->requester_id = g->id;
    t->attr = op->attr;
    t->at = TLP_AT_UNTRANSLATED;
    t->addr = addr;
    t->len_bytes = len;
    if (len) {
        ce_set_byte_enables(t, addr, len);
    } else {
        t->first_be = 0;        /* zero-length read (PCIe r6.0 §2.2.5) */
        t->last_be = 0;
    }
    return t;
}

/* The next MWr of a PUSH, payload read from HBM now. */
static struct tlp *ce_new_write(struct gpu *g, struct gpu_dma *op)
{
    uint32_t mps = op->mps ? op->mps : g->mps;
    uint64_t addr = op->remote_addr + op->issued_bytes;
    uint32_t n = ce_chunk(addr, op->len_bytes - op->issued_bytes, mps);
    struct tlp *t = ce_new_request(g, op, TLP_MWR, addr, n);
    if (!t) {
        return NULL;
    }
    if (tlp_data_alloc(t, n) < 0) {
        tlp_free(t);
        sim_component_nomem(g->c, "a request's payload");
        return NULL;
    }
    int rc = mem_sparse_read(g->hbm, op->local_addr + op->issued_bytes,
                             t->data, n);
    SIM_ASSERT(rc == 0, "gpu %s: HBM read failed (%s)", g->c->name,
               sim_strerror(rc));
    op->issued_bytes += n;
    return t;
}

/* The next MRd of a PULL, or the flushing read of a PUSH; takes a tag. */
static struct tlp *ce_new_read(struct ce *ce, struct gpu_dma *op, bool flush)
{
    struct gpu *g = ce->g;
    uint64_t addr;
    uint32_t n = 0;
    if (flush) {
        /* The DW holding the last byte written. */
        addr = (op->remote_addr + op->len_bytes - 1) & ~UINT64_C(3);
    } else {
        uint32_t mrrs = op->mrrs ? op->mrrs : g->mrrs;
        addr = op->remote_addr + op->issued_bytes;
        n = ce_chunk(addr, op->len_bytes - op->issued_bytes, mrrs);
    }
    struct tlp *t = ce_new_request(g, op, TLP_MRD, addr, n);
    if (!t) {
        return NULL;
    }
    uint16_t tag = g->free_tag[--g->n_free_tag];
    struct ce_tag *e = &g->tag[tag];
    *e = (struct ce_tag){
        .op = op, .ce = ce, .offset = op->issued_bytes, .len_bytes = n,
        .flush = flush, .issued_ps = sim_now(g->c->sim),
    };
    ce__cto_arm(g);
    op->issued_bytes += n;
    op->outstanding++;
    t->tag = tag;
    return t;
}

static void ce_tag_release(struct gpu *g, uint16_t tag)
{
    struct ce_tag *e = &g->tag[tag];
    e->op->outstanding--;
    e->op = NULL;
    g->free_tag[g->n_free_tag++] = tag;
    if (g->n_free_tag == GPU_TAGS_MAX) {
        sim_event_cancel(g->c->sim, &g->cto_ev);
    }
}

/* Queue this engine's next TLP, if it has one and may send it now. */
static bool ce_issue(struct ce *ce)
{
    struct gpu *g = ce->g;
    struct gpu_dma *op = ce->cur;
    if (ce->phase != CE_ISSUE || ce->queued) {
        return false;
    }
    /* Cut a TLP only when the way out it takes can send it now. */
    uint64_t next = op->remote_addr + op->issued_bytes;
    if (op->issued_bytes == op->len_bytes && op->len_bytes) {
        next = (op->remote_addr + op->len_bytes - 1) & ~UINT64_C(3);
    }
    unsigned way = gpu__out_for(g, next);
    if (!gpu__out_is_free(g, way)) {
        return false;
    }
    struct tlp *t = NULL;
    if (op->dir == GPU_DMA_PUSH) {
        if (op->issued_bytes < op->len_bytes) {
            t = ce_new_write(g, op);
        } else if (!op->no_flush && !op->flush_sent && g->n_free_tag) {
            t = ce_new_read(ce, op, true);
            op->flush_sent = true;
        }
    } else if (op->status == 0 && op->issued_bytes < op->len_bytes &&
               (way != 0 || op->outstanding < g->tags_per_ce) &&
               g->n_free_tag) {
        t = ce_new_read(ce, op, false);
    }
    if (!t) {
        return false;
    }
    ce->queued = true;
    gpu__egress_push(g, t, op);
    return true;
}

bool ce__produce(struct gpu *g)
{
    /* With "pcie" the only way out, no engine may cut a TLP while it is
     * busy (ce_issue): skip the round. The pump runs at every TLP the GPU
     * receives, mostly while its own link is busy. */
    if (g->n_out == 1 && !gpu__out_is_free(g, 0)) {
        return false;
    }
    unsigned k = g->ce_rr;
    for (unsigned i = 0; i < g->n_ce; i++) {
        if (ce_issue(&g->ce[k])) {
            g->ce_rr = k + 1 < g->n_ce ? k + 1 : 0;
            return true;
        }
        k = k + 1 < g->n_ce ? k + 1 : 0;
    }
    return false;
}

/* ---- the operations' lifecycle ------------------------------------------ */

static void ce_begin(struct ce *ce);

static void ce_start(struct ce *ce, struct gpu_dma *op)
{
    ce->cur = op;
    ce->phase = CE_SETUP;
    sim_event_schedule(ce->g->c->sim, &ce->ev,
                       op->dir == GPU_DMA_LOCAL ? ce->g->ce_local_setup_ps
                                                : ce->g->ce_setup_ps);
}

/*
 * cur has issued all it will: it drains; the next operation sets up. The
 * overlap is what real engines show: 16-byte P2P copies queued behind a
 * spin kernel take 0.44 us each on RTX PRO 6000s, less than one flushing
 * read's round trip there (data/calibration/8x-rtxpro6000-*).
 */
static void ce_advance(struct ce *ce)
{
    struct gpu_dma *op = ce->cur;
    ce->cur = NULL;
    ce->phase = CE_IDLE;
    if (op->next) {
        ce_start(ce, op->next);
    }
}

/* op has drained: done() for it and what drained before it, in order. */
static void ce_drained(struct ce *ce, struct gpu_dma *op)
{
    op->drained = true;
    if (ce->head == op && !sim_event_is_pending(&ce->done_ev)) {
        sim_event_schedule(ce->g->c->sim, &ce->done_ev, 0);
    }
    if (ce->phase == CE_WAIT) {
        ce_begin(ce);           /* cur may have waited for op's data */
    }
}

/*
 * Ordering. CUDA runs a stream's operations in order: a later copy must
 * not read bytes an earlier one has not written yet, nor see its own
 * writes overtaken by the earlier one's. The engine keeps that so:
 *   - an operation issues its first request (LOCAL: starts its copy) only
 *     when no earlier operation of the engine still drains, except PUSH
 *     operations whose writes all left by one link (PCIe, or an NVLink
 *     port of one link):
 *     posted writes stay in order on a path and a read request may not
 *     pass them (PCIe r6.0 §2.4.1, relaxed ordering off), so nothing the
 *     engine sends later overtakes them, and a PUSH writes no local HBM
 *     that a later operation could read;
 *   - so anything after a draining PULL waits (its data land with its
 *     completions, and the later operation may read those bytes), as does
 *     anything after a PUSH spread over several NVLinks: several ports
 *     (NVSwitch planes) or a bonded group, whose packets hardware stripes
 *     over its links (docs/nvlink.md), so its writes may arrive out of
 *     order;
 *   - LOCAL copies move their bytes in one event at their end: they never
 *     drain, and the next operation's setup starts when they are done.
 * Setup overlaps the drain (it reads no data) unless the drain holds the
 * next operation back anyway (ce_check_done). What stays
 * unordered, as on hardware: a third party polling the destinations may
 * see a later operation's bytes before an earlier one's has landed
 * elsewhere (CUDA promises order to the stream's own operations and to
 * whoever synchronizes with them, which done() keeps).
 */

/* The ordering above (gpu.h); a port's weight is its links. */
bool gpu_dma_holds_next(const struct sim_component *c,
                        const struct gpu_dma *op)
{
    struct sim_port *ports[2];
    unsigned weights[2];
    return op->dir != GPU_DMA_PUSH ||
           gpu_route_ports(c, op->remote_addr, ports, weights, 2) != 1 ||
           weights[0] != 1;
}

/* Whether cur may start moving data: nothing drains before it that holds
 * it back. */
static bool ce_may_begin(const struct ce *ce)
{
    for (const struct gpu_dma *op = ce->head; op && op != ce->cur;
         op = op->next) {
        if (!op->drained && gpu_dma_holds_next(ce->g->c, op)) {
            return false;
        }
    }
    return true;
}

/* Has op issued every request it will? */
static bool ce_all_issued(const struct gpu_dma *op)
{
    if (op->status < 0) {
        return true;            /* an error: it issues no more */
    }
    if (op->issued_bytes < op->len_bytes) {
        return false;
    }
    return op->dir != GPU_DMA_PUSH || op->no_flush || op->flush_sent;
}

/*
 * cur drains once it has issued all it will (its last TLP left the
 * egress queue); an operation has drained once every request it issued
 * has come back.
 * Model: where the next operation must wait for cur's drain anyway
 * (gpu_dma_holds_next: after a PULL, or a PUSH whose writes leave by
 * several NVLinks, which may reorder them), it sets up once the drain is
 * over, as a non-pipelined transfer does: a queued copy then takes its
 * setup plus the round trip the one before waits for. The DGX-1V
 * measures that: 16-byte copies queued over NV1 take 1.61 us, over NV2
 * (a bonded pair, whose packets hardware stripes over both links) 2.01
 * (data/calibration/dgx1-v100-hybrid-cube-mesh.yaml).
 */
static void ce_check_done(struct ce *ce, struct gpu_dma *op)
{
    if (op->drained || !ce_all_issued(op)) {
        return;
    }
    if (ce->cur == op) {
        if (ce->phase != CE_ISSUE || ce->queued) {
            return;
        }
        /* The next operation, which must wait for op's drain, sets up
         * after it (the Model above). */
        if (op->dir != GPU_DMA_LOCAL && op->outstanding != 0 &&
            op->status >= 0 && gpu_dma_holds_next(ce->g->c, op)) {
            return;
        }
        ce_advance(ce);
    }
    if (op->outstanding == 0) {
        ce_drained(ce, op);
    }
}

/* The head operations that have drained are done, in order. */
static void ce_done_event(struct sim *sim, struct sim_event *ev)
{
    struct ce *ce = SIM_CONTAINER_OF(ev, struct ce, done_ev);
    sim_time_t now = sim_now(sim);
    while (ce->head && ce->head->drained) {
        struct gpu_dma *op = ce->head;
        ce->head = op->next;
        if (!ce->head) {
            ce->tail = NULL;
            ce->busy_ps += now - ce->t_start;
        }
        op->next = NULL;
        op->t_done = now;
        ce->ops_done++;
        ce->bytes_done += op->len_bytes;
        if (sim_trace_wanted(sim, SIM_TP_CE_OP)) {
            struct sim_trace_record r = {
                .point = SIM_TP_CE_OP, .component = ce->g->c->name,
                .a = ce->index, .msg = "tlp", .data = op,
            };
            sim_trace_emit(sim, &r);
        }
        if (op->done) {
            op->done(op);       /* may resubmit or free op: last use */
        }
    }
}

/* ---- LOCAL copies -------------------------------------------------------- */

/*
 * LOCAL copies within HBM after their own setup (ce-local-setup), for 2 x
 * len at hbm-bandwidth (read and write) plus hbm-latency; with an L2
 * model (l2-bandwidth, l2.c), 2 x len at the L2's rate while what it
 * misses or writes back takes the HBM serialiser, whichever ends later.
 */

/*
 * Copy HBM [src, src + len) to [dst, dst + len) through a bounce buffer,
 * backwards when dst overlaps the source from above (memmove semantics).
 * Model: the data move at the end of the operation, in one event.
 */
static void ce_local_copy(struct gpu *g, uint64_t dst, uint64_t src,
                          uint64_t len)
{
    uint64_t chunk = len < CE_LOCAL_CHUNK_BYTES ? len : CE_LOCAL_CHUNK_BYTES;
    uint8_t *buf = malloc(chunk);
    if (!buf) {
        sim_component_nomem(g->c, "a buffer for a copy within HBM");
        return;
    }
    bool backwards = dst > src && dst < src + len;
    for (uint64_t done = 0; done < len;) {
        uint64_t n = len - done < chunk ? len - done : chunk;
        uint64_t at = backwards ? len - done - n : done;
        int rc = mem_sparse_read(g->hbm, src + at, buf, n);
        if (rc == 0) {
            rc = mem_sparse_write(g->hbm, dst + at, buf, n);
        }
        SIM_ASSERT(rc == 0 || rc == -SIM_ENOMEM,
                   "gpu %s: HBM copy failed (%s)", g->c->name,
                   sim_strerror(rc));
        if (rc < 0) {
            sim_component_nomem(g->c, "a page of HBM");
            break;
        }
        done += n;
    }
    free(buf);
}

/* cur is set up: it starts moving data once what came before allows. */
static void ce_begin(struct ce *ce)
{
    struct gpu *g = ce->g;
    struct sim *sim = g->c->sim;
    struct gpu_dma *op = ce->cur;
    if (!ce_may_begin(ce)) {
        ce->phase = CE_WAIT;    /* ce_drained calls again */
        return;
    }
    if (op->dir == GPU_DMA_LOCAL) {
        /* Read and write both cross the L2 and what it misses HBM. */
        op->t_first = sim_now(sim);
        ce->phase = CE_LOCAL;
        sim_event_schedule_at(sim, &ce->ev,
                              gpu__local_copy_reserve(g, op->remote_addr,
                                                      op->local_addr,
                                                      op->len_bytes) +
                                  g->hbm_latency_ps);
    } else {
        ce->phase = CE_ISSUE;
        gpu__egress_pump(g);
    }
}

static void ce_event(struct sim *sim, struct sim_event *ev)
{
    struct ce *ce = SIM_CONTAINER_OF(ev, struct ce, ev);
    struct gpu *g = ce->g;
    struct gpu_dma *op = ce->cur;
    switch (ce->phase) {
    case CE_SETUP:
        ce_begin(ce);
        break;
    case CE_LOCAL:
        ce_local_copy(g, op->remote_addr, op->local_addr, op->len_bytes);
        op->t_last = sim_now(sim);
        ce_advance(ce);
        ce_drained(ce, op);
        break;
    default:
        sim_bug("gpu %s: copy engine %u event in phase %d", g->c->name,
                ce->index, (int)ce->phase);
    }
}

/* ---- the TLP side -------------------------------------------------------- */

void ce__sent(struct gpu *g, struct gpu_dma *op, enum tlp_kind kind)
{
    struct ce *ce = &g->ce[op->ce];
    sim_time_t now = sim_now(g->c->sim);
    ce->queued = false;
    if (op->tlps++ == 0) {
        op->t_first = now;
    }
    if (op->dir == GPU_DMA_PUSH && kind == TLP_MWR &&
        op->issued_bytes == op->len_bytes) {
        op->t_last = now;       /* the last data TLP left */
    }
    ce_check_done(ce, op);
}

/*
 * Errors: an error completion (UR, CA, or a poisoned or malformed one) sets
 * op->status = -SIM_EIO and counts error_completions; the engine then
 * issues nothing more for that operation, waits for its outstanding reads,
 * and finishes it early.
 */
static void ce_error(struct gpu *g, struct ce *ce, struct gpu_dma *op,
                     const struct tlp *t, const char *why)
{
    g->cnt.error_completions++;
    (void)ce;
    op->status = -SIM_EIO;      /* it issues no more (ce_issue) */
    gpu__trace(g, t, t->tag, t->cpl_status, why);
}

/*
 * A completion for a request of gpu_request_send: its sender gets it; the
 * tag is free once the read is whole (or failed).
 */
static void ce_request_completion(struct gpu *g, struct ce_tag *e,
                                  struct tlp *t)
{
    uint16_t tag = t->tag;
    gpu_req_done_fn *done = e->done;
    void *ctx = e->ctx;
    e->received += tlp_payload_bytes(t);
    if (t->cpl_status != TLP_CPL_SC || e->received >= e->len_bytes ||
        t->kind == TLP_CPL) {
        e->done = NULL;
        e->ctx = NULL;
        g->free_tag[g->n_free_tag++] = tag;
        if (g->n_free_tag == GPU_TAGS_MAX) {
            sim_event_cancel(g->c->sim, &g->cto_ev);
        }
    }
    done(ctx, t);
    tlp_free(t);
    gpu__egress_pump(g);
}

/*
 * A completion for one of our reads: data land in HBM now. A read ends with
 * its last byte, or with an error completion (which ends the request,
 * PCIe r6.0 §2.3.2). byte_count is the bytes left of the read, this
 * completion included (§2.2.9), which places the data.
 */
void ce__receive_completion(struct gpu *g, struct tlp *t)
{
    struct ce_tag *e = t->tag < GPU_TAGS_MAX ? &g->tag[t->tag] : NULL;
    if (t->requester_id == g->id && e && e->done) {
        ce_request_completion(g, e, t);
        return;
    }
    if (t->requester_id != g->id || !e || !e->op) {
        g->unexpected_cpl++;
        gpu__trace(g, t, t->tag, t->requester_id,
                   "completion matches no outstanding read: dropped");
        tlp_free(t);
        return;
    }
    struct gpu_dma *op = e->op;
    struct ce *ce = e->ce;
    uint32_t n = tlp_payload_bytes(t);
    bool whole = true;
    if (t->cpl_status != TLP_CPL_SC || t->poisoned) {
        ce_error(g, ce, op, t, "error completion: operation fails (EIO)");
    } else if (!e->flush) {
        uint32_t left = e->len_bytes - e->received;
        if (n == 0 || t->byte_count > e->len_bytes || n > t->byte_count ||
            t->byte_count > left) {
            ce_error(g, ce, op, t, "malformed completion: operation fails");
        } else {
            uint64_t at = e->offset + (e->len_bytes - t->byte_count);
            if (t->data) {
                int rc = mem_sparse_write(g->hbm, op->local_addr + at,
                                          t->data, n);
                SIM_ASSERT(rc == 0 || rc == -SIM_ENOMEM,
                           "gpu %s: HBM write failed (%s)", g->c->name,
                           sim_strerror(rc));
                if (rc < 0) {
                    sim_component_nomem(g->c, "a page of HBM");
                }
            }
            e->received += n;
            op->completed_bytes += n;
            whole = e->received == e->len_bytes;
        }
    }
    if (op->dir == GPU_DMA_PULL) {
        op->t_last = sim_now(g->c->sim);
    }
    if (whole) {
        ce_tag_release(g, t->tag);
    }
    tlp_free(t);
    ce_check_done(ce, op);
    gpu__egress_pump(g);
}

/* ---- completion timeout --------------------------------------------------- */

/*
 * Completion timeout (PCIe r6.0 §2.8): every non-posted request of the GPU
 * (the engines' reads and flushing reads, gpu_request_send's for the SMs)
 * notes when it was queued. One timer per GPU (cto_ev) is armed while any
 * tag is outstanding, for the oldest one's deadline (cpl-timeout after
 * it, default 50 ms, 0 = disabled); when it fires, every request past its
 * deadline fails: an engine's operation with op->status = -SIM_EIO (it
 * issues no more, waits for its other reads and ends early, as with an
 * error completion), a single request with a completion of status UR
 * made up by the requester, and a tlp.cpl_timeout trace record (a = tag,
 * b = requester ID); cpl_timeouts counts them. The tag is free again; a
 * completion that still comes later matches nothing and is dropped.
 * Model: the timer is cancelled when the last tag is freed, so a run with
 * no lost completion has no extra event; the timeout is measured from
 * when the request was queued, not when it left the GPU.
 */

void ce__cto_arm(struct gpu *g)
{
    if (g->cpl_timeout_ps != 0 && !sim_event_is_pending(&g->cto_ev)) {
        sim_event_schedule(g->c->sim, &g->cto_ev, g->cpl_timeout_ps);
    }
}

/* The request of tag `tag` has had no (whole) completion in time. */
static void ce_cto_expire(struct gpu *g, uint16_t tag)
{
    struct ce_tag *e = &g->tag[tag];
    g->cnt.cpl_timeouts++;
    sim_trace_component(g->c, SIM_TP_CPL_TIMEOUT, "pcie", NULL, tag, g->id,
                        e->op ? "copy-engine read: operation fails (EIO)"
                              : "request fails (UR)");
    if (e->op) {
        struct gpu_dma *op = e->op;
        struct ce *ce = e->ce;
        op->status = -SIM_EIO;  /* it issues no more (ce_issue) */
        ce_tag_release(g, tag);
        ce_check_done(ce, op);
        return;
    }
    struct tlp *t = tlp_alloc(g->c->sim, TLP_CPL);
    if (!t) {
        sim_component_nomem(g->c, "a completion");
        return;
    }
    t->requester_id = g->id;
    t->completer_id = g->id;
    t->tag = tag;
    t->cpl_status = TLP_CPL_UR;
    ce_request_completion(g, e, t);     /* frees the tag and t */
}

static void ce_cto_event(struct sim *sim, struct sim_event *ev)
{
    struct gpu *g = SIM_CONTAINER_OF(ev, struct gpu, cto_ev);
    sim_time_t now = sim_now(sim), oldest = SIM_TIME_MAX;
    for (unsigned i = 0; i < GPU_TAGS_MAX; i++) {
        const struct ce_tag *e = &g->tag[i];
        if (!e->op && !e->done) {
            continue;           /* free */
        }
        if (sim_time_add(e->issued_ps, g->cpl_timeout_ps) <= now) {
            ce_cto_expire(g, (uint16_t)i);
        } else if (e->issued_ps < oldest) {
            oldest = e->issued_ps;
        }
    }
    if (oldest != SIM_TIME_MAX && !sim_event_is_pending(&g->cto_ev)) {
        sim_event_schedule_at(sim, &g->cto_ev,
                              sim_time_add(oldest, g->cpl_timeout_ps));
    }
    gpu__egress_pump(g);
}

/* ---- submission (gpu.h) -------------------------------------------------- */

static bool ce_in_hbm(const struct gpu *g, uint64_t addr, uint64_t len)
{
    return addr < g->mem_bytes && len <= g->mem_bytes - addr;
}

static bool ce_op_is_valid(const struct gpu *g, const struct gpu_dma *op)
{
    if (op->ce >= g->n_ce || op->len_bytes == 0 ||
        !ce_in_hbm(g, op->local_addr, op->len_bytes)) {
        return false;
    }
    switch (op->dir) {
    case GPU_DMA_LOCAL:
        return ce_in_hbm(g, op->remote_addr, op->len_bytes);
    case GPU_DMA_PUSH:
    case GPU_DMA_PULL:
        return op->remote_addr <= UINT64_MAX - (op->len_bytes - 1) &&
               (op->mps == 0 || pcie_size_is_valid(op->mps)) &&
               (op->mrrs == 0 || pcie_size_is_valid(op->mrrs));
    default:
        return false;
    }
}

int gpu_dma_submit(struct sim_component *c, struct gpu_dma *op)
{
    struct gpu *g = gpu__from(c);
    if (!op || !ce_op_is_valid(g, op)) {
        return -SIM_EINVAL;
    }
    if (op->dir != GPU_DMA_LOCAL && !sim_port_is_connected(g->port)) {
        return -SIM_ENOTCONN;
    }
    op->status = 0;
    op->t_submit = sim_now(c->sim);
    op->t_first = 0;
    op->t_last = 0;
    op->t_done = 0;
    op->tlps = 0;
    op->next = NULL;
    op->issued_bytes = 0;
    op->completed_bytes = 0;
    op->outstanding = 0;
    op->flush_sent = false;
    op->drained = false;
    struct ce *ce = &g->ce[op->ce];
    if (ce->tail) {
        ce->tail->next = op;
    } else {
        ce->head = op;
        ce->t_start = op->t_submit;
    }
    ce->tail = op;
    if (!ce->cur) {
        ce_start(ce, op);
    }
    return 0;
}
