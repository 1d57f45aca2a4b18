/*
 * sim/engine_native.c - the native engines: a calendar queue (default) and
 * a 4-ary heap (reference). Both run the same loop; only the queue differs.
 */
#include <config.h>

#include "sim/engine.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "sim/event.h"
#include "sim/queue_int.h"
#include "sim/sim_int.h"

/* ---- calendar queue -------------------------------------------------------- */

static int cq_create(struct sim *sim, struct sim_error *err)
{
    struct sim__cq *q = malloc(sizeof(*q));
    if (!q || sim__cq_init(q) < 0) {
        free(q);
        return sim_error_set(err, SIM_ENOMEM, "out of memory (event queue)");
    }
    q->stop = &sim->stop;       /* a lost event stops the run */
    sim_engine_set_state(sim, q);
    return 0;
}

static void cq_destroy(struct sim *sim)
{
    struct sim__cq *q = sim->engine_state;
    sim__cq_fini(q);
    free(q);
}

static int cq_insert(struct sim *sim, struct sim_event *ev)
{
    return sim__cq_insert(sim->engine_state, ev); /* the core looks at n_lost */
}

static void cq_remove(struct sim *sim, struct sim_event *ev)
{
    sim__cq_remove(sim->engine_state, ev);
}

static struct sim_event *cq_peek(struct sim *sim)
{
    return sim__cq_peek(sim->engine_state);
}

static void cq_run(struct sim *sim, sim_time_t t_end)
{
    struct sim__cq *q = sim->engine_state;
    for (;;) {
        struct sim_event *ev = sim__cq_peek(q);
        if (!ev || ev->when > t_end || !sim__may_fire(sim)) {
            return;
        }
        sim__cq_remove(q, ev);
        sim__cq_tick(q);
        sim__fire(sim, ev);
    }
}

const struct sim_engine_ops sim_engine_native = {
    .name = "native",
    .create = cq_create,
    .destroy = cq_destroy,
    .insert = cq_insert,
    .remove = cq_remove,
    .run = cq_run,
    .peek = cq_peek,
};

/* ---- 4-ary heap --------------------------------------------------------------- */

static int heap_create(struct sim *sim, struct sim_error *err)
{
    struct sim__heap *h = malloc(sizeof(*h));
    if (!h || sim__heap_init(h) < 0) {
        free(h);
        return sim_error_set(err, SIM_ENOMEM, "out of memory (event heap)");
    }
    sim_engine_set_state(sim, h);
    return 0;
}

static void heap_destroy(struct sim *sim)
{
    struct sim__heap *h = sim->engine_state;
    sim__heap_fini(h);
    free(h);
}

static int heap_insert(struct sim *sim, struct sim_event *ev)
{
    return sim__heap_insert(sim->engine_state, ev) < 0 ? -SIM_ENOMEM : 0;
}

static void heap_remove(struct sim *sim, struct sim_event *ev)
{
    sim__heap_remove(sim->engine_state, ev);
}

static struct sim_event *heap_peek(struct sim *sim)
{
    return sim__heap_peek(sim->engine_state);
}

static void heap_run(struct sim *sim, sim_time_t t_end)
{
    struct sim__heap *h = sim->engine_state;
    for (;;) {
        struct sim_event *ev = sim__heap_peek(h);
        if (!ev || ev->when > t_end || !sim__may_fire(sim)) {
            return;
        }
        sim__heap_pop(h);
        sim__fire(sim, ev);
    }
}

const struct sim_engine_ops sim_engine_native_heap = {
    .name = "heap",
    .create = heap_create,
    .destroy = heap_destroy,
    .insert = heap_insert,
    .remove = heap_remove,
    .run = heap_run,
    .peek = heap_peek,
};
