/*
 * tests/machine/check_exec.c - copies through libp2psim on machines of the
 * library: host <-> GPU with the program's own memory, peer copies direct
 * and staged (the hand-off the machine's api-costs give), BAR1 exhaustion
 * falling back to staging, start times,
 * copies ordered behind one another (p2psim_copy_after), and the bytes
 * each link carried (p2psim_link_stat), NVLink links included.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/links.h"
#include "machine/p2psim.h"
#include "models/pcie/pcie.h"
#include "sim/error.h"
#include "tests/check_p2psim.h"
#include "tests/machine/open.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

#define MB (UINT64_C(1) << 20)

struct done_box {
    int calls;
    struct p2psim_copy_result r;
};

static void on_done(void *arg, const struct p2psim_copy_result *r)
{
    struct done_box *b = arg;
    b->calls++;
    b->r = *r;
}

static struct p2psim_loc dev(unsigned gpu, uint64_t addr)
{
    return (struct p2psim_loc){ P2PSIM_DEVICE, gpu, addr };
}

static struct p2psim_loc host(uint64_t bus)
{
    return (struct p2psim_loc){ P2PSIM_HOST, 0, bus };
}

static void copy(struct p2psim *p, struct p2psim_loc d, struct p2psim_loc s,
                 uint64_t len, unsigned flags, struct done_box *b)
{
    memset(b, 0, sizeof(*b));
    ck_assert_int_eq(p2psim_copy(p, &d, &s, len, flags, p2psim_now(p), on_done,
                                 b), 0);
    p2psim_run(p);
    ck_assert_int_eq(b->calls, 1);
    ck_assert_int_eq(b->r.status, 0);
}

START_TEST(test_exec_host_round_trip_is_exact)
{
    struct p2psim *p = test_open(NULL, NULL); /* the default machine */
    uint64_t len = 3 * MB + 777;
    uint8_t *in = malloc(len), *out = calloc(1, len);
    for (uint64_t i = 0; i < len; i++) {
        in[i] = (uint8_t)(i ^ (i >> 9));
    }
    uint64_t bin, bout;
    ck_assert_int_eq(p2psim_host_register(p, in, len, 0, &bin), 0);
    ck_assert_int_eq(p2psim_host_register(p, out, len, 0, &bout), 0);
    ck_assert_uint_ne(bin, bout);
    struct done_box b;
    copy(p, dev(0, 4096), host(bin), len, 0, &b);
    ck_assert(!b.r.staged);
    copy(p, host(bout), dev(0, 4096), len, 0, &b);
    ck_assert_int_eq(memcmp(in, out, len), 0);
    ck_assert_int_eq(p2psim_host_unregister(p, bin), 0);
    ck_assert_int_eq(p2psim_host_unregister(p, bin), -SIM_ENOENT);
    p2psim_close(p);
    free(in);
    free(out);
}
END_TEST

/* Device to device between GPUs, P2P and staged, both byte-exact. */
START_TEST(test_exec_peer_direct_and_staged)
{
    struct p2psim *p = test_open(NULL, NULL);
    uint64_t len = 16 * MB + 3;
    uint8_t *in = malloc(len), *out = calloc(1, len);
    for (uint64_t i = 0; i < len; i++) {
        in[i] = (uint8_t)(i * 13);
    }
    uint64_t bin, bout;
    p2psim_host_register(p, in, len, 0, &bin);
    p2psim_host_register(p, out, len, 0, &bout);
    struct done_box b, direct, staged;
    copy(p, dev(0, 0), host(bin), len, 0, &b);
    /* GPU0 and GPU1 share a switch: direct P2P */
    copy(p, dev(1, 0), dev(0, 0), len, P2PSIM_COPY_PEER, &direct);
    ck_assert(!direct.r.staged);
    copy(p, host(bout), dev(1, 0), len, 0, &b);
    ck_assert_int_eq(memcmp(in, out, len), 0);
    /* without peer access: staged through host memory, still exact */
    memset(out, 0, len);
    copy(p, dev(2, 0), dev(0, 0), len, 0, &staged);
    ck_assert(staged.r.staged);
    copy(p, host(bout), dev(2, 0), len, 0, &b);
    ck_assert_int_eq(memcmp(in, out, len), 0);
    /* a peer read (the destination pulls) lands the same bytes */
    memset(out, 0, len);
    copy(p, dev(3, 0), dev(0, 0), len, P2PSIM_COPY_PEER | P2PSIM_COPY_READ, &b);
    copy(p, host(bout), dev(3, 0), len, 0, &b);
    ck_assert_int_eq(memcmp(in, out, len), 0);
    /* staging crosses the root complex twice: slower than direct P2P */
    sim_time_t td = direct.r.t_end - direct.r.t_start;
    sim_time_t ts = staged.r.t_end - staged.r.t_start;
    ck_assert_msg(ts > td, "staged %llu ps, direct %llu ps",
                  (unsigned long long)ts, (unsigned long long)td);
    /* ...but pipelined: well under the sum of its two halves in series */
    ck_assert_msg(ts < 2 * td, "staged %llu ps, direct %llu ps",
                  (unsigned long long)ts, (unsigned long long)td);
    p2psim_close(p);
    free(in);
    free(out);
}
END_TEST

/*
 * A 16-byte staged copy is a push, the host's hand-off and a pull: it
 * takes the machine's api-costs staged-handoff (default 12 us), so
 * setting it 3 us shorter makes the copy 3 us shorter, and the hand-off
 * is most of the copy.
 */
static sim_time_t staged_16(const char *overrides)
{
    struct p2psim_options o = { .overrides = overrides };
    struct p2psim *p = test_open(NULL, overrides ? &o : NULL);
    struct done_box b;
    copy(p, dev(2, 0), dev(0, 0), 16, 0, &b);
    ck_assert(b.r.staged);
    p2psim_close(p);
    return b.r.t_end - b.r.t_start;
}

START_TEST(test_exec_staged_handoff_is_the_machines)
{
    sim_time_t def = staged_16(NULL);
    sim_time_t shorter = staged_16("api-costs.staged-handoff=9us\n");
    ck_assert_msg(def > SIM_US(12) && def < SIM_US(12) + SIM_US(6),
                  "a 16-byte staged copy took %llu ps",
                  (unsigned long long)def);
    sim_time_t d = def - shorter;
    ck_assert_msg(d > SIM_US(3) - SIM_NS(1) && d < SIM_US(3) + SIM_NS(1),
                  "default %llu ps, with a 9 us hand-off %llu ps",
                  (unsigned long long)def, (unsigned long long)shorter);
}
END_TEST

/* A GeForce BAR1 of 256 MiB cannot map 300 MiB: the copy is staged. */
START_TEST(test_exec_bar1_exhaustion_stages)
{
    struct p2psim *p = test_open(P2PSIM_SRCDIR
                                    "/topologies/desktop-2x-geforce.yaml", NULL);
    struct done_box b;
    ck_assert_int_eq(p2psim_peer_map(p, 1, 0, 300 * MB), -SIM_ENOMEM);
    copy(p, dev(1, 0), dev(0, 0), 300 * MB, P2PSIM_COPY_PEER, &b);
    ck_assert(b.r.staged);
    /* a small one fits and goes direct */
    copy(p, dev(1, 512 * MB), dev(0, 0), 4 * MB, P2PSIM_COPY_PEER, &b);
    ck_assert(!b.r.staged);
    p2psim_close(p);
}
END_TEST

START_TEST(test_exec_start_time_and_errors)
{
    struct p2psim *p = test_open(NULL, NULL);
    struct done_box b;
    memset(&b, 0, sizeof(b));
    struct p2psim_loc d = dev(0, 0), s = dev(1, 0), h1 = host(0), h2 = host(0);
    sim_time_t at = SIM_US(50);
    ck_assert_int_eq(p2psim_copy(p, &d, &s, 4096, P2PSIM_COPY_PEER, at,
                                 on_done, &b), 0);
    p2psim_run(p);
    ck_assert_uint_eq(b.r.t_start, at);
    ck_assert_uint_gt(b.r.t_end, at);
    ck_assert_int_eq(p2psim_copy(p, &d, &s, 0, 0, 0, on_done, &b), -SIM_EINVAL);
    ck_assert_int_eq(p2psim_copy(p, &h1, &h2, 8, 0, 0, on_done, &b),
                     -SIM_EINVAL);
    struct p2psim_loc bad = dev(99, 0);
    ck_assert_int_eq(p2psim_copy(p, &bad, &s, 8, 0, 0, on_done, &b),
                     -SIM_EINVAL);
    p2psim_close(p);
}
END_TEST

#define N_ORDERED 8

/*
 * Copies ordered behind one another that one GPU drives queue on one
 * engine: they end in order, each well before one copy's whole latency
 * after the one before (its setup overlapped the previous round trip),
 * in both fidelities; a push ordered behind a pull of the same bytes
 * reads what the pull landed.
 */
START_TEST(test_exec_ordered_copies_queue_on_one_engine)
{
    static const char *const fid[] = { "tlp", "flow" };
    for (unsigned k = 0; k < 2; k++) {
        struct p2psim *p = test_open(NULL, NULL);
        ck_assert_int_eq(p2psim_set_fidelity(p, fid[k], NULL), 0);
        uint8_t *buf = calloc(N_ORDERED, 4096);
        uint64_t bus;
        ck_assert_int_eq(p2psim_host_register(p, buf, N_ORDERED * 4096, 0,
                                              &bus), 0);
        /* one copy alone: its whole latency */
        struct done_box alone;
        copy(p, host(bus), dev(0, 0), 4, 0, &alone);
        sim_time_t lat = alone.r.t_end - alone.r.t_start;
        struct done_box b[N_ORDERED];
        memset(b, 0, sizeof(b));
        uint64_t id = 0;
        sim_time_t t0 = p2psim_now(p);
        for (unsigned i = 0; i < N_ORDERED; i++) {
            struct p2psim_loc d = host(bus + i * 4096), s = dev(0, i * 4096);
            ck_assert_int_eq(p2psim_copy_after(p, id, &d, &s, 4, 0, t0,
                                               on_done, &b[i], &id), 0);
            ck_assert_uint_eq(id, (uint64_t)i + 2);
        }
        p2psim_run(p);
        for (unsigned i = 0; i < N_ORDERED; i++) {
            ck_assert_int_eq(b[i].calls, 1);
            ck_assert_uint_eq(b[i].r.t_start, t0);
            if (i > 0) {
                sim_time_t gap = b[i].r.t_end - b[i - 1].r.t_end;
                ck_assert_msg(b[i].r.t_end > b[i - 1].r.t_end &&
                                  gap < lat,
                              "%s: copy %u ends %llu ps after the one "
                              "before; one alone takes %llu ps",
                              fid[k], i, (unsigned long long)gap,
                              (unsigned long long)lat);
            }
        }
        /* pull bytes in, push them back out behind it: the push sees them */
        memset(buf, 0x5a, 64);
        struct done_box in, out;
        memset(&in, 0, sizeof(in));
        memset(&out, 0, sizeof(out));
        struct p2psim_loc d0 = dev(0, 8192), h0 = host(bus);
        struct p2psim_loc h1 = host(bus + 4096);
        ck_assert_int_eq(p2psim_copy_after(p, 0, &d0, &h0, 64, 0, 0, on_done,
                                           &in, &id), 0);
        ck_assert_int_eq(p2psim_copy_after(p, id, &h1, &d0, 64, 0, 0,
                                           on_done, &out, NULL), 0);
        p2psim_run(p);
        ck_assert_int_eq(out.calls, 1);
        ck_assert_uint_ge(out.r.t_end, in.r.t_end);
        for (unsigned i = 0; i < 64; i++) {
            ck_assert_uint_eq(buf[4096 + i], 0x5a);
        }
        p2psim_host_unregister(p, bus);
        p2psim_close(p);
        free(buf);
    }
}
END_TEST

/*
 * Where one engine cannot keep the order (another GPU drives the copy, or
 * it is staged) a copy starts when the one before is done; an id not
 * given yet is refused; a copy after one that is done is not held.
 */
START_TEST(test_exec_ordered_copies_fall_back)
{
    struct p2psim *p = test_open(NULL, NULL);
    struct done_box a, b, c;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    memset(&c, 0, sizeof(c));
    struct p2psim_loc g0 = dev(0, 0), g1 = dev(1, 0), g2 = dev(2, 0);
    uint64_t ida, idb;
    /* GPU 0 pushes to GPU 1; then GPU 1 pushes to GPU 0 */
    ck_assert_int_eq(p2psim_copy_after(p, 0, &g1, &g0, MB, P2PSIM_COPY_PEER,
                                       0, on_done, &a, &ida), 0);
    ck_assert_int_eq(p2psim_copy_after(p, ida, &g0, &g1, MB,
                                       P2PSIM_COPY_PEER, 0, on_done, &b,
                                       &idb), 0);
    /* then a staged copy (no peer flag) */
    ck_assert_int_eq(p2psim_copy_after(p, idb, &g2, &g0, MB, 0, 0, on_done,
                                       &c, NULL), 0);
    ck_assert_int_eq(p2psim_copy_after(p, idb + 2, &g2, &g0, MB, 0, 0,
                                       on_done, &c, NULL), -SIM_EINVAL);
    p2psim_run(p);
    ck_assert_int_eq(a.calls + b.calls + c.calls, 3);
    ck_assert(!b.r.staged && c.r.staged);
    ck_assert_uint_eq(b.r.t_start, a.r.t_end);
    ck_assert_uint_eq(c.r.t_start, b.r.t_end);
    /* after a copy that is done: starts at its own time */
    memset(&a, 0, sizeof(a));
    sim_time_t at = p2psim_now(p) + SIM_US(3);
    ck_assert_int_eq(p2psim_copy_after(p, ida, &g1, &g0, 4096,
                                       P2PSIM_COPY_PEER, at, on_done, &a,
                                       NULL), 0);
    p2psim_run(p);
    ck_assert_uint_eq(a.r.t_start, at);
    p2psim_close(p);
}
END_TEST

/* A peer copy over NVLink (DGX-1 V100: GPU0 and GPU1 are NV1) shows in
 * the link counters as NVLink payload: the copy's size, and the one-DW
 * completion of the engine's flushing read, and none of it on PCIe
 * links; the links report their rate. */
START_TEST(test_exec_nvlink_bytes_in_link_stats)
{
    char file[512];
    snprintf(file, sizeof(file), "%s/topologies/dgx1-v100.yaml",
             P2PSIM_SRCDIR);
    struct p2psim *p = test_open(file, NULL);
    struct done_box b;
    copy(p, dev(1, 0), dev(0, 0), 4 * MB, P2PSIM_COPY_PEER, &b);
    ck_assert(!b.r.staged);
    uint64_t nvl = 0, pcie = 0;
    unsigned n = p2psim_link_count(p), n_nvl = 0;
    for (unsigned i = 0; i < n; i++) {
        struct p2psim_link_stat ls;
        ck_assert_int_eq(p2psim_link_stat(p, i, &ls), 0);
        if (strcmp(ls.kind, "nvlink") == 0) {
            n_nvl++;
            ck_assert_uint_gt(ls.rate, 0);
            nvl += ls.bytes[0] + ls.bytes[1];
        } else if (strcmp(ls.kind, "pcie-link") == 0) {
            pcie += ls.bytes[0] + ls.bytes[1];
        }
    }
    ck_assert_uint_gt(n_nvl, 0);
    ck_assert_uint_ge(nvl, 4 * MB);
    ck_assert_uint_le(nvl, 4 * MB + 64);
    ck_assert_uint_eq(pcie, 0);
    ck_assert_int_eq(p2psim_link_stat(p, n, &(struct p2psim_link_stat){ 0 }),
                     -SIM_EINVAL);
    p2psim_close(p);
}
END_TEST

Suite *make_exec_suite(void)
{
    Suite *s = suite_create("exec");
    TCase *tc = tcase_create("Copies");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_exec_host_round_trip_is_exact);
    tcase_add_test(tc, test_exec_peer_direct_and_staged);
    tcase_add_test(tc, test_exec_staged_handoff_is_the_machines);
    tcase_add_test(tc, test_exec_bar1_exhaustion_stages);
    tcase_add_test(tc, test_exec_start_time_and_errors);
    tcase_add_test(tc, test_exec_ordered_copies_queue_on_one_engine);
    tcase_add_test(tc, test_exec_ordered_copies_fall_back);
    tcase_add_test(tc, test_exec_nvlink_bytes_in_link_stats);
    suite_add_tcase(s, tc);
    return s;
}
