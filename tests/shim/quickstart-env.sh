#!/bin/sh
# quickstart-env.sh - the README's commands as a newcomer types them after
# `./quickstart.sh run`, with the two lines it prints (./quickstart.sh env)
# and nothing else: `p2psim` by its bare name from PATH, and
#   cc app.c -o app $(pkg-config --cflags --libs p2psim-cudart)
# finding the build tree's p2psim-cudart-uninstalled.pc; the program runs
# under `p2psim run` and is served by the build tree's runtime.
. "${top_srcdir:-.}/tests/shim/lib.sh"
command -v pkg-config >/dev/null 2>&1 || { echo "pkg-config not found: skipped"; exit 77; }
[ -f "$shim_dir/libcudart.so.13" ] ||
    { echo "no shared shim (configured with --disable-shared?): skipped"; exit 77; }
scratch

check "quickstart.sh env prints the lines" 0 "^export PKG_CONFIG_PATH=" \
    sh "$top/quickstart.sh" env "$build"
lines=$out
check "quickstart.sh env without a build says so" 1 "no build in" \
    sh "$top/quickstart.sh" env "$work/none"

# A newcomer's shell: no PKG_CONFIG_PATH of ours, then the two lines.
unset PKG_CONFIG_PATH
eval "$lines"
abs=$(cd "$build" && pwd)
shim_abs=$(cd "$shim_dir" && pwd -P)
if [ "$(command -v p2psim)" = "$abs/tools/p2psim" ]; then
    ok "p2psim on PATH is build/tools/p2psim"
else
    bad "p2psim on PATH is build/tools/p2psim" "found '$(command -v p2psim)'"
fi
check "p2psim by its bare name" 0 "^P2P (cudaDeviceCanAccessPeer):" p2psim topo

cp "$top/tests/shim/hello.c" "$work/app.c"
cd "$work" || exit 99
# The README's command as written; a sanitizer build's runtime needs its
# compiler and flags (ASan loaded first), given after it.
cc=cc
[ -z "${SAN_FLAGS:-}" ] || cc=${CC:-cc}
# shellcheck disable=SC2046,SC2086
check "cc app.c -o app \$(pkg-config --cflags --libs p2psim-cudart)" 0 "" \
    $cc app.c -o app $(pkg-config --cflags --libs p2psim-cudart) ${SAN_FLAGS:-}
[ -x app ] || { finish quickstart-env; exit 1; }
check "p2psim run --topology h200-x1 -- ./app" 0 "^round trip: ok" \
    p2psim run --topology h200-x1 -- ./app
check "served by the build tree's runtime" 0 \
    "^runtime: $shim_abs/libcudart.so" printf '%s\n' "$out"
finish quickstart-env
