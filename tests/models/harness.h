/*
 * tests/models/harness.h - a test endpoint for model tests (kind "test-ep"):
 * it sends TLPs from a queue (retrying after refusals) and records every
 * TLP it receives. In completer mode it answers reads with completions of
 * a byte pattern after a fixed latency, and acknowledges nothing else.
 */
#ifndef P2PSIM_TESTS_MODELS_HARNESS_H
#define P2PSIM_TESTS_MODELS_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/time.h"
#include "sim/tlp.h"

struct sim;
struct sim_component;

#define TH_MAX_RECORDS 4096
#define TH_MAX_QUEUE 65536

struct th_record {
    enum tlp_kind kind;
    uint64_t addr;
    uint32_t len_bytes;
    uint16_t requester_id;
    uint16_t tag;
    uint8_t cpl_status;
    uint32_t hops;
    uint64_t id;
    sim_time_t t_created;
    sim_time_t at;
    uint8_t first_byte;         /* data[0] if the TLP had data */
};

struct th_ep {
    struct sim_port *port;      /* "p" */
    /* what to do with arrivals */
    bool completer;             /* answer MRd with CplD */
    sim_time_t cpl_latency;     /* before answering */
    uint16_t id;                /* completer id */
    /* sending */
    struct tlp *queue[TH_MAX_QUEUE];
    unsigned q_head, q_tail;
    unsigned refusals;
    /* records of arrivals */
    struct th_record rec[TH_MAX_RECORDS];
    unsigned n_rec;
    uint64_t n_received;        /* arrivals, also beyond TH_MAX_RECORDS */
    uint64_t bytes_received;    /* payload */
    sim_time_t first_at, last_at;
};

extern const struct sim_component_ops th_ep_ops;

/* A test endpoint named name with its port "p". */
struct sim_component *th_ep_create(struct sim *sim, const char *name);
struct th_ep *th_ep(struct sim_component *c);

/* Queue t for sending (ownership passes) and push what the link takes. */
void th_ep_send(struct sim_component *c, struct tlp *t);

/* Convenience constructors (no payload data unless data is true). */
struct tlp *th_mwr(struct sim *sim, uint64_t addr, uint32_t len, bool data);
struct tlp *th_mrd(struct sim *sim, uint64_t addr, uint32_t len, uint16_t tag);

#endif /* P2PSIM_TESTS_MODELS_HARNESS_H */
