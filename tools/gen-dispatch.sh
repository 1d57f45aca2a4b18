#!/bin/sh
# gen-dispatch.sh - generate the CUDA shim's dispatch layer from the
# declarations of the functions it exports.
#
# usage: gen-dispatch.sh SRCDIR OUTDIR
#
# Reads SRCDIR/cuda/include/cuda_runtime_api.h, the p2psim_rt_*.h it
# includes, cuda_profiler_api.h and p2psim_cudart_internal.h there (every
# function the shim serves, with its exact signature), and
# SRCDIR/cuda/cudart/cudart13.exports (every function NVIDIA's
# libcudart.so.13 exports), and writes, under OUTDIR:
#
#   cuda/cudart/sim_names.h   "#define cudaX p2psim_sim_cudaX" for every
#                            function: forced into the simulated runtime's
#                            sources (-include), so that their definitions
#                            and their calls to each other take the
#                            p2psim_sim_ names, which the version script
#                            keeps local
#   cuda/cudart/dispatch.c    the exported functions themselves: each one
#                            forwards to the real CUDA runtime
#                            (P2PSIM_BACKEND=cuda) or to its p2psim_sim_
#                            twin, and records the call when P2PSIM_RECORD
#                            is set (cuda/cudart/dispatch.h)
#   cuda/cudart/unserved.c    every function of cudart13.exports that the
#                            headers do not declare: it exists, says once
#                            on stderr that p2psim does not serve it, and
#                            returns cudaErrorNotSupported, so a program
#                            that calls it never stops on a loader error
#   tests/shim/fake_cudart.c a stand-in "real" runtime for the tests: every
#                            function logs its arguments and returns a
#                            value of its own (tests/shim/passthrough.sh)
#
# The build runs it (cuda/cudart/local.mk) into the build tree whenever a
# header, the exports list or this script changes; nothing it writes is
# committed. Only awk and sh are needed (CI has no python).
#
# How arguments are recorded (traces/api-trace.md): by type, and for a few
# parameters by name (the tables in classify() and out_class() below).
set -e
srcdir=${1:?usage: gen-dispatch.sh SRCDIR OUTDIR}
outdir=${2:?usage: gen-dispatch.sh SRCDIR OUTDIR}
api=$srcdir/cuda/include/cuda_runtime_api.h
internal=$srcdir/cuda/include/p2psim_cudart_internal.h
profiler=$srcdir/cuda/include/cuda_profiler_api.h
exports=$srcdir/cuda/cudart/cudart13.exports
parts=$(ls "$srcdir"/cuda/include/p2psim_rt_*.h 2>/dev/null | LC_ALL=C sort)
for f in "$api" $parts "$internal" "$profiler" "$exports"; do
    [ -r "$f" ] || { echo "gen-dispatch.sh: cannot read $f" >&2; exit 1; }
done
mkdir -p "$outdir/cuda/cudart" "$outdir/tests/shim"
tmp=$(mktemp "${TMPDIR:-/tmp}/gen-dispatch.XXXXXX")
trap 'rm -f "$tmp"' EXIT

# ---- 1. the declarations -------------------------------------------------
# One line per exported function: RET<TAB>NAME<TAB>TYPE<TAB>PARAM...
# Comments and preprocessor lines are dropped (the #if blocks of the
# headers only add macros and an inline wrapper, which is skipped because
# it is not "extern"); statements are cut at ';' and at braces.
awk '
function flush_stmt(s,    t, lp, rp, head, ret, name, params, n, i,
                    p, pname, ptype, out) {
    t = s
    gsub(/[ \t\n]+/, " ", t)
    sub(/^ /, "", t)
    if (t !~ /^extern / || t ~ /^extern "C"/ || index(t, "(") == 0) {
        return
    }
    gsub(/P2PSIM_DEFAULT\([^)]*\)/, "", t)
    gsub(/CUDARTAPI/, " ", t)
    # each pass skips a word right after one it removed: repeat
    while (gsub(/(^| )(extern|__host__|__device__|__cudart_builtin__|P2PSIM_CUDART_DEPRECATED)( |$)/, " ", t) > 0) {
    }
    gsub(/ +/, " ", t)
    sub(/^ /, "", t)
    lp = index(t, "(")
    head = substr(t, 1, lp - 1)
    sub(/ +$/, "", head)
    rp = length(t)
    while (rp > 0 && substr(t, rp, 1) != ")") {
        rp--
    }
    params = substr(t, lp + 1, rp - lp - 1)
    match(head, /[A-Za-z_][A-Za-z0-9_]*$/)
    name = substr(head, RSTART)
    ret = substr(head, 1, RSTART - 1)
    gsub(/ +$/, "", ret)
    gsub(/ \*/, " *", ret)
    if (name in seen) {
        return
    }
    seen[name] = 1
    out = ret "\t" name
    gsub(/^ +| +$/, "", params)
    if (params != "void" && params != "") {
        n = split(params, p, ",")
        for (i = 1; i <= n; i++) {
            gsub(/^ +| +$/, "", p[i])
            match(p[i], /[A-Za-z_][A-Za-z0-9_]*$/)
            pname = substr(p[i], RSTART)
            ptype = substr(p[i], 1, RSTART - 1)
            gsub(/ +$/, "", ptype)
            gsub(/\* \*/, "**", ptype)
            out = out "\t" ptype "\t" pname
        }
    }
    print out
}
{
    line = $0
    if (in_pp) {
        in_pp = (line ~ /\\$/)
        next
    }
    # comments
    res = ""
    while (line != "") {
        if (in_comment) {
            e = index(line, "*/")
            if (e == 0) {
                line = ""
            } else {
                line = substr(line, e + 2)
                in_comment = 0
            }
        } else {
            b = index(line, "/*")
            c = index(line, "//")
            if (c > 0 && (b == 0 || c < b)) {
                res = res substr(line, 1, c - 1)
                line = ""
            } else if (b == 0) {
                res = res line
                line = ""
            } else {
                res = res substr(line, 1, b - 1) " "
                line = substr(line, b + 2)
                in_comment = 1
            }
        }
    }
    line = res
    if (line ~ /^[ \t]*#/) {
        in_pp = (line ~ /\\$/)
        next
    }
    stmt = stmt " " line
    for (;;) {
        semi = index(stmt, ";")
        lb = index(stmt, "{")
        rb = index(stmt, "}")
        brace = lb
        if (rb > 0 && (brace == 0 || rb < brace)) {
            brace = rb
        }
        if (brace > 0 && (semi == 0 || brace < semi)) {
            stmt = substr(stmt, brace + 1)
            continue
        }
        if (semi == 0) {
            break
        }
        flush_stmt(substr(stmt, 1, semi - 1))
        stmt = substr(stmt, semi + 1)
    }
}
' "$api" $parts "$internal" "$profiler" > "$tmp"

n=$(wc -l < "$tmp")
[ "$n" -gt 100 ] || {
    echo "gen-dispatch.sh: found only $n functions in the headers" >&2
    exit 1
}

# ---- 2. the generated files ----------------------------------------------
# The classification shared by dispatch.c and fake_cudart.c.
classify='
# How an argument is recorded (and logged by the fake runtime).
function classify(type, pname) {
    if (type == "cudaStream_t" || type == "struct CUstream_st *") return "stream"
    if (type == "cudaEvent_t") return "event"
    if (type == "cudaMemPool_t") return "pool"
    if (type == "dim3") return "dim3"
    if (type == "struct cudaMemLocation") return "memloc"
    if (type == "cudaIpcMemHandle_t" || type == "cudaIpcEventHandle_t") return "bytes"
    # hostFun is a host stub address typed as a string (reference/
    # cuda-api.md section 3.2)
    if (type == "const char *" && pname != "hostFun") return "str"
    if (type == "cudaStreamCallback_t" || type == "cudaHostFn_t") return "fnptr"
    if (type ~ /\*$/ || type == "cudaKernel_t") return "ptr"
    # graph handles are pointers too
    if (type ~ /^cuda(Graph|GraphNode|GraphExec|UserObject)_t$/) return "ptr"
    # any other structure passed by value: its bytes
    if (type ~ /^(const )?struct [A-Za-z_0-9]+$/) return "bytes"
    if (type == "size_t" || type ~ /^unsigned long long$/) return "uint"
    if (type == "float" || type == "double") return "float"
    return "int"
}
# What a pointer parameter of a cudaError_t function hands back: the value
# it points at after a successful call ("" when nothing is recorded).
function out_class(type, pname) {
    if (pname == "args" || pname == "deviceArr") return ""
    if (type == "cudaStream_t *") return "stream"
    if (type == "cudaEvent_t *") return "event"
    if (type == "cudaMemPool_t *") return "pool"
    if (type == "void **" || type == "cudaKernel_t *") return "ptr"
    if (type == "int *" || type == "unsigned int *" || type ~ /^enum [A-Za-z_0-9]+ \*$/) return "int"
    if (type == "size_t *" || type == "unsigned long long *") return "uint"
    if (type == "float *") return "float"
    return ""
}
'

# cuda/cudart/sim_names.h
awk -F '\t' '
BEGIN {
    print "/*"
    print " * cuda/cudart/sim_names.h - GENERATED by tools/gen-dispatch.sh at build"
    print " * time from the headers of cuda/include: edit those, not this file."
    print " *"
    print " * Forced into every source of the simulated runtime (-include, see"
    print " * cuda/cudart/local.mk): each exported name becomes p2psim_sim_NAME, in"
    print " * the declarations of our headers, in the definitions and in the calls"
    print " * the simulated runtime makes to itself. The exported functions are"
    print " * those of the generated dispatch.c, which forward to these or to the"
    print " * real CUDA runtime (cuda/cudart/dispatch.h)."
    print " */"
    print "#ifndef P2PSIM_CUDA_CUDART_SIM_NAMES_H"
    print "#define P2PSIM_CUDA_CUDART_SIM_NAMES_H"
    print ""
}
{ printf "#define %s p2psim_sim_%s\n", $2, $2 }
END {
    print ""
    print "#endif /* P2PSIM_CUDA_CUDART_SIM_NAMES_H */"
}
' "$tmp" > "$outdir/cuda/cudart/sim_names.h"

# cuda/cudart/dispatch.c
awk -F '\t' "$classify"'
function proto(    s, i) {
    s = ""
    for (i = 3; i < NF; i += 2) {
        s = s (i > 3 ? ", " : "") decl($i, $(i + 1))
    }
    return s == "" ? "void" : s
}
function decl(type, pname) {
    return type ~ /\*$/ ? type pname : type " " pname
}
function callargs(    s, i) {
    s = ""
    for (i = 3; i < NF; i += 2) {
        s = s (i > 3 ? ", " : "") $(i + 1)
    }
    return s
}
function rec_arg(type, pname, fname,    k, mode) {
    k = classify(type, pname)
    if (k == "int") return sprintf("passthru_rec_int(r, \"%s\", (long long)%s);", pname, pname)
    if (k == "uint") return sprintf("passthru_rec_uint(r, \"%s\", (unsigned long long)%s);", pname, pname)
    if (k == "float") return sprintf("passthru_rec_float(r, \"%s\", (double)%s);", pname, pname)
    if (k == "ptr") return sprintf("passthru_rec_ptr(r, \"%s\", (const void *)%s);", pname, pname)
    if (k == "fnptr") return sprintf("passthru_rec_ptr(r, \"%s\", (const void *)(uintptr_t)%s);", pname, pname)
    if (k == "str") return sprintf("passthru_rec_str(r, \"%s\", %s);", pname, pname)
    if (k == "dim3") return sprintf("passthru_rec_dim3(r, \"%s\", %s.x, %s.y, %s.z);", pname, pname, pname, pname)
    if (k == "memloc") return sprintf("passthru_rec_memloc(r, \"%s\", (int)%s.type, %s.id);", pname, pname, pname)
    if (k == "bytes") return sprintf("passthru_rec_bytes(r, \"%s\", &%s, sizeof(%s));", pname, pname, pname)
    mode = "PASSTHRU_ID_FIND"
    return sprintf("passthru_rec_handle(r, \"%s\", %s, (const void *)%s, %s);", pname, handle_kind(k), pname, mode)
}
function handle_kind(k) {
    return k == "stream" ? "PASSTHRU_STREAM" : k == "event" ? "PASSTHRU_EVENT" : "PASSTHRU_POOL"
}
function rec_out(type, pname, fname,    k, mode) {
    k = out_class(type, pname)
    if (k == "") return ""
    if (k == "int") return sprintf("passthru_rec_int(r, \"%s\", (long long)*%s);", pname, pname)
    if (k == "uint") return sprintf("passthru_rec_uint(r, \"%s\", (unsigned long long)*%s);", pname, pname)
    if (k == "float") return sprintf("passthru_rec_float(r, \"%s\", (double)*%s);", pname, pname)
    if (k == "ptr") return sprintf("passthru_rec_ptr(r, \"%s\", (const void *)*%s);", pname, pname)
    mode = fname ~ /Create|Open|Import/ ? "PASSTHRU_ID_NEW" : "PASSTHRU_ID_FIND"
    return sprintf("passthru_rec_handle(r, \"%s\", %s, (const void *)*%s, %s);", pname, handle_kind(k), pname, mode)
}
# The value a function returns when it cannot be served.
function unserved(ret) {
    if (ret == "cudaError_t") return "cudaErrorNotSupported"
    if (ret ~ /^struct /) return "(" ret "){0}"
    if (ret == "const char *") return "\"p2psim: not served\""
    if (ret == "unsigned") return "1"
    if (ret == "void") return ""
    return "0"
}
function rec_ret(ret) {
    if (ret == "const char *") return "passthru_rec_ret_str(r, ret);"
    if (ret ~ /^struct /) return "passthru_rec_ret_none(r);"
    if (ret ~ /\*$/) return "passthru_rec_ret_ptr(r, (const void *)ret);"
    if (ret == "void") return "passthru_rec_ret_none(r);"
    return "passthru_rec_ret_int(r, (long long)ret);"
}
BEGIN {
    print "/*"
    print " * cuda/cudart/dispatch.c - GENERATED by tools/gen-dispatch.sh from"
    print " * cuda/include/cuda_runtime_api.h and the headers beside it, at build"
    print " * time: edit the headers, not this file."
    print " *"
    print " * Every function the shim exports, as a switch between two backends"
    print " * (cuda/cudart/dispatch.h has the design):"
    print " *   simulated  p2psim_sim_NAME, the simulated runtime compiled under"
    print " *              that name (sim_names.h); a function our headers declare"
    print " *              but the simulation does not define is a weak NULL here"
    print " *              and returns cudaErrorNotSupported"
    print " *   real       P2PSIM_BACKEND=cuda: NAME of the real CUDA runtime,"
    print " *              looked up on first use (cuda/passthrough/); missing:"
    print " *              cudaErrorNotSupported"
    print " * and, when P2PSIM_RECORD names a file, one line of the API trace per"
    print " * call (traces/api-trace.md): arguments by type, what pointer"
    print " * parameters hand back, the result, real and simulated times."
    print " */"
    print "#include <config.h>"
    print ""
    print "/* cudaGetDriverEntryPoint is declared deprecated; it is served all the"
    print " * same. */"
    print "#define CUDA_ENABLE_DEPRECATED"
    print ""
    print "#include \"cuda/cudart/dispatch.h\""
    print ""
    print "#include <stdint.h>"
    print ""
}
{
    ret[NR] = $1
    name[NR] = $2
    line[NR] = $0
}
END {
    n = NR
    print "/* The simulated runtime (sim_names.h renamed it). */"
    for (k = 1; k <= n; k++) {
        printf "extern __typeof__(%s) p2psim_sim_%s\n    __attribute__((weak, visibility(\"hidden\")));\n", name[k], name[k]
    }
    print ""
    printf "/* The real runtime'"'"'s functions, looked up on first use. */\n"
    printf "static void *dispatch_real[%d];\n", n
    for (k = 1; k <= n; k++) {
        nf = split(line[k], f, "\t")
        $0 = line[k]
        fn = name[k]
        r = ret[k]
        print ""
        if (r ~ /\*$/) {
            printf "%sCUDARTAPI %s(%s)\n", r, fn, proto()
        } else {
            printf "%s CUDARTAPI %s(%s)\n", r, fn, proto()
        }
        print "{"
        print "    struct dispatch_call c;"
        if (r != "void") {
            printf "    %s%sret;\n", r, r ~ /\*$/ ? "" : " "
        }
        printf "    dispatch_enter(&c, \"%s\", &dispatch_real[%d]);\n", fn, k - 1
        assign = r == "void" ? "" : "ret = "
        print "    if (c.real) {"
        printf "        %s((__typeof__(&%s))c.real)(%s);\n", assign, fn, callargs()
        printf "    } else if (!c.is_real && p2psim_sim_%s) {\n", fn
        printf "        %sp2psim_sim_%s(%s);\n", assign, fn, callargs()
        print "    } else {"
        if (r == "void") {
            print "        dispatch_unserved(&c);"
        } else if (r == "cudaError_t") {
            print "        ret = dispatch_unserved_error(&c);"
        } else {
            print "        dispatch_unserved(&c);"
            printf "        ret = %s;\n", unserved(r)
        }
        print "    }"
        print "    if (c.rec) {"
        print "        struct passthru_rec *r = c.rec;"
        print "        dispatch_leave(&c);"
        for (i = 3; i < NF; i += 2) {
            printf "        %s\n", rec_arg($i, $(i + 1), fn)
        }
        outs = ""
        if (r == "cudaError_t") {
            for (i = 3; i < NF; i += 2) {
                o = rec_out($i, $(i + 1), fn)
                if (o != "") {
                    outs = outs sprintf("            if (%s) {\n                %s\n            }\n", $(i + 1), o)
                }
            }
        }
        if (outs != "") {
            print "        if (ret == cudaSuccess) {"
            print "            passthru_rec_out(r);"
            printf "%s", outs
            print "        }"
        }
        printf "        %s\n", rec_ret(r)
        print "        passthru_rec_write(r);"
        if (fn ~ /Destroy$/ && NF >= 4) {
            k1 = classify($3, $4)
            if (k1 == "stream" || k1 == "event" || k1 == "pool") {
                print "        if (ret == cudaSuccess) {"
                printf "            passthru_rec_forget(%s, (const void *)%s);\n", handle_kind(k1), $4
                print "        }"
            }
        }
        print "    }"
        if (r != "void") {
            print "    return ret;"
        }
        print "}"
    }
}
' "$tmp" > "$outdir/cuda/cudart/dispatch.c"

# tests/shim/fake_cudart.c
awk -F '\t' "$classify"'
function proto(    s, i) {
    s = ""
    for (i = 3; i < NF; i += 2) {
        s = s (i > 3 ? ", " : "") decl($i, $(i + 1))
    }
    return s == "" ? "void" : s
}
function decl(type, pname) {
    return type ~ /\*$/ ? type pname : type " " pname
}
function log_arg(type, pname,    k) {
    k = classify(type, pname)
    if (k == "int") return sprintf("fake_int(fk, \"%s\", (long long)%s);", pname, pname)
    if (k == "uint") return sprintf("fake_uint(fk, \"%s\", (unsigned long long)%s);", pname, pname)
    if (k == "float") return sprintf("fprintf(fk, \" %s=%%g\", (double)%s);", pname, pname)
    if (k == "str") return sprintf("fake_str(fk, \"%s\", %s);", pname, pname)
    if (k == "dim3") return sprintf("fprintf(fk, \" %s={%%u,%%u,%%u}\", %s.x, %s.y, %s.z);", pname, pname, pname, pname)
    if (k == "memloc") return sprintf("fprintf(fk, \" %s={%%d,%%d}\", (int)%s.type, %s.id);", pname, pname, pname)
    if (k == "bytes") return sprintf("fake_bytes(fk, \"%s\", &%s, sizeof(%s));", pname, pname, pname)
    if (k == "fnptr") return sprintf("fake_ptr(fk, \"%s\", (const void *)(uintptr_t)%s);", pname, pname)
    return sprintf("fake_ptr(fk, \"%s\", (const void *)%s);", pname, pname)
}
# What the fake writes through a pointer parameter: a value that tells
# which function and which parameter wrote it.
function fake_out(type, pname, k, i,    c, t) {
    c = out_class(type, pname)
    if (c == "") return ""
    t = type
    sub(/ ?\*$/, "", t)
    if (c == "int") return sprintf("*%s = (%s)(4000 + %d);", pname, t, 100 * k + i)
    if (c == "uint") return sprintf("*%s = 5000 + %d;", pname, 100 * k + i)
    if (c == "float") return sprintf("*%s = 0.5f + %d;", pname, k)
    return sprintf("*%s = (%s)(uintptr_t)(0xfa000000u + 0x100u * %d + %d);", pname, t, k, i)
}
BEGIN {
    print "/*"
    print " * tests/shim/fake_cudart.c - GENERATED by tools/gen-dispatch.sh at build"
    print " * time from the headers of cuda/include."
    print " *"
    print " * A stand-in for NVIDIA'"'"'s libcudart.so.13 that the passthrough tests"
    print " * load as the \"real\" runtime (tests/shim/passthrough.sh builds it as"
    print " * libfakecudart.so, soname libcudart.so.13). Every function appends one"
    print " * line to $FAKE_CUDART_LOG:"
    print " *     NAME ARG=VALUE ... -> RESULT"
    print " * (pointers and handles as 0x..., strings quoted, dim3 as {x,y,z}),"
    print " * writes a value of its own through each pointer it would fill"
    print " * (4000+/5000+100*K+I for integers, 0xfa000000+0x100*K+I for pointers"
    print " * and handles: K the function, I the parameter), and returns a value of"
    print " * its own: 10000+K for a cudaError_t (0 with FAKE_CUDART_SUCCESS=1),"
    print " * 20000+K for an unsigned, the string \"fake NAME\", a pointer to a"
    print " * static handle. So a test can tell that each call arrived with its"
    print " * arguments and that its result came back unchanged."
    print " */"
    print "#define CUDA_ENABLE_DEPRECATED"
    print "#include <stdint.h>"
    print "#include <stdio.h>"
    print "#include <stdlib.h>"
    print ""
    print "#include <p2psim_cudart_internal.h>"
    print ""
    print "static void *fake_handle[16];"
    print ""
    print "static FILE *fake_open(const char *name)"
    print "{"
    print "    const char *path = getenv(\"FAKE_CUDART_LOG\");"
    print "    FILE *f = fopen(path && *path ? path : \"/dev/null\", \"a\");"
    print "    if (!f) {"
    print "        abort();"
    print "    }"
    print "    fprintf(f, \"%s\", name);"
    print "    return f;"
    print "}"
    print ""
    print "static cudaError_t fake_ret(int k)"
    print "{"
    print "    const char *s = getenv(\"FAKE_CUDART_SUCCESS\");"
    print "    return s && *s == (char)49 ? cudaSuccess : (cudaError_t)(10000 + k);"
    print "}"
    print ""
    print "static void fake_int(FILE *f, const char *n, long long v)"
    print "{"
    print "    fprintf(f, \" %s=%lld\", n, v);"
    print "}"
    print ""
    print "static void fake_uint(FILE *f, const char *n, unsigned long long v)"
    print "{"
    print "    fprintf(f, \" %s=%llu\", n, v);"
    print "}"
    print ""
    print "static void fake_ptr(FILE *f, const char *n, const void *p)"
    print "{"
    print "    fprintf(f, \" %s=0x%llx\", n, (unsigned long long)(uintptr_t)p);"
    print "}"
    print ""
    print "static void fake_str(FILE *f, const char *n, const char *s)"
    print "{"
    print "    if (s) {"
    print "        fprintf(f, \" %s=\\\"%s\\\"\", n, s);"
    print "    } else {"
    print "        fprintf(f, \" %s=NULL\", n);"
    print "    }"
    print "}"
    print ""
    print "static void fake_bytes(FILE *f, const char *n, const void *p, size_t len)"
    print "{"
    print "    const unsigned char *b = p;"
    print "    fprintf(f, \" %s=\", n);"
    print "    for (size_t i = 0; i < len; i++) {"
    print "        fprintf(f, \"%02x\", b[i]);"
    print "    }"
    print "}"
    print ""
    print "static void fake_close(FILE *f, const char *result)"
    print "{"
    print "    fprintf(f, \" -> %s\\n\", result);"
    print "    fclose(f);"
    print "}"
}
{
    k = NR
    r = $1
    fn = $2
    print ""
    if (r ~ /\*$/) {
        printf "%sCUDARTAPI %s(%s)\n", r, fn, proto()
    } else {
        printf "%s CUDARTAPI %s(%s)\n", r, fn, proto()
    }
    print "{"
    print "    char res[64];"
    printf "    FILE *fk = fake_open(\"%s\");\n", fn
    for (i = 3; i < NF; i += 2) {
        printf "    %s\n", log_arg($i, $(i + 1))
    }
    for (i = 3; i < NF; i += 2) {
        o = fake_out($i, $(i + 1), k, (i - 1) / 2)
        if (o != "") {
            printf "    if (%s) {\n        %s\n    }\n", $(i + 1), o
        }
    }
    if (r == "cudaError_t") {
        printf "    cudaError_t ret = fake_ret(%d);\n", k
        print "    snprintf(res, sizeof(res), \"%d\", (int)ret);"
    } else if (r == "const char *") {
        printf "    const char *ret = \"fake %s\";\n", fn
        print "    snprintf(res, sizeof(res), \"\\\"%s\\\"\", ret);"
    } else if (r == "unsigned") {
        printf "    unsigned ret = 20000 + %d;\n", k
        print "    snprintf(res, sizeof(res), \"%u\", ret);"
    } else if (r == "char") {
        printf "    char ret = (char)(33 + %d %% 90);\n", k
        print "    snprintf(res, sizeof(res), \"%d\", (int)ret);"
    } else if (r ~ /^struct /) {
        printf "    %s ret = {0};\n", r
        print "    snprintf(res, sizeof(res), \"{0}\");"
    } else if (r ~ /\*$/) {
        printf "    %sret = (%s)&fake_handle[%d %% 16];\n", r, r, k
        print "    snprintf(res, sizeof(res), \"0x%llx\", (unsigned long long)(uintptr_t)ret);"
    } else {
        print "    snprintf(res, sizeof(res), \"void\");"
    }
    print "    fake_close(fk, res);"
    if (r != "void") {
        print "    return ret;"
    }
    print "}"
}
' "$tmp" > "$outdir/tests/shim/fake_cudart.c"

# cuda/cudart/unserved.c
awk -F '\t' '
FNR == NR {
    served[$2] = 1
    next
}
/^#/ || NF == 0 {
    next
}
{
    split($0, f, /[ \t]+/)
    if (!(f[1] in served)) {
        names[++n] = f[1]
        rets[n] = f[2]
    }
}
END {
    print "/*"
    print " * cuda/cudart/unserved.c - GENERATED by tools/gen-dispatch.sh at build"
    print " * time: every function that NVIDIA'"'"'s libcudart.so.13 exports"
    print " * (cuda/cudart/cudart13.exports) and p2psim'"'"'s headers do not declare."
    print " * Each exists so that a program calling it loads; it says once that"
    print " * p2psim does not serve it and returns cudaErrorNotSupported (also its"
    print " * last error). The arguments are not read, so no signature is needed."
    print " */"
    print "#include <config.h>"
    print ""
    print "#include \"cuda/cudart/dispatch.h\""
    print ""
    printf "static void *unserved_slot[%d];\n", (n > 0 ? n : 1)
    for (k = 1; k <= n; k++) {
        print ""
        if (rets[k] == "void") {
            printf "void %s(void);\nvoid %s(void)\n{\n", names[k], names[k]
            printf "    (void)dispatch_unserved_name(\"%s\", &unserved_slot[%d]);\n}\n", names[k], k - 1
        } else {
            printf "int %s(void);\nint %s(void)\n{\n", names[k], names[k]
            printf "    return dispatch_unserved_name(\"%s\", &unserved_slot[%d]);\n}\n", names[k], k - 1
        }
    }
}
' "$tmp" "$exports" > "$outdir/cuda/cudart/unserved.c"
