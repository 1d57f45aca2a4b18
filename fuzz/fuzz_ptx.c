/*
 * fuzz/fuzz_ptx.c - libFuzzer harness of the PTX parser (ptx/ptx.h,
 * ptx_module_parse): the input is PTX text, not NUL-terminated (the
 * parser reads nothing at or past text + len). A module that parses has
 * each kernel checked (ptx_kernel_check) and its layout read.
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>

#include "ptx/ptx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ptx_error err = { 0 };
    struct ptx_module *m = ptx_module_parse((const char *)data, size, &err);
    if (!m) {
        return 0;
    }
    unsigned n = ptx_module_kernel_count(m);
    for (unsigned i = 0; i < n; i++) {
        const struct ptx_kernel *k = ptx_module_kernel(m, i);
        const struct ptx_kernel_info *info = ptx_kernel_get_info(k);
        (void)ptx_module_find(m, info->name);
        (void)ptx_kernel_check(k, &err);
    }
    for (unsigned i = 0; i < ptx_module_var_count(m); i++) {
        (void)ptx_module_var(m, i);
    }
    ptx_module_free(m);
    return 0;
}
