/*
 * tests/machine/check_route.c - the hops of one TLP, asked of the routing
 * models (machine/route.h), on machines of the library: an ACS redirect
 * hairpins through the root complex, cross-socket traffic crosses the
 * socket link and its completion comes back the same way, a refusing
 * policy or IOMMU names where and why, host memory ends a route.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "machine/fabric.h"
#include "models/gpu/gpu.h"
#include "models/host/hostmem.h"
#include "models/host/socket_link.h"
#include "models/pcie/rc.h"
#include "models/pcie/switch.h"
#include "machine/route.h"
#include "machine/topology.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/tlp.h"
#include "tests/check_p2psim.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

static struct topo_machine *load(const char *name)
{
    char path[512];
    struct sim_error err;
    sim_error_clear(&err);
    snprintf(path, sizeof(path), "%s/topologies/%s", P2PSIM_SRCDIR, name);
    struct topo_machine *m = topo_load_file(path, NULL, &err);
    ck_assert_msg(m != NULL, "%s: %s", path, err.msg);
    return m;
}

/* A 256-byte write from GPU a to the start of GPU b's BAR1. */
static int trace_write(struct topo_machine *m, unsigned a, unsigned b,
                       bool translate, struct route *r)
{
    struct sim_component *ga = fab_gpu(m->fab, a), *gb = fab_gpu(m->fab, b);
    struct tlp t;
    route_tlp_init(&t, TLP_MWR);
    t.requester_id = gpu_pcie_id(ga);
    t.addr = gpu_bar1_base(gb);
    t.len_bytes = 256;
    return route_trace(sim_port_find(ga, "pcie"), &t, translate, r);
}

static unsigned count_kind(const struct route *r, const void *ops)
{
    unsigned n = 0;
    for (unsigned i = 0; i < r->n_hops; i++) {
        n += r->hop[i].to->ops == ops;
    }
    return n;
}

/* Two GPUs below one switch with ACS P2P Request Redirect: up to the root
 * complex and back down the same uplink, on its P2P path. */
START_TEST(test_route_acs_redirect_hairpins)
{
    struct topo_machine *m = load("teaching-acs-iommu.yaml");
    struct route r;
    ck_assert_int_eq(trace_write(m, 0, 1, false, &r), 0);
    ck_assert_ptr_eq(r.dest, fab_gpu(m->fab, 1));
    ck_assert_uint_eq(r.n_hops, 4);
    ck_assert_ptr_eq(r.hop[1].to->ops, &rc_ops);
    ck_assert(r.hop[1].p2p);
    ck_assert_ptr_eq(r.hop[2].to->ops, &psw_ops);
    /* the uplink twice, once each way */
    ck_assert_ptr_eq(r.hop[1].link, r.hop[2].link);
    ck_assert_uint_ne(r.hop[1].from, r.hop[2].from);
    /* the translating IOMMU has no mapping for the peer's BAR1 */
    ck_assert_int_eq(trace_write(m, 0, 1, true, &r), -SIM_EIO);
    ck_assert_ptr_null(r.dest);
    ck_assert_ptr_eq(r.refused_at->ops, &rc_ops);
    ck_assert_str_eq(r.why, "iommu fault");
    topo_machine_destroy(m);
}
END_TEST

/* Across sockets: over the socket link; the completion retraces it. */
START_TEST(test_route_cross_socket_and_back)
{
    struct topo_machine *m = load("pcie-8gpu-2socket.yaml");
    struct route r, back;
    ck_assert_int_eq(trace_write(m, 0, 4, true, &r), 0);
    ck_assert_ptr_eq(r.dest, fab_gpu(m->fab, 4));
    ck_assert_uint_eq(r.n_hops, 5);  /* gpu0 sw0 rc0 =xs= rc1 sw2 gpu4 */
    ck_assert_uint_eq(count_kind(&r, &rc_ops), 2);
    unsigned xs = 0;
    for (unsigned i = 0; i < r.n_hops; i++) {
        xs += r.hop[i].link->ops == &socket_link_ops;
        ck_assert(!r.hop[i].p2p);   /* no root port to root port hop */
    }
    ck_assert_uint_eq(xs, 1);
    struct tlp cpl;
    route_tlp_init(&cpl, TLP_CPLD);
    cpl.requester_id = gpu_pcie_id(fab_gpu(m->fab, 0));
    cpl.len_bytes = 256;
    ck_assert_int_eq(route_trace(r.dest_port, &cpl, false, &back), 0);
    ck_assert_ptr_eq(back.dest, fab_gpu(m->fab, 0));
    ck_assert_uint_eq(back.n_hops, r.n_hops);
    for (unsigned i = 0; i < r.n_hops; i++) {
        const struct route_hop *h = &r.hop[i];
        const struct route_hop *k = &back.hop[r.n_hops - 1 - i];
        ck_assert(h->link == k->link && h->from != k->from);
    }
    topo_machine_destroy(m);
}
END_TEST

/* A root complex that refuses cross-socket P2P: refused where the target
 * is known, the other socket's; DMA to host memory is not refused. */
START_TEST(test_route_refusal_and_host_memory)
{
    struct topo_machine *m = load("hgx-h100.yaml");
    struct route r;
    ck_assert_int_eq(trace_write(m, 0, 4, true, &r), -SIM_EIO);
    ck_assert_ptr_eq(r.refused_at, m->socket[1].rc);
    ck_assert_str_eq(r.why, "cross-socket p2p refused");
    struct sim_component *mem = NULL;
    for (uint32_t i = 0; i < sim_component_count(m->sim) && !mem; i++) {
        struct sim_component *c = sim_component_at(m->sim, i);
        mem = c->ops == &hmem_ops ? c : NULL;
    }
    ck_assert_ptr_nonnull(mem);
    struct tlp t;
    route_tlp_init(&t, TLP_MRD);
    t.requester_id = gpu_pcie_id(fab_gpu(m->fab, 0));
    t.addr = hmem_base(mem) + 4096;
    t.len_bytes = 512;
    ck_assert_int_eq(route_trace(sim_port_find(fab_gpu(m->fab, 0), "pcie"),
                                 &t, true, &r), 0);
    ck_assert_ptr_eq(r.dest, mem);
    topo_machine_destroy(m);
}
END_TEST

Suite *make_route_suite(void)
{
    Suite *s = suite_create("route");
    TCase *tc = tcase_create("Routing");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_route_acs_redirect_hairpins);
    tcase_add_test(tc, test_route_cross_socket_and_back);
    tcase_add_test(tc, test_route_refusal_and_host_memory);
    suite_add_tcase(s, tc);
    return s;
}
