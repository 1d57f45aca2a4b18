#!/bin/sh
# cli_bench.sh - p2psim bench, sweep and validate end to end, on small
# machines and small copies (a few seconds in all):
#   bench     the sample's headings in order, --p2p_read's extra tables,
#             --csv (a well-formed N x N file per matrix), --json (parses,
#             has the matrices), --png (a PNG; skipped without gnuplot),
#             --sm_copy refused, --set errors at --set:N:C, --jobs 2
#             gives the same output
#   sweep     a 2-point CSV (header, rows, bandwidth growing with the copy
#             size), --jobs 2 gives the same CSV, errors naming the bad key,
#             measure or GPU
#   validate  a hand-made case whose measured cells are the simulated ones
#             scaled by known factors (errors exactly -20% and +25%), and
#             case-file errors at file:line:column
#   --help of the three commands.
# Prints one line per check and "cli_bench: N passed, M failed".
. "${top_srcdir:-.}/tests/shim/lib.sh"
need_shim
T=$top/topologies
M=$T/desktop-2x-geforce.yaml        # 2 GPUs: small and quick
work=$(mktemp -d "${TMPDIR:-/tmp}/cli_bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
pass=0
fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }
check() { # name, expected status, grep pattern (or ""), command...
    name=$1 want=$2 pat=$3
    shift 3
    out=$("$@" 2>&1)
    got=$?
    if [ "$got" != "$want" ]; then
        bad "$name: exit $got, expected $want"; echo "$out" | tail -5
        return
    fi
    if [ -n "$pat" ] && ! printf '%s\n' "$out" | grep -q -- "$pat"; then
        bad "$name: output lacks '$pat'"; echo "$out" | tail -20
        return
    fi
    ok "$name"
}

# ---- --help -------------------------------------------------------------------
check "bench --help" 0 "p2pBandwidthLatencyTest" $p2psim bench --help
check "bench --help lists matrices" 0 "uni_p2p_enabled_GBps" $p2psim bench --help
check "sweep --help lists measures" 0 "p2p-bandwidth A B" $p2psim sweep --help
check "sweep --help lists pseudo-keys" 0 "^  size " $p2psim sweep --help
check "validate --help" 0 "median error: X% max error: Y%" $p2psim validate --help
check "p2psim --help lists bench" 0 "bench" $p2psim --help

# ---- bench --------------------------------------------------------------------
$p2psim bench "$M" --numElems 16384 --p2p_read --csv "$work/csv" \
    --json "$work/b.json" > "$work/bench.txt" 2> "$work/bench.err"
st=$?
[ $st = 0 ] && ok "bench runs" || { bad "bench runs: exit $st"; cat "$work/bench.err"; }
# Every heading of the sample, in its order (cuda-api.md §1.7).
grep -E '^\[P2P|^P2P Connectivity|Matrix \((GB/s|us)\)$|^NOTE: The CUDA' \
    "$work/bench.txt" > "$work/headings.txt"
cat > "$work/want.txt" <<'EOF'
[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
P2P Connectivity Matrix
Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s)
Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)
Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)
P2P=Disabled Latency Matrix (us)
P2P=Enabled Latency (P2P Writes) Matrix (us)
P2P=Enabled Latency (P2P Reads) Matrix (us)
NOTE: The CUDA Samples are not meant for performance measurements. Results may vary when GPU Boost is enabled.
EOF
if cmp -s "$work/headings.txt" "$work/want.txt"; then
    ok "bench headings in the sample's order"
else
    bad "bench headings"; diff "$work/want.txt" "$work/headings.txt"
fi
grep -q "^Device=0 CANNOT Access Peer Device=1$" "$work/bench.txt" &&
    ok "bench: GeForce pair cannot access" || bad "bench: peer access lines"
# A bandwidth table: "   D\D" then "%6d " columns; rows "%6d " then "%6.02f ".
awk '/^Unidirectional P2P=Disabled/ { getline; h = $0; getline; r = $0 }
     END { exit !(h == "   D\\D     0      1 " &&
                  r ~ /^     0 +[0-9]+\.[0-9][0-9] +[0-9]+\.[0-9][0-9] $/) }' \
    "$work/bench.txt" && ok "bench table format" || bad "bench table format"
grep -q "^   CPU     0      1 $" "$work/bench.txt" &&
    ok "bench latency CPU table" || bad "bench latency CPU table"
n_csv=0
for f in "$work"/csv/*.csv; do
    n_csv=$((n_csv + 1))
    awk -F, 'NR == 1 { good = ($0 == "GPU,0,1") }
             NR > 1 { good = good && NF == 3 && $1 == NR - 2 &&
                      $2 ~ /^[0-9]+\.[0-9]+$/ && $3 ~ /^[0-9]+\.[0-9]+$/ }
             END { exit !(good && NR == 3) }' "$f" || bad "csv $f malformed"
done
[ "$n_csv" = 11 ] && ok "bench --csv: 11 well-formed matrices" ||
    bad "bench --csv: $n_csv files"
if command -v python3 > /dev/null; then
    check "bench --json parses" 0 "11 2 True" python3 -c "
import json, sys
d = json.load(open('$work/b.json'))
m = d['matrices']
print(len(m), len(d['gpus']),
      m['uni_p2p_enabled_GBps']['unit'] == 'GB/s' and
      len(m['latency_p2p_enabled_gpu_us']['values']) == 2)"
else
    echo "skip: no python3 for the JSON check"
fi
# --sm_copy: P2P-enabled copies by the copy kernel, on NVLink. Four SMs
# per GPU (8 blocks of 1024 threads) keep the kernels quick to simulate.
# The P2P-disabled matrix and the diagonals stay copy-engine copies, as in
# the sample; the SM copy pays the launch latency per copy, which the copy
# engine does not, so it is slower.
H=$T/hgx-h200-x2.yaml
smargs="--numElems 100000 --set defaults.gpu.sms=4 --matrix uni_p2p_disabled_GBps
        --matrix uni_p2p_enabled_GBps --matrix bidir_p2p_enabled_GBps"
# cell NAME-heading-pattern ROW COL < output: one figure of a table
cell() { grep -A"$(($2 + 2))" -- "$1" | awk -v r="$(($2 + 3))" -v c="$(($3 + 2))" 'NR == r { print $c }'; }
if $p2psim bench "$H" --sm_copy $smargs >"$work/sm.txt" 2>&1 &&
   $p2psim bench "$H" $smargs >"$work/ce.txt" 2>&1; then
    ok "bench --sm_copy runs"
    grep -q "^Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)" \
        "$work/sm.txt" && grep -q "^Bidirectional P2P=Enabled Bandwidth Matrix" \
        "$work/sm.txt" && ok "bench --sm_copy headings" ||
        bad "bench --sm_copy headings"
    for m in "Unidirectional P2P=Disabled" "Unidirectional P2P=Enabled" \
             "Bidirectional P2P=Enabled"; do
        for rc in "0 0" "0 1" "1 0"; do
            set -- $rc
            sm=$(cell "^$m" $1 $2 <"$work/sm.txt")
            ce=$(cell "^$m" $1 $2 <"$work/ce.txt")
            if [ -z "$sm" ] || [ -z "$ce" ]; then
                bad "bench --sm_copy $m [$1,$2]: no figure"
            elif [ "$1" = "$2" ] || [ "$m" = "Unidirectional P2P=Disabled" ]; then
                [ "$sm" = "$ce" ] && ok "bench --sm_copy $m [$1,$2] copy engine" ||
                    bad "bench --sm_copy $m [$1,$2]: $sm, copy engine $ce"
            else
                awk -v s="$sm" -v c="$ce" 'BEGIN { exit !(s > 0 && s < c) }' &&
                    ok "bench --sm_copy $m [$1,$2] by SMs ($sm < $ce GB/s)" ||
                    bad "bench --sm_copy $m [$1,$2]: $sm, copy engine $ce"
            fi
        done
    done
else
    bad "bench --sm_copy runs"; tail -5 "$work/sm.txt" "$work/ce.txt"
fi
check "bench --set error at --set:1:10" 2 \
    "^--set:1:10: error: unknown key 'swtch' in defaults (did you mean 'switch'?)" \
    $p2psim bench "$M" --set defaults.swtch.latency=1ns
check "bench bad --matrix" 2 "no matrix 'nope'" $p2psim bench "$M" --matrix nope
# --jobs 2: the matrices (p2p_read's included) in two processes at once,
# the same output as the one process above; no trace with it.
$p2psim bench "$M" --numElems 16384 --p2p_read --jobs 2 \
    > "$work/bench-j2.txt" 2> "$work/bench-j2.err"
if cmp -s "$work/bench.txt" "$work/bench-j2.txt"; then
    ok "bench --jobs 2: the same output as one process"
else
    bad "bench --jobs 2 output differs"
    diff "$work/bench.txt" "$work/bench-j2.txt" | head -10
fi
check "bench --jobs with --trace refused" 2 "trace with --jobs 1" \
    $p2psim bench "$M" --jobs 2 --trace "$work/x.csv"
check "bench bad --jobs" 2 "--jobs takes 1 to 256" $p2psim bench "$M" --jobs 0
check "bench bad --fidelity" 2 "tlp or flow" $p2psim bench "$M" --fidelity exact
# An override reaches the runtime: a slower link gives less bandwidth.
bw() {
    $p2psim bench "$M" --numElems 65536 --matrix uni_p2p_disabled_GBps "$@" \
        2>/dev/null | awk '/^Unidirectional/ { on = 1 }
                           on && $1 == "0" && NF == 3 { print $3; exit }'
}
fast=$(bw)
slow=$(bw --set 'gpus.*.link.speed=2.5GT/s')
awk -v f="$fast" -v s="$slow" 'BEGIN { exit !(f > 0 && s > 0 && s < f / 3) }' &&
    ok "bench --set slows the links ($fast -> $slow GB/s)" ||
    bad "bench --set: $fast -> $slow GB/s"
if command -v gnuplot > /dev/null; then
    check "bench --png" 0 "" $p2psim bench "$M" --numElems 16384 \
        --matrix uni_p2p_enabled_GBps --png "$work/m.png"
    head -c 4 "$work/m.png" 2>/dev/null | grep -q PNG && ok "bench --png is a PNG" ||
        bad "bench --png is not a PNG"
else
    echo "skip: no gnuplot for --png"
fi

# ---- sweep --------------------------------------------------------------------
sweep="$p2psim sweep $M --set size=64KiB,1MiB --measure staged-bandwidth:0:1"
$sweep --csv "$work/s1.csv" 2> "$work/sweep.err"
st=$?
[ $st = 0 ] && ok "sweep runs" || { bad "sweep runs: exit $st"; cat "$work/sweep.err"; }
awk -F, 'NR == 1 { good = ($0 == "size,staged-bandwidth 0 1 (GB/s)") }
         NR == 2 { good = good && $1 == "64KiB"; a = $2 }
         NR == 3 { good = good && $1 == "1MiB"; b = $2 }
         END { exit !(good && NR == 3 && a > 0 && b > a) }' "$work/s1.csv" &&
    ok "sweep: 2-point CSV, bandwidth grows with size" ||
    { bad "sweep CSV"; cat "$work/s1.csv"; }
$sweep --jobs 2 > "$work/s2.csv" 2>/dev/null
cmp -s "$work/s1.csv" "$work/s2.csv" && ok "sweep --jobs 2 gives the same CSV" ||
    bad "sweep --jobs 2 differs"
check "sweep range" 0 "^16KiB,.*" $p2psim sweep "$M" --set size=4KiB..16KiB*2 \
    --set repeat=1 --measure 'h2d-bandwidth 0'
check "sweep unknown key names it" 2 "unknown key 'swtch' in defaults" \
    $p2psim sweep "$M" --set defaults.swtch.latency=1ns,2ns --measure 'h2d-bandwidth 0'
check "sweep unknown key at --set:2" 2 "^--set:2:6: error: no entry 'gpu9'" \
    $p2psim sweep "$M" --set size=4KiB --set gpus.gpu9.model=x --measure 'h2d-bandwidth 0'
check "sweep unknown measure" 2 "unknown measure 'p2p-bw'" \
    $p2psim sweep "$M" --set size=4KiB --measure 'p2p-bw 0 1'
check "sweep measure needs two GPUs" 2 "takes two GPUs" \
    $p2psim sweep "$M" --set size=4KiB --measure 'latency 0'
check "sweep bad GPU" 2 "no GPU 'gpu7'" \
    $p2psim sweep "$M" --set size=4KiB --measure 'latency 0 gpu7'
check "sweep bad range" 2 "a range is" \
    $p2psim sweep "$M" --set size=4KiB..1KiB*0.5 --measure 'h2d-bandwidth 0'
check "sweep without --measure" 2 "nothing to measure" $p2psim sweep "$M" --set size=4KiB

# ---- validate -----------------------------------------------------------------
# Simulated cells, then a case that claims 1.25x and 0.8x of them: the
# errors are exactly -20% and +25% (median 22.5%, max 25.0%).
$p2psim bench "$M" --numElems 16384 --matrix uni_p2p_disabled_GBps \
    --matrix latency_p2p_enabled_gpu_us --csv "$work/sim" > /dev/null 2>&1
u01=$(awk -F, 'NR == 2 { print $3 }' "$work/sim/uni_p2p_disabled_GBps.csv")
l10=$(awk -F, 'NR == 3 { print $2 }' "$work/sim/latency_p2p_enabled_gpu_us.csv")
mkdir -p "$work/cases"
awk -v u="$u01" -v l="$l10" -v m="$(cd "$T" && pwd)/desktop-2x-geforce.yaml" 'BEGIN {
    printf "p2psim-case: 1\nname: hand-made\nsource: {note: \"cli_bench.sh\"}\n"
    printf "machine: %s\nnumElems: 16384\nmeasured:\n", m
    printf "  uni_p2p_disabled_GBps:\n    - [null, %.6f]\n    - [null, null]\n", u * 1.25
    printf "  latency_p2p_enabled_gpu_us:\n    - [null, null]\n    - [%.6f, null]\n", l * 0.8
}' > "$work/cases/c.yaml"
check "validate: -20% cell" 0 "0 -> 1 .* -20.0%" $p2psim validate "$work/cases/c.yaml"
check "validate: +25% cell" 0 "1 -> 0 .* +25.0%" $p2psim validate "$work/cases/c.yaml"
check "validate: last line" 0 "^median error: 22.5% max error: 25.0%$" \
    $p2psim validate "$work/cases/c.yaml"
check "validate --fail-above" 1 "median error" \
    $p2psim validate --fail-above 10 "$work/cases/c.yaml"
printf 'p2psim-case: 1\nname: x\nmachine: m.yaml\nmeasurd: {}\n' > "$work/cases/typo.yaml"
check "validate unknown key at file:line:col" 2 "typo.yaml:4:1: error: unknown key 'measurd'" \
    $p2psim validate "$work/cases/typo.yaml"
sed 's/uni_p2p_disabled_GBps/uni_p2p_GBps/' "$work/cases/c.yaml" > "$work/cases/name.yaml"
check "validate unknown matrix" 2 "no matrix 'uni_p2p_GBps'" \
    $p2psim validate "$work/cases/name.yaml"
sed 's/\[null, null\]$/[null]/' "$work/cases/c.yaml" > "$work/cases/shape.yaml"
check "validate short row" 2 "a row of 1 cells in a 2 x 2 matrix" \
    $p2psim validate "$work/cases/shape.yaml"
# A matrix of more rows than a case may have GPUs: refused at its line and
# column before anything the size of N x N is allocated.
awk 'BEGIN { printf "p2psim-case: 1\nname: big\nmachine: m.yaml\nmeasured:\n"
             printf "  uni_p2p_disabled_GBps:\n"
             for (i = 0; i < 1025; i++) printf "    - [1]\n" }' > "$work/cases/big.yaml"
check "validate: 1025 GPUs is past the cap, at file:line:col" 2 \
    "big.yaml:6:5: error: uni_p2p_disabled_GBps has 1025 rows; a case has at most 1024 GPUs" \
    $p2psim validate "$work/cases/big.yaml"
# Keys given twice: the last wins, and the first's value is freed (the
# sanitizer build's leak check fails the run otherwise).
sed -e 's/^name: hand-made$/name: first\nname: hand-made/' \
    -e 's/^numElems: 16384$/set: [gpus.*.set.mps=128B]\nset: [gpus.*.set.mps=256B]\nnumElems: 16384/' \
    -e 's|^machine: \(.*\)$|machine: none.yaml\nmachine: \1|' \
    "$work/cases/c.yaml" > "$work/cases/twice.yaml"
check "validate: keys given twice, the last wins" 0 "1 case and their machines load" \
    $p2psim validate --check "$work/cases/twice.yaml"
check "validate --check: the cases of data/calibration/ and their machines load" \
    0 "5 cases" $p2psim validate --check $top/data/calibration/*.yaml

echo "cli_bench: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
