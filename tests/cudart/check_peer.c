/*
 * tests/cudart/check_peer.c - peer access: cudaDeviceCanAccessPeer
 * against each machine's P2P matrix (what `p2psim topo` prints from the
 * same verdicts), every return code of enabling and disabling
 * (shared/reference/cuda-api.md §2.2, §5.6; calibration
 * h200-x1-pcie-gen5.md §5), and the attributes of a pair.
 */
#include <config.h>

#include "tests/cudart/cudart_test.h"

/* ---- cudaDeviceCanAccessPeer --------------------------------------------- */

/*
 * `p2psim topo` on each machine: pcie-8gpu-2socket (AMD root complexes
 * forward P2P between root ports and across sockets) allows every pair;
 * desktop-2x-geforce (GeForce) and teaching-acs-iommu (ACS redirect with
 * a translating IOMMU) allow none; dgx1-v100 allows the NVLink hybrid
 * cube mesh only (rows below).
 */
static const unsigned char dgx1[8][8] = {
    { 0, 1, 1, 1, 1, 0, 0, 0 }, { 1, 0, 1, 1, 0, 1, 0, 0 },
    { 1, 1, 0, 1, 0, 0, 1, 0 }, { 1, 1, 1, 0, 0, 0, 0, 1 },
    { 1, 0, 0, 0, 0, 1, 1, 1 }, { 0, 1, 0, 0, 1, 0, 1, 1 },
    { 0, 0, 1, 0, 1, 1, 0, 1 }, { 0, 0, 0, 1, 1, 1, 1, 0 },
};

static const struct {
    const char *machine;
    int n;
    int all;                    /* every distinct pair: 1, 0; -1: dgx1 */
} matrices[] = {
    { NULL, 8, 1 },
    { "desktop-2x-geforce.yaml", 2, 0 },
    { "teaching-acs-iommu.yaml", 3, 0 },
    { "8x-rtx4090-2x-epyc7542.yaml", 8, 1 },
    { "dgx1-v100.yaml", 8, -1 },
};

START_TEST(test_peer_can_access_matrix)
{
    cudart_test_machine(matrices[_i].machine);
    int n = matrices[_i].n;
    for (int a = 0; a < n; a++) {
        for (int b = 0; b < n; b++) {
            int want = a == b                  ? 0
                       : matrices[_i].all >= 0 ? matrices[_i].all
                                               : dgx1[a][b];
            int can = -1;
            ck_cuda_ok(cudaDeviceCanAccessPeer(&can, a, b));
            ck_assert_msg(can == want, "%d -> %d: %d, want %d", a, b, can,
                          want);
        }
    }
    ck_cuda_ok(cudaGetLastError());
}
END_TEST

START_TEST(test_peer_can_access_errors)
{
    cudart_test_machine(NULL);
    int can = -1;
    ck_cuda(cudaDeviceCanAccessPeer(NULL, 0, 1), cudaErrorInvalidValue);
    ck_cuda(cudaDeviceCanAccessPeer(&can, 8, 1), cudaErrorInvalidDevice);
    ck_cuda(cudaDeviceCanAccessPeer(&can, 0, 8), cudaErrorInvalidDevice);
    ck_cuda(cudaDeviceCanAccessPeer(&can, -1, 0), cudaErrorInvalidDevice);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidDevice);
    ck_cuda_ok(cudaGetLastError());
}
END_TEST

/* ---- enable / disable ---------------------------------------------------- */

/* The four calls of calibration h200-x1-pcie-gen5.md §5, exactly. */
START_TEST(test_peer_h200_calibration_codes)
{
    cudart_test_machine("h200-x1.yaml");
    int v = -1;
    ck_cuda_ok(cudaDeviceCanAccessPeer(&v, 0, 0));
    ck_assert_int_eq(v, 0);
    ck_cuda(cudaDeviceEnablePeerAccess(0, 0), cudaErrorPeerAccessUnsupported);
    ck_cuda(cudaGetLastError(), cudaErrorPeerAccessUnsupported);
    ck_cuda(cudaSetDevice(5), cudaErrorInvalidDevice);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidDevice);
    ck_cuda(cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
    ck_cuda(cudaGetLastError(), cudaErrorPeerAccessNotEnabled);
    ck_cuda_ok(cudaGetLastError());
}
END_TEST

START_TEST(test_peer_enable_disable_codes)
{
    cudart_test_machine(NULL);
    ck_cuda_ok(cudaSetDevice(2));
    ck_cuda(cudaDeviceEnablePeerAccess(2, 0), cudaErrorPeerAccessUnsupported);
    ck_cuda(cudaDeviceEnablePeerAccess(5, 1), cudaErrorInvalidValue);
    ck_cuda(cudaDeviceEnablePeerAccess(8, 0), cudaErrorInvalidDevice);
    ck_cuda(cudaDeviceEnablePeerAccess(-1, 0), cudaErrorInvalidDevice);
    ck_cuda_ok(cudaDeviceEnablePeerAccess(5, 0)); /* across sockets */
    ck_cuda(cudaDeviceEnablePeerAccess(5, 0),
            cudaErrorPeerAccessAlreadyEnabled);
    ck_cuda(cudaGetLastError(), cudaErrorPeerAccessAlreadyEnabled);
    ck_cuda_ok(cudaGetLastError());
    ck_cuda_ok(cudaDeviceEnablePeerAccess(3, 0)); /* same switch */
    ck_cuda_ok(cudaDeviceDisablePeerAccess(5));
    ck_cuda(cudaDeviceDisablePeerAccess(5), cudaErrorPeerAccessNotEnabled);
    ck_cuda(cudaDeviceDisablePeerAccess(2), cudaErrorPeerAccessNotEnabled);
    ck_cuda(cudaDeviceDisablePeerAccess(8), cudaErrorInvalidDevice);
    /* Enabling again after a disable works (p2pBandwidthLatencyTest). */
    ck_cuda_ok(cudaDeviceEnablePeerAccess(5, 0));
    ck_cuda_ok(cudaDeviceDisablePeerAccess(5));
    ck_cuda_ok(cudaDeviceDisablePeerAccess(3));
}
END_TEST

/* Access is one direction: 0 -> 1 says nothing about 1 -> 0. */
START_TEST(test_peer_access_is_directional)
{
    cudart_test_machine(NULL);
    ck_cuda_ok(cudaDeviceEnablePeerAccess(1, 0));
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda(cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
    ck_cuda_ok(cudaDeviceEnablePeerAccess(0, 0));
    ck_cuda_ok(cudaSetDevice(0));
    ck_cuda(cudaDeviceEnablePeerAccess(1, 0),
            cudaErrorPeerAccessAlreadyEnabled);
}
END_TEST

/* A pair the product blocks: 217 in practice (llama.cpp #3230). */
START_TEST(test_peer_blocked_pair)
{
    cudart_test_machine("desktop-2x-geforce.yaml");
    ck_cuda(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessUnsupported);
    ck_cuda_ok(cudaSetDevice(1));
    ck_cuda(cudaDeviceEnablePeerAccess(0, 0), cudaErrorPeerAccessUnsupported);
    ck_cuda(cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
}
END_TEST

/* Only NVLink pairs of the cube mesh may be enabled. */
START_TEST(test_peer_dgx1_mesh)
{
    cudart_test_machine("dgx1-v100.yaml");
    ck_cuda_ok(cudaDeviceEnablePeerAccess(4, 0));
    ck_cuda(cudaDeviceEnablePeerAccess(5, 0), cudaErrorPeerAccessUnsupported);
}
END_TEST

/* Seven peers, each enabled from every device: none of them reaches the
 * eight-peer limit. */
START_TEST(test_peer_all_pairs)
{
    cudart_test_machine(NULL);
    for (int a = 0; a < 8; a++) {
        ck_cuda_ok(cudaSetDevice(a));
        for (int b = 0; b < 8; b++) {
            if (a != b) {
                ck_cuda_ok(cudaDeviceEnablePeerAccess(b, 0));
            }
        }
    }
    ck_cuda_ok(cudaGetLastError());
}
END_TEST

/* ---- attributes ---------------------------------------------------------- */

static int p2p_attr(enum cudaDeviceP2PAttr attr, int a, int b)
{
    int v = -1;
    ck_cuda_ok(cudaDeviceGetP2PAttribute(&v, attr, a, b));
    return v;
}

/*
 * pcie-8gpu-2socket: gpu0-gpu1 share a switch (PIX), gpu0-gpu2 meet at the
 * root complex (PHB), gpu0-gpu4 cross sockets (SYS); A100-PCIe does
 * atomics over PCIe (topologies/gpus/A100-PCIe.yaml), natively where every
 * element between routes AtomicOps: the switch does (atomic-routing's
 * default), the root complexes do not pass them between root ports
 * (p2p-atomics' default), so only the PIX pair has native atomics.
 */
START_TEST(test_peer_attributes_default_machine)
{
    cudart_test_machine(NULL);
    int pix = p2p_attr(cudaDevP2PAttrPerformanceRank, 0, 1);
    int phb = p2p_attr(cudaDevP2PAttrPerformanceRank, 0, 2);
    int sys = p2p_attr(cudaDevP2PAttrPerformanceRank, 0, 4);
    ck_assert_int_lt(pix, phb);
    ck_assert_int_lt(phb, sys);
    ck_assert_int_eq(p2p_attr(cudaDevP2PAttrPerformanceRank, 1, 0), pix);
    for (int b = 1; b < 8; b++) {
        ck_assert_int_eq(p2p_attr(cudaDevP2PAttrAccessSupported, 0, b), 1);
        ck_assert_int_eq(p2p_attr(cudaDevP2PAttrNativeAtomicSupported, 0, b),
                         b == 1);
        ck_assert_int_eq(
            p2p_attr(cudaDevP2PAttrCudaArrayAccessSupported, 0, b), 1);
        ck_assert_int_eq(
            p2p_attr(cudaDevP2PAttrOnlyPartialNativeAtomicSupported, 0, b),
            0);
    }
}
END_TEST

/* NVLink pairs rank best (0) and ahead of the PCIe-only pair. */
START_TEST(test_peer_attributes_nvlink_and_blocked)
{
    cudart_test_machine("dgx1-v100.yaml");
    ck_assert_int_eq(p2p_attr(cudaDevP2PAttrPerformanceRank, 0, 1), 0);
    ck_assert_int_gt(p2p_attr(cudaDevP2PAttrPerformanceRank, 0, 5), 0);
    ck_assert_int_eq(p2p_attr(cudaDevP2PAttrAccessSupported, 0, 5), 0);
    ck_assert_int_eq(p2p_attr(cudaDevP2PAttrNativeAtomicSupported, 0, 5), 0);
    ck_assert_int_eq(p2p_attr(cudaDevP2PAttrNativeAtomicSupported, 0, 1), 1);
}
END_TEST

START_TEST(test_peer_attributes_geforce)
{
    cudart_test_machine("desktop-2x-geforce.yaml");
    ck_assert_int_eq(p2p_attr(cudaDevP2PAttrAccessSupported, 0, 1), 0);
    ck_assert_int_eq(p2p_attr(cudaDevP2PAttrNativeAtomicSupported, 1, 0), 0);
    ck_assert_int_eq(p2p_attr(cudaDevP2PAttrCudaArrayAccessSupported, 0, 1),
                     0);
}
END_TEST

START_TEST(test_peer_attribute_errors)
{
    cudart_test_machine(NULL);
    int v;
    ck_cuda(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 3, 3),
            cudaErrorInvalidDevice);
    ck_cuda(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 8),
            cudaErrorInvalidDevice);
    ck_cuda(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, -1,
                                      0),
            cudaErrorInvalidDevice);
    ck_cuda(cudaDeviceGetP2PAttribute(NULL, cudaDevP2PAttrAccessSupported, 0,
                                      1),
            cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetP2PAttribute(&v, (enum cudaDeviceP2PAttr)0, 0, 1),
            cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetP2PAttribute(&v, (enum cudaDeviceP2PAttr)6, 0, 1),
            cudaErrorInvalidValue);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidValue);
}
END_TEST

/* ---- atomic capabilities -------------------------------------------------- */

static const enum cudaAtomicOperation all_ops[] = {
    cudaAtomicOperationIntegerAdd, cudaAtomicOperationIntegerMin,
    cudaAtomicOperationIntegerMax, cudaAtomicOperationIntegerIncrement,
    cudaAtomicOperationIntegerDecrement, cudaAtomicOperationAnd,
    cudaAtomicOperationOr, cudaAtomicOperationXOR,
    cudaAtomicOperationExchange, cudaAtomicOperationCAS,
    cudaAtomicOperationFloatAdd, cudaAtomicOperationFloatMin,
    cudaAtomicOperationFloatMax,
};
#define N_OPS (sizeof(all_ops) / sizeof(all_ops[0]))

/* PCIe (default machine): FetchAdd, Swap and CAS only, CAS up to 128
 * bits; NVLink (dgx1-v100, Volta): every operation, no 128-bit or vector
 * forms before Hopper; a blocked pair: nothing. */
START_TEST(test_peer_atomic_capabilities)
{
    unsigned c[N_OPS];
    const unsigned s32 = cudaAtomicCapabilityScalar32,
                   s64 = cudaAtomicCapabilityScalar64,
                   s128 = cudaAtomicCapabilityScalar128;
    cudart_test_machine(NULL);
    ck_cuda_ok(cudaDeviceGetP2PAtomicCapabilities(c, all_ops, N_OPS, 0, 1));
    ck_assert_uint_ne(c[0] & s64, 0);                    /* add */
    ck_assert_uint_eq(c[1], 0);                          /* min */
    ck_assert_uint_eq(c[5], 0);                          /* and */
    ck_assert_uint_eq(c[8] & (s32 | s64), s32 | s64);    /* exchange */
    ck_assert_uint_ne(c[9] & s128, 0);                   /* CAS 128 */
    ck_assert_uint_eq(c[10], 0);                         /* float add */
    ck_cuda_ok(cudaDeviceGetHostAtomicCapabilities(c, all_ops, N_OPS, 0));
    ck_assert_uint_ne(c[0], 0);
    ck_assert_uint_eq(c[1], 0);

    ck_cuda(cudaDeviceGetP2PAtomicCapabilities(c, all_ops, N_OPS, 0, 0),
            cudaErrorInvalidDevice);
    ck_cuda(cudaDeviceGetP2PAtomicCapabilities(c, all_ops, 0, 0, 1),
            cudaErrorInvalidValue);
    enum cudaAtomicOperation bad = (enum cudaAtomicOperation)13;
    ck_cuda(cudaDeviceGetP2PAtomicCapabilities(c, &bad, 1, 0, 1),
            cudaErrorInvalidValue);
    ck_cuda(cudaDeviceGetHostAtomicCapabilities(c, all_ops, N_OPS, 8),
            cudaErrorInvalidDevice);
    ck_cuda(cudaGetLastError(), cudaErrorInvalidDevice);
}
END_TEST

START_TEST(test_peer_atomic_capabilities_nvlink)
{
    unsigned c[N_OPS];
    const unsigned s32 = cudaAtomicCapabilityScalar32,
                   s128 = cudaAtomicCapabilityScalar128;
    cudart_test_machine("dgx1-v100.yaml");
    ck_cuda_ok(cudaDeviceGetP2PAtomicCapabilities(c, all_ops, N_OPS, 0, 1));
    for (unsigned i = 0; i < 11; i++) {
        ck_assert_msg(c[i] & s32, "op %u over NVLink", i);
    }
    ck_assert_uint_eq(c[9] & s128, 0);
    ck_assert_uint_eq(c[10] & cudaAtomicCapabilityVector32x4, 0);
    ck_cuda_ok(cudaDeviceGetP2PAtomicCapabilities(c, all_ops, N_OPS, 0, 5));
    for (unsigned i = 0; i < N_OPS; i++) {
        ck_assert_uint_eq(c[i], 0);                      /* no P2P */
    }
}
END_TEST

Suite *make_cudart_peer_suite(void)
{
    Suite *s = suite_create("cudart-peer");
    TCase *tc = tcase_create("CanAccess");
    tcase_add_loop_test(tc, test_peer_can_access_matrix, 0,
                        sizeof(matrices) / sizeof(matrices[0]));
    tcase_add_test(tc, test_peer_can_access_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("Enable");
    tcase_add_test(tc, test_peer_h200_calibration_codes);
    tcase_add_test(tc, test_peer_enable_disable_codes);
    tcase_add_test(tc, test_peer_access_is_directional);
    tcase_add_test(tc, test_peer_blocked_pair);
    tcase_add_test(tc, test_peer_dgx1_mesh);
    tcase_add_test(tc, test_peer_all_pairs);
    suite_add_tcase(s, tc);

    tc = tcase_create("Attributes");
    tcase_add_test(tc, test_peer_attributes_default_machine);
    tcase_add_test(tc, test_peer_attributes_nvlink_and_blocked);
    tcase_add_test(tc, test_peer_attributes_geforce);
    tcase_add_test(tc, test_peer_attribute_errors);
    tcase_add_test(tc, test_peer_atomic_capabilities);
    tcase_add_test(tc, test_peer_atomic_capabilities_nvlink);
    suite_add_tcase(s, tc);
    return s;
}
