/*
 * tests/cudart/server_test.c - a p2psim server for a test (see
 * cudart_test.h): the tools binary ($P2PSIM; make check exports it) runs
 * `p2psim server` on a fresh socket, and P2PSIM_SERVER names it, so the
 * test's CUDA calls (or those of children it forks) use that machine.
 */
#include <config.h>

#include "tests/cudart/cudart_test.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *p2psim_binary(void)
{
    const char *p = getenv("P2PSIM");
    return p && *p ? p : "./tools/p2psim";
}

static bool can_connect(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
    if (fd >= 0) {
        close(fd);
    }
    return ok;
}

void cudart_test_server_start(struct cudart_test_server *s,
                              const char *machine)
{
    cudart_test_machine(machine);
    snprintf(s->dir, sizeof(s->dir), "/tmp/p2psim-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(s->dir));
    snprintf(s->path, sizeof(s->path), "%s/socket", s->dir);
    const char *bin = p2psim_binary();
    ck_assert_msg(access(bin, X_OK) == 0, "%s: %s (set P2PSIM to the p2psim "
                  "binary)", bin, strerror(errno));
    s->pid = fork();
    ck_assert_int_ge(s->pid, 0);
    if (s->pid == 0) {
        execl(bin, bin, "server", "--quiet", "--socket", s->path,
              "--topology", getenv("P2PSIM_TOPOLOGY"), (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 400 && !can_connect(s->path); i++) {
        struct timespec ts = { 0, 5000000 };
        nanosleep(&ts, NULL);
    }
    ck_assert_msg(can_connect(s->path), "the server did not start");
    setenv("P2PSIM_SERVER", s->path, 1);
}

int cudart_test_server_stop(struct cudart_test_server *s)
{
    int status = -1;
    kill(s->pid, SIGTERM);
    waitpid(s->pid, &status, 0);
    unlink(s->path);
    rmdir(s->dir);
    unsetenv("P2PSIM_SERVER");
    return status;
}

void cudart_test_in_child(const char *var, const char *value,
                          void (*run)(void *out), void *out, size_t n)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setenv(var, value, 1);
        run(out);
        _exit(write(fds[1], out, n) == (ssize_t)n ? 0 : 1);
    }
    close(fds[1]);
    ck_assert_int_eq(read(fds[0], out, n), (ssize_t)n);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
