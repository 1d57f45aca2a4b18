#!/bin/sh
# coop.sh - cooperative launches of coop_kernels.cu, built by nvcc
# (-cudart shared, compute_75 PTX; once more with -rdc=true, as the
# CG samples' CMakeLists ask), run unmodified under `p2psim
# run` on hgx-h200-x2, through the server and with --single-process:
# grid.sync() across every CTA of the grid, three rounds (nvcc's
# cooperative groups find the grid barrier's workspace in %envreg1/2,
# which cudaLaunchCooperativeKernel sets); a grid of one block more than
# occupancy x SMs is refused with cudaErrorCooperativeLaunchTooLarge
# and the largest that fits runs; grid.sync() without a cooperative
# launch traps. Needs nvcc (CUDA 13, no GPU); exits 77 (skipped) without.
. "${top_srcdir:-.}/tests/shim/lib.sh"
need_nvcc
scratch
check "nvcc builds coop_kernels.cu" 0 "" \
    "$nvcc" -cudart shared -arch=compute_75 -Wno-deprecated-gpu-targets \
    -L"$shim_dir" -o "$work/coop" "$top/tests/kernels/coop_kernels.cu"
[ -x "$work/coop" ] || { finish coop; exit 1; }
machine=hgx-h200-x2
run() {
    "$p2psim" run --quiet --topology $machine -- "$work/coop" "$@"
}
run1() {
    "$p2psim" run --single-process --quiet --topology $machine -- \
        "$work/coop" "$@"
}
check "grid.sync: every CTA sees every other's writes (server)" 0 \
    "^grid.sync 264 blocks x 64 threads, 3 rounds: 0 wrong sums: ok" run sync
check "grid.sync: the same in one process" 0 \
    "^grid.sync 264 blocks x 64 threads, 3 rounds: 0 wrong sums: ok" run1 sync
check "one block too many: cudaErrorCooperativeLaunchTooLarge" 0 \
    "^265 blocks (at most 2 x 132 SMs): cudaErrorCooperativeLaunchTooLarge: ok" \
    run toolarge
printf '%s\n' "$out" | grep -q "^grid.sync 264 blocks x 1024 threads, 1 rounds: 0 wrong sums: ok" &&
    ok "the largest cooperative grid runs" ||
    bad "the largest cooperative grid runs" "$out"
check "grid.sync without a cooperative launch traps" 0 \
    "cooperative launch: cudaErrorLaunchFailure: ok" run plain
check "nvcc -rdc=true builds coop_kernels.cu" 0 "" \
    "$nvcc" -cudart shared -arch=compute_75 -rdc=true \
    -Wno-deprecated-gpu-targets -L"$shim_dir" -o "$work/coop_rdc" \
    "$top/tests/kernels/coop_kernels.cu"
check "grid.sync built with -rdc=true" 0 \
    "^grid.sync 264 blocks x 64 threads, 3 rounds: 0 wrong sums: ok" \
    "$p2psim" run --quiet --topology $machine -- "$work/coop_rdc" sync
finish coop
