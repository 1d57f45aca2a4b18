/*
 * tests/machine/check_swview.c - what libp2psim tells the software faces
 * (NVML, NCCL's topology file) about a machine: each GPU's NVLink groups
 * and the NVSwitches' numbers and PCI addresses, GPUs' PCI ids, the PCIe
 * tree with its NUMA nodes, the sockets, and a pair's PCIe class beneath
 * its NVLinks (p2psim_path's pcie_cls).
 */
#include <config.h>

#include <string.h>

#include "machine/p2psim.h"
#include "sim/error.h"
#include "tests/check_p2psim.h"
#include "tests/machine/open.h"

/* hgx-h100: every GPU 5, 4, 4, 5 links into nvsw0..nvsw3, which sit at
 * the buses after the tree's, one each. */
START_TEST(test_swview_nvswitches)
{
    struct p2psim *p = test_open("hgx-h100", NULL);
    static const unsigned links[] = { 5, 4, 4, 5 };
    ck_assert_uint_eq(p2psim_nvswitch_count(p), 4);
    for (unsigned k = 0; k < 4; k++) {
        char id[16];
        snprintf(id, sizeof(id), "nvsw%u", k);
        ck_assert_str_eq(p2psim_nvswitch_id(p, k), id);
    }
    ck_assert_ptr_null(p2psim_nvswitch_id(p, 4));
    unsigned d, b, dev, fn, top = 0;
    struct p2psim_pci_node t[64];
    unsigned n = p2psim_pci_tree(p, t, 64);
    for (unsigned i = 0; i < n; i++) {
        top = t[i].bus > top ? t[i].bus : top;
    }
    for (unsigned k = 0; k < 4; k++) {
        ck_assert_int_eq(p2psim_nvswitch_pci_address(p, k, &d, &b, &dev, &fn),
                         0);
        ck_assert_uint_eq(d, 0);
        ck_assert_uint_gt(b, top);
        ck_assert_uint_eq(dev + fn, 0);
        top = b;
    }
    ck_assert_int_eq(p2psim_nvswitch_pci_address(p, 4, &d, &b, &dev, &fn),
                     -SIM_EINVAL);
    for (unsigned g = 0; g < p2psim_gpu_count(p); g++) {
        struct p2psim_nvlink_end e[8];
        ck_assert_uint_eq(p2psim_gpu_nvlinks(p, g, e, 8), 4);
        for (unsigned k = 0; k < 4; k++) {
            ck_assert(e[k].nvswitch);
            ck_assert_uint_eq(e[k].peer, k);
            ck_assert_uint_eq(e[k].links, links[k]);
        }
    }
    ck_assert_uint_eq(p2psim_gpu_nvlinks(p, 99, NULL, 0), 0);
    p2psim_close(p);
}
END_TEST

/* dgx1-v100: GPU to GPU, the same links seen from both ends. */
START_TEST(test_swview_direct_nvlinks)
{
    struct p2psim *p = test_open("dgx1-v100", NULL);
    ck_assert_uint_eq(p2psim_nvswitch_count(p), 0);
    unsigned total = 0;
    for (unsigned a = 0; a < p2psim_gpu_count(p); a++) {
        struct p2psim_nvlink_end e[16];
        unsigned n = p2psim_gpu_nvlinks(p, a, e, 16);
        ck_assert_uint_gt(n, 0);
        for (unsigned i = 0; i < n; i++) {
            struct p2psim_nvlink_end back[16];
            unsigned m = p2psim_gpu_nvlinks(p, e[i].peer, back, 16), seen = 0;
            ck_assert(!e[i].nvswitch);
            for (unsigned j = 0; j < m; j++) {
                seen += back[j].peer == a ? back[j].links : 0;
            }
            struct p2psim_path pa;
            p2psim_path(p, a, e[i].peer, &pa);
            ck_assert_uint_eq(seen, pa.nv_links);
            total += e[i].links;
        }
    }
    ck_assert_uint_eq(total, 2 * 24);   /* 8 V100s, 6 links each, both ends */
    p2psim_close(p);
}
END_TEST

/* The tree: parents first, every GPU once at its runtime address, its
 * parent the machine file's; sockets and NUMA nodes. */
START_TEST(test_swview_pci_tree)
{
    struct p2psim *p = test_open("hgx-h100", NULL);
    struct p2psim_pci_node t[64];
    unsigned n = p2psim_pci_tree(p, t, 64), gpus = 0;
    ck_assert_uint_eq(n, 12);           /* 4 switches, 8 GPUs */
    ck_assert_uint_eq(p2psim_pci_tree(p, t, 3), 12);
    n = p2psim_pci_tree(p, t, 64);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_int_lt(t[i].parent, (int)i);
        if (t[i].gpu < 0) {
            ck_assert_int_eq(t[i].parent, -1);
            ck_assert_uint_eq(t[i].gen, 5);
            ck_assert_uint_eq(t[i].width, 16);
            continue;
        }
        unsigned g = (unsigned)t[i].gpu, d, b, dev, fn;
        gpus |= 1u << g;
        p2psim_gpu_pci_address(p, g, &d, &b, &dev, &fn);
        ck_assert_uint_eq(t[i].bus, b);
        ck_assert_uint_eq(t[i].socket, g / 4);
        ck_assert_uint_eq(t[i].numa, g / 4);
        char sw[16];
        snprintf(sw, sizeof(sw), "sw%u", g / 2);
        ck_assert_str_eq(t[t[i].parent].id, sw);
        ck_assert_uint_eq(t[t[i].parent].socket, g / 4);
    }
    ck_assert_uint_eq(gpus, 0xff);
    ck_assert_uint_eq(p2psim_socket_count(p), 2);
    ck_assert_str_eq(p2psim_socket_id(p, 1), "cpu1");
    ck_assert_ptr_nonnull(strstr(p2psim_socket_cpu(p, 0), "Sapphire Rapids"));
    ck_assert_ptr_null(p2psim_socket_cpu(p, 2));
    p2psim_close(p);
    /* EPYC with NPS4: a NUMA node per root port, one GPU each */
    p = test_open("8x-rtx4090-2x-epyc7542", NULL);
    n = p2psim_pci_tree(p, t, 64);
    ck_assert_uint_eq(n, 8);
    unsigned numa = 0;
    for (unsigned i = 0; i < n; i++) {
        ck_assert_int_eq(t[i].parent, -1);
        numa |= 1u << t[i].numa;
        ck_assert_uint_eq(t[i].socket, (unsigned)t[i].gpu / 4);
    }
    ck_assert_uint_eq(numa, 0xff);
    p2psim_close(p);
}
END_TEST

START_TEST(test_swview_pci_ids_and_classes)
{
    struct p2psim *p = test_open("hgx-h100", NULL);
    struct p2psim_pci_ids ids;
    struct p2psim_path pa;
    ck_assert_int_eq(p2psim_gpu_pci_ids(p, 0, &ids), 0);
    ck_assert_uint_eq(ids.vendor, 0x10de);
    ck_assert_uint_eq(ids.device, 0x2330);
    ck_assert_uint_eq(ids.class_code, 0x030200);
    ck_assert_int_eq(p2psim_gpu_pci_ids(p, 8, &ids), -SIM_EINVAL);
    p2psim_path(p, 0, 1, &pa);
    ck_assert_int_eq(pa.cls, P2PSIM_PATH_NV);
    ck_assert_int_eq(pa.pcie_cls, P2PSIM_PATH_PIX);
    p2psim_path(p, 0, 4, &pa);
    ck_assert_int_eq(pa.pcie_cls, P2PSIM_PATH_SYS);
    p2psim_path(p, 3, 3, &pa);
    ck_assert_int_eq(pa.pcie_cls, P2PSIM_PATH_X);
    p2psim_close(p);
    p = test_open("desktop-2x-geforce", NULL);
    p2psim_gpu_pci_ids(p, 1, &ids);
    ck_assert_uint_eq(ids.device, 0x2684);
    ck_assert_uint_eq(ids.class_code, 0x030000);
    p2psim_path(p, 0, 1, &pa);
    ck_assert_int_eq(pa.pcie_cls, pa.cls);  /* no NVLink: the same */
    p2psim_close(p);
}
END_TEST

Suite *make_swview_suite(void)
{
    Suite *s = suite_create("swview");
    TCase *tc = tcase_create("Software's view");
    tcase_add_test(tc, test_swview_nvswitches);
    tcase_add_test(tc, test_swview_direct_nvlinks);
    tcase_add_test(tc, test_swview_pci_tree);
    tcase_add_test(tc, test_swview_pci_ids_and_classes);
    suite_add_tcase(s, tc);
    return s;
}
