#!/bin/sh
# check-includes.sh - enforce the one-way layer dependencies (STYLE.md §2,
# docs/architecture.md "The checks").
#
# Each folder has a .may_include file listing the project include prefixes
# its sources may use ("sim/", "models/", ...), one per line; a file obeys
# the nearest .may_include at or above its folder. Every project header a
# .c/.h/.cpp/.inc file reaches, directly or through other headers, must start
# with one of those prefixes: a public header may not carry a lower
# layer's types upward. An include "x.h" names the file beside the
# includer if there is one, else x.h under the top of the tree (-I
# top_srcdir); one that names no file of the tree ("config.h", a
# generated header) is checked as written and not followed.
#
# Usage: check-includes.sh [TOP]   (TOP: top_srcdir, else .)
# Prints each violation as file:line: message, with the chain of includes
# that reaches the header, and exits 1 if there is any (2 if TOP is not a
# folder).
top=${1:-${top_srcdir:-.}}
cd "$top" || exit 2
dirs=
for d in common traces ptx sim models machine cuda tools bench tests fuzz; do
    [ -d "$d" ] && dirs="$dirs $d"
done
[ -n "$dirs" ] || { echo "check-includes: no source folder under $top"; exit 2; }
# shellcheck disable=SC2086
find $dirs \( -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.inc' \
    -o -name .may_include \) \) -print | sort | awk '
# norm(p): p without "./" and "dir/.." steps.
function norm(p,    n, i, a, out, k, s) {
    n = split(p, a, "/")
    k = 0
    for (i = 1; i <= n; i++) {
        if (a[i] == "" || a[i] == ".") continue
        if (a[i] == ".." && k > 0 && s[k] != "..") { k--; continue }
        s[++k] = a[i]
    }
    out = ""
    for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") s[i]
    return out
}
function dirname(p) { return sub(/\/[^\/]*$/, "", p) ? p : "." }
# rules_of(f): the .may_include that governs file f ("" if none).
function rules_of(f,    d) {
    for (d = dirname(f); d != "." && d != ""; d = dirname(d))
        if ((d "/.may_include") in mayfile) return d "/.may_include"
    return ""
}
# allowed(r, h): header path h starts with a prefix of rules file r.
function allowed(r, h,    i) {
    for (i = 1; i <= nprefix[r]; i++)
        if (index(h, prefix[r, i]) == 1) return 1
    return 0
}
{
    if ($0 ~ /\/\.may_include$/) { mayfile[$0] = 1; next }
    file[++nfile] = $0
    exists[$0] = 1
}
END {
    for (r in mayfile) {
        nprefix[r] = 0
        list[r] = ""
        while ((getline line < r) > 0) {
            sub(/[ \t\r]+$/, "", line)
            if (line == "" || line ~ /^#/) continue
            prefix[r, ++nprefix[r]] = line
            list[r] = list[r] line " "
        }
        close(r)
    }
    # The include graph: edge (f, k) -> to[f, k] at line at[f, k].
    for (i = 1; i <= nfile; i++) {
        f = file[i]
        nedge[f] = 0
        n = 0
        while ((getline line < f) > 0) {
            n++
            if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
            inc = line
            sub(/^[ \t]*#[ \t]*include[ \t]*"/, "", inc)
            sub(/".*/, "", inc)
            if (inc == "config.h") continue
            beside = norm(dirname(f) "/" inc)
            if (beside in exists) h = beside
            else if (norm(inc) in exists) h = norm(inc)
            else h = inc
            k = ++nedge[f]
            to[f, k] = h
            at[f, k] = n
        }
        close(f)
    }
    bad = 0
    for (i = 1; i <= nfile; i++) {
        f = file[i]
        r = rules_of(f)
        if (r == "") {
            print f ": no .may_include above this file"
            bad++
            continue
        }
        # Breadth first from f, so each header is named with its shortest
        # chain; the walk stops at a header f may not reach.
        split("", seen)
        split("", chain)
        split("", line0)
        head = 1
        tail = 0
        q[++tail] = f
        seen[f] = 1
        while (head <= tail) {
            g = q[head++]
            for (k = 1; k <= nedge[g]; k++) {
                h = to[g, k]
                if (h in seen) continue
                seen[h] = 1
                chain[h] = (g == f ? f : chain[g]) " -> " h
                line0[h] = (g == f ? at[g, k] : line0[g])
                if (!allowed(r, h)) {
                    if (g == f)
                        print f ":" line0[h] ": may not include \"" h \
                            "\" (allowed by " r ": " list[r] ")"
                    else
                        print f ":" line0[h] ": may not reach \"" h \
                            "\": " chain[h] " (allowed by " r ": " \
                            list[r] ")"
                    bad++
                    continue
                }
                if (h in exists) q[++tail] = h
            }
        }
    }
    if (bad) {
        print "check-includes: " bad " include(s) point past the layer rules"
        exit 1
    }
    print "check-includes: layer dependencies are one-way (" nfile \
        " files, includes followed through headers)"
}'
