/*
 * tools/elf_needed.c - a program's DT_NEEDED entries (elf_needed.h):
 * the ELF header, its program headers, the PT_DYNAMIC segment and the
 * string table it names (a virtual address, mapped to a file offset
 * through the PT_LOAD segments). Little-endian ELF64 only, as the
 * programs p2psim runs are; anything else answers false.
 */
#include <config.h>

#include "tools/elf_needed.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool read_at(int fd, uint64_t off, void *buf, size_t len)
{
    return pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* The file offset of virtual address va, or 0 (not in a PT_LOAD). */
static uint64_t file_offset(const Elf64_Phdr *ph, unsigned n, uint64_t va)
{
    for (unsigned i = 0; i < n; i++) {
        if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr &&
            va - ph[i].p_vaddr < ph[i].p_filesz) {
            return ph[i].p_offset + (va - ph[i].p_vaddr);
        }
    }
    return 0;
}

static bool fd_needs(int fd, const char *prefix)
{
    Elf64_Ehdr eh;
    if (!read_at(fd, 0, &eh, sizeof(eh)) ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
        eh.e_phnum > ELF_NEEDED_MAX_PHDRS) {
        return false;
    }
    Elf64_Phdr ph[ELF_NEEDED_MAX_PHDRS];
    if (!read_at(fd, eh.e_phoff, ph, eh.e_phnum * sizeof(Elf64_Phdr))) {
        return false;
    }
    const Elf64_Phdr *dyn = NULL;
    for (unsigned i = 0; i < eh.e_phnum && !dyn; i++) {
        dyn = ph[i].p_type == PT_DYNAMIC ? &ph[i] : NULL;
    }
    if (!dyn) {
        return false;           /* static */
    }
    size_t n = dyn->p_filesz / sizeof(Elf64_Dyn);
    n = n > ELF_NEEDED_MAX_DYN ? ELF_NEEDED_MAX_DYN : n;
    Elf64_Dyn *d = calloc(n ? n : 1, sizeof(*d));
    if (!d || !read_at(fd, dyn->p_offset, d, n * sizeof(*d))) {
        free(d);
        return false;
    }
    uint64_t strtab = 0, strsz = 0;
    for (size_t i = 0; i < n && d[i].d_tag != DT_NULL; i++) {
        if (d[i].d_tag == DT_STRTAB) {
            strtab = file_offset(ph, eh.e_phnum, d[i].d_un.d_ptr);
        } else if (d[i].d_tag == DT_STRSZ) {
            strsz = d[i].d_un.d_val;
        }
    }
    bool found = false;
    size_t plen = strlen(prefix);
    char name[256];
    for (size_t i = 0; strtab && i < n && d[i].d_tag != DT_NULL && !found;
         i++) {
        if (d[i].d_tag != DT_NEEDED || d[i].d_un.d_val >= strsz) {
            continue;
        }
        size_t len = strsz - d[i].d_un.d_val;
        len = len < sizeof(name) ? len : sizeof(name);
        memset(name, 0, sizeof(name));
        if (plen < sizeof(name) &&
            pread(fd, name, len, (off_t)(strtab + d[i].d_un.d_val)) > 0) {
            name[sizeof(name) - 1] = '\0';
            found = strncmp(name, prefix, plen) == 0;
        }
    }
    free(d);
    return found;
}

/* The file execvp would run for prog, into path; false if none. */
static bool find_program(const char *prog, char *path, size_t size)
{
    if (strchr(prog, '/')) {
        return snprintf(path, size, "%s", prog) < (int)size;
    }
    const char *p = getenv("PATH");
    for (p = p ? p : "/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        if (snprintf(path, size, "%.*s/%s", (int)len, len ? p : ".",
                     prog) < (int)size &&
            access(path, X_OK) == 0) {
            return true;
        }
        p += len + (p[len] == ':');
    }
    return false;
}

bool elf_needs(const char *prog, const char *prefix)
{
    char path[PATH_MAX];
    if (!prog || !find_program(prog, path, sizeof(path))) {
        return false;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    bool needs = fd_needs(fd, prefix);
    close(fd);
    return needs;
}
