/*
 * common/realclock.h - the computer's own clocks and sleeps, for the
 * simulator's uses of time (grace periods, CPU-time probes, hang guards,
 * progress, benchmarks in a program's process). Under `p2psim run` a
 * program's clock_gettime, gettimeofday, time and sleeps read and spend
 * its simulated clock (cuda/host/, docs/cuda-shim-design.md "Time"); these
 * go to the kernel directly, past any such interposition.
 */
#ifndef P2PSIM_COMMON_REALCLOCK_H
#define P2PSIM_COMMON_REALCLOCK_H

#include <stdint.h>
#include <time.h>

/* clock_gettime of the kernel's clock id (a CPU-time clock too). */
int p2psim_real_clock_gettime(clockid_t id, struct timespec *ts);

/* The same in ns; 0 if it cannot be read. */
uint64_t real_clock_ns(clockid_t id);

/* nanosleep of the kernel: a real sleep of req (rem: what is left when a
 * signal interrupted it). */
int real_nanosleep(const struct timespec *req, struct timespec *rem);

#endif /* P2PSIM_COMMON_REALCLOCK_H */
