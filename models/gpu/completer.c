/*
 * models/gpu/completer.c - what the GPU does with the TLPs it receives:
 *  - Memory writes (MWr) to BAR1 are translated through the BAR1 mappings
 *    (bar1.c) and land in the sparse HBM store when they are delivered.
 *  - Memory reads (MRd) to BAR1 sample HBM at arrival, wait for the HBM
 *    serialiser and access latency (the HBM pipe, gpu.c), and are
 *    answered with CplDs split at the Read Completion Boundary, each at
 *    most MPS bytes (PCIe r6.0 §2.3.1.1; ../shared/reference/pcie-nvlink.md
 *    §2.3).
 *  - AtomicOps (FetchAdd, Swap, CAS; 32 and 64 bit) are checked and
 *    applied by models/pcie/atomicop.c on HBM and return the old value.
 *  - Requests to the GPU's NVLink window (peers over NVLink) reach HBM
 *    without BAR1.
 *  - Requests to unmapped BAR1 pages: writes are dropped and counted
 *    (bar1_misses), non-posted requests get an Unsupported Request
 *    completion (PCIe r6.0 §2.3.1).
 *  - Completions go to the copy engines or, for tags from GPU_TAGS_MAX
 *    up, to the SMs; anything else is unsupported.
 *
 *   MRd --> gpu__receive --> bar1 lookup --(miss)--> UR Cpl ------+
 *                                | hit                            v
 *           HBM sampled now, CplDs held in the HBM pipe until   egress
 *           max(now, hbm_busy_until) + len/bw + latency ------> queue
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "models/gpu/gpu.h"
#include "models/gpu/gpu_int.h"
#include "models/mem/sparse.h"
#include "models/nvlink/power.h"
#include "models/pcie/atomicop.h"
#include "models/pcie/pcie.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/port.h"
#include "sim/sim.h"
#include "sim/tlp.h"

/* Largest read a completer serves: MRRS tops out at 4096 B (PCIe r6.0
 * §7.5.3.4; reference §2.3). */
#define GPU_MAX_READ_BYTES 4096u

/* An "offset" with this bit is an HBM address reached through the NVLink
 * window (BAR1 offsets stay far below it). */
#define GPU_OFF_HBM (UINT64_C(1) << 63)

/*
 * Read or write len bytes at BAR1 offset off, crossing mappings as
 * needed (write if src, read into dst otherwise). The caller has checked
 * with gpu_bar1_is_mapped.
 */
static int __attribute__((noinline, cold)) gpu_hbm_failed(struct gpu *g,
                                                          int rc)
{
    SIM_ASSERT(rc == -SIM_ENOMEM, "gpu %s: HBM access failed (%s)",
               g->c->name, sim_strerror(rc));
    return sim_component_nomem(g->c, "a page of HBM");
}

/* An HBM access's result: 0, or out of memory for a page of HBM (the
 * simulation fails); anything else is a bug. */
static inline int gpu_hbm_check(struct gpu *g, int rc)
{
    return __builtin_expect(rc == 0, 1) ? 0 : gpu_hbm_failed(g, rc);
}

static void gpu_bar1_access(struct gpu *g, uint64_t off, void *dst,
                            const void *src, uint64_t len)
{
    uint64_t done = 0;
    if (off & GPU_OFF_HBM) {
        /* an NVLink window offset: HBM itself */
        uint64_t hbm = off & ~GPU_OFF_HBM;
        int rc = src ? mem_sparse_write(g->hbm, hbm, src, len)
                     : mem_sparse_read(g->hbm, hbm, dst, len);
        gpu_hbm_check(g, rc);
        return;
    }
    while (done < len) {
        uint64_t hbm, contig;
        bool ok = bar1__translate(&g->bar1, off + done, &hbm, &contig);
        SIM_ASSERT(ok, "gpu %s: BAR1 access to an unmapped page", g->c->name);
        uint64_t n = contig < len - done ? contig : len - done;
        int rc;
        if (src) {
            rc = mem_sparse_write(g->hbm, hbm, (const uint8_t *)src + done, n);
        } else {
            rc = mem_sparse_read(g->hbm, hbm, (uint8_t *)dst + done, n);
        }
        if (gpu_hbm_check(g, rc) < 0) {
            return;
        }
        done += n;
    }
}

/*
 * True if the request [addr, addr + len) lies in BAR1 and every byte of it
 * is mapped; *off is its aperture offset. *in_window tells a miss in the
 * window from an address outside it.
 */
static bool gpu_bar1_is_mapped(const struct gpu *g, uint64_t addr,
                               uint64_t len, uint64_t *off, bool *in_window)
{
    uint64_t nvl_hbm;
    if (gpu__nvl_is_local(g, addr, len, &nvl_hbm)) {
        /* NVLink: the whole memory, no BAR1 (nvlink_port.c). */
        *in_window = true;
        *off = GPU_OFF_HBM | nvl_hbm;
        return true;
    }
    *in_window = addr >= g->bar1_base && addr - g->bar1_base < g->bar1_bytes;
    if (!*in_window) {
        return false;
    }
    *off = addr - g->bar1_base;
    if (len > g->bar1_bytes - *off) {
        return false;
    }
    uint64_t done = 0;
    do {
        uint64_t hbm, contig;
        if (!bar1__translate(&g->bar1, *off + done, &hbm, &contig)) {
            return false;
        }
        done += contig;
    } while (done < len);
    return true;
}

/* ---- the completer ------------------------------------------------------- */

/* A completion without data (UR or CA) for req, sent without HBM delay. */
static void gpu_complete_error(struct gpu *g, const struct tlp *req,
                               uint8_t status)
{
    struct tlp *cpl = tlp_new_completion(g->c->sim, req, status, 0);
    if (!cpl) {
        sim_component_nomem(g->c, "a completion");
        return;
    }
    cpl->route_hint = req->route_hint;
    cpl->completer_id = g->id;
    cpl->byte_count = req->len_bytes;
    gpu__egress_push(g, cpl, NULL);
}

static void gpu_miss(struct gpu *g, const struct tlp *t, bool in_window)
{
    if (in_window) {
        g->cnt.bar1_misses++;
        gpu__trace(g, t, t->addr, t->kind,
                   tlp_is_posted(t) ? "BAR1 miss: write to an unmapped page "
                                      "dropped"
                                    : "BAR1 miss: request to an unmapped page "
                                      "gets UR");
    } else {
        g->unclaimed++;
        gpu__trace(g, t, t->addr, t->kind,
                   "request outside BAR1 (BAR0/BAR3 are not modelled)");
    }
}

/* MWr: lands in HBM now. Consumes t. */
static void gpu_write(struct gpu *g, struct tlp *t)
{
    uint64_t off = t->addr - g->bar1_base, hbm, contig;
    bool in_window;
    /* The common case, with one translation: within one mapping. */
    if (t->addr >= g->bar1_base && off < g->bar1_bytes && !t->poisoned &&
        bar1__translate(&g->bar1, off, &hbm, &contig) &&
        contig >= t->len_bytes) {
        if (t->data) {
            gpu_hbm_check(g, mem_sparse_write(g->hbm, hbm, t->data,
                                              t->len_bytes));
        }
        g->cnt.bytes_written_in += t->len_bytes;
        tlp_free(t);
        return;
    }
    if (!gpu_bar1_is_mapped(g, t->addr, t->len_bytes, &off, &in_window)) {
        gpu_miss(g, t, in_window);
    } else if (t->poisoned) {
        /* PCIe r6.0 §2.7.2.2: poisoned write data must not be used. */
        g->poisoned_in++;
        gpu__trace(g, t, t->addr, 0, "poisoned write dropped");
    } else {
        if (t->data) {
            gpu_bar1_access(g, off, NULL, t->data, t->len_bytes);
        }
        g->cnt.bytes_written_in += t->len_bytes;
    }
    tlp_free(t);
}

/*
 * gpu_split_completions - answer a read of [addr, addr + len) whose data
 * is at buf: CplDs of at most mps bytes; every one but the last ends on an
 * RCB boundary (PCIe r6.0 §2.3.1.1). Each carries byte_count (bytes left,
 * itself included) and lower_addr. They enter the HBM pipe at `when`.
 */
/* A successful completion for req with n bytes of payload, or NULL out
 * of memory (the simulation has failed then). */
static struct tlp *gpu_data_completion(struct gpu *g, const struct tlp *req,
                                       uint32_t n)
{
    struct tlp *cpl = tlp_new_completion(g->c->sim, req, TLP_CPL_SC, n);
    if (cpl && tlp_data_alloc(cpl, n) == 0) {
        return cpl;
    }
    if (cpl) {
        tlp_free(cpl);
    }
    sim_component_nomem(g->c, "a completion");
    return NULL;
}

static void gpu_split_completions(struct gpu *g, const struct tlp *req,
                                  const uint8_t *buf, uint32_t len,
                                  sim_time_t when)
{
    uint64_t a = req->addr;
    uint64_t end = req->addr + len;
    while (a < end) {
        uint32_t n = pcie_cpl_split_bytes(a, end, g->mps, g->rcb);
        uint64_t stop = a + n;
        struct tlp *cpl = gpu_data_completion(g, req, n);
        if (!cpl) {
            return;
        }
        memcpy(cpl->data, buf + (a - req->addr), n);
        cpl->route_hint = req->route_hint;
        cpl->completer_id = g->id;
        cpl->byte_count = (uint32_t)(end - a);
        cpl->lower_addr = (uint16_t)(a & 0x7f);
        gpu__hbm_pipe_push(g, cpl, when);
        a = stop;
    }
}

/*
 * MRd: sample HBM now, complete after the HBM serialiser and latency.
 * Model: sampling at arrival orders the read after every write that
 * arrived before it (PCIe r6.0 §2.4.1: a read must not pass a posted
 * write) and before every later one.
 */
static void gpu_read(struct gpu *g, struct tlp *t)
{
    uint64_t off;
    bool in_window;
    uint32_t len = t->len_bytes;
    if (len > GPU_MAX_READ_BYTES) {
        /* Malformed (longer than any MRRS); Model: answered UR. */
        g->unsupported++;
        gpu__trace(g, t, t->addr, len, "read longer than 4 KiB: UR");
        gpu_complete_error(g, t, TLP_CPL_UR);
    } else if (!gpu_bar1_is_mapped(g, t->addr, len ? len : 1, &off,
                                   &in_window)) {
        gpu_miss(g, t, in_window);
        gpu_complete_error(g, t, TLP_CPL_UR);
    } else if (len == 0) {
        /*
         * A zero-length read (First DW BE 0000b), the flush that ends a
         * stream of writes: the completion carries 1 DW and Byte Count 1
         * (PCIe r6.0 §2.2.5, §2.2.9). It still waits for HBM.
         */
        uint8_t dw[4] = { 0 };
        sim_time_t when = gpu__hbm_reserve(g, 4) + g->hbm_latency_ps;
        struct tlp *cpl = gpu_data_completion(g, t, 4);
        if (cpl) {
            memcpy(cpl->data, dw, 4);
            cpl->route_hint = t->route_hint;
            cpl->completer_id = g->id;
            cpl->byte_count = 1;
            gpu__hbm_pipe_push(g, cpl, when);
        }
    } else {
        uint8_t buf[GPU_MAX_READ_BYTES];
        gpu_bar1_access(g, off, buf, NULL, len);
        sim_time_t when = gpu__hbm_reserve(g, len) + g->hbm_latency_ps;
        gpu_split_completions(g, t, buf, len, when);
        g->cnt.bytes_read_in += len;
    }
    tlp_free(t);
}

/*
 * AtomicOps: checked and applied by models/pcie/atomicop.c (the PCIe
 * rules: a malformed or 128-bit one gets UR). The update is atomic
 * because it happens in one event at delivery; the completion waits for
 * the HBM serialiser, charged the operand twice (read and write), and the
 * access latency.
 */
static void gpu_atomic(struct gpu *g, struct tlp *t)
{
    unsigned size;
    const char *why;
    uint64_t off;
    bool in_window;
    if (pcie_atomicop_check(t, &size, &why) != PCIE_ATOMICOP_OK) {
        char what[64];
        snprintf(what, sizeof(what), "%s: UR", why);
        g->unsupported++;
        gpu__trace(g, t, t->addr, t->len_bytes, what);
        gpu_complete_error(g, t, TLP_CPL_UR);
        tlp_free(t);
        return;
    }
    if (!gpu_bar1_is_mapped(g, t->addr, size, &off, &in_window)) {
        gpu_miss(g, t, in_window);
        gpu_complete_error(g, t, TLP_CPL_UR);
        tlp_free(t);
        return;
    }
    uint8_t old[8], nv[8];
    gpu_bar1_access(g, off, old, NULL, size);
    if (pcie_atomicop_apply(t, size, old, nv)) {
        gpu_bar1_access(g, off, NULL, nv, size);
    }
    g->atomics++;
    sim_time_t when = gpu__hbm_reserve(g, 2 * (uint64_t)size) +
                      g->hbm_latency_ps;
    struct tlp *cpl = gpu_data_completion(g, t, size);
    if (!cpl) {
        tlp_free(t);
        return;
    }
    memcpy(cpl->data, old, size);
    cpl->route_hint = t->route_hint;
    cpl->completer_id = g->id;
    cpl->byte_count = size;
    cpl->lower_addr = (uint16_t)(t->addr & 0x7f);
    gpu__hbm_pipe_push(g, cpl, when);
    tlp_free(t);
}

void gpu__receive(struct sim_component *c, struct sim_port *in,
                        struct tlp *t)
{
    struct gpu *g = gpu__from(c);
    g->cnt.tlps_in++;
    /* Answers leave the way the request came in (out_of). */
    t->route_hint = in->user ? (uint32_t)((struct gpu_out *)in->user - g->out)
                             : 0;
    if (t->route_hint != 0) {
        nvl_power_touch(g->nvl_power, sim_now(c->sim)); /* over NVLink */
    }
    switch (t->kind) {
    case TLP_MWR:
        gpu_write(g, t);
        break;
    case TLP_MRD:
        gpu_read(g, t);
        break;
    case TLP_FETCHADD:
    case TLP_SWAP:
    case TLP_CAS:
        gpu_atomic(g, t);
        break;
    case TLP_CPL:
    case TLP_CPLD:
        if (t->tag >= GPU_TAGS_MAX) {
            sm__receive_completion(g, t);  /* pumps the egress itself */
            return;
        }
        ce__receive_completion(g, t);  /* pumps the egress itself */
        return;
    default:
        /* Messages, ATS: Model: not handled by the GPU. */
        g->unsupported++;
        gpu__trace(g, t, t->kind, 0, "TLP kind not handled by the GPU");
        if (pcie_tlp_is_np_request(t)) {
            gpu_complete_error(g, t, TLP_CPL_UR);
        }
        tlp_free(t);
        break;
    }
    gpu__egress_pump(g);
}
