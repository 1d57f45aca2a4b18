/*
 * tools/cmd_sweep.c - `p2psim sweep [FILE] --set KEY=V1,V2,... --measure
 * WHAT`: the command line of a sweep (keys, their values and ranges, the
 * measures' grammar); tools/sweep.c runs it.
 */
#include <config.h>

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/units.h"
#include "tools/bwlat.h"
#include "tools/cli.h"
#include "tools/sweep.h"
#include "tools/trace_opts.h"

#define SWEEP_MAX_VALUES 100000

/* The measures: name, what is copied, and how many GPUs it names. */
static const struct measure_kind {
    const char *name;
    enum bwlat_copy copy;
    bool bidir, latency;
    int n_gpus;
    const char *help;
} measure_kinds[] = {
    { "p2p-bandwidth", BWLAT_COPY_P2P, false, false, 2,
      "A -> B with peer access (P2P writes by A's copy engine)" },
    { "p2p-read-bandwidth", BWLAT_COPY_P2P_READ, false, false, 2,
      "B -> A on A's stream with peer access (P2P reads)" },
    { "staged-bandwidth", BWLAT_COPY_STAGED, false, false, 2,
      "A -> B without peer access (staged through host memory)" },
    { "bidir-bandwidth", BWLAT_COPY_P2P, true, false, 2,
      "A -> B and B -> A at once, peer access (both counted)" },
    { "staged-bidir-bandwidth", BWLAT_COPY_STAGED, true, false, 2,
      "both ways at once without peer access" },
    { "h2d-bandwidth", BWLAT_COPY_H2D, false, false, 1,
      "pinned host memory -> GPU" },
    { "d2h-bandwidth", BWLAT_COPY_D2H, false, false, 1,
      "GPU -> pinned host memory" },
    { "d2d-bandwidth", BWLAT_COPY_D2D, false, false, 1,
      "within the GPU (bytes counted once)" },
    { "latency", BWLAT_COPY_P2P, false, true, 2,
      "time per copy A -> B, back to back, peer access" },
    { "p2p-read-latency", BWLAT_COPY_P2P_READ, false, true, 2,
      "time per copy B -> A on A's stream, peer access" },
    { "staged-latency", BWLAT_COPY_STAGED, false, true, 2,
      "time per copy A -> B without peer access" },
    { "h2d-latency", BWLAT_COPY_H2D, false, true, 1,
      "time per copy host -> GPU" },
    { "d2h-latency", BWLAT_COPY_D2H, false, true, 1,
      "time per copy GPU -> host" },
    { NULL, 0, false, false, 0, NULL },
};

/* Keys that are measurement parameters, not paths of the machine file. */
static const struct pseudo_key {
    const char *name;
    enum sweep_key_kind kind;
} pseudo_keys[] = {
    { "size", SWEEP_KEY_SIZE },
    { "repeat", SWEEP_KEY_REPEAT },
    { "fidelity", SWEEP_KEY_FIDELITY },
    { "machine", SWEEP_KEY_MACHINE },
    { NULL, 0 },
};

static void sweep_usage(FILE *f)
{
    fprintf(f,
        "usage: p2psim sweep [FILE] --set KEY=V1,V2,... [--set ...]\n"
        "                    --measure WHAT [--measure ...] [OPTIONS]\n\n"
        "Measure WHAT at every point of the cross product of the --set "
        "values, each\npoint on a fresh machine, through the CUDA runtime "
        "API; one CSV row per\npoint (the keys' values, then each measure). "
        "FILE is a machine file;\nwithout it, the built-in default machine.\n\n"
        "options:\n"
        "  --set KEY=VALUES   the values of one key (repeatable; the last "
        "--set\n"
        "                     varies fastest). VALUES: V1,V2,... (commas "
        "inside\n"
        "                     [] or {} belong to a value), or a range "
        "A..B*F\n"
        "                     (times F) or A..B+S (plus S), e.g. "
        "size=4KiB..64MiB*4\n"
        "  --measure WHAT     what to measure (repeatable), e.g.\n"
        "                     'p2p-bandwidth gpu0 gpu1' (GPUs by id or "
        "number)\n"
        "  --topology FILE    the machine file (the same as FILE)\n"
        "  --fidelity F       tlp (default) or flow\n"
        "  --csv FILE         write the CSV to FILE (default: standard "
        "output)\n"
        "  --plot FILE        draw the measures against the first key with "
        "several\n"
        "                     values, one curve per value of the others "
        "(gnuplot)\n"
        "  --jobs N           measure N points at once (default 1)\n\n"
        "keys:\n"
        "  a path of the machine file (topologies/SCHEMA.md, "
        "\"Overrides\"):\n"
        "    defaults.switch.latency, defaults.pcie-link.latency,\n"
        "    gpus.gpu0.model, gpus.*.set.mps, gpus.*.link.speed,\n"
        "    socket-links.0.bandwidth, sockets.cpu0.root-complex.p2p, ...\n"
        "  size      bytes per copy (default 16MiB for bandwidth, 16B for "
        "latency)\n"
        "  repeat    copies per measurement (default 5 for bandwidth, 100 "
        "for\n"
        "            latency)\n"
        "  fidelity  tlp or flow\n"
        "  machine   a machine file (sweeps across machines)\n\n"
        "measures (WHAT = NAME GPU [GPU]; bandwidth in GB/s = 10^9 B/s, "
        "latency in us):\n");
    for (const struct measure_kind *k = measure_kinds; k->name; k++) {
        char use[64];
        snprintf(use, sizeof(use), "%s %s", k->name,
                 k->n_gpus == 2 ? "A B" : "GPU");
        fprintf(f, "  %-26s %s\n", use, k->help);
    }
    fprintf(f,
        "\nEach measurement queues `repeat` copies of `size` bytes back to "
        "back behind\na gate, as p2pBandwidthLatencyTest does. A progress bar "
        "shows on stderr when\nit is a terminal. Under mpirun (a p2psim "
        "built with MPI), the points are\nsplit between the ranks and rank 0 "
        "writes the same CSV as a serial run:\n"
        "  mpirun -np 4 p2psim sweep --set size=4KiB..64MiB*4 \\\n"
        "      --measure 'p2p-bandwidth 0 1' --csv bw.csv --plot bw.png\n\n"
        "With --trace, --events or --counters, each point writes its own "
        "files,\nnamed with -pN before the extension (t.json: t-p0.json, "
        "t-p1.json, ...).\n");
    cli_trace_usage(f, false);
}

/* ---- values -------------------------------------------------------------- */

static int add_value(struct sweep_key *k, const char *v, size_t len)
{
    if (k->n_values == SWEEP_MAX_VALUES) {
        fprintf(stderr, "p2psim sweep: --set %s: more than %d values\n",
                k->name, SWEEP_MAX_VALUES);
        return -1;
    }
    char **nv = realloc(k->values, (k->n_values + 1) * sizeof(*nv));
    if (!nv) {
        return -1;
    }
    k->values = nv;
    k->values[k->n_values] = strndup(v, len);
    return k->values[k->n_values++] ? 0 : -1;
}

/* "4KiB" and the like for a byte count: the largest binary unit that
 * divides it. */
static void format_bytes(uint64_t b, char *buf, size_t len)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    unsigned u = 0;
    while (u < 4 && b && b % 1024 == 0) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, "%llu%s", (unsigned long long)b, units[u]);
}

/* A number of key k's kind: bytes for size, else the number before the
 * unit (which must be *unit for every value of a range). */
static bool range_number(const struct sweep_key *k, const char *s,
                         double *x, char *unit, size_t unit_len)
{
    if (k->kind == SWEEP_KEY_SIZE) {
        uint64_t b;
        char why[100];
        if (sim_parse_u64(s, &b, why, sizeof(why)) < 0 &&
            sim_parse_size(s, &b, why, sizeof(why)) < 0) {
            return false;
        }
        *x = (double)b;
        unit[0] = '\0';
        return true;
    }
    char *end;
    *x = strtod(s, &end);
    if (end == s) {
        return false;
    }
    snprintf(unit, unit_len, "%s", end);
    return true;
}

/* A range A..B*F or A..B+S of key k. */
static int add_range(struct sweep_key *k, const char *v)
{
    char a[128], b[128], step[128], ua[32], ub[32], us[32];
    const char *dots = strstr(v, "..");
    const char *op = dots ? strpbrk(dots + 2, "*+") : NULL;
    double lo, hi, st;
    if (!op || dots - v >= (long)sizeof(a) ||
        op - dots - 2 >= (long)sizeof(b) || strlen(op + 1) >= sizeof(step)) {
        goto bad;
    }
    snprintf(a, sizeof(a), "%.*s", (int)(dots - v), v);
    snprintf(b, sizeof(b), "%.*s", (int)(op - dots - 2), dots + 2);
    snprintf(step, sizeof(step), "%s", op + 1);
    if (!range_number(k, a, &lo, ua, sizeof(ua)) ||
        !range_number(k, b, &hi, ub, sizeof(ub)) || strcmp(ua, ub) != 0) {
        goto bad;
    }
    char *end = NULL;
    bool ok;
    if (*op == '*') {
        st = strtod(step, &end);
        ok = end != step && *end == '\0' && st > 1;
    } else if (k->kind == SWEEP_KEY_SIZE) {
        ok = range_number(k, step, &st, us, sizeof(us)) && st > 0;
    } else {
        st = strtod(step, &end);
        ok = end != step && st > 0 && (*end == '\0' || strcmp(end, ua) == 0);
    }
    if (!ok) {
        goto bad;
    }
    for (double x = lo; x <= hi * (1 + 1e-9);
         x = *op == '*' ? x * st : x + st) {
        char buf[160];
        if (k->kind == SWEEP_KEY_SIZE) {
            format_bytes((uint64_t)llround(x), buf, sizeof(buf));
        } else {
            snprintf(buf, sizeof(buf), "%.10g%s", x, ua);
        }
        if (add_value(k, buf, strlen(buf)) < 0) {
            return -1;
        }
    }
    return 0;
bad:
    fprintf(stderr, "p2psim sweep: --set %s=%s: a range is A..B*F "
                    "(F > 1) or A..B+S, with A and B in the same unit, e.g. "
                    "size=4KiB..64MiB*4 or defaults.switch.latency="
                    "50ns..250ns+50\n", k->name, v);
    return -1;
}

/* Split VALUES at commas outside brackets and quotes. */
static int parse_values(struct sweep_key *k, const char *vals)
{
    int depth = 0;
    char quote = 0;
    const char *start = vals;
    for (const char *c = vals;; c++) {
        if (quote) {
            quote = *c == quote ? 0 : quote;
        } else if (*c == '"' || *c == '\'') {
            quote = *c;
        } else if (*c == '[' || *c == '{') {
            depth++;
        } else if (*c == ']' || *c == '}') {
            depth--;
        }
        if ((*c == ',' && depth == 0 && !quote) || *c == '\0') {
            if (c == start) {
                fprintf(stderr, "p2psim sweep: --set %s=%s: an empty "
                                "value\n", k->name, vals);
                return -1;
            }
            char *one = strndup(start, (size_t)(c - start));
            int rc = !one ? -1
                     : (strstr(one, "..") && one[0] != '[' && one[0] != '{')
                         ? add_range(k, one)
                         : add_value(k, one, strlen(one));
            free(one);
            if (rc < 0) {
                return -1;
            }
            start = c + 1;
        }
        if (*c == '\0') {
            return 0;
        }
    }
}

static int parse_set(struct sweep *s, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        fprintf(stderr, "p2psim sweep: --set takes KEY=V1,V2,..., not "
                        "'%s'\n", arg);
        return -1;
    }
    struct sweep_key *nk = realloc(s->keys, (s->n_keys + 1) * sizeof(*nk));
    if (!nk) {
        return -1;
    }
    s->keys = nk;
    struct sweep_key *k = &s->keys[s->n_keys++];
    memset(k, 0, sizeof(*k));
    k->name = strndup(arg, (size_t)(eq - arg));
    if (!k->name) {
        return -1;
    }
    k->kind = SWEEP_KEY_PATH;
    for (const struct pseudo_key *p = pseudo_keys; p->name; p++) {
        if (strcmp(p->name, k->name) == 0) {
            k->kind = p->kind;
        }
    }
    for (unsigned j = 0; j + 1 < s->n_keys; j++) {
        if (strcmp(s->keys[j].name, k->name) == 0) {
            fprintf(stderr, "p2psim sweep: --set %s twice; give its values "
                            "in one --set\n", k->name);
            return -1;
        }
    }
    if (parse_values(k, eq + 1) < 0) {
        return -1;
    }
    for (unsigned i = 0; k->kind == SWEEP_KEY_FIDELITY && i < k->n_values;
         i++) {
        if (strcmp(k->values[i], "tlp") && strcmp(k->values[i], "flow")) {
            fprintf(stderr, "p2psim sweep: --set fidelity=...: tlp or flow, "
                            "not '%s'\n", k->values[i]);
            return -1;
        }
    }
    return 0;
}

/* ---- measures ------------------------------------------------------------ */

static int parse_measure(struct sweep *s, const char *arg)
{
    char *copy = strdup(arg);
    char *tok[4] = { NULL };
    int n = 0;
    for (char *t = copy ? strtok(copy, " \t:") : NULL; t && n < 4;
         t = strtok(NULL, " \t:")) {
        tok[n++] = t;
    }
    const struct measure_kind *k = NULL;
    for (const struct measure_kind *m = measure_kinds; n && m->name; m++) {
        if (strcmp(m->name, tok[0]) == 0) {
            k = m;
        }
    }
    if (!k || n != 1 + k->n_gpus) {
        if (!k) {
            fprintf(stderr, "p2psim sweep: unknown measure '%s' (p2psim "
                            "sweep --help lists them)\n", n ? tok[0] : arg);
        } else {
            fprintf(stderr, "p2psim sweep: --measure '%s': %s takes %s\n",
                    arg, k->name, k->n_gpus == 2 ? "two GPUs (A B)"
                                                 : "one GPU");
        }
        free(copy);
        return -1;
    }
    struct sweep_measure *nm = realloc(s->measures,
                                       (s->n_measures + 1) * sizeof(*nm));
    if (!nm) {
        free(copy);
        return -1;
    }
    s->measures = nm;
    struct sweep_measure *m = &s->measures[s->n_measures++];
    memset(m, 0, sizeof(*m));
    m->text = strdup(arg);
    m->kind = k->name;
    m->copy = k->copy;
    m->bidir = k->bidir;
    m->latency = k->latency;
    m->gpu[0] = strdup(tok[1]);
    m->gpu[1] = k->n_gpus == 2 ? strdup(tok[2]) : NULL;
    snprintf(m->column, sizeof(m->column), "%s %s%s%s (%s)", k->name, tok[1],
             k->n_gpus == 2 ? " " : "", k->n_gpus == 2 ? tok[2] : "",
             k->latency ? "us" : "GB/s");
    free(copy);
    return 0;
}

/* ---- the command --------------------------------------------------------- */

struct sweep_opts {
    const char *csv, *plot;
    struct cli_trace tr;        /* per point: FILE-pN.ext */
};

static int parse(int argc, char **argv, struct sweep *s, struct sweep_opts *o)
{
    static const struct option opts[] = {
        { "set", required_argument, NULL, 's' },
        { "measure", required_argument, NULL, 'm' },
        { "topology", required_argument, NULL, 't' },
        { "fidelity", required_argument, NULL, 'f' },
        { "csv", required_argument, NULL, 'c' },
        { "plot", required_argument, NULL, 'p' },
        { "jobs", required_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        CLI_TRACE_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hj:", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (parse_set(s, optarg) < 0) {
                return CLI_BAD_INPUT;
            }
            break;
        case 'm':
            if (parse_measure(s, optarg) < 0) {
                return CLI_BAD_INPUT;
            }
            break;
        case 't': s->machine = optarg; break;
        case 'f': s->fidelity = optarg; break;
        case 'c': o->csv = optarg; break;
        case 'p': o->plot = optarg; break;
        case 'j':
            if (cli_parse_jobs("sweep", optarg, 1024, &s->jobs) < 0) {
                return CLI_BAD_INPUT;
            }
            break;
        case 'h': sweep_usage(stdout); return -1;
        default:
            if (cli_trace_is_opt(c)) {
                cli_trace_opt(&o->tr, c, optarg);
                break;
            }
            sweep_usage(stderr);
            return CLI_BAD_INPUT;
        }
    }
    if (argc - optind > 1 || (argc - optind == 1 && s->machine &&
                              strcmp(s->machine, argv[optind]) != 0)) {
        fprintf(stderr, "p2psim sweep: one machine only (FILE or "
                        "--topology; --set machine=A,B sweeps machines)\n");
        return CLI_BAD_INPUT;
    }
    if (optind < argc) {
        s->machine = argv[optind];
    }
    if (strcmp(s->fidelity, "tlp") != 0 && strcmp(s->fidelity, "flow") != 0) {
        fprintf(stderr, "p2psim sweep: --fidelity is tlp or flow, not "
                        "'%s'\n", s->fidelity);
        return CLI_BAD_INPUT;
    }
    if (s->n_measures == 0) {
        fprintf(stderr, "p2psim sweep: nothing to measure: give --measure "
                        "WHAT, e.g. --measure 'p2p-bandwidth 0 1' (p2psim "
                        "sweep --help lists them)\n");
        return CLI_BAD_INPUT;
    }
    if (cli_trace_check(&o->tr, "sweep") < 0) {
        return CLI_BAD_INPUT;
    }
    s->trace = cli_trace_any(&o->tr);
    if (s->trace && cli_trace_setenv(&o->tr) < 0) {
        fprintf(stderr, "p2psim sweep: cannot set the environment\n");
        return CLI_FAIL;
    }
    return CLI_OK;
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep s = { .fidelity = "tlp", .jobs = 1 };
    struct sweep_opts o = { NULL, NULL, { 0 } };
    char cudart[4096];
    int rc = parse(argc, argv, &s, &o);
    if (rc == CLI_OK) {
        rc = sweep_mpi_begin(&s);
    }
    if (rc == CLI_OK) {
        rc = sweep_prepare(&s);
    }
    if (rc == CLI_OK && bwlat_find_cudart(cudart, sizeof(cudart)) < 0) {
        rc = CLI_FAIL;
    }
    if (rc == CLI_OK) {
        s.cudart = cudart;
        s.progress = isatty(STDERR_FILENO);
        rc = sweep_run(&s);
        /* Rank 0 writes what was measured, failed points as empty cells. */
        if (s.rank == 0 && (rc == CLI_OK || rc == CLI_FAIL)) {
            if (sweep_write_csv(&s, o.csv) < 0) {
                rc = CLI_FAIL;
            }
            if (o.plot && sweep_write_plot(&s, o.plot) < 0) {
                rc = CLI_FAIL;
            }
        }
    }
    sweep_free(&s);
    return rc < 0 ? CLI_OK : rc;
}
