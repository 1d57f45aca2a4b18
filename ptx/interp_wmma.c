/*
 * ptx/interp_wmma.c - the warp matrix instructions at run time
 * (wmma_int.h).
 *
 * Layout of a fragment over the lanes (PTX leaves it to the
 * implementation; programs combine fragments of one shape and type
 * element by element, and see x[i] of their own lane): for m16n16k16,
 * m16n16k8 (tf32) and m8n8k4 (f64) it is the one the PTX ISA documents
 * for mma.sync of the matching m16n8kK or m8n8k4 shape, the n = 16
 * matrices as two n = 8 tiles side by side, the first tile's elements
 * first (slot_rc says which element is where). For m32n8k16 and
 * m8n32k16, which mma has not, element e of lane l is the matrix element
 * of linear index i = (l * dist + e) mod (rows * cols), the index
 * running along rows for accumulators and along the layout's major
 * dimension for a and b. f16 a and b fragments hold 16 elements per lane
 * where the matrix needs 8 (or 4) per lane, as the ISA's 8 registers do:
 * elements 8..15 repeat 0..7 (a load writes both; mma reads the first).
 * Elements sit in the registers from the low bits up (two f16 or bf16,
 * four s8/u8 per register; an f64 per 64-bit register).
 *
 * Memory: shared and local fragments (and generic addresses inside
 * those windows) are read and written here; a global one leaves as a
 * series of ordinary LD or ST requests, each a run of contiguous
 * elements per lane of at most 16 bytes, aligned to its size (a row-major
 * f32 accumulator is 4 requests of 8 bytes, a column-major one 8 of 4).
 * The instruction stays at its PC until its last request (struct
 * ptx_warp.wmma_elem: the element its next one starts at), so a global
 * wmma counts one warp-instruction per request.
 *
 * Arithmetic of wmma.mma: product() says how D = A x B + C rounds.
 */
#include <config.h>

#include "ptx/ptx.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "ptx/interp_int.h"
#include "ptx/ptx_int.h"
#include "ptx/wmma_int.h"

static const unsigned dims[WM_N_SHAPES][3] = {
    [WM_M16N16K16] = {16, 16, 16},
    [WM_M32N8K16] = {32, 8, 16},
    [WM_M8N32K16] = {8, 32, 16},
    [WM_M16N16K8] = {16, 16, 8},
    [WM_M8N8K4] = {8, 8, 4},
};

/* The documented mapping of shape s's matrix mat of element size eb. */
static enum wmma_map frag_map(unsigned s, unsigned mat, unsigned eb)
{
    static const enum wmma_map maps[WM_N_SHAPES][3] = {
        [WM_M16N16K8] = {WL_ATF, WL_BTF, WL_C},
        [WM_M8N8K4] = {WL_AD, WL_BD, WL_CD},
    };
    if (s == WM_M16N16K16) {
        return mat == WM_C ? WL_C : mat == WM_A ? (eb == 1 ? WL_A8 : WL_A16)
                                                : (eb == 1 ? WL_B8 : WL_B16);
    }
    return s == WM_M16N16K8 || s == WM_M8N8K4 ? maps[s][mat] : WL_LINEAR;
}

int ptx__wmma_frag(unsigned s, unsigned mat, unsigned t, struct wmma_frag *f)
{
    if (s >= WM_N_SHAPES) {
        return -1;
    }
    unsigned m = dims[s][0], n = dims[s][1], k = dims[s][2];
    bool ab = mat != WM_C, f64 = s == WM_M8N8K4, tf = s == WM_M16N16K8;
    bool ok;
    if (f64) {
        ok = t == PT_F64;
    } else if (tf) {
        ok = ab ? t == WT_TF32 : t == PT_F32;
    } else if (ab) {
        ok = t == PT_F16 || t == WT_BF16 || t == PT_S8 || t == PT_U8;
    } else {
        ok = t == PT_F16 || t == PT_F32 || t == PT_S32;
    }
    if (!ok) {
        return -1;
    }
    f->rows = mat == WM_B ? k : m;
    f->cols = mat == WM_A ? k : n;
    f->dist = f->rows * f->cols / PTX_WARP_SIZE;
    f->elems = ab && t == PT_F16 ? 16 : f->dist;
    f->ebytes = t == WT_BF16 ? 2 : t == WT_TF32 ? 4
                                 : ptx_type_bytes((enum ptx_type)t);
    f->regs = f->elems * f->ebytes / (f64 ? 8 : 4);
    f->map = frag_map(s, mat, f->ebytes);
    return 0;
}

/* Row and column of element e of lane l (major 1: the linear mapping
 * in column-major order). The documented mappings, with g = l / 4 and
 * t = l % 4, tiles of mma.m16n8kK side by side along n: */
static void slot_rc(const struct wmma_frag *f, unsigned major, unsigned l,
                    unsigned e, unsigned *r, unsigned *c)
{
    unsigned g = l >> 2, t = l & 3;
    e %= f->dist; /* a repeated element is its first one */
    switch (f->map) {
    case WL_A16: /* a0,a1 (g, 2t..); a2,a3 row g+8; a4..a7 cols +8 */
        *r = g + 8 * ((e >> 1) & 1);
        *c = 2 * t + (e & 1) + 8 * (e >> 2);
        return;
    case WL_B16: /* per tile: b0,b1 (2t.., g); b2,b3 rows +8 */
        *r = 2 * t + (e & 1) + 8 * ((e >> 1) & 1);
        *c = 8 * (e >> 2) + g;
        return;
    case WL_A8: /* a0..a3 (g, 4t..); a4..a7 row g+8 */
        *r = g + 8 * (e >> 2);
        *c = 4 * t + (e & 3);
        return;
    case WL_B8: /* per tile: b0..b3 (4t.., g) */
        *r = 4 * t + (e & 3);
        *c = 8 * (e >> 2) + g;
        return;
    case WL_ATF: /* a0 (g, t); a1 row g+8; a2, a3 cols +4 */
        *r = g + 8 * (e & 1);
        *c = t + 4 * (e >> 1);
        return;
    case WL_BTF: /* per tile: b0 (t, g); b1 row t+4 */
        *r = t + 4 * (e & 1);
        *c = 8 * (e >> 1) + g;
        return;
    case WL_C: /* per tile: c0,c1 (g, 2t..); c2,c3 row g+8 */
        *r = g + 8 * ((e >> 1) & 1);
        *c = 8 * (e >> 2) + 2 * t + (e & 1);
        return;
    case WL_AD: /* a0 (g, t) */
        *r = g;
        *c = t;
        return;
    case WL_BD: /* b0 (t, g) */
        *r = t;
        *c = g;
        return;
    case WL_CD: /* c0,c1 (g, 2t..) */
        *r = g;
        *c = 2 * t + e;
        return;
    case WL_LINEAR:
        break;
    }
    unsigned i = (l * f->dist + e) % (f->rows * f->cols);
    if (major) {
        *c = i / f->rows;
        *r = i % f->rows;
    } else {
        *r = i / f->cols;
        *c = i % f->cols;
    }
}

/* Where element e of lane l is: its row, column and row * cols + col,
 * at [l * 16 + e] of a fragment kind's table (slot_rc's, computed once:
 * by shape, matrix, log2 of the element's bytes and major). */
struct wmma_rc {
    uint8_t r, c;
    uint16_t at;
};

static struct wmma_rc rc_tables[WM_N_SHAPES][3][4][2][PTX_WARP_SIZE * 16];
static float f16_float[65536];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void)
{
    for (unsigned s = 0; s < WM_N_SHAPES; s++) {
        for (unsigned mat = 0; mat < 3; mat++) {
            for (unsigned lg = 0; lg < 4; lg++) {
                struct wmma_frag f = {
                    .rows = mat == WM_B ? dims[s][2] : dims[s][0],
                    .cols = mat == WM_A ? dims[s][2] : dims[s][1],
                    .map = frag_map(s, mat, 1u << lg),
                };
                f.dist = f.rows * f.cols / PTX_WARP_SIZE;
                for (unsigned major = 0; major < 2; major++) {
                    struct wmma_rc *t = rc_tables[s][mat][lg][major];
                    for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {
                        for (unsigned e = 0; e < 16 && e < f.dist; e++) {
                            unsigned r, c;
                            slot_rc(&f, major, l, e, &r, &c);
                            t[l * 16 + e] = (struct wmma_rc){
                                (uint8_t)r, (uint8_t)c,
                                (uint16_t)(r * f.cols + c)};
                        }
                    }
                }
            }
        }
    }
    for (unsigned h = 0; h < 65536; h++) {
        f16_float[h] = f32(ptx__f16_to_f32((uint16_t)h));
    }
}

/* The table of a fragment of shape s, matrix mat. */
static const struct wmma_rc *rc_of(unsigned s, unsigned mat,
                                   const struct wmma_frag *f, unsigned major)
{
    pthread_once(&tables_once, build_tables);
    unsigned lg = f->ebytes == 1 ? 0 : f->ebytes == 2 ? 1
                : f->ebytes == 4 ? 2 : 3;
    return rc_tables[s][mat][lg][major];
}

/* Element e's raw bits in the fragment's registers of lane l (a register
 * holds 4 / ebytes elements from the low bits up, or one of 4 or 8). */
static uint64_t get_elem(const struct ptx_warp *w, const uint16_t *regs,
                         const struct wmma_frag *f, unsigned l, unsigned e)
{
    if (f->ebytes >= 4) {
        uint64_t v = R(w, regs[e], l);
        return f->ebytes == 4 ? (uint32_t)v : v;
    }
    unsigned per = 4 / f->ebytes, sh = (e % per) * f->ebytes * 8;
    uint32_t v = (uint32_t)R(w, regs[e / per], l);
    return (v >> sh) & ((1u << (f->ebytes * 8)) - 1);
}

static void set_elem(struct ptx_warp *w, const uint16_t *regs,
                     const struct wmma_frag *f, unsigned l, unsigned e,
                     uint64_t v)
{
    if (f->ebytes >= 4) {
        R(w, regs[e], l) = f->ebytes == 4 ? (uint32_t)v : v;
        return;
    }
    unsigned per = 4 / f->ebytes, sh = (e % per) * f->ebytes * 8;
    uint64_t *slot = &R(w, regs[e / per], l);
    uint32_t m = ((1u << (f->ebytes * 8)) - 1) << sh;
    *slot = ((uint32_t)*slot & ~m) | (((uint32_t)v << sh) & m);
}

/* Lane l's repeated elements (f16 a and b) from their first ones: the
 * distinct ones fill whole registers. */
static void repeat_elems(struct ptx_warp *w, const uint16_t *regs,
                         const struct wmma_frag *f, unsigned l)
{
    unsigned n = f->dist * f->ebytes / 4;
    for (unsigned j = n; j < f->regs; j++) {
        R(w, regs[j], l) = R(w, regs[j - n], l); /* period n */
    }
}

/* ---------------------------------------------------------------------- */
/* Loads and stores                                                        */
/* ---------------------------------------------------------------------- */

struct wls {
    struct wmma_frag f;
    const struct wmma_rc *rc;
    const uint16_t *regs;
    unsigned major;   /* element order: 1 column-major */
    bool col;         /* the memory layout */
};

static void wls_of(const struct ptx_warp *w, const struct ptx_insn *in,
                   struct wls *s)
{
    ptx__wmma_frag(in->vec, in->mode, in->type, &s->f);
    s->regs = &w->k->wregs[in->o[2].imm];
    s->col = in->cmp & 1;
    s->major = in->mode == WM_C ? 0 : s->col;
    s->rc = rc_of(in->vec, in->mode, &s->f, s->major);
}

/* Element e of lane l's offset in memory, in elements. */
static uint64_t elem_off(const struct wls *s, uint64_t ldm, unsigned l,
                         unsigned e)
{
    const struct wmma_rc *x = &s->rc[l * 16 + e]; /* e < dist */
    return s->col ? (uint64_t)x->c * ldm + x->r : (uint64_t)x->r * ldm + x->c;
}

static uint64_t lane_base(const struct ptx_warp *w, const struct ptx_opd *o,
                          unsigned l)
{
    uint64_t a = (uint64_t)o->imm;
    if (o->reg != PTX_NOREG) {
        a += R(w, o->reg, l);
    }
    if (o->var != PTX_NOVAR && (unsigned)o->var < w->ctx.n_var_addrs) {
        a += w->ctx.var_addrs[o->var];
    }
    return a;
}

static uint64_t lane_ldm(const struct ptx_warp *w, const struct ptx_insn *in,
                         const struct wls *s, unsigned l)
{
    if (in->o[1].kind == OPD_NONE) {
        return s->col ? s->f.rows : s->f.cols;
    }
    return (uint32_t)val(w, &in->o[1], l);
}

/* The elements a load or store moves: a load reads each distinct one
 * once, then repeats them. */
static unsigned moved(const struct ptx_insn *in, const struct wls *s)
{
    return in->op == OP_WMMA_LD ? s->f.dist : s->f.elems;
}

/* The whole fragment of lane l at p's space (shared or local): the span
 * of its elements checked once, or tile: the whole tile's host pointer,
 * checked (a full warp's fragment in shared memory). */
static int lane_internal(struct ptx_warp *w, const struct ptx_insn *in,
                         const struct wls *s, enum ptx_space sp,
                         uint64_t a, uint64_t ldm, unsigned l, uint8_t *tile)
{
    unsigned eb = s->f.ebytes, n = moved(in, s);
    uint64_t off[16], lo = UINT64_MAX, hi = 0;
    for (unsigned e = 0; e < n; e++) {
        off[e] = elem_off(s, ldm, l, e) * eb;
        lo = off[e] < lo ? off[e] : lo;
        hi = off[e] > hi ? off[e] : hi;
    }
    uint8_t *p = tile ? tile + lo
                      : ptx__lane_ptr(w, in, sp, a + lo, l,
                                      (unsigned)(hi - lo) + eb);
    if (!p) {
        return -1;
    }
    if (in->op == OP_WMMA_ST) {
        for (unsigned e = 0; e < n; e++) {
            uint64_t v = get_elem(w, s->regs, &s->f, l, e);
            memcpy(p + off[e] - lo, &v, eb);
        }
        return 0;
    }
    /* a load: each register's elements put together, then written */
    const uint8_t *q = p - lo;
    for (unsigned j = 0; j < s->f.regs && j * 4 < n * eb; j++) {
        uint64_t v = 0;
        switch (eb) {
        case 1:
            v = (uint64_t)q[off[4 * j]] | (uint64_t)q[off[4 * j + 1]] << 8 |
                (uint64_t)q[off[4 * j + 2]] << 16 |
                (uint64_t)q[off[4 * j + 3]] << 24;
            break;
        case 2: {
            uint16_t x, y;
            memcpy(&x, q + off[2 * j], 2);
            memcpy(&y, q + off[2 * j + 1], 2);
            v = (uint64_t)x | (uint64_t)y << 16;
            break;
        }
        case 4: {
            uint32_t x;
            memcpy(&x, q + off[j], 4);
            v = x;
            break;
        }
        default:
            memcpy(&v, q + off[j], 8);
            break;
        }
        R(w, s->regs[j], l) = v;
    }
    repeat_elems(w, s->regs, &s->f, l);
    return 0;
}

/* The longest run of elements from e0 (of n) that every lane of mask
 * has contiguous in memory and aligned to its size, at most 16 bytes. */
static unsigned run_len(const struct wls *s, const uint64_t *base,
                        const uint64_t *ldm, uint32_t mask, unsigned e0,
                        unsigned n)
{
    unsigned eb = s->f.ebytes, L = 16 / eb;
    while (L > n - e0) {
        L /= 2;
    }
    for (; L > 1; L /= 2) {
        bool ok = true;
        LANES(mask, l) {
            uint64_t o = elem_off(s, ldm[l], l, e0);
            ok = ok && (base[l] + o * eb) % (L * eb) == 0;
            for (unsigned j = 1; ok && j < L; j++) {
                ok = elem_off(s, ldm[l], l, e0 + j) == o + j;
            }
        }
        if (ok) {
            break;
        }
    }
    return L;
}

/* A full warp's fragment in shared memory at one address and stride (as
 * PTX requires of wmma): the tile's host pointer, bounds checked once;
 * NULL otherwise, or with *fail when the tile is out of bounds. */
static uint8_t *shared_tile(struct ptx_warp *w, const struct ptx_insn *in,
                           const struct wls *s, uint32_t exec, bool *fail)
{
    *fail = false;
    if (exec != 0xffffffffu) {
        return NULL;
    }
    uint64_t a = lane_base(w, &in->o[0], 0), ldm = lane_ldm(w, in, s, 0);
    for (unsigned l = 1; l < PTX_WARP_SIZE; l++) {
        if (lane_base(w, &in->o[0], l) != a || lane_ldm(w, in, s, l) != ldm) {
            return NULL;
        }
    }
    enum ptx_space sp = (enum ptx_space)in->space;
    if (sp == PS_GENERIC) {
        sp = ptx__generic_space(w, &a);
    }
    if (sp != PS_SHARED) {
        return NULL;
    }
    /* the lanes' elements cover the tile: (0, 0) to its far corner */
    uint64_t major = s->col ? s->f.cols : s->f.rows;
    uint64_t minor = s->col ? s->f.rows : s->f.cols;
    uint64_t span = ((major - 1) * ldm + minor) * s->f.ebytes;
    if (ldm > UINT32_MAX || span > UINT32_MAX) {
        return NULL; /* the lanes' own checks say where */
    }
    uint8_t *p = ptx__lane_ptr(w, in, sp, a, 0, (unsigned)span);
    *fail = !p;
    return p;
}

static int exec_ldst(struct ptx_warp *w, const struct ptx_insn *in,
                     uint32_t exec, struct ptx_mem_req *req)
{
    struct wls s;
    wls_of(w, in, &s);
    unsigned e0 = w->wmma_elem, eb = s.f.ebytes, n = moved(in, &s);
    uint64_t base[PTX_WARP_SIZE], ldm[PTX_WARP_SIZE];
    uint32_t global = 0;
    bool fail;
    uint8_t *tile = e0 == 0 ? shared_tile(w, in, &s, exec, &fail) : NULL;
    if (tile || (e0 == 0 && fail)) {
        uint64_t m = lane_ldm(w, in, &s, 0);
        for (unsigned l = 0; tile && l < PTX_WARP_SIZE; l++) {
            lane_internal(w, in, &s, PS_SHARED, 0, m, l, tile);
        }
        return tile ? 0 : -1;
    }
    LANES(exec, l) {
        uint64_t a = lane_base(w, &in->o[0], l);
        enum ptx_space sp = (enum ptx_space)in->space;
        ldm[l] = lane_ldm(w, in, &s, l);
        if (sp == PS_GENERIC) {
            sp = ptx__generic_space(w, &a);
        }
        if (sp == PS_GLOBAL) {
            global |= 1u << l;
            base[l] = a;
        } else if (e0 == 0 &&
                   lane_internal(w, in, &s, sp, a, ldm[l], l, NULL)) {
            return -1;
        }
    }
    if (!global) {
        return 0;
    }
    unsigned L = run_len(&s, base, ldm, global, e0, n);
    bool st = in->op == OP_WMMA_ST;
    ptx__req_common(w, in, req, st ? PTX_MEM_ST : PTX_MEM_LD);
    req->bytes_per_lane = L * eb;
    req->mask = global;
    LANES(global, l) {
        req->addr[l] = base[l] + elem_off(&s, ldm[l], l, e0) * eb;
        if (st) {
            uint8_t *d = (uint8_t *)req->data[l];
            memset(d, 0, 16);
            for (unsigned j = 0; j < L; j++) {
                uint64_t v = get_elem(w, s.regs, &s.f, l, e0 + j);
                memcpy(d + j * eb, &v, eb);
            }
        }
    }
    return e0 + L < n ? 2 : 1;
}

void ptx__wmma_resume(struct ptx_warp *w, const struct ptx_insn *in,
                      uint32_t mask, const struct ptx_mem_req *req)
{
    struct wls s;
    wls_of(w, in, &s);
    unsigned e0 = w->wmma_elem, eb = s.f.ebytes, n = moved(in, &s);
    unsigned L = req->bytes_per_lane / eb;
    bool last = e0 + L >= n;
    if (in->op == OP_WMMA_LD) {
        LANES(mask, l) {
            const uint8_t *p = (const uint8_t *)req->result[l];
            for (unsigned j = 0; j < L; j++) {
                uint64_t v = 0;
                memcpy(&v, p + j * eb, eb);
                set_elem(w, s.regs, &s.f, l, e0 + j, v);
            }
            if (last) {
                repeat_elems(w, s.regs, &s.f, l);
            }
        }
    }
    w->wmma_elem = last ? 0 : e0 + L;
}

/* ---------------------------------------------------------------------- */
/* wmma.mma                                                                */
/* ---------------------------------------------------------------------- */

/* A fragment's matrix (every lane's registers) into out[row * cols +
 * col]: floats (f16, bf16, tf32 as the hardware reads it, f32), doubles
 * (f64) or integers, as t is. */
static void gather(const struct ptx_warp *w, const uint16_t *regs,
                   const struct wmma_frag *f, const struct wmma_rc *rc,
                   unsigned t, float *of, double *od, int32_t *oi)
{
    unsigned eb = f->ebytes, per = eb >= 4 ? 1 : 4 / eb;
    for (unsigned e = 0; e < f->dist; e++) {
        const uint64_t *row = &w->r[(size_t)regs[e / per] * PTX_WARP_SIZE];
        const struct wmma_rc *x = &rc[e];
        unsigned sh = (e % per) * eb * 8;
#define GATHER(out, expr)                                                    \
    for (unsigned l = 0; l < PTX_WARP_SIZE; l++) {                           \
        uint64_t v = row[l] >> sh;                                           \
        out[x[l * 16].at] = (expr);                                          \
    }                                                                        \
    break
        switch (t) {
        case PT_F16: GATHER(of, f16_float[(uint16_t)v]);
        case WT_BF16: GATHER(of, f32((uint32_t)v << 16));
        case WT_TF32: GATHER(of, f32(v & ~0x1fffull));
        case PT_F32: GATHER(of, f32(v));
        case PT_F64: GATHER(od, f64(v));
        case PT_S8: GATHER(oi, (int8_t)v);
        case PT_U8: GATHER(oi, (uint8_t)v);
        default: GATHER(oi, (int32_t)v);
        }
#undef GATHER
    }
}

static inline uint32_t float_d(float y, unsigned t, bool sat)
{
    if (t == PT_F32) {
        if (sat && isinf(y)) {
            y = copysignf(FLT_MAX, y);
        }
        return (uint32_t)bits32(y);
    }
    uint16_t h = ptx__f32_to_f16((uint32_t)bits32(y));
    if (sat && (h & 0x7fffu) == 0x7c00u) {
        h = (uint16_t)((h & 0x8000u) | 0x7bffu); /* 65504 */
    }
    return h;
}

/* The operands of one wmma.mma as matrices, and D's raw bits. */
struct mma_mats {
    float af[512], bf[512], cf[256];
    double ad[32], bd[32], cd[64];
    int32_t ai[512], bi[512], ci[256];
    uint64_t d[256];
};

/* D = A x B + C of type t into m->d. f16, bf16 and tf32 products are
 * exact in f32 (tf32: the f32 value's top 19 bits, the low 13 ignored as
 * the hardware does), so a fused or a separate multiply-add is the same:
 * each k step (k = 0, 1, ...) adds its product to the running f32 sum,
 * rounded to nearest even, starting from C (an f16 C widened exactly);
 * an f16 D is the f32 result rounded to nearest even. f64: one fused
 * multiply-add per k step. .satfinite turns an infinite D into the
 * largest finite value of its sign (NaN stays). Integer sums are exact;
 * D wraps to 32 bits, or with .satfinite saturates to the s32 range. */
static inline __attribute__((always_inline)) void
mma_float(unsigned M, unsigned N, unsigned K, unsigned t, bool sat,
          struct mma_mats *m)
{
    float d[256];
    for (unsigned i = 0; i < M; i++) {
        float acc[32]; /* a row of D, kept in registers over k */
        for (unsigned j = 0; j < N; j++) {
            acc[j] = m->cf[i * N + j];
        }
        for (unsigned k = 0; k < K; k++) {
            float x = m->af[i * K + k];
            for (unsigned j = 0; j < N; j++) {
                acc[j] += x * m->bf[k * N + j];
            }
        }
        for (unsigned j = 0; j < N; j++) {
            d[i * N + j] = acc[j];
        }
    }
    if (t == PT_F32 && !sat) {
        for (unsigned i = 0; i < M * N; i++) {
            m->d[i] = (uint32_t)bits32(d[i]);
        }
        return;
    }
    for (unsigned i = 0; i < M * N; i++) {
        m->d[i] = float_d(d[i], t, sat);
    }
}

static inline __attribute__((always_inline)) void
mma_int(unsigned M, unsigned N, unsigned K, bool sat, struct mma_mats *m)
{
    int32_t s[256]; /* |sum| <= 16 * 255 * 255 */
    for (unsigned i = 0; i < M; i++) {
        int32_t acc[32];
        for (unsigned j = 0; j < N; j++) {
            acc[j] = 0;
        }
        for (unsigned k = 0; k < K; k++) {
            int32_t x = m->ai[i * K + k];
            for (unsigned j = 0; j < N; j++) {
                acc[j] += x * m->bi[k * N + j];
            }
        }
        for (unsigned j = 0; j < N; j++) {
            s[i * N + j] = acc[j];
        }
    }
    for (unsigned i = 0; i < M * N; i++) {
        int64_t acc = (int64_t)m->ci[i] + s[i];
        if (sat) {
            acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
        }
        m->d[i] = (uint32_t)acc;
    }
}

static void mma_f64(struct mma_mats *m) /* m8n8k4 */
{
    double d[64];
    memcpy(d, m->cd, sizeof(d));
    for (unsigned i = 0; i < 8; i++) {
        for (unsigned k = 0; k < 4; k++) {
            for (unsigned j = 0; j < 8; j++) {
                d[i * 8 + j] = fma(m->ad[i * 4 + k], m->bd[k * 8 + j],
                                   d[i * 8 + j]);
            }
        }
    }
    for (unsigned i = 0; i < 64; i++) {
        m->d[i] = bits64(d[i]);
    }
}

/* The product of shape s with D of type t, its loops of constant length
 * for the common shape so that they vectorize. */
FAST_CLONES
static void product(unsigned s, unsigned t, bool sat, struct mma_mats *m)
{
    unsigned M = dims[s][0], N = dims[s][1], K = dims[s][2];
    if (t == PT_F64) {
        mma_f64(m);
    } else if (t == PT_S32) {
        if (s == WM_M16N16K16) {
            mma_int(16, 16, 16, sat, m);
        } else {
            mma_int(M, N, K, sat, m);
        }
    } else if (s == WM_M16N16K16) {
        mma_float(16, 16, 16, t, sat, m);
    } else {
        mma_float(M, N, K, t, sat, m);
    }
}

static int exec_mma(struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec)
{
    unsigned s = in->vec;
    unsigned amaj = in->cmp & 1, bmaj = (in->cmp >> 1) & 1;
    struct wmma_frag fa, fb, fc, fd;
    ptx__wmma_frag(s, WM_A, in->type, &fa);
    ptx__wmma_frag(s, WM_B, in->type2, &fb);
    ptx__wmma_frag(s, WM_C, in->boolop, &fc);
    ptx__wmma_frag(s, WM_C, in->rnd, &fd);
    const uint16_t *rd = &w->k->wregs[in->o[0].imm], *ra = rd + fd.regs,
                   *rb = ra + fa.regs, *rc = rb + fb.regs;
    struct mma_mats m;
    gather(w, ra, &fa, rc_of(s, WM_A, &fa, amaj), in->type, m.af, m.ad, m.ai);
    gather(w, rb, &fb, rc_of(s, WM_B, &fb, bmaj), in->type2, m.bf, m.bd, m.bi);
    gather(w, rc, &fc, rc_of(s, WM_C, &fc, 0), in->boolop, m.cf, m.cd, m.ci);
    product(s, in->rnd, in->flags & PIF_SAT, &m);
    const struct wmma_rc *xd = rc_of(s, WM_C, &fd, 0);
    unsigned per = fd.ebytes >= 4 ? 1 : 2; /* f16 D: two per register */
    for (unsigned j = 0; j < fd.regs; j++) {
        uint64_t *row = &w->r[(size_t)rd[j] * PTX_WARP_SIZE];
        const struct wmma_rc *x = &xd[j * per];
        LANES(exec, l) {
            row[l] = per == 1 ? m.d[x[l * 16].at]
                              : m.d[x[l * 16].at] |
                                    m.d[x[l * 16 + 1].at] << 16;
        }
    }
    return 0;
}

int ptx__exec_wmma(struct ptx_warp *w, const struct ptx_insn *in,
                   uint32_t exec, struct ptx_mem_req *req)
{
    if (in->op == OP_WMMA_MMA) {
        return exec_mma(w, in, exec);
    }
    return exec_ldst(w, in, exec, req);
}
