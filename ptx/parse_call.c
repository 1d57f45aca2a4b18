/*
 * ptx/parse_call.c - device functions and calls. A module's .func is
 * recorded where it is and skipped; a kernel's `call` becomes an OP_CALL
 * with a struct ptx_call (the callee, the caller's .param variables);
 * once the whole module is read, every function a kernel calls (and what
 * those call) is parsed again into that kernel, after its code, with
 * registers, labels and .local memory of its own in the kernel's, its
 * parameters and return value in the lane's .local frame. The
 * interpreter (interp_call.c) copies arguments in, the return value out,
 * and keeps a stack of return addresses per lane.
 *
 * vprintf, __assertfail, malloc, free and cudaGraphSetConditional are
 * served without a body (interp_call.c says how), the device runtime's
 * launch functions (__cudaCDP2*, enum ptx_devrt) by ctx.devrt_fn; any
 * other function without a body is refused at the call, with its name.
 *
 * A function's registers and frame are one per kernel, not one per call:
 * a call of a function that is already open on the lane (recursion)
 * saves the lane's registers and frame bytes of that function first and
 * the return restores them (interp.c). Calls with more than
 * PTX_CALL_ARGS_MAX arguments are refused.
 *
 * Indirect calls (`call (ret), %rd, (args), prototype;`): a function
 * named as a value (an initializer such as a table of functions, or an
 * operand) has an address, PTX_FUNC_ADDR of its index among the module's
 * functions; a kernel with an indirect call has every such function with
 * a body parsed into it, and the call goes to the one whose address the
 * register holds (interp.c). The .callprototype is not checked against
 * the callee: arguments and the return value are copied as for a direct
 * call, at most the smaller of the two sizes. The functions an indirect
 * call adds share their register slots (a table of large functions would
 * pass PTX_REG_MAX): a call of one while another whose slots it shares is
 * open on the lane saves and restores them, as a recursive call does.
 */
#include <config.h>

#include "ptx/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx_int.h"
#include "ptx/parse_int.h"

/* ---- module scope ---------------------------------------------------- */

static struct func_decl *func_find(struct ptx_parse *p, const char *name)
{
    for (unsigned i = 0; i < p->n_funcs; i++) {
        if (strcmp(p->funcs[i].name, name) == 0) {
            return &p->funcs[i];
        }
    }
    return NULL;
}

/* The function's name: after an optional "(return parameter)". */
static size_t func_name(struct ptx_parse *p, const char **name)
{
    ptx__skip_ws(p);
    if (ptx__peek(p, '(')) {
        ptx__skip_parens(p);
        ptx__skip_ws(p);
    }
    return ptx__scan_word(p, name);
}

int ptx__module_func(struct ptx_parse *p)
{
    const char *at = p->s;
    unsigned line = p->line;
    const char *name;
    size_t n = func_name(p, &name);
    if (!n) {
        return ptx__fail_at(p, here(p), PTX_EPARSE, ".func without a name");
    }
    if (n > PTX_NAME_MAX) {
        return ptx__fail_at(p, here(p), PTX_EPARSE,
                            "a function name of %zu bytes (at most %u)", n,
                            PTX_NAME_MAX);
    }
    char *copy = strndup(name, n);
    if (!copy) {
        return ptx_parse_nomem(p);
    }
    p->s = at;
    p->line = line;
    ptx__skip_func(p);
    bool body = p->s > at && p->s[-1] == '}';
    struct func_decl *f = func_find(p, copy);
    if (f) {
        free(copy);
    } else {
        if (!GROW(p->funcs, p->n_funcs, p->cap_funcs)) {
            free(copy);
            return ptx_parse_nomem(p);
        }
        f = &p->funcs[p->n_funcs++];
        memset(f, 0, sizeof(*f));
        f->name = copy;
    }
    if (body) {
        f->at = at;
        f->line = line;
        f->body = true;
    }
    return 0;
}

void ptx__funcs_free(struct ptx_parse *p)
{
    for (unsigned i = 0; i < p->n_funcs; i++) {
        free(p->funcs[i].name);
    }
    free(p->funcs);
    p->funcs = NULL;
    p->n_funcs = p->cap_funcs = 0;
}

static bool ident_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c == '$' || (!first && c >= '0' && c <= '9');
}

int ptx__sym_operand(struct ptx_parse *p, const char *s, struct ptx_opd *o,
                     char *why, size_t wl)
{
    enum ptx_space sp;
    int var;
    uint64_t fa;
    if (ptx_parse_sym(p, s, &sp, &o->imm, &var) == 0) {
        o->kind = var == PTX_NOVAR ? OPD_IMM : OPD_VAR;
        o->var = var;
        return 0;
    }
    if (func_find(p, s) && ptx__func_addr(p, s, &fa) == 0) {
        o->kind = OPD_IMM;
        o->imm = (int64_t)fa;
        return 0;
    }
    int rc = ptx__entry_addr(p, s, strlen(s), &fa);
    if (rc == 0) {
        o->kind = OPD_IMM;
        o->imm = (int64_t)fa;
        return 0;
    }
    if (rc == PTX_ENOMEM) {
        return PTX_ENOMEM;
    }
    snprintf(why, wl, "unknown operand '%s'", s);
    return -1;
}

int ptx__func_addr(struct ptx_parse *p, const char *name, uint64_t *v)
{
    if (!ident_char(name[0], true)) {
        return -1;
    }
    for (const char *c = name + 1; *c; c++) {
        if (!ident_char(*c, false)) {
            return -1;
        }
    }
    struct func_decl *f = func_find(p, name);
    if (!f) {
        /* named before its declaration: its .func fills it in */
        char *copy = strdup(name);
        if (!copy || !GROW(p->funcs, p->n_funcs, p->cap_funcs)) {
            free(copy);
            return ptx_parse_nomem(p);
        }
        f = &p->funcs[p->n_funcs++];
        memset(f, 0, sizeof(*f));
        f->name = copy;
    }
    f->addr_taken = true;
    *v = PTX_FUNC_ADDR(f - p->funcs);
    return 0;
}

/* Whether the text has ".entry name" (a definition or an .extern
 * declaration, before or after this use). */
static bool entry_in_text(const struct ptx_parse *p, const char *name,
                          size_t n)
{
    const char *t = p->text, *end = p->end;
    while (t && t < end) {
        const char *e = memchr(t, '.', (size_t)(end - t));
        if (!e) {
            return false;
        }
        if ((size_t)(end - e) < 6 || memcmp(e, ".entry", 6) != 0) {
            t = e + 1;
            continue;
        }
        const char *q = e + 6;
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' ||
                           *q == '\r')) {
            q++;
        }
        if (q > e + 6 && (size_t)(end - q) >= n && memcmp(q, name, n) == 0 &&
            (q + n == end || !ident_char(q[n], false))) {
            return true;
        }
        t = e + 6;
    }
    return false;
}

int ptx__entry_addr(struct ptx_parse *p, const char *name, size_t n,
                    uint64_t *v)
{
    struct ptx_module *m = p->m;
    for (unsigned i = 0; i < m->n_entry_names; i++) {
        if (strlen(m->entry_names[i]) == n &&
            memcmp(m->entry_names[i], name, n) == 0) {
            *v = PTX_ENTRY_ADDR(i);
            return 0;
        }
    }
    if (n == 0 || !ident_char(name[0], true) || !entry_in_text(p, name, n)) {
        return -1;
    }
    char *copy = ptx__mod_strdup(p, name, n);
    if (!copy || !GROW(m->entry_names, m->n_entry_names,
                       m->cap_entry_names)) {
        return ptx_parse_nomem(p);
    }
    m->entry_names[m->n_entry_names] = copy;
    *v = PTX_ENTRY_ADDR(m->n_entry_names++);
    return 0;
}

/* The device runtime's functions (ptx.h, enum ptx_devrt): CUDA 12's
 * __cudaCDP2 names, or the same without the prefix. */
static const struct {
    const char *name;
    enum ptx_devrt fn;
    unsigned n_args;
} devrt_names[] = {
    { "GetParameterBuffer", PTX_DEVRT_GET_PARAM_BUF, 2 },
    { "GetParameterBufferV2", PTX_DEVRT_GET_PARAM_BUF_V2, 4 },
    { "LaunchDevice", PTX_DEVRT_LAUNCH, 6 },
    { "LaunchDeviceV2", PTX_DEVRT_LAUNCH_V2, 2 },
    { "StreamCreateWithFlags", PTX_DEVRT_STREAM_CREATE, 2 },
    { "StreamDestroy", PTX_DEVRT_STREAM_DESTROY, 1 },
    { "GetLastError", PTX_DEVRT_GET_LAST_ERROR, 0 },
    { "PeekAtLastError", PTX_DEVRT_PEEK_AT_LAST_ERROR, 0 },
    { "GetErrorString", PTX_DEVRT_GET_ERROR_STRING, 1 },
    { "MemcpyAsync", PTX_DEVRT_MEMCPY_ASYNC, 5 },
    { "DeviceSynchronize", PTX_DEVRT_DEVICE_SYNC, 0 },
    { "GetDevice", PTX_DEVRT_GET_DEVICE, 1 },
};

/* The function callee names, or -1. */
static int devrt_find(const char *callee, unsigned n_args)
{
    const char *s = callee;
    if (strncmp(s, "__cudaCDP2", 10) == 0) {
        s += 10;
    } else if (strncmp(s, "cuda", 4) == 0) {
        s += 4;
    } else {
        return -1;
    }
    for (unsigned i = 0; i < sizeof(devrt_names) / sizeof(devrt_names[0]);
         i++) {
        if (strcmp(s, devrt_names[i].name) == 0 &&
            n_args == devrt_names[i].n_args) {
            return (int)devrt_names[i].fn;
        }
    }
    return -1;
}

/* ---- calls ------------------------------------------------------------- */

/* A .param variable of the caller: its frame offset and size. */
static int call_param(struct ptx_parse *p, const char *s, int64_t *off,
                      uint32_t *bytes, char *why, size_t wl)
{
    enum ptx_space space;
    int var;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
        s++;
    }
    if (ptx_parse_sym(p, s, &space, off, &var) || space != PS_LOCAL) {
        snprintf(why, wl, "call argument '%.60s' is not a .param variable",
                 s);
        return -1;
    }
    *bytes = 0;
    for (unsigned i = p->n_ksyms; i-- > 0;) {
        if (strcmp(p->ksyms[i].name, s) == 0) {
            *bytes = (uint32_t)p->ksyms[i].bytes;
            break;
        }
    }
    return 0;
}

/* "(a, b)" into its names, in place. */
static unsigned split_list(char *s, char **out, unsigned max, bool *ok)
{
    size_t n = strlen(s);
    *ok = n >= 2 && s[0] == '(' && s[n - 1] == ')';
    if (!*ok) {
        return 0;
    }
    s[n - 1] = '\0';
    s++;
    unsigned k = 0;
    char *save = NULL;
    for (char *t = strtok_r(s, ", \t\r\n", &save); t;
         t = strtok_r(NULL, ", \t\r\n", &save)) {
        if (k < max) {
            out[k] = t;
        }
        k++;
    }
    return k;
}

/* The kernel's instance of function name (made on first use). */
static int func_inst(struct ptx_parse *p, const char *name, unsigned *idx)
{
    struct ptx_kernel *k = p->k;
    for (unsigned i = 0; i < k->n_funcs; i++) {
        if (strcmp(k->funcs[i].name, name) == 0) {
            *idx = i;
            return 0;
        }
    }
    if (k->n_funcs >= PTX_FUNCS_MAX) {
        return -1;
    }
    if (!GROW(k->funcs, k->n_funcs, k->cap_funcs)) {
        return ptx_parse_nomem(p);
    }
    struct ptx_func_inst *f = &k->funcs[k->n_funcs];
    memset(f, 0, sizeof(*f));
    f->name = ptx__mod_strdup(p, name, strlen(name));
    if (!f->name) {
        return p->rc;
    }
    const struct func_decl *d = func_find(p, name);
    f->mod_index = d ? (unsigned)(d - p->funcs) : UINT32_MAX;
    f->line = p->line;
    f->entry = UINT32_MAX; /* not parsed in yet */
    *idx = k->n_funcs++;
    return 0;
}

int ptx__decode_call(struct ptx_parse *p, char **opds, unsigned n,
                     struct ptx_insn *in, char *why, size_t wl)
{
    struct ptx_call c;
    memset(&c, 0, sizeof(c));
    unsigned i = 0;
    char *list[PTX_CALL_ARGS_MAX + 1];
    bool ok;
    if (i < n && opds[i][0] == '(') {
        unsigned r = split_list(opds[i], list, 2, &ok);
        if (!ok || r != 1) {
            snprintf(why, wl, "call return list");
            return -1;
        }
        if (call_param(p, list[0], &c.ret_off, &c.ret_bytes, why, wl)) {
            return -1;
        }
        i++;
    }
    if (i >= n) {
        snprintf(why, wl, "call without a callee");
        return -1;
    }
    const char *callee = opds[i++];
    int target = func_find(p, callee) ? -1 : ptx_parse_reg(p, callee);
    if (callee[0] == '%' && target < 0) {
        snprintf(why, wl, "unknown register '%.60s'", callee);
        return -1;
    }
    if (i < n) {
        unsigned a = split_list(opds[i], list, PTX_CALL_ARGS_MAX + 1, &ok);
        if (!ok || a > PTX_CALL_ARGS_MAX) {
            snprintf(why, wl, ok ? "call of %.60s with %u arguments (at most "
                                   "%u)"
                                 : "call argument list",
                     callee, a, PTX_CALL_ARGS_MAX);
            return -1;
        }
        for (unsigned j = 0; j < a; j++) {
            if (call_param(p, list[j], &c.arg_off[j], &c.arg_bytes[j], why,
                           wl)) {
                return -1;
            }
        }
        c.n_args = a;
        i++;
    }
    if (target >= 0) {
        /* the prototype (or .calltargets) names no callee: not read */
        if (i + 1 < n) {
            snprintf(why, wl, "indirect call of %u operands", n);
            return -1;
        }
        c.kind = PTX_CALLEE_INDIRECT;
        c.func = (unsigned)target;
        p->k->indirect = true;
    } else if (i != n) {
        snprintf(why, wl, "call with a prototype of a direct callee");
        return -1;
    } else if (strcmp(callee, "vprintf") == 0) {
        c.kind = PTX_CALLEE_VPRINTF;
        if (c.n_args != 2) {
            snprintf(why, wl, "vprintf with %u arguments", c.n_args);
            return -1;
        }
    } else if (strcmp(callee, "malloc") == 0 ||
               strcmp(callee, "free") == 0) {
        bool m = callee[0] == 'm';
        c.kind = m ? PTX_CALLEE_MALLOC : PTX_CALLEE_FREE;
        if (c.n_args != 1 || c.arg_bytes[0] != 8 ||
            (m && c.ret_bytes != 8)) {
            snprintf(why, wl, "%s with %u arguments", callee, c.n_args);
            return -1;
        }
        p->k->info.uses_heap = true;
    } else if (strcmp(callee, "cudaGraphSetConditional") == 0) {
        c.kind = PTX_CALLEE_SETCOND;
        if (c.n_args != 2 || c.arg_bytes[0] != 8 || c.arg_bytes[1] < 4) {
            snprintf(why, wl, "cudaGraphSetConditional with %u arguments",
                     c.n_args);
            return -1;
        }
    } else if (strcmp(callee, "__assertfail") == 0) {
        c.kind = PTX_CALLEE_ASSERT;
        if (c.n_args < 4) {
            snprintf(why, wl, "__assertfail with %u arguments", c.n_args);
            return -1;
        }
    } else if (devrt_find(callee, c.n_args) >= 0) {
        /* the device runtime is the executor's: libcudadevrt's body of
         * the function (its system calls) is not run */
        c.kind = PTX_CALLEE_DEVRT;
        c.func = (unsigned)devrt_find(callee, c.n_args);
        c.name = ptx__mod_strdup(p, callee, strlen(callee));
        if (!c.name) {
            return PTX_ENOMEM;
        }
    } else {
        const struct func_decl *f = func_find(p, callee);
        if (!f) {
            snprintf(why, wl, "call of an undeclared function '%.60s'",
                     callee);
            return -1;
        }
        c.kind = PTX_CALLEE_FUNC;
        int rc = func_inst(p, callee, &c.func);
        if (rc) {
            if (rc == PTX_ENOMEM || p->rc) {
                return PTX_ENOMEM;
            }
            snprintf(why, wl, "more than %u functions called", PTX_FUNCS_MAX);
            return -1;
        }
    }
    struct ptx_kernel *k = p->k;
    if (!GROW(k->calls, k->n_calls, k->cap_calls)) {
        ptx_parse_nomem(p);
        return PTX_ENOMEM;
    }
    k->calls[k->n_calls] = c;
    in->op = OP_CALL;
    in->type = PT_NONE;
    in->n_opds = 0;
    in->o[0].kind = OPD_NONE;
    in->o[0].imm = k->n_calls++;
    return 0;
}

/* ---- linking: a called function parsed into its kernel ---------------- */

/* One parameter list of a signature, "(.param .b64 a, ...)", into the
 * lane's frame: offsets and sizes, as .local syms of the function. */
static int sig_params(struct ptx_parse *p, struct ptx_kernel *k,
                      int64_t *off, uint32_t *bytes, unsigned max,
                      unsigned *n_out, struct loc l)
{
    *n_out = 0;
    if (!ptx__accept(p, '(')) {
        return 0;
    }
    if (ptx__accept(p, ')')) {
        return 0;
    }
    do {
        char w[64];
        struct decl d;
        int rc = 0;
        ptx__skip_ws(p);
        if (!ptx__read_word(p, w, sizeof(w)) || strcmp(w, ".param") != 0 ||
            (rc = ptx__read_decl(p, &d)) <= 0) {
            return rc < 0 ? p->rc
                          : ptx__fail_at(p, l, PTX_EPARSE,
                                         "malformed parameter of a function "
                                         "called by kernel %s",
                                         k->info.name);
        }
        if (*n_out >= max) {
            ptx__unsupported(p, l.line, "a function of more than %u "
                             "parameters", max);
            return 0;
        }
        uint32_t at;
        rc = ptx__place_var(p, &d, &k->local_bytes, PTX_LOCAL_MAX_BYTES,
                            ".param", &at);
        if (rc) {
            return rc;
        }
        rc = ptx__add_sym(p, &p->ksyms, &p->n_ksyms, &p->cap_ksyms, d.name,
                          PS_LOCAL, at, PTX_NOVAR);
        if (rc) {
            return rc;
        }
        p->ksyms[p->n_ksyms - 1].bytes = d.bytes;
        off[*n_out] = at;
        bytes[*n_out] = (uint32_t)d.bytes;
        (*n_out)++;
    } while (ptx__accept(p, ','));
    if (!ptx__accept(p, ')')) {
        return ptx__fail_at(p, here(p), PTX_EPARSE,
                            "')' expected in a function's parameters");
    }
    return 0;
}

/* Parse function fi of kernel k (its decl at f) into k's code. */
static int link_one(struct ptx_parse *p, struct ptx_kernel *k, unsigned fi,
                    const struct func_decl *f)
{
    const char *saved_s = p->s;
    unsigned saved_line = p->line;
    ptx__kernel_reset_scope(p);
    p->k = k;
    p->next_slot = k->n_regs;
    p->shared_bytes = k->info.shared_bytes;
    p->dyn_shared_used = k->dyn_shared_used;
    p->s = f->at;
    p->line = f->line;
    struct loc l = here(p);
    /* a lane that runs off what comes before returns, not into this */
    struct ptx_insn ret;
    memset(&ret, 0, sizeof(ret));
    ret.op = OP_RET;
    ret.guard = PTX_NOREG;
    ret.line = f->line;
    if (!GROW(k->insns, k->n_insns, k->cap_insns)) {
        return ptx_parse_nomem(p);
    }
    k->insns[k->n_insns++] = ret;
    struct ptx_func_inst *fn = &k->funcs[fi];
    fn->entry = k->n_insns;
    fn->slot_lo = p->next_slot;
    fn->loc_lo = k->local_bytes;
    unsigned n_ret;
    int64_t roff[1];
    uint32_t rbytes[1];
    int rc = sig_params(p, k, roff, rbytes, 1, &n_ret, l);
    fn = &k->funcs[fi];
    if (!rc && n_ret) {
        fn->retval_off = roff[0];
        fn->retval_bytes = rbytes[0];
    }
    const char *name;
    if (!rc) {
        ptx__skip_ws(p);
        ptx__scan_word(p, &name);
        rc = sig_params(p, k, fn->param_off, fn->param_bytes,
                        PTX_CALL_ARGS_MAX, &fn->n_params, l);
    }
    while (!rc && !p->rc && p->s < p->end && !ptx__peek(p, '{')) {
        char w[256];
        if (!ptx__read_word(p, w, sizeof(w))) {
            p->s++;         /* .noreturn, .attribute(...) and the like */
        }
    }
    if (!rc && !p->rc) {
        unsigned first = k->n_insns;
        rc = ptx__parse_body(p, k);
        if (!rc) {
            ptx__resolve_labels(p, k, first);
        }
        fn = &k->funcs[fi]; /* the body may have grown k->funcs */
        fn->slot_hi = k->n_regs;
        fn->loc_hi = k->local_bytes;
        /* module .shared first used here joins the kernel's (before any
         * use of dynamic shared memory, which would be flagged) */
        k->info.shared_bytes = p->shared_bytes;
        if (!k->dyn_shared_used) {
            k->info.dyn_shared_offset =
                (uint32_t)align_up(p->shared_bytes, 16);
        }
        k->dyn_shared_used = p->dyn_shared_used;
    }
    p->s = saved_s;
    p->line = saved_line;
    return rc ? rc : p->rc;
}

/* A kernel with an indirect call: every function with a body whose
 * address the module takes becomes one of its functions. */
static int inst_addr_taken(struct ptx_parse *p, struct ptx_kernel *k)
{
    p->k = k;
    for (unsigned i = 0; i < p->n_funcs; i++) {
        unsigned idx;
        if (p->funcs[i].addr_taken && p->funcs[i].body &&
            func_inst(p, p->funcs[i].name, &idx)) {
            if (p->rc) {
                return p->rc;
            }
            ptx__unsupported(p, p->funcs[i].line, "more than %u functions "
                             "called", PTX_FUNCS_MAX);
            break;
        }
    }
    p->k = NULL;
    return 0;
}

int ptx__link_calls(struct ptx_parse *p)
{
    for (unsigned ki = 0; ki < p->m->n_kernels; ki++) {
        struct ptx_kernel *k = p->m->kernels[ki];
        unsigned addrs_at = UINT32_MAX; /* n_funcs when last added */
        /* the functions an indirect call added: [g_lo, g_hi), whose
         * registers all start at g_base, past everything linked before */
        unsigned g_lo = 0, g_hi = 0, g_base = 0;
        if (!k->n_funcs && !k->indirect) {
            continue;
        }
        /* k->n_funcs grows while functions that call others are read,
         * and an indirect call (also one in a function) adds every
         * function whose address is taken, once all are known */
        for (unsigned fi = 0;; fi++) {
            if (fi >= k->n_funcs) {
                if (!k->indirect || addrs_at == k->n_funcs) {
                    break;
                }
                g_lo = k->n_funcs;
                int rc = inst_addr_taken(p, k);
                if (rc) {
                    return rc;
                }
                addrs_at = g_hi = k->n_funcs;
                g_base = k->n_regs;
                if (fi >= k->n_funcs) {
                    break;
                }
            }
            const struct func_decl *f = func_find(p, k->funcs[fi].name);
            if (!f || !f->body) {
                /* known only by its declaration: the device runtime's
                 * or a library's (malloc, free, cudaGraphSetConditional) */
                p->k = k;
                ptx__unsupported(p, k->funcs[fi].line, "unsupported "
                                 "instruction 'call' (of '%.60s', a "
                                 "function without a body in the module)",
                                 k->funcs[fi].name);
                p->k = NULL;
                continue;
            }
            bool shared = fi >= g_lo && fi < g_hi;
            unsigned keep = k->n_regs;
            if (shared) {
                k->n_regs = g_base;
            }
            int rc = link_one(p, k, fi, f);
            if (rc) {
                return rc;
            }
            if (shared) {
                k->funcs[fi].slot_hi = k->n_regs;
                k->n_regs = k->n_regs > keep ? k->n_regs : keep;
            }
        }
        ptx__kernel_finish(p, k);
        ptx__kernel_reset_scope(p);
        p->k = NULL;
    }
    return 0;
}
