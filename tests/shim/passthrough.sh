#!/bin/sh
# passthrough.sh - P2PSIM_BACKEND=cuda without a GPU: the shim forwards
# every call to a fake "real" runtime (fake_cudart.c, built here as
# libfakecudart.so with soname libcudart.so.13) that logs what it
# receives, and the test proves that
#   - each call of passthrough.c arrived with its arguments (the fake's log
#     against values written here by hand),
#   - each result came back unchanged (the program's against the fake's),
#     and what pointer parameters handed back too,
#   - the API trace (P2PSIM_RECORD) holds the calls with their arguments
#     decoded, streams and events as ids, and the results,
#   - the real runtime is found by $CUDA_HOME, never the shim itself, and a
#     missing runtime or function gives cudaErrorNotSupported (801) with a
#     message,
#   - `p2psim run --real --record` sets the same up.
. "${top_srcdir:-.}/tests/shim/lib.sh"
[ -f "$shim_dir/libcudart.so.13" ] ||
    { echo "no shared shim (configured with --disable-shared?): skipped"; exit 77; }
scratch
shim=$(cd "$shim_dir" && pwd -P)
fake=$work/libfakecudart.so
log=$work/fake.log
rec=$work/trace.jsonl

# ---- build ----------------------------------------------------------------
# shellcheck disable=SC2086
check "the fake runtime builds (soname libcudart.so.13)" 0 "" \
    ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror $SAN_FLAGS -fPIC -shared \
    -I"$top/cuda/include" -Wl,-soname,libcudart.so.13 \
    -Wl,--version-script="$top/cuda/cudart/libcudart.map" \
    -o "$fake" "$build/tests/shim/fake_cudart.c"
# shellcheck disable=SC2086
check "passthrough.c builds against the shim" 0 "" \
    ${CC:-cc} -std=gnu11 -Wall -Wextra -Werror $SAN_FLAGS \
    -I"$top/cuda/include" -o "$work/passthrough" \
    "$top/tests/shim/passthrough.c" -L"$shim" -lcudart -Wl,-rpath,"$shim"
[ -x "$work/passthrough" ] && [ -f "$fake" ] || { finish passthrough; exit 1; }

run_fake() {
    rm -f "$log" "$rec"
    FAKE_CUDART_LOG=$log P2PSIM_BACKEND=cuda P2PSIM_REAL_CUDART=$fake \
        P2PSIM_RECORD=$rec "$@"
}

# ---- arguments ----------------------------------------------------------------
check "runs through the fake runtime" 0 "^done$" run_fake "$work/passthrough"
prog_out=$out
while IFS= read -r want; do
    [ -n "$want" ] || continue
    if grep -qF -- "$want" "$log"; then
        ok "forwarded: $want"
    else
        bad "forwarded: $want" "not in the fake's log: $(grep -F -- \
            "${want%% *}" "$log" | head -1)"
    fi
done <<'EOF'
cudaSetDevice device=3 ->
cudaMalloc devPtr=0x
cudaMemcpy dst=0x1000 src=0x2000 count=4098 kind=1 ->
cudaMemcpyAsync dst=0x3000 src=0x4000 count=4099 kind=2 stream=0x5100 ->
cudaMemcpyPeerAsync dst=0x6000 dstDevice=1 src=0x7000 srcDevice=2 count=4100 stream=0x5200 ->
cudaMemsetAsync devPtr=0x8000 value=90 count=4101 stream=0x5100 ->
cudaMemcpyAsync_ptsz dst=0x9000 src=0xa000 count=4102 kind=4 stream=0x5300 ->
cudaMemcpy_ptds dst=0xb000 src=0xc000 count=4103 kind=3 ->
cudaStreamCreateWithFlags stream=0x
cudaEventCreateWithFlags event=0x
cudaEventRecord event=0x5400 stream=0x5100 ->
cudaStreamWaitEvent stream=0x5200 event=0x5400 flags=0 ->
cudaEventElapsedTime ms=0x
cudaStreamSynchronize stream=0x5100 ->
cudaDeviceEnablePeerAccess peerDevice=5 flags=0 ->
cudaMemPrefetchAsync devPtr=0xd000 count=4104 location={1,6} flags=0 stream=0x5100 ->
cudaGetLastError ->
cudaPeekAtLastError ->
cudaGetErrorName error=717 -> "fake cudaGetErrorName"
cudaGetErrorString error=718 -> "fake cudaGetErrorString"
cudaIpcOpenMemHandle devPtr=0x
handle=abababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababab flags=1 ->
__cudaRegisterFatBinary fatCubin=0x
__cudaRegisterFunction fatCubinHandle=0x
deviceName="_Z6kernelPf" thread_limit=-1 tid=0x0 bid=0x0 bDim=0x0 gDim=0x0 wSize=0x0 -> void
__cudaRegisterFatBinaryEnd fatCubinHandle=0x
__cudaPushCallConfiguration gridDim={7,8,9} blockDim={32,2,1} sharedMem=48 stream=0x5100 ->
__cudaPopCallConfiguration gridDim=0x
__cudaGetKernel kernel=0x
__cudaLaunchKernel kernel=0x7700 gridDim={7,8,9} blockDim={32,2,1} args=0x
sharedMem=48 stream=0x5100 ->
__cudaUnregisterFatBinary fatCubinHandle=0x
EOF
n_prog=$(printf '%s\n' "$prog_out" | grep -c ' -> ')
n_log=$(wc -l < "$log")
# Each call of the program reached the fake once (the three void
# registration calls print no result).
if [ "$n_log" -eq $((n_prog + 3)) ]; then
    ok "one forwarded call per call ($n_log)"
else
    bad "one forwarded call per call" "$n_prog results, $n_log in the log"
fi

# ---- results ------------------------------------------------------------------
# "NAME -> R" of the program against "NAME ... -> R" of the fake.
printf '%s\n' "$prog_out" | grep ' -> ' | while IFS= read -r line; do
    name=${line%% *}
    got=${line##* -> }
    sent=$(grep "^$name[ ]" "$log" | head -1 | sed 's/.* -> //')
    sent=$(printf '%s' "$sent" | sed 's/^"\(.*\)"$/\1/')
    if [ "$got" = "$sent" ]; then
        echo "ok: $name returned unchanged ($got)"
    else
        echo "FAIL: $name returned unchanged: the fake returned '$sent', the program got '$got'"
    fi
done > "$work/results"
cat "$work/results"
pass=$((pass + $(grep -c '^ok:' "$work/results")))
fail=$((fail + $(grep -c '^FAIL:' "$work/results")))
check "results are the fake's own codes (10000+K)" 0 \
    "^cudaMemcpyAsync -> 100[0-9][0-9]$" printf '%s\n' "$prog_out"

# What pointer parameters hand back, with every call succeeding.
FAKE_CUDART_SUCCESS=1
export FAKE_CUDART_SUCCESS
check "with the fake succeeding" 0 "^cudaMalloc -> 0$" \
    run_fake "$work/passthrough"
ok_out=$out
ptr=$(printf '%s\n' "$ok_out" | sed -n 's/^cudaMalloc out devPtr=//p')
check "cudaMalloc's pointer came back" 0 "" \
    sh -c "printf '%s\n' '$ptr' | grep -q '^0xfa00'"
check "cudaGetDeviceCount's count came back" 0 \
    "^cudaGetDeviceCount out count=4[0-9]*$" printf '%s\n' "$ok_out"
check "cudaEventElapsedTime's milliseconds came back" 0 \
    "^cudaEventElapsedTime out ms=[0-9]*[.]5$" printf '%s\n' "$ok_out"
check "the trace has cudaMalloc's pointer as out" 0 \
    "\"name\":\"cudaMalloc\".*\"args\":{\"devPtr\":\"0x[0-9a-f]*\",\"size\":4097},\"out\":{\"devPtr\":\"$ptr\"},\"ret\":0}" \
    cat "$rec"
# Streams 0x5100, 0x5200 and 0x5300 were ids 1, 2, 3: a created one is 4.
check "the trace has the new stream as a new id" 0 \
    "\"name\":\"cudaStreamCreateWithFlags\".*\"flags\":1},\"out\":{\"stream\":4},\"ret\":0}" \
    cat "$rec"
unset FAKE_CUDART_SUCCESS

# ---- the API trace ------------------------------------------------------------
run_fake "$work/passthrough" >/dev/null 2>&1
check "trace header: backend cuda" 0 \
    '^{"api_trace":1,"pid":[0-9]*,"backend":"cuda"' cat "$rec"
check "trace: one line per call" 0 "" \
    test "$(grep -c '"seq":' "$rec")" -eq "$(wc -l < "$log")"
check "trace: a copy's arguments, stream as an id" 0 \
    '"name":"cudaMemcpyAsync","t0_ns":[0-9]*,"t1_ns":[0-9]*,"args":{"dst":"0x3000","src":"0x4000","count":4099,"kind":2,"stream":1},"out":{},"ret":100[0-9][0-9]}' \
    cat "$rec"
check "trace: another stream, another id" 0 \
    '"name":"cudaMemcpyPeerAsync".*"count":4100,"stream":2}' cat "$rec"
check "trace: events as ids" 0 \
    '"name":"cudaStreamWaitEvent".*"args":{"stream":2,"event":1,"flags":0}' \
    cat "$rec"
check "trace: dim3 and a launch" 0 \
    '"name":"__cudaLaunchKernel".*"gridDim":{"x":7,"y":8,"z":9},"blockDim":{"x":32,"y":2,"z":1}' \
    cat "$rec"
check "trace: strings" 0 \
    '"name":"cudaGetErrorString".*"ret":"fake cudaGetErrorString"}' cat "$rec"
check "trace: no simulated times on a real runtime" 1 "" \
    grep -q sim0_ps "$rec"

# ---- finding the runtime ----------------------------------------------------------
mkdir -p "$work/cuda/lib64"
cp "$fake" "$work/cuda/lib64/libcudart.so.13"
check "found in \$CUDA_HOME/lib64" 0 "^cudaSetDevice -> 100[0-9][0-9]$" \
    env FAKE_CUDART_LOG="$log" P2PSIM_BACKEND=cuda CUDA_HOME="$work/cuda" \
    "$work/passthrough"
check "never the shim itself" 0 "is p2psim's own runtime" \
    env P2PSIM_BACKEND=cuda P2PSIM_REAL_CUDART="$shim/libcudart.so.13" \
    "$work/passthrough"
check "... and cudaErrorNotSupported" 0 "^cudaSetDevice -> 801$" \
    printf '%s\n' "$out"
cp "$shim/libcudart.so.13" "$work/copy.so"
check "nor a copy of it" 0 "is a copy of p2psim's runtime" \
    env P2PSIM_BACKEND=cuda P2PSIM_REAL_CUDART="$work/copy.so" \
    "$work/passthrough"
check "a runtime that cannot be loaded: a message" 0 \
    "P2PSIM_REAL_CUDART=$work/none.so: cannot load" \
    env P2PSIM_BACKEND=cuda P2PSIM_REAL_CUDART="$work/none.so" \
    "$work/passthrough"
check "... and cudaErrorNotSupported" 0 "^cudaMemcpy -> 801$" \
    printf '%s\n' "$out"

# A runtime that lacks a function.
cat > "$work/tiny.c" <<'EOF'
int cudaGetDeviceCount(int *count);
int cudaGetDeviceCount(int *count) { *count = 42; return 7; }
EOF
# shellcheck disable=SC2086
check "a runtime with one function builds" 0 "" \
    ${CC:-cc} $SAN_FLAGS -fPIC -shared -Wl,-soname,libcudart.so.13 \
    -o "$work/libtiny.so" "$work/tiny.c"
check "its function is served" 0 "^cudaGetDeviceCount -> 7$" \
    env P2PSIM_BACKEND=cuda P2PSIM_REAL_CUDART="$work/libtiny.so" \
    "$work/passthrough"
check "a missing function: cudaErrorNotSupported" 0 "^cudaSetDevice -> 801$" \
    printf '%s\n' "$out"
check "... said once" 0 "libtiny.so has no cudaSetDevice" \
    printf '%s\n' "$out"

# ---- p2psim run --real --record -----------------------------------------------------
rm -f "$log"
check "p2psim run --real" 0 "^done$" \
    env FAKE_CUDART_LOG="$log" P2PSIM_REAL_CUDART="$fake" \
    "$p2psim" run --real --quiet --record "$work/run.jsonl" -- \
    "$work/passthrough"
check "... reached the fake runtime" 0 "" \
    grep -q "^cudaSetDevice device=3 " "$log"
check "... and recorded the trace" 0 '"name":"cudaSetDevice"' \
    cat "$work/run.jsonl"
check "--real takes no --topology" 2 "no --topology" \
    "$p2psim" run --real --topology h200-x1 -- "$work/passthrough"

# ---- an nvcc program through NVIDIA's runtime (when both are here) ----------------
# Registration of real fat binaries is forwarded; without a GPU NVIDIA's
# runtime answers cudaErrorInsufficientDriver (35), with one the program
# runs. Skipped without nvcc or a toolkit runtime, and in sanitizer builds
# (nvcc.sh says why).
nvcc=${NVCC:-$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)}
real=$(ls /usr/local/cuda/lib64/libcudart.so.13 \
    /usr/local/cuda/targets/*/lib/libcudart.so.13 2>/dev/null | head -1)
if [ -x "$nvcc" ] && [ -n "$real" ] && [ -z "${SAN_FLAGS:-}" ]; then
    check "nvcc_hello.cu builds (-cudart shared)" 0 "" \
        "$nvcc" -cudart shared -no-compress -o "$work/nvcc_hello" \
        "$top/tests/shim/nvcc_hello.cu"
    "$p2psim" run --real --quiet --record "$work/nvcc.jsonl" -- \
        "$work/nvcc_hello" > "$work/nvcc.out" 2>&1
    check "nvcc_hello through NVIDIA's runtime: fat binary registered" 0 \
        '"name":"__cudaRegisterFatBinary".*"ret":"0x[0-9a-f]*[1-9a-f][0-9a-f]*"' \
        cat "$work/nvcc.jsonl"
    check "... its kernel too" 0 \
        '"name":"__cudaRegisterFunction".*"deviceName":"_Z' cat "$work/nvcc.jsonl"
    check "... NVIDIA's answer (a GPU, or 35 without a driver)" 0 \
        '"name":"cudaGetDeviceCount".*"ret":\(0\|35\|100\)}' \
        cat "$work/nvcc.jsonl"
else
    echo "nvcc, NVIDIA's runtime or a plain build missing: nvcc part skipped"
fi

finish passthrough
