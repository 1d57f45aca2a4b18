/*
 * bench/nvl72.c - an all-to-all copy on the GB200 NVL72 (72 GPUs, 18
 * NVSwitches; topologies/gb200-nvl72.yaml): every GPU copies --size bytes
 * to each of the 71 others at once, over NVLink, in the TLP fidelity
 * (every packet through the link and NVSwitch models; the default) or the
 * flow fidelity (--fidelity flow).
 *
 * Prints the wall time of p2psim_run, the events fired and events per
 * second of wall time, the simulated time of the whole set and the
 * aggregate rate it implies (compare with 72 GPUs x 18 links x 50 GB/s x
 * 256/272, the link model's bound for 256-byte writes). The default size
 * (64 KiB per pair, 5112 copies, about 330 MB in all) keeps the TLP run to
 * seconds; --size 1M gives a steadier rate in about 16 x the time.
 */
#include <config.h>

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "machine/p2psim.h"
#include "sim/error.h"
#include "sim/sim.h"
#include "sim/units.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct tally {
    unsigned done, failed, staged;
};

static void on_done(void *arg, const struct p2psim_copy_result *r)
{
    struct tally *t = arg;
    t->done++;
    t->failed += r->status != 0;
    t->staged += r->staged;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bench/nvl72 [--size BYTES] [--fidelity tlp|flow] "
               "[--machine FILE]\n");
}

int main(int argc, char **argv)
{
    const char *machine = P2PSIM_SRCDIR "/topologies/gb200-nvl72.yaml";
    const char *fidelity = "tlp";
    uint64_t size = UINT64_C(64) << 10;
    static const struct option opts[] = {
        { "size", required_argument, NULL, 's' },
        { "fidelity", required_argument, NULL, 'f' },
        { "machine", required_argument, NULL, 'm' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char why[160];
        switch (c) {
        case 's':
            if (sim_parse_size(optarg, &size, why, sizeof(why)) < 0 ||
                size == 0) {
                fprintf(stderr, "bench/nvl72: --size %s: %s\n", optarg,
                        size ? why : "must be more than 0");
                return 2;
            }
            break;
        case 'f':
            fidelity = optarg;
            break;
        case 'm':
            machine = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim_options o = { .fidelity = fidelity };
    double w0 = wall_now();
    struct p2psim *p = p2psim_open(machine, &o, &err);
    if (!p) {
        fprintf(stderr, "bench/nvl72: %s\n", err.msg);
        return 2;
    }
    double w_load = wall_now() - w0;
    unsigned n = p2psim_gpu_count(p);
    struct tally t = { 0, 0, 0 };
    unsigned copies = 0;
    for (unsigned s = 0; s < n; s++) {
        for (unsigned d = 0; d < n; d++) {
            if (s == d) {
                continue;
            }
            struct p2psim_loc src = { P2PSIM_DEVICE, s, (uint64_t)d * size };
            struct p2psim_loc dst = { P2PSIM_DEVICE, d,
                                      (uint64_t)(n + s) * size };
            if (p2psim_copy(p, &dst, &src, size, P2PSIM_COPY_PEER, 0,
                            on_done, &t) == 0) {
                copies++;
            }
        }
    }
    struct sim *sim = p2psim_sim(p);
    uint64_t ev0 = sim_events_fired(sim);
    double w1 = wall_now();
    p2psim_run(p);
    double wall = wall_now() - w1;
    uint64_t events = sim_events_fired(sim) - ev0;
    double sim_s = (double)p2psim_now(p) * 1e-12;
    printf("bench/nvl72: %s, %u GPUs, fidelity %s, %u copies of %llu B "
           "(all to all)\n", p2psim_machine_name(p), n, fidelity, copies,
           (unsigned long long)size);
    printf("  loaded in %.3f s\n", w_load);
    printf("  completed %u, failed %u, staged %u\n", t.done, t.failed,
           t.staged);
    printf("  wall time %.3f s, %llu events, %.3g events/s\n", wall,
           (unsigned long long)events, wall > 0 ? (double)events / wall : 0);
    printf("  simulated %.3f us, aggregate %.1f GB/s\n", sim_s * 1e6,
           sim_s > 0 ? (double)copies * (double)size / sim_s / 1e9 : 0);
    p2psim_close(p);
    return t.done == copies && t.failed == 0 ? 0 : 1;
}
