/*
 * ptx/parse.c - a PTX module: header directives (.version, .target,
 * .address_size), .entry kernels with their parameter lists and
 * performance directives, the public calls on modules and kernels.
 * Declarations live in parse_decl.c, kernel bodies in parse_body.c,
 * lexing and error reporting in parse_lex.c (parse_int.h).
 *
 * What is parsed: the text nvcc 13 emits (PTX ISA 9.0) for whole-program
 * compilation. .func bodies are skipped (a kernel that calls one fails
 * at `call`); debug sections (.file, .loc, .section) are skipped. Any
 * other directive inside a kernel, and any instruction decode.c rejects,
 * is recorded against that kernel with its line; parsing goes on, so the
 * module's other kernels stay usable.
 *
 * Memory layout decided by the parser:
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
#include "ptx/parse_int.h"

/* ---------------------------------------------------------------------- */
/* Kernels                                                                 */
/* ---------------------------------------------------------------------- */

void ptx__kernel_reset_scope(struct ptx_parse *p)
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
    p->next_slot = SR_COUNT;
    p->depth = 0;
}

static int parse_params(struct ptx_parse *p, struct ptx_kernel *k)
{
    unsigned cap = 0;
    uint32_t off = 0;
    if (!ptx__accept(p, '(')) {
        return 0;
    }
    if (ptx__accept(p, ')')) {
        return 0;
    }
    do {
        char w[64];
        ptx__skip_ws(p);
        struct loc l = here(p);
        struct decl d;
        int rc = 0;
        if (!ptx__read_word(p, w, sizeof(w)) || strcmp(w, ".param") != 0 ||
            (rc = ptx__read_decl(p, &d)) <= 0) {
            return rc < 0 ? p->rc
                          : ptx__fail_at(p, l, PTX_EPARSE,
                                         "malformed parameter of kernel %s",
                                         k->info.name);
        }
        if (d.other) {
            ptx__unsupported(p, l.line, "unsupported parameter attribute '%s'",
                             d.other_word);
        }
        if (!GROW(k->params, k->info.n_params, cap)) {
            return ptx_parse_nomem(p);
        }
        uint32_t at;
        rc = ptx__place_var(p, &d, &off, PTX_PARAM_MAX_BYTES, ".param", &at);
        if (rc) {
            return rc;
        }
        struct ptx_param_info *pi = &k->params[k->info.n_params];
        pi->name = ptx__mod_strdup(p, d.name, strlen(d.name));
        if (!pi->name) {
            return p->rc;
        }
        k->info.n_params++;
        pi->size_bytes = (uint32_t)d.bytes;
        pi->align_bytes = d.align;
        pi->offset_bytes = at;
        rc = ptx__add_sym(p, &p->ksyms, &p->n_ksyms, &p->cap_ksyms, d.name,
                          PS_PARAM, pi->offset_bytes, PTX_NOVAR);
        if (rc) {
            return rc;
        }
    } while (ptx__accept(p, ','));
    k->info.params = k->params;
    if (!ptx__accept(p, ')')) {
        return ptx__fail_at(p, here(p), PTX_EPARSE,
                            "')' expected after the parameters of %s",
                            k->info.name);
    }
    k->info.param_bytes = off;
    return 0;
}

static int parse_ntid(struct ptx_parse *p, uint32_t v[3], const char *what)
{
    for (int i = 0; i < 3; i++) {
        unsigned long long x;
        v[i] = 1;
        if (i > 0 && !ptx__accept(p, ',')) {
            break;
        }
        ptx__skip_ws(p);
        struct loc l = here(p);
        int rc = ptx__read_uint(p, &x, what);
        if (rc < 0) {
            return p->rc;
        }
        if (rc > 0 && (x == 0 || x > PTX_NTID_MAX)) {
            return ptx__fail_at(p, l, PTX_EPARSE, "%s %llu: 1 to %u expected",
                                what, x, PTX_NTID_MAX);
        }
        if (rc > 0) {
            v[i] = (uint32_t)x;
        }
    }
    return 0;
}

void ptx__resolve_labels(struct ptx_parse *p, struct ptx_kernel *k,
                         unsigned from)
{
    for (unsigned i = from; i < k->n_insns; i++) {
        struct ptx_insn *in = &k->insns[i];
        if (in->op != OP_BRA || in->o[0].kind != OPD_LABEL) {
            continue;
        }
        struct label *l = &p->labels[in->o[0].imm];
        if (l->insn < 0) {
            ptx__unsupported(p, in->line, "undefined label '%s'", l->name);
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
    ptx__skip_ws(p);
    struct loc l = here(p);
    size_t n = ptx__scan_word(p, &name);
    if (!n) {
        return ptx__fail_at(p, l, PTX_EPARSE, ".entry without a name");
    }
    struct ptx_module *m = p->m;
    struct ptx_kernel *k = calloc(1, sizeof(*k));
    if (!k || !GROW(m->kernels, m->n_kernels, p->cap_kernels)) {
        free(k);
        return ptx_parse_nomem(p);
    }
    m->kernels[m->n_kernels++] = k;
    k->info.name = ptx__mod_strdup(p, name, n);
    if (!k->info.name) {
        return p->rc;
    }
    k->n_regs = SR_COUNT;
    k->mod = m;
    p->k = k;
    p->shared_bytes = 0;
    p->dyn_shared_used = false;
    ptx__kernel_reset_scope(p);
    int rc = parse_params(p, k);
    if (rc) {
        return rc;
    }
    while (!ptx__peek(p, '{')) {
        l = here(p);
        if (!ptx__read_word(p, w, sizeof(w))) {
            return ptx__fail_at(p, l, PTX_EPARSE, "'{' expected for kernel %s",
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
            rc = ptx__read_uint(p, &v, w) < 0 ? p->rc : 0;
        } else if (strcmp(w, ".noreturn") == 0) {
        } else if (strcmp(w, ".pragma") == 0) {
            ptx__skip_statement(p);
        } else {
            ptx__unsupported(p, l.line, "unsupported kernel directive '%s'", w);
            ptx__skip_line(p);
        }
        if (rc || p->rc) {
            return rc ? rc : p->rc;
        }
    }
    ptx__place_body_shared(p);
    rc = ptx__parse_body(p, k);
    if (rc) {
        return rc;
    }
    ptx__resolve_labels(p, k, 0);
    k->info.shared_bytes = p->shared_bytes;
    k->info.dyn_shared_offset = (uint32_t)align_up(p->shared_bytes, 16);
    k->dyn_shared_used = p->dyn_shared_used;
    ptx__kernel_finish(p, k);
    p->k = NULL;
    return p->rc;
}

void ptx__kernel_finish(struct ptx_parse *p, struct ptx_kernel *k)
{
    (void)p;
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
}

/* .func: a device function's text, skipped at module scope (the kernels
 * that call it parse it again, parse_call.c). */
void ptx__skip_parens(struct ptx_parse *p)
{
    while (p->s < p->end && *p->s != ')') {
        if (*p->s == '\n') {
            p->line++;
        }
        p->s++;
    }
    if (p->s < p->end) {
        p->s++;
    }
}

void ptx__skip_func(struct ptx_parse *p)
{
    while (p->s < p->end) {
        ptx__skip_ws(p);
        if (ptx__peek(p, ';')) {
            p->s++;
            return;
        }
        if (ptx__peek(p, '{')) {
            ptx__skip_block(p);
            return;
        }
        if (ptx__peek(p, '(')) {
            ptx__skip_parens(p);
            continue;
        }
        const char *w;
        if (!ptx__scan_word(p, &w) && p->s < p->end) {
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
        ptx__skip_ws(p);
        if (p->rc) {
            return p->rc;
        }
        if (p->s >= p->end) {
            return 0;
        }
        struct loc l = here(p);
        if (!ptx__read_word(p, w, sizeof(w))) {
            return ptx__fail_at(p, l, PTX_EPARSE, "unexpected %s",
                                ptx__char_text(p, c, sizeof(c)));
        }
        int rc = 0;
        if (strcmp(w, ".version") == 0) {
            ptx__skip_ws(p);
            l = here(p);
            ptx__read_word(p, w, sizeof(w));
            const char *r;
            long maj = header_number(w, &r, 99), min = -1;
            if (maj >= 0 && *r == '.') {
                min = header_number(r + 1, &r, 9);
            }
            if (min < 0 || *r != '\0') {
                return ptx__fail_at(p, l, PTX_EPARSE,
                                    "malformed .version '%.40s'", w);
            }
            p->m->version = (unsigned)(maj * 10 + min);
        } else if (strcmp(w, ".target") == 0) {
            do {
                ptx__read_word(p, w, sizeof(w));
                const char *r;
                long sm;
                if (strncmp(w, "sm_", 3) == 0 &&
                    (sm = header_number(w + 3, &r, 99999)) >= 0) {
                    p->m->target_sm = (unsigned)sm;
                }
            } while (ptx__accept(p, ','));
        } else if (strcmp(w, ".address_size") == 0) {
            unsigned long long v = 0;
            if (ptx__read_uint(p, &v, ".address_size") < 0) {
                return p->rc;
            }
            if (v != 64) {
                return ptx__fail_at(p, l, PTX_EPARSE,
                                    ".address_size %llu: only 64 is supported",
                                    v);
            }
        } else if (strcmp(w, ".visible") == 0 || strcmp(w, ".weak") == 0 ||
                   strcmp(w, ".common") == 0) {
            continue;
        } else if (strcmp(w, ".extern") == 0) {
            is_extern = true;
            continue;
        } else if (strcmp(w, ".entry") == 0 && is_extern) {
            /* a kernel of another unit, named for a device-side launch:
             * its declaration only */
            ptx__skip_func(p);
        } else if (strcmp(w, ".entry") == 0) {
            rc = parse_entry(p);
        } else if (strcmp(w, ".func") == 0) {
            rc = ptx__module_func(p);
        } else if (strcmp(w, ".global") == 0) {
            rc = ptx__parse_module_var(p, PS_GLOBAL, is_extern, l);
        } else if (strcmp(w, ".const") == 0) {
            rc = ptx__parse_module_var(p, PS_CONST, is_extern, l);
        } else if (strcmp(w, ".shared") == 0) {
            rc = ptx__parse_module_var(p, PS_SHARED, is_extern, l);
        } else if (strcmp(w, ".file") == 0 || strcmp(w, ".loc") == 0) {
            ptx__skip_line(p);
        } else if (strcmp(w, ".section") == 0) {
            ptx__read_word(p, w, sizeof(w));
            ptx__skip_ws(p);
            if (ptx__peek(p, '{')) {
                ptx__skip_block(p);
            }
        } else if (strcmp(w, ".pragma") == 0) {
            ptx__skip_statement(p);
        } else {
            return ptx__fail_at(p, l, PTX_EPARSE,
                                "unexpected '%s' at module scope", w);
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
        ptx__set_err(err, PTX_EINVAL, 0, "no PTX text");
        return NULL;
    }
    if (len > PTX_TEXT_MAX_BYTES) {
        ptx__set_err(err, PTX_EPARSE, 0, "a PTX text of %zu bytes (at most %u)",
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
        ptx__set_err(err, PTX_ENOMEM, 0, "out of memory");
        return NULL;
    }
    int rc = parse_top(&p);
    if (!rc) {
        rc = p.rc;
    }
    if (!rc) {
        rc = ptx__link_calls(&p);
    }
    for (unsigned i = 0; !rc && i < p.m->n_kernels; i++) {
        if (ptx__fast_prepare(p.m->kernels[i])) {
            rc = ptx_parse_nomem(&p);
        }
    }
    if (rc == 0 && p.m->version == 0) {
        struct loc l = {1, text};
        rc = ptx__fail_at(&p, l, PTX_EPARSE, "not a PTX module: no .version");
    }
    ptx__kernel_reset_scope(&p);
    ptx__funcs_free(&p);
    for (unsigned i = 0; i < p.n_msyms; i++) {
        free(p.msyms[i].name);
    }
    free(p.msyms);
    free(p.places);
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
        free(m->kernels[i]->calls);
        free(m->kernels[i]->funcs);
        free(m->kernels[i]->wregs);
        ptx__fast_free(m->kernels[i]);
        free(m->kernels[i]);
    }
    for (unsigned i = 0; i < m->n_strings; i++) {
        free(m->strings[i]);
    }
    free(m->strings);
    free(m->entry_names);
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

const char *ptx_module_entry_name(const struct ptx_module *m, uint64_t addr)
{
    uint64_t i = (addr - PTX_ENTRY_ADDR_BASE) / 16u;
    if (!m || addr < PTX_ENTRY_ADDR_BASE || addr % 16u ||
        i >= m->n_entry_names) {
        return NULL;
    }
    return m->entry_names[i];
}

const struct ptx_module *ptx_kernel_module(const struct ptx_kernel *k)
{
    return k ? k->mod : NULL;
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
        ptx__set_err(err, PTX_ENOTFOUND, 0, "no such kernel");
        return PTX_ENOTFOUND;
    }
    if (k->err_line) {
        ptx__set_err(err, PTX_EUNSUPPORTED, k->err_line, "%s", k->err_msg);
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
