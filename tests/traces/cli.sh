#!/bin/sh
# cli.sh - fabric traces end to end, through the real command lines
# (docs/traces.md):
#   p2psim run --trace/--events/--counters on one_copy.c (one peer copy of
#             a known size, built here against the shim): the Perfetto
#             file is JSON (checked with python3 where there is one) whose
#             slices are on named tracks, the event log has the BAR1
#             mapping, the counters end at the copy's size; a CSV trace of
#             the same run is the JSON one converted; the size cap
#   p2psim trace summarize|convert|filter on the results: CSV -> Perfetto
#             -> CSV gives the same file; filter keeps only what it names;
#             the summary's bytes of writes per link equal the copy size
#   P2PSIM_TRACE with the shim alone (no p2psim run): the same trace
#   p2psim bench --trace and p2psim sweep --trace (a file per point)
#   the errors for bad options, before anything runs
#   untrusted input (issue 18): 300,000 nested arrays through replay and
#             trace summarize|convert|filter, filter times out of range,
#             replay's checks of sizes, allocations, ids and threads,
#             --host-memory; all exit 2 with file:line:column
#   the traces suite built with clang -fsanitize=undefined (where clang
#             is found), which flags NULL + 0 as GCC does not
# Exits 77 (SKIP) without the shared shim. Environment as for tests/shim/
# (lib.sh): top_srcdir, top_builddir, P2PSIM, CC, SAN_FLAGS.
. "${top_srcdir:-.}/tests/shim/lib.sh"
[ -f "$shim_dir/libcudart.so.13" ] ||
    { echo "no shared shim (configured with --disable-shared?): skipped"; exit 77; }
scratch
shim=$(cd "$shim_dir" && pwd -P)
machine=pcie-8gpu-2socket       # GPUs 0 and 1 under one switch
bytes=65536
guard=
command -v timeout >/dev/null 2>&1 && guard="timeout 300"

# shellcheck disable=SC2086
check "one_copy builds" 0 "" \
    ${CC:-cc} -std=c11 -Wall -Wextra -Werror $SAN_FLAGS \
    -I"$top/cuda/include" -o "$work/one_copy" "$top/tests/traces/one_copy.c" \
    -L"$shim" -lcudart -Wl,-rpath,"$shim"
[ -x "$work/one_copy" ] || { finish traces-cli; exit 1; }
# Paths from here on are used from $work: make the relative ones absolute
# (a VPATH build, distcheck, gives top_srcdir as ..).
top=$(cd "$top" && pwd -P)
case $p2psim in /*) ;; *) p2psim=$(cd "$(dirname "$p2psim")" && pwd -P)/$(basename "$p2psim") ;; esac
cd "$work" || exit 99

run() { # run OPTIONS... -- PROGRAM ARGS
    $guard "$p2psim" run --quiet --topology $machine "$@"
}
# column NAME FILE: the values of CSV column NAME (no quoted commas in it).
column() {
    awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
                       { print $k }' "$2"
}

# ---- p2psim run ------------------------------------------------------------------
check "run --trace --events --counters" 0 "^one_copy: $bytes bytes" \
    run --trace t.json --events e.log --counters c.csv -- ./one_copy $bytes
for f in t.json e.log c.csv; do
    [ -s $f ] && ok "run wrote $f" || bad "run wrote $f" "missing or empty"
done
if command -v python3 >/dev/null 2>&1; then
    # Valid JSON; every slice on a track named by metadata; times per
    # track never go back.
    check "the Perfetto file is JSON with named, monotonic tracks" 0 \
        "^slices [1-9]" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
named, last, n = set(), {}, 0
for e in d["traceEvents"]:
    k = (e["pid"], e["tid"])
    if e["ph"] == "M" and e["name"] == "thread_name":
        named.add(k)
    elif e["ph"] == "X":
        assert k in named, "slice on unnamed track %s" % (k,)
        assert e["ts"] >= last.get(k, 0), "time went back on %s" % (k,)
        last[k] = e["ts"]
        n += 1
print("slices", n)' t.json
else
    echo "no python3: the JSON parse check skipped"
fi
check "event log: the BAR1 mapping, ftrace style" 0 \
    "^  p2psim  \[000\]  [0-9]*\.[0-9]\{12\}: bar1_map: gpu1 .*bytes=$bytes ok$" \
    cat e.log
check "counters: header" 0 "^t_ps,object,metric,value$" head -1 c.csv
last_rx=$(grep ',gpu1,rx_bytes,' c.csv | tail -1 | cut -d, -f4)
[ "$last_rx" = "$bytes" ] && ok "counters: gpu1 received the copy" ||
    bad "counters: gpu1 received the copy" "rx_bytes $last_rx"
check "run --trace t.csv (the same run as CSV)" 0 "" \
    run --trace t.csv -- ./one_copy $bytes

# ---- p2psim trace ----------------------------------------------------------------
check "convert JSON -> CSV" 0 "" "$p2psim" trace convert t.json c1.csv
check "the converted JSON is the CSV trace of the same run" 0 "" cmp t.csv c1.csv
check "convert CSV -> Perfetto" 0 "" "$p2psim" trace convert t.csv c2.json
check "convert Perfetto -> CSV" 0 "" "$p2psim" trace convert c2.json c3.csv
check "CSV -> Perfetto -> CSV: the same records" 0 "" cmp t.csv c3.csv
check "convert --format" 0 "" "$p2psim" trace convert t.csv c4.out --format perfetto
check "--format perfetto wrote JSON" 0 '"p2psim_trace"' head -1 c4.out

check "filter kind=MWr" 0 "" "$p2psim" trace filter t.json w.csv kind=MWr
kinds=$(column kind w.csv | sort -u)
[ "$kinds" = MWr ] && ok "filter kept only MWr" ||
    bad "filter kept only MWr" "kinds: $kinds"
n_all=$(column kind t.csv | grep -c '^MWr$')
n_w=$(($(wc -l < w.csv) - 1))
[ "$n_w" -gt 0 ] && [ "$n_w" = "$n_all" ] && ok "filter kept every MWr ($n_w)" ||
    bad "filter kept every MWr" "$n_w of $n_all"
check "filter component=gpu1" 0 "" "$p2psim" trace filter t.csv g.csv component=gpu1
bad_rows=$(awk -F, 'NR > 1 && $16 !~ /^gpu1([.]|$)/ && $17 !~ /^gpu1([.]|$)/ &&
                    $15 !~ /(^|>)gpu1([.\/]|$)/' g.csv)
rows=$(($(wc -l < g.csv) - 1))
[ "$rows" -gt 0 ] && [ -z "$bad_rows" ] && ok "filter kept only gpu1's records ($rows)" ||
    bad "filter kept only gpu1's records" "$rows rows; $(echo "$bad_rows" | head -2)"
check "filter from=..,to=.. (an empty window)" 0 "" \
    "$p2psim" trace filter t.csv none.csv from=1s,to=2s
[ "$(wc -l < none.csv)" = 1 ] && ok "an empty window keeps the header only" ||
    bad "an empty window keeps the header only" "$(wc -l < none.csv) lines"

check "summarize" 0 "^links (one line per direction):" "$p2psim" trace summarize t.json
check "summarize: the copy engine moved the copy" 0 \
    "^  gpu0/ce0  *$bytes  *1 " printf '%s\n' "$out"
check "summarize: latency per TLP kind" 0 "^  MWr .* TLPs  min" printf '%s\n' "$out"
check "summarize: events" 0 "^  bar1_map  *1$" printf '%s\n' "$out"
check "summarize the writes" 0 "" "$p2psim" trace summarize w.csv
links=$(printf '%s\n' "$out" | awk '$1 ~ />/ && $2 > 0 { print $1, $2 }')
n_links=$(printf '%s\n' "$links" | grep -c .)
wrong=$(printf '%s\n' "$links" | awk -v b=$bytes '$2 != b')
[ "$n_links" -ge 2 ] && [ -z "$wrong" ] &&
    ok "summary: bytes of writes per link = the copy size ($n_links links)" ||
    bad "summary: bytes of writes per link = the copy size" "$links"
check "summarize the same trace as CSV: the same summary" 0 "" \
    sh -c "'$p2psim' trace summarize t.csv > s1.txt && '$p2psim' trace summarize t.json > s2.txt && cmp s1.txt s2.txt"

# ---- filter and cap at record time ---------------------------------------------------
check "run --trace-filter kind=MWr" 0 "" \
    run --trace rf.csv --trace-filter kind=MWr -- ./one_copy $bytes
check "recorded with a filter = filtered afterwards" 0 "" cmp rf.csv w.csv
check "run --trace-max: the message" 0 "reached its size cap" \
    run --trace cap.json --trace-max 20KiB -- ./one_copy $bytes
check "run --trace-max: what was not written" 0 "records over the size cap were not written" \
    printf '%s\n' "$out"
size=$(wc -c < cap.json)
[ "$size" -le 20480 ] && ok "the capped file is within the cap ($size B)" ||
    bad "the capped file is within the cap" "$size B"
check "the capped file still reads" 0 "^records: " "$p2psim" trace summarize cap.json

# ---- P2PSIM_TRACE with the shim alone ----------------------------------------------
check "P2PSIM_TRACE without p2psim run" 0 "^one_copy: $bytes bytes" \
    env P2PSIM_TOPOLOGY=$machine P2PSIM_TRACE="$work/env.csv" ./one_copy $bytes
check "P2PSIM_TRACE: the same trace as p2psim run's" 0 "" cmp env.csv t.csv
check "P2PSIM_TRACE: a bad file name is an error" 1 "name the file \*.csv or \*.json" \
    env P2PSIM_TOPOLOGY=$machine P2PSIM_TRACE="$work/env.txt" ./one_copy $bytes
check "P2PSIM_TRACE_MAX: a bad size is an error" 1 "P2PSIM_TRACE_MAX=lots" \
    env P2PSIM_TOPOLOGY=$machine P2PSIM_TRACE="$work/env.csv" \
    P2PSIM_TRACE_MAX=lots ./one_copy $bytes

# ---- bench and sweep ---------------------------------------------------------------
M=$top/topologies/desktop-2x-geforce.yaml
check "bench --trace --counters" 0 "" \
    $guard "$p2psim" bench "$M" --numElems 4096 --matrix uni_p2p_enabled_GBps \
    --trace b.csv --counters bc.csv
check "bench's trace reads" 0 "^  MWr .* TLPs" "$p2psim" trace summarize b.csv
check "bench's counters" 0 ",gpu1,rx_bytes," cat bc.csv
if command -v gnuplot >/dev/null 2>&1; then
    check "bench --plot" 0 "" $guard "$p2psim" bench "$M" --numElems 4096 \
        --matrix uni_p2p_enabled_GBps --counters bp.csv --plot u.png
    [ -s u.png ] && ok "bench --plot drew u.png" || bad "bench --plot drew u.png" "no file"
else
    echo "no gnuplot: --plot skipped"
fi
check "sweep --trace --events" 0 "^4KiB," \
    $guard "$p2psim" sweep "$M" --set size=4KiB,8KiB --measure 'd2d-bandwidth 0' \
    --trace s.json --events s.log
for p in 0 1; do
    check "sweep point $p has its own trace" 0 "^records: " \
        "$p2psim" trace summarize s-p$p.json
done
ops0=$(grep -c '"type":"op"' s-p0.json)
ops1=$(grep -c '"type":"op"' s-p1.json)
[ "$ops0" -gt 0 ] && [ "$ops0" = "$ops1" ] &&
    ok "sweep points: the same copies at each size ($ops0 operations)" ||
    bad "sweep points: the same copies at each size" "$ops0 and $ops1 operations"

# ---- errors -----------------------------------------------------------------------
check "run --trace x.txt" 2 "the trace format is csv or perfetto" \
    run --trace x.txt -- ./one_copy
check "run --trace-format xml" 2 "--trace-format xml" \
    run --trace x.csv --trace-format xml -- ./one_copy
check "run --trace-filter when=3" 2 "unknown criterion 'when'" \
    run --trace x.csv --trace-filter when=3 -- ./one_copy
check "run --trace-max 100 (no unit)" 2 "--trace-max 100: a size with a unit" \
    run --trace x.csv --trace-max 100 -- ./one_copy
check "run --stall-threshold 10 (no unit)" 2 "--stall-threshold 10: a time with a unit" \
    run --events x.log --stall-threshold 10 -- ./one_copy
check "run --counters-period 0us" 2 "a time above 0" \
    run --counters x.csv --counters-period 0us -- ./one_copy
check "run --plot without --counters" 2 "give --counters FILE too" \
    run --trace x.csv --plot x.png -- ./one_copy
check "run --trace-format alone" 2 "go with --trace, --events or --counters" \
    run --trace-format csv -- ./one_copy
check "run --trace in a missing directory" 2 "cannot write in $work/nonexistent" \
    run --trace "$work/nonexistent/x.csv" -- ./one_copy
check "bench --trace x.txt" 2 "p2psim bench: --trace x.txt" \
    "$p2psim" bench "$M" --trace x.txt
check "sweep --trace-filter bad" 2 "p2psim sweep: --trace-filter" \
    "$p2psim" sweep "$M" --set size=4KiB --measure 'd2d-bandwidth 0' \
    --trace x.csv --trace-filter kind
for f in x.txt x.csv x.log x.png; do
    [ -e $f ] && bad "no file written on an error" "$f exists"
done
check "trace without a subcommand" 2 "usage: p2psim trace summarize" "$p2psim" trace
check "trace --help" 0 "ui.perfetto.dev" "$p2psim" trace --help
check "trace frobnicate" 2 "unknown subcommand" "$p2psim" trace frobnicate x
check "trace summarize: a missing file" 2 "nofile.csv: cannot read" \
    "$p2psim" trace summarize nofile.csv
check "trace summarize: not a trace" 2 "e.log:1: not a p2psim trace" \
    "$p2psim" trace summarize e.log
check "trace convert: an unknown output format" 2 "say the output format" \
    "$p2psim" trace convert t.csv out.txt
check "trace filter: a bad spec" 2 "unknown criterion 'when'" \
    "$p2psim" trace filter t.csv out.csv when=3
check "trace filter: wrong arguments" 2 "wrong arguments" \
    "$p2psim" trace filter t.csv out.csv
check "trace: an unknown option" 2 "unknown option --frob" \
    "$p2psim" trace summarize t.csv --frob

# ---- untrusted input (issue 18) ------------------------------------------------------
# 300,000 nested arrays overflowed the stack (exit 139): now an error at
# line:column, exit 2, through each command that reads JSON.
deep() { # deep PREFIX SUFFIX: PREFIX, 300000 '[', SUFFIX
    awk -v p="$1" -v s="$2" 'BEGIN { printf "%s", p
        for (i = 0; i < 300000; i++) printf "["; printf "%s\n", s }'
}
deep '{"api_trace":1,"x":' '' > deep.jsonl
check "replay: arrays nested 300000 deep" 2 \
    "deep.jsonl:1:35: objects and arrays nested deeper than 16" \
    "$p2psim" replay deep.jsonl
{ echo '{"otherData":{"p2psim_trace":1},"traceEvents":['
  deep '{"args":' ''; } > deep.json
for sub in "summarize deep.json" "convert deep.json d.csv" "filter deep.json d.csv kind=MWr"; do
    # shellcheck disable=SC2086
    check "trace $sub: arrays nested 300000 deep" 2 \
        "deep.json:2:24: objects and arrays nested deeper than 16" \
        "$p2psim" trace $sub
done
[ -e d.csv ] && bad "no output left by a convert that failed" "d.csv exists"
cp t.csv same.csv
check "trace convert IN IN" 2 "same.csv and ./same.csv are the same file" \
    "$p2psim" trace convert same.csv ./same.csv
check "trace convert IN IN left IN as it was" 0 "" cmp t.csv same.csv
# Times that went through an undefined double-to-integer cast.
check "trace filter from=1e300s" 2 "'1e300s': .*no exponent" \
    "$p2psim" trace filter t.csv x.csv from=1e300s
check "trace filter from=infs" 2 "'infs' is not a time" \
    "$p2psim" trace filter t.csv x.csv from=infs
check "trace filter to=nanus" 2 "'nanus' is not a time" \
    "$p2psim" trace filter t.csv x.csv to=nanus
check "trace filter from=10000000s" 2 "too large" \
    "$p2psim" trace filter t.csv x.csv from=10000000s
check "run --trace-filter from=nanus" 2 "'nanus' is not a time" \
    run --trace x.csv --trace-filter from=nanus -- ./one_copy
check "a CSV field that does not fit: file:line:column" 2 \
    "bad.csv:2:5: bad t_ps '18446744073709551616'" \
    sh -c "printf 'type,t_ps\nhop,18446744073709551616\n' > bad.csv &&
           '$p2psim' trace summarize bad.csv"
# Replay: what a trace says is checked before anything runs (exit 2). A
# 1 GiB pageable copy allocated and zeroed 2 GiB of stand-ins; they are
# mapped now, costing only what the copy touches, within --host-memory.
head='{"api_trace":1,"pid":1,"backend":"sim","program":"x"}'
copy() { # copy COUNT DST: a cudaMemcpy between pageable buffers
    printf '%s\n{"seq":0,"pid":1,"tid":0,"depth":0,"name":"cudaMemcpy","t0_ns":1,"t1_ns":2,"args":{"dst":"%s","src":"0x100000000000","count":%s,"kind":0},"ret":0}\n' \
        "$head" "${2:-0x10000}" "$1"
}
copy 1073741824 > gib.jsonl
check "replay: a 1 GiB pageable copy over --host-memory" 2 \
    "gib.jsonl:2:90: cudaMemcpy: 1073741824 bytes of pageable host memory at 0x10000: more than --host-memory" \
    "$p2psim" replay --host-memory 512MiB gib.jsonl
check "replay: two 1 GiB stand-ins over --host-memory together" 2 \
    "gib.jsonl:2: the pageable host memory the calls use, 2147483648 bytes with the 1073741824 at 0x100000000000, passes --host-memory (1073741824 bytes)" \
    "$p2psim" replay --host-memory 1GiB gib.jsonl
copy 4194304 > mib.jsonl
check "replay: a 4 MiB pageable copy" 0 "^cudaMemcpy  *1 " \
    "$p2psim" replay --topology $machine mib.jsonl
copy 18446744073709551615 > wrap.jsonl
check "replay: a count that wraps the address space" 2 \
    "wrap.jsonl:2:90: cudaMemcpy: 18446744073709551615 bytes at 0x10000 pass the end of the address space" \
    "$p2psim" replay wrap.jsonl
copy '"4096"' > str.jsonl
check "replay: a count that is not a number" 2 \
    "str.jsonl:2:131: cudaMemcpy: args.count is not a size" "$p2psim" replay str.jsonl
copy 1e3 > exp.jsonl
check "replay: a count with an exponent" 2 "args.count is not a size" \
    "$p2psim" replay exp.jsonl
{ echo "$head"
  echo '{"seq":0,"pid":1,"tid":0,"name":"cudaMalloc","t0_ns":1,"t1_ns":2,"args":{"size":4096},"out":{"devPtr":"0x7000000000"},"ret":0}'
  echo '{"seq":1,"pid":1,"tid":0,"name":"cudaMemcpy","t0_ns":3,"t1_ns":4,"args":{"dst":"0x7000000800","src":"0x10000","count":4096,"kind":1},"ret":0}'
} > over.jsonl
check "replay: a copy past the end of its allocation" 2 \
    "over.jsonl:3:80: cudaMemcpy: 4096 bytes at 0x7000000800 pass the end of the allocation at 0x7000000000 (4096 bytes)" \
    "$p2psim" replay over.jsonl
{ echo "$head"
  echo '{"seq":0,"pid":1,"tid":0,"name":"cudaMalloc","t0_ns":1,"t1_ns":2,"args":{"size":0},"out":{"devPtr":"0x7000000000"},"ret":0}'
  echo '{"seq":1,"pid":1,"tid":0,"name":"cudaMemset","t0_ns":3,"t1_ns":4,"args":{"devPtr":"0x7000000000","value":0,"count":16},"ret":0}'
} > zero.jsonl
check "replay: a set in a 0-byte allocation" 2 \
    "zero.jsonl:3:83: cudaMemset: 16 bytes at 0x7000000000 pass the end of the allocation at 0x7000000000 (0 bytes)" \
    "$p2psim" replay zero.jsonl
printf '%s\n{"seq":0,"pid":1,"tid":0,"name":"cudaStreamCreate","t0_ns":1,"t1_ns":2,"args":{},"out":{"stream":16777216},"ret":0}\n' \
    "$head" > id.jsonl
check "replay: a stream id no trace of one call holds" 2 \
    "id.jsonl:2:98: cudaStreamCreate: out.stream = 16777216, more than a trace of 1 calls can hold" \
    "$p2psim" replay id.jsonl
{ echo "$head"; awk 'BEGIN { for (i = 0; i < 1025; i++)
    printf "{\"seq\":%d,\"pid\":1,\"tid\":%d,\"name\":\"cudaGetDevice\",\"t0_ns\":1,\"t1_ns\":2,\"args\":{},\"ret\":0}\n", i, i }'
} > threads.jsonl
check "replay: 1025 recorded threads" 2 \
    "threads.jsonl:1026: more than 1024 recorded threads" "$p2psim" replay threads.jsonl
{ echo "$head"; awk 'BEGIN { for (i = 0; i <= 65536; i++)
    printf "{\"seq\":%d,\"pid\":1,\"tid\":0,\"name\":\"cudaMalloc\",\"t0_ns\":1,\"t1_ns\":2,\"args\":{\"size\":256},\"out\":{\"devPtr\":\"0x%x\"},\"ret\":0}\n", i, 4096 * (i + 1) }'
} > allocs.jsonl
check "replay: 65537 allocations live at once" 2 \
    "allocs.jsonl:65538: cudaMalloc: more than 65536 allocations live at once" \
    "$p2psim" replay allocs.jsonl
printf '%s\n{"seq":0,"pid":1,"tid":-1,"name":"cudaGetDevice","t0_ns":1,"t1_ns":2,"args":{},"ret":0}\n' \
    "$head" > tid.jsonl
check "replay: a negative thread id" 2 \
    "tid.jsonl:2:24: \"tid\" is not an integer from 0 to 2147483647" "$p2psim" replay tid.jsonl
check "replay --pid abc" 2 "--pid abc: a process id" "$p2psim" replay --pid abc mib.jsonl
check "replay --host-memory 12" 2 "--host-memory 12: a size" \
    "$p2psim" replay --host-memory 12 mib.jsonl

# ---- the traces suite under clang's UBSan -----------------------------------------
# GCC's UBSan does not flag NULL + 0, which trace_write.c's buf_add
# computed on every trace write (issue 18); clang's does. Where clang and
# Check's pkg-config file are found, the suite is built with it and run.
cfg_dir=$(cd "$shim/../../.." && pwd -P)
if command -v clang >/dev/null 2>&1 && [ -f "$cfg_dir/config.h" ] &&
   ${PKG_CONFIG:-pkg-config} --exists check 2>/dev/null; then
    # shellcheck disable=SC2046
    check "check_traces builds with clang -fsanitize=undefined" 0 "" \
        clang -std=gnu11 -g -fsanitize=undefined -fno-sanitize-recover=all \
        -I"$cfg_dir" -I"$top" -o "$work/check_traces_ubsan" \
        "$top"/traces/api_trace.c "$top"/traces/text.c \
        "$top"/traces/trace_read.c "$top"/traces/trace_summary.c \
        "$top"/traces/trace_write.c "$top"/tests/check_traces.c \
        "$top"/tests/traces/check_format.c \
        $(${PKG_CONFIG:-pkg-config} --cflags --libs check)
    check "the traces suite is clean under clang's UBSan" 0 \
        "^100%: Checks: [0-9]*, Failures: 0, Errors: 0" \
        env CK_FORK=no "$work/check_traces_ubsan"
else
    echo "no clang or no Check pkg-config: the clang UBSan run skipped"
fi

finish traces-cli
