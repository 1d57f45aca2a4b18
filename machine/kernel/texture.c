/*
 * machine/kernel/texture.c - the executor's texture and surface callbacks
 * (texture.h): a handle's descriptor read from device memory and checked,
 * texel bytes read and written where the grid's resolver puts them.
 */
#include <config.h>

#include "machine/kernel/texture.h"

#include <stdio.h>
#include <string.h>

#include "machine/exec.h"
#include "machine/kernel/kernel_int.h"

/* Device memory at va for n bytes, as the grid's GPU reaches it. */
static int locate(struct kx_grid *gr, uint64_t va, uint64_t n,
                  struct p2psim_loc *loc)
{
    if (gr->l.resolve(gr->l.resolve_arg, gr->l.gpu, va, n, loc) < 0) {
        return -1;
    }
    return loc->kind == P2PSIM_DEVICE ? 0 : -1;
}

static int tex_lookup(void *user, uint64_t handle, struct ptx_tex_desc *d,
                      char *why, size_t wl)
{
    struct kx_grid *gr = user;
    gr->impure = true;          /* spin.c: the round has an input */
    struct p2psim_loc loc;
    if (locate(gr, handle, sizeof(*d), &loc) ||
        p2psim_hbm_read(gr->p, loc.gpu, loc.addr, d, sizeof(*d))) {
        snprintf(why, wl, "not a texture or surface object (no device "
                 "memory there)");
        return -1;
    }
    return ptx_tex_desc_check(d, why, wl);
}

static int tex_read(void *user, uint64_t va, void *buf, unsigned n)
{
    struct kx_grid *gr = user;
    gr->impure = true;          /* spin.c: the round has an input */
    struct p2psim_loc loc;
    if (locate(gr, va, n, &loc)) {
        return -1;
    }
    return p2psim_hbm_read(gr->p, loc.gpu, loc.addr, buf, n) ? -1 : 0;
}

static int tex_write(void *user, uint64_t va, const void *buf, unsigned n)
{
    struct kx_grid *gr = user;
    gr->impure = true;          /* spin.c: the round has an input */
    struct p2psim_loc loc;
    if (locate(gr, va, n, &loc)) {
        return -1;
    }
    return p2psim_hbm_write(gr->p, loc.gpu, loc.addr, buf, n) ? -1 : 0;
}

const struct ptx_tex_ops kx_tex_ops = {
    .lookup = tex_lookup,
    .read = tex_read,
    .write = tex_write,
};
