/*
 * ptx/interp_tex.c - the interpreter's texture and surface instructions:
 * tex (1D, 2D, 3D, layered, cubemap; plain, .level and .grad), tld4
 * (the four texels of a bilinear footprint), suld.b and sust.b
 * (byte-addressed x, boundary mode trap, clamp or zero), txq and suq.
 * Descriptors and texel bytes come through the executor's callbacks
 * (struct ptx_tex_ops, ptx_tex.h).
 *
 * Sampling follows the CUDA programming guide's appendix "Texture
 * Fetching": a normalized coordinate x is scaled by the size N first;
 * point filtering reads texel floor(x); linear filtering reads texels
 * i = floor(x - 0.5) and i + 1 with weight alpha = frac(x - 0.5), held
 * as the hardware holds it: 9-bit fixed point with 8 fractional bits
 * (to the nearest 1/256, halves up, as measured on an H200). Address
 * modes apply to each texel index: clamp to [0, N-1], wrap modulo N,
 * mirror modulo 2N folded back, border gives the border colour; wrap
 * and mirror need normalized coordinates (with unnormalized ones they
 * clamp, as CUDA does). Read modes: element type (integers as they are,
 * floats and halves as floats), or normalized float (8 and 16-bit
 * integers to [0, 1] or [-1, 1]). Channels a format lacks read 0, alpha
 * too.
 *
 * Mipmaps: .level and .grad pick the level of detail (the gradients'
 * longer one in texels, log2), plus the bias, within the clamps; point
 * or linear between levels; plain tex reads level 0 (a compute thread
 * has no implicit derivatives here).
 * Simplifications: no sRGB conversion, no anisotropy, no seamless
 * cubemap filtering across faces; fetches are functional (read through
 * the callbacks as the instruction runs, outside the memory model's
 * timing; docs/kernels.md).
 */
#include <config.h>

#include "ptx/ptx.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ptx/interp_int.h"
#include "ptx/ptx_int.h"
#include "ptx/tex_int.h"

/* ---------------------------------------------------------------------- */
/* Descriptors                                                             */
/* ---------------------------------------------------------------------- */

static int check_one(const struct ptx_tex_desc *d, char *why, size_t wl)
{
    if (d->magic != PTX_TEX_MAGIC || d->version != PTX_TEX_VERSION) {
        snprintf(why, wl, "not a texture or surface object");
        return -1;
    }
    unsigned dims = d->flags & PTX_TEX_DIMS_MASK;
    if (dims < 1 || dims > 3 ||
        (d->flags & ~(PTX_TEX_DIMS_MASK | PTX_TEX_LAYERED | PTX_TEX_CUBE |
                      PTX_TEX_SURFACE | PTX_TEX_LINEAR)) ||
        ((d->flags & PTX_TEX_CUBE) && (dims != 2 || d->layers % 6))) {
        snprintf(why, wl, "a descriptor of geometry 0x%x", d->flags);
        return -1;
    }
    if (d->n_chan < 1 || d->n_chan > 4 || d->chan_kind > PTX_TEX_FLOAT) {
        snprintf(why, wl, "a descriptor of %u channels of kind %u",
                 d->n_chan, d->chan_kind);
        return -1;
    }
    unsigned bits = 0;
    for (unsigned c = 0; c < 4; c++) {
        unsigned b = d->chan_bits[c];
        if (c < d->n_chan ? (b != 8 && b != 16 && b != 32) : b != 0) {
            snprintf(why, wl, "a channel of %u bits", b);
            return -1;
        }
        if (d->chan_kind == PTX_TEX_FLOAT && b == 8) {
            snprintf(why, wl, "an 8-bit float channel");
            return -1;
        }
        bits += b;
    }
    if (bits / 8 != d->elem_bytes) {
        snprintf(why, wl, "an element of %u bytes for %u bits",
                 d->elem_bytes, bits);
        return -1;
    }
    for (unsigned a = 0; a < 3; a++) {
        if (d->addr[a] > PTX_TEX_BORDER) {
            snprintf(why, wl, "address mode %u", d->addr[a]);
            return -1;
        }
    }
    if (d->filter_linear > 1 || d->read_normalized > 1 ||
        d->norm_coords > 1) {
        snprintf(why, wl, "a filter, read or coordinate mode out of range");
        return -1;
    }
    if (d->width < 1 || d->height < 1 || d->depth < 1 || d->layers < 1 ||
        d->width > PTX_TEX_MAX_WIDTH || d->height > PTX_TEX_MAX_DIM ||
        d->depth > PTX_TEX_MAX_DIM || d->layers > PTX_TEX_MAX_LAYERS) {
        snprintf(why, wl, "a size of %ux%ux%u, %u layers (at most %u wide, "
                 "%u high or deep, %u layers)", d->width, d->height, d->depth,
                 d->layers, PTX_TEX_MAX_WIDTH, PTX_TEX_MAX_DIM,
                 PTX_TEX_MAX_LAYERS);
        return -1;
    }
    /* every texel inside [base, base + size); no product overflows: a row
     * is at most 2^32 bytes, a pitch 2^40, so a plane at most 2^57 */
    uint64_t row = (uint64_t)d->width * d->elem_bytes;
    uint64_t n_slices = (uint64_t)d->depth * d->layers;
    if ((d->height > 1 && (d->pitch < row || d->pitch > (1ull << 40))) ||
        d->base + d->size < d->base) {
        snprintf(why, wl, "a pitch of %llu bytes for rows of %llu",
                 (unsigned long long)d->pitch, (unsigned long long)row);
        return -1;
    }
    uint64_t plane = (uint64_t)(d->height - 1) * d->pitch + row;
    if (plane > d->size ||
        (n_slices > 1 && (d->slice < plane ||
                          n_slices - 1 > (d->size - plane) / d->slice))) {
        snprintf(why, wl, "texels outside its %llu bytes (slices of %llu)",
                 (unsigned long long)d->size, (unsigned long long)d->slice);
        return -1;
    }
    return 0;
}

/* A descriptor with the geometry of mipmap level l. */
static void at_level(struct ptx_tex_desc *d, unsigned l)
{
    const struct ptx_tex_level *v = &d->level[l];
    d->base = v->base;
    d->size = v->size;
    d->pitch = v->pitch;
    d->slice = v->slice;
    d->width = v->width;
    d->height = v->height;
    d->depth = v->depth;
}

int ptx_tex_desc_check(const struct ptx_tex_desc *d, char *why, size_t wl)
{
    if (check_one(d, why, wl)) {
        return -1;
    }
    if (d->n_levels > PTX_TEX_MAX_LEVELS || d->mip_linear > 1 ||
        !(d->lod_min == d->lod_min) || !(d->lod_max == d->lod_max) ||
        !(d->lod_bias == d->lod_bias)) {
        snprintf(why, wl, "%u mipmap levels (at most %u)", d->n_levels,
                 PTX_TEX_MAX_LEVELS);
        return -1;
    }
    for (unsigned l = 0; l < d->n_levels; l++) {
        struct ptx_tex_desc v = *d;
        at_level(&v, l);
        if (check_one(&v, why, wl)) {
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Texels                                                                  */
/* ---------------------------------------------------------------------- */

/* A texel as the instruction returns it: floats, or integer bits. */
struct texel {
    float f[4];
    uint32_t u[4];
};

static float half_to_float(uint16_t h)
{
    unsigned s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 0) {
        v = ldexpf((float)m, -24);
    } else if (e == 31) {
        v = m ? NAN : INFINITY;
    } else {
        v = ldexpf((float)(m | 0x400), (int)e - 25);
    }
    return s ? -v : v;
}

struct tex_run {
    struct ptx_warp *w;
    const struct ptx_insn *in;
    struct ptx_tex_desc d;
    bool floats;                /* the texel is returned as floats */
};

/* Read texel (x, y, z) of slice s (layer or face) into t. */
static int texel_read(struct tex_run *r, int64_t x, int64_t y, int64_t z,
                      int64_t s, struct texel *t)
{
    const struct ptx_tex_desc *d = &r->d;
    uint64_t va = d->base + ((uint64_t)s * d->depth + (uint64_t)z) * d->slice +
                  (uint64_t)y * d->pitch + (uint64_t)x * d->elem_bytes;
    uint8_t b[16];
    const struct ptx_tex_ops *ops = r->w->ctx.tex_ops;
    if (ops->read(r->w->ctx.tex_user, va, b, d->elem_bytes)) {
        return ptx__warp_fail(r->w, r->in, "texture read at 0x%llx: not "
                              "memory the kernel may read",
                              (unsigned long long)va);
    }
    unsigned off = 0;
    for (unsigned c = 0; c < 4; c++) {
        unsigned bits = c < d->n_chan ? d->chan_bits[c] : 0;
        uint32_t raw = 0;
        memcpy(&raw, b + off, bits / 8); /* little-endian host */
        off += bits / 8;
        if (bits == 0) {
            t->u[c] = 0; /* alpha too: an H200 reads (v, 0, 0, 0) */
            t->f[c] = 0.0f;
            continue;
        }
        int32_t sv = bits == 32 ? (int32_t)raw
                                : (int32_t)(raw << (32 - bits)) >>
                                      (32 - bits);
        if (d->chan_kind == PTX_TEX_FLOAT) {
            float f;
            if (bits == 16) {
                f = half_to_float((uint16_t)raw);
            } else {
                memcpy(&f, &raw, 4);
            }
            t->f[c] = f;
        } else if (d->read_normalized && bits < 32) {
            if (d->chan_kind == PTX_TEX_SIGNED) {
                float v = (float)sv / (float)((1u << (bits - 1)) - 1);
                t->f[c] = v < -1.0f ? -1.0f : v;
            } else {
                t->f[c] = (float)raw / (float)((1u << bits) - 1);
            }
        } else {
            t->f[c] = d->chan_kind == PTX_TEX_SIGNED ? (float)sv : (float)raw;
        }
        t->u[c] = d->chan_kind == PTX_TEX_SIGNED ? (uint32_t)sv : raw;
    }
    return 0;
}

static void texel_border(const struct tex_run *r, struct texel *t)
{
    for (unsigned c = 0; c < 4; c++) {
        t->f[c] = r->d.border[c];
        t->u[c] = (uint32_t)(int32_t)r->d.border[c];
    }
}

/* A texel index through the address mode of dimension a; false: border. */
static bool address(const struct tex_run *r, unsigned a, int64_t i,
                    int64_t n, int64_t *out)
{
    unsigned mode = r->d.addr[a];
    if (!r->d.norm_coords && (mode == PTX_TEX_WRAP ||
                              mode == PTX_TEX_MIRROR)) {
        mode = PTX_TEX_CLAMP;
    }
    switch (mode) {
    case PTX_TEX_WRAP:
        i %= n;
        *out = i < 0 ? i + n : i;
        return true;
    case PTX_TEX_MIRROR:
        i %= 2 * n;
        if (i < 0) {
            i += 2 * n;
        }
        *out = i >= n ? 2 * n - 1 - i : i;
        return true;
    case PTX_TEX_BORDER:
        *out = i;
        return i >= 0 && i < n;
    default:
        *out = i < 0 ? 0 : i >= n ? n - 1 : i;
        return true;
    }
}

/* The texel at integer indices (before addressing) ix[0..dims). */
static int texel_at(struct tex_run *r, unsigned dims, const int64_t *ix,
                    int64_t s, struct texel *t)
{
    const int64_t size[3] = {r->d.width, r->d.height, r->d.depth};
    int64_t v[3] = {0, 0, 0};
    for (unsigned a = 0; a < dims; a++) {
        if (!address(r, a, ix[a], size[a], &v[a])) {
            texel_border(r, t);
            return 0;
        }
    }
    return texel_read(r, v[0], v[1], v[2], s, t);
}

/* A float coordinate as a finite value that floor() may take. */
static double coord(float f)
{
    if (!(f == f)) {
        return 0.0;
    }
    return f < -1e9f ? -1e9 : f > 1e9f ? 1e9 : (double)f;
}

/* Weighted sum of the 2^dims texels around u[] (linear filtering). */
static int sample_linear(struct tex_run *r, unsigned dims, const double *u,
                         int64_t s, struct texel *out)
{
    int64_t i0[3];
    float alpha[3];
    for (unsigned a = 0; a < dims; a++) {
        double t = u[a] - 0.5;
        double fl = floor(t);
        i0[a] = (int64_t)fl;
        /* 8 fractional bits, as the texture unit holds the weight:
         * to the nearest 1/256, halves up (an H200 gives 1/256 for a
         * fraction of 2/1024 and 3/256 for 10/1024) */
        alpha[a] = (float)(floor((t - fl) * 256.0 + 0.5) / 256.0);
    }
    memset(out, 0, sizeof(*out));
    for (unsigned corner = 0; corner < (1u << dims); corner++) {
        int64_t ix[3];
        float wgt = 1.0f;
        for (unsigned a = 0; a < dims; a++) {
            unsigned hi = (corner >> a) & 1u;
            ix[a] = i0[a] + hi;
            wgt *= hi ? alpha[a] : 1.0f - alpha[a];
        }
        struct texel t;
        if (texel_at(r, dims, ix, s, &t)) {
            return -1;
        }
        for (unsigned c = 0; c < 4; c++) {
            out->f[c] += wgt * t.f[c];
        }
    }
    return 0;
}

/* Face and face coordinates in [0, 1] of a cubemap direction (the CUDA
 * programming guide's table of cubemap faces). */
static unsigned cube_face(float x, float y, float z, float *s, float *t)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, sc, tc;
    unsigned face;
    if (ax >= ay && ax >= az) {
        face = x >= 0 ? 0 : 1;
        m = ax;
        sc = x >= 0 ? -z : z;
        tc = -y;
    } else if (ay >= az) {
        face = y >= 0 ? 2 : 3;
        m = ay;
        sc = x;
        tc = y >= 0 ? z : -z;
    } else {
        face = z >= 0 ? 4 : 5;
        m = az;
        sc = z >= 0 ? x : -x;
        tc = -y;
    }
    if (m == 0) {
        m = 1;
    }
    *s = (sc / m + 1.0f) * 0.5f;
    *t = (tc / m + 1.0f) * 0.5f;
    return face;
}

static void put_texel(struct tex_run *r, unsigned l, const struct texel *t)
{
    const struct ptx_opd *o = &r->in->o[0];
    for (unsigned c = 0; c < o->n; c++) {
        if (o->vregs[c] == PTX_NOREG) {
            continue;
        }
        uint64_t v;
        if (r->in->type == PT_F32) {
            v = r->floats ? bits32(t->f[c]) : bits32((float)(int32_t)t->u[c]);
        } else {
            v = r->floats ? (uint64_t)(uint32_t)(int32_t)t->f[c] : t->u[c];
        }
        R(r->w, o->vregs[c], l) = v;
    }
}

/* The coordinate register c of lane l, as float (ctype f32) or integer. */
static uint64_t coord_reg(const struct tex_run *r, unsigned c, unsigned l)
{
    uint16_t reg = r->in->o[2].vregs[c];
    return reg == PTX_NOREG ? 0 : R(r->w, reg, l);
}

static int64_t clamp_layer(int64_t v, int64_t n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* tex and tld4 for lane l at the descriptor's (level's) geometry. */
static int fetch_at(struct tex_run *r, unsigned l, struct texel *out)
{
    const struct ptx_insn *in = r->in;
    const struct ptx_tex_desc *d = &r->d;
    unsigned dims, first = 0;
    int64_t layer = 0;
    float fc[3] = {0, 0, 0};
    switch (in->mode) {
    case PTX_TEX_GA1D:
    case PTX_TEX_GA2D:
        layer = clamp_layer((int32_t)coord_reg(r, 0, l), d->layers);
        first = 1;
        dims = in->mode == PTX_TEX_GA1D ? 1 : 2;
        break;
    case PTX_TEX_G_CUBE:
    case PTX_TEX_G_ACUBE: {
        if (in->mode == PTX_TEX_G_ACUBE) {
            layer = clamp_layer((int32_t)coord_reg(r, 0, l), d->layers / 6);
            first = 1;
        }
        float s, t;
        unsigned face = cube_face(f32(coord_reg(r, first, l)),
                                  f32(coord_reg(r, first + 1, l)),
                                  f32(coord_reg(r, first + 2, l)), &s, &t);
        layer = layer * 6 + face;
        double u[2] = {coord(s) * d->width, coord(t) * d->height};
        struct tex_run cr = *r;
        cr.d.addr[0] = cr.d.addr[1] = PTX_TEX_CLAMP;
        cr.d.norm_coords = 1;
        struct texel tx;
        if (d->filter_linear && r->floats) {
            if (sample_linear(&cr, 2, u, layer, &tx)) {
                return -1;
            }
        } else {
            int64_t ix[2] = {(int64_t)floor(u[0]), (int64_t)floor(u[1])};
            if (texel_at(&cr, 2, ix, layer, &tx)) {
                return -1;
            }
        }
        *out = tx;
        return 0;
    }
    default:
        dims = in->mode == PTX_TEX_G1D ? 1 : in->mode == PTX_TEX_G2D ? 2 : 3;
        break;
    }
    const int64_t size[3] = {d->width, d->height, d->depth};
    struct texel tx;
    if (in->type2 == PT_S32) {
        /* integer coordinates: the texel itself, no filtering; linear
         * memory (tex1Dfetch) reads 0 outside it */
        int64_t ix[3] = {0, 0, 0};
        for (unsigned a = 0; a < dims; a++) {
            ix[a] = (int32_t)coord_reg(r, first + a, l);
        }
        if ((d->flags & PTX_TEX_LINEAR) && (ix[0] < 0 || ix[0] >= size[0])) {
            memset(&tx, 0, sizeof(tx));
        } else {
            if (texel_at(r, dims, ix, layer, &tx)) {
                return -1;
            }
        }
        *out = tx;
        return 0;
    }
    double u[3];
    for (unsigned a = 0; a < dims; a++) {
        fc[a] = f32(coord_reg(r, first + a, l));
        u[a] = coord(fc[a]) * (d->norm_coords ? (double)size[a] : 1.0);
    }
    if (in->op == OP_TLD4) {
        /* the footprint of linear filtering, each texel's component
         * in->cmp: (i0, j1), (i1, j1), (i1, j0), (i0, j0) */
        int64_t i0 = (int64_t)floor(u[0] - 0.5), j0 = (int64_t)floor(u[1] -
                                                                    0.5);
        static const unsigned char di[4] = {0, 1, 1, 0}, dj[4] = {1, 1, 0, 0};
        struct texel o4;
        for (unsigned k = 0; k < 4; k++) {
            int64_t ix[2] = {i0 + di[k], j0 + dj[k]};
            struct texel t;
            if (texel_at(r, 2, ix, layer, &t)) {
                return -1;
            }
            o4.f[k] = t.f[in->cmp];
            o4.u[k] = t.u[in->cmp];
        }
        *out = o4;
        return 0;
    }
    if (d->filter_linear && r->floats) {
        if (sample_linear(r, dims, u, layer, &tx)) {
            return -1;
        }
    } else {
        int64_t ix[3];
        for (unsigned a = 0; a < dims; a++) {
            ix[a] = (int64_t)floor(u[a]);
        }
        if (texel_at(r, dims, ix, layer, &tx)) {
            return -1;
        }
    }
    *out = tx;
    return 0;
}

/* The level of detail of .level (its operand) or .grad (the gradients'
 * longer one, in texels: log2 of it). */
static float lane_lod(const struct tex_run *r, unsigned l)
{
    const struct ptx_insn *in = r->in;
    if (in->cmp == 1) {
        return f32(R(r->w, in->o[3].reg, l));
    }
    const double size[3] = {r->d.width, r->d.height, r->d.depth};
    double m = 0;
    for (unsigned g = 3; g <= 4; g++) {
        double sq = 0;
        for (unsigned a = 0; a < in->o[g].n && a < 3; a++) {
            uint16_t reg = in->o[g].vregs[a];
            double v = reg == PTX_NOREG ? 0 : f32(R(r->w, reg, l));
            v *= r->d.norm_coords ? size[a] : 1.0;
            sq += v * v;
        }
        m = sq > m ? sq : m;
    }
    return m > 0 ? (float)(0.5 * log2(m)) : -1e9f;
}

/* tex and tld4 for lane l: at level 0, or at the mipmap level(s) the
 * level of detail picks (plus bias, within the clamps and the levels). */
static int fetch_lane(struct tex_run *r, unsigned l)
{
    struct texel t;
    if (r->d.n_levels <= 1 || r->in->cmp == 0 || r->in->op == OP_TLD4) {
        if (fetch_at(r, l, &t)) {
            return -1;
        }
        put_texel(r, l, &t);
        return 0;
    }
    float lod = lane_lod(r, l) + r->d.lod_bias;
    float top = (float)(r->d.n_levels - 1);
    float hi = r->d.lod_max < top ? r->d.lod_max : top;
    lod = lod > hi ? hi : lod;
    lod = lod < r->d.lod_min ? r->d.lod_min : lod;
    lod = lod < 0 ? 0 : lod;
    unsigned l0 = r->d.mip_linear ? (unsigned)floorf(lod)
                                  : (unsigned)floorf(lod + 0.5f);
    float frac = r->d.mip_linear ? lod - (float)l0 : 0.0f;
    struct tex_run lr = *r;
    at_level(&lr.d, l0);
    if (fetch_at(&lr, l, &t)) {
        return -1;
    }
    if (frac > 0 && l0 + 1 < r->d.n_levels && r->floats) {
        struct texel t1;
        lr.d = r->d;
        at_level(&lr.d, l0 + 1);
        if (fetch_at(&lr, l, &t1)) {
            return -1;
        }
        for (unsigned c = 0; c < 4; c++) {
            t.f[c] += frac * (t1.f[c] - t.f[c]);
        }
    }
    put_texel(r, l, &t);
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Surfaces                                                                */
/* ---------------------------------------------------------------------- */

static int surface_lane(struct tex_run *r, unsigned l)
{
    const struct ptx_insn *in = r->in;
    const struct ptx_tex_desc *d = &r->d;
    unsigned esz = ptx_type_bytes((enum ptx_type)in->type);
    unsigned n = esz * in->vec;
    unsigned first = 0;
    int64_t layer = 0;
    if (in->mode == PTX_TEX_GA1D || in->mode == PTX_TEX_GA2D) {
        layer = (int32_t)coord_reg(r, 0, l);
        first = 1;
    }
    unsigned dims = in->mode == PTX_TEX_G1D || in->mode == PTX_TEX_GA1D ? 1
                    : in->mode == PTX_TEX_G3D                       ? 3
                                                                    : 2;
    int64_t c[3] = {0, 0, 0};
    for (unsigned a = 0; a < dims; a++) {
        c[a] = (int32_t)coord_reg(r, first + a, l);
    }
    const int64_t lim[3] = {(int64_t)d->width * d->elem_bytes - n + 1,
                            d->height, d->depth};
    bool out = layer < 0 || layer >= d->layers;
    for (unsigned a = 0; a < 3; a++) {
        out = out || c[a] < 0 || c[a] >= lim[a];
    }
    if (out) {
        switch (in->boolop) {
        case PTX_TEX_BOUND_TRAP:
            return ptx__warp_fail(r->w, in, "surface %s out of bounds at "
                                  "(%lld, %lld, %lld) layer %lld (x in "
                                  "bytes; %ux%ux%u of %u bytes)",
                                  in->op == OP_SUST ? "store" : "load",
                                  (long long)c[0], (long long)c[1],
                                  (long long)c[2], (long long)layer,
                                  d->width, d->height, d->depth,
                                  d->elem_bytes);
        case PTX_TEX_BOUND_ZERO:
            if (in->op == OP_SULD) {
                for (unsigned k = 0; k < in->vec; k++) {
                    if (in->o[0].vregs[k] != PTX_NOREG) {
                        R(r->w, in->o[0].vregs[k], l) = 0;
                    }
                }
            }
            return 0;
        default:
            for (unsigned a = 0; a < 3; a++) {
                c[a] = c[a] < 0 ? 0 : c[a] >= lim[a] ? lim[a] - 1 : c[a];
            }
            if (lim[0] < 1) {
                c[0] = 0;
            }
            layer = clamp_layer(layer, d->layers);
            break;
        }
    }
    if (lim[0] < 1) {
        return ptx__warp_fail(r->w, in, "a surface access of %u bytes in "
                              "rows of %u", n, d->width * d->elem_bytes);
    }
    uint64_t va = d->base + ((uint64_t)layer * d->depth + (uint64_t)c[2]) *
                                d->slice +
                  (uint64_t)c[1] * d->pitch + (uint64_t)c[0];
    uint8_t b[32];
    const struct ptx_tex_ops *ops = r->w->ctx.tex_ops;
    if (in->op == OP_SUST) {
        for (unsigned k = 0; k < in->vec; k++) {
            uint16_t reg = in->o[0].vregs[k];
            uint64_t v = reg == PTX_NOREG ? 0 : R(r->w, reg, l);
            memcpy(b + k * esz, &v, esz); /* little-endian host */
        }
        if (ops->write(r->w->ctx.tex_user, va, b, n)) {
            return ptx__warp_fail(r->w, in, "surface store at 0x%llx: not "
                                  "memory the kernel may write",
                                  (unsigned long long)va);
        }
        return 0;
    }
    if (ops->read(r->w->ctx.tex_user, va, b, n)) {
        return ptx__warp_fail(r->w, in, "surface load at 0x%llx: not "
                              "memory the kernel may read",
                              (unsigned long long)va);
    }
    for (unsigned k = 0; k < in->vec; k++) {
        uint64_t v = 0;
        memcpy(&v, b + k * esz, esz);
        if (in->o[0].vregs[k] != PTX_NOREG) {
            R(r->w, in->o[0].vregs[k], l) = v;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Queries and the instruction                                             */
/* ---------------------------------------------------------------------- */

static uint32_t query(const struct ptx_tex_desc *d, unsigned q)
{
    switch (q) {
    case PTX_TQ_WIDTH:
        return d->width;
    case PTX_TQ_HEIGHT:
        return d->height;
    case PTX_TQ_DEPTH:
        return d->depth;
    case PTX_TQ_ARRAY_SIZE:
        return d->flags & PTX_TEX_CUBE ? d->layers / 6 : d->layers;
    case PTX_TQ_MIP_LEVELS:
        return d->n_levels > 1 ? d->n_levels : 1;
    case PTX_TQ_SAMPLES:
        return 1;
    case PTX_TQ_NORM_COORDS:
        return d->norm_coords;
    case PTX_TQ_FILTER:
        return d->filter_linear;
    case PTX_TQ_ADDR0:
    case PTX_TQ_ADDR1:
    case PTX_TQ_ADDR2:
        return d->addr[q - PTX_TQ_ADDR0];
    default:
        return 0;
    }
}

int ptx__exec_tex(struct ptx_warp *w, const struct ptx_insn *in,
                  uint32_t exec)
{
    const struct ptx_tex_ops *ops = w->ctx.tex_ops;
    if (!ops) {
        return ptx__warp_fail(w, in, "texture and surface instructions "
                              "need an executor that serves them");
    }
    struct tex_run r;
    memset(&r, 0, sizeof(r));
    r.w = w;
    r.in = in;
    bool have = false;
    uint64_t handle = 0;
    bool surf_op = in->op == OP_SULD || in->op == OP_SUST ||
                   in->op == OP_SUQ;
    LANES(exec, l) {
        uint64_t h = R(w, in->o[1].reg, l);
        if (!have || h != handle) {
            char why[160];
            if (ops->lookup(w->ctx.tex_user, h, &r.d, why, sizeof(why))) {
                return ptx__warp_fail(w, in, "%s handle 0x%llx: %s",
                                      surf_op ? "surface" : "texture",
                                      (unsigned long long)h, why);
            }
            bool is_surf = (r.d.flags & PTX_TEX_SURFACE) != 0;
            if (is_surf != surf_op) {
                return ptx__warp_fail(w, in, "handle 0x%llx is a %s object",
                                      (unsigned long long)h,
                                      is_surf ? "surface" : "texture");
            }
            have = true;
            handle = h;
            r.floats = r.d.chan_kind == PTX_TEX_FLOAT ||
                       (r.d.read_normalized && r.d.chan_bits[0] < 32);
        }
        int rc = 0;
        switch (in->op) {
        case OP_TXQ:
        case OP_SUQ:
            R(w, in->o[0].reg, l) = query(&r.d, in->cmp);
            break;
        case OP_SULD:
        case OP_SUST:
            rc = surface_lane(&r, l);
            break;
        default:
            rc = fetch_lane(&r, l);
            break;
        }
        if (rc) {
            return -1;
        }
    }
    return 0;
}
