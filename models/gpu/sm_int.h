/*
 * models/gpu/sm_int.h - what the files of the SM model share (sm.c: issue,
 * the FIFO of TLPs to be, completions; sm_wc.c: the write-combining
 * buffer); nothing outside models/gpu/sm*.c includes it.
 */
#ifndef P2PSIM_MODELS_GPU_SM_INT_H
#define P2PSIM_MODELS_GPU_SM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/gpu/gpu_int.h"
#include "models/gpu/sm.h"
#include "sim/event.h"
#include "sim/time.h"
#include "sim/tlp.h"

#define SM_MAX_TARGETS 32u      /* destinations one FLUSH reads back */
/* Destinations are told apart at this granularity of bus address: a BAR1
 * or a host range is far larger, so one read per region covers a path. */
#define SM_TARGET_SHIFT 28

/* A write-combining line. */
struct sm_line {
    bool used;
    uint64_t base;              /* bus address, line-aligned */
    sim_time_t t_alloc;         /* ps: first byte written */
    uint8_t data[GPU_SM_LINE_BYTES];
    uint8_t mask[GPU_SM_LINE_BYTES];  /* 1: byte written */
    unsigned n_bytes;
    struct gpu_sm_req *stores;  /* merged, waiting to leave */
};

/* A TLP to be: what the SM FIFO holds until the egress takes it. */
struct sm_out {
    struct sm_out *next;
    struct sm_state *st;
    enum tlp_kind kind;
    unsigned sm;
    uint64_t addr;
    uint32_t len;
    uint8_t data[16];           /* AtomicOp operands */
    uint8_t *wdata;             /* MWr payload (owned), len bytes */
    struct gpu_sm_req *req;     /* LOAD, ATOMIC, FLUSH it serves */
    bool flush;                 /* zero-length read of a FLUSH */
    uint32_t got;               /* completion bytes so far */
    struct sm_out *live_prev, *live_next; /* every sm_out not yet freed */
};

struct sm_unit {
    sim_time_t lsu_free;        /* ps: the issue slot is free from */
    unsigned outstanding;       /* non-posted TLPs in flight */
    struct sm_line *wc;         /* wc_lines */
    struct sim_event wc_ev;     /* the oldest line's timeout */
    struct { uint64_t key, addr; } written[SM_MAX_TARGETS];
    unsigned n_written;
    struct sm_state *st;
};

struct sm_state {
    struct gpu *g;
    struct gpu_sm_params prm;
    struct sm_unit *u;
    struct sm_out *head, *tail; /* the FIFO */
    struct sm_out *live;        /* every sm_out, queued or in flight, so
                                   that a machine stopped mid-flight (out
                                   of memory) frees them */
    unsigned in_flight;         /* sm_out handed to the GPU, not answered */
    struct sim_event retry_ev;  /* the GPU had no free tag */
    /* Requests over NVLink: tags GPU_TAGS_MAX + i for i < n_nvl_tag
     * (n_sm x outstanding, so one is always free), see sm_pump. */
    struct sm_out **nvl_tag;    /* i -> the request, NULL: free */
    uint16_t *nvl_free;         /* stack of free i */
    unsigned n_nvl_tag, n_nvl_free;
    struct gpu_sm_counters cnt;
};

/* sm.c */
void sm__finish_at(struct gpu *g, struct gpu_sm_req *r, sim_time_t t);
struct sm_out *sm__out_new(struct sm_state *st, enum tlp_kind kind,
                           unsigned sm, uint64_t addr, uint32_t len,
                           struct gpu_sm_req *req);
/* Hand the FIFO's head TLPs to the GPU while tags and limits allow. */
void sm__pump(struct sm_state *st);

/* sm_wc.c */
void sm__wc_timeout(struct sim *sim, struct sim_event *ev);
/* Send the line holding [addr, addr + len) of SM sm, if one does. */
void sm__wc_evict_range(struct sm_state *st, unsigned sm, uint64_t addr,
                        uint32_t len);
/* Send every line of SM sm, oldest first. */
void sm__wc_drain(struct sm_state *st, unsigned sm);
/* Merge store r into its line (a new one, or the oldest reused). */
void sm__wc_store(struct sm_state *st, struct gpu_sm_req *r);

#endif
