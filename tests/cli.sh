#!/bin/sh
# cli.sh - the p2psim command end to end: --help everywhere, exit codes
# (0 success, 2 bad input), topo and explain on machines of the library.
# Prints one line per check and "cli: N passed, M failed".
top=${top_srcdir:-.}
p2psim=${P2PSIM:-./tools/p2psim}
pass=0
fail=0
check() { # name, expected status, grep pattern (or ""), command...
    name=$1 want=$2 pat=$3
    shift 3
    out=$("$@" 2>&1)
    got=$?
    if [ "$got" != "$want" ]; then
        echo "FAIL: $name: exit $got, expected $want"; echo "$out" | head -5
        fail=$((fail + 1)); return
    fi
    if [ -n "$pat" ] && ! printf '%s\n' "$out" | grep -q -- "$pat"; then
        echo "FAIL: $name: output lacks '$pat'"; echo "$out" | head -20
        fail=$((fail + 1)); return
    fi
    echo "ok: $name"; pass=$((pass + 1))
}
T=$top/topologies
check "help" 0 "commands:" $p2psim --help
check "no command" 2 "usage" $p2psim
check "unknown command" 2 "unknown command" $p2psim frobnicate
check "topo help" 0 "nvidia-smi topo -m" $p2psim topo --help
check "explain help" 0 "GPU_A GPU_B" $p2psim explain --help
check "topo default machine" 0 "Legend" $p2psim topo
check "topo missing file" 2 "cannot read" $p2psim topo /nonexistent.yaml
check "topo broken file has file:line:col" 2 "broken/01-unknown-top-key.yaml:16:1: error" \
    $p2psim topo $top/tests/topologies/broken/01-unknown-top-key.yaml
# api-costs: is read by the CUDA runtime's reader (cuda/cudart/api_costs.c),
# and every command that loads the machine reads it too
check "topo bad api-costs has file:line:col" 2 \
    "typo.yaml:16:25: error: unknown key 'lanch' in api-costs (did you mean 'launch'?)" \
    $p2psim topo $top/tests/cudart/api-costs/typo.yaml
check "explain bad api-costs override at --set" 2 "^--set:1:16: error: api-costs: call: " \
    $p2psim explain --set api-costs.call=fast $T/h200-x1.yaml 0 0
check "server bad api-costs, before its socket" 2 "typo.yaml:16:25: error: unknown key 'lanch'" \
    $p2psim server --socket /nonexistent/p2psim.sock --topology $top/tests/cudart/api-costs/typo.yaml
check "topo dgx1 NV2" 0 "GPU0	 X 	NV1	NV1	NV2	NV2	SYS" $p2psim topo $T/dgx1-v100.yaml
check "topo dgx-a100 NV12" 0 "NV12" $p2psim topo $T/dgx-a100.yaml
check "topo hgx-h100 NV18" 0 "NV18" $p2psim topo $T/hgx-h100.yaml
check "explain bad gpu" 2 "no GPU 'gpu99'" $p2psim explain $T/dgx1-v100.yaml gpu0 gpu99
check "explain wrong arg count" 2 "usage" $p2psim explain gpu0
check "explain geforce product block" 0 "\[blocks\] product" \
    $p2psim explain $T/desktop-2x-geforce.yaml gpu0 gpu1
check "explain teaching ACS redirect" 0 "\[slows\] ACS: ACS P2P Request Redirect" \
    $p2psim explain $T/teaching-acs-iommu.yaml gpu0 gpu1
check "explain teaching IOMMU" 0 "\[blocks\] IOMMU" \
    $p2psim explain $T/teaching-acs-iommu.yaml gpu0 gpu1
check "explain teaching fix" 0 "clear ACS P2P Request Redirect on" \
    $p2psim explain $T/teaching-acs-iommu.yaml gpu0 gpu1
check "explain dgx1 cross-socket" 0 "\[blocks\] sockets" \
    $p2psim explain $T/dgx1-v100.yaml gpu0 gpu5
check "explain names the cross-socket P2P rate" 0 \
    "\[slows\] sockets: .*forwards P2P from the other socket, at most 24.0 GB/s (xsocket-p2p-bandwidth)" \
    $p2psim explain $T/8x-rtx4090-2x-epyc7542.yaml gpu0 gpu4
VM=$T/vm-2x-h100-passthrough.yaml
check "explain vm without clique blocks" 0 "\[blocks\] virtual machine: .*no clique" \
    $p2psim explain $VM gpu0 gpu1
check "explain vm fix names the clique" 0 "x-nv-gpudirect-clique=0 on each GPU" \
    $p2psim explain $VM gpu0 gpu1
sed 's/# gpudirect-clique: 0/gpudirect-clique: 0/' $VM > cli-vm-clique.yaml
check "explain vm same clique allows" 0 "\[ok\] virtual machine: .*share GPUDirect P2P clique 0" \
    $p2psim explain cli-vm-clique.yaml gpu0 gpu1
check "explain vm same clique: P2P over PCIe" 0 "^transport: PCIe" \
    $p2psim explain cli-vm-clique.yaml gpu0 gpu1
rm -f cli-vm-clique.yaml
check "explain --set lifts the IOMMU block" 0 "^P2P: available" \
    $p2psim explain $T/teaching-acs-iommu.yaml gpu0 gpu2 \
    --set sockets.cpu0.root-complex.iommu=passthrough
# Every fix explain names, applied, lifts its rule (none names one that
# changes nothing, such as ATS for GPUs that send no translated requests).
check "explain --set both fixes: a direct switch path" 0 "^   1  sw0          in dp0, out dp1" \
    $p2psim explain $T/teaching-acs-iommu.yaml gpu0 gpu1 \
    --set 'switches.sw0.acs=[]' --set sockets.cpu0.root-complex.iommu=passthrough
fixes=$($p2psim explain $T/teaching-acs-iommu.yaml gpu0 gpu1 2>&1 | grep "to lift it")
check "explain names no ATS fix" 1 "" grep -q "ATS" <<EOF_FIX
$fixes
EOF_FIX
check "explain --set same clique allows" 0 "\[ok\] virtual machine" \
    $p2psim explain $VM gpu0 gpu1 --set 'gpus.*.gpudirect-clique=2'
check "explain --set bad value: located error" 2 "^--set:1:33: error: .*bogus" \
    $p2psim explain $T/teaching-acs-iommu.yaml gpu0 gpu2 \
    --set sockets.cpu0.root-complex.iommu=bogus
check "topo --set: P2P matrix follows" 0 "^     0    0    1" \
    $p2psim topo $VM --set 'gpus.*.gpudirect-clique=2'
check "topo lists drives and GDS" 0 "^nvme2	PHB	PHB	1 1" \
    $p2psim topo $T/gds-l40s-switch.yaml
check "explain drive: GDS available" 0 "^GDS: available" \
    $p2psim explain $T/gds-l40s-switch.yaml nvme0 gpu0
check "explain drive: GDS blocked by the IOMMU" 0 "\[blocks\] IOMMU" \
    $p2psim explain $T/gds-acs-iommu.yaml nvme0 gpu0
check "explain drive: the bounce buffer" 0 "^GDS: not available" \
    $p2psim explain $T/gds-acs-iommu.yaml nvme0 gpu0
check "explain drive --set passthrough lifts it" 0 "^GDS: available" \
    $p2psim explain $T/gds-acs-iommu.yaml nvme0 gpu0 \
    --set sockets.cpu0.root-complex.iommu=passthrough
check "topo --dot" 0 "" $p2psim topo $T/dgx1-v100.yaml --dot cli-test.dot
check "dot file is a graph" 0 "graph" cat cli-test.dot
rm -f cli-test.dot
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
