/*
 * ptx/ptx_link.h - the PTX of a program built with -rdc=true (separable
 * compilation, which most cuda-samples' CMakeLists ask for).
 *
 * Such a program registers the image nvlink made for the real
 * architectures only; the PTX of each translation unit stays in its ELF
 * section __nv_relfatbin, one fat binary container per object (and one
 * per object of libcudadevrt, SASS only). ptx_link_relfatbin() reads
 * them all and links their PTX into one module text, as the driver's JIT
 * linker would: the units that define the kernels wanted, and those that
 * define what they declare .extern, transitively; each unit's header dropped but the
 * first's (.version the highest of them); an .extern declaration dropped
 * where a chosen unit defines the symbol; a .weak definition kept once;
 * a name internal to a unit that another chosen unit also uses renamed
 * in the later one (NAME_p2psim_uN). Debug lines (.file, .loc) are
 * dropped, as their file numbers would clash, and so are declarations of
 * kernels (libcudadevrt's PTX has them; the parser takes definitions).
 * A unit that does not parse on its own is left out, so that one the
 * interpreter cannot read (libcudadevrt's) does not take the others'
 * kernels with it; its own kernels are then absent from the module.
 *
 * Simplification: the text is linked at the level of PTX statements (a
 * scanner that knows comments, strings, parentheses and braces), not
 * parsed; what it cannot tell apart it leaves to ptx_module_parse.
 */
#ifndef P2PSIM_PTX_PTX_LINK_H
#define P2PSIM_PTX_PTX_LINK_H

#include <stdbool.h>
#include <stddef.h>

#include "ptx/ptx.h"

/* At most this many containers are read from one section. */
#define PTX_LINK_MAX_UNITS 4096u

/**
 * ptx_link_relfatbin() - one PTX text from the containers of a
 * __nv_relfatbin section of @size bytes at @section (nothing outside it
 * is read), each container's PTX picked for a device of architecture
 * @arch (ptx.h, ptx_fatbin_extract).
 * @want: whether a kernel of that name is wanted (the program registered
 *        it: libcudadevrt's own kernels are not); NULL: every kernel. A
 *        unit is linked in when it defines a wanted kernel, or what a
 *        linked unit needs.
 * @text: on success a malloc'd NUL-terminated PTX text; caller frees.
 * @len:  on success strlen(*text); may be NULL.
 * Return: 0; PTX_ENOPTX when no unit has PTX with an .entry; PTX_EINVAL
 * (bad containers, a symbol defined twice); PTX_ECOMPRESS; PTX_ENOMEM.
 */
int ptx_link_relfatbin(const void *section, size_t size, unsigned arch,
                       bool (*want)(const char *kernel, void *arg),
                       void *arg, char **text, size_t *len,
                       struct ptx_error *err);

/**
 * ptx_link_texts() - the same from @n PTX texts (units), as
 * ptx_relfatbin_units() hands them over.
 */
int ptx_link_texts(const char *const *units, unsigned n,
                   bool (*want)(const char *kernel, void *arg), void *arg,
                   char **text, size_t *len, struct ptx_error *err);

/**
 * ptx_link_all() - every one of the @n PTX texts linked, as the driver's
 * JIT linker links what a program adds (cuLinkComplete,
 * cuda/driver/drv_link.c): no unit is left out, so a symbol two of them
 * define is PTX_EINVAL, and a unit that does not parse makes the text
 * not parse (the caller parses it). Return: 0, PTX_EINVAL, PTX_ENOMEM.
 */
int ptx_link_all(const char *const *units, unsigned n, char **text,
                 size_t *len, struct ptx_error *err);

/**
 * ptx_relfatbin_units() - the PTX text of each container of the section
 * that has PTX (the first step of ptx_link_relfatbin): *units a malloc'd
 * array of *n malloc'd texts; free with ptx_relfatbin_units_free().
 */
int ptx_relfatbin_units(const void *section, size_t size, unsigned arch,
                        char ***units, unsigned *n, struct ptx_error *err);
void ptx_relfatbin_units_free(char **units, unsigned n);

#endif /* P2PSIM_PTX_PTX_LINK_H */
