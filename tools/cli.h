/*
 * tools/cli.h - what the p2psim subcommands share: exit codes, opening the
 * machine, printing errors as file:line:column.
 */
#ifndef P2PSIM_TOOLS_CLI_H
#define P2PSIM_TOOLS_CLI_H

#include <stdbool.h>

struct p2psim;

#define CLI_OK 0
#define CLI_FAIL 1                  /* the simulation or the system failed */
#define CLI_BAD_INPUT 2             /* bad arguments or machine file */

/* Open file (NULL: the built-in default); prints the error and returns NULL. */
struct p2psim *cli_open(const char *file);
/* The same with options (fidelity, overrides); opt may be NULL. */
struct p2psim_options;
struct p2psim *cli_open_opt(const char *file,
                            const struct p2psim_options *opt);
/*
 * cli_add_override - append one --set PATH=VALUE to the newline-separated
 * lines *ov (p2psim_options.overrides; NULL to start). 0, or -1 when out
 * of memory. The caller frees *ov.
 */
int cli_add_override(char **ov, const char *arg);
/*
 * cli_parse_jobs - the value of --jobs: a count from 1 to max into *out;
 * otherwise prints "p2psim CMD: --jobs takes 1 to MAX, not 'ARG'" and
 * returns -1.
 */
int cli_parse_jobs(const char *cmd, const char *arg, unsigned max,
                   unsigned *out);
/* GPU index from "gpu3" or "3"; prints an error naming the choices. */
int cli_gpu(const struct p2psim *p, const char *arg);

int cmd_topo(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_server(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_trace(int argc, char **argv);

#endif /* P2PSIM_TOOLS_CLI_H */
