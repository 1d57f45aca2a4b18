/*
 * models/nvlink/power.c - NVLink power saving (power.h).
 */
#include <config.h>

#include "models/nvlink/power.h"

#include "sim/error.h"

void nvl_power_init(struct nvl_power *p, sim_time_t sleep_after_ps,
                    sim_time_t wake_ps)
{
    *p = (struct nvl_power){ .sleep_after_ps = sleep_after_ps,
                             .wake_ps = wake_ps };
}

/* Whether the domain is asleep at `at` (not awake, not waking). */
static bool power_asleep(const struct nvl_power *p, sim_time_t at)
{
    if (p->sleep_after_ps == 0 || p->streams > 0 || at < p->awake_ps) {
        return false;
    }
    return !p->used || at - p->last_ps >= p->sleep_after_ps;
}

static void power_note(struct nvl_power *p, sim_time_t at)
{
    p->used = true;
    if (at > p->last_ps) {
        p->last_ps = at;
    }
}

sim_time_t nvl_power_claim(struct nvl_power *p, sim_time_t at)
{
    if (!p || p->sleep_after_ps == 0) {
        return at;
    }
    if (power_asleep(p, at)) {
        p->awake_ps = sim_time_add(at, p->wake_ps);
        p->wakes++;
    }
    sim_time_t from = p->awake_ps > at ? p->awake_ps : at;
    power_note(p, from);
    return from;
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
