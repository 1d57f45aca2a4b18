/*
 * models/nvlink/power.h - NVLink power saving: the NVLinks of a machine
 * as one power domain that goes to sleep after a time without traffic
 * and takes a while to wake when traffic comes.
 *
 * Measured on two H200s of an HGX baseboard (data/hgx-h200-x2/
 * link_idle_probe.txt): after up to 40 ms without P2P traffic the next
 * copy starts as usual; after 50 ms or more it takes about 110 us longer,
 * every time. That is also the cost of a process's first P2P copy (the
 * links were idle before it started).
 *
 * Model: one state for all the NVLinks of the machine (measured with two
 * GPUs, where that is exact; with more GPUs, the first traffic anywhere
 * wakes every link and any traffic keeps them all awake). The state is
 * kept by its users, not by the links: a GPU claims the domain for each
 * packet it sends over NVLink (the packet may not start before the
 * domain is awake) and touches it for each one it receives; the flow
 * fidelity claims it when a flow over NVLink begins and holds it while
 * the flow streams. Asleep from time 0: the links were idle before the
 * simulation started. Both fidelities see the same wake-ups.
 */
#ifndef P2PSIM_MODELS_NVLINK_POWER_H
#define P2PSIM_MODELS_NVLINK_POWER_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"

struct nvl_power {
    /* configuration; sleep_after_ps 0: the links never sleep */
    sim_time_t sleep_after_ps;  /* idle time after which they sleep */
    sim_time_t wake_ps;         /* time from traffic offered to awake */
    /* state */
    sim_time_t last_ps;         /* the latest traffic (claimed, touched) */
    sim_time_t awake_ps;        /* awake from (later while waking) */
    bool used;                  /* any traffic since time 0 */
    unsigned streams;           /* flows streaming now (flow fidelity) */
    /* statistics */
    uint64_t wakes;
};

/* A domain that sleeps after sleep_after_ps idle (0: never) and wakes in
 * wake_ps; asleep at time 0. */
void nvl_power_init(struct nvl_power *p, sim_time_t sleep_after_ps,
                    sim_time_t wake_ps);

/*
 * nvl_power_claim - traffic is offered at `at`: returns when it may start
 * (`at`, or the end of the wake-up it causes or finds under way). The
 * traffic counts from then on. p may be NULL (no power saving).
 */
sim_time_t nvl_power_claim(struct nvl_power *p, sim_time_t at);

/* Traffic arrived at `at` (keeps the domain awake). p may be NULL. */
void nvl_power_touch(struct nvl_power *p, sim_time_t at);

/*
 * nvl_power_stream - a flow begins (delta +1) or ends (-1) at `at`: while
 * any streams, the domain stays awake. p may be NULL.
 */
void nvl_power_stream(struct nvl_power *p, int delta, sim_time_t at);

#endif /* P2PSIM_MODELS_NVLINK_POWER_H */
