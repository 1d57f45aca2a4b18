#!/bin/sh
# cdp.sh - dynamic parallelism as nvcc compiles it (cdp_kernels.cu,
# -rdc=true with libcudadevrt, -cudart shared, compute_75 PTX), run
# unmodified under `p2psim run` on the default machine, through the server
# and with --single-process: children in the block's NULL stream and in a
# stream it creates run in launch order (a child reading what an earlier,
# slow one writes sees it), a tail launch runs after a fire-and-forget
# child, the host's synchronize waits for every descendant, a struct
# argument arrives as laid out, and recursion stops at CUDA's nesting
# depth with cudaErrorLaunchMaxDepthExceeded. Needs nvcc (CUDA 13, no
# GPU); exits 77 (skipped) without.
. "${top_srcdir:-.}/tests/shim/lib.sh"
need_nvcc
scratch
check "nvcc builds cdp_kernels.cu" 0 "" \
    "$nvcc" -cudart shared -rdc=true -arch=compute_75 \
    -Wno-deprecated-gpu-targets -L"$shim_dir" -o "$work/cdpk" \
    "$top/tests/kernels/cdp_kernels.cu" -lcudadevrt
[ -x "$work/cdpk" ] || { finish cdp; exit 1; }
check "cdp (server)" 0 "^cdp: 0 wrong: ok" \
    "$p2psim" run --quiet -- "$work/cdpk"
check "cdp (one process)" 0 "^cdp: 0 wrong: ok" \
    "$p2psim" run --single-process --quiet -- "$work/cdpk"
finish cdp
