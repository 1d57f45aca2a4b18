/*
 * fuzz/fuzz_validate.c - libFuzzer harness of the case files of p2psim
 * validate (tools/validate_case.h, docs/validate.md): the input is a
 * case file, read from a memory stream by validate_case_read_stream as
 * p2psim validate reads a file. The machine it names is not loaded (the
 * machine-file harnesses cover that loader).
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/validate_case.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;               /* fmemopen refuses an empty buffer */
    }
    FILE *in = fmemopen((void *)data, size, "r");
    if (!in) {
        return 0;
    }
    struct vcase c = { .path = "fuzz/case.yaml" };
    (void)validate_case_read_stream(&c, in);
    validate_case_free(&c);
    fclose(in);
    return 0;
}
