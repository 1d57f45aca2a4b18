/*
 * tests/machine/check_storage.c - NVMe drives (models/nvme/) and
 * GPUDirect Storage (machine/storage.h) on the library's GDS machines
 * (topologies/gds-l40s-switch.yaml, gds-acs-iommu.yaml): bandwidth and
 * latency of reads against the media's and the link's bounds, GDS
 * against the bounce buffer, GDS blocked where the P2P rules block it,
 * writes, data byte-exact, counters.
 */
#include <config.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/p2psim.h"
#include "models/pcie/pcie.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "tests/check_p2psim.h"
#include "tests/machine/open.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

#define SWITCH_FILE P2PSIM_SRCDIR "/topologies/gds-l40s-switch.yaml"
#define BLOCKED_FILE P2PSIM_SRCDIR "/topologies/gds-acs-iommu.yaml"

/* The drive's defaults (Intel D7-P5510): read 7000 MB/s after 82 us. */
#define RD_RATE 7.0e9
#define RD_LAT_S 82e-6
#define WR_RATE 4.2e9
#define WR_LAT_S 15e-6

static void done(void *arg, const struct p2psim_copy_result *r)
{
    *(struct p2psim_copy_result *)arg = *r;
}

static double secs(const struct p2psim_copy_result *r)
{
    return (double)(r->t_end - r->t_start) / 1e12;
}

static unsigned char *pattern(size_t n, unsigned seed)
{
    unsigned char *b = malloc(n);
    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < n; i++) {
        b[i] = (unsigned char)(i * 31 + seed + (i >> 12));
    }
    return b;
}

/* Read len bytes at off of drive into dst; the result. */
static struct p2psim_copy_result read_into(struct p2psim *p, unsigned drive,
                                           uint64_t off, uint64_t len,
                                           struct p2psim_loc dst,
                                           unsigned flags)
{
    struct p2psim_copy_result r = { .status = 1 };
    ck_assert_int_eq(p2psim_drive_read(p, drive, off, len, &dst, flags,
                                       p2psim_now(p), done, &r), 0);
    ck_assert_int_eq(p2psim_run(p), 0);
    ck_assert_int_eq(r.status, 0);
    return r;
}

static void check_hbm(struct p2psim *p, unsigned gpu, uint64_t at,
                      const unsigned char *want, size_t n)
{
    unsigned char *got = malloc(n);
    ck_assert_ptr_nonnull(got);
    ck_assert_int_eq(p2psim_hbm_read(p, gpu, at, got, n), 0);
    ck_assert(memcmp(got, want, n) == 0);
    free(got);
}

START_TEST(test_drives_listed)
{
    struct p2psim *p = test_open(SWITCH_FILE, NULL);
    ck_assert_uint_eq(p2psim_drive_count(p), 3);
    ck_assert_str_eq(p2psim_drive_id(p, 0), "nvme0");
    ck_assert_int_eq(p2psim_drive_find(p, "nvme2"), 2);
    ck_assert_uint_eq(p2psim_drive_capacity(p, 0), UINT64_C(3840000000000));
    struct p2psim_verdict v;
    ck_assert_int_eq(p2psim_drive_gds(p, 0, 0, &v), 0);
    ck_assert(v.allowed);
    ck_assert_int_eq(v.path.cls, P2PSIM_PATH_PIX);
    ck_assert_str_eq(v.path.hop[0].name, "nvme0");
    ck_assert_str_eq(v.path.hop[1].name, "sw0");
    ck_assert_str_eq(v.path.hop[2].name, "gpu0");
    ck_assert_int_eq(p2psim_drive_gds(p, 2, 0, &v), 0);
    ck_assert(v.allowed);
    ck_assert_int_eq(v.path.cls, P2PSIM_PATH_PHB);
    p2psim_close(p);
}
END_TEST

/*
 * 64 MiB in 512 commands of 128 KiB: the media's 7 GB/s bounds it (the
 * Gen4 x4 link carries 256-byte writes at 16 GT/s x 4 / 8 x 128/130 x
 * 256/280 = 7.2 GB/s), so it takes the read latency plus 64 MiB at the
 * media rate, the rest being the first SQE fetch, the last write's
 * trip, the CQE and the poll: within 1%.
 */
START_TEST(test_gds_bandwidth)
{
    struct p2psim *p = test_open(SWITCH_FILE, NULL);
    enum { N = 64 << 20 };
    unsigned char *src = pattern(N, 5);
    ck_assert_int_eq(p2psim_drive_media_write(p, 0, 1 << 20, src, N), 0);
    struct p2psim_loc dst = { P2PSIM_DEVICE, 0, 2 << 20 };
    struct p2psim_copy_result r = read_into(p, 0, 1 << 20, N, dst, 0);
    ck_assert(!r.staged);
    check_hbm(p, 0, 2 << 20, src, N);
    double bound = RD_LAT_S + N / RD_RATE;
    double t = secs(&r);
    printf("gds 64 MiB nvme0 -> gpu0: %.1f us, %.3f GB/s (bound %.1f us)\n",
           t * 1e6, N / t / 1e9, bound * 1e6);
    ck_assert_msg(t >= bound && t < bound * 1.01, "%.1f us against %.1f",
                  t * 1e6, bound * 1e6);
    /* the counters have the drive's traffic */
    struct sim_stats *st = sim_stats_create();
    sim_component_report(sim_component_find(p2psim_sim(p), "nvme0"), st);
    uint64_t v = 0;
    ck_assert(sim_stats_get(st, "nvme0.bytes_read", &v));
    ck_assert_uint_eq(v, N);
    ck_assert(sim_stats_get(st, "nvme0.read_commands", &v));
    ck_assert_uint_eq(v, N / (128 << 10));
    ck_assert(sim_stats_get(st, "nvme0.cqes", &v));
    ck_assert_uint_eq(v, N / (128 << 10));
    sim_stats_destroy(st);
    free(src);
    p2psim_close(p);
}
END_TEST

/* A drive faster than its link: the link's TLP bound holds instead. */
START_TEST(test_link_bound)
{
    struct p2psim_options o = {
        .overrides = "drives.nvme0.read-bandwidth=20GB/s",
    };
    struct p2psim *p = test_open(SWITCH_FILE, &o);
    enum { N = 32 << 20 };
    struct p2psim_loc dst = { P2PSIM_DEVICE, 0, 0 };
    struct p2psim_copy_result r = read_into(p, 0, 0, N, dst, 0);
    double link = 16e9 * 4 / 8 * 128.0 / 130 * 256 / (256 + 24);
    double t = secs(&r), bw = N / (t - RD_LAT_S);
    printf("gds 32 MiB, 20 GB/s media: %.3f GB/s (link bound %.3f)\n",
           bw / 1e9, link / 1e9);
    ck_assert_msg(bw <= link * 1.001 && bw > link * 0.97, "%.3f GB/s",
                  bw / 1e9);
    p2psim_close(p);
}
END_TEST

/* One 4 KiB read: the media's 82 us plus a few microseconds (SQE fetch
 * from host memory, 4 KiB on the link, the CQE, one poll period). */
START_TEST(test_latency)
{
    struct p2psim *p = test_open(SWITCH_FILE, NULL);
    struct p2psim_loc dst = { P2PSIM_DEVICE, 1, 0 };
    struct p2psim_copy_result r = read_into(p, 1, 4096, 4096, dst, 0);
    double t = secs(&r), floor = RD_LAT_S + 4096 / RD_RATE;
    printf("gds 4 KiB nvme1 -> gpu1: %.2f us (media %.2f us)\n", t * 1e6,
           floor * 1e6);
    ck_assert_msg(t > floor && t < floor + 3e-6, "%.2f us", t * 1e6);
    p2psim_close(p);
}
END_TEST

/*
 * The bounce buffer: the drive writes to host memory, then the GPU's
 * copy engine pulls it in (a host-to-device copy of 64 MiB at the GPU's
 * Gen4 x16, about 25 GB/s, after the read): slower than GDS by about
 * that copy.
 */
START_TEST(test_bounce)
{
    struct p2psim *p = test_open(SWITCH_FILE, NULL);
    enum { N = 64 << 20 };
    unsigned char *src = pattern(N, 9);
    ck_assert_int_eq(p2psim_drive_media_write(p, 0, 0, src, N), 0);
    struct p2psim_loc dst = { P2PSIM_DEVICE, 0, 0 };
    struct p2psim_copy_result g = read_into(p, 0, 0, N, dst, 0);
    ck_assert_int_eq(p2psim_hbm_write(p, 0, 0, "x", 1), 0);
    struct p2psim_copy_result b = read_into(p, 0, 0, N, dst,
                                            P2PSIM_DRIVE_BOUNCE);
    ck_assert(b.staged && !g.staged);
    check_hbm(p, 0, 0, src, N);
    /* the copy alone: host to device */
    uint64_t host;
    ck_assert_int_eq(p2psim_host_register(p, NULL, N, 0, &host), 0);
    struct p2psim_loc hs = { P2PSIM_HOST, 0, host };
    struct p2psim_copy_result c = { .status = 1 };
    ck_assert_int_eq(p2psim_copy(p, &dst, &hs, N, 0, p2psim_now(p), done,
                                 &c), 0);
    ck_assert_int_eq(p2psim_run(p), 0);
    double tg = secs(&g), tb = secs(&b), tc = secs(&c);
    printf("64 MiB nvme0 -> gpu0: gds %.1f us, bounce %.1f us (x%.2f), "
           "h2d copy %.1f us\n", tg * 1e6, tb * 1e6, tb / tg, tc * 1e6);
    ck_assert_msg(tb > tg + 0.95 * tc && tb < tg + 1.05 * tc,
                  "bounce %.1f, gds %.1f, copy %.1f us", tb * 1e6, tg * 1e6,
                  tc * 1e6);
    free(src);
    p2psim_close(p);
}
END_TEST

/* ACS redirect and a translating IOMMU: GDS blocked, explained; reads
 * into the GPU take the bounce buffer and arrive intact. */
START_TEST(test_blocked)
{
    struct p2psim *p = test_open(BLOCKED_FILE, NULL);
    struct p2psim_verdict v;
    ck_assert_int_eq(p2psim_drive_gds(p, 0, 0, &v), 0);
    ck_assert(!v.allowed);
    ck_assert(v.path.acs_redirect);
    bool acs = false, iommu = false;
    for (unsigned i = 0; i < v.n_rules; i++) {
        acs |= v.rule[i].id == P2PSIM_RULE_ACS;
        iommu |= v.rule[i].id == P2PSIM_RULE_IOMMU && v.rule[i].blocks &&
                 strstr(v.rule[i].fix, "passthrough") != NULL;
    }
    ck_assert(acs && iommu);
    enum { N = 4 << 20 };
    unsigned char *src = pattern(N, 3);
    ck_assert_int_eq(p2psim_drive_media_write(p, 0, 0, src, N), 0);
    struct p2psim_loc dst = { P2PSIM_DEVICE, 0, 0 };
    struct p2psim_copy_result r = read_into(p, 0, 0, N, dst, 0);
    ck_assert(r.staged);
    check_hbm(p, 0, 0, src, N);
    free(src);
    p2psim_close(p);
    /* passthrough lifts the IOMMU's block; ACS still slows it */
    struct p2psim_options o = {
        .overrides = "sockets.cpu0.root-complex.iommu=passthrough",
    };
    p = test_open(BLOCKED_FILE, &o);
    ck_assert_int_eq(p2psim_drive_gds(p, 0, 0, &v), 0);
    ck_assert(v.allowed);
    p2psim_close(p);
}
END_TEST

/* A write from host memory: the drive pulls it with 512-byte reads, the
 * media's write channel takes it at 4.2 GB/s, the CQE 15 us later. */
START_TEST(test_write)
{
    struct p2psim *p = test_open(SWITCH_FILE, NULL);
    enum { N = 16 << 20 };
    unsigned char *src = pattern(N, 7), *back = malloc(N);
    uint64_t host;
    ck_assert_int_eq(p2psim_host_register(p, src, N, 0, &host), 0);
    struct p2psim_loc s = { P2PSIM_HOST, 0, host };
    struct p2psim_copy_result r = { .status = 1 };
    ck_assert_int_eq(p2psim_drive_write(p, 1, 8192, N, &s, 0, 0, done, &r),
                     0);
    ck_assert_int_eq(p2psim_run(p), 0);
    ck_assert_int_eq(r.status, 0);
    ck_assert_int_eq(p2psim_drive_media_read(p, 1, 8192, back, N), 0);
    ck_assert(memcmp(src, back, N) == 0);
    double t = secs(&r), bound = N / WR_RATE + WR_LAT_S;
    printf("write 16 MiB host -> nvme1: %.1f us (bound %.1f us)\n", t * 1e6,
           bound * 1e6);
    ck_assert_msg(t >= bound && t < bound * 1.03, "%.1f us", t * 1e6);
    /* a GPU buffer written with GDS: the drive reads gpu1's BAR1 */
    struct p2psim_loc g = { P2PSIM_DEVICE, 1, 0 };
    ck_assert_int_eq(p2psim_hbm_write(p, 1, 0, src, 1 << 20), 0);
    ck_assert_int_eq(p2psim_drive_write(p, 0, 0, 1 << 20, &g, 0,
                                        p2psim_now(p), done, &r), 0);
    ck_assert_int_eq(p2psim_run(p), 0);
    ck_assert(!r.staged && r.status == 0);
    ck_assert_int_eq(p2psim_drive_media_read(p, 0, 0, back, 1 << 20), 0);
    ck_assert(memcmp(src, back, 1 << 20) == 0);
    p2psim_host_unregister(p, host);
    free(src);
    free(back);
    p2psim_close(p);
}
END_TEST

/* In the flow fidelity the drive's TLPs are the same, the bounce path's
 * copy a flow: both figures agree with the TLP fidelity's within 1%. */
START_TEST(test_flow)
{
    double t[2][2];
    const char *fid[2] = { "tlp", "flow" };
    for (unsigned f = 0; f < 2; f++) {
        struct p2psim_options o = { .fidelity = fid[f] };
        struct p2psim *p = test_open(SWITCH_FILE, &o);
        struct p2psim_loc dst = { P2PSIM_DEVICE, 0, 0 };
        for (unsigned b = 0; b < 2; b++) {
            struct p2psim_copy_result r = read_into(
                p, 2, 0, 8 << 20, dst, b ? P2PSIM_DRIVE_BOUNCE : 0);
            t[f][b] = secs(&r);
        }
        p2psim_close(p);
    }
    printf("8 MiB nvme2 -> gpu0 (PHB): gds %.1f / %.1f us, bounce %.1f / "
           "%.1f us (tlp / flow)\n", t[0][0] * 1e6, t[1][0] * 1e6,
           t[0][1] * 1e6, t[1][1] * 1e6);
    for (unsigned b = 0; b < 2; b++) {
        ck_assert_msg(t[1][b] > t[0][b] * 0.99 && t[1][b] < t[0][b] * 1.01,
                      "%u: %.1f against %.1f us", b, t[1][b] * 1e6,
                      t[0][b] * 1e6);
    }
    ck_assert(t[0][1] > t[0][0]);
}
END_TEST

/* A trace's counters have the drive's bytes and commands, and its link. */
START_TEST(test_counters)
{
    struct p2psim *p = test_open(SWITCH_FILE, NULL);
    char path[] = "check-storage-counters.csv";
    struct p2psim_trace_options o = { .counters_path = path };
    struct sim_error err;
    sim_error_clear(&err);
    ck_assert_int_eq(p2psim_trace_start(p, &o, &err), 0);
    struct p2psim_loc dst = { P2PSIM_DEVICE, 1, 0 };
    read_into(p, 1, 0, 1 << 20, dst, 0);
    ck_assert_int_eq(p2psim_trace_stop(p), 0);
    p2psim_close(p);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    bool bytes = false, cmds = false, link = false;
    while (fgets(line, sizeof(line), f)) {
        bytes |= strstr(line, ",nvme1,read_bytes,1048576") != NULL;
        cmds |= strstr(line, ",nvme1,commands,8\n") != NULL;
        link |= strstr(line, ",nvme1.pcie>sw0.dp3,bytes,") != NULL &&
                strstr(line, ",bytes,0\n") == NULL;
    }
    fclose(f);
    remove(path);
    ck_assert(bytes && cmds && link);
}
END_TEST

START_TEST(test_bad_args)
{
    struct p2psim *p = test_open(SWITCH_FILE, NULL);
    struct p2psim_loc dst = { P2PSIM_DEVICE, 0, 0 };
    ck_assert_int_eq(p2psim_drive_read(p, 0, 100, 4096, &dst, 0, 0, NULL,
                                       NULL), -SIM_EINVAL);
    ck_assert_int_eq(p2psim_drive_read(p, 3, 0, 4096, &dst, 0, 0, NULL,
                                       NULL), -SIM_EINVAL);
    dst.gpu = 9;
    ck_assert_int_eq(p2psim_drive_read(p, 0, 0, 4096, &dst, 0, 0, NULL,
                                       NULL), -SIM_EINVAL);
    p2psim_close(p);
}
END_TEST

Suite *make_storage_suite(void)
{
    Suite *s = suite_create("storage");
    TCase *tc = tcase_create("nvme");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_drives_listed);
    tcase_add_test(tc, test_gds_bandwidth);
    tcase_add_test(tc, test_link_bound);
    tcase_add_test(tc, test_latency);
    tcase_add_test(tc, test_bounce);
    tcase_add_test(tc, test_blocked);
    tcase_add_test(tc, test_write);
    tcase_add_test(tc, test_flow);
    tcase_add_test(tc, test_counters);
    tcase_add_test(tc, test_bad_args);
    suite_add_tcase(s, tc);
    return s;
}
