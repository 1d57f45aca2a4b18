/*
 * sim/error.c - error codes and messages, sim_bug().
 */
#include <config.h>

#include "sim/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct errno_entry {
    int code;
    const char *name;
    const char *text;
};

static const struct errno_entry errno_table[] = {
#define SIM_ERRNO_ROW(name, val, text) { val, #name, text },
    SIM_ERRNO_MAP(SIM_ERRNO_ROW)
#undef SIM_ERRNO_ROW
};

static const struct errno_entry *errno_lookup(int code)
{
    if (code < 0) {
        code = -code;
    }
    for (size_t i = 0; i < sizeof(errno_table) / sizeof(errno_table[0]); i++) {
        if (errno_table[i].code == code) {
            return &errno_table[i];
        }
    }
    return NULL;
}

const char *sim_err_name(int code)
{
    const struct errno_entry *e = errno_lookup(code);
    return e ? e->name : (code == 0 ? "OK" : "EUNKNOWN");
}

const char *sim_strerror(int code)
{
    const struct errno_entry *e = errno_lookup(code);
    return e ? e->text : (code == 0 ? "success" : "unknown error");
}

void sim_error_clear(struct sim_error *err)
{
    if (err) {
        memset(err, 0, sizeof(*err));
    }
}

int sim_error_vset_at(struct sim_error *err, int code, const char *file,
                      unsigned line, unsigned column, const char *fmt,
                      va_list ap)
{
    if (code < 0) {
        code = -code;
    }
    if (err && err->code == 0) {
        err->code = code;
        err->file = file;
        err->line = line;
        err->column = column;
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    }
    return -code;
}

int sim_error_set_at(struct sim_error *err, int code, const char *file,
                     unsigned line, unsigned column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = sim_error_vset_at(err, code, file, line, column, fmt, ap);
    va_end(ap);
    return rc;
}

int sim_error_set(struct sim_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = sim_error_vset_at(err, code, NULL, 0, 0, fmt, ap);
    va_end(ap);
    return rc;
}

const char *sim_error_format(const struct sim_error *err, char *buf,
                             unsigned len)
{
    if (!err || err->code == 0) {
        snprintf(buf, len, "no error");
    } else if (err->file && err->line) {
        snprintf(buf, len, "%s:%u:%u: error: %s", err->file, err->line,
                 err->column, err->msg);
    } else if (err->file) {
        snprintf(buf, len, "%s: error: %s", err->file, err->msg);
    } else {
        snprintf(buf, len, "error: %s", err->msg);
    }
    return buf;
}

void sim_bug(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("p2psim: bug: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    abort();
}
