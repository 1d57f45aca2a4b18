/*
 * ptx/interp_int.h - the warp's state and the helpers shared by the
 * interpreter's files: interp.c (the run loop, control flow and
 * divergence, shuffles and votes, the warp's life), interp_alu.c
 * (arithmetic), interp_move.c (moves, conversions, comparisons) and
 * interp_mem.c (loads, stores and atomics); interp_fast.c runs the
 * common forms from a pre-decoded copy of the code.
 *
 * Registers: a slot is 64 bits per lane (ptx_int.h); a lane loop reads
 * an operand through struct lane_src, so its body has no branch on the
 * operand kind.
 */
#ifndef P2PSIM_PTX_INTERP_INT_H
#define P2PSIM_PTX_INTERP_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ptx/ptx.h"
#include "ptx/ptx_int.h"

enum warp_state { WS_RUN, WS_MEM, WS_DONE, WS_ERROR };

struct ptx_warp {
    const struct ptx_kernel *k;
    const struct ptx_insn *insns;
    const struct ptx_fast *fast; /* k->fast: the pre-decoded form */
    unsigned n_insns;
    const uint8_t *param;      /* launch parameter buffer (not owned) */
    uint32_t param_bytes;
    struct ptx_warp_ctx ctx;

    uint32_t live;             /* lanes not exited */
    uint32_t group;            /* lanes at pc (a subset of live) */
    unsigned pc;
    unsigned others_min;       /* lowest PC of live & ~group, or UINT_MAX */
    unsigned lpc[PTX_WARP_SIZE]; /* PC of lanes outside the group */
    uint32_t sync_wait;        /* lanes parked at a warp-synchronous
                                * instruction (their lpc) until the lanes
                                * of its membermask arrive (interp.c) */
    bool sync_force;           /* the group runs its next warp-synchronous
                                * instruction without waiting */

    enum warp_state state;
    unsigned pend;             /* instruction of the pending MEM request
                                * or barrier */
    uint32_t pend_mask;        /* its global lanes; a barrier's lanes */
    bool at_bar;               /* stopped at a barrier (pend) */

    /* calls (interp.c, interp_call.c): per lane, the PCs of its open
     * calls (PTX_CALL_DEPTH_MAX each), NULL when the kernel calls none */
    uint64_t *cstack;
    uint8_t cdepth[PTX_WARP_SIZE];
    /* recursion: per lane, the saved registers and frames of functions
     * called again while open (a stack of bytes) */
    uint8_t *save[PTX_WARP_SIZE];
    size_t save_len[PTX_WARP_SIZE], save_cap[PTX_WARP_SIZE];
    bool asserted;             /* the error is a failed device assert */
    unsigned wmma_elem;        /* a global wmma's next request starts at
                                * this element (interp_wmma.c) */

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

/* A function of lane loops compiled for AVX-512, for AVX2 with FMA and
 * for the base instruction set, the best chosen at load time: the base
 * x86-64 has no 64-bit variable shifts or compares and calls fmaf per
 * lane. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&     \
    defined(__ELF__)
#define FAST_CLONES                                                         \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",       \
                                 "default")))
#else
#define FAST_CLONES
#endif

/* Before a lane loop that may write a row it reads (d == a): each lane
 * reads and writes its own elements only, which ivdep tells the
 * vectorizer. */
#if defined(__GNUC__) && !defined(__clang__)
#define IVDEP _Pragma("GCC ivdep")
#else
#define IVDEP
#endif

#define R(w, reg, l) ((w)->r[(size_t)(reg) * PTX_WARP_SIZE + (l)])

/* An operand that is neither a register nor an immediate: a time
 * register or a module variable's address (same for every lane). */
uint64_t ptx__val_slow(const struct ptx_warp *w, const struct ptx_opd *o);

/* ---------------------------------------------------------------------- */
/* Values                                                                  */
/* ---------------------------------------------------------------------- */

/* Extension of a value of type t held in 64 bits: shift left by
 * ext_sh[t], then back (arithmetic when ext_signed[t]). */
static const unsigned char ext_sh[PT_COUNT] = {
    [PT_PRED] = 63, [PT_B8] = 56,  [PT_B16] = 48, [PT_B32] = 32,
    [PT_U8] = 56,   [PT_U16] = 48, [PT_U32] = 32, [PT_S8] = 56,
    [PT_S16] = 48,  [PT_S32] = 32, [PT_F16] = 48, [PT_F32] = 32,
    [PT_F16X2] = 32,
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
    return ptx__val_slow(w, o);
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
        s->imm = o->kind == OPD_IMM ? (uint64_t)o->imm : ptx__val_slow(w, o);
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


/* Fail the warp with "kernel K: PTX line L: ..." (ptx_warp_run then stops
 * with PTX_STOP_ERROR). Return: -1. */
int ptx__warp_fail(struct ptx_warp *w, const struct ptx_insn *in,
                   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* vprintf and __assertfail for the lanes in exec (interp_call.c).
 * Return: 0, or -1 with the warp failed. */
int ptx__call_builtin(struct ptx_warp *w, const struct ptx_insn *in,
                      const struct ptx_call *c, uint32_t exec);

/* A call of malloc or free (in, for the lanes in exec): the request
 * for the executor's heap in req (PTX_MEM_MALLOC, PTX_MEM_FREE), true;
 * of cudaGraphSetConditional: the store of its value to its handle;
 * false for any other callee. ptx__call_heap_result() stores malloc's
 * results in the lanes' return values (interp_call.c). */
bool ptx__call_heap(const struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec, struct ptx_mem_req *req);
void ptx__call_heap_result(struct ptx_warp *w, const struct ptx_insn *in,
                           uint32_t mask, const struct ptx_mem_req *req);

/* The instructions, each over the lanes in exec. */
void ptx__exec_alu(struct ptx_warp *w, const struct ptx_insn *in,
                   uint32_t exec);
void ptx__exec_mov(struct ptx_warp *w, const struct ptx_insn *in,
                   uint32_t exec);
void ptx__exec_cvt(struct ptx_warp *w, const struct ptx_insn *in,
                   uint32_t exec);
void ptx__exec_cvta(struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec);
void ptx__exec_setp(struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec);
/* interp_warp.c: the lanes of exec are those that take part */
void ptx__exec_shfl(struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec);
void ptx__exec_vote(struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec);
void ptx__exec_match(struct ptx_warp *w, const struct ptx_insn *in,
                     uint32_t exec);
void ptx__exec_selp(struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec);
/* Run at most max instructions of k->fast from w->pc, counted in
 * n_instr; stop before one without a handler, a divergent branch, a
 * shared access out of bounds (the general path reports it), and after
 * one that reaches the lowest PC of waiting lanes (w->others_min; the
 * caller reselects). Return: the instructions run. */
unsigned ptx__fast_run(struct ptx_warp *w, unsigned max);
/* The lanes whose predicate row p (bit 0) is true, or false when neg. */
uint32_t ptx__pred_mask(const uint64_t *p, uint32_t neg);
/* f16 and f16x2 arithmetic (interp_f16.c). */
void ptx__exec_f16(struct ptx_warp *w, const struct ptx_insn *in,
                   uint32_t exec);
/* ld / st / atom / red. Internal lanes are done now; global lanes go to
 * req. Return: 1 when req holds a request, 0 when all is done, -1 on
 * error. */
int ptx__exec_mem(struct ptx_warp *w, const struct ptx_insn *in,
                  uint32_t exec, struct ptx_mem_req *req);
/* The fields of req that every memory request of in shares. */
void ptx__req_common(const struct ptx_warp *w, const struct ptx_insn *in,
                     struct ptx_mem_req *req, enum ptx_mem_op op);
/* A load's results (req->result) into the destination registers of the
 * lanes in mask. */
void ptx__mem_result(struct ptx_warp *w, const struct ptx_insn *in,
                     uint32_t mask, const struct ptx_mem_req *req);
/* Loaded bytes into the destination register(s) of lane l. */
void ptx__bytes_to_regs(struct ptx_warp *w, const struct ptx_insn *in,
                        const struct ptx_opd *d, unsigned l,
                        const uint8_t *src);

#endif /* P2PSIM_PTX_INTERP_INT_H */
