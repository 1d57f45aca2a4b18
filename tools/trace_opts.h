/*
 * tools/trace_opts.h - the trace options that p2psim run, bench and sweep
 * share (--trace, --trace-format, --trace-filter, --trace-max, --events,
 * --stall-threshold, --counters, --counters-period, --plot). They are
 * handed to the simulating process (the CUDA runtime, or the p2psim
 * server) as the environment machine/trace_sink.h reads.
 */
#ifndef P2PSIM_TOOLS_TRACE_OPTS_H
#define P2PSIM_TOOLS_TRACE_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

/* getopt_long codes: above any character. */
enum {
    CLI_TRACE_OPT_FIRST = 0x1000,
    CLI_TRACE_OPT_TRACE = CLI_TRACE_OPT_FIRST,
    CLI_TRACE_OPT_FORMAT,
    CLI_TRACE_OPT_FILTER,
    CLI_TRACE_OPT_MAX,
    CLI_TRACE_OPT_EVENTS,
    CLI_TRACE_OPT_STALL,
    CLI_TRACE_OPT_COUNTERS,
    CLI_TRACE_OPT_PERIOD,
    CLI_TRACE_OPT_PLOT,
    CLI_TRACE_OPT_LAST
};

/* The entries to put in a command's struct option table. */
#define CLI_TRACE_OPTIONS                                                     \
    { "trace", required_argument, NULL, CLI_TRACE_OPT_TRACE },                \
    { "trace-format", required_argument, NULL, CLI_TRACE_OPT_FORMAT },        \
    { "trace-filter", required_argument, NULL, CLI_TRACE_OPT_FILTER },        \
    { "trace-max", required_argument, NULL, CLI_TRACE_OPT_MAX },              \
    { "events", required_argument, NULL, CLI_TRACE_OPT_EVENTS },              \
    { "stall-threshold", required_argument, NULL, CLI_TRACE_OPT_STALL },      \
    { "counters", required_argument, NULL, CLI_TRACE_OPT_COUNTERS },          \
    { "counters-period", required_argument, NULL, CLI_TRACE_OPT_PERIOD }

/* --plot FILE.png (not in p2psim sweep, whose --plot is its own). */
#define CLI_TRACE_PLOT_OPTION                                                 \
    { "plot", required_argument, NULL, CLI_TRACE_OPT_PLOT }

struct cli_trace {
    const char *trace, *format, *filter, *max, *events, *stall;
    const char *counters, *period, *plot;
};

static inline bool cli_trace_is_opt(int c)
{
    return c >= CLI_TRACE_OPT_FIRST && c < CLI_TRACE_OPT_LAST;
}

/* Record option c's argument. */
void cli_trace_opt(struct cli_trace *t, int c, const char *arg);
/* Any trace option given? */
bool cli_trace_any(const struct cli_trace *t);
/*
 * cli_trace_check - validate (formats, filter, sizes, times) so errors show
 * before anything runs; --plot needs --counters. Prints "p2psim CMD: ..."
 * and returns -1 on a bad one.
 */
int cli_trace_check(const struct cli_trace *t, const char *cmd);
/* Put the options in the environment (absolute paths). 0 or -1. */
int cli_trace_setenv(const struct cli_trace *t);
/*
 * cli_trace_env_tag - in a child that simulates one of several runs (a
 * sweep's point): insert "-TAG" before the extension of each file the
 * environment names, so runs do not overwrite each other.
 */
void cli_trace_env_tag(const char *tag);
/* Help text of the options, for usage(); with_plot: --plot too. */
void cli_trace_usage(FILE *f, bool with_plot);
/*
 * cli_trace_plot - draw utilisation over time from the counters file
 * (link directions that carried bytes) into png with gnuplot. 0 or -1.
 */
int cli_trace_plot(const char *counters, const char *png);

#endif /* P2PSIM_TOOLS_TRACE_OPTS_H */
