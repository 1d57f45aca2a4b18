/*
 * fuzz/fuzz_fatbin.c - libFuzzer harness of fat binary extraction
 * (ptx/ptx.h, ptx_fatbin_extract_data): the input is a fat binary
 * container (header and entries; zstd entries are decompressed where
 * libzstd was found). The PTX text found is then parsed, as module
 * loading does.
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ptx/ptx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ptx_error err = { 0 };
    char *text = NULL;
    size_t len = 0;
    if (ptx_fatbin_extract_data(data, size, 0, &text, &len, &err) != 0) {
        return 0;
    }
    struct ptx_module *m = ptx_module_parse(text, len, &err);
    ptx_module_free(m);
    free(text);
    return 0;
}
