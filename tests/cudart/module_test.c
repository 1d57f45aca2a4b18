/*
 * tests/cudart/module_test.c - a hand-written PTX module registered with
 * the shim as nvcc's static constructor would register it (cudart_test.h,
 * cudart_test_register_ptx), for the suites that run PTX kernels without
 * nvcc: a fat binary container (the layout ptx/fatbin.c reads) of one
 * uncompressed sm_90 PTX entry.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/include/p2psim_cudart_internal.h"
#include "tests/cudart/cudart_test.h"

static void le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

void **cudart_test_register_ptx(const char *text, size_t n)
{
    uint8_t *f = calloc(1, 16 + 64 + n);
    struct p2psim_fatbin_wrapper *w = calloc(1, sizeof(*w));
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(w);
    le(f, P2PSIM_FATBIN_CONTAINER_MAGIC, 4);
    le(f + 4, 1, 2);                    /* container version */
    le(f + 6, 16, 2);                   /* its header's size */
    le(f + 8, 64 + n, 8);               /* the entries' bytes */
    le(f + 16, 1, 2);                   /* PTX */
    le(f + 20, 64, 4);                  /* entry header's size */
    le(f + 24, n, 8);
    le(f + 16 + 28, 90, 4);             /* sm_90 */
    memcpy(f + 16 + 64, text, n);
    /* both live as long as the process, as a program's do */
    w->magic = P2PSIM_FATBIN_WRAPPER_MAGIC;
    w->version = P2PSIM_FATBIN_WRAPPER_VERSION;
    w->data = (const unsigned long long *)(const void *)f;
    void **h = __cudaRegisterFatBinary(w);
    ck_assert_ptr_nonnull(h);
    return h;
}
