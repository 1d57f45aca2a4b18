/*
 * fuzz/fuzz_api_trace.c - libFuzzer harness of the API trace reader
 * (traces/api_trace.h, traces/api-trace.md): the input is a whole trace,
 * read from a memory stream by trace_api_read_stream, as p2psim replay
 * and p2psim trace read a file. The calls read are then queried as
 * replay queries them.
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "traces/api_trace.h"

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
    struct trace_api_file f;
    char err[512];
    if (trace_api_read_stream(in, "fuzz.jsonl", &f, err, sizeof(err)) == 0) {
        for (size_t i = 0; i < f.n_calls; i++) {
            const struct trace_api_call *c = &f.calls[i];
            uint64_t u;
            int64_t s;
            double d;
            (void)trace_api_get_u64(c, "args.count", &u);
            (void)trace_api_get_i64(c, "args.dst", &s);
            (void)trace_api_get_double(c, "args.ms", &d);
            (void)trace_api_ret_i64(c, &s);
        }
    }
    trace_api_free(&f);
    fclose(in);
    return 0;
}
