/*
 * cuda/cudart/relfatbin.h - the PTX of a program built with -rdc=true
 * (relfatbin.c says where it is and how it is found).
 */
#ifndef P2PSIM_CUDA_CUDART_RELFATBIN_H
#define P2PSIM_CUDA_CUDART_RELFATBIN_H

#include <stdbool.h>
#include <stddef.h>

#include "ptx/ptx.h"

/*
 * rt_relfatbin_ptx() - the PTX of the -rdc=true object whose registered
 * fat binary wrapper is at @wrapper, linked for the kernels @want says
 * from the PTX for a device of architecture @arch (ptx/ptx_link.h): a
 * malloc'd text in *text, its length in *len. 0, or a PTX_E* code with
 * @err filled.
 */
int rt_relfatbin_ptx(const void *wrapper, unsigned arch,
                     bool (*want)(const char *kernel, void *arg), void *arg,
                     char **text, size_t *len, struct ptx_error *err);

/* (registry.c) Whether the program registered a kernel of this name in
 * module m, a struct cudart_module (reg_lock held). */
bool reg_kernel_registered(const void *m, const char *name);

#endif /* P2PSIM_CUDA_CUDART_RELFATBIN_H */
