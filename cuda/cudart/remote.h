/*
 * cuda/cudart/remote.h - what remote.c offers the other files of the shim
 * beyond rt_machine_remote: requests of its own for ipc.c (exports and
 * interprocess events live in the server) and remote_host.c (host memory
 * shared with the server), and the server's counters for the report at
 * exit.
 *
 * Every function here is called with the runtime lock held.
 */
#ifndef P2PSIM_CUDA_CUDART_REMOTE_H
#define P2PSIM_CUDA_CUDART_REMOTE_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda/server/wire.h"

/* Whether this process's machine is a server's (P2PSIM_SERVER). */
bool rt_remote_is_active(void);
/* The server's session id (what handles carry). */
uint64_t rt_remote_session(void);

/*
 * rt_remote_call - one request of cuda/server/wire.h: type, its payload;
 * *r gets the reply. Returns r->rc (0 or a negative SIM_E* code), or
 * -SIM_EIO when the server is gone.
 */
int rt_remote_call(uint32_t type, const void *req, uint32_t len,
                   struct wire_reply *r);
/* The same with descriptor pass_fd passed along (WIRE_F_FD requests). */
int rt_remote_call_fd(uint32_t type, const void *req, uint32_t len,
                      int pass_fd, struct wire_reply *r);

/* remote_host.c: rt_machine_remote's host memory (rt_machine_ops). */
void *rt_remote_host_alloc(uint64_t len);
void rt_remote_host_free(void *ptr, uint64_t len);
int rt_remote_host_register(void *ptr, uint64_t len, unsigned socket,
                            uint64_t *bus);
int rt_remote_host_unregister(uint64_t bus);

/*
 * rt_remote_callback_add - an id for a WIRE_CALLBACK the server will send
 * (an interprocess event generation done): fn(arg, status) runs, with the
 * lock held, at the simulated time it stands for. 0 when out of memory.
 * rt_remote_callback_cancel forgets one that will never come.
 */
uint64_t rt_remote_callback_add(void (*fn)(void *arg, int status), void *arg);
void rt_remote_callback_cancel(uint64_t id);

/* The server's event and TLP-hop counters (0 when unavailable). */
void rt_remote_counters(uint64_t *events, uint64_t *tlp_hops,
                        uint64_t *parked);
/*
 * rt_remote_link_stat - the counters of link i of the server's machine
 * into *ls, whose name, kind and rate (this process's copy, the same
 * machine) are kept. 0, or a negative SIM_E* code.
 */
struct p2psim_link_stat;
int rt_remote_link_stat(unsigned i, struct p2psim_link_stat *ls);

#endif /* P2PSIM_CUDA_CUDART_REMOTE_H */
