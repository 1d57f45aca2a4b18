/*
 * ptx/parse.c - the structure of a PTX module: header directives,
 * module variables, .entry kernels with their parameter lists, register,
 * .shared and .local declarations, labels and instruction statements
 * (each handed to decode.c).
 *
 * What is parsed: the text nvcc 13 emits (PTX ISA 9.0) for whole-program
 * compilation. .func bodies are skipped (a kernel that calls one fails
 * at `call`); debug sections (.file, .loc, .section) are skipped. Any
 * other directive inside a kernel, and any instruction decode.c rejects,
 * is recorded against that kernel with its line; parsing goes on, so the
 * module's other kernels stay usable.
 *
 * Memory layout decided here:
 *   .param  offsets as the CUDA ABI lays out kernel arguments: each
 *           parameter aligned to its .align (default: its type size);
 *   .shared module-scope variables first, then the kernel's own, each
 *           aligned; extern (dynamic) .shared starts after them, aligned
 *           to 16 bytes (info.dyn_shared_offset);
 *   .local  the kernel's .local variables, one frame per thread.
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

/* A register declaration: "%r<64>" (count 64) or "%SP" (count 0). */
struct reg_decl {
    char *name;
    unsigned base;
    unsigned count;
};

/* A named address in a kernel or module. */
struct sym {
    char *name;
    enum ptx_space space;
    int64_t offset;  /* param/shared/local offset */
    int var;         /* module variable, or PTX_NOVAR */
    bool dyn_shared; /* extern .shared: offset decided per kernel */
};

struct label {
    char *name;
    int insn; /* -1 until defined */
    unsigned line_used;
};

/* A place in the text, for messages: its line and where it is. */
struct loc {
    unsigned line;
    const char *at;
};

struct ptx_parse {
    const char *text, *s, *end;
    unsigned line;
    struct ptx_module *m;
    struct ptx_error *err;
    int rc; /* the first module error (0: none); once set, parsing stops */

    /* module scope */
    struct sym *msyms;
    unsigned n_msyms, cap_msyms;
    unsigned cap_kernels, cap_vars;
    uint64_t const_bytes;

    /* the kernel being parsed */
    struct ptx_kernel *k;
    struct reg_decl *regs;
    unsigned n_regs, cap_regs;
    struct sym *ksyms;
    unsigned n_ksyms, cap_ksyms;
    struct label *labels;
    unsigned n_labels, cap_labels;
    uint32_t shared_bytes;
    bool dyn_shared_used;
};

/* Make room for one more element in *arrp (n used of *cap); false when
 * out of memory or the count would overflow (the array is unchanged). */
static bool grow_array(void *arrp, unsigned *cap, size_t elem)
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

/* True when arr has room for element n (growing it if needed). */
#define GROW(arr, n, cap)                                                   \
    ((n) < (cap) || grow_array((void *)&(arr), &(cap), sizeof(*(arr))))

static void set_err(struct ptx_error *err, int code, unsigned line,
                    const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_err(struct ptx_error *err, int code, unsigned line,
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

static struct loc here(struct ptx_parse *p)
{
    struct loc l = {p->line, p->s};
    return l;
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

/* A module error at l: "PTX line L:C: ..."; the first one wins and stops
 * the parse. Returns code. */
static int fail_at(struct ptx_parse *p, struct loc l, int code,
                   const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_at(struct ptx_parse *p, struct loc l, int code,
                   const char *fmt, ...)
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
        set_err(p->err, code, l.line, "PTX line %u:%u: %s", l.line, col,
                what);
        p->err->column = col;
    }
    return code;
}

/* Out of memory while parsing what is at the current position. */
static int nomem(struct ptx_parse *p)
{
    return fail_at(p, here(p), PTX_ENOMEM, "out of memory");
}

int ptx_parse_nomem(struct ptx_parse *p)
{
    return nomem(p);
}

/* An owned copy of s[0..n) that lives as long as the module; NULL (and
 * the parse failed) when out of memory. */
static char *mod_strdup(struct ptx_parse *p, const char *s, size_t n)
{
    struct ptx_module *m = p->m;
    if (n == SIZE_MAX || !GROW(m->strings, m->n_strings, m->cap_strings)) {
        nomem(p);
        return NULL;
    }
    char *c = malloc(n + 1);
    if (!c) {
        nomem(p);
        return NULL;
    }
    memcpy(c, s, n);
    c[n] = '\0';
    m->strings[m->n_strings++] = c;
    return c;
}

/* Record the first unsupported construct of the kernel being parsed. */
static void kernel_unsupported(struct ptx_parse *p, unsigned line,
                               const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void kernel_unsupported(struct ptx_parse *p, unsigned line,
                               const char *fmt, ...)
{
    if (!p->k || p->k->err_line) {
        return;
    }
    char what[200], msg[PTX_ERROR_MSG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof(msg), "kernel %s: PTX line %u: %s",
             p->k->info.name, line, what);
    char *c = mod_strdup(p, msg, strlen(msg));
    if (c) {
        p->k->err_line = line;
        p->k->err_msg = c;
    }
}

/* ---------------------------------------------------------------------- */
/* Lexing: nothing here reads at or beyond p->end                          */
/* ---------------------------------------------------------------------- */

static void skip_ws(struct ptx_parse *p)
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
static size_t scan_word(struct ptx_parse *p, const char **start)
{
    skip_ws(p);
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
static size_t read_word(struct ptx_parse *p, char *buf, size_t cap)
{
    const char *w;
    size_t n = scan_word(p, &w);
    size_t c = n < cap ? n : cap - 1;
    memcpy(buf, w, c);
    buf[c] = '\0';
    return n;
}

/* The character at the current position for a message ('\0' at the
 * end), and the same as printable text. */
static const char *char_text(struct ptx_parse *p, char *buf, size_t cap)
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

static bool peek(struct ptx_parse *p, char c)
{
    skip_ws(p);
    return p->s < p->end && *p->s == c;
}

static bool accept(struct ptx_parse *p, char c)
{
    if (peek(p, c)) {
        p->s++;
        return true;
    }
    return false;
}

/* Skip to just past the next ';' (at brace depth 0). */
static void skip_statement(struct ptx_parse *p)
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

static void skip_line(struct ptx_parse *p)
{
    while (p->s < p->end && *p->s != '\n') {
        p->s++;
    }
}

/* Skip a balanced { ... } block; the '{' is next. */
static void skip_block(struct ptx_parse *p)
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
static int read_uint(struct ptx_parse *p, unsigned long long *v,
                     const char *what)
{
    char w[64];
    struct loc l;
    skip_ws(p);
    l = here(p);
    size_t n = read_word(p, w, sizeof(w));
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
        fail_at(p, l, PTX_EPARSE, "%s %.40s%s does not fit 64 bits", what,
                w, n >= sizeof(w) ? "..." : "");
        return -1;
    }
    return 1;
}

/* ---------------------------------------------------------------------- */
/* Symbols, registers and labels (also used by decode.c)                  */
/* ---------------------------------------------------------------------- */

static const struct {
    const char *name;
    int slot;
} sreg_names[] = {
    {"%tid.x", SR_TID_X},       {"%tid.y", SR_TID_Y},
    {"%tid.z", SR_TID_Z},       {"%ntid.x", SR_NTID_X},
    {"%ntid.y", SR_NTID_Y},     {"%ntid.z", SR_NTID_Z},
    {"%ctaid.x", SR_CTAID_X},   {"%ctaid.y", SR_CTAID_Y},
    {"%ctaid.z", SR_CTAID_Z},   {"%nctaid.x", SR_NCTAID_X},
    {"%nctaid.y", SR_NCTAID_Y}, {"%nctaid.z", SR_NCTAID_Z},
    {"%laneid", SR_LANEID},     {"%warpid", SR_WARPID},
    {"%nwarpid", SR_NWARPID},   {"%smid", SR_SMID},
    {"%nsmid", SR_NSMID},       {"%gridid", SR_GRIDID},
    {"%lanemask_eq", SR_LANEMASK_EQ}, {"%lanemask_lt", SR_LANEMASK_LT},
    {"%lanemask_le", SR_LANEMASK_LE}, {"%lanemask_gt", SR_LANEMASK_GT},
    {"%lanemask_ge", SR_LANEMASK_GE},
};

int ptx_parse_reg(struct ptx_parse *p, const char *name)
{
    if (name[0] != '%') {
        return -1;
    }
    for (size_t i = 0; i < sizeof(sreg_names) / sizeof(sreg_names[0]); i++) {
        if (strcmp(name, sreg_names[i].name) == 0) {
            return sreg_names[i].slot;
        }
    }
    if (strncmp(name, "%envreg", 7) == 0 && isdigit((unsigned char)name[7])) {
        char *e;
        unsigned long n = strtoul(name + 7, &e, 10);
        return *e == '\0' && n < 32 ? SR_ENVREG0 + (int)n : -1;
    }
    for (unsigned i = 0; i < p->n_regs; i++) {
        if (p->regs[i].count == 0 && strcmp(p->regs[i].name, name) == 0) {
            return (int)p->regs[i].base;
        }
    }
    size_t len = strlen(name), d = len;
    while (d > 0 && isdigit((unsigned char)name[d - 1])) {
        d--;
    }
    if (d == len) {
        return -1;
    }
    unsigned long num = strtoul(name + d, NULL, 10);
    for (unsigned i = 0; i < p->n_regs; i++) {
        struct reg_decl *r = &p->regs[i];
        if (r->count && strlen(r->name) == d &&
            strncmp(r->name, name, d) == 0 && num < r->count) {
            return (int)(r->base + num);
        }
    }
    return -1;
}

static struct sym *find_sym(struct sym *v, unsigned n, const char *name)
{
    for (unsigned i = 0; i < n; i++) {
        if (strcmp(v[i].name, name) == 0) {
            return &v[i];
        }
    }
    return NULL;
}

/* v rounded up to a multiple of a (a power of two <= PTX_ALIGN_MAX, so
 * with v below 2^40 nothing overflows). */
static uint64_t align_up(uint64_t v, uint32_t a)
{
    return a ? (v + a - 1) / a * a : v;
}

int ptx_parse_sym(struct ptx_parse *p, const char *name,
                  enum ptx_space *space, int64_t *offset, int *var)
{
    struct sym *s = find_sym(p->ksyms, p->n_ksyms, name);
    if (!s) {
        s = find_sym(p->msyms, p->n_msyms, name);
    }
    if (!s) {
        return -1;
    }
    *space = s->space;
    *var = s->var;
    *offset = s->offset;
    if (s->dyn_shared) {
        p->dyn_shared_used = true;
        *offset = (int64_t)align_up(p->shared_bytes, 16);
    }
    return 0;
}

int ptx_parse_label(struct ptx_parse *p, const char *name)
{
    for (unsigned i = 0; i < p->n_labels; i++) {
        if (strcmp(p->labels[i].name, name) == 0) {
            return (int)i;
        }
    }
    if (p->n_labels >= INT_MAX || !GROW(p->labels, p->n_labels,
                                        p->cap_labels)) {
        nomem(p);
        return -1;
    }
    struct label *l = &p->labels[p->n_labels];
    l->name = strdup(name);
    if (!l->name) {
        nomem(p);
        return -1;
    }
    l->insn = -1;
    l->line_used = p->line;
    return (int)p->n_labels++;
}

static int add_sym(struct ptx_parse *p, struct sym **v, unsigned *n,
                   unsigned *cap, const char *name, enum ptx_space space,
                   int64_t offset, int var)
{
    if (!GROW(*v, *n, *cap)) {
        return nomem(p);
    }
    struct sym *s = &(*v)[*n];
    s->name = strdup(name);
    if (!s->name) {
        return nomem(p);
    }
    (*n)++;
    s->space = space;
    s->offset = offset;
    s->var = var;
    s->dyn_shared = false;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Declarations: ".align 8 .b8 name[16] = {...}"                          */
/* ---------------------------------------------------------------------- */

struct decl {
    char name[PTX_NAME_MAX + 1];
    enum ptx_type type;
    uint32_t align;
    uint64_t count;   /* elements; 0 for name[] */
    uint64_t bytes;   /* count elements of the type */
    bool unsized;     /* name[] */
    bool other;       /* a modifier we do not understand */
    char other_word[64];
    struct loc at;    /* the first word */
};

/* Reads modifiers and the name and array size; stops before '=' or ';'
 * (or ',' / ')' in parameter lists). Return: 1, 0 when malformed (the
 * caller says so), or -1 when a number broke a limit (the parse failed,
 * with the reason). */
static int read_decl(struct ptx_parse *p, struct decl *d)
{
    char w[PTX_NAME_MAX + 1];
    memset(d, 0, sizeof(*d));
    d->count = 1;
    skip_ws(p);
    d->at = here(p);
    for (;;) {
        skip_ws(p);
        struct loc l = here(p);
        size_t n = read_word(p, w, sizeof(w));
        if (!n) {
            return 0;
        }
        if (n > PTX_NAME_MAX) {
            fail_at(p, l, PTX_EPARSE, "a name of %zu characters (at most "
                    "%u)", n, PTX_NAME_MAX);
            return -1;
        }
        if (w[0] != '.') {
            break;
        }
        enum ptx_type t = ptx_type_from_name(w + 1);
        unsigned long long v;
        if (t != PT_NONE) {
            d->type = t;
        } else if (strcmp(w, ".align") == 0) {
            int rc = read_uint(p, &v, ".align");
            if (rc <= 0) {
                return rc;
            }
            if (v == 0 || v > PTX_ALIGN_MAX || (v & (v - 1))) {
                fail_at(p, l, PTX_EPARSE, ".align %llu: a power of two "
                        "up to %u expected", v, PTX_ALIGN_MAX);
                return -1;
            }
            d->align = (uint32_t)v;
        } else if (strcmp(w, ".ptr") == 0 || strcmp(w, ".global") == 0 ||
                   strcmp(w, ".shared") == 0 || strcmp(w, ".const") == 0 ||
                   strcmp(w, ".local") == 0) {
            /* .ptr .global .align N: a pointer parameter's attributes */
        } else if (!d->other) {
            d->other = true;
            snprintf(d->other_word, sizeof(d->other_word), "%.60s", w);
        }
    }
    snprintf(d->name, sizeof(d->name), "%s", w);
    while (accept(p, '[')) {
        unsigned long long v;
        skip_ws(p);
        struct loc l = here(p);
        if (peek(p, ']')) {
            d->unsized = true;
            d->count = 0;
        } else {
            int rc = read_uint(p, &v, "array size");
            if (rc <= 0) {
                return rc;
            }
            if (__builtin_mul_overflow(d->count, (uint64_t)v, &d->count)) {
                fail_at(p, l, PTX_EPARSE, "%s: the array's element count "
                        "does not fit 64 bits", d->name);
                return -1;
            }
        }
        if (!accept(p, ']')) {
            return 0;
        }
    }
    if (__builtin_mul_overflow(d->count, (uint64_t)ptx_type_bytes(d->type),
                               &d->bytes)) {
        fail_at(p, d->at, PTX_EPARSE, "%s: %llu elements of %u bytes do "
                "not fit 64 bits", d->name, (unsigned long long)d->count,
                ptx_type_bytes(d->type));
        return -1;
    }
    if (!d->align) {
        d->align = ptx_type_bytes(d->type) ? ptx_type_bytes(d->type) : 1;
    }
    return d->name[0] != '\0' && d->type != PT_NONE;
}

/* Place a variable of d in a space of *total bytes (aligned), failing
 * the parse when the space would pass max. Returns 0 with its offset. */
static int place_var(struct ptx_parse *p, const struct decl *d,
                     uint32_t *total, uint32_t max, const char *space,
                     uint32_t *offset)
{
    uint64_t off = align_up(*total, d->align);
    if (d->bytes > max || off > max - d->bytes) {
        return fail_at(p, d->at, PTX_EPARSE, "%s %s: %llu bytes at offset "
                       "%llu pass the limit of %u bytes of %s", space,
                       d->name, (unsigned long long)d->bytes,
                       (unsigned long long)off, max, space);
    }
    *offset = (uint32_t)off;
    *total = (uint32_t)(off + d->bytes);
    return 0;
}

/* One initial value of type t: an integer, 0f/0d float bits, or for a
 * float type a decimal float; optionally negated. Return: 1, 0 for an
 * initializer we do not evaluate (an address), -1 when the parse
 * failed. */
static int read_init_value(struct ptx_parse *p, enum ptx_type t,
                           uint64_t *v)
{
    char w[128];
    bool neg = accept(p, '-');
    bool flt = t == PT_F32 || t == PT_F64;
    skip_ws(p);
    struct loc l = here(p);
    size_t n = read_word(p, w, sizeof(w));
    if (!n) {
        return 0;
    }
    const char *digits = w;
    int base = 0;
    bool bits = w[0] == '0' && (w[1] == 'f' || w[1] == 'F' || w[1] == 'd' ||
                                w[1] == 'D');
    if (bits) {
        digits = w + 2;
        base = 16;
    } else if (!isdigit((unsigned char)w[0])) {
        return 0; /* generic(sym) and other address initializers */
    }
    char *e;
    errno = 0;
    if (flt && !bits && strpbrk(w, ".eE") && !strpbrk(w, "xX")) {
        double x = strtod(w, &e);
        if (t == PT_F32) {
            float f = (float)x;
            uint32_t b;
            memcpy(&b, &f, sizeof(b));
            *v = b;
        } else {
            memcpy(v, &x, sizeof(*v));
        }
        errno = 0; /* a float out of range is inf or 0, as in C */
    } else {
        *v = strtoull(digits, &e, base);
        if (*e == 'U' || *e == 'u') {
            e++;
        }
    }
    if (errno == ERANGE || n >= sizeof(w) || *e != '\0' || e == digits) {
        fail_at(p, l, PTX_EPARSE, "malformed initial value '%.40s'", w);
        return -1;
    }
    if (neg && flt) {
        *v ^= t == PT_F32 ? 1ull << 31 : 1ull << 63; /* the sign bit */
    } else if (neg) {
        *v = -*v;
    }
    return 1;
}

/* Parse "= {1, 2, 3}" or "= 5" into init bytes of the element type (the
 * '=' is read). *init gets at most d->bytes bytes, as many as there are
 * values; NULL for an initializer we cannot evaluate. */
static int read_init(struct ptx_parse *p, const struct decl *d,
                     uint8_t **init, uint64_t *init_bytes)
{
    unsigned eb = ptx_type_bytes(d->type);
    uint8_t *buf = NULL;
    uint64_t have = 0, cap = 0;
    bool bad = false;
    bool braces = accept(p, '{');
    *init = NULL;
    *init_bytes = 0;
    do {
        skip_ws(p);
        struct loc l = here(p);
        uint64_t v;
        int rc = read_init_value(p, d->type, &v);
        if (rc < 0) {
            free(buf);
            return p->rc;
        }
        if (rc == 0) {
            bad = true;
            break;
        }
        if (eb > d->bytes - have) {
            free(buf);
            return fail_at(p, l, PTX_EPARSE, "%s: more initial values "
                           "than its %llu elements", d->name,
                           (unsigned long long)d->count);
        }
        if (have + eb > cap) {
            uint64_t nc = cap ? cap * 2 : 64;
            nc = nc < d->bytes ? nc : d->bytes;
            uint8_t *nb = realloc(buf, (size_t)nc);
            if (!nb) {
                free(buf);
                return nomem(p);
            }
            buf = nb;
            cap = nc;
        }
        memcpy(buf + have, &v, eb);
        have += eb;
    } while (braces && accept(p, ','));
    if (braces && !accept(p, '}')) {
        bad = true;
    }
    if (bad) {
        free(buf);
        return 0;
    }
    *init = buf;
    *init_bytes = have;
    return 0;
}

/* Module-scope .global/.const/.shared variable; the space word is read
 * (at l). */
static int parse_module_var(struct ptx_parse *p, enum ptx_space space,
                            bool is_extern, struct loc l)
{
    struct decl d;
    int rc = read_decl(p, &d);
    if (rc <= 0) {
        return rc < 0 ? p->rc
                      : fail_at(p, l, PTX_EPARSE,
                                "malformed variable declaration");
    }
    if (space == PS_SHARED) {
        if (d.unsized || is_extern) {
            rc = add_sym(p, &p->msyms, &p->n_msyms, &p->cap_msyms, d.name,
                         PS_SHARED, 0, PTX_NOVAR);
            if (rc) {
                return rc;
            }
            p->msyms[p->n_msyms - 1].dyn_shared = true;
        } else {
            uint32_t off;
            rc = place_var(p, &d, &p->m->shared_bytes, PTX_SHARED_MAX_BYTES,
                           ".shared", &off);
            if (!rc) {
                rc = add_sym(p, &p->msyms, &p->n_msyms, &p->cap_msyms,
                             d.name, PS_SHARED, off, PTX_NOVAR);
            }
            if (rc) {
                return rc;
            }
        }
        skip_statement(p);
        return 0;
    }
    if (space == PS_CONST) {
        if (d.bytes > PTX_CONST_MAX_BYTES ||
            p->const_bytes > PTX_CONST_MAX_BYTES - d.bytes) {
            return fail_at(p, d.at, PTX_EPARSE, ".const %s: %llu bytes "
                           "pass the limit of %u bytes of .const in a "
                           "module", d.name, (unsigned long long)d.bytes,
                           PTX_CONST_MAX_BYTES);
        }
        p->const_bytes += d.bytes;
    } else if (d.bytes > PTX_GLOBAL_MAX_BYTES) {
        return fail_at(p, d.at, PTX_EPARSE, ".global %s: %llu bytes pass "
                       "the limit of %llu bytes of a .global variable",
                       d.name, (unsigned long long)d.bytes,
                       (unsigned long long)PTX_GLOBAL_MAX_BYTES);
    }
    struct ptx_var_info v = {0};
    v.name = mod_strdup(p, d.name, strlen(d.name));
    if (!v.name) {
        return p->rc;
    }
    v.space = space == PS_CONST ? PTX_VAR_CONST : PTX_VAR_GLOBAL;
    v.size_bytes = d.bytes;
    v.align_bytes = d.align;
    if (accept(p, '=')) {
        uint8_t *init;
        rc = read_init(p, &d, &init, &v.init_bytes);
        if (rc) {
            return rc;
        }
        if (init && !GROW(p->m->strings, p->m->n_strings,
                          p->m->cap_strings)) {
            free(init);
            return nomem(p);
        }
        if (init) {
            p->m->strings[p->m->n_strings++] = (char *)init;
        }
        v.init = init;
        /* Model: an initializer we cannot evaluate (an address) leaves
         * the variable zeroed; a kernel using it would misbehave, so it
         * is flagged at use below through the symbol's var index. */
    }
    skip_statement(p);
    if (p->m->n_vars >= INT_MAX ||
        !GROW(p->m->vars, p->m->n_vars, p->cap_vars)) {
        return nomem(p);
    }
    rc = add_sym(p, &p->msyms, &p->n_msyms, &p->cap_msyms, d.name, space, 0,
                 (int)p->m->n_vars);
    if (rc) {
        return rc;
    }
    p->m->vars[p->m->n_vars++] = v;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Kernels                                                                 */
/* ---------------------------------------------------------------------- */

static void kernel_reset_scope(struct ptx_parse *p)
{
    for (unsigned i = 0; i < p->n_regs; i++) {
        free(p->regs[i].name);
    }
    for (unsigned i = 0; i < p->n_ksyms; i++) {
        free(p->ksyms[i].name);
    }
    for (unsigned i = 0; i < p->n_labels; i++) {
        free(p->labels[i].name);
    }
    p->n_regs = p->n_ksyms = p->n_labels = 0;
}

static int parse_params(struct ptx_parse *p, struct ptx_kernel *k)
{
    unsigned cap = 0;
    uint32_t off = 0;
    if (!accept(p, '(')) {
        return 0;
    }
    if (accept(p, ')')) {
        return 0;
    }
    do {
        char w[64];
        skip_ws(p);
        struct loc l = here(p);
        struct decl d;
        int rc = 0;
        if (!read_word(p, w, sizeof(w)) || strcmp(w, ".param") != 0 ||
            (rc = read_decl(p, &d)) <= 0) {
            return rc < 0 ? p->rc
                          : fail_at(p, l, PTX_EPARSE, "malformed parameter "
                                    "of kernel %s", k->info.name);
        }
        if (d.other) {
            kernel_unsupported(p, l.line, "unsupported parameter attribute "
                               "'%s'", d.other_word);
        }
        if (!GROW(k->params, k->info.n_params, cap)) {
            return nomem(p);
        }
        uint32_t at;
        rc = place_var(p, &d, &off, PTX_PARAM_MAX_BYTES, ".param", &at);
        if (rc) {
            return rc;
        }
        struct ptx_param_info *pi = &k->params[k->info.n_params];
        pi->name = mod_strdup(p, d.name, strlen(d.name));
        if (!pi->name) {
            return p->rc;
        }
        k->info.n_params++;
        pi->size_bytes = (uint32_t)d.bytes;
        pi->align_bytes = d.align;
        pi->offset_bytes = at;
        rc = add_sym(p, &p->ksyms, &p->n_ksyms, &p->cap_ksyms, d.name,
                     PS_PARAM, pi->offset_bytes, PTX_NOVAR);
        if (rc) {
            return rc;
        }
    } while (accept(p, ','));
    k->info.params = k->params;
    if (!accept(p, ')')) {
        return fail_at(p, here(p), PTX_EPARSE, "')' expected after the "
                       "parameters of %s", k->info.name);
    }
    k->info.param_bytes = off;
    return 0;
}

static int parse_ntid(struct ptx_parse *p, uint32_t v[3], const char *what)
{
    for (int i = 0; i < 3; i++) {
        unsigned long long x;
        v[i] = 1;
        if (i > 0 && !accept(p, ',')) {
            break;
        }
        skip_ws(p);
        struct loc l = here(p);
        int rc = read_uint(p, &x, what);
        if (rc < 0) {
            return p->rc;
        }
        if (rc > 0 && (x == 0 || x > PTX_NTID_MAX)) {
            return fail_at(p, l, PTX_EPARSE, "%s %llu: 1 to %u expected",
                           what, x, PTX_NTID_MAX);
        }
        if (rc > 0) {
            v[i] = (uint32_t)x;
        }
    }
    return 0;
}

static int declare_regs(struct ptx_parse *p, struct ptx_kernel *k)
{
    char w[256];
    unsigned line = p->line;
    struct loc l; /* of the register name in w */
    /* types and modifiers */
    for (;;) {
        skip_ws(p);
        l = here(p);
        if (!read_word(p, w, sizeof(w)) || w[0] != '.') {
            break;
        }
        if (ptx_type_from_name(w + 1) == PT_NONE) {
            kernel_unsupported(p, line, "unsupported register type '%s'", w);
        }
    }
    for (;;) {
        unsigned long long n = 1;
        bool ranged = false;
        if (w[0] == '\0') {
            kernel_unsupported(p, line, "malformed .reg declaration");
            break;
        }
        if (accept(p, '<')) {
            int rc = read_uint(p, &n, "register count");
            if (rc < 0) {
                return p->rc;
            }
            if (rc == 0 || !accept(p, '>')) {
                kernel_unsupported(p, line, "malformed .reg declaration");
                break;
            }
            ranged = true;
        }
        if (n > PTX_REG_MAX || k->n_regs - SR_COUNT > PTX_REG_MAX - n) {
            return fail_at(p, l, PTX_EPARSE, "kernel %s: %s: more than %u "
                           "registers", k->info.name, w, PTX_REG_MAX);
        }
        if (n > 0) {
            if (!GROW(p->regs, p->n_regs, p->cap_regs)) {
                return nomem(p);
            }
            struct reg_decl *r = &p->regs[p->n_regs];
            r->name = strdup(w);
            if (!r->name) {
                return nomem(p);
            }
            p->n_regs++;
            r->base = k->n_regs;
            r->count = ranged ? (unsigned)n : 0;
            k->n_regs += (unsigned)n;
        }
        if (!accept(p, ',')) {
            break;
        }
        skip_ws(p);
        l = here(p);
        if (!read_word(p, w, sizeof(w))) {
            break;
        }
    }
    skip_statement(p);
    return 0;
}

/* .shared or .local inside a kernel. */
static int declare_kernel_var(struct ptx_parse *p, struct ptx_kernel *k,
                              enum ptx_space space)
{
    struct decl d;
    unsigned line = p->line;
    int rc = read_decl(p, &d);
    if (rc < 0) {
        return p->rc;
    }
    if (rc == 0 || d.other) {
        kernel_unsupported(p, line, "unsupported %s declaration",
                           space == PS_SHARED ? ".shared" : ".local");
        skip_statement(p);
        return 0;
    }
    uint32_t off;
    rc = space == PS_SHARED
             ? place_var(p, &d, &p->shared_bytes, PTX_SHARED_MAX_BYTES,
                         ".shared", &off)
             : place_var(p, &d, &k->local_bytes, PTX_LOCAL_MAX_BYTES,
                         ".local", &off);
    if (rc) {
        return rc;
    }
    if (space == PS_SHARED && p->dyn_shared_used) {
        kernel_unsupported(p, line, ".shared declared after a use of "
                           "dynamic shared memory");
    }
    rc = add_sym(p, &p->ksyms, &p->n_ksyms, &p->cap_ksyms, d.name, space,
                 off, PTX_NOVAR);
    if (rc) {
        return rc;
    }
    skip_statement(p);
    return 0;
}

/* Split "a, {b, c}, [d+4]" at top-level commas (in place). */
static unsigned split_operands(char *s, char **out, unsigned max)
{
    unsigned n = 0;
    long depth = 0;
    char *start = s;
    for (char *c = s;; c++) {
        if (*c == '{' || *c == '[' || *c == '(') {
            depth++;
        } else if (*c == '}' || *c == ']' || *c == ')') {
            depth--;
        }
        if ((*c == ',' && depth == 0) || *c == '\0') {
            bool last = *c == '\0';
            *c = '\0';
            while (*start == ' ' || *start == '\t' || *start == '\n' ||
                   *start == '\r') {
                start++;
            }
            char *e = start + strlen(start);
            while (e > start && isspace((unsigned char)e[-1])) {
                *--e = '\0';
            }
            if (*start || !last || n > 0) {
                if (n < max) {
                    out[n] = start;
                }
                n++;
            }
            if (last) {
                break;
            }
            start = c + 1;
        }
    }
    return n;
}

static int add_insn(struct ptx_parse *p, struct ptx_kernel *k,
                    const struct ptx_insn *in, struct loc l)
{
    if (k->n_insns >= PTX_INSN_MAX) {
        return fail_at(p, l, PTX_EPARSE, "kernel %s: more than %u "
                       "instructions", k->info.name, PTX_INSN_MAX);
    }
    if (!GROW(k->insns, k->n_insns, k->cap_insns)) {
        return nomem(p);
    }
    k->insns[k->n_insns++] = *in;
    return 0;
}

/* One instruction statement; the guard (if any) has been read, and the
 * statement began at l. */
static int parse_insn(struct ptx_parse *p, struct ptx_kernel *k,
                      const char *opcode, int guard, bool guard_neg,
                      struct loc l)
{
    const char *start = p->s;
    skip_statement(p);
    size_t len = (size_t)(p->s - start);
    if (len > PTX_STATEMENT_MAX_BYTES) {
        return fail_at(p, l, PTX_EPARSE, "an instruction of %zu bytes "
                       "(at most %u)", len, PTX_STATEMENT_MAX_BYTES);
    }
    char *text = malloc(len + 1);
    if (!text) {
        return nomem(p);
    }
    memcpy(text, start, len);
    text[len] = '\0';
    char *semi = strrchr(text, ';');
    if (semi) {
        *semi = '\0';
    }
    char *opds[PTX_MAX_OPDS + 2];
    unsigned n = split_operands(text, opds, PTX_MAX_OPDS + 2);
    struct ptx_insn in;
    memset(&in, 0, sizeof(in));
    in.guard = guard < 0 ? PTX_NOREG : (uint16_t)guard;
    in.guard_neg = guard_neg;
    in.line = l.line;
    char why[200] = "";
    unsigned saved = p->line;
    p->line = l.line;
    if (n > PTX_MAX_OPDS) {
        snprintf(why, sizeof(why), "too many operands");
    }
    int drc = why[0] ? -1 : ptx_decode(p, opcode, opds, n, &in, why,
                                       sizeof(why));
    /* out of memory in decode has failed the parse: not the kernel's
     * unsupported construct */
    if (drc && !p->rc) {
        kernel_unsupported(p, l.line, "unsupported instruction '%s' (%s)",
                           opcode, why);
        in.op = OP_TRAP;
    }
    p->line = saved;
    free(text);
    if (p->rc) {
        return p->rc; /* out of memory in decode or in recording why */
    }
    return add_insn(p, k, &in, l);
}

static int parse_body(struct ptx_parse *p, struct ptx_kernel *k)
{
    long depth = 0;
    char w[256], c[32];
    if (!accept(p, '{')) {
        return fail_at(p, here(p), PTX_EPARSE, "'{' expected for kernel %s",
                       k->info.name);
    }
    depth = 1;
    for (;;) {
        skip_ws(p);
        if (p->rc) {
            return p->rc;
        }
        struct loc l = here(p);
        if (p->s >= p->end) {
            return fail_at(p, l, PTX_EPARSE, "end of text inside kernel %s",
                           k->info.name);
        }
        if (accept(p, '{')) {
            depth++;
            continue;
        }
        if (accept(p, '}')) {
            if (--depth == 0) {
                return 0;
            }
            continue;
        }
        int guard = -1;
        bool neg = false;
        if (accept(p, '@')) {
            neg = accept(p, '!');
            read_word(p, w, sizeof(w));
            guard = ptx_parse_reg(p, w);
            if (guard < 0) {
                kernel_unsupported(p, l.line, "unknown guard predicate '%s'",
                                   w);
            }
        }
        if (!read_word(p, w, sizeof(w))) {
            kernel_unsupported(p, l.line, "unexpected %s",
                               char_text(p, c, sizeof(c)));
            skip_statement(p);
            continue;
        }
        int rc = 0;
        if (guard < 0 && !neg && peek(p, ':') && w[0] != '.') {
            p->s++;
            int li = ptx_parse_label(p, w);
            if (li < 0) {
                return p->rc;
            }
            p->labels[li].insn = (int)k->n_insns;
            continue;
        }
        if (strcmp(w, ".reg") == 0) {
            rc = declare_regs(p, k);
        } else if (strcmp(w, ".shared") == 0) {
            rc = declare_kernel_var(p, k, PS_SHARED);
        } else if (strcmp(w, ".local") == 0) {
            rc = declare_kernel_var(p, k, PS_LOCAL);
        } else if (strcmp(w, ".pragma") == 0) {
            skip_statement(p);
        } else if (strcmp(w, ".loc") == 0) {
            skip_line(p); /* .loc ends at the newline, without ';' */
        } else if (w[0] == '.') {
            kernel_unsupported(p, l.line, "unsupported directive '%s'", w);
            skip_statement(p);
        } else {
            rc = parse_insn(p, k, w, guard, neg, l);
        }
        if (rc) {
            return rc;
        }
    }
}

static void resolve_labels(struct ptx_parse *p, struct ptx_kernel *k)
{
    for (unsigned i = 0; i < k->n_insns; i++) {
        struct ptx_insn *in = &k->insns[i];
        if (in->op != OP_BRA || in->o[0].kind != OPD_LABEL) {
            continue;
        }
        struct label *l = &p->labels[in->o[0].imm];
        if (l->insn < 0) {
            kernel_unsupported(p, in->line, "undefined label '%s'", l->name);
            in->op = OP_TRAP;
        } else {
            in->o[0].imm = l->insn;
        }
    }
}

static int parse_entry(struct ptx_parse *p)
{
    char w[256];
    const char *name;
    skip_ws(p);
    struct loc l = here(p);
    size_t n = scan_word(p, &name);
    if (!n) {
        return fail_at(p, l, PTX_EPARSE, ".entry without a name");
    }
    struct ptx_module *m = p->m;
    struct ptx_kernel *k = calloc(1, sizeof(*k));
    if (!k || !GROW(m->kernels, m->n_kernels, p->cap_kernels)) {
        free(k);
        return nomem(p);
    }
    m->kernels[m->n_kernels++] = k;
    k->info.name = mod_strdup(p, name, n);
    if (!k->info.name) {
        return p->rc;
    }
    k->n_regs = SR_COUNT;
    p->k = k;
    p->shared_bytes = m->shared_bytes;
    p->dyn_shared_used = false;
    kernel_reset_scope(p);
    int rc = parse_params(p, k);
    if (rc) {
        return rc;
    }
    while (!peek(p, '{')) {
        l = here(p);
        if (!read_word(p, w, sizeof(w))) {
            return fail_at(p, l, PTX_EPARSE, "'{' expected for kernel %s",
                           k->info.name);
        }
        if (strcmp(w, ".maxntid") == 0) {
            rc = parse_ntid(p, k->info.maxntid, ".maxntid");
        } else if (strcmp(w, ".reqntid") == 0) {
            rc = parse_ntid(p, k->info.reqntid, ".reqntid");
        } else if (strcmp(w, ".minnctapersm") == 0 ||
                   strcmp(w, ".maxnctapersm") == 0 ||
                   strcmp(w, ".maxnreg") == 0) {
            unsigned long long v;
            rc = read_uint(p, &v, w) < 0 ? p->rc : 0;
        } else if (strcmp(w, ".noreturn") == 0) {
        } else if (strcmp(w, ".pragma") == 0) {
            skip_statement(p);
        } else {
            kernel_unsupported(p, l.line, "unsupported kernel directive "
                               "'%s'", w);
            skip_line(p);
        }
        if (rc || p->rc) {
            return rc ? rc : p->rc;
        }
    }
    rc = parse_body(p, k);
    if (rc) {
        return rc;
    }
    resolve_labels(p, k);
    k->info.shared_bytes = p->shared_bytes;
    k->info.dyn_shared_offset = (uint32_t)align_up(p->shared_bytes, 16);
    k->info.local_bytes = k->local_bytes;
    k->info.n_insns = k->n_insns;
    for (unsigned i = 0; i < k->n_insns && !k->info.uses_global_symbols;
         i++) {
        for (unsigned j = 0; j < k->insns[i].n_opds; j++) {
            const struct ptx_opd *o = &k->insns[i].o[j];
            if ((o->kind == OPD_MEM || o->kind == OPD_VAR) &&
                o->var != PTX_NOVAR) {
                k->info.uses_global_symbols = true;
            }
        }
    }
    p->k = NULL;
    return p->rc;
}

/* .func: a device function. Calls are not interpreted, so its body is
 * skipped; a kernel that calls it fails at its `call`. */
static void skip_func(struct ptx_parse *p)
{
    while (p->s < p->end) {
        skip_ws(p);
        if (peek(p, ';')) {
            p->s++;
            return;
        }
        if (peek(p, '{')) {
            skip_block(p);
            return;
        }
        if (peek(p, '(')) {
            while (p->s < p->end && *p->s != ')') {
                if (*p->s == '\n') {
                    p->line++;
                }
                p->s++;
            }
            if (p->s < p->end) {
                p->s++;
            }
            continue;
        }
        const char *w;
        if (!scan_word(p, &w) && p->s < p->end) {
            p->s++;
        }
    }
}

/* A number of a header directive (".version 9.0" gives 9 and 0): its
 * digits up to the first non-digit, at most max; -1 when none or more. */
static long header_number(const char *s, const char **rest, long max)
{
    long v = 0;
    const char *d = s;
    while (isdigit((unsigned char)*d)) {
        v = v * 10 + (*d - '0');
        if (v > max) {
            return -1;
        }
        d++;
    }
    *rest = d;
    return d == s ? -1 : v;
}

static int parse_top(struct ptx_parse *p)
{
    char w[256], c[32];
    bool is_extern = false;
    for (;;) {
        skip_ws(p);
        if (p->rc) {
            return p->rc;
        }
        if (p->s >= p->end) {
            return 0;
        }
        struct loc l = here(p);
        if (!read_word(p, w, sizeof(w))) {
            return fail_at(p, l, PTX_EPARSE, "unexpected %s",
                           char_text(p, c, sizeof(c)));
        }
        int rc = 0;
        if (strcmp(w, ".version") == 0) {
            skip_ws(p);
            l = here(p);
            read_word(p, w, sizeof(w));
            const char *r;
            long maj = header_number(w, &r, 99), min = -1;
            if (maj >= 0 && *r == '.') {
                min = header_number(r + 1, &r, 9);
            }
            if (min < 0 || *r != '\0') {
                return fail_at(p, l, PTX_EPARSE, "malformed .version "
                               "'%.40s'", w);
            }
            p->m->version = (unsigned)(maj * 10 + min);
        } else if (strcmp(w, ".target") == 0) {
            do {
                read_word(p, w, sizeof(w));
                const char *r;
                long sm;
                if (strncmp(w, "sm_", 3) == 0 &&
                    (sm = header_number(w + 3, &r, 99999)) >= 0) {
                    p->m->target_sm = (unsigned)sm;
                }
            } while (accept(p, ','));
        } else if (strcmp(w, ".address_size") == 0) {
            unsigned long long v = 0;
            if (read_uint(p, &v, ".address_size") < 0) {
                return p->rc;
            }
            if (v != 64) {
                return fail_at(p, l, PTX_EPARSE, ".address_size %llu: only "
                               "64 is supported", v);
            }
        } else if (strcmp(w, ".visible") == 0 || strcmp(w, ".weak") == 0 ||
                   strcmp(w, ".common") == 0) {
            continue;
        } else if (strcmp(w, ".extern") == 0) {
            is_extern = true;
            continue;
        } else if (strcmp(w, ".entry") == 0) {
            rc = parse_entry(p);
        } else if (strcmp(w, ".func") == 0) {
            skip_func(p);
        } else if (strcmp(w, ".global") == 0) {
            rc = parse_module_var(p, PS_GLOBAL, is_extern, l);
        } else if (strcmp(w, ".const") == 0) {
            rc = parse_module_var(p, PS_CONST, is_extern, l);
        } else if (strcmp(w, ".shared") == 0) {
            rc = parse_module_var(p, PS_SHARED, is_extern, l);
        } else if (strcmp(w, ".file") == 0 || strcmp(w, ".loc") == 0) {
            skip_line(p);
        } else if (strcmp(w, ".section") == 0) {
            read_word(p, w, sizeof(w));
            skip_ws(p);
            if (peek(p, '{')) {
                skip_block(p);
            }
        } else if (strcmp(w, ".pragma") == 0) {
            skip_statement(p);
        } else {
            return fail_at(p, l, PTX_EPARSE, "unexpected '%s' at module "
                           "scope", w);
        }
        is_extern = false;
        if (rc) {
            return rc;
        }
    }
}

struct ptx_module *ptx_module_parse(const char *text, size_t len,
                                    struct ptx_error *err)
{
    if (!text) {
        set_err(err, PTX_EINVAL, 0, "no PTX text");
        return NULL;
    }
    if (len > PTX_TEXT_MAX_BYTES) {
        set_err(err, PTX_EPARSE, 0, "a PTX text of %zu bytes (at most %u)",
                len, PTX_TEXT_MAX_BYTES);
        return NULL;
    }
    struct ptx_parse p;
    memset(&p, 0, sizeof(p));
    p.text = p.s = text;
    p.end = text + len;
    p.line = 1;
    p.err = err;
    p.m = calloc(1, sizeof(*p.m));
    if (!p.m) {
        set_err(err, PTX_ENOMEM, 0, "out of memory");
        return NULL;
    }
    int rc = parse_top(&p);
    if (!rc) {
        rc = p.rc;
    }
    if (rc == 0 && p.m->version == 0) {
        struct loc l = {1, text};
        rc = fail_at(&p, l, PTX_EPARSE, "not a PTX module: no .version");
    }
    kernel_reset_scope(&p);
    for (unsigned i = 0; i < p.n_msyms; i++) {
        free(p.msyms[i].name);
    }
    free(p.msyms);
    free(p.ksyms);
    free(p.regs);
    free(p.labels);
    if (rc) {
        ptx_module_free(p.m);
        return NULL;
    }
    return p.m;
}

void ptx_module_free(struct ptx_module *m)
{
    if (!m) {
        return;
    }
    for (unsigned i = 0; i < m->n_kernels; i++) {
        free(m->kernels[i]->params);
        free(m->kernels[i]->insns);
        free(m->kernels[i]);
    }
    for (unsigned i = 0; i < m->n_strings; i++) {
        free(m->strings[i]);
    }
    free(m->strings);
    free(m->kernels);
    free(m->vars);
    free(m);
}

unsigned ptx_module_kernel_count(const struct ptx_module *m)
{
    return m->n_kernels;
}

const struct ptx_kernel *ptx_module_kernel(const struct ptx_module *m,
                                           unsigned i)
{
    return i < m->n_kernels ? m->kernels[i] : NULL;
}

const struct ptx_kernel *ptx_module_find(const struct ptx_module *m,
                                         const char *name)
{
    for (unsigned i = 0; name && i < m->n_kernels; i++) {
        if (strcmp(m->kernels[i]->info.name, name) == 0) {
            return m->kernels[i];
        }
    }
    return NULL;
}

unsigned ptx_module_var_count(const struct ptx_module *m)
{
    return m->n_vars;
}

const struct ptx_var_info *ptx_module_var(const struct ptx_module *m,
                                          unsigned i)
{
    return i < m->n_vars ? &m->vars[i] : NULL;
}

unsigned ptx_module_target_sm(const struct ptx_module *m)
{
    return m->target_sm;
}

unsigned ptx_module_version(const struct ptx_module *m)
{
    return m->version;
}

const struct ptx_kernel_info *ptx_kernel_get_info(const struct ptx_kernel *k)
{
    return &k->info;
}

int ptx_kernel_check(const struct ptx_kernel *k, struct ptx_error *err)
{
    if (!k) {
        set_err(err, PTX_ENOTFOUND, 0, "no such kernel");
        return PTX_ENOTFOUND;
    }
    if (k->err_line) {
        set_err(err, PTX_EUNSUPPORTED, k->err_line, "%s", k->err_msg);
        return PTX_EUNSUPPORTED;
    }
    return 0;
}

void ptx_kernel_pack_params(const struct ptx_kernel *k, void *const *args,
                            void *buf)
{
    memset(buf, 0, k->info.param_bytes);
    for (unsigned i = 0; i < k->info.n_params; i++) {
        const struct ptx_param_info *pi = &k->info.params[i];
        memcpy((uint8_t *)buf + pi->offset_bytes, args[i], pi->size_bytes);
    }
}
