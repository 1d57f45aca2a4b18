/*
 * ptx/decode_wmma.c - decoding of the warp matrix instructions
 * (wmma_int.h): wmma.load.{a,b,c}, wmma.store.d and wmma.mma, shapes
 * m16n16k16, m32n8k16 and m8n32k16 with f16 inputs and f16 or f32
 * accumulators, bf16 inputs and f32 ones, s8/u8 inputs and s32 ones;
 * m16n16k8 tf32 with f32; m8n8k4 f64. Row and col layouts, an optional
 * stride, the .global, .shared and generic spaces, .satfinite, f64's .rn.
 * A fragment's registers must be as many as the PTX ISA gives its shape
 * and type; they are kept in the kernel's k->wregs.
 */
#include <config.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/parse_int.h"
#include "ptx/ptx_int.h"
#include "ptx/wmma_int.h"

static const char *const shape_names[WM_N_SHAPES] = {
    "m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8", "m8n8k4"};

/* s without its surrounding blanks into buf (bl bytes); false when empty
 * or too long. */
static bool trimmed(const char *s, char *buf, size_t bl)
{
    while (isspace((unsigned char)*s)) {
        s++;
    }
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) {
        n--;
    }
    if (n == 0 || n >= bl) {
        return false;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    return true;
}

/* "{%r1, %r2, ...}" of exactly want registers appended to k->wregs.
 * Return: 0, -1 with why, or PTX_ENOMEM. */
static int frag_regs(struct ptx_parse *p, const char *s, unsigned want,
                     char *why, size_t wl)
{
    char buf[512];
    if (!trimmed(s, buf, sizeof(buf)) || buf[0] != '{' ||
        buf[strlen(buf) - 1] != '}') {
        snprintf(why, wl, "wmma fragment '%.40s' is not a {register list}",
                 s);
        return -1;
    }
    buf[strlen(buf) - 1] = '\0';
    struct ptx_kernel *k = p->k;
    unsigned got = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf + 1, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save), got++) {
        char name[128];
        int r = trimmed(tok, name, sizeof(name)) ? ptx_parse_reg(p, name)
                                                  : -1;
        if (r < 0) {
            snprintf(why, wl, "wmma fragment: unknown register '%.40s'", tok);
            return -1;
        }
        if (got >= want) {
            continue; /* counted for the message below */
        }
        if (!GROW(k->wregs, k->n_wregs, k->cap_wregs)) {
            return ptx_parse_nomem(p);
        }
        k->wregs[k->n_wregs++] = (uint16_t)r;
    }
    if (got != want) {
        snprintf(why, wl, "wmma fragment of %u registers where its shape "
                 "and type take %u", got, want);
        return -1;
    }
    return 0;
}

/* "[reg]", "[reg+imm]", "[sym]", "[sym+imm]" into o (OPD_MEM); a .shared
 * or .local symbol's space into *sp. */
static int address(struct ptx_parse *p, const char *s, struct ptx_opd *o,
                   enum ptx_space *sp, char *why, size_t wl)
{
    char buf[256];
    memset(o, 0, sizeof(*o));
    o->kind = OPD_MEM;
    o->reg = PTX_NOREG;
    o->var = PTX_NOVAR;
    *sp = PS_GENERIC;
    if (!trimmed(s, buf, sizeof(buf)) || buf[0] != '[' ||
        buf[strlen(buf) - 1] != ']') {
        snprintf(why, wl, "wmma address expected, not '%.40s'", s);
        return -1;
    }
    buf[strlen(buf) - 1] = '\0';
    char *off = strlen(buf) > 2 ? strpbrk(buf + 2, "+-") : NULL;
    long long d = 0;
    if (off) {
        char *end;
        d = strtoll(off + (*off == '+'), &end, 0);
        while (isspace((unsigned char)*end)) {
            end++;
        }
        if (*end) {
            snprintf(why, wl, "malformed wmma address '%.40s'", s);
            return -1;
        }
        *off = '\0';
    }
    char base[200];
    if (!trimmed(buf + 1, base, sizeof(base))) {
        snprintf(why, wl, "malformed wmma address '%.40s'", s);
        return -1;
    }
    int r = ptx_parse_reg(p, base), var = PTX_NOVAR;
    if (r >= 0) {
        o->reg = (uint16_t)r;
    } else if (ptx_parse_sym(p, base, sp, &o->imm, &var) == 0) {
        o->var = var;
    } else {
        snprintf(why, wl, "wmma address: unknown '%.40s'", base);
        return -1;
    }
    o->imm = (int64_t)((uint64_t)o->imm + (uint64_t)d);
    return 0;
}

/* The stride: a register or an integer. */
static int stride(struct ptx_parse *p, const char *s, struct ptx_opd *o,
                  char *why, size_t wl)
{
    char buf[128], *end;
    memset(o, 0, sizeof(*o));
    o->var = PTX_NOVAR;
    if (!trimmed(s, buf, sizeof(buf))) {
        snprintf(why, wl, "malformed wmma stride '%.40s'", s);
        return -1;
    }
    int r = ptx_parse_reg(p, buf);
    if (r >= 0) {
        o->kind = OPD_REG;
        o->reg = (uint16_t)r;
        return 0;
    }
    o->kind = OPD_IMM;
    o->imm = strtoll(buf, &end, 0);
    if (*end) {
        snprintf(why, wl, "wmma stride '%.40s': a register or an integer",
                 buf);
        return -1;
    }
    return 0;
}

/* What the opcode's parts say. */
struct wform {
    int op, mat, shape, space;
    unsigned layouts, n_layouts, n_types;
    unsigned types[4]; /* enum ptx_type, WT_BF16, WT_TF32 */
    bool sync, sat;
};

static int parse_parts(char **parts, unsigned np, struct wform *f,
                       char *why, size_t wl)
{
    memset(f, 0, sizeof(*f));
    f->op = f->mat = f->shape = -1;
    f->space = PS_GENERIC;
    static const struct { const char *name; int op; } ops[] = {
        {"load", OP_WMMA_LD}, {"store", OP_WMMA_ST}, {"mma", OP_WMMA_MMA}};
    for (size_t i = 0; np > 1 && i < 3; i++) {
        if (strcmp(parts[1], ops[i].name) == 0) {
            f->op = ops[i].op;
        }
    }
    if (f->op < 0) {
        snprintf(why, wl, "no such wmma instruction in the interpreted "
                 "subset");
        return -1;
    }
    for (unsigned i = 2; i < np; i++) {
        const char *s = parts[i];
        unsigned t = strcmp(s, "bf16") == 0   ? WT_BF16
                     : strcmp(s, "tf32") == 0 ? WT_TF32
                                              : ptx_type_from_name(s);
        int sh = -1;
        for (int j = 0; j < WM_N_SHAPES; j++) {
            sh = strcmp(s, shape_names[j]) == 0 ? j : sh;
        }
        if (i == 2 && f->op != OP_WMMA_MMA && strlen(s) == 1 &&
            strchr(f->op == OP_WMMA_LD ? "abc" : "d", s[0])) {
            f->mat = s[0] == 'a' ? WM_A : s[0] == 'b' ? WM_B : WM_C;
        } else if (strcmp(s, "sync") == 0) {
            f->sync = true;
        } else if (strcmp(s, "aligned") == 0) {
        } else if (strcmp(s, "row") == 0 || strcmp(s, "col") == 0) {
            f->layouts |= (unsigned)(s[0] == 'c') << f->n_layouts++;
        } else if (sh >= 0) {
            f->shape = sh;
        } else if (strcmp(s, "global") == 0) {
            f->space = PS_GLOBAL;
        } else if (strcmp(s, "shared") == 0 ||
                   strcmp(s, "shared::cta") == 0) {
            f->space = PS_SHARED;
        } else if (strcmp(s, "satfinite") == 0) {
            f->sat = true;
        } else if (strcmp(s, "rn") == 0 && f->op == OP_WMMA_MMA) {
            /* f64's rounding: to nearest, the only one interpreted */
        } else if (t != PT_NONE && f->n_types < 4) {
            f->types[f->n_types++] = t;
        } else {
            snprintf(why, wl, "wmma modifier '.%s' not in the interpreted "
                     "subset (shapes m16n16k16, m32n8k16, m8n32k16, m16n16k8, "
                     "m8n8k4; types f16, bf16, tf32, f32, f64, s8, u8, s32)",
                     s);
            return -1;
        }
    }
    unsigned want_layouts = f->op == OP_WMMA_MMA ? 2 : 1;
    if (f->op != OP_WMMA_MMA && f->mat < 0) {
        snprintf(why, wl, "wmma.%s without its matrix", parts[1]);
        return -1;
    }
    if (!f->sync || f->shape < 0 || f->n_layouts != want_layouts) {
        snprintf(why, wl, "wmma needs .sync, a shape and %u layout(s)",
                 want_layouts);
        return -1;
    }
    return 0;
}

int ptx__decode_wmma(struct ptx_parse *p, const char *opcode, char **opds,
                     unsigned n, struct ptx_insn *in, char *why, size_t wl)
{
    char buf[128];
    char *parts[16];
    unsigned np = ptx__split_opcode(opcode, buf, sizeof(buf), parts, 16);
    struct wform f;
    if (parse_parts(parts, np, &f, why, wl)) {
        return -1;
    }
    in->op = (uint8_t)f.op;
    in->vec = (uint8_t)f.shape;
    in->cmp = (uint8_t)f.layouts;
    in->flags = f.sat ? PIF_SAT : 0;
    in->sem = PTX_SEM_WEAK;
    in->space = (uint8_t)f.space;
    struct wmma_frag fr;
    if (f.op == OP_WMMA_MMA) {
        /* .dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype */
        unsigned d = f.types[0], a = PT_F16, b = PT_F16,
                 c = f.types[f.n_types ? f.n_types - 1 : 0];
        if (f.n_types == 4) {
            a = f.types[1];
            b = f.types[2];
        }
        bool in8 = (a == PT_S8 || a == PT_U8) && (b == PT_S8 || b == PT_U8);
        bool ok = (f.n_types == 2 || f.n_types == 4) &&
                  (in8 ? d == PT_S32 && c == PT_S32
                       : a == b && d != PT_S32 && c != PT_S32 &&
                             (a == PT_F16 || (d == PT_F32 && c == PT_F32) ||
                              (a == PT_F64 && d == a && c == a)));
        struct wmma_frag t4[4];
        ok = ok && !ptx__wmma_frag(f.shape, WM_A, a, &t4[0]) &&
             !ptx__wmma_frag(f.shape, WM_B, b, &t4[1]) &&
             !ptx__wmma_frag(f.shape, WM_C, c, &t4[2]) &&
             !ptx__wmma_frag(f.shape, WM_C, d, &t4[3]);
        if (!ok) {
            snprintf(why, wl, "wmma.mma types not in the interpreted subset "
                     "(f16 with f16/f32 accumulators; bf16, tf32 with f32; "
                     "f64; s8/u8 with s32)");
            return -1;
        }
        if (n != 4) {
            snprintf(why, wl, "wmma.mma takes d, a, b, c");
            return -1;
        }
        in->type = (uint8_t)a;
        in->type2 = (uint8_t)b;
        in->boolop = (uint8_t)c;
        in->rnd = (uint8_t)d;
        in->n_opds = 1;
        in->o[0].kind = OPD_NONE;
        in->o[0].imm = p->k->n_wregs;
        static const unsigned mats[4] = {WM_C, WM_A, WM_B, WM_C};
        const unsigned ts[4] = {d, a, b, c};
        for (unsigned i = 0; i < 4; i++) {
            ptx__wmma_frag(f.shape, mats[i], ts[i], &fr);
            int rc = frag_regs(p, opds[i], fr.regs, why, wl);
            if (rc) {
                return rc;
            }
        }
        return 0;
    }
    in->mode = (uint8_t)f.mat;
    in->type = (uint8_t)(f.n_types == 1 ? f.types[0] : PT_NONE);
    if (f.n_types != 1 || ptx__wmma_frag(f.shape, f.mat, in->type, &fr) ||
        f.sat) {
        snprintf(why, wl, "wmma.%s form not in the interpreted subset "
                 "(a, b: f16, bf16, tf32, f64, s8, u8; c, d: f16, f32, f64, "
                 "s32)", parts[1]);
        return -1;
    }
    if (n != 2 && n != 3) {
        snprintf(why, wl, "wmma.%s takes a fragment, an address and an "
                 "optional stride", parts[1]);
        return -1;
    }
    bool st = f.op == OP_WMMA_ST;
    enum ptx_space sp;
    in->n_opds = 3;
    if (address(p, opds[st ? 0 : 1], &in->o[0], &sp, why, wl)) {
        return -1;
    }
    if (in->space == PS_GENERIC && in->o[0].reg == PTX_NOREG &&
        (sp == PS_SHARED || sp == PS_LOCAL)) {
        in->space = (uint8_t)sp; /* [shared_var]: that space */
    }
    in->o[1].kind = OPD_NONE;
    if (n == 3 && stride(p, opds[2], &in->o[1], why, wl)) {
        return -1;
    }
    in->o[2].kind = OPD_NONE;
    in->o[2].imm = p->k->n_wregs;
    int rc = frag_regs(p, opds[st ? 1 : 0], fr.regs, why, wl);
    if (rc || st) {
        return rc;
    }
    /* a load's later requests read the address and stride registers
     * again: they must not be among its destinations */
    for (unsigned i = 0; i < fr.regs; i++) {
        uint16_t r = p->k->wregs[in->o[2].imm + i];
        if (r == in->o[0].reg ||
            (in->o[1].kind == OPD_REG && r == in->o[1].reg)) {
            snprintf(why, wl, "wmma.load into its own address or stride "
                     "register");
            return -1;
        }
    }
    return 0;
}
