/*
 * models/mem/sparse.c - the sparse byte store.
 *
 * Pages of MEM_SPARSE_PAGE_BYTES are allocated on first write and found
 * through an open-addressing hash table (linear probing, power-of-two
 * capacity, kept at most half full). Reads of pages never written return
 * zeros, as freshly allocated device memory reads in practice; that is a
 * convenience, not a CUDA guarantee.
 */
#include <config.h>

#include "models/mem/sparse.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

struct page_slot {
    uint64_t page;              /* page number + 1; 0 = empty slot */
    uint8_t *bytes;
};

struct mem_sparse {
    uint64_t size;              /* bytes addressable */
    struct page_slot *slot;
    uint64_t cap;               /* slots, power of two */
    uint64_t n_pages;           /* pages allocated */
};

static uint64_t hash_page(uint64_t p)
{
    p ^= p >> 33;
    p *= UINT64_C(0xff51afd7ed558ccd);
    p ^= p >> 33;
    return p;
}

struct mem_sparse *mem_sparse_create(uint64_t size_bytes)
{
    struct mem_sparse *m = calloc(1, sizeof(*m));
    if (!m) {
        return NULL;
    }
    m->size = size_bytes;
    m->cap = 64;
    m->slot = calloc(m->cap, sizeof(*m->slot));
    if (!m->slot) {
        free(m);
        return NULL;
    }
    return m;
}

void mem_sparse_destroy(struct mem_sparse *m)
{
    if (!m) {
        return;
    }
    for (uint64_t i = 0; i < m->cap; i++) {
        free(m->slot[i].bytes);
    }
    free(m->slot);
    free(m);
}

uint64_t mem_sparse_size(const struct mem_sparse *m) { return m->size; }

uint64_t mem_sparse_backed_bytes(const struct mem_sparse *m)
{
    return m->n_pages * MEM_SPARSE_PAGE_BYTES;
}

static struct page_slot *find_slot(const struct mem_sparse *m, uint64_t page)
{
    uint64_t key = page + 1;
    uint64_t i = hash_page(key) & (m->cap - 1);
    while (m->slot[i].page != 0 && m->slot[i].page != key) {
        i = (i + 1) & (m->cap - 1);
    }
    return &m->slot[i];
}

static int grow(struct mem_sparse *m)
{
    uint64_t old_cap = m->cap;
    struct page_slot *old = m->slot;
    m->cap *= 2;
    m->slot = calloc(m->cap, sizeof(*m->slot));
    if (!m->slot) {
        m->slot = old;
        m->cap = old_cap;
        return -SIM_ENOMEM;
    }
    for (uint64_t i = 0; i < old_cap; i++) {
        if (old[i].page) {
            *find_slot(m, old[i].page - 1) = old[i];
        }
    }
    free(old);
    return 0;
}

/* The page's bytes, allocating (zeroed) if create; NULL if absent. */
static uint8_t *page_bytes(struct mem_sparse *m, uint64_t page, bool create)
{
    struct page_slot *s = find_slot(m, page);
    if (s->page || !create) {
        return s->bytes;
    }
    if ((m->n_pages + 1) * 2 > m->cap) {
        if (grow(m) < 0) {
            return NULL;
        }
        s = find_slot(m, page);
    }
    uint8_t *b = calloc(1, MEM_SPARSE_PAGE_BYTES);
    if (!b) {
        return NULL;
    }
    s->page = page + 1;
    s->bytes = b;
    m->n_pages++;
    return b;
}

static int check_range(const struct mem_sparse *m, uint64_t addr, uint64_t len)
{
    return (addr > m->size || len > m->size - addr) ? -SIM_ERANGE : 0;
}

/* Walk [addr, addr+len) page by page; op 0 read, 1 write, 2 fill. */
static int walk(struct mem_sparse *m, uint64_t addr, void *buf,
                const void *src, uint8_t value, uint64_t len, int op)
{
    int rc = check_range(m, addr, len);
    if (rc < 0) {
        return rc;
    }
    uint64_t done = 0;
    while (done < len) {
        uint64_t a = addr + done;
        uint64_t page = a / MEM_SPARSE_PAGE_BYTES;
        uint64_t off = a % MEM_SPARSE_PAGE_BYTES;
        uint64_t n = MEM_SPARSE_PAGE_BYTES - off;
        if (n > len - done) {
            n = len - done;
        }
        uint8_t *b = page_bytes(m, page, op != 0);
        if (op == 0) {
            if (b) {
                memcpy((uint8_t *)buf + done, b + off, n);
            } else {
                memset((uint8_t *)buf + done, 0, n);
            }
        } else if (!b) {
            return -SIM_ENOMEM;
        } else if (op == 1) {
            memcpy(b + off, (const uint8_t *)src + done, n);
        } else {
            memset(b + off, value, n);
        }
        done += n;
    }
    return 0;
}

int mem_sparse_write(struct mem_sparse *m, uint64_t addr, const void *src,
                     uint64_t len)
{
    return walk(m, addr, NULL, src, 0, len, 1);
}

int mem_sparse_read(const struct mem_sparse *m, uint64_t addr, void *dst,
                    uint64_t len)
{
    /* reading never allocates, so the cast does not change the store */
    return walk((struct mem_sparse *)m, addr, dst, NULL, 0, len, 0);
}

int mem_sparse_fill(struct mem_sparse *m, uint64_t addr, uint8_t value,
                    uint64_t len)
{
    return walk(m, addr, NULL, NULL, value, len, 2);
}
