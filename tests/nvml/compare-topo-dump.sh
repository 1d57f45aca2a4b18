#!/bin/sh
# compare-topo-dump.sh OURS DUMP - does NCCL's own dump of the topology it
# built (NCCL_TOPO_DUMP_FILE=DUMP) show the machine of OURS (p2psim topo
# --nccl-xml, or the NCCL_TOPO_FILE p2psim run handed over)? The same
# GPUs at the same bus ids, the same NVLinks (far ends, counts), the same
# class for every pair (topo_xml.sh), for the GPUs the dump has (NCCL
# keeps those its ranks drive: -g 2 dumps two). Prints the differences;
# exit 0 when there are none, 1 otherwise, 2 on bad arguments.
[ $# -eq 2 ] && [ -r "$1" ] && [ -r "$2" ] ||
    { echo "usage: compare-topo-dump.sh OURS.xml NCCL_DUMP.xml" >&2; exit 2; }
. "$(dirname "$0")/topo_xml.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/p2psim-topo-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
rc=0
xml_facts "$2" | sed -n 's/^gpu \([0-9]*\) .*/\1/p' >"$tmp/devs"
# The lines of the GPUs in the dump: "gpu D", "nvlink D", "level A B".
kept() {
    awk 'NR == FNR { keep[$1] = 1; next }
         ($1 != "level" && ($2 in keep)) || ($2 in keep && $3 in keep)' \
        "$tmp/devs" -
}
for f in xml_facts xml_levels; do
    "$f" "$1" | kept >"$tmp/ours"
    "$f" "$2" | kept >"$tmp/dump"
    if ! cmp -s "$tmp/ours" "$tmp/dump"; then
        echo "$f: < ours, > NCCL's dump"
        diff "$tmp/ours" "$tmp/dump"
        rc=1
    fi
done
[ -s "$tmp/devs" ] || { echo "no <gpu> in $2"; rc=1; }
[ $rc -eq 0 ] && echo "NCCL's dump shows the machine: $(wc -l <"$tmp/devs") of $(xml_facts "$1" | grep -c '^gpu ') GPUs, the same NVLinks and classes"
exit $rc
