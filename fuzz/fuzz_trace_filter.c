/*
 * fuzz/fuzz_trace_filter.c - libFuzzer harness of the filter of p2psim
 * trace filter (traces/format.h, trace_filter_parse; its times through
 * trace_parse_time): the input is a filter spec such as
 * "kind=MWr,pair=gpu0:gpu1,from=10us" (a NUL ends it). A spec that
 * parses is matched against a hop and an event record.
 */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "traces/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = malloc(size + 1);
    if (!spec) {
        return 0;
    }
    memcpy(spec, data, size);
    spec[size] = '\0';
    struct trace_filter f;
    char err[256];
    if (trace_filter_parse(spec, &f, err, sizeof(err)) == 0) {
        struct trace_rec hop = { .type = TRACE_REC_HOP, .t_ps = 6810000,
                                 .dur_ps = 28887, .bytes = 256 };
        TRACE_SET(hop.kind, "MWr");
        TRACE_SET(hop.track, "gpu0.pcie>sw0.dp0");
        TRACE_SET(hop.from, "gpu0.pcie");
        TRACE_SET(hop.to, "sw0.dp0");
        TRACE_SET(hop.src, "gpu0");
        TRACE_SET(hop.dst, "gpu1");
        struct trace_rec ev = { .type = TRACE_REC_EVENT, .t_ps = 5310000 };
        TRACE_SET(ev.kind, "bar1_map");
        TRACE_SET(ev.track, "gpu1");
        (void)trace_filter_match(&f, &hop);
        (void)trace_filter_match(&f, &ev);
    }
    free(spec);
    return 0;
}
