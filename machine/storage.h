/*
 * machine/storage.h - the machine's NVMe drives (models/nvme/): reading a
 * range of a drive into host or GPU memory, and writing one, with the
 * simulated time it took; GPUDirect Storage (the drive's DMA straight
 * into GPU memory through BAR1) where the P2P rules allow it, else a
 * bounce buffer in host memory and a host-to-device copy. Part of
 * libp2psim (declared through machine/p2psim.h).
 */
#ifndef P2PSIM_MACHINE_STORAGE_H
#define P2PSIM_MACHINE_STORAGE_H

#include <stdint.h>

#include "machine/exec.h"
#include "sim/time.h"

struct p2psim;
struct p2psim_verdict;

/* The drives, in machine-file order; their ids and media sizes. */
unsigned p2psim_drive_count(const struct p2psim *p);
const char *p2psim_drive_id(const struct p2psim *p, unsigned i);
int p2psim_drive_find(const struct p2psim *p, const char *id);
uint64_t p2psim_drive_capacity(const struct p2psim *p, unsigned i);
/* The socket whose root complex the drive hangs below. */
unsigned p2psim_drive_socket(const struct p2psim *p, unsigned i);

/* GPUDirect Storage from drive into gpu: the path and P2P verdict, with
 * every rule that applies (as p2psim_p2p). 0 or -SIM_EINVAL. */
int p2psim_drive_gds(const struct p2psim *p, unsigned drive, unsigned gpu,
                     struct p2psim_verdict *out);

/* Force the bounce buffer for a GPU buffer, even where GDS is allowed. */
#define P2PSIM_DRIVE_BOUNCE 0x1u

/*
 * p2psim_drive_read - read len bytes at byte offset off of the drive
 * into dst (host bus address or GPU HBM offset), starting no earlier
 * than start_at; p2psim_drive_write - the other way. off and len are
 * multiples of the drive's logical block (4 KiB by default). The
 * operation is cut in commands of at most the drive's MDTS, kept queued
 * on its one I/O queue pair (P2PSIM_DRIVE_QUEUE_DEPTH deep), whose
 * completions the host polls every P2PSIM_DRIVE_POLL_PS. done gets
 * t_start, t_end, and staged = true where a bounce buffer was used.
 * Returns 0, -SIM_EINVAL (bad drive, GPU, range or alignment) or
 * -SIM_ENOMEM.
 */
#define P2PSIM_DRIVE_QUEUE_DEPTH 128u
#define P2PSIM_DRIVE_POLL_PS 100000u        /* 100 ns */
int p2psim_drive_read(struct p2psim *p, unsigned drive, uint64_t off,
                      uint64_t len, const struct p2psim_loc *dst,
                      unsigned flags, sim_time_t start_at,
                      p2psim_done_fn *done, void *arg);
int p2psim_drive_write(struct p2psim *p, unsigned drive, uint64_t off,
                       uint64_t len, const struct p2psim_loc *src,
                       unsigned flags, sim_time_t start_at,
                       p2psim_done_fn *done, void *arg);

/* The drive's media bytes, outside simulated time (tests, setup).
 * 0, -SIM_EINVAL or -SIM_ERANGE. */
int p2psim_drive_media_write(struct p2psim *p, unsigned drive, uint64_t off,
                             const void *src, uint64_t len);
int p2psim_drive_media_read(struct p2psim *p, unsigned drive, uint64_t off,
                            void *dst, uint64_t len);

#endif /* P2PSIM_MACHINE_STORAGE_H */
