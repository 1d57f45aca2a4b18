#!/bin/sh
# sweep_mpi.sh - `mpirun -np 2 p2psim sweep ...` splits the points between
# the ranks and rank 0 writes the same CSV as a serial run. Skipped (exit
# 77) when p2psim was built without MPI (no tools/.libs/p2psim-mpi.so) or
# mpirun is missing.
top=${top_srcdir:-.}
p2psim=${P2PSIM:-./tools/p2psim}
builddir=${top_builddir:-.}
plugin=$builddir/tools/.libs/p2psim-mpi.so
if [ ! -f "$plugin" ]; then
    echo "p2psim was built without MPI (no $plugin): skipped"
    exit 77
fi
mpirun=$(command -v mpirun) || { echo "no mpirun: skipped"; exit 77; }
if [ ! -f "$builddir/cuda/cudart/.libs/libcudart.so.13" ]; then
    echo "no shared CUDA shim: skipped"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/sweep_mpi.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
# Open MPI refuses root unless told; oversubscribe: 2 ranks on any machine.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# libmpi keeps memory until exit, which LeakSanitizer would report.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
M=$top/topologies/desktop-2x-geforce.yaml
set -- sweep "$M" --set size=16KiB,64KiB,256KiB \
    --set defaults.pcie-link.latency=20ns,200ns \
    --measure 'staged-bandwidth 0 1' --measure 'h2d-latency 1'
"$p2psim" "$@" --csv "$work/serial.csv" || { echo "FAIL: serial sweep"; exit 1; }
"$mpirun" --oversubscribe -np 2 "$p2psim" "$@" --csv "$work/mpi.csv" ||
    { echo "FAIL: mpirun -np 2 p2psim sweep"; exit 1; }
if ! cmp -s "$work/serial.csv" "$work/mpi.csv"; then
    echo "FAIL: the MPI CSV differs from the serial one"
    diff "$work/serial.csv" "$work/mpi.csv"
    exit 1
fi
rows=$(wc -l < "$work/mpi.csv")
[ "$rows" = 7 ] || { echo "FAIL: $rows lines, expected 7"; exit 1; }
echo "ok: mpirun -np 2 p2psim sweep writes the serial CSV (6 points)"
