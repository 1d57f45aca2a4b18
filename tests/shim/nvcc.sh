#!/bin/sh
# nvcc.sh - a program compiled by NVIDIA's nvcc (-cudart shared, so it
# imports libcudart.so.13 and has no runpath; reference/cuda-api.md §3.1)
# runs unmodified under `p2psim run`: the build tree's shim serves it
# (found first on LD_LIBRARY_PATH, ahead of the toolkit's runtime), and it
# sees the simulated machine. Needs nvcc (CUDA 13, no GPU); exits 77
# (skipped) without it, as on CI. NVCC names a compiler to use.
. "${top_srcdir:-.}/tests/shim/lib.sh"
need_nvcc
scratch

echo "using $nvcc ($("$nvcc" --version | tail -n 1))"
check "nvcc -cudart shared builds nvcc_hello.cu" 0 "" \
    "$nvcc" -cudart shared -no-compress -o "$work/nvcc_hello" \
    "$top/tests/shim/nvcc_hello.cu"
[ -x "$work/nvcc_hello" ] || { finish nvcc; exit 1; }
check "imports libcudart.so.13" 0 "libcudart.so.13" \
    sh -c "readelf -d '$work/nvcc_hello' | grep NEEDED"
check "imports version node libcudart.so.13" 0 "Name: libcudart.so.13" \
    readelf -V "$work/nvcc_hello"
check "loader picks the shim first" 0 "$(cd "$shim_dir" && pwd -P)" \
    env LD_LIBRARY_PATH="$(cd "$shim_dir" && pwd -P)" ldd "$work/nvcc_hello"

check "h200-x1: one device" 0 "^devices: 1$" \
    "$p2psim" run --topology h200-x1 -- "$work/nvcc_hello"
check "h200-x1: an H200" 0 "^device 0: .*H200" printf '%s\n' "$out"
check "h200-x1: round trip" 0 "^round trip: ok" printf '%s\n' "$out"
# nvcc's default PTX is compute_75; the driver compiles it for the H200
check "h200-x1: ptxVersion the PTX's, binaryVersion the device's" 0 \
    "^kernel: ptx 75, binary 90$" printf '%s\n' "$out"
check "served by the build tree's shim" 0 \
    "^runtime: $(cd "$shim_dir" && pwd -P)/libcudart.so" printf '%s\n' "$out"
if printf '%s\n' "$out" | grep -q "no version information"; then
    bad "no loader warning" "$(printf '%s\n' "$out" | grep "no version information")"
else
    ok "no loader warning"
fi
check "dgx1-v100: eight devices" 0 "^devices: 8$" \
    "$p2psim" run --quiet --topology dgx1-v100 -- "$work/nvcc_hello"

# -rdc=true (what most cuda-samples' CMakeLists ask for): the registered
# image is nvlink's, without PTX; the runtime links the units' PTX from
# __nv_relfatbin (ptx/ptx_link.h). nvcc's default target, and PTX only.
for gen in "" "-gencode arch=compute_75,code=compute_75"; do
    # shellcheck disable=SC2086
    check "nvcc -rdc=true $gen builds a kernel of another unit" 0 "" \
        "$nvcc" -rdc=true -cudart shared $gen -o "$work/rdc" \
        "$top/tests/shim/rdc_main.cu" "$top/tests/shim/rdc_kernel.cu"
    check "-rdc=true $gen: the kernel runs" 0 "^rdc: ok" \
        "$p2psim" run --quiet --topology hgx-h200-x2 -- "$work/rdc"
done
finish nvcc
