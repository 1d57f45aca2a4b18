#!/usr/bin/env python3
# fuzz/corpus/mkseeds_server.py - writes the seeds of fuzz_server (into
# fuzz/corpus/server/) and fuzz_ipc (fuzz/corpus/ipc/): sessions as the
# shim speaks them, in the harnesses' input formats (their headers say
# them). Layouts: api/cudart/wire.h on x86-64. Run from the source tree:
#   python3 fuzz/corpus/mkseeds_server.py
import os
import struct

HELLO, BUSY, IDLE, COPY, FILL, TIMER, HREG, HUNREG, ALLOC, FREE, READ, \
    WRITE, STATS, LINK, MEXP, MOPEN, MCLOSE, EEXP, EOPEN, ECLOSE, EREC, \
    EDONE, EQUERY, EWAIT, MODULE, KERNEL = range(1, 27)


def msg(client, type_, payload=b"", flags=0):
    ctl = (client & 3) | flags
    return bytes([ctl]) + struct.pack("<IIQQ", type_, len(payload), 1, 0) + payload


def loc(kind, gpu, addr):
    return struct.pack("<IIQ", kind, gpu, addr)


def copy(dst, src, n, cb, after=0, flags=0):
    return struct.pack("<16s16sQIIQQQ", dst, src, n, flags, 0, 0, cb, after)


def hbm(gpu, off, n, align=0):
    return struct.pack("<IIQQQ", gpu, 0, off, n, align)


def idle(limit=2**64 - 1, outside=0):
    return struct.pack("<QII", limit, outside, 0)


def event(id_, nonce, gen=0, cb=0, status=0):
    return struct.pack("<QQQQiI", id_, nonce, gen, cb, status, 0)


HOST, DEV = 0, 1
MiB = 1 << 20
seeds = {
    "copies": [
        msg(0, ALLOC, hbm(0, 0, MiB, 512)),
        msg(0, ALLOC, hbm(1, 0, MiB, 512)),
        msg(0, FILL, struct.pack("<IIQQQQ", 0, 7, 0, 4096, 0, 1)),
        msg(0, COPY, copy(loc(DEV, 1, 0), loc(DEV, 0, 0), 4096, 2, 0, 1)),
        msg(0, COPY, copy(loc(DEV, 0, 4096), loc(DEV, 0, 0), 4096, 3, 1)),
        msg(0, TIMER, struct.pack("<QQ", 1000000, 4)),
        msg(0, IDLE, idle()),
        msg(0, BUSY),
        msg(0, WRITE, hbm(0, 64, 8) + b"12345678"),
        msg(0, READ, hbm(1, 0, 64)),
        msg(0, STATS),
        msg(0, LINK, struct.pack("<Q", 0)),
        msg(0, FREE, hbm(0, 0, 0)),
        msg(0, IDLE, idle(5000000)),
    ],
    "host": [
        msg(0, HREG, struct.pack("<QQII", 0, 65536, 0, 0), flags=4),
        msg(0, ALLOC, hbm(0, 0, MiB, 512)),
        msg(0, COPY, copy(loc(DEV, 0, 0), loc(HOST, 0, 0), 8192, 1)),
        msg(0, IDLE, idle()),
        msg(0, HUNREG, struct.pack("<Q", 0)),
        msg(0, HREG, struct.pack("<QQII", 0, 4096, 0, 0), flags=4 | 8),
    ],
    "two_clients": [
        msg(0, ALLOC, hbm(0, 0, MiB, 512)),
        msg(0, MEXP, struct.pack("<IIQQQ", 0, 0, 0, MiB, 0)),
        msg(1, MOPEN, struct.pack("<IIQQQ", 0, 0, 0, MiB, 2)),
        msg(1, COPY, copy(loc(DEV, 1, 0), loc(DEV, 0, 0), 65536, 1)),
        msg(0, EEXP, event(0, 0)),
        msg(0, EREC, event(1, 3)),
        msg(1, EWAIT, event(1, 3, 1, 9)),
        msg(0, EDONE, event(1, 3, 1, 0, 0)),
        msg(1, IDLE, idle()),
        msg(0, IDLE, idle(0, 1)),
        msg(1, MCLOSE, struct.pack("<IIQQQ", 0, 0, 0, MiB, 2)),
        msg(0, FILL, struct.pack("<IIQQQQ", 0, 1, 0, MiB, 0, 5), flags=0x10),
        msg(1, EQUERY, event(1, 3)),
    ],
    "out_of_order": [
        msg(2, COPY, copy(loc(DEV, 0, 0), loc(DEV, 1, 0), 64, 1), flags=0x20),
        msg(3, HELLO, struct.pack("<IIII64s", 3, 1, 2, 0, b"x"), flags=0x20),
        msg(0, IDLE, b"\0" * 3),
        msg(1, 100),
    ],
}
ptx = b""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 7;
  st.global.u32 [%rd2], %r1;
  ret;
}
"""
name = b"k"
params = struct.pack("<Q", 0x100000)
seeds["kernel"] = [
    msg(0, ALLOC, hbm(0, 0, MiB, 512)),
    msg(0, MODULE, struct.pack("<QQQ", 1, len(ptx), 0) + ptx),
    msg(0, KERNEL,
        struct.pack("<QI3I3I8I4xQQ", 1, 0, 1, 1, 1, 32, 1, 1, 0, 0, 0,
                    len(name), len(params), 0, 1, 0, 0, 7) +
        name.ljust(8, b"\0") + params +
        struct.pack("<QQ", 0x100000, MiB) + loc(DEV, 0, 0)),
    msg(0, IDLE, idle()),
]
here = os.path.dirname(os.path.abspath(__file__))
for name_, msgs in seeds.items():
    with open(os.path.join(here, "server", name_), "wb") as f:
        f.write(b"".join(msgs))

# fuzz_ipc: a handle's 64 bytes per open (its header says the format).
def handle(magic, gpu, session, off, size, nonce, pid=100, gen=0, cb=0):
    return struct.pack("<IHHIIQQQQQQ", magic, 3, 0, pid, gpu, session, off,
                       size, nonce, gen, cb)


def rec(client, what, flags, h):
    return bytes([client | what << 2 | flags]) + h


MEM, EV = 0x4d433250, 0x45433250
mem = handle(MEM, 0, 1, 0, MiB, 2)
ev = handle(EV, 0, 1, 1, 0, 3, gen=1, cb=5)
ipc = {
    "mem_live": rec(1, 0, 0, mem) + rec(2, 0, 0, mem) + rec(1, 1, 0, mem) +
                rec(0, 0, 0x20, mem) + rec(2, 1, 0x40, mem),
    "event_live": rec(1, 2, 0, ev) + rec(1, 3, 0, ev) + rec(0, 6, 0x80, ev) +
                  rec(2, 4, 0, ev) + rec(0, 7, 0, ev) + rec(3, 2, 0, ev),
    "forged": rec(1, 0, 0, handle(MEM, 0, 1, 0, MiB, 7)) +
              rec(1, 2, 0, handle(EV, 0, 1, 9, 0, 3)) +
              rec(2, 0, 0, handle(MEM, 5, 1, 2**63, 2**64 - 1, 2)) +
              rec(1, 0, 0, handle(MEM, 0, 2, 0, MiB, 2)),
}
for name_, data in ipc.items():
    with open(os.path.join(here, "ipc", name_), "wb") as f:
        f.write(data)
