#!/bin/sh
# record-replay.sh - API traces on the simulator, no GPU needed:
#   - `p2psim run --record` writes one JSON line per call with simulated
#     times, for copy_sweep (pinned memory, a stream, events), hello.c
#     (pageable memory) and thread_per_gpu.c (a thread per GPU);
#   - `p2psim replay` replays each on the machine it was recorded on: every
#     call gives the result it gave, and the simulated times agree with the
#     recorded ones within 5%, in total and end to end;
#   - the threaded program's recording, its replay and the replay of that
#     replay give the same times with a 1 ms grace as with the default
#     (wall time does not shape the timeline, however loaded the machine);
#   - `p2psim compare --real-from` compares a saved output with a simulated
#     run (copy_sweep's table and bounds; any program line by line);
#   - bad input is refused with exit status 2.
# The environment is lib.sh's.
. "${top_srcdir:-.}/tests/shim/lib.sh"
[ -f "$shim_dir/libcudart.so.13" ] ||
    { echo "no shared shim (configured with --disable-shared?): skipped"; exit 77; }
sweep=$build/tests/programs/copy_sweep
[ -x "$sweep" ] || { echo "no $sweep: skipped"; exit 77; }
scratch
shim=$(cd "$shim_dir" && pwd -P)
small="--max=64k --bytes=256k --max-iters=8 --lat-iters=8"

# within FILE ROW TOL: the sim/rec column of the report's row ROW is
# 1 - TOL .. 1 + TOL
within() { # report, row, tolerance (0.05 = 5%)
    awk -v row="$2" -v tol="$3" '
        index($0, row) == 1 {
            n = split(substr($0, length(row) + 1), f, " ")
            r = f[4]
            found = 1
            exit !(r >= 1 - tol && r <= 1 + tol)
        }
        END { if (!found) exit 1 }' "$1"
}

# replay_ok NAME TRACE MACHINE: the replay matches the recording: every
# call's result, the simulated time of all calls and the elapsed time
# (first entry to last exit) within 5%.
replay_ok() {
    check "$1: replay on $3" 0 \
        "^replayed calls whose result differs from the recording: 0$" \
        "$p2psim" replay --topology "$3" "$2"
    report=$out
    printf '%s\n' "$out" > "$work/report"
    check "$1: simulated time of all calls within 0.05 of the recording" 0 "" \
        within "$work/report" "all replayed calls" 0.05
    check "$1: elapsed time within 5% of the recording" 0 "" \
        within "$work/report" "elapsed (first entry, last exit)" 0.05
}

# ms REPORT ROW COL: a report's row's recorded (COL 2) or simulated (3) ms.
ms() {
    awk -v row="$2" -v c="$3" 'index($0, row) == 1 {
        split(substr($0, length(row) + 1), f, " "); print f[c] }' "$1"
}

# ---- copy_sweep ---------------------------------------------------------------
# shellcheck disable=SC2086
check "copy_sweep recorded on h200-x1" 0 "^copy H2D 4 B " \
    "$p2psim" run --quiet --topology h200-x1 --record "$work/sweep.jsonl" \
    -- "$sweep" $small
printf '%s\n' "$out" > "$work/sweep.out"
check "the trace: a header, backend sim" 0 \
    '^{"api_trace":1,"pid":[0-9]*,"backend":"sim"' cat "$work/sweep.jsonl"
check "the trace: copies with their bytes, kind and stream id" 0 \
    '"name":"cudaMemcpyAsync".*"sim0_ps":[0-9]*,"sim1_ps":[0-9]*,"args":{"dst":"0x[0-9a-f]*","src":"0x[0-9a-f]*","count":65536,"kind":4,"stream":1},"out":{},"ret":0}' \
    cat "$work/sweep.jsonl"
check "the trace: cudaMallocHost hands back its pointer" 0 \
    '"name":"cudaMallocHost".*"out":{"ptr":"0x[0-9a-f]*"},"ret":0}' \
    cat "$work/sweep.jsonl"
replay_ok copy_sweep "$work/sweep.jsonl" h200-x1
check "copy_sweep: the report names the calls" 0 "^cudaMemcpyAsync  *[0-9]" \
    printf '%s\n' "$report"
check "copy_sweep: --recorded real compares with real times" 0 \
    "^recorded: the real time of each call" \
    "$p2psim" replay --recorded real --topology h200-x1 "$work/sweep.jsonl"
check "copy_sweep: --keep keeps the replay's trace" 0 "" \
    "$p2psim" replay --topology h200-x1 --keep "$work/mine.jsonl" \
    "$work/sweep.jsonl"
check "... which has simulated times" 0 '"sim0_ps":' cat "$work/mine.jsonl"

# ---- hello.c: pageable host memory -------------------------------------------------
# shellcheck disable=SC2086
check "hello.c builds" 0 "" \
    ${CC:-cc} -std=c11 -Wall -Werror $SAN_FLAGS -I"$top/cuda/include" \
    -o "$work/hello" "$top/tests/shim/hello.c" -L"$shim" -lcudart \
    -Wl,-rpath,"$shim"
check "hello recorded on dgx1-v100" 0 "^round trip: ok" \
    "$p2psim" run --quiet --topology dgx1-v100 --record "$work/hello.jsonl" \
    -- "$work/hello"
replay_ok hello "$work/hello.jsonl" dgx1-v100
check "hello: replays on another machine" 0 "replayed on h200-x1" \
    "$p2psim" replay --topology h200-x1 "$work/hello.jsonl"

# ---- thread_per_gpu: a host thread per GPU ----------------------------------------
# shellcheck disable=SC2086
check "thread_per_gpu.c builds" 0 "" \
    ${CC:-cc} -std=c11 -Wall -Werror $SAN_FLAGS -I"$top/cuda/include" \
    -o "$work/thread_per_gpu" "$top/tests/programs/thread_per_gpu.c" \
    -L"$shim" -lcudart -Wl,-rpath,"$shim" -pthread
check "thread_per_gpu recorded on pcie-8gpu-2socket" 0 "PASSED" \
    "$p2psim" run --quiet --topology pcie-8gpu-2socket \
    --record "$work/threads.jsonl" -- "$work/thread_per_gpu" --mib=2
check "thread_per_gpu: eight threads recorded" 0 "" \
    grep -q '"tid":7,' "$work/threads.jsonl"
replay_ok thread_per_gpu "$work/threads.jsonl" pcie-8gpu-2socket
# Wall time must not shape a threaded program's timeline: with a grace of
# 1 ms, the runtime looks whether threads are blocked at every pause of
# the host (a worker filling its buffers, starting late), as a loaded
# machine would make it look at 20 ms. Recorded and replayed so, and the
# recording replayed again, the times are those of the default grace.
# shellcheck disable=SC2086
check "thread_per_gpu recorded with a 1 ms grace" 0 "PASSED" \
    env P2PSIM_HOST_GRACE_MS=1 "$p2psim" run --quiet \
    --topology pcie-8gpu-2socket --record "$work/threads1.jsonl" \
    -- "$work/thread_per_gpu" --mib=2
check "thread_per_gpu: replayed with a 1 ms grace" 0 \
    "^replayed calls whose result differs from the recording: 0$" \
    env P2PSIM_HOST_GRACE_MS=1 "$p2psim" replay \
    --topology pcie-8gpu-2socket --keep "$work/threads2.jsonl" \
    "$work/threads1.jsonl"
printf '%s\n' "$out" > "$work/report1"
check "thread_per_gpu: the replay of the replay" 0 \
    "^replayed calls whose result differs from the recording: 0$" \
    "$p2psim" replay --topology pcie-8gpu-2socket "$work/threads2.jsonl"
printf '%s\n' "$out" > "$work/report2"
for r in report1 report2; do
    for row in "all replayed calls" "elapsed (first entry, last exit)"; do
        want=$(ms "$work/report" "$row" 3)
        for col in 2 3; do
            got=$(ms "$work/$r" "$row" $col)
            if [ -n "$got" ] && [ "$got" = "$want" ]; then
                ok "thread_per_gpu: $r: $row, column $col: $got ms"
            else
                bad "thread_per_gpu: $r: $row, column $col" \
                    "$got ms, $want ms with the default grace"
            fi
        done
    done
done

# ---- p2psim compare, offline -----------------------------------------------------
# shellcheck disable=SC2086
check "compare a saved copy_sweep output with h200-x1" 0 \
    "^H2D  *4096  *[0-9.]*  *[0-9.]*  *1.000 " \
    "$p2psim" compare --topology h200-x1 --real-from "$work/sweep.out" \
    -- "$sweep" $small
check "compare: the latency rows" 0 "^latency  *4  *D2H  .* 1.000 " \
    printf '%s\n' "$out"
check "compare: every size within bounds" 0 "^  H2D  *15 of 15 sizes" \
    printf '%s\n' "$out"
# shellcheck disable=SC2086
check "compare --save writes the simulated output" 0 "" \
    "$p2psim" compare --topology h200-x1 --real-from "$work/sweep.out" \
    --save "$work/saved" -- "$sweep" $small
check "... as copy_sweep printed it" 0 "^copy D2D 65536 B " \
    cat "$work/saved.sim.txt"
# hello's own output with the memory size halved: the numbers of that line
# are compared, the others printed as they are.
"$p2psim" run --quiet --topology h200-x1 -- "$work/hello" |
    sed 's/ [0-9]* MiB$/ 1000 MiB/' > "$work/other.out"
check "compare any program line by line" 0 \
    "^    sim/real: = 1.000 134.468$" \
    "$p2psim" compare --topology h200-x1 --real-from "$work/other.out" \
    -- "$work/hello"
check "... other lines as they are" 0 "^round trip: ok" printf '%s\n' "$out"

# ---- bad input ---------------------------------------------------------------------
printf 'not json\n' > "$work/bad.jsonl"
check "replay: a malformed trace" 2 "bad.jsonl:1:1: not a JSON object" \
    "$p2psim" replay "$work/bad.jsonl"
check "replay: no such file" 2 "none.jsonl" \
    "$p2psim" replay "$work/none.jsonl"
check "replay: a bad machine" 2 "no such machine" \
    "$p2psim" replay --topology no-such-machine "$work/sweep.jsonl"
grep -v sim0_ps "$work/hello.jsonl" > "$work/real.jsonl"
sed 's/"backend":"sim"/"backend":"cuda"/' "$work/hello.jsonl" |
    sed 's/,"sim0_ps":[0-9]*,"sim1_ps":[0-9]*//' > "$work/real.jsonl"
check "replay: a trace from a GPU compares with real times" 0 \
    "recorded on the cuda backend" \
    "$p2psim" replay --topology h200-x1 "$work/real.jsonl"
check "replay: --recorded sim needs simulated times" 2 "no simulated times" \
    "$p2psim" replay --recorded sim "$work/real.jsonl"

finish record-replay
