# api/cudart/: the CUDA runtime shim, libcudart.so.13 (soname and version
# node as the real runtime), served by libp2psim. Installed into
# $(pkglibdir) so that it never shadows a real CUDA runtime on the library
# path; programs reach it through p2psim-cudart.pc (-rpath) or
# `p2psim run` (LD_LIBRARY_PATH).
#
# libcudart_error.la: the error model alone (names, last and sticky
# error), also linked by its unit tests.
noinst_LTLIBRARIES += api/cudart/libcudart_error.la
api_cudart_libcudart_error_la_SOURCES = \
	%reldir%/error.c \
	%reldir%/error.h

pkglib_LTLIBRARIES = api/cudart/libcudart.la
api_cudart_libcudart_la_SOURCES = \
	%reldir%/rt.c \
	%reldir%/rt.h \
	%reldir%/stream.c \
	%reldir%/copy.c \
	%reldir%/device.c \
	%reldir%/peer.c \
	%reldir%/memory.c \
	%reldir%/managed.c \
	%reldir%/launch.c
api_cudart_libcudart_la_LIBADD = api/cudart/libcudart_error.la \
	api/libp2psim.la -lpthread
api_cudart_libcudart_la_LDFLAGS = -version-info 13:0:0 -no-undefined \
	-Wl,--version-script=$(srcdir)/api/cudart/libcudart.map
EXTRA_api_cudart_libcudart_la_DEPENDENCIES = $(srcdir)/api/cudart/libcudart.map
EXTRA_DIST += api/cudart/.may_include api/cudart/libcudart.map
