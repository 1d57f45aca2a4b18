/*
 * cuda/cudart/api_costs.c - the machine file's api-costs: (api_costs.h):
 * each entry of the section libp2psim keeps (p2psim_section) checked
 * against the known keys and read as a time (sim/units.h), in file order,
 * the first error reported where it stands. libp2psim has already refused
 * a section that is not a mapping, keys that are not plain names,
 * duplicate keys and more than P2PSIM_SECTION_MAX_ENTRIES entries.
 */
#include <config.h>

#include "cuda/cudart/api_costs.h"

#include <stdarg.h>
#include <string.h>

#include "machine/p2psim.h"
#include "sim/error.h"
#include "sim/props.h"
#include "sim/units.h"

const char *const api_cost_names[API_COST_N + 1] = {
    [API_COST_CALL] = "call",
    [API_COST_LAUNCH] = "launch",
    [API_COST_MEMCPY_ASYNC_H2D] = "memcpy-async-h2d",
    [API_COST_MEMCPY_ASYNC_D2D] = "memcpy-async-d2d",
    [API_COST_MEMCPY_ASYNC_PEER] = "memcpy-async-peer",
    [API_COST_EVENT_RECORD] = "event-record",
    [API_COST_MALLOC] = "malloc",
    [API_COST_SYNC] = "sync",
    [API_COST_HOST_FUNCTION] = "host-function",
    [API_COST_CLOCK_READ] = "clock-read",
    [API_COST_STAGED_HANDOFF] = "staged-handoff",
    [API_COST_N] = NULL,
};

static int err_at(struct sim_error *err, int code,
                  const struct p2psim_mark *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int err_at(struct sim_error *err, int code,
                  const struct p2psim_mark *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = sim_error_vset_at(err, code, at->file, at->line, at->column,
                               fmt, ap);
    va_end(ap);
    return rc;
}

/* The cost named key, or -1 and *hint the closest name (3 edits at most,
 * the first of equals) or NULL. */
static int cost_of(const char *key, const char **hint)
{
    unsigned best = 4;
    *hint = NULL;
    for (int c = 0; c < API_COST_N; c++) {
        if (strcmp(key, api_cost_names[c]) == 0) {
            return c;
        }
        unsigned d = sim_edit_distance(key, api_cost_names[c]);
        if (d < best) {
            best = d;
            *hint = api_cost_names[c];
        }
    }
    return -1;
}

int api_costs_read(const struct p2psim *p, struct api_costs *out,
                   struct sim_error *err)
{
    memset(out, 0, sizeof(*out));
    const struct p2psim_section *s = p2psim_section(p, API_COSTS_SECTION);
    for (unsigned i = 0; s && i < s->n; i++) {
        const struct p2psim_entry *e = &s->entry[i];
        const char *hint;
        int c = cost_of(e->key, &hint);
        if (c < 0 && hint) {
            return err_at(err, SIM_ENOENT, &e->key_at,
                          "unknown key '%s' in %s (did you mean '%s'?)",
                          e->key, s->name, hint);
        }
        if (c < 0) {
            return err_at(err, SIM_ENOENT, &e->key_at,
                          "unknown key '%s' in %s", e->key, s->name);
        }
        if (!e->value) {
            return err_at(err, SIM_EINVAL, &e->value_at,
                          "%s: %s must be a time (e.g. 5.7us), not %s",
                          s->name, e->key, e->kind);
        }
        char why[200];
        sim_time_t ps;
        if (sim_parse_time(e->value, &ps, why, sizeof(why)) < 0) {
            return err_at(err, SIM_EINVAL, &e->value_at, "%s: %s: %s",
                          s->name, e->key, why);
        }
        if (ps > API_COST_MAX_PS) {
            return err_at(err, SIM_ERANGE, &e->value_at,
                          "%s: %s: %s is more than 1s; a call's host cost "
                          "is of microseconds (e.g. 5.7us)",
                          s->name, e->key, e->value);
        }
        out->set[c] = true;
        out->ps[c] = ps;
    }
    return 0;
}
