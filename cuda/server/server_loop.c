/*
 * cuda/server/server_loop.c - the p2psim server's loop on its sockets:
 * accept clients on the listening socket, read whole messages off theirs
 * (a header with the descriptor it may carry, then its payload; common/
 * fdio.h) and hand them to server.c, and between messages let server.c
 * advance the simulation (srv_step). `p2psim server` (tools/cmd_server.c)
 * opens the machine and the socket, sets the signals up and calls
 * srv_serve; tests and the fuzzing harnesses call server.c directly.
 *
 * Signals: the stop signals are unblocked only while the loop waits in
 * ppoll or simulates, and a run looks at *s->stop before every event
 * (server.c, may_go_on), so SIGTERM and SIGINT stop the server within a
 * second, also in the middle of a long simulation.
 */
#define _GNU_SOURCE /* accept4, ppoll */
#include <config.h>

#include "cuda/server/server.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/fdio.h"

static bool stopped(const struct server *s)
{
    return s->stop && *s->stop;
}

/* Read one message of c (its header with a descriptor, if any). */
static int receive(struct server *s, struct srv_client *c,
                   struct wire_hdr *h, int *fd)
{
    if (fdio_read_fd(c->fd, h, sizeof(*h), fd, s->stop) !=
        (ssize_t)sizeof(*h)) {
        return -1;
    }
    if (h->len > WIRE_MAX_PAYLOAD ||
        fdio_read_all(c->fd, s->buf, h->len, s->stop) != (ssize_t)h->len) {
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
    srv_handle(s, c, &h, wire_request_flags(h.type) & WIRE_F_FD ? fd : -1);
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
static void serve_io(struct server *s, int timeout_ms,
                     const sigset_t *wait_mask)
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
     * that arrives between the loop's check of the stop flag and the wait
     * cannot be lost (it stays pending until ppoll, which it ends). */
    struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
    int ready = ppoll(pfd, n, timeout_ms < 0 ? NULL : &ts, wait_mask);
    sigprocmask(SIG_SETMASK, wait_mask, NULL);
    if (ready > 0 && !stopped(s)) {
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

int srv_serve(struct server *s, const sigset_t *wait_mask,
              const sigset_t *stop_set)
{
    for (;;) {
        /* The stop signals are unblocked while simulating and reading. */
        sigprocmask(SIG_SETMASK, wait_mask, NULL);
        bool busy = !stopped(s) && srv_step(s);
        /* Blocked from the last look at the flag to ppoll, which unblocks
         * them: a signal in between stays pending and ends the wait. */
        sigprocmask(SIG_BLOCK, stop_set, NULL);
        if (stopped(s) || (srv_failed(s) && s->n_live == 0)) {
            break;
        }
        /* busy: let new connections and come-backs in between steps */
        serve_io(s, busy ? 0 : -1, wait_mask);
    }
    /* The simulation failed: srv_failed printed why. */
    return srv_failed(s) ? 1 : 0;
}
