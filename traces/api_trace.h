/*
 * traces/api_trace.h - reading API traces: the JSON lines the CUDA shim
 * writes with P2PSIM_RECORD (format: traces/api-trace.md; writer:
 * cuda/passthrough/record.c).
 *
 * A file is read whole into memory: a header per process and one call per
 * line. Each call keeps its fixed fields (seq, pid, tid, depth, name,
 * times, result) and its arguments as a flat list of key/value pairs,
 * "args.dst", "out.devPtr", "args.gridDim.x", whose values are kept as
 * text (strings unescaped) and converted on request.
 *
 * Untrusted input: every line, depth, key, count and number has a cap
 * (traces/api-trace.md, "Limits"); anything past one is an error naming
 * the line and column, never a crash or a silent clamp.
 *
 * For a fuzzing harness: trace_api_parse_line and trace_json_flatten take
 * one NUL-terminated line in memory; trace_api_read_stream a whole trace
 * from any FILE (fmemopen).
 *
 * Prefix trace_api_. libc only.
 */
#ifndef P2PSIM_TRACES_API_TRACE_H
#define P2PSIM_TRACES_API_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_API_VERSION 1

/* JSON values nest at most this deep, objects and arrays together (the
 * line's object is depth 1; the shim writes 3 at most). */
#define TRACE_JSON_MAX_DEPTH 16
/* A flattened key ("args.gridDim.x") is at most this long (bytes). */
#define TRACE_JSON_KEY_MAX 255
/* An object line holds at most this many values (fields). */
#define TRACE_JSON_FIELDS_MAX 256

struct trace_api_field {
    char *key;                  /* "args.count", "out.devPtr" */
    char *text;                 /* the value: a number's digits, a
                                 * string's unescaped text; NULL for null */
    bool is_str;
    unsigned col;               /* where the value starts in its line,
                                 * from 1 (bytes) */
};

struct trace_api_call {
    uint64_t seq;
    long pid;
    int tid;
    long ostid;                 /* the thread's Linux id; 0 if absent */
    unsigned depth;
    char *name;
    uint64_t t0_ns, t1_ns;      /* CLOCK_MONOTONIC */
    bool has_sim;
    int64_t sim0_ps, sim1_ps;   /* simulated clock, when has_sim */
    struct trace_api_field ret; /* key "ret" */
    struct trace_api_field *fields;
    size_t n_fields;
    unsigned line;              /* in the file, from 1 */
};

struct trace_api_header {
    long pid;
    char backend[16];           /* "cuda" or "sim" */
    char program[256];
    unsigned line;
};

struct trace_api_file {
    struct trace_api_call *calls;   /* in file order */
    size_t n_calls;
    struct trace_api_header *headers;
    size_t n_headers;
};

/*
 * trace_api_read - read path into f (zeroed first). Returns 0, or -1 with
 * a message "path:line:column: ..." ("path: ..." where there is no line)
 * in err. f is released with trace_api_free either way.
 */
int trace_api_read(const char *path, struct trace_api_file *f, char *err,
                   size_t err_size);
/* The same from an open stream; name is what messages call it. */
int trace_api_read_stream(FILE *in, const char *name,
                          struct trace_api_file *f, char *err,
                          size_t err_size);
void trace_api_free(struct trace_api_file *f);

/*
 * trace_api_parse_line - one line (NUL-terminated, without its newline)
 * into c (a header line into h, returning 1). 0 for a call, -1 with err
 * "COLUMN: why" for a malformed line, COLUMN counting bytes from 1. c and
 * h own what they point at afterwards (trace_api_call_fini).
 */
int trace_api_parse_line(const char *line, struct trace_api_call *c,
                         struct trace_api_header *h, char *err,
                         size_t err_size);
void trace_api_call_fini(struct trace_api_call *c);

/* The field called key ("args.dst"), or NULL. */
const struct trace_api_field *trace_api_find(const struct trace_api_call *c,
                                             const char *key);
/* A field as an integer: a number, or a "0x..." string (pointers, as
 * their 64-bit pattern in get_i64). false when absent, null, not an
 * integer, or out of the type's range (no clamping). */
bool trace_api_get_u64(const struct trace_api_call *c, const char *key,
                       uint64_t *out);
bool trace_api_get_i64(const struct trace_api_call *c, const char *key,
                       int64_t *out);
bool trace_api_get_double(const struct trace_api_call *c, const char *key,
                          double *out);
/* The result as an integer (cudaError_t, unsigned), or false. */
bool trace_api_ret_i64(const struct trace_api_call *c, int64_t *out);

/*
 * trace_json_flatten - one JSON object (text, NUL-terminated, starts at
 * its '{' after optional blanks; what follows its '}' is ignored) into a
 * flat list of fields with dotted keys, as for API trace lines; arrays
 * are checked and skipped. Other readers of JSON lines use it (the
 * Perfetto reader, trace_read.c). 0, or -1 with err "COLUMN: why".
 * trace_json_parse also gives where the object ended (*end, after its
 * '}').
 */
int trace_json_flatten(const char *text, struct trace_api_field **fields,
                       size_t *n, char *err, size_t err_size);
int trace_json_parse(const char *text, struct trace_api_field **fields,
                     size_t *n, const char **end, char *err,
                     size_t err_size);
void trace_json_fields_free(struct trace_api_field *fields, size_t n);

#endif /* P2PSIM_TRACES_API_TRACE_H */
