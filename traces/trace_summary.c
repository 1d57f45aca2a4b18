/*
 * traces/trace_summary.c - `p2psim trace summarize`: what a fabric trace
 * says per link direction, per copy engine, per TLP kind and per event.
 *
 * Utilisation of a link direction is its payload bytes over what its rate
 * carries in the traced span (first record's start to last record's end):
 * payload only, so even a saturated link shows less than 100% (headers,
 * DLLPs and encoding take the rest).
 * Latency of a TLP: from when it was created to when its last traced hop
 * delivered it. With a component filter at record time only some hops
 * are traced, and the latency ends at the last of those.
 *
 * Cost: one pass; a table entry per track and per TLP (a hash table of
 * about 40 bytes per TLP traced).
 */
#include <config.h>

#include "traces/format.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SUM_BUCKETS 32          /* latency buckets: [2^(i-1), 2^i) ns */

struct sum_track {
    char name[TRACE_NAME_LEN];
    enum trace_rec_type type;
    uint64_t bytes, n, rate, busy_ps;
};

struct sum_kind {
    char name[TRACE_KIND_LEN];
    uint64_t n, sum_ps, min_ps, max_ps;
    uint64_t bucket[SUM_BUCKETS];
};

struct sum_tlp {
    bool used;
    uint64_t id;
    uint64_t created, end;
    unsigned kind;
};

struct summary {
    struct sum_track *track;
    unsigned n_track, cap_track;
    struct sum_kind *kind;
    unsigned n_kind, cap_kind;
    struct sum_kind *event;     /* counts only */
    unsigned n_event, cap_event;
    struct sum_tlp *tlp;
    size_t n_tlp, cap_tlp;      /* cap: a power of two */
    uint64_t t0, t1, records;
    bool oom;
    bool overflow;              /* a sum passed 64 bits */
};

/* *sum += v, or note that it does not fit. */
static void sum_add(struct summary *s, uint64_t *sum, uint64_t v)
{
    s->overflow |= __builtin_add_overflow(*sum, v, sum);
}

static void *grow(void *p, unsigned *cap, size_t elem)
{
    unsigned c = *cap ? 2 * *cap : 16;
    void *n = realloc(p, c * elem);
    if (n) {
        *cap = c;
    }
    return n;
}

static struct sum_track *find_track(struct summary *s, const char *name,
                                    enum trace_rec_type type)
{
    for (unsigned i = 0; i < s->n_track; i++) {
        if (s->track[i].type == type && !strcmp(s->track[i].name, name)) {
            return &s->track[i];
        }
    }
    if (s->n_track == s->cap_track) {
        void *n = grow(s->track, &s->cap_track, sizeof(*s->track));
        if (!n) {
            return NULL;
        }
        s->track = n;
    }
    struct sum_track *t = &s->track[s->n_track++];
    memset(t, 0, sizeof(*t));
    TRACE_SET(t->name, name);
    t->type = type;
    return t;
}

static int find_kind(struct sum_kind **list, unsigned *n, unsigned *cap,
                     const char *name)
{
    for (unsigned i = 0; i < *n; i++) {
        if (!strcmp((*list)[i].name, name)) {
            return (int)i;
        }
    }
    if (*n == *cap) {
        void *g = grow(*list, cap, sizeof(**list));
        if (!g) {
            return -1;
        }
        *list = g;
    }
    memset(&(*list)[*n], 0, sizeof(**list));
    TRACE_SET((*list)[*n].name, name);
    (*list)[*n].min_ps = UINT64_MAX;
    return (int)(*n)++;
}

static size_t slot_of(uint64_t id, size_t cap)
{
    return (size_t)((id * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (cap - 1);
}

static struct sum_tlp *find_tlp(struct summary *s, uint64_t id)
{
    if (2 * (s->n_tlp + 1) > s->cap_tlp) {
        size_t cap = s->cap_tlp ? 2 * s->cap_tlp : 1024;
        struct sum_tlp *t = calloc(cap, sizeof(*t));
        if (!t) {
            return NULL;
        }
        for (size_t i = 0; i < s->cap_tlp; i++) {
            if (s->tlp[i].used) {
                size_t k = slot_of(s->tlp[i].id, cap);
                while (t[k].used) {
                    k = (k + 1) & (cap - 1);
                }
                t[k] = s->tlp[i];
            }
        }
        free(s->tlp);
        s->tlp = t;
        s->cap_tlp = cap;
    }
    size_t k = slot_of(id, s->cap_tlp);
    while (s->tlp[k].used && s->tlp[k].id != id) {
        k = (k + 1) & (s->cap_tlp - 1);
    }
    if (!s->tlp[k].used) {
        s->tlp[k].used = true;
        s->tlp[k].id = id;
        s->tlp[k].created = UINT64_MAX;
        s->n_tlp++;
    }
    return &s->tlp[k];
}

static void add(struct summary *s, const struct trace_rec *r)
{
    uint64_t end = r->t_ps + r->dur_ps;
    if (s->records++ == 0 || r->t_ps < s->t0) {
        s->t0 = r->t_ps;
    }
    if (end > s->t1) {
        s->t1 = end;
    }
    if (r->type == TRACE_REC_EVENT) {
        int k = find_kind(&s->event, &s->n_event, &s->cap_event, r->kind);
        s->oom |= k < 0;
        if (k >= 0) {
            s->event[k].n++;
        }
        return;
    }
    struct sum_track *t = find_track(s, r->track, r->type);
    if (!t) {
        s->oom = true;
        return;
    }
    t->n++;
    sum_add(s, &t->bytes, r->bytes);
    sum_add(s, &t->busy_ps, r->dur_ps);
    if (r->rate) {
        t->rate = r->rate;
    }
    if (r->type != TRACE_REC_HOP) {
        return;
    }
    int k = find_kind(&s->kind, &s->n_kind, &s->cap_kind, r->kind);
    struct sum_tlp *tl = k < 0 ? NULL : find_tlp(s, r->id);
    if (!tl) {
        s->oom = true;
        return;
    }
    tl->kind = (unsigned)k;
    if (r->t_created_ps < tl->created) {
        tl->created = r->t_created_ps;
    }
    if (end > tl->end) {
        tl->end = end;
    }
}

static void latencies(struct summary *s)
{
    for (size_t i = 0; i < s->cap_tlp; i++) {
        const struct sum_tlp *t = &s->tlp[i];
        if (!t->used) {
            continue;
        }
        struct sum_kind *k = &s->kind[t->kind];
        uint64_t lat = t->end > t->created ? t->end - t->created : 0;
        unsigned b = 0;
        for (uint64_t ns = lat / 1000; ns && b < SUM_BUCKETS - 1; ns >>= 1) {
            b++;
        }
        k->bucket[b]++;
        k->n++;
        sum_add(s, &k->sum_ps, lat);
        k->min_ps = lat < k->min_ps ? lat : k->min_ps;
        k->max_ps = lat > k->max_ps ? lat : k->max_ps;
    }
}

static void print(const struct summary *s, FILE *out)
{
    double span_s = (double)(s->t1 - s->t0) * 1e-12;
    fprintf(out, "records: %" PRIu64 ", span %.3f us (%.3f us to %.3f us)\n",
            s->records, span_s * 1e6, (double)s->t0 * 1e-6,
            (double)s->t1 * 1e-6);
    fprintf(out, "\nlinks (one line per direction):\n");
    fprintf(out, "  %-44s %14s %10s %8s\n", "link", "bytes", "TLPs", "util");
    for (unsigned i = 0; i < s->n_track; i++) {
        const struct sum_track *t = &s->track[i];
        if (t->type != TRACE_REC_HOP) {
            continue;
        }
        fprintf(out, "  %-44s %14" PRIu64 " %10" PRIu64, t->name, t->bytes,
                t->n);
        if (t->rate && span_s > 0) {
            fprintf(out, " %7.1f%%",
                    100.0 * (double)t->bytes / ((double)t->rate * span_s));
        } else {
            fprintf(out, " %8s", "-");
        }
        fputc('\n', out);
    }
    fprintf(out, "\ncopy engines and flows:\n");
    fprintf(out, "  %-44s %14s %10s %12s\n", "engine", "bytes", "ops",
            "busy us");
    for (unsigned i = 0; i < s->n_track; i++) {
        const struct sum_track *t = &s->track[i];
        if (t->type == TRACE_REC_OP) {
            fprintf(out, "  %-44s %14" PRIu64 " %10" PRIu64 " %12.3f\n",
                    t->name, t->bytes, t->n, (double)t->busy_ps * 1e-6);
        }
    }
    fprintf(out, "\nTLP latency, created to delivered (ns):\n");
    for (unsigned i = 0; i < s->n_kind; i++) {
        const struct sum_kind *k = &s->kind[i];
        if (!k->n) {
            continue;
        }
        fprintf(out, "  %-8s %10" PRIu64 " TLPs  min %.1f  mean %.1f  max "
                     "%.1f\n", k->name, k->n, (double)k->min_ps * 1e-3,
                (double)k->sum_ps / (double)k->n * 1e-3,
                (double)k->max_ps * 1e-3);
        for (unsigned b = 0; b < SUM_BUCKETS; b++) {
            if (k->bucket[b]) {
                uint64_t lo = b ? UINT64_C(1) << (b - 1) : 0;
                fprintf(out, "    [%8" PRIu64 ", %8" PRIu64 ") %10" PRIu64
                             "\n", lo, UINT64_C(1) << b, k->bucket[b]);
            }
        }
    }
    fprintf(out, "\nevents:\n");
    if (!s->n_event) {
        fprintf(out, "  none\n");
    }
    for (unsigned i = 0; i < s->n_event; i++) {
        fprintf(out, "  %-20s %10" PRIu64 "\n", s->event[i].name,
                s->event[i].n);
    }
}

int trace_summarize(struct trace_reader *r, FILE *out, char *err,
                    size_t err_size)
{
    struct summary s = { 0 };
    struct trace_rec rec;
    int rc;
    while ((rc = trace_reader_next(r, &rec, err, err_size)) == 1 && !s.oom) {
        add(&s, &rec);
    }
    if (s.oom) {
        snprintf(err, err_size, "out of memory");
        rc = -1;
    }
    if (rc == 0) {
        latencies(&s);
    }
    if (rc == 0 && s.overflow) {
        /* Only a made-up trace sums past 2^64 bytes or picoseconds. */
        snprintf(err, err_size, "the totals of bytes or time pass 64 bits");
        rc = -1;
    }
    if (rc == 0) {
        print(&s, out);
    }
    free(s.track);
    free(s.kind);
    free(s.event);
    free(s.tlp);
    return rc < 0 ? -1 : 0;
}
