/*
 * api/ptx/parse.c - the structure of a PTX module: header directives,
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

#include "api/ptx/ptx.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ptx/ptx_int.h"

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

struct ptx_parse {
    const char *s, *end;
    unsigned line;
    struct ptx_module *m;
    struct ptx_error *err;

    /* module scope */
    struct sym *msyms;
    unsigned n_msyms, cap_msyms;

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

#define GROW(arr, n, cap)                                                   \
    do {                                                                    \
        if ((n) == (cap)) {                                                 \
            unsigned nc_ = (cap) ? (cap) * 2 : 16;                          \
            void *np_ = realloc((arr), nc_ * sizeof(*(arr)));               \
            if (!np_) {                                                     \
                abort();                                                    \
            }                                                               \
            (arr) = np_;                                                    \
            (cap) = nc_;                                                    \
        }                                                                   \
    } while (0)

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
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
}

static char *mod_strdup(struct ptx_module *m, const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (!c) {
        abort();
    }
    memcpy(c, s, n);
    c[n] = '\0';
    GROW(m->strings, m->n_strings, m->cap_strings);
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
    p->k->err_line = line;
    p->k->err_msg = mod_strdup(p->m, msg, strlen(msg));
}

/* ---------------------------------------------------------------------- */
/* Lexing                                                                  */
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
        } else if (c == '/' && p->s + 1 < p->end && p->s[1] == '/') {
            while (p->s < p->end && *p->s != '\n') {
                p->s++;
            }
        } else if (c == '/' && p->s + 1 < p->end && p->s[1] == '*') {
            p->s += 2;
            while (p->s + 1 < p->end && !(p->s[0] == '*' && p->s[1] == '/')) {
                if (*p->s == '\n') {
                    p->line++;
                }
                p->s++;
            }
            p->s = p->s + 2 < p->end ? p->s + 2 : p->end;
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

/* Read a word ("ld.global.u32", "%r1", "$L__BB0_2", "9.0", "sm_90",
 * "L1::no_allocate") into buf; returns its length (0: none). */
static size_t read_word(struct ptx_parse *p, char *buf, size_t cap)
{
    skip_ws(p);
    size_t n = 0;
    while (p->s < p->end) {
        char c = *p->s;
        if (c == ':' && p->s + 1 < p->end && p->s[1] == ':') {
            if (n + 2 < cap) {
                buf[n++] = ':';
                buf[n++] = ':';
            }
            p->s += 2;
            continue;
        }
        if (!is_word_char(c)) {
            break;
        }
        if (n + 1 < cap) {
            buf[n++] = c;
        }
        p->s++;
    }
    buf[n] = '\0';
    return n;
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
    int depth = 0;
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
    int depth = 0;
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

static bool read_uint(struct ptx_parse *p, unsigned long long *v)
{
    char w[64];
    if (!read_word(p, w, sizeof(w))) {
        return false;
    }
    char *e;
    *v = strtoull(w, &e, 0);
    return *e == '\0';
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
        int n = atoi(name + 7);
        return n < 32 ? SR_ENVREG0 + n : -1;
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

static uint32_t align_up(uint32_t v, uint32_t a)
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
        *offset = align_up(p->shared_bytes, 16);
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
    GROW(p->labels, p->n_labels, p->cap_labels);
    struct label *l = &p->labels[p->n_labels];
    l->name = strdup(name);
    if (!l->name) {
        abort();
    }
    l->insn = -1;
    l->line_used = p->line;
    return (int)p->n_labels++;
}

static void add_sym(struct sym **v, unsigned *n, unsigned *cap,
                    const char *name, enum ptx_space space, int64_t offset,
                    int var)
{
    GROW(*v, *n, *cap);
    struct sym *s = &(*v)[(*n)++];
    s->name = strdup(name);
    if (!s->name) {
        abort();
    }
    s->space = space;
    s->offset = offset;
    s->var = var;
    s->dyn_shared = false;
}

/* ---------------------------------------------------------------------- */
/* Declarations: ".align 8 .b8 name[16] = {...}"                          */
/* ---------------------------------------------------------------------- */

struct decl {
    char name[256];
    enum ptx_type type;
    uint32_t align;
    uint64_t count;   /* elements; 0 for name[] */
    bool unsized;     /* name[] */
    bool other;       /* a modifier we do not understand */
    char other_word[64];
};

/* Reads modifiers and the name and array size; stops before '=' or ';'
 * (or ',' / ')' in parameter lists). */
static bool read_decl(struct ptx_parse *p, struct decl *d)
{
    char w[256];
    memset(d, 0, sizeof(*d));
    d->count = 1;
    for (;;) {
        if (!read_word(p, w, sizeof(w))) {
            return false;
        }
        if (w[0] != '.') {
            break;
        }
        enum ptx_type t = ptx_type_from_name(w + 1);
        unsigned long long v;
        if (t != PT_NONE) {
            d->type = t;
        } else if (strcmp(w, ".align") == 0) {
            if (!read_uint(p, &v)) {
                return false;
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
        if (peek(p, ']')) {
            d->unsized = true;
            d->count = 0;
        } else if (read_uint(p, &v)) {
            d->count *= v;
        } else {
            return false;
        }
        if (!accept(p, ']')) {
            return false;
        }
    }
    if (!d->align) {
        d->align = ptx_type_bytes(d->type) ? ptx_type_bytes(d->type) : 1;
    }
    return d->name[0] != '\0' && d->type != PT_NONE;
}

/* Parse "= {1, 2, 3}" or "= 5" into init bytes of the element type. */
static uint8_t *read_init(struct ptx_parse *p, const struct decl *d,
                          uint64_t size, bool *bad)
{
    unsigned eb = ptx_type_bytes(d->type);
    uint8_t *buf = calloc(1, size ? size : 1);
    if (!buf) {
        abort();
    }
    bool braces = accept(p, '{');
    uint64_t i = 0;
    do {
        char w[128];
        bool neg = accept(p, '-');
        if (!read_word(p, w, sizeof(w))) {
            *bad = true;
            break;
        }
        uint64_t v;
        if ((w[0] == '0') && (w[1] == 'f' || w[1] == 'F')) {
            v = strtoull(w + 2, NULL, 16);
        } else if ((w[0] == '0') && (w[1] == 'd' || w[1] == 'D')) {
            v = strtoull(w + 2, NULL, 16);
        } else if (isdigit((unsigned char)w[0])) {
            v = strtoull(w, NULL, 0);
        } else {
            *bad = true; /* generic(sym) and other address initializers */
            v = 0;
        }
        if (neg) {
            v = -v;
        }
        if ((i + 1) * eb <= size) {
            memcpy(buf + i * eb, &v, eb);
        }
        i++;
    } while (braces && accept(p, ','));
    if (braces && !accept(p, '}')) {
        *bad = true;
    }
    return buf;
}

/* Module-scope .global/.const/.shared variable; the space word is read. */
static int parse_module_var(struct ptx_parse *p, enum ptx_space space,
                            bool is_extern)
{
    struct decl d;
    unsigned line = p->line;
    if (!read_decl(p, &d)) {
        set_err(p->err, PTX_EPARSE, line,
                "PTX line %u: malformed variable declaration", line);
        return PTX_EPARSE;
    }
    uint64_t size = (uint64_t)ptx_type_bytes(d.type) * d.count;
    if (space == PS_SHARED) {
        if (d.unsized || is_extern) {
            add_sym(&p->msyms, &p->n_msyms, &p->cap_msyms, d.name,
                    PS_SHARED, 0, PTX_NOVAR);
            p->msyms[p->n_msyms - 1].dyn_shared = true;
        } else {
            uint32_t off = align_up(p->m->shared_bytes, d.align);
            add_sym(&p->msyms, &p->n_msyms, &p->cap_msyms, d.name,
                    PS_SHARED, off, PTX_NOVAR);
            p->m->shared_bytes = off + (uint32_t)size;
        }
        skip_statement(p);
        return 0;
    }
    struct ptx_var_info v = {0};
    v.name = mod_strdup(p->m, d.name, strlen(d.name));
    v.space = space == PS_CONST ? PTX_VAR_CONST : PTX_VAR_GLOBAL;
    v.size_bytes = size;
    v.align_bytes = d.align;
    if (accept(p, '=')) {
        bool bad = false;
        uint8_t *init = read_init(p, &d, size, &bad);
        GROW(p->m->strings, p->m->n_strings, p->m->cap_strings);
        p->m->strings[p->m->n_strings++] = (char *)init;
        v.init = bad ? NULL : init;
        /* Model: an initializer we cannot evaluate (an address) leaves
         * the variable zeroed; a kernel using it would misbehave, so it
         * is flagged at use below through the symbol's var index. */
    }
    skip_statement(p);
    unsigned cap = p->m->n_vars;
    struct ptx_var_info *nv = realloc(p->m->vars, (cap + 1) * sizeof(*nv));
    if (!nv) {
        abort();
    }
    p->m->vars = nv;
    p->m->vars[p->m->n_vars] = v;
    add_sym(&p->msyms, &p->n_msyms, &p->cap_msyms, d.name, space, 0,
            (int)p->m->n_vars);
    p->m->n_vars++;
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
        unsigned line = p->line;
        struct decl d;
        if (!read_word(p, w, sizeof(w)) || strcmp(w, ".param") != 0 ||
            !read_decl(p, &d)) {
            set_err(p->err, PTX_EPARSE, line,
                    "PTX line %u: malformed parameter of kernel %s", line,
                    k->info.name);
            return PTX_EPARSE;
        }
        if (d.other) {
            kernel_unsupported(p, line, "unsupported parameter attribute "
                               "'%s'", d.other_word);
        }
        if (k->info.n_params == cap) {
            cap = cap ? cap * 2 : 8;
            void *np = realloc(k->params, cap * sizeof(*k->params));
            if (!np) {
                abort();
            }
            k->params = np;
        }
        struct ptx_param_info *pi = &k->params[k->info.n_params++];
        pi->name = mod_strdup(p->m, d.name, strlen(d.name));
        pi->size_bytes = ptx_type_bytes(d.type) * (uint32_t)d.count;
        pi->align_bytes = d.align;
        off = align_up(off, d.align);
        pi->offset_bytes = off;
        off += pi->size_bytes;
        add_sym(&p->ksyms, &p->n_ksyms, &p->cap_ksyms, d.name, PS_PARAM,
                pi->offset_bytes, PTX_NOVAR);
    } while (accept(p, ','));
    if (!accept(p, ')')) {
        set_err(p->err, PTX_EPARSE, p->line,
                "PTX line %u: ')' expected after the parameters of %s",
                p->line, k->info.name);
        return PTX_EPARSE;
    }
    k->info.param_bytes = off;
    k->info.params = k->params;
    return 0;
}

static void parse_ntid(struct ptx_parse *p, uint32_t v[3])
{
    for (int i = 0; i < 3; i++) {
        unsigned long long x;
        v[i] = 1;
        if (i > 0 && !accept(p, ',')) {
            break;
        }
        if (read_uint(p, &x)) {
            v[i] = (uint32_t)x;
        }
    }
}

static void declare_regs(struct ptx_parse *p, struct ptx_kernel *k)
{
    char w[256];
    unsigned line = p->line;
    /* types and modifiers */
    while (read_word(p, w, sizeof(w)) && w[0] == '.') {
        if (ptx_type_from_name(w + 1) == PT_NONE) {
            kernel_unsupported(p, line, "unsupported register type '%s'", w);
        }
    }
    for (;;) {
        unsigned count = 0;
        if (accept(p, '<')) {
            unsigned long long n;
            if (!read_uint(p, &n) || !accept(p, '>')) {
                kernel_unsupported(p, line, "malformed .reg declaration");
                break;
            }
            count = (unsigned)n;
        }
        GROW(p->regs, p->n_regs, p->cap_regs);
        struct reg_decl *r = &p->regs[p->n_regs++];
        r->name = strdup(w);
        if (!r->name) {
            abort();
        }
        r->base = k->n_regs;
        r->count = count;
        k->n_regs += count ? count : 1;
        if (!accept(p, ',') || !read_word(p, w, sizeof(w))) {
            break;
        }
    }
    skip_statement(p);
}

/* .shared or .local inside a kernel. */
static void declare_kernel_var(struct ptx_parse *p, struct ptx_kernel *k,
                               enum ptx_space space)
{
    struct decl d;
    unsigned line = p->line;
    if (!read_decl(p, &d) || d.other) {
        kernel_unsupported(p, line, "unsupported %s declaration",
                           space == PS_SHARED ? ".shared" : ".local");
        skip_statement(p);
        return;
    }
    uint32_t size = ptx_type_bytes(d.type) * (uint32_t)d.count;
    uint32_t *total = space == PS_SHARED ? &p->shared_bytes : &k->local_bytes;
    uint32_t off = align_up(*total, d.align);
    *total = off + size;
    if (space == PS_SHARED && p->dyn_shared_used) {
        kernel_unsupported(p, line, ".shared declared after a use of "
                           "dynamic shared memory");
    }
    add_sym(&p->ksyms, &p->n_ksyms, &p->cap_ksyms, d.name, space, off,
            PTX_NOVAR);
    skip_statement(p);
}

/* Split "a, {b, c}, [d+4]" at top-level commas (in place). */
static unsigned split_operands(char *s, char **out, unsigned max)
{
    unsigned n = 0;
    int depth = 0;
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

static void add_insn(struct ptx_kernel *k, const struct ptx_insn *in)
{
    GROW(k->insns, k->n_insns, k->cap_insns);
    k->insns[k->n_insns++] = *in;
}

/* One instruction statement; the guard (if any) has been read. */
static void parse_insn(struct ptx_parse *p, struct ptx_kernel *k,
                       const char *opcode, int guard, bool guard_neg,
                       unsigned line)
{
    const char *start = p->s;
    skip_statement(p);
    size_t len = (size_t)(p->s - start);
    char *text = malloc(len + 1);
    if (!text) {
        abort();
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
    in.line = line;
    char why[200] = "";
    unsigned saved = p->line;
    p->line = line;
    if (n > PTX_MAX_OPDS) {
        snprintf(why, sizeof(why), "too many operands");
    }
    if (why[0] || ptx_decode(p, opcode, opds, n, &in, why, sizeof(why))) {
        kernel_unsupported(p, line, "unsupported instruction '%s' (%s)",
                           opcode, why);
        in.op = OP_TRAP;
    }
    p->line = saved;
    add_insn(k, &in);
    free(text);
}

static int parse_body(struct ptx_parse *p, struct ptx_kernel *k)
{
    int depth = 0;
    char w[256];
    if (!accept(p, '{')) {
        set_err(p->err, PTX_EPARSE, p->line,
                "PTX line %u: '{' expected for kernel %s", p->line,
                k->info.name);
        return PTX_EPARSE;
    }
    depth = 1;
    for (;;) {
        skip_ws(p);
        if (p->s >= p->end) {
            set_err(p->err, PTX_EPARSE, p->line,
                    "PTX line %u: end of text inside kernel %s", p->line,
                    k->info.name);
            return PTX_EPARSE;
        }
        unsigned line = p->line;
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
                kernel_unsupported(p, line, "unknown guard predicate '%s'", w);
            }
        }
        if (!read_word(p, w, sizeof(w))) {
            kernel_unsupported(p, line, "unexpected character '%c'", *p->s);
            skip_statement(p);
            continue;
        }
        if (guard < 0 && !neg && peek(p, ':') && w[0] != '.') {
            p->s++;
            int l = ptx_parse_label(p, w);
            p->labels[l].insn = (int)k->n_insns;
            continue;
        }
        if (strcmp(w, ".reg") == 0) {
            declare_regs(p, k);
        } else if (strcmp(w, ".shared") == 0) {
            declare_kernel_var(p, k, PS_SHARED);
        } else if (strcmp(w, ".local") == 0) {
            declare_kernel_var(p, k, PS_LOCAL);
        } else if (strcmp(w, ".pragma") == 0) {
            skip_statement(p);
        } else if (strcmp(w, ".loc") == 0) {
            skip_line(p); /* .loc ends at the newline, without ';' */
        } else if (w[0] == '.') {
            kernel_unsupported(p, line, "unsupported directive '%s'", w);
            skip_statement(p);
        } else {
            parse_insn(p, k, w, guard, neg, line);
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
    unsigned line = p->line;
    if (!read_word(p, w, sizeof(w))) {
        set_err(p->err, PTX_EPARSE, line, "PTX line %u: .entry without "
                "a name", line);
        return PTX_EPARSE;
    }
    struct ptx_kernel *k = calloc(1, sizeof(*k));
    if (!k) {
        abort();
    }
    struct ptx_module *m = p->m;
    void *nk = realloc(m->kernels, (m->n_kernels + 1) * sizeof(*m->kernels));
    if (!nk) {
        abort();
    }
    m->kernels = nk;
    m->kernels[m->n_kernels++] = k;
    k->info.name = mod_strdup(m, w, strlen(w));
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
        line = p->line;
        if (!read_word(p, w, sizeof(w))) {
            set_err(p->err, PTX_EPARSE, line, "PTX line %u: '{' expected "
                    "for kernel %s", line, k->info.name);
            return PTX_EPARSE;
        }
        if (strcmp(w, ".maxntid") == 0) {
            parse_ntid(p, k->info.maxntid);
        } else if (strcmp(w, ".reqntid") == 0) {
            parse_ntid(p, k->info.reqntid);
        } else if (strcmp(w, ".minnctapersm") == 0 ||
                   strcmp(w, ".maxnctapersm") == 0 ||
                   strcmp(w, ".maxnreg") == 0) {
            unsigned long long v;
            read_uint(p, &v);
        } else if (strcmp(w, ".noreturn") == 0) {
        } else if (strcmp(w, ".pragma") == 0) {
            skip_statement(p);
        } else {
            kernel_unsupported(p, line, "unsupported kernel directive '%s'",
                               w);
            skip_line(p);
        }
    }
    rc = parse_body(p, k);
    if (rc) {
        return rc;
    }
    resolve_labels(p, k);
    k->info.shared_bytes = p->shared_bytes;
    k->info.dyn_shared_offset = align_up(p->shared_bytes, 16);
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
    return 0;
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
            p->s++;
            continue;
        }
        char w[256];
        if (!read_word(p, w, sizeof(w))) {
            p->s++;
        }
    }
}

static int parse_top(struct ptx_parse *p)
{
    char w[256];
    bool is_extern = false;
    for (;;) {
        skip_ws(p);
        if (p->s >= p->end) {
            return 0;
        }
        unsigned line = p->line;
        if (!read_word(p, w, sizeof(w))) {
            set_err(p->err, PTX_EPARSE, line,
                    "PTX line %u: unexpected character '%c'", line, *p->s);
            return PTX_EPARSE;
        }
        int rc = 0;
        if (strcmp(w, ".version") == 0) {
            read_word(p, w, sizeof(w));
            unsigned maj = 0, min = 0;
            sscanf(w, "%u.%u", &maj, &min);
            p->m->version = maj * 10 + min;
        } else if (strcmp(w, ".target") == 0) {
            do {
                read_word(p, w, sizeof(w));
                if (strncmp(w, "sm_", 3) == 0) {
                    p->m->target_sm = (unsigned)atoi(w + 3);
                }
            } while (accept(p, ','));
        } else if (strcmp(w, ".address_size") == 0) {
            unsigned long long v = 0;
            read_uint(p, &v);
            if (v != 64) {
                set_err(p->err, PTX_EPARSE, line, "PTX line %u: "
                        ".address_size %llu: only 64 is supported", line, v);
                return PTX_EPARSE;
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
            rc = parse_module_var(p, PS_GLOBAL, is_extern);
        } else if (strcmp(w, ".const") == 0) {
            rc = parse_module_var(p, PS_CONST, is_extern);
        } else if (strcmp(w, ".shared") == 0) {
            rc = parse_module_var(p, PS_SHARED, is_extern);
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
            set_err(p->err, PTX_EPARSE, line,
                    "PTX line %u: unexpected '%s' at module scope", line, w);
            return PTX_EPARSE;
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
    struct ptx_parse p;
    memset(&p, 0, sizeof(p));
    p.s = text;
    p.end = text + len;
    p.line = 1;
    p.err = err;
    p.m = calloc(1, sizeof(*p.m));
    if (!p.m) {
        set_err(err, PTX_ENOMEM, 0, "out of memory");
        return NULL;
    }
    int rc = parse_top(&p);
    if (rc == 0 && p.m->version == 0) {
        set_err(err, PTX_EPARSE, 1, "not a PTX module: no .version");
        rc = PTX_EPARSE;
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
