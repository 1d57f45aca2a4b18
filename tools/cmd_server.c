/*
 * tools/cmd_server.c - `p2psim server --socket PATH [--topology FILE]`:
 * one simulated machine shared by every process of a program. The command
 * only: its options, the machine (opened with the options the shim takes
 * from the environment), the listening socket, the stop signals; the
 * server itself is cuda/server/ (the protocol in wire.h, its messages and
 * time in server.c, its loop on the sockets in server_loop.c).
 *
 * The CUDA shim in each process (cuda/cudart/remote.c) connects to the
 * UNIX socket named by P2PSIM_SERVER. `p2psim run` starts a server for
 * every program (cmd_run.c): it binds the socket itself and hands the
 * listening descriptor over with the internal option --listen-fd, so the
 * program can connect from its first instruction.
 *
 * It runs until SIGTERM or SIGINT (the handler only sets a flag that the
 * loop and every run of the simulation look at), or, once its simulation
 * has failed (out of memory), until the last client is gone; it then
 * exits 1 (CLI_FAIL).
 */
#include <config.h>

#include "cuda/server/server.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "machine/p2psim.h"
#include "sim/error.h"
#include "tools/cli.h"

#define SERVER_USAGE                                                          \
    "usage: p2psim server --socket PATH [--topology FILE] [--quiet]"

/* Set by SIGTERM and SIGINT: the server stops (cuda/server/server_loop.c). */
static volatile sig_atomic_t srv_stop;

static void on_signal(int sig)
{
    (void)sig;
    srv_stop = 1;
}

/* ---- the command ---------------------------------------------------------------- */

static int listen_on(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "p2psim server: socket path too long (at most %zu "
                        "bytes): %s\n", sizeof(sa.sun_path) - 1, path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(fd, 64) < 0) {
        fprintf(stderr, "p2psim server: cannot listen on %s: %s\n", path,
                strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return fd;
}

/*
 * The machine, with the options the shim takes from the environment
 * (cuda/cudart/rt.c): the processes' copies and this one must agree.
 */
static struct p2psim *server_open(const char *file)
{
    struct p2psim_options opt = { 0 };
    opt.engine = getenv("P2PSIM_ENGINE");
    opt.fidelity = getenv("P2PSIM_FIDELITY");
    opt.overrides = getenv("P2PSIM_SET");
    opt.vm = getenv("P2PSIM_VM");
    /* As every command loads it: a bad api-costs: is an error of the
     * file here too, though the processes' runtimes read them. */
    struct p2psim *p = cli_open_opt(file, &opt);
    struct sim_error err;
    sim_error_clear(&err);
    /* The trace of the program (P2PSIM_TRACE...): the server simulates. */
    if (p && p2psim_trace_from_env(p, &err) < 0) {
        char buf[700];
        fprintf(stderr, "%s\n", sim_error_format(&err, buf, sizeof(buf)));
        p2psim_close(p);
        p = NULL;
    }
    return p;
}

static void server_usage(FILE *f)
{
    fprintf(f,
            SERVER_USAGE "\n\n"
            "Serve one simulated machine to every process of a program "
            "(CUDA IPC,\nmulti-process programs). The CUDA runtime of a "
            "process with\nP2PSIM_SERVER=PATH in its environment uses this "
            "machine instead of one\nof its own. `p2psim run` starts a "
            "server for its program by itself.\n\n"
            "options:\n"
            "  --socket PATH    the UNIX socket to listen on (removed at "
            "exit)\n"
            "  --topology FILE  the machine file; default: the built-in "
            "default machine\n"
            "  --quiet          no message when ready\n\n"
            "It runs until SIGTERM or SIGINT. Processes must load the same "
            "machine\n(P2PSIM_TOPOLOGY); a process with another is "
            "refused. P2PSIM_ENGINE,\nP2PSIM_FIDELITY and P2PSIM_SET apply "
            "as they do to the processes.\n");
}

int cmd_server(int argc, char **argv)
{
    static const struct option opts[] = {
        { "socket", required_argument, NULL, 's' },
        { "topology", required_argument, NULL, 't' },
        { "listen-fd", required_argument, NULL, 'l' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *path = NULL, *topology = NULL;
    int listen_fd = -1, c;
    bool quiet = false;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
        switch (c) {
        case 's': path = optarg; break;
        case 't': topology = optarg; break;
        case 'l': listen_fd = atoi(optarg); break;
        case 'q': quiet = true; break;
        case 'h': server_usage(stdout); return CLI_OK;
        default: fprintf(stderr, "%s\n", SERVER_USAGE); return CLI_BAD_INPUT;
        }
    }
    if (optind < argc || (!path && listen_fd < 0)) {
        fprintf(stderr, "p2psim server: %s (%s)\n",
                optind < argc ? "unexpected argument" : "no --socket given",
                SERVER_USAGE);
        return CLI_BAD_INPUT;
    }
    struct p2psim *p = server_open(topology);
    if (!p) {
        return CLI_BAD_INPUT;
    }
    struct server s;
    if (srv_init(&s, p) < 0) {
        fprintf(stderr, "p2psim server: out of memory\n");
        p2psim_close(p);
        return CLI_FAIL;
    }
    s.stop = &srv_stop;
    s.listen_fd = listen_fd >= 0 ? listen_fd : listen_on(path);
    if (s.listen_fd < 0) {
        srv_fini(&s);
        p2psim_close(p);
        return CLI_FAIL;
    }
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* Blocked but while the server waits or simulates (server_loop.c). */
    sigset_t stop, wait_mask;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigprocmask(SIG_BLOCK, &stop, &wait_mask);
    sigdelset(&wait_mask, SIGTERM);
    sigdelset(&wait_mask, SIGINT);
    if (!quiet) {
        fprintf(stderr, "p2psim server: machine %s on %s\n",
                p2psim_machine_name(s.p), path ? path : "(inherited socket)");
    }
    int rc = srv_serve(&s, &wait_mask, &stop) ? CLI_FAIL : CLI_OK;
    if (path) {
        unlink(path);
    }
    close(s.listen_fd);
    srv_fini(&s);
    /* Operations still in the simulation are dropped with the machine
     * (srv_fini freed the server's part of them). */
    p2psim_close(p);
    return rc;
}

