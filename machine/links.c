/*
 * machine/links.c - per-link counters of a machine, read from the link models.
 */
#include <config.h>

#include "machine/links.h"

#include <string.h>

#include "machine/p2psim.h"
#include "models/host/socket_link.h"
#include "models/nvlink/nvlink.h"
#include "models/pcie/link.h"
#include "sim/error.h"
#include "sim/port.h"

unsigned p2psim_link_count(const struct p2psim *p)
{
    return sim_link_count(p2psim_sim(p));
}

int p2psim_link_stat(const struct p2psim *p, unsigned i,
                     struct p2psim_link_stat *out)
{
    struct sim *sim = p2psim_sim(p);
    if (i >= sim_link_count(sim)) {
        return -SIM_EINVAL;
    }
    const struct sim_link *l = sim_link_at(sim, i);
    memset(out, 0, sizeof(*out));
    out->name = l->name;
    if (l->ops == &pcie_link_ops) {
        struct pcie_link_counters c;
        pcie_link_get_counters(l, &c);
        out->kind = "pcie-link";
        out->rate = pcie_link_rate(l);
        for (int s = 0; s < 2; s++) {
            out->tlps[s] = c.tlps[s];
            out->bytes[s] = c.payload_bytes[s];
            out->busy_ps[s] = c.busy_ps[s];
        }
    } else if (l->ops == &nvl_link_ops) {
        struct nvl_link_counters c;
        nvl_link_get_counters(l, &c);
        out->kind = "nvlink";
        out->rate = nvl_link_rate(l);
        for (int s = 0; s < 2; s++) {
            out->tlps[s] = c.packets[s];
            out->bytes[s] = c.payload_bytes[s];
            out->busy_ps[s] = c.busy_ps[s];
        }
    } else if (l->ops == &socket_link_ops) {
        struct socket_link_counters c;
        socket_link_get_counters(l, &c);
        out->kind = "socket-link";
        for (int s = 0; s < 2; s++) {
            out->tlps[s] = c.tlps[s];
            out->bytes[s] = c.bytes[s];
        }
    } else {
        out->kind = "wire";
    }
    return 0;
}
