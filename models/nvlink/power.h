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
 * A bulk first copy (1 or 8 MiB) loses about 175 us, a 16-byte one
 * 100-115 (link_wake_ramp_probe.txt), and the next copy is at full rate:
 * so after `wake` the links first carry traffic at a low rate (settle-rate)
 * for `settle` more, then at full rate. With settle 65 us, any rate from
 * about 0.05 to 3 GB/s gives every measured case (a 16-byte copy's few
 * packets pass at once, a bulk copy's few percent pass early); 1 GB/s is
 * taken. settle 0: the links are at full rate once awake.
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
    sim_time_t settle_ps;       /* then this long at settle_rate */
    uint64_t settle_rate;       /* bytes/s while settling */
    /* state */
    sim_time_t last_ps;         /* the latest traffic (claimed, touched) */
    sim_time_t awake_ps;        /* awake from (later while waking) */
    sim_time_t full_ps;         /* at full rate from */
    sim_time_t settle_free_ps;  /* while settling: the next packet's turn */
    bool used;                  /* any traffic since time 0 */
    unsigned streams;           /* flows streaming now (flow fidelity) */
    /* statistics */
    uint64_t wakes;
};

/* A domain that sleeps after sleep_after_ps idle (0: never), wakes in
 * wake_ps and then settles for settle_ps at settle_rate bytes/s (settle_ps
 * 0: none); asleep at time 0. */
void nvl_power_init(struct nvl_power *p, sim_time_t sleep_after_ps,
                    sim_time_t wake_ps, sim_time_t settle_ps,
                    uint64_t settle_rate);

/*
 * nvl_power_claim - `bytes` of traffic are offered at `at`: returns when
 * they may start (`at`, or later: the end of the wake-up they cause or
 * find under way, and their turn at the settling rate). The traffic counts
 * from then on. p may be NULL (no power saving).
 */
sim_time_t nvl_power_claim(struct nvl_power *p, sim_time_t at,
                           uint64_t bytes);

/*
 * nvl_power_settle_loss - for the flow fidelity: how much later than at
 * full rate a transfer of `bytes` that may start at `from` (a claim's
 * answer) ends, for what of it moves while the links settle.
 */
sim_time_t nvl_power_settle_loss(const struct nvl_power *p, sim_time_t from,
                                 uint64_t bytes, uint64_t full_rate);

/* Traffic arrived at `at` (keeps the domain awake). p may be NULL. */
void nvl_power_touch(struct nvl_power *p, sim_time_t at);

/*
 * nvl_power_stream - a flow begins (delta +1) or ends (-1) at `at`: while
 * any streams, the domain stays awake. p may be NULL.
 */
void nvl_power_stream(struct nvl_power *p, int delta, sim_time_t at);

#endif /* P2PSIM_MODELS_NVLINK_POWER_H */
