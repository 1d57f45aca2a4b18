/*
 * common/realclock.c - the kernel's clocks and sleep, by system call (see
 * realclock.h): a system call is never interposed, where the C library's
 * functions are (LD_PRELOAD of cuda/host/'s library).
 */
#include <config.h>

#include "common/realclock.h"

#include <sys/syscall.h>
#include <unistd.h>

int p2psim_real_clock_gettime(clockid_t id, struct timespec *ts)
{
    return (int)syscall(SYS_clock_gettime, id, ts);
}

uint64_t real_clock_ns(clockid_t id)
{
    struct timespec ts;
    if (p2psim_real_clock_gettime(id, &ts) != 0) {
        return 0;
    }
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int real_nanosleep(const struct timespec *req, struct timespec *rem)
{
    return (int)syscall(SYS_nanosleep, req, rem);
}
