/*
 * tests/cudart/check_graph_cond.c - conditional graph nodes (graph_cond.c):
 * WHILE with a default value applied at every launch and a body filled
 * by capture, IF with an ELSE body, SWITCH, cudaGraphAddNode's generic
 * parameters, and what is refused. The kernels are C kernels that do what
 * the device builtin cudaGraphSetConditional does: a 4-byte store of the
 * value to the handle, which is that address; and a PTX kernel calling
 * the builtin itself, in one process and through a server.
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "machine/include/p2psim_kernel.h"
#include "tests/check_p2psim.h"
#include "tests/cudart/cudart_test.h"
#include "cuda/include/p2psim_cudart_internal.h"

/* step(counter, handle): --*counter; the condition = *counter. */
static void k_step(void **args)
{
    uint32_t *c = *(uint32_t **)args[0];
    uint64_t h = *(uint64_t *)args[1];
    uint32_t v = devapi_ld_u32(c) - 1;
    devapi_st_u32(c, v);
    devapi_st_u32((uint32_t *)(uintptr_t)h, v);
}

/* pick(sel, handle): the condition = *sel. mark(out, k): *out = k. */
static void k_pick(void **args)
{
    uint32_t *sel = *(uint32_t **)args[0];
    uint64_t h = *(uint64_t *)args[1];
    devapi_st_u32((uint32_t *)(uintptr_t)h, devapi_ld_u32(sel));
}

static void k_mark(void **args)
{
    uint32_t *out = *(uint32_t **)args[0];
    devapi_st_u32(out, *(uint32_t *)args[1]);
}

static const size_t two_args[] = { 8, 8 };
static const size_t mark_args[] = { 8, 4 };

static dim3 one(void)
{
    dim3 d = { 1, 1, 1 };
    return d;
}

static struct cudaGraphNodeParams kernel_params(const void *k, void **args)
{
    struct cudaGraphNodeParams p;
    memset(&p, 0, sizeof(p));
    p.type = cudaGraphNodeTypeKernel;
    p.kernel.func = (void *)k;
    p.kernel.gridDim = one();
    p.kernel.blockDim = one();
    p.kernel.kernelParams = args;
    return p;
}

static struct cudaGraphNodeParams cond_params(cudaGraphConditionalHandle h,
                                              enum cudaGraphConditionalNodeType t,
                                              unsigned size)
{
    struct cudaGraphNodeParams p;
    memset(&p, 0, sizeof(p));
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = t;
    p.conditional.size = size;
    return p;
}

static void set_u32(uint32_t *d, uint32_t v)
{
    ck_cuda_ok(cudaMemcpy(d, &v, 4, cudaMemcpyHostToDevice));
}

static uint32_t get_u32(const uint32_t *d)
{
    uint32_t v = 0;
    ck_cuda_ok(cudaMemcpy(&v, d, 4, cudaMemcpyDeviceToHost));
    return v;
}

/* A graph of one WHILE node on a handle of default 1, applied at every
 * launch: its body. */
static cudaGraph_t while_graph(cudaGraph_t *g, cudaGraphConditionalHandle *h)
{
    ck_cuda_ok(cudaGraphCreate(g, 0));
    ck_cuda_ok(cudaGraphConditionalHandleCreate(h, *g, 1,
                                                cudaGraphCondAssignDefault));
    struct cudaGraphNodeParams cp = cond_params(*h, cudaGraphCondTypeWhile, 1);
    cudaGraphNode_t cn;
    ck_cuda_ok(cudaGraphAddNode(&cn, *g, NULL, NULL, 0, &cp));
    ck_assert_ptr_nonnull(cp.conditional.phGraph_out);
    return cp.conditional.phGraph_out[0];
}

/* WHILE of default 1 (applied at each launch) around step, captured into
 * the body: counter 5 ends at 0 after 5 passes, not one more; a second
 * launch runs again because the default is written again. */
START_TEST(test_cond_while_default_and_capture)
{
    cudart_test_machine(NULL);
    const void *step = p2psim_kernel_register("step", k_step, 2, two_args);
    uint32_t *counter;
    ck_cuda_ok(cudaMalloc((void **)&counter, 4));
    cudaGraph_t g;
    cudaGraphConditionalHandle h;
    cudaGraph_t body = while_graph(&g, &h);
    cudaStream_t s;
    ck_cuda_ok(cudaStreamCreate(&s));
    ck_cuda_ok(cudaStreamBeginCaptureToGraph(s, body, NULL, NULL, 0,
                                             cudaStreamCaptureModeGlobal));
    void *args[] = { &counter, &h };
    ck_cuda_ok(cudaLaunchKernel(step, one(), one(), args, 0, s));
    ck_cuda_ok(cudaStreamEndCapture(s, NULL));   /* ToGraph: NULL is fine */
    size_t nb = 0;
    ck_cuda_ok(cudaGraphGetNodes(body, NULL, &nb));
    ck_assert_uint_eq(nb, 1);
    cudaGraphExec_t x;
    ck_cuda_ok(cudaGraphInstantiate(&x, g, 0));
    set_u32(counter, 5);
    ck_cuda_ok(cudaGraphLaunch(x, s));
    ck_cuda_ok(cudaStreamSynchronize(s));
    ck_assert_uint_eq(get_u32(counter), 0);
    set_u32(counter, 3);
    ck_cuda_ok(cudaGraphLaunch(x, s));
    ck_cuda_ok(cudaStreamSynchronize(s));
    ck_assert_uint_eq(get_u32(counter), 0);
    ck_cuda_ok(cudaGraphExecDestroy(x));
    ck_cuda_ok(cudaGraphDestroy(g));
    ck_cuda_ok(cudaStreamDestroy(s));
}
END_TEST

/* pick -> IF (size 2: ELSE) and pick -> SWITCH (size 3): the value the
 * upstream kernel leaves decides which body runs, at every launch. */
START_TEST(test_cond_if_else_switch)
{
    cudart_test_machine(NULL);
    const void *pick = p2psim_kernel_register("pick", k_pick, 2, two_args);
    const void *mark = p2psim_kernel_register("mark", k_mark, 2, mark_args);
    uint32_t *sel, *out;
    ck_cuda_ok(cudaMalloc((void **)&sel, 4));
    ck_cuda_ok(cudaMalloc((void **)&out, 4));
    for (int sw = 0; sw < 2; sw++) {
        unsigned size = sw ? 3 : 2;
        cudaGraph_t g;
        ck_cuda_ok(cudaGraphCreate(&g, 0));
        cudaGraphConditionalHandle h;
        ck_cuda_ok(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
        void *pargs[] = { &sel, &h };
        struct cudaGraphNodeParams kp = kernel_params(pick, pargs);
        cudaGraphNode_t kn, cn, bn;
        ck_cuda_ok(cudaGraphAddNode(&kn, g, NULL, NULL, 0, &kp));
        struct cudaGraphNodeParams cp =
            cond_params(h, sw ? cudaGraphCondTypeSwitch : cudaGraphCondTypeIf,
                        size);
        ck_cuda_ok(cudaGraphAddNode(&cn, g, &kn, NULL, 1, &cp));
        uint32_t marks[3] = { 10, 11, 12 };
        void *margs[3][2];
        for (unsigned b = 0; b < size; b++) {
            margs[b][0] = &out;
            margs[b][1] = &marks[b];
            struct cudaGraphNodeParams mp = kernel_params(mark, margs[b]);
            ck_cuda_ok(cudaGraphAddNode(&bn, cp.conditional.phGraph_out[b],
                                        NULL, NULL, 0, &mp));
        }
        cudaGraphExec_t x;
        ck_cuda_ok(cudaGraphInstantiate(&x, g, 0));
        /* IF: 1 -> body 0, 0 -> ELSE; SWITCH: n -> body n, 7 -> none */
        const uint32_t vals[3] = { 1, 0, sw ? 2 : 5 };
        const uint32_t want[2][3] = { { 10, 11, 10 }, { 11, 10, 12 } };
        for (unsigned i = 0; i < 3; i++) {
            set_u32(sel, sw ? (i == 0 ? 1 : i == 1 ? 0 : 2) : vals[i]);
            set_u32(out, 0xff);
            ck_cuda_ok(cudaGraphLaunch(x, 0));
            ck_cuda_ok(cudaDeviceSynchronize());
            ck_assert_uint_eq(get_u32(out), want[sw][i]);
        }
        if (sw) {
            set_u32(sel, 7);
            set_u32(out, 0xff);
            ck_cuda_ok(cudaGraphLaunch(x, 0));
            ck_cuda_ok(cudaDeviceSynchronize());
            ck_assert_uint_eq(get_u32(out), 0xff);
        }
        ck_cuda_ok(cudaGraphExecDestroy(x));
        ck_cuda_ok(cudaGraphDestroy(g));
    }
}
END_TEST

/* The same WHILE around a PTX kernel that calls the device builtin
 * cudaGraphSetConditional, in one process and through a p2psim server
 * (where nvcc's kernels run). The PTX is hand-written (CI has no nvcc),
 * registered as nvcc's static constructors would (module_test.c). */
static const char step_ptx[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".extern .func cudaGraphSetConditional(.param .b64 p0, .param .b32 p1);\n"
    ".visible .entry step(.param .u64 counter, .param .u64 handle)\n{\n"
    "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
    "\tld.param.u64 %rd1, [counter];\n\tld.param.u64 %rd2, [handle];\n"
    "\tld.global.u32 %r1, [%rd1];\n\tsub.s32 %r2, %r1, 1;\n"
    "\tst.global.u32 [%rd1], %r2;\n"
    "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd2;\n"
    "\t.param .b32 param1;\n\tst.param.b32 [param1], %r2;\n"
    "\tcall.uni cudaGraphSetConditional, (param0, param1);\n\t}\n"
    "\tret;\n}\n";

#define KEY(f) ((const void *)(uintptr_t)(f))
static void stub_step(void) {}

static void while_counts_down(void)
{
    void **mh = cudart_test_register_ptx(step_ptx, sizeof(step_ptx));
    __cudaRegisterFunction(mh, (const char *)KEY(stub_step), (char *)"step",
                           "step", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(mh);
    uint32_t *counter;
    ck_cuda_ok(cudaMalloc((void **)&counter, 4));
    cudaGraph_t g;
    cudaGraphConditionalHandle h;
    cudaGraph_t body = while_graph(&g, &h);
    void *args[] = { &counter, &h };
    struct cudaGraphNodeParams kp = kernel_params(KEY(stub_step), args);
    cudaGraphNode_t kn;
    ck_cuda_ok(cudaGraphAddNode(&kn, body, NULL, NULL, 0, &kp));
    cudaGraphExec_t x;
    ck_cuda_ok(cudaGraphInstantiate(&x, g, 0));
    const uint32_t starts[2] = { 4, 2 };
    for (unsigned i = 0; i < 2; i++) {
        set_u32(counter, starts[i]);
        ck_cuda_ok(cudaGraphLaunch(x, 0));
        ck_cuda_ok(cudaDeviceSynchronize());
        ck_assert_uint_eq(get_u32(counter), 0);   /* starts[i] passes */
    }
    ck_cuda_ok(cudaGraphExecDestroy(x));
    ck_cuda_ok(cudaGraphDestroy(g));
}

START_TEST(test_graph_ptx_while)
{
    cudart_test_machine("h200-x1.yaml");
    while_counts_down();
}
END_TEST

START_TEST(test_graph_ptx_while_through_server)
{
    struct cudart_test_server srv;
    cudart_test_server_start(&srv, "h200-x1.yaml");
    while_counts_down();
    ck_assert_int_eq(cudart_test_server_stop(&srv), 0);
}
END_TEST

/* The generic parameters' layout is CUDA 13's; what is refused. */
START_TEST(test_cond_refused)
{
    cudart_test_machine(NULL);
    ck_assert_uint_eq(sizeof(struct cudaGraphNodeParams), 256);
    ck_assert_uint_eq(offsetof(struct cudaGraphNodeParams, kernel), 16);
    ck_assert_uint_eq(offsetof(struct cudaGraphNodeParams, reserved2), 248);
    ck_assert_uint_eq(sizeof(struct cudaConditionalNodeParams), 24);
    cudaGraph_t g;
    ck_cuda_ok(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    ck_cuda(cudaGraphConditionalHandleCreate(&h, g, 0, 2),
            cudaErrorInvalidValue);
    ck_cuda_ok(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    /* cudaFree refuses the handle's memory */
    ck_assert_int_ne(cudaFree((void *)(uintptr_t)h), cudaSuccess);
    cudaGetLastError();
    cudaGraphNode_t n;
    struct cudaGraphNodeParams cp = cond_params(h, cudaGraphCondTypeWhile, 2);
    ck_cuda(cudaGraphAddNode(&n, g, NULL, NULL, 0, &cp),
            cudaErrorInvalidValue);
    cp = cond_params(h, cudaGraphCondTypeIf, 3);
    ck_cuda(cudaGraphAddNode(&n, g, NULL, NULL, 0, &cp),
            cudaErrorInvalidValue);
    cp = cond_params(h + 1234567, cudaGraphCondTypeIf, 1);
    ck_cuda(cudaGraphAddNode(&n, g, NULL, NULL, 0, &cp),
            cudaErrorInvalidValue);
    /* EndCapture needs a pGraph unless the capture was to a graph */
    cudaStream_t s;
    ck_cuda_ok(cudaStreamCreate(&s));
    ck_cuda_ok(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    ck_cuda(cudaStreamEndCapture(s, NULL), cudaErrorInvalidValue);
    cudaGraph_t cg;
    ck_cuda_ok(cudaStreamEndCapture(s, &cg));
    ck_cuda_ok(cudaGraphDestroy(cg));
    ck_cuda_ok(cudaGraphDestroy(g));
}
END_TEST

Suite *make_cudart_graph_cond_suite(void);

Suite *make_cudart_graph_cond_suite(void)
{
    Suite *s = suite_create("cudart-graph-cond");
    TCase *tc = tcase_create("cond");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cond_while_default_and_capture);
    tcase_add_test(tc, test_cond_if_else_switch);
    tcase_add_test(tc, test_cond_refused);
    tcase_add_test(tc, test_graph_ptx_while);
    tcase_add_test(tc, test_graph_ptx_while_through_server);
    suite_add_tcase(s, tc);
    return s;
}
