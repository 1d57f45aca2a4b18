/*
 * fuzz/fuzz_server.c - libFuzzer harness of the p2psim server's wire
 * protocol (cuda/server/server.c, srv_message; cuda/server/wire.h): the input is
 * a stream of client messages to one server, in any order, from up to
 * four clients. Each message is
 *
 *   one control byte: bits 0-1 the client (0-3); bit 2: a 64 KiB memfd
 *     comes with it (bit 3: not sealed against shrinking); bit 4: the
 *     client hangs up after it; bit 5: a client that connects with this
 *     message does not say HELLO first (else the harness sends a valid
 *     one, so that inputs reach past it);
 *   a struct wire_hdr (32 bytes) as the client sends it;
 *   its payload: hdr.len bytes, or what is left of the input (the last
 *     message may be truncated: it is passed with the length it has).
 *
 * After every message the server runs as its loop would (srv_step, runs
 * of at most FH_RUN_EVENTS events); at the end everything is freed with
 * operations still in flight. Seeds: fuzz/corpus/server/.
 */
#define _GNU_SOURCE /* memfd_create */
#include <config.h>

#include "fuzz/server_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fh h;
    if (fh_open(&h) < 0) {
        return 0;
    }
    static unsigned char msg[sizeof(struct wire_hdr) + WIRE_MAX_PAYLOAD];
    size_t at = 0;
    while (at < size) {
        uint8_t ctl = data[at++];
        int i = ctl & 3;
        if (!fh_client(&h, i)) {
            fh_connect(&h, i, !(ctl & 0x20));
        }
        size_t n = size - at < sizeof(struct wire_hdr)
                       ? size - at
                       : sizeof(struct wire_hdr);
        memcpy(msg, data + at, n);
        at += n;
        if (n == sizeof(struct wire_hdr)) {
            struct wire_hdr hdr;
            memcpy(&hdr, msg, sizeof(hdr));
            size_t len = hdr.len < size - at ? hdr.len : size - at;
            if (len > WIRE_MAX_PAYLOAD) {
                len = WIRE_MAX_PAYLOAD;
            }
            memcpy(msg + n, data + at, len);
            at += len;
            n += len;
        }
        int fd = ctl & 4 ? fh_memfd(!(ctl & 8)) : -1;
        fh_send(&h, i, msg, n, fd);
        if (fd >= 0) {
            close(fd);
        }
        if (ctl & 0x10) {
            fh_hangup(&h, i);
        }
    }
    fh_close(&h);
    return 0;
}
