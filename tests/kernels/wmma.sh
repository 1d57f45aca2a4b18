#!/bin/sh
# wmma.sh - tensor-core GEMMs as nvcc compiles them (wmma_gemm.cu,
# -cudart shared, compute_75 PTX), run unmodified under `p2psim run` on
# the default machine, through the server and with --single-process:
# wmma fragments loaded from and stored to global memory with strides
# (ordinary requests of the memory model), mma over K in steps of 16 and
# an element-wise alpha/beta update of the accumulators, f16 -> f32 and
# u8 -> s32, each element compared with the host's product. Needs nvcc
# (CUDA 13, no GPU); exits 77 (skipped) without.
. "${top_srcdir:-.}/tests/shim/lib.sh"
need_nvcc
scratch
check "nvcc builds wmma_gemm.cu" 0 "" \
    "$nvcc" -cudart shared -arch=compute_75 -Wno-deprecated-gpu-targets \
    -L"$shim_dir" -o "$work/wmmag" "$top/tests/kernels/wmma_gemm.cu"
[ -x "$work/wmmag" ] || { finish wmma; exit 1; }
for mode in f16 u8; do
    check "wmma $mode (server)" 0 "^wmma $mode: 0 wrong: ok" \
        "$p2psim" run --quiet -- "$work/wmmag" $mode
    check "wmma $mode (one process)" 0 "^wmma $mode: 0 wrong: ok" \
        "$p2psim" run --single-process --quiet -- "$work/wmmag" $mode
done
finish wmma
