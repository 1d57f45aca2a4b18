// tests/kernels/park_kernels.cu - kernels that spin on a flag until
// someone writes it (tests/kernels/park.sh runs each with parking on and
// off, P2PSIM_PARK, and wants the same output and summary):
//
//   park_kernels host N     a warp polls a host-mapped flag that the host
//                           sets after N event records on another stream
//   park_kernels sleep N    the same with __nanosleep in the loop
//   park_kernels copy N     a device flag written by a copy engine
//                           (cudaMemcpyAsync queued after N records)
//   park_kernels peer N     a flag in GPU 0 written by a GPU 1 kernel
//                           after N loads of its own
//   park_kernels atomic N   the same flag, atomicAdd_system from GPU 1
//   park_kernels warps N    8 warps of a block poll one host flag
//   park_kernels grid N     64 blocks of 8 warps poll a device flag that
//                           the host sets after sleeping N us (usleep)
//   park_kernels timeout N  a clock64 timeout that ends the poll (nobody
//                           writes the flag)
//
// Each prints the kernel's span and what it read (simulated times, so
// they are the same with and without parking), and exits non-zero on a
// wrong value.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <unistd.h>

#include "cuda_ck.h"

__global__ void poll(volatile int *flag, int *out)
{
    int v;
    while ((v = *flag) == 0) {
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v + 1;
}

__global__ void poll_sleep(volatile int *flag, int *out)
{
    int v;
    while ((v = *flag) == 0) {
        __nanosleep(100);
    }
    out[0] = v + 1;
}

__global__ void poll_timeout(volatile int *flag, int *out, long long clocks)
{
    long long start = clock64();
    int v;
    while ((v = *flag) == 0) {
        if (clock64() - start > clocks) {
            break;
        }
    }
    out[0] = v + 1;
}

// n loads of its own (a counting loop: it never parks), then the write
__global__ void writer(volatile int *flag, volatile int *mine, int n,
                       int atomic)
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += *mine;
    }
    if (atomic) {
        atomicAdd_system((int *)flag, 5 + s);
    } else {
        *flag = 7 + s;
    }
}

static cudaEvent_t ev(void)
{
    cudaEvent_t e;
    CK(cudaEventCreate(&e));
    return e;
}

static void records(cudaStream_t s, int n)
{
    cudaEvent_t e = ev();
    for (int i = 0; i < n; i++) {
        CK(cudaEventRecord(e, s));
    }
}

static int report(const char *what, cudaEvent_t a, cudaEvent_t b, int *out,
                  int n, int want)
{
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    int *h = (int *)malloc(n * sizeof(int));
    CK(cudaMemcpy(h, out, n * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        bad += h[i] != want;
    }
    printf("%s: span %.6f ms, read %d%s\n", what, ms, h[0] - 1,
           bad ? " (WRONG)" : "");
    free(h);
    return bad ? 1 : 0;
}

// host, sleep, warps, timeout: a host-mapped flag
static int on_host(const char *m, int n)
{
    int *flag, *out;
    CK(cudaHostAlloc((void **)&flag, 4, cudaHostAllocMapped));
    *(volatile int *)flag = 0;
    int threads = !strcmp(m, "warps") ? 256 : 1;
    CK(cudaMalloc((void **)&out, threads * sizeof(int)));
    cudaStream_t s, other;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    cudaEvent_t a = ev(), b = ev();
    CK(cudaEventRecord(a, s));
    if (!strcmp(m, "sleep")) {
        poll_sleep<<<1, 1, 0, s>>>(flag, out);
    } else if (!strcmp(m, "timeout")) {
        poll_timeout<<<1, 1, 0, s>>>(flag, out, 100000);
    } else {
        poll<<<1, threads, 0, s>>>(flag, out);
    }
    CK(cudaEventRecord(b, s));
    records(other, n);
    if (strcmp(m, "timeout")) {
        *(volatile int *)flag = 3;
    }
    CK(cudaStreamSynchronize(s));
    int r = report(m, a, b, out, threads, strcmp(m, "timeout") ? 4 : 1);
    *(volatile int *)flag = 3;
    CK(cudaDeviceSynchronize());
    return r;
}

static int on_grid(int n)
{
    int *flag, *out, three = 3;
    CK(cudaMalloc((void **)&flag, 4));
    CK(cudaMalloc((void **)&out, 64 * 256 * sizeof(int)));
    CK(cudaMemset(flag, 0, 4));
    CK(cudaDeviceSynchronize());
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t a = ev(), b = ev();
    CK(cudaEventRecord(a, s));
    poll<<<64, 256, 0, s>>>(flag, out);
    CK(cudaEventRecord(b, s));
    usleep(n);
    CK(cudaMemcpy(flag, &three, 4, cudaMemcpyHostToDevice));
    CK(cudaStreamSynchronize(s));
    return report("grid", a, b, out, 64 * 256, 4);
}

static int on_copy(int n)
{
    int *flag, *out, *three;
    CK(cudaMalloc((void **)&flag, 4));
    CK(cudaMalloc((void **)&out, 4));
    CK(cudaHostAlloc((void **)&three, 4, cudaHostAllocDefault));
    *three = 3;
    CK(cudaMemset(flag, 0, 4));
    CK(cudaDeviceSynchronize());
    cudaStream_t s, other;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    cudaEvent_t a = ev(), b = ev();
    CK(cudaEventRecord(a, s));
    poll<<<1, 1, 0, s>>>(flag, out);
    CK(cudaEventRecord(b, s));
    records(other, n);
    CK(cudaMemcpyAsync(flag, three, 4, cudaMemcpyHostToDevice, other));
    CK(cudaStreamSynchronize(s));
    return report("copy", a, b, out, 1, 4);
}

static int on_peer(int n, int atomic)
{
    int *flag, *out, *mine;
    CK(cudaSetDevice(0));
    CK(cudaMalloc((void **)&flag, 4));
    CK(cudaMalloc((void **)&out, 4));
    CK(cudaMemset(flag, 0, 4));
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(1));
    CK(cudaDeviceEnablePeerAccess(0, 0));
    CK(cudaMalloc((void **)&mine, 4));
    CK(cudaMemset(mine, 0, 4));
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(0));
    cudaEvent_t a = ev(), b = ev();
    CK(cudaEventRecord(a, 0));
    poll<<<1, 1>>>(flag, out);
    CK(cudaEventRecord(b, 0));
    CK(cudaSetDevice(1));
    writer<<<1, 1>>>(flag, mine, n, atomic);
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(0));
    CK(cudaDeviceSynchronize());
    return report(atomic ? "atomic" : "peer", a, b, out, 1, atomic ? 6 : 8);
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "host";
    int n = argc > 2 ? atoi(argv[2]) : 100;
    if (!strcmp(m, "host") || !strcmp(m, "sleep") || !strcmp(m, "warps") ||
        !strcmp(m, "timeout")) {
        return on_host(m, n);
    }
    if (!strcmp(m, "grid")) {
        return on_grid(n);
    }
    if (!strcmp(m, "copy")) {
        return on_copy(n);
    }
    if (!strcmp(m, "peer") || !strcmp(m, "atomic")) {
        return on_peer(n, !strcmp(m, "atomic"));
    }
    fprintf(stderr, "usage: park_kernels host|sleep|copy|peer|atomic|"
            "warps|grid|timeout N\n");
    return 2;
}
