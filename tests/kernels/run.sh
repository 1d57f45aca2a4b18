#!/bin/sh
# run.sh - the P2P kernels of p2p_kernels.cu, built by nvcc (-cudart
# shared) and run unmodified under `p2psim run` on a PCIe machine with
# P2P (pcie-8gpu-2socket): a kernel reading peer memory, the
# p2pBandwidthLatencyTest-style delay + SM copy + latency kernels, a
# producer/consumer across GPUs with and without __threadfence_system,
# atomicAdd_system from two GPUs, and an nvcc kernel against the same
# kernel written in C (same results, same simulated time). Kernels need
# the machine in the program's process, hence --single-process.
# Needs nvcc (CUDA 13, no GPU); exits 77 (skipped) without it, as on CI.
. "${top_srcdir:-.}/tests/shim/lib.sh"
nvcc=${NVCC:-}
if [ -z "$nvcc" ]; then
    nvcc=$(command -v nvcc 2>/dev/null) || nvcc=/usr/local/cuda/bin/nvcc
fi
if [ ! -x "$nvcc" ]; then
    echo "nvcc not found: skipped (PATH, /usr/local/cuda/bin, or NVCC=...)"
    exit 77
fi
if [ -n "${SAN_FLAGS:-}" ]; then
    echo "sanitizer build: skipped (an nvcc program cannot load an ASan shim)"
    exit 77
fi
[ -f "$shim_dir/libcudart.so.13" ] ||
    { echo "no shared shim (configured with --disable-shared?): skipped"; exit 77; }
scratch
mkdir -p "$work/inc"
# Only the device-API header: our CUDA headers are for host compilers.
cp "$top/api/include/p2psim_kernel.h" "$work/inc/"
check "nvcc builds p2p_kernels.cu" 0 "" \
    "$nvcc" -cudart shared -arch=sm_90 -I"$work/inc" -L"$shim_dir" \
    -o "$work/p2p_kernels" "$top/tests/kernels/p2p_kernels.cu"
[ -x "$work/p2p_kernels" ] || { finish kernels; exit 1; }
run() {
    "$p2psim" run --single-process --quiet --topology pcie-8gpu-2socket -- \
        "$work/p2p_kernels" "$@"
}
check "a kernel on GPU 1 reads GPU 0's memory" 0 "^peer read: ok" run peer
check "delay kernel, SM copy and latency" 0 "^bwlat: ok" run bwlat
printf '%s\n' "$out" | grep -E "GB/s|latency"
check "producer/consumer with __threadfence_system: never stale" 0 \
    "with fence: 0 of 24 rounds stale" run pc 24 1
check "producer/consumer without it: stale reads happen" 0 \
    "without fence: [1-9][0-9]* of 24 rounds stale" run pc 24 0
printf '%s\n' "$out" | grep "rounds stale"
check "atomicAdd_system from two GPUs: exact total" 0 \
    "atomicAdd_system total: .*: ok" run atomic
check "a __device__ variable with an initializer" 0 \
    "__device__ counter: 1128 .*: ok" run var
check "PTX and C kernel: same results, same time" 0 "^same: ok" run same
printf '%s\n' "$out" | grep "ptx kernel"
finish kernels
