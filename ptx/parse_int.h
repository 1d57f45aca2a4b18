/*
 * ptx/parse_int.h - the parser's state and helpers shared by its files:
 * parse.c (the module: header directives, .entry signatures, the
 * public module calls), parse_decl.c (symbols, registers, labels,
 * declarations and module variables), parse_body.c (kernel bodies and
 * instruction statements, each handed to decode.c) and parse_lex.c
 * (errors, growing arrays, lexing).
 *
 * Error discipline: a module error (ptx__fail_at) is the first one and
 * stops the parse; an unsupported construct (ptx__unsupported) is
 * recorded against the kernel being parsed and parsing goes on.
 */
#ifndef P2PSIM_PTX_PARSE_INT_H
#define P2PSIM_PTX_PARSE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptx/ptx.h"
#include "ptx/ptx_int.h"

/* A register declaration: "%r<64>" (count 64) or "%SP" (count 0). */
struct reg_decl {
    char *name;
    unsigned base;
    unsigned count;
    long depth;     /* of the { } block that declared it (1: the body) */
};

/* A named address in a kernel or module. */
struct sym {
    char *name;
    enum ptx_space space;
    int64_t offset;  /* param/shared/local offset */
    int var;         /* module variable, or PTX_NOVAR */
    bool dyn_shared; /* extern .shared: offset decided per kernel */
    bool lazy_shared; /* module .shared: placed per kernel at first use */
    uint32_t align;  /* a lazy_shared one's alignment (its size: bytes) */
    long depth;      /* of the { } block that declared it (0: params) */
    uint64_t bytes;  /* a .param or .local of a body: its size */
};

/* A .func of the module: where its text starts (after ".func"), for the
 * kernels that call it to parse it into themselves (parse_call.c). */
struct func_decl {
    char *name;
    const char *at;
    unsigned line;
    bool body;
    bool addr_taken; /* named as a value: an indirect call may reach it */
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

    struct func_decl *funcs;
    unsigned n_funcs, cap_funcs;

    /* the kernel being parsed */
    struct ptx_kernel *k;
    struct reg_decl *regs;      /* in scope, in declaration order */
    unsigned n_regs, cap_regs;
    unsigned next_slot;         /* the first slot no register in scope has */
    long depth;                 /* of the block being parsed */
    struct sym *ksyms;
    unsigned n_ksyms, cap_ksyms;
    struct label *labels;
    unsigned n_labels, cap_labels;
    uint32_t shared_bytes;
    bool dyn_shared_used;
    /* where each kernel put the module .shared variables it uses: a
     * kernel's static shared memory holds those alone, at offsets of its
     * own (its functions, linked into it, share them) */
    struct shared_place {
        const struct ptx_kernel *k;
        unsigned sym;           /* index in msyms */
        uint32_t offset;
    } *places;
    unsigned n_places, cap_places;
};

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

static inline struct loc here(struct ptx_parse *p)
{
    struct loc l = {p->line, p->s};
    return l;
}

/* v rounded up to a multiple of a (a power of two <= PTX_ALIGN_MAX, so
 * with v below 2^40 nothing overflows). */
static inline uint64_t align_up(uint64_t v, uint32_t a)
{
    return a ? (v + a - 1) / a * a : v;
}

/* ---- parse_lex.c: errors, arrays, lexing ---- */

/* Make room for one more element in *arrp (n used of *cap); false when
 * out of memory or the count would overflow (the array is unchanged). */
bool ptx__grow_array(void *arrp, unsigned *cap, size_t elem);

/* True when arr has room for element n (growing it if needed). */
#define GROW(arr, n, cap)                                                   \
    ((n) < (cap) || ptx__grow_array((void *)&(arr), &(cap), sizeof(*(arr))))

/* A module error at l: "PTX line L:C: ..."; the first one wins and stops
 * the parse. Returns code. */
int ptx__fail_at(struct ptx_parse *p, struct loc l, int code,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* An owned copy of s[0..n) that lives as long as the module; NULL (and
 * the parse failed) when out of memory. */
char *ptx__mod_strdup(struct ptx_parse *p, const char *s, size_t n);
/* Record the first unsupported construct of the kernel being parsed. */
void ptx__unsupported(struct ptx_parse *p, unsigned line, const char *fmt,
                      ...) __attribute__((format(printf, 3, 4)));

/* Lexing; nothing reads at or beyond p->end. */
void ptx__skip_ws(struct ptx_parse *p);
size_t ptx__scan_word(struct ptx_parse *p, const char **start);
size_t ptx__read_word(struct ptx_parse *p, char *buf, size_t cap);
const char *ptx__char_text(struct ptx_parse *p, char *buf, size_t cap);
bool ptx__peek(struct ptx_parse *p, char c);
bool ptx__accept(struct ptx_parse *p, char c);
void ptx__skip_statement(struct ptx_parse *p);
void ptx__skip_line(struct ptx_parse *p);
void ptx__skip_block(struct ptx_parse *p);
int ptx__read_uint(struct ptx_parse *p, unsigned long long *v,
                   const char *what);

/* ---- parse_decl.c: symbols and declarations ---- */

int ptx__add_sym(struct ptx_parse *p, struct sym **v, unsigned *n,
                 unsigned *cap, const char *name, enum ptx_space space,
                 int64_t offset, int var);
int ptx__read_decl(struct ptx_parse *p, struct decl *d);
int ptx__place_var(struct ptx_parse *p, const struct decl *d,
                   uint32_t *total, uint32_t max, const char *space,
                   uint32_t *offset);
/* Module-scope .global/.const/.shared variable; the space word is read
 * (at l). */
int ptx__parse_module_var(struct ptx_parse *p, enum ptx_space space,
                          bool is_extern, struct loc l);

/* ---- parse_call.c: device functions and calls ---- */

/* A .func at module scope (".func" read): recorded, its text skipped. */
int ptx__module_func(struct ptx_parse *p);
/* Parse the functions each kernel calls into it (after the module). */
int ptx__link_calls(struct ptx_parse *p);
/* Skip from '(' to past the next ')' (parse.c). */
void ptx__skip_parens(struct ptx_parse *p);
/* Skip a .func's signature and body (parse.c). */
void ptx__skip_func(struct ptx_parse *p);
/* Free the parser's function table. */
void ptx__funcs_free(struct ptx_parse *p);
/* Resolve the labels of k's instructions from insn from on. */
void ptx__resolve_labels(struct ptx_parse *p, struct ptx_kernel *k,
                         unsigned from);
void ptx__kernel_reset_scope(struct ptx_parse *p);
/* What parse_entry does once a body (and what it calls) is in: info. */
void ptx__kernel_finish(struct ptx_parse *p, struct ptx_kernel *k);

/* ---- parse_body.c ---- */

/* A kernel's body, from its '{' to the matching '}'. */
int ptx__parse_body(struct ptx_parse *p, struct ptx_kernel *k);

#endif /* P2PSIM_PTX_PARSE_INT_H */
