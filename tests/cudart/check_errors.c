/*
 * tests/cudart/check_errors.c - the error paths: every function of
 * cuda/include/cuda_runtime_api.h that takes input, called with bad input
 * (NULL outputs, bad device ordinals, freed pointers, sizes past an
 * allocation, bad or contradicting cudaMemcpyKind values, bad flags,
 * destroyed and foreign handles), must return CUDA's code and leave it as
 * the thread's last error (cudaErrorNotReady excepted), and must not
 * crash: a test whose process dies fails.
 *
 * Where the codes come from, in this order of authority:
 *  - measured on one H200 (calibration h200-x1-api-costs.md,
 *    h200-x1-pcie-gen5.md §5; shared/reference/cuda-api.md §5.6);
 *  - shared/reference/cuda-api.md §2 (semantics and error codes);
 *  - the CUDA 13.0 runtime API documentation of each function (its
 *    "Returns" list and notes).
 * A row marked UNVERIFIED asserts the code we believe CUDA returns where
 * neither source pins it down (the comment above the row says why).
 * A row marked SHIM_DIFFERS asserts CUDA's code where the shim returns
 * another one today: those rows fail until cuda/cudart/ is fixed; grep
 * for SHIM_DIFFERS.
 *
 * The table below is the coverage: one row per bad call, grouped as the
 * header groups the functions. Each row names the function, what is wrong
 * with the input, a small static function that makes the call against a
 * fixture (valid and invalid objects built fresh in each test's process),
 * and the code. Functions without input (cudaDeviceSynchronize,
 * cudaDeviceReset, cudaGetLastError, cudaPeekAtLastError) have no bad
 * input to give; the error-string calls return strings and are checked
 * apart.
 */
#include <config.h>

#define CUDA_ENABLE_DEPRECATED /* cudaGetDriverEntryPoint, without warnings */
#include <stdint.h>
#include <string.h>

#include "cuda/include/p2psim_cudart_internal.h"
#include "tests/cudart/cudart_test.h"

#define MIB ((size_t)1 << 20)
#define HUGE_BYTES ((size_t)1 << 60) /* more than any machine has */
#define DEFAULT_MACHINE "pcie-8gpu-2socket.yaml" /* 8 GPUs, P2P everywhere */

/* ---- the fixture ----------------------------------------------------------- */

/*
 * What the bad calls are made against; device 0 is current. "dead" objects
 * were valid and have been destroyed or freed; "foreign" handles name an
 * object of another kind (a stream passed as an event and so on).
 */
struct fx {
    int n_dev;                  /* device count: the first bad ordinal */
    void *dev;                  /* 1 MiB on GPU 0 */
    void *dev1;                 /* 1 MiB on GPU 1 */
    void *freed;                /* was 1 MiB on GPU 0 */
    void *pinned;               /* cudaMallocHost, 1 MiB */
    void *freed_pinned;         /* was cudaMallocHost */
    void *managed_;             /* managed(f): cudaMallocManaged, 1 MiB */
    void *pool_ptr_;            /* pool_ptr(f): cudaMallocAsync, 1 MiB */
    unsigned char *pageable;    /* ordinary host memory, 1 MiB */
    unsigned char *page;        /* a page-aligned pageable page pair */
    cudaStream_t stream, stream1, dead_stream;
    cudaEvent_t event, event1, untimed, ipc_event, dead_event;
    cudaMemPool_t pool, pool1;  /* default pools of GPU 0 and 1 */
};

/* Host stubs of fake kernels, registered as nvcc's constructor would. */
static void stub_kernel(void) {}
static void stub_unregistered(void) {}
#define KERNEL ((const void *)(uintptr_t)stub_kernel)
#define UNREGISTERED ((const void *)(uintptr_t)stub_unregistered)

static struct p2psim_fatbin_wrapper wrapper = {
    P2PSIM_FATBIN_WRAPPER_MAGIC, P2PSIM_FATBIN_WRAPPER_VERSION, NULL, NULL
};

static void register_kernel(void)
{
    void **h = __cudaRegisterFatBinary(&wrapper);
    ck_assert_ptr_nonnull(h);
    __cudaRegisterFunction(h, (const char *)(uintptr_t)stub_kernel,
                           (char *)"_Z6kernelv", "_Z6kernelv", -1, NULL,
                           NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
}

static void fx_init(struct fx *f)
{
    static _Alignas(4096) unsigned char pages[2 * 4096];
    static unsigned char pageable[MIB];
    memset(f, 0, sizeof(*f));
    f->pageable = pageable;
    f->page = pages;
    register_kernel();
    ck_cuda_ok(cudaGetDeviceCount(&f->n_dev));
    ck_assert_int_ge(f->n_dev, 2);

    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaMalloc(&f->dev1, MIB));
    ck_cuda_ok(cudaStreamCreate(&f->stream1));
    ck_cuda_ok(cudaEventCreate(&f->event1));
    ck_cuda_ok(cudaDeviceGetDefaultMemPool(&f->pool1, 1));

    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaMalloc(&f->dev, MIB));
    ck_cuda_ok(cudaMalloc(&f->freed, MIB));
    ck_cuda_ok(cudaFree(f->freed));
    ck_cuda_ok(cudaMallocHost(&f->pinned, MIB));
    ck_cuda_ok(cudaMallocHost(&f->freed_pinned, MIB));
    ck_cuda_ok(cudaFreeHost(f->freed_pinned));
    ck_cuda_ok(cudaStreamCreate(&f->stream));
    ck_cuda_ok(cudaStreamCreate(&f->dead_stream));
    ck_cuda_ok(cudaStreamDestroy(f->dead_stream));
    ck_cuda_ok(cudaEventCreate(&f->event));
    ck_cuda_ok(cudaEventCreateWithFlags(&f->untimed, cudaEventDisableTiming));
    ck_cuda_ok(cudaEventCreateWithFlags(
        &f->ipc_event, cudaEventInterprocess | cudaEventDisableTiming));
    ck_cuda_ok(cudaEventCreate(&f->dead_event));
    ck_cuda_ok(cudaEventDestroy(f->dead_event));
    ck_cuda_ok(cudaDeviceGetDefaultMemPool(&f->pool, 0));
    ck_cuda_ok(cudaGetLastError());
}

/* Managed memory and a pool allocation, made only for the rows that use
 * them (so a fault there cannot fail every other row). */
static void *managed(struct fx *f)
{
    if (!f->managed_) {
        ck_cuda_ok(cudaMallocManaged(&f->managed_, MIB, cudaMemAttachGlobal));
    }
    return f->managed_;
}

static void *pool_ptr(struct fx *f)
{
    if (!f->pool_ptr_) {
        ck_cuda_ok(cudaMallocAsync(&f->pool_ptr_, MIB, f->stream));
        ck_cuda_ok(cudaStreamSynchronize(f->stream));
    }
    return f->pool_ptr_;
}

/* Handles of the wrong kind. */
#define FOREIGN_STREAM(f) ((cudaStream_t)(void *)(f)->event)
#define FOREIGN_EVENT(f) ((cudaEvent_t)(void *)(f)->stream)
#define BOGUS_POOL ((cudaMemPool_t)(uintptr_t)0xdead000)

static struct cudaMemLocation loc(enum cudaMemLocationType type, int id)
{
    struct cudaMemLocation l = { type, id };
    return l;
}

static dim3 d3(unsigned x, unsigned y, unsigned z)
{
    dim3 d = { x, y, z };
    return d;
}

static void host_fn(void *data)
{
    (void)data;
}

static void stream_cb(cudaStream_t s, cudaError_t e, void *data)
{
    (void)s;
    (void)e;
    (void)data;
}

/* Keep f->stream busy: a 64 MiB memset takes tens of microseconds on any
 * GPU, far longer than the next call. */
static void make_busy(struct fx *f)
{
    void *big = NULL;
    ck_cuda_ok(cudaMalloc(&big, 64 * MIB));
    ck_cuda_ok(cudaMemsetAsync(big, 1, 64 * MIB, f->stream));
}

/*
 * LAMBDA(name, expression) - a small static function that makes one call
 * against the fixture f and returns its code (C has no lambdas).
 */
#define LAMBDA(name, expr)                                                    \
    static cudaError_t name(struct fx *f)                                     \
    {                                                                         \
        (void)f;                                                              \
        return (expr);                                                        \
    }

/* ---- devices ----------------------------------------------------------------- */

static int i_out;
static unsigned u_out;
static size_t z_out, z_out2;
static struct cudaDeviceProp prop_out;
static char bus_id[64];

LAMBDA(count_null, cudaGetDeviceCount(NULL))
static cudaError_t can_self(struct fx *f)
{
    (void)f;
    i_out = -1;
    cudaError_t e = cudaDeviceCanAccessPeer(&i_out, 0, 0);
    ck_assert_int_eq(i_out, 0);
    return e;
}
LAMBDA(set_minus1, cudaSetDevice(-1))
LAMBDA(set_count, cudaSetDevice(f->n_dev))
LAMBDA(set_1000, cudaSetDevice(1000))
LAMBDA(get_null, cudaGetDevice(NULL))
LAMBDA(init_minus1, cudaInitDevice(-1, 0, 0))
LAMBDA(init_count, cudaInitDevice(f->n_dev, 0, 0))
LAMBDA(init_bad_flags, cudaInitDevice(0, 0, 0x80))
LAMBDA(init_bad_dev_flags,
       cudaInitDevice(0, 0x100, cudaInitDeviceFlagsAreValid))
LAMBDA(valid_null, cudaSetValidDevices(NULL, 1))
static cudaError_t valid_bad_ordinal(struct fx *f)
{
    int list[2] = { 0, f->n_dev };
    return cudaSetValidDevices(list, 2);
}
static cudaError_t valid_negative_len(struct fx *f)
{
    (void)f;
    int list[1] = { 0 };
    return cudaSetValidDevices(list, -1);
}
LAMBDA(choose_null_dev, cudaChooseDevice(NULL, &prop_out))
LAMBDA(choose_null_prop, cudaChooseDevice(&i_out, NULL))
LAMBDA(set_flags_bad, cudaSetDeviceFlags(0x100))
LAMBDA(get_flags_null, cudaGetDeviceFlags(NULL))
LAMBDA(props_null, cudaGetDeviceProperties(NULL, 0))
LAMBDA(props_minus1, cudaGetDeviceProperties(&prop_out, -1))
LAMBDA(props_count, cudaGetDeviceProperties(&prop_out, f->n_dev))
LAMBDA(props_1000, cudaGetDeviceProperties(&prop_out, 1000))
LAMBDA(attr_null,
       cudaDeviceGetAttribute(NULL, cudaDevAttrMaxThreadsPerBlock, 0))
LAMBDA(attr_zero, cudaDeviceGetAttribute(&i_out, (enum cudaDeviceAttr)0, 0))
LAMBDA(attr_huge,
       cudaDeviceGetAttribute(&i_out, (enum cudaDeviceAttr)100000, 0))
LAMBDA(attr_minus1,
       cudaDeviceGetAttribute(&i_out, cudaDevAttrMaxThreadsPerBlock, -1))
LAMBDA(attr_count, cudaDeviceGetAttribute(
                       &i_out, cudaDevAttrMaxThreadsPerBlock, f->n_dev))
LAMBDA(busid_null, cudaDeviceGetPCIBusId(NULL, 64, 0))
LAMBDA(busid_count, cudaDeviceGetPCIBusId(bus_id, 64, f->n_dev))
LAMBDA(busid_minus1, cudaDeviceGetPCIBusId(bus_id, 64, -1))
LAMBDA(by_busid_null_dev, cudaDeviceGetByPCIBusId(NULL, "0000:03:00.0"))
LAMBDA(by_busid_null_id, cudaDeviceGetByPCIBusId(&i_out, NULL))
LAMBDA(by_busid_garbage, cudaDeviceGetByPCIBusId(&i_out, "not a bus id"))
LAMBDA(by_busid_absent, cudaDeviceGetByPCIBusId(&i_out, "0000:ff:1f.7"))
LAMBDA(set_limit_bad, cudaDeviceSetLimit((enum cudaLimit)1000, 0))
LAMBDA(get_limit_null, cudaDeviceGetLimit(NULL, cudaLimitStackSize))
LAMBDA(get_limit_bad, cudaDeviceGetLimit(&z_out, (enum cudaLimit)1000))
LAMBDA(prio_range_nulls, cudaDeviceGetStreamPriorityRange(NULL, NULL))
LAMBDA(mem_info_null_free, cudaMemGetInfo(NULL, &z_out2))
LAMBDA(mem_info_null_total, cudaMemGetInfo(&z_out, NULL))
LAMBDA(driver_version_null, cudaDriverGetVersion(NULL))
LAMBDA(runtime_version_null, cudaRuntimeGetVersion(NULL))

/* ---- peer access ------------------------------------------------------------- */

LAMBDA(can_null, cudaDeviceCanAccessPeer(NULL, 0, 1))
LAMBDA(can_dev_minus1, cudaDeviceCanAccessPeer(&i_out, -1, 1))
LAMBDA(can_dev_count, cudaDeviceCanAccessPeer(&i_out, f->n_dev, 1))
LAMBDA(can_peer_count, cudaDeviceCanAccessPeer(&i_out, 0, f->n_dev))
LAMBDA(can_peer_1000, cudaDeviceCanAccessPeer(&i_out, 0, 1000))
LAMBDA(enable_flags, cudaDeviceEnablePeerAccess(1, 1))
LAMBDA(enable_minus1, cudaDeviceEnablePeerAccess(-1, 0))
LAMBDA(enable_count, cudaDeviceEnablePeerAccess(f->n_dev, 0))
LAMBDA(enable_1000, cudaDeviceEnablePeerAccess(1000, 0))
LAMBDA(enable_self, cudaDeviceEnablePeerAccess(0, 0))
LAMBDA(enable_blocked, cudaDeviceEnablePeerAccess(1, 0))
static cudaError_t enable_twice(struct fx *f)
{
    (void)f;
    ck_cuda_ok(cudaDeviceEnablePeerAccess(1, 0));
    return cudaDeviceEnablePeerAccess(1, 0);
}
LAMBDA(disable_not_enabled, cudaDeviceDisablePeerAccess(1))
LAMBDA(disable_self, cudaDeviceDisablePeerAccess(0))
LAMBDA(disable_count, cudaDeviceDisablePeerAccess(f->n_dev))
LAMBDA(disable_minus1, cudaDeviceDisablePeerAccess(-1))
static cudaError_t disable_twice(struct fx *f)
{
    (void)f;
    ck_cuda_ok(cudaDeviceEnablePeerAccess(1, 0));
    ck_cuda_ok(cudaDeviceDisablePeerAccess(1));
    return cudaDeviceDisablePeerAccess(1);
}
LAMBDA(p2p_attr_null,
       cudaDeviceGetP2PAttribute(NULL, cudaDevP2PAttrAccessSupported, 0, 1))
LAMBDA(p2p_attr_bad,
       cudaDeviceGetP2PAttribute(&i_out, (enum cudaDeviceP2PAttr)0, 0, 1))
LAMBDA(p2p_attr_bad_99,
       cudaDeviceGetP2PAttribute(&i_out, (enum cudaDeviceP2PAttr)99, 0, 1))
LAMBDA(p2p_attr_same,
       cudaDeviceGetP2PAttribute(&i_out, cudaDevP2PAttrAccessSupported, 0, 0))
LAMBDA(p2p_attr_src_count,
       cudaDeviceGetP2PAttribute(&i_out, cudaDevP2PAttrAccessSupported,
                                 f->n_dev, 0))
LAMBDA(p2p_attr_dst_minus1,
       cudaDeviceGetP2PAttribute(&i_out, cudaDevP2PAttrAccessSupported, 0, -1))

/* ---- streams ----------------------------------------------------------------- */

static cudaStream_t stream_out;
static unsigned long long id_out;
static enum cudaStreamCaptureStatus capture_out;

LAMBDA(stream_create_null, cudaStreamCreate(NULL))
LAMBDA(stream_flags_null, cudaStreamCreateWithFlags(NULL, 0))
LAMBDA(stream_flags_bad, cudaStreamCreateWithFlags(&stream_out, 0x2))
LAMBDA(stream_flags_all, cudaStreamCreateWithFlags(&stream_out, ~0u))
LAMBDA(stream_prio_null, cudaStreamCreateWithPriority(NULL, 0, 0))
LAMBDA(stream_prio_bad_flags, cudaStreamCreateWithPriority(&stream_out, 4, 0))
LAMBDA(stream_prio_clamped, cudaStreamCreateWithPriority(&stream_out, 0, -100))
LAMBDA(get_prio_null, cudaStreamGetPriority(f->stream, NULL))
LAMBDA(get_prio_dead, cudaStreamGetPriority(f->dead_stream, &i_out))
LAMBDA(get_prio_foreign, cudaStreamGetPriority(FOREIGN_STREAM(f), &i_out))
LAMBDA(get_sflags_null, cudaStreamGetFlags(f->stream, NULL))
LAMBDA(get_sflags_dead, cudaStreamGetFlags(f->dead_stream, &u_out))
LAMBDA(get_id_null, cudaStreamGetId(f->stream, NULL))
LAMBDA(get_id_dead, cudaStreamGetId(f->dead_stream, &id_out))
LAMBDA(get_sdev_null, cudaStreamGetDevice(f->stream, NULL))
LAMBDA(get_sdev_dead, cudaStreamGetDevice(f->dead_stream, &i_out))
LAMBDA(get_sdev_foreign, cudaStreamGetDevice(FOREIGN_STREAM(f), &i_out))
LAMBDA(stream_destroy_dead, cudaStreamDestroy(f->dead_stream))
LAMBDA(stream_destroy_foreign, cudaStreamDestroy(FOREIGN_STREAM(f)))
LAMBDA(wait_bad_flags, cudaStreamWaitEvent(f->stream, f->event, 0x2))
LAMBDA(wait_dead_event, cudaStreamWaitEvent(f->stream, f->dead_event, 0))
LAMBDA(wait_foreign_event, cudaStreamWaitEvent(f->stream, FOREIGN_EVENT(f), 0))
LAMBDA(wait_dead_stream, cudaStreamWaitEvent(f->dead_stream, f->event, 0))
LAMBDA(callback_flags, cudaStreamAddCallback(f->stream, stream_cb, NULL, 1))
LAMBDA(callback_null, cudaStreamAddCallback(f->stream, NULL, NULL, 0))
LAMBDA(callback_dead, cudaStreamAddCallback(f->dead_stream, stream_cb, NULL, 0))
LAMBDA(stream_sync_dead, cudaStreamSynchronize(f->dead_stream))
LAMBDA(stream_sync_foreign, cudaStreamSynchronize(FOREIGN_STREAM(f)))
LAMBDA(stream_query_dead, cudaStreamQuery(f->dead_stream))
static cudaError_t stream_query_busy(struct fx *f)
{
    make_busy(f);
    return cudaStreamQuery(f->stream);
}
LAMBDA(attach_device_memory,
       cudaStreamAttachMemAsync(f->stream, f->dev, 0, cudaMemAttachSingle))
LAMBDA(attach_bad_flags, cudaStreamAttachMemAsync(f->stream, managed(f), 0, 0x8))
LAMBDA(attach_part, cudaStreamAttachMemAsync(f->stream, managed(f), 17,
                                             cudaMemAttachSingle))
LAMBDA(attach_dead, cudaStreamAttachMemAsync(f->dead_stream, managed(f), 0,
                                             cudaMemAttachSingle))
LAMBDA(capture_mode_null, cudaThreadExchangeStreamCaptureMode(NULL))
static cudaError_t capture_mode_bad(struct fx *f)
{
    (void)f;
    enum cudaStreamCaptureMode m = (enum cudaStreamCaptureMode)7;
    return cudaThreadExchangeStreamCaptureMode(&m);
}
LAMBDA(capturing_null, cudaStreamIsCapturing(f->stream, NULL))
LAMBDA(capturing_dead, cudaStreamIsCapturing(f->dead_stream, &capture_out))

/* ---- events ------------------------------------------------------------------ */

static cudaEvent_t event_out;
static float ms_out;

LAMBDA(event_create_null, cudaEventCreate(NULL))
LAMBDA(event_flags_null, cudaEventCreateWithFlags(NULL, 0))
LAMBDA(event_flags_bad, cudaEventCreateWithFlags(&event_out, 0x8))
LAMBDA(event_ipc_timing,
       cudaEventCreateWithFlags(&event_out, cudaEventInterprocess))
LAMBDA(record_dead_event, cudaEventRecord(f->dead_event, f->stream))
LAMBDA(record_dead_stream, cudaEventRecord(f->event, f->dead_stream))
LAMBDA(record_foreign_event, cudaEventRecord(FOREIGN_EVENT(f), f->stream))
LAMBDA(record_other_device, cudaEventRecord(f->event, f->stream1))
LAMBDA(record_flags_bad,
       cudaEventRecordWithFlags(f->event, f->stream, 0x2))
LAMBDA(record_flags_dead,
       cudaEventRecordWithFlags(f->dead_event, f->stream, 0))
LAMBDA(event_query_dead, cudaEventQuery(f->dead_event))
static cudaError_t event_query_busy(struct fx *f)
{
    make_busy(f);
    ck_cuda_ok(cudaEventRecord(f->event, f->stream));
    return cudaEventQuery(f->event);
}
LAMBDA(event_sync_dead, cudaEventSynchronize(f->dead_event))
LAMBDA(event_query_unrecorded, cudaEventQuery(f->event))
LAMBDA(event_sync_unrecorded, cudaEventSynchronize(f->event))
LAMBDA(wait_unrecorded, cudaStreamWaitEvent(f->stream, f->event, 0))
LAMBDA(event_sync_foreign, cudaEventSynchronize(FOREIGN_EVENT(f)))
LAMBDA(event_destroy_dead, cudaEventDestroy(f->dead_event))
LAMBDA(event_destroy_foreign, cudaEventDestroy(FOREIGN_EVENT(f)))
static cudaError_t elapsed_null(struct fx *f)
{
    ck_cuda_ok(cudaEventRecord(f->event, f->stream));
    ck_cuda_ok(cudaEventSynchronize(f->event));
    return cudaEventElapsedTime(NULL, f->event, f->event);
}
LAMBDA(elapsed_unrecorded, cudaEventElapsedTime(&ms_out, f->event, f->event))
static cudaError_t elapsed_untimed(struct fx *f)
{
    ck_cuda_ok(cudaEventRecord(f->event, f->stream));
    ck_cuda_ok(cudaEventRecord(f->untimed, f->stream));
    ck_cuda_ok(cudaStreamSynchronize(f->stream));
    return cudaEventElapsedTime(&ms_out, f->event, f->untimed);
}
static cudaError_t elapsed_dead(struct fx *f)
{
    ck_cuda_ok(cudaEventRecord(f->event, f->stream));
    ck_cuda_ok(cudaStreamSynchronize(f->stream));
    return cudaEventElapsedTime(&ms_out, f->event, f->dead_event);
}
static cudaError_t elapsed_other_device(struct fx *f)
{
    ck_cuda_ok(cudaEventRecord(f->event, f->stream));
    ck_cuda_ok(cudaEventRecord(f->event1, f->stream1));
    ck_cuda_ok(cudaEventSynchronize(f->event));
    ck_cuda_ok(cudaEventSynchronize(f->event1));
    return cudaEventElapsedTime(&ms_out, f->event, f->event1);
}
static cudaError_t elapsed_pending(struct fx *f)
{
    cudaEvent_t start;
    ck_cuda_ok(cudaEventCreate(&start));
    ck_cuda_ok(cudaEventRecord(start, f->stream));
    make_busy(f);
    ck_cuda_ok(cudaEventRecord(f->event, f->stream));
    return cudaEventElapsedTime(&ms_out, start, f->event);
}

/* ---- launches, kernels, occupancy -------------------------------------------- */

static struct cudaFuncAttributes func_attr_out;

LAMBDA(launch_null, cudaLaunchKernel(NULL, d3(1, 1, 1), d3(32, 1, 1), NULL,
                                     0, f->stream))
LAMBDA(launch_unregistered,
       cudaLaunchKernel(UNREGISTERED, d3(1, 1, 1), d3(32, 1, 1), NULL, 0,
                        f->stream))
LAMBDA(launch_grid0, cudaLaunchKernel(KERNEL, d3(0, 1, 1), d3(32, 1, 1),
                                      NULL, 0, f->stream))
LAMBDA(launch_block0, cudaLaunchKernel(KERNEL, d3(1, 1, 1), d3(0, 1, 1),
                                       NULL, 0, f->stream))
LAMBDA(launch_block1025, cudaLaunchKernel(KERNEL, d3(1, 1, 1),
                                          d3(1025, 1, 1), NULL, 0, f->stream))
LAMBDA(launch_smem, cudaLaunchKernel(KERNEL, d3(1, 1, 1), d3(32, 1, 1), NULL,
                                     49153, f->stream))
LAMBDA(launch_dead_stream, cudaLaunchKernel(KERNEL, d3(1, 1, 1),
                                            d3(32, 1, 1), NULL, 0,
                                            f->dead_stream))
LAMBDA(launch_other_device, cudaLaunchKernel(KERNEL, d3(1, 1, 1),
                                             d3(32, 1, 1), NULL, 0,
                                             f->stream1))
LAMBDA(coop_null, cudaLaunchCooperativeKernel(NULL, d3(1, 1, 1),
                                              d3(32, 1, 1), NULL, 0,
                                              f->stream))
LAMBDA(coop_grid0, cudaLaunchCooperativeKernel(KERNEL, d3(0, 1, 1),
                                               d3(32, 1, 1), NULL, 0,
                                               f->stream))
LAMBDA(coop_too_large, cudaLaunchCooperativeKernel(KERNEL, d3(1u << 20, 1, 1),
                                                   d3(1024, 1, 1), NULL, 0,
                                                   f->stream))
LAMBDA(coop_dead_stream, cudaLaunchCooperativeKernel(KERNEL, d3(1, 1, 1),
                                                     d3(32, 1, 1), NULL, 0,
                                                     f->dead_stream))
LAMBDA(hostfn_null, cudaLaunchHostFunc(f->stream, NULL, NULL))
LAMBDA(hostfn_dead, cudaLaunchHostFunc(f->dead_stream, host_fn, NULL))
LAMBDA(func_attr_null, cudaFuncGetAttributes(NULL, KERNEL))
LAMBDA(func_attr_unregistered,
       cudaFuncGetAttributes(&func_attr_out, UNREGISTERED))
LAMBDA(func_set_unregistered,
       cudaFuncSetAttribute(UNREGISTERED,
                            cudaFuncAttributePreferredSharedMemoryCarveout, 0))
LAMBDA(func_set_bad_attr,
       cudaFuncSetAttribute(KERNEL, (enum cudaFuncAttribute)0, 0))
LAMBDA(func_set_attr_max, cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMax, 0))
LAMBDA(func_set_smem_negative,
       cudaFuncSetAttribute(KERNEL,
                            cudaFuncAttributeMaxDynamicSharedMemorySize, -1))
LAMBDA(func_set_carveout_101,
       cudaFuncSetAttribute(KERNEL,
                            cudaFuncAttributePreferredSharedMemoryCarveout,
                            101))
LAMBDA(occ_null,
       cudaOccupancyMaxActiveBlocksPerMultiprocessor(NULL, KERNEL, 128, 0))
LAMBDA(occ_unregistered, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                             &i_out, UNREGISTERED, 128, 0))
LAMBDA(occ_block0,
       cudaOccupancyMaxActiveBlocksPerMultiprocessor(&i_out, KERNEL, 0, 0))
LAMBDA(occ_flags_null, cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                           NULL, KERNEL, 128, 0, 0))
LAMBDA(occ_flags_bad, cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                          &i_out, KERNEL, 128, 0, 0x4))
LAMBDA(occ_flags_unregistered,
       cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
           &i_out, UNREGISTERED, 128, 0, 0))
LAMBDA(avail_smem_null,
       cudaOccupancyAvailableDynamicSMemPerBlock(NULL, KERNEL, 1, 32))
LAMBDA(avail_smem_unregistered,
       cudaOccupancyAvailableDynamicSMemPerBlock(&z_out, UNREGISTERED, 1, 32))

/* ---- memory ------------------------------------------------------------------ */

static void *ptr_out;
static struct cudaPointerAttributes ptr_attr_out;

LAMBDA(malloc_null, cudaMalloc(NULL, 16))
static cudaError_t malloc_zero(struct fx *f)
{
    (void)f;
    ptr_out = f;
    cudaError_t e = cudaMalloc(&ptr_out, 0);
    ck_assert_ptr_null(ptr_out);
    return e;
}
LAMBDA(free_null, cudaFree(NULL))
LAMBDA(malloc_huge, cudaMalloc(&ptr_out, HUGE_BYTES))
LAMBDA(free_freed, cudaFree(f->freed))
LAMBDA(free_pageable, cudaFree(f->pageable))
LAMBDA(free_pinned, cudaFree(f->pinned))
LAMBDA(free_interior, cudaFree((char *)f->dev + 256))
LAMBDA(free_never, cudaFree((void *)(uintptr_t)0x1000))
LAMBDA(malloc_host_null, cudaMallocHost(NULL, 16))
LAMBDA(malloc_host_huge, cudaMallocHost(&ptr_out, HUGE_BYTES))
LAMBDA(host_alloc_null, cudaHostAlloc(NULL, 16, cudaHostAllocDefault))
LAMBDA(host_alloc_flags, cudaHostAlloc(&ptr_out, 16, 0x8))
LAMBDA(host_alloc_huge, cudaHostAlloc(&ptr_out, HUGE_BYTES, 0))
LAMBDA(free_host_freed, cudaFreeHost(f->freed_pinned))
LAMBDA(free_host_device, cudaFreeHost(f->dev))
LAMBDA(free_host_pageable, cudaFreeHost(f->pageable))
LAMBDA(register_null, cudaHostRegister(NULL, 4096, 0))
LAMBDA(register_size0, cudaHostRegister(f->page, 0, 0))
LAMBDA(register_flags, cudaHostRegister(f->page, 4096, 0x10))
LAMBDA(register_pinned, cudaHostRegister(f->pinned, 4096, 0))
static cudaError_t register_twice(struct fx *f)
{
    ck_cuda_ok(cudaHostRegister(f->page, 8192, 0));
    return cudaHostRegister(f->page + 4096, 4096, 0);
}
LAMBDA(register_device, cudaHostRegister(f->dev, 4096, 0))
LAMBDA(unregister_pageable, cudaHostUnregister(f->page))
LAMBDA(unregister_pinned, cudaHostUnregister(f->pinned))
LAMBDA(host_devptr_null, cudaHostGetDevicePointer(NULL, f->pinned, 0))
LAMBDA(host_devptr_flags, cudaHostGetDevicePointer(&ptr_out, f->pinned, 1))
LAMBDA(host_devptr_pageable,
       cudaHostGetDevicePointer(&ptr_out, f->pageable, 0))
LAMBDA(host_flags_null, cudaHostGetFlags(NULL, f->pinned))
LAMBDA(host_flags_pageable, cudaHostGetFlags(&u_out, f->pageable))
LAMBDA(host_flags_device, cudaHostGetFlags(&u_out, f->dev))
LAMBDA(managed_null, cudaMallocManaged(NULL, 16, cudaMemAttachGlobal))
LAMBDA(managed_size0, cudaMallocManaged(&ptr_out, 0, cudaMemAttachGlobal))
LAMBDA(managed_flags0, cudaMallocManaged(&ptr_out, 16, 0))
LAMBDA(managed_flags_single,
       cudaMallocManaged(&ptr_out, 16, cudaMemAttachSingle))
LAMBDA(managed_huge, cudaMallocManaged(&ptr_out, HUGE_BYTES,
                                       cudaMemAttachGlobal))
LAMBDA(prefetch_flags,
       cudaMemPrefetchAsync(managed(f), 4096,
                            loc(cudaMemLocationTypeDevice, 0), 1, f->stream))
LAMBDA(prefetch_device_memory,
       cudaMemPrefetchAsync(f->dev, 4096, loc(cudaMemLocationTypeDevice, 0), 0,
                            f->stream))
LAMBDA(prefetch_bad_device,
       cudaMemPrefetchAsync(managed(f), 4096,
                            loc(cudaMemLocationTypeDevice, f->n_dev), 0,
                            f->stream))
LAMBDA(prefetch_bad_type,
       cudaMemPrefetchAsync(managed(f), 4096,
                            loc(cudaMemLocationTypeInvalid, 0), 0, f->stream))
LAMBDA(prefetch_past_end,
       cudaMemPrefetchAsync(managed(f), MIB + 4096,
                            loc(cudaMemLocationTypeDevice, 0), 0, f->stream))
LAMBDA(prefetch_dead_stream,
       cudaMemPrefetchAsync(managed(f), 4096,
                            loc(cudaMemLocationTypeDevice, 0), 0,
                            f->dead_stream))
LAMBDA(advise_bad_advice,
       cudaMemAdvise(managed(f), 4096, (enum cudaMemoryAdvise)0,
                     loc(cudaMemLocationTypeDevice, 0)))
LAMBDA(advise_device_memory,
       cudaMemAdvise(f->dev, 4096, cudaMemAdviseSetReadMostly,
                     loc(cudaMemLocationTypeDevice, 0)))
LAMBDA(advise_bad_device,
       cudaMemAdvise(managed(f), 4096, cudaMemAdviseSetPreferredLocation,
                     loc(cudaMemLocationTypeDevice, f->n_dev)))
LAMBDA(advise_past_end,
       cudaMemAdvise(managed(f), MIB + 4096, cudaMemAdviseSetReadMostly,
                     loc(cudaMemLocationTypeDevice, 0)))
LAMBDA(ptr_attr_null, cudaPointerGetAttributes(NULL, f->dev))
static cudaError_t ptr_attr_pageable(struct fx *f)
{
    cudaError_t e = cudaPointerGetAttributes(&ptr_attr_out, f->pageable);
    ck_assert_int_eq(ptr_attr_out.type, cudaMemoryTypeUnregistered);
    return e;
}

/* ---- copies and sets --------------------------------------------------------- */

LAMBDA(memcpy_kind_7, cudaMemcpy(f->dev, f->pageable, 16,
                                 (enum cudaMemcpyKind)7))
LAMBDA(memcpy_kind_huge, cudaMemcpy(f->dev, f->pageable, 16,
                                    (enum cudaMemcpyKind)0x7fffffff))
LAMBDA(memcpy_null_dst, cudaMemcpy(NULL, f->pageable, 16,
                                   cudaMemcpyHostToDevice))
LAMBDA(memcpy_null_src, cudaMemcpy(f->dev, NULL, 16, cudaMemcpyHostToDevice))
LAMBDA(memcpy_freed, cudaMemcpy(f->pageable, f->freed, 16,
                                cudaMemcpyDeviceToHost))
LAMBDA(memcpy_freed_default, cudaMemcpy(f->freed, f->dev, 16,
                                        cudaMemcpyDefault))
LAMBDA(memcpy_past_end, cudaMemcpy(f->dev, f->pageable, MIB + 1,
                                   cudaMemcpyHostToDevice))
LAMBDA(memcpy_past_end_d2d, cudaMemcpy(f->dev1, (char *)f->dev + 4096, MIB,
                                       cudaMemcpyDeviceToDevice))
LAMBDA(memcpy_kind_reversed, cudaMemcpy(f->dev, f->pageable, 16,
                                        cudaMemcpyDeviceToHost))
LAMBDA(memcpy_kind_d2d_host, cudaMemcpy(f->pageable, f->pageable + 64, 16,
                                        cudaMemcpyDeviceToDevice))
LAMBDA(memcpy_async_kind, cudaMemcpyAsync(f->dev, f->pinned, 16,
                                          (enum cudaMemcpyKind)5, f->stream))
LAMBDA(memcpy_async_null, cudaMemcpyAsync(f->dev, NULL, 16,
                                          cudaMemcpyHostToDevice, f->stream))
LAMBDA(memcpy_async_past_end,
       cudaMemcpyAsync(f->pinned, f->dev, MIB + 1, cudaMemcpyDeviceToHost,
                       f->stream))
LAMBDA(memcpy_async_dead, cudaMemcpyAsync(f->dev, f->pinned, 16,
                                          cudaMemcpyHostToDevice,
                                          f->dead_stream))
LAMBDA(memcpy_async_foreign, cudaMemcpyAsync(f->dev, f->pinned, 16,
                                             cudaMemcpyHostToDevice,
                                             FOREIGN_STREAM(f)))
LAMBDA(peer_dst_dev_count, cudaMemcpyPeer(f->dev1, f->n_dev, f->dev, 0, 16))
LAMBDA(peer_src_dev_minus1, cudaMemcpyPeer(f->dev1, 1, f->dev, -1, 16))
LAMBDA(peer_past_end, cudaMemcpyPeer(f->dev1, 1, f->dev, 0, MIB + 1))
LAMBDA(peer_freed, cudaMemcpyPeer(f->dev1, 1, f->freed, 0, 16))
LAMBDA(peer_null, cudaMemcpyPeer(NULL, 1, f->dev, 0, 16))
LAMBDA(peer_async_dev_1000,
       cudaMemcpyPeerAsync(f->dev1, 1000, f->dev, 0, 16, f->stream))
LAMBDA(peer_async_past_end,
       cudaMemcpyPeerAsync(f->dev1, 1, f->dev, 0, MIB + 1, f->stream))
LAMBDA(peer_async_dead,
       cudaMemcpyPeerAsync(f->dev1, 1, f->dev, 0, 16, f->dead_stream))
LAMBDA(memset_null, cudaMemset(NULL, 0, 16))
LAMBDA(memset_freed, cudaMemset(f->freed, 0, 16))
LAMBDA(memset_past_end, cudaMemset(f->dev, 0, MIB + 1))
LAMBDA(memset_interior_past_end, cudaMemset((char *)f->dev + 4096, 0, MIB))
LAMBDA(memset_pageable, cudaMemset(f->pageable, 0, 16))
LAMBDA(memset_async_null, cudaMemsetAsync(NULL, 0, 16, f->stream))
LAMBDA(memset_async_past_end, cudaMemsetAsync(f->dev, 0, MIB + 1, f->stream))
LAMBDA(memset_async_dead, cudaMemsetAsync(f->dev, 0, 16, f->dead_stream))

/* ---- stream-ordered allocation and pools ------------------------------------- */

static cudaMemPool_t pool_out;
static struct cudaMemPoolPtrExportData export_out;
static unsigned long long u64_val;
static enum cudaMemAccessFlags access_out;
static int fd_out;

static struct cudaMemPoolProps pool_props(enum cudaMemAllocationType type,
                                          int device)
{
    struct cudaMemPoolProps p;
    memset(&p, 0, sizeof(p));
    p.allocType = type;
    p.location = loc(cudaMemLocationTypeDevice, device);
    return p;
}

LAMBDA(malloc_async_null, cudaMallocAsync(NULL, 16, f->stream))
LAMBDA(malloc_async_dead, cudaMallocAsync(&ptr_out, 16, f->dead_stream))
LAMBDA(malloc_async_huge, cudaMallocAsync(&ptr_out, HUGE_BYTES, f->stream))
LAMBDA(from_pool_null, cudaMallocFromPoolAsync(NULL, 16, f->pool, f->stream))
LAMBDA(from_pool_no_pool,
       cudaMallocFromPoolAsync(&ptr_out, 16, NULL, f->stream))
LAMBDA(from_pool_dead_stream,
       cudaMallocFromPoolAsync(&ptr_out, 16, f->pool, f->dead_stream))
LAMBDA(free_async_freed, cudaFreeAsync(f->freed, f->stream))
LAMBDA(free_async_pageable, cudaFreeAsync(f->pageable, f->stream))
LAMBDA(free_async_dead, cudaFreeAsync(pool_ptr(f), f->dead_stream))
LAMBDA(default_pool_null, cudaDeviceGetDefaultMemPool(NULL, 0))
LAMBDA(default_pool_count, cudaDeviceGetDefaultMemPool(&pool_out, f->n_dev))
LAMBDA(set_pool_count, cudaDeviceSetMemPool(f->n_dev, f->pool))
LAMBDA(set_pool_null, cudaDeviceSetMemPool(0, NULL))
LAMBDA(set_pool_other_device, cudaDeviceSetMemPool(0, f->pool1))
LAMBDA(get_pool_null, cudaDeviceGetMemPool(NULL, 0))
LAMBDA(get_pool_minus1, cudaDeviceGetMemPool(&pool_out, -1))
static cudaError_t pool_create_null_out(struct fx *f)
{
    (void)f;
    struct cudaMemPoolProps p = pool_props(cudaMemAllocationTypePinned, 0);
    return cudaMemPoolCreate(NULL, &p);
}
LAMBDA(pool_create_null_props, cudaMemPoolCreate(&pool_out, NULL))
static cudaError_t pool_create_bad_type(struct fx *f)
{
    (void)f;
    struct cudaMemPoolProps p = pool_props(cudaMemAllocationTypeInvalid, 0);
    return cudaMemPoolCreate(&pool_out, &p);
}
static cudaError_t pool_create_bad_device(struct fx *f)
{
    struct cudaMemPoolProps p =
        pool_props(cudaMemAllocationTypePinned, f->n_dev);
    return cudaMemPoolCreate(&pool_out, &p);
}
LAMBDA(pool_destroy_null, cudaMemPoolDestroy(NULL))
LAMBDA(pool_destroy_default, cudaMemPoolDestroy(f->pool))
LAMBDA(pool_trim_null, cudaMemPoolTrimTo(NULL, 0))
LAMBDA(pool_set_attr_null_value,
       cudaMemPoolSetAttribute(f->pool, cudaMemPoolAttrReleaseThreshold,
                               NULL))
LAMBDA(pool_set_attr_bad, cudaMemPoolSetAttribute(
                              f->pool, (enum cudaMemPoolAttr)0, &u64_val))
LAMBDA(pool_set_attr_null_pool,
       cudaMemPoolSetAttribute(NULL, cudaMemPoolAttrReleaseThreshold,
                               &u64_val))
LAMBDA(pool_set_attr_read_only,
       cudaMemPoolSetAttribute(f->pool, cudaMemPoolAttrUsedMemCurrent,
                               &u64_val))
static cudaError_t pool_set_attr_high_nonzero(struct fx *f)
{
    u64_val = 1;
    return cudaMemPoolSetAttribute(f->pool, cudaMemPoolAttrReservedMemHigh,
                                   &u64_val);
}
LAMBDA(pool_get_attr_null_value,
       cudaMemPoolGetAttribute(f->pool, cudaMemPoolAttrUsedMemCurrent, NULL))
LAMBDA(pool_get_attr_bad, cudaMemPoolGetAttribute(
                              f->pool, (enum cudaMemPoolAttr)99, &u64_val))
LAMBDA(pool_get_attr_null_pool,
       cudaMemPoolGetAttribute(NULL, cudaMemPoolAttrUsedMemCurrent,
                               &u64_val))
LAMBDA(pool_set_access_null, cudaMemPoolSetAccess(f->pool, NULL, 1))
static cudaError_t pool_set_access_bad_type(struct fx *f)
{
    struct cudaMemAccessDesc d = { loc(cudaMemLocationTypeInvalid, 1),
                                   cudaMemAccessFlagsProtReadWrite };
    return cudaMemPoolSetAccess(f->pool, &d, 1);
}
static cudaError_t pool_set_access_bad_device(struct fx *f)
{
    struct cudaMemAccessDesc d = { loc(cudaMemLocationTypeDevice, f->n_dev),
                                   cudaMemAccessFlagsProtReadWrite };
    return cudaMemPoolSetAccess(f->pool, &d, 1);
}
static cudaError_t pool_get_access_null_flags(struct fx *f)
{
    struct cudaMemLocation l = loc(cudaMemLocationTypeDevice, 1);
    return cudaMemPoolGetAccess(NULL, f->pool, &l);
}
LAMBDA(pool_get_access_null_loc,
       cudaMemPoolGetAccess(&access_out, f->pool, NULL))
static cudaError_t pool_get_access_null_pool(struct fx *f)
{
    (void)f;
    struct cudaMemLocation l = loc(cudaMemLocationTypeDevice, 1);
    return cudaMemPoolGetAccess(&access_out, NULL, &l);
}
LAMBDA(pool_export_null, cudaMemPoolExportToShareableHandle(
                             NULL, f->pool,
                             cudaMemHandleTypePosixFileDescriptor, 0))
LAMBDA(pool_export_no_handle_type,
       cudaMemPoolExportToShareableHandle(
           &fd_out, f->pool, cudaMemHandleTypePosixFileDescriptor, 0))
LAMBDA(pool_import_null, cudaMemPoolImportFromShareableHandle(
                             NULL, (void *)(uintptr_t)0,
                             cudaMemHandleTypePosixFileDescriptor, 0))
LAMBDA(pool_import_flags, cudaMemPoolImportFromShareableHandle(
                              &pool_out, (void *)(uintptr_t)0,
                              cudaMemHandleTypePosixFileDescriptor, 1))
LAMBDA(pool_export_ptr_null, cudaMemPoolExportPointer(NULL, pool_ptr(f)))
LAMBDA(pool_export_ptr_not_pool, cudaMemPoolExportPointer(&export_out, f->dev))
LAMBDA(pool_import_ptr_null_out,
       cudaMemPoolImportPointer(NULL, f->pool, &export_out))
LAMBDA(pool_import_ptr_null_data,
       cudaMemPoolImportPointer(&ptr_out, f->pool, NULL))

/* ---- interprocess communication ---------------------------------------------- */

static cudaIpcEventHandle_t ipc_event_handle;
static cudaIpcMemHandle_t ipc_mem_handle;

LAMBDA(ipc_event_handle_null, cudaIpcGetEventHandle(NULL, f->ipc_event))
LAMBDA(ipc_event_handle_dead,
       cudaIpcGetEventHandle(&ipc_event_handle, f->dead_event))
static cudaError_t ipc_open_event_null(struct fx *f)
{
    ck_cuda_ok(cudaIpcGetEventHandle(&ipc_event_handle, f->ipc_event));
    return cudaIpcOpenEventHandle(NULL, ipc_event_handle);
}
static cudaError_t ipc_open_event_forged(struct fx *f)
{
    (void)f;
    cudaIpcEventHandle_t h;
    memset(&h, 0, sizeof(h));
    return cudaIpcOpenEventHandle(&event_out, h);
}
LAMBDA(ipc_mem_handle_null, cudaIpcGetMemHandle(NULL, f->dev))
LAMBDA(ipc_mem_handle_pageable,
       cudaIpcGetMemHandle(&ipc_mem_handle, f->pageable))
LAMBDA(ipc_mem_handle_freed, cudaIpcGetMemHandle(&ipc_mem_handle, f->freed))
static cudaError_t ipc_open_mem_null(struct fx *f)
{
    ck_cuda_ok(cudaIpcGetMemHandle(&ipc_mem_handle, f->dev));
    return cudaIpcOpenMemHandle(NULL, ipc_mem_handle,
                                cudaIpcMemLazyEnablePeerAccess);
}
static cudaError_t ipc_open_mem_own(struct fx *f)
{
    ck_cuda_ok(cudaIpcGetMemHandle(&ipc_mem_handle, f->dev));
    return cudaIpcOpenMemHandle(&ptr_out, ipc_mem_handle,
                                cudaIpcMemLazyEnablePeerAccess);
}
static cudaError_t ipc_open_mem_forged(struct fx *f)
{
    (void)f;
    cudaIpcMemHandle_t h;
    memset(&h, 0x5a, sizeof(h));
    return cudaIpcOpenMemHandle(&ptr_out, h, cudaIpcMemLazyEnablePeerAccess);
}
LAMBDA(ipc_close_not_opened, cudaIpcCloseMemHandle(f->dev))

/* ---- driver entry points ----------------------------------------------------- */

static void *fn_out;
static enum cudaDriverEntryPointQueryResult query_out;

/*
 * Not every shim build serves these yet: weak references let the runner
 * link without them, and a row of a function that is missing fails with
 * that said instead of crashing.
 */
#pragma weak cudaGetDriverEntryPoint
#pragma weak cudaGetDriverEntryPointByVersion
#define EXPORTED(fn)                                                          \
    do {                                                                      \
        ck_assert_msg((fn) != NULL,                                           \
                      #fn " is not exported by the shim [SHIM_DIFFERS]");    \
    } while (0)

static cudaError_t entry_null_symbol(struct fx *f)
{
    (void)f;
    EXPORTED(cudaGetDriverEntryPoint);
    return cudaGetDriverEntryPoint(NULL, &fn_out, 0, &query_out);
}
static cudaError_t entry_null_out(struct fx *f)
{
    (void)f;
    EXPORTED(cudaGetDriverEntryPoint);
    return cudaGetDriverEntryPoint("cuInit", NULL, 0, &query_out);
}
static cudaError_t entry_bad_flags(struct fx *f)
{
    (void)f;
    EXPORTED(cudaGetDriverEntryPoint);
    return cudaGetDriverEntryPoint("cuInit", &fn_out, 0x10, &query_out);
}
static cudaError_t entry_v_null_symbol(struct fx *f)
{
    (void)f;
    EXPORTED(cudaGetDriverEntryPointByVersion);
    return cudaGetDriverEntryPointByVersion(NULL, &fn_out, 13000, 0,
                                            &query_out);
}
static cudaError_t entry_v_null_out(struct fx *f)
{
    (void)f;
    EXPORTED(cudaGetDriverEntryPointByVersion);
    return cudaGetDriverEntryPointByVersion("cuInit", NULL, 13000, 0,
                                            &query_out);
}
static cudaError_t entry_v_bad_flags(struct fx *f)
{
    (void)f;
    EXPORTED(cudaGetDriverEntryPointByVersion);
    return cudaGetDriverEntryPointByVersion("cuInit", &fn_out, 13000, 0x10,
                                            &query_out);
}

/* ---- the table --------------------------------------------------------------- */

enum {
    NOT_RECORDED = 1u << 0,     /* not stored as the last error */
    UNVERIFIED = 1u << 1,       /* our best reading; see the comment */
    SHIM_DIFFERS = 1u << 2,     /* the shim returns another code today */
};

struct err_case {
    const char *fn;             /* the function called */
    const char *input;          /* what is wrong with its input */
    cudaError_t (*call)(struct fx *f);
    cudaError_t want;           /* CUDA's code */
    unsigned flags;
    const char *machine;        /* NULL: DEFAULT_MACHINE */
};

#define INVALID cudaErrorInvalidValue
#define DEVICE cudaErrorInvalidDevice
#define HANDLE cudaErrorInvalidResourceHandle
#define OOM cudaErrorMemoryAllocation

static const struct err_case cases[] = {
    /* Devices. Bad ordinals: 101 (cudaSetDevice(5) measured on a one-GPU
     * H200, shared/reference/cuda-api.md §2.2). */
    { "cudaGetDeviceCount", "count NULL", count_null, INVALID, 0, NULL },
    { "cudaSetDevice", "device -1", set_minus1, DEVICE, 0, NULL },
    { "cudaSetDevice", "device = count", set_count, DEVICE, 0, NULL },
    { "cudaSetDevice", "device 1000", set_1000, DEVICE, 0, NULL },
    { "cudaGetDevice", "device NULL", get_null, INVALID, 0, NULL },
    { "cudaInitDevice", "device -1", init_minus1, DEVICE, 0, NULL },
    { "cudaInitDevice", "device = count", init_count, DEVICE, 0, NULL },
    { "cudaInitDevice", "flags 0x80", init_bad_flags, INVALID, 0, NULL },
    { "cudaInitDevice", "deviceFlags 0x100 (past cudaDeviceMask)",
      init_bad_dev_flags, INVALID, 0, NULL },
    { "cudaSetValidDevices", "list NULL, len 1", valid_null, INVALID, 0,
      NULL },
    { "cudaSetValidDevices", "an ordinal = count", valid_bad_ordinal, DEVICE,
      0, NULL },
    { "cudaSetValidDevices", "len -1", valid_negative_len, INVALID, 0, NULL },
    { "cudaChooseDevice", "device NULL", choose_null_dev, INVALID, 0, NULL },
    { "cudaChooseDevice", "prop NULL", choose_null_prop, INVALID, 0, NULL },
    { "cudaSetDeviceFlags", "flags 0x100 (past cudaDeviceMask)",
      set_flags_bad, INVALID, 0, NULL },
    { "cudaGetDeviceFlags", "flags NULL", get_flags_null, INVALID, 0, NULL },
    { "cudaGetDeviceProperties", "prop NULL", props_null, INVALID, 0, NULL },
    { "cudaGetDeviceProperties", "device -1", props_minus1, DEVICE, 0, NULL },
    { "cudaGetDeviceProperties", "device = count", props_count, DEVICE, 0,
      NULL },
    { "cudaGetDeviceProperties", "device 1000", props_1000, DEVICE, 0, NULL },
    { "cudaDeviceGetAttribute", "value NULL", attr_null, INVALID, 0, NULL },
    { "cudaDeviceGetAttribute", "attr 0", attr_zero, INVALID, 0, NULL },
    { "cudaDeviceGetAttribute", "attr 100000", attr_huge, INVALID, 0, NULL },
    { "cudaDeviceGetAttribute", "device -1", attr_minus1, DEVICE, 0, NULL },
    { "cudaDeviceGetAttribute", "device = count", attr_count, DEVICE, 0,
      NULL },
    { "cudaDeviceGetPCIBusId", "buffer NULL", busid_null, INVALID, 0, NULL },
    { "cudaDeviceGetPCIBusId", "device = count", busid_count, DEVICE, 0,
      NULL },
    { "cudaDeviceGetPCIBusId", "device -1", busid_minus1, DEVICE, 0, NULL },
    { "cudaDeviceGetByPCIBusId", "device NULL", by_busid_null_dev, INVALID, 0,
      NULL },
    { "cudaDeviceGetByPCIBusId", "bus id NULL", by_busid_null_id, INVALID, 0,
      NULL },
    { "cudaDeviceGetByPCIBusId", "malformed bus id", by_busid_garbage,
      INVALID, 0, NULL },
    /* Well formed, but no GPU there: the driver answers "invalid device"
     * (cuDeviceGetByPCIBusId's documented codes are value and device). */
    { "cudaDeviceGetByPCIBusId", "no GPU at 0000:ff:1f.7", by_busid_absent,
      DEVICE, UNVERIFIED, NULL },
    /* A cudaLimit the device does not have: cudaErrorUnsupportedLimit. */
    { "cudaDeviceSetLimit", "limit 1000", set_limit_bad,
      cudaErrorUnsupportedLimit, 0, NULL },
    { "cudaDeviceGetLimit", "value NULL", get_limit_null, INVALID, 0, NULL },
    { "cudaDeviceGetLimit", "limit 1000", get_limit_bad,
      cudaErrorUnsupportedLimit, 0, NULL },
    /* Documented: "A NULL may be passed in for *leastPriority or
     * *greatestPriority if the value is not desired". */
    { "cudaDeviceGetStreamPriorityRange", "both NULL (allowed)",
      prio_range_nulls, cudaSuccess, 0, NULL },
    { "cudaMemGetInfo", "free NULL", mem_info_null_free, INVALID, 0, NULL },
    { "cudaMemGetInfo", "total NULL", mem_info_null_total, INVALID, 0, NULL },
    { "cudaDriverGetVersion", "version NULL", driver_version_null, INVALID, 0,
      NULL },
    { "cudaRuntimeGetVersion", "version NULL", runtime_version_null, INVALID,
      0, NULL },

    /* Peer access (reference §2.2; H200 measurements in §5.6). */
    { "cudaDeviceCanAccessPeer", "canAccessPeer NULL", can_null, INVALID, 0,
      NULL },
    /* Measured on an H200: success, and the answer is 0. */
    { "cudaDeviceCanAccessPeer", "device = peer (allowed, 0)", can_self,
      cudaSuccess, 0, NULL },
    { "cudaDeviceCanAccessPeer", "device -1", can_dev_minus1, DEVICE, 0,
      NULL },
    { "cudaDeviceCanAccessPeer", "device = count", can_dev_count, DEVICE, 0,
      NULL },
    { "cudaDeviceCanAccessPeer", "peer = count", can_peer_count, DEVICE, 0,
      NULL },
    { "cudaDeviceCanAccessPeer", "peer 1000", can_peer_1000, DEVICE, 0,
      NULL },
    { "cudaDeviceEnablePeerAccess", "flags 1", enable_flags, INVALID, 0,
      NULL },
    { "cudaDeviceEnablePeerAccess", "peer -1", enable_minus1, DEVICE, 0,
      NULL },
    { "cudaDeviceEnablePeerAccess", "peer = count", enable_count, DEVICE, 0,
      NULL },
    { "cudaDeviceEnablePeerAccess", "peer 1000", enable_1000, DEVICE, 0,
      NULL },
    { "cudaDeviceEnablePeerAccess", "peer = current device (H200)",
      enable_self, cudaErrorPeerAccessUnsupported, 0, NULL },
    { "cudaDeviceEnablePeerAccess", "pair without P2P (GeForce)",
      enable_blocked, cudaErrorPeerAccessUnsupported, 0,
      "desktop-2x-geforce.yaml" },
    { "cudaDeviceEnablePeerAccess", "already enabled", enable_twice,
      cudaErrorPeerAccessAlreadyEnabled, 0, NULL },
    { "cudaDeviceDisablePeerAccess", "never enabled", disable_not_enabled,
      cudaErrorPeerAccessNotEnabled, 0, NULL },
    { "cudaDeviceDisablePeerAccess", "peer = current device (H200)",
      disable_self, cudaErrorPeerAccessNotEnabled, 0, NULL },
    { "cudaDeviceDisablePeerAccess", "already disabled", disable_twice,
      cudaErrorPeerAccessNotEnabled, 0, NULL },
    { "cudaDeviceDisablePeerAccess", "peer = count", disable_count, DEVICE, 0,
      NULL },
    { "cudaDeviceDisablePeerAccess", "peer -1", disable_minus1, DEVICE, 0,
      NULL },
    { "cudaDeviceGetP2PAttribute", "value NULL", p2p_attr_null, INVALID, 0,
      NULL },
    { "cudaDeviceGetP2PAttribute", "attr 0", p2p_attr_bad, INVALID, 0, NULL },
    { "cudaDeviceGetP2PAttribute", "attr 99", p2p_attr_bad_99, INVALID, 0,
      NULL },
    { "cudaDeviceGetP2PAttribute", "src = dst", p2p_attr_same, DEVICE, 0,
      NULL },
    { "cudaDeviceGetP2PAttribute", "src = count", p2p_attr_src_count, DEVICE,
      0, NULL },
    { "cudaDeviceGetP2PAttribute", "dst -1", p2p_attr_dst_minus1, DEVICE, 0,
      NULL },

    /* Streams (reference §2.6). A destroyed or foreign stream: 400. */
    { "cudaStreamCreate", "stream NULL", stream_create_null, INVALID, 0,
      NULL },
    { "cudaStreamCreateWithFlags", "stream NULL", stream_flags_null, INVALID,
      0, NULL },
    { "cudaStreamCreateWithFlags", "flags 0x2", stream_flags_bad, INVALID, 0,
      NULL },
    { "cudaStreamCreateWithFlags", "flags ~0", stream_flags_all, INVALID, 0,
      NULL },
    { "cudaStreamCreateWithPriority", "stream NULL", stream_prio_null,
      INVALID, 0, NULL },
    { "cudaStreamCreateWithPriority", "flags 0x4", stream_prio_bad_flags,
      INVALID, 0, NULL },
    /* Documented: a priority outside the range is clamped. */
    { "cudaStreamCreateWithPriority", "priority -100 (clamped)",
      stream_prio_clamped, cudaSuccess, 0, NULL },
    { "cudaStreamGetPriority", "priority NULL", get_prio_null, INVALID, 0,
      NULL },
    { "cudaStreamGetPriority", "destroyed stream", get_prio_dead, HANDLE, 0,
      NULL },
    { "cudaStreamGetPriority", "an event as stream", get_prio_foreign, HANDLE,
      0, NULL },
    { "cudaStreamGetFlags", "flags NULL", get_sflags_null, INVALID, 0, NULL },
    { "cudaStreamGetFlags", "destroyed stream", get_sflags_dead, HANDLE, 0,
      NULL },
    { "cudaStreamGetId", "id NULL", get_id_null, INVALID, 0, NULL },
    { "cudaStreamGetId", "destroyed stream", get_id_dead, HANDLE, 0, NULL },
    { "cudaStreamGetDevice", "device NULL", get_sdev_null, INVALID, 0, NULL },
    { "cudaStreamGetDevice", "destroyed stream", get_sdev_dead, HANDLE, 0,
      NULL },
    { "cudaStreamGetDevice", "an event as stream", get_sdev_foreign, HANDLE,
      0, NULL },
    { "cudaStreamDestroy", "destroyed stream", stream_destroy_dead, HANDLE, 0,
      NULL },
    { "cudaStreamDestroy", "an event as stream", stream_destroy_foreign,
      HANDLE, 0, NULL },
    { "cudaStreamWaitEvent", "flags 0x2", wait_bad_flags, INVALID, 0, NULL },
    { "cudaStreamWaitEvent", "destroyed event", wait_dead_event, HANDLE, 0,
      NULL },
    { "cudaStreamWaitEvent", "a stream as event", wait_foreign_event, HANDLE,
      0, NULL },
    { "cudaStreamWaitEvent", "destroyed stream", wait_dead_stream, HANDLE, 0,
      NULL },
    { "cudaStreamAddCallback", "flags 1", callback_flags, INVALID, 0, NULL },
    { "cudaStreamAddCallback", "callback NULL", callback_null, INVALID, 0,
      NULL },
    { "cudaStreamAddCallback", "destroyed stream", callback_dead, HANDLE, 0,
      NULL },
    { "cudaStreamSynchronize", "destroyed stream", stream_sync_dead, HANDLE,
      0, NULL },
    { "cudaStreamSynchronize", "an event as stream", stream_sync_foreign,
      HANDLE, 0, NULL },
    { "cudaStreamQuery", "destroyed stream", stream_query_dead, HANDLE, 0,
      NULL },
    /* Measured on an H200: 600, and the last error stays cudaSuccess. */
    { "cudaStreamQuery", "busy stream", stream_query_busy, cudaErrorNotReady,
      NOT_RECORDED, NULL },
    { "cudaStreamAttachMemAsync", "device memory, not managed",
      attach_device_memory, INVALID, 0, NULL },
    { "cudaStreamAttachMemAsync", "flags 0x8", attach_bad_flags, INVALID, 0,
      NULL },
    /* Documented: "For managed allocations, length must be either zero or
     * the entire allocation's size ... it is not possible to change stream
     * association for a portion of a managed allocation." The shim takes
     * any length up to the end (cuda/cudart/stream.c, stream_attach). */
    { "cudaStreamAttachMemAsync", "length 17 of 1 MiB", attach_part, INVALID,
      SHIM_DIFFERS, NULL },
    { "cudaStreamAttachMemAsync", "destroyed stream", attach_dead, HANDLE, 0,
      NULL },
    { "cudaThreadExchangeStreamCaptureMode", "mode NULL", capture_mode_null,
      INVALID, 0, NULL },
    { "cudaThreadExchangeStreamCaptureMode", "mode 7", capture_mode_bad,
      INVALID, 0, NULL },
    { "cudaStreamIsCapturing", "status NULL", capturing_null, INVALID, 0,
      NULL },
    { "cudaStreamIsCapturing", "destroyed stream", capturing_dead, HANDLE, 0,
      NULL },

    /* Events (reference §2.6). */
    { "cudaEventCreate", "event NULL", event_create_null, INVALID, 0, NULL },
    { "cudaEventCreateWithFlags", "event NULL", event_flags_null, INVALID, 0,
      NULL },
    { "cudaEventCreateWithFlags", "flags 0x8", event_flags_bad, INVALID, 0,
      NULL },
    { "cudaEventCreateWithFlags", "Interprocess without DisableTiming",
      event_ipc_timing, INVALID, 0, NULL },
    { "cudaEventRecord", "destroyed event", record_dead_event, HANDLE, 0,
      NULL },
    { "cudaEventRecord", "destroyed stream", record_dead_stream, HANDLE, 0,
      NULL },
    { "cudaEventRecord", "a stream as event", record_foreign_event, HANDLE, 0,
      NULL },
    { "cudaEventRecord", "stream of another device", record_other_device,
      HANDLE, 0, NULL },
    { "cudaEventRecordWithFlags", "flags 0x2", record_flags_bad, INVALID, 0,
      NULL },
    { "cudaEventRecordWithFlags", "destroyed event", record_flags_dead,
      HANDLE, 0, NULL },
    { "cudaEventQuery", "destroyed event", event_query_dead, HANDLE, 0, NULL },
    /* As cudaStreamQuery (measured); for events not measured itself. */
    { "cudaEventQuery", "event of a busy stream", event_query_busy,
      cudaErrorNotReady, NOT_RECORDED | UNVERIFIED, NULL },
    { "cudaEventSynchronize", "destroyed event", event_sync_dead, HANDLE, 0,
      NULL },
    /* Reference §2.6: an event never recorded counts as complete. */
    { "cudaEventQuery", "never recorded (allowed)", event_query_unrecorded,
      cudaSuccess, 0, NULL },
    { "cudaEventSynchronize", "never recorded (allowed)",
      event_sync_unrecorded, cudaSuccess, 0, NULL },
    { "cudaStreamWaitEvent", "event never recorded (allowed)",
      wait_unrecorded, cudaSuccess, 0, NULL },
    { "cudaEventSynchronize", "a stream as event", event_sync_foreign, HANDLE,
      0, NULL },
    { "cudaEventDestroy", "destroyed event", event_destroy_dead, HANDLE, 0,
      NULL },
    { "cudaEventDestroy", "a stream as event", event_destroy_foreign, HANDLE,
      0, NULL },
    { "cudaEventElapsedTime", "ms NULL", elapsed_null, INVALID, 0, NULL },
    { "cudaEventElapsedTime", "never recorded", elapsed_unrecorded, HANDLE, 0,
      NULL },
    { "cudaEventElapsedTime", "DisableTiming event", elapsed_untimed, HANDLE,
      0, NULL },
    { "cudaEventElapsedTime", "destroyed event", elapsed_dead, HANDLE, 0,
      NULL },
    /* The reference says only "different devices -> error". */
    { "cudaEventElapsedTime", "events of two devices", elapsed_other_device,
      HANDLE, UNVERIFIED, NULL },
    /* Documented 600; recorded as the last error or not, as for the
     * queries (not measured). */
    { "cudaEventElapsedTime", "stop event not complete", elapsed_pending,
      cudaErrorNotReady, NOT_RECORDED | UNVERIFIED, NULL },

    /* Launches (reference §3.2, §5.3): an unknown host stub is 98. */
    { "cudaLaunchKernel", "func NULL", launch_null,
      cudaErrorInvalidDeviceFunction, 0, NULL },
    { "cudaLaunchKernel", "func not registered", launch_unregistered,
      cudaErrorInvalidDeviceFunction, 0, NULL },
    { "cudaLaunchKernel", "grid 0 x 1 x 1", launch_grid0,
      cudaErrorInvalidConfiguration, 0, NULL },
    { "cudaLaunchKernel", "block 0 x 1 x 1", launch_block0,
      cudaErrorInvalidConfiguration, 0, NULL },
    { "cudaLaunchKernel", "block of 1025 threads", launch_block1025,
      cudaErrorInvalidConfiguration, 0, NULL },
    { "cudaLaunchKernel", "49153 bytes of shared memory (no opt-in)",
      launch_smem, INVALID, 0, NULL },
    { "cudaLaunchKernel", "destroyed stream", launch_dead_stream, HANDLE, 0,
      NULL },
    /* Reference §2.3: fails on another device's stream (code not given). */
    { "cudaLaunchKernel", "stream of another device", launch_other_device,
      HANDLE, UNVERIFIED, NULL },
    { "cudaLaunchCooperativeKernel", "func NULL", coop_null,
      cudaErrorInvalidDeviceFunction, 0, NULL },
    { "cudaLaunchCooperativeKernel", "grid 0 x 1 x 1", coop_grid0,
      cudaErrorInvalidConfiguration, 0, NULL },
    { "cudaLaunchCooperativeKernel", "2^20 blocks of 1024 threads",
      coop_too_large, cudaErrorCooperativeLaunchTooLarge, 0, NULL },
    { "cudaLaunchCooperativeKernel", "destroyed stream", coop_dead_stream,
      HANDLE, 0, NULL },
    { "cudaLaunchHostFunc", "fn NULL", hostfn_null, INVALID, 0, NULL },
    { "cudaLaunchHostFunc", "destroyed stream", hostfn_dead, HANDLE, 0,
      NULL },
    { "cudaFuncGetAttributes", "attr NULL", func_attr_null, INVALID, 0,
      NULL },
    { "cudaFuncGetAttributes", "func not registered", func_attr_unregistered,
      cudaErrorInvalidDeviceFunction, 0, NULL },
    { "cudaFuncSetAttribute", "func not registered", func_set_unregistered,
      cudaErrorInvalidDeviceFunction, 0, NULL },
    { "cudaFuncSetAttribute", "attr 0", func_set_bad_attr, INVALID, 0, NULL },
    { "cudaFuncSetAttribute", "attr cudaFuncAttributeMax", func_set_attr_max,
      INVALID, 0, NULL },
    { "cudaFuncSetAttribute", "max dynamic shared memory -1",
      func_set_smem_negative, INVALID, 0, NULL },
    { "cudaFuncSetAttribute", "carveout 101%", func_set_carveout_101, INVALID,
      0, NULL },
    { "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "numBlocks NULL",
      occ_null, INVALID, 0, NULL },
    { "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "func not registered",
      occ_unregistered, cudaErrorInvalidDeviceFunction, 0, NULL },
    { "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "blockSize 0",
      occ_block0, INVALID, 0, NULL },
    { "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
      "numBlocks NULL", occ_flags_null, INVALID, 0, NULL },
    { "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "flags 0x4",
      occ_flags_bad, INVALID, 0, NULL },
    { "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
      "func not registered", occ_flags_unregistered,
      cudaErrorInvalidDeviceFunction, 0, NULL },
    { "cudaOccupancyAvailableDynamicSMemPerBlock", "dynamicSmemSize NULL",
      avail_smem_null, INVALID, 0, NULL },
    { "cudaOccupancyAvailableDynamicSMemPerBlock", "func not registered",
      avail_smem_unregistered, cudaErrorInvalidDeviceFunction, 0, NULL },

    /* Memory. cudaFree of a pointer never allocated: 1, recorded
     * (measured on an H200); a freed one is the same case. */
    { "cudaMalloc", "devPtr NULL", malloc_null, INVALID, 0, NULL },
    { "cudaMalloc", "2^60 bytes", malloc_huge, OOM, 0, NULL },
    /* Documented: size 0 gives NULL and success; cudaFree(NULL) is fine. */
    { "cudaMalloc", "size 0 (allowed, NULL)", malloc_zero, cudaSuccess, 0,
      NULL },
    { "cudaFree", "NULL (allowed)", free_null, cudaSuccess, 0, NULL },
    { "cudaFree", "freed pointer", free_freed, INVALID, 0, NULL },
    { "cudaFree", "never allocated (0x1000, H200)", free_never, INVALID, 0,
      NULL },
    { "cudaFree", "pageable host memory", free_pageable, INVALID, 0, NULL },
    { "cudaFree", "cudaMallocHost memory", free_pinned, INVALID, 0, NULL },
    { "cudaFree", "inside an allocation, not its start", free_interior,
      INVALID, 0, NULL },
    { "cudaMallocHost", "ptr NULL", malloc_host_null, INVALID, 0, NULL },
    { "cudaMallocHost", "2^60 bytes", malloc_host_huge, OOM, 0, NULL },
    { "cudaHostAlloc", "pHost NULL", host_alloc_null, INVALID, 0, NULL },
    { "cudaHostAlloc", "flags 0x8", host_alloc_flags, INVALID, 0, NULL },
    { "cudaHostAlloc", "2^60 bytes", host_alloc_huge, OOM, 0, NULL },
    { "cudaFreeHost", "freed pointer", free_host_freed, INVALID, 0, NULL },
    { "cudaFreeHost", "device memory", free_host_device, INVALID, 0, NULL },
    { "cudaFreeHost", "pageable host memory", free_host_pageable, INVALID, 0,
      NULL },
    { "cudaHostRegister", "ptr NULL", register_null, INVALID, 0, NULL },
    { "cudaHostRegister", "size 0", register_size0, INVALID, 0, NULL },
    { "cudaHostRegister", "flags 0x10", register_flags, INVALID, 0, NULL },
    { "cudaHostRegister", "cudaMallocHost memory", register_pinned,
      cudaErrorHostMemoryAlreadyRegistered, 0, NULL },
    { "cudaHostRegister", "overlaps a registered range", register_twice,
      cudaErrorHostMemoryAlreadyRegistered, 0, NULL },
    /* Not documented; the range is no host memory the OS can pin. */
    { "cudaHostRegister", "device memory", register_device, INVALID,
      UNVERIFIED, NULL },
    { "cudaHostUnregister", "never registered", unregister_pageable,
      cudaErrorHostMemoryNotRegistered, 0, NULL },
    { "cudaHostUnregister", "cudaMallocHost memory (not registered)",
      unregister_pinned, cudaErrorHostMemoryNotRegistered, 0, NULL },
    { "cudaHostGetDevicePointer", "pDevice NULL", host_devptr_null, INVALID,
      0, NULL },
    { "cudaHostGetDevicePointer", "flags 1", host_devptr_flags, INVALID, 0,
      NULL },
    { "cudaHostGetDevicePointer", "pageable host memory",
      host_devptr_pageable, INVALID, 0, NULL },
    { "cudaHostGetFlags", "flags NULL", host_flags_null, INVALID, 0, NULL },
    { "cudaHostGetFlags", "pageable host memory", host_flags_pageable,
      INVALID, 0, NULL },
    { "cudaHostGetFlags", "device memory", host_flags_device, INVALID, 0,
      NULL },
    /* Reference §2.7: size 0 -> 1; flags Global or Host only. */
    { "cudaMallocManaged", "devPtr NULL", managed_null, INVALID, 0, NULL },
    { "cudaMallocManaged", "size 0", managed_size0, INVALID, 0, NULL },
    { "cudaMallocManaged", "flags 0", managed_flags0, INVALID, 0, NULL },
    { "cudaMallocManaged", "flags cudaMemAttachSingle", managed_flags_single,
      INVALID, 0, NULL },
    { "cudaMallocManaged", "2^60 bytes", managed_huge, OOM, 0, NULL },
    { "cudaMemPrefetchAsync", "flags 1", prefetch_flags, INVALID, 0, NULL },
    { "cudaMemPrefetchAsync", "device memory, not managed",
      prefetch_device_memory, INVALID, 0, NULL },
    { "cudaMemPrefetchAsync", "location device = count", prefetch_bad_device,
      DEVICE, 0, NULL },
    { "cudaMemPrefetchAsync", "location type Invalid", prefetch_bad_type,
      INVALID, 0, NULL },
    { "cudaMemPrefetchAsync", "past the allocation's end", prefetch_past_end,
      INVALID, 0, NULL },
    { "cudaMemPrefetchAsync", "destroyed stream", prefetch_dead_stream,
      HANDLE, 0, NULL },
    { "cudaMemAdvise", "advice 0", advise_bad_advice, INVALID, 0, NULL },
    { "cudaMemAdvise", "device memory, not managed", advise_device_memory,
      INVALID, 0, NULL },
    { "cudaMemAdvise", "preferred location device = count",
      advise_bad_device, DEVICE, 0, NULL },
    { "cudaMemAdvise", "past the allocation's end", advise_past_end, INVALID,
      0, NULL },
    { "cudaPointerGetAttributes", "attributes NULL", ptr_attr_null, INVALID,
      0, NULL },
    /* Since CUDA 11: ordinary host memory is success, type Unregistered. */
    { "cudaPointerGetAttributes", "pageable memory (allowed)",
      ptr_attr_pageable, cudaSuccess, 0, NULL },

    /* Copies and sets (reference §2.3). A bad kind value is 21. An
     * explicit kind that contradicts the pointers is refused with 1, as
     * "invalid argument" is what programs that swap the kind get; the
     * reference lists this as not verified on hardware. */
    { "cudaMemcpy", "kind 7", memcpy_kind_7, cudaErrorInvalidMemcpyDirection,
      0, NULL },
    { "cudaMemcpy", "kind 0x7fffffff", memcpy_kind_huge,
      cudaErrorInvalidMemcpyDirection, 0, NULL },
    { "cudaMemcpy", "dst NULL", memcpy_null_dst, INVALID, 0, NULL },
    { "cudaMemcpy", "src NULL", memcpy_null_src, INVALID, 0, NULL },
    { "cudaMemcpy", "freed device source", memcpy_freed, INVALID, 0, NULL },
    { "cudaMemcpy", "freed device destination, kind Default",
      memcpy_freed_default, INVALID, 0, NULL },
    { "cudaMemcpy", "1 MiB + 1 into 1 MiB", memcpy_past_end, INVALID, 0,
      NULL },
    { "cudaMemcpy", "1 MiB from 4 KiB before the end", memcpy_past_end_d2d,
      INVALID, 0, NULL },
    { "cudaMemcpy", "DeviceToHost into device memory", memcpy_kind_reversed,
      INVALID, UNVERIFIED, NULL },
    { "cudaMemcpy", "DeviceToDevice between host buffers",
      memcpy_kind_d2d_host, INVALID, UNVERIFIED, NULL },
    { "cudaMemcpyAsync", "kind 5", memcpy_async_kind,
      cudaErrorInvalidMemcpyDirection, 0, NULL },
    { "cudaMemcpyAsync", "src NULL", memcpy_async_null, INVALID, 0, NULL },
    { "cudaMemcpyAsync", "1 MiB + 1 out of 1 MiB", memcpy_async_past_end,
      INVALID, 0, NULL },
    { "cudaMemcpyAsync", "destroyed stream", memcpy_async_dead, HANDLE, 0,
      NULL },
    { "cudaMemcpyAsync", "an event as stream", memcpy_async_foreign, HANDLE,
      0, NULL },
    { "cudaMemcpyPeer", "dstDevice = count", peer_dst_dev_count, DEVICE, 0,
      NULL },
    { "cudaMemcpyPeer", "srcDevice -1", peer_src_dev_minus1, DEVICE, 0,
      NULL },
    { "cudaMemcpyPeer", "1 MiB + 1 out of 1 MiB", peer_past_end, INVALID, 0,
      NULL },
    { "cudaMemcpyPeer", "freed source", peer_freed, INVALID, 0, NULL },
    { "cudaMemcpyPeer", "dst NULL", peer_null, INVALID, 0, NULL },
    { "cudaMemcpyPeerAsync", "dstDevice 1000", peer_async_dev_1000, DEVICE, 0,
      NULL },
    { "cudaMemcpyPeerAsync", "1 MiB + 1 out of 1 MiB", peer_async_past_end,
      INVALID, 0, NULL },
    { "cudaMemcpyPeerAsync", "destroyed stream", peer_async_dead, HANDLE, 0,
      NULL },
    { "cudaMemset", "devPtr NULL", memset_null, INVALID, 0, NULL },
    { "cudaMemset", "freed pointer", memset_freed, INVALID, 0, NULL },
    { "cudaMemset", "1 MiB + 1 into 1 MiB", memset_past_end, INVALID, 0,
      NULL },
    { "cudaMemset", "1 MiB from 4 KiB in", memset_interior_past_end, INVALID,
      0, NULL },
    { "cudaMemset", "pageable host memory", memset_pageable, INVALID, 0,
      NULL },
    { "cudaMemsetAsync", "devPtr NULL", memset_async_null, INVALID, 0, NULL },
    { "cudaMemsetAsync", "1 MiB + 1 into 1 MiB", memset_async_past_end,
      INVALID, 0, NULL },
    { "cudaMemsetAsync", "destroyed stream", memset_async_dead, HANDLE, 0,
      NULL },

    /* Stream-ordered allocation and pools (the runtime documentation
     * lists cudaErrorInvalidValue for the pool calls, 101 for ordinals). */
    { "cudaMallocAsync", "devPtr NULL", malloc_async_null, INVALID, 0, NULL },
    { "cudaMallocAsync", "destroyed stream", malloc_async_dead, HANDLE, 0,
      NULL },
    { "cudaMallocAsync", "2^60 bytes", malloc_async_huge, OOM, 0, NULL },
    { "cudaMallocFromPoolAsync", "ptr NULL", from_pool_null, INVALID, 0,
      NULL },
    { "cudaMallocFromPoolAsync", "pool NULL", from_pool_no_pool, INVALID, 0,
      NULL },
    { "cudaMallocFromPoolAsync", "destroyed stream", from_pool_dead_stream,
      HANDLE, 0, NULL },
    { "cudaFreeAsync", "freed pointer", free_async_freed, INVALID, 0, NULL },
    { "cudaFreeAsync", "pageable host memory", free_async_pageable, INVALID,
      0, NULL },
    { "cudaFreeAsync", "destroyed stream", free_async_dead, HANDLE, 0, NULL },
    { "cudaDeviceGetDefaultMemPool", "memPool NULL", default_pool_null,
      INVALID, 0, NULL },
    { "cudaDeviceGetDefaultMemPool", "device = count", default_pool_count,
      DEVICE, 0, NULL },
    { "cudaDeviceSetMemPool", "device = count", set_pool_count, DEVICE, 0,
      NULL },
    { "cudaDeviceSetMemPool", "memPool NULL", set_pool_null, INVALID, 0,
      NULL },
    { "cudaDeviceSetMemPool", "pool of another device",
      set_pool_other_device, INVALID, 0, NULL },
    { "cudaDeviceGetMemPool", "memPool NULL", get_pool_null, INVALID, 0,
      NULL },
    { "cudaDeviceGetMemPool", "device -1", get_pool_minus1, DEVICE, 0, NULL },
    { "cudaMemPoolCreate", "memPool NULL", pool_create_null_out, INVALID, 0,
      NULL },
    { "cudaMemPoolCreate", "poolProps NULL", pool_create_null_props, INVALID,
      0, NULL },
    { "cudaMemPoolCreate", "allocType Invalid", pool_create_bad_type,
      INVALID, 0, NULL },
    /* Its documented codes are cudaErrorInvalidValue and
     * cudaErrorNotSupported only; the shim answers 101 (memory.c). */
    { "cudaMemPoolCreate", "location device = count", pool_create_bad_device,
      INVALID, UNVERIFIED | SHIM_DIFFERS, NULL },
    { "cudaMemPoolDestroy", "memPool NULL", pool_destroy_null, INVALID, 0,
      NULL },
    /* Documented: "A device's default memory pool cannot be destroyed." */
    { "cudaMemPoolDestroy", "a device's default pool", pool_destroy_default,
      INVALID, 0, NULL },
    { "cudaMemPoolTrimTo", "memPool NULL", pool_trim_null, INVALID, 0, NULL },
    { "cudaMemPoolSetAttribute", "value NULL", pool_set_attr_null_value,
      INVALID, 0, NULL },
    { "cudaMemPoolSetAttribute", "attr 0", pool_set_attr_bad, INVALID, 0,
      NULL },
    { "cudaMemPoolSetAttribute", "memPool NULL", pool_set_attr_null_pool,
      INVALID, 0, NULL },
    { "cudaMemPoolSetAttribute", "UsedMemCurrent (read only)",
      pool_set_attr_read_only, INVALID, 0, NULL },
    /* Documented: the high-water marks can only be reset to 0. */
    { "cudaMemPoolSetAttribute", "ReservedMemHigh = 1",
      pool_set_attr_high_nonzero, INVALID, 0, NULL },
    { "cudaMemPoolGetAttribute", "value NULL", pool_get_attr_null_value,
      INVALID, 0, NULL },
    { "cudaMemPoolGetAttribute", "attr 99", pool_get_attr_bad, INVALID, 0,
      NULL },
    { "cudaMemPoolGetAttribute", "memPool NULL", pool_get_attr_null_pool,
      INVALID, 0, NULL },
    { "cudaMemPoolSetAccess", "descList NULL, count 1", pool_set_access_null,
      INVALID, 0, NULL },
    { "cudaMemPoolSetAccess", "location type Invalid",
      pool_set_access_bad_type, INVALID, 0, NULL },
    /* Documented codes: cudaErrorInvalidValue only; the shim answers 101
     * (memory.c). */
    { "cudaMemPoolSetAccess", "location device = count",
      pool_set_access_bad_device, INVALID, UNVERIFIED | SHIM_DIFFERS, NULL },
    { "cudaMemPoolGetAccess", "flags NULL", pool_get_access_null_flags,
      INVALID, 0, NULL },
    { "cudaMemPoolGetAccess", "location NULL", pool_get_access_null_loc,
      INVALID, 0, NULL },
    { "cudaMemPoolGetAccess", "memPool NULL", pool_get_access_null_pool,
      INVALID, 0, NULL },
    /* The pool export/import calls: the shim's are stubs that answer
     * cudaErrorNotSupported before looking at their arguments
     * (cuda/cudart/memory_pool.c); CUDA serves them
     * (streamOrderedAllocationIPC, reference §1.2) and refuses bad
     * arguments with 1. */
    { "cudaMemPoolExportToShareableHandle", "handle NULL", pool_export_null,
      INVALID, SHIM_DIFFERS, NULL },
    /* The driver's cuMemPoolExportToShareableHandle documents no other
     * code for a pool that is not IPC capable. */
    { "cudaMemPoolExportToShareableHandle", "pool without handle types",
      pool_export_no_handle_type, INVALID, UNVERIFIED | SHIM_DIFFERS, NULL },
    { "cudaMemPoolImportFromShareableHandle", "memPool NULL",
      pool_import_null, INVALID, SHIM_DIFFERS, NULL },
    { "cudaMemPoolImportFromShareableHandle", "flags 1", pool_import_flags,
      INVALID, SHIM_DIFFERS, NULL },
    { "cudaMemPoolExportPointer", "exportData NULL", pool_export_ptr_null,
      INVALID, SHIM_DIFFERS, NULL },
    { "cudaMemPoolExportPointer", "cudaMalloc memory, not from a pool",
      pool_export_ptr_not_pool, INVALID, SHIM_DIFFERS, NULL },
    { "cudaMemPoolImportPointer", "ptr NULL", pool_import_ptr_null_out,
      INVALID, SHIM_DIFFERS, NULL },
    { "cudaMemPoolImportPointer", "exportData NULL",
      pool_import_ptr_null_data, INVALID, SHIM_DIFFERS, NULL },

    /* Interprocess communication (reference §2.5). */
    { "cudaIpcGetEventHandle", "handle NULL", ipc_event_handle_null, INVALID,
      0, NULL },
    { "cudaIpcGetEventHandle", "destroyed event", ipc_event_handle_dead,
      HANDLE, 0, NULL },
    { "cudaIpcOpenEventHandle", "event NULL", ipc_open_event_null, INVALID, 0,
      NULL },
    /* A forged handle must be refused, never followed (issue 5); that it
     * is an invalid resource handle (one of the codes reference §2.5
     * lists for opening handles) is our reading. */
    { "cudaIpcOpenEventHandle", "forged (zero) handle", ipc_open_event_forged,
      HANDLE, UNVERIFIED, NULL },
    { "cudaIpcGetMemHandle", "handle NULL", ipc_mem_handle_null, INVALID, 0,
      NULL },
    { "cudaIpcGetMemHandle", "pageable host memory", ipc_mem_handle_pageable,
      INVALID, 0, NULL },
    { "cudaIpcGetMemHandle", "freed pointer", ipc_mem_handle_freed, INVALID,
      0, NULL },
    { "cudaIpcOpenMemHandle", "devPtr NULL", ipc_open_mem_null, INVALID, 0,
      NULL },
    /* Reference §2.5: opening a handle in the exporting process is 201. */
    { "cudaIpcOpenMemHandle", "handle of this process", ipc_open_mem_own,
      cudaErrorDeviceUninitialized, 0, NULL },
    { "cudaIpcOpenMemHandle", "forged handle", ipc_open_mem_forged, HANDLE,
      UNVERIFIED, NULL },
    { "cudaIpcCloseMemHandle", "pointer not opened by IPC",
      ipc_close_not_opened, INVALID, 0, NULL },

    /* Driver entry points: declared, but the shim does not export them yet
     * (NCCL loads the driver through them, reference §1.6). */
    { "cudaGetDriverEntryPoint", "symbol NULL", entry_null_symbol, INVALID,
      SHIM_DIFFERS, NULL },
    { "cudaGetDriverEntryPoint", "funcPtr NULL", entry_null_out, INVALID,
      SHIM_DIFFERS, NULL },
    { "cudaGetDriverEntryPoint", "flags 0x10", entry_bad_flags, INVALID,
      SHIM_DIFFERS, NULL },
    { "cudaGetDriverEntryPointByVersion", "symbol NULL", entry_v_null_symbol,
      INVALID, SHIM_DIFFERS, NULL },
    { "cudaGetDriverEntryPointByVersion", "funcPtr NULL", entry_v_null_out,
      INVALID, SHIM_DIFFERS, NULL },
    { "cudaGetDriverEntryPointByVersion", "flags 0x10", entry_v_bad_flags,
      INVALID, SHIM_DIFFERS, NULL },
};

#define N_CASES ((int)(sizeof(cases) / sizeof(cases[0])))

/* ---- the tests --------------------------------------------------------------- */

START_TEST(test_errors_bad_input)
{
    const struct err_case *c = &cases[_i];
    struct fx f;
    cudart_test_machine(c->machine ? c->machine : DEFAULT_MACHINE);
    fx_init(&f);

    cudaError_t got = c->call(&f);
    ck_assert_msg(got == c->want, "%s (%s): got %d %s, want %d %s%s", c->fn,
                  c->input, (int)got, cudaGetErrorName(got), (int)c->want,
                  cudaGetErrorName(c->want),
                  (c->flags & SHIM_DIFFERS) ? " [SHIM_DIFFERS]" : "");
    cudaError_t last = (c->flags & NOT_RECORDED) ? cudaSuccess : c->want;
    cudaError_t peek = cudaPeekAtLastError();
    ck_assert_msg(peek == last, "%s (%s): last error %d %s, want %d %s",
                  c->fn, c->input, (int)peek, cudaGetErrorName(peek),
                  (int)last, cudaGetErrorName(last));
    ck_cuda(cudaGetLastError(), last);
    ck_cuda_ok(cudaGetLastError());
}
END_TEST

/* Error strings: unknown codes get "unrecognized error code" from both
 * calls (never NULL), and neither call touches the last error. */
static const int unknown_codes[] = { -1, 10, 1000, 12345, 0x7fffffff };

START_TEST(test_errors_strings_of_unknown_codes)
{
    cudart_test_machine(DEFAULT_MACHINE);
    int n;
    ck_cuda_ok(cudaGetDeviceCount(&n));
    ck_cuda(cudaSetDevice(-1), cudaErrorInvalidDevice);
    cudaError_t e = (cudaError_t)unknown_codes[_i];
    const char *name = cudaGetErrorName(e);
    const char *str = cudaGetErrorString(e);
    ck_assert_ptr_nonnull(name);
    ck_assert_ptr_nonnull(str);
    ck_assert_str_eq(name, "unrecognized error code");
    ck_assert_str_eq(str, "unrecognized error code");
    ck_cuda(cudaGetLastError(), cudaErrorInvalidDevice);
}
END_TEST

Suite *make_cudart_errors_suite(void)
{
    Suite *s = suite_create("cudart-errors");
    TCase *tc = tcase_create("Errors");
    tcase_set_timeout(tc, 10);
    tcase_add_loop_test(tc, test_errors_bad_input, 0, N_CASES);
    tcase_add_loop_test(tc, test_errors_strings_of_unknown_codes, 0,
                        (int)(sizeof(unknown_codes) /
                              sizeof(unknown_codes[0])));
    suite_add_tcase(s, tc);
    return s;
}
