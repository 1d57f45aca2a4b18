/*
 * tests/cudart/check_copy.c - cudaMemcpy and friends: bytes are exact for
 * every kind of memory, size and alignment; kinds are checked against the
 * pointers; GPU-to-GPU copies go direct with peer access and are staged
 * without it.
 */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tests/cudart/cudart_test.h"

#define MiB (1024u * 1024u)

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        p[i] = (unsigned char)(x >> 24);
    }
}

/* Host -> GPU -> GPU -> host through pageable and pinned buffers, odd
 * sizes and offsets: the bytes come back exactly. */
START_TEST(test_round_trip_exact)
{
    cudart_test_machine(NULL);
    static const size_t sizes[] = { 1, 3, 4096, 65537, 3 * MiB + 5 };
    for (int pinned = 0; pinned < 2; pinned++) {
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            size_t n = sizes[k];
            unsigned char *src, *dst;
            if (pinned) {
                ck_cuda_ok(cudaMallocHost((void **)&src, n + 16));
                ck_cuda_ok(cudaMallocHost((void **)&dst, n + 16));
            } else {
                src = malloc(n + 16);
                dst = malloc(n + 16);
            }
            fill(src, n + 16, (unsigned)(n + pinned));
            memset(dst, 0xee, n + 16);
            unsigned char *d0, *d1;
            ck_cuda_ok(cudaSetDevice(0));
            ck_cuda_ok(cudaMalloc((void **)&d0, n + 64));
            ck_cuda_ok(cudaSetDevice(5));
            ck_cuda_ok(cudaMalloc((void **)&d1, n + 64));
            ck_cuda_ok(cudaMemcpy(d0 + 7, src + 3, n, cudaMemcpyHostToDevice));
            ck_cuda_ok(cudaMemcpy(d1 + 1, d0 + 7, n, cudaMemcpyDefault));
            ck_cuda_ok(cudaMemcpy(dst + 5, d1 + 1, n, cudaMemcpyDeviceToHost));
            ck_assert_msg(memcmp(dst + 5, src + 3, n) == 0,
                          "size %zu pinned %d differs", n, pinned);
            ck_assert_int_eq(dst[4], 0xee);
            ck_assert_int_eq(dst[5 + n], 0xee);
            cudaFree(d0);
            cudaFree(d1);
            if (pinned) {
                cudaFreeHost(src);
                cudaFreeHost(dst);
            } else {
                free(src);
                free(dst);
            }
        }
    }
}
END_TEST

/* An async copy from pageable memory takes the bytes at the call: the
 * program may reuse its buffer right after. */
START_TEST(test_pageable_async_snapshot)
{
    cudart_test_machine("h200-x1.yaml");
    size_t n = 1 * MiB;
    unsigned char *h = malloc(n), *back = malloc(n);
    void *d;
    ck_cuda_ok(cudaMalloc(&d, n));
    memset(h, 0x11, n);
    ck_cuda_ok(cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, 0));
    memset(h, 0x22, n);
    ck_cuda_ok(cudaMemcpy(back, d, n, cudaMemcpyDeviceToHost));
    ck_assert_int_eq(back[0], 0x11);
    ck_assert_int_eq(back[n - 1], 0x11);
    free(h);
    free(back);
}
END_TEST

/* Kinds: an invalid kind is 21; a kind that contradicts the pointers is
 * 1; both are recorded as the last error. Host to host copies. */
START_TEST(test_kinds)
{
    cudart_test_machine("h200-x1.yaml");
    char a[64] = "hello", b[64] = { 0 };
    void *d;
    ck_cuda_ok(cudaMalloc(&d, 64));
    ck_cuda(cudaMemcpy(d, a, 8, (enum cudaMemcpyKind)7),
            cudaErrorInvalidMemcpyDirection);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
    ck_cuda(cudaMemcpy(d, a, 8, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    ck_cuda(cudaMemcpy(a, d, 8, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    ck_cuda(cudaMemcpy(a, d, 8, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidValue);
    ck_cuda_ok(cudaMemcpy(b, a, 6, cudaMemcpyHostToHost));
    ck_assert_str_eq(b, "hello");
    ck_cuda_ok(cudaMemcpy(b, a, 0, cudaMemcpyDefault));
    ck_cuda(cudaMemcpy(NULL, a, 4, cudaMemcpyDefault), cudaErrorInvalidValue);
    /* past the end of the allocation */
    ck_cuda(cudaMemcpy(d, a, 65, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    ck_cuda(cudaMemcpyAsync(d, a, 8, cudaMemcpyDefault, (cudaStream_t)b),
            cudaErrorInvalidResourceHandle);
    cudaFree(d);
    /* a freed pointer is no longer device memory */
    ck_cuda(cudaMemcpy(d, a, 8, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
}
END_TEST

static float time_peer(int a, int b, size_t n, bool enable)
{
    void *pa, *pb;
    ck_cuda_ok(cudaSetDevice(a));
    ck_cuda_ok(cudaMalloc(&pa, n));
    if (enable) {
        ck_cuda_ok(cudaDeviceEnablePeerAccess(b, 0));
    }
    ck_cuda_ok(cudaSetDevice(b));
    ck_cuda_ok(cudaMalloc(&pb, n));
    if (enable) {
        ck_cuda_ok(cudaDeviceEnablePeerAccess(a, 0));
    }
    ck_cuda_ok(cudaSetDevice(a));
    cudaStream_t s;
    cudaEvent_t e0, e1;
    ck_cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    ck_cuda_ok(cudaEventCreate(&e0));
    ck_cuda_ok(cudaEventCreate(&e1));
    ck_cuda_ok(cudaEventRecord(e0, s));
    ck_cuda_ok(cudaMemcpyPeerAsync(pb, b, pa, a, n, s));
    ck_cuda_ok(cudaEventRecord(e1, s));
    ck_cuda_ok(cudaEventSynchronize(e1));
    float ms;
    ck_cuda_ok(cudaEventElapsedTime(&ms, e0, e1));
    if (enable) {
        ck_cuda_ok(cudaDeviceDisablePeerAccess(b));
        ck_cuda_ok(cudaSetDevice(b));
        ck_cuda_ok(cudaDeviceDisablePeerAccess(a));
        ck_cuda_ok(cudaSetDevice(a));
    }
    cudaFree(pa);
    cudaFree(pb);
    return ms;
}

/* Two GPUs behind one switch: with peer access the copy is direct and
 * faster than staged through host memory. */
START_TEST(test_peer_direct_faster)
{
    cudart_test_machine(NULL);
    size_t n = 64 * MiB;
    float staged = time_peer(0, 1, n, false);
    float direct = time_peer(0, 1, n, true);
    ck_assert_msg(direct < 0.8f * staged, "direct %f ms staged %f ms", direct,
                  staged);
    double gbps = (double)n / (direct * 1e-3) / 1e9;
    /* Gen4 x16 (16 GT/s, 128b/130b) carrying 256-byte writes with the
     * least overhead a TLP can have (4-byte STP token with sequence
     * number, 3-DW header, LCRC: 20 bytes; reference pcie-nvlink.md
     * §2.11): the rate cannot exceed this bound, and DLLPs and the
     * copy's start cost keep it a little below. */
    double line = 16e9 * 16 / 8 * 128.0 / 130.0 / 1e9;
    double bound = line * 256.0 / (256.0 + 20.0);
    ck_assert_msg(gbps > 0.9 * bound && gbps <= bound,
                  "direct %.2f GB/s, bound %.2f", gbps, bound);
}
END_TEST

/* A pair whose P2P is blocked (GeForce): peer access cannot be enabled,
 * and cudaMemcpyPeer still works, staged. */
START_TEST(test_blocked_pair_staged)
{
    cudart_test_machine("desktop-2x-geforce.yaml");
    int can = -1;
    ck_cuda_ok(cudaDeviceCanAccessPeer(&can, 0, 1));
    ck_assert_int_eq(can, 0);
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessUnsupported);
    cudaGetLastError();
    size_t n = 4 * MiB;
    unsigned char *h = malloc(n), *back = malloc(n);
    fill(h, n, 9);
    void *p0, *p1;
    ck_cuda_ok(cudaMalloc(&p0, n));
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaMalloc(&p1, n));
    ck_cuda_ok(cudaMemcpy(p0, h, n, cudaMemcpyHostToDevice));
    ck_cuda_ok(cudaMemcpyPeer(p1, 1, p0, 0, n));
    ck_cuda_ok(cudaMemcpy(back, p1, n, cudaMemcpyDeviceToHost));
    ck_assert(memcmp(h, back, n) == 0);
    ck_cuda(cudaMemcpyPeer(p1, 0, p0, 0, n), cudaErrorInvalidValue);
    ck_cuda(cudaMemcpyPeer(p1, 1, p0, 7, n), cudaErrorInvalidDevice);
    free(h);
    free(back);
}
END_TEST

Suite *make_cudart_copy_suite(void)
{
    Suite *s = suite_create("cudart-copy");
    TCase *tc = tcase_create("copy");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_round_trip_exact);
    tcase_add_test(tc, test_pageable_async_snapshot);
    tcase_add_test(tc, test_kinds);
    tcase_add_test(tc, test_peer_direct_faster);
    tcase_add_test(tc, test_blocked_pair_staged);
    suite_add_tcase(s, tc);
    return s;
}
