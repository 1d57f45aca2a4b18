/*
 * tools/cmd_trace.c - `p2psim trace summarize|convert|filter`: the tools
 * of traces/ on fabric traces (traces/trace-format.md). They read files
 * only; no machine is loaded.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/cli.h"
#include "traces/format.h"

#define TRACE_USAGE                                                           \
    "usage: p2psim trace summarize FILE\n"                                    \
    "       p2psim trace convert IN OUT [--format csv|perfetto]\n"            \
    "       p2psim trace filter IN OUT SPEC [--format csv|perfetto]"

static void trace_usage(FILE *f)
{
    fprintf(f,
            TRACE_USAGE "\n\n"
            "Read a fabric trace written by --trace (p2psim run, bench, "
            "sweep) or\nP2PSIM_TRACE, as CSV or Perfetto JSON (told apart "
            "by content).\n\n"
            "  summarize  bytes, TLPs and utilisation per link direction, "
            "operations per\n"
            "             copy engine, a latency histogram per TLP kind, "
            "event counts\n"
            "  convert    CSV to Perfetto JSON and back (OUT's format by "
            "its extension,\n"
            "             .csv or .json, or --format)\n"
            "  filter     keep the records SPEC selects, e.g.\n"
            "             component=sw0+cpu0,kind=MWr+CplD,pair=gpu0:gpu1,"
            "from=1us,to=5us\n\n"
            "Open the JSON in https://ui.perfetto.dev (or chrome://tracing)."
            "\nSee docs/traces.md; the format: traces/trace-format.md.\n");
}

static int copy_records(const char *in, const char *out, const char *fmt,
                        const char *spec)
{
    struct trace_filter filt;
    char err[400];
    if (trace_filter_parse(spec, &filt, err, sizeof(err)) < 0) {
        fprintf(stderr, "p2psim trace: %s\n", err);
        return CLI_BAD_INPUT;
    }
    int f = fmt ? trace_format_find(fmt) : trace_format_of_path(out);
    if (f < 0) {
        fprintf(stderr, "p2psim trace: %s: say the output format (--format "
                        "csv or perfetto) or name it *.csv or *.json\n",
                fmt ? fmt : out);
        return CLI_BAD_INPUT;
    }
    struct stat si, so;
    if (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev &&
        si.st_ino == so.st_ino) {
        /* Opening OUT would empty IN before it is read. */
        fprintf(stderr, "p2psim trace: %s and %s are the same file\n", in,
                out);
        return CLI_BAD_INPUT;
    }
    struct trace_reader *r = trace_reader_open(in, err, sizeof(err));
    if (!r) {
        fprintf(stderr, "p2psim trace: %s\n", err);
        return CLI_BAD_INPUT;
    }
    struct trace_writer *w = trace_writer_open(out, (enum trace_format)f, 0,
                                               err, sizeof(err));
    if (!w) {
        fprintf(stderr, "p2psim trace: %s\n", err);
        trace_reader_close(r);
        return CLI_FAIL;
    }
    struct trace_rec rec;
    int rc, n = 0;
    while ((rc = trace_reader_next(r, &rec, err, sizeof(err))) == 1) {
        if (trace_filter_match(&filt, &rec) && trace_writer_put(w, &rec) < 0) {
            rc = -2;
            break;
        }
        n++;
    }
    trace_reader_close(r);
    if (trace_writer_close(w) < 0 || rc == -2) {
        fprintf(stderr, "p2psim trace: cannot write %s\n", out);
        return CLI_FAIL;
    }
    if (rc < 0) {
        /* No half-converted file is left to be taken for the whole. */
        unlink(out);
        fprintf(stderr, "p2psim trace: %s\n", err);
        return CLI_BAD_INPUT;
    }
    return n >= 0 ? CLI_OK : CLI_FAIL;
}

int cmd_trace(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        trace_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_BAD_INPUT : CLI_OK;
    }
    const char *fmt = NULL;
    const char *pos[4];
    int n = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            fmt = argv[++i];
        } else if (!strncmp(argv[i], "--format=", 9)) {
            fmt = argv[i] + 9;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "p2psim trace: unknown option %s\n%s\n", argv[i],
                    TRACE_USAGE);
            return CLI_BAD_INPUT;
        } else if (n < 4) {
            pos[n++] = argv[i];
        } else {
            n = 5;
        }
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "summarize") && n == 1 && !fmt) {
        char err[400];
        struct trace_reader *r = trace_reader_open(pos[0], err, sizeof(err));
        if (!r) {
            fprintf(stderr, "p2psim trace: %s\n", err);
            return CLI_BAD_INPUT;
        }
        int rc = trace_summarize(r, stdout, err, sizeof(err));
        trace_reader_close(r);
        if (rc < 0) {
            fprintf(stderr, "p2psim trace: %s\n", err);
            return CLI_BAD_INPUT;
        }
        return CLI_OK;
    }
    if (!strcmp(sub, "convert") && n == 2) {
        return copy_records(pos[0], pos[1], fmt, "");
    }
    if (!strcmp(sub, "filter") && n == 3) {
        return copy_records(pos[0], pos[1], fmt, pos[2]);
    }
    fprintf(stderr, "p2psim trace: %s\n",
            strcmp(sub, "summarize") && strcmp(sub, "convert") &&
                    strcmp(sub, "filter")
                ? "unknown subcommand (summarize, convert, filter)"
                : "wrong arguments");
    fprintf(stderr, "%s\n", TRACE_USAGE);
    return CLI_BAD_INPUT;
}
