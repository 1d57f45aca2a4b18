/*
 * models/nvlink/power.c - NVLink power saving (power.h).
 */
#include <config.h>

#include "models/nvlink/power.h"

#include "sim/error.h"
#include "sim/time.h"

void nvl_power_init(struct nvl_power *p, sim_time_t sleep_after_ps,
                    sim_time_t wake_ps, sim_time_t settle_ps,
                    uint64_t settle_rate)
{
    *p = (struct nvl_power){ .sleep_after_ps = sleep_after_ps,
                             .wake_ps = wake_ps,
                             .settle_ps = settle_rate ? settle_ps : 0,
                             .settle_rate = settle_rate };
}

/* Whether the domain is asleep at `at` (not awake, not waking). */
static bool power_asleep(const struct nvl_power *p, sim_time_t at)
{
    if (p->sleep_after_ps == 0 || p->streams > 0 || at < p->awake_ps) {
        return false;
    }
    /* last_ps may be ahead of at (traffic given a later start) */
    return !p->used ||
           (at > p->last_ps && at - p->last_ps >= p->sleep_after_ps);
}

static void power_note(struct nvl_power *p, sim_time_t at)
{
    p->used = true;
    if (at > p->last_ps) {
        p->last_ps = at;
    }
}

sim_time_t nvl_power_claim(struct nvl_power *p, sim_time_t at,
                           uint64_t bytes)
{
    if (!p || p->sleep_after_ps == 0) {
        return at;
    }
    if (power_asleep(p, at)) {
        p->awake_ps = sim_time_add(at, p->wake_ps);
        p->full_ps = sim_time_add(p->awake_ps, p->settle_ps);
        p->settle_free_ps = p->awake_ps;
        p->wakes++;
    }
    sim_time_t from = p->awake_ps > at ? p->awake_ps : at;
    if (from < p->full_ps) {
        /* settling: one packet after another at the low rate, until the
         * links are at full rate */
        if (p->settle_free_ps > from) {
            from = p->settle_free_ps;
        }
        if (from >= p->full_ps) {
            from = p->full_ps > at ? p->full_ps : at;
        } else {
            p->settle_free_ps = sim_time_add(
                from, sim_time_for_bytes(bytes, p->settle_rate));
        }
    }
    power_note(p, from);
    return from;
}

sim_time_t nvl_power_settle_loss(const struct nvl_power *p, sim_time_t from,
                                 uint64_t bytes, uint64_t full_rate)
{
    if (!p || from >= p->full_ps || full_rate == 0) {
        return 0;
    }
    /* what moves at the low rate before full rate, and how long it takes */
    sim_time_t left = p->full_ps - from;
    uint64_t slow = (uint64_t)((double)p->settle_rate * (double)left * 1e-12);
    if (bytes <= slow) {
        sim_time_t t = sim_time_for_bytes(bytes, p->settle_rate);
        sim_time_t fast = sim_time_for_bytes(bytes, full_rate);
        return t > fast ? t - fast : 0;
    }
    sim_time_t fast = sim_time_for_bytes(slow, full_rate);
    return left > fast ? left - fast : 0;
}

void nvl_power_touch(struct nvl_power *p, sim_time_t at)
{
    if (p && p->sleep_after_ps != 0) {
        power_note(p, at);
    }
}

void nvl_power_stream(struct nvl_power *p, int delta, sim_time_t at)
{
    if (!p || p->sleep_after_ps == 0) {
        return;
    }
    SIM_ASSERT(delta > 0 || p->streams > 0, "nvl_power: a stream ends that "
               "never began");
    p->streams = delta > 0 ? p->streams + 1 : p->streams - 1;
    power_note(p, at);
}
