/*
 * ptx/parse_lex.c - the parser's lexing and error reporting: white space
 * and comments, words, numbers, opcodes cut at their dots, skipping
 * statements and blocks; module errors with line and column, unsupported
 * constructs recorded against the kernel, strings the module owns, arrays
 * that grow.
 *
 * Nothing here reads at or beyond the end of the text (it need not be
 * NUL-terminated); a number that does not fit 64 bits fails the parse.
 */
#include <config.h>

#include "ptx/ptx.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx_int.h"
#include "ptx/parse_int.h"

bool ptx__grow_array(void *arrp, unsigned *cap, size_t elem)
{
    void *arr;
    memcpy(&arr, arrp, sizeof(arr));
    if (*cap > UINT_MAX / 2) {
        return false;
    }
    unsigned nc = *cap ? *cap * 2 : 16;
    if (nc > SIZE_MAX / elem) {
        return false;
    }
    void *np = realloc(arr, (size_t)nc * elem);
    if (!np) {
        return false;
    }
    memcpy(arrp, &np, sizeof(np));
    *cap = nc;
    return true;
}

void ptx__set_err(struct ptx_error *err, int code, unsigned line,
                  const char *fmt, ...)
{
    if (!err) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    err->line = line;
    err->column = 0;
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
}

/* Column (from 1) of at on its line. */
static unsigned column_of(const struct ptx_parse *p, const char *at)
{
    const char *b = at;
    while (b > p->text && b[-1] != '\n') {
        b--;
    }
    return (unsigned)(at - b) + 1;
}

int ptx__fail_at(struct ptx_parse *p, struct loc l, int code, const char *fmt,
                 ...)
{
    if (p->rc) {
        return p->rc;
    }
    p->rc = code;
    if (p->err) {
        char what[PTX_ERROR_MSG_BYTES];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        unsigned col = column_of(p, l.at);
        ptx__set_err(p->err, code, l.line, "PTX line %u:%u: %s", l.line, col,
                     what);
        p->err->column = col;
    }
    return code;
}

/* Out of memory while parsing what is at the current position. */
int ptx_parse_nomem(struct ptx_parse *p)
{
    return ptx__fail_at(p, here(p), PTX_ENOMEM, "out of memory");
}

char *ptx__mod_strdup(struct ptx_parse *p, const char *s, size_t n)
{
    struct ptx_module *m = p->m;
    if (n == SIZE_MAX || !GROW(m->strings, m->n_strings, m->cap_strings)) {
        ptx_parse_nomem(p);
        return NULL;
    }
    char *c = malloc(n + 1);
    if (!c) {
        ptx_parse_nomem(p);
        return NULL;
    }
    memcpy(c, s, n);
    c[n] = '\0';
    m->strings[m->n_strings++] = c;
    return c;
}

void ptx__kernel_msg(char *msg, size_t cap, const char *kname, unsigned line,
                     const char *what)
{
    /* a mangled template name may be longer than the whole message: it
     * is cut (its head kept, "..." after it) so that what is said and
     * where always fit */
    char where[32];
    snprintf(where, sizeof(where), ": PTX line %u: ", line);
    size_t fixed = strlen("kernel ") + strlen(where) + strlen(what);
    size_t room = cap > fixed + 1 ? cap - fixed - 1 : 0;
    size_t n = strlen(kname);
    if (n <= room) {
        snprintf(msg, cap, "kernel %s%s%s", kname, where, what);
    } else {
        int keep = room > 3 ? (int)(room - 3) : 0;
        snprintf(msg, cap, "kernel %.*s...%s%s", keep, kname, where, what);
    }
}

void ptx__unsupported(struct ptx_parse *p, unsigned line, const char *fmt, ...)
{
    if (!p->k || p->k->err_line) {
        return;
    }
    char what[200], msg[PTX_ERROR_MSG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    ptx__kernel_msg(msg, sizeof(msg), p->k->info.name, line, what);
    char *c = ptx__mod_strdup(p, msg, strlen(msg));
    if (c) {
        p->k->err_line = line;
        p->k->err_msg = c;
    }
}

/* ---------------------------------------------------------------------- */
/* Lexing: nothing here reads at or beyond p->end                          */
/* ---------------------------------------------------------------------- */

void ptx__skip_ws(struct ptx_parse *p)
{
    while (p->s < p->end) {
        char c = *p->s;
        if (c == '\n') {
            p->line++;
            p->s++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
                   c == '\v' || c == '\0') {
            p->s++;
        } else if (c == '/' && p->end - p->s > 1 && p->s[1] == '/') {
            while (p->s < p->end && *p->s != '\n') {
                p->s++;
            }
        } else if (c == '/' && p->end - p->s > 1 && p->s[1] == '*') {
            p->s += 2;
            while (p->end - p->s > 1 && !(p->s[0] == '*' && p->s[1] == '/')) {
                if (*p->s == '\n') {
                    p->line++;
                }
                p->s++;
            }
            p->s = p->end - p->s > 1 ? p->s + 2 : p->end;
        } else {
            break;
        }
    }
}

static bool is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$' ||
           c == '%';
}

/* The next word ("ld.global.u32", "%r1", "$L__BB0_2", "9.0", "sm_90",
 * "L1::no_allocate") in place: its start and length (0: none). */
size_t ptx__scan_word(struct ptx_parse *p, const char **start)
{
    ptx__skip_ws(p);
    *start = p->s;
    while (p->s < p->end) {
        char c = *p->s;
        if (c == ':' && p->end - p->s > 1 && p->s[1] == ':') {
            p->s += 2;
        } else if (is_word_char(c)) {
            p->s++;
        } else {
            break;
        }
    }
    return (size_t)(p->s - *start);
}

/* The next word into buf (cut to cap - 1 characters); returns its full
 * length (0: none). */
size_t ptx__read_word(struct ptx_parse *p, char *buf, size_t cap)
{
    const char *w;
    size_t n = ptx__scan_word(p, &w);
    size_t c = n < cap ? n : cap - 1;
    memcpy(buf, w, c);
    buf[c] = '\0';
    return n;
}

/* The character at the current position for a message ('\0' at the
 * end), and the same as printable text. */
const char *ptx__char_text(struct ptx_parse *p, char *buf, size_t cap)
{
    if (p->s >= p->end) {
        snprintf(buf, cap, "end of text");
    } else if (isprint((unsigned char)*p->s)) {
        snprintf(buf, cap, "character '%c'", *p->s);
    } else {
        snprintf(buf, cap, "byte 0x%02x", (unsigned char)*p->s);
    }
    return buf;
}

bool ptx__peek(struct ptx_parse *p, char c)
{
    ptx__skip_ws(p);
    return p->s < p->end && *p->s == c;
}

bool ptx__accept(struct ptx_parse *p, char c)
{
    if (ptx__peek(p, c)) {
        p->s++;
        return true;
    }
    return false;
}

/* Skip to just past the next ';' (at brace depth 0). */
void ptx__skip_statement(struct ptx_parse *p)
{
    long depth = 0;
    while (p->s < p->end) {
        char c = *p->s++;
        if (c == '\n') {
            p->line++;
        } else if (c == '{') {
            depth++;
        } else if (c == '}') {
            depth--;
        } else if (c == ';' && depth <= 0) {
            return;
        } else if (c == '"') {
            while (p->s < p->end && *p->s != '"' && *p->s != '\n') {
                p->s++;
            }
            if (p->s < p->end && *p->s == '"') {
                p->s++;
            }
        }
    }
}

void ptx__skip_line(struct ptx_parse *p)
{
    while (p->s < p->end && *p->s != '\n') {
        p->s++;
    }
}

/* Skip a balanced { ... } block; the '{' is next. */
void ptx__skip_block(struct ptx_parse *p)
{
    long depth = 0;
    while (p->s < p->end) {
        char c = *p->s++;
        if (c == '\n') {
            p->line++;
        } else if (c == '{') {
            depth++;
        } else if (c == '}' && --depth == 0) {
            return;
        }
    }
}

/* An unsigned integer word (decimal, 0x hex, 0 octal, optional U):
 * 1, or 0 when the next word is not one, or -1 when it does not fit 64
 * bits (the parse failed, with what in the message). */
int ptx__read_uint(struct ptx_parse *p, unsigned long long *v, const char *what)
{
    char w[64];
    struct loc l;
    ptx__skip_ws(p);
    l = here(p);
    size_t n = ptx__read_word(p, w, sizeof(w));
    if (!n || !isdigit((unsigned char)w[0])) {
        return 0;
    }
    char *e;
    errno = 0;
    *v = strtoull(w, &e, 0);
    if (*e == 'U' || *e == 'u') {
        e++;
    }
    if (*e != '\0') {
        return 0;
    }
    if (errno == ERANGE || n >= sizeof(w)) {
        ptx__fail_at(p, l, PTX_EPARSE, "%s %.40s%s does not fit 64 bits", what,
                     w, n >= sizeof(w) ? "..." : "");
        return -1;
    }
    return 1;
}

unsigned ptx__split_opcode(const char *opcode, char *buf, size_t bl,
                           char **parts, unsigned max)
{
    unsigned np = 0;
    char *save = NULL;
    snprintf(buf, bl, "%s", opcode);
    for (char *tok = strtok_r(buf, ".", &save); tok && np < max;
         tok = strtok_r(NULL, ".", &save)) {
        parts[np++] = tok;
    }
    return np;
}
