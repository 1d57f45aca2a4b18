/*
 * sim/component.h - components: a model's ops table plus the state the
 * core allocates for it (ROSS's lptype and state_sz).
 *
 * A model is a small vtable; the core owns struct sim_component, allocates
 * state_size zeroed bytes for the model and frees them. Models never call
 * each other: they exchange TLPs through ports (sim/port.h).
 */
#ifndef P2PSIM_SIM_COMPONENT_H
#define P2PSIM_SIM_COMPONENT_H

#include <stddef.h>
#include <stdint.h>

struct sim;
struct sim_error;
struct sim_port;
struct sim_props;
struct sim_stats;
struct sim_component;
struct tlp;

struct sim_component_ops {
    const char *kind;           /* the YAML kind: string, e.g. "pcie-switch" */
    size_t state_size;          /* bytes of model state, allocated zeroed */
    /* Validate and apply properties; add ports. QEMU's realize. */
    int (*configure)(struct sim_component *c, const struct sim_props *props,
                     struct sim_error *err);
    /* Architectural reset (optional). */
    void (*reset)(struct sim_component *c);
    /* A TLP arrives on port in; the model now owns it. */
    void (*receive)(struct sim_component *c, struct sim_port *in,
                    struct tlp *t);
    /* Port out, which refused a send, can accept again (optional). */
    void (*ready)(struct sim_component *c, struct sim_port *out);
    /* Add counters to out (optional). */
    void (*report)(const struct sim_component *c, struct sim_stats *out);
    /* Release what configure acquired (optional; state is freed by the core). */
    void (*destroy)(struct sim_component *c);
};

struct sim_component {
    char *name;                 /* unique in the simulation, owned */
    const struct sim_component_ops *ops;
    struct sim *sim;
    void *state;                /* ops->state_size bytes, owned by the core */
    struct sim_port **port;     /* ports in the order added */
    uint32_t n_ports;
    uint32_t cap_ports;
    uint32_t id;                /* index in creation order */
};

/*
 * sim_component_create - a component of the given kind named name.
 * Returns NULL and fills err if the name is taken or memory runs out.
 * The simulation owns the component; sim_destroy() frees it.
 */
struct sim_component *sim_component_create(struct sim *sim,
                                           const struct sim_component_ops *ops,
                                           const char *name,
                                           struct sim_error *err);

int sim_component_configure(struct sim_component *c,
                            const struct sim_props *props,
                            struct sim_error *err);
void sim_component_reset(struct sim_component *c);
void sim_component_report(const struct sim_component *c,
                          struct sim_stats *out);

struct sim_component *sim_component_find(const struct sim *sim,
                                         const char *name);
uint32_t sim_component_count(const struct sim *sim);
struct sim_component *sim_component_at(const struct sim *sim, uint32_t i);

static inline void *sim_component_state(const struct sim_component *c)
{
    return c->state;
}

/*
 * sim_component_nomem - c could not allocate what (a short noun phrase,
 * "a completion"): fails c's simulation, naming c and the simulated time
 * (sim_fail_nomem in sim/sim.h). Returns -SIM_ENOMEM. The model then gives
 * up the operation (freeing what it holds) and returns.
 */
int sim_component_nomem(struct sim_component *c, const char *what);

/* Find kind in a NULL-terminated table of ops (models/models.c keeps one). */
const struct sim_component_ops *
sim_component_ops_find(const struct sim_component_ops *const *table,
                       const char *kind);

#endif /* P2PSIM_SIM_COMPONENT_H */
