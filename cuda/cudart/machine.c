/*
 * cuda/cudart/machine.c - the machine underneath the runtime when it runs
 * in this process: rt_machine_ops served by libp2psim (rt.p), and the HBM
 * space of each GPU (first fit, machine/hbm_space.c). Kernels run on the
 * kernel's own parsed PTX (or C function) with launch.c's resolver.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cuda/cudart/rt.h"
#include "machine/hbm_space.h"
#include "sim/error.h"
#include "sim/sim.h"

const struct rt_machine_ops *rt_machine = &rt_machine_local;

static sim_time_t local_now(void)
{
    return p2psim_now(rt.p);
}

static int local_copy(const struct p2psim_loc *dst,
                      const struct p2psim_loc *src, uint64_t len,
                      unsigned flags, sim_time_t start_at, uint64_t after,
                      p2psim_done_fn *done, void *arg, uint64_t *id)
{
    return p2psim_copy_after(rt.p, after, dst, src, len, flags, start_at,
                             done, arg, id);
}

static int local_fill(unsigned gpu, uint64_t off, uint8_t value, uint64_t len,
                      sim_time_t start_at, p2psim_done_fn *done, void *arg)
{
    return p2psim_fill(rt.p, gpu, off, value, len, start_at, done, arg);
}

static int local_register(void *ptr, uint64_t len, unsigned socket,
                          uint64_t *bus)
{
    return p2psim_host_register(rt.p, ptr, len, socket, bus);
}

static int local_unregister(uint64_t bus)
{
    return p2psim_host_unregister(rt.p, bus);
}

static int local_timer(sim_time_t at, rt_timer_fn *fn, void *arg)
{
    return p2psim_call_at(rt.p, at, fn, arg);
}

struct keep {
    bool (*fn)(void *arg);
    void *arg;
};

static bool keep_going(struct sim *sim, void *arg)
{
    (void)sim;
    const struct keep *k = arg;
    return k->fn(k->arg);
}

bool rt_machine_failed;

/* The simulation ran out of memory (sim/error.h): say so once; nothing
 * can happen any more. */
static bool local_failed(struct sim *sim)
{
    if (!rt_machine_failed) {
        rt_machine_failed = true;
        const struct sim_error *f = sim_failure(sim);
        fprintf(stderr, "p2psim: error: %s\n",
                f ? f->msg : "the simulation failed");
    }
    return false;
}

static bool local_advance(bool (*fn)(void *arg), void *arg, sim_time_t limit)
{
    struct sim *sim = p2psim_sim(rt.p);
    if (sim_failure(sim)) {
        return local_failed(sim);
    }
    if (sim_events_pending(sim) == 0 && limit == SIM_TIME_MAX) {
        return false;
    }
    struct keep k = { fn, arg };
    if (sim_run_while(sim, keep_going, &k, limit) < 0 && sim_failure(sim)) {
        return local_failed(sim);
    }
    if (limit != SIM_TIME_MAX && fn(arg) && sim_events_pending(sim) == 0 &&
        sim_now(sim) < limit) {
        /* Nothing left before the deadline: time jumps to it. */
        if (sim_run_until(sim, limit) < 0 && sim_failure(sim)) {
            return local_failed(sim);
        }
    }
    return true;
}

/* ---- HBM space ----------------------------------------------------------------- */

/* First fit per GPU (machine/hbm_space.c, the allocator the server uses). */
static struct p2psim_hbm_space *spaces;

static struct p2psim_hbm_space *space_of(unsigned gpu)
{
    if (!spaces) {
        spaces = calloc(rt.n_dev ? rt.n_dev : 1, sizeof(*spaces));
        for (unsigned g = 0; spaces && g < rt.n_dev; g++) {
            p2psim_hbm_space_init(&spaces[g], p2psim_hbm_size(rt.p, g));
        }
    }
    return spaces && gpu < rt.n_dev ? &spaces[gpu] : NULL;
}

static int local_hbm_alloc(unsigned gpu, uint64_t size, uint64_t align,
                           uint64_t *off)
{
    struct p2psim_hbm_space *s = space_of(gpu);
    return s ? p2psim_hbm_space_alloc(s, size, align, off) : -SIM_EINVAL;
}

static int local_hbm_free(unsigned gpu, uint64_t off)
{
    struct p2psim_hbm_space *s = space_of(gpu);
    return s ? p2psim_hbm_space_free(s, off, NULL) : -SIM_ENOENT;
}

static int local_hbm_read(unsigned gpu, uint64_t off, void *buf, uint64_t len)
{
    return p2psim_hbm_read(rt.p, gpu, off, buf, len);
}

static int local_hbm_write(unsigned gpu, uint64_t off, const void *buf,
                           uint64_t len)
{
    return p2psim_hbm_write(rt.p, gpu, off, buf, len);
}

static void *local_host_alloc(uint64_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void local_host_free(void *ptr, uint64_t len)
{
    munmap(ptr, len);
}

/* The grid runs here, on the kernel's own PTX or C function. */
static int local_kernel(const struct rt_kernel_launch *kl)
{
    return p2psim_kernel_launch(rt.p, &kl->l);
}

const struct rt_machine_ops rt_machine_local = {
    .name = "local",
    .now = local_now,
    .copy = local_copy,
    .fill = local_fill,
    .host_register = local_register,
    .host_unregister = local_unregister,
    .timer = local_timer,
    .advance = local_advance,
    .hbm_alloc = local_hbm_alloc,
    .hbm_free = local_hbm_free,
    .hbm_read = local_hbm_read,
    .hbm_write = local_hbm_write,
    .host_alloc = local_host_alloc,
    .host_free = local_host_free,
    .module_load = NULL,
    .kernel = local_kernel,
};
