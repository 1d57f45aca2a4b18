/*
 * tools/replay_int.h - the state of a replay child (replay.h), shared by
 * replay.c (the maps of allocations and stand-ins, the checking pass, the
 * threads and turns) and replay_calls.c (mapping a call's arguments and
 * the handler of each call kind).
 */
#ifndef P2PSIM_TOOLS_REPLAY_INT_H
#define P2PSIM_TOOLS_REPLAY_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "tools/replay.h"


/* A recorded allocation and the replay's. */
struct rp_alloc {
    uint64_t old_base, size;
    char *new_base;
};

/* Pageable host memory the calls touched, and its stand-in. */
struct rp_range {
    uint64_t lo, hi;            /* [lo, hi) recorded addresses */
    char *new_lo;               /* stand-in of lo */
    void *map;                  /* the stand-in's mapping, map_len bytes */
    size_t map_len;
    unsigned line;              /* the first call that used it */
};

struct rp_handles {
    void **h;                   /* by recorded id, below max_id */
    size_t cap;
};

struct rp {
    void *lib;
    const struct replay_request *rq;
    /* The maps below, shared by the replay threads. */
    pthread_mutex_t lock;
    struct rp_alloc *allocs;    /* live, sorted by old_base */
    size_t n_allocs, cap_allocs;
    struct rp_range *ranges;    /* sorted, disjoint */
    size_t n_ranges, cap_ranges;
    struct rp_handles streams, events, pools;
    uint64_t max_id;            /* the largest handle id a trace can hold */
    uint64_t standin_bytes;     /* the stand-ins, page-rounded */
    FILE *map;
    unsigned mismatches, unmapped;
    /* Turns (several threads): calls start in recorded order. */
    pthread_mutex_t turn_lock;
    pthread_cond_t turn_cond;
    size_t started;             /* calls started so far */
    bool last_returned;         /* call started - 1 has returned */
    pid_t last_ostid;           /* the thread that started it */
    pthread_t last_th;
};

/* One recorded thread, replayed by a thread of its own. */
struct rp_thread {
    struct rp *r;
    int tid;                    /* recorded */
    size_t *idx;                /* its calls, indices into rq->calls */
    size_t n, cap;
    pthread_t th;
};


typedef int replay_fn(struct rp *r, const struct trace_api_call *c,
                      void *fn);

/*
 * What is replayed. extent: the pointer arguments that may be pageable
 * host memory and the argument giving their length (NULL: one byte), for
 * the stand-ins.
 */
struct rp_kind {
    const char *name;
    replay_fn *fn;
    const char *ptr1, *len1, *ptr2, *len2;
};

/* replay_calls.c */
const struct rp_kind *rp_kind_find(const char *name);
/* The handlers the checking pass knows allocations by. */
replay_fn rp_h_malloc, rp_h_free;
/* The recorded argument args.KEY (0 if absent), out.KEY, and the replay's
 * stand-in for the pointer args.KEY (NULL, counted, if unmapped). */
int64_t rp_arg(const struct trace_api_call *c, const char *key);
uint64_t rp_out_u64(const struct trace_api_call *c, const char *key);
void *rp_ptr(struct rp *r, const struct trace_api_call *c, const char *key);
/* The id table of a handle kind: 's'treams, 'e'vents, 'p'ools. */
struct rp_handles *rp_handles_of(struct rp *r, char kind);

/* replay.c: the maps (callers hold r->lock where threads share them) */
struct rp_alloc *rp_alloc_find(struct rp *r, uint64_t old);
struct rp_range *rp_range_find(struct rp *r, uint64_t old);
bool rp_alloc_add(struct rp *r, uint64_t old, uint64_t size, void *new_base);
void rp_alloc_remove(struct rp *r, uint64_t old);

#endif /* P2PSIM_TOOLS_REPLAY_INT_H */
