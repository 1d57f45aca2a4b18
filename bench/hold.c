/*
 * bench/hold.c - the classic hold model: N components, each handling its
 * event by rescheduling itself after a pseudo-random delay uniform in
 * 1..1000 ns (picosecond resolution). It measures raw event throughput of
 * the engines side by side, in one run:
 *
 *   native (calendar)   our core, calendar queue (the default engine)
 *   native (heap)       our core, 4-ary heap (the reference queue)
 *   ours on SystemC     our core driven by the SystemC kernel (seam)
 *   plain SystemC       a plain SystemC program: SC_METHOD + sc_event each
 *
 * The SystemC measurements run in forked children: a process can elaborate
 * SystemC only once. Each measurement first runs two mean delays untimed
 * (the pending-time distribution settles), then times a fixed span of
 * simulated time chosen to give about --events events.
 * The last line is "hold native/systemc: R1 (N=1000) R2 (N=100000)",
 * the ratio of the native (calendar) rate to the plain SystemC rate.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/engine.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/sim.h"
#ifdef HAVE_SYSTEMC
#include "bench/hold_plain_systemc.h"
#include "sim/systemc/engine_systemc.h"
#endif

#define DELAY_MIN_PS UINT64_C(1000)
#define DELAY_MAX_PS UINT64_C(1000000)
#define MEAN_DELAY_PS ((DELAY_MIN_PS + DELAY_MAX_PS) / 2)

struct result {
    double events;
    double seconds;
};

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void hold_fire(struct sim *sim, struct sim_event *ev)
{
    sim_event_schedule(sim, ev, sim_rng_range(sim, DELAY_MIN_PS, DELAY_MAX_PS));
}

/* Simulated span that yields about target events with n components. */
static sim_time_t span_for(unsigned n, double target)
{
    return (sim_time_t)(target * (double)MEAN_DELAY_PS / (double)n);
}

static int run_ours(const struct sim_engine_ops *engine, unsigned n,
                    double target, struct result *out)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct sim_config cfg = { .engine = engine, .seed = 1 };
    struct sim *sim = sim_create(&cfg, &err);
    if (!sim) {
        char buf[600];
        fprintf(stderr, "hold: %s\n", sim_error_format(&err, buf, sizeof(buf)));
        return -1;
    }
    struct sim_event *ev = malloc(sizeof(*ev) * n);
    if (!ev) {
        sim_destroy(sim);
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        sim_event_init(&ev[i], hold_fire);
        sim_event_schedule(sim, &ev[i],
                           sim_rng_range(sim, DELAY_MIN_PS, DELAY_MAX_PS));
    }
    sim_run_until(sim, 2 * MEAN_DELAY_PS);
    uint64_t before = sim_events_fired(sim);
    double t0 = wall_now();
    sim_run_until(sim, sim_now(sim) + span_for(n, target));
    double t1 = wall_now();
    out->events = (double)(sim_events_fired(sim) - before);
    out->seconds = t1 - t0;
    sim_destroy(sim);
    free(ev);
    return 0;
}

#ifdef HAVE_SYSTEMC
static int run_plain_systemc(unsigned n, double target, struct result *out)
{
    double seconds = 0;
    uint64_t events = hold_plain_systemc(n, 2 * MEAN_DELAY_PS,
                                         span_for(n, target), 1, &seconds);
    out->events = (double)events;
    out->seconds = seconds;
    return events ? 0 : -1;
}

/* Run one SystemC measurement in a child; the result comes back by pipe. */
static int run_forked(int which, unsigned n, double target, struct result *out)
{
    int fd[2];
    if (pipe(fd) < 0) {
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        struct result r = { 0, 0 };
        int rc = which == 0 ? run_ours(&sim_engine_systemc, n, target, &r)
                            : run_plain_systemc(n, target, &r);
        ssize_t w = write(fd[1], &r, sizeof(r));
        _exit(rc == 0 && w == (ssize_t)sizeof(r) ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], out, sizeof(*out));
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return got == (ssize_t)sizeof(*out) && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0
               ? 0
               : -1;
}
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hold [--events N] [--sizes N1,N2] [--help]\n"
            "Event throughput of the hold model on our engines and on plain "
            "SystemC.\n"
            "  --events N   events per measurement on our engines (default "
            "10000000);\n"
            "               SystemC runs use a third of that\n"
            "  --sizes A,B  the two component counts (default 1000,100000)\n");
}

int main(int argc, char **argv)
{
    double target = 1e7;
    unsigned sizes[2] = { 1000, 100000 };
    static const struct option opts[] = {
        { "events", required_argument, NULL, 'e' },
        { "sizes", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "e:s:h", opts, NULL)) != -1) {
        switch (c) {
        case 'e':
            target = strtod(optarg, NULL);
            if (target < 1000) {
                fprintf(stderr, "hold: --events must be at least 1000\n");
                return 2;
            }
            break;
        case 's':
            if (sscanf(optarg, "%u,%u", &sizes[0], &sizes[1]) != 2 ||
                sizes[0] == 0 || sizes[1] == 0) {
                fprintf(stderr, "hold: --sizes takes two counts, e.g. "
                                "1000,100000\n");
                return 2;
            }
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }
    struct row {
        const char *name;
        double rate[2];
        bool ok[2];
    } rows[4] = {
        { "native (calendar queue)", { 0, 0 }, { false, false } },
        { "native (4-ary heap)", { 0, 0 }, { false, false } },
        { "ours on SystemC", { 0, 0 }, { false, false } },
        { "plain SystemC", { 0, 0 }, { false, false } },
    };
    printf("hold model: each component reschedules itself after U(1, 1000) ns\n");
    for (int s = 0; s < 2; s++) {
        struct result r;
        fprintf(stderr, "hold: N=%u ...\n", sizes[s]);
        if (run_ours(&sim_engine_native, sizes[s], target, &r) == 0) {
            rows[0].rate[s] = r.events / r.seconds;
            rows[0].ok[s] = true;
        }
        if (run_ours(&sim_engine_native_heap, sizes[s], target, &r) == 0) {
            rows[1].rate[s] = r.events / r.seconds;
            rows[1].ok[s] = true;
        }
#ifdef HAVE_SYSTEMC
        for (int w = 0; w < 2; w++) {
            if (run_forked(w, sizes[s], target / 3, &r) == 0) {
                rows[2 + w].rate[s] = r.events / r.seconds;
                rows[2 + w].ok[s] = true;
            }
        }
#endif
    }
    printf("%-26s %14s %14s   (million events per wall second)\n", "engine",
           "N=1000", "N=100000");
    for (int i = 0; i < 4; i++) {
        printf("%-26s", rows[i].name);
        for (int s = 0; s < 2; s++) {
            if (rows[i].ok[s]) {
                printf(" %14.2f", rows[i].rate[s] / 1e6);
            } else {
                printf(" %14s", "n/a");
            }
        }
        printf("\n");
    }
    if (!rows[3].ok[0] || !rows[3].ok[1]) {
        printf("hold native/systemc: n/a (built without SystemC)\n");
        return 0;
    }
    printf("hold native/systemc: %.1f (N=%u) %.1f (N=%u)\n",
           rows[0].rate[0] / rows[3].rate[0], sizes[0],
           rows[0].rate[1] / rows[3].rate[1], sizes[1]);
    return 0;
}
