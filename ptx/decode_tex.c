/*
 * ptx/decode_tex.c - the texture and surface instructions into a struct
 * ptx_insn (decode.c hands over every opcode that starts with tex, tld4,
 * suld, sust, txq or suq): only the forms of texture and surface objects
 * (a 64-bit handle in a register), not texture references (.texref
 * variables) or .samplerref.
 *
 *   tex{.level,.grad}.geom.v4.dtype.ctype  d, [h, c] {, lod | , dPdx, dPdy}
 *   tld4.comp.2d.v4.dtype.f32              d, [h, c]
 *   suld.b.geom{.v2,.v4}.btype.clamp       d, [h, c]
 *   sust.b.geom{.v2,.v4}.btype.clamp       [h, c], a
 *   txq.query.b32 / suq.query.b32          d, [h]
 *
 * The fields of struct ptx_insn they use (ptx_int.h, at OP_TEX): mode is
 * the geometry (enum ptx_tex_geom), cmp the variant (tex: 0, level 1,
 * grad 2; tld4: the component; txq/suq: the query), boolop the surface
 * boundary mode, type the data type, type2 the coordinate type.
 * Operands: o[0] the data vector (destination, or sust's source), o[1]
 * the handle, o[2] the coordinates, o[3] and o[4] lod or gradients.
 */
#include <config.h>

#include "ptx/ptx.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx_int.h"
#include "ptx/tex_int.h"

static int find(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(names[i], s) == 0) {
            return (int)i;
        }
    }
    return -1;
}

#define FIND(names, s) find(names, sizeof(names) / sizeof(names[0]), s)

/* Geometry names, indexed by enum ptx_tex_geom. */
static const char *const geoms[] = {"1d", "2d", "3d", "a1d", "a2d", "cube",
                                    "acube"};

/* txq/suq queries, indexed by enum ptx_tex_query. */
static const char *const queries[] = {
    "width", "height", "depth", "array_size", "num_mipmap_levels",
    "num_samples", "channel_data_type", "channel_order", "normalized_coords",
    "filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2",
};

/* A register, or "_" (PTX_NOREG). */
static int reg_of(struct ptx_parse *p, const char *s, uint16_t *r, char *why,
                  size_t wl)
{
    while (isspace((unsigned char)*s)) {
        s++;
    }
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    char name[128];
    if (n == 0 || n >= sizeof(name)) {
        snprintf(why, wl, "malformed texture operand");
        return -1;
    }
    memcpy(name, s, n);
    name[n] = '\0';
    if (strcmp(name, "_") == 0) {
        *r = PTX_NOREG;
        return 0;
    }
    int k = ptx_parse_reg(p, name);
    if (k < 0) {
        snprintf(why, wl, "unknown register '%s' (texture operands are "
                 "registers)", name);
        return -1;
    }
    *r = (uint16_t)k;
    return 0;
}

/* "{%a, %b}" or a single register, into an OPD_VEC of at most 4. */
static int vec_of(struct ptx_parse *p, const char *s, struct ptx_opd *o,
                  char *why, size_t wl)
{
    memset(o, 0, sizeof(*o));
    o->kind = OPD_VEC;
    o->var = PTX_NOVAR;
    while (isspace((unsigned char)*s)) {
        s++;
    }
    if (*s != '{') {
        o->n = 1;
        return reg_of(p, s, &o->vregs[0], why, wl);
    }
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", s + 1);
    char *close = strchr(buf, '}');
    if (!close) {
        snprintf(why, wl, "malformed vector '%s'", s);
        return -1;
    }
    *close = '\0';
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (o->n == 4) {
            snprintf(why, wl, "vectors of more than 4");
            return -1;
        }
        if (reg_of(p, tok, &o->vregs[o->n], why, wl)) {
            return -1;
        }
        o->n++;
    }
    if (o->n == 0) {
        snprintf(why, wl, "empty vector '%s'", s);
        return -1;
    }
    return 0;
}

/* "[h, c]" (or "[h]" when want_coords is false) into o[1] and o[2]. */
static int addr_of(struct ptx_parse *p, const char *s, struct ptx_insn *in,
                   bool want_coords, char *why, size_t wl)
{
    size_t n = strlen(s);
    if (n < 2 || s[0] != '[' || s[n - 1] != ']' || n >= 256) {
        snprintf(why, wl, "malformed texture address '%s'", s);
        return -1;
    }
    char buf[256];
    memcpy(buf, s + 1, n - 2);
    buf[n - 2] = '\0';
    char *comma = strchr(buf, ',');
    if ((comma != NULL) != want_coords) {
        snprintf(why, wl, "texture address '%s'", s);
        return -1;
    }
    if (comma) {
        *comma = '\0';
    }
    memset(&in->o[1], 0, sizeof(in->o[1]));
    in->o[1].kind = OPD_REG;
    in->o[1].var = PTX_NOVAR;
    if (reg_of(p, buf, &in->o[1].reg, why, wl)) {
        return -1;
    }
    if (in->o[1].reg == PTX_NOREG) {
        snprintf(why, wl, "texture handle '_'");
        return -1;
    }
    if (comma) {
        return vec_of(p, comma + 1, &in->o[2], why, wl);
    }
    return 0;
}

/* Coordinates a geometry takes (the vector may be padded up to 4). */
static unsigned coords_of(unsigned geom)
{
    static const unsigned char n[] = {1, 2, 3, 2, 3, 3, 4};
    return geom < sizeof(n) ? n[geom] : 0;
}

int ptx__decode_tex(struct ptx_parse *p, const char *opcode, char **opds,
                    unsigned n, struct ptx_insn *in, char *why, size_t wl)
{
    char buf[128];
    char *parts[12];
    unsigned np = ptx__split_opcode(opcode, buf, sizeof(buf), parts, 12);
    static const char *const ops[] = {"tex", "tld4", "suld", "sust", "txq",
                                      "suq"};
    static const uint8_t opcodes[] = {OP_TEX, OP_TLD4, OP_SULD, OP_SUST,
                                      OP_TXQ, OP_SUQ};
    int k = np ? FIND(ops, parts[0]) : -1;
    if (k < 0) {
        snprintf(why, wl, "no such instruction in the interpreted subset");
        return -1;
    }
    in->op = opcodes[k];
    in->vec = 1;
    in->mode = 0xff;
    in->boolop = PTX_TEX_BOUND_TRAP;
    enum ptx_type types[2] = {PT_NONE, PT_NONE};
    unsigned nt = 0;
    bool raw = false;
    for (unsigned i = 1; i < np; i++) {
        const char *s = parts[i];
        int g = FIND(geoms, s);
        enum ptx_type t = ptx_type_from_name(s);
        if (g >= 0 && in->op != OP_TXQ && in->op != OP_SUQ) {
            in->mode = (uint8_t)g;
        } else if (t != PT_NONE && nt < 2) {
            types[nt++] = t;
        } else if (strcmp(s, "v2") == 0 || strcmp(s, "v4") == 0) {
            in->vec = (uint8_t)(s[1] - '0');
        } else if (in->op == OP_TEX && i == 1 &&
                   (strcmp(s, "level") == 0 || strcmp(s, "grad") == 0)) {
            in->cmp = s[0] == 'l' ? 1 : 2;
        } else if (in->op == OP_TLD4 && i == 1 && strlen(s) == 1 &&
                   strchr("rgba", s[0])) {
            in->cmp = (uint8_t)(strchr("rgba", s[0]) - "rgba");
        } else if ((in->op == OP_SULD || in->op == OP_SUST) &&
                   strcmp(s, "b") == 0) {
            raw = true;
        } else if ((in->op == OP_SULD || in->op == OP_SUST) &&
                   (strcmp(s, "trap") == 0 || strcmp(s, "clamp") == 0 ||
                    strcmp(s, "zero") == 0)) {
            in->boolop = s[0] == 't' ? PTX_TEX_BOUND_TRAP
                         : s[0] == 'c' ? PTX_TEX_BOUND_CLAMP
                                       : PTX_TEX_BOUND_ZERO;
        } else if ((in->op == OP_TXQ || in->op == OP_SUQ) && i == 1 &&
                   (g = FIND(queries, s)) >= 0) {
            in->cmp = (uint8_t)g;
            in->mode = 0;
        } else if (strcmp(s, "ca") == 0 || strcmp(s, "cg") == 0 ||
                   strcmp(s, "cs") == 0 || strcmp(s, "cv") == 0 ||
                   strcmp(s, "wb") == 0 || strcmp(s, "wt") == 0 ||
                   strcmp(s, "nc") == 0) {
            /* cache operators: no caches to steer */
        } else {
            snprintf(why, wl, "modifier '.%s'", s);
            return -1;
        }
    }
    in->type = (uint8_t)types[0];
    in->type2 = (uint8_t)types[1];
    if (in->mode == 0xff) {
        snprintf(why, wl, in->op == OP_TXQ || in->op == OP_SUQ
                              ? "query" : "geometry");
        return -1;
    }
    switch (in->op) {
    case OP_TXQ:
    case OP_SUQ:
        if (n != 2 || in->type != PT_B32 || nt != 1) {
            snprintf(why, wl, "query form");
            return -1;
        }
        memset(&in->o[0], 0, sizeof(in->o[0]));
        in->o[0].kind = OPD_REG;
        in->o[0].var = PTX_NOVAR;
        in->n_opds = 2;
        if (reg_of(p, opds[0], &in->o[0].reg, why, wl)) {
            return -1;
        }
        return addr_of(p, opds[1], in, false, why, wl);
    case OP_TEX:
    case OP_TLD4: {
        unsigned want = 2 + (in->cmp == 1 ? 1 : in->cmp == 2 ? 2 : 0);
        if (in->op == OP_TLD4) {
            want = 2;
            if (in->mode != PTX_TEX_G2D) {
                snprintf(why, wl, "tld4 geometry");
                return -1;
            }
        }
        if (nt != 2 || in->vec != 4 || n != want ||
            (in->type != PT_F32 && in->type != PT_S32 &&
             in->type != PT_U32) ||
            (in->type2 != PT_F32 && in->type2 != PT_S32)) {
            snprintf(why, wl, "texture fetch form (v4, f32/s32/u32 data, "
                     "f32/s32 coordinates)");
            return -1;
        }
        if (in->mode == PTX_TEX_G_CUBE || in->mode == PTX_TEX_G_ACUBE) {
            if (in->type2 != PT_F32) {
                snprintf(why, wl, "cubemap coordinates must be f32");
                return -1;
            }
        }
        if (vec_of(p, opds[0], &in->o[0], why, wl) ||
            addr_of(p, opds[1], in, true, why, wl)) {
            return -1;
        }
        in->n_opds = (uint8_t)want + 1;
        for (unsigned i = 2; i < want; i++) {
            if (in->cmp == 1) {
                memset(&in->o[3], 0, sizeof(in->o[3]));
                in->o[3].kind = OPD_REG;
                in->o[3].var = PTX_NOVAR;
                if (reg_of(p, opds[2], &in->o[3].reg, why, wl)) {
                    return -1;
                }
            } else if (vec_of(p, opds[i], &in->o[i + 1], why, wl)) {
                return -1;
            }
        }
        break;
    }
    case OP_SULD:
    case OP_SUST:
        if (!raw) {
            snprintf(why, wl, "formatted surface access (.p)");
            return -1;
        }
        if (nt != 1 || n != 2 ||
            (in->type != PT_B8 && in->type != PT_B16 && in->type != PT_B32 &&
             in->type != PT_B64) ||
            in->mode == PTX_TEX_G_CUBE || in->mode == PTX_TEX_G_ACUBE) {
            snprintf(why, wl, "surface access form");
            return -1;
        }
        in->type2 = PT_S32;
        if (in->op == OP_SULD) {
            if (vec_of(p, opds[0], &in->o[0], why, wl) ||
                addr_of(p, opds[1], in, true, why, wl)) {
                return -1;
            }
        } else if (addr_of(p, opds[0], in, true, why, wl) ||
                   vec_of(p, opds[1], &in->o[0], why, wl)) {
            return -1;
        }
        if (in->o[0].n != in->vec) {
            snprintf(why, wl, "surface data of %u registers for .v%u",
                     in->o[0].n, in->vec);
            return -1;
        }
        in->n_opds = 3;
        break;
    default:
        break;
    }
    if (in->o[2].n < coords_of(in->mode)) {
        snprintf(why, wl, "%u coordinates for .%s", in->o[2].n,
                 geoms[in->mode]);
        return -1;
    }
    return 0;
}
