/*
 * common/fdio.h - whole reads and writes on a descriptor, and a message's
 * first bytes with a descriptor passed alongside (SCM_RIGHTS), for the
 * p2psim server and the CUDA shim's client of it (cuda/server/,
 * cuda/cudart/remote.c), which speak cuda/server/wire.h on a UNIX stream
 * socket.
 *
 * Each call loops over short reads and writes and retries what a signal
 * interrupts (EINTR), unless *stop is set (stop NULL: always retries), so
 * a server's signal handler can end a wait. Writes never raise SIGPIPE
 * (MSG_NOSIGNAL on a socket; on another kind of descriptor, such as a
 * pipe, the caller ignores SIGPIPE if it wants to). A descriptor's
 * timeouts (SO_RCVTIMEO, SO_SNDTIMEO) end a call with an error.
 */
#ifndef P2PSIM_COMMON_FDIO_H
#define P2PSIM_COMMON_FDIO_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Read len bytes into buf. Returns len; fewer when the end of file came
 * first (0: at once, so a peer that hung up between messages reads 0);
 * -1 on an error (errno).
 */
ssize_t fdio_read_all(int fd, void *buf, size_t len,
                      const volatile sig_atomic_t *stop);

/* Write len bytes of buf: 0, or -1 on an error (errno). */
int fdio_write_all(int fd, const void *buf, size_t len,
                   const volatile sig_atomic_t *stop);

/*
 * fdio_write_fd - fdio_write_all with descriptor pass_fd (>= 0; -1: none)
 * passed with the first bytes. fdio_read_fd - fdio_read_all, the first
 * bytes read with recvmsg: *got_fd is the descriptor that came with them
 * (close-on-exec), or -1; a message carries one at most, so any more are
 * closed. *got_fd is set whatever the result, and the caller owns it.
 */
int fdio_write_fd(int fd, const void *buf, size_t len, int pass_fd,
                  const volatile sig_atomic_t *stop);
ssize_t fdio_read_fd(int fd, void *buf, size_t len, int *got_fd,
                     const volatile sig_atomic_t *stop);

#endif /* P2PSIM_COMMON_FDIO_H */
