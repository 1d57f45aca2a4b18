/*
 * models/iommu/atc.c - a device's Address Translation Cache (ATS, PCIe
 * r6.0 §10): the pages whose translations the device holds, so it can send
 * requests with AT = translated and skip the root complex's IOMMU.
 *
 * Model: the cache holds page numbers only (translations are identity,
 * iommu.h) and replaces the least recently used page. Lookups scan the
 * array: ATCs are small (tens of entries) and a scan of a few cache lines
 * is cheaper than a hash for them; O(entries) per lookup and insert.
 * Not modelled: invalidation of single ranges (only all), PASIDs, the
 * permission bits of the translation completion.
 */
#include <config.h>

#include "models/iommu/iommu.h"

#include <stdlib.h>

struct atc_entry {
    uint64_t page;              /* address / page_bytes */
    uint64_t used_at;           /* value of the use clock at the last use */
    bool valid;
};

struct atc {
    struct atc_entry *e;
    unsigned n_entries;
    uint64_t page_bytes;        /* power of two */
    uint64_t clock;             /* counts uses, for LRU */
};

struct atc *atc_create(unsigned entries, uint64_t page_bytes)
{
    if (entries == 0 || page_bytes == 0 ||
        (page_bytes & (page_bytes - 1)) != 0) {
        return NULL;
    }
    struct atc *c = calloc(1, sizeof(*c));
    if (!c) {
        return NULL;
    }
    c->e = calloc(entries, sizeof(*c->e));
    if (!c->e) {
        free(c);
        return NULL;
    }
    c->n_entries = entries;
    c->page_bytes = page_bytes;
    return c;
}

void atc_destroy(struct atc *c)
{
    if (c) {
        free(c->e);
        free(c);
    }
}

static struct atc_entry *atc_find(struct atc *c, uint64_t page)
{
    for (unsigned i = 0; i < c->n_entries; i++) {
        if (c->e[i].valid && c->e[i].page == page) {
            return &c->e[i];
        }
    }
    return NULL;
}

bool atc_lookup(struct atc *c, uint64_t addr)
{
    struct atc_entry *e = atc_find(c, addr / c->page_bytes);
    if (e) {
        e->used_at = ++c->clock;
    }
    return e != NULL;
}

void atc_insert(struct atc *c, uint64_t addr)
{
    uint64_t page = addr / c->page_bytes;
    struct atc_entry *e = atc_find(c, page);
    if (!e) {
        /* a free slot, else the least recently used one */
        e = &c->e[0];
        for (unsigned i = 0; i < c->n_entries && e->valid; i++) {
            if (!c->e[i].valid || c->e[i].used_at < e->used_at) {
                e = &c->e[i];
            }
        }
        e->page = page;
        e->valid = true;
    }
    e->used_at = ++c->clock;
}

void atc_invalidate_all(struct atc *c)
{
    for (unsigned i = 0; i < c->n_entries; i++) {
        c->e[i].valid = false;
    }
}
