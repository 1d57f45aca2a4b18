/*
 * bench/hold_plain_systemc.h - the hold model as a plain SystemC program
 * (not through our engine), for bench/hold. Built only with SystemC.
 */
#ifndef P2PSIM_BENCH_HOLD_PLAIN_SYSTEMC_H
#define P2PSIM_BENCH_HOLD_PLAIN_SYSTEMC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * hold_plain_systemc - build n entities (one sc_module each, with its own
 * sc_event and SC_METHOD), run SystemC for warmup_ps untimed (elaboration
 * and settling), then for span_ps timed; return the method activations in
 * the timed span and its wall time in *seconds. Delays are uniform in
 * [1000, 1000000] ps from one splitmix64 stream seeded with seed. Uses the
 * process's SystemC kernel: call it once per process (fork); returns 0 on
 * error, with a message on stderr.
 */
uint64_t hold_plain_systemc(unsigned n, uint64_t warmup_ps, uint64_t span_ps,
                            uint64_t seed, double *seconds);

#ifdef __cplusplus
}
#endif

#endif /* P2PSIM_BENCH_HOLD_PLAIN_SYSTEMC_H */
