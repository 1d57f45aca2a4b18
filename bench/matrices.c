/*
 * bench/matrices.c - the wall time of `p2psim bench` (the
 * p2pBandwidthLatencyTest matrices) on the 8-GPU default machine, in both
 * fidelities: TLP (every packet) and flow (transfers as flows sharing
 * links). Prints both times, their ratio and how far apart the two
 * fidelities' bandwidth matrices are. Targets (issue 8): flow at least
 * 100x faster than TLP; TLP under 60 s for the sample's default matrix
 * set (numElems 40,000,000, without --p2p_read).
 *
 *   bench/matrices [--numElems N] [--machine FILE] [--jobs N]
 *                  [--p2psim PATH]
 *
 * --jobs N is passed to p2psim bench (N matrices simulated at once).
 *
 * It runs the p2psim command of the build tree (../tools/p2psim next to
 * this program, or --p2psim) with its output in a temporary folder.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N_BW 4      /* the bandwidth matrices compared between fidelities */

static const char *const bw_names[N_BW] = {
    "uni_p2p_disabled_GBps", "uni_p2p_enabled_GBps",
    "bidir_p2p_disabled_GBps", "bidir_p2p_enabled_GBps",
};

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ../tools/p2psim next to this program. */
static int find_p2psim(char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        return -1;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) {
        return -1;
    }
    *slash = '\0';
    const char *rel[] = { "/../tools/p2psim", "/../../tools/p2psim" };
    for (int i = 0; i < 2; i++) {
        snprintf(out, size, "%.3800s%s", exe, rel[i]);
        if (access(out, X_OK) == 0) {
            return 0;
        }
    }
    return -1;
}

/* Run p2psim bench at one fidelity, CSVs into dir; wall seconds or -1. */
static double run_bench(const char *p2psim, const char *machine,
                        const char *fidelity, const char *n_elems,
                        const char *jobs, const char *dir)
{
    double t0 = wall_now();
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout)) {
            _exit(127);
        }
        const char *argv[14];
        int a = 0;
        argv[a++] = p2psim;
        argv[a++] = "bench";
        if (machine) {
            argv[a++] = machine;
        }
        argv[a++] = "--fidelity";
        argv[a++] = fidelity;
        argv[a++] = "--numElems";
        argv[a++] = n_elems;
        argv[a++] = "--jobs";
        argv[a++] = jobs;
        argv[a++] = "--csv";
        argv[a++] = dir;
        argv[a] = NULL;
        execv(p2psim, (char *const *)argv);
        fprintf(stderr, "bench/matrices: cannot run %s: %s\n", p2psim,
                strerror(errno));
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        return -1;
    }
    return wall_now() - t0;
}

/* The off-diagonal cells of DIR/NAME.csv into v (up to max); count. */
static int read_csv(const char *dir, const char *name, double *v, int max)
{
    char path[PATH_MAX + 128], line[8192];
    snprintf(path, sizeof(path), "%s/%s.csv", dir, name);
    FILE *f = fopen(path, "r");
    int n = 0, row = -1;
    while (f && fgets(line, sizeof(line), f)) {
        if (row++ < 0) {
            continue;               /* the header */
        }
        char *tok = strtok(line, ",\n");
        for (int col = -1; tok; col++, tok = strtok(NULL, ",\n")) {
            if (col >= 0 && col != row - 1 && n < max) {
                v[n++] = strtod(tok, NULL);
            }
        }
    }
    if (f) {
        fclose(f);
    }
    return n;
}

/* The largest relative difference between the fidelities' bandwidth
 * cells, in percent. */
static double compare(const char *tlp_dir, const char *flow_dir)
{
    static double a[4096], b[4096];
    double worst = 0;
    for (int m = 0; m < N_BW; m++) {
        int na = read_csv(tlp_dir, bw_names[m], a, 4096);
        int nb = read_csv(flow_dir, bw_names[m], b, 4096);
        if (na != nb || na == 0) {
            return NAN;
        }
        for (int i = 0; i < na; i++) {
            double d = fabs(b[i] - a[i]) / a[i] * 100;
            worst = d > worst ? d : worst;
        }
    }
    return worst;
}

/* Remove a --csv folder of p2psim bench (the default matrix set). */
static void remove_dir(const char *dir)
{
    static const char *const all[] = {
        "uni_p2p_disabled_GBps", "uni_p2p_enabled_GBps",
        "bidir_p2p_disabled_GBps", "bidir_p2p_enabled_GBps",
        "latency_p2p_disabled_gpu_us", "latency_p2p_disabled_cpu_us",
        "latency_p2p_enabled_gpu_us", "latency_p2p_enabled_cpu_us",
    };
    for (size_t m = 0; m < sizeof(all) / sizeof(all[0]); m++) {
        char path[PATH_MAX + 128];
        snprintf(path, sizeof(path), "%s/%s.csv", dir, all[m]);
        unlink(path);
    }
    rmdir(dir);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "numElems", required_argument, NULL, 'n' },
        { "machine", required_argument, NULL, 'm' },
        { "jobs", required_argument, NULL, 'j' },
        { "p2psim", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *n_elems = "40000000", *machine = NULL, *p2psim = NULL;
    const char *jobs = "1";
    char found[PATH_MAX];
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': n_elems = optarg; break;
        case 'm': machine = optarg; break;
        case 'j': jobs = optarg; break;
        case 'p': p2psim = optarg; break;
        default:
            printf("usage: bench/matrices [--numElems N] [--machine FILE] "
                   "[--jobs N] [--p2psim PATH]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (!p2psim) {
        if (find_p2psim(found, sizeof(found)) < 0) {
            fprintf(stderr, "bench/matrices: no tools/p2psim next to this "
                            "program; give --p2psim PATH\n");
            return 1;
        }
        p2psim = found;
    }
    char tlp_dir[] = "/tmp/p2psim-bench-tlp-XXXXXX";
    char flow_dir[] = "/tmp/p2psim-bench-flow-XXXXXX";
    if (!mkdtemp(tlp_dir) || !mkdtemp(flow_dir)) {
        perror("bench/matrices: mkdtemp");
        return 1;
    }
    printf("p2psim bench on %s, numElems %s%s, the default matrix set, "
           "--jobs %s\n",
           machine ? machine : "the default machine (8 GPUs)", n_elems,
           strcmp(n_elems, "40000000") == 0 ? " (the sample's)" : "", jobs);
    fflush(stdout);
    double flow = run_bench(p2psim, machine, "flow", n_elems, jobs,
                            flow_dir);
    printf("flow: %.2f s wall\n", flow);
    fflush(stdout);
    double tlp = run_bench(p2psim, machine, "tlp", n_elems, jobs, tlp_dir);
    printf("tlp:  %.2f s wall (target: under 60 s)\n", tlp);
    int rc = 0;
    if (tlp < 0 || flow < 0) {
        fprintf(stderr, "bench/matrices: p2psim bench failed\n");
        rc = 1;
    } else {
        double diff = compare(tlp_dir, flow_dir);
        printf("bandwidth matrices: flow within %.2f%% of tlp (largest "
               "difference of a cell)\n", diff);
        printf("flow speedup: %.1fx (target: at least 100x)\n",
               flow > 0 ? tlp / flow : INFINITY);
    }
    remove_dir(tlp_dir);
    remove_dir(flow_dir);
    return rc;
}
