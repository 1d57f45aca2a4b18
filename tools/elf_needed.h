/*
 * tools/elf_needed.h - whether a program needs a shared library: the
 * DT_NEEDED entries of its ELF file (`p2psim run` preloads NVRTC's
 * stand-in only for programs that link libnvrtc).
 */
#ifndef P2PSIM_TOOLS_ELF_NEEDED_H
#define P2PSIM_TOOLS_ELF_NEEDED_H

#include <stdbool.h>

/*
 * elf_needs - whether the program prog (a path, or a name looked up in
 * PATH as execvp does) is a 64-bit ELF file one of whose DT_NEEDED
 * entries starts with prefix ("libnvrtc.so"). false when it cannot tell
 * (not found, not ELF64, a script). Reads at most ELF_NEEDED_MAX_PHDRS
 * program headers and ELF_NEEDED_MAX_DYN dynamic entries.
 */
bool elf_needs(const char *prog, const char *prefix);

#define ELF_NEEDED_MAX_PHDRS 256
#define ELF_NEEDED_MAX_DYN 4096

#endif /* P2PSIM_TOOLS_ELF_NEEDED_H */
