/*
 * sim/queue_int.h - the pending-event queues (internal to sim/).
 *
 * Two implementations of one contract: insert, remove, peek the minimum
 * (when, seq), pop it. Both are intrusive (links live in struct sim_event).
 *
 *   queue            insert        remove      pop-min       notes
 *   4-ary heap       O(log n)      O(log n)    O(log n)      reference model
 *   calendar queue   O(1) expected O(1)        O(1) expected adaptive width
 *
 * The heap is the obvious, slow-but-sure model; tests check the calendar
 * queue against it on random operation sequences (SQLite's habit of testing
 * a fast structure against a simple one). bench/hold measures both.
 */
#ifndef P2PSIM_SIM_QUEUE_INT_H
#define P2PSIM_SIM_QUEUE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/time.h"

/* ---- 4-ary min-heap of event pointers ----------------------------------- */
struct sim__heap {
    struct sim_event **slot;    /* slot[0..n) */
    uint32_t n;                 /* events held */
    uint32_t cap;               /* slots allocated */
};

int sim__heap_init(struct sim__heap *h);
void sim__heap_fini(struct sim__heap *h);
/* Returns 0, or -1 when the heap cannot grow (ev is then not held). */
int sim__heap_insert(struct sim__heap *h, struct sim_event *ev);
/* Make room for n events without allocating again; 0 or -1. */
int sim__heap_reserve(struct sim__heap *h, uint32_t n);
void sim__heap_remove(struct sim__heap *h, struct sim_event *ev);
struct sim_event *sim__heap_pop(struct sim__heap *h);
static inline struct sim_event *sim__heap_peek(const struct sim__heap *h)
{
    return h->n ? h->slot[0] : NULL;
}

/* ---- calendar queue ------------------------------------------------------
 *
 * A calendar queue in the style of Brown (CACM 31(10), 1988) with the
 * ladder queue's lazy sorting (Tang, Goh, Thng, ACM TOMACS 15(3), 2005):
 *
 *   cur      sorted list: every event whose slot is <= cur_slot
 *   bucket   n_buckets unsorted lists; bucket (slot & mask) holds the events
 *            of exactly one slot in the window (cur_slot, cur_slot + n_buckets)
 *   far      a 4-ary heap for events beyond the window
 *
 * A slot is 2^shift ps. Inserting into the window is a push onto an unsorted
 * list: no comparisons. Only when the cursor reaches a slot are its few
 * events sorted into cur. A bitmap of non-empty buckets makes skipping empty
 * slots cheap. The width and the bucket count adapt (see sim/calendar.c).
 * ev->index tells where a pending event lives (CQ_IN_CUR, CQ_IN_BUCKET, or
 * its heap slot), so cancel is O(1) (O(log n) in the far heap).
 */
#define SIM__CQ_IN_CUR UINT32_MAX
#define SIM__CQ_IN_BUCKET (UINT32_MAX - 1)

struct sim__cq {
    struct sim_event **bucket;  /* unsorted lists (prev of a head is NULL) */
    uint64_t *bitmap;           /* bit b set: bucket b is not empty */
    uint32_t n_buckets;         /* power of two */
    uint32_t mask;              /* n_buckets - 1 */
    unsigned shift;             /* slot width is 2^shift ps */
    uint64_t cur_slot;          /* cursor: no event outside cur has slot <= it */
    struct sim_event *cur_head; /* sorted by (when, seq) */
    struct sim_event *cur_tail;
    uint64_t n_in_buckets;      /* events held in buckets */
    struct sim__heap far;       /* events beyond the window */
    uint64_t n;                 /* events held in all */
    /* events the far heap could not take (out of memory): made idle and
     * counted here for the core (sim.c lost_check), which *stop tells */
    uint64_t n_lost;
    sim_time_t lost_when;       /* the first one's time */
    bool *stop;                 /* or NULL */
    /* adaptivity: counts over the current window of operations */
    uint64_t ops;               /* inserts + pops */
    uint64_t advances;          /* cursor moves */
    uint64_t moved;             /* events sorted into cur by those moves */
    uint64_t far_inserts;       /* inserts beyond the window */
    uint64_t cur_steps;         /* list steps of sorted inserts into cur */
    unsigned backoff;           /* check window = base << backoff */
    uint64_t check_at;          /* ops at which the fit is checked */
    uint64_t n_rebuilds;        /* statistics */
};

/* ---- the sorted current list ------------------------------------------------ */

static inline unsigned sim__cq_cur_insert(struct sim__cq *q, struct sim_event *ev)
{
    ev->index = SIM__CQ_IN_CUR;
    struct sim_event *p = q->cur_tail;
    unsigned steps = 0;
    while (p && sim_event_before(ev, p)) {
        p = p->prev;
        steps++;
    }
    /* ev goes after p (or first if p is NULL) */
    ev->prev = p;
    ev->next = p ? p->next : q->cur_head;
    if (ev->next) {
        ev->next->prev = ev;
    } else {
        q->cur_tail = ev;
    }
    if (p) {
        p->next = ev;
    } else {
        q->cur_head = ev;
    }
    return steps;
}

static inline void sim__cq_cur_unlink(struct sim__cq *q, struct sim_event *ev)
{
    if (ev->prev) {
        ev->prev->next = ev->next;
    } else {
        q->cur_head = ev->next;
    }
    if (ev->next) {
        ev->next->prev = ev->prev;
    } else {
        q->cur_tail = ev->prev;
    }
}

/* ---- buckets ------------------------------------------------------------------- */

static inline void sim__cq_bucket_push(struct sim__cq *q, struct sim_event *ev, uint32_t b)
{
    struct sim_event *head = q->bucket[b];
    ev->index = SIM__CQ_IN_BUCKET;
    ev->prev = NULL;
    ev->next = head;
    if (head) {
        head->prev = ev;
    } else {
        q->bitmap[b >> 6] |= UINT64_C(1) << (b & 63);
    }
    q->bucket[b] = ev;
    q->n_in_buckets++;
}

static inline void sim__cq_bucket_unlink(struct sim__cq *q, struct sim_event *ev)
{
    uint32_t b = (uint32_t)(ev->when >> q->shift) & q->mask;
    if (ev->prev) {
        ev->prev->next = ev->next;
    } else {
        q->bucket[b] = ev->next;
        if (!ev->next) {
            q->bitmap[b >> 6] &= ~(UINT64_C(1) << (b & 63));
        }
    }
    if (ev->next) {
        ev->next->prev = ev->prev;
    }
    q->n_in_buckets--;
}

/* ---- placing an event ------------------------------------------------------- */

/* Out of line: ev into the far heap; where it cannot grow, ev is not
 * held but made idle and counted in n_lost (sim/calendar.c). */
void sim__cq_far_insert(struct sim__cq *q, struct sim_event *ev);

/* Where the far heap cannot grow, ev is not held (sim__cq_far_insert; a
 * rebuild reserves room first: there it cannot fail). */
static inline void sim__cq_place(struct sim__cq *q, struct sim_event *ev)
{
    uint64_t slot = ev->when >> q->shift;
    if (slot <= q->cur_slot) {
        q->cur_steps += sim__cq_cur_insert(q, ev);
    } else if (slot - q->cur_slot < q->n_buckets) {
        sim__cq_bucket_push(q, ev, (uint32_t)slot & q->mask);
    } else {
        sim__cq_far_insert(q, ev); /* sets ev->index to its heap slot */
    }
}

static inline void sim__cq_unplace(struct sim__cq *q, struct sim_event *ev)
{
    if (ev->index == SIM__CQ_IN_CUR) {
        sim__cq_cur_unlink(q, ev);
    } else if (ev->index == SIM__CQ_IN_BUCKET) {
        sim__cq_bucket_unlink(q, ev);
    } else {
        sim__heap_remove(&q->far, ev);
    }
    ev->next = ev->prev = NULL;
}

int sim__cq_init(struct sim__cq *q);
void sim__cq_fini(struct sim__cq *q);
/* Out of line: move the cursor to the next slot (cur is empty, n > 0). */
void sim__cq_advance(struct sim__cq *q);
/* Out of line: grow or shrink the bucket array to fit n. */
void sim__cq_resize(struct sim__cq *q);
/* Out of line: re-estimate the width if the last window went badly. */
void sim__cq_check_fit(struct sim__cq *q);

static inline void sim__cq_tick(struct sim__cq *q)
{
    if (__builtin_expect(++q->ops >= q->check_at, 0)) {
        sim__cq_check_fit(q);
    }
}

/* Returns 0. Out of memory, ev is not held: sim__cq_far_insert has made
 * it idle and counted it in n_lost (the queue is unchanged but for its
 * statistics). */
static inline __attribute__((always_inline)) int
sim__cq_insert(struct sim__cq *q, struct sim_event *ev)
{
    if (__builtin_expect(q->n == 0, 0)) {
        q->cur_slot = ev->when >> q->shift;
    }
    sim__cq_place(q, ev);
    q->n++;
    if (__builtin_expect(q->n > 2 * (uint64_t)q->n_buckets, 0)) {
        sim__cq_resize(q);
    } else {
        sim__cq_tick(q);
    }
    return 0;
}

static inline void sim__cq_remove(struct sim__cq *q, struct sim_event *ev)
{
    sim__cq_unplace(q, ev);
    q->n--;
    if (__builtin_expect(q->n < q->n_buckets / 8, 0)) {
        sim__cq_resize(q);
    }
}

static inline struct sim_event *sim__cq_peek(struct sim__cq *q)
{
    if (!q->cur_head && q->n) {
        sim__cq_advance(q);
    }
    return q->cur_head;
}

static inline struct sim_event *sim__cq_pop(struct sim__cq *q)
{
    struct sim_event *ev = sim__cq_peek(q);
    if (ev) {
        sim__cq_remove(q, ev);
        sim__cq_tick(q);
    }
    return ev;
}

#endif /* P2PSIM_SIM_QUEUE_INT_H */
