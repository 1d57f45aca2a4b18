/*
 * sim/calendar.c - the calendar queue (Brown, CACM 31(10), 1988).
 *
 * Why not a heap: in the hold model with 100,000 pending events a heap
 * pays about log4(n) = 9 dependent cache misses per operation; the calendar
 * queue touches one bucket head and one or two events. bench/hold measures
 * both queues side by side.
 *
 * Layout: n_buckets (a power of two) lists; an event at time t lives in
 * bucket (t >> shift) & mask, in a circular doubly linked list sorted by
 * (when, seq), whose head's prev is the tail. cur_slot is the absolute slot
 * (t >> shift) of the cursor, with the invariant that no pending event has
 * a slot below it. Popping scans forward from the cursor for a bucket whose
 * head lies in the cursor's slot; after a whole year of empty buckets it
 * falls back to a direct search of all heads.
 *
 * Adaptivity. The bucket count doubles when the queue holds more than two
 * events per bucket and halves below one per four. The width (2^shift ps)
 * is re-estimated on every resize from the spacing of the earliest events
 * (Brown's rule: three times their mean gap, ignoring outlying gaps). If
 * inserts walk long lists or pops skip many empty buckets although the size
 * is steady, the queue rebuilds with a new width; when a rebuild does not
 * change the width, the check backs off so a stubborn distribution cannot
 * cost O(n) every few operations.
 *
 * Complexity: insert O(1) expected (O(k) for a bucket of k events when
 * inserted out of order); remove O(1); pop O(1) expected; rebuild O(n).
 */
#include <config.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/queue_int.h"

#define CQ_MIN_BUCKETS 64u
#define CQ_SAMPLE 64u            /* earliest events used to estimate width */
#define CQ_WINDOW_MIN 4096u      /* operations between adaptivity checks */
#define CQ_WALK_LIMIT 4u         /* mean list steps per insert before rebuild */
#define CQ_SKIP_LIMIT 16u        /* mean empty buckets per pop before rebuild */

int sim__cq_init(struct sim__cq *q)
{
    memset(q, 0, sizeof(*q));
    q->n_buckets = CQ_MIN_BUCKETS;
    q->mask = q->n_buckets - 1;
    q->shift = 10; /* 1.024 ns until the first estimate */
    q->bucket = calloc(q->n_buckets, sizeof(*q->bucket));
    return q->bucket ? 0 : -1;
}

void sim__cq_fini(struct sim__cq *q)
{
    free(q->bucket);
    q->bucket = NULL;
    q->n = 0;
}

/* Link ev into its bucket, keeping the list sorted; returns steps walked. */
static unsigned cq_link(struct sim__cq *q, struct sim_event *ev)
{
    struct sim_event **headp = &q->bucket[(ev->when >> q->shift) & q->mask];
    struct sim_event *head = *headp;
    if (!head) {
        ev->next = ev->prev = ev;
        *headp = ev;
        return 0;
    }
    /* Walk back from the tail to the last event that runs before ev. */
    unsigned steps = 0;
    struct sim_event *p = head->prev;
    while (sim_event_before(ev, p)) {
        steps++;
        if (p == head) {
            /* ev runs before every event here: it becomes the head. */
            ev->next = head;
            ev->prev = head->prev;
            head->prev->next = ev;
            head->prev = ev;
            *headp = ev;
            return steps;
        }
        p = p->prev;
    }
    ev->prev = p;
    ev->next = p->next;
    p->next->prev = ev;
    p->next = ev;
    return steps;
}

static void cq_unlink(struct sim__cq *q, struct sim_event *ev)
{
    struct sim_event **headp = &q->bucket[(ev->when >> q->shift) & q->mask];
    if (ev->next == ev) {
        *headp = NULL;
    } else {
        ev->prev->next = ev->next;
        ev->next->prev = ev->prev;
        if (*headp == ev) {
            *headp = ev->next;
        }
    }
    ev->next = ev->prev = NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * Width estimate from the CQ_SAMPLE earliest times in `times` (sorted):
 * three times the mean gap, after dropping gaps over twice the mean
 * (Brown's rule). Returns a shift (log2 of the width).
 */
static unsigned cq_estimate_shift(const uint64_t *times, unsigned k)
{
    if (k < 2) {
        return 10;
    }
    uint64_t span = times[k - 1] - times[0];
    double mean = (double)span / (k - 1);
    double sum = 0;
    unsigned used = 0;
    for (unsigned i = 1; i < k; i++) {
        double gap = (double)(times[i] - times[i - 1]);
        if (gap <= 2.0 * mean) {
            sum += gap;
            used++;
        }
    }
    double width = used ? 3.0 * sum / used : 3.0 * mean;
    unsigned shift = 0;
    while (shift < 56 && (double)(UINT64_C(1) << (shift + 1)) <= width) {
        shift++;
    }
    return shift;
}

/* Keep the CQ_SAMPLE smallest values seen in a max-heap of size k. */
static void sample_push(uint64_t *s, unsigned *k, uint64_t v)
{
    if (*k < CQ_SAMPLE) {
        unsigned i = (*k)++;
        while (i > 0 && s[(i - 1) / 2] < v) {
            s[i] = s[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        s[i] = v;
        return;
    }
    if (v >= s[0]) {
        return;
    }
    unsigned i = 0;
    for (;;) {
        unsigned c = 2 * i + 1;
        if (c >= CQ_SAMPLE) {
            break;
        }
        if (c + 1 < CQ_SAMPLE && s[c + 1] > s[c]) {
            c++;
        }
        if (s[c] <= v) {
            break;
        }
        s[i] = s[c];
        i = c;
    }
    s[i] = v;
}

/* Rebuild with n_buckets buckets and a freshly estimated width. */
static int cq_rebuild(struct sim__cq *q, uint32_t n_buckets)
{
    struct sim_event **nb = calloc(n_buckets, sizeof(*nb));
    if (!nb) {
        return -1; /* keep the old layout: still correct, only slower */
    }
    /* Gather every event into one singly linked chain through ->next. */
    struct sim_event *chain = NULL;
    uint64_t sample[CQ_SAMPLE];
    unsigned k = 0;
    uint64_t min_when = UINT64_MAX;
    for (uint32_t b = 0; b < q->n_buckets; b++) {
        struct sim_event *head = q->bucket[b];
        if (!head) {
            continue;
        }
        struct sim_event *e = head;
        do {
            struct sim_event *nx = e->next;
            sample_push(sample, &k, e->when);
            if (e->when < min_when) {
                min_when = e->when;
            }
            e->prev = chain; /* reuse prev as the chain link */
            chain = e;
            e = nx;
        } while (e != head);
    }
    qsort(sample, k, sizeof(sample[0]), cmp_u64);
    unsigned old_shift = q->shift;
    free(q->bucket);
    q->bucket = nb;
    q->n_buckets = n_buckets;
    q->mask = n_buckets - 1;
    q->shift = k >= 2 ? cq_estimate_shift(sample, k) : q->shift;
    while (chain) {
        struct sim_event *e = chain;
        chain = e->prev;
        cq_link(q, e);
    }
    if (q->n) {
        q->cur_slot = min_when >> q->shift;
    } else {
        q->cur_slot = 0;
    }
    q->n_resizes++;
    q->walk_steps = q->skip_steps = q->window_ops = 0;
    return q->shift == old_shift ? 0 : 1;
}

/* Rebuild when recent operations show that the width no longer fits. */
static void cq_adapt(struct sim__cq *q)
{
    uint64_t window = (uint64_t)CQ_WINDOW_MIN << q->backoff;
    if (++q->window_ops < window) {
        return;
    }
    bool bad = q->walk_steps > CQ_WALK_LIMIT * window ||
               q->skip_steps > CQ_SKIP_LIMIT * window;
    q->walk_steps = q->skip_steps = q->window_ops = 0;
    if (bad && q->n >= 2 * CQ_SAMPLE) {
        int changed = cq_rebuild(q, q->n_buckets);
        /* Same width again: wait longer before the next try. */
        if (changed == 0 && q->backoff < 16) {
            q->backoff++;
        } else if (changed > 0) {
            q->backoff = 0;
        }
    }
}

int sim__cq_insert(struct sim__cq *q, struct sim_event *ev)
{
    uint64_t slot = ev->when >> q->shift;
    if (q->n == 0 || slot < q->cur_slot) {
        q->cur_slot = slot;
    }
    q->walk_steps += cq_link(q, ev);
    q->n++;
    if (q->n > 2 * (uint64_t)q->n_buckets && q->n_buckets < (1u << 30)) {
        cq_rebuild(q, q->n_buckets * 2);
    } else {
        cq_adapt(q);
    }
    return 0;
}

void sim__cq_remove(struct sim__cq *q, struct sim_event *ev)
{
    cq_unlink(q, ev);
    q->n--;
    if (q->n_buckets > CQ_MIN_BUCKETS && q->n < q->n_buckets / 4) {
        cq_rebuild(q, q->n_buckets / 2);
    }
}

struct sim_event *sim__cq_peek(struct sim__cq *q)
{
    if (q->n == 0) {
        return NULL;
    }
    for (uint32_t i = 0; i < q->n_buckets; i++) {
        struct sim_event *head = q->bucket[q->cur_slot & q->mask];
        if (head && (head->when >> q->shift) == q->cur_slot) {
            q->skip_steps += i;
            return head;
        }
        q->cur_slot++;
    }
    q->skip_steps += q->n_buckets;
    /* A year of empty buckets: find the earliest head directly. */
    struct sim_event *best = NULL;
    for (uint32_t b = 0; b < q->n_buckets; b++) {
        struct sim_event *head = q->bucket[b];
        if (head && (!best || sim_event_before(head, best))) {
            best = head;
        }
    }
    q->cur_slot = best->when >> q->shift;
    return best;
}

struct sim_event *sim__cq_pop(struct sim__cq *q)
{
    struct sim_event *ev = sim__cq_peek(q);
    if (ev) {
        sim__cq_remove(q, ev);
        cq_adapt(q);
    }
    return ev;
}
