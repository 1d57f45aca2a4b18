/*
 * tests/machine/check_trace.c - fabric traces (machine/trace_sink.c, traces/):
 * a peer copy through an ACS-redirecting switch traced hop by hop, the
 * Perfetto file checked as JSON, the summary's bytes per link, events.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/p2psim.h"
#include "sim/component.h"
#include "sim/error.h"
#include "sim/time.h"
#include "tests/check_p2psim.h"
#include "traces/api_trace.h"
#include "traces/format.h"

#ifndef P2PSIM_SRCDIR
#define P2PSIM_SRCDIR "."
#endif

#define COPY_BYTES (64u * 1024u)
#define MAX_RECS 4096

static const char *machine(void)
{
    static char file[512];
    snprintf(file, sizeof(file), "%s/topologies/teaching-acs-iommu.yaml",
             P2PSIM_SRCDIR);
    return file;
}

static void on_done(void *arg, const struct p2psim_copy_result *r)
{
    *(struct p2psim_copy_result *)arg = *r;
}

/* gpu0 -> gpu1 (one switch, ACS RR/CR) traced into path; the result. */
static struct p2psim_copy_result traced_copy(const char *path,
                                             const char *filter,
                                             const char *overrides,
                                             struct p2psim **out)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim_options o = { .overrides = overrides };
    struct p2psim *p = p2psim_open(machine(), &o, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    struct p2psim_trace_options to = { .path = path, .filter = filter };
    ck_assert_int_eq(p2psim_trace_start(p, &to, &err), 0);
    struct p2psim_copy_result r = { .status = 99 };
    struct p2psim_loc d = { P2PSIM_DEVICE, 1, 0 }, s = { P2PSIM_DEVICE, 0, 0 };
    ck_assert_int_eq(p2psim_copy(p, &d, &s, COPY_BYTES, P2PSIM_COPY_PEER,
                                 p2psim_now(p), on_done, &r), 0);
    p2psim_run(p);
    ck_assert_int_eq(p2psim_trace_stop(p), 0);
    *out = p;
    return r;
}

static unsigned read_all(const char *path, struct trace_rec *rec)
{
    char err[300];
    struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
    ck_assert_msg(r != NULL, "%s", err);
    unsigned n = 0;
    int rc;
    while (n < MAX_RECS && (rc = trace_reader_next(r, &rec[n], err,
                                                   sizeof(err))) == 1) {
        n++;
    }
    ck_assert_msg(n < MAX_RECS, "trace longer than the test expects");
    ck_assert_msg(rc == 0, "%s", err);
    trace_reader_close(r);
    return n;
}

static bool comp_is(struct p2psim *p, const char *port, const char *kind)
{
    char name[TRACE_NAME_LEN];
    TRACE_SET(name, port);
    char *dot = strchr(name, '.');
    if (dot) {
        *dot = '\0';
    }
    struct sim_component *c = sim_component_find(p2psim_sim(p), name);
    return c && !strcmp(c->ops->kind, kind);
}

/*
 * Each write goes up to the root complex and back down (ACS redirect),
 * its hops follow one another, each at least the link's 20 ns; the flush
 * read and its completion account for the copy's end exactly: its last
 * hop delivers at the time the copy reports.
 */
START_TEST(test_trace_acs_hairpin_hops_add_up)
{
    char path[] = "/tmp/p2psim-trace-XXXXXX.csv";
    close(mkstemps(path, 4));
    struct p2psim *p;
    struct p2psim_copy_result r = traced_copy(
        path, NULL, "sockets.cpu0.root-complex.iommu=passthrough", &p);
    ck_assert_int_eq(r.status, 0);
    ck_assert(!r.staged);
    static struct trace_rec rec[MAX_RECS];
    unsigned n = read_all(path, rec);
    unsigned writes = 0, up = 0;
    sim_time_t cpl_end = 0, op_end = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct trace_rec *h = &rec[i];
        if (h->type == TRACE_REC_OP) {
            op_end = h->t_ps + h->dur_ps;
            continue;
        }
        if (h->type != TRACE_REC_HOP) {
            continue;
        }
        ck_assert_uint_ge(h->dur_ps, SIM_NS(20));
        if (getenv("TRACE_DEBUG")) {
            fprintf(stderr, "%s %llu %s %u %llu+%llu %s\n", h->kind,
                    (unsigned long long)h->id, h->track, h->hop,
                    (unsigned long long)h->t_ps,
                    (unsigned long long)h->dur_ps, h->dst);
        }
        if (!strncmp(h->kind, "Cpl", 3) && comp_is(p, h->to, "gpu")) {
            cpl_end = h->t_ps + h->dur_ps > cpl_end ? h->t_ps + h->dur_ps
                                                    : cpl_end;
        }
        if (strcmp(h->kind, "MWr") || h->hop != 0) {
            continue;
        }
        /* Follow this write's hops: they chain, and one reaches the RC. */
        writes++;
        const struct trace_rec *prev = h;
        bool rc_seen = false;
        ck_assert(comp_is(p, h->from, "gpu"));
        for (unsigned j = i + 1; j < n; j++) {
            if (rec[j].type != TRACE_REC_HOP || rec[j].id != h->id) {
                continue;
            }
            ck_assert_uint_eq(rec[j].hop, prev->hop + 1);
            ck_assert_uint_ge(rec[j].t_ps, prev->t_ps + prev->dur_ps);
            rc_seen |= comp_is(p, rec[j].to, "root-complex");
            prev = &rec[j];
        }
        up += rc_seen;
        ck_assert_msg(comp_is(p, prev->to, "gpu") && !strcmp(prev->dst,
                                                              "gpu1"),
                      "write %llu ends at %s", (unsigned long long)h->id,
                      prev->to);
        ck_assert_uint_eq(prev->hop, 3);
    }
    ck_assert_uint_gt(writes, 1);
    ck_assert_uint_eq(up, writes);
    ck_assert_uint_eq(cpl_end, r.t_end);
    ck_assert_uint_eq(op_end, r.t_end);
    p2psim_close(p);
    unlink(path);
}
END_TEST

/* ---- the Perfetto file is JSON ------------------------------------------------ */

struct js {
    const char *p;
};

static bool js_value(struct js *j, int depth);

static void js_ws(struct js *j)
{
    while (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t') {
        j->p++;
    }
}

static bool js_string(struct js *j)
{
    if (*j->p++ != '"') {
        return false;
    }
    while (*j->p && *j->p != '"') {
        if ((unsigned char)*j->p < 0x20) {
            return false;
        }
        if (*j->p == '\\') {
            j->p++;
            if (!strchr("\"\\/bfnrtu", *j->p)) {
                return false;
            }
        }
        j->p++;
    }
    return *j->p++ == '"';
}

static bool js_number(struct js *j)
{
    const char *s = j->p;
    j->p += *j->p == '-';
    if (!(*j->p >= '0' && *j->p <= '9')) {
        return false;
    }
    if (*j->p == '0' && j->p[1] >= '0' && j->p[1] <= '9') {
        return false;           /* no leading zeros */
    }
    while ((*j->p >= '0' && *j->p <= '9') || strchr(".eE+-", *j->p)) {
        if (!*j->p) {
            break;
        }
        j->p++;
    }
    return j->p > s;
}

/* Strict enough: structure, strings, numbers, literals. */
static bool js_value(struct js *j, int depth)
{
    js_ws(j);
    if (depth > 32) {
        return false;
    }
    char c = *j->p;
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        j->p++;
        js_ws(j);
        if (*j->p == close) {
            j->p++;
            return true;
        }
        for (;;) {
            js_ws(j);
            if (c == '{') {
                if (!js_string(j)) {
                    return false;
                }
                js_ws(j);
                if (*j->p++ != ':') {
                    return false;
                }
            }
            if (!js_value(j, depth + 1)) {
                return false;
            }
            js_ws(j);
            if (*j->p == ',') {
                j->p++;
                continue;
            }
            return *j->p++ == close;
        }
    }
    if (c == '"') {
        return js_string(j);
    }
    if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
        j->p += 4;
        return true;
    }
    if (!strncmp(j->p, "false", 5)) {
        j->p += 5;
        return true;
    }
    return js_number(j);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert(f != NULL);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *s = malloc((size_t)len + 1);
    ck_assert_int_eq(fread(s, 1, (size_t)len, f), (size_t)len);
    s[len] = '\0';
    fclose(f);
    return s;
}

static const char *field(struct trace_api_field *f, size_t n, const char *k)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(f[i].key, k)) {
            return f[i].text ? f[i].text : "";
        }
    }
    return NULL;
}

static void check_perfetto(const char *path, bool want_flow)
{
    char *text = slurp(path);
    struct js j = { text };
    ck_assert_msg(js_value(&j, 0), "%s: not JSON near byte %ld", path,
                  (long)(j.p - text));
    js_ws(&j);
    ck_assert_msg(*j.p == '\0', "%s: text after the JSON value", path);
    /* Events one per line: names for tracks, monotonic slices per track,
     * flows that start no later than they finish. */
    double last_ts[4][64] = { { 0 } };
    bool named[4][64] = { { false } };
    unsigned slices = 0, flows_s = 0, flows_f = 0;
    double s_ts[256];
    char *save, *line = strtok_r(text, "\n", &save);
    for (; line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == ',') {
            line++;
        }
        if (line[0] != '{' || !strncmp(line, "{\"displayTimeUnit", 16)) {
            continue;
        }
        struct trace_api_field *f;
        size_t n;
        char err[200];
        ck_assert_msg(trace_json_flatten(line, &f, &n, err, sizeof(err)) == 0,
                      "%s", err);
        const char *ph = field(f, n, "ph");
        unsigned pid = (unsigned)atoi(field(f, n, "pid"));
        unsigned tid = (unsigned)atoi(field(f, n, "tid"));
        ck_assert(ph && pid >= 1 && pid <= 3 && tid < 64);
        if (!strcmp(ph, "M")) {
            named[pid][tid] = true;
        } else if (!strcmp(ph, "X")) {
            double ts = atof(field(f, n, "ts"));
            ck_assert_msg(named[pid][tid], "slice on an unnamed track");
            ck_assert_msg(ts >= last_ts[pid][tid], "time went back on "
                          "track %u/%u", pid, tid);
            ck_assert(atof(field(f, n, "dur")) >= 0);
            last_ts[pid][tid] = ts;
            slices++;
        } else if (!strcmp(ph, "s")) {
            unsigned id = (unsigned)atoi(field(f, n, "id"));
            ck_assert(id < 256);
            s_ts[id] = atof(field(f, n, "ts"));
            flows_s++;
        } else if (!strcmp(ph, "f")) {
            unsigned id = (unsigned)atoi(field(f, n, "id"));
            ck_assert(id < 256 && id <= flows_s);
            ck_assert(atof(field(f, n, "ts")) >= s_ts[id]);
            flows_f++;
        }
        trace_json_fields_free(f, n);
    }
    ck_assert_uint_gt(slices, 0);
    ck_assert_uint_eq(flows_s, flows_f);
    if (want_flow) {
        ck_assert_uint_gt(flows_s, 0);
    }
    free(text);
}

/* The same copy as Perfetto JSON: valid, tracks named, time monotonic per
 * track, the flush read joined to its completion by a flow. Capped, the
 * file is still JSON. */
START_TEST(test_trace_perfetto_is_valid_json)
{
    char path[] = "/tmp/p2psim-trace-XXXXXX.json";
    close(mkstemps(path, 5));
    struct p2psim *p;
    traced_copy(path, NULL, "sockets.cpu0.root-complex.iommu=passthrough",
                &p);
    p2psim_close(p);
    check_perfetto(path, true);

    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim_options o = {
        .overrides = "sockets.cpu0.root-complex.iommu=passthrough"
    };
    p = p2psim_open(machine(), &o, &err);
    struct p2psim_trace_options to = { .path = path, .max_bytes = 6000 };
    ck_assert_int_eq(p2psim_trace_start(p, &to, &err), 0);
    struct p2psim_copy_result r;
    struct p2psim_loc d = { P2PSIM_DEVICE, 1, 0 }, s = { P2PSIM_DEVICE, 0, 0 };
    p2psim_copy(p, &d, &s, COPY_BYTES, P2PSIM_COPY_PEER, 0, on_done, &r);
    p2psim_run(p);
    p2psim_close(p);            /* stops the trace */
    char *text = slurp(path);
    ck_assert_uint_le(strlen(text), 6000);
    free(text);
    check_perfetto(path, false);
    unlink(path);
}
END_TEST

/* The summary's payload bytes of writes per link direction are the
 * copy's size on each of the four links of the hairpin (the trace filtered
 * to MWr: the flush read's completion carries a DW of its own). */
START_TEST(test_trace_summary_bytes_are_copy_size)
{
    char path[] = "/tmp/p2psim-trace-XXXXXX.json";
    close(mkstemps(path, 5));
    struct p2psim *p;
    traced_copy(path, "kind=MWr",
                "sockets.cpu0.root-complex.iommu=passthrough", &p);
    p2psim_close(p);
    char err[300];
    struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
    ck_assert_msg(r != NULL, "%s", err);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ck_assert_int_eq(trace_summarize(r, f, err, sizeof(err)), 0);
    fclose(f);
    trace_reader_close(r);
    unsigned carrying = 0;
    char *save, *line = strtok_r(out, "\n", &save);
    for (; line; line = strtok_r(NULL, "\n", &save)) {
        char track[200];
        unsigned long long bytes, tlps;
        if (sscanf(line, " %199s %llu %llu", track, &bytes, &tlps) == 3 &&
            strchr(track, '>') && bytes) {
            ck_assert_msg(bytes == COPY_BYTES, "%s carried %llu bytes",
                          track, bytes);
            carrying++;
        }
    }
    ck_assert_uint_eq(carrying, 4);
    free(out);
    unlink(path);
}
END_TEST

/* With the IOMMU translating and no mapping for the peer's BAR1, writes
 * fault at the root complex: the event log has the faults and the BAR1
 * mapping; a kind filter keeps only what it names. */
START_TEST(test_trace_events_and_filter)
{
    char path[] = "/tmp/p2psim-trace-XXXXXX.csv";
    close(mkstemps(path, 4));
    struct p2psim *p;
    struct p2psim_copy_result r = traced_copy(
        path, "kind=iommu_fault+bar1_map+MWr", NULL, &p);
    ck_assert_int_eq(r.status, -SIM_EIO);
    p2psim_close(p);
    static struct trace_rec rec[MAX_RECS];
    unsigned n = read_all(path, rec), faults = 0, maps = 0;
    for (unsigned i = 0; i < n; i++) {
        ck_assert_msg(!strcmp(rec[i].kind, "iommu_fault") ||
                      !strcmp(rec[i].kind, "bar1_map") ||
                      !strcmp(rec[i].kind, "MWr"), "kept %s", rec[i].kind);
        faults += !strcmp(rec[i].kind, "iommu_fault");
        maps += !strcmp(rec[i].kind, "bar1_map") &&
                !strcmp(rec[i].detail, "ok");
    }
    ck_assert_uint_gt(faults, 0);
    ck_assert_uint_ge(maps, 1);
    unlink(path);
}
END_TEST

START_TEST(test_trace_bad_options_are_errors)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim *p = p2psim_open(NULL, NULL, &err);
    struct p2psim_trace_options o = { .path = "/tmp/x.txt" };
    ck_assert_int_eq(p2psim_trace_start(p, &o, &err), -SIM_EINVAL);
    ck_assert(strstr(err.msg, ".csv or *.json") != NULL);
    o = (struct p2psim_trace_options){ .path = "/tmp/x.csv",
                                       .filter = "when=3" };
    sim_error_clear(&err);
    ck_assert_int_eq(p2psim_trace_start(p, &o, &err), -SIM_EINVAL);
    ck_assert(strstr(err.msg, "unknown criterion") != NULL);
    o = (struct p2psim_trace_options){ .path = "/nonexistent/dir/x.csv" };
    sim_error_clear(&err);
    ck_assert_int_eq(p2psim_trace_start(p, &o, &err), -SIM_EIO);
    p2psim_close(p);
}
END_TEST

/* ---- link errors and replay (models/pcie/link.c, ber) ------------------ */

#define ERR_BYTES (256u * 1024u)
#define ERR_IOMMU_OFF "sockets.cpu0.root-complex.iommu=passthrough\n"

struct err_run {
    struct p2psim_copy_result r;
    unsigned replays;           /* replay lines in the event log */
    bool exact;                 /* the destination holds the source's bytes */
    char first[512];            /* the first replay line */
};

/*
 * A peer copy of ERR_BYTES of a pattern through the ACS switch with the
 * links' ber set by overrides (NULL: none), seeded; its event log read.
 */
static struct err_run err_copy(const char *overrides, uint64_t seed)
{
    struct err_run out = { .r = { .status = 99 } };
    char path[] = "/tmp/p2psim-events-XXXXXX.txt";
    close(mkstemps(path, 4));
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim_options o = { .overrides = overrides, .seed = seed };
    struct p2psim *p = p2psim_open(machine(), &o, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    static uint8_t src[ERR_BYTES], dst[ERR_BYTES];
    for (unsigned i = 0; i < ERR_BYTES; i++) {
        src[i] = (uint8_t)(i * 131u + 7u);
    }
    ck_assert_int_eq(p2psim_hbm_write(p, 0, 0, src, ERR_BYTES), 0);
    struct p2psim_trace_options to = { .events_path = path };
    ck_assert_int_eq(p2psim_trace_start(p, &to, &err), 0);
    struct p2psim_loc d = { P2PSIM_DEVICE, 1, 0 }, s = { P2PSIM_DEVICE, 0, 0 };
    ck_assert_int_eq(p2psim_copy(p, &d, &s, ERR_BYTES, P2PSIM_COPY_PEER,
                                 p2psim_now(p), on_done, &out.r), 0);
    p2psim_run(p);
    ck_assert_int_eq(p2psim_trace_stop(p), 0);
    ck_assert_int_eq(p2psim_hbm_read(p, 1, 0, dst, ERR_BYTES), 0);
    out.exact = memcmp(src, dst, ERR_BYTES) == 0;
    p2psim_close(p);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        if (strstr(line, ": replay: ")) {
            if (out.replays++ == 0) {
                snprintf(out.first, sizeof(out.first), "%s", line);
            }
        }
    }
    fclose(f);
    unlink(path);
    return out;
}

/*
 * With bit errors, TLPs are Nak'ed and replayed: the event log has the
 * replays, the copy still delivers every byte exactly, and it takes
 * longer than without errors, which has no replay.
 */
START_TEST(test_trace_ber_replays_slow_but_exact)
{
    struct err_run clean = err_copy(ERR_IOMMU_OFF, 1);
    struct err_run noisy = err_copy(ERR_IOMMU_OFF
                                    "defaults.pcie-link.ber=1e-5", 1);
    ck_assert_int_eq(clean.r.status, 0);
    ck_assert_int_eq(noisy.r.status, 0);
    ck_assert(clean.exact);
    ck_assert(noisy.exact);
    ck_assert_uint_eq(clean.replays, 0);
    ck_assert_uint_gt(noisy.replays, 0);
    ck_assert_uint_gt(noisy.r.t_end - noisy.r.t_start,
                      clean.r.t_end - clean.r.t_start);
    /* "  p2psim  [000]  0.000001234000: replay: sw0.dn0 ... link=... seq=" */
    ck_assert_msg(strstr(noisy.first, "  p2psim  [000]  0.") == noisy.first,
                  "%s", noisy.first);
    ck_assert_msg(strstr(noisy.first, " link=") &&
                  strstr(noisy.first, " seq=") &&
                  strstr(noisy.first, " resent="), "%s", noisy.first);
}
END_TEST

/* The errors come from the simulation's seeded RNG: same seed, same run. */
START_TEST(test_trace_ber_same_seed_same_run)
{
    struct err_run a = err_copy(ERR_IOMMU_OFF "defaults.pcie-link.ber=1e-5", 42);
    struct err_run b = err_copy(ERR_IOMMU_OFF "defaults.pcie-link.ber=1e-5", 42);
    ck_assert_int_eq(a.r.status, 0);
    ck_assert_uint_eq(a.r.t_end, b.r.t_end);
    ck_assert_uint_eq(a.replays, b.replays);
    ck_assert_str_eq(a.first, b.first);
}
END_TEST

START_TEST(test_trace_ber_bad_value_is_an_error)
{
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim_options o = { .overrides = "defaults.pcie-link.ber=2" };
    struct p2psim *p = p2psim_open(machine(), &o, &err);
    ck_assert_ptr_null(p);
    ck_assert_msg(strstr(err.msg, "bit error rate") != NULL, "%s", err.msg);
}
END_TEST

/*
 * Completion timeout (models/gpu/copy_engine.c): with every non-posted
 * TLP lost at the links (fault injection), a pulled copy's reads never
 * complete; after the GPU's completion timeout (default 50 ms) the copy
 * fails with EIO and the event log has the timeouts, as ftrace lines.
 */
START_TEST(test_trace_lost_read_times_out)
{
    char path[] = "/tmp/p2psim-events-XXXXXX.txt";
    close(mkstemps(path, 4));
    struct sim_error err;
    sim_error_clear(&err);
    struct p2psim_options o = {
        .overrides = ERR_IOMMU_OFF "defaults.pcie-link.drop=np",
    };
    struct p2psim *p = p2psim_open(machine(), &o, &err);
    ck_assert_msg(p != NULL, "%s", err.msg);
    struct p2psim_trace_options to = { .events_path = path };
    ck_assert_int_eq(p2psim_trace_start(p, &to, &err), 0);
    struct p2psim_copy_result r = { .status = 99 };
    struct p2psim_loc d = { P2PSIM_DEVICE, 1, 0 }, s = { P2PSIM_DEVICE, 0, 0 };
    ck_assert_int_eq(p2psim_copy(p, &d, &s, COPY_BYTES,
                                 P2PSIM_COPY_PEER | P2PSIM_COPY_READ,
                                 p2psim_now(p), on_done, &r), 0);
    p2psim_run(p);
    ck_assert_int_eq(p2psim_trace_stop(p), 0);
    p2psim_close(p);
    ck_assert_int_eq(r.status, -SIM_EIO);
    ck_assert_uint_ge(r.t_end - r.t_start, 50 * SIM_PS_PER_MS);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    unsigned timeouts = 0, drops = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strstr(line, ": cpl_timeout: ")) {
            /* "  p2psim  [000]  0.050...: cpl_timeout: gpu1.pcie ... tag=" */
            ck_assert_msg(strstr(line, "  p2psim  [000]  0.05") == line &&
                          strstr(line, " tag=") != NULL, "%s", line);
            timeouts++;
        }
        drops += strstr(line, ": tlp_drop: ") != NULL;
    }
    fclose(f);
    unlink(path);
    ck_assert_uint_gt(timeouts, 0);
    ck_assert_uint_ge(drops, timeouts);
}
END_TEST

Suite *make_trace_sink_suite(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("Traces");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_trace_acs_hairpin_hops_add_up);
    tcase_add_test(tc, test_trace_perfetto_is_valid_json);
    tcase_add_test(tc, test_trace_summary_bytes_are_copy_size);
    tcase_add_test(tc, test_trace_events_and_filter);
    tcase_add_test(tc, test_trace_bad_options_are_errors);
    tcase_add_test(tc, test_trace_ber_replays_slow_but_exact);
    tcase_add_test(tc, test_trace_ber_same_seed_same_run);
    tcase_add_test(tc, test_trace_ber_bad_value_is_an_error);
    tcase_add_test(tc, test_trace_lost_read_times_out);
    suite_add_tcase(s, tc);
    return s;
}
