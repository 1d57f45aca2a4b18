/*
 * traces/api_trace.c - reading the API trace (api_trace.h): a small JSON
 * parser for the one shape the shim writes, an object per line whose
 * values are numbers, strings, null, booleans or objects of those.
 * Arrays are checked and skipped. Nested objects are flattened into
 * dotted keys.
 *
 * Untrusted input (traces/api-trace.md, "Limits"): lines of at most
 * TRACE_TEXT_LINE_MAX bytes, values nested at most TRACE_JSON_MAX_DEPTH
 * deep (objects and arrays counted alike, so the recursion is bounded),
 * keys of at most TRACE_JSON_KEY_MAX bytes, TRACE_JSON_FIELDS_MAX values
 * per line; numbers follow JSON's grammar and integers must fit their
 * field. Every error says the column.
 *
 * Cost: one pass per line, an allocation per field; a trace of a million
 * calls takes a few hundred megabytes, which is what replay needs anyway.
 */
#include <config.h>

#include "traces/api_trace.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/text.h"

struct parser {
    const char *start;          /* the line, for columns */
    const char *p;
    char *err;
    size_t err_size;
    struct trace_api_field *fields;
    size_t n, cap;
};

static size_t col_of(const struct parser *ps, const char *at)
{
    return (size_t)(at - ps->start) + 1;
}

/* The first failure wins: "COLUMN: why". */
static void fail_at(struct parser *ps, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_at(struct parser *ps, const char *at, const char *fmt, ...)
{
    if (ps->err && ps->err_size && ps->err[0] == '\0') {
        int k = snprintf(ps->err, ps->err_size, "%zu: ", col_of(ps, at));
        if (k > 0 && (size_t)k < ps->err_size) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(ps->err + k, ps->err_size - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
}

#define fail(ps, ...) fail_at((ps), (ps)->p, __VA_ARGS__)

static void skip_ws(struct parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r' ||
           *ps->p == '\n') {
        ps->p++;
    }
}

static int hex_digit(char h)
{
    return h >= '0' && h <= '9'   ? h - '0'
           : h >= 'a' && h <= 'f' ? h - 'a' + 10
           : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                  : -1;
}

/* Four hex digits at s, or -1. */
static long hex4(const char *s)
{
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int d = hex_digit(s[k]);
        if (d < 0) {
            return -1;
        }
        v = v * 16 + d;
    }
    return v;
}

/* Code point v as UTF-8 at out; the bytes written. */
static size_t put_utf8(char *out, unsigned long v)
{
    if (v < 0x800) {
        out[0] = (char)(0xc0 | v >> 6);
        out[1] = (char)(0x80 | (v & 0x3f));
        return 2;
    }
    if (v < 0x10000) {
        out[0] = (char)(0xe0 | v >> 12);
        out[1] = (char)(0x80 | (v >> 6 & 0x3f));
        out[2] = (char)(0x80 | (v & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | v >> 18);
    out[1] = (char)(0x80 | (v >> 12 & 0x3f));
    out[2] = (char)(0x80 | (v >> 6 & 0x3f));
    out[3] = (char)(0x80 | (v & 0x3f));
    return 4;
}

/*
 * A JSON string at ps->p (the opening quote), unescaped into a new
 * buffer. The recorder writes each byte outside printable ASCII as
 * \u00XX (cuda/passthrough/record.c), so \u0001 to \u00ff give that byte
 * back; higher code points (a file edited by hand) become UTF-8, a
 * surrogate pair one code point. \u0000 and unknown escapes are errors.
 * The output is never longer than the input, escapes included.
 */
static char *parse_string(struct parser *ps)
{
    if (*ps->p != '"') {
        fail(ps, "expected a string");
        return NULL;
    }
    const char *s = ++ps->p;
    size_t len = 0;
    while (s[len] && s[len] != '"') {
        len += s[len] == '\\' && s[len + 1] ? 2 : 1;
    }
    if (s[len] != '"') {
        fail_at(ps, s - 1, "unterminated string");
        return NULL;
    }
    char *out = malloc(len + 1);
    if (!out) {
        fail(ps, "out of memory");
        return NULL;
    }
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c != '\\') {
            out[o++] = c;
            continue;
        }
        const char *esc = &s[i];
        c = s[++i];
        switch (c) {
        case '"': case '\\': case '/': out[o++] = c; break;
        case 'n': out[o++] = '\n'; break;
        case 't': out[o++] = '\t'; break;
        case 'r': out[o++] = '\r'; break;
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'u': {
            long v = i + 4 < len ? hex4(&s[i + 1]) : -1;
            if (v < 0) {
                fail_at(ps, esc, "\\u takes four hex digits");
                goto bad;
            }
            i += 4;
            if (v == 0) {
                fail_at(ps, esc, "a NUL character (\\u0000) in a string");
                goto bad;
            }
            if (v <= 0xff) {
                out[o++] = (char)v;
                break;
            }
            unsigned long cp = (unsigned long)v;
            if (v >= 0xdc00 && v <= 0xdfff) {
                fail_at(ps, esc, "a lone low surrogate \\u%04lx", cp);
                goto bad;
            }
            if (v >= 0xd800 && v <= 0xdbff) {
                long lo = i + 6 < len && s[i + 1] == '\\' && s[i + 2] == 'u'
                              ? hex4(&s[i + 3])
                              : -1;
                if (lo < 0xdc00 || lo > 0xdfff) {
                    fail_at(ps, esc, "a high surrogate \\u%04lx without its "
                                     "low half", cp);
                    goto bad;
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) +
                     ((unsigned long)lo - 0xdc00);
                i += 6;
            }
            o += put_utf8(&out[o], cp);
            break;
        }
        default:
            fail_at(ps, esc, "unknown escape '\\%c' in a string",
                    c >= 0x20 && c < 0x7f ? c : '?');
            goto bad;
        }
    }
    out[o] = '\0';
    ps->p = s + len + 1;
    return out;
bad:
    free(out);
    return NULL;
}

static bool add_field(struct parser *ps, const char *key, char *text,
                      bool is_str, const char *at)
{
    if (ps->n == TRACE_JSON_FIELDS_MAX) {
        fail_at(ps, at, "more than %d values in one line",
                TRACE_JSON_FIELDS_MAX);
        free(text);
        return false;
    }
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 16;
        struct trace_api_field *f = realloc(ps->fields, cap * sizeof(*f));
        if (!f) {
            fail(ps, "out of memory");
            free(text);
            return false;
        }
        ps->fields = f;
        ps->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        fail(ps, "out of memory");
        free(text);
        return false;
    }
    ps->fields[ps->n++] = (struct trace_api_field){
        k, text, is_str, (unsigned)col_of(ps, at)
    };
    return true;
}

static bool parse_value(struct parser *ps, const char *key, int depth);

/* depth: of this object (the line's is 1). */
static bool parse_object(struct parser *ps, const char *prefix, int depth)
{
    if (depth > TRACE_JSON_MAX_DEPTH) {
        fail(ps, "objects and arrays nested deeper than %d",
             TRACE_JSON_MAX_DEPTH);
        return false;
    }
    ps->p++;                    /* '{' */
    skip_ws(ps);
    if (*ps->p == '}') {
        ps->p++;
        return true;
    }
    for (;;) {
        skip_ws(ps);
        const char *at = ps->p;
        char *k = parse_string(ps);
        if (!k) {
            return false;
        }
        char key[TRACE_JSON_KEY_MAX + 1];
        int kl = snprintf(key, sizeof(key), "%s%s%s", prefix,
                          *prefix ? "." : "", k);
        free(k);
        if (kl < 0 || (size_t)kl >= sizeof(key)) {
            fail_at(ps, at, "key longer than %d bytes", TRACE_JSON_KEY_MAX);
            return false;
        }
        skip_ws(ps);
        if (*ps->p != ':') {
            fail(ps, "expected ':' after \"%s\"", key);
            return false;
        }
        ps->p++;
        skip_ws(ps);
        if (!parse_value(ps, key, depth)) {
            return false;
        }
        skip_ws(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p == '}') {
            ps->p++;
            return true;
        }
        fail(ps, "expected ',' or '}' after \"%s\"", key);
        return false;
    }
}

/* depth: of this array. Its values are checked, then dropped. */
static bool skip_array(struct parser *ps, int depth)
{
    if (depth > TRACE_JSON_MAX_DEPTH) {
        fail(ps, "objects and arrays nested deeper than %d",
             TRACE_JSON_MAX_DEPTH);
        return false;
    }
    ps->p++;                    /* '[' */
    skip_ws(ps);
    if (*ps->p == ']') {
        ps->p++;
        return true;
    }
    size_t mark = ps->n;
    bool ok = true;
    for (;;) {
        skip_ws(ps);
        if (!parse_value(ps, "[]", depth)) {
            ok = false;
            break;
        }
        skip_ws(ps);
        if (*ps->p == ',') {
            ps->p++;
        } else if (*ps->p == ']') {
            ps->p++;
            break;
        } else {
            fail(ps, "expected ',' or ']'");
            ok = false;
            break;
        }
    }
    while (ps->n > mark) {      /* arrays are not kept */
        ps->n--;
        free(ps->fields[ps->n].key);
        free(ps->fields[ps->n].text);
    }
    return ok;
}

/* The length of a JSON number at p (RFC 8259 grammar), or 0. */
static size_t number_len(const char *p)
{
    const char *q = p;
    q += *q == '-';
    if (*q == '0') {
        q++;
    } else if (*q >= '1' && *q <= '9') {
        while (*q >= '0' && *q <= '9') {
            q++;
        }
    } else {
        return 0;
    }
    if (*q == '.') {
        q++;
        if (!(*q >= '0' && *q <= '9')) {
            return 0;
        }
        while (*q >= '0' && *q <= '9') {
            q++;
        }
    }
    if (*q == 'e' || *q == 'E') {
        q++;
        q += *q == '+' || *q == '-';
        if (!(*q >= '0' && *q <= '9')) {
            return 0;
        }
        while (*q >= '0' && *q <= '9') {
            q++;
        }
    }
    return (size_t)(q - p);
}

/* A literal (null, true, false) at p, not followed by more letters. */
static bool is_literal(const char *p, const char *lit)
{
    size_t n = strlen(lit);
    return strncmp(p, lit, n) == 0 &&
           !((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
             (p[n] >= '0' && p[n] <= '9'));
}

/* depth: of the container holding this value. */
static bool parse_value(struct parser *ps, const char *key, int depth)
{
    const char *p = ps->p;
    if (*p == '{') {
        return parse_object(ps, key, depth + 1);
    }
    if (*p == '[') {
        return skip_array(ps, depth + 1);
    }
    if (*p == '"') {
        char *s = parse_string(ps);
        return s && add_field(ps, key, s, true, p);
    }
    if (is_literal(p, "null")) {
        ps->p += 4;
        return add_field(ps, key, NULL, false, p);
    }
    if (is_literal(p, "true") || is_literal(p, "false")) {
        size_t len = p[0] == 't' ? 4 : 5;
        char *t = strndup(p, len);
        if (!t) {
            fail(ps, "out of memory");
            return false;
        }
        ps->p += len;
        return add_field(ps, key, t, false, p);
    }
    size_t len = number_len(p);
    if (len == 0) {
        fail(ps, *p ? "bad value for \"%s\"" : "the line ends in \"%s\"",
             key);
        return false;
    }
    ps->p += len;
    char *num = strndup(p, len);
    if (!num) {
        fail(ps, "out of memory");
        return false;
    }
    return add_field(ps, key, num, false, p);
}

static void fields_free(struct trace_api_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(f[i].key);
        free(f[i].text);
    }
    free(f);
}

/* Take the field called key out of the list (NULL key and text if
 * absent). */
static struct trace_api_field take(struct parser *ps, const char *key)
{
    for (size_t i = 0; i < ps->n; i++) {
        if (strcmp(ps->fields[i].key, key) == 0) {
            struct trace_api_field f = ps->fields[i];
            memmove(&ps->fields[i], &ps->fields[i + 1],
                    (ps->n - i - 1) * sizeof(*ps->fields));
            ps->n--;
            return f;
        }
    }
    return (struct trace_api_field){ NULL, NULL, false, 0 };
}

/*
 * The field called key as an integer in [0, max]. Absent: false, an error
 * only when required. Present but not such a number: false and an error
 * at its column (*bad set).
 */
static bool take_u64(struct parser *ps, const char *key, uint64_t max,
                     uint64_t *out, bool required, bool *bad)
{
    struct trace_api_field f = take(ps, key);
    bool ok = false;
    if (!f.key) {
        if (required) {
            fail_at(ps, ps->start, "no \"%s\"", key);
            *bad = true;
        }
    } else if (!f.is_str && trace_text_u64(f.text, false, max, out)) {
        ok = true;
    } else {
        fail_at(ps, ps->start + f.col - 1, "\"%s\" is not an integer from "
                "0 to %llu", key, (unsigned long long)max);
        *bad = true;
    }
    free(f.key);
    free(f.text);
    return ok;
}

/* Blanks only after the object. */
static bool at_end(struct parser *ps)
{
    skip_ws(ps);
    if (*ps->p) {
        fail(ps, "text after the object");
        return false;
    }
    return true;
}

int trace_api_parse_line(const char *line, struct trace_api_call *c,
                         struct trace_api_header *h, char *err,
                         size_t err_size)
{
    struct parser ps = { .start = line, .p = line, .err = err,
                         .err_size = err_size };
    if (err_size) {
        err[0] = '\0';
    }
    memset(c, 0, sizeof(*c));
    skip_ws(&ps);
    if (*ps.p != '{') {
        fail(&ps, "not a JSON object");
        return -1;
    }
    if (!parse_object(&ps, "", 1) || !at_end(&ps)) {
        fields_free(ps.fields, ps.n);
        return -1;
    }
    uint64_t v;
    bool bad = false;
    if (take_u64(&ps, "api_trace", UINT64_MAX, &v, false, &bad)) {
        memset(h, 0, sizeof(*h));
        if (v != TRACE_API_VERSION) {
            fail_at(&ps, line, "API trace version %llu (this reader knows "
                    "%d)", (unsigned long long)v, TRACE_API_VERSION);
            fields_free(ps.fields, ps.n);
            return -1;
        }
        if (take_u64(&ps, "pid", INT_MAX, &v, false, &bad)) {
            h->pid = (long)v;
        }
        struct trace_api_field b = take(&ps, "backend");
        struct trace_api_field p = take(&ps, "program");
        /* Shown only: a longer name is cut (the recorder cuts at 255). */
        snprintf(h->backend, sizeof(h->backend), "%s", b.text ? b.text : "");
        snprintf(h->program, sizeof(h->program), "%s", p.text ? p.text : "");
        free(b.key);
        free(b.text);
        free(p.key);
        free(p.text);
        fields_free(ps.fields, ps.n);
        return bad ? -1 : 1;
    }
    if (bad) {
        fields_free(ps.fields, ps.n);
        return -1;
    }
    take_u64(&ps, "seq", UINT64_MAX, &c->seq, true, &bad);
    if (take_u64(&ps, "pid", INT_MAX, &v, true, &bad)) {
        c->pid = (long)v;
    }
    if (take_u64(&ps, "tid", INT_MAX, &v, true, &bad)) {
        c->tid = (int)v;
    }
    if (take_u64(&ps, "ostid", INT_MAX, &v, false, &bad)) {
        c->ostid = (long)v;
    }
    if (take_u64(&ps, "depth", UINT_MAX, &v, false, &bad)) {
        c->depth = (unsigned)v;
    }
    /* Times fit int64, and a call ends no earlier than it starts, so
     * their differences and sums cannot overflow. */
    take_u64(&ps, "t0_ns", INT64_MAX, &c->t0_ns, true, &bad);
    take_u64(&ps, "t1_ns", INT64_MAX, &c->t1_ns, true, &bad);
    if (!bad && c->t1_ns < c->t0_ns) {
        fail_at(&ps, line, "t1_ns is before t0_ns");
        bad = true;
    }
    uint64_t s0 = 0, s1 = 0;
    bool has0 = take_u64(&ps, "sim0_ps", INT64_MAX, &s0, false, &bad);
    bool has1 = take_u64(&ps, "sim1_ps", INT64_MAX, &s1, false, &bad);
    if (!bad && has0 != has1) {
        fail_at(&ps, line, "%s without %s", has0 ? "sim0_ps" : "sim1_ps",
                has0 ? "sim1_ps" : "sim0_ps");
        bad = true;
    } else if (!bad && s1 < s0) {
        fail_at(&ps, line, "sim1_ps is before sim0_ps");
        bad = true;
    }
    if (has0 && has1) {
        c->has_sim = true;
        c->sim0_ps = (int64_t)s0;
        c->sim1_ps = (int64_t)s1;
    }
    struct trace_api_field name = take(&ps, "name");
    if (!name.text || !name.is_str) {
        fail_at(&ps, name.key ? line + name.col - 1 : line,
                name.key ? "\"name\" is not a string" : "no \"name\"");
        bad = true;
        free(name.text);
        name.text = NULL;
    }
    free(name.key);
    c->name = name.text;
    c->ret = take(&ps, "ret");
    c->fields = ps.fields;
    c->n_fields = ps.n;
    if (bad) {
        trace_api_call_fini(c);
        return -1;
    }
    return 0;
}

void trace_api_call_fini(struct trace_api_call *c)
{
    free(c->name);
    free(c->ret.key);
    free(c->ret.text);
    fields_free(c->fields, c->n_fields);
    memset(c, 0, sizeof(*c));
}

/* A line-reading failure as "name:line:column: why". */
static void line_error(char *err, size_t err_size, const char *name,
                       size_t n, enum trace_text_line k, size_t len)
{
    switch (k) {
    case TRACE_TEXT_TOO_LONG:
        snprintf(err, err_size, "%s:%zu:%u: line longer than %u bytes",
                 name, n, TRACE_TEXT_LINE_MAX + 1, TRACE_TEXT_LINE_MAX);
        break;
    case TRACE_TEXT_NUL:
        snprintf(err, err_size, "%s:%zu:%zu: a NUL byte", name, n, len + 1);
        break;
    case TRACE_TEXT_NOMEM:
        snprintf(err, err_size, "%s:%zu: out of memory", name, n);
        break;
    default:
        snprintf(err, err_size, "%s: cannot read: %s", name, strerror(errno));
        break;
    }
}

int trace_api_read_stream(FILE *in, const char *name,
                          struct trace_api_file *f, char *err,
                          size_t err_size)
{
    memset(f, 0, sizeof(*f));
    char *line = NULL;
    size_t line_cap = 0, len, cap_calls = 0, cap_headers = 0;
    size_t n = 0;
    int rc = 0;
    enum trace_text_line k;
    while ((k = trace_text_getline(in, &line, &line_cap, TRACE_TEXT_LINE_MAX,
                                   &len)) != TRACE_TEXT_EOF) {
        n++;
        if (k != TRACE_TEXT_LINE || n > TRACE_TEXT_LINES_MAX) {
            if (k == TRACE_TEXT_LINE) {
                snprintf(err, err_size, "%s:%zu: more than %u lines", name,
                         n, TRACE_TEXT_LINES_MAX);
            } else {
                line_error(err, err_size, name, n, k, len);
            }
            rc = -1;
            break;
        }
        if (strspn(line, " \t\r") == len) {
            continue;
        }
        struct trace_api_call c;
        struct trace_api_header h;
        char why[256];
        int kind = trace_api_parse_line(line, &c, &h, why, sizeof(why));
        if (kind < 0) {
            snprintf(err, err_size, "%s:%zu:%s", name, n, why);
            rc = -1;
            break;
        }
        if (kind == 1) {
            if (f->n_headers == cap_headers) {
                cap_headers = cap_headers ? 2 * cap_headers : 4;
                void *t = realloc(f->headers, cap_headers * sizeof(h));
                if (!t) {
                    snprintf(err, err_size, "%s: out of memory", name);
                    rc = -1;
                    break;
                }
                f->headers = t;
            }
            h.line = (unsigned)n;
            f->headers[f->n_headers++] = h;
            continue;
        }
        if (f->n_calls == cap_calls) {
            cap_calls = cap_calls ? 2 * cap_calls : 256;
            void *t = realloc(f->calls, cap_calls * sizeof(c));
            if (!t) {
                trace_api_call_fini(&c);
                snprintf(err, err_size, "%s: out of memory", name);
                rc = -1;
                break;
            }
            f->calls = t;
        }
        c.line = (unsigned)n;
        f->calls[f->n_calls++] = c;
    }
    free(line);
    if (rc == 0 && f->n_headers == 0 && f->n_calls == 0) {
        snprintf(err, err_size, "%s: empty (no API trace was recorded)",
                 name);
        rc = -1;
    }
    return rc;
}

int trace_api_read(const char *path, struct trace_api_file *f, char *err,
                   size_t err_size)
{
    memset(f, 0, sizeof(*f));
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = trace_api_read_stream(in, path, f, err, err_size);
    fclose(in);
    return rc;
}

void trace_api_free(struct trace_api_file *f)
{
    for (size_t i = 0; i < f->n_calls; i++) {
        trace_api_call_fini(&f->calls[i]);
    }
    free(f->calls);
    free(f->headers);
    memset(f, 0, sizeof(*f));
}

const struct trace_api_field *trace_api_find(const struct trace_api_call *c,
                                             const char *key)
{
    for (size_t i = 0; i < c->n_fields; i++) {
        if (strcmp(c->fields[i].key, key) == 0) {
            return &c->fields[i];
        }
    }
    return NULL;
}

/*
 * A value's text as an integer: decimal (a '-' allowed), or a "0x" hex
 * string (pointers: any 64-bit pattern, as int64 in two's complement).
 * No fraction, exponent or blank; out of int64's range (decimal) or 64
 * bits (hex) is false.
 */
static bool text_i64(const char *t, bool is_str, int64_t *out)
{
    uint64_t v;
    if (!t) {
        return false;
    }
    if (is_str) {
        if (!trace_text_u64(t, true, UINT64_MAX, &v)) {
            return false;
        }
        *out = (int64_t)v;
        return true;
    }
    if (t[0] == '-') {
        if (!trace_text_u64(t + 1, false, (uint64_t)INT64_MAX + 1, &v)) {
            return false;
        }
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
        return true;
    }
    if (!trace_text_u64(t, false, INT64_MAX, &v)) {
        return false;
    }
    *out = (int64_t)v;
    return true;
}

bool trace_api_get_i64(const struct trace_api_call *c, const char *key,
                       int64_t *out)
{
    const struct trace_api_field *f = trace_api_find(c, key);
    return f && text_i64(f->text, f->is_str, out);
}

bool trace_api_get_u64(const struct trace_api_call *c, const char *key,
                       uint64_t *out)
{
    const struct trace_api_field *f = trace_api_find(c, key);
    return f && f->text && trace_text_u64(f->text, f->is_str, UINT64_MAX,
                                          out);
}

bool trace_api_get_double(const struct trace_api_call *c, const char *key,
                          double *out)
{
    const struct trace_api_field *f = trace_api_find(c, key);
    if (!f || !f->text || f->is_str) {
        return false;
    }
    char *end;
    double v = strtod(f->text, &end);
    if (*end != '\0' || end == f->text || !isfinite(v)) {
        return false;
    }
    *out = v;
    return true;
}

bool trace_api_ret_i64(const struct trace_api_call *c, int64_t *out)
{
    return text_i64(c->ret.text, c->ret.is_str, out);
}

/* ---- any JSON object ------------------------------------------------------ */

int trace_json_parse(const char *text, struct trace_api_field **fields,
                     size_t *n, const char **end, char *err,
                     size_t err_size)
{
    struct parser ps = { .start = text, .p = text, .err = err,
                         .err_size = err_size };
    if (err_size) {
        err[0] = '\0';
    }
    *fields = NULL;
    *n = 0;
    skip_ws(&ps);
    if (*ps.p != '{') {
        fail(&ps, "not a JSON object");
        return -1;
    }
    if (!parse_object(&ps, "", 1)) {
        fields_free(ps.fields, ps.n);
        return -1;
    }
    *fields = ps.fields;
    *n = ps.n;
    if (end) {
        *end = ps.p;
    }
    return 0;
}

int trace_json_flatten(const char *text, struct trace_api_field **fields,
                       size_t *n, char *err, size_t err_size)
{
    return trace_json_parse(text, fields, n, NULL, err, err_size);
}

void trace_json_fields_free(struct trace_api_field *fields, size_t n)
{
    fields_free(fields, n);
}
