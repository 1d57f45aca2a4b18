/*
 * models/gpu/sm.c - the memory side of the GPU's SMs: an issue slot per
 * SM clock, local HBM accesses, and remote accesses as TLPs, with tags
 * and a per-SM limit of outstanding non-posted requests. The
 * write-combining buffer of remote stores is sm_wc.c.
 *
 * What is modelled:
 *  - Issue: each SM's load/store unit accepts one request (a coalesced
 *    32/64/128-byte segment) per SM clock; later ones wait their turn.
 *  - Local HBM: data is read or written when the request issues; done()
 *    follows after the HBM serialiser (gpu__hbm_reserve, shared with
 *    peers' BAR1 reads and copy engines) and the HBM latency. Atomics
 *    charge the operand twice (read and write), as completer.c does.
 *  - Remote loads: a MRd of the segment with a tag; completions (split at
 *    the completer's RCB) are assembled by byte_count; done() with the
 *    last byte. Remote reads sample memory when they arrive there.
 *  - Remote atomics: FetchAdd (integer add), Swap (exch) and CAS are PCIe
 *    AtomicOps (PCIe r6.0 §6.15). The others (min, max, inc, dec, and,
 *    or, xor, float add) have no AtomicOp: the SM emulates them with a
 *    read and a CAS loop, retrying with the value the CAS returned until
 *    it wins (counted, cas_retries). The arithmetic is common/atomic.h's.
 *    A request marked no_atomicops (a path that routes no AtomicOps) is a
 *    read, then a posted write of the new value (rmw_atomics): what the
 *    GPU does without native atomics, not atomic against other agents.
 *  - FLUSH: what a system-scope fence waits for (sm.h).
 *
 * Model: the SMs' TLPs share one FIFO per GPU (in issue order), handed to
 * the GPU in order (sm__pump): a non-posted one to an NVLink address with
 * an SM tag (sm_send_nvlink), the others through gpu_request_send
 * (nvlink_port.c: the way out, and the GPU's tag for a read); a head that
 * waits for a tag or for its SM's outstanding limit holds the ones behind
 * it (no TLP passes another, which PCIe allows).
 * Model: no L1 or L2 cache: every access is an HBM access or a TLP.
 */
#include <config.h>

#include "models/gpu/sm.h"

#include <stdlib.h>
#include <string.h>

#include "common/atomic.h"
#include "models/gpu/gpu.h"
#include "models/gpu/gpu_int.h"
#include "models/gpu/sm_int.h"
#include "models/mem/sparse.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/tlp.h"

/* Defaults: an H100/H200-class SM (CUDA C Programming Guide, compute
 * capability 9.0: 132 SMs at up to 1.98 GHz). */
#define SM_DEF_COUNT 132u
#define SM_DEF_CLOCK_HZ UINT64_C(1980000000)
#define SM_DEF_OUTSTANDING 64u
#define SM_DEF_WC_LINES 16u
#define SM_DEF_WC_TIMEOUT SIM_NS(500)
#define SM_DEF_LAUNCH SIM_NS(3000)
#define SM_MAX_OUTSTANDING 1024u
#define SM_MAX_WC_LINES 1024u
/* SM tags over NVLink follow the GPU's PCIe tags in the 16-bit field. */
#define SM_MAX_NVL_TAGS (65536u - GPU_TAGS_MAX)

static void sm_retry(struct sim *sim, struct sim_event *ev);

static void sm_fill_defaults(struct gpu *g, struct gpu_sm_params *p)
{
    p->n_sm = g->info.sms ? g->info.sms : SM_DEF_COUNT;
    p->clock_hz = g->info.sm_clock_hz ? g->info.sm_clock_hz : SM_DEF_CLOCK_HZ;
    p->outstanding = SM_DEF_OUTSTANDING;
    p->wc_lines = SM_DEF_WC_LINES;
    p->wc_timeout_ps = SM_DEF_WC_TIMEOUT;
    p->launch_ps = SM_DEF_LAUNCH;
}

static bool sm_params_are_valid(const struct gpu_sm_params *p)
{
    return p->n_sm > 0 && p->n_sm <= 1024 && p->clock_hz > 0 &&
           p->clock_hz <= SIM_PS_PER_S && p->outstanding > 0 &&
           p->outstanding <= SM_MAX_OUTSTANDING && p->wc_lines > 0 &&
           p->wc_lines <= SM_MAX_WC_LINES &&
           (uint64_t)p->n_sm * p->outstanding <= SM_MAX_NVL_TAGS;
}

static void sm_free_units(struct sm_state *st)
{
    free(st->nvl_tag);
    free(st->nvl_free);
    st->nvl_tag = NULL;
    st->nvl_free = NULL;
    st->n_nvl_tag = st->n_nvl_free = 0;
    if (!st->u) {
        return;
    }
    for (unsigned i = 0; i < st->prm.n_sm; i++) {
        sim_event_cancel(st->g->c->sim, &st->u[i].wc_ev);
        free(st->u[i].wc);
    }
    free(st->u);
    st->u = NULL;
}

static int sm_alloc_units(struct sm_state *st)
{
    st->u = calloc(st->prm.n_sm, sizeof(*st->u));
    st->n_nvl_tag = st->prm.n_sm * st->prm.outstanding;
    st->nvl_tag = calloc(st->n_nvl_tag, sizeof(*st->nvl_tag));
    st->nvl_free = calloc(st->n_nvl_tag, sizeof(*st->nvl_free));
    if (!st->u || !st->nvl_tag || !st->nvl_free) {
        free(st->u);
        st->u = NULL;
        sm_free_units(st);
        return -SIM_ENOMEM;
    }
    for (unsigned i = 0; i < st->n_nvl_tag; i++) {
        st->nvl_free[i] = (uint16_t)(st->n_nvl_tag - 1 - i);
    }
    st->n_nvl_free = st->n_nvl_tag;
    for (unsigned i = 0; i < st->prm.n_sm; i++) {
        st->u[i].st = st;
        sim_event_init(&st->u[i].wc_ev, sm__wc_timeout);
        st->u[i].wc = calloc(st->prm.wc_lines, sizeof(struct sm_line));
        if (!st->u[i].wc) {
            sm_free_units(st);
            return -SIM_ENOMEM;
        }
    }
    return 0;
}

/* The SM state without its units (parameters only). */
static struct sm_state *sm_state_get(struct gpu *g)
{
    if (g->sm) {
        return g->sm;
    }
    struct sm_state *st = calloc(1, sizeof(*st));
    if (!st) {
        return NULL;
    }
    st->g = g;
    sim_event_init(&st->retry_ev, sm_retry);
    sm_fill_defaults(g, &st->prm);
    g->sm = st;
    return st;
}

/* The SM state with its units, created on first use (a machine that runs
 * no kernel allocates no SM state beyond its parameters). */
static struct sm_state *sm_get(struct gpu *g)
{
    struct sm_state *st = sm_state_get(g);
    if (st && !st->u && sm_alloc_units(st) < 0) {
        return NULL;
    }
    return st;
}

int sm__configure(struct gpu *g, const struct sim_props *p,
                  struct sim_error *err)
{
    struct sm_state *st = sm_state_get(g);
    if (!st) {
        return sim_error_set(err, SIM_ENOMEM, "out of memory");
    }
    struct gpu_sm_params prm = st->prm;
    uint64_t v = prm.outstanding;
    int rc = sim_props_get_u64(p, "sm-outstanding", &v, 1,
                               SM_MAX_OUTSTANDING, 0, err);
    prm.outstanding = (unsigned)v;
    v = prm.wc_lines;
    if (rc == 0) {
        rc = sim_props_get_u64(p, "sm-wc-lines", &v, 1, SM_MAX_WC_LINES, 0,
                               err);
    }
    prm.wc_lines = (unsigned)v;
    if (rc == 0) {
        rc = sim_props_get_time(p, "sm-wc-timeout", &prm.wc_timeout_ps, 0,
                                err);
    }
    if (rc == 0) {
        rc = sim_props_get_time(p, "launch-latency", &prm.launch_ps, 0, err);
    }
    if (rc < 0) {
        return rc;
    }
    if ((uint64_t)prm.n_sm * prm.outstanding > SM_MAX_NVL_TAGS) {
        return sim_props_error(p, "sm-outstanding", SIM_EINVAL, err,
                               "%s: sm-outstanding: %u SMs x %u requests is "
                               "more than the %u the SMs can tag; lower it",
                               p->owner, prm.n_sm, prm.outstanding,
                               SM_MAX_NVL_TAGS);
    }
    st->prm = prm;
    return 0;
}

static void sm_out_free(struct sm_out *o);

void sm__fini(struct gpu *g)
{
    struct sm_state *st = g->sm;
    if (!st) {
        return;
    }
    sm_free_units(st);
    sim_event_cancel(g->c->sim, &st->retry_ev);
    while (st->live) {
        sm_out_free(st->live);  /* queued, or still in flight */
    }
    free(st);
    g->sm = NULL;
}

/* ---- atomics arithmetic ---------------------------------------------------- */

unsigned gpu_sm_type_bytes(enum gpu_sm_type type)
{
    return type == GPU_SM_U32 || type == GPU_SM_S32 || type == GPU_SM_F32
               ? 4u : 8u;
}

/* The SM's operations and types as common/atomic.h names them. */
static const enum atom_op sm_atom_op[] = {
    [GPU_SM_ATOM_ADD] = ATOM_ADD, [GPU_SM_ATOM_EXCH] = ATOM_EXCH,
    [GPU_SM_ATOM_CAS] = ATOM_CAS, [GPU_SM_ATOM_MIN] = ATOM_MIN,
    [GPU_SM_ATOM_MAX] = ATOM_MAX, [GPU_SM_ATOM_INC] = ATOM_INC,
    [GPU_SM_ATOM_DEC] = ATOM_DEC, [GPU_SM_ATOM_AND] = ATOM_AND,
    [GPU_SM_ATOM_OR] = ATOM_OR,   [GPU_SM_ATOM_XOR] = ATOM_XOR,
};

static const enum atom_type sm_atom_type[] = {
    [GPU_SM_U32] = ATOM_U32, [GPU_SM_S32] = ATOM_S32,
    [GPU_SM_U64] = ATOM_U64, [GPU_SM_S64] = ATOM_S64,
    [GPU_SM_F32] = ATOM_F32, [GPU_SM_F64] = ATOM_F64,
};

uint64_t gpu_sm_atom_apply(enum gpu_sm_atom op, enum gpu_sm_type type,
                           uint64_t old, uint64_t operand, uint64_t compare)
{
    uint64_t mask = gpu_sm_type_bytes(type) == 4 ? UINT32_MAX : UINT64_MAX;
    if ((unsigned)op >= sizeof(sm_atom_op) / sizeof(sm_atom_op[0]) ||
        (unsigned)type >= sizeof(sm_atom_type) / sizeof(sm_atom_type[0])) {
        return old & mask;
    }
    return atom_apply(sm_atom_op[op], sm_atom_type[type], old, operand,
                      compare);
}

/* ---- finishing requests ---------------------------------------------------- */

static void sm_done_event(struct sim *sim, struct sim_event *ev)
{
    struct gpu_sm_req *r = SIM_CONTAINER_OF(ev, struct gpu_sm_req, ev);
    r->t_done = sim_now(sim);
    r->done(r);
}

/* done(r) at time t (now if past), from an event. */
void sm__finish_at(struct gpu *g, struct gpu_sm_req *r, sim_time_t t)
{
    sim_event_init(&r->ev, sm_done_event);
    sim_time_t now = sim_now(g->c->sim);
    sim_event_schedule_at(g->c->sim, &r->ev, t > now ? t : now);
}

/* ---- the FIFO of TLPs to be ------------------------------------------------ */

/* A new request queued on the FIFO, or NULL out of memory (the
 * simulation has failed then). */
struct sm_out *sm__out_new(struct sm_state *st, enum tlp_kind kind,
                                 unsigned sm, uint64_t addr, uint32_t len,
                                 struct gpu_sm_req *req)
{
    struct sm_out *o = calloc(1, sizeof(*o));
    if (!o) {
        sim_component_nomem(st->g->c, "an SM request");
        return NULL;
    }
    o->live_next = st->live;
    if (st->live) {
        st->live->live_prev = o;
    }
    st->live = o;
    o->st = st;
    o->kind = kind;
    o->sm = sm;
    o->addr = addr;
    o->len = len;
    o->req = req;
    if (st->tail) {
        st->tail->next = o;
    } else {
        st->head = o;
    }
    st->tail = o;
    return o;
}

/*
 * Byte enables of a request (PCIe r6.0 §2.2.5): First DW BE covers the
 * first DW, Last DW BE the last (0 when one DW holds it all). The same
 * rule copy_engine.c applies to its own requests.
 */
static void sm_byte_enables(struct tlp *t)
{
    if (t->len_bytes == 0) {
        t->first_be = t->last_be = 0;
        return;
    }
    uint64_t end = t->addr + t->len_bytes;
    uint8_t first = (uint8_t)((0xfu << (t->addr & 3)) & 0xfu);
    uint8_t last = (uint8_t)(0xfu >> ((4 - (end & 3)) & 3));
    if (t->addr >> 2 == (end - 1) >> 2) {
        t->first_be = first & last;
        t->last_be = 0;
    } else {
        t->first_be = first;
        t->last_be = last;
    }
}

static void sm_out_free(struct sm_out *o)
{
    struct sm_state *st = o->st;
    if (o->live_prev) {
        o->live_prev->live_next = o->live_next;
    } else {
        st->live = o->live_next;
    }
    if (o->live_next) {
        o->live_next->live_prev = o->live_prev;
    }
    free(o->wdata);
    free(o);
}

static void sm_cpl(void *ctx, struct tlp *cpl);
static void sm_send_nvlink(struct sm_state *st, struct tlp *t,
                           struct sm_out *o);

/* How long to wait before asking again when the GPU had no free tag (its
 * copy engines hold them all; their completions do not tell us). */
#define SM_TAG_RETRY_PS SIM_NS(10)

/*
 * A non-posted request to an NVLink address: tracked by the SM, not by
 * the GPU's PCIe Tag space. The 10-bit Tag (1024 reads per requester,
 * PCIe r6.0 §2.2.6.2) bounds what leaves by PCIe; NVLink requests are
 * matched by the SMs' own miss tracking, so the limit over NVLink is each
 * SM's outstanding (sm-outstanding), 132 x 64 on an H200, not 1024 for the
 * GPU (which held a 132-SM pull over NV18 to 1024 x 128 B per round trip,
 * 133 GB/s against 346 measured, data/hgx-h200-x2/). The tag carried is
 * GPU_TAGS_MAX + the slot, so the completion finds its way back
 * (sm__receive_completion).
 */
static void sm_send_nvlink(struct sm_state *st, struct tlp *t,
                           struct sm_out *o)
{
    struct gpu *g = st->g;
    SIM_ASSERT(st->n_nvl_free > 0, "gpu %s: SM NVLink tags exhausted",
               g->c->name);
    unsigned i = st->nvl_free[--st->n_nvl_free];
    st->nvl_tag[i] = o;
    t->requester_id = g->id;
    t->tag = (uint16_t)(GPU_TAGS_MAX + i);
    gpu__egress_push_req(g, t, NULL, NULL);
    gpu__egress_pump(g);
}

/*
 * Hand the FIFO to the GPU in order, while the head may go: a non-posted
 * head waits for its SM's outstanding limit, and one that leaves by PCIe
 * for a free tag of the GPU (gpu_request_send: it picks the port and the
 * tag); one over NVLink takes an SM tag (sm_send_nvlink).
 */
void sm__pump(struct sm_state *st)
{
    struct gpu *g = st->g;
    struct sm_out *o;
    while ((o = st->head)) {
        bool np = !tlp_kind_is_posted(o->kind);
        struct sm_unit *u = &st->u[o->sm];
        if (np && u->outstanding >= st->prm.outstanding) {
            return;             /* a completion of this SM pumps again */
        }
        struct tlp *t = tlp_alloc(g->c->sim, o->kind);
        if (!t) {
            sim_component_nomem(g->c, "an SM request");
            return;
        }
        t->at = TLP_AT_UNTRANSLATED;
        t->addr = o->addr;
        t->len_bytes = o->len;
        sm_byte_enables(t);
        if (tlp_kind_has_data(o->kind) && o->len) {
            if (tlp_data_alloc(t, o->len) < 0) {
                tlp_free(t);
                sim_component_nomem(g->c, "an SM request's payload");
                return;
            }
            memcpy(t->data, o->wdata ? o->wdata : o->data, o->len);
        }
        /* Off the FIFO first: a posted write may be answered (sm_cpl,
         * which frees o) before gpu_request_send returns. */
        st->head = o->next;
        if (!st->head) {
            st->tail = NULL;
        }
        o->next = NULL;
        st->in_flight++;
        if (np) {
            u->outstanding++;
        }
        if (np && gpu__out_for(g, o->addr) != 0) {
            sm_send_nvlink(st, t, o);
            continue;
        }
        int rc = gpu_request_send(g->c, t, sm_cpl, o);
        if (rc == -SIM_EBUSY) {
            tlp_free(t);
            st->in_flight--;
            u->outstanding--;
            o->next = st->head;
            st->head = o;
            if (!st->tail) {
                st->tail = o;
            }
            if (!sim_event_is_pending(&st->retry_ev)) {
                sim_event_schedule(g->c->sim, &st->retry_ev, SM_TAG_RETRY_PS);
            }
            return;
        }
        if (rc < 0) {
            st->in_flight--;
            if (np) {
                u->outstanding--;
            }
            /* Not sendable (the model's own bug, or no port): the request
             * fails rather than hanging. */
            tlp_free(t);
            if (o->req) {
                o->req->status = rc;
                if (!o->flush || --o->req->pending == 0) {
                    sm__finish_at(g, o->req, sim_now(g->c->sim));
                }
            }
            sm_out_free(o);
            continue;
        }
    }
}

static void sm_retry(struct sim *sim, struct sim_event *ev)
{
    (void)sim;
    sm__pump(SIM_CONTAINER_OF(ev, struct sm_state, retry_ev));
}

/* ---- issuing ----------------------------------------------------------- */

static bool sm_atom_is_native(const struct gpu_sm_req *r)
{
    switch (r->atom) {
    case GPU_SM_ATOM_ADD:
        return r->type != GPU_SM_F32 && r->type != GPU_SM_F64;
    case GPU_SM_ATOM_EXCH:
    case GPU_SM_ATOM_CAS:
        return true;
    default:
        return false;
    }
}

static void sm_queue_atomic(struct sm_state *st, struct gpu_sm_req *r,
                            enum tlp_kind kind, uint64_t a, uint64_t b)
{
    unsigned n = gpu_sm_type_bytes(r->type);
    struct sm_out *o = sm__out_new(st, kind, r->sm, r->addr,
                                  kind == TLP_CAS ? 2 * n : n, r);
    if (!o) {
        return;
    }
    gpu__put_le(o->data, a, n);
    if (kind == TLP_CAS) {
        gpu__put_le(o->data + n, b, n);
    }
    st->cnt.remote_atomics++;
}

static void sm_local(struct sm_state *st, struct gpu_sm_req *r)
{
    struct gpu *g = st->g;
    uint64_t charge = r->len;
    int rc = 0;
    if (r->kind == GPU_SM_LOAD) {
        rc = mem_sparse_read(g->hbm, r->addr, r->data, r->len);
    } else if (r->kind == GPU_SM_STORE) {
        rc = mem_sparse_write(g->hbm, r->addr, r->data, r->len);
    } else {
        unsigned n = gpu_sm_type_bytes(r->type);
        uint8_t b[8];
        rc = mem_sparse_read(g->hbm, r->addr, b, n);
        r->old = gpu__get_le(b, n);
        gpu__put_le(b, gpu_sm_atom_apply(r->atom, r->type, r->old, r->operand,
                                    r->compare), n);
        if (rc == 0) {
            rc = mem_sparse_write(g->hbm, r->addr, b, n);
        }
        charge = 2 * (uint64_t)n;
    }
    SIM_ASSERT(rc == 0 || rc == -SIM_ENOMEM, "gpu %s: HBM access failed (%s)",
               g->c->name, sim_strerror(rc));
    if (rc < 0) {
        sim_component_nomem(g->c, "a page of HBM");
        return;
    }
    sm__finish_at(g, r, gpu__hbm_reserve(g, charge) + g->hbm_latency_ps);
}

/* The request's issue slot has come. */
static void sm_begin(struct sim *sim, struct sim_event *ev)
{
    struct gpu_sm_req *r = SIM_CONTAINER_OF(ev, struct gpu_sm_req, ev);
    struct gpu *g = r->owner;
    struct sm_state *st = g->sm;
    (void)sim;
    if (r->kind == GPU_SM_FLUSH) {
        struct sm_unit *u = &st->u[r->sm];
        sm__wc_drain(st, r->sm);
        r->pending = u->n_written;
        for (unsigned i = 0; i < u->n_written; i++) {
            struct sm_out *o = sm__out_new(st, TLP_MRD, r->sm,
                                          u->written[i].addr & ~UINT64_C(3),
                                          0, r);
            if (o) {
                o->flush = true;
            }
        }
        u->n_written = 0;
        if (r->pending == 0) {
            sm__finish_at(g, r, sim_now(sim));
        }
    } else if (!r->remote) {
        sm_local(st, r);
        return;
    } else if (r->kind == GPU_SM_STORE) {
        sm__wc_store(st, r);
        return;
    } else {
        /* A load or atomic sees this SM's own earlier stores: the line
         * leaves first, and the read cannot pass it on the path. */
        sm__wc_evict_range(st, r->sm, r->addr, r->len);
        if (r->kind == GPU_SM_LOAD) {
            sm__out_new(st, TLP_MRD, r->sm, r->addr, r->len, r);
            st->cnt.remote_reads++;
        } else if (r->no_atomicops) {
            r->cas_retry = r->rmw = true;   /* read, then write */
            sm__out_new(st, TLP_MRD, r->sm, r->addr,
                       gpu_sm_type_bytes(r->type), r);
            st->cnt.remote_reads++;
        } else if (r->atom == GPU_SM_ATOM_ADD && sm_atom_is_native(r)) {
            sm_queue_atomic(st, r, TLP_FETCHADD, r->operand, 0);
        } else if (r->atom == GPU_SM_ATOM_EXCH) {
            sm_queue_atomic(st, r, TLP_SWAP, r->operand, 0);
        } else if (r->atom == GPU_SM_ATOM_CAS) {
            sm_queue_atomic(st, r, TLP_CAS, r->compare, r->operand);
        } else {
            r->cas_retry = true;    /* read first, then CAS */
            sm__out_new(st, TLP_MRD, r->sm, r->addr,
                       gpu_sm_type_bytes(r->type), r);
            st->cnt.remote_reads++;
        }
    }
    sm__pump(st);
}

static bool sm_req_is_valid(const struct gpu *g, const struct sm_state *st,
                            const struct gpu_sm_req *r)
{
    if (r->sm >= st->prm.n_sm || !r->done) {
        return false;
    }
    if (r->kind == GPU_SM_FLUSH) {
        return true;
    }
    uint32_t len = r->len;
    if (r->kind == GPU_SM_ATOMIC) {
        len = gpu_sm_type_bytes(r->type);
        if (r->addr & (len - 1)) {
            return false;
        }
    } else if (r->kind != GPU_SM_LOAD && r->kind != GPU_SM_STORE) {
        return false;
    }
    if (len == 0 || len > GPU_SM_LINE_BYTES ||
        (r->addr & (GPU_SM_LINE_BYTES - 1)) + len > GPU_SM_LINE_BYTES) {
        return false;
    }
    if (!r->remote) {
        return r->addr < g->mem_bytes && len <= g->mem_bytes - r->addr;
    }
    return r->addr <= UINT64_MAX - len;
}

int gpu_sm_submit(struct sim_component *c, struct gpu_sm_req *r)
{
    struct gpu *g = gpu__from(c);
    struct sm_state *st = sm_get(g);
    if (!st) {
        return sim_component_nomem(c, "the SM model's state");
    }
    if (!r || !sm_req_is_valid(g, st, r)) {
        return -SIM_EINVAL;
    }
    if (r->remote && !sim_port_is_connected(g->port)) {
        return -SIM_ENOTCONN;
    }
    if (r->kind == GPU_SM_ATOMIC) {
        r->len = gpu_sm_type_bytes(r->type);
    }
    r->status = 0;
    r->got = 0;
    r->pending = 0;
    r->cas_retry = false;
    r->rmw = false;
    r->next = NULL;
    r->owner = g;
    switch (r->kind) {
    case GPU_SM_LOAD: st->cnt.loads++; break;
    case GPU_SM_STORE: st->cnt.stores++; break;
    case GPU_SM_ATOMIC: st->cnt.atomics++; break;
    case GPU_SM_FLUSH: st->cnt.flushes++; break;
    }
    /* One request per SM clock through the load/store unit. */
    struct sm_unit *u = &st->u[r->sm];
    sim_time_t now = sim_now(c->sim);
    sim_time_t start = u->lsu_free > now ? u->lsu_free : now;
    u->lsu_free = sim_time_add(start, SIM_PS_PER_S / st->prm.clock_hz);
    sim_event_init(&r->ev, sm_begin);
    sim_event_schedule_at(c->sim, &r->ev, start);
    return 0;
}

/* ---- completions ------------------------------------------------------------ */

/* An emulated atomic's read or CAS came back with the location's value
 * seen; sent_kind and expected say what was sent. */
static void sm_atomic_step(struct sm_state *st, struct gpu_sm_req *r,
                           enum tlp_kind sent_kind, uint64_t expected,
                           uint64_t seen)
{
    if (r->rmw) {
        /* No AtomicOps on the path: the new value goes back as a plain
         * posted write, which another agent's access may overtake. */
        unsigned n = gpu_sm_type_bytes(r->type);
        struct sm_out *o = sm__out_new(st, TLP_MWR, r->sm, r->addr, n, NULL);
        if (o) {
            gpu__put_le(o->data, gpu_sm_atom_apply(r->atom, r->type, seen,
                                                   r->operand, r->compare),
                        n);
            st->cnt.remote_writes++;
            st->cnt.rmw_atomics++;
        }
        r->old = seen;
        r->done(r);
        return;
    }
    if (sent_kind == TLP_CAS) {
        if (seen == expected) {
            r->old = seen;
            r->done(r);
            return;
        }
        st->cnt.cas_retries++;
    }
    uint64_t nv = gpu_sm_atom_apply(r->atom, r->type, seen, r->operand,
                                    r->compare);
    sm_queue_atomic(st, r, TLP_CAS, seen, nv);
}

/* A completion for o (cpl), or o's posted write left the GPU (NULL). */
static void sm_cpl(void *ctx, struct tlp *cpl)
{
    struct sm_out *o = ctx;
    struct gpu_sm_req *r = o->req;
    struct sm_state *st = o->st;
    struct gpu *g = st->g;
    if (!cpl) {
        /* Posted: nothing waits for it beyond the count. */
        st->in_flight--;
        sm_out_free(o);
        return;
    }
    uint32_t n = tlp_payload_bytes(cpl);
    bool whole = true;
    r->t_done = sim_now(g->c->sim);
    if (cpl->cpl_status != TLP_CPL_SC || cpl->poisoned) {
        r->status = -SIM_EIO;
        gpu__trace(g, cpl, cpl->tag, cpl->cpl_status,
                   "SM request: error completion");
    } else if (!o->flush && o->kind == TLP_MRD) {
        uint32_t bc = cpl->byte_count <= o->len ? cpl->byte_count : o->len;
        uint32_t at = o->len - bc;
        if (cpl->data && n <= o->len - at) {
            if (r->cas_retry) {
                uint8_t b[8] = { 0 };
                memcpy(b + at, cpl->data, n);
                r->old = gpu__get_le(b, o->len);
            } else {
                memcpy(r->data + at, cpl->data, n);
            }
        }
        o->got += n;
        whole = o->got >= o->len;
    } else if (!o->flush && cpl->data) {
        r->old = gpu__get_le(cpl->data, gpu_sm_type_bytes(r->type));
    }
    if (!whole) {
        return;
    }
    st->u[o->sm].outstanding--;
    st->in_flight--;
    bool emulated = r->cas_retry && r->status == 0;
    enum tlp_kind kind = o->kind;
    uint64_t expected = gpu__get_le(o->data, gpu_sm_type_bytes(r->type));
    bool flush = o->flush;
    sm_out_free(o);
    if (flush) {
        if (--r->pending == 0) {
            r->done(r);
        }
    } else if (emulated) {
        sm_atomic_step(st, r, kind, expected, r->old);
    } else {
        r->done(r);
    }
    sm__pump(st);
}

/* A completion carrying an SM tag (sm_send_nvlink); consumes t. */
void sm__receive_completion(struct gpu *g, struct tlp *t)
{
    struct sm_state *st = g->sm;
    unsigned i = (unsigned)t->tag - GPU_TAGS_MAX;
    struct sm_out *o = st && t->tag >= GPU_TAGS_MAX && i < st->n_nvl_tag
                           ? st->nvl_tag[i] : NULL;
    if (!o || t->requester_id != g->id) {
        g->unexpected_cpl++;
        gpu__trace(g, t, t->tag, t->requester_id,
                   "completion matches no outstanding SM request: dropped");
        tlp_free(t);
        return;
    }
    /* The slot is free once the read is whole or failed (as the GPU's
     * tags, copy_engine.c); a CAS returns one operand of the two sent. */
    uint32_t want = o->kind == TLP_CAS ? o->len / 2 : o->len;
    uint32_t n = tlp_payload_bytes(t);
    if (t->cpl_status != TLP_CPL_SC || t->kind == TLP_CPL ||
        (o->kind == TLP_MRD ? o->got + n >= want : true)) {
        st->nvl_tag[i] = NULL;
        st->nvl_free[st->n_nvl_free++] = (uint16_t)i;
    }
    sm_cpl(o, t);
    tlp_free(t);
    gpu__egress_pump(g);
}

/* ---- parameters and counters --------------------------------------------- */

void gpu_sm_get_params(struct sim_component *c, struct gpu_sm_params *out)
{
    struct gpu *g = gpu__from(c);
    if (g->sm) {
        *out = g->sm->prm;
    } else {
        sm_fill_defaults(g, out);
    }
}

unsigned gpu_sm_count(struct sim_component *c)
{
    struct gpu_sm_params p;
    gpu_sm_get_params(c, &p);
    return p.n_sm;
}

int gpu_sm_set_params(struct sim_component *c, const struct gpu_sm_params *p)
{
    struct gpu *g = gpu__from(c);
    if (!p || !sm_params_are_valid(p)) {
        return -SIM_EINVAL;
    }
    struct sm_state *st = sm_get(g);
    if (!st) {
        return -SIM_ENOMEM;
    }
    if (st->head || st->in_flight) {
        return -SIM_EBUSY;
    }
    sm_free_units(st);
    st->prm = *p;
    return sm_alloc_units(st);
}

void gpu_sm_get_counters(struct sim_component *c, struct gpu_sm_counters *out)
{
    struct gpu *g = gpu__from(c);
    if (g->sm) {
        *out = g->sm->cnt;
    } else {
        memset(out, 0, sizeof(*out));
    }
}
