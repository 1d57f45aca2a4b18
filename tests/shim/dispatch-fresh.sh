#!/bin/sh
# dispatch-fresh.sh - the generated files of the dispatch layer are what
# tools/gen-dispatch.sh makes of today's headers (cuda/include/
# cuda_runtime_api.h and p2psim_cudart_internal.h): cuda/cudart/sim_names.h,
# cuda/cudart/dispatch.c and tests/shim/fake_cudart.c are regenerated into a
# scratch folder and compared. On a failure, regenerate them in the source
# tree (sh tools/gen-dispatch.sh . .) and commit the result.
. "${top_srcdir:-.}/tests/shim/lib.sh"
scratch
check "tools/gen-dispatch.sh runs" 0 "" \
    sh "$top/tools/gen-dispatch.sh" "$top" "$work/gen"
for f in cuda/cudart/sim_names.h cuda/cudart/dispatch.c \
    tests/shim/fake_cudart.c; do
    check "$f is current (else: sh tools/gen-dispatch.sh . .)" 0 "" \
        diff -u "$top/$f" "$work/gen/$f"
done
# Every function of the headers is dispatched, and only those.
n_api=$(grep -c '^#define cuda\|^#define __cuda' "$top/cuda/cudart/sim_names.h")
n_def=$(grep -c '^[a-z].*CUDARTAPI \(cuda\|__cuda\)[A-Za-z0-9_]*(' \
    "$top/cuda/cudart/dispatch.c")
if [ "$n_api" -gt 100 ] && [ "$n_api" = "$n_def" ]; then
    ok "dispatch.c defines the $n_api functions of sim_names.h"
else
    bad "dispatch.c defines every renamed function" \
        "$n_def definitions, $n_api names"
fi
finish dispatch-fresh
