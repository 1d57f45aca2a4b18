#!/bin/sh
# compile.sh - programs that use the CUDA runtime API compile against
# p2psim's headers (cuda/include/) alone, without the CUDA toolkit.
#
# Checks (each prints "ok: ..." or "FAIL: ..." with the compiler output):
#   - every header compiles on its own, as C11 with the project's warning
#     flags and as C++98 and C++17, with -Werror;
#   - tests/abi/compile_samples.c, a simpleP2P-style program, compiles as
#     C11 (gcc -std=c11 -Wall -Werror) and as C++17 (-Wall -Werror), with
#     default and per-thread default streams;
#   - each probe of tests/abi/overloads.cpp (one C++ overload each)
#     compiles with -Wall -Werror;
#   - compiling the headers as CUDA source (__CUDACC__) stops with our
#     message instead of failing somewhere inside.
# Objects are compiled only (-c), never linked: no runtime is needed.
#
# Environment: CC (default cc), CXX (default c++), top_srcdir.
# Exit status: 0 all pass, 1 a check failed.
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-cc}
CXX=${CXX:-c++}
inc=$top/cuda/include
abi=$top/tests/abi
warn_c="-Wall -Wextra -Wno-unused-parameter -Wshadow -Wpointer-arith \
-Wstrict-prototypes -Wmissing-prototypes -Werror"
warn_cxx="-Wall -Wextra -Wshadow -Werror"

w=$(mktemp -d "${TMPDIR:-/tmp}/p2psim-compile.XXXXXX") || exit 1
trap 'rm -rf "$w"' EXIT
trap 'exit 1' HUP INT TERM

pass=0
fail=0
try() { # label, command...
    label=$1
    shift
    if "$@" >"$w/log" 2>&1; then
        echo "ok: $label"
        pass=$((pass + 1))
    else
        echo "FAIL: $label"
        sed 's/^/    /' "$w/log" | head -30
        fail=$((fail + 1))
    fi
}

for h in host_defines.h vector_types.h driver_types.h cuda_runtime_api.h \
    cuda_runtime.h p2psim_cudart_internal.h; do
    printf '#include <%s>\n#include <%s>\nint main(void);\nint main(void) { return 0; }\n' \
        "$h" "$h" >"$w/one.c"
    cp "$w/one.c" "$w/one.cpp"
    try "$h alone, C11" $CC -std=c11 $warn_c -I"$inc" -c "$w/one.c" -o "$w/one.o"
    try "$h alone, C++98" $CXX -std=c++98 $warn_cxx -I"$inc" \
        -c "$w/one.cpp" -o "$w/one.o"
    try "$h alone, C++17" $CXX -std=c++17 $warn_cxx -I"$inc" \
        -c "$w/one.cpp" -o "$w/one.o"
done

pt=-DCUDA_API_PER_THREAD_DEFAULT_STREAM
for d in "" $pt; do
    what=${d:+", per-thread default stream"}
    try "compile_samples.c as C11$what" $CC -std=c11 -Wall -Werror $d \
        -I"$inc" -c "$abi/compile_samples.c" -o "$w/s.o"
    try "compile_samples.c as C++17$what" $CXX -std=c++17 -Wall -Werror $d \
        -x c++ -I"$inc" -c "$abi/compile_samples.c" -o "$w/s.o"
done

count=$(sed -n 's/^#define PROBE_COUNT \([0-9]*\).*/\1/p' "$abi/overloads.cpp")
i=1
bad=
while [ "$i" -le "${count:-0}" ]; do
    if ! $CXX -std=c++17 -Wall -Werror -DPROBE=$i -I"$inc" \
        -c "$abi/overloads.cpp" -o "$w/p.o" >"$w/log" 2>&1; then
        bad="$bad $i"
        sed 's/^/    /' "$w/log" | head -10
    fi
    i=$((i + 1))
done
if [ -n "$count" ] && [ -z "$bad" ]; then
    echo "ok: overloads.cpp, $count probes"
    pass=$((pass + 1))
else
    echo "FAIL: overloads.cpp probes:${bad:- PROBE_COUNT not found}"
    fail=$((fail + 1))
fi

printf '#include <cuda_runtime.h>\n' >"$w/cu.c"
if $CC -D__CUDACC__ -I"$inc" -c "$w/cu.c" -o "$w/cu.o" >"$w/log" 2>&1; then
    echo "FAIL: the headers accept __CUDACC__"
    fail=$((fail + 1))
elif grep -q "for host compilers" "$w/log"; then
    echo "ok: CUDA source is refused with a clear message"
    pass=$((pass + 1))
else
    echo "FAIL: CUDA source is refused, but not by our message"
    sed 's/^/    /' "$w/log" | head -10
    fail=$((fail + 1))
fi

echo "compile: $pass passed, $fail failed"
[ $fail -eq 0 ]
