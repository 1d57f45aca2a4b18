/*
 * models/models.h - the explicit table of every link kind (ROSS's lptype
 * array, SQLite's VFS list; no constructor attributes, so nothing is
 * silently dropped by the linker). Component kinds: machine/kinds.h.
 */
#ifndef P2PSIM_MODELS_MODELS_H
#define P2PSIM_MODELS_MODELS_H

struct sim_link_ops;

/* NULL-terminated. */
extern const struct sim_link_ops *const models_links[];

const struct sim_link_ops *models_find_link(const char *kind);

#endif /* P2PSIM_MODELS_MODELS_H */
