/*
 * sim/error.h - error codes, the error object, logging and invariant checks.
 *
 * Three kinds of failure are kept apart (STYLE.md section 9):
 *  - input and configuration errors: functions return 0 or a negative
 *    SIM_E* code (or NULL) and fill an optional struct sim_error with a
 *    message and, where it came from a file, its file:line:column;
 *  - modelled hardware errors (UR completions, IOMMU faults) are behaviour,
 *    recorded by the models, never C errors;
 *  - broken invariants (a model freeing a TLP twice, scheduling a pending
 *    event) stop the program through sim_bug() with a message.
 * The libraries never call exit().
 *
 * Out of memory, one policy. Outside a running simulation (building a
 * machine, an API call) an allocation failure is an error like the
 * others: the function returns -SIM_ENOMEM (the CUDA runtime
 * cudaErrorMemoryAllocation) and leaves nothing allocated. Inside one (an
 * event, or scheduling one) it fails the simulation: the component calls
 * sim_fail_nomem() or sim_component_nomem(), which record "out of memory
 * in <component> at <simulated time> (<what>)" and stop the run; the
 * component gives up the operation without crashing or leaking, and
 * sim_run*() return -SIM_ENOMEM from then on (sim/sim.h). An event the
 * queue cannot hold fails the simulation the same way, never dropped. In
 * the CUDA shim the calls that wait for the simulation then return
 * cudaErrorMemoryAllocation, and the shim prints "p2psim: error: <the
 * message>" once, so a p2psim command prints it and exits 1.
 * tests/check_oom fails each allocation of a short run in turn to hold
 * everyone to this.
 */
#ifndef P2PSIM_SIM_ERROR_H
#define P2PSIM_SIM_ERROR_H

#include <stdarg.h>
#include <stdbool.h>

/* X-macro: name, value, text. Values are positive; functions return -value. */
#define SIM_ERRNO_MAP(X)                                                      \
    X(EINVAL, 1, "invalid argument")                                          \
    X(ENOMEM, 2, "out of memory")                                             \
    X(ENOENT, 3, "not found")                                                 \
    X(EEXIST, 4, "already exists")                                            \
    X(EPAST, 5, "time is in the past")                                        \
    X(ERANGE, 6, "value out of range")                                        \
    X(EAGAIN, 7, "resource busy, try again later")                            \
    X(ENOTCONN, 8, "port is not connected")                                   \
    X(EBUSY, 9, "already in use")                                             \
    X(ENOTSUP, 10, "not supported")                                           \
    X(EIO, 11, "input/output error")                                          \
    X(ESYNTAX, 12, "syntax error")                                            \
    X(ESTATE, 13, "operation not allowed in this state")

enum sim_errno {
#define SIM_ERRNO_ENUM(name, val, text) SIM_##name = (val),
    SIM_ERRNO_MAP(SIM_ERRNO_ENUM)
#undef SIM_ERRNO_ENUM
};

/* Short name ("EINVAL") and text for a code; accepts code or -code. */
const char *sim_err_name(int code);
const char *sim_strerror(int code);

#define SIM_ERROR_MSG_MAX 512

/*
 * An error with its origin. file is not owned (it points at a string that
 * outlives the error, such as the topology's file name). line and column
 * are 1-based; 0 means unknown.
 */
struct sim_error {
    int code;                      /* positive SIM_E* value, 0 if none */
    const char *file;              /* source file, or NULL */
    unsigned line;                 /* 1-based, 0 = unknown */
    unsigned column;               /* 1-based, 0 = unknown */
    char msg[SIM_ERROR_MSG_MAX];   /* the message, without location */
};

void sim_error_clear(struct sim_error *err);

/*
 * sim_error_set - record an error; returns -code so callers can write
 * "return sim_error_set(err, SIM_EINVAL, ...)". err may be NULL. An error
 * already recorded is kept (the first error is the one the user sees).
 */
int sim_error_set(struct sim_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* As sim_error_set, with a source location. */
int sim_error_set_at(struct sim_error *err, int code, const char *file,
                     unsigned line, unsigned column, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

int sim_error_vset_at(struct sim_error *err, int code, const char *file,
                      unsigned line, unsigned column, const char *fmt,
                      va_list ap);

/*
 * sim_error_format - "file:line:column: error: message" (the location part
 * only where known) into buf; returns buf.
 */
const char *sim_error_format(const struct sim_error *err, char *buf,
                             unsigned len);

/* ---- invariants ---------------------------------------------------------- */

/* Print "p2psim: bug: <message>" and abort(). Never returns. */
void sim_bug(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* Like assert(), but always compiled in and with a message. */
#define SIM_ASSERT(cond, ...)                                                 \
    do {                                                                      \
        if (__builtin_expect(!(cond), 0)) {                                   \
            sim_bug(__VA_ARGS__);                                             \
        }                                                                     \
    } while (0)

/*
 * Defensive branches that should never be taken (SQLite's ALWAYS/NEVER):
 * in debug builds a wrong guess aborts; in NDEBUG builds the branch still
 * protects.
 */
#ifndef NDEBUG
#define SIM_ALWAYS(x) ((x) ? 1 : (sim_bug("SIM_ALWAYS(%s) failed at %s:%d", #x, __FILE__, __LINE__), 0))
#define SIM_NEVER(x) ((x) ? (sim_bug("SIM_NEVER(%s) failed at %s:%d", #x, __FILE__, __LINE__), 1) : 0)
#else
#define SIM_ALWAYS(x) (x)
#define SIM_NEVER(x) (x)
#endif

#endif /* P2PSIM_SIM_ERROR_H */
