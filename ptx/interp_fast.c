/*
 * ptx/interp_fast.c - the pre-decoded form of a kernel's common
 * instructions (ptx__fast_prepare, once per kernel at parse) and their
 * lane loops (ptx__fast_exec).
 *
 * An instruction of a common form (integer and f32/f64 arithmetic of
 * 32 or 64 bits without modifiers that change the result, mov, the
 * plain setp comparisons, selp, the widening and float conversions, and
 * ld/st on .shared of 4 or 8 bytes) gets a handler id chosen by its
 * opcode and type, and its operands as register slots. An immediate
 * operand becomes a constant slot: a register past the kernel's own
 * (k->n_regs), filled with the value in every lane when a warp is
 * created, so that every operand is a row r[slot * 32 .. + 31] and each
 * handler is a straight loop over the 32 lanes into a temporary that the
 * compiler vectorizes; only the copy to the destination looks at the
 * lanes that run. Computing a lane that does not run is harmless for
 * these operations (no division by zero, no memory access), so no
 * handler branches per lane. Everything else (and shared accesses out
 * of bounds, to report them) goes through the general interpreter
 * (interp_alu.c, interp_move.c, interp_mem.c), whose results these
 * handlers reproduce bit for bit.
 */
#include <config.h>

#include "ptx/ptx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx_int.h"
#include "ptx/interp_int.h"

/* Constant slots a kernel may have (a warp copies them at creation);
 * instructions with further distinct immediates stay general. */
#define FAST_CONSTS_MAX 512u

/*
 * Handler ids. An integer handler is a base plus the kind of its type:
 * K_Z 32-bit unsigned (b32/u32: results zero-extended), K_S s32 (sign-
 * extended), K_U 64-bit unsigned (b64/u64), K_I s64.
 */
enum { K_Z, K_S, K_U, K_I, K_N };

enum fast_h {
    FH_NONE,
    FH_ADD = 1, FH_SUB = FH_ADD + K_N, FH_MUL = FH_SUB + K_N,
    FH_AND = FH_MUL + K_N, FH_OR = FH_AND + K_N, FH_XOR = FH_OR + K_N,
    FH_MIN = FH_XOR + K_N, FH_MAX = FH_MIN + K_N, FH_SHL = FH_MAX + K_N,
    FH_SHR = FH_SHL + K_N, FH_MAD = FH_SHR + K_N, FH_MOV = FH_MAD + K_N,
    FH_SELP = FH_MOV + K_N,
    /* setp: the comparison (0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge) times
     * K_N plus the kind; signed order is unsigned order with the sign
     * bit flipped (f->flip) */
    FH_SETP = FH_SELP + K_N,
    FH_MULWIDE_S = FH_SETP + 6 * K_N, FH_MULWIDE_U, FH_MADWIDE_S,
    FH_MADWIDE_U,
    FH_FADD, FH_FSUB, FH_FMUL, FH_FDIV, FH_FFMA, FH_FABS, FH_FNEG,
    FH_DADD, FH_DSUB, FH_DMUL, FH_DDIV, FH_DFMA, FH_DABS, FH_DNEG,
    /* ordered setp of f32 then f64: eq lt le gt ge */
    FH_FSETP, FH_DSETP = FH_FSETP + 5,
    FH_CVT_F_S32 = FH_DSETP + 5, FH_CVT_F_U32, FH_CVT_D_S32, FH_CVT_D_U32,
    FH_CVT_D_F, FH_CVT_F_D, FH_CVT_S32_F_RZ,
    /* ld/st .shared, 4 or 8 bytes (kind: how a load extends) */
    FH_LDS, FH_STS32 = FH_LDS + K_N, FH_STS64,
    FH_COUNT
};

/* The kind of an integer type of 32 or 64 bits, or -1. */
static int kind_of(unsigned t)
{
    switch (t) {
    case PT_B32: case PT_U32: return K_Z;
    case PT_S32: return K_S;
    case PT_B64: case PT_U64: return K_U;
    case PT_S64: return K_I;
    default: return -1;
    }
}

/* A move's kind: floats are kept as their bits (f32 zero-extended). */
static int mov_kind(unsigned t)
{
    return t == PT_F32 ? K_Z : t == PT_F64 ? K_U : kind_of(t);
}

/* ---------------------------------------------------------------------- */
/* Preparation                                                             */
/* ---------------------------------------------------------------------- */

struct prep {
    struct ptx_kernel *k;
    /* open hash of the constants' values: index + 1, 0 empty */
    uint32_t *hash;
    unsigned hcap;
};

static uint32_t hash64(uint64_t v)
{
    v ^= v >> 33;
    v *= UINT64_C(0xff51afd7ed558ccd);
    v ^= v >> 33;
    return (uint32_t)v;
}

/* The slot offset (slot * 32) of a source operand: its register, or a
 * constant slot holding its immediate. Return: false when neither. */
static bool src_slot(struct prep *pp, const struct ptx_opd *o, uint32_t *off)
{
    struct ptx_kernel *k = pp->k;
    if (o->kind == OPD_REG && !o->neg) {
        *off = (uint32_t)o->reg * PTX_WARP_SIZE;
        return true;
    }
    if (o->kind != OPD_IMM) {
        return false;
    }
    uint64_t v = (uint64_t)o->imm;
    uint32_t h = hash64(v) & (pp->hcap - 1);
    while (pp->hash[h]) {
        uint32_t i = pp->hash[h] - 1;
        if (k->cvals[i] == v) {
            *off = (k->n_regs + i) * PTX_WARP_SIZE;
            return true;
        }
        h = (h + 1) & (pp->hcap - 1);
    }
    if (k->n_cvals >= FAST_CONSTS_MAX) {
        return false;
    }
    k->cvals[k->n_cvals] = v;
    pp->hash[h] = ++k->n_cvals;
    *off = (k->n_regs + k->n_cvals - 1) * PTX_WARP_SIZE;
    return true;
}

static bool dst_slot(const struct ptx_opd *o, uint32_t *off)
{
    if (o->kind != OPD_REG) {
        return false;
    }
    *off = (uint32_t)o->reg * PTX_WARP_SIZE;
    return true;
}

/* Sources o[from..from+n-1] into f->a, f->b, f->c. */
static bool srcs(struct prep *pp, const struct ptx_insn *in, unsigned from,
                 unsigned n, struct ptx_fast *f)
{
    uint32_t *s[3] = {&f->a, &f->b, &f->c};
    if (in->n_opds < from + n) {
        return false;
    }
    for (unsigned i = 0; i < n; i++) {
        if (!src_slot(pp, &in->o[from + i], s[i])) {
            return false;
        }
    }
    for (unsigned i = n; i < 3; i++) {
        *s[i] = f->a;
    }
    return true;
}

static unsigned int_handler(const struct ptx_insn *in, int kd)
{
    if (in->op == OP_SHL || in->op == OP_SHR) {
        return (in->op == OP_SHL ? FH_SHL : FH_SHR) + (unsigned)kd;
    }
    if (in->flags & (PIF_SAT | PIF_HI | PIF_WIDE | PIF_24)) {
        if (in->op == OP_MUL && in->flags == PIF_WIDE && kd == K_S) {
            return FH_MULWIDE_S;
        }
        if (in->op == OP_MUL && in->flags == PIF_WIDE && kd == K_Z) {
            return FH_MULWIDE_U;
        }
        if (in->op == OP_MAD && in->flags == PIF_WIDE && kd == K_S) {
            return FH_MADWIDE_S;
        }
        if (in->op == OP_MAD && in->flags == PIF_WIDE && kd == K_Z) {
            return FH_MADWIDE_U;
        }
        return FH_NONE;
    }
    switch (in->op) {
    case OP_ADD: return FH_ADD + (unsigned)kd;
    case OP_SUB: return FH_SUB + (unsigned)kd;
    case OP_MUL: return FH_MUL + (unsigned)kd;
    case OP_AND: return FH_AND + (unsigned)kd;
    case OP_OR: return FH_OR + (unsigned)kd;
    case OP_XOR: return FH_XOR + (unsigned)kd;
    case OP_MIN: return FH_MIN + (unsigned)kd;
    case OP_MAX: return FH_MAX + (unsigned)kd;
    case OP_MAD: return FH_MAD + (unsigned)kd;
    default: return FH_NONE;
    }
}

static unsigned flt_handler(const struct ptx_insn *in)
{
    unsigned base = in->type == PT_F32 ? FH_FADD : FH_DADD;
    switch (in->op) {
    case OP_ADD: return base;
    case OP_SUB: return base + 1;
    case OP_MUL: return base + 2;
    case OP_DIV: return base + 3;
    case OP_MAD: case OP_FMA: return base + 4;
    case OP_ABS: return base + 5;
    case OP_NEG: return base + 6;
    default: return FH_NONE;
    }
}

/* setp's comparison as the handlers number it, or -1. */
static int setp_cmp(unsigned cmp, bool flt)
{
    switch (cmp) {
    case PC_EQ: return 0;
    case PC_NE: return flt ? -1 : 1;
    case PC_LT: return 2;
    case PC_LE: return 3;
    case PC_GT: return 4;
    case PC_GE: return 5;
    case PC_LO: return flt ? -1 : 2;
    case PC_LS: return flt ? -1 : 3;
    case PC_HI: return flt ? -1 : 4;
    case PC_HS: return flt ? -1 : 5;
    default: return -1;
    }
}

/* The number of sources of an operation with handler h. */
static unsigned n_srcs(const struct ptx_insn *in)
{
    switch (in->op) {
    case OP_MAD: case OP_FMA: return 3;
    case OP_ABS: case OP_NEG: case OP_MOV: case OP_CVT: return 1;
    default: return 2;
    }
}

/* A ld/st .shared of one 4- or 8-byte value from [reg + imm]. */
static unsigned shared_handler(const struct ptx_insn *in, struct ptx_fast *f)
{
    bool st = in->op == OP_ST;
    const struct ptx_opd *m = &in->o[st ? 0 : 1], *v = &in->o[st ? 1 : 0];
    unsigned eb = ptx_type_bytes((enum ptx_type)in->type);
    int kd = mov_kind(in->type);
    if (in->space != PS_SHARED || in->vec != 1 || in->n_opds != 2 ||
        kd < 0 || m->kind != OPD_MEM || m->reg == PTX_NOREG ||
        m->var != PTX_NOVAR || v->kind != OPD_REG) {
        return FH_NONE;
    }
    f->a = (uint32_t)m->reg * PTX_WARP_SIZE;
    f->d = (uint32_t)v->reg * PTX_WARP_SIZE; /* st: the value */
    f->imm = (uint64_t)m->imm;
    if (st) {
        return eb == 4 ? FH_STS32 : FH_STS64;
    }
    return FH_LDS + (unsigned)kd;
}

static unsigned cvt_handler(const struct ptx_insn *in)
{
    unsigned dt = in->type, st = in->type2;
    int kd = kind_of(dt), ks = kind_of(st);
    if (kd >= 0 && ks >= 0) {
        if (in->flags & PIF_SAT) {
            return FH_NONE;
        }
        /* ext(ext(v, st), dt): a 32-bit result depends on the low bits
         * alone, a 64-bit one is the source extended */
        return FH_MOV + (unsigned)(kd <= K_S ? kd : ks);
    }
    if ((dt == PT_F32 || dt == PT_F64) && (st == PT_S32 || st == PT_U32)) {
        return (dt == PT_F32 ? FH_CVT_F_S32 : FH_CVT_D_S32) +
               (st == PT_U32);
    }
    if (in->flags & PIF_RNDI) {
        if (dt == PT_S32 && st == PT_F32 && in->rnd == PR_RZ) {
            return FH_CVT_S32_F_RZ;
        }
        return FH_NONE;
    }
    if (dt == PT_F64 && st == PT_F32) {
        return FH_CVT_D_F;
    }
    if (dt == PT_F32 && st == PT_F64) {
        return FH_CVT_F_D;
    }
    return FH_NONE;
}

/* The handler of one instruction, its slots in f (h 0: general). */
static void prepare_insn(struct prep *pp, const struct ptx_insn *in,
                         struct ptx_fast *f)
{
    unsigned t = in->type, h = FH_NONE;
    bool flt = t == PT_F32 || t == PT_F64;
    int kd = kind_of(t);
    memset(f, 0, sizeof(*f));
    switch (in->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_AND: case OP_OR:
    case OP_XOR: case OP_MIN: case OP_MAX: case OP_SHL: case OP_SHR:
    case OP_MAD: case OP_DIV: case OP_FMA: case OP_ABS: case OP_NEG:
        if (flt) {
            h = flt_handler(in);
        } else if (kd >= 0 && in->op != OP_DIV && in->op != OP_FMA &&
                   in->op != OP_ABS && in->op != OP_NEG) {
            h = int_handler(in, kd);
        }
        if (in->n_opds != 1 + n_srcs(in)) {
            h = FH_NONE;
        }
        break;
    case OP_MOV:
        kd = mov_kind(t);
        if (kd >= 0 && in->n_opds == 2) {
            h = FH_MOV + (unsigned)kd;
        }
        break;
    case OP_CVT:
        if (in->n_opds == 2) {
            h = cvt_handler(in);
        }
        break;
    case OP_SELP:
        kd = mov_kind(t);
        if (kd >= 0 && in->n_opds == 4 && in->o[3].kind == OPD_REG) {
            h = FH_SELP + (unsigned)kd;
            f->flip = in->o[3].neg;
            if (!srcs(pp, in, 1, 2, f)) {
                return;
            }
            f->c = (uint32_t)in->o[3].reg * PTX_WARP_SIZE;
            if (dst_slot(&in->o[0], &f->d)) {
                f->h = (uint16_t)h;
            }
        }
        return;
    case OP_SETP: {
        int c = setp_cmp(in->cmp, flt);
        if (in->boolop || in->o[1].kind == OPD_REG || c < 0 ||
            in->n_opds < 4) {
            return;
        }
        if (flt) {
            h = (t == PT_F32 ? FH_FSETP : FH_DSETP) + (unsigned)c -
                (c > 0 ? 1 : 0);
        } else if (kd >= 0) {
            h = FH_SETP + (unsigned)c * K_N + (unsigned)kd;
            f->flip = (kd == K_S || kd == K_I) && in->cmp >= PC_LT &&
                      in->cmp <= PC_GE;
        }
        if (h && srcs(pp, in, 2, 2, f) && dst_slot(&in->o[0], &f->d)) {
            f->h = (uint16_t)h;
        }
        return;
    }
    case OP_LD:
    case OP_ST:
        f->h = (uint16_t)shared_handler(in, f);
        return;
    case OP_BRA:
        if (in->n_opds >= 1 && in->o[0].kind == OPD_LABEL) {
            f->h = PTX_FAST_BRA;
            f->imm = (uint64_t)in->o[0].imm;
        }
        return;
    default:
        return;
    }
    if (h && srcs(pp, in, 1, n_srcs(in), f) && dst_slot(&in->o[0], &f->d)) {
        f->h = (uint16_t)h;
    }
}

int ptx__fast_prepare(struct ptx_kernel *k)
{
    struct prep pp = {.k = k, .hcap = 2 * FAST_CONSTS_MAX};
    free(k->fast);
    free(k->cvals);
    k->n_cvals = 0;
    k->fast = calloc((size_t)k->n_insns + 1, sizeof(*k->fast));
    k->cvals = malloc(FAST_CONSTS_MAX * sizeof(*k->cvals));
    pp.hash = calloc(pp.hcap, sizeof(*pp.hash));
    if (!k->fast || !k->cvals || !pp.hash) {
        free(pp.hash);
        return PTX_ENOMEM;
    }
    for (unsigned i = 0; i < k->n_insns; i++) {
        prepare_insn(&pp, &k->insns[i], &k->fast[i]);
        k->fast[i].guard = k->insns[i].guard;
        k->fast[i].guard_neg = k->insns[i].guard_neg;
    }
    free(pp.hash);
    return 0;
}

void ptx__fast_free(struct ptx_kernel *k)
{
    free(k->fast);
    free(k->cvals);
    k->fast = NULL;
    k->cvals = NULL;
    k->n_cvals = 0;
}

/* ---------------------------------------------------------------------- */
/* Execution                                                               */
/* ---------------------------------------------------------------------- */

/* v extended as kind K (a constant, so the choice folds away). */
#define EK(K, v)                                                            \
    ((K) == K_Z ? (uint64_t)(uint32_t)(v)                                   \
     : (K) == K_S ? (uint64_t)(int64_t)(int32_t)(v) : (uint64_t)(v))
#define SIGNED(K) ((K) == K_S || (K) == K_I)
#define BITS(K) ((K) <= K_S ? 32u : 64u)

/* A lane loop: x, y, z are lane l's raw sources, expr its result; the
 * lanes outside exec keep their value. */
#define LOOP(expr)                                                          \
    do {                                                                    \
        if (exec == UINT32_MAX) {                                           \
            IVDEP for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {            \
                uint64_t x = A[l], y = B[l], z = C[l];                      \
                (void)x, (void)y, (void)z;                                  \
                D[l] = (expr);                                              \
            }                                                               \
        } else {                                                            \
            IVDEP for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {            \
                uint64_t x = A[l], y = B[l], z = C[l];                      \
                (void)x, (void)y, (void)z;                                  \
                uint64_t r_ = (expr);                                       \
                D[l] = (exec >> l & 1u) ? r_ : D[l];                        \
            }                                                               \
        }                                                                   \
    } while (0)

/* The same for f32 (fx, fy, fz) and f64 (dx, dy, dz) operands. */
#define FLOOP(expr)                                                         \
    LOOP(({                                                                 \
        float fx = f32(x), fy = f32(y), fz = f32(z);                        \
        (void)fx, (void)fy, (void)fz;                                       \
        bits32(expr);                                                       \
    }))
#define DLOOP(expr)                                                         \
    LOOP(({                                                                 \
        double dx = f64(x), dy = f64(y), dz = f64(z);                       \
        (void)dx, (void)dy, (void)dz;                                       \
        bits64(expr);                                                       \
    }))

/* The four kinds of an integer operation. */
#define KINDS(base, expr)                                                   \
    case base + K_Z: { const int K = K_Z; LOOP(EK(K, expr)); break; }        \
    case base + K_S: { const int K = K_S; LOOP(EK(K, expr)); break; }        \
    case base + K_U: { const int K = K_U; LOOP(EK(K, expr)); break; }        \
    case base + K_I: { const int K = K_I; LOOP(EK(K, expr)); break; }

/* Signed or unsigned order of two values extended as K. */
#define LESS(K, a, b)                                                       \
    (SIGNED(K) ? (int64_t)EK(K, a) < (int64_t)EK(K, b) : EK(K, a) < EK(K, b))

/* A shared-memory row: every running lane's offset in bounds? */
static inline __attribute__((always_inline)) bool
shared_offsets(const struct ptx_warp *w, const struct ptx_fast *f,
               uint32_t exec, unsigned n, uint64_t *off)
{
    const uint64_t *a = &w->r[f->a];
    uint64_t lim = w->ctx.shared ? w->ctx.shared_bytes : 0, out = 0;
    for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
        off[l] = (a[l] + f->imm) & 0xffffffffu;
        out |= off[l] + n > lim;
    }
    if (!out) {
        return true; /* every lane in bounds, the usual case */
    }
    LANES(exec, l) {
        if (off[l] + n > lim) {
            return false;
        }
    }
    return true;
}

/* One lane's value of a ld.shared of kind K at p. */
#define LDS_ONE(K, p)                                                       \
    (BITS(K) == 32 ? EK(K, ({                                               \
        uint32_t v_;                                                        \
        memcpy(&v_, (p), 4);                                                \
        v_;                                                                 \
    }))                                                                     \
                   : ({                                                     \
                         uint64_t v_;                                       \
                         memcpy(&v_, (p), 8);                               \
                         v_;                                                \
                     }))

#define LDS(K)                                                              \
    case FH_LDS + K: {                                                      \
        uint64_t t_[PTX_WARP_SIZE];                                         \
        if (!shared_offsets(w, f, exec, BITS(K) / 8, t_)) {                 \
            return false;                                                   \
        }                                                                   \
        const uint8_t *sh_ = w->ctx.shared;                                 \
        if (exec == UINT32_MAX) {                                           \
            IVDEP for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {            \
                D[l] = LDS_ONE(K, sh_ + t_[l]);                             \
            }                                                               \
        } else {                                                            \
            LANES(exec, l) {                                                \
                D[l] = LDS_ONE(K, sh_ + t_[l]);                             \
            }                                                               \
        }                                                                   \
        return true;                                                        \
    }

/*
 * A predicate row's lanes as a mask (bit 0 of each slot, neg: inverted).
 * Written as a lane loop, the compiler packs the row and ORs it down in
 * a chain of a dozen dependent steps, which every guarded instruction
 * waits for; with AVX-512 (the x86-64-v4 clone, where this inlines) four
 * bit tests give the mask at once.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&     \
    defined(__ELF__)
#include <immintrin.h>
#define PRED_AVX512 1
__attribute__((target("avx512f,avx512bw"))) static inline uint32_t
pred_mask_avx512(const uint64_t *p)
{
    const __m512i one = _mm512_set1_epi64(1);
    uint32_t m0 = _mm512_test_epi64_mask(_mm512_loadu_si512(p), one);
    uint32_t m1 = _mm512_test_epi64_mask(_mm512_loadu_si512(p + 8), one);
    uint32_t m2 = _mm512_test_epi64_mask(_mm512_loadu_si512(p + 16), one);
    uint32_t m3 = _mm512_test_epi64_mask(_mm512_loadu_si512(p + 24), one);
    return m0 | m1 << 8 | m2 << 16 | m3 << 24;
}
#endif

static inline __attribute__((always_inline)) uint32_t
pred_mask(const uint64_t *p, uint32_t neg)
{
#ifdef PRED_AVX512
    if (__builtin_cpu_supports("avx512bw")) {
        return pred_mask_avx512(p) ^ (0u - neg);
    }
#endif
    uint32_t m = 0;
    for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
        m |= (((uint32_t)p[l] & 1u) ^ neg) << l;
    }
    return m;
}

FAST_CLONES
uint32_t ptx__pred_mask(const uint64_t *p, uint32_t neg)
{
    return pred_mask(p, neg);
}

/* One pre-decoded instruction over the lanes in exec (not 0). Return:
 * false when it must go through the general interpreter. */
static inline __attribute__((always_inline)) bool
fast_exec(struct ptx_warp *w, const struct ptx_fast *f, uint32_t exec)
{
    uint64_t *D = &w->r[f->d];
    const uint64_t *A = &w->r[f->a], *B = &w->r[f->b], *C = &w->r[f->c];
    uint64_t flip = (uint64_t)f->flip << 63;
    switch (f->h) {
    KINDS(FH_ADD, x + y)
    KINDS(FH_SUB, x - y)
    KINDS(FH_MUL, x * y)
    KINDS(FH_AND, x & y)
    KINDS(FH_OR, x | y)
    KINDS(FH_XOR, x ^ y)
    KINDS(FH_MIN, LESS(K, y, x) ? EK(K, y) : EK(K, x))
    KINDS(FH_MAX, LESS(K, x, y) ? EK(K, y) : EK(K, x))
    KINDS(FH_SHL, (uint32_t)y >= BITS(K) ? 0 : EK(K, x) << (uint32_t)y)
    KINDS(FH_SHR, SIGNED(K)
                      ? (uint64_t)((int64_t)EK(K, x) >>
                                   ((uint32_t)y >= BITS(K) ? 63 : (uint32_t)y))
                      : ((uint32_t)y >= BITS(K) ? 0
                                                : EK(K, x) >> (uint32_t)y))
    KINDS(FH_MAD, x * y + z)
    KINDS(FH_MOV, x)
    KINDS(FH_SELP, ((z & 1u) ^ f->flip) ? x : y)
#define SETPS(c, expr)                                                      \
    case FH_SETP + c * K_N + K_Z: { const int K = K_Z; LOOP(expr); break; }  \
    case FH_SETP + c * K_N + K_S: { const int K = K_S; LOOP(expr); break; }  \
    case FH_SETP + c * K_N + K_U: { const int K = K_U; LOOP(expr); break; }  \
    case FH_SETP + c * K_N + K_I: { const int K = K_I; LOOP(expr); break; }
    SETPS(0, EK(K, x) == EK(K, y))
    SETPS(1, EK(K, x) != EK(K, y))
    SETPS(2, (EK(K, x) ^ flip) < (EK(K, y) ^ flip))
    SETPS(3, (EK(K, x) ^ flip) <= (EK(K, y) ^ flip))
    SETPS(4, (EK(K, x) ^ flip) > (EK(K, y) ^ flip))
    SETPS(5, (EK(K, x) ^ flip) >= (EK(K, y) ^ flip))
#undef SETPS
    case FH_MULWIDE_S: LOOP(EK(K_S, x) * EK(K_S, y)); break;
    case FH_MULWIDE_U: LOOP(EK(K_Z, x) * EK(K_Z, y)); break;
    case FH_MADWIDE_S: LOOP(EK(K_S, x) * EK(K_S, y) + z); break;
    case FH_MADWIDE_U: LOOP(EK(K_Z, x) * EK(K_Z, y) + z); break;
    case FH_FADD: FLOOP(fx + fy); break;
    case FH_FSUB: FLOOP(fx - fy); break;
    case FH_FMUL: FLOOP(fx * fy); break;
    case FH_FDIV: FLOOP(fx / fy); break;
    case FH_FFMA: FLOOP(fmaf(fx, fy, fz)); break;
    case FH_FABS: FLOOP(fabsf(fx)); break;
    case FH_FNEG: FLOOP(-fx); break;
    case FH_DADD: DLOOP(dx + dy); break;
    case FH_DSUB: DLOOP(dx - dy); break;
    case FH_DMUL: DLOOP(dx * dy); break;
    case FH_DDIV: DLOOP(dx / dy); break;
    case FH_DFMA: DLOOP(fma(dx, dy, dz)); break;
    case FH_DABS: DLOOP(fabs(dx)); break;
    case FH_DNEG: DLOOP(-dx); break;
    case FH_FSETP + 0: LOOP(f32(x) == f32(y)); break;
    case FH_FSETP + 1: LOOP(f32(x) < f32(y)); break;
    case FH_FSETP + 2: LOOP(f32(x) <= f32(y)); break;
    case FH_FSETP + 3: LOOP(f32(x) > f32(y)); break;
    case FH_FSETP + 4: LOOP(f32(x) >= f32(y)); break;
    case FH_DSETP + 0: LOOP(f64(x) == f64(y)); break;
    case FH_DSETP + 1: LOOP(f64(x) < f64(y)); break;
    case FH_DSETP + 2: LOOP(f64(x) <= f64(y)); break;
    case FH_DSETP + 3: LOOP(f64(x) > f64(y)); break;
    case FH_DSETP + 4: LOOP(f64(x) >= f64(y)); break;
    case FH_CVT_F_S32: LOOP(bits32((float)(int32_t)x)); break;
    case FH_CVT_F_U32: LOOP(bits32((float)(uint32_t)x)); break;
    case FH_CVT_D_S32: LOOP(bits64((double)(int32_t)x)); break;
    case FH_CVT_D_U32: LOOP(bits64((double)(uint32_t)x)); break;
    case FH_CVT_D_F: LOOP(bits64((double)f32(x))); break;
    case FH_CVT_F_D: LOOP(bits32((float)f64(x))); break;
    case FH_CVT_S32_F_RZ:
        /* saturating, NaN gives 0 (interp_move.c's convert) */
        LOOP(({
            float v = f32(x);
            EK(K_S, isnan(v) ? 0
                    : v <= -2147483648.0f ? INT32_MIN
                    : v >= 2147483648.0f ? INT32_MAX
                    : (int32_t)v);
        }));
        break;
    LDS(K_Z)
    LDS(K_S)
    LDS(K_U)
    LDS(K_I)
    case FH_STS32:
    case FH_STS64: {
        uint64_t t_[PTX_WARP_SIZE];
        unsigned n = f->h == FH_STS32 ? 4 : 8;
        if (!shared_offsets(w, f, exec, n, t_)) {
            return false;
        }
        LANES(exec, l) {
            if (n == 4) {
                uint32_t v = (uint32_t)D[l];
                memcpy(w->ctx.shared + t_[l], &v, 4);
            } else {
                memcpy(w->ctx.shared + t_[l], &D[l], 8);
            }
        }
        return true;
    }
    default:
        return false;
    }
    return true;
}

FAST_CLONES
unsigned ptx__fast_run(struct ptx_warp *w, unsigned max)
{
    const struct ptx_fast *fast = w->fast;
    unsigned pc = w->pc, n = 0;
    uint32_t group = w->group;
    bool all = group == w->live;
    while (n < max) {
        const struct ptx_fast *f = &fast[pc];
        if (!f->h) {
            break;
        }
        uint32_t exec = f->guard == PTX_NOREG
                            ? group
                            : pred_mask(&w->r[(size_t)f->guard * PTX_WARP_SIZE],
                                        f->guard_neg) & group;
        if (f->h == PTX_FAST_BRA) {
            /* a branch that all the group takes, or none */
            if (exec && exec != group) {
                break;
            }
            pc = exec ? (unsigned)f->imm : pc + 1;
        } else {
            if (exec && !fast_exec(w, f, exec)) {
                break; /* the general path reports it */
            }
            pc++;
        }
        n++;
        if (!all && pc >= w->others_min) {
            break;
        }
    }
    w->pc = pc;
    w->n_instr += n;
    return n;
}
