/*
 * tools/replay.h - replaying an API trace (traces/api-trace.md) through
 * the CUDA shim on a simulated machine: what `p2psim replay` runs in a
 * child process (replay.c, replay_calls.c), and what the command reads
 * back (cmd_replay.c).
 *
 * The command picks the calls of one process (depth 0: calls the program
 * made, not calls made from inside other calls), in the order they were
 * entered (seq). A child process sets P2PSIM_TOPOLOGY to the machine and
 * P2PSIM_RECORD to a file of its own, loads the shim by path (as `p2psim
 * bench` does, tools/bwlat.h) and makes the same calls, a host thread per
 * recorded thread, in the recorded order (turn_wait, replay.c), with
 * pointers, streams, events and pools mapped to its own (replay.c, "the
 * maps"). It writes, for each call it makes, its thread and the index of
 * the recorded call it stands for, so the command can pair them with the
 * shim's record of the replay's calls and their simulated times.
 *
 * Untrusted traces (replay_check, before the child starts; exit status 2
 * in the command): every pointer argument with its length must not wrap
 * the address space, and inside a recorded allocation must end inside
 * it; the pageable stand-ins together may map at most host_memory bytes
 * (--host-memory, default REPLAY_HOST_MEMORY_DEFAULT); at most
 * REPLAY_MAX_THREADS recorded threads and REPLAY_MAX_ALLOCS allocations
 * live at once; a handle id a call hands back is at most 4 per call plus
 * 64 (ids count handles in order of appearance), which bounds the id
 * tables. Stream ids below -2 are not mapped (NULL, counted as unmapped).
 *
 * Not replayed (counted in the report): kernel launches and registration
 * (kernels are not simulated), IPC, pool creation and attributes (their
 * arguments are structures the trace does not hold), error strings.
 *
 * Model: the host work a program did between its calls is not replayed;
 * a call whose result differs from the recorded one is reported, and the
 * replay goes on.
 */
#ifndef P2PSIM_TOOLS_REPLAY_H
#define P2PSIM_TOOLS_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "traces/api_trace.h"

/* The most recorded threads a replay makes threads for. */
#define REPLAY_MAX_THREADS 1024
/* The most recorded allocations live at once. */
#define REPLAY_MAX_ALLOCS 65536
/* The default cap on the pageable stand-ins' bytes (--host-memory). */
#define REPLAY_HOST_MEMORY_DEFAULT (UINT64_C(16) << 30)

struct replay_request {
    const struct trace_api_call *const *calls;  /* to replay, in order */
    size_t n_calls;
    const char *machine;        /* P2PSIM_TOPOLOGY: a file or a built-in */
    const char *cudart;         /* path of the shim */
    const char *record;         /* the child's API trace */
    const char *map;            /* the child's call -> index lines */
    int err_fd;                 /* where mismatches are told (stderr) */
    uint64_t host_memory;       /* cap on the pageable stand-ins, bytes */
};

/*
 * replay_check - whether rq's calls can be replayed within the caps
 * above. 0, or -1 with err ("line N: ...", a line of the trace). The
 * child checks again, so a request that fails here never runs.
 */
int replay_check(const struct replay_request *rq, char *err,
                 size_t err_size);

/* Whether replay.c can replay a call of this name. */
int replay_is_supported(const char *name);

/*
 * replay_child - in a forked child: set the environment, load the shim,
 * replay rq's calls. Never returns: exits 0, or 1 when the shim cannot be
 * loaded (said on stderr).
 */
void replay_child(const struct replay_request *rq)
    __attribute__((noreturn));

#endif /* P2PSIM_TOOLS_REPLAY_H */
