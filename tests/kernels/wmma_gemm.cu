/* wmma_gemm.cu - tensor-core GEMMs as cuda-samples' simple_wmma_gemm
 * writes them, run under p2psim (tests/kernels/wmma.sh): D = alpha * A x B
 * + beta * C, one warp per 16x16 tile of D, fragments loaded from and
 * stored to global memory with the matrices' strides, for f16 -> f32 and
 * u8 -> s32; each element compared with the product computed on the
 * host. Prints "wmma MODE: N wrong: ok" (or "bad"). */
#include <cuda_fp16.h>
#include <mma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

using namespace nvcuda;

enum { M = 64, N = 48, K = 80 }; /* multiples of 16; A row-, B col-major */

template <typename T, typename TC>
__global__ void gemm(const T *a, const T *b, const TC *c, TC *d, TC alpha,
                     TC beta)
{
    int tm = (blockIdx.x * blockDim.x + threadIdx.x) / 32, tn = blockIdx.y;
    if (tm * 16 >= M)
        return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, TC> acc, fc;
    wmma::fill_fragment(acc, (TC)0);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 16 * K + k, K);
        wmma::load_matrix_sync(fb, b + tn * 16 * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::load_matrix_sync(fc, c + tm * 16 * N + tn * 16, N,
                           wmma::mem_row_major);
    for (int i = 0; i < fc.num_elements; i++)
        fc.x[i] = alpha * acc.x[i] + beta * fc.x[i];
    wmma::store_matrix_sync(d + tm * 16 * N + tn * 16, fc, N,
                            wmma::mem_row_major);
}

template <typename T, typename TC>
static int run(const char *mode, T (*in)(int, int), TC alpha, TC beta)
{
    T *ha = (T *)malloc(sizeof(T) * M * K), *hb = (T *)malloc(sizeof(T) * K * N);
    TC *hc = (TC *)malloc(sizeof(TC) * M * N), *hd = (TC *)malloc(sizeof(TC) * M * N);
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            ha[i * K + k] = in(i, k);
    for (int j = 0; j < N; j++)
        for (int k = 0; k < K; k++)
            hb[j * K + k] = in(k + 3, j);
    for (int i = 0; i < M * N; i++)
        hc[i] = (TC)(i % 13) - (TC)6;
    T *da, *db;
    TC *dc, *dd;
    cudaMalloc(&da, sizeof(T) * M * K);
    cudaMalloc(&db, sizeof(T) * K * N);
    cudaMalloc(&dc, sizeof(TC) * M * N);
    cudaMalloc(&dd, sizeof(TC) * M * N);
    cudaMemcpy(da, ha, sizeof(T) * M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb, sizeof(T) * K * N, cudaMemcpyHostToDevice);
    cudaMemcpy(dc, hc, sizeof(TC) * M * N, cudaMemcpyHostToDevice);
    /* two warps per block along M, one block column per tile of N */
    gemm<T, TC><<<dim3(M / 32, N / 16), 64>>>(da, db, dc, dd, alpha, beta);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(hd, dd, sizeof(TC) * M * N, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += (double)(float)ha[i * K + k] * (double)(float)hb[j * K + k];
            double want = (double)alpha * s + (double)beta * (double)hc[i * N + j];
            wrong += (double)hd[i * N + j] != want;
        }
    printf("wmma %s: %d wrong: %s\n", mode, wrong,
           e == cudaSuccess && wrong == 0 ? "ok" : cudaGetErrorString(e));
    return wrong != 0 || e != cudaSuccess;
}

/* Values f16 holds exactly, whose sums f32 holds exactly. */
static half in_f16(int i, int j) { return __float2half((float)((i * 7 + j * 3) % 9 - 4) * 0.25f); }
static unsigned char in_u8(int i, int j) { return (unsigned char)((i * 37 + j * 11) % 256); }

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "f16";
    if (strcmp(mode, "f16") == 0)
        return run<half, float>(mode, in_f16, 2.0f, -0.5f);
    return run<unsigned char, int>(mode, in_u8, 3, -2);
}
