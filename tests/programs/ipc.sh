#!/bin/sh
# ipc.sh - ipc_exchange.c (two processes exchange device memory and an
# event through CUDA IPC, in the spirit of simpleIPC) built against the
# CUDA headers of cuda/include and the built shim, and run through
# `p2psim run`, whose p2psim server gives both processes one machine:
# PASSED, the child's bytes read back intact by the parent, each
# process's summary at exit, and the same run refused cleanly without a
# server (P2PSIM_SERVER set empty: every process has a machine of its
# own, so the child cannot open the parent's handle).
#
# Environment as for tests/shim/ (see lib.sh): top_srcdir, top_builddir,
# P2PSIM, CC and SAN_FLAGS.
. "${top_srcdir:-.}/tests/shim/lib.sh"
[ -f "$shim_dir/libcudart.so.13" ] ||
    { echo "no shared shim (configured with --disable-shared?): skipped"; exit 77; }
scratch
shim=$(cd "$shim_dir" && pwd -P)
machine=pcie-8gpu-2socket

# shellcheck disable=SC2086
check "ipc_exchange builds" 0 "" \
    ${CC:-cc} -std=c11 -Wall -Wextra -Werror $SAN_FLAGS \
    -I"$top/cuda/include" -o "$work/ipc_exchange" \
    "$top/tests/programs/ipc_exchange.c" \
    -L"$shim" -lcudart -Wl,-rpath,"$shim"
[ -x "$work/ipc_exchange" ] || { finish ipc; exit 1; }

check "ipc_exchange on $machine: PASSED" 0 "^PASSED$" \
    "$p2psim" run --topology $machine -- "$work/ipc_exchange" --mib=2
check "the child wrote through its own GPU" 0 \
    "^child: GPU[1-7] wrote 2097152 bytes into the parent's buffer" \
    printf '%s\n' "$out"
check "the parent read every byte back" 0 \
    "^parent: 2097152 bytes read back through GPU0, 0 differ$" \
    printf '%s\n' "$out"
check "one summary per process, one machine" 0 "" \
    test "$(printf '%s\n' "$out" | grep -c "^p2psim: machine $machine, ")" -eq 2

check "without a server: refused, not crashed" 1 \
    "cudaIpcOpenMemHandle.*cudaErrorNotSupported" \
    env P2PSIM_SERVER= "$p2psim" run --quiet --topology $machine -- \
    "$work/ipc_exchange" --mib=1

# A process that exits with an asynchronous memset and copy in flight
# (../shared/fuzz-found/ipc-1.c, found by fuzzing): the server frees
# them; in a sanitizer build its leak check would report them.
cat >"$work/inflight.c" <<'EOF'
#include <cuda_runtime_api.h>
int main(void)
{
    void *d, *e;
    cudaMalloc(&d, 1 << 20);
    cudaMalloc(&e, 1 << 20);
    cudaMemsetAsync(d, 0, 1 << 20, 0);
    cudaMemcpyAsync(e, d, 1 << 20, cudaMemcpyDeviceToDevice, 0);
    return 0;                   /* exits with both in flight */
}
EOF
# shellcheck disable=SC2086
check "inflight builds" 0 "" \
    ${CC:-cc} -std=c11 -Wall -Wextra -Werror $SAN_FLAGS \
    -I"$top/cuda/include" -o "$work/inflight" "$work/inflight.c" \
    -L"$shim" -lcudart -Wl,-rpath,"$shim"
check "exit with a memset and a copy in flight" 0 "" \
    env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1" \
    "$p2psim" run --quiet --topology $machine -- "$work/inflight"
if printf '%s\n' "$out" | grep -q 'Sanitizer'; then
    bad "the server frees what was in flight" "$(printf '%s\n' "$out" |
        grep -m1 'SUMMARY')"
else
    ok "the server frees what was in flight"
fi
finish ipc
