# lib.sh - what the tests/shim/ scripts share (sourced, not run).
#
# Environment (make check sets it; see tests/local.mk): top_srcdir,
# top_builddir, P2PSIM (the p2psim binary), CC and SAN_FLAGS (configure's
# compiler and sanitizer flags), PKG_CONFIG.
#
# check NAME WANT PATTERN COMMAND...  runs COMMAND, expects exit status
# WANT and (unless PATTERN is "") a line of its output matching PATTERN.
# finish NAME  prints "NAME: N passed, M failed" and sets the exit status.
top=${top_srcdir:-.}
build=${top_builddir:-.}
p2psim=${P2PSIM:-$build/tools/p2psim}
pass=0
fail=0
out=
check() {
    name=$1 want=$2 pat=$3
    shift 3
    out=$("$@" 2>&1)
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: $name: exit $got, expected $want"
        printf '%s\n' "$out" | head -20
        fail=$((fail + 1)); return 1
    fi
    if [ -n "$pat" ] && ! printf '%s\n' "$out" | grep -q -- "$pat"; then
        echo "FAIL: $name: output lacks '$pat'"
        printf '%s\n' "$out" | head -20
        fail=$((fail + 1)); return 1
    fi
    echo "ok: $name"; pass=$((pass + 1))
}
# ok NAME / bad NAME MESSAGE: a check done by hand.
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1: $2"; fail=$((fail + 1)); }
finish() {
    echo "$1: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
# A scratch directory, removed at exit.
scratch() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/p2psim-shim-XXXXXX") || exit 99
    trap 'rm -rf "$work"' EXIT
    trap 'exit 130' INT TERM
}
# The directory that holds the built shim, libcudart.so.13.
shim_dir=$build/cuda/cudart/.libs
# need_shim: exit 77 (skipped) without the shared shim, unless
# P2PSIM_CUDART_DIR names one (p2psim run needs it).
need_shim() {
    if [ ! -f "$shim_dir/libcudart.so.13" ] && [ -z "$P2PSIM_CUDART_DIR" ]; then
        echo "no shared CUDA shim (configured with --disable-shared?): skipped"
        exit 77
    fi
}

# need_nvcc: set $nvcc to CUDA 13's nvcc ($NVCC, else PATH, else
# /usr/local/cuda/bin), or exit 77 (skipped) without one, or in a
# sanitizer build (the shim is built with ASan, which must be the first
# library loaded; an nvcc program is not), or without the shared shim.
need_nvcc() {
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
}
