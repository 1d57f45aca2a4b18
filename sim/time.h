/*
 * sim/time.h - simulated time: unsigned 64-bit picoseconds.
 *
 * 2^64 ps is about 213 days of simulated time, far beyond any run. Arithmetic
 * never wraps: sim_time_add() and the unit constructors saturate at
 * SIM_TIME_MAX, which the core treats as "never" (an event scheduled there
 * runs only if the simulation is run to the end of time).
 * No floating point here; convert to seconds only in reports.
 */
#ifndef P2PSIM_SIM_TIME_H
#define P2PSIM_SIM_TIME_H

#include <stdint.h>

typedef uint64_t sim_time_t;

#define SIM_TIME_MAX UINT64_MAX

#define SIM_PS_PER_NS UINT64_C(1000)
#define SIM_PS_PER_US UINT64_C(1000000)
#define SIM_PS_PER_MS UINT64_C(1000000000)
#define SIM_PS_PER_S UINT64_C(1000000000000)

/* a + b, or SIM_TIME_MAX if the sum does not fit. */
static inline sim_time_t sim_time_add(sim_time_t a, sim_time_t b)
{
    return a > SIM_TIME_MAX - b ? SIM_TIME_MAX : a + b;
}

/* x * unit, or SIM_TIME_MAX if the product does not fit. */
static inline sim_time_t sim_time_scale(uint64_t x, uint64_t unit)
{
    return (unit != 0 && x > SIM_TIME_MAX / unit) ? SIM_TIME_MAX : x * unit;
}

static inline sim_time_t sim_ns(uint64_t ns) { return sim_time_scale(ns, SIM_PS_PER_NS); }
static inline sim_time_t sim_us(uint64_t us) { return sim_time_scale(us, SIM_PS_PER_US); }
static inline sim_time_t sim_ms(uint64_t ms) { return sim_time_scale(ms, SIM_PS_PER_MS); }

/* Constant forms for initialisers; the caller guarantees no overflow. */
#define SIM_NS(x) ((sim_time_t)(x) * SIM_PS_PER_NS)
#define SIM_US(x) ((sim_time_t)(x) * SIM_PS_PER_US)

/* For reports only. */
static inline double sim_time_to_ns(sim_time_t t) { return (double)t / 1e3; }
static inline double sim_time_to_us(sim_time_t t) { return (double)t / 1e6; }
static inline double sim_time_to_s(sim_time_t t) { return (double)t / 1e12; }

/*
 * Time to move len_bytes at rate_bytes_per_s, rounded up to whole
 * picoseconds (a transfer never finishes early). rate 0 means infinitely
 * fast and gives 0. Saturates.
 */
sim_time_t sim_time_for_bytes(uint64_t len_bytes, uint64_t rate_bytes_per_s);

#endif /* P2PSIM_SIM_TIME_H */
