/*
 * machine/hbm_space.c - first-fit allocation of a GPU's HBM offsets over a
 * sorted array of allocated ranges (machine/hbm_space.h).
 */
#include <config.h>

#include "machine/hbm_space.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

void p2psim_hbm_space_init(struct p2psim_hbm_space *s, uint64_t total_bytes)
{
    memset(s, 0, sizeof(*s));
    s->total_bytes = total_bytes;
}

void p2psim_hbm_space_fini(struct p2psim_hbm_space *s)
{
    free(s->r);
    memset(s, 0, sizeof(*s));
}

int p2psim_hbm_space_alloc(struct p2psim_hbm_space *s, uint64_t size,
                           uint64_t align, uint64_t *off)
{
    if (size == 0 || align == 0 || (align & (align - 1)) ||
        size > UINT64_MAX - align) {
        return -SIM_EINVAL;
    }
    size = (size + align - 1) & ~(align - 1);
    uint64_t at = 0;
    unsigned i = 0;
    for (; i <= s->n; i++) {
        uint64_t end = i < s->n ? s->r[i].off : s->total_bytes;
        if (end >= at && end - at >= size) {
            break;
        }
        if (i < s->n) {
            at = (s->r[i].off + s->r[i].len + align - 1) & ~(align - 1);
        }
    }
    if (i > s->n) {
        return -SIM_ENOMEM;
    }
    if (s->n == s->cap) {
        unsigned cap = s->cap ? 2 * s->cap : 16;
        void *n = realloc(s->r, cap * sizeof(*s->r));
        if (!n) {
            return -SIM_ENOMEM;
        }
        s->r = n;
        s->cap = cap;
    }
    memmove(&s->r[i + 1], &s->r[i], (s->n - i) * sizeof(*s->r));
    s->r[i].off = at;
    s->r[i].len = size;
    s->n++;
    *off = at;
    return 0;
}

int p2psim_hbm_space_free(struct p2psim_hbm_space *s, uint64_t off,
                          uint64_t *len)
{
    unsigned lo = 0, hi = s->n;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (s->r[mid].off < off) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == s->n || s->r[lo].off != off) {
        return -SIM_ENOENT;
    }
    if (len) {
        *len = s->r[lo].len;
    }
    memmove(&s->r[lo], &s->r[lo + 1], (s->n - lo - 1) * sizeof(*s->r));
    s->n--;
    return 0;
}
