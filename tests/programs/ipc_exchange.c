/*
 * tests/programs/ipc_exchange.c - two processes exchange device memory
 * and an event through CUDA IPC, in the spirit of the CUDA sample
 * simpleIPC (shared/reference/cuda-api.md §1.2, §2.5), without kernels.
 *
 * The parent allocates a buffer on GPU a, creates an interprocess event
 * (cudaEventInterprocess | cudaEventDisableTiming), and sends both
 * handles, with the GPU the child should use, down a pipe to a child it
 * forks and execs (this same program, with "child R W" as arguments, as
 * simpleIPC does). The child makes GPU b current (b != a, with peer
 * access to a if any GPU has it), opens the memory with
 * cudaIpcMemLazyEnablePeerAccess and the event, writes a pattern into the
 * parent's buffer with cudaMemcpyAsync on its own stream, records the
 * event behind the copy, and tells the parent "recorded". The parent's
 * stream waits for the event (cudaStreamWaitEvent), copies the buffer
 * back and compares every byte; only then does it tell the child it may
 * close the memory and exit. While one process waits on the pipe, the
 * other's copies run: both processes share one simulated machine, which
 * `p2psim run` provides (a p2psim server).
 *
 * It also checks the error paths a real runtime has: opening a handle in
 * the process that exported it (cudaErrorDeviceUninitialized), a forged
 * handle opened by its exporter (a flipped nonce byte: still
 * cudaErrorDeviceUninitialized on a real H200, driver 580), flags
 * other than cudaIpcMemLazyEnablePeerAccess (cudaErrorInvalidValue),
 * cudaFree of an opened handle's memory (cudaErrorInvalidValue), and, at
 * the end, once the child has closed it, a handle of memory the parent
 * has freed (the child tries it: cudaErrorInvalidValue on a real H200,
 * driver 580).
 *
 *   ipc_exchange [--mib=N]      (N MiB, default 4)
 *
 * Prints "PASSED" and exits 0; 1 on a failure; 2 (waived) with fewer than
 * two GPUs. Built against the CUDA runtime headers only.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_WAIVED 2

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s: %s:%d: %s: %s (%s)\n", role, __FILE__,       \
                    __LINE__, #call, cudaGetErrorString(e_),                  \
                    cudaGetErrorName(e_));                                    \
            exit(EXIT_FAILURE);                                               \
        }                                                                     \
    } while (0)

/* cudaGetLastError is cleared after an expected failure (CUDA keeps it). */
#define EXPECT(call, want)                                                    \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != (want)) {                                                   \
            fprintf(stderr, "%s: %s: got %s, expected %s\n", role, #call,     \
                    cudaGetErrorName(e_), cudaGetErrorName(want));            \
            exit(EXIT_FAILURE);                                               \
        }                                                                     \
        (void)cudaGetLastError();                                             \
    } while (0)

static const char *role = "parent";

/* What the parent sends the child. */
struct offer {
    cudaIpcMemHandle_t mem;
    cudaIpcEventHandle_t event;
    cudaIpcMemHandle_t stale;   /* a handle of freed memory, sent later */
    int device;                 /* for the child */
    size_t bytes;
};

static uint8_t pattern(size_t i)
{
    return (uint8_t)(i * 31u + (i >> 9) + 7u);
}

static void xwrite(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n <= 0) {
            perror(role);
            exit(EXIT_FAILURE);
        }
        p += n;
        len -= (size_t)n;
    }
}

static void xread(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n <= 0) {
            fprintf(stderr, "%s: the other process is gone\n", role);
            exit(EXIT_FAILURE);
        }
        p += n;
        len -= (size_t)n;
    }
}

/* ---- the child -------------------------------------------------------------- */

static int child(int rfd, int wfd)
{
    struct offer o;
    role = "child";
    xread(rfd, &o, sizeof(o));
    CHECK(cudaSetDevice(o.device));

    void *d = NULL;
    cudaEvent_t ev;
    CHECK(cudaIpcOpenMemHandle(&d, o.mem, cudaIpcMemLazyEnablePeerAccess));
    void *again = NULL;
    CHECK(cudaIpcOpenMemHandle(&again, o.mem, cudaIpcMemLazyEnablePeerAccess));
    if (again != d) {
        fprintf(stderr, "child: opening twice gave %p and %p\n", d, again);
        return EXIT_FAILURE;
    }
    CHECK(cudaIpcCloseMemHandle(again));
    EXPECT(cudaFree(d), cudaErrorInvalidValue);
    CHECK(cudaIpcOpenEventHandle(&ev, o.event));

    uint8_t *h = malloc(o.bytes);
    if (!h) {
        return EXIT_FAILURE;
    }
    for (size_t i = 0; i < o.bytes; i++) {
        h[i] = pattern(i);
    }
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMemcpyAsync(d, h, o.bytes, cudaMemcpyHostToDevice, s));
    CHECK(cudaEventRecord(ev, s));
    printf("child: GPU%d wrote %zu bytes into the parent's buffer, event "
           "recorded\n", o.device, o.bytes);
    fflush(stdout);
    xwrite(wfd, "R", 1);

    /* The parent has read the buffer: close it, then the parent frees it
     * and sends its handle again, now stale. */
    char c;
    xread(rfd, &c, 1);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaIpcCloseMemHandle(d));
    EXPECT(cudaIpcCloseMemHandle(d), cudaErrorInvalidValue);
    xwrite(wfd, "C", 1);
    xread(rfd, &o.stale, sizeof(o.stale));
    void *gone = NULL;
    EXPECT(cudaIpcOpenMemHandle(&gone, o.stale,
                                cudaIpcMemLazyEnablePeerAccess),
           cudaErrorInvalidValue);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaEventDestroy(ev));
    free(h);
    xwrite(wfd, "D", 1);
    return 0;
}

/* ---- the parent ------------------------------------------------------------- */

/* GPU b for the child: a peer of a if there is one, else any other. */
static int other_gpu(int n, int a)
{
    for (int b = 0; b < n; b++) {
        int can = 0;
        if (b != a && cudaDeviceCanAccessPeer(&can, b, a) == cudaSuccess &&
            can) {
            return b;
        }
    }
    return a == 0 ? 1 : 0;
}

static pid_t spawn(const char *self, int *to_child, int *from_child)
{
    int down[2], up[2];
    if (pipe(down) < 0 || pipe(up) < 0) {
        perror("parent: pipe");
        exit(EXIT_FAILURE);
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char r[16], w[16];
        close(down[1]);
        close(up[0]);
        snprintf(r, sizeof(r), "%d", down[0]);
        snprintf(w, sizeof(w), "%d", up[1]);
        execl(self, self, "child", r, w, (char *)NULL);
        perror("child: exec");
        _exit(127);
    }
    if (pid < 0) {
        perror("parent: fork");
        exit(EXIT_FAILURE);
    }
    close(down[0]);
    close(up[1]);
    *to_child = down[1];
    *from_child = up[0];
    return pid;
}

static int parent(size_t bytes)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n < 2) {
        printf("two GPUs needed (%s, %d found): waived\n",
               cudaGetErrorName(e), n);
        return EXIT_WAIVED;
    }
    struct offer o;
    memset(&o, 0, sizeof(o));
    o.bytes = bytes;
    o.device = other_gpu(n, 0);
    CHECK(cudaSetDevice(0));

    void *d;
    cudaEvent_t ev;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMemset(d, 0, bytes));
    CHECK(cudaEventCreateWithFlags(
        &ev, cudaEventInterprocess | cudaEventDisableTiming));
    CHECK(cudaIpcGetMemHandle(&o.mem, d));
    CHECK(cudaIpcGetEventHandle(&o.event, ev));

    /* Our own handle, and a forged one, are refused here. */
    void *p = NULL;
    EXPECT(cudaIpcOpenMemHandle(&p, o.mem, cudaIpcMemLazyEnablePeerAccess),
           cudaErrorDeviceUninitialized);
    cudaIpcMemHandle_t forged = o.mem;
    forged.reserved[40] ^= 0x5a;    /* inside the nonce */
    EXPECT(cudaIpcOpenMemHandle(&p, forged, cudaIpcMemLazyEnablePeerAccess),
           cudaErrorDeviceUninitialized);
    EXPECT(cudaIpcOpenMemHandle(&p, o.mem, 0), cudaErrorInvalidValue);

    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0) {
        perror("parent: /proc/self/exe");
        return EXIT_FAILURE;
    }
    self[len] = '\0';
    int to_child, from_child;
    pid_t pid = spawn(self, &to_child, &from_child);
    printf("parent: GPU0 buffer of %zu bytes and an event offered to the "
           "child on GPU%d\n", bytes, o.device);
    fflush(stdout);
    xwrite(to_child, &o, sizeof(o));

    char c;
    xread(from_child, &c, 1);
    cudaStream_t s;
    uint8_t *h = calloc(1, bytes);
    if (!h) {
        return EXIT_FAILURE;
    }
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamWaitEvent(s, ev, 0));
    CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaEventSynchronize(ev));
    CHECK(cudaEventQuery(ev));
    size_t bad = 0;
    for (size_t i = 0; i < bytes; i++) {
        if (h[i] != pattern(i) && bad++ < 8) {
            fprintf(stderr, "parent: byte %zu is %u, expected %u\n", i, h[i],
                    pattern(i));
        }
    }
    printf("parent: %zu bytes read back through GPU0, %zu differ\n", bytes,
           bad);

    /* Once the child has closed it, free the buffer: the child must find
     * its handle stale. */
    xwrite(to_child, "V", 1);
    xread(from_child, &c, 1);
    CHECK(cudaFree(d));
    xwrite(to_child, &o.mem, sizeof(o.mem));
    xread(from_child, &c, 1);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaEventDestroy(ev));
    free(h);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "parent: the child failed\n");
        return EXIT_FAILURE;
    }
    printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad ? EXIT_FAILURE : 0;
}

int main(int argc, char **argv)
{
    size_t mib = 4;
    if (argc == 4 && strcmp(argv[1], "child") == 0) {
        return child(atoi(argv[2]), atoi(argv[3]));
    }
    for (int a = 1; a < argc; a++) {
        if (strncmp(argv[a], "--mib=", 6) == 0 && atoi(argv[a] + 6) > 0) {
            mib = (size_t)atoi(argv[a] + 6);
        } else {
            fprintf(stderr, "usage: ipc_exchange [--mib=N]\n");
            return EXIT_FAILURE;
        }
    }
    return parent(mib << 20);
}
