# traces/: trace formats, their readers and writers; libc only (STYLE.md
# §2). Linked by tools/ (p2psim replay reads API traces).
noinst_LTLIBRARIES += traces/libtraces.la
traces_libtraces_la_SOURCES = \
	%reldir%/api_trace.c \
	%reldir%/api_trace.h \
	%reldir%/text.c \
	%reldir%/text.h
# Fabric traces (issue 11): the writers' schema, CSV and Perfetto writers
# and readers, filters and summaries (traces/trace-format.md).
traces_libtraces_la_SOURCES += \
	%reldir%/format.h \
	%reldir%/trace_read.c \
	%reldir%/trace_summary.c \
	%reldir%/trace_write.c
EXTRA_DIST += traces/.may_include traces/README.md traces/api-trace.md
EXTRA_DIST += traces/trace-format.md
