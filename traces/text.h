/*
 * traces/text.h - what the trace readers (api_trace.c, trace_read.c)
 * share to read untrusted text: a line reader with a length cap that
 * refuses NUL bytes, and strict number parsing (no sign, no blanks, no
 * silent clamp on overflow).
 *
 * The caps are documented in traces/api-trace.md and
 * traces/trace-format.md. Prefix trace_text_. libc only.
 */
#ifndef P2PSIM_TRACES_TEXT_H
#define P2PSIM_TRACES_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The longest line a trace reader accepts, '\n' excluded (bytes). */
#define TRACE_TEXT_LINE_MAX (1u << 20)

/* The most lines a trace reader counts (line numbers are unsigned). */
#define TRACE_TEXT_LINES_MAX UINT32_MAX

enum trace_text_line {
    TRACE_TEXT_LINE = 1,        /* *buf holds a line, NUL-terminated */
    TRACE_TEXT_EOF = 0,
    TRACE_TEXT_TOO_LONG = -1,   /* longer than max */
    TRACE_TEXT_NUL = -2,        /* a NUL byte at column *len + 1 */
    TRACE_TEXT_ERROR = -3,      /* a read error (errno) */
    TRACE_TEXT_NOMEM = -4,
};

/*
 * trace_text_getline - the next line of f into *buf (grown as needed,
 * *cap its size), without its "\n" (and a "\r" before it); its length in
 * *len. A last line without "\n" counts. A line longer than max bytes is
 * refused without being read whole.
 */
enum trace_text_line trace_text_getline(FILE *f, char **buf, size_t *cap,
                                        size_t max, size_t *len);

/*
 * trace_text_u64 - s, decimal digits only (or "0x" and hex digits when
 * hex), as a number no larger than max. false for anything else: empty,
 * a sign, a blank, a trailing character, a value above max.
 */
bool trace_text_u64(const char *s, bool hex, uint64_t max, uint64_t *out);

#endif /* P2PSIM_TRACES_TEXT_H */
