/*
 * cuda/cudart/remote_host.c - host memory the p2psim server can reach, for
 * the machine through a server (remote.c): host_alloc creates a memfd and
 * maps it here, and host_register passes it to the server (SCM_RIGHTS,
 * WIRE_HOST_REGISTER), which maps the same pages, so its copy engines and
 * kernels move this process's bytes in place.
 *
 * Memory the program registers itself (cudaHostRegister) from a shared
 * mapping of a file (a /dev/shm file, a memfd, MAP_SHARED|MAP_ANONYMOUS)
 * is passed as that file, at its offset: the server maps the file's own
 * pages, so every mapping of them, in this process or another, sees what
 * the machine writes (NCCL maps each of its /dev/shm buffers twice and
 * registers both). The file is opened through /proc/self/map_files (which
 * Linux lets only a privileged process open) or else its path, if it
 * still names the mapped inode. Other memory (private, or a file that
 * cannot be opened) is not shared with anybody; host_register re-backs its
 * pages with a memfd of the same contents at the same address (mmap
 * MAP_FIXED), which the program cannot tell, except that a thread writing
 * those pages during the call may lose its write. A range that straddles
 * memory passed for another registration is refused (-SIM_ENOTSUP;
 * memory.c answers cudaErrorNotSupported).
 */
#define _GNU_SOURCE /* memfd_create */
#include <config.h>

#include "cuda/cudart/remote.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/error.h"

/* Host memory shared with the server. */
struct rm_shm {
    struct rm_shm *next;
    uintptr_t base;
    uint64_t len;               /* mapped bytes (whole pages) */
    uint64_t off;               /* the file offset base maps */
    int fd;
    bool adopted;               /* the program's pages: re-backed, or its
                                   own shared file */
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

static struct rm_shm *shm_link(struct rm_shm *s)
{
    s->next = rm_shms;
    rm_shms = s;
    return s;
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
    return shm_link(s);
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
 * The shared file mapping that holds all of [lo, lo + n), as a new rm_shm
 * with the file open; NULL: none (private memory, several mappings, or a
 * file this process cannot open again).
 */
static struct rm_shm *shm_of_file(uintptr_t lo, uint64_t n)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f) {
        return NULL;
    }
    char line[4096 + 128];
    uintptr_t start = 0, end = 0;
    uint64_t off = 0, ino = 0;
    char perms[8] = "", path[4096] = "";
    bool found = false;
    while (!found && fgets(line, sizeof(line), f)) {
        unsigned maj, min;
        path[0] = '\0';
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %" SCNx64 " %x:%x %"
                   SCNu64 " %4095[^\n]", &start, &end, perms, &off, &maj,
                   &min, &ino, path) < 7) {
            continue;
        }
        found = start <= lo && lo + n <= end;
    }
    fclose(f);
    if (!found || perms[3] != 's' || ino == 0) {
        return NULL;
    }
    char mf[64];
    snprintf(mf, sizeof(mf), "/proc/self/map_files/%" PRIxPTR "-%" PRIxPTR,
             start, end);
    int fd = open(mf, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (fd < 0 && path[0] == '/') {
        fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_ino != ino)) {
            close(fd);          /* the path names another file now */
            fd = -1;
        }
    }
    struct rm_shm *s = fd < 0 ? NULL : calloc(1, sizeof(*s));
    if (!s) {
        if (fd >= 0) {
            close(fd);
        }
        return NULL;
    }
    s->base = start;
    s->len = end - start;
    s->off = off;
    s->fd = fd;
    s->adopted = true;
    return shm_link(s);
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
    struct rm_shm *file = shm_of_file(lo, n);
    if (file) {
        return file;
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
        .offset = s->off + (p - s->base),
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
