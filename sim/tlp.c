/*
 * sim/tlp.c - TLP kind table and the TLP pool.
 *
 * The pool hands out TLPs from slabs of TLP_SLAB and keeps freed ones on a
 * free list; payload buffers come from per-size-class free lists (64 B to
 * 4 KiB, powers of two), larger ones from malloc. Everything is released
 * when the simulation is destroyed, TLPs still in flight included.
 */
#include <config.h>

#include "sim/tlp.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "sim/port.h"
#include "sim/sim_int.h"

#define TLP_SLAB 256
#define TLP_DATA_CLASSES 7      /* 64 << 0 .. 64 << 6 = 4096 */

struct tlp_slab {
    struct tlp_slab *next;
    struct tlp tlp[TLP_SLAB];
};

struct data_buf {
    struct data_buf *next;
};

struct tlp_pool {
    struct tlp_slab *slabs;
    struct tlp *free;
    struct data_buf *data_free[TLP_DATA_CLASSES];
    uint64_t live;
};

/* ---- kind table ------------------------------------------------------------ */

const struct tlp_kind_info tlp_kind_table[TLP_KIND_COUNT] = {
#define TLP_KIND_ROW(e, name, posted, data, route, fc)                        \
    [TLP_##e] = { name, posted, data, route, fc },
    TLP_KINDS(TLP_KIND_ROW)
#undef TLP_KIND_ROW
};

const char *tlp_kind_name(enum tlp_kind k)
{
    SIM_ASSERT((unsigned)k < TLP_KIND_COUNT, "bad TLP kind %d", (int)k);
    return tlp_kind_table[k].name;
}

bool tlp_is_request(const struct tlp *t)
{
    return t->kind != TLP_CPL && t->kind != TLP_CPLD &&
           t->kind != TLP_ATS_TCPL && t->kind != TLP_ATS_INV_CPL;
}


/* ---- pool ---------------------------------------------------------------------- */

struct tlp_pool *sim__tlp_pool_create(void)
{
    return calloc(1, sizeof(struct tlp_pool));
}

static int data_class(uint32_t cap)
{
    for (int c = 0; c < TLP_DATA_CLASSES; c++) {
        if (cap == (64u << c)) {
            return c;
        }
    }
    return -1;
}

static void data_release(struct tlp_pool *pool, struct tlp *t)
{
    if (!t->data) {
        return;
    }
    int c = data_class(t->data_cap);
    if (c >= 0) {
        struct data_buf *b = (struct data_buf *)(void *)t->data;
        b->next = pool->data_free[c];
        pool->data_free[c] = b;
    } else {
        free(t->data);
    }
    t->data = NULL;
    t->data_cap = 0;
}

void sim__tlp_pool_destroy(struct tlp_pool *pool)
{
    if (!pool) {
        return;
    }
    struct tlp_slab *s = pool->slabs;
    while (s) {
        struct tlp_slab *next = s->next;
        for (int i = 0; i < TLP_SLAB; i++) {
            if (s->tlp[i].state == TLP_STATE_LIVE) {
                data_release(pool, &s->tlp[i]);
            }
        }
        free(s);
        s = next;
    }
    for (int c = 0; c < TLP_DATA_CLASSES; c++) {
        struct data_buf *b = pool->data_free[c];
        while (b) {
            struct data_buf *next = b->next;
            free(b);
            b = next;
        }
    }
    free(pool);
}

struct tlp *tlp_alloc(struct sim *sim, enum tlp_kind k)
{
    SIM_ASSERT(sim != NULL, "tlp_alloc: NULL simulation");
    SIM_ASSERT((unsigned)k < TLP_KIND_COUNT, "tlp_alloc: bad kind %d", (int)k);
    struct tlp_pool *pool = sim->tlp_pool;
    if (!pool->free) {
        /* struct tlp is line-aligned (tlp.h), so the slab is too. */
        struct tlp_slab *s = aligned_alloc(_Alignof(struct tlp_slab),
                                           sizeof(*s));
        if (!s) {
            return NULL;
        }
        s->next = pool->slabs;
        pool->slabs = s;
        for (int i = TLP_SLAB - 1; i >= 0; i--) {
            s->tlp[i].state = TLP_STATE_FREE;
            s->tlp[i].pool_next = pool->free;
            pool->free = &s->tlp[i];
        }
    }
    struct tlp *t = pool->free;
    pool->free = t->pool_next;
    memset(t, 0, sizeof(*t));
    sim_event_init(&t->ev, NULL);
    t->kind = k;
    t->pasid = TLP_PASID_NONE;
    t->first_be = 0xf;
    t->id = ++sim->next_tlp_id;
    t->t_created = sim->now;
    t->pool = pool;
    t->state = TLP_STATE_LIVE;
    pool->live++;
    return t;
}

int tlp_data_alloc(struct tlp *t, uint32_t len)
{
    SIM_ASSERT(t && t->state == TLP_STATE_LIVE,
               "tlp_data_alloc on a TLP that is not live");
    if (t->data && t->data_cap >= len) {
        return 0;
    }
    data_release(t->pool, t);
    uint32_t cap = 64;
    int c = 0;
    while (cap < len && c < TLP_DATA_CLASSES - 1) {
        cap <<= 1;
        c++;
    }
    if (cap >= len) {
        struct data_buf *b = t->pool->data_free[c];
        if (b) {
            t->pool->data_free[c] = b->next;
            t->data = (uint8_t *)b;
        } else {
            t->data = malloc(cap);
        }
    } else {
        cap = len;
        t->data = malloc(cap);
    }
    if (!t->data) {
        return -SIM_ENOMEM;
    }
    t->data_cap = cap;
    return 0;
}

void tlp_free(struct tlp *t)
{
    SIM_ASSERT(t != NULL, "tlp_free(NULL)");
    SIM_ASSERT(t->state != TLP_STATE_FREE, "double free of TLP %llu (%s)",
               (unsigned long long)t->id, tlp_kind_name(t->kind));
    SIM_ASSERT(t->state == TLP_STATE_LIVE,
               "tlp_free on a pointer that is not a TLP from the pool");
    SIM_ASSERT(!sim_event_is_pending(&t->ev),
               "freeing TLP %llu while its event is still scheduled",
               (unsigned long long)t->id);
    sim_tlp_release_hold(t);
    struct tlp_pool *pool = t->pool;
    data_release(pool, t);
    t->state = TLP_STATE_FREE;
    t->pool_next = pool->free;
    pool->free = t;
    pool->live--;
}

struct tlp *tlp_new_completion(struct sim *sim, const struct tlp *req,
                               uint8_t status, uint32_t len)
{
    SIM_ASSERT(req && req->state == TLP_STATE_LIVE,
               "tlp_new_completion: request is not a live TLP");
    enum tlp_kind k = len ? TLP_CPLD : TLP_CPL;
    if (req->kind == TLP_ATS_TREQ) {
        k = TLP_ATS_TCPL;
    }
    struct tlp *c = tlp_alloc(sim, k);
    if (!c) {
        return NULL;
    }
    c->requester_id = req->requester_id;
    c->tag = req->tag;
    c->tc = req->tc;
    c->attr = req->attr;
    c->cpl_status = status;
    c->len_bytes = len;
    c->byte_count = len;
    c->lower_addr = (uint16_t)(req->addr & 0x7f);
    c->cookie = req->cookie;
    c->pasid = TLP_PASID_NONE;
    return c;
}

uint64_t tlp_pool_live(const struct sim *sim)
{
    return sim->tlp_pool->live;
}
