/*
 * cuda/cudart/api_costs.h - a machine file's `api-costs:` (topologies/
 * SCHEMA.md), the host-side costs of CUDA runtime calls on that machine,
 * read from the section libp2psim keeps for the runtime (p2psim_section).
 * They are a property of the host (CPU, hypervisor, driver), not of the
 * GPUs. The shim charges each to the calling thread's clock; a cost the
 * file does not set keeps the shim's default (rt.c, rt_costs). The command
 * line reads them too, so that a bad cost is an error of every command
 * that loads the machine, as any other error of the file.
 */
#ifndef P2PSIM_CUDA_CUDART_API_COSTS_H
#define P2PSIM_CUDA_CUDART_API_COSTS_H

#include <stdbool.h>

#include "sim/time.h"

struct p2psim;
struct sim_error;

/* The section of the machine file. */
#define API_COSTS_SECTION "api-costs"

enum api_cost {
    API_COST_CALL,              /* call: a cheap call (get/set, query) */
    API_COST_LAUNCH,            /* launch: a kernel launch */
    API_COST_MEMCPY_ASYNC_H2D,  /* memcpy-async-h2d: host <-> device */
    API_COST_MEMCPY_ASYNC_D2D,  /* memcpy-async-d2d: within a GPU */
    API_COST_MEMCPY_ASYNC_PEER, /* memcpy-async-peer: GPU -> GPU */
    API_COST_EVENT_RECORD,      /* event-record */
    API_COST_MALLOC,            /* malloc: cudaMalloc or cudaFree */
    API_COST_SYNC,              /* sync: return from a synchronization */
    API_COST_HOST_FUNCTION,     /* host-function: its dispatch */
    API_COST_CLOCK_READ,        /* clock-read: the program reads a clock */
    API_COST_STAGED_HANDOFF,    /* staged-handoff: a staged copy's chunk
                                   handed from one GPU's engine to the
                                   other's (libp2psim charges it,
                                   machine/exec.c; checked here) */
    API_COST_N
};

/* The key of each cost in `api-costs:`, by enum api_cost, then NULL.
 * The one table of these names. */
extern const char *const api_cost_names[API_COST_N + 1];

/* A host cost beyond this is taken for a mistyped unit ("5s" for "5us"). */
#define API_COST_MAX_PS SIM_PS_PER_S

/* Which costs the machine sets, and their values. */
struct api_costs {
    bool set[API_COST_N];
    sim_time_t ps[API_COST_N];
};

/*
 * api_costs_read - the costs machine p sets into *out (none set when its
 * file has no api-costs:). 0, or -SIM_ENOENT (an unknown key; the closest
 * known one is suggested), -SIM_EINVAL (a value that is not a time),
 * -SIM_ERANGE (more than 1s), with err at the key's or the value's
 * file:line:column ("--set:N:C" for an override).
 */
int api_costs_read(const struct p2psim *p, struct api_costs *out,
                   struct sim_error *err);

#endif /* P2PSIM_CUDA_CUDART_API_COSTS_H */
