/*
 * tests/models/check_hostmem.c - host memory (data round trip, completion
 * splits as a table, read timing, AtomicOps as a table, unsupported
 * requests, writes holding their buffer) and the socket link (latency,
 * serialisation, the bounded queue and its ready() call).
 */
#include <config.h>

#include <stdarg.h>
#include <string.h>

#include "models/host/hostmem.h"
#include "models/host/socket_link.h"
#include "models/mem/sparse.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "sim/tlp.h"
#include "tests/check_p2psim.h"
#include "tests/models/harness.h"

#define BASE UINT64_C(0x40000000)           /* 1 GiB */
#define WIRE_PS SIM_NS(10)
#define PROBE_MAX 64

/* ---- a probe: sends requests, keeps every arrival with its payload ------- */

struct probe_rec {
    enum tlp_kind kind;
    uint8_t status;
    uint32_t len;
    uint32_t byte_count;
    uint16_t lower_addr;
    uint16_t tag;
    uint16_t completer_id;
    sim_time_t at;
    uint8_t data[4096];
};

struct probe {
    struct sim_port *p;
    struct probe_rec rec[PROBE_MAX];
    unsigned n;                 /* records kept (the first PROBE_MAX) */
    uint64_t total;             /* arrivals */
};

static void probe_receive(struct sim_component *c, struct sim_port *in,
                          struct tlp *t)
{
    struct probe *pr = sim_component_state(c);
    pr->total++;
    if (pr->n == PROBE_MAX) {
        tlp_free(t);
        return;
    }
    struct probe_rec *r = &pr->rec[pr->n++];
    r->kind = t->kind;
    r->status = t->cpl_status;
    r->len = t->len_bytes;
    r->byte_count = t->byte_count;
    r->lower_addr = t->lower_addr;
    r->tag = t->tag;
    r->completer_id = t->completer_id;
    r->at = sim_now(c->sim);
    if (t->data && tlp_payload_bytes(t)) {
        memcpy(r->data, t->data, tlp_payload_bytes(t));
    }
    tlp_free(t);
}

static const struct sim_component_ops probe_ops = {
    .kind = "test-probe",
    .state_size = sizeof(struct probe),
    .receive = probe_receive,
};

/* props from "key", "value", ..., NULL */
static void props_fill(struct sim_props *p, const char *owner, ...)
{
    sim_props_init(p, owner, NULL);
    va_list ap;
    va_start(ap, owner);
    const char *k;
    while ((k = va_arg(ap, const char *)) != NULL) {
        const char *v = va_arg(ap, const char *);
        ck_assert_int_eq(sim_props_set(p, k, v, NULL, NULL), 0);
    }
    va_end(ap);
}

struct bench {
    struct sim *sim;
    struct sim_component *mem;
    struct sim_component *probe;
};

/* probe.p --wire(10 ns, unlimited)-- mem.up; memory of 1 MiB at BASE. */
static void bench_init(struct bench *b, const char *rcb, const char *mps,
                       const char *bw)
{
    struct sim_config cfg = { .seed = 1 };
    b->sim = sim_create(&cfg, NULL);
    ck_assert_ptr_nonnull(b->sim);
    b->mem = sim_component_create(b->sim, &hmem_ops, "dram0", NULL);
    ck_assert_ptr_nonnull(b->mem);
    struct sim_props p;
    props_fill(&p, "host memory 'dram0'", "size", "1MiB", "latency", "100ns",
               "bandwidth", bw, "rcb", rcb, "mps", mps, NULL);
    struct sim_error err;
    sim_error_clear(&err);
    ck_assert_msg(sim_component_configure(b->mem, &p, &err) == 0, "%s",
                  err.msg);
    sim_props_fini(&p);
    hmem_set_base(b->mem, BASE, 0x0001);
    b->probe = sim_component_create(b->sim, &probe_ops, "probe", NULL);
    struct probe *pr = sim_component_state(b->probe);
    pr->p = sim_port_add(b->probe, "p", SIM_PORT_UPSTREAM);
    struct sim_link *l = sim_link_create(b->sim, &sim_wire_ops, "w", NULL);
    ck_assert_int_eq(sim_link_connect(l, pr->p, sim_port_find(b->mem, "up"),
                                      NULL), 0);
    sim_wire_set(l, WIRE_PS, 0);
}

static void bench_fini(struct bench *b)
{
    sim_destroy(b->sim);
}

static struct probe *probe_of(struct bench *b)
{
    return sim_component_state(b->probe);
}

static void send(struct bench *b, struct tlp *t)
{
    ck_assert_int_eq(sim_port_send(probe_of(b)->p, t), 0);
}

static struct tlp *req(struct bench *b, enum tlp_kind k, uint64_t addr,
                       uint32_t len, const void *data)
{
    struct tlp *t = tlp_alloc(b->sim, k);
    t->requester_id = 0x0100;
    t->addr = addr;
    t->len_bytes = len;
    if (data) {
        ck_assert_int_eq(tlp_data_alloc(t, len), 0);
        memcpy(t->data, data, len);
    }
    return t;
}

static void fill_pattern(uint8_t *buf, unsigned n, unsigned seed)
{
    for (unsigned i = 0; i < n; i++) {
        buf[i] = (uint8_t)(i * 7 + seed);
    }
}

/* ---- data ---------------------------------------------------------------- */

START_TEST(test_hmem_write_then_read_round_trip)
{
    struct bench b;
    bench_init(&b, "64", "256B", "100GB/s");
    uint8_t pat[300];
    fill_pattern(pat, sizeof(pat), 3);
    send(&b, req(&b, TLP_MWR, BASE + 0x1234, sizeof(pat), pat));
    struct tlp *rd = req(&b, TLP_MRD, BASE + 0x1234, sizeof(pat), NULL);
    rd->tag = 42;
    send(&b, rd);
    sim_run(b.sim);

    uint8_t back[300];
    ck_assert_int_eq(mem_sparse_read(hmem_store(b.mem), 0x1234, back,
                                     sizeof(back)), 0);
    ck_assert_mem_eq(back, pat, sizeof(pat));
    struct probe *pr = probe_of(&b);
    ck_assert_uint_ge(pr->n, 2);
    uint8_t got[300];
    unsigned off = 0;
    for (unsigned i = 0; i < pr->n; i++) {
        ck_assert_int_eq(pr->rec[i].kind, TLP_CPLD);
        ck_assert_uint_eq(pr->rec[i].status, TLP_CPL_SC);
        ck_assert_uint_eq(pr->rec[i].tag, 42);
        ck_assert_uint_eq(pr->rec[i].completer_id, 0x0001);
        ck_assert_uint_eq(pr->rec[i].byte_count, sizeof(pat) - off);
        memcpy(got + off, pr->rec[i].data, pr->rec[i].len);
        off += pr->rec[i].len;
    }
    ck_assert_uint_eq(off, sizeof(pat));
    ck_assert_mem_eq(got, pat, sizeof(pat));
    ck_assert_uint_eq(tlp_pool_live(b.sim), 0);
    bench_fini(&b);
}
END_TEST

struct split_case {
    const char *rcb, *mps;
    uint64_t offset;            /* from BASE */
    uint32_t len;
    uint32_t sizes[8];          /* expected completion sizes, 0-terminated */
};

static const struct split_case split_cases[] = {
    /* reference §2.3 worked example (iopenv.com) */
    { "128", "128B", 0x60, 200, { 32, 128, 40 } },
    /* within MPS: one completion, even across RCB boundaries */
    { "128", "256B", 0x60, 200, { 200 } },
    /* coalesced: MPS-sized middle, first ends at an RCB boundary */
    { "128", "256B", 0x60, 512, { 160, 256, 96 } },
    { "64", "128B", 0x10, 300, { 112, 128, 60 } },
    { "64", "256B", 0x60, 200, { 200 } },
    { "64", "256B", 0x0, 1024, { 256, 256, 256, 256 } },
    { "64", "128B", 0x7c, 8, { 8 } },
    { "64", "512B", 0x3c, 1000, { 452, 512, 36 } },
};

START_TEST(test_hmem_completion_split)
{
    const struct split_case *sc = &split_cases[_i];
    struct bench b;
    bench_init(&b, sc->rcb, sc->mps, "100GB/s");
    uint8_t pat[4096];
    fill_pattern(pat, sizeof(pat), 11);
    ck_assert_int_eq(mem_sparse_write(hmem_store(b.mem), 0, pat, sizeof(pat)),
                     0);
    send(&b, req(&b, TLP_MRD, BASE + sc->offset, sc->len, NULL));
    sim_run(b.sim);
    struct probe *pr = probe_of(&b);
    unsigned n = 0;
    while (n < 8 && sc->sizes[n]) {
        n++;
    }
    ck_assert_uint_eq(pr->n, n);
    uint64_t pos = sc->offset;
    for (unsigned i = 0; i < n; i++) {
        const struct probe_rec *r = &pr->rec[i];
        ck_assert_msg(r->len == sc->sizes[i], "completion %u: %u bytes, "
                      "expected %u", i, r->len, sc->sizes[i]);
        ck_assert_uint_eq(r->lower_addr, (BASE + pos) & 0x7f);
        ck_assert_uint_eq(r->byte_count, sc->offset + sc->len - pos);
        ck_assert_mem_eq(r->data, pat + pos, r->len);
        if (i > 0) {
            ck_assert_uint_ge(r->at, pr->rec[i - 1].at);
        }
        pos += r->len;
    }
    bench_fini(&b);
}
END_TEST

/* ---- timing -------------------------------------------------------------- */

START_TEST(test_hmem_read_latency_and_channel)
{
    /* 10 GB/s = 10 bytes per ns; latency 100 ns; wire 10 ns each way */
    struct bench b;
    bench_init(&b, "64", "256B", "10GB/s");
    send(&b, req(&b, TLP_MRD, BASE, 64, NULL));
    sim_run(b.sim);
    struct probe *pr = probe_of(&b);
    ck_assert_uint_eq(pr->n, 1);
    /* 10 (wire) + 6.4 (64 B on the channel) + 100 + 10 (wire) */
    ck_assert_uint_eq(pr->rec[0].at, SIM_NS(10) + 6400 + SIM_NS(110));

    /* two 256-byte reads at once: the second waits for the channel */
    pr->n = 0;
    sim_time_t t0 = sim_now(b.sim);
    send(&b, req(&b, TLP_MRD, BASE, 256, NULL));
    send(&b, req(&b, TLP_MRD, BASE + 256, 256, NULL));
    sim_run(b.sim);
    ck_assert_uint_eq(pr->n, 2);
    ck_assert_uint_eq(pr->rec[0].at - t0, SIM_NS(10) + 25600 + SIM_NS(110));
    ck_assert_uint_eq(pr->rec[1].at - t0,
                      SIM_NS(10) + 2 * 25600 + SIM_NS(110));
    bench_fini(&b);
}
END_TEST

START_TEST(test_hmem_write_holds_tlp_until_channel_takes_it)
{
    /* 1 GB/s: 1000 bytes take 1 us on the channel */
    struct bench b;
    bench_init(&b, "64", "256B", "1GB/s");
    send(&b, req(&b, TLP_MWR, BASE, 1000, NULL));
    sim_run_until(b.sim, WIRE_PS + SIM_NS(999));
    ck_assert_uint_eq(tlp_pool_live(b.sim), 1);
    sim_run_until(b.sim, WIRE_PS + SIM_NS(1000));
    ck_assert_uint_eq(tlp_pool_live(b.sim), 0);
    bench_fini(&b);
}
END_TEST

/* ---- AtomicOps ----------------------------------------------------------- */

struct atomic_case {
    const char *name;
    enum tlp_kind kind;
    uint32_t len;               /* TLP payload bytes */
    uint64_t offset;            /* from BASE */
    uint64_t init;              /* memory before (8 bytes at offset) */
    uint64_t op1, op2;          /* operand, or compare and swap */
    uint8_t status;
    uint64_t old;               /* in the CplD */
    uint64_t after;             /* 8 bytes at offset afterwards */
};

static const struct atomic_case atomic_cases[] = {
    { "FetchAdd32 wraps", TLP_FETCHADD, 4, 0x100, UINT64_C(0xaaaaaaaaffffffff),
      2, 0, TLP_CPL_SC, 0xffffffff, UINT64_C(0xaaaaaaaa00000001) },
    { "FetchAdd64 carries", TLP_FETCHADD, 8, 0x108, 0xffffffff, 1, 0,
      TLP_CPL_SC, 0xffffffff, UINT64_C(0x100000000) },
    { "Swap32", TLP_SWAP, 4, 0x114, UINT64_C(0x1111111100000007), 9, 0,
      TLP_CPL_SC, 7, UINT64_C(0x1111111100000009) },
    { "Swap64", TLP_SWAP, 8, 0x118, UINT64_C(0x0123456789abcdef),
      UINT64_C(0xfedcba9876543210), 0, TLP_CPL_SC,
      UINT64_C(0x0123456789abcdef), UINT64_C(0xfedcba9876543210) },
    { "CAS32 equal", TLP_CAS, 8, 0x120, 5, 5, 6, TLP_CPL_SC, 5, 6 },
    { "CAS32 different", TLP_CAS, 8, 0x124, 5, 4, 6, TLP_CPL_SC, 5, 5 },
    { "CAS64 equal", TLP_CAS, 16, 0x128, UINT64_C(0x500000000),
      UINT64_C(0x500000000), UINT64_C(0x600000000), TLP_CPL_SC,
      UINT64_C(0x500000000), UINT64_C(0x600000000) },
    { "FetchAdd64 misaligned", TLP_FETCHADD, 8, 0x134, 3, 1, 0, TLP_CPL_UR,
      0, 3 },
    { "FetchAdd of 2 bytes", TLP_FETCHADD, 2, 0x138, 3, 1, 0, TLP_CPL_UR, 0,
      3 },
    { "CAS128 unsupported", TLP_CAS, 32, 0x140, 3, 3, 4, TLP_CPL_UR, 0, 3 },
    /* models/pcie/atomicop.h: the lengths PCIe allows, the alignment of
     * one operand (a CAS64 needs 8, not 16) */
    { "CAS of 3 DW", TLP_CAS, 12, 0x148, 3, 3, 4, TLP_CPL_UR, 0, 3 },
    { "CAS of 9 bytes", TLP_CAS, 9, 0x150, 3, 3, 4, TLP_CPL_UR, 0, 3 },
    { "Swap of 16 bytes", TLP_SWAP, 16, 0x160, 3, 9, 0, TLP_CPL_UR, 0, 3 },
    { "CAS64 at an 8-byte boundary", TLP_CAS, 16, 0x178, 3, 3, 4,
      TLP_CPL_SC, 3, 4 },
    { "FetchAdd past the end", TLP_FETCHADD, 8, 1u << 20, 0, 1, 0,
      TLP_CPL_UR, 0, 0 },
};

static void le_put(uint8_t *b, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++) {
        b[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint64_t le_get(const uint8_t *b, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        v |= (uint64_t)b[i] << (8 * i);
    }
    return v;
}

START_TEST(test_hmem_atomics)
{
    const struct atomic_case *ac = &atomic_cases[_i];
    struct bench b;
    bench_init(&b, "64", "256B", "100GB/s");
    uint8_t mem[8];
    le_put(mem, 8, ac->init);
    if (ac->offset + 8 <= (1u << 20)) {
        ck_assert_int_eq(mem_sparse_write(hmem_store(b.mem), ac->offset, mem,
                                          8), 0);
    }
    uint8_t payload[32] = { 0 };
    unsigned half = ac->kind == TLP_CAS ? ac->len / 2 : ac->len;
    le_put(payload, half < 8 ? half : 8, ac->op1);
    if (ac->kind == TLP_CAS && half <= 8) {
        le_put(payload + half, half, ac->op2);
    }
    send(&b, req(&b, ac->kind, BASE + ac->offset, ac->len, payload));
    sim_run(b.sim);
    struct probe *pr = probe_of(&b);
    ck_assert_uint_eq(pr->n, 1);
    ck_assert_msg(pr->rec[0].status == ac->status, "%s: status %u", ac->name,
                  pr->rec[0].status);
    if (ac->status == TLP_CPL_SC) {
        ck_assert_int_eq(pr->rec[0].kind, TLP_CPLD);
        ck_assert_uint_eq(pr->rec[0].len, half);
        ck_assert_msg(le_get(pr->rec[0].data, half) == ac->old,
                      "%s: old value %#llx", ac->name,
                      (unsigned long long)le_get(pr->rec[0].data, half));
    } else {
        ck_assert_int_eq(pr->rec[0].kind, TLP_CPL);
    }
    if (ac->offset + 8 <= (1u << 20)) {
        ck_assert_int_eq(mem_sparse_read(hmem_store(b.mem), ac->offset, mem,
                                         8), 0);
        ck_assert_msg(le_get(mem, 8) == ac->after, "%s: memory %#llx",
                      ac->name, (unsigned long long)le_get(mem, 8));
    }
    bench_fini(&b);
}
END_TEST

START_TEST(test_hmem_many_fetchadds_count_exactly)
{
    struct bench b;
    bench_init(&b, "64", "256B", "100GB/s");
    uint8_t one[4] = { 1, 0, 0, 0 };
    for (unsigned i = 0; i < 1000; i++) {
        struct tlp *t = req(&b, TLP_FETCHADD, BASE + 0x800, 4, one);
        t->tag = (uint16_t)(i & 0x3ff);
        send(&b, t);
    }
    sim_run(b.sim);
    uint8_t v[4];
    ck_assert_int_eq(mem_sparse_read(hmem_store(b.mem), 0x800, v, 4), 0);
    ck_assert_uint_eq(le_get(v, 4), 1000);
    /* every old value was returned once: 0..999 in order */
    struct probe *pr = probe_of(&b);
    ck_assert_uint_eq(pr->total, 1000);
    ck_assert_uint_eq(pr->n, PROBE_MAX);
    for (unsigned i = 0; i < PROBE_MAX; i++) {
        ck_assert_uint_eq(le_get(pr->rec[i].data, 4), i);
    }
    bench_fini(&b);
}
END_TEST

/* ---- unsupported requests ------------------------------------------------ */

START_TEST(test_hmem_out_of_range_is_unsupported)
{
    struct bench b;
    bench_init(&b, "64", "256B", "100GB/s");
    uint8_t pat[64];
    fill_pattern(pat, sizeof(pat), 1);
    send(&b, req(&b, TLP_MRD, BASE + (1u << 20) - 32, 64, NULL));  /* past */
    send(&b, req(&b, TLP_MRD, BASE - 64, 64, NULL));               /* below */
    send(&b, req(&b, TLP_MWR, BASE + (1u << 20), 64, pat));        /* past */
    send(&b, req(&b, TLP_MRD, BASE + (1u << 20) - 64, 64, NULL));  /* ok */
    sim_run(b.sim);
    struct probe *pr = probe_of(&b);
    ck_assert_uint_eq(pr->n, 3);
    ck_assert_int_eq(pr->rec[0].kind, TLP_CPL);
    ck_assert_uint_eq(pr->rec[0].status, TLP_CPL_UR);
    ck_assert_int_eq(pr->rec[1].kind, TLP_CPL);
    ck_assert_uint_eq(pr->rec[1].status, TLP_CPL_UR);
    ck_assert_int_eq(pr->rec[2].kind, TLP_CPLD);
    ck_assert_uint_eq(pr->rec[2].status, TLP_CPL_SC);
    ck_assert_uint_eq(mem_sparse_backed_bytes(hmem_store(b.mem)), 0);
    struct sim_stats *st = sim_stats_create();
    sim_component_report(b.mem, st);
    uint64_t v = 0;
    ck_assert(sim_stats_get(st, "dram0.unsupported", &v));
    ck_assert_uint_eq(v, 3);
    ck_assert(sim_stats_get(st, "dram0.reads", &v));
    ck_assert_uint_eq(v, 1);
    sim_stats_destroy(st);
    bench_fini(&b);
}
END_TEST

START_TEST(test_hmem_configure_rejects_bad_rcb_and_mps)
{
    static const char *const bad[][2] = {
        { "rcb", "96" }, { "rcb", "256" }, { "mps", "200B" }, { "mps", "64B" },
        { "mps", "8KiB" }, { "size", "0B" },
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct sim_config cfg = { .seed = 1 };
        struct sim *sim = sim_create(&cfg, NULL);
        struct sim_component *c = sim_component_create(sim, &hmem_ops, "m",
                                                       NULL);
        struct sim_props p;
        props_fill(&p, "host memory 'm'", "size", "1MiB", NULL);
        ck_assert_int_eq(sim_props_set(&p, bad[i][0], bad[i][1], NULL, NULL),
                         0);
        struct sim_error err;
        sim_error_clear(&err);
        ck_assert_msg(sim_component_configure(c, &p, &err) < 0,
                      "%s=%s accepted", bad[i][0], bad[i][1]);
        ck_assert_ptr_nonnull(strstr(err.msg, bad[i][0]));
        sim_props_fini(&p);
        sim_destroy(sim);
    }
}
END_TEST

/* ---- the socket link ----------------------------------------------------- */

struct xs_bench {
    struct sim *sim;
    struct sim_component *a, *b;
    struct sim_link *l;
};

/* a.p --socket-link(1 GB/s, 100 ns, queue)-- b.p */
static void xs_init(struct xs_bench *x, const char *queue)
{
    struct sim_config cfg = { .seed = 1 };
    x->sim = sim_create(&cfg, NULL);
    x->a = th_ep_create(x->sim, "a");
    x->b = th_ep_create(x->sim, "b");
    x->l = sim_link_create(x->sim, &socket_link_ops, "xgmi", NULL);
    struct sim_props p;
    props_fill(&p, "socket link 'xgmi'", "bandwidth", "1GB/s", "latency",
               "100ns", "queue", queue, NULL);
    struct sim_error err;
    sim_error_clear(&err);
    ck_assert_msg(sim_link_configure(x->l, &p, &err) == 0, "%s", err.msg);
    sim_props_fini(&p);
    ck_assert_int_eq(sim_link_connect(x->l, th_ep(x->a)->port,
                                      th_ep(x->b)->port, NULL), 0);
}

START_TEST(test_slink_latency_and_rate)
{
    struct xs_bench x;
    xs_init(&x, "16KiB");
    /* 256 B payload + 12 B header (32-bit address) = 268 ns at 1 GB/s */
    th_ep_send(x.a, th_mwr(x.sim, 0x1000, 256, false));
    th_ep_send(x.b, th_mwr(x.sim, 0x2000, 256, false));
    sim_run(x.sim);
    ck_assert_uint_eq(th_ep(x.b)->n_rec, 1);
    ck_assert_uint_eq(th_ep(x.b)->rec[0].at, SIM_NS(268 + 100));
    /* the other direction has its own serialiser */
    ck_assert_uint_eq(th_ep(x.a)->n_rec, 1);
    ck_assert_uint_eq(th_ep(x.a)->rec[0].at, SIM_NS(268 + 100));
    sim_destroy(x.sim);
}
END_TEST

START_TEST(test_slink_bounded_queue_refuses_then_readies)
{
    struct xs_bench x;
    xs_init(&x, "1KiB");
    for (unsigned i = 0; i < 10; i++) {
        th_ep_send(x.a, th_mwr(x.sim, 0x1000 + 256 * i, 256, false));
    }
    /* 3 x 268 B fit in 1 KiB, the 4th does not */
    ck_assert_uint_eq(th_ep(x.a)->q_tail - th_ep(x.a)->q_head, 7);
    ck_assert_uint_eq(th_ep(x.a)->refusals, 1);
    sim_run(x.sim);
    struct th_ep *b = th_ep(x.b);
    ck_assert_uint_eq(b->n_rec, 10);
    for (unsigned i = 0; i < 10; i++) {
        /* back to back: refusals cost no bandwidth */
        ck_assert_uint_eq(b->rec[i].at, SIM_NS(268 * (i + 1) + 100));
        ck_assert_uint_eq(b->rec[i].addr, 0x1000 + 256 * i);
    }
    ck_assert_uint_gt(th_ep(x.a)->refusals, 1);
    struct sim_stats *st = sim_stats_create();
    x.l->ops->report(x.l, st);
    uint64_t v = 0;
    ck_assert(sim_stats_get(st, "xgmi.dir0.tlps", &v));
    ck_assert_uint_eq(v, 10);
    ck_assert(sim_stats_get(st, "xgmi.dir0.max_queue_bytes", &v));
    ck_assert_uint_le(v, 1024);
    ck_assert_uint_ge(v, 3 * 268);
    ck_assert(sim_stats_get(st, "xgmi.dir0.refusals", &v));
    ck_assert_uint_eq(v, th_ep(x.a)->refusals);
    sim_stats_destroy(st);
    sim_destroy(x.sim);
}
END_TEST

START_TEST(test_slink_oversized_tlp_passes_an_empty_queue)
{
    struct xs_bench x;
    xs_init(&x, "64B");
    th_ep_send(x.a, th_mwr(x.sim, 0x1000, 256, false));
    th_ep_send(x.a, th_mwr(x.sim, 0x2000, 256, false));
    sim_run(x.sim);
    ck_assert_uint_eq(th_ep(x.b)->n_rec, 2);
    ck_assert_uint_eq(th_ep(x.b)->rec[1].at, SIM_NS(2 * 268 + 100));
    sim_destroy(x.sim);
}
END_TEST

Suite *make_hostmem_suite(void)
{
    Suite *s = suite_create("hostmem");
    TCase *tc = tcase_create("Data");
    tcase_add_test(tc, test_hmem_write_then_read_round_trip);
    tcase_add_loop_test(tc, test_hmem_completion_split, 0,
                        sizeof(split_cases) / sizeof(split_cases[0]));
    tcase_add_loop_test(tc, test_hmem_atomics, 0,
                        sizeof(atomic_cases) / sizeof(atomic_cases[0]));
    tcase_add_test(tc, test_hmem_many_fetchadds_count_exactly);
    suite_add_tcase(s, tc);

    tc = tcase_create("Timing");
    tcase_add_test(tc, test_hmem_read_latency_and_channel);
    tcase_add_test(tc, test_hmem_write_holds_tlp_until_channel_takes_it);
    suite_add_tcase(s, tc);

    tc = tcase_create("Errors");
    tcase_add_test(tc, test_hmem_out_of_range_is_unsupported);
    tcase_add_test(tc, test_hmem_configure_rejects_bad_rcb_and_mps);
    suite_add_tcase(s, tc);

    tc = tcase_create("SocketLink");
    tcase_add_test(tc, test_slink_latency_and_rate);
    tcase_add_test(tc, test_slink_bounded_queue_refuses_then_readies);
    tcase_add_test(tc, test_slink_oversized_tlp_passes_an_empty_queue);
    suite_add_tcase(s, tc);
    return s;
}
