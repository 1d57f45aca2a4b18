/*
 * cuda/driver/drv_link.c - the JIT linker of p2psim's driver API:
 * cuLinkCreate, cuLinkAddData, cuLinkAddFile, cuLinkComplete and
 * cuLinkDestroy, and the output options (logs, wall time) that they and
 * cuModuleLoadDataEx fill.
 *
 * The inputs are PTX: CU_JIT_INPUT_PTX text, a "cubin" as p2psim's
 * (NVRTC's cubin is its PTX under p2psim, nvrtc_cubin.c; a real cubin
 * holds only machine code and is refused), or a fat binary with PTX in it.
 * Each input is read and parsed when it is added, as CUDA compiles it
 * then: one that does not parse fails there, with the parser's message in
 * the error log. cuLinkComplete links every unit with the linker of
 * -rdc=true programs (ptx/ptx_link.h's ptx_link_all, through
 * p2psim_drv_link): a .extern function or variable of one unit is
 * another's definition, and one defined twice fails the link. Its output,
 * the "cubin", is the linked PTX text (NUL-terminated, the NUL counted in
 * its size), which cuModuleLoadData loads; it lives until cuLinkDestroy.
 * Host objects, libraries of them and NVVM IR (CU_JIT_INPUT_OBJECT,
 * LIBRARY, NVVM) are not served: CUDA_ERROR_NOT_SUPPORTED.
 *
 * Options. Those of cuLinkCreate hold for every input (CUDA keeps its
 * optionValues until cuLinkDestroy, and so do we); those of cuLinkAddData
 * for that input. Served: the info and error logs (a log's size option
 * becomes the bytes written, NUL included), CU_JIT_WALL_TIME (the
 * milliseconds spent reading and linking, a float written over the
 * option's value) and CU_JIT_LOG_VERBOSE (the info log says what was read
 * and linked). The others steer machine code, which p2psim does not make:
 * taken and ignored. An option CUDA does not have is
 * CUDA_ERROR_INVALID_VALUE.
 */
#include <config.h>

#include "cuda/driver/drv_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/include/p2psim_cudart_internal.h"

/* A message of the loader or linker fits in this (ptx.h's are shorter). */
#define LINK_MSG_MAX 512

/* ---- JIT options --------------------------------------------------------- */

/* The value slot of option o, or NULL when it is not given. */
static void **jit_slot(unsigned n, const CUjit_option *opt, void **val,
                       CUjit_option o)
{
    for (unsigned i = 0; opt && val && i < n; i++) {
        if (opt[i] == o) {
            return &val[i];
        }
    }
    return NULL;
}

CUresult drv_jit_check(const char *who, unsigned n, const CUjit_option *opt,
                       void **val)
{
    if (n && (!opt || !val)) {
        fprintf(stderr, "p2psim: %s: %u options and no %s array\n", who, n,
                opt ? "value" : "option");
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (unsigned i = 0; i < n; i++) {
        if ((unsigned)opt[i] >= CU_JIT_NUM_OPTIONS) {
            fprintf(stderr, "p2psim: %s: option %u is no CUjit_option "
                    "(CUDA 13 has 0 to %d)\n", who, (unsigned)opt[i],
                    CU_JIT_NUM_OPTIONS - 1);
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    return CUDA_SUCCESS;
}

/* A log buffer of the options: where, its capacity, its size's slot. */
struct jit_log_buf {
    char *buf;
    size_t cap;
    void **size;
};

static struct jit_log_buf jit_log_find(unsigned n, const CUjit_option *opt,
                                       void **val, bool error)
{
    struct jit_log_buf b = { NULL, 0, NULL };
    void **buf = jit_slot(n, opt, val, error ? CU_JIT_ERROR_LOG_BUFFER
                                             : CU_JIT_INFO_LOG_BUFFER);
    b.size = jit_slot(n, opt, val, error ? CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
                                         : CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
    if (buf && b.size) {
        b.buf = *buf;
        b.cap = (size_t)(uintptr_t)*b.size;
    }
    return b;
}

static void jit_log_write(const struct jit_log_buf *b, const char *msg)
{
    if (!b->buf || !b->cap) {
        return;
    }
    size_t len = strlen(msg);
    if (len >= b->cap) {
        len = b->cap - 1;
    }
    memcpy(b->buf, msg, len);
    b->buf[len] = '\0';
    /* CUDA: out, the bytes of the buffer filled */
    *b->size = (void *)(uintptr_t)(len ? len + 1 : 0);
}

void drv_jit_log(unsigned n, const CUjit_option *opt, void **val,
                 const char *msg, bool error)
{
    struct jit_log_buf b = jit_log_find(n, opt, val, error);
    jit_log_write(&b, msg);
}

void drv_jit_wall_time(unsigned n, const CUjit_option *opt, void **val,
                       double seconds)
{
    void **slot = jit_slot(n, opt, val, CU_JIT_WALL_TIME);
    if (slot) {
        float ms = (float)(seconds * 1e3);
        *slot = NULL;
        memcpy(slot, &ms, sizeof(ms));
    }
}

static bool jit_verbose(unsigned n, const CUjit_option *opt, void **val)
{
    void **v = jit_slot(n, opt, val, CU_JIT_LOG_VERBOSE);
    return v && *v;
}

/* ---- link states --------------------------------------------------------- */

struct link_image {
    char *text;
    struct link_image *next;
};

struct CUlinkState_st {
    unsigned n_opt;
    CUjit_option *opt;          /* a copy of cuLinkCreate's */
    void **val;                 /* the program's (CUDA: kept) */
    struct jit_log_buf info_buf, error_buf; /* as cuLinkCreate gave them */
    char **units, **names;
    unsigned n, cap;
    char *info, *error;         /* the logs so far ("" none) */
    double seconds;             /* spent reading and linking */
    struct link_image *images;  /* cuLinkComplete's, the latest first */
    bool linked;                /* images holds the link of every unit */
    struct CUlinkState_st *next;
};

static pthread_mutex_t link_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUlinkState_st *links;

static bool link_valid(CUlinkState s)
{
    bool found = false;
    pthread_mutex_lock(&link_lock);
    for (struct CUlinkState_st *l = links; l && !found; l = l->next) {
        found = l == s;
    }
    pthread_mutex_unlock(&link_lock);
    return s && found;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Append a line to a log (*log malloc'd); false when out of memory. */
static bool log_add(char **log, const char *line)
{
    size_t a = *log ? strlen(*log) : 0, b = strlen(line);
    char *n = realloc(*log, a + b + 2);
    if (!n) {
        return false;
    }
    memcpy(n + a, line, b);
    n[a + b] = '\n';
    n[a + b + 1] = '\0';
    *log = n;
    return true;
}

/* The logs and wall time into the state's options and, for one input,
 * the call's own. */
static void link_report(CUlinkState s, unsigned n, const CUjit_option *opt,
                        void **val)
{
    jit_log_write(&s->info_buf, s->info ? s->info : "");
    jit_log_write(&s->error_buf, s->error ? s->error : "");
    drv_jit_wall_time(s->n_opt, s->opt, s->val, s->seconds);
    drv_jit_log(n, opt, val, s->info ? s->info : "", false);
    drv_jit_log(n, opt, val, s->error ? s->error : "", true);
    drv_jit_wall_time(n, opt, val, s->seconds);
}

/* An error of the link: its stderr line, the error log's line. */
static CUresult link_fail(CUlinkState s, const char *who, const char *what,
                          const char *msg, CUresult r)
{
    char line[LINK_MSG_MAX + 320];
    snprintf(line, sizeof(line), "%s: %s", what, msg);
    fprintf(stderr, "p2psim: %s: %s\n", who, line);
    if (s) {
        log_add(&s->error, line);
    }
    return r;
}

CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options,
                         void **optionValues, CUlinkState *stateOut)
{
    DRV_READY();
    if (!stateOut) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!drv_ctx_current()) {
        return CUDA_ERROR_INVALID_CONTEXT;  /* CUDA: the current context's */
    }
    CUresult r = drv_jit_check("cuLinkCreate", numOptions, options,
                               optionValues);
    if (r) {
        return r;
    }
    struct CUlinkState_st *s = calloc(1, sizeof(*s));
    if (s && numOptions) {
        s->opt = malloc(numOptions * sizeof(*s->opt));
        if (s->opt) {
            memcpy(s->opt, options, numOptions * sizeof(*s->opt));
        }
    }
    if (!s || (numOptions && !s->opt)) {
        free(s);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    s->n_opt = numOptions;
    s->val = optionValues;
    s->info_buf = jit_log_find(numOptions, options, optionValues, false);
    s->error_buf = jit_log_find(numOptions, options, optionValues, true);
    pthread_mutex_lock(&link_lock);
    s->next = links;
    links = s;
    pthread_mutex_unlock(&link_lock);
    *stateOut = s;
    return CUDA_SUCCESS;
}

static const char *const input_names[CU_JIT_NUM_INPUT_TYPES] = {
    "CU_JIT_INPUT_CUBIN", "CU_JIT_INPUT_PTX", "CU_JIT_INPUT_FATBINARY",
    "CU_JIT_INPUT_OBJECT", "CU_JIT_INPUT_LIBRARY", "CU_JIT_INPUT_NVVM",
};

/* The PTX of one input: 0 and *text, or a CUresult with msg. */
static CUresult input_ptx(CUjitInputType type, const void *data, size_t size,
                          char **text, size_t *len, char *msg, size_t n)
{
    const uint8_t *b = data;
    uint32_t magic = 0;
    if (size >= sizeof(magic)) {
        memcpy(&magic, b, sizeof(magic));
    }
    if (type == CU_JIT_INPUT_FATBINARY &&
        magic != P2PSIM_FATBIN_CONTAINER_MAGIC &&
        magic != P2PSIM_FATBIN_WRAPPER_MAGIC) {
        snprintf(msg, n, "not a fat binary (no fat binary magic)");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    if (type == CU_JIT_INPUT_PTX &&
        (magic == P2PSIM_FATBIN_CONTAINER_MAGIC ||
         magic == P2PSIM_FATBIN_WRAPPER_MAGIC ||
         (size >= 4 && memcmp(b, "\177ELF", 4) == 0))) {
        snprintf(msg, n, "binary data given as PTX text");
        return CUDA_ERROR_INVALID_PTX;
    }
    cudaError_t e = p2psim_drv_image_ptx(data, size, text, len, msg, n);
    if (e == cudaErrorInvalidPtx) {
        /* PTX that does not parse; a cubin or fat binary that is bad */
        return type == CU_JIT_INPUT_PTX ? CUDA_ERROR_INVALID_PTX
                                        : CUDA_ERROR_INVALID_IMAGE;
    }
    return e == cudaErrorNoKernelImageForDevice ? CUDA_ERROR_NO_BINARY_FOR_GPU
           : e == cudaErrorMemoryAllocation      ? CUDA_ERROR_OUT_OF_MEMORY
           : e                                   ? CUDA_ERROR_INVALID_IMAGE
                                                 : CUDA_SUCCESS;
}

static CUresult add_unit(CUlinkState s, char *text, const char *name)
{
    if (s->n == s->cap) {
        unsigned cap = s->cap ? 2 * s->cap : 8;
        char **u = realloc(s->units, cap * sizeof(*u));
        if (u) {
            s->units = u;
        }
        char **nm = u ? realloc(s->names, cap * sizeof(*nm)) : NULL;
        if (!nm) {
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        s->names = nm;
        s->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    s->units[s->n] = text;
    s->names[s->n++] = copy;
    s->linked = false;
    return CUDA_SUCCESS;
}

CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data,
                          size_t size, const char *name,
                          unsigned int numOptions, CUjit_option *options,
                          void **optionValues)
{
    DRV_READY();
    if (!link_valid(state)) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    if (!data || !size) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = drv_jit_check("cuLinkAddData", numOptions, options,
                               optionValues);
    if (r) {
        return r;
    }
    double t0 = now_s();
    char what[300], msg[LINK_MSG_MAX] = "";
    snprintf(what, sizeof(what), "%s", name ? name : "");
    if (!what[0]) {
        snprintf(what, sizeof(what), "input %u", state->n + 1);
    }
    char *text = NULL;
    size_t len = 0;
    if ((unsigned)type >= CU_JIT_NUM_INPUT_TYPES) {
        snprintf(msg, sizeof(msg), "input type %u is no CUjitInputType "
                 "(CUDA 13 has 0 to %d)", (unsigned)type,
                 CU_JIT_NUM_INPUT_TYPES - 1);
        r = CUDA_ERROR_INVALID_VALUE;
    } else if (type == CU_JIT_INPUT_OBJECT || type == CU_JIT_INPUT_LIBRARY ||
               type == CU_JIT_INPUT_NVVM) {
        snprintf(msg, sizeof(msg), "%s is not served by p2psim's linker, "
                 "which links PTX (CU_JIT_INPUT_PTX, or a fat binary or "
                 "cubin of PTX)", input_names[type]);
        r = CUDA_ERROR_NOT_SUPPORTED;
    } else {
        r = input_ptx(type, data, size, &text, &len, msg, sizeof(msg));
    }
    if (!r) {
        r = add_unit(state, text, what);
        if (r) {
            free(text);
        }
    }
    state->seconds += now_s() - t0;
    if (r) {
        link_fail(state, "cuLinkAddData", what, msg, r);
    } else if (jit_verbose(state->n_opt, state->opt, state->val) ||
               jit_verbose(numOptions, options, optionValues)) {
        char line[400];
        snprintf(line, sizeof(line), "p2psim: %s: %s, %zu bytes of PTX read",
                 what, input_names[type], len);
        log_add(&state->info, line);
    }
    link_report(state, numOptions, options, optionValues);
    return r;
}

CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type,
                          const char *path, unsigned int numOptions,
                          CUjit_option *options, void **optionValues)
{
    DRV_READY();
    if (!link_valid(state)) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    if (!path) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    size_t len = 0;
    char *data = drv_read_file(path, &len);
    if (!data) {
        char msg[300];
        snprintf(msg, sizeof(msg), "cannot read it: %s", strerror(errno));
        CUresult r = link_fail(state, "cuLinkAddFile", path, msg,
                               errno == ENOENT ? CUDA_ERROR_FILE_NOT_FOUND
                                               : CUDA_ERROR_INVALID_VALUE);
        link_report(state, numOptions, options, optionValues);
        return r;
    }
    /* PTX text: its NUL too (the file has none) */
    CUresult r = cuLinkAddData_v2(state, type, data,
                                  type == CU_JIT_INPUT_PTX ? len + 1 : len,
                                  path, numOptions, options, optionValues);
    free(data);
    return r;
}

CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    DRV_READY();
    if (!link_valid(state)) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    if (!cubinOut || !sizeOut) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult r = CUDA_SUCCESS;
    double t0 = now_s();
    if (!state->n) {
        r = link_fail(state, "cuLinkComplete", "the link",
                      "nothing was added to it (cuLinkAddData)",
                      CUDA_ERROR_INVALID_VALUE);
    } else if (!state->linked) {
        char msg[LINK_MSG_MAX] = "";
        struct link_image *im = calloc(1, sizeof(*im));
        size_t len = 0;
        cudaError_t e = im ? p2psim_drv_link((const char *const *)state->units,
                                             state->n, &im->text, &len, msg,
                                             sizeof(msg))
                           : cudaErrorMemoryAllocation;
        r = e == cudaSuccess                 ? CUDA_SUCCESS
            : e == cudaErrorMemoryAllocation ? CUDA_ERROR_OUT_OF_MEMORY
            : e == cudaErrorInvalidPtx       ? CUDA_ERROR_INVALID_PTX
                                             : CUDA_ERROR_INVALID_IMAGE;
        if (r) {
            free(im);
            link_fail(state, "cuLinkComplete", "the link",
                      msg[0] ? msg : "out of memory", r);
        } else {
            im->next = state->images;
            state->images = im;
            state->linked = true;
            if (jit_verbose(state->n_opt, state->opt, state->val)) {
                char line[400];
                int at = snprintf(line, sizeof(line), "p2psim: linked");
                for (unsigned i = 0; i < state->n && at > 0 &&
                                     (size_t)at < sizeof(line); i++) {
                    at += snprintf(line + at, sizeof(line) - (size_t)at,
                                   "%s %s", i ? "," : "", state->names[i]);
                }
                if (at > 0 && (size_t)at < sizeof(line)) {
                    snprintf(line + at, sizeof(line) - (size_t)at,
                             ": %zu bytes of PTX (p2psim runs PTX, no "
                             "machine code is made)", len);
                }
                log_add(&state->info, line);
            }
        }
    }
    state->seconds += now_s() - t0;
    link_report(state, 0, NULL, NULL);
    if (!r) {
        *cubinOut = state->images->text;
        *sizeOut = strlen(state->images->text) + 1;
    }
    return r;
}

CUresult cuLinkDestroy(CUlinkState state)
{
    DRV_READY();
    pthread_mutex_lock(&link_lock);
    struct CUlinkState_st **p = &links;
    while (*p && *p != state) {
        p = &(*p)->next;
    }
    struct CUlinkState_st *s = *p;
    if (s) {
        *p = s->next;
    }
    pthread_mutex_unlock(&link_lock);
    if (!s) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    for (unsigned i = 0; i < s->n; i++) {
        free(s->units[i]);
        free(s->names[i]);
    }
    for (struct link_image *im = s->images; im;) {
        struct link_image *next = im->next;
        free(im->text);
        free(im);
        im = next;
    }
    free(s->units);
    free(s->names);
    free(s->info);
    free(s->error);
    free(s->opt);
    free(s);
    return CUDA_SUCCESS;
}
