#!/bin/sh
# abi.sh - check p2psim's CUDA headers (cuda/include/) against the installed
# CUDA toolkit's headers, mechanically.
#
# Checks (each prints "ok: ..." or "FAIL: ..." with the differences):
#   text      tests/abi/abi_check.c built against both header sets prints
#             the same sizes, alignments, offsets, enumerator and macro
#             values and function names; plain, with
#             CUDA_API_PER_THREAD_DEFAULT_STREAM, and with the internal
#             interface (fat binary wrapper)
#   symbols   both builds import the same runtime symbols (_ptds/_ptsz
#             bindings included)
#   debug     the DWARF of both builds agrees on every enumeration (all
#             enumerators), struct (every member, offset and type), typedef
#             and function signature our headers declare; the per-thread
#             twins and the nvcc entry points of p2psim_cudart_internal.h
#             are compared with the toolkit's (the latter with an object
#             that nvcc itself generated, when nvcc is installed)
#   coverage  everything our headers declare (enumerators, members, structs,
#             typedefs, functions, macros) is listed in abi_check.c, so the
#             comparison cannot skip a name silently
#   exports   the toolkit's libcudart.so.13 defines every function our
#             headers declare (public, internal and per-thread twins)
#   occupancy cudaOccupancyMaxPotentialBlockSize*() (our own code in
#             cuda_runtime.h) gives the toolkit's results against a fake
#             runtime (tests/abi/occupancy.cpp)
#   samples   tests/abi/compile_samples.c, as C and as C++, default and
#             per-thread streams, imports the same symbols with both header
#             sets (which C entry point each C++ overload reaches)
#
# Environment: CC (default cc), CXX (default c++), GCC (used for
# abi_check.c when CC is Clang; default gcc), CUDA_INCLUDE (the
# toolkit's include directory; default: next to nvcc on PATH, else
# /usr/local/cuda/include), NVCC, READELF, NM, top_srcdir, ABI_KEEP=1 to
# keep the work directory.
#
# Exit status: 0 all checks pass; 1 a check failed; 77 (skip) the toolkit
# headers or binutils are not installed (CI has no toolkit).
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-cc}
CXX=${CXX:-c++}
READELF=${READELF:-readelf}
NM=${NM:-nm}
ours_inc=$top/cuda/include
abi=$top/tests/abi

# ---- find the toolkit -------------------------------------------------------
nvcc=${NVCC:-$(command -v nvcc 2>/dev/null)}
if [ -z "$CUDA_INCLUDE" ]; then
    if [ -n "$nvcc" ] && [ -f "$(dirname "$nvcc")/../include/cuda_runtime_api.h" ]; then
        CUDA_INCLUDE=$(cd "$(dirname "$nvcc")/../include" && pwd)
    elif [ -f /usr/local/cuda/include/cuda_runtime_api.h ]; then
        CUDA_INCLUDE=/usr/local/cuda/include
    fi
fi
if [ -z "$CUDA_INCLUDE" ] || [ ! -f "$CUDA_INCLUDE/cuda_runtime_api.h" ]; then
    echo "skipped: CUDA toolkit headers not found"
    exit 77
fi
for tool in "$READELF" "$NM"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "skipped: $tool not found (binutils)"
        exit 77
    fi
done
if [ -z "$nvcc" ] && [ -x "$CUDA_INCLUDE/../bin/nvcc" ]; then
    nvcc=$CUDA_INCLUDE/../bin/nvcc
fi
echo "toolkit headers: $CUDA_INCLUDE"

# abi_check.c is built with GCC: the debug comparison relies on GCC
# describing every declared type and every referenced external function
# (Clang leaves the declarations out). CC is used when it is GCC.
gcc=$CC
if $CC -dM -E -x c /dev/null 2>/dev/null | grep -q '__clang__'; then
    gcc=${GCC:-gcc}
fi
if ! $gcc -dM -E -x c /dev/null 2>/dev/null | grep -q '__GNUC__' ||
    $gcc -dM -E -x c /dev/null 2>/dev/null | grep -q '__clang__'; then
    echo "FAIL: the debug-information checks need GCC (set GCC=...)"
    exit 1
fi

w=$(mktemp -d "${TMPDIR:-/tmp}/p2psim-abi.XXXXXX") || exit 1
if [ "$ABI_KEEP" = 1 ]; then
    echo "work directory: $w"
else
    trap 'rm -rf "$w"' EXIT
    trap 'exit 1' HUP INT TERM
fi

pass=0
fail=0
ok() { echo "ok: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; fail=$((fail + 1)); }

# The debug info lists every type a header declares only with this flag.
dbg="-g -fno-eliminate-unused-debug-types"
# abi_check.c takes the address of deprecated declarations on purpose.
quiet="-Wno-deprecated-declarations"

dwarf() { # object -> canonical interface listing on stdout
    "$READELF" --debug-dump=info "$1" | awk -f "$abi/dwarf.awk" | LC_ALL=C sort -u
}

# build NAME -I... -D...: abi_check.c -> NAME.o, NAME.txt, NAME.syms, NAME.dw
build() {
    name=$1
    shift
    if ! $gcc -std=c11 $dbg $quiet "$@" -c "$abi/abi_check.c" -o "$w/$name.o" \
        >"$w/$name.log" 2>&1; then
        bad "$name: abi_check.c does not compile"
        sed 's/^/    /' "$w/$name.log" | head -40
        return 1
    fi
    if ! $gcc "$w/$name.o" -o "$w/$name" -Wl,--unresolved-symbols=ignore-all \
        >>"$w/$name.log" 2>&1 || ! "$w/$name" >"$w/$name.txt"; then
        bad "$name: abi_check does not link or run"
        sed 's/^/    /' "$w/$name.log" | head -20
        return 1
    fi
    "$NM" -u "$w/$name.o" | awk '{ print $NF }' | LC_ALL=C sort >"$w/$name.syms"
    dwarf "$w/$name.o" >"$w/$name.dw"
}

same() { # label, file ours, file toolkit
    if diff -u "$3" "$2" >"$w/diff" 2>&1; then
        ok "$1"
    else
        bad "$1 (- toolkit, + ours)"
        sed 's/^/    /' "$w/diff" | head -60
    fi
}

# same_dw label ours.dw toolkit.dw [key-regex]: every entity of ours whose
# key matches (default: all) must be identical in the toolkit listing.
# Entities of the system headers (baseline.dw) are left out.
same_dw() {
    awk -F'|' -v pat="${4:-.}" -v out="$w/dwdiff" '
        FILENAME == ARGV[1] { base[$1] = 1; next }
        FILENAME == ARGV[2] { tk[$1] = tk[$1] "\n      " $0; next }
        !($1 in base) && $1 ~ pat {
            if (!($1 in ours)) { keys[++n] = $1 }
            ours[$1] = ours[$1] "\n      " $0
        }
        END {
            bad = 0
            for (i = 1; i <= n; i++) {
                k = keys[i]
                if (!(k in tk)) {
                    print "    not in the toolkit: " k > out
                    bad++
                } else if (tk[k] != ours[k]) {
                    print "    differs: " k "\n    toolkit:" tk[k] \
                        "\n    ours:" ours[k] > out
                    bad++
                }
            }
            print n > (out ".count")
            exit (bad > 0)
        }' "$w/baseline.dw" "$3" "$2"
    st=$?
    n=$(cat "$w/dwdiff.count" 2>/dev/null)
    if [ $st -eq 0 ] && [ "${n:-0}" -gt 0 ]; then
        ok "$1 ($n entities)"
    elif [ $st -eq 0 ]; then
        bad "$1: nothing to compare"
    else
        bad "$1"
        head -80 "$w/dwdiff"
    fi
    rm -f "$w/dwdiff" "$w/dwdiff.count"
}

# ---- builds of abi_check.c --------------------------------------------------
cat >"$w/baseline.c" <<'EOF'
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
int main(void) { return 0; }
EOF
$gcc -std=c11 $dbg -c "$w/baseline.c" -o "$w/baseline.o" || exit 1
dwarf "$w/baseline.o" >"$w/baseline.dw"

pt=-DCUDA_API_PER_THREAD_DEFAULT_STREAM
built=yes
build ours -I"$ours_inc" || built=no
build toolkit -I"$CUDA_INCLUDE" -DABI_TOOLKIT || built=no
build ours-pt -I"$ours_inc" $pt || built=no
build toolkit-pt -I"$CUDA_INCLUDE" -DABI_TOOLKIT $pt || built=no
build ours-int -I"$ours_inc" -DABI_INTERNAL || built=no
build toolkit-int -I"$CUDA_INCLUDE" -DABI_TOOLKIT -DABI_INTERNAL || built=no

if [ $built = yes ]; then
    # ---- text ---------------------------------------------------------------
    same "text: sizes, offsets, values ($(wc -l <"$w/ours.txt") lines)" \
        "$w/ours.txt" "$w/toolkit.txt"
    same "text, per-thread default stream" "$w/ours-pt.txt" "$w/toolkit-pt.txt"
    same "text, internal interface" "$w/ours-int.txt" "$w/toolkit-int.txt"

    # ---- symbols ------------------------------------------------------------
    same "symbols imported ($(wc -l <"$w/ours.syms"))" \
        "$w/ours.syms" "$w/toolkit.syms"
    same "symbols imported, per-thread default stream" \
        "$w/ours-pt.syms" "$w/toolkit-pt.syms"

    # ---- debug information --------------------------------------------------
    same_dw "debug: enums, structs, typedefs, signatures" \
        "$w/ours.dw" "$w/toolkit.dw"
    same_dw "debug, per-thread default stream" "$w/ours-pt.dw" "$w/toolkit-pt.dw"
    # ---- the driver API's header (cuda.h), on its own -------------------------
    drv_ok=yes
    for side in ours toolkit; do
        inc=$ours_inc
        [ $side = toolkit ] && inc=$CUDA_INCLUDE
        if ! $gcc -std=c11 $dbg $quiet -I"$inc" -c "$abi/driver_abi.c" \
            -o "$w/drv-$side.o" >"$w/drv-$side.log" 2>&1 ||
            ! $gcc "$w/drv-$side.o" -o "$w/drv-$side" >>"$w/drv-$side.log" 2>&1 ||
            ! "$w/drv-$side" >"$w/drv-$side.txt"; then
            bad "driver: cuda.h ($side) does not build"
            sed 's/^/    /' "$w/drv-$side.log" | head -20
            drv_ok=no
        else
            dwarf "$w/drv-$side.o" >"$w/drv-$side.dw"
        fi
    done
    if [ $drv_ok = yes ]; then
        same "driver: CUDA_VERSION" "$w/drv-ours.txt" "$w/drv-toolkit.txt"
        same_dw "driver: cuda.h's enums, structs, typedefs" \
            "$w/drv-ours.dw" "$w/drv-toolkit.dw"
    fi

    same_dw "debug: per-thread twins in p2psim_cudart_internal.h" \
        "$w/ours-int.dw" "$w/toolkit-pt.dw" '^func cuda[A-Za-z]*_pt(ds|sz)$'

    if [ -n "$nvcc" ] && [ -x "$nvcc" ]; then
        cat >"$w/nv.cu" <<'EOF'
__device__ int dev_var;
__constant__ float const_var;
__managed__ int managed_var;
__global__ void kernel(float *out, const float *in, int n, float s)
{
    out[n] = in[n] * s + dev_var + const_var + managed_var;
}
int main()
{
    float *p = 0;
    kernel<<<1, 1>>>(p, p, 0, 2.0f);
    return managed_var;
}
EOF
        if "$nvcc" -cudart shared -g -c "$w/nv.cu" -o "$w/nv.o" \
            >"$w/nv.log" 2>&1 &&
            "$nvcc" -cudart shared -g --default-stream per-thread \
                -c "$w/nv.cu" -o "$w/nv-pt.o" >>"$w/nv.log" 2>&1; then
            { dwarf "$w/nv.o"; dwarf "$w/nv-pt.o"; } | LC_ALL=C sort -u \
                >"$w/nv.dw"
            same_dw "debug: registration/launch entry points vs nvcc output" \
                "$w/ours-int.dw" "$w/nv.dw" '^func __cuda'
        else
            bad "nvcc could not build the reference object"
            sed 's/^/    /' "$w/nv.log" | head -20
        fi
    else
        echo "note: nvcc not found; the registration/launch entry points" \
            "are not compared"
    fi

    # ---- coverage -------------------------------------------------------
    # Names our headers declare, from our own debug info (minus the system
    # headers and abi_check.c's helpers) and from the header text.
    {
        cat "$w/ours.dw" "$w/ours-int.dw" | awk -F'|' '
            FILENAME == ARGV[1] { base[$1] = 1; next }
            ($1 in base) || $1 ~ / (abi|p2psim)_/ { next }
            $1 ~ /^enum / && $2 ~ /^#/ {
                print "type " $1 " size"; next }
            $1 ~ /^enum / {
                e = $1; sub(/^enum /, "", e); v = $2; sub(/ =.*/, "", v)
                print "enum " e "." v " "; next }
            $1 ~ /^struct / && $2 ~ /^#size/ { print "type " $1 " size"; next }
            $1 ~ /^struct / && $2 ~ /^@/ {
                m = $2; sub(/^@[^ ]* /, "", m); sub(/:.*/, "", m)
                print "field " $1 "." m " offset"; next }
            $1 ~ /^typedef / {
                t = $1; sub(/^typedef /, "", t); print "type " t " size" }
        ' "$w/baseline.dw" -
        tr '\n' ' ' <"$ours_inc/cuda_runtime_api.h" |
            grep -o 'CUDARTAPI[[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*(' |
            sed 's/CUDARTAPI[[:space:]]*/function /; s/[[:space:]]*($//'
        # cuda.h (the driver API) is compared on its own, above
        ls "$ours_inc"/*.h | grep -v '/cuda\.h$' | xargs cat | awk '
            $1 == "#define" && $2 ~ /^(cuda|CUDA)[A-Za-z0-9_]*$/ &&
            NF >= 3 && $3 !~ /^(P2PSIM_|\\)/ { print "macro " $2 " " }
            $1 == "#define" && NF == 2 &&
            $2 ~ /^(CUDART|CUDARTAPI|CU_UUID|__[A-Z_]+_H__$)/ {
                print "defined " $2 " yes" }'
    } | LC_ALL=C sort -u >"$w/declared"
    tr '\n' ' ' <"$ours_inc/p2psim_cudart_internal.h" |
        grep -o 'CUDARTAPI[[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*(' |
        sed 's/CUDARTAPI[[:space:]]*/func /; s/[[:space:]]*($/|/' |
        LC_ALL=C sort -u >"$w/declared-int"
    # A declared name counts as checked when some line of abi_check's
    # output (or, for the internal entry points, of its debug listing)
    # starts with the pattern; output lines get a trailing blank so that
    # "function cudaMalloc " does not match cudaMallocHost.
    awk -v intfile="$w/declared-int" '
        FILENAME == ARGV[1] || FILENAME == ARGV[2] { out[++n] = $0 " "; next }
        FILENAME == ARGV[3] { dw[++m] = $0; next }
        { found = 0
          for (i = 1; i <= n && !found; i++) {
              found = index(out[i], $0) == 1
          }
          if (!found) { print "      " $0 }
        }
        END {
            while ((getline l < intfile) > 0) {
                found = 0
                for (i = 1; i <= m && !found; i++) {
                    found = index(dw[i], l) == 1
                }
                if (!found) { print "      " l " (p2psim_cudart_internal.h)" }
            }
        }' "$w/ours.txt" "$w/ours-int.txt" "$w/ours-int.dw" "$w/declared" \
        >"$w/missing" || echo "      (the coverage check itself failed)" >>"$w/missing"
    n=$(($(wc -l <"$w/declared") + $(wc -l <"$w/declared-int")))
    # Each kind of name must have been found at all; an empty list would
    # make the check vacuous.
    for kind in "type enum" "enum " "type struct" "field " "function " \
        "macro " "defined "; do
        if ! grep -q "^$kind" "$w/declared"; then
            echo "      (no '$kind' names extracted from the headers)" \
                >>"$w/missing"
        fi
    done
    [ -s "$w/declared-int" ] ||
        echo "      (no internal entry points extracted)" >>"$w/missing"
    missing=$(wc -l <"$w/missing")
    if [ "$missing" -eq 0 ]; then
        ok "coverage: all $n declared names are checked"
    else
        bad "coverage: $missing of $n declared names are not checked"
        echo "    not listed in abi_check.c:"
        cat "$w/missing"
    fi
fi

# ---- exports: the real libcudart.so.13 defines every function we declare -----
lib=
for d in lib64 lib targets/x86_64-linux/lib; do
    if [ -f "$CUDA_INCLUDE/../$d/libcudart.so.13" ]; then
        lib=$CUDA_INCLUDE/../$d/libcudart.so.13
        break
    fi
done
if [ -n "$lib" ]; then
    "$NM" -D --defined-only "$lib" | awk '{ sub(/@.*/, "", $NF); print $NF }' |
        LC_ALL=C sort -u >"$w/exports"
    cat "$ours_inc/cuda_runtime_api.h" "$ours_inc/p2psim_cudart_internal.h" |
        tr '\n' ' ' |
        grep -o 'CUDARTAPI[[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]*(' |
        sed 's/CUDARTAPI[[:space:]]*//; s/[[:space:]]*($//' |
        LC_ALL=C sort -u >"$w/names"
    LC_ALL=C comm -23 "$w/names" "$w/exports" >"$w/unexported"
    if [ ! -s "$w/names" ]; then
        bad "exports: no function names extracted from the headers"
    elif [ -s "$w/unexported" ]; then
        bad "exports: declared but not defined by $lib"
        sed 's/^/    /' "$w/unexported"
    else
        ok "exports: libcudart.so.13 defines all $(wc -l <"$w/names") declared functions"
    fi
else
    echo "note: libcudart.so.13 not found next to the headers; exports not checked"
fi

# ---- compile_samples.c: which symbols each language variant imports --------
sample() { # name, compiler + flags...
    name=$1
    shift
    if ! "$@" -c "$abi/compile_samples.c" -o "$w/$name.o" >"$w/$name.log" 2>&1
    then
        bad "samples: $name does not compile"
        sed 's/^/    /' "$w/$name.log" | head -30
        return 1
    fi
    "$NM" -u "$w/$name.o" | awk '{ print $NF }' | LC_ALL=C sort >"$w/$name.syms"
}
for mode in default pt; do
    d=
    [ $mode = pt ] && d=$pt
    for lang in c c++; do
        if [ $lang = c ]; then
            cmd="$CC -std=c11"
        else
            cmd="$CXX -std=c++17 -x c++"
        fi
        s=$lang-$mode
        if sample ours-$s $cmd -Wall -Werror $d -I"$ours_inc" &&
            sample toolkit-$s $cmd -w $d -I"$CUDA_INCLUDE"; then
            same "samples: $lang, $mode streams, symbols imported" \
                "$w/ours-$s.syms" "$w/toolkit-$s.syms"
        fi
    done
done

# ---- overloads.cpp: the C entry points each C++ overload reaches ------------
count=$(sed -n 's/^#define PROBE_COUNT \([0-9]*\).*/\1/p' "$abi/overloads.cpp")
for mode in default pt; do
    d=
    [ $mode = pt ] && d=$pt
    i=1
    differ=
    while [ "$i" -le "${count:-0}" ]; do
        for side in ours toolkit; do
            if [ $side = ours ]; then
                flags="-Wall -Werror -I$ours_inc"
            else
                flags="-w -I$CUDA_INCLUDE"
            fi
            if ! $CXX -std=c++17 $flags $d -DPROBE=$i -c "$abi/overloads.cpp" \
                -o "$w/probe.o" >"$w/probe.log" 2>&1; then
                differ="$differ $i($side: does not compile)"
                sed 's/^/    /' "$w/probe.log" | head -10
                continue
            fi
            "$NM" -u "$w/probe.o" | awk '{ print $NF }' | LC_ALL=C sort \
                >"$w/probe-$side.syms"
        done
        if ! diff "$w/probe-toolkit.syms" "$w/probe-ours.syms" \
            >"$w/probe.diff" 2>&1; then
            differ="$differ $i"
            echo "    probe $i (< toolkit, > ours):"
            sed 's/^/      /' "$w/probe.diff"
        fi
        rm -f "$w/probe-ours.syms" "$w/probe-toolkit.syms"
        i=$((i + 1))
    done
    if [ -z "$count" ]; then
        bad "overloads: PROBE_COUNT not found in overloads.cpp"
    elif [ -z "$differ" ]; then
        ok "overloads: $count C++ overloads reach the same C symbols ($mode streams)"
    else
        bad "overloads ($mode streams): probes$differ differ"
    fi
done

# ---- occupancy.cpp: the block-size search gives the toolkit's answers --------
for side in ours toolkit; do
    if [ $side = ours ]; then
        flags="-Wall -Werror -I$ours_inc"
    else
        flags="-w -I$CUDA_INCLUDE"
    fi
    if ! $CXX -std=c++17 $flags "$abi/occupancy.cpp" -o "$w/occ-$side" \
        >"$w/occ.log" 2>&1 || ! "$w/occ-$side" >"$w/occ-$side.txt"; then
        echo "    $side:"
        sed 's/^/    /' "$w/occ.log" | head -10
        : >"$w/occ-$side.txt"
    fi
done
if [ ! -s "$w/occ-ours.txt" ] || [ ! -s "$w/occ-toolkit.txt" ]; then
    bad "occupancy: occupancy.cpp does not build or run"
else
    same "occupancy: block-size search, $(wc -l <"$w/occ-ours.txt") cases" \
        "$w/occ-ours.txt" "$w/occ-toolkit.txt"
fi

echo "abi: $pass passed, $fail failed"
[ $fail -eq 0 ]
