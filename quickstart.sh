#!/bin/sh
# quickstart.sh - set up p2psim on a fresh Debian 12 machine and either run
# the main job or pass the tests.
#
#   ./quickstart.sh run     install what is missing, build, run the main job
#   ./quickstart.sh test    install what is missing, build, run every test
#   ./quickstart.sh env     print what puts build/'s p2psim on PATH and its
#                           p2psim-cudart on pkg-config's path, to type or eval
#
# Builds go to build/ (and build-asan/ for the sanitizer build of the tests).
set -eu

usage() {
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
}

PACKAGES="build-essential autoconf automake libtool pkg-config libyaml-dev \
check libsystemc-dev libzstd-dev gnuplot-nox graphviz valgrind \
libopenmpi-dev openmpi-bin"

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

install_packages() {
    missing=
    for p in $PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
            missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        echo "quickstart: installing:$missing"
        as_root apt-get update -qq
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq $missing >/dev/null
    fi
}

jobs() {
    nproc 2>/dev/null || echo 2
}

build() {
    dir=$1
    shift
    [ -x configure ] || autoreconf -fi
    mkdir -p "$dir"
    (cd "$dir" && { [ -f Makefile ] || ../configure -q "$@"; } && make -s -j"$(jobs)") ||
        { echo "quickstart: the build in $dir/ failed" >&2; return 1; }
}

# The lines that make the README's commands work from build DIR in a
# shell: p2psim on PATH, and pkg-config finding the build tree's
# p2psim-cudart-uninstalled.pc (tests/shim/quickstart-env.sh runs them).
env_lines() {
    abs=$(cd "$1" && pwd)
    echo "export PATH=\"$abs/tools:\$PATH\""
    echo "export PKG_CONFIG_PATH=\"$abs/cuda/cudart\""
}

heading() {
    printf '\n=== %s\n\n' "$*"
}

# The test results of the builds DIR...: automake's .trs files, less those
# a failed make distcheck leaves in its copy of the tree (p2psim-VERSION/).
trs_files() {
    for dir in "$@"; do
        find "$dir" -type d -name 'p2psim-*' -prune -o -name '*.trs' -print
    done
}

# The end of the log of every test that failed (automake marks FAIL,
# ERROR and XPASS ":recheck: yes").
failed_logs() {
    for trs in $(trs_files "$@"); do
        grep -q '^:recheck: yes' "$trs" || continue
        log=${trs%.trs}.log
        echo "--- $log (its last 100 lines):"
        tail -n 100 "$log" 2>/dev/null || echo "(no log)"
    done
}

# Sum Check's "Checks: N, Failures: F, Errors: E" lines and the plain
# scripts' results, and print one closing line. A Check runner that
# failed with every check passed (a leak found at exit, a crash after the
# report) counts one failure.
summarize() {
    passed=0
    failed=0
    for trs in $(trs_files "$@"); do
        log=${trs%.trs}.log
        result=$(sed -n 's/^:test-result: //p' "$trs" | head -n 1)
        line=$(grep -Eo 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" 2>/dev/null | tail -n 1 || true)
        if [ -n "$line" ]; then
            n=$(echo "$line" | sed 's/Checks: \([0-9]*\).*/\1/')
            f=$(echo "$line" | sed 's/.*Failures: \([0-9]*\), Errors: \([0-9]*\)/\1 \2/' | awk '{print $1+$2}')
            case "$result" in
            PASS|SKIP|XFAIL) ;;
            *) [ "$f" -gt 0 ] || f=1 ;;
            esac
            passed=$((passed + n - f))
            failed=$((failed + f))
        elif [ "$result" = PASS ]; then
            passed=$((passed + 1))
        elif [ "$result" = SKIP ]; then
            :
        else
            failed=$((failed + 1))
        fi
    done
    echo "tests: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

cmd=${1:-}
case "$cmd" in
run)
    install_packages
    build build
    # The main job: the default machine, the p2pBandwidthLatencyTest
    # matrices on it (4 MB copies: the sample's 160 MB take long at TLP
    # level), and the event-core benchmark.
    heading "The default machine, topologies/pcie-8gpu-2socket.yaml: how its" \
        "GPUs connect and which pairs can use P2P (p2psim topo)"
    ./build/tools/p2psim topo
    heading "p2pBandwidthLatencyTest's matrices on that machine, 4 MB copies" \
        "(p2psim bench --numElems 1000000)"
    ./build/tools/p2psim bench --numElems 1000000
    heading "The event-core benchmark: how many events per second of wall" \
        "time each engine handles, side by side (bench/hold)"
    ./build/bench/hold
    heading "Done. p2psim is build/tools/p2psim. For the README's commands" \
        "(p2psim ..., pkg-config p2psim-cudart), type in each new shell:"
    env_lines build
    echo
    echo "(or: eval \"\$(./quickstart.sh env)\"; docs/cuda-shim.md has more)"
    ;;
env)
    dir=${2:-build}
    [ -f "$dir/Makefile" ] ||
        { echo "quickstart: no build in $dir/ yet: ./quickstart.sh run makes it" >&2; exit 1; }
    env_lines "$dir"
    ;;
test)
    install_packages
    build build
    # Every stage runs even when one before it failed; the failed tests'
    # logs and the closing line come last.
    failed_stages=
    (cd build && make -s -j"$(jobs)" check) ||
        failed_stages="$failed_stages make-check"
    # The unit tests again under AddressSanitizer and UBSan.
    if build build-asan --enable-sanitizers; then
        (cd build-asan && ASAN_OPTIONS=detect_leaks=1 make -s -j"$(jobs)" check) ||
            failed_stages="$failed_stages make-check(sanitizers)"
    else
        failed_stages="$failed_stages build(sanitizers)"
    fi
    if (cd build && make -s distcheck >/dev/null); then
        echo "quickstart: make distcheck passed"
    else
        echo "quickstart: make distcheck failed"
        failed_stages="$failed_stages distcheck"
    fi
    # The libFuzzer harnesses (docs/fuzzing.md), built in build-fuzz/ with
    # clang (Debian's clang and libclang-rt-dev, about 45 MB, installed
    # when missing): each runs over its seed corpus, then tries the
    # number of inputs fuzz/ci-runs gives it (about 15 s each) with a
    # fixed seed, so how much it fuzzes does not depend on the machine's
    # speed or load (300 s per harness is only a bound; one input may take 120
    # s). P2PSIM_FUZZ_SECONDS=N fuzzes each for N s with a new seed
    # instead. Each harness counts as one test: its result is written as
    # an automake .trs next to its log.
    if [ -n "${P2PSIM_FUZZ_SECONDS:-}" ]; then
        fuzz_secs=$P2PSIM_FUZZ_SECONDS
        fuzz_how="-t $fuzz_secs"
        fuzz_what="${fuzz_secs} s each"
    else
        fuzz_how="-t 300 -R fuzz/ci-runs -s 1"
        fuzz_what="the inputs of fuzz/ci-runs, seed 1"
    fi
    if ! command -v clang >/dev/null 2>&1; then
        echo "quickstart: installing: clang libclang-rt-dev (for the fuzzing harnesses)"
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq clang libclang-rt-dev >/dev/null ||
            echo "quickstart: could not install clang" >&2
    fi
    mkdir -p build-fuzz
    if ! (cd build-fuzz && { [ -f Makefile ] || ../configure -q; }); then
        failed_stages="$failed_stages fuzz(configure)"
    elif grep -q '^HAVE_FUZZ_TRUE = #' build-fuzz/Makefile; then
        echo "quickstart: no clang that builds libFuzzer harnesses: fuzzing skipped"
    elif (cd build-fuzz && make -s -j"$(jobs)" fuzz >/dev/null); then
        rm -rf build-fuzz/fuzz/work build-fuzz/fuzz/results
        mkdir -p build-fuzz/fuzz/results
        heading "Fuzzing: each harness over its corpus, then $fuzz_what (fuzz/run.sh)"
        # shellcheck disable=SC2086
        FUZZ_TIMEOUT=120 sh fuzz/run.sh $fuzz_how -b build-fuzz -w build-fuzz/fuzz/work |
            tee build-fuzz/fuzz/results/run.txt || true
        while IFS= read -r line; do
            case $line in
            fuzz_*": ok,"*) result=PASS ;;
            fuzz_*": FAILED"*) result=FAIL ;;
            *) continue ;;
            esac
            h=${line%%:*}
            { echo "$line"; tail -n 60 "build-fuzz/fuzz/work/${h#fuzz_}.seeds.log" \
              "build-fuzz/fuzz/work/${h#fuzz_}.log" 2>/dev/null; } \
                > "build-fuzz/fuzz/results/$h.log"
            printf ':test-result: %s\n' "$result" > "build-fuzz/fuzz/results/$h.trs"
            [ $result = PASS ] || printf ':recheck: yes\n' >> "build-fuzz/fuzz/results/$h.trs"
        done < build-fuzz/fuzz/results/run.txt
        if grep -q ': FAILED' build-fuzz/fuzz/results/run.txt ||
           ! grep -q '^fuzz_.*: ok,' build-fuzz/fuzz/results/run.txt; then
            failed_stages="$failed_stages fuzz"
        fi
    else
        echo "quickstart: make fuzz failed in build-fuzz/"
        failed_stages="$failed_stages fuzz(build)"
    fi
    failed_logs build build-asan build-fuzz
    [ -z "$failed_stages" ] || echo "quickstart: failed:$failed_stages"
    summarize build build-asan build-fuzz && [ -z "$failed_stages" ]
    ;;
-h|--help|help)
    usage
    ;;
*)
    usage >&2
    exit 2
    ;;
esac
