/*
 * tests/programs/thread_per_gpu.c - one host thread per GPU, each driving
 * its own device, in the spirit of the CUDA samples' multi-threaded
 * multi-GPU programs (without kernels: kernels are not simulated yet).
 *
 *   thread_per_gpu [--mib=N]      (N MiB per GPU, default 32)
 *
 * Each thread makes its GPU current, allocates a device buffer and two
 * pinned host buffers, creates its own stream and events, copies host ->
 * device -> host on that stream, times both copies with the events,
 * checks the bytes that came back, and prints its GPU's bandwidth. The
 * threads run at once, so copies of different GPUs share whatever links
 * the machine gives them in common. main joins them and prints "PASSED"
 * when every GPU's bytes came back intact.
 *
 * Built against the CUDA runtime headers only; it runs unchanged on real
 * GPUs. Exit status: 0 passed, 1 failed, 2 waived (no GPU).
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_WAIVED 2

struct worker {
    pthread_t thread;
    int device;
    size_t bytes;
    bool ok;                    /* set by the thread */
};

/* A CUDA call in a worker: on failure, say so and end the thread. */
#define TRY(w, call)                                                          \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            printf("GPU%d: %s:%d: %s: %s\n", (w)->device, __FILE__,          \
                   __LINE__, #call, cudaGetErrorString(e_));                  \
            return NULL;                                                      \
        }                                                                     \
    } while (0)

/* Bytes that depend on the GPU too, so a copy to the wrong GPU shows. */
static unsigned char pattern(int device, size_t i)
{
    uint32_t x = (uint32_t)i * 2654435761u + (uint32_t)device * 40503u;
    return (unsigned char)(x >> 24);
}

static double gbps(size_t bytes, float ms)
{
    return ms > 0 ? (double)bytes / 1e9 / (ms / 1e3) : 0.0;
}

static void *worker_run(void *arg)
{
    struct worker *w = arg;
    unsigned char *in = NULL, *out = NULL;
    void *dev = NULL;
    cudaStream_t stream;
    cudaEvent_t ev[3];
    float h2d_ms = 0, d2h_ms = 0;

    TRY(w, cudaSetDevice(w->device));
    TRY(w, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (int k = 0; k < 3; k++) {
        TRY(w, cudaEventCreate(&ev[k]));
    }
    TRY(w, cudaMalloc(&dev, w->bytes));
    TRY(w, cudaMallocHost((void **)&in, w->bytes));
    TRY(w, cudaMallocHost((void **)&out, w->bytes));
    for (size_t i = 0; i < w->bytes; i++) {
        in[i] = pattern(w->device, i);
    }
    memset(out, 0, w->bytes);

    TRY(w, cudaEventRecord(ev[0], stream));
    TRY(w, cudaMemcpyAsync(dev, in, w->bytes, cudaMemcpyHostToDevice,
                           stream));
    TRY(w, cudaEventRecord(ev[1], stream));
    TRY(w, cudaMemcpyAsync(out, dev, w->bytes, cudaMemcpyDeviceToHost,
                           stream));
    TRY(w, cudaEventRecord(ev[2], stream));
    TRY(w, cudaStreamSynchronize(stream));
    TRY(w, cudaEventElapsedTime(&h2d_ms, ev[0], ev[1]));
    TRY(w, cudaEventElapsedTime(&d2h_ms, ev[1], ev[2]));

    size_t bad = 0;
    for (size_t i = 0; i < w->bytes; i++) {
        bad += out[i] != pattern(w->device, i);
    }
    printf("GPU%d: %zu MiB host->device %.2f GB/s, device->host %.2f GB/s, "
           "%s\n",
           w->device, w->bytes >> 20, gbps(w->bytes, h2d_ms),
           gbps(w->bytes, d2h_ms), bad ? "DIFFERENT" : "bytes intact");

    TRY(w, cudaFreeHost(in));
    TRY(w, cudaFreeHost(out));
    TRY(w, cudaFree(dev));
    for (int k = 0; k < 3; k++) {
        TRY(w, cudaEventDestroy(ev[k]));
    }
    TRY(w, cudaStreamDestroy(stream));
    w->ok = bad == 0;
    return NULL;
}

int main(int argc, char **argv)
{
    size_t mib = 32;
    int n = 0;

    for (int a = 1; a < argc; a++) {
        if (strncmp(argv[a], "--mib=", 6) == 0 && atoi(argv[a] + 6) > 0) {
            mib = (size_t)atoi(argv[a] + 6);
        } else {
            fprintf(stderr, "usage: thread_per_gpu [--mib=N]\n");
            return EXIT_FAILURE;
        }
    }
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("no CUDA device (%s): waived\n", cudaGetErrorString(e));
        return EXIT_WAIVED;
    }
    printf("%d GPUs, one host thread each\n", n);

    struct worker *w = calloc((size_t)n, sizeof(*w));
    if (!w) {
        return EXIT_FAILURE;
    }
    int started = 0;
    for (int d = 0; d < n; d++) {
        w[d].device = d;
        w[d].bytes = mib << 20;
        if (pthread_create(&w[d].thread, NULL, worker_run, &w[d]) != 0) {
            printf("cannot start the thread of GPU%d\n", d);
            break;
        }
        started++;
    }
    bool ok = started == n;
    for (int d = 0; d < started; d++) {
        pthread_join(w[d].thread, NULL);
        ok = ok && w[d].ok;
    }
    free(w);
    printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
