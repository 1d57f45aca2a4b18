/*
 * cuda/cudart/relfatbin.c - the PTX of a program built with -rdc=true:
 * its registered image (wrapper version 2) is nvlink's, for real
 * architectures only; the PTX of each object is in the __nv_relfatbin
 * section of the ELF object (program or library) the wrapper lies in,
 * which ptx/ptx_link.h links into one module.
 *
 * The object is found with dl_iterate_phdr (the one whose loaded
 * segments hold the wrapper), its section table read from its file (the
 * program's through /proc/self/exe), and the section used where it is
 * loaded (it is SHF_ALLOC) or else read from the file. The PTX units of
 * an object are kept; each module (a translation unit registers one, with
 * the same image) links those that define its kernels. Called with the
 * registry's lock held (launch.c).
 */
#define _GNU_SOURCE 1 /* dl_iterate_phdr */
#include <config.h>

#include "cuda/cudart/relfatbin.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptx/ptx_link.h"

/* At most this many sections' bytes are read from a file (the section
 * table and names of one object stay far below it). */
#define REL_TABLE_MAX (16u << 20)

struct rel_find {
    uintptr_t addr;             /* the wrapper */
    uintptr_t base;             /* the object's load bias */
    char path[4096];
    bool found;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct rel_find *f = arg;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && f->addr >= lo &&
            f->addr - lo < ph->p_memsz) {
            const char *name = info->dlpi_name;
            strncpy(f->path, name && *name ? name : "/proc/self/exe",
                    sizeof(f->path) - 1);
            f->base = info->dlpi_addr;
            f->found = true;
            return 1;
        }
    }
    return 0;
}

static bool read_at(int fd, void *buf, size_t n, off_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);
        if (r <= 0) {
            return false;
        }
        got += (size_t)r;
    }
    return true;
}

/* The section __nv_relfatbin of the file: its header, or false. */
static bool find_section(int fd, ElfW(Shdr) *out)
{
    ElfW(Ehdr) eh;
    if (!read_at(fd, &eh, sizeof(eh), 0) ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_shentsize != sizeof(ElfW(Shdr)) || eh.e_shnum == 0 ||
        eh.e_shstrndx >= eh.e_shnum ||
        (size_t)eh.e_shnum * sizeof(ElfW(Shdr)) > REL_TABLE_MAX) {
        return false;
    }
    ElfW(Shdr) *sh = malloc((size_t)eh.e_shnum * sizeof(*sh));
    char *names = NULL;
    bool ok = sh && read_at(fd, sh, (size_t)eh.e_shnum * sizeof(*sh),
                            (off_t)eh.e_shoff);
    const ElfW(Shdr) *ns = ok ? &sh[eh.e_shstrndx] : NULL;
    ok = ok && ns->sh_size > 0 && ns->sh_size <= REL_TABLE_MAX &&
         (names = malloc(ns->sh_size + 1)) != NULL &&
         read_at(fd, names, ns->sh_size, (off_t)ns->sh_offset);
    bool found = false;
    if (ok) {
        names[ns->sh_size] = '\0';
    }
    for (unsigned i = 0; ok && i < eh.e_shnum && !found; i++) {
        if (sh[i].sh_name < ns->sh_size &&
            strcmp(names + sh[i].sh_name, "__nv_relfatbin") == 0) {
            *out = sh[i];
            found = true;
        }
    }
    free(names);
    free(sh);
    return found;
}

/* The PTX units of each object, kept. */
struct rel_cache {
    uintptr_t base;
    unsigned arch;              /* the device architecture picked for */
    char **units;               /* NULL: err says why */
    unsigned n;
    struct ptx_error err;
    struct rel_cache *next;
};
static struct rel_cache *rel_cached;
static pthread_mutex_t rel_lock = PTHREAD_MUTEX_INITIALIZER;

static void load_object(const struct rel_find *f, struct rel_cache *c)
{
    int fd = open(f->path, O_RDONLY | O_CLOEXEC);
    ElfW(Shdr) sh;
    memset(&sh, 0, sizeof(sh));
    if (fd < 0 || !find_section(fd, &sh)) {
        snprintf(c->err.msg, sizeof(c->err.msg), "the program was built "
                 "with -rdc=true, and its file (%.200s) has no "
                 "__nv_relfatbin section to take the PTX from", f->path);
        c->err.code = PTX_ENOPTX;
        if (fd >= 0) {
            close(fd);
        }
        return;
    }
    void *copy = NULL;
    const void *sec;
    if (sh.sh_flags & SHF_ALLOC) {
        sec = (const void *)(f->base + sh.sh_addr);
    } else {
        copy = sh.sh_size <= PTX_FATBIN_MAX_BYTES ? malloc(sh.sh_size) : NULL;
        if (!copy || !read_at(fd, copy, sh.sh_size, (off_t)sh.sh_offset)) {
            free(copy);
            close(fd);
            snprintf(c->err.msg, sizeof(c->err.msg), "cannot read the "
                     "__nv_relfatbin section of %.200s", f->path);
            c->err.code = PTX_EINVAL;
            return;
        }
        sec = copy;
    }
    close(fd);
    if (ptx_relfatbin_units(sec, sh.sh_size, c->arch, &c->units, &c->n,
                            &c->err)) {
        c->units = NULL;
        c->n = 0;
    }
    free(copy);
}

int rt_relfatbin_ptx(const void *wrapper, unsigned arch,
                     bool (*want)(const char *kernel, void *arg), void *arg,
                     char **text, size_t *len, struct ptx_error *err)
{
    struct rel_find f;
    memset(&f, 0, sizeof(f));
    f.addr = (uintptr_t)wrapper;
    dl_iterate_phdr(find_object, &f);
    if (!f.found) {
        return PTX_ENOPTX;
    }
    pthread_mutex_lock(&rel_lock);
    struct rel_cache *c = rel_cached;
    while (c && (c->base != f.base || c->arch != arch)) {
        c = c->next;
    }
    if (!c && (c = calloc(1, sizeof(*c))) != NULL) {
        c->base = f.base;
        c->arch = arch;
        load_object(&f, c);
        c->next = rel_cached;
        rel_cached = c;
    }
    int rc;
    if (!c) {
        rc = PTX_ENOMEM;
    } else if (!c->units) {
        rc = c->err.code ? c->err.code : PTX_EINVAL;
        if (err) {
            *err = c->err;
        }
    } else {
        rc = ptx_link_texts((const char *const *)c->units, c->n, want, arg,
                            text, len, err);
    }
    pthread_mutex_unlock(&rel_lock);
    return rc;
}
