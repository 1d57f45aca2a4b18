/*
 * models/iommu/iommu.h - an IOMMU (library object owned by a root complex):
 * off, passthrough or translating; one domain per requester (or a group);
 * an IOTLB with a capacity and hit/miss latency; faults recorded, never
 * fatal; ATS translation answers for devices' caches.
 *
 * Model: translations are identity (IOVA = bus address) where mapped: the
 * model decides whether a DMA is allowed and what it costs, not where it
 * lands; the addresses p2psim programs are bus addresses already.
 */
#ifndef P2PSIM_MODELS_IOMMU_IOMMU_H
#define P2PSIM_MODELS_IOMMU_IOMMU_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"

enum iommu_mode {
    IOMMU_OFF,                  /* no translation, no checks, no cost */
    IOMMU_PASSTHROUGH,          /* identity domain: allowed, IOTLB not used */
    IOMMU_TRANSLATING,          /* mapped ranges only; IOTLB cost */
};

struct iommu_params {
    enum iommu_mode mode;
    unsigned iotlb_entries;     /* capacity (LRU), default 512 */
    uint64_t page_bytes;        /* translation granule, default 4 KiB */
    sim_time_t hit_ps;          /* IOTLB hit latency */
    sim_time_t miss_ps;         /* page walk on a miss */
    bool ats;                   /* ATS translation requests served */
};

struct iommu_fault {
    sim_time_t when;
    uint16_t requester_id;
    uint64_t addr;
    uint32_t len_bytes;
    bool write;
};

struct iommu;

struct iommu *iommu_create(const struct iommu_params *p);
void iommu_destroy(struct iommu *mmu);
enum iommu_mode iommu_mode(const struct iommu *mmu);

/* Put requester rid in domain (devices of one group share a domain). */
int iommu_set_domain(struct iommu *mmu, uint16_t rid, unsigned domain);
/* Map/unmap [addr, addr+len) in rid's domain. 0 or -SIM_E*. */
int iommu_map(struct iommu *mmu, uint16_t rid, uint64_t addr, uint64_t len);
int iommu_unmap(struct iommu *mmu, uint16_t rid, uint64_t addr, uint64_t len);
bool iommu_is_mapped(const struct iommu *mmu, uint16_t rid, uint64_t addr,
                     uint64_t len);

/*
 * iommu_translate - check a DMA of len bytes at addr by rid at time now.
 * Returns true if allowed; *cost_ps gets the IOTLB hit or miss latency.
 * A refused DMA is recorded as a fault.
 */
bool iommu_translate(struct iommu *mmu, sim_time_t now, uint16_t rid,
                     uint64_t addr, uint32_t len, bool write,
                     sim_time_t *cost_ps);

/* Faults recorded so far (the array stays valid until the next call). */
const struct iommu_fault *iommu_faults(const struct iommu *mmu, unsigned *n);

struct iommu_counters {
    uint64_t translations, hits, misses, faults;
};
void iommu_get_counters(const struct iommu *mmu, struct iommu_counters *out);

/* ---- device side: the Address Translation Cache (ATS) ----------------------- */
struct atc;
struct atc *atc_create(unsigned entries, uint64_t page_bytes);
void atc_destroy(struct atc *c);
bool atc_lookup(struct atc *c, uint64_t addr);
void atc_insert(struct atc *c, uint64_t addr);
void atc_invalidate_all(struct atc *c);

#endif /* P2PSIM_MODELS_IOMMU_IOMMU_H */
