/*
 * traces/trace_write.c - writing fabric trace records (format.h) as CSV or
 * as Chrome / Perfetto JSON trace events, with a size cap; the event log's
 * ftrace-style lines.
 *
 * Perfetto layout (traces/trace-format.md): process 1 "links" has one
 * thread (track) per link direction, each TLP crossing it a complete
 * ("X") slice; process 2 "copy engines" one track per engine, each
 * operation a slice; process 3 "events" one track per component, each
 * event an instant. A non-posted request (MRd, AtomicOps, translation
 * requests) and each of its completions are joined by a flow ("s" on the
 * request's last hop, "f" on the completion's first), matched by
 * (Requester ID, tag). Each event is one line, so the file can be read
 * back line by line (trace_read.c) and cut short without losing the
 * earlier lines.
 *
 * Cost: one formatted line per record, by hand-written appenders (no
 * printf on the path of a record: it was most of tracing's cost) into a
 * line buffer, written through a 1 MiB stdio buffer; tracks are found by
 * a linear search behind a last-hit check (a machine has tens of links).
 */
#include <config.h>

#include "traces/format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Tracks of one Perfetto process. */
struct trace_tracks {
    char (*name)[TRACE_NAME_LEN];
    unsigned n, cap, last;
};

/* A non-posted request's last hop, for the flow to its completions. */
struct trace_pending {
    uint32_t key;               /* requester << 10 | tag, +1 (0: empty) */
    unsigned tid;
    uint64_t t_ps;
};

#define TRACE_PENDING_SLOTS 4096u
#define TRACE_WRITE_BUFFER (1u << 20)   /* stdio buffer of the file */
#define TRACE_PIDS 3

struct trace_writer {
    FILE *f;
    enum trace_format fmt;
    uint64_t max_bytes, bytes, dropped;
    bool capped, failed, first;
    struct trace_tracks tracks[TRACE_PIDS];
    struct trace_pending *pending;
    uint64_t next_flow;
    char *line;                 /* the record being formatted */
    size_t line_cap;
};

static const char *const rec_type_names[TRACE_REC_TYPE_COUNT] = {
    "hop", "op", "event",
};

static const char *const pid_names[TRACE_PIDS] = {
    "links", "copy engines", "events",
};

/* The Perfetto footer: what closing the file adds. */
#define TRACE_JSON_FOOTER "\n]}\n"

const char *trace_rec_type_name(enum trace_rec_type t)
{
    return (unsigned)t < TRACE_REC_TYPE_COUNT ? rec_type_names[t] : "?";
}

int trace_rec_type_find(const char *name)
{
    for (int i = 0; i < TRACE_REC_TYPE_COUNT; i++) {
        if (!strcmp(name, rec_type_names[i])) {
            return i;
        }
    }
    return -1;
}

void trace_set(char *field, size_t n, const char *s)
{
    if (n == 0) {
        return;
    }
    size_t len = s ? strnlen(s, n - 1) : 0;
    memcpy(field, s ? s : "", len);
    field[len] = '\0';
}

int trace_format_find(const char *name)
{
    if (!strcmp(name, "csv")) {
        return TRACE_FMT_CSV;
    }
    if (!strcmp(name, "perfetto") || !strcmp(name, "json")) {
        return TRACE_FMT_PERFETTO;
    }
    return -1;
}

int trace_format_of_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/')) {
        return -1;
    }
    return trace_format_find(dot + 1);
}

const char *trace_format_name(enum trace_format f)
{
    return f == TRACE_FMT_CSV ? "csv" : "perfetto";
}

/* ---- the line buffer -------------------------------------------------------- */

struct trace_buf {
    char *s;
    size_t len, cap;
    bool oom;
};

static void buf_add(struct trace_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void buf_add(struct trace_buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        /* An empty buffer has no s: NULL + 0 is undefined in C, so it is
         * measured with vsnprintf(NULL, 0) instead. */
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->cap - b->len, fmt,
                          ap);
        va_end(ap);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if (b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = 2 * b->cap + (size_t)n;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

/*
 * The hot appenders: every record goes through them (a TLP per link, so
 * millions in a long run), and vsnprintf was most of tracing's cost. They
 * write what the printf conversions named in their comments would.
 */

/* Make room for n more bytes; false (b->oom) if there is none. */
static bool buf_room(struct trace_buf *b, size_t n)
{
    if (b->len + n < b->cap) {
        return true;
    }
    size_t cap = 2 * b->cap + n + 1;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

/* n bytes of s ("%.*s"). Unlike buf_add, no NUL follows: a record is
 * its len bytes. */
static inline void buf_mem(struct trace_buf *b, const char *s, size_t n)
{
    if (b->len + n < b->cap || buf_room(b, n)) {
        memcpy(b->s + b->len, s, n);
        b->len += n;
    }
}

/* A string ("%s"). */
static void buf_str(struct trace_buf *b, const char *s)
{
    buf_mem(b, s, strlen(s));
}

/* A string literal. */
#define buf_lit(b, lit) buf_mem((b), (lit), sizeof(lit) - 1)

static inline void buf_char(struct trace_buf *b, char c)
{
    if (b->len + 1 < b->cap || buf_room(b, 1)) {
        b->s[b->len++] = c;
    }
}

/* v in decimal ("%" PRIu64), at least width digits with leading zeros. */
static void buf_dec(struct trace_buf *b, uint64_t v, unsigned width)
{
    char d[24];
    unsigned n = 0;
    do {
        d[sizeof(d) - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n < width) {
        d[sizeof(d) - 1 - n++] = '0';
    }
    buf_mem(b, d + sizeof(d) - n, n);
}

/* v in lower-case hex ("%" PRIx64), at least width digits. */
static void buf_hex(struct trace_buf *b, uint64_t v, unsigned width)
{
    static const char digit[] = "0123456789abcdef";
    char d[20];
    unsigned n = 0;
    do {
        d[sizeof(d) - 1 - n++] = digit[v & 15];
        v >>= 4;
    } while (v);
    while (n < width) {
        d[sizeof(d) - 1 - n++] = '0';
    }
    buf_mem(b, d + sizeof(d) - n, n);
}

/* A PCI ID as "bb:dd.f" ("%02x:%02x.%x"). */
static void buf_pci_id(struct trace_buf *b, uint32_t id)
{
    buf_hex(b, (id >> 8) & 0xff, 2);
    buf_char(b, ':');
    buf_hex(b, (id >> 3) & 0x1f, 2);
    buf_char(b, '.');
    buf_hex(b, id & 7, 1);
}

/* s as a CSV field: quoted (with "" for ") when it holds , " or a newline
 * (a newline becomes a space). */
static void buf_csv_text(struct trace_buf *b, const char *s)
{
    size_t plain = strcspn(s, ",\"\n\r");
    if (!s[plain]) {
        buf_mem(b, s, plain);
        return;
    }
    buf_char(b, '"');
    for (; *s; s++) {
        if (*s == '"') {
            buf_lit(b, "\"\"");
        } else {
            buf_char(b, *s == '\n' ? ' ' : *s);
        }
    }
    buf_char(b, '"');
}

/* s as a JSON string: " and \\ escaped, control characters as \\u00XX. */
static void buf_json_text(struct trace_buf *b, const char *s)
{
    buf_char(b, '"');
    for (;;) {
        const char *p = s;
        while ((unsigned char)*p >= 0x20 && *p != '"' && *p != '\\') {
            p++;
        }
        buf_mem(b, s, (size_t)(p - s));
        if (!*p) {
            break;
        }
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') {
            buf_char(b, '\\');
            buf_char(b, (char)c);
        } else {
            buf_lit(b, "\\u");
            buf_hex(b, c, 4);
        }
        s = p + 1;
    }
    buf_char(b, '"');
}

/* Picoseconds as microseconds with six decimals (exact). */
static void buf_us(struct trace_buf *b, uint64_t ps)
{
    buf_dec(b, ps / 1000000, 0);
    buf_char(b, '.');
    buf_dec(b, ps % 1000000, 6);
}

/* ---- output with the cap ------------------------------------------------------ */

/* Write text (len bytes) unless it would pass the cap; 0, 1 (capped), -1. */
static int emit(struct trace_writer *w, const char *text, size_t len,
                size_t reserve)
{
    if (w->capped) {
        w->dropped++;
        return 1;
    }
    if (w->max_bytes && w->bytes + len + reserve > w->max_bytes) {
        w->capped = true;
        w->dropped++;
        return 1;
    }
    if (fwrite(text, 1, len, w->f) != len) {
        w->failed = true;
        return -1;
    }
    w->bytes += len;
    return 0;
}

static const char csv_header[] =
    "type,t_ps,dur_ps,id,kind,requester,completer,tag,addr,bytes,attr,hop,"
    "t_created_ps,rate,track,from,to,src,dst,detail\n";

struct trace_writer *trace_writer_open(const char *path, enum trace_format f,
                                       uint64_t max_bytes, char *err,
                                       size_t err_size)
{
    struct trace_writer *w = calloc(1, sizeof(*w));
    if (!w) {
        snprintf(err, err_size, "%s: out of memory", path);
        return NULL;
    }
    w->fmt = f;
    w->max_bytes = max_bytes;
    w->first = true;
    w->f = fopen(path, "w");
    if (!w->f) {
        snprintf(err, err_size, "%s: cannot write: %s", path,
                 strerror(errno));
        free(w);
        return NULL;
    }
    setvbuf(w->f, NULL, _IOFBF, TRACE_WRITE_BUFFER);
    struct trace_buf b = { 0 };
    if (f == TRACE_FMT_CSV) {
        buf_add(&b, "%s", csv_header);
    } else {
        w->pending = calloc(TRACE_PENDING_SLOTS, sizeof(*w->pending));
        buf_add(&b, "{\"displayTimeUnit\":\"ns\",\"otherData\":"
                    "{\"p2psim_trace\":%d},\"traceEvents\":[",
                TRACE_FORMAT_VERSION);
        for (unsigned p = 0; p < TRACE_PIDS; p++) {
            buf_add(&b, "%s\n{\"ph\":\"M\",\"name\":\"process_name\","
                        "\"pid\":%u,\"tid\":0,\"args\":{\"name\":\"%s\"}}",
                    p ? "," : "", p + 1, pid_names[p]);
        }
        w->first = false;
    }
    if (b.oom || (f == TRACE_FMT_PERFETTO && !w->pending) ||
        emit(w, b.s, b.len, 0) != 0) {
        snprintf(err, err_size, "%s: cannot write the header", path);
        free(b.s);
        fclose(w->f);
        free(w->pending);
        free(w);
        return NULL;
    }
    w->line = b.s;
    w->line_cap = b.cap;
    return w;
}

/* ---- CSV ------------------------------------------------------------------- */

static void csv_record(struct trace_buf *b, const struct trace_rec *r)
{
    buf_str(b, trace_rec_type_name(r->type));
    buf_char(b, ',');
    buf_dec(b, r->t_ps, 0);
    buf_char(b, ',');
    buf_dec(b, r->dur_ps, 0);
    buf_char(b, ',');
    buf_dec(b, r->id, 0);
    buf_char(b, ',');
    buf_csv_text(b, r->kind);
    buf_char(b, ',');
    buf_pci_id(b, r->requester);
    buf_char(b, ',');
    buf_pci_id(b, r->completer);
    buf_char(b, ',');
    buf_dec(b, r->tag, 0);
    buf_lit(b, ",0x");
    buf_hex(b, r->addr, 0);
    const uint64_t num[] = { r->bytes, r->attr, r->hop, r->t_created_ps,
                             r->rate };
    for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++) {
        buf_char(b, ',');
        buf_dec(b, num[i], 0);
    }
    const char *text[] = { r->track, r->from, r->to, r->src, r->dst,
                           r->detail };
    for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
        buf_char(b, ',');
        buf_csv_text(b, text[i]);
    }
    buf_char(b, '\n');
}

/* ---- Perfetto --------------------------------------------------------------- */

/* The track (thread id, from 1) called name in process pid (0-based),
 * with its thread_name metadata added to b the first time. */
static unsigned track_id(struct trace_writer *w, struct trace_buf *b,
                         unsigned pid, const char *name)
{
    struct trace_tracks *t = &w->tracks[pid];
    if (t->n && !strcmp(t->name[t->last], name)) {
        return t->last + 1;
    }
    for (unsigned i = 0; i < t->n; i++) {
        if (!strcmp(t->name[i], name)) {
            t->last = i;
            return i + 1;
        }
    }
    if (t->n == t->cap) {
        unsigned cap = t->cap ? 2 * t->cap : 16;
        void *n = realloc(t->name, cap * sizeof(*t->name));
        if (!n) {
            b->oom = true;
            return 0;
        }
        t->name = n;
        t->cap = cap;
    }
    TRACE_SET(t->name[t->n], name);
    t->last = t->n++;
    buf_add(b, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,"
               "\"tid\":%u,\"args\":{\"name\":",
            pid + 1, t->n);
    buf_json_text(b, name);
    buf_add(b, "}}");
    return t->n;
}

static bool kind_is_nonposted_request(const char *k)
{
    return !strcmp(k, "MRd") || !strcmp(k, "FetchAdd") ||
           !strcmp(k, "Swap") || !strcmp(k, "CAS") || !strcmp(k, "TransReq");
}

static bool kind_is_completion(const char *k)
{
    return !strcmp(k, "Cpl") || !strcmp(k, "CplD") || !strcmp(k, "TransCpl");
}

static struct trace_pending *pending_slot(struct trace_writer *w,
                                          uint32_t requester, uint32_t tag)
{
    uint32_t key = ((requester & 0xffff) << 10 | (tag & 0x3ff)) + 1;
    return &w->pending[(key * 2654435761u >> 20) % TRACE_PENDING_SLOTS];
}

/* The flow from a request's last hop to this completion's first. */
static void json_flow(struct trace_writer *w, struct trace_buf *b,
                      const struct trace_rec *r, unsigned tid)
{
    if (r->type != TRACE_REC_HOP) {
        return;
    }
    struct trace_pending *p = pending_slot(w, r->requester, r->tag);
    uint32_t key = ((r->requester & 0xffff) << 10 | (r->tag & 0x3ff)) + 1;
    if (kind_is_nonposted_request(r->kind)) {
        *p = (struct trace_pending){ key, tid, r->t_ps };
    } else if (kind_is_completion(r->kind) && r->hop == 0 && p->key == key) {
        uint64_t id = ++w->next_flow;
        buf_add(b, ",\n{\"ph\":\"s\",\"name\":\"completion\",\"cat\":"
                   "\"tlp\",\"id\":%" PRIu64 ",\"pid\":1,\"tid\":%u,\"ts\":",
                id, p->tid);
        buf_us(b, p->t_ps);
        buf_add(b, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"completion\","
                   "\"cat\":\"tlp\",\"id\":%" PRIu64 ",\"pid\":1,\"tid\":%u,"
                   "\"ts\":",
                id, tid);
        buf_us(b, r->t_ps);
        buf_add(b, "}");
    }
}

static void json_record(struct trace_writer *w, struct trace_buf *b,
                        const struct trace_rec *r)
{
    static const char *const cat[] = { "tlp", "op", "event" };
    unsigned pid = (unsigned)r->type;
    unsigned tid = track_id(w, b, pid, r->track);
    if (r->type == TRACE_REC_EVENT) {
        buf_lit(b, ",\n{\"ph\":\"i\",\"name\":");
    } else {
        buf_lit(b, ",\n{\"ph\":\"X\",\"name\":");
    }
    buf_json_text(b, r->kind);
    buf_lit(b, ",\"cat\":\"");
    buf_str(b, cat[pid]);
    buf_lit(b, "\",\"pid\":");
    buf_dec(b, pid + 1, 0);
    buf_lit(b, ",\"tid\":");
    buf_dec(b, tid, 0);
    buf_lit(b, ",\"ts\":");
    buf_us(b, r->t_ps);
    if (r->type == TRACE_REC_EVENT) {
        buf_lit(b, ",\"s\":\"t\"");
    } else {
        buf_lit(b, ",\"dur\":");
        buf_us(b, r->dur_ps);
    }
    /* Every field, so that the file converts back to CSV exactly. */
    buf_lit(b, ",\"args\":{\"type\":\"");
    buf_str(b, trace_rec_type_name(r->type));
    buf_lit(b, "\",\"t_ps\":");
    buf_dec(b, r->t_ps, 0);
    buf_lit(b, ",\"dur_ps\":");
    buf_dec(b, r->dur_ps, 0);
    buf_lit(b, ",\"id\":");
    buf_dec(b, r->id, 0);
    buf_lit(b, ",\"kind\":");
    buf_json_text(b, r->kind);
    static const char *const num_key[] = {
        ",\"requester\":", ",\"completer\":", ",\"tag\":", ",\"addr\":",
        ",\"bytes\":", ",\"attr\":", ",\"hop\":", ",\"t_created_ps\":",
        ",\"rate\":",
    };
    const uint64_t num[] = { r->requester, r->completer, r->tag, r->addr,
                             r->bytes, r->attr, r->hop, r->t_created_ps,
                             r->rate };
    for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++) {
        buf_str(b, num_key[i]);
        buf_dec(b, num[i], 0);
    }
    static const char *const key[] = {
        ",\"track\":", ",\"from\":", ",\"to\":", ",\"src\":", ",\"dst\":",
        ",\"detail\":",
    };
    const char *text[] = { r->track, r->from, r->to, r->src, r->dst,
                           r->detail };
    for (size_t i = 0; i < sizeof(key) / sizeof(key[0]); i++) {
        buf_str(b, key[i]);
        buf_json_text(b, text[i]);
    }
    buf_lit(b, "}}");
    json_flow(w, b, r, tid);
}

int trace_writer_put(struct trace_writer *w, const struct trace_rec *r)
{
    if (w->capped) {
        w->dropped++;
        return 1;
    }
    struct trace_buf b = { w->line, 0, w->line_cap, false };
    b.s[0] = '\0';
    if (w->fmt == TRACE_FMT_CSV) {
        csv_record(&b, r);
    } else {
        json_record(w, &b, r);
    }
    w->line = b.s;
    w->line_cap = b.cap;
    if (b.oom) {
        w->failed = true;
        return -1;
    }
    size_t reserve = w->fmt == TRACE_FMT_PERFETTO ? strlen(TRACE_JSON_FOOTER)
                                                  : 0;
    return emit(w, b.s, b.len, reserve);
}

bool trace_writer_is_capped(const struct trace_writer *w)
{
    return w->capped;
}

uint64_t trace_writer_bytes(const struct trace_writer *w)
{
    return w->bytes;
}

uint64_t trace_writer_dropped(const struct trace_writer *w)
{
    return w->dropped;
}

int trace_writer_close(struct trace_writer *w)
{
    if (!w) {
        return 0;
    }
    if (w->fmt == TRACE_FMT_PERFETTO &&
        fputs(TRACE_JSON_FOOTER, w->f) == EOF) {
        w->failed = true;
    }
    if (fclose(w->f) != 0) {
        w->failed = true;
    }
    bool failed = w->failed;
    for (unsigned p = 0; p < TRACE_PIDS; p++) {
        free(w->tracks[p].name);
    }
    free(w->pending);
    free(w->line);
    free(w);
    return failed ? -1 : 0;
}

/* ---- the event log ------------------------------------------------------------ */

int trace_write_ftrace(FILE *f, const struct trace_rec *r)
{
    int n = fprintf(f, "  p2psim  [000]  %" PRIu64 ".%012" PRIu64 ": %s: %s",
                    r->t_ps / UINT64_C(1000000000000),
                    r->t_ps % UINT64_C(1000000000000), r->kind, r->track);
    if (r->from[0]) {
        n = fprintf(f, ".%s", r->from);
    }
    if (n >= 0 && r->addr) {
        n = fprintf(f, " addr=0x%" PRIx64, r->addr);
    }
    if (n >= 0 && r->bytes) {
        n = fprintf(f, " bytes=%" PRIu64, r->bytes);
    }
    if (n >= 0 && r->requester) {
        n = fprintf(f, " requester=%02x:%02x.%x", (r->requester >> 8) & 0xff,
                    (r->requester >> 3) & 0x1f, r->requester & 7);
    }
    if (n >= 0 && r->dur_ps) {
        n = fprintf(f, " stall_ps=%" PRIu64, r->dur_ps);
    }
    if (n >= 0 && r->detail[0]) {
        n = fprintf(f, " %s", r->detail);
    }
    if (n >= 0) {
        n = fputc('\n', f);
    }
    return n < 0 ? -1 : 0;
}
