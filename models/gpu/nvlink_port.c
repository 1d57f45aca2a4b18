/*
 * models/gpu/nvlink_port.c - a GPU's ways out: port "pcie" and its NVLink
 * ports, the one decision of which port a request to an address leaves
 * by (gpu__out_for), the NVLink window through which peers reach the
 * GPU's memory, and single requests sent through that decision
 * (gpu_request_send, for the SMs).
 *
 *            +-- out[0] "pcie" ------- PCIe switch / root port
 *   egress --+-- out[1] "nvl0"  ====== NV5 to nvsw0
 *   (per     +-- out[2] "nvl5"  ====== NV4 to nvsw1 ...
 *    port)
 *
 * The builder (machine/fabric.c) gives each connected NVLink port its
 * weight (bonded links) and routes: the NVLink windows of the GPUs it
 * reaches, directly or through an NVSwitch whose fabric manager runs.
 * A request whose address is in such a window leaves by one of the ports
 * routed to it; every other request by "pcie".
 *
 * Spreading: among the ports that reach the address, one that can send
 * now is preferred, and among those the one with the fewest bytes queued
 * so far per link; so a copy's packets spread over all the GPU's links
 * in proportion to their widths, as the hardware spreads them over its
 * links and switches (reference pcie-nvlink.md §3).
 * Model: NVLink keeps no order between ports. A push's flushing read
 * (copy_engine.c) goes by the port the spreading picks; the writes on
 * the other ports, spread evenly, are at most a few packets behind. The
 * atomics and fences of a kernel get the order of their port only.
 */
#include <config.h>

#include "models/gpu/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/gpu/gpu_int.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/sim.h"
#include "sim/tlp.h"

int gpu__out_init(struct gpu *g)
{
    g->out[0].port = g->port;
    g->out[0].links = 1;
    g->port->user = &g->out[0];
    g->n_out = 1;
    for (unsigned i = 0; i < g->info.nvlink_links; i++) {
        if (g->n_out == GPU_MAX_OUT) {
            return -SIM_ERANGE;
        }
        char name[16];
        snprintf(name, sizeof(name), "nvl%u", i);
        struct gpu_out *o = &g->out[g->n_out++];
        o->port = sim_port_add(g->c, name, SIM_PORT_PEER);
        if (!o->port) {
            return -SIM_ENOMEM;
        }
        o->port->user = o;
        o->links = 1;
    }
    return 0;
}

void gpu__out_fini(struct gpu *g)
{
    free(g->nvl_route);
    g->nvl_route = NULL;
    free(g->nvl_by_base);
    g->nvl_by_base = NULL;
    g->n_nvl_route = g->cap_nvl_route = 0;
}

bool gpu__out_is_free(const struct gpu *g, unsigned i)
{
    const struct gpu_out *o = &g->out[i];
    return o->q.count == 0 && !o->port->wants_ready;
}

/* The ports routed to addr (bit i: out[i]); 0 if none. */
static uint32_t nvl_mask(const struct gpu *g, uint64_t addr)
{
    if (g->nvl_by_base) {
        /* disjoint ranges: the last one starting at or below addr */
        unsigned lo = 0, hi = g->n_nvl_route;
        while (lo < hi) {
            unsigned mid = lo + (hi - lo) / 2;
            if (g->nvl_route[g->nvl_by_base[mid]].base <= addr) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        const struct gpu_nvl_route *r =
            lo ? &g->nvl_route[g->nvl_by_base[lo - 1]] : NULL;
        return r && addr <= r->limit ? r->mask : 0;
    }
    for (unsigned i = 0; i < g->n_nvl_route; i++) {
        const struct gpu_nvl_route *r = &g->nvl_route[i];
        if (addr >= r->base && addr <= r->limit) {
            return r->mask;
        }
    }
    return 0;
}

/* a's bytes per link below b's (cross-multiplied: no division). */
static bool less_loaded(const struct gpu_out *a, const struct gpu_out *b)
{
    return (unsigned __int128)a->sent_bytes * b->links <
           (unsigned __int128)b->sent_bytes * a->links;
}

unsigned gpu__out_for(const struct gpu *g, uint64_t addr)
{
    uint32_t mask = g->n_out > 1 ? nvl_mask(g, addr) : 0;
    if (!mask) {
        return 0;
    }
    int best = -1;
    bool best_free = false;
    for (unsigned i = 1; i < g->n_out; i++) {
        if (!(mask & (UINT32_C(1) << i))) {
            continue;
        }
        bool is_free = gpu__out_is_free(g, i);
        if (best < 0 || (is_free && !best_free) ||
            (is_free == best_free && less_loaded(&g->out[i], &g->out[best]))) {
            best = (int)i;
            best_free = is_free;
        }
    }
    return (unsigned)best;
}

bool gpu__nvl_is_local(const struct gpu *g, uint64_t addr, uint64_t len,
                       uint64_t *hbm)
{
    if (g->nvl_size == 0 || addr < g->nvl_base ||
        addr - g->nvl_base >= g->mem_bytes ||
        len > g->mem_bytes - (addr - g->nvl_base)) {
        return false;
    }
    *hbm = addr - g->nvl_base;
    return true;
}

/* ---- set up by the builder (gpu.h) --------------------------------------- */

void gpu_set_nvlink_window(struct sim_component *c, uint64_t base,
                           uint64_t size)
{
    struct gpu *g = gpu__from(c);
    g->nvl_base = base;
    g->nvl_size = size;
}

void gpu_set_nvlink_power(struct sim_component *c, struct nvl_power *p)
{
    gpu__from(c)->nvl_power = p;
}

uint64_t gpu_nvlink_base(const struct sim_component *c)
{
    return gpu__from(c)->nvl_base;
}

int gpu_nvlink_set_port_links(struct sim_component *c, unsigned nvl,
                              unsigned links)
{
    struct gpu *g = gpu__from(c);
    if (nvl + 1 >= g->n_out || links == 0) {
        return -SIM_EINVAL;
    }
    g->out[nvl + 1].links = links;
    return 0;
}

/*
 * Index the routes by base for nvl_mask's binary search (a GPU of an NVL72
 * rack has 71, and every packet asks); none if two ranges overlap, where
 * the first added wins and nvl_mask scans them in order.
 */
static void nvl_index(struct gpu *g)
{
    free(g->nvl_by_base);
    g->nvl_by_base = malloc(g->n_nvl_route * sizeof(*g->nvl_by_base));
    if (!g->nvl_by_base) {
        return;
    }
    unsigned *ix = g->nvl_by_base;
    for (unsigned i = 0; i < g->n_nvl_route; i++) {
        unsigned k = i;
        while (k > 0 && g->nvl_route[ix[k - 1]].base > g->nvl_route[i].base) {
            ix[k] = ix[k - 1];
            k--;
        }
        ix[k] = i;
    }
    for (unsigned k = 1; k < g->n_nvl_route; k++) {
        if (g->nvl_route[ix[k]].base <= g->nvl_route[ix[k - 1]].limit) {
            free(g->nvl_by_base);
            g->nvl_by_base = NULL;
            return;
        }
    }
}

int gpu_nvlink_add_route(struct sim_component *c, uint64_t base,
                         uint64_t limit, unsigned nvl)
{
    struct gpu *g = gpu__from(c);
    if (nvl + 1 >= g->n_out || limit < base ||
        !sim_port_is_connected(g->out[nvl + 1].port)) {
        return -SIM_EINVAL;
    }
    uint32_t bit = UINT32_C(1) << (nvl + 1);
    for (unsigned i = 0; i < g->n_nvl_route; i++) {
        struct gpu_nvl_route *r = &g->nvl_route[i];
        if (r->base == base && r->limit == limit) {
            r->mask |= bit;
            return 0;
        }
    }
    if (g->n_nvl_route == g->cap_nvl_route) {
        unsigned cap = g->cap_nvl_route ? 2 * g->cap_nvl_route : 16;
        void *n = realloc(g->nvl_route, cap * sizeof(*g->nvl_route));
        if (!n) {
            return -SIM_ENOMEM;
        }
        g->nvl_route = n;
        g->cap_nvl_route = cap;
    }
    g->nvl_route[g->n_nvl_route++] = (struct gpu_nvl_route){ base, limit,
                                                             bit };
    nvl_index(g);
    return 0;
}

unsigned gpu_route_ports(const struct sim_component *c, uint64_t addr,
                         struct sim_port **ports, unsigned *weights,
                         unsigned max)
{
    const struct gpu *g = gpu__from(c);
    uint32_t mask = g->n_out > 1 ? nvl_mask(g, addr) : 0;
    unsigned n = 0;
    for (unsigned i = 1; i < g->n_out && n < max; i++) {
        if (mask & (UINT32_C(1) << i)) {
            ports[n] = g->out[i].port;
            weights[n] = g->out[i].links;
            n++;
        }
    }
    if (n == 0 && max > 0) {
        ports[0] = g->port;
        weights[0] = 1;
        n = 1;
    }
    return n;
}

bool gpu_peer_translate(const struct sim_component *c, uint64_t bus_addr,
                        uint64_t *hbm_addr, uint64_t *contig_bytes)
{
    const struct gpu *g = gpu__from(c);
    if (gpu__nvl_is_local(g, bus_addr, 1, hbm_addr)) {
        *contig_bytes = g->mem_bytes - *hbm_addr;
        return true;
    }
    return gpu_bar1_translate(c, bus_addr, hbm_addr, contig_bytes);
}

/* ---- single requests (gpu.h) --------------------------------------------- */

int gpu_request_send(struct sim_component *c, struct tlp *t,
                     gpu_req_done_fn *done, void *ctx)
{
    struct gpu *g = gpu__from(c);
    if (!t || !tlp_is_request(t) || t->len_bytes > GPU_PCIE_BOUNDARY_BYTES) {
        return -SIM_EINVAL;
    }
    t->requester_id = g->id;
    if (tlp_is_posted(t)) {
        gpu__egress_push_req(g, t, done, ctx);
    } else {
        if (g->n_free_tag == 0) {
            return -SIM_EBUSY;
        }
        uint16_t tag = g->free_tag[--g->n_free_tag];
        /* A CAS carries compare and swap but returns one operand. */
        g->tag[tag] = (struct ce_tag){ .done = done, .ctx = ctx,
                                       .len_bytes = t->kind == TLP_CAS
                                                        ? t->len_bytes / 2
                                                        : t->len_bytes,
                                       .issued_ps = sim_now(c->sim) };
        t->tag = tag;
        ce__cto_arm(g);
        gpu__egress_push_req(g, t, NULL, NULL);
    }
    gpu__egress_pump(g);
    return 0;
}
