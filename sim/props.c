/*
 * sim/props.c - property lists with source marks.
 *
 * Getters are declared const on the list because reading does not change
 * the configuration; they do record which keys were read and asked for
 * (bookkeeping for the unknown-key check), hence the casts below.
 */
#include <config.h>

#include "sim/props.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "sim/units.h"

void sim_props_init(struct sim_props *p, const char *owner,
                    const struct sim_mark *where)
{
    memset(p, 0, sizeof(*p));
    p->owner = owner ? owner : "component";
    if (where) {
        p->where = *where;
    }
}

void sim_props_fini(struct sim_props *p)
{
    for (unsigned i = 0; i < p->n; i++) {
        free(p->item[i].key);
        free(p->item[i].value);
    }
    for (unsigned i = 0; i < p->n_asked; i++) {
        free(p->asked[i]);
    }
    free(p->item);
    free(p->asked);
    memset(p, 0, sizeof(*p));
}

int sim_props_set(struct sim_props *p, const char *key, const char *value,
                  const struct sim_mark *mark, const struct sim_mark *key_mark)
{
    struct sim_prop *it = (struct sim_prop *)sim_props_find(p, key);
    char *v = strdup(value);
    if (!v) {
        return -SIM_ENOMEM;
    }
    if (!it) {
        if (p->n == p->cap) {
            unsigned cap = p->cap ? p->cap * 2 : 8;
            struct sim_prop *n = realloc(p->item, cap * sizeof(*n));
            if (!n) {
                free(v);
                return -SIM_ENOMEM;
            }
            p->item = n;
            p->cap = cap;
        }
        it = &p->item[p->n];
        memset(it, 0, sizeof(*it));
        if (!(it->key = strdup(key))) {
            free(v);
            return -SIM_ENOMEM;
        }
        p->n++;
    }
    free(it->value);
    it->value = v;
    it->mark = mark ? *mark : p->where;
    it->key_mark = key_mark ? *key_mark : it->mark;
    return 0;
}

const struct sim_prop *sim_props_find(const struct sim_props *p,
                                      const char *key)
{
    for (unsigned i = 0; i < p->n; i++) {
        if (strcmp(p->item[i].key, key) == 0) {
            return &p->item[i];
        }
    }
    return NULL;
}

bool sim_props_has(const struct sim_props *p, const char *key)
{
    return sim_props_find(p, key) != NULL;
}

static void note_asked(const struct sim_props *cp, const char *key)
{
    struct sim_props *p = (struct sim_props *)cp;
    for (unsigned i = 0; i < p->n_asked; i++) {
        if (strcmp(p->asked[i], key) == 0) {
            return;
        }
    }
    if (p->n_asked == p->cap_asked) {
        unsigned cap = p->cap_asked ? p->cap_asked * 2 : 16;
        char **n = realloc(p->asked, cap * sizeof(*n));
        if (!n) {
            return; /* only the hint is lost */
        }
        p->asked = n;
        p->cap_asked = cap;
    }
    char *k = strdup(key);
    if (k) {
        p->asked[p->n_asked++] = k;
    }
}

void sim_props_expect(const struct sim_props *p, const char *key)
{
    note_asked(p, key);
}

int sim_props_error(const struct sim_props *p, const char *key, int code,
                    struct sim_error *err, const char *fmt, ...)
{
    const struct sim_prop *it = key ? sim_props_find(p, key) : NULL;
    struct sim_mark m = it ? it->mark : p->where;
    va_list ap;
    va_start(ap, fmt);
    int rc = sim_error_vset_at(err, code, m.file, m.line, m.column, fmt, ap);
    va_end(ap);
    return rc;
}

/* Common lookup: NULL if absent (error if required). */
static const struct sim_prop *lookup(const struct sim_props *p,
                                     const char *key, unsigned flags,
                                     const char *what, int *rc,
                                     struct sim_error *err)
{
    note_asked(p, key);
    *rc = 0;
    struct sim_prop *it = (struct sim_prop *)sim_props_find(p, key);
    if (!it) {
        if (flags & SIM_PROP_REQUIRED) {
            *rc = sim_error_set_at(err, SIM_ENOENT, p->where.file,
                                   p->where.line, p->where.column,
                                   "%s needs '%s' (%s)", p->owner, key, what);
        }
        return NULL;
    }
    it->used = true;
    return it;
}

static int parse_error(const struct sim_prop *it, const struct sim_props *p,
                       int rc, const char *why, struct sim_error *err)
{
    return sim_error_set_at(err, -rc, it->mark.file, it->mark.line,
                            it->mark.column, "%s: %s: %s", p->owner, it->key,
                            why);
}

int sim_props_get_str(const struct sim_props *p, const char *key,
                      const char **out, unsigned flags, struct sim_error *err)
{
    int rc;
    const struct sim_prop *it = lookup(p, key, flags, "a string", &rc, err);
    if (it) {
        *out = it->value;
    }
    return rc;
}

int sim_props_get_u64(const struct sim_props *p, const char *key,
                      uint64_t *out, uint64_t min, uint64_t max,
                      unsigned flags, struct sim_error *err)
{
    int rc;
    const struct sim_prop *it = lookup(p, key, flags, "an integer", &rc, err);
    if (!it) {
        return rc;
    }
    char why[192];
    uint64_t v;
    rc = sim_parse_u64(it->value, &v, why, sizeof(why));
    if (rc < 0) {
        return parse_error(it, p, rc, why, err);
    }
    if (v < min || v > max) {
        return sim_error_set_at(err, SIM_ERANGE, it->mark.file, it->mark.line,
                                it->mark.column,
                                "%s: %s: %llu is out of range (%llu to %llu)",
                                p->owner, key, (unsigned long long)v,
                                (unsigned long long)min,
                                (unsigned long long)max);
    }
    *out = v;
    return 0;
}

int sim_props_get_bool(const struct sim_props *p, const char *key, bool *out,
                       unsigned flags, struct sim_error *err)
{
    static const char *const yes[] = { "true", "yes", "on", NULL };
    static const char *const no[] = { "false", "no", "off", NULL };
    int rc;
    const struct sim_prop *it = lookup(p, key, flags, "true or false", &rc,
                                       err);
    if (!it) {
        return rc;
    }
    for (int i = 0; yes[i]; i++) {
        if (strcmp(it->value, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcmp(it->value, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return sim_error_set_at(err, SIM_ESYNTAX, it->mark.file, it->mark.line,
                            it->mark.column,
                            "%s: %s: '%s' is not a boolean (use true or false)",
                            p->owner, key, it->value);
}

typedef int parse_fn(const char *s, uint64_t *out, char *why, size_t n);

static int get_unit(const struct sim_props *p, const char *key, uint64_t *out,
                    unsigned flags, const char *what, parse_fn *parse,
                    struct sim_error *err)
{
    int rc;
    const struct sim_prop *it = lookup(p, key, flags, what, &rc, err);
    if (!it) {
        return rc;
    }
    char why[256];
    rc = parse(it->value, out, why, sizeof(why));
    return rc < 0 ? parse_error(it, p, rc, why, err) : 0;
}

int sim_props_get_time(const struct sim_props *p, const char *key,
                       sim_time_t *out, unsigned flags, struct sim_error *err)
{
    return get_unit(p, key, out, flags, "a time such as 150ns", sim_parse_time,
                    err);
}

int sim_props_get_size(const struct sim_props *p, const char *key,
                       uint64_t *out, unsigned flags, struct sim_error *err)
{
    return get_unit(p, key, out, flags, "a size such as 256B or 64GiB",
                    sim_parse_size, err);
}

int sim_props_get_rate(const struct sim_props *p, const char *key,
                       uint64_t *out, unsigned flags, struct sim_error *err)
{
    return get_unit(p, key, out, flags, "a rate such as 25GB/s",
                    sim_parse_rate, err);
}

int sim_props_get_freq(const struct sim_props *p, const char *key,
                       uint64_t *out, unsigned flags, struct sim_error *err)
{
    return get_unit(p, key, out, flags, "a frequency such as 1980MHz",
                    sim_parse_freq, err);
}

int sim_props_get_enum(const struct sim_props *p, const char *key,
                       const char *const *names, int *out, unsigned flags,
                       struct sim_error *err)
{
    int rc;
    const struct sim_prop *it = lookup(p, key, flags, "one of a list", &rc,
                                       err);
    if (!it) {
        return rc;
    }
    char legal[256] = "";
    size_t used = 0;
    for (int i = 0; names[i]; i++) {
        if (strcmp(names[i], it->value) == 0) {
            *out = i;
            return 0;
        }
        int w = snprintf(legal + used, sizeof(legal) - used, "%s%s",
                         i ? ", " : "", names[i]);
        if (w > 0 && (size_t)w < sizeof(legal) - used) {
            used += (size_t)w;
        }
    }
    return sim_error_set_at(err, SIM_EINVAL, it->mark.file, it->mark.line,
                            it->mark.column,
                            "%s: %s: '%s' is not one of: %s", p->owner, key,
                            it->value, legal);
}

unsigned sim_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) {
        return 99;
    }
    unsigned row[65];
    for (size_t j = 0; j <= lb; j++) {
        row[j] = (unsigned)j;
    }
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned cost = a[i - 1] == b[j - 1] ? 0 : 1;
            unsigned best = diag + cost;
            if (row[j] + 1 < best) {
                best = row[j] + 1;
            }
            if (row[j - 1] + 1 < best) {
                best = row[j - 1] + 1;
            }
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

int sim_props_check_unused(const struct sim_props *p, struct sim_error *err)
{
    for (unsigned i = 0; i < p->n; i++) {
        const struct sim_prop *it = &p->item[i];
        if (it->used) {
            continue;
        }
        const char *best = NULL;
        unsigned best_d = 99;
        for (unsigned k = 0; k < p->n_asked; k++) {
            unsigned d = sim_edit_distance(it->key, p->asked[k]);
            if (d < best_d) {
                best_d = d;
                best = p->asked[k];
            }
        }
        if (best && best_d <= 3) {
            return sim_error_set_at(err, SIM_ENOENT, it->key_mark.file,
                                    it->key_mark.line, it->key_mark.column,
                                    "unknown key '%s' in %s (did you mean "
                                    "'%s'?)", it->key, p->owner, best);
        }
        return sim_error_set_at(err, SIM_ENOENT, it->key_mark.file,
                                it->key_mark.line, it->key_mark.column,
                                "unknown key '%s' in %s", it->key, p->owner);
    }
    return 0;
}
