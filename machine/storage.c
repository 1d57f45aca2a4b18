/*
 * machine/storage.c - reads and writes of the machine's NVMe drives
 * (machine/storage.h): the host's side of the drive's queue pair.
 *
 * Per drive, at its first operation, the host places a submission and a
 * completion queue (P2PSIM_DRIVE_QUEUE_DEPTH entries each) in pinned
 * memory of the drive's socket and creates the queue pair. An operation
 * is cut in commands of at most MDTS; the host writes each SQE into the
 * SQ and rings the doorbell while entries are free (the drive fetches
 * them, models/nvme/nvme.c), and polls the CQ every
 * P2PSIM_DRIVE_POLL_PS for the phase tag of the next entry.
 *
 * A GPU buffer is reached directly (GPUDirect Storage: PRP1 is the GPU's
 * BAR1 address of the buffer, mapped as peer access maps it) when
 * path_gds_verdict allows it, else through a bounce buffer in pinned host
 * memory of the drive's socket: read, then a host-to-device copy (for a
 * write: the device-to-host copy, then the write), each as a whole, as
 * cuFile's compatibility mode does per I/O.
 *
 * Model: the host's stores into the SQ and its doorbell write cost
 * nothing (the CPU is no requester here); polling is exact to the poll
 * period.
 */
#include <config.h>

#include "machine/storage.h"

#include <stdlib.h>
#include <string.h>

#include "machine/fabric.h"
#include "machine/kinds.h"
#include "machine/p2psim.h"
#include "machine/p2psim_int.h"
#include "machine/path.h"
#include "machine/topology.h"
#include "models/mem/sparse.h"
#include "models/nvme/nvme.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/sim.h"

struct sop;

/* The host's view of one drive's queue pair. */
struct sdrive {
    struct sim_component *c;
    uint8_t *q;                 /* SQ, then CQ (program memory) */
    uint64_t q_bus;
    unsigned sq_tail, cq_head, phase, in_flight;
    struct sop *slot_op[P2PSIM_DRIVE_QUEUE_DEPTH];
    uint64_t slot_len[P2PSIM_DRIVE_QUEUE_DEPTH];   /* its bytes */
    struct sop *wait_head, *wait_tail;  /* operations with commands left */
    struct sim_event poll;
    struct p2psim *p;
};

struct sop {
    struct p2psim *p;
    struct sdrive *d;
    struct sop *next;           /* wait list; then every op */
    struct sop *all_next;
    bool read;
    uint64_t off, len, bus;     /* the drive's range; PRP1 base */
    uint64_t issued, done_bytes;
    unsigned status;
    struct p2psim_loc buf;      /* the caller's buffer */
    bool bounce;
    uint64_t bounce_bus;
    struct sim_event start;
    p2psim_done_fn *done;
    void *arg;
    struct p2psim_copy_result res;
};

struct storage {
    struct sdrive *d;
    unsigned n;
    struct sop *ops;            /* not yet done */
};

/* ---- the drives ---------------------------------------------------------- */

static bool is_drive(const struct sim_component *c)
{
    const struct mkind *k = mkind_of(c);
    return k && k->ops == &nvme_ops;
}

struct sim_component *p2psim__drive(const struct p2psim *p, unsigned i)
{
    struct sim *sim = p->m->sim;
    for (uint32_t k = 0; k < sim_component_count(sim); k++) {
        struct sim_component *c = sim_component_at(sim, k);
        if (is_drive(c) && i-- == 0) {
            return c;
        }
    }
    return NULL;
}

unsigned p2psim_drive_count(const struct p2psim *p)
{
    unsigned n = 0;
    while (p2psim__drive(p, n)) {
        n++;
    }
    return n;
}

const char *p2psim_drive_id(const struct p2psim *p, unsigned i)
{
    struct sim_component *c = p2psim__drive(p, i);
    return c ? c->name : NULL;
}

int p2psim_drive_find(const struct p2psim *p, const char *id)
{
    struct sim_component *c;
    for (unsigned i = 0; (c = p2psim__drive(p, i)); i++) {
        if (strcmp(c->name, id) == 0) {
            return (int)i;
        }
    }
    return -SIM_ENOENT;
}

uint64_t p2psim_drive_capacity(const struct p2psim *p, unsigned i)
{
    struct sim_component *c = p2psim__drive(p, i);
    return c ? nvme_capacity(c) : 0;
}

unsigned p2psim_drive_socket(const struct p2psim *p, unsigned i)
{
    struct sim_component *c = p2psim__drive(p, i);
    struct path_up up[PATH_MAX_HOPS];
    int n = c ? path_chain_up(c, up, PATH_MAX_HOPS) : 0;
    for (unsigned s = 0; n > 0 && s < p->m->n_sockets; s++) {
        if (p->m->socket[s].rc == up[n - 1].comp) {
            return s;
        }
    }
    return 0;
}

static int media_range(struct p2psim *p, unsigned drive, uint64_t off,
                       uint64_t len, struct mem_sparse **m)
{
    struct sim_component *c = p2psim__drive(p, drive);
    if (!c) {
        return -SIM_EINVAL;
    }
    if (off > nvme_capacity(c) || len > nvme_capacity(c) - off) {
        return -SIM_ERANGE;
    }
    *m = nvme_media(c);
    return 0;
}

int p2psim_drive_media_write(struct p2psim *p, unsigned drive, uint64_t off,
                             const void *src, uint64_t len)
{
    struct mem_sparse *m;
    int rc = media_range(p, drive, off, len, &m);
    return rc < 0 ? rc : mem_sparse_write(m, off, src, len);
}

int p2psim_drive_media_read(struct p2psim *p, unsigned drive, uint64_t off,
                            void *dst, uint64_t len)
{
    struct mem_sparse *m;
    int rc = media_range(p, drive, off, len, &m);
    return rc < 0 ? rc : mem_sparse_read(m, off, dst, len);
}

/* ---- the queue pair -------------------------------------------------------- */

static void submit(struct sdrive *d);

/* o's commands wait behind those of the operations before it. */
static void enqueue(struct sop *o)
{
    o->next = NULL;
    if (o->d->wait_tail) {
        o->d->wait_tail->next = o;
    } else {
        o->d->wait_head = o;
    }
    o->d->wait_tail = o;
    submit(o->d);
}

static void finish(struct sop *o)
{
    struct storage *st = o->p->storage;
    for (struct sop **pp = &st->ops; *pp; pp = &(*pp)->all_next) {
        if (*pp == o) {
            *pp = o->all_next;
            break;
        }
    }
    if (o->bounce_bus) {
        p2psim_host_unregister(o->p, o->bounce_bus);
    }
    o->res.t_end = sim_now(o->p->m->sim);
    if (o->done) {
        o->done(o->arg, &o->res);
    }
    free(o);
}

static void copied(void *arg, const struct p2psim_copy_result *r)
{
    struct sop *o = arg;
    if (r->status && !o->res.status) {
        o->res.status = r->status;
    }
    if (o->read || o->res.status) {
        finish(o);          /* a read's bytes are in the GPU */
        return;
    }
    /* a write's bytes are in the bounce buffer: now the drive's turn */
    o->bus = o->bounce_bus;
    enqueue(o);
}

/* All of o's commands are complete. */
static void io_done(struct sop *o)
{
    if (o->status) {
        o->res.status = -SIM_EIO;
    }
    if (o->bounce && o->read && !o->res.status) {
        struct p2psim_loc src = { P2PSIM_HOST, 0, o->bounce_bus };
        if (p2psim_copy(o->p, &o->buf, &src, o->len, 0,
                        sim_now(o->p->m->sim), copied, o) == 0) {
            return;
        }
        o->res.status = -SIM_EIO;
    }
    finish(o);
}

static void poll_cq(struct sim *sim, struct sim_event *ev)
{
    struct sdrive *d = SIM_CONTAINER_OF(ev, struct sdrive, poll);
    const unsigned depth = P2PSIM_DRIVE_QUEUE_DEPTH;
    for (;;) {
        const uint8_t *cqe = d->q + depth * NVME_SQE_BYTES +
                             d->cq_head * NVME_CQE_BYTES;
        uint16_t cid;
        unsigned phase, status;
        nvme_cqe_decode(cqe, &cid, &phase, &status);
        if (phase != d->phase || cid >= depth || !d->slot_op[cid]) {
            break;
        }
        if (++d->cq_head == depth) {
            d->cq_head = 0;
            d->phase ^= 1u;
        }
        struct sop *o = d->slot_op[cid];
        d->slot_op[cid] = NULL;
        d->in_flight--;
        o->done_bytes += d->slot_len[cid];
        if (status) {
            o->status = status;
        }
        if (o->done_bytes == o->len) {
            io_done(o);
        }
    }
    submit(d);
    if (d->in_flight && !sim_event_is_pending(&d->poll)) {
        sim_event_schedule(sim, &d->poll, P2PSIM_DRIVE_POLL_PS);
    }
}

/* Write SQEs while entries are free, then ring the doorbell. */
static void submit(struct sdrive *d)
{
    const unsigned depth = P2PSIM_DRIVE_QUEUE_DEPTH;
    uint64_t mdts = nvme_mdts(d->c);
    unsigned lba = nvme_lba(d->c);
    bool rang = false;
    while (d->wait_head && d->in_flight < depth - 1) {
        struct sop *o = d->wait_head;
        uint64_t n = o->len - o->issued;
        n = n < mdts ? n : mdts;
        unsigned cid = d->sq_tail;
        struct nvme_cmd cmd = {
            .opcode = o->read ? NVME_OP_READ : NVME_OP_WRITE,
            .cid = (uint16_t)cid,
            .prp1 = o->bus + o->issued,
            .slba = (o->off + o->issued) / lba,
            .nlb = (uint32_t)(n / lba),
        };
        nvme_sqe_encode(&cmd, d->q + cid * NVME_SQE_BYTES);
        d->slot_op[cid] = o;
        d->slot_len[cid] = n;
        d->sq_tail = (d->sq_tail + 1) % depth;
        d->in_flight++;
        o->issued += n;
        if (o->issued == o->len) {
            d->wait_head = o->next;
            if (!d->wait_head) {
                d->wait_tail = NULL;
            }
        }
        rang = true;
    }
    if (rang) {
        nvme_ring_sq(d->c, d->sq_tail);
        if (!sim_event_is_pending(&d->poll)) {
            sim_event_schedule(d->p->m->sim, &d->poll, P2PSIM_DRIVE_POLL_PS);
        }
    }
}

static struct sdrive *drive_queues(struct p2psim *p, unsigned i)
{
    if (!p->storage) {
        unsigned n = p2psim_drive_count(p);
        p->storage = calloc(1, sizeof(*p->storage));
        if (!p->storage || !(p->storage->d = calloc(n ? n : 1,
                                                    sizeof(struct sdrive)))) {
            free(p->storage);
            p->storage = NULL;
            return NULL;
        }
        p->storage->n = n;
    }
    struct sdrive *d = &p->storage->d[i];
    if (d->q) {
        return d;
    }
    const unsigned depth = P2PSIM_DRIVE_QUEUE_DEPTH;
    uint64_t bytes = depth * (NVME_SQE_BYTES + NVME_CQE_BYTES);
    d->q = calloc(1, bytes);
    d->c = p2psim__drive(p, i);
    d->p = p;
    sim_event_init(&d->poll, poll_cq);
    if (!d->q || p2psim_host_register(p, d->q, bytes,
                                      p2psim_drive_socket(p, i),
                                      &d->q_bus) < 0 ||
        nvme_create_queues(d->c, d->q_bus, d->q_bus + depth * NVME_SQE_BYTES,
                           depth) < 0) {
        free(d->q);
        d->q = NULL;
        return NULL;
    }
    d->phase = 1;
    return d;
}

void p2psim__storage_fini(struct p2psim *p)
{
    struct storage *st = p->storage;
    if (!st) {
        return;
    }
    while (st->ops) {
        struct sop *o = st->ops;
        st->ops = o->all_next;
        sim_event_cancel(p->m->sim, &o->start);
        free(o);
    }
    for (unsigned i = 0; i < st->n; i++) {
        sim_event_cancel(p->m->sim, &st->d[i].poll);
        free(st->d[i].q);
    }
    free(st->d);
    free(st);
    p->storage = NULL;
}

/* ---- operations ---------------------------------------------------------- */

/* Map [hbm, +len) of gpu in its BAR1 as peer access does; *bus: where
 * hbm is on the bus. */
static int peer_bus(struct p2psim *p, unsigned gpu, uint64_t hbm,
                    uint64_t len, uint64_t *bus)
{
    int rc = p2psim_peer_map(p, gpu, hbm, len);
    if (rc < 0) {
        return rc;
    }
    const struct exec_peer_map *m = p2psim__find_map(p, gpu, hbm, len);
    *bus = m->bus + (hbm - m->hbm);
    return 0;
}

static void op_start(struct sim *sim, struct sim_event *ev)
{
    struct sop *o = SIM_CONTAINER_OF(ev, struct sop, start);
    o->res.t_start = sim_now(sim);
    if (o->bounce && !o->read) {
        struct p2psim_loc dst = { P2PSIM_HOST, 0, o->bounce_bus };
        if (p2psim_copy(o->p, &dst, &o->buf, o->len, 0, sim_now(sim),
                        copied, o) < 0) {
            o->res.status = -SIM_EIO;
            finish(o);
        }
        return;
    }
    enqueue(o);
}

static int drive_io(struct p2psim *p, bool read, unsigned drive,
                    uint64_t off, uint64_t len, const struct p2psim_loc *buf,
                    unsigned flags, sim_time_t start_at,
                    p2psim_done_fn *done, void *arg)
{
    struct sim_component *c = p2psim__drive(p, drive);
    if (!c || !buf || len == 0 || off % nvme_lba(c) || len % nvme_lba(c) ||
        off > nvme_capacity(c) || len > nvme_capacity(c) - off) {
        return -SIM_EINVAL;
    }
    if (buf->kind == P2PSIM_DEVICE &&
        (buf->gpu >= p2psim_gpu_count(p) ||
         buf->addr > p2psim_hbm_size(p, buf->gpu) ||
         len > p2psim_hbm_size(p, buf->gpu) - buf->addr)) {
        return -SIM_EINVAL;
    }
    struct sdrive *d = drive_queues(p, drive);
    struct sop *o = d ? calloc(1, sizeof(*o)) : NULL;
    if (!o) {
        return sim_nomem(p->m->sim, "the storage layer", "an operation");
    }
    *o = (struct sop){ .p = p, .d = d, .read = read, .off = off, .len = len,
                       .buf = *buf, .done = done, .arg = arg };
    o->bus = buf->addr;
    if (buf->kind == P2PSIM_DEVICE) {
        struct p2psim_verdict v;
        int rc = p2psim_drive_gds(p, drive, buf->gpu, &v);
        /* a write reads the GPU's memory: P2P reads must pass too */
        o->bounce = rc < 0 || !v.allowed || (!read && !v.reads_allowed) ||
                    (flags & P2PSIM_DRIVE_BOUNCE) ||
                    peer_bus(p, buf->gpu, buf->addr, len, &o->bus) < 0;
    }
    if (o->bounce) {
        int rc = p2psim_host_register(p, NULL, len, p2psim_drive_socket(p,
                                                                  drive),
                                      &o->bounce_bus);
        if (rc < 0) {
            free(o);
            return rc;
        }
        o->bus = o->bounce_bus;
        o->res.staged = true;
    }
    o->all_next = p->storage->ops;
    p->storage->ops = o;
    sim_event_init(&o->start, op_start);
    sim_time_t now = sim_now(p->m->sim);
    sim_event_schedule_at(p->m->sim, &o->start,
                          start_at > now ? start_at : now);
    return 0;
}

int p2psim_drive_read(struct p2psim *p, unsigned drive, uint64_t off,
                      uint64_t len, const struct p2psim_loc *dst,
                      unsigned flags, sim_time_t start_at,
                      p2psim_done_fn *done, void *arg)
{
    return drive_io(p, true, drive, off, len, dst, flags, start_at, done,
                    arg);
}

int p2psim_drive_write(struct p2psim *p, unsigned drive, uint64_t off,
                       uint64_t len, const struct p2psim_loc *src,
                       unsigned flags, sim_time_t start_at,
                       p2psim_done_fn *done, void *arg)
{
    return drive_io(p, false, drive, off, len, src, flags, start_at, done,
                    arg);
}
