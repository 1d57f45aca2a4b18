/*
 * sim/heap.c - a 4-ary min-heap of events ordered by (when, seq).
 *
 * The reference queue: short, obviously correct, O(log n) for every
 * operation. Each event records its slot so that cancel is a real removal
 * (not lazy), which keeps the pending count exact.
 */
#include <config.h>

#include <stdlib.h>

#include "sim/queue_int.h"

#define HEAP_ARITY 4

int sim__heap_init(struct sim__heap *h)
{
    h->n = 0;
    h->cap = 64;
    h->slot = malloc(sizeof(*h->slot) * h->cap);
    return h->slot ? 0 : -1;
}

void sim__heap_fini(struct sim__heap *h)
{
    free(h->slot);
    h->slot = NULL;
    h->n = h->cap = 0;
}

static void heap_place(struct sim__heap *h, uint32_t i, struct sim_event *ev)
{
    h->slot[i] = ev;
    ev->index = i;
}

static void sift_up(struct sim__heap *h, uint32_t i, struct sim_event *ev)
{
    while (i > 0) {
        uint32_t parent = (i - 1) / HEAP_ARITY;
        struct sim_event *p = h->slot[parent];
        if (!sim_event_before(ev, p)) {
            break;
        }
        heap_place(h, i, p);
        i = parent;
    }
    heap_place(h, i, ev);
}

static void sift_down(struct sim__heap *h, uint32_t i, struct sim_event *ev)
{
    for (;;) {
        uint32_t first = i * HEAP_ARITY + 1;
        if (first >= h->n) {
            break;
        }
        uint32_t last = first + HEAP_ARITY;
        if (last > h->n) {
            last = h->n;
        }
        uint32_t best = first;
        for (uint32_t c = first + 1; c < last; c++) {
            if (sim_event_before(h->slot[c], h->slot[best])) {
                best = c;
            }
        }
        if (!sim_event_before(h->slot[best], ev)) {
            break;
        }
        heap_place(h, i, h->slot[best]);
        i = best;
    }
    heap_place(h, i, ev);
}

int sim__heap_reserve(struct sim__heap *h, uint32_t n)
{
    if (n <= h->cap) {
        return 0;
    }
    uint32_t cap = h->cap ? h->cap : 64;
    while (cap < n) {
        cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
    }
    struct sim_event **s = realloc(h->slot, sizeof(*s) * (size_t)cap);
    if (!s) {
        return -1;
    }
    h->slot = s;
    h->cap = cap;
    return 0;
}

int sim__heap_insert(struct sim__heap *h, struct sim_event *ev)
{
    if (h->n == h->cap && (h->n == UINT32_MAX ||
                           sim__heap_reserve(h, h->n + 1) < 0)) {
        return -1;
    }
    sift_up(h, h->n++, ev);
    return 0;
}

void sim__heap_remove(struct sim__heap *h, struct sim_event *ev)
{
    uint32_t i = ev->index;
    struct sim_event *last = h->slot[--h->n];
    if (last == ev) {
        return;
    }
    /* Put the last event in the hole, then restore order either way. */
    if (i > 0 && sim_event_before(last, h->slot[(i - 1) / HEAP_ARITY])) {
        sift_up(h, i, last);
    } else {
        sift_down(h, i, last);
    }
}

struct sim_event *sim__heap_pop(struct sim__heap *h)
{
    if (h->n == 0) {
        return NULL;
    }
    struct sim_event *top = h->slot[0];
    struct sim_event *last = h->slot[--h->n];
    if (h->n > 0) {
        sift_down(h, 0, last);
    }
    return top;
}
