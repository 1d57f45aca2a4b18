/*
 * cuda/driver/nvrtc_cubin.c - libp2psim-nvrtc.so: programs that compile
 * with NVRTC and load its cubin (nvrtcGetCUBIN, then cuModuleLoadData, as
 * the NVRTC samples do) get NVRTC's PTX of the same program instead,
 * because p2psim's driver can run PTX and not machine code. `p2psim run`
 * preloads it (LD_PRELOAD) for programs that need libnvrtc.so, and never
 * with --real; every other NVRTC call is NVRTC's own, and so are these
 * two underneath (nvrtcGetPTXSize, nvrtcGetPTX, found with RTLD_NEXT).
 * NVRTC writes PTX for a real architecture too (--gpu-architecture=sm_90).
 *
 * Model: a program that reads the "cubin" as ELF (writes it out for
 * cuobjdump, say) sees PTX text; one that hands it to cuModuleLoadData
 * sees no difference.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <config.h>

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

/* NVRTC's interface, by its values: nvrtcResult is an int, a program a
 * pointer; NVRTC_ERROR_INVALID_PROGRAM is 5. */
typedef int nvrtc_size_fn(void *prog, size_t *size);
typedef int nvrtc_get_fn(void *prog, char *buf);
#define NVRTC_ERROR_INVALID_PROGRAM 5

int nvrtcGetCUBINSize(void *prog, size_t *cubinSizeRet);
int nvrtcGetCUBIN(void *prog, char *cubin);

static void *next(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (!fn) {
        fprintf(stderr, "p2psim: %s: NVRTC is not loaded\n", name);
    }
    return fn;
}

int nvrtcGetCUBINSize(void *prog, size_t *cubinSizeRet)
{
    nvrtc_size_fn *fn = (nvrtc_size_fn *)next("nvrtcGetPTXSize");
    return fn ? fn(prog, cubinSizeRet) : NVRTC_ERROR_INVALID_PROGRAM;
}

int nvrtcGetCUBIN(void *prog, char *cubin)
{
    nvrtc_get_fn *fn = (nvrtc_get_fn *)next("nvrtcGetPTX");
    return fn ? fn(prog, cubin) : NVRTC_ERROR_INVALID_PROGRAM;
}
