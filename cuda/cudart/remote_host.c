/*
 * cuda/cudart/remote_host.c - host memory the p2psim server can reach, for
 * the machine through a server (remote.c): host_alloc creates a memfd and
 * maps it here, and host_register passes it to the server (SCM_RIGHTS,
 * WIRE_HOST_REGISTER), which maps the same pages, so its copy engines and
 * kernels move this process's bytes in place.
 *
 * Memory the program registers itself (cudaHostRegister) is not shared
 * with anybody; host_register re-backs its pages with a memfd of the same
 * contents at the same address (mmap MAP_FIXED), which the program cannot
 * tell, except that a thread writing those pages during the call may lose
 * its write. A range that straddles memory re-backed for another
 * registration is refused (-SIM_ENOTSUP; memory.c answers
 * cudaErrorNotSupported). Moved as it was from remote.c.
 */
#define _GNU_SOURCE /* memfd_create */
#include <config.h>

#include "cuda/cudart/remote.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/error.h"

/* Host memory shared with the server. */
struct rm_shm {
    struct rm_shm *next;
    uintptr_t base;
    uint64_t len;               /* mapped bytes (whole pages) */
    int fd;
    bool adopted;               /* the program's pages, re-backed */
    unsigned regs;              /* registrations on the server */
};

/* A registration: its bus address and memory. */
struct rm_reg {
    struct rm_reg *next;
    uint64_t bus;
    struct rm_shm *shm;
};

/* Called with the runtime lock held, as everything here. */
static struct rm_shm *rm_shms;
static struct rm_reg *rm_regs;

static uint64_t page_bytes(void)
{
    return (uint64_t)sysconf(_SC_PAGESIZE);
}

static struct rm_shm *shm_new(uint64_t len)
{
    struct rm_shm *s = calloc(1, sizeof(*s));
    if (!s) {
        return NULL;
    }
    s->len = len;
    /* Sealed against shrinking: the server maps it, and refuses a memfd
     * that could shrink under its mapping (its accesses would fault). */
    s->fd = memfd_create("p2psim-host", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (s->fd < 0 || ftruncate(s->fd, (off_t)len) < 0 ||
        fcntl(s->fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
        if (s->fd >= 0) {
            close(s->fd);
        }
        free(s);
        return NULL;
    }
    s->next = rm_shms;
    rm_shms = s;
    return s;
}

static void shm_forget(struct rm_shm *s)
{
    for (struct rm_shm **pp = &rm_shms; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    close(s->fd);
    free(s);
}

void *rt_remote_host_alloc(uint64_t len)
{
    uint64_t pg = page_bytes();
    struct rm_shm *s = len ? shm_new((len + pg - 1) / pg * pg) : NULL;
    if (!s) {
        return NULL;
    }
    void *p = mmap(NULL, s->len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
                   0);
    if (p == MAP_FAILED) {
        shm_forget(s);
        return NULL;
    }
    s->base = (uintptr_t)p;
    return p;
}

void rt_remote_host_free(void *ptr, uint64_t len)
{
    (void)len;
    for (struct rm_shm *s = rm_shms; s; s = s->next) {
        if (s->base == (uintptr_t)ptr && !s->adopted) {
            munmap(ptr, s->len);
            shm_forget(s);
            return;
        }
    }
}

/*
 * Copy whole pages of the program's memory: bytes around its range that it
 * never allocated too (a sanitizer's red zones), which are merely carried
 * over, so the copy is not instrumented (nor turned into memcpy).
 */
__attribute__((no_sanitize_address)) static void
copy_pages(void *dst, const void *src, uint64_t n)
{
    volatile uint64_t *d = dst;
    const volatile uint64_t *s = src;
    for (uint64_t i = 0; i < n / sizeof(uint64_t); i++) {
        d[i] = s[i];
    }
}

/*
 * Re-back the pages of [p, p + len) with a memfd of the same contents at
 * the same address, so the server can map them. NULL: not possible.
 */
static struct rm_shm *shm_adopt(uintptr_t p, uint64_t len)
{
    uint64_t pg = page_bytes();
    uintptr_t lo = p / pg * pg;
    uint64_t n = (p + len - lo + pg - 1) / pg * pg;
    for (struct rm_shm *s = rm_shms; s; s = s->next) {
        if (lo < s->base + s->len && s->base < lo + n) {
            return NULL;        /* straddles memory already shared */
        }
    }
    unsigned char vec[64];
    for (uint64_t o = 0; o < n; o += 64 * pg) {
        uint64_t part = n - o < 64 * pg ? n - o : 64 * pg;
        if (mincore((void *)(lo + o), part, vec) < 0) {
            return NULL;        /* not mapped */
        }
    }
    struct rm_shm *s = shm_new(n);
    if (!s) {
        return NULL;
    }
    void *tmp = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
    if (tmp == MAP_FAILED) {
        shm_forget(s);
        return NULL;
    }
    copy_pages(tmp, (const void *)lo, n);
    void *at = mmap((void *)lo, n, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_FIXED, s->fd, 0);
    munmap(tmp, n);
    if (at == MAP_FAILED) {
        shm_forget(s);
        return NULL;
    }
    s->base = lo;
    s->adopted = true;
    return s;
}

int rt_remote_host_register(void *ptr, uint64_t len, unsigned socket,
                            uint64_t *bus)
{
    uintptr_t p = (uintptr_t)ptr;
    struct rm_shm *s = rm_shms;
    while (s && !(p >= s->base && len <= s->len && p - s->base <= s->len - len)) {
        s = s->next;
    }
    if (!s && (len == 0 || !(s = shm_adopt(p, len)))) {
        return len == 0 ? -SIM_EINVAL : -SIM_ENOTSUP;
    }
    struct rm_reg *g = calloc(1, sizeof(*g));
    if (!g) {
        return -SIM_ENOMEM;
    }
    struct wire_host_register m = {
        .offset = p - s->base,
        .len = len,
        .socket = socket,
    };
    struct wire_reply r;
    int rc = rt_remote_call_fd(WIRE_HOST_REGISTER, &m, sizeof(m), s->fd, &r);
    if (rc < 0) {
        free(g);
        if (s->adopted && s->regs == 0) {
            shm_forget(s);      /* the pages stay re-backed: harmless */
        }
        return rc;
    }
    g->bus = r.v[0];
    g->shm = s;
    g->next = rm_regs;
    rm_regs = g;
    s->regs++;
    *bus = g->bus;
    return 0;
}

int rt_remote_host_unregister(uint64_t bus)
{
    for (struct rm_reg **pp = &rm_regs; *pp; pp = &(*pp)->next) {
        struct rm_reg *g = *pp;
        if (g->bus != bus) {
            continue;
        }
        *pp = g->next;
        struct wire_u64 m = { bus };
        struct wire_reply r;
        int rc = rt_remote_call(WIRE_HOST_UNREGISTER, &m, sizeof(m), &r);
        if (--g->shm->regs == 0 && g->shm->adopted) {
            /* The program keeps its (re-backed) pages. */
            shm_forget(g->shm);
        }
        free(g);
        return rc;
    }
    return -SIM_ENOENT;
}
