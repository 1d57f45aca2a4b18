/*
 * ptx/ptx_tex.h - textures and surfaces for the PTX interpreter: the
 * descriptor a texture or surface handle names, and the callbacks by
 * which a warp reaches descriptors and texel memory (struct
 * ptx_warp_ctx.tex_ops). The executor serves them (machine/kernel/
 * texture.c); the runtime writes descriptors (cuda/cudart/texture.c).
 *
 * A handle (cudaTextureObject_t, cudaSurfaceObject_t: a 64-bit kernel
 * parameter) is the device address of its descriptor, which lives in the
 * GPU's memory as on real hardware, so it reaches a kernel wherever the
 * kernel runs (in the program's process or in a p2psim server) with no
 * table of its own. The bytes are struct ptx_tex_desc in host byte order;
 * program code can overwrite them, so the executor checks every field
 * (ptx_tex_desc_check) before the interpreter reads one.
 *
 * Layout of texel memory: element (x, y, z) of layer or face l is at
 * base + (l * depth + z) * slice + y * pitch + x * elem_bytes.
 *
 * docs/kernels.md, "Textures and surfaces": the instructions and the
 * sampling rules.
 */
#ifndef P2PSIM_PTX_PTX_TEX_H
#define P2PSIM_PTX_PTX_TEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define PTX_TEX_MAGIC 0x58543250u /* "P2TX" */
#define PTX_TEX_VERSION 2u

/* Caps a descriptor is checked against (docs/kernels.md). */
#define PTX_TEX_MAX_WIDTH (1u << 28) /* width (linear memory: elements) */
#define PTX_TEX_MAX_DIM (1u << 17)   /* height or depth */
#define PTX_TEX_MAX_LAYERS 32768u    /* layers (faces of cubemaps count) */
#define PTX_TEX_MAX_LEVELS 16u       /* mipmap levels */

/* How a channel's bits are read. */
enum ptx_tex_chan_kind {
    PTX_TEX_UNSIGNED = 0,
    PTX_TEX_SIGNED = 1,
    PTX_TEX_FLOAT = 2 /* 16 bits: IEEE half; 32 bits: float */
};

enum ptx_tex_addr {
    PTX_TEX_WRAP = 0,
    PTX_TEX_CLAMP = 1,
    PTX_TEX_MIRROR = 2,
    PTX_TEX_BORDER = 3
};

/* What the descriptor describes (geometry of the resource). */
#define PTX_TEX_DIMS_MASK 0x03u  /* 1, 2 or 3 dimensions */
#define PTX_TEX_LAYERED 0x04u    /* an array of 1D or 2D layers */
#define PTX_TEX_CUBE 0x08u       /* six 2D faces (per layer) */
#define PTX_TEX_SURFACE 0x10u    /* a surface object (suld/sust) */
#define PTX_TEX_LINEAR 0x20u     /* linear memory (tex1Dfetch) */

struct ptx_tex_desc {
    uint32_t magic;          /* PTX_TEX_MAGIC */
    uint32_t version;        /* PTX_TEX_VERSION */
    uint64_t base;           /* device address of texel (0, 0, 0) */
    uint64_t size;           /* bytes from base that belong to it */
    uint64_t pitch;          /* bytes from one row to the next */
    uint64_t slice;          /* bytes from one 2D slice to the next */
    uint32_t width, height, depth; /* elements (1 for unused dims) */
    uint32_t layers;         /* layers x 6 for cubemaps; 1 when not layered */
    uint32_t flags;          /* PTX_TEX_DIMS_MASK | PTX_TEX_LAYERED ... */
    uint8_t n_chan;          /* 1 to 4 */
    uint8_t chan_bits[4];    /* 8, 16 or 32 each (0 past n_chan) */
    uint8_t chan_kind;       /* enum ptx_tex_chan_kind */
    uint8_t elem_bytes;      /* sum of chan_bits / 8 */
    uint8_t filter_linear;   /* 1: linear filtering, 0: point */
    uint8_t read_normalized; /* 1: cudaReadModeNormalizedFloat */
    uint8_t norm_coords;     /* 1: coordinates in [0, 1) */
    uint8_t addr[3];         /* enum ptx_tex_addr per dimension */
    uint8_t srgb;            /* recorded; no sRGB conversion is done */
    uint8_t mip_linear;      /* 1: linear between mipmap levels */
    uint8_t n_levels;        /* mipmap levels in level[] (0: none) */
    float border[4];         /* border colour */
    float lod_bias, lod_min, lod_max; /* mipmapLevelBias and clamps */
    /* A mipmapped texture's levels (level[0] is the fields above) */
    struct ptx_tex_level {
        uint64_t base, size, pitch, slice;
        uint32_t width, height, depth, pad;
    } level[PTX_TEX_MAX_LEVELS];
};

/*
 * ptx_tex_desc_check() - whether d is a descriptor the interpreter can
 * use: magic and version, flags, formats and modes in range, dims within
 * the caps, and every texel inside [base, base + size). Return: 0, or -1
 * with why (a caller buffer of wl bytes) filled.
 */
int ptx_tex_desc_check(const struct ptx_tex_desc *d, char *why, size_t wl);

/*
 * The executor's side. lookup: the descriptor at handle (any checks
 * done: the interpreter trusts it); 0, or -1 with why filled. read and
 * write: n bytes of texel memory at device address va; 0, or -1 (an
 * illegal address: the warp fails).
 */
struct ptx_tex_ops {
    int (*lookup)(void *user, uint64_t handle, struct ptx_tex_desc *d,
                  char *why, size_t wl);
    int (*read)(void *user, uint64_t va, void *buf, unsigned n);
    int (*write)(void *user, uint64_t va, const void *buf, unsigned n);
};

#if defined(__cplusplus)
}
#endif

#endif /* P2PSIM_PTX_PTX_TEX_H */
