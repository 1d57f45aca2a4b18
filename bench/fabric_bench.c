/*
 * bench/fabric_bench.c - an 8-GPU all-to-all copy simulated at TLP level.
 *
 *   socket 0                         socket 1
 *   rc0 --- socket link (xGMI) --- rc1
 *   rp0       rp1                   rp0       rp1
 *   sw0       sw1                   sw2       sw3
 *   g0 g1     g2 g3                 g4 g5     g6 g7
 *
 * Every GPU pushes --size bytes to each of the 7 others at once (one copy
 * engine per peer). Prints the wall time, the simulated bytes and time, the
 * TLP-hops simulated per wall second (last line "tlp-hops/s: N"), and the
 * peak resident memory with eight 141 GB (H200-sized) GPUs, whose memory is
 * sparse: only the copies' pages are backed.
 */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "machine/fabric.h"
#include "models/gpu/gpu.h"
#include "sim/error.h"
#include "sim/props.h"
#include "sim/sim.h"
#include "sim/units.h"

#define N_GPU 8

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int add(struct fab *f, const char *kind, const char *name,
               const char *spec, struct sim_error *err)
{
    struct sim_props *p = fab_props_parse(name, spec);
    struct sim_component *c = p ? fab_add(f, kind, name, p, err) : NULL;
    fab_props_free(p);
    return c ? 0 : -1;
}

static int link(struct fab *f, const char *a, const char *b, const char *kind,
                const char *spec, struct sim_error *err)
{
    struct sim_props *p = fab_props_parse(a, spec);
    struct sim_link *l = p ? fab_connect(f, a, b, kind, p, err) : NULL;
    fab_props_free(p);
    return l ? 0 : -1;
}

static int build(struct fab *f, struct sim_error *err)
{
    const char *gpu = "memory=141GB bar1=256GiB copy-engines=7 mps=256B";
    const char *pcie = "gen=5 width=16 latency=20ns";
    char a[32], b[32];
    int rc = 0;
    for (int s = 0; s < 2 && rc == 0; s++) {
        snprintf(a, sizeof(a), "rc%d", s);
        rc |= add(f, "root-complex", a, "root-ports=2 socket-links=1", err);
        snprintf(b, sizeof(b), "dram%d", s);
        rc |= add(f, "host-memory", b, "size=256GiB", err);
    }
    for (int w = 0; w < 4 && rc == 0; w++) {
        snprintf(a, sizeof(a), "sw%d", w);
        rc |= add(f, "pcie-switch", a, "ports=2", err);
    }
    for (int g = 0; g < N_GPU && rc == 0; g++) {
        snprintf(a, sizeof(a), "gpu%d", g);
        rc |= add(f, "gpu", a, gpu, err);
    }
    if (rc) {
        return -1;
    }
    rc |= link(f, "rc0.mem", "dram0.up", "wire", "latency=50ns", err);
    rc |= link(f, "rc1.mem", "dram1.up", "wire", "latency=50ns", err);
    rc |= link(f, "rc0.xs0", "rc1.xs0", "socket-link",
               "bandwidth=64GB/s latency=200ns", err);
    for (int w = 0; w < 4 && rc == 0; w++) {
        snprintf(a, sizeof(a), "rc%d.rp%d", w / 2, w % 2);
        snprintf(b, sizeof(b), "sw%d.up", w);
        rc |= link(f, a, b, "pcie-link", pcie, err);
        for (int k = 0; k < 2 && rc == 0; k++) {
            snprintf(a, sizeof(a), "sw%d.dp%d", w, k);
            snprintf(b, sizeof(b), "gpu%d.pcie", w * 2 + k);
            rc |= link(f, a, b, "pcie-link", pcie, err);
        }
    }
    return rc ? -1 : fab_finalize(f, err);
}

static unsigned n_done;

static void done(struct gpu_dma *op)
{
    n_done++;
}

int main(int argc, char **argv)
{
    uint64_t size = UINT64_C(8) << 20;
    static const struct option opts[] = {
        { "size", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
        if (c == 's') {
            char why[200];
            if (sim_parse_size(optarg, &size, why, sizeof(why)) < 0) {
                fprintf(stderr, "fabric: --size: %s\n", why);
                return 2;
            }
        } else {
            printf("usage: fabric [--size BYTES]   (default 8MiB per pair)\n"
                   "8-GPU all-to-all push copies at TLP level; prints "
                   "TLP-hops per wall second.\n");
            return c == 'h' ? 0 : 2;
        }
    }
    struct sim_error err;
    sim_error_clear(&err);
    struct sim *sim = sim_create(NULL, &err);
    struct fab *f = sim ? fab_create(sim, &err) : NULL;
    if (!f || build(f, &err) < 0) {
        char buf[700];
        fprintf(stderr, "fabric: %s\n", sim_error_format(&err, buf, sizeof(buf)));
        return 1;
    }
    static struct gpu_dma op[N_GPU][N_GPU];
    uint64_t bus[N_GPU];
    for (int g = 0; g < N_GPU; g++) {
        /* each GPU exposes one window that its 7 peers write into */
        if (gpu_bar1_map(fab_gpu(f, g), 0, size * N_GPU, &bus[g]) < 0) {
            fprintf(stderr, "fabric: BAR1 too small\n");
            return 1;
        }
    }
    unsigned n_ops = 0;
    for (int s = 0; s < N_GPU; s++) {
        int ce = 0;
        for (int d = 0; d < N_GPU; d++) {
            if (s == d) {
                continue;
            }
            struct gpu_dma *o = &op[s][d];
            memset(o, 0, sizeof(*o));
            o->dir = GPU_DMA_PUSH;
            o->ce = (unsigned)ce++;
            o->local_addr = 0;
            o->remote_addr = bus[d] + (uint64_t)s * size;
            o->len_bytes = size;
            o->done = done;
            if (gpu_dma_submit(fab_gpu(f, s), o) < 0) {
                fprintf(stderr, "fabric: submit failed\n");
                return 1;
            }
            n_ops++;
        }
    }
    double t0 = wall_now();
    sim_run(sim);
    double t1 = wall_now();
    if (n_done != n_ops) {
        fprintf(stderr, "fabric: %u of %u copies finished\n", n_done, n_ops);
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double wall = t1 - t0;
    uint64_t bytes = (uint64_t)n_ops * size;
    uint64_t hops = sim_tlp_hops(sim);
    printf("8-GPU all-to-all, %llu MiB per pair, TLP level\n",
           (unsigned long long)(size >> 20));
    printf("simulated bytes: %llu (%.1f GB/s aggregate over %.3f ms simulated)\n",
           (unsigned long long)bytes, (double)bytes / sim_time_to_s(sim_now(sim)) / 1e9,
           sim_time_to_s(sim_now(sim)) * 1e3);
    printf("wall time: %.3f s, events: %llu, TLP-hops: %llu\n", wall,
           (unsigned long long)sim_events_fired(sim), (unsigned long long)hops);
    printf("peak RSS: %.1f MB (eight 141 GB GPUs; %.1f MB of copy data)\n",
           (double)ru.ru_maxrss / 1024.0, (double)bytes / 1e6);
    printf("tlp-hops/s: %.0f\n", (double)hops / wall);
    fab_destroy(f);
    sim_destroy(sim);
    return 0;
}
