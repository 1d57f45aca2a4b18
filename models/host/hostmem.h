/*
 * models/host/hostmem.h - host DRAM of one socket (kind "host-memory"): a
 * completer on port "up" for memory reads, writes and AtomicOps, with a
 * latency and a bandwidth, backed by a sparse store. Its address range is
 * [base, base + size) on the bus (set by the builder).
 *
 * Properties:
 *   size       size   (required)
 *   latency    time   read access latency (default 100ns)
 *   bandwidth  rate   (default 100GB/s)
 *   rcb        64 | 128  read completion boundary (default 64)
 *   mps        size   largest completion payload (default 256B)
 */
#ifndef P2PSIM_MODELS_HOST_HOSTMEM_H
#define P2PSIM_MODELS_HOST_HOSTMEM_H

#include <stdint.h>

#include "sim/time.h"

struct sim_component;
struct mem_sparse;

extern const struct sim_component_ops hmem_ops;

void hmem_set_base(struct sim_component *c, uint64_t base, uint16_t id);
uint64_t hmem_base(const struct sim_component *c);
uint64_t hmem_size(const struct sim_component *c);
struct mem_sparse *hmem_store(struct sim_component *c);

/* The configured timing of a host memory, as properties set it. */
struct hmem_params {
    sim_time_t latency_ps;      /* read access latency */
    uint64_t rate_bytes_per_s;  /* the channel; 0 = unlimited */
    unsigned mps_bytes;         /* largest completion payload */
    unsigned rcb_bytes;         /* read completion boundary */
};
void hmem_get_params(const struct sim_component *c, struct hmem_params *out);

#endif /* P2PSIM_MODELS_HOST_HOSTMEM_H */
