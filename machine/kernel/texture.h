/*
 * machine/kernel/texture.h - textures and surfaces of PTX kernels: the
 * executor's side of ptx/ptx_tex.h. A texture or surface handle is the
 * program address of its descriptor in device memory (written there by
 * the runtime, cuda/cudart/texture.c); these callbacks find it through
 * the grid's resolver, check it, and read and write texel bytes in the
 * GPUs' memory.
 *
 * Model: texel reads and surface writes are functional, done on the
 * memory's bytes as the instruction runs (p2psim_hbm_read/_write), with
 * no traffic and no cost beyond the instruction's; they are not ordered
 * with the grid's stores in flight. Texel memory must be device memory
 * (the GPU's own or a peer's); host memory is refused.
 */
#ifndef P2PSIM_MACHINE_KERNEL_TEXTURE_H
#define P2PSIM_MACHINE_KERNEL_TEXTURE_H

#include "ptx/ptx_tex.h"

/* The callbacks; their user pointer is the grid (struct kx_grid *). */
extern const struct ptx_tex_ops kx_tex_ops;

#endif /* P2PSIM_MACHINE_KERNEL_TEXTURE_H */
