/*
 * sim/props.h - typed property lists that remember where each value came
 * from (file, line, column), so configuration errors point at the source.
 *
 * The topology loader turns a YAML mapping into a struct sim_props; a
 * model's configure() reads it through the typed getters, which parse
 * units strictly and report errors at the value's location. Every key a
 * model asks for is remembered, so sim_props_check_unused() can reject an
 * unknown key and suggest the closest valid one.
 *
 * Getters return 0 when the key is absent and not required (the output is
 * left as the caller's default) or when it was read; a negative SIM_E*
 * code, with err filled, otherwise.
 */
#ifndef P2PSIM_SIM_PROPS_H
#define P2PSIM_SIM_PROPS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"

struct sim_error;

struct sim_mark {
    const char *file;           /* not owned */
    unsigned line;              /* 1-based; 0 = unknown */
    unsigned column;            /* 1-based */
};

struct sim_prop {
    char *key;                  /* owned */
    char *value;                /* owned; scalars only */
    struct sim_mark mark;       /* where the value is */
    struct sim_mark key_mark;   /* where the key is */
    bool used;                  /* a getter read it */
};

struct sim_props {
    const char *owner;          /* "switch 'sw0'", for messages; not owned */
    struct sim_mark where;      /* the mapping itself */
    struct sim_prop *item;
    unsigned n, cap;
    char **asked;               /* every key a getter asked for (owned) */
    unsigned n_asked, cap_asked;
};

#define SIM_PROP_REQUIRED 0x1u

void sim_props_init(struct sim_props *p, const char *owner,
                    const struct sim_mark *where);
void sim_props_fini(struct sim_props *p);

/* Add or replace key. mark/key_mark may be NULL. Returns 0 or -SIM_ENOMEM. */
int sim_props_set(struct sim_props *p, const char *key, const char *value,
                  const struct sim_mark *mark, const struct sim_mark *key_mark);

const struct sim_prop *sim_props_find(const struct sim_props *p,
                                      const char *key);
bool sim_props_has(const struct sim_props *p, const char *key);

int sim_props_get_str(const struct sim_props *p, const char *key,
                      const char **out, unsigned flags, struct sim_error *err);
int sim_props_get_u64(const struct sim_props *p, const char *key,
                      uint64_t *out, uint64_t min, uint64_t max,
                      unsigned flags, struct sim_error *err);
int sim_props_get_bool(const struct sim_props *p, const char *key, bool *out,
                       unsigned flags, struct sim_error *err);
int sim_props_get_time(const struct sim_props *p, const char *key,
                       sim_time_t *out_ps, unsigned flags,
                       struct sim_error *err);
int sim_props_get_size(const struct sim_props *p, const char *key,
                       uint64_t *out_bytes, unsigned flags,
                       struct sim_error *err);
int sim_props_get_rate(const struct sim_props *p, const char *key,
                       uint64_t *out_bytes_per_s, unsigned flags,
                       struct sim_error *err);
int sim_props_get_freq(const struct sim_props *p, const char *key,
                       uint64_t *out_hz, unsigned flags,
                       struct sim_error *err);
/*
 * One of a NULL-terminated list of names; *out is the index. The error
 * lists the legal names.
 */
int sim_props_get_enum(const struct sim_props *p, const char *key,
                       const char *const *names, int *out, unsigned flags,
                       struct sim_error *err);

/*
 * sim_props_expect - record key as a valid key (for "did you mean" hints)
 * without reading it: for keys a caller consumes itself.
 */
void sim_props_expect(const struct sim_props *p, const char *key);

/*
 * sim_props_check_unused - -SIM_ENOENT with "unknown key 'X' in <owner>
 * (did you mean 'Y'?)" at the key, for the first key no getter read.
 */
int sim_props_check_unused(const struct sim_props *p, struct sim_error *err);

/* Report an error at key's value (or at the mapping if key is absent). */
int sim_props_error(const struct sim_props *p, const char *key, int code,
                    struct sim_error *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Levenshtein distance, for "did you mean" hints. */
unsigned sim_edit_distance(const char *a, const char *b);

#endif /* P2PSIM_SIM_PROPS_H */
