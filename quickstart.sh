#!/bin/sh
# quickstart.sh - set up p2psim on a fresh Debian 12 machine and either run
# the main job or pass the tests.
#
#   ./quickstart.sh run     install what is missing, build, run the main job
#   ./quickstart.sh test    install what is missing, build, run every test
#
# Builds go to build/ (and build-asan/ for the sanitizer build of the tests).
set -eu

usage() {
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
}

PACKAGES="build-essential autoconf automake libtool pkg-config libyaml-dev \
check libsystemc-dev libzstd-dev gnuplot-nox valgrind libopenmpi-dev \
openmpi-bin"

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
    (cd "$dir" && { [ -f Makefile ] || ../configure -q "$@"; } && make -s -j"$(jobs)")
}

# Sum Check's "Checks: N, Failures: F, Errors: E" lines and the plain
# scripts' results, and print one closing line.
summarize() {
    passed=0
    failed=0
    for dir in "$@"; do
        for trs in $(find "$dir" -name '*.trs'); do
            log=${trs%.trs}.log
            line=$(grep -Eo 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" 2>/dev/null | tail -n 1 || true)
            if [ -n "$line" ]; then
                n=$(echo "$line" | sed 's/Checks: \([0-9]*\).*/\1/')
                f=$(echo "$line" | sed 's/.*Failures: \([0-9]*\), Errors: \([0-9]*\)/\1 \2/' | awk '{print $1+$2}')
                passed=$((passed + n - f))
                failed=$((failed + f))
            elif grep -q '^:test-result: PASS' "$trs"; then
                passed=$((passed + 1))
            elif grep -q '^:test-result: SKIP' "$trs"; then
                :
            else
                failed=$((failed + 1))
            fi
        done
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
    ./build/tools/p2psim topo
    ./build/tools/p2psim bench --numElems 1000000
    ./build/bench/hold
    ;;
test)
    install_packages
    build build
    (cd build && make -s -j"$(jobs)" check) || { cat build/test-suite.log; exit 1; }
    # The unit tests again under AddressSanitizer and UBSan.
    build build-asan --enable-sanitizers
    (cd build-asan && ASAN_OPTIONS=detect_leaks=1 make -s -j"$(jobs)" check) ||
        { cat build-asan/test-suite.log; exit 1; }
    (cd build && make -s distcheck >/dev/null) || { echo "quickstart: make distcheck failed"; exit 1; }
    echo "quickstart: make distcheck passed"
    summarize build build-asan
    ;;
-h|--help|help)
    usage
    ;;
*)
    usage >&2
    exit 2
    ;;
esac
