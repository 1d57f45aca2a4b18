/*
 * ptx/tex_int.h - the texture and surface instructions inside the PTX
 * front end: decode_tex.c decodes them, interp_tex.c runs them. Their
 * opcodes sit above enum ptx_opcode (ptx_int.h), from 0xf0, so that they
 * are added without a change to that enum; decode.c and interp.c hand
 * them over here.
 */
#ifndef P2PSIM_PTX_TEX_INT_H
#define P2PSIM_PTX_TEX_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ptx/ptx_int.h"
#include "ptx/ptx_tex.h"

#define OP_TEX 0xf0u
#define OP_TLD4 0xf1u
#define OP_SULD 0xf2u
#define OP_SUST 0xf3u
#define OP_TXQ 0xf4u
#define OP_SUQ 0xf5u

/* Whether op is one of these. */
#define PTX_OP_IS_TEX(op) ((op) >= OP_TEX && (op) <= OP_SUQ)

/* Geometries (struct ptx_insn.mode). */
enum ptx_tex_geom { PTX_TEX_G1D, PTX_TEX_G2D, PTX_TEX_G3D, PTX_TEX_GA1D,
                    PTX_TEX_GA2D, PTX_TEX_G_CUBE, PTX_TEX_G_ACUBE };

/* Surface boundary modes (struct ptx_insn.boolop). */
enum ptx_tex_bound { PTX_TEX_BOUND_TRAP, PTX_TEX_BOUND_CLAMP,
                     PTX_TEX_BOUND_ZERO };

/* txq and suq queries (struct ptx_insn.cmp). */
enum ptx_tex_query { PTX_TQ_WIDTH, PTX_TQ_HEIGHT, PTX_TQ_DEPTH,
                     PTX_TQ_ARRAY_SIZE, PTX_TQ_MIP_LEVELS, PTX_TQ_SAMPLES,
                     PTX_TQ_DATA_TYPE, PTX_TQ_ORDER, PTX_TQ_NORM_COORDS,
                     PTX_TQ_FILTER, PTX_TQ_ADDR0, PTX_TQ_ADDR1,
                     PTX_TQ_ADDR2 };

/* Whether an opcode name is one of these ("tex", "tld4", ...). */
static inline int ptx__is_tex_opcode(const char *s)
{
    static const char *const names[] = {"tex.", "tld4.", "suld.", "sust.",
                                        "txq.", "suq."};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        size_t n = 0;
        while (names[i][n] && s[n] == names[i][n]) {
            n++;
        }
        if (!names[i][n]) {
            return 1;
        }
    }
    return 0;
}

/* decode_tex.c: as ptx_decode(), for the opcodes above. */
int ptx__decode_tex(struct ptx_parse *p, const char *opcode, char **opds,
                    unsigned n, struct ptx_insn *in, char *why, size_t wl);

struct ptx_warp;
/* interp_tex.c: run one over the lanes in exec. Return: 0, or -1 with the
 * warp failed (ptx__warp_fail). */
int ptx__exec_tex(struct ptx_warp *w, const struct ptx_insn *in,
                  uint32_t exec);

#endif /* P2PSIM_PTX_TEX_INT_H */
