/*
 * fuzz/server_harness.h - what fuzz_server.c and fuzz_ipc.c share: a
 * p2psim server (cuda/server/server.h) on a fresh machine per input, clients on
 * socketpairs whose far ends the harness drains, and time advanced after
 * every message. Static functions: each harness includes it once.
 *
 * The server's ends are non-blocking: a reply larger than the socket's
 * buffer (an HBM read of up to 1 MiB) cannot be drained while the server
 * writes it in this one thread, so such a send fails and drops that
 * client, as a client that stops reading is dropped after
 * SRV_IO_TIMEOUT_S. Every run of the simulation stops after
 * FH_RUN_EVENTS events (a copy of terabytes would run for hours); what is
 * left in flight is freed by srv_fini, which is part of what is tested;
 * an input stops advancing time after FH_INPUT_EVENTS in all.
 */
#ifndef P2PSIM_FUZZ_SERVER_HARNESS_H
#define P2PSIM_FUZZ_SERVER_HARNESS_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cuda/server/wire.h"
#include "machine/p2psim.h"
#include "sim/error.h"
#include "sim/sim.h"
#include "cuda/server/server.h"


#define FH_CLIENTS 4
#define FH_RUN_EVENTS 5000u
#define FH_STEPS 4              /* srv_step calls after a message, at most */
#define FH_INPUT_EVENTS 50000u  /* no more steps once an input fired these */

struct fh {
    struct p2psim *p;
    struct server s;
    unsigned id[FH_CLIENTS];    /* the server's client ids (0: none) */
    int far[FH_CLIENTS];        /* the harness's end of each client */
};

/* Client i while it is connected (the server frees clients it dropped,
 * so the harness keeps ids, not pointers). */
static struct srv_client *fh_client(struct fh *h, int i)
{
    for (struct srv_client *c = h->s.clients; h->id[i] && c; c = c->next) {
        if (c->id == h->id[i]) {
            return c->fd >= 0 ? c : NULL;
        }
    }
    return NULL;
}

/* The machine: a built-in one of two GPUs (opening the 8-GPU default for
 * every input took 40 ms), p2psim_open finds it by name, with 256 MiB of
 * memory per GPU: the server keeps what clients write to device memory
 * (a memset of 4 GiB holds 4 GiB of the host's; at most the machine's
 * memory, docs/cuda-shim.md), and libFuzzer's limit is 2 GB. */
#ifndef FH_MACHINE
#define FH_MACHINE "desktop-2x-geforce"
#endif
#define FH_HBM_BYTES (UINT64_C(256) << 20)

static int fh_open(struct fh *h)
{
    memset(h, 0, sizeof(*h));
    for (int i = 0; i < FH_CLIENTS; i++) {
        h->far[i] = -1;
    }
    struct p2psim_options opt = { .overrides = "gpus.*.set.memory=256MiB" };
    struct sim_error err;
    sim_error_clear(&err);
    h->p = p2psim_open(FH_MACHINE, &opt, &err);
    if (!h->p) {
        fprintf(stderr, "fuzz: cannot open %s\n", FH_MACHINE);
        abort();
    }
    if (p2psim_hbm_size(h->p, 0) != FH_HBM_BYTES) {
        fprintf(stderr, "fuzz: %s's memory is not 256 MiB\n", FH_MACHINE);
        abort();
    }
    if (srv_init(&h->s, h->p) < 0) {
        p2psim_close(h->p);
        return -1;
    }
    h->s.max_run_events = FH_RUN_EVENTS;
    return 0;
}

/* What the clients were sent: read and dropped; with FH_VERBOSE set in
 * the environment, each reply's rc and each callback are printed (to see
 * what a seed does). */
static void fh_drain(struct fh *h)
{
    static int verbose = -1;
    char buf[65536];
    if (verbose < 0) {
        verbose = getenv("FH_VERBOSE") != NULL;
    }
    for (int i = 0; i < FH_CLIENTS; i++) {
        ssize_t n;
        while (h->far[i] >= 0 &&
               (n = recv(h->far[i], buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
            for (size_t at = 0; verbose && at + sizeof(struct wire_hdr) <= (size_t)n;) {
                struct wire_hdr hd;
                int32_t rc = 0;
                memcpy(&hd, buf + at, sizeof(hd));
                if (at + sizeof(hd) + sizeof(rc) <= (size_t)n) {
                    memcpy(&rc, buf + at + sizeof(hd), sizeof(rc));
                }
                fprintf(stderr, "fuzz: client %d got type %u len %u "
                                "(rc or status %d) at %llu ps\n",
                        i, hd.type, hd.len, rc, (unsigned long long)hd.now);
                at += sizeof(hd) + hd.len;
            }
        }
    }
}

/* Advance as the server's loop would between messages. */
static void fh_steps(struct fh *h)
{
    for (int k = 0; k < FH_STEPS; k++) {
        fh_drain(h);
        if (sim_events_fired(h->s.sim) > FH_INPUT_EVENTS ||
            !srv_step(&h->s)) {
            break;
        }
    }
    fh_drain(h);
}

static void fh_send(struct fh *h, int i, const void *msg, size_t len, int fd)
{
    struct srv_client *c = fh_client(h, i);
    if (c) {
        srv_message(&h->s, c, msg, len, fd);
        fh_steps(h);
    }
}

/* A request made of a type and a payload, as the shim sends it. */
static void fh_request(struct fh *h, int i, uint32_t type, const void *m,
                       size_t len)
{
    unsigned char buf[sizeof(struct wire_hdr) + 256];
    struct wire_hdr hdr = { .type = type, .len = (uint32_t)len, .seq = 1 };
    if (len > 256) {
        return;
    }
    memcpy(buf, &hdr, sizeof(hdr));
    memcpy(buf + sizeof(hdr), m, len);
    fh_send(h, i, buf, sizeof(hdr) + len, -1);
}

/* Client i connects; hello: it says HELLO as the shim does. */
static void fh_connect(struct fh *h, int i, bool hello)
{
    int sv[2];
    if (fh_client(h, i) ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        return;
    }
    if (h->far[i] >= 0) {
        close(h->far[i]);       /* of a client the server dropped */
    }
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    struct srv_client *c = srv_client_new(&h->s, sv[0]);
    h->id[i] = c ? c->id : 0;
    h->far[i] = sv[1];
    if (hello && c) {
        struct wire_hello m = { .version = WIRE_VERSION, .pid = 100u + i,
                                .n_gpus = p2psim_gpu_count(h->p) };
        snprintf(m.machine, sizeof(m.machine), "%s",
                 p2psim_machine_name(h->p));
        fh_request(h, i, WIRE_HELLO, &m, sizeof(m));
    }
}

/* Client i hangs up (the server notices when it next looks). */
static void fh_hangup(struct fh *h, int i)
{
    if (h->far[i] >= 0) {
        close(h->far[i]);
        h->far[i] = -1;
    }
    struct srv_client *c = fh_client(h, i);
    if (c) {
        srv_client_drop(&h->s, c);      /* as when it reads the EOF */
    }
    h->id[i] = 0;
}

/* A memfd of 64 KiB sealed as the shim's are (for WIRE_HOST_REGISTER). */
static int fh_memfd(bool sealed)
{
    int fd = memfd_create("fuzz", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd >= 0 && (ftruncate(fd, 65536) < 0 ||
                    (sealed && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static void fh_close(struct fh *h)
{
    srv_fini(&h->s);
    p2psim_close(h->p);
    for (int i = 0; i < FH_CLIENTS; i++) {
        if (h->far[i] >= 0) {
            close(h->far[i]);
        }
    }
}

#endif /* P2PSIM_FUZZ_SERVER_HARNESS_H */
