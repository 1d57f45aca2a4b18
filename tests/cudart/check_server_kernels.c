/*
 * tests/cudart/check_server_kernels.c - nvcc-style (PTX) kernels through
 * a p2psim server (cuda/cudart/remote.c, tools/cmd_server.c): the module's
 * PTX goes to the server once, grids run on the server's machine in
 * stream order, and results, simulated times and errors are those of a
 * machine in the program's own process.
 *
 * CI has no nvcc: the module is hand-written PTX wrapped in a fat binary
 * built here (the layout ptx/fatbin.c reads), registered as nvcc's
 * static constructors would. Each test starts its own server
 * (server_test.c) and is its client; the in-process run it is compared
 * with happens in a child forked before this process's first CUDA call.
 */
#include <config.h>

#include "tests/cudart/cudart_test.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda/include/p2psim_cudart_internal.h"
#include "machine/include/p2psim_kernel.h"

#define MACHINE "pcie-8gpu-2socket.yaml"

/* Line 70 (uses_texture's tex) is what the interpreter refuses. */
static const char ptx[] =
    "//\n"
    "// hand-written module of check_server_kernels.c\n"
    "//\n"
    ".version 9.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    "\n"
    "// out[i] = in[i] ^ key for i < n\n"
    ".visible .entry xor_peer(\n"
    "\t.param .u64 xor_peer_in,\n"                      /* 10 */
    "\t.param .u64 xor_peer_out,\n"
    "\t.param .u32 xor_peer_n,\n"
    "\t.param .u32 xor_peer_key\n"
    ")\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b32 %r<9>;\n"
    "\t.reg .b64 %rd<8>;\n"
    "\n"
    "\tld.param.u64 %rd1, [xor_peer_in];\n"            /* 20 */
    "\tld.param.u64 %rd2, [xor_peer_out];\n"
    "\tld.param.u32 %r2, [xor_peer_n];\n"
    "\tld.param.u32 %r3, [xor_peer_key];\n"
    "\tmov.u32 %r4, %ctaid.x;\n"
    "\tmov.u32 %r5, %ntid.x;\n"
    "\tmov.u32 %r6, %tid.x;\n"
    "\tmad.lo.s32 %r1, %r4, %r5, %r6;\n"
    "\tsetp.ge.u32 %p1, %r1, %r2;\n"
    "\t@%p1 bra $L__done;\n"
    "\tcvta.to.global.u64 %rd3, %rd1;\n"               /* 30 */
    "\tcvta.to.global.u64 %rd4, %rd2;\n"
    "\tmul.wide.u32 %rd5, %r1, 4;\n"
    "\tadd.s64 %rd6, %rd3, %rd5;\n"
    "\tld.global.u32 %r7, [%rd6];\n"
    "\txor.b32 %r8, %r7, %r3;\n"
    "\tadd.s64 %rd7, %rd4, %rd5;\n"
    "\tst.global.u32 [%rd7], %r8;\n"
    "$L__done:\n"
    "\tret;\n"
    "}\n"                                               /* 40 */
    "\n"
    "// spin until *flag (host-mapped) is not 0, then *out = *flag + 1\n"
    ".visible .entry spin(\n"
    "\t.param .u64 spin_flag,\n"
    "\t.param .u64 spin_out\n"
    ")\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b32 %r<3>;\n"
    "\t.reg .b64 %rd<3>;\n"                            /* 50 */
    "\n"
    "\tld.param.u64 %rd1, [spin_flag];\n"
    "\tld.param.u64 %rd2, [spin_out];\n"
    "$L__spin:\n"
    "\tld.volatile.global.u32 %r1, [%rd1];\n"
    "\tsetp.eq.s32 %p1, %r1, 0;\n"
    "\t@%p1 bra $L__spin;\n"
    "\tadd.s32 %r2, %r1, 1;\n"
    "\tst.global.u32 [%rd2], %r2;\n"
    "\tret;\n"                                         /* 60 */
    "}\n"
    "\n"
    ".visible .entry uses_texture(\n"
    "\t.param .u64 uses_texture_out\n"
    ")\n"
    "{\n"
    "\t.reg .f32 %f<5>;\n"
    "\n"
    "\t// the next line is not interpreted\n"
    "\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex0, {%f1, %f2}];\n" /* 70 */
    "\tret;\n"
    "}\n";

/* ---- a fat binary around the PTX (ptx/fatbin.c has the layout) ------- */

static unsigned long long fatbin[(sizeof(ptx) + 16 + 64) / 8 + 2];
static struct p2psim_fatbin_wrapper wrapper;

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* Host stubs: only their addresses matter. */
static void stub_xor(void) {}
static void stub_spin(void) {}
static void stub_texture(void) {}

#define STUB(f) ((const char *)(uintptr_t)(f))
#define KEY(f) ((const void *)(uintptr_t)(f))

/* What nvcc's static constructor does for the module: one PTX entry
 * (kind 1, sm_90, uncompressed), three kernels. */
static void register_module(void)
{
    uint8_t *b = (uint8_t *)fatbin;
    uint64_t payload = (sizeof(ptx) + 7) / 8 * 8;
    memset(fatbin, 0, sizeof(fatbin));
    put32(b, P2PSIM_FATBIN_CONTAINER_MAGIC);
    put16(b + 4, 1);                    /* container version */
    put16(b + 6, 16);                   /* its header's size */
    put64(b + 8, 64 + payload);         /* the entries' bytes */
    uint8_t *e = b + 16;
    put16(e, 1);                        /* PTX */
    put16(e + 2, 0x101);
    put32(e + 4, 64);                   /* entry header's size */
    put64(e + 8, payload);
    put16(e + 24, 0);                   /* PTX ISA 9.0 */
    put16(e + 26, 9);
    put32(e + 28, 90);                  /* sm_90 */
    put64(e + 56, sizeof(ptx));         /* uncompressed size */
    memcpy(e + 64, ptx, sizeof(ptx));
    wrapper = (struct p2psim_fatbin_wrapper){
        P2PSIM_FATBIN_WRAPPER_MAGIC, P2PSIM_FATBIN_WRAPPER_VERSION, fatbin,
        NULL
    };
    void **h = __cudaRegisterFatBinary(&wrapper);
    ck_assert_ptr_nonnull(h);
    __cudaRegisterFunction(h, STUB(stub_xor), (char *)"xor_peer", "xor_peer",
                           -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(h, STUB(stub_spin), (char *)"spin", "spin", -1,
                           NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(h, STUB(stub_texture), (char *)"uses_texture",
                           "uses_texture", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
}

static dim3 d3(unsigned x, unsigned y, unsigned z)
{
    dim3 d = { x, y, z };
    return d;
}

/* stderr into a file while a test runs; its text when asked. */
struct capture {
    char path[64];
    int fd, saved;
};

static void capture_start(struct capture *c)
{
    snprintf(c->path, sizeof(c->path), "/tmp/check_server_kernels_XXXXXX");
    c->fd = mkstemp(c->path);
    ck_assert_int_ge(c->fd, 0);
    fflush(stderr);
    c->saved = dup(2);
    dup2(c->fd, 2);
}

static char *capture_end(struct capture *c)
{
    static char text[4096];
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    ssize_t n = pread(c->fd, text, sizeof(text) - 1, 0);
    text[n > 0 ? n : 0] = '\0';
    close(c->fd);
    unlink(c->path);
    return text;
}

/* ---- the same grid in this process and through a server --------------------- */

#define N_WORDS 4096u
#define KEY_XOR 0x5a5a5a5au

struct xor_result {
    float ms;                   /* the grid's time, between two events */
    unsigned wrong;             /* words that differ from in ^ key */
};

/* GPU 1 reads GPU 0's buffer in a kernel and checks what it wrote. */
static struct xor_result xor_peer_run(void)
{
    static uint32_t host[N_WORDS], back[N_WORDS];
    struct xor_result r = { 0, 0 };
    for (unsigned i = 0; i < N_WORDS; i++) {
        host[i] = i * 2654435761u;
    }
    uint32_t *src, *dst;
    unsigned n = N_WORDS, key = KEY_XOR;
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaMalloc((void **)&src, N_WORDS * 4));
    ck_cuda_ok(cudaMemcpy(src, host, N_WORDS * 4, cudaMemcpyHostToDevice));
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaMalloc((void **)&dst, N_WORDS * 4));
    ck_cuda_ok(cudaDeviceEnablePeerAccess(0, 0));
    cudaEvent_t a, b;
    ck_cuda_ok(cudaEventCreate(&a));
    ck_cuda_ok(cudaEventCreate(&b));
    void *args[] = { &src, &dst, &n, &key };
    ck_cuda_ok(cudaEventRecord(a, 0));
    ck_cuda_ok(cudaLaunchKernel(KEY(stub_xor), d3(N_WORDS / 256, 1, 1),
                                d3(256, 1, 1), args, 0, 0));
    ck_cuda_ok(cudaEventRecord(b, 0));
    ck_cuda_ok(cudaMemcpy(back, dst, N_WORDS * 4, cudaMemcpyDeviceToHost));
    ck_cuda_ok(cudaEventElapsedTime(&r.ms, a, b));
    for (unsigned i = 0; i < N_WORDS; i++) {
        r.wrong += back[i] != (host[i] ^ KEY_XOR);
    }
    return r;
}

static void xor_peer_child(void *out)
{
    *(struct xor_result *)out = xor_peer_run();
}

START_TEST(test_server_kernel_matches_in_process)
{
    register_module();
    cudart_test_machine(MACHINE);
    /* In-process first, in a child: this process has no runtime yet. */
    struct xor_result local;
    cudart_test_in_child("P2PSIM_SERVER", "", xor_peer_child, &local,
                         sizeof(local));

    struct cudart_test_server srv;
    cudart_test_server_start(&srv, MACHINE);
    struct xor_result remote = xor_peer_run();
    cudart_test_server_stop(&srv);

    ck_assert_uint_eq(local.wrong, 0);
    ck_assert_uint_eq(remote.wrong, 0);
    ck_assert(local.ms > 0);    /* the peer reads took simulated time */
    ck_assert_msg(remote.ms == local.ms, "through the server %.6f ms, in "
                  "process %.6f ms", remote.ms, local.ms);
}
END_TEST

/* ---- managed memory: where its pages are, through the server too -------- */

struct managed_result {
    float ms[2];                /* the grid after a prefetch to GPU 1, and
                                   after one back to the host */
    unsigned wrong;             /* words of out not in ^ key, both runs */
};

/* On GPU 1, xor_peer from managed in to managed out, with the pages
 * prefetched to GPU 1 and then back to the host; out checked on the
 * host. */
static struct managed_result managed_run(void)
{
    struct managed_result r = { { 0, 0 }, 0 };
    uint32_t *in, *out;
    unsigned n = N_WORDS, key = KEY_XOR;
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaMallocManaged((void **)&in, N_WORDS * 4,
                                 cudaMemAttachGlobal));
    ck_cuda_ok(cudaMallocManaged((void **)&out, N_WORDS * 4,
                                 cudaMemAttachGlobal));
    cudaEvent_t a, b;
    ck_cuda_ok(cudaEventCreate(&a));
    ck_cuda_ok(cudaEventCreate(&b));
    void *args[] = { &in, &out, &n, &key };
    for (unsigned run = 0; run < 2; run++) {
        for (unsigned i = 0; i < N_WORDS; i++) {
            in[i] = i * 2654435761u + run;
            out[i] = 0;
        }
        struct cudaMemLocation l = { cudaMemLocationTypeDevice, 1 };
        if (run == 1) {
            l = (struct cudaMemLocation){ cudaMemLocationTypeHost, 0 };
        }
        ck_cuda_ok(cudaMemPrefetchAsync(in, N_WORDS * 4, l, 0, 0));
        ck_cuda_ok(cudaMemPrefetchAsync(out, N_WORDS * 4, l, 0, 0));
        ck_cuda_ok(cudaEventRecord(a, 0));
        ck_cuda_ok(cudaLaunchKernel(KEY(stub_xor), d3(N_WORDS / 256, 1, 1),
                                    d3(256, 1, 1), args, 0, 0));
        ck_cuda_ok(cudaEventRecord(b, 0));
        ck_cuda_ok(cudaDeviceSynchronize());
        ck_cuda_ok(cudaEventElapsedTime(&r.ms[run], a, b));
        for (unsigned i = 0; i < N_WORDS; i++) {
            r.wrong += out[i] != ((i * 2654435761u + run) ^ KEY_XOR);
        }
    }
    return r;
}

static void managed_child(void *out)
{
    *(struct managed_result *)out = managed_run();
}

START_TEST(test_server_kernel_managed_follows_residency)
{
    register_module();
    cudart_test_machine(MACHINE);
    struct managed_result local;
    cudart_test_in_child("P2PSIM_SERVER", "", managed_child, &local,
                         sizeof(local));

    struct cudart_test_server srv;
    cudart_test_server_start(&srv, MACHINE);
    struct managed_result remote = managed_run();
    cudart_test_server_stop(&srv);

    ck_assert_uint_eq(local.wrong, 0);
    ck_assert_uint_eq(remote.wrong, 0);
    /* prefetched to GPU 1, the pages are its HBM: the same time both
     * ways; back on the host, slower: in process the grid faults them in
     * again, through the server it reads them mapped (a server's grid
     * does not fault: docs/kernels.md) */
    ck_assert_msg(remote.ms[0] == local.ms[0], "through the server %.6f ms, "
                  "in process %.6f ms", remote.ms[0], local.ms[0]);
    ck_assert_msg(local.ms[0] * 2 < local.ms[1] &&
                  remote.ms[0] < remote.ms[1], "on GPU 1 %.6f ms, on the "
                  "host %.6f ms (server %.6f ms)", local.ms[0], local.ms[1],
                  remote.ms[1]);
}
END_TEST

/* ---- host memory the kernel reads: the program's, while it runs ---------- */

static volatile uint32_t *flag;

/* Another thread of the program, never in CUDA: it releases the kernel
 * after the simulation has run without it (its grace period, 20 ms, is
 * long over) and the kernel has been spinning on the flag. */
static void *release_later(void *arg)
{
    (void)arg;
    struct timespec ts = { 0, 100 * 1000000L };
    nanosleep(&ts, NULL);
    *flag = 41;
    return NULL;
}

/* A server for this test; on GPU 0, the zeroed host-mapped flag (*d_flag
 * its device address) and the spin kernel's out. */
static void spin_setup(struct cudart_test_server *srv, uint32_t **d_flag,
                       uint32_t **out)
{
    uint32_t *h;
    register_module();
    cudart_test_server_start(srv, MACHINE);
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaHostAlloc((void **)&h, 64, cudaHostAllocMapped));
    flag = h;
    *flag = 0;
    ck_cuda_ok(cudaHostGetDevicePointer((void **)d_flag, h, 0));
    ck_cuda_ok(cudaMalloc((void **)out, 4));
}

START_TEST(test_server_kernel_spins_on_host_mapped_flag)
{
    struct cudart_test_server srv;
    uint32_t *d_flag, *out, got = 0;
    spin_setup(&srv, &d_flag, &out);
    cudaStream_t s;
    ck_cuda_ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    void *args[] = { &d_flag, &out };
    ck_cuda_ok(cudaLaunchKernel(KEY(stub_spin), d3(1, 1, 1), d3(1, 1, 1),
                                args, 0, s));
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, release_later, NULL), 0);
    ck_cuda_ok(cudaStreamSynchronize(s));
    pthread_join(t, NULL);
    ck_cuda_ok(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
    ck_assert_uint_eq(got, 42);
    cudart_test_server_stop(&srv);
}
END_TEST

struct spin_launch {
    cudaStream_t s;
    void **args;
};

static void launch_spin(void *arg)
{
    struct spin_launch *l = arg;
    ck_cuda_ok(cudaLaunchKernel(KEY(stub_spin), d3(1, 1, 1), d3(1, 1, 1),
                                l->args, 0, l->s));
}

/* The host queues calls (45 us of its clock) behind the spinning kernel,
 * then stores the flag: through the server too, the kernel sees the store
 * at the host's clock (rt.c's catch-up), within a poll of it, not as soon
 * as it starts (the store is in memory before the host waits). */
START_TEST(test_server_kernel_sees_host_store_at_host_time)
{
    struct cudart_test_server srv;
    uint32_t *d_flag, *out, got = 0;
    spin_setup(&srv, &d_flag, &out);
    void *args[] = { &d_flag, &out };
    struct spin_launch l = { 0, args };
    ck_cuda_ok(cudaStreamCreateWithFlags(&l.s, cudaStreamNonBlocking));
    float held, after;
    cudart_test_host_store(l.s, launch_spin, &l, flag, 41, &held, &after);
    ck_cuda_ok(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
    ck_assert_uint_eq(got, 42);
    ck_assert_msg(held > 45.0f, "the kernel was not held: %.3f us", held);
    ck_assert_msg(after > -1.0f && after < 4.0f,
                  "the kernel ended %.3f us after the store", after);
    cudart_test_server_stop(&srv);
}
END_TEST

/* ---- errors: as in-process ----------------------------------------------- */

START_TEST(test_server_kernel_illegal_address_is_sticky)
{
    register_module();
    struct cudart_test_server srv;
    cudart_test_server_start(&srv, MACHINE);
    uint32_t *src, *dst;
    unsigned n = 256, key = 1;
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda_ok(cudaMalloc((void **)&src, n * 4));
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda_ok(cudaMalloc((void **)&dst, n * 4));
    /* no peer access: GPU 1 may not read src */
    void *args[] = { &src, &dst, &n, &key };
    struct capture c;
    capture_start(&c);
    ck_cuda_ok(cudaLaunchKernel(KEY(stub_xor), d3(1, 1, 1), d3(256, 1, 1),
                                args, 0, 0));
    cudaError_t e = cudaDeviceSynchronize();
    const char *text = capture_end(&c);
    ck_cuda(e, cudaErrorIllegalAddress);
    ck_cuda(cudaMalloc((void **)&dst, 4), cudaErrorIllegalAddress);
    ck_assert_msg(strstr(text, "kernel xor_peer failed") &&
                  strstr(text, "illegal address"), "stderr: %s", text);
    cudart_test_server_stop(&srv);
}
END_TEST

START_TEST(test_server_kernel_unsupported_ptx_names_line)
{
    register_module();
    struct cudart_test_server srv;
    cudart_test_server_start(&srv, MACHINE);
    uint32_t *out;
    ck_cuda_ok(cudaMalloc((void **)&out, 4));
    void *args[] = { &out };
    struct capture c;
    capture_start(&c);
    /* an unsupported instruction refuses no launch: the warp reaching
     * it fails the kernel, naming it */
    ck_cuda_ok(cudaLaunchKernel(KEY(stub_texture), d3(1, 1, 1), d3(1, 1, 1),
                                args, 0, 0));
    cudaError_t e = cudaDeviceSynchronize();
    const char *text = capture_end(&c);
    ck_cuda(e, cudaErrorLaunchFailure);
    ck_assert_msg(strstr(text, "uses_texture") && strstr(text, "70") &&
                  strstr(text, "reached"), "stderr: %s", text);
    cudart_test_server_stop(&srv);
}
END_TEST

/* A C kernel is a function of this process: not through a server. */
static void k_nothing(void **args)
{
    (void)args;
}

START_TEST(test_server_c_kernel_not_supported)
{
    struct cudart_test_server srv;
    cudart_test_server_start(&srv, MACHINE);
    const void *k = p2psim_kernel_register("nothing", k_nothing, 0, NULL);
    ck_assert_ptr_nonnull(k);
    struct capture c;
    capture_start(&c);
    cudaError_t e = cudaLaunchKernel(k, d3(1, 1, 1), d3(32, 1, 1), NULL, 0,
                                     0);
    const char *text = capture_end(&c);
    ck_cuda(e, cudaErrorNotSupported);
    ck_assert_msg(strstr(text, "--single-process"), "stderr: %s", text);
    ck_cuda_ok(cudaDeviceSynchronize());
    cudart_test_server_stop(&srv);
}
END_TEST

Suite *make_cudart_server_kernels_suite(void)
{
    Suite *s = suite_create("cudart-server-kernels");
    TCase *tc = tcase_create("Server");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_server_kernel_matches_in_process);
    tcase_add_test(tc, test_server_kernel_managed_follows_residency);
    tcase_add_test(tc, test_server_kernel_spins_on_host_mapped_flag);
    tcase_add_test(tc, test_server_kernel_sees_host_store_at_host_time);
    tcase_add_test(tc, test_server_kernel_illegal_address_is_sticky);
    tcase_add_test(tc, test_server_kernel_unsupported_ptx_names_line);
    tcase_add_test(tc, test_server_c_kernel_not_supported);
    suite_add_tcase(s, tc);
    return s;
}
