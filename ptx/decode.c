/*
 * ptx/decode.c - one PTX instruction (opcode with its modifiers, and
 * operand texts) into a struct ptx_insn the interpreter runs.
 *
 * Everything decided once is decided here: the opcode, types, state
 * space, memory semantics and scope, vector width, comparison, rounding,
 * operand kinds (register slot, immediate bits in the instruction's
 * type, address), so the interpreter never looks at text. A form
 * outside the supported subset (docs/ptx.md) is refused with a reason;
 * parse_body.c records it against the kernel with the line. Running out
 * of memory is not such a reason: it fails the whole parse
 * (ptx_parse_nomem), and ptx_module_parse() returns PTX_ENOMEM.
 */
#include <config.h>

#include "ptx/ptx.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx_int.h"
#include "ptx/tex_int.h"
#include "ptx/wmma_int.h"

static const struct {
    const char *name;
    enum ptx_type t;
    unsigned bytes;
} type_table[] = {
    {"pred", PT_PRED, 1}, {"b8", PT_B8, 1},   {"b16", PT_B16, 2},
    {"b32", PT_B32, 4},   {"b64", PT_B64, 8}, {"u8", PT_U8, 1},
    {"u16", PT_U16, 2},   {"u32", PT_U32, 4}, {"u64", PT_U64, 8},
    {"s8", PT_S8, 1},     {"s16", PT_S16, 2}, {"s32", PT_S32, 4},
    {"s64", PT_S64, 8},   {"f16", PT_F16, 2}, {"f32", PT_F32, 4},
    {"f16x2", PT_F16X2, 4},
    {"f64", PT_F64, 8},
};

enum ptx_type ptx_type_from_name(const char *s)
{
    for (size_t i = 0; i < sizeof(type_table) / sizeof(type_table[0]); i++) {
        if (strcmp(s, type_table[i].name) == 0) {
            return type_table[i].t;
        }
    }
    return PT_NONE;
}

unsigned ptx_type_bytes(enum ptx_type t)
{
    static const unsigned char bytes[PT_COUNT] = {
        [PT_PRED] = 1, [PT_B8] = 1,  [PT_B16] = 2, [PT_B32] = 4,
        [PT_B64] = 8,  [PT_U8] = 1,  [PT_U16] = 2, [PT_U32] = 4,
        [PT_U64] = 8,  [PT_S8] = 1,  [PT_S16] = 2, [PT_S32] = 4,
        [PT_S64] = 8,  [PT_F16] = 2, [PT_F32] = 4, [PT_F64] = 8,
        [PT_F16X2] = 4,
    };
    return (unsigned)t < PT_COUNT ? bytes[t] : 0;
}

static const struct {
    const char *name;
    enum ptx_opcode op;
} op_table[] = {
    {"mov", OP_MOV},       {"ld", OP_LD},         {"ldu", OP_LD},
    {"st", OP_ST},         {"cvta", OP_CVTA},     {"cvt", OP_CVT},
    {"add", OP_ADD},       {"sub", OP_SUB},       {"mul", OP_MUL},
    {"mad", OP_MAD},       {"div", OP_DIV},       {"rem", OP_REM},
    {"mul24", OP_MUL},     {"mad24", OP_MAD},
    {"min", OP_MIN},       {"max", OP_MAX},       {"abs", OP_ABS},
    {"neg", OP_NEG},       {"and", OP_AND},       {"or", OP_OR},
    {"xor", OP_XOR},       {"not", OP_NOT},       {"cnot", OP_CNOT},
    {"shl", OP_SHL},       {"shr", OP_SHR},       {"fma", OP_FMA},
    {"rcp", OP_RCP},       {"sqrt", OP_SQRT},     {"rsqrt", OP_RSQRT},
    {"ex2", OP_EX2},       {"lg2", OP_LG2},       {"sin", OP_SIN},
    {"cos", OP_COS},       {"copysign", OP_COPYSIGN},
    {"popc", OP_POPC},     {"clz", OP_CLZ},       {"brev", OP_BREV},
    {"bfe", OP_BFE},       {"bfi", OP_BFI},       {"prmt", OP_PRMT},
    {"setp", OP_SETP},     {"selp", OP_SELP},     {"bra", OP_BRA},
    {"ret", OP_RET},       {"exit", OP_EXIT},     {"trap", OP_TRAP},
    {"atom", OP_ATOM},     {"red", OP_RED},       {"membar", OP_MEMBAR},
    {"fence", OP_FENCE},   {"bar", OP_BAR},       {"barrier", OP_BAR},
    {"shfl", OP_SHFL},     {"vote", OP_VOTE},
    {"activemask", OP_ACTIVEMASK}, {"bfind", OP_BFIND},
    {"bmsk", OP_BMSK},     {"match", OP_MATCH},   {"shf", OP_SHF},
    {"nanosleep", OP_NANOSLEEP}, {"vabsdiff4", OP_VABSDIFF4},
};

static const char *const cmp_names[] = {
    "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
    "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
};

static const char *const atom_names[] = {
    "", "add", "sub", "exch", "cas", "min", "max", "inc", "dec",
    "and", "or", "xor",
};

static int name_index(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(names[i], s) == 0) {
            return (int)i;
        }
    }
    return -1;
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static bool is_float(enum ptx_type t)
{
    return t == PT_F32 || t == PT_F64 || t == PT_F16;
}

/* ---------------------------------------------------------------------- */
/* Operands                                                                */
/* ---------------------------------------------------------------------- */

/* An immediate's raw bits in type t: "0f3F800000", "0d3FF0...", "-4",
 * "0x10", "1.5". */
/* The value d as an immediate of float type t: f32 bits, else f64 bits. */
static void imm_float(enum ptx_type t, double d, int64_t *out)
{
    if (t == PT_F32) {
        float f = (float)d;
        uint32_t b32;
        memcpy(&b32, &f, 4);
        *out = b32;
    } else {
        memcpy(out, &d, 8);
    }
}

static int parse_imm(const char *s, enum ptx_type t, int64_t *out)
{
    bool neg = false;
    if (*s == '-') {
        neg = true;
        s++;
    }
    char *e;
    if (s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
        uint32_t bits = (uint32_t)strtoul(s + 2, &e, 16);
        float f;
        memcpy(&f, &bits, 4);
        if (neg) {
            f = -f;
        }
        if (t == PT_F64) {
            double d = f;
            memcpy(out, &d, 8);
        } else {
            memcpy(&bits, &f, 4);
            *out = bits;
        }
    } else if (s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
        uint64_t bits = strtoull(s + 2, &e, 16);
        double d;
        memcpy(&d, &bits, 8);
        if (neg) {
            d = -d;
        }
        imm_float(t, d, out);
    } else if (isdigit((unsigned char)s[0])) {
        bool fl = is_float(t) && strpbrk(s, ".eE") && !strchr(s, 'x');
        if (fl) {
            double d = strtod(s, &e);
            if (neg) {
                d = -d;
            }
            imm_float(t, d, out);
        } else {
            uint64_t v = strtoull(s, &e, 0);
            if (*e == 'U' || *e == 'u') {
                e++;
            }
            *out = (int64_t)(neg ? -v : v);
            if (is_float(t)) {
                /* An integer literal in a float instruction: its value. */
                double d = neg ? -(double)v : (double)v;
                imm_float(t, d, out);
            }
        }
    } else {
        return -1;
    }
    return *e == '\0' ? 0 : -1;
}

static int parse_opd(struct ptx_parse *p, const char *s, enum ptx_type t,
                     struct ptx_opd *o, char *why, size_t wl);

/* "[base+off]" */
static int parse_mem(struct ptx_parse *p, const char *s, struct ptx_opd *o,
                     enum ptx_space *sym_space, char *why, size_t wl)
{
    size_t n = strlen(s);
    if (n < 2 || s[n - 1] != ']') {
        snprintf(why, wl, "malformed address '%s'", s);
        return -1;
    }
    char *buf = malloc(n - 1); /* a symbol name may be long */
    if (!buf) {
        return ptx_parse_nomem(p);
    }
    memcpy(buf, s + 1, n - 2);
    buf[n - 2] = '\0';
    o->kind = OPD_MEM;
    o->reg = PTX_NOREG;
    o->var = PTX_NOVAR;
    o->imm = 0;
    *sym_space = PS_GENERIC;
    /* the offset's sign is past the first character (a base "-1" is a
     * malformed address below, not an offset) */
    char *plus = buf[0] ? strchr(buf + 1, '+') : NULL;
    char *minus = NULL;
    if (!plus && buf[0]) {
        minus = strchr(buf + 1, '-');
    }
    char *off = NULL;
    if (plus) {
        *plus = '\0';
        off = plus + 1;
    } else if (minus) {
        *minus = '\0';
        off = minus + 1; /* negated below */
    }
    char *base = buf;
    while (isspace((unsigned char)*base)) {
        base++;
    }
    char *e = base + strlen(base);
    while (e > base && isspace((unsigned char)e[-1])) {
        *--e = '\0';
    }
    int rc = 0;
    int breg = ptx_parse_reg(p, base);
    if (base[0] == '%' || breg >= 0) {
        int r = breg;
        if (r < 0) {
            snprintf(why, wl, "unknown register '%s'", base);
            rc = -1;
        }
        o->reg = (uint16_t)r;
    } else if (isdigit((unsigned char)base[0])) {
        if (parse_imm(base, PT_U64, &o->imm)) {
            snprintf(why, wl, "malformed address '%s'", s);
            rc = -1;
        }
    } else {
        int var;
        if (ptx_parse_sym(p, base, sym_space, &o->imm, &var)) {
            snprintf(why, wl, "unknown symbol '%s'", base);
            rc = -1;
        }
        o->var = var;
    }
    if (rc == 0 && off) {
        while (isspace((unsigned char)*off)) {
            off++;
        }
        int64_t v;
        if (parse_imm(off, PT_S64, &v)) {
            snprintf(why, wl, "malformed offset in '%s'", s);
            rc = -1;
        } else {
            /* wraps as the address arithmetic does, without overflow */
            uint64_t d = minus ? 0 - (uint64_t)v : (uint64_t)v;
            o->imm = (int64_t)((uint64_t)o->imm + d);
        }
    }
    free(buf);
    return rc;
}

static int parse_opd(struct ptx_parse *p, const char *s, enum ptx_type t,
                     struct ptx_opd *o, char *why, size_t wl)
{
    memset(o, 0, sizeof(*o));
    o->var = PTX_NOVAR;
    if (strcmp(s, "_") == 0) {
        o->kind = OPD_SINK;
        return 0;
    }
    if (s[0] == '{') {
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", s + 1);
        char *close = strchr(buf, '}');
        if (!close) {
            snprintf(why, wl, "malformed vector '%s'", s);
            return -1;
        }
        *close = '\0';
        o->kind = OPD_VEC;
        char *save = NULL;
        for (char *tok = strtok_r(buf, ", \t", &save); tok;
             tok = strtok_r(NULL, ", \t", &save)) {
            if (o->n == 4) {
                snprintf(why, wl, "vectors of more than 4");
                return -1;
            }
            int r = strcmp(tok, "_") == 0 ? (int)PTX_NOREG
                                          : ptx_parse_reg(p, tok);
            if (r < 0) {
                snprintf(why, wl, "unknown register '%s'", tok);
                return -1;
            }
            o->vregs[o->n++] = (uint16_t)r;
        }
        if (o->n == 0) {
            snprintf(why, wl, "empty vector '%s'", s);
            return -1;
        }
        return 0;
    }
    if (s[0] == '[') {
        enum ptx_space sp;
        return parse_mem(p, s, o, &sp, why, wl);
    }
    if (s[0] == '!') {
        o->neg = 1;
        s++;
    }
    if (s[0] == '%') {
        /* the time registers: enum ptx_time_sreg, and which 32 bits */
        static const struct {
            const char *name;
            enum ptx_time_sreg which;
            unsigned part;
        } times[] = {
            {"%clock", PTX_SREG_CLOCK, OPD_TIME_LO},
            {"%clock64", PTX_SREG_CLOCK64, OPD_TIME_ALL},
            {"%clock_hi", PTX_SREG_CLOCK64, OPD_TIME_HI},
            {"%globaltimer", PTX_SREG_GLOBALTIMER, OPD_TIME_ALL},
            {"%globaltimer_lo", PTX_SREG_GLOBALTIMER, OPD_TIME_LO},
            {"%globaltimer_hi", PTX_SREG_GLOBALTIMER, OPD_TIME_HI},
        };
        for (size_t i = 0; i < N_OF(times); i++) {
            if (strcmp(s, times[i].name) == 0) {
                o->kind = OPD_TIME;
                o->imm = (int64_t)times[i].which | times[i].part;
                return 0;
            }
        }
        int r = ptx_parse_reg(p, s);
        if (r < 0) {
            snprintf(why, wl, "unknown register '%s'", s);
            return -1;
        }
        o->kind = OPD_REG;
        o->reg = (uint16_t)r;
        return 0;
    }
    if (strcmp(s, "WARP_SZ") == 0) {
        /* the one predefined constant: the warp size, an immediate of
         * the instruction's type */
        o->kind = OPD_IMM;
        return parse_imm("32", t, &o->imm);
    }
    if (isdigit((unsigned char)s[0]) || s[0] == '-') {
        o->kind = OPD_IMM;
        if (parse_imm(s, t, &o->imm)) {
            snprintf(why, wl, "malformed immediate '%s'", s);
            return -1;
        }
        return 0;
    }
    /* A register of a name without '%' (inline asm), else a symbol: its
     * address (a module variable's is known at run time). */
    int r = ptx_parse_reg(p, s);
    if (r >= 0) {
        o->kind = OPD_REG;
        o->reg = (uint16_t)r;
        return 0;
    }
    return ptx__sym_operand(p, s, o, why, wl);
}

/* ---------------------------------------------------------------------- */
/* Modifiers                                                               */
/* ---------------------------------------------------------------------- */

struct mods {
    enum ptx_type types[3];
    unsigned n_types;
    bool have_space, have_sem, have_scope;
};

/* Modifiers common to many instructions; returns false if unknown. */
static bool common_mod(struct ptx_insn *in, struct mods *m, const char *s)
{
    enum ptx_type t = ptx_type_from_name(s);
    if (t != PT_NONE) {
        if (m->n_types < 3) {
            m->types[m->n_types++] = t;
        }
        return true;
    }
    static const char *const spaces[] = {"", "global", "shared", "local",
                                         "param", "const"};
    int i = name_index(spaces, N_OF(spaces), s);
    if (i > 0 || strcmp(s, "shared::cta") == 0) {
        in->space = (uint8_t)(i > 0 ? i : PS_SHARED);
        m->have_space = true;
        return true;
    }
    static const char *const sems[] = {"", "volatile", "relaxed", "acquire",
                                       "release", "acq_rel", "sc"};
    i = name_index(sems, N_OF(sems), s);
    if (i > 0) {
        in->sem = (uint8_t)i;
        m->have_sem = true;
        return true;
    }
    static const char *const scopes[] = {"cta", "gpu", "sys"};
    i = name_index(scopes, N_OF(scopes), s);
    if (i >= 0) {
        in->scope = (uint8_t)i;
        m->have_scope = true;
        return true;
    }
    static const char *const rnds[] = {"", "rn", "rz", "rm", "rp"};
    static const char *const rndis[] = {"", "rni", "rzi", "rmi", "rpi"};
    if ((i = name_index(rnds, N_OF(rnds), s)) > 0) {
        in->rnd = (uint8_t)i;
        return true;
    }
    if ((i = name_index(rndis, N_OF(rndis), s)) > 0) {
        in->rnd = (uint8_t)i;
        in->flags |= PIF_RNDI;
        return true;
    }
    if (strcmp(s, "v2") == 0 || strcmp(s, "v4") == 0) {
        in->vec = (uint8_t)(s[1] - '0');
        return true;
    }
    static const char *const ignored[] = {
        "approx", "full", "ca", "cg", "cs", "lu", "cv", "wb", "wt",
        "aligned", "sync", "lo", "L1::evict_normal", "L1::evict_unchanged",
        "L1::evict_first", "L1::evict_last", "L1::no_allocate",
        "L2::64B", "L2::128B", "L2::256B", "L2::evict_normal",
        "L2::evict_first", "L2::evict_last",
    };
    if (name_index(ignored, N_OF(ignored), s) >= 0) {
        return true;
    }
    struct {
        const char *n;
        uint16_t f;
    } flags[] = {{"sat", PIF_SAT}, {"hi", PIF_HI},   {"wide", PIF_WIDE},
                 {"to", PIF_TO},   {"nc", PIF_NC},   {"uni", PIF_UNI},
                 {"ftz", PIF_FTZ}};
    for (size_t k = 0; k < N_OF(flags); k++) {
        if (strcmp(s, flags[k].n) == 0) {
            in->flags |= flags[k].f;
            return true;
        }
    }
    return false;
}

static int expect_n(unsigned n, unsigned lo, unsigned hi, char *why,
                    size_t wl)
{
    if (n < lo || n > hi) {
        snprintf(why, wl, "%u operands", n);
        return -1;
    }
    return 0;
}

/* Decode operands o[first..] of plain register/immediate kind. */
static int opds_of(struct ptx_parse *p, struct ptx_insn *in, char **opds,
                   unsigned n, enum ptx_type t, char *why, size_t wl)
{
    for (unsigned i = 0; i < n; i++) {
        if (parse_opd(p, opds[i], t, &in->o[i], why, wl)) {
            return -1;
        }
    }
    in->n_opds = (uint8_t)n;
    return 0;
}

/* "%r1|%p2": a value destination and a predicate destination. */
static int split_pair(struct ptx_parse *p, struct ptx_insn *in,
                      const char *s, char *why, size_t wl)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", s);
    char *bar = strchr(buf, '|');
    if (bar) {
        *bar = '\0';
    }
    if (parse_opd(p, buf, in->type, &in->o[0], why, wl)) {
        return -1;
    }
    if (bar) {
        return parse_opd(p, bar + 1, PT_PRED, &in->o[1], why, wl);
    }
    in->o[1].kind = OPD_NONE;
    return 0;
}

static int decode_mem(struct ptx_parse *p, struct ptx_insn *in,
                      char **opds, unsigned n, char *why, size_t wl)
{
    if (expect_n(n, 2, 2, why, wl)) {
        return -1;
    }
    int mi = in->op == OP_ST ? 0 : 1;
    int vi = 1 - mi;
    enum ptx_space sym_space;
    if (opds[mi][0] != '[' ||
        parse_mem(p, opds[mi], &in->o[mi], &sym_space, why, wl)) {
        if (!why[0]) {
            snprintf(why, wl, "address expected");
        }
        return -1;
    }
    if (parse_opd(p, opds[vi], in->type, &in->o[vi], why, wl)) {
        return -1;
    }
    in->n_opds = 2;
    if (in->vec > 1 && (in->o[vi].kind != OPD_VEC || in->o[vi].n != in->vec)) {
        snprintf(why, wl, "vector operand expected");
        return -1;
    }
    if (in->space == PS_GENERIC && sym_space != PS_GENERIC &&
        in->o[mi].reg == PTX_NOREG) {
        in->space = (uint8_t)sym_space; /* ld [param_sym]: that space */
    }
    if (in->space == PS_PARAM && sym_space == PS_LOCAL) {
        in->space = PS_LOCAL; /* a call's or a function's .param */
    }
    if (in->op == OP_ST && in->space == PS_PARAM) {
        snprintf(why, wl, "st.param to a kernel parameter");
        return -1;
    }
    /* Model: ld.const leaves as a global load at the variable's (or the
     * register's) address, marked req.constant. */
    return 0;
}

static int decode_atom(struct ptx_parse *p, struct ptx_insn *in,
                       char **opds, unsigned n, char *why, size_t wl)
{
    bool red = in->op == OP_RED;
    unsigned need = (red ? 2 : 3) + (in->mode == PTX_ATOM_CAS);
    if (in->mode == PTX_ATOM_NONE || expect_n(n, need, need, why, wl)) {
        if (!why[0]) {
            snprintf(why, wl, "no atomic operation");
        }
        return -1;
    }
    enum ptx_type t = in->type;
    if (t == PT_F16 || t == PT_B8 || t == PT_B16 || t == PT_U16 ||
        t == PT_S16 || t == PT_U8 || t == PT_S8) {
        snprintf(why, wl, "atomic type");
        return -1;
    }
    unsigned mi = red ? 0 : 1;
    enum ptx_space sym_space;
    if (!red && parse_opd(p, opds[0], t, &in->o[0], why, wl)) {
        return -1;
    }
    if (opds[mi][0] != '[' ||
        parse_mem(p, opds[mi], &in->o[mi], &sym_space, why, wl)) {
        return -1;
    }
    for (unsigned i = mi + 1; i < n; i++) {
        if (parse_opd(p, opds[i], t, &in->o[i], why, wl)) {
            return -1;
        }
    }
    in->n_opds = (uint8_t)n;
    if (in->space == PS_GENERIC && sym_space != PS_GENERIC &&
        in->o[mi].reg == PTX_NOREG) {
        in->space = (uint8_t)sym_space;
    }
    if (!in->sem) {
        in->sem = PTX_SEM_RELAXED;
    }
    return 0;
}

/* Defaults that depend on which modifiers were given. */
static void finish_mem_defaults(struct ptx_insn *in, const struct mods *m)
{
    if (!m->have_scope) {
        /* atomics and relaxed/acquire/release default to .gpu; a
         * volatile access behaves as relaxed.sys (PTX ISA, memory
         * consistency model) */
        in->scope = in->sem == PTX_SEM_VOLATILE ? PTX_SCOPE_SYS
                                                : PTX_SCOPE_GPU;
    }
}

int ptx_decode(struct ptx_parse *p, const char *opcode, char **opds,
               unsigned n, struct ptx_insn *in, char *why, size_t wl)
{
    if (ptx__is_tex_opcode(opcode)) {
        return ptx__decode_tex(p, opcode, opds, n, in, why, wl);
    }
    if (strncmp(opcode, "wmma.", 5) == 0) {
        return ptx__decode_wmma(p, opcode, opds, n, in, why, wl);
    }
    char buf[128];
    char *parts[16];
    unsigned np = ptx__split_opcode(opcode, buf, sizeof(buf), parts, 16);
    /* "L2::cache_hint" etc. contain no '.', so they stay single parts */
    int opi = -1;
    for (size_t i = 0; np && i < N_OF(op_table); i++) {
        if (strcmp(parts[0], op_table[i].name) == 0) {
            opi = (int)i;
            break;
        }
    }
    if (opi < 0 && np && strcmp(parts[0], "call") == 0) {
        return ptx__decode_call(p, opds, n, in, why, wl);
    }
    if (opi < 0) {
        snprintf(why, wl, "no such instruction in the interpreted subset");
        return -1;
    }
    in->op = (uint8_t)op_table[opi].op;
    in->vec = 1;
    in->flags = strcmp(parts[0], "mul24") == 0 || strcmp(parts[0], "mad24") == 0
                    ? PIF_24
                    : 0;
    struct mods m;
    memset(&m, 0, sizeof(m));
    bool warp_bar = false, bmsk_mode = false, bar_red = false;
    for (unsigned i = 1; i < np; i++) {
        const char *s = parts[i];
        int k;
        if (in->op == OP_SETP &&
            (k = name_index(cmp_names, N_OF(cmp_names), s)) >= 0) {
            in->cmp = (uint8_t)k;
        } else if (in->op == OP_SETP && (strcmp(s, "and") == 0 ||
                                          strcmp(s, "or") == 0 ||
                                          strcmp(s, "xor") == 0)) {
            in->boolop = s[0] == 'a' ? 1 : s[0] == 'o' ? 2 : 3;
        } else if ((in->op == OP_ATOM || in->op == OP_RED) &&
                   (k = name_index(atom_names, N_OF(atom_names), s)) > 0) {
            in->mode = (uint8_t)k;
        } else if (in->op == OP_SHFL &&
                   (k = name_index((const char *const[]){"up", "down",
                                                         "bfly", "idx"},
                                   4, s)) >= 0) {
            in->mode = (uint8_t)k;
        } else if (in->op == OP_VOTE &&
                   (k = name_index((const char *const[]){"any", "all",
                                                         "uni", "ballot"},
                                   4, s)) >= 0) {
            in->mode = (uint8_t)k;
        } else if (in->op == OP_BAR && strcmp(s, "sync") == 0) {
            in->flags |= PIF_WAIT;
        } else if (in->op == OP_BAR && i == 1 && strcmp(s, "warp") == 0) {
            warp_bar = true;
        } else if (in->op == OP_MATCH &&
                   (k = name_index((const char *const[]){"any", "all"}, 2,
                                   s)) >= 0) {
            in->mode = (uint8_t)k;
        } else if (in->op == OP_VABSDIFF4 && strcmp(s, "add") == 0) {
            in->mode = 1;
        } else if (in->op == OP_BFIND && strcmp(s, "shiftamt") == 0) {
            in->flags |= PIF_SHIFTAMT;
        } else if ((in->op == OP_BMSK || in->op == OP_SHF) &&
                   (strcmp(s, "clamp") == 0 || strcmp(s, "wrap") == 0)) {
            in->flags |= s[0] == 'w' ? PIF_WRAP : 0;
            bmsk_mode = true;
        } else if (in->op == OP_SHF && (s[0] == 'l' || s[0] == 'r') && !s[1]) {
            in->mode = s[0] == 'r'; /* shf.r */
        } else if (in->op == OP_BAR && strcmp(s, "red") == 0) {
            bar_red = true;
        } else if (in->op == OP_BAR && bar_red &&
                   (k = name_index((const char *const[]){"", "popc", "and",
                                                         "or"},
                                   4, s)) > 0) {
            in->mode = (uint8_t)k;
        } else if (in->op == OP_BAR && strcmp(s, "arrive") == 0) {
        } else if (in->op == OP_MEMBAR && strcmp(s, "gl") == 0) {
            in->scope = PTX_SCOPE_GPU;
            m.have_scope = true;
        } else if (!common_mod(in, &m, s)) {
            snprintf(why, wl, "modifier '.%s'", s);
            return -1;
        }
    }
    in->type = m.n_types ? (uint8_t)m.types[0] : PT_NONE;
    bool half = in->type == PT_F16 || in->type == PT_F16X2 ||
                (m.n_types > 1 && (m.types[1] == PT_F16 ||
                                   m.types[1] == PT_F16X2));
    /* half precision: conversions, moves, loads and stores, and the
     * arithmetic of interp_f16.c */
    if (half && !(in->op == OP_CVT && in->type != PT_F16X2 &&
                  (m.n_types < 2 || m.types[1] != PT_F16X2)) &&
        in->op != OP_MOV && in->op != OP_LD && in->op != OP_ST &&
        in->op != OP_ADD && in->op != OP_SUB && in->op != OP_MUL &&
        in->op != OP_FMA && in->op != OP_MIN && in->op != OP_MAX &&
        in->op != OP_NEG && in->op != OP_ABS) {
        snprintf(why, wl, "f16 arithmetic of this kind");
        return -1;
    }

    switch (in->op) {
    case OP_LD:
    case OP_ST:
        if (parts[0][0] == 'l' && parts[0][2] == 'u') {
            in->flags |= PIF_NC; /* ldu: a uniform read-only load */
        }
        finish_mem_defaults(in, &m);
        return decode_mem(p, in, opds, n, why, wl);
    case OP_ATOM:
    case OP_RED:
        if (in->sem == PTX_SEM_VOLATILE || in->sem == PTX_SEM_SC) {
            snprintf(why, wl, "atomic semantics");
            return -1;
        }
        finish_mem_defaults(in, &m);
        return decode_atom(p, in, opds, n, why, wl);
    case OP_MEMBAR:
        in->sem = PTX_SEM_SC;
        if (!m.have_scope) {
            snprintf(why, wl, "membar level");
            return -1;
        }
        return expect_n(n, 0, 0, why, wl);
    case OP_FENCE:
        if (!m.have_sem) {
            in->sem = PTX_SEM_ACQ_REL;
        }
        if (!m.have_scope) {
            snprintf(why, wl, "fence scope");
            return -1;
        }
        return expect_n(n, 0, 0, why, wl);
    case OP_BAR:
        if (warp_bar) {
            /* bar.warp.sync membermask (__syncwarp): nothing to do but
             * wait for the lanes of the mask (interp.c, sync_arrive) */
            if (!(in->flags & PIF_WAIT) || expect_n(n, 1, 1, why, wl)) {
                if (!why[0]) {
                    snprintf(why, wl, "bar.warp without .sync");
                }
                return -1;
            }
            in->op = OP_NOP;
            in->mode = PTX_NOP_WARP_SYNC;
            return opds_of(p, in, opds, n, PT_B32, why, wl);
        }
        if (bar_red) {
            /* bar.red.popc.u32 d, a{, b}, {!}c; bar.red.and/or.pred */
            if ((in->mode == PTX_BAR_RED_POPC) != (in->type == PT_U32) ||
                (in->mode != PTX_BAR_RED_POPC && in->type != PT_PRED) ||
                !in->mode || expect_n(n, 3, 4, why, wl)) {
                if (!why[0]) {
                    snprintf(why, wl, "bar.red form");
                }
                return -1;
            }
            in->flags |= PIF_WAIT;
            if (parse_opd(p, opds[0], in->type, &in->o[0], why, wl) ||
                parse_opd(p, opds[1], PT_U32, &in->o[1], why, wl) ||
                (n == 4 && parse_opd(p, opds[2], PT_U32, &in->o[2], why,
                                     wl)) ||
                parse_opd(p, opds[n - 1], PT_PRED, &in->o[3], why, wl)) {
                return -1;
            }
            if (n == 3) {
                in->o[2].kind = OPD_NONE;
            }
            in->n_opds = 4;
            return in->o[0].kind == OPD_REG ? 0 : -1;
        }
        if (np == 1) {
            in->flags |= PIF_WAIT; /* "bar 0" is bar.sync */
        }
        if (expect_n(n, 1, 2, why, wl)) {
            return -1;
        }
        return opds_of(p, in, opds, n, PT_U32, why, wl);
    case OP_CVT:
        if (m.n_types != 2) {
            snprintf(why, wl, "cvt needs two types");
            return -1;
        }
        in->type2 = (uint8_t)m.types[1];
        if (expect_n(n, 2, 2, why, wl)) {
            return -1;
        }
        if (parse_opd(p, opds[0], in->type, &in->o[0], why, wl) ||
            parse_opd(p, opds[1], in->type2, &in->o[1], why, wl)) {
            return -1;
        }
        in->n_opds = 2;
        return 0;
    case OP_SETP:
        if (expect_n(n, 3, 4, why, wl) || split_pair(p, in, opds[0], why,
                                                     wl)) {
            return -1;
        }
        if (parse_opd(p, opds[1], in->type, &in->o[2], why, wl) ||
            parse_opd(p, opds[2], in->type, &in->o[3], why, wl)) {
            return -1;
        }
        in->o[4].kind = OPD_NONE;
        if (n == 4 && parse_opd(p, opds[3], PT_PRED, &in->o[4], why, wl)) {
            return -1;
        }
        if ((n == 4) != (in->boolop != 0)) {
            snprintf(why, wl, "setp combining form");
            return -1;
        }
        in->n_opds = 5;
        return 0;
    case OP_SHFL:
        if (expect_n(n, 5, 5, why, wl) || split_pair(p, in, opds[0], why,
                                                     wl)) {
            return -1;
        }
        for (unsigned i = 1; i < 5; i++) {
            if (parse_opd(p, opds[i], PT_B32, &in->o[i + 1], why, wl)) {
                return -1;
            }
        }
        in->n_opds = 6;
        return 0;
    case OP_MATCH:
        /* match.any.sync.b32 d, a, membermask; match.all: d|p */
        if (np < 4 || strcmp(parts[2], "sync") != 0 ||
            (in->type != PT_B32 && in->type != PT_B64)) {
            snprintf(why, wl, "match form");
            return -1;
        }
        if (expect_n(n, 3, 3, why, wl) || split_pair(p, in, opds[0], why,
                                                     wl)) {
            return -1;
        }
        if ((in->mode == 0 && in->o[1].kind != OPD_NONE) ||
            in->o[0].kind != OPD_REG ||
            parse_opd(p, opds[1], in->type, &in->o[2], why, wl) ||
            parse_opd(p, opds[2], PT_B32, &in->o[3], why, wl)) {
            if (!why[0]) {
                snprintf(why, wl, "match operands");
            }
            return -1;
        }
        in->n_opds = 4;
        return 0;
    case OP_VABSDIFF4:
        /* vabsdiff4.u32.u32.u32.add d, a, b, c: the sum of the four
         * bytes' |a - b|, plus c (__vsadu4); other forms refused */
        if (in->mode != 1 || m.n_types != 3 || m.types[0] != PT_U32 ||
            m.types[1] != PT_U32 || m.types[2] != PT_U32) {
            snprintf(why, wl, "vabsdiff4 form");
            return -1;
        }
        in->op = OP_VABSDIFF4;
        if (expect_n(n, 4, 4, why, wl)) {
            return -1;
        }
        return opds_of(p, in, opds, n, PT_U32, why, wl);
    case OP_NANOSLEEP:
        if (in->type != PT_U32 || expect_n(n, 1, 1, why, wl)) {
            if (!why[0]) {
                snprintf(why, wl, "nanosleep form");
            }
            return -1;
        }
        return opds_of(p, in, opds, n, PT_U32, why, wl);
    case OP_BMSK:
    case OP_SHF:
        if (!bmsk_mode || in->type != PT_B32) {
            snprintf(why, wl, "bmsk/shf need .clamp or .wrap and .b32");
            return -1;
        }
        break;
    case OP_BFIND:
        if (in->type != PT_U32 && in->type != PT_S32 && in->type != PT_U64 &&
            in->type != PT_S64) {
            snprintf(why, wl, "bfind type");
            return -1;
        }
        break;
    case OP_VOTE:
        /* vote.sync.ballot.b32 or vote.ballot.sync.b32 */
        if (np < 3 || (strcmp(parts[1], "sync") != 0 &&
                       strcmp(parts[2], "sync") != 0)) {
            snprintf(why, wl, "vote without .sync");
            return -1;
        }
        if (expect_n(n, 3, 3, why, wl)) {
            return -1;
        }
        return opds_of(p, in, opds, n, PT_B32, why, wl);
    case OP_BRA:
        if (expect_n(n, 1, 1, why, wl)) {
            return -1;
        }
        in->o[0].kind = OPD_LABEL;
        in->o[0].imm = ptx_parse_label(p, opds[0]);
        if (in->o[0].imm < 0) {
            return PTX_ENOMEM; /* ptx_parse_label has failed the parse */
        }
        in->n_opds = 1;
        return 0;
    case OP_RET:
    case OP_EXIT:
    case OP_TRAP:
        return expect_n(n, 0, 0, why, wl);
    case OP_CVTA:
        if (in->space == PS_GENERIC || in->space == PS_PARAM ||
            in->space == PS_CONST) {
            snprintf(why, wl, "cvta space");
            return -1;
        }
        if (expect_n(n, 2, 2, why, wl)) {
            return -1;
        }
        return opds_of(p, in, opds, n, in->type, why, wl);
    case OP_MUL:
    case OP_MAD:
        if ((in->flags & (PIF_HI | PIF_WIDE)) && is_float(in->type)) {
            snprintf(why, wl, "float .hi/.wide");
            return -1;
        }
        if ((in->flags & PIF_24) && ((in->flags & PIF_WIDE) ||
                                     (in->type != PT_S32 &&
                                      in->type != PT_U32))) {
            snprintf(why, wl, "mul24/mad24 other than .lo/.hi .s32/.u32");
            return -1;
        }
        break;
    default:
        break;
    }
    if (in->type == PT_NONE && in->op != OP_ACTIVEMASK) {
        snprintf(why, wl, "no type");
        return -1;
    }
    if (in->type == PT_NONE) {
        in->type = PT_B32;
    }
    static const unsigned char n_opds[] = {
        [OP_MOV] = 2, [OP_ADD] = 3, [OP_SUB] = 3, [OP_MUL] = 3,
        [OP_MAD] = 4, [OP_DIV] = 3, [OP_REM] = 3, [OP_MIN] = 3,
        [OP_MAX] = 3, [OP_ABS] = 2, [OP_NEG] = 2, [OP_AND] = 3,
        [OP_OR] = 3,  [OP_XOR] = 3, [OP_NOT] = 2, [OP_CNOT] = 2,
        [OP_SHL] = 3, [OP_SHR] = 3, [OP_FMA] = 4, [OP_RCP] = 2,
        [OP_SQRT] = 2, [OP_RSQRT] = 2, [OP_EX2] = 2, [OP_LG2] = 2,
        [OP_SIN] = 2, [OP_COS] = 2, [OP_COPYSIGN] = 3, [OP_POPC] = 2,
        [OP_CLZ] = 2, [OP_BREV] = 2, [OP_BFE] = 4, [OP_BFI] = 5,
        [OP_PRMT] = 4, [OP_SELP] = 4, [OP_ACTIVEMASK] = 1,
        [OP_BFIND] = 2, [OP_BMSK] = 3, [OP_SHF] = 4,
    };
    if (expect_n(n, n_opds[in->op], n_opds[in->op], why, wl)) {
        return -1;
    }
    if (in->op == OP_PRMT && np > 2) {
        snprintf(why, wl, "prmt mode");
        return -1;
    }
    if (opds_of(p, in, opds, n, in->type, why, wl)) {
        return -1;
    }
    if (in->op == OP_SELP) {
        in->o[3].imm = in->o[3].imm != 0;
    }
    if (in->op == OP_MOV && in->o[0].kind == OPD_VEC &&
        in->o[1].kind == OPD_VEC) {
        snprintf(why, wl, "vector to vector mov");
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        if (in->o[i].kind == OPD_MEM || in->o[i].kind == OPD_LABEL ||
            (in->o[i].kind == OPD_TIME && (in->op != OP_MOV || i != 1)) ||
            (in->o[i].kind == OPD_VAR && in->op != OP_MOV &&
             in->op != OP_CVTA && in->op != OP_ADD)) {
            snprintf(why, wl, "operand %u form", i + 1);
            return -1;
        }
    }
    if (in->o[0].kind != OPD_REG && in->o[0].kind != OPD_VEC &&
        in->o[0].kind != OPD_SINK) {
        snprintf(why, wl, "destination");
        return -1;
    }
    return 0;
}
