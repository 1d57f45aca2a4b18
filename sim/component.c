/*
 * sim/component.c - component and link registry of a simulation; ports.
 */
#include <config.h>

#include "sim/component.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "sim/port.h"
#include "sim/sim_int.h"
#include "sim/tlp.h"
#include "sim/trace.h"

static int grow(void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
    if (n < *cap) {
        return 0;
    }
    uint32_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, ncap * elem);
    if (!p) {
        return -SIM_ENOMEM;
    }
    *arr = p;
    *cap = ncap;
    return 0;
}

struct sim_component *sim_component_create(struct sim *sim,
                                           const struct sim_component_ops *ops,
                                           const char *name,
                                           struct sim_error *err)
{
    SIM_ASSERT(sim && ops && name, "sim_component_create: NULL argument");
    if (sim_component_find(sim, name)) {
        sim_error_set(err, SIM_EEXIST, "a component named '%s' exists already",
                      name);
        return NULL;
    }
    if (grow((void **)&sim->comp, &sim->cap_comp, sim->n_comp,
             sizeof(*sim->comp)) < 0) {
        sim_error_set(err, SIM_ENOMEM, "out of memory");
        return NULL;
    }
    struct sim_component *c = calloc(1, sizeof(*c));
    char *nm = strdup(name);
    void *state = ops->state_size ? calloc(1, ops->state_size) : NULL;
    if (!c || !nm || (ops->state_size && !state)) {
        free(c);
        free(nm);
        free(state);
        sim_error_set(err, SIM_ENOMEM, "out of memory");
        return NULL;
    }
    c->name = nm;
    c->ops = ops;
    c->sim = sim;
    c->state = state;
    c->id = sim->n_comp;
    sim->comp[sim->n_comp++] = c;
    return c;
}

int sim_component_configure(struct sim_component *c,
                            const struct sim_props *props,
                            struct sim_error *err)
{
    return c->ops->configure ? c->ops->configure(c, props, err) : 0;
}

void sim_component_reset(struct sim_component *c)
{
    if (c->ops->reset) {
        c->ops->reset(c);
    }
}

void sim_component_report(const struct sim_component *c, struct sim_stats *out)
{
    if (c->ops->report) {
        c->ops->report(c, out);
    }
}

struct sim_component *sim_component_find(const struct sim *sim,
                                         const char *name)
{
    for (uint32_t i = 0; i < sim->n_comp; i++) {
        if (strcmp(sim->comp[i]->name, name) == 0) {
            return sim->comp[i];
        }
    }
    return NULL;
}

uint32_t sim_component_count(const struct sim *sim) { return sim->n_comp; }

struct sim_component *sim_component_at(const struct sim *sim, uint32_t i)
{
    return i < sim->n_comp ? sim->comp[i] : NULL;
}

const struct sim_component_ops *
sim_component_ops_find(const struct sim_component_ops *const *table,
                       const char *kind)
{
    for (; *table; table++) {
        if (strcmp((*table)->kind, kind) == 0) {
            return *table;
        }
    }
    return NULL;
}

void sim__components_destroy(struct sim *sim)
{
    for (uint32_t i = 0; i < sim->n_link; i++) {
        struct sim_link *l = sim->link[i];
        if (l->ops->destroy) {
            l->ops->destroy(l);
        }
    }
    for (uint32_t i = 0; i < sim->n_comp; i++) {
        struct sim_component *c = sim->comp[i];
        if (c->ops->destroy) {
            c->ops->destroy(c);
        }
    }
    for (uint32_t i = 0; i < sim->n_link; i++) {
        free(sim->link[i]->state);
        free(sim->link[i]->name);
        free(sim->link[i]);
    }
    for (uint32_t i = 0; i < sim->n_comp; i++) {
        struct sim_component *c = sim->comp[i];
        for (uint32_t p = 0; p < c->n_ports; p++) {
            free(c->port[p]->name);
            free(c->port[p]);
        }
        free(c->port);
        free(c->state);
        free(c->name);
        free(c);
    }
    free(sim->link);
    free(sim->comp);
    sim->link = NULL;
    sim->comp = NULL;
    sim->n_link = sim->n_comp = 0;
}

/* ---- ports ------------------------------------------------------------------- */

struct sim_port *sim_port_add(struct sim_component *c, const char *name,
                              enum sim_port_role role)
{
    SIM_ASSERT(c && name, "sim_port_add: NULL argument");
    if (sim_port_find(c, name)) {
        return NULL;
    }
    if (grow((void **)&c->port, &c->cap_ports, c->n_ports,
             sizeof(*c->port)) < 0) {
        return NULL;
    }
    struct sim_port *p = calloc(1, sizeof(*p));
    if (!p || !(p->name = strdup(name))) {
        free(p);
        return NULL;
    }
    p->owner = c;
    p->role = role;
    p->index = c->n_ports;
    c->port[c->n_ports++] = p;
    return p;
}

int sim_component_nomem(struct sim_component *c, const char *what)
{
    return sim_fail_nomem(c->sim, c->name, "%s", what);
}

struct sim_port *sim_port_find(const struct sim_component *c, const char *name)
{
    for (uint32_t i = 0; i < c->n_ports; i++) {
        if (strcmp(c->port[i]->name, name) == 0) {
            return c->port[i];
        }
    }
    return NULL;
}

struct sim_port *sim_port_peer(const struct sim_port *p)
{
    return p->link ? p->link->end[!p->side] : NULL;
}

/* ---- links -------------------------------------------------------------------- */

/*
 * A link's state, zeroed and aligned to a cache line, so that a model can
 * lay out what it touches per TLP in whole lines (pcie-link's UpdateFC
 * ring: one line per entry instead of two). Freed with free().
 */
static void *state_alloc(size_t size)
{
    size_t line = SIM_LINK_STATE_ALIGN;
    size_t rounded = (size + line - 1) & ~(line - 1); /* aligned_alloc's rule */
    void *p = aligned_alloc(line, rounded);
    if (p) {
        memset(p, 0, rounded);
    }
    return p;
}

struct sim_link *sim_link_create(struct sim *sim,
                                 const struct sim_link_ops *ops,
                                 const char *name, struct sim_error *err)
{
    SIM_ASSERT(sim && ops && name, "sim_link_create: NULL argument");
    if (sim_link_find(sim, name)) {
        sim_error_set(err, SIM_EEXIST, "a link named '%s' exists already", name);
        return NULL;
    }
    if (grow((void **)&sim->link, &sim->cap_link, sim->n_link,
             sizeof(*sim->link)) < 0) {
        sim_error_set(err, SIM_ENOMEM, "out of memory");
        return NULL;
    }
    struct sim_link *l = calloc(1, sizeof(*l));
    char *nm = strdup(name);
    void *state = ops->state_size ? state_alloc(ops->state_size) : NULL;
    if (!l || !nm || (ops->state_size && !state)) {
        free(l);
        free(nm);
        free(state);
        sim_error_set(err, SIM_ENOMEM, "out of memory");
        return NULL;
    }
    l->name = nm;
    l->ops = ops;
    l->sim = sim;
    l->state = state;
    l->id = sim->n_link;
    sim->link[sim->n_link++] = l;
    return l;
}

int sim_link_configure(struct sim_link *l, const struct sim_props *props,
                       struct sim_error *err)
{
    return l->ops->configure ? l->ops->configure(l, props, err) : 0;
}

int sim_link_connect(struct sim_link *l, struct sim_port *a,
                     struct sim_port *b, struct sim_error *err)
{
    SIM_ASSERT(l && a && b, "sim_link_connect: NULL argument");
    if (l->end[0] || l->end[1]) {
        return sim_error_set(err, SIM_EBUSY, "link '%s' is connected already",
                             l->name);
    }
    if (a == b || a->owner == b->owner) {
        return sim_error_set(err, SIM_EINVAL,
                             "link '%s' would join %s to itself", l->name,
                             a->owner->name);
    }
    struct sim_port *ends[2] = { a, b };
    for (int i = 0; i < 2; i++) {
        if (ends[i]->link) {
            return sim_error_set(err, SIM_EBUSY,
                                 "port %s.%s is connected already (to link '%s')",
                                 ends[i]->owner->name, ends[i]->name,
                                 ends[i]->link->name);
        }
    }
    for (int i = 0; i < 2; i++) {
        l->end[i] = ends[i];
        ends[i]->link = l;
        ends[i]->side = (uint8_t)i;
    }
    if (l->ops->connected) {
        return l->ops->connected(l, err);
    }
    return 0;
}

uint32_t sim_link_count(const struct sim *sim) { return sim->n_link; }

struct sim_link *sim_link_at(const struct sim *sim, uint32_t i)
{
    return i < sim->n_link ? sim->link[i] : NULL;
}

struct sim_link *sim_link_find(const struct sim *sim, const char *name)
{
    for (uint32_t i = 0; i < sim->n_link; i++) {
        if (strcmp(sim->link[i]->name, name) == 0) {
            return sim->link[i];
        }
    }
    return NULL;
}

/* ---- the TLP path ---------------------------------------------------------- */

void sim_tlp_release_hold(struct tlp *t)
{
    if (t->holding) {
        t->holding = false;
        t->link->ops->release(t->link, t->link_side, t);
    }
}

int sim_port_send(struct sim_port *out, struct tlp *t)
{
    SIM_ASSERT(out != NULL, "sim_port_send: NULL port");
    SIM_ASSERT(t != NULL, "sim_port_send: NULL TLP on %s.%s", out->owner->name,
               out->name);
    SIM_ASSERT(t->state == TLP_STATE_LIVE,
               "sim_port_send: TLP %llu on %s.%s was freed (use after free)",
               (unsigned long long)t->id, out->owner->name, out->name);
    struct sim_link *l = out->link;
    if (!l) {
        return -SIM_ENOTCONN;
    }
    struct sim_link *prev_link = t->link;
    uint8_t prev_side = t->link_side;
    bool prev_holding = t->holding;
    t->link = l;
    t->link_side = (uint8_t)!out->side;
    t->holding = false;
    int rc = l->ops->transmit(l, out->side, t);
    if (rc < 0) {
        t->link = prev_link;
        t->link_side = prev_side;
        t->holding = prev_holding;
        if (rc == -SIM_EAGAIN) {
            out->wants_ready = true;
        }
        return rc;
    }
    if (prev_holding) {
        prev_link->ops->release(prev_link, prev_side, t);
    }
    struct sim *sim = out->owner->sim;
    if (SIM_TRACE_MASK_HAS(sim->trace_mask, SIM_TP_TLP_TX)) {
        struct sim_trace_record r = {
            .point = SIM_TP_TLP_TX, .component = out->owner->name,
            .port = out->name, .tlp = t,
        };
        sim_trace_emit(sim, &r);
    }
    return 0;
}

void sim_link_deliver(struct sim_link *l, unsigned to, struct tlp *t)
{
    struct sim_port *in = l->end[to];
    SIM_ASSERT(in && in->owner->ops->receive,
               "link '%s' delivered to a port without a receiver", l->name);
    t->hops++;
    l->sim->n_tlp_hops++;
    t->link = l;
    t->link_side = (uint8_t)to;
    t->holding = l->ops->release != NULL;
    struct sim *sim = l->sim;
    if (SIM_TRACE_MASK_HAS(sim->trace_mask, SIM_TP_TLP_RX)) {
        struct sim_trace_record r = {
            .point = SIM_TP_TLP_RX, .component = in->owner->name,
            .port = in->name, .tlp = t,
        };
        sim_trace_emit(sim, &r);
    }
    in->owner->ops->receive(in->owner, in, t);
}

void sim_link_ready(struct sim_link *l, unsigned from)
{
    struct sim_port *p = l->end[from];
    if (p && p->wants_ready) {
        p->wants_ready = false;
        if (p->owner->ops->ready) {
            p->owner->ops->ready(p->owner, p);
        }
    }
}

void sim_trace_component(const struct sim_component *c,
                         enum sim_trace_point p, const char *port,
                         const struct tlp *t, uint64_t a, uint64_t b,
                         const char *msg)
{
    struct sim *sim = c->sim;
    if (!SIM_TRACE_MASK_HAS(sim->trace_mask, p)) {
        return;
    }
    struct sim_trace_record r = {
        .point = p, .component = c->name, .port = port, .tlp = t,
        .a = a, .b = b, .msg = msg,
    };
    sim_trace_emit(sim, &r);
}
