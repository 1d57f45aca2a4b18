/*
 * tools/cmd_compare.c - `p2psim compare [OPTIONS] [--] [PROGRAM ARGS...]`:
 * run a CUDA program on the real GPU and on a simulated machine, and
 * print both results side by side with their ratio.
 *
 * The two runs are `p2psim run --real --quiet -- PROGRAM` (p2psim's
 * runtime forwarding every call to NVIDIA's, cuda/passthrough/) and
 * `p2psim run --quiet --topology M -- PROGRAM`, each with its standard
 * output captured (what the program prints on stderr passes through).
 * --real-from takes the real run's output from a file instead, so a
 * measurement made once on a GPU machine can be compared again offline.
 *
 * Reading the outputs:
 *   - copy_sweep (tests/programs/copy_sweep.c, the default program): its
 *     fixed lines "copy DIR BYTES B X GB/s Y us" and "latency DIR 4 B Y us"
 *     are matched by direction and size; the table gives both values and
 *     sim/real (of the rate, taken from the times, which carry more
 *     digits; of the time for latencies), and a summary per direction
 *     (latencies as latH2D, ...) counts the sizes within the bounds of
 *     issue 9 (|sim/real - 1| at most 10% for copies of 1 MB and more,
 *     25% below);
 *   - any other program: line by line; where the two lines read the same
 *     once their numbers are taken out, the numbers are printed with their
 *     ratios, and other lines as they are.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/cli.h"

#define COMPARE_USAGE "usage: p2psim compare [OPTIONS] [--] [PROGRAM [ARGS...]]"
#define COMPARE_DEFAULT_MACHINE "h200-x1"
#define COMPARE_BIG_BYTES ((uint64_t)1 << 20)   /* 1 MB: the 10% bound */
#define COMPARE_BIG_BOUND 0.10
#define COMPARE_SMALL_BOUND 0.25
#define COMPARE_MAX_NUMS 64

struct compare_opts {
    const char *topology;
    const char *real_from;
    const char *save;
};

/* One line of copy_sweep. */
struct sweep_point {
    char dir[8];
    uint64_t bytes;
    bool latency;
    double gbps, us;
};

static void compare_usage(FILE *f)
{
    fprintf(f,
            COMPARE_USAGE "\n\n"
            "Run PROGRAM on the real GPU (p2psim run --real: p2psim's "
            "runtime forwarding\nevery call to NVIDIA's) and on a simulated "
            "machine (p2psim run), and print\nthe two results side by side "
            "with their ratio (simulated / real).\n\n"
            "PROGRAM defaults to copy_sweep (tests/programs/copy_sweep in "
            "the build tree):\nhost-to-device, device-to-host and "
            "device-to-device copies from 4 B to\n256 MB and the latency of "
            "a small copy. Its lines are matched by direction\nand size; "
            "any other program's output is compared line by line.\n\n"
            "options:\n"
            "  --topology M      the simulated machine (default: "
            COMPARE_DEFAULT_MACHINE ")\n"
            "  --real-from FILE  the real run's output, saved earlier "
            "(--save), instead\n"
            "                    of running on a GPU\n"
            "  --save PREFIX     write the outputs to PREFIX.real.txt and "
            "PREFIX.sim.txt\n\n"
            "Environment: P2PSIM_REAL_CUDART, the path of NVIDIA's "
            "libcudart.so.13 when\nit is not found in the usual places. "
            "Exit status: 0, 1 (a run failed),\n2 (bad arguments).\n");
}

static int parse_opts(int argc, char **argv, struct compare_opts *o)
{
    static const struct option opts[] = {
        { "topology", required_argument, NULL, 't' },
        { "real-from", required_argument, NULL, 'r' },
        { "save", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        switch (c) {
        case 't': o->topology = optarg; break;
        case 'r': o->real_from = optarg; break;
        case 's': o->save = optarg; break;
        case 'h': compare_usage(stdout); return 1;
        default:
            fprintf(stderr, "%s\n", COMPARE_USAGE);
            return -1;
        }
    }
    return 0;
}

static double dabs(double x)
{
    return x < 0 ? -x : x;
}

/* ---- running ------------------------------------------------------------------- */

/* This binary's folder (tools/, or tools/.libs behind a libtool wrapper). */
static bool self_path(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n <= 0) {
        return false;
    }
    out[n] = '\0';
    return true;
}

/* copy_sweep in the build tree this binary belongs to. */
static bool find_copy_sweep(char *out, size_t size)
{
    static const char *const rel[] = {
        "/../tests/programs/copy_sweep",
        "/../../tests/programs/copy_sweep",
    };
    char exe[PATH_MAX];
    if (!self_path(exe, sizeof(exe))) {
        return false;
    }
    char *slash = strrchr(exe, '/');
    if (!slash) {
        return false;
    }
    *slash = '\0';
    for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof(path), "%s%s", exe, rel[i]);
        if (access(path, X_OK) == 0 && realpath(path, out) &&
            strlen(out) < size) {
            return true;
        }
    }
    return false;
}

/* Run argv with its standard output into *out (allocated). Returns the
 * exit status (128+N for signal N), or -1 if it could not run. */
static int capture(char **argv, char **out)
{
    int p[2];
    *out = NULL;
    if (pipe(p) < 0) {
        perror("p2psim compare: pipe");
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("p2psim compare: fork");
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], STDOUT_FILENO);
        close(p[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    size_t len = 0, cap = 65536;
    char *buf = malloc(cap);
    for (;;) {
        if (buf && len + 1 >= cap) {
            char *t = realloc(buf, cap * 2);
            if (!t) {
                free(buf);
                buf = NULL;
            } else {
                buf = t;
                cap *= 2;
            }
        }
        char sink[4096];
        ssize_t n = buf ? read(p[0], buf + len, cap - len - 1)
                        : read(p[0], sink, sizeof(sink));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        if (buf) {
            len += (size_t)n;
        }
    }
    close(p[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            free(buf);
            return -1;
        }
    }
    if (buf) {
        buf[len] = '\0';
    }
    *out = buf;
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* One run: `p2psim run [--real | --topology M] --quiet -- PROGRAM...`. */
static int run_once(const char *self, bool real, const char *machine,
                    char **prog, char **out)
{
    size_t n = 0;
    while (prog[n]) {
        n++;
    }
    char **argv = calloc(n + 8, sizeof(*argv));
    if (!argv) {
        return -1;
    }
    size_t k = 0;
    argv[k++] = (char *)self;
    argv[k++] = "run";
    argv[k++] = "--quiet";
    if (real) {
        argv[k++] = "--real";
    } else {
        argv[k++] = "--topology";
        argv[k++] = (char *)machine;
    }
    argv[k++] = "--";
    for (size_t i = 0; i < n; i++) {
        argv[k++] = prog[i];
    }
    argv[k] = NULL;
    fprintf(stderr, "p2psim compare: running %s %s\n", prog[0],
            real ? "on the real GPU" : "on the simulated machine");
    int rc = capture(argv, out);
    free(argv);
    return rc;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "p2psim compare: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t len = 0, cap = 65536;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 >= cap) {
            char *t = realloc(buf, cap * 2);
            if (!t) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = t;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        buf[len] = '\0';
    }
    return buf;
}

static void save(const char *prefix, const char *what, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s.%s.txt", prefix, what);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "p2psim compare: cannot write %s\n", path);
        return;
    }
    fprintf(stderr, "p2psim compare: wrote %s\n", path);
}

/* ---- copy_sweep's lines --------------------------------------------------------- */

/* The copy_sweep lines of text; *n of them. */
static struct sweep_point *sweep_parse(const char *text, size_t *n)
{
    size_t cap = 64;
    struct sweep_point *v = malloc(cap * sizeof(*v));
    *n = 0;
    for (const char *l = text; v && l && *l;) {
        const char *nl = strchr(l, '\n');
        char line[256];
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        snprintf(line, sizeof(line), "%.*s", (int)(len < 255 ? len : 255), l);
        l = nl ? nl + 1 : NULL;
        struct sweep_point p = { .latency = false };
        unsigned long long bytes;
        if (sscanf(line, "copy %7s %llu B %lf GB/s %lf us", p.dir, &bytes,
                   &p.gbps, &p.us) == 4) {
            p.bytes = bytes;
        } else if (sscanf(line, "latency %7s %llu B %lf us", p.dir, &bytes,
                          &p.us) == 3) {
            p.bytes = bytes;
            p.latency = true;
        } else {
            continue;
        }
        if (*n == cap) {
            cap *= 2;
            struct sweep_point *t = realloc(v, cap * sizeof(*v));
            if (!t) {
                break;
            }
            v = t;
        }
        v[(*n)++] = p;
    }
    return v;
}

static const struct sweep_point *sweep_find(const struct sweep_point *v,
                                            size_t n,
                                            const struct sweep_point *p)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].latency == p->latency && v[i].bytes == p->bytes &&
            strcmp(v[i].dir, p->dir) == 0) {
            return &v[i];
        }
    }
    return NULL;
}

/* Per direction: sizes within the bound, and the worst ratio. */
struct sweep_verdict {
    char dir[8];
    unsigned n, within;
    double worst;               /* sim/real farthest from 1 */
    uint64_t worst_bytes;
};

static void verdict_add(struct sweep_verdict *v, size_t *n_v,
                        const char *dir, uint64_t bytes, double ratio)
{
    size_t i = 0;
    while (i < *n_v && strcmp(v[i].dir, dir) != 0) {
        i++;
    }
    if (i == *n_v) {
        if (*n_v == 8) {
            return;
        }
        memset(&v[i], 0, sizeof(v[i]));
        snprintf(v[i].dir, sizeof(v[i].dir), "%s", dir);
        v[i].worst = ratio;
        v[i].worst_bytes = bytes;
        (*n_v)++;
    }
    double bound = bytes >= COMPARE_BIG_BYTES ? COMPARE_BIG_BOUND
                                              : COMPARE_SMALL_BOUND;
    v[i].n++;
    v[i].within += dabs(ratio - 1) <= bound;
    if (dabs(ratio - 1) > dabs(v[i].worst - 1)) {
        v[i].worst = ratio;
        v[i].worst_bytes = bytes;
    }
}

static void compare_sweep(const struct sweep_point *real, size_t n_real,
                          const struct sweep_point *sim, size_t n_sim)
{
    struct sweep_verdict v[8];
    size_t n_v = 0;
    printf("%-8s %10s %11s %11s %9s %11s %11s\n", "copy", "bytes",
           "real GB/s", "sim GB/s", "sim/real", "real us", "sim us");
    for (size_t i = 0; i < n_real; i++) {
        const struct sweep_point *r = &real[i];
        const struct sweep_point *s = sweep_find(sim, n_sim, r);
        if (!s) {
            continue;
        }
        if (r->latency) {
            double ratio = r->us > 0 ? s->us / r->us : NAN;
            printf("%-8s %10llu %11s %11s %9.3f %11.3f %11.3f\n", "latency",
                   (unsigned long long)r->bytes, r->dir, "", ratio, r->us,
                   s->us);
            if (!isnan(ratio)) {
                char name[8];
                snprintf(name, sizeof(name), "lat%s", r->dir);
                verdict_add(v, &n_v, name, r->bytes, ratio);
            }
            continue;
        }
        /* From the times, which the program prints with more digits than
         * the rates of small copies (0.001 GB/s). */
        double ratio = s->us > 0 ? r->us / s->us : NAN;
        printf("%-8s %10llu %11.3f %11.3f %9.3f %11.3f %11.3f\n", r->dir,
               (unsigned long long)r->bytes, r->gbps, s->gbps, ratio, r->us,
               s->us);
        if (!isnan(ratio)) {
            verdict_add(v, &n_v, r->dir, r->bytes, ratio);
        }
    }
    printf("\nwithin bounds (|sim/real - 1| <= %.0f%% from 1 MB, <= %.0f%% "
           "below):\n", 100 * COMPARE_BIG_BOUND, 100 * COMPARE_SMALL_BOUND);
    for (size_t i = 0; i < n_v; i++) {
        printf("  %-6s %u of %u sizes; farthest: sim/real %.3f at %llu B\n",
               v[i].dir, v[i].within, v[i].n, v[i].worst,
               (unsigned long long)v[i].worst_bytes);
    }
}

/* ---- any program: line by line ------------------------------------------------- */

/* The numbers of line into nums (at most COMPARE_MAX_NUMS), and the line
 * with each number replaced by '#' into skel. */
static size_t line_numbers(const char *line, size_t len, double *nums,
                           char *skel, size_t skel_size)
{
    size_t n = 0, o = 0;
    for (size_t i = 0; i < len && o + 2 < skel_size;) {
        char *end;
        bool start = (line[i] >= '0' && line[i] <= '9') ||
                     ((line[i] == '-' || line[i] == '.') && i + 1 < len &&
                      line[i + 1] >= '0' && line[i + 1] <= '9');
        /* Not inside a word or a number ("H200", "sm_90"). */
        bool word = i > 0 && ((line[i - 1] >= 'A' && line[i - 1] <= 'Z') ||
                              (line[i - 1] >= 'a' && line[i - 1] <= 'z') ||
                              (line[i - 1] >= '0' && line[i - 1] <= '9') ||
                              line[i - 1] == '_' || line[i - 1] == '.');
        if (start && !word) {
            double d = strtod(line + i, &end);
            if (end > line + i && (size_t)(end - line) <= len) {
                if (n < COMPARE_MAX_NUMS) {
                    nums[n++] = d;
                }
                skel[o++] = '#';
                i = (size_t)(end - line);
                continue;
            }
        }
        skel[o++] = line[i++];
    }
    skel[o] = '\0';
    return n;
}

static void compare_lines(const char *real, const char *sim)
{
    const char *a = real, *b = sim;
    unsigned line = 0;
    while ((a && *a) || (b && *b)) {
        line++;
        const char *na = a ? strchr(a, '\n') : NULL;
        const char *nb = b ? strchr(b, '\n') : NULL;
        size_t la = a ? (na ? (size_t)(na - a) : strlen(a)) : 0;
        size_t lb = b ? (nb ? (size_t)(nb - b) : strlen(b)) : 0;
        double xa[COMPARE_MAX_NUMS], xb[COMPARE_MAX_NUMS];
        char sa[1024], sb[1024];
        size_t ka = a ? line_numbers(a, la, xa, sa, sizeof(sa)) : 0;
        size_t kb = b ? line_numbers(b, lb, xb, sb, sizeof(sb)) : 0;
        if (a && b && ka > 0 && ka == kb && strcmp(sa, sb) == 0 &&
            memcmp(xa, xb, ka * sizeof(double)) != 0) {
            printf("%.*s\n    sim:     ", (int)la, a);
            for (size_t i = 0; i < kb; i++) {
                printf(" %g", xb[i]);
            }
            printf("\n    sim/real:");
            for (size_t i = 0; i < ka; i++) {
                if (xa[i] != 0) {
                    printf(" %.3f", xb[i] / xa[i]);
                } else {
                    printf(" %s", xb[i] == 0 ? "=" : "-");
                }
            }
            printf("\n");
        } else if (a && b && la == lb && memcmp(a, b, la) == 0) {
            printf("%.*s\n", (int)la, a);
        } else {
            if (a) {
                printf("real %4u| %.*s\n", line, (int)la, a);
            }
            if (b) {
                printf("sim  %4u| %.*s\n", line, (int)lb, b);
            }
        }
        a = na ? na + 1 : NULL;
        b = nb ? nb + 1 : NULL;
    }
}

/* ---- the command ---------------------------------------------------------------- */

int cmd_compare(int argc, char **argv)
{
    struct compare_opts o = { 0 };
    int rc = parse_opts(argc, argv, &o);
    if (rc != 0) {
        return rc > 0 ? CLI_OK : CLI_BAD_INPUT;
    }
    char **prog = argv + optind;
    char sweep[PATH_MAX];
    char *default_prog[] = { sweep, NULL };
    if (!*prog) {
        if (!find_copy_sweep(sweep, sizeof(sweep))) {
            fprintf(stderr, "p2psim compare: copy_sweep is not built next "
                            "to this p2psim (tests/programs/copy_sweep); "
                            "build it (make) or name a PROGRAM\n");
            return CLI_BAD_INPUT;
        }
        prog = default_prog;
    }
    const char *machine = o.topology ? o.topology : COMPARE_DEFAULT_MACHINE;
    char self[PATH_MAX];
    if (!self_path(self, sizeof(self))) {
        perror("p2psim compare: /proc/self/exe");
        return CLI_FAIL;
    }

    char *real = NULL, *sim = NULL;
    rc = CLI_FAIL;
    if (o.real_from) {
        real = read_file(o.real_from);
        if (!real) {
            return CLI_BAD_INPUT;
        }
    } else {
        int st = run_once(self, true, NULL, prog, &real);
        if (st != 0) {
            fprintf(stderr, "p2psim compare: %s failed on the real GPU "
                            "(status %d)\n", prog[0], st);
            goto out;
        }
    }
    int st = run_once(self, false, machine, prog, &sim);
    if (st != 0) {
        fprintf(stderr, "p2psim compare: %s failed on %s (status %d)\n",
                prog[0], machine, st);
        goto out;
    }
    if (o.save) {
        if (!o.real_from) {
            save(o.save, "real", real);
        }
        save(o.save, "sim", sim);
    }

    printf("p2psim compare: %s on the real GPU%s and on %s (simulated)\n\n",
           prog[0], o.real_from ? " (saved output)" : "", machine);
    size_t n_real, n_sim;
    struct sweep_point *pr = sweep_parse(real, &n_real);
    struct sweep_point *ps = sweep_parse(sim, &n_sim);
    if (pr && ps && n_real > 0 && n_sim > 0) {
        compare_sweep(pr, n_real, ps, n_sim);
    } else {
        compare_lines(real, sim);
    }
    free(pr);
    free(ps);
    rc = CLI_OK;
out:
    free(real);
    free(sim);
    return rc;
}
