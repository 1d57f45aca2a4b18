# topo_xml.sh - facts of an NCCL topology file (sourced, not run): ours
# (p2psim topo --nccl-xml) or NCCL's own dump (NCCL_TOPO_DUMP_FILE), one
# XML element a line as both write them.
#
# xml_facts FILE   "gpu DEV BUSID" and "nvlink DEV TARGET COUNT" lines
# xml_levels FILE  "level DEV_A DEV_B CLASS" for every ordered pair
# NCCL's topology file: the GPUs (dev, bus id) and NVLinks it lists.
xml_facts() {
    awk '
        /<pci / { match($0, /busid="[^"]*"/); bus = substr($0, RSTART + 7, RLENGTH - 8) }
        /<gpu / { match($0, /dev="[0-9]+"/); dev = substr($0, RSTART + 5, RLENGTH - 6); print "gpu " dev " " bus }
        /<nvlink / {
            match($0, /target="[^"]*"/); t = substr($0, RSTART + 8, RLENGTH - 9)
            match($0, /count="[0-9]+"/); c = substr($0, RSTART + 7, RLENGTH - 8)
            print "nvlink " dev " " t " " c
        }' "$1" | sort
}
# Each pair's class from the file's nesting, as NCCL reads it: PIX below
# one switch, PXB below a common switch further up, PHB under one <cpu>
# (NVML's NODE too: NCCL has no class for it), SYS across <cpu>s.
xml_levels() {
    awk '
        /<cpu / { match($0, /numaid="[0-9]+"/); cpu = substr($0, RSTART + 8, RLENGTH - 9); depth = 0 }
        /<pci / && !/\/>/ { match($0, /busid="[^"]*"/); stack[++depth] = substr($0, RSTART + 7, RLENGTH - 8) }
        /<\/pci>/ { depth-- }
        /<gpu / {
            match($0, /dev="[0-9]+"/); g = substr($0, RSTART + 5, RLENGTH - 6); n++
            dev[n] = g; cpuof[n] = cpu; len[n] = depth - 1
            for (k = 1; k < depth; k++) up[n, k] = stack[k]
        }
        END {
            for (a = 1; a <= n; a++) for (b = 1; b <= n; b++) {
                if (a == b) continue
                if (cpuof[a] != cpuof[b]) { c = "SYS" }
                else {
                    k = 0
                    while (k < len[a] && k < len[b] && up[a, k + 1] == up[b, k + 1]) k++
                    c = k == 0 ? "PHB" : (k == len[a] && k == len[b]) ? "PIX" : "PXB"
                }
                print "level " dev[a] " " dev[b] " " c
            }
        }' "$1" | sort
}
