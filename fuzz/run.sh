#!/bin/sh
# fuzz/run.sh - run the libFuzzer harnesses that `make fuzz` built
# (docs/fuzzing.md): each over its seed corpus (fuzz/corpus/NAME/), then
# fuzzing for SECONDS, one after the other. Prints one line per harness:
#   fuzz_NAME: ok, E executions in S s, cov: C ft: F, corpus N inputs
#   fuzz_NAME: FAILED (crash|leak|timeout|oom|...) on the seeds|while fuzzing: FILE
# and exits 1 when any harness found something (the input that did it is
# kept under the work folder, named in the line), 2 on a usage error.
#
# usage: fuzz/run.sh [-t SECONDS] [-r RUNS|-R FILE] [-s SEED] [-b BUILDDIR]
#                    [-w WORKDIR] [NAME...]
#   -t SECONDS  fuzzing time per harness after its corpus (default 30;
#               0: the corpus only)
#   -r RUNS     also stop a harness after RUNS executions
#   -R FILE     RUNS per harness from FILE (lines "NAME RUNS"), e.g.
#               fuzz/ci-runs
#   -s SEED     libFuzzer's random seed (default: a new one each run).
#               With a seed and a number of runs, how much a harness
#               fuzzes does not depend on how fast or loaded the
#               machine is (-t is then only a bound); which inputs it
#               makes follows coverage, which can differ between builds
#               (the same build repeats them)
#   -b BUILDDIR the build folder where make fuzz ran (default: .)
#   -w WORKDIR  where the inputs found and the logs go (default: a new
#               temporary folder, removed when nothing was found)
#   NAME        topology, ptx, ... (default: every fuzz/fuzz_* built)
# Extra libFuzzer options can be given in FUZZ_ARGS (e.g. -jobs=4), the
# time one input may take in FUZZ_TIMEOUT (seconds, default 25).
src=$(cd "$(dirname "$0")/.." && pwd)
secs=30
runs=
runs_file=
seed=
build=.
work=
while getopts t:r:R:s:b:w: o; do
    case $o in
    t) secs=$OPTARG ;;
    r) runs=$OPTARG ;;
    R) runs_file=$OPTARG ;;
    s) seed=$OPTARG ;;
    b) build=$OPTARG ;;
    w) work=$OPTARG ;;
    *) sed -n '/^# usage:/,/^# Extra/s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
case $secs in ''|*[!0-9]*) echo "fuzz/run.sh: -t takes seconds" >&2; exit 2 ;; esac
case $runs in *[!0-9]*) echo "fuzz/run.sh: -r takes a count" >&2; exit 2 ;; esac
case $seed in *[!0-9]*) echo "fuzz/run.sh: -s takes a number" >&2; exit 2 ;; esac
if [ -n "$runs_file" ] && [ ! -r "$runs_file" ]; then
    echo "fuzz/run.sh: -R: cannot read $runs_file" >&2
    exit 2
fi
input_timeout=${FUZZ_TIMEOUT:-25}
case $input_timeout in ''|*[!0-9]*) echo "fuzz/run.sh: FUZZ_TIMEOUT takes seconds" >&2; exit 2 ;; esac
if [ $# -eq 0 ]; then
    for p in "$build"/fuzz/fuzz_*; do
        [ -x "$p" ] && [ -f "$p" ] || continue
        set -- "$@" "${p##*/fuzz_}"
    done
fi
if [ $# -eq 0 ]; then
    echo "fuzz/run.sh: no harness in $build/fuzz/: run make fuzz there first" >&2
    exit 2
fi
keep=yes
if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/p2psim-fuzz.XXXXXX") || exit 2
    keep=no
fi
mkdir -p "$work" || exit 2
work=$(cd "$work" && pwd)

# stats LOG: "E S C F N" from libFuzzer's final statistics and last line
stats() {
    e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -n 1)
    t=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$1" | tail -n 1)
    last=$(grep -E '^#[0-9]+' "$1" | tail -n 1)
    c=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    f=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    n=$(printf '%s\n' "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
    echo "${e:-?} ${t:-?} ${c:-?} ${f:-?} ${n:-?}"
}

# finding LOG: what libFuzzer or a sanitizer reported, and the input
finding() {
    what=$(grep -Eo 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer): [a-zA-Z-]+' "$1" | head -n 1)
    [ -n "$what" ] || what=$(grep -Eo 'runtime error: .*' "$1" | head -n 1)
    [ -n "$what" ] || what="exit status $2"
    file=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$1" | tail -n 1)
    echo "$what${file:+: $file}"
}

failed=0
for name in "$@"; do
    bin=$build/fuzz/fuzz_$name
    if [ ! -x "$bin" ]; then
        echo "fuzz_$name: FAILED (not built: $bin)"
        failed=1
        continue
    fi
    seeds=$src/fuzz/corpus/$name
    [ -d "$seeds" ] || seeds=
    dict=$src/fuzz/$name.dict
    [ -f "$dict" ] || dict=
    found=$work/$name
    mkdir -p "$found" "$work/artifacts"
    n_runs=$runs
    if [ -n "$runs_file" ]; then
        n_runs=$(awk -v n="$name" '$1 == n { print $2 }' "$runs_file")
    fi
    common="-timeout=$input_timeout -rss_limit_mb=2048 -malloc_limit_mb=2048 -close_fd_mask=3
            -print_final_stats=1 -artifact_prefix=$work/artifacts/$name-
            ${dict:+-dict=$dict}"
    # 1. every seed once
    # shellcheck disable=SC2086
    "$bin" $common -runs=0 $seeds >"$work/$name.seeds.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "fuzz_$name: FAILED ($(finding "$work/$name.seeds.log" $rc)) on the seeds; log $work/$name.seeds.log"
        failed=1
        continue
    fi
    [ "$secs" -gt 0 ] || {
        set -- $(stats "$work/$name.seeds.log")
        echo "fuzz_$name: ok, seeds only ($1 inputs), cov: $3 ft: $4"
        continue
    }
    # 2. fuzzing, new inputs into $found (the seeds are read, not written)
    # shellcheck disable=SC2086
    "$bin" $common -max_total_time="$secs" ${n_runs:+-runs=$n_runs} \
        ${seed:+-seed=$seed} $FUZZ_ARGS \
        "$found" $seeds >"$work/$name.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "fuzz_$name: FAILED ($(finding "$work/$name.log" $rc)) while fuzzing; log $work/$name.log"
        failed=1
        continue
    fi
    s=$(stats "$work/$name.log")
    # shellcheck disable=SC2086
    set -- $s
    echo "fuzz_$name: ok, $1 executions in $2 s, cov: $3 ft: $4, corpus $5 inputs"
done
if [ $failed -ne 0 ] || [ $keep = yes ]; then
    echo "fuzz/run.sh: inputs, findings and logs are in $work"
else
    rm -rf "$work"
fi
exit $failed
