#!/bin/sh
# hello.sh - a C program built against the shim with the build tree's
# p2psim-cudart-uninstalled.pc, run through `p2psim run`: it sees the
# simulated machine's GPUs, copies 1 MiB to a GPU and back intact, and is
# served by the build tree's libcudart.so.13; the summary goes to stderr,
# --stats writes JSON, --quiet silences both.
. "${top_srcdir:-.}/tests/shim/lib.sh"
pkg=${PKG_CONFIG:-pkg-config}
command -v "$pkg" >/dev/null 2>&1 || { echo "pkg-config not found: skipped"; exit 77; }
[ -f "$shim_dir/libcudart.so.13" ] ||
    { echo "no shared shim (configured with --disable-shared?): skipped"; exit 77; }
scratch

PKG_CONFIG_PATH=$build/cuda/cudart
export PKG_CONFIG_PATH
check "pkg-config finds p2psim-cudart (uninstalled)" 0 "" \
    "$pkg" --exists --print-errors p2psim-cudart
check "uninstalled Cflags name the source tree's headers" 0 "/cuda/include" \
    "$pkg" --cflags p2psim-cudart
flags=$("$pkg" --cflags --libs p2psim-cudart)
# shellcheck disable=SC2086
check "hello.c builds with pkg-config's flags" 0 "" \
    ${CC:-cc} -std=c11 -Wall -Werror $SAN_FLAGS -o "$work/hello" \
    "$top/tests/shim/hello.c" $flags
[ -x "$work/hello" ] || { finish hello; exit 1; }
check "NEEDED libcudart.so.13" 0 "libcudart.so.13" \
    sh -c "readelf -d '$work/hello' | grep NEEDED"

check "h200-x1: one device" 0 "^devices: 1$" \
    "$p2psim" run --topology h200-x1 -- "$work/hello"
check "h200-x1: an H200" 0 "^device 0: .*H200" printf '%s\n' "$out"
check "h200-x1: round trip" 0 "^round trip: ok" printf '%s\n' "$out"
check "served by the build tree's shim" 0 \
    "^runtime: $(cd "$shim_dir" && pwd -P)/libcudart.so" printf '%s\n' "$out"
check "exit line" 0 "p2psim run: .*hello exited with status 0" \
    printf '%s\n' "$out"
check "dgx1-v100: eight devices" 0 "^devices: 8$" \
    "$p2psim" run --topology "$top/topologies/dgx1-v100.yaml" -- "$work/hello"

# The summary (P2PSIM_REPORT) on stderr, the JSON (P2PSIM_STATS) in a file.
"$p2psim" run --topology h200-x1 --stats "$work/stats.json" -- \
    "$work/hello" >"$work/stdout" 2>"$work/stderr"
rc=$?
if [ $rc -eq 0 ] && grep -v '^p2psim run: ' "$work/stderr" | grep -q .; then
    ok "summary on stderr"
else
    bad "summary on stderr" "exit $rc, stderr: $(head -5 "$work/stderr")"
fi
if [ -s "$work/stats.json" ] && head -c 1 "$work/stats.json" | grep -q '{'; then
    ok "--stats writes JSON"
else
    bad "--stats writes JSON" "$work/stats.json missing, empty or not an object"
fi
"$p2psim" run --quiet --topology h200-x1 -- "$work/hello" \
    >"$work/stdout" 2>"$work/stderr"
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$work/stderr" ]; then
    ok "--quiet: nothing on stderr"
else
    bad "--quiet: nothing on stderr" "exit $rc, stderr: $(head -5 "$work/stderr")"
fi
finish hello
