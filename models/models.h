/*
 * models/models.h - the explicit tables of every component and link kind
 * (ROSS's lptype array, SQLite's VFS list; no constructor attributes, so
 * nothing is silently dropped by the linker).
 */
#ifndef P2PSIM_MODELS_MODELS_H
#define P2PSIM_MODELS_MODELS_H

struct sim_component_ops;
struct sim_link_ops;

/* NULL-terminated. */
extern const struct sim_component_ops *const models_components[];
extern const struct sim_link_ops *const models_links[];

const struct sim_component_ops *models_find_component(const char *kind);
const struct sim_link_ops *models_find_link(const char *kind);

#endif /* P2PSIM_MODELS_MODELS_H */
