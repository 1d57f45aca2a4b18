/*
 * fuzz/fuzz_ipc.c - libFuzzer harness of CUDA IPC handles opened from
 * arbitrary bytes, through the p2psim server that checks them
 * (cuda/server/server_ipc.c; the shim's side, cuda/cudart/ipc.c, only copies a
 * handle's 64 bytes, compares magic, version and session, and forwards
 * the fields as below, which is what this harness does too).
 *
 * Every input starts from one server where client 0 (the exporter) has a
 * 1 MiB allocation on GPU 0 exported (handle nonce 2; the session is 1:
 * fuzzing builds draw tokens from a sequence) and an interprocess event
 * exported (id 1, nonce 3) with one record pending. The input is records
 * of 65 bytes:
 *
 *   one control byte: bits 0-1 the client that uses the handle (0-3;
 *     clients 1-3 connect with HELLO when first named); bits 2-4 what it
 *     does: 0 cudaIpcOpenMemHandle, 1 cudaIpcCloseMemHandle, 2
 *     cudaIpcOpenEventHandle, 3 a wait on the event, 4 a query, 5 a
 *     record, 6 a record's completion, 7 the exporter's destroy; bit 5:
 *     the exporter frees its allocation first; bit 6: the client hangs up
 *     afterwards; bit 7: the clients then wait in the simulator;
 *   the handle's 64 bytes (struct wire_ipc_handle; its reserved bytes
 *     give a wait's generation and callback).
 *
 * A handle that is not one (magic, version) or of another session is
 * refused by the shim without asking the server, as here. Seeds:
 * fuzz/corpus/ipc/.
 */
#define _GNU_SOURCE /* memfd_create */
#include <config.h>

#include "fuzz/server_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REC (1 + sizeof(struct wire_ipc_handle))

static void setup(struct fh *h)
{
    fh_connect(h, 0, true);
    struct wire_hbm a = { .gpu = 0, .len = 1 << 20, .align = 512 };
    fh_request(h, 0, WIRE_HBM_ALLOC, &a, sizeof(a));
    struct wire_ipc_mem x = { .gpu = 0, .off = 0, .size = 1 << 20 };
    fh_request(h, 0, WIRE_IPC_MEM_EXPORT, &x, sizeof(x));
    struct wire_ipc_event e = { 0 };
    fh_request(h, 0, WIRE_IPC_EVENT_EXPORT, &e, sizeof(e));
    e.id = 1;
    e.nonce = 3;
    fh_request(h, 0, WIRE_IPC_EVENT_RECORD, &e, sizeof(e));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fh h;
    if (fh_open(&h) < 0) {
        return 0;
    }
    setup(&h);
    for (size_t at = 0; at + REC <= size; at += REC) {
        uint8_t ctl = data[at];
        int i = ctl & 3;
        struct wire_ipc_handle hd;
        memcpy(&hd, data + at + 1, sizeof(hd));
        if (!fh_client(&h, i)) {
            fh_connect(&h, i, true);
        }
        if (ctl & 0x20) {
            struct wire_hbm f = { .gpu = 0, .off = 0 };
            fh_request(&h, 0, WIRE_HBM_FREE, &f, sizeof(f));
        }
        unsigned what = (ctl >> 2) & 7;
        uint32_t magic = what < 2 ? WIRE_IPC_MAGIC_MEM : WIRE_IPC_MAGIC_EVENT;
        if (hd.magic == magic && hd.version == WIRE_VERSION &&
            hd.session == h.s.session) {
            if (what < 2) {
                struct wire_ipc_mem m = { .gpu = hd.gpu, .off = hd.off,
                                          .size = hd.size, .nonce = hd.nonce };
                fh_request(&h, i, what == 0 ? WIRE_IPC_MEM_OPEN
                                            : WIRE_IPC_MEM_CLOSE,
                           &m, sizeof(m));
            } else {
                static const uint32_t type[] = {
                    WIRE_IPC_EVENT_OPEN, WIRE_IPC_EVENT_WAIT,
                    WIRE_IPC_EVENT_QUERY, WIRE_IPC_EVENT_RECORD,
                    WIRE_IPC_EVENT_DONE, WIRE_IPC_EVENT_CLOSE,
                };
                struct wire_ipc_event e = { .id = hd.off, .nonce = hd.nonce };
                memcpy(&e.gen, hd.reserved, sizeof(e.gen));
                memcpy(&e.cb, hd.reserved + 8, sizeof(e.cb));
                e.status = (int32_t)hd.pid;
                fh_request(&h, i, type[what - 2], &e, sizeof(e));
            }
        }
        if (ctl & 0x40) {
            fh_hangup(&h, i);
        }
        if (ctl & 0x80) {
            struct wire_idle w = { .limit = UINT64_MAX };
            for (int k = 0; k < FH_CLIENTS; k++) {
                fh_request(&h, k, WIRE_IDLE, &w, sizeof(w));
            }
        }
    }
    fh_close(&h);
    return 0;
}
