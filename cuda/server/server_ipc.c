/*
 * cuda/server/server_ipc.c - the p2psim server's tables (server.c has
 * the server): which process owns which HBM range of which GPU, the
 * memory exports of CUDA IPC, and interprocess events.
 *
 * HBM. Offsets come from one first-fit allocator per GPU
 * (machine/hbm_space.c), so every process's cudaMalloc lands in one shared
 * space; each range remembers its owner, and only the owner frees it.
 *
 * Memory exports: (GPU, HBM offset, size, a random 64-bit nonce,
 * exporter). An open must name all of them; anything else (a forged
 * handle, another session's, a freed allocation's) is refused before
 * anything is touched. An allocation its owner frees while other
 * processes have it open keeps its HBM (and cannot be opened again) until
 * the last of them closes it, as the driver keeps the physical memory of
 * an exported allocation alive.
 *
 * Interprocess events: a generation counter per exported event,
 * incremented by each record in any process; a generation is done when
 * the process that recorded it reports its completion, and the processes
 * waiting for it get a callback then. Model: a process that goes away
 * with generations it recorded still pending is taken as having completed
 * them (its work is not waited for).
 *
 * Complexity: lists searched linearly; programs export a handful of
 * allocations and events.
 */
#include <config.h>

#include "cuda/server/server.h"

#include <stdlib.h>

#include "sim/error.h"
#include "sim/sim.h"

/* ---- HBM allocations and memory exports ---------------------------------------- */

static struct srv_alloc *alloc_find(struct server *s, unsigned gpu,
                                    uint64_t off)
{
    for (struct srv_alloc *a = s->allocs; a; a = a->next) {
        if (a->gpu == gpu && a->off == off) {
            return a;
        }
    }
    return NULL;
}

static void export_remove(struct server *s, struct srv_export *x)
{
    for (struct srv_export **pp = &s->exports; *pp; pp = &(*pp)->next) {
        if (*pp == x) {
            *pp = x->next;
            break;
        }
    }
    free(x);
}

/* Give a's HBM back (with its export, which nobody has open). */
static void alloc_release(struct server *s, struct srv_alloc *a)
{
    p2psim_hbm_space_free(&s->hbm[a->gpu], a->off, NULL);
    if (a->x) {
        export_remove(s, a->x);
    }
    for (struct srv_alloc **pp = &s->allocs; *pp; pp = &(*pp)->next) {
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    }
    s->n_allocs--;
    free(a);
}

/* The owner frees a: at once, or when the last importer closes it. */
static void alloc_free(struct server *s, struct srv_alloc *a)
{
    if (a->x) {
        a->x->stale = true;
        if (a->x->opens) {
            a->owner = NULL;
            return;
        }
    }
    alloc_release(s, a);
}

static struct srv_export *export_find(struct server *s,
                                      const struct wire_ipc_mem *m)
{
    for (struct srv_export *x = s->exports; x; x = x->next) {
        if (x->nonce == m->nonce && x->gpu == m->gpu && x->off == m->off &&
            x->size == m->size) {
            return x;
        }
    }
    return NULL;
}

static struct srv_import **import_slot(struct srv_client *c,
                                       struct srv_export *x)
{
    struct srv_import **pp = &c->imports;
    while (*pp && (*pp)->x != x) {
        pp = &(*pp)->next;
    }
    return pp;
}

/* c closes n opens of x. */
static void import_drop(struct server *s, struct srv_client *c,
                        struct srv_export *x, unsigned n)
{
    struct srv_import **pp = import_slot(c, x);
    struct srv_import *im = *pp;
    if (!im) {
        return;
    }
    n = n < im->count ? n : im->count;
    im->count -= n;
    x->opens -= n;
    if (im->count == 0) {
        *pp = im->next;
        free(im);
    }
    if (x->stale && x->opens == 0) {
        alloc_release(s, x->a);
    }
}

/* ---- interprocess events -------------------------------------------------------- */

static struct srv_event *event_find(struct server *s,
                                    const struct wire_ipc_event *e)
{
    for (struct srv_event *ev = s->events; ev; ev = ev->next) {
        if (ev->id == e->id && ev->nonce == e->nonce) {
            return ev;
        }
    }
    return NULL;
}

static bool gen_done(const struct srv_event *ev, uint64_t gen)
{
    if (gen > ev->gen) {
        return false;
    }
    for (const struct srv_gen *g = ev->pending; g; g = g->next) {
        if (g->gen == gen) {
            return false;
        }
    }
    return true;
}

/* Generation gen of ev is complete: tell its waiters. */
static void gen_complete(struct server *s, struct srv_event *ev, uint64_t gen,
                         int32_t status)
{
    for (struct srv_gen **pp = &ev->pending; *pp; pp = &(*pp)->next) {
        if ((*pp)->gen == gen) {
            struct srv_gen *g = *pp;
            *pp = g->next;
            ev->n_pending--;
            free(g);
            break;
        }
    }
    if (gen == ev->gen) {
        ev->last_status = status;
    }
    for (struct srv_waiter **pp = &ev->waiters; *pp;) {
        struct srv_waiter *w = *pp;
        if (w->gen != gen) {
            pp = &w->next;
            continue;
        }
        sim_time_t now = sim_now(s->sim);
        struct wire_callback cb = { .cb = w->cb, .status = status,
                                    .t_start = now, .t_end = now };
        srv_queue_callback(s, w->c, &cb);
        *pp = w->next;
        s->n_waiters--;
        free(w);
    }
}

/* ---- requests ------------------------------------------------------------------- */

int srv_on_hbm_alloc(struct server *s, struct srv_client *c,
                     struct srv_req *r)
{
    const struct wire_hbm *m = r->m;
    uint64_t *off = &r->v[0];
    if (m->gpu >= s->n_gpus) {
        return -SIM_EINVAL;
    }
    if (s->n_allocs >= SRV_MAX_ALLOCS) {
        return -SIM_ENOMEM;
    }
    struct srv_alloc *a = calloc(1, sizeof(*a));
    if (!a) {
        return -SIM_ENOMEM;
    }
    int rc = p2psim_hbm_space_alloc(&s->hbm[m->gpu], m->len, m->align, off);
    if (rc < 0) {
        free(a);
        return rc;
    }
    a->owner = c;
    a->gpu = m->gpu;
    a->off = *off;
    a->len = m->len;
    a->next = s->allocs;
    s->allocs = a;
    s->n_allocs++;
    return 0;
}

int srv_on_hbm_free(struct server *s, struct srv_client *c,
                    struct srv_req *r)
{
    const struct wire_hbm *m = r->m;
    struct srv_alloc *a = m->gpu < s->n_gpus ? alloc_find(s, m->gpu, m->off)
                                             : NULL;
    if (!a || a->owner != c) {
        return -SIM_ENOENT;
    }
    alloc_free(s, a);
    return 0;
}

int srv_on_mem_export(struct server *s, struct srv_client *c,
                      struct srv_req *r)
{
    const struct wire_ipc_mem *m = r->m;
    uint64_t *nonce = &r->v[0];
    struct srv_alloc *a = m->gpu < s->n_gpus ? alloc_find(s, m->gpu, m->off)
                                             : NULL;
    if (!a || a->owner != c || m->size == 0 || m->size > a->len) {
        return -SIM_ENOENT;
    }
    if (!a->x) {
        struct srv_export *x = calloc(1, sizeof(*x));
        if (!x) {
            return -SIM_ENOMEM;
        }
        x->a = a;
        x->owner = c;
        x->gpu = a->gpu;
        x->off = a->off;
        x->size = m->size;
        x->nonce = srv_random_u64();
        x->next = s->exports;
        s->exports = x;
        a->x = x;
    }
    /* Exporting again gives the same handle (CUDA: "cheap, repeatable"). */
    *nonce = a->x->nonce;
    return a->x->size == m->size ? 0 : -SIM_EINVAL;
}

/* 0; -SIM_ENOENT: not a live export; -SIM_EBUSY: c exported it. */
int srv_on_mem_open(struct server *s, struct srv_client *c,
                    struct srv_req *r)
{
    const struct wire_ipc_mem *m = r->m;
    struct srv_export *x = export_find(s, m);
    if (!x || x->stale) {
        return -SIM_ENOENT;
    }
    if (x->owner == c) {
        return -SIM_EBUSY;
    }
    struct srv_import **pp = import_slot(c, x);
    if (!*pp) {
        *pp = calloc(1, sizeof(**pp));
        if (!*pp) {
            return -SIM_ENOMEM;
        }
        (*pp)->x = x;
    }
    (*pp)->count++;
    x->opens++;
    return 0;
}

int srv_on_mem_close(struct server *s, struct srv_client *c,
                     struct srv_req *r)
{
    const struct wire_ipc_mem *m = r->m;
    struct srv_export *x = export_find(s, m);
    if (!x || !*import_slot(c, x)) {
        return -SIM_ENOENT;
    }
    import_drop(s, c, x, 1);
    return 0;
}

/* WIRE_IPC_EVENT_*: one handler for the seven. */
int srv_on_ipc_event(struct server *s, struct srv_client *c,
                     struct srv_req *r)
{
    const struct wire_ipc_event *m = r->m;
    uint32_t type = r->h->type;
    uint64_t *v = r->v;
    if (type == WIRE_IPC_EVENT_EXPORT) {
        struct srv_event *ev = s->n_events < SRV_MAX_EVENTS
                                   ? calloc(1, sizeof(*ev))
                                   : NULL;
        if (!ev) {
            return -SIM_ENOMEM;
        }
        ev->id = ++s->next_event_id;
        ev->nonce = srv_random_u64();
        ev->owner = c;
        ev->next = s->events;
        s->events = ev;
        s->n_events++;
        v[0] = ev->id;
        v[1] = ev->nonce;
        return 0;
    }
    struct srv_event *ev = event_find(s, m);
    if (!ev) {
        return -SIM_ENOENT;
    }
    switch (type) {
    case WIRE_IPC_EVENT_OPEN:
        if (ev->closed) {
            return -SIM_ENOENT;
        }
        return ev->owner == c ? -SIM_EBUSY : 0;
    case WIRE_IPC_EVENT_CLOSE:
        if (ev->owner == c) {
            ev->closed = true;
        }
        return 0;
    case WIRE_IPC_EVENT_RECORD: {
        struct srv_gen *g = ev->n_pending < SRV_MAX_PENDING
                                ? calloc(1, sizeof(*g))
                                : NULL;
        if (!g) {
            return -SIM_ENOMEM;
        }
        g->gen = ++ev->gen;
        g->by = c;
        g->next = ev->pending;
        ev->pending = g;
        ev->n_pending++;
        v[0] = g->gen;
        return 0;
    }
    case WIRE_IPC_EVENT_DONE:
        if (m->gen == 0 || gen_done(ev, m->gen)) {
            return -SIM_EINVAL;
        }
        gen_complete(s, ev, m->gen, m->status);
        return 0;
    case WIRE_IPC_EVENT_QUERY:
        v[0] = ev->gen;
        v[1] = gen_done(ev, ev->gen);
        v[2] = (uint64_t)(int64_t)ev->last_status;
        return 0;
    case WIRE_IPC_EVENT_WAIT: {
        if (m->gen > ev->gen) {
            return -SIM_EINVAL;
        }
        if (gen_done(ev, m->gen)) {
            v[1] = 1;
            v[2] = m->gen == ev->gen ? (uint64_t)(int64_t)ev->last_status : 0;
            return 0;
        }
        struct srv_waiter *w = s->n_waiters < SRV_MAX_WAITERS
                                   ? calloc(1, sizeof(*w))
                                   : NULL;
        if (!w) {
            return -SIM_ENOMEM;
        }
        w->c = c;
        w->gen = m->gen;
        w->cb = m->cb;
        w->next = ev->waiters;
        ev->waiters = w;
        s->n_waiters++;
        return 0;
    }
    }
    return -SIM_EINVAL;
}

/* ---- clients that go, and the end ------------------------------------------------ */

void srv_ipc_client_gone(struct server *s, struct srv_client *c)
{
    while (c->imports) {
        import_drop(s, c, c->imports->x, c->imports->count);
    }
    for (struct srv_alloc *a = s->allocs, *next; a; a = next) {
        next = a->next;
        if (a->owner == c) {
            alloc_free(s, a);
        }
    }
    /* c's struct is freed once its operations are over: nothing may
     * point at it then (owners compared after stale or closed only). */
    for (struct srv_export *x = s->exports; x; x = x->next) {
        if (x->owner == c) {
            x->owner = NULL;
        }
    }
    for (struct srv_event *ev = s->events; ev; ev = ev->next) {
        if (ev->owner == c) {
            ev->closed = true;
            ev->owner = NULL;
        }
        for (struct srv_gen *g = ev->pending, *next; g; g = next) {
            next = g->next;
            if (g->by == c) {
                gen_complete(s, ev, g->gen, 0);
            }
        }
        for (struct srv_waiter **pp = &ev->waiters; *pp;) {
            struct srv_waiter *w = *pp;
            if (w->c == c) {
                *pp = w->next;
                s->n_waiters--;
                free(w);
            } else {
                pp = &w->next;
            }
        }
    }
}

void srv_ipc_fini(struct server *s)
{
    for (struct srv_client *c = s->clients; c; c = c->next) {
        while (c->imports) {
            struct srv_import *im = c->imports;
            c->imports = im->next;
            free(im);
        }
    }
    while (s->allocs) {
        struct srv_alloc *a = s->allocs;
        s->allocs = a->next;
        free(a);
    }
    while (s->exports) {
        struct srv_export *x = s->exports;
        s->exports = x->next;
        free(x);
    }
    while (s->events) {
        struct srv_event *ev = s->events;
        s->events = ev->next;
        while (ev->pending) {
            struct srv_gen *g = ev->pending;
            ev->pending = g->next;
            free(g);
        }
        while (ev->waiters) {
            struct srv_waiter *w = ev->waiters;
            ev->waiters = w->next;
            free(w);
        }
        free(ev);
    }
}
