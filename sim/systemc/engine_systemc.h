/*
 * sim/systemc/engine_systemc.h - the SystemC engine (optional, C++ inside).
 *
 * sim_engine_systemc runs the core on the Accellera SystemC kernel: the
 * pending events stay in the core's calendar queue, and SystemC drives
 * time (one SC_METHOD woken by one sc_event at the next event's time). It
 * gives exactly the event order, timestamps and run results of
 * sim_engine_native; select it with sim_config.engine.
 *
 * Limits:
 *  - One SystemC-engine simulation per process, ever: SystemC has one
 *    kernel per process and cannot be elaborated twice. A second
 *    sim_create() with this engine fails with SIM_EBUSY, even after the
 *    first simulation was destroyed; run each in its own (forked) process.
 *    sim_create() also fails if the process already started SystemC by
 *    other means (SIM_EBUSY), or fixed its time resolution at anything but
 *    1 ps (SIM_ENOTSUP).
 *  - The SystemC time resolution is set to 1 ps; after every run
 *    sc_time_stamp() equals sim_now().
 *  - sim_run_*() calls sc_start(), so it must not be called from inside a
 *    SystemC process; never call sc_stop() in a process that uses it.
 *  - The program must link with a C++ linker and -lsystemc; the library
 *    provides a weak sc_main() (SystemC's sc_elab_and_sim() is never used).
 *
 * No SystemC type appears here: the header is plain C.
 */
#ifndef P2PSIM_SIM_SYSTEMC_ENGINE_SYSTEMC_H
#define P2PSIM_SIM_SYSTEMC_ENGINE_SYSTEMC_H

#ifdef __cplusplus
extern "C" {
#endif

struct sim_engine_ops;

extern const struct sim_engine_ops sim_engine_systemc;

#ifdef __cplusplus
}
#endif

#endif /* P2PSIM_SIM_SYSTEMC_ENGINE_SYSTEMC_H */
