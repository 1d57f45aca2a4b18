/*
 * tools/cmd_bench.c - `p2psim bench [FILE]`: the matrices of the CUDA
 * sample p2pBandwidthLatencyTest, measured on a simulated machine through
 * the CUDA runtime API (tools/bwlat.c, in a child process that loads the
 * CUDA shim), printed with the sample's headings and formats, and written
 * as CSV, JSON and a gnuplot heatmap on request.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/p2psim.h"
#include "tools/bwlat.h"
#include "tools/cli.h"
#include "tools/matrices.h"
#include "tools/trace_opts.h"

#define BENCH_DEFAULT_ELEMS 40000000    /* the sample's default: 160 MB */

static void bench_usage(FILE *f)
{
    fprintf(f,
        "usage: p2psim bench [FILE] [OPTIONS]\n\n"
        "Measure the matrices of the CUDA sample p2pBandwidthLatencyTest on a\n"
        "simulated machine, through the CUDA runtime API as the sample does:\n"
        "unidirectional and bidirectional bandwidth with P2P disabled and\n"
        "enabled, and latency (GPU and CPU) with P2P disabled and enabled.\n"
        "FILE is a machine file; without it, the built-in default machine.\n"
        "The output has the sample's headings and number formats.\n\n"
        "options:\n"
        "  --topology FILE     the machine file (the same as FILE)\n"
        "  --fidelity F        tlp (every packet; default) or flow (transfers\n"
        "                      as flows sharing links)\n"
        "  --set PATH=VALUE    override a value of the machine file, e.g.\n"
        "                      defaults.switch.latency=150ns (repeatable;\n"
        "                      paths: topologies/SCHEMA.md, \"Overrides\")\n"
        "  --p2p_read          also the P2P read matrices, as the sample's "
        "--p2p_read\n"
        "  --sm_copy           where P2P is enabled, copies by a kernel on the\n"
        "                      SMs (the sample's copyp2p) instead of the copy\n"
        "                      engines, as the sample's --sm_copy\n"
        "  --numElems N        ints per bandwidth buffer (default %d: 160 MB;\n"
        "                      smaller runs faster)\n"
        "  --jobs N            simulate N matrices at once, each in its own\n"
        "                      process (default 1; the same results, sooner\n"
        "                      on a machine with N cores)\n"
        "  --matrix NAME       only this matrix (repeatable), e.g.\n"
        "                      uni_p2p_enabled_GBps (names as in --csv)\n"
        "  --csv DIR           write DIR/NAME.csv for every matrix\n"
        "  --json FILE         write every matrix, the GPUs and the run as "
        "JSON\n"
        "  --png FILE          draw a heatmap of every matrix (needs "
        "gnuplot)\n\n"
        "matrix names:",
        BENCH_DEFAULT_ELEMS);
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        fprintf(f, "%s %s", m % 2 ? "" : "\n ", bwlat_matrices[m].name);
    }
    fprintf(f, "\n\nEach run happens in a child process that loads p2psim's "
               "CUDA runtime\n(libcudart.so.13, found as p2psim run finds "
               "it; P2PSIM_CUDART_DIR overrides).\n\n");
    cli_trace_usage(f, true);
}

/* The options of p2psim bench. */
struct bench_opts {
    const char *machine;
    const char *fidelity;
    char *overrides;            /* "path=value" lines, or NULL */
    bool p2p_read;
    bool sm_copy;
    int n_elems;
    unsigned jobs;              /* matrices simulated at once */
    unsigned only;              /* BWLAT_BIT()s of --matrix, 0: all */
    const char *csv, *json, *png;
    struct cli_trace tr;
};

static int parse(int argc, char **argv, struct bench_opts *o)
{
    static const struct option opts[] = {
        { "topology", required_argument, NULL, 't' },
        { "fidelity", required_argument, NULL, 'f' },
        { "set", required_argument, NULL, 's' },
        { "p2p_read", no_argument, NULL, 'r' },
        { "sm_copy", no_argument, NULL, 'k' },
        { "numElems", required_argument, NULL, 'n' },
        { "matrix", required_argument, NULL, 'm' },
        { "jobs", required_argument, NULL, 'J' },
        { "csv", required_argument, NULL, 'c' },
        { "json", required_argument, NULL, 'j' },
        { "png", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },
        CLI_TRACE_OPTIONS,
        CLI_TRACE_PLOT_OPTION,
        { NULL, 0, NULL, 0 },
    };
    int c, m;
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 't': o->machine = optarg; break;
        case 'f': o->fidelity = optarg; break;
        case 's':
            if (cli_add_override(&o->overrides, optarg) < 0) {
                return CLI_FAIL;
            }
            break;
        case 'r': o->p2p_read = true; break;
        case 'k': o->sm_copy = true; break;
        case 'n':
            o->n_elems = (int)strtol(optarg, &end, 10);
            if (*end || o->n_elems < 4) {
                fprintf(stderr, "p2psim bench: --numElems takes a count of "
                                "ints, at least 4, not '%s'\n", optarg);
                return CLI_BAD_INPUT;
            }
            break;
        case 'J':
            if (cli_parse_jobs("bench", optarg, 256, &o->jobs) < 0) {
                return CLI_BAD_INPUT;
            }
            break;
        case 'm':
            m = bwlat_matrix_find(optarg);
            if (m < 0) {
                fprintf(stderr, "p2psim bench: no matrix '%s' (p2psim bench "
                                "--help lists them)\n", optarg);
                return CLI_BAD_INPUT;
            }
            o->only |= BWLAT_BIT(m);
            break;
        case 'c': o->csv = optarg; break;
        case 'j': o->json = optarg; break;
        case 'p': o->png = optarg; break;
        case 'h': bench_usage(stdout); return -1;
        default:
            if (cli_trace_is_opt(c)) {
                cli_trace_opt(&o->tr, c, optarg);
                break;
            }
            bench_usage(stderr);
            return CLI_BAD_INPUT;
        }
    }
    if (argc - optind > 1 || (argc - optind == 1 && o->machine &&
                              strcmp(o->machine, argv[optind]) != 0)) {
        fprintf(stderr, "p2psim bench: one machine only (FILE or "
                        "--topology)\n");
        return CLI_BAD_INPUT;
    }
    if (optind < argc) {
        o->machine = argv[optind];
    }
    if (strcmp(o->fidelity, "tlp") != 0 && strcmp(o->fidelity, "flow") != 0) {
        fprintf(stderr, "p2psim bench: --fidelity is tlp or flow, not "
                        "'%s'\n", o->fidelity);
        return CLI_BAD_INPUT;
    }
    if (cli_trace_check(&o->tr, "bench") < 0) {
        return CLI_BAD_INPUT;
    }
    if (o->jobs > 1 && cli_trace_any(&o->tr)) {
        fprintf(stderr, "p2psim bench: --jobs with a trace option: the "
                        "processes would write the same files; trace with "
                        "--jobs 1\n");
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}

/* ---- several matrices at once (--jobs) ------------------------------------ */

/*
 * The groups of matrices that one process measures: each matrix alone,
 * except that a latency table's CPU half comes with its GPU half (the
 * sample measures both in one loop). Costliest first, so that a pool of
 * processes ends about together: bidirectional, then unidirectional,
 * then latency. Returns the number of groups.
 */
static unsigned bench_groups(unsigned set, unsigned *group)
{
    static const int order[] = {
        BWLAT_BIDIR_DISABLED, BWLAT_BIDIR_ENABLED, BWLAT_UNI_DISABLED,
        BWLAT_UNI_ENABLED, BWLAT_UNI_ENABLED_READ, BWLAT_LAT_DISABLED_GPU,
        BWLAT_LAT_ENABLED_GPU, BWLAT_LAT_ENABLED_READ_GPU,
        BWLAT_LAT_DISABLED_CPU, BWLAT_LAT_ENABLED_CPU,
        BWLAT_LAT_ENABLED_READ_CPU,
    };
    _Static_assert(sizeof(order) / sizeof(order[0]) == BWLAT_N_MATRICES,
                   "every matrix has its place");
    unsigned n = 0;
    for (unsigned k = 0; k < BWLAT_N_MATRICES; k++) {
        unsigned m = (unsigned)order[k];
        if (!(set & BWLAT_BIT(m))) {
            continue;
        }
        set &= ~BWLAT_BIT(m);
        group[n] = BWLAT_BIT(m);
        /* the CPU half follows its GPU half in enum order */
        if ((m == BWLAT_LAT_DISABLED_GPU || m == BWLAT_LAT_ENABLED_GPU ||
             m == BWLAT_LAT_ENABLED_READ_GPU) && (set & BWLAT_BIT(m + 1))) {
            group[n] |= BWLAT_BIT(m + 1);
            set &= ~BWLAT_BIT(m + 1);
        }
        n++;
    }
    return n;
}

struct bench_pool {
    const struct bwlat_request *rq;
    const unsigned *group;
    unsigned n_groups, n_done;
    bool progress;
    struct bwlat_result *out;   /* the merged result */
};

static int bench_start(size_t i, struct bwlat_job *j, void *arg)
{
    struct bench_pool *bp = arg;
    struct bwlat_request rq = *bp->rq;
    rq.matrices = bp->group[i];
    rq.progress = false;        /* the processes' lines would mix */
    return bwlat_job_start(j, &rq);
}

/* Move r's matrices (and, the first time, its GPUs) into bp->out. */
static void bench_done(size_t i, struct bwlat_job *j, void *arg)
{
    struct bench_pool *bp = arg;
    struct bwlat_result r, *out = bp->out;
    bwlat_job_finish(j, &r);
    if (r.status != 0) {
        if (out->status == 0) {
            out->status = r.status;
            memcpy(out->error, r.error, sizeof(out->error));
        }
    } else {
        if (!out->gpu) {
            out->n = r.n;
            out->gpu = r.gpu;
            out->can_access = r.can_access;
            r.gpu = NULL;
            r.can_access = NULL;
        }
        for (int m = 0; m < BWLAT_N_MATRICES; m++) {
            if ((bp->group[i] & BWLAT_BIT(m)) && r.m[m] && !out->m[m]) {
                out->m[m] = r.m[m];
                r.m[m] = NULL;
            }
        }
    }
    bwlat_result_free(&r);
    bp->n_done++;
    if (bp->progress) {
        int first = __builtin_ctz(bp->group[i]);
        fprintf(stderr, "p2psim bench: %u of %u: %s\n", bp->n_done,
                bp->n_groups, bwlat_matrices[first].name);
    }
}

/* bwlat_run for rq's matrices, up to jobs processes at once. */
static int bench_run(const struct bwlat_request *rq, unsigned jobs,
                     struct bwlat_result *out)
{
    memset(out, 0, sizeof(*out));
    unsigned group[BWLAT_N_MATRICES];
    struct bench_pool bp = {
        .rq = rq,
        .group = group,
        .n_groups = bench_groups(rq->matrices, group),
        .progress = rq->progress,
        .out = out,
    };
    if (bwlat_pool_run(bp.n_groups, jobs, bench_start, bench_done,
                       &bp) < 0 && out->status == 0) {
        out->status = 1;
        snprintf(out->error, sizeof(out->error),
                 "cannot run the measuring processes: %s", strerror(errno));
    }
    return out->status;
}

static int write_outputs(const struct bench_opts *o,
                         const struct bwlat_result *r,
                         const struct p2psim *p)
{
    int rc = CLI_OK;
    if (o->csv && mat_write_csv_dir(r, o->csv) < 0) {
        rc = CLI_FAIL;
    }
    if (o->json) {
        struct mat_meta meta = {
            .machine = p2psim_machine_name(p),
            .file = o->machine,
            .fidelity = o->fidelity,
            .overrides = o->overrides,
            .n_elems = o->n_elems,
        };
        if (mat_write_json(r, &meta, o->json) < 0) {
            rc = CLI_FAIL;
        }
    }
    if (o->png && mat_write_png(r, o->png) < 0) {
        rc = CLI_FAIL;
    }
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    struct bench_opts o = { .fidelity = "tlp", .jobs = 1,
                            .n_elems = BENCH_DEFAULT_ELEMS };
    int rc = parse(argc, argv, &o);
    if (rc != CLI_OK) {
        free(o.overrides);
        return rc < 0 ? CLI_OK : rc;
    }
    /* Load the machine here first: a bad file or override is reported as
     * file:line:column before anything runs. */
    struct p2psim_options popt = { .fidelity = o.fidelity,
                                   .overrides = o.overrides };
    struct p2psim *p = cli_open_opt(o.machine, &popt);
    char cudart[4096];
    if (!p || bwlat_find_cudart(cudart, sizeof(cudart)) < 0) {
        p2psim_close(p);
        free(o.overrides);
        return p ? CLI_FAIL : CLI_BAD_INPUT;
    }
    fprintf(stderr, "p2psim bench: %s, %u GPUs, fidelity %s, numElems %d\n",
            p2psim_machine_name(p), p2psim_gpu_count(p), o.fidelity,
            o.n_elems);
    struct bwlat_request rq = {
        .machine = o.machine,
        .fidelity = o.fidelity,
        .overrides = o.overrides,
        .cudart = cudart,
        .n_elems = o.n_elems,
        .sm_copy = o.sm_copy,
        .matrices = o.only ? o.only
                           : BWLAT_DEFAULT_SET |
                                 (o.p2p_read ? BWLAT_READ_SET : 0u),
        .progress = isatty(STDERR_FILENO),
        .trace = cli_trace_any(&o.tr),
    };
    if (rq.trace && cli_trace_setenv(&o.tr) < 0) {
        fprintf(stderr, "p2psim bench: cannot set the environment\n");
        rq.trace = false;
    }
    struct bwlat_result r;
    if ((o.jobs > 1 ? bench_run(&rq, o.jobs, &r) : bwlat_run(&rq, &r)) != 0) {
        fprintf(stderr, "p2psim bench: %s\n", r.error);
        rc = CLI_FAIL;
    } else {
        mat_print_sample(stdout, &r);
        fflush(stdout);
        rc = write_outputs(&o, &r, p);
        if (o.tr.plot && cli_trace_plot(o.tr.counters, o.tr.plot) < 0) {
            rc = CLI_FAIL;
        }
    }
    bwlat_result_free(&r);
    p2psim_close(p);
    free(o.overrides);
    return rc;
}
