#!/bin/sh
# host-clock.sh - the program's clocks under `p2psim run` are its threads'
# simulated clocks (cuda/host/, libp2psim-host.so): host_clock.c's
# clock_gettime and gettimeofday deltas around cudaEventRecord are the
# cost the machine gives it (7 us here, with clock reads made free), its
# sleeps advance its clock by exactly their length, and with --real-clock
# none of that holds. A main thread that waits on a condition variable or
# a pthread barrier, which only a stream callback releases, ends, woken at
# the same simulated time in every run (a 1 ms grace period, a server or
# none), and one that spins on its clock for a callback's flag ends.
# std::chrono (host_chrono.cc) reads the same clocks when a C++
# compiler is found.
. "${top_srcdir:-.}/tests/shim/lib.sh"
pkg=${PKG_CONFIG:-pkg-config}
command -v "$pkg" >/dev/null 2>&1 || { echo "pkg-config not found: skipped"; exit 77; }
[ -f "$shim_dir/libcudart.so.13" ] ||
    { echo "no shared shim (configured with --disable-shared?): skipped"; exit 77; }
if [ -n "${SAN_FLAGS:-}" ]; then
    # p2psim run preloads nothing before a sanitizer's runtime
    echo "sanitizer build: skipped (the host clocks are not preloaded)"; exit 77
fi
scratch

PKG_CONFIG_PATH=$build/cuda/cudart
export PKG_CONFIG_PATH
flags=$("$pkg" --cflags --libs p2psim-cudart)
# shellcheck disable=SC2086
check "host_clock.c builds" 0 "" \
    ${CC:-cc} -std=c11 -Wall -Werror -o "$work/host_clock" \
    "$top/tests/shim/host_clock.c" $flags -lpthread
[ -x "$work/host_clock" ] || { finish host-clock; exit 1; }

costs='api-costs.event-record=7us
api-costs.clock-read=0s'
run() {
    env P2PSIM_SET="$costs" "$p2psim" run --quiet --topology h200-x1 "$@"
}
check "clock: runs" 0 "" run -- "$work/host_clock" clock
clock=$out
for want in "record: 7000 ns" "gettimeofday: 21 us" "usleep: 1500000 ns" \
    "nanosleep: 2000000 ns" "clock_nanosleep: 1000000000 ns" \
    "sleep: 3000000000 ns" "time: as CLOCK_REALTIME"; do
    check "clock: $want" 0 "^$want\$" printf '%s\n' "$clock"
done

check "--real-clock: runs" 0 "" run --real-clock -- "$work/host_clock" clock
if printf '%s\n' "$out" | grep -q '^record: 7000 ns$' ||
    printf '%s\n' "$out" | grep -q '^sleep: 3000000000 ns$'; then
    bad "--real-clock: the computer's clock" "$(printf '%s\n' "$out" | head -3)"
else
    ok "--real-clock: the computer's clock"
fi
check "--real-clock: a real sleep is at least as long" 0 \
    "^sleep: 300[0-9]\{7,\} ns$" printf '%s\n' "$out"

# A clock read costs time by default: a delta is the record and one read.
check "clock-read: default cost" 0 "^record: 7020 ns$" \
    env P2PSIM_SET='api-costs.event-record=7us' "$p2psim" run --quiet \
    --topology h200-x1 -- "$work/host_clock" clock

for mode in cond barrier; do
    check "$mode: main ends" 0 "^woken after: [0-9]* ns$" \
        run -- "$work/host_clock" $mode
    first=$(printf '%s\n' "$out" | grep '^woken after')
    check "$mode: same time with a 1 ms grace" 0 "^$first\$" \
        env P2PSIM_HOST_GRACE_MS=1 P2PSIM_SET="$costs" "$p2psim" run \
        --quiet --topology h200-x1 -- "$work/host_clock" $mode
    check "$mode: same time without a server" 0 "^$first\$" \
        run --single-process -- "$work/host_clock" $mode
    check "$mode: ends with --real-clock" 0 "^woken after" \
        run --real-clock -- "$work/host_clock" $mode
done

# A timed wait's deadline is simulated time: nobody signals, it times out
# exactly 5 ms later (the clock read before it is free here).
check "timed: pthread_cond_timedwait times out in simulated time" 0 \
    "^timedwait: timed out after 5000000 ns$" run -- "$work/host_clock" timed
check "timed: the same without a server" 0 \
    "^timedwait: timed out after 5000000 ns$" \
    run --single-process -- "$work/host_clock" timed

# A thread spinning on its clock for a callback's flag is found spinning
# (a clock read is not a call), so time moves and the flag comes.
check "spin: a loop on the clock for a callback's flag ends" 0 \
    "^spun: flag seen$" env P2PSIM_HOST_SPIN_MS=20 "$p2psim" run --quiet \
    --topology h200-x1 -- "$work/host_clock" spin

cxx=${CXX:-c++}
if command -v "$cxx" >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    check "host_chrono.cc builds" 0 "" "$cxx" -std=c++17 -Wall -Werror \
        -o "$work/host_chrono" "$top/tests/shim/host_chrono.cc" $flags
    check "chrono: runs" 0 "" run -- "$work/host_chrono"
    for want in "steady_clock: 7000 ns" "system_clock: 7000 ns" \
        "sleep_for: 5000000 ns"; do
        check "chrono: $want" 0 "^$want\$" printf '%s\n' "$out"
    done
else
    echo "no C++ compiler: std::chrono not checked"
fi
finish host-clock
