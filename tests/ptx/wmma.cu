/* Warp matrix kernels whose nvcc PTX (sm_80) tests/ptx/check_ptx_wmma.c
 * runs: one warp computes D = A x B + C of one tile, for each type and
 * layout of the interpreted wmma subset. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

/* FT the fragments' element type, PT the memory's; the accumulators are
 * TC, read and written row- or column-major as ccol and dcol say. */
template <typename FT, typename PT, typename TC, typename LA, typename LB,
          int M, int N, int K>
__device__ void gemm(const PT *a, const PT *b, const TC *c, TC *d, int lda,
                     int ldb, int ldc, int ccol, int dcol)
{
    wmma::fragment<wmma::matrix_a, M, N, K, FT, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, FT, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::load_matrix_sync(fc, c, ldc,
                           ccol ? wmma::mem_col_major : wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, ldc,
                            dcol ? wmma::mem_col_major : wmma::mem_row_major);
}

#define GEMM(name, FT, PT, TC, LA, LB, M, N, K)                              \
    extern "C" __global__ void name(const PT *a, const PT *b, const TC *c,   \
                                    TC *d, int lda, int ldb, int ldc,        \
                                    int ccol, int dcol)                      \
    {                                                                        \
        gemm<FT, PT, TC, wmma::LA, wmma::LB, M, N, K>(a, b, c, d, lda, ldb,  \
                                                      ldc, ccol, dcol);      \
    }

GEMM(h_rr, half, half, float, row_major, row_major, 16, 16, 16)
GEMM(h_rc, half, half, float, row_major, col_major, 16, 16, 16)
GEMM(h_cr, half, half, float, col_major, row_major, 16, 16, 16)
GEMM(h_cc, half, half, float, col_major, col_major, 16, 16, 16)
GEMM(hh_rc, half, half, half, row_major, col_major, 16, 16, 16)
GEMM(h32_rc, half, half, float, row_major, col_major, 32, 8, 16)
GEMM(h8_cr, half, half, float, col_major, row_major, 8, 32, 16)
GEMM(u8_rc, unsigned char, unsigned char, int, row_major, col_major, 16, 16,
     16)
GEMM(s8_cr, signed char, signed char, int, col_major, row_major, 16, 16, 16)
GEMM(bf_rc, __nv_bfloat16, __nv_bfloat16, float, row_major, col_major, 16,
     16, 16)
GEMM(tf_rc, wmma::precision::tf32, float, float, row_major, col_major, 16, 16,
     8)
GEMM(tf_cr, wmma::precision::tf32, float, float, col_major, row_major, 16, 16,
     8)
GEMM(d_rc, double, double, double, row_major, col_major, 8, 8, 4)
GEMM(d_cr, double, double, double, col_major, row_major, 8, 8, 4)

/* The same as h_rc and u8_rc through shared memory, as the cuda-samples
 * do: the tiles copied in, the result copied out. */
template <typename T, typename TC>
__device__ void gemm_shared(const T *a, const T *b, const TC *c, TC *d)
{
    __shared__ T sa[16 * 16], sb[16 * 16];
    __shared__ TC sc[16 * 16];
    for (int i = threadIdx.x; i < 256; i += 32) {
        sa[i] = a[i];
        sb[i] = b[i];
        sc[i] = c[i];
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, TC> fc;
    wmma::load_matrix_sync(fa, sa, 16);
    wmma::load_matrix_sync(fb, sb, 16);
    wmma::load_matrix_sync(fc, sc, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(sc, fc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int i = threadIdx.x; i < 256; i += 32) {
        d[i] = sc[i];
    }
}

extern "C" __global__ void h_shared(const half *a, const half *b,
                                    const float *c, float *d)
{
    gemm_shared(a, b, c, d);
}

extern "C" __global__ void u8_shared(const unsigned char *a,
                                     const unsigned char *b, const int *c,
                                     int *d)
{
    gemm_shared(a, b, c, d);
}

/* Each lane's x[i] of an accumulator and of an a fragment loaded from
 * m[r * 16 + c] = r * 16 + c: the fragments' layout as a program sees
 * it; and the accumulator scaled element by element (x[i] written). */
extern "C" __global__ void frag_map(const float *m, const half *mh,
                                    float *xc, float *xa, float *scaled)
{
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::load_matrix_sync(fc, m, 16, wmma::mem_row_major);
    wmma::load_matrix_sync(fa, mh, 16);
    for (int i = 0; i < fc.num_elements; i++) {
        xc[threadIdx.x * fc.num_elements + i] = fc.x[i];
        fc.x[i] = 2.0f * fc.x[i] + 1.0f;
    }
    for (int i = 0; i < fa.num_elements; i++) {
        xa[threadIdx.x * fa.num_elements + i] = __half2float(fa.x[i]);
    }
    wmma::store_matrix_sync(scaled, fc, 16, wmma::mem_col_major);
}

/* A tile of shared memory that ends past the array by its last element
 * (at = 1) or fits (at = 0). */
extern "C" __global__ void shared_edge(float *d, int at)
{
    __shared__ float s[16 * 16];
    for (int i = threadIdx.x; i < 256; i += 32)
        s[i] = (float)i;
    __syncwarp();
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fc, s + at, 16, wmma::mem_row_major);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
