/*
 * tests/cudart/check_texture.c - CUDA arrays, texture and surface objects
 * (cuda/cudart/array.c, texture.c): allocation and its refusals, copies
 * to, from and between arrays (2D, the deprecated forms, cudaMemcpy3D
 * with an array side) checked byte for byte, mipmapped arrays and their
 * levels, the objects' descriptors
 * given back, and kernels of a hand-written PTX module (registered as
 * nvcc's constructor would) that sample a texture and write a surface,
 * in this process and through a p2psim server.
 */
#include <config.h>

#define CUDA_ENABLE_DEPRECATED 1 /* the deprecated array copies are tested */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/include/driver_functions.h"
#include "cuda/include/p2psim_cudart_internal.h"
#include "tests/cudart/cudart_test.h"

Suite *make_cudart_texture_suite(void);

#define KEY(f) ((const void *)(uintptr_t)(f))

/* sample(t, out, x, y): out[0..3] = tex2D(t, x, y);
 * fill(s, v): thread i writes v + i at byte 4 i of row 1 of s. */
static const char ptx_text[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry sample(.param .u64 t, .param .u64 out,\n"
    "    .param .f32 x, .param .f32 y)\n{\n"
    "\t.reg .b64 %rd<3>;\n\t.reg .f32 %f<7>;\n"
    "\tld.param.u64 %rd1, [t];\n\tld.param.u64 %rd2, [out];\n"
    "\tld.param.f32 %f1, [x];\n\tld.param.f32 %f2, [y];\n"
    "\ttex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];\n"
    "\tst.global.v4.f32 [%rd2], {%f3, %f4, %f5, %f6};\n"
    "\tret;\n}\n"
    ".visible .entry sample_lod(.param .u64 t, .param .u64 out,\n"
    "    .param .f32 x, .param .f32 y, .param .f32 lod)\n{\n"
    "\t.reg .b64 %rd<3>;\n\t.reg .f32 %f<8>;\n"
    "\tld.param.u64 %rd1, [t];\n\tld.param.u64 %rd2, [out];\n"
    "\tld.param.f32 %f1, [x];\n\tld.param.f32 %f2, [y];\n"
    "\tld.param.f32 %f7, [lod];\n"
    "\ttex.level.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}],"
    " %f7;\n"
    "\tst.global.v4.f32 [%rd2], {%f3, %f4, %f5, %f6};\n"
    "\tret;\n}\n"
    ".visible .entry fill(.param .u64 s, .param .u32 v)\n{\n"
    "\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<6>;\n"
    "\tld.param.u64 %rd1, [s];\n\tld.param.u32 %r1, [v];\n"
    "\tmov.u32 %r2, %tid.x;\n\tadd.s32 %r3, %r1, %r2;\n"
    "\tshl.b32 %r4, %r2, 2;\n\tmov.u32 %r5, 1;\n"
    "\tsust.b.2d.b32.trap [%rd1, {%r4, %r5}], {%r3};\n"
    "\tret;\n}\n";

static void stub_sample(void) {}
static void stub_sample_lod(void) {}
static void stub_fill(void) {}

/* The module, registered as nvcc's constructor would. */
static void register_module(void)
{
    void **h = cudart_test_register_ptx(ptx_text, sizeof(ptx_text));
    __cudaRegisterFunction(h, (const char *)KEY(stub_sample),
                           (char *)"sample", "sample", -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterFunction(h, (const char *)KEY(stub_sample_lod),
                           (char *)"sample_lod", "sample_lod", -1, NULL, NULL,
                           NULL, NULL, NULL);
    __cudaRegisterFunction(h, (const char *)KEY(stub_fill), (char *)"fill",
                           "fill", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
}

static dim3 d3(unsigned x, unsigned y, unsigned z)
{
    dim3 d = { x, y, z };
    return d;
}

static struct cudaChannelFormatDesc chan_f32(void)
{
    return cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
}

/* ---- arrays ------------------------------------------------------------------ */

START_TEST(test_array_alloc)
{
    cudart_test_machine("h200-x1.yaml");
    struct cudaChannelFormatDesc f = chan_f32(), got;
    cudaArray_t a, b, c;
    ck_cuda_ok(cudaMallocArray(&a, &f, 16, 8, cudaArraySurfaceLoadStore));
    struct cudaExtent e;
    unsigned flags;
    ck_cuda_ok(cudaArrayGetInfo(&got, &e, &flags, a));
    ck_assert_uint_eq(e.width, 16);
    ck_assert_uint_eq(e.height, 8);
    ck_assert_uint_eq(e.depth, 0);
    ck_assert_uint_eq(flags, cudaArraySurfaceLoadStore);
    ck_assert_int_eq(got.x, 32);
    ck_assert_int_eq(got.f, cudaChannelFormatKindFloat);
    memset(&got, 0, sizeof(got));
    ck_cuda_ok(cudaGetChannelDesc(&got, a));
    ck_assert_int_eq(got.x, 32);
    /* formats: 24 bits, 3 channels, 8-bit floats, mixed widths */
    struct cudaChannelFormatDesc bad[] = {
        cudaCreateChannelDesc(24, 0, 0, 0, cudaChannelFormatKindUnsigned),
        cudaCreateChannelDesc(8, 8, 8, 0, cudaChannelFormatKindUnsigned),
        cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindFloat),
        cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindSigned),
        cudaCreateChannelDesc(0, 8, 0, 0, cudaChannelFormatKindSigned),
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(cudaMallocArray(&b, &bad[i], 4, 4, 0),
                         cudaErrorInvalidChannelDescriptor);
    }
    /* layered and cubemap arrays only from cudaMalloc3DArray */
    ck_assert_int_eq(cudaMallocArray(&b, &f, 4, 4, cudaArrayLayered),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMallocArray(&b, &f, 0, 4, 0), cudaErrorInvalidValue);
    ck_cuda_ok(cudaMalloc3DArray(&b, &f, make_cudaExtent(4, 4, 3),
                                 cudaArrayLayered));
    ck_cuda_ok(cudaMalloc3DArray(&c, &f, make_cudaExtent(8, 8, 6),
                                 cudaArrayCubemap));
    ck_cuda_ok(cudaArrayGetInfo(NULL, &e, &flags, c));
    ck_assert_uint_eq(e.depth, 6);
    ck_assert_uint_eq(flags, cudaArrayCubemap);
    cudaArray_t d;
    ck_assert_int_eq(cudaMalloc3DArray(&d, &f, make_cudaExtent(8, 4, 6),
                                       cudaArrayCubemap),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMalloc3DArray(&d, &f, make_cudaExtent(8, 8, 0),
                                       cudaArrayLayered),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMalloc3DArray(&d, &f, make_cudaExtent(1u << 18, 1,
                                                                1), 0),
                     cudaErrorInvalidValue);
    ck_cuda_ok(cudaFreeArray(c));
    ck_cuda_ok(cudaFreeArray(b));
    ck_cuda_ok(cudaFreeArray(a));
    ck_cuda_ok(cudaFreeArray(NULL));
    ck_assert_int_eq(cudaFreeArray(a), cudaErrorInvalidValue);
    cudaGetLastError();
}
END_TEST

START_TEST(test_array_copies)
{
    cudart_test_machine("h200-x1.yaml");
    struct cudaChannelFormatDesc f = cudaCreateChannelDesc(
        8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    cudaArray_t a, b;
    ck_cuda_ok(cudaMallocArray(&a, &f, 16, 8, 0)); /* rows of 64 bytes */
    ck_cuda_ok(cudaMallocArray(&b, &f, 16, 8, 0));
    uint8_t src[8][80], back[8][64], flat[64 * 8];
    for (unsigned y = 0; y < 8; y++) {
        for (unsigned x = 0; x < 80; x++) {
            src[y][x] = (uint8_t)(y * 80 + x);
        }
    }
    /* rows of 64 out of a pitch of 80, then back densely */
    ck_cuda_ok(cudaMemcpy2DToArray(a, 0, 0, src, 80, 64, 8,
                                   cudaMemcpyHostToDevice));
    ck_cuda_ok(cudaMemcpy2DFromArray(back, 64, a, 0, 0, 64, 8,
                                     cudaMemcpyDeviceToHost));
    for (unsigned y = 0; y < 8; y++) {
        ck_assert(memcmp(back[y], src[y], 64) == 0);
    }
    /* a block at an offset: bytes 8..23 of rows 2..4 */
    uint8_t blk[3][16], got[3][16];
    memset(blk, 0xab, sizeof(blk));
    ck_cuda_ok(cudaMemcpy2DToArray(a, 8, 2, blk, 16, 16, 3,
                                   cudaMemcpyHostToDevice));
    ck_cuda_ok(cudaMemcpy2DFromArray(got, 16, a, 8, 2, 16, 3,
                                     cudaMemcpyDeviceToHost));
    ck_assert(memcmp(got, blk, sizeof(blk)) == 0);
    ck_cuda_ok(cudaMemcpyFromArray(flat, a, 0, 0, sizeof(flat),
                                   cudaMemcpyDeviceToHost));
    ck_assert_uint_eq(flat[2 * 64 + 7], src[2][7]);
    ck_assert_uint_eq(flat[2 * 64 + 8], 0xab);
    ck_assert_uint_eq(flat[4 * 64 + 23], 0xab);
    ck_assert_uint_eq(flat[4 * 64 + 24], src[4][24]);
    /* outside the array */
    ck_assert_int_eq(cudaMemcpy2DToArray(a, 56, 0, blk, 16, 16, 1,
                                         cudaMemcpyHostToDevice),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemcpy2DToArray(a, 0, 6, blk, 16, 16, 3,
                                         cudaMemcpyHostToDevice),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemcpyToArray(a, 0, 7, flat, 65,
                                       cudaMemcpyHostToDevice),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemcpyToArray((cudaArray_t)flat, 0, 0, flat, 4,
                                       cudaMemcpyHostToDevice),
                     cudaErrorInvalidResourceHandle);
    cudaGetLastError();
    /* the deprecated form runs across rows; array to array */
    ck_cuda_ok(cudaMemcpyToArray(b, 60, 1, src, 8, cudaMemcpyHostToDevice));
    ck_cuda_ok(cudaMemcpyArrayToArray(a, 0, 0, b, 60, 1, 8,
                                      cudaMemcpyDeviceToDevice));
    ck_cuda_ok(cudaMemcpy2DArrayToArray(b, 0, 0, a, 0, 0, 64, 8,
                                        cudaMemcpyDeviceToDevice));
    ck_cuda_ok(cudaMemcpyFromArray(got, b, 0, 0, 8, cudaMemcpyDeviceToHost));
    ck_assert(memcmp(got, src, 8) == 0);
    /* cudaMemcpy3D into layer 1 of a layered array and out again */
    cudaArray_t l;
    struct cudaChannelFormatDesc f1 = chan_f32();
    ck_cuda_ok(cudaMalloc3DArray(&l, &f1, make_cudaExtent(4, 2, 3),
                                 cudaArrayLayered));
    float in[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}}, out[2][4];
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof(p));
    p.srcPtr = make_cudaPitchedPtr(in, 16, 4, 2);
    p.dstArray = l;
    p.dstPos = make_cudaPos(0, 0, 1);
    p.extent = make_cudaExtent(4, 2, 1);
    p.kind = cudaMemcpyHostToDevice;
    ck_cuda_ok(cudaMemcpy3D(&p));
    memset(&p, 0, sizeof(p));
    p.srcArray = l;
    p.srcPos = make_cudaPos(1, 0, 1);
    p.dstPtr = make_cudaPitchedPtr(out, 16, 4, 2);
    p.extent = make_cudaExtent(3, 2, 1);
    p.kind = cudaMemcpyDeviceToHost;
    ck_cuda_ok(cudaMemcpy3D(&p));
    ck_assert_float_eq(out[0][0], 2.0f);
    ck_assert_float_eq(out[1][2], 8.0f);
    ck_cuda_ok(cudaFreeArray(l));
    ck_cuda_ok(cudaFreeArray(a));
    ck_cuda_ok(cudaFreeArray(b));
}
END_TEST

/* ---- objects ----------------------------------------------------------------- */

static struct cudaResourceDesc array_res(cudaArray_t a)
{
    struct cudaResourceDesc r;
    memset(&r, 0, sizeof(r));
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    return r;
}

START_TEST(test_objects)
{
    cudart_test_machine("h200-x1.yaml");
    struct cudaChannelFormatDesc f = chan_f32();
    cudaArray_t a, plain;
    ck_cuda_ok(cudaMallocArray(&a, &f, 8, 8, cudaArraySurfaceLoadStore));
    ck_cuda_ok(cudaMallocArray(&plain, &f, 8, 8, 0));
    struct cudaResourceDesc r = array_res(a), rg;
    struct cudaTextureDesc t, tg;
    memset(&t, 0, sizeof(t));
    t.addressMode[0] = cudaAddressModeWrap;
    t.addressMode[1] = cudaAddressModeMirror;
    t.filterMode = cudaFilterModeLinear;
    t.normalizedCoords = 1;
    t.borderColor[2] = 0.5f;
    cudaTextureObject_t tex = 0;
    ck_cuda_ok(cudaCreateTextureObject(&tex, &r, &t, NULL));
    ck_assert(tex != 0);
    ck_cuda_ok(cudaGetTextureObjectResourceDesc(&rg, tex));
    ck_assert(rg.resType == cudaResourceTypeArray && rg.res.array.array == a);
    ck_cuda_ok(cudaGetTextureObjectTextureDesc(&tg, tex));
    ck_assert(memcmp(&tg, &t, sizeof(t)) == 0);
    struct cudaResourceViewDesc v;
    ck_cuda_ok(cudaGetTextureObjectResourceViewDesc(&v, tex));
    cudaSurfaceObject_t surf = 0;
    ck_cuda_ok(cudaCreateSurfaceObject(&surf, &r));
    ck_cuda_ok(cudaGetSurfaceObjectResourceDesc(&rg, surf));
    ck_assert(rg.res.array.array == a);
    /* a texture handle is not a surface handle */
    ck_assert_int_eq(cudaDestroySurfaceObject(tex), cudaErrorInvalidValue);
    /* refusals */
    struct cudaResourceDesc rp = array_res(plain);
    ck_assert_int_eq(cudaCreateSurfaceObject(&surf, &rp),
                     cudaErrorInvalidValue); /* no cudaArraySurfaceLoadStore */
    struct cudaResourceDesc lin;
    memset(&lin, 0, sizeof(lin));
    float host[16];
    lin.resType = cudaResourceTypeLinear;
    lin.res.linear.devPtr = host;
    lin.res.linear.desc = f;
    lin.res.linear.sizeInBytes = sizeof(host);
    ck_assert_int_eq(cudaCreateTextureObject(&tex, &lin, &t, NULL),
                     cudaErrorInvalidValue); /* host memory */
    float *dev;
    ck_cuda_ok(cudaMalloc((void **)&dev, 256));
    lin.res.linear.devPtr = dev;
    cudaTextureObject_t tl;
    ck_cuda_ok(cudaCreateTextureObject(&tl, &lin, &t, NULL));
    struct cudaResourceDesc p2;
    memset(&p2, 0, sizeof(p2));
    p2.resType = cudaResourceTypePitch2D;
    p2.res.pitch2D.devPtr = dev;
    p2.res.pitch2D.desc = f;
    p2.res.pitch2D.width = 8;
    p2.res.pitch2D.height = 2;
    p2.res.pitch2D.pitchInBytes = 16; /* < 8 floats */
    ck_assert_int_eq(cudaCreateTextureObject(&tex, &p2, &t, NULL),
                     cudaErrorInvalidValue);
    p2.res.pitch2D.pitchInBytes = 128;
    p2.res.pitch2D.height = 3;        /* 2 x 128 + 32 > 256 */
    ck_assert_int_eq(cudaCreateTextureObject(&tex, &p2, &t, NULL),
                     cudaErrorInvalidValue);
    memset(&v, 0, sizeof(v));
    v.format = cudaResViewFormatFloat1;
    ck_assert_int_eq(cudaCreateTextureObject(&tex, &r, &t, &v),
                     cudaErrorNotSupported);
    t.addressMode[2] = (enum cudaTextureAddressMode)7;
    ck_assert_int_eq(cudaCreateTextureObject(&tex, &r, &t, NULL),
                     cudaErrorInvalidValue);
    cudaGetLastError();
    ck_cuda_ok(cudaDestroyTextureObject(tl));
    ck_assert_int_eq(cudaDestroyTextureObject(tl), cudaErrorInvalidValue);
    cudaGetLastError();
    ck_cuda_ok(cudaDestroySurfaceObject(surf));
    ck_cuda_ok(cudaFree(dev));
    ck_cuda_ok(cudaFreeArray(a));
    ck_cuda_ok(cudaFreeArray(plain));
}
END_TEST

/* ---- kernels ----------------------------------------------------------------- */

/* A 4x4 texture of x + 10 y sampled with linear filtering at (1, 1) and
 * (3.9, 0.5); a surface kernel's writes read back. */
static void kernels_run(void)
{
    register_module();
    struct cudaChannelFormatDesc f = chan_f32();
    cudaArray_t a, s;
    ck_cuda_ok(cudaMallocArray(&a, &f, 4, 4, 0));
    float img[16];
    for (unsigned i = 0; i < 16; i++) {
        img[i] = (float)(i % 4) + 10.0f * (float)(i / 4);
    }
    ck_cuda_ok(cudaMemcpyToArray(a, 0, 0, img, sizeof(img),
                                 cudaMemcpyHostToDevice));
    struct cudaResourceDesc r = array_res(a);
    struct cudaTextureDesc t;
    memset(&t, 0, sizeof(t));
    t.addressMode[0] = t.addressMode[1] = cudaAddressModeClamp;
    t.filterMode = cudaFilterModeLinear;
    cudaTextureObject_t tex;
    ck_cuda_ok(cudaCreateTextureObject(&tex, &r, &t, NULL));
    float *out, res[4];
    ck_cuda_ok(cudaMalloc((void **)&out, 16));
    float x = 1.0f, y = 1.0f;
    void *args[] = { &tex, &out, &x, &y };
    ck_cuda_ok(cudaLaunchKernel(KEY(stub_sample), d3(1, 1, 1), d3(1, 1, 1),
                                args, 0, 0));
    ck_cuda_ok(cudaMemcpy(res, out, 16, cudaMemcpyDeviceToHost));
    ck_assert_float_eq(res[0], 5.5f);
    ck_assert_float_eq(res[3], 0.0f);
    x = 3.9f;
    y = 0.5f;
    ck_cuda_ok(cudaLaunchKernel(KEY(stub_sample), d3(1, 1, 1), d3(1, 1, 1),
                                args, 0, 0));
    ck_cuda_ok(cudaMemcpy(res, out, 16, cudaMemcpyDeviceToHost));
    ck_assert_float_eq(res[0], 3.0f);
    ck_cuda_ok(cudaDestroyTextureObject(tex));

    ck_cuda_ok(cudaMallocArray(&s, &f, 8, 2, cudaArraySurfaceLoadStore));
    struct cudaResourceDesc rs = array_res(s);
    cudaSurfaceObject_t surf;
    ck_cuda_ok(cudaCreateSurfaceObject(&surf, &rs));
    uint32_t v = 100, row[2][8];
    void *sargs[] = { &surf, &v };
    ck_cuda_ok(cudaLaunchKernel(KEY(stub_fill), d3(1, 1, 1), d3(8, 1, 1),
                                sargs, 0, 0));
    ck_cuda_ok(cudaMemcpy2DFromArray(row, 32, s, 0, 0, 32, 2,
                                     cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < 8; i++) {
        ck_assert_uint_eq(row[1][i], 100 + i);
    }
    /* nine threads: the ninth stores past the row and traps */
    ck_cuda_ok(cudaLaunchKernel(KEY(stub_fill), d3(1, 1, 1), d3(9, 1, 1),
                                sargs, 0, 0));
    ck_assert_int_ne(cudaDeviceSynchronize(), cudaSuccess);
}

START_TEST(test_kernels)
{
    cudart_test_machine("h200-x1.yaml");
    kernels_run();
}
END_TEST

START_TEST(test_kernels_server)
{
    struct cudart_test_server srv;
    cudart_test_server_start(&srv, "h200-x1.yaml");
    kernels_run();
    cudart_test_server_stop(&srv);
}
END_TEST

/* A mipmapped array of 8x8, 4x4 and 2x2 levels, each filled with its
 * level number x 10: .level picks them, plain tex2D reads level 0. */
START_TEST(test_mipmaps)
{
    cudart_test_machine("h200-x1.yaml");
    struct cudaChannelFormatDesc f = chan_f32();
    cudaMipmappedArray_t m;
    ck_assert_int_eq(cudaMallocMipmappedArray(&m, &f, make_cudaExtent(8, 8, 0),
                                              5, 0),
                     cudaErrorInvalidValue); /* 8 has 4 levels */
    ck_cuda_ok(cudaMallocMipmappedArray(&m, &f, make_cudaExtent(8, 8, 0), 3,
                                        0));
    float fill[64];
    for (unsigned l = 0; l < 3; l++) {
        cudaArray_t a;
        ck_cuda_ok(cudaGetMipmappedArrayLevel(&a, m, l));
        struct cudaExtent e;
        ck_cuda_ok(cudaArrayGetInfo(NULL, &e, NULL, a));
        ck_assert_uint_eq(e.width, 8u >> l);
        ck_assert_uint_eq(e.height, 8u >> l);
        for (unsigned i = 0; i < 64; i++) {
            fill[i] = 10.0f * (float)l;
        }
        ck_cuda_ok(cudaMemcpy2DToArray(a, 0, 0, fill, 4 * e.width,
                                       4 * e.width, e.height,
                                       cudaMemcpyHostToDevice));
        /* a level belongs to its mipmapped array */
        ck_assert_int_eq(cudaFreeArray(a), cudaErrorInvalidValue);
    }
    cudaArray_t none;
    ck_assert_int_eq(cudaGetMipmappedArrayLevel(&none, m, 3),
                     cudaErrorInvalidValue);
    cudaGetLastError();
    register_module();
    struct cudaResourceDesc r;
    memset(&r, 0, sizeof(r));
    r.resType = cudaResourceTypeMipmappedArray;
    r.res.mipmap.mipmap = m;
    struct cudaTextureDesc t;
    memset(&t, 0, sizeof(t));
    t.normalizedCoords = 1;
    t.maxMipmapLevelClamp = 2;
    cudaTextureObject_t tex;
    ck_cuda_ok(cudaCreateTextureObject(&tex, &r, &t, NULL));
    float *out, res[4], x = 0.5f, y = 0.5f;
    ck_cuda_ok(cudaMalloc((void **)&out, 16));
    void *args[] = { &tex, &out, &x, &y };
    ck_cuda_ok(cudaLaunchKernel(KEY(stub_sample), d3(1, 1, 1), d3(1, 1, 1),
                                args, 0, 0));
    ck_cuda_ok(cudaMemcpy(res, out, 16, cudaMemcpyDeviceToHost));
    ck_assert_float_eq(res[0], 0.0f);   /* level 0 */
    float lod = 2.0f;
    void *largs[] = { &tex, &out, &x, &y, &lod };
    ck_cuda_ok(cudaLaunchKernel(KEY(stub_sample_lod), d3(1, 1, 1),
                                d3(1, 1, 1), largs, 0, 0));
    ck_cuda_ok(cudaMemcpy(res, out, 16, cudaMemcpyDeviceToHost));
    ck_assert_float_eq(res[0], 20.0f);  /* level 2 */
    ck_cuda_ok(cudaDestroyTextureObject(tex));
    ck_cuda_ok(cudaFreeMipmappedArray(m));
    ck_assert_int_eq(cudaFreeMipmappedArray(m), cudaErrorInvalidValue);
    cudaGetLastError();
}
END_TEST

Suite *make_cudart_texture_suite(void)
{
    Suite *s = suite_create("cudart-texture");
    TCase *tc = tcase_create("texture");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_array_alloc);
    tcase_add_test(tc, test_array_copies);
    tcase_add_test(tc, test_objects);
    tcase_add_test(tc, test_kernels);
    tcase_add_test(tc, test_kernels_server);
    tcase_add_test(tc, test_mipmaps);
    suite_add_tcase(s, tc);
    return s;
}
