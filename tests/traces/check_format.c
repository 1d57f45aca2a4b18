/*
 * tests/traces/check_format.c - the fabric trace formats of traces/
 * (format.h) without the simulator: records written as CSV and Perfetto
 * JSON read back field for field, CSV -> Perfetto -> CSV byte for byte,
 * the reader's errors at file:line, the size cap, filters (parsing and
 * matching), the summary of records made by hand, and the event log's
 * ftrace lines; untrusted input (issue 18): the JSON depth limit (300,000
 * nested arrays, in memory), numbers, strings, line and field caps of
 * both readers and of the API trace reader, with line and column in each
 * error. Linked with traces/libtraces.la only (tests/check_traces.c).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check_p2psim.h"
#include "traces/api_trace.h"
#include "traces/format.h"
#include "traces/text.h"

/* ---- helpers ------------------------------------------------------------ */

/* A scratch file name ending in ext (".csv", ".json"). */
static void temp_path(char *path, size_t n, const char *ext)
{
    snprintf(path, n, "/tmp/p2psim-traces-XXXXXX%s", ext);
    int fd = mkstemps(path, (int)strlen(ext));
    ck_assert_int_ge(fd, 0);
    close(fd);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *s = malloc((size_t)len + 1);
    ck_assert_uint_eq(fread(s, 1, (size_t)len, f), (size_t)len);
    s[len] = '\0';
    fclose(f);
    return s;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fputs(text, f);
    fclose(f);
}

/* A hop, an operation and an event with every field set, and text that
 * needs quoting in CSV and escaping in JSON. */
#define N_SAMPLE 4
static void sample_records(struct trace_rec *r)
{
    memset(r, 0, N_SAMPLE * sizeof(*r));
    r[0] = (struct trace_rec){
        .type = TRACE_REC_HOP, .t_ps = 1234567, .dur_ps = 20001, .id = 42,
        .requester = 0x0200, .completer = 0x0310, .tag = 513,
        .addr = UINT64_C(0x38000001000), .bytes = 256, .attr = 2, .hop = 1,
        .t_created_ps = 1000000, .rate = UINT64_C(31507692307),
    };
    TRACE_SET(r[0].kind, "MWr");
    TRACE_SET(r[0].track, "sw0.dp1>sw0.up");
    TRACE_SET(r[0].from, "gpu0.pcie");
    TRACE_SET(r[0].to, "sw0.dp1");
    TRACE_SET(r[0].src, "gpu0");
    TRACE_SET(r[0].dst, "gpu1");
    r[1] = r[0];
    r[1].id = 43;
    r[1].hop = 0;
    TRACE_SET(r[1].kind, "CplD");
    r[2] = (struct trace_rec){
        .type = TRACE_REC_OP, .t_ps = 5, .dur_ps = UINT64_C(9000000000000),
        .id = 1, .tag = 3, .addr = 0x1000, .bytes = UINT64_C(1) << 33,
        .t_created_ps = 1,
    };
    TRACE_SET(r[2].kind, "push");
    TRACE_SET(r[2].track, "gpu0/ce3");
    TRACE_SET(r[2].src, "gpu0");
    TRACE_SET(r[2].dst, "host");
    TRACE_SET(r[2].detail, "tlp\terror");     /* JSON escapes the tab */
    r[3] = (struct trace_rec){ .type = TRACE_REC_EVENT, .t_ps = 777,
                               .requester = 0x0108, .addr = 0xdead000 };
    TRACE_SET(r[3].kind, "bar1_map");
    TRACE_SET(r[3].track, "gpu1");
    TRACE_SET(r[3].from, "pcie");
    TRACE_SET(r[3].detail, "failed: \"full\", 0 of 256 MiB \\ left");
}

static void write_all(const char *path, enum trace_format f,
                      const struct trace_rec *r, unsigned n)
{
    char err[300];
    struct trace_writer *w = trace_writer_open(path, f, 0, err, sizeof(err));
    ck_assert_msg(w != NULL, "%s", err);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_int_eq(trace_writer_put(w, &r[i]), 0);
    }
    ck_assert_int_eq(trace_writer_close(w), 0);
}

/* Read path into r (at most max); the count. */
static unsigned read_all(const char *path, struct trace_rec *r, unsigned max,
                         enum trace_format want)
{
    char err[300];
    struct trace_reader *rd = trace_reader_open(path, err, sizeof(err));
    ck_assert_msg(rd != NULL, "%s", err);
    ck_assert_int_eq(trace_reader_format(rd), want);
    unsigned n = 0;
    int rc;
    while (n < max && (rc = trace_reader_next(rd, &r[n], err,
                                              sizeof(err))) == 1) {
        n++;
    }
    ck_assert_msg(n < max, "more records than expected");
    ck_assert_msg(rc == 0, "%s", err);
    trace_reader_close(rd);
    return n;
}

static void assert_same(const struct trace_rec *a, const struct trace_rec *b)
{
    ck_assert_int_eq(a->type, b->type);
    ck_assert_uint_eq(a->t_ps, b->t_ps);
    ck_assert_uint_eq(a->dur_ps, b->dur_ps);
    ck_assert_uint_eq(a->id, b->id);
    ck_assert_str_eq(a->kind, b->kind);
    ck_assert_uint_eq(a->requester, b->requester);
    ck_assert_uint_eq(a->completer, b->completer);
    ck_assert_uint_eq(a->tag, b->tag);
    ck_assert_uint_eq(a->addr, b->addr);
    ck_assert_uint_eq(a->bytes, b->bytes);
    ck_assert_uint_eq(a->attr, b->attr);
    ck_assert_uint_eq(a->hop, b->hop);
    ck_assert_uint_eq(a->t_created_ps, b->t_created_ps);
    ck_assert_uint_eq(a->rate, b->rate);
    ck_assert_str_eq(a->track, b->track);
    ck_assert_str_eq(a->from, b->from);
    ck_assert_str_eq(a->to, b->to);
    ck_assert_str_eq(a->src, b->src);
    ck_assert_str_eq(a->dst, b->dst);
    ck_assert_str_eq(a->detail, b->detail);
}

/* ---- writing and reading back ------------------------------------------- */

static void round_trip(enum trace_format f, const char *ext)
{
    char path[64];
    temp_path(path, sizeof(path), ext);
    struct trace_rec in[N_SAMPLE], out[N_SAMPLE + 1];
    sample_records(in);
    write_all(path, f, in, N_SAMPLE);
    ck_assert_uint_eq(read_all(path, out, N_SAMPLE + 1, f), N_SAMPLE);
    for (unsigned i = 0; i < N_SAMPLE; i++) {
        assert_same(&in[i], &out[i]);
    }
    unlink(path);
}

START_TEST(test_csv_reads_back_every_field)
{
    round_trip(TRACE_FMT_CSV, ".csv");
}
END_TEST

START_TEST(test_perfetto_reads_back_every_field)
{
    round_trip(TRACE_FMT_PERFETTO, ".json");
}
END_TEST

/* CSV -> Perfetto -> CSV gives the first file again, byte for byte. */
START_TEST(test_csv_perfetto_csv_is_identical)
{
    char a[64], b[64], c[64];
    temp_path(a, sizeof(a), ".csv");
    temp_path(b, sizeof(b), ".json");
    temp_path(c, sizeof(c), ".csv");
    struct trace_rec in[N_SAMPLE], mid[N_SAMPLE + 1], back[N_SAMPLE + 1];
    sample_records(in);
    write_all(a, TRACE_FMT_CSV, in, N_SAMPLE);
    unsigned n = read_all(a, mid, N_SAMPLE + 1, TRACE_FMT_CSV);
    write_all(b, TRACE_FMT_PERFETTO, mid, n);
    n = read_all(b, back, N_SAMPLE + 1, TRACE_FMT_PERFETTO);
    write_all(c, TRACE_FMT_CSV, back, n);
    char *ta = slurp(a), *tc = slurp(c);
    ck_assert_str_eq(ta, tc);
    free(ta);
    free(tc);
    unlink(a);
    unlink(b);
    unlink(c);
}
END_TEST

/* Columns in another order, an extra one, blank and comment lines. */
START_TEST(test_csv_columns_in_any_order)
{
    char path[64];
    temp_path(path, sizeof(path), ".csv");
    spit(path, "note,bytes,kind,t_ps,type,track\n"
               "# a comment\n"
               "\n"
               "hello,64,MWr,10,hop,\"a.p>b.q\"\n"
               "x,\"1\",iommu_fault,20,event,\"rc, \"\"zero\"\"\"\n");
    struct trace_rec r[3];
    ck_assert_uint_eq(read_all(path, r, 3, TRACE_FMT_CSV), 2);
    ck_assert_int_eq(r[0].type, TRACE_REC_HOP);
    ck_assert_uint_eq(r[0].bytes, 64);
    ck_assert_uint_eq(r[0].t_ps, 10);
    ck_assert_str_eq(r[0].kind, "MWr");
    ck_assert_str_eq(r[0].track, "a.p>b.q");
    ck_assert_int_eq(r[1].type, TRACE_REC_EVENT);
    ck_assert_str_eq(r[1].track, "rc, \"zero\"");
    unlink(path);
}
END_TEST

/* Each bad file is refused with its name, and the line where it can. */
START_TEST(test_reader_errors)
{
    char path[64], err[300];
    temp_path(path, sizeof(path), ".csv");
    ck_assert(trace_reader_open("/nonexistent/t.csv", err, sizeof(err)) ==
              NULL);
    ck_assert_msg(strstr(err, "/nonexistent/t.csv: cannot read"), "%s", err);

    spit(path, "");
    ck_assert(trace_reader_open(path, err, sizeof(err)) == NULL);
    ck_assert_msg(strstr(err, "empty file"), "%s", err);

    spit(path, "a,b,c\n1,2,3\n");
    ck_assert(trace_reader_open(path, err, sizeof(err)) == NULL);
    ck_assert_msg(strstr(err, ":1: not a p2psim trace"), "%s", err);

    spit(path, "{\"traceEvents\":[]}\n");
    ck_assert(trace_reader_open(path, err, sizeof(err)) == NULL);
    ck_assert_msg(strstr(err, ":1: a JSON trace, but not one p2psim wrote"),
                  "%s", err);

    spit(path, "type,t_ps,bytes\nhop,1,2\nhop,3,many\n");
    struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
    ck_assert(r != NULL);
    struct trace_rec rec;
    ck_assert_int_eq(trace_reader_next(r, &rec, err, sizeof(err)), 1);
    ck_assert_int_eq(trace_reader_next(r, &rec, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, ":3:7: bad bytes 'many'"), "%s", err);
    trace_reader_close(r);

    spit(path, "type,t_ps\nflit,1\n");
    r = trace_reader_open(path, err, sizeof(err));
    ck_assert(r != NULL);
    ck_assert_int_eq(trace_reader_next(r, &rec, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, ":2:1: bad type 'flit'"), "%s", err);
    trace_reader_close(r);

    spit(path, "{\"otherData\":{\"p2psim_trace\":1},\"traceEvents\":[\n"
               ",{\"ph\":\"X\",\"args\":{\"type\":\"hop\",\n");
    r = trace_reader_open(path, err, sizeof(err));
    ck_assert(r != NULL);
    ck_assert_int_eq(trace_reader_next(r, &rec, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, ":2:33: expected a string"), "%s", err);
    trace_reader_close(r);
    unlink(path);
}
END_TEST

/* The cap refuses the first record that would pass it and all after; the
 * JSON file still ends properly and stays under the cap. */
START_TEST(test_size_cap)
{
    static const struct { enum trace_format f; const char *ext; } fm[] = {
        { TRACE_FMT_CSV, ".csv" }, { TRACE_FMT_PERFETTO, ".json" },
    };
    for (unsigned k = 0; k < 2; k++) {
        char path[64], err[300];
        temp_path(path, sizeof(path), fm[k].ext);
        struct trace_rec in[N_SAMPLE];
        sample_records(in);
        const uint64_t cap = 1500;
        struct trace_writer *w = trace_writer_open(path, fm[k].f, cap, err,
                                                   sizeof(err));
        ck_assert(w != NULL);
        unsigned written = 0, refused = 0;
        for (unsigned i = 0; i < 40; i++) {
            int rc = trace_writer_put(w, &in[i % 2]);
            ck_assert_int_ge(rc, 0);
            if (rc == 0) {
                ck_assert_uint_eq(refused, 0);      /* none after the first */
                written++;
            } else {
                refused++;
            }
        }
        ck_assert_uint_gt(written, 0);
        ck_assert_uint_gt(refused, 0);
        ck_assert(trace_writer_is_capped(w));
        ck_assert_uint_eq(trace_writer_dropped(w), refused);
        ck_assert_uint_le(trace_writer_bytes(w), cap);
        ck_assert_int_eq(trace_writer_close(w), 0);
        char *text = slurp(path);
        ck_assert_uint_le(strlen(text), cap);
        if (fm[k].f == TRACE_FMT_PERFETTO) {
            size_t len = strlen(text);
            ck_assert(len > 4 && !strcmp(text + len - 4, "\n]}\n"));
        }
        free(text);
        struct trace_rec out[64];
        ck_assert_uint_eq(read_all(path, out, 64, fm[k].f), written);
        unlink(path);
    }
}
END_TEST

/* A request's last hop and its completion's first are joined by a flow,
 * matched by requester and tag; a completion for another tag is not. */
START_TEST(test_perfetto_flow_joins_request_and_completion)
{
    char path[64];
    temp_path(path, sizeof(path), ".json");
    struct trace_rec r[N_SAMPLE];
    sample_records(r);
    TRACE_SET(r[0].kind, "MRd");
    r[0].bytes = 0;
    r[1].tag = r[0].tag;
    r[1].t_ps = r[0].t_ps + 500000;
    r[2] = r[1];
    r[2].tag = r[0].tag + 1;
    write_all(path, TRACE_FMT_PERFETTO, r, 3);
    char *text = slurp(path);
    unsigned s = 0, f = 0, named = 0;
    for (char *p = text; (p = strstr(p, "\"ph\":\"")); p++) {
        s += p[6] == 's';
        f += p[6] == 'f';
        named += !strncmp(p, "\"ph\":\"M\",\"name\":\"thread_name\"", 29);
    }
    ck_assert_uint_eq(s, 1);
    ck_assert_uint_eq(f, 1);
    ck_assert_uint_eq(named, 1);        /* one track: all on one link */
    ck_assert(strstr(text, "\"ts\":1.234567,") != NULL);   /* ps exact */
    free(text);
    unlink(path);
}
END_TEST

START_TEST(test_format_names)
{
    ck_assert_int_eq(trace_format_of_path("a/b.csv"), TRACE_FMT_CSV);
    ck_assert_int_eq(trace_format_of_path("t.json"), TRACE_FMT_PERFETTO);
    ck_assert_int_eq(trace_format_of_path("t.txt"), -1);
    ck_assert_int_eq(trace_format_of_path("dir.csv/t"), -1);
    ck_assert_int_eq(trace_format_find("perfetto"), TRACE_FMT_PERFETTO);
    ck_assert_int_eq(trace_format_find("json"), TRACE_FMT_PERFETTO);
    ck_assert_int_eq(trace_format_find("xml"), -1);
    ck_assert_int_eq(trace_rec_type_find("event"), TRACE_REC_EVENT);
    ck_assert_int_eq(trace_rec_type_find("flit"), -1);
}
END_TEST

/* ---- filters ------------------------------------------------------------ */

START_TEST(test_parse_time)
{
    uint64_t ps;
    char why[200];
    ck_assert_int_eq(trace_parse_time("700ps", &ps, why, sizeof(why)), 0);
    ck_assert_uint_eq(ps, 700);
    ck_assert_int_eq(trace_parse_time("12.5us", &ps, why, sizeof(why)), 0);
    ck_assert_uint_eq(ps, 12500000);
    ck_assert_int_eq(trace_parse_time("3ms", &ps, why, sizeof(why)), 0);
    ck_assert_uint_eq(ps, UINT64_C(3000000000));
    ck_assert_int_eq(trace_parse_time("2s", &ps, why, sizeof(why)), 0);
    ck_assert_uint_eq(ps, UINT64_C(2000000000000));
    ck_assert_int_eq(trace_parse_time("1.000000000001s", &ps, why,
                                      sizeof(why)), 0);
    ck_assert_uint_eq(ps, UINT64_C(1000000000001));
    ck_assert_int_eq(trace_parse_time("10000000.0000000000000000ps", &ps,
                                      why, sizeof(why)), 0);
    ck_assert_uint_eq(ps, 10000000);
    ck_assert_int_eq(trace_parse_time("9223372036854775807ps", &ps, why,
                                      sizeof(why)), 0);
    ck_assert_uint_eq(ps, TRACE_TIME_MAX);
    ck_assert_int_eq(trace_parse_time("10", &ps, NULL, 0), -1);
    ck_assert_int_eq(trace_parse_time("10 us", &ps, NULL, 0), -1);
    ck_assert_int_eq(trace_parse_time("-1ns", &ps, NULL, 0), -1);
    ck_assert_int_eq(trace_parse_time("us", &ps, NULL, 0), -1);
    /* Issue 18: these went through an undefined double-to-integer
     * conversion (1e300s read as 0), and nan was a time. */
    static const struct { const char *s, *says; } bad[] = {
        { "1e300s", "no exponent" },
        { "1e3ns", "no exponent" },
        { "infs", "is not a time" },
        { "inf", "is not a time" },
        { "nanus", "is not a time" },
        { "9223372036854775808ps", "too large" },
        { "9223373s", "too large" },
        { "99999999999999999999999999999999999999999999999999s",
          "too large" },
        { "0.5ps", "not a whole number of ps" },
        { "0.0000000000001s", "more than 12 decimals" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why[0] = '\0';
        ck_assert_int_eq(trace_parse_time(bad[i].s, &ps, why, sizeof(why)),
                         -1);
        ck_assert_msg(strstr(why, bad[i].says), "%s: %s", bad[i].s, why);
    }
}
END_TEST

START_TEST(test_filter_parse_errors)
{
    static const struct { const char *spec, *says; } bad[] = {
        { "when=3", "unknown criterion 'when'" },
        { "kind", "'kind' is not NAME=VALUE" },
        { "from=10", "a time takes a unit" },
        { "from=1e300s", "no exponent" },
        { "to=nan", "is not a time" },
        { "from=1000000000s", "too large" },
        { "from=5us,to=1us", "ends (to) before it starts" },
        { "pair=gpu0", "bad pair 'gpu0'" },
        { "kind=a+b+c+d+e+f+g+h+i", "at most 8 items" },
        { "component=", "bad component ''" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct trace_filter f;
        char err[300];
        ck_assert_int_eq(trace_filter_parse(bad[i].spec, &f, err,
                                            sizeof(err)), -1);
        ck_assert_msg(strstr(err, bad[i].says), "%s: %s", bad[i].spec, err);
    }
}
END_TEST

START_TEST(test_filter_match)
{
    struct trace_filter f;
    char err[300];
    struct trace_rec r[N_SAMPLE];
    sample_records(r);
    /* Empty: everything. */
    ck_assert_int_eq(trace_filter_parse("", &f, err, sizeof(err)), 0);
    for (unsigned i = 0; i < N_SAMPLE; i++) {
        ck_assert(trace_filter_match(&f, &r[i]));
    }
    /* Kinds. */
    ck_assert_int_eq(trace_filter_parse("kind=CplD+bar1_map", &f, err,
                                        sizeof(err)), 0);
    ck_assert(!trace_filter_match(&f, &r[0]));
    ck_assert(trace_filter_match(&f, &r[1]));
    ck_assert(!trace_filter_match(&f, &r[2]));
    ck_assert(trace_filter_match(&f, &r[3]));
    /* A component names a whole component, at either end or the track. */
    ck_assert_int_eq(trace_filter_parse("component=sw0", &f, err,
                                        sizeof(err)), 0);
    ck_assert(trace_filter_match(&f, &r[0]));
    ck_assert(!trace_filter_match(&f, &r[2]));
    TRACE_SET(r[0].track, "sw01.dp1>sw01.up");
    TRACE_SET(r[0].to, "sw01.dp1");
    ck_assert(!trace_filter_match(&f, &r[0]));
    ck_assert_int_eq(trace_filter_parse("component=gpu0", &f, err,
                                        sizeof(err)), 0);
    ck_assert(trace_filter_match(&f, &r[0]));           /* from gpu0.pcie */
    ck_assert(trace_filter_match(&f, &r[2]));           /* gpu0/ce3 */
    ck_assert(!trace_filter_match(&f, &r[3]));
    /* A pair, either way round. */
    ck_assert_int_eq(trace_filter_parse("pair=gpu1:gpu0", &f, err,
                                        sizeof(err)), 0);
    ck_assert(trace_filter_match(&f, &r[0]));
    ck_assert(!trace_filter_match(&f, &r[2]));          /* gpu0 -> host */
    /* A window overlaps [t_ps, t_ps + dur_ps]. */
    ck_assert_int_eq(trace_filter_parse("from=1254568ps", &f, err,
                                        sizeof(err)), 0);
    ck_assert(trace_filter_match(&f, &r[0]));           /* ends 1254568 */
    ck_assert_int_eq(trace_filter_parse("from=1254569ps", &f, err,
                                        sizeof(err)), 0);
    ck_assert(!trace_filter_match(&f, &r[0]));
    ck_assert_int_eq(trace_filter_parse("from=0ps,to=1us", &f, err,
                                        sizeof(err)), 0);
    ck_assert(!trace_filter_match(&f, &r[0]));          /* starts 1.23 us */
    ck_assert(trace_filter_match(&f, &r[3]));
    /* All criteria at once. */
    ck_assert_int_eq(trace_filter_parse("kind=MWr,pair=gpu0:gpu1,"
                                        "component=gpu0,to=2us", &f, err,
                                        sizeof(err)), 0);
    ck_assert(trace_filter_match(&f, &r[0]));
    ck_assert(!trace_filter_match(&f, &r[1]));
}
END_TEST

/* ---- the summary and the event log -------------------------------------- */

/* Two TLPs of 4 KiB over two hops each and an event: per-link bytes and
 * TLPs, the utilisation from the rate over the span, latencies. */
START_TEST(test_summary_of_known_records)
{
    char path[64];
    temp_path(path, sizeof(path), ".csv");
    struct trace_rec r[6];
    memset(r, 0, sizeof(r));
    for (unsigned i = 0; i < 4; i++) {
        r[i].type = TRACE_REC_HOP;
        r[i].id = i / 2;
        r[i].hop = i % 2;
        r[i].bytes = 4096;
        r[i].rate = UINT64_C(8192000000);       /* 4096 B in 500 ns */
        r[i].t_created_ps = (i / 2) * 500000;
        r[i].t_ps = r[i].t_created_ps + (i % 2) * 600000;
        r[i].dur_ps = 500000;
        TRACE_SET(r[i].kind, "MWr");
        TRACE_SET(r[i].track, i % 2 ? "b.x>c.y" : "a.p>b.q");
    }
    r[4] = (struct trace_rec){ .type = TRACE_REC_OP, .t_ps = 0,
                               .dur_ps = 1600000, .bytes = 8192 };
    TRACE_SET(r[4].kind, "push");
    TRACE_SET(r[4].track, "a/ce0");
    r[5] = (struct trace_rec){ .type = TRACE_REC_EVENT, .t_ps = 3 };
    TRACE_SET(r[5].kind, "iommu_fault");
    write_all(path, TRACE_FMT_CSV, r, 6);
    char err[300];
    struct trace_reader *rd = trace_reader_open(path, err, sizeof(err));
    ck_assert(rd != NULL);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ck_assert_int_eq(trace_summarize(rd, f, err, sizeof(err)), 0);
    fclose(f);
    trace_reader_close(rd);
    /* Span 0 .. 1.6 us; each link 8192 B at 8.192 GB/s: 1 us of 1.6. */
    ck_assert_msg(strstr(out, "records: 6, span 1.600 us"), "%s", out);
    unsigned links = 0;
    char *save, *line = strtok_r(out, "\n", &save);
    bool in_lat = false, mwr = false;
    for (; line; line = strtok_r(NULL, "\n", &save)) {
        char track[64];
        unsigned long long bytes, tlps;
        double util;
        if (sscanf(line, " %63s %llu %llu %lf%%", track, &bytes, &tlps,
                   &util) == 4 && strchr(track, '>')) {
            ck_assert_uint_eq(bytes, 8192);
            ck_assert_uint_eq(tlps, 2);
            ck_assert_msg(util > 62.4 && util < 62.6, "%s", line);
            links++;
        }
        if (strstr(line, "a/ce0")) {
            ck_assert(sscanf(line, " %63s %llu %llu", track, &bytes,
                             &tlps) == 3);
            ck_assert_uint_eq(bytes, 8192);
            ck_assert_uint_eq(tlps, 1);
        }
        in_lat |= strstr(line, "TLP latency") != NULL;
        if (in_lat && strstr(line, "MWr")) {
            /* Both TLPs: created to the end of hop 1, 1100 ns. */
            ck_assert_msg(strstr(line, "2 TLPs  min 1100.0  mean 1100.0  "
                                       "max 1100.0"), "%s", line);
            mwr = true;
        }
        if (strstr(line, "iommu_fault")) {
            ck_assert(strstr(line, " 1"));
        }
    }
    ck_assert_uint_eq(links, 2);
    ck_assert(mwr);
    free(out);
    unlink(path);
}
END_TEST

START_TEST(test_ftrace_line)
{
    struct trace_rec r[N_SAMPLE];
    sample_records(r);
    r[3].t_ps = UINT64_C(3775000);
    r[3].dur_ps = 0;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ck_assert_int_eq(trace_write_ftrace(f, &r[3]), 0);
    fclose(f);
    ck_assert_str_eq(out, "  p2psim  [000]  0.000003775000: bar1_map: "
                          "gpu1.pcie addr=0xdead000 requester=01:01.0 "
                          "failed: \"full\", 0 of 256 MiB \\ left\n");
    free(out);
}
END_TEST

/* ---- untrusted input ------------------------------------------------------ */

/* text: n copies of open, then tail. */
static char *repeat(const char *head, const char *open, size_t n,
                    const char *tail)
{
    size_t hl = strlen(head), ol = strlen(open), tl = strlen(tail);
    char *s = malloc(hl + n * ol + tl + 1);
    ck_assert(s != NULL);
    memcpy(s, head, hl);
    for (size_t i = 0; i < n; i++) {
        memcpy(s + hl + i * ol, open, ol);
    }
    memcpy(s + hl + n * ol, tail, tl + 1);
    return s;
}

/* Issue 18: 300,000 nested arrays overflowed the stack (skip_array had no
 * limit; objects stopped at 9). One limit now, for both, with a column. */
START_TEST(test_json_depth_limit)
{
    char err[300];
    struct trace_api_field *f;
    size_t n;
    static const char *const opens[] = { "[", "{\"a\":", "[{\"a\":" };
    for (unsigned k = 0; k < 3; k++) {
        char *deep = repeat("{\"x\":", opens[k], 300000, "1");
        err[0] = '\0';
        ck_assert_int_eq(trace_json_flatten(deep, &f, &n, err, sizeof(err)),
                         -1);
        ck_assert_msg(strstr(err, "nested deeper than 16"), "%s", err);
        struct trace_api_call c;
        struct trace_api_header h;
        ck_assert_int_eq(trace_api_parse_line(deep, &c, &h, err,
                                              sizeof(err)), -1);
        ck_assert_msg(strstr(err, "nested deeper than 16"), "%s", err);
        free(deep);
    }
    /* The column is where the 17th level opens: after {"x": and 15 '['. */
    char *deep = repeat("{\"x\":", "[", 300000, "");
    ck_assert_int_eq(trace_json_flatten(deep, &f, &n, err, sizeof(err)), -1);
    ck_assert_msg(strncmp(err, "21: ", 4) == 0, "%s", err);
    free(deep);
    /* 16 deep is accepted, 17 not: arrays and objects count alike. */
    char *ok = repeat("{\"x\":", "[", 7, "");
    char *t = repeat(ok, "{\"a\":", 8, "1}}}}}}}}]]]]]]]}");
    ck_assert_msg(trace_json_flatten(t, &f, &n, err, sizeof(err)) == 0, "%s",
                  err);
    trace_json_fields_free(f, n);
    free(t);
    t = repeat(ok, "{\"a\":", 9, "1}}}}}}}}}]]]]]]]}");
    ck_assert_int_eq(trace_json_flatten(t, &f, &n, err, sizeof(err)), -1);
    free(t);
    free(ok);
}
END_TEST

/* Numbers follow JSON's grammar; strings their escapes. */
START_TEST(test_json_values)
{
    static const struct { const char *text, *says; } bad[] = {
        { "{\"a\":1.}", "6: bad value" },
        { "{\"a\":--1}", "bad value" },
        { "{\"a\":+1}", "bad value" },
        { "{\"a\":1e}", "bad value" },
        { "{\"a\":01}", "expected ',' or '}'" },
        { "{\"a\":nulls}", "bad value" },
        { "{\"a\":\"\\x\"}", "7: unknown escape '\\x'" },
        { "{\"a\":\"\\u12\"}", "four hex digits" },
        { "{\"a\":\"\\u0000\"}", "NUL character" },
        { "{\"a\":\"\\ud800\"}", "without its low half" },
        { "{\"a\":\"\\udc00\"}", "lone low surrogate" },
        { "{\"a\":\"abc}", "6: unterminated string" },
        { "{\"a\":", "the line ends" },
        { "{\"a\":[1,2}", "expected ',' or ']'" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct trace_api_field *f;
        size_t n;
        char err[300] = "";
        ck_assert_int_eq(trace_json_flatten(bad[i].text, &f, &n, err,
                                            sizeof(err)), -1);
        ck_assert_msg(strstr(err, bad[i].says), "%s: %s", bad[i].text, err);
    }
    /* A key of 255 bytes with its parents' is the longest. */
    char key[300];
    memset(key, 'k', 253);
    key[253] = '\0';
    char line[400];
    snprintf(line, sizeof(line), "{\"a\":{\"%s\":1}}", key);
    struct trace_api_field *f;
    size_t n;
    char err[300] = "";
    ck_assert_msg(trace_json_flatten(line, &f, &n, err, sizeof(err)) == 0,
                  "%s", err);
    ck_assert_uint_eq(strlen(f[0].key), 255);
    ck_assert_uint_eq(f[0].col, 263);
    trace_json_fields_free(f, n);
    snprintf(line, sizeof(line), "{\"a\":{\"%sk\":1}}", key);
    ck_assert_int_eq(trace_json_flatten(line, &f, &n, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "7: key longer than 255"), "%s", err);
    /* Escapes: the recorder's bytes, UTF-8 above, a surrogate pair. */
    ck_assert(trace_json_flatten("{\"s\":\"\\u00e9\\u20ac\\ud83d\\ude00"
                                 "\\\"\\/\"}", &f, &n, err, sizeof(err)) == 0);
    ck_assert_str_eq(f[0].text, "\xe9\xe2\x82\xac\xf0\x9f\x98\x80\"/");
    trace_json_fields_free(f, n);
    /* At most 256 values in a line. */
    char *many = repeat("{", "\"a\":1,", 256, "\"b\":2}");
    ck_assert_int_eq(trace_json_flatten(many, &f, &n, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "more than 256 values"), "%s", err);
    free(many);
    many = repeat("{", "\"a\":1,", 255, "\"b\":2}");
    ck_assert(trace_json_flatten(many, &f, &n, err, sizeof(err)) == 0);
    ck_assert_uint_eq(n, 256);
    trace_json_fields_free(f, n);
    free(many);
}
END_TEST

/* An API trace call's fixed fields must fit their types: no cast, no
 * clamp. And the argument getters refuse what does not fit. */
START_TEST(test_api_call_ranges)
{
    static const char *const good =
        "{\"seq\":1,\"pid\":7,\"tid\":0,\"t0_ns\":5,\"t1_ns\":6,"
        "\"name\":\"cudaFree\",\"args\":{\"devPtr\":\"0xffffffffffffffff\","
        "\"big\":18446744073709551615,\"neg\":-9223372036854775808,"
        "\"f\":1.5},\"ret\":0}";
    struct trace_api_call c;
    struct trace_api_header h;
    char err[300];
    ck_assert_msg(trace_api_parse_line(good, &c, &h, err, sizeof(err)) == 0,
                  "%s", err);
    int64_t i;
    uint64_t u;
    ck_assert(trace_api_get_i64(&c, "args.devPtr", &i) && i == -1);
    ck_assert(trace_api_get_u64(&c, "args.devPtr", &u) && u == UINT64_MAX);
    ck_assert(!trace_api_get_i64(&c, "args.big", &i));
    ck_assert(trace_api_get_u64(&c, "args.big", &u) && u == UINT64_MAX);
    ck_assert(trace_api_get_i64(&c, "args.neg", &i) && i == INT64_MIN);
    ck_assert(!trace_api_get_u64(&c, "args.neg", &u));
    ck_assert(!trace_api_get_i64(&c, "args.f", &i));
    trace_api_call_fini(&c);
    static const struct { const char *from, *to, *says; } bad[] = {
        { "\"tid\":0", "\"tid\":-1", "24: \"tid\" is not an integer from 0 "
                                     "to 2147483647" },
        { "\"tid\":0", "\"tid\":2147483648", "\"tid\" is not an integer" },
        { "\"pid\":7", "\"pid\":\"7\"", "\"pid\" is not an integer" },
        { "\"seq\":1", "\"seq\":1.5", "\"seq\" is not an integer" },
        { "\"seq\":1", "\"seq\":18446744073709551616", "\"seq\" is not" },
        { "\"t1_ns\":6", "\"t1_ns\":4", "1: t1_ns is before t0_ns" },
        { "\"t0_ns\":5", "\"t0_ns\":9223372036854775808", "\"t0_ns\" is not" },
        { "\"t0_ns\":5", "\"t0_ns\":5,\"sim0_ps\":3", "sim0_ps without "
                                                     "sim1_ps" },
        { "\"name\":\"cudaFree\"", "\"name\":3", "\"name\" is not a string" },
        { "\"ret\":0}", "\"ret\":0} x", "text after the object" },
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        char line[600];
        const char *at = strstr(good, bad[k].from);
        ck_assert(at != NULL);
        snprintf(line, sizeof(line), "%.*s%s%s", (int)(at - good), good,
                 bad[k].to, at + strlen(bad[k].from));
        err[0] = '\0';
        ck_assert_int_eq(trace_api_parse_line(line, &c, &h, err,
                                              sizeof(err)), -1);
        ck_assert_msg(strstr(err, bad[k].says), "%s: %s", line, err);
    }
}
END_TEST

/* A file's errors say file:line:column; lines have a cap, NUL bytes are
 * refused (they used to cut the line short). */
START_TEST(test_api_read_errors)
{
    static const char head[] = "{\"api_trace\":1,\"pid\":1,\"backend\":\"sim\","
                               "\"program\":\"x\"}\n";
    struct trace_api_file f;
    char err[400];
    char text[600];
    snprintf(text, sizeof(text), "%s\n{\"seq\":0,\"pid\":1,\"tid\":0,"
             "\"t0_ns\":1,\"t1_ns\":2,\"name\":\"cudaFree\",\"args\":"
             "{\"devPtr\":[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]}}\n", head);
    FILE *m = fmemopen(text, strlen(text), "r");
    ck_assert_int_eq(trace_api_read_stream(m, "t.jsonl", &f, err,
                                           sizeof(err)), -1);
    fclose(m);
    trace_api_free(&f);
    ck_assert_msg(strstr(err, "t.jsonl:3:95: objects and arrays nested "
                              "deeper than 16"), "%s", err);
    size_t len = TRACE_TEXT_LINE_MAX + 200;
    char *big = malloc(len + 1);
    memset(big, ' ', len);
    memcpy(big, head, strlen(head));
    big[len - 1] = '\n';
    big[len] = '\0';
    m = fmemopen(big, len, "r");
    ck_assert_int_eq(trace_api_read_stream(m, "t.jsonl", &f, err,
                                           sizeof(err)), -1);
    fclose(m);
    trace_api_free(&f);
    ck_assert_msg(strstr(err, "t.jsonl:2:1048577: line longer than 1048576 "
                              "bytes"), "%s", err);
    free(big);
    char nul[] = "{\"api_trace\":1,\"pid\":1}\n{\"seq\":0\0,\"x\":1}\n";
    m = fmemopen(nul, sizeof(nul) - 1, "r");
    ck_assert_int_eq(trace_api_read_stream(m, "t.jsonl", &f, err,
                                           sizeof(err)), -1);
    fclose(m);
    trace_api_free(&f);
    ck_assert_msg(strstr(err, "t.jsonl:2:9: a NUL byte"), "%s", err);
}
END_TEST

/* The fabric trace readers: the same depth limit through the Perfetto
 * reader, and every field checked against its type and size. */
START_TEST(test_reader_limits)
{
    static const char json_head[] =
        "{\"otherData\":{\"p2psim_trace\":1},\"traceEvents\":[\n";
    char *deep = repeat(json_head, "[", 300000, "\n");
    char *line = repeat("{\"args\":", "", 0, "");
    free(line);
    /* ,{"args":[[[... on line 2 */
    char *text = repeat(json_head, "", 0, ",{\"args\":");
    char *all = repeat(text, "[", 300000, "\n]}\n");
    free(text);
    free(deep);
    char err[400];
    struct trace_rec rec;
    FILE *m = fmemopen(all, strlen(all), "r");
    struct trace_reader *r = trace_reader_open_stream(m, "t.json", err,
                                                      sizeof(err));
    ck_assert_msg(r != NULL, "%s", err);
    ck_assert_int_eq(trace_reader_next(r, &rec, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "t.json:2:25: objects and arrays nested deeper "
                              "than 16"), "%s", err);
    trace_reader_close(r);
    fclose(m);
    free(all);

    static const struct { const char *text, *says; } bad[] = {
        { "type,t_ps\nhop,-1\n", "t.csv:2:5: bad t_ps '-1'" },
        { "type,t_ps\nhop, 1\n", "t.csv:2:5: bad t_ps ' 1'" },
        { "type,t_ps\nhop,9223372036854775808\n", "bad t_ps" },
        { "type,t_ps,dur_ps\nhop,9223372036854775807,1\n",
          "t.csv:2: t_ps + dur_ps passes" },
        { "type,t_ps,tag\nhop,1,4294967296\n", "t.csv:2:7: bad tag" },
        { "type,t_ps,requester\nhop,1,100:00.0\n", "bad requester" },
        { "type,t_ps,requester\nhop,1,01:20.0\n", "bad requester" },
        { "type,t_ps,requester\nhop,1,01:00.8\n", "bad requester" },
        { "type,t_ps,requester\nhop,1,65536\n", "bad requester" },
        { "type,t_ps,addr\nhop,1,0x\n", "bad addr" },
        { "type,t_ps,kind\nhop,1,MWrMWrMWrMWrMWrM\n",
          "bad kind 'MWrMWrMWrMWrMWrM' (at most 15 bytes)" },
        { "type,t_ps\nhop,1,2\n", "t.csv:2:7: more fields than the header" },
        { "type,t_ps,kind\nhop,1\n", "t.csv:2: 2 fields, the header has 3" },
        { "type,t_ps,kind\nhop,1,\"MWr\n", "t.csv:2:7: a quote not closed" },
        { "type,t_ps,kind\nhop,1,\"MWr\"x\n", "t.csv:2:12: text after a "
                                              "closing quote" },
        { "type,t_ps,a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z,"
          "A,B,C,D,E\n", "t.csv:1:71: not a p2psim trace: more fields" },
        { "{\"otherData\":{\"p2psim_trace\":1},\"traceEvents\":[\n"
          "garbage\n", "t.csv:2:1: not a trace event" },
        { "{\"otherData\":{\"p2psim_trace\":1},\"traceEvents\":[\n"
          ",{\"args\":{\"type\":\"hop\",\"t_ps\":1}} x\n",
          "t.csv:2:35: text after the event's object" },
        { "{\"otherData\":{\"p2psim_trace\":1},\"traceEvents\":[\n"
          ",{\"args\":{\"type\":\"hop\",\"t_ps\":-1}}\n",
          "t.csv:2:31: bad args.t_ps" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char path[64];
        temp_path(path, sizeof(path), ".csv");
        spit(path, bad[i].text);
        err[0] = '\0';
        m = fopen(path, "r");
        r = trace_reader_open_stream(m, "t.csv", err, sizeof(err));
        int rc = -1;
        if (r) {
            while ((rc = trace_reader_next(r, &rec, err, sizeof(err))) == 1) {
            }
            trace_reader_close(r);
        }
        fclose(m);
        unlink(path);
        ck_assert_msg(rc == -1, "%s: accepted", bad[i].text);
        ck_assert_msg(strstr(err, bad[i].says), "%s: %s", bad[i].text, err);
    }
    /* The widest values that fit are read back as they are. */
    char path[64];
    temp_path(path, sizeof(path), ".csv");
    spit(path, "type,t_ps,dur_ps,id,tag,requester,addr,kind\n"
               "hop,9223372036854775806,1,18446744073709551615,4294967295,"
               "ff:1f.7,0xffffffffffffffff,MWrMWrMWrMWrMWr\n");
    struct trace_rec one[2];
    ck_assert_uint_eq(read_all(path, one, 2, TRACE_FMT_CSV), 1);
    ck_assert_uint_eq(one[0].id, UINT64_MAX);
    ck_assert_uint_eq(one[0].tag, UINT32_MAX);
    ck_assert_uint_eq(one[0].requester, 0xffff);
    ck_assert_uint_eq(one[0].addr, UINT64_MAX);
    /* The summary keeps the TLP of id 2^64 - 1 (0 marked empty slots). */
    struct trace_reader *rd = trace_reader_open(path, err, sizeof(err));
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    ck_assert_int_eq(trace_summarize(rd, o, err, sizeof(err)), 0);
    fclose(o);
    trace_reader_close(rd);
    ck_assert_msg(strstr(out, "MWrMWrMWrMWrMWr          1 TLPs"), "%s", out);
    free(out);
    /* Sums past 64 bits are an error, not a wrapped number. */
    spit(path, "type,t_ps,bytes,track\nop,1,18446744073709551615,a\n"
               "op,2,1,a\n");
    rd = trace_reader_open(path, err, sizeof(err));
    o = open_memstream(&out, &len);
    ck_assert_int_eq(trace_summarize(rd, o, err, sizeof(err)), -1);
    fclose(o);
    free(out);
    trace_reader_close(rd);
    ck_assert_msg(strstr(err, "pass 64 bits"), "%s", err);
    unlink(path);
}
END_TEST

Suite *make_traces_format_suite(void)
{
    Suite *s = suite_create("traces");
    TCase *tc = tcase_create("Format");
    tcase_add_test(tc, test_csv_reads_back_every_field);
    tcase_add_test(tc, test_perfetto_reads_back_every_field);
    tcase_add_test(tc, test_csv_perfetto_csv_is_identical);
    tcase_add_test(tc, test_csv_columns_in_any_order);
    tcase_add_test(tc, test_reader_errors);
    tcase_add_test(tc, test_size_cap);
    tcase_add_test(tc, test_perfetto_flow_joins_request_and_completion);
    tcase_add_test(tc, test_format_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("Filter");
    tcase_add_test(tc, test_parse_time);
    tcase_add_test(tc, test_filter_parse_errors);
    tcase_add_test(tc, test_filter_match);
    suite_add_tcase(s, tc);
    tc = tcase_create("Summary");
    tcase_add_test(tc, test_summary_of_known_records);
    tcase_add_test(tc, test_ftrace_line);
    suite_add_tcase(s, tc);
    tc = tcase_create("Limits");
    tcase_add_test(tc, test_json_depth_limit);
    tcase_add_test(tc, test_json_values);
    tcase_add_test(tc, test_api_call_ranges);
    tcase_add_test(tc, test_api_read_errors);
    tcase_add_test(tc, test_reader_limits);
    suite_add_tcase(s, tc);
    return s;
}
