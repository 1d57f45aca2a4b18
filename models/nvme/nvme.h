/*
 * models/nvme/nvme.h - an NVMe drive (kind "nvme-drive"): a PCIe endpoint
 * on port "pcie" with one I/O submission/completion queue pair in host
 * memory, a media store with read and write rates and latencies, and a
 * DMA engine that moves the data as TLPs: memory writes for reads from
 * the media, memory reads for writes to it.
 *
 * Properties (defaults: Intel D7-P5510 3.84 TB, docs/storage.md):
 *   capacity        size  media bytes (default 3.84TB; sparse)
 *   read-bandwidth  rate  media read rate (default 7000MB/s)
 *   write-bandwidth rate  media write rate (default 4200MB/s)
 *   read-latency    time  per command, before its first byte (default 82us)
 *   write-latency   time  per command, after its last byte (default 15us)
 *   lba             size  logical block (default 4KiB)
 *   mdts            size  largest command (default 128KiB)
 *   tags            count outstanding reads of the DMA engine (default 256)
 *   mrrs            size  largest read request (default 512B)
 *   mps             size  largest write payload (default 256B)
 *   max-gen, max-width    its PCIe link (default Gen4 x4)
 */
#ifndef P2PSIM_MODELS_NVME_NVME_H
#define P2PSIM_MODELS_NVME_NVME_H

#include <stdint.h>

struct mem_sparse;
struct sim_component;

extern const struct sim_component_ops nvme_ops;

/* Submission queue entry and completion queue entry sizes (NVMe 2.0). */
#define NVME_SQE_BYTES 64u
#define NVME_CQE_BYTES 16u
#define NVME_OP_WRITE 0x01u
#define NVME_OP_READ 0x02u

/* The fields of an SQE and a CQE this model uses, at their NVMe offsets. */
struct nvme_cmd {
    uint8_t opcode;
    uint16_t cid;
    uint64_t prp1;              /* bus address of the (contiguous) data */
    uint64_t slba;              /* first logical block */
    uint32_t nlb;               /* blocks (the SQE holds nlb - 1) */
};
void nvme_sqe_encode(const struct nvme_cmd *cmd, uint8_t sqe[NVME_SQE_BYTES]);
/* A CQE's command id, phase tag and status (0: success). */
void nvme_cqe_decode(const uint8_t cqe[NVME_CQE_BYTES], uint16_t *cid,
                     unsigned *phase, unsigned *status);

/* Create the I/O queue pair: depth entries each at bus addresses sq, cq
 * (host memory). What the admin queue's Create I/O SQ/CQ commands do. */
int nvme_create_queues(struct sim_component *c, uint64_t sq, uint64_t cq,
                       unsigned depth);
/* The SQ tail doorbell: entries up to tail (exclusive, mod depth) wait. */
void nvme_ring_sq(struct sim_component *c, unsigned tail);

/* Bytes the DMA engine moved: read from the media out to the bus, and
 * written in from the bus; commands completed. */
struct nvme_counters {
    uint64_t bytes_read, bytes_written, commands;
};
void nvme_get_counters(const struct sim_component *c, struct nvme_counters *out);

struct mem_sparse *nvme_media(struct sim_component *c);
uint64_t nvme_capacity(const struct sim_component *c);
unsigned nvme_lba(const struct sim_component *c);
uint64_t nvme_mdts(const struct sim_component *c);
unsigned nvme_depth_max(void);

/* The row's PCIe function (machine/kinds.c). */
void nvme_set_pcie_id(struct sim_component *c, uint16_t id);
uint16_t nvme_pcie_id(const struct sim_component *c);
uint64_t nvme_bar_size(const struct sim_component *c);
void nvme_set_bar(struct sim_component *c, uint64_t base);
unsigned nvme_max_gen(const struct sim_component *c);
unsigned nvme_max_width(const struct sim_component *c);
unsigned nvme_mps(const struct sim_component *c);

#endif /* P2PSIM_MODELS_NVME_NVME_H */
