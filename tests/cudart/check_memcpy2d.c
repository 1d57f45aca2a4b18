/*
 * tests/cudart/check_memcpy2d.c - symbols, pitched allocations, 2D and 3D
 * copies and sets, and the extensible launch (cuda/cudart/symbol.c,
 * memcpy2d.c, launch_ex.c). Device variables come from a PTX module
 * registered by hand, as nvcc's constructor would register it; every copy
 * is checked byte for byte, padding between rows included.
 */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/include/driver_functions.h"
#include "cuda/include/p2psim_cudart_internal.h"
#include "tests/cudart/cudart_test.h"

#define KEY(f) ((const void *)(uintptr_t)(f))

/* ---- a module with variables ---------------------------------------------- */

/* g: 64 bytes; c: a constant with an initializer; k(out) copies the u32
 * at g + 4 and the first u32 of c to out[0], out[1]. */
static const char ptx_text[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".global .align 4 .b8 g[64];\n"
    ".const .align 4 .u32 c[4] = {11, 22, 33, 44};\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tld.global.u32 %r1, [g+4];\n"
    "\tld.const.u32 %r2, [c];\n"
    "\tst.global.u32 [%rd2], %r1;\n"
    "\tst.global.u32 [%rd2+4], %r2;\n"
    "\tret;\n}\n";

static char shadow_g[64], shadow_c[16], not_a_symbol[8];
static void stub_k(void) {}

/* The module, registered as nvcc's constructor would. */
static void register_module(void)
{
    void **h = cudart_test_register_ptx(ptx_text, sizeof(ptx_text));
    __cudaRegisterFunction(h, (const char *)KEY(stub_k), (char *)"k", "k",
                           -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterVar(h, shadow_g, (char *)"g", "g", 0, 64, 0, 0);
    __cudaRegisterVar(h, shadow_c, (char *)"c", "c", 0, 16, 1, 0);
    __cudaRegisterFatBinaryEnd(h);
}

static dim3 d3(unsigned x, unsigned y, unsigned z)
{
    dim3 d = { x, y, z };
    return d;
}

/* Run k and return what it read (g's u32 at 4, c[0]). */
static void run_k(uint32_t out[2], const cudaLaunchConfig_t *cfg)
{
    uint32_t *d;
    ck_cuda_ok(cudaMalloc((void **)&d, 8));
    void *args[] = { &d };
    if (cfg) {
        ck_cuda_ok(cudaLaunchKernelExC(cfg, KEY(stub_k), args));
    } else {
        ck_cuda_ok(cudaLaunchKernel(KEY(stub_k), d3(1, 1, 1), d3(1, 1, 1),
                                    args, 0, 0));
    }
    ck_cuda_ok(cudaMemcpy(out, d, 8, cudaMemcpyDeviceToHost));
    ck_cuda_ok(cudaFree(d));
}

/* ---- symbols ---------------------------------------------------------------- */

START_TEST(test_symbol_copies_reach_kernels)
{
    cudart_test_machine("h200-x1.yaml");
    register_module();
    size_t size = 0;
    void *addr = NULL;
    ck_cuda_ok(cudaGetSymbolSize(&size, shadow_g));
    ck_assert_uint_eq(size, 64);
    ck_cuda_ok(cudaGetSymbolSize(&size, shadow_c));
    ck_assert_uint_eq(size, 16);
    ck_cuda_ok(cudaGetSymbolAddress(&addr, shadow_g));
    struct cudaPointerAttributes pa;
    ck_cuda_ok(cudaPointerGetAttributes(&pa, addr));
    ck_assert_int_eq(pa.type, cudaMemoryTypeDevice);
    /* The constant's initializer, before any launch. */
    uint32_t c[4] = { 0 };
    ck_cuda_ok(cudaMemcpyFromSymbol(c, shadow_c, sizeof(c), 0,
                                    cudaMemcpyDeviceToHost));
    ck_assert_uint_eq(c[0], 11);
    ck_assert_uint_eq(c[3], 44);
    /* Written at an offset before the first launch: the kernel reads it. */
    uint32_t v = 0xC0FFEE, out[2];
    ck_cuda_ok(cudaMemcpyToSymbol(shadow_g, &v, 4, 4, cudaMemcpyHostToDevice));
    run_k(out, NULL);
    ck_assert_uint_eq(out[0], 0xC0FFEE);
    ck_assert_uint_eq(out[1], 11);
    /* The same storage as the address handed out. */
    uint32_t back = 0;
    ck_cuda_ok(cudaMemcpy(&back, (char *)addr + 4, 4, cudaMemcpyDefault));
    ck_assert_uint_eq(back, 0xC0FFEE);
    /* Async forms, kind Default, and device memory as the other side. */
    uint32_t c2 = 99, *dv;
    ck_cuda_ok(cudaMalloc((void **)&dv, 4));
    ck_cuda_ok(cudaMemcpy(dv, &c2, 4, cudaMemcpyHostToDevice));
    ck_cuda_ok(cudaMemcpyToSymbolAsync(shadow_c, dv, 4, 0,
                                       cudaMemcpyDeviceToDevice, 0));
    ck_cuda_ok(cudaMemcpyToSymbolAsync(shadow_g, &c2, 4, 4, cudaMemcpyDefault,
                                       0));
    ck_cuda_ok(cudaDeviceSynchronize());
    run_k(out, NULL);
    ck_assert_uint_eq(out[0], 99);
    ck_assert_uint_eq(out[1], 99);
    uint8_t all[64];
    ck_cuda_ok(cudaMemcpyFromSymbolAsync(all, shadow_g, 64, 0,
                                         cudaMemcpyDefault, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_assert_uint_eq(all[4], 99);
    ck_assert_uint_eq(all[0], 0);
    ck_cuda_ok(cudaFree(dv));
}
END_TEST

START_TEST(test_symbol_errors)
{
    cudart_test_machine("h200-x1.yaml");
    register_module();
    uint8_t buf[80] = { 0 };
    void *addr;
    size_t size;
    ck_cuda(cudaMemcpyToSymbol(not_a_symbol, buf, 4, 0,
                               cudaMemcpyHostToDevice),
            cudaErrorInvalidSymbol);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidSymbol);
    ck_cuda(cudaGetSymbolAddress(&addr, not_a_symbol), cudaErrorInvalidSymbol);
    ck_cuda(cudaGetSymbolSize(&size, buf), cudaErrorInvalidSymbol);
    ck_cuda(cudaGetSymbolSize(NULL, shadow_g), cudaErrorInvalidValue);
    /* offset + count past the variable */
    ck_cuda(cudaMemcpyToSymbol(shadow_g, buf, 65, 0, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemcpyToSymbol(shadow_g, buf, 8, 60, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemcpyFromSymbol(buf, shadow_g, 1, 64,
                                 cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaMemcpyToSymbol(shadow_g, buf, 4, 60,
                                  cudaMemcpyHostToDevice));
    /* a kind that makes the symbol the host side */
    ck_cuda(cudaMemcpyToSymbol(shadow_g, buf, 4, 0, cudaMemcpyDeviceToHost),
            cudaErrorInvalidMemcpyDirection);
    ck_cuda(cudaMemcpyFromSymbol(buf, shadow_g, 4, 0, cudaMemcpyHostToDevice),
            cudaErrorInvalidMemcpyDirection);
    ck_cuda(cudaMemcpyToSymbol(shadow_g, buf, 4, 0, cudaMemcpyHostToHost),
            cudaErrorInvalidMemcpyDirection);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
    ck_cuda_ok(cudaGetLastError());
}
END_TEST

/* ---- pitched allocations ---------------------------------------------------- */

START_TEST(test_pitch_rules)
{
    cudart_test_machine("h200-x1.yaml");
    int align = 0;
    ck_cuda_ok(cudaDeviceGetAttribute(&align, cudaDevAttrTexturePitchAlignment,
                                      0));
    static const size_t widths[] = { 1, 100, 512, 513, 4000 };
    static const size_t want[] = { 512, 512, 512, 1024, 4096 };
    for (unsigned i = 0; i < 5; i++) {
        void *p = NULL;
        size_t pitch = 0;
        ck_cuda_ok(cudaMallocPitch(&p, &pitch, widths[i], 7));
        ck_assert_uint_eq(pitch, want[i]);
        ck_assert_uint_eq(pitch % (size_t)align, 0);
        ck_assert_uint_eq((uintptr_t)p % 256, 0);
        struct cudaPointerAttributes a;
        ck_cuda_ok(cudaPointerGetAttributes(&a, (char *)p + 7 * pitch - 1));
        ck_assert_int_eq(a.type, cudaMemoryTypeDevice);
        ck_cuda_ok(cudaFree(p));
    }
    struct cudaPitchedPtr pp;
    ck_cuda_ok(cudaMalloc3D(&pp, make_cudaExtent(100, 4, 3)));
    ck_assert_uint_eq(pp.pitch, 512);
    ck_assert_uint_eq(pp.xsize, 100);
    ck_assert_uint_eq(pp.ysize, 4);
    ck_cuda_ok(cudaMemset(pp.ptr, 0, 512 * 4 * 3));   /* all of it is ours */
    ck_cuda_ok(cudaFree(pp.ptr));
    size_t pitch;
    void *p;
    ck_cuda(cudaMallocPitch(NULL, &pitch, 10, 10), cudaErrorInvalidValue);
    ck_cuda(cudaMallocPitch(&p, NULL, 10, 10), cudaErrorInvalidValue);
    ck_cuda(cudaMalloc3D(NULL, make_cudaExtent(1, 1, 1)),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaMallocPitch(&p, &pitch, 10, 0));
    ck_assert_ptr_null(p);
}
END_TEST

/* ---- 2D copies --------------------------------------------------------------- */

#define W 100
#define H 10
#define PAD 0xEE

static uint8_t pattern(unsigned r, unsigned x)
{
    return (uint8_t)(r * 31 + x * 7 + 1);
}

/* The pitched device buffer at p (pitch bytes per row, H rows) holds the
 * pattern in its first W bytes of each row and PAD elsewhere. */
static void check_device_rows(const void *p, size_t pitch, uint8_t pad)
{
    uint8_t *all = malloc(pitch * H);
    ck_assert_ptr_nonnull(all);
    ck_cuda_ok(cudaMemcpy(all, p, pitch * H, cudaMemcpyDeviceToHost));
    for (unsigned r = 0; r < H; r++) {
        for (unsigned x = 0; x < pitch; x++) {
            uint8_t want = x < W ? pattern(r, x) : pad;
            ck_assert_msg(all[r * pitch + x] == want,
                          "row %u byte %u: %u, want %u", r, x,
                          all[r * pitch + x], want);
        }
    }
    free(all);
}

static uint8_t *host_rows(size_t pitch, uint8_t pad)
{
    uint8_t *h = malloc(pitch * H);
    ck_assert_ptr_nonnull(h);
    memset(h, pad, pitch * H);
    for (unsigned r = 0; r < H; r++) {
        for (unsigned x = 0; x < W; x++) {
            h[r * pitch + x] = pattern(r, x);
        }
    }
    return h;
}

static void check_host_rows(const uint8_t *h, size_t pitch, uint8_t pad)
{
    for (unsigned r = 0; r < H; r++) {
        for (unsigned x = 0; x < pitch; x++) {
            uint8_t want = x < W ? pattern(r, x) : pad;
            ck_assert_msg(h[r * pitch + x] == want,
                          "row %u byte %u: %u, want %u", r, x,
                          h[r * pitch + x], want);
        }
    }
}

START_TEST(test_2d_host_device)
{
    cudart_test_machine("h200-x1.yaml");
    void *d;
    size_t pitch;
    ck_cuda_ok(cudaMallocPitch(&d, &pitch, W, H));
    ck_cuda_ok(cudaMemset(d, PAD, pitch * H));
    /* pageable, contiguous rows -> pitched */
    uint8_t *h = host_rows(W, 0);
    ck_cuda_ok(cudaMemcpy2D(d, pitch, h, W, W, H, cudaMemcpyHostToDevice));
    check_device_rows(d, pitch, PAD);
    /* pitched -> pageable rows 128 apart: the padding is left alone */
    uint8_t *back = malloc(128 * H);
    memset(back, 0x55, 128 * H);
    ck_cuda_ok(cudaMemcpy2D(back, 128, d, pitch, W, H, cudaMemcpyDefault));
    check_host_rows(back, 128, 0x55);
    /* pinned and strided on both sides, async */
    uint8_t *pin, *pin2;
    ck_cuda_ok(cudaMallocHost((void **)&pin, 160 * H));
    ck_cuda_ok(cudaMallocHost((void **)&pin2, 200 * H));
    memset(pin, 0x33, 160 * H);
    for (unsigned r = 0; r < H; r++) {
        memcpy(pin + r * 160, back + r * 128, W);
    }
    ck_cuda_ok(cudaMemset(d, 0x77, pitch * H));
    ck_cuda_ok(cudaMemcpy2DAsync(d, pitch, pin, 160, W, H,
                                 cudaMemcpyHostToDevice, 0));
    memset(pin2, 0x44, 200 * H);
    ck_cuda_ok(cudaMemcpy2DAsync(pin2, 200, d, pitch, W, H,
                                 cudaMemcpyDeviceToHost, 0));
    ck_cuda_ok(cudaStreamSynchronize(0));
    check_device_rows(d, pitch, 0x77);
    check_host_rows(pin2, 200, 0x44);
    /* host to host, strided */
    memset(back, 0x66, 128 * H);
    ck_cuda_ok(cudaMemcpy2D(back, 128, pin2, 200, W, H, cudaMemcpyHostToHost));
    check_host_rows(back, 128, 0x66);
    ck_cuda_ok(cudaFreeHost(pin));
    ck_cuda_ok(cudaFreeHost(pin2));
    ck_cuda_ok(cudaFree(d));
    free(h);
    free(back);
}
END_TEST

START_TEST(test_2d_device_device)
{
    cudart_test_machine("hgx-h200-x2.yaml");
    uint8_t *h = host_rows(W, 0);
    for (int peer = 0; peer < 3; peer++) {
        void *a, *b;
        size_t pa, pb;
        ck_cuda_ok(cudaSetDevice(0));
        ck_cuda_ok(cudaMallocPitch(&a, &pa, W, H));
        ck_cuda_ok(cudaMemset(a, PAD, pa * H));
        ck_cuda_ok(cudaSetDevice(peer ? 1 : 0));
        if (peer == 2) {
            ck_cuda_ok(cudaDeviceEnablePeerAccess(0, 0));
        }
        ck_cuda_ok(cudaMallocPitch(&b, &pb, 3 * W, H));   /* another pitch */
        ck_cuda_ok(cudaMemset(b, 0x11, pb * H));
        ck_cuda_ok(cudaSetDevice(0));
        ck_cuda_ok(cudaMemcpy2D(a, pa, h, W, W, H, cudaMemcpyHostToDevice));
        /* pitched to pitched, across GPUs when peer (staged without
         * access, direct with) */
        ck_cuda_ok(cudaMemcpy2D(b, pb, a, pa, W, H,
                                peer ? cudaMemcpyDefault
                                     : cudaMemcpyDeviceToDevice));
        ck_cuda_ok(cudaDeviceSynchronize());
        ck_cuda_ok(cudaSetDevice(peer ? 1 : 0));
        ck_cuda_ok(cudaDeviceSynchronize());
        check_device_rows(b, pb, 0x11);
        check_device_rows(a, pa, PAD);
        /* back through cudaMemcpy3DPeer, into a cleared source */
        if (peer) {
            ck_cuda_ok(cudaSetDevice(0));
            ck_cuda_ok(cudaMemset(a, PAD, pa * H));
            struct cudaMemcpy3DPeerParms p;
            memset(&p, 0, sizeof(p));
            p.srcPtr = make_cudaPitchedPtr(b, pb, W, H);
            p.srcDevice = 1;
            p.dstPtr = make_cudaPitchedPtr(a, pa, W, H);
            p.dstDevice = 0;
            p.extent = make_cudaExtent(W, H, 1);
            ck_cuda_ok(cudaMemcpy3DPeer(&p));
            ck_cuda_ok(cudaDeviceSynchronize());
            check_device_rows(a, pa, PAD);
            p.srcDevice = 0;    /* the pointer is device 1's */
            ck_cuda(cudaMemcpy3DPeerAsync(&p, 0), cudaErrorInvalidValue);
            p.srcDevice = 7;
            ck_cuda(cudaMemcpy3DPeer(&p), cudaErrorInvalidDevice);
            p.srcDevice = 1;
            p.srcArray = (cudaArray_t)(uintptr_t)0x1000;   /* not served */
            ck_cuda(cudaMemcpy3DPeer(&p), cudaErrorNotSupported);
        }
        ck_cuda_ok(cudaFree(a));
        ck_cuda_ok(cudaFree(b));
        if (peer == 2) {
            ck_cuda_ok(cudaSetDevice(1));
            ck_cuda_ok(cudaDeviceDisablePeerAccess(0));
        }
    }
    free(h);
}
END_TEST

/* ---- 3D copies and sets -------------------------------------------------------- */

START_TEST(test_3d_copy_positions)
{
    cudart_test_machine("h200-x1.yaml");
    enum { X = 40, Y = 5, Z = 4 };
    struct cudaPitchedPtr d;
    ck_cuda_ok(cudaMalloc3D(&d, make_cudaExtent(X, Y, Z)));
    size_t vol = d.pitch * Y * Z;
    ck_cuda_ok(cudaMemset(d.ptr, PAD, vol));
    /* a host volume of X x Y x Z, numbered */
    uint8_t *h = malloc(X * Y * Z), *back = malloc(vol);
    for (unsigned i = 0; i < X * Y * Z; i++) {
        h[i] = (uint8_t)(i * 13 + 5);
    }
    /* copy the box [2, 2+30) x [1, 1+3) x [1, 1+2) of h to the same place */
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof(p));
    p.srcPtr = make_cudaPitchedPtr(h, X, X, Y);
    p.srcPos = make_cudaPos(2, 1, 1);
    p.dstPtr = d;
    p.dstPos = make_cudaPos(2, 1, 1);
    p.extent = make_cudaExtent(30, 3, 2);
    p.kind = cudaMemcpyHostToDevice;
    ck_cuda_ok(cudaMemcpy3D(&p));
    ck_cuda_ok(cudaMemcpy(back, d.ptr, vol, cudaMemcpyDeviceToHost));
    for (unsigned z = 0; z < Z; z++) {
        for (unsigned y = 0; y < Y; y++) {
            for (unsigned x = 0; x < d.pitch; x++) {
                bool in = x >= 2 && x < 32 && y >= 1 && y < 4 && z >= 1 &&
                          z < 3;
                uint8_t want = in ? h[(z * Y + y) * X + x] : PAD;
                ck_assert_msg(back[(z * Y + y) * d.pitch + x] == want,
                              "(%u,%u,%u)", x, y, z);
            }
        }
    }
    /* the whole volume back out, async, to a host volume */
    memset(back, 0, vol);
    struct cudaMemcpy3DParms q;
    memset(&q, 0, sizeof(q));
    q.srcPtr = d;
    q.dstPtr = make_cudaPitchedPtr(back, X, X, Y);
    q.extent = make_cudaExtent(X, Y, Z);
    q.kind = cudaMemcpyDefault;
    ck_cuda_ok(cudaMemcpy3DAsync(&q, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_assert_uint_eq(back[0], PAD);
    ck_assert_uint_eq(back[(1 * Y + 1) * X + 2], h[(1 * Y + 1) * X + 2]);
    /* errors */
    p.dstPos = make_cudaPos(d.pitch - 29, 1, 1);    /* x runs past the pitch */
    ck_cuda(cudaMemcpy3D(&p), cudaErrorInvalidValue);
    p.dstPos = make_cudaPos(2, 3, 1);               /* y past ysize */
    ck_cuda(cudaMemcpy3D(&p), cudaErrorInvalidValue);
    p.dstPos = make_cudaPos(0, 0, 0);
    p.dstPtr.pitch = 20;                            /* pitch < width */
    ck_cuda(cudaMemcpy3D(&p), cudaErrorInvalidPitchValue);
    p.dstPtr = d;
    p.dstPos = make_cudaPos(0, 0, 3);               /* past the allocation */
    ck_cuda(cudaMemcpy3D(&p), cudaErrorInvalidValue);
    ck_cuda(cudaMemcpy3D(NULL), cudaErrorInvalidValue);
    cudaGetLastError();
    ck_cuda_ok(cudaFree(d.ptr));
    free(h);
    free(back);
}
END_TEST

START_TEST(test_memset_2d_3d)
{
    cudart_test_machine("h200-x1.yaml");
    void *d;
    size_t pitch;
    ck_cuda_ok(cudaMallocPitch(&d, &pitch, W, H));
    ck_cuda_ok(cudaMemset(d, 0, pitch * H));
    ck_cuda_ok(cudaMemset2D(d, pitch, 0x5A, W, H));
    uint8_t *all = malloc(pitch * H);
    ck_cuda_ok(cudaMemcpy(all, d, pitch * H, cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < pitch * H; i++) {
        ck_assert_uint_eq(all[i], (i % pitch) < W ? 0x5A : 0);
    }
    /* async, in the middle of the rows */
    ck_cuda_ok(cudaMemset2DAsync((char *)d + 10, pitch, 0x21, 5, 3, 0));
    ck_cuda_ok(cudaMemcpy(all, d, pitch * H, cudaMemcpyDeviceToHost));
    ck_assert_uint_eq(all[pitch + 12], 0x21);
    ck_assert_uint_eq(all[3 * pitch + 12], 0x5A);
    ck_assert_uint_eq(all[pitch + 15], 0x5A);
    /* 3D over a volume, and on pinned memory */
    struct cudaPitchedPtr v;
    ck_cuda_ok(cudaMalloc3D(&v, make_cudaExtent(8, 3, 2)));
    ck_cuda_ok(cudaMemset(v.ptr, 1, v.pitch * 6));
    ck_cuda_ok(cudaMemset3D(v, 9, make_cudaExtent(8, 3, 2)));
    uint8_t *vb = malloc(v.pitch * 6);
    ck_cuda_ok(cudaMemcpy(vb, v.ptr, v.pitch * 6, cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < v.pitch * 6; i++) {
        ck_assert_uint_eq(vb[i], (i % v.pitch) < 8 ? 9 : 1);
    }
    uint8_t *pin;
    ck_cuda_ok(cudaMallocHost((void **)&pin, 64 * 4));
    memset(pin, 0, 64 * 4);
    ck_cuda_ok(cudaMemset2D(pin, 64, 3, 10, 4));   /* waits: pinned */
    ck_assert_uint_eq(pin[64 * 3 + 9], 3);
    ck_assert_uint_eq(pin[64 * 3 + 10], 0);
    ck_cuda_ok(cudaMemset3DAsync(make_cudaPitchedPtr(pin, 64, 10, 2), 4,
                                 make_cudaExtent(2, 2, 2), 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_assert_uint_eq(pin[64 * 2 + 1], 4);
    ck_assert_uint_eq(pin[64 * 2 + 2], 3);
    /* errors: pitch < width, past the allocation, pageable memory */
    ck_cuda(cudaMemset2D(d, W - 1, 0, W, 2), cudaErrorInvalidValue);
    ck_cuda(cudaMemset2D(d, pitch, 0, W, H + 1), cudaErrorInvalidValue);
    ck_cuda(cudaMemset2D(all, pitch, 0, W, 2), cudaErrorInvalidValue);
    ck_cuda(cudaMemset3D(v, 0, make_cudaExtent(8, 4, 2)),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaMemset2D(d, 1, 0, W, 1));        /* one row: pitch unused */
    cudaGetLastError();
    ck_cuda_ok(cudaFreeHost(pin));
    ck_cuda_ok(cudaFree(v.ptr));
    ck_cuda_ok(cudaFree(d));
    free(all);
    free(vb);
}
END_TEST

START_TEST(test_2d_errors)
{
    cudart_test_machine("h200-x1.yaml");
    void *d;
    size_t pitch;
    uint8_t h[4096];
    ck_cuda_ok(cudaMallocPitch(&d, &pitch, W, H));
    ck_cuda(cudaMemcpy2D(d, W - 1, h, W, W, H, cudaMemcpyHostToDevice),
            cudaErrorInvalidPitchValue);
    ck_cuda(cudaMemcpy2D(d, pitch, h, W - 1, W, H, cudaMemcpyHostToDevice),
            cudaErrorInvalidPitchValue);
    /* the last row would run past the allocation */
    ck_cuda(cudaMemcpy2D(d, pitch, h, W, W, H + 1, cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemcpy2D((char *)d + pitch - W + 1, pitch, h, W, W, H,
                         cudaMemcpyHostToDevice),
            cudaErrorInvalidValue);
    /* a kind against the pointers */
    ck_cuda(cudaMemcpy2D(d, pitch, h, W, W, H, cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue);
    ck_cuda(cudaMemcpy2DAsync(d, pitch, h, W, W, H, (enum cudaMemcpyKind)9,
                              0),
            cudaErrorInvalidMemcpyDirection);
    /* nothing to do */
    ck_cuda_ok(cudaMemcpy2D(d, pitch, h, W, 0, H, cudaMemcpyHostToDevice));
    ck_cuda_ok(cudaMemcpy2D(d, pitch, h, W, W, 0, cudaMemcpyHostToDevice));
    cudaGetLastError();
    ck_cuda_ok(cudaFree(d));
}
END_TEST

/*
 * A 2D copy of 4096 rows of 256 bytes into a 512-byte pitch takes the
 * time of the same 1 MiB in one contiguous copy: the copy engine moves
 * it as one operation whose bytes are the rows' (memcpy2d.c), not one
 * operation (and setup) per row. Both from pinned memory, on one stream,
 * timed by events.
 */
static float time_it(void *dst, size_t dpitch, const void *src, bool rows)
{
    cudaEvent_t e0, e1;
    float ms = 0;
    ck_cuda_ok(cudaEventCreate(&e0));
    ck_cuda_ok(cudaEventCreate(&e1));
    ck_cuda_ok(cudaEventRecord(e0, 0));
    if (rows) {
        ck_cuda_ok(cudaMemcpy2DAsync(dst, dpitch, src, 256, 256, 4096,
                                     cudaMemcpyHostToDevice, 0));
    } else {
        ck_cuda_ok(cudaMemcpyAsync(dst, src, 256 * 4096,
                                   cudaMemcpyHostToDevice, 0));
    }
    ck_cuda_ok(cudaEventRecord(e1, 0));
    ck_cuda_ok(cudaEventSynchronize(e1));
    ck_cuda_ok(cudaEventElapsedTime(&ms, e0, e1));
    return ms;
}

START_TEST(test_2d_time_as_contiguous)
{
    cudart_test_machine("h200-x1.yaml");
    void *d, *flat, *h;
    size_t pitch;
    ck_cuda_ok(cudaMallocPitch(&d, &pitch, 256, 4096));
    ck_assert_uint_eq(pitch, 512);
    ck_cuda_ok(cudaMalloc(&flat, 256 * 4096));
    ck_cuda_ok(cudaMallocHost(&h, 256 * 4096));
    float t1 = time_it(flat, 0, h, false);
    float t2 = time_it(d, pitch, h, true);
    ck_assert_msg(t1 > 0.01f, "1 MiB in %f ms", (double)t1);
    /* same bytes, same time (within 2%) */
    ck_assert_msg(t2 > t1 * 0.98f && t2 < t1 * 1.02f,
                  "2D %f ms vs contiguous %f ms", (double)t2, (double)t1);
    ck_cuda_ok(cudaFreeHost(h));
    ck_cuda_ok(cudaFree(flat));
    ck_cuda_ok(cudaFree(d));
}
END_TEST

/* Through a p2psim server (the machine in another process, as `p2psim
 * run` gives multi-process programs): the symbol's storage, the stand-ins
 * of strided sides and the fills are the server's HBM. */
START_TEST(test_through_server)
{
    struct cudart_test_server srv;
    cudart_test_server_start(&srv, "h200-x1.yaml");
    register_module();
    uint32_t v = 0xABCD, out[2];
    ck_cuda_ok(cudaMemcpyToSymbol(shadow_g, &v, 4, 4, cudaMemcpyHostToDevice));
    run_k(out, NULL);
    ck_assert_uint_eq(out[0], 0xABCD);
    ck_assert_uint_eq(out[1], 11);
    void *a, *b;
    size_t pa, pb;
    uint8_t *h = host_rows(W, 0);
    ck_cuda_ok(cudaMallocPitch(&a, &pa, W, H));
    ck_cuda_ok(cudaMallocPitch(&b, &pb, 2 * W, H));
    ck_cuda_ok(cudaMemset(a, PAD, pa * H));
    ck_cuda_ok(cudaMemset(b, 0, pb * H));
    ck_cuda_ok(cudaMemset2D(b, pb, PAD, pb, H));
    ck_cuda_ok(cudaMemcpy2D(a, pa, h, W, W, H, cudaMemcpyHostToDevice));
    ck_cuda_ok(cudaMemcpy2D(b, pb, a, pa, W, H, cudaMemcpyDeviceToDevice));
    ck_cuda_ok(cudaDeviceSynchronize());
    check_device_rows(a, pa, PAD);
    check_device_rows(b, pb, PAD);
    ck_cuda_ok(cudaFree(a));
    ck_cuda_ok(cudaFree(b));
    free(h);
    ck_assert_int_eq(cudart_test_server_stop(&srv), 0);
}
END_TEST

/* The Async forms on a capturing stream become nodes of its graph, run
 * when the graph is launched. */
START_TEST(test_2d_captured)
{
    cudart_test_machine("h200-x1.yaml");
    void *d;
    size_t pitch;
    uint8_t *h = host_rows(W, 0), *back = malloc(128 * H);
    ck_cuda_ok(cudaMallocPitch(&d, &pitch, W, H));
    ck_cuda_ok(cudaMemset(d, 0, pitch * H));
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t x;
    ck_cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    ck_cuda_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    ck_cuda_ok(cudaMemset2DAsync(d, pitch, PAD, pitch, H, s));
    ck_cuda_ok(cudaMemcpy2DAsync(d, pitch, h, W, W, H,
                                 cudaMemcpyHostToDevice, s));
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof(p));
    p.srcPtr = make_cudaPitchedPtr(d, pitch, W, H);
    p.dstPtr = make_cudaPitchedPtr(back, 128, W, H);
    p.extent = make_cudaExtent(W, H, 1);
    p.kind = cudaMemcpyDeviceToHost;
    ck_cuda_ok(cudaMemcpy3DAsync(&p, s));
    ck_cuda_ok(cudaStreamEndCapture(s, &g));
    size_t n = 0;
    ck_cuda_ok(cudaGraphGetNodes(g, NULL, &n));
    ck_assert_uint_eq(n, 3);
    memset(back, 0x55, 128 * H);
    /* nothing ran during the capture */
    uint8_t *now = malloc(pitch * H);
    ck_cuda_ok(cudaMemcpy(now, d, pitch * H, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < pitch * H; i++) {
        ck_assert_uint_eq(now[i], 0);
    }
    free(now);
    ck_cuda_ok(cudaGraphInstantiate(&x, g, 0));
    ck_cuda_ok(cudaGraphLaunch(x, s));
    ck_cuda_ok(cudaStreamSynchronize(s));
    check_device_rows(d, pitch, PAD);
    check_host_rows(back, 128, 0x55);
    ck_cuda_ok(cudaGraphExecDestroy(x));
    ck_cuda_ok(cudaGraphDestroy(g));
    ck_cuda_ok(cudaStreamDestroy(s));
    ck_cuda_ok(cudaFree(d));
    free(h);
    free(back);
}
END_TEST

/* ---- the extensible launch ------------------------------------------------------- */

START_TEST(test_launch_ex_attributes)
{
    cudart_test_machine("h200-x1.yaml");
    register_module();
    uint32_t v = 5, out[2];
    ck_cuda_ok(cudaMemcpyToSymbol(shadow_g, &v, 4, 4, cudaMemcpyHostToDevice));
    cudaLaunchAttribute at[3];
    memset(at, 0, sizeof(at));
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.gridDim = d3(1, 1, 1);
    cfg.blockDim = d3(1, 1, 1);
    run_k(out, &cfg);                       /* no attributes */
    ck_assert_uint_eq(out[0], 5);
    at[0].id = cudaLaunchAttributeCooperative;
    at[0].val.cooperative = 1;
    at[1].id = cudaLaunchAttributePriority;
    at[1].val.priority = -1;
    at[2].id = cudaLaunchAttributeClusterDimension;
    at[2].val.clusterDim.x = at[2].val.clusterDim.y = 1;
    at[2].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 3;
    run_k(out, &cfg);
    ck_assert_uint_eq(out[0], 5);
    /* a cudaKernel_t names the kernel too */
    cudaKernel_t kh;
    ck_cuda_ok(__cudaGetKernel(&kh, KEY(stub_k)));
    uint32_t *dout;
    ck_cuda_ok(cudaMalloc((void **)&dout, 8));
    void *args[] = { &dout };
    ck_cuda_ok(cudaLaunchKernelExC(&cfg, (const void *)kh, args));
    ck_cuda_ok(cudaDeviceSynchronize());
    /* refused */
    at[2].val.clusterDim.x = 2;
    ck_cuda(cudaLaunchKernelExC(&cfg, KEY(stub_k), args),
            cudaErrorNotSupported);
    at[2].val.clusterDim.x = 0;
    ck_cuda(cudaLaunchKernelExC(&cfg, KEY(stub_k), args),
            cudaErrorInvalidValue);
    at[2].id = cudaLaunchAttributeSynchronizationPolicy;
    ck_cuda(cudaLaunchKernelExC(&cfg, KEY(stub_k), args),
            cudaErrorInvalidValue);
    at[2].id = cudaLaunchAttributeLaunchCompletionEvent;
    ck_cuda(cudaLaunchKernelExC(&cfg, KEY(stub_k), args),
            cudaErrorNotSupported);
    at[2].id = (cudaLaunchAttributeID)99;
    ck_cuda(cudaLaunchKernelExC(&cfg, KEY(stub_k), args),
            cudaErrorInvalidValue);
    cfg.attrs = NULL;
    ck_cuda(cudaLaunchKernelExC(&cfg, KEY(stub_k), args),
            cudaErrorInvalidValue);
    ck_cuda(cudaLaunchKernelExC(NULL, KEY(stub_k), args),
            cudaErrorInvalidValue);
    /* the launch's own checks still apply */
    cfg.numAttrs = 0;
    cfg.blockDim = d3(2048, 1, 1);
    ck_cuda(cudaLaunchKernelExC(&cfg, KEY(stub_k), args),
            cudaErrorInvalidConfiguration);
    cudaGetLastError();
    ck_cuda_ok(cudaFree(dout));
}
END_TEST

Suite *make_cudart_memcpy2d_suite(void)
{
    Suite *s = suite_create("cudart-memcpy2d");
    TCase *tc = tcase_create("memcpy2d");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_symbol_copies_reach_kernels);
    tcase_add_test(tc, test_symbol_errors);
    tcase_add_test(tc, test_pitch_rules);
    tcase_add_test(tc, test_2d_host_device);
    tcase_add_test(tc, test_2d_device_device);
    tcase_add_test(tc, test_3d_copy_positions);
    tcase_add_test(tc, test_memset_2d_3d);
    tcase_add_test(tc, test_2d_errors);
    tcase_add_test(tc, test_2d_time_as_contiguous);
    tcase_add_test(tc, test_launch_ex_attributes);
    tcase_add_test(tc, test_through_server);
    tcase_add_test(tc, test_2d_captured);
    suite_add_tcase(s, tc);
    return s;
}
