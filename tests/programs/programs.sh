#!/bin/sh
# programs.sh - our own CUDA programs (tests/programs/*.c, in the spirit of
# the CUDA samples, without kernels) built against the CUDA headers of
# cuda/include and the built shim, and run through `p2psim run` on machines
# of the library (issue 5, "What it must show"):
#
#   peer_copy          P2P ping-pong and a byte-exact peer copy: "Test
#                      passed" on pcie-8gpu-2socket; waived (exit 2) on
#                      desktop-2x-geforce, where no pair may use P2P
#   bandwidth_latency  p2pBandwidthLatencyTest's output: every heading, in
#                      order; the connectivity matrix is what `p2psim topo`
#                      says cudaDeviceCanAccessPeer answers; bidirectional
#                      matrices are symmetric (within 1%); on the blocked
#                      pair of desktop-2x-geforce, P2P=Enabled equals
#                      P2P=Disabled (within 1%: staged either way)
#   thread_per_gpu     a host thread per GPU, bytes intact: PASSED
#
# Sizes are kept small (the simulator moves every byte, through every
# TLP): the whole script takes about 15 s of CPU (bandwidth_latency on the
# 8-GPU machine is most of it).
#
# Environment as for tests/shim/ (see lib.sh): top_srcdir, top_builddir,
# P2PSIM, CC and SAN_FLAGS.
. "${top_srcdir:-.}/tests/shim/lib.sh"
[ -f "$shim_dir/libcudart.so.13" ] ||
    { echo "no shared shim (configured with --disable-shared?): skipped"; exit 77; }
scratch
shim=$(cd "$shim_dir" && pwd -P)
machines=$top/topologies
big=pcie-8gpu-2socket
blocked=desktop-2x-geforce

# ---- build ------------------------------------------------------------------
for prog in peer_copy bandwidth_latency thread_per_gpu; do
    # shellcheck disable=SC2086
    check "$prog builds" 0 "" \
        ${CC:-cc} -std=c11 -Wall -Wextra -Werror $SAN_FLAGS \
        -I"$top/cuda/include" -o "$work/$prog" "$top/tests/programs/$prog.c" \
        -L"$shim" -lcudart -Wl,-rpath,"$shim" -pthread
    [ -x "$work/$prog" ] || { finish programs; exit 1; }
done

# run MACHINE PROGRAM ARGS...: through `p2psim run`, killed after 5
# minutes (a deadlock in the runtime must not hang make check).
guard=
command -v timeout >/dev/null 2>&1 && guard="timeout 300"
run() {
    machine=$1
    shift
    $guard "$p2psim" run --quiet --topology "$machine" -- "$@"
}

# ---- peer_copy ----------------------------------------------------------------
check "peer_copy on $big: Test passed" 0 "^Test passed$" \
    run $big "$work/peer_copy" --mib=4
check "peer_copy on $big: GPU0 and GPU1, in GB/s" 0 \
    "^cudaMemcpyPeer / cudaMemcpy between GPU0 and GPU1: [0-9][0-9.]*GB/s$" \
    printf '%s\n' "$out"
check "peer_copy on $blocked: waived" 2 "waiving" \
    run $blocked "$work/peer_copy" --mib=4

# ---- bandwidth_latency ----------------------------------------------------------

# matrix HEADING FILE: the table under HEADING as "row column value" lines
# (the column-number line right under the heading is skipped).
matrix() {
    awk -v h="$1" '
        $0 == h { on = 1; next }
        on == 1 { on = 2; next }
        on == 2 && $1 ~ /^[0-9]+$/ {
            for (j = 2; j <= NF; j++) print $1, j - 2, $j
            next
        }
        on == 2 { exit }' "$2"
}

# square N: an N x N matrix of numbers on stdin (else prints what is wrong).
square() {
    awk -v n="$1" '
        $3 !~ /^[0-9]+(\.[0-9]+)?$/ { print "not a number: " $0; bad = 1 }
        { k++ }
        END {
            if (k != n * n) { print k " values, expected " n * n; bad = 1 }
            exit bad
        }'
}

# symmetric: m[i][j] within 1% of m[j][i] ("row column value" on stdin).
symmetric() {
    awk '
        { m[$1 " " $2] = $3 }
        END {
            for (k in m) {
                split(k, ij, " ")
                t = m[ij[2] " " ij[1]]
                d = m[k] - t
                if (d < 0) d = -d
                if (t == "" || d > 0.01 * m[k]) {
                    print "m[" ij[1] "][" ij[2] "] = " m[k] \
                        ", m[" ij[2] "][" ij[1] "] = " t
                    bad = 1
                }
            }
            exit bad
        }'
}

# same A B: two matrices ("row column value" files) within 1% of each other.
same() {
    awk '
        NR == FNR { a[$1 " " $2] = $3; next }
        {
            k = $1 " " $2; d = a[k] - $3
            if (d < 0) d = -d
            if (!(k in a) || d > 0.01 * $3) {
                print "[" $1 "][" $2 "]: " a[k] " vs " $3
                bad = 1
            }
            n++
        }
        END { exit bad || n == 0 }' "$1" "$2"
}

# assert NAME COMMAND...: a check whose command prints what is wrong.
assert() {
    name=$1
    shift
    why=$("$@" 2>&1)
    if [ $? -eq 0 ]; then ok "$name"; else bad "$name" "$(echo "$why" | head -5)"; fi
}

# topo_p2p FILE: `p2psim topo`'s cudaDeviceCanAccessPeer table as
# "row column value", the diagonal as 1 (the sample prints 1 there).
topo_p2p() {
    "$p2psim" topo "$1" | awk '
        /^P2P \(cudaDeviceCanAccessPeer\):/ { on = 1; next }
        on && $1 ~ /^D/ { next }
        on && $1 ~ /^[0-9]+$/ {
            for (j = 2; j <= NF; j++) print $1, j - 2, ($1 == j - 2 ? 1 : $j)
            next
        }
        on { exit }'
}

# same_table A B: identical non-empty tables.
same_table() {
    [ -s "$1" ] || { echo "$1 is empty"; return 1; }
    diff "$1" "$2"
}

headings='[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
P2P Connectivity Matrix
Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s)
Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)
Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)
P2P=Disabled Latency Matrix (us)
P2P=Enabled Latency (P2P Writes) Matrix (us)
P2P=Enabled Latency (P2P Reads) Matrix (us)'

# in_order FILE [skip-pattern]: the headings appear in FILE in this order.
in_order() {
    printf '%s\n' "$headings" | grep -v "${2:-^$}" > "$work/want"
    grep -Fx -f "$work/want" "$1" > "$work/got"
    diff "$work/want" "$work/got"
}

check "bandwidth_latency --help" 0 "^--numElems=<NUM_OF_INT_ELEMS>" \
    "$work/bandwidth_latency" --help

bw=$work/bw-$big.txt
check "bandwidth_latency on $big" 0 "^NOTE: The CUDA Samples are not meant" \
    run $big "$work/bandwidth_latency" --numElems=131072
printf '%s\n' "$out" > "$bw"
assert "$big: headings in order" in_order "$bw" "P2P Reads"
assert "$big: 8 devices listed" \
    test "$(grep -c '^Device: [0-7], .*, pciBusID: [0-9a-f]*, pciDeviceID: [0-9a-f]*, pciDomainID:[0-9a-f]*$' "$bw")" -eq 8
assert "$big: 56 CAN/CANNOT Access Peer lines" \
    test "$(grep -Ec '^Device=[0-7] (CAN|CANNOT) Access Peer Device=[0-7]$' "$bw")" -eq 56
assert "$big: GPU and CPU latency tables" \
    test "$(grep -c '^   GPU     0      1' "$bw")" -eq 2 -a \
    "$(grep -c '^   CPU     0      1' "$bw")" -eq 2
topo_p2p "$machines/$big.yaml" > "$work/topo"
matrix "P2P Connectivity Matrix" "$bw" > "$work/conn"
assert "$big: connectivity = p2psim topo's cudaDeviceCanAccessPeer" \
    same_table "$work/topo" "$work/conn"
for h in "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)" \
    "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)" \
    "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)" \
    "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)" \
    "P2P=Disabled Latency Matrix (us)" \
    "P2P=Enabled Latency (P2P Writes) Matrix (us)"; do
    matrix "$h" "$bw" > "$work/m"
    assert "$big: $h: 8 x 8 numbers" square 8 < "$work/m"
done
for h in "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)" \
    "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)"; do
    matrix "$h" "$bw" > "$work/m"
    assert "$big: $h: symmetric" symmetric < "$work/m"
done

bw=$work/bw-$blocked.txt
check "bandwidth_latency --p2p_read on $blocked" 0 "^NOTE: The CUDA" \
    run $blocked "$work/bandwidth_latency" --numElems=131072 --p2p_read
printf '%s\n' "$out" > "$bw"
assert "$blocked: headings in order, with P2P Reads" in_order "$bw"
assert "$blocked: CANNOT Access Peer both ways" \
    test "$(grep -c '^Device=[01] CANNOT Access Peer Device=[01]$' "$bw")" -eq 2
topo_p2p "$machines/$blocked.yaml" > "$work/topo"
matrix "P2P Connectivity Matrix" "$bw" > "$work/conn"
assert "$blocked: connectivity = p2psim topo's cudaDeviceCanAccessPeer" \
    same_table "$work/topo" "$work/conn"
matrix "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)" "$bw" > "$work/off"
for h in "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)" \
    "Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s)"; do
    matrix "$h" "$bw" > "$work/on"
    assert "$blocked: $h = P2P=Disabled (staged either way)" \
        same "$work/off" "$work/on"
done
matrix "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)" "$bw" > "$work/off"
matrix "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)" "$bw" > "$work/on"
assert "$blocked: bidirectional P2P=Enabled = P2P=Disabled" \
    same "$work/off" "$work/on"
assert "$blocked: bidirectional symmetric" symmetric < "$work/on"

# ---- thread_per_gpu -------------------------------------------------------------
check "thread_per_gpu on $big: PASSED" 0 "^PASSED$" \
    run $big "$work/thread_per_gpu" --mib=2
assert "thread_per_gpu on $big: 8 GPUs intact" \
    test "$(printf '%s\n' "$out" | grep -c '^GPU[0-7]: 2 MiB .*bytes intact$')" -eq 8

finish programs
