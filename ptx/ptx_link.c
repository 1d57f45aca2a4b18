/*
 * ptx/ptx_link.c - one PTX module from the units of a program built with
 * -rdc=true, or from those of the driver's JIT linker (ptx_link.h says
 * what is linked and how).
 */
#include <config.h>

#include "ptx/ptx_link.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx_int.h"

#define LINK_NAME_MAX 256

enum stmt_kind {
    S_HEADER,       /* .version, .target, .address_size */
    S_DEBUG,        /* .file, .loc, .section */
    S_VAR,          /* a module-scope variable */
    S_FUNC,         /* a .func, declared or defined */
    S_ENTRY,        /* a kernel */
    S_OTHER,        /* anything else: kept as it is (.pragma ...) */
};

struct stmt {
    size_t b, e;                /* [b, e) of the unit's text */
    enum stmt_kind kind;
    bool ext, vis, weak, def;
    char name[LINK_NAME_MAX];
    bool skip;                  /* left out of the output */
};

struct unit {
    const char *t;
    size_t n;
    struct stmt *s;
    unsigned ns, cap;
    bool chosen;
    unsigned version;           /* major * 10 + minor; 0: none */
    size_t target_b, target_e;  /* its .target line; b == e: none */
    /* internal names renamed in this unit */
    char (*ren)[LINK_NAME_MAX];
    unsigned nren;
};

static bool id_start(int c)
{
    return isalpha(c) || c == '_' || c == '$';
}

static bool id_char(int c)
{
    return isalnum(c) || c == '_' || c == '$';
}

/* Past the comment or string at p (p at '/' or '"'), else p. */
static size_t skip_lexeme(const char *t, size_t n, size_t p)
{
    if (t[p] == '"') {
        p++;
        while (p < n && t[p] != '"') {
            p += t[p] == '\\' && p + 1 < n ? 2 : 1;
        }
        return p < n ? p + 1 : n;
    }
    if (p + 1 < n && t[p] == '/' && t[p + 1] == '/') {
        while (p < n && t[p] != '\n') {
            p++;
        }
        return p;
    }
    if (p + 1 < n && t[p] == '/' && t[p + 1] == '*') {
        const char *e = NULL;
        for (size_t q = p + 2; q + 1 < n; q++) {
            if (t[q] == '*' && t[q + 1] == '/') {
                e = t + q;
                break;
            }
        }
        return e ? (size_t)(e - t) + 2 : n;
    }
    return p;
}

static bool is_lexeme(const char *t, size_t n, size_t p)
{
    return t[p] == '"' ||
           (p + 1 < n && t[p] == '/' && (t[p + 1] == '/' || t[p + 1] == '*'));
}

/* A word at p: a directive (.x), a register (%x) or an identifier. */
static size_t word_end(const char *t, size_t n, size_t p)
{
    size_t q = p;
    if (t[q] == '.' || t[q] == '%') {
        q++;
    }
    while (q < n && (id_char((unsigned char)t[q]) || t[q] == '.')) {
        q++;
    }
    return q;
}

static bool word_is(const char *t, size_t b, size_t e, const char *w)
{
    return e - b == strlen(w) && memcmp(t + b, w, e - b) == 0;
}

static int add_stmt(struct unit *u, const struct stmt *s)
{
    if (u->ns == u->cap) {
        unsigned cap = u->cap ? 2 * u->cap : 64;
        struct stmt *ns = realloc(u->s, cap * sizeof(*ns));
        if (!ns) {
            return PTX_ENOMEM;
        }
        u->s = ns;
        u->cap = cap;
    }
    u->s[u->ns++] = *s;
    return 0;
}

static void set_name(struct stmt *s, const char *t, size_t b, size_t e)
{
    size_t len = e - b < LINK_NAME_MAX - 1 ? e - b : LINK_NAME_MAX - 1;
    memcpy(s->name, t + b, len);
    s->name[len] = '\0';
}

static unsigned parse_version(const char *t, size_t p, size_t e)
{
    unsigned maj = 0, min = 0;
    while (p < e && isspace((unsigned char)t[p])) {
        p++;
    }
    while (p < e && isdigit((unsigned char)t[p])) {
        maj = maj * 10 + (unsigned)(t[p++] - '0');
        if (maj > 99) {
            return 0;
        }
    }
    if (p < e && t[p] == '.') {
        p++;
        if (p < e && isdigit((unsigned char)t[p])) {
            min = (unsigned)(t[p] - '0');
        }
    }
    return maj * 10 + min;
}

/* One top-level statement starting at p (not blank); its end in *end. */
static int scan_stmt(struct unit *u, size_t p, size_t *end)
{
    const char *t = u->t;
    size_t n = u->n;
    struct stmt s;
    memset(&s, 0, sizeof(s));
    s.b = p;
    s.kind = S_OTHER;
    size_t w = word_end(t, n, p);
    if (word_is(t, p, w, ".version") || word_is(t, p, w, ".target") ||
        word_is(t, p, w, ".address_size") || word_is(t, p, w, ".file") ||
        word_is(t, p, w, ".loc")) {
        bool header = !word_is(t, p, w, ".file") && !word_is(t, p, w, ".loc");
        size_t q = w;
        while (q < n && t[q] != '\n') {
            q++;
        }
        s.kind = header ? S_HEADER : S_DEBUG;
        s.e = q;
        if (word_is(t, p, w, ".version")) {
            u->version = parse_version(t, w, q);
        } else if (word_is(t, p, w, ".target") && u->target_b == u->target_e) {
            u->target_b = p;
            u->target_e = q;
        }
        *end = q;
        return add_stmt(u, &s);
    }
    bool section = word_is(t, p, w, ".section");
    int paren = 0, brace = 0;
    bool want_name = false, body = false;
    size_t last_id_b = 0, last_id_e = 0;
    bool have_id = false, id_closed = false;
    size_t q = p;
    while (q < n) {
        if (is_lexeme(t, n, q)) {
            q = skip_lexeme(t, n, q);
            continue;
        }
        char c = t[q];
        bool top = paren == 0 && brace == 0;
        if (c == ';' && top) {
            q++;
            break;
        }
        if (c == '(') {
            /* a .func's return parameters come before its name: words in
             * parentheses are not top-level, so the name is the next one */
            paren++;
            q++;
            continue;
        }
        if (c == ')') {
            paren -= paren > 0;
            q++;
            continue;
        }
        if (c == '{') {
            if (top && (s.kind == S_FUNC || s.kind == S_ENTRY || section)) {
                body = true;
            }
            if (top && s.kind == S_VAR) {
                id_closed = true;   /* an initializer */
            }
            brace++;
            q++;
            continue;
        }
        if (c == '}') {
            brace -= brace > 0;
            q++;
            if (brace == 0 && paren == 0 && body) {
                break;
            }
            continue;
        }
        if (top && (c == '[' || c == '=')) {
            id_closed = true;
        }
        if (c == '.' || c == '%' || id_start((unsigned char)c)) {
            size_t we = word_end(t, n, q);
            if (top) {
                if (word_is(t, q, we, ".extern")) {
                    s.ext = true;
                } else if (word_is(t, q, we, ".visible")) {
                    s.vis = true;
                } else if (word_is(t, q, we, ".weak") ||
                           word_is(t, q, we, ".common")) {
                    s.weak = true;
                } else if (word_is(t, q, we, ".entry")) {
                    s.kind = S_ENTRY;
                    want_name = true;
                } else if (word_is(t, q, we, ".func")) {
                    s.kind = S_FUNC;
                    want_name = true;
                } else if (s.kind == S_OTHER &&
                           (word_is(t, q, we, ".global") ||
                            word_is(t, q, we, ".const") ||
                            word_is(t, q, we, ".shared"))) {
                    s.kind = S_VAR;
                } else if (t[q] != '.' && t[q] != '%') {
                    if (want_name && !have_id) {
                        set_name(&s, t, q, we);
                        have_id = true;
                    } else if (s.kind == S_VAR && !id_closed) {
                        last_id_b = q;
                        last_id_e = we;
                    }
                }
            }
            q = we;
            continue;
        }
        q++;
    }
    if (s.kind == S_VAR && last_id_e > last_id_b) {
        set_name(&s, t, last_id_b, last_id_e);
    }
    if (section) {
        s.kind = S_DEBUG;
    }
    s.def = s.kind == S_VAR ? !s.ext : body;
    s.e = q;
    *end = q;
    return add_stmt(u, &s);
}

static int scan_unit(struct unit *u)
{
    size_t p = 0;
    while (p < u->n) {
        if (isspace((unsigned char)u->t[p])) {
            p++;
            continue;
        }
        if (is_lexeme(u->t, u->n, p)) {
            p = skip_lexeme(u->t, u->n, p);
            continue;
        }
        size_t e = p;
        int rc = scan_stmt(u, p, &e);
        if (rc) {
            return rc;
        }
        p = e > p ? e : p + 1;
    }
    return 0;
}

/* The chosen unit (other than skip) that defines name with linkage. */
static int definer(const struct unit *u, unsigned n, const char *name,
                   bool chosen_only)
{
    for (unsigned i = 0; i < n; i++) {
        if (chosen_only && !u[i].chosen) {
            continue;
        }
        for (unsigned k = 0; k < u[i].ns; k++) {
            const struct stmt *s = &u[i].s[k];
            if (s->def && (s->vis || s->weak) && !s->ext &&
                (s->kind == S_FUNC || s->kind == S_VAR) &&
                strcmp(s->name, name) == 0) {
                return (int)i;
            }
        }
    }
    return -1;
}

/* Units with kernels, then those defining what chosen units declare
 * .extern, until nothing changes. */
static bool choose(struct unit *u, unsigned n,
                   bool (*want)(const char *kernel, void *arg), void *arg)
{
    bool any = false;
    for (unsigned i = 0; i < n; i++) {
        for (unsigned k = 0; k < u[i].ns && !u[i].chosen; k++) {
            const struct stmt *s = &u[i].s[k];
            u[i].chosen = s->kind == S_ENTRY && s->def &&
                          (!want || want(s->name, arg));
        }
        any = any || u[i].chosen;
    }
    for (bool more = any; more;) {
        more = false;
        for (unsigned i = 0; i < n; i++) {
            for (unsigned k = 0; u[i].chosen && k < u[i].ns; k++) {
                const struct stmt *s = &u[i].s[k];
                if (!s->ext || s->def || !s->name[0] ||
                    definer(u, n, s->name, true) >= 0) {
                    continue;
                }
                int d = definer(u, n, s->name, false);
                if (d >= 0) {
                    u[d].chosen = true;
                    more = true;
                }
            }
        }
    }
    return any;
}

/* Whether an earlier chosen unit than i has a statement named name. */
static bool named_before(const struct unit *u, unsigned i, const char *name)
{
    for (unsigned j = 0; j < i; j++) {
        for (unsigned k = 0; u[j].chosen && k < u[j].ns; k++) {
            if (strcmp(u[j].s[k].name, name) == 0) {
                return true;
            }
        }
    }
    return false;
}

/* Marks what is left out and what is renamed; PTX_EINVAL for a symbol
 * defined twice. */
static int resolve(struct unit *u, unsigned n, struct ptx_error *err)
{
    for (unsigned i = 0; i < n; i++) {
        if (!u[i].chosen) {
            continue;
        }
        for (unsigned k = 0; k < u[i].ns; k++) {
            struct stmt *s = &u[i].s[k];
            if (s->kind == S_HEADER || s->kind == S_DEBUG ||
                (s->kind == S_ENTRY && !s->def)) {
                s->skip = true;
                continue;
            }
            if (!s->name[0] || (s->kind != S_FUNC && s->kind != S_VAR)) {
                continue;
            }
            int d = definer(u, n, s->name, true);
            if (s->ext && !s->def) {
                s->skip = d >= 0;
            } else if (s->def && (s->vis || s->weak) && d >= 0 &&
                       (unsigned)d != i) {
                /* an earlier unit defines it too */
                if (!s->weak && (unsigned)d < i) {
                    bool other_weak = false;
                    for (unsigned m = 0; m < u[d].ns; m++) {
                        if (strcmp(u[d].s[m].name, s->name) == 0 &&
                            u[d].s[m].def) {
                            other_weak = u[d].s[m].weak;
                        }
                    }
                    if (!other_weak) {
                        ptx__set_err(err, PTX_EINVAL, 0, "linking the "
                                     "PTX units: '%s' is defined in two "
                                     "of them", s->name);
                        return PTX_EINVAL;
                    }
                }
                s->skip = (unsigned)d < i;
            } else if (!s->vis && !s->weak && !s->ext &&
                       named_before(u, i, s->name)) {
                void *r = realloc(u[i].ren, (u[i].nren + 1) *
                                                sizeof(u[i].ren[0]));
                if (!r) {
                    return PTX_ENOMEM;
                }
                u[i].ren = r;
                memcpy(u[i].ren[u[i].nren++], s->name, LINK_NAME_MAX);
            }
        }
    }
    return 0;
}

/* ---- output --------------------------------------------------------------- */

struct buf {
    char *p;
    size_t n, cap;
    bool oom;
};

static void put(struct buf *b, const char *s, size_t n)
{
    if (b->oom) {
        return;
    }
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1) {
            cap *= 2;
        }
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

/* The statement's text, line by line: .loc lines dropped, the unit's
 * renames applied outside comments and strings. */
static void put_stmt(struct buf *b, const struct unit *u,
                     const struct stmt *s, unsigned ui)
{
    const char *t = u->t;
    size_t line = s->b;
    while (line < s->e) {
        size_t eol = line;
        while (eol < s->e && t[eol] != '\n') {
            eol++;
        }
        size_t q = line;
        while (q < eol && (t[q] == ' ' || t[q] == '\t')) {
            q++;
        }
        size_t we = q < eol && t[q] == '.' ? word_end(t, eol, q) : q;
        if (we > q && word_is(t, q, we, ".loc")) {
            line = eol + 1;
            continue;
        }
        size_t p = line, from = line;
        while (p < eol) {
            if (is_lexeme(t, eol, p)) {
                p = skip_lexeme(t, eol, p);
                continue;
            }
            char c = t[p];
            if (c == '.' || c == '%' || id_start((unsigned char)c)) {
                size_t e = word_end(t, eol, p);
                for (unsigned r = 0; c != '.' && c != '%' && r < u->nren;
                     r++) {
                    if (word_is(t, p, e, u->ren[r])) {
                        char suffix[32];
                        put(b, t + from, e - from);
                        snprintf(suffix, sizeof(suffix), "_p2psim_u%u", ui);
                        put(b, suffix, strlen(suffix));
                        from = e;
                        break;
                    }
                }
                p = e;
                continue;
            }
            p++;
        }
        put(b, t + from, eol - from);
        put(b, "\n", 1);
        line = eol + 1;
    }
}

/* The architecture of u's .target line (sm_75: 75); UINT_MAX if none. */
static unsigned target_sm(const struct unit *u)
{
    for (size_t i = u->target_b; i + 3 < u->target_e; i++) {
        if (strncmp(u->t + i, "sm_", 3) == 0 &&
            isdigit((unsigned char)u->t[i + 3])) {
            return (unsigned)strtoul(u->t + i + 3, NULL, 10);
        }
    }
    return UINT_MAX;
}

/*
 * The linked text: the highest .version of the chosen units, and the
 * .target of the one of the lowest architecture: the program's own units
 * are built for one (a sample's compute_75), while a library linked in
 * may bring PTX of a later one (CUDA 13's libcudadevrt: compute_121,
 * which a real driver would not use on an earlier device, running its
 * SASS instead), and the kernels' ptxVersion (cudaFuncGetAttributes) is
 * what the program's CUB and Thrust pick their code by.
 */
static int emit(struct unit *u, unsigned n, char **text, size_t *len)
{
    struct buf b = { 0 };
    unsigned version = 0, low = UINT_MAX;
    int first = -1;
    for (unsigned i = 0; i < n; i++) {
        if (u[i].chosen) {
            version = u[i].version > version ? u[i].version : version;
            unsigned sm = target_sm(&u[i]);
            if (u[i].target_e > u[i].target_b && (first < 0 || sm < low)) {
                first = (int)i;
                low = sm;
            }
        }
    }
    char head[64];
    snprintf(head, sizeof(head), ".version %u.%u\n", version / 10,
             version % 10);
    put(&b, head, strlen(head));
    if (first >= 0) {
        put(&b, u[first].t + u[first].target_b,
            u[first].target_e - u[first].target_b);
        put(&b, "\n", 1);
    }
    put(&b, ".address_size 64\n\n", 18);
    /* variables first, then functions, then kernels: every name is
     * declared before a body uses it */
    static const enum stmt_kind pass[3][2] = {
        { S_VAR, S_OTHER }, { S_FUNC, S_FUNC }, { S_ENTRY, S_ENTRY },
    };
    for (unsigned ps = 0; ps < 3; ps++) {
        for (unsigned i = 0; i < n; i++) {
            for (unsigned k = 0; u[i].chosen && k < u[i].ns; k++) {
                const struct stmt *s = &u[i].s[k];
                if (!s->skip &&
                    (s->kind == pass[ps][0] || s->kind == pass[ps][1])) {
                    put_stmt(&b, &u[i], s, i);
                }
            }
        }
    }
    if (b.oom) {
        free(b.p);
        return PTX_ENOMEM;
    }
    *text = b.p;
    if (len) {
        *len = b.n;
    }
    return 0;
}

/* Whether unit i parses alone, as it would be linked (its resolved
 * externs kept declared): 1, 0 with *e, or PTX_ENOMEM. */
static int unit_parses(struct unit *u, unsigned n, unsigned i,
                       struct ptx_error *e)
{
    bool *chosen = calloc(n, sizeof(*chosen));
    bool *skip = calloc(u[i].ns ? u[i].ns : 1, sizeof(*skip));
    if (!chosen || !skip) {
        free(chosen);
        free(skip);
        return PTX_ENOMEM;
    }
    for (unsigned j = 0; j < n; j++) {
        chosen[j] = u[j].chosen;
        u[j].chosen = j == i;
    }
    for (unsigned k = 0; k < u[i].ns; k++) {
        struct stmt *s = &u[i].s[k];
        skip[k] = s->skip;
        s->skip = s->skip && !(s->ext && !s->def);
    }
    char *t = NULL;
    size_t len = 0;
    int rc = emit(u, n, &t, &len);
    for (unsigned j = 0; j < n; j++) {
        u[j].chosen = chosen[j];
    }
    for (unsigned k = 0; k < u[i].ns; k++) {
        u[i].s[k].skip = skip[k];
    }
    free(chosen);
    free(skip);
    if (rc) {
        return PTX_ENOMEM;
    }
    memset(e, 0, sizeof(*e));
    struct ptx_module *m = ptx_module_parse(t, len, e);
    free(t);
    if (!m) {
        return e->code == PTX_ENOMEM ? PTX_ENOMEM : 0;
    }
    ptx_module_free(m);
    return 1;
}

static void unresolve(struct unit *u, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        for (unsigned k = 0; k < u[i].ns; k++) {
            u[i].s[k].skip = false;
        }
        u[i].nren = 0;
    }
}

/*
 * resolve(), leaving out each chosen unit that does not parse on its own
 * (headers and kernel declarations left out, as linked), so that a
 * library unit p2psim cannot read (libcudadevrt's, registered with the
 * program's kernels) does not take the program's kernels with it; its own
 * kernels are then missing from the module, which their launch says.
 * When none is left, the first unit's error is the answer.
 */
static int resolve_readable(struct unit *u, unsigned n, struct ptx_error *err)
{
    struct ptx_error first;
    memset(&first, 0, sizeof(first));
    for (;;) {
        int rc = resolve(u, n, err);
        if (rc) {
            return rc;
        }
        bool dropped = false, any = false;
        for (unsigned i = 0; i < n; i++) {
            if (!u[i].chosen) {
                continue;
            }
            struct ptx_error e;
            int ok = unit_parses(u, n, i, &e);
            if (ok < 0) {
                return ok;
            }
            if (ok) {
                any = true;
                continue;
            }
            if (!first.code) {
                first = e;
            }
            u[i].chosen = false;
            dropped = true;
        }
        if (!any) {
            if (err) {
                *err = first;
            }
            return first.code ? first.code : PTX_EPARSE;
        }
        if (!dropped) {
            return 0;
        }
        unresolve(u, n);
    }
}

/* ptx_link_texts(), or with all every unit linked (ptx_link_all). */
static int link_texts(const char *const *units, unsigned n,
                      bool (*want)(const char *kernel, void *arg), void *arg,
                      bool all, char **text, size_t *len,
                      struct ptx_error *err)
{
    if (!units || !text || n > PTX_LINK_MAX_UNITS) {
        ptx__set_err(err, PTX_EINVAL, 0, "linking: %u units (at most %u)", n,
                     PTX_LINK_MAX_UNITS);
        return PTX_EINVAL;
    }
    struct unit *u = calloc(n ? n : 1, sizeof(*u));
    if (!u) {
        ptx__set_err(err, PTX_ENOMEM, 0, "out of memory");
        return PTX_ENOMEM;
    }
    int rc = 0;
    for (unsigned i = 0; i < n && !rc; i++) {
        u[i].t = units[i] ? units[i] : "";
        u[i].n = strlen(u[i].t);
        rc = scan_unit(&u[i]);
    }
    for (unsigned i = 0; all && i < n; i++) {
        u[i].chosen = true;
    }
    if (!rc && !all && !choose(u, n, want, arg)) {
        ptx__set_err(err, PTX_ENOPTX, 0, "none of the %u PTX units of the "
                     "-rdc=true image defines a kernel the program "
                     "registered", n);
        rc = PTX_ENOPTX;
    }
    if (!rc) {
        rc = all ? resolve(u, n, err) : resolve_readable(u, n, err);
    }
    if (!rc) {
        rc = emit(u, n, text, len);
    }
    if (rc == PTX_ENOMEM) {
        ptx__set_err(err, PTX_ENOMEM, 0, "out of memory");
    }
    for (unsigned i = 0; i < n; i++) {
        free(u[i].s);
        free(u[i].ren);
    }
    free(u);
    return rc;
}

int ptx_link_texts(const char *const *units, unsigned n,
                   bool (*want)(const char *kernel, void *arg), void *arg,
                   char **text, size_t *len, struct ptx_error *err)
{
    return link_texts(units, n, want, arg, false, text, len, err);
}

int ptx_link_all(const char *const *units, unsigned n, char **text,
                 size_t *len, struct ptx_error *err)
{
    return link_texts(units, n, NULL, NULL, true, text, len, err);
}

void ptx_relfatbin_units_free(char **units, unsigned n)
{
    for (unsigned i = 0; units && i < n; i++) {
        free(units[i]);
    }
    free(units);
}

int ptx_relfatbin_units(const void *section, size_t size, unsigned arch,
                        char ***units_out, unsigned *n_out,
                        struct ptx_error *err)
{
    const uint8_t *p = section;
    char **units = NULL;
    unsigned n = 0;
    int rc = 0;
    if (!p || !units_out || !n_out) {
        ptx__set_err(err, PTX_EINVAL, 0, "no __nv_relfatbin section");
        return PTX_EINVAL;
    }
    size_t off = 0;
    while (off + 16 <= size && !rc) {
        if (ptx__rd32(p + off) != PTX_FATBIN_CONTAINER_MAGIC) {
            off += 8;           /* containers are 8-byte aligned */
            continue;
        }
        uint16_t hdr = ptx__rd16(p + off + 6);
        uint64_t total = ptx__rd64(p + off + 8);
        if (hdr < 16 || total > size - off - 16 || hdr > size - off - total) {
            ptx__set_err(err, PTX_EINVAL, 0, "__nv_relfatbin: a container "
                         "at offset %zu overruns the section (%zu bytes)",
                         off, size);
            rc = PTX_EINVAL;
            break;
        }
        size_t csize = (size_t)hdr + (size_t)total;
        char *t = NULL;
        struct ptx_error e1;
        memset(&e1, 0, sizeof(e1));
        int r = ptx_fatbin_extract_data(p + off, csize, arch, &t, NULL, &e1);
        if (r == 0) {
            if (n == PTX_LINK_MAX_UNITS) {
                free(t);
                ptx__set_err(err, PTX_EINVAL, 0, "__nv_relfatbin: more than "
                             "%u units with PTX", PTX_LINK_MAX_UNITS);
                rc = PTX_EINVAL;
                break;
            }
            char **nu = realloc(units, (n + 1) * sizeof(*nu));
            if (!nu) {
                free(t);
                rc = PTX_ENOMEM;
                break;
            }
            units = nu;
            units[n++] = t;
        } else if (r == PTX_ENOMEM) {
            rc = r;
        }
        /* a unit without PTX, or one we cannot read (LZ4), is left out:
         * a kernel it defines is then missing, which its launch says */
        off += (csize + 7) & ~(size_t)7;
    }
    if (!rc && n == 0) {
        ptx__set_err(err, PTX_ENOPTX, 0, "__nv_relfatbin holds no PTX (the "
                     "objects were built for real architectures only)");
        rc = PTX_ENOPTX;
    }
    if (rc == PTX_ENOMEM) {
        ptx__set_err(err, PTX_ENOMEM, 0, "out of memory");
    }
    if (rc) {
        ptx_relfatbin_units_free(units, n);
        return rc;
    }
    *units_out = units;
    *n_out = n;
    return 0;
}

int ptx_link_relfatbin(const void *section, size_t size, unsigned arch,
                       bool (*want)(const char *kernel, void *arg),
                       void *arg, char **text, size_t *len,
                       struct ptx_error *err)
{
    char **units = NULL;
    unsigned n = 0;
    int rc = ptx_relfatbin_units(section, size, arch, &units, &n, err);
    if (rc == 0) {
        rc = ptx_link_texts((const char *const *)units, n, want, arg, text,
                            len, err);
        ptx_relfatbin_units_free(units, n);
    }
    return rc;
}
