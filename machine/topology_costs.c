/*
 * machine/topology_costs.c - a machine file's api-costs: (the host-side
 * costs of CUDA runtime calls, topologies/SCHEMA.md) into the machine.
 */
#include <config.h>

#include "machine/topology.h"
#include "machine/topology_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "sim/error.h"
#include "sim/units.h"

const char *const topo_api_cost_names[TOPO_API_COST_N + 1] = {
    [TOPO_API_COST_CALL] = "call",
    [TOPO_API_COST_LAUNCH] = "launch",
    [TOPO_API_COST_MEMCPY_ASYNC_H2D] = "memcpy-async-h2d",
    [TOPO_API_COST_MEMCPY_ASYNC_D2D] = "memcpy-async-d2d",
    [TOPO_API_COST_MEMCPY_ASYNC_PEER] = "memcpy-async-peer",
    [TOPO_API_COST_EVENT_RECORD] = "event-record",
    [TOPO_API_COST_MALLOC] = "malloc",
    [TOPO_API_COST_SYNC] = "sync",
    [TOPO_API_COST_HOST_FUNCTION] = "host-function",
    [TOPO_API_COST_N] = NULL,
};

/* ---- host-side API costs ----------------------------------------------------------------- */

/* A host cost beyond this is taken for a mistyped unit ("5s" for "5us"). */
#define TOPO_API_COST_MAX_PS SIM_PS_PER_S

/* api-costs: { call: 100ns, memcpy-async-d2d: 5.7us, ... } into m. */
int tl_parse_api_costs(struct loader *L, struct topo_machine *m)
{
    struct ydoc *d = &L->doc;
    yaml_node_t *ac = ydoc_get(d, L->root, "api-costs");
    if (!ac) {
        return 0;
    }
    int rc = ydoc_expect(d, ac, YAML_MAPPING_NODE, "api-costs", L->err);
    if (rc < 0 || (rc = ydoc_check_keys(d, ac, topo_api_cost_names,
                                        "api-costs", L->err)) < 0) {
        return rc;
    }
    for (unsigned c = 0; c < TOPO_API_COST_N; c++) {
        const char *key = topo_api_cost_names[c];
        yaml_node_t *v = ydoc_get(d, ac, key);
        sim_time_t ps;
        if (!v) {
            continue;
        }
        rc = tl_map_time(L, v, "api-costs", key, "5.7us", TOPO_API_COST_MAX_PS,
                      "1s", "; a call's host cost is of microseconds (e.g. "
                      "5.7us)", &ps);
        if (rc < 0) {
            return rc;
        }
        m->api_cost_set[c] = true;
        m->api_cost_ps[c] = ps;
    }
    return 0;
}
