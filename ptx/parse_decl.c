/*
 * ptx/parse_decl.c - names and declarations: register, special-register,
 * symbol and label lookups (also for decode.c), the declaration syntax
 * ".align 8 .b8 name[16] = {...}" and its placement in a space, and
 * module-scope .global, .const and .shared variables with their initial
 * values.
 *
 * Model: an initializer that is not a number or a function's name (an
 * address, generic(sym)) is not evaluated; the variable's init is then
 * NULL (docs/ptx.md). A function's name is its address (parse_call.c).
 * Sizes are checked against the caps of ptx.h (PTX_*_MAX_BYTES).
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
    /* shared memory of the CTA: no part is reserved by the system */
    {"%total_smem_size", SR_TOTAL_SMEM}, {"%aggr_smem_size", SR_TOTAL_SMEM},
    {"%dynamic_smem_size", SR_DYN_SMEM},
    {"%reserved_smem_offset_begin", SR_ZERO},
    {"%reserved_smem_offset_end", SR_ZERO},
    {"%reserved_smem_offset_cap", SR_ZERO},
    {"%reserved_smem_offset_0", SR_ZERO},
    {"%reserved_smem_offset_1", SR_ZERO},
    /* every launch is a grid of 1x1x1 clusters (no cluster launch) */
    {"%is_explicit_cluster", SR_ZERO},
    {"%clusterid.x", SR_CTAID_X},     {"%clusterid.y", SR_CTAID_Y},
    {"%clusterid.z", SR_CTAID_Z},     {"%nclusterid.x", SR_NCTAID_X},
    {"%nclusterid.y", SR_NCTAID_Y},   {"%nclusterid.z", SR_NCTAID_Z},
    {"%cluster_ctaid.x", SR_ZERO},    {"%cluster_ctaid.y", SR_ZERO},
    {"%cluster_ctaid.z", SR_ZERO},    {"%cluster_nctaid.x", SR_ONE},
    {"%cluster_nctaid.y", SR_ONE},    {"%cluster_nctaid.z", SR_ONE},
    {"%cluster_ctarank", SR_ZERO},    {"%cluster_nctarank", SR_ONE},
    /* Model: no performance monitor counts anything; not a graph */
    {"%pm0", SR_ZERO}, {"%pm1", SR_ZERO}, {"%pm2", SR_ZERO},
    {"%pm3", SR_ZERO}, {"%pm4", SR_ZERO}, {"%pm5", SR_ZERO},
    {"%pm6", SR_ZERO}, {"%pm7", SR_ZERO}, {"%pm0_64", SR_ZERO},
    {"%pm1_64", SR_ZERO}, {"%pm2_64", SR_ZERO}, {"%pm3_64", SR_ZERO},
    {"%pm4_64", SR_ZERO}, {"%pm5_64", SR_ZERO}, {"%pm6_64", SR_ZERO},
    {"%pm7_64", SR_ZERO}, {"%current_graph_exec", SR_ZERO},
};

int ptx_parse_reg(struct ptx_parse *p, const char *name)
{
    /* the innermost declaration of a name first (a block's registers
     * shadow the body's); a name without '%' is a register too where one
     * is declared (inline asm: ".reg .u32 lo;") */
    for (unsigned i = p->n_regs; i-- > 0;) {
        if (p->regs[i].count == 0 && strcmp(p->regs[i].name, name) == 0) {
            return (int)p->regs[i].base;
        }
    }
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
    size_t len = strlen(name), d = len;
    while (d > 0 && isdigit((unsigned char)name[d - 1])) {
        d--;
    }
    if (d == len) {
        return -1;
    }
    unsigned long num = strtoul(name + d, NULL, 10);
    for (unsigned i = p->n_regs; i-- > 0;) {
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
    for (unsigned i = n; i-- > 0;) { /* the innermost first */
        if (strcmp(v[i].name, name) == 0) {
            return &v[i];
        }
    }
    return NULL;
}

/* The offset of module .shared variable msyms[i] in the kernel being
 * parsed, placed after its static shared memory at the first use. */
static int64_t shared_place(struct ptx_parse *p, unsigned i)
{
    for (unsigned j = 0; j < p->n_places; j++) {
        if (p->places[j].k == p->k && p->places[j].sym == i) {
            return p->places[j].offset;
        }
    }
    const struct sym *s = &p->msyms[i];
    struct decl d;
    memset(&d, 0, sizeof(d));
    snprintf(d.name, sizeof(d.name), "%s", s->name);
    d.bytes = s->bytes;
    d.align = s->align;
    d.at = here(p);
    uint32_t off;
    if (ptx__place_var(p, &d, &p->shared_bytes, PTX_SHARED_MAX_BYTES,
                       ".shared", &off)) {
        return 0;
    }
    if (p->dyn_shared_used) {
        ptx__unsupported(p, p->line, ".shared %.60s placed after a use of "
                         "dynamic shared memory", s->name);
    }
    if (!GROW(p->places, p->n_places, p->cap_places)) {
        ptx_parse_nomem(p);
        return 0;
    }
    p->places[p->n_places++] = (struct shared_place){ p->k, i, off };
    return off;
}

void ptx__place_body_shared(struct ptx_parse *p)
{
    bool any = false;
    for (unsigned i = 0; i < p->n_msyms && !any; i++) {
        any = p->msyms[i].lazy_shared;
    }
    const char *s = p->s, *end = p->end;
    long depth = 0;
    while (any && s < end && !p->rc) {
        char c = *s;
        if (c == '/' && s + 1 < end && s[1] == '/') {
            while (s < end && *s != '\n') {
                s++;
            }
            continue;
        }
        if (c == '{') {
            depth++;
        } else if (c == '}' && --depth <= 0) {
            break;
        }
        if (!(isalpha((unsigned char)c) || c == '_' || c == '$')) {
            s++;
            continue;
        }
        const char *b = s;
        while (s < end && (isalnum((unsigned char)*s) || *s == '_' ||
                           *s == '$')) {
            s++;
        }
        size_t n = (size_t)(s - b);
        for (unsigned i = 0; i < p->n_msyms; i++) {
            const struct sym *m = &p->msyms[i];
            if (m->lazy_shared && strncmp(m->name, b, n) == 0 &&
                m->name[n] == '\0') {
                shared_place(p, i);
                break;
            }
        }
    }
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
    if (s->lazy_shared && p->k) {
        *offset = shared_place(p, (unsigned)(s - p->msyms));
    }
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
        ptx_parse_nomem(p);
        return -1;
    }
    struct label *l = &p->labels[p->n_labels];
    l->name = strdup(name);
    if (!l->name) {
        ptx_parse_nomem(p);
        return -1;
    }
    l->insn = -1;
    l->line_used = p->line;
    return (int)p->n_labels++;
}

int ptx__add_sym(struct ptx_parse *p, struct sym **v, unsigned *n,
                 unsigned *cap, const char *name, enum ptx_space space,
                 int64_t offset, int var)
{
    if (!GROW(*v, *n, *cap)) {
        return ptx_parse_nomem(p);
    }
    struct sym *s = &(*v)[*n];
    memset(s, 0, sizeof(*s));
    s->name = strdup(name);
    if (!s->name) {
        return ptx_parse_nomem(p);
    }
    (*n)++;
    s->space = space;
    s->offset = offset;
    s->var = var;
    s->depth = p->depth;
    return 0;
}

/* Reads modifiers and the name and array size; stops before '=' or ';'
 * (or ',' / ')' in parameter lists). Return: 1, 0 when malformed (the
 * caller says so), or -1 when a number broke a limit (the parse failed,
 * with the reason). */
int ptx__read_decl(struct ptx_parse *p, struct decl *d)
{
    char w[PTX_NAME_MAX + 1];
    memset(d, 0, sizeof(*d));
    d->count = 1;
    ptx__skip_ws(p);
    d->at = here(p);
    for (;;) {
        ptx__skip_ws(p);
        struct loc l = here(p);
        size_t n = ptx__read_word(p, w, sizeof(w));
        if (!n) {
            return 0;
        }
        if (n > PTX_NAME_MAX) {
            ptx__fail_at(p, l, PTX_EPARSE,
                         "a name of %zu characters (at most %u)", n,
                         PTX_NAME_MAX);
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
            int rc = ptx__read_uint(p, &v, ".align");
            if (rc <= 0) {
                return rc;
            }
            if (v == 0 || v > PTX_ALIGN_MAX || (v & (v - 1))) {
                ptx__fail_at(p, l, PTX_EPARSE,
                             ".align %llu: a power of two up to %u expected", v,
                             PTX_ALIGN_MAX);
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
    while (ptx__accept(p, '[')) {
        unsigned long long v;
        ptx__skip_ws(p);
        struct loc l = here(p);
        if (ptx__peek(p, ']')) {
            d->unsized = true;
            d->count = 0;
        } else {
            int rc = ptx__read_uint(p, &v, "array size");
            if (rc <= 0) {
                return rc;
            }
            if (__builtin_mul_overflow(d->count, (uint64_t)v, &d->count)) {
                ptx__fail_at(
                    p, l, PTX_EPARSE,
                    "%s: the array's element count does not fit 64 bits",
                    d->name);
                return -1;
            }
        }
        if (!ptx__accept(p, ']')) {
            return 0;
        }
    }
    if (__builtin_mul_overflow(d->count, (uint64_t)ptx_type_bytes(d->type),
                               &d->bytes)) {
        ptx__fail_at(p, d->at, PTX_EPARSE,
                     "%s: %llu elements of %u bytes do not fit 64 bits",
                     d->name, (unsigned long long)d->count,
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
int ptx__place_var(struct ptx_parse *p, const struct decl *d, uint32_t *total,
                   uint32_t max, const char *space, uint32_t *offset)
{
    uint64_t off = align_up(*total, d->align);
    if (d->bytes > max || off > max - d->bytes) {
        return ptx__fail_at(
            p, d->at, PTX_EPARSE,
            "%s %s: %llu bytes at offset %llu pass the limit of %u bytes of %s",
            space, d->name, (unsigned long long)d->bytes,
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
    bool neg = ptx__accept(p, '-');
    bool flt = t == PT_F32 || t == PT_F64;
    ptx__skip_ws(p);
    struct loc l = here(p);
    size_t n = ptx__read_word(p, w, sizeof(w));
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
        /* a function's name: its address (a table of functions for
         * indirect calls); generic(sym) and a variable's address are
         * not evaluated */
        enum ptx_space sp;
        int64_t off;
        int var;
        if (!neg && ptx_parse_sym(p, w, &sp, &off, &var) != 0 &&
            !ptx__peek(p, '(') && !ptx__peek(p, '+')) {
            int rc = ptx__func_addr(p, w, v);
            return rc == 0 ? 1 : rc == PTX_ENOMEM ? -1 : 0;
        }
        return 0;
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
        ptx__fail_at(p, l, PTX_EPARSE, "malformed initial value '%.40s'", w);
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
    bool braces = ptx__accept(p, '{');
    *init = NULL;
    *init_bytes = 0;
    do {
        ptx__skip_ws(p);
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
            return ptx__fail_at(
                p, l, PTX_EPARSE,
                "%s: more initial values than its %llu elements", d->name,
                (unsigned long long)d->count);
        }
        if (have + eb > cap) {
            uint64_t nc = cap ? cap * 2 : 64;
            nc = nc < d->bytes ? nc : d->bytes;
            uint8_t *nb = realloc(buf, (size_t)nc);
            if (!nb) {
                free(buf);
                return ptx_parse_nomem(p);
            }
            buf = nb;
            cap = nc;
        }
        memcpy(buf + have, &v, eb);
        have += eb;
    } while (braces && ptx__accept(p, ','));
    if (braces && !ptx__accept(p, '}')) {
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
int ptx__parse_module_var(struct ptx_parse *p, enum ptx_space space,
                          bool is_extern, struct loc l)
{
    struct decl d;
    int rc = ptx__read_decl(p, &d);
    if (rc <= 0) {
        return rc < 0 ? p->rc
                      : ptx__fail_at(p, l, PTX_EPARSE,
                                     "malformed variable declaration");
    }
    if (space == PS_SHARED) {
        if (d.unsized || is_extern) {
            rc = ptx__add_sym(p, &p->msyms, &p->n_msyms, &p->cap_msyms, d.name,
                              PS_SHARED, 0, PTX_NOVAR);
            if (rc) {
                return rc;
            }
            p->msyms[p->n_msyms - 1].dyn_shared = true;
        } else {
            /* placed in each kernel that uses it (ptx_parse_sym) */
            uint32_t total = 0, off;
            rc = ptx__place_var(p, &d, &total, PTX_SHARED_MAX_BYTES,
                                ".shared", &off);
            if (!rc) {
                rc = ptx__add_sym(p, &p->msyms, &p->n_msyms, &p->cap_msyms,
                                  d.name, PS_SHARED, 0, PTX_NOVAR);
            }
            if (rc) {
                return rc;
            }
            struct sym *s = &p->msyms[p->n_msyms - 1];
            s->lazy_shared = true;
            s->bytes = d.bytes;
            s->align = d.align;
        }
        ptx__skip_statement(p);
        return 0;
    }
    if (space == PS_CONST) {
        if (d.bytes > PTX_CONST_MAX_BYTES ||
            p->const_bytes > PTX_CONST_MAX_BYTES - d.bytes) {
            return ptx__fail_at(p, d.at, PTX_EPARSE,
                                ".const %s: %llu bytes pass the limit of %u "
                                "bytes of .const in a module",
                                d.name, (unsigned long long)d.bytes,
                                PTX_CONST_MAX_BYTES);
        }
        p->const_bytes += d.bytes;
    } else if (d.bytes > PTX_GLOBAL_MAX_BYTES) {
        return ptx__fail_at(p, d.at, PTX_EPARSE,
                            ".global %s: %llu bytes pass the limit of %llu "
                            "bytes of a .global variable",
                            d.name, (unsigned long long)d.bytes,
                            (unsigned long long)PTX_GLOBAL_MAX_BYTES);
    }
    struct ptx_var_info v = {0};
    v.name = ptx__mod_strdup(p, d.name, strlen(d.name));
    if (!v.name) {
        return p->rc;
    }
    v.space = space == PS_CONST ? PTX_VAR_CONST : PTX_VAR_GLOBAL;
    v.size_bytes = d.bytes;
    v.align_bytes = d.align;
    if (ptx__accept(p, '=')) {
        uint8_t *init;
        rc = read_init(p, &d, &init, &v.init_bytes);
        if (rc) {
            return rc;
        }
        if (init && !GROW(p->m->strings, p->m->n_strings,
                          p->m->cap_strings)) {
            free(init);
            return ptx_parse_nomem(p);
        }
        if (init) {
            p->m->strings[p->m->n_strings++] = (char *)init;
        }
        v.init = init;
        /* Model: an initializer we cannot evaluate (an address) leaves
         * the variable zeroed; a kernel using it would misbehave, so it
         * is flagged at use below through the symbol's var index. */
    }
    ptx__skip_statement(p);
    if (p->m->n_vars >= INT_MAX ||
        !GROW(p->m->vars, p->m->n_vars, p->cap_vars)) {
        return ptx_parse_nomem(p);
    }
    rc = ptx__add_sym(p, &p->msyms, &p->n_msyms, &p->cap_msyms, d.name, space,
                      0, (int)p->m->n_vars);
    if (rc) {
        return rc;
    }
    p->m->vars[p->m->n_vars++] = v;
    return 0;
}
