/*
 * tests/models/check_gpu.c - the GPU model: BAR1 mappings, the completer
 * (writes, reads split at RCB/MPS, AtomicOps, misses), and the copy
 * engines (PUSH, PULL, LOCAL), on two GPUs joined by an ideal wire:
 *
 *   gpu0 [pcie] ---- wire (latency L, rate W) ---- [pcie] gpu1
 *   id 0x0100                                           id 0x0200
 *   BAR1 at 0x1000_0000_0000                  BAR1 at 0x2000_0000_0000
 *
 * A wire routes nothing: whatever one GPU sends reaches the other, which
 * is all these tests need. Where a test needs a requester that the GPU
 * model is not (AtomicOps, hand-made reads), a small test requester takes
 * gpu0's place.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/gpu/gpu.h"
#include "models/gpu/gpu_int.h"
#include "models/gpu/sm.h"
#include "models/mem/sparse.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/tlp.h"
#include "tests/check_p2psim.h"

#define BASE0 UINT64_C(0x100000000000)
#define BASE1 UINT64_C(0x200000000000)
#define ID0 0x0100
#define ID1 0x0200
#define ID_REQ 0x0300
#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)

/* ---- building blocks ----------------------------------------------------- */

/* A GPU with memory 256MiB, bar1 256MiB, then the key/value pairs in kv. */
static struct sim_component *make_gpu(struct sim *sim, const char *name,
                                      const char *const *kv,
                                      struct sim_error *err)
{
    static const char *const base[] = { "memory", "256MiB", "bar1", "256MiB",
                                        NULL };
    struct sim_props p;
    sim_props_init(&p, name, NULL);
    for (const char *const *s = base; *s; s += 2) {
        sim_props_set(&p, s[0], s[1], NULL, NULL);
    }
    for (const char *const *s = kv; s && *s; s += 2) {
        sim_props_set(&p, s[0], s[1], NULL, NULL);
    }
    struct sim_component *c = sim_component_create(sim, &gpu_ops, name, err);
    ck_assert_ptr_nonnull(c);
    int rc = sim_component_configure(c, &p, err);
    sim_props_fini(&p);
    return rc == 0 ? c : NULL;
}

struct pair {
    struct sim *sim;
    struct sim_component *g[2];
    struct sim_link *wire;
};

/* Two GPUs (props kv0, kv1) on a wire of latency lat and rate (0: infinite). */
static void pair_init(struct pair *p, const char *const *kv0,
                      const char *const *kv1, sim_time_t lat, uint64_t rate)
{
    struct sim_error err;
    sim_error_clear(&err);
    p->sim = sim_create(NULL, NULL);
    ck_assert_ptr_nonnull(p->sim);
    p->g[0] = make_gpu(p->sim, "gpu0", kv0, &err);
    ck_assert_msg(p->g[0] != NULL, "gpu0: %s", err.msg);
    p->g[1] = make_gpu(p->sim, "gpu1", kv1, &err);
    ck_assert_msg(p->g[1] != NULL, "gpu1: %s", err.msg);
    gpu_set_pcie_id(p->g[0], ID0);
    gpu_set_pcie_id(p->g[1], ID1);
    gpu_set_bar1_base(p->g[0], BASE0);
    gpu_set_bar1_base(p->g[1], BASE1);
    p->wire = sim_link_create(p->sim, &sim_wire_ops, "wire", &err);
    ck_assert_ptr_nonnull(p->wire);
    ck_assert_int_eq(sim_link_connect(p->wire, sim_port_find(p->g[0], "pcie"),
                                      sim_port_find(p->g[1], "pcie"), &err),
                     0);
    sim_wire_set(p->wire, lat, rate);
}

static void pair_fini(struct pair *p)
{
    sim_destroy(p->sim);
}

/* A byte pattern that no shift of itself matches: catches misplaced data. */
static uint8_t pattern(uint64_t i)
{
    uint64_t x = (i + 1) * UINT64_C(0x9e3779b97f4a7c15);
    return (uint8_t)(x >> 56);
}

static void fill_pattern(struct sim_component *g, uint64_t addr, uint64_t len)
{
    uint8_t *b = malloc(len);
    ck_assert_ptr_nonnull(b);
    for (uint64_t i = 0; i < len; i++) {
        b[i] = pattern(i);
    }
    ck_assert_int_eq(mem_sparse_write(gpu_hbm(g), addr, b, len), 0);
    free(b);
}

/* First index where HBM [addr, +len) differs from the pattern, or len. */
static uint64_t check_pattern(struct sim_component *g, uint64_t addr,
                              uint64_t len)
{
    uint8_t *b = malloc(len);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(mem_sparse_read(gpu_hbm(g), addr, b, len), 0);
    uint64_t i = 0;
    while (i < len && b[i] == pattern(i)) {
        i++;
    }
    free(b);
    return i;
}

static uint8_t hbm_byte(struct sim_component *g, uint64_t addr)
{
    uint8_t v;
    ck_assert_int_eq(mem_sparse_read(gpu_hbm(g), addr, &v, 1), 0);
    return v;
}

/*
 * Requests a copy of [addr, addr + len) needs with at most max bytes each
 * and no request crossing 4 KiB: per 4 KiB segment, ceil(segment / max).
 */
static uint64_t expect_requests(uint64_t addr, uint64_t len, uint64_t max)
{
    uint64_t n = 0;
    uint64_t end = addr + len;
    while (addr < end) {
        uint64_t seg_end = (addr | 4095) + 1;
        if (seg_end > end) {
            seg_end = end;
        }
        n += (seg_end - addr + max - 1) / max;
        addr = seg_end;
    }
    return n;
}

/* done() bookkeeping: how often, and with which op. */
struct done_log {
    int calls;
    struct gpu_dma *last;
};

static void on_done(struct gpu_dma *op)
{
    struct done_log *d = op->user;
    d->calls++;
    d->last = op;
}

static void check_timestamps(const struct gpu_dma *op)
{
    ck_assert_uint_le(op->t_submit, op->t_first);
    ck_assert_uint_le(op->t_first, op->t_last);
    ck_assert_uint_le(op->t_last, op->t_done);
}

static uint64_t stat_of(struct sim *sim, const char *name)
{
    struct sim_stats *s = sim_stats_create();
    for (uint32_t i = 0; i < sim_component_count(sim); i++) {
        sim_component_report(sim_component_at(sim, i), s);
    }
    uint64_t v = UINT64_MAX;
    sim_stats_get(s, name, &v);
    sim_stats_destroy(s);
    return v;
}

/* ---- a test requester: sends what a test builds, records completions --- */

#define REQ_MAX 64

struct req_rec {
    enum tlp_kind kind;
    uint8_t status;
    uint16_t tag;
    uint32_t len;
    uint32_t byte_count;
    uint16_t lower_addr;
    sim_time_t at;              /* arrival, ps */
    uint8_t data[256];
};

struct req {
    struct sim_port *port;
    unsigned n;
    struct req_rec rec[REQ_MAX];
};

static void req_receive(struct sim_component *c, struct sim_port *in,
                        struct tlp *t)
{
    struct req *r = sim_component_state(c);
    ck_assert_uint_lt(r->n, REQ_MAX);
    struct req_rec *x = &r->rec[r->n++];
    x->kind = t->kind;
    x->status = t->cpl_status;
    x->tag = t->tag;
    x->len = t->len_bytes;
    x->byte_count = t->byte_count;
    x->lower_addr = t->lower_addr;
    x->at = sim_now(c->sim);
    if (t->data && tlp_payload_bytes(t)) {
        ck_assert_uint_le(t->len_bytes, sizeof(x->data));
        memcpy(x->data, t->data, t->len_bytes);
    }
    tlp_free(t);
}

static int req_configure(struct sim_component *c, const struct sim_props *p,
                         struct sim_error *err)
{
    struct req *r = sim_component_state(c);
    r->port = sim_port_add(c, "p", SIM_PORT_UPSTREAM);
    return r->port ? 0 : -SIM_ENOMEM;
}

static const struct sim_component_ops req_ops = {
    .kind = "test-requester",
    .state_size = sizeof(struct req),
    .configure = req_configure,
    .receive = req_receive,
};

struct solo {
    struct sim *sim;
    struct sim_component *g;    /* the GPU under test, as gpu1 */
    struct sim_component *rq;
    struct req *r;
};

static void solo_init(struct solo *s, const char *const *kv)
{
    struct sim_error err;
    sim_error_clear(&err);
    s->sim = sim_create(NULL, NULL);
    s->g = make_gpu(s->sim, "gpu1", kv, &err);
    ck_assert_msg(s->g != NULL, "%s", err.msg);
    gpu_set_pcie_id(s->g, ID1);
    gpu_set_bar1_base(s->g, BASE1);
    s->rq = sim_component_create(s->sim, &req_ops, "req", NULL);
    ck_assert_int_eq(sim_component_configure(s->rq, NULL, NULL), 0);
    s->r = sim_component_state(s->rq);
    struct sim_link *l = sim_link_create(s->sim, &sim_wire_ops, "w", NULL);
    ck_assert_int_eq(sim_link_connect(l, s->r->port,
                                      sim_port_find(s->g, "pcie"), &err),
                     0);
    sim_wire_set(l, SIM_NS(100), 0);
}

/* Send a request of kind k with payload (len bytes of data, or none). */
static void req_send(struct solo *s, enum tlp_kind k, uint64_t addr,
                     uint32_t len, const uint8_t *data, uint16_t tag)
{
    struct tlp *t = tlp_alloc(s->sim, k);
    t->requester_id = ID_REQ;
    t->addr = addr;
    t->len_bytes = len;
    t->tag = tag;
    if (data) {
        ck_assert_int_eq(tlp_data_alloc(t, len), 0);
        memcpy(t->data, data, len);
    }
    ck_assert_int_eq(sim_port_send(s->r->port, t), 0);
}

static void le_put(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint64_t le_get(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

/* ---- Configuration ------------------------------------------------------- */

struct cfg_case {
    const char *key, *value;
    int code;                   /* expected -rc */
};

static const struct cfg_case cfg_cases[] = {
    { "bar1", "3MiB", SIM_EINVAL },
    { "memory", "0B", SIM_EINVAL },
    { "tags", "0", SIM_ERANGE },
    { "tags", "1025", SIM_ERANGE },
    { "mps", "384B", SIM_EINVAL },
    { "mps", "64", SIM_EINVAL },
    { "mrrs", "8KiB", SIM_EINVAL },
    { "rcb", "32", SIM_EINVAL },
    { "pcie-gen", "7", SIM_ERANGE },
    { "pcie-width", "x3", SIM_EINVAL },
    { "copy-engines", "0", SIM_ERANGE },
    { "bar1-page", "1KiB", SIM_EINVAL },
    { "hbm-bandwidth", "0B/s", SIM_EINVAL },
};

START_TEST(test_gpu_configure_rejects_bad_value)
{
    const struct cfg_case *k = &cfg_cases[_i];
    struct sim *sim = sim_create(NULL, NULL);
    struct sim_error err;
    sim_error_clear(&err);
    const char *kv[] = { k->key, k->value, NULL };
    ck_assert_ptr_null(make_gpu(sim, "g", kv, &err));
    ck_assert_int_eq(err.code, k->code);
    ck_assert_msg(strstr(err.msg, k->key) != NULL,
                  "message '%s' does not name '%s'", err.msg, k->key);
    sim_destroy(sim);
}
END_TEST

START_TEST(test_gpu_configure_requires_memory)
{
    struct sim *sim = sim_create(NULL, NULL);
    struct sim_error err;
    sim_error_clear(&err);
    struct sim_props p;
    sim_props_init(&p, "gpu 'g'", NULL);
    sim_props_set(&p, "bar1", "256MiB", NULL, NULL);
    struct sim_component *c = sim_component_create(sim, &gpu_ops, "g", &err);
    ck_assert_int_eq(sim_component_configure(c, &p, &err), -SIM_ENOENT);
    ck_assert_ptr_nonnull(strstr(err.msg, "memory"));
    sim_props_fini(&p);
    sim_destroy(sim);
}
END_TEST

START_TEST(test_gpu_configure_defaults_and_units)
{
    struct sim *sim = sim_create(NULL, NULL);
    struct sim_error err;
    sim_error_clear(&err);
    const char *kv[] = { "pcie-width", "x8", "mps", "512B", "rcb", "128",
                         "copy-engines", "3", NULL };
    struct sim_component *g = make_gpu(sim, "g", kv, &err);
    ck_assert_msg(g != NULL, "%s", err.msg);
    ck_assert_uint_eq(gpu_mem_size(g), 256 * MIB);
    ck_assert_uint_eq(gpu_bar1_size(g), 256 * MIB);
    ck_assert_uint_eq(gpu_pcie_max_gen(g), 5);
    ck_assert_uint_eq(gpu_pcie_max_width(g), 8);
    ck_assert_uint_eq(gpu_mps(g), 512);
    ck_assert_uint_eq(gpu_mrrs(g), 512);
    ck_assert_uint_eq(gpu_n_copy_engines(g), 3);
    ck_assert_ptr_nonnull(sim_port_find(g, "pcie"));
    sim_destroy(sim);
}
END_TEST

/*
 * What the memory streams without hbm-bandwidth: its peak (2 x clock x
 * bus width / 8) at 0.864 of it, computed here by hand for three catalog
 * GPUs' memories (topologies/gpus/): V100 877 MHz x 4096 bit, RTX 4090
 * 10501 MHz x 384 bit, A100 SXM 1593 MHz x 5120 bit.
 */
static const struct mem_case {
    const char *clock, *width;
    uint64_t rate;
} mem_cases[] = {
    { "877MHz", "4096", UINT64_C(775913472000) },    /* 898.048 GB/s peak */
    { "10501MHz", "384", UINT64_C(870994944000) },   /* 1008.096 GB/s */
    { "1593MHz", "5120", UINT64_C(1761730560000) },  /* 2039.04 GB/s */
};

START_TEST(test_gpu_memory_rate_from_clock_and_width)
{
    const struct mem_case *k = &mem_cases[_i];
    struct sim *sim = sim_create(NULL, NULL);
    struct sim_error err;
    sim_error_clear(&err);
    const char *kv[] = { "memory-clock", k->clock, "memory-bus-width",
                         k->width, NULL };
    struct sim_component *g = make_gpu(sim, "g", kv, &err);
    ck_assert_msg(g != NULL, "%s", err.msg);
    struct gpu_params gp;
    gpu_get_params(g, &gp);
    ck_assert_uint_eq(gp.hbm_bytes_per_s, k->rate);
    /* a measured figure, where the machine or catalog gives one, wins */
    const char *kv2[] = { "memory-clock", k->clock, "memory-bus-width",
                          k->width, "hbm-bandwidth", "4.2TB/s", NULL };
    g = make_gpu(sim, "g2", kv2, &err);
    ck_assert_msg(g != NULL, "%s", err.msg);
    gpu_get_params(g, &gp);
    ck_assert_uint_eq(gp.hbm_bytes_per_s, UINT64_C(4200000000000));
    sim_destroy(sim);
}
END_TEST

/* ---- BAR1 ---------------------------------------------------------------- */

static const char *const small_bar1[] = { "bar1", "1MiB", NULL };

START_TEST(test_gpu_bar1_map_unmap_used)
{
    struct pair p;
    pair_init(&p, small_bar1, NULL, 0, 0);
    struct sim_component *g = p.g[0];
    uint64_t a, b;
    /* [0x12345, +100 KiB) spans pages 1 and 2: 128 KiB of aperture. */
    ck_assert_int_eq(gpu_bar1_map(g, 0x12345, 100 * KIB, &a), 0);
    ck_assert_uint_eq(a, BASE0 + 0x2345);
    ck_assert_uint_eq(gpu_bar1_used(g), 128 * KIB);
    ck_assert_int_eq(gpu_bar1_map(g, 7 * MIB, 1, &b), 0);
    ck_assert_uint_eq(b, BASE0 + 128 * KIB);
    ck_assert_uint_eq(gpu_bar1_used(g), 192 * KIB);
    /* Any address inside a mapping names it. */
    ck_assert_int_eq(gpu_bar1_unmap(g, a + 5), 0);
    ck_assert_uint_eq(gpu_bar1_used(g), 64 * KIB);
    ck_assert_int_eq(gpu_bar1_unmap(g, a), -SIM_ENOENT);
    ck_assert_int_eq(gpu_bar1_unmap(g, BASE1), -SIM_ENOENT);
    /* The freed hole is reused first. */
    ck_assert_int_eq(gpu_bar1_map(g, 0, 64 * KIB, &a), 0);
    ck_assert_uint_eq(a, BASE0);
    /* Bad ranges. */
    ck_assert_int_eq(gpu_bar1_map(g, 0, 0, &a), -SIM_EINVAL);
    ck_assert_int_eq(gpu_bar1_map(g, 256 * MIB - 1, 2, &a), -SIM_EINVAL);
    ck_assert_int_eq(gpu_bar1_unmap(g, b), 0);
    ck_assert_int_eq(gpu_bar1_unmap(g, BASE0), 0);
    ck_assert_uint_eq(gpu_bar1_used(g), 0);
    pair_fini(&p);
}
END_TEST

START_TEST(test_gpu_bar1_exhaustion_maps_nothing)
{
    struct pair p;
    pair_init(&p, small_bar1, NULL, 0, 0);
    struct sim_component *g = p.g[0];
    struct gpu *gs = gpu__from(g);
    uint64_t bus[16], x = 0;
    for (int i = 0; i < 16; i++) {
        ck_assert_int_eq(gpu_bar1_map(g, (uint64_t)i * MIB, 1, &bus[i]), 0);
    }
    ck_assert_uint_eq(gpu_bar1_used(g), MIB);
    ck_assert_int_eq(gpu_bar1_map(g, 0, 1, &x), -SIM_ENOMEM);
    ck_assert_uint_eq(x, 0);
    /* 128 KiB free in two 64 KiB holes: a 128 KiB map still fails whole. */
    ck_assert_int_eq(gpu_bar1_unmap(g, bus[3]), 0);
    ck_assert_int_eq(gpu_bar1_unmap(g, bus[5]), 0);
    ck_assert_int_eq(gpu_bar1_map(g, 0, 128 * KIB, &x), -SIM_ENOMEM);
    ck_assert_uint_eq(gpu_bar1_used(g), 14 * 64 * KIB);
    ck_assert_uint_eq(gs->bar1.n_map, 14);
    uint64_t h, n;
    ck_assert(!bar1__translate(&gs->bar1, 3 * 64 * KIB, &h, &n));
    ck_assert(!bar1__translate(&gs->bar1, 5 * 64 * KIB, &h, &n));
    /* First fit takes the lower hole. */
    ck_assert_int_eq(gpu_bar1_map(g, 0, 64 * KIB, &x), 0);
    ck_assert_uint_eq(x, BASE0 + 3 * 64 * KIB);
    pair_fini(&p);
}
END_TEST

/* The sorted-array allocator against an obvious page array, at random. */
START_TEST(test_gpu_bar1_matches_page_array)
{
    enum { PAGES = 1024 };
    static const char *const kv[] = { "bar1", "64MiB", NULL };
    struct pair p;
    pair_init(&p, kv, NULL, 0, 0);
    struct sim_component *g = p.g[0];
    struct bar1 *b = &gpu__from(g)->bar1;
    static int64_t page_hbm[PAGES];     /* HBM page behind each, or -1 */
    struct ref_map {
        uint64_t bus, first, pages;
    } live[PAGES];
    unsigned n_live = 0;
    for (int i = 0; i < PAGES; i++) {
        page_hbm[i] = -1;
    }
    uint64_t seed = 12345;
    for (int step = 0; step < 3000; step++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        uint64_t r = seed >> 33;
        if (n_live && (r % 3 == 0 || n_live > 200)) {
            unsigned k = (unsigned)((r >> 4) % n_live);
            ck_assert_int_eq(gpu_bar1_unmap(g, live[k].bus), 0);
            for (uint64_t q = 0; q < live[k].pages; q++) {
                page_hbm[live[k].first + q] = -1;
            }
            live[k] = live[--n_live];
            continue;
        }
        uint64_t hbm_page = (r >> 8) % 3000;
        uint64_t pages = 1 + (r >> 20) % 8;
        uint64_t bus;
        int rc = gpu_bar1_map(g, hbm_page * 64 * KIB, pages * 64 * KIB, &bus);
        /* the reference: the first run of free pages that fits */
        int64_t at = -1;
        for (uint64_t s = 0; s + pages <= PAGES && at < 0; s++) {
            uint64_t q = 0;
            while (q < pages && page_hbm[s + q] < 0) {
                q++;
            }
            if (q == pages) {
                at = (int64_t)s;
            }
        }
        if (at < 0) {
            ck_assert_int_eq(rc, -SIM_ENOMEM);
            continue;
        }
        ck_assert_int_eq(rc, 0);
        ck_assert_uint_eq(bus, BASE0 + (uint64_t)at * 64 * KIB);
        for (uint64_t q = 0; q < pages; q++) {
            page_hbm[at + q] = (int64_t)(hbm_page + q);
        }
        live[n_live++] = (struct ref_map){ bus, (uint64_t)at, pages };
    }
    uint64_t used = 0;
    for (uint64_t pg = 0; pg < PAGES; pg++) {
        uint64_t h, n;
        bool ok = bar1__translate(b, pg * 64 * KIB + 100, &h, &n);
        ck_assert_int_eq(ok, page_hbm[pg] >= 0);
        if (ok) {
            ck_assert_uint_eq(h, (uint64_t)page_hbm[pg] * 64 * KIB + 100);
            used += 64 * KIB;
        }
    }
    ck_assert_uint_eq(gpu_bar1_used(g), used);
    pair_fini(&p);
}
END_TEST

/* ---- Completer ----------------------------------------------------------- */

START_TEST(test_gpu_read_split_at_rcb_and_mps)
{
    static const char *const kv[] = { "mps", "128B", "rcb", "64", NULL };
    struct solo s;
    solo_init(&s, kv);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(s.g, 0, 64 * KIB, &bus), 0);
    fill_pattern(s.g, 0, 64 * KIB);
    /* 1000 bytes at 0x30: 80 (to 0x80), 7 x 128, then 24. */
    req_send(&s, TLP_MRD, bus + 0x30, 1000, NULL, 7);
    sim_run(s.sim);
    static const uint32_t want[] = { 80, 128, 128, 128, 128, 128, 128, 128,
                                     24 };
    ck_assert_uint_eq(s.r->n, 9);
    uint32_t left = 1000;
    uint64_t a = 0x30;
    for (unsigned i = 0; i < 9; i++) {
        const struct req_rec *x = &s.r->rec[i];
        ck_assert_int_eq(x->kind, TLP_CPLD);
        ck_assert_uint_eq(x->status, TLP_CPL_SC);
        ck_assert_uint_eq(x->tag, 7);
        ck_assert_uint_eq(x->len, want[i]);
        ck_assert_uint_eq(x->byte_count, left);
        ck_assert_uint_eq(x->lower_addr, a & 0x7f);
        for (uint32_t k = 0; k < x->len; k++) {
            ck_assert_uint_eq(x->data[k], pattern(a + k));
        }
        left -= x->len;
        a += x->len;
    }
    sim_destroy(s.sim);
}
END_TEST

/* The worked example of pcie-nvlink.md §2.3: RCB 128, 200 B at 0x60. */
START_TEST(test_gpu_read_split_reference_example)
{
    static const char *const kv[] = { "mps", "128B", "rcb", "128B", NULL };
    struct solo s;
    solo_init(&s, kv);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(s.g, 0, 64 * KIB, &bus), 0);
    req_send(&s, TLP_MRD, bus + 0x60, 200, NULL, 1);
    sim_run(s.sim);
    ck_assert_uint_eq(s.r->n, 3);
    ck_assert_uint_eq(s.r->rec[0].len, 32);
    ck_assert_uint_eq(s.r->rec[1].len, 128);
    ck_assert_uint_eq(s.r->rec[2].len, 40);
    sim_destroy(s.sim);
}
END_TEST

START_TEST(test_gpu_read_timing_is_latency_plus_serialisation)
{
    static const char *const kv[] = { "hbm-latency", "300ns",
                                      "hbm-bandwidth", "1GB/s", NULL };
    struct solo s;
    solo_init(&s, kv);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(s.g, 0, 64 * KIB, &bus), 0);
    /* Two 256 B reads at once: HBM serialises them (256 ns each at 1 GB/s). */
    req_send(&s, TLP_MRD, bus, 256, NULL, 1);
    req_send(&s, TLP_MRD, bus + 256, 256, NULL, 2);
    sim_run(s.sim);
    ck_assert_uint_eq(s.r->n, 2);
    /* wire 100 ns each way; the second read waits for the first */
    /* wire 100 ns; HBM 256 ns per read at 1 GB/s, then 300 ns; wire back.
     * The second read waits for the first in the serialiser. */
    ck_assert_uint_eq(s.r->rec[0].at, SIM_NS(100 + 256 + 300 + 100));
    ck_assert_uint_eq(s.r->rec[1].at, SIM_NS(100 + 512 + 300 + 100));
    sim_destroy(s.sim);
}
END_TEST

START_TEST(test_gpu_zero_length_read_gets_one_dw)
{
    struct solo s;
    solo_init(&s, NULL);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(s.g, 0, 64 * KIB, &bus), 0);
    req_send(&s, TLP_MRD, bus + 0x100, 0, NULL, 3);
    req_send(&s, TLP_MRD, BASE1 + 128 * MIB, 0, NULL, 4);  /* unmapped */
    sim_run(s.sim);
    ck_assert_uint_eq(s.r->n, 2);
    /* The UR needs no HBM access, so it overtakes the CplD. */
    ck_assert_int_eq(s.r->rec[0].kind, TLP_CPL);
    ck_assert_uint_eq(s.r->rec[0].status, TLP_CPL_UR);
    ck_assert_uint_eq(s.r->rec[0].tag, 4);
    ck_assert_int_eq(s.r->rec[1].kind, TLP_CPLD);
    ck_assert_uint_eq(s.r->rec[1].len, 4);
    ck_assert_uint_eq(s.r->rec[1].byte_count, 1);
    ck_assert_uint_eq(gpu__from(s.g)->cnt.bar1_misses, 1);
    sim_destroy(s.sim);
}
END_TEST

struct atomic_case {
    enum tlp_kind kind;
    unsigned size;              /* operand bytes */
    uint64_t before;            /* memory */
    uint64_t op1, op2;          /* operand; CAS: compare, swap */
    uint64_t after;             /* memory afterwards */
};

static const struct atomic_case atomic_cases[] = {
    { TLP_FETCHADD, 4, 0xfffffffe, 5, 0, 3 },                  /* wraps */
    { TLP_FETCHADD, 8, UINT64_C(0xffffffff), 1, 0, UINT64_C(0x100000000) },
    { TLP_SWAP, 4, 0x11223344, 0xaabbccdd, 0, 0xaabbccdd },
    { TLP_SWAP, 8, 1, UINT64_C(0x0123456789abcdef), 0,
      UINT64_C(0x0123456789abcdef) },
    { TLP_CAS, 4, 42, 42, 7, 7 },                               /* equal */
    { TLP_CAS, 4, 42, 41, 7, 42 },                              /* not */
    { TLP_CAS, 8, UINT64_C(0x500000000), UINT64_C(0x500000000), 9, 9 },
    { TLP_CAS, 8, UINT64_C(0x500000000), 5, 9, UINT64_C(0x500000000) },
};

START_TEST(test_gpu_atomic_exact)
{
    const struct atomic_case *k = &atomic_cases[_i];
    struct solo s;
    solo_init(&s, NULL);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(s.g, 0x40000, 64 * KIB, &bus), 0);
    uint8_t m[8], pl[16];
    le_put(m, k->before, k->size);
    ck_assert_int_eq(mem_sparse_write(gpu_hbm(s.g), 0x40008, m, k->size), 0);
    le_put(pl, k->op1, k->size);
    le_put(pl + k->size, k->op2, k->size);
    unsigned len = k->kind == TLP_CAS ? 2 * k->size : k->size;
    req_send(&s, k->kind, bus + 8, len, pl, 9);
    sim_run(s.sim);
    ck_assert_uint_eq(s.r->n, 1);
    ck_assert_int_eq(s.r->rec[0].kind, TLP_CPLD);
    ck_assert_uint_eq(s.r->rec[0].status, TLP_CPL_SC);
    ck_assert_uint_eq(s.r->rec[0].len, k->size);
    ck_assert_uint_eq(le_get(s.r->rec[0].data, k->size), k->before);
    ck_assert_int_eq(mem_sparse_read(gpu_hbm(s.g), 0x40008, m, k->size), 0);
    ck_assert_uint_eq(le_get(m, k->size), k->after);
    ck_assert_uint_eq(gpu__from(s.g)->atomics, 1);
    sim_destroy(s.sim);
}
END_TEST

START_TEST(test_gpu_atomic_unsupported_or_unmapped_gets_ur)
{
    struct solo s;
    solo_init(&s, NULL);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(s.g, 0, 64 * KIB, &bus), 0);
    uint8_t pl[32] = { 1 };
    req_send(&s, TLP_FETCHADD, bus + 2, 4, pl, 1);              /* misaligned */
    req_send(&s, TLP_CAS, bus, 32, pl, 2);                      /* 128-bit */
    req_send(&s, TLP_SWAP, BASE1 + 64 * MIB, 8, pl, 3);         /* unmapped */
    /* lengths PCIe does not allow (models/pcie/atomicop.h); the GPU took
     * a CAS of 9 or 17 bytes as one of 4 or 8-byte operands before */
    req_send(&s, TLP_CAS, bus, 9, pl, 4);
    req_send(&s, TLP_CAS, bus, 17, pl, 5);
    req_send(&s, TLP_CAS, bus, 12, pl, 6);
    req_send(&s, TLP_FETCHADD, bus, 16, pl, 7);
    sim_run(s.sim);
    ck_assert_uint_eq(s.r->n, 7);
    for (unsigned i = 0; i < 7; i++) {
        ck_assert_int_eq(s.r->rec[i].kind, TLP_CPL);
        ck_assert_uint_eq(s.r->rec[i].status, TLP_CPL_UR);
    }
    ck_assert_uint_eq(gpu__from(s.g)->atomics, 0);
    ck_assert_uint_eq(mem_sparse_backed_bytes(gpu_hbm(s.g)), 0);
    sim_destroy(s.sim);
}
END_TEST

/* ---- SM atomics ----------------------------------------------------------- */

static void sm_done(struct gpu_sm_req *r)
{
    *(unsigned *)r->user += 1;
}

/* A local SM atomic on a float that holds a NaN: min and max take the
 * operand (common/atomic.h; sm.c kept the NaN when it was the old value,
 * while the PTX interpreter took the operand), and add gives a NaN. */
START_TEST(test_gpu_sm_float_atomics_with_nan)
{
    static const struct {
        enum gpu_sm_atom op;
        enum gpu_sm_type type;
        uint64_t before, operand, after;
    } k[] = {
        { GPU_SM_ATOM_MIN, GPU_SM_F32, 0x7fc00000, 0x3f800000, 0x3f800000 },
        { GPU_SM_ATOM_MAX, GPU_SM_F32, 0xffc00001, 0xbf800000, 0xbf800000 },
        { GPU_SM_ATOM_MIN, GPU_SM_F32, 0x3f800000, 0x7fc00000, 0x3f800000 },
        { GPU_SM_ATOM_MAX, GPU_SM_F64, UINT64_C(0x7ff8000000000000),
          UINT64_C(0x4000000000000000), UINT64_C(0x4000000000000000) },
        { GPU_SM_ATOM_MIN, GPU_SM_F64, UINT64_C(0x7ff8000000000000),
          UINT64_C(0xfff8000000000000), UINT64_C(0x7fffffffffffffff) },
    };
    const unsigned n = sizeof(k) / sizeof(k[0]);
    struct solo s;
    solo_init(&s, NULL);
    struct gpu_sm_req r[sizeof(k) / sizeof(k[0])];
    unsigned done = 0;
    for (unsigned i = 0; i < n; i++) {
        uint8_t m[8];
        unsigned b = gpu_sm_type_bytes(k[i].type);
        le_put(m, k[i].before, b);
        ck_assert_int_eq(mem_sparse_write(gpu_hbm(s.g), 64 * i, m, b), 0);
        memset(&r[i], 0, sizeof(r[i]));
        r[i].kind = GPU_SM_ATOMIC;
        r[i].addr = 64 * i;
        r[i].atom = k[i].op;
        r[i].type = k[i].type;
        r[i].operand = k[i].operand;
        r[i].done = sm_done;
        r[i].user = &done;
        ck_assert_int_eq(gpu_sm_submit(s.g, &r[i]), 0);
    }
    sim_run(s.sim);
    ck_assert_uint_eq(done, n);
    for (unsigned i = 0; i < n; i++) {
        uint8_t m[8];
        unsigned b = gpu_sm_type_bytes(k[i].type);
        ck_assert_int_eq(mem_sparse_read(gpu_hbm(s.g), 64 * i, m, b), 0);
        ck_assert_msg(le_get(m, b) == k[i].after, "case %u: 0x%llx", i,
                      (unsigned long long)le_get(m, b));
        ck_assert_uint_eq(r[i].old, k[i].before);
    }
    uint64_t sum = gpu_sm_atom_apply(GPU_SM_ATOM_ADD, GPU_SM_F32, 0x7fc00000,
                                     0x3f800000, 0);
    ck_assert((sum & 0x7fffffffu) > 0x7f800000u);
    sim_destroy(s.sim);
}
END_TEST

/* ---- Copy engines -------------------------------------------------------- */

START_TEST(test_gpu_push_odd_size_lands_exactly)
{
    const uint64_t len = 1000003, src = 77, dst = 3 * MIB + 1235;
    struct pair p;
    pair_init(&p, NULL, NULL, SIM_NS(500), 0);
    fill_pattern(p.g[0], src, len);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(p.g[1], dst, len, &bus), 0);
    struct done_log d = { 0 };
    struct gpu_dma op = {
        .dir = GPU_DMA_PUSH, .ce = 1, .local_addr = src, .remote_addr = bus,
        .len_bytes = len, .done = on_done, .user = &d,
    };
    ck_assert_int_eq(gpu_dma_submit(p.g[0], &op), 0);
    ck_assert_int_eq(d.calls, 0);   /* never from inside submit */
    sim_run(p.sim);
    ck_assert_int_eq(d.calls, 1);
    ck_assert_ptr_eq(d.last, &op);
    ck_assert_int_eq(op.status, 0);
    check_timestamps(&op);
    ck_assert_uint_eq(check_pattern(p.g[1], dst, len), len);
    ck_assert_uint_eq(hbm_byte(p.g[1], dst - 1), 0);
    ck_assert_uint_eq(hbm_byte(p.g[1], dst + len), 0);
    uint64_t mwr = expect_requests(bus, len, 256);
    ck_assert_uint_eq(op.tlps, mwr + 1);            /* + the flushing read */
    struct gpu_counters c1;
    gpu_get_counters(p.g[1], &c1);
    ck_assert_uint_eq(c1.tlps_in, mwr + 1);
    ck_assert_uint_eq(c1.bytes_written_in, len);
    ck_assert_uint_eq(c1.bar1_misses, 0);
    /* The flush ends it: one round trip after the writes left. */
    ck_assert_uint_ge(op.t_done - op.t_last, 2 * SIM_NS(500) + SIM_NS(300));
    ck_assert_uint_eq(op.t_first - op.t_submit, SIM_US(1));   /* ce-setup */
    ck_assert_uint_eq(stat_of(p.sim, "gpu0.ce1.ops"), 1);
    ck_assert_uint_eq(stat_of(p.sim, "gpu1.bytes_written_in"), len);
    pair_fini(&p);
}
END_TEST

START_TEST(test_gpu_push_mps_override_and_no_flush)
{
    const uint64_t len = 3 * 4096 + 5, src = 4096 - 3, dst = 1000;
    struct pair p;
    pair_init(&p, NULL, NULL, SIM_NS(200), 0);
    fill_pattern(p.g[0], src, len);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(p.g[1], dst, len, &bus), 0);
    struct done_log d = { 0 };
    struct gpu_dma op = {
        .dir = GPU_DMA_PUSH, .local_addr = src, .remote_addr = bus,
        .len_bytes = len, .mps = 128, .no_flush = true, .done = on_done,
        .user = &d,
    };
    ck_assert_int_eq(gpu_dma_submit(p.g[0], &op), 0);
    sim_run(p.sim);
    ck_assert_int_eq(d.calls, 1);
    check_timestamps(&op);
    ck_assert_uint_eq(op.tlps, expect_requests(bus, len, 128));
    /* Done when the last write left, before it lands. */
    ck_assert_uint_eq(op.t_done, op.t_last);
    ck_assert_uint_eq(check_pattern(p.g[1], dst, len), len);
    pair_fini(&p);
}
END_TEST

START_TEST(test_gpu_pull_odd_size_lands_exactly)
{
    const uint64_t len = 1000003, src = 5 * MIB + 3, dst = 77;
    struct pair p;
    pair_init(&p, NULL, NULL, SIM_NS(500), 0);
    fill_pattern(p.g[1], src, len);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(p.g[1], src, len, &bus), 0);
    struct done_log d = { 0 };
    struct gpu_dma op = {
        .dir = GPU_DMA_PULL, .local_addr = dst, .remote_addr = bus,
        .len_bytes = len, .done = on_done, .user = &d,
    };
    ck_assert_int_eq(gpu_dma_submit(p.g[0], &op), 0);
    sim_run(p.sim);
    ck_assert_int_eq(d.calls, 1);
    ck_assert_int_eq(op.status, 0);
    check_timestamps(&op);
    ck_assert_uint_eq(op.t_last, op.t_done);
    ck_assert_uint_eq(check_pattern(p.g[0], dst, len), len);
    ck_assert_uint_eq(hbm_byte(p.g[0], dst - 1), 0);
    ck_assert_uint_eq(hbm_byte(p.g[0], dst + len), 0);
    ck_assert_uint_eq(op.tlps, expect_requests(bus, len, 512));
    ck_assert_uint_eq(op.completed_bytes, len);
    struct gpu_counters c1;
    gpu_get_counters(p.g[1], &c1);
    ck_assert_uint_eq(c1.bytes_read_in, len);
    /* every tag came back */
    ck_assert_uint_eq(gpu__from(p.g[0])->n_free_tag, GPU_TAGS_MAX);
    pair_fini(&p);
}
END_TEST

/*
 * Read throughput bound. One engine keeps T reads of R bytes in flight;
 * each tag cycles through: request on the wire (L), the completer's HBM
 * (R/B to serialise, H latency), completions on the wire (L). With the wire
 * infinitely fast and 2L + H >> T R / B, the HBM never queues and
 *   rate = T R / (2L + H + R/B).
 * With a wire of rate W that the completions saturate instead, each read
 * costs R + 12 B per completion (3-DW header; R / mps completions):
 *   rate = W R / (R + 12 R / mps).
 */
struct pull_case {
    sim_time_t lat;             /* wire latency, ps */
    uint64_t wire;              /* bytes/s, 0 = infinite */
    unsigned tags;
};

static const struct pull_case pull_cases[] = {
    { SIM_NS(250), 0, 32 },
    { SIM_NS(500), 0, 32 },
    { SIM_US(1), 0, 32 },
    { SIM_US(2), 0, 32 },
    { SIM_US(1), 0, 128 },
    { SIM_NS(100), UINT64_C(16000000000), 64 },
};

START_TEST(test_gpu_pull_rate_is_tags_times_mrrs_over_round_trip)
{
    const struct pull_case *k = &pull_cases[_i];
    const uint64_t len = 8 * MIB, R = 512, H = SIM_NS(300);
    const uint64_t B = UINT64_C(3000000000000);
    char tags[16];
    snprintf(tags, sizeof(tags), "%u", k->tags);
    const char *kv[] = { "tags", tags, NULL };
    struct pair p;
    pair_init(&p, kv, NULL, k->lat, k->wire);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(p.g[1], 0, len, &bus), 0);
    struct done_log d = { 0 };
    struct gpu_dma op = {
        .dir = GPU_DMA_PULL, .local_addr = 0, .remote_addr = bus,
        .len_bytes = len, .done = on_done, .user = &d,
    };
    ck_assert_int_eq(gpu_dma_submit(p.g[0], &op), 0);
    sim_run(p.sim);
    ck_assert_int_eq(d.calls, 1);
    double rtt_s = (2.0 * (double)k->lat + (double)H) * 1e-12 +
                   (double)R / (double)B;
    double bound = (double)k->tags * (double)R / rtt_s;
    if (k->wire) {
        double wire_bound = (double)k->wire * (double)R /
                            (double)(R + 12 * (R / 256));
        bound = bound < wire_bound ? bound : wire_bound;
    }
    double rate = (double)len / sim_time_to_s(op.t_last - op.t_first);
    double err = (rate - bound) / bound;
    printf("pull L=%7.0f ns  W=%5.1f GB/s  T=%4u R=%u:  bound %7.3f GB/s  "
           "measured %7.3f GB/s  (%+.2f%%)\n",
           sim_time_to_ns(k->lat), (double)k->wire / 1e9, k->tags,
           (unsigned)R, bound / 1e9, rate / 1e9, 100.0 * err);
    ck_assert_msg(err > -0.05 && err < 0.05, "measured %.3f GB/s vs bound "
                  "%.3f GB/s", rate / 1e9, bound / 1e9);
    pair_fini(&p);
}
END_TEST

START_TEST(test_gpu_push_rate_is_wire_payload_share)
{
    const uint64_t len = 4 * MIB, W = UINT64_C(16000000000);
    struct pair p;
    pair_init(&p, NULL, NULL, SIM_NS(100), W);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(p.g[1], 0, len, &bus), 0);
    struct gpu_dma op = {
        .dir = GPU_DMA_PUSH, .local_addr = 0, .remote_addr = bus,
        .len_bytes = len,
    };
    ck_assert_int_eq(gpu_dma_submit(p.g[0], &op), 0);
    sim_run(p.sim);
    /* 256 B payload + 16 B header (4-DW: BAR1 is above 4 GiB). */
    double bound = (double)W * 256.0 / 272.0;
    double rate = (double)len / sim_time_to_s(op.t_done - op.t_first);
    printf("push W=%5.1f GB/s: bound %7.3f GB/s  measured %7.3f GB/s\n",
           (double)W / 1e9, bound / 1e9, rate / 1e9);
    ck_assert(rate < bound && rate > 0.99 * bound);
    pair_fini(&p);
}
END_TEST

START_TEST(test_gpu_write_to_unmapped_bar1_drops_and_counts)
{
    const uint64_t len = 10000;
    struct pair p;
    pair_init(&p, NULL, NULL, SIM_NS(100), 0);
    fill_pattern(p.g[0], 0, len);
    uint64_t bus = BASE1 + 64 * MIB + 100;      /* in the window, unmapped */
    struct done_log d = { 0 };
    struct gpu_dma op = {
        .dir = GPU_DMA_PUSH, .local_addr = 0, .remote_addr = bus,
        .len_bytes = len, .done = on_done, .user = &d,
    };
    ck_assert_int_eq(gpu_dma_submit(p.g[0], &op), 0);
    sim_run(p.sim);
    uint64_t mwr = expect_requests(bus, len, 256);
    struct gpu_counters c0, c1;
    gpu_get_counters(p.g[0], &c0);
    gpu_get_counters(p.g[1], &c1);
    ck_assert_uint_eq(c1.bar1_misses, mwr + 1);     /* the flush too */
    ck_assert_uint_eq(c1.bytes_written_in, 0);
    ck_assert_uint_eq(mem_sparse_backed_bytes(gpu_hbm(p.g[1])), 0);
    /* The flushing read got UR: the push reports the loss. */
    ck_assert_int_eq(d.calls, 1);
    ck_assert_int_eq(op.status, -SIM_EIO);
    ck_assert_uint_eq(c0.error_completions, 1);
    check_timestamps(&op);
    pair_fini(&p);
}
END_TEST

START_TEST(test_gpu_read_of_unmapped_bar1_fails_with_eio)
{
    static const char *const kv[] = { "tags", "16", NULL };
    struct pair p;
    pair_init(&p, kv, NULL, SIM_NS(100), 0);
    struct done_log d = { 0 };
    struct gpu_dma op = {
        .dir = GPU_DMA_PULL, .local_addr = 0,
        .remote_addr = BASE1 + 64 * MIB, .len_bytes = MIB,
        .done = on_done, .user = &d,
    };
    ck_assert_int_eq(gpu_dma_submit(p.g[0], &op), 0);
    sim_run(p.sim);
    ck_assert_int_eq(d.calls, 1);
    ck_assert_int_eq(op.status, -SIM_EIO);
    check_timestamps(&op);
    /* The engine stops issuing: only the first window of reads went out. */
    ck_assert_uint_eq(op.tlps, 16);
    struct gpu_counters c0, c1;
    gpu_get_counters(p.g[0], &c0);
    gpu_get_counters(p.g[1], &c1);
    ck_assert_uint_eq(c0.error_completions, 16);
    ck_assert_uint_eq(c1.bar1_misses, 16);
    ck_assert_uint_eq(gpu__from(p.g[0])->n_free_tag, GPU_TAGS_MAX);
    pair_fini(&p);
}
END_TEST

START_TEST(test_gpu_local_copy_overlapping_and_timed)
{
    static const char *const kv[] = { "hbm-bandwidth", "2TB/s",
                                      "hbm-latency", "300ns",
                                      "ce-setup", "2us", NULL };
    const uint64_t len = 3 * MIB + 7;
    struct pair p;
    pair_init(&p, kv, NULL, 0, 0);
    fill_pattern(p.g[0], 1000, len);
    struct done_log d = { 0 };
    /* Move up by 4097 bytes, overlapping: memmove semantics. */
    struct gpu_dma op = {
        .dir = GPU_DMA_LOCAL, .local_addr = 1000, .remote_addr = 1000 + 4097,
        .len_bytes = len, .done = on_done, .user = &d,
    };
    ck_assert_int_eq(gpu_dma_submit(p.g[0], &op), 0);
    sim_run(p.sim);
    ck_assert_int_eq(d.calls, 1);
    check_timestamps(&op);
    ck_assert_uint_eq(check_pattern(p.g[0], 1000 + 4097, len), len);
    ck_assert_uint_eq(op.tlps, 0);
    sim_time_t want = SIM_US(2) + sim_time_for_bytes(2 * len,
                                                     UINT64_C(2000000000000)) +
                      SIM_NS(300);
    ck_assert_uint_eq(op.t_done - op.t_submit, want);
    pair_fini(&p);
}
END_TEST

/*
 * The L2 model (models/gpu/l2.c): copies whose source and destination fit
 * in the L2 stream at its rate once they are resident; copies of more
 * than half of it thrash the LRU and cost HBM every byte read and every
 * byte written (written back), as without a cache. Expectations come from
 * the properties: the first small copy fetches its source (HBM, 1 x len)
 * and allocates its destination; the next ones hit.
 */
START_TEST(test_gpu_local_copies_hit_the_l2)
{
    static const char *const kv[] = { "hbm-bandwidth", "2TB/s",
                                      "hbm-latency", "300ns",
                                      "l2-bandwidth", "8TB/s",
                                      "l2-cache", "4MiB",
                                      "ce-setup", "2us",
                                      "ce-local-setup", "1us", NULL };
    const uint64_t hbm_bw = UINT64_C(2000000000000);
    const uint64_t l2_bw = UINT64_C(8000000000000);
    for (int big = 0; big < 2; big++) {
        const uint64_t len = big ? 4 * MIB : MIB;
        struct pair p;
        pair_init(&p, kv, NULL, 0, 0);
        fill_pattern(p.g[0], 0, len);
        struct done_log d = { 0 };
        struct gpu_dma op[3];
        for (int i = 0; i < 3; i++) {
            op[i] = (struct gpu_dma){
                .dir = GPU_DMA_LOCAL, .local_addr = 0,
                .remote_addr = 64 * MIB, .len_bytes = len,
                .done = on_done, .user = &d,
            };
            ck_assert_int_eq(gpu_dma_submit(p.g[0], &op[i]), 0);
        }
        sim_run(p.sim);
        ck_assert_int_eq(d.calls, 3);
        ck_assert_uint_eq(check_pattern(p.g[0], 64 * MIB, len), len);
        sim_time_t l2 = sim_time_for_bytes(2 * len, l2_bw);
        for (int i = 0; i < 3; i++) {
            check_timestamps(&op[i]);
            ck_assert_uint_eq(op[i].t_first - op[i].t_submit -
                                  (i ? op[i - 1].t_done - op[i].t_submit : 0),
                              SIM_US(1));
            uint64_t hbm_bytes = big ? 2 * len : (i == 0 ? len : 0);
            sim_time_t hbm = sim_time_for_bytes(hbm_bytes, hbm_bw);
            sim_time_t want = (hbm > l2 ? hbm : l2) + SIM_NS(300);
            ck_assert_msg(op[i].t_last - op[i].t_first == want ||
                              (big && i == 0),
                          "%s copy %d: %llu ps, want %llu", big ? "big"
                          : "small", i,
                          (unsigned long long)(op[i].t_last - op[i].t_first),
                          (unsigned long long)want);
        }
        if (big) {
            /* cold: the source from HBM; no write-back is due yet */
            sim_time_t lo = sim_time_for_bytes(len, hbm_bw) + SIM_NS(300);
            ck_assert_uint_ge(op[0].t_last - op[0].t_first, lo);
            ck_assert_uint_lt(op[0].t_last - op[0].t_first,
                              sim_time_for_bytes(2 * len, hbm_bw) +
                                  SIM_NS(300));
        }
        pair_fini(&p);
    }
}
END_TEST

START_TEST(test_gpu_engine_runs_its_queue_in_order)
{
    struct pair p;
    pair_init(&p, NULL, NULL, SIM_NS(100), 0);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(p.g[1], 0, MIB, &bus), 0);
    struct done_log d = { 0 };
    struct gpu_dma op[3];
    for (int i = 0; i < 3; i++) {
        op[i] = (struct gpu_dma){
            .dir = i == 1 ? GPU_DMA_PULL : GPU_DMA_PUSH, .ce = 0,
            .local_addr = (uint64_t)i * 64 * KIB, .remote_addr = bus,
            .len_bytes = 64 * KIB, .done = on_done, .user = &d,
        };
        ck_assert_int_eq(gpu_dma_submit(p.g[0], &op[i]), 0);
    }
    sim_run(p.sim);
    ck_assert_int_eq(d.calls, 3);
    for (int i = 0; i < 3; i++) {
        check_timestamps(&op[i]);
        ck_assert_int_eq(op[i].status, 0);
    }
    /* Done in order. Op 1's setup (1 us) starts once op 0's last request,
     * its flushing read, has left: after its last write, before its read
     * came back. Op 2 follows a pull: it sends nothing before the pull's
     * data have landed. */
    ck_assert_uint_le(op[0].t_done, op[1].t_done);
    ck_assert_uint_le(op[1].t_done, op[2].t_done);
    ck_assert_uint_ge(op[1].t_first, op[0].t_last + SIM_US(1));
    ck_assert_uint_lt(op[1].t_first, op[0].t_done + SIM_US(1));
    ck_assert_uint_ge(op[2].t_first, op[1].t_last);
    pair_fini(&p);
}
END_TEST

/*
 * Back-to-back small pushes on one engine over a slow wire: each one's
 * setup overlaps the flushing read of the one before, so they complete
 * one setup (plus two TLPs' issue) apart, not a setup plus a round trip
 * apart; and the last one's bytes are what the destination holds.
 */
START_TEST(test_gpu_engine_pipelines_back_to_back_pushes)
{
    enum { N = 8 };
    struct pair p;
    pair_init(&p, NULL, NULL, SIM_US(1), 0);     /* round trip >= 2 us */
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(p.g[1], 0, MIB, &bus), 0);
    struct done_log d = { 0 };
    struct gpu_dma op[N];
    for (int i = 0; i < N; i++) {
        uint8_t b[16];
        memset(b, 0x10 + i, sizeof(b));
        ck_assert_int_eq(mem_sparse_write(gpu_hbm(p.g[0]), 4096u * i, b,
                                          sizeof(b)), 0);
        op[i] = (struct gpu_dma){
            .dir = GPU_DMA_PUSH, .ce = 0, .local_addr = 4096u * i,
            .remote_addr = bus, .len_bytes = 16, .done = on_done, .user = &d,
        };
        ck_assert_int_eq(gpu_dma_submit(p.g[0], &op[i]), 0);
    }
    sim_run(p.sim);
    ck_assert_int_eq(d.calls, N);
    for (int i = 1; i < N; i++) {
        check_timestamps(&op[i]);
        sim_time_t period = op[i].t_done - op[i - 1].t_done;
        ck_assert_uint_ge(period, SIM_US(1));
        ck_assert_uint_lt(period, SIM_US(1) + SIM_US(2));
    }
    uint8_t got[16];
    ck_assert_int_eq(mem_sparse_read(gpu_hbm(p.g[1]), 0, got, 16), 0);
    ck_assert_uint_eq(got[0], 0x10 + N - 1);
    ck_assert_uint_eq(got[15], 0x10 + N - 1);
    pair_fini(&p);
}
END_TEST

/*
 * A push of bytes that the pull before it on the same engine brings in
 * waits for that pull's data: the pushed copy is the pulled one, not what
 * the memory held before.
 */
START_TEST(test_gpu_engine_push_after_pull_sees_its_data)
{
    const uint64_t len = 64 * KIB;
    struct pair p;
    pair_init(&p, NULL, NULL, SIM_NS(500), 0);
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(p.g[1], 0, 2 * MIB, &bus), 0);
    fill_pattern(p.g[1], 0, len);
    struct done_log d = { 0 };
    struct gpu_dma op[2] = {
        { .dir = GPU_DMA_PULL, .ce = 0, .local_addr = 0, .remote_addr = bus,
          .len_bytes = len, .done = on_done, .user = &d },
        { .dir = GPU_DMA_PUSH, .ce = 0, .local_addr = 0,
          .remote_addr = bus + MIB, .len_bytes = len, .done = on_done,
          .user = &d },
    };
    ck_assert_int_eq(gpu_dma_submit(p.g[0], &op[0]), 0);
    ck_assert_int_eq(gpu_dma_submit(p.g[0], &op[1]), 0);
    sim_run(p.sim);
    ck_assert_int_eq(d.calls, 2);
    ck_assert_uint_ge(op[1].t_first, op[0].t_last);
    ck_assert_uint_eq(check_pattern(p.g[1], MIB, len), len);
    pair_fini(&p);
}
END_TEST

START_TEST(test_gpu_submit_validates)
{
    struct pair p;
    pair_init(&p, NULL, NULL, 0, 0);
    struct done_log d = { 0 };
    struct gpu_dma bad[] = {
        { .dir = GPU_DMA_PUSH, .ce = 2, .len_bytes = 8, .remote_addr = BASE1 },
        { .dir = GPU_DMA_PUSH, .len_bytes = 0, .remote_addr = BASE1 },
        { .dir = GPU_DMA_PULL, .local_addr = 256 * MIB - 4, .len_bytes = 8,
          .remote_addr = BASE1 },
        { .dir = GPU_DMA_LOCAL, .local_addr = 0, .remote_addr = 256 * MIB,
          .len_bytes = 1 },
        { .dir = GPU_DMA_PUSH, .len_bytes = 8, .remote_addr = UINT64_MAX - 3 },
        { .dir = GPU_DMA_PUSH, .len_bytes = 8, .mps = 100 },
        { .dir = (enum gpu_dma_dir)7, .len_bytes = 8 },
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        bad[i].done = on_done;
        bad[i].user = &d;
        ck_assert_msg(gpu_dma_submit(p.g[0], &bad[i]) == -SIM_EINVAL,
                      "case %u accepted", i);
    }
    ck_assert_int_eq(gpu_dma_submit(p.g[0], NULL), -SIM_EINVAL);
    sim_run(p.sim);
    ck_assert_int_eq(d.calls, 0);
    pair_fini(&p);
}
END_TEST

/*
 * A link with `slots` receive buffers per direction: it refuses a TLP when
 * the far side holds them all, and calls ready() when one is released. It
 * exercises the -SIM_EAGAIN / ready() path and the receive-buffer hold.
 */
struct slot_link {
    unsigned slots;
    unsigned in_use[2];         /* per receiving side */
    unsigned refusals;
};

static void slot_arrive(struct sim *sim, struct sim_event *ev)
{
    struct tlp *t = SIM_CONTAINER_OF(ev, struct tlp, ev);
    sim_link_deliver(t->link, t->link_side, t);
}

static int slot_transmit(struct sim_link *l, unsigned from, struct tlp *t)
{
    struct slot_link *s = sim_link_state(l);
    if (s->in_use[!from] >= s->slots) {
        s->refusals++;
        return -SIM_EAGAIN;
    }
    s->in_use[!from]++;
    sim_event_init(&t->ev, slot_arrive);
    sim_event_schedule(l->sim, &t->ev, SIM_NS(50));
    return 0;
}

static void slot_release(struct sim_link *l, unsigned side, struct tlp *t)
{
    struct slot_link *s = sim_link_state(l);
    s->in_use[side]--;
    sim_link_ready(l, !side);
}

static const struct sim_link_ops slot_link_ops = {
    .kind = "test-slots",
    .state_size = sizeof(struct slot_link),
    .transmit = slot_transmit,
    .release = slot_release,
};

START_TEST(test_gpu_copies_survive_back_pressure)
{
    const uint64_t len = 300 * KIB + 11;
    struct sim_error err;
    sim_error_clear(&err);
    struct sim *sim = sim_create(NULL, NULL);
    struct sim_component *g0 = make_gpu(sim, "gpu0", NULL, &err);
    struct sim_component *g1 = make_gpu(sim, "gpu1", NULL, &err);
    ck_assert_ptr_nonnull(g0);
    ck_assert_ptr_nonnull(g1);
    gpu_set_pcie_id(g0, ID0);
    gpu_set_pcie_id(g1, ID1);
    gpu_set_bar1_base(g0, BASE0);
    gpu_set_bar1_base(g1, BASE1);
    struct sim_link *l = sim_link_create(sim, &slot_link_ops, "slots", &err);
    ck_assert_int_eq(sim_link_connect(l, sim_port_find(g0, "pcie"),
                                      sim_port_find(g1, "pcie"), &err), 0);
    struct slot_link *sl = sim_link_state(l);
    sl->slots = 2;
    fill_pattern(g0, 0, len);
    fill_pattern(g1, 8 * MIB, len);
    uint64_t push_bus, pull_bus;
    ck_assert_int_eq(gpu_bar1_map(g1, 16 * MIB, len, &push_bus), 0);
    ck_assert_int_eq(gpu_bar1_map(g1, 8 * MIB, len, &pull_bus), 0);
    struct done_log d = { 0 };
    struct gpu_dma push = {
        .dir = GPU_DMA_PUSH, .ce = 0, .local_addr = 0,
        .remote_addr = push_bus, .len_bytes = len, .done = on_done,
        .user = &d,
    };
    struct gpu_dma pull = {
        .dir = GPU_DMA_PULL, .ce = 1, .local_addr = 32 * MIB,
        .remote_addr = pull_bus, .len_bytes = len, .done = on_done,
        .user = &d,
    };
    ck_assert_int_eq(gpu_dma_submit(g0, &push), 0);
    ck_assert_int_eq(gpu_dma_submit(g0, &pull), 0);
    sim_run(sim);
    ck_assert_int_eq(d.calls, 2);
    ck_assert_int_eq(push.status, 0);
    ck_assert_int_eq(pull.status, 0);
    check_timestamps(&push);
    check_timestamps(&pull);
    ck_assert_uint_eq(check_pattern(g1, 16 * MIB, len), len);
    ck_assert_uint_eq(check_pattern(g0, 32 * MIB, len), len);
    ck_assert_uint_gt(sl->refusals, 0);
    ck_assert_uint_gt(gpu__from(g0)->egress_stalls, 0);
    /* every receive buffer came back */
    ck_assert_uint_eq(sl->in_use[0], 0);
    ck_assert_uint_eq(sl->in_use[1], 0);
    ck_assert_uint_eq(tlp_pool_live(sim), 0);
    sim_destroy(sim);
}
END_TEST

/* ---- Memory -------------------------------------------------------------- */

START_TEST(test_gpu_141gb_costs_nothing_until_touched)
{
    static const char *const h200[] = { "memory", "141GB", "bar1", "256GiB",
                                        NULL };
    struct pair p;
    pair_init(&p, NULL, h200, SIM_NS(100), 0);
    struct sim_component *g = p.g[1];
    ck_assert_uint_eq(gpu_mem_size(g), UINT64_C(141000000000));
    ck_assert_uint_eq(mem_sparse_backed_bytes(gpu_hbm(g)), 0);
    /* All of HBM fits in BAR1 at once, as on the real H200. */
    uint64_t bus;
    ck_assert_int_eq(gpu_bar1_map(g, 0, gpu_mem_size(g), &bus), 0);
    const uint64_t len = MIB, dst = UINT64_C(140000000000) + 12345;
    fill_pattern(p.g[0], 0, len);
    struct gpu_dma op = {
        .dir = GPU_DMA_PUSH, .local_addr = 0, .remote_addr = bus + dst,
        .len_bytes = len,
    };
    ck_assert_int_eq(gpu_dma_submit(p.g[0], &op), 0);
    sim_run(p.sim);
    ck_assert_uint_eq(check_pattern(g, dst, len), len);
    ck_assert_uint_le(mem_sparse_backed_bytes(gpu_hbm(g)),
                      len + 2 * MEM_SPARSE_PAGE_BYTES);
    pair_fini(&p);
}
END_TEST

Suite *make_gpu_suite(void)
{
    Suite *s = suite_create("gpu");
    TCase *tc = tcase_create("Configuration");
    tcase_add_loop_test(tc, test_gpu_configure_rejects_bad_value, 0,
                        sizeof(cfg_cases) / sizeof(cfg_cases[0]));
    tcase_add_test(tc, test_gpu_configure_requires_memory);
    tcase_add_test(tc, test_gpu_configure_defaults_and_units);
    tcase_add_loop_test(tc, test_gpu_memory_rate_from_clock_and_width, 0,
                        (int)(sizeof(mem_cases) / sizeof(mem_cases[0])));
    suite_add_tcase(s, tc);

    tc = tcase_create("BAR1");
    tcase_add_test(tc, test_gpu_bar1_map_unmap_used);
    tcase_add_test(tc, test_gpu_bar1_exhaustion_maps_nothing);
    tcase_add_test(tc, test_gpu_bar1_matches_page_array);
    suite_add_tcase(s, tc);

    tc = tcase_create("Completer");
    tcase_add_test(tc, test_gpu_read_split_at_rcb_and_mps);
    tcase_add_test(tc, test_gpu_read_split_reference_example);
    tcase_add_test(tc, test_gpu_read_timing_is_latency_plus_serialisation);
    tcase_add_test(tc, test_gpu_zero_length_read_gets_one_dw);
    tcase_add_loop_test(tc, test_gpu_atomic_exact, 0,
                        sizeof(atomic_cases) / sizeof(atomic_cases[0]));
    tcase_add_test(tc, test_gpu_atomic_unsupported_or_unmapped_gets_ur);
    tcase_add_test(tc, test_gpu_sm_float_atomics_with_nan);
    tcase_add_test(tc, test_gpu_write_to_unmapped_bar1_drops_and_counts);
    suite_add_tcase(s, tc);

    tc = tcase_create("CopyEngines");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_gpu_push_odd_size_lands_exactly);
    tcase_add_test(tc, test_gpu_push_mps_override_and_no_flush);
    tcase_add_test(tc, test_gpu_pull_odd_size_lands_exactly);
    tcase_add_loop_test(tc,
                        test_gpu_pull_rate_is_tags_times_mrrs_over_round_trip,
                        0, sizeof(pull_cases) / sizeof(pull_cases[0]));
    tcase_add_test(tc, test_gpu_push_rate_is_wire_payload_share);
    tcase_add_test(tc, test_gpu_read_of_unmapped_bar1_fails_with_eio);
    tcase_add_test(tc, test_gpu_local_copy_overlapping_and_timed);
    tcase_add_test(tc, test_gpu_local_copies_hit_the_l2);
    tcase_add_test(tc, test_gpu_engine_runs_its_queue_in_order);
    tcase_add_test(tc, test_gpu_engine_pipelines_back_to_back_pushes);
    tcase_add_test(tc, test_gpu_engine_push_after_pull_sees_its_data);
    tcase_add_test(tc, test_gpu_submit_validates);
    tcase_add_test(tc, test_gpu_copies_survive_back_pressure);
    suite_add_tcase(s, tc);

    tc = tcase_create("Memory");
    tcase_add_test(tc, test_gpu_141gb_costs_nothing_until_touched);
    suite_add_tcase(s, tc);
    return s;
}
