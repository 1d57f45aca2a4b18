#!/bin/sh
# run.sh - `p2psim run` itself, without the shim's functions: arguments and
# errors, the environment it hands the program, exit statuses and signals.
# The programs run are sh and env, so this passes on any build.
. "${top_srcdir:-.}/tests/shim/lib.sh"
scratch
broken=$top/tests/topologies/broken/01-unknown-top-key.yaml

check "help" 0 "usage: p2psim run" "$p2psim" run --help
check "listed in p2psim --help" 0 "run  *run a CUDA program" "$p2psim" --help
check "no program" 2 "p2psim run: no program given (usage: p2psim run" \
    "$p2psim" run
check "no program after --" 2 "no program given" "$p2psim" run --quiet --
check "unknown option" 2 "usage: p2psim run" "$p2psim" run --frobnicate -- true
check "missing program: 127" 127 "p2psim run: cannot run 'p2psim-no-such-program'" \
    "$p2psim" run -- p2psim-no-such-program
check "missing path: 127" 127 "cannot run '/nonexistent/prog': No such file" \
    "$p2psim" run -- /nonexistent/prog
printf 'not a program\n' > "$work/text"
chmod -x "$work/text"
check "not executable: 126" 126 "Permission denied" "$p2psim" run -- "$work/text"
check "bad machine file: file:line:col" 2 \
    "broken/01-unknown-top-key.yaml:16:1: error" \
    "$p2psim" run --topology "$broken" -- true
check "bad machine file: program not run" 2 "" \
    "$p2psim" run --topology "$broken" -- touch "$work/ran"
if [ -e "$work/ran" ]; then bad "program not run" "it ran"; else ok "program not run"; fi
check "missing machine file" 2 "cannot read" \
    "$p2psim" run --topology /nonexistent.yaml -- true
check "unknown built-in machine names the choices" 2 "built-in: .*h200-x1" \
    "$p2psim" run --topology no-such-machine -- true
check "bad \$P2PSIM_TOPOLOGY is checked too" 2 "01-unknown-top-key.yaml:16:1" \
    env P2PSIM_TOPOLOGY="$broken" "$p2psim" run -- true

check "exit status 0" 0 "p2psim run: true exited with status 0" \
    "$p2psim" run -- true
check "exit status 3 propagated" 3 "p2psim run: sh exited with status 3" \
    "$p2psim" run -- sh -c 'exit 3'
check "--quiet: status 3" 3 "" "$p2psim" run --quiet -- sh -c 'exit 3'
if printf '%s\n' "$out" | grep -q "exited with"; then
    bad "--quiet: no exit line" "$out"
else
    ok "--quiet: no exit line"
fi
check "killed by a signal: 128+N" 143 "sh killed by signal 15" \
    "$p2psim" run -- sh -c 'kill -TERM $$'
check "arguments reach the program" 0 "^a b|c d$" \
    "$p2psim" run -- sh -c 'echo "$1|$2"' sh "a b" "c d"
check "options after PROGRAM are the program's" 0 "^--quiet$" \
    "$p2psim" run -- echo --quiet

# The environment the program gets.
shim=$(cd "$build/cuda/cudart/.libs" 2>/dev/null && pwd -P)
drv=$(cd "$build/cuda/driver/.libs" 2>/dev/null && pwd -P)
check "LD_LIBRARY_PATH starts with the driver API and the shim" 0 \
    "^LD_LIBRARY_PATH=$drv:$shim:/x$" \
    env LD_LIBRARY_PATH=/x "$p2psim" run -- env
check "--real leaves p2psim's libcuda.so.1 off the path" 0 \
    "^LD_LIBRARY_PATH=$shim:/x$" \
    env LD_LIBRARY_PATH=/x "$p2psim" run --real -- env
check "P2PSIM_REPORT=1" 0 "^P2PSIM_REPORT=1$" printf '%s\n' "$out"
check "built-in machine: a file" 0 "^P2PSIM_TOPOLOGY=/.*h200-x1.yaml$" \
    "$p2psim" run --topology h200-x1 -- env
machine=$(printf '%s\n' "$out" | sed -n 's/^P2PSIM_TOPOLOGY=//p')
if [ -n "$machine" ] && [ ! -e "$machine" ]; then
    ok "built-in machine: the copy is removed"
else
    bad "built-in machine: the copy is removed" "'$machine' is still there"
fi
check "machine file: an absolute path" 0 \
    "^P2PSIM_TOPOLOGY=/.*topologies/dgx1-v100.yaml$" \
    sh -c "cd '$top' && '$p2psim' run --topology topologies/dgx1-v100.yaml -- env"
check "--stats and --trace: absolute paths" 0 "^P2PSIM_STATS=/.*/s.json$" \
    sh -c "cd '$work' && '$p2psim' run --stats s.json --trace t.csv -- env"
check "P2PSIM_TRACE" 0 "^P2PSIM_TRACE=/.*/t.csv$" \
    printf '%s\n' "$out"
check "a server by default: P2PSIM_SERVER names its socket" 0 \
    "^P2PSIM_SERVER=/.*/socket$" "$p2psim" run -- env
check "--single-process: P2PSIM_SERVER set, empty" 0 "^P2PSIM_SERVER=$" \
    "$p2psim" run --single-process -- env
check "--quiet: env runs" 0 "" \
    env P2PSIM_REPORT=1 "$p2psim" run --quiet -- env
if printf '%s\n' "$out" | grep -q '^P2PSIM_REPORT='; then
    bad "--quiet: no P2PSIM_REPORT" "set"
else
    ok "--quiet: no P2PSIM_REPORT"
fi
mkdir -p "$work/lib"
check "P2PSIM_CUDART_DIR without the shim" 1 "has no libcudart.so.13" \
    env P2PSIM_CUDART_DIR="$work/lib" "$p2psim" run -- true
: > "$work/lib/libcudart.so.13"
check "P2PSIM_CUDART_DIR overrides" 0 "^LD_LIBRARY_PATH=$work/lib$" \
    env -u LD_LIBRARY_PATH P2PSIM_CUDART_DIR="$work/lib" "$p2psim" run -- env

# SIGTERM sent to p2psim reaches the program, whose status comes back.
"$p2psim" run -- sh -c "trap 'exit 7' TERM; touch '$work/ready'; \
    while :; do sleep 1; done" >/dev/null 2>&1 &
pid=$!
i=0
while [ ! -e "$work/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $pid
wait $pid
rc=$?
if [ $rc -eq 7 ]; then
    ok "SIGTERM forwarded to the program"
else
    bad "SIGTERM forwarded to the program" "exit $rc, expected 7"
fi

# SIGTERM in the middle of a long simulation, to `p2psim run` (the
# program gets it, and the server, which is simulating, stops too) and to
# the server alone (the program then fails, having lost its machine). The
# server promises to stop within a second; the bound here is generous,
# 20 s, and a hang of minutes fails it. The program copies 2 GiB between
# GPUs 1,000 times (hours; each copy half a minute or more in one run of
# the server's simulation): it must still be simulating when signalled.
shim=$(cd "$shim_dir" && pwd -P)
# sigterm_while_simulating NAME WHOM: WHOM is "run" or "server".
sigterm_while_simulating() {
    "$p2psim" run --quiet -- "$work/long_copy" >"$work/long.out" 2>&1 &
    pid=$!
    i=0
    while ! grep -q '^simulating$' "$work/long.out" && [ $i -lt 300 ]; do
        sleep 0.1; i=$((i + 1))
    done
    sleep 1
    server=$(ps -o pid= -o args= --ppid $pid | awk '$3 == "server" { print $1 }')
    if grep -q '^done$' "$work/long.out" || ! kill -0 $pid 2>/dev/null ||
       [ -z "$server" ]; then
        bad "$1" "the run was over before the signal (or had no server)"
        kill -KILL $pid $server 2>/dev/null
        wait $pid
        return
    fi
    if [ "$2" = server ]; then
        kill -TERM $server
    else
        kill -TERM $pid
    fi
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do
        sleep 0.1; i=$((i + 1))
    done
    if kill -0 $pid 2>/dev/null; then
        bad "$1" "p2psim run still there 20 s after the signal"
        kill -KILL $pid $server 2>/dev/null
    else
        ok "$1: gone after $((i / 10)).$((i % 10)) s"
    fi
    wait $pid
}
cat >"$work/long_copy.c" <<'EOF'
/*
 * long_copy.c (written by tests/shim/run.sh) - a program whose simulation
 * takes hours: it copies 2 GiB from GPU 0 to GPU 1 (half a minute or more
 * of simulation each, in one run of the server's machine) again and
 * again; run.sh sends SIGTERM in the middle of it. Prints "simulating"
 * before the first copy and "done" after the last.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void)
{
    void *a, *b;
    size_t n = (size_t)2 << 30;
    if (cudaSetDevice(0) || cudaMalloc(&a, n) || cudaSetDevice(1) ||
        cudaMalloc(&b, n)) {
        fprintf(stderr, "long_copy: no memory\n");
        return 1;
    }
    printf("simulating\n");
    fflush(stdout);
    for (int i = 0; i < 1000; i++) {
        if (cudaMemcpyPeer(b, 1, a, 0, n) || cudaDeviceSynchronize()) {
            fprintf(stderr, "long_copy: the copy failed\n");
            return 1;
        }
    }
    printf("done\n");
    return 0;
}
EOF
# shellcheck disable=SC2086
if [ -f "$shim/libcudart.so.13" ] &&
   ${CC:-cc} -std=c11 $SAN_FLAGS -I"$top/cuda/include" -o "$work/long_copy" \
       "$work/long_copy.c" -L"$shim" -lcudart \
       -Wl,-rpath,"$shim" >"$work/cc.log" 2>&1; then
    sigterm_while_simulating "SIGTERM to p2psim run while simulating" run
    sigterm_while_simulating "SIGTERM to the server while simulating" server
else
    echo "long_copy: not built (no shared shim?): skipped"
fi
# A program that links libnvrtc gets NVRTC's PTX for its cubin (the
# driver's cuda/driver/nvrtc_cubin.c, preloaded), others only the host
# clocks' libp2psim-host.so (cuda/host/), and --real neither. The NVRTC here is a fake that tells the two apart.
# Not in a sanitizer build: a preload there stops instrumented programs.
mkdir -p "$work/nvrtc"
cat > "$work/nvrtc/fake.c" <<'EOF'
#include <stddef.h>
#include <string.h>
int nvrtcGetPTXSize(void *p, size_t *n) { (void)p; *n = 5; return 0; }
int nvrtcGetPTX(void *p, char *b) { (void)p; memcpy(b, "PTX!", 5); return 0; }
int nvrtcGetCUBINSize(void *p, size_t *n) { (void)p; *n = 4; return 0; }
int nvrtcGetCUBIN(void *p, char *b) { (void)p; memcpy(b, "ELF", 4); return 0; }
EOF
cat > "$work/nvrtc/prog.c" <<'EOF'
#include <stdio.h>
#include <stddef.h>
int nvrtcGetCUBINSize(void *p, size_t *n);
int nvrtcGetCUBIN(void *p, char *b);
int main(void)
{
    char b[16] = "";
    size_t n = 0;
    nvrtcGetCUBINSize(NULL, &n);
    nvrtcGetCUBIN(NULL, b);
    printf("cubin=%s size=%zu\n", b, n);
    return 0;
}
EOF
if [ -z "${SAN_FLAGS:-}" ] &&
   [ -f "$build/cuda/driver/.libs/libp2psim-nvrtc.so" ] &&
   ${CC:-cc} -shared -fPIC -Wl,-soname,libnvrtc.so.13 \
       -o "$work/nvrtc/libnvrtc.so.13" "$work/nvrtc/fake.c" \
       >"$work/nvrtc/cc.log" 2>&1 &&
   ${CC:-cc} -o "$work/nvrtc/prog" "$work/nvrtc/prog.c" \
       "$work/nvrtc/libnvrtc.so.13" >>"$work/nvrtc/cc.log" 2>&1; then
    check "NVRTC's cubin is its PTX under p2psim run" 0 "^cubin=PTX! size=5$" \
        env LD_LIBRARY_PATH="$work/nvrtc" "$p2psim" run --quiet -- \
        "$work/nvrtc/prog"
    check "NVRTC's own cubin with --real" 0 "^cubin=ELF size=4$" \
        env LD_LIBRARY_PATH="$work/nvrtc" "$p2psim" run --real --quiet -- \
        "$work/nvrtc/prog"
    check "only the host clocks' preload for a program without NVRTC" 0 \
        "^preload=[^:]*/libp2psim-host\.so$" \
        env -u LD_PRELOAD "$p2psim" run --quiet -- \
        sh -c 'echo "preload=$LD_PRELOAD"'
    check "--real-clock: the same preload, told" 0 \
        "^preload=[^:]*/libp2psim-host\.so real=1$" \
        env -u LD_PRELOAD "$p2psim" run --real-clock --quiet -- \
        sh -c 'echo "preload=$LD_PRELOAD real=$P2PSIM_REAL_CLOCK"'
    check "no preload with --real" 0 "^preload=$" \
        env -u LD_PRELOAD "$p2psim" run --real --quiet -- \
        sh -c 'echo "preload=$LD_PRELOAD"'
else
    echo "NVRTC preload: not checked (sanitizer build, or no compiler)"
fi
finish run
