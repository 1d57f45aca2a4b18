/*
 * tests/stories-mp.c - message passing between two GPUs, the pattern of
 * a one-shot all-reduce's flag (docs/stories.md, story 7), as C kernels
 * against the shim's device API, so it builds without nvcc:
 *
 *   cc stories-mp.c -o mp $(pkg-config --cflags --libs p2psim-cudart)
 *   p2psim run --single-process --topology pcie-8gpu-2socket -- ./mp 0
 *   p2psim run --single-process --topology pcie-8gpu-2socket -- ./mp 1
 *
 * The producer on GPU 0 stores 1 into `data` (in GPU 1's memory), then,
 * with argument 1, runs a system-scope fence (__threadfence_system), then
 * stores 1 into `flag` (in its own memory). The consumer on GPU 1 polls
 * `flag` over PCIe until it reads 1, then reads `data` from its own
 * memory. Reading 0 there is a stale read. Each round starts the producer
 * a little later (16 more loads of its own memory before its stores), so
 * the consumer's polls meet the flag at different moments of its poll
 * period. It prints one line
 * per round and a total: "stale reads: N of R".
 *
 * C kernels run only where the machine is in the program's process,
 * hence --single-process (docs/kernels.md, "Limits").
 */
#include <cuda_runtime.h>
#include <p2psim_kernel.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 16

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            printf("%s: %s (%d)\n", #call, cudaGetErrorString(e_), (int)e_);  \
            return 1;                                                         \
        }                                                                     \
    } while (0)

/* args: data (GPU 1), flag (GPU 0), fence, delay (local loads first) */
static void producer(void **args)
{
    uint32_t *data = *(uint32_t **)args[0];
    uint32_t *flag = *(uint32_t **)args[1];
    unsigned fence = *(unsigned *)args[2];
    unsigned delay = *(unsigned *)args[3];

    for (unsigned i = 0; i < delay; i++) {
        (void)devapi_ld_volatile_u32(flag);
    }
    devapi_st_volatile_u32(data, 1);
    if (fence) {
        devapi_fence(DEVAPI_SYS);
    }
    devapi_st_volatile_u32(flag, 1);
    /* Go on with local work, so that the end of the kernel (which makes
     * every write visible) is not what publishes the data. */
    for (unsigned i = 0; i < 16; i++) {
        (void)devapi_ld_volatile_u32(flag);
    }
}

/* args: data (GPU 1), flag (GPU 0), result (GPU 1) */
static void consumer(void **args)
{
    uint32_t *data = *(uint32_t **)args[0];
    uint32_t *flag = *(uint32_t **)args[1];
    uint32_t *result = *(uint32_t **)args[2];

    while (devapi_ld_volatile_u32(flag) == 0) {
    }
    devapi_st_u32(result, devapi_ld_volatile_u32(data));
}

int main(int argc, char **argv)
{
    unsigned fence = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    static const size_t p_sizes[] = { sizeof(void *), sizeof(void *),
                                      sizeof(unsigned), sizeof(unsigned) };
    static const size_t c_sizes[] = { sizeof(void *), sizeof(void *),
                                      sizeof(void *) };
    const void *kp = p2psim_kernel_register("mp_producer", producer, 4,
                                            p_sizes);
    const void *kc = p2psim_kernel_register("mp_consumer", consumer, 3,
                                            c_sizes);
    uint32_t *flag, *data, *result;
    cudaStream_t s0, s1;
    unsigned stale = 0;
    dim3 one = { 1, 1, 1 };

    if (!kp || !kc) {
        printf("kernel registration failed\n");
        return 1;
    }
    CHECK(cudaSetDevice(0));
    CHECK(cudaDeviceEnablePeerAccess(1, 0));
    CHECK(cudaMalloc((void **)&flag, 4096));
    CHECK(cudaStreamCreate(&s0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaDeviceEnablePeerAccess(0, 0));
    CHECK(cudaMalloc((void **)&data, 4096));
    CHECK(cudaMalloc((void **)&result, 4096));
    CHECK(cudaStreamCreate(&s1));

    for (unsigned round = 0; round < ROUNDS; round++) {
        unsigned delay = round * 16;
        uint32_t r = 7;
        void *pa[] = { &data, &flag, &fence, &delay };
        void *ca[] = { &data, &flag, &result };

        CHECK(cudaSetDevice(0));
        CHECK(cudaMemset(flag, 0, 4096));
        CHECK(cudaSetDevice(1));
        CHECK(cudaMemset(data, 0, 4096));
        CHECK(cudaMemset(result, 0xff, 4096));
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaLaunchKernel(kc, one, one, ca, 0, s1));
        CHECK(cudaSetDevice(0));
        CHECK(cudaLaunchKernel(kp, one, one, pa, 0, s0));
        CHECK(cudaStreamSynchronize(s0));
        CHECK(cudaStreamSynchronize(s1));
        CHECK(cudaMemcpy(&r, result, sizeof(r), cudaMemcpyDeviceToHost));
        if (r > 1) {
            printf("round %u: the consumer wrote %u\n", round, r);
            return 1;
        }
        printf("round %2u: delay %2u loads, consumer read data = %u%s\n",
               round, delay, r, r == 0 ? " (stale)" : "");
        stale += r == 0;
    }
    printf("fence: %s\n", fence ? "__threadfence_system" : "none");
    printf("stale reads: %u of %u\n", stale, ROUNDS);
    return 0;
}
