#!/bin/sh
# nvml.sh - p2psim's NVML (libnvidia-ml.so.1) under `p2psim run`, loaded
# with dlopen as NCCL loads it (nvml_check.c): on a machine with
# NVSwitches (hgx-h100), one with direct NVLinks (dgx1-v100), one of PCIe
# switches only (pcie-8gpu-2socket) and one where P2P is blocked
# (4x-rtx4090-switch-acs-iommu), and an EPYC of NUMA nodes per root port
# (8x-rtx4090-2x-epyc7542), its count, bus ids, names, UUIDs and
# P2P status agree with the CUDA runtime's, and the connection matrix
# made from NVML alone (NVLinks' far ends, common ancestors) and its P2P
# matrix are `p2psim topo`'s. And `p2psim topo --nccl-xml` (NCCL's
# topology file) of each: well-formed, one <gpu> per GPU with NVML's bus
# id, each GPU's <nvlink> far ends and counts NVML's; `p2psim run` hands
# the program such a file in NCCL_TOPO_FILE unless it is set.
. "${top_srcdir:-.}/tests/shim/lib.sh"
pkg=${PKG_CONFIG:-pkg-config}
command -v "$pkg" >/dev/null 2>&1 || { echo "pkg-config not found: skipped"; exit 77; }
[ -f "$build/cuda/driver/.libs/libnvidia-ml.so.1" ] ||
    { echo "no shared NVML (configured with --disable-shared?): skipped"; exit 77; }
scratch

PKG_CONFIG_PATH=$build/cuda/cudart
export PKG_CONFIG_PATH
flags=$("$pkg" --cflags --libs p2psim-cudart)
# shellcheck disable=SC2086
check "nvml_check.c builds" 0 "" \
    ${CC:-cc} -std=gnu11 -Wall -Werror $SAN_FLAGS -I"$top" -o "$work/nvml_check" \
    "$top/tests/nvml/nvml_check.c" $flags -ldl
[ -x "$work/nvml_check" ] || { finish nvml; exit 1; }

# The connection matrix (its GPU rows, n cells each) and the P2P matrix
# (the cells) of `p2psim topo`'s output ($1) and nvml_check's ($2).
topo_matrix() {
    awk -F '\t' -v n="$2" '
        /^GPU[0-9]+\t/ { s = $1; for (i = 2; i <= n + 1; i++) { c = $i; gsub(/ /, "", c); s = s " " c }; print s }
        /^P2P/ { p = 1; next }
        p && /^ +[0-9]+ / { split($0, a, " "); s = ""; for (i = 2; i <= n + 1; i++) s = s " " a[i]; print "p2p" s }
    ' "$1"
}
mine_matrix() {
    awk -F '\t' '
        /^GPU[0-9]+\t/ { s = $1; for (i = 2; i < NF || (i == NF && $i != ""); i++) { c = $i; gsub(/ /, "", c); s = s " " c }; print s }
        /^P2P/ { p = 1; next }
        p && /^ +[0-9]/ { print "p2p" $0 }
    ' "$1" | sed 's/  */ /g'
}

machines="hgx-h100 dgx1-v100 pcie-8gpu-2socket 4x-rtx4090-switch-acs-iommu 8x-rtx4090-2x-epyc7542"
for m in $machines; do
    file=$top/topologies/$m.yaml
    check "$m: NVML agrees with the runtime" 0 "^count: " \
        "$p2psim" run --quiet --topology "$file" -- "$work/nvml_check"
    printf '%s\n' "$out" >"$work/$m.nvml"
    n=$(sed -n 's/^count: //p' "$work/$m.nvml")
    check "$m: an unserved export says so once" 0 \
        "p2psim: nvmlDeviceGetTemperature is not served" printf '%s\n' "$out"
    "$p2psim" topo "$file" >"$work/$m.topo" 2>&1
    topo_matrix "$work/$m.topo" "$n" | sed 's/^p2p */p2p /; s/  */ /g' >"$work/$m.want"
    mine_matrix "$work/$m.nvml" | sed 's/^p2p */p2p /; s/  */ /g' >"$work/$m.got"
    if [ -s "$work/$m.want" ] && cmp -s "$work/$m.want" "$work/$m.got"; then
        ok "$m: NVML's matrices are p2psim topo's"
    else
        bad "$m: NVML's matrices are p2psim topo's" \
            "$(diff "$work/$m.want" "$work/$m.got" | head -20)"
    fi
done
. "$top/tests/nvml/topo_xml.sh"
nvml_facts() {
    sed -n 's/^GPU\([0-9]*\): \([^ ]*\) .*/gpu \1 \2/p; /^nvlink /p' "$1" |
        tr 'A-F' 'a-f' | sort
}
for m in $machines; do
    file=$top/topologies/$m.yaml
    check "$m: p2psim topo --nccl-xml" 0 "" \
        "$p2psim" topo "$file" --nccl-xml "$work/$m.xml"
    if ! command -v xmllint >/dev/null 2>&1; then
        echo "(xmllint not found: well-formedness not checked)"
    else
        check "$m: the topology file is well-formed XML" 0 "" \
            xmllint --noout "$work/$m.xml"
    fi
    xml_levels "$work/$m.xml" >"$work/$m.xml.levels"
    grep '^level ' "$work/$m.nvml" | sed 's/ NODE$/ PHB/' | sort >"$work/$m.nvml.levels"
    if [ -s "$work/$m.xml.levels" ] &&
        cmp -s "$work/$m.xml.levels" "$work/$m.nvml.levels"; then
        ok "$m: the file's nesting gives NVML's (and p2psim topo's) classes"
    else
        bad "$m: the file's nesting gives NVML's (and p2psim topo's) classes" \
            "$(diff "$work/$m.nvml.levels" "$work/$m.xml.levels" | head -20)"
    fi
    xml_facts "$work/$m.xml" >"$work/$m.xml.facts"
    nvml_facts "$work/$m.nvml" >"$work/$m.nvml.facts"
    n=$(sed -n 's/^count: //p' "$work/$m.nvml")
    if [ "$(grep -c '^gpu ' "$work/$m.xml.facts")" = "$n" ] &&
        cmp -s "$work/$m.xml.facts" "$work/$m.nvml.facts"; then
        ok "$m: one <gpu> per GPU, NVML's bus ids and NVLinks"
    else
        bad "$m: one <gpu> per GPU, NVML's bus ids and NVLinks" \
            "$(diff "$work/$m.nvml.facts" "$work/$m.xml.facts" | head -20)"
    fi
done
# compare-topo-dump.sh (for NCCL's NCCL_TOPO_DUMP_FILE): a file matches
# itself with NCCL's own attributes added, and not with one link less.
sed 's/<gpu dev="\([0-9]*\)"/<gpu rank="\1" gdr="0" dev="\1"/' "$work/hgx-h100.xml" >"$work/dump.xml"
check "compare-topo-dump.sh: the same machine" 0 "shows the machine: 8 of 8 GPUs" \
    sh "$top/tests/nvml/compare-topo-dump.sh" "$work/hgx-h100.xml" "$work/dump.xml"
# NCCL 2.30.7's own dumps (NCCL_TOPO_DUMP_FILE) of all_reduce_perf under
# p2psim run, recorded: -g 2 on hgx-h100 (GPUs 0 and 1 kept), -g 4 on
# dgx1-v100 (direct NVLinks) and on the P2P-blocked 4x-rtx4090 machine.
for d in hgx-h100:g2:2:8 dgx1-v100:g4:4:8 4x-rtx4090-switch-acs-iommu:g4:4:4; do
    m=${d%%:*} rest=${d#*:}
    g=${rest%%:*} rest=${rest#*:}
    check "compare-topo-dump.sh: NCCL's recorded dump of $m" 0 \
        "shows the machine: ${rest%%:*} of ${rest#*:} GPUs" \
        sh "$top/tests/nvml/compare-topo-dump.sh" "$work/$m.xml" \
        "$top/tests/nvml/nccl-dump-$m-$g.xml"
done
sed '0,/count="5"/s//count="4"/' "$work/hgx-h100.xml" >"$work/dump.xml"
check "compare-topo-dump.sh: a link less" 1 "^< nvlink 0 0000:12:00.0 5" \
    sh "$top/tests/nvml/compare-topo-dump.sh" "$work/hgx-h100.xml" "$work/dump.xml"
grep -q 'tclass="0x068000"' "$work/hgx-h100.xml" &&
    ! grep -q 'tclass="0x068000"' "$work/dgx1-v100.xml" &&
    ok "NVSwitch targets (tclass 0x068000) on hgx-h100 only" ||
    bad "NVSwitch targets (tclass 0x068000) on hgx-h100 only" "see the files"
check "p2psim run hands NCCL_TOPO_FILE over" 0 "^<system version" \
    "$p2psim" run --quiet --topology hgx-h100 -- sh -c 'cat "$NCCL_TOPO_FILE"'
check "p2psim run keeps the user's NCCL_TOPO_FILE" 0 "^mine$" \
    env NCCL_TOPO_FILE=mine "$p2psim" run --quiet -- sh -c 'echo "$NCCL_TOPO_FILE"'
grep -q "^GPU0 X NV18" "$work/hgx-h100.got" && ok "hgx-h100: NV18 through the NVSwitches" ||
    bad "hgx-h100: NV18 through the NVSwitches" "$(head -3 "$work/hgx-h100.got")"
grep -q "^p2p 0 0 0 0$" "$work/4x-rtx4090-switch-acs-iommu.got" &&
    ok "4x-rtx4090-switch-acs-iommu: no P2P" ||
    bad "4x-rtx4090-switch-acs-iommu: no P2P" "$(cat "$work/4x-rtx4090-switch-acs-iommu.got")"
finish nvml
