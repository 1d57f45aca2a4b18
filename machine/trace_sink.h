/*
 * machine/trace_sink.h - fabric traces, the event log and counters of a
 * machine: the sink libp2psim installs in the core (sim/trace.h) that
 * turns trace points into traces/ records (traces/format.h) and writes
 * them, filtered and capped. Part of libp2psim.
 *
 * Ownership: p2psim_trace_start attaches the trace to the machine;
 * p2psim_trace_stop (or p2psim_close) finishes and closes the files.
 */
#ifndef P2PSIM_MACHINE_TRACE_SINK_H
#define P2PSIM_MACHINE_TRACE_SINK_H

#include <stdint.h>

#include "sim/time.h"

struct p2psim;
struct sim_error;

struct p2psim_trace_options {
    const char *path;           /* the trace (TLPs, operations, events), or
                                   NULL for none */
    const char *format;         /* "csv", "perfetto"; NULL: by extension */
    const char *filter;         /* traces/format.h trace_filter_parse; NULL */
    uint64_t max_bytes;         /* size cap of the trace; 0: none */
    const char *events_path;    /* the event log (ftrace text), or NULL */
    sim_time_t stall_ps;        /* credit stalls logged from this long */
    const char *counters_path;  /* counters CSV, or NULL */
    sim_time_t period_ps;       /* counters: sampling period; 0: default */
};

#define P2PSIM_TRACE_DEFAULT_STALL_PS SIM_NS(100)
#define P2PSIM_TRACE_DEFAULT_PERIOD_PS SIM_US(10)

/*
 * p2psim_trace_start - start writing what o asks for. Returns 0, or
 * -SIM_EINVAL (a bad format, filter, or nothing asked), -SIM_EIO (a file
 * that cannot be written), -SIM_EBUSY (a trace already runs); err says
 * why.
 */
int p2psim_trace_start(struct p2psim *p, const struct p2psim_trace_options *o,
                       struct sim_error *err);

/*
 * p2psim_trace_stop - write the counters at the end of the run (now),
 * finish and close the files. 0, -SIM_EIO if a write failed, -SIM_ENOMEM
 * if a record could not be kept for want of memory (said on stderr; the
 * simulation failed then, sim/error.h); 0 when no trace runs.
 */
int p2psim_trace_stop(struct p2psim *p);

/*
 * p2psim_trace_from_env - start what the environment asks for:
 * P2PSIM_TRACE (file), P2PSIM_TRACE_FORMAT, P2PSIM_TRACE_FILTER,
 * P2PSIM_TRACE_MAX (a size: "100MiB"), P2PSIM_EVENTS (file),
 * P2PSIM_STALL_THRESHOLD (a time), P2PSIM_COUNTERS (file),
 * P2PSIM_COUNTERS_PERIOD (a time). 0 when none is set.
 */
int p2psim_trace_from_env(struct p2psim *p, struct sim_error *err);

#endif /* P2PSIM_MACHINE_TRACE_SINK_H */
