/*
 * tools/cmd_replay.c - `p2psim replay [OPTIONS] FILE`: replay an API trace
 * (recorded with `p2psim run --record` or P2PSIM_RECORD, on a real GPU or
 * on the simulator) on a simulated machine, and report simulated against
 * recorded time per call kind and in total.
 *
 * The replay itself runs in a child process through the CUDA shim
 * (tools/replay.h has how pointers, streams and events are mapped). The
 * shim records the child's calls with their simulated times; this command
 * pairs them with the recorded calls and reports:
 *   - per call kind: the number of calls, the summed recorded time and
 *     the summed simulated time, their ratio, and the median of each;
 *   - all replayed calls together, and the elapsed time from the first
 *     replayed call's entry to the last one's exit.
 * Recorded time is the real time of each call (exit - entry, so for a
 * synchronizing call the wall time of the wait); for a trace recorded on
 * the simulator it is the simulated time recorded with it (--recorded
 * chooses).
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "machine/p2psim.h"
#include "sim/units.h"
#include "tools/bwlat.h"
#include "tools/cli.h"
#include "tools/replay.h"
#include "traces/api_trace.h"

#define REPLAY_USAGE "usage: p2psim replay [OPTIONS] FILE"

struct replay_opts {
    const char *file;
    const char *topology;
    const char *keep;           /* the replay's own API trace */
    long pid;                   /* 0: the first process of the trace */
    int recorded;               /* 'r' real, 's' sim, 0: from the trace */
    uint64_t host_memory;       /* cap on pageable stand-ins, bytes */
};

/* Durations of one call kind, ns. */
struct kind_stats {
    const char *name;
    size_t n, cap;
    double *rec, *sim;
    double rec_sum, sim_sum;
};

static void replay_usage(FILE *f)
{
    fprintf(f,
            REPLAY_USAGE "\n\n"
            "Replay an API trace (p2psim run --record FILE, or "
            "P2PSIM_RECORD=FILE)\non a simulated machine through p2psim's "
            "CUDA runtime, and compare the\nsimulated time of each call "
            "with the recorded one, per call kind and in\ntotal. Device "
            "pointers are mapped to new allocations, pageable host memory\n"
            "to stand-in buffers, streams and events by their recorded "
            "ids; kernel\nlaunches and registration are not replayed "
            "(a trace holds no kernel code).\n\n"
            "options:\n"
            "  --topology M     the machine: a machine file or a built-in "
            "name;\n"
            "                   default: $P2PSIM_TOPOLOGY, else the "
            "built-in default\n"
            "  --pid P          the process to replay in a trace of several "
            "(default:\n"
            "                   the first)\n"
            "  --recorded real|sim\n"
            "                   the recorded time to compare with: the real "
            "time of each\n"
            "                   call, or the simulated time recorded with it "
            "(default: sim\n"
            "                   for a trace recorded on the simulator, else "
            "real)\n"
            "  --keep FILE      keep the replay's own API trace in FILE\n"
            "  --host-memory SIZE\n"
            "                   the most the replay maps for stand-ins of "
            "the program's\n"
            "                   pageable host memory (default 16GiB; only "
            "the pages the\n"
            "                   calls touch are used)\n\n"
            "The trace format is traces/api-trace.md. Exit status: 0, 1 "
            "(the replay\nfailed), 2 (bad arguments, trace or machine).\n");
}

static int parse_opts(int argc, char **argv, struct replay_opts *o)
{
    static const struct option opts[] = {
        { "topology", required_argument, NULL, 't' },
        { "pid", required_argument, NULL, 'p' },
        { "recorded", required_argument, NULL, 'r' },
        { "keep", required_argument, NULL, 'k' },
        { "host-memory", required_argument, NULL, 'm' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 't': o->topology = optarg; break;
        case 'p': {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || errno || v <= 0 || v > INT_MAX) {
                fprintf(stderr, "p2psim replay: --pid %s: a process id "
                                "(1 to %d)\n", optarg, INT_MAX);
                return -1;
            }
            o->pid = v;
            break;
        }
        case 'm': {
            char why[200];
            if (sim_parse_size(optarg, &o->host_memory, why,
                               sizeof(why)) < 0 || o->host_memory == 0) {
                fprintf(stderr, "p2psim replay: --host-memory %s: a size "
                                "above 0 with a unit, e.g. 64GiB\n", optarg);
                return -1;
            }
            break;
        }
        case 'k': o->keep = optarg; break;
        case 'r':
            if (strcmp(optarg, "real") != 0 && strcmp(optarg, "sim") != 0) {
                fprintf(stderr, "p2psim replay: --recorded real or sim\n");
                return -1;
            }
            o->recorded = optarg[0];
            break;
        case 'h': replay_usage(stdout); return 1;
        default:
            fprintf(stderr, "%s\n", REPLAY_USAGE);
            return -1;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "p2psim replay: one trace file (%s)\n", REPLAY_USAGE);
        return -1;
    }
    o->file = argv[optind];
    return 0;
}

/* ---- choosing the calls ------------------------------------------------------- */

static int by_seq(const void *a, const void *b)
{
    const struct trace_api_call *x = *(const struct trace_api_call *const *)a;
    const struct trace_api_call *y = *(const struct trace_api_call *const *)b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The program's own calls (depth 0) of process pid, in the order they
 * were entered; into *out (allocated). Returns the count.
 */
static size_t select_calls(const struct trace_api_file *f, long pid,
                           const struct trace_api_call ***out)
{
    const struct trace_api_call **v = calloc(f->n_calls ? f->n_calls : 1,
                                             sizeof(*v));
    size_t n = 0;
    if (!v) {
        *out = NULL;
        return 0;
    }
    for (size_t i = 0; i < f->n_calls; i++) {
        if (f->calls[i].pid == pid && f->calls[i].depth == 0) {
            v[n++] = &f->calls[i];
        }
    }
    qsort(v, n, sizeof(*v), by_seq);
    *out = v;
    return n;
}

/* ---- the child ------------------------------------------------------------------ */

static int make_temp(char *path, size_t size, const char *what)
{
    const char *tmpdir = getenv("TMPDIR");
    snprintf(path, size, "%s/p2psim-replay-%s-XXXXXX",
             tmpdir && *tmpdir ? tmpdir : "/tmp", what);
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, "p2psim replay: cannot create %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

static int run_child(const struct replay_request *rq)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("p2psim replay: fork");
        return -1;
    }
    if (pid == 0) {
        /* Whatever the runtime prints goes to stderr. */
        dup2(STDERR_FILENO, STDOUT_FILENO);
        replay_child(rq);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            perror("p2psim replay: waitpid");
            return -1;
        }
    }
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "p2psim replay: the replay was killed by signal %d "
                        "(%s)\n", WTERMSIG(status),
                strsignal(WTERMSIG(status)));
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "p2psim replay: the replay failed\n");
        return -1;
    }
    return 0;
}

/* ---- the report ------------------------------------------------------------------ */

static struct kind_stats *kind_get(struct kind_stats **kinds, size_t *n,
                                   const char *name)
{
    for (size_t i = 0; i < *n; i++) {
        if (strcmp((*kinds)[i].name, name) == 0) {
            return &(*kinds)[i];
        }
    }
    struct kind_stats *t = realloc(*kinds, (*n + 1) * sizeof(*t));
    if (!t) {
        return NULL;
    }
    *kinds = t;
    memset(&t[*n], 0, sizeof(t[*n]));
    t[*n].name = name;
    return &t[(*n)++];
}

static void kind_add(struct kind_stats *k, double rec_ns, double sim_ns)
{
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 16;
        double *r = realloc(k->rec, cap * sizeof(*r));
        if (r) {
            k->rec = r;
        }
        double *s = realloc(k->sim, cap * sizeof(*s));
        if (s) {
            k->sim = s;
        }
        if (!r || !s) {
            return;
        }
        k->cap = cap;
    }
    k->rec[k->n] = rec_ns;
    k->sim[k->n] = sim_ns;
    k->n++;
    k->rec_sum += rec_ns;
    k->sim_sum += sim_ns;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    if (n == 0) {
        return 0;
    }
    qsort(v, n, sizeof(*v), dbl_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int by_rec_sum(const void *a, const void *b)
{
    const struct kind_stats *x = a, *y = b;
    return x->rec_sum > y->rec_sum ? -1 : x->rec_sum < y->rec_sum;
}

static void print_row(const char *name, size_t n, double rec_ns,
                      double sim_ns, double rec_med_ns, double sim_med_ns,
                      bool medians)
{
    char ratio[16] = "      -";
    if (rec_ns > 0) {
        snprintf(ratio, sizeof(ratio), "%7.3f", sim_ns / rec_ns);
    }
    printf("%-32s %7zu %13.3f %13.3f %s", name, n, rec_ns / 1e6,
           sim_ns / 1e6, ratio);
    if (medians) {
        printf(" %13.3f %13.3f", rec_med_ns / 1e3, sim_med_ns / 1e3);
    }
    printf("\n");
}

/* Recorded duration of c, ns: real, or simulated (ps) when use_sim. */
static double rec_ns(const struct trace_api_call *c, bool use_sim)
{
    if (use_sim) {
        return (double)(c->sim1_ps - c->sim0_ps) / 1e3;
    }
    return (double)(c->t1_ns - c->t0_ns);
}

struct pairs {
    const struct trace_api_call **rec;  /* recorded */
    const struct trace_api_call **rep;  /* the replay's */
    size_t n;
};

/*
 * Pair the replay's calls (its own trace) with the recorded ones through
 * the map the child wrote: a line "THREAD INDEX" per call it made, THREAD
 * its Linux thread id, in the order each thread made them. The replay's
 * trace has the same thread ids (ostid), and a thread's calls in seq
 * order are in the order it made them. Returns 0, or -1 when they
 * disagree.
 */
struct map_line {
    long ostid;
    size_t idx;
};

struct map_cursor {
    long ostid;
    size_t next;                /* the next map line to look at */
};

static int pair_calls(const struct trace_api_call *const *sel,
                      size_t n_sel, const struct trace_api_file *mine,
                      const char *map_path, struct pairs *p)
{
    const struct trace_api_call **own;
    long pid = mine->n_calls ? mine->calls[0].pid : 0;
    size_t n_own = select_calls(mine, pid, &own);
    FILE *m = fopen(map_path, "r");
    struct map_line *lines = calloc(n_own + 1, sizeof(*lines));
    struct map_cursor *cur = calloc(n_own + 1, sizeof(*cur));
    size_t n_lines = 0, n_cur = 0;
    p->rec = calloc(n_own + 1, sizeof(*p->rec));
    p->rep = calloc(n_own + 1, sizeof(*p->rep));
    p->n = 0;
    int rc = m && lines && cur && p->rec && p->rep && own ? 0 : -1;
    long t;
    size_t idx;
    while (rc == 0 && fscanf(m, "%ld %zu", &t, &idx) == 2) {
        if (n_lines == n_own || idx >= n_sel) {
            rc = -1;
            break;
        }
        lines[n_lines++] = (struct map_line){ t, idx };
    }
    for (size_t i = 0; rc == 0 && i < n_own; i++) {
        size_t c = 0;
        while (c < n_cur && cur[c].ostid != own[i]->ostid) {
            c++;
        }
        if (c == n_cur) {
            cur[n_cur++] = (struct map_cursor){ own[i]->ostid, 0 };
        }
        size_t k = cur[c].next;
        while (k < n_lines && lines[k].ostid != own[i]->ostid) {
            k++;
        }
        if (k == n_lines ||
            strcmp(sel[lines[k].idx]->name, own[i]->name) != 0) {
            rc = -1;
            break;
        }
        cur[c].next = k + 1;
        p->rec[p->n] = sel[lines[k].idx];
        p->rep[p->n] = own[i];
        p->n++;
    }
    if (rc < 0 || p->n != n_lines) {
        fprintf(stderr, "p2psim replay: the replay's trace does not match "
                        "the calls it made (%zu paired of %zu)\n", p->n,
                n_lines);
        rc = -1;
    }
    if (m) {
        fclose(m);
    }
    free(lines);
    free(cur);
    free(own);
    return rc;
}

/* A call name not replayed: its first call and how many. */
struct skipped_kind {
    const struct trace_api_call *first;
    size_t n;
};

/* sel is in seq order, so seq orders first appearances. */
static int by_name_then_seq(const void *a, const void *b)
{
    const struct trace_api_call *x = *(const struct trace_api_call *const *)a;
    const struct trace_api_call *y = *(const struct trace_api_call *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_first_seq(const void *a, const void *b)
{
    const struct skipped_kind *x = a, *y = b;
    return x->first->seq < y->first->seq ? -1 : x->first->seq > y->first->seq;
}

static void report(const struct replay_opts *o, const char *machine,
                   const struct trace_api_header *h, long pid,
                   const struct trace_api_call *const *sel, size_t n_sel,
                   const struct pairs *p, bool use_sim)
{
    printf("p2psim replay: %s: %zu calls of %s (pid %ld, recorded on the "
           "%s backend), replayed on %s\n",
           o->file, n_sel, h && h->program[0] ? h->program : "a program",
           pid, h && h->backend[0] ? h->backend : "unknown", machine);
    /* What was not replayed, by name, in order of first appearance:
     * sorted by name (a made-up trace may hold a million names, which a
     * linear search per call made quadratic), then by first index. */
    const struct trace_api_call **skip = calloc(n_sel + 1, sizeof(*skip));
    size_t n_skipped = 0;
    for (size_t i = 0; skip && i < n_sel; i++) {
        if (!replay_is_supported(sel[i]->name)) {
            skip[n_skipped++] = sel[i];
        }
    }
    if (n_skipped) {
        qsort(skip, n_skipped, sizeof(*skip), by_name_then_seq);
        struct skipped_kind *kinds = calloc(n_skipped, sizeof(*kinds));
        size_t n_kinds = 0;
        for (size_t i = 0; kinds && i < n_skipped; i++) {
            if (i == 0 || strcmp(skip[i]->name, skip[i - 1]->name) != 0) {
                kinds[n_kinds++] = (struct skipped_kind){ skip[i], 0 };
            }
            kinds[n_kinds - 1].n++;
        }
        qsort(kinds, n_kinds, sizeof(*kinds), by_first_seq);
        printf("not replayed: %zu (", n_skipped);
        for (size_t i = 0; i < n_kinds; i++) {
            printf("%s%s %zu", i ? ", " : "", kinds[i].first->name,
                   kinds[i].n);
        }
        printf(")\n");
        free(kinds);
    }
    free(skip);
    printf("recorded: %s; simulated: the calling thread's simulated "
           "clock (exit - entry)\n\n",
           use_sim ? "the simulated time recorded with each call"
                   : "the real time of each call (exit - entry)");

    struct kind_stats *kinds = NULL;
    size_t n_kinds = 0;
    double *all_rec = calloc(p->n + 1, sizeof(double));
    double *all_sim = calloc(p->n + 1, sizeof(double));
    double rec_sum = 0, sim_sum = 0;
    size_t n_timed = 0;
    uint64_t rec_lo = UINT64_MAX, rec_hi = 0;
    int64_t sim_lo = INT64_MAX, sim_hi = 0;
    for (size_t i = 0; i < p->n; i++) {
        const struct trace_api_call *a = p->rec[i], *b = p->rep[i];
        if (!b->has_sim || (use_sim && !a->has_sim)) {
            continue;
        }
        double r = rec_ns(a, use_sim);
        double s = (double)(b->sim1_ps - b->sim0_ps) / 1e3;
        struct kind_stats *k = kind_get(&kinds, &n_kinds, a->name);
        if (k) {
            kind_add(k, r, s);
        }
        if (all_rec && all_sim) {
            all_rec[n_timed] = r;
            all_sim[n_timed] = s;
        }
        n_timed++;
        rec_sum += r;
        sim_sum += s;
        uint64_t r0 = use_sim ? (uint64_t)a->sim0_ps : a->t0_ns;
        uint64_t r1 = use_sim ? (uint64_t)a->sim1_ps : a->t1_ns;
        rec_lo = r0 < rec_lo ? r0 : rec_lo;
        rec_hi = r1 > rec_hi ? r1 : rec_hi;
        sim_lo = b->sim0_ps < sim_lo ? b->sim0_ps : sim_lo;
        sim_hi = b->sim1_ps > sim_hi ? b->sim1_ps : sim_hi;
    }
    qsort(kinds, n_kinds, sizeof(*kinds), by_rec_sum);
    printf("%-32s %7s %13s %13s %7s %13s %13s\n", "call", "calls",
           "recorded ms", "simulated ms", "sim/rec", "rec median us",
           "sim median us");
    for (size_t i = 0; i < n_kinds; i++) {
        struct kind_stats *k = &kinds[i];
        print_row(k->name, k->n, k->rec_sum, k->sim_sum,
                  median(k->rec, k->n), median(k->sim, k->n), true);
        free(k->rec);
        free(k->sim);
    }
    print_row("all replayed calls", n_timed, rec_sum, sim_sum,
              all_rec ? median(all_rec, n_timed) : 0,
              all_sim ? median(all_sim, n_timed) : 0, true);
    if (rec_hi > 0) {
        double span_rec = (double)(rec_hi - rec_lo) / (use_sim ? 1e3 : 1);
        double span_sim = (double)(sim_hi - sim_lo) / 1e3;
        print_row("elapsed (first entry, last exit)", n_timed, span_rec,
                  span_sim, 0, 0, false);
    }
    free(kinds);
    free(all_rec);
    free(all_sim);
}

/* Replayed calls whose result differed: counted again from the traces. */
static size_t count_mismatches(const struct pairs *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n; i++) {
        int64_t a, b;
        if (trace_api_ret_i64(p->rec[i], &a) &&
            trace_api_ret_i64(p->rep[i], &b) && a != b) {
            n++;
        }
    }
    return n;
}

int cmd_replay(int argc, char **argv)
{
    struct replay_opts o = { .host_memory = REPLAY_HOST_MEMORY_DEFAULT };
    int rc = parse_opts(argc, argv, &o);
    if (rc != 0) {
        return rc > 0 ? CLI_OK : CLI_BAD_INPUT;
    }
    char err[600];
    struct trace_api_file f;
    if (trace_api_read(o.file, &f, err, sizeof(err)) < 0) {
        fprintf(stderr, "p2psim replay: %s\n", err);
        trace_api_free(&f);
        return CLI_BAD_INPUT;
    }
    long pid = o.pid ? o.pid
               : f.n_headers ? f.headers[0].pid
               : f.n_calls   ? f.calls[0].pid
                             : 0;
    const struct trace_api_header *h = NULL;
    for (size_t i = 0; i < f.n_headers; i++) {
        if (f.headers[i].pid == pid) {
            h = &f.headers[i];
            break;
        }
    }
    const struct trace_api_call **sel;
    size_t n_sel = select_calls(&f, pid, &sel);
    rc = CLI_BAD_INPUT;
    if (n_sel == 0) {
        fprintf(stderr, "p2psim replay: %s has no call of process %ld\n",
                o.file, pid);
        goto out_trace;
    }
    bool has_sim = true;
    for (size_t i = 0; i < n_sel; i++) {
        has_sim = has_sim && sel[i]->has_sim;
    }
    bool use_sim = o.recorded ? o.recorded == 's'
                              : has_sim && h && strcmp(h->backend, "sim") == 0;
    if (use_sim && !has_sim) {
        fprintf(stderr, "p2psim replay: %s has no simulated times (it was "
                        "recorded on a real GPU): use --recorded real\n",
                o.file);
        goto out_trace;
    }

    struct replay_request check = {
        .calls = sel, .n_calls = n_sel, .host_memory = o.host_memory,
    };
    if (replay_check(&check, err, sizeof(err)) < 0) {
        bool at_line = strncmp(err, "line ", 5) == 0;
        fprintf(stderr, "p2psim replay: %s:%s%s\n", o.file,
                at_line ? "" : " ", at_line ? err + 5 : err);
        goto out_trace;
    }

    const char *machine = o.topology ? o.topology : getenv("P2PSIM_TOPOLOGY");
    if (machine && !*machine) {
        machine = NULL;
    }
    struct p2psim *p = cli_open(machine);
    if (!p) {
        goto out_trace;
    }
    char machine_name[256];
    snprintf(machine_name, sizeof(machine_name), "%s",
             p2psim_machine_name(p));
    p2psim_close(p);

    rc = CLI_FAIL;
    char cudart[PATH_MAX];
    if (bwlat_find_cudart(cudart, sizeof(cudart)) < 0) {
        goto out_trace;
    }
    char record[PATH_MAX], map[PATH_MAX];
    if (make_temp(map, sizeof(map), "map") < 0) {
        goto out_trace;
    }
    if (o.keep) {
        snprintf(record, sizeof(record), "%s", o.keep);
        FILE *t = fopen(record, "w");
        if (!t) {
            fprintf(stderr, "p2psim replay: cannot write %s: %s\n", record,
                    strerror(errno));
            goto out_map;
        }
        fclose(t);
    } else if (make_temp(record, sizeof(record), "trace") < 0) {
        goto out_map;
    }
    struct replay_request rq = {
        .calls = sel,
        .n_calls = n_sel,
        .machine = machine,
        .cudart = cudart,
        .record = record,
        .map = map,
        .err_fd = STDERR_FILENO,
        .host_memory = o.host_memory,
    };
    if (run_child(&rq) < 0) {
        goto out_record;
    }
    struct trace_api_file mine;
    if (trace_api_read(record, &mine, err, sizeof(err)) < 0) {
        fprintf(stderr, "p2psim replay: the replay's trace: %s\n", err);
        trace_api_free(&mine);
        goto out_record;
    }
    struct pairs pr;
    if (pair_calls(sel, n_sel, &mine, map, &pr) == 0) {
        report(&o, machine_name, h, pid, sel, n_sel, &pr, use_sim);
        printf("\nreplayed calls whose result differs from the recording: "
               "%zu\n", count_mismatches(&pr));
        rc = CLI_OK;
    }
    free(pr.rec);
    free(pr.rep);
    trace_api_free(&mine);
out_record:
    if (!o.keep) {
        unlink(record);
    }
out_map:
    unlink(map);
out_trace:
    free(sel);
    trace_api_free(&f);
    return rc;
}
