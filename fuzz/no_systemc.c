/*
 * fuzz/no_systemc.c - a stand-in for the SystemC engine in fuzzing builds.
 * machine/p2psim.c names sim_engine_systemc where configure found SystemC,
 * but the engine is C++ and fuzz/local.mk compiles C only; every harness
 * that links libp2psim's objects links this too, and runs the native
 * engine. Asked for, the stand-in refuses to start.
 */
#include <config.h>

#ifdef HAVE_SYSTEMC
#include "sim/engine.h"
#include "sim/error.h"
#include "sim/systemc/engine_systemc.h"

static int no_systemc(struct sim *sim, struct sim_error *err)
{
    (void)sim;
    return sim_error_set(err, SIM_EINVAL, "no SystemC in fuzzing builds");
}

const struct sim_engine_ops sim_engine_systemc = {
    .name = "systemc", .create = no_systemc,
};
#endif
