/*
 * tests/machine/check_flow.c - the flow fidelity against the TLP fidelity on
 * every machine of the library (the .yaml files of topologies/): host
 * <-> GPU copies, GPU -> GPU copies one way and both ways at once (direct
 * where the P2P verdict allows it, else staged), 16-byte copy latencies,
 * a shared switch uplink, a GPU pushing and pulling at once, refused
 * transfers; and the flow fidelity's data: copies and fills byte-exact.
 *
 * Tolerances (the goal of issue 8): bandwidth within 3%, the latency of a
 * 16-byte copy within 10%. Bandwidth is measured on 8 MiB copies (4 MiB
 * each way when both ways run at once), where it has reached its plateau
 * (fixed costs are 1-3% of the time, and both fidelities model them) and
 * the TLP fidelity still runs a copy in tens of milliseconds: every pair
 * of every machine of up to 8 GPUs takes about 30 s of CPU. A line per
 * machine reports the worst disagreement seen.
 */
#include <config.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "machine/p2psim.h"
#include "sim/error.h"
#include "tests/check_p2psim.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

#define MB (UINT64_C(1) << 20)
#define FLOW_BW_BYTES (8 * MB)
#define FLOW_LAT_BYTES UINT64_C(16)
#define FLOW_BW_TOL 0.03
#define FLOW_LAT_TOL 0.10
#define FLOW_MAX_GPUS 16u       /* larger machines are skipped */
#define FLOW_MAX_MACHINES 64u

/* ---- machines ------------------------------------------------------------ */

static char *machine[FLOW_MAX_MACHINES];
static unsigned n_machines;

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every machine file of the library, sorted (the suite loops over them). */
static void list_machines(void)
{
    DIR *d = opendir(P2PSIM_SRCDIR "/topologies");
    struct dirent *e;
    while (d && (e = readdir(d)) && n_machines < FLOW_MAX_MACHINES) {
        size_t n = strlen(e->d_name);
        if (n > 5 && !strcmp(e->d_name + n - 5, ".yaml")) {
            machine[n_machines++] = strdup(e->d_name);
        }
    }
    if (d) {
        closedir(d);
    }
    qsort(machine, n_machines, sizeof(*machine), by_name);
}

static struct p2psim *open_at(const char *file, const char *fidelity)
{
    struct sim_error err;
    sim_error_clear(&err);
    /* The option, and the call (p2psim_set_fidelity is what applies it). */
    struct p2psim_options opt = { .fidelity = fidelity };
    struct p2psim *p = p2psim_open(file, &opt, &err);
    ck_assert_msg(p != NULL, "%s: %s", file, err.msg);
    ck_assert_msg(p2psim_set_fidelity(p, fidelity, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(p2psim_fidelity(p), fidelity);
    return p;
}

/* ---- copies -------------------------------------------------------------- */

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

/* What one measurement gives: a figure (GB/s or us) and the statuses. */
struct figure {
    double v;
    int status;
    bool staged;
};

/* Copies n at once (each dst[i] <- src[i], len bytes), run to the end;
 * the figure is the aggregate GB/s, or the time of the first in us. */
static struct figure run_copies(struct p2psim *p, const struct p2psim_loc *dst,
                                const struct p2psim_loc *src, unsigned n,
                                uint64_t len, unsigned flags, bool latency)
{
    struct done_box b[2];
    memset(b, 0, sizeof(b));
    sim_time_t t0 = p2psim_now(p);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_int_eq(p2psim_copy(p, &dst[i], &src[i], len, flags, t0,
                                     on_done, &b[i]), 0);
    }
    p2psim_run(p);
    struct figure f = { 0, 0, false };
    sim_time_t end = t0;
    for (unsigned i = 0; i < n; i++) {
        ck_assert_int_eq(b[i].calls, 1);
        f.status = f.status ? f.status : b[i].r.status;
        f.staged = f.staged || b[i].r.staged;
        end = b[i].r.t_end > end ? b[i].r.t_end : end;
    }
    double s = (double)(end - t0) * 1e-12;
    f.v = latency ? (double)(b[0].r.t_end - b[0].r.t_start) * 1e-6
                  : (double)n * (double)len / s / 1e9;
    return f;
}

enum what { H2D, D2H, UNI, BIDIR, LAT };
static const char *const what_name[] = { "host->gpu", "gpu->host", "uni",
                                         "bidir", "latency" };

/* One measurement on p: GPU a (and b) as `what` says. */
static struct figure measure(struct p2psim *p, enum what w, unsigned a,
                             unsigned b)
{
    uint64_t len = w == LAT     ? FLOW_LAT_BYTES
                   : w == BIDIR ? FLOW_BW_BYTES / 2
                                : FLOW_BW_BYTES;
    if (w == H2D || w == D2H) {
        uint64_t bus;
        ck_assert_int_eq(p2psim_host_register(p, NULL, len,
                                              p2psim_gpu_socket(p, a), &bus),
                         0);
        struct p2psim_loc h = host(bus), d = dev(a, 0);
        struct figure f = w == H2D ? run_copies(p, &d, &h, 1, len, 0, false)
                                   : run_copies(p, &h, &d, 1, len, 0, false);
        p2psim_host_unregister(p, bus);
        return f;
    }
    struct p2psim_verdict v;
    ck_assert_int_eq(p2psim_p2p(p, a, b, &v), 0);
    unsigned flags = v.allowed ? P2PSIM_COPY_PEER : 0;
    struct p2psim_loc dst[2] = { dev(b, 0), dev(a, len) };
    struct p2psim_loc src[2] = { dev(a, 0), dev(b, len) };
    return run_copies(p, dst, src, w == BIDIR ? 2 : 1, len, flags, w == LAT);
}

/* Worst relative disagreement of a machine, by kind of figure. */
struct worst {
    double bw, lat;
    unsigned n;
};

/* Measure in both fidelities; they must agree on status and figure. */
static void compare(struct p2psim *tlp, struct p2psim *flow, enum what w,
                    unsigned a, unsigned b, struct worst *worst)
{
    struct figure x = measure(tlp, w, a, b), y = measure(flow, w, a, b);
    const char *m = p2psim_machine_name(tlp);
    double err = (y.v - x.v) / x.v;
    double tol = w == LAT ? FLOW_LAT_TOL : FLOW_BW_TOL;
    ck_assert_msg(x.status == y.status && x.staged == y.staged,
                  "%s %s %u->%u: tlp status %d%s, flow status %d%s", m,
                  what_name[w], a, b, x.status, x.staged ? " staged" : "",
                  y.status, y.staged ? " staged" : "");
    if (x.status != 0) {
        /* refused (an IOMMU fault: a VM's GPU and host memory outside its
         * VM, vms:): the time of the error is no figure to compare */
        return;
    }
    ck_assert_msg(fabs(err) <= tol,
                  "%s %s %u->%u: tlp %.3f, flow %.3f (%+.2f%%, tolerance "
                  "%.0f%%)", m, what_name[w], a, b, x.v, y.v, err * 100,
                  tol * 100);
    double *slot = w == LAT ? &worst->lat : &worst->bw;
    *slot = fabs(err) > fabs(*slot) ? err : *slot;
    worst->n++;
}

/*
 * Every GPU to and from host memory; every ordered pair one way and as a
 * 16-byte copy, every pair both ways at once. Pairs without a PCIe route
 * are skipped; peer copies between NVLink pairs go over NVLink in both
 * fidelities (docs/nvlink.md).
 */
START_TEST(test_flow_agrees_with_tlp_on_machine)
{
    char file[512];
    snprintf(file, sizeof(file), "%s/topologies/%s", P2PSIM_SRCDIR,
             machine[_i]);
    struct p2psim *tlp = open_at(file, "tlp");
    struct p2psim *flow = open_at(file, "flow");
    unsigned n = p2psim_gpu_count(tlp);
    if (n > FLOW_MAX_GPUS) {
        printf("flow: %s: %u GPUs, skipped\n", machine[_i], n);
        p2psim_close(tlp);
        p2psim_close(flow);
        return;
    }
    struct worst worst = { 0, 0, 0 };
    clock_t t0 = clock();
    for (unsigned a = 0; a < n; a++) {
        compare(tlp, flow, H2D, a, a, &worst);
        compare(tlp, flow, D2H, a, a, &worst);
    }
    for (unsigned a = 0; a < n; a++) {
        for (unsigned b = 0; b < n; b++) {
            struct p2psim_path path;
            if (a == b || p2psim_path(tlp, a, b, &path) < 0 ||
                !path.pcie_connected) {
                continue;
            }
            compare(tlp, flow, UNI, a, b, &worst);
            compare(tlp, flow, LAT, a, b, &worst);
            if (a < b) {
                compare(tlp, flow, BIDIR, a, b, &worst);
            }
        }
    }
    printf("flow: %-28s %2u GPUs, %3u figures, worst: bandwidth %+.2f%%, "
           "latency %+.2f%% (%.1f s of CPU)\n", p2psim_machine_name(tlp), n,
           worst.n, worst.bw * 100, worst.lat * 100,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    p2psim_close(tlp);
    p2psim_close(flow);
}
END_TEST

/*
 * Two GPUs below one switch push to host memory at once: they share the
 * switch's uplink, each getting about half of what it gets alone, in both
 * fidelities, and the fidelities agree on each copy.
 */
START_TEST(test_flow_switch_uplink_is_shared)
{
    const char *file = P2PSIM_SRCDIR "/topologies/pcie-8gpu-2socket.yaml";
    struct p2psim *p[2] = { open_at(file, "tlp"), open_at(file, "flow") };
    double alone[2], shared[2][2];
    for (int k = 0; k < 2; k++) {
        struct p2psim_path path;
        ck_assert_int_eq(p2psim_path(p[k], 0, 1, &path), 0);
        ck_assert_int_eq(path.cls, P2PSIM_PATH_PIX);  /* one switch */
        alone[k] = measure(p[k], D2H, 0, 0).v;
        uint64_t bus[2];
        struct p2psim_loc dst[2], src[2];
        struct done_box b[2];
        memset(b, 0, sizeof(b));
        for (unsigned g = 0; g < 2; g++) {
            ck_assert_int_eq(p2psim_host_register(p[k], NULL, FLOW_BW_BYTES,
                                                  0, &bus[g]), 0);
            dst[g] = host(bus[g]);
            src[g] = dev(g, 0);
            ck_assert_int_eq(p2psim_copy(p[k], &dst[g], &src[g],
                                         FLOW_BW_BYTES, 0, p2psim_now(p[k]),
                                         on_done, &b[g]), 0);
        }
        p2psim_run(p[k]);
        for (unsigned g = 0; g < 2; g++) {
            ck_assert_int_eq(b[g].r.status, 0);
            shared[k][g] = (double)FLOW_BW_BYTES /
                           ((double)(b[g].r.t_end - b[g].r.t_start) * 1e-12) /
                           1e9;
            double share = shared[k][g] / alone[k];
            ck_assert_msg(share > 0.45 && share < 0.55,
                          "%s: gpu%u gets %.3f GB/s sharing, %.3f alone",
                          p2psim_fidelity(p[k]), g, shared[k][g], alone[k]);
        }
    }
    for (unsigned g = 0; g < 2; g++) {
        double err = (shared[1][g] - shared[0][g]) / shared[0][g];
        ck_assert_msg(fabs(err) <= FLOW_BW_TOL,
                      "gpu%u sharing: tlp %.3f, flow %.3f GB/s", g,
                      shared[0][g], shared[1][g]);
    }
    p2psim_close(p[0]);
    p2psim_close(p[1]);
}
END_TEST

/*
 * A GPU below a switch pushes to host memory and pulls from it at once
 * (what a staged copy both ways does): its writes and read requests share
 * the upstream links, and each copy's time agrees between the fidelities.
 * In the TLP fidelity the reads, refused for credits at the switch's
 * uplink, must not wait there until the writes are over (link.c, the
 * transmitter's backlog rule).
 */
START_TEST(test_flow_push_and_pull_at_once)
{
    static const char *const files[] = {
        "/topologies/teaching-acs-iommu.yaml",
        "/topologies/pcie-8gpu-2socket.yaml",
    };
    for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char file[512];
        snprintf(file, sizeof(file), "%s%s", P2PSIM_SRCDIR, files[i]);
        double s[2][2];         /* [fidelity][push, pull], seconds */
        for (int k = 0; k < 2; k++) {
            struct p2psim *p = open_at(file, k ? "flow" : "tlp");
            uint64_t bus[2];
            struct p2psim_loc dst[2], src[2];
            struct done_box b[2];
            memset(b, 0, sizeof(b));
            for (unsigned d = 0; d < 2; d++) {
                ck_assert_int_eq(p2psim_host_register(p, NULL, FLOW_BW_BYTES,
                                                      0, &bus[d]), 0);
            }
            dst[0] = host(bus[0]), src[0] = dev(0, 0);
            dst[1] = dev(0, FLOW_BW_BYTES), src[1] = host(bus[1]);
            for (unsigned d = 0; d < 2; d++) {
                ck_assert_int_eq(p2psim_copy(p, &dst[d], &src[d],
                                             FLOW_BW_BYTES, 0, p2psim_now(p),
                                             on_done, &b[d]), 0);
            }
            p2psim_run(p);
            for (unsigned d = 0; d < 2; d++) {
                ck_assert_int_eq(b[d].calls, 1);
                ck_assert_int_eq(b[d].r.status, 0);
                s[k][d] = (double)(b[d].r.t_end - b[d].r.t_start) * 1e-12;
            }
            p2psim_close(p);
        }
        for (unsigned d = 0; d < 2; d++) {
            double err = (s[1][d] - s[0][d]) / s[0][d];
            ck_assert_msg(fabs(err) <= FLOW_BW_TOL,
                          "%s: %s with the other way busy: tlp %.1f us, "
                          "flow %.1f us", files[i], d ? "pull" : "push",
                          s[0][d] * 1e6, s[1][d] * 1e6);
        }
    }
}
END_TEST

/*
 * Transfers the fabric refuses fail alike: P2P forced across a socket
 * link whose root complex refuses it (dgx1-v100 0 -> 5: no NVLink joins
 * the pair, so the copy takes PCIe; an NVLink pair such as hgx-h100's
 * 0 -> 4 copies over NVLink and succeeds), and P2P through a translating
 * IOMMU that has no mapping for the peer's BAR1 (teaching-acs-iommu): an
 * error status, and no byte lands.
 */
START_TEST(test_flow_refusals_match)
{
    static const struct {
        const char *file;
        unsigned a, b;
    } c[] = {
        { "/topologies/dgx1-v100.yaml", 0, 5 },
        { "/topologies/teaching-acs-iommu.yaml", 0, 2 },
    };
    for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        char file[512];
        snprintf(file, sizeof(file), "%s%s", P2PSIM_SRCDIR, c[i].file);
        struct figure f[2];
        for (int k = 0; k < 2; k++) {
            struct p2psim *p = open_at(file, k ? "flow" : "tlp");
            uint8_t pattern[4096], back[4096];
            memset(pattern, 0x5a, sizeof(pattern));
            ck_assert_int_eq(p2psim_hbm_write(p, c[i].a, 0, pattern,
                                              sizeof(pattern)), 0);
            struct p2psim_loc d = dev(c[i].b, 0), s = dev(c[i].a, 0);
            f[k] = run_copies(p, &d, &s, 1, sizeof(pattern),
                              P2PSIM_COPY_PEER, true);
            ck_assert_int_eq(f[k].status, -SIM_EIO);
            ck_assert_int_eq(p2psim_hbm_read(p, c[i].b, 0, back, sizeof(back)),
                             0);
            ck_assert_msg(back[0] == 0 && back[4095] == 0,
                          "%s: a refused copy landed", file);
            p2psim_close(p);
        }
        ck_assert_msg(fabs(f[1].v - f[0].v) <= FLOW_LAT_TOL * f[0].v,
                      "%s: refused after %.3f us (tlp), %.3f us (flow)",
                      file, f[0].v, f[1].v);
    }
}
END_TEST

/* ---- data ---------------------------------------------------------------- */

/*
 * In the flow fidelity, bytes land exactly: host -> GPU, peer push, staged
 * copy, peer read, an overlapping copy within one GPU, GPU -> host, and a
 * fill; odd lengths and offsets.
 */
START_TEST(test_flow_copies_are_exact)
{
    struct p2psim *p = open_at(NULL, "flow");  /* the default machine */
    uint64_t len = 3 * MB + 777, off = 4096 + 13;
    uint8_t *in = malloc(len), *out = calloc(1, len), *want = malloc(len);
    for (uint64_t i = 0; i < len; i++) {
        in[i] = (uint8_t)(i ^ (i >> 9) ^ 0xa5);
    }
    uint64_t bin, bout;
    ck_assert_int_eq(p2psim_host_register(p, in, len, 0, &bin), 0);
    ck_assert_int_eq(p2psim_host_register(p, out, len, 0, &bout), 0);
    struct figure f;
    struct p2psim_loc d, s;
    d = dev(0, off), s = host(bin);
    f = run_copies(p, &d, &s, 1, len, 0, false);
    ck_assert_int_eq(f.status, 0);
    d = dev(1, 0), s = dev(0, off);            /* P2P push, one switch */
    f = run_copies(p, &d, &s, 1, len, P2PSIM_COPY_PEER, false);
    ck_assert(f.status == 0 && !f.staged);
    d = dev(2, 77), s = dev(1, 0);             /* no peer access: staged */
    f = run_copies(p, &d, &s, 1, len, 0, false);
    ck_assert(f.status == 0 && f.staged);
    d = dev(5, 5), s = dev(2, 77);             /* cross-socket peer read */
    f = run_copies(p, &d, &s, 1, len,
                   P2PSIM_COPY_PEER | P2PSIM_COPY_READ, false);
    ck_assert(f.status == 0 && !f.staged);
    d = dev(5, 5 + 1000), s = dev(5, 5);        /* overlapping, upward */
    f = run_copies(p, &d, &s, 1, len, 0, false);
    ck_assert_int_eq(f.status, 0);
    d = host(bout), s = dev(5, 5 + 1000);
    f = run_copies(p, &d, &s, 1, len, 0, false);
    ck_assert_int_eq(f.status, 0);
    ck_assert_int_eq(memcmp(in, out, len), 0);
    /* a fill, then its bytes */
    struct done_box b = { 0 };
    ck_assert_int_eq(p2psim_fill(p, 3, 123, 0x7e, len, p2psim_now(p), on_done,
                                 &b), 0);
    p2psim_run(p);
    ck_assert_int_eq(b.calls, 1);
    ck_assert_int_eq(b.r.status, 0);
    memset(want, 0x7e, len);
    ck_assert_int_eq(p2psim_hbm_read(p, 3, 123, out, len), 0);
    ck_assert_int_eq(memcmp(want, out, len), 0);
    p2psim_host_unregister(p, bin);
    p2psim_host_unregister(p, bout);
    p2psim_close(p);
    free(in);
    free(out);
    free(want);
}
END_TEST

/* The fidelity by name; not while copies are in flight. */
START_TEST(test_flow_fidelity_choice)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim *p = open_at(NULL, "tlp");
    ck_assert_int_eq(p2psim_set_fidelity(p, "packets", &err), -SIM_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "tlp, flow"));
    ck_assert_str_eq(p2psim_fidelity(p), "tlp");
    struct done_box b = { 0 };
    struct p2psim_loc d = dev(1, 0), s = dev(0, 0);
    ck_assert_int_eq(p2psim_copy(p, &d, &s, MB, 0, 0, on_done, &b), 0);
    ck_assert_int_eq(p2psim_set_fidelity(p, "flow", &err), -SIM_EBUSY);
    p2psim_run(p);
    ck_assert_int_eq(b.calls, 1);
    ck_assert_int_eq(p2psim_set_fidelity(p, "flow", NULL), 0);
    ck_assert_str_eq(p2psim_fidelity(p), "flow");
    ck_assert_int_eq(p2psim_set_fidelity(p, NULL, NULL), 0);
    ck_assert_str_eq(p2psim_fidelity(p), "tlp");
    p2psim_close(p);
}
END_TEST

Suite *make_flow_suite(void)
{
    Suite *s = suite_create("flow");
    if (n_machines == 0) {
        list_machines();
    }
    TCase *tc = tcase_create("Machines");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_flow_agrees_with_tlp_on_machine, 0,
                        (int)n_machines);
    suite_add_tcase(s, tc);
    tc = tcase_create("Sharing");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_flow_switch_uplink_is_shared);
    tcase_add_test(tc, test_flow_refusals_match);
    tcase_add_test(tc, test_flow_push_and_pull_at_once);
    suite_add_tcase(s, tc);
    tc = tcase_create("Data");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_flow_copies_are_exact);
    tcase_add_test(tc, test_flow_fidelity_choice);
    suite_add_tcase(s, tc);
    return s;
}
