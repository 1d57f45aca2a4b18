/*
 * tools/p2psim.c - the p2psim command: dispatch to subcommands.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cudart/api_costs.h"
#include "machine/p2psim.h"
#include "sim/error.h"
#include "tools/cli.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    { "topo", cmd_topo, "the GPU connection matrix, as nvidia-smi topo -m" },
    { "explain", cmd_explain, "why P2P between two GPUs works, is slow, or "
                              "is blocked" },
    { "run", cmd_run, "run a CUDA program on a simulated machine" },
    { "server", cmd_server, "serve one simulated machine to the processes "
                            "of a program" },
    { "bench", cmd_bench, "p2pBandwidthLatencyTest's bandwidth and latency "
                          "matrices" },
    { "sweep", cmd_sweep, "measure one quantity over a grid of parameter "
                          "values" },
    { "validate", cmd_validate, "compare simulated matrices with measured "
                                "ones" },
    { "replay", cmd_replay, "replay a recorded API trace on a simulated "
                            "machine" },
    { "compare", cmd_compare, "run a program on the real GPU and on a "
                              "simulated machine" },
    { "trace", cmd_trace, "summarize, convert or filter a fabric trace" },
    { NULL, NULL, NULL },
};

static void usage(FILE *f)
{
    fprintf(f, "usage: p2psim COMMAND [ARGS]   (p2psim COMMAND --help for "
               "more)\n\n"
               "Simulate multi-GPU PCIe and NVLink machines.\n\n"
               "commands:\n");
    for (const struct command *c = commands; c->name; c++) {
        fprintf(f, "  %-10s %s\n", c->name, c->summary);
    }
    fprintf(f, "\nA machine is a YAML file (topologies/SCHEMA.md); without "
               "one, the built-in\ndefault machine is used. Exit status: 0 "
               "success, 1 failure, 2 bad input\n(p2psim run: the "
               "program's status).\n");
}

struct p2psim *cli_open(const char *file)
{
    return cli_open_opt(file, NULL);
}

struct p2psim *cli_open_opt(const char *file,
                            const struct p2psim_options *opt)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim *p = p2psim_open(file, opt, &err);
    /* The host's costs of CUDA calls (cuda/cudart/api_costs.h): a bad one
     * is an error of the file, whichever command loads it. */
    struct api_costs costs;
    if (p && api_costs_read(p, &costs, &err) < 0) {
        p2psim_close(p);
        p = NULL;
    }
    if (!p) {
        char buf[700];
        fprintf(stderr, "%s\n", sim_error_format(&err, buf, sizeof(buf)));
        return NULL;
    }
    return p;
}

int cli_add_override(char **ov, const char *arg)
{
    size_t old = *ov ? strlen(*ov) : 0;
    char *n = realloc(*ov, old + strlen(arg) + 2);
    if (!n) {
        return -1;
    }
    sprintf(n + old, "%s%s", old ? "\n" : "", arg);
    *ov = n;
    return 0;
}

int cli_parse_jobs(const char *cmd, const char *arg, unsigned max,
                   unsigned *out)
{
    char *end;
    unsigned long v = strtoul(arg, &end, 10);
    if (*arg < '0' || *arg > '9' || *end || v < 1 || v > max) {
        fprintf(stderr, "p2psim %s: --jobs takes 1 to %u, not '%s'\n", cmd,
                max, arg);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

int cli_gpu(const struct p2psim *p, const char *arg)
{
    int i = p2psim_gpu_find(p, arg);
    if (i < 0) {
        fprintf(stderr, "p2psim: no GPU '%s' in %s (GPUs: ", arg,
                p2psim_machine_name(p));
        for (unsigned k = 0; k < p2psim_gpu_count(p); k++) {
            fprintf(stderr, "%s%s", k ? ", " : "", p2psim_gpu_id(p, k));
        }
        fprintf(stderr, "; or their numbers 0 to %u)\n",
                p2psim_gpu_count(p) - 1);
    }
    return i;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_BAD_INPUT;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("p2psim %s\n", PACKAGE_VERSION);
        return CLI_OK;
    }
    for (const struct command *c = commands; c->name; c++) {
        if (!strcmp(argv[1], c->name)) {
            return c->run(argc - 1, argv + 1);
        }
    }
    fprintf(stderr, "p2psim: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return CLI_BAD_INPUT;
}
