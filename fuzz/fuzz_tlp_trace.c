/*
 * fuzz/fuzz_tlp_trace.c - libFuzzer harness of the fabric (TLP) trace
 * reader (traces/format.h, traces/trace-format.md): the input is a whole
 * trace, CSV or Perfetto JSON (told apart by its first byte), read from a
 * memory stream record by record, then once more through the summary
 * that p2psim trace summarize prints (to a sink).
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "traces/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;               /* fmemopen refuses an empty buffer */
    }
    if (!sink) {
        sink = fopen("/dev/null", "w");
    }
    char err[512];
    FILE *in = fmemopen((void *)data, size, "r");
    struct trace_reader *r =
        in ? trace_reader_open_stream(in, "fuzz.csv", err, sizeof(err))
           : NULL;
    if (r) {
        struct trace_rec rec;
        while (trace_reader_next(r, &rec, err, sizeof(err)) == 1) {
        }
        trace_reader_close(r);
    }
    if (in && sink) {
        rewind(in);
        r = trace_reader_open_stream(in, "fuzz.csv", err, sizeof(err));
        if (r) {
            (void)trace_summarize(r, sink, err, sizeof(err));
            trace_reader_close(r);
        }
    }
    if (in) {
        fclose(in);
    }
    return 0;
}
