/*
 * machine/topology_int.h - what the files of the machine-file loader share:
 * a parsed YAML document that keeps every node's location, the checked
 * accessors built on it (ydoc_, topology_yaml.c), and the loader's state
 * with the functions its parts give each other (tl_, topology.c and
 * topology_*.c). The loader's files are the only ones that see libyaml.
 */
#ifndef P2PSIM_MACHINE_TOPOLOGY_INT_H
#define P2PSIM_MACHINE_TOPOLOGY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "machine/kinds.h"
#include "sim/props.h"
#include "sim/time.h"

struct fab;
struct sim_error;
struct sim_mark;
struct topo_machine;
struct topo_options;
struct topo_socket;

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
/* Duplicate or unknown keys of m (with the closest valid one) are errors;
 * valid NULL: any plain name. */
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

#define TOPO_MAX_ENTRIES 1024
#define TOPO_MAX_PORTS 64
#define TOPO_TOP_KEYS_MAX 32    /* top-level keys, of the file and its kinds */

/* ---- the machine being loaded (topology.c and topology_*.c) ---------------- */

/* An entry of the machine file: of the kind mk, read by kind (its row's
 * reader, machine/kinds.h). */
struct ent {
    enum mkind_reader kind;
    const struct mkind *mk;
    const char *id;             /* in the document */
    yaml_node_t *n;             /* the entry's mapping */
    yaml_node_t *id_node;
    /* sockets and switches: downstream ports */
    unsigned n_ports;
    const char *port_name[TOPO_MAX_PORTS];
    /* default names "rp3", "dp0": room for any unsigned index, so that no
     * name can be cut short whatever the port limits become */
    char port_buf[TOPO_MAX_PORTS][sizeof "dp4294967295"];
    int child[TOPO_MAX_PORTS];  /* entity index below each port, or -1 */
    uint16_t acs[TOPO_MAX_PORTS];
    /* switches and GPUs: where they hang */
    int parent;                 /* entity index */
    unsigned parent_port;
    yaml_node_t *parent_node;
    /* sockets */
    unsigned n_xs;              /* socket links */
    /* GPUs */
    struct sim_props *gpu_props;
    struct ydoc catalog;
    unsigned max_gen, max_width;
    unsigned nvlinks_used;
    unsigned nvlinks_have;
    bool hidden;                /* a GPU of another VM than the one seen
                                   from (topology_vms.c): not built */
};

struct loader {
    struct ydoc doc;
    const char *dir;            /* the machine file's folder, or NULL */
    const struct topo_options *opt;
    struct sim_error *err;
    yaml_node_t *root, *defaults;
    struct ent ent[TOPO_MAX_ENTRIES];
    unsigned n_ent;
    /* the valid top-level and defaults: keys, with the kinds' (kinds.h) */
    const char *top_keys[TOPO_TOP_KEYS_MAX + 1];
    const char *default_keys[TOPO_TOP_KEYS_MAX + 1];
};

/* topology.c: the loader's helpers */
int tl_find_ent(struct loader *L, const char *id);
/* sim_props_set, with the loader's error out of memory. */
int tl_set_prop(struct loader *L, struct sim_props *p, const char *key,
                const char *value, const struct sim_mark *m);
int tl_parse_count(struct loader *L, yaml_node_t *n, const char *what,
                   uint64_t min, uint64_t max, uint64_t *out);
unsigned tl_prop_uint(const struct sim_props *p, const char *key,
                      unsigned def);
struct sim_props *tl_new_props(struct loader *L, const char *owner,
                               yaml_node_t *where);
void tl_free_props(struct sim_props *p);
int tl_set_num(struct sim_props *p, const char *key, unsigned v);
/* between: [a, b] of entry e: two distinct ids, into out. */
int tl_check_pair(struct loader *L, yaml_node_t *e, const char *what,
                  int out[2]);
int tl_map_time(struct loader *L, yaml_node_t *v, const char *section,
                const char *key, const char *example, sim_time_t max_ps,
                const char *max_text, const char *too_big_hint,
                sim_time_t *ps);

/* What e is called in errors ("GPU", "switch", or its kind's name). */
const char *tl_noun(const struct ent *e);

/* topology_pcie.c: sockets, switches, endpoints below ports, parents,
 * PCIe and socket links */
int tl_socket_ports(struct loader *L, struct ent *s);
int tl_switch_ports(struct loader *L, struct ent *w);
int tl_resolve_parent(struct loader *L, struct ent *e, bool explicit_pass);
int tl_check_loops(struct loader *L);
int tl_link_props(struct loader *L, struct ent *e, struct sim_props *p);
int tl_check_socket_links(struct loader *L);
int tl_build_socket(struct loader *L, struct fab *f, struct ent *s,
                    struct topo_socket *ts);
int tl_build_device(struct loader *L, struct fab *f, struct ent *e);
int tl_build_links(struct loader *L, struct fab *f);
int tl_build_socket_links(struct loader *L, struct fab *f);

/* topology_gpu.c: a GPU's catalog entry and properties */
int tl_gpu_setup(struct loader *L, struct ent *g);

/* topology_nvlink.c */
int tl_check_nvlinks(struct loader *L, struct topo_machine *m);
int tl_build_nvswitch(struct loader *L, struct fab *f, struct ent *e);
int tl_build_nvlinks(struct loader *L, struct fab *f);
int tl_parse_nvlink_power(struct loader *L, struct topo_machine *m);

/* topology_kept.c (the sections kept for the layers above), topology_vm.c */
int tl_keep_sections(struct loader *L, struct topo_machine *m);
void topo_kept_free(struct topo_machine *m);
int tl_parse_virtual_machine(struct loader *L, struct topo_machine *m);
/* topology_vms.c: the host's VMs (vms:), and the view of one of them */
int tl_parse_vms(struct loader *L, struct topo_machine *m);
int tl_build_vms(struct loader *L, struct topo_machine *m);
/* After the build: each VM's memory window's bus address. */
void tl_vms_placed(struct topo_machine *m);

#endif /* P2PSIM_MACHINE_TOPOLOGY_INT_H */
