/*
 * tools/cmd_run.c - `p2psim run [OPTIONS] -- PROGRAM ARGS...`: run an
 * unmodified CUDA program on a simulated machine.
 *
 * The program is linked against libcudart.so.13 (nvcc -cudart shared, or
 * our headers and p2psim-cudart.pc). This command puts the directory that
 * holds the shim (our libcudart.so.13, with our libcuda.so.1 before it)
 * first on LD_LIBRARY_PATH, so the loader picks them (reference/cuda-api.md
 * §0 item 3 and §3.3), and tells the shim what to do in the environment:
 *
 *   P2PSIM_TOPOLOGY  the machine file (validated here first, so a bad file
 *                    is reported as file:line:column before the program
 *                    starts); unset: the shim's built-in default machine
 *   P2PSIM_VM        --vm NAME: the machine as VM NAME (of vms:) sees it
 *   P2PSIM_REPORT=1  the shim prints its summary on stderr at exit
 *                    (not with --quiet)
 *   P2PSIM_STATS     the shim writes the same summary as JSON there
 *   P2PSIM_TRACE     the shim writes its trace there
 *   P2PSIM_SERVER    the p2psim server this command starts for the
 *                    program (all its processes share its machine)
 *   P2PSIM_BACKEND   with --real, "cuda": the shim forwards every call to
 *                    NVIDIA's runtime (cuda/passthrough/); no machine, no
 *                    server
 *   P2PSIM_RECORD    with --record FILE: the shim writes the API trace
 *                    there (traces/api-trace.md); FILE is emptied first
 *   NCCL_TOPO_FILE   unless set (or --real): NCCL's topology file of the
 *                    machine (tools/nccl_xml.c), removed at the end
 *   LD_PRELOAD       libp2psim-host.so (cuda/host/), not with --real:
 *                    simulated clocks and sleeps (not with --real-clock:
 *                    P2PSIM_REAL_CLOCK=1); P2PSIM_CLOCK_ORIGIN: REALTIME's
 *
 * It forks and waits rather than exec'ing in place, so that it can say how
 * the program ended and return its status, and forward SIGINT, SIGTERM and
 * SIGHUP sent to p2psim alone (a terminal's ^C reaches the whole group).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "machine/p2psim.h"
#include "tools/nccl_xml.h"
#include "sim/error.h"
#include "tools/cli.h"
#include "tools/elf_needed.h"
#include "tools/trace_opts.h"

#ifndef P2PSIM_PKGLIBDIR
#define P2PSIM_PKGLIBDIR "/usr/local/lib/p2psim"
#endif

#define RUN_SONAME "libcudart.so.13"
#define RUN_USAGE "usage: p2psim run [OPTIONS] -- PROGRAM [ARGS...]"

/* Exit statuses of a program that could not be started, as sh uses them. */
#define RUN_NOT_FOUND 127
#define RUN_NOT_EXECUTABLE 126

struct run_opts {
    const char *topology;       /* as given: a file or a built-in name */
    const char *vm;             /* --vm NAME: seen from that VM */
    const char *stats;
    struct cli_trace tr;        /* --trace, --counters, ... */
    const char *record;         /* --record FILE: the API trace */
    bool real;                  /* --real: NVIDIA's runtime, a real GPU */
    bool real_clock;            /* --real-clock: no simulated host clocks */
    bool single;                /* --single-process: no server */
    bool quiet;
};

/* The machine handed to the shim; tmp set when we wrote it ourselves. */
struct run_machine {
    char path[PATH_MAX];
    bool tmp;                   /* a built-in machine copied to /tmp */
    char nccl[PATH_MAX];        /* the NCCL topology file we wrote, or "" */
};

/*
 * The built-in machines' names, comma-separated; wrap > 0 breaks lines
 * before that column, indenting by indent.
 */
static void list_builtin_machines(FILE *f, int col, int wrap, int indent)
{
    const char *sep = "";
    const char *name;
    for (unsigned i = 0; (name = p2psim_builtin_machine(i)); i++) {
        int len = (int)strlen(name) - 5;        /* without ".yaml" */
        col += fprintf(f, "%s", sep);
        if (wrap > 0 && col + len > wrap) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (*sep) {
            col += fprintf(f, " ");
        }
        col += fprintf(f, "%.*s", len, name);
        sep = ",";
    }
}

static void run_usage(FILE *f)
{
    fprintf(f,
            RUN_USAGE "\n\n"
            "Run a CUDA program on a simulated machine. PROGRAM is an\n"
            "unmodified program linked against libcudart.so.13 (nvcc "
            "-cudart shared,\nor built with pkg-config p2psim-cudart); it "
            "runs against p2psim's CUDA\nruntime and driver (libcudart.so.13, "
            "libcuda.so.1: first on LD_LIBRARY_PATH;\nnot the driver with "
            "--real) and its CUDA calls are served by the "
            "simulated machine. Every process of the\nprogram shares one "
            "machine, held by a p2psim server this command\nstarts; kernels "
            "built by nvcc (their PTX) run on it there.\n\n"
            "options:\n"
            "  --topology M  the machine: a machine file, or the name of a "
            "built-in one;\n"
            "                default: $P2PSIM_TOPOLOGY, else the built-in "
            "default machine\n"
            "  --vm NAME     run inside VM NAME of the machine's vms: (its "
            "GPUs only,\n"
            "                its memory; default: $P2PSIM_VM, else the "
            "host's view)\n"
            "  --stats FILE  write the run's summary as JSON to FILE\n"
            "  --record FILE write the program's API trace (every CUDA "
            "call, its\n"
            "                arguments, result and times) to FILE, as JSON "
            "lines\n"
            "  --real        run on the real GPU: p2psim's runtime forwards "
            "every call\n"
            "                to NVIDIA's libcudart.so.13 "
            "(P2PSIM_REAL_CUDART: its path)\n"
            "  --real-clock  the program's clocks and sleeps are the "
            "computer's; by default\n"
            "                clock_gettime, gettimeofday, time, "
            "std::chrono and sleeps read\n"
            "                and spend the calling thread's simulated "
            "clock\n"
            "  --single-process\n"
            "                simulate the machine inside the program's own "
            "process, with\n"
            "                no p2psim server: needed for C kernels "
            "(p2psim_kernel_register;\n"
            "                nvcc kernels run under a server too, with the "
            "same results\n"
            "                and times), but processes the program starts do "
            "not share\n"
            "                its machine (no CUDA IPC between them)\n"
            "  --quiet       no summary on stderr at exit, no exit line\n\n"
            "NCCL_TOPO_FILE: unless it is set, the program gets the machine "
            "as NCCL's\ntopology file (p2psim topo --nccl-xml), so NCCL sees "
            "the simulated fabric;\nlibnvidia-ml.so.1 (NVML) is served "
            "beside libcuda.so.1 (docs/nvml.md).\n\n");
    cli_trace_usage(f, true);
    fprintf(f, "\nbuilt-in machines: ");
    list_builtin_machines(f, 19, 78, 2);
    fprintf(f,
            "\n\nAt exit the runtime prints a summary on stderr (simulated "
            "time, bytes per\nlink, P2P and staged copies), and p2psim run "
            "says how the program ended.\nThe exit status is the program's "
            "(128+N if it was killed by signal N;\n127: not found; 126: not "
            "executable; 2: bad arguments or machine file).\n\n"
            "Environment: P2PSIM_CUDART_DIR overrides the directory of the "
            "runtime\n(libcudart.so.13). docs/cuda-shim.md has the rest.\n");
}

/* ---- finding the shim --------------------------------------------------- */

static bool dir_has_shim(const char *dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/%s", dir, RUN_SONAME) >=
        (int)sizeof(path)) {
        return false;
    }
    return access(path, R_OK) == 0;
}

/*
 * Build tree: this binary is tools/p2psim, or tools/.libs/p2psim (or
 * lt-p2psim) behind a libtool wrapper; the shim is cuda/cudart/.libs.
 */
static bool find_in_build_tree(char *out, size_t size)
{
    static const char *const rel[] = {
        "/../cuda/cudart/.libs",
        "/../../cuda/cudart/.libs",
    };
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        return false;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) {
        return false;
    }
    *slash = '\0';
    for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s%s", exe, rel[i]);
        if (dir_has_shim(dir) && realpath(dir, out) && strlen(out) < size) {
            return true;
        }
    }
    return false;
}

/* Where the shim is found, first hit wins: 1. $P2PSIM_CUDART_DIR; 2. the
 * build tree, ../cuda/cudart/.libs next to this binary (tools/p2psim, or
 * tools/.libs/p2psim behind a libtool wrapper); 3. the installed shim,
 * $(pkglibdir) (P2PSIM_PKGLIBDIR). */
static int find_shim(char *out, size_t size)
{
    const char *env = getenv("P2PSIM_CUDART_DIR");
    if (env && *env) {
        if (!dir_has_shim(env)) {
            fprintf(stderr, "p2psim run: P2PSIM_CUDART_DIR=%s has no %s\n",
                    env, RUN_SONAME);
            return -1;
        }
        snprintf(out, size, "%s", env);
        return 0;
    }
    if (find_in_build_tree(out, size)) {
        return 0;
    }
    if (dir_has_shim(P2PSIM_PKGLIBDIR)) {
        snprintf(out, size, "%s", P2PSIM_PKGLIBDIR);
        return 0;
    }
    fprintf(stderr, "p2psim run: cannot find p2psim's CUDA runtime (%s) "
                    "in the build tree or in %s; build it (make), install "
                    "it (make install), or set P2PSIM_CUDART_DIR to the "
                    "directory that holds it\n",
            RUN_SONAME, P2PSIM_PKGLIBDIR);
    return -1;
}

/* ---- the machine -------------------------------------------------------- */

/* The built-in machine "name" or "name.yaml" (not a GPU catalog entry). */
static const char *builtin_machine(const char *name, char *file, size_t size)
{
    size_t len = strlen(name);
    bool has_ext = len > 5 && strcmp(name + len - 5, ".yaml") == 0;
    if (strchr(name, '/') ||
        snprintf(file, size, "%s%s", name, has_ext ? "" : ".yaml") >=
            (int)size) {
        return NULL;
    }
    return p2psim_builtin_text(file);
}

/*
 * A built-in machine lives only inside this binary, and the shim takes a
 * file (P2PSIM_TOPOLOGY), so the machine is copied to a temporary file for
 * the program's lifetime; the GPU catalog entries it names are built into
 * the shim too. The copy is removed when the program ends.
 */
static int write_builtin(const char *file, const char *text,
                         struct run_machine *m)
{
    const char *tmpdir = getenv("TMPDIR");
    snprintf(m->path, sizeof(m->path), "%s/p2psim-run-XXXXXX-%s",
             tmpdir && *tmpdir ? tmpdir : "/tmp", file);
    int fd = mkstemps(m->path, (int)strlen(file) + 1);
    if (fd < 0) {
        fprintf(stderr, "p2psim run: cannot create %s: %s\n", m->path,
                strerror(errno));
        return -1;
    }
    size_t len = strlen(text);
    bool ok = write(fd, text, len) == (ssize_t)len;
    ok = close(fd) == 0 && ok;
    m->tmp = true;
    if (!ok) {
        fprintf(stderr, "p2psim run: cannot write %s\n", m->path);
        return -1;
    }
    return 0;
}

/* Resolve the --topology argument (or $P2PSIM_TOPOLOGY) to a file. */
static int resolve_machine(const char *arg, struct run_machine *m)
{
    struct stat st;
    if (stat(arg, &st) == 0 || strchr(arg, '/')) {
        /* A path: absolute, so it survives the program's chdir. */
        if (!realpath(arg, m->path)) {
            snprintf(m->path, sizeof(m->path), "%s", arg);
        }
        return 0;
    }
    char file[256];
    const char *text = builtin_machine(arg, file, sizeof(file));
    if (!text) {
        fprintf(stderr, "p2psim run: %s: no such machine file or built-in "
                        "machine (built-in: ", arg);
        list_builtin_machines(stderr, 0, 0, 0);
        fprintf(stderr, ")\n");
        return -1;
    }
    return write_builtin(file, text, m);
}

/* Load the machine as the shim will, so errors show before the program. */
static int validate_machine(const char *path)
{
    struct p2psim *p = cli_open(path);
    if (!p) {
        return -1;
    }
    p2psim_close(p);
    return 0;
}

/*
 * NCCL_TOPO_FILE for the program, unless the user set it: the machine
 * (file, NULL: the built-in default) as the shim loads it (P2PSIM_SET's
 * overrides applied), written beside the copies of built-in machines.
 */
static int write_nccl_topology(const char *file, struct run_machine *m)
{
    const char *set = getenv("NCCL_TOPO_FILE");
    if (set && *set) {
        return 0;
    }
    struct p2psim_options popt = { .overrides = getenv("P2PSIM_SET"),
                                   .vm = getenv("P2PSIM_VM") };
    struct p2psim *p = cli_open_opt(file, &popt);
    if (!p) {
        return -1;
    }
    const char *tmpdir = getenv("TMPDIR");
    snprintf(m->nccl, sizeof(m->nccl), "%s/p2psim-run-XXXXXX-nccl-topo.xml",
             tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = mkstemps(m->nccl, (int)strlen("-nccl-topo.xml"));
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    int rc = f ? nccl_xml_write(p, f) : -1;
    if (f && fclose(f) != 0) {
        rc = -1;
    }
    p2psim_close(p);
    if (fd < 0) {
        m->nccl[0] = '\0';
    }
    if (rc < 0 || setenv("NCCL_TOPO_FILE", m->nccl, 1) < 0) {
        fprintf(stderr, "p2psim run: cannot write NCCL's topology file %s\n",
                m->nccl);
        return -1;
    }
    return 0;
}

/* ---- the program's environment ------------------------------------------ */

/* An absolute path, so a program that changes directory writes it here. */
static int setenv_path(const char *var, const char *file)
{
    char cwd[PATH_MAX];
    if (file[0] == '/' || !getcwd(cwd, sizeof(cwd))) {
        return setenv(var, file, 1);
    }
    size_t len = strlen(cwd) + strlen(file) + 2;
    char *abs = malloc(len);
    if (!abs) {
        return -1;
    }
    snprintf(abs, len, "%s/%s", cwd, file);
    int rc = setenv(var, abs, 1);
    free(abs);
    return rc;
}

/*
 * The folder of p2psim's driver API (libcuda.so.1) beside the shim:
 * $(pkglibdir)/driver where installed, cuda/driver/.libs in the build
 * tree; "" if there is none. Never with --real, where NVIDIA's runtime
 * loads NVIDIA's driver.
 */
static void find_driver(const char *shim_dir, char *out, size_t size)
{
    static const char *const rel[] = { "/driver", "/../../driver/.libs" };
    out[0] = '\0';
    for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
        char dir[PATH_MAX], lib[PATH_MAX + 16];
        snprintf(dir, sizeof(dir), "%s%s", shim_dir, rel[i]);
        snprintf(lib, sizeof(lib), "%s/libcuda.so.1", dir);
        if (access(lib, R_OK) == 0 && realpath(dir, out) &&
            strlen(out) < size) {
            return;
        }
        out[0] = '\0';
    }
}

/*
 * NVRTC's stand-in (cuda/driver/nvrtc_cubin.c: its cubin is its PTX,
 * which our driver runs) goes first on LD_PRELOAD for a program that
 * links libnvrtc, and only then (a preload before a sanitizer's runtime
 * would stop an instrumented program). drv: the driver's folder.
 */
static int prepend_preload(const char *lib)
{
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *pre = malloc(len);
    if (!pre) {
        return -1;
    }
    snprintf(pre, len, "%s%s%s", lib, old && *old ? ":" : "",
             old ? old : "");
    int rc = setenv("LD_PRELOAD", pre, 1);
    free(pre);
    return rc;
}

static int preload_nvrtc(const char *drv, const char *prog)
{
    char lib[PATH_MAX + 32];
    snprintf(lib, sizeof(lib), "%s/libp2psim-nvrtc.so", drv);
    if (!*drv || access(lib, R_OK) != 0 || !elf_needs(prog, "libnvrtc.so")) {
        return 0;
    }
    return prepend_preload(lib);
}

/*
 * libp2psim-host.so (cuda/host/: the program's clocks and sleeps are its
 * threads' simulated ones, its blocking outside CUDA is counted): beside
 * the shim where installed, cuda/host/.libs in the build tree. Not with
 * --real, nor for a program built with a sanitizer whose runtime must be
 * the first library loaded (its clocks stay real). Every process of the
 * program reads REALTIME from the same origin, P2PSIM_CLOCK_ORIGIN (the
 * wall time now in whole seconds, as ns: the fraction of a second a clock
 * reads is then simulated time's alone, so a stopwatch that rounds
 * gettimeofday's microseconds prints the same digits at every run).
 */
static int preload_host(const struct run_opts *o, const char *shim_dir,
                        const char *prog)
{
    static const char *const rel[] = { "", "/../../host/.libs" };
    if (o->real || elf_needs(prog, "libasan.so") ||
        elf_needs(prog, "libtsan.so") || elf_needs(prog, "libhwasan.so")) {
        return 0;
    }
    int rc = o->real_clock ? setenv("P2PSIM_REAL_CLOCK", "1", 1)
                           : unsetenv("P2PSIM_REAL_CLOCK");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char origin[32];
    snprintf(origin, sizeof(origin), "%lld",
             (long long)ts.tv_sec * 1000000000LL);
    rc |= setenv("P2PSIM_CLOCK_ORIGIN", origin, 1);
    for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
        char lib[PATH_MAX + 48], path[PATH_MAX];
        snprintf(lib, sizeof(lib), "%s%s/libp2psim-host.so", shim_dir,
                 rel[i]);
        if (access(lib, R_OK) == 0 && realpath(lib, path)) {
            return rc | prepend_preload(path);
        }
    }
    return rc;
}

static int set_environment(const struct run_opts *o, const char *shim_dir,
                           const char *machine, const char *prog)
{
    const char *old = getenv("LD_LIBRARY_PATH");
    char drv[PATH_MAX] = "";
    if (!o->real) {
        find_driver(shim_dir, drv, sizeof(drv));
    }
    size_t len = strlen(drv) + strlen(shim_dir) +
                 (old ? strlen(old) : 0) + 3;
    char *ld = malloc(len);
    if (!ld) {
        return -1;
    }
    snprintf(ld, len, "%s%s%s%s%s", drv, *drv ? ":" : "", shim_dir,
             old && *old ? ":" : "", old ? old : "");
    int rc = setenv("LD_LIBRARY_PATH", ld, 1);
    free(ld);
    rc |= preload_nvrtc(drv, prog);
    rc |= preload_host(o, shim_dir, prog);
    if (machine) {
        rc |= setenv("P2PSIM_TOPOLOGY", machine, 1);
    }
    if (o->quiet) {
        rc |= unsetenv("P2PSIM_REPORT");
    } else {
        rc |= setenv("P2PSIM_REPORT", "1", 1);
    }
    if (o->stats) {
        rc |= setenv_path("P2PSIM_STATS", o->stats);
    }
    if (!o->real && cli_trace_setenv(&o->tr) < 0) {
        return -1;
    }
    if (o->record) {
        /* The shim appends (the processes of a program share the file):
         * start from an empty one. */
        int fd = open(o->record, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) {
            fprintf(stderr, "p2psim run: cannot write %s: %s\n", o->record,
                    strerror(errno));
            return -1;
        }
        close(fd);
        rc |= setenv_path("P2PSIM_RECORD", o->record);
    }
    if (o->real) {
        rc |= setenv("P2PSIM_BACKEND", "cuda", 1);
    } else if (getenv("P2PSIM_BACKEND")) {
        rc |= unsetenv("P2PSIM_BACKEND");
    }
    return rc ? -1 : 0;
}

/* ---- the fabric server (multi-process programs) -------------------------- */

/*
 * Every program runs on a p2psim server (cmd_server.c), so that all of
 * its processes share one simulated machine (CUDA IPC, simpleIPC;
 * reference/cuda-api.md §2.5); a single process runs on it exactly as on
 * a machine of its own (cuda/cudart/remote.c), nvcc kernels included (the
 * server runs their PTX); only C kernels need --single-process. This command binds the
 * socket in a private directory and hands the listening descriptor to the
 * server, so the program can connect from its first instruction; the
 * shim finds it in P2PSIM_SERVER. The server gets its own process group
 * (a terminal's ^C is for the program) and dies with this process.
 *
 * P2PSIM_SERVER already in the environment: that server is used and none
 * is started; set but empty: none at all (every process simulates a
 * machine of its own).
 */
static pid_t wait_child(pid_t pid, int *status);
static pid_t run_server_pid;
static char run_server_dir[PATH_MAX];
static char run_server_socket[PATH_MAX];

static int run_server_bind(void)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    const char *tmpdir = getenv("TMPDIR");
    for (int i = 0; i < 2; i++) {
        snprintf(run_server_dir, sizeof(run_server_dir),
                 "%s/p2psim-server-XXXXXX",
                 i == 0 && tmpdir && *tmpdir ? tmpdir : "/tmp");
        if (strlen(run_server_dir) + 8 < sizeof(sa.sun_path)) {
            break;              /* else a TMPDIR too long for a socket */
        }
    }
    if (!mkdtemp(run_server_dir)) {
        fprintf(stderr, "p2psim run: cannot create %s: %s\n",
                run_server_dir, strerror(errno));
        run_server_dir[0] = '\0';
        return -1;
    }
    snprintf(run_server_socket, sizeof(run_server_socket), "%s/socket",
             run_server_dir);
    size_t len = strlen(run_server_socket);
    memcpy(sa.sun_path, run_server_socket,
           len < sizeof(sa.sun_path) ? len + 1 : sizeof(sa.sun_path) - 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(fd, 64) < 0) {
        fprintf(stderr, "p2psim run: cannot listen on %s: %s\n",
                run_server_socket, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return fd;
}

static int run_server_start(const struct run_opts *o)
{
    (void)o;
    if (getenv("P2PSIM_SERVER")) {
        return 0;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        perror("p2psim run: /proc/self/exe");
        return -1;
    }
    self[n] = '\0';
    int fd = run_server_bind();
    if (fd < 0) {
        return -1;
    }
    char fd_arg[16];
    snprintf(fd_arg, sizeof(fd_arg), "%d", fd);
    const char *topology = getenv("P2PSIM_TOPOLOGY");
    char *argv[] = { self, "server", "--quiet", "--listen-fd", fd_arg,
                     topology && *topology ? "--topology" : NULL,
                     (char *)topology, NULL };
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        execv(self, argv);
        _exit(RUN_NOT_FOUND);
    }
    close(fd);
    if (pid < 0) {
        perror("p2psim run: fork");
        return -1;
    }
    run_server_pid = pid;
    return setenv("P2PSIM_SERVER", run_server_socket, 1);
}

static void run_server_stop(void)
{
    if (run_server_pid > 0) {
        int status;
        kill(run_server_pid, SIGTERM);
        wait_child(run_server_pid, &status);
        run_server_pid = 0;
    }
    if (run_server_socket[0]) {
        unlink(run_server_socket);
    }
    if (run_server_dir[0]) {
        rmdir(run_server_dir);
    }
}

/* ---- running the program ------------------------------------------------- */

static volatile sig_atomic_t run_child_pid;

/*
 * Forward signals sent to p2psim by another process (kill, timeout, a
 * batch system); those the kernel sent on behalf of a terminal
 * (si_code SI_KERNEL) already went to the program's process group.
 */
static void forward_signal(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    if (run_child_pid > 0 && info && info->si_code <= 0) {
        kill((pid_t)run_child_pid, sig);
    }
}

static const int run_forwarded[] = { SIGINT, SIGTERM, SIGHUP };
#define RUN_N_FORWARDED (sizeof(run_forwarded) / sizeof(run_forwarded[0]))

static void block_forwarded(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < RUN_N_FORWARDED; i++) {
        sigaddset(&set, run_forwarded[i]);
    }
    sigprocmask(SIG_BLOCK, &set, old);
}

static void install_forwarding(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = forward_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < RUN_N_FORWARDED; i++) {
        sigaction(run_forwarded[i], &sa, NULL);
    }
}

/* In the child: exec, or send errno up the close-on-exec pipe. */
static void exec_child(char **argv, const sigset_t *mask, int err_fd)
{
    sigprocmask(SIG_SETMASK, mask, NULL);
    execvp(argv[0], argv);
    int e = errno;
    if (write(err_fd, &e, sizeof(e)) < 0) {
        /* Nothing left to tell: the parent sees a plain 127. */
    }
    _exit(RUN_NOT_FOUND);
}

static pid_t wait_child(pid_t pid, int *status)
{
    pid_t r;
    do {
        r = waitpid(pid, status, 0);
    } while (r < 0 && errno == EINTR);
    return r;
}

static int spawn_and_wait(char **argv, const struct run_opts *o)
{
    int pipefd[2];
    /* Close-on-exec: a successful exec closes it, and the read sees EOF. */
    if (pipe(pipefd) < 0 || fcntl(pipefd[0], F_SETFD, FD_CLOEXEC) < 0 ||
        fcntl(pipefd[1], F_SETFD, FD_CLOEXEC) < 0) {
        perror("p2psim run: pipe");
        return CLI_FAIL;
    }
    fflush(stdout);
    fflush(stderr);
    sigset_t old;
    block_forwarded(&old);
    pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        exec_child(argv, &old, pipefd[1]);
    }
    close(pipefd[1]);
    if (pid < 0) {
        perror("p2psim run: fork");
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(pipefd[0]);
        return CLI_FAIL;
    }
    run_child_pid = pid;
    install_forwarding();
    sigprocmask(SIG_SETMASK, &old, NULL);

    int exec_errno = 0;
    ssize_t n;
    do {
        n = read(pipefd[0], &exec_errno, sizeof(exec_errno));
    } while (n < 0 && errno == EINTR);
    close(pipefd[0]);
    int status = 0;
    if (wait_child(pid, &status) < 0) {
        perror("p2psim run: waitpid");
        return CLI_FAIL;
    }
    run_child_pid = 0;
    if (n == (ssize_t)sizeof(exec_errno)) {
        fprintf(stderr, "p2psim run: cannot run '%s': %s\n", argv[0],
                strerror(exec_errno));
        return exec_errno == ENOENT ? RUN_NOT_FOUND : RUN_NOT_EXECUTABLE;
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (!o->quiet) {
            fprintf(stderr, "p2psim run: %s killed by signal %d (%s)\n",
                    argv[0], sig, strsignal(sig));
        }
        return 128 + sig;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : CLI_FAIL;
    if (!o->quiet) {
        fprintf(stderr, "p2psim run: %s exited with status %d\n", argv[0],
                code);
    }
    return code;
}

/* ---- the command ---------------------------------------------------------- */

static int parse_opts(int argc, char **argv, struct run_opts *o)
{
    static const struct option opts[] = {
        { "topology", required_argument, NULL, 't' },
        { "vm", required_argument, NULL, 'V' },
        { "stats", required_argument, NULL, 's' },
        CLI_TRACE_OPTIONS,
        CLI_TRACE_PLOT_OPTION,
        { "record", required_argument, NULL, 'R' },
        { "real", no_argument, NULL, 'C' },
        { "real-clock", no_argument, NULL, 'K' },
        { "single-process", no_argument, NULL, 'S' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    /* "+": stop at the first non-option, the program's name. */
    while ((c = getopt_long(argc, argv, "+hq", opts, NULL)) != -1) {
        switch (c) {
        case 't': o->topology = optarg; break;
        case 'V': o->vm = optarg; break;
        case 's': o->stats = optarg; break;
        case 'R': o->record = optarg; break;
        case 'C': o->real = true; break;
        case 'K': o->real_clock = true; break;
        case 'S': o->single = true; break;
        case 'q': o->quiet = true; break;
        case 'h': run_usage(stdout); return 1;
        default:
            if (cli_trace_is_opt(c)) {
                cli_trace_opt(&o->tr, c, optarg);
                break;
            }
            fprintf(stderr, "%s\n", RUN_USAGE);
            return -1;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "p2psim run: no program given (%s)\n", RUN_USAGE);
        return -1;
    }
    if (o->real && (o->topology || o->vm || cli_trace_any(&o->tr) ||
                    o->stats)) {
        fprintf(stderr, "p2psim run: --real runs on the real GPU: no "
                        "--topology, --vm, --trace, --events, --counters "
                        "or --stats\n");
        return -1;
    }
    if (o->vm && setenv("P2PSIM_VM", o->vm, 1) < 0) {
        return -1;
    }
    if (cli_trace_check(&o->tr, "run") < 0) {
        return -1;
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    struct run_opts o = { 0 };
    int rc = parse_opts(argc, argv, &o);
    if (rc != 0) {
        return rc > 0 ? CLI_OK : CLI_BAD_INPUT;
    }
    char **prog = argv + optind;

    char shim_dir[PATH_MAX];
    if (find_shim(shim_dir, sizeof(shim_dir)) < 0) {
        return CLI_FAIL;
    }
    struct run_machine m = { .tmp = false };
    const char *arg = o.topology ? o.topology : getenv("P2PSIM_TOPOLOGY");
    bool have_machine = !o.real && arg && *arg;
    rc = CLI_BAD_INPUT;
    if (have_machine && (resolve_machine(arg, &m) < 0 ||
                         validate_machine(m.path) < 0)) {
        goto out_machine;
    }
    if (!o.real &&
        write_nccl_topology(have_machine ? m.path : NULL, &m) < 0) {
        rc = CLI_FAIL;
        goto out_machine;
    }
    if (set_environment(&o, shim_dir, have_machine ? m.path : NULL,
                        prog[0]) < 0) {
        fprintf(stderr, "p2psim run: cannot set the environment\n");
        rc = CLI_FAIL;
        goto out_machine;
    }
    if (o.single && setenv("P2PSIM_SERVER", "", 1) < 0) {
        rc = CLI_FAIL;
        goto out_machine;
    }
    if (!o.real && !o.single && run_server_start(&o) < 0) {
        rc = CLI_FAIL;
        goto out_machine;
    }
    rc = spawn_and_wait(prog, &o);
    run_server_stop();          /* the server writes the trace as it ends */
    if (o.tr.plot && cli_trace_plot(o.tr.counters, o.tr.plot) < 0 &&
        rc == 0) {
        rc = CLI_FAIL;
    }
out_machine:
    if (m.tmp) {
        unlink(m.path);
    }
    if (m.nccl[0]) {
        unlink(m.nccl);
    }
    return rc;
}
