/*
 * machine/topology_int.h - what the files of the machine-file loader share:
 * a parsed YAML document that keeps every node's location, and the checked
 * accessors built on it. With topology.c and topology_yaml.c, the only
 * files of models/ that see libyaml.
 */
#ifndef P2PSIM_MACHINE_TOPOLOGY_INT_H
#define P2PSIM_MACHINE_TOPOLOGY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "sim/props.h"

struct sim_error;

struct ydoc {
    yaml_document_t doc;
    const char *file;           /* interned */
    bool loaded;
    /* Nodes the parser made; nodes after them were added by overrides
     * (topology_override.c) and carry marks in YDOC_OVERRIDE_ORIGIN. */
    size_t n_parsed;
};

/* Where errors at nodes made by overrides point: "--set:N:C", override N
 * (1-based, as the lines of topo_options.overrides), column C. */
#define YDOC_OVERRIDE_ORIGIN "--set"

/* A copy of s that lives as long as the process (error marks point at it). */
const char *ydoc_intern(const char *s);

/* Parse text; errors (YAML syntax) at their line:column in file. */
int ydoc_doc_parse(struct ydoc *d, const char *file, const char *text,
                   size_t len, struct sim_error *err);
void ydoc_doc_free(struct ydoc *d);

yaml_node_t *ydoc_node(struct ydoc *d, int i);
struct sim_mark ydoc_mark_of(const struct ydoc *d, const yaml_node_t *n);
/* Record an error at node n; returns -code. */
int ydoc_err_at(struct ydoc *d, const yaml_node_t *n, struct sim_error *err,
                int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The text of a scalar node, or NULL. */
const char *ydoc_scalar(const yaml_node_t *n);
const char *ydoc_kind_name(const yaml_node_t *n);
/* n must be of type t ("what must be a list, not a value"). */
int ydoc_expect(struct ydoc *d, const yaml_node_t *n, yaml_node_type_t t,
                const char *what, struct sim_error *err);
/* The value of key in mapping m, or NULL. */
yaml_node_t *ydoc_get(struct ydoc *d, yaml_node_t *m, const char *key);
/* Duplicate or unknown keys of m (with the closest valid one) are errors. */
int ydoc_check_keys(struct ydoc *d, yaml_node_t *m, const char *const *valid,
                    const char *what, struct sim_error *err);
/* m's scalar entries into props with their marks, except the keys in skip. */
int ydoc_add_props(struct ydoc *d, yaml_node_t *m, struct sim_props *props,
                   const char *const *skip, const char *what,
                   struct sim_error *err);
/* "16GT/s" -> "4" in buf, or an error at n. */
int ydoc_speed_to_gen(struct ydoc *d, yaml_node_t *n, struct sim_error *err,
                      char *buf, size_t len);
/*
 * Apply overrides ("path=value" lines, topologies/SCHEMA.md "Overrides")
 * to a parsed document, before the loader reads it. Errors in a path are
 * reported at "--set:N:C"; the nodes added carry such marks too.
 */
int ydoc_apply_overrides(struct ydoc *d, const char *overrides,
                         struct sim_error *err);
/* The whole file, NUL-terminated (caller frees), or NULL. */
char *ydoc_read_file(const char *path, size_t *len);

#endif /* P2PSIM_MACHINE_TOPOLOGY_INT_H */
