/*
 * tests/models/check_iommu.c - the IOMMU (fault reasons as a table, IOTLB
 * hits and LRU eviction checked against a linear-scan reference, mappings
 * checked against a page bitmap) and the device ATC.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "models/iommu/iommu.h"
#include "sim/error.h"
#include "tests/check_p2psim.h"

#define PAGE 4096u
#define HIT_PS SIM_NS(10)
#define MISS_PS SIM_NS(200)
#define RID_A 0x0100                /* bus 1 */
#define RID_B 0x0200                /* bus 2 */

static struct iommu *make_mmu(enum iommu_mode mode, unsigned entries)
{
    struct iommu_params p = {
        .mode = mode, .iotlb_entries = entries, .page_bytes = PAGE,
        .hit_ps = HIT_PS, .miss_ps = MISS_PS,
    };
    struct iommu *mmu = iommu_create(&p);
    ck_assert_ptr_nonnull(mmu);
    return mmu;
}

/* A tiny seeded generator (xorshift64*), so the sequences are fixed. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

/* ---- fault reasons ------------------------------------------------------- */

enum setup {
    SETUP_NONE,
    SETUP_MAP_A,                /* A maps [0x1000, 0x3000) */
    SETUP_MAP_B,                /* B maps [0x1000, 0x3000) */
    SETUP_GROUP_AB,             /* A joins B's domain; B maps the same */
    SETUP_MAP_UNMAP_A,          /* A maps [0x1000, 0x3000), unmaps 0x2000 */
};

struct fault_case {
    const char *name;
    enum iommu_mode mode;
    enum setup setup;
    uint64_t addr;
    uint32_t len;
    bool write;
    bool allowed;
    sim_time_t cost_ps;         /* first access */
    uint64_t translations;      /* counters after the access */
};

static const struct fault_case fault_cases[] = {
    { "unmapped", IOMMU_TRANSLATING, SETUP_NONE, 0x1000, 64, true,
      false, MISS_PS, 1 },
    { "mapped", IOMMU_TRANSLATING, SETUP_MAP_A, 0x1040, 64, true,
      true, MISS_PS, 1 },
    { "mapped read", IOMMU_TRANSLATING, SETUP_MAP_A, 0x2fc0, 64, false,
      true, MISS_PS, 1 },
    { "partially mapped", IOMMU_TRANSLATING, SETUP_MAP_A, 0x2f80, 256, true,
      false, 2 * MISS_PS, 1 },
    { "below the mapping", IOMMU_TRANSLATING, SETUP_MAP_A, 0x0fc0, 128, false,
      false, MISS_PS, 1 },
    { "other domain's mapping", IOMMU_TRANSLATING, SETUP_MAP_B, 0x1000, 64,
      true, false, MISS_PS, 1 },
    { "same group's mapping", IOMMU_TRANSLATING, SETUP_GROUP_AB, 0x1000, 64,
      true, true, MISS_PS, 1 },
    { "unmapped again", IOMMU_TRANSLATING, SETUP_MAP_UNMAP_A, 0x2000, 4,
      true, false, MISS_PS, 1 },
    { "still mapped after a partial unmap", IOMMU_TRANSLATING,
      SETUP_MAP_UNMAP_A, 0x1ffc, 4, true, true, MISS_PS, 1 },
    { "passthrough, unmapped", IOMMU_PASSTHROUGH, SETUP_NONE, 0x1000, 64,
      true, true, 0, 1 },
    { "passthrough, other domain", IOMMU_PASSTHROUGH, SETUP_MAP_B, 0x1000, 64,
      false, true, 0, 1 },
    { "off, unmapped", IOMMU_OFF, SETUP_NONE, 0x1000, 64, true, true, 0, 0 },
    { "off, other domain", IOMMU_OFF, SETUP_MAP_B, 0x1000, 64, false, true,
      0, 0 },
};

static void apply_setup(struct iommu *mmu, enum setup s)
{
    switch (s) {
    case SETUP_NONE:
        break;
    case SETUP_MAP_A:
        ck_assert_int_eq(iommu_map(mmu, RID_A, 0x1000, 0x2000), 0);
        break;
    case SETUP_MAP_B:
        ck_assert_int_eq(iommu_map(mmu, RID_B, 0x1000, 0x2000), 0);
        break;
    case SETUP_GROUP_AB:
        ck_assert_int_eq(iommu_set_domain(mmu, RID_A, RID_B), 0);
        ck_assert_int_eq(iommu_map(mmu, RID_B, 0x1000, 0x2000), 0);
        break;
    case SETUP_MAP_UNMAP_A:
        ck_assert_int_eq(iommu_map(mmu, RID_A, 0x1000, 0x2000), 0);
        ck_assert_int_eq(iommu_unmap(mmu, RID_A, 0x2000, 0x1000), 0);
        break;
    }
}

START_TEST(test_iommu_fault_reasons)
{
    const struct fault_case *fc = &fault_cases[_i];
    struct iommu *mmu = make_mmu(fc->mode, 16);
    apply_setup(mmu, fc->setup);
    sim_time_t cost = 12345;
    bool ok = iommu_translate(mmu, SIM_NS(777), RID_A, fc->addr, fc->len,
                              fc->write, &cost);
    ck_assert_msg(ok == fc->allowed, "%s: allowed %d, expected %d", fc->name,
                  ok, fc->allowed);
    ck_assert_msg(cost == fc->cost_ps, "%s: cost %llu ps, expected %llu",
                  fc->name, (unsigned long long)cost,
                  (unsigned long long)fc->cost_ps);
    struct iommu_counters cnt;
    iommu_get_counters(mmu, &cnt);
    ck_assert_uint_eq(cnt.translations, fc->translations);
    unsigned n;
    const struct iommu_fault *f = iommu_faults(mmu, &n);
    ck_assert_uint_eq(cnt.faults, fc->allowed ? 0 : 1);
    ck_assert_uint_eq(n, fc->allowed ? 0 : 1);
    if (!fc->allowed) {
        ck_assert_uint_eq(f[0].requester_id, RID_A);
        ck_assert_uint_eq(f[0].addr, fc->addr);
        ck_assert_uint_eq(f[0].len_bytes, fc->len);
        ck_assert(f[0].write == fc->write);
        ck_assert_uint_eq(f[0].when, SIM_NS(777));
    }
    iommu_destroy(mmu);
}
END_TEST

START_TEST(test_iommu_fault_log_is_bounded_but_counts_all)
{
    struct iommu *mmu = make_mmu(IOMMU_TRANSLATING, 16);
    sim_time_t cost;
    for (unsigned i = 0; i < 1000; i++) {
        ck_assert(!iommu_translate(mmu, i, RID_A, (uint64_t)i * PAGE, 8, true,
                                   &cost));
    }
    unsigned n;
    const struct iommu_fault *f = iommu_faults(mmu, &n);
    struct iommu_counters cnt;
    iommu_get_counters(mmu, &cnt);
    ck_assert_uint_eq(cnt.faults, 1000);
    ck_assert_uint_gt(n, 0);
    ck_assert_uint_lt(n, 1000);
    /* the first faults are the ones kept */
    ck_assert_uint_eq(f[0].addr, 0);
    ck_assert_uint_eq(f[n - 1].addr, (uint64_t)(n - 1) * PAGE);
    iommu_destroy(mmu);
}
END_TEST

START_TEST(test_iommu_map_rejects_partial_pages)
{
    struct iommu *mmu = make_mmu(IOMMU_TRANSLATING, 16);
    ck_assert_int_eq(iommu_map(mmu, RID_A, 0x1001, PAGE), -SIM_EINVAL);
    ck_assert_int_eq(iommu_map(mmu, RID_A, 0x1000, 100), -SIM_EINVAL);
    ck_assert_int_eq(iommu_map(mmu, RID_A, 0x1000, 0), -SIM_EINVAL);
    ck_assert_int_eq(iommu_map(mmu, RID_A, UINT64_MAX - PAGE + 1, 2 * PAGE),
                     -SIM_ERANGE);
    ck_assert(!iommu_is_mapped(mmu, RID_A, 0x1000, 1));
    iommu_destroy(mmu);
}
END_TEST

/* ---- mappings against a page bitmap -------------------------------------- */

#define REF_PAGES 64

START_TEST(test_iommu_mappings_match_page_bitmap)
{
    struct iommu *mmu = make_mmu(IOMMU_TRANSLATING, 16);
    bool ref[REF_PAGES] = { false };
    uint64_t s = 0x1234567;
    for (int step = 0; step < 4000; step++) {
        unsigned first = (unsigned)(rng_next(&s) % REF_PAGES);
        unsigned n = 1 + (unsigned)(rng_next(&s) % 8);
        if (first + n > REF_PAGES) {
            n = REF_PAGES - first;
        }
        bool map = rng_next(&s) % 2 == 0;
        int rc = map ? iommu_map(mmu, RID_A, (uint64_t)first * PAGE,
                                 (uint64_t)n * PAGE)
                     : iommu_unmap(mmu, RID_A, (uint64_t)first * PAGE,
                                   (uint64_t)n * PAGE);
        ck_assert_int_eq(rc, 0);
        for (unsigned p = first; p < first + n; p++) {
            ref[p] = map;
        }
        /* a random byte range: mapped iff every page under it is */
        uint64_t a = rng_next(&s) % (REF_PAGES * PAGE);
        uint64_t len = 1 + rng_next(&s) % (3 * PAGE);
        if (a + len > REF_PAGES * PAGE) {
            len = REF_PAGES * PAGE - a;
        }
        bool want = true;
        for (uint64_t p = a / PAGE; p <= (a + len - 1) / PAGE; p++) {
            want = want && ref[p];
        }
        ck_assert_msg(iommu_is_mapped(mmu, RID_A, a, len) == want,
                      "step %d: [%#llx, +%llu) mapped=%d in the bitmap", step,
                      (unsigned long long)a, (unsigned long long)len, want);
        /* and nothing leaks into the other domain */
        ck_assert(!iommu_is_mapped(mmu, RID_B, a, len));
    }
    iommu_destroy(mmu);
}
END_TEST

/* ---- the IOTLB ----------------------------------------------------------- */

START_TEST(test_iommu_iotlb_hit_after_miss)
{
    struct iommu *mmu = make_mmu(IOMMU_TRANSLATING, 16);
    ck_assert_int_eq(iommu_map(mmu, RID_A, 0x10000, 4 * PAGE), 0);
    sim_time_t cost;
    ck_assert(iommu_translate(mmu, 0, RID_A, 0x10000, 256, true, &cost));
    ck_assert_uint_eq(cost, MISS_PS);
    ck_assert(iommu_translate(mmu, 0, RID_A, 0x10f00, 256, true, &cost));
    ck_assert_uint_eq(cost, HIT_PS);
    /* another page of the same mapping walks again */
    ck_assert(iommu_translate(mmu, 0, RID_A, 0x11000, 256, false, &cost));
    ck_assert_uint_eq(cost, MISS_PS);
    /* another requester's domain does not share the entry */
    ck_assert_int_eq(iommu_map(mmu, RID_B, 0x10000, PAGE), 0);
    ck_assert(iommu_translate(mmu, 0, RID_B, 0x10000, 64, true, &cost));
    ck_assert_uint_eq(cost, MISS_PS);
    struct iommu_counters cnt;
    iommu_get_counters(mmu, &cnt);
    ck_assert_uint_eq(cnt.translations, 4);
    ck_assert_uint_eq(cnt.hits, 1);
    ck_assert_uint_eq(cnt.misses, 3);
    ck_assert_uint_eq(cnt.faults, 0);
    iommu_destroy(mmu);
}
END_TEST

START_TEST(test_iommu_unmap_flushes_iotlb)
{
    struct iommu *mmu = make_mmu(IOMMU_TRANSLATING, 16);
    ck_assert_int_eq(iommu_map(mmu, RID_A, 0x10000, PAGE), 0);
    sim_time_t cost;
    ck_assert(iommu_translate(mmu, 0, RID_A, 0x10000, 64, true, &cost));
    ck_assert(iommu_translate(mmu, 0, RID_A, 0x10000, 64, true, &cost));
    ck_assert_uint_eq(cost, HIT_PS);
    ck_assert_int_eq(iommu_unmap(mmu, RID_A, 0x10000, PAGE), 0);
    ck_assert(!iommu_translate(mmu, 0, RID_A, 0x10000, 64, true, &cost));
    ck_assert_uint_eq(cost, MISS_PS);
    iommu_destroy(mmu);
}
END_TEST

/*
 * The slow obvious IOTLB: an array scanned linearly, each entry stamped
 * with its last use; a miss on a mapped page fills a free slot or the one
 * with the oldest stamp.
 */
struct ref_tlb {
    unsigned domain[64];
    uint64_t page[64];
    uint64_t stamp[64];
    bool valid[64];
    unsigned cap;
    uint64_t clock;
};

static bool ref_access(struct ref_tlb *r, unsigned dom, uint64_t page,
                       bool mapped)
{
    r->clock++;
    for (unsigned i = 0; i < r->cap; i++) {
        if (r->valid[i] && r->domain[i] == dom && r->page[i] == page) {
            r->stamp[i] = r->clock;
            return true;
        }
    }
    if (mapped) {
        unsigned v = 0;
        for (unsigned i = 0; i < r->cap; i++) {
            if (!r->valid[i]) {
                v = i;
                break;
            }
            if (r->stamp[i] < r->stamp[v]) {
                v = i;
            }
        }
        r->valid[v] = true;
        r->domain[v] = dom;
        r->page[v] = page;
        r->stamp[v] = r->clock;
    }
    return false;
}

static void ref_invalidate(struct ref_tlb *r, unsigned dom, uint64_t page)
{
    for (unsigned i = 0; i < r->cap; i++) {
        if (r->valid[i] && r->domain[i] == dom && r->page[i] == page) {
            r->valid[i] = false;
        }
    }
}

#define LRU_CAP 8
#define LRU_PAGES 24

START_TEST(test_iommu_iotlb_lru_matches_reference)
{
    struct iommu *mmu = make_mmu(IOMMU_TRANSLATING, LRU_CAP);
    struct ref_tlb ref = { .cap = LRU_CAP };
    const uint16_t rid[2] = { RID_A, RID_B };
    bool mapped[2][LRU_PAGES];
    for (unsigned d = 0; d < 2; d++) {
        for (unsigned p = 0; p < LRU_PAGES; p++) {
            mapped[d][p] = p % 5 != 3;
            if (mapped[d][p]) {
                ck_assert_int_eq(iommu_map(mmu, rid[d], (uint64_t)p * PAGE,
                                           PAGE), 0);
            }
        }
    }
    uint64_t s = 0xfeedbeef;
    unsigned hits = 0, evictions_seen = 0;
    for (int step = 0; step < 20000; step++) {
        unsigned d = (unsigned)(rng_next(&s) % 2);
        /* skewed toward a hot set, so both hits and evictions happen */
        uint64_t p = rng_next(&s) % 4 ? rng_next(&s) % 10
                                      : rng_next(&s) % LRU_PAGES;
        uint64_t op = rng_next(&s) % 100;
        if (op < 3) {
            if (mapped[d][p]) {
                ck_assert_int_eq(iommu_unmap(mmu, rid[d], p * PAGE, PAGE), 0);
                ref_invalidate(&ref, rid[d], p);
                mapped[d][p] = false;
            } else {
                ck_assert_int_eq(iommu_map(mmu, rid[d], p * PAGE, PAGE), 0);
                mapped[d][p] = true;
            }
            continue;
        }
        struct iommu_counters before, after;
        iommu_get_counters(mmu, &before);
        sim_time_t cost;
        uint64_t addr = p * PAGE + rng_next(&s) % (PAGE - 64);
        bool ok = iommu_translate(mmu, 0, rid[d], addr, 64, true, &cost);
        iommu_get_counters(mmu, &after);
        bool want_hit = ref_access(&ref, rid[d], p, mapped[d][p]);
        ck_assert_msg((after.hits - before.hits == 1) == want_hit,
                      "step %d: domain %u page %llu: hit=%d, reference %d",
                      step, d, (unsigned long long)p,
                      (int)(after.hits - before.hits), want_hit);
        ck_assert(ok == mapped[d][p]);
        ck_assert_uint_eq(cost, want_hit ? HIT_PS : MISS_PS);
        hits += want_hit;
        evictions_seen += !want_hit && mapped[d][p];
    }
    /* the sequence exercised both paths */
    ck_assert_uint_gt(hits, 1000);
    ck_assert_uint_gt(evictions_seen, 1000);
    iommu_destroy(mmu);
}
END_TEST

/* ---- the device ATC ------------------------------------------------------ */

START_TEST(test_atc_lru)
{
    struct atc *c = atc_create(2, PAGE);
    ck_assert_ptr_nonnull(c);
    ck_assert(!atc_lookup(c, 0x1000));
    atc_insert(c, 0x1000);
    atc_insert(c, 0x2000);
    ck_assert(atc_lookup(c, 0x1fff));       /* page 1: now most recent */
    atc_insert(c, 0x3000);                  /* evicts page 2 */
    ck_assert(!atc_lookup(c, 0x2000));
    ck_assert(atc_lookup(c, 0x1000));
    ck_assert(atc_lookup(c, 0x3abc));
    atc_invalidate_all(c);
    ck_assert(!atc_lookup(c, 0x1000));
    ck_assert(!atc_lookup(c, 0x3000));
    atc_destroy(c);
    ck_assert_ptr_null(atc_create(0, PAGE));
    ck_assert_ptr_null(atc_create(4, 3000));
}
END_TEST

Suite *make_iommu_suite(void)
{
    Suite *s = suite_create("iommu");
    TCase *tc = tcase_create("Faults");
    tcase_add_loop_test(tc, test_iommu_fault_reasons, 0,
                        sizeof(fault_cases) / sizeof(fault_cases[0]));
    tcase_add_test(tc, test_iommu_fault_log_is_bounded_but_counts_all);
    suite_add_tcase(s, tc);

    tc = tcase_create("Mappings");
    tcase_add_test(tc, test_iommu_map_rejects_partial_pages);
    tcase_add_test(tc, test_iommu_mappings_match_page_bitmap);
    suite_add_tcase(s, tc);

    tc = tcase_create("IOTLB");
    tcase_add_test(tc, test_iommu_iotlb_hit_after_miss);
    tcase_add_test(tc, test_iommu_unmap_flushes_iotlb);
    tcase_add_test(tc, test_iommu_iotlb_lru_matches_reference);
    suite_add_tcase(s, tc);

    tc = tcase_create("ATC");
    tcase_add_test(tc, test_atc_lru);
    suite_add_tcase(s, tc);
    return s;
}
