/*
 * traces/trace_read.c - reading fabric traces (format.h) back, in either
 * format, and filtering records.
 *
 * CSV: the header line names the columns, which may come in any order
 * (unknown columns are ignored, so a spreadsheet that adds one still
 * reads). Perfetto: the file trace_write.c writes, one event per line;
 * slices and instants ("X", "i") carry every field in their args and
 * become records again; metadata and flow events are skipped, since the
 * writer derives them from the records.
 */
#include <config.h>

#include "traces/format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "traces/api_trace.h"

#define TRACE_MAX_COLS 32

struct trace_reader {
    FILE *f;
    char path[256];
    enum trace_format fmt;
    unsigned line_no;
    char *line;
    size_t line_cap;
    int col[TRACE_MAX_COLS];    /* CSV: column i is field col[i] (-1: none) */
    unsigned n_cols;
};

/* The fields, named as CSV columns and Perfetto args. */
enum rec_field {
    F_TYPE, F_T, F_DUR, F_ID, F_KIND, F_REQ, F_CPL, F_TAG, F_ADDR, F_BYTES,
    F_ATTR, F_HOP, F_CREATED, F_RATE, F_TRACK, F_FROM, F_TO, F_SRC, F_DST,
    F_DETAIL, F_COUNT
};

static const char *const field_names[F_COUNT] = {
    "type", "t_ps", "dur_ps", "id", "kind", "requester", "completer", "tag",
    "addr", "bytes", "attr", "hop", "t_created_ps", "rate", "track", "from",
    "to", "src", "dst", "detail",
};

static int field_find(const char *name)
{
    for (int i = 0; i < F_COUNT; i++) {
        if (!strcmp(name, field_names[i])) {
            return i;
        }
    }
    return -1;
}

/* An ID as "bb:dd.f" (CSV) or a number (Perfetto args). */
static uint32_t parse_id(const char *s)
{
    unsigned b, d, f;
    if (sscanf(s, "%x:%x.%x", &b, &d, &f) == 3) {
        return (b & 0xff) << 8 | (d & 0x1f) << 3 | (f & 7);
    }
    return (uint32_t)strtoul(s, NULL, 0);
}

/* Set field i of r from text; false for a bad value. */
static bool set_field(struct trace_rec *r, int i, const char *s)
{
    char *end = NULL;
    switch (i) {
    case F_TYPE: {
        int t = trace_rec_type_find(s);
        r->type = (enum trace_rec_type)t;
        return t >= 0;
    }
    case F_T: r->t_ps = strtoull(s, &end, 10); break;
    case F_DUR: r->dur_ps = strtoull(s, &end, 10); break;
    case F_ID: r->id = strtoull(s, &end, 10); break;
    case F_KIND: TRACE_SET(r->kind, s); return true;
    case F_REQ: r->requester = parse_id(s); return true;
    case F_CPL: r->completer = parse_id(s); return true;
    case F_TAG: r->tag = (uint32_t)strtoul(s, &end, 10); break;
    case F_ADDR: r->addr = strtoull(s, &end, 0); break;
    case F_BYTES: r->bytes = strtoull(s, &end, 10); break;
    case F_ATTR: r->attr = (uint32_t)strtoul(s, &end, 10); break;
    case F_HOP: r->hop = (uint32_t)strtoul(s, &end, 10); break;
    case F_CREATED: r->t_created_ps = strtoull(s, &end, 10); break;
    case F_RATE: r->rate = strtoull(s, &end, 10); break;
    case F_TRACK: TRACE_SET(r->track, s); return true;
    case F_FROM: TRACE_SET(r->from, s); return true;
    case F_TO: TRACE_SET(r->to, s); return true;
    case F_SRC: TRACE_SET(r->src, s); return true;
    case F_DST: TRACE_SET(r->dst, s); return true;
    case F_DETAIL: TRACE_SET(r->detail, s); return true;
    default: return true;
    }
    return end && end != s && *end == '\0';
}

/* ---- opening --------------------------------------------------------------- */

static bool read_line(struct trace_reader *r)
{
    ssize_t n = getline(&r->line, &r->line_cap, r->f);
    if (n < 0) {
        return false;
    }
    while (n > 0 && (r->line[n - 1] == '\n' || r->line[n - 1] == '\r')) {
        r->line[--n] = '\0';
    }
    r->line_no++;
    return true;
}

/* Split a CSV line in place; fields[] point into line. */
static unsigned csv_split(char *line, char **fields, unsigned max)
{
    unsigned n = 0;
    char *p = line;
    while (n < max) {
        char *out = p;
        fields[n++] = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"' || !*p) {
                    p += *p == '"';
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            while (*p && *p != ',') {
                p++;
            }
        } else {
            while (*p && *p != ',') {
                *out++ = *p++;
            }
        }
        bool more = *p == ',';
        *out = '\0';
        if (!more) {
            break;
        }
        p++;
    }
    return n;
}

struct trace_reader *trace_reader_open(const char *path, char *err,
                                       size_t err_size)
{
    struct trace_reader *r = calloc(1, sizeof(*r));
    if (!r) {
        snprintf(err, err_size, "%s: out of memory", path);
        return NULL;
    }
    TRACE_SET(r->path, path);
    r->f = fopen(path, "r");
    if (!r->f) {
        snprintf(err, err_size, "%s: cannot read: %s", path, strerror(errno));
        free(r);
        return NULL;
    }
    if (!read_line(r)) {
        snprintf(err, err_size, "%s: empty file, not a p2psim trace", path);
        trace_reader_close(r);
        return NULL;
    }
    if (r->line[0] == '{') {
        r->fmt = TRACE_FMT_PERFETTO;
        if (!strstr(r->line, "\"p2psim_trace\"")) {
            snprintf(err, err_size, "%s:1: a JSON trace, but not one p2psim "
                                    "wrote (no \"p2psim_trace\" in "
                                    "otherData)", path);
            trace_reader_close(r);
            return NULL;
        }
        return r;
    }
    r->fmt = TRACE_FMT_CSV;
    char *cols[TRACE_MAX_COLS];
    r->n_cols = csv_split(r->line, cols, TRACE_MAX_COLS);
    bool has_type = false, has_t = false;
    for (unsigned i = 0; i < r->n_cols; i++) {
        r->col[i] = field_find(cols[i]);
        has_type |= r->col[i] == F_TYPE;
        has_t |= r->col[i] == F_T;
    }
    if (!has_type || !has_t) {
        snprintf(err, err_size, "%s:1: not a p2psim trace: expected a CSV "
                                "header with columns type and t_ps, or a "
                                "Perfetto JSON file", path);
        trace_reader_close(r);
        return NULL;
    }
    return r;
}

enum trace_format trace_reader_format(const struct trace_reader *r)
{
    return r->fmt;
}

/* ---- records --------------------------------------------------------------- */

static int next_csv(struct trace_reader *r, struct trace_rec *out, char *err,
                    size_t err_size)
{
    do {
        if (!read_line(r)) {
            return 0;
        }
    } while (r->line[0] == '\0' || r->line[0] == '#');
    char *v[TRACE_MAX_COLS];
    unsigned n = csv_split(r->line, v, TRACE_MAX_COLS);
    for (unsigned i = 0; i < n && i < r->n_cols; i++) {
        if (r->col[i] >= 0 && !set_field(out, r->col[i], v[i])) {
            snprintf(err, err_size, "%s:%u: bad %s '%s'", r->path,
                     r->line_no, field_names[r->col[i]], v[i]);
            return -1;
        }
    }
    return 1;
}

static int next_json(struct trace_reader *r, struct trace_rec *out,
                     char *err, size_t err_size)
{
    for (;;) {
        if (!read_line(r)) {
            return 0;
        }
        const char *p = r->line;
        p += *p == ',';
        if (*p != '{') {
            continue;           /* the closing "]}" */
        }
        struct trace_api_field *fl;
        size_t n;
        char why[200];
        if (trace_json_flatten(p, &fl, &n, why, sizeof(why)) < 0) {
            snprintf(err, err_size, "%s:%u: %s", r->path, r->line_no, why);
            return -1;
        }
        bool is_rec = false;
        for (size_t i = 0; i < n; i++) {
            if (!strcmp(fl[i].key, "args.type")) {
                is_rec = true;
            }
        }
        int rc = 0;
        for (size_t i = 0; is_rec && i < n && rc == 0; i++) {
            int f = strncmp(fl[i].key, "args.", 5) ? -1
                                                   : field_find(fl[i].key + 5);
            if (f >= 0 && !set_field(out, f, fl[i].text ? fl[i].text : "")) {
                snprintf(err, err_size, "%s:%u: bad %s", r->path, r->line_no,
                         fl[i].key);
                rc = -1;
            }
        }
        trace_json_fields_free(fl, n);
        if (rc < 0) {
            return -1;
        }
        if (is_rec) {
            return 1;
        }
    }
}

int trace_reader_next(struct trace_reader *r, struct trace_rec *out,
                      char *err, size_t err_size)
{
    memset(out, 0, sizeof(*out));
    return r->fmt == TRACE_FMT_CSV ? next_csv(r, out, err, err_size)
                                   : next_json(r, out, err, err_size);
}

void trace_reader_close(struct trace_reader *r)
{
    if (r) {
        if (r->f) {
            fclose(r->f);
        }
        free(r->line);
        free(r);
    }
}

/* ---- filters ----------------------------------------------------------------- */

int trace_parse_time(const char *s, uint64_t *ps)
{
    static const struct { const char *unit; double ps; } units[] = {
        { "ps", 1 }, { "ns", 1e3 }, { "us", 1e6 }, { "ms", 1e9 },
        { "s", 1e12 },
    };
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0) {
        return -1;
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (!strcmp(end, units[i].unit)) {
            *ps = (uint64_t)(v * units[i].ps + 0.5);
            return 0;
        }
    }
    return -1;
}

/* Split "a+b+c" into list (at most TRACE_FILTER_MAX items of size n). */
static int split_list(const char *v, char *list, size_t size, unsigned *count)
{
    *count = 0;
    while (*v) {
        size_t len = strcspn(v, "+");
        if (*count == TRACE_FILTER_MAX || len == 0 || len >= size) {
            return -1;
        }
        memcpy(list + *count * size, v, len);
        list[*count * size + len] = '\0';
        (*count)++;
        v += len + (v[len] == '+');
    }
    return *count ? 0 : -1;
}

static int filter_item(const char *key, const char *v, struct trace_filter *f,
                       char *err, size_t err_size)
{
    if (!strcmp(key, "component")) {
        if (split_list(v, &f->component[0][0], TRACE_NAME_LEN,
                       &f->n_component) == 0) {
            return 0;
        }
    } else if (!strcmp(key, "kind")) {
        if (split_list(v, &f->kind[0][0], TRACE_KIND_LEN, &f->n_kind) == 0) {
            return 0;
        }
    } else if (!strcmp(key, "pair")) {
        const char *colon = strchr(v, ':');
        size_t a = colon ? (size_t)(colon - v) : 0;
        if (colon && a > 0 && a < TRACE_KIND_LEN && colon[1] &&
            strlen(colon + 1) < TRACE_KIND_LEN) {
            memcpy(f->pair[0], v, a);
            f->pair[0][a] = '\0';
            TRACE_SET(f->pair[1], colon + 1);
            f->has_pair = true;
            return 0;
        }
    } else if (!strcmp(key, "from") || !strcmp(key, "to")) {
        uint64_t t;
        if (trace_parse_time(v, &t) == 0) {
            *(key[0] == 'f' ? &f->from_ps : &f->to_ps) = t;
            return 0;
        }
        snprintf(err, err_size, "trace filter: %s=%s: a time takes a unit "
                                "(ps, ns, us, ms, s), e.g. %s=10us", key, v,
                 key);
        return -1;
    } else {
        snprintf(err, err_size, "trace filter: unknown criterion '%s' "
                                "(component, kind, pair, from, to)", key);
        return -1;
    }
    snprintf(err, err_size, "trace filter: bad %s '%s' (component=sw0+rc0, "
                            "kind=MWr+CplD, pair=gpu0:gpu1; at most %d "
                            "items)", key, v, TRACE_FILTER_MAX);
    return -1;
}

int trace_filter_parse(const char *spec, struct trace_filter *f, char *err,
                       size_t err_size)
{
    memset(f, 0, sizeof(*f));
    while (spec && *spec) {
        size_t len = strcspn(spec, ",");
        char item[256];
        if (len >= sizeof(item)) {
            snprintf(err, err_size, "trace filter: criterion too long");
            return -1;
        }
        memcpy(item, spec, len);
        item[len] = '\0';
        spec += len + (spec[len] == ',');
        if (!len) {
            continue;
        }
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(err, err_size, "trace filter: '%s' is not NAME=VALUE "
                                    "(component, kind, pair, from, to)",
                     item);
            return -1;
        }
        *eq = '\0';
        if (filter_item(item, eq + 1, f, err, err_size) < 0) {
            return -1;
        }
    }
    if (f->to_ps && f->to_ps < f->from_ps) {
        snprintf(err, err_size, "trace filter: the window ends (to) before "
                                "it starts (from)");
        return -1;
    }
    return 0;
}

/* "sw0" matches "sw0", "sw0.dp1", and the ends of a track "sw0.up>rc0.rp1". */
static bool names_component(const char *s, const char *comp)
{
    size_t n = strlen(comp);
    for (const char *p = s; (p = strstr(p, comp)); p++) {
        bool start = p == s || p[-1] == '>';
        char after = p[n];
        if (start && (after == '\0' || after == '.' || after == '>' ||
                      after == '/')) {
            return true;
        }
    }
    return false;
}

bool trace_filter_match(const struct trace_filter *f,
                        const struct trace_rec *r)
{
    if (r->t_ps + r->dur_ps < f->from_ps || (f->to_ps && r->t_ps > f->to_ps)) {
        return false;
    }
    if (f->n_kind) {
        unsigned i = 0;
        while (i < f->n_kind && strcmp(f->kind[i], r->kind)) {
            i++;
        }
        if (i == f->n_kind) {
            return false;
        }
    }
    if (f->has_pair &&
        !((!strcmp(f->pair[0], r->src) && !strcmp(f->pair[1], r->dst)) ||
          (!strcmp(f->pair[1], r->src) && !strcmp(f->pair[0], r->dst)))) {
        return false;
    }
    if (f->n_component) {
        unsigned i = 0;
        while (i < f->n_component &&
               !names_component(r->track, f->component[i]) &&
               !names_component(r->from, f->component[i]) &&
               !names_component(r->to, f->component[i])) {
            i++;
        }
        if (i == f->n_component) {
            return false;
        }
    }
    return true;
}
