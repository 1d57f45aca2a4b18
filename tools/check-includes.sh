#!/bin/sh
# check-includes.sh - enforce the one-way layer dependencies (STYLE.md §2).
#
# Each folder has a .may_include file listing the project include prefixes
# its sources may use ("sim/", "models/", ...), one per line. Every
# #include "..." in a .c/.h/.cpp file must start with one of the prefixes of
# the nearest .may_include at or above the file's folder, or be "config.h".
# Prints each violation as file:line: message and exits 1 if there is any.
top=${1:-${top_srcdir:-.}}
cd "$top" || exit 2
status=0
for f in $(find common traces ptx sim models machine cuda tools bench tests fuzz -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) 2>/dev/null | sort); do
    dir=$(dirname "$f")
    rules=
    d=$dir
    while [ "$d" != "." ] && [ -n "$d" ]; do
        if [ -f "$d/.may_include" ]; then
            rules="$d/.may_include"
            break
        fi
        d=$(dirname "$d")
    done
    if [ -z "$rules" ]; then
        echo "$f: no .may_include above this file"
        status=1
        continue
    fi
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
        n=${line%%:*}
        inc=$(printf '%s\n' "$line" | sed 's/.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/')
        [ "$inc" = "config.h" ] && continue
        ok=no
        while IFS= read -r prefix; do
            case "$prefix" in ''|'#'*) continue ;; esac
            case "$inc" in "$prefix"*) ok=yes; break ;; esac
        done < "$rules"
        if [ "$ok" = no ]; then
            echo "$f:$n: may not include \"$inc\" (allowed by $rules: $(grep -v '^#' "$rules" | tr '\n' ' '))"
            echo x >> "${TMPDIR:-/tmp}/check-includes.$$"
        fi
    done
done
if [ -f "${TMPDIR:-/tmp}/check-includes.$$" ]; then
    rm -f "${TMPDIR:-/tmp}/check-includes.$$"
    status=1
fi
[ $status -eq 0 ] && echo "check-includes: layer dependencies are one-way"
exit $status
