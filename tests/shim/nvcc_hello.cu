/*
 * tests/shim/nvcc_hello.cu - a program compiled by NVIDIA's nvcc with the
 * shared runtime (nvcc -cudart shared), run unmodified on the shim: it
 * lists the devices, moves 1 MiB to the first device and back, and names
 * the libcudart it was served by (from /proc/self/maps). Its kernel is
 * registered at start-up (__cudaRegisterFatBinary, __cudaRegisterFunction)
 * and unregistered at exit, but never launched; its attributes say which
 * PTX it was built for and which device code that makes.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            std::printf("%s: %s (%d)\n", #call, cudaGetErrorString(e_),       \
                        (int)e_);                                             \
            return 1;                                                         \
        }                                                                     \
    } while (0)

__global__ void scale(float *x, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] *= s;
    }
}

static void print_runtime()
{
    char line[4096];
    FILE *f = std::fopen("/proc/self/maps", "r");
    while (f && std::fgets(line, sizeof(line), f)) {
        char *p = std::strchr(line, '/');
        if (p && std::strstr(p, "libcudart")) {
            std::printf("runtime: %s", p);
            break;
        }
    }
    if (f) {
        std::fclose(f);
    }
}

int main()
{
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    std::printf("devices: %d\n", n);
    for (int i = 0; i < n; i++) {
        cudaDeviceProp prop;
        CHECK(cudaGetDeviceProperties(&prop, i));
        std::printf("device %d: %s, compute capability %d.%d\n", i, prop.name,
                    prop.major, prop.minor);
    }
    print_runtime();
    const size_t bytes = 1 << 20;
    unsigned char *in = (unsigned char *)std::malloc(bytes);
    unsigned char *out = (unsigned char *)std::calloc(1, bytes);
    for (size_t i = 0; i < bytes; i++) {
        in[i] = (unsigned char)(i * 7 + 3);
    }
    void *dev = nullptr;
    CHECK(cudaMalloc(&dev, bytes));
    CHECK(cudaMemcpy(dev, in, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(out, dev, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dev));
    bool same = std::memcmp(in, out, bytes) == 0;
    std::printf("round trip: %s\n", same ? "ok" : "DIFFERENT");
    std::free(in);
    std::free(out);
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, scale));
    std::printf("kernel: ptx %d, binary %d\n", fa.ptxVersion,
                fa.binaryVersion);
    return same ? 0 : 1;
}
