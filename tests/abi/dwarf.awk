# tests/abi/dwarf.awk - turn `readelf --debug-dump=info` output of one
# object file into a canonical list of the C-level interface it saw:
# enumerations, structs and unions, typedefs and function declarations.
#
# Each output line is "KIND NAME|FACT". All lines with the same left part
# describe one entity, so two objects built from different headers can be
# compared entity by entity (tests/abi/abi.sh sorts the lines first):
#
#   enum cudaError|#size 4 type unsigned int
#   enum cudaError|cudaSuccess = 0
#   struct cudaMemLocation|#size 8 align - members 2
#   struct cudaMemLocation|@0 type: enum cudaMemLocationType
#   typedef cudaStream_t|= struct CUstream_st*
#   func cudaMalloc|(void**, long unsigned int) -> cudaError_t
#
# Types are written out structurally: qualifiers and pointers postfix
# ("char const*"), named aggregates by tag, anonymous ones in full, arrays
# with their bounds, function types with their parameters. Typedefs appear
# by name; their definitions are separate entities. C++ class types print
# as "struct", and only data members count as members.

function hexkey(s)
{
    sub(/^<?0x/, "", s)
    sub(/>$/, "", s)
    return tolower(s)
}

# Attribute value without readelf's "(indirect string, offset: 0x..): ".
function attrval(s)
{
    sub(/^[^:]*: */, "", s)
    if (s ~ /^\(indirect (line )?string, offset: (0x)?[0-9a-f]+\): /) {
        sub(/^\([^)]*\): /, "", s)
    }
    sub(/[ \t]+$/, "", s)
    return s
}

# readelf prints some constants in hex, some in decimal.
function decimal(s,    i, n, c)
{
    if (s !~ /^0x[0-9a-fA-F]+$/) {
        return s
    }
    n = 0
    s = tolower(substr(s, 3))
    for (i = 1; i <= length(s); i++) {
        c = index("0123456789abcdef", substr(s, i, 1)) - 1
        n = n * 16 + c
    }
    return sprintf("%.0f", n)
}

function tstr(o,    t, s, k, n, i, c)
{
    if (o == "") {
        return "void"
    }
    t = tag[o]
    if (t == "base_type") {
        return name[o]
    }
    if (t == "pointer_type") {
        return tstr(type[o]) "*"
    }
    if (t == "reference_type") {
        return tstr(type[o]) "&"
    }
    if (t == "const_type") {
        return tstr(type[o]) " const"
    }
    if (t == "volatile_type") {
        return tstr(type[o]) " volatile"
    }
    if (t == "restrict_type") {
        return tstr(type[o]) " restrict"
    }
    if (t == "typedef") {
        return name[o]
    }
    if (t == "structure_type" || t == "class_type" || t == "union_type" ||
        t == "enumeration_type") {
        k = (t == "union_type") ? "union" : \
            (t == "enumeration_type") ? "enum" : "struct"
        if (name[o] != "") {
            return k " " name[o]
        }
        return k "{" body(o) "}"
    }
    if (t == "array_type") {
        s = tstr(type[o])
        n = split(kids[o], c, " ")
        for (i = 1; i <= n; i++) {
            if (tag[c[i]] == "subrange_type") {
                if (ub[c[i]] != "") {
                    s = s "[" (ub[c[i]] + 1) "]"
                } else if (cnt[c[i]] != "") {
                    s = s "[" cnt[c[i]] "]"
                } else {
                    s = s "[]"
                }
            }
        }
        return s
    }
    if (t == "subroutine_type") {
        return tstr(type[o]) "(" params(o) ")"
    }
    return "?" t
}

# Parameter list of a function or function type.
function params(o,    n, i, c, s)
{
    s = ""
    n = split(kids[o], c, " ")
    for (i = 1; i <= n; i++) {
        if (tag[c[i]] == "formal_parameter") {
            s = s (s == "" ? "" : ", ") tstr(type[c[i]])
        } else if (tag[c[i]] == "unspecified_parameters") {
            s = s (s == "" ? "" : ", ") "..."
        }
    }
    if (s == "" && !proto[o]) {
        s = "?"
    }
    return s
}

# Members of an anonymous aggregate, inline.
function body(o,    n, i, c, s)
{
    s = ""
    n = split(kids[o], c, " ")
    for (i = 1; i <= n; i++) {
        if (tag[c[i]] == "member") {
            s = s name[c[i]] ":" tstr(type[c[i]]) "@" loc[c[i]] ";"
        } else if (tag[c[i]] == "enumerator") {
            s = s name[c[i]] "=" cval[c[i]] ";"
        }
    }
    return s
}

/^ *<[0-9]+><[0-9a-f]+>: Abbrev Number: / {
    d = $0
    sub(/^ *</, "", d)
    depth = d
    sub(/>.*/, "", depth)
    off = d
    sub(/^[0-9]+></, "", off)
    sub(/>.*/, "", off)
    off = tolower(off)
    if ($0 ~ /Abbrev Number: 0/) {
        cur = ""
        next
    }
    t = $0
    sub(/.*\(DW_TAG_/, "", t)
    sub(/\).*/, "", t)
    cur = off
    tag[cur] = t
    depth += 0
    stack[depth] = cur
    if (depth > 0) {
        p = stack[depth - 1]
        kids[p] = kids[p] (kids[p] == "" ? "" : " ") cur
    }
    if (depth == 1) {
        top[++ntop] = cur
    }
    next
}

cur != "" && /^ *<[0-9a-f]+> +DW_AT_[a-z_]+ *:/ {
    a = $0
    sub(/^ *<[0-9a-f]+> +DW_AT_/, "", a)
    at = a
    sub(/ *:.*/, "", at)
    v = attrval(a)
    if (at == "name") {
        name[cur] = v
    } else if (at == "type") {
        type[cur] = hexkey(v)
    } else if (at == "byte_size") {
        size[cur] = v + 0
    } else if (at == "alignment") {
        align[cur] = v + 0
    } else if (at == "data_member_location") {
        loc[cur] = v
    } else if (at == "data_bit_offset" || at == "bit_size") {
        bits[cur] = bits[cur] " " at "=" v
    } else if (at == "const_value") {
        cval[cur] = decimal(v)
    } else if (at == "upper_bound") {
        ub[cur] = v
    } else if (at == "count") {
        cnt[cur] = v
    } else if (at == "declaration") {
        decl[cur] = 1
    } else if (at == "prototyped") {
        proto[cur] = 1
    }
    next
}

END {
    for (i = 1; i <= ntop; i++) {
        o = top[i]
        t = tag[o]
        if (name[o] == "") {
            continue
        }
        if (t == "enumeration_type") {
            key = "enum " name[o]
            if (decl[o]) {
                print key "|#incomplete"
                continue
            }
            print key "|#size " size[o] " type " tstr(type[o])
            n = split(kids[o], c, " ")
            for (j = 1; j <= n; j++) {
                if (tag[c[j]] == "enumerator") {
                    print key "|" name[c[j]] " = " cval[c[j]]
                }
            }
        } else if (t == "structure_type" || t == "class_type" ||
                   t == "union_type") {
            key = ((t == "union_type") ? "union " : "struct ") name[o]
            if (decl[o]) {
                print key "|#incomplete"
                continue
            }
            n = split(kids[o], c, " ")
            m = 0
            for (j = 1; j <= n; j++) {
                if (tag[c[j]] == "member" && !decl[c[j]]) {
                    m++
                    print key "|@" loc[c[j]] bits[c[j]] " " name[c[j]] ": " \
                        tstr(type[c[j]])
                }
            }
            print key "|#size " size[o] " align " \
                (align[o] == "" ? "-" : align[o]) " members " m
        } else if (t == "typedef") {
            print "typedef " name[o] "|= " tstr(type[o])
        } else if (t == "subprogram") {
            print "func " name[o] "|(" params(o) ") -> " tstr(type[o])
        }
    }
}
