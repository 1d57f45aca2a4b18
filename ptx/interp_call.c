/*
 * ptx/interp_call.c - the functions a kernel calls that have no PTX body
 * and are served here: vprintf (device printf) and __assertfail (device
 * assert), or handed to the executor: malloc and free (a PTX_MEM_MALLOC
 * or PTX_MEM_FREE request, the executor's device heap) and the device
 * runtime's cudaGraphSetConditional(handle, value), a 4-byte store of
 * value at the handle (the runtime makes a handle an address). The device
 * runtime's launch functions (dynamic parallelism) go to ctx.devrt_fn.
 * Calls of functions with a body are interp.c's (exec_call).
 *
 * vprintf(format, args): the format is a generic address, the packed
 * argument buffer (each argument at its own alignment, floats promoted
 * to double, as nvcc lays it out) another, normally in the lane's .local
 * frame. A string (the format, a %s argument) is read from the lane's
 * frame or from a module variable's initial bytes (string literals are
 * .global variables with an initializer); any other address prints as
 * "(string at 0x...)". Lanes print in lane order, each line written to
 * stdout at once, with the return value (characters printed) stored.
 *
 * Model: output goes to the standard output of the process that runs
 * the machine (the program's, or a p2psim server's), when the
 * instruction runs, not buffered until the next synchronization; a
 * printf's output is cut at PTX_PRINTF_MAX_BYTES.
 *
 * __assertfail(message, file, line, function, size): prints CUDA's line
 * ("file:line: function: block: [x,y,z], thread: [x,y,z] Assertion
 * `message` failed.") on stderr for each lane and fails the warp with
 * req.assert_failed set, which the runtime returns as cudaErrorAssert.
 */
#include <config.h>

#include "ptx/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx_int.h"
#include "ptx/interp_int.h"

#define PTX_PRINTF_MAX_BYTES 4096u

/* The bytes at generic address a for lane l: a pointer and how many may
 * be read (*avail; bytes past a module variable's initializer are 0, so
 * strings end there), or NULL when the address is not readable here. */
static const uint8_t *host_bytes(const struct ptx_warp *w, unsigned l,
                                 uint64_t a, uint64_t *avail)
{
    const struct ptx_warp_ctx *c = &w->ctx;
    const struct ptx_kernel *k = w->k;
    if (a - c->local_window_base < c->local_window_bytes) {
        uint64_t off = a - c->local_window_base;
        if (off >= k->local_bytes) {
            return NULL;
        }
        *avail = k->local_bytes - off;
        return w->local + (size_t)l * k->local_bytes + off;
    }
    for (unsigned i = 0; k->mod && i < c->n_var_addrs; i++) {
        const struct ptx_var_info *v = ptx_module_var(k->mod, i);
        uint64_t base = c->var_addrs[i];
        if (!v || !v->init || a < base || a - base >= v->init_bytes) {
            continue;
        }
        *avail = v->init_bytes - (a - base);
        return v->init + (a - base);
    }
    return NULL;
}

/* The NUL-terminated string at a, into buf (cap bytes). */
static void read_str(const struct ptx_warp *w, unsigned l, uint64_t a,
                     char *buf, size_t cap)
{
    uint64_t avail = 0;
    const uint8_t *s = host_bytes(w, l, a, &avail);
    if (!s) {
        snprintf(buf, cap, "(string at 0x%llx)", (unsigned long long)a);
        return;
    }
    size_t n = 0;
    while (n + 1 < cap && n < avail && s[n]) {
        buf[n] = (char)s[n];
        n++;
    }
    buf[n] = '\0';
}

/* The next argument of n bytes from the buffer (aligned to n). */
static uint64_t next_arg(const uint8_t *buf, uint64_t avail, uint64_t *off,
                         unsigned n, bool *ok)
{
    uint64_t o = (*off + n - 1) / n * n, v = 0;
    if (!buf || o > avail || n > avail - o) {
        *ok = false;
        return 0;
    }
    memcpy(&v, buf + o, n);
    *off = o + n;
    return v;
}

/* The program's conversions are handed to snprintf one by one, each
 * checked to be one conversion of the type passed. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

/* Format lane l's printf into out (cap bytes); returns its length. */
static size_t format_lane(const struct ptx_warp *w, unsigned l,
                          const char *fmt, const uint8_t *args,
                          uint64_t avail, char *out, size_t cap)
{
    size_t len = 0;
    uint64_t off = 0;
    bool ok = true;
    for (const char *f = fmt; *f && len + 1 < cap;) {
        if (*f != '%') {
            out[len++] = *f++;
            continue;
        }
        if (f[1] == '%') {
            out[len++] = '%';
            f += 2;
            continue;
        }
        /* one conversion: %[flags][width][.prec][length]conv */
        char spec[32];
        size_t sn = 0;
        spec[sn++] = *f++;
        while (*f && strchr("-+ #0", *f) && sn < 20) {
            spec[sn++] = *f++;
        }
        while (*f && ((*f >= '0' && *f <= '9') || *f == '.') && sn < 28) {
            spec[sn++] = *f++;
        }
        unsigned longs = 0;
        while (*f && strchr("hlLqjzt", *f)) {
            longs += *f == 'l' || *f == 'L' || *f == 'q' || *f == 'j' ||
                     *f == 'z' || *f == 't';
            f++;
        }
        char conv = *f ? *f++ : '\0';
        char piece[512];
        piece[0] = '\0';
        switch (conv) {
        case 'd':
        case 'i': {
            int64_t v = longs ? (int64_t)next_arg(args, avail, &off, 8, &ok)
                              : (int32_t)next_arg(args, avail, &off, 4, &ok);
            memcpy(spec + sn, "lld", 4);
            snprintf(piece, sizeof(piece), spec, (long long)v);
            break;
        }
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            uint64_t v = longs ? next_arg(args, avail, &off, 8, &ok)
                               : (uint32_t)next_arg(args, avail, &off, 4, &ok);
            spec[sn] = 'l';
            spec[sn + 1] = 'l';
            spec[sn + 2] = conv;
            spec[sn + 3] = '\0';
            snprintf(piece, sizeof(piece), spec, (unsigned long long)v);
            break;
        }
        case 'c': {
            int v = (int)next_arg(args, avail, &off, 4, &ok);
            memcpy(spec + sn, "c", 2);
            snprintf(piece, sizeof(piece), spec, v);
            break;
        }
        case 'f': case 'F': case 'e': case 'E':
        case 'g': case 'G': case 'a': case 'A': {
            uint64_t bits = next_arg(args, avail, &off, 8, &ok);
            double d;
            memcpy(&d, &bits, 8);
            spec[sn] = conv;
            spec[sn + 1] = '\0';
            snprintf(piece, sizeof(piece), spec, d);
            break;
        }
        case 'p': {
            uint64_t v = next_arg(args, avail, &off, 8, &ok);
            snprintf(piece, sizeof(piece), "0x%llx", (unsigned long long)v);
            break;
        }
        case 's': {
            uint64_t a = next_arg(args, avail, &off, 8, &ok);
            char str[400];
            read_str(w, l, a, str, sizeof(str));
            memcpy(spec + sn, "s", 2);
            snprintf(piece, sizeof(piece), spec, str);
            break;
        }
        default:
            /* not a conversion printf knows: printed as written */
            spec[sn] = conv;
            spec[sn + 1] = '\0';
            snprintf(piece, sizeof(piece), "%s", spec);
            break;
        }
        if (!ok) {
            snprintf(piece, sizeof(piece), "(missing argument)");
        }
        for (const char *q = piece; *q && len + 1 < cap; q++) {
            out[len++] = *q;
        }
    }
    out[len] = '\0';
    return len;
}

static uint64_t frame_u64(const struct ptx_warp *w, unsigned l, int64_t off)
{
    uint64_t v = 0;
    memcpy(&v, w->local + (size_t)l * w->k->local_bytes + off, 8);
    return v;
}

static int call_vprintf(struct ptx_warp *w, const struct ptx_call *c,
                        uint32_t exec)
{
    char *out = malloc(PTX_PRINTF_MAX_BYTES);
    char *fmt = malloc(PTX_PRINTF_MAX_BYTES);
    if (!out || !fmt) {
        free(out);
        free(fmt);
        return -1;
    }
    LANES(exec, l) {
        if (c->arg_bytes[0] < 8 || c->arg_bytes[1] < 8) {
            break;
        }
        read_str(w, l, frame_u64(w, l, c->arg_off[0]), fmt,
                 PTX_PRINTF_MAX_BYTES);
        uint64_t avail = 0;
        const uint8_t *args = host_bytes(w, l, frame_u64(w, l,
                                                         c->arg_off[1]),
                                         &avail);
        size_t n = format_lane(w, l, fmt, args, avail, out,
                               PTX_PRINTF_MAX_BYTES);
        fwrite(out, 1, n, stdout);
        if (c->ret_bytes >= 4) {
            uint32_t r = (uint32_t)n;
            memcpy(w->local + (size_t)l * w->k->local_bytes + c->ret_off, &r,
                   4);
        }
    }
    fflush(stdout);
    free(out);
    free(fmt);
    return 0;
}

static int call_assert(struct ptx_warp *w, const struct ptx_insn *in,
                       const struct ptx_call *c, uint32_t exec)
{
    char msg[256] = "", file[256] = "", func[256] = "";
    uint32_t line = 0;
    LANES(exec, l) {
        uint8_t *frame = w->local + (size_t)l * w->k->local_bytes;
        read_str(w, l, frame_u64(w, l, c->arg_off[0]), msg, sizeof(msg));
        read_str(w, l, frame_u64(w, l, c->arg_off[1]), file, sizeof(file));
        memcpy(&line, frame + c->arg_off[2], 4);
        read_str(w, l, frame_u64(w, l, c->arg_off[3]), func, sizeof(func));
        const struct ptx_warp_ctx *x = &w->ctx;
        fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] "
                "Assertion `%s` failed.\n", file, line, func, x->ctaid.x,
                x->ctaid.y, x->ctaid.z, x->tid[l].x, x->tid[l].y,
                x->tid[l].z, msg);
    }
    fflush(stderr);
    w->asserted = true;
    return ptx__warp_fail(w, in, "device assertion `%.100s` failed (%.60s:%u)",
                          msg, file, line);
}

bool ptx__call_heap(const struct ptx_warp *w, const struct ptx_insn *in,
                    uint32_t exec, struct ptx_mem_req *req)
{
    const struct ptx_call *c = &w->k->calls[in->o[0].imm];
    if (c->kind != PTX_CALLEE_MALLOC && c->kind != PTX_CALLEE_FREE &&
        c->kind != PTX_CALLEE_SETCOND) {
        return false;
    }
    bool set = c->kind == PTX_CALLEE_SETCOND;
    req->op = set ? PTX_MEM_ST
                  : c->kind == PTX_CALLEE_MALLOC ? PTX_MEM_MALLOC : PTX_MEM_FREE;
    req->bytes_per_lane = set ? 4 : 8;
    req->sem = PTX_SEM_WEAK;
    req->scope = PTX_SCOPE_GPU;
    req->atom = PTX_ATOM_NONE;
    req->atype = PTX_ATYPE_U64;
    req->nc = false;
    req->constant = false;
    req->mask = exec;
    req->line = in->line;
    req->error = NULL;
    LANES(exec, l) {
        uint32_t v = 0;
        memcpy(&v, w->local + (size_t)l * w->k->local_bytes + c->arg_off[1],
               set ? 4 : 0);
        req->addr[l] = set ? frame_u64(w, l, c->arg_off[0]) : 0;
        req->data[l][0] = set ? v : frame_u64(w, l, c->arg_off[0]);
        req->data[l][1] = 0;
        req->result[l][0] = 0;
    }
    return true;
}

void ptx__call_heap_result(struct ptx_warp *w, const struct ptx_insn *in,
                           uint32_t mask, const struct ptx_mem_req *req)
{
    const struct ptx_call *c = &w->k->calls[in->o[0].imm];
    if (c->kind != PTX_CALLEE_MALLOC) {
        return;
    }
    LANES(mask, l) {
        memcpy(w->local + (size_t)l * w->k->local_bytes + c->ret_off,
               &req->result[l][0], 8);
    }
}

/* Where a device-runtime call's out value goes: generic address a of
 * lane l in its .local frame or the CTA's shared memory; NULL else. */
static uint8_t *out_bytes(struct ptx_warp *w, unsigned l, uint64_t a,
                          unsigned n)
{
    const struct ptx_warp_ctx *x = &w->ctx;
    const struct ptx_kernel *k = w->k;
    uint64_t off = a - x->local_window_base;
    if (a >= x->local_window_base && off < x->local_window_bytes) {
        return off <= k->local_bytes && n <= k->local_bytes - off
                   ? w->local + (size_t)l * k->local_bytes + off : NULL;
    }
    off = a - x->shared_window_base;
    if (a >= x->shared_window_base && off < x->shared_window_bytes) {
        return off <= x->shared_bytes && n <= x->shared_bytes - off
                   ? x->shared + off : NULL;
    }
    return NULL;
}

/* A device-runtime function (dynamic parallelism): the executor's,
 * lane by lane. */
static int call_devrt(struct ptx_warp *w, const struct ptx_insn *in,
                      const struct ptx_call *c, uint32_t exec)
{
    const struct ptx_warp_ctx *x = &w->ctx;
    if (!x->devrt_fn) {
        return ptx__warp_fail(w, in, "%s: no device runtime in this "
                              "executor (dynamic parallelism)", c->name);
    }
    LANES(exec, l) {
        uint8_t *frame = w->local + (size_t)l * w->k->local_bytes;
        struct ptx_devrt_call d;
        memset(&d, 0, sizeof(d));
        d.fn = (enum ptx_devrt)c->func;
        d.name = c->name;
        d.lane = l;
        d.n_args = c->n_args < PTX_DEVRT_ARGS_MAX ? c->n_args
                                                  : PTX_DEVRT_ARGS_MAX;
        for (unsigned i = 0; i < d.n_args; i++) {
            d.arg[i] = frame + c->arg_off[i];
            d.arg_bytes[i] = c->arg_bytes[i];
        }
        char msg[200] = "";
        if (x->devrt_fn(x->devrt_user, &d, msg, sizeof(msg)) < 0) {
            return ptx__warp_fail(w, in, "%s: %s", c->name, msg);
        }
        if (d.out_bytes) {
            uint64_t a = 0;
            uint8_t *dst = NULL;
            if (d.n_args && d.arg_bytes[0] >= 8) {
                memcpy(&a, d.arg[0], 8);
                dst = out_bytes(w, l, a, d.out_bytes);
            }
            if (!dst) {
                return ptx__warp_fail(w, in, "%s: its result at 0x%llx, "
                                      "which is not the thread's local or "
                                      "shared memory (unsupported)", c->name,
                                      (unsigned long long)a);
            }
            memcpy(dst, &d.out_val, d.out_bytes);
        }
        if (c->ret_bytes) {
            memcpy(frame + c->ret_off, &d.ret,
                   c->ret_bytes < 8 ? c->ret_bytes : 8);
        }
    }
    return 0;
}

int ptx__call_builtin(struct ptx_warp *w, const struct ptx_insn *in,
                      const struct ptx_call *c, uint32_t exec)
{
    if (c->kind == PTX_CALLEE_DEVRT) {
        return call_devrt(w, in, c, exec);
    }
    if (c->kind == PTX_CALLEE_ASSERT) {
        return call_assert(w, in, c, exec);
    }
    if (call_vprintf(w, c, exec) < 0) {
        return ptx__warp_fail(w, in, "out of memory in printf");
    }
    return 0;
}
