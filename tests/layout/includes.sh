#!/bin/sh
# includes.sh - tools/check-includes.sh rejects what it must: a small tree
# is made in a scratch folder with the project's own .may_include files
# (copied, so their rules are the ones under test) and a few sources, and
# the check is run on it: a clean tree passes; an include of models/ by
# cuda/ is refused, written directly or reached through machine/'s public
# header (the chain is named); so is a file with no .may_include above it.
# Prints one line per check and "includes: N passed, M failed".
#
# Environment (make check sets it; tests/local.mk): top_srcdir.
. "${top_srcdir:-.}/tests/shim/lib.sh"
scratch
chk=$top/tools/check-includes.sh
t=$work/tree

# The rules of the real tree, copied.
(cd "$top" && find common traces ptx sim models machine cuda tools -name .may_include) |
while IFS= read -r m; do
    mkdir -p "$t/$(dirname "$m")" && cp "$top/$m" "$t/$m"
done
# put FILE LINE...: writes FILE under the tree, one argument a line.
put() {
    f=$t/$1
    shift
    mkdir -p "$(dirname "$f")"
    printf '%s\n' "$@" > "$f"
}
put sim/time.h '#include <stdint.h>' 'typedef uint64_t sim_time;'
put models/gpu/gpu.h '#include "sim/time.h"' 'struct gpu;'
put models/gpu/gpu.c '#include "models/gpu/gpu.h"'
put machine/p2psim.h '#include "sim/time.h"' '#include "machine/cycle.h"'
put machine/cycle.h '#include "machine/p2psim.h"'
put machine/p2psim.c '#include "config.h"' '#include "machine/p2psim.h"' \
    '#include "models/gpu/gpu.h"'
put cuda/include/driver_types.h '#include "host_defines.h"'
put cuda/include/host_defines.h '#define __host__'
put cuda/cudart/rt.h '#include "machine/p2psim.h"' \
    '#include "cuda/include/driver_types.h"'
put cuda/cudart/rt.c '#include "cuda/cudart/rt.h"'
put tools/p2psim.c '#include "cuda/cudart/rt.h"' '#include "machine/p2psim.h"'

check "a clean tree passes (includes in a circle, a header beside its includer)" \
    0 "layer dependencies are one-way" sh "$chk" "$t"

# A public header of machine/ that carries a model's type upward.
cp "$t/machine/p2psim.h" "$work/p2psim.h"
put machine/p2psim.h '#include "sim/time.h"' '#include "machine/cycle.h"' \
    '#include "models/gpu/gpu.h"'
check "a transitive upward include is refused" 1 \
    'cuda/cudart/rt.c:1: may not reach "models/gpu/gpu.h": cuda/cudart/rt.c -> cuda/cudart/rt.h -> machine/p2psim.h -> models/gpu/gpu.h' \
    sh "$chk" "$t"
check "the header that includes it is named too" 0 \
    'cuda/cudart/rt.h:1: may not reach "models/gpu/gpu.h": cuda/cudart/rt.h -> machine/p2psim.h' \
    printf '%s\n' "$out"
check "so is the command line that includes the runtime" 0 \
    'tools/p2psim.c:2: may not reach "models/gpu/gpu.h": tools/p2psim.c -> machine/p2psim.h -> models/gpu/gpu.h (allowed by tools/.may_include' \
    printf '%s\n' "$out"
if printf '%s\n' "$out" | grep '^machine/'; then
    bad "machine/ itself may include models/" "refused above"
else
    ok "machine/ itself may include models/"
fi
cp "$work/p2psim.h" "$t/machine/p2psim.h"

put cuda/cudart/device.c '#include "cuda/cudart/rt.h"' '' \
    '  #  include "models/gpu/gpu.h"'
check "a direct upward include is refused" 1 \
    'cuda/cudart/device.c:3: may not include "models/gpu/gpu.h"' \
    sh "$chk" "$t"
rm "$t/cuda/cudart/device.c"

put cuda/include/cuda_runtime.h '#include "models/gpu/gpu.h"'
check "a CUDA header may include only CUDA headers" 1 \
    'cuda/include/cuda_runtime.h:1: may not include "models/gpu/gpu.h"' \
    sh "$chk" "$t"
rm "$t/cuda/include/cuda_runtime.h"

put traces/format.h '#include "sim/time.h"'
check "a leaf may not include the event core" 1 \
    'traces/format.h:1: may not include "sim/time.h"' sh "$chk" "$t"
rm "$t/traces/format.h"

mkdir -p "$t/fuzz"
put fuzz/x.c '#include "sim/time.h"'
check "a file with no .may_include above it is refused" 1 \
    'fuzz/x.c: no .may_include above this file' sh "$chk" "$t"
rm -r "$t/fuzz"

check "the clean tree passes again" 0 "layer dependencies are one-way" \
    sh "$chk" "$t"
finish includes
