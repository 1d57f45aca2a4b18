/*
 * tests/server/check_server.c - the p2psim server's protocol handler
 * (cuda/server/server.c) driven in this process, as fuzz/fuzz_server.c drives
 * it: a client on a socketpair whose far end the test reads.
 *
 * Suite server-oom: the simulation fails inside a run (an event of the
 * test calls sim_fail_nomem, as a model that cannot allocate does); the
 * server must print "p2psim server: error: <the failure>" once, end the
 * waiting client's batch with wire_end.failed, refuse what would start
 * something in the simulation with -SIM_ENOMEM and still serve the rest.
 *
 * Suite server-table: wire.h's table of messages is the protocol (its
 * numbers, sizes and flags as the shim and the fuzz corpus have them), and
 * the server checks every request's size against it: one byte more or
 * less than its struct (more where nothing may follow) drops the client.
 */
#include <config.h>

#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cuda/server/wire.h"
#include "machine/p2psim.h"
#include "sim/error.h"
#include "sim/event.h"
#include "sim/sim.h"
#include "cuda/server/server.h"

struct tc {
    struct p2psim *p;
    struct server s;
    struct srv_client *c;
    int far;                    /* the client's end */
    uint64_t seq;
};

static void tc_send(struct tc *t, uint32_t type, const void *m, size_t len)
{
    unsigned char buf[sizeof(struct wire_hdr) + 256];
    struct wire_hdr h = { .type = type, .len = (uint32_t)len, .seq = ++t->seq };
    ck_assert_uint_le(len, 256);
    memcpy(buf, &h, sizeof(h));
    if (len) {
        memcpy(buf + sizeof(h), m, len);   /* m may be NULL when len is 0 */
    }
    ck_assert_int_eq(srv_message(&t->s, t->c, buf, sizeof(h) + len, -1), 0);
}

/* The next message the client gets: its header and up to cap bytes. */
static struct wire_hdr tc_recv(struct tc *t, void *payload, size_t cap)
{
    struct wire_hdr h;
    ck_assert_int_eq(recv(t->far, &h, sizeof(h), MSG_WAITALL),
                     (ssize_t)sizeof(h));
    ck_assert_uint_le(h.len, cap);
    if (h.len) {
        ck_assert_int_eq(recv(t->far, payload, h.len, MSG_WAITALL),
                         (ssize_t)h.len);
    }
    return h;
}

static bool tc_nothing_more(struct tc *t)
{
    char b;
    return recv(t->far, &b, 1, MSG_DONTWAIT) < 0;
}

static struct wire_reply tc_call(struct tc *t, uint32_t type, const void *m,
                                 size_t len)
{
    tc_send(t, type, m, len);
    struct wire_reply r;
    unsigned char buf[sizeof(r) + 64];
    struct wire_hdr h = tc_recv(t, buf, sizeof(buf));
    ck_assert_uint_eq(h.type, WIRE_REPLY);
    ck_assert_uint_eq(h.seq, t->seq);
    memcpy(&r, buf, sizeof(r));
    return r;
}

static void tc_open(struct tc *t)
{
    memset(t, 0, sizeof(*t));
    struct p2psim_options opt = { .overrides = "gpus.*.set.memory=256MiB" };
    struct sim_error err;
    sim_error_clear(&err);
    t->p = p2psim_open("desktop-2x-geforce", &opt, &err);
    ck_assert_msg(t->p != NULL, "%s", err.msg);
    ck_assert_int_eq(srv_init(&t->s, t->p), 0);
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
                     0);
    t->c = srv_client_new(&t->s, sv[0]);
    ck_assert_ptr_nonnull(t->c);
    t->far = sv[1];
    struct wire_hello m = { .version = WIRE_VERSION, .pid = 100,
                            .n_gpus = p2psim_gpu_count(t->p) };
    snprintf(m.machine, sizeof(m.machine), "%s", p2psim_machine_name(t->p));
    ck_assert_int_eq(tc_call(t, WIRE_HELLO, &m, sizeof(m)).rc, 0);
}

static void tc_close(struct tc *t)
{
    srv_fini(&t->s);
    p2psim_close(t->p);
    close(t->far);
}

static void fail_now(struct sim *sim, struct sim_event *ev)
{
    (void)ev;
    sim_fail_nomem(sim, "the test", "a forced failure");
}

/* stderr into a file while the server runs; returns the saved stderr. */
static int stderr_to(FILE *f)
{
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_ge(dup2(fileno(f), STDERR_FILENO), 0);
    return saved;
}

static void stderr_back(int saved)
{
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
}

START_TEST(test_failure_answers_waits_and_requests)
{
    struct tc t;
    tc_open(&t);
    /* A timer the client waits for, after the failing event: it never
     * fires. */
    struct wire_timer tm = { .at = 5000, .cb = 7 };
    ck_assert_int_eq(tc_call(&t, WIRE_TIMER, &tm, sizeof(tm)).rc, 0);
    struct sim_event ev;
    sim_event_init(&ev, fail_now);
    ck_assert_int_eq(sim_event_schedule_at(t.s.sim, &ev, 1000), 0);

    FILE *log = tmpfile();
    ck_assert_ptr_nonnull(log);
    int saved = stderr_to(log);
    struct wire_idle idle = { .limit = UINT64_MAX };
    tc_send(&t, WIRE_IDLE, &idle, sizeof(idle));
    for (int k = 0; k < 4 && srv_step(&t.s); k++) {
    }
    bool failed = srv_failed(&t.s);
    stderr_back(saved);
    ck_assert(failed);

    /* The waiting client: a batch of just an END that says it failed. */
    struct wire_end e;
    struct wire_hdr h = tc_recv(&t, &e, sizeof(e));
    ck_assert_uint_eq(h.type, WIRE_END);
    ck_assert_uint_eq(h.len, sizeof(e));
    ck_assert_uint_eq(e.failed, 1);
    ck_assert_uint_eq(e.nothing, 1);
    ck_assert_uint_eq(h.now, 1000);
    ck_assert(tc_nothing_more(&t));

    saved = stderr_to(log);
    /* What would start something in the simulation is refused... */
    ck_assert_int_eq(tc_call(&t, WIRE_TIMER, &tm, sizeof(tm)).rc,
                     -SIM_ENOMEM);
    struct wire_fill f = { .gpu = 0, .value = 1, .len = 4096, .cb = 8 };
    ck_assert_int_eq(tc_call(&t, WIRE_FILL, &f, sizeof(f)).rc, -SIM_ENOMEM);
    /* ... the rest is served (a program frees what it has)... */
    struct wire_hbm a = { .gpu = 0, .len = 4096, .align = 256 };
    struct wire_reply r = tc_call(&t, WIRE_HBM_ALLOC, &a, sizeof(a));
    ck_assert_int_eq(r.rc, 0);
    a.off = r.v[0];
    ck_assert_int_eq(tc_call(&t, WIRE_HBM_FREE, &a, sizeof(a)).rc, 0);
    /* ... and every later wait is answered at once, the same way. */
    ck_assert_int_eq(tc_call(&t, WIRE_BUSY, NULL, 0).rc, 0);
    idle.limit = 900000;
    tc_send(&t, WIRE_IDLE, &idle, sizeof(idle));
    ck_assert(!srv_step(&t.s));
    stderr_back(saved);
    h = tc_recv(&t, &e, sizeof(e));
    ck_assert_uint_eq(h.type, WIRE_END);
    ck_assert_uint_eq(e.failed, 1);
    ck_assert_uint_eq(h.now, 1000);
    ck_assert(!srv_step(&t.s));
    ck_assert(tc_nothing_more(&t));

    /* The message, once. */
    char text[2048];
    rewind(log);
    size_t n = fread(text, 1, sizeof(text) - 1, log);
    text[n] = '\0';
    fclose(log);
    const char *want = "p2psim server: error: out of memory in the test at ";
    const char *at = strstr(text, want);
    ck_assert_msg(at != NULL, "stderr: %s", text);
    ck_assert_msg(strstr(at + 1, "p2psim server: error:") == NULL,
                  "printed twice: %s", text);
    ck_assert_msg(strstr(text, "(a forced failure)\n") != NULL, "stderr: %s",
                  text);
    tc_close(&t);
}
END_TEST

START_TEST(test_table_is_the_protocol)
{
    /* the numbers of WIRE_VERSION 4 (as of 3) */
    ck_assert_uint_eq(WIRE_HELLO, 1);
    ck_assert_uint_eq(WIRE_HOST_REGISTER, 7);
    ck_assert_uint_eq(WIRE_IPC_EVENT_EXPORT, 18);
    ck_assert_uint_eq(WIRE_KERNEL_LAUNCH, 26);
    ck_assert_uint_eq(WIRE_CLIENT_LAST, 27);
    ck_assert_uint_eq(WIRE_REPLY, 100);
    ck_assert_uint_eq(WIRE_CALLBACK, 101);
    ck_assert_uint_eq(WIRE_END, 102);
    ck_assert_ptr_null(wire_request(WIRE_NONE));
    ck_assert_ptr_null(wire_request(WIRE_CLIENT_LAST));
    ck_assert_ptr_null(wire_request(WIRE_REPLY));
    ck_assert_uint_eq(wire_request(WIRE_HELLO)->size, sizeof(struct wire_hello));
    ck_assert_uint_eq(wire_request(WIRE_BUSY)->size, 0);
    ck_assert_uint_eq(wire_request(WIRE_IPC_EVENT_EXPORT)->size,
                      sizeof(struct wire_ipc_event));
    ck_assert_uint_eq(wire_request(WIRE_HOST_REGISTER)->flags, WIRE_F_FD);
    ck_assert_uint_eq(wire_request(WIRE_KERNEL_LAUNCH)->flags,
                      WIRE_F_TAIL | WIRE_F_STARTS);
    ck_assert_uint_eq(wire_request(WIRE_IDLE)->flags, WIRE_F_NO_REPLY);
    ck_assert_uint_eq(wire_request(WIRE_LINK_STAT)->reply_data,
                      sizeof(struct wire_link_stat));
    ck_assert_str_eq(wire_type_name(WIRE_IPC_EVENT_WAIT), "IPC_EVENT_WAIT");
    ck_assert_str_eq(wire_type_name(WIRE_END), "END");
    ck_assert_str_eq(wire_type_name(50), "unknown");
    size_t more;
    ck_assert_uint_eq(wire_server_size(WIRE_CALLBACK, &more),
                      sizeof(struct wire_callback));
    ck_assert_uint_eq(more, WIRE_MSG_MAX);
    ck_assert_uint_eq(wire_server_size(WIRE_HELLO, &more), SIZE_MAX);
}
END_TEST

/* Request _i + 1 with one byte too few (or, with nothing allowed after
 * its struct, too many): the client is dropped. */
START_TEST(test_wrong_size_drops)
{
    uint32_t type = (uint32_t)_i + 1;
    const struct wire_request_info *ri = wire_request(type);
    ck_assert_ptr_nonnull(ri);
    size_t len = ri->size ? ri->size - 1 : 1;
    if (ri->size && !(ri->flags & WIRE_F_TAIL) && _i % 2) {
        len = ri->size + 1;
    }
    struct tc t;
    tc_open(&t);
    FILE *err = tmpfile();
    ck_assert_ptr_nonnull(err);
    int saved = stderr_to(err);
    unsigned char buf[sizeof(struct wire_hdr) + 512] = { 0 };
    struct wire_hdr h = { .type = type, .len = (uint32_t)len, .seq = 9 };
    memcpy(buf, &h, sizeof(h));
    int rc = srv_message(&t.s, t.c, buf, sizeof(h) + len, -1);
    stderr_back(saved);
    char text[2048];
    rewind(err);
    size_t n = fread(text, 1, sizeof(text) - 1, err);
    text[n] = '\0';
    fclose(err);
    ck_assert_int_eq(rc, -1);
    char want[96];
    snprintf(want, sizeof(want), "(%s, %zu bytes); dropping it", ri->name,
             len);
    ck_assert_msg(strstr(text, want) != NULL, "stderr: %s", text);
    /* a right one on a live client is answered */
    tc_close(&t);
    tc_open(&t);
    ck_assert_int_eq(tc_call(&t, WIRE_STATS, NULL, 0).rc, 0);
    tc_close(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server-oom");
    TCase *tc = tcase_create("server-oom");
    tcase_add_test(tc, test_failure_answers_waits_and_requests);
    suite_add_tcase(s, tc);
    Suite *s2 = suite_create("server-table");
    TCase *tc2 = tcase_create("server-table");
    tcase_set_timeout(tc2, 30);
    tcase_add_test(tc2, test_table_is_the_protocol);
    tcase_add_loop_test(tc2, test_wrong_size_drops, 0, WIRE_CLIENT_LAST - 1);
    suite_add_tcase(s2, tc2);
    SRunner *sr = srunner_create(s);
    srunner_add_suite(sr, s2);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
