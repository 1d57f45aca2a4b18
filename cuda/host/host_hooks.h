/*
 * cuda/host/host_hooks.h - what libp2psim-host.so (cuda/host/host.c, the
 * library `p2psim run` preloads) asks of the CUDA runtime
 * (cuda/cudart/rt_host.c): the calling thread's simulated clock, a simulated
 * sleep, and "this thread blocks outside the runtime / is back". The
 * runtime hands its hooks over when it loads (p2psim_host_hooks_register, found
 * with dlsym); without them, or when a hook declines, the preload does
 * what the C library does.
 */
#ifndef P2PSIM_CUDA_HOST_HOOKS_H
#define P2PSIM_CUDA_HOST_HOOKS_H

#include <stdint.h>

#define P2PSIM_HOST_HOOKS_VERSION 2

struct p2psim_host_hooks {
    unsigned version;           /* P2PSIM_HOST_HOOKS_VERSION */
    /* The calling thread's simulated clock, ns since the simulation
     * began, into *ns: 1. 0: not a program thread's question (the
     * runtime's own code or threads): read the real clock. */
    int (*clock)(uint64_t *ns);
    /* Sleep ns of simulated time (the thread waits while time moves on;
     * its clock advances by ns): 1. 0: sleep for real. */
    int (*sleep)(uint64_t ns);
    /* The thread is about to block outside the runtime (a barrier, a
     * join, a pipe) until at most simulated time deadline (ns since the
     * simulation began; UINT64_MAX: none): 1, and block_end follows when
     * it is back; 0: not tracked (the runtime's own blocking). */
    int (*block_begin)(uint64_t deadline);
    void (*block_end)(void);
    /* While blocked with a deadline: 1 once simulated time has reached
     * it (the wait times out). */
    int (*block_expired)(void);
};

/* libp2psim-host.so's: take the runtime's hooks (NULL: none). */
void p2psim_host_hooks_register(const struct p2psim_host_hooks *hooks);

#endif /* P2PSIM_CUDA_HOST_HOOKS_H */
