/*
 * cuda/cudart/rt_host.c - the runtime's side of libp2psim-host.so
 * (cuda/host/, which `p2psim run` preloads): the hooks it calls for the
 * program's clocks, sleeps and blocking (cuda/host/host_hooks.h), handed
 * over when this library loads. Without the preload nothing here runs.
 *
 * Model (docs/cuda-shim-design.md, "Time"):
 * - a thread's clock reads as its simulated clock: where its last call
 *   (or return from blocking) left it; pure host computation between
 *   calls costs no simulated time. Each read charges
 *   RT_COST_CLOCK_READ (api-costs clock-read), so a loop that waits for its
 *   own clock to pass a time ends. Before the runtime has started (no call
 *   yet), a thread's reads count from 0 by that cost, and its clock starts
 *   there.
 * - a sleep is rt_wait until the thread's clock plus the sleep: time moves
 *   while it sleeps (once the other threads wait or block too), and it
 *   comes back with its clock exactly that much later. A sleep inside a
 *   host function returns at once: time stands still in a callback.
 * - a thread that blocks outside CUDA is RT_OUTSIDE, "told", until it is
 *   back (rt.c's outside_woken): time moves without it, and when it is back
 *   its clock catches up with the simulation. A timed wait's deadline is
 *   a deadline of the simulation as a waiter's is: time stops there, the
 *   thread counts as running again, and the wait times out
 *   (block_expired) at that simulated time.
 * The runtime's own code and threads (rt_host_lock false) get "no":
 * their clocks and sleeps are real, and their blocking is not counted.
 */
#include <config.h>

#include "cuda/cudart/rt.h"

#include <dlfcn.h>
#include <stdio.h>

#include "cuda/host/host_hooks.h"

static bool host_forked;        /* a child forked after start-up */

static int host_clock(uint64_t *ns)
{
    struct rt_thread *self = rt_self_peek();
    if (self && self->in_callback) {
        /* a host function, with the lock held: the callback's time */
        *ns = rt_machine->now() / SIM_PS_PER_NS;
        return 1;
    }
    if (host_forked || !rt_host_lock()) {
        return 0;
    }
    if (!rt.ready) {
        pthread_mutex_unlock(&rt.lock);
        sim_time_t t = rt_host_pre_now();
        rt_host_pre_clock(rt_costs[RT_COST_CLOCK_READ]);
        *ns = t / SIM_PS_PER_NS;
        return 1;
    }
    /* Not a call: the thread's state, the grace checks' marks and their
     * count of calls stay as they were, so a thread that spins reading
     * its clock while it waits for a callback is still found spinning
     * (P2PSIM_HOST_SPIN_MS) and time moves; its clock catches up at its
     * next call. */
    self = rt_self();
    *ns = self->clock / SIM_PS_PER_NS;
    self->clock = sim_time_add(self->clock, rt_costs[RT_COST_CLOCK_READ]);
    pthread_mutex_unlock(&rt.lock);
    return 1;
}

static int host_sleep(uint64_t ns)
{
    struct rt_thread *self = rt_self_peek();
    if (self && self->in_callback) {
        return 1;
    }
    if (host_forked || !rt_host_lock()) {
        return 0;
    }
    pthread_mutex_unlock(&rt.lock);     /* a program thread: it may call */
    if (rt_enter_nosticky()) {
        return 0;
    }
    self = rt_self();
    sim_time_t until = sim_time_add(self->clock, sim_ns(ns));
    /* The clock is where the sleep ends; a sleep is not a
     * synchronization: no wake-up cost on top. */
    self->clock = until;
    if (rt_machine->now() < until) {
        rt_wait(NULL, NULL, until);
    }
    rt_leave();
    return 1;
}

static int host_block_begin(uint64_t deadline)
{
    if (host_forked || !rt_host_lock()) {
        return 0;
    }
    if (!rt.ready) {
        pthread_mutex_unlock(&rt.lock);
        return 0;               /* no simulation to move */
    }
    struct rt_thread *self = rt_self();
    self->state = RT_OUTSIDE;
    self->told = true;
    self->told_until = deadline == UINT64_MAX ? SIM_TIME_MAX : sim_ns(deadline);
    __atomic_store_n(&self->back, false, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&rt.cond);   /* a waiter may run it now */
    pthread_mutex_unlock(&rt.lock);
    return 1;
}

static void host_block_end(void)
{
    struct rt_thread *self = rt_self_peek();
    if (!self) {
        return;
    }
    /* Said before the lock is taken: a thread that drives the simulation
     * holds it, and must see that this one is back. */
    __atomic_store_n(&self->back, true, __ATOMIC_RELEASE);
    rt_lock();
    self->told = false;
    self->told_until = SIM_TIME_MAX;
    rt_come_in();
    pthread_mutex_unlock(&rt.lock);
}

static int host_block_expired(void)
{
    struct rt_thread *self = rt_self_peek();
    if (!self || !rt_host_lock()) {
        return 1;
    }
    int done = rt_machine->now() >= self->told_until;
    pthread_mutex_unlock(&rt.lock);
    return done;
}

static const struct p2psim_host_hooks host_hooks = {
    .version = P2PSIM_HOST_HOOKS_VERSION,
    .clock = host_clock,
    .sleep = host_sleep,
    .block_begin = host_block_begin,
    .block_end = host_block_end,
    .block_expired = host_block_expired,
};

/* In a child forked after start-up the runtime's state is a copy (its
 * lock maybe held by a thread that is not there): time is real there. */
static void host_child(void)
{
    host_forked = rt.ready;
}

__attribute__((constructor)) static void host_register(void)
{
    void (*reg)(const struct p2psim_host_hooks *) =
        (void (*)(const struct p2psim_host_hooks *))dlsym(
            RTLD_DEFAULT, "p2psim_host_hooks_register");
    if (reg) {
        pthread_atfork(NULL, NULL, host_child);
        reg(&host_hooks);
    }
}
