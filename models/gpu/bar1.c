/*
 * models/gpu/bar1.c - the BAR1 aperture of a GPU: which pages of the
 * aperture show which pages of HBM.
 *
 * Peers over PCIe reach a GPU's memory only through BAR1
 * (../shared/reference/pcie-nvlink.md §2.10): the driver maps a buffer
 * into the aperture and hands the peer the bus address. The aperture is
 * often smaller than HBM (256 MiB on stock GeForce drivers, 256 GiB on an
 * H200), so mappings are a resource that runs out; when it does, the map
 * fails cleanly and the caller falls back to staging through host memory.
 *
 *     bus address                 aperture offset        HBM address
 *     bar1_base + off  ---------> [off, off + len)  ---> [hbm, hbm + len)
 *
 * Data structure: a sorted array of disjoint mappings; the gaps between
 * neighbours are the free space. Allocation is first fit over the gaps,
 * O(n) in the number of mappings; translation is a binary search, O(log n);
 * map and unmap move the tail of the array, O(n). Drivers keep a few
 * hundred mappings at most, where this is cheaper than a balanced tree.
 *
 * Model: no compaction and no eviction. A request that fits in the total
 * free space but in no single gap fails with -SIM_ENOMEM, as a fragmented
 * aperture does until buffers are freed.
 * Model: the aperture is contiguous for each mapping; the driver's page
 * tables could scatter a mapping over discontiguous aperture pages, which
 * peers could not tell apart from this.
 */
#include <config.h>

#include "models/gpu/gpu.h"

#include <stdlib.h>
#include <string.h>

#include "models/gpu/gpu_int.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/sim.h"
#include "sim/trace.h"

int bar1__init(struct bar1 *b, uint64_t size, uint64_t page)
{
    memset(b, 0, sizeof(*b));
    if (size == 0 || page == 0 || (size & (size - 1)) != 0 ||
        (page & (page - 1)) != 0 || page > size) {
        return -SIM_EINVAL;
    }
    b->size = size;
    b->page = page;
    return 0;
}

void bar1__fini(struct bar1 *b)
{
    free(b->map);
    memset(b, 0, sizeof(*b));
}

/* Index of the first mapping whose end is above off (n_map if none). */
static size_t bar1_search(const struct bar1 *b, uint64_t off)
{
    size_t lo = 0;
    size_t hi = b->n_map;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct bar1_mapping *m = &b->map[mid];
        if (m->off + m->len <= off) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static int bar1_reserve(struct bar1 *b)
{
    if (b->n_map < b->cap_map) {
        return 0;
    }
    size_t cap = b->cap_map ? 2 * b->cap_map : 16;
    struct bar1_mapping *m = realloc(b->map, cap * sizeof(*m));
    if (!m) {
        return -SIM_ENOMEM;
    }
    b->map = m;
    b->cap_map = cap;
    return 0;
}

int bar1__alloc(struct bar1 *b, uint64_t hbm_addr, uint64_t len,
                uint64_t *off)
{
    uint64_t first = hbm_addr & ~(b->page - 1);
    uint64_t last = hbm_addr + len - 1;          /* caller checked overflow */
    uint64_t need = (last | (b->page - 1)) - first + 1;
    if (len == 0 || need > b->size - b->used) {
        return -SIM_ENOMEM;
    }
    /* First fit: the gap before map[i] starts where map[i - 1] ends. */
    uint64_t start = 0;
    size_t i;
    for (i = 0; i <= b->n_map; i++) {
        uint64_t end = i < b->n_map ? b->map[i].off : b->size;
        if (end - start >= need) {
            break;
        }
        if (i < b->n_map) {
            start = b->map[i].off + b->map[i].len;
        }
    }
    if (i > b->n_map || bar1_reserve(b) < 0) {
        return -SIM_ENOMEM;
    }
    memmove(&b->map[i + 1], &b->map[i], (b->n_map - i) * sizeof(b->map[0]));
    b->map[i] = (struct bar1_mapping){
        .off = start, .len = need, .hbm_addr = first,
    };
    b->n_map++;
    b->used += need;
    *off = start + (hbm_addr - first);
    return 0;
}

int bar1__free(struct bar1 *b, uint64_t off)
{
    size_t i = bar1_search(b, off);
    if (i == b->n_map || b->map[i].off > off) {
        return -SIM_ENOENT;
    }
    b->used -= b->map[i].len;
    memmove(&b->map[i], &b->map[i + 1],
            (b->n_map - i - 1) * sizeof(b->map[0]));
    b->n_map--;
    return 0;
}

bool bar1__translate(const struct bar1 *b, uint64_t off, uint64_t *hbm_addr,
                     uint64_t *contig_bytes)
{
    size_t i = bar1_search(b, off);
    if (i == b->n_map || b->map[i].off > off) {
        return false;
    }
    const struct bar1_mapping *m = &b->map[i];
    *hbm_addr = m->hbm_addr + (off - m->off);
    *contig_bytes = m->off + m->len - off;
    return true;
}

/* ---- the public face (gpu.h) --------------------------------------------- */

int gpu_bar1_map(struct sim_component *c, uint64_t hbm_addr, uint64_t len,
                 uint64_t *bus_addr)
{
    struct gpu *g = gpu__from(c);
    if (len == 0 || hbm_addr >= g->mem_bytes ||
        len > g->mem_bytes - hbm_addr) {
        return -SIM_EINVAL;
    }
    /* Room in the table first: running out of memory for it is not BAR1
     * running out of aperture (both are -SIM_ENOMEM to the API). */
    if (bar1_reserve(&g->bar1) < 0) {
        return sim_nomem(c->sim, c->name, "its table of BAR1 mappings");
    }
    uint64_t off;
    int rc = bar1__alloc(&g->bar1, hbm_addr, len, &off);
    if (rc == 0) {
        *bus_addr = g->bar1_base + off;
    }
    sim_trace_component(c, SIM_TP_BAR1_MAP, NULL, NULL,
                        rc == 0 ? *bus_addr : 0, len,
                        rc == 0 ? NULL : "BAR1 exhausted");
    return rc;
}

int gpu_bar1_unmap(struct sim_component *c, uint64_t bus_addr)
{
    struct gpu *g = gpu__from(c);
    int rc = -SIM_ENOENT;
    if (bus_addr >= g->bar1_base && bus_addr - g->bar1_base < g->bar1_bytes) {
        rc = bar1__free(&g->bar1, bus_addr - g->bar1_base);
    }
    sim_trace_component(c, SIM_TP_BAR1_UNMAP, NULL, NULL, bus_addr, 0,
                        rc == 0 ? NULL : "no mapping at that address");
    return rc;
}

uint64_t gpu_bar1_used(const struct sim_component *c)
{
    return gpu__from(c)->bar1.used;
}

bool gpu_bar1_translate(const struct sim_component *c, uint64_t bus_addr,
                        uint64_t *hbm_addr, uint64_t *contig_bytes)
{
    const struct gpu *g = gpu__from(c);
    if (bus_addr < g->bar1_base || bus_addr - g->bar1_base >= g->bar1_bytes) {
        return false;
    }
    return bar1__translate(&g->bar1, bus_addr - g->bar1_base, hbm_addr,
                           contig_bytes);
}
