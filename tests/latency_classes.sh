#!/bin/sh
# latency_classes.sh - small-copy latency per path class (issue 22), with
# p2psim sweep (16-byte copies, peer access), both fidelities:
#   - one copy alone (repeat=1) waits for its setup, its write's trip and
#     the flushing read's round trip, hop by hop: on
#     tests/topologies/latency-classes.yaml it grows strictly PIX < PXB <
#     PHB < SYS from one GPU, and PHB <= NODE < SYS between GPUs on root
#     ports;
#   - 100 copies queued on one engine (the sample's latency) over PCIe:
#     posted writes stay in order on one path, so each copy's setup
#     overlaps the round trip of the one before, and every class takes
#     about one setup (within 2%), as the RTX PRO 6000s measure (0.44 us
#     same socket and across: data/calibration/8x-rtxpro6000-*);
#   - over NVLink: one link keeps order (DGX-1V NV1: about one setup,
#     within 10% of the 1.61 us measured); a bonded pair (NV2) and
#     NVSwitch (hgx-h100, NV18) stripe their writes over several links,
#     so the next copy waits for the drain and sets up after it: a queued
#     copy takes the single copy's whole time (within 1%), NV2 within 10%
#     of the 2.01 us measured on the DGX-1V, above NV1.
# Prints the latencies and one line per check; "latency_classes: N passed,
# M failed". Deterministic (simulated time); a few seconds.
. "${top_srcdir:-.}/tests/shim/lib.sh"
need_shim
T=$top/topologies
work=$(mktemp -d "${TMPDIR:-/tmp}/latency_classes.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
pass=0
fail=0
# lat FIDELITY MACHINE REPEAT A-B...: one latency per pair of GPUs, in us,
# on one line (a sweep of one point).
lat() {
    fid=$1 m=$2 rep=$3
    shift 3
    args=
    for p in "$@"; do
        args="$args --measure 'latency ${p%-*} ${p#*-}'"
    done
    if ! eval "\$p2psim sweep \"\$m\" --fidelity \$fid --set repeat=\$rep $args" \
        > "$work/csv" 2> "$work/err"; then
        echo "sweep failed on $m:" >&2
        tail -3 "$work/err" >&2
        return 1
    fi
    awk -F, 'NR == 2 { for (i = 2; i <= NF; i++) printf "%s ", $i }' \
        "$work/csv"
}
# check NAME AWK-CONDITION VALUES...: the condition on $1, $2, ... (an
# empty VALUES, a failed sweep, fails)
check() {
    name=$1 cond=$2
    shift 2
    if echo "$@" | awk "{ exit !($cond) }"; then
        echo "ok: $name ($*)"
        pass=$((pass + 1))
    else
        echo "FAIL: $name ($*)"
        fail=$((fail + 1))
    fi
}
C=$top/tests/topologies/latency-classes.yaml
for fid in tlp flow; do
    # PIX PXB PHB SYS from gpu0; PHB NODE SYS between root ports.
    one=$(lat $fid "$C" 1 0-1 0-2 0-3 0-4 3-6 4-5 3-4)
    check "$fid: one copy, PIX < PXB < PHB < SYS" \
        '$1 > 0 && $1 < $2 && $2 < $3 && $3 < $4' $one
    check "$fid: one copy, PHB <= NODE < SYS on root ports" \
        '$5 > 0 && $5 <= $6 && $6 < $7' $one
    q=$(lat $fid "$C" 100 0-1 0-2 0-3 0-4 3-6 4-5 3-4)
    check "$fid: queued over PCIe, every class within 2% of PIX" \
        '$1 > 0 && $2 < 1.02 * $1 && $3 < 1.02 * $1 && $4 < 1.02 * $1 &&
         $5 < 1.02 * $1 && $6 < 1.02 * $1 && $7 < 1.02 * $1' $q
    check "$fid: queued over PCIe below one copy alone (overlapped)" \
        "\$1 < $(echo $one | cut -d' ' -f1)" $q
    # DGX-1V: NV1 (gpu0-gpu1), NV2 (gpu0-gpu3).
    one=$(lat $fid "$T/dgx1-v100.yaml" 1 0-1 0-3)
    q=$(lat $fid "$T/dgx1-v100.yaml" 100 0-1 0-3)
    check "$fid: DGX-1V queued NV1 < NV2" '$1 > 0 && $1 < $2' $q
    check "$fid: DGX-1V queued NV1, NV2 within 10% of 1.61, 2.01 us" \
        '$1 > 1.45 && $1 < 1.77 && $2 > 1.81 && $2 < 2.21' $q
    check "$fid: DGX-1V queued NV2 is one copy's whole time (1%)" \
        "\$2 > 0.99 * $(echo $one | cut -d' ' -f2) &&
         \$2 < 1.01 * $(echo $one | cut -d' ' -f2)" $q
    # HGX H100: NVSwitch.
    one=$(lat $fid "$T/hgx-h100.yaml" 1 0-1)
    q=$(lat $fid "$T/hgx-h100.yaml" 100 0-1)
    check "$fid: HGX H100 queued over NVSwitch is one copy's whole time (1%)" \
        "\$1 > 0.99 * $one && \$1 < 1.01 * $one" $q
done
echo "latency_classes: $pass passed, $fail failed"
[ "$fail" = 0 ]
