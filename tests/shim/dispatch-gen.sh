#!/bin/sh
# dispatch-gen.sh - the generated dispatch layer (tools/gen-dispatch.sh,
# run by the build): every function our headers declare is dispatched, and
# every function NVIDIA's libcudart.so.13 exports (cuda/cudart/
# cudart13.exports) is in the built shim, served or as a stub; a stub,
# called, says one p2psim line naming itself and returns
# cudaErrorNotSupported, which also becomes the last error.
. "${top_srcdir:-.}/tests/shim/lib.sh"
scratch
check "tools/gen-dispatch.sh runs" 0 "" \
    sh "$top/tools/gen-dispatch.sh" "$top" "$work/gen"
gen=$work/gen/cuda/cudart
n_api=$(grep -c '^#define cuda\|^#define __cuda' "$gen/sim_names.h")
n_def=$(grep -c '^[a-z].*CUDARTAPI \(cuda\|__cuda\)[A-Za-z0-9_]*(' "$gen/dispatch.c")
if [ "$n_api" -gt 100 ] && [ "$n_api" = "$n_def" ]; then
    ok "dispatch.c defines the $n_api functions of sim_names.h"
else
    bad "dispatch.c defines every renamed function" \
        "$n_def definitions, $n_api names"
fi
# Served and stubbed together are the exports list, and none is both.
grep -v '^#' "$top/cuda/cudart/cudart13.exports" | awk 'NF { print $1 }' |
    LC_ALL=C sort > "$work/exports"
sed -n 's/^#define \([A-Za-z0-9_]*\) p2psim_sim_.*/\1/p' "$gen/sim_names.h" |
    LC_ALL=C sort > "$work/served"
sed -n 's/^\(int\|void\) \([A-Za-z0-9_]*\)(void)$/\2/p' "$gen/unserved.c" |
    LC_ALL=C sort -u > "$work/stubs"
both=$(LC_ALL=C comm -12 "$work/served" "$work/stubs" | head -5)
[ -z "$both" ] && ok "no function is both served and a stub" ||
    bad "no function is both served and a stub" "$both"
lost=$(LC_ALL=C sort -u "$work/served" "$work/stubs" |
    LC_ALL=C comm -23 "$work/exports" - | head -5)
[ -z "$lost" ] && ok "every export of libcudart.so.13 is served or a stub" ||
    bad "every export of libcudart.so.13 is served or a stub" "$lost"
echo "served: $(grep -c . "$work/served"), stubs: $(grep -c . "$work/stubs") of $(grep -c . "$work/exports") exports"

lib=$shim_dir/libcudart.so.13
if [ ! -f "$lib" ]; then
    echo "no $lib (configured with --disable-shared?): the rest skipped"
    finish dispatch-gen
    exit
fi
nm -D --defined-only "$lib" | awk '{ sub(/@.*/, "", $3); print $3 }' |
    LC_ALL=C sort -u > "$work/built"
missing=$(LC_ALL=C comm -23 "$work/exports" "$work/built" | head -5)
[ -z "$missing" ] && ok "the built shim exports every name of libcudart.so.13" ||
    bad "the built shim exports every name of libcudart.so.13" "$missing"

# Call a stub (the first of today's list, whichever that is) and an
# absent name's neighbour: served functions still work after it.
stub=$(grep -v '^__' "$work/stubs" | head -1)
if [ -z "$stub" ]; then
    ok "no stub left to call"
    finish dispatch-gen
    exit
fi
cat > "$work/call.c" <<'CEOF'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    void *h = dlopen(argv[1], RTLD_NOW);
    int (*stub)(void) = h ? (int (*)(void))dlsym(h, argv[2]) : NULL;
    int (*last)(void) = h ? (int (*)(void))dlsym(h, "cudaGetLastError") : NULL;
    int (*count)(int *) = h ? (int (*)(int *))dlsym(h, "cudaGetDeviceCount") : NULL;
    if (!stub || !last || !count) {
        fprintf(stderr, "lookup failed: %s\n", dlerror());
        return 3;
    }
    int n = -1;
    int a = stub(), b = stub(), l = last(), c = count(&n);
    printf("first %d second %d last %d count %d devices %d\n", a, b, l, c, n);
    return a == 801 && b == 801 && l == 801 && c == 0 && n > 0 ? 0 : 1;
}
CEOF
# shellcheck disable=SC2086
if ${CC:-cc} $SAN_FLAGS -o "$work/call" "$work/call.c" -ldl 2>"$work/cc.err"; then
    check "$stub returns cudaErrorNotSupported (801), also as the last error" \
        0 "first 801 second 801 last 801 count 0" \
        env P2PSIM_TOPOLOGY=hgx-h200-x2 "$work/call" "$lib" "$stub"
    n_lines=$(printf '%s\n' "$out" | grep -c "p2psim: $stub is not served")
    [ "$n_lines" = 1 ] && ok "one p2psim line names $stub (twice called)" ||
        bad "one p2psim line names $stub" "$n_lines lines"
else
    bad "the caller builds" "$(head -3 "$work/cc.err")"
fi
finish dispatch-gen
