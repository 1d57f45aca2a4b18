// cdp_kernels.cu - dynamic parallelism as nvcc 13 compiles it (-rdc=true,
// libcudadevrt, CDP2): kernels launched by kernels into the block's NULL
// stream, a stream the block creates, cudaStreamFireAndForget and
// cudaStreamTailLaunch; a struct argument; recursion and the nesting limit.
// Prints "cdp: N wrong: ok" when every check holds (exit status 0).
#include <cstdio>
#include <cuda_runtime.h>

struct arg3 {
    int a;
    double b;
    char c[3];
};

// Out slots per parent block.
enum { A_DONE, B_SAW, S1_DONE, S2_SAW, FF_DONE, TAIL_SAW, STRUCT_OK,
       DEPTH_ERR, SLOTS };

__device__ void delay(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

// Writes v into *p after a delay: a child that finishes late.
__global__ void late_write(int *p, int v)
{
    delay(40000);
    *(volatile int *)p = v;
}

// Writes *src + 1 into *dst: it sees late_write's value only if it runs
// after it.
__global__ void read_after(const int *src, int *dst)
{
    *dst = *(volatile const int *)src + 1;
}

__global__ void check_struct(arg3 s, int *ok)
{
    *ok = s.a == 7 && s.b == 2.5 && s.c[0] == 'x' && s.c[2] == 'z';
}

// Counts its depth; the launch past the nesting limit records its error.
__global__ void recurse(int depth, int *count, int *err)
{
    atomicAdd(count, 1);
    if (depth < 30) {
        recurse<<<1, 1>>>(depth + 1, count, err);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) {
            atomicCAS(err, 0, (int)e);
        }
    }
}

__global__ void parent(int *out, int *count)
{
    int *o = out + blockIdx.x * SLOTS;
    if (threadIdx.x != 0) {
        return;
    }
    // the block's NULL stream: in order
    late_write<<<1, 1>>>(&o[A_DONE], 5);
    read_after<<<1, 1>>>(&o[A_DONE], &o[B_SAW]);
    // a stream of the block: in order too
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    late_write<<<2, 32, 0, s>>>(&o[S1_DONE], 9);
    read_after<<<1, 1, 0, s>>>(&o[S1_DONE], &o[S2_SAW]);
    cudaStreamDestroy(s);
    // fire-and-forget, then a tail launch that runs after all of it
    late_write<<<1, 1, 0, cudaStreamFireAndForget>>>(&o[FF_DONE], 7);
    read_after<<<1, 1, 0, cudaStreamTailLaunch>>>(&o[FF_DONE], &o[TAIL_SAW]);
    arg3 a = { 7, 2.5, { 'x', 'y', 'z' } };
    check_struct<<<1, 1>>>(a, &o[STRUCT_OK]);
    if (blockIdx.x == 0) {
        recurse<<<1, 1>>>(1, count, &o[DEPTH_ERR]);
    }
}

int main()
{
    const int blocks = 3;
    int *out, *count;
    cudaMalloc(&out, blocks * SLOTS * sizeof(int));
    cudaMalloc(&count, sizeof(int));
    cudaMemset(out, 0, blocks * SLOTS * sizeof(int));
    cudaMemset(count, 0, sizeof(int));
    parent<<<blocks, 32>>>(out, count);
    cudaError_t e = cudaDeviceSynchronize();
    int h[blocks * SLOTS], n = 0;
    cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
    cudaMemcpy(&n, count, sizeof(n), cudaMemcpyDeviceToHost);
    int wrong = e != cudaSuccess;
    if (e != cudaSuccess) {
        printf("cdp: %s\n", cudaGetErrorString(e));
    }
    const int want[SLOTS] = { 5, 6, 9, 10, 7, 8, 1, 0 };
    for (int b = 0; b < blocks; b++) {
        for (int i = 0; i < SLOTS; i++) {
            int w = i == DEPTH_ERR && b == 0 ? (int)cudaErrorLaunchMaxDepthExceeded
                                             : want[i];
            if (h[b * SLOTS + i] != w) {
                printf("cdp: block %d slot %d: %d, want %d\n", b, i,
                       h[b * SLOTS + i], w);
                wrong++;
            }
        }
    }
    // depths 1..24 run (the host's grid is depth 0): 24 grids
    if (n != 24) {
        printf("cdp: %d nested grids ran, want 24\n", n);
        wrong++;
    }
    printf("cdp: %d wrong%s\n", wrong, wrong ? "" : ": ok");
    return wrong != 0;
}
