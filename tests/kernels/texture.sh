#!/bin/sh
# texture.sh - textures and surfaces as nvcc compiles them
# (texture_kernels.cu, -cudart shared, compute_75 PTX), run unmodified
# under `p2psim run` on hgx-h200-x2, through the server and with
# --single-process: tex1Dfetch on linear memory (0 past its end),
# tex2D<float4> of a uchar4 array with linear filtering, normalized reads
# and coordinates and wrap, tex2D of pitched memory (cudaMallocPitch,
# cudaMemcpy2D), surf2Dread/surf2Dwrite, tex2DLayered,
# texCubemap at each face's centre and tex3D, filled through
# cudaMemcpy2DToArray and cudaMemcpy3D; each compared with the sampling
# rules (the same program passes on an H200). Needs nvcc (CUDA 13, no
# GPU); exits 77 (skipped) without.
. "${top_srcdir:-.}/tests/shim/lib.sh"
need_nvcc
scratch
check "nvcc builds texture_kernels.cu" 0 "" \
    "$nvcc" -cudart shared -arch=compute_75 -Wno-deprecated-gpu-targets \
    -L"$shim_dir" -o "$work/texk" "$top/tests/kernels/texture_kernels.cu"
[ -x "$work/texk" ] || { finish texture; exit 1; }
machine=hgx-h200-x2
run() {
    "$p2psim" run --quiet --topology $machine -- "$work/texk" "$@"
}
run1() {
    "$p2psim" run --single-process --quiet --topology $machine -- \
        "$work/texk" "$@"
}
for mode in fetch 2d pitch2d surface; do
    check "texture $mode (server)" 0 "^texture $mode: 0 wrong: ok" run $mode
    check "texture $mode (one process)" 0 "^texture $mode: 0 wrong: ok" \
        run1 $mode
done
check "layered, cubemap, 3D arrays (server)" 0 \
    "^texture 3d: 0 wrong: ok" run arrays
for mode in layered cubemap; do
    printf '%s\n' "$out" | grep -q "^texture $mode: 0 wrong: ok" &&
        ok "texture $mode (server)" || bad "texture $mode (server)" "$out"
done
check "layered, cubemap, 3D arrays (one process)" 0 \
    "^texture 3d: 0 wrong: ok" run1 arrays
finish texture
