/*
 * bench/trace_bench.c - what tracing costs when it is compiled in but off.
 *
 * The same program is built twice: bench/trace (the library as shipped:
 * every TLP hop tests the trace mask) and bench/trace-off (sim/ compiled
 * with SIM_TRACE_COMPILED_OUT: the tests are constant false, so the
 * compiler removes them). The workload is a P2P copy in the TLP fidelity
 * on the built-in default machine, every packet an event. bench/trace
 * runs itself and bench/trace-off alternately, several rounds, and
 * compares the fastest of each (the minimum is the least disturbed by a
 * shared machine). For scale it also times tracing on, every TLP hop a
 * record (CSV and Perfetto JSON to /dev/null; best of 2).
 *
 * Last line: "trace-off overhead: X%" (target: under 5%).
 */
#include <config.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "machine/p2psim.h"
#include "sim/error.h"

#define BENCH_BYTES (64u << 20)
#define BENCH_ROUNDS 5

static void on_done(void *arg, const struct p2psim_copy_result *r)
{
    *(int *)arg = r->status;
}

/* Wall seconds of one traced-or-not copy workload. */
static double workload(const char *trace, const char *format)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim *p = p2psim_open(NULL, NULL, &err);
    if (!p) {
        fprintf(stderr, "bench/trace: %s\n", err.msg);
        exit(1);
    }
    if (trace) {
        struct p2psim_trace_options o = { .path = trace,
                                          .format = format };
        if (p2psim_trace_start(p, &o, &err) < 0) {
            fprintf(stderr, "bench/trace: %s\n", err.msg);
            exit(1);
        }
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int st[2] = { 1, 1 };
    struct p2psim_loc d0 = { P2PSIM_DEVICE, 1, 0 }, s0 = { P2PSIM_DEVICE, 0, 0 };
    struct p2psim_loc d1 = { P2PSIM_DEVICE, 0, 1u << 30 },
                      s1 = { P2PSIM_DEVICE, 1, 1u << 30 };
    p2psim_copy(p, &d0, &s0, BENCH_BYTES, P2PSIM_COPY_PEER, 0, on_done, &st[0]);
    p2psim_copy(p, &d1, &s1, BENCH_BYTES, P2PSIM_COPY_PEER, 0, on_done, &st[1]);
    p2psim_run(p);
    p2psim_close(p);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st[0] || st[1]) {
        fprintf(stderr, "bench/trace: the copies failed\n");
        exit(1);
    }
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec -
                                                            t0.tv_nsec);
}

#ifndef SIM_TRACE_COMPILED_OUT
/* Run the sibling bench/trace-off --once and read its time. */
static double sibling(const char *self)
{
    char path[PATH_MAX + 16], cmd[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s", self);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path,
             sizeof(path) - (size_t)(slash ? slash + 1 - path : 0),
             "trace-off");
    snprintf(cmd, sizeof(cmd), "'%s' --once", path);
    FILE *f = popen(cmd, "r");
    double t = -1;
    if (!f || fscanf(f, "%lf", &t) != 1) {
        fprintf(stderr, "bench/trace: cannot run %s\n", path);
        exit(1);
    }
    pclose(f);
    return t;
}
#endif

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--once")) {
        printf("%.6f\n", workload(NULL, NULL));
        return 0;
    }
#ifdef SIM_TRACE_COMPILED_OUT
    fprintf(stderr, "bench/trace-off: run bench/trace, which runs this\n");
    return 2;
#else
    double on = 1e9, off = 1e9, traced = 1e9, json = 1e9;
    for (int r = 0; r < BENCH_ROUNDS; r++) {
        double a = workload(NULL, NULL), b = sibling(argv[0]);
        on = a < on ? a : on;
        off = b < off ? b : off;
    }
    for (int r = 0; r < 2; r++) {
        double c = workload("/dev/null", "csv");
        traced = c < traced ? c : traced;
        c = workload("/dev/null", "perfetto");
        json = c < json ? c : json;
    }
    printf("workload: 2 x %u MiB P2P copies, TLP fidelity, default machine; "
           "best of %d\n", BENCH_BYTES >> 20, BENCH_ROUNDS);
    printf("compiled out:        %.3f s\n", off);
    printf("compiled in, off:    %.3f s\n", on);
    printf("on (CSV, /dev/null): %.3f s (%+.1f%%)\n", traced,
           100.0 * (traced - off) / off);
    printf("on (Perfetto JSON):  %.3f s (%+.1f%%)\n", json,
           100.0 * (json - off) / off);
    printf("trace-off overhead: %.1f%%\n", 100.0 * (on - off) / off);
    return 0;
#endif
}
