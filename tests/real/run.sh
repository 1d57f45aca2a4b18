#!/bin/sh
# run.sh - NVIDIA's cuda-samples as tests: unpacked from the clients folder
# into the build tree, built unpatched by their own CMakeLists.txt (PTX only,
# the shared runtime: CMakeLists.txt and ptx-only.cmake here), and run
# through `p2psim run` on the machines of the manifest; one line per sample
# and machine, then a summary.  docs/real-programs.md is the user's page.
#
#   run.sh [--fast] [--only "NAME..."] [--machines "M..."] [--list] [--table]
#
# --fast runs the samples of the manifest's fast set only (make check);
# --only the named samples (the last part of their path); --machines the
# named machines of the manifest; --list prints the selected samples;
# --table prints docs/real-programs.md's tables from the manifest and the
# latest verdict of each sample and machine.  Environment: P2PSIM_CLIENTS
# (the folder with cuda-samples-c94ff36.tar.gz; default ../shared/clients
# beside the source tree), NVCC, P2PSIM_REAL_JOBS (parallel builds and runs, default
# 2), P2PSIM_REAL_TIMEOUT (seconds per run before it is called a hang,
# default 600; the hang guard only, as is P2PSIM_REAL_XFAIL_TIMEOUT, default
# 120, for a run expected to fail), P2PSIM_REAL_REBUILD=1 (retry samples
# whose build failed before), P2PSIM_REAL_RDC=0 (build without -rdc=true,
# which most samples' CMakeLists.txt ask for).  Set by make: top_srcdir, top_builddir,
# P2PSIM, SAN_FLAGS.
#
# Verdicts: PASS (exit status 0 and the sample's success line where the
# manifest names one), WAIVED (the sample's own waiver, exit status 2, on a
# machine that lacks what it needs, as real hardware waives: a pass), FAIL,
# TIMEOUT, NOBUILD, XFAIL (fails as the manifest expects, with its reason),
# XPASS (expected to fail, passed: update the manifest).  Exit status 0 when
# nothing failed unexpectedly, 1 otherwise, 77 when skipped (no nvcc, cmake
# or tarball), 99 on a usage or setup error.
LC_ALL=C
export LC_ALL
here=$(cd "$(dirname "$0")" && pwd) || exit 99
top=$(cd "${top_srcdir:-$here/../..}" && pwd) || exit 99
build=$(cd "${top_builddir:-.}" && pwd) || exit 99
p2psim=${P2PSIM:-$build/tools/p2psim}
manifest=$here/manifest
jobs=${P2PSIM_REAL_JOBS:-2}
tmo=${P2PSIM_REAL_TIMEOUT:-600}
xtmo=${P2PSIM_REAL_XFAIL_TIMEOUT:-120}
for n in "$jobs" "$tmo" "$xtmo"; do
    case $n in ''|*[!0-9]*|0*)
        echo "run.sh: P2PSIM_REAL_JOBS and the timeouts take a positive number" >&2
        exit 99 ;;
    esac
done
tarname=cuda-samples-c94ff36.tar.gz

fast=0 only= machines= list=0
while [ $# -gt 0 ]; do
    case $1 in
    --fast) fast=1 ;;
    --only) only=$2; shift ;;
    --machines) machines=$2; shift ;;
    --list) list=1 ;;
    --table) list=2 ;;
    *) echo "usage: run.sh [--fast] [--only \"NAME...\"] [--machines \"M...\"] [--list] [--table]" >&2
       exit 99 ;;
    esac
    shift
done

skip() { echo "real programs: skipped: $*"; exit 77; }

# The plan: one line per sample to run, "path|prog|on|needs|env|want|
# expect|args", from the manifest's run lines ('|' keeps empty fields).
plan=$(awk -F'|' -v fast=$fast -v only=" $only " '
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    /^[ \t]*(#|$)/ { next }
    { kind = trim($1) }
    kind == "run" {
        path = trim($2); prog = trim($3); name = path; sub(/.*\//, "", name)
        if (prog == "" || prog == "-") prog = name
        on = trim($4); sets = trim($6)
        if (fast) {
            if (sets !~ /^fast(@|$)/) next
            if (sets ~ /^fast@/) { on = sets; sub(/^fast@/, "", on) }
        }
        if (only != "  " && index(only, " " name " ") == 0) next
        printf "%s|%s|%s|%s|%s|%s|%s|%s\n", path, prog, on, trim($5),
            trim($7), trim($8), trim($9), trim($10)
    }' "$manifest")
mlist=$(awk -F'|' -v want=" $machines " '
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    trim($1) == "machine" {
        m = trim($2)
        if (want == "  " || index(want, " " m " ")) print m "|" trim($3)
    }' "$manifest")
[ -n "$plan" ] || { echo "real programs: no sample selected" >&2; exit 99; }
[ -n "$mlist" ] || { echo "real programs: no machine selected" >&2; exit 99; }
if [ $list = 1 ]; then
    printf '%s\n' "$plan" | cut -d'|' -f1
    exit 0
fi
if [ $list = 2 ]; then
    # The samples run, a column per machine (the verdicts of the last run,
    # "-" where none), what a failing one waits for; then those left out.
    awk -F'|' -v res="$build/tests/real/verdicts.txt" '
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    BEGIN { while ((getline l < res) > 0) { split(l, f, "\t"); v[f[3] "|" f[2]] = f[1] } }
    /^[ \t]*(#|$)/ { next }
    trim($1) == "machine" { m[++nm] = trim($2) }
    trim($1) == "run" { r[++nr] = trim($2); why[nr] = trim($9) }
    trim($1) == "out" { o[++no] = trim($2); owhy[no] = trim($3) }
    END {
        line = "| sample |"; sep = "|---|"
        for (i = 1; i <= nm; i++) { line = line " " m[i] " |"; sep = sep "---|" }
        print line " waits for |"; print sep "---|"
        for (j = 1; j <= nr; j++) {
            line = "| " r[j] " |"
            for (i = 1; i <= nm; i++) {
                c = v[r[j] "|" m[i]]; line = line " " (c == "" ? "-" : c) " |"
            }
            w = why[j]; gsub(/xfail(@[^ ]*)? */, "", w)
            print line " " w " |"
        }
        print ""; print "| sample left out | why |"; print "|---|---|"
        for (j = 1; j <= no; j++) print "| " o[j] " | " owhy[j] " |"
    }' "$manifest"
    exit 0
fi

# What the build needs; any of it absent is a skip, said so.
nvcc=${NVCC:-}
[ -n "$nvcc" ] || nvcc=$(command -v nvcc 2>/dev/null) || nvcc=/usr/local/cuda/bin/nvcc
[ -x "$nvcc" ] || skip "nvcc not found (PATH, /usr/local/cuda/bin, or NVCC=...)"
command -v cmake >/dev/null 2>&1 || skip "cmake not found"
clients=${P2PSIM_CLIENTS:-$top/../shared/clients}
tarball=$clients/$tarname
[ -f "$tarball" ] || skip "$tarball not found (P2PSIM_CLIENTS=...)"
[ -z "${SAN_FLAGS:-}" ] ||
    skip "sanitizer build (the shim must be loaded first; nvcc programs do not)"
[ -f "$build/cuda/cudart/.libs/libcudart.so.13" ] ||
    skip "no shared shim (configured with --disable-shared?)"
[ -x "$p2psim" ] || { echo "real programs: $p2psim not built" >&2; exit 99; }
havetimeout=0
command -v timeout >/dev/null 2>&1 && havetimeout=1

work=$build/tests/real
src=$work/cuda-samples
bld=$work/build
logs=$work/logs
mkdir -p "$work" "$logs" "$work/nobuild" || exit 99

# Unpack once (the stamp names the tarball).
if [ "$(cat "$work/unpacked" 2>/dev/null)" != "$tarname" ]; then
    echo "real programs: unpacking $tarname"
    rm -rf "$src" "$bld" "$work/nobuild" "$work/unpacked" "$work/configured"
    mkdir -p "$work/nobuild"
    tar -xzf "$tarball" -C "$work" || exit 99
    [ -d "$src/Samples" ] || { echo "real programs: $tarname has no Samples/" >&2; exit 99; }
    echo "$tarname" > "$work/unpacked"
fi

# Configure once, again when this folder's CMake files change or
# P2PSIM_REAL_RDC does.
rdc=${P2PSIM_REAL_RDC:-1}
[ "$rdc" = 0 ] && rdc=OFF || rdc=ON
if [ ! -f "$work/configured" ] || [ "$here/CMakeLists.txt" -nt "$work/configured" ] ||
   [ "$here/ptx-only.cmake" -nt "$work/configured" ] ||
   [ "$(cat "$work/configured")" != "rdc $rdc" ]; then
    echo "real programs: configuring with $nvcc (-rdc as the samples say: $rdc)"
    rm -f "$work"/nobuild/*
    cmake -S "$here" -B "$bld" -DP2PSIM_REAL_SAMPLES="$src/Samples" \
        -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_RUNTIME_LIBRARY=Shared \
        -DCMAKE_PROJECT_INCLUDE="$here/ptx-only.cmake" \
        -DP2PSIM_REAL_RDC="$rdc" \
        -DCMAKE_BUILD_TYPE=Release > "$work/cmake.log" 2>&1 ||
        { echo "real programs: cmake failed ($work/cmake.log):" >&2
          tail -n 20 "$work/cmake.log" >&2; exit 1; }
    echo "rdc $rdc" > "$work/configured"
fi

# Build (make finds what is up to date) what has not failed before.
[ "${P2PSIM_REAL_REBUILD:-0}" = 1 ] && rm -f "$work"/nobuild/*
targets=$(printf '%s\n' "$plan" | while IFS='|' read -r path prog rest; do
    [ -f "$work/nobuild/$prog" ] || echo "$prog"
done | sort -u)
if [ -n "$targets" ]; then
    # A target CMake does not know (its CMakeLists.txt found no package it
    # wants, or the toolkit lacks its library: left-out.txt) is not built.
    known=$(make -C "$bld" help 2>/dev/null | sed -n 's/^\.\.\. //p')
    want=
    for t in $targets; do
        if printf '%s\n' "$known" | grep -qx -- "$t"; then want="$want $t"
        else
            why=$(grep -m1 "/$t " "$bld/left-out.txt" 2>/dev/null)
            echo "not configured: ${why:-no such target (see $work/cmake.log)}" > "$work/nobuild/$t"
        fi
    done
    targets=$want
fi
if [ -n "$targets" ]; then
    echo "real programs: building $(echo $targets | wc -w) sample(s) where not built (make -k -j$jobs)"
    # Six driver-API samples build their kernels' fat binary by hand with
    # code=sm_XX (SASS only, which p2psim cannot run): nvcc's own
    # NVCC_APPEND_FLAGS adds the PTX of compute_75 to every nvcc command.
    # shellcheck disable=SC2086
    NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:+$NVCC_APPEND_FLAGS }-gencode=arch=compute_75,code=compute_75" \
        make -C "$bld" -k -j"$jobs" $targets > "$work/build.log" 2>&1
    # A sample that did not build keeps its first error line as its stamp.
    builderr='error:|Error [0-9]|Error copying|undefined reference'
    for t in $targets; do
        path=$(printf '%s\n' "$plan" | awk -F'|' -v t="$t" '$2 == t { print $1; exit }')
        [ -x "$bld/$path/$t" ] && continue
        { grep -F "Samples/$path/" "$work/build.log" | grep -m1 -E "$builderr"
          grep -F "$path/" "$work/build.log" | grep -m1 -E "$builderr"
          echo "not built (see $work/build.log)"; } | head -n 1 > "$work/nobuild/$t"
    done
fi

# One run: prints "VERDICT<TAB>machine<TAB>path<TAB>seconds<TAB>detail".
run_one() {
    path=$1 prog=$2 needs=$3 env=$4 want=$5 expect=$6 args=$7 m=$8 mprops=$9
    log=$logs/$prog.$m.log
    # The expectation for this machine: "xfail[@m1,m2] reason; ..."
    xfail=$(printf '%s\n' "$expect" | awk -v m="$m" '{
        n = split($0, part, ";")
        for (i = 1; i <= n; i++) {
            e = part[i]; gsub(/^[ \t]+/, "", e)
            if (e !~ /^xfail/) continue
            sub(/^xfail/, "", e)
            if (e ~ /^@/) {
                on = e; sub(/[ \t].*/, "", on); sub(/^@/, "", on)
                sub(/^@[^ \t]*[ \t]*/, "", e)
                if (index("," on ",", "," m ",") == 0) continue
            }
            gsub(/^[ \t]+/, "", e); print e; exit
        }}')
    # Does the machine lack what the sample needs (then a waiver is a pass)?
    lacks=0
    for n in $(echo "$needs" | tr ',' ' '); do
        case ",$mprops," in *",$n,"*) ;; *) lacks=1 ;; esac
    done
    # The hang guard: a run expected to fail gets the shorter one.
    guard=$tmo
    [ -n "$xfail" ] && guard=$xtmo
    tmocmd=
    [ $havetimeout = 1 ] && tmocmd="timeout -k 10 $guard"
    t0=$(date +%s)
    if [ -f "$work/nobuild/$prog" ]; then
        rc=nobuild
        cp "$work/nobuild/$prog" "$log"
    else
        topo="--topology $m"
        [ "$m" = default ] && topo=
        # shellcheck disable=SC2086
        (cd "$bld/$path" && unset P2PSIM_TOPOLOGY && env $env $tmocmd \
            "$p2psim" run $topo -- ./"$prog" $args) > "$log" 2>&1 < /dev/null
        rc=$?
    fi
    secs=$(( $(date +%s) - t0 ))
    detail=
    case $rc in
    0)  v=PASS
        if [ -n "$want" ] && ! grep -q -- "$want" "$log"; then
            v=FAIL detail="exit status 0 but no line '$want'"
        fi ;;
    2)  if [ $lacks = 1 ]; then v=WAIVED detail="waived (machine lacks $needs)"
        else v=FAIL detail="waived (exit status 2) on a machine with $mprops"; fi ;;
    nobuild) v=NOBUILD detail=$(cat "$log") ;;
    124|137) [ -n "$tmocmd" ] && v=TIMEOUT detail="no end after $guard s" || v=FAIL ;;
    *)  v=FAIL ;;
    esac
    if [ $v = FAIL ] && [ -z "$detail" ]; then
        detail=$(grep -a -v -e '^p2psim:   ' -e '^p2psim run: ' "$log" |
            grep -a -m1 -i -E "undefined symbol|cannot open|unsupported|not run|not supported|error|fail|abort|assert|trap|segmentation" )
        [ -n "$detail" ] || detail=$(grep -a -v '^p2psim' "$log" | tail -n 1)
        detail="exit status $rc: $detail"
    fi
    if [ -n "$xfail" ]; then
        case $v in
        PASS|WAIVED) v=XPASS detail="expected to fail ($xfail): update the manifest" ;;
        *) detail="$xfail [$detail]" v=XFAIL ;;
        esac
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$v" "$m" "$path" "$secs" "$detail" |
        cut -c1-400
}

# Every (sample, machine), $jobs at a time: the job list dealt out to
# $jobs background shells.
results=$work/results.txt
: > "$results"
printf '%s\n' "$mlist" | while IFS='|' read -r m mprops; do
    printf '%s\n' "$plan" | while IFS='|' read -r path prog on needs env want expect args; do
        [ -z "$on" ] || case ",$on," in *",$m,"*) ;; *) continue ;; esac
        printf '%s|%s|%s|%s|%s|%s|%s|%s|%s\n' "$path" "$prog" "$needs" \
            "$env" "$want" "$expect" "$args" "$m" "$mprops"
    done
done > "$work/jobs.txt"
echo "real programs: $(printf '%s\n' "$plan" | wc -l) sample(s), $(wc -l < "$work/jobs.txt") run(s) on $(printf '%s\n' "$mlist" | wc -l) machine(s), $jobs at a time, hang guard $tmo s ($xtmo s if expected to fail)"
i=0
while [ $i -lt "$jobs" ]; do
    awk -v n="$jobs" -v i=$i 'NR % n == i' "$work/jobs.txt" > "$work/jobs.$i"
    (while IFS='|' read -r path prog needs env want expect args m mprops; do
        r=$(run_one "$path" "$prog" "$needs" "$env" "$want" "$expect" "$args" "$m" "$mprops")
        printf '%s\n' "$r" >> "$results"
        printf '%s\n' "$r" | awk -F'\t' '{ printf "%-8s %-20s %-52s %4ss %s\n", $1, $2, $3, $4, $5 }'
    done < "$work/jobs.$i") &
    i=$((i + 1))
done
wait

# The latest verdict of every sample and machine, for --table.
touch "$work/verdicts.txt"
awk -F'\t' 'NR == FNR { seen[$2 "\t" $3] = 1; print; next }
    !(($2 "\t" $3) in seen)' "$results" "$work/verdicts.txt" > "$work/verdicts.new" &&
    mv "$work/verdicts.new" "$work/verdicts.txt"

echo "real programs: summary per machine"
awk -F'\t' '{ n[$2 "\t" $1]++; m[$2] = 1 }
    END {
        nv = split("PASS WAIVED XFAIL FAIL TIMEOUT NOBUILD XPASS", v, " ")
        for (mm in m) {
            line = sprintf("  %-20s", mm)
            for (i = 1; i <= nv; i++)
                if (n[mm "\t" v[i]]) line = line sprintf(" %s %d", v[i], n[mm "\t" v[i]])
            print line
        }
    }' "$results" | sort
unexpected() {
    awk -F'\t' '$1 == "FAIL" || $1 == "TIMEOUT" || $1 == "NOBUILD" || $1 == "XPASS"' "$results"
}
bad=$(unexpected | wc -l)
if [ "$bad" -gt 0 ]; then
    echo "real programs: unexpected:"
    unexpected | awk -F'\t' '{ printf "  %-8s %-20s %s: %s\n", $1, $2, $3, $5 }'
fi
echo "real programs: $(wc -l < "$results") run(s), $bad unexpected (logs: $logs)"
[ "$bad" -eq 0 ]
