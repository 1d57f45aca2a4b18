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
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "traces/api_trace.h"
#include "traces/text.h"

#define TRACE_MAX_COLS 32

struct trace_reader {
    FILE *f;
    bool own_f;                 /* opened here: closed with the reader */
    char *path;
    enum trace_format fmt;
    unsigned line_no;
    char *line;
    size_t line_cap, line_len;
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

/* An ID as "bb:dd.f" (CSV: hex bus, device to 1f, function to 7) or a
 * decimal number to 0xffff (Perfetto args). */
static bool parse_id(const char *s, uint32_t *out)
{
    uint64_t v;
    if (trace_text_u64(s, false, 0xffff, &v)) {
        *out = (uint32_t)v;
        return true;
    }
    char bus[3], dev[3], fn[2];
    size_t nb = strspn(s, "0123456789abcdefABCDEF");
    if (nb < 1 || nb > 2 || s[nb] != ':') {
        return false;
    }
    const char *d = s + nb + 1;
    size_t nd = strspn(d, "0123456789abcdefABCDEF");
    if (nd < 1 || nd > 2 || d[nd] != '.' || !(d[nd + 1] >= '0' &&
                                               d[nd + 1] <= '7') ||
        d[nd + 2] != '\0') {
        return false;
    }
    memcpy(bus, s, nb);
    bus[nb] = '\0';
    memcpy(dev, d, nd);
    dev[nd] = '\0';
    fn[0] = d[nd + 1];
    fn[1] = '\0';
    unsigned long b = strtoul(bus, NULL, 16), dv = strtoul(dev, NULL, 16);
    if (dv > 0x1f) {
        return false;
    }
    *out = (uint32_t)(b << 8 | dv << 3 | (unsigned long)(fn[0] - '0'));
    return true;
}

/* A text field, refused (not cut) when it does not fit. */
static bool set_text(char *field, size_t size, const char *s)
{
    if (strlen(s) >= size) {
        return false;
    }
    trace_set(field, size, s);
    return true;
}

static bool set_u32(uint32_t *field, const char *s)
{
    uint64_t v;
    if (!trace_text_u64(s, false, UINT32_MAX, &v)) {
        return false;
    }
    *field = (uint32_t)v;
    return true;
}

/* Set field i of r from text; false for a bad value. Limits:
 * traces/trace-format.md, "Reading". */
static bool set_field(struct trace_rec *r, int i, const char *s)
{
    switch (i) {
    case F_TYPE: {
        int t = trace_rec_type_find(s);
        r->type = (enum trace_rec_type)t;
        return t >= 0;
    }
    case F_T: return trace_text_u64(s, false, TRACE_TIME_MAX, &r->t_ps);
    case F_DUR: return trace_text_u64(s, false, TRACE_TIME_MAX, &r->dur_ps);
    case F_ID: return trace_text_u64(s, false, UINT64_MAX, &r->id);
    case F_KIND: return set_text(r->kind, sizeof(r->kind), s);
    case F_REQ: return parse_id(s, &r->requester);
    case F_CPL: return parse_id(s, &r->completer);
    case F_TAG: return set_u32(&r->tag, s);
    case F_ADDR:
        return trace_text_u64(s, s[0] == '0' && (s[1] == 'x' || s[1] == 'X'),
                              UINT64_MAX, &r->addr);
    case F_BYTES: return trace_text_u64(s, false, UINT64_MAX, &r->bytes);
    case F_ATTR: return set_u32(&r->attr, s);
    case F_HOP: return set_u32(&r->hop, s);
    case F_CREATED:
        return trace_text_u64(s, false, TRACE_TIME_MAX, &r->t_created_ps);
    case F_RATE: return trace_text_u64(s, false, UINT64_MAX, &r->rate);
    case F_TRACK: return set_text(r->track, sizeof(r->track), s);
    case F_FROM: return set_text(r->from, sizeof(r->from), s);
    case F_TO: return set_text(r->to, sizeof(r->to), s);
    case F_SRC: return set_text(r->src, sizeof(r->src), s);
    case F_DST: return set_text(r->dst, sizeof(r->dst), s);
    case F_DETAIL: return set_text(r->detail, sizeof(r->detail), s);
    default: return true;
    }
}

/* What a bad value of field i is expected to be. */
static const char *field_wants(int i)
{
    switch (i) {
    case F_TYPE: return "hop, op or event";
    case F_T: case F_DUR: case F_CREATED:
        return "picoseconds, 0 to 9223372036854775807";
    case F_REQ: case F_CPL: return "bb:dd.f, or a number to 65535";
    case F_TAG: case F_ATTR: case F_HOP: return "an integer to 4294967295";
    case F_ADDR: return "an integer or 0x and hex digits, 64 bits";
    case F_KIND: case F_SRC: case F_DST:
        return "at most 15 bytes";
    case F_TRACK: case F_FROM: case F_TO: return "at most 95 bytes";
    case F_DETAIL: return "at most 127 bytes";
    default: return "an integer, 64 bits";
    }
}

/* A record's end must fit too: t_ps + dur_ps is used unchecked. */
static bool rec_in_range(const struct trace_rec *r)
{
    return r->dur_ps <= TRACE_TIME_MAX - r->t_ps;
}

/* ---- opening --------------------------------------------------------------- */

static void reader_err(const struct trace_reader *r, char *err,
                       size_t err_size, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void reader_err(const struct trace_reader *r, char *err,
                       size_t err_size, size_t col, const char *fmt, ...)
{
    int k = col ? snprintf(err, err_size, "%s:%u:%zu: ", r->path, r->line_no,
                           col)
                : snprintf(err, err_size, "%s:%u: ", r->path, r->line_no);
    if (k > 0 && (size_t)k < err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + k, err_size - (size_t)k, fmt, ap);
        va_end(ap);
    }
}

/* 1: a line; 0: the end; -1: err says why. */
static int read_line(struct trace_reader *r, char *err, size_t err_size)
{
    size_t len;
    enum trace_text_line k = trace_text_getline(r->f, &r->line, &r->line_cap,
                                                TRACE_TEXT_LINE_MAX, &len);
    if (k == TRACE_TEXT_EOF) {
        return 0;
    }
    if (r->line_no == TRACE_TEXT_LINES_MAX) {
        reader_err(r, err, err_size, 0, "more than %u lines",
                   TRACE_TEXT_LINES_MAX);
        return -1;
    }
    r->line_no++;
    r->line_len = len;
    switch (k) {
    case TRACE_TEXT_LINE: return 1;
    case TRACE_TEXT_TOO_LONG:
        reader_err(r, err, err_size, TRACE_TEXT_LINE_MAX + 1,
                   "line longer than %u bytes", TRACE_TEXT_LINE_MAX);
        return -1;
    case TRACE_TEXT_NUL:
        reader_err(r, err, err_size, len + 1, "a NUL byte");
        return -1;
    case TRACE_TEXT_NOMEM:
        reader_err(r, err, err_size, 0, "out of memory");
        return -1;
    default:
        snprintf(err, err_size, "%s: cannot read: %s", r->path,
                 strerror(errno));
        return -1;
    }
}

/*
 * Split a CSV line in place; fields[] point into line, at[] are their
 * columns (from 1). The count, or -1 with *bad_col and *why: an
 * unterminated quote, text after a closing quote, or more than max
 * fields.
 */
static int csv_split(char *line, char **fields, size_t *at, unsigned max,
                     size_t *bad_col, const char **why)
{
    unsigned n = 0;
    char *p = line;
    for (;;) {
        if (n == max) {
            *bad_col = (size_t)(p - line) + 1;
            *why = "more fields than the header's columns";
            return -1;
        }
        char *out = p;
        at[n] = (size_t)(p - line) + 1;
        fields[n++] = p;
        if (*p == '"') {
            char *open = p++;
            for (;;) {
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else if (!*p) {
                    *bad_col = (size_t)(open - line) + 1;
                    *why = "a quote not closed";
                    return -1;
                } else {
                    *out++ = *p++;
                }
            }
            if (*p && *p != ',') {
                *bad_col = (size_t)(p - line) + 1;
                *why = "text after a closing quote";
                return -1;
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
    return (int)n;
}

static struct trace_reader *reader_start(struct trace_reader *r, char *err,
                                         size_t err_size)
{
    int k = read_line(r, err, err_size);
    if (k == 0) {
        snprintf(err, err_size, "%s: empty file, not a p2psim trace",
                 r->path);
    }
    if (k <= 0) {
        trace_reader_close(r);
        return NULL;
    }
    if (r->line[0] == '{') {
        r->fmt = TRACE_FMT_PERFETTO;
        if (!strstr(r->line, "\"p2psim_trace\"")) {
            snprintf(err, err_size, "%s:1: a JSON trace, but not one p2psim "
                                    "wrote (no \"p2psim_trace\" in "
                                    "otherData)", r->path);
            trace_reader_close(r);
            return NULL;
        }
        return r;
    }
    r->fmt = TRACE_FMT_CSV;
    char *cols[TRACE_MAX_COLS];
    size_t at[TRACE_MAX_COLS], bad;
    const char *why;
    int n = csv_split(r->line, cols, at, TRACE_MAX_COLS, &bad, &why);
    bool has_type = false, has_t = false;
    for (int i = 0; i < n; i++) {
        r->col[i] = field_find(cols[i]);
        has_type |= r->col[i] == F_TYPE;
        has_t |= r->col[i] == F_T;
    }
    if (n < 0 || !has_type || !has_t) {
        if (n < 0) {
            snprintf(err, err_size, "%s:1:%zu: not a p2psim trace: %s (a "
                                    "CSV header has at most %d columns)",
                     r->path, bad, why, TRACE_MAX_COLS);
        } else {
            snprintf(err, err_size, "%s:1: not a p2psim trace: expected a CSV "
                                    "header with columns type and t_ps, or a "
                                    "Perfetto JSON file", r->path);
        }
        trace_reader_close(r);
        return NULL;
    }
    r->n_cols = (unsigned)n;
    return r;
}

struct trace_reader *trace_reader_open_stream(FILE *f, const char *name,
                                              char *err, size_t err_size)
{
    struct trace_reader *r = calloc(1, sizeof(*r));
    char *path = strdup(name);
    if (!r || !path) {
        snprintf(err, err_size, "%s: out of memory", name);
        free(r);
        free(path);
        return NULL;
    }
    r->f = f;
    r->path = path;
    return reader_start(r, err, err_size);
}

struct trace_reader *trace_reader_open(const char *path, char *err,
                                       size_t err_size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_size, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    struct trace_reader *r = calloc(1, sizeof(*r));
    char *name = strdup(path);
    if (!r || !name) {
        snprintf(err, err_size, "%s: out of memory", path);
        fclose(f);
        free(r);
        free(name);
        return NULL;
    }
    r->f = f;
    r->own_f = true;
    r->path = name;
    return reader_start(r, err, err_size);
}

enum trace_format trace_reader_format(const struct trace_reader *r)
{
    return r->fmt;
}

/* ---- records --------------------------------------------------------------- */

static int next_csv(struct trace_reader *r, struct trace_rec *out, char *err,
                    size_t err_size)
{
    int k;
    do {
        k = read_line(r, err, err_size);
        if (k <= 0) {
            return k;
        }
    } while (r->line[0] == '\0' || r->line[0] == '#');
    char *v[TRACE_MAX_COLS];
    size_t at[TRACE_MAX_COLS], bad;
    const char *why;
    int n = csv_split(r->line, v, at, r->n_cols, &bad, &why);
    if (n < 0) {
        reader_err(r, err, err_size, bad, "%s", why);
        return -1;
    }
    if ((unsigned)n != r->n_cols) {
        reader_err(r, err, err_size, 0, "%d fields, the header has %u "
                   "columns", n, r->n_cols);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (r->col[i] >= 0 && !set_field(out, r->col[i], v[i])) {
            reader_err(r, err, err_size, at[i], "bad %s '%.64s'%s (%s)",
                       field_names[r->col[i]], v[i],
                       strlen(v[i]) > 64 ? "..." : "",
                       field_wants(r->col[i]));
            return -1;
        }
    }
    if (!rec_in_range(out)) {
        reader_err(r, err, err_size, 0, "t_ps + dur_ps passes %llu ps",
                   (unsigned long long)TRACE_TIME_MAX);
        return -1;
    }
    return 1;
}

/* After an event's object: a ',' (the writer's separator), or nothing.
 * NULL, or where something else starts. */
static const char *json_tail(const char *p)
{
    p += strspn(p, " \t");
    p += *p == ',';
    p += strspn(p, " \t");
    return *p ? p : NULL;
}

static int next_json(struct trace_reader *r, struct trace_rec *out,
                     char *err, size_t err_size)
{
    for (;;) {
        int k = read_line(r, err, err_size);
        if (k <= 0) {
            return k;
        }
        const char *p = r->line + strspn(r->line, " \t");
        p += *p == ',';
        p += strspn(p, " \t");
        if (*p != '{') {
            /* The closing "]}", or blank: nothing else. */
            if (*p && strspn(p, "]} \t") != strlen(p)) {
                reader_err(r, err, err_size, (size_t)(p - r->line) + 1,
                           "not a trace event (an object per line)");
                return -1;
            }
            continue;
        }
        struct trace_api_field *fl;
        size_t n;
        const char *end;
        char why[200];
        size_t base = (size_t)(p - r->line);
        if (trace_json_parse(p, &fl, &n, &end, why, sizeof(why)) < 0) {
            /* why: "COLUMN: ..." counted from p. */
            char *rest;
            unsigned long c = strtoul(why, &rest, 10);
            reader_err(r, err, err_size, c + base, "%s",
                       rest[0] == ':' ? rest + 2 : why);
            return -1;
        }
        const char *extra = json_tail(end);
        if (extra) {
            trace_json_fields_free(fl, n);
            reader_err(r, err, err_size, (size_t)(extra - r->line) + 1,
                       "text after the event's object");
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
                reader_err(r, err, err_size, base + fl[i].col, "bad %s (%s)",
                           fl[i].key, field_wants(f));
                rc = -1;
            }
        }
        trace_json_fields_free(fl, n);
        if (rc < 0) {
            return -1;
        }
        if (is_rec && !rec_in_range(out)) {
            reader_err(r, err, err_size, 0, "t_ps + dur_ps passes %llu ps",
                       (unsigned long long)TRACE_TIME_MAX);
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
        if (r->f && r->own_f) {
            fclose(r->f);
        }
        free(r->path);
        free(r->line);
        free(r);
    }
}

/* ---- filters ----------------------------------------------------------------- */

int trace_parse_time(const char *s, uint64_t *ps, char *why, size_t why_size)
{
    static const struct { const char *unit; uint64_t ps; } units[] = {
        { "ps", 1 }, { "ns", 1000 }, { "us", 1000000 },
        { "ms", UINT64_C(1000000000) }, { "s", UINT64_C(1000000000000) },
    };
    char dummy[4];
    if (!why || !why_size) {
        why = dummy;
        why_size = sizeof(dummy);
    }
    /* Digits, an optional fraction, a unit: exact, in integers (a double
     * would turn 1e300 or "nan" into an undefined conversion). */
    const char *p = s;
    unsigned __int128 mant = 0;
    unsigned frac = 0, digits = 0;
    bool big = false;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        mant = mant * 10 + (unsigned)(*p - '0');
        big |= mant > TRACE_TIME_MAX;
    }
    if (*p == '.') {
        const char *f0 = ++p;
        while (*p >= '0' && *p <= '9') {
            p++;
        }
        digits += (unsigned)(p - f0);
        /* Trailing zeros change nothing; without them, a value that is a
         * whole number of ps is at least its digits, so "big" is right. */
        const char *f1 = p;
        while (f1 > f0 && f1[-1] == '0') {
            f1--;
        }
        if (f1 - f0 > 12) {
            snprintf(why, why_size, "'%s': more than 12 decimals (a time "
                                    "resolves to 1 ps)", s);
            return -1;
        }
        for (const char *q = f0; q < f1; q++) {
            mant = mant * 10 + (unsigned)(*q - '0');
            big |= mant > TRACE_TIME_MAX;
            frac++;
        }
    }
    if (digits == 0) {
        snprintf(why, why_size, "'%s' is not a time: digits and a unit (ps, "
                                "ns, us, ms, s), e.g. 10us", s);
        return -1;
    }
    size_t u = 0;
    while (u < sizeof(units) / sizeof(units[0]) && strcmp(p, units[u].unit)) {
        u++;
    }
    if (u == sizeof(units) / sizeof(units[0])) {
        snprintf(why, why_size, "'%s': a time takes a unit (ps, ns, us, ms, "
                                "s) right after its digits, e.g. 10us%s", s,
                 *p == 'e' || *p == 'E' ? "; no exponent" : "");
        return -1;
    }
    unsigned __int128 den = 1;
    for (unsigned i = 0; i < frac; i++) {
        den *= 10;
    }
    unsigned __int128 v = mant * units[u].ps;
    if (big || v / den > TRACE_TIME_MAX) {
        snprintf(why, why_size, "'%s' is too large (at most %llu ps, about "
                                "106 days)", s,
                 (unsigned long long)TRACE_TIME_MAX);
        return -1;
    }
    if (v % den) {
        snprintf(why, why_size, "'%s' is not a whole number of ps", s);
        return -1;
    }
    *ps = (uint64_t)(v / den);
    return 0;
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
        char why[200];
        if (trace_parse_time(v, &t, why, sizeof(why)) == 0) {
            *(key[0] == 'f' ? &f->from_ps : &f->to_ps) = t;
            return 0;
        }
        snprintf(err, err_size, "trace filter: %s: %s", key, why);
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
