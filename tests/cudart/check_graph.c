/*
 * tests/cudart/check_graph.c - CUDA graphs and stream capture through the
 * runtime shim: a graph built by hand and one captured from streams
 * launched several times (the data each launch leaves), the simulated
 * time of a graph launch against the same work queued on a stream,
 * dependency order across branches, clone and update, and the calls a
 * capture refuses. Its own runner (tests/check_cudart_graph), so that it
 * is registered apart from the suites of check_cudart.
 */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/include/p2psim_kernel.h"
#include "tests/check_p2psim.h"
#include "tests/cudart/cudart_test.h"

#define N 4096u

/* v[i] = v[i] * 2 + add */
static void k_scale(void **args)
{
    uint32_t *v = *(uint32_t **)args[0];
    uint32_t add = *(uint32_t *)args[1];
    unsigned i = devapi_global_id();
    if (i < N) {
        devapi_st_u32(&v[i], devapi_ld_u32(&v[i]) * 2 + add);
    }
}

static const size_t scale_args[] = { 8, 4 };

static unsigned host_calls;
static unsigned host_order[8];

static void host_fn(void *arg)
{
    host_order[host_calls++ % 8] = (unsigned)(uintptr_t)arg;
}

static dim3 d3(unsigned x)
{
    dim3 d = { x, 1, 1 };
    return d;
}

static void fill(uint32_t *h, uint32_t base)
{
    for (unsigned i = 0; i < N; i++) {
        h[i] = base + i;
    }
}

/* A graph by hand: memcpy -> kernel -> memcpy, a host node after; run
 * three times, each launch doubling and adding again. */
START_TEST(test_graph_manual_runs)
{
    cudart_test_machine(NULL);
    const void *k = p2psim_kernel_register("scale", k_scale, 2, scale_args);
    static uint32_t in[N], out[N];
    uint32_t *d, *pin_in, *pin_out;
    ck_cuda_ok(cudaMalloc((void **)&d, N * 4));
    ck_cuda_ok(cudaMallocHost((void **)&pin_in, N * 4));
    ck_cuda_ok(cudaMallocHost((void **)&pin_out, N * 4));
    fill(in, 7);
    memcpy(pin_in, in, sizeof(in));
    cudaGraph_t g;
    cudaGraphNode_t cp_in, kn, cp_out, hn;
    ck_cuda_ok(cudaGraphCreate(&g, 0));
    ck_cuda_ok(cudaGraphAddMemcpyNode1D(&cp_in, g, NULL, 0, d, pin_in, N * 4,
                                        cudaMemcpyHostToDevice));
    uint32_t add = 3;
    void *args[] = { &d, &add };
    struct cudaKernelNodeParams kp = { (void *)k, d3(N / 256), d3(256), 0,
                                       args, NULL };
    ck_cuda_ok(cudaGraphAddKernelNode(&kn, g, &cp_in, 1, &kp));
    add = 99; /* the node copied the arguments */
    ck_cuda_ok(cudaGraphAddMemcpyNode1D(&cp_out, g, &kn, 1, pin_out, d,
                                        N * 4, cudaMemcpyDeviceToHost));
    struct cudaHostNodeParams hp = { host_fn, (void *)(uintptr_t)1 };
    ck_cuda_ok(cudaGraphAddHostNode(&hn, g, &cp_out, 1, &hp));
    size_t n = 0;
    ck_cuda_ok(cudaGraphGetNodes(g, NULL, &n));
    ck_assert_uint_eq(n, 4);
    ck_cuda_ok(cudaGraphGetRootNodes(g, NULL, &n));
    ck_assert_uint_eq(n, 1);
    ck_cuda_ok(cudaGraphGetEdges(g, NULL, NULL, NULL, &n));
    ck_assert_uint_eq(n, 3);
    enum cudaGraphNodeType t;
    ck_cuda_ok(cudaGraphNodeGetType(kn, &t));
    ck_assert_int_eq(t, cudaGraphNodeTypeKernel);
    cudaGraphExec_t x;
    ck_cuda_ok(cudaGraphInstantiate(&x, g, 0));
    cudaStream_t s;
    ck_cuda_ok(cudaStreamCreate(&s));
    for (int r = 0; r < 3; r++) {
        ck_cuda_ok(cudaGraphLaunch(x, s));
        ck_cuda_ok(cudaStreamSynchronize(s));
        for (unsigned i = 0; i < N; i++) {
            ck_assert_uint_eq(pin_out[i], in[i] * 2 + 3);
        }
        memcpy(pin_in, pin_out, sizeof(out));
        memcpy(in, pin_out, sizeof(in));
    }
    ck_assert_uint_eq(host_calls, 3);
    ck_cuda_ok(cudaGraphExecDestroy(x));
    ck_cuda_ok(cudaGraphDestroy(g));
}
END_TEST

/* The same work captured from a stream, with a fork and a join through
 * events; 5 nodes, launched twice. */
START_TEST(test_graph_capture_fork_join)
{
    cudart_test_machine(NULL);
    const void *k = p2psim_kernel_register("scale", k_scale, 2, scale_args);
    uint32_t *a, *b, *h;
    ck_cuda_ok(cudaMalloc((void **)&a, N * 4));
    ck_cuda_ok(cudaMalloc((void **)&b, N * 4));
    ck_cuda_ok(cudaMallocHost((void **)&h, 2 * N * 4));
    cudaStream_t s1, s2;
    cudaEvent_t fork, join;
    ck_cuda_ok(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    ck_cuda_ok(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    ck_cuda_ok(cudaEventCreate(&fork));
    ck_cuda_ok(cudaEventCreate(&join));
    ck_cuda_ok(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    enum cudaStreamCaptureStatus st;
    ck_cuda_ok(cudaStreamIsCapturing(s1, &st));
    ck_assert_int_eq(st, cudaStreamCaptureStatusActive);
    ck_cuda_ok(cudaMemsetAsync(a, 1, N * 4, s1));
    ck_cuda_ok(cudaEventRecord(fork, s1));
    ck_cuda_ok(cudaStreamWaitEvent(s2, fork, 0));
    ck_cuda_ok(cudaStreamIsCapturing(s2, &st));
    ck_assert_int_eq(st, cudaStreamCaptureStatusActive);
    uint32_t add1 = 1, add2 = 2;
    void *a1[] = { &a, &add1 }, *a2[] = { &b, &add2 };
    ck_cuda_ok(cudaMemsetAsync(b, 2, N * 4, s2));
    ck_cuda_ok(cudaLaunchKernel(k, d3(N / 256), d3(256), a2, 0, s2));
    ck_cuda_ok(cudaLaunchKernel(k, d3(N / 256), d3(256), a1, 0, s1));
    ck_cuda_ok(cudaEventRecord(join, s2));
    /* not joined yet: ending now would be an error; join first */
    ck_cuda_ok(cudaStreamWaitEvent(s1, join, 0));
    ck_cuda_ok(cudaMemcpyAsync(h, a, N * 4, cudaMemcpyDeviceToHost, s1));
    ck_cuda_ok(cudaMemcpyAsync(h + N, b, N * 4, cudaMemcpyDeviceToHost, s1));
    unsigned long long id;
    size_t nd;
    const cudaGraphNode_t *deps;
    ck_cuda_ok(cudaStreamGetCaptureInfo(s1, &st, &id, NULL, &deps, NULL, &nd));
    ck_assert_uint_eq(nd, 1);
    cudaGraph_t g;
    ck_cuda_ok(cudaStreamEndCapture(s1, &g));
    ck_cuda_ok(cudaStreamIsCapturing(s2, &st));
    ck_assert_int_eq(st, cudaStreamCaptureStatusNone);
    size_t n = 0;
    ck_cuda_ok(cudaGraphGetNodes(g, NULL, &n));
    ck_assert_uint_eq(n, 6);
    ck_cuda_ok(cudaGraphGetRootNodes(g, NULL, &n));
    ck_assert_uint_eq(n, 1);
    /* nothing ran during the capture */
    ck_cuda_ok(cudaMemcpy(h, a, 4, cudaMemcpyDeviceToHost));
    cudaGraphExec_t x;
    ck_cuda_ok(cudaGraphInstantiate(&x, g, 0));
    for (int r = 0; r < 2; r++) {
        memset(h, 0, 2 * N * 4);
        ck_cuda_ok(cudaGraphLaunch(x, s1));
        ck_cuda_ok(cudaStreamSynchronize(s1));
        for (unsigned i = 0; i < N; i++) {
            ck_assert_uint_eq(h[i], 0x01010101u * 2 + 1);
            ck_assert_uint_eq(h[N + i], 0x02020202u * 2 + 2);
        }
    }
    /* clone: the same nodes, each found from its original */
    cudaGraph_t c;
    cudaGraphNode_t orig[6], found;
    n = 6;
    ck_cuda_ok(cudaGraphClone(&c, g));
    ck_cuda_ok(cudaGraphGetNodes(g, orig, &n));
    for (int i = 0; i < 6; i++) {
        ck_cuda_ok(cudaGraphNodeFindInClone(&found, orig[i], c));
        ck_assert_ptr_ne(found, orig[i]);
    }
    ck_cuda_ok(cudaGraphDestroy(c));
    ck_cuda_ok(cudaGraphExecDestroy(x));
    ck_cuda_ok(cudaGraphDestroy(g));
}
END_TEST

/* Elapsed simulated time of: 64 MiB H2D, a kernel, 64 MiB D2H. */
static float timed_work(bool graph)
{
    const void *k = p2psim_kernel_register("scale", k_scale, 2, scale_args);
    size_t big = 64u << 20;
    uint32_t *d, *h;
    ck_cuda_ok(cudaMalloc((void **)&d, big));
    ck_cuda_ok(cudaMallocHost((void **)&h, big));
    cudaStream_t s;
    cudaEvent_t e0, e1;
    ck_cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    ck_cuda_ok(cudaEventCreate(&e0));
    ck_cuda_ok(cudaEventCreate(&e1));
    uint32_t add = 1;
    void *args[] = { &d, &add };
    cudaGraphExec_t x = NULL;
    cudaGraph_t g = NULL;
    if (graph) {
        ck_cuda_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    }
    ck_cuda_ok(cudaMemcpyAsync(d, h, big, cudaMemcpyHostToDevice, s));
    ck_cuda_ok(cudaLaunchKernel(k, d3(N / 256), d3(256), args, 0, s));
    ck_cuda_ok(cudaMemcpyAsync(h, d, big, cudaMemcpyDeviceToHost, s));
    if (graph) {
        ck_cuda_ok(cudaStreamEndCapture(s, &g));
        ck_cuda_ok(cudaGraphInstantiate(&x, g, 0));
        ck_cuda_ok(cudaEventRecord(e0, s));
        ck_cuda_ok(cudaGraphLaunch(x, s));
        ck_cuda_ok(cudaEventRecord(e1, s));
    }
    ck_cuda_ok(cudaStreamSynchronize(s));
    if (!graph) {
        /* queued again, between events, now that the stream is idle */
        ck_cuda_ok(cudaEventRecord(e0, s));
        ck_cuda_ok(cudaMemcpyAsync(d, h, big, cudaMemcpyHostToDevice, s));
        ck_cuda_ok(cudaLaunchKernel(k, d3(N / 256), d3(256), args, 0, s));
        ck_cuda_ok(cudaMemcpyAsync(h, d, big, cudaMemcpyDeviceToHost, s));
        ck_cuda_ok(cudaEventRecord(e1, s));
        ck_cuda_ok(cudaStreamSynchronize(s));
    }
    float ms;
    ck_cuda_ok(cudaEventElapsedTime(&ms, e0, e1));
    if (graph) {
        ck_cuda_ok(cudaGraphExecDestroy(x));
        ck_cuda_ok(cudaGraphDestroy(g));
    }
    return ms;
}

START_TEST(test_graph_time_equals_stream)
{
    cudart_test_machine(NULL);
    float direct = timed_work(false);
    float graph = timed_work(true);
    /* The GPU work is the same; only the host's enqueue costs differ
     * (a few microseconds per call queued directly). */
    ck_assert_msg(graph > 0.0f && direct > 0.0f, "%f %f", graph, direct);
    ck_assert_msg(graph - direct < 0.001f && direct - graph < 0.020f,
                  "graph %.6f ms, queued %.6f ms", graph, direct);
    printf("graph %.6f ms, queued %.6f ms\n", graph, direct);
}
END_TEST

/* Two host nodes after a root, a third after both: order kept; update
 * swaps the arguments of the executable graph's nodes. */
START_TEST(test_graph_order_and_update)
{
    cudart_test_machine(NULL);
    cudaGraph_t g, g2;
    cudaGraphNode_t root, a, b, j;
    struct cudaHostNodeParams p1 = { host_fn, (void *)1 },
                              p2 = { host_fn, (void *)2 },
                              p3 = { host_fn, (void *)3 };
    ck_cuda_ok(cudaGraphCreate(&g, 0));
    ck_cuda_ok(cudaGraphAddEmptyNode(&root, g, NULL, 0));
    ck_cuda_ok(cudaGraphAddHostNode(&a, g, &root, 1, &p1));
    ck_cuda_ok(cudaGraphAddHostNode(&b, g, &root, 1, &p2));
    cudaGraphNode_t ab[] = { a, b };
    ck_cuda_ok(cudaGraphAddHostNode(&j, g, ab, 2, &p3));
    ck_cuda(cudaGraphAddDependencies(g, &a, &j, NULL, 1),
            cudaErrorInvalidValue);     /* exists */
    cudaGraphExec_t x;
    ck_cuda_ok(cudaGraphInstantiate(&x, g, 0));
    host_calls = 0;
    ck_cuda_ok(cudaGraphLaunch(x, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_assert_uint_eq(host_calls, 3);
    ck_assert_uint_eq(host_order[2], 3);
    /* update from a clone whose last node calls with 7 */
    ck_cuda_ok(cudaGraphClone(&g2, g));
    cudaGraphNode_t j2;
    ck_cuda_ok(cudaGraphNodeFindInClone(&j2, j, g2));
    struct cudaHostNodeParams p7 = { host_fn, (void *)7 };
    ck_cuda_ok(cudaGraphHostNodeSetParams(j2, &p7));
    cudaGraphExecUpdateResultInfo info;
    ck_cuda_ok(cudaGraphExecUpdate(x, g2, &info));
    ck_assert_int_eq(info.result, cudaGraphExecUpdateSuccess);
    host_calls = 0;
    ck_cuda_ok(cudaGraphLaunch(x, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    ck_assert_uint_eq(host_order[2], 7);
    /* a different topology is refused */
    cudaGraphNode_t a2;
    ck_cuda_ok(cudaGraphNodeFindInClone(&a2, a, g2));
    ck_cuda_ok(cudaGraphRemoveDependencies(g2, &a2, &j2, NULL, 1));
    ck_cuda(cudaGraphExecUpdate(x, g2, &info), cudaErrorGraphExecUpdateFailure);
    ck_assert_int_eq(info.result, cudaGraphExecUpdateErrorTopologyChanged);
    ck_cuda_ok(cudaGraphExecDestroy(x));
    ck_cuda_ok(cudaGraphDestroy(g2));
    ck_cuda_ok(cudaGraphDestroy(g));
}
END_TEST

/* What a capture refuses, and that it is invalidated then. */
START_TEST(test_graph_capture_illegal)
{
    cudart_test_machine(NULL);
    uint32_t *d;
    static uint32_t h[16];
    ck_cuda_ok(cudaMalloc((void **)&d, 64));
    cudaStream_t s, nb;
    ck_cuda_ok(cudaStreamCreate(&s));
    ck_cuda_ok(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    cudaGraph_t g = (cudaGraph_t)1;
    /* the legacy stream cannot capture */
    ck_cuda(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
            cudaErrorStreamCaptureUnsupported);
    /* synchronizing the capturing stream */
    ck_cuda_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    ck_cuda(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal),
            cudaErrorIllegalState);
    ck_cuda_ok(cudaMemsetAsync(d, 0, 64, s));
    ck_cuda(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
    enum cudaStreamCaptureStatus st;
    ck_cuda_ok(cudaStreamIsCapturing(s, &st));
    ck_assert_int_eq(st, cudaStreamCaptureStatusInvalidated);
    ck_cuda(cudaMemsetAsync(d, 0, 64, s), cudaErrorStreamCaptureInvalidated);
    ck_cuda(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    ck_assert_ptr_null(g);
    /* a synchronous copy on the legacy stream against a blocking
     * capturing stream */
    ck_cuda_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    ck_cuda(cudaMemcpy(h, d, 64, cudaMemcpyDeviceToHost),
            cudaErrorStreamCaptureImplicit);
    ck_cuda(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    /* cudaDeviceSynchronize in global mode; allowed once relaxed */
    ck_cuda_ok(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal));
    enum cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
    ck_cuda_ok(cudaThreadExchangeStreamCaptureMode(&m));
    ck_assert_int_eq(m, cudaStreamCaptureModeGlobal);
    ck_cuda_ok(cudaStreamQuery(s));
    ck_cuda_ok(cudaThreadExchangeStreamCaptureMode(&m));
    ck_cuda(cudaDeviceSynchronize(), cudaErrorStreamCaptureUnsupported);
    ck_cuda(cudaStreamEndCapture(nb, &g), cudaErrorStreamCaptureInvalidated);
    /* a fork not joined back */
    cudaEvent_t ev;
    ck_cuda_ok(cudaEventCreate(&ev));
    ck_cuda_ok(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal));
    ck_cuda_ok(cudaEventRecord(ev, nb));
    ck_cuda_ok(cudaStreamWaitEvent(s, ev, 0));
    ck_cuda_ok(cudaMemsetAsync(d, 0, 64, s));
    ck_cuda(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureUnmatched);
    ck_cuda(cudaStreamEndCapture(nb, &g), cudaErrorStreamCaptureUnjoined);
    /* not capturing */
    ck_cuda(cudaStreamEndCapture(nb, &g), cudaErrorIllegalState);
    ck_cuda_ok(cudaDeviceSynchronize());
}
END_TEST

/* Allocation and free nodes: the address is the node's at every launch,
 * and a dot file is written. */
START_TEST(test_graph_mem_nodes)
{
    cudart_test_machine(NULL);
    cudaGraph_t g;
    cudaGraphNode_t an, sn, fn;
    ck_cuda_ok(cudaGraphCreate(&g, 0));
    struct cudaMemAllocNodeParams ap;
    memset(&ap, 0, sizeof(ap));
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = 1 << 20;
    ck_cuda_ok(cudaGraphAddMemAllocNode(&an, g, NULL, 0, &ap));
    ck_assert_ptr_nonnull(ap.dptr);
    struct cudaMemsetParams mp = { ap.dptr, 0, 0x2a, 1, 1 << 20, 1 };
    ck_cuda_ok(cudaGraphAddMemsetNode(&sn, g, &an, 1, &mp));
    ck_cuda_ok(cudaGraphAddMemFreeNode(&fn, g, &sn, 1, ap.dptr));
    cudaGraphExec_t x;
    ck_cuda_ok(cudaGraphInstantiate(&x, g, 0));
    for (int r = 0; r < 3; r++) {
        ck_cuda_ok(cudaGraphLaunch(x, 0));
    }
    ck_cuda_ok(cudaDeviceSynchronize());
    size_t used = 1;
    ck_cuda_ok(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent,
                                              &used));
    /* free nodes keep the memory (docs/cuda-shim.md) until cudaFree */
    ck_assert_uint_eq(used, 1 << 20);
    ck_cuda_ok(cudaFree(ap.dptr));
    ck_cuda_ok(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent,
                                              &used));
    ck_assert_uint_eq(used, 0);
    /* a free node of another graph may name it while it is freed
     * (graphMemoryNodes frees it so, before the next launch) */
    cudaGraph_t gf;
    cudaGraphNode_t ffn;
    ck_cuda_ok(cudaGraphCreate(&gf, 0));
    ck_cuda_ok(cudaGraphAddMemFreeNode(&ffn, gf, NULL, 0, ap.dptr));
    ck_cuda(cudaGraphAddMemFreeNode(&ffn, gf, NULL, 0, (char *)ap.dptr + 512),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaGraphDestroy(gf));
    /* launched again: live again at its address */
    ck_cuda_ok(cudaGraphLaunch(x, 0));
    ck_cuda_ok(cudaDeviceSynchronize());
    struct cudaPointerAttributes pa;
    ck_cuda_ok(cudaPointerGetAttributes(&pa, ap.dptr));
    ck_assert_int_eq(pa.type, cudaMemoryTypeDevice);
    char path[] = "/tmp/p2psim-graph-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_cuda_ok(cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsVerbose));
    char buf[512] = { 0 };
    ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
    ck_assert_ptr_nonnull(strstr(buf, "digraph"));
    ck_assert_ptr_nonnull(strstr(buf, "MEM_ALLOC"));
    close(fd);
    unlink(path);
    ck_cuda_ok(cudaGraphExecDestroy(x));
    ck_cuda_ok(cudaGraphDestroy(g));
}
END_TEST

Suite *make_cudart_graph_suite(void);

Suite *make_cudart_graph_suite(void)
{
    Suite *s = suite_create("cudart-graph");
    TCase *tc = tcase_create("graph");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_graph_manual_runs);
    tcase_add_test(tc, test_graph_capture_fork_join);
    tcase_add_test(tc, test_graph_time_equals_stream);
    tcase_add_test(tc, test_graph_order_and_update);
    tcase_add_test(tc, test_graph_capture_illegal);
    tcase_add_test(tc, test_graph_mem_nodes);
    suite_add_tcase(s, tc);
    return s;
}

Suite *make_cudart_graph_cond_suite(void);

#define SUITES(X) X(make_cudart_graph_suite) X(make_cudart_graph_cond_suite)

CHECK_RUNNER_MAIN("check_cudart_graph", SUITES)
