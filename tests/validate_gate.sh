#!/bin/sh
# validate_gate.sh - the fidelity gate: `p2psim validate --fidelity flow
# --fail-above NAME=MEDIAN,MAX` on every case of data/calibration/ at
# once, each case with its own bounds (below) and all cases together with
# theirs ("all"). A change to a model that makes a case's median or max
# error (over all its off-diagonal cells, bandwidth and latency) worse
# than its bound fails here; a change that improves one tightens its
# bound. The bounds are the models' figures as they stand plus a small
# margin (docs/validate.md, "Where the simulator stands"). The simulation
# is deterministic: the verdict does not depend on the machine's load.
# Then the gate itself: a bound below the figures fails, a bound naming
# no case is refused. About 3 seconds of CPU (flow, a process a matrix).
# Prints one line per check and "validate_gate: N passed, M failed".
. "${top_srcdir:-.}/tests/shim/lib.sh"
need_shim
C=$top/data/calibration
work=$(mktemp -d "${TMPDIR:-/tmp}/validate_gate.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
pass=0
fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }
# The bounds, median,max in percent, over all off-diagonal cells.
set -- \
    --fail-above 8x-rtx4090-dual-epyc7542-p2p-unlock=4.2,39.5 \
    --fail-above 8x-rtx4090-dual-epyc7542-stock-driver=4.4,40 \
    --fail-above 8x-rtxpro6000-dual-epyc9124-direct=1,19 \
    --fail-above dgx1-v100-hybrid-cube-mesh=3,26.5 \
    --fail-above hgx-h200-x2=7.2,12 \
    --fail-above all=4.1,40
$p2psim validate --fidelity flow --jobs 2 "$@" "$C"/*.yaml \
    > "$work/out" 2> "$work/err"
st=$?
grep -E '^case |^median error' "$work/out"
n=$(grep -c '^case ' "$work/out")
if [ "$n" != "$(ls "$C"/*.yaml | wc -l)" ]; then
    bad "a summary for each of the cases: $n"
    tail -5 "$work/err"
elif [ "$st" != 0 ]; then
    bad "validate exits $st:"
    grep -E '^FAIL|simulation failed' "$work/out"
    tail -5 "$work/err"
else
    ok "every case and all within their bounds"
fi
# The gate itself: a bound below the figures fails, naming the summary;
# a bound naming no case is an input error.
expect() { # name, exit status, pattern, pattern that must not be, command...
    name=$1 want=$2 pat=$3 nopat=$4
    shift 4
    "$@" > "$work/out" 2>&1
    st=$?
    if [ "$st" = "$want" ] && grep -q -- "$pat" "$work/out" &&
       { [ -z "$nopat" ] || ! grep -q -- "$nopat" "$work/out"; }; then
        ok "$name"
    else
        bad "$name: exit $st"
        tail -5 "$work/out"
    fi
}
H=$C/hgx-h200-x2.yaml
expect "a bound below the case's median fails, the default passes all" 1 \
    '^FAIL: hgx-h200-x2: median error' '^FAIL: all' \
    $p2psim validate --fidelity flow --fail-above 100 \
    --fail-above hgx-h200-x2=0.1 "$H"
expect "a bound below the max fails" 1 '^FAIL: all: max error' '' \
    $p2psim validate --fidelity flow --fail-above 100,0.5 "$H"
expect "a bound naming no case is refused" 2 'no case of that name' '' \
    $p2psim validate --check --fail-above nosuch=1 "$H"
echo "validate_gate: $pass passed, $fail failed"
[ "$fail" = 0 ]
