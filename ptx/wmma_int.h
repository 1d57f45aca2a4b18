/*
 * ptx/wmma_int.h - the warp matrix instructions (wmma.load, wmma.store,
 * wmma.mma) inside the PTX front end: decode_wmma.c decodes them,
 * interp_wmma.c runs them. Their opcodes sit above enum ptx_opcode
 * (ptx_int.h), from 0xe0, as the texture ones do (tex_int.h).
 *
 * A fragment is a list of registers of the kernel's k->wregs; its
 * elements are laid out over the lanes as interp_wmma.c says (PTX leaves
 * the layout to the implementation, only the register counts are fixed:
 * where the ISA documents mma's layout for the shape, it is that one).
 *
 * Fields of struct ptx_insn for these:
 *   vec     enum wmma_shape
 *   mode    load/store: enum wmma_mat
 *   cmp     layouts: load/store bit 0 col; mma bit 0 a col, bit 1 b col
 *   type    load/store: the element type; mma: the type of a
 *   type2   mma: the type of b
 *   boolop  mma: the type of c;  rnd: mma: the type of d
 *   flags   PIF_SAT for .satfinite
 *   o[0]    load/store: the address (OPD_MEM); mma: o[0].imm the first
 *           register of d, a, b, c (in that order) in k->wregs
 *   o[1]    load/store: the stride in elements (OPD_REG, OPD_IMM, or
 *           OPD_NONE: the matrix's width in its layout)
 *   o[2]    load/store: o[2].imm the fragment's first register in wregs
 */
#ifndef P2PSIM_PTX_WMMA_INT_H
#define P2PSIM_PTX_WMMA_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ptx/ptx_int.h"

#define OP_WMMA_LD 0xe0u
#define OP_WMMA_ST 0xe1u
#define OP_WMMA_MMA 0xe2u

/* Whether op is one of these. */
#define PTX_OP_IS_WMMA(op) ((op) >= OP_WMMA_LD && (op) <= OP_WMMA_MMA)

enum wmma_shape {
    WM_M16N16K16, WM_M32N8K16, WM_M8N32K16, WM_M16N16K8, WM_M8N8K4,
    WM_N_SHAPES
};
enum wmma_mat { WM_A, WM_B, WM_C }; /* wmma.store.d stores a WM_C */

/* Element types of wmma beyond enum ptx_type (in ptx_insn.type). */
#define WT_BF16 ((unsigned)PT_COUNT)
#define WT_TF32 ((unsigned)PT_COUNT + 1u)

/* How a fragment's elements map onto the matrix (interp_wmma.c). */
enum wmma_map {
    WL_LINEAR,            /* element l * elems + e in the layout's order */
    WL_A16, WL_B16,       /* m16n16k16 16-bit a, b (mma.m16n8k16's) */
    WL_A8, WL_B8,         /* m16n16k16 8-bit a, b (mma.m16n8k16's) */
    WL_ATF, WL_BTF,       /* m16n16k8 tf32 a, b (mma.m16n8k8's) */
    WL_C,                 /* m16n16 accumulators (mma.m16n8's, twice) */
    WL_AD, WL_BD, WL_CD,  /* m8n8k4 f64 (mma.m8n8k4's) */
};

/* A fragment's geometry: the matrix (rows x cols), its elements per lane
 * (dist of them distinct: f16 a and b repeat theirs), bytes per element,
 * registers, and the mapping. */
struct wmma_frag {
    unsigned rows, cols, elems, dist, ebytes, regs;
    enum wmma_map map;
};

/* Of shape s, matrix mat, element type t (interp_wmma.c). Return: 0, or
 * -1 when the combination is not one of the interpreted subset. */
int ptx__wmma_frag(unsigned s, unsigned mat, unsigned t,
                   struct wmma_frag *f);

/* decode_wmma.c: as ptx_decode(), for "wmma." opcodes. */
int ptx__decode_wmma(struct ptx_parse *p, const char *opcode, char **opds,
                     unsigned n, struct ptx_insn *in, char *why, size_t wl);

struct ptx_warp;
struct ptx_mem_req;
/* interp_wmma.c: run one over the lanes in exec. Shared and local
 * fragments are done here; a global one leaves as requests of at most
 * 16 bytes per lane, one at a time. Return: 0 done; 1 req holds the
 * last request; 2 req holds a request and more follow (the instruction
 * runs again after ptx__wmma_resume); -1 with the warp failed. */
int ptx__exec_wmma(struct ptx_warp *w, const struct ptx_insn *in,
                   uint32_t exec, struct ptx_mem_req *req);
/* A served request: a load's bytes into the fragment (lanes in mask). */
void ptx__wmma_resume(struct ptx_warp *w, const struct ptx_insn *in,
                      uint32_t mask, const struct ptx_mem_req *req);

/* interp_mem.c: the host pointer of n bytes at addr of a space the
 * interpreter owns (shared, local, param) for lane l, or NULL with the
 * warp failed; and the space of a generic address (made an offset in it
 * for shared and local). */
uint8_t *ptx__lane_ptr(struct ptx_warp *w, const struct ptx_insn *in,
                       enum ptx_space space, uint64_t addr, unsigned l,
                       unsigned n);
enum ptx_space ptx__generic_space(const struct ptx_warp *w, uint64_t *addr);

#endif /* P2PSIM_PTX_WMMA_INT_H */
