/*
 * ptx/parse_body.c - a kernel's body: .reg, .shared and .local
 * declarations, labels, guards and instruction statements. Each
 * statement is split into its opcode and operand texts and handed to
 * ptx_decode() (decode.c); what it refuses is recorded against the
 * kernel, which then traps at that instruction.
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

static int declare_regs(struct ptx_parse *p, struct ptx_kernel *k)
{
    char w[256];
    unsigned line = p->line;
    struct loc l; /* of the register name in w */
    /* types and modifiers */
    for (;;) {
        ptx__skip_ws(p);
        l = here(p);
        if (!ptx__read_word(p, w, sizeof(w)) || w[0] != '.') {
            break;
        }
        if (ptx_type_from_name(w + 1) == PT_NONE) {
            ptx__unsupported(p, line, "unsupported register type '%s'", w);
        }
    }
    for (;;) {
        unsigned long long n = 1;
        bool ranged = false;
        if (w[0] == '\0') {
            ptx__unsupported(p, line, "malformed .reg declaration");
            break;
        }
        if (ptx__accept(p, '<')) {
            int rc = ptx__read_uint(p, &n, "register count");
            if (rc < 0) {
                return p->rc;
            }
            if (rc == 0 || !ptx__accept(p, '>')) {
                ptx__unsupported(p, line, "malformed .reg declaration");
                break;
            }
            ranged = true;
        }
        if (n > PTX_REG_MAX || p->next_slot - SR_COUNT > PTX_REG_MAX - n) {
            return ptx__fail_at(p, l, PTX_EPARSE,
                                "kernel %s: %s: more than %u registers",
                                k->info.name, w, PTX_REG_MAX);
        }
        if (n > 0) {
            if (!GROW(p->regs, p->n_regs, p->cap_regs)) {
                return ptx_parse_nomem(p);
            }
            struct reg_decl *r = &p->regs[p->n_regs];
            r->name = strdup(w);
            if (!r->name) {
                return ptx_parse_nomem(p);
            }
            p->n_regs++;
            r->base = p->next_slot;
            r->count = ranged ? (unsigned)n : 0;
            r->depth = p->depth;
            p->next_slot += (unsigned)n;
            if (p->next_slot > k->n_regs) {
                k->n_regs = p->next_slot;
            }
        }
        if (!ptx__accept(p, ',')) {
            break;
        }
        ptx__skip_ws(p);
        l = here(p);
        if (!ptx__read_word(p, w, sizeof(w))) {
            break;
        }
    }
    ptx__skip_statement(p);
    return 0;
}

/* .shared or .local inside a kernel. */
static int declare_kernel_var(struct ptx_parse *p, struct ptx_kernel *k,
                              enum ptx_space space)
{
    struct decl d;
    unsigned line = p->line;
    int rc = ptx__read_decl(p, &d);
    if (rc < 0) {
        return p->rc;
    }
    if (rc == 0 || d.other) {
        ptx__unsupported(p, line, "unsupported %s declaration",
                         space == PS_SHARED ? ".shared" : ".local or .param");
        ptx__skip_statement(p);
        return 0;
    }
    uint32_t off;
    rc = space == PS_SHARED
             ? ptx__place_var(p, &d, &p->shared_bytes, PTX_SHARED_MAX_BYTES,
                              ".shared", &off)
             : ptx__place_var(p, &d, &k->local_bytes, PTX_LOCAL_MAX_BYTES,
                              ".local", &off);
    if (rc) {
        return rc;
    }
    if (space == PS_SHARED && p->dyn_shared_used) {
        ptx__unsupported(
            p, line, ".shared declared after a use of dynamic shared memory");
    }
    rc = ptx__add_sym(p, &p->ksyms, &p->n_ksyms, &p->cap_ksyms, d.name, space,
                      off, PTX_NOVAR);
    if (rc) {
        return rc;
    }
    p->ksyms[p->n_ksyms - 1].bytes = d.bytes;
    ptx__skip_statement(p);
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
        return ptx__fail_at(p, l, PTX_EPARSE,
                            "kernel %s: more than %u instructions",
                            k->info.name, PTX_INSN_MAX);
    }
    if (!GROW(k->insns, k->n_insns, k->cap_insns)) {
        return ptx_parse_nomem(p);
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
    ptx__skip_statement(p);
    size_t len = (size_t)(p->s - start);
    if (len > PTX_STATEMENT_MAX_BYTES) {
        return ptx__fail_at(p, l, PTX_EPARSE,
                            "an instruction of %zu bytes (at most %u)", len,
                            PTX_STATEMENT_MAX_BYTES);
    }
    char *text = malloc(len + 1);
    if (!text) {
        return ptx_parse_nomem(p);
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
        /* the lanes that reach it fail, with this message (OP_TRAP's
         * mode 1); the kernel still runs (code it never reaches, as a
         * library's paths for hardware features left off, costs nothing) */
        char what[200], msg[PTX_ERROR_MSG_BYTES];
        snprintf(what, sizeof(what), "unsupported instruction '%.60s' (%.100s), "
                 "reached", opcode, why);
        ptx__kernel_msg(msg, sizeof(msg), k->info.name, l.line, what);
        char *c = ptx__mod_strdup(p, msg, strlen(msg));
        memset(&in.o, 0, sizeof(in.o));
        in.n_opds = 0;
        in.mode = 1;
        in.o[0].imm = (int64_t)(intptr_t)c;
        in.op = OP_TRAP;
    }
    p->line = saved;
    free(text);
    if (p->rc) {
        return p->rc; /* out of memory in decode or in recording why */
    }
    return add_insn(p, k, &in, l);
}

/* A { } block closes: its registers and variables (a call's .param)
 * leave scope, and the registers' slots are free for the next block's
 * (inline asm blocks declare the same names each). */
static void close_block(struct ptx_parse *p)
{
    while (p->n_regs && p->regs[p->n_regs - 1].depth >= p->depth) {
        free(p->regs[--p->n_regs].name);
    }
    while (p->n_ksyms && p->ksyms[p->n_ksyms - 1].depth >= p->depth) {
        free(p->ksyms[--p->n_ksyms].name);
    }
    p->next_slot = SR_COUNT;
    if (p->n_regs) {
        const struct reg_decl *r = &p->regs[p->n_regs - 1];
        p->next_slot = r->base + (r->count ? r->count : 1);
    }
    p->depth--;
}

int ptx__parse_body(struct ptx_parse *p, struct ptx_kernel *k)
{
    long depth = 0;
    char w[256], c[32];
    if (!ptx__accept(p, '{')) {
        return ptx__fail_at(p, here(p), PTX_EPARSE,
                            "'{' expected for kernel %s", k->info.name);
    }
    depth = 1;
    p->depth = 1;
    for (;;) {
        ptx__skip_ws(p);
        if (p->rc) {
            return p->rc;
        }
        struct loc l = here(p);
        if (p->s >= p->end) {
            return ptx__fail_at(p, l, PTX_EPARSE,
                                "end of text inside kernel %s", k->info.name);
        }
        if (ptx__accept(p, '{')) {
            depth++;
            p->depth = depth;
            continue;
        }
        if (ptx__accept(p, '}')) {
            if (--depth == 0) {
                return 0;
            }
            close_block(p);
            continue;
        }
        int guard = -1;
        bool neg = false;
        if (ptx__accept(p, '@')) {
            neg = ptx__accept(p, '!');
            ptx__read_word(p, w, sizeof(w));
            guard = ptx_parse_reg(p, w);
            if (guard < 0) {
                ptx__unsupported(p, l.line, "unknown guard predicate '%s'", w);
            }
        }
        if (!ptx__read_word(p, w, sizeof(w))) {
            ptx__unsupported(p, l.line, "unexpected %s",
                             ptx__char_text(p, c, sizeof(c)));
            ptx__skip_statement(p);
            continue;
        }
        int rc = 0;
        if (guard < 0 && !neg && ptx__peek(p, ':') && w[0] != '.') {
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
        } else if (strcmp(w, ".param") == 0) {
            /* a call's argument or return value: in the lane's .local
             * frame, as a called function's parameters (parse_call.c) */
            rc = declare_kernel_var(p, k, PS_LOCAL);
        } else if (strcmp(w, ".pragma") == 0 ||
                   strcmp(w, ".callprototype") == 0 ||
                   strcmp(w, ".calltargets") == 0) {
            /* an indirect call's signature or targets, under a label the
             * call names: the call goes by its register (parse_call.c) */
            ptx__skip_statement(p);
        } else if (strcmp(w, ".loc") == 0) {
            ptx__skip_line(p); /* .loc ends at the newline, without ';' */
        } else if (w[0] == '.') {
            ptx__unsupported(p, l.line, "unsupported directive '%s'", w);
            ptx__skip_statement(p);
        } else {
            rc = parse_insn(p, k, w, guard, neg, l);
        }
        if (rc) {
            return rc;
        }
    }
}
