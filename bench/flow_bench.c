/*
 * bench/flow_bench.c - the same 8-GPU all-to-all copy set simulated in both
 * fidelities of libp2psim: TLP (every packet through the models) and flow
 * (each copy a flow sharing the machine max-min fairly; machine/flow.c).
 *
 * Every GPU copies --size bytes to each of the 7 others at once, directly
 * where the P2P verdict allows it, else staged, on the default machine
 * (pcie-8gpu-2socket: two sockets, four switches, two GPUs each) or
 * --machine FILE. Prints, per fidelity, the wall time of p2psim_run (the
 * flow fidelity's is the mean of as many runs as fit in half a second)
 * and the simulated time of the whole set (the two should agree within a
 * few percent), then the ratio of the wall times; the last line is
 * "flow speedup: Nx". Copies that the fabric refuses (P2P allowed over
 * NVLink, which is not simulated, across a socket link that refuses it)
 * fail in both fidelities and are counted.
 *
 * As in bench/fabric, the sources are never written, so they read as
 * zeros; the flow fidelity then moves no bytes (zeros onto never-written
 * memory change nothing, machine/flow.c) and the figure is the cost of the
 * simulation itself. --data writes a pattern into every source first:
 * both fidelities then move every byte, and copying them (memcpy into
 * the sparse stores) bounds the speedup.
 */
#include <config.h>

#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "machine/p2psim.h"
#include "sim/error.h"
#include "sim/units.h"

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct run {
    double wall_s;
    sim_time_t sim_ps;
    unsigned copies, done, failed;
};

static void on_done(void *arg, const struct p2psim_copy_result *r)
{
    struct run *run = arg;
    run->done++;
    run->failed += r->status != 0;
}

/* Write a pattern into [0, size) of every GPU (the copies' sources). */
static int write_sources(struct p2psim *p, uint64_t size)
{
    uint8_t *buf = malloc(size);
    if (!buf) {
        return -1;
    }
    for (uint64_t i = 0; i < size; i++) {
        buf[i] = (uint8_t)(i * 131 + (i >> 12));
    }
    int rc = 0;
    for (unsigned g = 0; g < p2psim_gpu_count(p) && rc == 0; g++) {
        rc = p2psim_hbm_write(p, g, 0, buf, size);
    }
    free(buf);
    return rc;
}

/* All-to-all on a fresh machine at the given fidelity. */
static int run_all_to_all(const char *file, const char *fidelity,
                          uint64_t size, bool data, struct run *out)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim_options opt = { .fidelity = fidelity };
    struct p2psim *p = p2psim_open(file, &opt, &err);
    if (!p || p2psim_set_fidelity(p, fidelity, &err) < 0) {
        char buf[700];
        fprintf(stderr, "flow: %s\n", sim_error_format(&err, buf, sizeof(buf)));
        p2psim_close(p);
        return -1;
    }
    unsigned n = p2psim_gpu_count(p);
    *out = (struct run){ 0 };
    if (data && write_sources(p, size) < 0) {
        fprintf(stderr, "flow: cannot write the sources\n");
        p2psim_close(p);
        return -1;
    }
    for (unsigned s = 0; s < n; s++) {
        for (unsigned d = 0; d < n; d++) {
            struct p2psim_verdict v;
            if (s == d || p2psim_p2p(p, s, d, &v) < 0) {
                continue;
            }
            struct p2psim_loc src = { P2PSIM_DEVICE, s, 0 };
            struct p2psim_loc dst = { P2PSIM_DEVICE, d, (uint64_t)s * size };
            if (p2psim_copy(p, &dst, &src, size,
                            v.allowed ? P2PSIM_COPY_PEER : 0, 0, on_done,
                            out) == 0) {
                out->copies++;
            }
        }
    }
    double t0 = wall_now();
    p2psim_run(p);
    out->wall_s = wall_now() - t0;
    out->sim_ps = p2psim_now(p);
    p2psim_close(p);
    return out->done == out->copies ? 0 : -1;
}

int main(int argc, char **argv)
{
    uint64_t size = UINT64_C(16) << 20;
    const char *file = NULL;
    bool data = false;
    static const struct option opts[] = {
        { "size", required_argument, NULL, 's' },
        { "machine", required_argument, NULL, 'm' },
        { "data", no_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "s:m:dh", opts, NULL)) != -1) {
        if (c == 's') {
            char why[200];
            if (sim_parse_size(optarg, &size, why, sizeof(why)) < 0) {
                fprintf(stderr, "flow: --size: %s\n", why);
                return 2;
            }
        } else if (c == 'm') {
            file = optarg;
        } else if (c == 'd') {
            data = true;
        } else {
            printf("usage: flow [--size BYTES] [--machine FILE] [--data]   "
                   "(default 16MiB per pair, the built-in default machine)\n"
                   "All-to-all copies between the GPUs, in the TLP and the "
                   "flow fidelity; prints the wall time of each. --data: "
                   "write the sources first.\n");
            return c == 'h' ? 0 : 2;
        }
    }
    struct run tlp, flow;
    if (run_all_to_all(file, "tlp", size, data, &tlp) < 0) {
        fprintf(stderr, "flow: a copy did not finish\n");
        return 1;
    }
    /* The flow fidelity takes milliseconds: average enough runs. */
    double flow_wall = 0;
    unsigned runs = 0;
    do {
        if (run_all_to_all(file, "flow", size, data, &flow) < 0) {
            fprintf(stderr, "flow: a copy did not finish\n");
            return 1;
        }
        flow_wall += flow.wall_s;
        runs++;
    } while (flow_wall < 0.5 && runs < 1000);
    flow.wall_s = flow_wall / runs;
    double ratio = flow.wall_s > 0 ? tlp.wall_s / flow.wall_s : INFINITY;
    double agree = ((double)flow.sim_ps - (double)tlp.sim_ps) /
                   (double)tlp.sim_ps * 100;
    printf("all-to-all, %u copies of %llu MiB, sources %s\n", tlp.copies,
           (unsigned long long)(size >> 20),
           data ? "written (--data)" : "never written");
    printf("tlp:  wall %.3f s, simulated %.3f ms, %u failed\n", tlp.wall_s,
           sim_time_to_s(tlp.sim_ps) * 1e3, tlp.failed);
    printf("flow: wall %.6f s (mean of %u runs), simulated %.3f ms "
           "(%+.2f%% of tlp), %u failed\n", flow.wall_s, runs,
           sim_time_to_s(flow.sim_ps) * 1e3, agree, flow.failed);
    printf("flow speedup: %.0fx\n", ratio);
    return 0;
}
