/*
 * cuda/cudart/managed.h - managed memory for the other files of the shim:
 * where a copy engine finds the bytes of a managed range, page faults
 * that migrate a range to the device touching it, and the end of a
 * managed allocation.
 *
 * The bytes of managed memory always live in the program's own host
 * mapping (the program dereferences it at any time, and registered with
 * libp2psim it is what copies move). Where a page is *resident* (the host
 * or one device) is timing state: it decides which copies a migration
 * costs and which path a copy engine uses. A device holding pages keeps
 * them in its own copy of the range (HBM reserved in its UVA window at the
 * first migration there); that copy is brought up to date from the host
 * bytes whenever hardware is about to read it, and its bytes are written
 * back whenever hardware wrote it, so the host mapping stays the truth.
 *
 * Every function here is called with the runtime lock held, from a call
 * or from inside the simulation (an operation's start(), a completion).
 */
#ifndef P2PSIM_CUDA_CUDART_MANAGED_H
#define P2PSIM_CUDA_CUDART_MANAGED_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda/cudart/rt.h"

/* Migration granule: residency is kept per 2 MiB page (CUDA migrates
 * 64 KiB to 2 MiB at a time; prefetches use 2 MiB). */
#define RT_MANAGED_PAGE_BYTES (UINT64_C(2) << 20)

/* Fault-handling latency of one batch of page faults, ps [estimate]: the
 * UVM driver's service time of a GPU fault batch on x86 PCIe systems is
 * reported in the tens of microseconds; 20 us is the low end. */
#define RT_MANAGED_FAULT_PS SIM_US(20)

/* Completion of a migration: status is 0 or a cudaError_t. */
typedef void rt_managed_done_fn(void *arg, int status);

/*
 * rt_managed_touch - device dev (-1: the host) touches [off, off + len)
 * of managed allocation a at simulated time at, as a kernel or a memset
 * does: pages resident elsewhere migrate to dev as a page fault moves
 * them, after one fault-handling latency (RT_MANAGED_FAULT_PS, one fault
 * batch per call), one p2psim_copy per run of pages with the same home.
 * Pages at their preferred location elsewhere, or whose AccessedBy set
 * holds dev, do not move (mapped access).
 * done(arg, status) runs inside the simulation when every page is
 * resident (at `at` when nothing had to move). Returns 0 (done will be
 * called) or a cudaError_t (it will not).
 */
cudaError_t rt_managed_touch(struct rt_alloc *a, uint64_t off, uint64_t len,
                             int dev, sim_time_t at, rt_managed_done_fn *done,
                             void *arg);

/*
 * Where a copy engine addresses bytes of a managed range: a device's copy
 * when the whole range is resident on one device, else the host mapping.
 * CUDA's copy engines copy managed memory where it is, without migrating
 * it; copy.c brackets a copy with these two calls.
 */
struct rt_managed_span {
    struct p2psim_loc loc;      /* for p2psim_copy */
    int home;                   /* device whose copy loc names, -1 host */
};

/*
 * rt_managed_span_begin - call when the copy starts (its start()): fills
 * *out for [off, off + len) of a; when the copy reads the range (read)
 * and loc is a device copy, that copy is first refreshed from the host
 * bytes (no simulated cost: it already holds them on real hardware).
 */
void rt_managed_span_begin(struct rt_alloc *a, uint64_t off, uint64_t len,
                           bool read, struct rt_managed_span *out);
/*
 * rt_managed_span_end - call when the copy has landed: if it wrote the
 * range (written) through a device copy, those bytes go back to the host
 * mapping. s is what begin returned.
 */
void rt_managed_span_end(struct rt_alloc *a, uint64_t off, uint64_t len,
                         bool written, const struct rt_managed_span *s);

/*
 * Kernels (launch.c). rt_managed_kernel_loc - where a kernel on gpu
 * reaches [off, off + len) of a: gpu's copy (local HBM) when every page
 * of it is resident on gpu, else the host mapping.
 * rt_managed_kernel_ranges - the same as ranges for a server's machine:
 * fills out (room for rt_managed_n_pages(a)) with runs of pages, returns
 * how many.
 */
struct p2psim_loc rt_managed_kernel_loc(const struct rt_alloc *a,
                                        uint64_t off, uint64_t len,
                                        unsigned gpu);
unsigned rt_managed_kernel_ranges(const struct rt_alloc *a, unsigned gpu,
                                  struct rt_kernel_range *out);
unsigned rt_managed_n_pages(const struct rt_alloc *a);
/*
 * rt_managed_fault - a warp of a kernel on gpu accesses [off, off + len)
 * of a, which resolved to the host mapping (p2psim_launch's fault): 1 if
 * that is a page fault (pages resident elsewhere that must move to gpu:
 * one fault latency, then the copies; resume(w) runs when they have
 * landed, as for every warp that faulted on the same pages meanwhile),
 * 0 if the access goes where it resolved (the pages stay: preferred
 * location elsewhere, AccessedBy gpu, or a fault that could not move
 * them before).
 */
int rt_managed_fault(struct rt_alloc *a, uint64_t off, uint64_t len,
                     unsigned gpu, void (*resume)(void *w), void *w);

/*
 * rt_managed_kernel_begin, _end - call when a kernel of gpu starts and
 * when it ends: the first kernel of gpu refreshes gpu's resident pages
 * from the host bytes, each end writes them back (the host mapping stays
 * the truth between kernels).
 */
void rt_managed_kernel_begin(unsigned gpu);
void rt_managed_kernel_end(unsigned gpu);

/* Where byte off of managed allocation a is resident: -1 host, else the
 * device. */
int rt_managed_home(const struct rt_alloc *a, uint64_t off);

/*
 * rt_managed_destroy - free what managed.c holds for a (the host mapping,
 * its registration, device copies, page state). memory.c calls it when
 * a managed allocation is freed, after removing a from the table and
 * before freeing a itself.
 */
void rt_managed_destroy(struct rt_alloc *a);

#endif /* P2PSIM_CUDA_CUDART_MANAGED_H */
