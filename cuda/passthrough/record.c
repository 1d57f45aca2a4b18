/*
 * cuda/passthrough/record.c - the API trace: one JSON line per CUDA call
 * the shim serves, appended to $P2PSIM_RECORD (the format is documented in
 * traces/api-trace.md; passthru.h has the calling order).
 *
 * A line is built on the caller's stack and written with one write() to a
 * file opened with O_APPEND, so threads never interleave inside a line and
 * the processes of one program (fork, or children that inherit
 * P2PSIM_RECORD) can share the file; every line carries its pid. The
 * first line a process writes is a header naming the backend.
 *
 * Streams, events and pools are recorded as ids, 1, 2, ... per kind in
 * order of appearance, so that a replay can map them to handles of its
 * own: a small open-addressing table under a lock (programs hold tens of
 * handles; the table grows by doubling).
 *
 * Cost: a few hundred ns per recorded call (the formatting and the
 * write); nothing when P2PSIM_RECORD is unset beyond one flag test.
 */
#include <config.h>

#include "cuda/passthrough/passthru.h"

#include "common/realclock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define REC_FORMAT_VERSION 1
#define REC_STR_MAX 256             /* bytes of a recorded string */
#define REC_LINE_MAX                                                          \
    (PASSTHRU_REC_ARGS + PASSTHRU_REC_OUT + PASSTHRU_REC_RET + 512)

static pthread_once_t rec_once = PTHREAD_ONCE_INIT;
static int rec_fd = -1;
static uint64_t rec_seq;            /* atomic */
static unsigned rec_threads;        /* atomic: thread indices handed out */
static _Thread_local int rec_tid = -1;
static _Thread_local long rec_ostid;    /* gettid() */
static _Thread_local long rec_tid_pid;  /* the process rec_tid is of */
/* The process that wrote its header; a child of fork() writes its own. */
static pthread_mutex_t header_lock = PTHREAD_MUTEX_INITIALIZER;
static long rec_pid;

/* ---- ids of handles -------------------------------------------------------------- */

struct rec_id {
    const void *h;                  /* NULL: empty slot */
    long long id;
};

static pthread_mutex_t ids_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rec_id *ids[PASSTHRU_N_HANDLES];
static size_t ids_cap[PASSTHRU_N_HANDLES], ids_used[PASSTHRU_N_HANDLES];
static long long ids_next[PASSTHRU_N_HANDLES];

static size_t id_hash(const void *h, size_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)h;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

/* The slot of h in kind's table (empty if absent). With ids_lock held. */
static struct rec_id *id_slot(enum passthru_handle kind, const void *h)
{
    size_t cap = ids_cap[kind];
    size_t i = id_hash(h, cap);
    while (ids[kind][i].h && ids[kind][i].h != h) {
        i = (i + 1) & (cap - 1);
    }
    return &ids[kind][i];
}

/* Keep the table at most half full. With ids_lock held; false: no memory. */
static bool id_reserve(enum passthru_handle kind)
{
    if (ids_cap[kind] && 2 * (ids_used[kind] + 1) <= ids_cap[kind]) {
        return true;
    }
    size_t cap = ids_cap[kind] ? 2 * ids_cap[kind] : 64;
    struct rec_id *old = ids[kind];
    size_t old_cap = ids_cap[kind];
    struct rec_id *t = calloc(cap, sizeof(*t));
    if (!t) {
        return false;
    }
    ids[kind] = t;
    ids_cap[kind] = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].h) {
            *id_slot(kind, old[i].h) = old[i];
        }
    }
    free(old);
    return true;
}

static long long id_of(enum passthru_handle kind, const void *h,
                       enum passthru_id_mode mode)
{
    if (!h) {
        return 0;
    }
    if (kind == PASSTHRU_STREAM && (uintptr_t)h <= 2) {
        return -(long long)(uintptr_t)h;  /* cudaStreamLegacy, PerThread */
    }
    long long id = -1000;           /* out of memory: an id nobody has */
    pthread_mutex_lock(&ids_lock);
    if (id_reserve(kind)) {
        struct rec_id *s = id_slot(kind, h);
        if (!s->h) {
            s->h = h;
            ids_used[kind]++;
            s->id = ++ids_next[kind];
        } else if (mode == PASSTHRU_ID_NEW) {
            s->id = ++ids_next[kind];
        }
        id = s->id;
    }
    pthread_mutex_unlock(&ids_lock);
    return id;
}

void passthru_rec_forget(enum passthru_handle kind, const void *h)
{
    if (!h || (kind == PASSTHRU_STREAM && (uintptr_t)h <= 2)) {
        return;
    }
    pthread_mutex_lock(&ids_lock);
    if (ids_cap[kind]) {
        /* Remove and re-insert the rest of the cluster (linear probing). */
        struct rec_id *s = id_slot(kind, h);
        if (s->h) {
            s->h = NULL;
            ids_used[kind]--;
            size_t cap = ids_cap[kind];
            size_t i = ((size_t)(s - ids[kind]) + 1) & (cap - 1);
            while (ids[kind][i].h) {
                struct rec_id e = ids[kind][i];
                ids[kind][i].h = NULL;
                *id_slot(kind, e.h) = e;
                i = (i + 1) & (cap - 1);
            }
        }
    }
    pthread_mutex_unlock(&ids_lock);
}

/* ---- the file ------------------------------------------------------------------- */

uint64_t passthru_now_ns(void)
{
    /* the computer's clock, never the program's simulated one */
    return real_clock_ns(CLOCK_MONOTONIC);
}

static void write_line(const char *line, size_t len)
{
    while (len > 0) {
        ssize_t n = write(rec_fd, line, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return;
        }
        line += n;
        len -= (size_t)n;
    }
}

/* The program's name, from /proc/self/cmdline, JSON-escaped into buf. */
static void program_name(char *buf, size_t size)
{
    char raw[256] = "";
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f) {
        size_t n = fread(raw, 1, sizeof(raw) - 1, f);
        raw[n] = '\0';
        fclose(f);
    }
    size_t o = 0;
    for (const char *s = raw; *s && o + 7 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)c;
        } else if (c < 0x20 || c >= 0x7f) {
            o += (size_t)snprintf(buf + o, size - o, "\\u%04x", c);
        } else {
            buf[o++] = (char)c;
        }
    }
    buf[o] = '\0';
}

static void rec_open(void)
{
    const char *path = getenv("P2PSIM_RECORD");
    if (!path || !*path) {
        return;
    }
    rec_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (rec_fd < 0) {
        fprintf(stderr, "p2psim: P2PSIM_RECORD=%s: cannot open: %s; no API "
                        "trace is recorded\n", path, strerror(errno));
    }
}

/* The header line of this process (its first call, or its first after a
 * fork: then its threads are counted anew). */
static void write_header(long pid)
{
    pthread_mutex_lock(&header_lock);
    if (rec_pid == pid) {
        pthread_mutex_unlock(&header_lock);
        return;
    }
    if (rec_pid != 0) {
        __atomic_store_n(&rec_threads, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&rec_seq, 0, __ATOMIC_RELAXED);
    }
    char prog[300];
    program_name(prog, sizeof(prog));
    char line[600];
    int n = snprintf(line, sizeof(line),
                     "{\"api_trace\":%d,\"pid\":%ld,\"backend\":\"%s\","
                     "\"program\":\"%s\",\"clock\":\"CLOCK_MONOTONIC\","
                     "\"t_ns\":%" PRIu64 "}\n",
                     REC_FORMAT_VERSION, pid,
                     passthru_backend_is_real() ? "cuda" : "sim", prog,
                     passthru_now_ns());
    if (n > 0 && (size_t)n < sizeof(line)) {
        write_line(line, (size_t)n);
    }
    __atomic_store_n(&rec_pid, pid, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&header_lock);
}

bool passthru_rec_enabled(void)
{
    pthread_once(&rec_once, rec_open);
    return rec_fd >= 0;
}

/* ---- building a line ------------------------------------------------------------ */

void passthru_rec_begin(struct passthru_rec *r, const char *name,
                        unsigned depth)
{
    long pid = (long)getpid();
    if (__atomic_load_n(&rec_pid, __ATOMIC_ACQUIRE) != pid) {
        write_header(pid);
    }
    if (rec_tid < 0 || rec_tid_pid != pid) {
        rec_tid = (int)__atomic_fetch_add(&rec_threads, 1, __ATOMIC_RELAXED);
        rec_ostid = (long)syscall(SYS_gettid);
        rec_tid_pid = pid;
    }
    r->name = name;
    r->tid = rec_tid;
    r->seq = __atomic_fetch_add(&rec_seq, 1, __ATOMIC_RELAXED);
    r->depth = depth;
    r->t0_ns = r->t1_ns = 0;
    r->sim0_ps = r->sim1_ps = -1;
    r->in_out = false;
    r->args_len = r->out_len = 0;
    r->args[0] = r->out[0] = '\0';
    snprintf(r->ret, sizeof(r->ret), "null");
}

/* Append "key":VALUE (printf-style value) to args or out. A field that
 * does not fit is left out whole. */
static void add(struct passthru_rec *r, const char *key, const char *fmt,
                ...) __attribute__((format(printf, 3, 4)));
static void add(struct passthru_rec *r, const char *key, const char *fmt,
                ...)
{
    char *buf = r->in_out ? r->out : r->args;
    size_t *len = r->in_out ? &r->out_len : &r->args_len;
    size_t cap = r->in_out ? sizeof(r->out) : sizeof(r->args);
    size_t start = *len;
    int n = snprintf(buf + start, cap - start, "%s\"%s\":",
                     start ? "," : "", key);
    if (n < 0 || (size_t)n >= cap - start) {
        buf[start] = '\0';
        return;
    }
    size_t at = start + (size_t)n;
    va_list ap;
    va_start(ap, fmt);
    n = vsnprintf(buf + at, cap - at, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - at) {
        buf[start] = '\0';
        return;
    }
    *len = at + (size_t)n;
}

void passthru_rec_int(struct passthru_rec *r, const char *key, long long v)
{
    add(r, key, "%lld", v);
}

void passthru_rec_uint(struct passthru_rec *r, const char *key,
                       unsigned long long v)
{
    add(r, key, "%llu", v);
}

void passthru_rec_float(struct passthru_rec *r, const char *key, double v)
{
    if (v != v || v - v != 0) {
        add(r, key, "null");        /* NaN or infinite: not JSON */
    } else {
        add(r, key, "%.9g", v);
    }
}

void passthru_rec_ptr(struct passthru_rec *r, const char *key,
                      const void *p)
{
    add(r, key, "\"0x%" PRIxPTR "\"", (uintptr_t)p);
}

/* s as a JSON string (quotes included), cut at REC_STR_MAX bytes. */
static void escape(char *out, size_t size, const char *s)
{
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; s[i] && i < REC_STR_MAX && o + 8 < size; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20 || c >= 0x7f) {
            o += (size_t)snprintf(out + o, size - o, "\\u%04x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    out[o++] = '"';
    out[o] = '\0';
}

void passthru_rec_str(struct passthru_rec *r, const char *key,
                      const char *s)
{
    if (!s) {
        add(r, key, "null");
        return;
    }
    char buf[REC_STR_MAX * 6 + 4];
    escape(buf, sizeof(buf), s);
    add(r, key, "%s", buf);
}

void passthru_rec_dim3(struct passthru_rec *r, const char *key, unsigned x,
                       unsigned y, unsigned z)
{
    add(r, key, "{\"x\":%u,\"y\":%u,\"z\":%u}", x, y, z);
}

void passthru_rec_memloc(struct passthru_rec *r, const char *key, int type,
                         int id)
{
    add(r, key, "{\"type\":%d,\"id\":%d}", type, id);
}

void passthru_rec_bytes(struct passthru_rec *r, const char *key,
                        const void *p, size_t len)
{
    char hex[2 * 128 + 1];
    const unsigned char *b = p;
    if (len > 128) {
        len = 128;
    }
    for (size_t i = 0; i < len; i++) {
        snprintf(hex + 2 * i, 3, "%02x", b[i]);
    }
    hex[2 * len] = '\0';
    add(r, key, "\"%s\"", hex);
}

void passthru_rec_handle(struct passthru_rec *r, const char *key,
                         enum passthru_handle kind, const void *h,
                         enum passthru_id_mode mode)
{
    add(r, key, "%lld", id_of(kind, h, mode));
}

void passthru_rec_out(struct passthru_rec *r)
{
    r->in_out = true;
}

void passthru_rec_ret_int(struct passthru_rec *r, long long v)
{
    snprintf(r->ret, sizeof(r->ret), "%lld", v);
}

void passthru_rec_ret_ptr(struct passthru_rec *r, const void *p)
{
    snprintf(r->ret, sizeof(r->ret), "\"0x%" PRIxPTR "\"", (uintptr_t)p);
}

void passthru_rec_ret_str(struct passthru_rec *r, const char *s)
{
    if (s) {
        escape(r->ret, sizeof(r->ret), s);
    } else {
        snprintf(r->ret, sizeof(r->ret), "null");
    }
}

void passthru_rec_ret_none(struct passthru_rec *r)
{
    snprintf(r->ret, sizeof(r->ret), "null");
}

void passthru_rec_write(struct passthru_rec *r)
{
    if (rec_fd < 0) {
        return;
    }
    char line[REC_LINE_MAX];
    char sim[96] = "";
    if (r->sim0_ps >= 0 && r->sim1_ps >= 0) {
        snprintf(sim, sizeof(sim),
                 ",\"sim0_ps\":%" PRId64 ",\"sim1_ps\":%" PRId64, r->sim0_ps,
                 r->sim1_ps);
    }
    int n = snprintf(line, sizeof(line),
                     "{\"seq\":%" PRIu64 ",\"pid\":%ld,\"tid\":%d,"
                     "\"ostid\":%ld,\"depth\":%u,\"name\":\"%s\",\"t0_ns\":%" PRIu64
                     ",\"t1_ns\":%" PRIu64 "%s,\"args\":{%s},\"out\":{%s},"
                     "\"ret\":%s}\n",
                     r->seq, (long)getpid(), r->tid, rec_ostid, r->depth,
                     r->name,
                     r->t0_ns, r->t1_ns, sim, r->args, r->out, r->ret);
    if (n > 0 && (size_t)n < sizeof(line)) {
        write_line(line, (size_t)n);
    }
}
