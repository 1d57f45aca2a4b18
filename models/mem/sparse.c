/*
 * models/mem/sparse.c - the sparse byte store.
 *
 * Pages of MEM_SPARSE_PAGE_BYTES are allocated on the first write of a
 * byte other than zero (walk) and found through an open-addressing hash
 * table (linear probing, power-of-two capacity, kept at most half full).
 * Reads of pages never written return zeros, as freshly allocated device
 * memory reads in practice; that is a convenience, not a CUDA guarantee.
 * A few pages found lately are cached in front of the table, so streams of
 * small accesses to a few pages skip the probe.
 *
 * Pages are carved from arenas of MEM_SPARSE_ARENA_BYTES mapped
 * anonymously, so memory comes zeroed from the kernel and a new page costs
 * no calloc (whose memset of 64 KiB was 4% of bench/fabric's
 * instructions). A store's first arena is faulted in lazily, 4 KiB at a
 * time, so a store written only a little stays small; a store that needs a
 * second arena is being filled in bulk, so later arenas are populated when
 * mapped, in one system call instead of 512 page faults (at 8 MiB per
 * pair, bench/fabric spent 12% of its time in the kernel, 7% after). A
 * store holds at most one partly used arena. (Marking the arenas for
 * transparent huge pages made bench/fabric slower.)
 */
#include <config.h>

#include "models/mem/sparse.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/error.h"

struct page_slot {
    uint64_t page;              /* page number + 1; 0 = empty slot */
    uint8_t *bytes;
};

#define MEM_SPARSE_RECENT 16u   /* pages cached in front of the table */
#define MEM_SPARSE_ARENA_BYTES (UINT64_C(2) << 20) /* 32 pages */
#ifndef MAP_POPULATE
#define MAP_POPULATE 0          /* not Linux: every arena faults lazily */
#endif

/* An arena's mapping, kept to unmap it at destroy. */
struct arena {
    uint8_t *base;
    struct arena *next;
};

struct attached {
    uint64_t addr, len;
    uint8_t *ptr;               /* caller-owned */
};

struct mem_sparse {
    uint64_t size;              /* bytes addressable */
    struct attached *att;       /* sorted by addr, not overlapping */
    unsigned n_att, cap_att;
    struct page_slot *slot;
    uint64_t cap;               /* slots, power of two */
    uint64_t n_pages;           /* pages allocated */
    struct arena *arenas;       /* newest first */
    uint8_t *arena_next;        /* next unused page of the newest arena */
    uint8_t *arena_end;
    /*
     * Pages found lately, direct-mapped by hash: TLP-sized accesses hit
     * the same few pages (one per stream) many times in a row. Pages never
     * move or go away before destroy, so entries stay valid; only pages
     * that exist are cached. Reads fill it too (it is not part of the
     * store's contents, so a read still leaves the store as it was).
     */
    struct page_slot recent[MEM_SPARSE_RECENT];
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
    while (m->arenas) {
        struct arena *a = m->arenas;
        m->arenas = a->next;
        munmap(a->base, MEM_SPARSE_ARENA_BYTES);
        free(a);
    }
    free(m->slot);
    free(m->att);
    free(m);
}

/* Index of the first attached range ending after addr. */
static unsigned att_find(const struct mem_sparse *m, uint64_t addr)
{
    unsigned lo = 0, hi = m->n_att;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (m->att[mid].addr + m->att[mid].len <= addr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

int mem_sparse_attach(struct mem_sparse *m, uint64_t addr, void *ptr,
                      uint64_t len)
{
    if (len == 0 || addr > m->size || len > m->size - addr) {
        return -SIM_ERANGE;
    }
    unsigned i = att_find(m, addr);
    if (i < m->n_att && m->att[i].addr < addr + len) {
        return -SIM_EBUSY;
    }
    if (m->n_att == m->cap_att) {
        unsigned cap = m->cap_att ? m->cap_att * 2 : 8;
        struct attached *n = realloc(m->att, cap * sizeof(*n));
        if (!n) {
            return -SIM_ENOMEM;
        }
        m->att = n;
        m->cap_att = cap;
    }
    memmove(&m->att[i + 1], &m->att[i], (m->n_att - i) * sizeof(*m->att));
    m->att[i] = (struct attached){ addr, len, ptr };
    m->n_att++;
    return 0;
}

int mem_sparse_detach(struct mem_sparse *m, uint64_t addr)
{
    unsigned i = att_find(m, addr);
    if (i == m->n_att || m->att[i].addr != addr) {
        return -SIM_ENOENT;
    }
    memmove(&m->att[i], &m->att[i + 1], (m->n_att - i - 1) * sizeof(*m->att));
    m->n_att--;
    return 0;
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

/* A zeroed page from the newest arena, mapping another when it is used up
 * (populated unless it is the store's first); NULL on out of memory. */
static uint8_t *page_new(struct mem_sparse *m)
{
    if (m->arena_next == m->arena_end) {
        struct arena *a = malloc(sizeof(*a));
        if (!a) {
            return NULL;
        }
        int populate = m->arenas ? MAP_POPULATE : 0;
        void *p = mmap(NULL, MEM_SPARSE_ARENA_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | populate, -1, 0);
        if (p == MAP_FAILED) {
            free(a);
            return NULL;
        }
        a->base = p;
        a->next = m->arenas;
        m->arenas = a;
        m->arena_next = p;
        m->arena_end = a->base + MEM_SPARSE_ARENA_BYTES;
    }
    uint8_t *b = m->arena_next;
    m->arena_next += MEM_SPARSE_PAGE_BYTES;
    return b;
}

/* The page's bytes, allocating (zeroed) if create; NULL if absent. */
static uint8_t *page_bytes(struct mem_sparse *m, uint64_t page, bool create)
{
    uint64_t key = page + 1;
    struct page_slot *r = &m->recent[hash_page(key) & (MEM_SPARSE_RECENT - 1)];
    if (r->page == key) {
        return r->bytes;
    }
    struct page_slot *s = find_slot(m, page);
    if (s->page) {
        *r = *s;
        return s->bytes;
    }
    if (!create) {
        return NULL;
    }
    if ((m->n_pages + 1) * 2 > m->cap) {
        if (grow(m) < 0) {
            return NULL;
        }
        s = find_slot(m, page);
    }
    uint8_t *b = page_new(m);
    if (!b) {
        return NULL;
    }
    s->page = page + 1;
    s->bytes = b;
    m->n_pages++;
    *r = *s;
    return b;
}

bool mem_sparse_is_backed(const struct mem_sparse *m, uint64_t addr,
                          uint64_t len)
{
    if (len == 0) {
        return false;
    }
    unsigned i = m->n_att ? att_find(m, addr) : 0;
    if (i < m->n_att && m->att[i].addr < addr + len) {
        return true;            /* an attached range overlaps */
    }
    uint64_t first = addr / MEM_SPARSE_PAGE_BYTES;
    uint64_t last = (addr + len - 1) / MEM_SPARSE_PAGE_BYTES;
    for (uint64_t pg = first; pg <= last; pg++) {
        if (find_slot(m, pg)->page != 0) {
            return true;
        }
    }
    return false;
}

static int check_range(const struct mem_sparse *m, uint64_t addr, uint64_t len)
{
    return (addr > m->size || len > m->size - addr) ? -SIM_ERANGE : 0;
}

/* Whether a write (op 1: src + done) or fill (op 2: value) of n bytes
 * stores only zeros. */
static bool writes_zeros(const void *src, uint64_t done, uint8_t value,
                         uint64_t n, int op)
{
    if (op == 2) {
        return value == 0;
    }
    const uint8_t *p = (const uint8_t *)src + done;
    for (uint64_t k = 0; k < n; k++) {
        if (p[k] != 0) {
            return false;
        }
    }
    return true;
}

/* Walk [addr, addr+len) page by page; op 0 read, 1 write, 2 fill. A write
 * or fill of zeros backs no page that has none: the page reads as zeros
 * either way (a cudaMemset to 0 of fresh memory, a copy of untouched
 * bytes), so what can be read is the same and the store stays small. */
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
        /* caller-owned memory first */
        unsigned i = m->n_att ? att_find(m, a) : 0;
        if (i < m->n_att && m->att[i].addr <= a) {
            const struct attached *at = &m->att[i];
            uint64_t n = at->addr + at->len - a;
            if (n > len - done) {
                n = len - done;
            }
            uint8_t *p = at->ptr + (a - at->addr);
            if (op == 0) {
                memcpy((uint8_t *)buf + done, p, n);
            } else if (op == 1) {
                memcpy(p, (const uint8_t *)src + done, n);
            } else {
                memset(p, value, n);
            }
            done += n;
            continue;
        }
        uint64_t page = a / MEM_SPARSE_PAGE_BYTES;
        uint64_t off = a % MEM_SPARSE_PAGE_BYTES;
        uint64_t n = MEM_SPARSE_PAGE_BYTES - off;
        if (n > len - done) {
            n = len - done;
        }
        if (i < m->n_att && m->att[i].addr < a + n) {
            n = m->att[i].addr - a; /* stop at the next attached range */
        }
        uint8_t *b = page_bytes(m, page, false);
        if (!b && op != 0 && !writes_zeros(src, done, value, n, op)) {
            b = page_bytes(m, page, true);
            if (!b) {
                return -SIM_ENOMEM;
            }
        }
        if (op == 0) {
            if (b) {
                memcpy((uint8_t *)buf + done, b + off, n);
            } else {
                memset((uint8_t *)buf + done, 0, n);
            }
        } else if (!b) {
            /* zeros onto a page never written, which reads as zeros */
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
