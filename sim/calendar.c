/*
 * sim/calendar.c - the default event queue: a calendar queue with lazily
 * sorted buckets (see sim/queue_int.h for the layout).
 *
 * Why not a heap: in the hold model a heap pays log4(n) dependent compares
 * and, at 100,000 pending events, as many cache misses per operation; here
 * an insert into the window is a push onto an unsorted list, and a pop
 * takes the head of a short sorted list. bench/hold measures both queues.
 *
 * Adaptivity. The bucket count follows the number of events (it doubles
 * above two per bucket, halves below one per eight). The slot width is
 * re-estimated at every rebuild from the earliest events: twice their mean
 * gap, ignoring outlying gaps (after Brown). Every window of operations the
 * queue checks whether the width still fits: too many events sorted per slot
 * (width too large) or too many inserts beyond the window (width too small)
 * trigger a rebuild; a rebuild that does not change the width doubles the
 * check window, so a distribution that no width fits cannot make the queue
 * rebuild every few operations.
 *
 * Complexity: insert O(1) expected (O(k) into a current slot of k events);
 * cancel O(1) (O(log f) for one of f far events); pop O(1) expected;
 * rebuild O(n).
 */
#include <config.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/queue_int.h"

#define CQ_MIN_BUCKETS 64u
#define CQ_MAX_BUCKETS (1u << 26)
#define CQ_SAMPLE 128u              /* events sampled for the width */
#define CQ_GAPS_PER_SLOT 4.0        /* mean gaps per slot */
#define CQ_CHECK_OPS 8192u          /* base operations between checks */
#define CQ_MAX_PER_SLOT 8u          /* mean events per slot before narrowing */
#define CQ_MAX_FAR_PCT 20u          /* % of inserts beyond the window */
#define CQ_MAX_CUR_STEPS 8u
#define CQ_PREFETCH_SLOTS 4u         /* slots whose events are prefetched */         /* mean steps per sorted insert */

/* Distance (1 .. n_buckets-1) from the cursor to the next non-empty bucket. */
static uint64_t next_bucket_distance(const struct sim__cq *q)
{
    uint32_t start = (uint32_t)(q->cur_slot + 1) & q->mask;
    uint32_t n_words = q->n_buckets >> 6;
    uint32_t w = start >> 6;
    uint64_t bits = q->bitmap[w] & (~UINT64_C(0) << (start & 63));
    for (uint32_t i = 0; i <= n_words; i++) {
        if (bits) {
            uint32_t b = (w << 6) | (uint32_t)__builtin_ctzll(bits);
            return ((b - start) & q->mask) + 1;
        }
        w = (w + 1) & (n_words - 1);
        bits = q->bitmap[w];
    }
    return 0; /* not reached while n_in_buckets > 0 */
}

/* ---- rebuild ----------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * The slot width from the density of the earlier half of the events: a
 * stride sample of up to CQ_SAMPLE times is sorted; the span from the
 * earliest to the median, divided by half the events, is the mean gap
 * there. Far outliers (timeouts) sit in the later half and do not widen the
 * slots. Returns log2 of CQ_GAPS_PER_SLOT gaps, rounded down.
 */
static unsigned estimate_shift(struct sim_event *const *all, uint64_t k,
                               unsigned old)
{
    if (k < 4) {
        return old;
    }
    uint64_t sample[CQ_SAMPLE];
    uint64_t stride = k / CQ_SAMPLE + 1;
    unsigned m = 0;
    uint64_t min_when = UINT64_MAX;
    for (uint64_t i = 0; i < k; i++) {
        if (all[i]->when < min_when) {
            min_when = all[i]->when;
        }
        if (i % stride == 0 && m < CQ_SAMPLE) {
            sample[m++] = all[i]->when;
        }
    }
    qsort(sample, m, sizeof(sample[0]), cmp_u64);
    uint64_t median = sample[m / 2];
    if (median <= min_when) {
        return 0; /* at least half the events at one time: finest slots */
    }
    double gap = (double)(median - min_when) / ((double)k / 2.0);
    double width = CQ_GAPS_PER_SLOT * gap;
    unsigned shift = 0;
    while (shift < 60 && (double)(UINT64_C(1) << (shift + 1)) <= width) {
        shift++;
    }
    return shift;
}

/* Returns 1 if the width changed, 0 if not, -1 if out of memory. */
static int rebuild(struct sim__cq *q, uint32_t n_buckets)
{
    struct sim_event **all = malloc(sizeof(*all) * (q->n ? q->n : 1));
    struct sim_event **nb = calloc(n_buckets, sizeof(*nb));
    uint64_t *bm = calloc(n_buckets / 64, sizeof(*bm));
    /* Room in the far heap for every event, so that placing them below
     * cannot fail half-way (a narrower width may put many beyond the
     * window). */
    if (!all || !nb || !bm || q->n > UINT32_MAX ||
        sim__heap_reserve(&q->far, (uint32_t)q->n) < 0) {
        free(all);
        free(nb);
        free(bm);
        return -1; /* the old layout stays: correct, only slower */
    }
    uint64_t k = 0;
    for (struct sim_event *e = q->cur_head; e; e = e->next) {
        all[k++] = e;
    }
    for (uint32_t b = 0; b < q->n_buckets; b++) {
        for (struct sim_event *e = q->bucket[b]; e; e = e->next) {
            all[k++] = e;
        }
    }
    for (uint32_t i = 0; i < q->far.n; i++) {
        all[k++] = q->far.slot[i];
    }
    uint64_t min_when = UINT64_MAX;
    for (uint64_t i = 0; i < k; i++) {
        if (all[i]->when < min_when) {
            min_when = all[i]->when;
        }
    }
    unsigned old_shift = q->shift;
    free(q->bucket);
    free(q->bitmap);
    q->bucket = nb;
    q->bitmap = bm;
    q->n_buckets = n_buckets;
    q->mask = n_buckets - 1;
    q->shift = estimate_shift(all, k, q->shift);
    q->cur_head = q->cur_tail = NULL;
    q->n_in_buckets = 0;
    q->far.n = 0;
    q->cur_slot = k ? min_when >> q->shift : 0;
    for (uint64_t i = 0; i < k; i++) {
        sim__cq_place(q, all[i]); /* the far heap has room for all */
    }
    free(all);
    q->n_rebuilds++;
    q->ops = q->advances = q->moved = q->far_inserts = q->cur_steps = 0;
    q->check_at = (uint64_t)CQ_CHECK_OPS << q->backoff;
    return q->shift != old_shift;
}

static uint32_t buckets_for(uint64_t n)
{
    uint32_t nb = CQ_MIN_BUCKETS;
    while (nb < n && nb < CQ_MAX_BUCKETS) {
        nb <<= 1;
    }
    return nb;
}

/* Every window of operations: does the width still fit? */
void sim__cq_check_fit(struct sim__cq *q)
{
    bool wide = q->moved > CQ_MAX_PER_SLOT * (q->advances + 1);
    bool narrow = q->far_inserts * 100 > CQ_MAX_FAR_PCT * q->ops;
    bool slow = q->cur_steps > CQ_MAX_CUR_STEPS * q->ops;
    q->ops = q->advances = q->moved = q->far_inserts = q->cur_steps = 0;
    if ((wide || narrow || slow) && q->n >= 2 * CQ_SAMPLE) {
        int changed = rebuild(q, buckets_for(q->n));
        if (changed == 0 && q->backoff < 16) {
            q->backoff++;
        } else if (changed > 0) {
            q->backoff = 0;
        }
    }
    q->check_at = (uint64_t)CQ_CHECK_OPS << q->backoff;
}

void sim__cq_resize(struct sim__cq *q)
{
    if (q->n > 2 * (uint64_t)q->n_buckets && q->n_buckets < CQ_MAX_BUCKETS) {
        rebuild(q, q->n_buckets * 2);
    } else if (q->n_buckets > CQ_MIN_BUCKETS && q->n < q->n_buckets / 8) {
        rebuild(q, q->n_buckets / 2);
    }
}

/* ---- the queue contract ------------------------------------------------------------ */

int sim__cq_init(struct sim__cq *q)
{
    memset(q, 0, sizeof(*q));
    q->n_buckets = CQ_MIN_BUCKETS;
    q->mask = q->n_buckets - 1;
    q->shift = 10; /* 1.024 ns until the first estimate */
    q->check_at = CQ_CHECK_OPS;
    q->bucket = calloc(q->n_buckets, sizeof(*q->bucket));
    q->bitmap = calloc(q->n_buckets / 64, sizeof(*q->bitmap));
    if (!q->bucket || !q->bitmap || sim__heap_init(&q->far) < 0) {
        free(q->bucket);
        free(q->bitmap);
        return -1;
    }
    return 0;
}

void sim__cq_fini(struct sim__cq *q)
{
    free(q->bucket);
    free(q->bitmap);
    sim__heap_fini(&q->far);
    q->bucket = NULL;
    q->bitmap = NULL;
    q->n = 0;
}

/* Where the far heap cannot take ev, it is not held: it goes back to
 * idle (a cancel of it does nothing), is counted for the core (n_lost),
 * and the run stops; sim__cq_insert counts it in n next, so n goes down. */
void sim__cq_far_insert(struct sim__cq *q, struct sim_event *ev)
{
    q->far_inserts++;
    if (__builtin_expect(sim__heap_insert(&q->far, ev) == 0, 1)) {
        return;
    }
    if (q->n_lost++ == 0) {
        q->lost_when = ev->when;
    }
    ev->state = SIM_EVENT_IDLE;
    ev->next = ev->prev = NULL;
    q->n--;
    if (q->stop) {
        *q->stop = true;
    }
}

/* cur is empty and events remain: move the cursor to the next slot. */
void sim__cq_advance(struct sim__cq *q)
{
    uint64_t next = UINT64_MAX;
    uint64_t bucket_slot = UINT64_MAX;
    if (q->n_in_buckets) {
        bucket_slot = q->cur_slot + next_bucket_distance(q);
        next = bucket_slot;
    }
    if (q->far.n) {
        uint64_t f = q->far.slot[0]->when >> q->shift;
        if (f < next) {
            next = f;
        }
    }
    q->cur_slot = next;
    q->advances++;
    if (bucket_slot == next) {
        uint32_t b = (uint32_t)next & q->mask;
        struct sim_event *e = q->bucket[b];
        q->bucket[b] = NULL;
        q->bitmap[b >> 6] &= ~(UINT64_C(1) << (b & 63));
        while (e) {
            struct sim_event *nx = e->next;
            q->n_in_buckets--;
            q->moved++;
            sim__cq_cur_insert(q, e);
            e = nx;
        }
    }
    /* The next slots' events will be sorted soon: fetch them now. */
    for (uint32_t d = 1; d <= CQ_PREFETCH_SLOTS; d++) {
        struct sim_event *e = q->bucket[(uint32_t)(next + d) & q->mask];
        if (e) {
            __builtin_prefetch(e, 1);
        }
    }
    while (q->far.n && (q->far.slot[0]->when >> q->shift) <= next) {
        struct sim_event *e = sim__heap_pop(&q->far);
        q->moved++;
        sim__cq_cur_insert(q, e);
    }
}

