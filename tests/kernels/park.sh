#!/bin/sh
# park.sh - spinning warps park (machine/kernel/spin.c) and it changes
# nothing: the kernels of park_kernels.cu (a flag written by the host, by
# a copy engine, by a peer GPU's kernel, by a peer's atomic; a poll with
# __nanosleep; eight warps; a clock64 timeout) and the spinning cases of
# p2p_kernels.cu (the delay kernel, the cross-GPU producer/consumer) run
# with parking (the default) and with P2PSIM_PARK=0, and must print the
# same results and simulated times and leave the same --stats summary
# (events, TLP hops, bytes and TLPs per link), but for "parked_rounds":
# the rounds not interpreted, > 0 where a warp parks, 0 for the timeout
# loop (it reads the clock) and with P2PSIM_PARK=0.
# Needs nvcc (CUDA 13, no GPU); exits 77 (skipped) without it, as on CI.
. "${top_srcdir:-.}/tests/shim/lib.sh"
need_nvcc
scratch
mkdir -p "$work/inc"
cp "$top/machine/include/p2psim_kernel.h" "$work/inc/"
for prog in park_kernels p2p_kernels; do
    check "nvcc builds $prog.cu" 0 "" \
        "$nvcc" -cudart shared -arch=sm_90 -I"$work/inc" -L"$shim_dir" \
        -o "$work/$prog" "$top/tests/kernels/$prog.cu"
    [ -x "$work/$prog" ] || { finish park; exit 1; }
done
machine=pcie-8gpu-2socket
# parity MODE PARKS PROG ARGS: PROG ARGS with and without parking (MODE:
# --single-process or --server); the same output and summary, and
# parked_rounds > 0 with parking if PARKS=1, else 0
parity() {
    mode=$1 parks=$2 prog=$3
    shift 3
    single=
    [ "$mode" = --single-process ] && single=--single-process
    for p in 0 1; do
        P2PSIM_PARK=$p "$p2psim" run $single --quiet \
            --stats "$work/stats.$p" --topology $machine -- \
            "$work/$prog" "$@" >"$work/out.$p" 2>&1
        echo "exit $?" >>"$work/out.$p"
    done
    cat "$work/out.1"
    diff "$work/out.0" "$work/out.1" || return 1
    grep -v parked_rounds "$work/stats.0" >"$work/rest.0"
    grep -v parked_rounds "$work/stats.1" >"$work/rest.1"
    diff "$work/rest.0" "$work/rest.1" || return 1
    off=$(sed -n 's/.*"parked_rounds": \([0-9]*\).*/\1/p' "$work/stats.0")
    on=$(sed -n 's/.*"parked_rounds": \([0-9]*\).*/\1/p' "$work/stats.1")
    echo "parked rounds: $on (off: $off)"
    [ "$off" = 0 ] || return 1
    if [ "$parks" = 1 ]; then [ "${on:-0}" -gt 0 ]; else [ "$on" = 0 ]; fi
}
one=--single-process
check "a host-mapped flag the host sets" 0 "^host: .*read 3" \
    parity $one 1 park_kernels host 2000
check "the same through a server" 0 "^host: .*read 3" \
    parity --server 1 park_kernels host 2000
check "a poll with __nanosleep" 0 "^sleep: .*read 3" \
    parity $one 1 park_kernels sleep 2000
check "a device flag a copy engine writes" 0 "^copy: .*read 3" \
    parity $one 1 park_kernels copy 2000
check "a flag a peer GPU's kernel writes" 0 "^peer: .*read 7" \
    parity $one 1 park_kernels peer 300
check "a flag a peer GPU's atomic adds to" 0 "^atomic: .*read 5" \
    parity $one 1 park_kernels atomic 300
check "eight warps on one host flag" 0 "^warps: .*read 3" \
    parity $one 1 park_kernels warps 2000
check "64 blocks on a device flag the host sets after usleep" 0 \
    "^grid: .*read 3" parity $one 1 park_kernels grid 20
check "a clock64 timeout: not parked, the same" 0 "^timeout: .*read 0" \
    parity $one 0 park_kernels timeout 200
check "p2p_kernels bwlat (the delay kernel)" 0 "^bwlat: ok" \
    parity $one 1 p2p_kernels bwlat
check "p2p_kernels pc 24 1 (consumer polls a peer's flag)" 0 \
    "with fence: 0 of 24 rounds stale" parity $one 1 p2p_kernels pc 24 1
check "p2p_kernels pc 24 0" 0 "without fence: [1-9][0-9]* of 24 rounds stale" \
    parity $one 1 p2p_kernels pc 24 0
finish park
