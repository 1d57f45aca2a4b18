#!/bin/sh
# symbols.sh - the built shim is a drop-in libcudart.so.13 (reference/
# cuda-api.md §3.3): soname libcudart.so.13, a version definition
# libcudart.so.13, every exported symbol in that version node and named
# cuda* or __cuda* (no libp2psim or libc symbol leaks out; besides these,
# the device API of C kernels: devapi_*, p2psim_kernel_register; the
# parked-rounds counter, p2psim_kernel_parked_rounds; what the
# driver API asks of the runtime: p2psim_drv_*), and the entry
# points programs and nvcc's generated code import are all there.
. "${top_srcdir:-.}/tests/shim/lib.sh"
lib=$shim_dir/libcudart.so.13
if [ ! -f "$lib" ]; then
    echo "no $lib (configured with --disable-shared?): skipped"
    exit 77
fi
for t in readelf nm; do
    command -v $t >/dev/null 2>&1 || { echo "$t not found: skipped"; exit 77; }
done

check "soname is libcudart.so.13" 0 "Library soname: \[libcudart.so.13\]" \
    readelf -d "$lib"
check "version definition libcudart.so.13" 0 "Name: libcudart.so.13" \
    readelf -V "$lib"

# Defined dynamic symbols: "NAME@@VERSION" (readelf), skipping the
# version-definition symbol itself (ABS).
syms=$(readelf --dyn-syms -W "$lib" | awk '
    $5 == "GLOBAL" || $5 == "WEAK" {
        if ($7 != "UND" && $7 != "ABS") print $8
    }')
n=$(printf '%s\n' "$syms" | grep -c .)
if [ "$n" -eq 0 ]; then
    bad "exports" "no symbol exported"
else
    ok "exports $n symbols"
fi
stray=$(printf '%s\n' "$syms" | grep . | grep -v '^cuda[A-Za-z0-9_]*@@libcudart\.so\.13$' |
    grep -v '^__cuda[A-Za-z0-9_]*@@libcudart\.so\.13$' |
    grep -v '^sc_main@@libcudart\.so\.13$' |
    grep -v '^devapi_[A-Za-z0-9_]*@@libcudart\.so\.13$' |
    grep -v '^p2psim_kernel_register@@libcudart\.so\.13$' |
    grep -v '^p2psim_kernel_parked_rounds@@libcudart\.so\.13$' |
    grep -v '^p2psim_drv_[a-z_]*@@libcudart\.so\.13$')
if [ -n "$stray" ]; then
    bad "every export is cuda*/__cuda* in node libcudart.so.13" \
        "$(printf '%s\n' "$stray" | head -10 | tr '\n' ' ')"
else
    ok "every export is cuda*/__cuda* in node libcudart.so.13"
fi
# nm agrees (it reads the same table another way).
nm_n=$(nm -D --defined-only "$lib" | awk '$2 != "A"' | grep -c .)
if [ "$nm_n" = "$n" ]; then
    ok "nm -D agrees ($nm_n)"
else
    bad "nm -D agrees" "nm lists $nm_n defined symbols, readelf $n"
fi

# What tests/shim/hello.c and a CUDA 13 nvcc program import (§3.1, §3.2).
for s in cudaGetDeviceCount cudaGetDeviceProperties cudaMalloc cudaMemcpy \
    cudaFree cudaGetErrorString cudaGetLastError cudaDeviceSynchronize \
    cudaProfilerStart cudaProfilerStop \
    __cudaRegisterFatBinary __cudaRegisterFatBinaryEnd \
    __cudaUnregisterFatBinary __cudaRegisterFunction __cudaRegisterVar \
    __cudaPushCallConfiguration __cudaPopCallConfiguration \
    __cudaGetKernel __cudaLaunchKernel; do
    if printf '%s\n' "$syms" | grep -q "^$s@@libcudart\.so\.13$"; then
        ok "exports $s"
    else
        bad "exports $s" "missing"
    fi
done
finish symbols
