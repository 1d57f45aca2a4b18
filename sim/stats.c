/*
 * sim/stats.c - counters and log-linear histograms.
 *
 * The registry is a sorted array searched by bisection: stats are written
 * at report time, not per event, so simplicity wins over a hash table.
 */
#include <config.h>

#include "sim/stats.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

/* ---- histograms ----------------------------------------------------------- */

static unsigned hist_index(uint64_t v)
{
    if (v < 128) {
        return (unsigned)v;
    }
    unsigned e = 63u - (unsigned)__builtin_clzll(v);  /* 7..63 */
    unsigned sub = (unsigned)(v >> (e - 6)) & (SIM_HIST_SUB - 1);
    return 128u + (e - 7u) * SIM_HIST_SUB + sub;
}

/* Smallest and largest value mapping to bucket i. */
static void hist_range(unsigned i, uint64_t *lo, uint64_t *hi)
{
    if (i < 128) {
        *lo = *hi = i;
        return;
    }
    unsigned e = (i - 128u) / SIM_HIST_SUB + 7u;
    unsigned sub = (i - 128u) % SIM_HIST_SUB;
    uint64_t width = UINT64_C(1) << (e - 6);
    *lo = (UINT64_C(1) << e) + sub * width;
    *hi = *lo + (width - 1);
}

void sim_hist_init(struct sim_hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

void sim_hist_fini(struct sim_hist *h)
{
    free(h->bucket);
    h->bucket = NULL;
}

int sim_hist_add(struct sim_hist *h, uint64_t v)
{
    h->count++;
    h->sum += v;
    if (v < h->min) {
        h->min = v;
    }
    if (v > h->max) {
        h->max = v;
    }
    if (!h->bucket) {
        h->bucket = calloc(SIM_HIST_BUCKETS, sizeof(*h->bucket));
        if (!h->bucket) {
            return -SIM_ENOMEM;
        }
    }
    h->bucket[hist_index(v)]++;
    return 0;
}

uint64_t sim_hist_percentile(const struct sim_hist *h, double pct)
{
    if (h->count == 0 || !h->bucket) {
        return 0;
    }
    if (pct <= 0) {
        return h->min;
    }
    if (pct >= 100) {
        return h->max;
    }
    /* nearest rank: the ceil(pct/100 * count)-th smallest sample */
    uint64_t rank = (uint64_t)((pct / 100.0) * (double)h->count + 0.999999999);
    if (rank < 1) {
        rank = 1;
    }
    uint64_t seen = 0;
    for (unsigned i = 0; i < SIM_HIST_BUCKETS; i++) {
        seen += h->bucket[i];
        if (seen >= rank) {
            uint64_t lo, hi;
            hist_range(i, &lo, &hi);
            uint64_t mid = lo + (hi - lo) / 2;
            return mid < h->min ? h->min : mid > h->max ? h->max : mid;
        }
    }
    return h->max;
}

double sim_hist_mean(const struct sim_hist *h)
{
    return h->count ? (double)h->sum / (double)h->count : 0.0;
}

/* ---- registry ---------------------------------------------------------------- */

struct stat_entry {
    char *name;
    enum sim_stat_kind kind;
    uint64_t value;
    struct sim_hist hist;
};

struct sim_stats {
    struct stat_entry *e;
    unsigned n, cap;
};

struct sim_stats *sim_stats_create(void)
{
    return calloc(1, sizeof(struct sim_stats));
}

void sim_stats_destroy(struct sim_stats *s)
{
    if (!s) {
        return;
    }
    for (unsigned i = 0; i < s->n; i++) {
        free(s->e[i].name);
        sim_hist_fini(&s->e[i].hist);
    }
    free(s->e);
    free(s);
}

/* Index of name, or where it would go (with *found false). */
static unsigned bisect(const struct sim_stats *s, const char *name, bool *found)
{
    unsigned lo = 0, hi = s->n;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        int c = strcmp(s->e[mid].name, name);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    *found = false;
    return lo;
}

static struct stat_entry *entry(struct sim_stats *s, const char *name,
                                enum sim_stat_kind kind)
{
    bool found;
    unsigned i = bisect(s, name, &found);
    if (found) {
        SIM_ASSERT(s->e[i].kind == kind,
                   "stat '%s' used both as a counter and as a histogram", name);
        return &s->e[i];
    }
    if (s->n == s->cap) {
        unsigned cap = s->cap ? s->cap * 2 : 32;
        struct stat_entry *n = realloc(s->e, cap * sizeof(*n));
        if (!n) {
            return NULL;
        }
        s->e = n;
        s->cap = cap;
    }
    char *nm = strdup(name);
    if (!nm) {
        return NULL;
    }
    memmove(&s->e[i + 1], &s->e[i], (s->n - i) * sizeof(*s->e));
    s->n++;
    struct stat_entry *e = &s->e[i];
    memset(e, 0, sizeof(*e));
    e->name = nm;
    e->kind = kind;
    sim_hist_init(&e->hist);
    return e;
}

int sim_stats_add(struct sim_stats *s, const char *name, uint64_t v)
{
    struct stat_entry *e = entry(s, name, SIM_STAT_COUNTER);
    if (!e) {
        return -SIM_ENOMEM;
    }
    e->value += v;
    return 0;
}

int sim_stats_addf(struct sim_stats *s, uint64_t v, const char *fmt, ...)
{
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof(name), fmt, ap);
    va_end(ap);
    return sim_stats_add(s, name, v);
}

int sim_stats_set(struct sim_stats *s, const char *name, uint64_t v)
{
    struct stat_entry *e = entry(s, name, SIM_STAT_COUNTER);
    if (!e) {
        return -SIM_ENOMEM;
    }
    e->value = v;
    return 0;
}

bool sim_stats_get(const struct sim_stats *s, const char *name, uint64_t *v)
{
    bool found;
    unsigned i = bisect(s, name, &found);
    if (!found || s->e[i].kind != SIM_STAT_COUNTER) {
        return false;
    }
    *v = s->e[i].value;
    return true;
}

struct sim_hist *sim_stats_hist(struct sim_stats *s, const char *name)
{
    struct stat_entry *e = entry(s, name, SIM_STAT_HIST);
    return e ? &e->hist : NULL;
}

const struct sim_hist *sim_stats_find_hist(const struct sim_stats *s,
                                           const char *name)
{
    bool found;
    unsigned i = bisect(s, name, &found);
    return found && s->e[i].kind == SIM_STAT_HIST ? &s->e[i].hist : NULL;
}

void sim_stats_foreach(const struct sim_stats *s, sim_stats_visit_fn *fn,
                       void *arg)
{
    for (unsigned i = 0; i < s->n; i++) {
        fn(arg, s->e[i].name, s->e[i].kind, s->e[i].value, &s->e[i].hist);
    }
}
