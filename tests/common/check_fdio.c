/*
 * tests/common/check_fdio.c - common/fdio.c: whole reads and writes
 * through pipes and socketpairs that deliver a few bytes at a time, the
 * end of file in the middle of a message, interrupted calls with and
 * without a stop flag, and a descriptor passed with a message's first
 * bytes.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/fdio.h"
#include "tests/check_p2psim.h"

static void sleep_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/* A writer that sends len bytes of a pattern in pieces of `piece`,
 * pausing between them, so that the reader sees short reads. */
struct dribble {
    int fd;
    size_t len, piece;
    long pause_us;
    pthread_t reader;           /* signalled first when signal is set */
    int signal;
};

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 131u + 7u);
}

static void *dribble_main(void *arg)
{
    struct dribble *d = arg;
    if (d->signal) {
        sleep_us(20000);        /* the reader blocks in read by then */
        pthread_kill(d->reader, d->signal);
        sleep_us(20000);
    }
    unsigned char buf[256];
    for (size_t at = 0; at < d->len;) {
        size_t n = d->len - at < d->piece ? d->len - at : d->piece;
        for (size_t i = 0; i < n; i++) {
            buf[i] = pattern(at + i);
        }
        ck_assert_int_eq(write(d->fd, buf, n), (ssize_t)n);
        at += n;
        sleep_us(d->pause_us);
    }
    return NULL;
}

static void check_pattern(const unsigned char *b, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        ck_assert_uint_eq(b[i], pattern(i));
    }
}

START_TEST(test_read_all_short_reads)
{
    /* _i: 0 a pipe, 1 a socketpair */
    int sv[2];
    ck_assert_int_eq(_i ? socketpair(AF_UNIX, SOCK_STREAM, 0, sv)
                        : pipe(sv), 0);
    struct dribble d = { .fd = sv[1], .len = 1000, .piece = 7,
                         .pause_us = 100 };
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, dribble_main, &d), 0);
    unsigned char buf[1000];
    ck_assert_int_eq(fdio_read_all(sv[0], buf, sizeof(buf), NULL), 1000);
    check_pattern(buf, sizeof(buf));
    pthread_join(t, NULL);
    close(sv[0]);
    close(sv[1]);
}
END_TEST

START_TEST(test_read_all_eof)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    unsigned char buf[16];
    /* the end in the middle of a message: what came, and no more */
    ck_assert_int_eq(write(p[1], "12345", 5), 5);
    close(p[1]);
    ck_assert_int_eq(fdio_read_all(p[0], buf, sizeof(buf), NULL), 5);
    ck_assert_int_eq(memcmp(buf, "12345", 5), 0);
    /* and between messages: 0 */
    ck_assert_int_eq(fdio_read_all(p[0], buf, sizeof(buf), NULL), 0);
    ck_assert_int_eq(fdio_read_all(p[0], buf, 0, NULL), 0);
    close(p[0]);
    /* an error is -1 */
    ck_assert_int_eq(fdio_read_all(p[0], buf, 1, NULL), -1);
    ck_assert_int_eq(errno, EBADF);
}
END_TEST

/* A reader that takes a few bytes at a time, so that writes are short. */
struct sip {
    int fd;
    size_t len, got;
    unsigned char *buf;
};

static void *sip_main(void *arg)
{
    struct sip *s = arg;
    while (s->got < s->len) {
        size_t want = s->len - s->got < 4096 ? s->len - s->got : 4096;
        ssize_t n = read(s->fd, s->buf + s->got, want);
        if (n <= 0) {
            break;
        }
        s->got += (size_t)n;
    }
    return NULL;
}

START_TEST(test_write_all_short_writes)
{
    /* _i: 0 a pipe (write, not send), 1 a socketpair */
    enum { LEN = 1 << 20 };
    int sv[2];
    ck_assert_int_eq(_i ? socketpair(AF_UNIX, SOCK_STREAM, 0, sv)
                        : pipe(sv), 0);
    static unsigned char out[LEN], in[LEN];
    for (size_t i = 0; i < LEN; i++) {
        out[i] = pattern(i);
    }
    struct sip s = { .fd = sv[0], .len = LEN, .buf = in };
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, sip_main, &s), 0);
    ck_assert_int_eq(fdio_write_all(sv[1], out, LEN, NULL), 0);
    pthread_join(t, NULL);
    ck_assert_uint_eq(s.got, LEN);
    check_pattern(in, LEN);
    close(sv[0]);
    /* the peer gone: an error, and no SIGPIPE on a socket */
    if (_i) {
        ck_assert_int_eq(fdio_write_all(sv[1], out, 1, NULL), -1);
        ck_assert_int_eq(errno, EPIPE);
    }
    close(sv[1]);
}
END_TEST

static volatile sig_atomic_t stop_flag;

static void on_usr1(int sig)
{
    (void)sig;
    stop_flag = 1;
}

START_TEST(test_eintr)
{
    /* _i: 0 no stop flag, the read goes on; 1 the flag ends it */
    struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
    stop_flag = 0;
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    struct dribble d = { .fd = p[1], .len = 100, .piece = 10,
                         .reader = pthread_self(), .signal = SIGUSR1 };
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, dribble_main, &d), 0);
    unsigned char buf[100];
    ssize_t n = fdio_read_all(p[0], buf, sizeof(buf),
                              _i ? &stop_flag : NULL);
    ck_assert_int_eq(stop_flag, 1);
    if (_i) {
        ck_assert_int_eq(n, -1);
        ck_assert_int_eq(errno, EINTR);
    } else {
        ck_assert_int_eq(n, 100);
        check_pattern(buf, sizeof(buf));
    }
    pthread_join(t, NULL);
    close(p[0]);
    close(p[1]);
}
END_TEST

START_TEST(test_pass_fd)
{
    int sv[2], p[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ck_assert_int_eq(pipe(p), 0);
    /* a message with a descriptor, whose rest comes later */
    unsigned char msg[40];
    for (size_t i = 0; i < sizeof(msg); i++) {
        msg[i] = pattern(i);
    }
    ck_assert_int_eq(fdio_write_fd(sv[1], msg, 32, p[1], NULL), 0);
    unsigned char in[40];
    int got = -2;
    ck_assert_int_eq(fdio_write_all(sv[1], msg + 32, 8, NULL), 0);
    ck_assert_int_eq(fdio_read_fd(sv[0], in, sizeof(in), &got, NULL), 40);
    check_pattern(in, sizeof(in));
    ck_assert_int_ge(got, 0);
    ck_assert_int_ne(got, p[1]);
    ck_assert_int_eq(fcntl(got, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    /* it is the pipe's write end */
    ck_assert_int_eq(write(got, "x", 1), 1);
    char c = 0;
    ck_assert_int_eq(read(p[0], &c, 1), 1);
    ck_assert_int_eq(c, 'x');
    close(got);
    /* a message without one */
    ck_assert_int_eq(fdio_write_fd(sv[1], msg, 8, -1, NULL), 0);
    got = -2;
    ck_assert_int_eq(fdio_read_fd(sv[0], in, 8, &got, NULL), 8);
    ck_assert_int_eq(got, -1);
    /* the end of file in the middle, after the descriptor came */
    ck_assert_int_eq(fdio_write_fd(sv[1], msg, 4, p[1], NULL), 0);
    close(sv[1]);
    ck_assert_int_eq(fdio_read_fd(sv[0], in, 32, &got, NULL), 4);
    ck_assert_int_ge(got, 0);
    close(got);
    ck_assert_int_eq(fdio_read_fd(sv[0], in, 32, &got, NULL), 0);
    ck_assert_int_eq(got, -1);
    close(sv[0]);
    close(p[0]);
    close(p[1]);
}
END_TEST

Suite *make_fdio_suite(void)
{
    Suite *s = suite_create("fdio");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_read_all_short_reads, 0, 2);
    tcase_add_test(tc, test_read_all_eof);
    tcase_add_loop_test(tc, test_write_all_short_writes, 0, 2);
    tcase_add_loop_test(tc, test_eintr, 0, 2);
    tcase_add_test(tc, test_pass_fd);
    suite_add_tcase(s, tc);
    return s;
}
