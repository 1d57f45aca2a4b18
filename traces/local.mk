# traces/: trace formats, their readers and writers; libc only (STYLE.md
# §2). Linked by tools/ (p2psim replay reads API traces).
noinst_LTLIBRARIES += traces/libtraces.la
traces_libtraces_la_SOURCES = \
	%reldir%/api_trace.c \
	%reldir%/api_trace.h
EXTRA_DIST += traces/.may_include traces/README.md traces/api-trace.md
