/*
 * fuzz/fuzz_ptx_link.c - libFuzzer harness of the -rdc=true linker
 * (ptx/ptx_link.h): an input that starts with a fat binary container's
 * magic is a __nv_relfatbin section (ptx_link_relfatbin); any other is a
 * list of PTX units separated by NUL bytes (ptx_link_texts). A linked
 * text is then parsed, as module loading does.
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"
#include "ptx/ptx_link.h"

#define FUZZ_MAX_UNITS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ptx_error err = { 0 };
    char *text = NULL;
    size_t len = 0;
    int rc;
    if (size >= 4 && data[0] == 0x50 && data[1] == 0xed && data[2] == 0x55 &&
        data[3] == 0xba) {
        rc = ptx_link_relfatbin(data, size, 0, NULL, NULL, &text, &len, &err);
    } else {
        char *copy = malloc(size + 1);
        if (!copy) {
            return 0;
        }
        memcpy(copy, data, size);
        copy[size] = '\0';
        const char *units[FUZZ_MAX_UNITS];
        unsigned n = 0;
        for (size_t i = 0; i <= size && n < FUZZ_MAX_UNITS;) {
            units[n++] = copy + i;
            i += strlen(copy + i) + 1;
        }
        rc = ptx_link_texts(units, n, NULL, NULL, &text, &len, &err);
        free(copy);
    }
    if (rc == 0) {
        struct ptx_module *m = ptx_module_parse(text, len, &err);
        ptx_module_free(m);
        free(text);
    }
    return 0;
}
