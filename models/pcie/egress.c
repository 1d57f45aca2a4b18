/*
 * models/pcie/egress.c - the ordered egress queue (egress.h): three FIFOs
 * by flow-control class, fences from NP and CPL TLPs to the P TLPs of
 * their own ingress stream, and the egress buffer that returns ingress
 * credits.
 *
 * The rules kept (PCIe r6.0 §2.4.1, Table 2-40; pcie-nvlink.md §2.4),
 * "later" being queued after "earlier":
 *
 *   later \ earlier   Posted               Non-Posted   Completion
 *   Posted            no (FIFO)            yes          yes
 *   Non-Posted        other stream only    no (FIFO)    yes
 *   Completion        other stream, or RO  yes          no (FIFO)
 *
 * A stream is one ingress port and one Traffic Class: TLPs of different
 * Traffic Classes have no ordering between them, and a switch orders only
 * TLPs that move from the same ingress port to the same egress port
 * [from spec knowledge; unverified wording]. TLPs a port makes itself (a
 * UR completion) are a stream of their own.
 *
 * Costs: push, next and pop are O(1) (amortised: the rings double when
 * full); the queue costs 8 bytes per stream and TC plus 24 per TLP.
 */
#include <config.h>

#include "models/pcie/egress.h"

#include <stdlib.h>

#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"

static struct pcie_egress_entry *fifo_at(const struct pcie_egress_fifo *f,
                                         uint64_t pos)
{
    return &f->slot[pos & (f->cap - 1)];
}

static bool fifo_is_empty(const struct pcie_egress_fifo *f)
{
    return f->head == f->tail;
}

static int fifo_grow(struct pcie_egress_fifo *f)
{
    uint32_t cap = f->cap ? f->cap * 2 : 16;
    struct pcie_egress_entry *s = malloc(cap * sizeof(*s));
    if (!s) {
        return -SIM_ENOMEM;
    }
    for (uint64_t pos = f->head; pos != f->tail; pos++) {
        s[pos & (cap - 1)] = *fifo_at(f, pos);
    }
    free(f->slot);
    f->slot = s;
    f->cap = cap;
    return 0;
}

int pcie_egress_init(struct pcie_egress *q, unsigned n_streams,
                     uint32_t buffer_tlps)
{
    *q = (struct pcie_egress){ .next_seq = 1, .n_streams = n_streams,
                               .buffer_tlps = buffer_tlps };
    q->last_p = calloc((size_t)n_streams * PCIE_EGRESS_TCS,
                       sizeof(*q->last_p));
    return q->last_p ? 0 : -SIM_ENOMEM;
}

void pcie_egress_fini(struct pcie_egress *q)
{
    for (unsigned c = 0; c < TLP_FC_COUNT; c++) {
        free(q->fifo[c].slot);
        q->fifo[c].slot = NULL;
    }
    free(q->last_p);
    q->last_p = NULL;
}

int pcie_egress_push(struct pcie_egress *q, struct tlp *t, unsigned stream)
{
    enum tlp_fc_class cls = tlp_kind_fc_class(t->kind);
    struct pcie_egress_fifo *f = &q->fifo[cls];
    SIM_ASSERT(stream < q->n_streams, "egress: stream %u of %u", stream,
               q->n_streams);
    if (f->tail - f->head == f->cap && fifo_grow(f) < 0) {
        return -SIM_ENOMEM;
    }
    uint64_t *last_p = &q->last_p[stream * PCIE_EGRESS_TCS +
                                  (t->tc & (PCIE_EGRESS_TCS - 1))];
    struct pcie_egress_entry *e = fifo_at(f, f->tail++);
    e->t = t;
    e->seq = q->next_seq++;
    e->fence = 0;
    if (cls == TLP_FC_P) {
        *last_p = e->seq;
    } else if (cls == TLP_FC_NP || !(t->attr & TLP_ATTR_RO)) {
        e->fence = *last_p;
    }
    /* All queued TLPs hold a buffer slot while there is room for one more:
     * the newest is then among the first buffer_tlps. */
    if (q->count++ < q->buffer_tlps) {
        SIM_ASSERT(f->hold == f->tail - 1, "egress: buffer out of order");
        f->hold = f->tail;
        q->buffered++;
        sim_tlp_release_hold(t);
    }
    return 0;
}

/*
 * What the spec requires is kept: a posted request may always pass a
 * non-posted request or a completion (deadlock avoidance; here the P FIFO
 * never waits on the others), and nothing passes a posted request of its
 * own stream unless it is a completion with RO.
 * Model: where the spec permits passing but does not require it, order is
 * kept: P behind P, NP behind NP and CPL behind CPL stay FIFO across all
 * streams (so RO does not let a posted request pass another), and
 * ID-Based Ordering (IDO) is not exploited: an IDO request still waits for
 * the posted requests of its stream. That is legal, only stricter; it
 * costs throughput only when a refused TLP of one stream holds back a
 * TLP of the same class from another.
 * Model: NP TLPs may pass completions (Table 2-40 permits it), which the
 * separate FIFOs give for free.
 */
struct tlp *pcie_egress_next(const struct pcie_egress *q,
                             enum tlp_fc_class *cls)
{
    const struct pcie_egress_fifo *pf = &q->fifo[TLP_FC_P];
    const struct pcie_egress_entry *best = NULL;
    unsigned best_cls = 0;

    /* Posted writes only (a write stream): the P head, if not refused. */
    if (fifo_is_empty(&q->fifo[TLP_FC_NP]) &&
        fifo_is_empty(&q->fifo[TLP_FC_CPL])) {
        if (fifo_is_empty(pf) || (q->refused & (1u << TLP_FC_P))) {
            return NULL;
        }
        *cls = TLP_FC_P;
        return fifo_at(pf, pf->head)->t;
    }
    /* P first: with no fence it is eligible whenever not refused. */
    if (!fifo_is_empty(pf) && !(q->refused & (1u << TLP_FC_P))) {
        best = fifo_at(pf, pf->head);
        best_cls = TLP_FC_P;
    }
    /* Every P up to a fence has left iff the P head is newer than it. */
    uint64_t p_head_seq = fifo_is_empty(pf) ? UINT64_MAX
                                            : fifo_at(pf, pf->head)->seq;
    for (unsigned c = TLP_FC_NP; c < TLP_FC_COUNT; c++) {
        const struct pcie_egress_fifo *f = &q->fifo[c];
        if (fifo_is_empty(f) || (q->refused & (1u << c))) {
            continue;
        }
        const struct pcie_egress_entry *e = fifo_at(f, f->head);
        if (e->fence >= p_head_seq) {
            continue;           /* a P of its stream is still queued */
        }
        if (!best || e->seq < best->seq) {
            best = e;
            best_cls = c;
        }
    }
    if (!best) {
        return NULL;
    }
    *cls = (enum tlp_fc_class)best_cls;
    return best->t;
}

/* The oldest TLP still holding its credits takes the freed buffer slot. */
static void egress_promote(struct pcie_egress *q)
{
    struct pcie_egress_fifo *best = NULL;
    uint64_t best_seq = UINT64_MAX;
    for (unsigned c = 0; c < TLP_FC_COUNT; c++) {
        struct pcie_egress_fifo *f = &q->fifo[c];
        if (f->hold != f->tail && fifo_at(f, f->hold)->seq < best_seq) {
            best = f;
            best_seq = fifo_at(f, f->hold)->seq;
        }
    }
    if (best) {
        struct tlp *t = fifo_at(best, best->hold++)->t;
        q->buffered++;
        sim_tlp_release_hold(t);
    }
}

void pcie_egress_pop(struct pcie_egress *q, enum tlp_fc_class cls)
{
    struct pcie_egress_fifo *f = &q->fifo[cls];
    SIM_ASSERT(!fifo_is_empty(f), "egress: pop from an empty class %u",
               (unsigned)cls);
    bool was_buffered = f->head < f->hold;
    f->head++;
    if (f->hold < f->head) {
        f->hold = f->head;      /* it passed while still holding */
    }
    q->count--;
    if (was_buffered) {
        q->buffered--;
        egress_promote(q);
    }
}

/*
 * After sim_port_send of a TLP of `bytes` payload: whether it left (it is
 * counted) or the link refused it (-SIM_EAGAIN).
 */
static bool egress_sent(struct pcie_egress *q, struct sim_port *port, int rc,
                        uint32_t bytes)
{
    if (rc == -SIM_EAGAIN) {
        return false;
    }
    SIM_ASSERT(rc == 0, "%s.%s: send failed (%s): routing sent a TLP to "
               "an unconnected port", port->owner->name, port->name,
               sim_err_name(rc));
    q->tlps_out++;
    q->bytes_out += bytes;
    return true;
}

static unsigned drain_once(struct pcie_egress *q, struct sim_port *port)
{
    enum tlp_fc_class cls;
    struct tlp *t;
    unsigned n = 0;
    while ((t = pcie_egress_next(q, &cls)) != NULL) {
        uint32_t bytes = tlp_payload_bytes(t);
        if (!egress_sent(q, port, sim_port_send(port, t), bytes)) {
            pcie_egress_refuse(q, cls);
            continue;
        }
        pcie_egress_pop(q, cls);
        n++;
        if (q->count == 0) {
            break;              /* next() would find nothing */
        }
    }
    return n;
}

/*
 * An empty queue whose class is not refused: t goes to the link at once,
 * its ingress credits given back first, as push would; if the link
 * refuses it, it is queued as push queues it (the numbers push gives are
 * only compared with each other, so one not given to a TLP that left
 * changes no order). Returns 1 if t left, else 0.
 */
static unsigned egress_send_now(struct pcie_egress *q, struct tlp *t,
                                enum tlp_fc_class cls, unsigned stream,
                                struct sim_port *port)
{
    if (q->buffer_tlps > 0) {
        sim_tlp_release_hold(t);
    }
    uint32_t bytes = tlp_payload_bytes(t);
    q->draining = true;
    q->redrain = false;
    int rc = sim_port_send(port, t);
    q->draining = false;
    if (egress_sent(q, port, rc, bytes)) {
        return 1;
    }
    int pushed = pcie_egress_push(q, t, stream);
    SIM_ASSERT(pushed == 0, "egress: push into a ring with room failed");
    pcie_egress_refuse(q, cls);
    return 0;
}

int pcie_egress_send(struct pcie_egress *q, struct tlp *t, unsigned stream,
                     struct sim_port *port)
{
    enum tlp_fc_class cls = tlp_kind_fc_class(t->kind);
    if (q->count == 0 && q->fifo[cls].cap > 0 && !q->draining &&
        !(q->refused & (1u << cls))) {
        unsigned n = egress_send_now(q, t, cls, stream, port);
        if (n != 0 || !q->redrain) {
            return (int)n;
        }
        return (int)pcie_egress_drain(q, port);
    }
    int rc = pcie_egress_push(q, t, stream);
    return rc < 0 ? rc : (int)pcie_egress_drain(q, port);
}

unsigned pcie_egress_drain(struct pcie_egress *q, struct sim_port *port)
{
    if (q->draining) {
        q->redrain = true;      /* a link called back while we sent */
        return 0;
    }
    unsigned n = 0;
    q->draining = true;
    do {
        q->redrain = false;
        n += drain_once(q, port);
    } while (q->redrain);
    q->draining = false;
    return n;
}
