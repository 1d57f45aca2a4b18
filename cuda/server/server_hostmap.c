/*
 * cuda/server/server_hostmap.c - a client's host memory mapped into the
 * server (WIRE_HOST_REGISTER): the pages of a file the client passes,
 * either a memfd of its own sealed against shrinking (cuda/cudart/
 * remote_host.c's) or the file behind a shared mapping of the program's
 * (a /dev/shm file), which cannot be sealed. Only the pages of the
 * registered range are mapped.
 *
 * An unsealed file may shrink under its mapping (the program truncates
 * it); an access to a page past its end would raise SIGBUS and end the
 * server with every client. The server's handler puts a zero page in
 * its place instead (the machine reads zeros, its writes are lost, as
 * nobody can see them) and says so once; a SIGBUS anywhere else is
 * raised again as before. The server is one thread, so the handler reads
 * the table of guarded ranges only between its changes.
 */
#define _GNU_SOURCE /* F_GET_SEALS */
#include <config.h>

#include "cuda/server/server.h"

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/error.h"

/* Ranges of unsealed files mapped, all clients (a zero length: free). */
static struct {
    uintptr_t base;
    size_t len;
} guards[SRV_MAX_FILE_MAPS];
static bool guard_on;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    uintptr_t a = (uintptr_t)si->si_addr;
    long pg = sysconf(_SC_PAGESIZE);
    for (unsigned i = 0; i < SRV_MAX_FILE_MAPS; i++) {
        if (guards[i].len && a - guards[i].base < guards[i].len) {
            void *page = (void *)(a / (uintptr_t)pg * (uintptr_t)pg);
            if (mmap(page, (size_t)pg, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
                MAP_FAILED) {
                static bool said;
                static const char msg[] =
                    "p2psim server: a client's registered host file shrank "
                    "under its registration: its missing pages read as "
                    "zeros\n";
                if (!said) {
                    said = true;
                    ssize_t w = write(2, msg, sizeof(msg) - 1);
                    (void)w;
                }
                return;         /* the access runs again, on zeros */
            }
            break;
        }
    }
    signal(sig, SIG_DFL);       /* not ours: it faults again, as it would */
}

static int guard_add(uintptr_t base, size_t len)
{
    if (!guard_on) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGBUS, &sa, NULL) < 0) {
            return -SIM_ENOMEM;
        }
        guard_on = true;
    }
    for (unsigned i = 0; i < SRV_MAX_FILE_MAPS; i++) {
        if (!guards[i].len) {
            guards[i].base = base;
            guards[i].len = len;
            return 0;
        }
    }
    return -SIM_ENOMEM;
}

int srv_hostmap(int fd, uint64_t offset, uint64_t len, void **base,
                size_t *map_len, void **at)
{
    struct stat st;
    int seals = fd < 0 ? -1 : fcntl(fd, F_GET_SEALS);
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
        st.st_size <= 0 || len == 0 || offset > (uint64_t)st.st_size ||
        len > (uint64_t)st.st_size - offset) {
        return -SIM_EINVAL;
    }
    bool sealed = seals >= 0 && (seals & F_SEAL_SHRINK);
    uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t lo = offset / pg * pg;
    uint64_t n = (offset + len - lo + pg - 1) / pg * pg;
    if (n > SIZE_MAX) {
        return -SIM_EINVAL;
    }
    void *p = mmap(NULL, (size_t)n, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                   (off_t)lo);
    if (p == MAP_FAILED) {
        return -SIM_ENOMEM;
    }
    if (!sealed && guard_add((uintptr_t)p, (size_t)n) < 0) {
        munmap(p, (size_t)n);
        return -SIM_ENOMEM;
    }
    *base = p;
    *map_len = (size_t)n;
    *at = (char *)p + (offset - lo);
    return 0;
}

void srv_hostunmap(void *base, size_t map_len)
{
    munmap(base, map_len);
    for (unsigned i = 0; i < SRV_MAX_FILE_MAPS; i++) {
        if (guards[i].len && guards[i].base == (uintptr_t)base) {
            guards[i].len = 0;
            break;
        }
    }
}
