/*
 * traces/text.c - reading untrusted trace text (text.h): capped lines,
 * strict numbers.
 *
 * Cost: getc_unlocked per byte is a few ns; a trace line is a few hundred
 * bytes, so reading stays far below what parsing the line costs.
 */
#include <config.h>

#include "traces/text.h"

#include <stdlib.h>
#include <string.h>

enum trace_text_line trace_text_getline(FILE *f, char **buf, size_t *cap,
                                        size_t max, size_t *len)
{
    size_t n = 0;
    int c;
    bool any = false;
    *len = 0;
    while ((c = getc_unlocked(f)) != EOF) {
        any = true;
        if (c == '\n') {
            break;
        }
        if (c == '\0') {
            *len = n;
            /* Skip the rest of the line: the caller stops anyway. */
            return TRACE_TEXT_NUL;
        }
        if (n >= max + 1) {     /* room for a '\r' before the '\n' */
            *len = n;
            return TRACE_TEXT_TOO_LONG;
        }
        if (n + 1 >= *cap) {
            size_t want = *cap ? 2 * *cap : 256;
            if (want > max + 2) {
                want = max + 2;
            }
            char *b = realloc(*buf, want);
            if (!b) {
                return TRACE_TEXT_NOMEM;
            }
            *buf = b;
            *cap = want;
        }
        (*buf)[n++] = (char)c;
    }
    if (c == EOF && ferror(f)) {
        return TRACE_TEXT_ERROR;
    }
    if (!any) {
        return TRACE_TEXT_EOF;
    }
    if (n > 0 && (*buf)[n - 1] == '\r') {
        n--;
    }
    if (n > max) {
        *len = n;
        return TRACE_TEXT_TOO_LONG;
    }
    if (!*buf) {                /* an empty first line */
        *buf = malloc(1);
        if (!*buf) {
            return TRACE_TEXT_NOMEM;
        }
        *cap = 1;
    }
    (*buf)[n] = '\0';
    *len = n;
    return TRACE_TEXT_LINE;
}

static int digit_value(char c, bool hex)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (hex && c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (hex && c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

bool trace_text_u64(const char *s, bool hex, uint64_t max, uint64_t *out)
{
    if (!s) {
        return false;
    }
    if (hex) {
        if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
            return false;
        }
        s += 2;
    }
    unsigned base = hex ? 16 : 10;
    uint64_t v = 0;
    if (!*s) {
        return false;
    }
    for (; *s; s++) {
        int d = digit_value(*s, hex);
        if (d < 0 || (uint64_t)d > max || v > (max - (uint64_t)d) / base) {
            return false;
        }
        v = v * base + (uint64_t)d;
    }
    *out = v;
    return true;
}
