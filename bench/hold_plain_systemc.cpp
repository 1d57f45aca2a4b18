/*
 * bench/hold_plain_systemc.cpp - the classic hold model written as a plain
 * SystemC program, the yardstick for our engines in bench/hold.
 *
 * What is modelled: n entities, each an sc_module with its own sc_event and
 * its own SC_METHOD (dont_initialize, sensitive to that event), the
 * idiomatic SystemC shape. At start each entity notifies its event after a
 * random delay; each activation counts one event and re-notifies the
 * entity's event after a delay uniform in [1000, 1000000] ps (1..1000 ns).
 * One splitmix64 stream, seeded from the argument, serves all entities, so
 * a run is deterministic. Time resolution is 1 ps; times are built with
 * sc_time::from_value() (exact in 64 bits).
 *
 * sc_start(t) does not evaluate processes at exactly t, so the run goes to
 * t_end_ps + 1 ps: activations at t_end_ps count, as in sim_run_until().
 *
 * Limits: SystemC elaborates once per process, so this is called once per
 * process (bench/hold forks). The modules are never deleted: the process
 * ends after the measurement. It defines its own weak sc_main() so the
 * library links on its own.
 */
#include <config.h>

#include "bench/hold_plain_systemc.h"

#include <stdint.h>
#include <stdio.h>

#include <exception>

#include <chrono>
#include <systemc>

extern "C" int sc_main(int, char *[]) __attribute__((weak));

extern "C" int sc_main(int, char *[])
{
    return 0;
}

namespace {

constexpr uint64_t delay_min_ps = 1000;
constexpr uint64_t delay_max_ps = 1000000;

uint64_t rng_state;         /* one splitmix64 stream for all entities */
uint64_t activations;       /* method activations so far */

inline uint64_t splitmix64()
{
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [delay_min_ps, delay_max_ps] (multiply-shift; bias < 1e-13). */
inline sc_core::sc_time next_delay()
{
    const uint64_t span = delay_max_ps - delay_min_ps + 1;
    uint64_t d = (uint64_t)(((__uint128_t)splitmix64() * span) >> 64);
    return sc_core::sc_time::from_value(delay_min_ps + d);
}

struct hold_entity : sc_core::sc_module {
    sc_core::sc_event ev;

    SC_HAS_PROCESS(hold_entity);

    explicit hold_entity(sc_core::sc_module_name name)
        : sc_core::sc_module(name), ev("ev")
    {
        SC_METHOD(fire);
        sensitive << ev;
        dont_initialize();
    }

    void fire()
    {
        activations++;
        ev.notify(next_delay());
    }
};

} /* namespace */

extern "C" uint64_t hold_plain_systemc(unsigned n, uint64_t warmup_ps,
                                       uint64_t span_ps, uint64_t seed,
                                       double *seconds)
{
    if (n == 0) {
        return 0;
    }
    try {
        sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
        rng_state = seed;
        for (unsigned i = 0; i < n; i++) {
            char name[32];
            snprintf(name, sizeof(name), "e%u", i);
            hold_entity *e = new hold_entity(name);
            e->ev.notify(next_delay());
        }
        /* Elaboration and the settling span are not timed, as for ours. */
        sc_core::sc_start(sc_core::sc_time::from_value(warmup_ps));
        activations = 0;
        auto t0 = std::chrono::steady_clock::now();
        sc_core::sc_start(sc_core::sc_time::from_value(span_ps));
        auto t1 = std::chrono::steady_clock::now();
        *seconds = std::chrono::duration<double>(t1 - t0).count();
        return activations;
    } catch (const std::exception &e) {
        fprintf(stderr, "hold_plain_systemc: %s\n", e.what());
        return 0;
    }
}
