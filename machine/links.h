/*
 * machine/links.h - what crossed each link of a machine: for the summary of
 * `p2psim run`, the shim's statistics and traces. Part of libp2psim.
 */
#ifndef P2PSIM_MACHINE_LINKS_H
#define P2PSIM_MACHINE_LINKS_H

#include <stdint.h>

#include "sim/time.h"

struct p2psim;

struct p2psim_link_stat {
    const char *name;           /* "a.port--b.port" (side 0 -- side 1) */
    const char *kind;           /* "pcie-link", "socket-link", ... */
    uint64_t rate;              /* bytes/s per direction, 0 if unknown */
    uint64_t tlps[2];           /* sent from side i */
    uint64_t bytes[2];          /* payload (PCIe) or packet bytes */
    sim_time_t busy_ps[2];      /* transmitter busy time (PCIe), else 0 */
};

unsigned p2psim_link_count(const struct p2psim *p);
/* Link i (0 <= i < count). 0, or -SIM_EINVAL. */
int p2psim_link_stat(const struct p2psim *p, unsigned i,
                     struct p2psim_link_stat *out);

#endif /* P2PSIM_MACHINE_LINKS_H */
