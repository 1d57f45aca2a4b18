/*
 * traces/format.h - the writers' schema of fabric traces: what crossed the
 * fabric (one record per TLP per link, one per copy-engine operation or
 * flow) and the event log (BAR1 maps, IOMMU faults, credit stalls, ...),
 * and the two file formats they are written in, CSV and the Chrome /
 * Perfetto JSON trace-event format. traces/trace-format.md documents the
 * files; machine/trace_sink.c maps the simulator's trace points onto these
 * records; tools read them back (trace_read.c) without the simulator.
 *
 * Prefix trace_. libc only (STYLE.md §2).
 */
#ifndef P2PSIM_TRACES_FORMAT_H
#define P2PSIM_TRACES_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_FORMAT_VERSION 1

enum trace_rec_type {
    TRACE_REC_HOP,              /* a TLP crossed one link (one direction) */
    TRACE_REC_OP,               /* a copy-engine operation, or a flow */
    TRACE_REC_EVENT,            /* an event-log entry */
    TRACE_REC_TYPE_COUNT
};

/* The latest time a record may hold, its end (t_ps + dur_ps) included,
 * and the largest filter time: INT64_MAX ps, about 106 days. */
#define TRACE_TIME_MAX ((uint64_t)INT64_MAX)

/* Sizes of the text fields, terminating NUL included. */
#define TRACE_KIND_LEN 16
#define TRACE_NAME_LEN 96
#define TRACE_DETAIL_LEN 128

/*
 * One record. Times are simulated picoseconds. Which fields a type uses:
 *
 *   field        HOP                          OP                     EVENT
 *   t_ps         entered the link (handed to  started (its setup)    when
 *                the sending port)
 *   dur_ps       until delivered at the far   until done             0, or the
 *                port                                                stall
 *   id           TLP id (unique per run)      operation number       0
 *   kind         "MWr", "CplD", ...           "push" "pull" "local"  "bar1_map"...
 *   requester,   Requester / Completer ID     -                      requester
 *   completer    (bus << 8 | dev << 3 | fn)
 *   tag          10-bit tag                   copy engine            -
 *   addr         address (requests)           remote address         address
 *   bytes        payload bytes                bytes                  bytes
 *   attr         TLP attr bits (NS RO IDO)    -                      -
 *   hop          links crossed before         -                      -
 *   t_created_ps when the TLP was made        when submitted         -
 *   rate         link rate, bytes/s (0: ?)    -                      -
 *   track        "a.p>b.q": the link, side    "gpu0/ce1"             component
 *                and direction
 *   from, to     component.port at each end   source, destination    port, -
 *   src, dst     GPU ids at the ends of the   GPU ids ("host")       -
 *                transfer ("host", "?")
 *   detail       -                            fidelity ("tlp" or     the rest, as
 *                                             "flow"), "error"       text
 */
struct trace_rec {
    enum trace_rec_type type;
    uint64_t t_ps, dur_ps;
    uint64_t id;
    char kind[TRACE_KIND_LEN];
    uint32_t requester, completer;
    uint32_t tag;
    uint64_t addr;
    uint64_t bytes;
    uint32_t attr;
    uint32_t hop;
    uint64_t t_created_ps;
    uint64_t rate;
    char track[TRACE_NAME_LEN];
    char from[TRACE_NAME_LEN], to[TRACE_NAME_LEN];
    char src[TRACE_KIND_LEN], dst[TRACE_KIND_LEN];
    char detail[TRACE_DETAIL_LEN];
};

const char *trace_rec_type_name(enum trace_rec_type t);
/* The type called name ("hop", "op", "event"), or -1. */
int trace_rec_type_find(const char *name);

/* Copy s into a field of size n, truncating. */
void trace_set(char *field, size_t n, const char *s);
#define TRACE_SET(field, s) trace_set((field), sizeof(field), (s))

/* ---- formats ---------------------------------------------------------------- */

enum trace_format {
    TRACE_FMT_CSV,
    TRACE_FMT_PERFETTO,         /* Chrome / Perfetto JSON trace events */
};

/* "csv", "perfetto" or "json" (the same); -1 for any other name. */
int trace_format_find(const char *name);
/* By extension: ".csv" is CSV, ".json" Perfetto; -1 otherwise. */
int trace_format_of_path(const char *path);
const char *trace_format_name(enum trace_format f);

/* ---- writing ---------------------------------------------------------------- */

struct trace_writer;

/*
 * trace_writer_open - write records to path in format f; max_bytes > 0
 * caps the file: the first record that would pass it is refused and none
 * is written after it (the file stays well-formed). NULL with err on
 * failure.
 */
struct trace_writer *trace_writer_open(const char *path, enum trace_format f,
                                       uint64_t max_bytes, char *err,
                                       size_t err_size);
/* 0: written; 1: refused by the size cap; -1: a write error. */
int trace_writer_put(struct trace_writer *w, const struct trace_rec *r);
bool trace_writer_is_capped(const struct trace_writer *w);
uint64_t trace_writer_bytes(const struct trace_writer *w);
/* Records refused by the cap so far. */
uint64_t trace_writer_dropped(const struct trace_writer *w);
/* Finish the file and free w. 0, or -1 if any write failed. */
int trace_writer_close(struct trace_writer *w);

/*
 * trace_write_ftrace - r (an EVENT) as one line of the event log, in the
 * layout of the kernel's ftrace text output:
 *   "  p2psim  [000]  12.345678901: bar1_map: gpu1 bus=0x... bytes=..."
 * (seconds of simulated time with picosecond digits).
 */
int trace_write_ftrace(FILE *f, const struct trace_rec *r);

/* ---- reading ---------------------------------------------------------------- */

struct trace_reader;

/*
 * trace_reader_open - read a file written by trace_writer (either format,
 * told apart by its first byte). NULL with err ("path: why") on failure.
 * Untrusted input: lines, columns, numbers and text fields have caps
 * (traces/trace-format.md, "Reading"); what passes one is an error at
 * "path:line:column", never cut or clamped.
 * trace_reader_open_stream reads an open stream instead (a harness's
 * fmemopen buffer), named name in messages; closing the reader leaves f
 * open.
 */
struct trace_reader *trace_reader_open(const char *path, char *err,
                                       size_t err_size);
struct trace_reader *trace_reader_open_stream(FILE *f, const char *name,
                                              char *err, size_t err_size);
enum trace_format trace_reader_format(const struct trace_reader *r);
/* 1: *out holds the next record; 0: end of file; -1: err says why
 * ("path:line:column: ..."). */
int trace_reader_next(struct trace_reader *r, struct trace_rec *out,
                      char *err, size_t err_size);
void trace_reader_close(struct trace_reader *r);

/* ---- filters ---------------------------------------------------------------- */

#define TRACE_FILTER_MAX 8

/*
 * What a record must match to be kept: every given criterion (an empty
 * list: any). Components match the component part of from, to and track
 * ("sw0" matches "sw0.dp1"); kinds the kind field ("MWr", "push",
 * "iommu_fault"); the GPU pair {src, dst} in either order; the time window
 * overlaps [t_ps, t_ps + dur_ps].
 */
struct trace_filter {
    char component[TRACE_FILTER_MAX][TRACE_NAME_LEN];
    unsigned n_component;
    char kind[TRACE_FILTER_MAX][TRACE_KIND_LEN];
    unsigned n_kind;
    char pair[2][TRACE_KIND_LEN];
    bool has_pair;
    uint64_t from_ps, to_ps;    /* to_ps 0: no end */
};

/*
 * trace_filter_parse - "component=sw0+rc0,kind=MWr+CplD,pair=gpu0:gpu1,
 * from=10us,to=2ms" (any subset, in any order; times take ps, ns, us, ms
 * or s) into f (zeroed first). 0, or -1 with err naming the bad part.
 */
int trace_filter_parse(const char *spec, struct trace_filter *f, char *err,
                       size_t err_size);
bool trace_filter_match(const struct trace_filter *f,
                        const struct trace_rec *r);
/* "12.5us", "3ms", "700ps"... into *ps: digits, an optional fraction
 * and a unit, exact to the picosecond, at most TRACE_TIME_MAX. 0, or -1
 * with why (no sign, exponent, inf or nan). */
int trace_parse_time(const char *s, uint64_t *ps, char *why,
                     size_t why_size);

/* ---- summaries -------------------------------------------------------------- */

/*
 * trace_summarize - read every record of r and print to out: bytes, TLPs
 * and utilisation per link direction (payload bytes over the link's rate
 * times the traced span), operations per copy engine, a latency histogram
 * per TLP kind (created to delivered at its last hop) and the event
 * counts. 0, or -1 with err.
 */
int trace_summarize(struct trace_reader *r, FILE *out, char *err,
                    size_t err_size);

#endif /* P2PSIM_TRACES_FORMAT_H */
