/*
 * models/nvlink/nvlink.h - NVLink: the link (kind "nvlink", a sim_link)
 * and the NVSwitch (kind "nvswitch", a component). docs/nvlink.md says
 * what is modelled and what is simplified.
 *
 * The link is one bonded group (the NV# of nvidia-smi): `links` physical
 * links of one generation between a GPU and a GPU or an NVSwitch, full
 * duplex, each direction one serialiser of links x the per-link rate.
 * Every packet is charged its flits (nvl_packet_bytes), so the effective
 * rate depends on the payload: 256-byte copy-engine writes keep 16 of 17
 * flits for data, 128-byte SM stores 8 of 9.
 *
 * Properties of "nvlink":
 *   generation  1..5    (required) per-link rate from the table below
 *   links       1..18   bonded links (default 1)
 *   link-rate   rate    per link per direction; overrides the table
 *                       (GA102's 14.0625GB/s links)
 *   latency     time    one way, PHY + data link (default 100ns [estimate])
 *   buffer      size    receive buffer per link (default: 6 latencies
 *                       of the link's traffic, at least 8KiB [estimate])
 *
 * Properties of "nvswitch":
 *   generation  1..4    (required)   ports  1..128 (required)
 *   latency     time    per hop (default 100ns [estimate])
 *   bandwidth   rate    crossbar, all ports together (default: ports x
 *                       the per-link rate of its generation: non-blocking)
 * Ports are "p0" .. "p<ports-1>"; the builder programs each port's
 * target (nvsw_set_target) when the fabric manager runs.
 */
#ifndef P2PSIM_MODELS_NVLINK_NVLINK_H
#define P2PSIM_MODELS_NVLINK_NVLINK_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"

struct sim_component;
struct sim_link;
struct tlp;

extern const struct sim_link_ops nvl_link_ops;
extern const struct sim_component_ops nvsw_ops;

#define NVL_GEN_MIN 1u
#define NVL_GEN_MAX 5u
#define NVSW_GEN_MAX 4u

/* NVLink moves 128-bit flits (docs/nvlink.md, "Packets"). */
#define NVL_FLIT_BYTES 16u
/* At most 16 data flits (256 B) per packet. */
#define NVL_MAX_PAYLOAD_BYTES 256u

/*
 * nvl_gen_link_rate - bytes/s of flits per link per direction of NVLink
 * generation gen (1..5): the signalling rate (reference pcie-nvlink.md
 * §3) less the forward error correction of the PAM4 generations (4, 5;
 * nvlink.c); 0 for another value. The link-rate property replaces it.
 */
uint64_t nvl_gen_link_rate(unsigned gen);
/* The NVLink generation of NVSwitch generation gen (1..4); 0 if none. */
unsigned nvsw_gen_nvlink(unsigned gen);

/*
 * nvl_packet_bytes - the bytes t occupies on an NVLink: a header flit,
 * a byte-enable flit when the data do not fill whole aligned flits, and
 * the data flits. Requests without data (reads, a flush) are one flit.
 */
uint32_t nvl_packet_bytes(const struct tlp *t);

/* ---- the link (valid once configured) ---------------------------------- */
unsigned nvl_link_links(const struct sim_link *l);
unsigned nvl_link_generation(const struct sim_link *l);
uint64_t nvl_link_rate(const struct sim_link *l); /* bytes/s per direction */
sim_time_t nvl_link_latency(const struct sim_link *l);
/* Time to serialise bytes on one direction. */
sim_time_t nvl_link_bytes_time(const struct sim_link *l, uint64_t bytes);

struct nvl_link_counters {
    uint64_t packets[2];        /* sent from side i */
    uint64_t payload_bytes[2];
    uint64_t wire_bytes[2];     /* flit bytes from side i */
    uint64_t buffer_stalls[2];  /* refusals: the receive buffer was full */
    sim_time_t busy_ps[2];
};
void nvl_link_get_counters(const struct sim_link *l,
                           struct nvl_link_counters *out);

/* ---- the NVSwitch ------------------------------------------------------- */

/*
 * nvsw_set_target - what port `port` leads to: requests to addresses in
 * [base, limit] and completions for requester `id` leave by it. Until
 * a port has a target, nothing is routed to it (an unprogrammed switch
 * carries no traffic). Returns 0 or -SIM_EINVAL (no such port).
 */
int nvsw_set_target(struct sim_component *sw, unsigned port, uint64_t base,
                    uint64_t limit, uint16_t id);
unsigned nvsw_n_ports(const struct sim_component *sw);
unsigned nvsw_generation(const struct sim_component *sw);
sim_time_t nvsw_latency(const struct sim_component *sw);
uint64_t nvsw_bandwidth(const struct sim_component *sw);
/*
 * nvsw_route - the port a packet like t entering on port `in` leaves by,
 * as receive() decides it, or -1 (no programmed target).
 */
int nvsw_route(const struct sim_component *sw, unsigned in,
               const struct tlp *t);

#endif /* P2PSIM_MODELS_NVLINK_NVLINK_H */
