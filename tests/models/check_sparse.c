/*
 * tests/models/check_sparse.c - the sparse store against a dense reference
 * on random writes, zero reads, bounds, and cost of untouched memory.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "models/mem/sparse.h"
#include "sim/error.h"
#include "tests/check_p2psim.h"

START_TEST(test_sparse_matches_dense_reference)
{
    enum { SIZE = 1 << 20 };
    uint8_t *ref = calloc(SIZE, 1);
    uint8_t *buf = malloc(SIZE);
    struct mem_sparse *m = mem_sparse_create(SIZE);
    ck_assert_ptr_nonnull(m);
    uint64_t x = 12345;
    for (int i = 0; i < 2000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t addr = (x >> 20) % SIZE;
        uint64_t len = (x >> 44) % 70000;
        if (len > SIZE - addr) {
            len = SIZE - addr;
        }
        for (uint64_t k = 0; k < len; k++) {
            buf[k] = (uint8_t)(i + k);
        }
        ck_assert_int_eq(mem_sparse_write(m, addr, buf, len), 0);
        memcpy(ref + addr, buf, len);
    }
    ck_assert_int_eq(mem_sparse_read(m, 0, buf, SIZE), 0);
    ck_assert_int_eq(memcmp(buf, ref, SIZE), 0);
    mem_sparse_destroy(m);
    free(ref);
    free(buf);
}
END_TEST

START_TEST(test_sparse_untouched_is_free_and_zero)
{
    /* a 141 GB memory costs nothing until touched */
    struct mem_sparse *m = mem_sparse_create(UINT64_C(141000000000));
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(mem_sparse_backed_bytes(m), 0);
    uint8_t b[16];
    memset(b, 0xaa, sizeof(b));
    ck_assert_int_eq(mem_sparse_read(m, UINT64_C(100000000000), b, 16), 0);
    for (int i = 0; i < 16; i++) {
        ck_assert_uint_eq(b[i], 0);
    }
    ck_assert_uint_eq(mem_sparse_backed_bytes(m), 0);
    /* a write straddling two pages backs exactly two */
    ck_assert_int_eq(mem_sparse_fill(m, MEM_SPARSE_PAGE_BYTES * 7 - 4, 0x5a,
                                     8), 0);
    ck_assert_uint_eq(mem_sparse_backed_bytes(m), 2 * MEM_SPARSE_PAGE_BYTES);
    ck_assert_int_eq(mem_sparse_read(m, MEM_SPARSE_PAGE_BYTES * 7 - 4, b, 8), 0);
    ck_assert_uint_eq(b[0], 0x5a);
    ck_assert_uint_eq(b[7], 0x5a);
    mem_sparse_destroy(m);
}
END_TEST

START_TEST(test_sparse_zeros_back_nothing)
{
    /* zeros written or filled onto untouched pages back none (they read
     * as zeros either way); onto a written page they land */
    struct mem_sparse *m = mem_sparse_create(16 * MEM_SPARSE_PAGE_BYTES);
    ck_assert_ptr_nonnull(m);
    static uint8_t zeros[3 * MEM_SPARSE_PAGE_BYTES];
    ck_assert_int_eq(mem_sparse_fill(m, 10, 0, 4 * MEM_SPARSE_PAGE_BYTES), 0);
    ck_assert_int_eq(mem_sparse_write(m, 5 * MEM_SPARSE_PAGE_BYTES + 1,
                                      zeros, sizeof(zeros)), 0);
    ck_assert_uint_eq(mem_sparse_backed_bytes(m), 0);
    ck_assert(!mem_sparse_is_backed(m, 0, 16 * MEM_SPARSE_PAGE_BYTES));
    /* one nonzero byte in a write backs its page only */
    uint8_t mixed[2 * MEM_SPARSE_PAGE_BYTES] = { 0 };
    mixed[MEM_SPARSE_PAGE_BYTES + 7] = 0x33;
    ck_assert_int_eq(mem_sparse_write(m, 9 * MEM_SPARSE_PAGE_BYTES, mixed,
                                      sizeof(mixed)), 0);
    ck_assert_uint_eq(mem_sparse_backed_bytes(m), MEM_SPARSE_PAGE_BYTES);
    ck_assert(mem_sparse_is_backed(m, 10 * MEM_SPARSE_PAGE_BYTES, 8));
    /* zeros over a written page clear it */
    ck_assert_int_eq(mem_sparse_fill(m, 10 * MEM_SPARSE_PAGE_BYTES, 0,
                                     MEM_SPARSE_PAGE_BYTES), 0);
    uint8_t b = 0xff;
    ck_assert_int_eq(mem_sparse_read(m, 10 * MEM_SPARSE_PAGE_BYTES + 7, &b,
                                     1), 0);
    ck_assert_uint_eq(b, 0);
    ck_assert_int_eq(mem_sparse_fill(m, 0, 0, 17 * MEM_SPARSE_PAGE_BYTES),
                     -SIM_ERANGE);
    mem_sparse_destroy(m);
}
END_TEST

START_TEST(test_sparse_bounds)
{
    struct mem_sparse *m = mem_sparse_create(4096);
    uint8_t b[8] = { 0 };
    ck_assert_int_eq(mem_sparse_write(m, 4090, b, 8), -SIM_ERANGE);
    ck_assert_int_eq(mem_sparse_read(m, 4096, b, 1), -SIM_ERANGE);
    ck_assert_int_eq(mem_sparse_read(m, 4096, b, 0), 0);
    ck_assert_int_eq(mem_sparse_write(m, UINT64_MAX, b, 2), -SIM_ERANGE);
    mem_sparse_destroy(m);
}
END_TEST

START_TEST(test_sparse_attached_memory)
{
    struct mem_sparse *m = mem_sparse_create(1 << 20);
    uint8_t host[1000];
    memset(host, 0, sizeof(host));
    ck_assert_int_eq(mem_sparse_attach(m, 70000, host, sizeof(host)), 0);
    ck_assert_int_eq(mem_sparse_attach(m, 70500, host, 10), -SIM_EBUSY);
    /* a write straddling page memory and the attached range */
    uint8_t buf[3000];
    for (int i = 0; i < 3000; i++) {
        buf[i] = (uint8_t)(i * 3);
    }
    ck_assert_int_eq(mem_sparse_write(m, 69000, buf, 3000), 0);
    for (int i = 0; i < 1000; i++) {
        ck_assert_uint_eq(host[i], (uint8_t)((i + 1000) * 3));
    }
    uint8_t back[3000];
    ck_assert_int_eq(mem_sparse_read(m, 69000, back, 3000), 0);
    ck_assert_int_eq(memcmp(buf, back, 3000), 0);
    /* the caller's writes show through */
    host[0] = 0xee;
    ck_assert_int_eq(mem_sparse_read(m, 70000, back, 1), 0);
    ck_assert_uint_eq(back[0], 0xee);
    ck_assert_int_eq(mem_sparse_detach(m, 70000), 0);
    ck_assert_int_eq(mem_sparse_detach(m, 70000), -SIM_ENOENT);
    ck_assert_int_eq(mem_sparse_read(m, 70000, back, 1), 0);
    ck_assert_uint_eq(back[0], 0); /* page memory there was never written */
    mem_sparse_destroy(m);
}
END_TEST

Suite *make_sparse_suite(void)
{
    Suite *s = suite_create("sparse");
    TCase *tc = tcase_create("Store");
    tcase_add_test(tc, test_sparse_matches_dense_reference);
    tcase_add_test(tc, test_sparse_untouched_is_free_and_zero);
    tcase_add_test(tc, test_sparse_zeros_back_nothing);
    tcase_add_test(tc, test_sparse_bounds);
    tcase_add_test(tc, test_sparse_attached_memory);
    suite_add_tcase(s, tc);
    return s;
}
