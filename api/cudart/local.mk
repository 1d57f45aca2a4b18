# api/cudart/: the CUDA runtime shim (libcudart.so.13, to come). For now
# its error model, a convenience library the shim will link: the table of
# cudaError_t names and descriptions, the per-thread last error and the
# process-wide sticky error. Needs only api/include/, no p2psim layer.
noinst_LTLIBRARIES += api/cudart/libcudart_error.la
api_cudart_libcudart_error_la_SOURCES = \
	%reldir%/error.c \
	%reldir%/error.h
EXTRA_DIST += api/cudart/.may_include
