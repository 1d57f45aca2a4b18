/*
 * tests/programs/peer_copy.c - a peer-to-peer copy between two GPUs with
 * verification, in the spirit of the CUDA sample simpleP2P but without its
 * kernels (kernels are not simulated yet; shared/reference/cuda-api.md
 * §1.8 says what the sample does).
 *
 * It takes the first ordered pair (a, b), a < b, whose
 * cudaDeviceCanAccessPeer is 1 both ways, enables peer access both ways,
 * allocates 64 MiB on each GPU and 64 MiB of pinned host memory, and
 *
 *  1. times 100 synchronous cudaMemcpy(cudaMemcpyDefault) ping-pong copies
 *     between the two buffers with events on the legacy stream, and prints
 *     "cudaMemcpyPeer / cudaMemcpy between GPU<a> and GPU<b>: <x>GB/s"
 *     (GB = 1024^3 bytes, as the sample computes it);
 *  2. verifies: fills the host buffer, copies it to GPU a, peer-copies it
 *     to GPU b (cudaMemcpyPeer), clears the host buffer, copies GPU b's
 *     buffer back, compares byte for byte, and prints "Test passed" or
 *     "Test failed!" with the first mismatches.
 *
 *   peer_copy [--mib=N]      (N MiB per buffer instead of the sample's 64)
 *
 * Exit status: 0 passed, 1 failed (or a CUDA call failed), 2 waived (fewer
 * than two GPUs, or no pair with peer access), as the samples do.
 *
 * Built against the CUDA runtime headers only; it runs unchanged on real
 * GPUs.
 */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_WAIVED 2
#define DEFAULT_MIB 64
#define PING_PONGS 100
#define MAX_MISMATCHES_SHOWN 12

/* Bytes per buffer (--mib). */
static size_t buf_bytes = (size_t)DEFAULT_MIB << 20;

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__,       \
                    #call, cudaGetErrorString(e_), cudaGetErrorName(e_));     \
            exit(EXIT_FAILURE);                                               \
        }                                                                     \
    } while (0)

/* The first pair a < b with peer access both ways; false if none. */
static int find_pair(int n, int *a, int *b)
{
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            int ij = 0, ji = 0;
            CHECK(cudaDeviceCanAccessPeer(&ij, i, j));
            CHECK(cudaDeviceCanAccessPeer(&ji, j, i));
            printf("> Peer access from GPU%d -> GPU%d : %s\n", i, j,
                   ij ? "Yes" : "No");
            printf("> Peer access from GPU%d -> GPU%d : %s\n", j, i,
                   ji ? "Yes" : "No");
            if (ij && ji) {
                *a = i;
                *b = j;
                return 1;
            }
        }
    }
    return 0;
}

/* A byte pattern without short periods, so a misplaced chunk shows. */
static unsigned char pattern(size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u;
    return (unsigned char)(x >> 24 ^ i >> 12);
}

static void time_ping_pong(int a, int b, void *ga, void *gb)
{
    cudaEvent_t start, stop;
    float ms = 0;

    CHECK(cudaSetDevice(a));
    CHECK(cudaEventCreateWithFlags(&start, cudaEventBlockingSync));
    CHECK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
    CHECK(cudaEventRecord(start, 0));
    for (int i = 0; i < PING_PONGS; i++) {
        if (i % 2 == 0) {
            CHECK(cudaMemcpy(gb, ga, buf_bytes, cudaMemcpyDefault));
        } else {
            CHECK(cudaMemcpy(ga, gb, buf_bytes, cudaMemcpyDefault));
        }
    }
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("cudaMemcpyPeer / cudaMemcpy between GPU%d and GPU%d: %.2fGB/s\n",
           a, b,
           (1.0 / (ms / 1000.0)) * (PING_PONGS * (double)buf_bytes) /
               1024.0 / 1024.0 / 1024.0);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
}

/* Host -> GPU a -> (peer) GPU b -> host; the number of bytes that differ. */
static size_t verify(int a, int b, void *ga, void *gb, unsigned char *host)
{
    size_t bad = 0;

    for (size_t i = 0; i < buf_bytes; i++) {
        host[i] = pattern(i);
    }
    CHECK(cudaSetDevice(b));
    CHECK(cudaMemset(gb, 0, buf_bytes));
    CHECK(cudaSetDevice(a));
    CHECK(cudaMemcpy(ga, host, buf_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyPeer(gb, b, ga, a, buf_bytes));
    memset(host, 0, buf_bytes);
    CHECK(cudaMemcpy(host, gb, buf_bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < buf_bytes; i++) {
        if (host[i] != pattern(i)) {
            if (bad < MAX_MISMATCHES_SHOWN) {
                printf("Verification error @ byte %zu: got 0x%02x, want "
                       "0x%02x\n",
                       i, host[i], pattern(i));
            }
            bad++;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    int n = 0, a = -1, b = -1;
    void *ga = NULL, *gb = NULL;
    unsigned char *host = NULL;

    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--mib=", 6) == 0 && atoi(argv[i] + 6) > 0) {
            buf_bytes = (size_t)atoi(argv[i] + 6) << 20;
        } else {
            fprintf(stderr, "usage: peer_copy [--mib=N]\n");
            return EXIT_FAILURE;
        }
    }

    printf("[peer_copy] starting...\n");
    CHECK(cudaGetDeviceCount(&n));
    printf("CUDA-capable device count: %d\n", n);
    if (n < 2) {
        printf("Two or more GPUs with Peer-to-Peer access capability are "
               "required, waiving.\n");
        return EXIT_WAIVED;
    }
    if (!find_pair(n, &a, &b)) {
        printf("Two or more GPUs with Peer-to-Peer access capability are "
               "required.\nPeer to Peer access is not available amongst "
               "GPUs in the system, waiving test.\n");
        return EXIT_WAIVED;
    }

    printf("Enabling peer access between GPU%d and GPU%d...\n", a, b);
    CHECK(cudaSetDevice(a));
    CHECK(cudaDeviceEnablePeerAccess(b, 0));
    CHECK(cudaSetDevice(b));
    CHECK(cudaDeviceEnablePeerAccess(a, 0));

    printf("Allocating buffers (%zu MiB on GPU%d, GPU%d and CPU Host)...\n",
           buf_bytes >> 20, a, b);
    CHECK(cudaSetDevice(a));
    CHECK(cudaMalloc(&ga, buf_bytes));
    CHECK(cudaSetDevice(b));
    CHECK(cudaMalloc(&gb, buf_bytes));
    CHECK(cudaHostAlloc((void **)&host, buf_bytes, cudaHostAllocDefault));

    time_ping_pong(a, b, ga, gb);
    size_t bad = verify(a, b, ga, gb, host);

    printf("Disabling peer access...\n");
    CHECK(cudaSetDevice(a));
    CHECK(cudaDeviceDisablePeerAccess(b));
    CHECK(cudaSetDevice(b));
    CHECK(cudaDeviceDisablePeerAccess(a));

    printf("Shutting down...\n");
    CHECK(cudaFreeHost(host));
    CHECK(cudaFree(ga));
    CHECK(cudaFree(gb));
    for (int i = 0; i < n; i++) {
        CHECK(cudaSetDevice(i));
        CHECK(cudaDeviceSynchronize());
    }
    if (bad) {
        printf("%zu of %zu bytes differ\nTest failed!\n", bad, buf_bytes);
        return EXIT_FAILURE;
    }
    printf("Test passed\n");
    return EXIT_SUCCESS;
}
