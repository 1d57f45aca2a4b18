/*
 * tools/bwlat_job.c - running measurements (bwlat.c) in child processes:
 * the environment that chooses the machine, loading the CUDA shim, and
 * the results sent back through a pipe. See tools/bwlat.h for why a child
 * per request and why dlopen.
 *
 * The pipe carries one record, written by the child at its end:
 *   struct wire_hdr (status, error text, counts, which matrices)
 *   n x struct bwlat_gpu
 *   n x n int: cudaDeviceCanAccessPeer
 *   per matrix present, in enum order: n x n double
 *   n_probes x double
 * Parent and child are the same binary, so the record is raw memory.
 */
#include <config.h>

#include "tools/bwlat.h"

#include "common/fdio.h"
#include "tools/trace_opts.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/bwlat_int.h"

#ifndef P2PSIM_PKGLIBDIR
#define P2PSIM_PKGLIBDIR "/usr/local/lib/p2psim"
#endif

#define CUDART_SONAME "libcudart.so.13"
#define WIRE_MAGIC 0x62776c31u      /* "bwl1" */

void bwlat_result_free(struct bwlat_result *r)
{
    free(r->gpu);
    free(r->can_access);
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        free(r->m[m]);
    }
    free(r->probe);
    memset(r, 0, sizeof(*r));
}

/* ---- finding the shim ---------------------------------------------------- */

static bool file_in(const char *dir, char *out, size_t size)
{
    int len = snprintf(out, size, "%s/%s", dir, CUDART_SONAME);
    return len > 0 && (size_t)len < size && access(out, R_OK) == 0;
}

/* The build tree: tools/p2psim (or tools/.libs/p2psim behind a libtool
 * wrapper) has the shim in ../cuda/cudart/.libs. */
static bool find_in_build_tree(char *out, size_t size)
{
    static const char *const rel[] = { "/../cuda/cudart/.libs",
                                       "/../../cuda/cudart/.libs" };
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
        char dir[PATH_MAX], real[PATH_MAX];
        int len = snprintf(dir, sizeof(dir), "%s%s", exe, rel[i]);
        if (len < 0 || (size_t)len >= sizeof(dir)) {
            continue;           /* too long a path to be the build tree */
        }
        if (realpath(dir, real) && file_in(real, out, size)) {
            return true;
        }
    }
    return false;
}

int bwlat_find_cudart(char *out, size_t size)
{
    const char *env = getenv("P2PSIM_CUDART_DIR");
    if (env && *env) {
        if (file_in(env, out, size)) {
            return 0;
        }
        fprintf(stderr, "p2psim: P2PSIM_CUDART_DIR=%s has no %s\n", env,
                CUDART_SONAME);
        return -1;
    }
    if (find_in_build_tree(out, size) || file_in(P2PSIM_PKGLIBDIR, out, size)) {
        return 0;
    }
    fprintf(stderr, "p2psim: cannot find p2psim's CUDA runtime (%s) in the "
                    "build tree or in %s; build it (make), install it (make "
                    "install), or set P2PSIM_CUDART_DIR to the directory that "
                    "holds it\n", CUDART_SONAME, P2PSIM_PKGLIBDIR);
    return -1;
}

/* ---- the child ----------------------------------------------------------- */

struct wire_hdr {
    uint32_t magic;
    int32_t status;
    uint32_t n, n_probes;
    uint32_t matrices;          /* BWLAT_BIT() of the matrices that follow */
    char error[512];
};

static int send_result(int fd, const struct bwlat_result *r)
{
    struct wire_hdr h = { .magic = WIRE_MAGIC, .status = r->status,
                          .n = r->n, .n_probes = r->n_probes };
    bool complete = r->status == 0 && r->gpu && r->can_access;
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        if (r->m[m]) {
            h.matrices |= BWLAT_BIT(m);
        }
    }
    snprintf(h.error, sizeof(h.error), "%s", r->error);
    if (!complete) {
        h.n = h.n_probes = h.matrices = 0;
        if (h.status == 0) {
            h.status = 1;
        }
    }
    size_t nn = (size_t)h.n * h.n;
    int rc = fdio_write_all(fd, &h, sizeof(h), NULL);
    if (complete && rc == 0) {
        rc = fdio_write_all(fd, r->gpu, h.n * sizeof(*r->gpu), NULL);
        rc |= fdio_write_all(fd, r->can_access, nn * sizeof(int), NULL);
        for (int m = 0; m < BWLAT_N_MATRICES && rc == 0; m++) {
            if (r->m[m]) {
                rc = fdio_write_all(fd, r->m[m], nn * sizeof(double),
                                    NULL);
            }
        }
        if (rc == 0 && h.n_probes) {
            rc = fdio_write_all(fd, r->probe, h.n_probes * sizeof(double),
                                NULL);
        }
    }
    return rc;
}

/* Set (or, for NULL, unset) an environment variable of the child. */
static void child_env(const char *var, const char *value)
{
    if (value) {
        setenv(var, value, 1);
    } else {
        unsetenv(var);
    }
}

/* Load the runtime and its entry points; false with r->error on failure. */
static bool load_cudart(const char *path, struct bwlat_cuda *cu,
                        struct bwlat_result *r)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(r->error, sizeof(r->error), "cannot load %s: %s", path,
                 dlerror());
        return false;
    }
#define BWLAT_CUDA_LOAD(name)                                                 \
    *(void **)&cu->name = dlsym(h, #name);                                    \
    if (!cu->name) {                                                          \
        snprintf(r->error, sizeof(r->error), "%s has no %s", path, #name);    \
        return false;                                                         \
    }
    BWLAT_CUDA_CALLS(BWLAT_CUDA_LOAD)
#undef BWLAT_CUDA_LOAD
#define BWLAT_DEVAPI_LOAD(name) *(void **)&cu->name = dlsym(h, #name);
    BWLAT_DEVAPI_CALLS(BWLAT_DEVAPI_LOAD)
#undef BWLAT_DEVAPI_LOAD
    return true;
}

static void child_main(const struct bwlat_request *rq, int fd)
{
    /* The shim reads these at its first call (cuda/cudart/rt.c). */
    child_env("P2PSIM_TOPOLOGY", rq->machine);
    child_env("P2PSIM_FIDELITY", rq->fidelity);
    child_env("P2PSIM_SET", rq->overrides);
    child_env("P2PSIM_REPORT", NULL);
    child_env("P2PSIM_STATS", NULL);
    if (!rq->trace) {
        child_env("P2PSIM_TRACE", NULL);
        child_env("P2PSIM_EVENTS", NULL);
        child_env("P2PSIM_COUNTERS", NULL);
    } else if (rq->trace_tag) {
        cli_trace_env_tag(rq->trace_tag);
    }
    child_env("P2PSIM_SERVER", NULL);
    /* The parent's stdout carries the tables; whatever the runtime
     * prints goes to stderr. */
    dup2(STDERR_FILENO, STDOUT_FILENO);

    static struct bwlat_result r;   /* static: it survives the longjmp */
    static struct bwlat_cuda cu;
    static jmp_buf fail;
    memset(&r, 0, sizeof(r));
    if (!load_cudart(rq->cudart, &cu, &r)) {
        r.status = 1;
    } else {
        cu.fail = &fail;
        if (setjmp(fail) == 0) {
            bwlat_measure(&cu, rq, &r);
        }
    }
    int rc = send_result(fd, &r);
    int st = rc == 0 && r.status == 0 ? 0 : 1;
    if (rq->trace) {
        exit(st);   /* the runtime's atexit handler finishes the trace */
    }
    _exit(st);
}

/* ---- the parent ---------------------------------------------------------- */

int bwlat_job_start(struct bwlat_job *j, const struct bwlat_request *rq)
{
    memset(j, 0, sizeof(*j));
    j->fd = -1;
    int p[2];
    if (pipe(p) < 0) {
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        close(p[0]);
        child_main(rq, p[1]);
    }
    close(p[1]);
    j->pid = pid;
    j->fd = p[0];
    return 0;
}

int bwlat_job_read(struct bwlat_job *j)
{
    if (j->fd < 0) {
        return 1;
    }
    for (;;) {
        if (j->cap - j->len < 65536) {
            size_t cap = j->cap ? j->cap * 2 : 131072;
            char *b = realloc(j->buf, cap);
            if (!b) {
                return -1;
            }
            j->buf = b;
            j->cap = cap;
        }
        ssize_t n = read(j->fd, j->buf + j->len, j->cap - j->len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && errno == EAGAIN) {
            return 0;
        }
        if (n <= 0) {
            close(j->fd);
            j->fd = -1;
            return n < 0 ? -1 : 1;
        }
        j->len += (size_t)n;
        return 0;
    }
}

/* Take len bytes at *pos of the child's record into dst. */
static bool take(const struct bwlat_job *j, size_t *pos, void *dst,
                 size_t len)
{
    if (j->len - *pos < len) {
        return false;
    }
    memcpy(dst, j->buf + *pos, len);
    *pos += len;
    return true;
}

static int decode(const struct bwlat_job *j, struct bwlat_result *out)
{
    struct wire_hdr h;
    size_t pos = 0;
    if (!take(j, &pos, &h, sizeof(h)) || h.magic != WIRE_MAGIC) {
        return -1;
    }
    out->status = h.status;
    snprintf(out->error, sizeof(out->error), "%s", h.error);
    if (h.n == 0) {
        return 0;
    }
    size_t nn = (size_t)h.n * h.n;
    out->n = h.n;
    out->gpu = calloc(h.n, sizeof(*out->gpu));
    out->can_access = calloc(nn, sizeof(int));
    if (!out->gpu || !out->can_access ||
        !take(j, &pos, out->gpu, h.n * sizeof(*out->gpu)) ||
        !take(j, &pos, out->can_access, nn * sizeof(int))) {
        return -1;
    }
    for (int m = 0; m < BWLAT_N_MATRICES; m++) {
        if (h.matrices & BWLAT_BIT(m)) {
            out->m[m] = malloc(nn * sizeof(double));
            if (!out->m[m] ||
                !take(j, &pos, out->m[m], nn * sizeof(double))) {
                return -1;
            }
        }
    }
    if (h.n_probes) {
        out->n_probes = h.n_probes;
        out->probe = malloc(h.n_probes * sizeof(double));
        if (!out->probe ||
            !take(j, &pos, out->probe, h.n_probes * sizeof(double))) {
            return -1;
        }
    }
    return 0;
}

int bwlat_job_finish(struct bwlat_job *j, struct bwlat_result *out)
{
    memset(out, 0, sizeof(*out));
    while (bwlat_job_read(j) == 0) {
        /* read to the end */
    }
    int status = 0;
    while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR) {
        /* retry */
    }
    if (decode(j, out) < 0) {
        bwlat_result_free(out);
        out->status = 1;
        if (WIFSIGNALED(status)) {
            snprintf(out->error, sizeof(out->error),
                     "the measuring process was killed by signal %d (%s)",
                     WTERMSIG(status), strsignal(WTERMSIG(status)));
        } else {
            snprintf(out->error, sizeof(out->error),
                     "the measuring process ended (status %d) without a "
                     "result", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
    }
    free(j->buf);
    j->buf = NULL;
    j->len = j->cap = 0;
    return out->status;
}

int bwlat_run(const struct bwlat_request *rq, struct bwlat_result *out)
{
    struct bwlat_job j;
    if (bwlat_job_start(&j, rq) < 0) {
        memset(out, 0, sizeof(*out));
        out->status = 1;
        snprintf(out->error, sizeof(out->error),
                 "cannot start the measuring process: %s", strerror(errno));
        return out->status;
    }
    return bwlat_job_finish(&j, out);
}

/* ---- several at once ------------------------------------------------------ */

int bwlat_pool_run(size_t n, unsigned jobs, bwlat_start_fn *start,
                   bwlat_done_fn *done, void *arg)
{
    jobs = jobs ? jobs : 1;
    struct bwlat_job *job = calloc(jobs, sizeof(*job));
    size_t *task = calloc(jobs, sizeof(*task));
    struct pollfd *pfd = calloc(jobs, sizeof(*pfd));
    if (!job || !task || !pfd) {
        free(job);
        free(task);
        free(pfd);
        errno = ENOMEM;
        return -1;
    }
    size_t next = 0;
    unsigned running = 0;
    int rc = 0;
    while ((next < n && rc == 0) || running) {
        /* Slots 0 .. running-1 are busy; fill the others. */
        while (rc == 0 && next < n && running < jobs) {
            if (start(next, &job[running], arg) < 0) {
                rc = -1;
                break;
            }
            task[running++] = next++;
        }
        if (running == 0) {
            break;
        }
        for (unsigned k = 0; k < running; k++) {
            pfd[k] = (struct pollfd){ .fd = job[k].fd, .events = POLLIN };
        }
        if (poll(pfd, running, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            rc = -1;
            int e = errno;
            for (unsigned k = 0; k < running; k++) {
                done(task[k], &job[k], arg);
            }
            running = 0;
            errno = e;
            break;
        }
        /* Read only where poll saw something: a read elsewhere would block
         * until that child ends. Backwards, so that moving the last busy
         * slot into slot k leaves the slots still to visit in place. */
        for (unsigned k = running; k-- > 0;) {
            if (pfd[k].revents && bwlat_job_read(&job[k]) != 0) {
                done(task[k], &job[k], arg);
                running--;
                job[k] = job[running];
                task[k] = task[running];
                pfd[k] = pfd[running];
            }
        }
    }
    free(job);
    free(task);
    free(pfd);
    return rc;
}
