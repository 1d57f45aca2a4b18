/*
 * models/gpu/sm_wc.c - the SM's write-combining buffer: remote stores
 * merge into a 128-byte line per destination line, and a line leaves as
 * one MWr per contiguous run of written bytes when it is full, when its
 * slot is needed (the oldest leaves), when it has waited wc_timeout, when
 * a load or atomic of this SM touches it, or at a FLUSH (sm.h). So
 * writes to different lines may leave in another order than they were
 * made: one of the reorderings docs/memory-model.md lists.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "models/gpu/sm_int.h"
#include "sim/component.h"
#include "sim/event.h"
#include "sim/sim.h"

static void sm_note_target(struct sm_unit *u, uint64_t addr)
{
    uint64_t key = addr >> SM_TARGET_SHIFT;
    for (unsigned i = 0; i < u->n_written; i++) {
        if (u->written[i].key == key) {
            u->written[i].addr = addr;
            return;
        }
    }
    if (u->n_written < SM_MAX_TARGETS) {
        u->written[u->n_written].key = key;
        u->written[u->n_written++].addr = addr;
    } else {
        /* Model: beyond SM_MAX_TARGETS destinations, the last slot's read
         * stands for the rest (they are all flushed by the drain anyway). */
        u->written[SM_MAX_TARGETS - 1].addr = addr;
    }
}

/* Send line l: one MWr per contiguous run of written bytes; its stores
 * are done (they left the SM). */
static void sm_line_send(struct sm_state *st, unsigned sm, struct sm_line *l)
{
    struct gpu *g = st->g;
    unsigned i = 0;
    while (i < GPU_SM_LINE_BYTES) {
        if (!l->mask[i]) {
            i++;
            continue;
        }
        unsigned j = i;
        while (j < GPU_SM_LINE_BYTES && l->mask[j]) {
            j++;
        }
        struct sm_out *o = sm__out_new(st, TLP_MWR, sm, l->base + i, j - i,
                                      NULL);
        if (o && !(o->wdata = malloc(j - i))) {
            sim_component_nomem(g->c, "an SM write's payload");
        }
        if (!o || !o->wdata) {
            break;      /* the simulation has failed */
        }
        memcpy(o->wdata, l->data + i, j - i);
        st->cnt.remote_writes++;
        st->cnt.remote_write_bytes += j - i;
        sm_note_target(&st->u[sm], l->base + i);
        i = j;
    }
    sim_time_t now = sim_now(g->c->sim);
    while (l->stores) {
        struct gpu_sm_req *r = l->stores;
        l->stores = r->next;
        r->next = NULL;
        sm__finish_at(g, r, now);
    }
    memset(l, 0, sizeof(*l));
    sm__pump(st);
}

static void sm_wc_arm(struct sm_state *st, struct sm_unit *u)
{
    sim_time_t oldest = SIM_TIME_MAX;
    for (unsigned i = 0; i < st->prm.wc_lines; i++) {
        if (u->wc[i].used && u->wc[i].t_alloc < oldest) {
            oldest = u->wc[i].t_alloc;
        }
    }
    sim_event_cancel(st->g->c->sim, &u->wc_ev);
    if (oldest != SIM_TIME_MAX) {
        sim_event_schedule_at(st->g->c->sim, &u->wc_ev,
                              sim_time_add(oldest, st->prm.wc_timeout_ps));
    }
}

void sm__wc_timeout(struct sim *sim, struct sim_event *ev)
{
    struct sm_unit *u = SIM_CONTAINER_OF(ev, struct sm_unit, wc_ev);
    struct sm_state *st = u->st;
    sim_time_t now = sim_now(sim);
    unsigned sm = (unsigned)(u - st->u);
    for (unsigned i = 0; i < st->prm.wc_lines; i++) {
        struct sm_line *l = &u->wc[i];
        if (l->used && sim_time_add(l->t_alloc, st->prm.wc_timeout_ps) <= now) {
            sm_line_send(st, sm, l);
        }
    }
    sm_wc_arm(st, u);
}

/* Send the line holding [addr, addr + len) of SM sm, if one does. */
void sm__wc_evict_range(struct sm_state *st, unsigned sm, uint64_t addr,
                              uint32_t len)
{
    struct sm_unit *u = &st->u[sm];
    uint64_t base = addr & ~(uint64_t)(GPU_SM_LINE_BYTES - 1);
    uint64_t last = (addr + (len ? len : 1) - 1) &
                    ~(uint64_t)(GPU_SM_LINE_BYTES - 1);
    for (unsigned i = 0; i < st->prm.wc_lines; i++) {
        struct sm_line *l = &u->wc[i];
        if (l->used && l->base >= base && l->base <= last) {
            sm_line_send(st, sm, l);
        }
    }
    sm_wc_arm(st, u);
}

void sm__wc_drain(struct sm_state *st, unsigned sm)
{
    struct sm_unit *u = &st->u[sm];
    /* Oldest first, so the drain keeps the order lines were opened in. */
    for (;;) {
        struct sm_line *o = NULL;
        for (unsigned i = 0; i < st->prm.wc_lines; i++) {
            if (u->wc[i].used && (!o || u->wc[i].t_alloc < o->t_alloc)) {
                o = &u->wc[i];
            }
        }
        if (!o) {
            break;
        }
        sm_line_send(st, sm, o);
    }
    sm_wc_arm(st, u);
}

void sm__wc_store(struct sm_state *st, struct gpu_sm_req *r)
{
    struct sm_unit *u = &st->u[r->sm];
    uint64_t base = r->addr & ~(uint64_t)(GPU_SM_LINE_BYTES - 1);
    struct sm_line *l = NULL, *free_l = NULL, *oldest = NULL;
    for (unsigned i = 0; i < st->prm.wc_lines; i++) {
        struct sm_line *c = &u->wc[i];
        if (c->used && c->base == base) {
            l = c;
        } else if (!c->used && !free_l) {
            free_l = c;
        } else if (c->used && (!oldest || c->t_alloc < oldest->t_alloc)) {
            oldest = c;
        }
    }
    if (l) {
        st->cnt.wc_merges++;
    } else {
        if (!free_l) {
            sm_line_send(st, r->sm, oldest);  /* the slot is reused */
            free_l = oldest;
        }
        l = free_l;
        l->used = true;
        l->base = base;
        l->t_alloc = sim_now(st->g->c->sim);
    }
    unsigned off = (unsigned)(r->addr - base);
    memcpy(l->data + off, r->data, r->len);
    for (unsigned i = 0; i < r->len; i++) {
        l->n_bytes += !l->mask[off + i];
        l->mask[off + i] = 1;
    }
    r->next = l->stores;
    l->stores = r;
    if (l->n_bytes == GPU_SM_LINE_BYTES) {
        sm_line_send(st, r->sm, l);
    }
    sm_wc_arm(st, u);
}
