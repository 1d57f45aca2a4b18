/*
 * sim/event.h - intrusive events.
 *
 * A struct sim_event is embedded in its owner (a TLP on a link, a port's
 * service timer, a copy engine) and recovered with SIM_CONTAINER_OF, as
 * libuv recovers timers. Scheduling allocates nothing.
 *
 * Ordering: events run in increasing (when, seq). seq is taken from a
 * per-simulation counter at schedule time, so events at the same time run
 * in the order they were scheduled (FIFO), and a rerun is bit-identical.
 *
 * Callbacks may schedule and cancel any event, their own included.
 */
#ifndef P2PSIM_SIM_EVENT_H
#define P2PSIM_SIM_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim/time.h"

struct sim;
struct sim_event;

typedef void sim_event_fn(struct sim *sim, struct sim_event *ev);

#define SIM_CONTAINER_OF(ptr, type, member)                                   \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/*
 * The queue links are shared by the queue implementations: the heap uses
 * index, the calendar queue uses next/prev. Fields are owned by the core;
 * models only call the functions below.
 */
struct sim_event {
    sim_time_t when;            /* firing time, ps; valid while pending */
    uint64_t seq;               /* tie-break, from the simulation's counter */
    sim_event_fn *fn;           /* callback */
    struct sim_event *next;     /* calendar bucket list */
    struct sim_event *prev;
    uint32_t index;             /* heap slot */
    uint32_t state;             /* SIM_EVENT_IDLE or SIM_EVENT_PENDING */
};

#define SIM_EVENT_IDLE 0x1d1eu
#define SIM_EVENT_PENDING 0x9e9du

/*
 * Initialise an event; it is idle until scheduled. Inline: a link gives
 * every TLP it accepts its arrival callback this way.
 */
static inline void sim_event_init(struct sim_event *ev, sim_event_fn *fn)
{
    memset(ev, 0, sizeof(*ev));     /* not a compound literal: C++ */
    ev->fn = fn;                    /* includers warn of the fields it */
    ev->state = SIM_EVENT_IDLE;     /* leaves out */
}

/*
 * sim_event_schedule - schedule ev to run delay_ps after now. The time
 * saturates at SIM_TIME_MAX instead of wrapping. ev must not be pending
 * (cancel it first, or use sim_event_reschedule); breaking this is a bug.
 */
void sim_event_schedule(struct sim *sim, struct sim_event *ev,
                        sim_time_t delay_ps);

/*
 * sim_event_schedule_at - schedule ev at absolute time when_ps.
 * Returns 0, or -SIM_EPAST if when_ps is before now (nothing is scheduled).
 */
int sim_event_schedule_at(struct sim *sim, struct sim_event *ev,
                          sim_time_t when_ps);

/* Cancel if pending, then schedule delay_ps from now. */
void sim_event_reschedule(struct sim *sim, struct sim_event *ev,
                          sim_time_t delay_ps);

/*
 * sim_event_cancel - remove a pending event. Cancelling an idle event
 * (never scheduled, already fired, already cancelled) does nothing.
 * Cost: O(1) on the calendar queue, O(log n) on the heap.
 */
void sim_event_cancel(struct sim *sim, struct sim_event *ev);

static inline bool sim_event_is_pending(const struct sim_event *ev)
{
    return ev->state == SIM_EVENT_PENDING;
}

/* Ordering predicate: true if a runs before b. */
static inline bool sim_event_before(const struct sim_event *a,
                                    const struct sim_event *b)
{
    return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

#endif /* P2PSIM_SIM_EVENT_H */
