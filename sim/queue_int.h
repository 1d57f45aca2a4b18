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

#include <stddef.h>
#include <stdint.h>

#include "sim/event.h"

/* ---- 4-ary min-heap of event pointers ----------------------------------- */
struct sim__heap {
    struct sim_event **slot;    /* slot[0..n) */
    uint32_t n;                 /* events held */
    uint32_t cap;               /* slots allocated */
};

int sim__heap_init(struct sim__heap *h);
void sim__heap_fini(struct sim__heap *h);
int sim__heap_insert(struct sim__heap *h, struct sim_event *ev);
void sim__heap_remove(struct sim__heap *h, struct sim_event *ev);
struct sim_event *sim__heap_pop(struct sim__heap *h);
static inline struct sim_event *sim__heap_peek(const struct sim__heap *h)
{
    return h->n ? h->slot[0] : NULL;
}

/* ---- calendar queue ------------------------------------------------------
 *
 * Brown's calendar queue (CACM 31(10), 1988) with power-of-two bucket count
 * and width. Each bucket is a circular doubly linked list sorted by
 * (when, seq); its head's prev is its tail. Inserts walk from the tail, so
 * events scheduled in time order (FIFO ties, the common case in a fabric)
 * insert in O(1). The bucket for time t is (t >> shift) & mask.
 * The width adapts: on resize it is set from the spacing of the earliest
 * events; and when inserts walk long lists or pops skip many empty buckets,
 * the queue re-estimates the width even if its size did not change.
 */
struct sim__cq {
    struct sim_event **bucket;  /* head of each bucket, or NULL */
    uint32_t n_buckets;         /* power of two */
    uint32_t mask;              /* n_buckets - 1 */
    unsigned shift;             /* bucket width is 2^shift ps */
    uint64_t cur_slot;          /* absolute slot (when >> shift) of the cursor */
    uint64_t n;                 /* events held */
    /* adaptivity */
    uint64_t walk_steps;        /* list steps over the last window of inserts */
    uint64_t skip_steps;        /* empty buckets skipped over the last window */
    uint64_t window_ops;        /* operations in the current window */
    unsigned backoff;           /* window = CQ_WINDOW_MIN << backoff */
    uint64_t n_resizes;         /* statistics */
};

int sim__cq_init(struct sim__cq *q);
void sim__cq_fini(struct sim__cq *q);
int sim__cq_insert(struct sim__cq *q, struct sim_event *ev);
void sim__cq_remove(struct sim__cq *q, struct sim_event *ev);
struct sim_event *sim__cq_peek(struct sim__cq *q);
struct sim_event *sim__cq_pop(struct sim__cq *q);

#endif /* P2PSIM_SIM_QUEUE_INT_H */
