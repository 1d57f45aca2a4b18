/*
 * tests/shim/hello.c - a CUDA runtime program in C, built the way a user
 * builds one against the shim:
 *
 *   cc hello.c $(pkg-config --cflags --libs p2psim-cudart)
 *
 * and run with `p2psim run`. It lists the devices, moves 1 MiB to the
 * first device and back, and names the libcudart it was served by (from
 * /proc/self/maps), so hello.sh can check the shim and not NVIDIA's runtime
 * answered.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HELLO_BYTES (1u << 20)

#define CHECK(call)                                                           \
    do {                                                                      \
        cudaError_t e_ = (call);                                              \
        if (e_ != cudaSuccess) {                                              \
            printf("%s: %s (%d)\n", #call, cudaGetErrorString(e_), (int)e_);  \
            return 1;                                                         \
        }                                                                     \
    } while (0)

/* The path of the libcudart mapped into this process. */
static void print_runtime(void)
{
    char line[4096];
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof(line), f)) {
        char *p = strchr(line, '/');
        if (p && strstr(p, "libcudart")) {
            printf("runtime: %s", p);
            break;
        }
    }
    if (f) {
        fclose(f);
    }
}

static int round_trip(void)
{
    unsigned char *in = malloc(HELLO_BYTES), *out = malloc(HELLO_BYTES);
    void *dev = NULL;
    if (!in || !out) {
        return 1;
    }
    for (unsigned i = 0; i < HELLO_BYTES; i++) {
        in[i] = (unsigned char)(i * 7 + 3);
    }
    memset(out, 0, HELLO_BYTES);
    CHECK(cudaMalloc(&dev, HELLO_BYTES));
    CHECK(cudaMemcpy(dev, in, HELLO_BYTES, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(out, dev, HELLO_BYTES, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dev));
    int same = memcmp(in, out, HELLO_BYTES) == 0;
    printf("round trip: %s (%u bytes)\n", same ? "ok" : "DIFFERENT",
           HELLO_BYTES);
    free(in);
    free(out);
    return same ? 0 : 1;
}

int main(void)
{
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    printf("devices: %d\n", n);
    for (int i = 0; i < n; i++) {
        struct cudaDeviceProp prop;
        CHECK(cudaGetDeviceProperties(&prop, i));
        printf("device %d: %s, compute capability %d.%d, %zu MiB\n", i,
               prop.name, prop.major, prop.minor,
               prop.totalGlobalMem >> 20);
    }
    print_runtime();
    return n > 0 ? round_trip() : 1;
}
