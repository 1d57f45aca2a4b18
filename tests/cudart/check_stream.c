/*
 * tests/cudart/check_stream.c - streams and events as handles: creation
 * flags, what each query returns, and the errors CUDA gives for bad
 * handles and bad flags.
 */
#include <config.h>

#include "tests/cudart/cudart_test.h"

START_TEST(test_stream_handles)
{
    cudart_test_machine(NULL);
    ck_cuda_ok(cudaSetDevice(2));
    cudaStream_t s, nb, pr;
    ck_cuda_ok(cudaStreamCreate(&s));
    ck_cuda_ok(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    ck_cuda_ok(cudaStreamCreateWithPriority(&pr, 0, -100));
    ck_cuda(cudaStreamCreateWithFlags(&s, 0x8), cudaErrorInvalidValue);
    ck_cuda(cudaStreamCreate(NULL), cudaErrorInvalidValue);
    unsigned flags = 99;
    ck_cuda_ok(cudaStreamGetFlags(nb, &flags));
    ck_assert_uint_eq(flags, cudaStreamNonBlocking);
    ck_cuda_ok(cudaStreamGetFlags(s, &flags));
    ck_assert_uint_eq(flags, 0);
    int prio = 1, lo, hi;
    ck_cuda_ok(cudaStreamGetPriority(pr, &prio));
    ck_cuda_ok(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    ck_assert_int_eq(prio, hi); /* clamped to the greatest priority */
    int dev = -1;
    ck_cuda_ok(cudaStreamGetDevice(s, &dev));
    ck_assert_int_eq(dev, 2);
    ck_cuda_ok(cudaStreamGetDevice(0, &dev));
    ck_assert_int_eq(dev, 2);
    unsigned long long id1, id2;
    ck_cuda_ok(cudaStreamGetId(s, &id1));
    ck_cuda_ok(cudaStreamGetId(nb, &id2));
    ck_assert(id1 != id2);
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusActive;
    ck_cuda_ok(cudaStreamIsCapturing(s, &st));
    ck_assert_int_eq(st, cudaStreamCaptureStatusNone);
    ck_cuda_ok(cudaStreamDestroy(s));
    ck_cuda(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
    ck_cuda(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
    ck_cuda(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
    ck_cuda(cudaStreamDestroy(0), cudaErrorInvalidResourceHandle);
    ck_cuda_ok(cudaStreamSynchronize(cudaStreamPerThread));
    ck_cuda_ok(cudaStreamSynchronize(cudaStreamLegacy));
    ck_cuda(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    ck_cuda_ok(cudaGetLastError());
}
END_TEST

START_TEST(test_event_handles)
{
    cudart_test_machine(NULL);
    cudaEvent_t e, nt;
    ck_cuda(cudaEventCreateWithFlags(&e, 0x40), cudaErrorInvalidValue);
    ck_cuda(cudaEventCreateWithFlags(&e, cudaEventInterprocess),
            cudaErrorInvalidValue);
    ck_cuda(cudaEventCreate(NULL), cudaErrorInvalidValue);
    ck_cuda_ok(cudaEventCreate(&e));
    ck_cuda_ok(cudaEventCreateWithFlags(&nt, cudaEventDisableTiming));
    ck_cuda_ok(cudaEventRecord(e, 0));
    ck_cuda_ok(cudaEventRecord(nt, 0));
    ck_cuda_ok(cudaEventSynchronize(nt));
    float ms;
    ck_cuda(cudaEventElapsedTime(&ms, e, nt), cudaErrorInvalidResourceHandle);
    ck_cuda(cudaEventElapsedTime(NULL, e, e), cudaErrorInvalidValue);
    ck_cuda_ok(cudaEventElapsedTime(&ms, e, e));
    ck_assert(ms == 0.0f);
    ck_cuda(cudaEventRecordWithFlags(e, 0, 0x10), cudaErrorInvalidValue);
    /* an event of device 0 recorded on a stream of device 1 */
    ck_cuda_ok(cudaSetDevice(1));
    cudaStream_t s1;
    ck_cuda_ok(cudaStreamCreate(&s1));
    ck_cuda(cudaEventRecord(e, s1), cudaErrorInvalidResourceHandle);
    /* waiting works across devices */
    ck_cuda_ok(cudaStreamWaitEvent(s1, e, 0));
    ck_cuda(cudaStreamWaitEvent(s1, e, 0x4), cudaErrorInvalidValue);
    ck_cuda_ok(cudaEventDestroy(e));
    ck_cuda(cudaEventDestroy(e), cudaErrorInvalidResourceHandle);
    ck_cuda(cudaEventQuery(e), cudaErrorInvalidResourceHandle);
    ck_cuda(cudaEventSynchronize(e), cudaErrorInvalidResourceHandle);
}
END_TEST

static int cb_calls;
static cudaError_t cb_status = cudaErrorUnknown;
static void callback(cudaStream_t s, cudaError_t status, void *data)
{
    (void)s;
    (void)data;
    cb_calls++;
    cb_status = status;
}

START_TEST(test_callbacks)
{
    cudart_test_machine("h200-x1.yaml");
    cudaStream_t s;
    ck_cuda_ok(cudaStreamCreate(&s));
    ck_cuda(cudaStreamAddCallback(s, callback, NULL, 1), cudaErrorInvalidValue);
    ck_cuda(cudaStreamAddCallback(s, NULL, NULL, 0), cudaErrorInvalidValue);
    ck_cuda_ok(cudaStreamAddCallback(s, callback, NULL, 0));
    ck_cuda_ok(cudaStreamAddCallback(s, callback, NULL, 0));
    ck_cuda_ok(cudaStreamSynchronize(s));
    ck_assert_int_eq(cb_calls, 2);
    ck_assert_int_eq(cb_status, cudaSuccess);
}
END_TEST

/* Work queued on a destroyed stream still completes. */
START_TEST(test_destroy_with_work)
{
    cudart_test_machine("h200-x1.yaml");
    size_t n = 8u << 20;
    void *h, *d;
    ck_cuda_ok(cudaMallocHost(&h, n));
    ck_cuda_ok(cudaMalloc(&d, n));
    ((unsigned char *)h)[n - 1] = 0x5a;
    cudaStream_t s;
    ck_cuda_ok(cudaStreamCreate(&s));
    ck_cuda_ok(cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s));
    ck_cuda_ok(cudaStreamDestroy(s));
    ((unsigned char *)h)[n - 1] = 0;
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_cuda_ok(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost));
    /* the copy read the host buffer when it ran; the byte may be either,
     * but the device holds a full copy and nothing crashed */
    ck_cuda_ok(cudaGetLastError());
}
END_TEST

/* Stream attributes: the window and policy kept per stream, the
 * priority the stream's own (clamped), copies, launch-only ones refused. */
START_TEST(test_stream_attributes)
{
    cudart_test_machine(NULL);
    cudaStream_t s, t;
    ck_cuda_ok(cudaStreamCreate(&s));
    ck_cuda_ok(cudaStreamCreate(&t));
    cudaStreamAttrValue v, got;
    memset(&v, 0, sizeof(v));
    ck_cuda_ok(cudaStreamGetAttribute(s,
                                      cudaStreamAttributeSynchronizationPolicy,
                                      &got));
    ck_assert_int_eq(got.syncPolicy, cudaSyncPolicyAuto);
    static char buf[4096];
    v.accessPolicyWindow.base_ptr = buf;
    v.accessPolicyWindow.num_bytes = sizeof(buf);
    v.accessPolicyWindow.hitRatio = 0.6f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    ck_cuda_ok(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow,
                                      &v));
    memset(&got, 0, sizeof(got));
    ck_cuda_ok(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow,
                                      &got));
    ck_assert_ptr_eq(got.accessPolicyWindow.base_ptr, buf);
    ck_assert_uint_eq(got.accessPolicyWindow.num_bytes, sizeof(buf));
    v.priority = -9;
    ck_cuda_ok(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v));
    int prio = 0;
    ck_cuda_ok(cudaStreamGetPriority(s, &prio));
    ck_assert_int_eq(prio, -5);
    ck_cuda_ok(cudaStreamCopyAttributes(t, s));
    ck_cuda_ok(cudaStreamGetPriority(t, &prio));
    ck_assert_int_eq(prio, -5);
    ck_cuda_ok(cudaStreamGetAttribute(t, cudaStreamAttributeAccessPolicyWindow,
                                      &got));
    ck_assert_ptr_eq(got.accessPolicyWindow.base_ptr, buf);

    v.accessPolicyWindow.hitRatio = 1.5f;
    ck_cuda(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow,
                                   &v),
            cudaErrorInvalidValue);
    v.accessPolicyWindow.hitRatio = 0.5f;
    v.accessPolicyWindow.num_bytes = (size_t)1 << 40;
    ck_cuda(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow,
                                   &v),
            cudaErrorInvalidValue);
    ck_cuda(cudaStreamSetAttribute(s, cudaLaunchAttributeCooperative, &v),
            cudaErrorInvalidValue);
    ck_cuda(cudaStreamGetAttribute(s, cudaStreamAttributePriority, NULL),
            cudaErrorInvalidValue);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidValue);
    ck_cuda_ok(cudaStreamDestroy(s));
    ck_cuda_ok(cudaStreamDestroy(t));
}
END_TEST

Suite *make_cudart_stream_suite(void)
{
    Suite *s = suite_create("cudart-stream");
    TCase *tc = tcase_create("stream");
    tcase_add_test(tc, test_stream_handles);
    tcase_add_test(tc, test_event_handles);
    tcase_add_test(tc, test_callbacks);
    tcase_add_test(tc, test_destroy_with_work);
    tcase_add_test(tc, test_stream_attributes);
    suite_add_tcase(s, tc);
    return s;
}
