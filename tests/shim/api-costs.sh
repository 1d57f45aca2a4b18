#!/bin/sh
# api-costs.sh - a machine's host-side call costs (`api-costs:` in machine
# files, topologies/SCHEMA.md) reach the CUDA shim, through a p2psim
# server (`p2psim run`) and in one process (`--single-process`), from the
# file and from P2PSIM_SET.
#
# d2d_calls.c times N back-to-back 4-byte device-to-device cudaMemcpyAsync
# between two events. Each call charges memcpy-async-d2d (C) to the host's
# clock before its copy is enqueued, and a 4-byte copy takes the GPU less
# than the C used here, so copy k starts C after copy k-1 and the events
# span N * C plus the last copy's GPU time. Hence, per copy:
#   - at least C, and less than C + C / N (the last copy's GPU time is
#     less than C);
#   - two runs that differ only in C differ by the difference of the Cs
#     (the GPU's part is the same in both).
#
# Environment as for tests/shim/ (see lib.sh): top_srcdir, top_builddir,
# P2PSIM, CC and SAN_FLAGS.
. "${top_srcdir:-.}/tests/shim/lib.sh"
[ -f "$shim_dir/libcudart.so.13" ] ||
    { echo "no shared shim (configured with --disable-shared?): skipped"; exit 77; }
scratch
shim=$(cd "$shim_dir" && pwd -P)
n=64
key=api-costs.memcpy-async-d2d
# Tolerance on a difference of per-copy times, us: cudaEventElapsedTime's
# float milliseconds, spread over n copies, are exact to far less.
tol=0.01

# shellcheck disable=SC2086
check "d2d_calls builds" 0 "" \
    ${CC:-cc} -std=c11 -Wall -Wextra -Werror $SAN_FLAGS \
    -I"$top/cuda/include" -o "$work/d2d_calls" "$top/tests/shim/d2d_calls.c" \
    -L"$shim" -lcudart -Wl,-rpath,"$shim"
[ -x "$work/d2d_calls" ] || { finish api-costs; exit 1; }

# A machine of one H200 that sets the cost in its file.
cat > "$work/machine.yaml" <<'EOF'
p2psim-machine: 1
name: api-costs-test
api-costs: { memcpy-async-d2d: 7us }
sockets:
  - { id: cpu0, memory: { size: 16GiB }, root-ports: 1 }
gpus:
  - { id: gpu0, model: H200-SXM, parent: cpu0 }
EOF

# per_copy NAME C_US RUN_ARGS... -> $per (us), checked against C_US.
per=
per_copy() {
    pname=$1 cost=$2
    shift 2
    per=
    check "$pname: runs" 0 "^per copy: " "$p2psim" run --quiet "$@" \
        -- "$work/d2d_calls" "$n" || return 1
    per=$(printf '%s\n' "$out" | sed -n 's/^per copy: \([0-9.]*\) us$/\1/p')
    if awk -v p="$per" -v c="$cost" -v n="$n" \
        'BEGIN { exit !(p != "" && p >= c && p < c + c / n) }'
    then
        ok "$pname: $per us per copy, from $cost us"
    else
        bad "$pname: per copy from $cost us to $cost + $cost/$n us" \
            "got '$per'"
    fi
}

# diff_is NAME A B WANT: A - B is WANT (us) within tol.
diff_is() {
    if awk -v a="$2" -v b="$3" -v w="$4" -v t="$tol" \
        'BEGIN { d = a - b - w; exit !(a != "" && b != "" &&
                                      d <= t && -d <= t) }'
    then
        ok "$1: $2 - $3 = $4 us"
    else
        bad "$1" "$2 - $3 us per copy, expected $4 us (within $tol)"
    fi
}

for mode in server single-process; do
    opt=
    [ "$mode" = single-process ] && opt=--single-process
    # shellcheck disable=SC2086
    P2PSIM_SET="$key=5us" per_copy "$mode: P2PSIM_SET 5us" 5 $opt \
        --topology "$work/machine.yaml"
    lo=$per
    # shellcheck disable=SC2086
    P2PSIM_SET="$key=8us" per_copy "$mode: P2PSIM_SET 8us" 8 $opt \
        --topology "$work/machine.yaml"
    hi=$per
    diff_is "$mode: 8us against 5us" "$hi" "$lo" 3
    # shellcheck disable=SC2086
    per_copy "$mode: the file's 7us" 7 $opt --topology "$work/machine.yaml"
    diff_is "$mode: the file's 7us against 5us" "$per" "$lo" 2
done

# A bad value is reported at the override; the program does not run on.
check "bad value: error at --set:1:28" 1 "--set:1:28: .*memcpy-async-d2d" \
    env P2PSIM_SET="$key=5 us" "$p2psim" run --single-process --quiet \
    --topology "$work/machine.yaml" -- "$work/d2d_calls" "$n"
check "unknown key: error at --set:1:11" 1 "--set:1:11: .*unknown key 'memcpy-d2d' in api-costs" \
    env P2PSIM_SET="api-costs.memcpy-d2d=5us" "$p2psim" run --single-process \
    --quiet --topology "$work/machine.yaml" -- "$work/d2d_calls" "$n"

finish api-costs
