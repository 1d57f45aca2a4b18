#!/bin/sh
# run.sh - the P2P kernels of p2p_kernels.cu, built by nvcc (-cudart
# shared) and run unmodified under `p2psim run` on a PCIe machine with
# P2P (pcie-8gpu-2socket): a kernel reading peer memory, the
# p2pBandwidthLatencyTest-style delay + SM copy + latency kernels, a
# producer/consumer across GPUs with and without __threadfence_system,
# atomicAdd_system from two GPUs, and an nvcc kernel against the same
# kernel written in C (same results, same simulated time).
# Plain `p2psim run` puts the machine in a p2psim server, where the nvcc
# kernels run; each program also runs with --single-process (the machine
# in the program's process) and must print the same results and
# simulated times and leave the same summary (--stats) there. The C-kernel
# twin runs only in the program's process: `same` uses --single-process,
# and under a server its C kernel fails with cudaErrorNotSupported.
# Needs nvcc (CUDA 13, no GPU); exits 77 (skipped) without it, as on CI.
. "${top_srcdir:-.}/tests/shim/lib.sh"
need_nvcc
scratch
mkdir -p "$work/inc"
# Only the device-API header: our CUDA headers are for host compilers.
cp "$top/machine/include/p2psim_kernel.h" "$work/inc/"
check "nvcc builds p2p_kernels.cu" 0 "" \
    "$nvcc" -cudart shared -arch=sm_90 -I"$work/inc" -L"$shim_dir" \
    -o "$work/p2p_kernels" "$top/tests/kernels/p2p_kernels.cu"
[ -x "$work/p2p_kernels" ] || { finish kernels; exit 1; }
machine=pcie-8gpu-2socket
# run ARGS: through the server; run1 ARGS: the machine in the process
run() {
    "$p2psim" run --quiet --topology $machine -- "$work/p2p_kernels" "$@"
}
run1() {
    "$p2psim" run --single-process --quiet --topology $machine -- \
        "$work/p2p_kernels" "$@"
}
# both ARGS: runs ARGS through the server and in one process, prints the
# server's output, and fails unless both exit alike, print the same
# (results and simulated times) and leave the same --stats summary
both() {
    "$p2psim" run --quiet --stats "$work/server.json" --topology $machine \
        -- "$work/p2p_kernels" "$@" >"$work/server.out" 2>&1
    rs=$?
    "$p2psim" run --single-process --quiet --stats "$work/single.json" \
        --topology $machine -- "$work/p2p_kernels" "$@" \
        >"$work/single.out" 2>&1
    r1=$?
    cat "$work/server.out"
    [ "$rs" = "$r1" ] || { echo "exit $rs under a server, $r1 in one process"; return 1; }
    diff "$work/server.out" "$work/single.out" || return 1
    diff "$work/server.json" "$work/single.json" || return 1
}
check "a kernel on GPU 1 reads GPU 0's memory" 0 "^peer read: ok" both peer
printf '%s\n' "$out" | grep "peer read"
check "delay kernel, SM copy and latency" 0 "^bwlat: ok" both bwlat
printf '%s\n' "$out" | grep -E "GB/s|latency"
check "producer/consumer with __threadfence_system: never stale" 0 \
    "with fence: 0 of 24 rounds stale" both pc 24 1
check "producer/consumer without it: stale reads happen" 0 \
    "without fence: [1-9][0-9]* of 24 rounds stale" both pc 24 0
printf '%s\n' "$out" | grep "rounds stale"
check "atomicAdd_system from two GPUs: exact total" 0 \
    "atomicAdd_system total: .*: ok" both atomic
check "a __device__ variable with an initializer" 0 \
    "__device__ counter: 1128 .*: ok" both var
check "PTX and C kernel: same results, same time" 0 "^same: ok" run1 same
printf '%s\n' "$out" | grep "ptx kernel"
check "C kernel under a server: not supported, says --single-process" 2 \
    "C kernels .*--single-process" run same
finish kernels
