#!/bin/sh
# run.sh - NVIDIA's nccl-tests (built by build.sh) run unpatched through
# `p2psim run` on a simulated machine: each run must reach its result
# table with #wrong 0 in every row, and NCCL_DEBUG=INFO must show the
# transport the machine allows (P2P on NVLink pairs).  docs/nccl.md is
# the user's page.
#
#   run.sh [--machine M] [--gpus N] [TEST...]   (default: hgx-h100, 2,
#                                                all_reduce sendrecv)
#
# Environment: P2PSIM_NCCL_TIMEOUT (seconds per run, default 600), as
# build.sh's.  Set by make: top_srcdir, top_builddir, P2PSIM.  Exit
# status 0 when every run passed, 1 otherwise, 77 when skipped (no nvcc
# or tarball: build.sh's verdict).
LC_ALL=C
export LC_ALL
here=$(cd "$(dirname "$0")" && pwd) || exit 99
build=$(cd "${top_builddir:-.}" && pwd) || exit 99
p2psim=${P2PSIM:-$build/tools/p2psim}
tmo=${P2PSIM_NCCL_TIMEOUT:-600}
machine=hgx-h100 gpus=2 tests=
while [ $# -gt 0 ]; do
    case $1 in
    --machine) machine=$2; shift ;;
    --gpus) gpus=$2; shift ;;
    -*) echo "usage: run.sh [--machine M] [--gpus N] [TEST...]" >&2; exit 99 ;;
    *) tests="$tests $1" ;;
    esac
    shift
done
tests=${tests:-"all_reduce sendrecv"}

sh "$here/build.sh"
rc=$?
[ $rc = 0 ] || exit $rc
[ -x "$p2psim" ] || { echo "nccl: $p2psim not built" >&2; exit 99; }
bin=$build/tests/nccl/bin
out=$build/tests/nccl/out
mkdir -p "$out" || exit 99

fail=0
for t in $tests; do
    log=$out/$t-$machine-g$gpus.log
    start=$(date +%s)
    # this NCCL before any other the system has (a toolkit's, in
    # ld.so.cache): the tests have no RUNPATH
    LD_LIBRARY_PATH="$build/tests/nccl/nccl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    NCCL_DEBUG=INFO NCCL_NVLS_ENABLE=0 timeout "$tmo" "$p2psim" run \
        --topology "$machine" -- "$bin/${t}_perf" -b 8 -e 8 -g "$gpus" \
        > "$log" 2>&1
    st=$?
    took=$(($(date +%s) - start))
    # result rows: size count type redop root time algbw busbw #wrong
    # (out of place, then in place)
    rows=$(awk '/^ +[0-9]+ +[0-9]+ +[a-z0-9]+ /' "$log")
    wrong=$(printf '%s\n' "$rows" |
        awk 'NF >= 9 { for (i = 9; i <= NF; i += 4) if ($i != "0" && $i != "N/A") bad++ }
             END { print bad + 0 }')
    why=
    [ $st = 0 ] || why="exit status $st"
    [ -n "$rows" ] || why="${why:+$why, }no result rows"
    [ "$wrong" = 0 ] || why="${why:+$why, }#wrong not 0 in $wrong places"
    grep -q 'via P2P' "$log" || why="${why:+$why, }no P2P channel in NCCL_DEBUG=INFO"
    if [ -z "$why" ]; then
        echo "PASS: $t -g $gpus on $machine (${took} s of wall time)"
    else
        echo "FAIL: $t -g $gpus on $machine: $why ($log)"
        tail -n 15 "$log"
        fail=1
    fi
done
exit $fail
