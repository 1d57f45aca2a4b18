# common/: libc-only helpers that every layer may use (a leaf: includes
# nothing of the project but itself).
noinst_LTLIBRARIES += common/libcommon.la
common_libcommon_la_SOURCES = \
	%reldir%/atomic.c \
	%reldir%/atomic.h \
	%reldir%/fdio.c \
	%reldir%/fdio.h \
	%reldir%/osthread.c \
	%reldir%/osthread.h \
	%reldir%/realclock.c \
	%reldir%/realclock.h
EXTRA_DIST += common/.may_include
