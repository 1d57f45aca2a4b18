#!/bin/sh
# vms.sh - the host's virtual machines end to end (issue 25), on
# topologies/vm-host-4x-l40s-2vms.yaml (gpu0, gpu1 in vm-a; gpu2, gpu3
# in vm-b):
#   - `p2psim topo` lists each VM's GPUs, and P2P only within a VM;
#     `p2psim topo --vm vm-b` shows vm-b's two GPUs only, as 0 and 1;
#   - `p2psim explain` blocks gpu0 -> gpu2 by the VM isolation rule and
#     allows gpu0 -> gpu1 through the IOMMU, whose vm-a domain maps it;
#   - a program under `p2psim run --vm vm-b` (or P2PSIM_VM=vm-a) sees two
#     CUDA devices, and NVML the same two (tests/nvml/nvml_check.c checks
#     NVML against the runtime); an unknown VM is refused before it runs;
#   - inside vm-a, P2P beats the copy staged through the guest's memory.
# The fault of a write across VMs is tests/machine/check_vms.c's.
# Prints "vms: N passed, M failed".
. "${top_srcdir:-.}/tests/shim/lib.sh"
need_shim
scratch
F=$top/topologies/vm-host-4x-l40s-2vms.yaml

check "topo: vm-a holds GPU0 and GPU1" 0 "^VM vm-a: GPU0 GPU1$" \
    "$p2psim" topo "$F"
check "topo: vm-b holds GPU2 and GPU3" 0 "^VM vm-b: GPU2 GPU3$" \
    printf '%s\n' "$out"
check "topo: GPU0 is a peer of GPU1 only" 0 "^     0    0    1    0    0$" \
    printf '%s\n' "$out"
check "topo --vm vm-b: gpu2 and gpu3 as GPU0 and GPU1" 0 \
    "^GPUs: GPU0=gpu2 (L40S) GPU1=gpu3 (L40S)$" "$p2psim" topo "$F" --vm vm-b
check "topo --vm vm-b: says whose view" 0 "^Seen from VM vm-b" \
    printf '%s\n' "$out"
check "topo --vm nope: refused" 2 "no VM named 'nope' (its vms: 'vm-a', 'vm-b')" \
    "$p2psim" topo "$F" --vm nope

check "explain gpu0 gpu2: VM isolation blocks" 0 "\[blocks\] VM isolation" \
    "$p2psim" explain "$F" gpu0 gpu2
check "explain gpu0 gpu2: staged" 0 "P2P: not available" printf '%s\n' "$out"
if printf '%s\n' "$out" | grep -q passthrough; then
    bad "explain gpu0 gpu2: no advice to turn the IOMMU off" "it gives some"
else
    ok "explain gpu0 gpu2: no advice to turn the IOMMU off"
fi
check "explain gpu0 gpu1: available" 0 "P2P: available" \
    "$p2psim" explain "$F" gpu0 gpu1
check "explain gpu0 gpu1: vm-a's domain maps the peer" 0 \
    "\[ok\] IOMMU: .*the domain of VM 'vm-a' maps" printf '%s\n' "$out"

pkg=${PKG_CONFIG:-pkg-config}
if ! command -v "$pkg" >/dev/null 2>&1 ||
   [ ! -f "$build/cuda/driver/.libs/libnvidia-ml.so.1" ]; then
    echo "no pkg-config or no shared NVML: the program checks skipped"
else
    flags=$(PKG_CONFIG_PATH=$build/cuda/cudart "$pkg" --cflags --libs \
        p2psim-cudart)
    # shellcheck disable=SC2086
    check "nvml_check.c builds" 0 "" \
        ${CC:-cc} -std=gnu11 -Wall -Werror $SAN_FLAGS -I"$top" \
        -o "$work/nvml_check" "$top/tests/nvml/nvml_check.c" $flags -ldl
    check "run --vm vm-b: two devices, NVML agrees" 0 "^count: 2$" \
        "$p2psim" run --quiet --vm vm-b --topology "$F" -- "$work/nvml_check"
    check "run --vm vm-b: P2P between them" 0 "^    1    0$" \
        printf '%s\n' "$out"
    check "P2PSIM_VM=vm-a: two devices" 0 "^count: 2$" \
        env P2PSIM_VM=vm-a "$p2psim" run --quiet --topology "$F" -- \
        "$work/nvml_check"
    check "run --vm nope: refused before the program" 1 "no VM named 'nope'" \
        "$p2psim" run --quiet --vm nope --topology "$F" -- "$work/nvml_check"
fi

check "sweep inside vm-a" 0 "" env P2PSIM_VM=vm-a "$p2psim" sweep "$F" \
    --fidelity flow --measure 'p2p-bandwidth 0 1' \
    --measure 'staged-bandwidth 0 1' --csv "$work/s.csv"
p2p=$(awk -F, 'NR == 2 { print $1 }' "$work/s.csv")
staged=$(awk -F, 'NR == 2 { print $2 }' "$work/s.csv")
echo "vm-a gpu0 -> gpu1: P2P ${p2p:-?} GB/s, staged ${staged:-?} GB/s"
if awk -v a="$p2p" -v b="$staged" 'BEGIN { exit !(a > b && b > 0) }'; then
    ok "inside vm-a P2P beats staging"
else
    bad "inside vm-a P2P beats staging" "P2P $p2p, staged $staged GB/s"
fi
finish vms
