#!/bin/sh
# compare-topo-dump.sh OURS DUMP - does NCCL's own dump of the topology it
# built (NCCL_TOPO_DUMP_FILE=DUMP) show the machine of OURS (p2psim topo
# --nccl-xml, or the NCCL_TOPO_FILE p2psim run handed over)? The same
# GPUs at the same bus ids, the same NVLinks (far ends, counts), the same
# class for every pair (topo_xml.sh). Prints the differences; exit 0 when
# there are none, 1 otherwise, 2 on bad arguments.
[ $# -eq 2 ] && [ -r "$1" ] && [ -r "$2" ] ||
    { echo "usage: compare-topo-dump.sh OURS.xml NCCL_DUMP.xml" >&2; exit 2; }
. "$(dirname "$0")/topo_xml.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/p2psim-topo-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
rc=0
for f in xml_facts xml_levels; do
    "$f" "$1" >"$tmp/ours"
    "$f" "$2" >"$tmp/dump"
    if ! cmp -s "$tmp/ours" "$tmp/dump"; then
        echo "$f: < ours, > NCCL's dump"
        diff "$tmp/ours" "$tmp/dump"
        rc=1
    fi
done
[ $rc -eq 0 ] && echo "NCCL's dump shows the machine: $(xml_facts "$1" | grep -c '^gpu ') GPUs, the same NVLinks and classes"
exit $rc
