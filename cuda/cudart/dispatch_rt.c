/*
 * cuda/cudart/dispatch_rt.c - what the generated dispatch.c calls at the
 * start and end of every exported function (dispatch.h has the design):
 * the backend and the real function, the recorder, and the calling
 * thread's simulated clock for the API trace.
 */
#include <config.h>

#include "cuda/cudart/dispatch.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "cuda/cudart/error.h"
#include "cuda/cudart/rt.h"

/* A slot's value once the missing function has been reported. */
#define DISPATCH_REPORTED ((void *)1)

/* Calls of this thread in progress (a host function calling CUDA from
 * inside a synchronizing call makes it 2). */
static _Thread_local unsigned dispatch_depth;

/*
 * The calling thread's simulated clock, ps: at entry, where the call will
 * start (its clock, caught up with the simulation as rt_enter does); at
 * exit, where it left the thread. -1 when the runtime is not running (at
 * entry of the very first call: 0, where every clock starts).
 */
static int64_t sim_clock_ps(bool entering)
{
    int64_t t = entering ? 0 : -1;
    rt_lock();
    if (rt.ready) {
        sim_time_t clock = rt_self()->clock;
        if (entering) {
            sim_time_t now = rt_machine->now();
            clock = clock < now ? now : clock;
        }
        t = (int64_t)clock;
    }
    pthread_mutex_unlock(&rt.lock);
    return t;
}

void dispatch_enter(struct dispatch_call *c, const char *name, void **slot)
{
    c->name = name;
    c->slot = slot;
    c->real = NULL;
    c->rec = NULL;
    c->is_real = passthru_backend_is_real();
    if (c->is_real) {
        c->real = passthru_resolve(name, slot);
    }
    if (!passthru_rec_enabled()) {
        return;
    }
    c->rec = &c->rec_storage;
    passthru_rec_begin(c->rec, name, dispatch_depth);
    c->sim_clock = !c->is_real && dispatch_depth == 0;
    if (c->sim_clock) {
        c->rec->sim0_ps = sim_clock_ps(true);
    }
    dispatch_depth++;
    c->rec->t0_ns = passthru_now_ns();
}

void dispatch_leave(struct dispatch_call *c)
{
    c->rec->t1_ns = passthru_now_ns();
    dispatch_depth--;
    if (c->sim_clock) {
        c->rec->sim1_ps = sim_clock_ps(false);
    }
}

/* True once per slot: the first caller reports. */
static bool report_once(void **slot)
{
    void *expect = NULL;
    return __atomic_compare_exchange_n(slot, &expect, DISPATCH_REPORTED,
                                       false, __ATOMIC_RELAXED,
                                       __ATOMIC_RELAXED);
}

void dispatch_unserved(struct dispatch_call *c)
{
    /* The real backend said it when the lookup failed (passthru.c). */
    if (c->is_real) {
        return;
    }
    if (report_once(c->slot)) {
        fprintf(stderr, "p2psim: %s is not served by the simulated runtime "
                        "yet: cudaErrorNotSupported\n", c->name);
    }
}

cudaError_t dispatch_unserved_error(struct dispatch_call *c)
{
    dispatch_unserved(c);
    if (!c->is_real) {
        cudart_error_record(cudaErrorNotSupported);
    }
    return cudaErrorNotSupported;
}

int dispatch_unserved_name(const char *name, void **slot)
{
    if (report_once(slot)) {
        fprintf(stderr, "p2psim: %s is not served by p2psim's runtime%s: "
                        "cudaErrorNotSupported\n", name,
                passthru_backend_is_real() ? " (nor forwarded to the real one)"
                                           : "");
    }
    cudart_error_record(cudaErrorNotSupported);
    return cudaErrorNotSupported;
}
