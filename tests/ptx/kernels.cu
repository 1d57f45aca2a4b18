/* Kernels whose nvcc PTX the interpreter tests run (tests/ptx/). */
#include <cuda/atomic>

extern "C" __global__ void saxpy(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

/* Divergence and loops: lane i sums 0..i (i iterations), odd lanes
 * leave early. */
extern "C" __global__ void diverge(int *out)
{
    int t = threadIdx.x;
    if (t % 4 == 3)
        return;
    int s = 0;
    for (int k = 0; k <= t; k++)
        s += k * (t & 1 ? 2 : 1);
    out[t] = s;
}

/* Warp reduction by shuffles, then one atomic per warp. */
extern "C" __global__ void reduce(const int *in, unsigned long long *sum,
                                  int *ballot)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_down_sync(0xffffffffu, v, o);
    unsigned b = __ballot_sync(0xffffffffu, v > 100);
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(sum, (unsigned long long)v);
        ballot[blockIdx.x] = (int)b;
    }
}

/* Shared memory, barrier, vectors, system atomics and fences. */
extern "C" __global__ void block_rev(int4 *out, const int4 *in, int *ctr,
                                     float *fsum, double *dsum)
{
    __shared__ int4 tile[64];
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t];
    __threadfence_system();
    atomicAdd_system(ctr, 1);
    atomicAdd(fsum, 0.5f);
    atomicAdd(dsum, 0.25);
    atomicMax(ctr + 1, t);
    atomicCAS(ctr + 2, t, t + 100);
    atomicExch(ctr + 3, 7);
}

/* Flag handshake with libcu++ system-scope atomics. */
extern "C" __global__ void flag(int *data, int *flag, int *seen)
{
    cuda::atomic_ref<int, cuda::thread_scope_system> f(*flag);
    if (threadIdx.x == 0) {
        data[0] = 42;
        f.store(1, cuda::memory_order_release);
    }
    while (f.load(cuda::memory_order_acquire) == 0) {
    }
    seen[threadIdx.x] = *(volatile int *)data + (int)(clock64() > 0);
}

/* Conversions and f64 math. */
extern "C" __global__ void convert(const double *in, float *f, int *i,
                                   unsigned short *h, long long *l)
{
    int t = threadIdx.x;
    double d = in[t];
    f[t] = (float)(d * 1.5 + 0.25) / 3.0f;
    i[t] = (int)d - (t >> 1) % 3;
    h[t] = (unsigned short)(i[t] * 3000);
    l[t] = (long long)d * -1000000007LL / (t + 1);
}
