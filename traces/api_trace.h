/*
 * traces/api_trace.h - reading API traces: the JSON lines the CUDA shim
 * writes with P2PSIM_RECORD (format: traces/api-trace.md; writer:
 * api/passthrough/record.c).
 *
 * A file is read whole into memory: a header per process and one call per
 * line. Each call keeps its fixed fields (seq, pid, tid, depth, name,
 * times, result) and its arguments as a flat list of key/value pairs,
 * "args.dst", "out.devPtr", "args.gridDim.x", whose values are kept as
 * text (strings unescaped) and converted on request.
 *
 * Prefix trace_api_. libc only.
 */
#ifndef P2PSIM_TRACES_API_TRACE_H
#define P2PSIM_TRACES_API_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_API_VERSION 1

struct trace_api_field {
    char *key;                  /* "args.count", "out.devPtr" */
    char *text;                 /* the value: a number's digits, a
                                 * string's unescaped text; NULL for null */
    bool is_str;
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
 * a message "path:line: ..." in err. f is released with trace_api_free
 * either way.
 */
int trace_api_read(const char *path, struct trace_api_file *f, char *err,
                   size_t err_size);
void trace_api_free(struct trace_api_file *f);

/*
 * trace_api_parse_line - one line into c (a header line into h, returning
 * 1). 0 for a call, -1 with err for a malformed line. c and h own what
 * they point at afterwards (trace_api_call_fini).
 */
int trace_api_parse_line(const char *line, struct trace_api_call *c,
                         struct trace_api_header *h, char *err,
                         size_t err_size);
void trace_api_call_fini(struct trace_api_call *c);

/* The field called key ("args.dst"), or NULL. */
const struct trace_api_field *trace_api_find(const struct trace_api_call *c,
                                             const char *key);
/* A field as an integer: a number, or a "0x..." string (pointers). false
 * when absent, null or not a number. */
bool trace_api_get_u64(const struct trace_api_call *c, const char *key,
                       uint64_t *out);
bool trace_api_get_i64(const struct trace_api_call *c, const char *key,
                       int64_t *out);
bool trace_api_get_double(const struct trace_api_call *c, const char *key,
                          double *out);
/* The result as an integer (cudaError_t, unsigned), or false. */
bool trace_api_ret_i64(const struct trace_api_call *c, int64_t *out);

/*
 * trace_json_flatten - one JSON object (text starts at its '{'; what
 * follows its '}' is ignored) into a flat list of fields with dotted keys,
 * as for API trace lines. Other readers of JSON lines use it (the
 * Perfetto reader, trace_read.c). 0, or -1 with err.
 */
int trace_json_flatten(const char *text, struct trace_api_field **fields,
                       size_t *n, char *err, size_t err_size);
void trace_json_fields_free(struct trace_api_field *fields, size_t n);

#endif /* P2PSIM_TRACES_API_TRACE_H */
