// rdc_main.cu - host half of a program built with -rdc=true (separable
// compilation): the kernel is in rdc_kernel.cu, another translation unit,
// so its PTX reaches the program only through __nv_relfatbin
// (tests/shim/nvcc.sh).
#include <cstdio>

__global__ void twice_index(int *out);

int main()
{
    int *d = nullptr, h[64] = {0};
    if (cudaMalloc(&d, sizeof(h)) != cudaSuccess) {
        printf("malloc failed\n");
        return 1;
    }
    twice_index<<<2, 32>>>(d);
    cudaError_t e = cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < 64; i++) {
        bad += h[i] != 2 * i + 7;
    }
    printf("rdc: %s (%s)\n", e == cudaSuccess && !bad ? "ok" : "wrong",
           cudaGetErrorString(e));
    return bad != 0;
}
