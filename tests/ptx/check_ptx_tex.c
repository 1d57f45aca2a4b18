/*
 * tests/ptx/check_ptx_tex.c - the texture and surface instructions
 * (ptx/interp_tex.c) on the flat executor, over descriptors in host
 * memory (a handle is a descriptor's host address here): point and
 * linear filtering with the 8-bit weights, each address mode, normalized
 * and unnormalized coordinates, both read modes, integer texels, 1D
 * linear memory, 3D, layered and cubemap textures, mipmap levels of
 * .level and .grad, tld4, surfaces with
 * each boundary mode, txq; and what is refused. Kernels: tests/ptx/tex.ptx.
 */
#include <config.h>

#include "tests/check_p2psim.h"
#include "tests/ptx/ptx_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx_tex.h"

Suite *make_ptx_tex_suite(void);

static struct ptx_module *mod;

static void tex_setup(void)
{
    mod = ptx_test_module("tex.ptx");
}

static void tex_teardown(void)
{
    ptx_module_free(mod);
    mod = NULL;
}

static int h_lookup(void *user, uint64_t handle, struct ptx_tex_desc *d,
                    char *why, size_t wl)
{
    (void)user;
    memcpy(d, (const void *)(uintptr_t)handle, sizeof(*d));
    return ptx_tex_desc_check(d, why, wl);
}

static int h_read(void *user, uint64_t va, void *buf, unsigned n)
{
    (void)user;
    memcpy(buf, (const void *)(uintptr_t)va, n);
    return 0;
}

static int h_write(void *user, uint64_t va, const void *buf, unsigned n)
{
    (void)user;
    memcpy((void *)(uintptr_t)va, buf, n);
    return 0;
}

static const struct ptx_tex_ops host_ops = {h_lookup, h_read, h_write};

/* A descriptor of w x h x depth elements of n_chan channels of bits. */
static struct ptx_tex_desc desc_of(void *mem, uint32_t w, uint32_t h,
                                   uint32_t depth, unsigned n_chan,
                                   unsigned bits, unsigned kind)
{
    struct ptx_tex_desc d;
    memset(&d, 0, sizeof(d));
    d.magic = PTX_TEX_MAGIC;
    d.version = PTX_TEX_VERSION;
    d.base = (uintptr_t)mem;
    d.n_chan = (uint8_t)n_chan;
    for (unsigned c = 0; c < n_chan; c++) {
        d.chan_bits[c] = (uint8_t)bits;
    }
    d.chan_kind = (uint8_t)kind;
    d.elem_bytes = (uint8_t)(n_chan * bits / 8);
    d.width = w;
    d.height = h;
    d.depth = depth;
    d.layers = 1;
    d.pitch = (uint64_t)w * d.elem_bytes;
    d.slice = d.pitch * h;
    d.size = d.slice * depth;
    d.flags = depth > 1 ? 3 : h > 1 ? 2 : 1;
    d.addr[0] = d.addr[1] = d.addr[2] = PTX_TEX_CLAMP;
    return d;
}

/* Run kernel name over n threads with coordinates c (4 words each);
 * results in o (4 words each). */
static int run(const char *name, const struct ptx_tex_desc *d, unsigned n,
               const void *c, void *o, struct ptx_error *err)
{
    const struct ptx_kernel *k = ptx_module_find(mod, name);
    ck_assert_msg(k != NULL, "no kernel %s", name);
    uint64_t h = (uintptr_t)d;
    const void *cp = c;
    void *op = o;
    void *args[] = {&h, &cp, &op};
    struct ptx_flat_launch l = {
        .kernel = k, .grid = {1, 1, 1}, .block = {n, 1, 1}, .args = args,
        .tex_ops = &host_ops,
    };
    return ptx_flat_run(&l, NULL, err);
}

/* A 4x4 float texture whose texel (x, y) is x + 10 y. */
static float grid4[16];

static struct ptx_tex_desc grid_desc(void)
{
    for (unsigned i = 0; i < 16; i++) {
        grid4[i] = (float)(i % 4) + 10.0f * (float)(i / 4);
    }
    return desc_of(grid4, 4, 4, 1, 1, 32, PTX_TEX_FLOAT);
}

/* Sample the grid at (x, y) with d; the first channel. */
static float sample(const struct ptx_tex_desc *d, float x, float y)
{
    float c[4] = {x, y, 0, 0}, o[4];
    struct ptx_error err;
    int rc = run("tex2d_f", d, 1, c, o, &err);
    ck_assert_msg(rc == 0, "%s", err.msg);
    return o[0];
}

START_TEST(tex_point_clamp)
{
    struct ptx_tex_desc d = grid_desc();
    ck_assert_float_eq(sample(&d, 1.5f, 2.5f), 21.0f);
    ck_assert_float_eq(sample(&d, 1.99f, 0.0f), 1.0f);
    ck_assert_float_eq(sample(&d, -3.0f, 9.0f), 30.0f);  /* clamped */
    ck_assert_float_eq(sample(&d, 7.0f, -1.0f), 3.0f);
    /* one channel: y, z and w read 0 (an H200's (v, 0, 0, 0)) */
    float c[4] = {0.5f, 0.5f, 0, 0}, o[4];
    struct ptx_error err;
    ck_assert_int_eq(run("tex2d_f", &d, 1, c, o, &err), 0);
    ck_assert_float_eq(o[1], 0.0f);
    ck_assert_float_eq(o[2], 0.0f);
    ck_assert_float_eq(o[3], 0.0f);
    /* NaN coordinates read texel 0 */
    ck_assert_float_eq(sample(&d, NAN, NAN), 0.0f);
}
END_TEST

START_TEST(tex_linear_weights)
{
    struct ptx_tex_desc d = grid_desc();
    d.filter_linear = 1;
    /* (1, 1): halfway between texels 0 and 1 in both dimensions */
    ck_assert_float_eq(sample(&d, 1.0f, 1.0f), 5.5f);
    /* on a texel centre: the texel itself */
    ck_assert_float_eq(sample(&d, 2.5f, 1.5f), 12.0f);
    /* x - 0.5 = 0.8: the weight is 205/256 (8 fractional bits), not 0.8 */
    ck_assert_float_eq(sample(&d, 1.3f, 0.5f), 205.0f / 256.0f);
    /* halves round up, as on an H200: 2/1024 weighs 1/256, 10/1024 3/256 */
    ck_assert_float_eq(sample(&d, 0.5f + 2.0f / 1024, 0.5f), 1.0f / 256);
    ck_assert_float_eq(sample(&d, 0.5f + 10.0f / 1024, 0.5f), 3.0f / 256);
    /* 1/1000 of a texel rounds to weight 0 */
    ck_assert_float_eq(sample(&d, 0.501f, 0.5f), 0.0f);
    /* clamp at the edge: both texels are texel 3 */
    ck_assert_float_eq(sample(&d, 3.9f, 0.5f), 3.0f);
    /* border: outside texels read the border colour (100) */
    d.addr[0] = d.addr[1] = PTX_TEX_BORDER;
    d.border[0] = 100.0f;
    ck_assert_float_eq(sample(&d, 0.0f, 0.5f), 50.0f);
}
END_TEST

START_TEST(tex_address_modes)
{
    struct ptx_tex_desc d = grid_desc();
    d.norm_coords = 1;
    d.addr[0] = d.addr[1] = PTX_TEX_WRAP;
    /* x = 1.25 -> 5 -> texel 1; y = -0.2 -> -0.8 -> -1 -> texel 3 */
    ck_assert_float_eq(sample(&d, 1.25f, -0.2f), 31.0f);
    d.addr[0] = d.addr[1] = PTX_TEX_MIRROR;
    /* 5 in a period of 8 folds to 2; -1 folds to 0 */
    ck_assert_float_eq(sample(&d, 1.25f, -0.2f), 2.0f);
    /* 9 -> 1 (second period, not mirrored) */
    ck_assert_float_eq(sample(&d, 2.25f, 0.0f), 1.0f);
    d.addr[0] = d.addr[1] = PTX_TEX_CLAMP;
    ck_assert_float_eq(sample(&d, 1.25f, -0.2f), 3.0f);
    ck_assert_float_eq(sample(&d, 0.5f, 0.5f), 22.0f);
    d.addr[0] = d.addr[1] = PTX_TEX_BORDER;
    d.border[0] = 7.0f;
    ck_assert_float_eq(sample(&d, -0.1f, 0.5f), 7.0f);
    ck_assert_float_eq(sample(&d, 0.99f, 0.99f), 33.0f);
    /* wrap and mirror need normalized coordinates: otherwise clamp */
    d.norm_coords = 0;
    d.addr[0] = d.addr[1] = PTX_TEX_WRAP;
    ck_assert_float_eq(sample(&d, 5.0f, 0.0f), 3.0f);
    /* linear filtering with wrap reaches across the edge: x = 0 is
     * halfway between texel 3 (-1 wrapped) and texel 0 */
    d.norm_coords = 1;
    d.filter_linear = 1;
    ck_assert_float_eq(sample(&d, 0.0f, 0.125f), 1.5f);
}
END_TEST

START_TEST(tex_read_modes)
{
    uint8_t u8[4] = {255, 51, 0, 200};
    struct ptx_tex_desc d = desc_of(u8, 4, 1, 1, 1, 8, PTX_TEX_UNSIGNED);
    d.read_normalized = 1;
    ck_assert_float_eq(sample(&d, 0.5f, 0.0f), 1.0f);
    ck_assert_float_eq(sample(&d, 1.5f, 0.0f), 0.2f);
    /* normalized reads filter: halfway between 255 and 51 */
    d.filter_linear = 1;
    ck_assert_float_eq(sample(&d, 1.0f, 0.5f), 0.5f * (1.0f + 0.2f));
    int8_t s8[2] = {-128, 127};
    d = desc_of(s8, 2, 1, 1, 1, 8, PTX_TEX_SIGNED);
    d.read_normalized = 1;
    ck_assert_float_eq(sample(&d, 0.5f, 0.0f), -1.0f);
    ck_assert_float_eq(sample(&d, 1.5f, 0.0f), 1.0f);
    /* element type: integers as they are, into s32 registers; linear
     * filtering does not apply to them */
    int16_t s16[2 * 2] = {-5, 7, 300, -300};
    d = desc_of(s16, 2, 1, 1, 2, 16, PTX_TEX_SIGNED);
    d.filter_linear = 1;
    float c[4] = {1.5f, 0.0f, 0, 0};
    int32_t o[4];
    struct ptx_error err;
    ck_assert_int_eq(run("tex2d_i", &d, 1, c, o, &err), 0);
    ck_assert_int_eq(o[0], 300);
    ck_assert_int_eq(o[1], -300);
    ck_assert_int_eq(o[2], 0);
    /* half floats */
    uint16_t half[2] = {0x3c00, 0xc000}; /* 1, -2 */
    d = desc_of(half, 2, 1, 1, 1, 16, PTX_TEX_FLOAT);
    ck_assert_float_eq(sample(&d, 1.5f, 0.0f), -2.0f);
    ck_assert_float_eq(sample(&d, 0.5f, 0.0f), 1.0f);
}
END_TEST

START_TEST(tex_1d_3d_layered_cube)
{
    struct ptx_error err;
    /* 1D linear memory with integer coordinates: 0 outside */
    float lin[5] = {1, 2, 3, 4, 5};
    struct ptx_tex_desc d = desc_of(lin, 5, 1, 1, 1, 32, PTX_TEX_FLOAT);
    d.flags |= PTX_TEX_LINEAR;
    int32_t ci[3][4] = {{0}, {4}, {5}};
    float o[3][4];
    ck_assert_int_eq(run("tex1d_s", &d, 3, ci, o, &err), 0);
    ck_assert_float_eq(o[0][0], 1.0f);
    ck_assert_float_eq(o[1][0], 5.0f);
    ck_assert_float_eq(o[2][0], 0.0f);
    /* 3D: 3x2x4, texel value x + 10 y + 100 z */
    float vol[4][2][3];
    for (unsigned z = 0; z < 4; z++) {
        for (unsigned y = 0; y < 2; y++) {
            for (unsigned x = 0; x < 3; x++) {
                vol[z][y][x] = (float)(x + 10 * y + 100 * z);
            }
        }
    }
    d = desc_of(vol, 3, 2, 4, 1, 32, PTX_TEX_FLOAT);
    float c3[2][4] = {{1.5f, 0.5f, 2.5f, 0}, {2.0f, 1.0f, 1.0f, 0}};
    ck_assert_int_eq(run("tex3d", &d, 1, c3, o, &err), 0);
    ck_assert_float_eq(o[0][0], 201.0f);
    d.filter_linear = 1;
    ck_assert_int_eq(run("tex3d", &d, 2, c3, o, &err), 0);
    ck_assert_float_eq(o[1][0], 1.5f + 5.0f + 50.0f);
    /* layered: layer 2 of 4x4x3, the layer an integer in word 3 */
    float layers[3][16];
    for (unsigned l = 0; l < 3; l++) {
        for (unsigned i = 0; i < 16; i++) {
            layers[l][i] = (float)(1000 * l + i);
        }
    }
    d = desc_of(layers, 4, 4, 1, 1, 32, PTX_TEX_FLOAT);
    d.flags = 2 | PTX_TEX_LAYERED;
    d.layers = 3;
    d.size = sizeof(layers);
    union { float f; int32_t i; } ca[2][4] = {
        {{.f = 1.5f}, {.f = 2.5f}, {.f = 0}, {.i = 2}},
        {{.f = 1.5f}, {.f = 2.5f}, {.f = 0}, {.i = 9}},  /* clamped */
    };
    ck_assert_int_eq(run("texa2d", &d, 2, ca, o, &err), 0);
    ck_assert_float_eq(o[0][0], 2009.0f);
    ck_assert_float_eq(o[1][0], 2009.0f);
    /* cubemap of 2x2 faces: face f's texels are 10 f + texel */
    float cube[6][4];
    for (unsigned f = 0; f < 6; f++) {
        for (unsigned i = 0; i < 4; i++) {
            cube[f][i] = (float)(10 * f + i);
        }
    }
    d = desc_of(cube, 2, 2, 1, 1, 32, PTX_TEX_FLOAT);
    d.flags = 2 | PTX_TEX_CUBE;
    d.layers = 6;
    d.size = sizeof(cube);
    /* +x: s = -z, t = -y; -y: s = x, t = -z; +z: s = x, t = -y */
    float cc[3][4] = {{1.0f, -0.5f, -0.5f, 0}, {0.5f, -1.0f, -0.5f, 0},
                      {-0.5f, 0.5f, 1.0f, 0}};
    ck_assert_int_eq(run("texcube", &d, 3, cc, o, &err), 0);
    ck_assert_float_eq(o[0][0], 3.0f);   /* face 0, s 0.75 t 0.75 */
    ck_assert_float_eq(o[1][0], 33.0f);  /* face 3, s 0.75 t = -z 0.75 */
    ck_assert_float_eq(o[2][0], 40.0f);  /* face 4, s 0.25 t 0.25 */
}
END_TEST

START_TEST(tex_tld4_level_query)
{
    struct ptx_tex_desc d = grid_desc();
    struct ptx_error err;
    float c[4] = {1.0f, 1.0f, 0.0f, 0}, o[4];
    /* the footprint of (1, 1): texels (0,1) (1,1) (1,0) (0,0) */
    ck_assert_int_eq(run("tld4r", &d, 1, c, o, &err), 0);
    ck_assert_float_eq(o[0], 10.0f);
    ck_assert_float_eq(o[1], 11.0f);
    ck_assert_float_eq(o[2], 1.0f);
    ck_assert_float_eq(o[3], 0.0f);
    /* no mipmaps: any level reads level 0 */
    c[0] = 2.5f;
    c[2] = 3.0f;
    ck_assert_int_eq(run("texlevel", &d, 1, c, o, &err), 0);
    ck_assert_float_eq(o[0], 12.0f);
    uint32_t q[4];
    d.flags = 2 | PTX_TEX_LAYERED;
    d.layers = 1;
    ck_assert_int_eq(run("query", &d, 1, c, q, &err), 0);
    ck_assert_uint_eq(q[0], 4);
    ck_assert_uint_eq(q[1], 4);
    ck_assert_uint_eq(q[2], 1);
    ck_assert_uint_eq(q[3], 1);
}
END_TEST

START_TEST(tex_mipmaps)
{
    /* levels of 4x4, 2x2 and 1x1 texels reading 0, 100 and 200 */
    static float l0[16], l1[4] = {100, 100, 100, 100}, l2[1] = {200};
    struct ptx_tex_desc d = desc_of(l0, 4, 4, 1, 1, 32, PTX_TEX_FLOAT);
    float *lv[3] = {l0, l1, l2};
    d.n_levels = 3;
    d.norm_coords = 1;
    d.lod_min = 0;
    d.lod_max = 100;
    for (unsigned l = 0; l < 3; l++) {
        struct ptx_tex_desc v = desc_of(lv[l], 4u >> l, 4u >> l, 1, 1, 32,
                                        PTX_TEX_FLOAT);
        d.level[l] = (struct ptx_tex_level){v.base, v.size, v.pitch, v.slice,
                                            v.width, v.height, 1, 0};
    }
    char why[200];
    ck_assert_msg(ptx_tex_desc_check(&d, why, sizeof(why)) == 0, "%s", why);
    struct ptx_error err;
    /* .level: point between levels rounds the level of detail */
    const float lods[][2] = {{1.0f, 100}, {0.4f, 0}, {0.5f, 100},
                             {5.0f, 200}, {-3.0f, 0}};
    for (unsigned i = 0; i < 5; i++) {
        float c[4] = {0.5f, 0.5f, lods[i][0], 0}, o[4];
        ck_assert_int_eq(run("texlevel", &d, 1, c, o, &err), 0);
        ck_assert_msg(o[0] == lods[i][1], "lod %g: %g", lods[i][0], o[0]);
    }
    float c[4] = {0.5f, 0.5f, 0.25f, 0}, o[4];
    d.mip_linear = 1;
    ck_assert_int_eq(run("texlevel", &d, 1, c, o, &err), 0);
    ck_assert_float_eq(o[0], 25.0f);
    d.mip_linear = 0;
    d.lod_max = 1;                      /* the clamp */
    c[2] = 5.0f;
    ck_assert_int_eq(run("texlevel", &d, 1, c, o, &err), 0);
    ck_assert_float_eq(o[0], 100.0f);
    d.lod_bias = 1;                     /* the bias */
    c[2] = 0.0f;
    ck_assert_int_eq(run("texlevel", &d, 1, c, o, &err), 0);
    ck_assert_float_eq(o[0], 100.0f);
    d.lod_bias = 0;
    d.lod_max = 100;
    /* .grad: a gradient of 0.5 of a 4-texel width is 2 texels: level 1 */
    float g[4] = {0.5f, 0.5f, 0.5f, 0.0f};
    ck_assert_int_eq(run("texgrad", &d, 1, g, o, &err), 0);
    ck_assert_float_eq(o[0], 100.0f);
    g[2] = 0.25f;                       /* 1 texel: level 0 */
    ck_assert_int_eq(run("texgrad", &d, 1, g, o, &err), 0);
    ck_assert_float_eq(o[0], 0.0f);
    /* plain tex reads level 0; txq counts the levels */
    ck_assert_float_eq(sample(&d, 0.5f, 0.5f), 0.0f);
    d.n_levels = PTX_TEX_MAX_LEVELS + 1;
    ck_assert_int_ne(ptx_tex_desc_check(&d, why, sizeof(why)), 0);
    d.n_levels = 3;
    d.level[2].size = 1;                /* a level short of its texel */
    ck_assert_int_ne(ptx_tex_desc_check(&d, why, sizeof(why)), 0);
}
END_TEST

START_TEST(tex_surfaces)
{
    /* 3 x 2 elements of 4 bytes: x is in bytes */
    uint32_t mem[6] = {1, 2, 3, 4, 5, 6};
    struct ptx_tex_desc d = desc_of(mem, 3, 2, 1, 1, 32, PTX_TEX_UNSIGNED);
    d.flags |= PTX_TEX_SURFACE;
    struct ptx_error err;
    int32_t c[4][4] = {{4, 1}, {8, 0}, {12, 0}, {-4, 1}};
    uint32_t o[4][4];
    ck_assert_int_eq(run("surf_zero", &d, 4, c, o, &err), 0);
    ck_assert_uint_eq(o[0][0], 5);
    ck_assert_uint_eq(o[1][0], 3);
    ck_assert_uint_eq(o[2][0], 0);      /* outside: reads 0 */
    ck_assert_uint_eq(o[3][0], 0);
    ck_assert_uint_eq(mem[4], 1005);    /* written back */
    ck_assert_uint_eq(mem[2], 1003);
    ck_assert_uint_eq(mem[5], 6);       /* outside: the store is dropped */
    ck_assert_int_eq(run("surf_clamp", &d, 4, c, o, &err), 0);
    ck_assert_uint_eq(o[2][0], 1003);   /* x 12 clamps to the last */
    ck_assert_uint_eq(o[3][0], 4);      /* x -4 clamps to 0 */
    /* vectors of bytes and halves */
    int32_t cv[4] = {4, 0};
    ck_assert_int_eq(run("surf_v4", &d, 1, cv, o, &err), 0);
    ck_assert_uint_eq(mem[1], 0);
    ck_assert_uint_eq(o[0][0], 0);
    /* trap: the warp fails, naming the coordinates */
    int32_t ct[4] = {9, 0};
    ck_assert_int_ne(run("surf_trap", &d, 1, ct, o, &err), 0);
    ck_assert_msg(strstr(err.msg, "surface store out of bounds at (9, 0"),
                  "%s", err.msg);
}
END_TEST

START_TEST(tex_refused)
{
    struct ptx_tex_desc d = grid_desc();
    struct ptx_error err;
    float c[4] = {0}, o[4];
    /* a texture handle for suld, a surface handle for tex */
    ck_assert_int_ne(run("tex_on_surface", &d, 1, c, o, &err), 0);
    ck_assert_msg(strstr(err.msg, "is a texture object"), "%s", err.msg);
    d.flags |= PTX_TEX_SURFACE;
    ck_assert_int_ne(run("tex2d_f", &d, 1, c, o, &err), 0);
    ck_assert_msg(strstr(err.msg, "is a surface object"), "%s", err.msg);
    /* not a descriptor */
    d = grid_desc();
    d.magic = 0;
    ck_assert_int_ne(run("tex2d_f", &d, 1, c, o, &err), 0);
    ck_assert_msg(strstr(err.msg, "not a texture or surface object"), "%s",
                  err.msg);
    /* texels outside the descriptor's memory */
    d = grid_desc();
    d.size = 60;
    char why[200];
    ck_assert_int_ne(ptx_tex_desc_check(&d, why, sizeof(why)), 0);
    d = grid_desc();
    d.height = 1u << 20;
    ck_assert_int_ne(ptx_tex_desc_check(&d, why, sizeof(why)), 0);
    d = grid_desc();
    d.chan_bits[1] = 8;
    ck_assert_int_ne(ptx_tex_desc_check(&d, why, sizeof(why)), 0);
    /* texture references are not served: the warp reaching one fails,
     * naming it */
    const struct ptx_kernel *k = ptx_module_find(mod, "texref_form");
    ck_assert_ptr_nonnull(k);
    ck_assert_int_eq(ptx_kernel_check(k, &err), 0);
    d = grid_desc();
    ck_assert_int_ne(run("texref_form", &d, 1, c, o, &err), 0);
    ck_assert_msg(strstr(err.msg, "tex.2d.v4.f32.f32"), "%s", err.msg);
    /* no callbacks: the warp fails */
    const struct ptx_kernel *k2 = ptx_module_find(mod, "tex2d_f");
    uint64_t h = (uintptr_t)&d;
    const void *cp = c;
    void *op = o;
    void *args[] = {&h, &cp, &op};
    struct ptx_flat_launch l = {
        .kernel = k2, .grid = {1, 1, 1}, .block = {1, 1, 1}, .args = args,
    };
    ck_assert_int_ne(ptx_flat_run(&l, NULL, &err), 0);
    ck_assert_msg(strstr(err.msg, "need an executor"), "%s", err.msg);
}
END_TEST

Suite *make_ptx_tex_suite(void)
{
    Suite *s = suite_create("ptx-tex");
    TCase *tc = tcase_create("tex");
    tcase_add_checked_fixture(tc, tex_setup, tex_teardown);
    tcase_add_test(tc, tex_point_clamp);
    tcase_add_test(tc, tex_linear_weights);
    tcase_add_test(tc, tex_address_modes);
    tcase_add_test(tc, tex_read_modes);
    tcase_add_test(tc, tex_1d_3d_layered_cube);
    tcase_add_test(tc, tex_tld4_level_query);
    tcase_add_test(tc, tex_mipmaps);
    tcase_add_test(tc, tex_surfaces);
    tcase_add_test(tc, tex_refused);
    suite_add_tcase(s, tc);
    return s;
}
