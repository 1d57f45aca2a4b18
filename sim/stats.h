/*
 * sim/stats.h - a registry of named counters and histograms.
 *
 * Models fill one in their report() op; tools print or plot it. Names are
 * dotted paths ("sw0.port2.tlps_out"). Histograms are log-linear: exact
 * below 128, then 64 sub-buckets per power of two, so any percentile is
 * within 1/64 (1.6%) of the true value; they take any uint64_t.
 */
#ifndef P2PSIM_SIM_STATS_H
#define P2PSIM_SIM_STATS_H

#include <stdbool.h>
#include <stdint.h>

#define SIM_HIST_SUB 64u
#define SIM_HIST_BUCKETS (128u + 57u * SIM_HIST_SUB)

struct sim_hist {
    uint64_t count;
    uint64_t min, max;
    __uint128_t sum;
    uint64_t *bucket;           /* SIM_HIST_BUCKETS counts, allocated lazily */
};

void sim_hist_init(struct sim_hist *h);
void sim_hist_fini(struct sim_hist *h);
/* Returns 0 or -SIM_ENOMEM (the sample is then counted in min/max/mean only). */
int sim_hist_add(struct sim_hist *h, uint64_t v);
/*
 * sim_hist_percentile - the value below which pct percent of the samples
 * lie (pct in [0, 100]); the nearest-rank definition, answered with the
 * midpoint of the bucket, clamped to [min, max]. 0 for an empty histogram.
 */
uint64_t sim_hist_percentile(const struct sim_hist *h, double pct);
double sim_hist_mean(const struct sim_hist *h);

struct sim_stats;

enum sim_stat_kind { SIM_STAT_COUNTER, SIM_STAT_HIST };

struct sim_stats *sim_stats_create(void);
void sim_stats_destroy(struct sim_stats *s);

/* counter name += v (created at 0). Returns 0 or -SIM_ENOMEM. */
int sim_stats_add(struct sim_stats *s, const char *name, uint64_t v);
int sim_stats_set(struct sim_stats *s, const char *name, uint64_t v);
/* sim_stats_add with the name printf-formatted (at most 255 bytes kept),
 * as models report "<component>.<port>.<counter>". */
int sim_stats_addf(struct sim_stats *s, uint64_t v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool sim_stats_get(const struct sim_stats *s, const char *name, uint64_t *v);
/* The histogram called name, created empty if needed; NULL on ENOMEM. */
struct sim_hist *sim_stats_hist(struct sim_stats *s, const char *name);
const struct sim_hist *sim_stats_find_hist(const struct sim_stats *s,
                                           const char *name);

typedef void sim_stats_visit_fn(void *arg, const char *name,
                                enum sim_stat_kind kind, uint64_t value,
                                const struct sim_hist *hist);
/* Visit every entry in name order. */
void sim_stats_foreach(const struct sim_stats *s, sim_stats_visit_fn *fn,
                       void *arg);

#endif /* P2PSIM_SIM_STATS_H */
