/*
 * tests/machine/check_vms.c - the host's virtual machines (vms:, issue
 * 25) on topologies/vm-host-4x-l40s-2vms.yaml: P2P inside a VM works and
 * between VMs is blocked by the VM isolation rule; a DMA write from one
 * VM's GPU to another VM's GPU faults at the IOMMU with nothing written
 * (read back), the fault logged and traced with the GPU and the address;
 * the domain maps the VM's memory only; a VM's view has its GPUs only and
 * its host buffers in its memory; the loader's errors.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/fabric.h"
#include "machine/p2psim_int.h"
#include "machine/topology.h"
#include "models/gpu/gpu.h"
#include "sim/error.h"
#include "tests/check_p2psim.h"
#include "tests/machine/open.h"
#include "traces/format.h"

#define HOST "vm-host-4x-l40s-2vms"
#define BYTES (64u * 1024u)
#define GIB (UINT64_C(1) << 30)

static void on_done(void *arg, const struct p2psim_copy_result *r)
{
    *(struct p2psim_copy_result *)arg = *r;
}

/* Copy BYTES from src to dst (peer copies direct), run it; the result. */
static struct p2psim_copy_result copy(struct p2psim *p,
                                      struct p2psim_loc dst,
                                      struct p2psim_loc src)
{
    struct p2psim_copy_result r = { .status = 99 };
    ck_assert_int_eq(p2psim_copy(p, &dst, &src, BYTES, P2PSIM_COPY_PEER,
                                 p2psim_now(p), on_done, &r), 0);
    ck_assert_int_eq(p2psim_run(p), 0);
    return r;
}

static void fill(struct p2psim *p, unsigned gpu, unsigned char v)
{
    static unsigned char buf[BYTES];
    memset(buf, v, sizeof(buf));
    ck_assert_int_eq(p2psim_hbm_write(p, gpu, 0, buf, sizeof(buf)), 0);
}

/* Every byte of GPU gpu's first BYTES is v. */
static bool all_are(struct p2psim *p, unsigned gpu, unsigned char v)
{
    static unsigned char buf[BYTES];
    ck_assert_int_eq(p2psim_hbm_read(p, gpu, 0, buf, sizeof(buf)), 0);
    for (unsigned i = 0; i < sizeof(buf); i++) {
        if (buf[i] != v) {
            return false;
        }
    }
    return true;
}

/* P2P exactly within a VM; between VMs the isolation rule blocks, and
 * the IOMMU rule does not tell to turn the IOMMU off. */
START_TEST(test_vms_verdicts)
{
    struct p2psim *p = test_open(HOST, NULL);
    ck_assert_uint_eq(p2psim_vm_count(p), 2);
    ck_assert_str_eq(p2psim_vm_name(p, 1), "vm-b");
    ck_assert_int_eq(p2psim_guest_vm(p), -1);
    for (unsigned a = 0; a < 4; a++) {
        ck_assert_int_eq(p2psim_gpu_vm(p, a), (int)(a / 2));
        for (unsigned b = 0; b < 4; b++) {
            struct p2psim_verdict v;
            ck_assert_int_eq(p2psim_p2p(p, a, b, &v), 0);
            bool same = a / 2 == b / 2;
            ck_assert_msg(v.allowed == (same && a != b), "%u->%u", a, b);
            const struct p2psim_rule *iso = NULL, *mmu = NULL;
            for (unsigned i = 0; i < v.n_rules; i++) {
                iso = v.rule[i].id == P2PSIM_RULE_VM_ISOLATION ? &v.rule[i]
                                                               : iso;
                mmu = v.rule[i].id == P2PSIM_RULE_IOMMU ? &v.rule[i] : mmu;
            }
            if (same) {
                ck_assert_msg(iso == NULL, "%u->%u", a, b);
                if (a != b) {   /* ACS sends it up through the IOMMU */
                    ck_assert(mmu && !mmu->blocks);
                    ck_assert(strstr(mmu->says, "domain of VM") != NULL);
                }
                continue;
            }
            ck_assert_msg(iso && iso->blocks, "%u->%u", a, b);
            ck_assert(strstr(iso->says, a < 2 ? "VM 'vm-a' and" :
                                                "VM 'vm-b' and") != NULL);
            ck_assert(strstr(iso->fix, "one VM") != NULL);
            ck_assert_msg(mmu == NULL, "%s", mmu ? mmu->says : "");
        }
    }
    p2psim_close(p);
}
END_TEST

/* Inside vm-a a direct write lands; no fault. */
START_TEST(test_vms_write_within_vm_lands)
{
    struct p2psim *p = test_open(HOST, NULL);
    fill(p, 0, 0xa5);
    fill(p, 1, 0x5a);
    struct p2psim_copy_result r = copy(p, (struct p2psim_loc){
        P2PSIM_DEVICE, 1, 0 }, (struct p2psim_loc){ P2PSIM_DEVICE, 0, 0 });
    ck_assert_int_eq(r.status, 0);
    ck_assert(!r.staged);
    ck_assert(all_are(p, 1, 0xa5));
    ck_assert_uint_eq(p2psim_iommu_faults(p, NULL, 0), 0);
    p2psim_close(p);
}
END_TEST

/*
 * gpu0 (vm-a) writes directly into gpu2 (vm-b) anyway: the IOMMU of cpu0
 * refuses every write, gpu2's memory is as it was, and the faults are
 * logged (gpu0, an address in gpu2's BAR1) and traced (gpu0's requester
 * ID, the same addresses).
 */
START_TEST(test_vms_write_across_vms_faults)
{
    char path[] = "/tmp/p2psim-vms-XXXXXX.csv";
    close(mkstemps(path, 4));
    struct p2psim *p = test_open(HOST, NULL);
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim_trace_options to = { .path = path,
                                       .filter = "kind=iommu_fault" };
    ck_assert_int_eq(p2psim_trace_start(p, &to, &err), 0);
    fill(p, 0, 0xa5);
    fill(p, 2, 0x5a);
    struct p2psim_copy_result r = copy(p, (struct p2psim_loc){
        P2PSIM_DEVICE, 2, 0 }, (struct p2psim_loc){ P2PSIM_DEVICE, 0, 0 });
    ck_assert_int_eq(r.status, -SIM_EIO);
    ck_assert(!r.staged);
    ck_assert(all_are(p, 2, 0x5a));     /* nothing written */

    const struct sim_component *g0 = fab_gpu(p->m->fab, 0);
    const struct sim_component *g2 = fab_gpu(p->m->fab, 2);
    uint64_t bar = gpu_bar1_base(g2), end = bar + gpu_bar1_size(g2);
    static struct p2psim_iommu_fault f[64];
    unsigned n = p2psim_iommu_faults(p, f, 64);
    ck_assert_uint_gt(n, 0);
    for (unsigned i = 0; i < n && i < 64; i++) {
        ck_assert_uint_eq(f[i].socket, 0);
        ck_assert_int_eq(f[i].gpu, 0);
        ck_assert(f[i].write);
        ck_assert_msg(f[i].addr >= bar && f[i].addr < end, "0x%llx",
                      (unsigned long long)f[i].addr);
    }
    ck_assert_int_eq(p2psim_trace_stop(p), 0);
    char e[300];
    struct trace_reader *tr = trace_reader_open(path, e, sizeof(e));
    ck_assert_msg(tr != NULL, "%s", e);
    struct trace_rec rec;
    unsigned traced = 0;
    while (trace_reader_next(tr, &rec, e, sizeof(e)) == 1) {
        ck_assert_str_eq(rec.kind, "iommu_fault");
        ck_assert_uint_eq(rec.requester, gpu_pcie_id(g0));
        ck_assert(rec.addr >= bar && rec.addr < end);
        traced++;
    }
    trace_reader_close(tr);
    /* every fault is traced; the IOMMU logs its first 256 (VT-d keeps a
     * fixed number of fault records) */
    ck_assert_uint_ge(traced, n);
    p2psim_close(p);
    unlink(path);
}
END_TEST

/* vm-a's domain maps vm-a's memory only: a host buffer of the host's
 * view (the upper half of cpu0's DRAM) faults, one in vm-a's does not. */
START_TEST(test_vms_domain_holds_vm_memory_only)
{
    struct p2psim *p = test_open(HOST, NULL);
    uint64_t host_buf, vm_buf = p->m->vms[0].mem_base;
    ck_assert_uint_eq(vm_buf, 0);               /* first on cpu0 */
    ck_assert_uint_eq(p->m->vms[1].mem_base, 64 * GIB);
    ck_assert_int_eq(p2psim_host_register(p, NULL, BYTES, 0, &host_buf), 0);
    ck_assert_uint_ge(host_buf, 128 * GIB);     /* beyond both VMs */
    struct p2psim_copy_result r = copy(p, (struct p2psim_loc){
        P2PSIM_DEVICE, 0, 0 }, (struct p2psim_loc){ P2PSIM_HOST, 0,
                                                    host_buf });
    ck_assert_int_eq(r.status, -SIM_EIO);
    unsigned n = p2psim_iommu_faults(p, NULL, 0);
    ck_assert_uint_gt(n, 0);
    r = copy(p, (struct p2psim_loc){ P2PSIM_DEVICE, 0, 0 },
             (struct p2psim_loc){ P2PSIM_HOST, 0, vm_buf });
    ck_assert_int_eq(r.status, 0);
    ck_assert_uint_eq(p2psim_iommu_faults(p, NULL, 0), n);
    p2psim_close(p);
}
END_TEST

/* Seen from vm-b: its two GPUs, numbered from 0, P2P between them, and
 * host buffers (a program's, a staged copy's) in vm-b's memory. */
START_TEST(test_vms_guest_view)
{
    struct p2psim_options o = { .vm = "vm-b" };
    struct p2psim *p = test_open(HOST, &o);
    ck_assert_uint_eq(p2psim_gpu_count(p), 2);
    ck_assert_str_eq(p2psim_gpu_id(p, 0), "gpu2");
    ck_assert_str_eq(p2psim_gpu_id(p, 1), "gpu3");
    ck_assert_int_eq(p2psim_guest_vm(p), 1);
    ck_assert_int_eq(p2psim_gpu_vm(p, 0), 1);
    struct p2psim_verdict v;
    ck_assert_int_eq(p2psim_p2p(p, 0, 1, &v), 0);
    ck_assert(v.allowed);
    uint64_t buf;
    ck_assert_int_eq(p2psim_host_register(p, NULL, BYTES, 0, &buf), 0);
    ck_assert_uint_ge(buf, 64 * GIB + 32 * GIB);    /* its upper half */
    ck_assert_uint_lt(buf, 128 * GIB);
    fill(p, 0, 0x33);
    struct p2psim_copy_result r = copy(p, (struct p2psim_loc){
        P2PSIM_HOST, 0, buf }, (struct p2psim_loc){ P2PSIM_DEVICE, 0, 0 });
    ck_assert_int_eq(r.status, 0);
    /* a staged peer copy's chunks are in the guest's memory too */
    struct p2psim_loc d = { P2PSIM_DEVICE, 1, 0 }, s = { P2PSIM_DEVICE, 0, 0 };
    r.status = 99;
    ck_assert_int_eq(p2psim_copy(p, &d, &s, BYTES, 0, p2psim_now(p),
                                 on_done, &r), 0);
    ck_assert_int_eq(p2psim_run(p), 0);
    ck_assert_int_eq(r.status, 0);
    ck_assert(r.staged);
    ck_assert(all_are(p, 1, 0x33));
    ck_assert_uint_eq(p2psim_iommu_faults(p, NULL, 0), 0);
    p2psim_close(p);
}
END_TEST

static const char small[] =
    "p2psim-machine: 1\n"
    "name: vms\n"
    "sockets:\n"
    "  - { id: cpu0, memory: { size: 64GiB },\n"
    "      root-complex: { iommu: translating }, root-ports: 2 }\n"
    "gpus:\n"
    "  - { id: g0, model: TEST-GPU, parent: cpu0 }\n"
    "  - { id: g1, model: TEST-GPU, parent: cpu0 }\n"
    "vms:\n"
    "  - { name: a, gpus: [g0], memory: 16GiB }\n"
    "  - { name: b, gpus: [g1], memory: 16GiB }\n";

static const struct vms_error {
    const char *overrides, *vm, *says;
} vms_errors[] = {
    { "vms=[{ name: a, gpus: [g0, g0], memory: 1GiB }]", NULL,
      "GPU 'g0' is already given to VM 'a'" },
    { "vms.1.gpus=[g0]", NULL, "already given to VM 'a'" },
    { "vms.1.gpus=[cpu0]", NULL, "'cpu0' is not a GPU" },
    { "vms.1.name=a", NULL, "a second VM named 'a'" },
    { "vms.1.memory=1.5GiB", NULL, "a whole number of GiB" },
    { "vms.1.memory=60GiB", NULL, "does not fit" },
    { "vms.1.socket=g0", NULL, "'g0' is not a socket" },
    { "sockets.cpu0.root-complex.iommu=passthrough", NULL,
      "VFIO needs the IOMMU translating" },
    { "nvlinks=[{ between: [g0, g1] }]", NULL, "NVLinks is not modelled" },
    { NULL, "c", "no VM named 'c' (its vms: 'a', 'b')" },
};

START_TEST(test_vms_errors)
{
    const struct vms_error *c = &vms_errors[_i];
    struct topo_options o = {
        .gpu_dir = P2PSIM_SRCDIR "/tests/topologies/gpus",
        .overrides = c->overrides, .vm = c->vm,
    };
    struct sim_error err;
    sim_error_clear(&err);
    struct topo_machine *m = topo_load_string("vms.yaml", small,
                                              sizeof(small) - 1, &o, &err);
    ck_assert_msg(m == NULL, "%s loaded", c->says);
    ck_assert_msg(strstr(err.msg, c->says) != NULL, "'%s', not '%s'",
                  err.msg, c->says);
}
END_TEST

Suite *make_vms_suite(void)
{
    Suite *s = suite_create("vms");
    TCase *tc = tcase_create("Isolation");
    tcase_add_test(tc, test_vms_verdicts);
    tcase_add_test(tc, test_vms_write_within_vm_lands);
    tcase_add_test(tc, test_vms_write_across_vms_faults);
    tcase_add_test(tc, test_vms_domain_holds_vm_memory_only);
    tcase_add_test(tc, test_vms_guest_view);
    tcase_add_loop_test(tc, test_vms_errors, 0,
                        (int)(sizeof(vms_errors) / sizeof(vms_errors[0])));
    suite_add_tcase(s, tc);
    return s;
}
