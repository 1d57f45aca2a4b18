#!/bin/sh
# build.sh - NVIDIA's NCCL and nccl-tests, unpacked from the clients folder
# into the build tree and built unpatched by their own makefiles: NCCL's
# kernels as PTX only (so the interpreter runs them), a limited set of them
# (ONLY_FUNCS below), both linked against the shared runtime.  Each part
# is cached: not rebuilt while its stamp holds the same settings and the
# same checksum of its tarball.  docs/nccl.md is the user's page.
#
#   build.sh          (make check-nccl runs it before run.sh)
#
# Environment: P2PSIM_CLIENTS (the folder with the tarballs; default
# ../shared/clients beside the source tree), NVCC, P2PSIM_NCCL_JOBS
# (parallel compiles, default 2), P2PSIM_NCCL_FUNCS (NCCL's ONLY_FUNCS,
# default below; empty builds every kernel), P2PSIM_NCCL_GENCODE (default
# compute_90 PTX), P2PSIM_NCCL_TESTS (the nccl-tests to build, default
# below, without _perf), P2PSIM_NCCL_REBUILD=1 (build again).  Set by make:
# top_srcdir, top_builddir.
#
# Leaves $top_builddir/tests/nccl/nccl (NCCL_HOME: include/, lib/) and
# .../tests/nccl/bin/*_perf.  Exit status 0 when built (or cached), 1 when
# a build failed (its log named), 77 when skipped (no nvcc or tarball).
LC_ALL=C
export LC_ALL
here=$(cd "$(dirname "$0")" && pwd) || exit 99
top=$(cd "${top_srcdir:-$here/../..}" && pwd) || exit 99
build=$(cd "${top_builddir:-.}" && pwd) || exit 99
jobs=${P2PSIM_NCCL_JOBS:-2}
case $jobs in ''|*[!0-9]*|0*)
    echo "nccl build: P2PSIM_NCCL_JOBS takes a positive number" >&2; exit 99 ;;
esac
# The collectives nccl-tests' default runs use (float sums; int8 for the
# data-type sweeps), every protocol of the ring and the tree, and
# send/receive; NVLS and CollNet kernels are left out.
funcs=${P2PSIM_NCCL_FUNCS-'SendRecv|(AllGather|Broadcast) RING *|(AllReduce|ReduceScatter|Reduce) Sum (f32|i8|u8) (RING|TREE) *'}
gencode=${P2PSIM_NCCL_GENCODE:-"-gencode=arch=compute_90,code=compute_90"}
tests=${P2PSIM_NCCL_TESTS:-"all_reduce all_gather broadcast reduce_scatter reduce alltoall sendrecv"}

skip() { echo "nccl build: skipped: $*"; exit 77; }

nvcc=${NVCC:-}
[ -n "$nvcc" ] || nvcc=$(command -v nvcc 2>/dev/null) || nvcc=/usr/local/cuda/bin/nvcc
[ -x "$nvcc" ] || skip "nvcc not found (PATH, /usr/local/cuda/bin, or NVCC=...)"
cuda=$(cd "$(dirname "$nvcc")/.." && pwd) || exit 99
command -v python3 >/dev/null 2>&1 || skip "python3 not found (NCCL's generators)"
clients=${P2PSIM_CLIENTS:-$top/../shared/clients}
nccl_tar=$clients/nccl-2.30.7.tar.gz
tests_tar=$clients/nccl-tests-2.19.6.tar.gz
for t in "$nccl_tar" "$tests_tar"; do
    [ -f "$t" ] || skip "$t not found (P2PSIM_CLIENTS=...)"
done

work=$build/tests/nccl
mkdir -p "$work" || exit 99
# What each part was built with: a stamp holds it, and a part is built
# again when the settings differ, its tarball's contents included (their
# checksum: a tarball copied again, newer but the same, keeps the build).
sum() { cksum < "$1" | cut -d' ' -f1,2; }
nccl_set="funcs=$funcs gencode=$gencode nvcc=$nvcc tar=$(sum "$nccl_tar")"
tests_set="gencode=$gencode nvcc=$nvcc tests=$tests tar=$(sum "$tests_tar")"
fresh() {   # fresh STAMP SETTINGS
    [ -f "$1" ] && [ "${P2PSIM_NCCL_REBUILD:-0}" != 1 ] &&
        [ "$(sed -n 1p "$1")" = "$2" ]
}

# The toolkit's include and library folders without the NCCL some
# toolkits carry (nccl.h, libnccl.so): NCCL's makefiles put CUDA_INC
# before its own include folder for some host files, and nccl-tests
# CUDA_LIB before NCCL_HOME's lib, so that one would be used instead.
for d in include lib64; do
    rm -rf "$work/cuda/$d"
    mkdir -p "$work/cuda/$d" || exit 99
    for e in "$cuda/$d"/*; do
        case ${e##*/} in nccl*|libnccl*) continue ;; esac
        ln -s "$e" "$work/cuda/$d/" || exit 99
    done
done
dirs="CUDA_INC=$work/cuda/include CUDA_LIB=$work/cuda/lib64"

# CUDARTLIB=cudart links the shared runtime (ours at run time, through
# p2psim run), and libcudadevrt.a: with PTX only, nvcc's device link of
# NCCL's -rdc objects registers the device runtime's PTX for the JIT
# link, whose wrapper is there (with machine code nothing needs it); nccl-tests links with nvcc, whose default is the static
# runtime: NVCC_APPEND_FLAGS gives every nvcc command -cudart shared.
NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:+$NVCC_APPEND_FLAGS }-cudart=shared"
export NVCC_APPEND_FLAGS

if fresh "$work/nccl.stamp" "$nccl_set"; then
    echo "nccl build: NCCL cached ($work/nccl; $(sed -n 2p "$work/nccl.stamp"))"
else
    rm -f "$work/nccl.stamp" "$work/tests.stamp"
    rm -rf "$work/src/nccl" "$work/nccl"
    mkdir -p "$work/src" && tar -xzf "$nccl_tar" -C "$work/src" || exit 1
    echo "nccl build: NCCL with $nvcc, ONLY_FUNCS='$funcs' ($work/nccl.log)"
    start=$(date +%s)
    make -C "$work/src/nccl" -j"$jobs" src.build BUILDDIR="$work/nccl" \
        CUDA_HOME="$cuda" $dirs NVCC="$nvcc" CUDARTLIB="cudart -lcudadevrt" \
        NVCC_GENCODE="$gencode" ONLY_FUNCS="$funcs" > "$work/nccl.log" 2>&1 ||
        { echo "nccl build: NCCL failed ($work/nccl.log):" >&2
          tail -n 20 "$work/nccl.log" >&2; exit 1; }
    took="built in $(($(date +%s) - start)) s"
    echo "nccl build: NCCL $took"
    printf '%s\n%s\n' "$nccl_set" "$took" > "$work/nccl.stamp"
fi

if fresh "$work/tests.stamp" "$tests_set" &&
   [ "$work/tests.stamp" -nt "$work/nccl.stamp" ]; then
    echo "nccl build: nccl-tests cached ($work/bin; $(sed -n 2p "$work/tests.stamp"))"
    exit 0
fi
rm -f "$work/tests.stamp"
rm -rf "$work/src/nccl-tests" "$work/bin"
tar -xzf "$tests_tar" -C "$work/src" || exit 1
targets=
for t in $tests; do
    targets="$targets $work/bin/${t}_perf"
done
echo "nccl build: nccl-tests ($tests) ($work/tests.log)"
start=$(date +%s)
# shellcheck disable=SC2086
make -C "$work/src/nccl-tests/src" -j"$jobs" BUILDDIR="$work/bin" \
    NCCL_HOME="$work/nccl" CUDA_HOME="$cuda" $dirs NVCC="$nvcc" \
    CUDARTLIB=cudart NVCC_GENCODE="$gencode" $targets \
    > "$work/tests.log" 2>&1 ||
    { echo "nccl build: nccl-tests failed ($work/tests.log):" >&2
      tail -n 20 "$work/tests.log" >&2; exit 1; }
took="built in $(($(date +%s) - start)) s"
echo "nccl build: nccl-tests $took"
printf '%s\n%s\n' "$tests_set" "$took" > "$work/tests.stamp"
