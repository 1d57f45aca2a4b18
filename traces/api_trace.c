/*
 * traces/api_trace.c - reading the API trace (api_trace.h): a small JSON
 * parser for the one shape the shim writes, an object per line whose
 * values are numbers, strings, null, booleans or objects of those.
 * Arrays are accepted and skipped. Nested objects are flattened into
 * dotted keys.
 *
 * Cost: one pass per line, an allocation per field; a trace of a million
 * calls takes a few hundred megabytes, which is what replay needs anyway.
 */
#include <config.h>

#include "traces/api_trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *p;
    char *err;
    size_t err_size;
    struct trace_api_field *fields;
    size_t n, cap;
};

static void fail(struct parser *ps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fail(struct parser *ps, const char *fmt, ...)
{
    if (ps->err && ps->err[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ps->err, ps->err_size, fmt, ap);
        va_end(ap);
    }
}

static void skip_ws(struct parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r' ||
           *ps->p == '\n') {
        ps->p++;
    }
}

/* A JSON string at ps->p (the opening quote), unescaped into a new
 * buffer. \u escapes above 0x7f become '?': the shim writes none. */
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
        fail(ps, "unterminated string");
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
        c = s[++i];
        switch (c) {
        case 'n': out[o++] = '\n'; break;
        case 't': out[o++] = '\t'; break;
        case 'r': out[o++] = '\r'; break;
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'u': {
            unsigned v = 0;
            int k = 0;
            for (; k < 4 && i + 1 < len; k++) {
                char h = s[++i];
                v = v * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10
                                        : h >= 'A' ? h - 'A' + 10
                                                   : h - '0');
            }
            out[o++] = v < 0x80 ? (char)v : '?';
            break;
        }
        default: out[o++] = c; break;
        }
    }
    out[o] = '\0';
    ps->p = s + len + 1;
    return out;
}

static bool add_field(struct parser *ps, const char *key, char *text,
                      bool is_str)
{
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
    ps->fields[ps->n++] = (struct trace_api_field){ k, text, is_str };
    return true;
}

static bool parse_value(struct parser *ps, const char *key, int depth);

static bool parse_object(struct parser *ps, const char *prefix, int depth)
{
    if (depth > 8) {
        fail(ps, "objects nested too deep");
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
        char *k = parse_string(ps);
        if (!k) {
            return false;
        }
        char key[256];
        snprintf(key, sizeof(key), "%s%s%s", prefix, *prefix ? "." : "", k);
        free(k);
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

static bool skip_array(struct parser *ps, int depth)
{
    ps->p++;                    /* '[' */
    skip_ws(ps);
    if (*ps->p == ']') {
        ps->p++;
        return true;
    }
    size_t mark = ps->n;
    for (;;) {
        skip_ws(ps);
        if (!parse_value(ps, "[]", depth)) {
            return false;
        }
        skip_ws(ps);
        if (*ps->p == ',') {
            ps->p++;
        } else if (*ps->p == ']') {
            ps->p++;
            break;
        } else {
            fail(ps, "expected ',' or ']'");
            return false;
        }
    }
    while (ps->n > mark) {      /* arrays are not kept */
        ps->n--;
        free(ps->fields[ps->n].key);
        free(ps->fields[ps->n].text);
    }
    return true;
}

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
        return s && add_field(ps, key, s, true);
    }
    if (strncmp(p, "null", 4) == 0) {
        ps->p += 4;
        return add_field(ps, key, NULL, false);
    }
    if (strncmp(p, "true", 4) == 0 || strncmp(p, "false", 5) == 0) {
        size_t len = p[0] == 't' ? 4 : 5;
        ps->p += len;
        return add_field(ps, key, strndup(p, len), false);
    }
    size_t len = strspn(p, "+-0123456789.eE");
    if (len == 0) {
        fail(ps, "bad value for \"%s\"", key);
        return false;
    }
    ps->p += len;
    char *num = strndup(p, len);
    if (!num) {
        fail(ps, "out of memory");
        return false;
    }
    return add_field(ps, key, num, false);
}

static void fields_free(struct trace_api_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(f[i].key);
        free(f[i].text);
    }
    free(f);
}

/* Take the field called key out of the list (NULL text if absent). */
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
    return (struct trace_api_field){ NULL, NULL, false };
}

static bool take_u64(struct parser *ps, const char *key, uint64_t *out,
                     bool required)
{
    struct trace_api_field f = take(ps, key);
    bool ok = f.text && !f.is_str;
    if (ok) {
        *out = strtoull(f.text, NULL, 10);
    } else if (required) {
        fail(ps, "no \"%s\"", key);
    }
    free(f.key);
    free(f.text);
    return ok;
}

int trace_api_parse_line(const char *line, struct trace_api_call *c,
                         struct trace_api_header *h, char *err,
                         size_t err_size)
{
    struct parser ps = { .p = line, .err = err, .err_size = err_size };
    if (err_size) {
        err[0] = '\0';
    }
    memset(c, 0, sizeof(*c));
    skip_ws(&ps);
    if (*ps.p != '{') {
        fail(&ps, "not a JSON object");
        return -1;
    }
    if (!parse_object(&ps, "", 0)) {
        fields_free(ps.fields, ps.n);
        return -1;
    }
    uint64_t v;
    if (take_u64(&ps, "api_trace", &v, false)) {
        memset(h, 0, sizeof(*h));
        if (v != TRACE_API_VERSION) {
            fail(&ps, "API trace version %llu (this reader knows %d)",
                 (unsigned long long)v, TRACE_API_VERSION);
            fields_free(ps.fields, ps.n);
            return -1;
        }
        if (take_u64(&ps, "pid", &v, false)) {
            h->pid = (long)v;
        }
        struct trace_api_field b = take(&ps, "backend");
        struct trace_api_field p = take(&ps, "program");
        snprintf(h->backend, sizeof(h->backend), "%s", b.text ? b.text : "");
        snprintf(h->program, sizeof(h->program), "%s", p.text ? p.text : "");
        free(b.key);
        free(b.text);
        free(p.key);
        free(p.text);
        fields_free(ps.fields, ps.n);
        return 1;
    }
    bool ok = take_u64(&ps, "seq", &c->seq, true);
    ok = take_u64(&ps, "pid", &v, true) && ok;
    c->pid = (long)v;
    ok = take_u64(&ps, "tid", &v, true) && ok;
    c->tid = (int)v;
    if (take_u64(&ps, "ostid", &v, false)) {
        c->ostid = (long)v;
    }
    if (take_u64(&ps, "depth", &v, false)) {
        c->depth = (unsigned)v;
    }
    ok = take_u64(&ps, "t0_ns", &c->t0_ns, true) && ok;
    ok = take_u64(&ps, "t1_ns", &c->t1_ns, true) && ok;
    uint64_t s0, s1;
    bool has0 = take_u64(&ps, "sim0_ps", &s0, false);
    bool has1 = take_u64(&ps, "sim1_ps", &s1, false);
    if (has0 && has1) {
        c->has_sim = true;
        c->sim0_ps = (int64_t)s0;
        c->sim1_ps = (int64_t)s1;
    }
    struct trace_api_field name = take(&ps, "name");
    if (!name.text || !name.is_str) {
        fail(&ps, "no \"name\"");
        ok = false;
        free(name.text);
        name.text = NULL;
    }
    free(name.key);
    c->name = name.text;
    c->ret = take(&ps, "ret");
    c->fields = ps.fields;
    c->n_fields = ps.n;
    if (!ok) {
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

int trace_api_read(const char *path, struct trace_api_file *f, char *err,
                   size_t err_size)
{
    memset(f, 0, sizeof(*f));
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t line_cap = 0, cap_calls = 0, cap_headers = 0;
    unsigned n = 0;
    int rc = 0;
    while (getline(&line, &line_cap, in) >= 0) {
        n++;
        if (strspn(line, " \t\r\n") == strlen(line)) {
            continue;
        }
        struct trace_api_call c;
        struct trace_api_header h;
        char why[256];
        int k = trace_api_parse_line(line, &c, &h, why, sizeof(why));
        if (k < 0) {
            snprintf(err, err_size, "%s:%u: %s", path, n, why);
            rc = -1;
            break;
        }
        if (k == 1) {
            if (f->n_headers == cap_headers) {
                cap_headers = cap_headers ? 2 * cap_headers : 4;
                void *t = realloc(f->headers, cap_headers * sizeof(h));
                if (!t) {
                    snprintf(err, err_size, "%s: out of memory", path);
                    rc = -1;
                    break;
                }
                f->headers = t;
            }
            h.line = n;
            f->headers[f->n_headers++] = h;
            continue;
        }
        if (f->n_calls == cap_calls) {
            cap_calls = cap_calls ? 2 * cap_calls : 256;
            void *t = realloc(f->calls, cap_calls * sizeof(c));
            if (!t) {
                trace_api_call_fini(&c);
                snprintf(err, err_size, "%s: out of memory", path);
                rc = -1;
                break;
            }
            f->calls = t;
        }
        c.line = n;
        f->calls[f->n_calls++] = c;
    }
    free(line);
    fclose(in);
    if (rc == 0 && f->n_headers == 0 && f->n_calls == 0) {
        snprintf(err, err_size, "%s: empty (no API trace was recorded)",
                 path);
        rc = -1;
    }
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

/* A value's text as an integer: decimal, negative, or "0x" hex. */
static bool text_i64(const char *t, bool is_str, int64_t *out)
{
    if (!t) {
        return false;
    }
    char *end;
    errno = 0;
    if (is_str) {
        if (strncmp(t, "0x", 2) != 0) {
            return false;
        }
        *out = (int64_t)strtoull(t + 2, &end, 16);
    } else if (t[0] == '-') {
        *out = strtoll(t, &end, 10);
    } else {
        *out = (int64_t)strtoull(t, &end, 10);
    }
    return *end == '\0' && end != t && errno == 0;
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
    int64_t v;
    if (!trace_api_get_i64(c, key, &v)) {
        return false;
    }
    *out = (uint64_t)v;
    return true;
}

bool trace_api_get_double(const struct trace_api_call *c, const char *key,
                          double *out)
{
    const struct trace_api_field *f = trace_api_find(c, key);
    if (!f || !f->text || f->is_str) {
        return false;
    }
    char *end;
    *out = strtod(f->text, &end);
    return *end == '\0';
}

bool trace_api_ret_i64(const struct trace_api_call *c, int64_t *out)
{
    return text_i64(c->ret.text, c->ret.is_str, out);
}

/* ---- any JSON object ------------------------------------------------------ */

int trace_json_flatten(const char *text, struct trace_api_field **fields,
                       size_t *n, char *err, size_t err_size)
{
    struct parser ps = { .p = text, .err = err, .err_size = err_size };
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
    if (!parse_object(&ps, "", 0)) {
        fields_free(ps.fields, ps.n);
        return -1;
    }
    *fields = ps.fields;
    *n = ps.n;
    return 0;
}

void trace_json_fields_free(struct trace_api_field *fields, size_t n)
{
    fields_free(fields, n);
}
