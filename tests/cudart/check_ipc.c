/*
 * tests/cudart/check_ipc.c - CUDA IPC (cuda/cudart/ipc.c) and processes
 * sharing one simulated machine through a p2psim server
 * (cuda/cudart/remote.c, tools/cmd_server.c).
 *
 * One-process tests use no server: handle rules and CUDA's error codes,
 * forged handles refused without a crash. Multi-process tests start a
 * server ($P2PSIM server, the tools binary; make check exports P2PSIM) and
 * fork children that set P2PSIM_SERVER before their first CUDA call (the
 * test process itself never calls CUDA in them: a runtime does not
 * survive fork). Children report through pipes and their exit status.
 */
#define _GNU_SOURCE /* memfd_create */
#include <config.h>

#include "tests/cudart/cudart_test.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fdio.h"
#include "cuda/server/wire.h"
#include "sim/error.h"

#define MACHINE "pcie-8gpu-2socket.yaml"
#define LAZY cudaIpcMemLazyEnablePeerAccess
/* Byte offsets inside a handle (cuda/server/wire.h, struct
 * wire_ipc_handle): the exporting pid, the session and the nonce. */
#define HANDLE_PID 8
#define HANDLE_SESSION 16
#define HANDLE_NONCE 40

static uint8_t pattern(size_t i, unsigned salt)
{
    return (uint8_t)(i * 131u + (i >> 11) + salt);
}

/* ---- one process, no server ------------------------------------------------- */

START_TEST(test_ipc_mem_handle_rules)
{
    cudart_test_machine(MACHINE);
    unsetenv("P2PSIM_SERVER");
    void *d, *p = NULL;
    int on_stack = 0;
    cudaIpcMemHandle_t h, h2;
    ck_cuda_ok(cudaMalloc(&d, 1 << 20));
    ck_cuda(cudaIpcGetMemHandle(NULL, d), cudaErrorInvalidValue);
    ck_cuda(cudaIpcGetMemHandle(&h, NULL), cudaErrorInvalidValue);
    ck_cuda(cudaIpcGetMemHandle(&h, (char *)d + 512), cudaErrorInvalidValue);
    ck_cuda(cudaIpcGetMemHandle(&h, &on_stack), cudaErrorInvalidValue);
    ck_cuda_ok(cudaIpcGetMemHandle(&h, d));
    ck_cuda_ok(cudaIpcGetMemHandle(&h2, d));
    ck_assert_msg(!memcmp(&h, &h2, sizeof(h)), "a handle is repeatable");
    /* Opening it in the exporting process: "invalid device context". */
    ck_cuda(cudaIpcOpenMemHandle(&p, h, LAZY), cudaErrorDeviceUninitialized);
    ck_cuda(cudaIpcOpenMemHandle(&p, h, 0), cudaErrorInvalidValue);
    ck_cuda(cudaIpcOpenMemHandle(&p, h, 2), cudaErrorInvalidValue);
    ck_cuda(cudaIpcOpenMemHandle(NULL, h, LAZY), cudaErrorInvalidValue);
    ck_assert_ptr_null(p);
    ck_cuda(cudaIpcCloseMemHandle(d), cudaErrorInvalidValue);
    ck_cuda(cudaIpcCloseMemHandle(NULL), cudaErrorInvalidValue);
    ck_cuda_ok(cudaFree(d));
    ck_cuda(cudaGetLastError(), cudaErrorInvalidValue);
}
END_TEST

/* Handles nobody exported: none is followed, all are refused. */
START_TEST(test_ipc_forged_handles_refused)
{
    cudart_test_machine(MACHINE);
    unsetenv("P2PSIM_SERVER");
    void *d, *p = NULL;
    cudaIpcMemHandle_t real, h;
    ck_cuda_ok(cudaMalloc(&d, 4096));
    ck_cuda_ok(cudaIpcGetMemHandle(&real, d));

    memset(&h, 0, sizeof(h));
    ck_cuda(cudaIpcOpenMemHandle(&p, h, LAZY), cudaErrorInvalidResourceHandle);
    uint32_t x = 12345;
    for (int round = 0; round < 64; round++) {
        for (size_t i = 0; i < sizeof(h.reserved); i++) {
            x = x * 1103515245u + 12345u;
            h.reserved[i] = (char)(x >> 16);
        }
        ck_cuda(cudaIpcOpenMemHandle(&p, h, LAZY),
                cudaErrorInvalidResourceHandle);
    }
    /* The real handle with one bit of its nonce flipped, or its offset:
     * still this process's (its pid), which a real H200 answers with 201
     * before anything else; with the pid changed too, nobody's. */
    for (int bit = 0; bit < 64; bit += 7) {
        h = real;
        h.reserved[HANDLE_NONCE + bit / 8] ^= (char)(1 << (bit % 8));
        ck_cuda(cudaIpcOpenMemHandle(&p, h, LAZY),
                cudaErrorDeviceUninitialized);
        h.reserved[HANDLE_PID] ^= 1;
        ck_cuda(cudaIpcOpenMemHandle(&p, h, LAZY),
                cudaErrorInvalidResourceHandle);
    }
    h = real;
    h.reserved[24] ^= 0x10;
    ck_cuda(cudaIpcOpenMemHandle(&p, h, LAZY), cudaErrorDeviceUninitialized);
    h.reserved[HANDLE_PID] ^= 1;
    ck_cuda(cudaIpcOpenMemHandle(&p, h, LAZY), cudaErrorInvalidResourceHandle);
    /* Another session's (another process's, without a server to share a
     * machine through): not supported here. */
    h = real;
    h.reserved[HANDLE_SESSION] ^= 1;
    ck_cuda(cudaIpcOpenMemHandle(&p, h, LAZY), cudaErrorNotSupported);
    /* An event handle is not a memory handle. */
    cudaEvent_t ev;
    cudaIpcEventHandle_t eh;
    ck_cuda_ok(cudaEventCreateWithFlags(
        &ev, cudaEventInterprocess | cudaEventDisableTiming));
    ck_cuda_ok(cudaIpcGetEventHandle(&eh, ev));
    memcpy(h.reserved, eh.reserved, sizeof(h.reserved));
    ck_cuda(cudaIpcOpenMemHandle(&p, h, LAZY), cudaErrorInvalidResourceHandle);
    ck_assert_ptr_null(p);
    ck_cuda_ok(cudaFree(d));
}
END_TEST

START_TEST(test_ipc_event_handle_rules)
{
    cudart_test_machine(MACHINE);
    unsetenv("P2PSIM_SERVER");
    cudaEvent_t plain, ipc, opened = NULL;
    cudaIpcEventHandle_t h;
    ck_cuda_ok(cudaEventCreate(&plain));
    ck_cuda_ok(cudaEventCreateWithFlags(
        &ipc, cudaEventInterprocess | cudaEventDisableTiming));
    ck_cuda(cudaIpcGetEventHandle(&h, plain), cudaErrorInvalidValue);
    ck_cuda(cudaIpcGetEventHandle(NULL, ipc), cudaErrorInvalidValue);
    ck_cuda(cudaIpcGetEventHandle(&h, (cudaEvent_t)&h),
            cudaErrorInvalidResourceHandle);
    ck_cuda_ok(cudaIpcGetEventHandle(&h, ipc));
    ck_cuda(cudaIpcOpenEventHandle(&opened, h), cudaErrorDeviceUninitialized);
    ck_cuda(cudaIpcOpenEventHandle(NULL, h), cudaErrorInvalidValue);
    cudaIpcEventHandle_t forged = h;
    forged.reserved[HANDLE_NONCE] ^= 0x40;
    ck_cuda(cudaIpcOpenEventHandle(&opened, forged),
            cudaErrorDeviceUninitialized);
    forged.reserved[HANDLE_PID] ^= 1;
    ck_cuda(cudaIpcOpenEventHandle(&opened, forged),
            cudaErrorInvalidResourceHandle);
    memset(&forged, 0x5a, sizeof(forged));
    ck_cuda(cudaIpcOpenEventHandle(&opened, forged),
            cudaErrorInvalidResourceHandle);
    ck_assert_ptr_null(opened);
    /* Without a server it is an ordinary event of this process. */
    void *d, *host = malloc(1 << 20);
    ck_assert_ptr_nonnull(host);
    ck_cuda_ok(cudaMalloc(&d, 1 << 20));
    ck_cuda_ok(cudaMemcpyAsync(d, host, 1 << 20, cudaMemcpyHostToDevice, 0));
    ck_cuda_ok(cudaEventRecord(ipc, 0));
    ck_cuda_ok(cudaEventSynchronize(ipc));
    ck_cuda_ok(cudaEventQuery(ipc));
    ck_cuda_ok(cudaEventDestroy(ipc));
    ck_cuda_ok(cudaEventDestroy(plain));
    ck_cuda_ok(cudaFree(d));
    free(host);
}
END_TEST

/* ---- a server and child processes ------------------------------------------- */

/* A server for MACHINE (tests/cudart/server_test.c). */
static void server_start(struct cudart_test_server *s)
{
    cudart_test_server_start(s, MACHINE);
}

static int server_stop(struct cudart_test_server *s)
{
    return cudart_test_server_stop(s);
}

/* A child process: fn(rfd, wfd, arg) with the pipes to and from us. */
struct child {
    pid_t pid;
    int to, from;               /* our ends */
};

typedef int child_fn(int rfd, int wfd, void *arg);

static void child_start(struct child *c, child_fn *fn, void *arg)
{
    int down[2], up[2];
    ck_assert_int_eq(pipe(down), 0);
    ck_assert_int_eq(pipe(up), 0);
    fflush(stdout);
    fflush(stderr);
    c->pid = fork();
    ck_assert_int_ge(c->pid, 0);
    if (c->pid == 0) {
        close(down[1]);
        close(up[0]);
        int rc = fn(down[0], up[1], arg);
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    close(down[0]);
    close(up[1]);
    c->to = down[1];
    c->from = up[0];
}

static int child_wait(struct child *c)
{
    int status = 0;
    waitpid(c->pid, &status, 0);
    close(c->to);
    close(c->from);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static bool put(int fd, const void *buf, size_t len)
{
    return write(fd, buf, len) == (ssize_t)len;
}

static bool get(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n <= 0) {
            return false;
        }
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* Inside a child: a failed check is an exit status naming the line. */
#define CK(cond)                                                              \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "child %d: %s:%d: %s\n", (int)getpid(),           \
                    __FILE__, __LINE__, #cond);                               \
            return __LINE__ % 200 + 1;                                        \
        }                                                                     \
    } while (0)
#define CK_CUDA(call, want)                                                   \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != (want)) {                                                   \
            fprintf(stderr, "child %d: %s:%d: %s: %s, want %s\n",             \
                    (int)getpid(), __FILE__, __LINE__, #call,                 \
                    cudaGetErrorName(e_), cudaGetErrorName(want));            \
            return __LINE__ % 200 + 1;                                        \
        }                                                                     \
    } while (0)
#define CK_OK(call) CK_CUDA(call, cudaSuccess)

/* ---- memory and an event, exchanged ------------------------------------------ */

#define XCHG_BYTES (1u << 20)

struct offer {
    cudaIpcMemHandle_t mem;
    cudaIpcEventHandle_t event;
};

/*
 * The exporter (GPU0): fills a buffer behind an interprocess event, offers
 * both, waits for the importer's write behind the same event (re-recorded
 * there), reads it back, frees the buffer while the importer still has it
 * open, and checks that the memory is not handed out again before the
 * importer closes it.
 */
static int exporter(int rfd, int wfd, void *arg)
{
    int peer_fd = *(int *)arg;      /* to the importer */
    void *d, *d2, *p = NULL;
    cudaEvent_t ev;
    struct offer o;
    char c;
    CK_OK(cudaSetDevice(0));
    CK_OK(cudaMalloc(&d, XCHG_BYTES));
    CK_OK(cudaEventCreateWithFlags(
        &ev, cudaEventInterprocess | cudaEventDisableTiming));
    /* The first contents, recorded behind the event before it is shared:
     * the importer's stream waits for them. */
    uint8_t *h = malloc(XCHG_BYTES);
    cudaStream_t s;
    CK(h);
    for (size_t i = 0; i < XCHG_BYTES; i++) {
        h[i] = pattern(i, 3);
    }
    CK_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK_OK(cudaMemcpyAsync(d, h, XCHG_BYTES, cudaMemcpyHostToDevice, s));
    CK_OK(cudaEventRecord(ev, s));
    CK_OK(cudaIpcGetMemHandle(&o.mem, d));
    CK_OK(cudaIpcGetEventHandle(&o.event, ev));
    CK_CUDA(cudaIpcOpenMemHandle(&p, o.mem, LAZY),
            cudaErrorDeviceUninitialized);
    cudaIpcMemHandle_t forged = o.mem;
    forged.reserved[HANDLE_NONCE + 3] ^= 0x20;
    CK_CUDA(cudaIpcOpenMemHandle(&p, forged, LAZY),
            cudaErrorDeviceUninitialized);
    forged.reserved[HANDLE_PID] ^= 0x20;
    CK_CUDA(cudaIpcOpenMemHandle(&p, forged, LAZY), cudaErrorInvalidValue);
    forged = o.mem;
    forged.reserved[HANDLE_SESSION] ^= 0x20;
    CK_CUDA(cudaIpcOpenMemHandle(&p, forged, LAZY),
            cudaErrorInvalidResourceHandle);
    cudaEvent_t e2;
    CK_CUDA(cudaIpcOpenEventHandle(&e2, o.event),
            cudaErrorDeviceUninitialized);
    CK(put(peer_fd, &o, sizeof(o)));

    /* "R": the importer's copy and record are queued. */
    CK(get(rfd, &c, 1) && c == 'R');
    memset(h, 0, XCHG_BYTES);
    CK_OK(cudaStreamWaitEvent(s, ev, 0));
    CK_OK(cudaMemcpyAsync(h, d, XCHG_BYTES, cudaMemcpyDeviceToHost, s));
    CK_OK(cudaStreamSynchronize(s));
    CK_OK(cudaEventQuery(ev));
    for (size_t i = 0; i < XCHG_BYTES; i++) {
        CK(h[i] == pattern(i, 5));
    }
    /* Freed here, still open there: its HBM stays taken. */
    CK_OK(cudaFree(d));
    CK_OK(cudaMalloc(&d2, XCHG_BYTES));
    CK(d2 != d);
    CK(put(wfd, "F", 1));
    CK(get(rfd, &c, 1) && c == 'C');
    CK_OK(cudaFree(d2));
    free(h);
    return 0;
}

/* The importer (GPU1): opens both, reads the exporter's contents once its
 * event completes, writes its own behind the event, and after the
 * exporter freed the buffer, still reads its bytes, then finds it stale. */
static int importer(int rfd, int wfd, void *arg)
{
    int peer_fd = *(int *)arg;      /* from the exporter */
    struct offer o;
    void *d = NULL, *again = NULL;
    cudaEvent_t ev;
    char c;
    CK(get(peer_fd, &o, sizeof(o)));
    CK_OK(cudaSetDevice(1));
    CK_OK(cudaIpcOpenMemHandle(&d, o.mem, LAZY));
    CK_OK(cudaIpcOpenMemHandle(&again, o.mem, LAZY));
    CK(again == d);
    CK_OK(cudaIpcCloseMemHandle(again));
    struct cudaPointerAttributes at;
    CK_OK(cudaPointerGetAttributes(&at, d));
    CK(at.type == cudaMemoryTypeDevice && at.device == 0);
    CK_CUDA(cudaFree(d), cudaErrorInvalidValue);
    /* Lazy peer access: GPU1 may now reach GPU0 (CUDA: "as if"
     * cudaDeviceEnablePeerAccess had been called). */
    CK_CUDA(cudaDeviceEnablePeerAccess(0, 0),
            cudaErrorPeerAccessAlreadyEnabled);
    CK_OK(cudaIpcOpenEventHandle(&ev, o.event));

    /* The exporter's first contents, once its event says so. */
    uint8_t *h = calloc(1, XCHG_BYTES);
    cudaStream_t s;
    CK(h);
    CK_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK_OK(cudaStreamWaitEvent(s, ev, 0));
    CK_OK(cudaMemcpyAsync(h, d, XCHG_BYTES, cudaMemcpyDeviceToHost, s));
    CK_OK(cudaStreamSynchronize(s));
    CK_OK(cudaEventSynchronize(ev));
    for (size_t i = 0; i < XCHG_BYTES; i++) {
        CK(h[i] == pattern(i, 3));
        h[i] = pattern(i, 5);
    }
    CK_OK(cudaMemcpyAsync(d, h, XCHG_BYTES, cudaMemcpyHostToDevice, s));
    CK_OK(cudaEventRecord(ev, s));
    /* The copy runs while this process waits outside CUDA. */
    CK(put(wfd, "R", 1));
    CK(get(rfd, &c, 1) && c == 'F');
    memset(h, 0, XCHG_BYTES);
    CK_OK(cudaMemcpy(h, d, XCHG_BYTES, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < XCHG_BYTES; i++) {
        CK(h[i] == pattern(i, 5));
    }
    CK_OK(cudaIpcCloseMemHandle(d));
    CK_CUDA(cudaIpcOpenMemHandle(&d, o.mem, LAZY), cudaErrorInvalidValue);
    CK_OK(cudaStreamDestroy(s));
    CK_OK(cudaEventDestroy(ev));
    free(h);
    CK(put(wfd, "C", 1));
    return 0;
}

START_TEST(test_ipc_two_processes_share_memory_and_event)
{
    struct cudart_test_server srv;
    struct child ex, im;
    int link[2];
    server_start(&srv);
    ck_assert_int_eq(pipe(link), 0);
    child_start(&ex, exporter, &link[1]);
    child_start(&im, importer, &link[0]);
    close(link[0]);
    close(link[1]);
    /* Relay the two processes' messages to each other. */
    char c;
    ck_assert(get(im.from, &c, 1) && c == 'R');
    ck_assert(put(ex.to, &c, 1));
    ck_assert(get(ex.from, &c, 1) && c == 'F');
    ck_assert(put(im.to, &c, 1));
    ck_assert(get(im.from, &c, 1) && c == 'C');
    ck_assert(put(ex.to, &c, 1));
    ck_assert_int_eq(child_wait(&im), 0);
    ck_assert_int_eq(child_wait(&ex), 0);
    server_stop(&srv);
}
END_TEST

/* ---- shared pools ------------------------------------------------------------ */

#define POOL_BYTES (1u << 20)

/* The exporter: a shareable pool on GPU0, an allocation from it filled
 * with 0x5a, the pool's descriptor and the pointer's export data sent to
 * the importer (over the socket in *arg); frees once the importer is done. */
static int pool_exporter(int rfd, int wfd, void *arg)
{
    int sock = *(int *)arg;
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof(props));
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool, plain;
    void *d;
    cudaStream_t s;
    char c;
    CK_OK(cudaSetDevice(0));
    CK_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK_OK(cudaMemPoolCreate(&pool, &props));
    CK_OK(cudaMallocFromPoolAsync(&d, POOL_BYTES, pool, s));
    CK_OK(cudaMemsetAsync(d, 0x5a, POOL_BYTES, s));
    CK_OK(cudaStreamSynchronize(s));
    int fd = -1;
    CK_CUDA(cudaMemPoolExportToShareableHandle(&fd, pool,
                                               cudaMemHandleTypeWin32, 0),
            cudaErrorNotSupported);
    CK_OK(cudaMemPoolExportToShareableHandle(
        &fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
    struct cudaMemPoolPtrExportData data;
    CK_OK(cudaMemPoolExportPointer(&data, d));
    /* a pool made without the handle type cannot be shared */
    props.handleTypes = cudaMemHandleTypeNone;
    CK_OK(cudaMemPoolCreate(&plain, &props));
    int no = -1;
    CK_CUDA(cudaMemPoolExportToShareableHandle(
                &no, plain, cudaMemHandleTypePosixFileDescriptor, 0),
            cudaErrorInvalidValue);
    CK(fdio_write_fd(sock, &data, sizeof(data), fd, NULL) == 0);
    close(fd);
    CK(put(wfd, "E", 1));
    CK(get(rfd, &c, 1) && c == 'D');
    CK_OK(cudaFreeAsync(d, s));
    CK_OK(cudaStreamSynchronize(s));
    CK_OK(cudaMemPoolDestroy(pool));
    return 0;
}

/* The importer (GPU1): imports the pool, sets its access, refuses data
 * that is not the pool's, imports the pointer, reads 0x5a through it,
 * cannot allocate from the imported pool, and frees the import. */
static int pool_importer(int rfd, int wfd, void *arg)
{
    int sock = *(int *)arg;
    struct cudaMemPoolPtrExportData data;
    int fd = -1;
    char c;
    CK(get(rfd, &c, 1) && c == 'E');
    CK(fdio_read_fd(sock, &data, sizeof(data), &fd, NULL) ==
       (ssize_t)sizeof(data));
    CK(fd >= 0);
    CK_OK(cudaSetDevice(1));
    cudaMemPool_t pool;
    CK_OK(cudaMemPoolImportFromShareableHandle(
        &pool, (void *)(intptr_t)fd, cudaMemHandleTypePosixFileDescriptor,
        0));
    close(fd);
    struct cudaMemLocation loc = { cudaMemLocationTypeDevice, 1 };
    enum cudaMemAccessFlags flags;
    CK_OK(cudaMemPoolGetAccess(&flags, pool, &loc));
    CK(flags == cudaMemAccessFlagsProtNone);
    struct cudaMemAccessDesc desc = { loc, cudaMemAccessFlagsProtReadWrite };
    CK_OK(cudaMemPoolSetAccess(pool, &desc, 1));
    void *p = NULL;
    struct cudaMemPoolPtrExportData other = data;
    other.reserved[48] ^= 1;        /* another pool's token */
    CK_CUDA(cudaMemPoolImportPointer(&p, pool, &other), cudaErrorInvalidValue);
    CK_OK(cudaMemPoolImportPointer(&p, pool, &data));
    static uint8_t h[POOL_BYTES];
    CK_OK(cudaMemcpy(h, p, POOL_BYTES, cudaMemcpyDeviceToHost));
    size_t i = 0;
    while (i < POOL_BYTES && h[i] == 0x5a) {
        i++;
    }
    CK(i == POOL_BYTES);
    cudaStream_t s;
    void *q = NULL;
    CK_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK_CUDA(cudaMallocFromPoolAsync(&q, 4096, pool, s), cudaErrorInvalidValue);
    CK_OK(cudaFreeAsync(p, s));
    CK_OK(cudaStreamSynchronize(s));
    CK(put(wfd, "D", 1));
    return 0;
}

START_TEST(test_ipc_shared_pool_across_processes)
{
    struct cudart_test_server srv;
    struct child ex, im;
    int sv[2];
    server_start(&srv);
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    child_start(&ex, pool_exporter, &sv[0]);
    child_start(&im, pool_importer, &sv[1]);
    close(sv[0]);
    close(sv[1]);
    char c;
    ck_assert(get(ex.from, &c, 1) && c == 'E');
    ck_assert(put(im.to, &c, 1));
    ck_assert(get(im.from, &c, 1) && c == 'D');
    ck_assert(put(ex.to, &c, 1));
    ck_assert_int_eq(child_wait(&im), 0);
    ck_assert_int_eq(child_wait(&ex), 0);
    server_stop(&srv);
}
END_TEST

/* ---- one timeline ------------------------------------------------------------ */

#define COPY_BYTES (4u << 20)

/*
 * Copy COPY_BYTES of pinned memory to GPU *arg once we say "go"; report
 * the copy's time (ms, from events) back.
 */
static int timed_copy(int rfd, int wfd, void *arg)
{
    int dev = *(int *)arg;
    void *d, *h;
    cudaStream_t s;
    cudaEvent_t a, b;
    char c;
    CK_OK(cudaSetDevice(dev));
    CK_OK(cudaMalloc(&d, COPY_BYTES));
    CK_OK(cudaMallocHost(&h, COPY_BYTES));
    CK_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK_OK(cudaEventCreate(&a));
    CK_OK(cudaEventCreate(&b));
    CK(put(wfd, "r", 1));
    CK(get(rfd, &c, 1) && c == 'g');
    CK_OK(cudaEventRecord(a, s));
    CK_OK(cudaMemcpyAsync(d, h, COPY_BYTES, cudaMemcpyHostToDevice, s));
    CK_OK(cudaEventRecord(b, s));
    CK_OK(cudaStreamSynchronize(s));
    float ms = 0;
    CK_OK(cudaEventElapsedTime(&ms, a, b));
    CK(put(wfd, &ms, sizeof(ms)));
    CK_OK(cudaFreeHost(h));
    CK_OK(cudaFree(d));
    return 0;
}

/* Run timed_copy in one process per GPU of gpus[n] at once; times out. */
static void copies_at_once(const int *gpus, int n, float *ms)
{
    struct cudart_test_server srv;
    struct child c[2];
    char r;
    /* No process may count as blocked outside CUDA while the others wait
     * at the barrier (remote.c): a long grace period. */
    setenv("P2PSIM_HOST_GRACE_MS", "30000", 1);
    server_start(&srv);
    for (int i = 0; i < n; i++) {
        child_start(&c[i], timed_copy, (void *)&gpus[i]);
    }
    for (int i = 0; i < n; i++) {
        ck_assert(get(c[i].from, &r, 1) && r == 'r');
    }
    for (int i = 0; i < n; i++) {
        ck_assert(put(c[i].to, "g", 1));
    }
    for (int i = 0; i < n; i++) {
        ck_assert(get(c[i].from, &ms[i], sizeof(ms[i])));
        ck_assert_int_eq(child_wait(&c[i]), 0);
    }
    server_stop(&srv);
    unsetenv("P2PSIM_HOST_GRACE_MS");
}

/*
 * GPU0 and GPU1 hang below one PCIe switch (sw0) of pcie-8gpu-2socket, so
 * host-to-device copies to both share its uplink: two processes copying
 * at once each take longer than one alone, and alike.
 */
START_TEST(test_ipc_processes_share_one_timeline)
{
    const int both[2] = { 0, 1 };
    float alone, together[2];
    copies_at_once(both, 1, &alone);
    copies_at_once(both, 2, together);
    ck_assert_msg(alone > 0, "alone: %f ms", (double)alone);
    for (int i = 0; i < 2; i++) {
        ck_assert_msg(together[i] > 1.5f * alone,
                      "GPU%d: %.4f ms together, %.4f ms alone", i,
                      (double)together[i], (double)alone);
    }
    float d = together[0] - together[1];
    ck_assert_msg((d < 0 ? -d : d) < 0.1f * together[0],
                  "%.4f ms and %.4f ms", (double)together[0],
                  (double)together[1]);
}
END_TEST

/* ---- host memory, and machines that differ ----------------------------------- */

/* cudaHostRegister of the program's own memory through a server: its
 * pages are re-backed with shared memory, contents and address kept. */
static int register_own_memory(int rfd, int wfd, void *arg)
{
    (void)rfd;
    (void)wfd;
    (void)arg;
    size_t n = 3 * 4096 + 100;
    uint8_t *buf = malloc(n + 64);
    void *d;
    CK(buf);
    uint8_t *p = buf + 64;          /* not page-aligned */
    for (size_t i = 0; i < n; i++) {
        p[i] = pattern(i, 9);
    }
    buf[0] = 0xab;                  /* a neighbour on the first page */
    CK_OK(cudaHostRegister(p, n, cudaHostRegisterDefault));
    CK(buf[0] == 0xab && p[n - 1] == pattern(n - 1, 9));
    struct cudaPointerAttributes at;
    CK_OK(cudaPointerGetAttributes(&at, p));
    CK(at.type == cudaMemoryTypeHost);
    CK_OK(cudaMalloc(&d, n));
    CK_OK(cudaMemcpy(d, p, n, cudaMemcpyHostToDevice));
    memset(p, 0, n);
    CK_OK(cudaMemcpy(p, d, n, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
        CK(p[i] == pattern(i, 9));
    }
    CK_OK(cudaHostUnregister(p));
    p[0] ^= 1;                      /* still the program's memory */
    CK_OK(cudaFree(d));
    free(buf);
    return 0;
}

/* fn in one child of a server: the server's exit status. */
static int in_one_child(child_fn *fn)
{
    struct cudart_test_server srv;
    struct child c;
    server_start(&srv);
    child_start(&c, fn, NULL);
    ck_assert_int_eq(child_wait(&c), 0);
    return server_stop(&srv);
}

START_TEST(test_ipc_host_register_through_server)
{
    in_one_child(register_own_memory);
}
END_TEST

/*
 * A shared file mapped twice, both mappings registered (NCCL's /dev/shm
 * buffers): one file, so what a copy writes through one mapping is read
 * through the other, by the CPU and by a copy. SHM_PAGES pages, the second
 * mapping from the second page on (the same inode at another offset).
 */
#define SHM_PAGES 3

static int shm_file(const char *tag)
{
    char name[64];
    snprintf(name, sizeof(name), "/p2psim-check-%s-%d", tag, (int)getpid());
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd >= 0 && ftruncate(fd, SHM_PAGES * 4096) < 0) {
        close(fd);
        fd = -1;
    }
    shm_unlink(name);           /* after the test: the mappings keep it */
    return fd;
}

static int register_shared_file_twice(int rfd, int wfd, void *arg)
{
    (void)rfd;
    (void)wfd;
    (void)arg;
    size_t n = SHM_PAGES * 4096, m = n - 4096;
    int fd = shm_file("twice");
    CK(fd >= 0);
    uint8_t *a = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    uint8_t *b = mmap(NULL, m, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4096);
    CK(a != MAP_FAILED && b != MAP_FAILED);
    close(fd);
    a[0] = 0x5a;
    CK_OK(cudaHostRegister(a, n, cudaHostRegisterDefault));
    CK_OK(cudaHostRegister(b + 100, m - 100, cudaHostRegisterDefault));
    CK(a[0] == 0x5a);               /* contents kept */
    uint8_t *h = malloc(n), *back = malloc(m);
    void *d;
    CK(h && back);
    for (size_t i = 0; i < n; i++) {
        h[i] = pattern(i, 3);
    }
    CK_OK(cudaMalloc(&d, n));
    CK_OK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
    /* The machine writes through a; the CPU reads through b. */
    CK_OK(cudaMemcpy(a, d, n, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < m; i++) {
        CK(b[i] == pattern(i + 4096, 3));
    }
    /* The CPU writes through a; the machine reads through b. */
    for (size_t i = 0; i < n; i++) {
        a[i] = pattern(i, 7);
    }
    CK_OK(cudaMemcpy(d, b, m, cudaMemcpyHostToDevice));
    CK_OK(cudaMemcpy(back, d, m, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < m; i++) {
        CK(back[i] == pattern(i + 4096, 7));
    }
    /* The machine writes through b and reads through a. */
    CK_OK(cudaMemset(d, 0xc3, m));
    CK_OK(cudaMemcpy(b, d, m, cudaMemcpyDeviceToHost));
    CK_OK(cudaMemcpy(d, a + 4096, m, cudaMemcpyHostToDevice));
    CK_OK(cudaMemcpy(back, d, m, cudaMemcpyDeviceToHost));
    CK(back[0] == 0xc3 && back[m - 1] == 0xc3 && a[n - 1] == 0xc3);
    CK(a[0] == pattern(0, 7));
    CK_OK(cudaHostUnregister(b + 100));
    CK_OK(cudaHostUnregister(a));
    CK_OK(cudaFree(d));
    munmap(a, n);
    munmap(b, m);
    free(h);
    free(back);
    return 0;
}

START_TEST(test_ipc_host_register_shared_file_twice)
{
    in_one_child(register_shared_file_twice);
}
END_TEST

/* Two processes map one shared file and register it: what one's copy
 * writes, the other's copy reads. arg: the file, open. */
static int shm_writer(int rfd, int wfd, void *arg)
{
    size_t n = SHM_PAGES * 4096;
    uint8_t *a = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED,
                      *(int *)arg, 0);
    uint8_t *h = malloc(n);
    void *d;
    char c;
    CK(a != MAP_FAILED && h);
    CK_OK(cudaHostRegister(a, n, cudaHostRegisterDefault));
    CK(get(rfd, &c, 1) && c == 'R');    /* the reader registered too */
    for (size_t i = 0; i < n; i++) {
        h[i] = pattern(i, 11);
    }
    CK_OK(cudaMalloc(&d, n));
    CK_OK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
    CK_OK(cudaMemcpy(a, d, n, cudaMemcpyDeviceToHost));
    CK(put(wfd, "W", 1));
    CK(get(rfd, &c, 1) && c == 'D');
    CK_OK(cudaHostUnregister(a));
    CK_OK(cudaFree(d));
    return 0;
}

static int shm_reader(int rfd, int wfd, void *arg)
{
    size_t n = SHM_PAGES * 4096;
    uint8_t *b = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED,
                      *(int *)arg, 0);
    uint8_t *back = malloc(n);
    void *d;
    char c;
    CK(b != MAP_FAILED && back);
    CK_OK(cudaSetDevice(1));
    CK_OK(cudaHostRegister(b, n, cudaHostRegisterDefault));
    CK_OK(cudaMalloc(&d, n));
    CK(put(wfd, "R", 1));
    CK(get(rfd, &c, 1) && c == 'W');
    CK_OK(cudaMemcpy(d, b, n, cudaMemcpyHostToDevice));
    CK_OK(cudaMemcpy(back, d, n, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
        CK(back[i] == pattern(i, 11) && b[i] == back[i]);
    }
    CK(put(wfd, "D", 1));
    CK_OK(cudaHostUnregister(b));
    CK_OK(cudaFree(d));
    return 0;
}

START_TEST(test_ipc_host_register_shared_file_two_processes)
{
    struct cudart_test_server srv;
    struct child w, r;
    int fd = shm_file("two");
    ck_assert_int_ge(fd, 0);
    server_start(&srv);
    child_start(&w, shm_writer, &fd);
    child_start(&r, shm_reader, &fd);
    close(fd);
    char c;
    ck_assert(get(r.from, &c, 1) && c == 'R');
    ck_assert(put(w.to, &c, 1));
    ck_assert(get(w.from, &c, 1) && c == 'W');
    ck_assert(put(r.to, &c, 1));
    ck_assert(get(r.from, &c, 1) && c == 'D');
    ck_assert(put(w.to, &c, 1));
    ck_assert_int_eq(child_wait(&r), 0);
    ck_assert_int_eq(child_wait(&w), 0);
    server_stop(&srv);
}
END_TEST

/* A registered shared file that the program truncates: the server's
 * copy reads zeros where its pages were, and the server lives on. */
static int truncate_registered_file(int rfd, int wfd, void *arg)
{
    (void)rfd;
    (void)wfd;
    (void)arg;
    size_t n = SHM_PAGES * 4096;
    int fd = shm_file("trunc");
    CK(fd >= 0);
    uint8_t *a = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    uint8_t *back = malloc(n);
    void *d;
    CK(a != MAP_FAILED && back);
    memset(a, 0x77, n);
    CK_OK(cudaHostRegister(a, n, cudaHostRegisterDefault));
    CK(ftruncate(fd, 4096) == 0);
    CK_OK(cudaMalloc(&d, n));
    CK_OK(cudaMemcpy(d, a, n, cudaMemcpyHostToDevice));
    CK_OK(cudaMemcpy(back, d, n, cudaMemcpyDeviceToHost));
    CK(back[0] == 0x77 && back[4095] == 0x77);
    CK(back[4096] == 0 && back[n - 1] == 0);
    CK_OK(cudaHostUnregister(a));
    CK_OK(cudaFree(d));
    close(fd);
    return 0;
}

START_TEST(test_ipc_host_register_truncated_file)
{
    ck_assert_int_eq(in_one_child(truncate_registered_file), 0); /* lived */
}
END_TEST

static int other_machine(int rfd, int wfd, void *arg)
{
    (void)rfd;
    (void)wfd;
    (void)arg;
    int n = -1;
    cudart_test_machine("h200-x1.yaml");
    CK_CUDA(cudaGetDeviceCount(&n), cudaErrorInitializationError);
    return 0;
}

START_TEST(test_ipc_server_refuses_another_machine)
{
    struct cudart_test_server srv;
    struct child c;
    server_start(&srv);
    child_start(&c, other_machine, NULL);
    ck_assert_int_eq(child_wait(&c), 0);
    server_stop(&srv);
}
END_TEST

/* ---- the server's protocol as untrusted input ------------------------------ */

/* A client that speaks the wire protocol by hand (cuda/server/wire.h). */
static int raw_connect(const struct cudart_test_server *srv)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    size_t len = strlen(srv->path);
    ck_assert_uint_lt(len, sizeof(sa.sun_path));
    memcpy(sa.sun_path, srv->path, len + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    return fd;
}

static void raw_write(int fd, const void *p, size_t n)
{
    ck_assert_int_eq(send(fd, p, n, MSG_NOSIGNAL), (ssize_t)n);
}

static void raw_send(int fd, uint32_t type, const void *m, size_t len)
{
    struct wire_hdr h = { .type = type, .len = (uint32_t)len, .seq = 1 };
    raw_write(fd, &h, sizeof(h));
    if (len) {
        raw_write(fd, m, len);
    }
}

/* The next message's header and payload (at most cap bytes kept); -1: the
 * server closed the connection (or said nothing for 20 s). */
static int raw_read(int fd, struct wire_hdr *h, void *buf, size_t cap)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    if (poll(&p, 1, 20000) != 1) {
        return -1;
    }
    if (recv(fd, h, sizeof(*h), MSG_WAITALL) != (ssize_t)sizeof(*h)) {
        return -1;
    }
    for (uint32_t got = 0; got < h->len;) {
        char tmp[4096];
        size_t want = h->len - got < sizeof(tmp) ? h->len - got : sizeof(tmp);
        ssize_t n = recv(fd, tmp, want, MSG_WAITALL);
        if (n <= 0) {
            return -1;
        }
        if (got < cap) {
            memcpy((char *)buf + got, tmp,
                   cap - got < (size_t)n ? cap - got : (size_t)n);
        }
        got += (uint32_t)n;
    }
    return 0;
}

/* A request and its reply's rc (INT32_MIN: the connection closed). */
static int raw_call(int fd, uint32_t type, const void *m, size_t len,
                    struct wire_reply *r)
{
    struct wire_reply tmp;
    struct wire_hdr h;
    raw_send(fd, type, m, len);
    if (!r) {
        r = &tmp;
    }
    memset(r, 0, sizeof(*r));
    if (raw_read(fd, &h, r, sizeof(*r)) < 0) {
        return INT32_MIN;
    }
    ck_assert_uint_eq(h.type, WIRE_REPLY);
    return r->rc;
}

static bool raw_closed(int fd)
{
    struct wire_hdr h;
    char buf[64];
    return raw_read(fd, &h, buf, sizeof(buf)) < 0;
}

static int raw_hello(const struct cudart_test_server *srv)
{
    int fd = raw_connect(srv);
    struct wire_hello m = { .version = WIRE_VERSION, .pid = 1, .n_gpus = 8 };
    snprintf(m.machine, sizeof(m.machine), "pcie-8gpu-2socket");
    ck_assert_int_eq(raw_call(fd, WIRE_HELLO, &m, sizeof(m), NULL), 0);
    return fd;
}

/* The server still serves a well-behaved client. */
static void assert_server_alive(const struct cudart_test_server *srv)
{
    int fd = raw_hello(srv);
    ck_assert_int_eq(raw_call(fd, WIRE_STATS, NULL, 0, NULL), 0);
    close(fd);
}

/* Messages no client may send: the connection closes, nothing else. */
START_TEST(test_server_malformed_messages_close_the_connection)
{
    struct cudart_test_server srv;
    server_start(&srv);
    struct wire_copy copy = { .len = 1 };
    int fd = raw_connect(&srv);
    raw_send(fd, WIRE_COPY, &copy, sizeof(copy));
    ck_assert_msg(raw_closed(fd), "a request before HELLO");
    close(fd);

    struct wire_hdr big = { .type = WIRE_HBM_WRITE,
                            .len = WIRE_MAX_PAYLOAD + 1 };
    fd = raw_hello(&srv);
    raw_write(fd, &big, sizeof(big));
    ck_assert_msg(raw_closed(fd), "a payload past WIRE_MAX_PAYLOAD");
    close(fd);

    fd = raw_hello(&srv);
    raw_send(fd, 77, NULL, 0);
    ck_assert_msg(raw_closed(fd), "an unknown type");
    close(fd);

    fd = raw_hello(&srv);
    raw_send(fd, WIRE_IDLE, &copy, 3);
    ck_assert_msg(raw_closed(fd), "IDLE of the wrong size");
    close(fd);

    fd = raw_hello(&srv);
    raw_send(fd, WIRE_REPLY, NULL, 0);
    ck_assert_msg(raw_closed(fd), "a server's message");
    close(fd);

    /* A truncated message, then the client leaves. */
    fd = raw_hello(&srv);
    struct wire_hdr half = { .type = WIRE_COPY, .len = sizeof(copy) };
    raw_write(fd, &half, sizeof(half));
    raw_write(fd, &copy, 10);
    close(fd);
    assert_server_alive(&srv);
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* Well-formed requests with values no shim sends: an error reply. */
START_TEST(test_server_bad_values_get_errors)
{
    struct cudart_test_server srv;
    server_start(&srv);
    int fd = raw_hello(&srv);
    /* A link index past 32 bits was cut to one that exists. */
    struct wire_u64 link = { UINT64_C(1) << 32 };
    ck_assert_int_eq(raw_call(fd, WIRE_LINK_STAT, &link, sizeof(link), NULL),
                     -SIM_EINVAL);
    /* A copy longer than its GPU's memory (a staged one allocated per
     * chunk: 1 TiB took 0.1 GB, 10 TB ran out of memory). */
    struct wire_copy huge = {
        .dst = { .kind = 1, .gpu = 0, .addr = 0 },
        .src = { .kind = 0, .gpu = 0, .addr = 0 },
        .len = UINT64_C(1) << 40, .cb = 1,
    };
    ck_assert_int_eq(raw_call(fd, WIRE_COPY, &huge, sizeof(huge), NULL),
                     -SIM_EINVAL);
    huge.dst.addr = UINT64_MAX - 8;
    huge.len = 64;
    ck_assert_int_eq(raw_call(fd, WIRE_COPY, &huge, sizeof(huge), NULL),
                     -SIM_EINVAL);
    /* A grid past CUDA's limits is refused before its module is looked
     * up (ENOENT: there is none). */
    struct {
        struct wire_kernel k;
        char name[8];
    } launch = { { .module = 9, .grid = { 1, 65536, 1 },
                   .block = { 1, 1, 1 }, .name_len = 1 }, "k" };
    ck_assert_int_eq(raw_call(fd, WIRE_KERNEL_LAUNCH, &launch,
                              sizeof(launch), NULL), -SIM_EINVAL);
    launch.k.grid[1] = 65535;
    ck_assert_int_eq(raw_call(fd, WIRE_KERNEL_LAUNCH, &launch,
                              sizeof(launch), NULL), -SIM_ENOENT);
    /* Not a file whose pages the server could map (a pipe). */
    int pfd[2];
    ck_assert_int_eq(pipe(pfd), 0);
    int mfd = pfd[0];
    struct wire_host_register reg = { .offset = 0, .len = 4096 };
    struct wire_hdr h = { .type = WIRE_HOST_REGISTER, .len = sizeof(reg) };
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof(ctl));
    struct iovec iov = { &h, sizeof(h) };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
                          .msg_control = ctl.buf,
                          .msg_controllen = sizeof(ctl.buf) };
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &mfd, sizeof(int));
    ck_assert_int_eq(sendmsg(fd, &msg, MSG_NOSIGNAL), (ssize_t)sizeof(h));
    raw_write(fd, &reg, sizeof(reg));
    struct wire_reply r;
    ck_assert_int_eq(raw_read(fd, &h, &r, sizeof(r)), 0);
    ck_assert_int_eq(r.rc, -SIM_EINVAL);
    close(pfd[0]);
    close(pfd[1]);
    /* A module whose header claims 1 GiB: refused only past the cap, and
     * nothing is allocated before its bytes come. */
    struct {
        struct wire_module m;
        char text[8];
    } mod = { { .id = 1, .total = UINT64_C(1) << 30, .offset = 0 }, "// ptx" };
    ck_assert_int_eq(raw_call(fd, WIRE_MODULE_LOAD, &mod, sizeof(mod), NULL),
                     0);
    mod.m.offset = 1;
    ck_assert_int_eq(raw_call(fd, WIRE_MODULE_LOAD, &mod, sizeof(mod), NULL),
                     -SIM_EINVAL);
    mod.m.id = 2;
    mod.m.offset = 0;
    mod.m.total = (UINT64_C(1) << 30) + 1;
    ck_assert_int_eq(raw_call(fd, WIRE_MODULE_LOAD, &mod, sizeof(mod), NULL),
                     -SIM_EINVAL);
    /* Records that never complete are capped per event. */
    struct wire_reply ex;
    ck_assert_int_eq(raw_call(fd, WIRE_IPC_EVENT_EXPORT,
                              &(struct wire_ipc_event){ 0 },
                              sizeof(struct wire_ipc_event), &ex), 0);
    struct wire_ipc_event ev = { .id = ex.v[0], .nonce = ex.v[1] };
    int rc = 0;
    unsigned n = 0;
    while (n <= 65536 && (rc = raw_call(fd, WIRE_IPC_EVENT_RECORD, &ev,
                                        sizeof(ev), NULL)) == 0) {
        n++;
    }
    ck_assert_int_eq(rc, -SIM_ENOMEM);
    ck_assert_uint_eq(n, 65536);
    close(fd);
    assert_server_alive(&srv);
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/*
 * A client that leaves with a memset and a copy still in flight
 * (../shared/fuzz-found/ipc-1.c): the server frees them when it stops;
 * an ASan build's leak check makes its exit status 23 when it does not.
 */
START_TEST(test_server_client_leaves_with_work_in_flight)
{
    struct cudart_test_server srv;
    server_start(&srv);
    int fd = raw_hello(&srv);
    struct wire_hbm alloc = { .gpu = 0, .len = 1 << 20, .align = 512 };
    struct wire_reply r;
    ck_assert_int_eq(raw_call(fd, WIRE_HBM_ALLOC, &alloc, sizeof(alloc), &r),
                     0);
    struct wire_fill fill = { .gpu = 0, .off = r.v[0], .len = 1 << 20,
                              .cb = 1 };
    ck_assert_int_eq(raw_call(fd, WIRE_FILL, &fill, sizeof(fill), NULL), 0);
    struct wire_copy copy = {
        .dst = { .kind = 1, .gpu = 1, .addr = 0 },
        .src = { .kind = 1, .gpu = 0, .addr = r.v[0] },
        .len = 1 << 20, .cb = 2,
    };
    ck_assert_int_eq(raw_call(fd, WIRE_COPY, &copy, sizeof(copy), NULL), 0);
    struct wire_timer timer = { .at = 1000000000, .cb = 3 };
    ck_assert_int_eq(raw_call(fd, WIRE_TIMER, &timer, sizeof(timer), NULL), 0);
    close(fd);
    assert_server_alive(&srv);
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* A client that stops reading (shutdown SHUT_RD) right after it goes
 * idle: the send of its batch fails, and the server drops it without
 * touching the batch it freed then (a use after free in deliver, seen
 * while writing fuzz_server's harness, whose sends fail the same way). */
START_TEST(test_server_client_stops_reading_its_batch)
{
    struct cudart_test_server srv;
    server_start(&srv);
    for (int i = 0; i < 4; i++) {
        int fd = raw_hello(&srv);
        struct wire_timer timer = { .at = 1000, .cb = 1 };
        ck_assert_int_eq(raw_call(fd, WIRE_TIMER, &timer, sizeof(timer),
                                  NULL), 0);
        struct wire_idle idle = { .limit = UINT64_MAX };
        raw_send(fd, WIRE_IDLE, &idle, sizeof(idle));
        ck_assert_int_eq(shutdown(fd, SHUT_RD), 0);
        assert_server_alive(&srv);
        close(fd);
    }
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

/* A client that stops in the middle of a message holds the others for
 * SRV_IO_TIMEOUT_S (10 s) at most, then is dropped. */
START_TEST(test_server_stalled_client_dropped)
{
    struct cudart_test_server srv;
    server_start(&srv);
    int fd = raw_hello(&srv);
    struct wire_hdr half = { .type = WIRE_STATS };
    raw_write(fd, &half, 8);
    time_t t0 = time(NULL);
    assert_server_alive(&srv);
    ck_assert_int_le(time(NULL) - t0, 15);
    ck_assert(raw_closed(fd));
    close(fd);
    ck_assert_int_eq(server_stop(&srv), 0);
}
END_TEST

Suite *make_cudart_ipc_suite(void)
{
    Suite *s = suite_create("cudart-ipc");
    TCase *tc = tcase_create("Handles");
    tcase_add_test(tc, test_ipc_mem_handle_rules);
    tcase_add_test(tc, test_ipc_forged_handles_refused);
    tcase_add_test(tc, test_ipc_event_handle_rules);
    suite_add_tcase(s, tc);
    tc = tcase_create("Processes");
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_ipc_two_processes_share_memory_and_event);
    tcase_add_test(tc, test_ipc_processes_share_one_timeline);
    tcase_add_test(tc, test_ipc_shared_pool_across_processes);
    tcase_add_test(tc, test_ipc_host_register_through_server);
    tcase_add_test(tc, test_ipc_host_register_shared_file_twice);
    tcase_add_test(tc, test_ipc_host_register_shared_file_two_processes);
    tcase_add_test(tc, test_ipc_host_register_truncated_file);
    tcase_add_test(tc, test_ipc_server_refuses_another_machine);
    suite_add_tcase(s, tc);
    tc = tcase_create("Protocol");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_server_malformed_messages_close_the_connection);
    tcase_add_test(tc, test_server_bad_values_get_errors);
    tcase_add_test(tc, test_server_client_leaves_with_work_in_flight);
    tcase_add_test(tc, test_server_client_stops_reading_its_batch);
    tcase_add_test(tc, test_server_stalled_client_dropped);
    suite_add_tcase(s, tc);
    return s;
}
