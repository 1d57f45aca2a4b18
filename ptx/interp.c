/*
 * ptx/interp.c - the per-warp PTX interpreter.
 *
 * A warp runs its 32 lanes together, one instruction at a time over the
 * lanes that sit at the same PC (the "group"). Divergence is handled with
 * a PC per lane and one rule: the lanes at the lowest PC run first, and
 * lanes merge as soon as they reach the same PC. A forward branch taken
 * by some lanes therefore runs the fall-through lanes until they reach
 * the branch target, where all merge again (the immediate post-dominator
 * of if/else); a backward branch keeps the looping lanes running (lower
 * PC) until they leave the loop and catch up with the others.
 *
 * Model: lowest-PC-first is the pre-Volta SIMT stack order. A warp whose
 * lanes wait on each other through memory (one lane spins on a flag that
 * another lane of the same warp sets later in program order) never
 * progresses; independent thread scheduling (sm_70+) is not modelled.
 *
 * Only global memory (and constants) and fences leave the interpreter,
 * as a struct ptx_mem_req; shared, local and param memory, shuffles,
 * votes and arithmetic happen here. Complexity: one warp-instruction
 * costs O(lanes in the group); a divergence or merge costs O(32).
 */
#include <config.h>

#include "ptx/ptx.h"

#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx_int.h"

enum warp_state { WS_RUN, WS_MEM, WS_DONE, WS_ERROR };

struct ptx_warp {
    const struct ptx_kernel *k;
    const struct ptx_insn *insns;
    unsigned n_insns;
    const uint8_t *param;      /* launch parameter buffer (not owned) */
    uint32_t param_bytes;
    struct ptx_warp_ctx ctx;

    uint32_t live;             /* lanes not exited */
    uint32_t group;            /* lanes at pc (a subset of live) */
    unsigned pc;
    unsigned others_min;       /* lowest PC of live & ~group, or UINT_MAX */
    unsigned lpc[PTX_WARP_SIZE]; /* PC of lanes outside the group */

    enum warp_state state;
    unsigned pend;             /* instruction of the pending MEM request */
    uint32_t pend_mask;        /* its global lanes */

    uint64_t n_instr;
    uint8_t *local;            /* PTX_WARP_SIZE frames of local_bytes */
    uint64_t *r;               /* r[slot * 32 + lane] */
    uint64_t sink[PTX_WARP_SIZE]; /* writes to "_" */
    char errbuf[PTX_ERROR_MSG_BYTES];
};

/* for each lane l set in mask: a counted loop with a test, which runs
 * faster than a find-first-set chain when (as usual) every lane is set */
#define LANES(mask, l)                                                      \
    for (uint32_t m_ = (mask), l = 0; l < PTX_WARP_SIZE; l++)               \
        if ((m_ >> l) & 1u)

#define R(w, reg, l) ((w)->r[(size_t)(reg) * PTX_WARP_SIZE + (l)])

/* ---------------------------------------------------------------------- */
/* Values                                                                  */
/* ---------------------------------------------------------------------- */

/* Extension of a value of type t held in 64 bits: shift left by
 * ext_sh[t], then back (arithmetic when ext_signed[t]). */
static const unsigned char ext_sh[PT_COUNT] = {
    [PT_PRED] = 63, [PT_B8] = 56,  [PT_B16] = 48, [PT_B32] = 32,
    [PT_U8] = 56,   [PT_U16] = 48, [PT_U32] = 32, [PT_S8] = 56,
    [PT_S16] = 48,  [PT_S32] = 32, [PT_F16] = 48, [PT_F32] = 32,
};
static const bool ext_signed[PT_COUNT] = {
    [PT_S8] = true, [PT_S16] = true, [PT_S32] = true, [PT_S64] = true,
};

static inline uint64_t extk(uint64_t v, unsigned sh, bool s)
{
    return s ? (uint64_t)((int64_t)(v << sh) >> sh) : (v << sh) >> sh;
}

static inline uint64_t ext(uint64_t v, unsigned t)
{
    return extk(v, ext_sh[t], ext_signed[t]);
}

static inline bool is_signed(unsigned t)
{
    return t == PT_S8 || t == PT_S16 || t == PT_S32 || t == PT_S64;
}

static inline float f32(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline double f64(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static inline uint64_t bits32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline uint64_t bits64(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static uint64_t val_slow(const struct ptx_warp *w, const struct ptx_opd *o)
{
    switch (o->kind) {
    case OPD_TIME: {
        uint64_t t = w->ctx.time_fn
                         ? w->ctx.time_fn(w->ctx.time_user,
                                          (enum ptx_time_sreg)o->imm)
                         : 0;
        return o->imm == PTX_SREG_CLOCK ? (uint32_t)t : t;
    }
    case OPD_VAR:
        return (o->var >= 0 && (unsigned)o->var < w->ctx.n_var_addrs
                    ? w->ctx.var_addrs[o->var]
                    : 0) +
               (uint64_t)o->imm;
    default:
        return 0;
    }
}

/* An operand's value for lane l (raw bits). */
static inline uint64_t val(const struct ptx_warp *w, const struct ptx_opd *o,
                           unsigned l)
{
    if (o->kind == OPD_REG) {
        return R(w, o->reg, l);
    }
    if (o->kind == OPD_IMM) {
        return (uint64_t)o->imm;
    }
    return val_slow(w, o);
}

static inline void put(struct ptx_warp *w, const struct ptx_opd *o,
                       unsigned l, uint64_t v)
{
    if (o->kind == OPD_REG) {
        R(w, o->reg, l) = v;
    }
}

/*
 * Lane loops read an operand as p[l & m]: a register's 32 slots (m = 31)
 * or one immediate (m = 0), set up once per instruction, so the loop
 * body has no branch on the operand kind.
 */
struct lane_src {
    const uint64_t *p;
    uint32_t m;
    uint64_t imm;
};

static inline void src_of(const struct ptx_warp *w, const struct ptx_opd *o,
                          struct lane_src *s)
{
    if (o->kind == OPD_REG) {
        s->p = &R(w, o->reg, 0);
        s->m = PTX_WARP_SIZE - 1;
    } else {
        s->imm = o->kind == OPD_IMM ? (uint64_t)o->imm : val_slow(w, o);
        s->p = &s->imm;
        s->m = 0;
    }
}

static inline uint64_t *dst_of(struct ptx_warp *w, const struct ptx_opd *o)
{
    return o->kind == OPD_REG ? &R(w, o->reg, 0) : w->sink;
}

static inline uint32_t width_bits(unsigned t)
{
    return ptx_type_bytes((enum ptx_type)t) * 8;
}

static int fail(struct ptx_warp *w, const struct ptx_insn *in,
                const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct ptx_warp *w, const struct ptx_insn *in,
                const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(w->errbuf, sizeof(w->errbuf), "kernel %s: PTX line %u: %s",
             w->k->info.name, in->line, what);
    w->state = WS_ERROR;
    return -1;
}

/* ---------------------------------------------------------------------- */
/* Atomics                                                                 */
/* ---------------------------------------------------------------------- */

uint64_t ptx_atom_apply(enum ptx_atom_op op, enum ptx_atom_type type,
                        uint64_t old, uint64_t operand, uint64_t cmp)
{
    bool is64 = type == PTX_ATYPE_B64 || type == PTX_ATYPE_U64 ||
                type == PTX_ATYPE_S64 || type == PTX_ATYPE_F64;
    uint64_t mask = is64 ? ~0ull : 0xffffffffull;
    old &= mask;
    operand &= mask;
    int64_t so = is64 ? (int64_t)old : (int64_t)(int32_t)old;
    int64_t sb = is64 ? (int64_t)operand : (int64_t)(int32_t)operand;
    bool sgn = type == PTX_ATYPE_S32 || type == PTX_ATYPE_S64;
    uint64_t r;
    switch (op) {
    case PTX_ATOM_ADD:
        if (type == PTX_ATYPE_F32) {
            r = bits32(f32(old) + f32(operand));
        } else if (type == PTX_ATYPE_F64) {
            r = bits64(f64(old) + f64(operand));
        } else {
            r = old + operand;
        }
        break;
    case PTX_ATOM_SUB:
        r = old - operand;
        break;
    case PTX_ATOM_EXCH:
        r = operand;
        break;
    case PTX_ATOM_CAS:
        r = old == (cmp & mask) ? operand : old;
        break;
    case PTX_ATOM_MIN:
        if (type == PTX_ATYPE_F32) {
            r = bits32(fminf(f32(old), f32(operand)));
        } else if (type == PTX_ATYPE_F64) {
            r = bits64(fmin(f64(old), f64(operand)));
        } else {
            r = sgn ? (so < sb ? old : operand)
                    : (old < operand ? old : operand);
        }
        break;
    case PTX_ATOM_MAX:
        if (type == PTX_ATYPE_F32) {
            r = bits32(fmaxf(f32(old), f32(operand)));
        } else if (type == PTX_ATYPE_F64) {
            r = bits64(fmax(f64(old), f64(operand)));
        } else {
            r = sgn ? (so > sb ? old : operand)
                    : (old > operand ? old : operand);
        }
        break;
    case PTX_ATOM_INC:
        r = old >= operand ? 0 : old + 1;
        break;
    case PTX_ATOM_DEC:
        r = (old == 0 || old > operand) ? operand : old - 1;
        break;
    case PTX_ATOM_AND:
        r = old & operand;
        break;
    case PTX_ATOM_OR:
        r = old | operand;
        break;
    case PTX_ATOM_XOR:
        r = old ^ operand;
        break;
    default:
        r = old;
        break;
    }
    return r & mask;
}

static enum ptx_atom_type atype_of(unsigned t)
{
    switch (t) {
    case PT_U32:
        return PTX_ATYPE_U32;
    case PT_S32:
        return PTX_ATYPE_S32;
    case PT_B64:
        return PTX_ATYPE_B64;
    case PT_U64:
        return PTX_ATYPE_U64;
    case PT_S64:
        return PTX_ATYPE_S64;
    case PT_F32:
        return PTX_ATYPE_F32;
    case PT_F64:
        return PTX_ATYPE_F64;
    default:
        return PTX_ATYPE_B32;
    }
}

/* ---------------------------------------------------------------------- */
/* Arithmetic                                                              */
/* ---------------------------------------------------------------------- */

static uint64_t int_mulhi(uint64_t a, uint64_t b, unsigned t)
{
    unsigned bits = width_bits(t);
    if (bits == 64) {
        if (is_signed(t)) {
            return (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64);
        }
        return (uint64_t)(((unsigned __int128)a * b) >> 64);
    }
    if (is_signed(t)) {
        return (uint64_t)(((int64_t)a * (int64_t)b) >> bits);
    }
    return (a * b) >> bits;
}

static uint64_t sat_s32(int64_t v)
{
    if (v > INT32_MAX) {
        v = INT32_MAX;
    } else if (v < INT32_MIN) {
        v = INT32_MIN;
    }
    return (uint64_t)v;
}

/* Integer binary operations on extended operands. */
static uint64_t int_bin(unsigned op, unsigned t, uint16_t flags, uint64_t a,
                        uint64_t b)
{
    bool s = is_signed(t);
    unsigned bits = width_bits(t);
    switch (op) {
    case OP_ADD:
        return (flags & PIF_SAT) ? sat_s32((int64_t)a + (int64_t)b) : a + b;
    case OP_SUB:
        return (flags & PIF_SAT) ? sat_s32((int64_t)a - (int64_t)b) : a - b;
    case OP_MUL:
        if (flags & PIF_HI) {
            return int_mulhi(a, b, t);
        }
        return a * b; /* .lo, and .wide on extended operands */
    case OP_DIV:
        if (b == 0) {
            return ~0ull; /* Model: PTX leaves it unspecified */
        }
        if (s) {
            if ((int64_t)b == -1) {
                return 0 - a;
            }
            return (uint64_t)((int64_t)a / (int64_t)b);
        }
        return a / b;
    case OP_REM:
        if (b == 0) {
            return a;
        }
        if (s) {
            if ((int64_t)b == -1) {
                return 0;
            }
            return (uint64_t)((int64_t)a % (int64_t)b);
        }
        return a % b;
    case OP_MIN:
        return s ? ((int64_t)a < (int64_t)b ? a : b) : (a < b ? a : b);
    case OP_MAX:
        return s ? ((int64_t)a > (int64_t)b ? a : b) : (a > b ? a : b);
    case OP_AND:
        return a & b;
    case OP_OR:
        return a | b;
    case OP_XOR:
        return a ^ b;
    case OP_SHL:
        return b >= bits ? 0 : a << b;
    case OP_SHR:
        if (s) {
            return (uint64_t)((int64_t)a >> (b >= bits ? 63 : b));
        }
        return b >= bits ? 0 : a >> b;
    default:
        return 0;
    }
}

static uint64_t flt_bin(unsigned op, unsigned t, uint64_t a, uint64_t b)
{
    if (t == PT_F32) {
        float x = f32(a), y = f32(b), r;
        switch (op) {
        case OP_ADD: r = x + y; break;
        case OP_SUB: r = x - y; break;
        case OP_MUL: r = x * y; break;
        case OP_DIV: r = x / y; break;
        case OP_MIN: r = fminf(x, y); break;
        case OP_MAX: r = fmaxf(x, y); break;
        case OP_COPYSIGN: r = copysignf(y, x); break;
        default: r = 0; break;
        }
        return bits32(r);
    }
    double x = f64(a), y = f64(b), r;
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_DIV: r = x / y; break;
    case OP_MIN: r = fmin(x, y); break;
    case OP_MAX: r = fmax(x, y); break;
    case OP_COPYSIGN: r = copysign(y, x); break;
    default: r = 0; break;
    }
    return bits64(r);
}

static uint64_t flt_un(unsigned op, unsigned t, uint64_t a)
{
    if (t == PT_F32) {
        float x = f32(a), r;
        switch (op) {
        case OP_ABS: r = fabsf(x); break;
        case OP_NEG: r = -x; break;
        case OP_RCP: r = 1.0f / x; break;
        case OP_SQRT: r = sqrtf(x); break;
        case OP_RSQRT: r = 1.0f / sqrtf(x); break;
        case OP_EX2: r = exp2f(x); break;
        case OP_LG2: r = log2f(x); break;
        case OP_SIN: r = sinf(x); break;
        case OP_COS: r = cosf(x); break;
        default: r = 0; break;
        }
        return bits32(r);
    }
    double x = f64(a), r;
    switch (op) {
    case OP_ABS: r = fabs(x); break;
    case OP_NEG: r = -x; break;
    case OP_RCP: r = 1.0 / x; break;
    case OP_SQRT: r = sqrt(x); break;
    case OP_RSQRT: r = 1.0 / sqrt(x); break;
    case OP_EX2: r = exp2(x); break;
    case OP_LG2: r = log2(x); break;
    case OP_SIN: r = sin(x); break;
    case OP_COS: r = cos(x); break;
    default: r = 0; break;
    }
    return bits64(r);
}

static uint64_t int_un(unsigned op, unsigned t, uint64_t a)
{
    unsigned bits = width_bits(t);
    uint64_t wmask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    switch (op) {
    case OP_ABS:
        return (int64_t)a < 0 ? 0 - a : a;
    case OP_NEG:
        return t == PT_PRED ? !a : 0 - a;
    case OP_NOT:
        return t == PT_PRED ? !a : ~a;
    case OP_CNOT:
        return a == 0;
    case OP_POPC:
        return (uint64_t)__builtin_popcountll(a & wmask);
    case OP_CLZ:
        a &= wmask;
        return a ? (uint64_t)(__builtin_clzll(a) - (64 - bits)) : bits;
    case OP_BREV: {
        uint64_t r = 0;
        for (unsigned i = 0; i < bits; i++) {
            r |= ((a >> i) & 1u) << (bits - 1 - i);
        }
        return r;
    }
    default:
        return 0;
    }
}

/* setp's comparison. */
static bool compare(unsigned cmp, unsigned t, uint64_t a, uint64_t b)
{
    if (t == PT_F32 || t == PT_F64) {
        double x = t == PT_F32 ? f32(a) : f64(a);
        double y = t == PT_F32 ? f32(b) : f64(b);
        bool un = isnan(x) || isnan(y);
        switch (cmp) {
        case PC_EQ: return !un && x == y;
        case PC_NE: return !un && x != y;
        case PC_LT: return !un && x < y;
        case PC_LE: return !un && x <= y;
        case PC_GT: return !un && x > y;
        case PC_GE: return !un && x >= y;
        case PC_EQU: return un || x == y;
        case PC_NEU: return un || x != y;
        case PC_LTU: return un || x < y;
        case PC_LEU: return un || x <= y;
        case PC_GTU: return un || x > y;
        case PC_GEU: return un || x >= y;
        case PC_NUM: return !un;
        case PC_NAN: return un;
        default: return false;
        }
    }
    bool s = is_signed(t);
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (cmp) {
    case PC_EQ: return a == b;
    case PC_NE: return a != b;
    case PC_LT: return s ? sa < sb : a < b;
    case PC_LE: return s ? sa <= sb : a <= b;
    case PC_GT: return s ? sa > sb : a > b;
    case PC_GE: return s ? sa >= sb : a >= b;
    case PC_LO: return a < b;
    case PC_LS: return a <= b;
    case PC_HI: return a > b;
    case PC_HS: return a >= b;
    default: return false;
    }
}

/* cvt: the source value (raw bits of st) as type dt. */
static uint64_t convert(uint64_t v, unsigned dt, unsigned st, unsigned rnd,
                        uint16_t flags)
{
    bool dflt = dt == PT_F32 || dt == PT_F64;
    bool sflt = st == PT_F32 || st == PT_F64;
    if (!sflt) {
        v = ext(v, st);
        if (!dflt) {
            if (flags & PIF_SAT) {
                unsigned bits = width_bits(dt);
                bool ds = is_signed(dt);
                __int128 x = is_signed(st) ? (__int128)(int64_t)v
                                           : (__int128)v;
                __int128 lo = ds ? -((__int128)1 << (bits - 1)) : 0;
                __int128 hi = ds ? ((__int128)1 << (bits - 1)) - 1
                                 : ((__int128)1 << bits) - 1;
                x = x < lo ? lo : x > hi ? hi : x;
                v = (uint64_t)x;
            }
            return ext(v, dt);
        }
        double d = is_signed(st) ? (double)(int64_t)v : (double)v;
        if (dt == PT_F32) {
            float f = is_signed(st) ? (float)(int64_t)v : (float)v;
            return bits32(f);
        }
        return bits64(d);
    }
    double d = st == PT_F32 ? f32(v) : f64(v);
    if (dflt && !(flags & PIF_RNDI)) {
        return dt == PT_F32 ? bits32((float)d) : bits64(d);
    }
    switch (rnd) {
    case PR_RZ: d = trunc(d); break;
    case PR_RM: d = floor(d); break;
    case PR_RP: d = ceil(d); break;
    default: d = nearbyint(d); break;
    }
    if (dflt) {
        return dt == PT_F32 ? bits32((float)d) : bits64(d);
    }
    /* float to integer saturates; NaN gives 0 (PTX ISA, cvt) */
    unsigned bits = width_bits(dt);
    if (isnan(d)) {
        return 0;
    }
    if (is_signed(dt)) {
        double lo = -ldexp(1.0, (int)bits - 1), hi = ldexp(1.0, (int)bits - 1);
        if (d <= lo) {
            return ext((uint64_t)(INT64_MIN >> (64 - bits)), dt);
        }
        if (d >= hi) {
            return ext((uint64_t)(INT64_MAX >> (64 - bits)), dt);
        }
        return ext((uint64_t)(int64_t)d, dt);
    }
    double hi = ldexp(1.0, (int)bits);
    if (d <= 0) {
        return 0;
    }
    if (d >= hi) {
        return bits == 64 ? ~0ull : (1ull << bits) - 1;
    }
    return (uint64_t)d;
}

/* Lane loops with the operation's switch hoisted out. */
#define IBIN(expr)                                                          \
    LANES(exec, l) {                                                        \
        uint64_t x = extk(sa.p[l & sa.m], sh, s);                           \
        uint64_t y = extk(sb.p[l & sb.m], sh, s);                           \
        dp[l] = extk((expr), sh, s);                                        \
    }                                                                       \
    break
#define FBIN32(expr)                                                        \
    LANES(exec, l) {                                                        \
        float x = f32(sa.p[l & sa.m]), y = f32(sb.p[l & sb.m]);             \
        dp[l] = bits32(expr);                                               \
    }

static void exec_alu(struct ptx_warp *w, const struct ptx_insn *in,
                     uint32_t exec)
{
    const struct ptx_opd *d = &in->o[0], *a = &in->o[1], *b = &in->o[2],
                         *c = &in->o[3];
    unsigned t = in->type, op = in->op;
    bool flt = t == PT_F32 || t == PT_F64;
    struct lane_src sa, sb, sc;
    src_of(w, a, &sa);
    if (in->n_opds > 2) {
        src_of(w, b, &sb);
    }
    uint64_t *dp = dst_of(w, d);
    switch (op) {
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_REM:
    case OP_MIN:
    case OP_MAX:
    case OP_AND:
    case OP_OR:
    case OP_XOR:
    case OP_COPYSIGN:
        if (flt) {
            if (t == PT_F32 && op <= OP_MUL) {
                if (op == OP_ADD) {
                    FBIN32(x + y);
                } else if (op == OP_SUB) {
                    FBIN32(x - y);
                } else {
                    FBIN32(x * y);
                }
            } else {
                LANES(exec, l) {
                    put(w, d, l, flt_bin(op, t, val(w, a, l), val(w, b, l)));
                }
            }
        } else if (!(in->flags & (PIF_SAT | PIF_HI | PIF_WIDE))) {
            unsigned sh = ext_sh[t];
            bool s = ext_signed[t];
            switch (op) {
            case OP_ADD: IBIN(x + y);
            case OP_SUB: IBIN(x - y);
            case OP_MUL: IBIN(x * y);
            case OP_AND: IBIN(x & y);
            case OP_OR: IBIN(x | y);
            case OP_XOR: IBIN(x ^ y);
            case OP_MIN:
                IBIN(s ? ((int64_t)x < (int64_t)y ? x : y) : (x < y ? x : y));
            case OP_MAX:
                IBIN(s ? ((int64_t)x > (int64_t)y ? x : y) : (x > y ? x : y));
            default:
                LANES(exec, l) {
                    put(w, d, l, extk(int_bin(op, t, in->flags,
                                              extk(val(w, a, l), sh, s),
                                              extk(val(w, b, l), sh, s)),
                                      sh, s));
                }
                break;
            }
        } else {
            unsigned rt = (in->flags & PIF_WIDE) ? PT_S64 : t;
            if ((in->flags & PIF_WIDE) && !is_signed(t)) {
                rt = PT_U64;
            }
            LANES(exec, l) {
                uint64_t x = int_bin(op, t, in->flags, ext(val(w, a, l), t),
                                     ext(val(w, b, l), t));
                put(w, d, l, ext(x, rt));
            }
        }
        break;
    case OP_SHL:
    case OP_SHR: {
        /* int_bin's shifts with the operation and type hoisted */
        unsigned sh = ext_sh[t], bits = width_bits(t);
        bool s = ext_signed[t];
        src_of(w, b, &sb);
        if (op == OP_SHL) {
            LANES(exec, l) {
                uint64_t x = extk(sa.p[l & sa.m], sh, s);
                uint64_t y = sb.p[l & sb.m] & 0xffffffffu;
                dp[l] = extk(y >= bits ? 0 : x << y, sh, s);
            }
        } else if (s) {
            LANES(exec, l) {
                uint64_t x = extk(sa.p[l & sa.m], sh, s);
                uint64_t y = sb.p[l & sb.m] & 0xffffffffu;
                dp[l] = extk((uint64_t)((int64_t)x >> (y >= bits ? 63 : y)),
                             sh, s);
            }
        } else {
            LANES(exec, l) {
                uint64_t x = extk(sa.p[l & sa.m], sh, s);
                uint64_t y = sb.p[l & sb.m] & 0xffffffffu;
                dp[l] = extk(y >= bits ? 0 : x >> y, sh, s);
            }
        }
        break;
    }
    case OP_MAD:
    case OP_FMA:
        if (t == PT_F32) {
            src_of(w, c, &sc);
            LANES(exec, l) {
                dp[l] = bits32(fmaf(f32(sa.p[l & sa.m]), f32(sb.p[l & sb.m]),
                                    f32(sc.p[l & sc.m])));
            }
        } else if (flt) {
            LANES(exec, l) {
                uint64_t x = t == PT_F32
                                 ? bits32(fmaf(f32(val(w, a, l)),
                                               f32(val(w, b, l)),
                                               f32(val(w, c, l))))
                                 : bits64(fma(f64(val(w, a, l)),
                                              f64(val(w, b, l)),
                                              f64(val(w, c, l))));
                put(w, d, l, x);
            }
        } else {
            unsigned rt = t;
            if (in->flags & PIF_WIDE) {
                rt = is_signed(t) ? PT_S64 : PT_U64;
            }
            LANES(exec, l) {
                uint64_t x = int_bin(OP_MUL, t, in->flags,
                                     ext(val(w, a, l), t),
                                     ext(val(w, b, l), t));
                x += val(w, c, l);
                if (in->flags & PIF_SAT) {
                    x = sat_s32((int64_t)(int32_t)int_bin(
                                    OP_MUL, t, in->flags,
                                    ext(val(w, a, l), t),
                                    ext(val(w, b, l), t)) +
                                (int64_t)(int32_t)val(w, c, l));
                }
                put(w, d, l, ext(x, rt));
            }
        }
        break;
    case OP_ABS:
    case OP_NEG:
    case OP_NOT:
    case OP_CNOT:
    case OP_RCP:
    case OP_SQRT:
    case OP_RSQRT:
    case OP_EX2:
    case OP_LG2:
    case OP_SIN:
    case OP_COS:
    case OP_POPC:
    case OP_CLZ:
    case OP_BREV:
        LANES(exec, l) {
            uint64_t x = flt ? flt_un(op, t, val(w, a, l))
                             : int_un(op, t, ext(val(w, a, l), t));
            put(w, d, l, (op == OP_POPC || op == OP_CLZ) ? x : ext(x, t));
        }
        break;
    case OP_BFE:
        LANES(exec, l) {
            unsigned bits = width_bits(t);
            uint64_t x = ext(val(w, a, l), t);
            unsigned pos = (unsigned)(val(w, b, l) & 0xff);
            unsigned len = (unsigned)(val(w, c, l) & 0xff);
            uint64_t r = 0;
            for (unsigned i = 0; i < len && i < bits; i++) {
                unsigned src = pos + i < bits ? pos + i : bits - 1;
                r |= ((x >> src) & 1u) << i;
            }
            if (is_signed(t) && len > 0 && len < bits) {
                unsigned sbit = pos + len - 1 < bits ? pos + len - 1 : bits - 1;
                if ((x >> sbit) & 1u) {
                    r |= ~0ull << len;
                }
            }
            put(w, d, l, ext(r, t));
        }
        break;
    case OP_BFI:
        LANES(exec, l) {
            unsigned bits = width_bits(t);
            uint64_t f = val(w, a, l), x = val(w, b, l);
            unsigned pos = (unsigned)(val(w, c, l) & 0xff);
            unsigned len = (unsigned)(val(w, &in->o[4], l) & 0xff);
            for (unsigned i = 0; i < len && pos + i < bits; i++) {
                x = (x & ~(1ull << (pos + i))) | (((f >> i) & 1u) << (pos + i));
            }
            put(w, d, l, ext(x, t));
        }
        break;
    case OP_PRMT:
        LANES(exec, l) {
            uint64_t bytes = (val(w, a, l) & 0xffffffffu) |
                             ((val(w, b, l) & 0xffffffffu) << 32);
            uint32_t sel = (uint32_t)val(w, c, l), r = 0;
            for (unsigned i = 0; i < 4; i++) {
                unsigned s = (sel >> (4 * i)) & 0xf;
                uint32_t byte = (uint32_t)(bytes >> ((s & 7) * 8)) & 0xff;
                if (s & 8) {
                    byte = (byte & 0x80) ? 0xff : 0;
                }
                r |= byte << (8 * i);
            }
            put(w, d, l, r);
        }
        break;
    default:
        break;
    }
}

/* ---------------------------------------------------------------------- */
/* Moves, conversions, predicates                                          */
/* ---------------------------------------------------------------------- */

static void exec_mov(struct ptx_warp *w, const struct ptx_insn *in,
                     uint32_t exec)
{
    const struct ptx_opd *d = &in->o[0], *a = &in->o[1];
    unsigned bytes = ptx_type_bytes((enum ptx_type)in->type);
    if (d->kind == OPD_VEC) {
        /* unpack: mov.b64 {lo, hi}, %rd */
        unsigned eb = bytes / d->n, sh = eb * 8;
        uint64_t em = sh >= 64 ? ~0ull : (1ull << sh) - 1;
        LANES(exec, l) {
            uint64_t v = val(w, a, l);
            for (unsigned i = 0; i < d->n; i++) {
                if (d->vregs[i] != PTX_NOREG) {
                    R(w, d->vregs[i], l) = (v >> (i * sh)) & em;
                }
            }
        }
        return;
    }
    if (a->kind == OPD_VEC) {
        /* pack: mov.b64 %rd, {lo, hi} */
        unsigned eb = bytes / a->n, sh = eb * 8;
        uint64_t em = sh >= 64 ? ~0ull : (1ull << sh) - 1;
        LANES(exec, l) {
            uint64_t v = 0;
            for (unsigned i = 0; i < a->n; i++) {
                uint64_t e = a->vregs[i] == PTX_NOREG ? 0
                                                      : R(w, a->vregs[i], l);
                v |= (e & em) << (i * sh);
            }
            put(w, d, l, v);
        }
        return;
    }
    if (a->kind == OPD_TIME || a->kind == OPD_VAR) {
        uint64_t v = val_slow(w, a); /* same for every lane */
        LANES(exec, l) {
            put(w, d, l, v);
        }
        return;
    }
    struct lane_src sa;
    src_of(w, a, &sa);
    uint64_t *dp = dst_of(w, d);
    unsigned sh = ext_sh[in->type];
    bool sg = ext_signed[in->type];
    LANES(exec, l) {
        dp[l] = extk(sa.p[l & sa.m], sh, sg);
    }
}

static void exec_cvta(struct ptx_warp *w, const struct ptx_insn *in,
                      uint32_t exec)
{
    uint64_t base = 0;
    if (in->space == PS_SHARED) {
        base = w->ctx.shared_window_base;
    } else if (in->space == PS_LOCAL) {
        base = w->ctx.local_window_base;
    }
    bool to = in->flags & PIF_TO;
    LANES(exec, l) {
        uint64_t v = val(w, &in->o[1], l);
        if (in->o[1].kind == OPD_VAR) {
            v = val_slow(w, &in->o[1]);
        }
        if (in->space != PS_GLOBAL && !to) {
            v = (v & 0xffffffffu) + base;
        } else if (in->space != PS_GLOBAL) {
            v -= base;
        }
        put(w, &in->o[0], l, ext(v, in->type));
    }
}

static void exec_setp(struct ptx_warp *w, const struct ptx_insn *in,
                      uint32_t exec)
{
    const struct ptx_opd *p = &in->o[0], *q = &in->o[1], *c = &in->o[4];
    unsigned t = in->type;
    bool flt = t == PT_F32 || t == PT_F64;
    if (!flt && !in->boolop && q->kind != OPD_REG && in->cmp <= PC_HS) {
        /* the common case, with the comparison hoisted: signed order is
         * unsigned order with the sign bit flipped */
        struct lane_src sa, sb;
        src_of(w, &in->o[2], &sa);
        src_of(w, &in->o[3], &sb);
        uint64_t *dp = dst_of(w, p);
        unsigned sh = ext_sh[t];
        bool sg = ext_signed[t];
        uint64_t flip = (sg && in->cmp >= PC_LT && in->cmp <= PC_GE)
                            ? 1ull << 63 : 0;
#define SETP(expr)                                                          \
    LANES(exec, l) {                                                        \
        uint64_t x = extk(sa.p[l & sa.m], sh, sg) ^ flip;                   \
        uint64_t y = extk(sb.p[l & sb.m], sh, sg) ^ flip;                   \
        dp[l] = (expr);                                                     \
    }                                                                       \
    return
        switch (in->cmp) {
        case PC_EQ: SETP(x == y);
        case PC_NE: SETP(x != y);
        case PC_LT: case PC_LO: SETP(x < y);
        case PC_LE: case PC_LS: SETP(x <= y);
        case PC_GT: case PC_HI: SETP(x > y);
        default: SETP(x >= y);
        }
#undef SETP
    }
    if (t == PT_F32 && !in->boolop && q->kind != OPD_REG &&
        (in->cmp == PC_EQ || (in->cmp >= PC_LT && in->cmp <= PC_GE))) {
        /* ordered f32 comparisons: C's <, <=, >, >=, == are already false
         * with a NaN operand, as PTX's ordered ones are */
        struct lane_src sa, sb;
        src_of(w, &in->o[2], &sa);
        src_of(w, &in->o[3], &sb);
        uint64_t *dp = dst_of(w, p);
#define SETPF(expr)                                                         \
    LANES(exec, l) {                                                        \
        float x = f32(sa.p[l & sa.m]), y = f32(sb.p[l & sb.m]);             \
        dp[l] = (expr);                                                     \
    }                                                                       \
    return
        switch (in->cmp) {
        case PC_EQ: SETPF(x == y);
        case PC_LT: SETPF(x < y);
        case PC_LE: SETPF(x <= y);
        case PC_GT: SETPF(x > y);
        default: SETPF(x >= y);
        }
#undef SETPF
    }
    LANES(exec, l) {
        uint64_t a = val(w, &in->o[2], l), b = val(w, &in->o[3], l);
        if (!flt) {
            a = ext(a, t);
            b = ext(b, t);
        }
        bool r = compare(in->cmp, t, a, b);
        bool rq = !r;
        if (in->boolop) {
            bool cv = (val(w, c, l) & 1u) ^ c->neg;
            if (in->boolop == 1) {
                r = r && cv;
                rq = rq && cv;
            } else if (in->boolop == 2) {
                r = r || cv;
                rq = rq || cv;
            } else {
                r = r ^ cv;
                rq = rq ^ cv;
            }
        }
        put(w, p, l, r);
        if (q->kind == OPD_REG) {
            put(w, q, l, rq);
        }
    }
}

static void exec_selp(struct ptx_warp *w, const struct ptx_insn *in,
                      uint32_t exec)
{
    const struct ptx_opd *c = &in->o[3];
    LANES(exec, l) {
        bool s = (val(w, c, l) & 1u) ^ c->neg;
        put(w, &in->o[0], l, ext(val(w, &in->o[s ? 1 : 2], l), in->type));
    }
}

/* ---------------------------------------------------------------------- */
/* Warp-wide: shuffles and votes                                           */
/* ---------------------------------------------------------------------- */

static void exec_shfl(struct ptx_warp *w, const struct ptx_insn *in,
                      uint32_t exec)
{
    uint64_t got[PTX_WARP_SIZE];
    bool ok[PTX_WARP_SIZE];
    LANES(exec, l) {
        int lane = (int)l;
        int bval = (int)(val(w, &in->o[3], l) & 0x1f);
        uint32_t cv = (uint32_t)val(w, &in->o[4], l);
        int clamp = (int)(cv & 0x1f), segmask = (int)((cv >> 8) & 0x1f);
        int max_lane = (lane & segmask) | (clamp & ~segmask);
        int min_lane = lane & segmask;
        int j;
        bool pv;
        switch (in->mode) {
        case 0: /* up */
            j = lane - bval;
            pv = j >= max_lane;
            break;
        case 1: /* down */
            j = lane + bval;
            pv = j <= max_lane;
            break;
        case 2: /* bfly */
            j = lane ^ bval;
            pv = j <= max_lane;
            break;
        default: /* idx */
            j = min_lane | (bval & ~segmask);
            pv = j <= max_lane;
            break;
        }
        if (!pv || j < 0 || j >= PTX_WARP_SIZE) {
            j = lane;
        }
        got[l] = val(w, &in->o[2], (unsigned)j) & 0xffffffffu;
        ok[l] = pv;
    }
    LANES(exec, l) {
        put(w, &in->o[0], l, got[l]);
        if (in->o[1].kind == OPD_REG) {
            put(w, &in->o[1], l, ok[l]);
        }
    }
}

static void exec_vote(struct ptx_warp *w, const struct ptx_insn *in,
                      uint32_t exec)
{
    const struct ptx_opd *p = &in->o[1];
    uint32_t yes = 0;
    LANES(exec, l) {
        if ((val(w, p, l) & 1u) ^ p->neg) {
            yes |= 1u << l;
        }
    }
    uint64_t r;
    switch (in->mode) {
    case 0:
        r = yes != 0;
        break;
    case 1:
        r = yes == exec;
        break;
    case 2:
        r = yes == 0 || yes == exec;
        break;
    default:
        r = yes;
        break;
    }
    LANES(exec, l) {
        put(w, &in->o[0], l, r);
    }
}

/* ---------------------------------------------------------------------- */
/* Memory                                                                  */
/* ---------------------------------------------------------------------- */

/* Bytes per lane of a ld/st/atom. */
static unsigned access_bytes(const struct ptx_insn *in)
{
    return ptx_type_bytes((enum ptx_type)in->type) * in->vec;
}

/* Where a lane's access lands, for the spaces the interpreter owns. */
static uint8_t *lane_ptr(struct ptx_warp *w, const struct ptx_insn *in,
                         enum ptx_space space, uint64_t addr, unsigned l,
                         unsigned n)
{
    switch (space) {
    case PS_SHARED:
        addr &= 0xffffffffu;
        if (!w->ctx.shared || addr > w->ctx.shared_bytes ||
            n > w->ctx.shared_bytes - addr) {
            fail(w, in, "shared memory access out of bounds (offset 0x%llx, "
                 "%u bytes, %u bytes of shared memory)",
                 (unsigned long long)addr, n, w->ctx.shared_bytes);
            return NULL;
        }
        return w->ctx.shared + addr;
    case PS_LOCAL:
        addr &= 0xffffffffu;
        if (addr > w->k->local_bytes || n > w->k->local_bytes - addr) {
            fail(w, in, "local memory access out of bounds (offset 0x%llx, "
                 "%u bytes, %u bytes per thread)",
                 (unsigned long long)addr, n, w->k->local_bytes);
            return NULL;
        }
        return w->local + (size_t)l * w->k->local_bytes + addr;
    case PS_PARAM:
        if (addr > w->param_bytes || n > w->param_bytes - addr) {
            fail(w, in, "parameter access out of bounds (offset 0x%llx, %u "
                 "bytes, %u bytes of parameters)",
                 (unsigned long long)addr, n, w->param_bytes);
            return NULL;
        }
        return (uint8_t *)(uintptr_t)(w->param + addr);
    default:
        return NULL;
    }
}

/* The space a generic address falls in. */
static enum ptx_space generic_space(const struct ptx_warp *w, uint64_t *addr)
{
    const struct ptx_warp_ctx *c = &w->ctx;
    if (*addr - c->shared_window_base < c->shared_window_bytes) {
        *addr -= c->shared_window_base;
        return PS_SHARED;
    }
    if (*addr - c->local_window_base < c->local_window_bytes) {
        *addr -= c->local_window_base;
        return PS_LOCAL;
    }
    return PS_GLOBAL;
}

static uint64_t lane_addr(const struct ptx_warp *w, const struct ptx_opd *o,
                          unsigned l)
{
    uint64_t a = (uint64_t)o->imm;
    if (o->reg != PTX_NOREG) {
        a += R(w, o->reg, l);
    }
    if (o->var != PTX_NOVAR) {
        a += (unsigned)o->var < w->ctx.n_var_addrs ? w->ctx.var_addrs[o->var]
                                                   : 0;
    }
    return a;
}

/* eb (1, 2, 4 or 8) little-endian bytes at p, with fixed-size copies the
 * compiler turns into one move (a variable-size memcpy is a call). */
static inline uint64_t get_bytes(const uint8_t *p, unsigned eb)
{
    switch (eb) {
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    case 8: { uint64_t v; memcpy(&v, p, 8); return v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 1: return *p;
    default: { uint64_t v = 0; memcpy(&v, p, eb < 8 ? eb : 8); return v; }
    }
}

static inline void put_bytes(uint8_t *p, uint64_t v, unsigned eb)
{
    switch (eb) {
    case 4: { uint32_t u = (uint32_t)v; memcpy(p, &u, 4); return; }
    case 8: memcpy(p, &v, 8); return;
    case 2: { uint16_t u = (uint16_t)v; memcpy(p, &u, 2); return; }
    case 1: *p = (uint8_t)v; return;
    default: memcpy(p, &v, eb < 8 ? eb : 8); return;
    }
}

/* Loaded bytes into the destination register(s) of lane l. */
static void bytes_to_regs(struct ptx_warp *w, const struct ptx_insn *in,
                          const struct ptx_opd *d, unsigned l,
                          const uint8_t *src)
{
    unsigned eb = ptx_type_bytes((enum ptx_type)in->type);
    for (unsigned i = 0; i < in->vec; i++) {
        uint64_t v = ext(get_bytes(src + i * eb, eb), in->type);
        if (d->kind == OPD_VEC) {
            if (d->vregs[i] != PTX_NOREG) {
                R(w, d->vregs[i], l) = v;
            }
        } else {
            put(w, d, l, v);
        }
    }
}

static void regs_to_bytes(const struct ptx_warp *w, const struct ptx_insn *in,
                          const struct ptx_opd *s, unsigned l, uint8_t *dst)
{
    unsigned eb = ptx_type_bytes((enum ptx_type)in->type);
    for (unsigned i = 0; i < in->vec; i++) {
        uint64_t v = s->kind == OPD_VEC ? (s->vregs[i] == PTX_NOREG
                                               ? 0
                                               : R(w, s->vregs[i], l))
                                        : val(w, s, l);
        put_bytes(dst + i * eb, v, eb);
    }
}

static void req_common(const struct ptx_warp *w, const struct ptx_insn *in,
                       struct ptx_mem_req *req, enum ptx_mem_op op)
{
    (void)w;
    req->op = op;
    req->bytes_per_lane = access_bytes(in);
    req->sem = (enum ptx_mem_sem)in->sem;
    req->scope = (enum ptx_mem_scope)in->scope;
    req->atom = (enum ptx_atom_op)in->mode;
    req->atype = atype_of(in->type);
    req->nc = in->flags & PIF_NC;
    req->constant = in->space == PS_CONST;
    req->mask = 0;
    req->line = in->line;
    req->error = NULL;
}

/* ld / st / atom / red. Internal lanes are done now; global lanes go to
 * req. Return: 1 when req holds a request, 0 when all is done, -1 on
 * error. */
static int exec_mem(struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec, struct ptx_mem_req *req)
{
    bool is_st = in->op == OP_ST, is_red = in->op == OP_RED;
    bool is_atom = in->op == OP_ATOM || is_red;
    const struct ptx_opd *mo = &in->o[(is_st || is_red) ? 0 : 1];
    const struct ptx_opd *vo = &in->o[(is_st || is_red) ? 1 : 0];
    unsigned n = access_bytes(in);
    enum ptx_mem_op op = is_st ? PTX_MEM_ST
                               : is_red ? PTX_MEM_RED
                                        : is_atom ? PTX_MEM_ATOM : PTX_MEM_LD;
    req_common(w, in, req, op);
    uint32_t global = 0;
    LANES(exec, l) {
        uint64_t addr = lane_addr(w, mo, l);
        enum ptx_space sp = (enum ptx_space)in->space;
        if (sp == PS_GENERIC) {
            sp = generic_space(w, &addr);
        }
        if (sp == PS_GLOBAL || sp == PS_CONST) {
            global |= 1u << l;
            req->addr[l] = addr;
            if (is_st) {
                req->data[l][0] = req->data[l][1] = 0;
                regs_to_bytes(w, in, vo, l, (uint8_t *)req->data[l]);
            } else if (is_atom) {
                unsigned bi = is_red ? 1 : 2;
                if (in->mode == PTX_ATOM_CAS) {
                    req->cmp[l] = val(w, &in->o[bi], l);
                    req->data[l][0] = val(w, &in->o[bi + 1], l);
                } else {
                    req->data[l][0] = val(w, &in->o[bi], l);
                }
            }
            continue;
        }
        uint8_t *p = lane_ptr(w, in, sp, addr, l, n);
        if (!p) {
            return -1;
        }
        if (is_st) {
            regs_to_bytes(w, in, vo, l, p);
        } else if (is_atom) {
            unsigned bi = is_red ? 1 : 2;
            uint64_t old = 0, b, c = 0;
            memcpy(&old, p, n);
            if (in->mode == PTX_ATOM_CAS) {
                c = val(w, &in->o[bi], l);
                b = val(w, &in->o[bi + 1], l);
            } else {
                b = val(w, &in->o[bi], l);
            }
            uint64_t nv = ptx_atom_apply((enum ptx_atom_op)in->mode,
                                         atype_of(in->type), old, b, c);
            memcpy(p, &nv, n);
            if (!is_red) {
                put(w, vo, l, ext(old, in->type));
            }
        } else {
            bytes_to_regs(w, in, vo, l, p);
        }
    }
    req->mask = global;
    return global != 0;
}

/* ---------------------------------------------------------------------- */
/* Control                                                                 */
/* ---------------------------------------------------------------------- */

/* Choose the lanes at the lowest PC as the new group (after a divergent
 * branch, an exit, or when the group caught up with waiting lanes). */
static void reselect(struct ptx_warp *w)
{
    LANES(w->group, l) {
        w->lpc[l] = w->pc;
    }
    unsigned min = UINT_MAX;
    LANES(w->live, l) {
        if (w->lpc[l] < min) {
            min = w->lpc[l];
        }
    }
    uint32_t g = 0;
    unsigned other = UINT_MAX;
    LANES(w->live, l) {
        if (w->lpc[l] == min) {
            g |= 1u << l;
        } else if (w->lpc[l] < other) {
            other = w->lpc[l];
        }
    }
    w->group = g;
    w->pc = min;
    w->others_min = other;
}

static void lanes_exit(struct ptx_warp *w, uint32_t exec)
{
    w->live &= ~exec;
    w->group &= ~exec;
    if (w->group == 0 && w->live != 0) {
        reselect(w);
    }
}

static uint32_t guard_mask(const struct ptx_warp *w, const struct ptx_insn *in)
{
    uint32_t m = 0;
    LANES(w->group, l) {
        if ((R(w, in->guard, l) & 1u) ^ in->guard_neg) {
            m |= 1u << l;
        }
    }
    return m;
}

static enum ptx_stop stop_error(struct ptx_warp *w, struct ptx_mem_req *req,
                                unsigned line)
{
    w->state = WS_ERROR;
    req->error = w->errbuf;
    req->line = line;
    req->mask = 0;
    return PTX_STOP_ERROR;
}

enum ptx_stop ptx_warp_run(struct ptx_warp *w, struct ptx_mem_req *req)
{
    switch (w->state) {
    case WS_DONE:
        return PTX_STOP_EXIT;
    case WS_ERROR:
        req->error = w->errbuf;
        return PTX_STOP_ERROR;
    case WS_MEM:
        snprintf(w->errbuf, sizeof(w->errbuf), "kernel %s: warp run again "
                 "before its memory request was resumed", w->k->info.name);
        return stop_error(w, req, w->insns[w->pend].line);
    default:
        break;
    }
    uint32_t budget = w->ctx.yield_after, steps = 0;
    for (;;) {
        if (w->live == 0) {
            w->state = WS_DONE;
            return PTX_STOP_EXIT;
        }
        if (w->pc >= w->n_insns) {
            lanes_exit(w, w->group); /* fell off the end: as ret */
            continue;
        }
        const struct ptx_insn *in = &w->insns[w->pc];
        uint32_t exec = in->guard == PTX_NOREG ? w->group : guard_mask(w, in);
        w->n_instr++;
        switch (in->op) {
        case OP_MOV:
            exec_mov(w, in, exec);
            break;
        case OP_CVT:
            LANES(exec, l) {
                put(w, &in->o[0], l,
                    convert(val(w, &in->o[1], l), in->type, in->type2,
                            in->rnd, in->flags));
            }
            break;
        case OP_CVTA:
            exec_cvta(w, in, exec);
            break;
        case OP_SETP:
            exec_setp(w, in, exec);
            break;
        case OP_SELP:
            exec_selp(w, in, exec);
            break;
        case OP_SHFL:
            exec_shfl(w, in, exec);
            break;
        case OP_VOTE:
            exec_vote(w, in, exec);
            break;
        case OP_ACTIVEMASK:
            LANES(exec, l) {
                put(w, &in->o[0], l, exec);
            }
            break;
        case OP_NOP:
            break;
        case OP_BRA: {
            unsigned target = (unsigned)in->o[0].imm;
            uint32_t stay = w->group & ~exec;
            if (exec == 0) {
                break;
            }
            if (stay == 0) {
                w->pc = target;
            } else {
                LANES(exec, l) {
                    w->lpc[l] = target;
                }
                LANES(stay, l) {
                    w->lpc[l] = w->pc + 1;
                }
                w->group = 0;
                reselect(w);
            }
            goto next;
        }
        case OP_RET:
        case OP_EXIT:
            if (exec == 0) {
                break;
            }
            w->pc++;
            lanes_exit(w, exec);
            goto next;
        case OP_TRAP:
            if (exec == 0) {
                break;
            }
            if (w->k->err_line == in->line) {
                snprintf(w->errbuf, sizeof(w->errbuf), "%s", w->k->err_msg);
            } else {
                fail(w, in, "trap");
            }
            return stop_error(w, req, in->line);
        case OP_LD:
        case OP_ST:
        case OP_ATOM:
        case OP_RED: {
            if (exec == 0) {
                break;
            }
            int rc = exec_mem(w, in, exec, req);
            if (rc < 0) {
                return stop_error(w, req, in->line);
            }
            if (rc > 0) {
                w->state = WS_MEM;
                w->pend = w->pc;
                w->pend_mask = req->mask;
                w->pc++;
                if (w->group != w->live && w->pc >= w->others_min) {
                    reselect(w);
                }
                return PTX_STOP_MEM;
            }
            break;
        }
        case OP_MEMBAR:
        case OP_FENCE:
            if (exec == 0) {
                break;
            }
            req_common(w, in, req, PTX_MEM_FENCE);
            req->bytes_per_lane = 0;
            req->mask = exec;
            w->state = WS_MEM;
            w->pend = w->pc;
            w->pend_mask = 0;
            w->pc++;
            if (w->group != w->live && w->pc >= w->others_min) {
                reselect(w);
            }
            return PTX_STOP_MEM;
        case OP_BAR: {
            if (exec == 0) {
                break;
            }
            unsigned first = (unsigned)__builtin_ctz(exec);
            req->bar_id = (unsigned)val(w, &in->o[0], first);
            req->bar_count = in->n_opds > 1
                                 ? (unsigned)val(w, &in->o[1], first)
                                 : 0;
            req->bar_mask = exec;
            req->bar_wait = in->flags & PIF_WAIT;
            req->line = in->line;
            req->mask = 0;
            w->pc++;
            if (w->group != w->live && w->pc >= w->others_min) {
                reselect(w);
            }
            return PTX_STOP_BAR;
        }
        default:
            exec_alu(w, in, exec);
            break;
        }
        w->pc++;
    next:
        if (w->group != w->live && w->pc >= w->others_min) {
            reselect(w);
        }
        if (budget && ++steps >= budget) {
            return PTX_STOP_YIELD;
        }
    }
}

int ptx_warp_resume(struct ptx_warp *w, const struct ptx_mem_req *req)
{
    if (w->state != WS_MEM) {
        return PTX_EINVAL;
    }
    const struct ptx_insn *in = &w->insns[w->pend];
    w->state = WS_RUN;
    if (in->op == OP_LD) {
        LANES(w->pend_mask, l) {
            bytes_to_regs(w, in, &in->o[0], l,
                          (const uint8_t *)req->result[l]);
        }
    } else if (in->op == OP_ATOM) {
        LANES(w->pend_mask, l) {
            put(w, &in->o[0], l, ext(req->result[l][0], in->type));
        }
    }
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Lifecycle                                                               */
/* ---------------------------------------------------------------------- */

/* The special registers of every lane (the register file is zeroed). */
static void init_sregs(struct ptx_warp *w)
{
    const struct ptx_warp_ctx *c = &w->ctx;
    bool env = false;
    for (unsigned i = 0; i < 32; i++) {
        env |= c->envreg[i] != 0;
    }
    for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
        R(w, SR_TID_X, l) = c->tid[l].x;
        R(w, SR_TID_Y, l) = c->tid[l].y;
        R(w, SR_TID_Z, l) = c->tid[l].z;
        R(w, SR_NTID_X, l) = c->ntid.x;
        R(w, SR_NTID_Y, l) = c->ntid.y;
        R(w, SR_NTID_Z, l) = c->ntid.z;
        R(w, SR_CTAID_X, l) = c->ctaid.x;
        R(w, SR_CTAID_Y, l) = c->ctaid.y;
        R(w, SR_CTAID_Z, l) = c->ctaid.z;
        R(w, SR_NCTAID_X, l) = c->nctaid.x;
        R(w, SR_NCTAID_Y, l) = c->nctaid.y;
        R(w, SR_NCTAID_Z, l) = c->nctaid.z;
        R(w, SR_LANEID, l) = l;
        R(w, SR_WARPID, l) = c->warpid;
        R(w, SR_NWARPID, l) = c->nwarpid;
        R(w, SR_SMID, l) = c->smid;
        R(w, SR_NSMID, l) = c->nsmid;
        R(w, SR_GRIDID, l) = c->gridid;
        R(w, SR_LANEMASK_EQ, l) = 1u << l;
        R(w, SR_LANEMASK_LT, l) = (1u << l) - 1;
        R(w, SR_LANEMASK_LE, l) = (uint32_t)((2ull << l) - 1);
        R(w, SR_LANEMASK_GT, l) = (uint32_t)~((2ull << l) - 1);
        R(w, SR_LANEMASK_GE, l) = (uint32_t)~((1u << l) - 1);
        for (unsigned i = 0; env && i < 32; i++) {
            R(w, SR_ENVREG0 + i, l) = c->envreg[i];
        }
    }
}

struct ptx_warp *ptx_warp_new(const struct ptx_kernel *k,
                              const void *param_buf,
                              const struct ptx_warp_ctx *ctx,
                              struct ptx_error *err)
{
    if (!k || !ctx) {
        if (err) {
            err->code = PTX_EINVAL;
            err->line = 0;
            snprintf(err->msg, sizeof(err->msg), "no kernel or context");
        }
        return NULL;
    }
    if (ptx_kernel_check(k, err)) {
        return NULL;
    }
    if (k->info.param_bytes && !param_buf) {
        if (err) {
            err->code = PTX_EINVAL;
            err->line = 0;
            snprintf(err->msg, sizeof(err->msg), "kernel %s: %u bytes of "
                     "parameters expected, none given", k->info.name,
                     k->info.param_bytes);
        }
        return NULL;
    }
    struct ptx_warp *w = calloc(1, sizeof(*w));
    if (w) {
        w->r = malloc((size_t)k->n_regs * PTX_WARP_SIZE * sizeof(uint64_t));
        w->local = calloc(PTX_WARP_SIZE, k->local_bytes ? k->local_bytes : 1);
    }
    if (!w || !w->r || !w->local) {
        ptx_warp_free(w);
        if (err) {
            err->code = PTX_ENOMEM;
            err->line = 0;
            snprintf(err->msg, sizeof(err->msg), "out of memory");
        }
        return NULL;
    }
    memset(w->r, 0, (size_t)k->n_regs * PTX_WARP_SIZE * sizeof(uint64_t));
    w->k = k;
    w->insns = k->insns;
    w->n_insns = k->n_insns;
    w->param = param_buf;
    w->param_bytes = k->info.param_bytes;
    w->ctx = *ctx;
    w->live = w->group = ctx->lane_mask;
    w->others_min = UINT_MAX;
    w->state = ctx->lane_mask ? WS_RUN : WS_DONE;
    init_sregs(w);
    return w;
}

void ptx_warp_free(struct ptx_warp *w)
{
    if (!w) {
        return;
    }
    free(w->r);
    free(w->local);
    free(w);
}

uint64_t ptx_warp_instr_count(const struct ptx_warp *w)
{
    return w->n_instr;
}

uint32_t ptx_warp_live_mask(const struct ptx_warp *w)
{
    return w->live;
}
