// rdc_kernel.cu - the device half of rdc_main.cu: a kernel that reads a
// __device__ variable of its own unit and calls a function inlined there.
__device__ int offset = 7;

__device__ int twice(int x)
{
    return 2 * x;
}

__global__ void twice_index(int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = twice(i) + offset;
}
