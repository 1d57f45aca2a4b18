/*
 * tools/cmd_server.c - `p2psim server --socket PATH [--topology FILE]`:
 * one simulated machine shared by every process of a program.
 *
 * The CUDA shim in each process (cuda/cudart/remote.c) connects to the
 * UNIX socket named by P2PSIM_SERVER and sends its machine operations
 * here (copies, fills, timers, HBM allocation and bytes, pinned host
 * memory, IPC exports); this process runs them on its machine and sends
 * each completion back to the process that asked, at the simulated time it
 * happens. `p2psim run` starts a server for every program (cmd_run.c):
 * it binds the socket itself and hands the listening descriptor over with
 * the internal option --listen-fd, so the program can connect from its
 * first instruction.
 *
 * The protocol and its rules of time are in cuda/server/wire.h. In short:
 * the simulation runs only while no client is busy and at least one is
 * waiting inside the simulator; it stops at the first completion for any
 * client (then every event of that same instant), or at the smallest of
 * the waiting clients' deadlines; the completions go out as batches, and a
 * client that got a batch is busy until it says it is idle again.
 *
 * Host memory: a client's pinned memory is a memfd it passes along with
 * WIRE_HOST_REGISTER; the server maps the same pages and registers them
 * with its machine, so the copy engines move the client's bytes in place.
 *
 * Kernels: a client loads each module's PTX text once (WIRE_MODULE_LOAD);
 * this process parses it, and runs a grid of one of its kernels when the
 * client's stream reaches the launch (WIRE_KERNEL_LAUNCH), on its
 * machine's SMs. The grid's addresses resolve through the table of ranges
 * the launch carries (the client's allocations as they stood when the
 * grid started; any other address is illegal, as in the client's own
 * process); host memory among them is the client's memfds above, so a
 * kernel reads what the program's threads store there. The grid's end
 * goes back as a callback carrying the failure's message.
 *
 * The messages and time: cuda/server/server.c (this file reads whole messages
 * off the sockets and waits); IPC and who owns which HBM:
 * cuda/server/server_ipc.c.
 *
 * A client that disconnects is gone: its queued callbacks are dropped,
 * its operations still in the simulation finish without a recipient
 * while other clients keep time going (a run in progress stops at once
 * when a client hangs up, so a long simulation does not go on for a
 * process that has left), its HBM and host memory are released (host
 * memory and PTX modules once those operations are over; HBM that other
 * processes have open, when they close it). At exit every operation still
 * in the simulation is freed.
 *
 * Out of memory inside the simulation (sim/error.h) fails it: the server
 * prints "p2psim server: error: <the failure>" once, answers every wait
 * with an END that says so (the shim's waits then return
 * cudaErrorMemoryAllocation) and every request that would start
 * something in the simulation with -SIM_ENOMEM, and keeps serving the
 * rest (frees, closes, reads) until the last client is gone; then it
 * exits 1, as it does when stopped by a signal after the failure.
 *
 * Not modelled: several machines per server, clients of different
 * machines (HELLO refuses a client whose machine differs), persistence.
 * The nonces protect against mistakes and forgeries by programs, not
 * against a hostile user of the same account, who could read the
 * server's memory anyway. Still no message crashes the server or makes
 * it allocate without bound (server.c); a client that stops in the
 * middle of a message or stops reading stalls the others for at most
 * SRV_IO_TIMEOUT_S seconds, then is dropped.
 */
#define _GNU_SOURCE /* accept4, MSG_CMSG_CLOEXEC */
#include <config.h>

#include "cuda/server/server.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "machine/p2psim.h"
#include "sim/error.h"
#include "tools/cli.h"

#define SERVER_USAGE                                                          \
    "usage: p2psim server --socket PATH [--topology FILE] [--quiet]"

/*
 * SIGTERM and SIGINT stop the server within a second, also in the middle
 * of a long simulation: the handler only sets srv_stop; the signals are
 * blocked except while the server waits in ppoll or simulates, and a run
 * looks at srv_stop before every event (server.c, may_go_on).
 */
static volatile sig_atomic_t srv_stop;
/* The signal mask while waiting or simulating: the stop signals unblocked. */
static sigset_t srv_wait_mask;

static void on_signal(int sig)
{
    (void)sig;
    srv_stop = 1;
}

/* ---- reading -------------------------------------------------------------------- */

static int read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR && !srv_stop) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Read one message of c (its header with a descriptor, if any). */
static int receive(struct server *s, struct srv_client *c,
                   struct wire_hdr *h, int *fd)
{
    *fd = -1;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct iovec iov = { h, sizeof(*h) };
    struct msghdr msg = {
        .msg_iov = &iov,
        .msg_iovlen = 1,
        .msg_control = ctl.buf,
        .msg_controllen = sizeof(ctl.buf),
    };
    ssize_t n;
    do {
        n = recvmsg(c->fd, &msg, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR && !srv_stop);
    if (n <= 0) {
        return -1;
    }
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm;
         cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
            cm->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int got;
            memcpy(&got, CMSG_DATA(cm), sizeof(int));
            if (*fd >= 0) {
                close(got);     /* one descriptor per message */
            } else {
                *fd = got;
            }
        }
    }
    if ((size_t)n < sizeof(*h) &&
        read_full(c->fd, (char *)h + n, sizeof(*h) - (size_t)n) < 0) {
        return -1;
    }
    if (h->len > WIRE_MAX_PAYLOAD || read_full(c->fd, s->buf, h->len) < 0) {
        return -1;
    }
    return 0;
}

static void client_readable(struct server *s, struct srv_client *c)
{
    struct wire_hdr h;
    int fd;
    if (receive(s, c, &h, &fd) < 0) {
        if (fd >= 0) {
            close(fd);
        }
        srv_client_drop(s, c);
        return;
    }
    srv_handle(s, c, &h, h.type == WIRE_HOST_REGISTER ? fd : -1);
    if (fd >= 0) {
        close(fd);
    }
}

static void accept_client(struct server *s)
{
    int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) {
        return;
    }
    if (!srv_client_new(s, fd)) {
        fprintf(stderr, "p2psim server: a connection refused (%u clients "
                        "at most)\n", SRV_MAX_CLIENTS);
    }
}

/* Wait for the next messages (timeout_ms -1: forever) and serve them. */
static void serve_io(struct server *s, int timeout_ms)
{
    unsigned n = 0;
    struct pollfd *pfd = calloc(s->n_live + 1, sizeof(*pfd));
    struct srv_client **who = calloc(s->n_live + 1, sizeof(*who));
    if (!pfd || !who) {
        free(pfd);
        free(who);
        return;
    }
    pfd[n++] = (struct pollfd){ .fd = s->listen_fd, .events = POLLIN };
    for (struct srv_client *c = s->clients; c; c = c->next) {
        if (c->fd >= 0) {
            who[n] = c;
            pfd[n++] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
        }
    }
    /* ppoll with the stop signals unblocked only while waiting: a signal
     * that arrives between the loop's check of srv_stop and the wait
     * cannot be lost (it stays pending until ppoll, which it ends). */
    struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
    int ready = ppoll(pfd, n, timeout_ms < 0 ? NULL : &ts, &srv_wait_mask);
    sigprocmask(SIG_SETMASK, &srv_wait_mask, NULL);
    if (ready > 0 && !srv_stop) {
        for (unsigned i = 1; i < n; i++) {
            if (pfd[i].revents && who[i]->fd >= 0) {
                client_readable(s, who[i]);
            }
        }
        if (pfd[0].revents & POLLIN) {
            accept_client(s);
        }
    }
    free(pfd);
    free(who);
}

static int serve(struct server *s, const sigset_t *stop_set)
{
    for (;;) {
        /* The stop signals are unblocked while simulating and reading. */
        sigprocmask(SIG_SETMASK, &srv_wait_mask, NULL);
        bool busy = !srv_stop && srv_step(s);
        /* Blocked from the last look at srv_stop to ppoll, which unblocks
         * them: a signal in between stays pending and ends the wait. */
        sigprocmask(SIG_BLOCK, stop_set, NULL);
        if (srv_stop || (srv_failed(s) && s->n_live == 0)) {
            break;
        }
        /* busy: let new connections and come-backs in between steps */
        serve_io(s, busy ? 0 : -1);
    }
    /* The simulation failed: srv_failed printed why. */
    return srv_failed(s) ? CLI_FAIL : CLI_OK;
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
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim *p = p2psim_open(file, &opt, &err);
    /* The trace of the program (P2PSIM_TRACE...): the server simulates. */
    if (p && p2psim_trace_from_env(p, &err) < 0) {
        p2psim_close(p);
        p = NULL;
    }
    if (!p) {
        char buf[700];
        fprintf(stderr, "%s\n", sim_error_format(&err, buf, sizeof(buf)));
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
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigprocmask(SIG_BLOCK, &stop, &srv_wait_mask);
    sigdelset(&srv_wait_mask, SIGTERM);
    sigdelset(&srv_wait_mask, SIGINT);
    if (!quiet) {
        fprintf(stderr, "p2psim server: machine %s on %s\n",
                p2psim_machine_name(s.p), path ? path : "(inherited socket)");
    }
    int rc = serve(&s, &stop);
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

