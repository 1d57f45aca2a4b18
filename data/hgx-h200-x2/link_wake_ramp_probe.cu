/*
 * data/hgx-h200-x2/link_wake_ramp_probe.cu - what a large copy loses to
 * the NVLinks' wake besides the wake itself (link_idle_probe.txt: 16-byte
 * copies 109-115 us; peer_enable_probe.txt: a first 4 MiB copy 156-190
 * us). After the links have slept (100 ms idle) or not (no idle), 24
 * copies of the same size queue behind a spin kernel with an event after
 * each: the copies' times, in order, show how the rate comes back after
 * the wake. Sizes 1 MiB and 8 MiB, three rounds each. With arguments,
 * the idle times (ms) are those instead of 0 and 100.
 *
 *   nvcc -O2 -arch=sm_90 -o link_wake_ramp_probe link_wake_ramp_probe.cu
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <time.h>

#define CK(x)                                                                \
    do {                                                                     \
        cudaError_t e_ = (x);                                                \
        if (e_ != cudaSuccess) {                                             \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));        \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define N_COPIES 24

__global__ void spin(volatile int *flag)
{
    while (*flag == 0) {
    }
}

static void sleep_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
    int n_dev = 0;
    CK(cudaGetDeviceCount(&n_dev));
    if (n_dev < 2) {
        printf("# needs two GPUs\n");
        return 0;
    }
    int *f;
    CK(cudaHostAlloc(&f, sizeof(int), cudaHostAllocMapped |
                                          cudaHostAllocPortable));
    volatile int *flag = f;
    const size_t max = (size_t)8 << 20;
    char *buf[2];
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaMalloc(&buf[g], max));
        CK(cudaMemset(buf[g], g, max));
        CK(cudaDeviceSynchronize());
    }
    CK(cudaSetDevice(0));
    CK(cudaDeviceEnablePeerAccess(1, 0));
    CK(cudaSetDevice(1));
    CK(cudaDeviceEnablePeerAccess(0, 0));
    CK(cudaSetDevice(0));
    cudaStream_t st;
    cudaEvent_t ev[N_COPIES + 1];
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (int k = 0; k <= N_COPIES; k++) {
        CK(cudaEventCreate(&ev[k]));
    }
    for (int w = 0; w < 10; w++) {      /* warm up */
        CK(cudaMemcpyPeerAsync(buf[1], 1, buf[0], 0, max, st));
    }
    CK(cudaStreamSynchronize(st));
    const size_t sizes[] = { (size_t)1 << 20, (size_t)8 << 20 };
    long idles[16] = { 0, 100 };
    int n_idle = 2;
    if (argc > 1) {
        n_idle = 0;
        for (int a = 1; a < argc && n_idle < 16; a++) {
            idles[n_idle++] = atol(argv[a]);
        }
    }
    printf("# size idle_ms round: us per copy, in order\n");
    for (size_t sz : sizes) {
        for (int round = 1; round <= 3; round++) {
            for (int k = 0; k < n_idle; k++) {
                long idle = idles[k];
                sleep_ms(idle);
                *flag = 0;
                spin<<<1, 1, 0, st>>>(flag);
                CK(cudaEventRecord(ev[0], st));
                for (int i = 0; i < N_COPIES; i++) {
                    CK(cudaMemcpyPeerAsync(buf[1], 1, buf[0], 0, sz, st));
                    CK(cudaEventRecord(ev[i + 1], st));
                }
                *flag = 1;
                CK(cudaStreamSynchronize(st));
                printf("%zu %ld %d:", sz, idle, round);
                for (int i = 0; i < N_COPIES; i++) {
                    float ms = 0;
                    CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
                    printf(" %.1f", ms * 1000.0);
                }
                printf("\n");
            }
        }
    }
    return 0;
}
