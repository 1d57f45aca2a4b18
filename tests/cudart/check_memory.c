/*
 * tests/cudart/check_memory.c - device memory (UVA windows), pinned host
 * memory, pointer attributes, memset, pools and stream-ordered allocation
 * (cuda/cudart/memory*.c, memset.c), through the CUDA calls a program
 * makes.
 *
 * The default machine has eight A100-PCIe (80 GB) GPUs, two per PCIe
 * switch; h200-x1 has one H200.
 */
#include <config.h>

#include "tests/cudart/cudart_test.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)

/* 80 GB, the A100-PCIe's memory as its catalog entry gives it. */
#define A100_BYTES ((size_t)80 * 1000 * 1000 * 1000)

/* ---- device memory ------------------------------------------------------- */

START_TEST(test_memory_malloc_is_aligned)
{
    static const size_t sizes[] = { 1, 100, 256, 511, 512, 513, 4096, MIB + 3 };
    void *p[sizeof(sizes) / sizeof(sizes[0])];
    for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        ck_cuda_ok(cudaMalloc(&p[i], sizes[i]));
        ck_assert_ptr_nonnull(p[i]);
        ck_assert_uint_eq((uintptr_t)p[i] % 512, 0);
        for (unsigned j = 0; j < i; j++) {
            /* no two allocations overlap */
            uintptr_t a = (uintptr_t)p[i], b = (uintptr_t)p[j];
            ck_assert(a >= b + sizes[j] || b >= a + sizes[i]);
        }
    }
    for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        ck_cuda_ok(cudaFree(p[i]));
    }
}
END_TEST

START_TEST(test_memory_malloc_zero_gives_null)
{
    void *p = (void *)1;
    ck_cuda_ok(cudaMalloc(&p, 0));
    ck_assert_ptr_null(p);
    ck_cuda_ok(cudaFree(p));
    ck_cuda(cudaMalloc(NULL, 16), cudaErrorInvalidValue);
}
END_TEST

START_TEST(test_memory_windows_are_distinct_per_device)
{
    void *p[4];
    for (int d = 0; d < 4; d++) {
        ck_cuda_ok(cudaSetDevice(d));
        ck_cuda_ok(cudaMalloc(&p[d], 1024));
    }
    for (int d = 0; d < 4; d++) {
        struct cudaPointerAttributes at;
        ck_cuda_ok(cudaPointerGetAttributes(&at, p[d]));
        ck_assert_int_eq(at.type, cudaMemoryTypeDevice);
        ck_assert_int_eq(at.device, d);
        for (int e = 0; e < d; e++) {
            /* Each window holds a whole GPU's memory: the first
             * allocations of two devices lie at least that far apart. */
            uintptr_t a = (uintptr_t)p[d], b = (uintptr_t)p[e];
            ck_assert_uint_ge(a > b ? a - b : b - a, A100_BYTES);
        }
    }
}
END_TEST

#if !defined(__SANITIZE_ADDRESS__)
START_TEST(test_memory_device_pointer_faults_on_host)
{
    void *p;
    ck_cuda_ok(cudaMalloc(&p, 4096));
    /* As on real CUDA, the host cannot dereference device memory. */
    volatile char c = *(volatile char *)p;
    (void)c;
}
END_TEST
#endif

START_TEST(test_memory_out_of_memory)
{
    void *p = (void *)1;
    ck_cuda(cudaMalloc(&p, (size_t)1 << 40), cudaErrorMemoryAllocation);
    ck_cuda(cudaGetLastError(), cudaErrorMemoryAllocation);
    /* Fill the GPU with 16 GiB pieces: 80 GB holds four. */
    void *piece[8];
    unsigned n = 0;
    cudaError_t e;
    while ((e = cudaMalloc(&piece[n], 16 * GIB)) == cudaSuccess) {
        n++;
        ck_assert_uint_lt(n, 8);
    }
    ck_assert_int_eq(e, cudaErrorMemoryAllocation);
    ck_assert_uint_eq(n, A100_BYTES / (16 * GIB));
    /* What is left still serves smaller requests; freeing makes room. */
    ck_cuda_ok(cudaMalloc(&p, GIB));
    ck_cuda_ok(cudaFree(piece[0]));
    ck_cuda_ok(cudaMalloc(&piece[0], 16 * GIB));
    /* Another device is not affected. */
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaMalloc(&p, 16 * GIB));
}
END_TEST

START_TEST(test_memory_free_errors)
{
    void *d, *h;
    ck_cuda_ok(cudaFree(NULL));
    ck_cuda_ok(cudaMalloc(&d, 4096));
    ck_cuda(cudaFree((char *)d + 512), cudaErrorInvalidValue);
    ck_cuda_ok(cudaFree(d));
    ck_cuda(cudaGetLastError(), cudaErrorInvalidValue);
    ck_cuda(cudaFree(d), cudaErrorInvalidValue);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidValue);
    ck_cuda(cudaGetLastError(), cudaSuccess);

    int on_stack = 0;
    ck_cuda(cudaFree(&on_stack), cudaErrorInvalidValue);
    ck_cuda_ok(cudaMallocHost(&h, 4096));
    ck_cuda(cudaFree(h), cudaErrorInvalidValue);
    ck_cuda_ok(cudaMalloc(&d, 4096));
    ck_cuda(cudaFreeHost(d), cudaErrorInvalidValue);
    ck_cuda_ok(cudaFreeHost(h));
    ck_cuda(cudaFreeHost(h), cudaErrorInvalidValue);
    ck_cuda_ok(cudaFreeHost(NULL));
    ck_cuda_ok(cudaFree(d));
}
END_TEST

/* ---- pinned host memory -------------------------------------------------- */

START_TEST(test_memory_host_register_twice)
{
    size_t n = 64 * 1024;
    char *buf = aligned_alloc(4096, n);
    ck_assert_ptr_nonnull(buf);
    ck_cuda_ok(cudaHostRegister(buf, n, cudaHostRegisterDefault));
    ck_cuda(cudaHostRegister(buf, n, cudaHostRegisterDefault),
            cudaErrorHostMemoryAlreadyRegistered);
    ck_cuda(cudaHostRegister(buf + 4096, 4096, cudaHostRegisterMapped),
            cudaErrorHostMemoryAlreadyRegistered);
    ck_cuda(cudaGetLastError(), cudaErrorHostMemoryAlreadyRegistered);

    struct cudaPointerAttributes at;
    ck_cuda_ok(cudaPointerGetAttributes(&at, buf + 100));
    ck_assert_int_eq(at.type, cudaMemoryTypeHost);
    ck_assert_ptr_eq(at.hostPointer, buf + 100);

    ck_cuda(cudaHostUnregister(buf + 4096), cudaErrorHostMemoryNotRegistered);
    ck_cuda_ok(cudaHostUnregister(buf));
    ck_cuda(cudaHostUnregister(buf), cudaErrorHostMemoryNotRegistered);
    ck_cuda(cudaGetLastError(), cudaErrorHostMemoryNotRegistered);
    ck_cuda_ok(cudaPointerGetAttributes(&at, buf));
    ck_assert_int_eq(at.type, cudaMemoryTypeUnregistered);
    free(buf);
}
END_TEST

START_TEST(test_memory_host_register_errors)
{
    char buf[256];
    void *d, *h;
    ck_cuda(cudaHostUnregister(buf), cudaErrorHostMemoryNotRegistered);
    ck_cuda(cudaHostRegister(NULL, 16, 0), cudaErrorInvalidValue);
    ck_cuda(cudaHostRegister(buf, 0, 0), cudaErrorInvalidValue);
    ck_cuda(cudaHostRegister(buf, sizeof(buf), 0x100), cudaErrorInvalidValue);
    ck_cuda_ok(cudaMalloc(&d, 4096));
    ck_cuda(cudaHostRegister(d, 4096, 0), cudaErrorInvalidValue);
    ck_cuda_ok(cudaMallocHost(&h, 4096));
    ck_cuda(cudaHostRegister(h, 4096, 0), cudaErrorHostMemoryAlreadyRegistered);
    /* memory of cudaMallocHost is freed with cudaFreeHost, not unregistered */
    ck_cuda(cudaHostUnregister(h), cudaErrorHostMemoryNotRegistered);
}
END_TEST

START_TEST(test_memory_host_device_pointer_and_flags)
{
    void *h, *dp = NULL;
    unsigned flags = 0;
    ck_cuda_ok(cudaHostAlloc(&h, 8192, cudaHostAllocWriteCombined));
    ck_cuda_ok(cudaHostGetDevicePointer(&dp, (char *)h + 8, 0));
    ck_assert_ptr_eq(dp, (char *)h + 8);
    ck_cuda(cudaHostGetDevicePointer(&dp, h, 1), cudaErrorInvalidValue);
    ck_cuda_ok(cudaHostGetFlags(&flags, h));
    ck_assert_uint_eq(flags & cudaHostAllocWriteCombined,
                      cudaHostAllocWriteCombined);
    ck_assert_uint_eq(flags & cudaHostAllocMapped, cudaHostAllocMapped);

    int on_stack = 0;
    ck_cuda(cudaHostGetDevicePointer(&dp, &on_stack, 0), cudaErrorInvalidValue);
    ck_cuda(cudaHostGetFlags(&flags, &on_stack), cudaErrorInvalidValue);
    ck_cuda(cudaHostAlloc(&h, 64, 0x80), cudaErrorInvalidValue);
}
END_TEST

/* Elapsed microseconds of an async copy on the legacy stream. */
static float timed_copy_us(void *dst, const void *src, size_t n)
{
    cudaEvent_t a, b;
    float ms = -1.0f;
    ck_cuda_ok(cudaEventCreate(&a));
    ck_cuda_ok(cudaEventCreate(&b));
    ck_cuda_ok(cudaEventRecord(a, 0));
    ck_cuda_ok(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, 0));
    ck_cuda_ok(cudaEventRecord(b, 0));
    ck_cuda_ok(cudaEventSynchronize(b));
    ck_cuda_ok(cudaEventElapsedTime(&ms, a, b));
    ck_cuda_ok(cudaEventDestroy(a));
    ck_cuda_ok(cudaEventDestroy(b));
    return ms * 1000.0f;
}

/* Pinned memory lives in the DRAM of the socket of the device current at
 * allocation: GPU 4 (socket 1) reads socket-1 memory without crossing the
 * link between the sockets. */
START_TEST(test_memory_pinned_memory_is_near_current_device)
{
    size_t n = 4 * MIB;
    void *far, *near, *d;
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaMallocHost(&far, n));
    ck_cuda_ok(cudaSetDevice(5));
    ck_cuda_ok(cudaMallocHost(&near, n));
    ck_cuda_ok(cudaSetDevice(4));
    ck_cuda_ok(cudaMalloc(&d, n));
    float far_us = timed_copy_us(d, far, n);
    float near_us = timed_copy_us(d, near, n);
    ck_assert_float_gt(near_us, 0.0f);
    ck_assert_float_lt(near_us, far_us);
}
END_TEST

/* Program bytes survive host -> device -> memset -> host exactly, through
 * registered and allocated pinned memory. */
START_TEST(test_memory_pinned_round_trip_is_byte_exact)
{
    size_t n = MIB + 77;
    unsigned char *src = aligned_alloc(4096, 2 * MIB), *dst, *d;
    ck_assert_ptr_nonnull(src);
    for (size_t i = 0; i < n; i++) {
        src[i] = (unsigned char)(i * 131 + 7);
    }
    ck_cuda_ok(cudaHostRegister(src, 2 * MIB, cudaHostRegisterPortable));
    ck_cuda_ok(cudaMallocHost((void **)&dst, n));
    ck_cuda_ok(cudaMalloc((void **)&d, n));
    ck_cuda_ok(cudaMemcpy(d, src, n, cudaMemcpyHostToDevice));
    ck_cuda_ok(cudaMemset(d + 1000, 0xee, 24));
    ck_cuda_ok(cudaMemcpy(dst, d, n, cudaMemcpyDeviceToHost));
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++) {
        unsigned char want = i >= 1000 && i < 1024 ? 0xee : src[i];
        if (dst[i] != want) {
            bad = i;
        }
    }
    ck_assert_msg(bad == n, "byte %zu differs", bad);
    ck_cuda_ok(cudaHostUnregister(src));
    free(src);
}
END_TEST

/* ---- pointer attributes -------------------------------------------------- */

START_TEST(test_memory_pointer_attributes_every_kind)
{
    struct cudaPointerAttributes at;
    int on_stack = 0;
    ck_cuda(cudaPointerGetAttributes(NULL, &on_stack), cudaErrorInvalidValue);

    /* pageable: success (CUDA 11 on), type Unregistered */
    ck_cuda_ok(cudaPointerGetAttributes(&at, &on_stack));
    ck_assert_int_eq(at.type, cudaMemoryTypeUnregistered);
    ck_assert_ptr_null(at.devicePointer);

    /* device memory of device 3 */
    void *d;
    ck_cuda_ok(cudaSetDevice(3));
    ck_cuda_ok(cudaMalloc(&d, 1000));
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaPointerGetAttributes(&at, (char *)d + 999));
    ck_assert_int_eq(at.type, cudaMemoryTypeDevice);
    ck_assert_int_eq(at.device, 3);
    ck_assert_ptr_eq(at.devicePointer, (char *)d + 999);
    ck_assert_ptr_null(at.hostPointer);

    /* pinned: the device current at allocation, both pointers */
    void *h;
    ck_cuda_ok(cudaSetDevice(5));
    ck_cuda_ok(cudaHostAlloc(&h, 4096, cudaHostAllocPortable));
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaPointerGetAttributes(&at, h));
    ck_assert_int_eq(at.type, cudaMemoryTypeHost);
    ck_assert_int_eq(at.device, 5);
    ck_assert_ptr_eq(at.devicePointer, h);
    ck_assert_ptr_eq(at.hostPointer, h);

    /* managed */
    void *m;
    ck_cuda_ok(cudaMallocManaged(&m, 4096, cudaMemAttachGlobal));
    ck_cuda_ok(cudaPointerGetAttributes(&at, m));
    ck_assert_int_eq(at.type, cudaMemoryTypeManaged);
    ck_assert_int_eq(at.device, 0);
    ck_assert_ptr_eq(at.devicePointer, m);
    ck_assert_ptr_eq(at.hostPointer, m);

    /* freed device memory is no longer known */
    ck_cuda_ok(cudaFree(d));
    ck_cuda_ok(cudaPointerGetAttributes(&at, d));
    ck_assert_int_eq(at.type, cudaMemoryTypeUnregistered);
}
END_TEST

/* ---- memset -------------------------------------------------------------- */

/* Every byte of [p, p + n) is v (one assertion: Check's are slow). */
static void assert_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    size_t i = 0;
    while (i < n && p[i] == v) {
        i++;
    }
    ck_assert_msg(i == n, "byte %zu: %#x, want %#x", i, i < n ? p[i] : 0, v);
}

START_TEST(test_memory_memset_pinned_is_byte_exact)
{
    unsigned char *h;
    size_t n = 10000;
    ck_cuda_ok(cudaMallocHost((void **)&h, n));
    memset(h, 0x11, n);
    /* synchronous for pinned targets: the bytes are there on return */
    ck_cuda_ok(cudaMemset(h + 3, 0xa5, n - 10));
    assert_bytes(h, 3, 0x11);
    assert_bytes(h + 3, n - 10, 0xa5);
    assert_bytes(h + n - 7, 7, 0x11);
    ck_cuda(cudaMemset(h + 1, 0, n), cudaErrorInvalidValue);
    ck_cuda_ok(cudaMemsetAsync(h, 0x3c, 100, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    assert_bytes(h, 100, 0x3c);
    ck_cuda_ok(cudaFreeHost(h));
}
END_TEST

START_TEST(test_memory_memset_errors)
{
    char on_stack[64];
    void *d;
    ck_cuda(cudaMemset(on_stack, 0, sizeof(on_stack)), cudaErrorInvalidValue);
    ck_cuda(cudaMemset(NULL, 0, 16), cudaErrorInvalidValue);
    ck_cuda_ok(cudaMalloc(&d, 1024));
    ck_cuda(cudaMemset((char *)d + 1000, 0, 25), cudaErrorInvalidValue);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidValue);
    ck_cuda_ok(cudaMemset((char *)d + 1000, 0, 24));
    ck_cuda_ok(cudaMemset(d, 0, 0));
    ck_cuda_ok(cudaFree(d));
    /* memory of a window nobody allocated */
    ck_cuda(cudaMemset(d, 0, 16), cudaErrorInvalidValue);
}
END_TEST

START_TEST(test_memory_memset_device_reads_back)
{
    size_t n = 3 * MIB + 5;
    unsigned char *d, *h = malloc(n);
    ck_assert_ptr_nonnull(h);
    ck_cuda_ok(cudaMalloc((void **)&d, n));
    ck_cuda_ok(cudaMemset(d, 0xab, n));
    cudaStream_t s;
    ck_cuda_ok(cudaStreamCreate(&s));
    ck_cuda_ok(cudaMemsetAsync(d + 1000, 0x17, 333, s));
    ck_cuda_ok(cudaStreamSynchronize(s));
    ck_cuda_ok(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost));
    assert_bytes(h, 1000, 0xab);
    assert_bytes(h + 1000, 333, 0x17);
    assert_bytes(h + 1333, n - 1333, 0xab);
    free(h);
}
END_TEST

/* A memset's simulated time grows with its size (it streams through HBM). */
START_TEST(test_memory_memset_takes_time)
{
    void *d;
    cudaEvent_t e[3];
    float small_ms, large_ms;
    ck_cuda_ok(cudaMalloc(&d, 64 * MIB));
    for (int i = 0; i < 3; i++) {
        ck_cuda_ok(cudaEventCreate(&e[i]));
    }
    ck_cuda_ok(cudaEventRecord(e[0], 0));
    ck_cuda_ok(cudaMemsetAsync(d, 1, 4096, 0));
    ck_cuda_ok(cudaEventRecord(e[1], 0));
    ck_cuda_ok(cudaMemsetAsync(d, 2, 64 * MIB, 0));
    ck_cuda_ok(cudaEventRecord(e[2], 0));
    ck_cuda_ok(cudaEventSynchronize(e[2]));
    ck_cuda_ok(cudaEventElapsedTime(&small_ms, e[0], e[1]));
    ck_cuda_ok(cudaEventElapsedTime(&large_ms, e[1], e[2]));
    ck_assert_float_gt(small_ms, 0.0f);
    /* 64 MiB at the A100's ~2 TB/s: ~33 us more than a 4 KiB set */
    ck_assert_float_gt(large_ms, small_ms + 0.02f);
    ck_assert_float_lt(large_ms, 1.0f);
}
END_TEST

/* cudaMemPoolGetAttribute, short. */
static cudaError_t pool_get(cudaMemPool_t pool, enum cudaMemPoolAttr attr,
                            uint64_t *v)
{
    return cudaMemPoolGetAttribute(pool, attr, v);
}

/* ---- pools --------------------------------------------------------------- */

START_TEST(test_memory_pool_default_and_current)
{
    cudaMemPool_t def, cur, mine, other;
    ck_cuda_ok(cudaDeviceGetDefaultMemPool(&def, 0));
    ck_cuda_ok(cudaDeviceGetMemPool(&cur, 0));
    ck_assert_ptr_eq(def, cur);
    ck_cuda_ok(cudaDeviceGetDefaultMemPool(&other, 1));
    ck_assert_ptr_ne(def, other);
    ck_cuda(cudaDeviceGetDefaultMemPool(&def, 99), cudaErrorInvalidDevice);
    ck_cuda(cudaMemPoolDestroy(def), cudaErrorInvalidValue);

    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof(props));
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    ck_cuda_ok(cudaMemPoolCreate(&mine, &props));
    ck_cuda(cudaDeviceSetMemPool(1, mine), cudaErrorInvalidValue);
    ck_cuda_ok(cudaDeviceSetMemPool(0, mine));
    ck_cuda_ok(cudaDeviceGetMemPool(&cur, 0));
    ck_assert_ptr_eq(cur, mine);
    /* destroying the current pool makes the default current again */
    ck_cuda_ok(cudaMemPoolDestroy(mine));
    ck_cuda_ok(cudaDeviceGetMemPool(&cur, 0));
    ck_assert_ptr_eq(cur, def);

    props.location.id = 42;
    ck_cuda(cudaMemPoolCreate(&mine, &props), cudaErrorInvalidValue);
    props.location.id = 0;
    props.allocType = cudaMemAllocationTypeInvalid;
    ck_cuda(cudaMemPoolCreate(&mine, &props), cudaErrorInvalidValue);
    ck_cuda(cudaMemPoolCreate(&mine, NULL), cudaErrorInvalidValue);
}
END_TEST

START_TEST(test_memory_malloc_async_and_free_async)
{
    cudaMemPool_t pool;
    cudaStream_t s;
    uint64_t v;
    void *p;
    ck_cuda_ok(cudaDeviceGetDefaultMemPool(&pool, 0));
    ck_cuda_ok(cudaStreamCreate(&s));
    ck_cuda_ok(cudaMallocAsync(&p, 1000, s));
    ck_assert_uint_eq((uintptr_t)p % 512, 0);
    struct cudaPointerAttributes at;
    ck_cuda_ok(cudaPointerGetAttributes(&at, p));
    ck_assert_int_eq(at.type, cudaMemoryTypeDevice);
    ck_cuda_ok(pool_get(pool, cudaMemPoolAttrUsedMemCurrent, &v));
    ck_assert_uint_eq(v, 1024);
    ck_cuda_ok(cudaMemsetAsync(p, 7, 1000, s));
    ck_cuda_ok(cudaFreeAsync(p, s));
    /* a queued free cannot be freed again */
    ck_cuda(cudaFree(p), cudaErrorInvalidValue);
    ck_cuda_ok(cudaStreamSynchronize(s));
    ck_cuda_ok(pool_get(pool, cudaMemPoolAttrUsedMemCurrent, &v));
    ck_assert_uint_eq(v, 0);
    ck_cuda_ok(pool_get(pool, cudaMemPoolAttrUsedMemHigh, &v));
    ck_assert_uint_eq(v, 1024);
    ck_cuda(cudaFreeAsync(p, s), cudaErrorInvalidValue);
    ck_cuda(cudaFreeAsync((char *)&v, s), cudaErrorInvalidValue);
}
END_TEST

START_TEST(test_memory_pool_release_threshold_and_trim)
{
    cudaMemPool_t pool;
    uint64_t v = 64 * MIB;
    void *p;
    ck_cuda_ok(cudaDeviceGetDefaultMemPool(&pool, 0));
    ck_cuda_ok(
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &v));
    v = 0;
    ck_cuda_ok(pool_get(pool, cudaMemPoolAttrReleaseThreshold, &v));
    ck_assert_uint_eq(v, 64 * MIB);
    ck_cuda_ok(cudaMallocAsync(&p, 8 * MIB, 0));
    ck_cuda_ok(cudaFreeAsync(p, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    /* freed, but kept reserved below the threshold */
    ck_cuda_ok(pool_get(pool, cudaMemPoolAttrReservedMemCurrent, &v));
    ck_assert_uint_eq(v, 8 * MIB);
    ck_cuda_ok(pool_get(pool, cudaMemPoolAttrUsedMemCurrent, &v));
    ck_assert_uint_eq(v, 0);
    ck_cuda_ok(cudaMemPoolTrimTo(pool, 0));
    ck_cuda_ok(pool_get(pool, cudaMemPoolAttrReservedMemCurrent, &v));
    ck_assert_uint_eq(v, 0);
    /* read-only attributes, and the reuse flags */
    ck_cuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &v),
            cudaErrorInvalidValue);
    int reuse = 0;
    ck_cuda_ok(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic,
                                       &reuse));
    reuse = 5;
    ck_cuda_ok(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic,
                                       &reuse));
    ck_assert_int_eq(reuse, 0);
    ck_cuda(cudaMemPoolGetAttribute(pool, (enum cudaMemPoolAttr)99, &v),
            cudaErrorInvalidValue);
}
END_TEST

START_TEST(test_memory_pool_access_round_trip)
{
    cudaMemPool_t pool;
    enum cudaMemAccessFlags f;
    struct cudaMemLocation self = { cudaMemLocationTypeDevice, 0 };
    struct cudaMemLocation peer = { cudaMemLocationTypeDevice, 1 };
    ck_cuda_ok(cudaDeviceGetDefaultMemPool(&pool, 0));
    ck_cuda_ok(cudaMemPoolGetAccess(&f, pool, &self));
    ck_assert_int_eq(f, cudaMemAccessFlagsProtReadWrite);
    ck_cuda_ok(cudaMemPoolGetAccess(&f, pool, &peer));
    ck_assert_int_eq(f, cudaMemAccessFlagsProtNone);

    struct cudaMemAccessDesc d = { peer, cudaMemAccessFlagsProtReadWrite };
    ck_cuda_ok(cudaMemPoolSetAccess(pool, &d, 1));
    ck_cuda_ok(cudaMemPoolGetAccess(&f, pool, &peer));
    ck_assert_int_eq(f, cudaMemAccessFlagsProtReadWrite);
    d.flags = cudaMemAccessFlagsProtNone;
    ck_cuda_ok(cudaMemPoolSetAccess(pool, &d, 1));
    ck_cuda_ok(cudaMemPoolGetAccess(&f, pool, &peer));
    ck_assert_int_eq(f, cudaMemAccessFlagsProtNone);

    /* the owner keeps its access; bad devices and flags */
    struct cudaMemAccessDesc own = { self, cudaMemAccessFlagsProtNone };
    ck_cuda(cudaMemPoolSetAccess(pool, &own, 1), cudaErrorInvalidValue);
    struct cudaMemAccessDesc bad = { { cudaMemLocationTypeDevice, 77 },
                                     cudaMemAccessFlagsProtReadWrite };
    ck_cuda(cudaMemPoolSetAccess(pool, &bad, 1), cudaErrorInvalidValue);
    bad.location.id = 1;
    bad.flags = (enum cudaMemAccessFlags)2;
    ck_cuda(cudaMemPoolSetAccess(pool, &bad, 1), cudaErrorInvalidValue);
    /* one bad entry: nothing is applied */
    struct cudaMemAccessDesc two[2] = {
        { peer, cudaMemAccessFlagsProtReadWrite },
        { { cudaMemLocationTypeDevice, 77 }, cudaMemAccessFlagsProtRead },
    };
    ck_cuda(cudaMemPoolSetAccess(pool, two, 2), cudaErrorInvalidValue);
    ck_cuda_ok(cudaMemPoolGetAccess(&f, pool, &peer));
    ck_assert_int_eq(f, cudaMemAccessFlagsProtNone);
}
END_TEST

/* Access granted to a pool lets a peer copy go directly instead of being
 * staged through host memory. */
START_TEST(test_memory_pool_access_makes_copies_direct)
{
    size_t n = 4 * MIB;
    cudaMemPool_t pool;
    void *d0, *p1;
    ck_cuda_ok(cudaMalloc(&d0, n));
    ck_cuda_ok(cudaDeviceGetDefaultMemPool(&pool, 1));
    ck_cuda_ok(cudaMallocFromPoolAsync(&p1, n, pool, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    float staged_us = timed_copy_us(p1, d0, n);
    struct cudaMemAccessDesc d = { { cudaMemLocationTypeDevice, 0 },
                                   cudaMemAccessFlagsProtReadWrite };
    ck_cuda_ok(cudaMemPoolSetAccess(pool, &d, 1));
    float direct_us = timed_copy_us(p1, d0, n);
    ck_assert_float_gt(direct_us, 0.0f);
    ck_assert_float_lt(direct_us * 1.5f, staged_us);
}
END_TEST

/* Sharing rules in one process (two processes: cudart-ipc): a pool made
 * with POSIX descriptors exports as one, the default pool (no handle
 * types) and its pointers do not, other handle types are not served. */
START_TEST(test_memory_pool_sharing_rules)
{
    cudaMemPool_t pool;
    int fd;
    struct cudaMemPoolPtrExportData data;
    void *p;
    ck_cuda_ok(cudaDeviceGetDefaultMemPool(&pool, 0));
    /* the default pool has no handle types: not exportable */
    ck_cuda(cudaMemPoolExportToShareableHandle(
                &fd, pool, cudaMemHandleTypePosixFileDescriptor, 0),
            cudaErrorInvalidValue);
    cudaMemPool_t shared;
    struct cudaMemPoolProps props = { 0 };
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    ck_cuda_ok(cudaMemPoolCreate(&shared, &props));
    fd = -1;
    ck_cuda_ok(cudaMemPoolExportToShareableHandle(
        &fd, shared, cudaMemHandleTypePosixFileDescriptor, 0));
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_cuda(cudaMemPoolExportToShareableHandle(&fd, shared,
                                               cudaMemHandleTypeFabric, 0),
            cudaErrorNotSupported);
    ck_cuda(cudaMemPoolExportToShareableHandle(
                &fd, shared, cudaMemHandleTypePosixFileDescriptor, 1),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaMallocAsync(&p, 4096, 0));
    ck_cuda(cudaMemPoolExportPointer(&data, p), cudaErrorInvalidValue);
    void *q;
    ck_cuda_ok(cudaMallocFromPoolAsync(&q, 4096, shared, 0));
    ck_cuda_ok(cudaMemPoolExportPointer(&data, q));
    /* importing into a pool that is not imported */
    ck_cuda(cudaMemPoolImportPointer(&p, shared, &data),
            cudaErrorInvalidValue);
}
END_TEST

/* ---- small machine ------------------------------------------------------- */

START_TEST(test_memory_h200_out_of_memory)
{
    cudart_test_machine("h200-x1.yaml");
    void *p;
    ck_cuda(cudaSetDevice(1), cudaErrorInvalidDevice);
    ck_cuda(cudaMalloc(&p, (size_t)142 * 1000 * 1000 * 1000),
            cudaErrorMemoryAllocation);
    ck_cuda_ok(cudaMalloc(&p, (size_t)140 * 1000 * 1000 * 1000));
    void *q;
    ck_cuda(cudaMalloc(&q, (size_t)2 * 1000 * 1000 * 1000),
            cudaErrorMemoryAllocation);
    ck_cuda_ok(cudaFree(p));
    ck_cuda_ok(cudaMalloc(&q, (size_t)2 * 1000 * 1000 * 1000));
}
END_TEST

Suite *make_cudart_memory_suite(void)
{
    Suite *s = suite_create("cudart-memory");
    TCase *tc = tcase_create("Device");
    tcase_add_test(tc, test_memory_malloc_is_aligned);
    tcase_add_test(tc, test_memory_malloc_zero_gives_null);
    tcase_add_test(tc, test_memory_windows_are_distinct_per_device);
#if !defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer turns the fault into its own report and exit */
    tcase_add_test_raise_signal(tc, test_memory_device_pointer_faults_on_host,
                                SIGSEGV);
#endif
    tcase_add_test(tc, test_memory_out_of_memory);
    tcase_add_test(tc, test_memory_free_errors);
    tcase_add_test(tc, test_memory_h200_out_of_memory);
    suite_add_tcase(s, tc);

    tc = tcase_create("Host");
    tcase_add_test(tc, test_memory_host_register_twice);
    tcase_add_test(tc, test_memory_host_register_errors);
    tcase_add_test(tc, test_memory_host_device_pointer_and_flags);
    tcase_add_test(tc, test_memory_pinned_memory_is_near_current_device);
    tcase_add_test(tc, test_memory_pinned_round_trip_is_byte_exact);
    tcase_add_test(tc, test_memory_pointer_attributes_every_kind);
    suite_add_tcase(s, tc);

    tc = tcase_create("Memset");
    tcase_add_test(tc, test_memory_memset_pinned_is_byte_exact);
    tcase_add_test(tc, test_memory_memset_errors);
    tcase_add_test(tc, test_memory_memset_device_reads_back);
    tcase_add_test(tc, test_memory_memset_takes_time);
    suite_add_tcase(s, tc);

    tc = tcase_create("Pools");
    tcase_add_test(tc, test_memory_pool_default_and_current);
    tcase_add_test(tc, test_memory_malloc_async_and_free_async);
    tcase_add_test(tc, test_memory_pool_release_threshold_and_trim);
    tcase_add_test(tc, test_memory_pool_access_round_trip);
    tcase_add_test(tc, test_memory_pool_access_makes_copies_direct);
    tcase_add_test(tc, test_memory_pool_sharing_rules);
    suite_add_tcase(s, tc);
    return s;
}
