#!/bin/sh
# stories.sh - docs/stories.md kept true: runs the commands the walkthrough
# shows, story by story, and checks the claims it makes about their output
# (which path wins, which rule decides, which way a rate moves). Rates are
# compared with each other or with bounds computed from the link's
# parameters, never with numbers pasted from a run. Story 7 builds
# tests/stories-mp.c against the shim and skips its checks where the shim
# or pkg-config is missing. Prints one line per check and
# "stories: N passed, M failed".
#
# Environment (make check sets it; tests/local.mk): top_srcdir,
# top_builddir, P2PSIM, CC, SAN_FLAGS, PKG_CONFIG.
. "${top_srcdir:-.}/tests/shim/lib.sh"
scratch
T=$top/topologies

# field ROW COL FILE: a CSV cell (rows and columns from 1; row 1 is the
# header). A quoted key value such as "[SV,RR,CR,UF]" holds commas, so
# the measures, which come last, are read from the end: COL -1 is the
# last column, -2 the one before.
field() {
    awk -F, -v r="$1" -v c="$2" \
        'NR == r { print (c < 0 ? $(NF + 1 + c) : $c) }' "$3" | tr -d '"'
}
# gt A B: A > B (decimal numbers).
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }
# claim NAME CONDITION...: a check by a condition command.
claim() {
    name=$1
    shift
    if "$@"; then ok "$name"; else bad "$name" "false: $*"; fi
}

# ---- 1. P2P enabled, copies slower than staging -----------------------
M1=$T/8x-rtx4090-2x-epyc7542.yaml
check "1: explain: gpu0 -> gpu1 crosses the root complex" 0 \
    "cpu0         in rp0, out rp1" "$p2psim" explain "$M1" gpu0 gpu1
check "1: explain: the root complex forwards P2P" 0 \
    "\[ok\] root complex" printf '%s\n' "$out"
check "1: sweep of the root complex's P2P rate" 0 "" \
    "$p2psim" sweep "$M1" --fidelity flow \
    --set defaults.root-complex.p2p-bandwidth=100GB/s,8GB/s \
    --measure 'p2p-bandwidth gpu0 gpu1' \
    --measure 'staged-bandwidth gpu0 gpu1' --csv "$work/s1.csv"
p_fast=$(field 2 2 "$work/s1.csv") s_fast=$(field 2 3 "$work/s1.csv")
p_slow=$(field 3 2 "$work/s1.csv") s_slow=$(field 3 3 "$work/s1.csv")
claim "1: fast root complex: P2P beats staging ($p_fast > $s_fast)" \
    gt "$p_fast" "$s_fast"
claim "1: slow root complex: staging beats P2P ($s_slow > $p_slow)" \
    gt "$s_slow" "$p_slow"
claim "1: P2P stays under the root complex's 8 GB/s ($p_slow)" gt 8 "$p_slow"
claim "1: staging does not use the root complex's P2P path" \
    test "$s_fast" = "$s_slow"

# ---- 2. IOMMU on: P2P faults ------------------------------------------
MT=$T/teaching-acs-iommu.yaml
check "2: explain: the IOMMU blocks gpu0 -> gpu2" 0 "\[blocks\] IOMMU" \
    "$p2psim" explain "$MT" gpu0 gpu2
check "2: explain: copies are staged" 0 "P2P: not available" \
    printf '%s\n' "$out"
check "2: explain names the fix" 0 "set iommu: passthrough" \
    printf '%s\n' "$out"
check "2: topo: no pair can access its peer" 0 "^     0    0    0    0$" \
    "$p2psim" topo "$MT"
check "2: sweep translating against passthrough" 0 "" \
    "$p2psim" sweep "$MT" --fidelity flow \
    --set sockets.cpu0.root-complex.iommu=translating,passthrough \
    --measure 'p2p-bandwidth gpu0 gpu2' \
    --measure 'staged-bandwidth gpu0 gpu2' --csv "$work/s2.csv"
claim "2: translating: the P2P measure is the staged copy" \
    test "$(field 2 2 "$work/s2.csv")" = "$(field 2 3 "$work/s2.csv")"
claim "2: passthrough: P2P beats staging" \
    gt "$(field 3 2 "$work/s2.csv")" "$(field 3 3 "$work/s2.csv")"

# ---- 3. ACS redirect: the hairpin --------------------------------------
check "3: explain: ACS redirects gpu0 -> gpu1 up" 0 "<- ACS redirects up" \
    "$p2psim" explain "$MT" gpu0 gpu1
check "3: explain: the hairpin turns at the root complex" 0 \
    "cpu0         in rp0, out rp0" printf '%s\n' "$out"
check "3: sweep ACS on and off" 0 "" \
    "$p2psim" sweep "$MT" --fidelity flow \
    --set sockets.cpu0.root-complex.iommu=passthrough \
    --set 'switches.sw0.acs=[SV,RR,CR,UF],[]' \
    --measure 'p2p-bandwidth gpu0 gpu1' \
    --measure 'bidir-bandwidth gpu0 gpu1' --csv "$work/s3.csv"
uni_acs=$(field 2 -2 "$work/s3.csv") bi_acs=$(field 2 -1 "$work/s3.csv")
uni_off=$(field 3 -2 "$work/s3.csv") bi_off=$(field 3 -1 "$work/s3.csv")
claim "3: bidirectional with ACS ($bi_acs) below 0.6 x without ($bi_off)" \
    awk -v a="$bi_acs" -v b="$bi_off" 'BEGIN { exit !(a < 0.6 * b) }'
claim "3: one way, ACS costs little ($uni_acs against $uni_off)" \
    awk -v a="$uni_acs" -v b="$uni_off" 'BEGIN { exit !(a > 0.9 * b && a <= b) }'
check "3: a traced 1 MiB copy with ACS on and off" 0 "" \
    "$p2psim" sweep "$MT" \
    --set sockets.cpu0.root-complex.iommu=passthrough \
    --set 'switches.sw0.acs=[SV,RR,CR,UF],[]' --set size=1MiB \
    --set repeat=1 --measure 'p2p-bandwidth gpu0 gpu1' \
    --trace "$work/t3.csv"
check "3: ACS on: the copy climbs the uplink" 0 \
    "sw0.up>cpu0.rp0  *1048580" "$p2psim" trace summarize "$work/t3-p0.csv"
check "3: ACS on: ... and comes back down it" 0 \
    "cpu0.rp0>sw0.up  *1048580" printf '%s\n' "$out"
check "3: ACS off: the trace is read" 0 "sw0.dp1>gpu1.pcie" \
    "$p2psim" trace summarize "$work/t3-p1.csv"
if printf '%s\n' "$out" | grep -q "cpu0.rp0"; then
    bad "3: ACS off: nothing reaches the root complex" "$(printf '%s\n' "$out" | grep cpu0.rp0)"
else
    ok "3: ACS off: nothing reaches the root complex"
fi

# ---- 4. Consumer cards ------------------------------------------------
check "4: explain: the product blocks GeForce P2P" 0 "\[blocks\] product" \
    "$p2psim" explain "$T/desktop-2x-geforce.yaml" 0 1
check "4: explain: so copies are staged" 0 "P2P: not available" \
    printf '%s\n' "$out"
check "4: explain: the unlock lifts the block" 0 \
    "\[ok\] product: gpu0 .*p2p-unlocked" \
    "$p2psim" explain "$T/4x-rtx4090-switch-unlocked.yaml" 0 1
check "4: explain: unlocked behind a switch without ACS: P2P" 0 \
    "P2P: available (reads and writes)" printf '%s\n' "$out"
check "4: explain: unlocked, but ACS redirects" 0 "\[slows\] ACS" \
    "$p2psim" explain "$T/4x-rtx4090-switch-acs-iommu.yaml" 0 1
check "4: explain: ... and the IOMMU blocks" 0 "\[blocks\] IOMMU" \
    printf '%s\n' "$out"
check "4: explain: ... so P2P is not available" 0 "P2P: not available" \
    printf '%s\n' "$out"
check "4: sweep ACS and IOMMU one at a time" 0 "" \
    "$p2psim" sweep "$T/4x-rtx4090-switch-acs-iommu.yaml" --fidelity flow \
    --set 'switches.sw0.acs=[SV,RR,CR,UF],[]' \
    --set defaults.root-complex.iommu=translating,off \
    --measure 'bidir-bandwidth 0 1' --measure 'staged-bidir-bandwidth 0 1' \
    --csv "$work/s4.csv"
both=$(field 2 -2 "$work/s4.csv") both_st=$(field 2 -1 "$work/s4.csv")
acs=$(field 3 -2 "$work/s4.csv") iommu=$(field 4 -2 "$work/s4.csv")
none=$(field 5 -2 "$work/s4.csv")
claim "4: ACS and IOMMU: bidirectional is the staged copy" \
    test "$both" = "$both_st"
claim "4: ACS alone: P2P through the hairpin ($acs), above staging" \
    gt "$acs" "$both"
claim "4: IOMMU alone never sees switch-local P2P ($iommu = $none)" \
    test "$iommu" = "$none"
claim "4: neither: the full switch rate, above the hairpin" gt "$none" "$acs"
claim "4: the staged column hardly moves (within 1%)" awk -F, \
    'NR > 1 { v = $NF + 0; if (lo == "" || v < lo) lo = v; if (v > hi) hi = v }
     END { exit !(lo > 0 && hi <= 1.01 * lo) }' "$work/s4.csv"
check "4: unlocked desktop: push P2P against staging" 0 "" \
    "$p2psim" sweep "$T/desktop-2x-geforce.yaml" --fidelity flow \
    --set 'gpus.*.p2p-unlocked=false,true' \
    --measure 'p2p-bandwidth 0 1' --measure 'staged-bandwidth 0 1' \
    --csv "$work/s4d.csv"
claim "4: locked desktop: the P2P measure is the staged copy" \
    test "$(field 2 2 "$work/s4d.csv")" = "$(field 2 3 "$work/s4d.csv")"
claim "4: unlocked desktop: P2P writes beat staging" \
    gt "$(field 3 2 "$work/s4d.csv")" "$(field 3 3 "$work/s4d.csv")"
check "4: unlocked desktop: P2P reads fail (writes-only root complex)" 1 \
    "error 700" "$p2psim" sweep "$T/desktop-2x-geforce.yaml" \
    --fidelity flow --set 'gpus.*.p2p-unlocked=true' \
    --measure 'p2p-read-bandwidth 0 1'

# ---- 6. SM copies against copy engines over NVLink --------------------
MN=$T/desktop-2x-rtx3090-nvlink.yaml
check "6: explain: the pair talks NVLink" 0 "transport: NVLink (NV4" \
    "$p2psim" explain "$MN" 0 1
check "6: bench, copy engines" 0 "" "$p2psim" bench "$MN" \
    --numElems 262144 --matrix uni_p2p_enabled_GBps --csv "$work/ce"
check "6: bench, --sm_copy" 0 "" "$p2psim" bench "$MN" --sm_copy \
    --numElems 262144 --matrix uni_p2p_enabled_GBps --csv "$work/sm"
ce=$(field 2 3 "$work/ce/uni_p2p_enabled_GBps.csv")
sm=$(field 2 3 "$work/sm/uni_p2p_enabled_GBps.csv")
# NV4: four links of 14.0625 GB/s; a 256-byte write is 17 flits of 16 B.
claim "6: copy engines ($ce) under NV4's 256-byte payload rate" \
    awk -v a="$ce" 'BEGIN { exit !(a > 0 && a <= 4 * 14.0625 * 256 / 272) }'
claim "6: --sm_copy ($sm) below the copy engines ($ce)" gt "$ce" "$sm"
claim "6: --sm_copy under NV4's 128-byte payload rate" \
    awk -v a="$sm" 'BEGIN { exit !(a > 0 && a <= 4 * 14.0625 * 128 / 144) }'

# ---- 7. Message passing with and without __threadfence_system ----------
pkg=${PKG_CONFIG:-pkg-config}
if ! command -v "$pkg" >/dev/null 2>&1; then
    echo "7: pkg-config not found: story 7 skipped"
elif [ ! -f "$shim_dir/libcudart.so.13" ]; then
    echo "7: no shared shim: story 7 skipped"
else
    flags=$(PKG_CONFIG_PATH=$build/cuda/cudart "$pkg" --cflags --libs \
        p2psim-cudart)
    # shellcheck disable=SC2086
    check "7: stories-mp.c builds against the shim" 0 "" \
        ${CC:-cc} -std=c11 -Wall -Werror $SAN_FLAGS -o "$work/mp" \
        "$top/tests/stories-mp.c" $flags
    for f in 0 1; do
        check "7: mp $f runs" 0 "^stale reads: " "$p2psim" run --quiet \
            --single-process --topology pcie-8gpu-2socket -- "$work/mp" $f
        eval "stale$f=\$(printf '%s\n' \"\$out\" | sed -n 's/^stale reads: \([0-9]*\) of.*/\1/p')"
    done
    claim "7: without the fence some reads are stale (${stale0:-?})" \
        gt "${stale0:-0}" 0
    claim "7: with __threadfence_system none is (${stale1:-?})" \
        test "${stale1:-x}" = 0
fi

# ---- 8. Bandwidth against transfer size -------------------------------
check "8: sweep size, with a plot" 0 "" \
    "$p2psim" sweep --fidelity flow --set size=4KiB..64MiB*4 \
    --measure 'p2p-bandwidth 0 1' --measure 'latency 0 1' \
    --csv "$work/s8.csv" --plot "$work/s8.png"
rows=$(awk 'END { print NR }' "$work/s8.csv")
claim "8: eight sizes, 4 KiB to 64 MiB" test "$rows" = 9
claim "8: the rate grows with the size" awk -F, \
    'NR > 2 && $2 + 0 <= prev { exit 1 } NR > 1 { prev = $2 + 0 }' \
    "$work/s8.csv"
# Gen4 x16: 16 GT/s x 16 lanes, 128b/130b; 256-byte writes carry 24 bytes
# of TLP overhead (docs/models.md).
bound=$(awk 'BEGIN { printf "%.4f", 16 * 16 / 8 * 128 / 130 * 256 / 280 }')
big=$(field 9 2 "$work/s8.csv") small=$(field 2 2 "$work/s8.csv")
claim "8: 64 MiB ($big) within 3% under the link's $bound GB/s" \
    awk -v a="$big" -v b="$bound" 'BEGIN { exit !(a <= b && a >= 0.97 * b) }'
claim "8: 4 KiB ($small) below a tenth of it" \
    awk -v a="$small" -v b="$bound" 'BEGIN { exit !(a < 0.1 * b) }'
if command -v gnuplot >/dev/null 2>&1; then
    claim "8: the plot is a PNG" sh -c \
        "head -c 4 '$work/s8.png' | grep -q PNG"
else
    echo "8: gnuplot not found: plot check skipped"
fi

# ---- 9. Atomics on a peer ------------------------------------------------
check "9: explain 0 2: atomics are not native at cpu0" 0 \
    "\[slows\] atomics: peer atomics are not native: cpu0" "$p2psim" explain 0 2
check "9: explain 0 2: the fix names p2p-atomics" 0 "p2p-atomics: true" \
    printf '%s\n' "$out"
out=$("$p2psim" explain 0 1 2>&1)
claim "9: explain 0 1 (one switch): no atomics rule" sh -c \
    "! printf '%s\n' \"\$1\" | grep -q 'atomics:'" sh "$out"
out=$("$p2psim" explain 0 2 --set sockets.cpu0.root-complex.p2p-atomics=true 2>&1)
claim "9: p2p-atomics=true: no atomics rule" sh -c \
    "! printf '%s\n' \"\$1\" | grep -q 'atomics:'" sh "$out"

# ---- 11. Virtual machines: one host, two guests ---------------------------
M11=$T/vm-host-4x-l40s-2vms.yaml
check "11: topo: P2P only within a VM" 0 "^     0    0    1    0    0$" \
    "$p2psim" topo "$M11"
check "11: topo: each VM's GPUs" 0 "^VM vm-b: GPU2 GPU3$" printf '%s\n' "$out"
check "11: explain gpu0 gpu2: VM isolation blocks" 0 \
    "\[blocks\] VM isolation: gpu0 is given to VM 'vm-a' and gpu2 to VM 'vm-b'" \
    "$p2psim" explain "$M11" gpu0 gpu2
check "11: explain gpu0 gpu1: allowed through vm-a's domain" 0 \
    "\[ok\] IOMMU: .*the domain of VM 'vm-a' maps" \
    "$p2psim" explain "$M11" gpu0 gpu1
check "11: topo --vm vm-b: its two GPUs only" 0 \
    "^GPUs: GPU0=gpu2 (L40S) GPU1=gpu3 (L40S)$" "$p2psim" topo "$M11" --vm vm-b
check "11: sweep inside vm-a" 0 "" env P2PSIM_VM=vm-a "$p2psim" sweep "$M11" \
    --fidelity flow --measure 'p2p-bandwidth 0 1' \
    --measure 'staged-bandwidth 0 1' --csv "$work/s11.csv"
check "11: the same P2P rate with teaching-acs-iommu's IOMMU in passthrough" \
    0 "" "$p2psim" sweep "$MT" --fidelity flow \
    --set sockets.cpu0.root-complex.iommu=passthrough \
    --measure 'p2p-bandwidth 0 1' --csv "$work/s11t.csv"
p11=$(field 2 1 "$work/s11.csv") s11=$(field 2 2 "$work/s11.csv")
t11=$(field 2 -1 "$work/s11t.csv")
claim "11: inside vm-a P2P beats staging ($p11 > $s11)" gt "$p11" "$s11"
claim "11: vm-a's P2P within 1% of the passthrough hairpin ($p11, $t11)" \
    awk -v a="$p11" -v b="$t11" 'BEGIN { d = a - b; if (d < 0) d = -d;
                                        exit !(b > 0 && d <= 0.01 * b) }'

finish stories
