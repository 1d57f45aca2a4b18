/*
 * models/host/socket_link.h - an inter-socket link (kind "socket-link":
 * QPI, UPI, xGMI, Infinity Fabric): full duplex, a rate and a latency per
 * direction, charging each TLP header + payload bytes (the link's own
 * packet format is not modelled: its efficiency is folded into the rate).
 * A bounded transmit queue refuses TLPs when full, so back-pressure reaches
 * the root complexes.
 *
 * Properties:
 *   bandwidth  rate   per direction (required)
 *   latency    time   one way (default 100ns)
 *   queue      size   bytes queued per direction before refusing
 *                     (default 16KiB)
 */
#ifndef P2PSIM_MODELS_HOST_SOCKET_LINK_H
#define P2PSIM_MODELS_HOST_SOCKET_LINK_H

#include "sim/port.h"
#include "sim/time.h"

struct tlp;

extern const struct sim_link_ops socket_link_ops;

/* What crossed the link from side i (TLPs, header + payload bytes). */
struct socket_link_counters {
    uint64_t tlps[2];
    uint64_t bytes[2];
    uint64_t refusals[2];       /* TLPs refused for a full queue */
};
void socket_link_get_counters(const struct sim_link *l,
                              struct socket_link_counters *out);

/* The configured rate (bytes/s per direction) and one-way latency. */
uint64_t socket_link_rate(const struct sim_link *l);
sim_time_t socket_link_latency(const struct sim_link *l);
/* Bytes the link charges for t: header + payload. */
uint32_t socket_link_tlp_bytes(const struct tlp *t);

#endif /* P2PSIM_MODELS_HOST_SOCKET_LINK_H */
