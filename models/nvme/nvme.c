/*
 * models/nvme/nvme.c - an NVMe drive (models/nvme/nvme.h).
 *
 *   host memory: SQ [64 B entries]  CQ [16 B entries]
 *        ^ MRd (fetch)        ^ MWr (completion)
 *        |                    |
 *   "pcie" [ DMA engine: tags, MPS, MRRS ] -- media: one read channel,
 *                                             one write channel
 *
 * A doorbell (nvme_ring_sq) makes the drive fetch each new SQE with a
 * 64-byte read from the SQ. A read command then waits read-latency (the
 * media's access), its bytes leave the media's read channel at
 * read-bandwidth, one command after another, and the DMA engine writes
 * them to PRP1 as MPS-sized MWrs (never across 4 KiB) as they come;
 * after its last data write the CQE is written to the CQ (posted writes
 * stay in order on the drive's link). A write command reads its data
 * from PRP1 with MRRS-sized reads, at most `tags` outstanding; when it is
 * in, the media's write channel takes it at write-bandwidth, and the CQE
 * goes write-latency later.
 *
 * Model: one I/O queue pair, no interrupts (the host polls the CQ, as
 * SPDK and cuFile's polling mode do); PRP1 is the start of a contiguous
 * buffer (no PRP lists to fetch); the doorbell's MMIO write from the CPU
 * is not a TLP (the CPU is no requester in this simulator); the media
 * is one channel per direction with a fixed latency per command (no
 * dies, no garbage collection, no SLC cache). Writes to its BAR are
 * dropped, reads return zeros.
 */
#include <config.h>

#include "models/nvme/nvme.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/mem/sparse.h"
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

#define NVME_BAR_BYTES (16u << 10)
#define NVME_DEPTH_MAX 1024u
#define NVME_OUT_LOW 8u         /* data TLPs queued before the media waits */

enum nvme_tag_use { TAG_FREE, TAG_SQE, TAG_DATA };

struct nvme_tag {
    enum nvme_tag_use use;
    unsigned slot;              /* TAG_SQE: SQ index; TAG_DATA: command */
    uint64_t off;               /* TAG_DATA: command offset of the read */
    uint32_t got;               /* bytes completed so far */
    uint8_t sqe[NVME_SQE_BYTES];    /* TAG_SQE: the entry as it comes */
};

enum nvme_cstate { CMD_FREE, CMD_FETCHING, CMD_MEDIA, CMD_PULL, CMD_DONE };

struct nvme_slot {
    enum nvme_cstate st;
    struct nvme_cmd cmd;
    uint64_t len;               /* bytes */
    sim_time_t begin;           /* read: its first byte leaves the media */
    uint64_t sent;              /* read: bytes written out; write: asked */
    uint64_t got;               /* write: bytes in */
    unsigned inflight;          /* write: its reads outstanding */
    unsigned status;            /* CQE status (0: success) */
    struct sim_event ev;        /* write: the media has it */
    struct nvme *d;
};

struct nvme {
    struct sim_component *self;
    struct sim_port *port;
    uint16_t id;
    uint64_t bar;
    /* configuration */
    uint64_t capacity, rd_rate, wr_rate, mdts;
    sim_time_t rd_lat, wr_lat;
    unsigned lba, n_tags, mrrs, mps, max_gen, max_width;
    struct mem_sparse *media;
    /* the queue pair */
    uint64_t sq, cq;
    unsigned depth, sq_fetch, sq_tail, cq_tail, phase;
    struct nvme_slot *slot;     /* per SQ index */
    /* read commands whose data is to go out, in media order */
    unsigned *rq, rq_head, rq_n;
    struct sim_event dma_timer;
    /* write commands still asking for data, in order */
    unsigned *wq, wq_head, wq_n;
    /* the DMA engine */
    struct nvme_tag *tag;
    unsigned tags_used;
    sim_time_t rd_free, wr_free;    /* the media channels */
    struct tlp **out;               /* ring of TLPs to send */
    unsigned out_head, out_n, out_cap;
    struct {
        uint64_t reads, writes, bytes_read, bytes_written;
        uint64_t sqe_fetches, cqes, errors;
    } cnt;
};

static struct nvme *nvme_from(const struct sim_component *c)
{
    return sim_component_state(c);
}

/* ---- SQE and CQE layouts (NVMe 2.0 base specification, figures of the
 * common command format and of the completion queue entry) ----------- */

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

void nvme_sqe_encode(const struct nvme_cmd *cmd, uint8_t sqe[NVME_SQE_BYTES])
{
    memset(sqe, 0, NVME_SQE_BYTES);
    sqe[0] = cmd->opcode;                       /* CDW0: opcode */
    put_le(sqe + 2, cmd->cid, 2);               /* CDW0: command id */
    put_le(sqe + 4, 1, 4);                      /* NSID 1 */
    put_le(sqe + 24, cmd->prp1, 8);             /* DPTR: PRP entry 1 */
    put_le(sqe + 40, cmd->slba, 8);             /* CDW10-11: SLBA */
    put_le(sqe + 48, cmd->nlb - 1, 2);          /* CDW12: NLB, 0-based */
}

static void sqe_decode(const uint8_t *sqe, struct nvme_cmd *cmd)
{
    cmd->opcode = sqe[0];
    cmd->cid = (uint16_t)get_le(sqe + 2, 2);
    cmd->prp1 = get_le(sqe + 24, 8);
    cmd->slba = get_le(sqe + 40, 8);
    cmd->nlb = (uint32_t)get_le(sqe + 48, 2) + 1;
}

void nvme_cqe_decode(const uint8_t cqe[NVME_CQE_BYTES], uint16_t *cid,
                     unsigned *phase, unsigned *status)
{
    uint32_t dw3 = (uint32_t)get_le(cqe + 12, 4);
    *cid = (uint16_t)dw3;                       /* DW3: command id */
    *phase = (dw3 >> 16) & 1u;                  /* phase tag */
    *status = dw3 >> 17;                        /* status field */
}

/* ---- the egress ----------------------------------------------------------- */

static void dma_produce(struct nvme *d);

static void out_pump(struct nvme *d)
{
    while (d->out_n) {
        struct tlp *t = d->out[d->out_head];
        int rc = sim_port_send(d->port, t);
        if (rc == -SIM_EAGAIN) {
            return;             /* ready() follows */
        }
        if (rc < 0) {
            tlp_free(t);
        }
        d->out_head = (d->out_head + 1) % d->out_cap;
        d->out_n--;
    }
    dma_produce(d);
}

static int out_push(struct nvme *d, struct tlp *t)
{
    if (d->out_n == d->out_cap) {
        unsigned cap = d->out_cap ? 2 * d->out_cap : 64;
        struct tlp **q = malloc(cap * sizeof(*q));
        if (!q) {
            tlp_free(t);
            return sim_component_nomem(d->self, "its egress queue");
        }
        for (unsigned i = 0; i < d->out_n; i++) {
            q[i] = d->out[(d->out_head + i) % d->out_cap];
        }
        free(d->out);
        d->out = q;
        d->out_cap = cap;
        d->out_head = 0;
    }
    d->out[(d->out_head + d->out_n++) % d->out_cap] = t;
    return 0;
}

static struct tlp *new_req(struct nvme *d, enum tlp_kind k, uint64_t addr,
                           uint32_t len)
{
    struct tlp *t = tlp_alloc(d->self->sim, k);
    if (!t) {
        sim_component_nomem(d->self, "a request");
        return NULL;
    }
    t->requester_id = d->id;
    t->addr = addr;
    t->len_bytes = len;
    if (k == TLP_MWR && tlp_data_alloc(t, len) < 0) {
        tlp_free(t);
        sim_component_nomem(d->self, "a write's payload");
        return NULL;
    }
    return t;
}

static int tag_take(struct nvme *d, enum nvme_tag_use use, unsigned slot,
                    uint64_t off)
{
    if (d->tags_used == d->n_tags) {
        return -1;
    }
    for (unsigned i = 0; i < d->n_tags; i++) {
        if (d->tag[i].use == TAG_FREE) {
            d->tag[i].use = use;
            d->tag[i].slot = slot;
            d->tag[i].off = off;
            d->tag[i].got = 0;
            d->tags_used++;
            return (int)i;
        }
    }
    return -1;
}

/* ---- completions to the host -------------------------------------------- */

static void pull_more(struct nvme *d);
static void fetch_more(struct nvme *d);

static void post_cqe(struct nvme *d, unsigned idx)
{
    struct nvme_slot *s = &d->slot[idx];
    struct tlp *t = new_req(d, TLP_MWR, d->cq + (uint64_t)d->cq_tail *
                                                NVME_CQE_BYTES,
                            NVME_CQE_BYTES);
    s->st = CMD_FREE;
    if (!t) {
        return;
    }
    memset(t->data, 0, NVME_CQE_BYTES);
    put_le(t->data + 8, d->sq_fetch, 2);        /* DW2: SQ head */
    uint32_t dw3 = s->cmd.cid | (uint32_t)d->phase << 16 |
                   (uint32_t)s->status << 17;
    put_le(t->data + 12, dw3, 4);
    if (++d->cq_tail == d->depth) {
        d->cq_tail = 0;
        d->phase ^= 1u;
    }
    d->cnt.cqes++;
    if (s->status) {
        d->cnt.errors++;
    }
    out_push(d, t);
    out_pump(d);
    fetch_more(d);
}

/* ---- reads from the media: data out as MWrs ------------------------------ */

/* The next data write of the head read command, when the media has its
 * bytes; then the CQE after the last one. */
static void dma_produce(struct nvme *d)
{
    struct sim *sim = d->self->sim;
    while (d->rq_n && d->out_n < NVME_OUT_LOW) {
        unsigned idx = d->rq[d->rq_head];
        struct nvme_slot *s = &d->slot[idx];
        if (s->sent == s->len || s->status) {
            d->rq_head = (d->rq_head + 1) % d->depth;
            d->rq_n--;
            post_cqe(d, idx);
            continue;
        }
        uint64_t addr = s->cmd.prp1 + s->sent;
        uint32_t n = d->mps;
        uint64_t to_page = 4096 - (addr & 4095);
        n = (uint32_t)(n < to_page ? n : to_page);
        if (n > s->len - s->sent) {
            n = (uint32_t)(s->len - s->sent);
        }
        sim_time_t due = sim_time_add(s->begin,
                                      sim_time_for_bytes(s->sent + n,
                                                         d->rd_rate));
        if (due > sim_now(sim)) {
            if (!sim_event_is_pending(&d->dma_timer)) {
                sim_event_schedule_at(sim, &d->dma_timer, due);
            }
            return;
        }
        struct tlp *t = new_req(d, TLP_MWR, addr, n);
        if (!t) {
            return;
        }
        uint64_t media = s->cmd.slba * d->lba + s->sent;
        mem_sparse_read(d->media, media, t->data, n);
        s->sent += n;
        d->cnt.bytes_read += n;
        if (out_push(d, t) < 0) {
            return;
        }
        if (d->out_n == 1) {
            out_pump(d);        /* calls back here: the loop goes on */
            return;
        }
    }
}

static void dma_timer(struct sim *sim, struct sim_event *ev)
{
    (void)sim;
    struct nvme *d = SIM_CONTAINER_OF(ev, struct nvme, dma_timer);
    dma_produce(d);
    out_pump(d);
}

/* ---- writes to the media: data in through MRds ----------------------------- */

static void pull_more(struct nvme *d)
{
    while (d->wq_n) {
        unsigned idx = d->wq[d->wq_head];
        struct nvme_slot *s = &d->slot[idx];
        if (s->sent == s->len) {
            d->wq_head = (d->wq_head + 1) % d->depth;
            d->wq_n--;
            continue;
        }
        uint64_t addr = s->cmd.prp1 + s->sent;
        uint64_t to_page = 4096 - (addr & 4095);
        uint32_t n = (uint32_t)(d->mrrs < to_page ? d->mrrs : to_page);
        if (n > s->len - s->sent) {
            n = (uint32_t)(s->len - s->sent);
        }
        int tg = tag_take(d, TAG_DATA, idx, s->sent);
        if (tg < 0) {
            break;
        }
        struct tlp *t = new_req(d, TLP_MRD, addr, n);
        if (!t) {
            return;
        }
        t->tag = (uint16_t)tg;
        s->sent += n;
        s->inflight++;
        out_push(d, t);
    }
    out_pump(d);
}

static void media_written(struct sim *sim, struct sim_event *ev)
{
    (void)sim;
    struct nvme_slot *s = SIM_CONTAINER_OF(ev, struct nvme_slot, ev);
    post_cqe(s->d, (unsigned)(s - s->d->slot));
}

static void write_in(struct nvme *d, struct nvme_slot *s)
{
    sim_time_t now = sim_now(d->self->sim);
    sim_time_t start = d->wr_free > now ? d->wr_free : now;
    d->wr_free = sim_time_add(start, sim_time_for_bytes(s->len, d->wr_rate));
    s->st = CMD_DONE;
    sim_event_schedule_at(d->self->sim, &s->ev,
                          sim_time_add(d->wr_free, d->wr_lat));
}

/* ---- commands ------------------------------------------------------------ */

static void start_cmd(struct nvme *d, unsigned idx, const uint8_t *sqe)
{
    struct nvme_slot *s = &d->slot[idx];
    sqe_decode(sqe, &s->cmd);
    s->len = (uint64_t)s->cmd.nlb * d->lba;
    s->sent = s->got = 0;
    s->inflight = 0;
    s->status = 0;
    bool rd = s->cmd.opcode == NVME_OP_READ;
    bool wr = s->cmd.opcode == NVME_OP_WRITE;
    if ((!rd && !wr) || s->len > d->mdts ||
        s->cmd.slba * d->lba + s->len > d->capacity) {
        s->status = !rd && !wr ? 0x01 : 0x80;  /* invalid opcode, LBA range */
        s->st = CMD_DONE;
        post_cqe(d, idx);
        return;
    }
    if (rd) {
        sim_time_t now = sim_now(d->self->sim);
        sim_time_t ready = sim_time_add(now, d->rd_lat);
        s->begin = ready > d->rd_free ? ready : d->rd_free;
        d->rd_free = sim_time_add(s->begin,
                                  sim_time_for_bytes(s->len, d->rd_rate));
        s->st = CMD_MEDIA;
        d->cnt.reads++;
        d->rq[(d->rq_head + d->rq_n++) % d->depth] = idx;
        dma_produce(d);
        return;
    }
    s->st = CMD_PULL;
    d->cnt.writes++;
    d->wq[(d->wq_head + d->wq_n++) % d->depth] = idx;
    pull_more(d);
}

/* Fetch the SQEs between the last fetched and the tail, one read each. */
static void fetch_more(struct nvme *d)
{
    while (d->depth && d->sq_fetch != d->sq_tail &&
           d->slot[d->sq_fetch].st == CMD_FREE) {
        int tg = tag_take(d, TAG_SQE, d->sq_fetch, 0);
        if (tg < 0) {
            break;
        }
        struct tlp *t = new_req(d, TLP_MRD, d->sq + (uint64_t)d->sq_fetch *
                                                    NVME_SQE_BYTES,
                                NVME_SQE_BYTES);
        if (!t) {
            return;
        }
        t->tag = (uint16_t)tg;
        d->slot[d->sq_fetch].st = CMD_FETCHING;
        d->sq_fetch = (d->sq_fetch + 1) % d->depth;
        d->cnt.sqe_fetches++;
        out_push(d, t);
    }
    out_pump(d);
}

static void on_completion(struct nvme *d, struct tlp *t)
{
    if (t->tag >= d->n_tags || d->tag[t->tag].use == TAG_FREE) {
        sim_trace_component(d->self, SIM_TP_TLP_DROP, d->port->name, t, 0,
                            t->len_bytes, "nvme: unexpected completion");
        tlp_free(t);
        return;
    }
    struct nvme_tag *g = &d->tag[t->tag];
    bool ok = t->cpl_status == TLP_CPL_SC;
    uint32_t n = t->kind == TLP_CPLD ? t->len_bytes : 0;
    bool last = !ok || t->byte_count <= n;
    if (g->use == TAG_SQE) {
        if (ok && t->data && g->got + n <= NVME_SQE_BYTES) {
            memcpy(g->sqe + g->got, t->data, n);
        }
        g->got += n;
        unsigned idx = g->slot;
        if (last) {
            g->use = TAG_FREE;
            d->tags_used--;
            if (ok && g->got == NVME_SQE_BYTES) {
                start_cmd(d, idx, g->sqe);
            } else {
                d->slot[idx].st = CMD_FREE;   /* a broken SQ: dropped */
                d->cnt.errors++;
            }
        }
    } else {
        struct nvme_slot *s = &d->slot[g->slot];
        if (ok && t->data) {
            mem_sparse_write(d->media, s->cmd.slba * d->lba + g->off + g->got,
                             t->data, n);
        }
        g->got += n;
        s->got += n;
        d->cnt.bytes_written += n;
        if (!ok) {
            s->status = 0x04;   /* data transfer error */
        }
        if (last) {
            g->use = TAG_FREE;
            d->tags_used--;
            s->inflight--;
            if (s->st == CMD_PULL && s->sent == s->len && !s->inflight) {
                write_in(d, s);
            }
        }
        pull_more(d);
    }
    tlp_free(t);
}

static void nvme_receive(struct sim_component *c, struct sim_port *in,
                         struct tlp *t)
{
    (void)in;
    struct nvme *d = nvme_from(c);
    if (t->kind == TLP_CPL || t->kind == TLP_CPLD) {
        on_completion(d, t);
        return;
    }
    if (t->kind == TLP_MRD) {
        /* its registers: zeros */
        struct tlp *cpl = tlp_new_completion(c->sim, t, TLP_CPL_SC,
                                             t->len_bytes);
        if (cpl && t->len_bytes && tlp_data_alloc(cpl, t->len_bytes) == 0) {
            memset(cpl->data, 0, t->len_bytes);
            cpl->byte_count = t->len_bytes;
        }
        if (cpl) {
            cpl->completer_id = d->id;
            out_push(d, cpl);
            out_pump(d);
        }
    }
    tlp_free(t);
}

static void nvme_ready(struct sim_component *c, struct sim_port *out)
{
    (void)out;
    out_pump(nvme_from(c));
}

/* ---- the host's side ------------------------------------------------------ */

int nvme_create_queues(struct sim_component *c, uint64_t sq, uint64_t cq,
                       unsigned depth)
{
    struct nvme *d = nvme_from(c);
    if (depth < 2 || depth > NVME_DEPTH_MAX || d->depth) {
        return -SIM_EINVAL;
    }
    d->slot = calloc(depth, sizeof(*d->slot));
    d->rq = calloc(depth, sizeof(*d->rq));
    d->wq = calloc(depth, sizeof(*d->wq));
    if (!d->slot || !d->rq || !d->wq) {
        free(d->slot);
        free(d->rq);
        free(d->wq);
        d->slot = NULL;
        d->rq = d->wq = NULL;
        return -SIM_ENOMEM;
    }
    for (unsigned i = 0; i < depth; i++) {
        d->slot[i].d = d;
        sim_event_init(&d->slot[i].ev, media_written);
    }
    d->sq = sq;
    d->cq = cq;
    d->depth = depth;
    d->phase = 1;
    return 0;
}

void nvme_ring_sq(struct sim_component *c, unsigned tail)
{
    struct nvme *d = nvme_from(c);
    if (d->depth) {
        d->sq_tail = tail % d->depth;
        fetch_more(d);
    }
}

void nvme_get_counters(const struct sim_component *c, struct nvme_counters *out)
{
    const struct nvme *d = nvme_from(c);
    out->bytes_read = d->cnt.bytes_read;
    out->bytes_written = d->cnt.bytes_written;
    out->commands = d->cnt.cqes;
}

struct mem_sparse *nvme_media(struct sim_component *c)
{
    return nvme_from(c)->media;
}

uint64_t nvme_capacity(const struct sim_component *c)
{
    return nvme_from(c)->capacity;
}

unsigned nvme_lba(const struct sim_component *c)
{
    return nvme_from(c)->lba;
}

uint64_t nvme_mdts(const struct sim_component *c)
{
    return nvme_from(c)->mdts;
}

unsigned nvme_depth_max(void)
{
    return NVME_DEPTH_MAX;
}

void nvme_set_pcie_id(struct sim_component *c, uint16_t id)
{
    nvme_from(c)->id = id;
}

uint16_t nvme_pcie_id(const struct sim_component *c)
{
    return nvme_from(c)->id;
}

uint64_t nvme_bar_size(const struct sim_component *c)
{
    (void)c;
    return NVME_BAR_BYTES;
}

void nvme_set_bar(struct sim_component *c, uint64_t base)
{
    nvme_from(c)->bar = base;
}

unsigned nvme_max_gen(const struct sim_component *c)
{
    return nvme_from(c)->max_gen;
}

unsigned nvme_max_width(const struct sim_component *c)
{
    return nvme_from(c)->max_width;
}

unsigned nvme_mps(const struct sim_component *c)
{
    return nvme_from(c)->mps;
}

/* ---- lifecycle ------------------------------------------------------------ */

static int pow2_size(const struct sim_props *props, const char *key,
                     uint64_t *v, uint64_t lo, uint64_t hi,
                     struct sim_error *err, const char *name)
{
    int rc = sim_props_get_size(props, key, v, 0, err);
    if (rc == 0 && (*v < lo || *v > hi || (*v & (*v - 1)) != 0)) {
        rc = sim_props_error(props, key, SIM_ERANGE, err,
                             "nvme-drive '%s': %s must be a power of two "
                             "from %llu to %llu bytes", name, key,
                             (unsigned long long)lo, (unsigned long long)hi);
    }
    return rc;
}

static int nvme_configure(struct sim_component *c,
                          const struct sim_props *props,
                          struct sim_error *err)
{
    struct nvme *d = nvme_from(c);
    d->self = c;
    d->capacity = UINT64_C(3840000000000);
    d->rd_rate = UINT64_C(7000000000);
    d->wr_rate = UINT64_C(4200000000);
    d->rd_lat = SIM_NS(82000);
    d->wr_lat = SIM_NS(15000);
    d->max_gen = 4;
    d->max_width = 4;
    uint64_t lba = 4096, mdts = 128 << 10, tags = 256, mrrs = 512,
             mps = 256, gen = 4, width = 4;
    sim_event_init(&d->dma_timer, dma_timer);
    int rc = 0;
    if (props) {
        rc = sim_props_get_size(props, "capacity", &d->capacity, 0, err);
        if (rc == 0) {
            rc = sim_props_get_rate(props, "read-bandwidth", &d->rd_rate, 0,
                                    err);
        }
        if (rc == 0) {
            rc = sim_props_get_rate(props, "write-bandwidth", &d->wr_rate, 0,
                                    err);
        }
        if (rc == 0) {
            rc = sim_props_get_time(props, "read-latency", &d->rd_lat, 0,
                                    err);
        }
        if (rc == 0) {
            rc = sim_props_get_time(props, "write-latency", &d->wr_lat, 0,
                                    err);
        }
        if (rc == 0) {
            rc = pow2_size(props, "lba", &lba, 512, 4096, err, c->name);
        }
        if (rc == 0) {
            rc = pow2_size(props, "mdts", &mdts, 4096, 8u << 20, err,
                           c->name);
        }
        if (rc == 0) {
            rc = pow2_size(props, "mrrs", &mrrs, 128, 4096, err, c->name);
        }
        if (rc == 0) {
            rc = pow2_size(props, "mps", &mps, 128, 4096, err, c->name);
        }
        if (rc == 0) {
            rc = sim_props_get_u64(props, "tags", &tags, 1, 1024, 0, err);
        }
        if (rc == 0) {
            rc = sim_props_get_u64(props, "max-gen", &gen, 1, 6, 0, err);
        }
        if (rc == 0) {
            rc = sim_props_get_u64(props, "max-width", &width, 1, 16, 0, err);
        }
        if (rc == 0 && !pcie_width_is_valid((unsigned)width)) {
            rc = sim_props_error(props, "max-width", SIM_ERANGE, err,
                                 "nvme-drive '%s': max-width is 1, 2, 4, 8 "
                                 "or 16 lanes", c->name);
        }
    }
    if (rc < 0) {
        return rc;
    }
    if (d->capacity < lba || d->rd_rate == 0 || d->wr_rate == 0) {
        return sim_error_set(err, SIM_ERANGE, "nvme-drive '%s': capacity, "
                             "read-bandwidth and write-bandwidth must be "
                             "above 0", c->name);
    }
    if (mdts < lba) {
        mdts = lba;
    }
    d->lba = (unsigned)lba;
    d->mdts = mdts;
    d->n_tags = (unsigned)tags;
    d->mrrs = (unsigned)mrrs;
    d->mps = (unsigned)mps;
    d->max_gen = (unsigned)gen;
    d->max_width = (unsigned)width;
    d->media = mem_sparse_create(d->capacity);
    d->tag = calloc(d->n_tags, sizeof(*d->tag));
    d->port = sim_port_add(c, "pcie", SIM_PORT_UPSTREAM);
    if (!d->media || !d->tag || !d->port) {
        return sim_error_set(err, SIM_ENOMEM, "nvme-drive '%s': out of memory",
                             c->name);
    }
    return 0;
}

static void nvme_report(const struct sim_component *c, struct sim_stats *out)
{
    const struct nvme *d = nvme_from(c);
    const struct {
        const char *name;
        uint64_t v;
    } row[] = {
        { "read_commands", d->cnt.reads },
        { "write_commands", d->cnt.writes },
        { "bytes_read", d->cnt.bytes_read },
        { "bytes_written", d->cnt.bytes_written },
        { "sqe_fetches", d->cnt.sqe_fetches },
        { "cqes", d->cnt.cqes },
        { "errors", d->cnt.errors },
    };
    for (unsigned i = 0; i < sizeof(row) / sizeof(row[0]); i++) {
        sim_stats_addf(out, row[i].v, "%s.%s", c->name, row[i].name);
    }
}

static void nvme_destroy(struct sim_component *c)
{
    struct nvme *d = nvme_from(c);
    for (unsigned i = 0; i < d->out_n; i++) {
        tlp_free(d->out[(d->out_head + i) % d->out_cap]);
    }
    free(d->out);
    free(d->slot);
    free(d->rq);
    free(d->wq);
    free(d->tag);
    mem_sparse_destroy(d->media);
}

const struct sim_component_ops nvme_ops = {
    .kind = "nvme-drive",
    .state_size = sizeof(struct nvme),
    .configure = nvme_configure,
    .receive = nvme_receive,
    .ready = nvme_ready,
    .report = nvme_report,
    .destroy = nvme_destroy,
};
