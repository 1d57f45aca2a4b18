/*
 * data/hgx-h200-x2/link_idle_probe.cu - does a P2P copy pay for the time
 * the NVLinks were idle before it? (sample_bw_probe.txt: only a process's
 * first P2P measurement runs at 362 GB/s, the others at 392, while
 * tests/programs/bandwidth_latency, which idles the GPUs for tens of
 * milliseconds in its gate before every measurement, gets 362 for every
 * pair.)
 *
 * Peer access is enabled once and the link warmed up. Then, for each
 * idle time, the host sleeps with nothing queued, queues behind a spin
 * kernel a 16-byte copy 0 -> 1 (event after it) and four more (event
 * after them), opens the gate: "first" is the first copy's GPU time,
 * "next" the mean of the four others (us). Three rounds. The idle times
 * (us) are the arguments, or 0 to 100 ms by about threefold steps.
 *
 *   nvcc -O2 -arch=sm_90 -o link_idle_probe link_idle_probe.cu
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

__global__ void spin(volatile int *flag)
{
    while (*flag == 0) {
    }
}

static void sleep_us(long us)
{
    struct timespec t = { us / 1000000, (us % 1000000) * 1000 };
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
    char *buf[2];
    for (int g = 0; g < 2; g++) {
        CK(cudaSetDevice(g));
        CK(cudaMalloc(&buf[g], 1 << 20));
        CK(cudaMemset(buf[g], g, 1 << 20));
        CK(cudaDeviceSynchronize());
    }
    CK(cudaSetDevice(0));
    CK(cudaDeviceEnablePeerAccess(1, 0));
    CK(cudaSetDevice(1));
    CK(cudaDeviceEnablePeerAccess(0, 0));
    CK(cudaSetDevice(0));
    cudaStream_t st;
    cudaEvent_t ev[3];
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (int k = 0; k < 3; k++) {
        CK(cudaEventCreate(&ev[k]));
    }
    for (int w = 0; w < 20; w++) {   /* warm up */
        CK(cudaMemcpyPeerAsync(buf[1], 1, buf[0], 0, 16, st));
    }
    CK(cudaStreamSynchronize(st));
    /* idle times in us: the arguments, or a default ladder */
    long idle_us[32] = { 0, 100, 300, 1000, 3000, 10000, 30000, 100000 };
    int n_idle = 8;
    if (argc > 1) {
        n_idle = 0;
        for (int a = 1; a < argc && n_idle < 32; a++) {
            idle_us[n_idle++] = atol(argv[a]);
        }
    }
    printf("# round idle_us first_us next_us\n");
    for (int round = 1; round <= 3; round++) {
        for (int k = 0; k < n_idle; k++) {
            long idle = idle_us[k];
            sleep_us(idle);
            *flag = 0;
            spin<<<1, 1, 0, st>>>(flag);
            CK(cudaEventRecord(ev[0], st));
            CK(cudaMemcpyPeerAsync(buf[1], 1, buf[0], 0, 16, st));
            CK(cudaEventRecord(ev[1], st));
            for (int i = 0; i < 4; i++) {
                CK(cudaMemcpyPeerAsync(buf[1], 1, buf[0], 0, 16, st));
            }
            CK(cudaEventRecord(ev[2], st));
            *flag = 1;
            CK(cudaStreamSynchronize(st));
            float a = 0, b = 0;
            CK(cudaEventElapsedTime(&a, ev[0], ev[1]));
            CK(cudaEventElapsedTime(&b, ev[1], ev[2]));
            printf("%d %ld %.3f %.3f\n", round, idle, a * 1000.0,
                   b * 1000.0 / 4);
        }
    }
    return 0;
}
