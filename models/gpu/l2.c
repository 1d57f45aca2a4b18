/*
 * models/gpu/l2.c - the GPU's L2 cache as copies within HBM see it: which
 * blocks of HBM it holds, so that a copy whose source and destination fit
 * in it streams at the L2's bandwidth and costs HBM nothing, while a
 * larger one goes to HBM for every byte.
 *
 * The cache is a timing model only: data always live in the sparse HBM
 * store (gpu.c); this file decides how many bytes a copy moves to or from
 * HBM. It keeps HBM in blocks of GPU_L2_BLOCK bytes, fully associative,
 * least recently used first out, write-allocate (a copy writes whole
 * lines, so a written block is not fetched first) and write-back (a dirty
 * block costs its bytes of HBM when it is evicted).
 *
 * What it explains: on an H200, back-to-back device-to-device copies of
 * 1-16 MB (source and destination together within the 60 MiB L2) run at
 * about 6.6 TB/s of reads plus writes, above the HBM's 4.8 TB/s, while 32
 * MB and larger ones run at the HBM rate (data/h200-x1/README.md,
 * data/hgx-h200-x2/ce_pipeline_probe.txt). LRU with both buffers of a
 * copy of half the capacity or more thrashes: every access misses, as
 * measured.
 *
 * Model: blocks, not 128-byte lines and sectors: a partial access to a
 * block that misses costs only the bytes it touches but makes the whole
 * block resident. No sets, no hashing of addresses to L2 slices, no
 * partition between the two halves of the chip. Only copies within HBM
 * (copy-engine LOCAL operations and the fills built on them) use the
 * cache; peer and host traffic, and the SMs, go to HBM as before.
 * Dirty blocks left at the end of a run are never written back.
 */
#include <config.h>

#include "models/gpu/gpu_int.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

#define L2_NONE UINT32_MAX

struct gpu_l2_block {
    uint64_t tag;               /* HBM address / GPU_L2_BLOCK */
    uint32_t prev, next;        /* LRU list: prev is more recent */
    uint32_t chain;             /* next in the hash bucket */
    bool dirty;
};

static unsigned l2_hash(const struct gpu_l2 *l2, uint64_t tag)
{
    uint64_t x = tag * UINT64_C(0x9e3779b97f4a7c15);
    return (unsigned)(x >> 32) & (l2->n_bucket - 1);
}

int gpu_l2_init(struct gpu_l2 *l2, uint64_t capacity_bytes)
{
    memset(l2, 0, sizeof(*l2));
    l2->head = l2->tail = l2->free = L2_NONE;
    uint64_t cap = capacity_bytes / GPU_L2_BLOCK;
    if (cap == 0) {
        return 0;               /* no cache: everything goes to HBM */
    }
    if (cap > (UINT64_C(1) << 24)) {
        return -SIM_EINVAL;
    }
    l2->cap = (uint32_t)cap;
    l2->n_bucket = 1;
    while (l2->n_bucket < 2 * l2->cap) {
        l2->n_bucket *= 2;
    }
    l2->blk = calloc(l2->cap, sizeof(*l2->blk));
    l2->bucket = malloc(l2->n_bucket * sizeof(*l2->bucket));
    if (!l2->blk || !l2->bucket) {
        gpu_l2_fini(l2);
        return -SIM_ENOMEM;
    }
    for (uint32_t i = 0; i < l2->n_bucket; i++) {
        l2->bucket[i] = L2_NONE;
    }
    for (uint32_t i = 0; i < l2->cap; i++) {
        l2->blk[i].chain = i + 1 < l2->cap ? i + 1 : L2_NONE;
    }
    l2->free = 0;
    return 0;
}

void gpu_l2_fini(struct gpu_l2 *l2)
{
    free(l2->blk);
    free(l2->bucket);
    l2->blk = NULL;
    l2->bucket = NULL;
    l2->cap = 0;
}

static void lru_unlink(struct gpu_l2 *l2, uint32_t i)
{
    struct gpu_l2_block *b = &l2->blk[i];
    if (b->prev != L2_NONE) {
        l2->blk[b->prev].next = b->next;
    } else {
        l2->head = b->next;
    }
    if (b->next != L2_NONE) {
        l2->blk[b->next].prev = b->prev;
    } else {
        l2->tail = b->prev;
    }
}

static void lru_push_front(struct gpu_l2 *l2, uint32_t i)
{
    struct gpu_l2_block *b = &l2->blk[i];
    b->prev = L2_NONE;
    b->next = l2->head;
    if (l2->head != L2_NONE) {
        l2->blk[l2->head].prev = i;
    } else {
        l2->tail = i;
    }
    l2->head = i;
}

static uint32_t l2_find(const struct gpu_l2 *l2, uint64_t tag)
{
    uint32_t i = l2->bucket[l2_hash(l2, tag)];
    while (i != L2_NONE && l2->blk[i].tag != tag) {
        i = l2->blk[i].chain;
    }
    return i;
}

static void bucket_remove(struct gpu_l2 *l2, uint32_t i)
{
    uint32_t *at = &l2->bucket[l2_hash(l2, l2->blk[i].tag)];
    while (*at != i) {
        at = &l2->blk[*at].chain;
    }
    *at = l2->blk[i].chain;
}

/* A block for tag, evicting the least recently used if full; returns the
 * HBM bytes the eviction writes back. */
static uint64_t l2_insert(struct gpu_l2 *l2, uint64_t tag, uint32_t *out)
{
    uint64_t wb = 0;
    uint32_t i = l2->free;
    if (i != L2_NONE) {
        l2->free = l2->blk[i].chain;
    } else {
        i = l2->tail;
        lru_unlink(l2, i);
        bucket_remove(l2, i);
        if (l2->blk[i].dirty) {
            wb = GPU_L2_BLOCK;
            l2->writeback_bytes += GPU_L2_BLOCK;
        }
    }
    struct gpu_l2_block *b = &l2->blk[i];
    b->tag = tag;
    b->dirty = false;
    unsigned h = l2_hash(l2, tag);
    b->chain = l2->bucket[h];
    l2->bucket[h] = i;
    lru_push_front(l2, i);
    *out = i;
    return wb;
}

/* One access within one block; returns the HBM bytes it costs. */
static uint64_t l2_touch(struct gpu_l2 *l2, uint64_t addr, uint64_t n,
                         bool write)
{
    uint64_t tag = addr / GPU_L2_BLOCK;
    uint64_t hbm = 0;
    uint32_t i = l2_find(l2, tag);
    if (i != L2_NONE) {
        l2->hit_bytes += n;
        if (l2->head != i) {
            lru_unlink(l2, i);
            lru_push_front(l2, i);
        }
    } else {
        l2->miss_bytes += n;
        hbm = l2_insert(l2, tag, &i);
        if (!write) {
            hbm += n;           /* the fill */
        }
    }
    if (write) {
        l2->blk[i].dirty = true;
    }
    return hbm;
}

uint64_t gpu_l2_copy(struct gpu_l2 *l2, uint64_t dst, uint64_t src,
                     uint64_t len)
{
    if (l2->cap == 0) {
        return 2 * len;
    }
    /* In source-block steps, reading then writing, as a copy streams. */
    uint64_t hbm = 0;
    for (uint64_t done = 0; done < len;) {
        uint64_t n = GPU_L2_BLOCK - (src + done) % GPU_L2_BLOCK;
        n = n < len - done ? n : len - done;
        hbm += l2_touch(l2, src + done, n, false);
        for (uint64_t w = 0; w < n;) {
            uint64_t m = GPU_L2_BLOCK - (dst + done + w) % GPU_L2_BLOCK;
            m = m < n - w ? m : n - w;
            hbm += l2_touch(l2, dst + done + w, m, true);
            w += m;
        }
        done += n;
    }
    return hbm;
}
