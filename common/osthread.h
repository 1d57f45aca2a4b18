/*
 * common/osthread.h - what the kernel says of the process's threads, for
 * the CUDA runtime's question "is a thread that is not in a CUDA call
 * blocked, or still working?" (cuda/cudart/rt.c) and for p2psim replay's
 * threads (tools/replay.c). Linux /proc; elsewhere every answer is
 * "blocked", which is the runtime's behaviour without these probes.
 *
 * A thread the kernel reports as runnable is computing (or about to), and
 * the simulation waits for its next call however loaded the machine is; a
 * thread asleep in the kernel (a barrier, a join, a read) cannot call CUDA
 * until something wakes it, so time may go on without it.
 */
#ifndef P2PSIM_COMMON_OSTHREAD_H
#define P2PSIM_COMMON_OSTHREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The calling thread's kernel thread id. */
pid_t osthread_self(void);

/* Thread tid of this process is working: running or runnable (state R),
 * or in a short uninterruptible wait of the kernel's own (D: a page fault
 * waiting for the memory map's lock, disk I/O). False when it sleeps
 * interruptibly (a futex, a join, a read), is stopped, has exited, or
 * /proc cannot tell. */
bool osthread_runnable(pid_t tid);

/* CPU time the thread has used, ns; 0 if it cannot be read. */
uint64_t osthread_cpu_ns(pthread_t th);

/* CPU time (user + system) of thread tid of this process, ns, from /proc
 * (clock-tick resolution); 0 if it cannot be read. */
uint64_t osthread_cpu_ns_tid(pid_t tid);

/* Looks at one thread, for "is it blocked?": asleep in the kernel at this
 * look and at the one before, without using CPU time in between (a thread
 * that only paused on a lock has moved on by then). A look that finds it
 * working forgets the earlier one (seen is then false). */
struct osthread_look {
    bool seen;                  /* asleep at the last look */
    uint64_t cpu;               /* its CPU time then, ns */
};
bool osthread_asleep_twice(struct osthread_look *l, pid_t tid, pthread_t th);

/* How many threads this process has (from /proc/self/stat); 0 if it
 * cannot tell. */
unsigned osthread_count(void);

/* The ids of this process's threads, at most max of them, into tids;
 * returns how many there are (may exceed max), 0 if /proc cannot tell. */
unsigned osthread_list(pid_t *tids, unsigned max);

#endif /* P2PSIM_COMMON_OSTHREAD_H */
