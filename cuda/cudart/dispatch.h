/*
 * cuda/cudart/dispatch.h - the layer every exported CUDA function goes
 * through: the choice of backend, and the API trace.
 *
 *   program ──cudaX()──> dispatch.c  (generated: every exported function)
 *                          │  P2PSIM_BACKEND unset or "sim"
 *                          ├──> p2psim_sim_cudaX   the simulated runtime
 *                          │                        (rt.c, copy.c, ...)
 *                          │  P2PSIM_BACKEND=cuda
 *                          └──> cudaX of NVIDIA's libcudart.so.13
 *                                                   (cuda/passthrough/)
 *                          and with P2PSIM_RECORD=FILE, one line of the
 *                          API trace per call (traces/api-trace.md)
 *
 * How the two coexist in one library: the simulated runtime's sources
 * (libcudart_sim.la, cuda/cudart/local.mk) are compiled with
 * -include cuda/cudart/sim_names.h, a list of "#define cudaX
 * p2psim_sim_cudaX", so their definitions and their calls to each other
 * take the p2psim_sim_ names, which the version script keeps local.
 * dispatch.c is compiled without it and defines the real names. Both
 * generated files come from our two headers (tools/gen-dispatch.sh), so a
 * function added to a header is dispatched, recorded and forwarded with
 * no hand-written code; tests/shim/dispatch-fresh.sh fails if they are
 * stale.
 *
 * The simulated clock of the calling thread is recorded with the real
 * times in the simulated backend (sim0_ps, sim1_ps): what `p2psim replay`
 * compares. It is not read for a call made from inside another call of the
 * same thread (a host function calling CUDA, which the runtime refuses
 * with the runtime lock held).
 */
#ifndef P2PSIM_CUDA_CUDART_DISPATCH_H
#define P2PSIM_CUDA_CUDART_DISPATCH_H

#include <stdbool.h>

#include "cuda/include/p2psim_cudart_internal.h"
#include "cuda/passthrough/passthru.h"

/*
 * Each generated function:
 *     struct dispatch_call c;
 *     dispatch_enter(&c, "cudaX", &slot);        backend, real function,
 *                                                 entry times
 *     ret = real ? real(args) : p2psim_sim_cudaX(args)
 *           (neither: dispatch_unserved*, cudaErrorNotSupported)
 *     if (c.rec) { dispatch_leave(&c); record args, outs, ret; write }
 */
struct dispatch_call {
    const char *name;
    void **slot;                /* the function's slot in dispatch.c */
    void *real;                 /* the real runtime's function; NULL in the
                                 * simulated backend or when missing */
    bool is_real;               /* P2PSIM_BACKEND=cuda */
    bool sim_clock;             /* simulated times are recorded */
    struct passthru_rec *rec;   /* NULL: not recording */
    struct passthru_rec rec_storage;
};

/* Start a call: backend, real function (looked up once, cached in *slot),
 * and when recording the sequence number and the entry times. */
void dispatch_enter(struct dispatch_call *c, const char *name, void **slot);
/* When recording: the exit times (before the arguments are formatted). */
void dispatch_leave(struct dispatch_call *c);
/* The function has no implementation in the chosen backend: said once. */
void dispatch_unserved(struct dispatch_call *c);
/* The same for a function returning cudaError_t: cudaErrorNotSupported,
 * also recorded as the thread's last error by the simulated runtime. */
cudaError_t dispatch_unserved_error(struct dispatch_call *c);

#endif /* P2PSIM_CUDA_CUDART_DISPATCH_H */
