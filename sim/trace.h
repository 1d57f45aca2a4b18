/*
 * sim/trace.h - trace points and trace sinks.
 *
 * Trace points are declared once, below (name, short name, meaning of the
 * numeric fields). Models emit them; the core hands each record to every
 * subscribed sink whose mask selects it. machine/ installs the sink that turns
 * records into traces/ files; tests install their own. With no sink
 * subscribed, emitting costs one test of a mask.
 *
 * Tracing is not logging: logs are for people, traces are data.
 */
#ifndef P2PSIM_SIM_TRACE_H
#define P2PSIM_SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"

struct sim;
struct tlp;

/*
 * X(ENUM, "name", "what a and b hold"). CPL_TIMEOUT comes from the GPUs'
 * completion timeout (models/gpu/copy_engine.c), REPLAY from the PCIe
 * links' replay of TLPs hit by bit errors (models/pcie/link.c).
 */
#define SIM_TRACE_POINTS(X)                                                   \
    X(EVENT_FIRE, "event.fire", "a=sequence number")                          \
    X(TLP_TX, "tlp.tx", "a TLP entered a link; a=time it starts on the wire") \
    X(TLP_RX, "tlp.rx", "a TLP was delivered to a port")                      \
    X(TLP_DROP, "tlp.drop", "a TLP was discarded; msg says why")              \
    X(CREDIT_STALL, "link.credit_stall", "a=credit class, b=stall ps")        \
    X(MODEL, "model", "a model-specific record; msg describes it")            \
    X(BAR1_MAP, "bar1.map", "a=bus address (0 if refused), b=bytes; "         \
      "msg: NULL, or why it was refused")                                     \
    X(BAR1_UNMAP, "bar1.unmap", "a=bus address; msg: NULL, or why refused")   \
    X(IOMMU_FAULT, "iommu.fault", "a=address, b=requester ID; tlp")           \
    X(CPL_TIMEOUT, "tlp.cpl_timeout", "a=tag, b=requester ID")                \
    X(REPLAY, "link.replay", "a=sequence number, b=TLPs resent; msg=link")    \
    X(CE_OP, "ce.op", "a copy-engine operation ended; a=engine, "             \
      "data=the struct gpu_dma, msg=fidelity (\"tlp\", \"flow\")")

enum sim_trace_point {
#define SIM_TRACE_ENUM(e, name, doc) SIM_TP_##e,
    SIM_TRACE_POINTS(SIM_TRACE_ENUM)
#undef SIM_TRACE_ENUM
    SIM_TP_COUNT
};

#define SIM_TRACE_BIT(p) (UINT64_C(1) << (p))
#define SIM_TRACE_ALL (~UINT64_C(0))
#define SIM_TRACE_MAX_SINKS 4

/*
 * Built with SIM_TRACE_COMPILED_OUT defined (bench/trace's reference
 * build only), the core's trace tests are constant false: nothing is ever
 * emitted. That build measures what tracing compiled in but off costs.
 */
#ifdef SIM_TRACE_COMPILED_OUT
#define SIM_TRACE_MASK_HAS(mask, p) ((void)(mask), false)
#else
#define SIM_TRACE_MASK_HAS(mask, p) (((mask) & SIM_TRACE_BIT(p)) != 0)
#endif

struct sim_trace_record {
    enum sim_trace_point point;
    sim_time_t when;            /* ps */
    const char *component;      /* emitting component's name, or NULL */
    const char *port;           /* port name, or NULL */
    const struct tlp *tlp;      /* valid during the callback only */
    uint64_t a, b;              /* point-specific, see SIM_TRACE_POINTS */
    const char *msg;            /* point-specific text, or NULL */
    const void *data;           /* point-specific object (CE_OP), valid
                                   during the callback only, or NULL */
};

typedef void sim_trace_fn(void *ctx, const struct sim_trace_record *r);

struct sim_trace_sink {
    sim_trace_fn *fn;
    void *ctx;
    uint64_t mask;              /* SIM_TRACE_BIT()s of the points wanted */
};

/* Returns 0, or -SIM_EBUSY when SIM_TRACE_MAX_SINKS are subscribed. */
int sim_trace_subscribe(struct sim *sim, sim_trace_fn *fn, void *ctx,
                        uint64_t mask);
void sim_trace_unsubscribe(struct sim *sim, sim_trace_fn *fn, void *ctx);

/* True if any sink wants point p. */
bool sim_trace_wanted(const struct sim *sim, enum sim_trace_point p);

/* Hand r to the sinks that want it (r->when is set to now if 0). */
void sim_trace_emit(struct sim *sim, struct sim_trace_record *r);

const char *sim_trace_point_name(enum sim_trace_point p);

/*
 * sim_trace_component - emit point p from component c (port name may be
 * NULL) if a sink wants it: the one way models build a record.
 */
struct sim_component;
void sim_trace_component(const struct sim_component *c,
                         enum sim_trace_point p, const char *port,
                         const struct tlp *t, uint64_t a, uint64_t b,
                         const char *msg);

#endif /* P2PSIM_SIM_TRACE_H */
