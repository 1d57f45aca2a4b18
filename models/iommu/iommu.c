/*
 * models/iommu/iommu.c - the IOMMU of a root complex: domains, mappings,
 * the IOTLB and the fault log (see iommu.h for the contract).
 *
 * What is modelled: whether a DMA is allowed and what the check costs.
 *  - Modes: off (no check, no cost), passthrough (identity domain: every
 *    DMA allowed, the IOTLB is not consulted) and translating (only mapped
 *    pages; every page a DMA touches is looked up in the IOTLB, a miss
 *    costs a page walk).
 *  - Domains: requester rid is in domain rid unless iommu_set_domain()
 *    moved it. Domain numbers share one space with requester IDs, so
 *    iommu_set_domain(b, a) puts b in a's default domain; pick numbers
 *    above 0xffff for groups that must not alias a device.
 *  - Mappings: per domain, a sorted list of disjoint, coalesced intervals
 *    [base, end) of whole pages.
 *  - IOTLB: one LRU cache of (domain, page) shared by all domains, as the
 *    VT-d IOTLB is tagged by domain ID (Intel VT-d r4.0 §6.2.1).
 *  - Faults: the first IOMMU_FAULT_LOG_MAX are kept, all are counted
 *    (VT-d keeps a fixed number of fault recording registers and sets an
 *    overflow bit; the first fault is the one that explains a hang).
 *
 * What is not modelled: address translation itself (identity, iommu.h),
 * page-table formats, the context and paging-structure caches (folded
 * into the miss latency), invalidation queues (unmap invalidates at once),
 * PASID tables, interrupt remapping.
 *
 * Costs: map/unmap O(n) in the domain's intervals (array insert/remove),
 * is_mapped O(log n), an IOTLB lookup O(1) expected (hash chains over a
 * table twice the capacity), an unmap's IOTLB invalidation O(capacity).
 */
#include <config.h>

#include "models/iommu/iommu.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

#define IOMMU_FAULT_LOG_MAX 256u       /* faults kept (all are counted) */
#define IOMMU_DEFAULT_ENTRIES 512u
#define IOMMU_DEFAULT_PAGE 4096u
#define IOMMU_NO_DOMAIN UINT32_MAX     /* rid_domain[]: use the default */
#define NIL UINT32_MAX                 /* end of an index list */

/* [base, end): a mapped run of whole pages. */
struct iommu_range {
    uint64_t base;
    uint64_t end;
};

struct iommu_domain {
    unsigned id;
    struct iommu_range *range;  /* sorted by base, disjoint, not adjacent */
    unsigned n, cap;
};

/* An IOTLB entry: on the LRU list (MRU at head) and on a hash chain. */
struct iotlb_entry {
    unsigned domain;
    uint64_t page;              /* page number (address / page_bytes) */
    uint32_t prev, next;        /* LRU list */
    uint32_t hnext;             /* hash chain */
    bool used;
};

struct iotlb {
    struct iotlb_entry *e;      /* capacity entries */
    uint32_t *bucket;           /* heads of hash chains */
    uint32_t n_buckets;         /* power of two */
    uint32_t capacity;
    uint32_t n_used;
    uint32_t lru_head, lru_tail;
    uint32_t free_head;         /* unused entries, chained through next */
};

struct iommu {
    struct iommu_params p;
    unsigned page_shift;        /* log2(page_bytes) */
    uint32_t *rid_domain;       /* 65536 entries, allocated on first use */
    struct iommu_domain *dom;   /* sorted by id */
    unsigned n_dom, cap_dom;
    struct iotlb tlb;
    struct iommu_fault fault[IOMMU_FAULT_LOG_MAX];
    unsigned n_fault;           /* entries used in fault[] */
    struct iommu_counters cnt;
};

/* ---- domains and mappings ----------------------------------------------- */

static unsigned domain_of(const struct iommu *mmu, uint16_t rid)
{
    if (mmu->rid_domain && mmu->rid_domain[rid] != IOMMU_NO_DOMAIN) {
        return mmu->rid_domain[rid];
    }
    return rid;
}

/* Index of the first domain with id >= id (binary search). */
static unsigned domain_lower_bound(const struct iommu *mmu, unsigned id)
{
    unsigned lo = 0, hi = mmu->n_dom;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (mmu->dom[mid].id < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static struct iommu_domain *domain_find(const struct iommu *mmu, unsigned id)
{
    unsigned i = domain_lower_bound(mmu, id);
    if (i < mmu->n_dom && mmu->dom[i].id == id) {
        return &mmu->dom[i];
    }
    return NULL;
}

static struct iommu_domain *domain_get(struct iommu *mmu, unsigned id)
{
    unsigned i = domain_lower_bound(mmu, id);
    if (i < mmu->n_dom && mmu->dom[i].id == id) {
        return &mmu->dom[i];
    }
    if (mmu->n_dom == mmu->cap_dom) {
        unsigned cap = mmu->cap_dom ? mmu->cap_dom * 2 : 8;
        struct iommu_domain *d = realloc(mmu->dom, cap * sizeof(*d));
        if (!d) {
            return NULL;
        }
        mmu->dom = d;
        mmu->cap_dom = cap;
    }
    memmove(&mmu->dom[i + 1], &mmu->dom[i],
            (mmu->n_dom - i) * sizeof(*mmu->dom));
    memset(&mmu->dom[i], 0, sizeof(mmu->dom[i]));
    mmu->dom[i].id = id;
    mmu->n_dom++;
    return &mmu->dom[i];
}

/* Index of the first range with end > addr: the only one that can hold it. */
static unsigned range_search(const struct iommu_domain *d, uint64_t addr)
{
    unsigned lo = 0, hi = d->n;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (d->range[mid].end <= addr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static bool domain_covers(const struct iommu_domain *d, uint64_t base,
                          uint64_t end)
{
    if (!d) {
        return false;
    }
    unsigned i = range_search(d, base);
    /* Ranges are coalesced, so one range must hold all of [base, end). */
    return i < d->n && d->range[i].base <= base && end <= d->range[i].end;
}

static int range_reserve(struct iommu_domain *d, unsigned extra)
{
    if (d->n + extra <= d->cap) {
        return 0;
    }
    unsigned cap = d->cap ? d->cap * 2 : 8;
    while (cap < d->n + extra) {
        cap *= 2;
    }
    struct iommu_range *r = realloc(d->range, cap * sizeof(*r));
    if (!r) {
        return -SIM_ENOMEM;
    }
    d->range = r;
    d->cap = cap;
    return 0;
}

/* Add [base, end), merging with every range it overlaps or touches. */
static int domain_add(struct iommu_domain *d, uint64_t base, uint64_t end)
{
    if (range_reserve(d, 1) < 0) {
        return -SIM_ENOMEM;
    }
    /* first range with end >= base: it touches or follows the new one */
    unsigned i = base ? range_search(d, base - 1) : 0;
    unsigned j = i;
    while (j < d->n && d->range[j].base <= end) {
        if (d->range[j].base < base) {
            base = d->range[j].base;
        }
        if (d->range[j].end > end) {
            end = d->range[j].end;
        }
        j++;
    }
    /* ranges i..j-1 collapse into one at i */
    if (j == i) {
        memmove(&d->range[i + 1], &d->range[i], (d->n - i) * sizeof(*d->range));
        d->n++;
    } else if (j > i + 1) {
        memmove(&d->range[i + 1], &d->range[j], (d->n - j) * sizeof(*d->range));
        d->n -= j - i - 1;
    }
    d->range[i].base = base;
    d->range[i].end = end;
    return 0;
}

/* Remove [base, end); a range straddling both ends splits in two. */
static int domain_remove(struct iommu_domain *d, uint64_t base, uint64_t end)
{
    if (range_reserve(d, 1) < 0) {
        return -SIM_ENOMEM;
    }
    unsigned i = range_search(d, base);
    while (i < d->n && d->range[i].base < end) {
        struct iommu_range *r = &d->range[i];
        if (r->base < base && r->end > end) {
            memmove(&d->range[i + 1], &d->range[i],
                    (d->n - i) * sizeof(*d->range));
            d->n++;
            d->range[i].end = base;
            d->range[i + 1].base = end;
            return 0;
        }
        if (r->base < base) {
            r->end = base;
            i++;
        } else if (r->end > end) {
            r->base = end;
            i++;
        } else {
            memmove(&d->range[i], &d->range[i + 1],
                    (d->n - i - 1) * sizeof(*d->range));
            d->n--;
        }
    }
    return 0;
}

/* ---- the IOTLB: hash chains plus an LRU list, all by index --------------- */

static uint32_t tlb_hash(const struct iotlb *tlb, unsigned domain,
                         uint64_t page)
{
    uint64_t h = page * UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)domain *
                 UINT64_C(0xc2b2ae3d27d4eb4f);
    h ^= h >> 29;
    return (uint32_t)h & (tlb->n_buckets - 1);
}

static int tlb_init(struct iotlb *tlb, uint32_t capacity)
{
    tlb->capacity = capacity;
    tlb->n_buckets = 1;
    while (tlb->n_buckets < 2 * capacity) {
        tlb->n_buckets <<= 1;
    }
    tlb->e = calloc(capacity, sizeof(*tlb->e));
    tlb->bucket = malloc(tlb->n_buckets * sizeof(*tlb->bucket));
    if (!tlb->e || !tlb->bucket) {
        return -SIM_ENOMEM;
    }
    for (uint32_t b = 0; b < tlb->n_buckets; b++) {
        tlb->bucket[b] = NIL;
    }
    for (uint32_t i = 0; i < capacity; i++) {
        tlb->e[i].next = i + 1 < capacity ? i + 1 : NIL;
    }
    tlb->free_head = 0;
    tlb->lru_head = tlb->lru_tail = NIL;
    tlb->n_used = 0;
    return 0;
}

static void lru_unlink(struct iotlb *tlb, uint32_t i)
{
    struct iotlb_entry *e = &tlb->e[i];
    if (e->prev != NIL) {
        tlb->e[e->prev].next = e->next;
    } else {
        tlb->lru_head = e->next;
    }
    if (e->next != NIL) {
        tlb->e[e->next].prev = e->prev;
    } else {
        tlb->lru_tail = e->prev;
    }
}

static void lru_push_head(struct iotlb *tlb, uint32_t i)
{
    struct iotlb_entry *e = &tlb->e[i];
    e->prev = NIL;
    e->next = tlb->lru_head;
    if (tlb->lru_head != NIL) {
        tlb->e[tlb->lru_head].prev = i;
    } else {
        tlb->lru_tail = i;
    }
    tlb->lru_head = i;
}

/* Drop entry i from its hash chain and the LRU list; it becomes free. */
static void tlb_drop(struct iotlb *tlb, uint32_t i)
{
    struct iotlb_entry *e = &tlb->e[i];
    uint32_t *link = &tlb->bucket[tlb_hash(tlb, e->domain, e->page)];
    while (*link != i) {
        SIM_ASSERT(*link != NIL, "IOTLB entry %u missing from its chain", i);
        link = &tlb->e[*link].hnext;
    }
    *link = e->hnext;
    lru_unlink(tlb, i);
    e->used = false;
    e->next = tlb->free_head;
    tlb->free_head = i;
    tlb->n_used--;
}

/* True on a hit, which also makes the entry most recently used. */
static bool tlb_lookup(struct iotlb *tlb, unsigned domain, uint64_t page)
{
    uint32_t i = tlb->bucket[tlb_hash(tlb, domain, page)];
    for (; i != NIL; i = tlb->e[i].hnext) {
        if (tlb->e[i].domain == domain && tlb->e[i].page == page) {
            lru_unlink(tlb, i);
            lru_push_head(tlb, i);
            return true;
        }
    }
    return false;
}

/* Insert a page known to be absent, evicting the least recently used. */
static void tlb_insert(struct iotlb *tlb, unsigned domain, uint64_t page)
{
    if (tlb->free_head == NIL) {
        tlb_drop(tlb, tlb->lru_tail);
    }
    uint32_t i = tlb->free_head;
    struct iotlb_entry *e = &tlb->e[i];
    tlb->free_head = e->next;
    e->domain = domain;
    e->page = page;
    e->used = true;
    uint32_t b = tlb_hash(tlb, domain, page);
    e->hnext = tlb->bucket[b];
    tlb->bucket[b] = i;
    lru_push_head(tlb, i);
    tlb->n_used++;
}

/* Drop the domain's entries for pages in [first, last]. O(capacity). */
static void tlb_invalidate(struct iotlb *tlb, unsigned domain, uint64_t first,
                           uint64_t last)
{
    for (uint32_t i = 0; i < tlb->capacity; i++) {
        struct iotlb_entry *e = &tlb->e[i];
        if (e->used && e->domain == domain && e->page >= first &&
            e->page <= last) {
            tlb_drop(tlb, i);
        }
    }
}

/* ---- lifecycle ----------------------------------------------------------- */

struct iommu *iommu_create(const struct iommu_params *p)
{
    struct iommu *mmu = calloc(1, sizeof(*mmu));
    if (!mmu) {
        return NULL;
    }
    mmu->p = *p;
    if (mmu->p.iotlb_entries == 0) {
        mmu->p.iotlb_entries = IOMMU_DEFAULT_ENTRIES;
    }
    if (mmu->p.page_bytes == 0) {
        mmu->p.page_bytes = IOMMU_DEFAULT_PAGE;
    }
    if ((mmu->p.page_bytes & (mmu->p.page_bytes - 1)) != 0 ||
        mmu->p.iotlb_entries > (1u << 24)) {
        free(mmu);
        return NULL;
    }
    while ((UINT64_C(1) << mmu->page_shift) < mmu->p.page_bytes) {
        mmu->page_shift++;
    }
    if (tlb_init(&mmu->tlb, mmu->p.iotlb_entries) < 0) {
        iommu_destroy(mmu);
        return NULL;
    }
    return mmu;
}

void iommu_destroy(struct iommu *mmu)
{
    if (!mmu) {
        return;
    }
    for (unsigned i = 0; i < mmu->n_dom; i++) {
        free(mmu->dom[i].range);
    }
    free(mmu->dom);
    free(mmu->rid_domain);
    free(mmu->tlb.e);
    free(mmu->tlb.bucket);
    free(mmu);
}

enum iommu_mode iommu_mode(const struct iommu *mmu)
{
    return mmu->p.mode;
}

int iommu_set_domain(struct iommu *mmu, uint16_t rid, unsigned domain)
{
    if (domain == IOMMU_NO_DOMAIN) {
        return -SIM_EINVAL;
    }
    if (!mmu->rid_domain) {
        mmu->rid_domain = malloc(65536 * sizeof(*mmu->rid_domain));
        if (!mmu->rid_domain) {
            return -SIM_ENOMEM;
        }
        for (unsigned i = 0; i < 65536; i++) {
            mmu->rid_domain[i] = IOMMU_NO_DOMAIN;
        }
    }
    /* The IOTLB is tagged by domain, so nothing cached goes stale. */
    mmu->rid_domain[rid] = domain;
    return 0;
}

/*
 * Page-granular ranges only, as Linux iommu_map() demands (the IOVA and
 * size must be multiples of the smallest page size); that keeps every
 * page either wholly mapped or not, so the IOTLB can cache pages.
 */
static int check_range(const struct iommu *mmu, uint64_t addr, uint64_t len)
{
    uint64_t mask = mmu->p.page_bytes - 1;
    if (len == 0 || (addr & mask) != 0 || (len & mask) != 0) {
        return -SIM_EINVAL;
    }
    if (addr + len < addr) {
        return -SIM_ERANGE;
    }
    return 0;
}

int iommu_map(struct iommu *mmu, uint16_t rid, uint64_t addr, uint64_t len)
{
    int rc = check_range(mmu, addr, len);
    if (rc < 0) {
        return rc;
    }
    struct iommu_domain *d = domain_get(mmu, domain_of(mmu, rid));
    return d ? domain_add(d, addr, addr + len) : -SIM_ENOMEM;
}

int iommu_unmap(struct iommu *mmu, uint16_t rid, uint64_t addr, uint64_t len)
{
    int rc = check_range(mmu, addr, len);
    if (rc < 0) {
        return rc;
    }
    unsigned dom = domain_of(mmu, rid);
    struct iommu_domain *d = domain_find(mmu, dom);
    if (!d) {
        return 0;
    }
    rc = domain_remove(d, addr, addr + len);
    /*
     * Model: the unmap flushes the IOTLB at once, as Linux iommu_unmap()
     * syncs the flush before returning; no stale-translation window.
     */
    tlb_invalidate(&mmu->tlb, dom, addr >> mmu->page_shift,
                   (addr + len - 1) >> mmu->page_shift);
    return rc;
}

bool iommu_is_mapped(const struct iommu *mmu, uint16_t rid, uint64_t addr,
                     uint64_t len)
{
    if (len == 0) {
        len = 1;
    }
    if (addr + len < addr) {
        return false;
    }
    return domain_covers(domain_find(mmu, domain_of(mmu, rid)), addr,
                         addr + len);
}

/* ---- translation --------------------------------------------------------- */

static void record_fault(struct iommu *mmu, sim_time_t now, uint16_t rid,
                         uint64_t addr, uint32_t len, bool write)
{
    mmu->cnt.faults++;
    if (mmu->n_fault < IOMMU_FAULT_LOG_MAX) {
        struct iommu_fault *f = &mmu->fault[mmu->n_fault++];
        f->when = now;
        f->requester_id = rid;
        f->addr = addr;
        f->len_bytes = len;
        f->write = write;
    }
}

/*
 * Model: every page the DMA touches is looked up; a DMA that hits on all
 * of them costs hit_ps, otherwise each missing page costs one walk of
 * miss_ps, done one after another. A walk that finds no mapping faults,
 * costs its miss_ps, and caches nothing. (A TLP never crosses a 4 KiB
 * boundary, PCIe r6.0 §2.2.7, so with 4 KiB pages one lookup is usual.)
 * Write and read permissions are not distinguished: a mapping allows both.
 */
bool iommu_translate(struct iommu *mmu, sim_time_t now, uint16_t rid,
                     uint64_t addr, uint32_t len, bool write,
                     sim_time_t *cost_ps)
{
    *cost_ps = 0;
    if (mmu->p.mode == IOMMU_OFF) {
        return true;
    }
    mmu->cnt.translations++;
    if (mmu->p.mode == IOMMU_PASSTHROUGH) {
        return true;
    }
    uint64_t span = len ? len : 1;
    if (addr + span < addr) {
        record_fault(mmu, now, rid, addr, len, write);
        return false;
    }
    unsigned dom = domain_of(mmu, rid);
    const struct iommu_domain *d = domain_find(mmu, dom);
    uint64_t first = addr >> mmu->page_shift;
    uint64_t last = (addr + span - 1) >> mmu->page_shift;
    uint64_t walks = 0;
    bool ok = true;
    for (uint64_t pg = first; pg <= last; pg++) {
        if (tlb_lookup(&mmu->tlb, dom, pg)) {
            mmu->cnt.hits++;
            continue;
        }
        mmu->cnt.misses++;
        walks++;
        uint64_t base = pg << mmu->page_shift;
        if (!domain_covers(d, base, base + mmu->p.page_bytes)) {
            ok = false;
            break;
        }
        tlb_insert(&mmu->tlb, dom, pg);
    }
    *cost_ps = walks ? sim_time_scale(walks, mmu->p.miss_ps) : mmu->p.hit_ps;
    if (!ok) {
        record_fault(mmu, now, rid, addr, len, write);
    }
    return ok;
}

const struct iommu_fault *iommu_faults(const struct iommu *mmu, unsigned *n)
{
    *n = mmu->n_fault;
    return mmu->fault;
}

void iommu_get_counters(const struct iommu *mmu, struct iommu_counters *out)
{
    *out = mmu->cnt;
}
