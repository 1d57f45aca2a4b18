/*
 * common/fdio.c - whole reads and writes on a descriptor, with a passed
 * descriptor (common/fdio.h). Linux: MSG_NOSIGNAL, MSG_CMSG_CLOEXEC.
 */
#define _GNU_SOURCE /* MSG_CMSG_CLOEXEC */
#include <config.h>

#include "common/fdio.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Retry an interrupted call unless asked to stop. */
static int again(const volatile sig_atomic_t *stop)
{
    return errno == EINTR && !(stop && *stop);
}

ssize_t fdio_read_all(int fd, void *buf, size_t len,
                      const volatile sig_atomic_t *stop)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, p + got, len - got);
        if (n < 0 && again(stop)) {
            continue;
        }
        if (n < 0) {
            return -1;
        }
        if (n == 0) {
            break;              /* end of file */
        }
        got += (size_t)n;
    }
    return (ssize_t)got;
}

/* One send (a write where fd is no socket); as send. */
static ssize_t send_some(int fd, const void *p, size_t len)
{
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) {
        n = write(fd, p, len);
    }
    return n;
}

int fdio_write_all(int fd, const void *buf, size_t len,
                   const volatile sig_atomic_t *stop)
{
    const char *p = buf;
    while (len) {
        ssize_t n = send_some(fd, p, len);
        if (n < 0 && again(stop)) {
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

int fdio_write_fd(int fd, const void *buf, size_t len, int pass_fd,
                  const volatile sig_atomic_t *stop)
{
    if (pass_fd < 0 || len == 0) {
        return fdio_write_all(fd, buf, len, stop);
    }
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof(ctl));
    struct iovec iov = { (void *)buf, len };
    struct msghdr msg = {
        .msg_iov = &iov,
        .msg_iovlen = 1,
        .msg_control = ctl.buf,
        .msg_controllen = sizeof(ctl.buf),
    };
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
    ssize_t n;
    do {
        n = sendmsg(fd, &msg, MSG_NOSIGNAL);
    } while (n < 0 && again(stop));
    if (n <= 0) {
        return -1;
    }
    return fdio_write_all(fd, (const char *)buf + n, len - (size_t)n, stop);
}

ssize_t fdio_read_fd(int fd, void *buf, size_t len, int *got_fd,
                     const volatile sig_atomic_t *stop)
{
    *got_fd = -1;
    if (len == 0) {
        return 0;
    }
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct iovec iov = { buf, len };
    struct msghdr msg = {
        .msg_iov = &iov,
        .msg_iovlen = 1,
        .msg_control = ctl.buf,
        .msg_controllen = sizeof(ctl.buf),
    };
    ssize_t n;
    do {
        n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    } while (n < 0 && again(stop));
    if (n <= 0) {
        return n;
    }
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm;
         cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
            cm->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int got;
            memcpy(&got, CMSG_DATA(cm), sizeof(int));
            if (*got_fd >= 0) {
                close(got);     /* one descriptor per message */
            } else {
                *got_fd = got;
            }
        }
    }
    if ((size_t)n == len) {
        return n;
    }
    ssize_t rest = fdio_read_all(fd, (char *)buf + n, len - (size_t)n, stop);
    return rest < 0 ? -1 : n + rest;
}
