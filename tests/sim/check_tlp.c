/*
 * tests/sim/check_tlp.c - TLP kind table, header sizes, the pool and its
 * ownership checks.
 */
#include <config.h>

#include <signal.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/tlp.h"
#include "tests/check_p2psim.h"

static struct sim *sim;

static void setup(void)
{
    sim = sim_create(NULL, NULL);
    ck_assert_ptr_nonnull(sim);
}

static void teardown(void)
{
    sim_destroy(sim);
}

START_TEST(test_tlp_kind_table)
{
    ck_assert_str_eq(tlp_kind_name(TLP_MWR), "MWr");
    ck_assert(tlp_kind_is_posted(TLP_MWR));
    ck_assert(!tlp_kind_is_posted(TLP_MRD));
    ck_assert(tlp_kind_has_data(TLP_CPLD));
    ck_assert(!tlp_kind_has_data(TLP_CPL));
    ck_assert_int_eq(tlp_kind_routing(TLP_CPLD), TLP_ROUTE_ID);
    ck_assert_int_eq(tlp_kind_routing(TLP_MRD), TLP_ROUTE_ADDR);
    ck_assert_int_eq(tlp_kind_fc_class(TLP_MWR), TLP_FC_P);
    ck_assert_int_eq(tlp_kind_fc_class(TLP_FETCHADD), TLP_FC_NP);
    ck_assert_int_eq(tlp_kind_fc_class(TLP_CPLD), TLP_FC_CPL);
}
END_TEST

START_TEST(test_tlp_header_bytes)
{
    struct tlp *t = tlp_alloc(sim, TLP_MWR);
    t->addr = 0x1000;
    t->len_bytes = 256;
    ck_assert_uint_eq(tlp_header_bytes(t), 12);  /* 3DW below 4 GiB */
    ck_assert_uint_eq(tlp_payload_bytes(t), 256);
    t->addr = UINT64_C(0x100000000);
    ck_assert_uint_eq(tlp_header_bytes(t), 16);  /* 4DW above */
    t->pasid = 5;
    ck_assert_uint_eq(tlp_header_bytes(t), 20);  /* + PASID prefix */
    struct tlp *r = tlp_alloc(sim, TLP_MRD);
    r->len_bytes = 512;
    ck_assert_uint_eq(tlp_payload_bytes(r), 0);  /* a read carries no data */
    tlp_free(t);
    tlp_free(r);
}
END_TEST

START_TEST(test_tlp_completion_copies_ids)
{
    struct tlp *req = tlp_alloc(sim, TLP_MRD);
    req->requester_id = 0x0300;
    req->tag = 0x2a5;
    req->tc = 3;
    req->attr = TLP_ATTR_RO;
    req->addr = 0x12345;
    struct tlp *c = tlp_new_completion(sim, req, TLP_CPL_SC, 64);
    ck_assert_int_eq(c->kind, TLP_CPLD);
    ck_assert_uint_eq(c->requester_id, 0x0300);
    ck_assert_uint_eq(c->tag, 0x2a5);
    ck_assert_uint_eq(c->tc, 3);
    ck_assert_uint_eq(c->attr, TLP_ATTR_RO);
    ck_assert_uint_eq(c->lower_addr, 0x45);
    struct tlp *ur = tlp_new_completion(sim, req, TLP_CPL_UR, 0);
    ck_assert_int_eq(ur->kind, TLP_CPL);
    ck_assert_uint_eq(ur->cpl_status, TLP_CPL_UR);
    ck_assert_uint_ne(c->id, ur->id);
    tlp_free(req);
    tlp_free(c);
    tlp_free(ur);
}
END_TEST

START_TEST(test_tlp_pool_reuse_and_count)
{
    ck_assert_uint_eq(tlp_pool_live(sim), 0);
    struct tlp *t[1000];
    for (int i = 0; i < 1000; i++) {
        t[i] = tlp_alloc(sim, TLP_MWR);
        ck_assert_int_eq(tlp_data_alloc(t[i], (uint32_t)(1 + i * 7)), 0);
        memset(t[i]->data, i & 0xff, (size_t)(1 + i * 7));
    }
    ck_assert_uint_eq(tlp_pool_live(sim), 1000);
    for (int i = 0; i < 1000; i++) {
        ck_assert_uint_eq(t[i]->data[i * 7], (unsigned)(i & 0xff));
        tlp_free(t[i]);
    }
    ck_assert_uint_eq(tlp_pool_live(sim), 0);
    /* a freed TLP is handed out again, zeroed */
    struct tlp *u = tlp_alloc(sim, TLP_MRD);
    ck_assert_ptr_null(u->data);
    ck_assert_uint_eq(u->len_bytes, 0);
    tlp_free(u);
    /* live TLPs at destroy are released by sim_destroy (valgrind checks) */
    struct tlp *left = tlp_alloc(sim, TLP_MWR);
    ck_assert_int_eq(tlp_data_alloc(left, 8192), 0);
}
END_TEST

START_TEST(test_tlp_double_free_is_caught)
{
    struct tlp *t = tlp_alloc(sim, TLP_MWR);
    tlp_free(t);
    tlp_free(t); /* aborts with "double free of TLP" */
}
END_TEST

START_TEST(test_tlp_free_null_is_caught)
{
    tlp_free(NULL);
}
END_TEST

Suite *make_tlp_suite(void)
{
    Suite *s = suite_create("tlp");
    TCase *tc = tcase_create("Format");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_tlp_kind_table);
    tcase_add_test(tc, test_tlp_header_bytes);
    tcase_add_test(tc, test_tlp_completion_copies_ids);
    suite_add_tcase(s, tc);
    tc = tcase_create("Pool");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_tlp_pool_reuse_and_count);
    suite_add_tcase(s, tc);
    tc = tcase_create("Aborts");
    tcase_set_tags(tc, "abort");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test_raise_signal(tc, test_tlp_double_free_is_caught, SIGABRT);
    tcase_add_test_raise_signal(tc, test_tlp_free_null_is_caught, SIGABRT);
    suite_add_tcase(s, tc);
    return s;
}
