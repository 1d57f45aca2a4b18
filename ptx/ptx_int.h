/*
 * ptx/ptx_int.h - internals of the PTX front end shared by its files
 * (parse*.c build modules, decode.c turns one PTX instruction into a
 * struct ptx_insn, interp*.c run them) and by white-box tests.
 *
 * Registers: every register of a kernel is a 64-bit slot per lane; a
 * value is kept as raw bits (integers sign- or zero-extended as the
 * writer's type says, f32 in the low 32 bits) and every reader
 * reinterprets it through its own instruction type. The per-lane
 * constant special registers (%tid.x, %ctaid.y, %laneid, %envreg3 ...)
 * are slots too, filled when the warp is created, so an operand is only
 * ever a register, an immediate, or an address.
 */
#ifndef P2PSIM_PTX_PTX_INT_H
#define P2PSIM_PTX_PTX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptx/ptx.h"

/* Types, as named in PTX. */
enum ptx_type {
    PT_NONE, PT_PRED,
    PT_B8, PT_B16, PT_B32, PT_B64,
    PT_U8, PT_U16, PT_U32, PT_U64,
    PT_S8, PT_S16, PT_S32, PT_S64,
    PT_F16, PT_F32, PT_F64,
    PT_F16X2, /* two f16 in 32 bits (interp_f16.c) */
    PT_COUNT
};

/* Opcodes the interpreter runs. */
enum ptx_opcode {
    OP_MOV, OP_LD, OP_ST, OP_CVTA, OP_CVT,
    OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_DIV, OP_REM, OP_MIN, OP_MAX,
    OP_ABS, OP_NEG, OP_AND, OP_OR, OP_XOR, OP_NOT, OP_CNOT, OP_SHL,
    OP_SHR, OP_FMA, OP_RCP, OP_SQRT, OP_RSQRT, OP_EX2, OP_LG2, OP_SIN,
    OP_COS, OP_COPYSIGN, OP_POPC, OP_CLZ, OP_BREV, OP_BFE, OP_BFI,
    OP_PRMT, OP_SETP, OP_SELP,
    OP_BRA, OP_RET, OP_EXIT, OP_TRAP, OP_NOP,
    OP_ATOM, OP_RED, OP_MEMBAR, OP_FENCE, OP_BAR,
    OP_SHFL, OP_VOTE, OP_ACTIVEMASK,
    OP_BFIND, OP_BMSK, OP_MATCH, OP_NANOSLEEP, OP_CALL, OP_VABSDIFF4,
    OP_SHF
};

/* The mode of an OP_NOP that is bar.warp.sync (o[0]: its membermask). */
#define PTX_NOP_WARP_SYNC 1

/* State spaces. */
enum ptx_space { PS_GENERIC, PS_GLOBAL, PS_SHARED, PS_LOCAL, PS_PARAM,
                 PS_CONST };

/* Comparisons of setp (u: unordered too, for floats). */
enum ptx_cmp { PC_EQ, PC_NE, PC_LT, PC_LE, PC_GT, PC_GE, PC_LO, PC_LS,
               PC_HI, PC_HS, PC_EQU, PC_NEU, PC_LTU, PC_LEU, PC_GTU,
               PC_GEU, PC_NUM, PC_NAN };

/* Operand kinds. */
enum ptx_opd_kind {
    OPD_NONE,
    OPD_REG,   /* reg */
    OPD_IMM,   /* imm: raw bits of the value in the instruction type */
    OPD_VEC,   /* n registers in vregs (0xffff: the sink "_") */
    OPD_MEM,   /* [reg + imm] or [var + imm]; reg 0xffff: none */
    OPD_LABEL, /* imm: instruction index */
    OPD_TIME,  /* imm: enum ptx_time_sreg | OPD_TIME_ALL/LO/HI */
    OPD_VAR,   /* the address of module variable var, plus imm */
    OPD_SINK   /* "_" */
};

/* Which bits of a time register an OPD_TIME reads (%clock_hi: the high
 * half of the 64-bit cycle counter). */
#define OPD_TIME_ALL 0x000
#define OPD_TIME_LO 0x100
#define OPD_TIME_HI 0x200

#define PTX_NOREG 0xffffu
#define PTX_NOVAR (-1)

struct ptx_opd {
    uint8_t kind;   /* enum ptx_opd_kind */
    uint8_t neg;    /* !%p: the predicate negated */
    uint8_t n;      /* OPD_VEC: registers */
    uint16_t reg;   /* OPD_REG, OPD_MEM base (PTX_NOREG: none) */
    uint16_t vregs[4];
    int32_t var;    /* OPD_MEM/OPD_VAR: module variable, or PTX_NOVAR */
    int64_t imm;
};

#define PTX_MAX_OPDS 6

/* Flags of struct ptx_insn. */
#define PIF_SAT 0x0001u    /* .sat */
#define PIF_HI 0x0002u     /* mul.hi / mad.hi */
#define PIF_WIDE 0x0004u   /* mul.wide / mad.wide */
#define PIF_TO 0x0008u     /* cvta.to */
#define PIF_NC 0x0010u     /* ld.global.nc */
#define PIF_RNDI 0x0020u   /* cvt to integer: round mode given */
#define PIF_UNI 0x0040u    /* bra.uni */
#define PIF_WAIT 0x0080u   /* bar.sync (vs bar.arrive) */
#define PIF_FTZ 0x0100u    /* .ftz: flush f32 subnormals */
#define PIF_SHIFTAMT 0x0200u /* bfind.shiftamt */
#define PIF_WRAP 0x0400u   /* bmsk.wrap, shf.wrap (vs .clamp) */
#define PIF_24 0x0800u     /* mul24 / mad24: 24-bit operands */

/* bar.red's operations. */
enum { PTX_BAR_RED_POPC = 1, PTX_BAR_RED_AND, PTX_BAR_RED_OR };

/* Rounding modes (for cvt and float arithmetic). */
enum ptx_rnd { PR_NONE, PR_RN, PR_RZ, PR_RM, PR_RP };

struct ptx_insn {
    uint8_t op;       /* enum ptx_opcode */
    uint8_t type;     /* enum ptx_type: the instruction type */
    uint8_t type2;    /* cvt: the source type */
    uint8_t space;    /* enum ptx_space */
    uint8_t sem;      /* enum ptx_mem_sem */
    uint8_t scope;    /* enum ptx_mem_scope */
    uint8_t vec;      /* 1, 2 or 4 */
    uint8_t cmp;      /* setp: enum ptx_cmp */
    uint8_t boolop;   /* setp: 0 none, 1 and, 2 or, 3 xor */
    uint8_t mode;     /* atom: enum ptx_atom_op; shfl: 0 up 1 down
                       * 2 bfly 3 idx; vote: 0 any 1 all 2 uni 3 ballot;
                       * match: 0 any 1 all; bar: 0, or bar.red's
                       * PTX_BAR_RED_* (o[1] id, o[2] count, o[3] p) */
    uint8_t rnd;      /* enum ptx_rnd */
    uint8_t n_opds;
    uint16_t flags;   /* PIF_* */
    uint16_t guard;   /* guard predicate register, or PTX_NOREG */
    uint8_t guard_neg;
    unsigned line;    /* PTX source line */
    struct ptx_opd o[PTX_MAX_OPDS];
};

/* The per-lane constant special registers, in slot order. */
enum ptx_sreg_slot {
    SR_TID_X, SR_TID_Y, SR_TID_Z,
    SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
    SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z,
    SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z,
    SR_LANEID, SR_WARPID, SR_NWARPID, SR_SMID, SR_NSMID, SR_GRIDID,
    SR_LANEMASK_EQ, SR_LANEMASK_LT, SR_LANEMASK_LE, SR_LANEMASK_GT,
    SR_LANEMASK_GE,
    SR_TOTAL_SMEM,  /* %total_smem_size, %aggr_smem_size */
    SR_DYN_SMEM,    /* %dynamic_smem_size */
    SR_ZERO,        /* what reads 0 here: %pm0..7, %reserved_smem_*, ... */
    SR_ONE,         /* %cluster_nctaid.*, %cluster_nctarank */
    SR_ENVREG0,
    SR_COUNT = SR_ENVREG0 + 32
};

/* A call instruction (o[0].imm indexes k->calls): the callee, and the
 * caller's .param variables (offsets in the lane's .local frame). An
 * indirect call's callee is the function whose address (PTX_FUNC_ADDR of
 * its index among the module's functions) its register holds. */
enum ptx_callee {
    PTX_CALLEE_FUNC, PTX_CALLEE_VPRINTF, PTX_CALLEE_ASSERT,
    PTX_CALLEE_INDIRECT, PTX_CALLEE_MALLOC, PTX_CALLEE_FREE,
    PTX_CALLEE_SETCOND,
    PTX_CALLEE_DEVRT          /* the device runtime's (func: enum
                               * ptx_devrt), served by the executor */
};

/* The address of the module's function i, as initializers and operands
 * naming a .func read; far from any memory address. */
#define PTX_FUNC_ADDR_BASE 0xfff0000000000000ull
#define PTX_FUNC_ADDR(i) (PTX_FUNC_ADDR_BASE + (uint64_t)(i) * 16u)
/* The address of the module's entry name i (a kernel named as a value,
 * `mov.u64 %rd, kernel`, as a device-side launch takes it). */
#define PTX_ENTRY_ADDR_BASE 0xffe0000000000000ull
#define PTX_ENTRY_ADDR(i) (PTX_ENTRY_ADDR_BASE + (uint64_t)(i) * 16u)

struct ptx_call {
    uint8_t kind;             /* enum ptx_callee */
    unsigned func;            /* FUNC: index in k->funcs; INDIRECT: the
                               * register slot of the address */
    unsigned n_args;
    uint32_t ret_bytes;       /* 0: no return value */
    int64_t ret_off;
    int64_t arg_off[PTX_CALL_ARGS_MAX];
    uint32_t arg_bytes[PTX_CALL_ARGS_MAX];
    const char *name;         /* DEVRT: the callee, in the module's strings */
};

/* A device function's code in a kernel that calls it: its first
 * instruction, and its parameters in the lane's .local frame. */
struct ptx_func_inst {
    const char *name;
    unsigned mod_index;       /* among the module's functions */
    unsigned entry;
    unsigned line;            /* of the first call, for messages */
    unsigned n_params;
    int64_t param_off[PTX_CALL_ARGS_MAX];
    uint32_t param_bytes[PTX_CALL_ARGS_MAX];
    int64_t retval_off;
    uint32_t retval_bytes;
    /* what a recursive call saves: its register slots and frame bytes */
    uint32_t slot_lo, slot_hi, loc_lo, loc_hi;
};

/* An instruction's pre-decoded form (interp_fast.c): a specialized
 * handler (0: the general interpreter) and its operands as offsets
 * (slot * 32) into the warp's registers; an immediate is a constant
 * slot, n_regs + i holding cvals[i] in every lane. */
#define PTX_FAST_BRA 0xffffu /* h of a bra: run by ptx_warp_run itself,
                               * the target in imm */

struct ptx_fast {
    uint16_t h;
    uint8_t flip;   /* setp: signed order; selp: the predicate negated */
    uint8_t guard_neg;
    uint16_t guard; /* as struct ptx_insn's */
    uint32_t d, a, b, c;
    uint64_t imm;   /* ld/st .shared: the address's offset; bra: target */
};

struct ptx_kernel {
    const struct ptx_module *mod;
    struct ptx_call *calls;
    unsigned n_calls, cap_calls;
    struct ptx_func_inst *funcs;
    unsigned n_funcs, cap_funcs;
    struct ptx_kernel_info info;
    struct ptx_param_info *params;
    struct ptx_insn *insns;
    unsigned n_insns, cap_insns;
    unsigned n_regs;          /* slots, SR_COUNT included */
    struct ptx_fast *fast;    /* n_insns + 1 (the last h 0), or NULL */
    uint64_t *cvals;          /* constant slots' values */
    unsigned n_cvals;
    uint32_t local_bytes;
    bool dyn_shared_used;     /* (parse) its code uses extern .shared */
    uint16_t *wregs;          /* wmma fragments' registers (wmma_int.h) */
    unsigned n_wregs, cap_wregs;
    /* The first unsupported construct (error line 0: none). */
    unsigned err_line;
    char *err_msg;
    bool indirect;            /* has an indirect call */
};

struct ptx_module {
    unsigned version;    /* 90 for 9.0 */
    unsigned target_sm;  /* 90 for sm_90 */
    struct ptx_kernel **kernels;
    unsigned n_kernels;
    struct ptx_var_info *vars;
    unsigned n_vars;
    char **strings;        /* owned strings (names, messages) */
    unsigned n_strings, cap_strings;
    /* kernels named as values (PTX_ENTRY_ADDR), names in strings */
    const char **entry_names;
    unsigned n_entry_names, cap_entry_names;
};

/* Fill err (when not NULL): code, line, no column, the message. */
void ptx__set_err(struct ptx_error *err, int code, unsigned line,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* "kernel K: PTX line L: what" into msg (cap bytes), K cut short with
 * "..." when the whole would not fit (parse_lex.c). */
void ptx__kernel_msg(char *msg, size_t cap, const char *kname, unsigned line,
                     const char *what);

/* ---- parse_decl.c, parse_lex.c: symbol lookups for decode.c ---- */

struct ptx_parse;

/* Register slot of a name ("%r12", "%tid.x"), or -1. */
int ptx_parse_reg(struct ptx_parse *p, const char *name);
/* The address of the module's function name (PTX_FUNC_ADDR), declared
 * here if not yet, for an initializer or operand naming it: 0 with *v,
 * -1 when name is not an identifier, PTX_ENOMEM. */
int ptx__func_addr(struct ptx_parse *p, const char *name, uint64_t *v);
/* The address of kernel name (PTX_ENTRY_ADDR) when the module declares
 * or defines an .entry of that name: 0, -1 (none), PTX_ENOMEM. */
int ptx__entry_addr(struct ptx_parse *p, const char *name, size_t n,
                    uint64_t *v);
/* An operand naming a symbol: a variable's or parameter's address, or a
 * declared function's (for an indirect call). 0, or -1 with why. */
int ptx__sym_operand(struct ptx_parse *p, const char *s, struct ptx_opd *o,
                     char *why, size_t wl);
/* Resolve an address symbol: a param, a .shared or .local variable (an
 * offset in its space: *space, *offset), or a module variable (*var).
 * Return: 0, or -1 when unknown. */
int ptx_parse_sym(struct ptx_parse *p, const char *name,
                  enum ptx_space *space, int64_t *offset, int *var);
/* Place the module .shared variables that the body starting at the
 * parser's position ({ ... }) names, in the order it names them, before
 * the body is parsed: they come before any dynamic shared memory, whose
 * offset a body fixes at its first use (parse_decl.c). */
void ptx__place_body_shared(struct ptx_parse *p);
/* Index of a label, created on first use (resolved at the end); -1 when
 * out of memory, having failed the parse as ptx_parse_nomem() does. */
int ptx_parse_label(struct ptx_parse *p, const char *name);
/* Fail the parse for running out of memory (ptx_module_parse() returns
 * NULL with PTX_ENOMEM). Return: PTX_ENOMEM. */
int ptx_parse_nomem(struct ptx_parse *p);

/* ---- interp_fast.c: the pre-decoded form ---- */

/* k->fast and the constant slots, once the kernel's code is complete.
 * Return: 0 or PTX_ENOMEM. */
int ptx__fast_prepare(struct ptx_kernel *k);
void ptx__fast_free(struct ptx_kernel *k);

/* ---- interp_f16.c: half precision ---- */

/* f16 bits from an f32's bits (round to nearest even) and back. */
uint16_t ptx__f32_to_f16(uint32_t f);
uint32_t ptx__f16_to_f32(uint16_t h);

/* ---- parse_call.c ---- */

/* call / call.uni: the call's record into in (OP_CALL). Return as
 * ptx_decode(). */
int ptx__decode_call(struct ptx_parse *p, char **opds, unsigned n,
                     struct ptx_insn *in, char *why, size_t wl);

/* ---- decode.c ---- */

/* Type of a PTX type suffix ("u32" -> PT_U32), or PT_NONE. */
enum ptx_type ptx_type_from_name(const char *s);
unsigned ptx_type_bytes(enum ptx_type t);

/**
 * ptx_decode() - one instruction into @in.
 * @opcode: "ld.global.v4.u32"; @opds: the operand texts, split at top
 * level commas; @n: their count.
 * Return: 0; -1 with @why (a static or caller-buffer message) when the
 * instruction or one of its forms is not supported; PTX_ENOMEM when out
 * of memory, the parse having failed (ptx_parse_nomem()), @why unset.
 */
int ptx_decode(struct ptx_parse *p, const char *opcode, char **opds,
               unsigned n, struct ptx_insn *in, char *why, size_t why_len);

/* parse_lex.c: an opcode copied into buf (bl bytes) and cut at its dots
 * into parts[] (max of them, the rest dropped); returns how many. */
unsigned ptx__split_opcode(const char *opcode, char *buf, size_t bl,
                           char **parts, unsigned max);

/* Fat binaries (fatbin.c, ptx_link.c): a container's magic, and
 * little-endian reads of its fields. */
#define PTX_FATBIN_CONTAINER_MAGIC 0xBA55ED50u

static inline uint16_t ptx__rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ptx__rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static inline uint64_t ptx__rd64(const uint8_t *p)
{
    return (uint64_t)ptx__rd32(p) | (uint64_t)ptx__rd32(p + 4) << 32;
}

#endif /* P2PSIM_PTX_PTX_INT_H */
